/* match_p2p.c — pairing send/recv (step 3 of match.c): the walk's side list of send/recv
 * records is ordered by (group, sender, receiver, side, order) with a counting sort over the
 * runs (sort_p2p), and each run's sends and recvs are paired in order (or by seq id where the
 * dumps number them) into ops whose calls follow the collective ones.
 */
#include "match/match_build.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"

static long new_op(builder *b, uint32_t group, bool is_p2p, int64_t seq) {
    fa_match *m = b->m;
    if (fa_grow((void **)&m->ops, &b->ops_cap, m->nops + 1, sizeof *m->ops)) return -1;
    fa_op *op = &m->ops[m->nops];
    memset(op, 0, sizeof *op);
    op->group = group & FA_MAX_GROUPS;
    op->is_p2p = is_p2p;
    op->seq = seq;
    op->src = op->dst = -1;
    op->rep_call = FA_NO_CALL_ID;
    return (long)m->nops++;
}

static long new_call(builder *b, uint32_t member, uint32_t rank_index, fr_state state,
                     uint32_t entry) {
    fa_match *m = b->m;
    if (fa_grow((void **)&m->calls, &b->calls_cap, m->ncalls + 1, sizeof *m->calls)) return -1;
    m->calls[m->ncalls] = (fa_call){ .member = member & FA_MAX_MEMBERS,
                                     .state = state,
                                     .in_minority = 0,
                                     .rank_index = rank_index,
                                     .at = entry };
    return (long)m->ncalls++;
}

/* ---- ordering the send/recv records ----
 * Pairing wants the records by (group, sender, receiver, sends first) and, within that, by
 * entry. Within one such run every record comes from one rank (the sender's position is its own
 * on the send side, the receiver's on the recv side), and the walk appended each rank's records
 * in entry order; so a stable sort on the run alone gives that order. The distinct runs (a few per
 * pipeline pair) are found through a small hash, sorted, and the records' indices scattered by
 * counts: linear in the records, instead of a comparison sort over all of them. (Indices, not the
 * records: thousands of runs fill at once, and 4-byte writes keep their open lines in cache.) */

typedef struct p2p_run {
    uint32_t group, src_pos, dst_pos, is_send;
    size_t count, at; /* records in the run; where the run starts in the sorted order */
} p2p_run;

typedef struct run_index {
    p2p_run *runs;
    size_t n, cap;
    uint32_t *slots; /* run + 1, 0 empty */
    size_t nslots;
} run_index;

static bool same_run(const p2p_run *r, const p2p_rec *x) {
    return r->group == x->group && r->src_pos == x->src_pos && r->dst_pos == x->dst_pos &&
           r->is_send == x->is_send;
}

static size_t run_slot(const run_index *ix, uint32_t group, uint32_t src, uint32_t dst,
                       uint32_t is_send) {
    return fa_key2(fa_key2(group, src), ((uint64_t)dst << 1) | is_send) & (ix->nslots - 1);
}

static int run_rehash(run_index *ix) {
    size_t n = ix->nslots ? ix->nslots * 2 : 1024;
    uint32_t *slots = calloc(n, sizeof *slots);
    if (!slots) return -1;
    free(ix->slots);
    ix->slots = slots;
    ix->nslots = n;
    for (size_t r = 0; r < ix->n; r++) {
        const p2p_run *x = &ix->runs[r];
        size_t i = run_slot(ix, x->group, x->src_pos, x->dst_pos, x->is_send);
        while (ix->slots[i]) i = (i + 1) & (ix->nslots - 1);
        ix->slots[i] = (uint32_t)r + 1;
    }
    return 0;
}

/* The run of record x, made when new; -1 when out of memory. */
static long run_of(run_index *ix, const p2p_rec *x) {
    if ((ix->n + 1) * 2 > ix->nslots && run_rehash(ix)) return -1;
    size_t i = run_slot(ix, x->group, x->src_pos, x->dst_pos, x->is_send);
    for (; ix->slots[i]; i = (i + 1) & (ix->nslots - 1))
        if (same_run(&ix->runs[ix->slots[i] - 1], x)) return (long)ix->slots[i] - 1;
    if (fa_grow((void **)&ix->runs, &ix->cap, ix->n + 1, sizeof *ix->runs)) return -1;
    ix->runs[ix->n] = (p2p_run){ x->group, x->src_pos, x->dst_pos, x->is_send, 0, 0 };
    ix->slots[i] = (uint32_t)ix->n + 1;
    return (long)ix->n++;
}

static int compare_runs(const void *x, const void *y) {
    const p2p_run *a = *(p2p_run *const *)x, *b = *(p2p_run *const *)y;
    if (a->group != b->group) return a->group < b->group ? -1 : 1;
    if (a->src_pos != b->src_pos) return a->src_pos < b->src_pos ? -1 : 1;
    if (a->dst_pos != b->dst_pos) return a->dst_pos < b->dst_pos ? -1 : 1;
    return (a->is_send < b->is_send) - (a->is_send > b->is_send); /* sends first */
}

/* The indices of b->p2p in the order described above, or NULL when out of memory. */
static uint32_t *sort_p2p(const builder *b) {
    run_index ix = { 0 };
    uint32_t *run = malloc((b->np2p + 1) * sizeof *run);
    uint32_t *sorted = malloc((b->np2p + 1) * sizeof *sorted);
    p2p_run **order = NULL;
    int rc = run && sorted ? 0 : -1;
    for (size_t i = 0; rc == 0 && i < b->np2p; i++) {
        long r = run_of(&ix, &b->p2p[i]);
        if (r < 0)
            rc = -1;
        else {
            run[i] = (uint32_t)r;
            ix.runs[r].count++;
        }
    }
    if (rc == 0 && !(order = malloc((ix.n + 1) * sizeof *order))) rc = -1;
    if (rc == 0) {
        for (size_t r = 0; r < ix.n; r++) order[r] = &ix.runs[r];
        qsort(order, ix.n, sizeof *order, compare_runs);
        size_t at = 0;
        for (size_t r = 0; r < ix.n; r++) {
            order[r]->at = at;
            at += order[r]->count;
        }
        for (size_t i = 0; i < b->np2p; i++) sorted[ix.runs[run[i]].at++] = (uint32_t)i;
    }
    free(order);
    free(run);
    free(ix.runs);
    free(ix.slots);
    if (rc) {
        free(sorted);
        return NULL;
    }
    return sorted;
}

static int p2p_call(builder *b, long op, const p2p_rec *r) {
    long call = new_call(b, fa_p2p_member(r), r->rank_index, r->state, r->entry);
    if (call < 0) return -1;
    b->m->ops[op].ncalls++;
    return 0;
}

static int p2p_op(builder *b, const p2p_rec *send, const p2p_rec *recv) {
    const p2p_rec *any = send ? send : recv;
    const fa_group *g = &b->groups->v[any->group];
    long op = new_op(b, any->group, true, fa_p2p_seq(b->in, any));
    if (op < 0) return -1;
    fa_op *o = &b->m->ops[op];
    o->first_call =
        (uint32_t)b->m->ncalls; /* its calls follow at once, after every collective call */
    o->src = fa_op_rank32(any->src_pos < g->nmembers ? g->members[any->src_pos] : -1);
    o->dst = fa_op_rank32(any->dst_pos < g->nmembers ? g->members[any->dst_pos] : -1);
    o->unmatched = !(send && recv) && o->src >= 0 && o->dst >= 0;
    if (send && p2p_call(b, op, send)) return -1;
    if (recv && p2p_call(b, op, recv)) return -1;
    return 0;
}

/* Whether the p2p_seq_ids of a run's two sides count the same operations, so that equal ids are
 * one transfer: in a PyTorch group of two, each member's counter counts every send/recv between
 * them (a batch once), so ids pair even where one side's window ends earlier (an older dump) or
 * starts later (a ring). Not the recorder's launch numbers: a rank that left a collective out
 * numbers every later launch differently, while NCCL pairs a peer's sends and recvs in order. */
static bool seq_ids_align(const builder *b, const p2p_rec *any) {
    const fa_group *g = &b->groups->v[any->group];
    if (g->nmembers != 2) return false;
    long src = any->src_pos < g->nmembers ? g->member_input[any->src_pos] : -1,
         dst = any->dst_pos < g->nmembers ? g->member_input[any->dst_pos] : -1;
    return src >= 0 && dst >= 0 && !b->in->ranks[src].dump->launch_numbered &&
           !b->in->ranks[dst].dump->launch_numbered;
}

