/* match_walk.c — walking the ranks' entries into calls, on every core (see match_walk.h).
 *
 * The ranks are cut into contiguous ranges of about equal entry counts, one per walker thread.
 * A walker walks its ranks in order exactly as one sequential walk would (the state it keeps
 * while walking is per rank), but it names the collective ops it meets with local ids, in the
 * order it creates them, through its own op table on (group, seq, occurrence).
 *
 * Each rank is walked twice, so that no call is ever held twice. The first walk finds the ops
 * and counts their calls (and grows the members' views, and notes per op whether every call is
 * one entry with the same interned values: fa_walk.uniform); the second cuts the same calls
 * again and writes each straight into its final slot, and each send/recv record into its place.
 * Between the two, merging renumbers in walker order: walker 0's ops keep their ids, and each
 * later walker's op takes the id of the same key if an earlier walker made it, else the next new
 * id. That is the order a single walk over all ranks creates ops in (it would meet walker 0's ops
 * first, in walker 0's order, then the ops new to walker 1, in walker 1's order, ...). Each op's
 * calls are laid out in rank order: walker t's calls of op g start after those of walkers
 * 0..t-1, so the walkers place their calls in parallel, each into slots it alone owns; bundles'
 * entry refs and the send/recv records go to ranges reserved per walker, in walker order, which
 * is rank order. (Walking twice costs a second pass over the entries; holding every call in walk
 * order until it could be placed cost 13 bytes a call beside the calls themselves.)
 *
 * What a walker writes outside its own memory belongs to its ranks alone: the views of its ranks'
 * (group, position), rank_newest_pending of its ranks, its calls' slots, its refs and records.
 */
#include "match/match_walk.h"

#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "util/timing.h"
#include "match/op_index.h"
#include "util/parallel.h"

#define NO_CALL UINT32_MAX

enum { VALS_SAME = 1, VALS_MIXED = 2 };

/* A collective op as one walker knows it (until merging; the index stays for the second walk). */
typedef struct local_op {
    int64_t seq;
    uint32_t group, occurrence;
    uint32_t ncalls;
    uint32_t vals[5]; /* its first call's entry: name, in/out sizes, in/out dtypes */
    uint8_t shape;    /* VALS_SAME while every call is one entry with those vals, else VALS_MIXED */
} local_op;

/* A collective call of the rank being walked. */
typedef struct rank_call {
    uint32_t op; /* local */
    uint32_t first, nentries;
    uint32_t refs_at; /* second walk, a bundle: where its count and entries go in entry_refs */
    uint8_t state;
} rank_call;

/* Per (rank, group) scratch while walking one rank's entries. */
typedef struct open_group {
    bool touched;
    long call; /* open collective call, -1 none */
    int64_t seq;
    const char *type; /* last non-marker type in the open call (interned), NULL none */
    bool closed;      /* the open call ended with an end marker */
    long seq_first;   /* the rank's first call of this seq in the group (a bundle split by type) */
    uint32_t occurrence;
    bool last_p2p;
    int64_t p2p_seq;
    size_t batch_first, batch_n;
    int64_t min_pending;
    bool seen;                       /* an entry of the group was walked: the two below hold */
    int64_t seen_count, seen_record; /* its collectives issued so far, and its record_id */
} open_group;

typedef struct walker {
    _Alignas(
        64) const fa_input *in; /* walkers sit in one array: no cache line shared between two */
    const fa_groups *groups;
    const fa_traits *traits; /* the store's, by id */
    fa_match *m;
    bool placing;        /* the second walk: write the calls, refs and records */
    uint32_t first, end; /* ranks [first, end) */
    fa_op_index index;
    local_op *ops;
    size_t nops, ops_cap;
    open_group *open;
    uint32_t *touched; /* groups the rank being walked has entries in, first-seen order */
    size_t ntouched;
    uint32_t *entry_call;
    size_t entry_call_cap;
    long *pg_group, *pg_pos; /* per pg slot of the rank being walked: group index and position */
    size_t pg_cap;
    rank_call *rank_calls; /* the collective calls of the rank being walked, in entry order */
    size_t nrank_calls, rank_calls_cap;
    size_t nrefs; /* entry refs its bundles need: a count and the entries each */
    size_t np2p;  /* its send/recv records */
    bool any_entries;
    size_t nown;      /* after merging: the walker's own ops (walker 0's list grows beyond) */
    uint32_t *global; /* after merging: local op -> op */
    uint32_t *start;  /* after merging: local op -> the slot of the walker's next call of it */
    size_t refs_at;   /* second walk: its next entry ref in m->entry_refs */
    size_t p2p_at;    /* second walk: its next record in p2p */
    fa_p2p_rec *p2p;  /* fa_walk.p2p */
    int rc;
} walker;

