/* match.h — per group: which entries of which ranks are one collective, and do they agree.
 *
 * Collectives are keyed by (group, collective_seq_id): a rank's entries with the same seq in a
 * group form one call (a coalesced bundle, with its end marker `coalesced`,
 * `ALLGATHER_coalesced`, `REDUCE_SCATTER_coalesced`). A bundle is split where the op type
 * changes to a different non-marker type, so that a plain collective and a coalesced group that
 * happen to share a seq stay two calls. Send/recv are matched by (group, sender, receiver) and
 * order: the k-th pending send a->b pairs with the k-th pending recv on b from a, and completed
 * ones pair from their newest backwards (a window may have lost the oldest). Profiling names
 * carry group ranks; they map to global ranks through the group's member order. The send/recv
 * entries of a batch_isend_irecv group take the state of its end marker when that is further
 * along (PyTorch leaves them `scheduled`), and the marker itself is not a collective.
 *
 * Agreement is decided here, once: fa_match_entries() compares two entries as torchfrtrace's
 * Op.match does where it is right (type, sizes, all_gather/reduce_scatter numel, dtypes, state,
 * all_to_all undecided); the per-collective check uses the same predicates over all members and
 * names the minority by majority (two members or a tie: everyone on the minority side).
 * The recorder's launch numbers (fa_dump.launch_numbered) key its collectives too; where they
 * diverge between members whose numbers run unbroken from 1, NCCL's pairing by order is
 * checked as well: the members' k-th collectives must agree (match_order.c).
 *
 * For each (group, member) the matcher also derives what is known of that member's progress:
 * issued_max and completed_max, from its entries and pg_status (through pg_id, or the pg_id the
 * other members use when the member has no entry in the group), so that a member without an
 * entry for a collective is known to have completed it, to have it in flight, or to never have
 * issued it.
 */
#ifndef FRTRACE_MATCH_H
#define FRTRACE_MATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dump.h"
#include "match/findings.h"
#include "match/groups.h"
#include "load/load.h"
#include "load/opname.h"
#include "load/store.h"

typedef enum fa_match_state {
    FA_FULLY_MATCHED = 1,
    FA_COLLECTIVE_TYPE_MISMATCH,
    FA_SIZE_OR_SYNTAX_MISMATCH,
    FA_COLLECTIVE_STATE_MISMATCH,
    FA_COLLECTIVE_DTYPE_MISMATCH,
    FA_UNDECIDED,
} fa_match_state;

/* torchfrtrace's Op(a).match(Op(b)) without its bugs. group_size: members of the group.
 * For send/recv, a_src/a_dst and b_src/b_dst are the global ranks (or -1). `why` may be NULL. */
fa_match_state fa_match_entries(const fr_entry *a, const fr_entry *b, int64_t group_size, char *why,
                                size_t whylen);
const char *fa_match_state_name(fa_match_state state);
/* "[[4, 4], [8]]", as torchfrtrace prints sizes; truncated to fit `len`. */
void fa_shapes_text(const fr_shapes *s, char *buf, size_t len);

/* What a member's dump says about one collective or p2p op. */
typedef enum fa_member_state {
    FA_MS_COMPLETED,
    FA_MS_STARTED,
    FA_MS_SCHEDULED,
    FA_MS_IN_FLIGHT, /* no entry, but issued and not completed by its counters */
    FA_MS_NEVER,     /* the member's dump shows it never issued it */
    FA_MS_NO_DUMP,   /* unknown: the member wrote no (readable) dump */
    FA_MS_STALE,     /* unknown: the member's dump is older than its peers' (fa_stale) and does
                      * not reach this op */
} fa_member_state;

const char *fa_member_state_name(fa_member_state state);
static inline bool fa_member_state_pending(fa_member_state s) {
    return s == FA_MS_STARTED || s == FA_MS_SCHEDULED || s == FA_MS_IN_FLIGHT;
}
/* Not there for the others: it never issued the op, or nothing says whether it did. */
static inline bool fa_member_state_absent(fa_member_state s) {
    return s == FA_MS_NEVER || s == FA_MS_NO_DUMP || s == FA_MS_STALE;
}
static inline bool fa_member_state_unknown(fa_member_state s) {
    return s == FA_MS_NO_DUMP || s == FA_MS_STALE;
}

/* One rank's part in an op; its op is the one whose [first_call, first_call + ncalls) holds it.
 * 12 bytes, one per rank per op: nearly every call is one entry, whose index `at` holds; a
 * bundle's (a coalesced group: FA_CALL_BUNDLE set) `at` is where fa_match.entry_refs holds its
 * entry count, its entry indices following. Read them through fa_call_nentries and
 * fa_call_entry_index (or fa_call_entry). */
