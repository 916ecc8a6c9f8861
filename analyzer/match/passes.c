/* passes.c — which ops pass (passes.h). */
#include "match/passes.h"

#include "util/parallel.h"

/* What the members' states make of an op that no check names: it passes when none is missing;
 * it is unverified when the only ones missing wrote no dump and every member with a dump
 * completed it (nothing waits there: the database counts it instead of listing it, so that a
 * lost dump does not put every op of its groups in the rows); otherwise it does not pass. */
typedef enum { OP_PASSES, OP_UNVERIFIED, OP_FAILS } op_outcome;

typedef struct outcome_tally {
    bool never, no_dump, unfinished; /* a member that never issued it / wrote no dump / has it
                                      * pending (an older dump's pending op is unknown: not so) */
} outcome_tally;

static void tally(outcome_tally *t, fa_member_state s) {
    t->never |= s == FA_MS_NEVER;
    t->no_dump |= s == FA_MS_NO_DUMP;
    t->unfinished |= fa_member_state_pending(s);
}

static op_outcome outcome_of(const outcome_tally *t) {
    if (t->never) return OP_FAILS;
    if (!t->no_dump) return OP_PASSES;
    return t->unfinished ? OP_FAILS : OP_UNVERIFIED;
}

/* Collective `op`: its members walked beside its calls (sorted by member) instead of a search
 * for each member's call. */
static op_outcome collective_outcome(const fa_groups *groups, const fa_match *m, size_t op) {
    const fa_op *o = &m->ops[op];
    const fa_group *g = &groups->v[o->group];
    const fa_call *c = &m->calls[o->first_call], *end = c + o->ncalls;
    if (o->ncalls == g->nmembers) { /* one call per member, member k's call k: nobody missing */
        uint32_t k = 0;
        while (k < o->ncalls && c[k].member == k) k++;
        if (k == o->ncalls) return OP_PASSES;
    }
    outcome_tally t = { 0 };
    for (uint32_t p = 0; p < g->nmembers && !t.never; p++) {
        if (g->members[p] < 0) continue;
        while (c < end && c->member < p) c++;
        tally(&t, fa_op_member_state_of(m, groups, op, p, c < end && c->member == p ? c : NULL));
    }
    return outcome_of(&t);
}

/* The same for a send/recv: sender and receiver. `members` holds 2. */
static op_outcome p2p_outcome(const fa_groups *groups, const fa_match *m, size_t op,
                              uint32_t *members) {
    uint32_t n = fa_op_expected(m, groups, op, members);
    outcome_tally t = { 0 };
    for (uint32_t k = 0; k < n; k++) tally(&t, fa_op_member_state(m, groups, op, members[k]));
    return outcome_of(&t);
}

typedef struct pass_ctx {
    const fa_groups *groups;
    fa_match *m;
} pass_ctx;

static void mark_range(void *ctx, unsigned worker, size_t lo, size_t hi) {
    pass_ctx *x = ctx;
    (void)worker;
    uint32_t members[2];
    for (size_t i = lo; i < hi; i++) {
        fa_op *o = &x->m->ops[i];
        op_outcome r = o->mismatch || o->unmatched ? OP_FAILS
                       : o->is_p2p                 ? p2p_outcome(x->groups, x->m, i, members)
                                                   : collective_outcome(x->groups, x->m, i);
        o->passes = r == OP_PASSES;
        o->unverified = r == OP_UNVERIFIED;
    }
}

void fa_match_mark_passes(const fa_groups *groups, fa_match *m, int jobs) {
    pass_ctx x = { groups, m };
    fa_parallel_for(m->nops, 4096, fa_worker_count(jobs), mark_range, &x);
}