/* ---------------------------------------------------------------- walking ---------- */

static long new_local_op(walker *w, uint32_t group, int64_t seq, uint32_t occurrence) {
    if (fa_grow((void **)&w->ops, &w->ops_cap, w->nops + 1, sizeof *w->ops)) return -1;
    w->ops[w->nops] = (local_op){ .seq = seq, .group = group, .occurrence = occurrence };
    return (long)w->nops++;
}

/* The op's local id; made new in the first walk, found in the second (-1 there: not found). */
static long collective_op(walker *w, uint32_t group, int64_t seq, uint32_t occurrence) {
    long op = fa_op_index_find(&w->index, group, seq, occurrence);
    if (op >= 0 || w->placing) return op;
    op = new_local_op(w, group, seq, occurrence);
    if (op >= 0 && fa_op_index_add(&w->index, group, seq, occurrence, (uint32_t)op) != 0) return -1;
    return op;
}

/* A collective call of the rank being walked (counted or placed once the rank is walked). */
static long new_rank_call(walker *w, uint32_t op, uint32_t first) {
    if (fa_grow((void **)&w->rank_calls, &w->rank_calls_cap, w->nrank_calls + 1,
                sizeof *w->rank_calls))
        return -1;
    w->rank_calls[w->nrank_calls] = (rank_call){ op, first, 0, 0, FR_STATE_COMPLETED };
    return (long)w->nrank_calls++;
}

static fa_view *view_of(const fa_match *m, uint32_t group, uint32_t member) {
    return &m->views[m->view_at[group] + member];
}

/* A collective entry joins the open call when it has the same seq and continues the bundle.
 * Types are interned, so equal types are the same pointer. */
static bool continues_call(const open_group *o, int64_t seq, const fa_opinfo *op) {
    if (o->call < 0 || o->closed || o->seq != seq) return false;
    return (op->flags & FA_OP_END_MARKER) || !o->type || o->type[0] == '\0' || o->type == op->type;
}

/* A bundle whose members change type is split into calls of one seq (continues_call); its end
 * marker speaks for them all, and a group's work completes in issue order: the calls of the seq
 * before the marker's own completed when it did (PyTorch leaves the members "scheduled"; seed
 * 1520 read the first part of a completed bundle as pending, a stall beside a peer's counters). */
static void lift_split_bundle(walker *w, const open_group *o, const fa_dump *d, uint32_t group,
                              int64_t seq, fr_state state) {
    if (state != FR_STATE_COMPLETED) return;
    for (long k = o->seq_first; k >= 0 && k < o->call; k++) {
        rank_call *c = &w->rank_calls[k];
        const fa_entry *e = &d->entries[c->first];
        uint32_t pg = w->traits[e->traits].pg;
        if (w->pg_group[pg] == (long)group && fa_entry_coll_seq_in(d, e, pg) == seq)
            c->state = FR_STATE_COMPLETED;
    }
}

static int add_collective_entry(walker *w, open_group *o, const fa_dump *d, uint32_t group,
                                int64_t seq, fr_state state, const fa_opinfo *op_info,
                                uint32_t entry_index) {
    if (!continues_call(o, seq, op_info)) {
        o->occurrence = (o->call >= 0 && o->seq == seq) ? o->occurrence + 1 : 0;
        long op = collective_op(w, group, seq, o->occurrence);
        long call = op < 0 ? -1 : new_rank_call(w, (uint32_t)op, entry_index);
        if (call < 0) return -1;
        if (o->occurrence == 0) o->seq_first = call;
        o->call = call;
        o->seq = seq;
        o->type = NULL;
        o->closed = false;
    }
    rank_call *c = &w->rank_calls[o->call];
    c->nentries++;
    if (op_info->flags & FA_OP_END_MARKER) {
        c->state = state; /* the marker speaks for the whole bundle */
        o->closed = true;
        lift_split_bundle(w, o, d, group, seq, state);
    } else {
        if (state < c->state) c->state = state;
        o->type = op_info->type;
    }
    w->entry_call[entry_index] = (uint32_t)o->call;
    return 0;
}

