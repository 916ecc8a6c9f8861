/* report_text.c — the default report: the verdict line; the culprits' evidence across every
 * group; the wait chain (waiters -> victims -> root causes, with the count of sends/recvs the
 * hang explains); where the culprits are now and every rank at dump time (report_whereabouts.c,
 * for dumps that say); each finding with its evidence table, then warnings. Within --width columns
 * (wrap.c, table.c). What it shows with the markdown report is built once, in report_rows.c.
 * Every line that may hold the input's text (names, descs, paths) goes out in its terminal form
 * (safe_text.h, through wrap.c and table.c): shown, never obeyed.
 */
#include <stdlib.h>
#include <string.h>

#include "report/report.h"
#include "report/perf_report.h"
#include "safe_text.h"
#include "report/report_whereabouts.h"
#include "report/stacks.h"
#include "report/table.h"
#include "report/headline.h"
#include "report/wrap.h"

static void finding_heading(const fa_analysis *a, const fa_finding *f, char *buf, size_t len) {
    char group[300] = "", label[200] = "";
    if (f->group >= 0) fa_group_label(&a->groups.v[f->group], group, sizeof group);
    if (f->op >= 0) fa_op_label(&a->match, (size_t)f->op, label, sizeof label);
    snprintf(buf, len, "%s%s%s%s%s", fa_finding_kind_name(f->kind), group[0] ? " in " : "", group,
             label[0] ? ", " : "", label);
}

static void print_finding(const fa_analysis *a, const fa_report_options *opt, const fa_finding *f,
                          size_t number, FILE *out) {
    char heading[600];
    finding_heading(a, f, heading, sizeof heading);
    char lead[32];
    snprintf(lead, sizeof lead, "%zu. ", number);
    fa_wrap_print(out, lead, "   ", heading, opt->width);
    fa_wrap_print(out, "   ", "   ", f->detail ? f->detail : "", opt->width);
    if (f->op >= 0) {
        fa_table t;
        fa_report_evidence_table(a, f->op, &t);
        fputc('\n', out);
        fa_table_print_fit(&t, out, "   ", opt->width);
        fa_table_free(&t);
        if (opt->stack_traces) {
            fputs("   stack traces:\n", out);
            fa_stacks_print(a, f->op, out, "     ");
        }
    }
    fputc('\n', out);
}

static void print_groups(const fa_analysis *a, const fa_report_options *opt, FILE *out) {
    fa_table t;
    fa_table_init(&t, 4);
    fa_table_row(&t);
    fa_table_cell(&t, "id");
    fa_table_cell(&t, "desc");
    fa_table_cell(&t, "size");
    fa_table_cell(&t, "ranks");
    for (size_t i = 0; i < a->groups.n; i++) {
        const fa_group *g = &a->groups.v[i];
        char *who = fa_ranks_format(g->members, g->nmembers);
        fa_table_row(&t);
        fa_table_cell(&t, "%s", g->id);
        fa_table_cell(&t, "%s", g->desc);
        fa_table_cell(&t, "%u", g->nmembers);
        fa_table_cell(&t, "%s", who);
        free(who);
    }
    fputs("groups:\n", out);
    fa_table_print_fit(&t, out, "  ", opt->width);
    fa_table_free(&t);
    fputc('\n', out);
}

static void print_collectives(const fa_analysis *a, const fa_report_options *opt, FILE *out) {
    fa_table t;
    fa_table_init(&t, 5);
    fa_table_row(&t);
    fa_table_cell(&t, "group");
    fa_table_cell(&t, "operation");
    fa_table_cell(&t, "ranks issued");
    fa_table_cell(&t, "completed on");
    fa_table_cell(&t, "check");
    for (size_t i = 0; i < a->match.nops; i++) {
        const fa_op *o = &a->match.ops[i];
        if (o->ncalls == 0) continue;
        const fa_group *g = &a->groups.v[o->group];
        fa_ranks issued = { 0 }, done = { 0 };
        for (uint32_t k = 0; k < o->ncalls; k++) {
            const fa_call *c = &a->match.calls[o->first_call + k];
            fa_ranks_add(&issued, g->members[c->member]);
            if (c->state == FR_STATE_COMPLETED) fa_ranks_add(&done, g->members[c->member]);
        }
        char label[200];
        fa_op_label(&a->match, i, label, sizeof label);
        char *wi = fa_ranks_format(issued.v, issued.n), *wd = fa_ranks_format(done.v, done.n);
        fa_table_row(&t);
        fa_table_cell(&t, "%s", g->id);
        fa_table_cell(&t, "%s", label);
        fa_table_cell(&t, "%s", wi);
        fa_table_cell(&t, "%s", wd[0] ? wd : "-");
        fa_table_cell(&t, "%s", o->mismatch ? "MISMATCH" : o->unmatched ? "unmatched" : "ok");
        free(wi);
        free(wd);
        fa_ranks_free(&issued);
        fa_ranks_free(&done);
    }
    fputs("collectives:\n", out);
    fa_table_print_fit(&t, out, "  ", opt->width);
    fa_table_free(&t);
    fputc('\n', out);
}