/* Whether a proof of kind issued_only (fa_stale) may take the place of what st holds: the first
 * proof, or one that rests on less (a proof by what the rank had not issued wins). */
static bool stale_replaceable(const fa_stale *st, bool issued_only) {
    return st->group < 0 || (st->issued_only && !issued_only);
}

/* x completed without its other side, whose dump shows no send/recv in the group as far as x:
 * that dump is older than x's (a send and its recv complete together), unless the other side's
 * window had not reached it. A completed send proves less: NCCL completes a send that fits the
 * receiver's buffer before the recv is posted, so the receiver's dump is older or it never
 * posted the recv (fa_stale.issued_only; tests/sim seed 12069). */
static void note_older(builder *b, const p2p_rec *x) {
    const fa_group *g = &b->groups->v[x->group];
    uint32_t other = x->is_send ? x->dst_pos : x->src_pos;
    long ri = other < g->nmembers ? g->member_input[other] : -1;
    int64_t issued = ri >= 0 ? b->p2p_issued[b->m->view_at[x->group] + other] : INT64_MAX;
    fa_stale *st = ri >= 0 ? &b->m->rank_stale[ri] : NULL;
    int64_t seq = fa_p2p_seq(b->in, x);
    if (st && issued < seq && stale_replaceable(st, x->is_send))
        *st = (fa_stale){ (long)x->group, seq, issued, st->cut, x->is_send, false };
}

/* Whether input rank ri's dump holds every entry it recorded: record ids 0, 1, 2, ... without a
 * gap (no ring that wrapped, no only-active dump that left the completed ones out). */
static bool whole_history(const builder *b, uint32_t ri) {
    const fa_dump *d = b->in->ranks[ri].dump;
    return d->nentries && fa_entry_record_id(d, &d->entries[0]) == 0 &&
           fa_entry_record_id(d, &d->entries[d->nentries - 1]) == (int64_t)d->nentries - 1;
}

/* Whether input rank ri's window holds every record from its first to its newest
 * (fa_dump_window_whole) and was not cut short: what it issued after its first record is all
 * shown, its newest send/recv number in a group its count there. */
static bool window_gapless(const builder *b, uint32_t ri) {
    const fa_dump *d = b->in->ranks[ri].dump;
    return !d->truncated && fa_dump_window_whole(d);
}

/* The highest p2p_seq_id that input rank ri's entries of group gi carry (a collective's too: it
 * carries the group's send/recv count so far), -1 where none is of that group. */
static int64_t shown_p2p_count(const builder *b, uint32_t ri, uint32_t gi) {
    const fa_dump *d = b->in->ranks[ri].dump;
    int64_t top = -1;
    for (uint32_t k = 0; k < d->npgs; k++) {
        if (fa_groups_find(b->groups, ri, d->pgs[k].name) != (long)gi) continue;
        for (uint32_t i = 0; i < d->nentries; i++)
            if (fa_entry_pg(b->in->store, &d->entries[i]) == k &&
                fa_entry_p2p_seq(d, &d->entries[i]) > top)
                top = fa_entry_p2p_seq(d, &d->entries[i]);
    }
    return top;
}

/* A run with records on one side alone, in a group of two whose ids count alike (seq_ids_align):
 * a completed one numbered past every send/recv count that the other side's gapless window shows
 * in the group (one entry there at least: a window holding none may begin after them) completed
 * with a partner that dump had not yet posted: that dump is older (note_older; tests/sim seed
 * 4201: rank 1's send #5 to 5 completed, rank 5's ring ends its pipeline records at #4). */
static void note_older_alone(builder *b, const uint32_t *run, size_t n) {
    const p2p_rec *x0 = &b->p2p[run[0]];
    const fa_group *g = &b->groups->v[x0->group];
    uint32_t other = x0->is_send ? x0->dst_pos : x0->src_pos;
    long ri = other < g->nmembers ? g->member_input[other] : -1;
    if (ri < 0 || !window_gapless(b, (uint32_t)ri)) return;
    int64_t count = shown_p2p_count(b, (uint32_t)ri, x0->group);
    for (size_t i = 0; i < n && count >= 0; i++) {
        const p2p_rec *x = &b->p2p[run[i]];
        if (x->state == FR_STATE_COMPLETED && fa_p2p_seq(b->in, x) > count) note_older(b, x);
    }
}

/* One end of a run, input rank ri, whose dump holds its whole history (record ids from 0, no gap,
 * not cut, no only-active dump: fa_dump_shows_completed) shows fewer transfers of the run (nx; none
 * at all where the run holds no record of it) than the other end's records Y[0..ny-1] show
 * completed: each completed transfer had its partner on the wire, one for one (NCCL pairs a
 * peer's sends and recvs in order), so rank ri issued more than its dump shows, after it was
 * written: that dump is older than the other's (tests/sim seed 10130: rank 31's recorder dump,
 * records 0-4, shows one send to its pipeline peer 82, whose ring shows two recvs from 31
 * completed; 31's pending all_reduce #1, completed by every peer, read as a stalled GPU beside
 * the two ranks without a readable dump). Whatever the numbering (the recorder's launch numbers
 * too): only counts are compared. Not gloo's (it records no send/recv). */
static void note_older_by_count(builder *b, long ri, size_t nx, const uint32_t *Y, size_t ny) {
    if (ri < 0) return;
    const fa_dump *d = b->in->ranks[ri].dump;
    fa_stale *st = &b->m->rank_stale[ri];
    bool sends = ny && b->p2p[Y[0]].is_send; /* sends completed to it prove less (note_older) */
    if (d->records_no_p2p || !stale_replaceable(st, sends) || !window_gapless(b, (uint32_t)ri) ||
        !whole_history(b, (uint32_t)ri))
        return;
    size_t done = 0;
    const p2p_rec *newest = NULL;
    for (size_t i = 0; i < ny; i++)
        if (b->p2p[Y[i]].state == FR_STATE_COMPLETED) done++, newest = &b->p2p[Y[i]];
    if (done <= nx || !fa_dump_shows_completed(d)) return;
    const p2p_rec *y = &b->p2p[Y[0]];
    uint32_t pos = y->is_send ? y->dst_pos : y->src_pos;
    int64_t issued = b->p2p_issued[b->m->view_at[y->group] + pos];
    *st = (fa_stale){ (long)y->group, fa_p2p_seq(b->in, newest), issued, st->cut, sends, false };
}

/* The input rank of the member at the other end of run record x, -1 without a dump. */
static long other_end(const builder *b, const p2p_rec *x) {
    const fa_group *g = &b->groups->v[x->group];
    uint32_t other = x->is_send ? x->dst_pos : x->src_pos;
    return other < g->nmembers ? g->member_input[other] : -1;
}

/* NCCL pairs a peer's sends and recvs in the order they were posted: with both histories whole,
 * the k-th send pairs with the k-th recv, whatever each side recorded of its state (in a batch
 * that never completed, an op done on the wire stays "scheduled"). */
static int pair_in_order(builder *b, const uint32_t *S, size_t ns, const uint32_t *R, size_t nr) {
    const p2p_rec *v = b->p2p;
    for (size_t i = 0; i < ns || i < nr; i++) {
        const p2p_rec *s = i < ns ? &v[S[i]] : NULL, *r = i < nr ? &v[R[i]] : NULL;
        if (s && r) {
            if (p2p_op(b, s, r)) return -1;
        } else if ((s ? s : r)->state != FR_STATE_COMPLETED && p2p_op(b, s, r)) {
            return -1;
        }
    }
    return 0;
}

static bool same_shapes(const builder *b, const p2p_rec *s, const p2p_rec *r);

/* The index of the first record of S[0..n) (one side of a run, in entry order) that has not
 * completed, or SIZE_MAX. */
static size_t first_pending(const builder *b, const uint32_t *S, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (b->p2p[S[i]].state != FR_STATE_COMPLETED) return i;
    return SIZE_MAX;
}

/* Whether the rank of record x holds, in x's group, a send/recv numbered seq and none of x's
 * kind with x's peer there (a send to the same rank, where x is one): that number went to another
 * transfer, so x's side posted none to that peer at it. Nothing there proves nothing: an
 * only-active dump drops what completed. */