/* A send or recv entry: counted in the first walk, written to its record in the second. */
static void add_p2p_entry(walker *w, open_group *o, uint32_t group, uint32_t member,
                          uint32_t rank_index, int64_t p2p_seq, fr_state state,
                          const fa_opinfo *name, uint32_t entry_index) {
    const fa_group *g = &w->groups->v[group];
    int64_t peer = name->is_send ? name->dst : name->src;
    uint32_t src =
        name->is_send ? member : (peer >= 0 && peer < g->nmembers ? (uint32_t)peer : UINT32_MAX);
    uint32_t dst =
        name->is_send ? (peer >= 0 && peer < g->nmembers ? (uint32_t)peer : UINT32_MAX) : member;
    size_t at = w->placing ? w->p2p_at : w->np2p;
    if (o->last_p2p && o->p2p_seq == p2p_seq) {
        o->batch_n++;
    } else {
        o->batch_first = at;
        o->batch_n = 1;
        o->p2p_seq = p2p_seq;
    }
    o->last_p2p = true;
    if (!w->placing) {
        w->np2p++;
        return;
    }
    w->p2p[w->p2p_at++] = (fa_p2p_rec){ .group = group,
                                        .src_pos = src,
                                        .dst_pos = dst,
                                        .rank_index = rank_index,
                                        .entry = entry_index & FA_MAX_DUMP_ENTRIES,
                                        .is_send = name->is_send,
                                        .state = state };
}

/* A `coalesced` end marker right after send/recv of the same p2p_seq_id closes a
 * batch_isend_irecv group: its state lifts the batch's entries (they may stay scheduled). */
static bool closes_p2p_batch(walker *w, open_group *o, int64_t p2p_seq, fr_state state,
                             const fa_opinfo *op) {
    if (!o->last_p2p || !(op->flags & FA_OP_COALESCED) || p2p_seq != o->p2p_seq) return false;
    for (size_t i = o->batch_first; w->placing && i < o->batch_first + o->batch_n; i++)
        if (w->p2p[i].state < state) w->p2p[i].state = state;
    return true;
}

/* Only stores that change something: a view shared by a cache line with another walker's
 * rank should not bounce between the cores. */
static void note_progress(fa_view *v, int64_t seq, int64_t p2p_seq, int64_t pg_id, const fa_dump *d,
                          bool p2p) {
    if (seq > v->issued_max) v->issued_max = seq;
    if (v->pg_id < 0) v->pg_id = pg_id;
    if (!v->has_entries) v->has_entries = true;
    if (p2p && p2p_seq < v->p2p_min) v->p2p_min = p2p_seq;
    if (d->launch_numbered) {
        int64_t launch = p2p ? p2p_seq : seq;
        if (launch > 0 && launch < v->window_min) v->window_min = launch;
        if (!v->launch_numbered) v->launch_numbered = true;
    }
}

/* Group and position of each of the rank's pg slots, looked up once per rank, not per entry. */
static int resolve_pgs(walker *w, uint32_t rank_index) {
    const fa_dump *d = w->in->ranks[rank_index].dump;
    void **const columns[] = { (void **)&w->pg_group, (void **)&w->pg_pos };
    const size_t sizes[] = { sizeof *w->pg_group, sizeof *w->pg_pos };
    if (fr_grow_parallel(columns, sizes, 2, &w->pg_cap, d->npgs + 1, 64)) return -1;
    for (uint32_t k = 0; k < d->npgs; k++) {
        long gi = fa_groups_find(w->groups, rank_index, d->pgs[k].name);
        w->pg_group[k] = gi;
        w->pg_pos[k] =
            gi < 0 ? -1 : fa_group_position(&w->groups->v[gi], w->in->ranks[rank_index].rank);
    }
    return 0;
}

/* Whether the call keeps its op uniform (fa_walk.uniform): one entry, with the op's values. */
static void note_values(walker *w, const rank_call *c, const fa_entry *e) {
    local_op *op = &w->ops[c->op];
    if (op->shape == VALS_MIXED) return;
    const fa_traits *t = &w->traits[e->traits];
    uint32_t vals[5] = { t->name, t->in_sizes, t->out_sizes, t->in_dtypes, t->out_dtypes };
    if (c->nentries != 1) {
        op->shape = VALS_MIXED;
    } else if (!op->shape) {
        memcpy(op->vals, vals, sizeof vals);
        op->shape = VALS_SAME;
    } else if (memcmp(op->vals, vals, sizeof vals) != 0) {
        op->shape = VALS_MIXED;
    }
}

