/* rank_clocks.h — each rank's clock offset over the whole job, from the completions: what the
 * rebuilt chains of launches (release.h) read the ranks' arrivals against.
 *
 * Every member of a collective discovers its end (time_discovered_completed_ns), up to the
 * watchdog's delay, at the same moment: within a group, a member's median residual against each
 * op's median completion says its clock's offset against the group's reference, the median
 * offset of the group's members. A node whose clock is off shows so in its ranks' groups across
 * nodes (data parallel, replicas), but not in those within the node (tensor parallel, a shard),
 * whose members all read alike and whose reference is off with them. So the offsets and the
 * references are settled together: each rank's offset is the median over its groups of its
 * residual plus the group's reference, each reference the median of its members' offsets,
 * repeated until they stand (a rank in two groups moves half way each round;
 * FA_RANK_CLOCK_ROUNDS at most), then taken against the ranks' lower median (most ranks read in
 * step; of two hosts alike, the one that reads earlier). Offsets under FA_CLOCK_MIN_MS are 0
 * (clocks.h: below it, discovery noise alone); the others may miss by about the job's discovery
 * noise (fa_clock_noise).
 *
 * Linear per round in the memberships (group x member) and calls; no rank x rank work.
 */
#ifndef FRTRACE_RANK_CLOCKS_H
#define FRTRACE_RANK_CLOCKS_H

#include <stdint.h>

#include "load/load.h"
#include "match/groups.h"
#include "match/match.h"

#define FA_RANK_CLOCK_ROUNDS 40

/* off[r] (ns, in->nranks of them): what to subtract from input rank r's times to read them on
 * the common clock. 0, or -1 when out of memory (off then all 0). */
int fa_rank_offsets(const fa_input *in, const fa_groups *groups, const fa_match *m, int64_t *off);

#endif
