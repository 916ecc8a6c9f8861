/* release.c — completions rebuilt from the arrivals along each rank's chain of launches, and per
 * call the latest one that may have released its rank before it (release.h). */
#include "perf/release.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "perf/clocks.h"
#include "perf/perfstat.h"

#define NO_CALL         UINT32_MAX
#define UNKNOWN         INT64_MAX /* a completion the arrivals do not give */
#define UNCONSTRAIN     INT64_MIN /* no earlier launch holds the start back */
#define FA_RELEASE_SKIP 4         /* entries without an op passed over to a predecessor */
#define FA_RELEASE_RUN  64        /* the longest send/recv run followed back */

typedef struct chain_ctx {
    const fa_input *in;
    const fa_match *m;
    fa_release *rl;
    size_t *rank_at;          /* per input rank: its first slot in entry_call; [nranks] the end */
    uint32_t *entry_call;     /* per entry of every rank: its call, NO_CALL none */
    uint32_t *call_op;        /* per call: its op */
    int64_t *off;             /* per input rank: its clock's offset (ns), 0 in step */
    uint32_t *dep;            /* per call: the call before it on its rank, NO_CALL none */
    int64_t *chain;           /* per call: what the rank's next launch waits for (common clock) */
    int64_t *base;            /* per call: what it waited for itself before starting */
    int64_t floor_ns;         /* a wait shorter than this held nobody */
    uint8_t *waited;          /* per call: its op completed the floor or more after it arrived */
    uint32_t *pending;        /* per op: its calls whose predecessor is not rebuilt yet */
    uint32_t *queue;          /* ops ready to rebuild */
    uint8_t *paused;          /* per call: its rank paused before it longer than its peers */
    int64_t *usual;           /* per input rank: its median step between arrivals (ns), 0 unknown */
    uint32_t *dep_at, *deps;  /* per call: the calls it waits for, deps[dep_at[c]..dep_at[c+1]) */
    uint32_t *succ_at, *succ; /* per call: the calls that wait for it, likewise */
    size_t qhead, qtail;
} chain_ctx;

static const fa_dump *dump_of(const chain_ctx *x, const fa_call *c) {
    return x->in->ranks[c->rank_index].dump;
}

static uint32_t first_entry(const fa_match *m, const fa_call *c) {
    return fa_call_entry_index(m, c, 0);
}

static uint32_t last_entry(const fa_match *m, const fa_call *c) {
    return fa_call_entry_index(m, c, fa_call_nentries(m, c) - 1);
}

/* The call owning entry e of input rank r, NO_CALL none (or past the end). */
static uint32_t call_at(const chain_ctx *x, size_t r, uint32_t e) {
    size_t slot = x->rank_at[r] + e;
    return slot < x->rank_at[r + 1] ? x->entry_call[slot] : NO_CALL;
}

/* ------------------------------------------------------------ clocks ---------------- */

/* Per rank the median of its completions' residuals against the median of each op's members,
 * where it reaches FA_CLOCK_MIN_MS (clocks.h: below it, discovery noise alone): a node's clock
 * seconds off would otherwise make its arrivals the last of every op. */