/* First walk: the rank's calls counted into their ops, the refs their bundles will need. */
static void count_rank_calls(walker *w, uint32_t rank_index) {
    const fa_dump *d = w->in->ranks[rank_index].dump;
    for (size_t c = 0; c < w->nrank_calls; c++) {
        const rank_call *call = &w->rank_calls[c];
        w->ops[call->op].ncalls++;
        if (call->nentries > 1) w->nrefs += 1 + (size_t)call->nentries;
        note_values(w, call, &d->entries[call->first]);
    }
}

/* Second walk: the rank's calls written to their slots; a bundle's entries laid out in its refs
 * after its count, in record order. */
static void place_rank_calls(walker *w, uint32_t rank_index, long *group_pos) {
    const fa_dump *d = w->in->ranks[rank_index].dump;
    fa_match *m = w->m;
    for (size_t c = 0; c < w->nrank_calls; c++) {
        rank_call *call = &w->rank_calls[c];
        uint32_t g = w->global[call->op], at = call->first;
        if (call->nentries > 1) {
            call->refs_at = (uint32_t)w->refs_at;
            m->entry_refs[w->refs_at] = call->nentries;
            at = FA_CALL_BUNDLE | call->refs_at;
            w->refs_at += 1 + (size_t)call->nentries;
            call->nentries = 0; /* counts its entries again as they are laid out */
        }
        m->calls[w->start[call->op]++] =
            (fa_call){ .member = (uint32_t)group_pos[m->ops[g].group] & FA_MAX_MEMBERS,
                       .state = call->state,
                       .in_minority = 0,
                       .rank_index = rank_index,
                       .at = at };
    }
    for (uint32_t i = 0; i < d->nentries; i++) {
        if (w->entry_call[i] == NO_CALL) continue;
        rank_call *c = &w->rank_calls[w->entry_call[i]];
        if (c->refs_at) m->entry_refs[c->refs_at + 1 + c->nentries++] = i;
    }
}

/* The group's open state for the rank being walked, reset on the rank's first entry in it. */
static open_group *open_of(walker *w, uint32_t gi) {
    open_group *o = &w->open[gi];
    if (!o->touched) {
        memset(o, 0, sizeof *o);
        o->touched = true;
        o->call = -1;
        o->min_pending = INT64_MAX;
        w->touched[w->ntouched++] = gi;
    }
    return o;
}

/* In-order completion within a group: everything before the oldest pending one is done; only
 * the groups this rank has entries in are visited (not every group of the job). The second
 * walk only resets them. */
static void close_groups(walker *w, int64_t rank) {
    for (size_t t = 0; t < w->ntouched; t++) {
        open_group *o = &w->open[w->touched[t]];
        long pos = fa_group_position(&w->groups->v[w->touched[t]], rank);
        fa_view *v = view_of(w->m, w->touched[t], (uint32_t)pos);
        if (!w->placing && o->min_pending != INT64_MAX && o->min_pending - 1 > v->completed_max)
            v->completed_max = o->min_pending - 1;
        o->touched = false;
    }
    w->ntouched = 0;
}

/* Whether entry i is a completed end marker whose bundle lost every member from the dump (it
 * would open a call, and the record before it is not in the dump: a ring's window starts at it,
 * or an only-active dump dropped what completed). Its type says nothing then: a collective
 * bundle's marker and a send/recv batch's (which carries the collective count so far) read
 * alike, and neither is a collective to compare; what it proves done, the group's counters
 * keep (tests/sim seed 2788: a batch's marker read as coalesced #4 against a peer's
 * all_reduce #4). */
static bool orphan_marker(const open_group *o, const fa_dump *d, uint32_t i, int64_t seq,
                          fr_state state, const fa_opinfo *op) {
    if (!(op->flags & FA_OP_END_MARKER) || state != FR_STATE_COMPLETED ||
        continues_call(o, seq, op))
        return false;
    return i == 0 ||
           fa_entry_record_id(d, &d->entries[i - 1]) != fa_entry_record_id(d, &d->entries[i]) - 1;
}

/* Collectives that the rank issued in the group between its previous entry there and entry e,
 * and that the dump lacks, completed: raised into completed_max. An entry's collective_seq_id
 * counts the group's collectives issued so far (a collective's its own, a send/recv's or an end
 * marker's those before it), so a count above the previous entry's says which were issued in
 * between; records missing between the two, at least as many, say the dump dropped them, and a
 * dump drops a record between two it keeps only when it completed (only-active: a ring drops
 * the oldest, a cut the newest). The group's work completes in issue order, so everything up to
 * there did (tests/sim seed 10725: an only-active dump whose send/recv entries carry #7, its
 * _allgather_base #7 dropped, read as "in flight (no entry)" beside pg_status's "completed 2",
 * the number of its batch p2p #2, and 244 ranks named as stalled). Not gloo's (its send/recv
 * are not recorded) nor launch-numbered dumps (one counter numbers both). */
