/* match.c — collectives by (group, seq), send/recv by peer and order, agreement checks.
 *
 * The build runs in four steps (see match.h for the rules):
 *   1. walk each rank's entries once, in record order: attribute each to its group, grow the
 *      member's view (issued/completed counters), and cut the entries into calls — collective
 *      calls get an op through (group, seq, occurrence) and are kept compact in walk order,
 *      counted per op; send/recv go to a side list;
 *   2. place the collective calls straight into their final slots (ops in creation order, each
 *      op's calls in rank order), now that every op's size is known;
 *      (steps 1 and 2 are match_walk.c's, on every core, with the same result as one walk)
 *   3. order the send/recv list by (group, sender, receiver, side, order) and pair it into ops,
 *      whose calls follow the collective ones (sort_p2p: a counting sort over the runs);
 *   4. fold in pg_status and check each op: all cores sort each op's calls by member and screen
 *      it, one thread reports on the ones that are not clean, in op order (check_all). An op
 *      whose calls are all one entry with the same interned values (fa_walk.uniform) is screened
 *      by its first call alone.
 * Step 3 is match_p2p.c's, step 4 match_check.c's; comparing entries is match_compare.c's
 * (their shared types in match_build.h). Everything is linear in the number of entries.
 * FRTRACE_TIMING=1 prints the steps' wall times to stderr.
 */
#include "match/match.h"
#include "match/match_build.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/timing.h"
#include "util/index.h"
#include "match/match_walk.h"
#include "util/parallel.h"

/* Where a member's pg_status counts send/recv alone, so that its last enqueued and completed
 * numbers are p2p_seq_ids: PyTorch numbers a send/recv's work with the group's send/recv counter
 * and a collective's with the collective counter, and pg_status keeps the number of the last
 * work enqueued and completed, whichever counter gave it. A member whose entries in the group
 * all carry collective_seq_id 0 (a send/recv entry carries the collective count so far, and a
 * collective after its newest entry would be in the dump) ran no collective there. In a group
 * of two both sides number every send/recv between them alike, so the numbers are the op's,
 * below the member's oldest send/recv entry there (p2p_min: where its window dropped them; a
 * number its entries show went to that entry, and one that left a send/recv out numbers the
 * rest differently: tests/sim seed 149). In a group of any size such a member's numbers are its
 * own send/recv's (counts_own_p2p): they compare with its own entries' p2p_seq_ids alone.
 * Runs after the walk (issued_max is the entries' collective numbers alone) and before
 * fold_status raises it. Not gloo's (its counters count op ids) nor the recorder's launch
 * numbers. */
static bool nccl_numbered(const fa_dump *d) { return d && fa_dump_nccl_numbered(d); }

/* A member of a group of two whose window holds no entry there (an only-active dump dropped
 * what completed, a ring the old ones) counts send/recv alone too where its peer's entries there
 * all carry collective_seq_id 0: a collective completes on nobody before every member issued it,
 * and the peer issued none before its newest entry there, so a number the member completed is
 * a send/recv's, or a collective's that the peer issued after every send/recv it shows, which
 * then completed on its stream, their other sides (the member's) done (tests/sim seed 3347:
 * pipeline pair 846/386, 846's send #4 pending, 386's "completed 4" with no entry left, read as
 * "386 never posted its recv" where 846's GPU stalled). */
static void p2p_counters_unshown(const fa_input *in, const fa_group *g, fa_match *m, size_t gi) {
    for (uint32_t p = 0; p < 2; p++) {
        fa_view *v = view_of(m, (uint32_t)gi, p), *peer = view_of(m, (uint32_t)gi, 1 - p);
        long ri = g->member_input[p];
        if (v->has_entries || ri < 0 || !peer->counts_p2p) continue;
        v->counts_p2p = nccl_numbered(in->ranks[ri].dump);
    }
}

static void p2p_counters(const fa_input *in, const fa_groups *groups, fa_match *m) {
    for (size_t gi = 0; gi < groups->n; gi++) {
        const fa_group *g = &groups->v[gi];
        for (uint32_t p = 0; p < g->nmembers; p++) {
            fa_view *v = view_of(m, (uint32_t)gi, p);
            long ri = g->member_input[p];
            const fa_dump *d = ri >= 0 ? in->ranks[ri].dump : NULL;
            v->counts_own_p2p =
                v->has_entries && !v->has_collective && v->issued_max <= 0 && nccl_numbered(d);
            v->counts_p2p = g->nmembers == 2 && v->counts_own_p2p;
        }
        if (g->nmembers == 2) p2p_counters_unshown(in, g, m, gi);
    }
}

/* Per view, the pg_id its dump's pg_status counts the group under (ids[v]): the one its own
 * entries carry, else the one its peers' entries there agree on; -1 unknown. */
static void agreed_pg_ids(const fa_groups *groups, fa_match *m, int64_t *ids) {
    for (size_t gi = 0; gi < groups->n; gi++) {
        const fa_group *g = &groups->v[gi];
        int64_t consensus = -1;
        bool agree = true;
        for (uint32_t p = 0; p < g->nmembers; p++) {
            fa_view *v = view_of(m, (uint32_t)gi, p);
            if (v->pg_id < 0) continue;
            if (consensus >= 0 && consensus != v->pg_id) agree = false;
            consensus = v->pg_id;
        }
        for (uint32_t p = 0; p < g->nmembers; p++) {
            fa_view *v = view_of(m, (uint32_t)gi, p);
            ids[m->view_at[gi] + p] = v->pg_id >= 0 ? v->pg_id : (agree ? consensus : -1);
        }
    }
}

/* The view of input rank ri in the group its pg_config names at slot j, or SIZE_MAX. */
static size_t config_view(const fa_input *in, const fa_groups *groups, const fa_match *m, size_t ri,
                          uint32_t j) {
    return fa_mb_view_named(in, groups, m, ri, in->ranks[ri].dump->groups[j].name);
}

/* Whether some group of the dump's pg_config other than slot `skip` is counted under `id`. */
static bool id_claimed(const fa_input *in, const fa_groups *groups, const fa_match *m,
                       const int64_t *ids, size_t ri, uint32_t skip, int64_t id) {
    const fa_dump *d = in->ranks[ri].dump;
    for (uint32_t j = 0; j < d->ngroups; j++) {
        size_t v = j == skip ? SIZE_MAX : config_view(in, groups, m, ri, j);
        if (v != SIZE_MAX && ids[v] == id) return true;
    }
    return false;
}

