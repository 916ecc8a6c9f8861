/* verdict_selfheld.c — the places where a rank of unknown state cannot be anyone's victim.
 *
 * verdict_possible.c lets a rank whose state is unknown (no readable dump, an older or cut one)
 * possibly wait in each op someone waits in, on whatever holds that op up: so a second unknown
 * rank among the op's absent members becomes an option for the root cause ("95 or 149"). But an
 * op waits for every absent member (a collective completes once all joined). When one of them is
 * a rank the dumps show, which cannot get there before the unknown rank itself goes on, the
 * unknown rank waiting in that op waits on itself: it is at fault however the rest is read (it
 * stopped, or its order deadlocks with its peers'), and nothing behind that op explains it (seed
 * 183: ranks 0-94 wait for rank 95, which left no dump, in their group's _reduce_scatter_base;
 * rank 95 may be waiting in default_pg's all_reduce #2, beside rank 149 whose dump was cut, only
 * if 0-94 join that all_reduce, which they cannot before 95 joins their reduce_scatter).
 *
 * needs(u), a least fixpoint over the proven edges, holds what cannot go on before u does:
 *   - u;
 *   - an op whose every other expected member has started it (u absent from it or unknown), none
 *     of them with a GPU that may have stalled nor broken: had u joined it, it would have ended;
 *   - an op that a rank in needs(u), other than u, has not joined (an op waits for every absent
 *     member);
 *   - a rank the dumps show (its own dump, as new as its peers') each of whose pending ops is in
 *     needs(u), or, with a backend whose calls do not block (NCCL: one stream per communicator),
 *     queued behind an older pending op of its own in the same group that is.
 * A possible edge u -> x with x in needs(u) is then no way for u to be a victim (fa_vg_self_held).
 *
 * Cost: one pass over the ops, then per unknown rank with possible edges a fixpoint over the
 * graph (its depth rounds, each linear); skipped (nothing dropped) past a work budget.
 */
#include <stdlib.h>

#include "verdict/verdict_possible.h"

enum { SELF_HELD_BUDGET = 40000000 };

static bool known(const rank_facts *f) { return f->has_dump && !f->stale; }

/* Whether rank node w has joined op node x (it has x pending: an edge w -> x). */
static bool joined(const graph *g, uint32_t w, uint32_t x) {
    for (size_t e = g->edge_at[w]; e < g->edge_at[w + 1]; e++)
        if (g->edges[e] == x) return true;
    return false;
}

/* Per op node: the node of the one expected member that has not started it, when every other
 * expected member has and that one's state is unknown (or it never issued it); UINT32_MAX else. */
static uint32_t *lone_absentees(const decider *d) {
    const graph *g = &d->g;
    uint32_t *lone = malloc((g->nnodes + 1) * sizeof *lone);
    for (size_t x = g->nrank_nodes; lone && x < g->nnodes; x++) {
        size_t op = (size_t)g->op_of_node[x - g->nrank_nodes];
        const fa_group *grp = &d->groups->v[d->m->ops[op].group];
        uint32_t n = fa_vg_expected_states(d, op), others = 0;
        long who = -1;
        for (uint32_t k = 0; k < n; k++) {
            long node = fa_vg_rank_node(d, grp->members[d->members[k]]);
            if (fa_vg_is_started(d->states[k])) {
                /* a member that started it may never end it (its GPU stalled, it crashed) */
                others += node < 0 || d->facts[node].maybe_stalled || d->facts[node].crashed ||
                          fa_vg_broken(d, (size_t)node, d->m->ops[op].group);
                continue;
            }
            others++;
            if (fa_member_state_absent(d->states[k])) who = node;
        }
        lone[x] = others == 1 && who >= 0 && !fa_vg_unknown_slot(grp) ? (uint32_t)who : UINT32_MAX;
    }
    return lone;
}

/* Whether op node x (a pending op of rank node w) waits, on w's stream, behind an older pending
 * op of w's in the same group that is in `in` (a backend whose calls do not block). */
