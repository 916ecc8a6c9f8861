/* verdict_heads.c — where each rank's stream stands, for the wait graph (verdict_heads.h).
 *
 * A rank runs its launches in order and waits in its oldest unfinished one only (tests/sim's W1),
 * so what it issued after that "head" is queued behind it, waiting for nobody yet. fa_vh_find
 * first marks GPU lag (find_lag: an op a peer completed that the rank has pending, from a dump as
 * new as its peers'), then each rank's head and whether it surely waits there for a member that
 * never joined (waiting_on_missing), spread along "queued behind" links to the ranks whose head
 * such a rank holds (spread_sure_heads, held_heads). build_graph then asks, op by op, whether
 * everybody pending there is queued behind a lag or a held head, and whether an idle member may
 * have done its end of a send/recv that its dump no longer shows. Every walk is linear in the
 * ops' calls and members.
 */
#include "verdict/verdict_heads.h"

#include <stdlib.h>

#include "grow.h"
#include "verdict/verdict_steps.h"

/* GPU lag is a stream that stopped completing work: said only of a dump that is as new as its
 * peers', from a backend whose calls are enqueued on a GPU (gloo runs them on the CPU, and its
 * "retired" marks a failed op as one that completed). */
static bool lag_possible(const decider *d, size_t node) {
    const rank_facts *f = &d->facts[node];
    long ri = f->has_dump ? fa_input_find(d->in, f->rank) : -1;
    return ri >= 0 && !f->stale && !d->in->ranks[ri].dump->blocks_caller;
}

/* Whether a rank whose dump was cut short (and is not shown older by anything else) lags in an
 * op its own counters say it issued and did not complete (FA_MS_IN_FLIGHT): a torch pickle keeps
 * pg_status before its entries, whole, as of the dump's moment, like its peers' dumps (sim seed
 * 9877: rank 5's TP counters "enqueued 6, completed 2", its partner completed #3). Not a dump
 * that lost its pg_status (a JSON one cut inside its entries): its entries alone number what it
 * issued, not what completed, and an op its ring dropped reads as in flight (sim seed 4288). */
static bool counted_lag(const decider *d, size_t node, fa_member_state s) {
    const rank_facts *f = &d->facts[node];
    long ri = f->has_dump ? fa_input_find(d->in, f->rank) : -1;
    const fa_dump *dump = ri >= 0 ? d->in->ranks[ri].dump : NULL;
    return s == FA_MS_IN_FLIGHT && f->cut && dump && d->m->rank_stale[ri].group < 0 &&
           !dump->blocks_caller && dump->nstatus > 0;
}

/* Whether member's own pg_status counter in op's group is as far as the collectives its entries
 * there show completed: then it numbers collectives, and "completed k" says #k+1 on did not
 * complete (counted_lag). Below them, it numbers a send/recv batch (PyTorch gives a batch the
 * group's send/recv number) that the rank completed after those collectives: no lag of its
 * stream, whose last completed work lies beyond them (tests/sim seed 13374: rank 20's cut dump
 * "enqueued 10, completed 2", its entries #1-#3 completed, its p2p batch #2 done after #9 like
 * its peers', read as stalled in #4). */
static bool counter_numbers_collectives(const decider *d, size_t op, uint32_t member) {
    uint32_t g = d->m->ops[op].group;
    const fa_group *grp = &d->groups->v[g];
    long ri = member < grp->nmembers ? grp->member_input[member] : -1;
    const fa_view *v = &d->m->views[d->m->view_at[g] + member];
    int64_t own = ri >= 0 ? fa_view_status_completed(d->in->ranks[ri].dump, v) : -1;
    return own >= 0 && own >= v->completed_max;
}

/* Whether member's call in send/recv op `op` is the only transfer of its batch (none beside it
 * in its dump carries the same group and p2p_seq_id but a `coalesced` end marker), or was posted
 * alone: then its other side completing proves the transfer done on the wire, and its own call
 * still pending is its stream's lag, not a wait (in a batch of several, another transfer may
 * hold it). */
