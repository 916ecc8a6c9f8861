/* perf.c — stragglers and per-collective statistics from arrivals and durations (perf.h). */
#include "perf.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "parallel.h"
#include "perfstat.h"
#include "readiness.h"

/* ------------------------------------------------------------ one op's members ------- */

/* One op's calls with what their entries say of time. */
typedef struct op_times {
    uint32_t n;        /* calls */
    uint32_t narrived; /* calls with a known arrival */
    uint32_t ntimed;   /* calls with a known duration */
    bool completed;    /* every call completed */
    int64_t *arrival;  /* per call, 0 unknown */
    int64_t *ready;    /* per call: when its rank was free to arrive (readiness.h), 0 unknown */
    double *duration;  /* per call, NaN unknown */
    uint32_t *member;  /* per call: position in the group */
    double *scratch_d; /* selection scratch */
    double *scratch_d2;
} op_times;

static const fa_times *call_times(const fa_input *in, const fa_match *m, const fa_call *c) {
    if (!c->nentries) return NULL;
    const fa_dump *d = in->ranks[c->rank_index].dump;
    return d->times ? &d->times[m->entry_refs[c->entries_at]] : NULL;
}

static void read_op(const fa_input *in, const fa_match *m, const fa_readiness *rd, size_t op,
                    op_times *t) {
    const fa_op *o = &m->ops[op];
    t->n = t->narrived = t->ntimed = 0;
    t->completed = true;
    /* readiness holds only where a call waits for its operation's end (backend.h) */
    bool blocking =
        o->rep && fa_backend_blocks_caller(fa_backend_of(
                      fa_store_op(in->store, fa_entry_traits(in->store, o->rep)->name)->text));
    for (uint32_t k = 0; k < o->ncalls; k++) {
        const fa_call *c = &m->calls[o->first_call + k];
        const fa_times *tm = call_times(in, m, c);
        t->member[t->n] = c->member;
        t->arrival[t->n] = tm ? tm->created_ns : 0;
        t->ready[t->n] = blocking ? fa_ready_ns(rd, m, c) : 0;
        t->duration[t->n] = tm && !isnan(tm->duration_ms) ? tm->duration_ms : NAN;
        t->narrived += t->arrival[t->n] != 0;
        t->ntimed += !isnan(t->duration[t->n]);
        t->completed &= c->state == FR_STATE_COMPLETED;
        t->n++;
    }
}

/* The median of the op's known durations. */
static double median_duration(op_times *t) {
    uint32_t k = 0;
    for (uint32_t i = 0; i < t->n; i++)
        if (!isnan(t->duration[i])) t->scratch_d[k++] = t->duration[i];
    return fa_median(t->scratch_d, k);
}

/* Is op judged for stragglers? Every member present with an arrival, no mismatch, and in a job
 * that is not ok, completed everywhere (the completed history). */
static bool judged(const fa_groups *groups, const fa_match *m, size_t op, const op_times *t,
                   fa_status status) {
    const fa_op *o = &m->ops[op];
    const fa_group *g = &groups->v[o->group];
    return !o->is_p2p && !o->mismatch && g->nmembers >= 2 && t->n == g->nmembers &&
           t->narrived == t->n && (status == FA_STATUS_OK || t->completed);
}

/* ------------------------------------------------------------ stats rows ------------- */

typedef struct dvec {
    double *v;
    size_t n, cap;
} dvec;

static int dvec_add(dvec *d, double x) {
    if (d->n == d->cap) {
        size_t cap = d->cap ? d->cap * 2 : 8;
        double *v = realloc(d->v, cap * sizeof *v);
        if (!v) return -1;
        d->v = v;
        d->cap = cap;
    }
    d->v[d->n++] = x;
    return 0;
}

typedef struct row_acc {
    fa_stat_row row;
    size_t first_op;
    dvec skew, dur;
} row_acc;

/* One (rank, group) pair: the member's lateness over its group's judged collectives. */
typedef struct pair {
    uint32_t group, member;
    uint32_t n, ntimed, last_in;
    uint32_t nlate;                 /* judged collectives where it was late by the floor or more */
    double late_score, slow_median; /* NaN: too few (late_score: see lateness_score) */
    bool late, slow;
} pair;

