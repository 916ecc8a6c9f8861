/* shim.c — the NCCL entry points: record the call in the ring, then call the real function.
 *
 * LD_PRELOAD puts these definitions in front of libnccl's. Each wrapper finds the real
 * function lazily (dlsym(RTLD_NEXT, "ncclX"), then "pncclX", then libnccl.so.2 if it is already
 * loaded) and caches it in an atomic pointer. A function the loaded NCCL lacks is never called:
 * the wrapper returns ncclInvalidUsage.
 *
 * Hot path (a collective or send/recv): one atomic load of the phase, a per-thread cache hit
 * for the communicator, counter increments on the communicator, one clock read, one ring slot
 * written; with GPU events, one cuStreamIsCapturing and one or two cuEventRecord. Nothing is
 * allocated and no lock is taken.
 *
 * Groups: inside ncclGroupStart/End nothing is launched until the outermost ncclGroupEnd, so
 * member entries are published at once but their events are recorded around the real
 * ncclGroupEnd (start before, end after), one pair per stream shared by its members. A group
 * counts once per communicator, as one launch: its collectives share one collective sequence
 * id, its sends/recvs one p2p sequence id, and a "nccl:coalesced" end marker closes each
 * communicator's batch of two or more operations, as PyTorch's coalescing manager does. The
 * batch's books (communicators, streams, members, end markers, events) are group.c's; the
 * wrappers here keep one batch per thread and say when it starts and ends.
 *
 * Sequence ids: PyTorch counts collectives and p2p launches separately from 1, so that an
 * all_reduce #1 followed by a send/recv batch #1 share the number 1. torchfrtrace (2.15) groups
 * a rank's leading entries by that number alone (collective_seq_id of collectives, p2p_seq_id
 * of sends/recvs) and then takes the all_reduce for part of the batch and crashes on it. Here
 * both ids are drawn from one counter per communicator, its launch number: every collective,
 * send/recv or group batch takes the next one, so ids keep their order and their meaning (equal
 * ids = one launch on every rank) but a collective's never equals a p2p launch's.
 *
 * Re-entry: libnccl calls some of its own exports (ncclGetUniqueId inside ncclCommInitAll,
 * ncclCommGetAsyncError); a thread-local depth makes only the outermost call record, except
 * that ncclGetUniqueId inside ncclCommInitAll hands its id to the InitAll wrapper.
 *
 * This file is the top of the recorder: it calls down into every other file and nothing calls
 * into it. The state the others read (ring, rank, NCCL version, clock offset) lives in
 * recorder.c; the shim fills it at activation, and installs there the one NCCL call the
 * watchdog makes (poller_async_error).
 */
#include <dlfcn.h>
#include <nccl.h>
#include <pthread.h>
#include <stddef.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "comms.h"
#include "config.h"
#include "cuda_driver.h"
#include "dumper.h"
#include "group.h"
#include "identity.h"
#include "inflight.h"
#include "members.h"
#include "recorder.h"
#include "ring.h"
#include "thread_stacks.h"
#include "watchdog.h"

#define EXPORT __attribute__((visibility("default")))

/* --- the recorder's lifecycle -------------------------------------------------------------- */

enum { PHASE_FRESH, PHASE_ACTIVE, PHASE_OFF, PHASE_INERT };

static _Atomic int g_phase = PHASE_FRESH;
static _Atomic uint64_t g_comms_epoch = 1; /* bumped when a handle may change meaning */
static pthread_mutex_t g_activate_lock = PTHREAD_MUTEX_INITIALIZER;

static inline bool recorder_active(void) {
    return atomic_load_explicit(&g_phase, memory_order_acquire) == PHASE_ACTIVE;
}

/* --- real functions ------------------------------------------------------------------------ */

/* clang-format off */
#define REAL_FUNCTIONS(X)                                                                          \
    X(ncclGetVersion) X(ncclGetUniqueId) X(ncclCommInitRank) X(ncclCommInitRankConfig)             \
    X(ncclCommInitRankScalable) X(ncclCommInitAll) X(ncclCommSplit) X(ncclCommShrink)              \
    X(ncclCommFinalize) X(ncclCommDestroy) X(ncclCommAbort) X(ncclCommRevoke)                      \
    X(ncclCommGetAsyncError) X(ncclCommCount) X(ncclCommUserRank) X(ncclCommCuDevice)              \
    X(ncclAllReduce) X(ncclBroadcast) X(ncclBcast) X(ncclReduce) X(ncclAllGather)                  \
    X(ncclReduceScatter) X(ncclAlltoAll) X(ncclGather) X(ncclScatter) X(ncclSend) X(ncclRecv)      \
    X(ncclGroupStart) X(ncclGroupEnd) X(ncclGroupSimulateEnd)
/* clang-format on */