static int rank_offsets(chain_ctx *x) {
    const fa_match *m = x->m;
    size_t widest = 1, nranks = x->in->nranks;
    for (size_t op = 0; op < m->nops; op++)
        if (m->ops[op].ncalls > widest) widest = m->ops[op].ncalls;
    int64_t *tmp = malloc((widest + 1) * sizeof *tmp);
    double *resid = malloc((m->ncalls + 1) * sizeof *resid);
    size_t *count = calloc(nranks + 1, sizeof *count), *at = calloc(nranks + 2, sizeof *at);
    int rc = tmp && resid && count && at ? 0 : -1;
    for (size_t op = 0; op < m->nops && rc == 0; op++) {
        const fa_op *o = &m->ops[op];
        size_t known = 0;
        for (uint32_t k = 0; k < o->ncalls; k++) {
            const fa_call *c = &m->calls[o->first_call + k];
            int64_t done = fa_time_completed(dump_of(x, c), last_entry(m, c));
            if (done) tmp[known++] = done;
        }
        double median = known >= 2 && !o->is_p2p ? fa_median_i64(tmp, known) : NAN;
        for (uint32_t k = 0; k < o->ncalls; k++) {
            const fa_call *c = &m->calls[o->first_call + k];
            int64_t done = fa_time_completed(dump_of(x, c), last_entry(m, c));
            resid[o->first_call + k] = done && !isnan(median) ? (double)done - median : NAN;
            count[c->rank_index] += !isnan(resid[o->first_call + k]);
        }
    }
    double *byrank = rc == 0 ? malloc((m->ncalls + 1) * sizeof *byrank) : NULL;
    if (rc == 0 && !byrank) rc = -1;
    for (size_t r = 0; r < nranks && rc == 0; r++) at[r + 1] = at[r] + count[r];
    for (size_t ci = 0; ci < m->ncalls && rc == 0; ci++)
        if (!isnan(resid[ci])) byrank[at[m->calls[ci].rank_index]++] = resid[ci];
    for (size_t r = 0, lo = 0; r < nranks && rc == 0; r++) {
        double med = count[r] ? fa_median(byrank + lo, count[r]) : 0;
        x->off[r] = fabs(med) >= FA_CLOCK_MIN_MS * 1e6 ? (int64_t)med : 0;
        lo += count[r];
    }
    free(tmp), free(resid), free(count), free(at), free(byrank);
    return rc;
}

/* ------------------------------------------------------------ the chain ------------- */

/* What call ci waits for before it starts: the latest known completion among its predecessors in
 * the chain (UNCONSTRAIN none). One unknown (its op never completed everywhere, a member without
 * a dump) is passed over: the start is then a lower bound, which only makes the rank's own delay
 * seem longer (lateness.h caps by it: it clears less, never more). */
static int64_t base_of(const chain_ctx *x, uint32_t ci) {
    int64_t base = UNCONSTRAIN;
    for (uint32_t k = x->dep_at[ci]; k < x->dep_at[ci + 1]; k++) {
        int64_t c = x->chain[x->deps[k]];
        if (c != UNKNOWN && c > base) base = c;
    }
    return base;
}

/* Op `op`'s completion from its members' starts, and its calls' chains; then the calls that
 * wait for them may be ready. */
static void rebuild_op(chain_ctx *x, size_t op) {
    const fa_match *m = x->m;
    const fa_op *o = &m->ops[op];
    int64_t done = o->unmatched || o->ncalls < 2 ? UNKNOWN : UNCONSTRAIN, least = UNKNOWN;
    int64_t last_arrival = UNCONSTRAIN;
    /* a collective completes on its members together: one member's completion says that every
     * member started it, also those whose dump was taken before they noticed its end */
    bool completed = false;
    for (uint32_t k = 0; k < o->ncalls; k++)
        completed |= m->calls[o->first_call + k].state == FR_STATE_COMPLETED;
    for (uint32_t k = 0; k < o->ncalls; k++) {
        uint32_t ci = o->first_call + k;
        const fa_call *c = &m->calls[ci];
        const fa_dump *d = dump_of(x, c);
        int64_t issue = fa_time_created(d, first_entry(m, c)),
                seen = fa_time_completed(d, last_entry(m, c));
        int64_t base = base_of(x, ci);
        x->base[ci] = base;
        if (!issue || base == UNKNOWN || !completed) {
            done = UNKNOWN;
            continue;
        }
        issue -= x->off[c->rank_index];
        if (issue > last_arrival) last_arrival = issue;
        int64_t start = issue > base ? issue : base;
        if (done != UNKNOWN && start > done) done = start;
        if (seen && seen - x->off[c->rank_index] < least) least = seen - x->off[c->rank_index];
    }
    /* nobody discovered it before it happened: the chain overshoots where streams do not
     * serialize (separate communicators), never the arrivals */
    if (done != UNKNOWN && least < done) done = least > last_arrival ? least : last_arrival;
    for (uint32_t k = 0; k < o->ncalls; k++) {
        uint32_t ci = o->first_call + k;
        const fa_call *c = &m->calls[ci];
        int64_t arrived = fa_time_created(dump_of(x, c), first_entry(m, c));
        x->waited[ci] =
            done != UNKNOWN && arrived && done - (arrived - x->off[c->rank_index]) >= x->floor_ns;
        x->chain[ci] = done;
        for (uint32_t k2 = x->succ_at[ci]; k2 < x->succ_at[ci + 1]; k2++) {
            size_t nop = x->call_op[x->succ[k2]];
            if (--x->pending[nop] == 0) x->queue[x->qtail++] = (uint32_t)nop;
        }
    }
}

