/* bench_recorder.c — the recorder's cost per NCCL call, in ns.
 *
 *   bench-recorder ITERATIONS THREADS
 *
 * Each thread creates a one-rank communicator on the fake NCCL and calls ncclAllReduce in a
 * tight loop; run with FAKE_NCCL_NOOP=1 the fake returns at once, so the loop measures the
 * wrapper (when the shim is preloaded) against a bare call (when it is not). Prints
 * "ns_per_call X" (wall time per call per thread).
 */
#include <cuda.h>
#include <nccl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static long g_iterations;
static ncclUniqueId g_ids[16];

static double now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static void *worker(void *arg) {
    long index = (long)arg;
    ncclComm_t comm;
    CUstream stream;
    CUcontext ctx;
    cuDevicePrimaryCtxRetain(&ctx, 0);
    cuCtxSetCurrent(ctx);
    cuStreamCreate(&stream, 0);
    if (ncclCommInitRank(&comm, 1, g_ids[index], 0) != ncclSuccess) {
        fprintf(stderr, "init failed\n");
        exit(1);
    }
    for (long i = 0; i < g_iterations; i++)
        ncclAllReduce(NULL, NULL, 1024, ncclFloat, ncclSum, comm, (cudaStream_t)stream);
    cuStreamSynchronize(stream);
    return NULL;
}

int main(int argc, char **argv) {
    long threads = argc > 2 ? atol(argv[2]) : 1;
    pthread_t th[16];
    char tag[32];
    g_iterations = argc > 1 ? atol(argv[1]) : 1000000;
    if (threads < 1 || threads > 16) threads = 1;
    snprintf(tag, sizeof tag, "bench%d", (int)getpid());
    setenv("FAKE_SHM_TAG", tag, 1);
    cuInit(0);
    for (long t = 0; t < threads; t++) ncclGetUniqueId(&g_ids[t]);
    double start = now_ns();
    for (long t = 0; t < threads; t++) pthread_create(&th[t], NULL, worker, (void *)t);
    for (long t = 0; t < threads; t++) pthread_join(th[t], NULL);
    double elapsed = now_ns() - start;
    printf("ns_per_call %.1f\n", elapsed / (double)g_iterations);
    return 0;
}
