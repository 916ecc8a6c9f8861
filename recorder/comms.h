/* comms.h — the communicator registry: identity, ranks and sequence counters per ncclComm_t.
 *
 * A communicator's identity must be the same number on every member rank, so that the
 * analyzer can line up their dumps. It is NCCL's own commHash: the hash of the unique id for
 * InitRank/InitRankConfig/InitRankScalable/InitAll, and for a split the hash of (parent hash,
 * per-parent split counter, color), exactly as NCCL computes it (NCCL's init.cc).
 * Shrinks get an id of their own (NCCL's formula collides for repeated shrinks).
 *
 * Communicators of one ncclCommInitAll (several devices in this process, all members of one
 * communicator) share the id but get pg names of their own, "<id>.<device index>", so that each
 * device's rank appears as its own group entry in the dump (a dump describes one rank per group).
 *
 * Records live in a fixed array and are never freed (a destroyed communicator still appears in
 * dumps); a small open-addressing map from the ncclComm_t pointer to the record index serves
 * the hot path without locks. Creation and destruction take a mutex.
 */
#ifndef FRTRACE_REC_COMMS_H
#define FRTRACE_REC_COMMS_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define REC_MAX_COMMS 1024

enum rec_comm_state {
    REC_COMM_LIVE,
    REC_COMM_FINALIZED,
    REC_COMM_DESTROYED,
    REC_COMM_ABORTED,
    REC_COMM_REVOKED,
    REC_COMM_ERROR /* ncclCommGetAsyncError reported an error (async_error says which) */
};

/* ncclResult_t values the recorder needs without nccl.h. */
enum { REC_NCCL_SUCCESS = 0, REC_NCCL_IN_PROGRESS = 7 };

typedef struct rec_comm {
    uintptr_t handle;       /* the ncclComm_t (a per-process key only) */
    uint64_t id;            /* identity, equal on every member */
    uint64_t nccl_hash;     /* NCCL's commHash (differs from id only for shrinks) */
    int32_t parent;         /* registry index of the parent, -1 */
    int32_t color;          /* split color, -1 */
    _Atomic int32_t rank;   /* rank in the communicator, -1 until known */
    _Atomic int32_t nranks; /* size, 0 until known (non-blocking init) */
    bool blocking;
    _Atomic int state;       /* rec_comm_state */
    _Atomic int async_error; /* last ncclCommGetAsyncError result seen */
    pthread_mutex_t busy;    /* held by Destroy/Abort/Finalize and the poller's GetAsyncError */
    char desc[64];           /* ncclConfig_t.commName, else "undefined" */
    char pg_name[24];        /* id as hex (+ ".<device>" for InitAll): the pg_config key */
    char hash_text[20];      /* "0x" + nccl_hash */
    _Atomic uint32_t split_count, shrink_count;
    _Atomic int members_noted; /* this process wrote its slot of the member file (members.h) */
    /* coll_seq/p2p_seq: the launch numbers of the last collective and p2p launch. Both are
     * taken from launch_seq, one number per launch (a collective, a send/recv, or a group's
     * batch on this communicator), so that a collective's id never equals a p2p batch's: see
     * shim.c on why torchfrtrace needs that. */
    _Atomic int64_t coll_seq, p2p_seq, op_id, launch_seq;
    _Atomic int64_t last_started, last_completed; /* collective seq ids, -1 = none */
} rec_comm;

/* NCCL's hash (eatHash/digestHash over one chunk of bytes). */
uint64_t rec_hash_bytes(const void *bytes, size_t len);
/* NCCL's commHash of a split child: hash of (parent hash, split count, color). */
uint64_t rec_hash_split(uint64_t parent_hash, int split_count, int color);
/* Our id for a shrink: hash of (parent id, shrink count, sorted excluded ranks). */
uint64_t rec_hash_shrink(uint64_t parent_id, int shrink_count, const int *excluded, int n);

typedef struct rec_comm_init {
    uintptr_t handle;
    uint64_t id, nccl_hash;
    int32_t parent, color, rank, nranks;
    bool blocking;
    const char *name; /* NULL = "undefined" */
    int device_index; /* ncclCommInitAll: device index + 1; 0 otherwise */
} rec_comm_init;

/* Registers a new communicator; returns its index or -1 when the registry is full. */
int rec_comms_add(const rec_comm_init *init);
/* Index for a handle, or -1 (lock-free). */
int rec_comms_find(uintptr_t handle);
rec_comm *rec_comms_at(int index);
uint32_t rec_comms_count(void);
/* Marks a communicator's end of life and forgets its handle (NCCL may reuse the address). */
void rec_comms_retire(int index, int state);
/* Forgets everything (fork child). */
void rec_comms_reset(void);

const char *rec_comm_state_name(int state);
/* The state as dumps show it: rec_comm_state_name, or "async_error:ncclRemoteError" & co.
 * Static strings only (the fatal-signal dump calls it). */
const char *rec_comm_state_text(const rec_comm *c);

#endif