/* A group that no dump's entries number (an only-active dump keeps no entry of a group whose
 * work all completed; a ring drops the oldest) still has its pg_status counters: PyTorch's
 * pg_config lists every group the process made (its recorder notes a group when the group is
 * made), pg_status each group that recorded work, under the group's pg_id. Where a NCCL dump's
 * pg_config holds exactly one group whose pg_id is unknown and its pg_status exactly one pg_id
 * that no other group of its pg_config claims, they are each other's: no other group is left
 * to own that counter (tests/sim seed 11786: rank 2's default_pg "enqueued 1" where its peers
 * completed #2, no entry of default_pg anywhere, so its dump was not seen older and its pending
 * all_reduce #3 read as a stalled GPU). A member left without a pg_id and without entries has
 * counters nobody can name (fa_view.counters_unknown): what it issued there is unknown, never
 * "nothing" (sim seed 7832: 359 ranks with two groups unnamed read as older dumps). */
static void pg_ids_by_elimination(const fa_input *in, const fa_groups *groups, const fa_match *m,
                                  int64_t *ids) {
    for (size_t ri = 0; ri < in->nranks; ri++) {
        const fa_dump *d = in->ranks[ri].dump;
        if (!nccl_numbered(d) || d->truncated) continue;
        size_t unknown = SIZE_MAX;
        uint32_t nunknown = 0, slot = 0, nfree = 0;
        for (uint32_t j = 0; j < d->ngroups; j++) {
            size_t v = config_view(in, groups, m, ri, j);
            if (v == SIZE_MAX || ids[v] < 0) unknown = v, slot = j, nunknown++;
        }
        if (nunknown != 1 || unknown == SIZE_MAX) continue;
        int64_t id = -1;
        for (uint32_t s = 0; s < d->nstatus; s++) {
            bool seen = false; /* pg_status names each pg_id once; a repeat is not a second */
            for (uint32_t t = 0; t < s && !seen; t++)
                seen = d->status[t].pg_id == d->status[s].pg_id;
            if (seen || id_claimed(in, groups, m, ids, ri, slot, d->status[s].pg_id)) continue;
            id = d->status[s].pg_id;
            nfree++;
        }
        if (nfree == 1) ids[unknown] = id;
    }
}

/* The send/recv count that input rank ri's newest entry in group gi carries (its p2p_seq_id: the
 * group's send/recv launches so far), -1 none: the newest entry of the dump's pg slots that name
 * the group. */
static int64_t newest_p2p_count(const fa_input *in, const fa_groups *groups, long ri, size_t gi) {
    const fa_dump *d = in->ranks[ri].dump;
    const fa_entry *newest = NULL;
    for (uint32_t k = 0; k < d->npgs; k++) {
        const fa_entry *e = fa_groups_find(groups, (size_t)ri, d->pgs[k].name) == (long)gi
                                ? fa_dump_last_in_slot(d, k)
                                : NULL;
        if (e && (!newest || e > newest)) newest = e;
    }
    return newest ? fa_entry_p2p_seq(d, newest) : -1;
}

/* A member of a group of two whose window holds no entry there counts send/recv too where its
 * own pg_status number there (ids: the pg_id counting it) is above every collective its peer's
 * entries show issued, and no higher than the send/recv count the peer's newest entry there
 * carries: a collective completes on nobody before every member issued it, so the number is a
 * send/recv's (else the peer's dump is older, which nothing shows). Before fold_status raises
 * issued_max (tests/sim seed 16614: rank 0's "completed 8" in its pipeline pair, its eighth
 * send/recv, read as completing the all_reduce #1 that rank 1 issued there by mistake). */
static void p2p_counters_above_peer(const fa_input *in, const fa_groups *groups, fa_match *m,
                                    size_t gi, const int64_t *ids) {
    const fa_group *g = &groups->v[gi];
    for (uint32_t p = 0; g->nmembers == 2 && p < 2; p++) {
        fa_view *v = view_of(m, (uint32_t)gi, p), *peer = view_of(m, (uint32_t)gi, 1 - p);
        long ri = g->member_input[p], pi = g->member_input[1 - p];
        int64_t pg_id = ids[m->view_at[gi] + p];
        if (v->has_entries || v->counts_p2p || ri < 0 || pi < 0 || pg_id < 0 ||
            !peer->has_collective || !nccl_numbered(in->ranks[ri].dump))
            continue;
        int64_t done = fa_dump_status_completed(in->ranks[ri].dump, pg_id);
        v->counts_p2p = done > peer->issued_max && done <= newest_p2p_count(in, groups, pi, gi);
    }
}

static void fold_status(const fa_input *in, const fa_groups *groups, fa_match *m) {
    size_t nviews = groups->n ? m->view_at[groups->n - 1] + groups->v[groups->n - 1].nmembers : 0;
    int64_t *ids = malloc((nviews + 1) * sizeof *ids);
    if (!ids) return;
    agreed_pg_ids(groups, m, ids);
    pg_ids_by_elimination(in, groups, m, ids);
    for (size_t gi = 0; gi < groups->n; gi++) p2p_counters_above_peer(in, groups, m, gi, ids);
    for (size_t gi = 0; gi < groups->n; gi++) {
        const fa_group *g = &groups->v[gi];
        for (uint32_t p = 0; p < g->nmembers; p++) {
            fa_view *v = view_of(m, (uint32_t)gi, p);
            v->has_dump = g->member_input[p] >= 0;
            int64_t pg_id = ids[m->view_at[gi] + p];
            v->counters_unknown = v->has_dump && pg_id < 0 && !v->has_entries;
            if (!v->has_dump || pg_id < 0) continue;
            const fa_dump *d = in->ranks[g->member_input[p]].dump;
            for (uint32_t s = 0; s < d->nstatus; s++) {
                if (d->status[s].pg_id != pg_id) continue;
                if (d->status[s].last_enqueued > v->issued_max)
                    v->issued_max = d->status[s].last_enqueued;
                if (d->status[s].last_completed > v->completed_max)
                    v->completed_max = d->status[s].last_completed;
            }
        }
    }
    free(ids);
}

/* Whether the member completed, in the group, work it issued after send/recv call c, c being
 * part of a batch: a number it completed there (pg_status's last completed, a completed
 * collective) above both counts that c's entries carry (collective_seq_id and p2p_seq_id: the
 * group's collectives and send/recv launches so far, c's own included). Whichever counter gave
 * that number (PyTorch's pg_status mixes them where send/recv ran), the work came after c. A
 * batch runs on the group's own communicator and stream, as its collectives do, in issue
 * order: it completed too (tests/sim seeds 4525, 4771, 9616: a batch at the end of an
 * only-active dump, its entries left "scheduled" when its dropped end marker completed, and the
 * group's next collective completed). Not a lone send/recv: PyTorch runs it on a communicator
 * of the pair, its own stream, which later work does not wait for (real run gpu_error_1st:
 * rank 3's send to 15 pending behind completed work of its pipeline group). Not gloo's (its
 * calls block, its counters count op ids, a retired op may have failed). */
