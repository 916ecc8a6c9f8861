/* json_text.h — the pieces of JSON text every JSON writer in frtrace uses: strings, floats, ints.
 *
 * Three writers speak JSON: json_write.c (`frtrace show`: Python's json.dumps), dump_write.c
 * (dumps as PyTorch's C++ writes them with nlohmann::json) and the analyzer's database writer
 * (report_db.c, cJSON's form). Each keeps its own buffer and layout; the text of a string, a
 * float or an int comes from here, so the three escape and format the same way:
 *   - strings: '"', '\\' and control characters are escaped (\n \r \t \b \f by name, others as
 *     \u00XX, lower-case hex), and so are DEL, C1 controls, bidi and invisible format
 *     characters and lone surrogates (\u202e, \ud800: text from a dump never acts on a terminal
 *     that shows the JSON); a NUL kept inside a string (C0 80, see safe_text.h) is \u0000 and a
 *     byte that is not UTF-8 is \udcXX (Python's surrogateescape), so the text is always valid
 *     UTF-8; with `ascii` (json.dumps' ensure_ascii) also every non-ASCII character, as \uXXXX
 *     (a surrogate pair beyond the BMP); without it other characters pass as they are;
 *   - floats: the shortest decimal that reads back to the same double (printf at 1, 2, ... 17
 *     significant digits, the first that strtod maps back to the same bits), laid out as
 *     CPython's repr: fixed notation for decimal exponents -4 up to `fixed_max`, scientific
 *     otherwise ("1e-05", "1.5e+20"); Python's limit is 15, nlohmann::json's 14;
 *   - ints: decimal, two digits at a time (no stdio: async-signal-safe).
 */
#ifndef FRTRACE_JSON_TEXT_H
#define FRTRACE_JSON_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* An ASCII byte that a JSON string holds as it is (bytes from 0x7F on: see fr_json_escape). */
static inline bool fr_json_plain(unsigned char c) { return c >= 0x20 && c != '"' && c != '\\'; }

/* Where fr_json_escape sends its text: runs of plain bytes whole, each escape on its own. */
typedef void (*fr_json_put)(void *ctx, const char *bytes, size_t len);

/* The body of a JSON string (no quotes) for s[0..n). */
void fr_json_escape(const char *s, size_t n, bool ascii, fr_json_put put, void *ctx);

/* The body of a JSON string for the C string s (NULL: empty) written to out, raw bytes kept. */
void fr_json_fputs(FILE *out, const char *s);

/* Decimal exponents up to which each writer's floats are in fixed notation. */
enum { FR_JSON_FIXED_PYTHON = 15, FR_JSON_FIXED_NLOHMANN = 14 };

/* The shortest round-trip text of a finite d into out (at least 32 bytes, NUL-terminated);
 * returns its length. Zero is "0.0" or "-0.0". */
size_t fr_json_float(double d, int fixed_max, char *out);

/* --- ints (inline: the database writes millions) --- */

static inline unsigned fr_count_digits(uint64_t u) {
    for (unsigned n = 1;; n += 4, u /= 10000) {
        if (u < 10) return n;
        if (u < 100) return n + 1;
        if (u < 1000) return n + 2;
        if (u < 10000) return n + 3;
    }
}

/* The decimal digits of u at `out`, two at a time from the right; returns their count. */
static inline size_t fr_digits_of(uint64_t u, char *out) {
    static const char pairs[] = "0001020304050607080910111213141516171819"
                                "2021222324252627282930313233343536373839"
                                "4041424344454647484950515253545556575859"
                                "6061626364656667686970717273747576777879"
                                "8081828384858687888990919293949596979899";
    unsigned n = fr_count_digits(u);
    char *end = out + n;
    while (u >= 100) {
        unsigned two = (unsigned)(u % 100) * 2;
        u /= 100;
        end -= 2;
        end[0] = pairs[two];
        end[1] = pairs[two + 1];
    }
    if (u >= 10) {
        end[-2] = pairs[u * 2];
        end[-1] = pairs[u * 2 + 1];
    } else {
        end[-1] = (char)('0' + u);
    }
    return n;
}

/* The decimal text of v at out (at least 20 bytes; no NUL); returns its length. */
static inline size_t fr_json_int(int64_t v, char *out) {
    if (v >= 0) return fr_digits_of((uint64_t)v, out);
    out[0] = '-';
    return 1 + fr_digits_of((uint64_t)0 - (uint64_t)v, out + 1);
}

#endif
