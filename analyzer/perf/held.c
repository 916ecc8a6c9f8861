/* held.c — the calls whose ranks were held back by others (held.h). */
#include "held.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "parallel.h"
#include "perfstat.h"

/* Bit planes over every rank's entries, set on a call's last entry. */
enum {
    P_SEEN,
    P_WAITED,
    P_KEPT,
    P_COUNT
}; /* seen: its waits were known; waited/kept: and went on */

typedef struct held_ctx {
    const fa_input *in;
    const fa_match *m;
    int64_t floor_ns;
    size_t *rank_at;
    uint64_t *plane[P_COUNT];
    uint32_t widest;
    double *scratch; /* per worker: 4 x widest doubles */
    void *views;     /* per worker: widest call_views */
} held_ctx;

static void set_bit(uint64_t *plane, size_t bit) {
    /* ops of different chunks own different entries, but not different words of the plane */
    __atomic_fetch_or(&plane[bit / 64], (uint64_t)1 << (bit % 64), __ATOMIC_RELAXED);
}

static bool get_bit(const uint64_t *plane, size_t bit) { return plane[bit / 64] >> (bit % 64) & 1; }

typedef struct call_view {
    int64_t arrival, done, next; /* next: its rank's next entry's arrival; 0 unknown */
    double gap;                  /* ms from its previous entry's completion; NaN unknown */
    size_t bit;                  /* its last entry's */
} call_view;

static bool view_call(const held_ctx *x, const fa_call *c, call_view *v) {
    const fa_dump *d = x->in->ranks[c->rank_index].dump;
    uint32_t first = fa_call_entry_index(x->m, c, 0);
    uint32_t last = fa_call_entry_index(x->m, c, fa_call_nentries(x->m, c) - 1);
    v->arrival = fa_time_created(d, first);
    v->done = fa_time_completed(d, last);
    v->next = fa_time_created(d, last + 1);
    int64_t before = first ? fa_time_completed(d, first - 1) : 0;
    v->gap = before && v->arrival ? (double)(v->arrival - before) / 1e6 : NAN;
    v->bit = x->rank_at[c->rank_index] + last;
    return v->arrival && v->done && v->done >= v->arrival;
}

static void mark_op(const held_ctx *x, const fa_op *o, double *s, call_view *views) {
    if (o->ncalls < 2 || o->ncalls > x->widest) return;
    double *gaps = s, *others = s + x->widest, *tmp = s + 2 * x->widest;
    uint32_t *who = (uint32_t *)(s + 3 * x->widest);
    int64_t least = INT64_MAX;
    uint32_t ngaps = 0;
    bool any_went_on = false;
    for (uint32_t k = 0; k < o->ncalls; k++) {
        call_view *v = &views[k];
        if (!view_call(x, &x->m->calls[o->first_call + k], v)) return; /* waits unknown */
        if (v->done - v->arrival < least) least = v->done - v->arrival;
        if (!isnan(v->gap)) who[ngaps] = k, gaps[ngaps++] = v->gap;
        any_went_on |= v->next && v->next >= v->done - x->floor_ns;
    }
    for (uint32_t i = 0; i < ngaps; i++) others[i] = NAN;
    /* "kept up" matters only for a member that went on after the end */
    if (ngaps >= 2 && any_went_on) fa_median_of_others(gaps, ngaps, tmp, others);
    uint32_t g = 0;
    for (uint32_t k = 0; k < o->ncalls; k++) {
        const call_view *v = &views[k];
        bool kept = false;
        while (g < ngaps && who[g] < k) g++;
        if (g < ngaps && who[g] == k && !isnan(others[g]))
            kept = gaps[g] - others[g] < (double)x->floor_ns / 1e6;
        set_bit(x->plane[P_SEEN], v->bit);
        if (!v->next || v->next < v->done - x->floor_ns) continue; /* did not wait for the end */
        if (v->done - v->arrival - least >= x->floor_ns) set_bit(x->plane[P_WAITED], v->bit);
        if (kept) set_bit(x->plane[P_KEPT], v->bit);
    }
}

