/* verdict.c — the verdict (see verdict.h): fa_verdict_decide runs every step, and the verdict's
 * own small functions (free, withdraw, the status's name).
 *
 * Steps (verdict_steps.h): collect_ranks (a node per rank, its facts), read_self_reports (what
 * recorder dumps say of their rank), build_graph, add_unrecorded_p2p_waits (what gloo did not
 * record), the possible waits and doubts (verdict_possible.c), components (verdict_waits.c);
 * judge_sinks (verdict_sinks.c: culprits, one finding per cause), and where they found none, a
 * communicator whose making never finished (verdict_setup.c); then fa_verdict_explain
 * (verdict_explain.c: evidence, wait chain, victims), the alternatives, and the status with its
 * summary (verdict_summary.c picks it, verdict_title.c writes the line). The decider and the
 * graph are in verdict_graph.h. This is one decision (fa_verdict_decide_reading); the entry
 * point, fa_verdict_decide, is in verdict_either.c: where a dump is older only by what it shows
 * issued, the verdict is decided in each of its readings first, and last with what they agree on
 * (the plan, carried out by verdict_agreed.c).
 */
#include "verdict/verdict.h"

#include "verdict/verdict_either.h"
#include "verdict/verdict_explain.h"
#include "verdict/verdict_graph.h"
#include "verdict/verdict_order.h"
#include "verdict/verdict_possible.h"
#include "verdict/verdict_steps.h"
#include "util/xmalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Evidence rows and level 0 of the wait chain only for the ranks the verdict names: the summary
 * may withdraw culprits after the evidence was gathered (most of the job lost, only lost dumps
 * to blame), and every rank shown as a culprit anywhere is in culprit_ranks. */
static void keep_culprits_evidence(fa_verdict *v) {
    size_t kept = 0;
    for (size_t i = 0; i < v->nevidence; i++) {
        if (fa_ranks_contains(&v->culprits, v->evidence[i].rank)) {
            v->evidence[kept++] = v->evidence[i];
            continue;
        }
        fa_ranks_free(&v->evidence[i].waiters);
        fa_ranks_free(&v->evidence[i].done);
    }
    v->nevidence = kept;
    fa_ranks *roots = &v->levels[0].ranks;
    size_t n = 0;
    for (size_t i = 0; i < roots->n; i++)
        if (fa_ranks_contains(&v->culprits, roots->v[i])) roots->v[n++] = roots->v[i];
    roots->n = n;
}