#define AS_ENUM(name) REAL_##name,
enum { REAL_FUNCTIONS(AS_ENUM) REAL_COUNT_ };
#undef AS_ENUM

static _Atomic(void *) g_real[REAL_COUNT_];

static void *find_real(const char *name) {
    char pname[64] = "p";
    void *f = dlsym(RTLD_NEXT, name);
    strncat(pname, name, sizeof pname - 2);
    if (f == NULL) f = dlsym(RTLD_NEXT, pname);
    if (f == NULL) {
        /* libnccl dlopen'ed RTLD_LOCAL after us: look inside it without loading anything. */
        void *lib = dlopen("libnccl.so.2", RTLD_NOW | RTLD_NOLOAD);
        if (lib != NULL) {
            f = dlsym(lib, name);
            if (f == NULL) f = dlsym(lib, pname);
            dlclose(lib);
        }
    }
    return f;
}

static __attribute__((noinline)) void *resolve_real(int which, const char *name) {
    void *f = find_real(name);
    atomic_store_explicit(&g_real[which], f, memory_order_release);
    return f;
}

static inline void *real_symbol(int which, const char *name) {
    void *f = atomic_load_explicit(&g_real[which], memory_order_acquire);
    return f != NULL ? f : resolve_real(which, name);
}

#define REAL(name) ((__typeof__(&name))real_symbol(REAL_##name, #name))
/* Declares `real` for the wrapper `name`, or returns ncclInvalidUsage when NCCL lacks it. */
#define NEED_REAL(name)                                                                            \
    __typeof__(&name) real = REAL(name);                                                           \
    if (real == NULL) return ncclInvalidUsage

/* --- per-thread state ---------------------------------------------------------------------- */

typedef struct rec_thread {
    int depth;        /* wrapped NCCL calls in progress on this thread */
    int group_depth;  /* user-level ncclGroupStart nesting */
    bool in_init_all; /* ncclGetUniqueId must hand its id to ncclCommInitAll */
    bool have_init_all_id;
    bool named;
    int inflight; /* this thread's stuck-in-API slot + 1; 0 = none (yet), -1 = none left */
    uint32_t tid;
    char name[12];
    uintptr_t cached_handle;
    int cached_index;
    uint64_t cached_epoch;
} rec_thread;

/* The hot per-thread state is small and in the static TLS block (no __tls_get_addr call); the
 * group bookkeeping (8 KiB) and InitAll's id are touched only inside groups and inits. */
static __thread rec_thread t_self __attribute__((tls_model("initial-exec")));
static __thread rec_group t_group;
static __thread ncclUniqueId t_init_all_id;

static void name_thread(rec_thread *t) {
    char name[17] = { 0 };
    prctl(PR_GET_NAME, name, 0, 0, 0);
    memcpy(t->name, name, sizeof t->name);
    t->tid = (uint32_t)syscall(SYS_gettid);
    t->named = true;
    if (t->inflight == 0) {
        int slot = rec_inflight_claim(t->tid, name);
        t->inflight = slot >= 0 ? slot + 1 : -1;
    }
}

/* Stuck-in-API bookkeeping of the lifecycle calls (init, split, destroy, group end): the
 * thread's slot says "inside `api` since now" until api_leave. Returns the slot or -1. */
static int api_enter(unsigned api) {
    rec_thread *t = &t_self;
    if (!recorder_active()) return -1;
    if (!t->named) name_thread(t);
    if (t->inflight <= 0) return -1;
    rec_inflight_enter(t->inflight - 1, api, rec_now_coarse_mono_ns());
    return t->inflight - 1;
}

static void api_leave(int slot) {
    if (slot >= 0) rec_inflight_leave(slot);
}

static int comm_index(ncclComm_t comm) {
    rec_thread *t = &t_self;
    uint64_t epoch = atomic_load_explicit(&g_comms_epoch, memory_order_acquire);
    if (t->cached_handle == (uintptr_t)comm && t->cached_epoch == epoch) return t->cached_index;
    int index = rec_comms_find((uintptr_t)comm);
    t->cached_handle = (uintptr_t)comm;
    t->cached_index = index;
    t->cached_epoch = epoch;
    return index;
}

/* --- recording one operation -------------------------------------------------------------- */

typedef struct rec_pending {
    uint64_t id;
    bool recorded;
    bool in_group;
    int32_t pair;
    uintptr_t stream;
} rec_pending;

static int g_gpu_events; /* FRTRACE_GPU_EVENTS, copied at activation for the hot path */

static bool events_wanted(const rec_comm *c) {
    return g_gpu_events > 0 && c->blocking && rec_cuda_ready();
}

