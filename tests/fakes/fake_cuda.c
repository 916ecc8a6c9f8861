/* fake_cuda.c — a CUDA driver without a GPU, for the recorder's tests (libcuda.so.1).
 *
 * A stream is a host FIFO drained by a worker thread of its own: work queued on it (NCCL
 * operations of the fake libnccl, event markers, injected stalls) runs in order, asynchronously
 * to the caller, as on a GPU. An event is "done" when the worker has passed its latest marker.
 * Graph capture only sets a flag: work queued on a capturing stream is dropped (it would go
 * into the graph), and the library counts the recorder's sins against capture:
 *   - cuEventRecord on a capturing stream;
 *   - cuEventQuery from a thread in global capture mode while some stream captures globally.
 * fakecuViolations() returns that count; FAKE_CUDA_REPORT=path writes it at exit.
 * Contexts are tokens; every call succeeds unless stated.
 */
#include <cuda.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))

typedef struct work {
    struct work *next;
    void (*fn)(void *);
    void *arg;
} work;

struct CUstream_st {
    pthread_mutex_t lock;
    pthread_cond_t wake, idle;
    work *head, *tail;
    bool busy;
    _Atomic int capturing; /* 0 none, else CUstreamCaptureMode + 1 */
    pthread_t worker;
};

struct CUevent_st {
    _Atomic uint64_t recorded, reached;
    _Atomic int64_t reached_ns; /* CLOCK_MONOTONIC when the latest marker was passed */
};

static _Atomic int g_violations;
static _Atomic int g_global_captures;
static __thread CUstreamCaptureMode t_capture_mode = CU_STREAM_CAPTURE_MODE_GLOBAL;
static __thread CUcontext t_ctx;
static int g_primary_token;
static struct CUstream_st *g_default_stream;
static pthread_once_t g_default_once = PTHREAD_ONCE_INIT;

EXPORT int fakecuViolations(void);
EXPORT void fakecuStreamEnqueue(CUstream s, void (*fn)(void *), void *arg);
EXPORT void fakecuStreamStall(CUstream s);
EXPORT void fakecuStreamSleep(CUstream s, int ms);

int fakecuViolations(void) { return atomic_load(&g_violations); }

static void *stream_worker(void *arg) {
    struct CUstream_st *s = arg;
    pthread_mutex_lock(&s->lock);
    for (;;) {
        while (s->head == NULL) {
            s->busy = false;
            pthread_cond_broadcast(&s->idle);
            pthread_cond_wait(&s->wake, &s->lock);
        }
        work *w = s->head;
        s->head = w->next;
        if (s->head == NULL) s->tail = NULL;
        s->busy = true;
        pthread_mutex_unlock(&s->lock);
        w->fn(w->arg);
        free(w);
        pthread_mutex_lock(&s->lock);
    }
    return NULL;
}

static struct CUstream_st *stream_new(void) {
    struct CUstream_st *s = calloc(1, sizeof *s);
    pthread_mutex_init(&s->lock, NULL);
    pthread_cond_init(&s->wake, NULL);
    pthread_cond_init(&s->idle, NULL);
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pthread_create(&s->worker, NULL, stream_worker, s);
    pthread_detach(s->worker);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return s;
}

static void make_default_stream(void) { g_default_stream = stream_new(); }

/* NULL, CU_STREAM_LEGACY and CU_STREAM_PER_THREAD all mean the default stream here. */
static struct CUstream_st *resolve(CUstream s) {
    if ((uintptr_t)s <= 2) {
        pthread_once(&g_default_once, make_default_stream);
        return g_default_stream;
    }
    return s;
}

void fakecuStreamEnqueue(CUstream stream, void (*fn)(void *), void *arg) {
    struct CUstream_st *s = resolve(stream);
    if (atomic_load(&s->capturing)) return; /* captured into a graph: not executed now */
    work *w = calloc(1, sizeof *w);
    w->fn = fn;
    w->arg = arg;
    pthread_mutex_lock(&s->lock);
    if (s->tail)
        s->tail->next = w;
    else
        s->head = w;
    s->tail = w;
    s->busy = true;
    pthread_cond_signal(&s->wake);
    pthread_mutex_unlock(&s->lock);
}

static void stall_forever(void *arg) {
    (void)arg;
    for (;;) pause();
}

void fakecuStreamStall(CUstream s) { fakecuStreamEnqueue(s, stall_forever, NULL); }

static void sleep_a_while(void *arg) {
    int ms = (int)(intptr_t)arg;
    struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
    nanosleep(&ts, NULL);
}

void fakecuStreamSleep(CUstream s, int ms) {
    fakecuStreamEnqueue(s, sleep_a_while, (void *)(intptr_t)ms);
}

static void report_at_exit(void) {
    const char *path = getenv("FAKE_CUDA_REPORT");
    FILE *f = path ? fopen(path, "w") : NULL;
    if (f) {
        fprintf(f, "violations %d\n", fakecuViolations());
        fclose(f);
    }
}

EXPORT CUresult cuInit(unsigned int flags) {
    static _Atomic int registered;
    (void)flags;
    if (atomic_exchange(&registered, 1) == 0) atexit(report_at_exit);
    return CUDA_SUCCESS;
}

EXPORT CUresult cuDeviceGet(CUdevice *dev, int ordinal) {
    *dev = ordinal;
    return CUDA_SUCCESS;
}

/* A host thread stuck in C code (the stacks tests call it through ctypes.PyDLL, which keeps the
 * GIL held for the call): it spins until the process ends. */
EXPORT void fakeHostSpin(void);
void fakeHostSpin(void) {
    for (;;) __asm__ volatile("" ::: "memory");
}

