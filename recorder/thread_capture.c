/* thread_capture.c — the capture signal, its handler and the slots it fills (see the header).
 *
 * A slot's state is one atomic word: generation << 2 | phase, phase IDLE, ARMED, WRITING or
 * DONE. The dumper fills the slot (buffer, expected tid), stores ARMED with a fresh generation
 * and queues the signal with rt_tgsigqueueinfo, whose si_value carries generation << 8 | slot.
 * The handler moves ARMED to WRITING with a compare-and-swap (a stale or abandoned request
 * fails it and returns), copies, and stores DONE. On timeout the dumper moves ARMED back to IDLE
 * the same way; a slot it finds WRITING is waited for, since the copy takes microseconds.
 */
#include "thread_capture.h"

#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "safe_read.h"

enum { IDLE, ARMED, WRITING, DONE };
#define RED_ZONE 128 /* x86-64: bytes below the stack pointer a leaf function may use */

typedef struct slot {
    _Atomic uint32_t state;
    pid_t tid;
    uint8_t *buffer;
    uint64_t regs[REC_NREGS];
    uintptr_t lo;
    size_t len;
} slot;

static slot g_slots[REC_CAPTURE_BATCH];
static _Atomic uint32_t g_generation;
static int g_signal;

static uint32_t state_of(uint32_t generation, uint32_t phase) { return generation << 2 | phase; }

#if defined(__x86_64__)
static void copy_registers(slot *s, const ucontext_t *uc) {
    static const int order[REC_NREGS] = { REG_RAX, REG_RDX, REG_RCX, REG_RBX, REG_RSI, REG_RDI,
                                          REG_RBP, REG_RSP, REG_R8,  REG_R9,  REG_R10, REG_R11,
                                          REG_R12, REG_R13, REG_R14, REG_R15, REG_RIP };
    for (int i = 0; i < REC_NREGS; i++) s->regs[i] = (uint64_t)uc->uc_mcontext.gregs[order[i]];
}

static void on_capture_signal(int sig, siginfo_t *info, void *context) {
    (void)sig;
    int saved = errno;
    uint32_t token = (uint32_t)info->si_value.sival_int, index = token & 0xff;
    if (info->si_code == SI_QUEUE && info->si_pid == getpid() && index < REC_CAPTURE_BATCH) {
        slot *s = &g_slots[index];
        uint32_t expected = state_of(token >> 8, ARMED);
        if (atomic_compare_exchange_strong(&s->state, &expected, state_of(token >> 8, WRITING))) {
            copy_registers(s, context);
            s->lo = (uintptr_t)s->regs[7] - RED_ZONE;
            s->len = rec_safe_read_syscall(s->buffer, s->lo, REC_STACK_COPY);
            atomic_store_explicit(&s->state, state_of(token >> 8, DONE), memory_order_release);
        }
    }
    errno = saved;
}

/* A real-time signal nobody handles, from SIGRTMAX-2 down (the top ones are popular). */
static int free_signal(void) {
    for (int sig = SIGRTMAX - 2; sig >= SIGRTMIN + 2; sig--) {
        struct sigaction old;
        if (sigaction(sig, NULL, &old) == 0 && !(old.sa_flags & SA_SIGINFO) &&
            old.sa_handler == SIG_DFL)
            return sig;
    }
    return 0;
}

bool rec_capture_install(void) {
    if (g_signal) return true;
    int sig = free_signal();
    if (!sig) return false;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sigfillset(&sa.sa_mask); /* nothing else runs on the thread while it copies */
    sa.sa_sigaction = on_capture_signal;
    sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK;
    if (sigaction(sig, &sa, NULL) != 0) return false;
    g_signal = sig;
    return true;
}
#else
bool rec_capture_install(void) { return false; }
#endif

int rec_capture_signal(void) { return g_signal; }

static void sleep_ms(int ms) {
    struct timespec ts = { 0, (long)ms * 1000000L };
    nanosleep(&ts, NULL);
}

static int64_t now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static bool ask(size_t index, pid_t tid, uint32_t generation) {
    siginfo_t info;
    memset(&info, 0, sizeof info);
    info.si_signo = g_signal;
    info.si_code = SI_QUEUE;
    info.si_pid = getpid();
    info.si_uid = getuid();
    info.si_value.sival_int = (int)(generation << 8 | (uint32_t)index);
    return syscall(SYS_rt_tgsigqueueinfo, getpid(), tid, g_signal, &info) == 0;
}

static size_t count_done(size_t n, uint32_t generation) {
    size_t done = 0;
    for (size_t i = 0; i < n; i++)
        done += atomic_load_explicit(&g_slots[i].state, memory_order_acquire) !=
                state_of(generation, ARMED);
    return done;
}

/* Takes back every request still unanswered; false when a handler is still copying. */
static bool withdraw(size_t n, uint32_t generation) {
    for (size_t i = 0; i < n; i++) {
        uint32_t armed = state_of(generation, ARMED);
        atomic_compare_exchange_strong(&g_slots[i].state, &armed, state_of(generation, IDLE));
        for (int wait = 0; atomic_load(&g_slots[i].state) == state_of(generation, WRITING);
             wait++) {
            if (wait == 1000) return false;
            sleep_ms(1);
        }
    }
    return true;
}

static void collect(size_t i, uint32_t generation, rec_captured *out) {
    slot *s = &g_slots[i];
    if (atomic_load_explicit(&s->state, memory_order_acquire) != state_of(generation, DONE)) {
        if (out->status == REC_CAPTURED) out->status = REC_CAPTURE_NO_ANSWER;
        return;
    }
    memcpy(out->regs, s->regs, sizeof out->regs);
    out->stack_lo = s->lo;
    out->stack_len = s->len;
    out->stack = s->buffer;
}

bool rec_capture_batch(const pid_t *tids, const bool *blocked, size_t n, uint8_t *buffers,
                       int wait_ms, rec_captured *out) {
    uint32_t generation = (atomic_fetch_add(&g_generation, 1) + 1) & 0xffffff;
    size_t asked = 0;
    for (size_t i = 0; i < n; i++) {
        slot *s = &g_slots[i];
        memset(&out[i], 0, sizeof out[i]);
        out[i].tid = tids[i];
        out[i].status = !g_signal    ? REC_CAPTURE_UNSUPPORTED
                        : blocked[i] ? REC_CAPTURE_BLOCKED
                                     : REC_CAPTURED;
        s->tid = tids[i];
        s->buffer = buffers + i * (size_t)REC_STACK_COPY;
        s->len = 0;
        atomic_store(&s->state, state_of(generation, out[i].status == REC_CAPTURED ? ARMED : IDLE));
        if (out[i].status != REC_CAPTURED) continue;
        if (ask(i, tids[i], generation)) {
            asked++;
        } else {
            atomic_store(&s->state, state_of(generation, IDLE));
            out[i].status = REC_CAPTURE_GONE;
        }
    }
    for (int64_t end = now_ms() + wait_ms;
         asked && count_done(n, generation) < n && now_ms() < end;)
        sleep_ms(1);
    bool settled = withdraw(n, generation);
    for (size_t i = 0; settled && i < n; i++)
        if (out[i].status == REC_CAPTURED) collect(i, generation, &out[i]);
    return settled;
}
