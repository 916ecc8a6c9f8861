/* report.h — presenting an analysis: text, markdown, the JSON database, the -j entry table.
 *
 * Reports only present what match and verdict decided; they decide nothing. Each writes to a
 * FILE and returns 0, or -1 when writing failed.
 */
#ifndef FRTRACE_REPORT_H
#define FRTRACE_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "analysis.h"

typedef struct fa_report_options {
    bool verbose;
    bool stack_traces;
    bool all_calls;
    const int64_t *selected_ranks; /* -j: columns to show (NULL = all) */
    size_t nselected_ranks;
    const char *const *pg_filters; /* -j: group names or descs to show (NULL = all) */
    size_t npg_filters;
} fa_report_options;

int fa_report_text(const fa_analysis *a, const fa_report_options *opt, FILE *out);
int fa_report_markdown(const fa_analysis *a, const fa_report_options *opt, FILE *out);
int fa_report_db(const fa_analysis *a, const fa_report_options *opt, FILE *out);
/* -j: one column per rank, one row per entry; needs only the loaded input and groups. */
int fa_report_entries(const fa_input *in, const fa_groups *groups, const fa_report_options *opt, FILE *out);

/* Shared by the text and markdown reports: the per-rank evidence of a finding's op, rows of
 * identical content merged ("0-7,9"). Columns: ranks, state, operation, input sizes, output
 * sizes, dtypes. */
struct fa_table;
void fa_report_evidence_table(const fa_analysis *a, long op, struct fa_table *t);
/* Shapes as "[[4, 4]]". */
void fa_report_shapes(const fr_shapes *s, char *buf, size_t len);

#endif