static void note_dropped(open_group *o, fa_view *v, const fa_dump *d, const fa_entry *e,
                         int64_t seq, bool collective) {
    int64_t before = collective ? seq - 1 : seq, record = fa_entry_record_id(d, e);
    if (fa_dump_nccl_numbered(d) && o->seen && before > o->seen_count &&
        record - o->seen_record - 1 >= before - o->seen_count && before > v->completed_max)
        v->completed_max = before;
    o->seen = true;
    o->seen_count = seq;
    o->seen_record = record;
}

/* A collective entry carries the group's send/recv count so far (p2p_seq_id): the rank issued its
 * send/recv up to that number before the collective. Where the collective started or completed,
 * the group's stream ran everything issued on it before (work on a stream runs in issue order;
 * batch_isend_irecv runs on the group's communicator, and a blocking send/recv orders the
 * current stream that the next collective waits on), so those send/recv ran too, though an
 * only-active dump dropped them (tests/sim seed 11349: rank 22's only-active dump shows only
 * mesh_tp broadcast #8 started, carrying p2p #3, the batch its partner 23 stalled in; read as
 * "22 never posted it"). NCCL counters only: not gloo's (no send/recv recorded) nor
 * launch-numbered dumps (one counter numbers both). Used for groups of two, where the send/recv
 * numbers are the pair's (fa_op_member_state_of). */
static void note_p2p_run(fa_view *v, const fa_dump *d, int64_t p2p_seq, fr_state state,
                         bool collective) {
    if (!collective || !fa_dump_nccl_numbered(d) ||
        (state != FR_STATE_STARTED && state != FR_STATE_COMPLETED))
        return;
    if (p2p_seq > v->p2p_run) v->p2p_run = p2p_seq;
}

/* A send/recv batch whose end marker completed: batch_isend_irecv runs on the group's
 * communicator, whose work completes in issue order, and the marker carries the count of the
 * group's collectives issued before it (seq), so they completed too, though a window dropped them
 * and pg_status numbers the batch (tests/sim seed 18907: ranks 16 and 17, their rings starting at
 * the batch after all_reduce_barrier #2, "completed 1" its p2p number, read as stalled in the
 * barrier that ranks 1 and 2 completed). NCCL counters only, as note_dropped. */
static void note_batch_done(fa_view *v, const fa_dump *d, int64_t seq, fr_state state) {
    if (state == FR_STATE_COMPLETED && fa_dump_nccl_numbered(d) && seq > v->completed_max)
        v->completed_max = seq;
}

static int walk_entry(walker *w, uint32_t rank_index, const fa_dump *d, uint32_t i) {
    const fa_entry *e = &d->entries[i];
    fa_match *m = w->m;
    w->entry_call[i] = NO_CALL;
    const fa_traits *t = &w->traits[e->traits];
    long gi = w->pg_group[t->pg], pos = w->pg_pos[t->pg];
    if (gi < 0 || pos < 0) return 0;
    fr_state state = (fr_state)t->state;
    const fa_opinfo *name = fa_store_op(w->in->store, t->name);
    open_group *o = open_of(w, (uint32_t)gi);
    fa_view *v = view_of(m, (uint32_t)gi, (uint32_t)pos);
    int64_t seq = fa_entry_coll_seq_in(d, e, t->pg), p2p_seq = fa_entry_p2p_seq_in(d, e, t->pg);
    if (!w->placing) {
        note_progress(v, seq, p2p_seq, d->pgs[t->pg].pg_id, d,
                      t->is_p2p || name->is_send || name->is_recv);
        note_p2p_run(
            v, d, p2p_seq, state,
            !(t->is_p2p || name->is_send || name->is_recv || (name->flags & FA_OP_END_MARKER)));
        note_dropped(
            o, v, d, e, seq,
            !(t->is_p2p || name->is_send || name->is_recv || (name->flags & FA_OP_END_MARKER)));
        if (state != FR_STATE_COMPLETED &&
            fa_entry_record_id(d, e) > m->rank_newest_pending[rank_index])
            m->rank_newest_pending[rank_index] = fa_entry_record_id(d, e);
        w->any_entries = true;
    }
    if (t->is_p2p || name->is_send || name->is_recv) {
        add_p2p_entry(w, o, (uint32_t)gi, (uint32_t)pos, rank_index, p2p_seq, state, name, i);
        return 0;
    }
    if (closes_p2p_batch(w, o, p2p_seq, state, name)) {
        o->last_p2p = false;
        if (!w->placing) note_batch_done(v, d, seq, state);
        return 0;
    }
    o->last_p2p = false;
    if (orphan_marker(o, d, i, seq, state, name)) {
        if (!w->placing && seq > v->completed_max) v->completed_max = seq;
        return 0;
    }
    if (!w->placing && !v->has_collective) v->has_collective = true;
    if (add_collective_entry(w, o, d, (uint32_t)gi, seq, state, name, i)) return -1;
    if (w->placing) return 0;
    if (state == FR_STATE_COMPLETED) {
        if (seq > v->completed_max) v->completed_max = seq;
    } else if (seq < o->min_pending) {
        o->min_pending = seq;
    }
    return 0;
}