static bool call_is_p2p(const chain_ctx *x, uint32_t ci) {
    return x->m->ops[x->call_op[ci]].is_p2p;
}

/* Calls ci waits for, into out (at most FA_RELEASE_RUN + 1): a send/recv waits for the launch
 * before its run; a collective for the launch before it, and where that ends a send/recv run,
 * for every transfer of the run too. Returns how many. */
static uint32_t deps_of(const chain_ctx *x, uint32_t ci, uint32_t *out) {
    uint32_t n = 0, d = x->dep[ci];
    bool p2p = call_is_p2p(x, ci);
    for (int k = 0; k < FA_RELEASE_RUN && d != NO_CALL && call_is_p2p(x, d); k++, d = x->dep[d])
        if (!p2p) out[n++] = d;
    if (d != NO_CALL && !call_is_p2p(x, d)) out[n++] = d;
    return n;
}

/* Each call's predecessor on its rank: the call owning the entry before its first (entries no
 * op holds are passed over: what they waited for is unknown, not a break in the chain); the
 * calls it waits for (deps_of), and per call the calls that wait for it. */
static int link_calls(chain_ctx *x) {
    const fa_match *m = x->m;
    uint32_t tmp[FA_RELEASE_RUN + 1];
    for (size_t ci = 0; ci < m->ncalls; ci++) {
        const fa_call *c = &m->calls[ci];
        uint32_t e = first_entry(m, c), d = NO_CALL;
        for (int k = 0; k < FA_RELEASE_SKIP && e > 0 && d == NO_CALL; k++)
            d = call_at(x, c->rank_index, --e);
        x->dep[ci] = d;
    }
    x->dep_at = calloc(m->ncalls + 2, sizeof *x->dep_at);
    x->succ_at = calloc(m->ncalls + 2, sizeof *x->succ_at);
    if (!x->dep_at || !x->succ_at) return -1;
    size_t nedges = 0;
    for (size_t ci = 0; ci < m->ncalls; ci++) {
        uint32_t n = deps_of(x, (uint32_t)ci, tmp);
        x->dep_at[ci + 1] = x->dep_at[ci] + n;
        for (uint32_t k = 0; k < n; k++) x->succ_at[tmp[k] + 2]++;
        nedges += n;
    }
    x->deps = malloc((nedges + 1) * sizeof *x->deps);
    x->succ = malloc((nedges + 1) * sizeof *x->succ);
    if (!x->deps || !x->succ) return -1;
    for (size_t ci = 0; ci < m->ncalls; ci++) x->succ_at[ci + 2] += x->succ_at[ci + 1];
    for (size_t ci = 0; ci < m->ncalls; ci++) {
        uint32_t n = deps_of(x, (uint32_t)ci, tmp);
        for (uint32_t k = 0; k < n; k++) {
            x->deps[x->dep_at[ci] + k] = tmp[k];
            x->succ[x->succ_at[tmp[k] + 1]++] = (uint32_t)ci;
        }
    }
    return 0;
}

