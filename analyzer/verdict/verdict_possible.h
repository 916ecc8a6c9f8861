/* verdict_possible.h — the waits the dumps cannot rule out, and the root causes they leave open
 * (verdict_possible.c). Internal to verdict*.c.
 */
#ifndef FRTRACE_VERDICT_POSSIBLE_H
#define FRTRACE_VERDICT_POSSIBLE_H

#include "verdict/verdict_graph.h"

/* Marks what is unknown of each rank (a dump older than its peers', an op that may have failed)
 * and adds the possible edges to d->g (pedge_at, pedges). 0, or -1 when out of memory. */
int fa_vg_add_possible_waits(decider *d);

/* Weighs every rank that waits on nobody the dumps show against its possible waits: excused
 * (it may be blocked on ranks that explain it), a root as before, or an option of an ambiguity
 * (decider.ambiguities). Runs after the components. 0, or -1 when out of memory. */
int fa_vg_weigh_doubts(decider *d);

/* The graph's edges reversed, CSR (at_out: n + 2 offsets, rev_out: the sources), the possible
 * ones too when asked; 0, or -1 when out of memory. The caller frees both. */
int fa_vg_reverse_edges(const graph *g, bool with_possible, size_t **at_out, uint32_t **rev_out);

/* Marks in wf every node from which a path over those edges leads to a node marked already:
 * breadth first from the marks, linear; queue holds d->g.nnodes entries. */
void fa_vg_mark_reaching(const decider *d, const size_t *rev_at, const uint32_t *rev, uint8_t *wf,
                         uint32_t *queue);

/* Offers beside the culprits the ranks without a readable dump inside a group rebuilt from
 * the entries, where others wait, that no group of its family holds (into maybe_also). */
void fa_vg_offer_holes(decider *d);

/* The verdict's alternatives from the certain culprits and the ambiguities: every combination of
 * one option per ambiguity (at most FA_MAX_ALTERNATIVES, then one entry per ambiguity), each
 * with the culprits and its explanation. 0, or -1 when out of memory. */
int fa_vg_alternatives(decider *d);

void fa_vg_free_ambiguities(decider *d);

/* After the doubts are weighed: two hidden roots (one without a readable dump, one with an older
 * or cut dump) that share a group and no root the dumps show become one ambiguity, "one of them"
 * (verdict_hidden.c). is_root: weigh_doubts' marks. 0, or -1 when out of memory. */
int fa_vg_hidden_pair(decider *d, uint8_t *is_root);

/* Whether the rank with an older or cut dump at node `stale` may hold up the rank without a dump
 * at node `lost`: it is waited for on its own, not only beside it, or they share an op someone
 * waits in that does not come, in the program's order, after one `lost` is waited for in
 * (tests/sim's E16). Where it cannot, it is presumed gone on, and `lost` alone explains the
 * waits on both. */
bool fa_vg_may_hold(const decider *d, uint32_t lost, uint32_t stale);

/* One flag per possible edge u -> x of d->g (pedges): x cannot go on before u does, so u waiting
 * there waits on itself and is no victim (verdict_selfheld.c). NULL when out of memory. */
uint8_t *fa_vg_self_held(const decider *d);

/* Whether input rank ri issued op, or in some group of op's family (one description; undescribed
 * groups whose members the dumps list, shifted) the collective of op's number or a later one
 * (a dump cut short counts as far as a peer completed with it): the ranks of an SPMD program run
 * a family's collectives in one order, so it went past what a member that never issued op has
 * to do before it. */
bool fa_vg_passed_op(const decider *d, size_t ri, size_t op);

#endif
