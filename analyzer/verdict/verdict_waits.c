/* verdict_waits.c — the verdict's wait graph: a node per rank with its facts (collect_ranks,
 * read_self_reports), the waits the dumps prove (build_graph, add_unrecorded_p2p_waits: what gloo
 * did not record), and its strongly connected components (see verdict_steps.h). Where each
 * rank's stream stands (its lag, its head, the heads held for good) is verdict_heads.c's;
 * send/recv posted to the wrong peer are verdict_wrong_peer.c's.
 *
 * Finding the ops someone has pending means asking every member of every op for its state; all
 * cores do that (scan_ops), and an op with one completed call per member is answered from its
 * calls alone. Everything after looks at the pending ops only. Strongly connected components
 * come from an iterative Tarjan (no recursion, so thousands of ranks cannot overflow the
 * stack). Everything is linear in ops + calls.
 */
#include "grow.h"
#include "recorder_keys.h"
#include "util/parallel.h"
#include "verdict/verdict_graph.h"
#include "verdict/verdict_heads.h"
#include "verdict/verdict_order.h"
#include "verdict/verdict_possible.h"
#include "verdict/verdict_steps.h"

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

/* Each stale dump's oldest call not completed (rank_facts.open_head): as of its dump the rank
 * had finished everything before it. */
static void note_open_heads(decider *d) {
    for (size_t i = 0; i < d->m->nops; i++)
        for (uint32_t k = 0; k < d->m->ops[i].ncalls; k++) {
            const fa_call *c = &d->m->calls[d->m->ops[i].first_call + k];
            long node = fa_vg_rank_node(d, d->in->ranks[c->rank_index].rank);
            if (node < 0 || !d->facts[node].stale || c->state == FR_STATE_COMPLETED) continue;
            int64_t rec = fa_call_record_id(d->m, d->in, c, 0);
            if (rec < d->facts[node].open_head) d->facts[node].open_head = rec;
        }
}

/* Marks each rank whose dump may have dropped what it completed (rank_facts.may_drop_done): one
 * that does not begin at record 0 and shows nothing completed. A ring that wrapped but keeps
 * completed entries drops only entries older than those it shows. */
static void note_dropped_done(decider *d) {
    for (size_t i = 0; i < d->in->nranks; i++) {
        const fa_dump *dump = d->in->ranks[i].dump;
        long node = fa_vg_rank_node(d, d->in->ranks[i].rank);
        if (node < 0 || (dump->nentries && fa_entry_record_id(dump, &dump->entries[0]) == 0))
            continue;
        d->facts[node].may_drop_done = !fa_dump_shows_completed(dump);
    }
}

int fa_vw_collect_ranks(decider *d) {
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
                                    .open_head = INT64_MAX,
                                    .has_dump = fa_input_find(d->in, all.v[i]) >= 0,
                                    .missing_op = -1,
                                    .queued_op = -1,
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
            d->facts[node].stale = d->any_stale = true;
            d->facts[node].cut = d->m->rank_stale[i].cut;
            d->facts[node].older = d->m->rank_stale[i].group >= 0;
        }
    }
    note_open_heads(d);
    note_dropped_done(d);
    /* a rank whose file exists but was rejected is unreadable, not absent */
    for (size_t i = 0; i < d->in->nrejected; i++) {
        long node = fa_vg_rank_node(d, d->in->rejected[i].rank);
        if (node >= 0 && !d->facts[node].has_dump)
            d->facts[node].unreadable = d->in->rejected[i].what ? d->in->rejected[i].what : "";
    }
    return 0;
}

/* Per group, whether a member's process crashed (its dump's trigger "fatal:N"): a new array of
 * d->groups->n flags, or NULL without memory. */
static bool *groups_with_a_crash(const decider *d) {
    bool *crash = calloc(d->groups->n + 1, sizeof *crash);
    for (size_t g = 0; crash && g < d->groups->n; g++) {
        const fa_group *grp = &d->groups->v[g];
        for (uint32_t k = 0; k < grp->nmembers && !crash[g]; k++) {
            long node = fa_vg_rank_node(d, grp->members[k]);
            crash[g] = node >= 0 && d->facts[node].crashed;
        }
    }
    return crash;
}

/* The communicators of a recorder dump in state "async_error:X", in d->async_error; but not
 * ncclRemoteError in a group where a member crashed: that is what NCCL reports to the survivors
 * of a peer that died (a problem on a remote peer), the crash explains it, and the rank waits on
 * the dead one like any other member (random recorder jobs 244, 270: the survivor was named
 * instead of the rank that crashed). Another error, or a remote one with no crash to explain
 * it, is the rank's own. */