/* Kahn's order: an op is rebuilt once its calls' predecessors are. Ops left in a cycle (calls
 * matched against their ranks' order) stay unknown, and so does what follows them. */
static void rebuild_all(chain_ctx *x) {
    const fa_match *m = x->m;
    for (size_t ci = 0; ci < m->ncalls; ci++) x->chain[ci] = x->base[ci] = UNKNOWN;
    for (size_t op = 0; op < m->nops; op++) {
        const fa_op *o = &m->ops[op];
        x->pending[op] = 0;
        for (uint32_t k = 0; k < o->ncalls; k++)
            x->pending[op] += x->dep_at[o->first_call + k + 1] - x->dep_at[o->first_call + k];
        if (!x->pending[op]) x->queue[x->qtail++] = (uint32_t)op;
    }
    while (x->qhead < x->qtail) rebuild_op(x, x->queue[x->qhead++]);
}

/* The longest time call c's rank took from one arrival to its next since its release (from the
 * release to its first arrival after it, and so on to c's arrival), ms; NaN when an arrival is
 * unknown or more than FA_RELEASE_LOOKBACK entries came between. */
static float longest_step(const chain_ctx *x, const fa_call *c, uint32_t first, int64_t arrival,
                          int64_t release) {
    const fa_dump *d = dump_of(x, c);
    int64_t hi = arrival, longest = 0;
    for (int k = 0; k < FA_RELEASE_LOOKBACK; k++) {
        int64_t at = first > (uint32_t)k ? fa_time_created(d, first - 1 - (uint32_t)k) : 0;
        if (!at) return NAN;
        if (at <= release) {
            if (hi - release > longest) longest = hi - release;
            return (float)((double)longest / 1e6);
        }
        if (hi - at > longest) longest = hi - at;
        hi = at;
    }
    return NAN;
}

/* Per input rank its usual step: the median time from one arrival to its next (ns), 0 unknown. */
static int usual_steps(const chain_ctx *x, int64_t *step) {
    const fa_input *in = x->in;
    size_t widest = 1;
    for (size_t r = 0; r < in->nranks; r++)
        if (in->ranks[r].dump && in->ranks[r].dump->nentries > widest)
            widest = in->ranks[r].dump->nentries;
    int64_t *v = malloc(widest * sizeof *v);
    if (!v) return -1;
    for (size_t r = 0; r < in->nranks; r++) {
        const fa_dump *d = in->ranks[r].dump;
        size_t n = 0;
        for (uint32_t e = 1; d && e < d->nentries; e++) {
            int64_t at = fa_time_created(d, e), before = fa_time_created(d, e - 1);
            if (at && before) v[n++] = at - before;
        }
        step[r] = n ? (int64_t)fa_median_i64(v, n) : 0;
    }
    free(v);
    return 0;
}

/* The arrival of call c's rank's first entry (0 none): where nothing released the rank, its steps
 * are read from there, as far as its dump shows them (a ring's first entry, or the job's). */
static int64_t from_start(const chain_ctx *x, const fa_call *c) {
    const fa_dump *d = dump_of(x, c);
    return d->nentries ? fa_time_created(d, 0) : 0;
}

/* Per call whether its rank paused before it, from its previous arrival, by the floor longer
 * than the other members of its op did, or than its own usual step: a rank held at its bound of
 * launches in flight with its whole group (every member waited for the same slow peer) paused
 * no longer than its peers, but longer than it ever does on its own cadence. */
