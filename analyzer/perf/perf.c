/* perf.c — stragglers and per-collective statistics from arrivals and durations (perf.h). */
#include "perf/perf.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "perf/held.h"
#include "perf/lateness.h"
#include "util/parallel.h"
#include "perf/perfstat.h"
#include "perf/readiness.h"
#include "util/timing.h"

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
    size_t straggler; /* once named: its index in fa_perf.stragglers */
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
    fa_late_env env;
    fa_readiness ready;
    fa_held held;
    fa_release release;
    fa_late_scratch *s; /* per worker */
    size_t *group_ops;  /* op indices sorted by group */
    size_t *group_at;   /* per group: first index into group_ops; [ngroups] = end */
    group_out *out;     /* per group */
} judge;

/* A p2p op is one transfer, whichever side's entry represents it (the receiver's where it is
 * the lower member: the ring's last hop): one row, not a "send" row and a "recv" row. */
static const char P2P_TYPE[] = "send/recv";

/* The group's row for the op's type, sizes and dtype: few per group, found by a linear look. */
static row_acc *row_for(group_out *G, const fa_store *store, const fa_match *m, const fa_op *o,
                        size_t op) {
    const fa_traits *tr = fa_entry_traits(store, fa_op_rep_entry(m, o));
    uint32_t ins = tr->in_sizes, outs = tr->out_sizes, dt = tr->in_dtypes;
    const char *type = o->is_p2p ? P2P_TYPE : fa_op_type(m, o);
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

/* The op's row: one more call, its arrival skew (on the corrected arrivals: lateness.h) and
 * its duration (the median of its members'). */
static int add_stats(group_out *G, const fa_input *in, const fa_match *m, const fa_op_times *t,
                     double *scratch) {
    const fa_op *o = &m->ops[t->op];
    if (!fa_op_rep_entry(m, o)) return 0;
    row_acc *r = row_for(G, in->store, m, o, t->op);
    if (!r) return -1;
    r->row.count++;
    if (t->narrived >= 2) {
        double lo = INFINITY, hi = -INFINITY;
        for (uint32_t i = 0; i < t->n; i++)
            if (!isnan(t->at[i])) {
                if (t->at[i] < lo) lo = t->at[i];
                if (t->at[i] > hi) hi = t->at[i];
            }
        if (dvec_add(&r->skew, hi - lo) != 0) return -1;
    }
    if (t->ntimed) {
        uint32_t k = 0;
        for (uint32_t i = 0; i < t->n; i++)
            if (!isnan(t->duration[i])) scratch[k++] = t->duration[i];
        if (dvec_add(&r->dur, fa_median(scratch, k)) != 0) return -1;
    }
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

/* How late a member is over its n judged collectives of a group, as one number: the mean of its
 * lateness where it was late by the floor or more, counting the rest as 0, provided that it was
 * late so in FA_STRAGGLER_MIN_LATE of them at least (else 0). Not the median: where a call waits
 * for its operation's end (gloo) a slow rank's peers wait for it once a step, at the first
 * collective after its delay, and are in step again for the next ones, so a rank 60 ms late at
 * one of a group's three collectives a step has a median lateness of 0 but a score of 20 ms.
 * Below the floor nothing counts, so that a healthy job's jitter adds nothing; a few late calls
 * (a pause for garbage collection) count nothing either. Where calls block (gloo), a member
 * that is never late by the floor within the others' stays (fewer than FA_STRAGGLER_MIN_LATE
 * times: they never waited for it) is not scored at all: it only seemed late, its clock reading
 * ahead, and what its arrivals would leave after that clock is not known (nothing reads the
 * offset), only bounded by the stays, which hold the peers' own work between calls too (a node
 * 2.9 s ahead, its peers 6 ms from one call to the next: seeds 4220, 7772); one that others did
 * wait for is scored in full, also where calls did not block (DDP's asynchronous bucket
 * all_reduces). Kept as running sums. */
typedef struct member_acc {
    uint32_t n, nlate, ntimed, last;
    double late_sum;
    uint32_t nwithin; /* late within the others' stays */
} member_acc;

/* Whether a member was late by the floor within the others' stay in a call that blocks
 * (lateness.h): the others waited for it. Unknown stays (NCCL, or the dump's last call) bound
 * nothing. */
static bool late_within_stay(const fa_op_times *t, uint32_t i, double floor_ms) {
    return t->late[i] >= floor_ms && !(t->late[i] > t->stay[i]); /* NaN stay: no bound */
}

/* One group's walk: its stats rows, and per member the running lateness and its excesses. */
typedef struct group_walk {
    const judge *J;
    fa_late_scratch *s;
    group_out *G;
    uint32_t n;      /* members */
    size_t nops;     /* the group's ops */
    member_acc *acc; /* per member */
    float *exc;      /* [member * nops + k]: excesses, allocated at the first timed op */
    double *scratch; /* n doubles */
} group_walk;

static int walk_visit(void *arg, const fa_op_times *t) {
    group_walk *w = arg;
    w->G->any_arrival |= t->narrived > 0;
    w->G->any_duration |= t->ntimed > 0;
    if (add_stats(w->G, w->J->env.in, w->J->env.m, t, w->scratch) != 0) return -1;
    if (!t->judged || w->n < 2) return 0;
    w->G->judged++;
    for (uint32_t i = 0; i < t->n; i++) {
        member_acc *a = &w->acc[t->member[i]];
        double floor_ms = w->J->env.floor_ms;
        if (t->late[i] >= floor_ms) a->nlate++, a->late_sum += t->late[i];
        a->nwithin += late_within_stay(t, i, floor_ms);
        a->n++;
        if (isnan(t->excess[i])) continue;
        if (!w->exc && !(w->exc = malloc(w->nops * w->n * sizeof *w->exc))) return -1;
        w->exc[(size_t)t->member[i] * w->nops + a->ntimed++] = (float)t->excess[i];
    }
    if (t->last >= 0) w->acc[t->member[t->last]].last++;
    return 0;
}

/* The group's pairs from its members' sums. */
static int make_pairs(group_walk *w, uint32_t gi) {
    const fa_group *g = &w->J->env.groups->v[gi];
    size_t np = 0;
    for (uint32_t mb = 0; mb < w->n; mb++) np += w->acc[mb].n > 0;
    if (!np) return 0;
    if (!(w->G->pairs = malloc(np * sizeof *w->G->pairs))) return -1;
    for (uint32_t mb = 0; mb < w->n; mb++) {
        const member_acc *a = &w->acc[mb];
        if (!a->n || g->member_input[mb] < 0 || g->members[mb] < 0) continue;
        pair *p = &w->G->pairs[w->G->npairs++];
        *p = (pair){ gi, mb, a->n, a->ntimed, a->last, 0, NAN, NAN, false, false, 0 };
        if (a->n >= FA_STRAGGLER_MIN_JUDGED) {
            /* late beyond the others' stays but never within them: a clock ahead of theirs */
            bool clock = a->nwithin < FA_STRAGGLER_MIN_LATE;
            p->nlate = clock ? a->nwithin : a->nlate;
            p->late_score = !clock && a->nlate >= FA_STRAGGLER_MIN_LATE ? a->late_sum / a->n : 0;
        }
        if (a->ntimed >= FA_STRAGGLER_MIN_JUDGED) {
            for (uint32_t i = 0; i < a->ntimed; i++)
                w->scratch[i] = w->exc[(size_t)mb * w->nops + i];
            p->slow_median = fa_median(w->scratch, a->ntimed);
        }
    }
    return 0;
}

/* One group's ops, once: their stats rows, and per member its lateness over the judged ones. */
static int pass_group(judge *J, fa_late_scratch *s, uint32_t gi, group_out *G) {
    const fa_group *g = &J->env.groups->v[gi];
    size_t lo = J->group_at[gi], hi = J->group_at[gi + 1];
    if (lo == hi) return 0;
    group_walk w = { J,       s,
                     G,       g->nmembers,
                     hi - lo, calloc(g->nmembers + 1, sizeof *w.acc),
                     NULL,    malloc((g->nmembers + hi - lo + 1) * sizeof *w.scratch) };
    int rc = w.acc && w.scratch ? 0 : -1;
    if (rc == 0) rc = fa_group_lateness(&J->env, s, gi, J->group_ops + lo, hi - lo, walk_visit, &w);
    if (rc == 0) rc = make_pairs(&w, gi);
    free(w.acc), free(w.exc), free(w.scratch);
    return rc;
}

static void pass_groups(void *ctx, unsigned worker, size_t lo, size_t hi) {
    judge *J = ctx;
    for (size_t g = lo; g < hi; g++)
        if (pass_group(J, &J->s[worker], (uint32_t)g, &J->out[g]) != 0) J->out[g].failed = true;
}

/* Whether pair p was late by the floor more often than the other pairs' rate of being so makes
 * likely by chance (fa_binomial_tail below FA_STRAGGLER_ALPHA). Where a loaded machine makes
 * every rank late by tens of milliseconds at random (8 ranks on 2 cores), some rank's mean
 * lateness stands out among a few by chance; a slow rank is late far more often than the rest
 * (mark_late says which pairs the rate leaves out). */
static bool late_beyond_chance(const pair *p, uint64_t base_late, uint64_t base_judged) {
    double rate = base_judged ? (double)base_late / (double)base_judged : 0;
    return fa_binomial_tail(p->nlate, p->n, rate) < FA_STRAGGLER_ALPHA;
}

typedef struct scored {
    double x;
    size_t pair;
} scored;

static int compare_scored_down(const void *a, const void *b) {
    const scored *x = a, *y = b;
    if (x->x != y->x) return x->x > y->x ? -1 : 1;
    return x->pair < y->pair ? -1 : x->pair > y->pair;
}

/* The center and spread of v[from..k): its median (the lower one of an even count, when `lower`)
 * and 1.4826 x its median absolute deviation, likewise. */
static void center_spread(const scored *v, size_t from, size_t k, bool lower, double *scratch,
                          double *center, double *sigma) {
    size_t m = k - from;
    for (size_t j = 0; j < m; j++) scratch[j] = v[from + j].x;
    *center = lower ? fa_lower_median(scratch, m) : fa_median(scratch, m);
    for (size_t j = 0; j < m; j++) scratch[j] = fabs(v[from + j].x - *center);
    *sigma = 1.4826 * (lower ? fa_lower_median(scratch, m) : fa_median(scratch, m));
}

/* Whether score x stands out of a sample with this center and spread: a straggler's score is
 * the floor or more itself (scores are already against the peers: a victim whose kernel waited
 * runs shorter, and stands above nobody), the floor above the center, FA_OUTLIER_Z spreads. */
static bool stands_out(double x, double center, double sigma, double floor_ms) {
    return x >= floor_ms && x - center >= floor_ms && fa_robust_z(x, center, sigma) >= FA_OUTLIER_Z;
}

/* How many of the top scores (v, sorted descending) are outliers. Against the whole sample
 * first (k >= 3): every score that stands out of it. Then, as Rosner's generalized ESD test
 * peels a sample, the i-th largest against the sample without the i - 1 above it, where that
 * sample is on time (its lower median under the floor): two slow ranks of four, or of three,
 * inflate the spread of the whole sample and mask each other, and in a group of two the on-time
 * rank is the only reference there is. The lower median, as delays only add: where the sample
 * splits evenly, its on-time half is the reference. Where every rank is late at random (a loaded
 * machine) no sample is on time and only the first test counts. FA_STRAGGLER_PEEL rounds; past
 * them, when every one stood out, the rest against the sample without the top ones (linear,
 * however many are late). */
static size_t count_outliers(const scored *v, size_t k, double floor_ms, double *scratch) {
    double center, sigma;
    size_t outliers = 0, i = 0;
    if (k >= 3) {
        center_spread(v, 0, k, false, scratch, &center, &sigma);
        while (outliers < k && stands_out(v[outliers].x, center, sigma, floor_ms)) outliers++;
    }
    for (; i < FA_STRAGGLER_PEEL && i + 2 <= k; i++) {
        center_spread(v, i, k, true, scratch, &center, &sigma);
        if (center < floor_ms && stands_out(v[i].x, center, sigma, floor_ms) && outliers < i + 1)
            outliers = i + 1;
    }
    if (i < FA_STRAGGLER_PEEL || outliers < i) return outliers;
    center_spread(v, i, k, true, scratch, &center, &sigma);
    while (outliers < k && center < floor_ms && stands_out(v[outliers].x, center, sigma, floor_ms))
        outliers++;
    return outliers;
}

/* Whether pair p was late consistently: in most of its judged collectives (FA_STRAGGLER_MOST_LATE
 * of them), or, when less often, by far more than the floor (FA_STRAGGLER_FAR_LATE floors on
 * average when late). Clocks that the offsets correct only roughly (nodes seconds apart, a group
 * of two: the offset and the lateness of its pair read alike) leave a healthy rank late by a
 * little over the floor in about half of its collectives, which a job of hundreds of pairs makes
 * certain somewhere (tests/sim seeds 5544, 17394, 11242, 13748, 11680, 13353: 23 ranks named
 * slow, late 5-15 ms in 38-57% of them); a slow rank is late in most, or by tens of
 * milliseconds where the ranks it holds up make it seldom the last (seed 259: 52 ms in 4 of 7). */
static bool consistently_late(const pair *p, double floor_ms) {
    if (!p->nlate) return false;
    double when_late = p->late_score * p->n / p->nlate;
    return p->nlate >= FA_STRAGGLER_MOST_LATE * p->n ||
           when_late >= FA_STRAGGLER_FAR_LATE * floor_ms;
}

/* Of the outliers (v, sorted descending, the first `outliers` of k), those late beyond chance
 * (late_beyond_chance) and consistently (consistently_late): the chance rate is every other pair's,
 * but for its own group's outliers: another member of its group that stands out, late by its own
 * cause, is no chance, whether it scored above it (two slow ranks of one group: seeds 259, 2387) or
 * below (two slow of three: the slower one's rate would count the other's lateness, seed 9800),
 * where members of other groups late alike are (a loaded machine, or clocks nothing corrects: seed
 * 7772). */
static int mark_late(pair *pairs, const scored *v, size_t k, size_t outliers, double floor_ms) {
    uint32_t ngroups = 0;
    uint64_t base_late = 0, base_judged = 0;
    for (size_t i = 0; i < k; i++) {
        const pair *p = &pairs[v[i].pair];
        base_late += p->nlate, base_judged += p->n;
        if (p->group + 1 > ngroups) ngroups = p->group + 1;
    }
    uint64_t *named = calloc(2 * (size_t)ngroups + 1, sizeof *named); /* per group: late, n */
    if (!named) return -1;
    for (size_t i = 0; i < outliers; i++) {
        const pair *p = &pairs[v[i].pair];
        uint64_t *g = &named[2 * (size_t)p->group];
        g[0] += p->nlate, g[1] += p->n;
    }
    for (size_t i = 0; i < outliers; i++) {
        pair *p = &pairs[v[i].pair];
        uint64_t *g = &named[2 * (size_t)p->group];
        p->late = late_beyond_chance(p, base_late - g[0], base_judged - g[1]) &&
                  consistently_late(p, floor_ms);
    }
    free(named);
    return 0;
}

/* The robust test over every pair's score (late_score or slow_median): outliers above the floor,
 * and for lateness, late more often than chance. */
static int mark_outliers(pair *pairs, size_t n, bool slow, double floor_ms) {
    scored *v = malloc((n + 1) * sizeof *v);
    double *scratch = malloc((n + 1) * sizeof *scratch);
    if (!v || !scratch) {
        free(v), free(scratch);
        return -1;
    }
    size_t k = 0;
    int rc = 0;
    for (size_t i = 0; i < n; i++) {
        double x = slow ? pairs[i].slow_median : pairs[i].late_score;
        if (!isnan(x)) v[k++] = (scored){ x, i };
    }
    if (k >= 2) {
        qsort(v, k, sizeof *v, compare_scored_down);
        size_t outliers = count_outliers(v, k, floor_ms, scratch);
        if (slow)
            for (size_t i = 0; i < outliers; i++) pairs[v[i].pair].slow = true;
        else
            rc = mark_late(pairs, v, k, outliers, floor_ms);
    }
    free(v), free(scratch);
    return rc;
}

/* ------------------------------------------------------------ describing ------------ */

/* A named (group, member) and the straggler it feeds: what the second walk collects. */
typedef struct named {
    uint32_t group, member;
    size_t straggler;
} named;

typedef struct pool {
    dvec late, exc;
} pool;

typedef struct collect {
    const named *v; /* this group's, ascending member */
    size_t n;
    pool *pools; /* per straggler */
} collect;

static int collect_visit(void *arg, const fa_op_times *t) {
    collect *c = arg;
    if (!t->judged) return 0;
    size_t k = 0;
    for (uint32_t i = 0; i < t->n && k < c->n; i++) { /* both ascend by member */
        while (k < c->n && c->v[k].member < t->member[i]) k++;
        if (k == c->n || c->v[k].member != t->member[i]) continue;
        pool *p = &c->pools[c->v[k].straggler];
        if (dvec_add(&p->late, t->late[i]) != 0) return -1;
        if (!isnan(t->excess[i]) && dvec_add(&p->exc, t->excess[i]) != 0) return -1;
    }
    return 0;
}

static int compare_named(const void *a, const void *b) {
    const named *x = a, *y = b;
    if (x->group != y->group) return x->group < y->group ? -1 : 1;
    return x->member < y->member ? -1 : x->member > y->member;
}

/* A straggler's numbers from its pooled lateness and excess. */
static void describe(fa_straggler *s, pool *p, double floor_ms) {
    s->collectives = (uint32_t)p->late.n;
    s->timed = (uint32_t)p->exc.n;
    double *late = p->late.v;
    size_t nl = p->late.n;
    s->late_ms_p90 = fa_quantile(late, nl, 0.9);
    s->late_ms_median = fa_median(late, nl);
    for (size_t i = 0; i < nl; i++)
        if (late[i] >= floor_ms) late[s->late_in++] = late[i];
    s->late_ms_when_late = fa_median(late, s->late_in);
    s->late_ms_typical =
        s->late_ms_median >= floor_ms || !s->late_in ? s->late_ms_median : s->late_ms_when_late;
    s->slow_ms_median = fa_median(p->exc.v, p->exc.n);
    double a = s->late ? s->late_ms_typical : 0,
           b = s->slow_ops && !isnan(s->slow_ms_median) ? s->slow_ms_median : 0;
    s->excess_ms = a > b ? a : b;
}

/* Walks once more each group that named someone, pooling the named members' lateness and
 * excess per straggler: linear in those groups' calls, however many are named. */
static int describe_all(judge *J, const pair *pairs, size_t npairs, fa_perf *p) {
    size_t nn = 0;
    for (size_t i = 0; i < npairs; i++) nn += pairs[i].late || pairs[i].slow;
    named *v = malloc((nn + 1) * sizeof *v);
    pool *pools = calloc(p->nstragglers + 1, sizeof *pools);
    int rc = v && pools ? 0 : -1;
    nn = 0;
    for (size_t i = 0; i < npairs && rc == 0; i++)
        if (pairs[i].late || pairs[i].slow)
            v[nn++] = (named){ pairs[i].group, pairs[i].member, pairs[i].straggler };
    if (rc == 0 && nn) qsort(v, nn, sizeof *v, compare_named);
    for (size_t i = 0; i < nn && rc == 0;) {
        size_t j = i;
        while (j < nn && v[j].group == v[i].group) j++;
        collect c = { v + i, j - i, pools };
        size_t lo = J->group_at[v[i].group], hi = J->group_at[v[i].group + 1];
        rc = fa_group_lateness(&J->env, &J->s[0], v[i].group, J->group_ops + lo, hi - lo,
                               collect_visit, &c);
        i = j;
    }
    for (size_t k = 0; k < p->nstragglers && rc == 0; k++)
        describe(&p->stragglers[k], &pools[k], p->floor_ms);
    for (size_t k = 0; pools && k < p->nstragglers; k++)
        free(pools[k].late.v), free(pools[k].exc.v);
    free(pools), free(v);
    return rc;
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

/* Names the ranks with a late or slow pair, most significant first. */
static int find_stragglers(judge *J, pair *pairs, size_t npairs, fa_perf *p) {
    const fa_groups *groups = J->env.groups;
    int rc = mark_outliers(pairs, npairs, false, p->floor_ms);
    if (rc == 0) rc = mark_outliers(pairs, npairs, true, p->floor_ms);
    if (rc == 0 && npairs)
        qsort_r(pairs, npairs, sizeof *pairs, compare_pairs_by_rank, (void *)groups);
    for (size_t i = 0; i < npairs && rc == 0;) {
        int64_t rank = groups->v[pairs[i].group].members[pairs[i].member];
        size_t j = i;
        bool named_any = false, counted = false;
        while (j < npairs && groups->v[pairs[j].group].members[pairs[j].member] == rank) {
            named_any |= pairs[j].late || pairs[j].slow;
            counted |= pairs[j].n >= FA_STRAGGLER_MIN_JUDGED;
            j++;
        }
        p->ranks_judged += counted;
        if (named_any) {
            fa_straggler *v = realloc(p->stragglers, (p->nstragglers + 1) * sizeof *v);
            uint32_t *gs = malloc((j - i) * sizeof *gs);
            if (!v || !gs) {
                if (v) p->stragglers = v;
                free(gs);
                rc = -1;
                break;
            }
            p->stragglers = v;
            fa_straggler *s = &v[p->nstragglers];
            memset(s, 0, sizeof *s);
            s->rank = rank;
            s->groups = gs;
            for (size_t k = i; k < j; k++) {
                if (!pairs[k].late && !pairs[k].slow) continue;
                pairs[k].straggler = p->nstragglers;
                s->groups[s->ngroups++] = pairs[k].group;
                s->late |= pairs[k].late;
                s->slow_ops |= pairs[k].slow;
                s->last_in += pairs[k].last_in;
            }
            p->nstragglers++;
        }
        i = j;
    }
    if (rc == 0) rc = describe_all(J, pairs, npairs, p);
    if (rc == 0 && p->nstragglers)
        qsort(p->stragglers, p->nstragglers, sizeof *p->stragglers, compare_stragglers);
    return rc;
}

/* ------------------------------------------------------------ the whole pass --------- */

/* Rows and pairs of every group, in group order: the result does not depend on the workers. */
static int gather(judge *J, fa_perf *p, pair **pairs, size_t *npairs) {
    size_t ng = J->env.groups->n, nrows = 0, np = 0;
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
            finish_row(&G->rows[i], J->env.groups);
            p->stats[p->nstats++] = G->rows[i].row;
        }
    }
    return 0;
}

/* The ops bucketed by group (in op order within each), so that each group is one worker's. */
static int bucket_ops(judge *J, const fa_match *m, size_t ngroups) {
    J->group_at = calloc(ngroups + 2, sizeof *J->group_at);
    J->group_ops = malloc((m->nops + 1) * sizeof *J->group_ops);
    size_t *fill = calloc(ngroups + 1, sizeof *fill);
    int rc = J->group_at && J->group_ops && fill ? 0 : -1;
    for (size_t i = 0; i < m->nops && rc == 0; i++) J->group_at[m->ops[i].group + 1]++;
    for (size_t g = 0; g < ngroups && rc == 0; g++) J->group_at[g + 1] += J->group_at[g];
    for (size_t i = 0; i < m->nops && rc == 0; i++)
        J->group_ops[J->group_at[m->ops[i].group] + fill[m->ops[i].group]++] = i;
    free(fill);
    return rc;
}

int fa_perf_build(const fa_input *in, const fa_groups *groups, const fa_match *m, fa_status status,
                  double floor_ms, int jobs, fa_perf *p) {
    memset(p, 0, sizeof *p);
    p->floor_ms = floor_ms > 0 ? floor_ms : FA_STRAGGLER_FLOOR_MS;
    uint32_t maxcalls = 1;
    for (size_t i = 0; i < m->nops; i++)
        if (m->ops[i].ncalls > maxcalls) maxcalls = m->ops[i].ncalls;
    for (size_t g = 0; g < groups->n; g++)
        if (groups->v[g].nmembers > maxcalls) maxcalls = groups->v[g].nmembers;
    unsigned nw = fa_worker_count(jobs);
    judge J = { .env = { in, groups, m, status, p->floor_ms, NULL, NULL, NULL, 0 },
                .s = calloc(nw, sizeof(fa_late_scratch)),
                .out = calloc(groups->n + 1, sizeof(group_out)) };
    J.env.ready = &J.ready;
    J.env.held = &J.held;
    J.env.release = &J.release;
    int rc = J.s && J.out ? 0 : -1;
    for (unsigned w = 0; w < nw && rc == 0; w++) rc = fa_late_scratch_init(&J.s[w], maxcalls);
    bool timing = fa_timing_wanted();
    double t = fa_clock();
    if (rc == 0) rc = fa_readiness_build(in, groups, m, (int64_t)(p->floor_ms * 1e6), &J.ready);
    if (rc == 0) rc = fa_held_build(in, m, p->floor_ms, jobs, &J.held);
    if (rc == 0) rc = fa_release_build(in, groups, m, p->floor_ms, &J.release);
    if (rc == 0) rc = fa_clock_noise(in, m, &J.env.clock_noise_ms);
    if (timing) fa_timing_note("  held", &t);
    if (rc == 0) rc = bucket_ops(&J, m, groups->n);
    if (rc == 0) fa_parallel_for(groups->n, 1, nw, pass_groups, &J);
    if (timing) fa_timing_note("  groups", &t);
    pair *pairs = NULL;
    size_t npairs = 0;
    if (rc == 0) rc = gather(&J, p, &pairs, &npairs);
    if (rc == 0 && p->any_arrival) rc = find_stragglers(&J, pairs, npairs, p);
    if (timing) fa_timing_note("  stragglers", &t);
    free(pairs);
    for (size_t g = 0; J.out && g < groups->n; g++) {
        for (size_t i = 0; i < J.out[g].nrows; i++)
            free(J.out[g].rows[i].skew.v), free(J.out[g].rows[i].dur.v);
        free(J.out[g].rows), free(J.out[g].pairs);
    }
    for (unsigned w = 0; J.s && w < nw; w++) fa_late_scratch_free(&J.s[w]);
    free(J.s), free(J.out), free(J.group_at), free(J.group_ops);
    fa_readiness_free(&J.ready);
    fa_held_free(&J.held);
    fa_release_free(&J.release);
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
