/* pickle_text.c — the text inside a pickle, as Python decodes it (see pickle_text.h): UTF-8
 * with surrogates allowed, protocol 0's raw-unicode-escape and bytes literals, and decimal
 * integers. Each answers with a pt_result (or a code), never a message: the machine knows the
 * opcode and the byte, and says them.
 */
#include "pickle_text.h"

#include <string.h>

#include "safe_text.h"

/* --- UTF-8 ------------------------------------------------------------------------------------ */

/* Length of the valid UTF-8 sequence at s[0..n) (surrogates allowed), or 0 when invalid. */
static size_t utf8_sequence(const uint8_t *s, size_t n) {
    uint8_t c = s[0];
    if (c < 0x80) return 1;
    size_t len;
    uint8_t lo = 0x80, hi = 0xBF;
    if (c >= 0xC2 && c <= 0xDF)
        len = 2;
    else if (c >= 0xE0 && c <= 0xEF)
        len = 3, lo = c == 0xE0 ? 0xA0 : 0x80;
    else if (c >= 0xF0 && c <= 0xF4)
        len = 4, lo = c == 0xF0 ? 0x90 : 0x80, hi = c == 0xF4 ? 0x8F : 0xBF;
    else
        return 0;
    if (n < len || s[1] < lo || s[1] > hi) return 0;
    for (size_t i = 2; i < len; i++)
        if ((s[i] & 0xC0) != 0x80) return 0;
    return len;
}

size_t pickle_utf8_invalid_at(const uint8_t *s, size_t n) {
    size_t i = 0;
    while (i < n) {
        uint64_t w; /* eight ASCII bytes at a time: a 16 384-rank "ranks" text is 100 KB of them */
        if (n - i >= 8 && (memcpy(&w, s + i, 8), !(w & 0x8080808080808080ull))) {
            i += 8;
            continue;
        }
        if (s[i] < 0x80) {
            i++;
            continue;
        }
        size_t l = utf8_sequence(s + i, n - i);
        if (!l) return i;
        i += l;
    }
    return n;
}

/* --- protocol 0's escapes -------------------------------------------------------------------- */

/* Bytes are Latin-1 code points, except that \uXXXX and \UXXXXXXXX are escapes when preceded by
 * an odd number of backslashes. */
pt_result pickle_raw_unicode(const char *s, size_t n, char *out, size_t *len, char *escape) {
    size_t o = 0, i = 0;
    while (i < n) {
        uint8_t c = (uint8_t)s[i];
        if (c != '\\') {
            o += fr_utf8_put((uint8_t *)out + o, c);
            i++;
            continue;
        }
        size_t run = 0;
        while (i + run < n && s[i + run] == '\\') run++;
        for (size_t k = 0; k + 1 < run; k++) out[o++] = '\\';
        i += run - 1; /* at the last backslash of the run */
        bool is_escape = (run & 1) && i + 1 < n && (s[i + 1] == 'u' || s[i + 1] == 'U');
        if (!is_escape) {
            out[o++] = '\\';
            i++;
            continue;
        }
        *escape = s[i + 1];
        size_t digits = s[i + 1] == 'u' ? 4 : 8;
        if (n - (i + 2) < digits) return PT_TRUNCATED_ESCAPE;
        uint32_t cp = 0;
        for (size_t k = 0; k < digits; k++) {
            int d = fr_hex_digit(s[i + 2 + k]);
            if (d < 0) return PT_BAD_ESCAPE;
            cp = cp << 4 | (uint32_t)d;
        }
        if (cp > 0x10FFFF) return PT_BEYOND_UNICODE;
        o += fr_utf8_put((uint8_t *)out + o, cp); /* an escape of 6 or 10 bytes yields at most 4 */
        i += 2 + digits;
    }
    out[o] = '\0';
    *len = o;
    return PT_OK;
}

pt_result pickle_escape_decode(const char *s, size_t n, char *out, size_t *len) {
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] != '\\') {
            out[o++] = s[i];
            continue;
        }
        if (++i == n) return PT_TRAILING_BACKSLASH;
        char c = s[i];
        static const char simple_from[] = "\\'\"abfnrtv", simple_to[] = "\\'\"\a\b\f\n\r\t\v";
        const char *hit = c ? strchr(simple_from, c) : NULL;
        if (hit) {
            out[o++] = simple_to[hit - simple_from];
        } else if (c == '\n') {
            /* line continuation: nothing */
        } else if (c >= '0' && c <= '7') {
            unsigned v = (unsigned)(c - '0');
            for (int k = 0; k < 2 && i + 1 < n && s[i + 1] >= '0' && s[i + 1] <= '7'; k++)
                v = v * 8 + (unsigned)(s[++i] - '0');
            out[o++] = (char)(v & 0xFF);
        } else if (c == 'x') {
            int hi = i + 1 < n ? fr_hex_digit(s[i + 1]) : -1,
                lo = i + 2 < n ? fr_hex_digit(s[i + 2]) : -1;
            if (hi < 0 || lo < 0) return PT_BAD_HEX_ESCAPE;
            out[o++] = (char)(hi * 16 + lo), i += 2;
        } else {
            out[o++] = '\\';
            out[o++] = c;
        }
    }
    *len = o;
    return PT_OK;
}

/* --- numbers ---------------------------------------------------------------------------------- */

int pickle_parse_decimal(const char *s, size_t n, bool trailing_l, int64_t *out) {
    if (trailing_l && n && s[n - 1] == 'L') n--;
    size_t i = 0;
    bool neg = false;
    if (i < n && (s[i] == '-' || s[i] == '+')) neg = s[i++] == '-';
    if (i == n) return -1;
    uint64_t limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX, v = 0;
    for (; i < n; i++) {
        if (s[i] < '0' || s[i] > '9') return -1;
        unsigned d = (unsigned)(s[i] - '0');
        if (v > (limit - d) / 10) return -2;
        v = v * 10 + d;
    }
    if (!neg)
        *out = (int64_t)v;
    else
        *out = v == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v;
    return 0;
}
