/* release.c — completions rebuilt from the arrivals along each rank's chain of launches, and per
 * call the latest one that may have released its rank before it (release.h). */
#include "perf/release.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "perf/clocks.h"
#include "perf/perfstat.h"

#define NO_CALL     UINT32_MAX
#define UNKNOWN     INT64_MAX /* a completion the arrivals do not give */
#define UNCONSTRAIN INT64_MIN /* no earlier launch holds the start back */

typedef struct chain_ctx {
    const fa_input *in;
    const fa_match *m;
    size_t *rank_at;      /* per input rank: its first slot in entry_call; [nranks] the end */
    uint32_t *entry_call; /* per entry of every rank: its call, NO_CALL none */
    uint32_t *call_op;    /* per call: its op */
    int64_t *off;         /* per input rank: its clock's offset (ns), 0 in step */
    uint32_t *dep;        /* per call: the call before it on its rank, NO_CALL none */
    int64_t *chain;       /* per call: what the rank's next launch waits for (common clock) */
    int64_t *base;        /* per call: what it waited for itself before starting */
    int64_t floor_ns;     /* a wait shorter than this held nobody */
    uint8_t *waited;      /* per call: its op completed the floor or more after it arrived */
    uint32_t *pending;    /* per op: its calls whose predecessor is not rebuilt yet */
    uint32_t *queue;      /* ops ready to rebuild */
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

/* What call ci waits for before it starts: the launch before it completed (a send/recv run: the
 * launch before the run). */
static int64_t base_of(const chain_ctx *x, uint32_t ci, bool p2p) {
    uint32_t d = x->dep[ci];
    if (d == NO_CALL) return UNCONSTRAIN;
    if (p2p && x->m->ops[x->call_op[d]].is_p2p) return x->base[d];
    return x->chain[d];
}

/* Op `op`'s completion from its members' starts, and its calls' chains; then its calls'
 * successors may be ready. */
static void rebuild_op(chain_ctx *x, size_t op) {
    const fa_match *m = x->m;
    const fa_op *o = &m->ops[op];
    int64_t done = o->unmatched || o->ncalls < 2 ? UNKNOWN : UNCONSTRAIN, least = UNKNOWN;
    int64_t last_arrival = UNCONSTRAIN;
    for (uint32_t k = 0; k < o->ncalls; k++) {
        uint32_t ci = o->first_call + k;
        const fa_call *c = &m->calls[ci];
        const fa_dump *d = dump_of(x, c);
        int64_t issue = fa_time_created(d, first_entry(m, c)),
                seen = fa_time_completed(d, last_entry(m, c));
        int64_t base = base_of(x, ci, o->is_p2p);
        x->base[ci] = base;
        if (!issue || base == UNKNOWN || c->state != FR_STATE_COMPLETED) {
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
        int64_t chain = done;
        uint32_t d = x->dep[ci];
        const fa_call *cc = &m->calls[ci];
        int64_t arrived = fa_time_created(dump_of(x, cc), first_entry(m, cc));
        x->waited[ci] =
            done != UNKNOWN && arrived && done - (arrived - x->off[cc->rank_index]) >= x->floor_ns;
        if (o->is_p2p && chain != UNKNOWN && d != NO_CALL && m->ops[x->call_op[d]].is_p2p &&
            x->chain[d] != UNKNOWN && x->chain[d] > chain)
            chain = x->chain[d]; /* the run completes with its last transfer */
        x->chain[ci] = chain;
        const fa_call *c = &m->calls[ci];
        uint32_t next = call_at(x, c->rank_index, last_entry(m, c) + 1);
        if (next != NO_CALL && x->dep[next] == ci) {
            size_t nop = x->call_op[next];
            if (--x->pending[nop] == 0) x->queue[x->qtail++] = (uint32_t)nop;
        }
    }
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
            x->pending[op] += x->dep[o->first_call + k] != NO_CALL;
        if (!x->pending[op]) x->queue[x->qtail++] = (uint32_t)op;
    }
    while (x->qhead < x->qtail) rebuild_op(x, x->queue[x->qhead++]);
}

/* Per call, the latest chain value of its rank's FA_RELEASE_LOOKBACK calls before it that is no
 * later than its arrival, on its rank's clock. */
static void releases(chain_ctx *x, int64_t *release, int64_t *start) {
    const fa_match *m = x->m;
    for (size_t ci = 0; ci < m->ncalls; ci++) {
        const fa_call *c = &m->calls[ci];
        int64_t arrival = fa_time_created(dump_of(x, c), first_entry(m, c)), best = 0;
        uint32_t d = x->dep[ci];
        for (int k = 0; k < FA_RELEASE_LOOKBACK && d != NO_CALL && arrival; k++, d = x->dep[d]) {
            if (x->chain[d] == UNKNOWN || !x->waited[d]) continue;
            int64_t at = x->chain[d] + x->off[c->rank_index];
            if (at > arrival) continue;
            /* completions come in launch order: no earlier one is later. It released the rank
             * only if the rank issued nothing more before it (a sync point): a rank that went on
             * and stays behind is behind by itself */
            const fa_call *dc = &m->calls[d];
            int64_t next = fa_time_created(dump_of(x, dc), last_entry(m, dc) + 1);
            if (next && next >= at) best = at;
            break;
        }
        release[ci] = best;
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
    chain_ctx x = { .in = in, .m = m, .floor_ns = (int64_t)(floor_ms * 1e6) };
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
        rc = x.off && x.dep && x.chain && x.base && x.pending && x.queue && x.waited &&
                     rl->release && rl->start
                 ? 0
                 : -1;
    }
    if (rc == 0) rc = rank_offsets(&x);
    if (rc == 0) {
        for (size_t ci = 0; ci < m->ncalls; ci++) {
            const fa_call *c = &m->calls[ci];
            uint32_t first = first_entry(m, c);
            x.dep[ci] = first ? call_at(&x, c->rank_index, first - 1) : NO_CALL;
        }
        rebuild_all(&x);
        releases(&x, rl->release, rl->start);
    }
    free(x.off), free(x.dep), free(x.chain), free(x.base), free(x.pending), free(x.queue),
        free(x.waited);
    free(x.rank_at), free(x.entry_call), free(x.call_op);
    if (rc) fa_release_free(rl);
    return rc;
}

void fa_release_free(fa_release *rl) {
    free(rl->release), free(rl->start);
    memset(rl, 0, sizeof *rl);
}