static int read_async_errors(decider *d) {
    static const char async[] = FR_COMM_ASYNC_ERROR_PREFIX;
    bool *crash = NULL;
    for (size_t i = 0; i < d->in->nranks; i++) {
        const fa_dump *dump = d->in->ranks[i].dump;
        long node = fa_vg_rank_node(d, d->in->ranks[i].rank);
        for (uint32_t c = 0; node >= 0 && c < dump->ncomms; c++) {
            const char *state = dump->comms[c].state;
            long group = fa_groups_find(d->groups, i, dump->comms[c].pg_name);
            if (!state || group < 0 || strncmp(state, async, sizeof async - 1) != 0) continue;
            const char *error = state + sizeof async - 1;
            if (strcmp(error, FR_NCCL_REMOTE_ERROR) == 0) {
                if (!crash && !(crash = groups_with_a_crash(d))) return -1;
                if (crash[group]) continue;
            }
            if (fa_imap_put(&d->async_error, (uint64_t)node * d->groups->n + (uint64_t)group,
                            (uint64_t)(uintptr_t)error)) {
                free(crash);
                return -1;
            }
        }
    }
    free(crash);
    return 0;
}

/* What a recorder dump says of its own rank: trigger "fatal:N" (crashed), "stuck_in_api",
 * "timeout" (its watchdog saw its oldest pending op outlive the timeout), and
 * communicators in state "async_error:X" (read_async_errors, once every crash is known).
 * PyTorch dumps have no trigger and no comms. */
int fa_vw_read_self_reports(decider *d) {
    static const char fatal[] = FR_TRIGGER_FATAL_PREFIX;
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
        f->timed_out = dump->trigger && strcmp(dump->trigger, FR_TRIGGER_TIMEOUT) == 0;
    }
    return read_async_errors(d);
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

/* The screening of every op for build_graph, on every core: the OP_* flags of verdict_heads.h. */

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
    bool incomplete = false, started = false, scheduled = false;
    for (uint32_t k = 0; k < o->ncalls; k++) {
        if (c[k].member != k) return false;
        incomplete |= c[k].state != FR_STATE_COMPLETED;
        if (fa_stale_known(&m->rank_stale[c[k].rank_index])) continue;
        started |= c[k].state == FR_STATE_STARTED;
        scheduled |= c[k].state == FR_STATE_SCHEDULED;
    }
    *flags =
        (incomplete ? OP_PENDING | OP_INCOMPLETE : 0) | (started && scheduled ? OP_UNSTARTED : 0);
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
        bool started = false, scheduled = false;
        for (uint32_t k = 0; k < n; k++) {
            if (fa_member_state_pending(states[k])) f |= OP_PENDING;
            if (states[k] == FA_MS_NEVER || states[k] == FA_MS_NO_DUMP) f |= OP_MISSING;
            started |= states[k] == FA_MS_STARTED;
            scheduled |= states[k] == FA_MS_SCHEDULED;
        }
        if (started && scheduled) f |= OP_UNSTARTED;
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
 * that left no dump, and so may one with a member slot of unknown rank; a member may also be a
 * rank whose dump was cut before it said which communicators it had, yet records entries under
 * the group's name (groups.c could not place it: the slot it records is another one). When every
 * member seen waits in one of its ops and none completed it, what they wait for can only be such
 * a member: the op waits on each rank without a dump, and on each such cut-short rank that is not
 * a member already (`silent`, nsilent nodes: silent_cut_ranks). */
static bool records_group_unplaced(const decider *d, int64_t rank, const fa_group *grp) {
    long ri = fa_input_find(d->in, rank);
    if (ri < 0 || fa_group_position(grp, rank) >= 0) return false;
    const fa_dump *dump = d->in->ranks[ri].dump;
    for (uint32_t k = 0; k < dump->npgs; k++)
        if (strcmp(dump->pgs[k].name, grp->name) == 0) return true;
    return false;
}

/* The lone member seen of a rebuilt group, pending in its collective #k (k > 1) after it
 * completed #k-1 there: that one ran with the group's other members, so the group is theirs as
 * much as its own, and #k waits for them; their dumps lost the group (a ring that wrapped, gloo's
 * send/recv unrecorded), and they are behind, blocked elsewhere or stopped. Gloo blocks in its
 * call, so the member is a victim behind them, never a culprit for the waits on it elsewhere
 * (behind_excused; sim seed 5387: rank 16 in its expert group's all_to_all #2, its partner 20
 * blocked behind the stopped rank 21, while its data-parallel group waits for it). A member
 * pending in the group's first collective, nothing completed there, may have issued it on the
 * wrong group, and stays a candidate (sim seed 1337). */
