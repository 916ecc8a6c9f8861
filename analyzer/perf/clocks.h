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
 * k-h..k+h that it has one for, h = FA_CLOCK_HALF (or less, as far as the group's first or last
 * op): a window centred on k follows a clock that drifts linearly and damps the noise. An op
 * that has not completed (in flight: nothing to centre on) takes the offsets of whichever of its
 * FA_CLOCK_HALF neighbours on either side there are. An op's arrivals are
 * corrected only when one of its members' offsets reaches FA_CLOCK_MIN_MS: discovery noise never
 * corrects anything, and a job whose clocks agree is judged on its raw arrivals. Without completion
 * times nothing is corrected.
 *
 * The group's ops are fed in order (fa_clock_put); the offsets of op k are asked for (fa_clock_at)
 * once op k+H has been put, so only 2H+1 ops are held at a time: memory is the group's size
 * times 2H+1, whatever the number of its ops. Each put and ask is O(members): only where some op
 * of the window has completions FA_CLOCK_MIN_MS or more apart (else no residual could reach the
 * minimum) are the ops' exact median completions (by selection, once per op) and the medians of
 * at most 2H+1 residuals per member taken.
 */
#ifndef FRTRACE_CLOCKS_H
#define FRTRACE_CLOCKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FA_CLOCK_HALF   2
#define FA_CLOCK_WIDTH  (2 * FA_CLOCK_HALF + 1)
#define FA_CLOCK_MIN_MS 250.0

typedef struct fa_clock_slot {
    uint32_t known;   /* members with a completion */
    int64_t lo;       /* the earliest completion */
    float spread_ms;  /* the latest less the earliest, 0 when fewer than two are known */
    double median_ms; /* the median completion after lo, NaN until asked for */
} fa_clock_slot;

typedef struct fa_clock_ring {
    uint32_t n;    /* members of the group */
    int64_t *done; /* [slot * n + member] completion, 0 unknown; slot = op index % WIDTH */
    fa_clock_slot slot[FA_CLOCK_WIDTH];
    int64_t *sorted; /* scratch: n completions */
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
bool fa_clock_at(fa_clock_ring *c, size_t k, size_t nops, uint32_t ncalls, const uint32_t *member,
                 double *out);

#endif
