/* verdict.c — the verdict's judging: the wait graph, its sink components, the culprits and the
 * status (see verdict.h); fa_verdict_decide runs every step.
 *
 * Steps: collect_ranks (a node per rank, its facts), read_self_reports (what recorder dumps say
 * of their rank), build_graph, add_unrecorded_p2p_waits (what gloo did not record), components,
 * judge_sinks (culprits, one finding per cause); then fa_verdict_explain (verdict_explain.c:
 * evidence, wait chain, victims), and the status with its summary (verdict_title.c writes the
 * line). The decider and the graph are in verdict_graph.h.
 *
 * Finding the ops someone has pending means asking every member of every op for its state; all
 * cores do that (scan_ops), and an op with one completed call per member is answered from its
 * calls alone. Everything after looks at the pending ops only. Strongly connected components
 * come from an iterative Tarjan (no recursion, so thousands of ranks cannot overflow the
 * stack). Everything is linear in ops + calls.
 */
#include "verdict/verdict.h"

#include "grow.h"
#include "recorder_keys.h"
#include "util/parallel.h"
#include "verdict/verdict_explain.h"
#include "verdict/verdict_graph.h"
#include "verdict/verdict_possible.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int add_edge(graph *g, uint32_t a, uint32_t b) {
    void **const ends[] = { (void **)&g->from, (void **)&g->to };
    const size_t sizes[] = { sizeof *g->from, sizeof *g->to };
    if (fr_grow_parallel(ends, sizes, 2, &g->cap, g->nedges + 1, 256)) return -1;
    g->from[g->nedges] = a;
    g->to[g->nedges++] = b;
    return 0;
}

static int collect_ranks(decider *d) {
    fa_ranks all = { 0 };
    for (size_t i = 0; i < d->in->nranks; i++) fa_ranks_add(&all, d->in->ranks[i].rank);
    for (size_t i = 0; i < d->groups->without_dump.n; i++)
        fa_ranks_add(&all, d->groups->without_dump.v[i]);
    fa_ranks_normalize(&all);
    d->facts = calloc(all.n + 1, sizeof *d->facts);
    if (!d->facts) return -1;
    d->nfacts = all.n;
    for (size_t i = 0; i < all.n; i++)
        d->facts[i] = (rank_facts){ .rank = all.v[i],
                                    .has_dump = fa_input_find(d->in, all.v[i]) >= 0,
                                    .missing_op = -1,
                                    .lag_op = -1,
                                    .lag_record = INT64_MAX,
                                    .broken_op = -1,
                                    .failed_op = -1,
                                    .p2p_group = -1 };
    fa_ranks_free(&all);
    d->unseen = malloc((d->nfacts + 1) * sizeof *d->unseen);
    if (!d->unseen) return -1;
    for (size_t i = 0; i < d->nfacts; i++)
        if (!d->facts[i].has_dump) d->unseen[d->nunseen++] = (uint32_t)i;
    /* ranks 0..N-1 with few gaps (every real job): an array beats the map's cache misses when a
     * million members are looked up per op; sparse ranks take the map */
    size_t span = d->nfacts ? (size_t)d->facts[d->nfacts - 1].rank + 1 : 0;
    if (span && span <= 2 * d->nfacts + 65536 && (d->dense = calloc(span, sizeof *d->dense))) {
        d->ndense = span;
        for (size_t i = 0; i < d->nfacts; i++) d->dense[d->facts[i].rank] = (uint32_t)i + 1;
    } else {
        for (size_t i = 0; i < d->nfacts; i++)
            fa_imap_put(&d->node_of_rank, (uint64_t)d->facts[i].rank, i);
    }
    for (size_t i = 0; i < d->in->nranks; i++) { /* older than its peers' (match.h, fa_stale) */
        long node = fa_vg_rank_node(d, d->in->ranks[i].rank);
        if (node >= 0 && fa_stale_known(&d->m->rank_stale[i])) {
            d->facts[node].stale = true;
            d->facts[node].cut = d->m->rank_stale[i].cut;
        }
    }
    /* a rank whose file exists but was rejected is unreadable, not absent */
    for (size_t i = 0; i < d->in->nrejected; i++) {
        long node = fa_vg_rank_node(d, d->in->rejected[i].rank);
        if (node >= 0 && !d->facts[node].has_dump)
            d->facts[node].unreadable = d->in->rejected[i].what ? d->in->rejected[i].what : "";
    }
    return 0;
}

/* What a recorder dump says of its own rank: trigger "fatal:N" (crashed), "stuck_in_api", and
 * communicators in state "async_error:X". PyTorch dumps have no trigger and no comms. */
static int read_self_reports(decider *d) {
    static const char fatal[] = FR_TRIGGER_FATAL_PREFIX, async[] = FR_COMM_ASYNC_ERROR_PREFIX;
    for (size_t i = 0; i < d->in->nranks; i++) {
        const fa_dump *dump = d->in->ranks[i].dump;
        long node = fa_vg_rank_node(d, d->in->ranks[i].rank);
        if (node < 0) continue;
        rank_facts *f = &d->facts[node];
        if (dump->trigger && strncmp(dump->trigger, fatal, sizeof fatal - 1) == 0) {
            char *end;
            long signal = strtol(dump->trigger + sizeof fatal - 1, &end, 10);
            f->crashed = true;
            f->signal = *end || signal < 0 || signal > 1000 ? 0 : (int)signal;
        }
        f->stuck_in_api = dump->trigger && strcmp(dump->trigger, FR_TRIGGER_STUCK_IN_API) == 0;
        for (uint32_t c = 0; c < dump->ncomms; c++) {
            const char *state = dump->comms[c].state;
            long group = fa_groups_find(d->groups, i, dump->comms[c].pg_name);
            if (!state || group < 0 || strncmp(state, async, sizeof async - 1) != 0) continue;
            if (fa_imap_put(&d->async_error, (uint64_t)node * d->groups->n + (uint64_t)group,
                            (uint64_t)(uintptr_t)(state + sizeof async - 1)))
                return -1;
        }
    }
    return 0;
}

/* The op with the most waiters (then the lowest seq of one group) names where it is waited on. */
static void note_waited(const decider *d, long *at, size_t *most, size_t op, size_t waiters) {
    const fa_op *o = &d->m->ops[op], *best = *at >= 0 ? &d->m->ops[*at] : NULL;
    if (waiters > *most ||
        (waiters == *most && best && o->group == best->group && o->seq < best->seq)) {
        *most = waiters;
        *at = (long)op;
    }
}

static bool any_call_incomplete(const fa_match *m, const fa_op *o) {
    for (uint32_t k = 0; k < o->ncalls; k++)
        if (m->calls[o->first_call + k].state != FR_STATE_COMPLETED) return true;
    return false;
}

/* The screening of every op for build_graph, on every core: per op, OP_PENDING when a member has
 * it pending, OP_INCOMPLETE when one of its calls is not completed. */
enum { OP_PENDING = 1, OP_INCOMPLETE = 2 };

typedef struct op_scan {
    const decider *d;
    uint8_t *flags;
    uint32_t *members;       /* per worker: widest entries */
    fa_member_state *states; /* likewise */
    size_t widest;
} op_scan;

/* The common case of scan_ops, from the calls alone: a collective with one call per member,
 * member k's call k (calls are sorted by member). Every member's state is then its call's, so
 * a member has it pending exactly when a call is not completed. False when it does not apply. */
static bool scan_full_op(const fa_match *m, const fa_groups *groups, const fa_op *o,
                         uint8_t *flags) {
    if (o->is_p2p || o->ncalls != groups->v[o->group].nmembers) return false;
    const fa_call *c = &m->calls[o->first_call];
    bool incomplete = false;
    for (uint32_t k = 0; k < o->ncalls; k++) {
        if (c[k].member != k) return false;
        incomplete |= c[k].state != FR_STATE_COMPLETED;
    }
    *flags = incomplete ? OP_PENDING | OP_INCOMPLETE : 0;
    return true;
}

static void scan_ops(void *ctx, unsigned worker, size_t lo, size_t hi) {
    op_scan *s = ctx;
    uint32_t *members = s->members + worker * s->widest;
    fa_member_state *states = s->states + worker * s->widest;
    for (size_t op = lo; op < hi; op++) {
        if (scan_full_op(s->d->m, s->d->groups, &s->d->m->ops[op], &s->flags[op])) continue;
        uint32_t n = fa_vg_states_into(s->d, op, members, states);
        uint8_t f = any_call_incomplete(s->d->m, &s->d->m->ops[op]) ? OP_INCOMPLETE : 0;
        for (uint32_t k = 0; k < n && !(f & OP_PENDING); k++)
            if (fa_member_state_pending(states[k])) f |= OP_PENDING;
        s->flags[op] = f;
    }
}

