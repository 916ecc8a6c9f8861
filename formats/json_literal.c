/* json_literal.c — what a JSON literal means, exactly as the generic path reads it (json_read.c
 * over cJSON: its escapes, strtoll's integers, strtod's floats), for the direct path
 * (dump_json_fast.c), which must decode what it accepts to the same bytes and numbers.
 *
 * Strings: the escapes cJSON takes (\u0000 a NUL byte, a lone surrogate its three-byte form, a
 * surrogate pair one code point). Numbers: the token json_read tells ints from floats by (no
 * fraction, no exponent: an int), integers within 64 bits, and floats by Clinger's fast path
 * (exact_float) where it is exact, else by strtod itself. Pure functions over the bytes; the
 * hot integer reader stays in dump_json_fast.c, where it is inlined.
 */
#include "json_literal.h"

#include <float.h>
#include <stdlib.h>
#include <string.h>

#include "safe_text.h"

/* --- strings ------------------------------------------------------------------------------- */

/* The four hex digits at s (room checked by the caller), or -1. */
static int hex4(const uint8_t *s) {
    int v = 0;
    for (int i = 0; i < 4; i++) {
        int d = fr_hex_digit(s[i]);
        if (d < 0) return -1;
        v = v * 16 + d;
    }
    return v;
}

/* One \u escape at q (the backslash), as cJSON behind json_read's rewriting reads it: a
 * surrogate pair is one code point, \u0000 a NUL byte, a lone surrogate its three-byte form.
 * Writes the bytes at out; returns the escape's length in the input, 0 when malformed. */
size_t json_unicode_escape(const uint8_t *q, const uint8_t *end, char *out, size_t *wrote) {
    int unit = end - q >= 6 ? hex4(q + 2) : -1;
    if (unit < 0) return 0;
    if (unit >= 0xD800 && unit <= 0xDBFF && end - q >= 12 && q[6] == '\\' && q[7] == 'u') {
        int low = hex4(q + 8);
        if (low >= 0xDC00 && low <= 0xDFFF) {
            *wrote = fr_utf8_put((uint8_t *)out, 0x10000 + (((uint32_t)unit - 0xD800) << 10) +
                                                     ((uint32_t)low - 0xDC00));
            return 12;
        }
    }
    *wrote = fr_utf8_put((uint8_t *)out, (uint32_t)unit); /* lone surrogates too: ED A0..BF xx */
    return 6;
}

/* The escapes cJSON takes besides \u. */
int json_simple_escape(uint8_t c) {
    switch (c) {
    case '"': return '"';
    case '\\': return '\\';
    case '/': return '/';
    case 'b': return '\b';
    case 'f': return '\f';
    case 'n': return '\n';
    case 'r': return '\r';
    case 't': return '\t';
    default: return -1;
    }
}

/* The closing quote of the string whose text starts at q, escapes stepped over; NULL: none. */
const uint8_t *json_closing_quote(const uint8_t *q, const uint8_t *end) {
    for (; q < end && *q != '"'; q++)
        if (*q == '\\' && ++q == end) return NULL;
    return q < end ? q : NULL;
}

/* --- numbers ------------------------------------------------------------------------------- */

/* The JSON number token at start: its length (0: none) and whether it is an integer
 * literal (no fraction, no exponent), as json_read tells ints from floats. What follows it
 * is the caller's to check (a digit after a leading 0, a '.' without digits: a separator is
 * missing, and the caller declines). */
size_t json_number_token(const uint8_t *start, const uint8_t *end, bool *integral) {
    const uint8_t *p = start;
    if (p < end && *p == '-') p++;
    if (p == end || !json_is_digit(*p)) return 0;
    if (*p++ != '0')
        while (p < end && json_is_digit(*p)) p++;
    *integral = true;
    if (end - p >= 2 && *p == '.' && json_is_digit(p[1])) {
        *integral = false;
        for (p++; p < end && json_is_digit(*p);) p++;
    }
    if (p < end && (*p == 'e' || *p == 'E')) {
        const uint8_t *x = p + 1;
        if (x < end && (*x == '+' || *x == '-')) x++;
        if (x < end && json_is_digit(*x)) {
            *integral = false;
            while (x < end && json_is_digit(*x)) x++;
            p = x;
        }
    }
    return (size_t)(p - start);
}

/* An integer literal of `len` bytes at s into *out, as strtoll reads it; false when it does
 * not fit in 64 bits (json_read's error). */
bool json_integer_value(const uint8_t *s, size_t len, int64_t *out) {
    bool negative = s[0] == '-';
    size_t i = negative;
    if (len - i > 19) return false;
    uint64_t v = 0;
    for (; i < len; i++) v = v * 10 + (uint64_t)(s[i] - '0');
    if (v > (uint64_t)INT64_MAX + negative) return false;
    *out = negative ? (int64_t)(0 - v) : (int64_t)v;
    return true;
}

static const double POW10[] = { 1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22 };

/* A decimal literal of at most 19 digits with a mantissa below 2^53 and a power of ten within
 * 10^22 is one exact integer times or over one exact power of ten: a single rounding, the
 * correctly rounded result, which is what strtod gives (Clinger's fast path). false: not such
 * a literal (strtod must read it). Only where doubles are evaluated as doubles. */
static bool exact_float(const uint8_t *s, size_t len, double *out) {
#if FLT_EVAL_METHOD == 0
    size_t i = s[0] == '-';
    uint64_t m = 0;
    int digits = 0, scale = 0;
    bool fraction = false;
    for (; i < len && (json_is_digit(s[i]) || s[i] == '.'); i++) {
        if (s[i] == '.') {
            fraction = true;
            continue;
        }
        if (++digits > 19) return false;
        m = m * 10 + (uint64_t)(s[i] - '0');
        scale -= fraction;
    }
    if (i < len) { /* the exponent */
        i++;
        bool negative = s[i] == '-';
        i += s[i] == '-' || s[i] == '+';
        if (len - i > 3) return false;
        int e = 0;
        for (; i < len; i++) e = e * 10 + (s[i] - '0');
        scale += negative ? -e : e;
    }
    if (m > (1ull << 53) || scale < -22 || scale > 22) return false;
    double v = scale < 0 ? (double)m / POW10[-scale] : (double)m * POW10[scale];
    *out = s[0] == '-' ? -v : v;
    return true;
#else
    (void)s, (void)len, (void)out;
    return false;
#endif
}

/* The number at p as json_read makes it: *is_int with *i for an integer literal, else *d as
 * strtod reads the literal. Its length; 0: none, or an integer past 64 bits. */
size_t json_number(const uint8_t *p, const uint8_t *end, bool *is_int, int64_t *i, double *d) {
    size_t len = json_number_token(p, end, is_int);
    if (!len) return 0;
    if (*is_int) {
        if (!json_integer_value(p, len, i)) return 0;
    } else if (!exact_float(p, len, d)) {
        char number[64]; /* the literal for strtod */
        if (len >= sizeof number) return 0;
        memcpy(number, p, len);
        number[len] = '\0';
        *d = strtod(number, NULL); /* overflow gives ±inf, as in json_read */
    }
    return len;
}
