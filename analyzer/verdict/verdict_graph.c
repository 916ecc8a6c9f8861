/* verdict_graph.c — what the judging and the explaining of the verdict both ask of the decider
 * (verdict_graph.h): a rank's async error and whether it is broken in a group, a member's entry
 * for an op, every expected member's state in an op, and how an op is named in a detail.
 */
#include "verdict/verdict_graph.h"

#include <string.h>

#include "verdict/verdict_title.h"

/* The ncclResult name of the async error the rank's communicator for `group` reported, or NULL. */
/* The words of fa_option.why: here, below every file that names an option. */
const char FA_WHY_STOPPED[] = "stopped", FA_WHY_NO_DUMP[] = "no dump",
           FA_WHY_STALE[] = "older dump", FA_WHY_SKIPPED_P2P[] = "skipped a send/recv",
           FA_WHY_ORDER[] = "ran another order", FA_WHY_PAIR_ORDER[] = "posted another order",
           FA_WHY_STALLED_AFTER[] = "stalled after the transfer",
           FA_WHY_RAN_PAST[] = "ran past what it recorded";

const char *fa_vg_async_error(const decider *d, size_t node, uint32_t group) {
    uint64_t at;
    if (!d->async_error.count ||
        !fa_imap_get(&d->async_error, (uint64_t)node * d->groups->n + group, &at))
        return NULL;
    return (const char *)(uintptr_t)at;
}

/* A member that takes no further part in the group's ops: its process crashed, or its
 * communicator for the group reported an async error. */
bool fa_vg_broken(const decider *d, size_t node, uint32_t group) {
    return d->facts[node].crashed || fa_vg_async_error(d, node, group) != NULL;
}

/* The record_id of the member's entry for op (for choosing its oldest pending op). */
int fa_vg_note_ambiguity(decider *d, const fa_option *options, size_t n) {
    ambiguity *grown = realloc(d->ambiguities, (d->nambiguities + 1) * sizeof *grown);
    if (!grown) return -1;
    d->ambiguities = grown;
    ambiguity *a = &d->ambiguities[d->nambiguities];
    a->options = malloc((n + 1) * sizeof *a->options);
    if (!a->options) return -1;
    memcpy(a->options, options, n * sizeof *options);
    a->n = n;
    d->nambiguities++;
    return 0;
}

int64_t fa_vg_call_record(const decider *d, size_t op, uint32_t member) {
    const fa_call *c = fa_op_call(d->m, op, member);
    return c ? fa_call_record_id(d->m, d->in, c, 0) : INT64_MAX - 1;
}

int64_t fa_vg_rank_record(const decider *d, size_t op, int64_t rank) {
    long pos = fa_group_position(&d->groups->v[d->m->ops[op].group], rank);
    return pos < 0 ? INT64_MAX - 1 : fa_vg_call_record(d, op, (uint32_t)pos);
}

bool fa_vg_unknown_slot(const fa_group *grp) {
    for (uint32_t p = 0; p < grp->nmembers; p++)
        if (grp->members[p] < 0) return true;
    return false;
}

/* The one test of "the op ran": some member's call surely completed (not gloo's uncertain
 * "retired" on its rank's newest entry). A collective completes only once every member ran it
 * (real seed 21), and a backend whose every call blocks (gloo) records nothing after an op until
 * the op returned: the rank went on past it, so it ran to its end for every member (tests/sim's
 * E9; sim seed 752; real seed 143). A send/recv of a backend that does not block proves nothing
 * of the other side's call; nor does a rooted collective that gloo runs one-to-all: a
 * broadcast's receiver goes on once the root's data came, while another member may have failed
 * in it with a dead peer (real seed 206: 1,3,5,7 went on from broadcast #4, which the root 0
 * still had pending and rank 2 ended in an error with the killed 6): where a member still has
 * it pending, it did not run to its end everywhere. Without one, the receivers past it count as
 * before (sim seed 875: every member but the stopped one went on). */
