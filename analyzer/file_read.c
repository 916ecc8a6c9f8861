/* file_read.c — the whole-file reader of file_read.h.
 *
 * One fread per buffer-full: a short count from fread means end of file or an error, so a
 * regular file whose size fstat told us is read in a single call. The buffer keeps one byte
 * spare for the NUL after the data.
 */
#include "file_read.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_FILE_SIZE ((uint64_t)64 << 30)

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

/* The size to read in one go: the file's own size plus the NUL, when fstat knows it. */
static size_t expected_size(const struct stat *st) {
    if (S_ISREG(st->st_mode) && st->st_size > 0 && (uint64_t)st->st_size <= MAX_FILE_SIZE) return (size_t)st->st_size + 1;
    return 0;
}

long fa_read_whole_file(const char *path, fa_file_buffer *buf, fr_error *err) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err->msg, sizeof err->msg, "%s", strerror(errno));
        return -1;
    }
    struct stat st;
    size_t want = 0;
    if (fstat(fileno(f), &st) == 0) {
        if (S_ISDIR(st.st_mode)) {
            fclose(f);
            snprintf(err->msg, sizeof err->msg, "is a directory");
            return -1;
        }
        want = expected_size(&st);
    }
    size_t n = 0;
    long result = 0;
    for (;;) {
        if (n + 1 >= buf->cap || want > buf->cap) {
            if (!grow(buf, want > n + 2 ? want : n + 2)) {
                snprintf(err->msg, sizeof err->msg, "out of memory reading %zu bytes", buf->cap * 2);
                result = -1;
                break;
            }
        }
        size_t ask = buf->cap - 1 - n;
        size_t got = fread(buf->bytes + n, 1, ask, f);
        n += got;
        if ((uint64_t)n > MAX_FILE_SIZE) {
            snprintf(err->msg, sizeof err->msg, "file larger than 64 GiB");
            result = -1;
            break;
        }
        if (got < ask) {
            if (ferror(f)) {
                snprintf(err->msg, sizeof err->msg, "read error: %s", strerror(errno));
                result = -1;
            }
            break;
        }
    }
    fclose(f);
    if (result == 0 && n == 0) {
        snprintf(err->msg, sizeof err->msg, "empty file");
        result = -1;
    }
    if (result < 0) return -1;
    buf->bytes[n] = '\0';
    return (long)n;
}

void fa_file_buffer_free(fa_file_buffer *buf) {
    free(buf->bytes);
    buf->bytes = NULL;
    buf->cap = 0;
}