/* A made-up PCI address and UUID per device ordinal, for the recorder's identity. */
EXPORT CUresult cuDeviceGetPCIBusId(char *bus, int len, CUdevice dev) {
    if (len <= 0) return CUDA_ERROR_INVALID_VALUE;
    snprintf(bus, (size_t)len, "0000:%02X:00.0", 0x1a + 0x10 * (unsigned)dev);
    return CUDA_SUCCESS;
}

EXPORT CUresult cuDeviceGetUuid_v2(CUuuid *uuid, CUdevice dev) {
    for (int i = 0; i < 16; i++) uuid->bytes[i] = (char)(0xf0 ^ (i * 17) ^ dev);
    return CUDA_SUCCESS;
}

EXPORT CUresult cuDevicePrimaryCtxRetain(CUcontext *ctx, CUdevice dev) {
    (void)dev;
    *ctx = (CUcontext)&g_primary_token;
    return CUDA_SUCCESS;
}

EXPORT CUresult cuCtxGetCurrent(CUcontext *ctx) {
    *ctx = t_ctx;
    return CUDA_SUCCESS;
}

EXPORT CUresult cuCtxSetCurrent(CUcontext ctx) {
    t_ctx = ctx;
    return CUDA_SUCCESS;
}

EXPORT CUresult cuStreamCreate(CUstream *s, unsigned int flags) {
    (void)flags;
    *s = stream_new();
    return CUDA_SUCCESS;
}

EXPORT CUresult cuStreamSynchronize(CUstream stream) {
    struct CUstream_st *s = resolve(stream);
    pthread_mutex_lock(&s->lock);
    while (s->busy || s->head != NULL) pthread_cond_wait(&s->idle, &s->lock);
    pthread_mutex_unlock(&s->lock);
    return CUDA_SUCCESS;
}

EXPORT CUresult cuEventCreate(CUevent *ev, unsigned int flags) {
    (void)flags;
    *ev = calloc(1, sizeof **ev);
    return *ev ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}

EXPORT CUresult cuEventDestroy(CUevent ev) {
    free(ev);
    return CUDA_SUCCESS;
}

typedef struct marker {
    CUevent ev;
    uint64_t gen;
} marker;

static void reach_marker(void *arg) {
    marker *m = arg;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    atomic_store(&m->ev->reached_ns, (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec);
    atomic_store(&m->ev->reached, m->gen);
    free(m);
}

EXPORT CUresult cuEventRecord(CUevent ev, CUstream stream) {
    struct CUstream_st *s = resolve(stream);
    if (atomic_load(&s->capturing)) {
        atomic_fetch_add(&g_violations, 1);
        return CUDA_SUCCESS;
    }
    marker *m = malloc(sizeof *m);
    m->ev = ev;
    m->gen = atomic_fetch_add(&ev->recorded, 1) + 1;
    fakecuStreamEnqueue(s, reach_marker, m);
    return CUDA_SUCCESS;
}

EXPORT CUresult cuEventQuery(CUevent ev) {
    if (atomic_load(&g_global_captures) > 0 && t_capture_mode == CU_STREAM_CAPTURE_MODE_GLOBAL) {
        atomic_fetch_add(&g_violations, 1);
        return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
    }
    return atomic_load(&ev->reached) >= atomic_load(&ev->recorded) ? CUDA_SUCCESS
                                                                   : CUDA_ERROR_NOT_READY;
}

/* cuda.h of CUDA 12.8+ names it cuEventElapsedTime_v2; the recorder looks up both names. */
EXPORT CUresult cuEventElapsedTime(float *ms, CUevent start, CUevent end) {
    if (atomic_load(&start->reached) < atomic_load(&start->recorded) ||
        atomic_load(&end->reached) < atomic_load(&end->recorded))
        return CUDA_ERROR_NOT_READY;
    *ms = (float)(atomic_load(&end->reached_ns) - atomic_load(&start->reached_ns)) / 1e6f;
    return CUDA_SUCCESS;
}

EXPORT CUresult cuEventSynchronize(CUevent ev) {
    while (atomic_load(&ev->reached) < atomic_load(&ev->recorded)) usleep(100);
    return CUDA_SUCCESS;
}

EXPORT CUresult cuStreamIsCapturing(CUstream stream, CUstreamCaptureStatus *status) {
    struct CUstream_st *s = resolve(stream);
    *status = atomic_load(&s->capturing) ? CU_STREAM_CAPTURE_STATUS_ACTIVE
                                         : CU_STREAM_CAPTURE_STATUS_NONE;
    return CUDA_SUCCESS;
}

EXPORT CUresult cuStreamBeginCapture(CUstream stream, CUstreamCaptureMode mode) {
    struct CUstream_st *s = resolve(stream);
    atomic_store(&s->capturing, (int)mode + 1);
    if (mode == CU_STREAM_CAPTURE_MODE_GLOBAL) atomic_fetch_add(&g_global_captures, 1);
    return CUDA_SUCCESS;
}

EXPORT CUresult cuStreamEndCapture(CUstream stream, CUgraph *graph) {
    struct CUstream_st *s = resolve(stream);
    int was = atomic_exchange(&s->capturing, 0);
    if (was == (int)CU_STREAM_CAPTURE_MODE_GLOBAL + 1) atomic_fetch_sub(&g_global_captures, 1);
    if (graph) *graph = NULL;
    return CUDA_SUCCESS;
}

EXPORT CUresult cuThreadExchangeStreamCaptureMode(CUstreamCaptureMode *mode) {
    CUstreamCaptureMode old = t_capture_mode;
    t_capture_mode = *mode;
    *mode = old;
    return CUDA_SUCCESS;
}