/* What the pass over one group's ops produced; groups are done in parallel, each into its own. */
typedef struct group_out {
    row_acc *rows;
    size_t nrows, rows_cap;
    pair *pairs;
    size_t npairs;
    size_t judged;
    bool any_arrival, any_duration;
    bool failed;
} group_out;

typedef struct judge {
    const fa_input *in;
    const fa_groups *groups;
    const fa_match *m;
    fa_status status;
    double floor_ms;
    fa_readiness ready;
    op_times *t;       /* per worker */
    size_t *group_ops; /* op indices sorted by group */
    size_t *group_at;  /* per group: first index into group_ops; [ngroups] = end */
    group_out *out;    /* per group */
} judge;

/* A p2p op is one transfer, whichever side's entry represents it (the receiver's where it is
 * the lower member: the ring's last hop): one row, not a "send" row and a "recv" row. */
static const char P2P_TYPE[] = "send/recv";

/* The group's row for the op's type, sizes and dtype: few per group, found by a linear look. */
static row_acc *row_for(group_out *G, const fa_store *store, const fa_op *o, size_t op) {
    const fa_traits *tr = fa_entry_traits(store, o->rep);
    uint32_t ins = tr->in_sizes, outs = tr->out_sizes, dt = tr->in_dtypes;
    const char *type = o->is_p2p ? P2P_TYPE : o->type;
    for (size_t i = G->nrows; i-- > 0;) {
        const fa_stat_row *r = &G->rows[i].row;
        if (r->type == type && r->in_sizes == ins && r->out_sizes == outs && r->dtypes == dt)
            return &G->rows[i];
    }
    if (G->nrows == G->rows_cap) {
        size_t cap = G->rows_cap ? G->rows_cap * 2 : 8;
        row_acc *v = realloc(G->rows, cap * sizeof *v);
        if (!v) return NULL;
        G->rows = v;
        G->rows_cap = cap;
    }
    row_acc *r = &G->rows[G->nrows++];
    memset(r, 0, sizeof *r);
    r->row = (fa_stat_row){ .group = o->group,
                            .type = type,
                            .in_sizes = ins,
                            .out_sizes = outs,
                            .dtypes = dt,
                            .is_p2p = o->is_p2p,
                            .bytes = -1 };
    r->first_op = op;
    /* bytes as nccl-tests count them: the larger buffer (all_gather's output, reduce_scatter's
     * input) */
    const fr_strings *idt = fa_store_strings(store, tr->in_dtypes),
                     *odt = fa_store_strings(store, tr->out_dtypes);
    int isz = idt->count ? fa_dtype_size(idt->items[0]) : 0,
        osz = odt->count ? fa_dtype_size(odt->items[0]) : 0;
    int64_t ib = fa_store_numel(store, ins) * isz, ob = fa_store_numel(store, outs) * osz;
    if (isz || osz) r->row.bytes = ib > ob ? ib : ob;
    return r;
}

static int add_stats(group_out *G, const fa_input *in, const fa_match *m, size_t op, op_times *t) {
    const fa_op *o = &m->ops[op];
    if (!o->rep) return 0;
    row_acc *r = row_for(G, in->store, o, op);
    if (!r) return -1;
    r->row.count++;
    if (t->narrived >= 2) {
        int64_t lo = INT64_MAX, hi = INT64_MIN;
        for (uint32_t i = 0; i < t->n; i++)
            if (t->arrival[i]) {
                if (t->arrival[i] < lo) lo = t->arrival[i];
                if (t->arrival[i] > hi) hi = t->arrival[i];
            }
        if (dvec_add(&r->skew, (double)(hi - lo) / 1e6) != 0) return -1;
    }
    if (t->ntimed && dvec_add(&r->dur, median_duration(t)) != 0) return -1;
    return 0;
}