static bool later_work_done(const fa_match *m, const fa_input *in, const fa_call *c,
                            const fa_view *v) {
    const fa_dump *d = in->ranks[c->rank_index].dump;
    if (d->blocks_caller || v->completed_max < 1 ||
        !fa_mb_in_visible_batch(in, d, fa_call_entry_index(m, c, 0)))
        return false;
    for (uint32_t k = 0; k < fa_call_nentries(m, c); k++) {
        const fa_entry *e = fa_call_entry(m, in, c, k);
        if (fa_entry_coll_seq(d, e) >= v->completed_max ||
            fa_entry_p2p_seq(d, e) >= v->completed_max)
            return false;
    }
    return true;
}

/* Whether dump entry e (of pg slot pg) and entry n are the same launch's members: both
 * collectives with one collective_seq_id, or both send/recv with one p2p_seq_id (no end marker). */
static bool same_launch_member(const fa_input *in, const fa_dump *d, const fa_entry *e,
                               const fa_entry *n, uint32_t pg) {
    const fa_traits *te = fa_entry_traits(in->store, e), *tn = fa_entry_traits(in->store, n);
    if (tn->pg != pg || te->is_p2p != tn->is_p2p ||
        (fa_store_op(in->store, tn->name)->flags & FA_OP_END_MARKER))
        return false;
    return te->is_p2p ? fa_entry_p2p_seq_in(d, e, pg) == fa_entry_p2p_seq_in(d, n, pg)
                      : fa_entry_coll_seq_in(d, e, pg) == fa_entry_coll_seq_in(d, n, pg);
}

/* Whether some dump of the job with NCCL's numbering shows a bundle's or batch's end marker:
 * the job's PyTorch records them. */
static bool job_records_markers(const fa_input *in) {
    for (size_t r = 0; r < in->nranks; r++) {
        const fa_dump *d = in->ranks[r].dump;
        for (uint32_t i = 0; d && nccl_numbered(d) && i < d->nentries; i++)
            if (fa_store_op(in->store, fa_entry_traits(in->store, &d->entries[i])->name)->flags &
                FA_OP_END_MARKER)
                return true;
    }
    return false;
}

/* What c's dump says of the end marker of the bundle or batch c belongs to, where c is one of
 * its members (its own entries, or an entry beside it, are of the same launch), the record
 * after its members' is missing from the dump, and no marker of it follows: 2 when the group's
 * next operation follows instead, 1 when nothing of the group follows, 0 otherwise (a marker
 * follows, c is no member, no record is missing, or a dump whose members' states are their own:
 * gloo records no markers, the recorder updates its members). Members that end the dump are
 * 2 too where the job records markers (`marks`) and the dump was not cut: PyTorch records the
 * marker right after them, and only an only-active dump drops an entry after ones it keeps, a
 * completed one (tests/sim seed 16972: ranks 3-6 of a ring exchange on default_pg, whose
 * batches ran, read as waiting on the ranks with older dumps). */
static int unmarked_bundle(const fa_input *in, const fa_match *m, const fa_call *c, bool marks) {
    const fa_dump *d = in->ranks[c->rank_index].dump;
    uint32_t n = fa_call_nentries(m, c), i = fa_call_entry_index(m, c, 0),
             last = fa_call_entry_index(m, c, n - 1);
    const fa_entry *e = &d->entries[i];
    uint32_t pg = fa_entry_pg(in->store, e);
    bool member = n > 1 ? same_launch_member(in, d, e, &d->entries[last], pg)
                        : (i > 0 && same_launch_member(in, d, e, e - 1, pg)) ||
                              (i + 1 < d->nentries && same_launch_member(in, d, e, e + 1, pg));
    /* the members run on to the bundle's last one: a bundle of several types is one call per
     * type, and the gap after the last shows the marker that closed them all dropped (sim
     * seeds 4956, 5111: the all_reduce of an all_reduce+broadcast bundle left pending) */
    while (member && last + 1 < d->nentries &&
           same_launch_member(in, d, e, &d->entries[last + 1], pg))
        last++;
    if (member && nccl_numbered(d) && last + 1 >= d->nentries)
        return marks && !d->truncated ? 2 : 0;
    /* the record after the members' is gone: the dump dropped it (a marker never recorded, as
     * where a job's PyTorch writes none, leaves no gap) */
    if (!member || !nccl_numbered(d) || last + 1 >= d->nentries ||
        fa_entry_record_id(d, &d->entries[last + 1]) <=
            fa_entry_record_id(d, &d->entries[last]) + 1)
        return 0;
    bool p2p = fa_entry_traits(in->store, e)->is_p2p;
    for (uint32_t j = last + 1; j < d->nentries; j++) {
        const fa_entry *x = &d->entries[j];
        if (fa_entry_pg(in->store, x) != pg || same_launch_member(in, d, e, x, pg)) continue;
        const fa_traits *t = fa_entry_traits(in->store, x);
        bool marker = (fa_store_op(in->store, t->name)->flags & FA_OP_END_MARKER) != 0;
        bool its_own =
            marker && (p2p ? fa_entry_p2p_seq_in(d, x, pg) == fa_entry_p2p_seq_in(d, e, pg)
                           : fa_entry_coll_seq_in(d, x, pg) == fa_entry_coll_seq_in(d, e, pg));
        return its_own ? 0 : 2;
    }
    return 1;
}

/* Bundle members whose end marker completed, read as completed. PyTorch records a coalesced
 * bundle's or a batch's end marker right after its members, when the bundle ends, before it is
 * launched and before the group's next operation, and leaves the members "scheduled" (the
 * marker carries the launch's state). A dump drops an entry between ones it keeps only when
 * that entry completed (only-active; a ring drops the oldest, a cut the newest). So where the
 * record after the members is missing, the marker was dropped, completed, and the members with
 * it, where the group's next operation follows them (recorded after the marker), or where
 * another member completed the op (it was launched everywhere, so its marker was recorded)
 * (tests/sim seeds 4806, 6007, 9097: ranks read as stalled in a coalesced collective whose
 * marker completed). */
static void complete_unmarked(const fa_input *in, fa_match *m) {
    bool marks = job_records_markers(in);
    for (int pass = 0; pass < 2; pass++)
        for (size_t op = 0; op < m->nops; op++) {
            const fa_op *o = &m->ops[op];
            bool done = false;
            for (uint32_t k = 0; pass && k < o->ncalls && !done; k++)
                done = m->calls[o->first_call + k].state == FR_STATE_COMPLETED;
            for (uint32_t k = 0; k < o->ncalls; k++) {
                fa_call *c = &m->calls[o->first_call + k];
                if (c->state == FR_STATE_COMPLETED) continue;
                int how = unmarked_bundle(in, m, c, marks);
                bool ran = how == 2 || (how == 1 && done);
                c->state = ran ? FR_STATE_COMPLETED : c->state;
            }
        }
}

/* A send/recv whose entries still say pending while the member's own counters, where they
 * number send/recv alone (fa_view.counts_p2p, counts_own_p2p), say it completed: its own number
 * (the entry's p2p_seq_id, from the same counter) is at most its last completed one. PyTorch leaves
 * a batch's send/recv entries "scheduled" when the batch completed (tests/sim seed 929: rank 270,
 * its counters at 20 completed, read as waiting in its p2p #1; seed 12320: a pipeline of four
 * stages). */
