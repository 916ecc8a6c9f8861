/* verdict_sinks.c — judging the wait graph's sink components (judge_sinks): in each, the ranks
 * that hold the others up and why (a crash or a failed communicator of their own, GPU lag, an op
 * they never issued, a collective stuck with every member in it), one finding per cause; ranks
 * that their own history excuses (blocked before, a send/recv to the wrong peer) are victims.
 * Outside the sinks, a rank whose GPU stalled in its oldest pending op, which every other member
 * completed, is a root of its own (stalled_alone).
 */
#include "verdict/verdict_graph.h"
#include "verdict/verdict_possible.h"
#include "verdict/verdict_steps.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* Whether op is the oldest call not completed in the dump of a member whose own watchdog timed
 * out (rank_facts.timed_out): the recorder dumps "timeout" for its oldest pending entry once that
 * outlived the timeout, so the dump proves this op ran past it. */
static bool timed_out_here(const decider *d, size_t op) {
    const fa_op *o = &d->m->ops[op];
    for (uint32_t k = 0; k < o->ncalls; k++) {
        const fa_call *c = &d->m->calls[o->first_call + k];
        const fa_dump *dump = d->in->ranks[c->rank_index].dump;
        long node = fa_vg_rank_node(d, d->in->ranks[c->rank_index].rank);
        if (node < 0 || !d->facts[node].timed_out || d->facts[node].stale) continue;
        int64_t rec = fa_call_record_id(d->m, d->in, c, 0);
        bool oldest = true;
        for (uint32_t i = 0; i < dump->nentries && oldest; i++)
            oldest =
                fa_entry_traits(d->in->store, &dump->entries[i])->state == FR_STATE_COMPLETED ||
                fa_entry_record_id(dump, &dump->entries[i]) >= rec;
        if (oldest) return true;
    }
    return false;
}

/* Every member has op scheduled, none started it (no start events recorded: FRTRACE_GPU_EVENTS=1
 * writes end events only), none completed it, with work queued behind it, and a member's own
 * watchdog timed out on it: not a snapshot of a running job (man/frtrace.1, VERDICT: ok) but a
 * collective stuck past the timeout, like one started everywhere (random_rec_jobs seed 253: a
 * stream stalled before all_reduce #7, every rank's dump showing it scheduled). No culprit: the
 * dumps do not show whose stream stopped. */
static void judge_timed_out(decider *d, size_t op, const fa_ranks *scheduled, bool queued) {
    const fa_op *o = &d->m->ops[op];
    if (!queued || o->is_p2p || scheduled->n != fa_vg_expected_states(d, op) ||
        !timed_out_here(d, op) || find_op_finding(d, FA_STUCK_COLLECTIVE, (long)op, 0))
        return;
    fa_finding *x = fa_findings_add(d->findings, FA_STUCK_COLLECTIVE, (long)o->group, (long)op);
    if (!x) return;
    x->cause = FA_CAUSE_TIMEOUT;
    for (size_t i = 0; i < scheduled->n; i++) fa_ranks_add(&x->others, scheduled->v[i]);
    char group[300], label[200];
    fa_vg_context(d, op, group, sizeof group, label, sizeof label);
    fa_finding_set_detail(x,
                          "every member has %s %s pending and none completed it, with more work "
                          "queued behind, past the watchdog's timeout: suspect the GPU or the "
                          "network",
                          group, label);
}

/* Every member joined, nothing is missing: who never started it, or is it simply stuck?
 * nodes[0..nn) are the component's nodes, ascending. */