/* One rank, walked: its calls counted (first walk) or placed (second; group_pos is the walker's
 * per-group scratch, all -1 between ranks). */
static int walk_rank(walker *w, uint32_t rank_index, long *group_pos) {
    const fa_dump *d = w->in->ranks[rank_index].dump;
    if (fa_grow((void **)&w->entry_call, &w->entry_call_cap, d->nentries + 1,
                sizeof *w->entry_call))
        return -1;
    if (resolve_pgs(w, rank_index)) return -1;
    if (!w->placing) w->m->rank_newest_pending[rank_index] = -1;
    w->nrank_calls = 0;
    for (uint32_t i = 0; i < d->nentries; i++) {
        /* the entries come from memory for the first time since loading: ask ahead */
        if (i + 16 < d->nentries) __builtin_prefetch(&d->entries[i + 16]);
        if (walk_entry(w, rank_index, d, i)) return -1;
    }
    close_groups(w, w->in->ranks[rank_index].rank);
    if (!w->placing) {
        count_rank_calls(w, rank_index);
        return 0;
    }
    /* the rank's position per group from its few pg slots; two slots of one group agree */
    for (uint32_t k = 0; k < d->npgs; k++)
        if (w->pg_group[k] >= 0) group_pos[w->pg_group[k]] = w->pg_pos[k];
    place_rank_calls(w, rank_index, group_pos);
    for (uint32_t k = 0; k < d->npgs; k++)
        if (w->pg_group[k] >= 0) group_pos[w->pg_group[k]] = -1;
    return 0;
}

static void *walk_main(void *arg) {
    walker *w = arg;
    w->open = calloc(w->groups->n + 1, sizeof *w->open);
    w->touched = calloc(w->groups->n + 1, sizeof *w->touched);
    long *group_pos = w->placing ? malloc((w->groups->n + 1) * sizeof *group_pos) : NULL;
    w->rc = w->open && w->touched && (!w->placing || group_pos) ? 0 : -1;
    for (size_t g = 0; group_pos && g <= w->groups->n; g++) group_pos[g] = -1;
    if (w->rc == 0 && !w->placing) w->rc = fa_op_index_init(&w->index, w->groups->n);
    for (uint32_t r = w->first; w->rc == 0 && r < w->end; r++) w->rc = walk_rank(w, r, group_pos);
    free(w->open);
    free(w->touched);
    free(w->entry_call);
    free(w->rank_calls);
    free(group_pos);
    w->open = NULL;
    w->touched = NULL;
    w->entry_call = NULL;
    w->rank_calls = NULL;
    w->entry_call_cap = w->rank_calls_cap = 0;
    return NULL;
}

/* ---------------------------------------------------------------- merging ---------- */

typedef struct init_ctx {
    const local_op *from;
    fa_op *ops;
    uint8_t *uniform;
} init_ctx;

static void init_ops(void *arg, unsigned worker, size_t lo, size_t hi) {
    init_ctx *c = arg;
    (void)worker;
    for (size_t g = lo; g < hi; g++) {
        c->ops[g] = (fa_op){ .group = c->from[g].group & FA_MAX_GROUPS,
                             .seq = c->from[g].seq,
                             .src = -1,
                             .dst = -1,
                             .rep_call = FA_NO_CALL_ID };
        c->uniform[g] = c->from[g].shape == VALS_SAME;
    }
}

/* Gives every walker's local ops their final ids: walker 0's table and op list become the job's,
 * and a later walker's op either finds its key there or is appended (its counts stay with its
 * walker: the appended op has no calls of walker 0). Then m->ops, with totals and first calls. */