int fa_verdict_decide_reading(const fa_input *in, const fa_groups *groups, const fa_match *m,
                              fa_findings *findings, fa_verdict *v, const fa_either_plan *plan,
                              fr_error *err) {
    memset(v, 0, sizeof *v);
    decider d = { .in = in,
                  .groups = groups,
                  .m = m,
                  .findings = findings,
                  .v = v,
                  .unplaced_op = -1,
                  .plan = plan };
    uint32_t widest = 2;
    for (size_t i = 0; i < groups->n; i++)
        if (groups->v[i].nmembers > widest) widest = groups->v[i].nmembers;
    d.widest = widest;
    d.members = malloc(widest * sizeof *d.members);
    d.states = malloc(widest * sizeof *d.states);
    size_t before = findings->n;
    int rc = d.members && d.states ? fa_vw_collect_ranks(&d) : -1;
    if (rc == 0) rc = fa_vw_read_self_reports(&d);
    if (rc == 0) rc = fa_vw_build_graph(&d);
    if (rc == 0) rc = fa_vg_add_possible_waits(&d);
    if (rc == 0) rc = fa_vw_components(&d);
    if (rc == 0) rc = fa_vg_weigh_doubts(&d);
    if (rc == 0) rc = fa_vw_join_excused_unknowns(&d);
    if (rc == 0) {
        fa_vs_judge_sinks(&d);
        bool mismatch = false, stuck = false;
        for (size_t i = 0; i < before; i++)
            if (fa_finding_is_mismatch(findings->v[i].kind)) {
                mismatch = true;
                for (size_t k = 0; k < findings->v[i].ranks.n; k++)
                    fa_ranks_add(&v->culprits, findings->v[i].ranks.v[k]);
            }
        if (findings->n == before && !d.nambiguities && !mismatch)
            rc = fa_vsetup_judge_unfinished(&d);
        size_t after_sinks = findings->n;
        if (plan && fa_ve_apply_plan(&d, before, &after_sinks) != 0) rc = -1;
        v->first_culprit_finding = before;
        v->nculprit_findings = after_sinks - before;
        for (size_t i = before; i < after_sinks; i++) {
            stuck |= findings->v[i].kind == FA_STUCK_COLLECTIVE;
            if (!mismatch)
                for (size_t k = 0; k < findings->v[i].ranks.n; k++)
                    fa_ranks_add(&v->culprits, findings->v[i].ranks.v[k]);
        }
        fa_ranks_normalize(&v->culprits);
        if (mismatch) fa_vg_free_ambiguities(&d); /* the mismatch is the cause */
        if (fa_verdict_explain(&d, before) != 0) rc = -1;
        if (!mismatch) fa_vg_offer_holes(&d);
        if (rc == 0 && fa_vg_alternatives(&d) != 0) rc = -1;
        fa_vs_note_idle_missing_dumps(&d);
        fa_vs_summarize(&d, before, mismatch, stuck);
        keep_culprits_evidence(v);
    }
    fa_vg_free_ambiguities(&d);
    free(d.g.pedge_at);
    free(d.g.pedges);
    free(d.g.pfrom);
    free(d.g.pto);
    free(d.members);
    free(d.states);
    free(d.facts);
    free(d.runs);
    free(d.family_runs);
    fa_vo_families_free(&d.families);
    fa_imap_free(&d.node_of_rank);
    free(d.dense);
    free(d.unseen);
    fa_imap_free(&d.async_error);
    free(d.g.edge_at);
    free(d.g.edges);
    free(d.g.from);
    free(d.g.to);
    free(d.g.op_of_node);
    free(d.comp);
    free(d.joined_ops);
    if (rc) fr_fail(err, "out of memory while deciding the verdict");
    return rc;
}

void fa_verdict_free(fa_verdict *v) {
    fa_ranks_free(&v->culprits);
    fa_ranks_free(&v->read_final);
    for (size_t i = 0; i < v->nevidence; i++) {
        fa_ranks_free(&v->evidence[i].waiters);
        fa_ranks_free(&v->evidence[i].done);
    }
    free(v->evidence);
    for (int l = 0; l < FA_WAIT_LEVELS; l++) {
        fa_ranks_free(&v->levels[l].ranks);
        fa_ranks_free(&v->levels[l].waits_for);
        free(v->levels[l].via);
    }
    for (size_t i = 0; i < v->nalternatives; i++) {
        fa_ranks_free(&v->alternatives[i].ranks);
        free(v->alternatives[i].explanation);
    }
    free(v->alternatives);
    free(v->summary);
    memset(v, 0, sizeof *v);
}

void fa_verdict_withdraw(fa_verdict *v, char *summary) {
    size_t first = v->first_culprit_finding;
    fa_verdict_free(v);
    v->status = FA_STATUS_INCONCLUSIVE;
    v->summary = summary;
    v->first_culprit_finding = first;
}

/* A job that looks fine only because some ranks' entries had no place in their groups (see
 * groups.h, outsiders) is not ok: nothing can be said of the collectives those ranks recorded. */
void fa_verdict_doubt_outsiders(fa_verdict *v, const fa_groups *groups) {
    if (v->status != FA_STATUS_OK || !groups->outsiders.n) return;
    char *who = fa_ranks_format(groups->outsiders.v, groups->outsiders.n);
    bool many = groups->outsiders.n > 1;
    free(v->summary);
    v->summary =
        xasprintf("inconclusive: rank%s %s recorded collectives in groups whose member lists "
                  "leave %s out, so those were not matched (a torchft job? try --transform-ft "
                  "--group-world-size N)",
                  many ? "s" : "", who ? who : "?", many ? "them" : "it");
    v->status = FA_STATUS_INCONCLUSIVE;
    free(who);
}

const char *fa_status_name(fa_status s) {
    switch (s) {
    case FA_STATUS_OK: return "ok";
    case FA_STATUS_HANG: return "hang";
    case FA_STATUS_MISMATCH: return "mismatch";
    case FA_STATUS_INCONCLUSIVE: return "inconclusive";
    }
    return "?";
}