static void mark_range(void *ctx, unsigned worker, size_t lo, size_t hi) {
    const held_ctx *x = ctx;
    double *s = x->scratch + (size_t)worker * 4 * x->widest;
    call_view *views = (call_view *)x->views + (size_t)worker * x->widest;
    for (size_t op = lo; op < hi; op++) mark_op(x, &x->m->ops[op], s, views);
}

/* Per rank, in entry order: held = waited, or held before and kept up. Written over P_SEEN. */
static void chain_range(void *ctx, unsigned worker, size_t lo, size_t hi) {
    held_ctx *x = ctx;
    (void)worker;
    for (size_t r = lo; r < hi; r++) {
        bool held = false;
        for (size_t bit = x->rank_at[r]; bit < x->rank_at[r + 1]; bit++) {
            if (get_bit(x->plane[P_SEEN], bit))
                held = get_bit(x->plane[P_WAITED], bit) || (held && get_bit(x->plane[P_KEPT], bit));
            /* a word holds 64 entries, maybe of two ranks: set and clear atomically */
            if (held != get_bit(x->plane[P_SEEN], bit)) {
                uint64_t mask = (uint64_t)1 << (bit % 64);
                if (held)
                    __atomic_fetch_or(&x->plane[P_SEEN][bit / 64], mask, __ATOMIC_RELAXED);
                else
                    __atomic_fetch_and(&x->plane[P_SEEN][bit / 64], ~mask, __ATOMIC_RELAXED);
            }
        }
    }
}

static bool any_completion(const fa_input *in) {
    for (size_t r = 0; r < in->nranks; r++) {
        const fa_dump *d = in->ranks[r].dump;
        for (uint32_t i = 0; i < d->nentries; i++)
            if (fa_time_completed(d, i)) return true;
    }
    return false;
}

int fa_held_build(const fa_input *in, const fa_match *m, double floor_ms, int jobs, fa_held *h) {
    memset(h, 0, sizeof *h);
    h->rank_at = malloc((in->nranks + 1) * sizeof *h->rank_at);
    if (!h->rank_at) return -1;
    size_t total = 0;
    for (size_t r = 0; r < in->nranks; r++) {
        h->rank_at[r] = total;
        total += in->ranks[r].dump->nentries;
    }
    h->rank_at[in->nranks] = total;
    if (!any_completion(in)) return 0; /* nothing to say: no call's completion is known */
    unsigned nw = fa_worker_count(jobs);
    held_ctx x = { in, m, (int64_t)(floor_ms * 1e6), h->rank_at, { NULL }, 2, NULL, NULL };
    for (size_t op = 0; op < m->nops; op++)
        if (m->ops[op].ncalls > x.widest) x.widest = m->ops[op].ncalls;
    x.scratch = malloc((size_t)nw * 4 * x.widest * sizeof *x.scratch);
    x.views = malloc((size_t)nw * x.widest * sizeof(call_view));
    int rc = x.scratch && x.views ? 0 : -1;
    for (int p = 0; p < P_COUNT && rc == 0; p++)
        if (!(x.plane[p] = calloc(total / 64 + 1, sizeof(uint64_t)))) rc = -1;
    if (rc == 0) {
        fa_parallel_for(m->nops, 4096, nw, mark_range, &x);
        fa_parallel_for(in->nranks, 64, nw, chain_range, &x);
        h->bits = x.plane[P_SEEN];
        x.plane[P_SEEN] = NULL;
    }
    for (int p = 0; p < P_COUNT; p++) free(x.plane[p]);
    free(x.scratch);
    free(x.views);
    if (rc) fa_held_free(h);
    return rc;
}

void fa_held_free(fa_held *h) {
    free(h->rank_at);
    free(h->bits);
    memset(h, 0, sizeof *h);
}
