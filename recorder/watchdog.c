/* watchdog.c — the poller and dumper threads, dump triggers and signal handlers (watchdog.h).
 *
 * Timeout: an entry whose end event was recorded and that is not completed FRTRACE_TIMEOUT_SEC
 * after it was created. Without events (FRTRACE_GPU_EVENTS=0, no driver, graph capture) the
 * recorder cannot tell a pending call from a finished one, so such entries never time out.
 * One dump per incident: a timeout dumps once for its entry; a trigger file dumps once per
 * appearance (its modification time); each dump signal dumps once.
 *
 * Async errors: every ASYNC_POLL_EVERY poller ticks, ncclCommGetAsyncError is called on each live
 * communicator, holding the communicator's busy lock (taken with trylock: a communicator that is
 * being destroyed or aborted right now is skipped; the shim holds the lock across the real
 * Destroy/Abort/Finalize, so the call never sees a freed communicator). A change to an error
 * marks the communicator and wakes the dumper, which dumps ("async_error") and creates the
 * trigger file. Stuck in API: the dumper scans the per-thread slots of inflight.h; a thread
 * inside one NCCL call longer than the timeout dumps once ("stuck_in_api"), trigger file too.
 */
#include "watchdog.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../formats/atomic_file.h"
#include "../formats/recorder_keys.h"
#include "comms.h"
#include "config.h"
#include "cuda_driver.h"
#include "dumper.h"
#include "inflight.h"
#include "recorder.h"
#include "ring.h"

#define POLL_INTERVAL_MS 50
#define DUMPER_TICK_MS   100
#define MAX_STREAMS      64
#define ASYNC_POLL_EVERY 2 /* poller ticks: GetAsyncError every 100 ms */

static const int g_fatal_signals[] = { SIGSEGV, SIGBUS, SIGFPE, SIGABRT, SIGILL };
#define NFATAL (sizeof g_fatal_signals / sizeof g_fatal_signals[0])

static struct {
    int pipe_rd, pipe_wr;
    _Atomic bool running; /* threads exist in this process */
    _Atomic int pending_signal_dumps;
    _Atomic int pending_async_error_dump;
    bool handlers_installed;
    struct sigaction old_fatal[NFATAL];
    struct sigaction old_dump;
    uint64_t scan_from; /* poller: every entry below is final */
} g_wd = { .pipe_rd = -1, .pipe_wr = -1 };

/* Serializes poll_once between the poller and the exit hook (which only tries it). */
static pthread_mutex_t g_poll_lock = PTHREAD_MUTEX_INITIALIZER;

/* --- poller -------------------------------------------------------------------------------- */

typedef struct stream_block {
    uintptr_t streams[MAX_STREAMS];
    int n;
} stream_block;

static bool stream_blocked(const stream_block *b, uintptr_t s) {
    for (int i = 0; i < b->n; i++)
        if (b->streams[i] == s) return true;
    return false;
}

static void block_stream(stream_block *b, uintptr_t s) {
    if (b->n < MAX_STREAMS) b->streams[b->n++] = s;
}

static bool is_final(const rec_snapshot *snap) {
    unsigned st = REC_STATUS_STATE(snap->status);
    return st == REC_COMPLETED || st == REC_DROPPED || snap->call.event < 0;
}

static void note_progress(const rec_call *call, unsigned state) {
    if (call->flags & REC_F_P2P || call->comm >= rec_comms_count()) return;
    rec_comm *c = rec_comms_at(call->comm);
    _Atomic int64_t *last = state == REC_COMPLETED ? &c->last_completed : &c->last_started;
    int64_t seen = atomic_load(last);
    while (seen < call->coll_seq && !atomic_compare_exchange_weak(last, &seen, call->coll_seq)) {}
}

