/* verdict_two_readings.c — a send/recv whose idle peer's dump may have dropped its end.
 *
 * Rank X waits in a send/recv with one peer Y alone (its batch holds no transfer with another
 * peer, fa_vh_batch_others: tests/sim's E17 reads no other; where that other transfer ran on
 * the wire, Y is what holds the batch, sim seed 11937), nobody else waits on Y,
 * and Y's dump holds no entry at all (an only-active dump of a rank with nothing in flight:
 * rank_facts.may_drop_done, what Y completed is dropped; a dump that holds entries, even frozen
 * members of a batch whose marker was dropped, says more and is left to the other rules). In a
 * group of more than two, the pg_status counters count send/recv per rank, not per
 * pair, so they do not say whether one of Y's went to X. The bytes then fit two readings alike:
 * Y never posted its end (Y is the root), or it did, the transfer ran, and X's GPU stalled
 * after it (X is the root: its entry never reached "completed"). Neither is proven: an
 * ambiguity of the two, no culprit (tests/sim's E17; sim seeds 452, where the truth is X's
 * stall, and 10413, where it is Y's missing post: the dumps read the same).
 */
#include "verdict/verdict_heads.h"
#include "verdict/verdict_steps.h"

static bool has_edge(const graph *g, uint32_t a, uint32_t b) {
    for (size_t e = g->edge_at[a]; e < g->edge_at[a + 1]; e++)
        if (g->edges[e] == b) return true;
    return false;
}

/* Whether op node x is a send/recv op of a group of more than two that waits on y and on its
 * pending member w alone (an op waits back on its pending members), w's batch there holding
 * transfers with y alone. */
static bool waits_on_y_alone(const decider *d, uint32_t x, uint32_t y, uint32_t w) {
    const graph *g = &d->g;
    if (x < g->nrank_nodes) return false;
    size_t op = g->op_of_node[x - g->nrank_nodes];
    const fa_op *o = &d->m->ops[op];
    const fa_group *grp = &d->groups->v[o->group];
    if (!o->is_p2p || grp->nmembers <= 2) return false;
    long member = fa_group_position(grp, d->facts[w].rank);
    if (member < 0 ||
        fa_vh_batch_others(d, op, (uint32_t)member, fa_group_position(grp, d->facts[y].rank)))
        return false;
    for (size_t e = g->edge_at[x]; e < g->edge_at[x + 1]; e++)
        if (g->edges[e] != y && g->edges[e] != w) return false;
    return true;
}

/* Whether rank node r waits on nothing but y: every other op it has pending waits on nobody
 * absent (queued behind, its members there all pending in it). */
static bool rank_waits_on_y_alone(const decider *d, uint32_t r, uint32_t y) {
    const graph *g = &d->g;
    for (size_t e = g->edge_at[r]; e < g->edge_at[r + 1]; e++) {
        uint32_t x = g->edges[e];
        if (x < g->nrank_nodes) return false;
        for (size_t k = g->edge_at[x]; k < g->edge_at[x + 1]; k++)
            if (g->edges[k] != y && !has_edge(g, g->edges[k], x)) return false;
    }
    return true;
}

/* The one rank node pending in every op that waits on y, each a send/recv op of a group of
 * more than two waiting on y and on it alone; -1 when none, several, or another wait. */
static long lone_waiter(const decider *d, uint32_t y) {
    const graph *g = &d->g;
    long waiter = -1;
    for (size_t e = 0; e < g->nedges; e++) {
        if (g->to[e] != y) continue;
        uint32_t x = g->from[e];
        if (x < g->nrank_nodes) return -1;
        for (size_t k = g->edge_at[x]; k < g->edge_at[x + 1]; k++) {
            uint32_t t = g->edges[k];
            if (t == y || !has_edge(g, t, x)) continue; /* t pending in x: x's waiter */
            if (waiter >= 0 && (long)t != waiter) return -1;
            waiter = (long)t;
        }
        if (waiter < 0 || !waits_on_y_alone(d, x, y, (uint32_t)waiter)) return -1;
    }
    return waiter;
}

static bool plain_fresh(const rank_facts *f) {
    return fa_vg_state_known(f) && !f->cut && !f->crashed && !f->lag && f->broken_op < 0 &&
           !f->excused && !f->behind_excused && f->doubt == FA_DOUBT_NONE;
}

void fa_vs_two_readings(decider *d, const uint32_t *mine, size_t nranks) {
    if (nranks != 1) return;
    uint32_t y = mine[0];
    rank_facts *fy = &d->facts[y];
    long ri = fa_input_find(d->in, fy->rank);
    if (ri < 0 || d->in->ranks[ri].dump->nentries || !plain_fresh(fy) || !fy->may_drop_done ||
        !fy->waited || fy->missing_op < 0 || fa_vg_node_pending(d, y))
        return;
    long x = lone_waiter(d, y);
    if (x < 0 || !plain_fresh(&d->facts[x]) || !rank_waits_on_y_alone(d, (uint32_t)x, y)) return;
    fa_option options[2] = { { (uint32_t)x, FA_WHY_STALLED_AFTER }, { y, FA_WHY_STOPPED } };
    if (fa_vg_note_ambiguity(d, options, 2) == 0)
        d->facts[x].doubt = fy->doubt = FA_DOUBT_AMBIGUOUS;
}