static void excuse_behind_unplaced(decider *d, size_t op) {
    const fa_op *o = &d->m->ops[op];
    const fa_view *v = &d->m->views[d->m->view_at[o->group]];
    long node = fa_vg_rank_node(d, d->groups->v[o->group].members[0]);
    if (node >= 0 && o->seq > 1 && v->completed_max == o->seq - 1)
        d->facts[node].behind_excused = true;
}

static int wait_for_unseen_members(decider *d, uint32_t x, size_t op, size_t pending,
                                   const uint32_t *silent, size_t nsilent) {
    const fa_group *grp = &d->groups->v[d->m->ops[op].group];
    size_t added = 0;
    for (size_t u = 0; u < d->nunseen + nsilent; u++) {
        uint32_t r = u < d->nunseen ? d->unseen[u] : silent[u - d->nunseen];
        rank_facts *f = &d->facts[r];
        if (u >= d->nunseen && !records_group_unplaced(d, f->rank, grp)) continue;
        if (add_edge(&d->g, x, r)) return -1;
        added++;
        f->waited = true;
        note_waited(d, &f->missing_op, &f->missing_waiters, op, pending);
    }
    d->slot_guessed |= added > 1;
    /* Nobody without a dump to wait on, in a group rebuilt as one member: a collective of one
     * never waits, so the members it waits for left dumps that record nothing in the group
     * (gloo names no member: its first collective there, sim seed 8475). The dumps do not say
     * which ranks those are, so the job is not ok (fa_vs_summarize). A group of more, every
     * member waiting, may be a snapshot of a running job. */
    if (!added && grp->inferred && grp->nmembers == 1) {
        if (d->unplaced_op < 0) d->unplaced_op = (long)op;
        excuse_behind_unplaced(d, op);
    }
    return 0;
}

/* The nodes of ranks whose dump was cut short before it listed its communicators: they may
 * belong to any group the dumps could not place every member of. *n receives their count; NULL
 * when out of memory. */
static uint32_t *silent_cut_ranks(const decider *d, size_t *n) {
    uint32_t *out = malloc((d->nfacts + 1) * sizeof *out);
    *n = 0;
    for (size_t i = 0; out && i < d->in->nranks; i++) {
        long node = fa_vg_rank_node(d, d->in->ranks[i].rank);
        if (node >= 0 && d->facts[node].cut && d->in->ranks[i].dump->ncomms == 0)
            out[(*n)++] = (uint32_t)node;
    }
    return out;
}

/* Counts what ran in each group (decider.runs): its collective ops, and whether a send/recv
 * op ran there; and per family (decider.families) its groups that ran send/recv, and of those
 * the ones that ran a collective too. One pass over the ops and one over the groups; runs NULL
 * when out of memory. */
static void count_group_runs(decider *d) {
    d->runs = calloc(d->groups->n + 1, sizeof *d->runs);
    for (size_t i = 0; d->runs && i < d->m->nops; i++) {
        const fa_op *x = &d->m->ops[i];
        if (x->is_p2p)
            d->runs[x->group].p2p = true;
        else
            d->runs[x->group].collectives++;
    }
    if (!d->runs || fa_vo_families(d->groups, &d->families) != 0) return;
    d->family_runs = calloc(d->families.n + 1, sizeof *d->family_runs);
    for (size_t g = 0; d->family_runs && g < d->groups->n; g++) {
        uint32_t f = d->families.of[g];
        if (f == FA_NO_FAMILY || !d->runs[g].p2p) continue;
        d->family_runs[f].p2p++;
        d->family_runs[f].busy += d->runs[g].collectives > 0;
    }
}

/* family_p2p_only's answer the long way, every other group tested (a family whose groups share
 * members, or counts lost to a lack of memory). */
static bool family_p2p_only_scan(const decider *d, uint32_t g) {
    bool sibling = false;
    for (size_t k = 0; k < d->groups->n; k++) {
        if (k == g || !d->runs[k].p2p || !fa_vo_one_family(&d->groups->v[g], &d->groups->v[k]))
            continue;
        if (d->runs[k].collectives > 0) return false;
        sibling = true;
    }
    return sibling;
}

/* Whether the other groups of group g's family that ran send/recv (at least one) ran no
 * collective; the family's counts less g's own, or the scan where they cannot say; asked once
 * per group (decider.runs is written through the const decider: a cache, not a decision). */
