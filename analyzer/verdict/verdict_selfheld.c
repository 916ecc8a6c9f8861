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
 * Cost: one pass over the ops and one over the edges (with streams, each rank's pending ops
 * sorted by group and record), then per unknown rank with possible edges a worklist over what
 * joins its needs(u): each node joins once and looks at its own edges once (needs_ctx); skipped
 * (nothing dropped) past a work budget.
 */
#include <stdlib.h>

#include "verdict/verdict_possible.h"

enum { SELF_HELD_BUDGET = 40000000 };

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

/* What needs(u) is computed from, built once for every unknown rank u: the memberships the
 * conditions above ask about, precomputed, so that each node is judged only when a neighbour
 * joins needs(u) (a worklist), instead of every node rescanned round after round. Positions are
 * indices into the proven edges (g->edges).
 *   - A rank node `w` is judged (rank_held) when it is shown by its own dump, has something
 *     pending and waits on op nodes alone (need[w], its edges; 0: never held). One of its edges
 *     is covered once its op is in needs(u), or, with streams, once an older pending op of w's in
 *     the same group is (queued behind it); w is held once every edge is covered. Its edges are
 *     sorted by (group, record) into slots, so that an op joining covers the later ones of its
 *     group by one scan (a run's least record in needs(u) only decreases).
 *   - An op node joins once a rank other than u that it waits for as an absent member (an edge
 *     x -> w, none w -> x) has: per rank node, those ops (absent_at, absent).
 *   - Per op node the edges of judged ranks into it (waiter_at, waiters); per rank node the op
 *     nodes whose lone absentee it is (lone_at, lone).
 * Per u the state is stamped (u + 1), never cleared: a rank's work is what its needs(u) touches. */
typedef struct needs_ctx {
    const graph *g;
    bool streams;
    uint32_t *need, *owner; /* per rank node: edges to cover; per position: its node */
    size_t *waiter_at, *absent_at, *lone_at;
    uint32_t *waiters, *absent, *lone;
    uint32_t *order, *slot, *run; /* per slot its position, per position its slot; per slot the
                                   * first slot of its group's run */
    int64_t *rec;                 /* per slot: its op's record on its rank, in the run's group */
    uint8_t *queues;              /* per slot: its rank is a member of the op's group */
    uint32_t stamp, *in_at, *rank_at, *cov_at, *min_at, *missing, *stack;
    int64_t *least; /* per run (its first slot): the least record of the run's ops in needs(u) */
    size_t top, work;
} needs_ctx;

static bool is_in(const needs_ctx *c, uint32_t n) { return c->in_at[n] == c->stamp; }

static void join(needs_ctx *c, uint32_t n) {
    c->in_at[n] = c->stamp;
    c->stack[c->top++] = n;
}

/* Edge `pos` of judged rank w covered: w joins once all of its edges are. */
static void cover(needs_ctx *c, uint32_t pos, uint32_t w) {
    if (c->cov_at[pos] == c->stamp) return;
    c->cov_at[pos] = c->stamp;
    if (c->rank_at[w] != c->stamp) c->rank_at[w] = c->stamp, c->missing[w] = c->need[w];
    if (--c->missing[w] == 0 && !is_in(c, w)) join(c, w);
}

/* The op of w's edge `pos` joined: with streams, w's later pending ops of that group are queued
 * behind it on w's stream (a record greater than its, and not greater than the run's least record
 * in needs(u) so far: those beyond are covered already). */
static void cover_queued(needs_ctx *c, uint32_t pos, uint32_t w) {
    uint32_t s = c->slot[pos], f = c->run[s];
    int64_t r = c->rec[s], old = c->min_at[f] == c->stamp ? c->least[f] : INT64_MAX;
    if (!c->queues[s] || r >= old) return;
    c->min_at[f] = c->stamp, c->least[f] = r;
    size_t end = c->g->edge_at[w + 1];
    for (size_t j = (size_t)s + 1; j < end && c->run[j] == f && c->rec[j] <= old; j++, c->work++)
        if (c->rec[j] > r) cover(c, c->order[j], w);
}

/* needs(u): the nodes stamped u + 1 (c->in_at). Each node joins once; a rank node passes its
 * join to the ops waiting for it absent, an op node to the judged ranks pending in it. */
static void fill_needs(needs_ctx *c, uint32_t u) {
    const graph *g = c->g;
    c->stamp = u + 1, c->top = 0;
    join(c, u);
    for (size_t k = c->lone_at[u]; k < c->lone_at[u + 1]; k++) join(c, c->lone[k]);
    while (c->top) {
        uint32_t n = c->stack[--c->top];
        if (n < g->nrank_nodes) {
            if (n == u) continue; /* an op waiting for u is u's own wait, not a need */
            for (size_t k = c->absent_at[n]; k < c->absent_at[n + 1]; k++, c->work++)
                if (!is_in(c, c->absent[k])) join(c, c->absent[k]);
            continue;
        }
        for (size_t k = c->waiter_at[n]; k < c->waiter_at[n + 1]; k++, c->work++) {
            uint32_t pos = c->waiters[k], w = c->owner[pos];
            if (is_in(c, w)) continue;
            cover(c, pos, w);
            if (c->streams) cover_queued(c, pos, w);
        }
    }
}

