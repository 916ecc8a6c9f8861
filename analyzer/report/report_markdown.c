/* report_markdown.c — the report as GitHub-flavoured markdown, ready to paste into an incident
 * ticket: the verdict summary is the title, then the culprit table and the wait chain (the same
 * rows and lines as the text report), then each finding as a section with its evidence table. */
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "perf_report.h"
#include "stacks.h"
#include "table.h"

static void heading(const fa_analysis *a, const fa_finding *f, FILE *out) {
    char group[300] = "", label[200] = "";
    if (f->group >= 0) fa_group_label(&a->groups.v[f->group], group, sizeof group);
    if (f->op >= 0) fa_op_label(&a->match, (size_t)f->op, label, sizeof label);
    fprintf(out, "### `%s`%s%s%s%s\n\n", fa_finding_kind_name(f->kind), group[0] ? " in " : "",
            group, label[0] ? ", " : "", label);
}

static void print_culprits(const fa_analysis *a, const fa_report_options *opt, FILE *out) {
    if (!a->verdict.nevidence) return;
    fa_table t;
    size_t hidden;
    fa_report_culprit_table(a, opt, &t, &hidden);
    fputs(a->verdict.status == FA_STATUS_INCONCLUSIVE ? "## Suspects\n\n" : "## Culprits\n\n", out);
    fa_table_print_markdown(&t, out);
    fa_table_free(&t);
    if (hidden) fprintf(out, "\n_%zu more rows (`-v` lists them)._\n", hidden);
    fputc('\n', out);
}

static void print_alternatives(const fa_analysis *a, FILE *out) {
    const fa_verdict *v = &a->verdict;
    if (!v->nalternatives) return;
    fputs("## Explanations the dumps allow\n\n", out);
    for (size_t i = 0; i < v->nalternatives; i++) {
        char *who = fa_ranks_format(v->alternatives[i].ranks.v, v->alternatives[i].ranks.n);
        fprintf(out, "- ranks %s: %s\n", who ? who : "?", v->alternatives[i].explanation);
        free(who);
    }
    fputs("\n_None of these ranks is proven at fault; each rank's stack at dump time, or a backend "
          "that records send/recv, would tell them apart._\n\n",
          out);
}

static void print_wait_chain(const fa_analysis *a, const fa_report_options *opt, FILE *out) {
    const fa_verdict *v = &a->verdict;
    if (!v->levels[1].ranks.n && !v->nexplained_p2p)
        return; /* one hop: the culprit table says it all */
    fputs("## Wait chain\n\n", out);
    for (int level = FA_WAIT_LEVELS - 1; level >= 0; level--) {
        char *line = fa_report_wait_line(a, level);
        if (line) fprintf(out, "1. %s\n", line);
        free(line);
    }
    if (v->nexplained_p2p)
        fprintf(out, "\n_%zu %s on blocked peers (`p2p_unmatched` explained by the hang%s)._\n",
                v->nexplained_p2p, v->nexplained_p2p > 1 ? "sends/recvs wait" : "send/recv waits",
                opt->verbose ? ", listed under Warnings" : "; `-v` lists them");
    fputc('\n', out);
}

int fa_report_markdown(const fa_analysis *a, const fa_report_options *opt, FILE *out) {
    const fa_verdict *v = &a->verdict;
    char *culprits = fa_ranks_format(v->culprits.v, v->culprits.n);
    fprintf(out, "# %s\n\n", v->summary ? v->summary : fa_status_name(v->status));
    fprintf(out, "| status | culprit ranks | ranks read | directory | prefix |\n| --- | --- | --- "
                 "| --- | --- |\n");
    fprintf(out, "| **%s** | %s | %zu | `%s` | `%s` |\n\n", fa_status_name(v->status),
            culprits && *culprits ? culprits : "none", a->in.nranks, a->in.dir, a->in.prefix);
    free(culprits);
    if (opt->selected_ranks || opt->pg_filters)
        fputs("_Showing only findings about the selected ranks/groups; the verdict covers every "
              "rank._\n\n",
              out);
    print_culprits(a, opt, out);
    print_alternatives(a, out);
    print_wait_chain(a, opt, out);
    size_t hidden = 0;
    for (int warnings = 0; warnings < 2; warnings++) {
        bool header = false;
        for (size_t i = 0; i < a->findings.n; i++) {
            const fa_finding *f = &a->findings.v[i];
            if (fa_finding_is_warning(f->kind) != (warnings == 1)) continue;
            if (!f->listed) hidden++;
            if (!fa_report_lists_finding(a, f, opt)) continue;
            if (!header) {
                fputs(warnings ? "## Warnings\n\n" : "## Findings\n\n", out);
                header = true;
            }
            heading(a, f, out);
            fprintf(out, "%s\n\n", f->detail ? f->detail : "");
            if (f->op >= 0) {
                fa_table t;
                fa_report_evidence_table(a, f->op, &t);
                fa_table_print_markdown(&t, out);
                fa_table_free(&t);
                fputc('\n', out);
                if (opt->stack_traces) {
                    fputs("<details><summary>stack traces</summary>\n\n```\n", out);
                    fa_stacks_print(a, f->op, out, "");
                    fputs("```\n</details>\n\n", out);
                }
            }
        }
    }
    if (hidden)
        fprintf(out, "_%zu more findings not listed (over `--mismatch-cap` per group)._\n\n",
                hidden);
    fa_perf_print_slow_ranks(a, true, 0, out);
    return ferror(out) ? -1 : 0;
}
