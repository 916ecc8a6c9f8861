/* driver.c — a small "training job" on the fake NCCL/CUDA, forking N ranks, for e2e tests.
 *
 *   frtrace-driver [train|capture|fork|forkdump|initall|lifecycle]
 *
 * train (default): the parent gets a unique id and forks NRANKS (4) ranks. Each rank creates
 * the world communicator, splits it by rank parity, and runs STEPS (6) steps of: all_reduce on
 * the world, a grouped send to the next rank and receive from the previous one, all_to_all and
 * all_gather on its half, then waits for its stream. Faults, from the environment:
 *   SKIP=r@s        rank r stops before step s's all_reduce and sits in CPU code forever
 *                   (in stuck_in_host_code, a static function: the stacks tests look for it)
 *   OMIT=r@s        rank r leaves out step s's all_reduce and goes on with the rest
 *   STALL=r@s       rank r's stream stalls forever before step s's all_reduce (a GPU hang)
 *   MISMATCH=r@s:n  rank r passes count n to step s's all_reduce (the fake then hangs)
 *   CRASH=r@s       rank r raises SIGSEGV before step s (arming libasig-trap.so if preloaded)
 *   ASYNC_ERR=r@s, HANG_IN=r@init|destroy   faults of the fake library (fake_nccl.c)
 *   SLOW=r:ms       rank r sleeps ms before each step
 *   GROUPED=1       each step ends with coalesced collectives: one group holding two
 *                   all_reduces on the world and a broadcast on the half
 *   SIGNAL_AFTER_MS=t  the parent sends SIGNAL_NUM (default SIGUSR2) to every rank after t ms
 *   DEADLINE=sec    the parent kills ranks still running after sec seconds (default 10)
 *   DUMPS_EXPECTED=n   ... or 300 ms after n dump files exist in FRTRACE_DUMP_DIR
 * The parent prints one line per rank: "rank R exit S" or "rank R signal N".
 *
 * capture: one rank; all_reduce behind a 400 ms stream delay, then a global-mode capture on a
 * second stream with an all_reduce inside, while the recorder's watchdog is polling; prints
 * "violations N" as counted by the fake driver.
 * fork: one rank records, forks; the child issues a call and a dump signal (it must stay inert
 * and exit 0), then the parent dumps on SIGUSR2. Prints "child exit S".
 * forkdump: one rank records CALLS (default 20000) calls, then 30 times asks for a dump
 * (SIGUSR2) and forks 0 to 9 ms later, while the dumper thread may be writing; each child
 * creates a communicator, issues a call and exits (with FRTRACE_DUMP_ON_EXIT=1 it dumps at
 * exit). A child not gone after 5 s is killed and counted. Prints "children 30 hung N".
 * initall: ncclCommInitAll over 2 devices, an all_reduce on each, then a SIGUSR2 dump.
 * lifecycle: NRANKS ranks exercise the rest of the API: ncclCommInitRankConfig (commName
 * "world-dp"), ncclCommInitRankScalable over two ids ("scalable"), an all_reduce on each, a
 * group ended by ncclGroupSimulateEnd (launches nothing), ncclCommShrink excluding the last
 * rank, 3 all_reduces on the shrunk comm (SKIP=r@s applies here), then ncclCommAbort of the
 * scalable comm, ncclCommRevoke of the shrunk one and ncclCommDestroy of the world.
 */
#include <cuda.h>
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <glob.h>
#include <nccl.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

void fakecuStreamStall(CUstream s);
void fakecuStreamSleep(CUstream s, int ms);
int fakecuViolations(void);

typedef struct fault {
    int rank, step, arg;
} fault;

static fault parse_fault(const char *name) {
    fault f = { -1, -1, 0 };
    const char *v = getenv(name);
    if (v != NULL) sscanf(v, "%d@%d:%d", &f.rank, &f.step, &f.arg);
    return f;
}

static int env_int(const char *name, int def) {
    const char *v = getenv(name);
    return v ? atoi(v) : def;
}

