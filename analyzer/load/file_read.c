/* file_read.c — the whole-file reader of file_read.h.
 *
 * The file is opened with O_NONBLOCK and fstat'ed before a byte is read: anything but a regular
 * file is refused (a FIFO would block, /dev/zero never ends), and so is a regular file larger
 * than any dump can be (fa_max_dump_bytes), so that memory stays proportional to real input.
 * Then one read per buffer-full: a regular file whose size fstat told us is read in one go, plus
 * a short read at the end to see that it did not grow. The buffer keeps one byte spare for the
 * NUL after the data.
 */
#include "load/file_read.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The default bound: a ring of 65 536 entries (torch's TORCH_NCCL_TRACE_BUFFER_SIZE is 2 000 by
 * default; nobody keeps more than this) of at most 8 KiB each (an entry with a 100-frame stack,
 * frames memoized), plus 64 MiB for the header (pg_config of a million-rank job). */
#define DEFAULT_MAX_DUMP ((uint64_t)65536 * 8192 + ((uint64_t)64 << 20))

uint64_t fa_max_dump_bytes(void) {
    const char *env = getenv("FRTRACE_MAX_DUMP_BYTES");
    if (!env || !*env) return DEFAULT_MAX_DUMP;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(env, &end, 10);
    int shift = *end == 'K' || *end == 'k'   ? 10
                : *end == 'M' || *end == 'm' ? 20
                : *end == 'G' || *end == 'g' ? 30
                                             : 0;
    if (shift) end++;
    if (errno || *end || v == 0 || v > (UINT64_MAX >> shift)) return DEFAULT_MAX_DUMP;
    return (uint64_t)v << shift;
}

/* Grows the buffer to at least `want` bytes (and at least doubles it). false when out of memory. */
static bool grow(fa_file_buffer *buf, size_t want) {
    size_t cap = buf->cap ? buf->cap * 2 : 65536;
    if (cap < want) cap = want;
    uint8_t *bigger = realloc(buf->bytes, cap);
    if (!bigger) return false;
    buf->bytes = bigger;
    buf->cap = cap;
    return true;
}

static const char *kind_of(mode_t mode) {
    if (S_ISDIR(mode)) return "is a directory";
    if (S_ISFIFO(mode)) return "not a regular file but a FIFO";
    if (S_ISCHR(mode)) return "not a regular file but a character device";
    if (S_ISBLK(mode)) return "not a regular file but a block device";
    if (S_ISSOCK(mode)) return "not a regular file but a socket";
    return "not a regular file";
}

/* Opens without blocking and checks what it is before anything is read; -1 with err set. */
static int open_regular(const char *path, uint64_t max, struct stat *st, fr_error *err) {
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) {
        fr_fail(err, "%s", strerror(errno));
        return -1;
    }
    const char *why = NULL;
    char size_msg[200];
    if (fstat(fd, st) != 0)
        why = strerror(errno);
    else if (!S_ISREG(st->st_mode))
        why = kind_of(st->st_mode);
    else if ((uint64_t)st->st_size > max) {
        snprintf(size_msg, sizeof size_msg,
                 "%llu bytes, larger than any dump can be (%llu; FRTRACE_MAX_DUMP_BYTES raises the "
                 "bound); not read",
                 (unsigned long long)st->st_size, (unsigned long long)max);
        why = size_msg;
    }
    if (why) {
        fr_fail(err, "%s", why);
        close(fd);
        return -1;
    }
    return fd;
}

/* Reads fd to its end into buf, at most max bytes; the length, or -1 with err set. */
static long read_all(int fd, size_t want, uint64_t max, fa_file_buffer *buf, fr_error *err) {
    size_t n = 0;
    for (;;) {
        if (n + 1 >= buf->cap || want > buf->cap) {
            size_t need = want > n + 2 ? want : n + 2;
            if (!grow(buf, need)) {
                fr_fail(err, "out of memory reading %zu bytes", want ? want - 1 : n);
                return -1;
            }
        }
        ssize_t got = read(fd, buf->bytes + n, buf->cap - 1 - n);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) {
            fr_fail(err, "read error: %s", strerror(errno));
            return -1;
        }
        if (got == 0) break;
        n += (size_t)got;
        if ((uint64_t)n > max) {
            fr_fail(err, "grew past %llu bytes while read; not a dump", (unsigned long long)max);
            return -1;
        }
    }
    return (long)n;
}

long fa_read_whole_file(const char *path, fa_file_buffer *buf, fr_error *err) {
    uint64_t max = fa_max_dump_bytes();
    struct stat st;
    int fd = open_regular(path, max, &st, err);
    if (fd < 0) return -1;
    long n = read_all(fd, st.st_size > 0 ? (size_t)st.st_size + 1 : 0, max, buf, err);
    close(fd);
    if (n == 0) fr_fail(err, "empty file");
    if (n <= 0) return -1;
    buf->bytes[n] = '\0';
    return n;
}

void fa_file_buffer_free(fa_file_buffer *buf) {
    free(buf->bytes);
    buf->bytes = NULL;
    buf->cap = 0;
}