static bool number_held_otherwise(const builder *b, const p2p_rec *x, int64_t seq) {
    const fa_store *store = b->in->store;
    const fa_dump *d = b->in->ranks[x->rank_index].dump;
    uint32_t pg = fa_entry_pg(store, &d->entries[x->entry]);
    bool held = false;
    for (uint32_t i = 0; i < d->nentries; i++) {
        const fa_entry *e = &d->entries[i];
        if (fa_entry_pg(store, e) != pg || fa_entry_p2p_seq(d, e) != seq) continue;
        const fa_opinfo *op = fa_store_op(store, fa_entry_traits(store, e)->name);
        if (!op->is_send && !op->is_recv) continue;
        if (x->is_send ? op->is_send && op->dst == (int64_t)x->dst_pos
                       : op->is_recv && op->src == (int64_t)x->src_pos)
            return false;
        held = true;
    }
    return held;
}

/* NCCL pairs a peer's sends and recvs in the order they were posted, whatever their numbers: the
 * first send of a run still pending and its first recv still pending meet on the wire, where
 * their numbers differ and the side of the lower number shows it posted another transfer at it
 * (number_held_otherwise: not one to this peer that its only-active dump dropped done, nor one
 * a stalled GPU left pending on the other side, sim seed 8408). Of other shapes they are a size
 * mismatch the two ranks made, not two halves nobody posted (tests/sim's E3; sim seeds 1978,
 * 3485: a stage that left out its recv posts its next recv, of the next transfer's shapes,
 * while its peer's send waits at the number of the one left out, where the stage holds its next
 * send; 13523: a rank whose batch received from the wrong peer receives its peer's next send
 * in its next batch, at that send's number). Of the same shapes they are one transfer whose
 * numbers a left-out send/recv shifted: left to the ids (the order evidence reads them so). Sets
 * *ps, *pr to the two indices, or SIZE_MAX. */
static void mismatched_on_wire(const builder *b, const uint32_t *S, size_t ns, const uint32_t *R,
                               size_t nr, size_t *ps, size_t *pr) {
    size_t fs = first_pending(b, S, ns), fr = first_pending(b, R, nr);
    *ps = *pr = SIZE_MAX;
    if (fs == SIZE_MAX || fr == SIZE_MAX) return;
    const p2p_rec *s = &b->p2p[S[fs]], *r = &b->p2p[R[fr]];
    int64_t at_s = fa_p2p_seq(b->in, s), at_r = fa_p2p_seq(b->in, r);
    if (at_s == at_r || same_shapes(b, s, r) ||
        !number_held_otherwise(b, at_s < at_r ? r : s, at_s < at_r ? at_s : at_r))
        return;
    *ps = fs;
    *pr = fr;
}

/* Pairs by equal p2p_seq_id (both sides in entry order, so ids ascend); a record without its
 * other side is unmatched when pending, and the window's edge (or an older dump's) when
 * completed; the two that NCCL pairs on the wire against their ids (mismatched_on_wire) pair. */
static int pair_by_seq(builder *b, const uint32_t *S, size_t ns, const uint32_t *R, size_t nr) {
    const p2p_rec *v = b->p2p;
    size_t i = 0, j = 0, ws, wr;
    mismatched_on_wire(b, S, ns, R, nr, &ws, &wr);
    if (ws != SIZE_MAX && p2p_op(b, &v[S[ws]], &v[R[wr]])) return -1;
    while (i < ns || j < nr) {
        if (i == ws || j == wr) {
            i += i == ws;
            j += j == wr;
            continue;
        }
        const p2p_rec *s = i < ns ? &v[S[i]] : NULL, *r = j < nr ? &v[R[j]] : NULL;
        int64_t ss = s ? fa_p2p_seq(b->in, s) : 0, rs = r ? fa_p2p_seq(b->in, r) : 0;
        if (s && r && ss == rs) {
            if (p2p_op(b, s, r)) return -1;
            i++, j++;
        } else if (s && (!r || ss < rs)) {
            if (s->state != FR_STATE_COMPLETED ? p2p_op(b, s, NULL) : (note_older(b, s), 0))
                return -1;
            i++;
        } else {
            if (r->state != FR_STATE_COMPLETED ? p2p_op(b, NULL, r) : (note_older(b, r), 0))
                return -1;
            j++;
        }
    }
    return 0;
}

/* Whether record x was posted inside a batch (batch_isend_irecv): an entry beside it in its dump
 * belongs to the same group and carries the same p2p_seq_id (the batch's other send/recv, or its
 * `coalesced` end marker); a lone send/recv has an id of its own. */
static bool in_batch(const builder *b, const p2p_rec *x) {
    const fa_dump *d = b->in->ranks[x->rank_index].dump;
    const fa_entry *e = &d->entries[x->entry];
    uint32_t pg = fa_entry_pg(b->in->store, e);
    int64_t seq = fa_entry_p2p_seq(d, e);
    for (int side = -1; side <= 1; side += 2) {
        if ((side < 0 && x->entry == 0) || (side > 0 && (uint32_t)x->entry + 1 >= d->nentries))
            continue;
        const fa_entry *n = e + side;
        if (fa_entry_pg(b->in->store, n) == pg && fa_entry_p2p_seq(d, n) == seq) return true;
    }
    return false;
}

/* Whether send s carries the very shapes recv r expects (interned ids: equal lists, one id). */
static bool same_shapes(const builder *b, const p2p_rec *s, const p2p_rec *r) {
    const fa_store *store = b->in->store;
    const fa_dump *ds = b->in->ranks[s->rank_index].dump, *dr = b->in->ranks[r->rank_index].dump;
    const fa_traits *send = fa_entry_traits(store, &ds->entries[s->entry]),
                    *recv = fa_entry_traits(store, &dr->entries[r->entry]);
    uint32_t got =
        fa_store_shapes(store, recv->out_sizes)->count ? recv->out_sizes : recv->in_sizes;
    return send->in_sizes == got;
}

/* Whether a surplus of completed records on one side is its window's older edge rather than its
 * newest transfers done on the wire: pairing e of the other side's pending records P with them
 * would leave this side's own pending records Q (queued of them) without a partner, while
 * pending pairs with pending, in order, of the shapes each recv expects (the bench's generated
 * pipelines, whose rings wrapped at different records: stage 2's window kept one more completed
 * recv from stage 1 at its old edge, read as done on the wire with stage 1's pending send, and
 * stage 1 named stalled there and as never posting the send stage 2 waits for). */
static bool older_edge(const builder *b, const uint32_t *P, size_t pending, size_t e,
                       const uint32_t *Q, size_t queued) {
    if (e == 0 || queued + e <= pending) return false;
    for (size_t i = 0; i < pending && i < queued; i++) {
        const p2p_rec *p = &b->p2p[P[i]], *q = &b->p2p[Q[i]];
        if (!same_shapes(b, p->is_send ? p : q, p->is_send ? q : p)) return false;
    }
    return true;
}

/* How many of one side's newest completed records, left without a completed partner, pair with
 * the other side's oldest pending ones (C[0..extra-1] those completed ones, P[0..pending-1] the
 * pending ones): a send that completed proves that its recv ran, and in a batch that has not
 * completed a recv done on the wire stays pending (likewise the reverse). A lone pending send
 * pairs so too with a completed recv: the data came, so the send ran, and its rank's dump is
 * older, or its GPU stopped after the transfer (tests/sim seeds 5436, 7846: pairing the completed
 * ones from the newest backwards left the lone pending send unmatched and named its idle
 * receiver as never posting the recv), or, in a window with gaps (only-active), it sat in a batch
 * of one whose completed end marker was dropped (seed 660), done all the same (seed 3941: a
 * pipeline stage's pending send #4 to stage 0, whose recv #2 of its shapes its counters show
 * done, paired instead with 0's pending recv #4 of other shapes, a size mismatch nobody made).
 * Not a lone pending recv with a completed send: NCCL completes a send that fits the receiver's
 * buffer before the recv is posted (the bench's generated jobs, t0630: pipeline stages named
 * stalled beside the rank that never joined). Nor one of other shapes: a surplus that is only
 * the older edge of a longer window pairs across transfers, which their shapes mostly show. */
static size_t done_on_wire(const builder *b, const uint32_t *C, size_t extra, const uint32_t *P,
                           size_t pending, const uint32_t *Q, size_t queued) {
    size_t e = extra < pending ? extra : pending;
    if (older_edge(b, P, pending, e, Q, queued)) return 0;
    for (size_t i = 0; i < e; i++) {
        const p2p_rec *c = &b->p2p[C[extra - e + i]], *p = &b->p2p[P[i]];
        if (!(in_batch(b, p) || !c->is_send) ||
            !same_shapes(b, c->is_send ? c : p, c->is_send ? p : c))
            return 0;
    }
    return e;
}

