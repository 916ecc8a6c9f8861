/* match_check.c — the agreement checks (step 4 of match.c), their driver. All cores sort each
 * op's calls by member and screen it (op_is_clean); one thread then reports on the ones that are
 * not clean, in op order (check_op): the minority whose type, size or dtype differs
 * (match_majority.c; calls cut short by a ring that wrapped agree with the whole ones,
 * match_unknown.c), a call inconsistent in itself or all_to_all totals that differ
 * (match_intrinsic.c), a send/recv pair that disagrees (here). Then the collectives paired by
 * their order where launch numbers diverge (match_order.c), and the send/recv records whose
 * partner is absent. An op whose calls are all one entry with the same interned values
 * (fa_walk.uniform) is screened by its first call alone.
 */
#include "match/match_check.h"

#include <stdlib.h>

#include "util/parallel.h"

static int compare_members(const void *x, const void *y) {
    const fa_call *a = x, *b = y;
    return (a->member > b->member) - (a->member < b->member);
}

/* An op's calls by member. Ranks are walked in order and a send precedes its recv, so members
 * mostly arrive sorted: only an op whose calls are not gets sorted. (The screening workers sort
 * each op they take, just before screening it.) */
static void sort_op_calls(fa_match *m, size_t o) {
    fa_call *v = m->calls + m->ops[o].first_call;
    for (uint32_t i = 1; i < m->ops[o].ncalls; i++) {
        if (v[i - 1].member <= v[i].member) continue;
        qsort(v, m->ops[o].ncalls, sizeof *v, compare_members);
        break;
    }
}

static void set_representative(checker *k, fa_op *op, long rep_call) {
    op->rep_call = op->first_call + (uint32_t)(rep_call >= 0 ? rep_call : 0);
}

/* fa_match_entries for a send/recv pair, with the names already parsed in the store. */
static fa_match_state p2p_pair_state(const fa_store *store, const fa_entry *a, const fr_entry *ea,
                                     const fa_entry *b, const fr_entry *eb) {
    const fa_opinfo *ia = fa_store_op(store, fa_entry_traits(store, a)->name),
                    *ib = fa_store_op(store, fa_entry_traits(store, b)->name);
    if (!ia->parsed || !ib->parsed) return FA_SIZE_OR_SYNTAX_MISMATCH;
    fa_opname na = {
        .is_send = ia->is_send, .is_recv = ia->is_recv, .src = ia->src, .dst = ia->dst
    };
    fa_opname nb = {
        .is_send = ib->is_send, .is_recv = ib->is_recv, .src = ib->src, .dst = ib->dst
    };
    if (!na.is_send && !na.is_recv) return fa_match_entries(ea, eb, 2, NULL, 0);
    return fa_mb_match_p2p(&na, ea, &nb, eb);
}

static bool p2p_pair_matches(const fa_store *store, const fa_entry *a, const fr_entry *ea,
                             const fa_entry *b, const fr_entry *eb) {
    return p2p_pair_state(store, a, ea, b, eb) == FA_FULLY_MATCHED;
}

/* The common case of p2p_pair_matches from interned ids alone: a parsed send and recv that name
 * compatible peers, the send's input sizes the very shape list the recv expects. False means
 * "not sure" (p2p_pair_matches decides). */
static bool p2p_pair_surely_matches(const fa_store *store, const fa_entry *ea, const fa_entry *eb) {
    const fa_traits *a = fa_entry_traits(store, ea), *b = fa_entry_traits(store, eb);
    const fa_opinfo *ia = fa_store_op(store, a->name), *ib = fa_store_op(store, b->name);
    if (!ia->parsed || !ib->parsed || !(ia->is_send || ia->is_recv) ||
        !(ib->is_send || ib->is_recv) || ia->is_send == ib->is_send)
        return false;
    if (!(ia->src < 0 || ib->src < 0 || ia->src == ib->src) ||
        !(ia->dst < 0 || ib->dst < 0 || ia->dst == ib->dst))
        return false;
    const fa_traits *send = ia->is_send ? a : b, *recv = ia->is_send ? b : a;
    uint32_t got =
        fa_store_shapes(store, recv->out_sizes)->count ? recv->out_sizes : recv->in_sizes;
    uint32_t want =
        fa_store_strings(store, recv->out_dtypes)->count ? recv->out_dtypes : recv->in_dtypes;
    return send->in_sizes == got && send->in_dtypes == want;
}