static int mark_pauses(chain_ctx *x) {
    const fa_match *m = x->m;
    size_t widest = 1;
    for (size_t op = 0; op < m->nops; op++)
        if (m->ops[op].ncalls > widest) widest = m->ops[op].ncalls;
    double *v = malloc(widest * sizeof *v), *others = malloc(widest * sizeof *others),
           *tmp = malloc(widest * sizeof *tmp);
    uint32_t *who = malloc(widest * sizeof *who);
    int64_t *step = x->usual = malloc((x->in->nranks + 1) * sizeof *step);
    int rc = v && others && tmp && who && step ? usual_steps(x, step) : -1;
    for (size_t op = 0; op < m->nops && rc == 0; op++) {
        const fa_op *o = &m->ops[op];
        uint32_t n = 0;
        for (uint32_t k = 0; k < o->ncalls; k++) {
            const fa_call *c = &m->calls[o->first_call + k];
            uint32_t first = first_entry(m, c);
            const fa_dump *d = dump_of(x, c);
            int64_t at = fa_time_created(d, first),
                    before = first ? fa_time_created(d, first - 1) : 0;
            x->paused[o->first_call + k] = 0;
            if (!at || !before) continue;
            int64_t usual = step[c->rank_index];
            x->paused[o->first_call + k] = usual && at - before - usual >= x->floor_ns;
            who[n] = o->first_call + k, v[n++] = (double)(at - before);
        }
        if (n < 2) continue;
        fa_median_of_others(v, n, tmp, others);
        for (uint32_t k = 0; k < n; k++)
            x->paused[who[k]] |= v[k] - others[k] >= (double)x->floor_ns;
    }
    free(v), free(others), free(tmp), free(who);
    return rc;
}

/* Whether the end `at` of a launch ending at entry `last` of input rank r held the rank at its
 * bound of launches in flight: the rank's first call after it came within the floor of it, and
 * had paused before it longer than its peers (a rank on its own cadence, behind by itself, meets
 * its peers' ends on the way without waiting for them). */
static bool held_at_bound(const chain_ctx *x, size_t r, uint32_t last, int64_t at) {
    const fa_dump *d = x->in->ranks[r].dump;
    for (uint32_t e = last + 1, k = 0; k < FA_RELEASE_LOOKBACK; e++, k++) {
        int64_t t = fa_time_created(d, e);
        if (!t) return false;
        if (t <= at) continue;
        uint32_t ci = call_at(x, r, e);
        if (t - at >= x->floor_ns) return false;
        /* a send/recv's one peer tells nothing of what its peers did; an entry no op holds
         * (its peer left no dump) is judged on its rank's own cadence alone */
        if (ci == NO_CALL) {
            int64_t before = fa_time_created(d, e - 1);
            return before && x->usual[r] && t - before - x->usual[r] >= x->floor_ns;
        }
        return x->paused[ci] || call_is_p2p(x, ci);
    }
    return false;
}

/* Per call, the latest chain value of its rank's FA_RELEASE_LOOKBACK calls before it that is no
 * later than its arrival, on its rank's clock. */
static void releases(chain_ctx *x, int64_t *release, int64_t *start) {
    const fa_match *m = x->m;
    for (size_t ci = 0; ci < m->ncalls; ci++) {
        const fa_call *c = &m->calls[ci];
        uint32_t first = first_entry(m, c);
        int64_t arrival = fa_time_created(dump_of(x, c), first), best = 0;
        uint32_t d = x->dep[ci];
        for (int k = 0; k < FA_RELEASE_LOOKBACK && d != NO_CALL && arrival; k++, d = x->dep[d]) {
            if (x->chain[d] == UNKNOWN || !x->waited[d]) continue;
            int64_t at = x->chain[d] + x->off[c->rank_index];
            if (at > arrival || at <= best) continue;
            /* it released the rank only if the rank issued nothing more before it (a sync
             * point): a rank that went on and stays behind is behind by itself */
            const fa_call *dc = &m->calls[d];
            int64_t next = fa_time_created(dump_of(x, dc), last_entry(m, dc) + 1);
            bool sync = next && next >= at;
            /* or it was held at its bound of launches in flight: its first call after that end
             * came within the floor of it, having paused longer than its peers there */
            if (sync || held_at_bound(x, c->rank_index, last_entry(m, dc), at)) best = at;
        }
        release[ci] = best;
        int64_t since = best ? best : from_start(x, c);
        x->rl->longest[ci] = since ? longest_step(x, c, first, arrival, since) : NAN;
        int64_t base = x->base[ci];
        start[ci] =
            base == UNKNOWN || !arrival ? 0
            : base == UNCONSTRAIN
                ? arrival
                : (arrival > base + x->off[c->rank_index] ? arrival : base + x->off[c->rank_index]);
    }
}