static bool family_p2p_only(const decider *d, uint32_t g) {
    group_runs *r = &d->runs[g];
    if (r->family_p2p_only == 0) {
        uint32_t f = d->families.of ? d->families.of[g] : FA_NO_FAMILY;
        bool only;
        if (d->families.of && f == FA_NO_FAMILY) {
            only = false; /* no other group is of its family */
        } else if (d->family_runs && d->families.partition[f]) {
            uint32_t others = d->family_runs[f].p2p - r->p2p;
            uint32_t busy = d->family_runs[f].busy - (r->p2p && r->collectives > 0);
            only = others > 0 && busy == 0;
        } else {
            only = family_p2p_only_scan(d, g);
        }
        r->family_p2p_only = only ? 1 : -1;
    }
    return r->family_p2p_only > 0;
}

/* Whether collective `op`, issued by one member of a group of two, is one its family never runs:
 * the other member's dump shows it never issued it; its own group ran send/recv and no other
 * collective; and the groups of its family that ran send/recv (at least one: the other pipeline
 * pairs) ran no collective. Of the two members of the pair, the one that ran a collective where
 * the program runs none left it (it issued the op in the wrong group), as a lonely op of a larger
 * group says (tests/sim seed 2026: rank 348's all_reduce #1 in its pipeline pair {348, 724}, 724
 * pending elsewhere; the other pairs ran send/recv only). A group of the family that ran no
 * send/recv is no witness: undescribed groups are one family by their shift, and an embedding
 * pair of the first and last stages is a pipeline pair shifted. Without a sibling (a job of two
 * ranks, seeds 8558, 9888) nothing says which of the two left the program: both stay named.
 * NCCL's counters only: the recorder numbers launches, and its pairs' cycles keep both named
 * (sim seed 7266: 39's all_reduce in its cp pair beside 47, E3's tie of launch numbers). */
static bool lonely_in_pair(const decider *d, size_t op) {
    const fa_op *o = &d->m->ops[op];
    uint32_t other = 1 - d->m->calls[o->first_call].member;
    if (d->m->views[d->m->view_at[o->group] + other].launch_numbered ||
        d->m->views[d->m->view_at[o->group] + 1 - other].launch_numbered ||
        fa_op_member_state(d->m, d->groups, op, other) != FA_MS_NEVER)
        return false;
    if (!d->runs) return false; /* out of memory: the stricter reading */
    const group_runs *own = &d->runs[o->group];
    return own->p2p && own->collectives == 1 && family_p2p_only(d, o->group);
}

/* Whether collective `op` is one that a single member issued while every other member of a
 * group of three or more provably never did (each with a dump, blocked elsewhere), or may not
 * have (no readable dump, an older one) where more than half provably never did: in a cycle of
 * waits, the one rank that went where nobody else went is the one that left the common program
 * (it issued an op in the wrong group, or ran past one it skipped), the majority's call in
 * database.md. Nobody waits for the others there: the op gets no edges to them (build_graph), so
 * that a cycle through it (the rank waits there for ranks that wait for it elsewhere) leaves it
 * the root it is, and it is no stuck collective either (judge_joined). */
bool fa_vw_lonely_op(const decider *d, long op) {
    const fa_op *o = &d->m->ops[op];
    const fa_group *g = &d->groups->v[o->group];
    if (!o->is_p2p && o->ncalls == 1 && g->nmembers == 2) return lonely_in_pair(d, (size_t)op);
    if (o->is_p2p || o->ncalls != 1 || g->nmembers < 3) return false;
    uint32_t alone = d->m->calls[o->first_call].member, never = 0;
    for (uint32_t k = 0; k < g->nmembers; k++) {
        if (k == alone) continue;
        fa_member_state s = fa_op_member_state(d->m, d->groups, (size_t)op, k);
        if (s != FA_MS_NEVER && !fa_member_state_unknown(s)) return false;
        never += s == FA_MS_NEVER;
    }
    return 2 * never > g->nmembers;
}

/* Of the n members d->states holds for an op of grp: how many have it pending, completed it, and
 * are pending there while surely waiting at their stream's head for a member that never joined
 * (sees_missing). */
static void count_states(const decider *d, const fa_group *grp, uint32_t n,
                         const bool *sees_missing, size_t *pending, size_t *completed,
                         size_t *sure) {
    for (uint32_t k = 0; k < n; k++) {
        fa_member_state s = d->states[k];
        *completed += s == FA_MS_COMPLETED;
        if (!fa_member_state_pending(s)) continue;
        (*pending)++;
        long node = fa_vg_rank_node(d, grp->members[d->members[k]]);
        *sure += node >= 0 && sees_missing[node];
    }
}