static bool queued_behind(const decider *d, uint32_t w, uint32_t x, const uint8_t *in) {
    const graph *g = &d->g;
    size_t op = (size_t)g->op_of_node[x - g->nrank_nodes];
    const fa_group *grp = &d->groups->v[d->m->ops[op].group];
    long p = fa_group_position(grp, d->facts[w].rank);
    if (p < 0) return false;
    int64_t rec = fa_vg_call_record(d, op, (uint32_t)p);
    for (size_t e = g->edge_at[w]; e < g->edge_at[w + 1]; e++) {
        uint32_t y = g->edges[e];
        size_t yop = (size_t)g->op_of_node[y - g->nrank_nodes];
        if (y != x && in[y] && d->m->ops[yop].group == d->m->ops[op].group &&
            fa_vg_call_record(d, yop, (uint32_t)p) < rec)
            return true;
    }
    return false;
}

/* Whether rank node w (shown by its own dump) cannot go on before the ranks of `in` do. */
static bool rank_held(const decider *d, uint32_t w, const uint8_t *in, bool streams) {
    const graph *g = &d->g;
    if (!known(&d->facts[w]) || !fa_vg_node_pending(d, w)) return false;
    for (size_t e = g->edge_at[w]; e < g->edge_at[w + 1]; e++) {
        uint32_t x = g->edges[e];
        if (x < g->nrank_nodes) return false; /* a wait on a rank itself: not judged here */
        if (!in[x] && !(streams && queued_behind(d, w, x, in))) return false;
    }
    return true;
}

/* Whether op node x has an absent member, other than u, in `in`. */
static bool op_held(const graph *g, uint32_t x, uint32_t u, const uint8_t *in) {
    for (size_t e = g->edge_at[x]; e < g->edge_at[x + 1]; e++) {
        uint32_t w = g->edges[e];
        if (w != u && in[w] && !joined(g, w, x)) return true;
    }
    return false;
}

/* needs(u) into `in` (cleared first); the work it took (edges looked at). */
static size_t fill_needs(const decider *d, uint32_t u, const uint32_t *lone, uint8_t *in,
                         bool streams) {
    const graph *g = &d->g;
    size_t work = 0;
    for (size_t n = 0; n < g->nnodes; n++) in[n] = n == u || (n >= g->nrank_nodes && lone[n] == u);
    for (bool grew = true; grew;) {
        grew = false;
        for (uint32_t n = 0; n < g->nnodes; n++) {
            if (in[n]) continue;
            work += g->edge_at[n + 1] - g->edge_at[n];
            bool held = n < g->nrank_nodes ? rank_held(d, n, in, streams) : op_held(g, n, u, in);
            if (held) in[n] = grew = 1;
        }
    }
    return work;
}

uint8_t *fa_vg_self_held(const decider *d) {
    const graph *g = &d->g;
    uint8_t *drop = calloc(g->npedges + 1, 1), *in = calloc(g->nnodes + 1, 1);
    uint32_t *lone = drop && in ? lone_absentees(d) : NULL;
    if (!lone) {
        free(drop);
        free(in);
        return NULL;
    }
    bool streams = true; /* every loaded dump from a backend whose calls do not block */
    for (size_t r = 0; r < d->in->nranks; r++)
        if (d->in->ranks[r].dump && d->in->ranks[r].dump->blocks_caller) streams = false;
    size_t work = 0;
    for (uint32_t u = 0; u < d->nfacts && work < SELF_HELD_BUDGET; u++) {
        size_t b = fa_vg_possible_begin(g, u), e = fa_vg_possible_end(g, u);
        if (b == e || known(&d->facts[u])) continue;
        work += fill_needs(d, u, lone, in, streams);
        for (size_t k = b; k < e; k++) drop[k] = in[g->pedges[k]];
    }
    free(in);
    free(lone);
    return drop;
}
