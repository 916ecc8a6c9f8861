/* probe_fake.c — the probe's device (probe_device.h) on the fake libcuda.so.1 of tests/fakes.
 *
 * A stream is the fake's host FIFO; a "kernel" is a host function queued on it with
 * fakecuStreamEnqueue, so the spin and sleep kernels hold the stream exactly as a GPU kernel
 * would. Waiting with a deadline records an event and polls it. Capture only flags the stream
 * (the fake drops work queued while it captures), so there is no graph to replay.
 */
#include <cuda.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "probe_device.h"

void fakecuStreamEnqueue(CUstream s, void (*fn)(void *), void *arg);
void fakecuStreamSleep(CUstream s, int ms);

struct probe_flag {
    _Atomic int released;
    int limit_ms;
};

static int64_t now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void nap_ms(int ms) {
    struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
    nanosleep(&ts, NULL);
}

int probe_dev_init(char *name, size_t name_cap, char *versions, size_t versions_cap) {
    CUcontext ctx;
    if (cuInit(0) != CUDA_SUCCESS || cuDevicePrimaryCtxRetain(&ctx, 0) != CUDA_SUCCESS ||
        cuCtxSetCurrent(ctx) != CUDA_SUCCESS) {
        snprintf(name, name_cap, "the fake CUDA driver did not start");
        return -1;
    }
    snprintf(name, name_cap, "fake device (tests/fakes/fake_cuda.c)");
    snprintf(versions, versions_cap, "driver fake runtime fake");
    return 0;
}

const char *probe_dev_kind(void) { return "fake"; }

/* The fake NCCL never reads or writes buffers: a token allocation stands for any size. */
void *probe_dev_alloc(size_t bytes) {
    (void)bytes;
    return calloc(1, 64);
}

probe_stream probe_dev_stream(void) {
    CUstream s = NULL;
    return cuStreamCreate(&s, 0) == CUDA_SUCCESS ? (probe_stream)s : NULL;
}

int probe_dev_sync(probe_stream s, int timeout_ms) {
    CUevent ev;
    if (cuEventCreate(&ev, CU_EVENT_DISABLE_TIMING) != CUDA_SUCCESS) return -1;
    int rc = cuEventRecord(ev, (CUstream)s) == CUDA_SUCCESS ? 1 : -1;
    for (int64_t end = now_ms() + timeout_ms; rc == 1;) {
        CUresult r = cuEventQuery(ev);
        if (r == CUDA_SUCCESS)
            rc = 0;
        else if (r != CUDA_ERROR_NOT_READY)
            rc = -1;
        else if (now_ms() >= end)
            break;
        else
            nap_ms(1);
    }
    cuEventDestroy(ev);
    return rc;
}

probe_flag *probe_dev_flag(void) { return calloc(1, sizeof(probe_flag)); }

static void spin_on_flag(void *arg) {
    probe_flag *f = arg;
    for (int64_t end = now_ms() + f->limit_ms; !atomic_load(&f->released) && now_ms() < end;)
        nap_ms(1);
}

int probe_dev_spin(probe_stream s, probe_flag *flag, int limit_ms) {
    flag->limit_ms = limit_ms;
    fakecuStreamEnqueue((CUstream)s, spin_on_flag, flag);
    return 0;
}

void probe_dev_release(probe_flag *flag) { atomic_store(&flag->released, 1); }

int probe_dev_sleep(probe_stream s, int ms) {
    fakecuStreamSleep((CUstream)s, ms);
    return 0;
}

int probe_dev_capture_begin(probe_stream s) {
    return cuStreamBeginCapture((CUstream)s, CU_STREAM_CAPTURE_MODE_GLOBAL) == CUDA_SUCCESS ? 0
                                                                                            : -1;
}

int probe_dev_capture_end(probe_stream s, int replays, char *why, size_t why_cap) {
    CUgraph graph = NULL;
    (void)replays;
    if (cuStreamEndCapture((CUstream)s, &graph) != CUDA_SUCCESS) {
        snprintf(why, why_cap, "cuStreamEndCapture failed");
        return -1;
    }
    return 0; /* the fake keeps no graph: nothing to replay */
}