/* Whether the others pending in an op wait on `node`, a broken member there (crashed, or its
 * communicator failed) in state s: not where it never issued the op, idle, and nobody waits in
 * the op yet (`behind`: every member pending has it queued behind a sure wait; tests/sim's W1),
 * as an idle member would explain no wait there (sim seed 10673: rank 5's fatal-signal dump,
 * all_reduce #2 queued behind the send/recv that wait on rank 4, which stopped). */
static bool broken_waited_on(const decider *d, long node, fa_member_state s, uint32_t group,
                             bool behind, long unwaited) {
    return s != FA_MS_COMPLETED && fa_vg_broken(d, (size_t)node, group) && !behind &&
           node != unwaited;
}

/* A broken member that nobody waits on in op (broken_waited_on's exceptions): it waits on
 * nobody either, so it gets no edge there at all. */
static bool broken_unneeded(const decider *d, long node, fa_member_state s, uint32_t group,
                            bool behind, long unwaited) {
    return s != FA_MS_COMPLETED && fa_vg_broken(d, (size_t)node, group) &&
           (behind || node == unwaited);
}

/* The broken member pending in op whom nobody waits on there: every other member pending has op
 * queued behind its own head, held for good (tests/sim's W1: a rank waits at its head only), so
 * it is a member like the others, blocked at its own head or behind it (sim seed 5696: rank 9's
 * fatal-signal dump, its all_to_all #2 started with rank 1, which has it queued behind a wait for
 * rank 2, killed; nobody's head op waits on rank 9). -1 when there is none. Overwrites
 * d->members and d->states. */
static long broken_unwaited(const decider *d, size_t op, const stream_heads *h) {
    const fa_group *grp = &d->groups->v[d->m->ops[op].group];
    uint32_t n = fa_vg_expected_states(d, op);
    long broken = -1;
    for (uint32_t k = 0; k < n; k++) {
        long node = fa_vg_rank_node(d, grp->members[d->members[k]]);
        if (node < 0 || !fa_member_state_pending(d->states[k]) ||
            !fa_vg_broken(d, (size_t)node, d->m->ops[op].group))
            continue;
        if (broken >= 0) return -1; /* two broken: each may be what the other waits on */
        broken = node;
    }
    return broken >= 0 && fa_vh_others_behind_held(d, op, h, broken) ? broken : -1;
}

/* Whether a member whose dump was cut short explains no wait in op i: as its dump shows, it had
 * joined the op (its oldest call not completed: everything before it finished; tests/sim's W1:
 * arrived; E13), or every member with op pending has it queued behind an older pending call
 * (queued_all: nobody waits in it yet). Then it waits there or has gone on (tests/sim seed 2879:
 * rank 79's cut dump ends in the bundle #11 that every rank has pending, read as "never issued
 * it"). Not an older dump's rank: where a peer waits on it in a send/recv, the alternatives that
 * older dumps open stay (seeds 330, 2557, 2684). */
static bool cut_not_waited(const decider *d, const rank_facts *f, fa_member_state s, size_t i,
                           uint32_t p, bool queued_all) {
    int64_t rec = fa_vg_call_record(d, i, p);
    return s == FA_MS_STALE && f->cut &&
           (queued_all || (rec < INT64_MAX - 1 && rec <= f->open_head));
}

/* Whether op (its n expected states in d->members/d->states) waits on none of its absent
 * members: a collective one member issued where nobody else went (fa_vw_lonely_op), a send/recv
 * posted to the wrong peer, or an op whose every pending member is held by its own wrong end
 * (fa_vw_held_by_wrong_end). */
static bool waits_on_no_absent(const decider *d, size_t op, uint32_t n, size_t pending,
                               const bool *wrong_peer, const int64_t *wrong_from) {
    return (pending == 1 && fa_vw_lonely_op(d, (long)op)) || wrong_peer[op] ||
           fa_vw_held_by_wrong_end(d, op, n, wrong_from);
}

/* The edges of member p (node `node`) pending in op i (op node x, `pending` members pending):
 * to the op and back, but none out of it where its call lies at or after its own send/recv to
 * the wrong peer (wrong_from: fa_vw_wrong_end_records), whose batch holds its stream: nothing
 * it has pending from there on waits on anyone (the wrong end itself keeps its loop: the sink
 * judge finds it there). The others pending in op then wait for it as for a member that never
 * joined: its stream will not reach op (tests/sim seeds 5995, 8682: rank 0's batch received from
 * rank 1, which ran that batch without a send to 0 and waits for 0 in the group's next
 * all_reduce, queued on 0 behind the batch). */
