/* match_build.h — what the steps of fa_match_build (match.c) share: the comparison of entries
 * (match_compare.c), the pairing of send/recv records into ops (match_p2p.c, its builder), and
 * the agreement checks (match_check.c, and through match_check.h the files it calls). Internal
 * to match*.c; nothing else includes it.
 */
#ifndef FRTRACE_MATCH_BUILD_H
#define FRTRACE_MATCH_BUILD_H

#include "match/match.h"
#include "match/match_walk.h"

typedef fa_p2p_rec p2p_rec;

/* What pairing the send/recv records needs: the walk's records and room to append ops, calls
 * and entry refs. */
typedef struct builder {
    const fa_input *in;
    const fa_groups *groups;
    fa_match *m;
    size_t calls_cap, ops_cap;
    p2p_rec *p2p;
    size_t np2p;
    int64_t *p2p_issued;    /* per view: the highest p2p_seq_id among the member's send/recv */
    int64_t *p2p_completed; /* per view: the highest among those that completed, -1 none */
    uint32_t *p2p_oldest_pending; /* per input rank: the dump entry of its oldest send/recv still
                                   * pending (batch end markers applied), UINT32_MAX none */
    const uint32_t *p2p_order;    /* b->p2p's indices run by run (sort_p2p), while pairing */
} builder;

static inline fa_view *view_of(const fa_match *m, uint32_t group, uint32_t member) {
    return &m->views[m->view_at[group] + member];
}

/* The view of input rank ri in the group its dump calls `name` (a pg slot's or a pg_config
 * entry's), or SIZE_MAX: no such group, or the rank is no member of it. */
static inline size_t fa_mb_view_named(const fa_input *in, const fa_groups *groups,
                                      const fa_match *m, size_t ri, const char *name) {
    long gi = name ? fa_groups_find(groups, ri, name) : -1;
    long pos = gi >= 0 ? fa_group_position(&groups->v[gi], in->ranks[ri].rank) : -1;
    return pos >= 0 ? m->view_at[gi] + (size_t)pos : SIZE_MAX;
}

/* match_compare.c */
bool fa_mb_is_all_to_all(const char *t);
bool fa_mb_has_tensor(const fr_shapes *s);
/* A call's own consistency, independent of other ranks: all_reduce keeps its size,
 * all_gather multiplies by the group size, reduce_scatter divides by it, in and out dtypes
 * agree. Returns the kind of problem or FA_FULLY_MATCHED. */
fa_match_state fa_mb_check_intrinsic(const fr_entry *self, const fr_entry *other, uint32_t flags,
                                     int64_t group_size, char *why, size_t whylen);
bool fa_mb_own_dtypes_disagree(const fr_entry *e, uint32_t flags);
/* Whether a send and a recv (a, b) pair up: peers, sizes and dtypes. */
fa_match_state fa_mb_match_p2p(const fa_opname *a, const fr_entry *ea, const fa_opname *b,
                               const fr_entry *eb);

/* Whether dump entry i is a send/recv of a batch (batch_isend_irecv): an entry beside it is of
 * the same group and p2p_seq_id and is a send/recv (the batch's other transfer) or an end marker
 * (the batch's `coalesced`); a lone send/recv has a number of its own, and a collective issued
 * after it that carries the same count is neither (stricter than match_p2p.c's in_batch, which
 * takes any entry beside it of that group and number). */
static inline bool fa_mb_in_visible_batch(const fa_input *in, const fa_dump *d, uint32_t i) {
    const fa_entry *e = &d->entries[i];
    uint32_t pg = fa_entry_pg(in->store, e);
    for (int side = -1; side <= 1; side += 2) {
        if ((side < 0 && i == 0) || (side > 0 && i + 1 >= d->nentries)) continue;
        const fa_entry *n = e + side;
        const fa_opinfo *op = fa_store_op(in->store, fa_entry_traits(in->store, n)->name);
        if (fa_entry_pg(in->store, n) == pg && fa_entry_p2p_seq(d, n) == fa_entry_p2p_seq(d, e) &&
            (op->is_send || op->is_recv || (op->flags & FA_OP_END_MARKER)))
            return true;
    }
    return false;
}

/* match_p2p.c: orders the send/recv records and pairs them into ops whose calls follow the
 * collective ones. -1 when out of memory. */
int fa_mb_pair_p2p(builder *b);
/* match_aligned.c: the send/recv ops whose absent side went past them in step with its peer,
 * into m->absent_done (after find_stale). Returns -1 when out of memory. */
int fa_mb_aligned_absent(const fa_input *in, const fa_groups *groups, fa_match *m);

/* match_check.c: sorts each op's calls by member, screens every op on all cores and reports
 * on the ones that are not clean, in op order, then on collectives paired by their order (at
 * most `cap` findings per group). -1 when out of memory. */
int fa_mb_check_all(const fa_input *in, const fa_groups *groups, fa_match *m, const fa_walk *walk,
                    int cap, int jobs, fa_findings *findings);

#endif