/* flags per op (see op_scan), or NULL when out of memory. */
static uint8_t *scan_all_ops(const decider *d) {
    unsigned nw = fa_worker_count(0);
    op_scan s = { d, malloc(d->m->nops + 1), malloc(nw * d->widest * sizeof *s.members),
                  malloc(nw * d->widest * sizeof *s.states), d->widest };
    if (s.flags && s.members && s.states) fa_parallel_for(d->m->nops, 4096, nw, scan_ops, &s);
    free(s.members);
    free(s.states);
    if (s.members && s.states) return s.flags;
    free(s.flags);
    return NULL;
}

/* The edges as CSR (edge_at, edges), built anew from the from/to lists. */
static int index_edges(graph *g) {
    free(g->edge_at);
    free(g->edges);
    g->edge_at = calloc(g->nnodes + 1, sizeof *g->edge_at);
    g->edges = malloc((g->nedges + 1) * sizeof *g->edges);
    size_t *fill = calloc(g->nnodes + 1, sizeof *fill);
    if (!g->edge_at || !g->edges || !fill) {
        free(fill);
        return -1;
    }
    for (size_t e = 0; e < g->nedges; e++) g->edge_at[g->from[e] + 1]++;
    for (size_t n = 0; n < g->nnodes; n++) g->edge_at[n + 1] += g->edge_at[n];
    for (size_t e = 0; e < g->nedges; e++)
        g->edges[g->edge_at[g->from[e]] + fill[g->from[e]]++] = g->to[e];
    free(fill);
    return 0;
}

/* A group whose members were rebuilt from the dumps that record it (groups.h) may have members
 * that left no dump. When every member seen waits in one of its ops and none completed it, what
 * they wait for can only be such a member: the op waits on each rank without a dump. */
static int wait_for_unseen_members(decider *d, uint32_t x, size_t op, size_t pending) {
    for (size_t u = 0; u < d->nunseen; u++) {
        uint32_t r = d->unseen[u];
        rank_facts *f = &d->facts[r];
        if (add_edge(&d->g, x, r)) return -1;
        f->waited = true;
        note_waited(d, &f->missing_op, &f->missing_waiters, op, pending);
    }
    return 0;
}

/* GPU lag is a stream that stopped completing work: said only of a dump that is as new as its
 * peers', from a backend whose calls are enqueued on a GPU (gloo runs them on the CPU, and its
 * "retired" marks a failed op as one that completed). */
static bool lag_possible(const decider *d, size_t node) {
    const rank_facts *f = &d->facts[node];
    long ri = f->has_dump ? fa_input_find(d->in, f->rank) : -1;
    return ri >= 0 && !f->stale && !d->in->ranks[ri].dump->blocks_caller;
}

/* Whether collective `op` is one that a single member issued while every other member of a
 * group of three or more provably never did (each with a dump, blocked elsewhere): in a cycle of
 * waits, the one rank that went where nobody else went is the one that left the common program
 * (it issued an op in the wrong group, or ran past one it skipped), the majority's call in
 * database.md. Nobody waits for the others there: the op gets no edges to them (build_graph), so
 * that a cycle through it (the rank waits there for ranks that wait for it elsewhere) leaves it
 * the root it is, and it is no stuck collective either (judge_joined). */
static bool lonely_op(const decider *d, long op) {
    const fa_op *o = &d->m->ops[op];
    const fa_group *g = &d->groups->v[o->group];
    if (o->is_p2p || o->ncalls != 1 || g->nmembers < 3) return false;
    uint32_t alone = d->m->calls[o->first_call].member;
    for (uint32_t k = 0; k < g->nmembers; k++)
        if (k != alone && fa_op_member_state(d->m, d->groups, (size_t)op, k) != FA_MS_NEVER)
            return false;
    return true;
}

/* One end of a send/recv that only one side posted, filed under `key` (wrong_peer_ops). */
typedef struct lone_end {
    int64_t key, other;
    uint32_t op;
    bool posted_by_key; /* the rank `key` posted it (the others' waits are on `key`) */
} lone_end;

static int compare_ends(const void *pa, const void *pb) {
    const lone_end *a = pa, *b = pb;
    if (a->key != b->key) return a->key < b->key ? -1 : 1;
    return (a->other > b->other) - (a->other < b->other);
}

/* Marks drop[op] for each end that `key` posted to a peer other than every peer that waits on
 * it for the opposite end, when that peer is not blocked itself (blocked[node]: then it may be
 * on its way to the end key posted, and key is its victim): key's ends in ends[from..to). */
static void mark_wrong_ends(const decider *d, const lone_end *ends, size_t from, size_t to,
                            const bool *blocked, bool *drop) {
    for (size_t i = from; i < to; i++) {
        long peer = fa_vg_rank_node(d, ends[i].other);
        if (!ends[i].posted_by_key || peer < 0 || blocked[peer]) continue;
        bool waited_elsewhere = false, same = false;
        for (size_t k = from; k < to; k++) {
            if (ends[k].posted_by_key) continue;
            waited_elsewhere |= ends[k].other != ends[i].other;
            same |= ends[k].other == ends[i].other;
        }
        if (waited_elsewhere && !same) drop[ends[i].op] = true;
    }
}

/* A rank that posted a send/recv to the wrong peer leaves two unmatched: its own, to a peer that
 * never posted the other side (nor had to), and the one its right peer posted and waits in. So
 * when rank s sent to a (a never received from s) while b waits to receive from s (s never sent
 * to b), s's send waits on nobody: a is no culprit for ignoring it, s is, for b's wait. The same
 * for a recv from the wrong source: d waits to receive from x (which never sent to d) while s
 * sent to d (which never received from s): d's recv waits on nobody. Only when the peer excused
 * is not blocked itself (a pipeline stage blocked before its recv leaves the same two halves,
 * and there the sender is a victim). drop[op] says which lone ops get no edge to their absent
 * side (build_graph). Returns NULL when out of memory. */
/* blocked[node]: the rank has a call pending in an op that a member never joined (or may not
 * have: no dump, an older one), a send/recv without its other side included. NULL when out of
 * memory. */
static bool *blocked_ranks(const decider *d) {
    bool *blocked = calloc(d->nfacts + 1, 1);
    for (size_t op = 0; blocked && op < d->m->nops; op++) {
        const fa_group *grp = &d->groups->v[d->m->ops[op].group];
        uint32_t n = fa_vg_expected_states(d, op);
        bool absent = false;
        for (uint32_t k = 0; k < n && !absent; k++) absent = fa_member_state_absent(d->states[k]);
        for (uint32_t k = 0; absent && k < n; k++) {
            long node = fa_vg_rank_node(d, grp->members[d->members[k]]);
            if (node >= 0 && fa_member_state_pending(d->states[k])) blocked[node] = true;
        }
    }
    return blocked;
}

static bool *wrong_peer_ops(const decider *d) {
    bool *drop = calloc(d->m->nops + 1, 1), *blocked = blocked_ranks(d);
    lone_end *by_src = malloc((d->m->nops + 1) * sizeof *by_src),
             *by_dst = malloc((d->m->nops + 1) * sizeof *by_dst);
    size_t n = 0;
    for (size_t i = 0; drop && blocked && by_src && by_dst && i < d->m->nops; i++) {
        const fa_op *o = &d->m->ops[i];
        if (!o->is_p2p || o->ncalls != 1 || o->src < 0 || o->dst < 0) continue;
        const fa_group *g = &d->groups->v[o->group];
        bool sent = g->members[d->m->calls[o->first_call].member] == o->src;
        by_src[n] = (lone_end){ o->src, o->dst, (uint32_t)i, sent };
        by_dst[n++] = (lone_end){ o->dst, o->src, (uint32_t)i, !sent };
    }
    for (int pass = 0; drop && blocked && by_src && by_dst && pass < 2; pass++) {
        lone_end *ends = pass ? by_dst : by_src;
        qsort(ends, n, sizeof *ends, compare_ends);
        for (size_t i = 0, j; i < n; i = j) {
            for (j = i; j < n && ends[j].key == ends[i].key; j++) {}
            mark_wrong_ends(d, ends, i, j, blocked, drop);
        }
    }
    bool ok = by_src && by_dst && blocked;
    free(by_src);
    free(by_dst);
    free(blocked);
    if (!ok) {
        free(drop);
        return NULL;
    }
    return drop;
}

