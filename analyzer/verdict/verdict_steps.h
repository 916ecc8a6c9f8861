/* verdict_steps.h — the steps fa_verdict_decide (verdict.c) runs, each part in its own file:
 * the wait graph (verdict_waits.c), the judging of its sink components (verdict_sinks.c), and
 * the status with its summary line (verdict_summary.c). Internal to verdict*.c.
 */
#ifndef FRTRACE_VERDICT_STEPS_H
#define FRTRACE_VERDICT_STEPS_H

#include "verdict/verdict_graph.h"

/* verdict_waits.c. Each returns 0, or -1 when out of memory. */
int fa_vw_collect_ranks(decider *d);     /* a node per rank, its facts */
int fa_vw_read_self_reports(decider *d); /* what recorder dumps say of their rank */
int fa_vw_build_graph(decider *d);       /* the proven waits, op nodes for pending ops */
int fa_vw_components(decider *d);        /* strongly connected components: d->comp */
/* Ranks of unknown state that the doubts excused may have joined the ops the others wait for. */
int fa_vw_join_excused_unknowns(decider *d);
/* Whether collective `op` is one that a single member issued while every other member of a
 * group of three or more is elsewhere. */
bool fa_vw_lonely_op(const decider *d, long op);
/* The k-th neighbour of v over its proven edges; false past the last. */
bool fa_vw_neighbor(const graph *g, size_t v, size_t k, uint32_t *w);

/* verdict_sinks.c: the culprits of every sink component, one finding per cause. */
void fa_vs_judge_sinks(decider *d);
void fa_vs_note_idle_missing_dumps(decider *d);

/* verdict_summary.c: the status and its summary, after the culprits, the explanation and the
 * alternatives. `before` is the first finding the sinks added; `mismatch` and `stuck` say whether
 * a mismatch finding, a stuck collective among the sinks' findings, was made. */
void fa_vs_summarize(decider *d, size_t before, bool mismatch, bool stuck);

#endif
