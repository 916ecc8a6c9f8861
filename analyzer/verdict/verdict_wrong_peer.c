/* verdict_wrong_peer.c — a send/recv posted to the wrong peer, for the wait graph
 * (verdict_waits.c): such a post leaves two unmatched halves, its own to a peer that never posted
 * the other side (nor had to) and the one its right peer posted and waits in. Which lone ends pair
 * up that way, and whether the peer they excuse is blocked by others (then it is a victim, not
 * excused), is decided here (fa_vw_wrong_peer_ops); fa_vw_wrong_end_records says where each
 * poster's own mistake begins, after which nothing it has pending waits on anyone. Also the
 * batch walk both files use (fa_vw_batch_start). Linear in ops + calls, but for the sorts of the
 * lone ends (n log n) and one search of the holds graph (linear) per wrong end whose peer is
 * blocked or waited for (holds_chain).
 */
#include "util/index.h"
#include "verdict/verdict_graph.h"
#include "verdict/verdict_steps.h"

#include <stdlib.h>

/* One end of a send/recv that only one side posted, filed under `key` (wrong_peer_ops). */
typedef struct lone_end {
    int64_t key, other;
    uint32_t op;
    bool posted_by_key; /* the rank `key` posted it (the others' waits are on `key`) */
} lone_end;

static int compare_ends(const void *pa, const void *pb) {
    const lone_end *a = pa, *b = pb;
    if (a->key != b->key) return a->key < b->key ? -1 : 1;
    return (a->other > b->other) - (a->other < b->other);
}

/* What excuses the peer of a send/recv posted to the wrong peer (mark_wrong_ends): per node,
 * whether the rank is blocked (it has a call pending in an op that a member never joined, or may
 * not have: no dump, an older one; a send/recv without its other side included), and, for the
 * (peer, poster) pairs asked in `asked` (key peer * nfacts + poster), whether the peer is blocked
 * in an op that the poster is absent from (value set to 1): then the peer waits for the poster. */
typedef struct peer_blocks {
    bool *blocked;
    bool *waited;            /* per node: absent from an op others wait in (no lone send/recv) */
    bool *asked_peer;        /* per node: some pair asks about it */
    int64_t *oldest_pending; /* per node: the record id of its oldest pending call, INT64_MAX */
    fa_imap asked;
    fa_imap passed;  /* passed_key of each posted end's peer: 1 when it completed that slot */
    fa_imap aligned; /* aligned_key: a pair of the two ranks matched in the group, both at seq */
    /* holds_at/holds: per rank node, the ops it has pending; per op (node d->nfacts + op), its
     * members that hold those up (absent, or queued behind an older pending call of their
     * own); CSR, built on first need (holds_chain). stamp: the search's marks, per node. */
    size_t *holds_at;
    uint32_t *holds, *stamp, searches;
} peer_blocks;

/* The key of (group, p2p_seq_id, global rank) in peer_blocks.passed. */
static uint64_t passed_key(uint32_t group, int64_t seq, int64_t rank) {
    return fa_key2(fa_key2(group, (uint64_t)seq), (uint64_t)rank);
}

/* The index in its dump of the first entry of the batch that call c's first entry belongs to (the
 * entries before it with its group and p2p_seq_id), its own when alone. */
uint32_t fa_vw_batch_start(const decider *d, const fa_call *c) {
    const fa_dump *dump = d->in->ranks[c->rank_index].dump;
    const fa_entry *e = fa_call_entry(d->m, d->in, c, 0);
    uint32_t pg = fa_entry_pg(d->in->store, e), at = (uint32_t)(e - dump->entries);
    int64_t seq = fa_entry_p2p_seq(dump, e);
    while (at > 0 && fa_entry_pg(d->in->store, &dump->entries[at - 1]) == pg &&
           fa_entry_p2p_seq(dump, &dump->entries[at - 1]) == seq)
        at--;
    return at;
}

/* The record id of the first entry of the batch that member's call in send/recv op `op` belongs
 * to, its own when alone. */
int64_t fa_vw_batch_first_record(const decider *d, size_t op, uint32_t member) {
    const fa_call *c = fa_op_call(d->m, op, member);
    if (!c) return INT64_MAX;
    const fa_dump *dump = d->in->ranks[c->rank_index].dump;
    return fa_entry_record_id(dump, &dump->entries[fa_vw_batch_start(d, c)]);
}

