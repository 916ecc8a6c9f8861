/* perf.h — speed from the same dumps: slow ranks (stragglers) and per-collective statistics.
 *
 * Every entry carries its arrival, time_created_ns (when the rank's CPU issued the call), and
 * with timing on duration_ms (GPU start to end). fa_perf_build reads them over the matched ops:
 *
 * Stragglers. A collective is judged when every member of its group has a call with a known
 * arrival, it names no mismatch, and (unless the verdict is ok) every call completed: in a hang
 * only the completed history counts, never the collective everybody waits in. Each member's
 * lateness is its arrival minus the median arrival of the others, on clocks corrected from the
 * completion times (clocks.h), capped by the delay it made itself where another rank held it
 * back (held.h, readiness.h; lateness.h walks a group's ops so); with durations known on every
 * member, its excess is its duration minus the others' median. Per rank and group, over at least
 * FA_STRAGGLER_MIN_JUDGED collectives, the lateness scores as the mean of its values at or above
 * the floor, the rest counted 0, once FA_STRAGGLER_MIN_LATE of them reached it (lateness_score in
 * perf.c says why not the median); the excess scores as its median. Every (rank, group) score is
 * compared with every other's, robustly: it is a straggler when its score reaches the floor
 * (--straggler-floor-ms, default 5 ms) and stands above their median by at least the floor and by
 * at least FA_OUTLIER_Z times their spread (1.4826 MAD; perfstat.h), or, peeled as Rosner's
 * generalized ESD test does (FA_STRAGGLER_PEEL rounds), above the lower median and spread of the
 * scores below it where those are on time (two slow ranks of four mask each other in the whole
 * sample; one of two has no sample to stand out of), and, for lateness, it was late by the floor
 * more often than the rate of the other pairs (but its group's other outliers: a member that
 * stands out beside it is late by its own cause) makes likely by chance (a binomial tail
 * below FA_STRAGGLER_ALPHA: on a loaded machine every rank is late at random, and one of them by
 * chance more than the rest), and consistently: in most of its collectives, or by several floors
 * (FA_STRAGGLER_MOST_LATE, FA_STRAGGLER_FAR_LATE; roughly corrected clocks leave a healthy rank
 * a little late in about half). Jitter below the floor counts nothing, and a floor of milliseconds
 * keeps a healthy job's small systematic offsets (one rank's Python) from being called slow.
 * Ordered most significant first.
 *
 * Stats. One row per group x op type x input/output sizes x dtype: count, bytes per call (the
 * larger of input and output numel x dtype size, as nccl-tests counts them), arrival skew per op
 * (last arrival minus first on the corrected clocks, p50 and p99 over the row's ops), duration
 * per op (the median of its members' durations, p50 and p99), algbw = bytes / p50 duration and
 * busbw = algbw x nccl-tests' factor (perfstat.h). Rows in group order, then by first appearance.
 */
#ifndef FRTRACE_PERF_H
#define FRTRACE_PERF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "match/groups.h"
#include "load/load.h"
#include "match/match.h"
#include "verdict/verdict.h"

#define FA_STRAGGLER_FLOOR_MS   5.0
#define FA_STRAGGLER_MIN_JUDGED 5
#define FA_STRAGGLER_MIN_LATE   3
/* The chance below which a rank late by the floor in k of its n collectives, where the other
 * ranks are so at rate p, is taken as more than noise: P(Binomial(n, p) >= k) < alpha. */
#define FA_STRAGGLER_ALPHA 1e-3
/* A late rank is late consistently: in this share of its judged collectives or more, or, less
 * often, by this many floors on average when late (perf.c: consistently_late). */
#define FA_STRAGGLER_MOST_LATE 0.6
#define FA_STRAGGLER_FAR_LATE  3.0
/* Scores tested one by one against the rest below them (perf.c: count_outliers). */
#define FA_STRAGGLER_PEEL 8

typedef struct fa_straggler {
    int64_t rank;
    double late_ms_median, late_ms_p90; /* arrival after its collectives' median arrival */
    uint32_t late_in;                   /* collectives it arrived late in by the floor or more */
    double late_ms_when_late;           /* its median lateness over those; NaN none */
    double late_ms_typical; /* late_ms_median, or below the floor late_ms_when_late: the words */
    uint32_t last_in;       /* collectives it arrived last in (alone) */
    uint32_t collectives;   /* collectives judged */
    double slow_ms_median;  /* duration beyond its peers' median; NaN without durations */
    uint32_t timed;         /* collectives judged on durations */
    bool late, slow_ops;    /* which test named it: arrivals, durations (or both) */
    double excess_ms;       /* how far beyond the ranks' median: the order */
    uint32_t *groups;       /* indices into fa_groups.v, ascending */
    size_t ngroups;
} fa_straggler;

typedef struct fa_stat_row {
    uint32_t group;
    const char *type;                     /* op type, in the store */
    uint32_t in_sizes, out_sizes, dtypes; /* store ids of the representative entry */
    bool is_p2p;
    uint64_t count;
    int64_t bytes;             /* per call; -1 unknown dtype */
    double skew_p50, skew_p99; /* ms; NaN when no op had two known arrivals */
    double dur_p50, dur_p99;   /* ms; NaN without durations */
    double algbw, busbw;       /* GB/s; NaN without durations or bytes */
    uint64_t nskew, ndur;      /* ops behind the quantiles */
} fa_stat_row;

typedef struct fa_perf {
    double floor_ms;
    fa_straggler *stragglers;
    size_t nstragglers;
    fa_stat_row *stats;
    size_t nstats;
    size_t judged;       /* collectives judged for stragglers */
    size_t ranks_judged; /* ranks with at least FA_STRAGGLER_MIN_JUDGED of them */
    bool any_arrival, any_duration;
    const char *skipped; /* why the view was not built (fa_analyze: out of memory), or NULL */
} fa_perf;

/* Fills p; floor_ms <= 0 takes the default. Groups are read by `jobs` threads (<= 0: one per
 * core); the result does not depend on it. Linear in the calls: every group's ops are walked
 * once, and once more for the groups that name a straggler (to describe it), however many ranks
 * are late. 0, or -1 when out of memory (p is then empty). */
int fa_perf_build(const fa_input *in, const fa_groups *groups, const fa_match *m, fa_status status,
                  double floor_ms, int jobs, fa_perf *p);
void fa_perf_free(fa_perf *p);

#endif
