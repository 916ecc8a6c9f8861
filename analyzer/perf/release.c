/* release.c — completions rebuilt from the arrivals along each rank's chain of launches, and per
 * call the latest one that may have released its rank before it (release.h). */
#include "perf/release.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "perf/clocks.h"
#include "perf/rank_clocks.h"
#include "perf/perfstat.h"

#define NO_CALL         UINT32_MAX
#define UNKNOWN         INT64_MAX /* a completion the arrivals do not give */
#define UNCONSTRAIN     INT64_MIN /* no earlier launch holds the start back */
#define FA_RELEASE_SKIP 4         /* entries without an op passed over to a predecessor */
#define FA_RELEASE_RUN  64        /* the longest send/recv run followed back */
#define WAITED_LONG     1         /* x->waited: by the floor or more (waited_for_peer) */
#define WAITED_SHORT    2         /* less, for a peer that started after it */

/* Per op, its members' steps from its rebuilt end to their next call (peers_lead): how many
 * (-1 not read yet), their lower median, and the two values about it. */
typedef struct op_lead {
    int64_t all, lo, hi;
    int32_t n;
} op_lead;

typedef struct chain_ctx {
    const fa_input *in;
    const fa_groups *groups;
    const fa_match *m;
    fa_release *rl;
    size_t *rank_at;         /* per input rank: its first slot in entry_call; [nranks] the end */
    uint32_t *entry_call;    /* per entry of every rank: its call, NO_CALL none */
    uint32_t *call_op;       /* per call: its op */
    int64_t *off;            /* per input rank: its clock's offset (ns), 0 in step */
    uint32_t *dep;           /* per call: the call before it on its rank, NO_CALL none */
    int64_t *chain;          /* per call: what the rank's next launch waits for (common clock) */
    int64_t *base;           /* per call: what it waited for itself before starting */
    int64_t *open;           /* per call: the latest its op may have completed, where its end is
                              * known only to lie in a span (release.h): a member's arrival
                              * unknown or corrected (common clock); UNKNOWN elsewhere */
    int64_t *in_order;       /* per call: its chain where every launch waits for the one before
                              * it on its rank, send/recv runs too (in_order_ends) */
    int64_t *in_order_base;  /* per call: what it waited for before starting, likewise */
    bool ordered;            /* linking: a send/recv waits for the call before it, whatever it is */
    int64_t floor_ns;        /* a wait shorter than this held nobody */
    int64_t noise_ns;        /* the job's discovery noise: by how much an offset may miss */
    uint8_t *waited;         /* per call: its rank waited there for a peer (waited_for_peer) */
    uint8_t *behind;         /* per call: it came the floor or more after the lower median of
                              * its op's arrivals known (it was late itself there) */
    double *scratch;         /* an op's arrivals (the widest op's calls) */
    uint32_t *pending;       /* per op: its calls whose predecessor is not rebuilt yet */
    uint32_t *queue;         /* ops ready to rebuild */
    uint8_t *paused;         /* per call: its rank paused before it longer than its peers */
    op_lead *lead;           /* per op: peers_lead's steps */
    int64_t *usual;          /* per input rank: its median step between arrivals (ns), 0 unknown */
    uint32_t *dep_at, *deps; /* per call: the calls it waits for, deps[dep_at[c]..dep_at[c+1]) */
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

/* Whether op o lacks a member's call: a member without a dump (or whose dump holds nothing of
 * it), or a send/recv's other side. */
static bool missing_member(const chain_ctx *x, const fa_op *o) {
    if (o->is_p2p) return o->unmatched || o->ncalls < 2;
    return o->ncalls < x->groups->v[o->group].nmembers;
}

/* Marks the calls of op o that came the floor or more after the lower median of its known
 * arrivals (its members' clocks corrected, and then by what they may miss besides): late there
 * themselves. */
static void mark_behind(chain_ctx *x, const fa_op *o) {
    const fa_match *m = x->m;
    uint32_t n = 0;
    bool corrected = false;
    for (uint32_t k = 0; k < o->ncalls; k++) {
        const fa_call *c = &m->calls[o->first_call + k];
        int64_t t = fa_time_created(dump_of(x, c), first_entry(m, c));
        if (t) x->scratch[n++] = (double)(t - x->off[c->rank_index]);
        corrected |= x->off[c->rank_index] != 0;
    }
    double median = n ? fa_lower_median(x->scratch, n) : 0;
    /* corrected clocks may miss by the discovery noise, each way */
    double by = (double)x->floor_ns + (corrected ? 2.0 * (double)x->noise_ns : 0);
    for (uint32_t k = 0; k < o->ncalls; k++) {
        const fa_call *c = &m->calls[o->first_call + k];
        int64_t t = fa_time_created(dump_of(x, c), first_entry(m, c));
        x->behind[o->first_call + k] =
            n >= 2 && t && (double)(t - x->off[c->rank_index]) - median >= by;
    }
}

/* Whether call ci's rank waited at its op, which ended at `done` (common clock), for a peer: the
 * end came the floor or more after the rank arrived; or, where calls return at once (NCCL),
 * after the rank's own start there at all, however short the wait (a rank held 4 ms at a sync
 * point, then 4 ms on its own, is 8 ms late to its next group, and only 4 are its own: seeds
 * 2178, 4346, 7332, 8159, 10373, 10826). The last member to start, the end's own, waited for
 * nobody: a slow rank, last everywhere, is never released by its own arrivals (t0600). Where
 * calls block (gloo) only a wait by the floor counts: nothing corrects gloo's clocks, and a rank
 * whose clock reads ahead, seemingly last everywhere, would be released at its peers' ends that
 * read after its arrivals (test_perf_gloo_clock). */
static uint8_t waited_for_peer(const chain_ctx *x, uint32_t ci, int64_t done) {
    const fa_call *c = &x->m->calls[ci];
    const fa_dump *d = dump_of(x, c);
    int64_t arrived = fa_time_created(d, first_entry(x->m, c));
    if (!arrived) return 0;
    int64_t came = arrived - x->off[c->rank_index], waited = done - came;
    if (waited >= x->floor_ns) return WAITED_LONG;
    int64_t miss = x->off[c->rank_index] ? x->noise_ns : 0, start = came - miss;
    if (x->base[ci] != UNKNOWN && x->base[ci] != UNCONSTRAIN && x->base[ci] > start)
        start = x->base[ci];
    return !d->blocks_caller && waited >= 0 && done > start ? WAITED_SHORT : 0;
}

/* Op `op`'s completion from its members' starts, and its calls' chains; then the calls that
 * wait for them may be ready. */
static void rebuild_op(chain_ctx *x, size_t op) {
    const fa_match *m = x->m;
    const fa_op *o = &m->ops[op];
    int64_t done = o->unmatched || o->ncalls < 2 ? UNKNOWN : UNCONSTRAIN, least = UNKNOWN;
    int64_t last_arrival = UNCONSTRAIN, latest = UNCONSTRAIN;
    bool corrected = false; /* a member's clock was */
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
        /* a corrected clock is known only up to the discovery noise: its earliest reading for
         * the end, its latest for how late the end may be */
        int64_t miss = x->off[c->rank_index] ? x->noise_ns : 0;
        issue -= x->off[c->rank_index] + miss;
        if (issue > last_arrival) last_arrival = issue;
        int64_t start = issue > base ? issue : base;
        if (start + 2 * miss > latest) latest = start + 2 * miss;
        corrected |= miss != 0;
        if (done != UNKNOWN && start > done) done = start;
        if (seen && seen - x->off[c->rank_index] < least) least = seen - x->off[c->rank_index];
    }
    /* nobody discovered it before it happened: the chain overshoots where streams do not
     * serialize (separate communicators), never the arrivals */
    if (done != UNKNOWN && least < done) done = least > last_arrival ? least : last_arrival;
    /* a member whose arrival is unknown may have come last: the end is known only to lie
     * between the arrivals' and its first discovery */
    int64_t open = completed && least != UNKNOWN && missing_member(x, o) ? least : UNKNOWN;
    /* likewise where a member's clock was corrected: it may have come as late as it reads */
    if (open == UNKNOWN && corrected && done != UNKNOWN && latest > done) open = latest;
    if (!x->ordered) mark_behind(x, o); /* the second rebuild keeps only its ends */
    for (uint32_t k = 0; k < o->ncalls; k++) {
        uint32_t ci = o->first_call + k;
        x->waited[ci] = done != UNKNOWN ? waited_for_peer(x, ci, done) : 0;
        x->chain[ci] = done;
        x->open[ci] = open;
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
    if (x->ordered) {
        if (d != NO_CALL) out[n++] = d;
        return n;
    }
    bool p2p = call_is_p2p(x, ci);
    for (int k = 0; k < FA_RELEASE_RUN && d != NO_CALL && call_is_p2p(x, d); k++, d = x->dep[d])
        if (!p2p) out[n++] = d;
    if (d != NO_CALL && !call_is_p2p(x, d)) out[n++] = d;
    return n;
}

/* Each call's predecessor on its rank: the call owning the entry before its first (entries no
 * op holds are passed over: what they waited for is unknown, not a break in the chain). */
static void link_preds(chain_ctx *x) {
    const fa_match *m = x->m;
    for (size_t ci = 0; ci < m->ncalls; ci++) {
        const fa_call *c = &m->calls[ci];
        uint32_t e = first_entry(m, c), d = NO_CALL;
        for (int k = 0; k < FA_RELEASE_SKIP && e > 0 && d == NO_CALL; k++)
            d = call_at(x, c->rank_index, --e);
        x->dep[ci] = d;
    }
}

/* The calls each call waits for (deps_of, from link_preds' predecessors), and per call the calls
 * that wait for it. */
static int link_calls(chain_ctx *x) {
    const fa_match *m = x->m;
    uint32_t tmp[FA_RELEASE_RUN + 1];
    free(x->dep_at), free(x->succ_at), free(x->deps), free(x->succ);
    x->deps = x->succ = NULL;
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
    for (size_t ci = 0; ci < m->ncalls; ci++) x->chain[ci] = x->base[ci] = x->open[ci] = UNKNOWN;
    x->qhead = x->qtail = 0;
    for (size_t op = 0; op < m->nops; op++) {
        const fa_op *o = &m->ops[op];
        x->pending[op] = 0;
        for (uint32_t k = 0; k < o->ncalls; k++)
            x->pending[op] += x->dep_at[o->first_call + k + 1] - x->dep_at[o->first_call + k];
        if (!x->pending[op]) x->queue[x->qtail++] = (uint32_t)op;
    }
    while (x->qhead < x->qtail) rebuild_op(x, x->queue[x->qhead++]);
}

/* The chain rebuilt as if every launch of a rank waited for the one before it, the transfers of
 * a send/recv run too, as on one stream, or where each uses what the one before received (a
 * pipeline stage forwards what it got): into x->in_order. Which holds the dumps do not say, so
 * an op's end lies between the two rebuilds (release_at): a rank whose transfer's peer was itself
 * held further up a pipeline may have waited for it. Where that order makes a cycle (a ring's
 * transfers) the ops in it stay unknown, and nothing is added. */
static int in_order_ends(chain_ctx *x) {
    x->ordered = true;
    int rc = link_calls(x);
    if (rc == 0) {
        rebuild_all(x);
        memcpy(x->in_order, x->chain, x->m->ncalls * sizeof *x->chain);
        memcpy(x->in_order_base, x->base, x->m->ncalls * sizeof *x->base);
    }
    x->ordered = false;
    return rc;
}

/* The longest time call c's rank took from one arrival to its next since its release (from the
 * release to its first arrival after it, and so on to c's arrival), ms; NaN when an arrival is
 * unknown or more than FA_RELEASE_LOOKBACK entries came between. */
static float longest_step(const chain_ctx *x, const fa_call *c, uint32_t first, int64_t arrival,
                          int64_t release, int64_t lead) {
    const fa_dump *d = dump_of(x, c);
    int64_t hi = arrival, longest = 0;
    for (int k = 0; k < FA_RELEASE_LOOKBACK; k++) {
        int64_t at = first > (uint32_t)k ? fa_time_created(d, first - 1 - (uint32_t)k) : 0;
        if (!at) return NAN;
        if (at <= release) {
            if (hi - release - lead > longest) longest = hi - release - lead;
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

/* Whether entry e of input rank r paused before it, as held_at_bound asks of the first call after
 * an end: longer than its peers, or a send/recv (its one peer tells nothing of what its peers
 * did), or, no op holding it (its peer left no dump), longer than its rank's usual step. */
static bool paused_entry(const chain_ctx *x, size_t r, uint32_t e) {
    uint32_t ci = call_at(x, r, e);
    if (ci != NO_CALL) return x->paused[ci] || call_is_p2p(x, ci);
    const fa_dump *d = x->in->ranks[r].dump;
    int64_t t = fa_time_created(d, e), before = e ? fa_time_created(d, e - 1) : 0;
    return before && x->usual[r] && t - before - x->usual[r] >= x->floor_ns;
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
        if (t - at >= x->floor_ns) return false;
        return paused_entry(x, r, e);
    }
    return false;
}

/* Whether an end of call d at `at` (on its rank's clock) released its rank, given its next
 * arrival after d: the rank issued nothing more before it (a sync point; a rank that went on
 * and stays behind is behind by itself), or it was held at its bound of launches in flight (its
 * first call after that end came within the floor of it, having paused longer than its peers
 * there). Returns at, or 0 where it did not, or came after `arrival`. */
static int64_t released_at(const chain_ctx *x, uint32_t d, int64_t at, int64_t arrival) {
    const fa_call *dc = &x->m->calls[d];
    if (at <= 0 || at > arrival) return 0;
    int64_t next = fa_time_created(dump_of(x, dc), last_entry(x->m, dc) + 1);
    bool sync = next && next >= at;
    return sync || held_at_bound(x, dc->rank_index, last_entry(x->m, dc), at) ? at : 0;
}

/* Where its rank waited at call d for a peer below the floor (waited_for_peer), whether the end
 * `at` released it: only where the rank went on at once, its next entry within the floor after
 * it. A short wait is within the jitter: a rank whose next call came later was as likely busy on
 * its own, its CPU ahead, as blocked there (a slow node's two ranks wait for each other by their
 * jitter and issue their next call a slot later: t0600, nccl_slow_node). Returns at or 0. */
static int64_t went_on_at(const chain_ctx *x, uint32_t d, int64_t at, int64_t arrival) {
    const fa_call *dc = &x->m->calls[d];
    if (at <= 0 || at > arrival) return 0;
    int64_t next = fa_time_created(dump_of(x, dc), last_entry(x->m, dc) + 1);
    return next && next >= at && next - at < x->floor_ns ? at : 0;
}

#define FA_RELEASE_PAUSES 16 /* entries before a call looked at for a pause that ended a span */

/* Where a launch of input rank r ending at its entry `last`, which the rank reached at `came`,
 * is known only to have ended within [lo, hi] (release.h), the latest moment in it, before the
 * rank's entry `first` at `arrival`, that may have released the rank (0 none): just before a
 * later entry that paused as at its bound of launches (the latest such); its next arrival after
 * the launch, where that came within the span (it went on at the end); the span's end (or the
 * arrival), where that released it as a known end would. Only where the rank came the floor or
 * more before the span's end: it may have waited there. */
static int64_t open_release(const chain_ctx *x, size_t r, uint32_t last, int64_t came, int64_t lo,
                            int64_t hi, uint32_t first, int64_t arrival) {
    if (!came || hi - came < x->floor_ns) return 0;
    const fa_dump *d = x->in->ranks[r].dump;
    int64_t cap = hi < arrival ? hi : arrival, best = 0;
    for (uint32_t e = first, k = 0; e > last && k < FA_RELEASE_PAUSES; e--, k++) {
        int64_t t = fa_time_created(d, e);
        if (!t || t - 1 < lo) break;
        if (t - 1 > cap) continue;
        if (paused_entry(x, r, e)) {
            best = t - 1;
            break;
        }
    }
    int64_t next = fa_time_created(d, last + 1);
    if (next && next >= lo && next <= cap && next > best) best = next; /* went on at the end */
    if (cap >= lo && cap > best && ((next && next >= cap) || held_at_bound(x, r, last, cap)))
        best = cap;
    return best;
}

/* The latest time no later than `arrival` (its rank's clock) at which call d's end may have
 * released its rank, before its entry `first`, 0 none: its rebuilt end, where the rank waited in
 * it; where that end is known only to lie in a span (release.h), open_release's. */
static int64_t release_at(const chain_ctx *x, uint32_t d, uint32_t first, int64_t arrival) {
    const fa_call *dc = &x->m->calls[d];
    int64_t off = x->off[dc->rank_index], best = 0;
    bool known = x->chain[d] != UNKNOWN;
    if (known && x->waited[d] == WAITED_LONG) best = released_at(x, d, x->chain[d] + off, arrival);
    if (known && x->waited[d] == WAITED_SHORT) best = went_on_at(x, d, x->chain[d] + off, arrival);
    /* the end as late as the launches in order make it: a span too (in_order_ends) */
    int64_t hi = x->open[d];
    if (hi == UNKNOWN && known && x->in_order[d] != UNKNOWN && x->in_order[d] > x->chain[d])
        hi = x->in_order[d];
    /* a rank late there itself is not taken as waiting for an unknown member */
    if (hi == UNKNOWN || x->behind[d]) return best;
    int64_t came = fa_time_created(dump_of(x, dc), first_entry(x->m, dc));
    int64_t open = open_release(x, dc->rank_index, last_entry(x->m, dc), came,
                                known ? x->chain[d] + off : came, hi + off, first, arrival);
    return open > best ? open : best;
}

/* Whether entry e of input rank r, which no op holds, is a send/recv or ends a batch of them
 * (its end marker): a transfer whose peer left no dump. */
static bool orphan_transfer(const chain_ctx *x, size_t r, uint32_t e) {
    const fa_dump *d = x->in->ranks[r].dump;
    if (fa_entry_traits(d->store, &d->entries[e])->is_p2p) return true;
    return e > 0 && call_at(x, r, e - 1) == NO_CALL &&
           fa_entry_traits(d->store, &d->entries[e - 1])->is_p2p;
}

/* The latest moment an entry no op holds before entry `first` of input rank r (a send/recv whose
 * peer left no dump) may have released the rank, 0 none: its end is known only to lie between
 * its arrival and its discovery. */
static int64_t orphan_release(const chain_ctx *x, size_t r, uint32_t first, int64_t arrival) {
    const fa_dump *d = x->in->ranks[r].dump;
    int64_t best = 0;
    for (uint32_t e = first, k = 0; e-- > 0 && k < FA_RELEASE_LOOKBACK; k++) {
        if (call_at(x, r, e) != NO_CALL || !orphan_transfer(x, r, e)) continue;
        int64_t came = fa_time_created(d, e), done = fa_time_completed(d, e);
        if (!came || !done) continue;
        int64_t at = open_release(x, r, e, came, came, done, first, arrival);
        if (at > best) best = at;
    }
    return best;
}

/* How long the other members of call d's op, held there until its rebuilt end (their next call
 * came after it), took from that end to their next call: the lower median, 0 unknown (none such,
 * or a member's clock corrected, which may miss by the noise). Released by the same end, a rank
 * that took longer than they did to its next call by less than the floor paused no more than
 * jitter (seeds 7332, 8159: 3.8 ms more than its peers, 7.5 ms in all); longest_step counts the
 * step from the release less this lead. Each op's steps are sorted once (x->lead): the lower
 * median of all but one member's is the next one up where that member's is at or below the
 * middle, else the middle one. Only members that waited there for a peer (x->waited) count. */
static int64_t step_after(const chain_ctx *x, uint32_t ci, int64_t end) {
    const fa_call *c = &x->m->calls[ci];
    int64_t next = fa_time_created(dump_of(x, c), last_entry(x->m, c) + 1);
    /* only a member that waited there for a peer: the last to start, the end's own, went on
     * at its own pace (a slow member's step is its slowness: seed 4694) */
    return x->waited[ci] && next && next >= end ? next - end : -1;
}

static int cmp_double(const void *a, const void *b) {
    double u = *(const double *)a, v = *(const double *)b;
    return (u > v) - (u < v);
}

static int64_t peers_lead(chain_ctx *x, uint32_t d) {
    const fa_op *o = &x->m->ops[x->call_op[d]];
    op_lead *l = &x->lead[x->call_op[d]];
    int64_t end = x->chain[d];
    if (l->n < 0) {
        uint32_t n = 0;
        for (uint32_t k = 0; k < o->ncalls; k++) {
            int64_t step = step_after(x, o->first_call + k, end);
            if (step >= 0) x->scratch[n++] = (double)step;
        }
        for (uint32_t k = 0; k < o->ncalls; k++)
            if (x->off[x->m->calls[o->first_call + k].rank_index]) n = 0;
        qsort(x->scratch, n, sizeof *x->scratch, cmp_double);
        l->n = (int32_t)n;
        l->all = n ? (int64_t)x->scratch[(n - 1) / 2] : 0;
        l->lo = n >= 2 ? (int64_t)x->scratch[(n - 2) / 2] : 0;
        l->hi = n >= 2 ? (int64_t)x->scratch[(n - 2) / 2 + 1] : 0;
    }
    int64_t own = step_after(x, d, end);
    if (own < 0) return l->all;
    return l->n < 2 ? 0 : own <= l->lo ? l->hi : l->lo;
}

/* When call c, issued at `arrival`, started on the device after what it waited for (`base`,
 * common clock), on its rank's clock; 0 unknown. */
static int64_t start_after(const chain_ctx *x, const fa_call *c, int64_t arrival, int64_t base) {
    if (base == UNKNOWN || !arrival) return 0;
    if (base == UNCONSTRAIN) return arrival;
    int64_t at = base + x->off[c->rank_index];
    return arrival > at ? arrival : at;
}

/* Where the rank waited in its earlier call d for a peer below the floor (WAITED_SHORT), the
 * call's rebuilt end where that may have held it as a known end releases (released_at: a sync
 * point, or its bound of launches in flight: its first call after the end came within the floor
 * of it, having paused before that call longer than its peers or its usual step), 0 otherwise.
 * went_on_at releases on a short wait only where the rank's very next entry followed the end; a
 * rank that issued another call before the end and paused into it (held at its bound) shows the
 * same hold. Only `longest` counts from it (steps since, all below the floor: jitter), not the
 * cap by the time since: a short wait is within the jitter. */
static int64_t short_wait_end(const chain_ctx *x, uint32_t d, int64_t arrival) {
    if (x->chain[d] == UNKNOWN || x->waited[d] != WAITED_SHORT) return 0;
    return released_at(x, d, x->chain[d] + x->off[x->m->calls[d].rank_index], arrival);
}

/* Per call, the latest chain value of its rank's FA_RELEASE_LOOKBACK calls before it that is no
 * later than its arrival, on its rank's clock. */
static void releases(chain_ctx *x, int64_t *release, int64_t *start, int64_t *start_in_order) {
    const fa_match *m = x->m;
    for (size_t ci = 0; ci < m->ncalls; ci++) {
        const fa_call *c = &m->calls[ci];
        uint32_t first = first_entry(m, c);
        int64_t arrival = fa_time_created(dump_of(x, c), first), best = 0, waited = 0;
        uint32_t d = x->dep[ci], by = NO_CALL; /* the call whose known end released it */
        for (int k = 0; k < FA_RELEASE_LOOKBACK && d != NO_CALL && arrival; k++, d = x->dep[d]) {
            int64_t at = release_at(x, d, first, arrival);
            if (at > best)
                best = at, by = x->chain[d] != UNKNOWN && at == x->chain[d] + x->off[c->rank_index]
                                    ? d
                                    : NO_CALL;
            int64_t end = short_wait_end(x, d, arrival);
            if (end > waited) waited = end;
        }
        if (arrival) {
            int64_t at = orphan_release(x, c->rank_index, first, arrival);
            if (at > best) best = at, by = NO_CALL;
        }
        release[ci] = best;
        int64_t since = best ? best : from_start(x, c);
        int64_t lead = by != NO_CALL ? peers_lead(x, by) : 0;
        float longest = since ? longest_step(x, c, first, arrival, since, lead) : NAN;
        /* and from a later end that held it after a short wait: each bounds its own delay */
        if (waited > since) {
            float from_wait = longest_step(x, c, first, arrival, waited, 0);
            if (isnan(longest) || from_wait < longest) longest = from_wait;
        }
        x->rl->longest[ci] = longest;
        start[ci] = start_after(x, c, arrival, x->base[ci]);
        start_in_order[ci] = start_after(x, c, arrival, x->in_order_base[ci]);
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

int fa_release_build(const fa_input *in, const fa_groups *groups, const fa_match *m,
                     double floor_ms, fa_release *rl) {
    memset(rl, 0, sizeof *rl);
    chain_ctx x = {
        .in = in, .groups = groups, .m = m, .rl = rl, .floor_ns = (int64_t)(floor_ms * 1e6)
    };
    int rc = map_calls(&x);
    if (rc == 0) {
        x.off = calloc(in->nranks + 1, sizeof *x.off);
        x.dep = malloc((m->ncalls + 1) * sizeof *x.dep);
        x.chain = malloc((m->ncalls + 1) * sizeof *x.chain);
        x.base = malloc((m->ncalls + 1) * sizeof *x.base);
        x.open = malloc((m->ncalls + 1) * sizeof *x.open);
        x.in_order = malloc((m->ncalls + 1) * sizeof *x.in_order);
        x.in_order_base = malloc((m->ncalls + 1) * sizeof *x.in_order_base);
        rl->start_in_order = malloc((m->ncalls + 1) * sizeof *rl->start_in_order);
        x.pending = malloc((m->nops + 1) * sizeof *x.pending);
        x.queue = malloc((m->nops + 1) * sizeof *x.queue);
        x.waited = calloc(m->ncalls + 1, 1);
        x.behind = calloc(m->ncalls + 1, 1);
        size_t widest = 1;
        for (size_t op = 0; op < m->nops; op++)
            if (m->ops[op].ncalls > widest) widest = m->ops[op].ncalls;
        x.scratch = malloc((widest + 1) * sizeof *x.scratch);
        rl->release = malloc((m->ncalls + 1) * sizeof *rl->release);
        rl->start = malloc((m->ncalls + 1) * sizeof *rl->start);
        x.paused = calloc(m->ncalls + 1, 1);
        x.lead = malloc((m->nops + 1) * sizeof *x.lead);
        for (size_t op = 0; x.lead && op < m->nops; op++) x.lead[op].n = -1;
        rl->longest = malloc((m->ncalls + 1) * sizeof *rl->longest);
        rc = x.off && x.dep && x.chain && x.base && x.open && x.in_order && x.in_order_base &&
                     rl->start_in_order && x.pending && x.queue && x.waited && x.behind &&
                     x.scratch && rl->release && rl->start && x.paused && x.lead && rl->longest
                 ? 0
                 : -1;
    }
    double noise_ms = 0;
    if (rc == 0) rc = fa_clock_noise(in, m, &noise_ms);
    x.noise_ns = (int64_t)(noise_ms * 1e6);
    if (rc == 0) rc = fa_rank_offsets(in, groups, m, x.off);
    if (rc == 0) rc = mark_pauses(&x);
    if (rc == 0) link_preds(&x);
    /* the orders differ only where a call follows a send/recv (deps_of) */
    bool same = true;
    for (size_t ci = 0; rc == 0 && ci < m->ncalls && same; ci++)
        same = x.dep[ci] == NO_CALL || !call_is_p2p(&x, x.dep[ci]);
    if (rc == 0 && !same) rc = in_order_ends(&x);
    if (rc == 0) rc = link_calls(&x);
    if (rc == 0) {
        rebuild_all(&x);
        if (same) { /* no send/recv run: both orders are one */
            memcpy(x.in_order, x.chain, m->ncalls * sizeof *x.chain);
            memcpy(x.in_order_base, x.base, m->ncalls * sizeof *x.base);
        }
        releases(&x, rl->release, rl->start, rl->start_in_order);
        rl->offset = x.off; /* lateness.h reads them too */
        x.off = NULL;
    }
    free(x.behind), free(x.scratch);
    free(x.off), free(x.dep), free(x.chain), free(x.base), free(x.open), free(x.in_order),
        free(x.in_order_base), free(x.pending), free(x.queue), free(x.waited), free(x.succ_at),
        free(x.succ), free(x.dep_at), free(x.deps), free(x.paused), free(x.usual), free(x.lead);
    free(x.rank_at), free(x.entry_call), free(x.call_op);
    if (rc) fa_release_free(rl);
    return rc;
}

void fa_release_free(fa_release *rl) {
    free(rl->release), free(rl->start), free(rl->start_in_order), free(rl->longest);
    free(rl->offset);
    memset(rl, 0, sizeof *rl);
}