static bool is_transfer(const decider *d, const fa_entry *e) {
    const fa_opinfo *name = fa_store_op(d->in->store, fa_entry_traits(d->in->store, e)->name);
    return name->is_send || name->is_recv;
}

static bool p2p_alone_in_batch(const decider *d, size_t op, uint32_t member) {
    const fa_call *c = fa_op_call(d->m, op, member);
    if (!c || fa_call_nentries(d->m, c) != 1) return false;
    const fa_dump *dump = d->in->ranks[c->rank_index].dump;
    const fa_entry *e = fa_call_entry(d->m, d->in, c, 0);
    uint32_t pg = fa_entry_pg(d->in->store, e), at = (uint32_t)(e - dump->entries);
    int64_t seq = fa_entry_p2p_seq(dump, e);
    for (uint32_t i = at; i-- > 0;) {
        const fa_entry *x = &dump->entries[i];
        if (fa_entry_pg(d->in->store, x) != pg || fa_entry_p2p_seq(dump, x) != seq) break;
        if (is_transfer(d, x)) return false;
    }
    for (uint32_t i = at + 1; i < dump->nentries; i++) {
        const fa_entry *x = &dump->entries[i];
        if (fa_entry_pg(d->in->store, x) != pg || fa_entry_p2p_seq(dump, x) != seq) break;
        if (is_transfer(d, x)) return false;
    }
    return true;
}

/* Whether send/recv op `op`, whose one call is its poster's, is complete at its other side by
 * that member's own pg_status counters (fa_op_member_state: a pair's counters count its
 * send/recv). */
static bool absent_counted_done(const decider *d, size_t op) {
    const fa_op *o = &d->m->ops[op];
    bool sent;
    if (!fa_vg_lone_p2p(d, op, &sent)) return false;
    long other = fa_group_position(&d->groups->v[o->group], sent ? o->dst : o->src);
    return other >= 0 && other != (long)d->m->calls[o->first_call].member &&
           fa_op_member_state(d->m, d->groups, op, (uint32_t)other) == FA_MS_COMPLETED;
}

/* The key of call c's batch in stream_heads' wire maps: its input rank and the record its
 * batch begins at. */
static uint64_t batch_key(const decider *d, const fa_call *c) {
    const fa_dump *dump = d->in->ranks[c->rank_index].dump;
    return fa_key2(c->rank_index,
                   (uint64_t)fa_entry_record_id(dump, &dump->entries[fa_vw_batch_start(d, c)]));
}

/* Counts one more under key in map; -1 when out of memory. */
static int count_under(fa_imap *map, uint64_t key) {
    uint64_t n = 0;
    fa_imap_get(map, key, &n);
    return fa_imap_put(map, key, n + 1) ? -1 : 0;
}

/* Per batch (batch_key), in one pass over the send/recv ops: how many of its transfers were done
 * on the wire (`done`: the op's other side completed while this member's call is pending; a
 * batch all of whose transfers are so done waits for nobody: its stream's lag, find_lag), and
 * how many run at both sides (`ready`: both calls started, with timing on, and pending; nothing
 * but a failed GPU or network holds such a transfer, so it holds no batch while a third rank's
 * end ran on the wire: batch_holds_other_peer). -1 when out of memory. */
static int tally_transfers(const decider *d, fa_imap *done, fa_imap *ready) {
    for (size_t i = 0; i < d->m->nops; i++) {
        const fa_op *o = &d->m->ops[i];
        if (!o->is_p2p) continue;
        const fa_call *a = &d->m->calls[o->first_call];
        if (o->ncalls == 2 && a[0].state == FR_STATE_STARTED && a[1].state == FR_STATE_STARTED) {
            if (count_under(ready, batch_key(d, &a[0])) || count_under(ready, batch_key(d, &a[1])))
                return -1;
            continue;
        }
        /* an op whose absent side went past it in step (match_aligned.c) completed there, or
         * whose absent side's own counters complete it (an only-active dump dropped its record:
         * tests/sim seed 17102, rank 19's "completed 4" in its pair, 17's batch #4 pending) */
        bool absent_done =
            o->ncalls == 1 && (fa_match_absent_done(d->m, i) || absent_counted_done(d, i));
        if (o->ncalls != 2 && !absent_done) continue;
        const fa_call *b = absent_done ? a : a + 1;
        bool ca = a->state == FR_STATE_COMPLETED,
             cb = absent_done || b->state == FR_STATE_COMPLETED;
        if (ca != cb && count_under(done, batch_key(d, ca ? b : a))) return -1;
    }
    return 0;
}