static void complete_p2p_by_counters(const fa_input *in, fa_match *m, const fa_op *o) {
    for (uint32_t i = 0; i < o->ncalls; i++) {
        fa_call *c = &m->calls[o->first_call + i];
        const fa_view *v = view_of(m, o->group, c->member);
        const fa_dump *d = in->ranks[c->rank_index].dump;
        if (c->state == FR_STATE_COMPLETED) continue;
        bool done = v->counts_p2p || v->counts_own_p2p;
        for (uint32_t k = 0; k < fa_call_nentries(m, c) && done; k++)
            done = fa_entry_p2p_seq(d, fa_call_entry(m, in, c, k)) <= v->completed_max;
        done |= later_work_done(m, in, c, v);
        c->state = done ? FR_STATE_COMPLETED : c->state;
    }
}

/* Whether collective call c's entries carry a p2p_seq_id above 0: its rank had issued send/recv
 * in the group before it, though its window may hold none of them (an only-active dump drops the
 * completed ones, a ring the old ones). PyTorch's pg_status then may count send/recv numbers
 * (tests/sim seed 10900: rank 0's last completed 1 was its batch p2p #1, not its pending
 * all_reduce_barrier #1). */
static bool counted_p2p_before(const fa_input *in, const fa_match *m, const fa_call *c) {
    const fa_dump *d = in->ranks[c->rank_index].dump;
    for (uint32_t k = 0; k < fa_call_nentries(m, c); k++)
        if (fa_entry_p2p_seq(d, fa_call_entry(m, in, c, k)) > 0) return true;
    return false;
}

static int64_t *p2p_number_bounds(const fa_input *in, const fa_groups *groups, size_t nviews,
                                  const fa_match *m);

/* A collective whose entries still say pending while the rank's own counters (pg_status, or
 * in-order completion) say it completed: the counters win. PyTorch leaves the entries of a
 * coalesced bundle "scheduled" when their end marker completed, and an only-active dump drops
 * that marker with the completed entries. Where the member also has send/recv in the group,
 * PyTorch's counters mix in send/recv numbers: only a completed number above every send/recv
 * number the member can have reached (p2p_number_bounds) is a collective's (sim seed 12173: rank
 * 12's "completed 3", its send/recv all #1, its bundle #3 left scheduled, read as a dump older
 * than its peers' and the rank whose CPU stopped offered as "unknown"). Not for gloo (its
 * counters count op ids, and a retired op may have failed) nor launch-numbered dumps (their
 * numbers mix send/recv batches). Returns -1 when out of memory. */
static int complete_by_counters(const fa_input *in, const fa_groups *groups, fa_match *m) {
    size_t nviews = groups->n ? m->view_at[groups->n - 1] + groups->v[groups->n - 1].nmembers : 0;
    bool *has_p2p = calloc(nviews + 1, 1);
    int64_t *p2p_bound = has_p2p ? p2p_number_bounds(in, groups, nviews, m) : NULL;
    if (!has_p2p || !p2p_bound) {
        free(has_p2p);
        return -1;
    }
    for (size_t op = 0; op < m->nops; op++)
        for (uint32_t i = 0; i < m->ops[op].ncalls; i++) {
            const fa_call *c = &m->calls[m->ops[op].first_call + i];
            if (m->ops[op].is_p2p || counted_p2p_before(in, m, c))
                has_p2p[m->view_at[m->ops[op].group] + c->member] = true;
        }
    for (size_t op = 0; op < m->nops; op++) {
        const fa_op *o = &m->ops[op];
        if (o->is_p2p) {
            complete_p2p_by_counters(in, m, o);
            continue;
        }
        for (uint32_t i = 0; i < o->ncalls; i++) {
            fa_call *c = &m->calls[o->first_call + i];
            const fa_view *v = view_of(m, o->group, c->member);
            const fa_dump *d = in->ranks[c->rank_index].dump;
            size_t at = m->view_at[o->group] + c->member;
            if (c->state != FR_STATE_COMPLETED && o->seq <= v->completed_max && !d->blocks_caller &&
                !d->launch_numbered && (!has_p2p[at] || v->completed_max > p2p_bound[at]))
                c->state = FR_STATE_COMPLETED;
        }
    }
    free(has_p2p);
    free(p2p_bound);
    complete_unmarked(in, m);
    return 0;
}

/* ---------------------------------------------------------------- public ------------ */

static int alloc_views(const fa_input *in, const fa_groups *groups, fa_match *m) {
    size_t nviews = 0;
    m->view_at = calloc(groups->n + 1, sizeof *m->view_at);
    if (!m->view_at) return -1;
    for (size_t g = 0; g < groups->n; g++) {
        m->view_at[g] = nviews;
        nviews += groups->v[g].nmembers;
    }
    m->views = calloc(nviews + 1, sizeof *m->views);
    m->rank_newest_pending = calloc(in->nranks + 1, sizeof *m->rank_newest_pending);
    m->rank_stale = malloc((in->nranks + 1) * sizeof *m->rank_stale);
    if (!m->views || !m->rank_newest_pending || !m->rank_stale) return -1;
    for (size_t i = 0; i < nviews; i++)
        m->views[i] = (fa_view){ .issued_max = -1,
                                 .completed_max = -1,
                                 .pg_id = -1,
                                 .window_min = INT64_MAX,
                                 .p2p_min = INT64_MAX,
                                 .p2p_run = -1 };
    for (size_t r = 0; r <= in->nranks; r++)
        m->rank_stale[r] = fa_stale_none(r < in->nranks && in->ranks[r].dump->truncated);
    return 0;
}

/* fa_p2p_dropped (match.h): one pass over the member's entries, asked only of a pair member
 * whose counters number send/recv and whose window the op's number falls inside. */
bool fa_p2p_dropped(const fa_match *m, const fa_groups *groups, size_t op, uint32_t member) {
    const fa_op *o = &m->ops[op];
    long ri = groups->v[o->group].member_input[member];
    const fa_dump *d = ri >= 0 ? m->in->ranks[ri].dump : NULL;
    if (!d || fa_dump_window_whole(d)) return false;
    for (uint32_t i = 0; i < d->nentries; i++) {
        const fa_entry *e = &d->entries[i];
        const fa_traits *t = fa_entry_traits(m->in->store, e);
        if (t->is_p2p && fa_entry_p2p_seq(d, e) == o->seq &&
            fa_groups_find(groups, (size_t)ri, d->pgs[t->pg].name) == (long)o->group)
            return false;
    }
    return true;
}

/* Whether call c's completion proves that every member of its op issued it: surely completed
 * (not gloo's uncertain "retired" on the rank's newest entry), and not a rooted collective
 * (broadcast, scatter, gather, reduce) of a backend that runs it on the host one-to-all, as gloo
 * does: a broadcast's receiver goes on once the root's data came, whether or not another member
 * ever joined. (NCCL's rings pass the data through every member, as before.) */
