/* report_markdown.c — the report as GitHub-flavoured markdown, ready to paste into an incident
 * ticket: the verdict summary is the title, then the culprit table and the wait chain (the same
 * rows and lines as the text report), then each finding as a section with its evidence table.
 * Every text that may hold the input's (the summary, headings, details, cells, paths, frames) is
 * a code span or plain words (safe_text.h's fr_md_code/fr_md_text), and stack traces a fenced
 * block whose fence is longer than any backtick run inside: nothing in a dump can form HTML, a
 * link, a heading, a list, a fence or an autolink (#123, @name) in the ticket. */
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "perf_report.h"
#include "safe_text.h"
#include "stacks.h"
#include "table.h"

static void heading(const fa_analysis *a, const fa_finding *f, FILE *out) {
    char group[300] = "", label[200] = "";
    if (f->group >= 0) fa_group_label(&a->groups.v[f->group], group, sizeof group);
    if (f->op >= 0) fa_op_label(&a->match, (size_t)f->op, label, sizeof label);
    fprintf(out, "### `%s`", fa_finding_kind_name(f->kind));
    if (group[0]) fputs(" in ", out), fr_md_code(out, group, false);
    if (label[0]) fputs(", ", out), fr_md_code(out, label, false);
    fputs("\n\n", out);
}

/* A fenced block of text that may hold the input's: each line in its terminal form, the fence
 * longer than any backtick run inside (at least three). */
static void code_block(FILE *out, const char *text) {
    size_t fence = 3, run = 0;
    for (const char *p = text; *p; p++) {
        run = *p == '`' ? run + 1 : 0;
        if (run >= fence) fence = run + 1;
    }
    for (size_t i = 0; i < fence; i++) fputc('`', out);
    fputc('\n', out);
    fputs(text, out);
    for (size_t i = 0; i < fence; i++) fputc('`', out);
    fputc('\n', out);
}

/* The merged stack traces of op, as a fenced block inside a collapsed <details>. */
static void stack_traces(const fa_analysis *a, long op, FILE *out) {
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    if (!mem) return;
    fa_stacks_print(a, op, mem, ""); /* frames already in their terminal form (stacks.h) */
    if (fclose(mem) != 0 || !text) {
        free(text);
        return;
    }
    fputs("<details><summary>stack traces</summary>\n\n", out);
    code_block(out, text);
    fputs("</details>\n\n", out);
    free(text);
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
        if (line) {
            fputs("1. ", out);
            fr_md_code(out, line, false);
            fputc('\n', out);
        }
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
    fputs("# ", out);
    fr_md_code(out, v->summary ? v->summary : fa_status_name(v->status), false);
    fputs("\n\n", out);
    fprintf(out, "| status | culprit ranks | ranks read | directory | prefix |\n| --- | --- | --- "
                 "| --- | --- |\n");
    fprintf(out, "| **%s** | %s | %zu | ", fa_status_name(v->status),
            culprits && *culprits ? culprits : "none", a->in.nranks);
    fr_md_code(out, a->in.dir, true);
    fputs(" | ", out);
    fr_md_code(out, a->in.prefix, true);
    fputs(" |\n\n", out);
    free(culprits);
    if (opt->selected_ranks || opt->pg_filters)
        fputs("_Showing only findings about the selected ranks/groups; the verdict covers every "
              "rank._\n\n",
              out);
    print_culprits(a, opt, out);
    print_alternatives(a, out);
    print_wait_chain(a, opt, out);
    size_t hidden = 0, files = 0;
    for (int warnings = 0; warnings < 2; warnings++) {
        if (warnings) fa_perf_print_slow_ranks(a, true, 0, out); /* before the warnings */
        bool header = false;
        for (size_t i = 0; i < a->findings.n; i++) {
            const fa_finding *f = &a->findings.v[i];
            if (fa_finding_is_warning(f->kind) != (warnings == 1)) continue;
            if (!f->listed) hidden++;
            if (!fa_report_lists_finding(a, f, opt) || fa_report_file_over_cap(f, opt, &files))
                continue;
            if (!header) {
                fputs(warnings ? "## Warnings\n\n" : "## Findings\n\n", out);
                header = true;
            }
            heading(a, f, out);
            if (f->detail && f->detail[0]) {
                fr_md_code(out, f->detail, false);
                fputs("\n\n", out);
            }
            if (f->op >= 0) {
                fa_table t;
                fa_report_evidence_table(a, f->op, &t);
                fa_table_print_markdown(&t, out);
                fa_table_free(&t);
                fputc('\n', out);
                if (opt->stack_traces) stack_traces(a, f->op, out);
            }
        }
    }
    if (hidden)
        fprintf(out, "_%zu more findings not listed (over `--mismatch-cap` per group)._\n\n",
                hidden);
    if (files > FA_REPORT_FILES_SHOWN)
        fprintf(out, "_%zu more rejected files not listed (`-v` or `-o FILE` lists them)._\n\n",
                files - FA_REPORT_FILES_SHOWN);
    return ferror(out) ? -1 : 0;
}