static int build_graph(decider *d) {
    graph *g = &d->g;
    g->nrank_nodes = d->nfacts;
    g->op_of_node = NULL;
    size_t nop_nodes = 0;
    long *op_nodes = malloc((d->m->nops + 1) * sizeof *op_nodes);
    uint8_t *flags = scan_all_ops(d);
    bool *wrong_peer = wrong_peer_ops(d);
    if (!op_nodes || !flags || !wrong_peer) {
        free(op_nodes);
        free(flags);
        free(wrong_peer);
        return -1;
    }
    g->op_of_node = op_nodes; /* freed with the graph, whatever happens below */
    int rc = 0;
    for (size_t i = 0; i < d->m->nops && rc == 0; i++) {
        d->inflight += (flags[i] & OP_INCOMPLETE) != 0;
        if (!(flags[i] & OP_PENDING)) continue;
        const fa_op *o = &d->m->ops[i];
        const fa_group *grp = &d->groups->v[o->group];
        uint32_t n = fa_vg_expected_states(d, i);
        size_t pending = 0, completed = 0;
        for (uint32_t k = 0; k < n; k++) {
            fa_member_state s = d->states[k];
            pending += fa_member_state_pending(s);
            completed += s == FA_MS_COMPLETED;
        }
        if (pending == 0) continue;
        uint32_t x = (uint32_t)(g->nrank_nodes + nop_nodes);
        op_nodes[nop_nodes++] = (long)i;
        bool alone = (pending == 1 && lonely_op(d, (long)i)) || wrong_peer[i];
        for (uint32_t k = 0; k < n; k++) {
            uint32_t p = d->members[k];
            fa_member_state s = d->states[k];
            long node = fa_vg_rank_node(d, grp->members[p]);
            if (node < 0) continue;
            rank_facts *f = &d->facts[node];
            if (s != FA_MS_COMPLETED && fa_vg_broken(d, (size_t)node, o->group)) {
                /* it will never get further here: the others pending wait on it, it on nothing,
                 * and what it has pending is no sign of a stopped GPU */
                if ((rc = add_edge(g, x, (uint32_t)node)) != 0) break;
                size_t waiters = pending - fa_member_state_pending(s);
                if (waiters) {
                    f->waited = true;
                    note_waited(d, &f->broken_op, &f->broken_waiters, i, waiters);
                }
            } else if (fa_member_state_pending(s)) {
                if ((rc = add_edge(g, (uint32_t)node, x) || add_edge(g, x, (uint32_t)node)) != 0)
                    break;
                int64_t rec = fa_vg_call_record(d, i, p);
                if (completed && !o->is_p2p && lag_possible(d, (size_t)node) &&
                    (!f->lag || rec < f->lag_record)) {
                    f->lag = true;
                    f->lag_op = (long)i;
                    f->lag_record = rec;
                }
            } else if (fa_member_state_absent(s) && !alone) {
                if ((rc = add_edge(g, x, (uint32_t)node)) != 0) break;
                f->waited = true;
                note_waited(d, &f->missing_op, &f->missing_waiters, i, pending);
            }
        }
        if (rc == 0 && grp->inferred && !completed && pending == n)
            rc = wait_for_unseen_members(d, x, i, pending);
    }
    free(flags);
    free(wrong_peer);
    if (rc) return -1;
    g->nnodes = g->nrank_nodes + nop_nodes;
    return index_edges(g);
}

/* The k-th neighbour of v over its proven edges; false past the last. */
static bool neighbor(const graph *g, size_t v, size_t k, uint32_t *w) {
    if (k >= g->edge_at[v + 1] - g->edge_at[v]) return false;
    *w = g->edges[g->edge_at[v] + k];
    return true;
}

static int components(decider *d);

/* Ranks of unknown state that the doubts excused may have joined the ops the others wait for
 * them in: the ops no longer wait on them, and the components are found again, so that what
 * holds those ops up is judged from proof (a member that never started it, a stuck collective). */
static int join_excused_unknowns(decider *d) {
    graph *g = &d->g;
    size_t kept = 0;
    for (size_t e = 0; e < g->nedges; e++) {
        uint32_t to = g->to[e];
        bool drop = to < d->nfacts && g->from[e] >= g->nrank_nodes &&
                    d->facts[to].doubt == FA_DOUBT_EXCUSED &&
                    (!d->facts[to].has_dump || d->facts[to].stale);
        if (drop) continue;
        g->from[kept] = g->from[e];
        g->to[kept++] = to;
    }
    if (kept == g->nedges) return 0;
    g->nedges = kept;
    free(d->comp);
    d->comp = NULL;
    d->ncomps = 0;
    return index_edges(g) || components(d) ? -1 : 0;
}

/* Iterative Tarjan over the proven edges: d->comp[node] = component id. */
static int components(decider *d) {
    graph *g = &d->g;
    size_t n = g->nnodes;
    long *index = malloc((n + 1) * sizeof *index), *low = malloc((n + 1) * sizeof *low);
    uint32_t *stack = malloc((n + 1) * sizeof *stack), *call = malloc((n + 1) * sizeof *call);
    size_t *next_edge = malloc((n + 1) * sizeof *next_edge);
    bool *on = calloc(n + 1, 1);
    d->comp = malloc((n + 1) * sizeof *d->comp);
    if (!index || !low || !stack || !call || !next_edge || !on || !d->comp) return -1;
    for (size_t i = 0; i < n; i++) index[i] = -1;
    long counter = 0;
    size_t sp = 0, cp = 0;
    for (size_t root = 0; root < n; root++) {
        if (index[root] >= 0) continue;
        call[cp++] = (uint32_t)root;
        index[root] = low[root] = counter++;
        next_edge[root] = 0;
        stack[sp++] = (uint32_t)root;
        on[root] = true;
        while (cp) {
            uint32_t v = call[cp - 1], w;
            if (neighbor(g, v, next_edge[v], &w)) {
                next_edge[v]++;
                if (index[w] < 0) {
                    index[w] = low[w] = counter++;
                    next_edge[w] = 0;
                    stack[sp++] = w;
                    on[w] = true;
                    call[cp++] = w;
                } else if (on[w] && index[w] < low[v]) {
                    low[v] = index[w];
                }
                continue;
            }
            if (low[v] == index[v]) {
                uint32_t top;
                do {
                    top = stack[--sp];
                    on[top] = false;
                    d->comp[top] = (uint32_t)d->ncomps;
                } while (top != v);
                d->ncomps++;
            }
            cp--;
            if (cp && low[v] < low[call[cp - 1]]) low[call[cp - 1]] = low[v];
        }
    }
    free(index);
    free(low);
    free(stack);
    free(call);
    free(next_edge);
    free(on);
    return 0;
}

static void members_in_state(const decider *d, size_t op, bool (*want)(fa_member_state),
                             fa_ranks *out) {
    const fa_group *grp = &d->groups->v[d->m->ops[op].group];
    uint32_t n = fa_vg_expected_states(d, op);
    for (uint32_t k = 0; k < n; k++)
        if (want(d->states[k])) fa_ranks_add(out, grp->members[d->members[k]]);
    fa_ranks_normalize(out);
}

static void blame_lag(decider *d, rank_facts *f) {
    fa_finding *x = fa_findings_add(d->findings, FA_STATE_MISMATCH,
                                    (long)d->m->ops[f->lag_op].group, f->lag_op);
    if (!x) return;
    fa_ranks_add(&x->ranks, f->rank);
    members_in_state(d, (size_t)f->lag_op, fa_vg_is_completed, &x->others);
    char group[300], label[200];
    fa_vg_context(d, (size_t)f->lag_op, group, sizeof group, label, sizeof label);
    char *done = fa_ranks_format(x->others.v, x->others.n);
    fa_finding_set_detail(x,
                          "rank %lld still has %s %s pending while rank%s %s completed it: its GPU "
                          "stopped completing work",
                          (long long)f->rank, group, label, x->others.n > 1 ? "s" : "", done);
    free(done);
}

/* The rank's own dump says why the others wait on it: it crashed, or its communicator failed. */
static void blame_broken(decider *d, rank_facts *f) {
    size_t op = (size_t)f->broken_op;
    const char *error =
        f->crashed ? NULL : fa_vg_async_error(d, (size_t)(f - d->facts), d->m->ops[op].group);
    fa_finding *x = fa_findings_add(d->findings, error ? FA_STATE_MISMATCH : FA_MISSING_RANKS,
                                    (long)d->m->ops[op].group, (long)op);
    if (!x) return;
    x->cause = error ? FA_CAUSE_ASYNC_ERROR : FA_CAUSE_CRASH;
    x->signal = f->signal;
    x->error = error;
    fa_ranks_add(&x->ranks, f->rank);
    fa_ranks pending = { 0 };
    members_in_state(d, op, fa_member_state_pending, &pending);
    for (size_t i = 0; i < pending.n; i++)
        if (pending.v[i] != f->rank) fa_ranks_add(&x->others, pending.v[i]);
    fa_ranks_free(&pending);
    char group[300], label[200], signal[32];
    fa_vg_context(d, op, group, sizeof group, label, sizeof label);
    char *waiting = fa_ranks_format(x->others.v, x->others.n);
    const char *s = x->others.n > 1 ? "s" : "", *verb = x->others.n > 1 ? "wait" : "waits";
    fa_signal_label(f->signal, signal, sizeof signal);
    if (error)
        fa_finding_set_detail(x,
                              "rank %lld's communicator for %s reported the NCCL async error %s; "
                              "rank%s %s %s in %s %s",
                              (long long)f->rank, group, error, s, waiting, verb, group, label);
    else
        fa_finding_set_detail(x,
                              "rank %lld crashed (%s): its dump was written from the signal "
                              "handler; rank%s %s %s in %s %s",
                              (long long)f->rank, signal, s, waiting, verb, group, label);
    free(waiting);
}