/* Whether record x is still pending in a batch_isend_irecv (the kind the recorder's launch numbers
 * misplace when its rank left a collective out). */
static bool pending_in_batch(const builder *b, const p2p_rec *x) {
    return x->state != FR_STATE_COMPLETED && in_batch(b, x);
}

/* Whether pairing by equal p2p_seq_id (pair_by_seq) is borne out where the ids are not known to
 * count alike (a group of more than two, or the recorder's launch numbers): in a group of more
 * than two every record of the run sits in a batch (a ring of batch_isend_irecv in which every
 * member counts one batch per step numbers alike; single send/recv of pipeline stages that count
 * differently match ids by chance; in a group of two both members number the same launches,
 * unless one left one out, which the shapes and the completed ones then mostly show: tests/sim
 * seed 1034, a ring's window that kept more of one side), it pairs something,
 * every pair carries the shapes its recv expects, and no record that completed is left without a
 * partner inside the span of the other side's ids (outside it, the other window's edge). With
 * the recorder's launch numbers, a pending send and a pending recv of the run, each in a batch,
 * both left without a partner refute the ids: NCCL pairs them in order, while a rank that left a
 * collective out numbers its later launches one lower (random_rec_jobs seeds 19, 92, 483: an
 * OMIT after a wrapped ring named the innocent receiver of the shifted send as never posting its
 * recv). Lone send/recv keep their ids: a pipeline stage that left one out shifts its own (sim
 * seed 2516), which the verdict reads from the two unmatched ends. */
static bool seq_ids_borne_out(const builder *b, const uint32_t *S, size_t ns, const uint32_t *R,
                              size_t nr) {
    const p2p_rec *v = b->p2p;
    bool launches = b->in->ranks[v[S[0]].rank_index].dump->launch_numbered ||
                    b->in->ranks[v[R[0]].rank_index].dump->launch_numbered,
         lone_send = false, lone_recv = false;
    for (size_t k = 0; k < ns + nr && b->groups->v[v[S[0]].group].nmembers != 2; k++)
        if (!in_batch(b, &v[k < ns ? S[k] : R[k - ns]])) return false;
    int64_t low_s = fa_p2p_seq(b->in, &v[S[0]]), top_s = fa_p2p_seq(b->in, &v[S[ns - 1]]),
            low_r = fa_p2p_seq(b->in, &v[R[0]]), top_r = fa_p2p_seq(b->in, &v[R[nr - 1]]);
    size_t i = 0, j = 0, pairs = 0;
    bool lone_since_pair = false;
    while (i < ns && j < nr) {
        const p2p_rec *s = &v[S[i]], *r = &v[R[j]];
        int64_t ss = fa_p2p_seq(b->in, s), rs = fa_p2p_seq(b->in, r);
        if (ss == rs) {
            if (!same_shapes(b, s, r) || lone_since_pair) return false;
            if (launches && (lone_send || lone_recv)) return false;
            pairs++, i++, j++;
        } else if (ss < rs) {
            if (s->state == FR_STATE_COMPLETED && ss >= low_r && ss <= top_r) return false;
            lone_since_pair |= pairs > 0;
            lone_send |= pending_in_batch(b, s);
            i++;
        } else {
            if (r->state == FR_STATE_COMPLETED && rs >= low_s && rs <= top_s) return false;
            lone_since_pair |= pairs > 0;
            lone_recv |= pending_in_batch(b, r);
            j++;
        }
    }
    for (; i < ns; i++) lone_send |= pending_in_batch(b, &v[S[i]]);
    for (; j < nr; j++) lone_recv |= pending_in_batch(b, &v[R[j]]);
    return pairs > 0 && !(launches && lone_send && lone_recv);
}

/* Whether dump entry e is a send or a recv (not a batch's `coalesced` end marker). */
static bool is_transfer(const builder *b, const fa_entry *e) {
    const fa_opinfo *op = fa_store_op(b->in->store, fa_entry_traits(b->in->store, e)->name);
    return op->is_send || op->is_recv;
}

/* Whether input rank ri's window shows its send/recv batch number seq of group gi whole: its
 * first transfer there has an entry of the window before it, so that no ring cut into the batch
 * (a batch's entries are recorded together, and a dump keeps them all, left "scheduled"). Then
 * a partner it does not show was never posted there (sim seed 603: a recv posted to the wrong
 * peer, whose batch of that number, completed, sent elsewhere). */
static bool batch_shown_whole(const builder *b, uint32_t ri, uint32_t gi, int64_t seq) {
    const fa_dump *d = b->in->ranks[ri].dump;
    for (uint32_t i = 0; i < d->nentries; i++) {
        const fa_entry *e = &d->entries[i];
        if (fa_entry_p2p_seq(d, e) != seq || !is_transfer(b, e)) continue;
        const char *name = d->pgs[fa_entry_pg(b->in->store, e)].name;
        if (fa_groups_find(b->groups, ri, name) == (long)gi) return i > 0;
    }
    return false;
}

/* Whether pending record x's batch is queued behind an older send/recv batch of its rank that is
 * still pending (its end marker not completed): a rank's launches run in order on its stream, so
 * x's batch never started and x moved nothing on the wire (tests/sim seed 614: a pipeline stage
 * whose recv from the wrong stage holds up its next recv). */
static bool queued_behind(const builder *b, const p2p_rec *x) {
    const fa_dump *d = b->in->ranks[x->rank_index].dump;
    const fa_entry *e = &d->entries[x->entry];
    uint32_t pg = fa_entry_pg(b->in->store, e), start = x->entry;
    int64_t seq = fa_entry_p2p_seq(d, e);
    while (start > 0 && fa_entry_pg(b->in->store, &d->entries[start - 1]) == pg &&
           fa_entry_p2p_seq(d, &d->entries[start - 1]) == seq)
        start--;
    uint32_t oldest = b->p2p_oldest_pending[x->rank_index];
    return oldest != UINT32_MAX && oldest < start;
}

/* Whether input rank ri's window holds a completed end marker of a send/recv batch of group gi
 * numbered seq or above, under the recorder's launch numbers (a batch's launch is its newest:
 * its p2p_seq_id above its collective_seq_id). A ring that wrapped inside the batch keeps its
 * marker, the newest of its entries, and drops its transfers: the marker alone says they ran
 * (tests/sim seed 9966: rank 0's ring kept only the marker of its batch #1, whose recv from 7
 * completed; 7's send #1, pending in a batch held up by its other recv, read as pairing with 0's
 * recv of batch #2 into a size mismatch nobody made). */
static bool batch_marker_done(const builder *b, uint32_t ri, uint32_t gi, int64_t seq) {
    const fa_dump *d = b->in->ranks[ri].dump;
    if (!d->launch_numbered) return false;
    for (uint32_t i = 0; i < d->nentries; i++) {
        const fa_entry *e = &d->entries[i];
        const fa_traits *t = fa_entry_traits(b->in->store, e);
        int64_t p = fa_entry_p2p_seq(d, e);
        if (t->state != FR_STATE_COMPLETED || p < seq || p <= fa_entry_coll_seq(d, e) ||
            !(fa_store_op(b->in->store, t->name)->flags & FA_OP_END_MARKER))
            continue;
        const char *name = d->pgs[fa_entry_pg(b->in->store, e)].name;
        if (fa_groups_find(b->groups, ri, name) == (long)gi) return true;
    }
    return false;
}

static bool transfer_of_batch(const builder *b, const fa_dump *d, const fa_entry *e, uint32_t pg,
                              int64_t seq);

/* The entries [*first, *last] of record x's batch in its dump: the run of transfers around it
 * of its group and p2p_seq_id. */
static void batch_span(const builder *b, const p2p_rec *x, uint32_t *first, uint32_t *last) {
    const fa_dump *d = b->in->ranks[x->rank_index].dump;
    const fa_entry *e = &d->entries[x->entry];
    uint32_t pg = fa_entry_pg(b->in->store, e);
    int64_t seq = fa_entry_p2p_seq(d, e);
    *first = *last = x->entry;
    while (*first > 0 && transfer_of_batch(b, d, &d->entries[*first - 1], pg, seq)) (*first)--;
    while (*last + 1 < d->nentries && transfer_of_batch(b, d, &d->entries[*last + 1], pg, seq))
        (*last)++;
}