/* Queries one entry's events; returns false when its stream is still busy with it. */
static bool poll_entry(rec_ring *ring, const rec_snapshot *snap) {
    const rec_call *call = &snap->call;
    uint32_t pair = (uint32_t)call->event;
    if (!rec_cuda_owned_by(pair, call->record_id - call->event_owner))
        return true; /* the pair was recycled: this entry can no longer be tracked */
    unsigned st = REC_STATUS_STATE(snap->status);
    int64_t now = rec_now_real_ns();
    if (st == REC_SCHEDULED && (snap->status & REC_S_START_ARMED) &&
        rec_cuda_query(pair, 0) == REC_Q_DONE &&
        rec_ring_advance(ring, call->record_id, REC_STARTED, now))
        note_progress(call, REC_STARTED);
    if (!(snap->status & REC_S_END_ARMED)) return false;
    enum rec_query q = rec_cuda_query(pair, 1);
    if (q == REC_Q_PENDING) return false;
    /* An error (a sticky CUDA fault) leaves the entry pending: it is what the dump must show. */
    if (q == REC_Q_DONE && rec_ring_advance(ring, call->record_id, REC_COMPLETED, now)) {
        float ms;
        /* duration_ms as PyTorch fills it with timing on: the GPU time from start to end event */
        if ((snap->status & REC_S_START_ARMED) && rec_cuda_elapsed_ms(pair, &ms))
            rec_ring_set_duration(ring, call->record_id, ms);
        note_progress(call, REC_COMPLETED);
    }
    return q == REC_Q_DONE;
}

static void poll_once(void) {
    rec_ring *ring = rec_recorder_ring();
    stream_block blocked = { .n = 0 };
    uint64_t first, end;
    bool prefix_final = true;
    rec_ring_window(ring, &first, &end);
    if (g_wd.scan_from < first) g_wd.scan_from = first;
    for (uint64_t id = g_wd.scan_from; id < end; id++) {
        rec_snapshot snap;
        if (!rec_ring_read(ring, id, &snap)) {
            prefix_final = false;
            continue;
        }
        if (!is_final(&snap) && !stream_blocked(&blocked, snap.call.stream) &&
            !poll_entry(ring, &snap))
            block_stream(&blocked, snap.call.stream);
        if (prefix_final && rec_ring_read(ring, id, &snap) && is_final(&snap))
            g_wd.scan_from = id + 1;
        else
            prefix_final = false;
    }
}

/* --- async errors ------------------------------------------------------------------------- */

static void wake_dumper(void) {
    if (atomic_load(&g_wd.running)) (void)!write(g_wd.pipe_wr, "a", 1);
}

void rec_watchdog_note_async_error(int comm_index, int nccl_result) {
    rec_comm *c = rec_comms_at(comm_index);
    if (nccl_result == REC_NCCL_IN_PROGRESS) return;
    int before = atomic_exchange(&c->async_error, nccl_result);
    if (before == nccl_result || nccl_result == REC_NCCL_SUCCESS) return;
    int live = REC_COMM_LIVE;
    atomic_compare_exchange_strong(&c->state, &live, REC_COMM_ERROR);
    rec_log(REC_LOG_WARN, "communicator %s (%s) reports an asynchronous error (%d): dumping",
            c->pg_name, c->desc, nccl_result);
    atomic_store(&g_wd.pending_async_error_dump, 1);
    wake_dumper();
}

static void poll_async_error(int index) {
    rec_comm *c = rec_comms_at(index);
    int err = REC_NCCL_SUCCESS;
    if (atomic_load(&c->state) != REC_COMM_LIVE || pthread_mutex_trylock(&c->busy) != 0) return;
    /* Under the busy lock the handle cannot be retired (and freed by NCCL) underneath us. */
    uintptr_t handle = c->handle;
    bool ok = handle != 0 && atomic_load(&c->state) == REC_COMM_LIVE &&
              rec_recorder_comm_async_error(handle, &err) == 0;
    pthread_mutex_unlock(&c->busy);
    if (ok) rec_watchdog_note_async_error(index, err);
}

static void poll_async_errors(void) {
    uint32_t n = rec_comms_count();
    for (uint32_t i = 0; i < n; i++) poll_async_error((int)i);
}

static void sleep_ms(int ms) {
    struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L };
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {}
}

