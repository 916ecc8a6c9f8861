/* json_text.c — escaping strings and formatting numbers as JSON (see json_text.h).
 *
 * Escaping walks the string once: a run of bytes that need no escape goes out whole, an escape
 * is built in a small buffer. Non-ASCII text is decoded by safe_text.h's fr_text_next (UTF-8 with
 * surrogates allowed, as pickle's 'surrogatepass' keeps them), so that whatever bytes a string
 * holds, the JSON is valid UTF-8 and Python's json reads back what Python would have meant. Floats:
 * see json_text.h; the digits come from printf's %.*e, the layout is ours. Ints are inline in
 * json_text.h (the database writes millions).
 */
#include "json_text.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "safe_text.h"

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

/* The escape of a character that JSON text must not hold as it is, or that could act on a
 * terminal showing the JSON (see safe_text.h); in ascii mode every non-ASCII character too. */
static size_t char_escape(const fr_char *c, bool ascii, char *out) {
    switch (c->kind) {
    case FR_CH_NUL: return u_escape(0, out);
    case FR_CH_BAD_BYTE: return u_escape(0xDC00 | c->cp, out); /* Python's surrogateescape */
    case FR_CH_PLAIN:
        if (!ascii) return 0;
        if (c->cp >= 0x10000) {
            uint32_t v = c->cp - 0x10000;
            size_t len = u_escape(0xD800 | (v >> 10), out);
            return len + u_escape(0xDC00 | (v & 0x3FF), out + len);
        }
        return u_escape(c->cp, out);
    default: return u_escape(c->cp, out); /* C1 controls, format characters, surrogates */
    }
}

void fr_json_escape(const char *str, size_t n, bool ascii, fr_json_put put, void *ctx) {
    const unsigned char *s = (const unsigned char *)str;
    size_t i = 0;
    while (i < n) {
        size_t run = i;
        fr_char c = { FR_CH_PLAIN, 0 };
        size_t used = 0, len = 0;
        char e[16];
        while (run < n) {
            if (fr_json_plain(s[run]) && s[run] < 0x7F) {
                run++;
                continue;
            }
            if (s[run] < 0x80) break;
            used = fr_text_next(s + run, n - run, &c);
            if ((len = char_escape(&c, ascii, e)) != 0) break;
            run += used;
        }
        if (run > i) put(ctx, str + i, run - i);
        if (run >= n) return;
        if (s[run] < 0x80) {
            len = byte_escape(s[run], e);
            used = 1;
        }
        put(ctx, e, len);
        i = run + used;
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