static void fill_size_if_unknown(rec_comm *c, ncclComm_t comm) {
    int n = 0, r = -1;
    if (REAL(ncclCommCount) != NULL && REAL(ncclCommCount)(comm, &n) == ncclSuccess && n > 0 &&
        REAL(ncclCommUserRank) != NULL && REAL(ncclCommUserRank)(comm, &r) == ncclSuccess) {
        atomic_store(&c->rank, r);
        atomic_store(&c->nranks, n);
        rec_members_note(c, rec_recorder_known_rank());
    }
}

/* The next launch number of the communicator. NCCL forbids concurrent calls on one
 * communicator, so a plain (relaxed, unlocked) increment suffices; the atomics only keep
 * readers on other threads well-defined. */
static int64_t next_launch(rec_comm *c) {
    int64_t n = atomic_load_explicit(&c->launch_seq, memory_order_relaxed) + 1;
    atomic_store_explicit(&c->launch_seq, n, memory_order_relaxed);
    return n;
}

/* Sequence ids (see the file comment): outside a group each call is a launch of its own; in a
 * group, the communicator's first op takes the group's launch number and every other op of
 * the group on that communicator shares it. */
static void assign_seq(rec_comm *c, int index, bool p2p, rec_call *call) {
    rec_thread *t = &t_self;
    group_comm *gc = t->group_depth > 0 ? rec_group_comm_for(&t_group, index, c) : NULL;
    int64_t launch;
    if (gc == NULL) {
        launch = next_launch(c);
    } else {
        if (gc->launch == 0) gc->launch = next_launch(c);
        launch = gc->launch;
        gc->nops++;
    }
    atomic_store_explicit(p2p ? &c->p2p_seq : &c->coll_seq, launch, memory_order_relaxed);
    call->coll_seq = atomic_load_explicit(&c->coll_seq, memory_order_relaxed);
    call->p2p_seq = atomic_load_explicit(&c->p2p_seq, memory_order_relaxed);
    call->op_id = atomic_load_explicit(&c->op_id, memory_order_relaxed) + 1;
    atomic_store_explicit(&c->op_id, call->op_id, memory_order_relaxed);
}

/* Chooses the event pair of a new entry and records the start event when it can already. */
static void attach_events(rec_pending *p, rec_call *call, const rec_comm *c, uint64_t *bits) {
    rec_thread *t = &t_self;
    bool events = events_wanted(c);
    call->event = -1;
    if (t->group_depth > 0) {
        int s = rec_group_stream_for(&t_group, p->stream, call->record_id, events);
        rec_group_add_member(&t_group, call->record_id, s);
        if (s >= 0 && t_group.streams[s].pair >= 0) {
            call->event = t_group.streams[s].pair;
            call->event_owner = (uint16_t)(call->record_id - t_group.streams[s].owner);
        } else if (events) {
            call->flags |= REC_F_CAPTURED;
        }
        return;
    }
    if (!events) return;
    if (rec_cuda_stream_capturing(p->stream)) {
        call->flags |= REC_F_CAPTURED;
        return;
    }
    uint32_t pair = (uint32_t)(call->record_id % rec_cuda_pairs());
    rec_cuda_set_owner(pair, call->record_id);
    call->event = (int32_t)pair;
    if (g_gpu_events == 2 && rec_cuda_record(pair, 0, p->stream)) *bits |= REC_S_START_ARMED;
}

static bool op_begin(rec_pending *p, rec_op op, size_t count, int dtype, int redop, int peer,
                     ncclComm_t comm, cudaStream_t stream) {
    rec_thread *t = &t_self;
    p->recorded = false;
    if (t->depth++ > 0 || !recorder_active()) return false;
    int index = comm_index(comm);
    if (index < 0) return false;
    rec_comm *c = rec_comms_at(index);
    if (!t->named) name_thread(t);
    if (atomic_load_explicit(&c->nranks, memory_order_relaxed) == 0)
        fill_size_if_unknown(c, comm); /* non-blocking init, or a split that was in progress */
    rec_call_words cw;
    rec_call *call = &cw.call;
    memset(&cw, 0, sizeof cw);
    int64_t mono = rec_now_coarse_mono_ns();
    if (t->inflight > 0) rec_inflight_enter(t->inflight - 1, REC_API_OP + (unsigned)op, mono);
    call->record_id = rec_ring_reserve(rec_recorder_ring());
    call->mono_created_ns = mono;
    call->time_created_ns = rec_recorder_real_of(mono);
    call->count = count;
    call->stream = (uintptr_t)stream;
    call->comm = (uint16_t)index;
    call->op = (uint8_t)op;
    call->dtype = (uint8_t)dtype;
    call->redop = (uint8_t)redop;
    call->peer = peer;
    call->tid = t->tid;
    memcpy(call->thread_name, t->name, sizeof call->thread_name);
    bool p2p = op == REC_OP_SEND || op == REC_OP_RECV;
    call->flags = (uint8_t)((p2p ? REC_F_P2P : 0) | (t->group_depth > 0 ? REC_F_IN_GROUP : 0));
    assign_seq(c, index, p2p, call);
    p->stream = (uintptr_t)stream;
    uint64_t bits = 0;
    attach_events(p, call, c, &bits);
    if (t->group_depth > 0) {
        /* The end marker of this communicator's batch goes on the stream of its first op. */
        group_comm *gc = rec_group_comm_for(&t_group, index, c);
        if (gc != NULL && gc->stream < 0 && t_group.nmembers > 0)
            gc->stream = t_group.members[t_group.nmembers - 1].stream;
    }
    rec_ring_publish(rec_recorder_ring(), &cw, bits);
    p->id = call->record_id;
    p->pair = call->event;
    p->in_group = t->group_depth > 0;
    p->recorded = true;
    return true;
}