static int merge_ops(walker *w, unsigned nw, fa_match *m, fa_walk *out) {
    walker *w0 = &w[0];
    for (unsigned t = 0; t < nw; t++) {
        w[t].nown = w[t].nops;
        w[t].global = malloc((w[t].nops + 1) * sizeof *w[t].global);
        w[t].start = malloc((w[t].nops + 1) * sizeof *w[t].start);
        if (!w[t].global || !w[t].start) return -1;
    }
    for (size_t l = 0; l < w0->nown; l++) w0->global[l] = (uint32_t)l;
    /* walker 0's table gains the other walkers' new ops; its own lookups in the second walk
     * find only its own ids, which stay below nown */
    for (unsigned t = 1; t < nw; t++) {
        for (size_t l = 0; l < w[t].nown; l++) {
            const local_op *x = &w[t].ops[l];
            long g = fa_op_index_find(&w0->index, x->group, x->seq, x->occurrence);
            if (g < 0) {
                g = new_local_op(w0, x->group, x->seq, x->occurrence);
                if (g < 0 ||
                    fa_op_index_add(&w0->index, x->group, x->seq, x->occurrence, (uint32_t)g))
                    return -1;
                w0->ops[g].shape = x->shape;
                memcpy(w0->ops[g].vals, x->vals, sizeof x->vals);
            } else if (x->shape != VALS_SAME ||
                       memcmp(w0->ops[g].vals, x->vals, sizeof x->vals) != 0) {
                w0->ops[g].shape = VALS_MIXED;
            }
            w[t].global[l] = (uint32_t)g;
        }
    }
    size_t nops = w0->nops, np2p = 0;
    for (unsigned t = 0; t < nw; t++) np2p += w[t].np2p;
    out->ops_cap =
        nops + np2p + 1; /* room for the send/recv ops pairing appends (one per record at most) */
    /* two ops to a cache line (aligned_alloc wants a multiple of the alignment) */
    m->ops = aligned_alloc(64, (out->ops_cap * sizeof *m->ops + 63) & ~(size_t)63);
    out->uniform = malloc(nops + 1);
    if (!m->ops || !out->uniform) return -1;
    m->nops = out->nuniform = nops;
    /* fresh memory costs a page fault per 4 KiB: fill it on every core */
    init_ctx init = { w0->ops, m->ops, out->uniform };
    fa_parallel_for(nops, 1 << 16, nw, init_ops, &init);
    for (unsigned t = 0; t < nw; t++)
        for (size_t l = 0; l < w[t].nown; l++) m->ops[w[t].global[l]].ncalls += w[t].ops[l].ncalls;
    uint32_t at = 0;
    for (size_t g = 0; g < nops; g++) {
        m->ops[g].first_call = at;
        at += m->ops[g].ncalls;
    }
    return 0;
}

/* Where each walker's calls of each op go: walker 0's from the op's first call on, walker t's
 * after those of walkers 0..t-1. */
static int plan_slots(walker *w, unsigned nw, const fa_match *m) {
    uint32_t *next = malloc((m->nops + 1) * sizeof *next);
    if (!next) return -1;
    for (size_t g = 0; g < m->nops; g++) next[g] = m->ops[g].first_call;
    for (unsigned t = 0; t < nw; t++)
        for (size_t l = 0; l < w[t].nown; l++) {
            uint32_t g = w[t].global[l];
            w[t].start[l] = next[g];
            next[g] += w[t].ops[l].ncalls;
        }
    free(next);
    return 0;
}

/* The joint arrays the second walk writes into: the calls (with room for the send/recv calls
 * pairing appends), the bundles' entry refs and the send/recv records, each walker's refs and
 * records in a range of its own, in walker order. */
static int reserve(walker *w, unsigned nw, fa_match *m, fa_walk *out) {
    size_t ncalls = 0, nrefs = 0, np2p = 0;
    for (size_t g = 0; g < m->nops; g++) ncalls += m->ops[g].ncalls;
    for (unsigned t = 0; t < nw; t++) {
        w[t].refs_at = nrefs + 1; /* entry_refs[0] stays unused: refs_at 0 means "no bundle" */
        w[t].p2p_at = np2p;
        nrefs += w[t].nrefs;
        np2p += w[t].np2p;
    }
    if (nrefs + 1 >= FA_CALL_BUNDLE) return -1; /* a bundle's refs index must fit 31 bits */
    out->calls_cap = ncalls + np2p + 1;
    out->refs_cap = nrefs + 2;
    m->calls = malloc(out->calls_cap * sizeof *m->calls);
    m->entry_refs = calloc(out->refs_cap, sizeof *m->entry_refs);
    out->p2p = malloc((np2p + 1) * sizeof *out->p2p);
    if (!m->calls || !m->entry_refs || !out->p2p) return -1;
    m->ncalls = ncalls;
    m->nentry_refs = nrefs + 1;
    out->np2p = np2p;
    for (unsigned t = 0; t < nw; t++) w[t].p2p = out->p2p;
    return 0;
}

