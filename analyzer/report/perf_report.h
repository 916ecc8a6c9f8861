/* perf_report.h — presenting perf.h's results: the "slow ranks" section of the text and
 * markdown reports, the "stragglers" and "stats" keys of the database, and `frtrace stats`.
 *
 * The stats table honours --pg-filters (a row's group, by name, desc or id) and --selected-ranks
 * (groups that hold one of them). Each returns 0, or -1 when writing failed.
 */
#ifndef FRTRACE_PERF_REPORT_H
#define FRTRACE_PERF_REPORT_H

#include <stdio.h>

#include "analysis.h"
#include "report/report.h"

/* "slow ranks:" (format "text", within `width` columns, 0: no limit) / "## Slow ranks"
 * ("markdown") / "h2. Slow ranks" ("jira"); nothing when there are none. */
void fa_perf_print_slow_ranks(const fa_analysis *a, const char *format, size_t width, FILE *out);
/* The slow ranks' table (rank, lateness, late in, last in, [slower,] groups) for a report to
 * lay out; false (nothing built) when there are none. The caller frees it. */
struct fa_table;
struct jw;
bool fa_perf_slow_ranks_table(const fa_analysis *a, struct fa_table *t);
/* `,"stragglers":[...],"stats":[...]`: two more keys of the database object being written. */
void fa_perf_write_db_keys(const fa_analysis *a, const fa_report_options *opt, struct jw *w);
/* `frtrace stats`: "text", "markdown" or "json" ({"stats": [...], "stragglers": [...]}). */
int fa_perf_print_stats(const fa_analysis *a, const fa_report_options *opt, const char *format,
                        FILE *out);
/* Does the report's --pg-filters / --selected-ranks keep group g? */
bool fa_perf_group_selected(const fa_analysis *a, const fa_report_options *opt, uint32_t g);

#endif
