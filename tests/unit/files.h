/* files.h — the unit tests' way to read a shared dump: the analyzer's own whole-file reader
 * (file_read.h), returning a malloc'd buffer the test frees, or NULL when the file is absent
 * (then the test skips: ../shared is not always beside the project). */
#ifndef FRTRACE_TEST_FILES_H
#define FRTRACE_TEST_FILES_H

#include <stdint.h>

#include "load/file_read.h"

static inline uint8_t *slurp(const char *path, size_t *len) {
    fa_file_buffer file = { 0 };
    fr_error err;
    *len = 0;
    long n = fa_read_whole_file(path, &file, &err);
    if (n < 0) {
        fa_file_buffer_free(&file);
        return NULL;
    }
    *len = (size_t)n;
    return file.bytes;
}

#endif
