/* verdict_order.h — the evidence of order (verdict_order.c): which of two ops a rank would issue
 * first, from its own history and its peers', and whether it went past an op it never issued.
 * Internal to verdict*.c.
 */
#ifndef FRTRACE_VERDICT_ORDER_H
#define FRTRACE_VERDICT_ORDER_H

#include "verdict/verdict_graph.h"

/* Whether the rank at `node`, which others wait on in `missing_op` that it never issued, is
 * blocked before reaching that op: its history, or its peers' (the component's ranks
 * mine[0..nmine) among them), puts the op it waits in first. A victim, not the root. */
bool fa_vo_blocked_before(const decider *d, size_t node, long missing_op, const uint32_t *mine,
                          size_t nmine);

/* What fa_vo_blocked_before reads: +1 blocked before `missing_op`, -1 went past it (its history
 * or its peers' put the missing op first), 0 nothing tells. */
int fa_vo_order(const decider *d, size_t node, long missing_op, const uint32_t *mine, size_t nmine);

/* The program's order of two collectives as the ranks that issued them ran them (their own
 * histories, in those groups' families): +1 `first` comes first, -1 `second` does, 0 no witness
 * or no majority. */
int fa_vo_program_order(const decider *d, const fa_op *first, const fa_op *second);

/* Whether what the dumps show proves that the rank at `node` went past `missing_op`, which it
 * never issued (it skipped it): stricter than fa_vo_blocked_before's reading, as it rules on
 * components that wait on ranks outside too. */
bool fa_vo_went_past(const decider *d, size_t node, long missing_op);

/* Whether groups a and b are of one family (one description, or without one a group shifted:
 * the groups of an SPMD program's family run the same ops in the same order). */
bool fa_vo_one_family(const fa_group *a, const fa_group *b);

/* The families of a job's groups (fa_families, verdict_graph.h), found in one pass: a group's
 * family key is its description and size, or undescribed its size and member offsets; so that a
 * question over a group's family reads its family's counts instead of testing every group. */

/* Fills *out: 0, or -1 when out of memory (*out then empty). */
int fa_vo_families(const fa_groups *groups, fa_families *out);
void fa_vo_families_free(fa_families *f);

#endif