static void *poller_main(void *arg) {
    bool prepared = false;
    unsigned tick = 0;
    (void)arg;
    for (;;) {
        if (++tick % ASYNC_POLL_EVERY == 0) poll_async_errors();
        if (rec_cuda_ready()) {
            /* The pool appears after the first communicator, i.e. after this thread started. */
            if (!prepared) {
                rec_cuda_prepare_watchdog_thread();
                prepared = true;
            }
            pthread_mutex_lock(&g_poll_lock);
            poll_once();
            pthread_mutex_unlock(&g_poll_lock);
        }
        sleep_ms(POLL_INTERVAL_MS);
    }
    return NULL;
}

/* --- dumper -------------------------------------------------------------------------------- */

typedef struct dumper_state {
    uint64_t timed_out_id; /* record id of the last entry that caused a timeout dump, +1 */
    int64_t stuck_since[REC_INFLIGHT_SLOTS]; /* per slot: the call already reported as stuck */
    struct timespec trigger_seen;            /* mtime of the trigger file we last answered */
    bool trigger_present;
} dumper_state;

/* The oldest entry pending past the timeout, as record id + 1 (0 = none). */
static uint64_t find_timeout(rec_call *found) {
    rec_ring *ring = rec_recorder_ring();
    int64_t limit = rec_now_mono_ns() - rec_config_get()->timeout_ms * 1000000;
    uint64_t first, end;
    rec_ring_window(ring, &first, &end);
    for (uint64_t id = first; id < end; id++) {
        rec_snapshot snap;
        if (!rec_ring_read(ring, id, &snap)) continue;
        unsigned st = REC_STATUS_STATE(snap.status);
        if (st == REC_COMPLETED || st == REC_DROPPED || !(snap.status & REC_S_END_ARMED)) continue;
        if (snap.call.mono_created_ns > limit) return 0; /* newer ones are younger still */
        *found = snap.call;
        return id + 1;
    }
    return 0;
}

static bool same_time(struct timespec a, struct timespec b) {
    return a.tv_sec == b.tv_sec && a.tv_nsec == b.tv_nsec;
}

/* The trigger file's directory, opened one component at a time (a path of any length), and the
 * file's name in it; -1 when there is no trigger file or its directory cannot be opened. */
static int trigger_dir(const char **name) {
    const char *path = rec_config_get()->trigger_file;
    if (path[0] == '\0') return -1;
    const char *slash = strrchr(path, '/');
    *name = slash ? slash + 1 : path;
    size_t dlen = !slash ? 0 : slash == path ? 1 : (size_t)(slash - path);
    return fr_dir_open(path, dlen, false);
}

/* Creates the trigger file with our rank in it. A link or a FIFO planted at its name is never
 * followed nor waited on (O_NOFOLLOW, O_NONBLOCK): only a regular file is written. */
static void touch_trigger_file(dumper_state *s) {
    const char *name;
    struct stat st;
    int dir = trigger_dir(&name);
    if (dir < 0) return;
    int fd = openat(dir, name, O_CREAT | O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0666);
    if (fd >= 0) {
        char line[32];
        size_t n = rec_fmt_i64(line, rec_recorder_global_rank());
        line[n++] = '\n';
        if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) (void)!write(fd, line, n);
        close(fd);
    }
    /* Our own file needs no second dump. */
    if (fstatat(dir, name, &st, 0) == 0) {
        s->trigger_seen = st.st_mtim;
        s->trigger_present = true;
    }
    close(dir);
}

static bool trigger_file_appeared(dumper_state *s) {
    const char *name;
    struct stat st;
    int dir = trigger_dir(&name);
    if (dir < 0) return false;
    int found = fstatat(dir, name, &st, 0);
    close(dir);
    if (found != 0) {
        s->trigger_present = false;
        return false;
    }
    bool fresh = !s->trigger_present || !same_time(st.st_mtim, s->trigger_seen);
    s->trigger_seen = st.st_mtim;
    s->trigger_present = true;
    return fresh;
}