/* The records of run (group gi, sender position src, receiver position dst) whose sends or recvs
 * (is_send) are asked for: *lo and *hi bound them in b->p2p_order (sorted by compare_runs). */
static void find_run(const builder *b, uint32_t gi, uint32_t src, uint32_t dst, bool is_send,
                     size_t *lo, size_t *hi) {
    p2p_run key = { gi, src, dst, is_send, 0, 0 }, *kp = &key;
    size_t a = 0, z = b->np2p;
    for (int edge = 0; edge < 2; edge++) { /* the first record not below key, then above it */
        size_t l = a, h = b->np2p;
        while (l < h) {
            size_t mid = l + (h - l) / 2;
            const p2p_rec *x = &b->p2p[b->p2p_order[mid]];
            p2p_run here = { x->group, x->src_pos, x->dst_pos, x->is_send, 0, 0 }, *hp = &here;
            int c = compare_runs(&hp, &kp);
            if (c < 0 || (edge && c == 0))
                l = mid + 1;
            else
                h = mid;
        }
        if (edge)
            z = l;
        else
            a = l;
    }
    *lo = a, *hi = z;
}

/* Whether transfer entry e of input rank ri's dump (group gi, p2p_seq_id seq) is shown done at
 * its partner: the peer's record of the same pair and number, the other way, completed (its
 * batch's end marker applied: batch_end_dropped and the rest lift it before pairing). */
static bool done_at_partner(const builder *b, uint32_t ri, const fa_entry *e, uint32_t gi,
                            int64_t seq) {
    const fa_opinfo *op = fa_store_op(b->in->store, fa_entry_traits(b->in->store, e)->name);
    const fa_group *g = &b->groups->v[gi];
    int64_t peer = op->is_send ? op->dst : op->src;
    uint32_t self = UINT32_MAX;
    for (uint32_t k = 0; k < g->nmembers; k++)
        if (g->member_input[k] == (long)ri) self = k;
    if (peer < 0 || peer >= g->nmembers || self == UINT32_MAX) return false;
    uint32_t src = op->is_send ? self : (uint32_t)peer, dst = op->is_send ? (uint32_t)peer : self;
    size_t lo, hi;
    find_run(b, gi, src, dst, !op->is_send, &lo, &hi);
    for (size_t i = lo; i < hi; i++) {
        const p2p_rec *y = &b->p2p[b->p2p_order[i]];
        if (fa_p2p_seq(b->in, y) == seq && y->state == FR_STATE_COMPLETED) return true;
    }
    return false;
}

/* Whether pending record x is shown to be the transfer its batch still waits for: its dump shows
 * the batch's end marker not completed (the batch did not finish: a batch completes as a whole),
 * and every other transfer of the batch is done at its partner (done_at_partner). Then x did not
 * move on the wire, and neither did a partner of it: a partner that completed would have
 * completed x. The other side's dropped records (an only-active dump drops what completed) hold
 * no partner of x then (tests/sim seed 1790: rank 262's recv from 235 posted instead of one from
 * 261, beside its send to 263 that 263's completed batch received; 235's batch of that number
 * completed, its marker dropped, its first transfer at its window's edge). */
static bool waited_for_in_batch(const builder *b, const p2p_rec *x) {
    const fa_dump *d = b->in->ranks[x->rank_index].dump;
    const fa_entry *e = &d->entries[x->entry];
    uint32_t pg = fa_entry_pg(b->in->store, e), first, last;
    int64_t seq = fa_entry_p2p_seq(d, e);
    batch_span(b, x, &first, &last);
    if (first == last || last + 1 >= d->nentries) return false;
    const fa_entry *end = &d->entries[last + 1];
    const fa_traits *t = fa_entry_traits(b->in->store, end);
    if (fa_entry_pg(b->in->store, end) != pg || fa_entry_p2p_seq(d, end) != seq ||
        !(fa_store_op(b->in->store, t->name)->flags & FA_OP_END_MARKER) ||
        t->state == FR_STATE_COMPLETED)
        return false;
    for (uint32_t i = first; i <= last; i++)
        if (i != x->entry && !done_at_partner(b, x->rank_index, &d->entries[i], x->group, seq))
            return false;
    return true;
}

/* Whether x's p2p_seq_id compares with its other side's counts: in a group of two both number
 * every send/recv between them, and the recorder numbers each communicator's launches, which the
 * members of a ring of batches make alike. Under PyTorch's numbering in a larger group each member
 * counts its own send/recv, and the ids of two ranks agree where each posts one batch per step
 * (a ring of batch_isend_irecv), but not those of pipeline stages, the middle ones posting twice
 * per step to the end ones' once: where the ids the two ranks show there do not even overlap
 * (each one's lowest above the other's highest: fa_view.p2p_min, builder.p2p_issued), they are no
 * ring's (sim seed 18328: rank 0's recv #6 from 30, its batch's marker pending, read as done on
 * the wire because 30 completed its own #9, and 0's recv #8 then paired with 30's send #12 into a
 * size mismatch nobody made). */
static bool ids_comparable(const builder *b, const p2p_rec *x) {
    const fa_group *g = &b->groups->v[x->group];
    if (g->nmembers == 2 || b->in->ranks[x->rank_index].dump->launch_numbered) return true;
    uint32_t own = x->is_send ? x->src_pos : x->dst_pos,
             other = x->is_send ? x->dst_pos : x->src_pos;
    if (own >= g->nmembers || other >= g->nmembers) return false;
    size_t at = b->m->view_at[x->group];
    const fa_view *a = &b->m->views[at + own], *o = &b->m->views[at + other];
    return a->p2p_min <= b->p2p_issued[at + other] && o->p2p_min <= b->p2p_issued[at + own];
}

/* Whether pending record x, in a batch, may have been done on the wire with a partner that the
 * other side's window no longer holds: the other side's dump is not its whole history, holds no
 * record of this run with x's p2p_seq_id (Y[0..ny-1], the other side's records), and shows that
 * it completed its send/recv of the group up to x's id or beyond (a batch's end marker lifts its
 * entries), where its counts compare with x's id (ids_comparable); and x's batch is not queued
 * behind an older pending one of its rank (queued_behind: then it ran nothing). Its transfers
 * there ran, and NCCL pairs a peer's sends and recvs in
 * order: x is not shown to pair with the other side's later pending records, whose shapes would
 * then be compared across two transfers (a ring wrapped inside a batch: tests/sim seed 2292). */
static bool partner_maybe_dropped(const builder *b, const p2p_rec *x, const uint32_t *Y,
                                  size_t ny) {
    const fa_group *g = &b->groups->v[x->group];
    uint32_t other = x->is_send ? x->dst_pos : x->src_pos;
    long ri = other < g->nmembers ? g->member_input[other] : -1;
    int64_t seq = fa_p2p_seq(b->in, x);
    if (ri < 0 || whole_history(b, (uint32_t)ri) || !in_batch(b, x) || queued_behind(b, x) ||
        !ids_comparable(b, x) ||
        (b->p2p_completed[b->m->view_at[x->group] + other] < seq &&
         !batch_marker_done(b, (uint32_t)ri, x->group, seq)))
        return false;
    for (size_t i = 0; i < ny; i++)
        if (fa_p2p_seq(b->in, &b->p2p[Y[i]]) == seq) return false;
    return !batch_shown_whole(b, (uint32_t)ri, x->group, seq) && !waited_for_in_batch(b, x);
}

/* Whether the record right after entry i of dump d is missing from it (a gap in the record ids:
 * a ring keeps the newest records, so only an only-active dump, which drops what completed, leaves
 * one there). */
static bool next_record_dropped(const fa_dump *d, uint32_t i) {
    return i + 1 < d->nentries &&
           fa_entry_record_id(d, &d->entries[i + 1]) > fa_entry_record_id(d, &d->entries[i]) + 1;
}

/* Whether send/recv record x's rank says in pg_status that it completed, in x's group, work
 * numbered above both counts x carries: work launched after x there (as later_work_done in
 * match.c reads it). NCCL's PyTorch counters only (gloo counts op ids, the recorder launches). */
static bool later_work_done(const builder *b, const p2p_rec *x) {
    const fa_dump *d = b->in->ranks[x->rank_index].dump;
    const fa_entry *e = &d->entries[x->entry];
    if (d->launch_numbered || d->blocks_caller) return false;
    const fr_pg_status *st = fa_dump_pg_status(d, fa_entry_pg(b->in->store, e));
    return st && st->last_completed > fa_entry_p2p_seq(d, e) &&
           st->last_completed > fa_entry_coll_seq(d, e);
}