static int add_pending_edges(decider *d, uint32_t x, size_t i, uint32_t p, long node,
                             bool wrong_end, const int64_t *wrong_from, size_t pending) {
    bool self_stuck = !wrong_end && fa_vg_call_record(d, i, p) >= wrong_from[node];
    if ((!self_stuck && add_edge(&d->g, (uint32_t)node, x)) || add_edge(&d->g, x, (uint32_t)node))
        return -1;
    rank_facts *f = &d->facts[node];
    if (self_stuck && pending > 1)
        note_waited(d, &f->queued_op, &f->queued_waiters, i, pending - 1);
    return 0;
}

/* A poster waited for only where it has an op queued behind its own wrong end (queued_op,
 * add_pending_edges) is waited for there; one that some op waits for as absent keeps that op,
 * which says more (its own send/recv). */
static void wait_on_queued_posters(decider *d) {
    for (size_t r = 0; r < d->nfacts; r++) {
        rank_facts *f = &d->facts[r];
        if (f->waited || f->queued_op < 0) continue;
        f->waited = true;
        f->missing_op = f->queued_op;
        f->missing_waiters = f->queued_waiters;
    }
}

/* A rank whose oldest pending op is a collective it issued alone in its pipeline pair where its
 * family never runs one (lonely_in_pair) went where nobody follows: its stream will not get past
 * it, so what it has queued behind waits on nobody, and the others pending there wait for it as
 * for a member that never joined (as behind a send/recv posted to the wrong peer: wrong_from,
 * from the record after the lonely call; sim seed 6370: rank 47's all_reduce in its pair, its
 * data group's all_reduce #3 queued behind it, where ranks 7-79/8 wait, no timing to tell). */
static void held_by_lonely_pairs(const decider *d, int64_t *wrong_from) {
    for (size_t i = 0; i < d->m->nops; i++) {
        const fa_op *o = &d->m->ops[i];
        if (o->is_p2p || o->ncalls != 1 || d->groups->v[o->group].nmembers != 2 ||
            !lonely_in_pair(d, i))
            continue;
        const fa_call *c = &d->m->calls[o->first_call];
        long node = fa_vg_rank_node(d, d->groups->v[o->group].members[c->member]);
        int64_t rec = fa_vg_call_record(d, i, c->member);
        if (node >= 0 && rec < INT64_MAX - 1 && rec + 1 < wrong_from[node])
            wrong_from[node] = rec + 1;
    }
}

/* A member absent from an op gloo ended as failed (fa_vg_ended_failed) that lived to dump: it
 * never issued the op, or its file is there but unreadable. gloo fails an op whose peer died, so
 * it did not end the op, and nobody waits for it there any more (sim seeds 2895, 11823: rank 1's
 * garbage file beside the dead rank 0's missing one). */
static bool lived_to_dump(const decider *d, fa_member_state s, int64_t rank) {
    return s == FA_MS_NEVER || (s == FA_MS_NO_DUMP && fa_vg_left_a_file(d, rank));
}

/* Whether every member pending in the op (its n expected states in d->members/d->states) crashed:
 * its dump was written from a fatal signal's handler, so the process is gone and waits for
 * nobody (tests/sim's W1: a dead rank is never seen waiting). A member absent there then explains
 * no wait (sim seed 12527: rank 1 crashed with all_gather #15 pending in its pair, where rank 0,
 * whose CPU stopped, never issued it; nobody alive waits for rank 0). */
static bool only_crashed_pending(const decider *d, const fa_group *grp, uint32_t n) {
    size_t crashed = 0;
    for (uint32_t k = 0; k < n; k++) {
        if (!fa_member_state_pending(d->states[k])) continue;
        long node = fa_vg_rank_node(d, grp->members[d->members[k]]);
        if (node < 0 || !d->facts[node].crashed) return false;
        crashed++;
    }
    return crashed > 0;
}

