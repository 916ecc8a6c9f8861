/* thread_capture.h — the registers and top of stack of other threads, taken by a signal.
 *
 * A thread's stack can only be unwound from its registers, and only the thread itself can read
 * them. So the capture sends each thread a dedicated real-time signal (the first one with no
 * handler at activation, counting down from SIGRTMAX-2) carrying a slot number; the handler,
 * running on that thread, copies its interrupted registers and the top STACK_COPY bytes of its
 * stack into the slot and returns at once. It takes no lock, allocates nothing and calls only
 * process_vm_readv (rec_safe_read_syscall), so it cannot block on anything the thread holds;
 * the thread is interrupted for microseconds. A thread is asked nothing when its signal mask
 * blocks the signal (the recorder's own threads), and one that does not answer in time (stopped,
 * in uninterruptible sleep) is given up: a slot is armed with a generation number, and a late
 * signal whose generation no longer matches, or whose slot was given up, does nothing.
 *
 * The unwinding itself happens later on the dumper thread (unwind.h), from the copy, with every
 * other memory read made safely. Like any signal, this one makes a system call that cannot be
 * restarted (poll, nanosleep, epoll_wait...) return EINTR once; the handler is installed with
 * SA_RESTART so that every call that can be restarted is.
 *
 * x86-64 only: on other machines nothing is captured and the dump says so.
 */
#ifndef FRTRACE_REC_THREAD_CAPTURE_H
#define FRTRACE_REC_THREAD_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define REC_CAPTURE_BATCH 32         /* threads asked at once */
#define REC_STACK_COPY    (64 << 10) /* bytes of each stack copied, from its stack pointer up */
#define REC_NREGS         17         /* DWARF x86-64: rax rdx rcx rbx rsi rdi rbp rsp r8-r15 rip */

typedef enum rec_capture_status {
    REC_CAPTURED,
    REC_CAPTURE_BLOCKED,     /* the thread blocks the signal */
    REC_CAPTURE_NO_ANSWER,   /* it did not run the handler in time */
    REC_CAPTURE_GONE,        /* it exited */
    REC_CAPTURE_UNSUPPORTED, /* no handler (not x86-64, or no free signal) */
} rec_capture_status;

typedef struct rec_captured {
    pid_t tid;
    rec_capture_status status;
    uint64_t regs[REC_NREGS]; /* DWARF order */
    uintptr_t stack_lo;       /* the address stack[0] was copied from */
    size_t stack_len;         /* bytes copied (0: read the live stack) */
    const uint8_t *stack;
} rec_captured;

/* At activation: picks the signal and installs the handler. False when none can be used. */
bool rec_capture_install(void);
/* The signal used, or 0. */
int rec_capture_signal(void);
/* Captures threads tids[0..n), n <= REC_CAPTURE_BATCH, into out[0..n), copying stacks into
 * buffers (n * REC_STACK_COPY bytes), waiting at most wait_ms for their answers. blocked[i]
 * says thread i blocks the signal (then it is not asked). Returns false when a handler was still
 * writing after the wait: then the buffers must never be reused or unmapped. Dumper thread only. */
bool rec_capture_batch(const pid_t *tids, const bool *blocked, size_t n, uint8_t *buffers,
                       int wait_ms, rec_captured *out);

#endif