/* Whether member's call in send/recv op `op` sits in a batch every transfer of which its other
 * side completed (`done`, tally_transfers), and whose end marker the dump shows not completed
 * (PyTorch leaves a batch's send/recv "scheduled" when the marker completes, and an only-active
 * dump drops that marker): the batch ran on the wire, and its own entries still pending are its
 * stream's lag. */
static bool batch_done_on_wire(const decider *d, const fa_imap *done, size_t op, uint32_t member) {
    const fa_call *c = fa_op_call(d->m, op, member);
    if (!c) return false;
    const fa_dump *dump = d->in->ranks[c->rank_index].dump;
    const fa_entry *e = fa_call_entry(d->m, d->in, c, 0);
    uint32_t pg = fa_entry_pg(d->in->store, e), at = fa_vw_batch_start(d, c);
    int64_t seq = fa_entry_p2p_seq(dump, e);
    uint64_t transfers = 0, n = 0;
    uint64_t key = fa_key2(c->rank_index, (uint64_t)fa_entry_record_id(dump, &dump->entries[at]));
    bool open_marker = false;
    for (; at < dump->nentries && fa_entry_pg(d->in->store, &dump->entries[at]) == pg &&
           fa_entry_p2p_seq(dump, &dump->entries[at]) == seq;
         at++) {
        const fa_entry *x = &dump->entries[at];
        bool transfer = is_transfer(d, x);
        transfers += transfer;
        open_marker |= !transfer && fa_entry_traits(d->in->store, x)->state != FR_STATE_COMPLETED;
    }
    return open_marker && fa_imap_get(done, key, &n) && n == transfers && transfers > 0;
}

/* GPU lag first, from every pending op: a member with op pending that a peer completed. Of
 * several, its oldest (its stream stopped there; what it issued after is queued behind).
 * Whether any rank has lag. The same walk marks maybe_stalled, the looser reading the summary
 * asks (any such op, broken members, batched send/recv and older dumps included). */
static bool find_lag(decider *d, const uint8_t *flags, const fa_imap *done) {
    bool any = false;
    for (size_t i = 0; i < d->m->nops; i++) {
        const fa_op *o = &d->m->ops[i];
        if (!(flags[i] & OP_PENDING)) continue;
        const fa_group *grp = &d->groups->v[o->group];
        uint32_t n = fa_vg_expected_states(d, i);
        bool completed = false;
        for (uint32_t k = 0; k < n; k++) completed |= d->states[k] == FA_MS_COMPLETED;
        for (uint32_t k = 0; k < n && completed; k++) {
            long node = fa_vg_rank_node(d, grp->members[d->members[k]]);
            if (node < 0 || !fa_member_state_pending(d->states[k])) continue;
            rank_facts *f = &d->facts[node];
            f->maybe_stalled = true;
            if ((o->is_p2p && !p2p_alone_in_batch(d, i, d->members[k]) &&
                 !batch_done_on_wire(d, done, i, d->members[k])) ||
                fa_vg_broken(d, (size_t)node, o->group) ||
                !(lag_possible(d, (size_t)node) ||
                  (counted_lag(d, (size_t)node, d->states[k]) &&
                   counter_numbers_collectives(d, i, d->members[k]))))
                continue;
            int64_t rec = fa_vg_call_record(d, i, d->members[k]);
            if (!f->lag || rec < f->lag_record) {
                f->lag = any = true;
                f->lag_op = (long)i;
                f->lag_record = rec;
            }
        }
    }
    return any;
}

/* Whether every member with op pending has it queued behind its own stalled op (issued after
 * its lag op): their streams stopped before it, so nobody waits in it yet, for anyone (a rank
 * that never issued it is no cause of theirs). */