static void finish_row(row_acc *r, const fa_groups *groups) {
    fa_stat_row *s = &r->row;
    s->nskew = r->skew.n;
    s->ndur = r->dur.n;
    s->skew_p50 = fa_quantile(r->skew.v, r->skew.n, 0.5);
    s->skew_p99 = fa_quantile(r->skew.v, r->skew.n, 0.99);
    s->dur_p50 = fa_quantile(r->dur.v, r->dur.n, 0.5);
    s->dur_p99 = fa_quantile(r->dur.v, r->dur.n, 0.99);
    s->algbw = s->busbw = NAN;
    if (s->bytes > 0 && s->dur_p50 > 0) {
        s->algbw = (double)s->bytes / (s->dur_p50 * 1e6); /* bytes per ms -> GB/s */
        int64_t n = s->is_p2p ? 2 : (int64_t)groups->v[s->group].nmembers;
        s->busbw = s->algbw * fa_busbw_factor(s->type, n);
    }
}

/* ------------------------------------------------------------ stragglers ------------- */

/* For each member of a judged op: its lateness and duration excess (ms) against its peers'
 * median (perfstat.h), the lateness no more than the delay it made itself (readiness.h); and
 * who came last (-1 a tie). */
static void lateness(op_times *t, double *late, double *excess, long *last) {
    int64_t hi = INT64_MIN, base = t->arrival[0];
    long who = -1;
    for (uint32_t i = 0; i < t->n; i++) {
        t->scratch_d[i] = (double)(t->arrival[i] - base) / 1e6;
        if (t->arrival[i] > hi)
            hi = t->arrival[i], who = (long)i;
        else if (t->arrival[i] == hi)
            who = -1;
    }
    *last = who;
    fa_median_of_others(t->scratch_d, t->n, t->scratch_d2, late);
    for (uint32_t i = 0; i < t->n; i++) {
        late[i] = t->scratch_d[i] - late[i];
        double own = t->ready[i] ? (double)(t->arrival[i] - t->ready[i]) / 1e6 : INFINITY;
        if (own < late[i]) late[i] = own;
    }
    if (t->ntimed == t->n) {
        fa_median_of_others(t->duration, t->n, t->scratch_d2, excess);
        for (uint32_t i = 0; i < t->n; i++) excess[i] = t->duration[i] - excess[i];
    } else {
        for (uint32_t i = 0; i < t->n; i++) excess[i] = NAN;
    }
}

/* How late a member is over its n judged collectives of a group, as one number: the mean of its
 * lateness where it was late by the floor or more, counting the rest as 0, provided that it was
 * late so in FA_STRAGGLER_MIN_LATE of them at least (else 0). Not the median: where a call waits
 * for its operation's end (gloo) a slow rank's peers wait for it once a step, at the first
 * collective after its delay, and are in step again for the next ones, so a rank 60 ms late at
 * one of a group's three collectives a step has a median lateness of 0 but a score of 20 ms.
 * Below the floor nothing counts, so that a healthy job's jitter adds nothing; a few late calls
 * (a pause for garbage collection) count nothing either. */
static double lateness_score(const double *late, size_t n, double floor_ms, uint32_t *nlate) {
    double sum = 0;
    *nlate = 0;
    for (size_t i = 0; i < n; i++)
        if (late[i] >= floor_ms) ++*nlate, sum += late[i];
    return *nlate >= FA_STRAGGLER_MIN_LATE ? sum / (double)n : 0;
}

