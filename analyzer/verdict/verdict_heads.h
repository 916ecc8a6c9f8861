/* verdict_heads.h — where each rank's stream stands, for the wait graph that verdict_waits.c
 * builds: GPU lag, each rank's head (its oldest pending launch, where alone it waits), the heads
 * held for good, and the questions build_graph asks of them. Internal to verdict*.c.
 */
#ifndef FRTRACE_VERDICT_HEADS_H
#define FRTRACE_VERDICT_HEADS_H

#include "verdict/verdict_graph.h"

/* The screening of every op for build_graph, on every core: per op, OP_PENDING when a member has
 * it pending, OP_INCOMPLETE when one of its calls is not completed; a member surely has not
 * joined it: OP_MISSING, its dump shows it never issued it, or it left no dump; OP_UNSTARTED, it
 * has the op scheduled where another member's dump, as new as its peers', says it started it
 * (the GPU of the one that did not start it has not reached it). */
enum { OP_PENDING = 1, OP_INCOMPLETE = 2, OP_MISSING = 4, OP_UNSTARTED = 8 };

typedef struct stream_heads {
    bool lag;           /* some rank's GPU lags: its facts' lag, lag_op, lag_record are set */
    int64_t *head;      /* per node: its oldest pending record (INT64_MAX: nothing pending) */
    bool *sees_missing; /* per node: at its head it surely waits for a member that never joined */
    bool *held;         /* per node: its head is held for good (sees_missing, or its GPU stalled
                         * there), and so is the head of a rank that has it queued behind */
    uint32_t *unplaced; /* per node: its pending ops that its dump's counters alone show (no
                         * entry: no record to order them by) */
    fa_imap wire_done;  /* per (input rank, its batch's first record): the batch's transfers whose
                         * other side completed while its own call is pending (done on the wire) */
    fa_imap wire_ready; /* the same key: the batch's transfers started at both sides, which only
                         * a failed GPU or network holds (tally_transfers) */
} stream_heads;

/* Fills h from the ops' flags (scan_all_ops; never NULL), and marks each rank's lag and
 * maybe_stalled in d->facts. 0, or -1 when out of memory (h is then empty). */
int fa_vh_find(decider *d, const uint8_t *flags, stream_heads *h);
void fa_vh_free(stream_heads *h);

/* Whether every member with collective op pending has it queued behind its own stalled op. */
bool fa_vh_queued_behind_lag(decider *d, size_t op);
/* Whether every member with op pending has it queued behind its head, held for good; with
 * _everywhere, behind any older pending call of its own. Nobody then waits in op yet. */
bool fa_vh_queued_behind_held(const decider *d, size_t op, const stream_heads *h);
bool fa_vh_queued_everywhere(const decider *d, size_t op, const stream_heads *h);
/* Likewise of every member pending in op but `node`: nobody else waits in op yet, so none waits
 * there on node, whatever node's own state. */
bool fa_vh_others_behind_held(const decider *d, size_t op, const stream_heads *h, long node);
/* Of a member absent from an op nobody waits in yet: whether an edge to it would make it a root
 * on that op alone (no readable dump, or idle: `head` is its node's). */
bool fa_vh_unseen_or_idle(fa_member_state s, int64_t head);

/* How many transfers of member's batch of send/recv op `op` (member: a group rank) are with a
 * known peer other than group rank `peer`. */
uint64_t fa_vh_batch_others(const decider *d, size_t op, uint32_t member, long peer);
/* Whether idle member `node` (state s, its head) of send/recv op `op` (its n states in
 * d->members/d->states) may have done its end of the transfer, which its dump no longer shows. */
bool fa_vh_maybe_done_unshown(const decider *d, size_t op, uint32_t n, fa_member_state s,
                              const stream_heads *h, long node);

#endif