/* Whether a send/recv pair joins a record of a dump older than its peers' (fa_stale) to one of a
 * newer dump, paired by their order: the older window ends earlier, so its record may be an
 * earlier transfer than the other side's, and their disagreeing says nothing against the job
 * (tests/sim seeds 1711, 8776: rank 5's send of [[2]] against older rank 6's recv of [[1024]] in
 * a group of four). In a group of two both sides number their send/recv alike: records of one
 * number are one transfer, however old the dump. (Branch wt-skip8's f49480f, its rule 2.) */
static bool pair_spans_older_dump(const checker *k, const fa_op *op, const fa_call *a,
                                  const fa_call *b) {
    if (fa_stale_known(&k->m->rank_stale[a->rank_index]) ==
        fa_stale_known(&k->m->rank_stale[b->rank_index]))
        return false;
    const fa_dump *da = k->in->ranks[a->rank_index].dump, *db = k->in->ranks[b->rank_index].dump;
    return k->groups->v[op->group].nmembers != 2 ||
           fa_entry_p2p_seq(da, fa_call_entry(k->m, k->in, a, 0)) !=
               fa_entry_p2p_seq(db, fa_call_entry(k->m, k->in, b, 0));
}

static void check_op(checker *k, size_t op_index) {
    fa_op *op = &k->m->ops[op_index];
    if (op->ncalls == 0) return;
    set_representative(k, op, 0);
    if (op->is_p2p) {
        const fa_call *a = &k->m->calls[op->first_call], *b = a + 1;
        /* a pair both sides completed did transfer: their records disagreeing says the pairing
         * of a window's edge is off (an older dump, a ring that started later), not the job */
        if (op->ncalls == 2 &&
            !(a->state == FR_STATE_COMPLETED && b->state == FR_STATE_COMPLETED) &&
            !pair_spans_older_dump(k, op, a, b)) {
            fr_entry ea, eb;
            fa_call_expand(k->m, k->in, a, 0, &ea);
            fa_call_expand(k->m, k->in, b, 0, &eb);
            fa_match_state st = p2p_pair_state(k->in->store, fa_call_entry(k->m, k->in, a, 0), &ea,
                                               fa_call_entry(k->m, k->in, b, 0), &eb);
            bool dtypes = st == FA_COLLECTIVE_DTYPE_MISMATCH;
            if (st != FA_FULLY_MATCHED && !(dtypes && op->order_unshown)) {
                k->odd[0] = k->odd[1] = true;
                fa_finding *f =
                    fa_mc_add_mismatch(k, op_index, dtypes ? FA_DTYPE_MISMATCH : FA_SIZE_MISMATCH);
                /* the calls come in member order: the sender may be either */
                const fa_store *store = k->in->store;
                bool a_sends =
                    fa_store_op(store,
                                fa_entry_traits(store, fa_call_entry(k->m, k->in, a, 0))->name)
                        ->is_send;
                const fr_entry *es = a_sends ? &ea : &eb, *er = a_sends ? &eb : &ea;
                char x[200], y[200];
                if (dtypes) {
                    fa_mc_dtypes_pair(es, x, sizeof x);
                    fa_mc_dtypes_pair(er, y, sizeof y);
                } else {
                    fa_shapes_text(&es->input_sizes, x, sizeof x);
                    fa_shapes_text(er->output_sizes.count ? &er->output_sizes : &er->input_sizes, y,
                                   sizeof y);
                }
                if (f)
                    fa_finding_set_detail(f, "send %lld->%lld carries %s but the recv expects %s",
                                          (long long)op->src, (long long)op->dst, x, y);
            }
        }
        return;
    }
    static const int dims[] = { SIG_TYPE, SIG_SIZE, SIG_DTYPE };
    static const fa_finding_kind kinds[] = { FA_TYPE_MISMATCH, FA_SIZE_MISMATCH,
                                             FA_DTYPE_MISMATCH };
    for (int d = 0; d < 3; d++) {
        for (uint32_t i = 0; i < op->ncalls; i++)
            k->sig[i] = fa_mc_call_signature(k, &k->m->calls[op->first_call + i], dims[d]);
        fa_mc_unknown_agrees(k, op);
        long rep = fa_mc_mark_minority(k, op->ncalls);
        bool disagree = false;
        for (uint32_t i = 0; i < op->ncalls && rep < 0; i++) disagree |= k->sig[i] != k->sig[0];
        if (rep < 0 && !disagree) continue;
        if (rep >= 0) set_representative(k, op, rep);
        long odd_call = -1;
        for (uint32_t i = 0; i < op->ncalls; i++)
            if (k->odd[i] && (odd_call < 0 || (rep < 0 && (long)i != 0)))
                odd_call = odd_call < 0 ? (long)i : odd_call;
        fa_finding *f = fa_mc_add_mismatch(k, op_index, kinds[d]);
        if (f)
            fa_mc_describe_pair(k, op, odd_call, rep >= 0 ? rep : (op->ncalls > 1 ? 1 : -1), f,
                                dims[d]);
        if (dims[d] == SIG_TYPE) return; /* sizes of different collectives do not compare */
    }
    if (!op->mismatch) fa_mc_check_intrinsic_calls(k, op_index);
    if (!op->mismatch) fa_mc_check_all_to_all_totals(k, op_index);
}

