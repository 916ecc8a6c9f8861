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

/* The text report's width when it does not go to a terminal and --width is not given. */
enum { FA_DEFAULT_WIDTH = 100 };

typedef struct fa_report_options {
    bool verbose;
    bool stack_traces;
    bool all_calls;       /* every call in the database's nccl_calls (and every collective) */
    bool all_collectives; /* every collective in the database's collectives, not only those that
                           * did not pass */
    const int64_t *selected_ranks; /* -j columns and report findings to show (NULL = all) */
    size_t nselected_ranks;
    const char *const
        *pg_filters; /* -j entries and report findings: group names/descs (NULL = all) */
    size_t npg_filters;
    int jobs; /* threads formatting the database (<= 0: one per core); the bytes do not depend on it
               */
    size_t width; /* the text report's lines wrap at this many columns (FA_DEFAULT_WIDTH off a
                   * terminal); 0: no limit */
    bool color;   /* the text report's verdict line in colour (a terminal, NO_COLOR unset) */
} fa_report_options;

int fa_report_text(const fa_analysis *a, const fa_report_options *opt, FILE *out);
int fa_report_markdown(const fa_analysis *a, const fa_report_options *opt, FILE *out);
/* The same ticket in Jira/Confluence wiki markup (report_ticket.c). */
int fa_report_jira(const fa_analysis *a, const fa_report_options *opt, FILE *out);
int fa_report_db(const fa_analysis *a, const fa_report_options *opt, FILE *out);
/* -j: one column per rank, one row per entry; needs only the loaded input and groups. */
int fa_report_entries(const fa_input *in, const fa_groups *groups, const fa_report_options *opt,
                      FILE *out);

/* Shared by the text and markdown reports: the per-rank evidence of a finding's op, rows of
 * identical content merged ("0-7,9"). Columns: ranks, state, operation, input sizes, output
 * sizes, dtypes. */
struct fa_table;
void fa_report_evidence_table(const fa_analysis *a, long op, struct fa_table *t);
/* Shared by the text and markdown reports: each culprit's evidence across every group, one
 * row per (culprit, op): culprit, group, operation, what the culprit did, who waits. Without
 * -v, at most a few rows per culprit and a few culprits; *hidden counts the rows left out. */
void fa_report_culprit_table(const fa_analysis *a, const fa_report_options *opt, struct fa_table *t,
                             size_t *hidden);
/* One line of the wait chain for level 1 or 2 ("ranks 0-7 wait for 8-15 in ..."), or the
 * culprits' line for level 0; NULL when the level is empty. malloc'd. */
char *fa_report_wait_line(const fa_analysis *a, int level);
/* Whether a finding is shown in the findings/warnings lists (hang-explained p2p only with -v;
 * --selected-ranks / --pg-filters keep what is about those ranks and groups). */
bool fa_report_lists_finding(const fa_analysis *a, const fa_finding *f,
                             const fa_report_options *opt);
/* Without -v the text and markdown reports list the first FA_REPORT_FILES_SHOWN rejected files
 * and count the rest, so that a directory of 200 000 junk files is a dozen lines (the database
 * and -v list every one). True when f is one over that cap; *shown counts those listed. */
enum { FA_REPORT_FILES_SHOWN = 10 };
bool fa_report_file_over_cap(const fa_finding *f, const fa_report_options *opt, size_t *shown);
/* --selected-ranks / --pg-filters: is something about `group` (or -1) and these ranks shown? */
bool fa_report_selects(const fa_analysis *a, const fa_report_options *opt, long group,
                       const fa_ranks *ranks, const fa_ranks *others);
#endif
