/* passes.c — which ops pass (passes.h). */
#include "passes.h"

#include "parallel.h"

/* No expected member of collective `op` is missing: its members walked beside its calls
 * (sorted by member) instead of a search for each member's call. */
static bool collective_complete(const fa_groups *groups, const fa_match *m, size_t op) {
    const fa_op *o = &m->ops[op];
    const fa_group *g = &groups->v[o->group];
    const fa_call *c = &m->calls[o->first_call], *end = c + o->ncalls;
    if (o->ncalls == g->nmembers) { /* one call per member, member k's call k: nobody missing */
        uint32_t k = 0;
        while (k < o->ncalls && c[k].member == k) k++;
        if (k == o->ncalls) return true;
    }
    for (uint32_t p = 0; p < g->nmembers; p++) {
        if (g->members[p] < 0) continue;
        while (c < end && c->member < p) c++;
        fa_member_state s =
            fa_op_member_state_of(m, groups, op, p, c < end && c->member == p ? c : NULL);
        if (s == FA_MS_NEVER || s == FA_MS_NO_DUMP) return false;
    }
    return true;
}

/* The same for a send/recv: sender and receiver. `members` holds 2. */
static bool p2p_complete(const fa_groups *groups, const fa_match *m, size_t op, uint32_t *members) {
    uint32_t n = fa_op_expected(m, groups, op, members);
    for (uint32_t k = 0; k < n; k++) {
        fa_member_state s = fa_op_member_state(m, groups, op, members[k]);
        if (s == FA_MS_NEVER || s == FA_MS_NO_DUMP) return false;
    }
    return true;
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
        o->passes = !o->mismatch && !o->unmatched &&
                    (o->is_p2p ? p2p_complete(x->groups, x->m, i, members)
                               : collective_complete(x->groups, x->m, i));
    }
}

void fa_match_mark_passes(const fa_groups *groups, fa_match *m, int jobs) {
    pass_ctx x = { groups, m };
    fa_parallel_for(m->nops, 4096, fa_worker_count(jobs), mark_range, &x);
}
