/* analysis.c — runs load, groups, match and verdict in order (see analysis.h). */
#include "analysis.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "match/mixed.h"
#include "match/passes.h"
#include "util/timing.h"
#include "load/transform_ft.h"

static void input_findings(fa_analysis *a, bool mixed_jobs) {
    for (size_t i = 0; i < a->in.nrejected; i++) {
        fa_finding *f = fa_findings_add(&a->findings, FA_REJECTED_FILE, -1, -1);
        if (a->in.rejected[i].rank >= 0) fa_ranks_add(&f->ranks, a->in.rejected[i].rank);
        fa_finding_set_detail(f, "%s: %s", a->in.rejected[i].path, a->in.rejected[i].error);
    }
    /* A salvaged (truncated) dump is used, but the reader must know: its whole entries only. */
    for (size_t i = 0; i < a->in.nranks; i++) {
        const fa_dump *d = a->in.ranks[i].dump;
        if (!d->truncated && !d->warning) continue;
        fa_finding *f = fa_findings_add(&a->findings, FA_REJECTED_FILE, -1, -1);
        fa_ranks_add(&f->ranks, a->in.ranks[i].rank);
        fa_finding_set_detail(
            f, "%s: %s%s", a->in.ranks[i].path, d->warning ? d->warning : "truncated",
            d->truncated ? "; salvaged: only its whole entries are analyzed" : "");
    }
    if (a->in.nversions > 1) {
        fa_finding *f = fa_findings_add(&a->findings, FA_VERSION_MISMATCH, -1, -1);
        char list[400] = "";
        size_t at = 0;
        for (size_t i = 0; i < a->in.nversions && at < sizeof list; i++)
            at += (size_t)snprintf(list + at, sizeof list - at, "%s%s", i ? ", " : "",
                                   a->in.versions[i]);
        fa_finding_set_detail(
            f, "the dumps have different format versions (%s); they are analyzed together", list);
    }
    for (size_t i = 0; i < a->groups.ninferred; i++) {
        fa_finding *f = fa_findings_add(&a->findings, FA_MEMBERSHIP_INFERRED, -1, -1);
        fa_finding_set_detail(f, "%s", a->groups.inferred[i]);
    }
    for (size_t i = 0; i < a->groups.nnotes; i++) {
        fa_finding *f = fa_findings_add(&a->findings, FA_GROUP_MISMATCH, -1, -1);
        fa_finding_set_detail(f, "%s", a->groups.notes[i]);
    }
    /* two jobs' dumps leave each other's ranks out of their groups: that is no torchft job */
    for (size_t i = 0; i < a->groups.noutsider_notes && !mixed_jobs; i++) {
        fa_finding *f = fa_findings_add(&a->findings, FA_GROUP_MISMATCH, -1, -1);
        fa_finding_set_detail(f, "%s", a->groups.outsider_notes[i]);
    }
}

/* Stragglers and stats (perf.h); the reports name the slow ranks (report/title.h). The view
 * takes the most memory of any stage (tens of bytes per call): where it cannot have it, it is
 * left out and said so (fa_perf.skipped), and the verdict, which needs none of it, stands: a job
 * of 131 072 ranks still gets its culprits. */
static void judge_speed(const fa_options *opt, fa_analysis *a) {
    if (fa_perf_build(&a->in, &a->groups, &a->match, a->verdict.status, opt->straggler_floor_ms,
                      opt->jobs, &a->perf) != 0)
        a->perf.skipped = "out of memory";
}

int fa_load_input(const fa_options *opt, fa_input *in, fr_error *err) {
    if (fa_load_dir(opt->dir, opt->prefix, opt->jobs, opt->progress, in, err) != 0) return -1;
    if (opt->hosts_file && fa_hosts_load(opt->hosts_file, &in->hosts, err) != 0) return -1;
    return opt->ft_group_world_size > 0 ? fa_transform_ft(in, opt->ft_group_world_size, err) : 0;
}

int fa_analyze(const fa_options *opt, fa_analysis *a, fr_error *err) {
    memset(a, 0, sizeof *a);
    bool timing = fa_timing_wanted();
    double t = fa_clock();
    if (fa_load_input(opt, &a->in, err) != 0) return -1;
    if (timing) fa_timing_note("load", &t);
    if (a->in.nranks == 0) {
        fr_fail(err, "%s: no dump could be read (%zu rejected)", opt->dir, a->in.nrejected);
        return -1;
    }
    fa_progress_stage(opt->progress, FA_STAGE_GROUPS);
    if (fa_groups_build(&a->in, &a->groups, err) != 0) return -1;
    if (timing) fa_timing_note("groups", &t);
    char *mixed_jobs =
        fa_mixed_jobs(&a->in, &a->groups, &a->findings); /* dumps of several jobs (mixed.h) */
    input_findings(a, mixed_jobs != NULL);
    fa_progress_stage(opt->progress, FA_STAGE_MATCHING);
    if (fa_match_build(&a->in, &a->groups, opt->mismatch_cap, opt->jobs, &a->match, &a->findings,
                       err) != 0) {
        free(mixed_jobs);
        return -1;
    }
    fa_match_mark_passes(&a->groups, &a->match, opt->jobs); /* which ops pass (passes.h) */
    if (timing) fa_timing_note("match", &t);
    fa_progress_stage(opt->progress, FA_STAGE_DECIDING);
    int rc = fa_verdict_decide(&a->in, &a->groups, &a->match, &a->findings, &a->verdict, err);
    if (rc == 0 && a->verdict.read_final.n) { /* the match as the verdict read it: GPUs stalled */
        fa_match_read_final(&a->match, &a->in, a->verdict.read_final.v, a->verdict.read_final.n);
        fa_match_mark_passes(&a->groups, &a->match, opt->jobs);
    }
    if (rc == 0 && mixed_jobs)
        fa_verdict_withdraw(&a->verdict, mixed_jobs); /* nobody is blamed */
    else
        free(mixed_jobs);
    if (rc == 0 && !mixed_jobs) fa_verdict_doubt_outsiders(&a->verdict, &a->groups);
    if (timing) fa_timing_note("verdict", &t);
    fa_progress_stage(opt->progress, FA_STAGE_TIMING);
    if (rc == 0) judge_speed(opt, a);
    if (timing) fa_timing_note("perf", &t);
    fa_progress_stage(opt->progress, FA_STAGE_DONE);
    return rc;
}

void fa_analysis_free(fa_analysis *a) {
    fa_perf_free(&a->perf);
    fa_verdict_free(&a->verdict);
    fa_findings_free(&a->findings);
    fa_match_free(&a->match);
    fa_groups_free(&a->groups);
    fa_input_free(&a->in);
}