#define FA_CALL_BUNDLE 0x80000000u
#define FA_MAX_MEMBERS ((1u << 28) - 1)
typedef struct fa_call {
    uint32_t member : 28;     /* position in the group (fa_match_build refuses larger groups) */
    uint32_t state : 3;       /* the call's effective fr_state */
    uint32_t in_minority : 1; /* named by a mismatch check */
    uint32_t rank_index;      /* index into fa_input.ranks */
    uint32_t at;              /* its entry's index, or FA_CALL_BUNDLE | its place in entry_refs */
} fa_call;
_Static_assert(sizeof(fa_call) == 12, "fa_call is 12 bytes: the memory budget counts on it");

/* 32 bytes, two to a cache line: a job of 131 072 ranks has some 45 million. What an op shows
 * of its representative call (from the majority) is read through it: fa_op_rep_entry (the call's
 * last entry: a bundle shows its end marker), fa_op_rep_rank (its input rank), fa_op_type (its
 * first entry's op type). */
#define FA_NO_CALL_ID UINT32_MAX /* fa_op.rep_call: none chosen */
#define FA_MAX_GROUPS ((1u << 26) - 1)
typedef struct fa_op {
    uint32_t group : 26; /* fewer than FA_MAX_GROUPS groups (fa_match_build refuses more) */
    uint32_t is_p2p : 1;
    uint32_t mismatch : 1;   /* a type/size/dtype/all_to_all finding names this op */
    uint32_t unmatched : 1;  /* p2p with one side absent */
    uint32_t passes : 1;     /* every expected member issued it and no check names it (passes.h) */
    uint32_t unverified : 1; /* does not pass only for members without a dump; every member with
                              * one completed it (passes.h) */
    uint32_t order_unshown : 1;  /* p2p: paired by order alone, unanchored (match_p2p.c:
                                  * order_pair): its dtypes are not compared */
    uint32_t first_call, ncalls; /* calls of this op, ascending member */
    uint32_t rep_call;           /* index into fa_match.calls of its representative, or none */
    int32_t src, dst; /* p2p: global ranks of sender and receiver, -1 unknown (or past 2^31) */
    int64_t seq;      /* collective_seq_id; for p2p the sender's (else receiver's) p2p_seq_id */
} fa_op;
_Static_assert(sizeof(fa_op) == 32, "fa_op is 32 bytes: the memory budget counts on it");

/* A global rank as fa_op keeps it: -1 when unknown or beyond int32 (no job has 2^31 ranks). */
static inline int32_t fa_op_rank32(int64_t rank) {
    return rank >= 0 && rank <= INT32_MAX ? (int32_t)rank : -1;
}

typedef struct fa_view {
    int64_t issued_max;    /* highest collective seq issued, -1 none known */
    int64_t completed_max; /* highest collective seq known completed, -1 none */
    int64_t pg_id;         /* -1 unknown */
    int64_t window_min;    /* launch-numbered dumps (store.h): the lowest seq id its entries in
                            * the group carry (collectives' and send/recv batches'); INT64_MAX */
    int64_t p2p_min; /* the lowest p2p_seq_id of its send/recv entries in the group; INT64_MAX */
    int64_t p2p_run; /* the highest p2p_seq_id carried by a collective entry of its own in the
                      * group that started or completed: its send/recv up to there ran before
                      * (note_p2p_run); -1 none */
    bool has_dump;
    bool has_entries;
    /* no entry there, and which pg_status key counts the group is unknown (no pg_id named by an
     * entry, peers' or by elimination: fold_status): what it issued there is unknown */
    bool counters_unknown;
    bool has_collective;  /* an entry of a collective of its own there (no send/recv, no marker) */
    bool launch_numbered; /* its dump's (fa_dump.launch_numbered) */
    bool counts_p2p;      /* pg_status numbers only send/recv here, alike on both sides: a group
                           * of two, no collective in the member's entries (has_collective:
                           * torch's own tests number collectives from 0, and a send/recv entry
                           * carries the collective count), NCCL's counters (p2p_counters);
                           * or a member without entries there whose number is above every
                           * collective its peer issued (p2p_counters_above_peer) */
    bool counts_own_p2p;  /* pg_status numbers the member's own send/recv here, in a group of any
                           * size (no collective in its entries, NCCL's counters): its own
                           * entries' p2p_seq_ids compare with it, a peer's or an op's do not */
    bool p2p_or_older;    /* no entry in a group where send/recv ran, and counters below a
                           * collective every member must have issued (find_stale): a send/recv's
                           * numbers, or a dump older than its peers'; nobody can tell which */
    bool later_unknown;   /* p2p_or_older, and no group without send/recv shows the member's
                           * dump as far as its peers there (find_stale): what it did in the
                           * group's later collectives is unknown */
} fa_view;

