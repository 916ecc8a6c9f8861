/* verdict_steps.h — the steps fa_verdict_decide (verdict.c) runs, each part in its own file:
 * the wait graph (verdict_waits.c, with verdict_heads.c for where each rank's stream stands and
 * verdict_wrong_peer.c for send/recv posted to the wrong peer), the judging of its sink
 * components (verdict_sinks.c, with verdict_order.c for the evidence of order), and the status
 * with its summary line (verdict_summary.c). Internal to verdict*.c.
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

/* verdict_wrong_peer.c: send/recv posted to the wrong peer. Per op, whether it is a lone end that
 * gets no edge to its absent side (NULL when out of memory); per node, the record id where its
 * first wrong post's batch begins (INT64_MAX for none; NULL when out of memory). */
bool *fa_vw_wrong_peer_ops(const decider *d);
int64_t *fa_vw_wrong_end_records(const decider *d, const bool *drop);
/* Whether every member pending in op (n states in d->members/d->states) is held there by its own
 * wrong end (wrong_from): nobody waits on op's absent members. */
bool fa_vw_held_by_wrong_end(const decider *d, size_t op, uint32_t n, const int64_t *wrong_from);
/* The index in its dump of the first entry of the batch call c's first entry belongs to; the
 * record id of that entry for member's call in send/recv op `op` (INT64_MAX without one). */
uint32_t fa_vw_batch_start(const decider *d, const fa_call *c);
int64_t fa_vw_batch_first_record(const decider *d, size_t op, uint32_t member);

/* verdict_sinks.c: the culprits of every sink component, one finding per cause. */
void fa_vs_judge_sinks(decider *d);
void fa_vs_note_idle_missing_dumps(decider *d);
/* verdict_two_readings.c: a sink of one idle rank (mine, nranks rank nodes) whose dump may have
 * dropped its end of the send/recv one rank alone waits in with it: "it never posted, or the
 * waiter's GPU stalled after the transfer", an ambiguity of the two. */
void fa_vs_two_readings(decider *d, const uint32_t *mine, size_t nranks);

/* verdict_setup.c: where the sinks found nothing, ranks still inside the making of a
 * communicator that its other members made and wait on (recorder dumps' comms and stacks): a
 * missing_ranks finding naming them. 0, or -1 when out of memory. */
int fa_vsetup_judge_unfinished(decider *d);

/* verdict_summary.c: the status and its summary, after the culprits, the explanation and the
 * alternatives. `before` is the first finding the sinks added; `mismatch` and `stuck` say whether
 * a mismatch finding, a stuck collective among the sinks' findings, was made. */
void fa_vs_summarize(decider *d, size_t before, bool mismatch, bool stuck);

#endif