bool fa_call_proves_all_joined(const fa_match *m, const fa_input *in, const fa_call *c) {
    if (c->state != FR_STATE_COMPLETED || fa_call_end_uncertain(m, in, c)) return false;
    return !fa_call_one_to_all(in, m, c);
}

bool fa_call_one_to_all(const fa_input *in, const fa_match *m, const fa_call *c) {
    if (!in->ranks[c->rank_index].dump->blocks_caller) return false;
    const fa_traits *t = fa_entry_traits(in->store, fa_call_entry(m, in, c, 0));
    return (fa_store_op(in->store, t->name)->flags & FA_OP_ROOTED) != 0;
}

/* The record id where call c's launch begins: its own first entry's, or for a send/recv that of
 * the first entry of its batch (the entries before it with its group and p2p_seq_id), which
 * is launched as a whole. */
static int64_t launch_record(const fa_match *m, const fa_input *in, const fa_op *o,
                             const fa_call *c) {
    const fa_dump *d = in->ranks[c->rank_index].dump;
    uint32_t at = fa_call_entry_index(m, c, 0);
    const fa_entry *e = &d->entries[at];
    uint32_t pg = fa_entry_pg(in->store, e);
    int64_t seq = fa_entry_p2p_seq(d, e);
    while (o->is_p2p && at > 0 && fa_entry_pg(in->store, &d->entries[at - 1]) == pg &&
           fa_entry_p2p_seq(d, &d->entries[at - 1]) == seq)
        at--;
    return fa_entry_record_id(d, &d->entries[at]);
}

/* Whether collective call c, one entry left pending, is a launch of its own: its GPU started
 * it (PyTorch leaves no bundle member "started": the members stay "scheduled", or follow the
 * launch, whose end marker then stays in the dump beside them), or the dump keeps the record
 * right after it and that is no member of the same launch (PyTorch records a bundle's end
 * marker right after its members, so a member whose marker an only-active dump dropped, it
 * having completed, leaves a gap there, or a member of another type). */
static bool surely_own_launch(const fa_match *m, const fa_input *in, const fa_call *c) {
    if (fa_call_nentries(m, c) != 1) return false;
    if (c->state == FR_STATE_STARTED) return true;
    const fa_dump *d = in->ranks[c->rank_index].dump;
    uint32_t i = fa_call_entry_index(m, c, 0);
    if (i + 1 >= d->nentries ||
        fa_entry_record_id(d, &d->entries[i + 1]) != fa_entry_record_id(d, &d->entries[i]) + 1)
        return false;
    const fa_entry *e = &d->entries[i], *n = &d->entries[i + 1];
    uint32_t pg = fa_entry_pg(in->store, e);
    const fa_traits *tn = fa_entry_traits(in->store, n);
    const fa_opinfo *op = fa_store_op(in->store, tn->name);
    return tn->pg != pg || fa_entry_coll_seq_in(d, n, pg) != fa_entry_coll_seq_in(d, e, pg) ||
           tn->is_p2p || op->is_send || op->is_recv;
}

/* Per view (group, member): the record id of the member's oldest pending collective there that
 * is one entry of its own (not a send/recv, whose batch entries may stay scheduled, nor a
 * bundle's member, left scheduled when its end marker completed); INT64_MAX none. NULL when out
 * of memory. */
static int64_t *lone_heads(const fa_input *in, const fa_groups *groups, const fa_match *m) {
    size_t nviews = groups->n ? m->view_at[groups->n - 1] + groups->v[groups->n - 1].nmembers : 0;
    int64_t *head = malloc((nviews + 1) * sizeof *head);
    if (!head) return NULL;
    for (size_t v = 0; v <= nviews; v++) head[v] = INT64_MAX;
    for (size_t i = 0; i < m->nops; i++) {
        const fa_op *o = &m->ops[i];
        for (uint32_t k = 0; k < o->ncalls && !o->is_p2p; k++) {
            const fa_call *c = &m->calls[o->first_call + k];
            if (c->state == FR_STATE_COMPLETED || fa_call_nentries(m, c) != 1) continue;
            size_t v = m->view_at[o->group] + c->member;
            int64_t rec = fa_call_record_id(m, in, c, 0);
            if (rec < head[v]) head[v] = rec;
        }
    }
    return head;
}

/* Per group: the highest collective seq any member's dump shows issued there (-1 none). NULL
 * when out of memory. */
static int64_t *issued_tops(const fa_groups *groups, const fa_match *m) {
    int64_t *top = malloc((groups->n + 1) * sizeof *top);
    for (size_t g = 0; top && g < groups->n; g++) {
        top[g] = -1;
        for (uint32_t p = 0; p < groups->v[g].nmembers; p++)
            if (m->views[m->view_at[g] + p].issued_max > top[g])
                top[g] = m->views[m->view_at[g] + p].issued_max;
    }
    return top;
}

/* Whether send/recv call c of op o is part of a batch issued after a collective launch of its
 * rank's own that the rank had surely not completed (running, per input rank: the record id of
 * its oldest pending call that surely_own_launch finds; INT64_MAX none). */
static bool behind_running(const fa_match *m, const fa_input *in, const fa_op *o, const fa_call *c,
                           const int64_t *running) {
    const fa_dump *d = in->ranks[c->rank_index].dump;
    return running && fa_mb_in_visible_batch(in, d, fa_call_entry_index(m, c, 0)) &&
           launch_record(m, in, o, c) > running[c->rank_index];
}

/* A rank's launches run in issue order on its stream, and a collective completes only once
 * every member ran it, a send/recv once its other side did: an op that a peer surely completed
 * while the rank's dump has it pending behind an older pending launch of its own (a send/recv:
 * behind an older launch than its batch, in a window without gaps or behind a collective surely
 * launched alone: behind_running) was run by the rank after its dump was taken (tests/sim seed
 * 2440: a stage whose peers completed their ring's next batches).
 * (The peer completing the rank's oldest pending launch itself is what a stalled GPU looks like,
 * and proves nothing; so does a call the rank's GPU started, which no older launch holds up: older
 * entries still pending are a bundle's, left scheduled when its end marker completed.) A peer's own
 * stream and counters prove it too (by_stream: an only-active dump keeps no completed entry). Such
 * dumps are older (fa_stale), or their GPUs ran past what they recorded: the proof is launches
 * they show issued (issued_only), and find_stale's proof replaces it. */