static void drain_pipe(void) {
    char buf[64];
    while (read(g_wd.pipe_rd, buf, sizeof buf) > 0) {}
}

/* A thread inside one NCCL call for longer than the timeout, not reported yet: its slot, or -1. */
static int find_stuck(dumper_state *s, int64_t *since_out, unsigned *api_out) {
    int64_t limit = rec_now_mono_ns() - rec_config_get()->timeout_ms * 1000000;
    for (int i = 0; i < REC_INFLIGHT_SLOTS; i++) {
        rec_inflight *slot = rec_inflight_at(i);
        if (atomic_load_explicit(&slot->tid, memory_order_acquire) == 0) continue;
        unsigned api = atomic_load_explicit(&slot->api, memory_order_acquire);
        int64_t since = atomic_load_explicit(&slot->since_ns, memory_order_relaxed);
        if (api == REC_API_NONE || since > limit || since == s->stuck_since[i]) continue;
        s->stuck_since[i] = since;
        *since_out = since;
        *api_out = api;
        return i;
    }
    return -1;
}

static bool dump_if_stuck(dumper_state *s) {
    int64_t since;
    unsigned api;
    int i = find_stuck(s, &since, &api);
    if (i < 0) return false;
    rec_inflight *slot = rec_inflight_at(i);
    rec_log(REC_LOG_WARN, "rank %lld: thread %u (%s) is inside %s for more than %lld ms: dumping",
            (long long)rec_recorder_global_rank(), (unsigned)atomic_load(&slot->tid),
            slot->thread_name, rec_api_name(api), (long long)rec_config_get()->timeout_ms);
    rec_dump_write(FR_TRIGGER_STUCK_IN_API);
    touch_trigger_file(s);
    return true;
}

static void dumper_tick(dumper_state *s) {
    if (atomic_exchange(&g_wd.pending_signal_dumps, 0) > 0) rec_dump_write(FR_TRIGGER_SIGNAL);
    if (atomic_exchange(&g_wd.pending_async_error_dump, 0) > 0) {
        rec_dump_write(FR_TRIGGER_ASYNC_ERROR);
        touch_trigger_file(s);
        return;
    }
    if (dump_if_stuck(s)) return;
    rec_call late;
    uint64_t timed_out = rec_config_get()->gpu_events > 0 ? find_timeout(&late) : 0;
    if (timed_out != 0 && timed_out != s->timed_out_id) {
        s->timed_out_id = timed_out;
        const rec_comm *c = rec_comms_at(late.comm);
        rec_log(REC_LOG_WARN,
                "rank %lld: %s #%lld on communicator %s is pending for more than %lld ms: "
                "dumping (timeout)",
                (long long)rec_recorder_global_rank(), rec_dump_op_name(late.op),
                (long long)(late.flags & REC_F_P2P ? late.p2p_seq : late.coll_seq),
                c ? c->pg_name : "?", (long long)rec_config_get()->timeout_ms);
        rec_dump_write(FR_TRIGGER_TIMEOUT);
        touch_trigger_file(s);
    } else if (trigger_file_appeared(s)) {
        rec_dump_write(FR_TRIGGER_FILE);
    }
}

static void *dumper_main(void *arg) {
    dumper_state s;
    memset(&s, 0, sizeof s);
    (void)arg;
    /* A trigger file left from an earlier incident is not a request. */
    trigger_file_appeared(&s);
    for (;;) {
        struct pollfd pfd = { .fd = g_wd.pipe_rd, .events = POLLIN };
        if (poll(&pfd, 1, DUMPER_TICK_MS) > 0) drain_pipe();
        dumper_tick(&s);
    }
    return NULL;
}

/* --- signals ------------------------------------------------------------------------------- */

static void on_dump_signal(int sig) {
    (void)sig;
    int saved = errno;
    if (atomic_load(&g_wd.running)) {
        atomic_fetch_add(&g_wd.pending_signal_dumps, 1);
        (void)!write(g_wd.pipe_wr, "d", 1);
    }
    errno = saved;
}

