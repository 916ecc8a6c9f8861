/* output_file.c — -o FILE and stdout, with their failures said (see output_file.h). */
#include "cli/output_file.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomic_file.h"
#include "safe_text.h"

/* It exists and is not a regular file (/dev/null, /dev/stdout, a FIFO): written in place. */
static bool in_place(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 && !S_ISREG(st.st_mode);
}

/* "frtrace: PATH: what (why)", and for a file written through a temporary one, that the
 * previous file was not touched. */
static void say_failed(const char *path, const char *what, int err, bool atomic) {
    fputs("frtrace: ", stderr);
    fr_text_fputs(stderr, path);
    fprintf(stderr, ": %s (%s)%s\n", what, err ? strerror(err) : "error",
            atomic ? "; the previous file, if any, is left as it was" : "");
}

/* Runs fn into out and closes out; 0, or -1 with errno saying why. */
static int run_and_close(FILE *out, fa_output_fn fn, void *ctx) {
    errno = 0;
    int rc = fn(ctx, out);
    int saved = errno;
    if (fflush(out) != 0 || ferror(out)) rc = -1, saved = errno;
    if (fclose(out) != 0 && rc == 0) rc = -1, saved = errno;
    errno = saved;
    return rc;
}

/* Through a FILE on a copy of fd: closing it leaves fd to the atomic file. */
static int write_through(int fd, fa_output_fn fn, void *ctx) {
    int copy = dup(fd);
    FILE *out = copy >= 0 ? fdopen(copy, "w") : NULL;
    if (!out) {
        if (copy >= 0) close(copy);
        return -1;
    }
    return run_and_close(out, fn, ctx);
}

static int write_in_place(const char *path, fa_output_fn fn, void *ctx) {
    FILE *out = fopen(path, "w");
    if (!out) {
        say_failed(path, "cannot write", errno, false);
        return -1;
    }
    int rc = run_and_close(out, fn, ctx);
    if (rc) say_failed(path, "write failed", errno, false);
    return rc;
}

int fa_output_write(const char *path, fa_output_fn fn, void *ctx) {
    if (strcmp(path, "-") == 0) {
        int rc = fn(ctx, stdout);
        return fa_output_stdout_done() != 0 ? -1 : rc;
    }
    if (in_place(path)) return write_in_place(path, fn, ctx);
    fr_atomic_file f;
    fr_error err;
    if (fr_atomic_open(&f, path, 0666, &err) != 0) {
        int saved = errno;
        fputs("frtrace: ", stderr);
        fr_text_fputs(stderr, path);
        fprintf(stderr, ": cannot write: %s (%s)\n", err.msg, strerror(saved));
        return -1;
    }
    if (write_through(f.fd, fn, ctx) != 0) {
        int saved = errno;
        fr_atomic_abort(&f);
        say_failed(path, "write failed", saved, true);
        return -1;
    }
    if (fr_atomic_commit(&f, &err) != 0) {
        say_failed(path, err.msg, errno, true);
        return -1;
    }
    return 0;
}

int fa_output_stdout_done(void) {
    errno = 0;
    if (fflush(stdout) == 0 && !ferror(stdout)) return 0;
    int saved = errno;
    if (!saved) { /* failed earlier, errno since lost: one more byte says why (EPIPE, ENOSPC) */
        clearerr(stdout);
        if (fputc('\n', stdout) == EOF || fflush(stdout) != 0) saved = errno;
    }
    fprintf(stderr, "frtrace: error writing to standard output: %s\n",
            saved ? strerror(saved) : "write failed");
    return -1;
}