static fa_finding *find_op_finding(decider *d, fa_finding_kind kind, long op, size_t from) {
    for (size_t i = from; i < d->findings->n; i++)
        if (d->findings->v[i].kind == kind && d->findings->v[i].op == op) return &d->findings->v[i];
    return NULL;
}

/* The missing_ranks / missing_dump finding of an op (absent and unreadable dumps apart), found
 * through `index` (op, kind, cause -> finding), or added: one lookup per blamed rank. */
static fa_finding *missing_finding(decider *d, fa_imap *index, fa_finding_kind kind, long op,
                                   fa_cause cause) {
    uint64_t at, key = (uint64_t)op << 2 | (uint64_t)(cause == FA_CAUSE_UNREADABLE) << 1 |
                       (kind == FA_MISSING_DUMP);
    if (fa_imap_get(index, key, &at)) return &d->findings->v[at];
    fa_finding *x = fa_findings_add(d->findings, kind, (long)d->m->ops[op].group, op);
    if (!x) return NULL;
    x->cause = cause;
    members_in_state(d, (size_t)op, fa_member_state_pending, &x->others);
    for (size_t i = 0; i < d->nfacts; i++) /* blocked by it too: their op with it failed */
        if (d->facts[i].failed && d->facts[i].failed_op == op)
            fa_ranks_add(&x->others, d->facts[i].rank);
    fa_ranks_normalize(&x->others);
    fa_imap_put(index, key, (uint64_t)(x - d->findings->v));
    return x;
}

/* Adds f's rank to the finding of the op it is missing from; ranks come ascending, so the set
 * stays sorted. The detail is written once per finding, after (describe_missing). */
static void blame_missing(decider *d, rank_facts *f, fa_imap *index) {
    fa_finding_kind kind = f->has_dump ? FA_MISSING_RANKS : FA_MISSING_DUMP;
    fa_finding *x = missing_finding(d, index, kind, f->missing_op,
                                    f->unreadable ? FA_CAUSE_UNREADABLE : FA_CAUSE_ENTRIES);
    if (!x) return;
    fa_ranks_add(&x->ranks, f->rank);
    if (x->ranks.n > 1 && x->ranks.v[x->ranks.n - 2] >= f->rank) fa_ranks_normalize(&x->ranks);
}

static void describe_missing(decider *d, fa_finding *x) {
    long node = fa_vg_rank_node(d, x->ranks.v[0]);
    const rank_facts *f = &d->facts[node];
    char group[300], label[200];
    fa_vg_context(d, (size_t)x->op, group, sizeof group, label, sizeof label);
    char *waiting = fa_ranks_format(x->others.v, x->others.n),
         *who = fa_ranks_format(x->ranks.v, x->ranks.n);
    const fa_op *o = &d->m->ops[x->op];
    if (x->kind == FA_MISSING_DUMP && x->cause == FA_CAUSE_UNREADABLE) {
        const char *what = x->ranks.n == 1 && *f->unreadable ? f->unreadable : "see rejected_file";
        fa_finding_set_detail(x, "rank%s %s%s dump%s unreadable (%s); rank%s %s wait%s in %s %s",
                              x->ranks.n > 1 ? "s" : "", who, x->ranks.n > 1 ? "'" : "'s",
                              x->ranks.n > 1 ? "s are" : " is", what, x->others.n > 1 ? "s" : "",
                              waiting, x->others.n > 1 ? "" : "s", group, label);
    } else if (x->kind == FA_MISSING_DUMP && x->others.n &&
               d->facts[fa_vg_rank_node(d, x->others.v[0])].failed_op == x->op) {
        fa_finding_set_detail(x,
                              "rank%s %s wrote no dump; the %s %s of rank%s %s with it ended "
                              "(failed: gloo retires an op whose peer is gone), and %s stopped",
                              x->ranks.n > 1 ? "s" : "", who, group, label,
                              x->others.n > 1 ? "s" : "", waiting, x->others.n > 1 ? "they" : "it");
    } else if (x->kind == FA_MISSING_DUMP) {
        fa_finding_set_detail(x, "rank%s %s wrote no dump; rank%s %s wait%s in %s %s",
                              x->ranks.n > 1 ? "s" : "", who, x->others.n > 1 ? "s" : "", waiting,
                              x->others.n > 1 ? "" : "s", group, label);
    } else if (o->is_p2p) {
        fa_finding_set_detail(x,
                              "rank%s %s wait%s in %s %s; rank%s %s never posted the matching %s",
                              x->others.n > 1 ? "s" : "", waiting, x->others.n > 1 ? "" : "s",
                              group, label, x->ranks.n > 1 ? "s" : "", who,
                              strcmp(fa_op_type(d->m, o), "send") == 0 ? "recv" : "send");
    } else {
        const fa_group *grp = &d->groups->v[o->group];
        long pos = fa_group_position(grp, f->rank);
        int64_t last =
            pos >= 0 ? d->m->views[d->m->view_at[o->group] + (size_t)pos].issued_max : -1;
        char lastbuf[64] = "";
        if (x->ranks.n == 1 && last >= 0)
            snprintf(lastbuf, sizeof lastbuf, " (its last was #%lld)", (long long)last);
        fa_finding_set_detail(x, "rank%s %s wait%s in %s %s; rank%s %s never issued it%s",
                              x->others.n > 1 ? "s" : "", waiting, x->others.n > 1 ? "" : "s",
                              group, label, x->ranks.n > 1 ? "s" : "", who, lastbuf);
    }
    free(waiting);
    free(who);
}

/* Every member joined, nothing is missing: who never started it, or is it simply stuck?
 * nodes[0..nn) are the component's nodes, ascending. */
static void judge_joined(decider *d, const uint32_t *nodes, size_t nn) {
    for (size_t k = 0; k < nn; k++) {
        size_t n = nodes[k];
        if (n < d->g.nrank_nodes) continue;
        size_t op = (size_t)d->g.op_of_node[n - d->g.nrank_nodes];
        if (lonely_op(d, (long)op)) continue; /* ahead of the others, not stuck */
        fa_ranks started = { 0 }, scheduled = { 0 };
        members_in_state(d, op, fa_vg_is_started, &started);
        members_in_state(d, op, fa_vg_is_scheduled, &scheduled);
        if (started.n && scheduled.n) {
            fa_finding *x = fa_findings_add(d->findings, FA_STATE_MISMATCH,
                                            (long)d->m->ops[op].group, (long)op);
            if (x) {
                x->cause = FA_CAUSE_NEVER_STARTED;
                x->ranks = scheduled;
                x->others = started;
                char group[300], label[200];
                fa_vg_context(d, op, group, sizeof group, label, sizeof label);
                char *who = fa_ranks_format(scheduled.v, scheduled.n),
                     *went = fa_ranks_format(started.v, started.n);
                fa_finding_set_detail(
                    x, "rank%s %s never started %s %s on the GPU, which rank%s %s started",
                    scheduled.n > 1 ? "s" : "", who, group, label, started.n > 1 ? "s" : "", went);
                free(who);
                free(went);
                for (size_t i = 0; i < scheduled.n; i++) {
                    long node = fa_vg_rank_node(d, scheduled.v[i]);
                    if (node >= 0) d->facts[node].culprit = true;
                }
                continue;
            }
        }
        bool queued = false;
        const fa_op *o = &d->m->ops[op];
        for (size_t i = 0; i < o->ncalls; i++) {
            const fa_call *call = &d->m->calls[o->first_call + i];
            const fa_view *v = &d->m->views[d->m->view_at[o->group] + call->member];
            if ((!o->is_p2p && v->issued_max > o->seq) ||
                d->m->rank_newest_pending[call->rank_index] >
                    fa_call_record_id(d->m, d->in, call, fa_call_nentries(d->m, call) - 1))
                queued = true;
        }
        if (started.n && !scheduled.n && queued &&
            !find_op_finding(d, FA_STUCK_COLLECTIVE, (long)op, 0)) {
            fa_finding *x =
                fa_findings_add(d->findings, FA_STUCK_COLLECTIVE, (long)o->group, (long)op);
            if (x) {
                x->others = started;
                started = (fa_ranks){ 0 };
                char group[300], label[200];
                fa_vg_context(d, op, group, sizeof group, label, sizeof label);
                fa_finding_set_detail(x,
                                      "every member started %s %s and none completed it, with more "
                                      "work queued behind: suspect the GPU or the network",
                                      group, label);
            }
        }
        fa_ranks_free(&started);
        fa_ranks_free(&scheduled);
    }
}