/* Whether check_op would find nothing wrong with op_index: every call agrees on type, sizes and
 * dtypes, none is inconsistent in itself, all_to_all totals add up (collectives), the pair
 * matches (send/recv). Sets the op's representative as check_op does; reads everything else.
 * `uniform` (fa_walk.uniform): every call is one entry with the same interned values, so the
 * signatures agree and every call's own consistency is the first call's. */
static bool op_is_clean(checker *k, size_t op_index, bool uniform) {
    fa_op *op = &k->m->ops[op_index];
    if (op->ncalls == 0) return true;
    set_representative(k, op, 0);
    if (op->is_p2p) {
        if (op->ncalls != 2) return true;
        const fa_call *a = &k->m->calls[op->first_call], *b = &k->m->calls[op->first_call + 1];
        if (p2p_pair_surely_matches(k->in->store, fa_call_entry(k->m, k->in, a, 0),
                                    fa_call_entry(k->m, k->in, b, 0)))
            return true;
        fr_entry ea, eb;
        fa_call_expand(k->m, k->in, a, 0, &ea);
        fa_call_expand(k->m, k->in, b, 0, &eb);
        return p2p_pair_matches(k->in->store, fa_call_entry(k->m, k->in, a, 0), &ea,
                                fa_call_entry(k->m, k->in, b, 0), &eb);
    }
    static const int dims[] = { SIG_TYPE, SIG_SIZE, SIG_DTYPE };
    for (int d = 0; d < 3 && !uniform; d++) {
        uint64_t first = fa_mc_call_signature(k, &k->m->calls[op->first_call], dims[d]);
        for (uint32_t i = 1; i < op->ncalls; i++)
            if (fa_mc_call_signature(k, &k->m->calls[op->first_call + i], dims[d]) != first)
                return false;
    }
    char why[300];
    uint32_t nmembers = k->groups->v[op->group].nmembers;
    for (uint32_t i = 0; i < (uniform ? 1 : op->ncalls); i++)
        if (fa_mc_intrinsic_problem(k, &k->m->calls[op->first_call + i], nmembers, why,
                                    sizeof why) != FA_MISSING_RANKS)
            return false;
    /* op->type is the first entry's type, whose flags the store parsed once */
    const fa_traits *first =
        fa_entry_traits(k->in->store, fa_call_entry(k->m, k->in, &k->m->calls[op->first_call], 0));
    if (!(fa_store_op(k->in->store, first->name)->flags & FA_OP_ALL_TO_ALL)) return true;
    int64_t in_total, out_total;
    return !fa_mc_all_to_all_totals_differ(k, op, &in_total, &out_total);
}

/* The agreement checks are split in two so that the costly part runs on every core: workers
 * screen ops (op_is_clean, a chunk of ops at a time from a shared counter, each op's flag written
 * by the one worker that took it), then one thread runs check_op on the ops that are not clean,
 * in op order, so findings come out in the same order whatever the scheduling. A healthy job's
 * ops are all clean. An op a worker could not screen (out of memory) simply stays unscreened. */
typedef struct screen_job {
    const fa_input *in;
    const fa_groups *groups;
    fa_match *m;
    const uint8_t *uniform; /* per collective op (fa_walk.uniform) */
    size_t nuniform;
    uint8_t *flags;                  /* per op: SCREEN_* */
    uint32_t widest[FA_MAX_WORKERS]; /* per worker: the most calls it saw in one op */
} screen_job;

