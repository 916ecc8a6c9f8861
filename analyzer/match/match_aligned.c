/* match_aligned.c — the absent side of a send/recv whose rank went past it in step with its peer.
 *
 * A send/recv op of a group of three or more with one side's call alone (X's, p2p_seq_id S, the
 * collective count C its entries carry) and none of the other member M, whose only-active dump
 * dropped what completed. M's count of send/recv launches in the group is not X's in general
 * (each rank counts its own), so "no call" reads as "never posted" (fa_op_member_state_of). But
 * where both ranks' entries of the group's next collective, #C+1, carry the same send/recv count S
 * (X's batch was its last launch before #C+1) and M's window shows no send/recv numbered S or
 * below, M made its S-th launch before #C+1 as X did, and its dump dropped it: completed, since an
 * only-active dump drops only what completed (or M's #C+1 started: its stream ran everything
 * before). Its half of the op is that launch (tests/sim seeds 1250, 16774: a mesh group's batch
 * exchange whose GPU stalled on one rank, its peers' halves dropped done, read as "ranks 0,2 never
 * joined"). Linear: one pass over the dumps finds each member's oldest collective in each group;
 * X's next collective is looked for among a bounded number of its following entries.
 */
#include <stdlib.h>
#include <string.h>

#include "match/match_build.h"

/* How far past X's call its next collective of the group is looked for (a batch and a few
 * send/recv); beyond, the rule does not apply. */
enum { NEXT_COLLECTIVE_REACH = 64 };

/* Per view, the dump index of the member's oldest collective in the group; UINT32_MAX none. */
static uint32_t *oldest_collectives(const fa_input *in, const fa_groups *groups, const fa_match *m,
                                    size_t nviews) {
    uint32_t *oldest = malloc((nviews + 1) * sizeof *oldest);
    size_t *view_of_slot = NULL, nslots = 0;
    for (size_t v = 0; oldest && v < nviews; v++) oldest[v] = UINT32_MAX;
    for (size_t ri = 0; oldest && ri < in->nranks; ri++) {
        const fa_dump *d = in->ranks[ri].dump;
        if (!d || !d->nentries) continue;
        if (d->npgs > nslots) {
            size_t *grown = realloc(view_of_slot, d->npgs * sizeof *grown);
            if (!grown) {
                free(oldest);
                oldest = NULL;
                break;
            }
            view_of_slot = grown;
            nslots = d->npgs;
        }
        for (uint32_t k = 0; k < d->npgs; k++)
            view_of_slot[k] = fa_mb_view_named(in, groups, m, ri, d->pgs[k].name);
        for (uint32_t i = 0; i < d->nentries; i++) {
            size_t v = view_of_slot[fa_entry_pg(in->store, &d->entries[i])];
            if (v != SIZE_MAX && oldest[v] == UINT32_MAX &&
                fa_entry_plain_collective(in->store, &d->entries[i]))
                oldest[v] = i;
        }
    }
    free(view_of_slot);
    return oldest;
}

/* The send/recv count that X's next collective in the group after its call c carries, when that
 * collective is #want (the one after c's); -1 otherwise or when it lies beyond reach. */
static int64_t next_collective_count(const fa_input *in, const fa_match *m, const fa_call *c,
                                     int64_t want) {
    const fa_dump *d = in->ranks[c->rank_index].dump;
    uint32_t last = fa_call_entry_index(m, c, fa_call_nentries(m, c) - 1);
    uint32_t pg = fa_entry_pg(in->store, &d->entries[last]);
    for (uint32_t i = last + 1; i < d->nentries && i <= last + NEXT_COLLECTIVE_REACH; i++) {
        const fa_entry *e = &d->entries[i];
        if (fa_entry_pg(in->store, e) != pg || !fa_entry_plain_collective(in->store, e)) continue;
        return fa_entry_coll_seq(d, e) == want ? fa_entry_p2p_seq(d, e) : -1;
    }
    return -1;
}

/* Whether the absent member (view v, dump dm, its oldest collective there at index at) went past
 * op o in step with X's call c. */