/* The last number that view v's member completed in its group by its dump's own pg_status (not
 * raised by its entries, as completed_max is), -1 unknown: a collective's, or where send/recv
 * ran there perhaps a batch's (the recorder: a launch's). fa_dump_status_completed: the same
 * for the group that the dump counts under pg_id (-1: unknown). */
static inline int64_t fa_dump_status_completed(const fa_dump *d, int64_t pg_id) {
    int64_t done = -1;
    for (uint32_t s = 0; s < d->nstatus && pg_id >= 0; s++)
        if (d->status[s].pg_id == pg_id && d->status[s].last_completed > done)
            done = d->status[s].last_completed;
    return done;
}
static inline int64_t fa_view_status_completed(const fa_dump *d, const fa_view *v) {
    return fa_dump_status_completed(d, v->pg_id);
}

/* A dump older than its peers': some member of `group` completed #seq there, which needs every
 * member, while this rank's dump shows it issued no further than #issued. What it says it never
 * issued after its dump was taken is unknown, and what it has pending may have completed since.
 * group -1: the dump is not known to be older. */
typedef struct fa_stale {
    long group;
    int64_t seq, issued;
    bool cut; /* a truncated dump kept for its whole entries: it says nothing after them */
    /* The only proof is what the dump shows the rank issued: launches pending there that peers
     * completed (older_in_stream), or a send a peer completed to it (note_older). A GPU that ran
     * past what it recorded and stopped leaves the same bytes (real runs gpu_error_1st/2nd), and
     * so does a recv never posted (NCCL completes a send that fits the receiver's buffer): the
     * verdict reads such a dump both ways (verdict_either.c). False where something the rank had
     * not issued proves it: a collective its peers completed beyond its counters, a transfer a
     * peer received from it. */
    bool issued_only;
    /* Of those, a proof by a peer's counters past a head the GPU never started while a member
     * still has the group's work pending: what a failed GPU's fresh dump shows (real runs
     * gpu_error_1st/2nd). Read older only where that moves the blame off such ranks
     * (verdict_either.c). */
    bool stall_first;
} fa_stale;

/* A dump not known to be older than its peers' (cut short or not). */
static inline fa_stale fa_stale_none(bool cut) {
    return (fa_stale){ -1, -1, -1, cut, false, false };
}

/* Whether what the rank's dump says ends before the others' do (older, or cut short). */
static inline bool fa_stale_known(const fa_stale *s) { return s->group >= 0 || s->cut; }

/* Whether the dump is older only by what it shows issued (and not cut): the verdict reads it
 * both ways (verdict_either.c). */
static inline bool fa_stale_read_both_ways(const fa_stale *s) {
    return s->group >= 0 && s->issued_only && !s->cut;
}

/* Whether some dump of the nranks input ranks is read both ways: the reports then say what tells
 * its two readings apart. */
static inline bool fa_stale_any_issued_only(const fa_stale *rank_stale, size_t nranks) {
    for (size_t r = 0; r < nranks; r++)
        if (fa_stale_read_both_ways(&rank_stale[r])) return true;
    return false;
}

typedef struct fa_match {
    const fa_input *in; /* what was matched (the ops' representatives are its entries) */
    fa_op *ops;
    size_t nops;
    fa_call *calls;
    size_t ncalls;
    uint32_t *entry_refs; /* the bundles' entry counts and indices (fa_call.at) */
    size_t nentry_refs;
    size_t *view_at;              /* per group: first index into views */
    fa_view *views;               /* per (group, member) */
    int64_t *rank_newest_pending; /* per input rank: record_id of its newest pending entry, -1 */
    fa_stale *rank_stale;         /* per input rank */
    bool any_entries;
    uint32_t *absent_done; /* send/recv ops whose absent side went past them in step with its
                            * peer and completed (match_aligned.c), ascending */
    size_t nabsent_done;
} fa_match;

/* Builds ops and calls for every group, runs the agreement checks, adds mismatch and p2p
 * findings (capped per group at `mismatch_cap` listed). The checks use `jobs` threads (<= 0: one
 * per core); the result does not depend on it. Returns 0 or -1 (out of memory). */
int fa_match_build(const fa_input *in, const fa_groups *groups, int mismatch_cap, int jobs,
                   fa_match *m, fa_findings *findings, fr_error *err);
