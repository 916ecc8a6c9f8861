/* fake_nccl.c — an NCCL without a GPU, for the recorder's tests (libnccl.so.2).
 *
 * Shaped like the real library: every entry point is a strong pnccl* function with a weak
 * ncclX alias, and ncclCommInitAll calls ncclGetUniqueId through the PLT as NCCL does. The
 * operations really synchronize processes: a communicator maps a /dev/shm segment named after
 * the hash of its unique id (prefix FAKE_SHM_TAG, so a test can clean up), and an operation is
 * queued on the caller's fake CUDA stream (fake_cuda.c); when the stream's worker reaches it, a
 * collective publishes (sequence, count) for its rank and waits until every member arrived with
 * the same sequence; members that disagree on the count wait forever, as NCCL would hang. A
 * send bumps a per-(src,dst) counter and never blocks; a receive waits for its counter. Waits
 * spin briefly, then sleep 200 µs between looks. Without the fake libcuda, operations run
 * synchronously on the calling thread. FAKE_NCCL_NOOP=1 (read at communicator creation) makes
 * every operation return at once, doing nothing: the benchmark's bare baseline.
 *
 * Faults of the library itself, for communicators made by an init call (not splits/shrinks),
 * keyed by the rank in that communicator (the driver's global rank):
 *   ASYNC_ERR=r@s   once rank r has issued more than s collectives on it, its collectives no
 *                   longer complete and ncclCommGetAsyncError reports ncclRemoteError
 *   HANG_IN=r@init|destroy   rank r blocks forever inside ncclCommInitRank* / ncclCommDestroy
 */
#include <cuda.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <nccl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define MAXR 64

typedef struct shm_seg {
    _Atomic uint64_t arrive[MAXR];
    _Atomic uint64_t count[MAXR];
    _Atomic uint64_t sent[MAXR][MAXR];
    _Atomic uint64_t split_gen[MAXR], split_read[MAXR];
    _Atomic int64_t split_color[MAXR], split_key[MAXR];
    _Atomic int refs;
} shm_seg;

struct ncclComm {
    int rank, nranks;
    uint64_t hash;
    char shm_name[96];
    shm_seg *seg;
    uint64_t coll_seq;
    uint64_t to_send[MAXR], to_recv[MAXR]; /* per peer, p2p issued so far */
    bool noop;
    int split_count;
    _Atomic int aborted;
    int async_err_after; /* ASYNC_ERR: collectives after this many fail remotely; -1 = never */
    bool hang_destroy;   /* HANG_IN=rank@destroy */
};

typedef struct fake_op {
    struct ncclComm *comm;
    bool p2p, send;
    int peer;
    uint64_t seq, count;
} fake_op;