static void older_in_stream(const fa_input *in, const fa_groups *groups, fa_match *m,
                            const int64_t *by_stream) {
    int64_t *oldest = malloc((in->nranks + 1) * sizeof *oldest);
    bool *head_started = calloc(in->nranks + 1, 1);
    if (!oldest || !head_started) {
        free(oldest);
        free(head_started);
        return;
    }
    for (size_t r = 0; r < in->nranks; r++) oldest[r] = INT64_MAX;
    int64_t *lone = lone_heads(in, groups, m), *top = issued_tops(groups, m),
            *running = malloc((in->nranks + 1) * sizeof *running);
    if (!top || !running) {
        free(lone);
        lone = NULL;
    }
    for (size_t r = 0; running && r < in->nranks; r++) running[r] = INT64_MAX;
    for (size_t i = 0; i < m->nops; i++)
        for (uint32_t k = 0; k < m->ops[i].ncalls; k++) {
            const fa_call *call = &m->calls[m->ops[i].first_call + k];
            int64_t rec = fa_call_record_id(m, in, call, 0);
            if (running && !m->ops[i].is_p2p && call->state != FR_STATE_COMPLETED &&
                rec < running[call->rank_index] && surely_own_launch(m, in, call))
                running[call->rank_index] = rec;
            if (call->state == FR_STATE_COMPLETED || rec >= oldest[call->rank_index]) continue;
            oldest[call->rank_index] = rec;
            /* a lone collective entry is never left scheduled by a completed end marker */
            head_started[call->rank_index] = call->state == FR_STATE_STARTED;
        }
    for (size_t i = 0; i < m->nops; i++) {
        const fa_op *o = &m->ops[i];
        bool done = false, counted = !o->is_p2p && o->seq <= by_stream[o->group];
        for (uint32_t k = 0; k < o->ncalls && !done; k++) {
            const fa_call *c = &m->calls[o->first_call + k];
            done = fa_call_proves_all_joined(m, in, c);
        }
        for (uint32_t k = 0; k < o->ncalls && (done || counted); k++) {
            const fa_call *c = &m->calls[o->first_call + k];
            fa_stale *s = &m->rank_stale[c->rank_index];
            /* a send/recv held only by a head that may be a bundle whose end marker an
             * only-active dump dropped (it completed) proves nothing (tests/sim seed 1815); a
             * batch behind a pending collective launch of its own is held (tests/sim seeds
             * 10725, 6853, 9680: ranks 53, 282, 12, their batches' other sides completed,
             * behind a collective started or left pending, read as stalled GPUs) */
            if (o->is_p2p && !fa_dump_window_whole(in->ranks[c->rank_index].dump) &&
                !behind_running(m, in, o, c, running))
                continue;
            /* what streams and counters prove is held against a head the GPU started, or a
             * lone collective of the group (behind_lone): an older entry left pending may be
             * a bundle's or a batch's, left scheduled when its end marker completed (then its
             * stream went on), and without timing nothing tells; where that proof is the
             * counters alone while a member of the group still has its work pending, the rank
             * may as well have stopped there with its completions unrecorded (real runs
             * gpu_error_1st/2nd: stalled GPUs, no older dumps): stall_first, which the verdict
             * reads older only where that moves the blame off such ranks (tests/sim seed 12994) */
            int64_t rec = fa_call_record_id(m, in, c, 0);
            bool behind_lone = lone && rec > lone[m->view_at[o->group] + c->member];
            bool held_open = behind_lone && by_stream[o->group] < top[o->group];
            if (c->state == FR_STATE_COMPLETED || c->state == FR_STATE_STARTED || s->group >= 0 ||
                launch_record(m, in, o, c) <= oldest[c->rank_index] ||
                (!done && !head_started[c->rank_index] && !behind_lone))
                continue;
            bool stall_first = !done && !head_started[c->rank_index] && held_open;
            *s = (fa_stale){ (long)o->group, o->seq, o->seq - 1, s->cut, true, stall_first };
        }
    }
    free(oldest);
    free(head_started);
    free(lone);
    free(running);
    free(top);
}

/* Groups where send/recv ran, as far as any dump shows: an entry of a send/recv, or one whose
 * p2p_seq_id (the group's send/recv counter when it was recorded) is past 0. NULL when out of
 * memory. */
static bool *groups_with_p2p(const fa_input *in, const fa_groups *groups) {
    bool *p2p = calloc(groups->n + 1, 1);
    for (size_t ri = 0; p2p && ri < in->nranks; ri++) {
        const fa_dump *d = in->ranks[ri].dump;
        for (uint32_t i = 0; i < d->nentries; i++) {
            const fa_entry *e = &d->entries[i];
            const fa_traits *t = fa_entry_traits(in->store, e);
            if (!t->is_p2p && fa_entry_p2p_seq(d, e) <= 0) continue;
            long gi = fa_groups_find(groups, ri, d->pgs[fa_entry_pg(in->store, e)].name);
            if (gi >= 0) p2p[gi] = true;
        }
    }
    return p2p;
}

/* Per view (group, member), the highest send/recv number the member's pg_status could hold in
 * the group (INT64_MAX: no bound known): the p2p_seq_id its newest entry there carries (the
 * group's send/recv count so far), plus one for each record id after that entry that its dump
 * does not show (an only-active dump dropped it, or a ring), the most send/recv it can have
 * posted since. A completed number above it is a collective's. NULL when out of memory. */
static int64_t *p2p_number_bounds(const fa_input *in, const fa_groups *groups, size_t nviews,
                                  const fa_match *m) {
    int64_t *bound = malloc((nviews + 1) * sizeof *bound);
    if (!bound) return NULL;
    for (size_t v = 0; v < nviews; v++) bound[v] = INT64_MAX;
    for (size_t ri = 0; ri < in->nranks; ri++) {
        const fa_dump *d = in->ranks[ri].dump;
        if (!d->nentries || d->truncated) continue; /* a cut dump's entries end early */
        int64_t last = fa_entry_record_id(d, &d->entries[d->nentries - 1]);
        for (uint32_t k = 0; k < d->npgs; k++) {
            const fa_entry *e = fa_dump_last_in_slot(d, k);
            size_t v = e ? fa_mb_view_named(in, groups, m, ri, d->pgs[k].name) : SIZE_MAX;
            if (v == SIZE_MAX) continue;
            size_t i = (size_t)(e - d->entries);
            int64_t hidden = last - fa_entry_record_id(d, e) - (int64_t)(d->nentries - 1 - i);
            bound[v] = fa_entry_p2p_seq(d, e) + (hidden > 0 ? hidden : 0);
        }
    }
    return bound;
}

/* Whether a member's dump numbers the group's work with the recorder's launch numbers: then all
 * do, a dump cut before its recorder keys too (tests/sim seed 10185: rank 5's send/recv batch,
 * launch #2, read as proof that collective #2 completed, and its peers' dumps older). */
static bool launch_numbered(const fa_input *in, const fa_group *g) {
    for (uint32_t p = 0; p < g->nmembers; p++)
        if (g->member_input[p] >= 0 && in->ranks[g->member_input[p]].dump->launch_numbered)
            return true;
    return false;
}

