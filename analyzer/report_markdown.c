/* report_markdown.c — the report as GitHub-flavoured markdown, ready to paste into an incident
 * ticket: the verdict summary is the title, each finding a section with its evidence table. */
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "stacks.h"
#include "table.h"

static void heading(const fa_analysis *a, const fa_finding *f, FILE *out) {
    char group[300] = "", label[200] = "";
    if (f->group >= 0) fa_group_label(&a->groups.v[f->group], group, sizeof group);
    if (f->op >= 0) fa_op_label(&a->match, (size_t)f->op, label, sizeof label);
    fprintf(out, "### `%s`%s%s%s%s\n\n", fa_finding_kind_name(f->kind), group[0] ? " in " : "", group, label[0] ? ", " : "", label);
}

int fa_report_markdown(const fa_analysis *a, const fa_report_options *opt, FILE *out) {
    const fa_verdict *v = &a->verdict;
    char *culprits = fa_ranks_format(v->culprits.v, v->culprits.n);
    fprintf(out, "# %s\n\n", v->summary ? v->summary : fa_status_name(v->status));
    fprintf(out, "| status | culprit ranks | ranks read | directory | prefix |\n| --- | --- | --- | --- | --- |\n");
    fprintf(out, "| **%s** | %s | %zu | `%s` | `%s` |\n\n", fa_status_name(v->status), culprits && *culprits ? culprits : "none",
            a->in.nranks, a->in.dir, a->in.prefix);
    free(culprits);
    size_t hidden = 0;
    for (int warnings = 0; warnings < 2; warnings++) {
        bool header = false;
        for (size_t i = 0; i < a->findings.n; i++) {
            const fa_finding *f = &a->findings.v[i];
            if (fa_finding_is_warning(f->kind) != (warnings == 1)) continue;
            if (!f->listed) {
                hidden++;
                continue;
            }
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
    if (hidden) fprintf(out, "_%zu more findings not listed (over `--mismatch-cap` per group)._\n\n", hidden);
    return ferror(out) ? -1 : 0;
}
