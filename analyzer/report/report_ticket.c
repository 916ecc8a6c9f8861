/* report_ticket.c — the report as a ticket to paste: GitHub/GitLab markdown (-f markdown) or
 * Jira/Confluence wiki markup (-f jira), one structure in two markups (markup.h). The verdict
 * summary is the title; then the culprit table and the wait chain (the same rows and lines as
 * the text report, built in report_rows.c), the explanations the dumps allow, each finding as
 * a section with its evidence table, the slow ranks, and the warnings. Every text that may hold
 * the input's (the summary, headings, details, cells, paths, frames) is a code span, monospace
 * or plain words (safe_text.h), and stack traces a block that nothing inside can end: nothing
 * in a dump can form HTML, a link, a heading, a list, a fence, a macro or an autolink (#123,
 * @name) in the ticket; our own words ("all_reduce #4") sit in code spans too, so that GitHub
 * does not link them to its issues.
 */
#include <stdlib.h>
#include <string.h>

#include "report/markup.h"
#include "report/perf_report.h"
#include "report/report.h"
#include "report/report_whereabouts.h"
#include "report/stacks.h"
#include "report/table.h"
#include "report/headline.h"

static void finding_heading(const fa_analysis *a, const fa_finding *f, fa_markup m, FILE *out) {
    char group[300] = "", label[200] = "";
    if (f->group >= 0) fa_group_label(&a->groups.v[f->group], group, sizeof group);
    if (f->op >= 0) fa_op_label(&a->match, (size_t)f->op, label, sizeof label);
    fa_mu_heading(out, m, 3);
    fa_mu_code(out, m, fa_finding_kind_name(f->kind));
    if (group[0]) fputs(" in ", out), fa_mu_code(out, m, group);
    if (label[0]) fputs(", ", out), fa_mu_code(out, m, label);
    fputs("\n\n", out);
}

/* The merged stack traces of op, in a block. */
static void stack_traces(const fa_analysis *a, long op, fa_markup m, FILE *out) {
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    if (!mem) return;
    fa_stacks_print(a, op, mem, ""); /* frames already in their terminal form (stacks.h) */
    if (fclose(mem) == 0 && text) fa_mu_block(out, m, "stack traces", text);
    free(text);
}

static void print_status(const fa_analysis *a, fa_markup m, FILE *out) {
    const fa_verdict *v = &a->verdict;
    char *culprits = fa_ranks_format(v->culprits.v, v->culprits.n);
    fa_mu_heading(out, m, 1);
    char *title = fa_headline(a);
    fa_mu_code(out, m, title ? title : fa_status_name(v->status));
    free(title);
    fputs("\n\n", out);
    fa_table t;
    fa_table_init(&t, 5);
    fa_table_row(&t);
    const char *head[] = { "status", "culprit ranks", "ranks read", "directory", "prefix" };
    for (int i = 0; i < 5; i++) fa_table_cell(&t, "%s", head[i]);
    fa_table_row(&t);
    fa_table_cell(&t, "%s", fa_status_name(v->status));
    fa_table_cell(&t, "%s", culprits && *culprits ? culprits : "none");
    fa_table_cell(&t, "%zu", a->in.nranks);
    fa_table_cell(&t, "%s", a->in.dir);
    fa_table_cell(&t, "%s", a->in.prefix);
    fa_mu_table(out, m, &t);
    fa_table_free(&t);
    fputc('\n', out);
    free(culprits);
}

static void print_culprits(const fa_analysis *a, const fa_report_options *opt, fa_markup m,
                           FILE *out) {
    if (!a->verdict.nevidence) return;
    fa_table t;
    size_t hidden;
    fa_report_culprit_table(a, opt, &t, &hidden);
    fa_mu_heading(out, m, 2);
    fputs(a->verdict.status == FA_STATUS_INCONCLUSIVE ? "Suspects\n\n" : "Culprits\n\n", out);
    fa_mu_table(out, m, &t);
    fa_table_free(&t);
    fputc('\n', out);
    if (hidden) fa_mu_note(out, m, "%zu more rows (`-v` lists them).", hidden);
}

static void print_alternatives(const fa_analysis *a, fa_markup m, FILE *out) {
    const fa_verdict *v = &a->verdict;
    if (!v->nalternatives) return;
    fa_mu_heading(out, m, 2);
    fputs("Explanations the dumps allow\n\n", out);
    for (size_t i = 0; i < v->nalternatives; i++) {
        char *who = fa_ranks_format(v->alternatives[i].ranks.v, v->alternatives[i].ranks.n);
        fa_mu_item(out, m, false);
        fprintf(out, "ranks %s: ", who ? who : "?");
        fa_mu_code(out, m, v->alternatives[i].explanation); /* it may name the input's groups */
        fputc('\n', out);
        free(who);
    }
    fputc('\n', out);
    fa_mu_note(out, m,
               v->culprits.n ? "Each rank's stack at dump time would tell them apart."
                             : "None of these ranks is proven at fault; each rank's stack at dump "
                               "time, or a backend that records send/recv, would tell them apart.");
    if (fa_stale_any_issued_only(a->match.rank_stale, a->in.nranks))
        fa_mu_note(out, m,
                   "A dump older only by what it shows issued may be final: a GPU error on that "
                   "rank's node (Xid lines in its kernel log) or a later dump of it would say.");
}

