/* file_read.h — reading one whole input file, the same way for `frtrace show` and the loader.
 *
 * The bytes land in a caller-owned buffer that grows as needed and is reused from file to file:
 * a loader thread reads thousands of dumps, and a fresh allocation per file would fault in fresh
 * pages every time. The buffer is sized from fstat when the file is regular, and the bytes are
 * always followed by a NUL (the JSON reader wants text). The file is opened without blocking and
 * fstat'ed first: anything but a regular file (a directory, a FIFO, a device), an empty file, a
 * file larger than fa_max_dump_bytes() and read errors are refused with a message for the user
 * (the caller adds the path), before any byte is read.
 */
#ifndef FRTRACE_FILE_READ_H
#define FRTRACE_FILE_READ_H

#include <stddef.h>
#include <stdint.h>

#include "value.h"

typedef struct fa_file_buffer {
    uint8_t *bytes;
    size_t cap;
} fa_file_buffer;

/* Reads the file at `path` into buf->bytes; returns its length, or -1 with `err` set. */
long fa_read_whole_file(const char *path, fa_file_buffer *buf, fr_error *err);
void fa_file_buffer_free(fa_file_buffer *buf);

/* The largest file taken for a dump: FRTRACE_MAX_DUMP_BYTES (bytes, or with a K, M or G suffix)
 * when set and valid, else 576 MiB (65 536 entries of 8 KiB, plus 64 MiB of header). */
uint64_t fa_max_dump_bytes(void);

#endif
