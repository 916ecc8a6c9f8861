/* clocks.c — per member and op, its clock's offset from the completion times (clocks.h). */
#include "perf/clocks.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "perf/perfstat.h"

#define NOISE_QUANTILE 0.9

int fa_clock_ring_init(fa_clock_ring *c, uint32_t n) {
    memset(c, 0, sizeof *c);
    c->done = malloc(((size_t)n * FA_CLOCK_WIDTH + 1) * sizeof *c->done);
    c->sorted = malloc(((size_t)n + 1) * sizeof *c->sorted);
    return c->done && c->sorted ? 0 : -1;
}

void fa_clock_ring_free(fa_clock_ring *c) {
    free(c->done);
    free(c->sorted);
    memset(c, 0, sizeof *c);
}

void fa_clock_reset(fa_clock_ring *c, uint32_t n) {
    c->n = n;
    memset(c->done, 0, (size_t)n * FA_CLOCK_WIDTH * sizeof *c->done);
    for (int i = 0; i < FA_CLOCK_WIDTH; i++) c->slot[i] = (fa_clock_slot){ 0, 0, 0, NAN };
}

void fa_clock_put(fa_clock_ring *c, size_t k, uint32_t ncalls, const uint32_t *member,
                  const int64_t *completed) {
    fa_clock_slot *s = &c->slot[k % FA_CLOCK_WIDTH];
    int64_t *row = &c->done[(k % FA_CLOCK_WIDTH) * c->n];
    memset(row, 0, (size_t)c->n * sizeof *row);
    *s = (fa_clock_slot){ 0, INT64_MAX, 0, NAN };
    int64_t hi = INT64_MIN;
    for (uint32_t i = 0; i < ncalls; i++) {
        if (!completed[i] || member[i] >= c->n) continue;
        row[member[i]] = completed[i];
        s->known++;
        if (completed[i] < s->lo) s->lo = completed[i];
        if (completed[i] > hi) hi = completed[i];
    }
    if (s->known >= 2) s->spread_ms = (float)((double)(hi - s->lo) / 1e6);
}

/* The op's lower median completion, in ms after its earliest (selection over its known ones,
 * once; clocks.h says why the lower). */
static double slot_median(fa_clock_ring *c, size_t k) {
    fa_clock_slot *s = &c->slot[k % FA_CLOCK_WIDTH];
    if (!isnan(s->median_ms)) return s->median_ms;
    const int64_t *row = &c->done[(k % FA_CLOCK_WIDTH) * c->n];
    size_t n = 0;
    for (uint32_t i = 0; i < c->n; i++)
        if (row[i]) c->sorted[n++] = row[i] - s->lo; /* small: exact as doubles */
    s->median_ms = fa_lower_median_i64(c->sorted, n) / 1e6;
    return s->median_ms;
}

/* The median of v[0..n), n <= FA_CLOCK_WIDTH: sorted in place by insertion. */
static double small_median(double *v, size_t n) {
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && v[j - 1] > v[j]; j--) {
            double t = v[j];
            v[j] = v[j - 1], v[j - 1] = t;
        }
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Member `m`'s residual at the window's op j (ms), NaN where either is unknown. */
static double residual(fa_clock_ring *c, size_t j, uint32_t m) {
    const fa_clock_slot *s = &c->slot[j % FA_CLOCK_WIDTH];
    int64_t done = m < c->n ? c->done[(j % FA_CLOCK_WIDTH) * c->n + m] : 0;
    if (!done || s->known < 2) return NAN;
    return (double)(done - s->lo) / 1e6 - slot_median(c, j);
}

/* How far the members read as in step (|offset| below the minimum) spread at the window's ops:
 * the median over the ops of their residuals' range. That is the discovery noise: a shifted
 * member's offset, a median of residuals against a median of such noisy readings, may miss its
 * clock by as much. */