static void print_wait_chain(const fa_analysis *a, const fa_report_options *opt, fa_markup m,
                             FILE *out) {
    const fa_verdict *v = &a->verdict;
    if (!v->levels[1].ranks.n && !v->nexplained_p2p)
        return; /* one hop: the culprit table says it all */
    fa_mu_heading(out, m, 2);
    fputs("Wait chain\n\n", out);
    for (int level = FA_WAIT_LEVELS - 1; level >= 0; level--) {
        char *line = fa_report_wait_line(a, level);
        if (line) {
            fa_mu_item(out, m, true);
            fa_mu_code(out, m, line);
            fputc('\n', out);
        }
        free(line);
    }
    fputc('\n', out);
    if (v->nexplained_p2p)
        fa_mu_note(out, m, "%zu %s on blocked peers (`p2p_unmatched` explained by the hang%s).",
                   v->nexplained_p2p,
                   v->nexplained_p2p > 1 ? "sends/recvs wait" : "send/recv waits",
                   opt->verbose ? ", listed under Warnings" : "; `-v` lists them");
}

static void print_slow_ranks(const fa_analysis *a, fa_markup m, FILE *out) {
    fa_table t;
    if (!fa_perf_slow_ranks_table(a, &t)) return;
    fa_mu_heading(out, m, 2);
    fputs("Slow ranks\n\n", out);
    fa_mu_table(out, m, &t);
    fa_table_free(&t);
    fputc('\n', out);
    fa_mu_note(out, m,
               "Lateness: arrival after its peers' median arrival (with gloo, at most the delay "
               "the rank made itself); late in: collectives it was late in by the floor (%.1f ms) "
               "or more; last in: collectives it arrived last in; over %zu collectives judged. A "
               "slow rank does not change the verdict.",
               a->perf.floor_ms, a->perf.judged);
}

static void print_finding(const fa_analysis *a, const fa_report_options *opt, const fa_finding *f,
                          fa_markup m, FILE *out) {
    finding_heading(a, f, m, out);
    if (f->detail && f->detail[0]) {
        fa_mu_code(out, m, f->detail);
        fputs("\n\n", out);
    }
    if (f->op < 0) return;
    fa_table t;
    fa_report_evidence_table(a, f->op, &t);
    fa_mu_table(out, m, &t);
    fa_table_free(&t);
    fputc('\n', out);
    if (opt->stack_traces) stack_traces(a, f->op, m, out);
}

static int report_ticket(const fa_analysis *a, const fa_report_options *opt, fa_markup m,
                         FILE *out) {
    print_status(a, m, out);
    if (opt->selected_ranks || opt->pg_filters)
        fa_mu_note(out, m,
                   "Showing only findings about the selected ranks/groups; the verdict covers "
                   "every rank.");
    print_culprits(a, opt, m, out);
    print_alternatives(a, m, out);
    print_wait_chain(a, opt, m, out);
    fa_report_whereabouts_ticket(a, opt, m, out);
    size_t hidden = 0, files = 0;
    for (int warnings = 0; warnings < 2; warnings++) {
        if (warnings) print_slow_ranks(a, m, out); /* what an ok verdict is about: first */
        bool header = false;
        for (size_t i = 0; i < a->findings.n; i++) {
            const fa_finding *f = &a->findings.v[i];
            if (fa_finding_is_warning(f->kind) != (warnings == 1)) continue;
            if (!f->listed) hidden++;
            if (!fa_report_lists_finding(a, f, opt) || fa_report_file_over_cap(f, opt, &files))
                continue;
            if (!header) {
                fa_mu_heading(out, m, 2);
                fputs(warnings ? "Warnings\n\n" : "Findings\n\n", out);
                header = true;
            }
            print_finding(a, opt, f, m, out);
        }
    }
    if (hidden)
        fa_mu_note(out, m, "%zu more findings not listed (over `--mismatch-cap` per group).",
                   hidden);
    if (files > FA_REPORT_FILES_SHOWN)
        fa_mu_note(out, m, "%zu more rejected files not listed (`-v` or `-o FILE` lists them).",
                   files - FA_REPORT_FILES_SHOWN);
    return ferror(out) ? -1 : 0;
}

int fa_report_markdown(const fa_analysis *a, const fa_report_options *opt, FILE *out) {
    return report_ticket(a, opt, FA_MARKDOWN, out);
}

int fa_report_jira(const fa_analysis *a, const fa_report_options *opt, FILE *out) {
    return report_ticket(a, opt, FA_JIRA, out);
}
