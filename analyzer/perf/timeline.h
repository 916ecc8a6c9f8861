/* timeline.h — the job as a timeline: Chrome Trace Event JSON and a self-contained SVG.
 *
 * Trace (Perfetto, chrome://tracing): a process per rank (its name says culprit or slow), a
 * thread per group, a complete slice ("X") per entry from its arrival (time_created_ns) to its
 * completion where known (time_discovered_completed_ns, else arrival + duration_ms); a pending
 * entry runs to the dump's time (the latest instant the dumps show) and is marked pending; its
 * arguments are the sequence ids, sizes, dtypes and state. Flow arrows join the calls of one
 * collective across ranks; a global instant marks the hang point (the verdict's operation,
 * where its first rank arrived) and each culprit gets an instant on its own track.
 *
 * SVG: ranks down, time across, a bar per entry coloured by operation; bars closer than a pixel
 * merge, so the file stays small at any entry count; pending bars are red, culprit rows tinted
 * red, slow rows orange with their median lateness; a dashed line marks the hang point.
 *
 * Both draw the ranks `sel` lists (fa_timeline_pick) and the groups the report options keep,
 * within [from, to] ms of the first arrival.
 */
#ifndef FRTRACE_TIMELINE_H
#define FRTRACE_TIMELINE_H

#include <stdbool.h>
#include <stdio.h>

#include "analysis.h"
#include "report.h"

typedef struct fa_timeline_sel {
    size_t *ranks; /* indices into fa_input.ranks, ascending */
    size_t n;
    size_t dropped;        /* loaded ranks left out by the cap */
    bool around_culprits;  /* the cap kept the culprits and their groups' ranks */
    bool has_from, has_to; /* the window, in ms after the first arrival of the drawn ranks */
    double from_ms, to_ms;
    bool windowed; /* the window was chosen around the hang (fa_timeline_window_around_hang) */
} fa_timeline_sel;

/* Which ranks to draw: --selected-ranks, else all when at most max_ranks (<= 0: all), else the
 * culprits, the slow ranks, the ranks that wait for the culprits and the other members of the
 * groups they block, up to max_ranks (without culprits: the slow ranks, then the lowest ranks). 0
 * or -1 (out of memory). */
int fa_timeline_pick(const fa_analysis *a, const fa_report_options *opt, long max_ranks,
                     fa_timeline_sel *sel);
void fa_timeline_sel_free(fa_timeline_sel *sel);
/* When no window was asked for and the hang is a small part of the whole recording: a window
 * from the last operations before the hang on the drawn ranks to what they queued after it
 * (with margins), so that the hang is not a pixel wide. True when it set one. */
bool fa_timeline_window_around_hang(const fa_analysis *a, fa_timeline_sel *sel);

int fa_timeline_write_trace(const fa_analysis *a, const fa_report_options *opt,
                            const fa_timeline_sel *sel, FILE *out);
int fa_timeline_write_svg(const fa_analysis *a, const fa_report_options *opt,
                          const fa_timeline_sel *sel, FILE *out);

#endif
