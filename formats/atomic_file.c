/* atomic_file.c — exclusive temporary file, fsync, rename (see atomic_file.h).
 *
 * Names: 64 random bits from getrandom (GRND_NONBLOCK: never waits for the entropy pool; when
 * it fails, the clock, the pid, the caller's struct's address and the attempt, mixed). Their only
 * purpose is that another process cannot guess the next name and make us retry forever: O_EXCL
 * already makes a planted file or link harmless. Messages are copied without stdio (fr_fail_text),
 * so that the fatal-signal path can report too.
 */
#include "atomic_file.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h> /* renameat */
#include <string.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "mix64.h"

enum { NAME_TRIES = 64 };

static uint64_t random_bits(const void *salt, int attempt) {
    uint64_t r;
    if (getrandom(&r, sizeof r, GRND_NONBLOCK) == (ssize_t)sizeof r) return r;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    r = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
    r ^= (uint64_t)getpid() << 40 ^ (uint64_t)(uintptr_t)salt;
    return fr_mix64(r + (uint64_t)attempt);
}

/* ".frtrace-" + 16 hex digits + ".tmp" */
static void temporary_name(char *out, uint64_t bits) {
    static const char hex[] = "0123456789abcdef";
    static const char head[] = ".frtrace-";
    memcpy(out, head, sizeof head - 1);
    char *p = out + sizeof head - 1;
    for (int i = 15; i >= 0; i--) *p++ = hex[(bits >> (4 * i)) & 15];
    memcpy(p, ".tmp", 5);
}

static uint64_t file_size_cap(void) {
    struct rlimit rl;
    if (getrlimit(RLIMIT_FSIZE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY) return UINT64_MAX;
    return (uint64_t)rl.rlim_cur;
}

int fr_atomic_open_at(fr_atomic_file *f, int dir_fd, const char *name, mode_t mode, fr_error *err) {
    f->dir_fd = dir_fd;
    f->owns_dir = false;
    f->fd = -1;
    f->name = name;
    f->written = 0;
    f->size_cap = file_size_cap();
    f->tmp[0] = '\0';
    if (name[0] == '\0' || strchr(name, '/')) {
        errno = EISDIR;
        return fr_fail_text(err, "not a file name (empty, or ends with '/')");
    }
    long name_max = fpathconf(dir_fd, _PC_NAME_MAX);
    if (name_max > 0 && strlen(name) > (size_t)name_max) {
        errno = ENAMETOOLONG;
        return fr_fail_text(err, "file name longer than the file system allows");
    }
    for (int attempt = 0; attempt < NAME_TRIES; attempt++) {
        temporary_name(f->tmp, random_bits(f, attempt));
        f->fd = openat(dir_fd, f->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
        if (f->fd >= 0) return 0;
        if (errno != EEXIST) break;
    }
    int saved = errno;
    f->tmp[0] = '\0';
    errno = saved;
    return fr_fail_text(err, saved == EEXIST ? "no free temporary name in the directory"
                                             : "cannot create a file in its directory");
}

/* The directory `name` in dir_fd, read-only, or as a bare path handle where it may not be read
 * (an *at() call works through either). */
static int open_below(int dir_fd, const char *name) {
    int fd = openat(dir_fd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0 && errno == EACCES) fd = openat(dir_fd, name, O_PATH | O_DIRECTORY | O_CLOEXEC);
    return fd;
}

int fr_dir_open(const char *path, size_t len, bool create) {
    int fd = open_below(AT_FDCWD, len > 0 && path[0] == '/' ? "/" : ".");
    size_t i = 0;
    while (fd >= 0 && i < len) {
        while (i < len && path[i] == '/') i++;
        size_t start = i;
        while (i < len && path[i] != '/') i++;
        if (i == start) break;
        char name[NAME_MAX + 1];
        if (i - start > NAME_MAX) {
            close(fd);
            errno = ENAMETOOLONG;
            return -1;
        }
        memcpy(name, path + start, i - start);
        name[i - start] = '\0';
        if (create) mkdirat(fd, name, 0777); /* EEXIST is fine; another error shows next */
        int next = open_below(fd, name);
        int saved = errno;
        close(fd);
        errno = saved;
        fd = next;
    }
    return fd;
}

int fr_atomic_open(fr_atomic_file *f, const char *path, mode_t mode, fr_error *err) {
    const char *slash = strrchr(path, '/');
    size_t dlen = !slash ? 0 : slash == path ? 1 : (size_t)(slash - path);
    int dir_fd = fr_dir_open(path, dlen, false);
    if (dir_fd < 0) return fr_fail_text(err, "cannot open its directory");
    if (fr_atomic_open_at(f, dir_fd, slash ? slash + 1 : path, mode, err) != 0) {
        int saved = errno;
        close(dir_fd);
        errno = saved;
        return -1;
    }
    f->owns_dir = true;
    return 0;
}

int fr_atomic_write(fr_atomic_file *f, const void *bytes, size_t len) {
    const uint8_t *p = bytes;
    if (f->fd < 0) {
        errno = EBADF;
        return -1;
    }
    if (len > f->size_cap - f->written || f->written > f->size_cap) {
        errno = EFBIG; /* SIGXFSZ would kill the host: fail before the limit instead */
        return -1;
    }
    while (len > 0) {
        ssize_t n = write(f->fd, p, len);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            if (n == 0) errno = EIO;
            return -1;
        }
        p += n;
        len -= (size_t)n;
        f->written += (uint64_t)n;
    }
    return 0;
}

static void close_dir(fr_atomic_file *f) {
    if (f->owns_dir && f->dir_fd >= 0) close(f->dir_fd);
    f->owns_dir = false;
    f->dir_fd = -1;
}

void fr_atomic_abort(fr_atomic_file *f) {
    int saved = errno;
    if (f->fd >= 0) close(f->fd);
    f->fd = -1;
    if (f->tmp[0] && f->dir_fd >= 0) unlinkat(f->dir_fd, f->tmp, 0);
    f->tmp[0] = '\0';
    close_dir(f);
    errno = saved;
}

int fr_atomic_commit(fr_atomic_file *f, fr_error *err) {
    if (f->fd < 0) {
        errno = EBADF;
        return fr_fail_text(err, "no file open");
    }
    const char *failed = NULL;
    if (fsync(f->fd) != 0 && errno != EINVAL && errno != EROFS) failed = "write failed (fsync)";
    int fd = f->fd;
    f->fd = -1;
    if (close(fd) != 0 && !failed) failed = "write failed (close)";
    if (!failed && renameat(f->dir_fd, f->tmp, f->dir_fd, f->name) != 0)
        failed = "cannot rename the temporary file over it";
    if (failed) {
        int saved = errno;
        fr_atomic_abort(f);
        errno = saved;
        return fr_fail_text(err, failed);
    }
    f->tmp[0] = '\0';
    fsync(f->dir_fd); /* the rename itself on disk; a directory opened O_PATH says EBADF */
    close_dir(f);
    return 0;
}
