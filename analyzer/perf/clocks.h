/* clocks.h — how far each member's clock reads from the others' at each op of a group, from the
 * completion times of the group's collectives.
 *
 * Every rank stamps its entries with its own clock, and clocks disagree: a node seconds off (an
 * NTP step), pipeline stages whose clocks drift apart over a run. Arrivals compared across ranks
 * then say as much of clocks as of lateness. A collective, though, ends on all its members at
 * one instant (its last member arrived, the ring completed), and each member's
 * time_discovered_completed_ns reads that instant on its own clock, late by at most the
 * watchdog's polling period (PyTorch polls every 100 ms). So at op k member m's residual
 *   r_m(k) = completed_m(k) - median over the members of completed(k)
 * is its clock's offset against the op's members, plus discovery noise; a slow rank does not move
 * it (everyone's completion waits for it), whereas its arrivals would.
 *
 * Member m's offset at the group's op k is the median of its residuals over the group's ops
 * k-H..k+H that it has one for (FA_CLOCK_HALF = H): a window centred on k follows a clock that
 * drifts linearly, damps the noise, and gives an op that has not completed (in flight) the
 * offsets of its neighbours. An op's arrivals are corrected only when one of its members' offsets
 * reaches FA_CLOCK_MIN_MS: discovery noise never corrects anything, and a job whose clocks agree
 * is judged on its raw arrivals. Without completion times nothing is corrected.
 *
 * The group's ops are fed in order (fa_clock_put); the offsets of op k are asked for (fa_clock_at)
 * once op k+H has been put, so only 2H+1 ops are held at a time: memory is the group's size
 * times 2H+1, whatever the number of its ops. Each put and ask is O(members): an op whose
 * completions lie within FA_CLOCK_MIN_MS of each other tells nothing (no residual of it could
 * reach the minimum), so only where clocks disagree are the exact median of the exits (by
 * selection) and the medians of at most 2H+1 residuals per member taken.
 */
#ifndef FRTRACE_CLOCKS_H
#define FRTRACE_CLOCKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FA_CLOCK_HALF   2
#define FA_CLOCK_WIDTH  (2 * FA_CLOCK_HALF + 1)
#define FA_CLOCK_MIN_MS 250.0

typedef struct fa_clock_ring {
    uint32_t n;      /* members of the group */
    float *resid;    /* [slot * n + member] ms, NaN none; slot = op index % FA_CLOCK_WIDTH */
    int64_t *sorted; /* scratch: n exits */
    float spread[FA_CLOCK_WIDTH]; /* per slot: its completions' spread (ms), 0 when below the
                                     minimum */
} fa_clock_ring;

/* Room for groups of up to n members. 0, or -1 when out of memory. */
int fa_clock_ring_init(fa_clock_ring *c, uint32_t n);
void fa_clock_ring_free(fa_clock_ring *c);
/* Starts a group of n members (n at most the size given to init). */
void fa_clock_reset(fa_clock_ring *c, uint32_t n);

/* The group's op k: its calls' members and completion times (0 unknown), `ncalls` of them; or
 * ncalls 0 for an op that tells nothing of clocks (a send/recv). */
void fa_clock_put(fa_clock_ring *c, size_t k, uint32_t ncalls, const uint32_t *member,
                  const int64_t *completed);

/* The offsets (ms) to subtract from the arrivals of op k's members, in `out` per call, with
 * ops k-H..k+H put (those past the group's last op, `nops`, do not exist). Returns whether any
 * is applied: all 0 when no member's offset reaches FA_CLOCK_MIN_MS. */
bool fa_clock_at(const fa_clock_ring *c, size_t k, size_t nops, uint32_t ncalls,
                 const uint32_t *member, double *out);

#endif