static void on_fatal_signal(int sig, siginfo_t *info, void *uctx) {
    (void)info;
    (void)uctx;
    for (size_t i = 0; i < NFATAL; i++) {
        if (g_fatal_signals[i] != sig) continue;
        if (atomic_load(&g_wd.running)) rec_dump_fatal(sig);
        /* Restore whatever was there before us and let the signal do what it would have done. */
        sigaction(sig, &g_wd.old_fatal[i], NULL);
        break;
    }
    raise(sig);
}

static void install_handlers(void) {
    struct sigaction sa;
    const rec_config *cfg = rec_config_get();
    if (g_wd.handlers_installed) return;
    g_wd.handlers_installed = true;
    memset(&sa, 0, sizeof sa);
    sigemptyset(&sa.sa_mask);
    sa.sa_sigaction = on_fatal_signal;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
    for (size_t i = 0; i < NFATAL; i++) sigaction(g_fatal_signals[i], &sa, &g_wd.old_fatal[i]);
    if (cfg->dump_signal > 0 && !rec_signal_is_fatal(cfg->dump_signal)) { /* config.c refused */
        memset(&sa, 0, sizeof sa);
        sigemptyset(&sa.sa_mask);
        sa.sa_handler = on_dump_signal;
        sa.sa_flags = SA_RESTART | SA_ONSTACK;
        sigaction(cfg->dump_signal, &sa, &g_wd.old_dump);
    }
}

/* --- lifecycle ----------------------------------------------------------------------------- */

static bool open_pipe(void) {
    int fds[2];
    if (pipe(fds) != 0) return false;
    for (int i = 0; i < 2; i++) {
        fcntl(fds[i], F_SETFL, fcntl(fds[i], F_GETFL) | O_NONBLOCK);
        fcntl(fds[i], F_SETFD, FD_CLOEXEC);
    }
    g_wd.pipe_rd = fds[0];
    g_wd.pipe_wr = fds[1];
    return true;
}

static bool spawn(void *(*fn)(void *), const char *name) {
    pthread_t th;
    pthread_attr_t attr;
    sigset_t all, old;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    /* Our threads take no signals: the host's handlers keep running on the host's threads. */
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    bool ok = pthread_create(&th, &attr, fn, NULL) == 0;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    pthread_attr_destroy(&attr);
    if (ok) pthread_setname_np(th, name);
    return ok;
}

static void dump_at_exit(void) {
    if (!atomic_load(&g_wd.running)) return;
    /* One last look at the events, from this thread: the poller may not have run since the
     * final operations completed. Skipped when the poller is inside CUDA right now. */
    if (rec_cuda_ready() && pthread_mutex_trylock(&g_poll_lock) == 0) {
        poll_once();
        pthread_mutex_unlock(&g_poll_lock);
    }
    rec_dump_write(FR_TRIGGER_EXIT);
}

void rec_watchdog_start(void) {
    static bool exit_hook;
    if (atomic_load(&g_wd.running)) return;
    if (g_wd.pipe_rd >= 0) {
        close(g_wd.pipe_rd);
        close(g_wd.pipe_wr);
    }
    if (!open_pipe()) {
        rec_log(REC_LOG_WARN, "no pipe for the dumper: dumps only on fatal signals");
    } else {
        g_wd.scan_from = 0;
        atomic_store(&g_wd.running, true);
        if (!spawn(poller_main, "frtrace-poll") || !spawn(dumper_main, "frtrace-dump"))
            rec_log(REC_LOG_WARN, "could not start the watchdog threads");
    }
    install_handlers();
    if (!exit_hook && rec_config_get()->dump_on_exit) {
        exit_hook = true;
        atexit(dump_at_exit);
    }
}

void rec_watchdog_forget(void) {
    pthread_mutex_t fresh = PTHREAD_MUTEX_INITIALIZER;
    g_poll_lock = fresh; /* the poller may have held it at fork time */
    atomic_store(&g_wd.running, false);
    atomic_store(&g_wd.pending_signal_dumps, 0);
    atomic_store(&g_wd.pending_async_error_dump, 0);
}