/* Per pg slot of one rank's dump: whether it shows the rank posting send/recv there in batches
 * (batch_isend_irecv): a transfer in a visible batch (fa_mb_in_visible_batch). */
typedef struct batches_shown {
    uint32_t rank_index; /* whose dump `in` describes; UINT32_MAX none yet */
    bool *in;            /* per pg slot */
    size_t cap;
} batches_shown;

/* Whether record x's rank's dump shows batches in x's pg slot (1), or not (0); -1 out of memory.
 * Computed once per rank (the records come rank by rank): one pass over its entries. */
static int shown_in_batches(const builder *b, batches_shown *shown, const p2p_rec *x) {
    const fa_dump *d = b->in->ranks[x->rank_index].dump;
    const fa_store *store = b->in->store;
    if (shown->rank_index != x->rank_index) {
        if (fa_grow((void **)&shown->in, &shown->cap, (size_t)d->npgs + 1, sizeof *shown->in))
            return -1;
        memset(shown->in, 0, ((size_t)d->npgs + 1) * sizeof *shown->in);
        shown->rank_index = x->rank_index;
        for (uint32_t i = 0; i < d->nentries; i++)
            if (is_transfer(b, &d->entries[i]) && fa_mb_in_visible_batch(b->in, d, i))
                shown->in[fa_entry_pg(store, &d->entries[i])] = true;
    }
    return shown->in[fa_entry_pg(store, &d->entries[x->entry])];
}

/* Whether pending send/recv record x may be a member of a batch that completed, though its dump
 * shows no entry beside it: the records right before and after it are missing (lost to a ring
 * that wrapped, or dropped as completed by an only-active dump: a batch's other transfer and its
 * end marker may be among them), and pg_status says the rank completed, in x's group, work
 * numbered above both counts x carries (later work there, as later_work_done in match.c reads
 * it; a batch runs on the group's stream, in issue order). */
static bool maybe_done_member(const builder *b, const p2p_rec *x) {
    const fa_dump *d = b->in->ranks[x->rank_index].dump;
    const fa_entry *e = &d->entries[x->entry];
    int64_t id = fa_entry_record_id(d, e);
    bool before = x->entry ? fa_entry_record_id(d, e - 1) < id - 1 : id > 0;
    return before && next_record_dropped(d, x->entry) && later_work_done(b, x);
}

/* Whether pending send/recv record x sits in a batch that completed though its dump shows none of
 * the batch beside it, where its rank's dump shows it posting the group's send/recv in batches
 * (a batch's transfer beside another of its number, or beside its end marker: batches_shown):
 * the record right after x is missing (an only-active dump dropped it as completed: the batch's
 * end marker, or its other transfer; a ring may have taken those before x), and pg_status says
 * the rank completed later work in the group (later_work_done). A batch runs on the group's
 * stream in issue order, and its send/recv stay "scheduled" when its marker completes: x is done
 * (tests/sim seed 8881: a ring of batches wrapped inside every rank's batch #1, whose recv, read
 * as pending, held batch #2 queued behind it and paired with the peer's send #2 into a size
 * mismatch nobody made). Not of a rank whose dump shows no batch there: PyTorch runs a lone
 * send/recv on a communicator of its pair, whose stream later work of the group does not wait for
 * (real run gpu_error_1st: rank 0's lone send to the stalled 12 pending, the group's later
 * transfers to others completed). */
static bool done_alone_in_batched_group(const builder *b, batches_shown *shown, const p2p_rec *x) {
    const fa_dump *d = b->in->ranks[x->rank_index].dump;
    if (!next_record_dropped(d, x->entry) || !later_work_done(b, x)) return false;
    return shown_in_batches(b, shown, x) > 0; /* out of memory: the stricter reading */
}

/* Whether pending record x's other side, whose window shows none of this run's transfers, had
 * issued send/recv in x's group before its window: its oldest entry there carries a send/recv
 * count above what that entry itself launched (PyTorch numbers a group's send/recv launches per
 * rank, a batch once; a collective carries the count so far). Those transfers lie before a ring
 * that wrapped, or an only-active dump dropped them as completed: x's partner may be one of them,
 * so the dumps do not show it was never posted (tests/sim seed 7109: rank 0's recv from 4,
 * frozen "scheduled" in a completed batch at its ring's edge, read as waiting for a send that
 * rank 4 made before its own ring's edge, ahead of rank 0's send to the wrong peer). Not the
 * recorder's launch numbers, nor gloo's (it records no send/recv); not where x's batch is queued
 * behind an older pending one of its rank (queued_behind: it ran nothing, its wait is real). */
static bool partner_before_window(const builder *b, const p2p_rec *x, size_t ny) {
    long ri = other_end(b, x);
    if (ri < 0 || ny || whole_history(b, (uint32_t)ri) || queued_behind(b, x) ||
        !maybe_done_member(b, x))
        return false;
    const fa_dump *d = b->in->ranks[ri].dump;
    if (d->launch_numbered || d->records_no_p2p) return false;
    for (uint32_t k = 0; k < d->npgs; k++) {
        if (fa_groups_find(b->groups, (uint32_t)ri, d->pgs[k].name) != (long)x->group) continue;
        for (uint32_t i = 0; i < d->nentries; i++) {
            const fa_entry *e = &d->entries[i];
            if (fa_entry_pg(b->in->store, e) != k) continue;
            const fa_opinfo *op = fa_store_op(b->in->store, fa_entry_traits(b->in->store, e)->name);
            bool own = op->is_send || op->is_recv || (op->flags & FA_OP_END_MARKER);
            return fa_entry_p2p_seq(d, e) - (own ? 1 : 0) >= 1;
        }
    }
    return false;
}

/* The pending records P[0..n-1] less those partner_maybe_dropped or partner_before_window says
 * nothing is shown to pair with (kept in order, in place); how many are left. Where the run's
 * newest completed send and recv, a pair, carry different p2p_seq_ids (ids_apart), the two sides
 * count apart whatever their ranges (pipeline stages: ids_comparable's overlap test is fooled
 * once their windows meet), and no id says a partner fell off a window (tests/sim seed 18907:
 * stage 3's recv #6 from 2 dropped as done with a send #6 that stage 2, its own numbers at #11,
 * never made; 2's send #11 then read as never received, 3 named). */
static size_t drop_unpairable(const builder *b, uint32_t *P, size_t n, const uint32_t *Y, size_t ny,
                              bool ids_apart) {
    size_t kept = 0;
    for (size_t i = 0; i < n; i++)
        if ((ids_apart || !partner_maybe_dropped(b, &b->p2p[P[i]], Y, ny)) &&
            !partner_before_window(b, &b->p2p[P[i]], ny))
            P[kept++] = P[i];
    return kept;
}

/* Whether pending send s and pending recv r, next in order on their sides of a run whose windows
 * do not both hold the whole history, are no pair the dumps show: their p2p_seq_ids differ (under
 * PyTorch's numbering a ring's members count alike, so a send and recv of one transfer carry one
 * id) and so do their shapes. The sides' earlier transfers lie outside a window (a ring, an
 * only-active dump that dropped what completed): the recv may have taken an earlier send, done on
 * the wire, and the send wait for a later recv. Pairing them by order alone would report a size
 * mismatch nobody made (tests/sim seed 7382: rank 2's recv #3 against rank 1's send #2, whose
 * #2 the only-active dump dropped). The order is shown where either window holds a completed
 * transfer of the run (`anchored`: the pairs count from it, seed 1310), or where either record is
 * queued behind an older pending send/recv of its rank, so that it moved nothing (seed 614). */
static bool unshown_pair(const builder *b, const p2p_rec *s, const p2p_rec *r, bool anchored) {
    return !anchored && !b->in->ranks[s->rank_index].dump->launch_numbered &&
           !b->in->ranks[r->rank_index].dump->launch_numbered &&
           fa_p2p_seq(b->in, s) != fa_p2p_seq(b->in, r) && !same_shapes(b, s, r) &&
           !queued_behind(b, s) && !queued_behind(b, r);
}

