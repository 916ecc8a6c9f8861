/* match_walk.h — the matcher's first two steps (see match.c): walk every rank's entries into
 * calls, then place the collective calls. Internal to the matcher; match.c pairs the send/recv
 * records it leaves and checks the ops.
 *
 * fa_walk_ranks fills, in `m`: the collective ops in the order a walk of ranks 0..n-1 creates
 * them, every collective call at its final place (ops in that order, each op's calls in rank
 * order), their entry refs, the views' entry counters (issued_max, completed_max from entries,
 * pg_id, has_entries), rank_newest_pending and any_entries. The ranks are walked by up to `jobs`
 * threads; the result does not depend on how many.
 */
#ifndef FRTRACE_MATCH_WALK_H
#define FRTRACE_MATCH_WALK_H

#include <stddef.h>
#include <stdint.h>

#include "match.h"

/* One send or recv entry, for pairing: 20 bytes (a job's pipelines make tens of millions). Its
 * member is the sender's position for a send, the receiver's for a recv (fa_p2p_member); its
 * p2p_seq_id is its entry's (fa_p2p_seq). */
typedef struct fa_p2p_rec {
    uint32_t group, src_pos, dst_pos; /* positions in the group; UINT32_MAX when unknown */
    uint32_t rank_index;
    uint32_t entry : 28; /* its index in its dump (the loader refuses FA_MAX_DUMP_ENTRIES more) */
    uint32_t is_send : 1;
    uint32_t state : 3; /* its fr_state, lifted by a batch's end marker */
} fa_p2p_rec;
_Static_assert(sizeof(fa_p2p_rec) == 20, "fa_p2p_rec is 20 bytes: the memory budget counts on it");

static inline uint32_t fa_p2p_member(const fa_p2p_rec *r) {
    return r->is_send ? r->src_pos : r->dst_pos;
}
static inline int64_t fa_p2p_seq(const fa_input *in, const fa_p2p_rec *r) {
    const fa_dump *d = in->ranks[r->rank_index].dump;
    return fa_entry_p2p_seq(d, &d->entries[r->entry]);
}

typedef struct fa_walk {
    fa_p2p_rec *p2p; /* every send/recv, in walk order (rank, then entry) */
    size_t np2p;
    /* Per collective op: 1 when every call is a single entry and all have the same interned
     * profiling name, shapes and dtype lists (so every agreement check answers as for one). */
    uint8_t *uniform;
    size_t
        nuniform; /* ops uniform has a byte for: the collective ops (the send/recv ones follow) */
    size_t ops_cap, calls_cap, refs_cap; /* what m->ops, m->calls, m->entry_refs can hold */
} fa_walk;

/* 0, or -1 when out of memory. `m` must have its views and rank_newest_pending allocated, views
 * at their initial values. `jobs` <= 0: one thread per core. */
int fa_walk_ranks(const fa_input *in, const fa_groups *groups, int jobs, fa_match *m, fa_walk *out);
void fa_walk_free(fa_walk *w);

#endif