static bool launched(ncclResult_t r) { return r == ncclSuccess || r == ncclInProgress; }

static void mark_failed(uint64_t id) {
    rec_ring_set_bits(rec_recorder_ring(), id, REC_S_FAILED);
    rec_ring_advance(rec_recorder_ring(), id, REC_COMPLETED, rec_now_real_ns());
}

static void op_end(const rec_pending *p, ncclResult_t r) {
    t_self.depth--;
    if (p->recorded && t_self.inflight > 0) rec_inflight_leave(t_self.inflight - 1);
    if (!p->recorded || p->in_group) return;
    if (!launched(r))
        mark_failed(p->id);
    else if (p->pair >= 0 && rec_cuda_record((uint32_t)p->pair, 1, p->stream))
        rec_ring_set_bits(rec_recorder_ring(), p->id, REC_S_END_ARMED);
}

/* --- collectives and point-to-point -------------------------------------------------------- */

#define RECORDED_CALL(name, op, count, dtype, redop, peer, comm, stream, ...)                      \
    do {                                                                                           \
        NEED_REAL(name);                                                                           \
        rec_pending p_;                                                                            \
        op_begin(&p_, op, count, dtype, redop, peer, comm, stream);                                \
        ncclResult_t r_ = real(__VA_ARGS__);                                                       \
        op_end(&p_, r_);                                                                           \
        return r_;                                                                                 \
    } while (0)

/* The wrappers, one macro per shape of NCCL's prototypes: the buffers, count and datatype, then
 * what the shape adds (a reduction op, a root, a peer), then the communicator and the stream. */
#define TWO_BUFFERS_OP(name, rec_op)                                                               \
    EXPORT ncclResult_t name(const void *sendbuff, void *recvbuff, size_t count,                   \
                             ncclDataType_t datatype, ncclRedOp_t op, ncclComm_t comm,             \
                             cudaStream_t stream) {                                                \
        RECORDED_CALL(name, rec_op, count, datatype, op, -1, comm, stream, sendbuff, recvbuff,     \
                      count, datatype, op, comm, stream);                                          \
    }
#define TWO_BUFFERS_ROOT(name, rec_op)                                                             \
    EXPORT ncclResult_t name(const void *sendbuff, void *recvbuff, size_t count,                   \
                             ncclDataType_t datatype, int root, ncclComm_t comm,                   \
                             cudaStream_t stream) {                                                \
        RECORDED_CALL(name, rec_op, count, datatype, 0, root, comm, stream, sendbuff, recvbuff,    \
                      count, datatype, root, comm, stream);                                        \
    }
#define TWO_BUFFERS(name, rec_op)                                                                  \
    EXPORT ncclResult_t name(const void *sendbuff, void *recvbuff, size_t count,                   \
                             ncclDataType_t datatype, ncclComm_t comm, cudaStream_t stream) {      \
        RECORDED_CALL(name, rec_op, count, datatype, 0, -1, comm, stream, sendbuff, recvbuff,      \
                      count, datatype, comm, stream);                                              \
    }
/* One buffer and a peer (the root of ncclBcast); buffer_type is const void for a send. */
#define ONE_BUFFER_PEER(name, rec_op, buffer_type)                                                 \
    EXPORT ncclResult_t name(buffer_type *buff, size_t count, ncclDataType_t datatype, int peer,   \
                             ncclComm_t comm, cudaStream_t stream) {                               \
        RECORDED_CALL(name, rec_op, count, datatype, 0, peer, comm, stream, buff, count, datatype, \
                      peer, comm, stream);                                                         \
    }

