/* verdict_hidden.c — two hidden roots, one of which the dumps cannot tell from the other.
 *
 * When no rank the dumps show is a root cause, verdict_possible.c names each rank of unknown
 * state that others wait for and whose possible waits reach no other root: a rank without a
 * readable dump (X), and a rank whose dump is older than its peers' or cut short (U), each a root
 * of its own waits. But U's dump says nothing of U after its moment (a rank whose CPU stopped
 * still dumps; an older dump shows only that the rank passed its old frontier), and X says
 * nothing at all: where the two share a group, U may have gone on and be blocked in that group's
 * next operation, which X never joined, or X may be blocked there behind U. Either alone explains
 * every wait, so the dumps prove only one of them (tests/sim's E16; sim seeds 2470, 2944, 4201):
 * an ambiguity, no culprit. Unless U cannot hold X up (fa_vg_may_hold: waited for only beside X,
 * in ops that come after one X is waited for in: sim seeds 6752, 9935 read "rank 1 or 7" where
 * the killed rank 1 alone explains every wait).
 */
#include <stdlib.h>

#include "verdict/verdict_order.h"
#include "verdict/verdict_possible.h"

/* Whether ranks nodes a and b are members of one group in which no rank the dumps show waits
 * (no op node of the graph is in it): the possible waits (verdict_possible.c) and the self-held
 * ones (verdict_selfheld.c) already weigh every op someone waits in, and a group where nobody
 * does is where the dumps show nothing of either past the older dump's frontier. */
static bool share_unwatched_group(const decider *d, uint32_t a, uint32_t b) {
    const graph *g = &d->g;
    uint8_t *watched = calloc(d->groups->n + 1, 1);
    if (!watched) return false;
    for (size_t x = g->nrank_nodes; x < g->nnodes; x++)
        watched[d->m->ops[g->op_of_node[x - g->nrank_nodes]].group] = 1;
    bool found = false;
    for (size_t k = 0; k < d->groups->n && !found; k++) {
        const fa_group *grp = &d->groups->v[k];
        found = !watched[k] && fa_group_position(grp, d->facts[a].rank) >= 0 &&
                fa_group_position(grp, d->facts[b].rank) >= 0;
    }
    free(watched);
    return found;
}

/* Whether op node v waits on the rank at node r (an edge v -> r). */
static bool op_waits_on(const graph *g, size_t v, uint32_t r) {
    for (size_t e = g->edge_at[v]; e < g->edge_at[v + 1]; e++)
        if (g->edges[e] == r) return true;
    return false;
}

/* Whether the rank without a dump at node x can be blocked behind the rank at node c, whose dump
 * is older or cut short: in an op someone waits in where both are members that does not come,
 * in the program the ranks that ran both tell (fa_vo_program_order), after a collective others
 * wait for x in: x never got past that one, so it is not in the later op (tests/sim's E16,
 * can_block). A send/recv keeps the doubt: no witness orders it. Linear in the graph's edges,
 * plus the shared ops times x's waited ones. */
static bool may_be_blocked_behind(const decider *d, uint32_t x, uint32_t c) {
    const graph *g = &d->g;
    size_t nwaits = 0, *waits = malloc((g->nnodes - g->nrank_nodes + 1) * sizeof *waits);
    if (!waits) return true;
    for (size_t w = g->nrank_nodes; w < g->nnodes; w++)
        if (!d->m->ops[g->op_of_node[w - g->nrank_nodes]].is_p2p && op_waits_on(g, w, x))
            waits[nwaits++] = w;
    bool may = false;
    for (size_t v = g->nrank_nodes; v < g->nnodes && !may; v++) {
        const fa_op *o = &d->m->ops[g->op_of_node[v - g->nrank_nodes]];
        const fa_group *grp = &d->groups->v[o->group];
        if (fa_group_position(grp, d->facts[x].rank) < 0 ||
            fa_group_position(grp, d->facts[c].rank) < 0)
            continue;
        bool after_a_wait = false;
        for (size_t k = 0; k < nwaits && !after_a_wait && !o->is_p2p; k++)
            after_a_wait =
                waits[k] != v &&
                fa_vo_program_order(d, &d->m->ops[g->op_of_node[waits[k] - g->nrank_nodes]], o) > 0;
        may = !after_a_wait;
    }
    free(waits);
    return may;
}

/* Whether an op someone waits in waits on the rank at node c but not on the one at node x: c is
 * waited for on its own there, not only beside x (tests/sim's E16 offers such a rank as "one of
 * them" either way, sim seed 11942). */
static bool waited_without(const decider *d, uint32_t c, uint32_t x) {
    const graph *g = &d->g;
    for (size_t v = g->nrank_nodes; v < g->nnodes; v++)
        if (op_waits_on(g, v, c) && !op_waits_on(g, v, x)) return true;
    return false;
}

bool fa_vg_may_hold(const decider *d, uint32_t lost, uint32_t stale) {
    return waited_without(d, stale, lost) || may_be_blocked_behind(d, lost, stale);
}

int fa_vg_hidden_pair(decider *d, uint8_t *is_root) {
    if (d->nambiguities) return 0;
    fa_ranks_normalize(&d->maybe_also);
    uint32_t pair[2], n = 0;
    for (uint32_t node = 0; node < d->nfacts; node++) {
        const rank_facts *f = &d->facts[node];
        bool named = is_root[node] || fa_ranks_contains(&d->maybe_also, f->rank);
        if (!named) continue;
        if (n == 2 || fa_vg_state_known(f)) return 0;
        pair[n++] = node;
    }
    if (n != 2) return 0;
    const rank_facts *a = &d->facts[pair[0]], *b = &d->facts[pair[1]];
    if (a->has_dump == b->has_dump) return 0; /* one without a dump, one with an older/cut one */
    uint32_t lost = a->has_dump ? pair[1] : pair[0], stale = a->has_dump ? pair[0] : pair[1];
    if (!fa_vg_may_hold(d, lost, stale) || !share_unwatched_group(d, pair[0], pair[1])) return 0;
    fa_option options[2];
    for (int k = 0; k < 2; k++) {
        rank_facts *f = &d->facts[pair[k]];
        options[k] = (fa_option){ pair[k], f->has_dump ? FA_WHY_STALE : FA_WHY_NO_DUMP };
        is_root[pair[k]] = 0;
        f->doubt = FA_DOUBT_AMBIGUOUS;
    }
    d->maybe_also.n = 0;
    return fa_vg_note_ambiguity(d, options, 2);
}