bool fa_vh_queued_behind_lag(decider *d, size_t op) {
    if (d->m->ops[op].is_p2p) return false;
    uint32_t n = fa_vg_states_into(d, op, d->members, d->states);
    const fa_group *grp = &d->groups->v[d->m->ops[op].group];
    size_t pending = 0;
    for (uint32_t k = 0; k < n; k++) {
        if (!fa_member_state_pending(d->states[k])) continue;
        long node = fa_vg_rank_node(d, grp->members[d->members[k]]);
        const rank_facts *f = node >= 0 ? &d->facts[node] : NULL;
        if (!f || !f->lag || fa_vg_call_record(d, op, d->members[k]) <= f->lag_record) return false;
        pending++;
    }
    return pending > 0;
}

/* Per node: whether the rank's oldest pending op (its stream's head, by record id) is one where
 * it waits for a member that surely has not joined it (OP_MISSING: every member pending waits;
 * OP_UNSTARTED: those that started it wait for those that have it only scheduled). What it
 * issued after waits behind that head. An older dump's rank is presumed to have gone on (it is
 * weighed as an unknown rank only where nobody else can explain a wait), so such a rank does not
 * wait on it anywhere. Fills head[node] with the node's oldest pending record (INT64_MAX: it
 * has nothing pending) and head_op[node] with its op (-1). NULL when out of memory. */
static bool *waiting_on_missing(decider *d, const uint8_t *flags, int64_t *head, long *head_op,
                                uint32_t *unplaced) {
    bool *sees = calloc(d->nfacts + 1, 1);
    for (size_t r = 0; head && r < d->nfacts; r++) head[r] = INT64_MAX, head_op[r] = -1;
    for (size_t i = 0; sees && head && i < d->m->nops; i++) {
        if (!(flags[i] & OP_PENDING)) continue;
        const fa_group *grp = &d->groups->v[d->m->ops[i].group];
        uint32_t n = fa_vg_expected_states(d, i);
        for (uint32_t k = 0; k < n; k++) {
            long node = fa_vg_rank_node(d, grp->members[d->members[k]]);
            if (node < 0 || !fa_member_state_pending(d->states[k])) continue;
            int64_t rec = fa_vg_call_record(d, i, d->members[k]);
            unplaced[node] += rec == INT64_MAX - 1;
            if (rec >= head[node]) continue;
            head[node] = rec;
            head_op[node] = (long)i;
            sees[node] = flags[i] & OP_MISSING     ? true
                         : flags[i] & OP_UNSTARTED ? d->states[k] == FA_MS_STARTED
                                                   : false;
        }
    }
    return sees;
}

/* One "queued behind" link of spread_sure_heads: `waiter`'s head op is one that `member` has
 * queued behind its own head. */
typedef struct head_link {
    uint32_t member, waiter;
} head_link;

/* The links of every rank whose head is not yet a sure wait (NULL when out of memory). */
static head_link *queued_head_links(decider *d, const long *head_op, const int64_t *head,
                                    const bool *sees, size_t *n) {
    head_link *links = NULL;
    size_t cap = 0;
    *n = 0;
    for (size_t r = 0; r < d->nfacts; r++) {
        if (sees[r] || head_op[r] < 0) continue;
        size_t op = (size_t)head_op[r];
        const fa_group *grp = &d->groups->v[d->m->ops[op].group];
        uint32_t m = fa_vg_expected_states(d, op);
        for (uint32_t k = 0; k < m; k++) {
            long node = fa_vg_rank_node(d, grp->members[d->members[k]]);
            if (node < 0 || (size_t)node == r || !fa_member_state_pending(d->states[k]) ||
                fa_vg_call_record(d, op, d->members[k]) <= head[node])
                continue;
            if (fr_grow((void **)&links, &cap, *n + 1, sizeof *links, 64)) {
                free(links);
                return NULL;
            }
            links[(*n)++] = (head_link){ (uint32_t)node, (uint32_t)r };
        }
    }
    return links ? links : malloc(sizeof *links);
}