/* The record_id of input rank ri's collective entry in `group` with `seq`, or -1. */
static int64_t record_at(const decider *d, size_t ri, uint32_t group, int64_t seq) {
    const fa_dump *dump = d->in->ranks[ri].dump;
    for (uint32_t i = dump->nentries; i-- > 0;) {
        const fa_entry *e = &dump->entries[i];
        if (fa_entry_coll_seq(dump, e) != seq || fa_entry_traits(d->in->store, e)->is_p2p) continue;
        if (fa_groups_find(d->groups, ri, dump->pgs[fa_entry_pg(d->in->store, e)].name) ==
            (long)group)
            return fa_entry_record_id(dump, e);
    }
    return -1;
}

/* In a cycle of ranks that each wait in one op for another that never issued its own (a rank
 * skipped a collective and went on to the next group's), the rank's own history tells the
 * skipper from its victim: the step before, which of the two groups came first. When the op it
 * is pending in (group H, #t) comes before the one it is missing (group G, #s) in its program,
 * as H #t-1 came before G #s-1, it is blocked before reaching the missing op: a victim. In one
 * group (the recorder numbers send/recv batches and collectives alike, so a rank that left one
 * out holds another op at its number) the numbers say it: pending at #t < #s, a victim. */
/* The op nodes the rank waits in within its component, one at a time: *at walks its edges. */
static const fa_op *next_pending(const decider *d, size_t node, size_t *at) {
    while (*at < d->g.edge_at[node + 1]) {
        uint32_t x = d->g.edges[(*at)++];
        if (x < d->g.nrank_nodes || d->comp[x] != d->comp[node]) continue;
        const fa_op *pending = &d->m->ops[d->g.op_of_node[x - d->g.nrank_nodes]];
        if (!pending->is_p2p) return pending;
    }
    return NULL;
}

static bool blocked_before(const decider *d, size_t node) {
    const rank_facts *f = &d->facts[node];
    long ri = fa_input_find(d->in, f->rank);
    const fa_op *missing = &d->m->ops[f->missing_op], *pending;
    if (ri < 0 || missing->is_p2p) return false;
    /* one group first (launch-numbered dumps, where another op took the missing one's number):
     * pending before it, the rank never got there; pending after it, it went past */
    for (size_t at = d->g.edge_at[node]; (pending = next_pending(d, node, &at)) != NULL;)
        if (pending->group == missing->group) return pending->seq < missing->seq;
    if (missing->seq < 2) return false;
    for (size_t at = d->g.edge_at[node]; (pending = next_pending(d, node, &at)) != NULL;) {
        if (pending->seq < 2) continue;
        int64_t before_pending = record_at(d, (size_t)ri, pending->group, pending->seq - 1);
        int64_t before_missing = record_at(d, (size_t)ri, missing->group, missing->seq - 1);
        if (before_pending >= 0 && before_missing >= 0) return before_pending < before_missing;
    }
    return false;
}

/* Whether the rank waits in a lonely op: whatever its history says, it went there alone. */
static bool waits_alone(const decider *d, size_t node) {
    for (uint32_t at = d->g.edge_at[node]; at < d->g.edge_at[node + 1]; at++) {
        uint32_t x = d->g.edges[at];
        if (x >= d->g.nrank_nodes && lonely_op(d, (long)d->g.op_of_node[x - d->g.nrank_nodes]))
            return true;
    }
    return false;
}

/* Marks the candidates of sink component c that blocked_before excuses (never one waiting in a
 * lonely op), unless that would excuse all of them (then the history cannot tell, and every one
 * is named). */
static void excuse_blocked_victims(decider *d, const uint32_t *mine, size_t nranks) {
    size_t candidates = 0, excused = 0;
    for (size_t k = 0; k < nranks; k++) {
        rank_facts *f = &d->facts[mine[k]];
        if (!f->waited || f->missing_op < 0) continue;
        candidates++;
        f->excused = fa_vg_node_pending(d, mine[k]) && !waits_alone(d, mine[k]) &&
                     blocked_before(d, mine[k]);
        excused += f->excused;
    }
    if (excused < candidates) return;
    for (size_t k = 0; k < nranks; k++) d->facts[mine[k]].excused = false;
}

/* A send or recv that one side posted and the other never did, in a sink, filed under `who`: the
 * rank the pass is about; `other` the rank to excuse when `who` is the fault; `kind` which of the
 * pass's two patterns it is. */
typedef struct lone_p2p {
    int64_t who, other;
    int kind;
} lone_p2p;

static int compare_lone(const void *pa, const void *pb) {
    const lone_p2p *a = pa, *b = pb;
    if (a->who != b->who) return a->who < b->who ? -1 : 1;
    return (a->kind > b->kind) - (a->kind < b->kind);
}

/* Excuses, for each rank filed under both kinds with two different others, both others. */
static void excuse_pairs(decider *d, lone_p2p *lone, size_t n) {
    qsort(lone, n, sizeof *lone, compare_lone);
    for (size_t k = 0; k + 1 < n; k++) {
        const lone_p2p *x = &lone[k], *y = &lone[k + 1];
        if (x->who != y->who || x->kind == y->kind || x->other == y->other) continue;
        long a = fa_vg_rank_node(d, x->other), b = fa_vg_rank_node(d, y->other);
        if (a >= 0) d->facts[a].excused = true;
        if (b >= 0) d->facts[b].excused = true;
    }
}

/* One rank that sent to the wrong peer leaves two send/recv unmatched: its own (s -> a, which a
 * never received) and the one its right peer posted (b waits to receive from s, which never sent
 * to b). One fault explains both: s is the root cause, a and b, each missing what the other side
 * waits for, are excused. The same for a recv from the wrong source: d waits to receive from x,
 * which never sent, and s sent to d, which never received from s: d is the root cause, x
 * excused. ops[0..nops) are the sink's op nodes. */
static void excuse_wrong_peers(decider *d, const uint32_t *ops, size_t nops) {
    lone_p2p *dest = malloc((nops + 1) * sizeof *dest), *src = malloc((nops + 1) * sizeof *src);
    size_t nd = 0, ns = 0;
    for (size_t k = 0; dest && src && k < nops; k++) {
        const fa_op *o = &d->m->ops[d->g.op_of_node[ops[k] - d->g.nrank_nodes]];
        if (!o->is_p2p || o->ncalls != 1 || o->src < 0 || o->dst < 0) continue;
        const fa_group *g = &d->groups->v[o->group];
        bool sent = g->members[d->m->calls[o->first_call].member] == o->src;
        /* wrong destination, about the sender s: its lone send (excuse the receiver that never
         * posted) and a lone recv from it (excuse the receiver waiting) */
        dest[nd++] = (lone_p2p){ o->src, o->dst, sent };
        /* wrong source, about the receiver d: its lone recv (excuse the sender that never sent)
         * and a lone send to it (nothing missing there to excuse: the sender itself) */
        src[ns++] = (lone_p2p){ o->dst, sent ? -1 : o->src, !sent };
    }
    if (dest && src) {
        excuse_pairs(d, dest, nd);
        excuse_pairs(d, src, ns);
    }
    free(dest);
    free(src);
}

/* The nodes of each component, ascending within it: at[c]..at[c+1] in `nodes` (a counting sort,
 * so that judging a component costs its own size, not the graph's). */
static int nodes_by_component(const decider *d, size_t **at_out, uint32_t **nodes_out) {
    size_t *at = calloc(d->ncomps + 2, sizeof *at);
    uint32_t *nodes = malloc((d->g.nnodes ? d->g.nnodes : 1) * sizeof *nodes);
    if (!at || !nodes) {
        free(at);
        free(nodes);
        return -1;
    }
    for (size_t n = 0; n < d->g.nnodes; n++) at[d->comp[n] + 2]++;
    for (size_t c = 0; c < d->ncomps; c++) at[c + 2] += at[c + 1];
    for (size_t n = 0; n < d->g.nnodes; n++) nodes[at[d->comp[n] + 1]++] = (uint32_t)n;
    *at_out = at;
    *nodes_out = nodes;
    return 0;
}

/* The same collective stuck in many groups of one kind (every tensor-parallel group's
 * _all_gather_base #88 started and never completed): one finding naming them all, not one per
 * group. Findings [first, n) are the sinks'; the folded ones are dropped from the list. */
static bool same_stuck(const decider *d, const fa_finding *a, const fa_finding *b) {
    const fa_op *x = &d->m->ops[a->op], *y = &d->m->ops[b->op];
    return a->kind == FA_STUCK_COLLECTIVE && b->kind == FA_STUCK_COLLECTIVE && x->seq == y->seq &&
           fa_op_type(d->m, x) == fa_op_type(d->m, y) &&
           strcmp(d->groups->v[x->group].desc, d->groups->v[y->group].desc) == 0;
}