/* ---------------------------------------------------------------- driver ----------- */

typedef struct walker_run {
    walker *w;
    void *(*fn)(void *);
} walker_run;

static void run_walker_range(void *ctx, unsigned worker, size_t lo, size_t hi) {
    const walker_run *r = ctx;
    for (size_t t = lo; t < hi; t++) r->fn(&r->w[t]);
}

/* Runs fn over every walker, each on a core of its own (fa_parallel_for). */
static int run_walkers(walker *w, unsigned nw, void *(*fn)(void *)) {
    walker_run r = { w, fn };
    fa_parallel_for(nw, 1, nw, run_walker_range, &r);
    int rc = 0;
    for (unsigned t = 0; t < nw; t++) rc |= w[t].rc;
    return rc;
}

/* Contiguous rank ranges of about equal entry counts, one per walker. */
static unsigned split_ranks(walker *w, unsigned nw, const fa_input *in) {
    if (nw > in->nranks) nw = in->nranks ? (unsigned)in->nranks : 1;
    size_t total = 0, seen = 0;
    for (size_t r = 0; r < in->nranks; r++) total += in->ranks[r].dump->nentries;
    uint32_t r = 0;
    for (unsigned t = 0; t < nw; t++) {
        w[t].first = r;
        size_t goal = t + 1 == nw ? total : total / nw * (t + 1);
        /* at least one rank each, and one left for every later walker */
        while (r < in->nranks &&
               (t + 1 == nw || r == w[t].first || (seen < goal && in->nranks - r > nw - 1 - t)))
            seen += in->ranks[r++].dump->nentries;
        w[t].end = r;
    }
    return nw;
}

static void free_walker(walker *w) {
    fa_op_index_free(&w->index);
    free(w->ops);
    free(w->open);
    free(w->touched);
    free(w->entry_call);
    free(w->pg_group);
    free(w->pg_pos);
    free(w->rank_calls);
    free(w->global);
    free(w->start);
}

static int walk_and_place(walker *w, unsigned nw, fa_match *m, fa_walk *out, bool timing) {
    double t = fa_clock();
    if (run_walkers(w, nw, walk_main)) return -1;
    for (unsigned i = 0; i < nw; i++) m->any_entries |= w[i].any_entries;
    if (merge_ops(w, nw, m, out) || plan_slots(w, nw, m)) return -1;
    /* the op lists are done with (the second walk needs the index, ids and slots only): free
     * them before the calls are allocated */
    for (unsigned i = 0; i < nw; i++) {
        free(w[i].ops);
        w[i].ops = NULL;
    }
    if (timing) fa_timing_note("  walk", &t);
    if (reserve(w, nw, m, out)) return -1;
    for (unsigned i = 0; i < nw; i++) w[i].placing = true;
    int rc = run_walkers(w, nw, walk_main);
    if (timing) fa_timing_note("  place", &t);
    return rc;
}

int fa_walk_ranks(const fa_input *in, const fa_groups *groups, int jobs, fa_match *m,
                  fa_walk *out) {
    memset(out, 0, sizeof *out);
    unsigned nw = fa_worker_count(jobs);
    walker *w = aligned_alloc(_Alignof(walker), nw * sizeof *w);
    if (!w) return -1;
    memset(w, 0, nw * sizeof *w);
    nw = split_ranks(w, nw, in);
    for (unsigned t = 0; t < nw; t++) {
        w[t].in = in;
        w[t].groups = groups;
        w[t].traits = fa_store_traits_all(in->store);
        w[t].m = m;
    }
    int rc = walk_and_place(w, nw, m, out, fa_timing_wanted());
    for (unsigned t = 0; t < nw; t++) free_walker(&w[t]);
    free(w);
    return rc;
}

void fa_walk_free(fa_walk *w) {
    free(w->p2p);
    free(w->uniform);
    memset(w, 0, sizeof *w);
}
