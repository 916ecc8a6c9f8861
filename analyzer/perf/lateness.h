/* lateness.h — how late each member arrived at each collective of a group, walked in op order.
 *
 * A walk reads each of the group's ops once: its calls' arrivals (time_created_ns of the call's
 * first entry), completions (time_discovered_completed_ns of its last), durations, and what is
 * known of when each rank was free to come (its previous call's completion and whether that call
 * held it, held.h; for blocking backends the ready time, readiness.h). It corrects the arrivals
 * for the members' clocks (clocks.h) and, for an op that is judged (perf.h), gives each member
 *
 *   late = its corrected arrival - the median corrected arrival of the other members,
 *
 * where clocks were corrected shrunk towards 0 by what the offsets may miss (its own and the
 * others' median's; against the members read exactly where two or more are; of an even count of
 * others, the lower middle: delays only add, and of three ranks two of which are slow the less
 * slow one is compared with the on-time one; where the group's window corrected no clock, less
 * how far its rank's clock reads ahead of the others' over the whole job, rank_clocks.h), and
 * capped by the delay it made itself: where its previous call held it, its gap (from that call's
 * completion to this arrival, on its own clock) less the median gap of the other members; where
 * its backend blocks (gloo), its arrival less its ready time. There, too, a call that blocks
 * ends after its last member came, so the others cannot go on before a rank arrives unless its
 * clock reads ahead: the walk gives each member the median stay of the others (from arrival to
 * their next call, each on its own clock), and perf.c scores no lateness of a member that is
 * never late within it (lateness_score): its clock reads ahead. A cap only ever clears blame: the
 * ranks that waited for a slow one and came late to their next groups because of it are not
 * slow, and a rank that is slow is late by its own gap wherever it goes. Where a completion
 * released the rank (release.h), its lateness is capped by the time since. With durations known
 * on every member, its excess is its duration less the others' median, capped by how much later
 * its end (rebuilt start plus duration) is than theirs, its start taken as early and theirs as late
 * as the rebuilt chains allow (release.h): a member whose kernel ran long because it waited in it
 * for peers held up the pipeline is not slow (seed 4937).
 *
 * The walk is linear in the group's calls: each op is read once and judged in O(members) (median
 * of the others by selection), with FA_CLOCK_HALF ops of look-ahead for the clocks.
 */
#ifndef FRTRACE_LATENESS_H
#define FRTRACE_LATENESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "perf/clocks.h"
#include "match/groups.h"
#include "perf/held.h"
#include "load/load.h"
#include "match/match.h"
#include "perf/readiness.h"
#include "perf/release.h"
#include "verdict/verdict.h"

/* What the walk reads and judges of one op; arrays per call, ascending member. */
typedef struct fa_op_times {
    size_t op;
    uint32_t n;        /* calls */
    uint32_t narrived; /* calls with a known arrival */
    uint32_t ntimed;   /* calls with a known duration */
    bool completed;    /* every call completed */
    bool judged;       /* judged for stragglers (perf.h): late, excess and last are set */
    bool corrected;    /* arrivals corrected for clocks (clocks.h) */
    bool same_launch;  /* a later member of the previous op's launch: a coalesced group whose end
                        * marker is not shown, its entries one op each at one collective_seq_id */
    uint32_t *member;  /* position in the group */
    int64_t *arrival;  /* raw, 0 unknown */
    int64_t *done;     /* completion, 0 unknown */
    int64_t *ready;    /* blocking backends: when its rank was free (readiness.h), 0 unknown */
    double *gap;       /* ms from its previous call's completion to its arrival; NaN unknown */
    double *stay; /* blocking backends: ms from its arrival to its rank's next call; once judged,
                   * the median of the others' (perf.c caps lateness by it); NaN unknown */
    bool *held_before; /* its previous call held it (held.h) */
    double *freed;     /* ms from the later of its previous arrival and its release (release.h) to
                        * this arrival: at most the delay it made itself; NaN unknown */
    double *duration;  /* ms, NaN unknown */
    double *started;   /* ms from its arrival to its rebuilt start on the device (release.h), 0
                        * unknown */
    double *started_late; /* likewise its latest possible start (launches in order), 0 unknown */
    double *at;           /* ms: arrival after the op's first raw arrival, less the clock offset */
    double *uncertain;    /* ms by which that offset may miss (clocks.h), 0 in step */
    double *job_off;      /* ms: its rank's clock offset over the job (rank_clocks.h), 0 in step */
    double *late;         /* ms */
    double *excess;       /* ms, NaN unknown */
    long last;            /* the call that arrived last alone, -1 a tie */
} fa_op_times;

typedef struct fa_late_env {
    const fa_input *in;
    const fa_groups *groups;
    const fa_match *m;
    fa_status status;
    double floor_ms;
    const fa_readiness *ready;
    const fa_held *held;
    const fa_release *release; /* NULL: none */
    double clock_noise_ms;     /* fa_clock_noise's */
} fa_late_env;

/* A worker's memory for walks over groups of up to `maxcalls` members. */
typedef struct fa_late_scratch {
    fa_op_times slot[FA_CLOCK_WIDTH];
    fa_clock_ring clock;
    double *tmp, *tmp2, *off;
    uint32_t *idx;
} fa_late_scratch;

int fa_late_scratch_init(fa_late_scratch *s, uint32_t maxcalls);
void fa_late_scratch_free(fa_late_scratch *s);

/* Called for every op of the walk, in order; non-zero stops it (and is returned). */
typedef int (*fa_late_visit)(void *arg, const fa_op_times *t);

/* Walks group gi's ops ops[0..nops) (op indices in seq order). */
int fa_group_lateness(const fa_late_env *env, fa_late_scratch *s, uint32_t gi, const size_t *ops,
                      size_t nops, fa_late_visit visit, void *arg);

#endif