/* A rank whose head is an op every member joined may wait there for good too: a member that has
 * the op queued behind its own head, where that member surely waits, never runs it (tests/sim's
 * W1: a rank waits in its oldest unfinished launch only). The rank's wait is then as sure as the
 * member's, and what it issued after its head waits behind it (sim seed 9128: a rank pending in
 * an all_gather that its peer queued behind a wait for a dead rank; its later recv from an idle
 * rank is no wait yet). Spreads sees[] from the sure heads along those links, each link once:
 * linear in the head ops' members. 0, or -1 when out of memory. */
static int spread_sure_heads(decider *d, const long *head_op, const int64_t *head, bool *sees) {
    size_t n = 0;
    head_link *links = queued_head_links(d, head_op, head, sees, &n);
    size_t *at = calloc(d->nfacts + 2, sizeof *at);
    uint32_t *waiters = malloc((n + 1) * sizeof *waiters), *queue = NULL;
    queue = malloc((d->nfacts + 1) * sizeof *queue);
    int rc = links && at && waiters && queue ? 0 : -1;
    for (size_t i = 0; rc == 0 && i < n; i++) at[links[i].member + 2]++;
    for (size_t v = 2; rc == 0 && v < d->nfacts + 2; v++) at[v] += at[v - 1];
    for (size_t i = 0; rc == 0 && i < n; i++) waiters[at[links[i].member + 1]++] = links[i].waiter;
    size_t qn = 0;
    for (size_t v = 0; rc == 0 && v < d->nfacts; v++)
        if (sees[v]) queue[qn++] = (uint32_t)v;
    for (size_t q = 0; rc == 0 && q < qn; q++)
        for (size_t e = at[queue[q]]; e < at[queue[q] + 1]; e++)
            if (!sees[waiters[e]]) {
                sees[waiters[e]] = true;
                queue[qn++] = waiters[e];
            }
    free(links);
    free(at);
    free(waiters);
    free(queue);
    return rc;
}

/* The heads held for good: those of sees_missing, and a GPU stalled at its head (find_lag) that
 * never gets past it, spread like them to the ranks whose head such a rank holds queued (sim seed
 * 6137). What a stalled GPU holds queued waits for nobody yet; but the stall is no wait for a
 * member that never joined, so it does not say that an older dump's rank went on (stale_gone_on
 * reads sees_missing alone: sim seeds 4877, 7237, 9722 keep that rank's doubt). A copy; NULL
 * when out of memory. */
static bool *held_heads(decider *d, const long *head_op, const int64_t *head,
                        const bool *sees_missing) {
    bool *held = malloc(d->nfacts + 1);
    if (!held) return NULL;
    for (size_t r = 0; r < d->nfacts; r++)
        held[r] = sees_missing[r] || (d->facts[r].lag && d->facts[r].lag_record == head[r]);
    if (spread_sure_heads(d, head_op, head, held)) {
        free(held);
        return NULL;
    }
    return held;
}

/* The record where member's launch of op begins: a send/recv's batch is one launch (its first
 * entry's record; tests/sim's W1 and verdict_wrong_peer.c's queued_in read it so), a collective's
 * own call. A transfer in the batch at a rank's stream head is no more queued behind that head
 * than the batch's first transfer is (random_rec_jobs seed 225: rank 0's batch sends to rank 1,
 * whose recv is queued, and receives from the idle rank 2: it waits for rank 2 there too). */
static int64_t launch_record(const decider *d, size_t op, uint32_t member) {
    return d->m->ops[op].is_p2p ? fa_vw_batch_first_record(d, op, member)
                                : fa_vg_call_record(d, op, member);
}

/* Whether every member with `op` pending has it queued behind its stream's head, an older op
 * where it surely waits for a member that has not joined (tests/sim's W1: a rank waits in its
 * oldest unfinished launch only). Nobody then waits in `op` yet, so the members absent from it
 * explain no wait here (unseen_or_idle): each pending member's wait is explained at its head.
 * `head` holds each node's oldest pending record (waiting_on_missing). sees_missing NULL: any
 * older pending call will do (queued_everywhere). Member node `except` (-1: none) is left out. */
