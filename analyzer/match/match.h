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
#include "findings.h"
#include "groups.h"
#include "load.h"
#include "opname.h"
#include "store.h"

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

/* One rank's part in an op; its op is the one whose [first_call, first_call + ncalls) holds it. */
typedef struct fa_call {
    uint32_t member;               /* position in the group */
    uint32_t rank_index;           /* index into fa_input.ranks */
    uint32_t entries_at, nentries; /* entry indices in fa_match.entry_refs */
    uint8_t state; /* the call's effective fr_state (a byte: 20-byte calls, one per rank per op) */
    bool in_minority; /* named by a mismatch check */
} fa_call;

/* Fields ordered so that an op is 64 bytes, one cache line: there are millions. */
typedef struct fa_op {
    uint32_t group;
    uint32_t first_call, ncalls; /* calls of this op, ascending member */
    uint32_t rep_rank_index;
    int64_t seq;         /* collective_seq_id; for p2p the sender's (else receiver's) p2p_seq_id */
    int64_t src, dst;    /* p2p: global ranks of sender and receiver */
    const fa_entry *rep; /* a representative entry (from the majority) */
    const char *type;    /* op type of the representative ("all_reduce", "send"); in the store */
    bool is_p2p;
    bool mismatch;  /* a type/size/dtype/all_to_all finding names this op */
    bool unmatched; /* p2p with one side absent */
} fa_op;

typedef struct fa_view {
    int64_t issued_max;    /* highest collective seq issued, -1 none known */
    int64_t completed_max; /* highest collective seq known completed, -1 none */
    int64_t pg_id;         /* -1 unknown */
    int64_t window_min;    /* launch-numbered dumps (store.h): the lowest seq id its entries in
                            * the group carry (collectives' and send/recv batches'); INT64_MAX */
    bool has_dump;
    bool has_entries;
    bool launch_numbered; /* its dump's (fa_dump.launch_numbered) */
} fa_view;

/* A dump older than its peers': some member of `group` completed #seq there, which needs every
 * member, while this rank's dump shows it issued no further than #issued. What it says it never
 * issued after its dump was taken is unknown, and what it has pending may have completed since.
 * group -1: the dump is not known to be older. */
typedef struct fa_stale {
    long group;
    int64_t seq, issued;
    bool cut; /* a truncated dump kept for its whole entries: it says nothing after them */
} fa_stale;

/* Whether what the rank's dump says ends before the others' do (older, or cut short). */
static inline bool fa_stale_known(const fa_stale *s) { return s->group >= 0 || s->cut; }

typedef struct fa_match {
    fa_op *ops;
    size_t nops;
    fa_call *calls;
    size_t ncalls;
    uint32_t *entry_refs;
    size_t nentry_refs;
    size_t *view_at;              /* per group: first index into views */
    fa_view *views;               /* per (group, member) */
    int64_t *rank_newest_pending; /* per input rank: record_id of its newest pending entry, -1 */
    fa_stale *rank_stale;         /* per input rank */
    bool any_entries;
} fa_match;

/* Builds ops and calls for every group, runs the agreement checks, adds mismatch and p2p
 * findings (capped per group at `mismatch_cap` listed). The checks use `jobs` threads (<= 0: one
 * per core); the result does not depend on it. Returns 0 or -1 (out of memory). */
int fa_match_build(const fa_input *in, const fa_groups *groups, int mismatch_cap, int jobs,
                   fa_match *m, fa_findings *findings, fr_error *err);
void fa_match_free(fa_match *m);

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
    if (o->is_p2p) return stale ? FA_MS_STALE : FA_MS_NEVER;
    /* inside a launch-numbered window, the seq id went to something else: not this collective */
    if (v->launch_numbered && o->seq >= v->window_min && o->seq <= v->issued_max)
        return FA_MS_NEVER;
    if (o->seq <= v->completed_max) return FA_MS_COMPLETED;
    if (o->seq <= v->issued_max) return FA_MS_IN_FLIGHT;
    return stale ? FA_MS_STALE : FA_MS_NEVER;
}

/* The call of `member` in op, or NULL. */
const fa_call *fa_op_call(const fa_match *m, size_t op, uint32_t member);
static inline const fa_entry *fa_call_entry(const fa_match *m, const fa_input *in, const fa_call *c,
                                            uint32_t k) {
    return &in->ranks[c->rank_index].dump->entries[m->entry_refs[c->entries_at + k]];
}
/* Whether call c's completion is only gloo's "retired" on its rank's newest entry: the op ended,
 * but it may have failed (a peer died or aborted) as well as completed. Anything the rank
 * recorded after it says it went on, so an earlier one did complete. */
static inline bool fa_call_end_uncertain(const fa_match *m, const fa_input *in, const fa_call *c) {
    if (c->state != FR_STATE_COMPLETED || !c->nentries) return false;
    const fa_dump *d = in->ranks[c->rank_index].dump;
    uint32_t last = m->entry_refs[c->entries_at + c->nentries - 1];
    return last + 1 == d->nentries && fa_entry_traits(in->store, &d->entries[last])->ended;
}
/* The k-th entry of call c in full (for reports; see fa_entry_expand). */
static inline void fa_call_expand(const fa_match *m, const fa_input *in, const fa_call *c,
                                  uint32_t k, fr_entry *out) {
    fa_entry_expand(in->store, in->ranks[c->rank_index].dump, fa_call_entry(m, in, c, k), out);
}
/* The op's representative entry in full; false (out untouched) when the op has none. */
static inline bool fa_op_rep(const fa_match *m, const fa_input *in, const fa_op *op,
                             fr_entry *out) {
    (void)m;
    if (!op->rep) return false;
    fa_entry_expand(in->store, in->ranks[op->rep_rank_index].dump, op->rep, out);
    return true;
}
/* Members expected in op: the whole group for collectives, sender and receiver for p2p.
 * Fills `out` (capacity: group size) with member positions; returns the count. */
uint32_t fa_op_expected(const fa_match *m, const fa_groups *groups, size_t op, uint32_t *out);

#endif