/* p2p_op for a send and recv (either may be NULL) that pair_run's fallback pairs by their order
 * in the two windows. That order is shown where both windows hold a completed transfer of the run
 * (`anchored`: the newest completed ones pair, and the pending ones follow them in order); else a
 * side's window may start after transfers the other side's still shows (a ring that wrapped, an
 * older dump), and the two records may be different transfers. Their sizes are compared as before
 * (unshown_pair splits a pair whose ids and shapes both differ); their dtypes are not: a pair of
 * one size and other dtypes would be a mismatch nobody made (tests/sim seed 504: ring 32, pipeline
 * stages, stage 1's pending send #16 paired with stage 0's recv #12 of one size, other dtypes). */
static int order_pair(builder *b, const p2p_rec *s, const p2p_rec *r, bool anchored) {
    if (p2p_op(b, s, r)) return -1;
    b->m->ops[b->m->nops - 1].order_unshown = s && r && !anchored;
    return 0;
}

/* Pairs one (group, sender, receiver) run, the records b->p2p[run[0..n-1]] (sends first): by
 * p2p_seq_id where the two sides' ids count alike (pair_by_seq), in order where both histories are
 * whole, by p2p_seq_id again where the ids bear it out (seq_ids_borne_out); else completed ones
 * from the newest backwards, a side's surplus of completed ones with the other side's oldest
 * pending ones in batches (done_on_wire), then pending sends with pending recvs in order; leftovers
 * that completed are the window's edge, not findings. */
static int pair_run(builder *b, const uint32_t *run, size_t n) {
    const p2p_rec *v = b->p2p;
    size_t ns = 0;
    while (ns < n && v[run[ns]].is_send) ns++;
    const uint32_t *S = run, *R = run + ns;
    size_t nr = n - ns, cs = 0, cr = 0;
    note_older_by_count(b, other_end(b, &v[run[0]]), ns ? nr : ns, run, ns ? ns : nr);
    if (ns && nr) note_older_by_count(b, other_end(b, &v[R[0]]), ns, R, nr);
    if (ns && nr && v[run[0]].src_pos != UINT32_MAX && v[run[0]].dst_pos != UINT32_MAX &&
        seq_ids_align(b, &v[run[0]]))
        return pair_by_seq(b, S, ns, R, nr);
    if (ns && nr && whole_history(b, v[S[0]].rank_index) && whole_history(b, v[R[0]].rank_index))
        return pair_in_order(b, S, ns, R, nr);
    if (ns && nr && v[run[0]].src_pos != UINT32_MAX && v[run[0]].dst_pos != UINT32_MAX &&
        seq_ids_borne_out(b, S, ns, R, nr))
        return pair_by_seq(b, S, ns, R, nr);
    if (!(ns && nr) && v[run[0]].src_pos != UINT32_MAX && v[run[0]].dst_pos != UINT32_MAX &&
        seq_ids_align(b, &v[run[0]]))
        note_older_alone(b, run, n);
    while (cs < ns && v[S[cs]].state == FR_STATE_COMPLETED) cs++;
    while (cr < nr && v[R[cr]].state == FR_STATE_COMPLETED) cr++;
    if (v[run[0]].src_pos == UINT32_MAX ||
        v[run[0]].dst_pos == UINT32_MAX) { /* recv from any source */
        for (size_t i = 0; i < n; i++) {
            const p2p_rec *x = &v[run[i]];
            if (x->state != FR_STATE_COMPLETED &&
                p2p_op(b, x->is_send ? x : NULL, x->is_send ? NULL : x))
                return -1;
        }
        return 0;
    }
    size_t es = cs > cr ? done_on_wire(b, S + cr, cs - cr, R + cr, nr - cr, S + cs, ns - cs)
                        : 0; /* sends done */
    size_t er = cr > cs ? done_on_wire(b, R + cs, cr - cs, S + cs, ns - cs, R + cr, nr - cr)
                        : 0; /* recvs done */
    for (size_t i = 0; i < es; i++)
        if (order_pair(b, &v[S[cs - es + i]], &v[R[cr + i]], cs && cr)) return -1;
    for (size_t i = 0; i < er; i++)
        if (order_pair(b, &v[S[cs + i]], &v[R[cr - er + i]], cs && cr)) return -1;
    for (size_t i = 0; i < cs - es && i < cr - er; i++)
        if (p2p_op(b, &v[S[cs - es - 1 - i]], &v[R[cr - er - 1 - i]])) return -1;
    size_t ps = ns - cs - er, pr = nr - cr - es;
    uint32_t *PS = malloc((ps + pr + 1) * sizeof *PS), *PR = PS + ps;
    if (!PS) return -1;
    memcpy(PS, S + cs + er, ps * sizeof *PS);
    memcpy(PR, R + cr + es, pr * sizeof *PR);
    /* the run's newest completed pair carries two ids: its sides count apart (pipeline stages),
     * and no id says a partner fell off a window */
    bool apart = cs > es && cr > er &&
                 fa_p2p_seq(b->in, &v[S[cs - es - 1]]) != fa_p2p_seq(b->in, &v[R[cr - er - 1]]);
    ps = drop_unpairable(b, PS, ps, R, nr, apart);
    pr = drop_unpairable(b, PR, pr, S, ns, apart);
    int rc = 0;
    for (size_t i = 0; rc == 0 && (i < ps || i < pr); i++) {
        const p2p_rec *s = i < ps ? &v[PS[i]] : NULL, *r = i < pr ? &v[PR[i]] : NULL;
        if (s && r && unshown_pair(b, s, r, cs || cr))
            rc = p2p_op(b, s, NULL) || p2p_op(b, NULL, r);
        else
            rc = order_pair(b, s, r, cs && cr);
    }
    free(PS);
    return rc;
}

static bool same_pair(const p2p_rec *a, const p2p_rec *b) {
    return a->group == b->group && a->src_pos == b->src_pos && a->dst_pos == b->dst_pos;
}

/* Whether entry e is a send/recv of group pg's batch number seq. A collective issued after the
 * batch carries the group's send/recv count too (its p2p_seq_id), yet is no part of it. */
static bool transfer_of_batch(const builder *b, const fa_dump *d, const fa_entry *e, uint32_t pg,
                              int64_t seq) {
    return fa_entry_pg(b->in->store, e) == pg && fa_entry_p2p_seq(d, e) == seq && is_transfer(b, e);
}

/* Whether the end marker of batch number seq of pg slot pg, whose last transfer `end` is its
 * dump's newest entry, was made: pg_status says the group's last work enqueued is numbered seq.
 * A batch's transfers enqueue no work; its marker does, numbered by the send/recv count (seq),
 * and is recorded right after them. The last work enqueued is no collective before the batch:
 * those number up to the count `end` carries (collective_seq_id), the newest of them that count
 * itself, which seq then must differ from; anything enqueued after the batch (a collective, a
 * later send/recv) came after its marker too. A rank whose CPU stopped between the transfers and
 * the marker shows its last collective's number or its previous batch's. NCCL's counters only
 * (gloo counts op ids and records no send/recv; the recorder numbers launches). */
static bool batch_end_made(const fa_dump *d, const fa_entry *end, uint32_t pg, int64_t seq) {
    if (d->blocks_caller || d->launch_numbered || d->records_no_p2p) return false;
    const fr_pg_status *st = fa_dump_pg_status(d, pg);
    return st && st->last_enqueued == seq && seq != fa_entry_coll_seq(d, end);
}

/* Whether record x sits in a batch of two or more send/recv whose `coalesced` end marker the dump
 * dropped: the batch's last transfer is followed by a gap in the record ids, where the marker
 * was. A dump drops only what completed (only-active), and PyTorch leaves a batch's send/recv
 * "scheduled" when its marker completes: the batch completed (as a rank's own counters say of a
 * coalesced bundle of collectives). At the dump's end no gap shows, but a ring keeps the newest
 * records: a marker made (batch_end_made) and not shown was dropped as completed (tests/sim seed
 * 8926: a ring of batches, every rank's last, rank 86's dump unreadable). */
static bool batch_end_dropped(const builder *b, const p2p_rec *x) {
    const fa_dump *d = b->in->ranks[x->rank_index].dump;
    const fa_entry *e = &d->entries[x->entry];
    uint32_t pg = fa_entry_pg(b->in->store, e), first, last;
    int64_t seq = fa_entry_p2p_seq(d, e);
    batch_span(b, x, &first, &last);
    const fa_entry *end = &d->entries[last];
    if (last == first) return false;
    if (last + 1 == d->nentries) return batch_end_made(d, end, pg, seq);
    return next_record_dropped(d, last);
}

/* Per pg slot of one rank's dump: the highest p2p_seq_id up to which its send/recv there are
 * done by its own counters (done_by_own_counters), -1 none. */
