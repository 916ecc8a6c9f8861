/* utf8.h — the strict UTF-8 check Python applies when it opens a text file (no overlong forms,
 * no surrogates, nothing past U+10FFFF), shared by json_read.c and the direct JSON path
 * (dump_json_fast.c), which must accept exactly the same bytes. pickle_read.c checks with
 * surrogates allowed (Python's surrogatepass), a different rule, and keeps its own.
 */
#ifndef FRTRACE_UTF8_H
#define FRTRACE_UTF8_H

#include <stddef.h>
#include <stdint.h>

/* The length of the multi-byte sequence at s[0..n) (s[0] >= 0x80), or 0 when it is not one. */
static inline size_t fr_utf8_sequence(const uint8_t *s, size_t n) {
    uint8_t c = s[0], lo = 0x80, hi = 0xBF;
    size_t len;
    if (c >= 0xC2 && c <= 0xDF)
        len = 2;
    else if (c >= 0xE0 && c <= 0xEF)
        len = 3, lo = c == 0xE0 ? 0xA0 : 0x80, hi = c == 0xED ? 0x9F : 0xBF;
    else if (c >= 0xF0 && c <= 0xF4)
        len = 4, lo = c == 0xF0 ? 0x90 : 0x80, hi = c == 0xF4 ? 0x8F : 0xBF;
    else
        return 0;
    if (n < len || s[1] < lo || s[1] > hi) return 0;
    for (size_t k = 2; k < len; k++)
        if ((s[k] & 0xC0) != 0x80) return 0;
    return len;
}

#endif