TWO_BUFFERS_OP(ncclAllReduce, REC_OP_ALL_REDUCE)
TWO_BUFFERS_OP(ncclReduceScatter, REC_OP_REDUCE_SCATTER)
TWO_BUFFERS_ROOT(ncclBroadcast, REC_OP_BROADCAST)
TWO_BUFFERS_ROOT(ncclGather, REC_OP_GATHER)
TWO_BUFFERS_ROOT(ncclScatter, REC_OP_SCATTER)
TWO_BUFFERS(ncclAllGather, REC_OP_ALL_GATHER)
TWO_BUFFERS(ncclAlltoAll, REC_OP_ALL_TO_ALL)
ONE_BUFFER_PEER(ncclBcast, REC_OP_BROADCAST, void)
ONE_BUFFER_PEER(ncclSend, REC_OP_SEND, const void)
ONE_BUFFER_PEER(ncclRecv, REC_OP_RECV, void)

EXPORT ncclResult_t ncclReduce(const void *sendbuff, void *recvbuff, size_t count,
                               ncclDataType_t datatype, ncclRedOp_t op, int root, ncclComm_t comm,
                               cudaStream_t stream) {
    RECORDED_CALL(ncclReduce, REC_OP_REDUCE, count, datatype, op, root, comm, stream, sendbuff,
                  recvbuff, count, datatype, op, root, comm, stream);
}

/* --- groups -------------------------------------------------------------------------------- */

/* nccl.h declares these two without a prototype: give them one. */
ncclResult_t ncclGroupStart(void);
ncclResult_t ncclGroupEnd(void);

EXPORT ncclResult_t ncclGroupStart(void) {
    NEED_REAL(ncclGroupStart);
    rec_thread *t = &t_self;
    if (t->depth == 0) {
        if (t->group_depth == 0) {
            t_group.nstreams = t_group.ncomms = t_group.nmembers = 0;
        }
        t->group_depth++;
    }
    t->depth++;
    ncclResult_t r = real();
    t->depth--;
    return r;
}

EXPORT ncclResult_t ncclGroupEnd(void) {
    NEED_REAL(ncclGroupEnd);
    rec_thread *t = &t_self;
    bool outermost = t->depth == 0 && t->group_depth == 1;
    if (t->depth == 0 && t->group_depth > 0) t->group_depth--;
    bool record = outermost && recorder_active() && t_group.nmembers > 0;
    if (record) {
        rec_group_publish_end_markers(&t_group, t_self.tid, t_self.name);
        if (g_gpu_events == 2) rec_group_record_events(&t_group, 0);
    }
    int slot = t->depth == 0 ? api_enter(REC_API_GROUP_END) : -1;
    t->depth++;
    ncclResult_t r = real();
    t->depth--;
    api_leave(slot);
    if (record) {
        if (launched(r))
            rec_group_record_events(&t_group, 1);
        else
            for (int i = 0; i < t_group.nmembers; i++) mark_failed(t_group.members[i].id);
    }
    return r;
}

/* Simulation launches nothing: the group's entries are dropped and its counters restored. */
EXPORT ncclResult_t ncclGroupSimulateEnd(ncclSimInfo_t *simInfo) {
    NEED_REAL(ncclGroupSimulateEnd);
    rec_thread *t = &t_self;
    bool outermost = t->depth == 0 && t->group_depth == 1;
    if (t->depth == 0 && t->group_depth > 0) t->group_depth--;
    if (outermost && recorder_active()) {
        rec_group_drop(&t_group);
    }
    t->depth++;
    ncclResult_t r = real(simInfo);
    t->depth--;
    return r;
}

/* --- activation, fork ---------------------------------------------------------------------- */

static void format_nccl_version(void) {
    int v = 0;
    if (REAL(ncclGetVersion) == NULL || REAL(ncclGetVersion)(&v) != ncclSuccess || v <= 0) return;
    int major, minor, patch;
    char version[24];
    if (v >= 10000) {
        major = v / 10000, minor = (v % 10000) / 100, patch = v % 100;
    } else {
        major = v / 1000, minor = (v % 1000) / 100, patch = v % 100;
    }
    rec_format_version(version, sizeof version, major, minor, patch);
    rec_recorder_set_nccl_version(version);
}

/* The watchdog's ncclCommGetAsyncError (its poller holds the comm's busy lock), installed in
 * recorder.c at activation: the real function, not recorded as an application call (the depth
 * keeps whatever NCCL calls inside it from being recorded either). */
static int poller_async_error(uintptr_t handle, int *error) {
    __typeof__(&ncclCommGetAsyncError) real = REAL(ncclCommGetAsyncError);
    ncclResult_t e = ncclSuccess;
    if (real == NULL) return -1;
    t_self.depth++;
    ncclResult_t r = real((ncclComm_t)handle, &e);
    t_self.depth--;
    if (r != ncclSuccess) return -1;
    *error = (int)e;
    return 0;
}

static void after_fork_in_child(void) {
    pthread_mutex_t fresh = PTHREAD_MUTEX_INITIALIZER;
    g_activate_lock = fresh;
    if (atomic_load(&g_phase) == PHASE_ACTIVE) atomic_store(&g_phase, PHASE_INERT);
    rec_cuda_forget();
    rec_watchdog_forget();
    rec_dump_forget();
    rec_inflight_reset();
    t_self.group_depth = 0;
    t_self.named = false;
    t_self.inflight = 0;
}