/* Whether a member pending in op has it queued behind an older pending call of its own (a
 * send/recv: behind an older launch than its batch): its stream has not reached op (a rank
 * waits in its oldest unfinished launch), so the others there wait for it as for one that never
 * issued op. */
static bool queued_in(const decider *d, const peer_blocks *b, size_t op, uint32_t member,
                      long node) {
    int64_t at = d->m->ops[op].is_p2p ? fa_vw_batch_first_record(d, op, member)
                                      : fa_vg_call_record(d, op, member);
    return node >= 0 && at > b->oldest_pending[node];
}

/* The members of op (its expected states in d->members/d->states) that hold the pending member
 * `peer` up there (absent, or queued behind their own older pending call) and that some pair
 * asks about, noted in b->asked. */
static int note_waits_on(const decider *d, peer_blocks *b, size_t op, const fa_group *grp,
                         uint32_t n, long peer, uint64_t how) {
    for (uint32_t k = 0; k < n; k++) {
        long poster = fa_vg_rank_node(d, grp->members[d->members[k]]);
        if (!fa_member_state_absent(d->states[k]) &&
            !(fa_member_state_pending(d->states[k]) && queued_in(d, b, op, d->members[k], poster)))
            continue;
        uint64_t key = (uint64_t)peer * d->nfacts + (uint64_t)poster, seen;
        if (poster >= 0 && fa_imap_get(&b->asked, key, &seen) && (!seen || how < seen) &&
            fa_imap_put(&b->asked, key, how))
            return -1;
    }
    return 0;
}

/* Whether member k of op (expected states in d->members/d->states, its node `node`) holds up the
 * members pending there: absent, or queued behind an older pending call of its own. */
static bool holds_up(const decider *d, const peer_blocks *b, size_t op, uint32_t k, long node) {
    return node >= 0 &&
           (fa_member_state_absent(d->states[k]) ||
            (fa_member_state_pending(d->states[k]) && queued_in(d, b, op, d->members[k], node)));
}

/* b->oldest_pending from the calls alone: a call not completed, in a dump as new as its peers'. */
static int find_oldest_pending(const decider *d, peer_blocks *b) {
    b->oldest_pending = malloc((d->nfacts + 1) * sizeof *b->oldest_pending);
    if (!b->oldest_pending) return -1;
    for (size_t i = 0; i < d->nfacts; i++) b->oldest_pending[i] = INT64_MAX;
    for (size_t op = 0; op < d->m->nops; op++) {
        const fa_op *o = &d->m->ops[op];
        const fa_group *grp = &d->groups->v[o->group];
        for (uint32_t k = 0; k < o->ncalls; k++) {
            const fa_call *c = &d->m->calls[o->first_call + k];
            if (c->state == FR_STATE_COMPLETED) continue;
            long node = fa_vg_rank_node(d, grp->members[c->member]);
            int64_t rec = fa_call_record_id(d->m, d->in, c, 0);
            if (node >= 0 && rec < b->oldest_pending[node]) b->oldest_pending[node] = rec;
        }
    }
    return 0;
}

/* b->blocked and b->waited per node, and b->asked: which asked peers wait on which posters, in
 * an op where the poster is absent or has it queued behind an older pending call of its own (its
 * stream has not reached it: tests/sim seeds 5995, 8682, a peer waiting in the group's next
 * all_reduce for the rank whose batch before it received from the wrong peer). A member queued
 * there makes no peer blocked: it issued the op, and where its own head waits is judged there. */
