/* release.h — when each rank's CPU was last released by a completion it was blocked on: what
 * explains a late arrival without blaming the rank.
 *
 * NCCL lets a rank's CPU run ahead of its device by several launches; it blocks at a sync point
 * (the stream drained) or at its bound of unfinished launches, and goes on when one of its
 * earlier launches completes. A rank that waited there for a slow peer in group A arrives late at
 * its next operations in group B: the delay is the slow peer's, not its own. Which completion
 * released it the dumps do not say, and the recorded completions are the watchdog's discovery of
 * them, up to its polling period (100 ms) late. So completions are rebuilt from the arrivals
 * alone, as the device runs them: a launch starts on a rank once it was issued and the rank's
 * previous launch completed, and completes once every member started it (arrivals on clocks
 * corrected per rank where a rank's completions read 100 ms or more off its peers'; never after
 * a member discovered it; once one member's dump shows it completed, also where another's was
 * taken before that member noticed the end). Along a rank's launches this is the wait-for chain: a
 * completion late because of a slow member carries that lateness on, and nothing else does.
 *
 * For call c of rank r, `release` is the rebuilt completion of the latest of r's earlier launches
 * (at most FA_RELEASE_LOOKBACK back) that (1) completed no later than r's arrival at c, (2) r
 * waited in (it completed the floor or more after r arrived at it; or, where calls return at once
 * (NCCL), any time after r's own start there, a peer having started later, where r's next entry
 * came within the floor after that end: held 4 ms at a sync point, then 4 ms on its own, a rank is
 * 8 ms late to its next group, only 4 of them its own, seeds 2178, 4346, 10373, 10826; a wait
 * within the jitter followed by a call a slot later is no evidence that it was held, as of a slow
 * node's ranks waiting for each other; the last member to start, whose arrival is the end, waited
 * for nobody), and (3) that held r: r issued nothing after it until it completed (a sync point), or
 * r's first call after it came within the floor of it and r had paused before that call by the
 * floor longer than the other members of its op, or than its own usual step (the median time
 * between its arrivals: a group that waited for one slow peer together paused alike), or the call
 * is a send/recv (its one peer tells nothing), as at its bound of launches in flight; an entry no
 * op holds is judged on its usual step. A rank that went on issuing on its own cadence while its
 * launch waited meets its peers' ends on the way without waiting for them: it is behind by itself,
 * and is not cleared. lateness.h caps the member's lateness at c by its arrival less that release,
 * which only ever clears blame; and where every step of the rank since, from one arrival to the
 * next, stayed below the floor (`longest`), by that step: jitter that added up over several calls
 * is no pause of its own. The step from a known end that released r to r's next arrival counts less
 * the lower median of the same step of the op's other members held there (their next call after
 * that end): released together, they went on together, and r's extra time, below the floor, is
 * jitter too (seeds 7332, 8159: 7.5 ms from the end, 3.8 more than its peers took; not where a
 * member's clock was corrected, which may miss by the noise). Where nothing released it, `longest`
 * runs from the first arrival its dump holds (the job's start, or a ring's oldest entry): a rank
 * that never paused by the floor in all its dump shows is no straggler there either (lateness.h
 * caps by it alike). Where the rank waited at an earlier launch for a peer below the floor and
 * issued another call before its end, then paused into the first call after it as (3) asks (held
 * at its bound of launches in flight), `longest` also runs from that end, and the smaller of the
 * two bounds its own delay (seed 11111: held until the end, then 4.1 and 3.3 ms of jitter, read
 * as one 7.7 ms pause); it does not cap by the time since, as a short wait is within the jitter. A
 * slow rank arrives last, its launches complete when it arrives: nothing releases it.
 *
 * Where an op's end rests on what the dumps cannot show exactly, it is known only to lie in a
 * span, from its rebuilt end: a member left no dump (or its ring no longer holds the call), and
 * may have come last, so the op may have ended as late as its earliest discovery; or a member's
 * clock was corrected (rank_clocks.h), by an offset that may miss by the job's discovery noise
 * (fa_clock_noise), so the op may have ended as late as that member's latest reading. A send or
 * receive whose peer left no dump (an entry no op holds, or the end marker of a batch of them)
 * ended between its arrival and its discovery. A rank that arrived at such an op the floor or
 * more before the span's end, and was not itself late there (the floor, and with corrected
 * clocks twice the noise, after the lower median of the arrivals known), is taken as released by
 * it at the latest moment within the span, and before c, that may have released it: just before
 * a later entry of its own that paused as (3) asks (FA_RELEASE_PAUSES entries back at most), at
 * its next arrival after the op (it went on at the end), or at the span's end where (3) holds
 * there. A member without a dump may be the slow one: its peers, waiting for it, are not to be
 * named in its place; a slow rank, itself late at the op, is not excused by it.
 *
 * Whether a send/recv run's transfers wait for each other the dumps do not say either: on one
 * stream, or where a pipeline stage forwards what it received, each waits for the one before it,
 * and a stage held by its next stage holds its previous one in turn, down the whole pipeline (a
 * rank two stages away from a slow one waits at its bound of launches in flight, then comes late
 * to its data-parallel collectives: seeds 6320, 6865). So the chain is rebuilt a second time with
 * every launch waiting for the one before it on its rank, and an op whose end that order makes
 * later is known only to lie between the two ends: a span as above. A ring's transfers, in that
 * order, wait for each other in a cycle; they stay unknown there, and add no span. `start_in_order`
 * is the start in that order, the latest a call may have started (lateness.h).
 *
 * `start` is the rebuilt start of each call on the device (its arrival, or its previous launch's
 * rebuilt end): a member's end is its start plus its duration (lateness.h).
 *
 * A call's predecessor is the call owning the entry before its first; entries that no op holds
 * are passed over (FA_RELEASE_SKIP of them). Send/recv runs (a batch, or the sends and receives
 * of a pipeline step) are taken as one: each starts once the launch before the run completed,
 * and the launch after the run waits for all of them (a batch's transfers complete in any order;
 * taking them in order would chain a ring onto itself). An op that did not complete everywhere
 * has no completion; a launch after it starts, as far as the chain knows, at its arrival: a lower
 * bound, which only makes the rank's own delay seem longer (it clears less, never more).
 *
 * Built once over the matched ops, linear in the calls (Kahn's order over the per-rank chains;
 * each call looks at most FA_RELEASE_LOOKBACK calls or entries back or ahead): per entry of every
 * rank its call (4 bytes, while building), per call its release and start (8 bytes each) and
 * longest step (4), some 40 bytes more while building; per op its members' steps after its end
 * (peers_lead, 32 bytes); per rank its clock offset and usual step.
 */
