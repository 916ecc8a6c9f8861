/* verdict_either.h — a dump older only by what it shows issued, read both ways
 * (verdict_either.c), and what the readings agree on (verdict_agreed.c). Internal to verdict*.c.
 */
#ifndef FRTRACE_VERDICT_EITHER_H
#define FRTRACE_VERDICT_EITHER_H

#include "verdict/verdict_graph.h"

/* What the readings decided, for the last decision (fa_verdict_decide): the first reading's
 * culprits that not every reading names (withdrawn), and the ranks offered instead ("one of
 * them", or "it may have stopped too" where no culprit was withdrawn). */
typedef struct fa_either_plan {
    fa_ranks withdrawn;
    fa_ranks offered;
    fa_ranks ran_past; /* the ranks whose dumps were read both ways */
} fa_either_plan;

/* One decision of the verdict in the reading m's rank_stale gives, with a plan or NULL
 * (verdict.c; fa_verdict_decide, in verdict_either.c, calls it once per reading). */
int fa_verdict_decide_reading(const fa_input *in, const fa_groups *groups, const fa_match *m,
                              fa_findings *findings, fa_verdict *v, const fa_either_plan *plan,
                              fr_error *err);

/* verdict_agreed.c. Carries the plan out on the culprit findings [before, *after_sinks) of the last
 * decision (the withdrawn ranks leave them; a finding left naming nobody goes) and notes the
 * offered ranks (an ambiguity, or maybe_also). 0, or -1 when out of memory. */
int fa_ve_apply_plan(decider *d, size_t before, size_t *after_sinks);

void fa_ve_plan_free(fa_either_plan *plan);

#endif