/* What a member's own dump proves it completed in a group, for dumps whose calls return at once
 * (NCCL's) and whose collectives carry their own numbers per group (not the recorder's launch
 * numbers, which send/recv batches share): a stream runs its launches in issue order, so every
 * collective numbered below its oldest pending one has completed, whether or not the dump still
 * shows it (an only-active dump drops it); and pg_status's last completed number, in a group
 * where no send/recv ran (PyTorch gives a send/recv the send/recv counter's number there), or
 * that is above every send/recv number the member can have reached (p2p_number_bounds).
 * PyTorch numbers a group's first collective 1: a member pending in #1 proves nothing (nor
 * does "#0 completed", which in-order completion makes of it). Raises
 * proven[g] to the highest such seq of any member. */
static void proven_by_stream(const fa_input *in, const fa_groups *groups, fa_match *m,
                             int64_t *proven) {
    size_t nviews = groups->n ? m->view_at[groups->n - 1] + groups->v[groups->n - 1].nmembers : 0;
    int64_t *oldest = malloc((nviews + 1) * sizeof *oldest);
    bool *p2p = groups_with_p2p(in, groups);
    int64_t *p2p_bound = p2p_number_bounds(in, groups, nviews, m);
    if (!oldest || !p2p || !p2p_bound) {
        free(oldest);
        free(p2p);
        free(p2p_bound);
        return;
    }
    for (size_t v = 0; v < nviews; v++) oldest[v] = INT64_MAX;
    for (size_t i = 0; i < m->nops; i++) {
        const fa_op *o = &m->ops[i];
        for (uint32_t k = 0; k < o->ncalls && !o->is_p2p; k++) {
            const fa_call *c = &m->calls[o->first_call + k];
            size_t v = m->view_at[o->group] + c->member;
            if (c->state != FR_STATE_COMPLETED && o->seq < oldest[v]) oldest[v] = o->seq;
        }
    }
    for (size_t g = 0; g < groups->n; g++) {
        /* once per group, not per member: a 200 000-rank group is one scan, not 4e10 */
        if (launch_numbered(in, &groups->v[g])) continue;
        for (uint32_t p = 0; p < groups->v[g].nmembers; p++) {
            long ri = groups->v[g].member_input[p];
            size_t v = m->view_at[g] + p;
            const fa_dump *d = ri >= 0 ? in->ranks[ri].dump : NULL;
            if (!d || d->blocks_caller) continue;
            int64_t done = oldest[v] != INT64_MAX && oldest[v] > 1 ? oldest[v] - 1 : -1;
            /* counters that number the member's own send/recv (counts_own_p2p) prove no
             * collective (sim seed 12320: a pipeline stage's "completed 20", its twentieth
             * send/recv, read as proof that the stages at the ends, at 10, dumped earlier) */
            int64_t counted = m->views[v].counts_own_p2p ? -1 : m->views[v].completed_max;
            if ((!p2p[g] || counted > p2p_bound[v]) && counted > done) done = counted;
            if (done >= 1 && done > proven[g]) proven[g] = done;
        }
    }
    free(oldest);
    free(p2p);
    free(p2p_bound);
}

/* Whether dump d says its rank never ran an operation in group g: a whole PyTorch NCCL dump whose
 * pg_config lists communicators (PyTorch records a group there when it creates the group's
 * communicator, lazily at its first operation, or eagerly) and not g's. (Not gloo's single
 * key, nor the recorder's, nor a dump cut short.) */
static bool no_communicator(const fa_dump *d, const fa_group *g) {
    if (d->truncated || d->blocks_caller || d->launch_numbered || d->records_no_p2p ||
        d->ngroups == 0 || !g->name)
        return false;
    for (uint32_t i = 0; i < d->ngroups; i++)
        if (d->groups[i].name && strcmp(d->groups[i].name, g->name) == 0) return false;
    return true;
}

/* Whether a member's dump may hold nothing of the group because its ring wrapped: it dropped
 * earlier records (its first record_id is not 0) and knows no op of the group (no entry, no
 * counter). The group's ops may all lie before its window, done: nothing says the dump is older
 * (sim seed 7855: a barrier of the default group that one rank's ring still held, read as proof
 * that seven dumps were older, and the hang as nothing blocked). */
static bool before_window(const fa_input *in, const fa_group *g, const fa_view *v, size_t ri) {
    const fa_dump *d = in->ranks[ri].dump;
    return v->issued_max < 0 && !v->has_entries && d->nentries > 0 &&
           fa_entry_record_id(d, &d->entries[0]) > 0 && !no_communicator(d, g);
}

/* A member without entries in a group where send/recv ran, whose counters there stop below
 * the collective a peer's stream proves every member issued (`issued`, proven_by_stream): either
 * its last numbers are send/recv's (PyTorch numbers those with the group's send/recv counter,
 * and an only-active dump drops what completed), or its dump is older than its peers' and they
 * are a collective's. Its dump cannot say which (tests/sim seed 5160: rank 0's "enqueued 3,
 * completed 3" after collective #7 is its third send/recv batch, done, or an old dump's third
 * collective). NCCL's counters only (not gloo's op ids, nor the recorder's launch numbers). */
static void mark_p2p_or_older(const fa_input *in, const fa_group *g, fa_view *v, long ri,
                              int64_t issued) {
    if (ri < 0 || v->has_entries || v->issued_max < 1 || v->issued_max >= issued) return;
    const fa_dump *d = in->ranks[ri].dump;
    v->p2p_or_older = !d->blocks_caller && !d->launch_numbered && !d->records_no_p2p &&
                      !before_window(in, g, v, (size_t)ri);
}

/* Per input rank: whether some group where no send/recv ran shows its dump as far as its peers
 * there: its counters or entries reach the collective its peers' streams prove every member
 * issued (by_stream). Its numbers there are collectives', so the dump is not shown older, and
 * counters elsewhere that may be send/recv numbers or an older dump's read as the former (sim
 * seed 7672: rank 20 stopped, "completed 5" in mesh_dp where its peers wait in #6, its mesh_cp
 * counters "1" ambiguous). NULL when out of memory. */
static bool *current_somewhere(const fa_input *in, const fa_groups *groups, const fa_match *m,
                               const bool *p2p, const int64_t *by_stream) {
    bool *current = calloc(in->nranks + 1, 1);
    for (size_t g = 0; current && g < groups->n; g++) {
        if (p2p[g] || by_stream[g] < 1) continue;
        for (uint32_t p = 0; p < groups->v[g].nmembers; p++) {
            long ri = groups->v[g].member_input[p];
            if (ri >= 0 && m->views[m->view_at[g] + p].issued_max >= by_stream[g])
                current[ri] = true;
        }
    }
    return current;
}

/* Which dumps are older than their peers' (fa_stale): per group, the highest seq that a member
 * surely completed (its state says completed, beyond gloo's uncertain "retired" on a rank's
 * newest entry, in a collective that needs every member: fa_call_proves_all_joined; or its own
 * stream's order and counters, proven_by_stream), which every member must have issued;
 * a member with a dump that shows less was dumped before (it had not issued what its peers
 * completed: a proof that replaces one of launches it issued, fa_stale.issued_only).
 * Collectives only: a send completes without every member. */