#ifndef FRTRACE_RELEASE_H
#define FRTRACE_RELEASE_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include "load/load.h"
#include "match/groups.h"
#include "match/match.h"

#define FA_RELEASE_LOOKBACK 64

typedef struct fa_release {
    int64_t *release; /* per call: the release before it, on its rank's clock; 0 unknown */
    float *longest;   /* per call: the longest time its rank took from one arrival to the next since
                       * its release (ms), NaN unknown */
    int64_t *start;   /* per call: its rebuilt start (arrival, or the launch before it ended), on
                       * its rank's clock; 0 unknown */
    int64_t *start_in_order; /* likewise where every launch waits for the one before it on its
                              * rank, send/recv runs too: the latest it may have started */
    int64_t *offset;         /* per input rank: its clock's offset over the job, what the chains
                              * read its times against (rank_clocks.h; 0 in step) */
} fa_release;

/* 0, or -1 when out of memory (rl is then empty: every release unknown). */
int fa_release_build(const fa_input *in, const fa_groups *groups, const fa_match *m,
                     double floor_ms, fa_release *rl);
void fa_release_free(fa_release *rl);

/* The latest rebuilt completion of an earlier launch of call c's rank at or before its arrival
 * (ns, its rank's clock), 0 when unknown. */
static inline int64_t fa_release_ns(const fa_release *rl, const fa_match *m, const fa_call *c) {
    return rl->release ? rl->release[c - m->calls] : 0;
}

/* The longest step of call c's rank since its release (ms), NaN unknown. */
static inline double fa_release_longest_ms(const fa_release *rl, const fa_match *m,
                                           const fa_call *c) {
    return rl->longest ? rl->longest[c - m->calls] : NAN;
}

/* Call c's rebuilt start on the device (ns, its rank's clock), 0 when unknown. */
static inline int64_t fa_release_start_ns(const fa_release *rl, const fa_match *m,
                                          const fa_call *c) {
    return rl->start ? rl->start[c - m->calls] : 0;
}

/* Call c's latest possible start: its launches taken in order, transfers too (ns), 0 unknown. */
static inline int64_t fa_release_start_in_order_ns(const fa_release *rl, const fa_match *m,
                                                   const fa_call *c) {
    return rl->start_in_order ? rl->start_in_order[c - m->calls] : 0;
}

/* Input rank r's clock offset over the job (ms, rank_clocks.h): 0 in step or unknown. */
static inline double fa_release_offset_ms(const fa_release *rl, uint32_t r) {
    return rl->offset ? (double)rl->offset[r] / 1e6 : 0;
}

#endif