/* One group's ops, once: their stats rows, and per member its lateness over the judged ones. */
static int pass_group(judge *J, op_times *t, uint32_t gi, group_out *G) {
    const fa_group *g = &J->groups->v[gi];
    size_t lo = J->group_at[gi], hi = J->group_at[gi + 1], nops = hi - lo, n = g->nmembers;
    if (!nops) return 0;
    bool judging = n >= 2;
    float *late = NULL, *exc = NULL;
    uint32_t *nl = NULL, *ne = NULL, *last = NULL;
    double *tl = NULL, *te = NULL, *sel = NULL;
    if (judging) {
        late = malloc(nops * n * sizeof *late), exc = malloc(nops * n * sizeof *exc);
        nl = calloc(n, sizeof *nl), ne = calloc(n, sizeof *ne), last = calloc(n, sizeof *last);
        tl = malloc(n * sizeof *tl), te = malloc(n * sizeof *te),
        sel = malloc((nops + 1) * sizeof *sel);
    }
    int rc = !judging || (late && exc && nl && ne && last && tl && te && sel) ? 0 : -1;
    for (size_t k = lo; k < hi && rc == 0; k++) {
        size_t op = J->group_ops[k];
        read_op(J->in, J->m, &J->ready, op, t);
        G->any_arrival |= t->narrived > 0;
        G->any_duration |= t->ntimed > 0;
        rc = add_stats(G, J->in, J->m, op, t);
        if (rc || !judging || !judged(J->groups, J->m, op, t, J->status)) continue;
        G->judged++;
        long who;
        lateness(t, tl, te, &who);
        for (uint32_t i = 0; i < t->n; i++) {
            uint32_t mb = t->member[i];
            late[mb * nops + nl[mb]++] = (float)tl[i];
            if (!isnan(te[i])) exc[mb * nops + ne[mb]++] = (float)te[i];
        }
        if (who >= 0) last[t->member[who]]++;
    }
    size_t np = 0;
    for (size_t mb = 0; judging && rc == 0 && mb < n; mb++) np += nl[mb] > 0;
    if (rc == 0 && np && !(G->pairs = malloc(np * sizeof *G->pairs))) rc = -1;
    for (size_t mb = 0; judging && rc == 0 && mb < n; mb++) {
        if (!nl[mb] || g->member_input[mb] < 0 || g->members[mb] < 0) continue;
        pair *p = &G->pairs[G->npairs++];
        *p = (pair){ gi, (uint32_t)mb, nl[mb], ne[mb], last[mb], 0, NAN, NAN, false, false };
        if (nl[mb] >= FA_STRAGGLER_MIN_JUDGED) {
            for (uint32_t i = 0; i < nl[mb]; i++) sel[i] = late[mb * nops + i];
            p->late_score = lateness_score(sel, nl[mb], J->floor_ms, &p->nlate);
        }
        if (ne[mb] >= FA_STRAGGLER_MIN_JUDGED) {
            for (uint32_t i = 0; i < ne[mb]; i++) sel[i] = exc[mb * nops + i];
            p->slow_median = fa_median(sel, ne[mb]);
        }
    }
    free(late), free(exc), free(nl), free(ne), free(last), free(tl), free(te), free(sel);
    return rc;
}

static void pass_groups(void *ctx, unsigned worker, size_t lo, size_t hi) {
    judge *J = ctx;
    for (size_t g = lo; g < hi; g++)
        if (pass_group(J, &J->t[worker], (uint32_t)g, &J->out[g]) != 0) J->out[g].failed = true;
}

/* Whether pair p was late by the floor more often than the other pairs' rate of being so makes
 * likely by chance (fa_binomial_tail below FA_STRAGGLER_ALPHA). Where a loaded machine makes
 * every rank late by tens of milliseconds at random (8 ranks on 2 cores), some rank's mean
 * lateness stands out among a few by chance; a slow rank is late far more often than the rest. */
static bool late_beyond_chance(const pair *p, uint64_t all_late, uint64_t all_judged) {
    uint64_t late = all_late - p->nlate, judged = all_judged - p->n; /* the other pairs' */
    double rate = judged ? (double)late / (double)judged : 0;
    return fa_binomial_tail(p->nlate, p->n, rate) < FA_STRAGGLER_ALPHA;
}

/* The robust test over every pair's score (late_score or slow_median): outliers above the floor,
 * and for lateness, late more often than chance. */
static int mark_outliers(pair *pairs, size_t n, bool slow, double floor_ms) {
    double *v = malloc((n + 1) * sizeof *v), *scratch = malloc((n + 1) * sizeof *scratch);
    if (!v || !scratch) {
        free(v), free(scratch);
        return -1;
    }
    size_t k = 0;
    uint64_t all_late = 0, all_judged = 0; /* over the pairs with a lateness score */
    for (size_t i = 0; i < n; i++) {
        double x = slow ? pairs[i].slow_median : pairs[i].late_score;
        if (isnan(x)) continue;
        v[k++] = x;
        all_late += pairs[i].nlate, all_judged += pairs[i].n;
    }
    if (k >= 3) {
        memcpy(scratch, v, k * sizeof *v);
        double center = fa_median(scratch, k);
        double sigma = fa_mad_sigma(v, k, center, scratch);
        for (size_t i = 0; i < n; i++) {
            double x = slow ? pairs[i].slow_median : pairs[i].late_score;
            if (isnan(x) || x - center < floor_ms || fa_robust_z(x, center, sigma) < FA_OUTLIER_Z)
                continue;
            if (slow)
                pairs[i].slow = true;
            else
                pairs[i].late = late_beyond_chance(&pairs[i], all_late, all_judged);
        }
    }
    free(v), free(scratch);
    return 0;
}

