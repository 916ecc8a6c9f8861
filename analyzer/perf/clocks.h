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
 * it (everyone's completion waits for it), whereas its arrivals would. The median is the lower
 * one of an even count: where two hosts of a group of four read 200 ms apart, the mean of the
 * middle two would put each half 100 ms off, at the threshold below, corrected at some ops and not
 * at others; against one half the other is a clear 200 ms.
 *
 * Member m's offset at the group's op k is the median of its residuals over the group's ops
 * k-H..k+H that it has one for, H = FA_CLOCK_HALF (as far as the group's first or last op goes):
 * a window about k follows a clock that drifts, and an op in flight takes its neighbours'. An
 * op's arrivals are corrected only when one of its members' offsets reaches FA_CLOCK_MIN_MS:
 * discovery noise alone never corrects anything, and a job whose clocks agree is judged on its
 * raw arrivals. Without completion times nothing is corrected.
 *
 * A corrected offset is no better than the noise it is read through: the watchdog's lag differs
 * per rank and need not average out over a window (it may be the same at every op). So each
 * offset comes with how much it may miss (`uncertain`): the larger of half its own residuals'
 * spread over the window, the spread of the members that read in step there, and the job's
 * discovery noise (fa_clock_noise: how far apart the members of collectives whose clocks agree
 * notice their end). Lateness is then judged only beyond it (lateness.h): a node whose clock is
 * 300 ms off, read through 100 ms of noise, is no straggler for what is left of its offset.
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

#include "load/load.h"
#include "match/match.h"

#define FA_CLOCK_HALF   4
#define FA_CLOCK_WIDTH  (2 * FA_CLOCK_HALF + 1)
#define FA_CLOCK_MIN_MS 100.0

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
    int64_t *sorted;     /* scratch: n completions */
    double job_noise_ms; /* fa_clock_noise's, set by the caller (0 by init) */
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
 * ops k-H..k+H put (those past the group's last op, `nops`, do not exist), and in `uncertain`
 * (NULL: not wanted) by how much each may miss: the discovery noise of the window's members in
 * step for a member corrected, 0 for one in step. Returns whether any is applied: a member whose
 * offset stays under FA_CLOCK_MIN_MS is taken as in step (0). */
bool fa_clock_at(fa_clock_ring *c, size_t k, size_t nops, uint32_t ncalls, const uint32_t *member,
                 double *out, double *uncertain);

/* The job's discovery noise (ms): how far apart the members of a collective whose clocks agree
 * notice its end, as the NOISE_QUANTILE of the completion spreads under FA_CLOCK_MIN_MS over
 * every collective with two completions known (0 without any). A shifted clock's offset, a
 * median of such readings, may miss by half of it (fa_clock_at takes it as the least
 * uncertainty). 0, or -1 when out of memory. */
int fa_clock_noise(const fa_input *in, const fa_match *m, double *noise_ms);

#endif