void fa_match_free(fa_match *m);
/* The verdict read these ranks' dumps final (fa_verdict.read_final): their stall_first proof no
 * longer makes them older, and the reports show them as the verdict read them. */
void fa_match_read_final(fa_match *m, const fa_input *in, const int64_t *ranks, size_t n);

/* Whether send/recv op `op`'s absent side went past it in step with its peer (match_aligned.c):
 * a binary search of the few such ops. */
static inline bool fa_match_absent_done(const fa_match *m, size_t op) {
    size_t lo = 0, hi = m->nabsent_done;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (m->absent_done[mid] < op)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < m->nabsent_done && m->absent_done[lo] == op;
}

/* Whether member's dump, a window with gaps (an only-active dump drops what completed), shows no
 * send/recv numbered as send/recv op `op` in its group (match.c). */
bool fa_p2p_dropped(const fa_match *m, const fa_groups *groups, size_t op, uint32_t member);

/* The state of `member` (position in the op's group) for op `op`. */
fa_member_state fa_op_member_state(const fa_match *m, const fa_groups *groups, size_t op,
                                   uint32_t member);
/* The same, given the member's call in op (fa_op_call's answer), for callers that walk an op's
 * calls in member order anyway (inline: they ask for every member of every op). */
static inline fa_member_state fa_op_member_state_of(const fa_match *m, const fa_groups *groups,
                                                    size_t op, uint32_t member, const fa_call *c) {
    const fa_op *o = &m->ops[op];
    if (c && c->state != FR_STATE_COMPLETED && fa_stale_known(&m->rank_stale[c->rank_index]))
        return FA_MS_STALE; /* pending in an older dump: it may have completed since */
    if (c)
        return c->state == FR_STATE_COMPLETED ? FA_MS_COMPLETED
               : c->state == FR_STATE_STARTED ? FA_MS_STARTED
                                              : FA_MS_SCHEDULED;
    const fa_group *g = &groups->v[o->group];
    if (member >= g->nmembers || g->member_input[member] < 0) return FA_MS_NO_DUMP;
    const fa_view *v = &m->views[m->view_at[o->group] + member];
    bool stale = fa_stale_known(&m->rank_stale[g->member_input[member]]);
    if (o->is_p2p) { /* its counters say what a window that dropped the entry cannot */
        if (fa_match_absent_done(m, op)) return FA_MS_COMPLETED;
        if (v->p2p_or_older && o->seq <= v->issued_max) return FA_MS_STALE;
        /* a later collective of its own started on the pair's stream: its end ran before */
        if (g->nmembers == 2 && o->seq <= v->p2p_run) return FA_MS_COMPLETED;
        /* below its window, or inside one with gaps where no send/recv of its number shows: an
         * only-active dump drops what completed (sim seed 16129: rank 13's recv #3 from 5, gone
         * between its #2 and #4, "completed 3" in their pair, read as never posted where 5's GPU
         * stalled in the send); a number its entries show went to that entry (seed 149) */
        bool counted =
            v->counts_p2p && (o->seq < v->p2p_min || fa_p2p_dropped(m, groups, op, member));
        if (counted && o->seq <= v->completed_max) return FA_MS_COMPLETED;
        if (counted && o->seq <= v->issued_max) return FA_MS_IN_FLIGHT;
        return stale ? FA_MS_STALE : FA_MS_NEVER;
    }
    /* inside a launch-numbered window, the seq id went to something else: not this collective */
    if (v->launch_numbered && o->seq >= v->window_min && o->seq <= v->issued_max)
        return FA_MS_NEVER;
    /* counters that are send/recv numbers or an older dump's: beyond them, nothing is known
     * (tests/sim seed 1353: rank 145's "completed 2", its batch p2p #2 or an old dump's
     * collective #2, read as "never issued" all_reduce_barrier #8; seed 7672's rank 20, as far
     * as its peers in a group without send/recv, keeps "never issued") */
    if (v->later_unknown && o->seq > v->issued_max) return FA_MS_STALE;
    /* counters that number send/recv alone (counts_p2p) say nothing of a collective: rank 1's
     * "completed 6" in its pipeline pair is its send #6, not the all_reduce #1 its peer issued
     * there by mistake (tests/sim seeds 8558, 9888) */
    if (!v->counts_p2p && o->seq <= v->completed_max) return FA_MS_COMPLETED;
    if (!v->counts_p2p && o->seq <= v->issued_max) return FA_MS_IN_FLIGHT;
    return stale ? FA_MS_STALE : FA_MS_NEVER;
}

