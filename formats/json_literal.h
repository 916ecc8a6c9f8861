/* json_literal.h — what a JSON literal means, exactly as the generic path (json_read.c over
 * cJSON, strtoll, strtod) reads it: string escapes and numbers, for the direct JSON path
 * (dump_json_fast.c), which must agree with it byte for byte (json_literal.c).
 */
#ifndef FRTRACE_JSON_LITERAL_H
#define FRTRACE_JSON_LITERAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

static inline bool json_is_digit(int c) { return (unsigned)(c - '0') < 10; }

/* One \u escape at q (the backslash): writes its UTF-8 at out (*wrote bytes, at most 4) and
 * returns the escape's length in the input (6, or 12 for a surrogate pair); 0 when malformed. */
size_t json_unicode_escape(const uint8_t *q, const uint8_t *end, char *out, size_t *wrote);

/* The byte an escape \c other than \u stands for, or -1 when cJSON takes no such escape. */
int json_simple_escape(uint8_t c);

/* The closing quote of the string whose text starts at q, escapes stepped over; NULL: none. */
const uint8_t *json_closing_quote(const uint8_t *q, const uint8_t *end);

/* The JSON number token at start: its length (0: none) and whether it is an integer literal (no
 * fraction, no exponent), as json_read tells ints from floats. What follows it is the caller's
 * to check. */
size_t json_number_token(const uint8_t *start, const uint8_t *end, bool *integral);

/* An integer literal of `len` bytes at s into *out, as strtoll reads it; false when it does not
 * fit in 64 bits (json_read's error). */
bool json_integer_value(const uint8_t *s, size_t len, int64_t *out);

/* The number at p as json_read makes it: *is_int with *i for an integer literal, else *d as
 * strtod reads the literal. Its length; 0: none, or an integer past 64 bits. */
size_t json_number(const uint8_t *p, const uint8_t *end, bool *is_int, int64_t *i, double *d);

#endif