static int blocked_ranks(const decider *d, peer_blocks *b) {
    b->blocked = calloc(d->nfacts + 1, 1);
    b->waited = calloc(d->nfacts + 1, 1);
    if (!b->blocked || !b->waited || find_oldest_pending(d, b)) return -1;
    for (size_t op = 0; op < d->m->nops; op++) {
        const fa_group *grp = &d->groups->v[d->m->ops[op].group];
        uint32_t n = fa_vg_expected_states(d, op);
        bool absent = false, pending = false, held = false;
        for (uint32_t k = 0; k < n; k++) {
            absent |= fa_member_state_absent(d->states[k]);
            pending |= fa_member_state_pending(d->states[k]);
        }
        for (uint32_t k = 0; pending && !absent && !held && k < n; k++)
            held = holds_up(d, b, op, k, fa_vg_rank_node(d, grp->members[d->members[k]]));
        const fa_op *o = &d->m->ops[op];
        for (uint32_t k = 0; pending && !(o->is_p2p && o->ncalls == 1) && k < n; k++) {
            long node = fa_vg_rank_node(d, grp->members[d->members[k]]);
            if (node >= 0 && fa_member_state_absent(d->states[k])) b->waited[node] = true;
        }
        for (uint32_t k = 0; (absent || held) && k < n; k++) {
            long node = fa_vg_rank_node(d, grp->members[d->members[k]]);
            if (node < 0 || !fa_member_state_pending(d->states[k])) continue;
            b->blocked[node] |= absent;
            if (b->asked_peer[node] && note_waits_on(d, b, op, grp, n, node, absent ? 1 : 2))
                return -1;
        }
    }
    return 0;
}

/* The key of (group, p2p_seq_id, the two global ranks in either order) in peer_blocks.aligned. */
static uint64_t aligned_key(uint32_t group, int64_t seq, int64_t a, int64_t b) {
    return fa_key2(passed_key(group, seq, a < b ? a : b), (uint64_t)(a < b ? b : a));
}

/* b->aligned: each send/recv of two calls whose entries carry one p2p_seq_id: the two ranks'
 * launches of that number in the group exchanged data, so they are the same slot of the common
 * pattern (a rank that skipped a send/recv before numbers its later launches one lower). */
static int find_aligned_pairs(const decider *d, peer_blocks *b) {
    for (size_t op = 0; op < d->m->nops; op++) {
        const fa_op *o = &d->m->ops[op];
        if (!o->is_p2p || o->ncalls != 2) continue;
        const fa_call *x = &d->m->calls[o->first_call], *y = x + 1;
        int64_t sx = fa_entry_p2p_seq(d->in->ranks[x->rank_index].dump,
                                      fa_call_entry(d->m, d->in, x, 0)),
                sy = fa_entry_p2p_seq(d->in->ranks[y->rank_index].dump,
                                      fa_call_entry(d->m, d->in, y, 0));
        const fa_group *grp = &d->groups->v[o->group];
        if (sx == sy &&
            fa_imap_put(&b->aligned,
                        aligned_key(o->group, sx, grp->members[x->member], grp->members[y->member]),
                        1))
            return -1;
    }
    return 0;
}

/* For each end a rank posted (ends[0..n-1], one filing), whether its peer's dump shows a
 * send/recv of the group with the poster's p2p_seq_id completed (b->passed set to 1): the peer
 * ran that slot of the common pattern to the end without the half the poster posted. */
static int find_passed_slots(const decider *d, const lone_end *ends, size_t n, peer_blocks *b) {
    size_t asked = 0;
    for (size_t i = 0; i < n; i++) {
        const fa_op *o = &d->m->ops[ends[i].op];
        if (!ends[i].posted_by_key) continue;
        if (fa_imap_put(&b->passed, passed_key(o->group, o->seq, ends[i].other), 0)) return -1;
        asked++;
    }
    for (size_t op = 0; asked && op < d->m->nops; op++) {
        const fa_op *o = &d->m->ops[op];
        if (!o->is_p2p) continue;
        for (uint32_t k = 0; k < o->ncalls; k++) {
            const fa_call *c = &d->m->calls[o->first_call + k];
            if (c->state != FR_STATE_COMPLETED) continue;
            const fa_dump *dump = d->in->ranks[c->rank_index].dump;
            int64_t seq = fa_entry_p2p_seq(dump, fa_call_entry(d->m, d->in, c, 0));
            uint64_t key = passed_key(o->group, seq, d->groups->v[o->group].members[c->member]),
                     seen;
            if (fa_imap_get(&b->passed, key, &seen) && !seen && fa_imap_put(&b->passed, key, 1))
                return -1;
        }
    }
    return 0;
}

/* The edges of op for build_holds (counted, or put when `put`): each node pending there to the
 * op's node, the op's node to each node that holds it up; none where nobody holds it up. */