typedef struct own_counters {
    uint32_t rank_index; /* whose dump `done` describes; UINT32_MAX none yet */
    int64_t *done;       /* per pg slot; then scratch: three more per pg slot */
    size_t cap;
} own_counters;

/* The p2p_seq_id that pg_status says the rank completed last in pg slot k, where the last work
 * it enqueued there is shown as its newest entry there: numbered as its newest send/recv (top),
 * or as the collective that is its newest entry (last: that collective_seq_id, -1 where the
 * newest entry is no plain collective; tests/sim seed 5419, a collective issued on the pipeline
 * group after its batches); and where no collective it issued there carries that number (coll:
 * the highest collective_seq_id of its entries there; PyTorch's pg_status numbers a collective
 * by its collective_seq_id, tests/sim seed 684: a completed barrier #1 beside a pending batch
 * #1), or where it is below the collectives its stream ran before its oldest pending one (pend:
 * that one's collective_seq_id): collectives complete in order, so work numbered less that
 * completed after them is a send/recv (tests/sim seed 15624: rank 2's "completed 1", its ring
 * exchange batch #1 after all_gather #5 pending, read as stalled in its recv); -1 otherwise. */
static int64_t counted_done(const fa_dump *d, uint32_t k, int64_t top, int64_t last, int64_t coll,
                            int64_t pend) {
    const fr_pg_status *st = fa_dump_pg_status(d, k);
    if (!st) return -1;
    bool shown = st->last_enqueued == top || st->last_enqueued == last;
    bool not_collective = st->last_completed > coll || st->last_completed < pend - 1;
    return shown && st->last_completed <= top && not_collective ? st->last_completed : -1;
}

/* Per pg slot k of input rank ri's dump (o->done[k]): the p2p_seq_id up to which its
 * send/recv there are done by its own counters (counted_done, where its entry of that number
 * is a send/recv that still says pending), -1 none. */
static int own_counters_of(const builder *b, own_counters *o, uint32_t ri) {
    const fa_dump *d = b->in->ranks[ri].dump;
    const fa_store *store = b->in->store;
    if (o->rank_index == ri) return 0;
    if (fa_grow((void **)&o->done, &o->cap, 4 * (size_t)d->npgs + 1, sizeof *o->done)) return -1;
    int64_t *coll = o->done + d->npgs, *last = coll + d->npgs, *pend = last + d->npgs;
    o->rank_index = ri;
    for (uint32_t k = 0; k < d->npgs; k++) o->done[k] = coll[k] = last[k] = pend[k] = -1;
    for (uint32_t i = 0; i < d->nentries; i++) { /* the newest transfer's number, per group */
        const fa_entry *e = &d->entries[i];
        uint32_t k = fa_entry_pg(store, e);
        bool plain = fa_entry_plain_collective(store, e);
        if (fa_entry_coll_seq(d, e) > coll[k]) coll[k] = fa_entry_coll_seq(d, e);
        if (is_transfer(b, e)) o->done[k] = fa_entry_p2p_seq(d, e);
        last[k] = plain ? fa_entry_coll_seq(d, e) : -1;
        if (plain && pend[k] < 0 && fa_entry_traits(store, e)->state != FR_STATE_COMPLETED)
            pend[k] = fa_entry_coll_seq(d, e);
    }
    for (uint32_t k = 0; k < d->npgs; k++)
        o->done[k] =
            o->done[k] >= 0 ? counted_done(d, k, o->done[k], last[k], coll[k], pend[k]) : -1;
    for (uint32_t k = 0; k < d->npgs; k++) { /* kept where that number's transfer shows pending */
        bool pending = false;
        for (uint32_t i = 0; i < d->nentries && o->done[k] >= 0 && !pending; i++) {
            const fa_entry *e = &d->entries[i];
            pending = fa_entry_pg(store, e) == k && fa_entry_p2p_seq(d, e) == o->done[k] &&
                      is_transfer(b, e) && fa_entry_traits(store, e)->state != FR_STATE_COMPLETED;
        }
        o->done[k] = pending ? o->done[k] : -1;
    }
    return 0;
}

/* Whether pending send/recv record x completed by its rank's own counters, in a group of any
 * size: pg_status says the rank completed work numbered C in the group, its last enqueued there
 * is numbered as its newest send/recv (PyTorch's counters mix collective and send/recv numbers:
 * read as send/recv numbers, as complete_p2p_by_counters reads a pair's, unless as many
 * collectives as it numbered send/recv followed there, all completed), and its entry W numbered
 * C still says pending. A lone send/recv that completed is dumped "completed" (its own end event
 * is read at dump time), so W sits in a batch whose end marker completed (PyTorch leaves a
 * batch's send/recv "scheduled"; an only-active dump drops the marker, and a batch of one
 * transfer then shows nothing beside it): W ran on the group's own stream, in issue order after
 * every earlier batch of the rank there, x's (numbered C or less) among them (tests/sim seed
 * 3962: pipeline stages of batches of one, all done, their entries paired across windows that
 * start at different transfers into size mismatches nobody made). A rank that ran the group's
 * send/recv both alone and in batches could hold a lone x pending on its pair's stream: as
 * complete_p2p_by_counters, this reads one program's send/recv as all batched or all alone.
 * NCCL-numbered dumps only (gloo's counters count op ids, the recorder's launches). */
static bool done_by_own_counters(const builder *b, own_counters *o, const p2p_rec *x) {
    const fa_dump *d = b->in->ranks[x->rank_index].dump;
    if (!fa_dump_nccl_numbered(d) || own_counters_of(b, o, x->rank_index)) return false;
    return fa_p2p_seq(b->in, x) <= o->done[fa_entry_pg(b->in->store, &d->entries[x->entry])];
}

int fa_mb_pair_p2p(builder *b) {
    size_t nviews = b->groups->n
                        ? b->m->view_at[b->groups->n - 1] + b->groups->v[b->groups->n - 1].nmembers
                        : 0;
    b->p2p_issued = malloc((nviews + 1) * sizeof *b->p2p_issued);
    b->p2p_completed = malloc((nviews + 1) * sizeof *b->p2p_completed);
    b->p2p_oldest_pending = malloc((b->in->nranks + 1) * sizeof *b->p2p_oldest_pending);
    uint32_t *order =
        b->p2p_issued && b->p2p_completed && b->p2p_oldest_pending ? sort_p2p(b) : NULL;
    if (!order) {
        free(b->p2p_issued);
        free(b->p2p_completed);
        free(b->p2p_oldest_pending);
        return -1;
    }
    for (size_t i = 0; i < nviews; i++) b->p2p_issued[i] = b->p2p_completed[i] = -1;
    for (size_t i = 0; i < b->in->nranks; i++) b->p2p_oldest_pending[i] = UINT32_MAX;
    own_counters own = { UINT32_MAX, NULL, 0 };
    batches_shown shown = { UINT32_MAX, NULL, 0 };
    for (size_t i = 0; i < b->np2p; i++) {
        p2p_rec *x = &b->p2p[i];
        if (x->state != FR_STATE_COMPLETED &&
            (batch_end_dropped(b, x) || done_alone_in_batched_group(b, &shown, x) ||
             done_by_own_counters(b, &own, x)))
            x->state = FR_STATE_COMPLETED;
        if (x->state != FR_STATE_COMPLETED && x->entry < b->p2p_oldest_pending[x->rank_index])
            b->p2p_oldest_pending[x->rank_index] = x->entry;
        size_t at = b->m->view_at[x->group] + fa_p2p_member(x);
        int64_t seq = fa_p2p_seq(b->in, x);
        if (seq > b->p2p_issued[at]) b->p2p_issued[at] = seq;
        if (x->state == FR_STATE_COMPLETED && seq > b->p2p_completed[at])
            b->p2p_completed[at] = seq;
    }
    free(own.done);
    free(shown.in);
    int rc = 0;
    b->p2p_order = order;
    for (size_t i = 0; i < b->np2p && rc == 0;) {
        size_t j = i;
        while (j < b->np2p && same_pair(&b->p2p[order[j]], &b->p2p[order[i]])) j++;
        rc = pair_run(b, order + i, j - i);
        i = j;
    }
    free(order);
    b->p2p_order = NULL;
    free(b->p2p_issued);
    free(b->p2p_completed);
    free(b->p2p_oldest_pending);
    b->p2p_issued = b->p2p_completed = NULL;
    b->p2p_oldest_pending = NULL;
    return rc;
}
