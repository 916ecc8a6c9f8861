/* pickle_text.h — the text inside a pickle, decoded as Python decodes it: UTF-8 with surrogates
 * allowed (Python's 'surrogatepass', for BINUNICODE and its kin) and protocol 0's literals:
 * raw-unicode-escape (UNICODE), Python bytes literals (STRING) and decimal integers (INT, LONG,
 * PUT, GET). Pure functions over bytes: the machine (pickle_read.c) turns their answers into
 * messages that name the opcode and the byte it stands at.
 */
#ifndef FRTRACE_PICKLE_TEXT_H
#define FRTRACE_PICKLE_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Offset of the first byte that is not UTF-8 (surrogatepass), or n when all are. */
size_t pickle_utf8_invalid_at(const uint8_t *s, size_t n);

/* Why a protocol-0 literal does not decode. */
typedef enum {
    PT_OK,
    PT_TRUNCATED_ESCAPE,   /* a \u or \U escape with fewer digits than it needs */
    PT_BAD_ESCAPE,         /* a \u or \U escape with a digit that is not hex */
    PT_BEYOND_UNICODE,     /* a \U escape past U+10FFFF */
    PT_TRAILING_BACKSLASH, /* a bytes literal ending in a lone backslash */
    PT_BAD_HEX_ESCAPE,     /* \x without two hex digits */
} pt_result;

/* UNICODE's raw-unicode-escape: s[0..n) into out (room for 2n + 1 bytes), NUL-terminated, its
 * length in *len; *escape is the letter (u or U) of the escape a failure is about. */
pt_result pickle_raw_unicode(const char *s, size_t n, char *out, size_t *len, char *escape);

/* STRING's bytes literal, without its quotes, as codecs.escape_decode reads it: s[0..n) into
 * out (room for n bytes), its length in *len. */
pt_result pickle_escape_decode(const char *s, size_t n, char *out, size_t *len);

/* Decimal integer with optional sign (and trailing 'L' when allowed). 0 ok, -1 bad, -2 range. */
int pickle_parse_decimal(const char *s, size_t n, bool trailing_l, int64_t *out);

#endif
