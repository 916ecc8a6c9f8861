/* headline.h — the one line that heads every output: the text report's first line, the ticket's
 * title, the database's verdict.summary, the timeline's caption and its trace's name.
 *
 * It is the verdict's own summary, except that an ok verdict with slow ranks says who ("ok: no
 * hang; rank 3 is slow: last to arrive in 64 of 64 collectives, 40 ms late (median)"). The
 * verdict stage says what the dumps prove about a hang (verdict/verdict_title.c words it) and
 * perf/ measures speed; putting the two into one sentence is presentation, so it is done here, the
 * same way for every output.
 */
#ifndef FRTRACE_HEADLINE_H
#define FRTRACE_HEADLINE_H

#include "analysis.h"

/* The headline, malloc'd; NULL when the verdict has no summary and no slow rank to name (each
 * output then shows its own fallback: the status's name, or ""). Dies when out of memory
 * (util/xmalloc.h): a few hundred bytes. */
char *fa_headline(const fa_analysis *a);

#endif
