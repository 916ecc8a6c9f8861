/* atomic_file.h — a file written whole or not at all, never through a planted link.
 *
 * Every file frtrace writes (the analyzer's database and stats/timeline with -o, the recorder's
 * dumps) goes through here: a temporary file is created in the target's own directory under a
 * random name (".frtrace-XXXXXXXXXXXXXXXX.tmp", from getrandom) with O_CREAT|O_EXCL|O_NOFOLLOW,
 * so that nothing already at that name — a symbolic link planted by someone who can write the
 * directory, a file of the same name — is ever opened or followed (EEXIST: another random name).
 * The data is written, fsync'ed, and renamed over the target (renameat replaces a link at the
 * target itself, never what it points to); the directory is fsync'ed after. A reader sees the
 * old file or the new one, never half of one, and a failed write leaves the old file as it was.
 * The temporary name does not grow with the target's, so a target name of the file system's
 * full length (255 bytes) works.
 *
 * fr_atomic_open_at, fr_atomic_write, fr_atomic_commit and fr_atomic_abort use only system calls
 * (no malloc, no stdio) and are async-signal-safe: the recorder writes its fatal-signal dump
 * with them. fr_atomic_write never writes past RLIMIT_FSIZE: a dump that would not fit fails with
 * EFBIG instead of raising SIGXFSZ, which would kill the host. fr_atomic_open (the analyzer's)
 * opens the directory of a path first. Directories are opened one component at a time
 * (fr_dir_open, also async-signal-safe), so a path of any length works, not only those under
 * PATH_MAX; only each component is bounded (255 bytes).
 */
#ifndef FRTRACE_ATOMIC_FILE_H
#define FRTRACE_ATOMIC_FILE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "error.h"

typedef struct fr_atomic_file {
    int dir_fd;        /* the target's directory */
    bool owns_dir;     /* opened by fr_atomic_open: closed with the file */
    int fd;            /* the temporary file; -1 once committed or aborted */
    const char *name;  /* the target's name in dir_fd (the caller's string) */
    char tmp[32];      /* the temporary file's name in dir_fd */
    uint64_t written;  /* bytes written so far (fr_atomic_write) */
    uint64_t size_cap; /* RLIMIT_FSIZE at open (UINT64_MAX: none) */
} fr_atomic_file;

/* The directory path[0..len) ("" is "."), opened one component at a time with openat (so that
 * no PATH_MAX applies), each component created first when `create` (mode 0777 before the
 * umask; one that exists is fine). A descriptor, or -1 with errno set. */
int fr_dir_open(const char *path, size_t len, bool create);

/* A fresh temporary file for `name` (one path component) in the directory dir_fd, created with
 * `mode` (before the umask). 0, or -1 with err (and errno) set. */
int fr_atomic_open_at(fr_atomic_file *f, int dir_fd, const char *name, mode_t mode, fr_error *err);
/* The same for a path of any length: its directory ("." when it has no '/') is opened first. */
int fr_atomic_open(fr_atomic_file *f, const char *path, mode_t mode, fr_error *err);
/* Writes all of bytes[0..len) (EINTR retried); 0, or -1 with errno set (EFBIG past the
 * file-size limit). */
int fr_atomic_write(fr_atomic_file *f, const void *bytes, size_t len);
/* fsync, close, rename over the target, fsync the directory. 0, or -1 with err and errno set
 * (the temporary file is removed; the target is left as it was). */
int fr_atomic_commit(fr_atomic_file *f, fr_error *err);
/* Closes and removes the temporary file; the target is left as it was. Safe to call twice. */
void fr_atomic_abort(fr_atomic_file *f);

#endif