/* A straggler's numbers, pooled over the groups that named it. */
static int describe(judge *J, const pair *pairs, size_t from, size_t to, fa_straggler *s) {
    size_t cap = 0;
    for (size_t i = from; i < to; i++)
        cap += J->group_at[pairs[i].group + 1] - J->group_at[pairs[i].group];
    double *late = malloc((cap + 1) * sizeof *late), *exc = malloc((cap + 1) * sizeof *exc);
    size_t maxn = 1;
    for (size_t i = from; i < to; i++)
        if (J->groups->v[pairs[i].group].nmembers > maxn)
            maxn = J->groups->v[pairs[i].group].nmembers;
    double *tl = malloc(maxn * sizeof *tl), *te = malloc(maxn * sizeof *te);
    s->groups = malloc((to - from) * sizeof *s->groups);
    if (!late || !exc || !tl || !te || !s->groups) {
        free(late), free(exc), free(tl), free(te);
        return -1;
    }
    op_times *t = &J->t[0];
    size_t nl = 0, ne = 0;
    for (size_t i = from; i < to; i++) {
        const pair *p = &pairs[i];
        if (!p->late && !p->slow) continue;
        s->groups[s->ngroups++] = p->group;
        s->late |= p->late;
        s->slow_ops |= p->slow;
        s->last_in += p->last_in;
        for (size_t k = J->group_at[p->group]; k < J->group_at[p->group + 1]; k++) {
            size_t op = J->group_ops[k];
            read_op(J->in, J->m, &J->ready, op, t);
            if (!judged(J->groups, J->m, op, t, J->status)) continue;
            long who;
            lateness(t, tl, te, &who);
            for (uint32_t c = 0; c < t->n; c++) {
                if (t->member[c] != p->member) continue;
                late[nl++] = tl[c];
                if (!isnan(te[c])) exc[ne++] = te[c];
            }
        }
    }
    s->collectives = (uint32_t)nl;
    s->timed = (uint32_t)ne;
    s->late_ms_p90 = fa_quantile(late, nl, 0.9);
    s->late_ms_median = fa_median(late, nl);
    for (size_t i = 0; i < nl; i++)
        if (late[i] >= J->floor_ms) late[s->late_in++] = late[i];
    s->late_ms_when_late = fa_median(late, s->late_in);
    s->late_ms_typical =
        s->late_ms_median >= J->floor_ms || !s->late_in ? s->late_ms_median : s->late_ms_when_late;
    s->slow_ms_median = fa_median(exc, ne);
    double a = s->late ? s->late_ms_typical : 0,
           b = s->slow_ops && !isnan(s->slow_ms_median) ? s->slow_ms_median : 0;
    s->excess_ms = a > b ? a : b;
    free(late), free(exc), free(tl), free(te);
    return 0;
}

static int compare_pairs_by_rank(const void *a, const void *b, void *ctx) {
    const fa_groups *groups = ctx;
    const pair *x = a, *y = b;
    int64_t rx = groups->v[x->group].members[x->member],
            ry = groups->v[y->group].members[y->member];
    if (rx != ry) return rx < ry ? -1 : 1;
    return x->group < y->group ? -1 : x->group > y->group;
}

static int compare_stragglers(const void *a, const void *b) {
    const fa_straggler *x = a, *y = b;
    if (x->excess_ms != y->excess_ms) return x->excess_ms > y->excess_ms ? -1 : 1;
    return x->rank < y->rank ? -1 : x->rank > y->rank;
}

