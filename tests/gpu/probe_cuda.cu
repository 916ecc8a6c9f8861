/* probe_cuda.cu — the probe's device (probe_device.h) on a real GPU, with the CUDA runtime.
 *
 * The spin kernel polls a host-mapped word (cudaHostAllocMapped) that the host sets to release
 * it, and gives up by itself after a time limit read from %globaltimer, so that a probe that
 * dies before releasing it never leaves the GPU busy. The sleep kernel spins on the same clock.
 * Waiting with a deadline polls cudaStreamQuery. Capture is global-mode, the strictest: any
 * event query or record against it from another thread invalidates it, which is what the
 * recorder must never cause.
 */
#include <cuda_runtime.h>
#include <stdio.h>
#include <time.h>

#include "probe_device.h"

struct probe_flag {
    volatile int *host;
    int *device;
};

static __device__ unsigned long long global_ns() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

static __global__ void spin_kernel(volatile int *flag, unsigned long long limit_ns) {
    unsigned long long start = global_ns();
    while ((flag == NULL || *flag == 0) && global_ns() - start < limit_ns) __nanosleep(1000);
}

static long long now_ms() {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

extern "C" int probe_dev_init(char *name, size_t name_cap, char *versions, size_t versions_cap) {
    cudaDeviceProp prop;
    int driver = 0, runtime = 0;
    cudaError_t e = cudaSetDevice(0);
    if (e == cudaSuccess) e = cudaFree(0); /* creates the primary context and makes it current */
    if (e == cudaSuccess) e = cudaGetDeviceProperties(&prop, 0);
    if (e != cudaSuccess) {
        snprintf(name, name_cap, "no usable GPU: %s", cudaGetErrorString(e));
        return -1;
    }
    cudaDriverGetVersion(&driver);
    cudaRuntimeGetVersion(&runtime);
    snprintf(name, name_cap, "%s (sm_%d%d)", prop.name, prop.major, prop.minor);
    snprintf(versions, versions_cap, "driver %d runtime %d", driver, runtime);
    return 0;
}

extern "C" const char *probe_dev_kind(void) { return "cuda"; }

extern "C" void *probe_dev_alloc(size_t bytes) {
    void *p = NULL;
    if (cudaMalloc(&p, bytes) != cudaSuccess) return NULL;
    cudaMemset(p, 0, bytes);
    return p;
}

extern "C" probe_stream probe_dev_stream(void) {
    cudaStream_t s = NULL;
    return cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) == cudaSuccess ? (probe_stream)s
                                                                               : NULL;
}

extern "C" int probe_dev_sync(probe_stream s, int timeout_ms) {
    for (long long end = now_ms() + timeout_ms;;) {
        cudaError_t e = cudaStreamQuery((cudaStream_t)s);
        if (e == cudaSuccess) return 0;
        if (e != cudaErrorNotReady) {
            fprintf(stderr, "cudaStreamQuery: %s\n", cudaGetErrorString(e));
            return -1;
        }
        if (now_ms() >= end) return 1;
        struct timespec ts = { 0, 1000000 };
        nanosleep(&ts, NULL);
    }
}

extern "C" probe_flag *probe_dev_flag(void) {
    static probe_flag flag;
    void *host = NULL, *device = NULL;
    if (cudaHostAlloc(&host, sizeof(int), cudaHostAllocMapped) != cudaSuccess) return NULL;
    if (cudaHostGetDevicePointer(&device, host, 0) != cudaSuccess) return NULL;
    flag.host = (volatile int *)host;
    *flag.host = 0;
    flag.device = (int *)device;
    return &flag;
}

extern "C" int probe_dev_spin(probe_stream s, probe_flag *flag, int limit_ms) {
    spin_kernel<<<1, 1, 0, (cudaStream_t)s>>>(flag->device,
                                              (unsigned long long)limit_ms * 1000000ull);
    return cudaGetLastError() == cudaSuccess ? 0 : -1;
}

extern "C" void probe_dev_release(probe_flag *flag) {
    __atomic_store_n(flag->host, 1, __ATOMIC_SEQ_CST);
}

extern "C" int probe_dev_sleep(probe_stream s, int ms) {
    spin_kernel<<<1, 1, 0, (cudaStream_t)s>>>(NULL, (unsigned long long)ms * 1000000ull);
    return cudaGetLastError() == cudaSuccess ? 0 : -1;
}

extern "C" int probe_dev_capture_begin(probe_stream s) {
    return cudaStreamBeginCapture((cudaStream_t)s, cudaStreamCaptureModeGlobal) == cudaSuccess ? 0
                                                                                               : -1;
}

extern "C" int probe_dev_capture_end(probe_stream s, int replays, char *why, size_t why_cap) {
    cudaGraph_t graph = NULL;
    cudaGraphExec_t exec = NULL;
    cudaError_t e = cudaStreamEndCapture((cudaStream_t)s, &graph);
    if (e == cudaSuccess) e = cudaGraphInstantiate(&exec, graph, 0);
    int done = 0;
    for (; e == cudaSuccess && done < replays; done++) e = cudaGraphLaunch(exec, (cudaStream_t)s);
    if (e == cudaSuccess) e = cudaStreamSynchronize((cudaStream_t)s);
    if (exec != NULL) cudaGraphExecDestroy(exec);
    if (graph != NULL) cudaGraphDestroy(graph);
    if (e != cudaSuccess) {
        snprintf(why, why_cap, "%s after %d replays", cudaGetErrorString(e), done);
        return -1;
    }
    return done;
}
