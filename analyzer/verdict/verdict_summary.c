/* verdict_summary.c — the verdict's status and its summary line, from what the sinks, the
 * explanation and the alternatives decided: mismatch, hang, ok, or inconclusive (a rank stuck in
 * an NCCL call by its own word, most dumps lost, only lost dumps to blame, no entries at all).
 * verdict_title.c writes the lines; this file picks which one is true.
 */
#include "verdict/verdict_graph.h"
#include "verdict/verdict_possible.h"
#include "verdict/verdict_steps.h"
#include "verdict/verdict_title.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* Whether loaded rank node i is seen waiting: in the wait chain, possibly in a send/recv that its
 * backend does not record, or in a failed op, or pending in an op whose proven waits lead to a
 * culprit (reaches_culprit: a joint wait on a member whose older pending op waits on it; the
 * chain's levels list only who waits on a missing member) while its GPU cannot have stalled
 * there (reaches_culprit leaves such a rank out). Others waiting for it in an op it never issued
 * change nothing of that: its CPU stopped issuing while its stream waits on the lost rank, most
 * often in a synchronize behind that wait, and for it to have stopped on its own the lost rank,
 * alive with only its dump gone, would have to wait for it, which nothing shows (sim seeds 2397,
 * 4617, 8583: nine of 10 000 read "a stopped rank or a lost dump?" where the simulator and the
 * truth name the killed rank; unit a_rank_others_wait_for_behind_a_lost_rank_is_no_stopped_rank).
 * Unless what it waits on is a slot several lost ranks may fill (decider.slot_guessed): which
 * of them it waits for, the dumps do not say, and the other may be a lost dump behind it (held-out
 * sim seeds 13594, 15622 named two ranks for one slot). A rank whose dump is older than its
 * peers' is neither waiting nor idle: its dump says nothing of the end, and it is presumed to
 * have gone on (says_nothing_of_the_end). */
static bool seen_waiting(const decider *d, const uint8_t *reaches_culprit, size_t i) {
    int64_t r = d->facts[i].rank;
    return d->facts[i].maybe_in_p2p || d->facts[i].failed ||
           fa_ranks_contains(&d->v->levels[1].ranks, r) ||
           fa_ranks_contains(&d->v->levels[2].ranks, r) ||
           (reaches_culprit && reaches_culprit[i] && (!d->facts[i].waited || !d->slot_guessed));
}

/* Whether loaded rank node i's dump says nothing of where its rank stood at the end: none, or
 * one older than its peers' (presumed gone on), or one cut short that shows nothing pending in
 * its whole entries: what it did after the cut is unknown, as after an older dump (tests/sim's
 * E13; sim seeds 316, 5357, 6241: such a rank read as "waits for nobody" beside a killed one).
 * A cut dump with work pending shows the rank waiting as of its moment; one that kept no whole
 * entry shows nothing of it either way, and stays a rank that may have stopped (sim seed 9851). */
static bool says_nothing_of_the_end(const decider *d, size_t i) {
    const rank_facts *f = &d->facts[i];
    long ri = f->has_dump ? fa_input_find(d->in, f->rank) : -1;
    return !f->has_dump || (f->stale && (!f->cut || (!fa_vg_node_pending(d, i) && ri >= 0 &&
                                                     d->in->ranks[ri].dump->nentries > 0)));
}

/* Per rank node, 1 when a path of proven waits leads from it to a culprit's node (the culprits
 * included), and its own ops show no stall of its GPU (rank_facts.maybe_stalled: an op pending
 * that a peer completed, batched send/recv included): a walk back along the proven edges, linear
 * in the graph. NULL when the memory is not there (then only the chain's levels count). */
static uint8_t *reaches_culprit(const decider *d) {
    size_t n = d->g.nnodes, *back_at = NULL;
    uint32_t *back = NULL, *queue = malloc((n + 1) * sizeof *queue);
    uint8_t *mark = calloc(n + 1, 1);
    if (!queue || !mark || fa_vg_reverse_edges(&d->g, false, &back_at, &back)) {
        free(queue);
        free(mark);
        return NULL;
    }
    for (size_t c = 0; c < d->v->culprits.n; c++) {
        long node = fa_vg_rank_node(d, d->v->culprits.v[c]);
        if (node >= 0) mark[node] = 1;
    }
    fa_vg_mark_reaching(d, back_at, back, mark, queue);
    for (size_t v = 0; v < d->g.nrank_nodes; v++) mark[v] &= (uint8_t)!d->facts[v].maybe_stalled;
    free(back_at);
    free(back);
    free(queue);
    return mark;
}

/* Whether loaded rank node i, waiting for nobody, went past the point where every culprit stands
 * (fa_vg_passed_op: a later collective in the family of the op the culprit is waited for in): it
 * ran whatever it shares with them before that point, so none of them can be held up by it, and
 * a lost dump is no explanation of their absence (real seed 225: rank 0 killed in a DP broadcast
 * that rank 2 failed in, ranks 1 and 3 idle after the next DP reduce_scatter of their own DP
 * group). */
static bool past_every_culprit(const decider *d, size_t i) {
    long ri = fa_input_find(d->in, d->facts[i].rank);
    if (ri < 0 || !d->v->culprits.n) return false;
    for (size_t c = 0; c < d->v->culprits.n; c++) {
        long node = fa_vg_rank_node(d, d->v->culprits.v[c]);
        long op = node < 0 ? -1 : d->facts[node].missing_op;
        if (op < 0 || !fa_vg_passed_op(d, (size_t)ri, (size_t)op)) return false;
    }
    return true;
}

/* docs/database.md §6 names a member without a dump the culprit when all others wait for it. When
 * every culprit is such a member but some loaded ranks wait for nobody, the dumps cannot tell a
 * stopped rank from a lost dump: inconclusive. Unless gloo failed an op on each (rank_facts.died):
 * then they died, and a dead rank waits for nobody (sim seed 2895; one not proven dead beside
 * them keeps the doubt, sim seed 3523). *reach receives
 * reaches_culprit's marks when they were taken (for say_lost_dumps; the caller frees them). */
static bool only_lost_dumps(const decider *d, uint8_t **reach) {
    bool all_died = true;
    for (size_t i = 0; i < d->v->culprits.n; i++) {
        long node = fa_vg_rank_node(d, d->v->culprits.v[i]);
        if (node < 0 || d->facts[node].has_dump) return false;
        all_died &= d->facts[node].died;
    }
    if (all_died) return false;
    *reach = reaches_culprit(d);
    for (size_t i = 0; i < d->nfacts; i++)
        if (!says_nothing_of_the_end(d, i) && !seen_waiting(d, *reach, i) &&
            !past_every_culprit(d, i))
            return true;
    return false;
}

static void say_lost_dumps(decider *d, const uint8_t *reach) {
    fa_ranks waiting = { 0 }, idle = { 0 };
    for (size_t i = 0; i < d->nfacts; i++)
        if (!says_nothing_of_the_end(d, i))
            fa_ranks_add(seen_waiting(d, reach, i) ? &waiting : &idle, d->facts[i].rank);
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

/* Nothing blocked as far as the entries show, but gloo records no send/recv: a rank seen idle
 * may be blocked in one, and a rank that left no dump file (an unreadable file proves its rank
 * lived to dump) may be the peer it waits on, stopped or killed where nobody saw. The dumps do not
 * prove the job healthy then: inconclusive, naming both (sim seeds 1419, 1959, 5862: a two-rank
 * gloo job, rank 0 killed, rank 1 idle after its last collective, its groups rebuilt from its own
 * entries, so that nothing lists rank 0 beside it). */
static bool say_idle_beside_lost(decider *d) {
    fa_ranks idle = { 0 }, gone = { 0 };
    for (size_t i = 0; i < d->nfacts; i++) {
        const rank_facts *f = &d->facts[i];
        if (f->idle && !f->stale)
            fa_ranks_add(&idle, f->rank);
        else if (!f->has_dump && !f->unreadable)
            fa_ranks_add(&gone, f->rank);
    }
    bool say = idle.n && gone.n;
    if (say) {
        fa_ranks_normalize(&idle);
        fa_ranks_normalize(&gone);
        char *i = short_ranks(&idle), *g = short_ranks(&gone);
        d->v->status = FA_STATUS_INCONCLUSIVE;
        if (asprintf(&d->v->summary,
                     "inconclusive: rank%s %s idle, rank%s %s left no dump: a rank seen idle may "
                     "be blocked in a send/recv with a lost one",
                     idle.n > 1 ? "s" : "", i ? i : "?", gone.n > 1 ? "s" : "", g ? g : "?") < 0)
            d->v->summary = NULL;
        free(i);
        free(g);
    }
    fa_ranks_free(&idle);
    fa_ranks_free(&gone);
    return say;
}

/* Nothing named, yet ranks wait for ranks that are blocked themselves (the wait chain's level 1):
 * a cycle of waits whose root the dumps do not tell (each misses what the other is pending in,
 * and neither history shows which left the common order). Not ok: inconclusive, naming them. */
static bool say_unresolved_waits(decider *d) {
    const fa_wait_level *l = &d->v->levels[1];
    if (!l->ranks.n) return false;
    char *who = short_ranks(&l->ranks);
    d->v->status = FA_STATUS_INCONCLUSIVE;
    if (asprintf(&d->v->summary,
                 "inconclusive: rank%s %s wait for one another%s%s and the dumps do not tell "
                 "which left the common order",
                 l->ranks.n > 1 ? "s" : "", who ? who : "?", l->via ? " in " : "",
                 l->via ? l->via : "") < 0)
        d->v->summary = NULL;
    free(who);
    return true;
}

/* Nothing named, yet the members seen of a group rebuilt from the entries all wait in one of its
 * collectives, which no member completed and no rank without a dump could join
 * (decider.unplaced_op): its other members are ranks whose dumps record nothing in that group,
 * and the dumps do not say which (gloo names no member; sim seed 8475: rank 2 blocked in its
 * data-parallel group's first all_reduce, rank 3 stopped before it). Not ok: inconclusive. */
static bool say_unplaced_waits(decider *d) {
    if (d->unplaced_op < 0) return false;
    size_t op = (size_t)d->unplaced_op;
    const fa_group *grp = &d->groups->v[d->m->ops[op].group];
    fa_ranks waiting = { 0 };
    uint32_t n = fa_vg_expected_states(d, op);
    for (uint32_t k = 0; k < n; k++)
        if (fa_member_state_pending(d->states[k]))
            fa_ranks_add(&waiting, grp->members[d->members[k]]);
    fa_ranks_normalize(&waiting);
    char group[300], label[200];
    fa_vg_context(d, op, group, sizeof group, label, sizeof label);
    char *who = short_ranks(&waiting);
    d->v->status = FA_STATUS_INCONCLUSIVE;
    if (asprintf(&d->v->summary,
                 "inconclusive: rank%s %s wait%s in %s %s, whose other members recorded nothing "
                 "there: the dumps do not say which ranks those are",
                 waiting.n > 1 ? "s" : "", who ? who : "?", waiting.n > 1 ? "" : "s", group,
                 label) < 0)
        d->v->summary = NULL;
    free(who);
    fa_ranks_free(&waiting);
    return true;
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

/* The highest global rank that left a readable dump. Global ranks are dense from 0, so every
 * rank below it is surely one of the job's, whatever the groups say (gloo dumps, whose groups
 * are rebuilt from the entries, name no member that left no dump). Not a rejected file's rank:
 * a file named like a dump that is not one (junk named rank_9 beside a 4-rank job's dumps)
 * proves no rank. */
static int64_t highest_dumped_rank(const fa_input *in) {
    int64_t top = -1;
    for (size_t r = 0; r < in->nranks; r++)
        if (in->ranks[r].rank > top) top = in->ranks[r].rank;
    return top;
}

/* Most of the job's ranks left no readable dump: the few that did cannot speak for the job
 * (an all_to_all mismatch that made every peer abort leaves one dump that looks healthy). A
 * rank counts as the job's when a vouched group lists it or a higher rank left a readable dump. */
static bool most_ranks_lost(const decider *d) {
    size_t lost = 0, known = d->nfacts - d->nunseen;
    int64_t top = highest_dumped_rank(d->in);
    uint8_t *vouched = calloc(d->groups->n + 1, 1);
    if (!vouched) return false;
    vouch_for_groups(d, vouched);
    for (size_t u = 0; u < d->nunseen; u++) {
        int64_t rank = d->facts[d->unseen[u]].rank;
        bool member = rank < top;
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
                 "inconclusive: %zu of %zu ranks left no readable dump (ranks %s); %zu dump%s "
                 "cannot speak for the job",
                 d->nunseen, d->nfacts, who ? who : "?", d->nfacts - d->nunseen,
                 d->nfacts - d->nunseen == 1 ? "" : "s") < 0)
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
    if (p2p) g = p2p;     /* where the send/recv that may have gone amiss runs */
    char label[200] = ""; /* a group without a description: "group N", as everywhere */
    if (g && fa_desc_says_nothing(g->desc)) fa_group_label(g, label, sizeof label);
    const char *where = !g ? NULL : label[0] ? label : g->desc;
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
    bool p2p = false, lost = false, order = false, pair = false, stall = false, ran_past = false;
    char clauses[600] = "", previous[300] = "";
    size_t at = 0;
    for (size_t i = 0; i < d->nambiguities && at < sizeof clauses; i++) {
        char one[300];
        ambiguity_clause(d, &d->ambiguities[i], one, sizeof one);
        /* "rank 0 or 1 and rank 6 or 7 in PIPELINE_MODEL_PARALLEL_GROUP": one group said once */
        const char *in = strstr(one, " in "), *was = strstr(previous, " in ");
        if (i && in && was && strcmp(in, was) == 0 && at >= strlen(was) &&
            strcmp(clauses + at - strlen(was), was) == 0) {
            at -= strlen(was);
            at += (size_t)snprintf(clauses + at, sizeof clauses - at, " and %s", one);
        } else {
            at += (size_t)snprintf(clauses + at, sizeof clauses - at, "%s%s", i ? "; " : "", one);
        }
        snprintf(previous, sizeof previous, "%s", one);
        for (size_t k = 0; k < d->ambiguities[i].n; k++) {
            const char *why = d->ambiguities[i].options[k].why;
            const rank_facts *f = &d->facts[d->ambiguities[i].options[k].node];
            p2p |= why == FA_WHY_SKIPPED_P2P || f->maybe_in_p2p;
            lost |= why == FA_WHY_NO_DUMP || why == FA_WHY_STALE;
            order |= why == FA_WHY_ORDER;
            pair |= why == FA_WHY_PAIR_ORDER;
            stall |= why == FA_WHY_STALLED_AFTER;
            ran_past |= why == FA_WHY_RAN_PAST;
        }
    }
    const char *why = order   ? "two ranks ran it in two orders: one left an op out, or the other "
                                "ran one too many"
                      : pair  ? "two ranks posted their send/recv in two orders: one left one "
                                "out, or the other posted one too many; no sibling shows which"
                      : stall ? "one never posted its end of a send/recv, or the other's GPU "
                                "stalled after the transfer: the first's dump keeps only what is "
                                "in flight"
                      : ran_past    ? "a dump whose peers completed what it shows issued is "
                                      "older, or its GPU ran past what it recorded and stopped"
                      : p2p && lost ? "gloo records no send/recv, and a dump is lost or older"
                      : p2p         ? "one stopped; gloo records no send/recv"
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

void fa_vs_summarize(decider *d, size_t before, bool mismatch, bool stuck) {
    fa_verdict *v = d->v;
    const fa_input *in = d->in;
    const fa_match *m = d->m;
    fa_ranks stuck_in_api = { 0 };
    stuck_ranks(d, &stuck_in_api);
    bool lost = false;
    uint8_t *reach = NULL; /* only_lost_dumps' marks, for say_lost_dumps */
    /* a mismatch seen between two dumps of a job most of whose ranks left none has no majority
     * to tell the odd ones out: most lost comes first (real torch job, interop seed 24 loaded) */
    if (mismatch && !most_ranks_lost(d)) {
        v->status = FA_STATUS_MISMATCH;
        summarize(d, "mismatch", fa_finding_is_mismatch, 0, NULL);
    } else if (stuck_in_api.n && !v->culprits.n && !stuck && !d->nambiguities) {
        say_stuck(d, &stuck_in_api); /* its own dump says more than the missing ones */
    } else if (most_ranks_lost(d)) {
        say_most_lost(d);
        lost = true; /* the gloo note says nothing the summary needs then */
    } else if (v->culprits.n && !d->nambiguities && only_lost_dumps(d, &reach)) {
        v->status = FA_STATUS_INCONCLUSIVE;
        say_lost_dumps(d, reach);
        fa_ranks_free(&v->culprits);
    } else if (v->culprits.n || stuck || d->nambiguities) {
        v->status = FA_STATUS_HANG;
        if (v->culprits.n || stuck) {
            char *note = unreadable_note(d, any_unrecorded_p2p(in) ? GLOO_NOTE : NULL);
            summarize(d, "hang", culprit_kind, before, note);
            free(note);
        }
        say_ambiguous(d);
    } else if (!m->any_entries && !any_status(in)) {
        v->status = FA_STATUS_INCONCLUSIVE;
        v->summary = strdup("inconclusive: the dumps hold no Flight Recorder entries (dumped "
                            "without collectives, or the buffer was off)");
    } else if (!say_unresolved_waits(d) && !(any_unrecorded_p2p(in) && say_idle_beside_lost(d)) &&
               !say_unplaced_waits(d)) {
        say_ok(d);
    }
    (void)missing_dump_with_op;
    free(reach);
    fa_ranks_free(&stuck_in_api);
    if (v->status == FA_STATUS_INCONCLUSIVE && !lost) say_unrecorded_p2p(d);
}