static void start_recording(bool after_fork) {
    const rec_config *cfg = rec_config_get();
    if (after_fork) {
        rec_recorder_reset();
        rec_comms_reset();
        atomic_fetch_add(&g_comms_epoch, 1);
    } else if (rec_recorder_init(cfg->buffer_size) != 0 ||
               rec_dump_prepare(cfg->buffer_size) != 0) {
        rec_log(REC_LOG_WARN, "out of memory for %u entries: recording off", cfg->buffer_size);
        atomic_store(&g_phase, PHASE_OFF);
        return;
    }
    rec_recorder_sync_clocks();
    g_gpu_events = cfg->gpu_events;
    format_nccl_version();
    rec_identity_init();
    if (!after_fork) rec_stacks_prepare();
    rec_recorder_set_async_error(poller_async_error);
    rec_watchdog_start();
    atomic_store_explicit(&g_phase, PHASE_ACTIVE, memory_order_release);
    rec_log(REC_LOG_INFO, "recording the last %u NCCL calls (rank %lld)", cfg->buffer_size,
            (long long)rec_recorder_global_rank());
}

/* Called before the first communicator is created: threads start here, never earlier, so that
 * processes that never create a communicator (helpers inheriting LD_PRELOAD) stay untouched. */
static void activate(void) {
    static bool atfork_registered;
    int phase = atomic_load_explicit(&g_phase, memory_order_acquire);
    if (phase == PHASE_ACTIVE || phase == PHASE_OFF) return;
    pthread_mutex_lock(&g_activate_lock);
    phase = atomic_load(&g_phase);
    if (!atfork_registered) {
        atfork_registered = true;
        pthread_atfork(NULL, NULL, after_fork_in_child);
    }
    if (phase == PHASE_FRESH || phase == PHASE_INERT) {
        if (rec_config_get()->buffer_size == 0)
            atomic_store(&g_phase, PHASE_OFF);
        else
            start_recording(phase == PHASE_INERT);
    }
    pthread_mutex_unlock(&g_activate_lock);
}

/* --- communicators ------------------------------------------------------------------------- */

static const char *config_name(const ncclConfig_t *config) {
    if (config == NULL || config->size < offsetof(ncclConfig_t, commName) + sizeof(const char *))
        return NULL;
    return config->commName;
}

static bool config_blocking(const ncclConfig_t *config) {
    if (config == NULL || config->size < offsetof(ncclConfig_t, blocking) + sizeof(int))
        return true;
    return config->blocking != 0; /* NCCL_CONFIG_UNDEF_INT means the default: blocking */
}

static int comm_device(ncclComm_t comm) {
    int dev = -1;
    if (REAL(ncclCommCuDevice) == NULL || REAL(ncclCommCuDevice)(comm, &dev) != ncclSuccess)
        return -1;
    return dev;
}

/* Registers a created communicator and, at the first one, the event pool. */
static void register_comm(ncclComm_t comm, const rec_comm_init *init_in) {
    if (comm == NULL || !recorder_active()) return;
    rec_comm_init init = *init_in;
    init.handle = (uintptr_t)comm;
    if (rec_comms_add(&init) < 0) return;
    atomic_fetch_add(&g_comms_epoch, 1);
    rec_recorder_note_comm_rank(init.rank);
    int index = comm_index(comm);
    if (index >= 0) rec_members_note(rec_comms_at(index), rec_recorder_known_rank());
    rec_identity_note_device(comm_device(comm));
    const rec_config *cfg = rec_config_get();
    if (cfg->gpu_events > 0 && init.blocking)
        rec_cuda_init(cfg->buffer_size < 65536 ? cfg->buffer_size : 65536, comm_device(comm));
}

static rec_comm_init root_init(const ncclUniqueId *id, int nranks, int rank,
                               const ncclConfig_t *config) {
    uint64_t h = rec_hash_bytes(id->internal, sizeof id->internal);
    return (rec_comm_init){ .id = h,
                            .nccl_hash = h,
                            .parent = -1,
                            .color = -1,
                            .rank = rank,
                            .nranks = nranks,
                            .blocking = config_blocking(config),
                            .name = config_name(config) };
}

EXPORT ncclResult_t ncclGetUniqueId(ncclUniqueId *uniqueId) {
    NEED_REAL(ncclGetUniqueId);
    rec_thread *t = &t_self;
    t->depth++;
    ncclResult_t r = real(uniqueId);
    t->depth--;
    if (r == ncclSuccess && t->in_init_all && uniqueId != NULL) {
        t_init_all_id = *uniqueId;
        t->have_init_all_id = true;
    }
    return r;
}

