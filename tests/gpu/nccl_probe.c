/* nccl_probe.c — real NCCL calls on one-rank communicators, to run under the recorder on a GPU.
 *
 *   nccl-probe ops DUMP_DIR    every kind of call the recorder wraps, then a dump on SIGUSR2
 *   nccl-probe hang DUMP_DIR   a kernel spins before an all_reduce until the watchdog dumps
 *   nccl-probe bench N         host ns per ncclAllReduce call, the best of 3 batches of N back
 *                              to back, and of N/5 with the stream drained every 64 (paced)
 *
 * One GPU means one rank per communicator (NCCL refuses two ranks on one device), so this
 * checks what only real NCCL and CUDA show: communicator config and split, nested groups,
 * send/recv to self, coalesced collectives, graph capture and replay, real event timing, the
 * watchdog's own dump. The device side (memory, streams, kernels, graphs) is probe_device.h:
 * probe_cuda.cu on a GPU, probe_fake.c on the fakes of tests/fakes, where the same calls run.
 *
 * `ops` issues, on a stream of its own: ncclCommInitRank (world), ncclCommInitRankConfig
 * (commName "probe-config"), ncclCommSplit of the world, ncclCommInitAll over one device;
 * all_reduce, all_gather, reduce_scatter, broadcast and reduce on the world in three dtypes
 * (and all_to_all, gather, scatter where the library has them); a send and a recv to self in
 * one group; coalesced collectives (two all_reduces on the world and a broadcast on the split
 * in one group); a nested group; then, while a sleeping kernel keeps an all_reduce pending on
 * the first stream, a global-mode capture of an all_reduce and a grouped pair on a second
 * stream, replayed CAPTURE_REPLAYS (5) times. It waits for the GPU, then raises the dump
 * signal when the recorder is preloaded and waits for DUMP_DIR/rank_0.
 *
 * `hang` issues one all_reduce, then queues a kernel that spins on a host-mapped flag and an
 * all_reduce behind it: the all_reduce stays scheduled, the recorder's watchdog dumps after
 * FRTRACE_TIMEOUT_SEC, and the probe releases the flag once DUMP_DIR/rank_0 exists (a dump
 * written before the kernel is removed first) or after HANG_WAIT_SEC (30), then waits for the
 * stream to drain. The kernel also gives up by itself after 90 s.
 *
 * Output: one line per step, "step NAME ok DETAIL", "step NAME FAIL DETAIL" or "step NAME
 * skipped WHY", then "probe ok" or "probe FAIL N" (exit status 0 or 1); bench prints
 * "ns_per_call X" and "ns_per_call_paced X".
 */
#include <dlfcn.h>
#include <nccl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "probe_device.h"

#define ELEMS           (1u << 20) /* per buffer: 4 MiB of floats */
#define CAPTURE_REPLAYS 5
#define DRAIN_MS        20000
#define DUMP_WAIT_MS    10000
#define SPIN_LIMIT_MS   90000

static int g_failed;