static void fold_alike_stuck(decider *d, size_t first) {
    fa_findings *list = d->findings;
    fa_smap seen = { 0 }; /* "desc\x1ftype\x1fseq" -> the finding that stands for them */
    size_t *groups = calloc(list->n + 1, sizeof *groups), kept = first;
    for (size_t i = first; groups && i < list->n; i++) {
        fa_finding *f = &list->v[i];
        char key[400];
        uint64_t at;
        const fa_op *o = f->op >= 0 ? &d->m->ops[f->op] : NULL;
        if (f->kind == FA_STUCK_COLLECTIVE && o)
            snprintf(key, sizeof key, "%s\x1f%s\x1f%lld", d->groups->v[o->group].desc,
                     fa_op_type(d->m, o), (long long)o->seq);
        if (f->kind == FA_STUCK_COLLECTIVE && o && fa_smap_get(&seen, key, &at) &&
            same_stuck(d, &list->v[at], f)) {
            for (size_t r = 0; r < f->others.n; r++)
                fa_ranks_add(&list->v[at].others, f->others.v[r]);
            groups[at]++;
            fa_ranks_free(&f->ranks);
            fa_ranks_free(&f->others);
            free(f->detail);
            continue;
        }
        if (kept != i) list->v[kept] = *f;
        if (f->kind == FA_STUCK_COLLECTIVE && o) fa_smap_put(&seen, key, kept);
        groups[kept] = 1;
        kept++;
    }
    for (size_t i = first; groups && i < kept; i++) {
        fa_finding *f = &list->v[i];
        if (groups[i] < 2) continue;
        fa_ranks_normalize(&f->others);
        char label[200];
        fa_op_label(d->m, (size_t)f->op, label, sizeof label);
        const fa_group *g = &d->groups->v[d->m->ops[f->op].group];
        fa_finding_set_detail(f,
                              "every member started %s%s%s in %zu groups and none completed it, "
                              "with more work queued behind: suspect the GPU or the network",
                              g->desc[0] ? g->desc : "", g->desc[0] ? " " : "", label, groups[i]);
    }
    if (groups) list->n = kept;
    free(groups);
    fa_smap_free(&seen);
}

static void judge_sinks(decider *d) {
    bool *leaves = calloc(d->ncomps + 1, 1), *busy = calloc(d->ncomps + 1, 1);
    size_t *at = NULL;
    uint32_t *nodes = NULL;
    if (!leaves || !busy || nodes_by_component(d, &at, &nodes)) goto out;
    for (size_t n = 0; n < d->g.nnodes; n++) {
        uint32_t w;
        for (size_t k = 0; neighbor(&d->g, n, k, &w); k++) {
            if (d->comp[w] != d->comp[n])
                leaves[d->comp[n]] = true;
            else
                busy[d->comp[n]] = true;
        }
    }
    size_t first = d->findings->n;
    fa_imap missing = { 0 };
    for (uint32_t c = 0; c < d->ncomps; c++) {
        if (leaves[c]) continue;
        const uint32_t *mine = nodes + at[c];
        size_t nmine = at[c + 1] - at[c], nranks = 0;
        while (nranks < nmine && mine[nranks] < d->nfacts) nranks++; /* rank nodes come first */
        bool any_lag = false, any_waited = false, any_broken = false;
        for (size_t k = 0; k < nranks; k++) {
            size_t r = mine[k];
            any_lag |= d->facts[r].lag;
            any_waited |= d->facts[r].waited;
            any_broken |= d->facts[r].broken_op >= 0;
        }
        if (!busy[c] && !any_waited) continue; /* nobody waits here */
        if (!any_broken && !any_lag) {
            excuse_blocked_victims(d, mine, nranks);
            excuse_wrong_peers(d, mine + nranks, nmine - nranks);
        }
        for (size_t k = 0; k < nranks; k++) {
            rank_facts *f = &d->facts[mine[k]];
            if (any_broken) { /* the dump's own word beats what the entries imply */
                if (f->broken_op < 0) continue;
                f->culprit = true;
                blame_broken(d, f);
            } else if (any_lag && f->lag) {
                f->culprit = true;
                blame_lag(d, f);
            } else if (!any_lag && f->waited && f->missing_op >= 0 && !f->excused &&
                       f->doubt == FA_DOUBT_NONE) { /* doubts: verdict_possible.c */
                f->culprit = true;
                blame_missing(d, f, &missing);
            }
        }
        if (!any_broken && !any_lag && !any_waited) judge_joined(d, mine, nmine);
    }
    for (size_t i = first; i < d->findings->n; i++) {
        fa_finding *x = &d->findings->v[i];
        if ((x->kind == FA_MISSING_DUMP || x->kind == FA_MISSING_RANKS) &&
            x->cause != FA_CAUSE_CRASH && !x->detail)
            describe_missing(d, x);
    }
    fold_alike_stuck(d, first);
    fa_imap_free(&missing);
out:
    free(leaves);
    free(busy);
    free(at);
    free(nodes);
}

static void note_idle_missing_dumps(decider *d) {
    fa_finding *x = NULL;
    for (size_t r = 0; r < d->nfacts; r++) {
        rank_facts *f = &d->facts[r];
        if (f->has_dump || f->culprit) continue;
        if (!x) x = fa_findings_add(d->findings, FA_MISSING_DUMP, -1, -1);
        if (!x) return;
        fa_ranks_add(&x->ranks, f->rank);
    }
    if (!x) return;
    char *who = fa_ranks_format(x->ranks.v, x->ranks.n);
    fa_finding_set_detail(x,
                          "no readable dump from rank%s %s (group members); nothing the others "
                          "wait for is known to depend on %s",
                          x->ranks.n > 1 ? "s" : "", who, x->ranks.n > 1 ? "them" : "it");
    free(who);
}

/* ---------------------------------------------------------------- summary ----------- */

/* A rank list short enough for the summary: "0-7,9", or "1,5,9,13 and 996 more". */
static char *short_ranks(const fa_ranks *r) {
    size_t n = r->n > 4 ? 4 : r->n;
    char *head = fa_ranks_format(r->v, n);
    if (!head || n == r->n) return head;
    char *all = fa_ranks_format(r->v, r->n);
    if (all && strlen(all) <= 40) {
        free(head);
        return all;
    }
    free(all);
    char *text = NULL;
    if (asprintf(&text, "%s and %zu more", head, r->n - n) < 0) text = NULL;
    free(head);
    return text;
}

/* The verdict line from the findings that name culprits (verdict_title.c). */
static void summarize(decider *d, const char *lead, bool (*pick)(fa_finding_kind), size_t from,
                      const char *suffix) {
    fa_title_input t = { lead, d->findings, from, pick, d->groups, d->m, suffix };
    d->v->summary = fa_verdict_title(&t);
}

/* docs/database.md §6 names a member without a dump the culprit when all others wait for it. When
 * every culprit is such a member but some loaded ranks wait for nobody, the dumps cannot tell a
 * stopped rank from a lost dump: inconclusive. */
static bool only_lost_dumps(const decider *d) {
    for (size_t i = 0; i < d->v->culprits.n; i++) {
        long node = fa_vg_rank_node(d, d->v->culprits.v[i]);
        if (node < 0 || d->facts[node].has_dump) return false;
    }
    for (size_t i = 0; i < d->nfacts; i++) {
        if (!d->facts[i].has_dump) continue;
        int64_t r = d->facts[i].rank;
        if (!d->facts[i].maybe_in_p2p && !d->facts[i].failed &&
            !fa_ranks_contains(&d->v->levels[1].ranks, r) &&
            !fa_ranks_contains(&d->v->levels[2].ranks, r))
            return true;
    }
    return false;
}

static void say_lost_dumps(decider *d) {
    fa_ranks waiting = { 0 }, idle = { 0 };
    for (size_t i = 0; i < d->nfacts; i++) {
        if (!d->facts[i].has_dump) continue;
        int64_t r = d->facts[i].rank;
        bool waits = d->facts[i].maybe_in_p2p || d->facts[i].failed ||
                     fa_ranks_contains(&d->v->levels[1].ranks, r) ||
                     fa_ranks_contains(&d->v->levels[2].ranks, r);
        fa_ranks_add(waits ? &waiting : &idle, r);
    }
    char *who = short_ranks(&d->v->culprits), *w = short_ranks(&waiting), *i = short_ranks(&idle);
    if (asprintf(&d->v->summary,
                 "inconclusive: rank%s %s wait%s for rank%s %s, which left no readable dump, while "
                 "rank%s %s wait%s for nobody: a stopped rank or a lost dump?",
                 waiting.n > 1 ? "s" : "", w, waiting.n > 1 ? "" : "s",
                 d->v->culprits.n > 1 ? "s" : "", who, idle.n > 1 ? "s" : "", i,
                 idle.n > 1 ? "" : "s") < 0)
        d->v->summary = NULL;
    free(who);
    free(w);
    free(i);
    fa_ranks_free(&waiting);
    fa_ranks_free(&idle);
}

