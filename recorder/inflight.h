/* inflight.h — which thread is inside which NCCL call since when: stuck-in-API detection.
 *
 * A ring entry only says that a call was made; a thread that never comes back from
 * ncclCommInitRank, ncclGroupEnd or ncclCommDestroy leaves no pending entry and so no timeout.
 * Each thread that calls NCCL claims one slot of a fixed array (a compare-and-swap on its tid,
 * once per thread; no lock, no allocation) and stores "inside call X since t" on entry and
 * "nothing" on return: two atomic stores, the time being the clock read the wrapper does
 * anyway. The dumper scans the array and dumps (trigger "stuck_in_api") when a thread has been
 * inside one call longer than FRTRACE_TIMEOUT_SEC. Slots are never given back (threads that
 * call NCCL are few and long-lived); threads beyond REC_INFLIGHT_SLOTS are not watched.
 *
 * Ordering: `since_ns` is stored before `api` (release), and readers load `api` (acquire)
 * before `since_ns`, so a reader never pairs a call with an older entry time than its own:
 * no false "stuck" from a stale time.
 */
#ifndef FRTRACE_REC_INFLIGHT_H
#define FRTRACE_REC_INFLIGHT_H

#include <stdatomic.h>
#include <stdint.h>

#define REC_INFLIGHT_SLOTS 256

/* What a thread is inside. Operations use REC_API_OP + rec_op (ring.h). */
enum rec_api {
    REC_API_NONE = 0,
    REC_API_INIT_RANK,
    REC_API_INIT_RANK_CONFIG,
    REC_API_INIT_RANK_SCALABLE,
    REC_API_INIT_ALL,
    REC_API_SPLIT,
    REC_API_SHRINK,
    REC_API_FINALIZE,
    REC_API_DESTROY,
    REC_API_ABORT,
    REC_API_REVOKE,
    REC_API_GROUP_END,
    REC_API_OP = 32
};

typedef struct rec_inflight {
    _Atomic uint32_t tid;     /* owner thread, 0 = free slot */
    _Atomic uint32_t api;     /* rec_api, REC_API_NONE when not inside a call */
    _Atomic int64_t since_ns; /* CLOCK_MONOTONIC_COARSE at entry */
    char thread_name[16];     /* written once, before tid is published */
} __attribute__((aligned(64))) rec_inflight;

/* Claims a slot for thread `tid` named `name`; its index, or -1 when all are taken. */
int rec_inflight_claim(uint32_t tid, const char *name);
rec_inflight *rec_inflight_at(int index);
/* Forget every slot (child of a fork: the other threads are gone). */
void rec_inflight_reset(void);
/* "ncclCommInitRank", "ncclAllReduce", ... */
const char *rec_api_name(unsigned api);

static inline void rec_inflight_enter(int index, unsigned api, int64_t now_ns) {
    rec_inflight *s = rec_inflight_at(index);
    atomic_store_explicit(&s->since_ns, now_ns, memory_order_relaxed);
    atomic_store_explicit(&s->api, api, memory_order_release);
}

static inline void rec_inflight_leave(int index) {
    atomic_store_explicit(&rec_inflight_at(index)->api, REC_API_NONE, memory_order_release);
}

#endif