#define API(ret, name, params)                                                                     \
    extern __typeof__(p##name) name __attribute__((weak, alias("p" #name)));                       \
    ret p##name params

/* --- helpers ------------------------------------------------------------------------------- */

static uint64_t mix_hash(const void *bytes, size_t len, uint64_t seed) {
    const unsigned char *p = bytes;
    uint64_t h = 1469598103934665603ull ^ seed;
    for (size_t i = 0; i < len; i++) h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

static void nap(unsigned *spins) {
    if (++*spins < 100) return;
    struct timespec ts = { 0, 200000 };
    nanosleep(&ts, NULL);
}

static void (*enqueue_fn(void))(CUstream, void (*)(void *), void *) {
    static void (*fn)(CUstream, void (*)(void *), void *);
    static _Atomic int looked;
    if (!atomic_exchange(&looked, 1))
        fn = (void (*)(CUstream, void (*)(void *), void *))dlsym(RTLD_DEFAULT,
                                                                 "fakecuStreamEnqueue");
    return fn;
}

static shm_seg *attach(struct ncclComm *c) {
    const char *tag = getenv("FAKE_SHM_TAG");
    snprintf(c->shm_name, sizeof c->shm_name, "/frtrace-fake-%s-%016llx", tag ? tag : "x",
             (unsigned long long)c->hash);
    int fd = shm_open(c->shm_name, O_CREAT | O_RDWR, 0600);
    if (fd < 0) return NULL;
    if (ftruncate(fd, sizeof(shm_seg)) != 0) {
        close(fd);
        return NULL;
    }
    void *p = mmap(NULL, sizeof(shm_seg), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (p == MAP_FAILED) return NULL;
    atomic_fetch_add(&((shm_seg *)p)->refs, 1);
    return p;
}

/* HANG_IN / ASYNC_ERR: whether `rank` is the faulty one for `what`; *step gets the number. */
static bool fault_for(const char *name, int rank, const char *what, int *step) {
    const char *v = getenv(name);
    int r = -1, n = -1;
    char word[16] = "";
    if (v == NULL) return false;
    if (what != NULL)
        return sscanf(v, "%d@%15s", &r, word) == 2 && r == rank && strcmp(word, what) == 0;
    if (sscanf(v, "%d@%d", &r, &n) != 2 || r != rank) return false;
    *step = n;
    return true;
}

static void hang_forever(void) {
    for (;;) pause();
}

static ncclResult_t make_comm(ncclComm_t *out, int nranks, int rank, uint64_t hash) {
    if (nranks < 1 || nranks > MAXR || rank < 0 || rank >= nranks) return ncclInvalidArgument;
    struct ncclComm *c = calloc(1, sizeof *c);
    c->rank = rank;
    c->nranks = nranks;
    c->hash = hash;
    c->noop = getenv("FAKE_NCCL_NOOP") != NULL;
    c->async_err_after = -1;
    c->seg = attach(c);
    if (c->seg == NULL) {
        free(c);
        return ncclSystemError;
    }
    *out = c;
    return ncclSuccess;
}

/* --- execution on the stream --------------------------------------------------------------- */

static void run_collective(struct ncclComm *c, uint64_t seq, uint64_t count) {
    unsigned spins = 0;
    if (c->async_err_after >= 0 && seq > (uint64_t)c->async_err_after) {
        while (!atomic_load(&c->aborted)) /* the "network" failed: never completes */
            nap(&spins);
        return;
    }
    atomic_store(&c->seg->count[c->rank], count);
    atomic_store(&c->seg->arrive[c->rank], seq);
    for (;;) {
        bool all = true;
        for (int r = 0; r < c->nranks && all; r++)
            all =
                atomic_load(&c->seg->arrive[r]) >= seq &&
                (atomic_load(&c->seg->arrive[r]) > seq || atomic_load(&c->seg->count[r]) == count);
        if (all || atomic_load(&c->aborted)) return;
        nap(&spins);
    }
}

static void run_recv(struct ncclComm *c, int peer, uint64_t nth) {
    unsigned spins = 0;
    while (atomic_load(&c->seg->sent[peer][c->rank]) < nth && !atomic_load(&c->aborted))
        nap(&spins);
}

static void run_op(void *arg) {
    fake_op *op = arg;
    if (!op->p2p)
        run_collective(op->comm, op->seq, op->count);
    else if (op->send)
        atomic_fetch_add(&op->comm->seg->sent[op->comm->rank][op->peer], 1);
    else
        run_recv(op->comm, op->peer, op->seq);
    free(op);
}

static ncclResult_t submit(fake_op *op, cudaStream_t stream) {
    void (*enqueue)(CUstream, void (*)(void *), void *) = enqueue_fn();
    if (enqueue)
        enqueue((CUstream)stream, run_op, op);
    else
        run_op(op);
    return ncclSuccess;
}

static ncclResult_t collective(ncclComm_t comm, size_t count, cudaStream_t stream) {
    if (comm == NULL) return ncclInvalidArgument;
    if (comm->noop) return ncclSuccess;
    fake_op *op = calloc(1, sizeof *op);
    op->comm = comm;
    op->seq = __atomic_add_fetch(&comm->coll_seq, 1, __ATOMIC_RELAXED);
    op->count = count;
    return submit(op, stream);
}

static ncclResult_t p2p(ncclComm_t comm, bool send, int peer, size_t count, cudaStream_t stream) {
    if (comm == NULL || peer < 0 || peer >= comm->nranks) return ncclInvalidArgument;
    fake_op *op = calloc(1, sizeof *op);
    op->comm = comm;
    op->p2p = true;
    op->send = send;
    op->peer = peer;
    op->count = count;
    op->seq = send ? ++comm->to_send[peer] : ++comm->to_recv[peer];
    return submit(op, stream);
}

/* --- the API ------------------------------------------------------------------------------- */

API(ncclResult_t, ncclGetVersion, (int *version)) {
    *version = 22809;
    return ncclSuccess;
}

API(ncclResult_t, ncclGetUniqueId, (ncclUniqueId * id)) {
    int fd = open("/dev/urandom", O_RDONLY);
    if (fd < 0 || read(fd, id->internal, sizeof id->internal) != (ssize_t)sizeof id->internal) {
        if (fd >= 0) close(fd);
        return ncclSystemError;
    }
    close(fd);
    return ncclSuccess;
}

/* A communicator from an init call: where the HANG_IN and ASYNC_ERR faults apply. */
static ncclResult_t make_root_comm(ncclComm_t *comm, int nranks, int rank, uint64_t hash) {
    int step = -1;
    if (fault_for("HANG_IN", rank, "init", NULL)) hang_forever();
    ncclResult_t r = make_comm(comm, nranks, rank, hash);
    if (r != ncclSuccess) return r;
    if (fault_for("ASYNC_ERR", rank, NULL, &step)) (*comm)->async_err_after = step;
    (*comm)->hang_destroy = fault_for("HANG_IN", rank, "destroy", NULL);
    return ncclSuccess;
}

API(ncclResult_t, ncclCommInitRank, (ncclComm_t * comm, int nranks, ncclUniqueId id, int rank)) {
    return make_root_comm(comm, nranks, rank, mix_hash(id.internal, sizeof id.internal, 0));
}

API(ncclResult_t, ncclCommInitRankConfig,
    (ncclComm_t * comm, int nranks, ncclUniqueId id, int rank, ncclConfig_t *config)) {
    (void)config;
    return make_root_comm(comm, nranks, rank, mix_hash(id.internal, sizeof id.internal, 0));
}

API(ncclResult_t, ncclCommInitRankScalable,
    (ncclComm_t * comm, int nranks, int rank, int nId, ncclUniqueId *ids, ncclConfig_t *config)) {
    (void)config;
    if (nId < 1) return ncclInvalidArgument;
    return make_root_comm(comm, nranks, rank, mix_hash(ids[0].internal, sizeof ids[0].internal, 0));
}

API(ncclResult_t, ncclCommInitAll, (ncclComm_t * comms, int ndev, const int *devlist)) {
    ncclUniqueId id;
    (void)devlist;
    ncclResult_t r = ncclGetUniqueId(&id); /* through the PLT, as NCCL does */
    for (int i = 0; r == ncclSuccess && i < ndev; i++)
        r = make_comm(&comms[i], ndev, i, mix_hash(id.internal, sizeof id.internal, 0));
    return r;
}

/* Every member posts (color, key) for this split generation, then reads everybody's. */
API(ncclResult_t, ncclCommSplit,
    (ncclComm_t comm, int color, int key, ncclComm_t *newcomm, ncclConfig_t *config)) {
    (void)config;
    shm_seg *s = comm->seg;
    uint64_t gen = (uint64_t)++comm->split_count;
    unsigned spins = 0;
    /* The slots of the previous split may be reused once every member has read them. */
    for (int r = 0; r < comm->nranks; r++)
        while (atomic_load(&s->split_read[r]) < gen - 1) nap(&spins);
    atomic_store(&s->split_color[comm->rank], color);
    atomic_store(&s->split_key[comm->rank], key);
    atomic_store(&s->split_gen[comm->rank], gen);
    for (int r = 0; r < comm->nranks; r++)
        while (atomic_load(&s->split_gen[r]) < gen) nap(&spins);
    int64_t colors[MAXR], keys[MAXR];
    for (int r = 0; r < comm->nranks; r++) {
        colors[r] = atomic_load(&s->split_color[r]);
        keys[r] = atomic_load(&s->split_key[r]);
    }
    atomic_store(&s->split_read[comm->rank], gen);
    if (color == NCCL_SPLIT_NOCOLOR) {
        *newcomm = NULL;
        return ncclSuccess;
    }
    int n = 0, me = 0;
    for (int r = 0; r < comm->nranks; r++) {
        if (colors[r] != color) continue;
        if (keys[r] < key || (keys[r] == key && r < comm->rank)) me++;
        n++;
    }
    uint64_t seed[3] = { comm->hash, gen, (uint64_t)(int64_t)color };
    return make_comm(newcomm, n, me, mix_hash(seed, sizeof seed, 1));
}

API(ncclResult_t, ncclCommShrink,
    (ncclComm_t comm, int *exclude, int nexclude, ncclComm_t *newcomm, ncclConfig_t *config,
     int flags)) {
    (void)config;
    (void)flags;
    int me = comm->rank, n = comm->nranks;
    for (int i = 0; i < nexclude; i++) {
        if (exclude[i] == comm->rank) {
            *newcomm = NULL;
            return ncclSuccess;
        }
        if (exclude[i] < comm->rank) me--;
        n--;
    }
    uint64_t seed[2] = { comm->hash, (uint64_t)++comm->split_count };
    return make_comm(newcomm, n, me, mix_hash(seed, sizeof seed, 2));
}

API(ncclResult_t, ncclCommFinalize, (ncclComm_t comm)) {
    (void)comm;
    return ncclSuccess;
}

static ncclResult_t release(ncclComm_t comm) {
    if (comm == NULL) return ncclInvalidArgument;
    if (atomic_fetch_sub(&comm->seg->refs, 1) == 1) shm_unlink(comm->shm_name);
    /* The mapping and the struct stay: a stream worker may still be looking at them. */
    atomic_store(&comm->aborted, 1);
    return ncclSuccess;
}

API(ncclResult_t, ncclCommDestroy, (ncclComm_t comm)) {
    if (comm != NULL && comm->hang_destroy) hang_forever();
    return release(comm);
}

API(ncclResult_t, ncclCommAbort, (ncclComm_t comm)) { return release(comm); }

API(ncclResult_t, ncclCommRevoke, (ncclComm_t comm, int flags)) {
    (void)flags;
    atomic_store(&comm->aborted, 1);
    return ncclSuccess;
}

API(ncclResult_t, ncclCommGetAsyncError, (ncclComm_t comm, ncclResult_t *err)) {
    /* coll_seq is the caller thread's counter; the watchdog reads it racily, as NCCL's own
     * error flag would be set by its proxy thread: an atomic load keeps it well-defined. */
    uint64_t issued = __atomic_load_n(&comm->coll_seq, __ATOMIC_RELAXED);
    bool failed = comm->async_err_after >= 0 && issued > (uint64_t)comm->async_err_after;
    *err = failed ? ncclRemoteError : ncclSuccess;
    return ncclSuccess;
}

API(ncclResult_t, ncclCommCount, (const ncclComm_t comm, int *count)) {
    *count = comm->nranks;
    return ncclSuccess;
}

API(ncclResult_t, ncclCommUserRank, (const ncclComm_t comm, int *rank)) {
    *rank = comm->rank;
    return ncclSuccess;
}

/* The device a rank drives: its LOCAL_RANK, as launchers set it (0 without one). */
API(ncclResult_t, ncclCommCuDevice, (const ncclComm_t comm, int *device)) {
    (void)comm;
    const char *local = getenv("LOCAL_RANK");
    *device = local ? atoi(local) : 0;
    return ncclSuccess;
}

API(const char *, ncclGetErrorString, (ncclResult_t result)) {
    static const char *const names[] = { "success",        "unhandled cuda error", "system error",
                                         "internal error", "invalid argument",     "invalid usage",
                                         "remote error",   "in progress" };
    return (unsigned)result < 8 ? names[result] : "unknown";
}

API(const char *, ncclGetLastError, (ncclComm_t comm)) {
    (void)comm;
    return "";
}

API(ncclResult_t, ncclAllReduce,
    (const void *s, void *r, size_t count, ncclDataType_t t, ncclRedOp_t op, ncclComm_t comm,
     cudaStream_t stream)) {
    (void)s, (void)r, (void)t, (void)op;
    return collective(comm, count, stream);
}

API(ncclResult_t, ncclBroadcast,
    (const void *s, void *r, size_t count, ncclDataType_t t, int root, ncclComm_t comm,
     cudaStream_t stream)) {
    (void)s, (void)r, (void)t, (void)root;
    return collective(comm, count, stream);
}

API(ncclResult_t, ncclBcast,
    (void *b, size_t count, ncclDataType_t t, int root, ncclComm_t comm, cudaStream_t stream)) {
    (void)b, (void)t, (void)root;
    return collective(comm, count, stream);
}

API(ncclResult_t, ncclReduce,
    (const void *s, void *r, size_t count, ncclDataType_t t, ncclRedOp_t op, int root,
     ncclComm_t comm, cudaStream_t stream)) {
    (void)s, (void)r, (void)t, (void)op, (void)root;
    return collective(comm, count, stream);
}

API(ncclResult_t, ncclAllGather,
    (const void *s, void *r, size_t count, ncclDataType_t t, ncclComm_t comm,
     cudaStream_t stream)) {
    (void)s, (void)r, (void)t;
    return collective(comm, count, stream);
}

API(ncclResult_t, ncclReduceScatter,
    (const void *s, void *r, size_t count, ncclDataType_t t, ncclRedOp_t op, ncclComm_t comm,
     cudaStream_t stream)) {
    (void)s, (void)r, (void)t, (void)op;
    return collective(comm, count, stream);
}

API(ncclResult_t, ncclAlltoAll,
    (const void *s, void *r, size_t count, ncclDataType_t t, ncclComm_t comm,
     cudaStream_t stream)) {
    (void)s, (void)r, (void)t;
    return collective(comm, count, stream);
}

API(ncclResult_t, ncclGather,
    (const void *s, void *r, size_t count, ncclDataType_t t, int root, ncclComm_t comm,
     cudaStream_t stream)) {
    (void)s, (void)r, (void)t, (void)root;
    return collective(comm, count, stream);
}

API(ncclResult_t, ncclScatter,
    (const void *s, void *r, size_t count, ncclDataType_t t, int root, ncclComm_t comm,
     cudaStream_t stream)) {
    (void)s, (void)r, (void)t, (void)root;
    return collective(comm, count, stream);
}

API(ncclResult_t, ncclSend,
    (const void *b, size_t count, ncclDataType_t t, int peer, ncclComm_t comm,
     cudaStream_t stream)) {
    (void)b, (void)t;
    return p2p(comm, true, peer, count, stream);
}

API(ncclResult_t, ncclRecv,
    (void *b, size_t count, ncclDataType_t t, int peer, ncclComm_t comm, cudaStream_t stream)) {
    (void)b, (void)t;
    return p2p(comm, false, peer, count, stream);
}

/* nccl.h declares these without a prototype. */
ncclResult_t pncclGroupStart(void);
ncclResult_t pncclGroupEnd(void);

API(ncclResult_t, ncclGroupStart, (void)) { return ncclSuccess; }

API(ncclResult_t, ncclGroupEnd, (void)) { return ncclSuccess; }

API(ncclResult_t, ncclGroupSimulateEnd, (ncclSimInfo_t * info)) {
    (void)info;
    return ncclSuccess;
}