EXPORT ncclResult_t ncclCommInitRank(ncclComm_t *comm, int nranks, ncclUniqueId commId, int rank) {
    NEED_REAL(ncclCommInitRank);
    bool outer = t_self.depth++ == 0;
    if (outer) activate();
    int slot = outer ? api_enter(REC_API_INIT_RANK) : -1;
    ncclResult_t r = real(comm, nranks, commId, rank);
    api_leave(slot);
    t_self.depth--;
    if (outer && launched(r) && comm != NULL) {
        rec_comm_init init = root_init(&commId, nranks, rank, NULL);
        register_comm(*comm, &init);
    }
    return r;
}

EXPORT ncclResult_t ncclCommInitRankConfig(ncclComm_t *comm, int nranks, ncclUniqueId commId,
                                           int rank, ncclConfig_t *config) {
    NEED_REAL(ncclCommInitRankConfig);
    bool outer = t_self.depth++ == 0;
    if (outer) activate();
    int slot = outer ? api_enter(REC_API_INIT_RANK_CONFIG) : -1;
    ncclResult_t r = real(comm, nranks, commId, rank, config);
    api_leave(slot);
    t_self.depth--;
    if (outer && launched(r) && comm != NULL) {
        rec_comm_init init = root_init(&commId, nranks, rank, config);
        register_comm(*comm, &init);
    }
    return r;
}

EXPORT ncclResult_t ncclCommInitRankScalable(ncclComm_t *newcomm, int nranks, int myrank, int nId,
                                             ncclUniqueId *commIds, ncclConfig_t *config) {
    NEED_REAL(ncclCommInitRankScalable);
    bool outer = t_self.depth++ == 0;
    if (outer) activate();
    int slot = outer ? api_enter(REC_API_INIT_RANK_SCALABLE) : -1;
    ncclResult_t r = real(newcomm, nranks, myrank, nId, commIds, config);
    api_leave(slot);
    t_self.depth--;
    if (outer && launched(r) && newcomm != NULL && nId > 0 && commIds != NULL) {
        rec_comm_init init = root_init(&commIds[0], nranks, myrank, config); /* NCCL: first id */
        register_comm(*newcomm, &init);
    }
    return r;
}

EXPORT ncclResult_t ncclCommInitAll(ncclComm_t *comm, int ndev, const int *devlist) {
    NEED_REAL(ncclCommInitAll);
    rec_thread *t = &t_self;
    bool outer = t->depth++ == 0;
    if (outer) {
        activate();
        t->in_init_all = true;
        t->have_init_all_id = false;
    }
    int slot = outer ? api_enter(REC_API_INIT_ALL) : -1;
    ncclResult_t r = real(comm, ndev, devlist);
    api_leave(slot);
    t->depth--;
    if (outer) {
        t->in_init_all = false;
        if (launched(r) && comm != NULL && t->have_init_all_id)
            for (int i = 0; i < ndev; i++) {
                rec_comm_init init = root_init(&t_init_all_id, ndev, i, NULL);
                init.device_index = i + 1; /* one group entry per device (comms.h) */
                register_comm(comm[i], &init);
            }
        else if (launched(r))
            rec_log(REC_LOG_WARN, "ncclCommInitAll made no unique id visible: comms not recorded");
    }
    return r;
}

/* A communicator made from a parent (Split, Shrink): registered at once; its size is asked of
 * NCCL only when the call completed (a non-blocking one returns ncclInProgress, and the size
 * is learned later). */
static void register_child_comm(ncclComm_t child, const rec_comm_init *init, ncclResult_t r) {
    register_comm(child, init);
    if (r != ncclSuccess) return;
    int i = comm_index(child);
    if (i >= 0 && atomic_load(&rec_comms_at(i)->nranks) == 0)
        fill_size_if_unknown(rec_comms_at(i), child);
}

EXPORT ncclResult_t ncclCommSplit(ncclComm_t comm, int color, int key, ncclComm_t *newcomm,
                                  ncclConfig_t *config) {
    NEED_REAL(ncclCommSplit);
    bool outer = t_self.depth++ == 0;
    int parent = outer && recorder_active() ? comm_index(comm) : -1;
    /* NCCL counts every split of the parent, NCCL_SPLIT_NOCOLOR included. */
    int count = parent >= 0 ? (int)atomic_fetch_add(&rec_comms_at(parent)->split_count, 1) + 1 : 0;
    int slot = outer ? api_enter(REC_API_SPLIT) : -1;
    ncclResult_t r = real(comm, color, key, newcomm, config);
    api_leave(slot);
    t_self.depth--;
    if (parent >= 0 && launched(r) && newcomm != NULL && *newcomm != NULL) {
        uint64_t h = rec_hash_split(rec_comms_at(parent)->nccl_hash, count, color);
        rec_comm_init init = { .id = h,
                               .nccl_hash = h,
                               .parent = parent,
                               .color = color,
                               .rank = -1,
                               .nranks = 0,
                               .blocking = config_blocking(config),
                               .name = config_name(config) };
        register_child_comm(*newcomm, &init, r);
    }
    return r;
}