static void judge_joined(decider *d, const uint32_t *nodes, size_t nn) {
    for (size_t k = 0; k < nn; k++) {
        size_t n = nodes[k];
        if (n < d->g.nrank_nodes) continue;
        size_t op = (size_t)d->g.op_of_node[n - d->g.nrank_nodes];
        if (fa_vw_lonely_op(d, (long)op)) continue; /* ahead of the others, not stuck */
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
        if (!started.n) judge_timed_out(d, op, &scheduled, queued);
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

/* Whether undescribed groups a and b are one group shifted: of one size (two or more), b's
 * member at each group rank that of a plus one offset, every member known. The groups of one
 * dimension of a Megatron or DeviceMesh layout are so ({12,44}, {16,48}); a group of another
 * dimension may be too (pipeline and embedding groups of two stages), so the callers match an
 * op's counterpart by its name and number as well. */
static bool shifted(const fa_group *a, const fa_group *b) {
    if (a->nmembers != b->nmembers || a->nmembers < 2 || a->members[0] < 0 || b->members[0] < 0)
        return false;
    int64_t offset = b->members[0] - a->members[0];
    for (uint32_t p = 1; p < a->nmembers; p++)
        if (a->members[p] < 0 || b->members[p] < 0 || b->members[p] - a->members[p] != offset)
            return false;
    return true;
}

/* Whether groups a and b are of one family (one description, named by the program: the groups
 * of an SPMD program's family run the same numbered collectives in the same order; without a
 * description, as the recorder and gloo jobs often leave them, one group shifted: tests/sim
 * seeds 4058, 5690, where a rank ran its data-parallel collective on its pipeline or tensor
 * group and only the shifted groups of the other ranks said which order the program runs). */
static bool one_family(const fa_group *a, const fa_group *b) {
    if (a == b) return true;
    if (fa_desc_says_nothing(a->desc) && fa_desc_says_nothing(b->desc)) return shifted(a, b);
    return a->desc[0] && strcmp(a->desc, "default_pg") != 0 && strcmp(a->desc, "undefined") != 0 &&
           strcmp(a->desc, b->desc) == 0;
}

/* Whether group g may hold the counterpart of an op of group `of`, asked beside an op of group
 * `other`: of itself, or a group of its family, unless g is undescribed and of other's family
 * too (a pipeline and an embedding group of the same two stages are one group shifted each: an
 * all_reduce #1 in a rank's embedding group is no counterpart of an all_reduce #1 that another
 * ran in its pipeline group, nor of its embedding one, when either may be meant). */
static bool stands_for(const fa_group *g, const fa_group *of, const fa_group *other) {
    if (g == of) return true;
    if (!one_family(g, of)) return false;
    return !fa_desc_says_nothing(g->desc) || (g != other && !one_family(g, other));
}

enum { ORDER_WITNESSES = 8 };

/* What input rank wi's history says of the program's order: +1 when it issued the `first`
 * family's #first_seq before the `second` family's #second_seq, -1 after, 0 when it holds
 * only one of them (or neither). */
static int witness_order(const decider *d, size_t wi, const fa_op *first, const fa_op *second) {
    const fa_dump *dump = d->in->ranks[wi].dump;
    const fa_group *gf = &d->groups->v[first->group], *gs = &d->groups->v[second->group];
    int64_t at_first = -1, at_second = -1;
    for (uint32_t i = 0; i < dump->nentries && (at_first < 0 || at_second < 0); i++) {
        const fa_entry *e = &dump->entries[i];
        int64_t seq = fa_entry_coll_seq(dump, e);
        if ((seq != first->seq && seq != second->seq) || fa_entry_traits(d->in->store, e)->is_p2p)
            continue;
        long g = fa_groups_find(d->groups, wi, dump->pgs[fa_entry_pg(d->in->store, e)].name);
        if (g < 0) continue;
        if (at_first < 0 && seq == first->seq && stands_for(&d->groups->v[g], gf, gs))
            at_first = fa_entry_record_id(dump, e);
        else if (at_second < 0 && seq == second->seq && stands_for(&d->groups->v[g], gs, gf))
            at_second = fa_entry_record_id(dump, e);
    }
    return at_first < 0 || at_second < 0 ? 0 : at_first < at_second ? 1 : -1;
}

/* Whether input rank wi is itself waited on in an op it never issued: its own order is what is
 * in doubt (it may have gone where nobody else went), so it witnesses nothing of the program's
 * (sim seeds 1981, 836: a rank that ran an all_reduce in its TP group instead of its DP group
 * said its partner, blocked before that op, had left it out). Not a rank pending in that op's
 * group at an earlier number: it is blocked before the op, on its way there, and its order
 * stands (sim seed 3964: a rank stuck in its TP all_reduce, which its partner left out, with the
 * world's all_reduce before the one it never issued still pending, is the witness that names
 * the partner). */
static bool accused(const decider *d, size_t wi) {
    long node = fa_vg_rank_node(d, d->in->ranks[wi].rank);
    if (node < 0 || !d->facts[node].waited || d->facts[node].missing_op < 0) return false;
    const fa_op *missing = &d->m->ops[d->facts[node].missing_op], *pending;
    for (size_t at = d->g.edge_at[node]; (pending = next_pending(d, (size_t)node, &at)) != NULL;)
        if (pending->group == missing->group && pending->seq < missing->seq) return false;
    return true;
}

/* The program's order of `pending` and `missing` as the ranks that issued either of them tell
 * it (their own history: what they issued in those groups' families, and in which order):
 * +1 pending comes first, -1 missing does, 0 no witness or no majority. The rank itself
 * (input ri) is no witness; at most ORDER_WITNESSES others are asked. */
static int program_order(const decider *d, long ri, const fa_op *pending, const fa_op *missing) {
    int votes = 0, asked = 0;
    const fa_op *ops[] = { pending, missing };
    for (int o = 0; o < 2 && asked < ORDER_WITNESSES; o++)
        for (uint32_t k = 0; k < ops[o]->ncalls && asked < ORDER_WITNESSES; k++) {
            size_t wi = d->m->calls[ops[o]->first_call + k].rank_index;
            if ((long)wi == ri || accused(d, wi)) continue;
            int says = witness_order(d, wi, pending, missing);
            votes += says;
            asked += says != 0;
        }
    return (votes > 0) - (votes < 0);
}

/* The component's word on a cycle (tests/sim's E11: the fault rank is the one whose order the
 * others contradict). A rank pending in op P while others wait on it in op M that it never
 * issued claims "P before M". Another rank of its sink component that is a member of both ops'
 * families (a sibling TP group runs the same program) says which came first for it: having
 * issued M's counterpart and not P's, or M's first, it contradicts; P's first, it agrees. The
 * skipper is the minority, so two voters at least and a majority decide. Unlike program_order's
 * witnesses, a voter need not have issued both: in a fresh cycle nobody has (real random seeds
 * 35, 161: a skipped world barrier). Voters are capped: cycles are small. */
enum { MAX_ORDER_VOTERS = 64 };

/* The record_id of input rank ri's entry that stands where op does (its seq and name, in op's
 * group or one of its family), or -1. */
static int64_t counterpart(const decider *d, size_t ri, const fa_op *op, const fa_op *other) {
    const fa_entry *rep = fa_op_rep_entry(d->m, op);
    if (!rep) return -1;
    uint32_t name = fa_entry_traits(d->in->store, rep)->name;
    const fa_dump *dump = d->in->ranks[ri].dump;
    for (uint32_t i = dump->nentries; i-- > 0;) {
        const fa_entry *e = &dump->entries[i];
        const fa_traits *t = fa_entry_traits(d->in->store, e);
        if (t->is_p2p || t->name != name || fa_entry_coll_seq(dump, e) != op->seq) continue;
        long gi = fa_groups_find(d->groups, ri, dump->pgs[fa_entry_pg(d->in->store, e)].name);
        if (gi >= 0 &&
            stands_for(&d->groups->v[gi], &d->groups->v[op->group], &d->groups->v[other->group]))
            return fa_entry_record_id(dump, e);
    }
    return -1;
}

/* Whether input rank ri is a member of a group of op's family: only then does the lack of its
 * counterpart say that it has not got there yet. */
static long family_group(const decider *d, size_t ri, const fa_op *op) {
    const fa_dump *dump = d->in->ranks[ri].dump;
    for (uint32_t k = 0; k < dump->npgs; k++) {
        long gi = fa_groups_find(d->groups, ri, dump->pgs[k].name);
        if (gi >= 0 && one_family(&d->groups->v[gi], &d->groups->v[op->group])) return gi;
    }
    return -1;
}

static bool in_family(const decider *d, size_t ri, const fa_op *op) {
    return family_group(d, ri, op) >= 0;
}

/* Whether input rank ri's dump would hold its entry numbered seq in group gi, had the rank
 * issued one: it kept every entry from its first (record_id 0), or it holds an entry of that
 * group numbered below seq (a send/recv too, where the recorder numbers launches alike); a ring
 * drops the oldest entries, never one between two it kept. */
static bool window_reaches(const decider *d, size_t ri, long gi, int64_t seq) {
    const fa_dump *dump = d->in->ranks[ri].dump;
    if (dump->nentries && fa_entry_record_id(dump, &dump->entries[0]) == 0) return true;
    for (uint32_t i = 0; i < dump->nentries; i++) {
        const fa_entry *e = &dump->entries[i];
        int64_t n = fa_entry_traits(d->in->store, e)->is_p2p
                        ? (dump->launch_numbered ? fa_entry_p2p_seq(dump, e) : -1)
                        : fa_entry_coll_seq(dump, e);
        if (n >= 1 && n < seq &&
            fa_groups_find(d->groups, ri, dump->pgs[fa_entry_pg(d->in->store, e)].name) == gi)
            return true;
    }
    return false;
}

/* The group of op's family that input rank ri is a member of, by the job's groups (its dump
 * need not name a group it never ran anything in), or -1. */
static long member_of_family(const decider *d, size_t ri, const fa_op *op) {
    const fa_group *of = &d->groups->v[op->group];
    for (size_t gi = 0; gi < d->groups->n; gi++)
        if (one_family(of, &d->groups->v[gi]) &&
            fa_group_position(&d->groups->v[gi], d->in->ranks[ri].rank) >= 0)
            return (long)gi;
    return -1;
}

/* Whether input rank ri's dump proves it has not issued op's counterpart, which it lacks: where
 * op's group has a description, as before, its lack (the families' voters' word, real random
 * seeds 35, 161); in an undescribed group's family (one group shifted), only a dump that keeps
 * completed entries (not an only-active one, which drops them: sim seed 1145) and whose window
 * reaches back below op's number in its group of that family. */
static bool absent_proven(const decider *d, size_t ri, const fa_op *op) {
    if (!fa_desc_says_nothing(d->groups->v[op->group].desc)) return true;
    const fa_dump *dump = d->in->ranks[ri].dump;
    bool keeps_completed = false;
    for (uint32_t i = 0; i < dump->nentries && !keeps_completed; i++)
        keeps_completed =
            fa_entry_traits(d->in->store, &dump->entries[i])->state == FR_STATE_COMPLETED;
    long gi = member_of_family(d, ri, op);
    return keeps_completed && gi >= 0 && window_reaches(d, ri, gi, op->seq);
}

/* +1 when the ranks of the component mine[0..n) other than `node` that are members of both
 * families mostly put `pending` first (the rank is blocked before `missing`), -1 when they
 * mostly put `missing` first (it went past it), 0 undecided. */
static int order_vote(const decider *d, const uint32_t *mine, size_t n, size_t node,
                      const fa_op *pending, const fa_op *missing) {
    int agree = 0, contradict = 0, asked = 0;
    for (size_t k = 0; k < n && asked < MAX_ORDER_VOTERS; k++) {
        long ri = mine[k] == node ? -1 : fa_input_find(d->in, d->facts[mine[k]].rank);
        if (ri < 0 || !d->facts[mine[k]].has_dump || !in_family(d, (size_t)ri, pending) ||
            !in_family(d, (size_t)ri, missing))
            continue;
        asked++;
        int64_t p = counterpart(d, (size_t)ri, pending, missing),
                m = counterpart(d, (size_t)ri, missing, pending);
        if (m >= 0 && (p < 0 ? absent_proven(d, (size_t)ri, pending) : m < p))
            contradict++;
        else if (p >= 0 && (m < 0 ? absent_proven(d, (size_t)ri, missing) : p < m))
            agree++;
    }
    if (agree + contradict < 2 || agree == contradict) return 0;
    return agree > contradict ? 1 : -1;
}

/* What input rank ri's sends and recvs in `group` numbered p2p #seq say of one named `name` (a
 * traits' profiling name: kind and group-relative direction): +1 one of them is it, -1 it holds
 * some and none is it, 0 it holds none. A batch numbers its sends and recvs alike, so one
 * number may hold several (sim seed 4569: a stage's recv, its oldest pending, beside the send
 * of its batch that its siblings list first, read as another operation at that number). */
static int p2p_word_at(const decider *d, size_t ri, uint32_t group, int64_t seq, uint32_t name) {
    const fa_dump *dump = d->in->ranks[ri].dump;
    long slot = -1;
    int word = 0;
    for (uint32_t k = 0; k < dump->npgs && slot < 0; k++)
        if (fa_groups_find(d->groups, ri, dump->pgs[k].name) == (long)group) slot = k;
    for (uint32_t i = 0; slot >= 0 && i < dump->nentries; i++) {
        const fa_entry *e = &dump->entries[i];
        const fa_traits *t = fa_entry_traits(d->in->store, e);
        if (t->pg != (uint32_t)slot || !t->is_p2p || fa_entry_p2p_seq(dump, e) != seq) continue;
        const fa_opinfo *op = fa_store_op(d->in->store, t->name);
        if (!op->is_send && !op->is_recv) continue;
        if (t->name == name) return 1;
        word = -1;
    }
    return word;
}

/* For a send/recv that the rank at `node` is absent from, in group G: the groups of G's family
 * (one program, tests/sim's pipeline groups) hold, at the member in the rank's place, the same
 * numbered send/recv as it. Where they hold the one it has pending in G (its oldest there) by
 * its number, it follows the program and has not got to the missing one: +1; where they hold
 * another one there, it left out what the program has at that number and went on: -1 (sim seed
 * 5944: rank 3 skipped its recv from 7 and posts its next send at the recv's number, which its
 * sibling stages hold as that recv). Two voters at least and a majority decide; else 0. */
static int p2p_family_vote(const decider *d, size_t node, const fa_op *missing) {
    const fa_group *g = &d->groups->v[missing->group];
    long pos = fa_group_position(g, d->facts[node].rank);
    const fa_entry *own = NULL;
    int64_t seq = INT64_MAX;
    for (size_t e = d->g.edge_at[node]; pos >= 0 && e < d->g.edge_at[node + 1]; e++) {
        uint32_t x = d->g.edges[e];
        if (x < d->g.nrank_nodes) continue;
        size_t op = (size_t)d->g.op_of_node[x - d->g.nrank_nodes];
        const fa_op *o = &d->m->ops[op];
        const fa_call *c =
            o->is_p2p && o->group == missing->group ? fa_op_call(d->m, op, (uint32_t)pos) : NULL;
        if (!c) continue;
        const fa_entry *ce = fa_call_entry(d->m, d->in, c, 0);
        int64_t s = fa_entry_p2p_seq(d->in->ranks[c->rank_index].dump, ce);
        if (s < seq) seq = s, own = ce;
    }
    if (!own) return 0;
    uint32_t name = fa_entry_traits(d->in->store, own)->name;
    int agree = 0, contradict = 0, asked = 0;
    for (size_t gi = 0; gi < d->groups->n && asked < MAX_ORDER_VOTERS; gi++) {
        const fa_group *sib = &d->groups->v[gi];
        if (sib == g || sib->nmembers != g->nmembers || !one_family(sib, g)) continue;
        long ri = fa_input_find(d->in, sib->members[pos]);
        int word = ri >= 0 ? p2p_word_at(d, (size_t)ri, (uint32_t)gi, seq, name) : 0;
        asked += word != 0;
        agree += word > 0;
        contradict += word < 0;
    }
    if (agree + contradict < 2 || agree == contradict) return 0;
    return agree > contradict ? 1 : -1;
}

/* One voter's word for sibling_vote: +1 it issued `pending`'s counterpart first, -1
 * `missing`'s, 0 it cannot say. A voter that holds one op's counterpart and not the other's says
 * which came first only when its window reaches back below the absent one's number. */
static int sibling_word(const decider *d, size_t ri, const fa_op *pending, const fa_op *missing) {
    long pg = member_of_family(d, ri, pending), mg = member_of_family(d, ri, missing);
    if (pg < 0 || mg < 0) return 0;
    int64_t pr = counterpart(d, ri, pending, missing), mr = counterpart(d, ri, missing, pending);
    if (mr >= 0 &&
        (pr >= 0 ? mr < pr
                 : window_reaches(d, ri, pg, pending->seq) && absent_proven(d, ri, pending)))
        return -1;
    if (pr >= 0 &&
        (mr >= 0 ? pr < mr
                 : window_reaches(d, ri, mg, missing->seq) && absent_proven(d, ri, missing)))
        return 1;
    return 0;
}

/* The word of the job's ranks where the component's cannot tell (a cycle of two ranks that
 * only wait on each other, in two groups they share): the members, by the job's groups, with a
 * fresh dump and not waited on for an op they never issued themselves (accused), of the groups
 * of either op's family (their own groups and the sibling groups, which run the same program),
 * as order_vote asks its voters, each once. +1 pending first, -1 missing first, 0 undecided
 * (fewer than two voters, or a tie). Where the two groups are a pipeline and an embedding group
 * of the same two stages without descriptions, no sibling can tell them apart (stands_for) and
 * the cycle stays undecided (sim seeds 4996, 7859). */
static int sibling_vote(const decider *d, size_t node, const fa_op *pending, const fa_op *missing) {
    const fa_group *fams[] = { &d->groups->v[pending->group], &d->groups->v[missing->group] };
    size_t voters[MAX_ORDER_VOTERS], nvoters = 0;
    int agree = 0, contradict = 0;
    for (int f = 0; f < 2; f++)
        for (size_t gi = 0; gi < d->groups->n && nvoters < MAX_ORDER_VOTERS; gi++) {
            const fa_group *g = &d->groups->v[gi];
            if (!one_family(fams[f], g)) continue;
            for (uint32_t p = 0; p < g->nmembers && nvoters < MAX_ORDER_VOTERS; p++) {
                long ri = g->member_input[p], vn = ri >= 0 ? fa_vg_rank_node(d, g->members[p]) : -1;
                if (vn < 0 || (size_t)vn == node || d->facts[vn].stale || accused(d, (size_t)ri))
                    continue;
                bool asked = false;
                for (size_t k = 0; k < nvoters && !asked; k++) asked = voters[k] == (size_t)ri;
                if (asked) continue;
                voters[nvoters++] = (size_t)ri;
                int says = sibling_word(d, (size_t)ri, pending, missing);
                agree += says > 0;
                contradict += says < 0;
            }
        }
    if (agree + contradict < 2 || agree == contradict) return 0;
    return agree > contradict ? 1 : -1;
}

/* The order of the op the rank waits in and `missing_op`, the one others wait for it in: +1 when
 * its history (or its peers') puts the pending op first (it is blocked before reaching the
 * missing one), -1 when the missing op comes first (it went past it: it skipped it), 0 when
 * nothing tells. */
static int pending_order(const decider *d, size_t node, long missing_op, const uint32_t *mine,
                         size_t nmine) {
    const rank_facts *f = &d->facts[node];
    long ri = fa_input_find(d->in, f->rank);
    const fa_op *missing = &d->m->ops[missing_op], *pending;
    if (ri < 0) return 0;
    if (missing->is_p2p) return p2p_family_vote(d, node, missing);
    /* one group first (launch-numbered dumps, where another op took the missing one's number):
     * pending before it, the rank never got there; pending after it, it went past */
    for (size_t at = d->g.edge_at[node]; (pending = next_pending(d, node, &at)) != NULL;)
        if (pending->group == missing->group) return pending->seq < missing->seq ? 1 : -1;
    /* across groups, in a job of two ranks: each side's history holds its own order only and no
     * third rank says which one the program runs (tests/sim's E11: both are named, as the two
     * sides of a two-member mismatch; seeds 6689, 5155) */
    if (d->nfacts <= 2) return 0;
    /* the component's vote, then the others' histories: where the ranks that issued the two
     * ops ran them in one order */
    for (size_t at = d->g.edge_at[node]; (pending = next_pending(d, node, &at)) != NULL;) {
        int order = pending->group != missing->group
                        ? order_vote(d, mine, nmine, node, pending, missing)
                        : 0;
        if (order) return order;
    }
    for (size_t at = d->g.edge_at[node]; (pending = next_pending(d, node, &at)) != NULL;) {
        int order = program_order(d, ri, pending, missing);
        if (order) return order;
    }
    for (size_t at = d->g.edge_at[node]; (pending = next_pending(d, node, &at)) != NULL;) {
        int order = pending->group != missing->group ? sibling_vote(d, node, pending, missing) : 0;
        if (order) return order;
    }
    if (missing->seq < 2) return 0;
    for (size_t at = d->g.edge_at[node]; (pending = next_pending(d, node, &at)) != NULL;) {
        if (pending->seq < 2) continue;
        int64_t before_pending = record_at(d, (size_t)ri, pending->group, pending->seq - 1);
        int64_t before_missing = record_at(d, (size_t)ri, missing->group, missing->seq - 1);
        if (before_pending >= 0 && before_missing >= 0)
            return before_pending < before_missing ? 1 : -1;
    }
    return 0;
}

static bool blocked_before(const decider *d, size_t node, long missing_op, const uint32_t *mine,
                           size_t nmine) {
    return pending_order(d, node, missing_op, mine, nmine) > 0;
}

/* Whether the rank waits in a lonely op: whatever its history says, it went there alone. */
static bool waits_alone(const decider *d, size_t node) {
    for (uint32_t at = d->g.edge_at[node]; at < d->g.edge_at[node + 1]; at++) {
        uint32_t x = d->g.edges[at];
        if (x >= d->g.nrank_nodes &&
            fa_vw_lonely_op(d, (long)d->g.op_of_node[x - d->g.nrank_nodes]))
            return true;
    }
    return false;
}

enum { MAX_MISSING_ASKED = 16 };

/* Whether the rank at `node` has no edge to op node x: in an op that waits on it, it is absent. */
static bool absent_from(const decider *d, size_t node, uint32_t x) {
    for (size_t e = d->g.edge_at[node]; e < d->g.edge_at[node + 1]; e++)
        if (d->g.edges[e] == x) return false;
    return true;
}

/* Whether blocked_before excuses the rank at `node` from every op of its sink component that
 * waits on it while it is absent (absent[0..n): those op nodes, at most MAX_MISSING_ASKED
 * asked), its missing_op first: a rank blocked before the op most ranks wait for it in may still
 * have left out another (a recv its pipeline peer waits in) and be that one's root. Where one is
 * not excused, it becomes the rank's missing_op. */
static bool blocked_before_all(decider *d, size_t node, const uint32_t *absent, size_t n,
                               const uint32_t *mine, size_t nmine) {
    rank_facts *f = &d->facts[node];
    if (!blocked_before(d, node, f->missing_op, mine, nmine)) return false;
    for (size_t k = 0, asked = 0; k < n && asked < MAX_MISSING_ASKED; k++) {
        long op = d->g.op_of_node[absent[k] - d->g.nrank_nodes];
        if (op == f->missing_op) continue;
        asked++;
        if (!blocked_before(d, node, op, mine, nmine)) {
            f->missing_op = op;
            return false;
        }
    }
    return true;
}

/* (rank node, op node) where the op waits on the rank and the rank is absent from it. */
typedef struct absence {
    uint32_t rank, op;
} absence;

static int compare_absences(const void *pa, const void *pb) {
    const absence *a = pa, *b = pb;
    if (a->rank != b->rank) return a->rank < b->rank ? -1 : 1;
    return (a->op > b->op) - (a->op < b->op);
}

/* The absences within the component whose op nodes are ops[0..nops), sorted by rank: one pass
 * over the ops' edges (a rank's own edges are its few pending ops). NULL when out of memory. */
static absence *component_absences(const decider *d, const uint32_t *ops, size_t nops, size_t *n) {
    size_t cap = 16;
    absence *v = malloc(cap * sizeof *v);
    *n = 0;
    for (size_t k = 0; v && k < nops; k++) {
        uint32_t x = ops[k];
        for (size_t e = d->g.edge_at[x]; e < d->g.edge_at[x + 1]; e++) {
            uint32_t r = d->g.edges[e];
            if (r >= d->g.nrank_nodes || d->comp[r] != d->comp[x] || !absent_from(d, r, x))
                continue;
            if (*n == cap) {
                absence *grown = realloc(v, 2 * cap * sizeof *v);
                if (!grown) {
                    free(v);
                    return NULL;
                }
                v = grown;
                cap *= 2;
            }
            v[(*n)++] = (absence){ r, x };
        }
    }
    if (v) qsort(v, *n, sizeof *v, compare_absences);
    return v;
}

/* Marks the candidates of sink component c that blocked_before excuses (never one waiting in a
 * lonely op), unless that would excuse all of them (then the history cannot tell, and every one
 * is named) while no rank of the component is held up behind an unknown rank the doubts excused
 * (behind_excused): with one, the component is a sink only because its ops no longer wait on
 * that unknown, whose place beside the roots is an alternative; its root lies outside, and the
 * ranks blocked behind that victim are victims too (sim seeds 1056, 772: a rank that started a
 * collective its peer had queued behind a recv from a dead rank, named for never issuing the
 * next). ops[0..nops) are the component's op nodes. */
static void excuse_blocked_victims(decider *d, const uint32_t *mine, size_t nranks,
                                   const uint32_t *ops, size_t nops) {
    size_t candidates = 0, excused = 0, nabsent = 0, at = 0;
    absence *absent = component_absences(d, ops, nops, &nabsent);
    uint32_t *theirs = malloc((nabsent + 1) * sizeof *theirs);
    for (size_t k = 0; k < nranks; k++) { /* mine[] ascends, as the absences' ranks do */
        rank_facts *f = &d->facts[mine[k]];
        size_t n = 0;
        while (absent && at < nabsent && absent[at].rank < mine[k]) at++;
        while (absent && theirs && at < nabsent && absent[at].rank == mine[k])
            theirs[n++] = absent[at++].op;
        if (!f->waited || f->missing_op < 0) continue;
        candidates++;
        f->excused = fa_vg_node_pending(d, mine[k]) && !waits_alone(d, mine[k]) &&
                     blocked_before_all(d, mine[k], theirs, n, mine, nranks);
        excused += f->excused;
    }
    free(absent);
    free(theirs);
    bool behind_unknown = false;
    for (size_t k = 0; k < nranks; k++) behind_unknown |= d->facts[mine[k]].behind_excused;
    if (excused < candidates || behind_unknown) return;
    for (size_t k = 0; k < nranks; k++) d->facts[mine[k]].excused = false;
}

/* Whether the rank at `node` has its own entry in op `o`: it issued it, as its dump shows, not a
 * state read from its counters (sim seed 10978: a rank blocked in a send/recv batch whose
 * entries carry the group's collective count, read as pending in that collective). */
static bool issued_it(const decider *d, size_t node, const fa_op *o) {
    long pos = fa_group_position(&d->groups->v[o->group], d->facts[node].rank);
    return pos >= 0 && fa_op_call(d->m, (size_t)(o - d->m->ops), (uint32_t)pos) != NULL;
}

/* Whether what the dumps show proves that the rank at `node` went past `missing_op`, which it
 * never issued: it issued a later collective of the op's group, or the ranks that issued both
 * the op it waits in and the missing one ran the missing one first (program_order), or, for a
 * send/recv, the sibling groups of its family hold another operation at the number of the one it
 * has pending (p2p_family_vote). Stricter than pending_order, whose other readings (a voter
 * holding only the missing op, the step before) weigh a cycle that is judged anyway. */
static bool went_past(const decider *d, size_t node, long missing_op) {
    long ri = fa_input_find(d->in, d->facts[node].rank);
    const fa_op *missing = &d->m->ops[missing_op], *pending;
    if (ri < 0) return false;
    if (missing->is_p2p) return p2p_family_vote(d, node, missing) < 0;
    for (size_t at = d->g.edge_at[node]; (pending = next_pending(d, node, &at)) != NULL;)
        if (pending->group == missing->group && issued_it(d, node, pending))
            return pending->seq > missing->seq;
    for (size_t at = d->g.edge_at[node]; (pending = next_pending(d, node, &at)) != NULL;) {
        int order = issued_it(d, node, pending) ? program_order(d, ri, pending, missing) : 0;
        if (order) return order < 0;
    }
    return false;
}

/* Whether the component (not a sink: it waits on ranks outside too) is held by itself: a rank
 * in it with a dump as new as its peers' is absent from one of its ops, and its history shows it
 * went past that op (pending_order: it skipped it), while what it waits in waits, through the
 * cycle, on that op. No rank outside can release it, whatever they did: the skip is a root
 * cause even beside a rank whose dump is missing, older or cut, which everyone there waits on
 * too (sim seeds 3318, 894: a rank that left out an all_reduce and went on, and a rank whose dump
 * is unreadable or cut, named alone for the waits the skip explains). */
static bool holds_itself(const decider *d, const uint32_t *ops, size_t nops) {
    size_t nabsent = 0;
    absence *absent = component_absences(d, ops, nops, &nabsent);
    bool held = false;
    for (size_t k = 0; absent && k < nabsent && !held; k++) {
        const rank_facts *f = &d->facts[absent[k].rank];
        if (!f->has_dump || f->stale || waits_alone(d, absent[k].rank)) continue;
        long op = d->g.op_of_node[absent[k].op - d->g.nrank_nodes];
        held = went_past(d, absent[k].rank, op);
    }
    free(absent);
    return held;
}

/* Per component, whether judge_sinks judges it though it is no sink: it holds itself. NULL when
 * out of memory. */
static bool *self_held(const decider *d, const bool *leaves, const size_t *at,
                       const uint32_t *nodes) {
    bool *held = calloc(d->ncomps + 1, 1);
    for (uint32_t c = 0; held && c < d->ncomps; c++) {
        if (!leaves[c]) continue;
        const uint32_t *mine = nodes + at[c];
        size_t nmine = at[c + 1] - at[c], nranks = 0;
        while (nranks < nmine && mine[nranks] < d->nfacts) nranks++;
        held[c] = nranks > 1 && holds_itself(d, mine + nranks, nmine - nranks);
    }
    return held;
}

/* Per component, how it is waited on from outside: WAITED_BY_HELD from a component that holds
 * itself, WAITED_BY_OTHER from any other. NULL when out of memory. */
enum { WAITED_BY_HELD = 1, WAITED_BY_OTHER = 2 };

static uint8_t *waited_from(const decider *d, const bool *held) {
    uint8_t *by = calloc(d->ncomps + 1, 1);
    for (size_t n = 0; by && n < d->g.nnodes; n++)
        for (size_t e = d->g.edge_at[n]; e < d->g.edge_at[n + 1]; e++) {
            uint32_t c = d->comp[d->g.edges[e]];
            if (c != d->comp[n]) by[c] |= held[d->comp[n]] ? WAITED_BY_HELD : WAITED_BY_OTHER;
        }
    return by;
}

/* Whether a sink component of ranks mine[0..nranks) holds only ranks of unknown state (no
 * readable dump, an older or cut one) and is waited on only from components that hold
 * themselves (`by`, waited_from): whatever those ranks did, the waits on them are explained, and
 * they may have stopped too (an alternative), no culprits of their own. */
static bool explained_unknowns(const decider *d, uint8_t by, const uint32_t *mine, size_t nranks) {
    for (size_t k = 0; k < nranks; k++)
        if (d->facts[mine[k]].has_dump && !d->facts[mine[k]].stale) return false;
    return nranks > 0 && by == WAITED_BY_HELD;
}

/* A send or recv that one side posted and the other never did, in a sink, filed under `who`: the
 * rank the pass is about; `other` the rank to excuse when `who` is the fault; `kind` which of the
 * pass's two patterns it is. */
typedef struct lone_p2p {
    int64_t who, other;
    uint32_t group; /* one fault posts both halves in one group */
    int kind;
} lone_p2p;

static int compare_lone(const void *pa, const void *pb) {
    const lone_p2p *a = pa, *b = pb;
    if (a->who != b->who) return a->who < b->who ? -1 : 1;
    if (a->group != b->group) return a->group < b->group ? -1 : 1;
    return (a->kind > b->kind) - (a->kind < b->kind);
}

/* Excuses, for each rank filed under both kinds in one group (halves in two groups are two
 * faults' or none: tests/sim seed 6681), both others: when `distinct`, only two different
 * others. */
static void excuse_pairs(decider *d, lone_p2p *lone, size_t n, bool distinct) {
    qsort(lone, n, sizeof *lone, compare_lone);
    for (size_t k = 0; k + 1 < n; k++) {
        const lone_p2p *x = &lone[k], *y = &lone[k + 1];
        if (x->who != y->who || x->group != y->group || x->kind == y->kind ||
            (distinct && x->other == y->other))
            continue;
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
        size_t op = (size_t)d->g.op_of_node[ops[k] - d->g.nrank_nodes];
        bool sent;
        if (!fa_vg_lone_p2p(d, op, &sent)) continue;
        const fa_op *o = &d->m->ops[op];
        /* wrong destination, about the sender s: its lone send (excuse the receiver that never
         * posted) and a lone recv from it (excuse the receiver waiting) */
        dest[nd++] = (lone_p2p){ o->src, o->dst, o->group, sent };
        /* wrong source, about the receiver d: its lone recv (excuse the sender that never sent)
         * and a lone send to it (excuse that sender too: its batch never completes, and what it
         * has not issued behind it is d's doing; tests/sim seed 6681) */
        src[ns++] = (lone_p2p){ o->dst, o->src, o->group, !sent };
    }
    if (dest && src) {
        excuse_pairs(d, dest, nd, true);
        excuse_pairs(d, src, ns, false);
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

/* Whether the member of the op at node `node` stalled there too: its own oldest pending op is
 * this one, where a peer completed it (its GPU lag). */
static bool stalled_here(const decider *d, long node, long op) {
    return node >= 0 && d->facts[node].lag && d->facts[node].lag_op == op;
}

/* Whether the rank's GPU stalled in an op that every other member completed or stalled in as
 * well: whatever else holds the job up, nobody holds this rank up there (a second root beside a
 * sink's, W2 of tests/sim). A completed call proves that every member started the collective,
 * so a member still pending there is held by its own stream, not by a peer: two ranks stalled in
 * one op are two roots, not each other's victims, while most members completed it. A member
 * whose state there is unknown (an older dump, none) joined it too, by that completion: it holds
 * nobody up there (sim seed 1682). Its oldest pending op, so that the stall is where its stream
 * stands. */
static bool stalled_alone(decider *d, const rank_facts *f) {
    if (!f->lag || f->lag_op < 0) return false;
    long node = fa_vg_rank_node(d, f->rank);
    if (node < 0) return false;
    for (size_t e = d->g.edge_at[node]; e < d->g.edge_at[node + 1]; e++) {
        uint32_t x = d->g.edges[e];
        if (x < d->g.nrank_nodes) continue;
        size_t op = (size_t)d->g.op_of_node[x - d->g.nrank_nodes];
        long pos = fa_group_position(&d->groups->v[d->m->ops[op].group], f->rank);
        if (pos >= 0 && fa_vg_call_record(d, op, (uint32_t)pos) < f->lag_record) return false;
    }
    const fa_group *grp = &d->groups->v[d->m->ops[f->lag_op].group];
    uint32_t n = fa_vg_expected_states(d, (size_t)f->lag_op);
    uint32_t completed = 0;
    for (uint32_t k = 0; k < n; k++) {
        int64_t member = grp->members[d->members[k]];
        completed += d->states[k] == FA_MS_COMPLETED;
        if (member != f->rank && d->states[k] != FA_MS_COMPLETED &&
            !fa_member_state_unknown(d->states[k]) &&
            !stalled_here(d, fa_vg_rank_node(d, member), f->lag_op))
            return false;
    }
    /* a stall is a fault of a few: members completing it, at least as many as have it pending,
     * show that streams, not the op, stopped (one completion beside many pending says more of
     * that one dump) */
    return n > 1 && 2 * completed >= n;
}

void fa_vs_judge_sinks(decider *d) {
    bool *leaves = calloc(d->ncomps + 1, 1), *busy = calloc(d->ncomps + 1, 1), *held = NULL;
    uint8_t *by = NULL;
    size_t *at = NULL;
    uint32_t *nodes = NULL;
    if (!leaves || !busy || nodes_by_component(d, &at, &nodes)) goto out;
    for (size_t n = 0; n < d->g.nnodes; n++) {
        uint32_t w;
        for (size_t k = 0; fa_vw_neighbor(&d->g, n, k, &w); k++) {
            if (d->comp[w] != d->comp[n])
                leaves[d->comp[n]] = true;
            else
                busy[d->comp[n]] = true;
        }
    }
    size_t first = d->findings->n;
    fa_imap missing = { 0 };
    held = self_held(d, leaves, at, nodes);
    by = held ? waited_from(d, held) : NULL;
    if (!by) goto out;
    for (uint32_t c = 0; c < d->ncomps; c++) {
        if (leaves[c] && !held[c]) continue;
        const uint32_t *mine = nodes + at[c];
        size_t nmine = at[c + 1] - at[c], nranks = 0;
        while (nranks < nmine && mine[nranks] < d->nfacts) nranks++; /* rank nodes come first */
        if (!leaves[c] && explained_unknowns(d, by[c], mine, nranks)) {
            for (size_t k = 0; k < nranks; k++)
                if (d->facts[mine[k]].waited) fa_ranks_add(&d->maybe_also, d->facts[mine[k]].rank);
            continue;
        }
        bool any_lag = false, any_waited = false, any_broken = false;
        for (size_t k = 0; k < nranks; k++) {
            size_t r = mine[k];
            any_lag |= d->facts[r].lag;
            any_waited |= d->facts[r].waited;
            any_broken |= d->facts[r].broken_op >= 0;
        }
        if (!busy[c] && !any_waited) continue; /* nobody waits here */
        if (!any_broken && !any_lag) {
            excuse_blocked_victims(d, mine, nranks, mine + nranks, nmine - nranks);
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
                       !f->behind_excused &&
                       f->doubt == FA_DOUBT_NONE) { /* doubts: verdict_possible.c */
                f->culprit = true;
                blame_missing(d, f, &missing);
            }
        }
        if (!any_broken && !any_lag && !any_waited) judge_joined(d, mine, nmine);
    }
    for (size_t r = 0; r < d->nfacts; r++) /* stalled beside the sinks: a root of its own */
        if (!d->facts[r].culprit && stalled_alone(d, &d->facts[r])) {
            d->facts[r].culprit = true;
            blame_lag(d, &d->facts[r]);
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
    free(held);
    free(by);
    free(at);
    free(nodes);
}

void fa_vs_note_idle_missing_dumps(decider *d) {
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
