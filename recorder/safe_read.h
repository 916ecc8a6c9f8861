/* safe_read.h — reading this process's own memory without ever faulting.
 *
 * The stack reader follows pointers it cannot trust: another thread's stack as it was a moment
 * ago, an interpreter's frame list that a running thread is changing. A plain load of a stale
 * pointer could crash the host. rec_safe_read copies through the kernel instead
 * (process_vm_readv on our own pid, which needs no ptrace permission for the caller's own
 * process): an unmapped or unreadable address makes the call return short, never a SIGSEGV.
 * Where that system call is refused (an old kernel, a seccomp filter), a pipe does the same:
 * write(2) from a bad address fails with EFAULT. The pipe is one per process, so rec_safe_read
 * is for one thread at a time (the dumper thread); signal handlers, which run on many threads
 * at once, use rec_safe_read_syscall, which has no fallback. Both are async-signal-safe.
 */
#ifndef FRTRACE_REC_SAFE_READ_H
#define FRTRACE_REC_SAFE_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Copies up to len bytes from addr into dst; returns how many could be read (a prefix). */
size_t rec_safe_read(void *dst, uintptr_t addr, size_t len);

/* The system call alone: 0 bytes when it is refused. For signal handlers. */
size_t rec_safe_read_syscall(void *dst, uintptr_t addr, size_t len);

/* Whether all of [addr, addr+len) could be read. */
static inline bool rec_safe_read_all(void *dst, uintptr_t addr, size_t len) {
    return rec_safe_read(dst, addr, len) == len;
}

/* One machine word at addr, or false. */
static inline bool rec_safe_word(uintptr_t addr, uint64_t *out) {
    return rec_safe_read_all(out, addr, sizeof *out);
}

#endif