int fa_vw_build_graph(decider *d) {
    graph *g = &d->g;
    g->nrank_nodes = d->nfacts;
    g->op_of_node = NULL;
    size_t nop_nodes = 0;
    long *op_nodes = malloc((d->m->nops + 1) * sizeof *op_nodes);
    uint8_t *flags = scan_all_ops(d);
    bool *wrong_peer = fa_vw_wrong_peer_ops(d);
    int64_t *wrong_from = wrong_peer ? fa_vw_wrong_end_records(d, wrong_peer) : NULL;
    stream_heads h;
    int found = flags ? fa_vh_find(d, flags, &h) : -1;
    size_t nsilent = 0;
    uint32_t *silent = silent_cut_ranks(d, &nsilent);
    if (!op_nodes || found || !wrong_peer || !wrong_from || !silent) {
        if (found == 0) fa_vh_free(&h);
        free(silent);
        free(op_nodes);
        free(flags);
        free(wrong_peer);
        free(wrong_from);
        return -1;
    }
    g->op_of_node = op_nodes; /* freed with the graph, whatever happens below */
    count_group_runs(d);
    held_by_lonely_pairs(d, wrong_from);
    int rc = 0;
    for (size_t i = 0; i < d->m->nops && rc == 0; i++) {
        d->inflight += (flags[i] & OP_INCOMPLETE) != 0;
        if (!(flags[i] & OP_PENDING)) continue;
        const fa_op *o = &d->m->ops[i];
        const fa_group *grp = &d->groups->v[o->group];
        bool queued = h.lag && fa_vh_queued_behind_lag(d, i);
        bool behind = fa_vh_queued_behind_held(d, i, &h);
        bool queued_all = d->any_stale && fa_vh_queued_everywhere(d, i, &h);
        long unwaited = broken_unwaited(d, i, &h);
        uint32_t n = fa_vg_expected_states(d, i);
        bool open = false, failed = fa_vg_ended_failed(d, i, d->members, d->states, n, &open);
        size_t pending = 0, completed = 0, sure = 0;
        count_states(d, grp, n, h.sees_missing, &pending, &completed, &sure);
        /* an older dump's rank is presumed gone on: waited on only where nobody else explains
         * the wait (sim's E8), not when a member surely never joined here, or all pending wait */
        bool stale_gone_on =
            (flags[i] & (OP_MISSING | OP_UNSTARTED)) || (pending && sure == pending);
        if (pending == 0) continue;
        uint32_t x = (uint32_t)(g->nrank_nodes + nop_nodes);
        op_nodes[nop_nodes++] = (long)i;
        bool alone = waits_on_no_absent(d, i, n, pending, wrong_peer, wrong_from) ||
                     only_crashed_pending(d, grp, n);
        size_t waiting = 0; /* members pending here that are not broken: they wait */
        for (uint32_t k = 0; k < n; k++) {
            uint32_t p = d->members[k];
            fa_member_state s = d->states[k];
            long node = fa_vg_rank_node(d, grp->members[p]);
            if (node < 0) continue;
            rank_facts *f = &d->facts[node];
            if (broken_unneeded(d, node, s, o->group, behind, unwaited)) continue;
            if (broken_waited_on(d, node, s, o->group, behind, unwaited)) {
                /* it will never get further here: the others pending wait on it, it on nothing,
                 * and what it has pending is no sign of a stopped GPU */
                if ((rc = add_edge(g, x, (uint32_t)node)) != 0) break;
                size_t waiters = pending - fa_member_state_pending(s);
                if (waiters) {
                    f->waited = true;
                    note_waited(d, &f->broken_op, &f->broken_waiters, i, waiters);
                }
            } else if (fa_member_state_pending(s)) {
                waiting++;
                if ((rc = add_pending_edges(d, x, i, p, node, wrong_peer[i], wrong_from, pending)))
                    break;
            } else if (fa_member_state_absent(s) && !alone && !queued &&
                       !(failed && !open && lived_to_dump(d, s, grp->members[p])) &&
                       !(s == FA_MS_STALE && !f->cut && stale_gone_on) &&
                       !cut_not_waited(d, f, s, i, p, queued_all) &&
                       !(behind && fa_vh_unseen_or_idle(s, h.head[node])) &&
                       !fa_vh_maybe_done_unshown(d, i, n, s, &h, node)) {
                if ((rc = add_edge(g, x, (uint32_t)node)) != 0) break;
                f->waited = true;
                f->died |= failed && !open && s == FA_MS_NO_DUMP;
                note_waited(d, &f->missing_op, &f->missing_waiters, i, pending);
            }
        }
        /* a broken member pending alone waits on nobody: no unseen member is waited for there
         * (sim seed 1796: rank 3 crashed in all_gather #12 of a pair whose other slot no dump
         * names; rank 1 or 2 fills it, and neither was waited for there) */
        if (rc == 0 && !completed && pending == n && waiting &&
            (grp->inferred || fa_vg_unknown_slot(grp)))
            rc = wait_for_unseen_members(d, x, i, pending, silent, nsilent);
    }
    wait_on_queued_posters(d);
    free(flags);
    free(wrong_peer);
    fa_vh_free(&h);
    free(wrong_from);
    free(silent);
    if (rc) return -1;
    g->nnodes = g->nrank_nodes + nop_nodes;
    return index_edges(g);
}

/* The k-th neighbour of v over its proven edges; false past the last. */
bool fa_vw_neighbor(const graph *g, size_t v, size_t k, uint32_t *w) {
    if (k >= g->edge_at[v + 1] - g->edge_at[v]) return false;
    *w = g->edges[g->edge_at[v] + k];
    return true;
}