/* The call of `member` in op, or NULL. */
const fa_call *fa_op_call(const fa_match *m, size_t op, uint32_t member);
/* How many entries call c has (1 but for a bundle), and the k-th one's index in its dump. */
static inline uint32_t fa_call_nentries(const fa_match *m, const fa_call *c) {
    return c->at & FA_CALL_BUNDLE ? m->entry_refs[c->at & ~FA_CALL_BUNDLE] : 1;
}
static inline uint32_t fa_call_entry_index(const fa_match *m, const fa_call *c, uint32_t k) {
    return c->at & FA_CALL_BUNDLE ? m->entry_refs[(c->at & ~FA_CALL_BUNDLE) + 1 + k] : c->at;
}
static inline const fa_entry *fa_call_entry(const fa_match *m, const fa_input *in, const fa_call *c,
                                            uint32_t k) {
    return &in->ranks[c->rank_index].dump->entries[fa_call_entry_index(m, c, k)];
}
/* The record_id of the k-th entry of call c. */
static inline int64_t fa_call_record_id(const fa_match *m, const fa_input *in, const fa_call *c,
                                        uint32_t k) {
    return fa_entry_record_id(in->ranks[c->rank_index].dump, fa_call_entry(m, in, c, k));
}
/* Whether call c's completion is only gloo's "retired" on its rank's newest entry: the op ended,
 * but it may have failed (a peer died or aborted) as well as completed. Anything the rank
 * recorded after it says it went on, so an earlier one did complete. */
static inline bool fa_call_end_uncertain(const fa_match *m, const fa_input *in, const fa_call *c) {
    if (c->state != FR_STATE_COMPLETED) return false;
    const fa_dump *d = in->ranks[c->rank_index].dump;
    uint32_t last = fa_call_entry_index(m, c, fa_call_nentries(m, c) - 1);
    return last + 1 == d->nentries && fa_entry_traits(in->store, &d->entries[last])->ended;
}
/* Whether call c's completion proves that every member of its op issued it: surely completed
 * (not gloo's uncertain "retired" on its rank's newest entry), and not a rooted collective of a
 * backend that runs it on the host one-to-all, as gloo does (match.c). */
bool fa_call_proves_all_joined(const fa_match *m, const fa_input *in, const fa_call *c);
/* Whether call c is a rooted collective (broadcast, scatter, gather, reduce) of a backend that
 * runs it on the host one-to-all (gloo): its completion on one member proves nothing of the
 * others but the root's part (match.c). */
bool fa_call_one_to_all(const fa_input *in, const fa_match *m, const fa_call *c);
/* The k-th entry of call c in full (for reports; see fa_entry_expand). */
static inline void fa_call_expand(const fa_match *m, const fa_input *in, const fa_call *c,
                                  uint32_t k, fr_entry *out) {
    fa_entry_expand(in->store, in->ranks[c->rank_index].dump, fa_call_entry(m, in, c, k), out);
}
/* The op's representative call, entry (its call's last), input rank; NULL / 0 when none. */
static inline const fa_call *fa_op_rep_call(const fa_match *m, const fa_op *op) {
    return op->rep_call == FA_NO_CALL_ID ? NULL : &m->calls[op->rep_call];
}
static inline const fa_entry *fa_op_rep_entry(const fa_match *m, const fa_op *op) {
    const fa_call *c = fa_op_rep_call(m, op);
    return c ? fa_call_entry(m, m->in, c, fa_call_nentries(m, c) - 1) : NULL;
}
static inline uint32_t fa_op_rep_rank(const fa_match *m, const fa_op *op) {
    const fa_call *c = fa_op_rep_call(m, op);
    return c ? c->rank_index : 0;
}
/* The op type of its representative's first entry ("all_reduce", "send"; interned in the
 * store), "" when it has none. */
static inline const char *fa_op_type(const fa_match *m, const fa_op *op) {
    const fa_call *c = fa_op_rep_call(m, op);
    if (!c) return "";
    const fa_store *store = m->in->store;
    return fa_store_op(store, fa_entry_traits(store, fa_call_entry(m, m->in, c, 0))->name)->type;
}
/* The op's representative entry in full; false (out untouched) when the op has none. */
static inline bool fa_op_rep(const fa_match *m, const fa_input *in, const fa_op *op,
                             fr_entry *out) {
    const fa_entry *e = fa_op_rep_entry(m, op);
    if (!e) return false;
    fa_entry_expand(in->store, in->ranks[fa_op_rep_rank(m, op)].dump, e, out);
    return true;
}
/* Members expected in op: the whole group for collectives, sender and receiver for p2p.
 * Fills `out` (capacity: group size) with member positions; returns the count. */
uint32_t fa_op_expected(const fa_match *m, const fa_groups *groups, size_t op, uint32_t *out);

#endif