static bool queued_behind_sure_waits(const decider *d, size_t op, const bool *sees_missing,
                                     const stream_heads *h, long except) {
    const fa_group *grp = &d->groups->v[d->m->ops[op].group];
    uint32_t n = fa_vg_states_into(d, op, d->members, d->states);
    size_t pending = 0;
    for (uint32_t k = 0; k < n; k++) {
        if (!fa_member_state_pending(d->states[k])) continue;
        long node = fa_vg_rank_node(d, grp->members[d->members[k]]);
        if (node >= 0 && node == except) continue;
        int64_t rec = node >= 0 ? launch_record(d, op, d->members[k]) : 0;
        if (node >= 0 && rec == INT64_MAX - 1 && h->unplaced[node] > 1) {
            /* in flight by its counters alone, beside another such op: its dump does not say
             * which of them it waits in, so it is not seen waiting here (sim seed 3422's rank 7,
             * its dump cut before its TP all_reduce #5 and the default group's all_reduce #1) */
            continue;
        }
        if (node < 0 || (sees_missing && !sees_missing[node]) || rec <= h->head[node]) return false;
        pending++;
    }
    return pending > 0;
}

/* Of a member absent from an op that nobody waits in yet (queued_behind_sure_waits): whether
 * the edge to it would make it a root on that op alone. A member without a readable dump is
 * named only where someone waits for it (E1); a member idle in its dump (nothing pending) is a
 * sink that only such an edge reaches. A member with work pending keeps its edge: it is no sink
 * by it, and the cycle and wrong-group judges read where it never issued what its peers did. */
bool fa_vh_unseen_or_idle(fa_member_state s, int64_t head) {
    return s == FA_MS_NO_DUMP || (s == FA_MS_NEVER && head == INT64_MAX);
}

/* Whether member's batch of send/recv op `op` holds a transfer with a known peer other than
 * group rank `peer`: that one may hold the batch while peer's end ran on the wire. A batch whose
 * every transfer is with peer cannot be held while peer did each of its ends, short of a stalled
 * GPU or network (tests/sim seed 10413: rank 2's send to and recv from rank 1, whose only-active
 * dump shows nothing: it never posted them). Nor can a transfer whose other side completed
 * (`done`, tally_transfers: it ran on the wire) hold it: when every transfer with another peer
 * is so done, only peer's end is left to hold the batch (tests/sim seed 11937: rank 9's batch
 * receives from rank 8, whose send completed, and sends to rank 10, idle, whose only-active dump
 * shows nothing: read as "10 may have done its end", and 9, 11 named instead of 10). Nor can a
 * transfer started at both sides (`wire_ready`, tally_transfers), short of a failed GPU or
 * network (tests/sim seed 22378: ranks 1 and 2 each send to the other and receive from rank 0
 * in one batch, all started; 0, idle in its only-active dump, was read as "may have done its
 * ends", and the job as a stuck GPU or network). */
static bool batch_holds_other_peer(const decider *d, const stream_heads *h, size_t op,
                                   uint32_t member, long peer) {
    const fa_call *c = fa_op_call(d->m, op, member);
    if (!c) return false;
    uint64_t ran = 0, running = 0, key = batch_key(d, c);
    /* peer's end is in no op of two calls here (peer idle, no call): what ran is the others' */
    fa_imap_get(&h->wire_done, key, &ran);
    fa_imap_get(&h->wire_ready, key, &running);
    return fa_vh_batch_others(d, op, member, peer) > ran + running;
}

uint64_t fa_vh_batch_others(const decider *d, size_t op, uint32_t member, long peer) {
    const fa_call *c = fa_op_call(d->m, op, member);
    if (!c) return 0;
    const fa_dump *dump = d->in->ranks[c->rank_index].dump;
    uint32_t at = fa_vw_batch_start(d, c);
    const fa_entry *first = &dump->entries[at];
    uint32_t pg = fa_entry_pg(d->in->store, first);
    int64_t seq = fa_entry_p2p_seq(dump, first);
    uint64_t others = 0;
    for (uint32_t i = at; i < dump->nentries; i++) {
        const fa_entry *x = &dump->entries[i];
        if (fa_entry_pg(d->in->store, x) != pg || fa_entry_p2p_seq(dump, x) != seq) break;
        if (!is_transfer(d, x)) continue;
        const fa_opinfo *name = fa_store_op(d->in->store, fa_entry_traits(d->in->store, x)->name);
        int64_t other = name->is_send ? name->dst : name->src;
        others += other >= 0 && other != peer;
    }
    return others;
}

