/* held.h — which calls' ranks were held back by others: what delay a rank carries that is not
 * its own.
 *
 * A rank that arrives late at a collective is not necessarily slow: it may have been held in an
 * earlier operation by someone else (one slow rank's peers wait for it, then come late to their
 * next groups, and so on through the job). Where the dumps say when each call completed
 * (time_discovered_completed_ns: NCCL's and the recorder's dumps) this is visible on each rank's
 * own clock, whatever the other ranks' clocks read. In each op with every call's arrival and
 * completion known, member i
 *
 *   waited   when its wait, completed_i - arrival_i, exceeds the smallest wait of the members
 *            (the last to arrive) by the floor or more: someone arrived that much after it;
 *   went on  when its next call came no earlier than the op completed, less the floor: the op
 *            held it (a rank whose CPU runs ahead, as NCCL lets it, issued its next call before
 *            and was held by nothing);
 *   kept up  when its gap, from its previous call's completion to this arrival, exceeds the
 *            median gap of the other members by less than the floor: it added no delay itself.
 *
 * A call is held when its rank went on only once the op completed and, there, either waited or
 * was held at its previous call and kept up: the delay it inherited is still what it carries (a
 * victim that comes last to its next send, whose receiver waits for it, carries its wait on to
 * the collective after). A rank late at every operation because of itself neither waits nor
 * keeps up: it is never held. At the next call of a held one, the rank's lateness is capped by
 * its own delay there (lateness.h).
 *
 * Built once, linear in the calls: per op in parallel (by chunks of ops) three bits per call on
 * its last entry, then per rank in parallel one pass over its entries in order; one bit per entry
 * of every rank remains.
 */
#ifndef FRTRACE_HELD_H
#define FRTRACE_HELD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "load.h"
#include "match.h"

typedef struct fa_held {
    size_t *rank_at; /* per input rank: its first bit; [nranks] the end */
    uint64_t *bits;  /* NULL: no op had its completions known */
} fa_held;

/* 0, or -1 when out of memory (h is then empty). `jobs` workers (<= 0: one per core). */
int fa_held_build(const fa_input *in, const fa_match *m, double floor_ms, int jobs, fa_held *h);
void fa_held_free(fa_held *h);

/* Whether entry e of input rank r ended a held call. */
static inline bool fa_held_at(const fa_held *h, size_t r, uint32_t e) {
    if (!h->bits) return false;
    size_t bit = h->rank_at[r] + e;
    return bit < h->rank_at[r + 1] && (h->bits[bit / 64] >> (bit % 64) & 1);
}

#endif