static bool went_past_in_step(const fa_input *in, const fa_match *m, const fa_call *c,
                              const fa_view *v, const fa_dump *dm, uint32_t at) {
    const fa_dump *dx = in->ranks[c->rank_index].dump;
    const fa_entry *xe = fa_call_entry(m, in, c, 0), *me = &dm->entries[at];
    int64_t s = fa_entry_p2p_seq(dx, xe), next = fa_entry_coll_seq(dx, xe) + 1;
    if (dx->launch_numbered || dx->blocks_caller || dx->records_no_p2p || s < 1 ||
        fa_entry_coll_seq(dm, me) != next || fa_entry_p2p_seq(dm, me) != s || v->p2p_min <= s ||
        next_collective_count(in, m, c, next) != s)
        return false;
    /* its S-th launch is gone from the window: dropped as completed, or run before its #C+1
     * started on the stream */
    fr_state st = fa_entry_traits(in->store, me)->state;
    return !fa_dump_shows_completed(dm) || st == FR_STATE_STARTED || st == FR_STATE_COMPLETED;
}

/* The position in op o's group of the side other than call c's; -1 unknown. */
static long absent_side(const fa_input *in, const fa_group *g, const fa_op *o, const fa_call *c) {
    if (!o->is_p2p || o->ncalls != 1 || o->src < 0 || o->dst < 0) return -1;
    return fa_group_position(g, in->ranks[c->rank_index].rank == o->src ? o->dst : o->src);
}

/* Per view, whether its member is the absent side of a send/recv with one call alone: a peer
 * posted to it, and it did not post the other half there in step. Such a member is no rank
 * whose GPU ran its own batch while its peers did (tests/sim seed 1783: rank 6 posted a recv from
 * 2 instead of 5; its send to 7 completed on 7, and 2 went on in step, but 5's send to 6 waits:
 * 6 posted to the wrong peer, no stalled GPU). NULL when out of memory. */
static uint8_t *absent_somewhere(const fa_input *in, const fa_groups *groups, const fa_match *m,
                                 size_t nviews) {
    uint8_t *absent = calloc(nviews + 1, 1);
    for (size_t op = 0; absent && op < m->nops; op++) {
        const fa_op *o = &m->ops[op];
        long pos = absent_side(in, &groups->v[o->group], o, &m->calls[o->first_call]);
        if (pos >= 0) absent[m->view_at[o->group] + (size_t)pos] = 1;
    }
    return absent;
}

int fa_mb_aligned_absent(const fa_input *in, const fa_groups *groups, fa_match *m) {
    size_t nviews = groups->n ? m->view_at[groups->n - 1] + groups->v[groups->n - 1].nmembers : 0;
    uint32_t *oldest = NULL;
    uint8_t *absent = NULL;
    size_t n = 0, cap = 0;
    for (size_t op = 0; op < m->nops; op++) {
        const fa_op *o = &m->ops[op];
        const fa_group *g = &groups->v[o->group];
        const fa_call *c = &m->calls[o->first_call];
        long pos = g->nmembers < 3 ? -1 : absent_side(in, g, o, c);
        long ri = pos >= 0 ? g->member_input[pos] : -1;
        const fa_dump *dm = ri >= 0 ? in->ranks[ri].dump : NULL;
        if (!dm || dm->truncated || dm->blocks_caller || dm->launch_numbered ||
            dm->records_no_p2p || fa_stale_known(&m->rank_stale[ri]))
            continue;
        if (!oldest && !(oldest = oldest_collectives(in, groups, m, nviews))) return -1;
        if (!absent && !(absent = absent_somewhere(in, groups, m, nviews))) {
            free(oldest);
            return -1;
        }
        size_t vi = m->view_at[o->group] + (size_t)pos;
        if (oldest[vi] == UINT32_MAX || absent[m->view_at[o->group] + c->member] ||
            !went_past_in_step(in, m, c, &m->views[vi], dm, oldest[vi]))
            continue;
        if (n == cap) {
            uint32_t *grown = realloc(m->absent_done, (cap = cap ? 2 * cap : 16) * sizeof *grown);
            if (!grown) {
                free(oldest);
                free(absent);
                return -1;
            }
            m->absent_done = grown;
        }
        m->absent_done[n++] = (uint32_t)op;
    }
    free(oldest);
    free(absent);
    m->nabsent_done = n; /* ascending: found in op order */
    return 0;
}