static void note_holds(const decider *d, peer_blocks *b, size_t op, bool put, size_t *fill) {
    const fa_group *grp = &d->groups->v[d->m->ops[op].group];
    uint32_t n = fa_vg_expected_states(d, op), held = 0;
    size_t x = d->nfacts + op;
    for (uint32_t k = 0; k < n; k++) {
        long node = fa_vg_rank_node(d, grp->members[d->members[k]]);
        if (!holds_up(d, b, op, k, node)) continue;
        held++;
        if (put)
            b->holds[fill[x]++] = (uint32_t)node;
        else
            b->holds_at[x + 1]++;
    }
    for (uint32_t k = 0; held && k < n; k++) {
        long node = fa_vg_rank_node(d, grp->members[d->members[k]]);
        if (node < 0 || !fa_member_state_pending(d->states[k])) continue;
        if (put)
            b->holds[fill[node]++] = (uint32_t)x;
        else
            b->holds_at[node + 1]++;
    }
}

/* b->holds_at/holds, CSR over the rank nodes and one node per op (d->nfacts + op): a rank to the
 * ops it has pending, an op to the ranks that hold it up (note_holds). Linear in the calls. */
static int build_holds(const decider *d, peer_blocks *b) {
    size_t nn = d->nfacts + d->m->nops;
    b->holds_at = calloc(nn + 2, sizeof *b->holds_at);
    b->stamp = calloc(nn + 1, sizeof *b->stamp);
    size_t *fill = malloc((nn + 1) * sizeof *fill);
    if (!b->holds_at || !b->stamp || !fill) {
        free(fill);
        return -1;
    }
    for (int put = 0; put < 2; put++) {
        if (put) {
            for (size_t v = 1; v <= nn; v++) b->holds_at[v] += b->holds_at[v - 1];
            for (size_t v = 0; v < nn; v++) fill[v] = b->holds_at[v];
            if (!(b->holds = malloc((b->holds_at[nn] + 1) * sizeof *b->holds))) break;
        }
        for (size_t op = 0; op < d->m->nops; op++) note_holds(d, b, op, put, fill);
    }
    free(fill);
    return b->holds ? 0 : -1;
}

/* Whether `peer` waits on `key` through a chain of ranks each held up by the next (build_holds):
 * a peer blocked by a rank that waits on key is key's victim as much as one blocked by key
 * itself (tests/sim seed 2454: a pipeline stage waits to receive from the stage whose own recv
 * waits on the stage that sent elsewhere). Out of memory reads as no chain. */
static bool holds_chain(const decider *d, peer_blocks *b, long peer, long key) {
    if (!b->holds_at && build_holds(d, b)) return false;
    uint32_t mark = ++b->searches, *queue = malloc((d->nfacts + d->m->nops + 1) * sizeof *queue);
    if (!queue) return false;
    size_t qn = 0;
    queue[qn++] = (uint32_t)peer;
    b->stamp[peer] = mark;
    bool found = false;
    for (size_t q = 0; q < qn && !found; q++)
        for (size_t e = b->holds_at[queue[q]]; e < b->holds_at[queue[q] + 1] && !found; e++) {
            uint32_t w = b->holds[e];
            found = w == (uint32_t)key;
            if (b->stamp[w] != mark) {
                b->stamp[w] = mark;
                queue[qn++] = w;
            }
        }
    free(queue);
    return found;
}

/* Whether lone send/recv op's one call sits in a batch of its rank (an entry beside it of its
 * group and p2p_seq_id: another transfer, or the end marker). */
static bool posted_in_batch(const decider *d, size_t op) {
    const fa_call *c = &d->m->calls[d->m->ops[op].first_call];
    const fa_dump *dump = d->in->ranks[c->rank_index].dump;
    const fa_entry *e = fa_call_entry(d->m, d->in, c, 0);
    uint32_t pg = fa_entry_pg(d->in->store, e), at = (uint32_t)(e - dump->entries);
    int64_t seq = fa_entry_p2p_seq(dump, e);
    for (int side = -1; side <= 1; side += 2) {
        if ((side < 0 && at == 0) || (side > 0 && at + 1 >= dump->nentries)) continue;
        const fa_entry *n = e + side;
        if (fa_entry_pg(d->in->store, n) == pg && fa_entry_p2p_seq(dump, n) == seq) return true;
    }
    return false;
}