/* The whole time even when a signal interrupts it: the recorder's stack capture signals every
 * thread at each dump, and nanosleep then returns early with EINTR, as POSIX says. */
static void sleep_ms(int ms) {
    struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) continue;
}

/* Where a SKIP rank sits: a static function of the driver's own (kept out of line), so that the
 * recorder's stacks must find it in the unstripped binary's .symtab, not in any export. */
static __attribute__((noinline)) void stuck_in_host_code(void) {
    for (;;) pause();
}

#define CHECK(call)                                                                                \
    do {                                                                                           \
        ncclResult_t r_ = (call);                                                                  \
        if (r_ != ncclSuccess) {                                                                   \
            fprintf(stderr, "%s failed: %d\n", #call, (int)r_);                                    \
            exit(3);                                                                               \
        }                                                                                          \
    } while (0)

static CUstream setup_device(void) {
    CUcontext ctx;
    CUstream stream;
    cuInit(0);
    cuDevicePrimaryCtxRetain(&ctx, 0);
    cuCtxSetCurrent(ctx);
    cuStreamCreate(&stream, 0);
    return stream;
}

/* What PyTorch's coalescing manager issues for coalesced collectives: one NCCL group. */
static void coalesced_step(ncclComm_t world, ncclComm_t half, cudaStream_t s) {
    CHECK(ncclGroupStart());
    CHECK(ncclAllReduce(NULL, NULL, 512, ncclFloat, ncclSum, world, s));
    CHECK(ncclAllReduce(NULL, NULL, 128, ncclFloat, ncclSum, world, s));
    CHECK(ncclBroadcast(NULL, NULL, 64, ncclFloat, 0, half, s));
    CHECK(ncclGroupEnd());
}

static void one_step(int rank, int nranks, int step, ncclComm_t world, ncclComm_t half,
                     cudaStream_t s) {
    fault skip = parse_fault("SKIP"), stall = parse_fault("STALL"), crash = parse_fault("CRASH");
    fault mismatch = parse_fault("MISMATCH"), omit = parse_fault("OMIT");
    int slow_rank = -1, slow_ms = 0;
    const char *slow = getenv("SLOW");
    if (slow) sscanf(slow, "%d:%d", &slow_rank, &slow_ms);
    if (rank == slow_rank) sleep_ms(slow_ms);
    if (rank == crash.rank && step == crash.step) {
        /* Under libasig-trap.so, allocating or printf-formatting on this thread from now on
         * (i.e. inside the recorder's fatal handler) ends the process with exit 97. */
        void (*arm)(void) = (void (*)(void))dlsym(RTLD_DEFAULT, "asigTrapArm");
        if (arm != NULL) arm();
        raise(SIGSEGV);
    }
    if (rank == skip.rank && step == skip.step)
        stuck_in_host_code(); /* stuck in CPU code: never issues the all_reduce */
    if (rank == stall.rank && step == stall.step) fakecuStreamStall((CUstream)s);
    size_t count = (rank == mismatch.rank && step == mismatch.step) ? (size_t)mismatch.arg : 1024;
    if (rank != omit.rank || step != omit.step)
        CHECK(ncclAllReduce(NULL, NULL, count, ncclFloat, ncclSum, world, s));
    CHECK(ncclGroupStart());
    CHECK(ncclSend(NULL, 256, ncclBfloat16, (rank + 1) % nranks, world, s));
    CHECK(ncclRecv(NULL, 256, ncclBfloat16, (rank + nranks - 1) % nranks, world, s));
    CHECK(ncclGroupEnd());
    CHECK(ncclAlltoAll(NULL, NULL, 64, ncclFloat, half, s));
    CHECK(ncclAllGather(NULL, NULL, 32, ncclHalf, half, s));
    if (env_int("GROUPED", 0)) coalesced_step(world, half, s);
    cuStreamSynchronize((CUstream)s);
}

static int run_lifecycle_rank(int rank, int nranks, const ncclUniqueId *ids) {
    cudaStream_t s = (cudaStream_t)setup_device();
    ncclComm_t world, scal, shrunk = NULL;
    ncclConfig_t named = NCCL_CONFIG_INITIALIZER, scal_cfg = NCCL_CONFIG_INITIALIZER;
    ncclSimInfo_t sim = NCCL_SIM_INFO_INITIALIZER;
    fault skip = parse_fault("SKIP");
    named.commName = "world-dp";
    scal_cfg.commName = "scalable";
    CHECK(ncclCommInitRankConfig(&world, nranks, ids[0], rank, &named));
    CHECK(ncclCommInitRankScalable(&scal, nranks, rank, 2, (ncclUniqueId *)&ids[1], &scal_cfg));
    CHECK(ncclAllReduce(NULL, NULL, 16, ncclFloat, ncclSum, world, s));
    CHECK(ncclAllReduce(NULL, NULL, 32, ncclFloat, ncclSum, scal, s));
    CHECK(ncclGroupStart());
    CHECK(ncclAllReduce(NULL, NULL, 999, ncclFloat, ncclSum, world, s));
    CHECK(ncclBroadcast(NULL, NULL, 999, ncclFloat, 0, scal, s));
    CHECK(ncclGroupSimulateEnd(&sim));
    int exclude[1] = { nranks - 1 };
    CHECK(ncclCommShrink(world, exclude, 1, &shrunk, NULL, NCCL_SHRINK_DEFAULT));
    for (int step = 0; shrunk != NULL && step < 3; step++) {
        if (rank == skip.rank && step == skip.step) stuck_in_host_code();
        CHECK(ncclAllReduce(NULL, NULL, 48, ncclFloat, ncclSum, shrunk, s));
    }
    cuStreamSynchronize((CUstream)s);
    CHECK(ncclCommAbort(scal));
    if (shrunk != NULL) CHECK(ncclCommRevoke(shrunk, 0));
    CHECK(ncclCommDestroy(world));
    return 0;
}

static int run_rank(int rank, int nranks, ncclUniqueId id) {
    CUstream stream = setup_device();
    ncclComm_t world, half;
    int steps = env_int("STEPS", 6);
    CHECK(ncclCommInitRank(&world, nranks, id, rank));
    CHECK(ncclCommSplit(world, rank % 2, rank, &half, NULL));
    for (int step = 0; step < steps; step++)
        one_step(rank, nranks, step, world, half, (cudaStream_t)stream);
    CHECK(ncclCommDestroy(half));
    CHECK(ncclCommDestroy(world));
    return 0;
}

static void remove_segments(void) {
    char pattern[128];
    glob_t g;
    snprintf(pattern, sizeof pattern, "/dev/shm/frtrace-fake-%s-*", getenv("FAKE_SHM_TAG"));
    if (glob(pattern, 0, NULL, &g) == 0) {
        for (size_t i = 0; i < g.gl_pathc; i++) unlink(g.gl_pathv[i]);
        globfree(&g);
    }
}

static void report(int rank, int status) {
    if (WIFEXITED(status))
        printf("rank %d exit %d\n", rank, WEXITSTATUS(status));
    else if (WIFSIGNALED(status))
        printf("rank %d signal %d\n", rank, WTERMSIG(status));
}

/* Finished dump files (not the temporary ones) in FRTRACE_DUMP_DIR. */
static int count_dumps(void) {
    const char *dir = getenv("FRTRACE_DUMP_DIR");
    DIR *d = dir ? opendir(dir) : NULL;
    struct dirent *e;
    int n = 0;
    if (d == NULL) return 0;
    while ((e = readdir(d)) != NULL)
        if (e->d_name[0] != '.' && strstr(e->d_name, ".tmp.") == NULL) n++;
    closedir(d);
    return n;
}

/* Waits until n finished dump files exist, or limit_ms passed: a dump asked for by a signal is
 * written by the recorder's dumper thread, which a loaded machine (a sanitizer build beside other
 * work) may run seconds later; a fixed pause made the capture test flaky there. */
static void await_dumps(int n, int limit_ms) {
    for (int waited = 0; count_dumps() < n && waited < limit_ms; waited += 20) sleep_ms(20);
}

/* Waits for the ranks until the deadline, signalling them once if asked, then kills the rest. */
static void supervise(pid_t *pids, int nranks) {
    int deadline_ms = env_int("DEADLINE", 10) * 1000, signal_ms = env_int("SIGNAL_AFTER_MS", -1);
    int signal_num = env_int("SIGNAL_NUM", SIGUSR2);
    int status[64], left = nranks, expected = env_int("DUMPS_EXPECTED", 0);
    for (int i = 0; i < nranks; i++) status[i] = -1;
    for (int t = 0; left > 0 && t < deadline_ms; t += 10) {
        if (expected > 0 && t % 100 == 0 && count_dumps() >= expected && deadline_ms > t + 300)
            deadline_ms = t + 300;
        if (t == signal_ms)
            for (int i = 0; i < nranks; i++)
                if (status[i] == -1) kill(pids[i], signal_num);
        for (int i = 0; i < nranks; i++)
            if (status[i] == -1) {
                int st;
                if (waitpid(pids[i], &st, WNOHANG) == pids[i]) {
                    status[i] = st;
                    left--;
                }
            }
        sleep_ms(10);
    }
    for (int i = 0; i < nranks; i++)
        if (status[i] == -1) {
            kill(pids[i], SIGKILL);
            waitpid(pids[i], &status[i], 0);
        }
    for (int i = 0; i < nranks; i++) report(i, status[i]);
}

/* Forks NRANKS ranks running `train` (lifecycle = false) or the lifecycle tour. */
static int job(bool lifecycle) {
    int nranks = env_int("NRANKS", 4);
    pid_t pids[64];
    ncclUniqueId ids[3];
    char tag[32];
    snprintf(tag, sizeof tag, "%d", (int)getpid());
    setenv("FAKE_SHM_TAG", tag, 0); /* a tag from the test wins */
    for (int i = 0; i < 3; i++) CHECK(ncclGetUniqueId(&ids[i]));
    fflush(stdout);
    for (int r = 0; r < nranks && r < 64; r++) {
        char rank_text[16];
        pids[r] = fork();
        if (pids[r] == 0) {
            snprintf(rank_text, sizeof rank_text, "%d", r);
            setenv("FRTRACE_RANK", rank_text, 1);
            exit(lifecycle ? run_lifecycle_rank(r, nranks, ids) : run_rank(r, nranks, ids[0]));
        }
    }
    supervise(pids, nranks);
    remove_segments();
    return 0;
}

static ncclComm_t single_rank_comm(void) {
    ncclUniqueId id;
    ncclComm_t comm;
    char tag[32];
    snprintf(tag, sizeof tag, "%d", (int)getpid());
    setenv("FAKE_SHM_TAG", tag, 0); /* a tag from the test wins */
    CHECK(ncclGetUniqueId(&id));
    CHECK(ncclCommInitRank(&comm, 1, id, 0));
    return comm;
}

static int capture(void) {
    CUstream s = setup_device(), side;
    cuStreamCreate(&side, 0);
    ncclComm_t comm = single_rank_comm();
    fakecuStreamSleep(s, 400); /* keeps the next entries pending while the capture runs */
    CHECK(ncclAllReduce(NULL, NULL, 8, ncclFloat, ncclSum, comm, (cudaStream_t)s));
    cuStreamBeginCapture(side, CU_STREAM_CAPTURE_MODE_GLOBAL);
    CHECK(ncclAllReduce(NULL, NULL, 8, ncclFloat, ncclSum, comm, (cudaStream_t)side));
    CHECK(ncclGroupStart());
    CHECK(ncclAllReduce(NULL, NULL, 8, ncclFloat, ncclSum, comm, (cudaStream_t)side));
    CHECK(ncclBroadcast(NULL, NULL, 8, ncclFloat, 0, comm, (cudaStream_t)side));
    CHECK(ncclGroupEnd());
    sleep_ms(600); /* the watchdog polls meanwhile */
    cuStreamEndCapture(side, NULL);
    cuStreamSynchronize(s);
    raise(SIGUSR2);
    await_dumps(1, 20000);
    printf("violations %d\n", fakecuViolations());
    remove_segments();
    return 0;
}

static int forked(void) {
    CUstream s = setup_device();
    ncclComm_t comm = single_rank_comm();
    CHECK(ncclAllReduce(NULL, NULL, 8, ncclFloat, ncclSum, comm, (cudaStream_t)s));
    cuStreamSynchronize(s);
    fflush(stdout);
    pid_t child = fork();
    if (child == 0) {
        ncclAllReduce(NULL, NULL, 8, ncclFloat, ncclSum, comm, NULL);
        raise(SIGUSR2); /* inert: no dumper to wake, and the signal must not kill us */
        sleep_ms(300);
        _exit(0);
    }
    int status = 0;
    waitpid(child, &status, 0);
    printf("child exit %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
    fflush(stdout);
    raise(SIGUSR2);
    await_dumps(1, 20000);
    remove_segments();
    return 0;
}

static int forkdump(void) {
    CUstream s = setup_device();
    ncclComm_t comm = single_rank_comm();
    int calls = env_int("CALLS", 20000), hung = 0, children = 30;
    for (int i = 0; i < calls; i++)
        CHECK(ncclAllReduce(NULL, NULL, 8, ncclFloat, ncclSum, comm, (cudaStream_t)s));
    cuStreamSynchronize(s);
    fflush(stdout);
    for (int k = 0; k < children; k++) {
        raise(SIGUSR2);
        sleep_ms(k % 10);
        pid_t child = fork();
        if (child == 0) {
            ncclComm_t own = single_rank_comm();
            ncclAllReduce(NULL, NULL, 8, ncclFloat, ncclSum, own, NULL);
            exit(0); /* atexit: the exit dump takes the dump lock */
        }
        int status = 0, waited = 0;
        while (waitpid(child, &status, WNOHANG) == 0 && waited < 5000) {
            sleep_ms(10);
            waited += 10;
        }
        if (waited >= 5000) {
            kill(child, SIGKILL);
            waitpid(child, &status, 0);
            hung++;
        }
    }
    printf("children %d hung %d\n", children, hung);
    fflush(stdout);
    remove_segments();
    return 0;
}

static int initall(void) {
    CUstream s[2];
    ncclComm_t comms[2];
    char tag[32];
    s[0] = setup_device();
    cuStreamCreate(&s[1], 0); /* one stream per device: they run concurrently */
    snprintf(tag, sizeof tag, "%d", (int)getpid());
    setenv("FAKE_SHM_TAG", tag, 0); /* a tag from the test wins */
    CHECK(ncclCommInitAll(comms, 2, NULL));
    CHECK(ncclGroupStart());
    for (int i = 0; i < 2; i++)
        CHECK(ncclAllReduce(NULL, NULL, 8, ncclFloat, ncclSum, comms[i], (cudaStream_t)s[i]));
    CHECK(ncclGroupEnd());
    cuStreamSynchronize(s[0]);
    cuStreamSynchronize(s[1]);
    raise(SIGUSR2);
    sleep_ms(400);
    remove_segments();
    return 0;
}

int main(int argc, char **argv) {
    const char *mode = argc > 1 ? argv[1] : "train";
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (strcmp(mode, "capture") == 0) return capture();
    if (strcmp(mode, "fork") == 0) return forked();
    if (strcmp(mode, "initall") == 0) return initall();
    if (strcmp(mode, "forkdump") == 0) return forkdump();
    return job(strcmp(mode, "lifecycle") == 0);
}