static int find_stragglers(judge *J, pair *pairs, size_t npairs, fa_perf *p) {
    int rc = mark_outliers(pairs, npairs, false, p->floor_ms);
    if (rc == 0) rc = mark_outliers(pairs, npairs, true, p->floor_ms);
    if (rc == 0 && npairs)
        qsort_r(pairs, npairs, sizeof *pairs, compare_pairs_by_rank, (void *)J->groups);
    for (size_t i = 0; i < npairs && rc == 0;) {
        int64_t rank = J->groups->v[pairs[i].group].members[pairs[i].member];
        size_t j = i;
        bool named = false, counted = false;
        while (j < npairs && J->groups->v[pairs[j].group].members[pairs[j].member] == rank) {
            named |= pairs[j].late || pairs[j].slow;
            counted |= pairs[j].n >= FA_STRAGGLER_MIN_JUDGED;
            j++;
        }
        p->ranks_judged += counted;
        if (named) {
            fa_straggler *v = realloc(p->stragglers, (p->nstragglers + 1) * sizeof *v);
            if (!v) {
                rc = -1;
                break;
            }
            p->stragglers = v;
            fa_straggler *s = &v[p->nstragglers++];
            memset(s, 0, sizeof *s);
            s->rank = rank;
            rc = describe(J, pairs, i, j, s);
        }
        i = j;
    }
    if (rc == 0 && p->nstragglers)
        qsort(p->stragglers, p->nstragglers, sizeof *p->stragglers, compare_stragglers);
    return rc;
}

/* ------------------------------------------------------------ the whole pass --------- */

static int op_times_init(op_times *t, size_t maxcalls) {
    t->arrival = malloc(maxcalls * sizeof *t->arrival);
    t->duration = malloc(maxcalls * sizeof *t->duration);
    t->member = malloc(maxcalls * sizeof *t->member);
    t->ready = malloc(maxcalls * sizeof *t->ready);
    t->scratch_d = malloc(maxcalls * sizeof *t->scratch_d);
    t->scratch_d2 = malloc(maxcalls * sizeof *t->scratch_d2);
    return t->arrival && t->ready && t->duration && t->member && t->scratch_d && t->scratch_d2 ? 0
                                                                                               : -1;
}

static void op_times_free(op_times *t) {
    free(t->arrival), free(t->ready), free(t->duration), free(t->member), free(t->scratch_d),
        free(t->scratch_d2);
}

/* Rows and pairs of every group, in group order: the result does not depend on the workers. */
static int gather(judge *J, fa_perf *p, pair **pairs, size_t *npairs) {
    size_t ng = J->groups->n, nrows = 0, np = 0;
    for (size_t g = 0; g < ng; g++) {
        if (J->out[g].failed) return -1;
        nrows += J->out[g].nrows, np += J->out[g].npairs;
        p->judged += J->out[g].judged;
        p->any_arrival |= J->out[g].any_arrival;
        p->any_duration |= J->out[g].any_duration;
    }
    *pairs = malloc((np + 1) * sizeof **pairs);
    p->stats = malloc((nrows + 1) * sizeof *p->stats);
    if (!*pairs || !p->stats) return -1;
    for (size_t g = 0; g < ng; g++) {
        group_out *G = &J->out[g];
        if (G->npairs) memcpy(*pairs + *npairs, G->pairs, G->npairs * sizeof *G->pairs);
        *npairs += G->npairs;
        for (size_t i = 0; i < G->nrows; i++) {
            finish_row(&G->rows[i], J->groups);
            p->stats[p->nstats++] = G->rows[i].row;
        }
    }
    return 0;
}