/* Counts into at[key + 1] made offsets (at[0] = 0, at[n] the total). */
static void offsets(size_t *at, size_t n) {
    for (size_t k = 0; k < n; k++) at[k + 1] += at[k];
}

/* Whether rank node w is judged: shown by its own dump, something pending, waits on ops alone. */
static bool judged(const decider *d, uint32_t w) {
    const graph *g = &d->g;
    if (!fa_vg_state_known(&d->facts[w]) || !fa_vg_node_pending(d, w)) return false;
    for (size_t e = g->edge_at[w]; e < g->edge_at[w + 1]; e++)
        if (g->edges[e] < g->nrank_nodes) return false; /* a wait on a rank: not judged here */
    return true;
}

/* need, owner, and per op node the judged ranks' edges into it. */
static int index_waiters(const decider *d, needs_ctx *c) {
    const graph *g = &d->g;
    size_t nn = g->nnodes, ne = g->edge_at[nn];
    c->need = calloc(nn + 1, sizeof *c->need);
    c->owner = malloc((ne + 1) * sizeof *c->owner);
    c->waiter_at = calloc(nn + 2, sizeof *c->waiter_at);
    c->waiters = malloc((ne + 1) * sizeof *c->waiters);
    if (!c->need || !c->owner || !c->waiter_at || !c->waiters) return -1;
    for (uint32_t n = 0; n < nn; n++)
        for (size_t e = g->edge_at[n]; e < g->edge_at[n + 1]; e++) c->owner[e] = n;
    for (uint32_t w = 0; w < g->nrank_nodes; w++) {
        if (!judged(d, w)) continue;
        c->need[w] = (uint32_t)(g->edge_at[w + 1] - g->edge_at[w]);
        for (size_t e = g->edge_at[w]; e < g->edge_at[w + 1]; e++) c->waiter_at[g->edges[e] + 2]++;
    }
    offsets(c->waiter_at + 1, nn);
    for (uint32_t w = 0; w < g->nrank_nodes; w++)
        for (size_t e = g->edge_at[w]; c->need[w] && e < g->edge_at[w + 1]; e++)
            c->waiters[c->waiter_at[g->edges[e] + 1]++] = (uint32_t)e;
    return 0;
}

/* Per node the op nodes that wait for it as an absent member (x -> w, no w -> x: it has not
 * joined x), from the op nodes' edges, each rank's own edges marked once. */
static int index_absent(const graph *g, needs_ctx *c) {
    size_t nn = g->nnodes, ne = g->edge_at[nn];
    uint32_t *mark = calloc(nn + 1, sizeof *mark);
    c->absent_at = calloc(nn + 2, sizeof *c->absent_at);
    c->absent = malloc((ne + 1) * sizeof *c->absent);
    if (!mark || !c->absent_at || !c->absent) return free(mark), -1;
    for (size_t e = g->edge_at[g->nrank_nodes]; e < ne; e++) c->absent_at[g->edges[e] + 2]++;
    offsets(c->absent_at + 1, nn);
    for (uint32_t x = (uint32_t)g->nrank_nodes; x < nn; x++)
        for (size_t e = g->edge_at[x]; e < g->edge_at[x + 1]; e++)
            c->absent[c->absent_at[g->edges[e] + 1]++] = x;
    size_t kept = 0; /* compacted in place: only the ops w has not joined */
    for (uint32_t w = 0; w < nn; w++) {
        size_t b = c->absent_at[w], e = c->absent_at[w + 1];
        for (size_t k = g->edge_at[w]; k < g->edge_at[w + 1]; k++) mark[g->edges[k]] = w + 1;
        c->absent_at[w] = kept;
        for (size_t k = b; k < e; k++)
            if (mark[c->absent[k]] != w + 1) c->absent[kept++] = c->absent[k];
    }
    c->absent_at[nn] = kept;
    free(mark);
    return 0;
}

/* Per rank node the op nodes whose lone absentee it is (lone_absentees). */
static int index_lone(const graph *g, const uint32_t *lone, needs_ctx *c) {
    size_t nn = g->nnodes;
    c->lone_at = calloc(nn + 2, sizeof *c->lone_at);
    c->lone = malloc((nn + 1) * sizeof *c->lone);
    if (!c->lone_at || !c->lone) return -1;
    for (size_t x = g->nrank_nodes; x < nn; x++)
        if (lone[x] < nn) c->lone_at[lone[x] + 2]++;
    offsets(c->lone_at + 1, nn);
    for (size_t x = g->nrank_nodes; x < nn; x++)
        if (lone[x] < nn) c->lone[c->lone_at[lone[x] + 1]++] = (uint32_t)x;
    return 0;
}

typedef struct slot_key {
    uint32_t group, pos;
    int64_t rec;
    uint8_t queues;
} slot_key;

