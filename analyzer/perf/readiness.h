/* readiness.h — when each rank was free to arrive at a collective: the lateness it caused itself.
 *
 * For backends whose calls return once the operation completed (gloo; backend.h): with NCCL a
 * rank's CPU runs ahead of its device, and its arrivals say nothing of when it was free.
 *
 * A rank that arrives late at a collective is not necessarily slow: it may have been held in its
 * previous operation by someone else (the victims of one slow rank arrive late at their next
 * groups, in every pipeline). What a rank cannot blame on others is the time between being free
 * and arriving. It is free once its previous recorded operation completed on it. An operation
 * completes no earlier than its last member arrived, and then reaches its members one after
 * another (a ring passes the result on; on a loaded machine each hop waits for a core), so each
 * member's way from that last arrival to its next call is its "wake-up": the completion reaching
 * it plus its own work. The ready time of member i's next call is the op's last arrival plus the
 * median wake-up of the *other* members (of an even count, the lower middle: of three ranks two
 * of which are slow, the less slow one's peers are the on-time one and the slower, and the median
 * of those would hide it): a member that takes as long as its peers made no delay of its own, one
 * that takes 60 ms longer made 60 ms. `arrival - ready` is then the delay it made
 * itself, and perf.c takes the smaller of this and the lateness against the peers, so that
 * readiness only ever clears blame, never adds it; it clears a shifted clock's too (a rank whose
 * clock runs ahead is late against its peers but never against itself).
 *
 * Where a member left no record of the op (no dump, a dump cut before it, a window past it) and
 * only one member's next call is known, that member may have waited for the unrecorded one until
 * just before its next call: its ready time is that call's arrival (it made no delay the dumps
 * show; seed 12044). With two or more known next calls the ready time is the lower median of the
 * others' next calls, whatever the op's end, and stays.
 *
 * An op that some member left for its next call before the op's last arrival (by more than the
 * tolerance) did not hold its callers: gloo's asynchronous calls (DistributedDataParallel's bucket
 * all_reduces, `async_op=True`) return at once. Its calls' successors get no ready time.
 *
 * Such a backend may also run operations it does not record (gloo's send/recv: the op ids its
 * entries skip, fa_entry.unrecorded_before). One of them, in a group where the rank waited for a
 * peer at the operations it did record, may have held it anywhere between its recorded
 * neighbours in that group: a pipeline stage that waits for a slow stage at its barrier waits for
 * it at its send/recv too, and comes late to its next data-parallel collective (a real gloo job,
 * tests/interop random seed 67). Where no entry says when the unrecorded operation ran, every call
 * of the rank in that stretch may have been held up to its arrival: its ready time is its arrival
 * (it made no delay that the dumps show). The rank waited in the group when, at most of its
 * recorded operations whose stays are known, it arrived before the last member by the tolerance
 * or more and stayed longer than the member that stayed least by as much (its stay: from its
 * arrival to its next call, on its own clock; the arrival alone is compared across clocks, the
 * stay alone also holds a pause of its own after the operation). A slow rank, which the others
 * wait for, arrives last and keeps its blame.
 *
 * Built only for jobs with such a backend, once over the matched ops: per entry of every rank the
 * call it belongs to (4 bytes an entry), per call the ready time of the rank's next call (8 bytes
 * a call) and a bit, held by an unrecorded operation; a call's ready time is that of the call
 * owning the entry before its first one, 0 when unknown (a dump's first entry, an entry matched
 * to no op, no arrivals, an op that did not block); where that bit is set, the reader takes its
 * arrival instead (fa_held_unrecorded).
 */
#ifndef FRTRACE_READINESS_H
#define FRTRACE_READINESS_H

#include <stdbool.h>
#include <stdint.h>

#include "load/load.h"
#include "match/groups.h"
#include "match/match.h"

#define FA_NO_CALL UINT32_MAX

typedef struct fa_readiness {
    size_t *rank_at;      /* per input rank: its first slot in entry_call; [nranks] the end */
    uint32_t *entry_call; /* per entry of every rank: its call, FA_NO_CALL none */
    int64_t *next_ready;  /* per call: when its rank was free for its next call (ns), 0 unknown */
    uint8_t *held_unrecorded; /* per call, a bit: an unrecorded operation may have held it */
} fa_readiness;
_Static_assert(sizeof *((fa_readiness *)0)->entry_call == 4 &&
                   sizeof *((fa_readiness *)0)->next_ready == 8,
               "readiness costs 4 bytes an entry and 8 a call: the memory budget counts on it");

/* 0, or -1 when out of memory (rd is then empty). Builds nothing (rd empty, every ready time
 * unknown) when no dump comes from a backend whose calls block. An op that a member left more
 * than tolerance_ns before its last arrival is taken as not blocking. */
int fa_readiness_build(const fa_input *in, const fa_groups *groups, const fa_match *m,
                       int64_t tolerance_ns, fa_readiness *rd);
void fa_readiness_free(fa_readiness *rd);

/* When call c's rank was free to arrive at its op (ns), 0 when unknown. */
static inline int64_t fa_ready_ns(const fa_readiness *rd, const fa_match *m, const fa_call *c) {
    if (!rd->entry_call) return 0;
    uint32_t e = fa_call_entry_index(m, c, 0);
    if (e == 0) return 0;
    uint32_t prev = rd->entry_call[rd->rank_at[c->rank_index] + e - 1];
    return prev == FA_NO_CALL ? 0 : rd->next_ready[prev];
}

/* Whether an operation its backend did not record may have held call c's rank up to its arrival
 * (then it was ready only when it arrived). */
static inline bool fa_held_unrecorded(const fa_readiness *rd, const fa_match *m, const fa_call *c) {
    size_t ci = (size_t)(c - m->calls);
    return rd->held_unrecorded && (rd->held_unrecorded[ci / 8] >> (ci % 8)) & 1;
}

#endif