/* Ranks whose dump says a thread was stuck inside an NCCL call. */
static void stuck_ranks(const decider *d, fa_ranks *out) {
    for (size_t i = 0; i < d->nfacts; i++)
        if (d->facts[i].stuck_in_api) fa_ranks_add(out, d->facts[i].rank);
}

/* The entries cannot decide (none at all, or nothing blocked), but some dumps say their rank
 * hung inside NCCL, where no collective is recorded: inconclusive, saying so. */
static void say_stuck(decider *d, const fa_ranks *stuck) {
    char *who = short_ranks(stuck);
    bool many = stuck->n > 1;
    const char *where = d->m->any_entries
                            ? "outside the recorded collectives (e.g. communicator setup or "
                              "teardown); nothing recorded is blocked"
                            : "(e.g. communicator initialization); no collective was recorded";
    d->v->status = FA_STATUS_INCONCLUSIVE;
    if (asprintf(&d->v->summary, "inconclusive: rank%s %s stuck inside %s %s", many ? "s" : "",
                 who ? who : "?", many ? "NCCL calls" : "an NCCL call", where) < 0)
        d->v->summary = NULL;
    free(who);
}

/* Nothing blocked. Members that left no dump are named in the title too: the dumps say nothing
 * waits for them, but a job most of whose ranks are missing (killed by a peer's mismatch) is not
 * plainly healthy, and the reader should see it without opening the findings. */
static void say_ok(decider *d) {
    fa_ranks lost[2] = { { 0 } }; /* [0] wrote no dump, [1] left an unreadable one */
    for (size_t r = 0; r < d->nfacts; r++)
        if (!d->facts[r].has_dump)
            fa_ranks_add(&lost[d->facts[r].unreadable != NULL], d->facts[r].rank);
    char tail[2][160] = { "", "" };
    for (int k = 0; k < 2; k++) {
        fa_ranks_normalize(&lost[k]);
        char *who = lost[k].n ? short_ranks(&lost[k]) : NULL;
        if (who)
            snprintf(tail[k], sizeof tail[k], "; rank%s %s %s", lost[k].n > 1 ? "s" : "", who,
                     k ? (lost[k].n > 1 ? "left unreadable dumps" : "left an unreadable dump")
                       : "left no dump");
        free(who);
        fa_ranks_free(&lost[k]);
    }
    size_t nranks = d->in->nranks, ngroups = d->groups->n, inflight = d->inflight;
    d->v->status = FA_STATUS_OK;
    if (asprintf(&d->v->summary,
                 "ok: %zu rank%s, %zu group%s, nothing blocked (%zu operation%s in flight)%s%s",
                 nranks, nranks == 1 ? "" : "s", ngroups, ngroups == 1 ? "" : "s", inflight,
                 inflight == 1 ? "" : "s", tail[0], tail[1]) < 0)
        d->v->summary = NULL;
}

#define GLOO_NOTE "; gloo records no send/recv"

/* Whether some dump comes from a backend that records no send/recv (backend.h). */
static bool any_unrecorded_p2p(const fa_input *in) {
    for (size_t i = 0; i < in->nranks; i++)
        if (in->ranks[i].dump->records_no_p2p) return true;
    return false;
}

/* A rank blocked in a send/recv that gloo does not record looks like one that never issued its
 * next collective: the summary says that the evidence has this gap. */
static void say_unrecorded_p2p(decider *d) {
    if (!d->v->summary || !any_unrecorded_p2p(d->in)) return;
    char *text = NULL;
    if (asprintf(&text, "%s%s", d->v->summary, GLOO_NOTE) < 0) return;
    free(d->v->summary);
    d->v->summary = text;
}

static bool culprit_kind(fa_finding_kind k) {
    return k == FA_MISSING_RANKS || k == FA_MISSING_DUMP || k == FA_STATE_MISMATCH ||
           k == FA_STUCK_COLLECTIVE;
}

static bool missing_dump_with_op(fa_finding_kind k) { return k == FA_MISSING_DUMP; }

/* Whether some dump's pg_status shows collectives issued: an only-active dump of a job with
 * nothing in flight holds no entries, but its counters say that the job ran. */
static bool any_status(const fa_input *in) {
    for (size_t i = 0; i < in->nranks; i++)
        for (uint32_t s = 0; s < in->ranks[i].dump->nstatus; s++)
            if (in->ranks[i].dump->status[s].last_enqueued > 0) return true;
    return false;
}

/* Which groups vouch for their members: rebuilt from the entries (no pg_config lists them), or
 * listed in the pg_config of
 * every dump or of two dumps at least. A group one dump alone lists (200 000 members where 15
 * other dumps agree on 16) says nothing of how many ranks the job has. */
static void vouch_for_groups(const decider *d, uint8_t *vouched) {
    uint32_t *listed = calloc(d->groups->n + 1, sizeof *listed);
    if (!listed) return;
    for (size_t r = 0; r < d->in->nranks; r++) {
        const fa_dump *dump = d->in->ranks[r].dump;
        for (uint32_t k = 0; k < dump->ngroups; k++) {
            long g = fa_groups_find(d->groups, r, dump->groups[k].name);
            if (g >= 0) listed[g]++;
        }
    }
    for (size_t g = 0; g < d->groups->n; g++)
        vouched[g] = !listed[g] || listed[g] >= 2 || (listed[g] && listed[g] == d->in->nranks);
    free(listed);
}

/* Most of the job's ranks left no readable dump: the few that did cannot speak for the job
 * (an all_to_all mismatch that made every peer abort leaves one dump that looks healthy). */
static bool most_ranks_lost(const decider *d) {
    size_t lost = 0, known = d->nfacts - d->nunseen;
    uint8_t *vouched = calloc(d->groups->n + 1, 1);
    if (!vouched) return false;
    vouch_for_groups(d, vouched);
    for (size_t u = 0; u < d->nunseen; u++) {
        int64_t rank = d->facts[d->unseen[u]].rank;
        bool member = false;
        for (size_t g = 0; g < d->groups->n && !member; g++)
            member = vouched[g] && fa_group_position(&d->groups->v[g], rank) >= 0;
        lost += member;
    }
    free(vouched);
    return lost > known;
}

static void say_most_lost(decider *d) {
    fa_verdict *v = d->v;
    fa_ranks lost = { 0 };
    for (size_t i = 0; i < d->nunseen; i++) fa_ranks_add(&lost, d->facts[d->unseen[i]].rank);
    char *who = short_ranks(&lost);
    free(v->summary);
    v->status = FA_STATUS_INCONCLUSIVE;
    if (asprintf(&v->summary,
                 "inconclusive: %zu of %zu ranks left no readable dump (ranks %s); the %zu that "
                 "did cannot speak for the job",
                 d->nunseen, d->nfacts, who ? who : "?", d->nfacts - d->nunseen) < 0)
        v->summary = NULL;
    free(who);
    fa_ranks_free(&lost);
    fa_ranks_free(&v->culprits);
    for (size_t i = 0; i < v->nalternatives; i++) {
        fa_ranks_free(&v->alternatives[i].ranks);
        free(v->alternatives[i].explanation);
    }
    free(v->alternatives);
    v->alternatives = NULL;
    v->nalternatives = 0;
}

/* Ranks whose dumps exist but could not be read, and that the verdict does not name (others may
 * wait for them, but the culprits explain it): the on-call engineer should know, so the summary
 * says so after the culprits: "; ranks 3,5 left unreadable dumps", then `more` (the gloo note).
 * Malloc'd; NULL when there is nothing to say. */
static char *unreadable_note(const decider *d, const char *more) {
    fa_ranks lost = { 0 };
    for (size_t r = 0; r < d->nfacts; r++)
        if (d->facts[r].unreadable && !fa_ranks_contains(&d->v->culprits, d->facts[r].rank))
            fa_ranks_add(&lost, d->facts[r].rank);
    char *who = lost.n ? short_ranks(&lost) : NULL, *text = NULL;
    if (who && asprintf(&text, "; rank%s %s %s%s", lost.n > 1 ? "s" : "", who,
                        lost.n > 1 ? "left unreadable dumps" : "left an unreadable dump",
                        more ? more : "") < 0)
        text = NULL;
    if (!who && more) text = strdup(more);
    free(who);
    fa_ranks_free(&lost);
    return text;
}