/* Whether the lone end that its poster (end->other, not the key it is filed under) posted is
 * queued behind an older pending call of the poster's own: its stream has not reached it, so it
 * waits on nobody yet, and says less of key than an end its poster waits in (mark_wrong_ends). */
static bool queued_end(const decider *d, const peer_blocks *b, const lone_end *end) {
    const fa_call *c = &d->m->calls[d->m->ops[end->op].first_call];
    return queued_in(d, b, end->op, c->member, fa_vg_rank_node(d, end->other));
}

/* Whether lone ops a and b move tensors of one shape and dtype: a send/recv posted to the wrong
 * peer carries what its right peer waits for, so the end that waits on its poster is of its
 * shapes (tests/sim seed 12978: pipeline stage 2's forward send to 3, [[16]] Float, read as
 * meant for stage 1, whose backward recv of [[1]] Half waits on it, beside stage 3's recv of
 * [[16]] Float from stage 0, the true wrong end). Not asked of an end queued behind its poster's
 * own older call (queued_end): NCCL pairs in posting order, and the one left over is a later
 * transfer of the run, of its own shapes (sim seed 15721). */
static bool same_tensor(const decider *d, uint32_t a, uint32_t b) {
    const fa_entry *x = fa_op_rep_entry(d->m, &d->m->ops[a]),
                   *y = fa_op_rep_entry(d->m, &d->m->ops[b]);
    if (!x || !y) return true;
    const fa_traits *tx = fa_entry_traits(d->in->store, x), *ty = fa_entry_traits(d->in->store, y);
    return tx->in_sizes == ty->in_sizes && tx->in_dtypes == ty->in_dtypes;
}

/* Marks drop[op] for each end that `key` posted to a peer other than every peer that waits on
 * it for the opposite end in the same group (a wrong peer is another member of the group the
 * send/recv names), when that peer's dump shows it never posted the other side (no dump, or an
 * older one, says nothing of that) and the peer is not blocked by others (blocked and not waiting
 * for key: then it may be on its way to the end key posted, and key is its victim): key's ends in
 * ends[from..to). A peer that others wait for elsewhere (absent from an op they have pending,
 * a collective or a matched send/recv) is where they are stuck, as key may be: no excuse for
 * it (a pipeline stage receiving from the stage that stopped). But a peer, blocked or waited for,
 * that waits for key, itself or through a chain of ranks each held up by the next (holds_chain),
 * is held up by key: the two wait for each other, and the one that left the common pattern is
 * key, which posted where nobody waits (others waiting for the peer wait for key through it).
 * Where the peer that waits on the other half is not seen (no dump, cut), a peer waiting for key
 * that ran the very slot of key's end (its send/recv of the group with key's p2p_seq_id) to the
 * end without it shows the same: the common pattern went on without key's half (a slot only
 * where key posted its end in a batch: posted_in_batch).
 * An end waiting on key that its poster has queued behind an older pending call of its own
 * (queued_end) waits on nobody yet: it counts (wrong_from set, the second round) only where
 * the peer key's end would excuse posted no wrong end itself (fa_vw_wrong_end_records of the
 * first round's drops). tests/sim seed 17689: stage 1 sent to 3 instead of 2; 2's recv from 1
 * looked posted to the wrong source beside 3's send to 2, queued behind 3's recv from 2 (which 2's
 * send, queued behind that recv from 1, answers); seed 15721: 4 received from 16 instead of 3, and
 * 3's only lone send to 4 is its second, queued behind its first. */
