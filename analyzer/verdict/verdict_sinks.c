/* verdict_sinks.c — judging the wait graph's sink components (judge_sinks): in each, the ranks
 * that hold the others up and why (a crash or a failed communicator of their own, GPU lag, an op
 * they never issued, a collective stuck with every member in it), one finding per cause; ranks
 * that their own history excuses (blocked before, a send/recv to the wrong peer) are victims; a
 * rank alone in an op that the idle rest of its group never issued went where they do not follow
 * (judge_alone). A component that is no sink is judged as one where it holds itself: a rank in
 * it went past an op others wait for it in (holds_itself), or its fresh ranks wait for one another
 * in collectives each never issued (absence_cycle); nothing outside can release it.
 * Outside the sinks, a rank whose GPU stalled in its oldest pending op, which every other member
 * completed, is a root of its own (stalled_alone). Whether a rank is blocked before an op it never
 * issued, or went past it, is verdict_order.c's evidence (fa_vo_*).
 */
#include "verdict/verdict_graph.h"
#include "verdict/verdict_order.h"
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

/* The members of op known never to have started it (fa_vg_never_started), into `out`. */
static void never_started_members(const decider *d, size_t op, fa_ranks *out) {
    const fa_group *grp = &d->groups->v[d->m->ops[op].group];
    uint32_t n = fa_vg_expected_states(d, op);
    for (uint32_t k = 0; k < n; k++)
        if (fa_vg_never_started(d, op, k)) fa_ranks_add(out, grp->members[d->members[k]]);
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
    uint64_t at, key = (uint64_t)op << 3 | (uint64_t)(cause == FA_CAUSE_WRONG_PEER) << 2 |
                       (uint64_t)(cause == FA_CAUSE_UNREADABLE) << 1 | (kind == FA_MISSING_DUMP);
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

/* Removes rank from a normalized set. */
static void drop_rank(fa_ranks *set, int64_t rank) {
    size_t kept = 0;
    for (size_t i = 0; i < set->n; i++)
        if (set->v[i] != rank) set->v[kept++] = set->v[i];
    set->n = kept;
}

/* Adds f's rank to the finding of the op it is missing from; ranks come ascending, so the set
 * stays sorted. The detail is written once per finding, after (describe_missing). */
static void blame_missing(decider *d, rank_facts *f, fa_imap *index) {
    fa_finding_kind kind = f->has_dump ? FA_MISSING_RANKS : FA_MISSING_DUMP;
    /* a rank with a call in the op it is waited for in issued it: its stream is held by its own
     * send/recv to the wrong peer (verdict_waits.c's add_pending_edges) */
    const fa_group *grp = &d->groups->v[d->m->ops[f->missing_op].group];
    long pos = fa_group_position(grp, f->rank);
    bool queued = pos >= 0 && fa_op_call(d->m, (size_t)f->missing_op, (uint32_t)pos);
    fa_finding *x = missing_finding(d, index, kind, f->missing_op,
                                    f->unreadable ? FA_CAUSE_UNREADABLE
                                    : queued      ? FA_CAUSE_WRONG_PEER
                                                  : FA_CAUSE_ENTRIES);
    if (!x) return;
    fa_ranks_add(&x->ranks, f->rank);
    if (x->ranks.n > 1 && x->ranks.v[x->ranks.n - 2] >= f->rank) fa_ranks_normalize(&x->ranks);
    if (queued) drop_rank(&x->others, f->rank); /* it waits there on nobody */
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
    } else if (x->cause == FA_CAUSE_WRONG_PEER) {
        fa_finding_set_detail(x,
                              "rank%s %s wait%s in %s %s; rank%s %s issued it, but queued behind "
                              "%s own send/recv posted to the wrong peer, which nothing will "
                              "match: %s stream never gets there",
                              x->others.n > 1 ? "s" : "", waiting, x->others.n > 1 ? "" : "s",
                              group, label, x->ranks.n > 1 ? "s" : "", who,
                              x->ranks.n > 1 ? "their" : "its", x->ranks.n > 1 ? "their" : "its");
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

/* Whether op, pending on the rank of `node`, is its oldest pending op (tests/sim's W1: the one
 * it waits in; what it issued after is queued behind it). */
static bool oldest_pending(const decider *d, size_t node, size_t op) {
    int64_t rank = d->facts[node].rank, mine = fa_vg_rank_record(d, op, rank);
    for (uint32_t at = d->g.edge_at[node]; at < d->g.edge_at[node + 1]; at++) {
        uint32_t x = d->g.edges[at];
        if (x >= d->g.nrank_nodes &&
            fa_vg_rank_record(d, (size_t)d->g.op_of_node[x - d->g.nrank_nodes], rank) < mine)
            return false;
    }
    return true;
}

/* The ranks at `nodes` (members of op that never issued it, idle: judge_alone) are roots the op
 * waits for, each blamed there unless named already. */
static void blame_stopped(decider *d, size_t op, const fa_ranks *nodes, fa_imap *missing) {
    for (size_t i = 0; i < nodes->n; i++) {
        rank_facts *f = &d->facts[nodes->v[i]];
        if (f->culprit) continue;
        f->waited = f->culprit = true;
        f->missing_op = (long)op;
        f->missing_waiters = 1;
        blame_missing(d, f, missing);
    }
}

/* A lonely op (fa_vw_lonely_op) that nobody waits on its rank for: in a cycle the others' waits
 * name that rank, but here it waits alone, where it has nothing older pending, for members that
 * are idle in their dumps (nothing pending, and nobody else waits for them either), more than
 * half the group, whose dumps show all they completed (an only-active one may have dropped the
 * op: sim seed 2782). Its stream went where the group will not follow: it is the root, not the idle
 * majority (tests/sim's E12; sim seed 9228: rank 4 alone in fsdp_shard's _allgather_base #6,
 * ranks 3 and 5 idle after #5). Idle members that someone else waits for are left to the others'
 * waits (several ranks agree on the program there). Where the idle ones are fewer, and nobody
 * waits for the rank elsewhere (no cycle through it), its op waits for them as for any member
 * that never joined: each is a root, stopped (sim seed 13804: gloo rank 0 in data-parallel
 * reduce_scatter #3 that 1, 2 and 3 never issued, 3 blocked in its expert all_to_all on 2, 1
 * idle and left unnamed). */
static void judge_alone(decider *d, size_t op, fa_imap *missing) {
    const fa_op *o = &d->m->ops[op];
    const fa_group *grp = &d->groups->v[o->group];
    uint32_t alone = d->m->calls[o->first_call].member;
    long node = fa_vg_rank_node(d, grp->members[alone]);
    if (node < 0 || d->facts[node].culprit || !oldest_pending(d, (size_t)node, op)) return;
    fa_ranks idle = { 0 }, stopped = { 0 }; /* stopped: the idle ones' nodes, waited for or not */
    uint32_t n = fa_vg_expected_states(d, op);
    for (uint32_t k = 0; k < n; k++) {
        long m = fa_vg_rank_node(d, grp->members[d->members[k]]);
        if (m < 0 || m == node || d->states[k] != FA_MS_NEVER) continue;
        const rank_facts *f = &d->facts[m];
        /* a dump that may have dropped what it completed (only-active) may have run the op */
        if (!fa_vg_state_known(f) || f->may_drop_done || fa_vg_node_pending(d, (size_t)m)) continue;
        fa_ranks_add(&stopped, m);
        if (!f->waited) fa_ranks_add(&idle, f->rank);
    }
    if (2 * idle.n <= grp->nmembers) {
        if (!d->facts[node].waited) blame_stopped(d, op, &stopped, missing);
    } else {
        fa_finding *x = fa_findings_add(d->findings, FA_MISSING_RANKS, (long)o->group, (long)op);
        x->cause = FA_CAUSE_WENT_ALONE;
        fa_ranks_add(&x->ranks, d->facts[node].rank);
        fa_ranks_normalize(&idle);
        x->others = idle;
        idle = (fa_ranks){ 0 };
        d->facts[node].culprit = true;
        char group[300], label[200];
        fa_vg_context(d, op, group, sizeof group, label, sizeof label);
        char *who = fa_ranks_format(x->others.v, x->others.n);
        fa_finding_set_detail(x,
                              "rank %lld waits alone in %s %s, its oldest pending op; rank%s %s, "
                              "idle with nothing pending, never issued it: rank %lld went where "
                              "the group does not follow (an op too many, or in the wrong group)",
                              (long long)d->facts[node].rank, group, label,
                              x->others.n > 1 ? "s" : "", who ? who : "?",
                              (long long)d->facts[node].rank);
        free(who);
    }
    fa_ranks_free(&idle);
    fa_ranks_free(&stopped);
}

/* Drops from `scheduled` (members with op scheduled, not started) those that have an older op
 * pending (oldest_pending): their stream has not reached op, it waits behind that one, and
 * what holds it is judged there; "never started on the GPU" is said only of a stream's head
 * (sim seed 11855: rank 0's EMBEDDING all_reduce #2 queued behind its DATA_PARALLEL
 * _reduce_scatter_base #3, which waits on the killed rank 2). */
static void unqueued(const decider *d, size_t op, fa_ranks *scheduled) {
    size_t kept = 0;
    for (size_t i = 0; i < scheduled->n; i++) {
        long node = fa_vg_rank_node(d, scheduled->v[i]);
        if (node < 0 || oldest_pending(d, (size_t)node, op)) scheduled->v[kept++] = scheduled->v[i];
    }
    scheduled->n = kept;
}

/* Every member joined, nothing is missing: who never started it, or is it simply stuck?
 * (Unless a member of unknown state was only excused there, joined_ops: it may not have joined,
 * so nothing says the op is stuck with every member in it.) nodes[0..nn) are the component's
 * nodes, ascending. */
static void judge_joined(decider *d, const uint32_t *nodes, size_t nn, fa_imap *missing) {
    for (size_t k = 0; k < nn; k++) {
        size_t n = nodes[k];
        if (n < d->g.nrank_nodes) continue;
        size_t op = (size_t)d->g.op_of_node[n - d->g.nrank_nodes];
        if (fa_vw_lonely_op(d, (long)op)) { /* ahead of the others, not stuck */
            judge_alone(d, op, missing);
            continue;
        }
        fa_ranks started = { 0 }, scheduled = { 0 };
        members_in_state(d, op, fa_vg_is_started, &started);
        never_started_members(d, op, &scheduled);
        unqueued(d, op, &scheduled);
        /* a member of unknown state that the doubts excused may not have joined it at all */
        bool unsure = d->joined_ops && d->joined_ops[n - d->g.nrank_nodes];
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
        if (started.n && !scheduled.n && queued && !unsure &&
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
        if (!started.n && !unsure) judge_timed_out(d, op, &scheduled, queued);
        fa_ranks_free(&started);
        fa_ranks_free(&scheduled);
    }
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
    if (!fa_vo_blocked_before(d, node, f->missing_op, mine, nmine)) return false;
    for (size_t k = 0, asked = 0; k < n && asked < MAX_MISSING_ASKED; k++) {
        long op = d->g.op_of_node[absent[k] - d->g.nrank_nodes];
        if (op == f->missing_op) continue;
        asked++;
        if (!fa_vo_blocked_before(d, node, op, mine, nmine)) {
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

/* Where a candidate of sink component mine[0..nranks) left the program's order (its history or
 * its peers' put the op it never issued before the one it waits in: fa_vo_order's -1), a
 * candidate with a fresh dump, pending, whose order nothing tells (0) may be blocked behind it
 * where no order shows it: the first explains the waits on it, and the dumps do not prove it a
 * root of its own. It is no culprit but offered beside them (maybe_also, an alternative), as a
 * rank of unknown state is (sim seeds 4996, 10606, 7859: a rank that ran a collective in its
 * group of two stages instead of its data-parallel group, and its partner, which never issued
 * that one and waits in an op the first has queued behind it). Not where an ambiguity is open:
 * its alternatives would drop the offer. After the other excuses: a rank they clear is no root
 * (sim seed 2516: the peer of a skipped send). So too a candidate whose dump is older or cut
 * (stale): what it never issued is unknown, and beside a rank the dumps show left the order it is
 * presumed to have gone on (tests/sim's E8, E13; sim seeds 2150, 1145: a rank that ran a
 * reduce_scatter on its shard pair, or skipped an all_reduce, beside a peer whose cut dump lacks
 * the op the first waits in, named as a second root). */
static void offer_undecided(decider *d, const uint32_t *mine, size_t nranks) {
    if (d->nambiguities) return;
    int8_t *order = malloc(nranks + 1);
    size_t skippers = 0;
    for (size_t k = 0; order && k < nranks; k++) {
        const rank_facts *f = &d->facts[mine[k]];
        order[k] = 2; /* no candidate, or judged already */
        if (!f->waited || f->missing_op < 0 || f->excused || f->behind_excused ||
            f->doubt != FA_DOUBT_NONE || !f->has_dump)
            continue;
        if (f->stale) { /* older or cut: what it never issued is unknown, presumed gone on */
            order[k] = 0;
            continue;
        }
        if (!fa_vg_node_pending(d, mine[k]) || waits_alone(d, mine[k])) continue;
        order[k] = (int8_t)fa_vo_order(d, mine[k], f->missing_op, mine, nranks);
        skippers += order[k] < 0;
    }
    for (size_t k = 0; order && skippers && k < nranks; k++)
        if (order[k] == 0) {
            d->facts[mine[k]].excused = true;
            fa_ranks_add(&d->maybe_also, d->facts[mine[k]].rank);
        }
    free(order);
}

/* Whether the component (not a sink: it waits on ranks outside too) is held by itself: a rank
 * in it with a dump as new as its peers' is absent from one of its ops, and its history shows it
 * went past that op (pending_order: it skipped it), while what it waits in waits, through the
 * cycle, on that op. No rank outside can release it, whatever they did: the skip is a root
 * cause even beside a rank whose dump is missing, older or cut, which everyone there waits on
 * too (sim seeds 3318, 894: a rank that left out an all_reduce and went on, and a rank whose dump
 * is unreadable or cut, named alone for the waits the skip explains). So too where the rank
 * waits in an op it went to alone: a collective run on the wrong group is how it left the order,
 * and the witnesses' word on that order is what went_past reads, not the lonely op (sim seeds
 * 1832, 3138, 8384, 8519: the op others wait in left out, the world's next collective issued
 * alone, a rank without a readable dump named in its place). */
static bool holds_itself(const decider *d, const uint32_t *ops, size_t nops) {
    size_t nabsent = 0;
    absence *absent = component_absences(d, ops, nops, &nabsent);
    bool held = false;
    for (size_t k = 0; absent && k < nabsent && !held; k++) {
        const rank_facts *f = &d->facts[absent[k].rank];
        if (!fa_vg_state_known(f)) continue;
        long op = d->g.op_of_node[absent[k].op - d->g.nrank_nodes];
        held = fa_vo_went_past(d, absent[k].rank, op);
    }
    free(absent);
    return held;
}

/* Scratch for absence_cycle, of the graph's size: node -> index in the component (UINT32_MAX
 * outside it), in-degrees, and the peeling queue with its end. */
typedef struct peel {
    uint32_t *local, *indeg, *queue;
    size_t tail;
} peel;

static bool fresh_node(const decider *d, uint32_t node) {
    return node < d->nfacts && fa_vg_state_known(&d->facts[node]);
}

static void count_in(peel *p, uint32_t to) { p->indeg[p->local[to]]++; }

static void peel_to(peel *p, uint32_t to) {
    if (--p->indeg[p->local[to]] == 0) p->queue[p->tail++] = to;
}

static bool op_node_is_p2p(const decider *d, uint32_t node) {
    return d->m->ops[d->g.op_of_node[node - d->g.nrank_nodes]].is_p2p;
}

/* Calls visit(p, to) for each edge of the component's absence graph leaving node n: from a rank
 * whose dump is as new as its peers' to the ops it is pending in, from an op to the members it
 * waits on that are absent from it and have such a dump. */
static void absence_edges(const decider *d, uint32_t n, peel *p, void (*visit)(peel *, uint32_t)) {
    bool rank = n < d->nfacts;
    if (rank && !fresh_node(d, n)) return;
    for (size_t e = d->g.edge_at[n]; e < d->g.edge_at[n + 1]; e++) {
        uint32_t to = d->g.edges[e];
        if (p->local[to] == UINT32_MAX) continue;
        if (rank ? to >= d->g.nrank_nodes && !op_node_is_p2p(d, to)
                 : fresh_node(d, to) && absent_from(d, to, n))
            visit(p, to);
    }
}

/* Whether ranks of the component mine[0..n) whose dumps are as new as their peers' wait for one
 * another through ops that each of them is absent from (X pending in an op that Y never issued,
 * Y pending in one X never issued): each waits for every member missing from its op, so no rank
 * outside the cycle can release it, whatever it did (tests/sim W2; sim seed 12146: two ranks
 * that ran a skip's two orders wait for each other and for a rank whose dump is older, which was
 * named alone; 16556, gloo). Members merely pending in one op together are no such cycle, nor is
 * a send/recv a peer never posted (the victims of a send to the wrong peer wait for one another
 * so: sim seeds 146, 1341, 7382). Kahn's peeling over those edges alone: nodes left unpeeled lie
 * on a cycle. */
static bool absence_cycle(const decider *d, const uint32_t *mine, size_t n, peel *p) {
    for (size_t k = 0; k < n; k++) {
        p->local[mine[k]] = (uint32_t)k;
        p->indeg[k] = 0;
    }
    for (size_t k = 0; k < n; k++) absence_edges(d, mine[k], p, count_in);
    p->tail = 0;
    for (size_t k = 0; k < n; k++)
        if (p->indeg[k] == 0) p->queue[p->tail++] = mine[k];
    for (size_t head = 0; head < p->tail; head++) absence_edges(d, p->queue[head], p, peel_to);
    bool cycle = p->tail < n;
    for (size_t k = 0; k < n; k++) p->local[mine[k]] = UINT32_MAX;
    return cycle;
}

/* Per component, whether judge_sinks judges it though it is no sink: it holds itself. NULL when
 * out of memory. */
static bool *self_held(const decider *d, const bool *leaves, const size_t *at,
                       const uint32_t *nodes) {
    bool *held = calloc(d->ncomps + 1, 1);
    size_t nn = d->g.nnodes + 1;
    peel p = { malloc(nn * sizeof *p.local), malloc(nn * sizeof *p.indeg),
               malloc(nn * sizeof *p.queue), 0 };
    if (!p.local || !p.indeg || !p.queue) {
        free(held);
        held = NULL;
    }
    for (size_t k = 0; held && k < nn; k++) p.local[k] = UINT32_MAX;
    for (uint32_t c = 0; held && c < d->ncomps; c++) {
        if (!leaves[c]) continue;
        const uint32_t *mine = nodes + at[c];
        size_t nmine = at[c + 1] - at[c], nranks = 0;
        while (nranks < nmine && mine[nranks] < d->nfacts) nranks++;
        held[c] = nranks > 1 && (holds_itself(d, mine + nranks, nmine - nranks) ||
                                 absence_cycle(d, mine, nmine, &p));
    }
    free(p.local);
    free(p.indeg);
    free(p.queue);
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
        if (fa_vg_state_known(&d->facts[mine[k]])) return false;
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
        if (d->groups->v[o->group].nmembers == 2) continue;
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
        if (fa_vg_rank_record(d, op, f->rank) < f->lag_record) return false;
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

/* In a job of two ranks, a sink holding both where one (a candidate: it never issued collective
 * M, which the other waits in) waits in an op P that the other issued after M and has queued
 * behind it: the two ran the program in two orders, the one P without M, the other M then P. No
 * third rank shows which order is the program's: the first left M out, or the second ran an M
 * the program does not have (another op, the wrong group). Either explains every wait, so the
 * dumps prove neither: an ambiguity of the two, no culprit (tests/sim's E11 names both, as a tie
 * of a mismatch; a key that knows the truth names one: "one of these" is what the dumps show;
 * sim seed 5760, recorder jobs 387 390 395). Marks both so that the sink judge names neither
 * (where the memory for the ambiguity is not there, the one that never issued M stays named). */
static void order_tie(decider *d, const uint32_t *mine, size_t nranks, size_t nmine) {
    if (d->nfacts != 2 || nranks != 2 || d->nambiguities) return;
    rank_facts *a = &d->facts[mine[0]], *b = &d->facts[mine[1]];
    bool ca = a->waited && a->missing_op >= 0 && !a->excused && !a->behind_excused,
         cb = b->waited && b->missing_op >= 0 && !b->excused && !b->behind_excused;
    if (!fa_vg_state_known(a) || !fa_vg_state_known(b) || ca == cb || a->doubt != FA_DOUBT_NONE ||
        b->doubt != FA_DOUBT_NONE)
        return;
    size_t left = ca ? mine[0] : mine[1], ran = ca ? mine[1] : mine[0];
    long m = d->facts[left].missing_op;
    int64_t at_m = fa_vg_rank_record(d, (size_t)m, d->facts[ran].rank);
    if (d->m->ops[m].is_p2p || at_m >= INT64_MAX - 1) return;
    for (size_t k = nranks; k < nmine; k++) { /* the op nodes: one it waits in, the other after M */
        size_t op = d->g.op_of_node[mine[k] - d->g.nrank_nodes];
        int64_t theirs = fa_vg_rank_record(d, op, d->facts[ran].rank);
        if ((long)op == m || fa_vg_rank_record(d, op, d->facts[left].rank) >= INT64_MAX - 1 ||
            theirs >= INT64_MAX - 1 || theirs <= at_m || absent_from(d, left, mine[k]))
            continue;
        fa_option options[2] = { { (uint32_t)left, FA_WHY_ORDER },
                                 { (uint32_t)ran, FA_WHY_ORDER } };
        if (fa_vg_note_ambiguity(d, options, 2) == 0)
            d->facts[left].doubt = d->facts[ran].doubt = FA_DOUBT_AMBIGUOUS;
        return;
    }
}

/* Whether op node x of the graph is a send/recv of a group of two that waits on the rank at
 * `node`, which is absent from it: a half its peer posted and it never did. */
static bool pair_half_missing(const decider *d, uint32_t node, uint32_t x) {
    const fa_op *o = &d->m->ops[d->g.op_of_node[x - d->g.nrank_nodes]];
    return o->is_p2p && d->groups->v[o->group].nmembers == 2 && absent_from(d, node, x);
}

/* The op node of the component (op nodes ops[0..nops)) by which the rank at `node` is waited on
 * in a group of two (pair_half_missing), or UINT32_MAX. */
static uint32_t pair_wait_on(const decider *d, uint32_t node, const uint32_t *ops, size_t nops) {
    for (size_t k = 0; k < nops; k++) {
        uint32_t x = ops[k];
        for (size_t e = d->g.edge_at[x]; e < d->g.edge_at[x + 1]; e++)
            if (d->g.edges[e] == node && pair_half_missing(d, node, x)) return x;
    }
    return UINT32_MAX;
}

/* A sink whose two candidates left (fresh dumps, no excuse, no doubt) are the two members of one
 * group of two, each waited on by the other in a send/recv of it that it never posted (a send
 * where its peer's number holds another send, a recv behind it): the two posted their transfers
 * in two orders, one leaving one out or the other posting one too many. Where the sibling
 * stages say nothing of which (fa_vo_order 0 for both: their dumps keep only what is in flight,
 * their counters no group), either explains every wait: an ambiguity of the two, no culprit
 * (tests/sim's E11 breaks the cycle at its fault rank, which the dumps do not show; sim seed
 * 1875: rank 11 left out a recv from 2 and posts its next send at its number; 2 waits in its
 * send, behind which its recv of 11's send waits; every sibling's dump holds what is in flight
 * in other groups only). */
static void pair_tie(decider *d, const uint32_t *mine, size_t nranks, size_t nmine) {
    if (d->nambiguities || d->nfacts <= 2) return; /* a job of two: both named, a tie (E11) */
    uint32_t cand[2], at[2];
    size_t n = 0;
    for (size_t k = 0; k < nranks; k++) {
        const rank_facts *f = &d->facts[mine[k]];
        if (!f->waited || f->missing_op < 0 || f->excused || f->behind_excused ||
            f->doubt != FA_DOUBT_NONE)
            continue;
        if (n == 2 || !fa_vg_state_known(f)) return;
        cand[n++] = mine[k];
    }
    if (n != 2) return;
    for (size_t i = 0; i < 2; i++) {
        at[i] = pair_wait_on(d, cand[i], mine + nranks, nmine - nranks);
        if (at[i] == UINT32_MAX) return;
    }
    long ops[2] = { (long)d->g.op_of_node[at[0] - d->g.nrank_nodes],
                    (long)d->g.op_of_node[at[1] - d->g.nrank_nodes] };
    if (d->m->ops[ops[0]].group != d->m->ops[ops[1]].group ||
        fa_vo_order(d, cand[0], ops[0], mine, nranks) != 0 ||
        fa_vo_order(d, cand[1], ops[1], mine, nranks) != 0)
        return;
    fa_option options[2] = { { cand[0], FA_WHY_PAIR_ORDER }, { cand[1], FA_WHY_PAIR_ORDER } };
    if (fa_vg_note_ambiguity(d, options, 2) != 0) return;
    d->facts[cand[0]].doubt = d->facts[cand[1]].doubt = FA_DOUBT_AMBIGUOUS;
    for (size_t i = 0; i < 2; i++) { /* the option's words name the peer, the title the group */
        d->facts[cand[i]].blamed_by = cand[1 - i];
        d->facts[cand[i]].p2p_group = (long)d->m->ops[ops[0]].group;
    }
}

/* A rank with a fresh dump that others wait for in an op it never issued, which the dumps prove
 * it went past (fa_vo_went_past: a later collective of that group, or the order of the ranks that
 * ran both), left that op out: nothing any other rank does completes it, so it is a root beside
 * the sinks, whatever it waits in itself (tests/sim's E15; sim seed 7266: a rank that ran its
 * tensor-parallel all_reduce in its context-parallel pair waits there on its idle partner, the
 * sink, while its tensor group waits on it). A rank whose state the doubts leave open is not
 * judged here (verdict_possible.c). */
static void blame_skippers(decider *d, fa_imap *missing) {
    for (size_t r = 0; r < d->nfacts; r++) {
        rank_facts *f = &d->facts[r];
        if (f->culprit || !f->waited || f->missing_op < 0 || !fa_vg_state_known(f) || f->excused ||
            f->behind_excused || f->doubt != FA_DOUBT_NONE || !fa_vo_went_past(d, r, f->missing_op))
            continue;
        f->culprit = true;
        blame_missing(d, f, missing);
    }
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
            offer_undecided(d, mine, nranks);
            order_tie(d, mine, nranks, nmine);
            pair_tie(d, mine, nranks, nmine);
            fa_vs_two_readings(d, mine, nranks);
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
        if (!any_broken && !any_lag && !any_waited) judge_joined(d, mine, nmine, &missing);
    }
    for (size_t r = 0; r < d->nfacts; r++) /* stalled beside the sinks: a root of its own */
        if (!d->facts[r].culprit && stalled_alone(d, &d->facts[r])) {
            d->facts[r].culprit = true;
            blame_lag(d, &d->facts[r]);
        }
    blame_skippers(d, &missing);
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