/* "rank 4 or 5 in PIPELINE_MODEL_PARALLEL_GROUP", "one of ranks 3,7,9" */
static void ambiguity_clause(const decider *d, const ambiguity *a, char *buf, size_t len) {
    fa_ranks who = { 0 };
    const fa_group *g = NULL, *p2p = NULL;
    for (size_t i = 0; i < a->n; i++) {
        const rank_facts *f = &d->facts[a->options[i].node];
        fa_ranks_add(&who, f->rank);
        if (!p2p && f->p2p_group >= 0) p2p = &d->groups->v[f->p2p_group];
        if (!g && f->missing_op >= 0) g = &d->groups->v[d->m->ops[f->missing_op].group];
    }
    if (p2p) g = p2p; /* where the send/recv that may have gone amiss runs */
    const char *where = !g ? NULL : !fa_desc_says_nothing(g->desc) ? g->desc : g->id;
    fa_ranks_normalize(&who);
    char *list = short_ranks(&who);
    if (who.n == 2)
        snprintf(buf, len, "rank %lld or %lld%s%.80s", (long long)who.v[0], (long long)who.v[1],
                 where ? " in " : "", where ? where : "");
    else
        snprintf(buf, len, "one of ranks %s%s%.80s", list ? list : "?", where ? " in " : "",
                 where ? where : "");
    free(list);
    fa_ranks_free(&who);
}

/* The dumps leave the root cause open between some ranks (verdict_possible.c): the summary
 * says between which, after the culprits it could name, and why it cannot tell. */
static void say_ambiguous(decider *d) {
    if (!d->nambiguities) return;
    bool p2p = false, lost = false;
    char clauses[600] = "";
    size_t at = 0;
    for (size_t i = 0; i < d->nambiguities && at < sizeof clauses; i++) {
        char one[300];
        ambiguity_clause(d, &d->ambiguities[i], one, sizeof one);
        at += (size_t)snprintf(clauses + at, sizeof clauses - at, "%s%s", i ? "; " : "", one);
        for (size_t k = 0; k < d->ambiguities[i].n; k++) {
            const char *why = d->ambiguities[i].options[k].why;
            const rank_facts *f = &d->facts[d->ambiguities[i].options[k].node];
            p2p |= why == FA_WHY_SKIPPED_P2P || f->maybe_in_p2p;
            lost |= why == FA_WHY_NO_DUMP || why == FA_WHY_STALE;
        }
    }
    const char *why = p2p && lost ? "gloo records no send/recv, and a dump is lost or older"
                      : p2p       ? "one never sent, never received or stopped: gloo records no "
                                    "send/recv"
                                  : "a lost or older dump hides which stopped";
    char *text = NULL;
    if (d->v->summary) {
        if (asprintf(&text, "%s; and %s (%s)", d->v->summary, clauses, why) < 0) text = NULL;
    } else if (asprintf(&text, "hang: %s (%s)", clauses, why) < 0) {
        text = NULL;
    }
    free(d->v->summary);
    d->v->summary = text;
}

int fa_verdict_decide(const fa_input *in, const fa_groups *groups, const fa_match *m,
                      fa_findings *findings, fa_verdict *v, fr_error *err) {
    memset(v, 0, sizeof *v);
    decider d = { .in = in, .groups = groups, .m = m, .findings = findings, .v = v };
    uint32_t widest = 2;
    for (size_t i = 0; i < groups->n; i++)
        if (groups->v[i].nmembers > widest) widest = groups->v[i].nmembers;
    d.widest = widest;
    d.members = malloc(widest * sizeof *d.members);
    d.states = malloc(widest * sizeof *d.states);
    size_t before = findings->n;
    int rc = d.members && d.states ? collect_ranks(&d) : -1;
    if (rc == 0) rc = read_self_reports(&d);
    if (rc == 0) rc = build_graph(&d);
    if (rc == 0) rc = fa_vg_add_possible_waits(&d);
    if (rc == 0) rc = components(&d);
    if (rc == 0) rc = fa_vg_weigh_doubts(&d);
    if (rc == 0) rc = join_excused_unknowns(&d);
    if (rc == 0) {
        judge_sinks(&d);
        size_t after_sinks = findings->n;
        v->first_culprit_finding = before;
        v->nculprit_findings = after_sinks - before;

        bool mismatch = false, stuck = false;
        fa_ranks stuck_in_api = { 0 };
        stuck_ranks(&d, &stuck_in_api);
        for (size_t i = 0; i < before; i++)
            if (fa_finding_is_mismatch(findings->v[i].kind)) {
                mismatch = true;
                for (size_t k = 0; k < findings->v[i].ranks.n; k++)
                    fa_ranks_add(&v->culprits, findings->v[i].ranks.v[k]);
            }
        for (size_t i = before; i < after_sinks; i++) {
            stuck |= findings->v[i].kind == FA_STUCK_COLLECTIVE;
            if (!mismatch)
                for (size_t k = 0; k < findings->v[i].ranks.n; k++)
                    fa_ranks_add(&v->culprits, findings->v[i].ranks.v[k]);
        }
        fa_ranks_normalize(&v->culprits);
        if (mismatch) fa_vg_free_ambiguities(&d); /* the mismatch is the cause */
        if (fa_verdict_explain(&d, before) != 0) rc = -1;
        if (rc == 0 && fa_vg_alternatives(&d) != 0) rc = -1;
        note_idle_missing_dumps(&d);
        if (mismatch) {
            v->status = FA_STATUS_MISMATCH;
            summarize(&d, "mismatch", fa_finding_is_mismatch, 0, NULL);
        } else if (stuck_in_api.n && !v->culprits.n && !stuck && !d.nambiguities) {
            say_stuck(&d, &stuck_in_api); /* its own dump says more than the missing ones */
        } else if (most_ranks_lost(&d)) {
            say_most_lost(&d);
        } else if (v->culprits.n && !d.nambiguities && only_lost_dumps(&d)) {
            v->status = FA_STATUS_INCONCLUSIVE;
            say_lost_dumps(&d);
            fa_ranks_free(&v->culprits);
        } else if (v->culprits.n || stuck || d.nambiguities) {
            v->status = FA_STATUS_HANG;
            if (v->culprits.n || stuck) {
                char *note = unreadable_note(&d, any_unrecorded_p2p(in) ? GLOO_NOTE : NULL);
                summarize(&d, "hang", culprit_kind, before, note);
                free(note);
            }
            say_ambiguous(&d);
        } else if (!m->any_entries && !any_status(in)) {
            v->status = FA_STATUS_INCONCLUSIVE;
            v->summary = strdup("inconclusive: the dumps hold no Flight Recorder entries (dumped "
                                "without collectives, or the buffer was off)");
        } else {
            say_ok(&d);
        }
        (void)missing_dump_with_op;
        fa_ranks_free(&stuck_in_api);
        if (v->status == FA_STATUS_INCONCLUSIVE) say_unrecorded_p2p(&d);
    }
    fa_vg_free_ambiguities(&d);
    free(d.g.pedge_at);
    free(d.g.pedges);
    free(d.g.pfrom);
    free(d.g.pto);
    free(d.members);
    free(d.states);
    free(d.facts);
    fa_imap_free(&d.node_of_rank);
    free(d.dense);
    free(d.unseen);
    fa_imap_free(&d.async_error);
    free(d.g.edge_at);
    free(d.g.edges);
    free(d.g.from);
    free(d.g.to);
    free(d.g.op_of_node);
    free(d.comp);
    if (rc) snprintf(err->msg, sizeof err->msg, "out of memory while deciding the verdict");
    return rc;
}

void fa_verdict_free(fa_verdict *v) {
    fa_ranks_free(&v->culprits);
    for (size_t i = 0; i < v->nevidence; i++) {
        fa_ranks_free(&v->evidence[i].waiters);
        fa_ranks_free(&v->evidence[i].done);
    }
    free(v->evidence);
    for (int l = 0; l < FA_WAIT_LEVELS; l++) {
        fa_ranks_free(&v->levels[l].ranks);
        fa_ranks_free(&v->levels[l].waits_for);
        free(v->levels[l].via);
    }
    for (size_t i = 0; i < v->nalternatives; i++) {
        fa_ranks_free(&v->alternatives[i].ranks);
        free(v->alternatives[i].explanation);
    }
    free(v->alternatives);
    free(v->summary);
    memset(v, 0, sizeof *v);
}

void fa_verdict_withdraw(fa_verdict *v, char *summary) {
    size_t first = v->first_culprit_finding;
    fa_verdict_free(v);
    v->status = FA_STATUS_INCONCLUSIVE;
    v->summary = summary;
    v->first_culprit_finding = first;
}

const char *fa_status_name(fa_status s) {
    switch (s) {
    case FA_STATUS_OK: return "ok";
    case FA_STATUS_HANG: return "hang";
    case FA_STATUS_MISMATCH: return "mismatch";
    case FA_STATUS_INCONCLUSIVE: return "inconclusive";
    }
    return "?";
}