bool fa_vg_op_ran(const decider *d, size_t op) {
    const fa_op *o = &d->m->ops[op];
    bool passed = false, open = false;
    for (uint32_t k = 0; k < o->ncalls; k++) {
        const fa_call *c = &d->m->calls[o->first_call + k];
        open |= c->state != FR_STATE_COMPLETED;
        if (c->state != FR_STATE_COMPLETED || fa_call_end_uncertain(d->m, d->in, c)) continue;
        if (o->is_p2p ? d->in->ranks[c->rank_index].dump->blocks_caller
                      : !fa_call_one_to_all(d->in, d->m, c))
            return true;
        passed |= !o->is_p2p; /* a rooted collective of gloo: see open */
    }
    return passed && !open;
}

/* gloo retires an op that failed as one that completed. A member whose newest op ended there
 * while a member left no dump cannot be told to have completed it: it may have failed, its
 * peer dead, and the member stopped there. It is read as still waiting in it, on the members
 * without a dump (docs/database.md §6: a member without a dump that the others wait for is the
 * culprit). A member whose file is there but unreadable lived to dump: no sign of a failure.
 * Nor is it one where the op ran (fa_vg_op_ran; real seed 143: a rank stopped in Python after
 * an all_gather its peers went on from, beside a rank killed later). */
static void ended_as_pending(const decider *d, size_t op, const uint32_t *members,
                             fa_member_state *states, uint32_t n) {
    for (uint32_t k = 0; k < n; k++) {
        if (states[k] != FA_MS_COMPLETED) continue;
        const fa_call *c = fa_op_call(d->m, op, members[k]);
        if (c && fa_call_end_uncertain(d->m, d->in, c)) states[k] = FA_MS_SCHEDULED;
    }
}

/* Whether the rank wrote a file, unreadable or not: it lived to dump, so no op failed because it
 * died (gloo fails an op whose peer died, and retires it). */
bool fa_vg_left_a_file(const decider *d, int64_t rank) {
    long node = fa_vg_rank_node(d, rank);
    return node >= 0 && d->facts[node].unreadable != NULL;
}

/* Whether a rank that left no file at all may be a member of the group without being listed:
 * its members were rebuilt from the dumps that record it (groups.h), so a rank without a dump
 * may belong too, and may have died in its op. */
static bool may_lack_dead_member(const decider *d, const fa_group *grp) {
    if (!grp->inferred) return false;
    for (size_t u = 0; u < d->nunseen; u++)
        if (!d->facts[d->unseen[u]].unreadable) return true;
    return false;
}

/* Fills members with op's expected members (fa_op_expected) and states with the state of each:
 * a collective's members come in ascending position, so one walk beside its calls (sorted by
 * member) finds each member's call, instead of a search per member. Returns the count. */
uint32_t fa_vg_states_into(const decider *d, size_t op, uint32_t *members,
                           fa_member_state *states) {
    const fa_op *o = &d->m->ops[op];
    uint32_t n = fa_op_expected(d->m, d->groups, op, members);
    const fa_call *c = &d->m->calls[o->first_call], *end = c + o->ncalls;
    bool dumpless = false, uncertain = false;
    for (uint32_t k = 0; k < n; k++) {
        uint32_t p = members[k];
        if (o->is_p2p) {
            states[k] = fa_op_member_state(d->m, d->groups, op, p);
            continue;
        }
        while (c < end && c->member < p) c++;
        const fa_call *mine = c < end && c->member == p ? c : NULL;
        states[k] = fa_op_member_state_of(d->m, d->groups, op, p, mine);
        dumpless |=
            states[k] == FA_MS_NO_DUMP && !fa_vg_left_a_file(d, d->groups->v[o->group].members[p]);
        uncertain |= mine && fa_call_end_uncertain(d->m, d->in, mine);
    }
    bool ran = uncertain && fa_vg_op_ran(d, op);
    dumpless |= uncertain && !ran && may_lack_dead_member(d, &d->groups->v[o->group]);
    if (dumpless && uncertain && !ran) ended_as_pending(d, op, members, states, n);
    return n;
}

