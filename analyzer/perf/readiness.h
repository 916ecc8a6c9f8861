/* readiness.h — when each rank was free to arrive at a collective: the lateness it caused itself.
 *
 * For backends whose calls return once the operation completed (gloo; backend.h): with NCCL a
 * rank's CPU runs ahead of its device, and its arrivals say nothing of when it was free.
 *
 * A rank that arrives late at a collective is not necessarily slow: it may have been held in its
 * previous operation by someone else (the victims of one slow rank arrive late at their next
 * groups, in every pipeline). What a rank cannot blame on others is the time between being free
 * and arriving. It is free once its previous recorded operation completed; an operation completes
 * no earlier than its last member arrived, so that last arrival is a lower bound of when the rank
 * was free, and `arrival - ready` an upper bound of the delay it made itself (more so when the
 * backend leaves operations unrecorded in between, gloo's send/recv: it only lengthens the gap).
 * Where a member went on to its next entry before an op's last arrival, that op did not block
 * (gloo's async calls: DDP's bucket all_reduces), and its calls' successors get no ready time.
 * perf.c takes the smaller of this and the lateness against the peers, so that readiness only ever
 * clears blame, never adds it; it clears a shifted clock's too (a rank whose clock runs ahead is
 * late against its peers but never against itself).
 *
 * Built once over the matched ops: per op its last arrival, per entry of every rank the op it
 * belongs to (4 bytes an entry); a call's ready time is the last arrival of the op of the entry
 * before its first one, 0 when unknown (a dump's first entry, an entry matched to no op, no
 * arrivals).
 */
#ifndef FRTRACE_READINESS_H
#define FRTRACE_READINESS_H

#include <stdint.h>

#include "load.h"
#include "match.h"

#define FA_NO_OP UINT32_MAX

typedef struct fa_readiness {
    size_t *rank_at;     /* per input rank: its first slot in entry_op; [nranks] the end */
    uint32_t *entry_op;  /* per entry of every rank: its op, FA_NO_OP none */
    int64_t *op_done;    /* per op: its last known arrival (ns), 0 none or not blocking */
    uint8_t *unblocking; /* per op: 1 when a member went on before its last arrival */
    size_t nops;
} fa_readiness;

/* 0, or -1 when out of memory (rd is then empty). An op that a member left more than
 * tolerance_ns before its last arrival is taken as not blocking (readiness.c). */
int fa_readiness_build(const fa_input *in, const fa_match *m, int64_t tolerance_ns,
                       fa_readiness *rd);
void fa_readiness_free(fa_readiness *rd);

/* When call c's rank was free to arrive at its op (ns), 0 when unknown. */
static inline int64_t fa_ready_ns(const fa_readiness *rd, const fa_match *m, const fa_call *c) {
    if (!rd->entry_op || !c->nentries) return 0;
    uint32_t e = m->entry_refs[c->entries_at];
    if (e == 0) return 0;
    uint32_t prev = rd->entry_op[rd->rank_at[c->rank_index] + e - 1];
    return prev == FA_NO_OP ? 0 : rd->op_done[prev];
}

#endif
