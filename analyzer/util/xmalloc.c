/* xmalloc.c — the allocation family that dies on out-of-memory (see xmalloc.h for which memory
 * uses it and why). Each wrapper calls the C library and, on NULL, says how much was asked for
 * and exits with status 2. A zero-byte request asks for one byte, so that NULL always means
 * failure.
 */
#include "util/xmalloc.h"
#include "grow.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

_Noreturn void x_out_of_memory(size_t size) {
    fprintf(stderr, "frtrace: out of memory (%zu bytes)\n", size);
    exit(2);
}

void *xmalloc(size_t size) {
    void *p = malloc(size ? size : 1);
    if (!p) x_out_of_memory(size);
    return p;
}

void *xcalloc(size_t n, size_t size) {
    if (n && size > SIZE_MAX / n) x_out_of_memory(SIZE_MAX);
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p) x_out_of_memory(n * size);
    return p;
}

void *xrealloc(void *old, size_t size) {
    void *p = realloc(old, size ? size : 1);
    if (!p) x_out_of_memory(size);
    return p;
}

char *xstrdup(const char *s) {
    char *p = strdup(s);
    if (!p) x_out_of_memory(strlen(s) + 1);
    return p;
}

char *xvasprintf(const char *fmt, va_list ap) {
    char *text = NULL;
    va_list copy;
    va_copy(copy, ap);
    int n = vsnprintf(NULL, 0, fmt, copy);
    va_end(copy);
    if (n < 0 || vasprintf(&text, fmt, ap) < 0) x_out_of_memory(n < 0 ? 0 : (size_t)n + 1);
    return text;
}

char *xasprintf(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    char *text = xvasprintf(fmt, ap);
    va_end(ap);
    return text;
}

void xgrow(void **v, size_t *cap, size_t need, size_t size, size_t first) {
    if (fr_grow(v, cap, need, size, first) == 0) return;
    size_t items = fr_grown_cap(*cap, need, first);
    x_out_of_memory(items > SIZE_MAX / size ? SIZE_MAX : items * size);
}