/* Whether op, its states just filled by fa_vg_states_into, is one gloo ended as failed on a member
 * in view that died: a member whose call completed is read as still pending in it
 * (ended_as_pending), and a member left no dump file. Its members then wait for the dead only: a
 * member that never issued it but lived to dump did not end it (gloo fails an op whose peer
 * died), and nobody waits for it there any more (sim seed 2895). A failure only on a member the
 * group may lack (may_lack_dead_member) is no proof: it may be pending on the idle one still.
 * *still_open: a member has the op pending, not ended: that one waits for every member absent,
 * the idle one too (sim seed 328), though the dead one did die. */
bool fa_vg_ended_failed(const decider *d, size_t op, const uint32_t *members,
                        const fa_member_state *states, uint32_t n, bool *still_open) {
    const fa_op *o = &d->m->ops[op];
    *still_open = false;
    if (o->is_p2p) return false;
    const fa_call *c = &d->m->calls[o->first_call], *end = c + o->ncalls;
    bool ended = false, open = false, dead = false;
    for (uint32_t k = 0; k < n; k++) {
        while (c < end && c->member < members[k]) c++;
        bool mine = c < end && c->member == members[k];
        if (fa_member_state_pending(states[k])) {
            bool retired = mine && fa_call_end_uncertain(d->m, d->in, c);
            ended |= retired;
            open |= !retired;
        }
        dead |= states[k] == FA_MS_NO_DUMP &&
                !fa_vg_left_a_file(d, d->groups->v[o->group].members[members[k]]);
    }
    *still_open = open;
    return ended && dead;
}

/* fa_vg_states_into d->members and d->states. */
uint32_t fa_vg_expected_states(const decider *d, size_t op) {
    return fa_vg_states_into(d, op, d->members, d->states);
}

/* The group's label and the op's (fa_op_label), as every finding's detail names them. */
void fa_vg_context(const decider *d, size_t op, char *group, size_t glen, char *label,
                   size_t llen) {
    fa_group_label(&d->groups->v[d->m->ops[op].group], group, glen);
    fa_op_label(d->m, op, label, llen);
}

bool fa_vg_lone_p2p(const decider *d, size_t op, bool *sent) {
    const fa_op *o = &d->m->ops[op];
    if (!o->is_p2p || o->ncalls != 1 || o->src < 0 || o->dst < 0) return false;
    *sent = d->groups->v[o->group].members[d->m->calls[o->first_call].member] == o->src;
    return true;
}

/* The last started number of the pg_status counting view v's group: the one under its pg_id,
 * or where that is unknown (the counters were told apart by elimination), the one whose
 * enqueued and completed numbers are the view's; -1 unknown. */
static int64_t status_started(const fa_dump *dump, const fa_view *v) {
    int64_t started = -1;
    size_t found = 0;
    for (uint32_t s = 0; s < dump->nstatus; s++) {
        const fr_pg_status *st = &dump->status[s];
        bool same = v->pg_id >= 0 ? st->pg_id == v->pg_id
                                  : st->last_enqueued == v->issued_max &&
                                        st->last_completed == v->completed_max;
        if (same && found++ == 0) started = st->last_started;
    }
    return found == 1 ? started : -1;
}

bool fa_vg_never_started(const decider *d, size_t op, uint32_t k) {
    if (d->states[k] == FA_MS_SCHEDULED) return true;
    if (d->states[k] != FA_MS_IN_FLIGHT) return false;
    const fa_op *o = &d->m->ops[op];
    long ri = fa_input_find(d->in, d->groups->v[o->group].members[d->members[k]]);
    if (ri < 0) return false;
    int64_t started = status_started(d->in->ranks[ri].dump,
                                     &d->m->views[d->m->view_at[o->group] + d->members[k]]);
    return started >= 0 && started < o->seq;
}
