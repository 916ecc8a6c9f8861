/* safe_read.c — process_vm_readv on ourselves, else a pipe (see safe_read.h).
 *
 * process_vm_readv stops at the first page it cannot read and returns what it copied. The pipe
 * fallback writes page-sized pieces into a non-blocking pipe and reads them back: a piece that
 * starts on a bad page fails with EFAULT, ending the copy there. The pipe is made on first use
 * and kept (close-on-exec); only rec_safe_read uses it, from one thread at a time (the header's
 * rule), and each piece is written and read back before the next.
 */
#include "safe_read.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

static _Atomic int g_vm_readv_refused;

static size_t read_by_syscall(void *dst, uintptr_t addr, size_t len, bool *refused) {
    struct iovec local = { dst, len }, remote = { (void *)addr, len };
    ssize_t n = syscall(SYS_process_vm_readv, getpid(), &local, 1UL, &remote, 1UL, 0UL);
    if (n < 0) {
        *refused = errno == ENOSYS || errno == EPERM;
        return 0;
    }
    return (size_t)n;
}

/* The fallback: at most one page at a time, so that a piece never straddles a bad page. */
static size_t read_by_pipe(void *dst, uintptr_t addr, size_t len) {
    static _Atomic int fds[2] = { -1, -1 };
    if (atomic_load(&fds[0]) < 0) {
        int p[2];
        if (pipe2(p, O_CLOEXEC | O_NONBLOCK) != 0) return 0;
        atomic_store(&fds[1], p[1]);
        atomic_store(&fds[0], p[0]);
    }
    size_t done = 0;
    while (done < len) {
        uintptr_t at = addr + done;
        size_t piece = 4096 - (at & 4095);
        if (piece > len - done) piece = len - done;
        ssize_t w = write(atomic_load(&fds[1]), (const void *)at, piece);
        if (w <= 0) break;
        ssize_t r = read(atomic_load(&fds[0]), (char *)dst + done, (size_t)w);
        if (r != w) break;
        done += (size_t)w;
        if ((size_t)w < piece) break;
    }
    return done;
}

size_t rec_safe_read_syscall(void *dst, uintptr_t addr, size_t len) {
    bool refused = false;
    return len == 0 || addr == 0 ? 0 : read_by_syscall(dst, addr, len, &refused);
}

size_t rec_safe_read(void *dst, uintptr_t addr, size_t len) {
    if (len == 0 || addr == 0) return 0;
    if (!atomic_load_explicit(&g_vm_readv_refused, memory_order_relaxed)) {
        bool refused = false;
        size_t n = read_by_syscall(dst, addr, len, &refused);
        if (!refused) return n;
        atomic_store(&g_vm_readv_refused, 1);
    }
    return read_by_pipe(dst, addr, len);
}
