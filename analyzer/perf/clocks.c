/* clocks.c — per member and op, its clock's offset from the completion times (clocks.h). */
#include "clocks.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "perfstat.h"

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

/* The op's median completion, in ms after its earliest (selection over its known ones, once). */
static double slot_median(fa_clock_ring *c, size_t k) {
    fa_clock_slot *s = &c->slot[k % FA_CLOCK_WIDTH];
    if (!isnan(s->median_ms)) return s->median_ms;
    const int64_t *row = &c->done[(k % FA_CLOCK_WIDTH) * c->n];
    size_t n = 0;
    for (uint32_t i = 0; i < c->n; i++)
        if (row[i]) c->sorted[n++] = row[i] - s->lo; /* small: exact as doubles */
    s->median_ms = fa_median_i64(c->sorted, n) / 1e6;
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

bool fa_clock_at(fa_clock_ring *c, size_t k, size_t nops, uint32_t ncalls, const uint32_t *member,
                 double *out) {
    /* a window centred on k, as wide on both sides (narrower at the group's ends): its median
     * follows a linear drift exactly; but an op that did not complete (in flight) has nothing
     * to centre on, and takes whatever neighbours it has */
    size_t lo = k >= FA_CLOCK_HALF ? k - FA_CLOCK_HALF : 0, hi = k + FA_CLOCK_HALF;
    if (hi > nops - 1) hi = nops - 1;
    if (c->slot[k % FA_CLOCK_WIDTH].known >= 2) {
        size_t h = k - lo < hi - k ? k - lo : hi - k;
        lo = k - h, hi = k + h;
    }
    /* no member's offset reaches FA_CLOCK_MIN_MS unless some op of the window spreads so far */
    bool wide = false;
    for (size_t j = lo; j <= hi; j++)
        wide |= c->slot[j % FA_CLOCK_WIDTH].spread_ms >= FA_CLOCK_MIN_MS;
    bool any = false;
    for (uint32_t i = 0; i < ncalls && wide; i++) {
        double v[FA_CLOCK_WIDTH];
        size_t nv = 0;
        for (size_t j = lo; j <= hi && member[i] < c->n; j++) {
            const fa_clock_slot *s = &c->slot[j % FA_CLOCK_WIDTH];
            int64_t done = c->done[(j % FA_CLOCK_WIDTH) * c->n + member[i]];
            if (done && s->known >= 2) v[nv++] = (double)(done - s->lo) / 1e6 - slot_median(c, j);
        }
        out[i] = nv ? small_median(v, nv) : 0;
        any |= fabs(out[i]) >= FA_CLOCK_MIN_MS;
    }
    if (!any)
        for (uint32_t i = 0; i < ncalls; i++) out[i] = 0;
    return any;
}