enum { SCREEN_CHUNK = 1024 };
enum { SCREEN_CLEAN = 1, SCREEN_UNMATCHED = 2 /* a p2p_unmatched finding to record */ };

static void screen_range(void *arg, unsigned worker, size_t lo, size_t hi) {
    screen_job *job = arg;
    checker k = { job->in, job->groups, job->m, NULL, 0, NULL, NULL, NULL, NULL };
    uint32_t widest = job->widest[worker];
    for (size_t i = lo; i < hi; i++) {
        const fa_op *op = &job->m->ops[i];
        sort_op_calls(job->m, i); /* before anything reads the op's calls in member order */
        uint8_t f = op_is_clean(&k, i, i < job->nuniform && job->uniform[i]) ? SCREEN_CLEAN : 0;
        if (op->unmatched && op->ncalls &&
            job->m->calls[op->first_call].state != FR_STATE_COMPLETED)
            f |= SCREEN_UNMATCHED;
        job->flags[i] = f;
        if (op->ncalls > widest) widest = op->ncalls;
    }
    job->widest[worker] = widest;
}

/* Screens every op (flags[op]: SCREEN_*); returns the most calls of one op (at least 1). */
static uint32_t screen_ops(const fa_input *in, const fa_groups *groups, fa_match *m,
                           const fa_walk *walk, int jobs, uint8_t *flags) {
    screen_job job = { in, groups, m, walk->uniform, walk->nuniform, flags, { 0 } };
    unsigned nw = fa_worker_count(jobs);
    fa_parallel_for(m->nops, SCREEN_CHUNK, nw, screen_range, &job);
    uint32_t widest = 1;
    for (unsigned t = 0; t < nw; t++)
        if (job.widest[t] > widest) widest = job.widest[t];
    return widest;
}

int fa_mb_check_all(const fa_input *in, const fa_groups *groups, fa_match *m, const fa_walk *walk,
                    int cap, int jobs, fa_findings *findings) {
    uint8_t *flags = calloc(m->nops + 1, 1);
    if (!flags) return -1;
    uint32_t widest = screen_ops(in, groups, m, walk, jobs, flags);
    checker k = { in,
                  groups,
                  m,
                  findings,
                  cap,
                  calloc(groups->n + 1, sizeof(size_t)),
                  calloc(widest, sizeof(uint64_t)),
                  calloc(widest, sizeof(bool)),
                  calloc(widest, sizeof(uint8_t)) };
    if (!k.listed_per_group || !k.sig || !k.odd || !k.kind) {
        free(k.listed_per_group);
        free(k.sig);
        free(k.odd);
        free(k.kind);
        free(flags);
        return -1;
    }
    for (size_t i = 0; i < m->nops; i++)
        if (!(flags[i] & SCREEN_CLEAN)) check_op(&k, i);
    int rc = fa_mc_check_launch_order(&k);
    /* p2p with one side absent: the verdict weighs it; here it is recorded */
    for (size_t i = 0; i < m->nops; i++) {
        if (!(flags[i] & SCREEN_UNMATCHED)) continue;
        fa_op *op = &m->ops[i];
        const fa_call *c = &m->calls[op->first_call];
        fa_finding *f = fa_findings_add(findings, FA_P2P_UNMATCHED, (long)op->group, (long)i);
        if (!f) break;
        f->listed = k.listed_per_group[op->group]++ < (size_t)cap;
        bool sender_posted = c->member == fa_group_position(&groups->v[op->group], op->src);
        fa_ranks_add(&f->ranks, sender_posted ? op->dst : op->src);
        fa_ranks_add(&f->others, sender_posted ? op->src : op->dst);
        fa_finding_set_detail(
            f,
            sender_posted
                ? "rank %lld sends to rank %lld (p2p #%lld); rank %lld has no matching recv"
                : "rank %lld receives from rank %lld (p2p #%lld); rank %lld has no matching send",
            (long long)(sender_posted ? op->src : op->dst),
            (long long)(sender_posted ? op->dst : op->src), (long long)op->seq,
            (long long)(sender_posted ? op->dst : op->src));
    }
    free(flags);
    free(k.listed_per_group);
    free(k.sig);
    free(k.odd);
    free(k.kind);
    return rc;
}