static void mark_wrong_ends(const decider *d, const lone_end *ends, size_t from, size_t to,
                            peer_blocks *b, const int64_t *wrong_from, bool *drop) {
    for (size_t i = from; i < to; i++) {
        long peer = fa_vg_rank_node(d, ends[i].other), key = fa_vg_rank_node(d, ends[i].key);
        if (!ends[i].posted_by_key || peer < 0 || key < 0) continue;
        if (wrong_from && wrong_from[peer] != INT64_MAX) continue; /* it posted a wrong end */
        uint64_t waits_on_key = 0;
        fa_imap_get(&b->asked, (uint64_t)peer * d->nfacts + (uint64_t)key, &waits_on_key);
        bool held = b->blocked[peer] || b->waited[peer];
        if (!fa_vg_state_known(&d->facts[peer])) continue; /* it may have posted */
        uint32_t group = d->m->ops[ends[i].op].group;
        bool waited_elsewhere = false, same = false;
        for (size_t k = from; k < to; k++) {
            if (ends[k].posted_by_key || d->m->ops[ends[k].op].group != group) continue;
            bool queued = queued_end(d, b, &ends[k]);
            waited_elsewhere |= ends[k].other != ends[i].other && (wrong_from || !queued) &&
                                (queued || same_tensor(d, ends[k].op, ends[i].op));
            same |= ends[k].other == ends[i].other;
        }
        uint64_t passed = 0;
        const fa_op *o = &d->m->ops[ends[i].op];
        /* the slot is a step of a common pattern only where key posted its end in a batch (a
         * ring's step): pipeline stages post lone send/recv whose numbers differ from rank to
         * rank (tests/sim seed 639: stage 478's recv #8 from 728, whose #8 was its own recv
         * from the next stage, read as 478 posting to the wrong peer beside 728 that did) */
        if (posted_in_batch(d, ends[i].op))
            fa_imap_get(&b->passed, passed_key(group, o->seq, ends[i].other), &passed);
        /* a wait through an op the poster has queued counts where the two ranks' launches of
         * that number are provably one slot (a pair of them matched there): after a skip the
         * numbers shift (tests/sim seed 2792) */
        uint64_t aligned = 0;
        if (waits_on_key == 2)
            fa_imap_get(&b->aligned, aligned_key(group, o->seq, ends[i].key, ends[i].other),
                        &aligned);
        bool waits = waits_on_key == 1 || (waits_on_key == 2 && aligned);
        if ((waited_elsewhere || (passed && waits)) && !same &&
            (!held || holds_chain(d, b, peer, key)))
            drop[ends[i].op] = true;
    }
}

/* The (peer, poster) pairs of the ends that a rank posted itself, asked of blocked_ranks (called
 * for each filing of the ends). */
static int ask_pairs(const decider *d, const lone_end *ends, size_t n, peer_blocks *b) {
    if (!b->asked_peer && !(b->asked_peer = calloc(d->nfacts + 1, 1))) return -1;
    for (size_t i = 0; i < n; i++) {
        long peer = fa_vg_rank_node(d, ends[i].other), key = fa_vg_rank_node(d, ends[i].key);
        if (!ends[i].posted_by_key || peer < 0 || key < 0) continue;
        b->asked_peer[peer] = true;
        if (fa_imap_put(&b->asked, (uint64_t)peer * d->nfacts + (uint64_t)key, 0)) return -1;
    }
    return 0;
}

/* A rank that posted a send/recv to the wrong peer leaves two unmatched: its own, to a peer that
 * never posted the other side (nor had to), and the one its right peer posted and waits in. So
 * when rank s sent to a (a never received from s) while b waits to receive from s (s never sent
 * to b), s's send waits on nobody: a is no culprit for ignoring it, s is, for b's wait. The same
 * for a recv from the wrong source: d waits to receive from x (which never sent to d) while s
 * sent to d (which never received from s): d's recv waits on nobody. Only when the peer excused
 * is not blocked by others (a pipeline stage blocked before its recv leaves the same two halves,
 * and there the sender is a victim). drop[op] says which lone ops get no edge to their absent
 * side (build_graph). Returns NULL when out of memory. */