static int by_group_record(const void *a, const void *b) {
    const slot_key *x = a, *y = b;
    if (x->group != y->group) return x->group < y->group ? -1 : 1;
    if (x->rec != y->rec) return x->rec < y->rec ? -1 : 1;
    return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/* Each judged rank's edges sorted by (group, record) into slots (streams only): the record of
 * its call of each op, in the op's group, where it is a member (queued_behind's order). */
static int index_slots(const decider *d, needs_ctx *c) {
    const graph *g = &d->g;
    size_t ne = g->edge_at[g->nnodes];
    c->order = malloc((ne + 1) * sizeof *c->order);
    c->slot = malloc((ne + 1) * sizeof *c->slot);
    c->run = malloc((ne + 1) * sizeof *c->run);
    c->rec = malloc((ne + 1) * sizeof *c->rec);
    c->queues = calloc(ne + 1, 1);
    slot_key *key = malloc((ne + 1) * sizeof *key);
    if (!c->order || !c->slot || !c->run || !c->rec || !c->queues || !key) return free(key), -1;
    for (uint32_t w = 0; w < g->nrank_nodes; w++) {
        size_t b = g->edge_at[w], e = g->edge_at[w + 1];
        for (size_t k = b; k < e; k++) {
            key[k] = (slot_key){ .pos = (uint32_t)k };
            if (!c->need[w]) continue; /* never judged: its slots stay in edge order */
            size_t op = (size_t)g->op_of_node[g->edges[k] - g->nrank_nodes];
            long p = fa_group_position(&d->groups->v[d->m->ops[op].group], d->facts[w].rank);
            key[k].group = d->m->ops[op].group, key[k].queues = p >= 0;
            key[k].rec = p >= 0 ? fa_vg_call_record(d, op, (uint32_t)p) : 0;
        }
        if (c->need[w]) qsort(key + b, e - b, sizeof *key, by_group_record);
        for (size_t k = b; k < e; k++) {
            c->order[k] = key[k].pos, c->slot[key[k].pos] = (uint32_t)k;
            c->rec[k] = key[k].rec, c->queues[k] = key[k].queues;
            c->run[k] = k > b && key[k - 1].group == key[k].group ? c->run[k - 1] : (uint32_t)k;
        }
    }
    free(key);
    return 0;
}

static void needs_free(needs_ctx *c) {
    free(c->need), free(c->owner), free(c->waiter_at), free(c->waiters), free(c->absent_at);
    free(c->absent), free(c->lone_at), free(c->lone), free(c->order), free(c->slot), free(c->run);
    free(c->rec), free(c->queues), free(c->in_at), free(c->rank_at), free(c->cov_at);
    free(c->min_at), free(c->missing), free(c->stack), free(c->least);
}

static int needs_init(const decider *d, const uint32_t *lone, bool streams, needs_ctx *c) {
    const graph *g = &d->g;
    size_t nn = g->nnodes, ne = g->edge_at[nn];
    *c = (needs_ctx){ .g = g, .streams = streams };
    if (nn >= UINT32_MAX || ne >= UINT32_MAX) return -1;
    c->in_at = calloc(nn + 1, sizeof *c->in_at);
    c->rank_at = calloc(nn + 1, sizeof *c->rank_at);
    c->missing = malloc((nn + 1) * sizeof *c->missing);
    c->stack = malloc((nn + 1) * sizeof *c->stack);
    c->cov_at = calloc(ne + 1, sizeof *c->cov_at);
    c->min_at = calloc(ne + 1, sizeof *c->min_at);
    c->least = malloc((ne + 1) * sizeof *c->least);
    if (!c->in_at || !c->rank_at || !c->missing || !c->stack || !c->cov_at || !c->min_at ||
        !c->least)
        return -1;
    if (index_waiters(d, c) || index_absent(g, c) || index_lone(g, lone, c)) return -1;
    return streams ? index_slots(d, c) : 0;
}

uint8_t *fa_vg_self_held(const decider *d) {
    const graph *g = &d->g;
    uint8_t *drop = calloc(g->npedges + 1, 1);
    uint32_t *lone = drop ? lone_absentees(d) : NULL;
    bool streams = true; /* every loaded dump from a backend whose calls do not block */
    for (size_t r = 0; r < d->in->nranks; r++)
        if (d->in->ranks[r].dump && d->in->ranks[r].dump->blocks_caller) streams = false;
    needs_ctx c;
    int rc = lone ? needs_init(d, lone, streams, &c) : (c = (needs_ctx){ 0 }, -1);
    for (uint32_t u = 0; rc == 0 && u < d->nfacts && c.work < SELF_HELD_BUDGET; u++) {
        size_t b = fa_vg_possible_begin(g, u), e = fa_vg_possible_end(g, u);
        if (b == e || fa_vg_state_known(&d->facts[u])) continue;
        fill_needs(&c, u);
        for (size_t k = b; k < e; k++) drop[k] = is_in(&c, g->pedges[k]);
    }
    needs_free(&c);
    free(lone);
    if (rc) free(drop);
    return rc ? NULL : drop;
}