int fa_perf_build(const fa_input *in, const fa_groups *groups, const fa_match *m, fa_status status,
                  double floor_ms, int jobs, fa_perf *p) {
    memset(p, 0, sizeof *p);
    p->floor_ms = floor_ms > 0 ? floor_ms : FA_STRAGGLER_FLOOR_MS;
    size_t maxcalls = 1;
    for (size_t i = 0; i < m->nops; i++)
        if (m->ops[i].ncalls > maxcalls) maxcalls = m->ops[i].ncalls;
    unsigned nw = fa_worker_count(jobs);
    judge J = { .in = in,
                .groups = groups,
                .m = m,
                .status = status,
                .floor_ms = p->floor_ms,
                .t = calloc(nw, sizeof(op_times)),
                .out = calloc(groups->n + 1, sizeof(group_out)) };
    J.group_at = calloc(groups->n + 2, sizeof *J.group_at);
    J.group_ops = malloc((m->nops + 1) * sizeof *J.group_ops);
    int rc = J.t && J.out && J.group_at && J.group_ops ? 0 : -1;
    for (unsigned w = 0; w < nw && rc == 0; w++) rc = op_times_init(&J.t[w], maxcalls);
    if (rc == 0) rc = fa_readiness_build(in, m, (int64_t)(p->floor_ms * 1e6), &J.ready);
    /* ops bucketed by group (in op order within each), so that each group is one worker's */
    for (size_t i = 0; i < m->nops && rc == 0; i++) J.group_at[m->ops[i].group + 1]++;
    for (size_t g = 0; g < groups->n && rc == 0; g++) J.group_at[g + 1] += J.group_at[g];
    if (rc == 0) {
        size_t *fill = calloc(groups->n + 1, sizeof *fill);
        if (!fill) rc = -1;
        for (size_t i = 0; i < m->nops && rc == 0; i++)
            J.group_ops[J.group_at[m->ops[i].group] + fill[m->ops[i].group]++] = i;
        free(fill);
    }
    if (rc == 0) fa_parallel_for(groups->n, 1, nw, pass_groups, &J);
    pair *pairs = NULL;
    size_t npairs = 0;
    if (rc == 0) rc = gather(&J, p, &pairs, &npairs);
    if (rc == 0 && p->any_arrival) rc = find_stragglers(&J, pairs, npairs, p);
    free(pairs);
    for (size_t g = 0; J.out && g < groups->n; g++) {
        for (size_t i = 0; i < J.out[g].nrows; i++)
            free(J.out[g].rows[i].skew.v), free(J.out[g].rows[i].dur.v);
        free(J.out[g].rows), free(J.out[g].pairs);
    }
    for (unsigned w = 0; J.t && w < nw; w++) op_times_free(&J.t[w]);
    free(J.t), free(J.out), free(J.group_at), free(J.group_ops);
    fa_readiness_free(&J.ready);
    if (rc != 0) fa_perf_free(p);
    return rc;
}

void fa_perf_free(fa_perf *p) {
    for (size_t i = 0; i < p->nstragglers; i++) free(p->stragglers[i].groups);
    free(p->stragglers);
    free(p->stats);
    double floor_ms = p->floor_ms;
    memset(p, 0, sizeof *p);
    p->floor_ms = floor_ms;
}

/* ------------------------------------------------------------ summary ---------------- */

static void ms_text(double ms, char *buf, size_t len) {
    if (fabs(ms) >= 10)
        snprintf(buf, len, "%.0f ms", ms);
    else
        snprintf(buf, len, "%.1f ms", ms);
}

char *fa_perf_summary(const fa_perf *p) {
    if (!p->nstragglers) return NULL;
    const fa_straggler *s = &p->stragglers[0];
    char *text = NULL, late[32], slow[32];
    ms_text(s->late_ms_typical, late, sizeof late);
    ms_text(s->slow_ms_median, slow, sizeof slow);
    if (p->nstragglers == 1) {
        int rc;
        if (!s->late)
            rc = asprintf(&text,
                          "rank %lld is slow: its collectives take %s longer than its peers' "
                          "(median of %u)",
                          (long long)s->rank, slow, s->timed);
        else if (s->late_ms_typical == s->late_ms_median)
            rc = asprintf(
                &text,
                "rank %lld is slow: last to arrive in %u of %u collectives, %s late (median)",
                (long long)s->rank, s->last_in, s->collectives, late);
        else /* late once in a while, at the same place of every step */
            rc = asprintf(&text, "rank %lld is slow: %s late in %u of %u collectives (median)",
                          (long long)s->rank, late, s->late_in, s->collectives);
        return rc < 0 ? NULL : text;
    }
    int64_t *r = malloc(p->nstragglers * sizeof *r);
    if (!r) return NULL;
    for (size_t i = 0; i < p->nstragglers; i++) r[i] = p->stragglers[i].rank;
    char *list = fa_ranks_format(r, p->nstragglers);
    free(r);
    if (!list) return NULL;
    int rc = asprintf(&text, "ranks %s are slow: up to %s %s (median)", list, s->late ? late : slow,
                      s->late ? "late" : "longer per collective");
    free(list);
    return rc < 0 ? NULL : text;
}