/* Whether the rank at `node` left the program's order itself: it is pending in an op it went to
 * alone (fa_vw_lonely_op), or others wait for it in an op it never issued and the dumps prove it
 * went past (fa_vo_went_past, tests/sim's E15). Whatever else it has pending waits behind its own
 * departure from the program, not behind anyone. */
static bool left_the_order(const decider *d, uint32_t node) {
    const rank_facts *f = &d->facts[node];
    for (size_t e = d->g.edge_at[node]; e < d->g.edge_at[node + 1]; e++) {
        uint32_t x = d->g.edges[e];
        if (x >= d->g.nrank_nodes && fa_vw_lonely_op(d, d->g.op_of_node[x - d->g.nrank_nodes]))
            return true;
    }
    return f->waited && f->missing_op >= 0 && fa_vg_state_known(f) &&
           fa_vo_went_past(d, node, f->missing_op);
}

/* The ranks pending in an op that waited on an excused rank (joined[op node]) and now waits on
 * nobody absent (as many edges out to ranks as in from them: every member left is pending in
 * it), which no member completed, are that rank's victims, blocked behind it or behind what it
 * waits on: never culprits for the waits on them elsewhere (behind_excused). Not a rank that left
 * the order itself (left_the_order): that is where its stream stands, by its own doing
 * (sim seed 12988: rank 3 ran the default group's collective instead of its shard pair's, and
 * has the replicate group's all_reduce, which also waited on rank 5's garbage dump, queued). 0,
 * or -1 when out of memory. */
static int excuse_behind_joined(decider *d, const bool *joined) {
    graph *g = &d->g;
    size_t nops = g->nnodes - g->nrank_nodes;
    long *balance = calloc(nops + 1, sizeof *balance);
    if (!balance) return -1;
    for (size_t e = 0; e < g->nedges; e++) {
        if (g->from[e] >= g->nrank_nodes && g->to[e] < g->nrank_nodes)
            balance[g->from[e] - g->nrank_nodes]++;
        else if (g->to[e] >= g->nrank_nodes && g->from[e] < g->nrank_nodes)
            balance[g->to[e] - g->nrank_nodes]--;
    }
    for (size_t x = 0; x < nops; x++) { /* an op some member completed waits on nobody */
        if (!joined[x] || balance[x]) continue;
        uint32_t n = fa_vg_expected_states(d, (size_t)g->op_of_node[x]);
        for (uint32_t k = 0; k < n && balance[x] == 0; k++)
            balance[x] = d->states[k] == FA_MS_COMPLETED;
    }
    for (size_t e = 0; e < g->nedges; e++) {
        uint32_t x = g->to[e];
        if (g->from[e] < d->nfacts && x >= g->nrank_nodes && joined[x - g->nrank_nodes] &&
            balance[x - g->nrank_nodes] == 0 && !left_the_order(d, g->from[e]))
            d->facts[g->from[e]].behind_excused = true;
    }
    free(balance);
    return 0;
}

/* Ranks of unknown state that the doubts excused may have joined the ops the others wait for
 * them in: the ops no longer wait on them, and the components are found again, so that what
 * holds those ops up is judged from proof (a member that never started it, a stuck collective). */
int fa_vw_join_excused_unknowns(decider *d) {
    graph *g = &d->g;
    size_t kept = 0;
    bool *joined = calloc(g->nnodes - g->nrank_nodes + 1, 1);
    if (!joined) return -1;
    for (size_t e = 0; e < g->nedges; e++) {
        uint32_t to = g->to[e];
        bool drop = to < d->nfacts && g->from[e] >= g->nrank_nodes &&
                    d->facts[to].doubt == FA_DOUBT_EXCUSED && !fa_vg_state_known(&d->facts[to]);
        if (drop) {
            joined[g->from[e] - g->nrank_nodes] = true;
            continue;
        }
        g->from[kept] = g->from[e];
        g->to[kept++] = to;
    }
    bool any = kept != g->nedges;
    g->nedges = kept;
    int rc = any ? excuse_behind_joined(d, joined) : 0;
    if (!any || rc) {
        free(joined);
        return rc;
    }
    free(d->joined_ops);
    d->joined_ops = (uint8_t *)joined;
    free(d->comp);
    d->comp = NULL;
    d->ncomps = 0;
    return index_edges(g) || fa_vw_components(d) ? -1 : 0;
}

/* Iterative Tarjan over the proven edges: d->comp[node] = component id. */
int fa_vw_components(decider *d) {
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
            if (fa_vw_neighbor(g, v, next_edge[v], &w)) {
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