/* Per entry of every rank its call, per call its op. */
static int map_calls(chain_ctx *x) {
    const fa_input *in = x->in;
    const fa_match *m = x->m;
    x->rank_at = malloc((in->nranks + 1) * sizeof *x->rank_at);
    x->call_op = malloc((m->ncalls + 1) * sizeof *x->call_op);
    if (!x->rank_at || !x->call_op) return -1;
    size_t total = 0;
    for (size_t r = 0; r < in->nranks; r++) {
        x->rank_at[r] = total;
        total += in->ranks[r].dump ? in->ranks[r].dump->nentries : 0;
    }
    x->rank_at[in->nranks] = total;
    if (!(x->entry_call = malloc((total + 1) * sizeof *x->entry_call))) return -1;
    memset(x->entry_call, 0xff, (total + 1) * sizeof *x->entry_call); /* NO_CALL */
    for (size_t op = 0; op < m->nops; op++)
        for (uint32_t k = 0; k < m->ops[op].ncalls; k++) x->call_op[m->ops[op].first_call + k] = op;
    for (size_t ci = 0; ci < m->ncalls; ci++) {
        const fa_call *c = &m->calls[ci];
        for (uint32_t e = 0; e < fa_call_nentries(m, c); e++)
            x->entry_call[x->rank_at[c->rank_index] + fa_call_entry_index(m, c, e)] = (uint32_t)ci;
    }
    return 0;
}

int fa_release_build(const fa_input *in, const fa_match *m, double floor_ms, fa_release *rl) {
    memset(rl, 0, sizeof *rl);
    chain_ctx x = { .in = in, .m = m, .rl = rl, .floor_ns = (int64_t)(floor_ms * 1e6) };
    int rc = map_calls(&x);
    if (rc == 0) {
        x.off = calloc(in->nranks + 1, sizeof *x.off);
        x.dep = malloc((m->ncalls + 1) * sizeof *x.dep);
        x.chain = malloc((m->ncalls + 1) * sizeof *x.chain);
        x.base = malloc((m->ncalls + 1) * sizeof *x.base);
        x.pending = malloc((m->nops + 1) * sizeof *x.pending);
        x.queue = malloc((m->nops + 1) * sizeof *x.queue);
        x.waited = calloc(m->ncalls + 1, 1);
        rl->release = malloc((m->ncalls + 1) * sizeof *rl->release);
        rl->start = malloc((m->ncalls + 1) * sizeof *rl->start);
        x.paused = calloc(m->ncalls + 1, 1);
        rl->longest = malloc((m->ncalls + 1) * sizeof *rl->longest);
        rc = x.off && x.dep && x.chain && x.base && x.pending && x.queue && x.waited &&
                     rl->release && rl->start && x.paused && rl->longest
                 ? 0
                 : -1;
    }
    if (rc == 0) rc = rank_offsets(&x);
    if (rc == 0) {
        rc = link_calls(&x);
    }
    if (rc == 0) rc = mark_pauses(&x);
    if (rc == 0) {
        rebuild_all(&x);
        releases(&x, rl->release, rl->start);
    }
    free(x.off), free(x.dep), free(x.chain), free(x.base), free(x.pending), free(x.queue),
        free(x.waited), free(x.succ_at), free(x.succ), free(x.dep_at), free(x.deps), free(x.paused),
        free(x.usual);
    free(x.rank_at), free(x.entry_call), free(x.call_op);
    if (rc) fa_release_free(rl);
    return rc;
}

void fa_release_free(fa_release *rl) {
    free(rl->release), free(rl->start), free(rl->longest);
    memset(rl, 0, sizeof *rl);
}
