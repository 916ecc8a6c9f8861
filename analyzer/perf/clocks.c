/* clocks.c — per member and op, its clock's offset from the completion times (clocks.h). */
#include "clocks.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "perfstat.h"

int fa_clock_ring_init(fa_clock_ring *c, uint32_t n) {
    memset(c, 0, sizeof *c);
    c->resid = malloc(((size_t)n * FA_CLOCK_WIDTH + 1) * sizeof *c->resid);
    c->sorted = malloc(((size_t)n + 1) * sizeof *c->sorted);
    return c->resid && c->sorted ? 0 : -1;
}

void fa_clock_ring_free(fa_clock_ring *c) {
    free(c->resid);
    free(c->sorted);
    memset(c, 0, sizeof *c);
}

void fa_clock_reset(fa_clock_ring *c, uint32_t n) {
    c->n = n;
    for (size_t i = 0; i < (size_t)n * FA_CLOCK_WIDTH; i++) c->resid[i] = NAN;
    for (int i = 0; i < FA_CLOCK_WIDTH; i++) c->spread[i] = 0;
}

void fa_clock_put(fa_clock_ring *c, size_t k, uint32_t ncalls, const uint32_t *member,
                  const int64_t *completed) {
    size_t slot = k % FA_CLOCK_WIDTH;
    float *row = &c->resid[slot * c->n];
    for (uint32_t i = 0; i < c->n; i++) row[i] = NAN;
    c->spread[slot] = 0;
    size_t known = 0;
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (uint32_t i = 0; i < ncalls; i++)
        if (completed[i]) {
            c->sorted[known++] = completed[i];
            if (completed[i] < lo) lo = completed[i];
            if (completed[i] > hi) hi = completed[i];
        }
    /* completions this close say nothing that could correct anything (see fa_clock_at) */
    if (known < 2 || (double)(hi - lo) / 1e6 < FA_CLOCK_MIN_MS) return;
    c->spread[slot] = (float)((double)(hi - lo) / 1e6);
    double median = fa_median_i64(c->sorted, known) - (double)lo; /* small: subtract first */
    for (uint32_t i = 0; i < ncalls; i++)
        if (completed[i] && member[i] < c->n)
            row[member[i]] = (float)(((double)(completed[i] - lo) - median) / 1e6);
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

bool fa_clock_at(const fa_clock_ring *c, size_t k, size_t nops, uint32_t ncalls,
                 const uint32_t *member, double *out) {
    size_t lo = k >= FA_CLOCK_HALF ? k - FA_CLOCK_HALF : 0, hi = k + FA_CLOCK_HALF;
    if (hi >= nops) hi = nops - 1;
    /* no member's offset reaches FA_CLOCK_MIN_MS unless some op of the window spreads so far */
    bool wide = false;
    for (size_t j = lo; j <= hi; j++) wide |= c->spread[j % FA_CLOCK_WIDTH] >= FA_CLOCK_MIN_MS;
    bool any = false;
    for (uint32_t i = 0; i < ncalls && wide; i++) {
        double v[FA_CLOCK_WIDTH];
        size_t nv = 0;
        for (size_t j = lo; j <= hi && member[i] < c->n; j++) {
            float r = c->resid[(j % FA_CLOCK_WIDTH) * c->n + member[i]];
            if (!isnan(r)) v[nv++] = r;
        }
        out[i] = nv ? small_median(v, nv) : 0;
        any |= fabs(out[i]) >= FA_CLOCK_MIN_MS;
    }
    if (!any)
        for (uint32_t i = 0; i < ncalls; i++) out[i] = 0;
    return any;
}