static void find_stale(const fa_input *in, const fa_groups *groups, fa_match *m) {
    int64_t *proven = malloc((groups->n + 1) * sizeof *proven),
            *by_stream = malloc((groups->n + 1) * sizeof *by_stream);
    if (!proven || !by_stream) {
        free(proven);
        free(by_stream);
        return;
    }
    bool *p2p = groups_with_p2p(in, groups);
    if (!p2p) {
        free(proven);
        free(by_stream);
        return;
    }
    for (size_t g = 0; g < groups->n; g++) proven[g] = by_stream[g] = -1;
    proven_by_stream(in, groups, m, by_stream);
    for (size_t i = 0; i < m->nops; i++) {
        const fa_op *o = &m->ops[i];
        if (o->is_p2p || o->seq <= proven[o->group]) continue;
        for (uint32_t k = 0; k < o->ncalls; k++) {
            const fa_call *c = &m->calls[o->first_call + k];
            if (fa_call_proves_all_joined(m, in, c)) {
                proven[o->group] = o->seq;
                break;
            }
        }
    }
    older_in_stream(in, groups, m, by_stream);
    bool *current = current_somewhere(in, groups, m, p2p, by_stream);
    for (size_t g = 0; g < groups->n; g++) {
        const fa_group *grp = &groups->v[g];
        for (uint32_t p = 0; p < grp->nmembers; p++) {
            fa_view *v = view_of(m, (uint32_t)g, p);
            long ri = grp->member_input[p];
            if (p2p[g]) mark_p2p_or_older(in, grp, v, ri, by_stream[g]);
            v->later_unknown = v->p2p_or_older && ri >= 0 && current && !current[ri];
            /* what a peer's stream proves is held against a member's own entries there, or
             * its counters where no send/recv ran (elsewhere their last enqueued number may be
             * a send/recv's): an only-active dump keeps no entry of a group it is done with */
            bool comparable = v->has_entries || !p2p[g];
            int64_t done = comparable && by_stream[g] > proven[g] ? by_stream[g] : proven[g];
            if (ri < 0 || done < 0 || v->issued_max >= done || v->counters_unknown ||
                before_window(in, grp, v, (size_t)ri))
                continue;
            fa_stale *s = &m->rank_stale[ri];
            if (s->group < 0 || s->issued_only || done - v->issued_max > s->seq - s->issued)
                *s = (fa_stale){ (long)g, done, v->issued_max, s->cut, false, false };
        }
    }
    free(current);
    free(proven);
    free(by_stream);
    free(p2p);
}

int fa_match_build(const fa_input *in, const fa_groups *groups, int mismatch_cap, int jobs,
                   fa_match *m, fa_findings *findings, fr_error *err) {
    memset(m, 0, sizeof *m);
    m->in = in;
    fa_walk walk = { 0 };
    if (groups->n > FA_MAX_GROUPS) {
        fr_fail(err, "%zu process groups: more than %u cannot be matched", groups->n,
                FA_MAX_GROUPS);
        return -1;
    }
    for (size_t g = 0; g < groups->n; g++)
        if (groups->v[g].nmembers > FA_MAX_MEMBERS) {
            fr_fail(err, "group %s has %u members: more than %u cannot be matched", groups->v[g].id,
                    groups->v[g].nmembers, FA_MAX_MEMBERS);
            return -1;
        }
    int rc = alloc_views(in, groups, m);
    if (rc == 0) rc = fa_walk_ranks(in, groups, jobs, m, &walk);
    bool timing = fa_timing_wanted();
    double t = fa_clock();
    builder b = { in,        groups, m,    walk.calls_cap, walk.ops_cap, walk.p2p,
                  walk.np2p, NULL,   NULL, NULL,           NULL };
    walk.p2p = NULL; /* the builder's now */
    if (rc == 0) rc = fa_mb_pair_p2p(&b);
    /* Each stage's scratch is freed as soon as its stage ends: holding the p2p records while
     * checking allocates would make them part of the peak RSS (first-touch page faults of that
     * peak are most of the run's system time). */
    free(b.p2p);
    b.p2p = NULL;
    if (timing) fa_timing_note("  p2p", &t);
    if (rc == 0) p2p_counters(in, groups, m);
    if (rc == 0) fold_status(in, groups, m);
    if (rc == 0) rc = complete_by_counters(in, groups, m);
    if (rc == 0) find_stale(in, groups, m);
    if (rc == 0) rc = fa_mb_aligned_absent(in, groups, m);
    if (rc == 0) rc = fa_mb_check_all(in, groups, m, &walk, mismatch_cap, jobs, findings);
    if (timing) fa_timing_note("  check", &t);
    fa_walk_free(&walk);
    if (rc) fr_fail(err, "out of memory while matching");
    return rc;
}

void fa_match_read_final(fa_match *m, const fa_input *in, const int64_t *ranks, size_t n) {
    for (size_t k = 0; k < n; k++) {
        long ri = fa_input_find(in, ranks[k]);
        fa_stale *s = ri >= 0 ? &m->rank_stale[ri] : NULL;
        if (s && s->stall_first) *s = fa_stale_none(s->cut);
    }
}

void fa_match_free(fa_match *m) {
    free(m->ops);
    free(m->calls);
    free(m->entry_refs);
    free(m->view_at);
    free(m->views);
    free(m->rank_newest_pending);
    free(m->rank_stale);
    free(m->absent_done);
    memset(m, 0, sizeof *m);
}

const fa_call *fa_op_call(const fa_match *m, size_t op, uint32_t member) {
    const fa_op *o = &m->ops[op];
    size_t lo = o->first_call, hi = (size_t)o->first_call + o->ncalls;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (m->calls[mid].member < member)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < (size_t)o->first_call + o->ncalls && m->calls[lo].member == member ? &m->calls[lo]
                                                                                   : NULL;
}

fa_member_state fa_op_member_state(const fa_match *m, const fa_groups *groups, size_t op,
                                   uint32_t member) {
    return fa_op_member_state_of(m, groups, op, member, fa_op_call(m, op, member));
}

uint32_t fa_op_expected(const fa_match *m, const fa_groups *groups, size_t op, uint32_t *out) {
    const fa_op *o = &m->ops[op];
    const fa_group *g = &groups->v[o->group];
    if (!o->is_p2p) {
        uint32_t n = 0;
        for (uint32_t p = 0; p < g->nmembers; p++)
            if (g->members[p] >= 0) out[n++] = p;
        return n;
    }
    uint32_t n = 0;
    long s = fa_group_position(g, o->src), d = fa_group_position(g, o->dst);
    if (s >= 0) out[n++] = (uint32_t)s;
    if (d >= 0 && d != s) out[n++] = (uint32_t)d;
    if (n == 0 && o->ncalls) out[n++] = m->calls[o->first_call].member;
    return n;
}