EXPORT ncclResult_t ncclCommShrink(ncclComm_t comm, int *excludeRanksList, int excludeRanksCount,
                                   ncclComm_t *newcomm, ncclConfig_t *config, int shrinkFlags) {
    NEED_REAL(ncclCommShrink);
    bool outer = t_self.depth++ == 0;
    int parent = outer && recorder_active() ? comm_index(comm) : -1;
    int count = parent >= 0 ? (int)atomic_fetch_add(&rec_comms_at(parent)->shrink_count, 1) + 1 : 0;
    int slot = outer ? api_enter(REC_API_SHRINK) : -1;
    ncclResult_t r = real(comm, excludeRanksList, excludeRanksCount, newcomm, config, shrinkFlags);
    api_leave(slot);
    t_self.depth--;
    if (parent >= 0 && launched(r) && newcomm != NULL && *newcomm != NULL) {
        rec_comm *p = rec_comms_at(parent);
        rec_comm_init init = {
            .id = rec_hash_shrink(p->id, count, excludeRanksList, excludeRanksCount),
            .nccl_hash = rec_hash_split(p->nccl_hash, 0, 0), /* NCCL's (colliding) hash */
            .parent = parent,
            .color = -1,
            .rank = -1,
            .nranks = 0,
            .blocking = config_blocking(config),
            .name = config_name(config)
        };
        register_child_comm(*newcomm, &init, r);
    }
    return r;
}

static unsigned end_of_life_api(int state) {
    return state == REC_COMM_FINALIZED ? REC_API_FINALIZE
           : state == REC_COMM_ABORTED ? REC_API_ABORT
                                       : REC_API_DESTROY;
}

/* Destroy, Abort, Finalize: call through, then note the communicator's new state. The comm's
 * busy lock is held across the real call, so the watchdog's ncclCommGetAsyncError (which only
 * tries the lock) never runs on a communicator being freed. */
static ncclResult_t end_of_life(ncclResult_t (*real)(ncclComm_t), ncclComm_t comm, int state) {
    bool outer = t_self.depth++ == 0;
    int index = outer && recorder_active() ? comm_index(comm) : -1;
    int slot = outer ? api_enter(end_of_life_api(state)) : -1;
    if (index >= 0) pthread_mutex_lock(&rec_comms_at(index)->busy);
    ncclResult_t r = real(comm);
    if (index >= 0 && (launched(r) || state == REC_COMM_ABORTED)) {
        rec_comms_retire(index, state);
        atomic_fetch_add(&g_comms_epoch, 1);
    }
    if (index >= 0) pthread_mutex_unlock(&rec_comms_at(index)->busy);
    api_leave(slot);
    t_self.depth--;
    return r;
}

EXPORT ncclResult_t ncclCommFinalize(ncclComm_t comm) {
    NEED_REAL(ncclCommFinalize);
    return end_of_life(real, comm, REC_COMM_FINALIZED);
}

EXPORT ncclResult_t ncclCommDestroy(ncclComm_t comm) {
    NEED_REAL(ncclCommDestroy);
    return end_of_life(real, comm, REC_COMM_DESTROYED);
}

EXPORT ncclResult_t ncclCommAbort(ncclComm_t comm) {
    NEED_REAL(ncclCommAbort);
    return end_of_life(real, comm, REC_COMM_ABORTED);
}

EXPORT ncclResult_t ncclCommRevoke(ncclComm_t comm, int revokeFlags) {
    NEED_REAL(ncclCommRevoke);
    bool outer = t_self.depth++ == 0;
    int index = outer && recorder_active() ? comm_index(comm) : -1;
    int slot = outer ? api_enter(REC_API_REVOKE) : -1;
    ncclResult_t r = real(comm, revokeFlags);
    api_leave(slot);
    t_self.depth--;
    if (index >= 0 && launched(r)) rec_comms_retire(index, REC_COMM_REVOKED);
    return r;
}

EXPORT ncclResult_t ncclCommGetAsyncError(ncclComm_t comm, ncclResult_t *asyncError) {
    NEED_REAL(ncclCommGetAsyncError);
    bool outer = t_self.depth++ == 0;
    ncclResult_t r = real(comm, asyncError);
    t_self.depth--;
    if (outer && r == ncclSuccess && asyncError != NULL && recorder_active()) {
        int index = comm_index(comm);
        if (index >= 0) rec_watchdog_note_async_error(index, (int)*asyncError);
    }
    return r;
}