bool *fa_vw_wrong_peer_ops(const decider *d) {
    bool *drop = calloc(d->m->nops + 1, 1);
    peer_blocks b = { 0 };
    lone_end *by_src = malloc((d->m->nops + 1) * sizeof *by_src),
             *by_dst = malloc((d->m->nops + 1) * sizeof *by_dst);
    size_t n = 0;
    for (size_t i = 0; drop && by_src && by_dst && i < d->m->nops; i++) {
        bool sent;
        if (!fa_vg_lone_p2p(d, i, &sent)) continue;
        const fa_op *o = &d->m->ops[i];
        by_src[n] = (lone_end){ o->src, o->dst, (uint32_t)i, sent };
        by_dst[n++] = (lone_end){ o->dst, o->src, (uint32_t)i, !sent };
    }
    bool ok = drop && by_src && by_dst && !ask_pairs(d, by_src, n, &b) &&
              !ask_pairs(d, by_dst, n, &b) && !blocked_ranks(d, &b) &&
              !find_passed_slots(d, by_src, n, &b) && !find_passed_slots(d, by_dst, n, &b) &&
              !find_aligned_pairs(d, &b);
    for (int pass = 0; ok && pass < 2; pass++) {
        lone_end *ends = pass ? by_dst : by_src;
        qsort(ends, n, sizeof *ends, compare_ends);
    }
    /* first on the ends their posters wait in, then on queued ones too where the rank they would
     * excuse posted no wrong end itself (mark_wrong_ends) */
    int64_t *wrong_from = NULL; /* per node: where its first wrong end's batch begins */
    for (int round = 0; ok && round < 2; round++) {
        for (int pass = 0; pass < 2; pass++) {
            lone_end *ends = pass ? by_dst : by_src;
            for (size_t i = 0, j; i < n; i = j) {
                for (j = i; j < n && ends[j].key == ends[i].key; j++) {}
                mark_wrong_ends(d, ends, i, j, &b, wrong_from, drop);
            }
        }
        if (!round) ok = (wrong_from = fa_vw_wrong_end_records(d, drop)) != NULL;
    }
    free(wrong_from);
    free(by_src);
    free(by_dst);
    free(b.blocked);
    free(b.waited);
    free(b.asked_peer);
    free(b.oldest_pending);
    free(b.holds_at);
    free(b.holds);
    free(b.stamp);
    fa_imap_free(&b.asked);
    fa_imap_free(&b.passed);
    fa_imap_free(&b.aligned);
    if (!ok) {
        free(drop);
        return NULL;
    }
    return drop;
}

/* Per node, the record id where the batch (or lone send/recv) holding the first end it posted
 * to the wrong peer (drop[op] set by wrong_peer_ops) begins, INT64_MAX for none. That batch never
 * completes, and its stream runs nothing after it: what the rank has pending from there on is
 * held up by its own mistake, no wait on anyone (tests/sim's E14 gives the poster no waits; the
 * batch's other transfers may well be done on the wire). What it had pending before still waits
 * on others. NULL when out of memory. */
int64_t *fa_vw_wrong_end_records(const decider *d, const bool *drop) {
    int64_t *from = malloc((d->nfacts + 1) * sizeof *from);
    if (!from) return NULL;
    for (size_t i = 0; i < d->nfacts; i++) from[i] = INT64_MAX;
    for (size_t op = 0; op < d->m->nops; op++) {
        if (!drop[op]) continue;
        const fa_call *c = &d->m->calls[d->m->ops[op].first_call];
        long node = fa_vg_rank_node(d, d->groups->v[d->m->ops[op].group].members[c->member]);
        int64_t rec = fa_vw_batch_first_record(d, op, c->member);
        if (node >= 0 && rec < from[node]) from[node] = rec;
    }
    return from;
}

/* Whether every member pending in op (its n expected states in d->members/d->states, as
 * fa_vg_expected_states left them) is held there by its own send/recv to the wrong peer: op
 * lies at or after the batch of that wrong end (wrong_from, fa_vw_wrong_end_records), whose
 * stream runs nothing past it. Nobody then waits in op on anyone, so its absent members are
 * waited for by nobody: a peer that only such an op names is no culprit (tests/sim seed 6644:
 * rank 135 received from 138 instead of 134 in a batch that also sends to 136; 136's dump keeps
 * only what is in flight and shows nothing, which proves nothing about that send, and 135 waits
 * on no one there). False when nobody is pending. */
bool fa_vw_held_by_wrong_end(const decider *d, size_t op, uint32_t n, const int64_t *wrong_from) {
    const fa_group *grp = &d->groups->v[d->m->ops[op].group];
    bool pending = false;
    for (uint32_t k = 0; k < n; k++) {
        if (!fa_member_state_pending(d->states[k])) continue;
        long node = fa_vg_rank_node(d, grp->members[d->members[k]]);
        if (node < 0 || fa_vg_call_record(d, op, d->members[k]) < wrong_from[node]) return false;
        pending = true;
    }
    return pending;
}
