/* timeline_view.h — what the timeline's two pictures share (private to timeline.c, which
 * computes it, timeline_trace.c and timeline_svg.c, which draw it): the time base and window,
 * each drawn entry's span, the hang point and who is culprit or slow.
 */
#ifndef FRTRACE_TIMELINE_VIEW_H
#define FRTRACE_TIMELINE_VIEW_H

#include <stdbool.h>
#include <stdint.h>

#include "report/timeline.h"

/* What both pictures need: the time base, each drawn entry's span, the marks. */
typedef struct span {
    int64_t start, end; /* ns */
    bool pending, end_known;
} span;

typedef struct view {
    const fa_analysis *a;
    const fa_report_options *opt;
    const fa_timeline_sel *sel;
    int64_t t0, t_end; /* first arrival, the dump's time (the latest instant seen) */
    int64_t lo, hi;    /* the window drawn */
    long hang_op;      /* the verdict's operation, or -1 */
    int64_t hang_ns;   /* where its first rank arrived */
    bool *input_shown; /* per input rank */
} view;

/* The view of the ranks `sel` draws, within its window: 0, or -1 when out of memory. Free
 * input_shown after. */
int tl_view_init(view *v, const fa_analysis *a, const fa_report_options *opt,
                 const fa_timeline_sel *sel);
/* Entry i of dump d: from its arrival to its completion where known; a pending one to the
 * dump's time. */
span tl_entry_span(const view *v, const fa_dump *d, uint32_t i);
/* The group index of entry i of input rank r (-1 none), cached per pg slot in pg_group
 * (-2: not looked up yet). */
long tl_entry_group(const view *v, size_t r, const fa_dump *d, uint32_t i, long *pg_group);
void tl_hang_label(const fa_analysis *a, long op, char *buf, size_t len);
const fa_straggler *tl_straggler_of(const fa_analysis *a, int64_t rank); /* or NULL */
bool tl_is_culprit(const fa_analysis *a, int64_t rank);
double tl_us(const view *v, int64_t ns);  /* microseconds after the first arrival */
bool tl_in_window(const view *v, span s); /* some of s lies within [lo, hi] */

#endif