static void print_culprits(const fa_analysis *a, const fa_report_options *opt, FILE *out) {
    if (!a->verdict.nevidence) return;
    fa_table t;
    size_t hidden;
    fa_report_culprit_table(a, opt, &t, &hidden);
    if (!fa_table_fits(&t, "  ", opt->width)) { /* a narrow terminal: group and op share a column */
        fa_table_join_columns(&t, 1);
        free(t.cells[1]);
        t.cells[1] = strdup("where");
    }
    fputs(a->verdict.status == FA_STATUS_INCONCLUSIVE
              ? "suspects (what each did, in every group):\n\n"
              : "culprits (what each did, in every group):\n\n",
          out);
    fa_table_print_fit(&t, out, "  ", opt->width);
    fa_table_free(&t);
    if (hidden) fprintf(out, "  (%zu more rows; -v lists them)\n", hidden);
    fputc('\n', out);
}

/* The explanations the dumps allow, when they cannot pin the root cause down. */
static void print_alternatives(const fa_analysis *a, const fa_report_options *opt, FILE *out) {
    const fa_verdict *v = &a->verdict;
    if (!v->nalternatives) return;
    fa_wrap_print(out, "", "",
                  v->culprits.n ? "the dumps allow more than one explanation (beside the culprits):"
                                : "the dumps allow more than one explanation (none of these ranks "
                                  "is proven at fault):",
                  opt->width);
    fputc('\n', out);
    for (size_t i = 0; i < v->nalternatives; i++) {
        char *who = fa_ranks_format(v->alternatives[i].ranks.v, v->alternatives[i].ranks.n),
             *line = NULL;
        if (asprintf(&line, "%s: %s", who ? who : "?", v->alternatives[i].explanation) >= 0)
            fa_wrap_print(out, "  - ", "    ", line, opt->width);
        free(line);
        free(who);
    }
    bool ran_past = fa_stale_any_issued_only(a->match.rank_stale, a->in.nranks);
    fa_wrap_print(out, "  ", "  ",
                  ran_past ? "what would tell them apart: each rank's stack at dump time (py-spy "
                             "dump, or the recorder's frtrace_stacks), a GPU error on the node of "
                             "a rank whose dump may be final (Xid lines in its kernel log), or a "
                             "later dump of that rank"
                           : "what would tell them apart: each rank's stack at dump time (py-spy "
                             "dump, or the recorder's frtrace_stacks), or a backend that records "
                             "send/recv",
                  opt->width);
    fputc('\n', out);
}

static void print_wait_chain(const fa_analysis *a, const fa_report_options *opt, FILE *out) {
    const fa_verdict *v = &a->verdict;
    if (!v->levels[1].ranks.n && !v->nexplained_p2p)
        return; /* one hop: the culprit table says it all */
    fputs("wait chain (who waits for whom):\n\n", out);
    const char *arrow = "  ";
    for (int level = FA_WAIT_LEVELS - 1; level >= 0; level--) {
        char *line = fa_report_wait_line(a, level);
        if (!line) continue;
        fa_wrap_print(out, arrow, "     ", line, opt->width);
        arrow = "  -> ";
        free(line);
    }
    char note[200];
    if (v->nexplained_p2p) {
        snprintf(note, sizeof note,
                 "(%zu %s on blocked peers: p2p_unmatched explained by the hang;%s)",
                 v->nexplained_p2p, v->nexplained_p2p > 1 ? "sends/recvs wait" : "send/recv waits",
                 opt->verbose ? " listed under warnings" : " -v lists them");
        fa_wrap_print(out, "  ", "   ", note, opt->width);
    }
    fputc('\n', out);
}

