/* json_text.c — escaping strings and formatting numbers as JSON (see json_text.h).
 *
 * Escaping walks the string once: a run of bytes that need no escape goes out whole, an escape
 * is built in a small buffer. In ascii mode a non-ASCII character is first decoded from UTF-8
 * (surrogates allowed, as pickle's 'surrogatepass' keeps them) so that it can be written as its
 * code point. Floats: see json_text.h; the digits come from printf's %.*e, the layout is ours.
 * Ints are inline in json_text.h (the database writes millions).
 */
#include "json_text.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- strings --------------------------------------------------------------------------------- */

static size_t u_escape(uint32_t unit, char *out) {
    static const char hex[] = "0123456789abcdef";
    out[0] = '\\';
    out[1] = 'u';
    out[2] = hex[(unit >> 12) & 15];
    out[3] = hex[(unit >> 8) & 15];
    out[4] = hex[(unit >> 4) & 15];
    out[5] = hex[unit & 15];
    return 6;
}

/* The escape of a byte below 0x80 that is not plain: by name where JSON has one. */
static size_t byte_escape(unsigned char c, char *out) {
    char named = 0;
    switch (c) {
    case '"': named = '"'; break;
    case '\\': named = '\\'; break;
    case '\n': named = 'n'; break;
    case '\r': named = 'r'; break;
    case '\t': named = 't'; break;
    case '\b': named = 'b'; break;
    case '\f': named = 'f'; break;
    default: return u_escape(c, out);
    }
    out[0] = '\\';
    out[1] = named;
    return 2;
}

/* Decodes one UTF-8 sequence (surrogates allowed); an invalid byte counts as U+FFFD, so that
 * output stays ASCII whatever the input. */
static uint32_t next_code_point(const unsigned char *s, size_t n, size_t *used) {
    unsigned char c = s[0];
    size_t len = c >= 0xF0 && c <= 0xF4 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 && c <= 0xDF ? 2 : 0;
    if (c >= 0xF5) len = 0;
    if (len == 0 || len > n) {
        *used = 1;
        return 0xFFFD;
    }
    uint32_t cp = c & (0x7F >> len);
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80) {
            *used = 1;
            return 0xFFFD;
        }
        cp = cp << 6 | (s[i] & 0x3F);
    }
    *used = len;
    return cp;
}

void fr_json_escape(const char *str, size_t n, bool ascii, fr_json_put put, void *ctx) {
    const unsigned char *s = (const unsigned char *)str;
    size_t i = 0;
    while (i < n) {
        size_t run = i;
        while (run < n && fr_json_plain(s[run]) && (!ascii || s[run] < 0x7F)) run++;
        if (run > i) {
            put(ctx, str + i, run - i);
            i = run;
            continue;
        }
        char e[12];
        size_t len;
        if (s[i] < 0x80 || !ascii) {
            len = byte_escape(s[i++], e);
        } else {
            size_t used;
            uint32_t cp = next_code_point(s + i, n - i, &used);
            i += used;
            if (cp >= 0x10000) {
                cp -= 0x10000;
                len = u_escape(0xD800 | (cp >> 10), e);
                len += u_escape(0xDC00 | (cp & 0x3FF), e + len);
            } else {
                len = u_escape(cp, e);
            }
        }
        put(ctx, e, len);
    }
}

/* --- floats ---------------------------------------------------------------------------------- */

size_t fr_json_float(double d, int fixed_max, char *out) {
    if (d == 0) return (size_t)sprintf(out, signbit(d) ? "-0.0" : "0.0");
    char sci[40];
    for (int precision = 0; precision < 17; precision++) {
        snprintf(sci, sizeof sci, "%.*e", precision, d);
        if (strtod(sci, NULL) == d) break;
    }
    /* sci is "[-]D[.DDDD]e[+-]XX": collect the digits and the decimal exponent */
    char digits[24];
    size_t nd = 0;
    const char *p = sci;
    bool negative = *p == '-';
    if (negative) p++;
    for (; *p != 'e'; p++)
        if (*p != '.') digits[nd++] = *p;
    while (nd > 1 && digits[nd - 1] == '0') nd--;
    int exp10 = atoi(p + 1);

    char *o = out;
    if (negative) *o++ = '-';
    if (exp10 >= -4 && exp10 <= fixed_max) {
        if (exp10 < 0) {
            *o++ = '0';
            *o++ = '.';
            for (int z = 0; z < -exp10 - 1; z++) *o++ = '0';
            memcpy(o, digits, nd);
            o += nd;
        } else {
            size_t whole = (size_t)exp10 + 1;
            for (size_t i = 0; i < whole; i++) *o++ = i < nd ? digits[i] : '0';
            *o++ = '.';
            if (nd > whole) {
                memcpy(o, digits + whole, nd - whole);
                o += nd - whole;
            } else {
                *o++ = '0';
            }
        }
    } else {
        *o++ = digits[0];
        if (nd > 1) {
            *o++ = '.';
            memcpy(o, digits + 1, nd - 1);
            o += nd - 1;
        }
        o += sprintf(o, "e%c%02d", exp10 < 0 ? '-' : '+', abs(exp10));
    }
    *o = '\0';
    return (size_t)(o - out);
}

static void put_file(void *ctx, const char *bytes, size_t len) { fwrite(bytes, 1, len, ctx); }

void fr_json_fputs(FILE *out, const char *s) {
    if (s) fr_json_escape(s, strlen(s), false, put_file, out);
}