static void step(const char *name, const char *verdict, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void step(const char *name, const char *verdict, const char *fmt, ...) {
    va_list ap;
    printf("step %s %s", name, verdict);
    if (fmt[0] != '\0') {
        putchar(' ');
        va_start(ap, fmt);
        vprintf(fmt, ap);
        va_end(ap);
    }
    putchar('\n');
    fflush(stdout);
    if (strcmp(verdict, "FAIL") == 0) g_failed++;
}

/* One NCCL call: a step of its own that fails on anything but ncclSuccess. */
static bool nccl_ok(const char *name, ncclResult_t r) {
    if (r == ncclSuccess) return true;
    step(name, "FAIL", "%s (%d): %s", ncclGetErrorString(r), (int)r, ncclGetLastError(NULL));
    return false;
}

#define NCCL(name, call) nccl_ok(name, (call))

static int64_t now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void nap_ms(int ms) {
    struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
    nanosleep(&ts, NULL);
}

static bool recorder_preloaded(void) {
    const char *p = getenv("LD_PRELOAD");
    return p != NULL && strstr(p, "libfrtrace-recorder") != NULL;
}

/* DIR/rank_0: where the recorder writes this process's dump (FRTRACE_RANK=0). */
static void dump_path(char *path, size_t cap, const char *dir) {
    const char *prefix = getenv("FRTRACE_DUMP_PREFIX");
    snprintf(path, cap, "%s/%s0", dir, prefix ? prefix : "rank_");
}

/* Waits until DIR/rank_0 exists (the recorder renames a finished dump into place). */
static bool wait_for_dump(const char *dir, int timeout_ms) {
    char path[4096];
    struct stat st;
    dump_path(path, sizeof path, dir);
    for (int64_t end = now_ms() + timeout_ms; now_ms() < end; nap_ms(20))
        if (stat(path, &st) == 0) return true;
    return false;
}

/* Functions of newer NCCL releases, looked up in the loaded library so that the probe builds
 * against any nccl.h and runs on any libnccl.so.2; called through the global scope, so that
 * the recorder's wrapper is what runs when it is preloaded. */
typedef ncclResult_t (*coll_root_fn)(const void *, void *, size_t, ncclDataType_t, int, ncclComm_t,
                                     cudaStream_t);
typedef ncclResult_t (*coll_fn)(const void *, void *, size_t, ncclDataType_t, ncclComm_t,
                                cudaStream_t);

static void *newer_function(const char *name) {
    char strong[64];
    void *lib = dlopen("libnccl.so.2", RTLD_NOW | RTLD_NOLOAD);
    void *found = NULL;
    snprintf(strong, sizeof strong, "p%s", name);
    if (lib != NULL) {
        found = dlsym(lib, strong);
        dlclose(lib);
    }
    return found != NULL ? dlsym(RTLD_DEFAULT, name) : NULL;
}

typedef struct probe {
    probe_stream s, side;
    ncclComm_t world, named, split, all;
    float *a, *b;
} probe;

static bool start(probe *p, bool quiet) {
    char name[256], versions[128];
    int version = 0;
    memset(p, 0, sizeof *p);
    if (probe_dev_init(name, sizeof name, versions, sizeof versions) != 0) {
        step("device", "FAIL", "%s", name);
        return false;
    }
    ncclGetVersion(&version);
    if (!quiet)
        step("device", "ok", "%s; %s; %s; nccl %d", probe_dev_kind(), name, versions, version);
    p->s = probe_dev_stream();
    p->side = probe_dev_stream();
    p->a = probe_dev_alloc(ELEMS * sizeof(float));
    p->b = probe_dev_alloc(ELEMS * sizeof(float));
    if (p->s == NULL || p->side == NULL || p->a == NULL || p->b == NULL) {
        step("device", "FAIL", "no streams or memory");
        return false;
    }
    ncclUniqueId id;
    return NCCL("init", ncclGetUniqueId(&id)) &&
           NCCL("init", ncclCommInitRank(&p->world, 1, id, 0));
}

static void comms(probe *p) {
    ncclUniqueId id;
    ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
    config.commName = "probe-config";
    if (NCCL("config_init", ncclGetUniqueId(&id)) &&
        NCCL("config_init", ncclCommInitRankConfig(&p->named, 1, id, 0, &config)))
        step("config_init", "ok", "commName probe-config");
    if (NCCL("split", ncclCommSplit(p->world, 0, 0, &p->split, NULL)))
        step("split", "ok", "color 0 of the world");
    int dev = 0;
    if (NCCL("init_all", ncclCommInitAll(&p->all, 1, &dev))) step("init_all", "ok", "1 device");
}

static void collectives(probe *p) {
    cudaStream_t s = (cudaStream_t)p->s;
    bool ok = true;
    for (int i = 0; i < 3 && ok; i++) {
        ncclDataType_t t = i == 0 ? ncclFloat : (i == 1 ? ncclBfloat16 : ncclInt64);
        size_t n = ELEMS >> (i + 1);
        ok = NCCL("collectives", ncclAllReduce(p->a, p->b, n, t, ncclSum, p->world, s)) &&
             NCCL("collectives", ncclAllGather(p->a, p->b, n, t, p->world, s)) &&
             NCCL("collectives", ncclReduceScatter(p->a, p->b, n, t, ncclSum, p->world, s)) &&
             NCCL("collectives", ncclBroadcast(p->a, p->b, n, t, 0, p->world, s)) &&
             NCCL("collectives", ncclReduce(p->a, p->b, n, t, ncclMax, 0, p->world, s));
    }
    ok =
        ok && NCCL("collectives", ncclAllReduce(p->a, p->a, 256, ncclDouble, ncclSum, p->named, s));
    ok = ok && NCCL("collectives", ncclAllReduce(p->a, p->b, 4096, ncclHalf, ncclSum, p->split, s));
    ok = ok && NCCL("collectives", ncclAllReduce(p->a, p->b, 4096, ncclFloat, ncclSum, p->all, s));
    if (ok) step("collectives", "ok", "3 dtypes x 5 ops on the world, 1 on each other comm");
    coll_fn alltoall = (coll_fn)newer_function("ncclAlltoAll");
    coll_root_fn gather = (coll_root_fn)newer_function("ncclGather");
    coll_root_fn scatter = (coll_root_fn)newer_function("ncclScatter");
    if (alltoall == NULL || gather == NULL || scatter == NULL)
        step("alltoall_gather_scatter", "skipped", "this NCCL lacks them");
    else if (NCCL("alltoall_gather_scatter", alltoall(p->a, p->b, 1024, ncclFloat, p->world, s)) &&
             NCCL("alltoall_gather_scatter", gather(p->a, p->b, 1024, ncclFloat, 0, p->world, s)) &&
             NCCL("alltoall_gather_scatter", scatter(p->a, p->b, 1024, ncclFloat, 0, p->world, s)))
        step("alltoall_gather_scatter", "ok", "1024 floats each");
}

static void groups(probe *p) {
    cudaStream_t s = (cudaStream_t)p->s;
    if (NCCL("sendrecv_self", ncclGroupStart()) &&
        NCCL("sendrecv_self", ncclSend(p->a, 1024, ncclFloat, 0, p->world, s)) &&
        NCCL("sendrecv_self", ncclRecv(p->b, 1024, ncclFloat, 0, p->world, s)) &&
        NCCL("sendrecv_self", ncclGroupEnd()))
        step("sendrecv_self", "ok", "one group");
    if (NCCL("coalesced", ncclGroupStart()) &&
        NCCL("coalesced", ncclAllReduce(p->a, p->b, 512, ncclFloat, ncclSum, p->world, s)) &&
        NCCL("coalesced", ncclAllReduce(p->b, p->a, 128, ncclFloat, ncclSum, p->world, s)) &&
        NCCL("coalesced", ncclBroadcast(p->a, p->b, 64, ncclFloat, 0, p->split, s)) &&
        NCCL("coalesced", ncclGroupEnd()))
        step("coalesced", "ok", "2 all_reduces on the world, a broadcast on the split");
    if (NCCL("nested_group", ncclGroupStart()) && NCCL("nested_group", ncclGroupStart()) &&
        NCCL("nested_group", ncclAllReduce(p->a, p->b, 2048, ncclFloat, ncclSum, p->world, s)) &&
        NCCL("nested_group", ncclGroupEnd()) &&
        NCCL("nested_group", ncclAllGather(p->a, p->b, 2048, ncclFloat, p->world, s)) &&
        NCCL("nested_group", ncclGroupEnd()))
        step("nested_group", "ok", "an all_reduce in an inner group, an all_gather in the outer");
}

/* A capture on the side stream while an all_reduce is pending on the main one (behind a
 * sleeping kernel), so the recorder's poller queries a pending event during the capture. */
static void capture(probe *p) {
    cudaStream_t side = (cudaStream_t)p->side;
    char why[256] = "";
    if (probe_dev_sleep(p->s, 600) != 0 ||
        !NCCL("capture",
              ncclAllReduce(p->a, p->b, 1024, ncclFloat, ncclSum, p->world, (cudaStream_t)p->s))) {
        step("capture", "FAIL", "could not queue the pending work");
        return;
    }
    if (probe_dev_capture_begin(p->side) != 0) {
        step("capture", "FAIL", "cannot begin a capture");
        return;
    }
    bool ok =
        NCCL("capture", ncclAllReduce(p->a, p->b, 1024, ncclFloat, ncclSum, p->world, side)) &&
        NCCL("capture", ncclGroupStart()) &&
        NCCL("capture", ncclAllReduce(p->a, p->b, 256, ncclFloat, ncclSum, p->world, side)) &&
        NCCL("capture", ncclBroadcast(p->a, p->b, 256, ncclFloat, 0, p->world, side)) &&
        NCCL("capture", ncclGroupEnd());
    nap_ms(300); /* the recorder's poller runs every 50 ms: let it look during the capture */
    int replays = probe_dev_capture_end(p->side, CAPTURE_REPLAYS, why, sizeof why);
    if (replays < 0)
        step("capture", "FAIL", "%s", why);
    else if (ok)
        step("capture", "ok", "captured 1 all_reduce and a grouped pair; %d replays", replays);
}

static void drain(probe *p, const char *what) {
    int rc = probe_dev_sync(p->s, DRAIN_MS);
    if (rc == 0) rc = probe_dev_sync(p->side, DRAIN_MS);
    if (rc != 0)
        step("drain", "FAIL", "%s: the GPU did not finish within %d ms (%d)", what, DRAIN_MS, rc);
    else
        step("drain", "ok", "%s", what);
}

static void dump_on_signal(const char *dir) {
    if (!recorder_preloaded()) {
        step("signal_dump", "skipped", "the recorder is not preloaded");
        return;
    }
    nap_ms(300); /* the poller sees the last completions */
    int64_t t0 = now_ms();
    kill(getpid(), SIGUSR2);
    if (wait_for_dump(dir, DUMP_WAIT_MS))
        step("signal_dump", "ok", "written in %lld ms", (long long)(now_ms() - t0));
    else
        step("signal_dump", "FAIL", "no dump in %s after %d ms", dir, DUMP_WAIT_MS);
}

static void finish(probe *p) {
    bool ok = true;
    if (p->split) ok = NCCL("destroy", ncclCommDestroy(p->split)) && ok;
    if (p->named) ok = NCCL("destroy", ncclCommDestroy(p->named)) && ok;
    if (p->all) ok = NCCL("destroy", ncclCommDestroy(p->all)) && ok;
    if (p->world)
        ok = NCCL("destroy", ncclCommFinalize(p->world)) &&
             NCCL("destroy", ncclCommDestroy(p->world)) && ok;
    if (ok) step("destroy", "ok", "finalize + destroy");
}

static int run_ops(const char *dir) {
    probe p;
    if (start(&p, false)) {
        step("init", "ok", "1 rank");
        comms(&p);
        collectives(&p);
        groups(&p);
        drain(&p, "after the collectives and groups");
        capture(&p);
        drain(&p, "after the capture");
        dump_on_signal(dir);
        finish(&p);
    }
    return g_failed;
}

static int run_hang(const char *dir) {
    probe p;
    const char *wait_env = getenv("HANG_WAIT_SEC");
    int wait_ms = (wait_env ? atoi(wait_env) : 30) * 1000;
    if (!start(&p, false)) return g_failed;
    cudaStream_t s = (cudaStream_t)p.s;
    probe_flag *flag = probe_dev_flag();
    if (flag == NULL) {
        step("hang", "FAIL", "no host-mapped flag");
        return g_failed;
    }
    if (!NCCL("hang", ncclAllReduce(p.a, p.b, 4096, ncclFloat, ncclSum, p.world, s))) return 1;
    drain(&p, "before the spinning kernel");
    /* A slow NCCL init may have made the recorder dump already (stuck in the API): only a dump
     * written from now on is the watchdog's answer to the kernel. */
    char path[4096];
    dump_path(path, sizeof path, dir);
    if (unlink(path) == 0) step("early_dump", "note", "removed a dump written before the kernel");
    int64_t t0 = now_ms();
    if (probe_dev_spin(p.s, flag, SPIN_LIMIT_MS) != 0 ||
        !NCCL("hang", ncclAllReduce(p.a, p.b, 8192, ncclFloat, ncclSum, p.world, s))) {
        probe_dev_release(flag);
        step("hang", "FAIL", "could not queue the kernel and the all_reduce");
        return g_failed;
    }
    bool dumped = recorder_preloaded() && wait_for_dump(dir, wait_ms);
    probe_dev_release(flag);
    if (dumped)
        step("watchdog_dump", "ok", "after %lld ms", (long long)(now_ms() - t0));
    else if (recorder_preloaded())
        step("watchdog_dump", "FAIL", "no dump in %s after %d ms", dir, wait_ms);
    else
        step("watchdog_dump", "skipped", "the recorder is not preloaded");
    drain(&p, "after releasing the spinning kernel");
    finish(&p);
    return g_failed;
}

/* Host ns per call over n back-to-back calls. When the GPU is slower than the host (a timing
 * event costs the GPU more than the host), the launch queue fills and the host waits: this then
 * measures the GPU's pace. */
static double bench_batch(probe *p, long n) {
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (long i = 0; i < n; i++)
        if (ncclAllReduce(p->a, p->a, 1024, ncclFloat, ncclSum, p->world, (cudaStream_t)p->s) !=
            ncclSuccess)
            return -1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    probe_dev_sync(p->s, DRAIN_MS);
    return ((double)(t1.tv_sec - t0.tv_sec) * 1e9 + (double)(t1.tv_nsec - t0.tv_nsec)) / (double)n;
}

#define PACE 64 /* calls between drains in bench_paced: far below any launch queue's depth */

/* Host ns per call with the stream drained every PACE calls, outside the timed window: the
 * host's own cost, the queue never full. */
static double bench_paced(probe *p, long n) {
    double ns = 0;
    for (long done = 0; done < n; done += PACE) {
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        for (int i = 0; i < PACE; i++)
            if (ncclAllReduce(p->a, p->a, 1024, ncclFloat, ncclSum, p->world, (cudaStream_t)p->s) !=
                ncclSuccess)
                return -1;
        clock_gettime(CLOCK_MONOTONIC, &t1);
        ns += (double)(t1.tv_sec - t0.tv_sec) * 1e9 + (double)(t1.tv_nsec - t0.tv_nsec);
        probe_dev_sync(p->s, DRAIN_MS);
    }
    return ns / (double)((n + PACE - 1) / PACE * PACE);
}

static int run_bench(long n) {
    probe p;
    if (!start(&p, true)) return 1;
    double best = -1, best_paced = -1;
    bench_batch(&p, n / 10 + 1); /* warm-up: NCCL's first launches set things up */
    for (int i = 0; i < 3; i++) {
        double ns = bench_batch(&p, n), paced = bench_paced(&p, n / 5 + 1);
        if (ns < 0 || paced < 0) {
            step("bench", "FAIL", "ncclAllReduce failed");
            return 1;
        }
        if (best < 0 || ns < best) best = ns;
        if (best_paced < 0 || paced < best_paced) best_paced = paced;
    }
    printf("ns_per_call %.1f\n", best);
    printf("ns_per_call_paced %.1f\n", best_paced);
    finish(&p);
    return g_failed;
}

int main(int argc, char **argv) {
    const char *mode = argc > 1 ? argv[1] : "";
    const char *arg = argc > 2 ? argv[2] : ".";
    int failed;
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (strcmp(mode, "ops") == 0)
        failed = run_ops(arg);
    else if (strcmp(mode, "hang") == 0)
        failed = run_hang(arg);
    else if (strcmp(mode, "bench") == 0)
        return run_bench(atol(arg) > 0 ? atol(arg) : 100000) == 0 ? 0 : 1;
    else {
        fprintf(stderr, "usage: nccl-probe ops|hang DUMP_DIR | bench N\n");
        return 2;
    }
    if (failed == 0)
        printf("probe ok\n");
    else
        printf("probe FAIL %d\n", failed);
    return failed == 0 ? 0 : 1;
}