/* Whether idle member p (state s, its node's head) of send/recv op `op` may have done its end
 * of the transfer, which its window no longer shows: its dump does not hold every entry from
 * record 0 and it shows nothing completed (an only-active dump, which drops what completed; a
 * ring that wrapped but keeps completed entries drops only older ones, and this op would be newer
 * than them: sim seed 10539's rank 0, stopped in CPU code), and every member pending there
 * posted it in a batch holding a transfer with another peer, which may hold the batch while this
 * one ran on the wire (tests/sim seed 6644: rank 134's recv from 133, whose only-active dump
 * shows nothing, in the batch whose send 135 never received), unless that transfer ran on the
 * wire already or runs at both sides (batch_holds_other_peer). An idle member whose whole history
 * is shown never posted it (random_rec_jobs seed 225). */
bool fa_vh_maybe_done_unshown(const decider *d, size_t op, uint32_t n, fa_member_state s,
                              const stream_heads *h, long node) {
    if (!d->m->ops[op].is_p2p || s != FA_MS_NEVER || h->head[node] != INT64_MAX) return false;
    if (!d->facts[node].may_drop_done) return false;
    long peer = fa_group_position(&d->groups->v[d->m->ops[op].group], d->facts[node].rank);
    bool pending = false;
    for (uint32_t k = 0; k < n; k++) {
        if (!fa_member_state_pending(d->states[k])) continue;
        if (!batch_holds_other_peer(d, h, op, d->members[k], peer)) return false;
        pending = true;
    }
    return pending;
}

/* Whether every member with op pending has it queued behind an older pending call of its own
 * (`head`, its oldest pending record): nobody waits in it yet (tests/sim's W1), so a member of
 * unknown state absent from it explains no wait there (tests/sim seed 2879: all_reduce #15,
 * pending behind the bundle #11 on every rank but 79, whose dump was cut before #15). */
bool fa_vh_queued_everywhere(const decider *d, size_t op, const stream_heads *h) {
    return queued_behind_sure_waits(d, op, NULL, h, -1);
}

int fa_vh_find(decider *d, const uint8_t *flags, stream_heads *h) {
    *h = (stream_heads){ 0 };
    h->head = malloc((d->nfacts + 1) * sizeof *h->head);
    long *head_op = malloc((d->nfacts + 1) * sizeof *head_op);
    if (tally_transfers(d, &h->wire_done, &h->wire_ready)) {
        free(head_op);
        fa_vh_free(h);
        return -1;
    }
    h->lag = find_lag(d, flags, &h->wire_done);
    h->unplaced = calloc(d->nfacts + 1, sizeof *h->unplaced);
    h->sees_missing = h->head && head_op && h->unplaced
                          ? waiting_on_missing(d, flags, h->head, head_op, h->unplaced)
                          : NULL;
    if (h->sees_missing && spread_sure_heads(d, head_op, h->head, h->sees_missing)) {
        free(h->sees_missing);
        h->sees_missing = NULL;
    }
    h->held = h->sees_missing ? held_heads(d, head_op, h->head, h->sees_missing) : NULL;
    free(head_op);
    if (h->held) return 0;
    fa_vh_free(h);
    return -1;
}

void fa_vh_free(stream_heads *h) {
    free(h->head);
    free(h->sees_missing);
    free(h->held);
    free(h->unplaced);
    fa_imap_free(&h->wire_done);
    fa_imap_free(&h->wire_ready);
    *h = (stream_heads){ 0 };
}

bool fa_vh_queued_behind_held(const decider *d, size_t op, const stream_heads *h) {
    return queued_behind_sure_waits(d, op, h->held, h, -1);
}

bool fa_vh_others_behind_held(const decider *d, size_t op, const stream_heads *h, long node) {
    return queued_behind_sure_waits(d, op, h->held, h, node);
}
