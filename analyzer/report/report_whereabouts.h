/* report_whereabouts.h — where the culprits are now and where every rank was at dump time, in
 * the text and markdown reports and the database (see report_whereabouts.c). */
#ifndef FRTRACE_REPORT_WHEREABOUTS_H
#define FRTRACE_REPORT_WHEREABOUTS_H

#include <stdio.h>

#include "report/markup.h"
#include "report/report.h"

/* The text report's sections (nothing when no dump places its rank and no --hosts). */
void fa_report_whereabouts_text(const fa_analysis *a, const fa_report_options *opt, FILE *out);
/* The same in the ticket's markup: markdown or Jira (markup.h). */
void fa_report_whereabouts_ticket(const fa_analysis *a, const fa_report_options *opt, fa_markup m,
                                  FILE *out);
/* The database's "whereabouts":{...} member (always written), into its writer; 0, or -1 on
 * an error. */
struct jw;
int fa_report_whereabouts_db(const fa_analysis *a, const fa_report_options *opt, struct jw *w);

#endif
