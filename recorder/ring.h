/* ring.h — the lock-free ring of the last N NCCL calls of this process.
 *
 * Producers (the NCCL wrappers, on any thread) take a record id with one atomic fetch_add and
 * write the call into slot id % N under a per-slot seqlock: `ver` is odd while the slot is
 * being written. The call's words are stored with relaxed atomics, so readers (watchdog,
 * dumper, fatal-signal handler) may copy a slot at any time and detect a torn copy by
 * comparing `ver` before and after; nothing allocates or locks, and no syscall is made but by a
 * writer that finds its slot still being written by one a whole ring behind (ring.c).
 *
 * What changes after publication (the GPU state, discovered times, whether the events were
 * recorded) lives in `status` and two timestamps: the watchdog updates status with a
 * compare-and-swap tagged by the record id, so an update meant for an entry that has since
 * been overwritten fails instead of landing on its successor.
 */
#ifndef FRTRACE_REC_RING_H
#define FRTRACE_REC_RING_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

/* What a call was. The order is the ring's; names live in dumper.c. */
typedef enum rec_op {
    REC_OP_ALL_REDUCE,
    REC_OP_BROADCAST,
    REC_OP_REDUCE,
    REC_OP_ALL_GATHER,
    REC_OP_REDUCE_SCATTER,
    REC_OP_ALL_TO_ALL,
    REC_OP_GATHER,
    REC_OP_SCATTER,
    REC_OP_SEND,
    REC_OP_RECV,
    REC_OP_COALESCED,
    REC_OP_COUNT_
} rec_op;

enum rec_state { REC_SCHEDULED = 0, REC_STARTED = 1, REC_COMPLETED = 2, REC_DROPPED = 3 };

/* Bits of rec_call.flags. */
enum {
    REC_F_P2P = 1u << 0,
    REC_F_IN_GROUP = 1u << 1,
    REC_F_CAPTURED = 1u << 2, /* issued while the stream captured a CUDA graph: no events */
};

/* Bits of the status word above the state (low 4 bits); the record id sits above bit 8. */
enum {
    REC_S_START_ARMED = 1u << 4, /* start event recorded: the watchdog may query it */
    REC_S_END_ARMED = 1u << 5,   /* end event recorded */
    REC_S_FAILED = 1u << 6,      /* the real call failed: nothing was launched */
};
#define REC_STATUS(id, bits) (((uint64_t)(id) << 8) | (bits))
#define REC_STATUS_ID(s)     ((s) >> 8)
#define REC_STATUS_STATE(s)  ((unsigned)((s)&0xfu))

/* The immutable part of an entry: written once by the producer. 96 bytes = 12 words. */
typedef struct rec_call {
    uint64_t record_id;
    int64_t time_created_ns; /* CLOCK_REALTIME, ns */
    int64_t mono_created_ns; /* CLOCK_MONOTONIC, ns: for timeouts */
    uint64_t count;          /* elements, as passed to NCCL */
    uint64_t stream;
    int64_t coll_seq, p2p_seq, op_id;
    uint16_t comm; /* index in the communicator registry */
    uint8_t op, dtype, redop, flags;
    uint16_t event_owner; /* record_id - id of the entry that owns the event pair */
    int32_t peer;         /* send/recv peer, root, or -1 */
    int32_t event;        /* event-pair index, -1 when untracked */
    uint32_t tid;
    char thread_name[12]; /* first bytes of the caller's thread name */
} rec_call;
_Static_assert(sizeof(rec_call) == 96,
               "rec_call is 96 bytes = 12 words: a slot stores it as words");

#define REC_CALL_WORDS ((sizeof(rec_call) + 7) / 8)

/* A call as the words a slot stores: producers build it in place, no copy. */
typedef union rec_call_words {
    rec_call call;
    uint64_t words[REC_CALL_WORDS];
} rec_call_words;

typedef struct rec_slot {
    _Atomic uint64_t ver;
    _Atomic uint64_t status;
    _Atomic int64_t time_started_ns;   /* realtime when the start event was seen done, 0 = never */
    _Atomic int64_t time_completed_ns; /* realtime when the end event was seen done, 0 = never */
    _Atomic uint32_t duration_bits;    /* duration_ms as float bits, REC_NO_DURATION = unknown */
    _Atomic uint64_t words[REC_CALL_WORDS];
} __attribute__((aligned(64))) rec_slot;

/* A reader's consistent copy of one slot. */
typedef struct rec_snapshot {
    rec_call call;
    uint64_t status;
    int64_t time_started_ns, time_completed_ns;
    bool has_duration;
    float duration_ms; /* start to end event on the GPU (FRTRACE_GPU_EVENTS=2) */
} rec_snapshot;

#define REC_NO_DURATION UINT32_MAX /* a NaN pattern no measured duration has */

typedef struct rec_ring {
    rec_slot *slots;
    uint32_t capacity;     /* entries kept (FRTRACE_BUFFER_SIZE): the window readers see */
    uint32_t nslots;       /* slots in memory: at least REC_RING_MIN_SLOTS, see ring.c */
    _Atomic uint64_t head; /* next record id */
} rec_ring;

#define REC_RING_MIN_SLOTS 256

/* Memory for `capacity` slots (mmap'd, never freed: readers may hold pointers at exit). */
int rec_ring_init(rec_ring *ring, uint32_t capacity);
/* Forget every entry (after fork, in the child). */
void rec_ring_reset(rec_ring *ring);

/* Takes the next record id; the caller then fills a rec_call and publishes it under that id
 * (reserving first lets the caller derive the event pair from the id). */
uint64_t rec_ring_reserve(rec_ring *ring);
/* Publishes `cw->call` under its record_id with the initial status bits (state scheduled). */
void rec_ring_publish(rec_ring *ring, const rec_call_words *cw, uint64_t status_bits);
/* Copies the entry with record id `id`; false when it was overwritten or is being written. */
bool rec_ring_read(const rec_ring *ring, uint64_t id, rec_snapshot *out);
/* Sets status bits of entry `id` (fails silently when the slot moved on). */
void rec_ring_set_bits(rec_ring *ring, uint64_t id, uint64_t bits);
/* Moves entry `id` from a state to a later one; false when it was overwritten meanwhile. */
bool rec_ring_advance(rec_ring *ring, uint64_t id, unsigned new_state, int64_t now_ns);
/* The entry's duration_ms, once its completion was seen (watchdog.c). */
void rec_ring_set_duration(rec_ring *ring, uint64_t id, float ms);
/* The oldest record id still in the ring and the next one to be written. */
void rec_ring_window(const rec_ring *ring, uint64_t *first, uint64_t *end);

static inline rec_slot *rec_ring_slot(const rec_ring *ring, uint64_t id) {
    return &ring->slots[id % ring->nslots];
}

#endif