static double window_noise(fa_clock_ring *c, size_t lo, size_t hi, uint32_t ncalls,
                           const uint32_t *member, const double *off) {
    double range[FA_CLOCK_WIDTH];
    size_t nr = 0;
    for (size_t j = lo; j <= hi; j++) {
        double a = INFINITY, b = -INFINITY;
        for (uint32_t i = 0; i < ncalls; i++) {
            double r = fabs(off[i]) < FA_CLOCK_MIN_MS ? residual(c, j, member[i]) : NAN;
            if (isnan(r)) continue;
            if (r < a) a = r;
            if (r > b) b = r;
        }
        if (b >= a) range[nr++] = b - a;
    }
    return nr ? small_median(range, nr) : 0;
}

bool fa_clock_at(fa_clock_ring *c, size_t k, size_t nops, uint32_t ncalls, const uint32_t *member,
                 double *out, double *uncertain) {
    /* a window centred on k (narrower at the group's ends, where it takes what there is) */
    size_t lo = k >= FA_CLOCK_HALF ? k - FA_CLOCK_HALF : 0, hi = k + FA_CLOCK_HALF;
    if (hi > nops - 1) hi = nops - 1;
    /* no member's offset reaches FA_CLOCK_MIN_MS unless some op of the window spreads so far */
    bool wide = false;
    for (size_t j = lo; j <= hi; j++)
        wide |= c->slot[j % FA_CLOCK_WIDTH].spread_ms >= FA_CLOCK_MIN_MS;
    bool any = false;
    for (uint32_t i = 0; i < ncalls; i++) {
        double v[FA_CLOCK_WIDTH];
        size_t nv = 0;
        for (size_t j = lo; j <= hi && wide; j++) {
            double r = residual(c, j, member[i]);
            if (!isnan(r)) v[nv++] = r;
        }
        out[i] = nv ? small_median(v, nv) : 0; /* sorts v */
        any |= fabs(out[i]) >= FA_CLOCK_MIN_MS;
        if (uncertain) uncertain[i] = nv ? (v[nv - 1] - v[0]) / 2 : 0;
    }
    if (!any) {
        for (uint32_t i = 0; i < ncalls; i++) out[i] = 0;
        return false;
    }
    /* each offset may miss by its own residuals' spread, or by the noise of the members that
     * read in step here or in the whole job, whichever is more */
    double noise = uncertain ? window_noise(c, lo, hi, ncalls, member, out) : 0;
    if (noise < c->job_noise_ms) noise = c->job_noise_ms;
    for (uint32_t i = 0; uncertain && i < ncalls; i++)
        if (uncertain[i] < noise) uncertain[i] = noise;
    return true;
}

/* One op's completions' spread (ms; NaN under two known): its members' discovery noise when
 * their clocks agree. */
static double op_spread(const fa_input *in, const fa_match *m, const fa_op *o) {
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    uint32_t known = 0;
    for (uint32_t k = 0; k < o->ncalls; k++) {
        const fa_call *c = &m->calls[o->first_call + k];
        const fa_dump *d = in->ranks[c->rank_index].dump;
        int64_t done = fa_time_completed(d, fa_call_entry_index(m, c, fa_call_nentries(m, c) - 1));
        if (!done) continue;
        known++;
        if (done < lo) lo = done;
        if (done > hi) hi = done;
    }
    return known >= 2 ? (double)(hi - lo) / 1e6 : NAN;
}

int fa_clock_noise(const fa_input *in, const fa_match *m, double *noise_ms) {
    double *v = malloc((m->nops + 1) * sizeof *v);
    if (!v) return -1;
    size_t n = 0;
    for (size_t i = 0; i < m->nops; i++) {
        double x = m->ops[i].is_p2p ? NAN : op_spread(in, m, &m->ops[i]);
        if (x < FA_CLOCK_MIN_MS) v[n++] = x; /* NaN compares false */
    }
    *noise_ms = n ? fa_quantile(v, n, NOISE_QUANTILE) : 0;
    free(v);
    return 0;
}