/* The verdict line, never wrapped (it is a ticket's title); in colour on a terminal. One line
 * whatever the input's names hold: shown, never obeyed (safe_text.h). */
#define ANSI_OK           "\033[1;32m" /* bold green */
#define ANSI_INCONCLUSIVE "\033[1;33m" /* bold yellow */
#define ANSI_BROKEN       "\033[1;31m" /* bold red: a hang, a crash, a mismatch */
#define ANSI_RESET        "\033[0m"
static void print_title(const fa_analysis *a, const fa_report_options *opt, FILE *out) {
    fa_status status = a->verdict.status;
    const char *colour = status == FA_STATUS_OK             ? ANSI_OK
                         : status == FA_STATUS_INCONCLUSIVE ? ANSI_INCONCLUSIVE
                                                            : ANSI_BROKEN;
    char *title = fa_headline(a);
    fputs(opt->color ? colour : "", out);
    fr_text_fputs(out, title ? title : fa_status_name(status));
    fprintf(out, "%s\n", opt->color ? ANSI_RESET : "");
    free(title);
}

static void print_status(const fa_analysis *a, const fa_report_options *opt, FILE *out) {
    const fa_verdict *v = &a->verdict;
    char *culprits = fa_ranks_format(v->culprits.v, v->culprits.n), versions[200] = "",
         *line = NULL;
    for (size_t i = 0, at = 0; i < a->in.nversions && at < sizeof versions; i++)
        at += (size_t)snprintf(versions + at, sizeof versions - at, "%s%s", i ? "," : "",
                               a->in.versions[i]);
    if (asprintf(&line,
                 "status: %s   culprit ranks: %s   (%zu ranks read from %s, prefix \"%s\", "
                 "version%s %s)",
                 fa_status_name(v->status), culprits && culprits[0] ? culprits : "none",
                 a->in.nranks, a->in.dir, a->in.prefix, a->in.nversions > 1 ? "s" : "",
                 versions) >= 0) {
        fputc('\n', out);
        fa_wrap_print(out, "", "        ", line, opt->width);
        fputc('\n', out);
    }
    free(line);
    free(culprits);
}

int fa_report_text(const fa_analysis *a, const fa_report_options *opt, FILE *out) {
    const fa_verdict *v = &a->verdict;
    print_title(a, opt, out);
    print_status(a, opt, out);
    if (opt->selected_ranks || opt->pg_filters)
        fputs("(showing only findings about the selected ranks/groups; the verdict covers every "
              "rank)\n\n",
              out);
    print_culprits(a, opt, out);
    print_alternatives(a, opt, out);
    print_wait_chain(a, opt, out);
    fa_report_whereabouts_text(a, opt, out);
    size_t number = 0, hidden = 0, files = 0;
    bool header[2] = { false, false };
    for (int order = 0; order < FA_ORDER_COUNT; order++) { /* as in db.json */
        int warnings = order == FA_ORDER_WARNINGS;
        if (warnings) /* slow ranks are what an ok verdict is about: before its warnings */
            fa_perf_print_slow_ranks(a, "text", opt->width, out);
        for (size_t i = 0; i < a->findings.n; i++) {
            const fa_finding *f = &a->findings.v[i];
            if (fa_finding_order(f, i, v->first_culprit_finding, v->nculprit_findings) != order)
                continue;
            if (!f->listed) hidden++;
            if (!fa_report_lists_finding(a, f, opt) || fa_report_file_over_cap(f, opt, &files))
                continue;
            if (!header[warnings]) {
                fputs(warnings ? "warnings:\n\n" : "findings:\n\n", out);
                header[warnings] = true;
            }
            print_finding(a, opt, f, ++number, out);
        }
    }
    if (hidden)
        fprintf(out, "(%zu more findings not listed: over --mismatch-cap per group)\n\n", hidden);
    if (files > FA_REPORT_FILES_SHOWN)
        fprintf(out, "(%zu more rejected files not listed: -v or -o FILE lists them)\n\n",
                files - FA_REPORT_FILES_SHOWN);
    if (opt->verbose) {
        print_groups(a, opt, out);
        print_collectives(a, opt, out);
    }
    return ferror(out) ? -1 : 0;
}
