/* json_read.c — JSON → values through cJSON (see json_read.h).
 *
 * cJSON keeps every number as a double. That loses the difference between 1 and 1.0 (Python
 * keeps it) and every integer past 2^53 — and Flight Recorder timestamps are nanoseconds since
 * 1970, around 2^60. cJSON also stops at the first NUL of a string and rejects NaN, Infinity and
 * lone surrogate escapes, which Python's json accepts. So before cJSON sees the text, one pass
 * over it (which knows strings from the rest) rewrites:
 *
 *   a number literal   -> a string "\xFF" 'i' <literal> (integer) or "\xFF" 'f' <literal>
 *   NaN / [-]Infinity  -> "\xFF" 'f' <literal>
 *   \u0000 in a string -> the raw bytes FF '0'
 *   a lone \uD800-DFFF -> the raw bytes FF 'u' XXXX
 *
 * The text is checked to be UTF-8 first, so a byte FF can only come from this pass; after
 * cJSON has parsed, the conversion to values turns the markers back (ints parsed exactly, floats
 * with strtod). The same pass counts nesting, to refuse depth past the limit with a clear
 * message, and records where it changed lengths so that cJSON's error positions map back to
 * offsets in the original text.
 */
#include "json_read.h"
#include "json_salvage.h"
#include "grow.h"
#include "utf8.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MARK_BYTE '\xff'

/* --- UTF-8 check (strict, as Python opens a text file) ------------------------------------ */

static size_t utf8_invalid_at(const unsigned char *s, size_t n) {
    size_t i = 0;
    while (i < n) {
        unsigned char c = s[i];
        if (c < 0x80) {
            i++;
            continue;
        }
        size_t len = fr_utf8_sequence(s + i, n - i);
        if (!len) return i;
        i += len;
    }
    return n;
}

/* --- the rewriting pass ------------------------------------------------------------------- */

typedef struct shift {
    size_t new_end, old_end; /* after a rewrite ending here, offsets differ by new_end - old_end */
} shift;

typedef struct rewriter {
    const char *src;
    size_t len, pos;
    char *out;
    size_t out_len, out_cap;
    shift *shifts;
    size_t nshifts, shifts_cap;
    bool failed;
} rewriter;

static void emit(rewriter *r, const char *s, size_t n) {
    if (r->failed) return;
    if (n > SIZE_MAX / 4 - r->out_len ||
        fr_grow((void **)&r->out, &r->out_cap, r->out_len + n, 1, 256)) {
        r->failed = true;
        return;
    }
    memcpy(r->out + r->out_len, s, n);
    r->out_len += n;
}

/* Notes that the text up to src offset `old_end` now ends at the current output length. */
static void note_shift(rewriter *r, size_t old_end) {
    if (r->failed) return;
    if (fr_grow((void **)&r->shifts, &r->shifts_cap, r->nshifts + 1, sizeof *r->shifts, 64)) {
        r->failed = true;
        return;
    }
    r->shifts[r->nshifts++] = (shift){ r->out_len, old_end };
}

static size_t original_offset(const rewriter *r, size_t new_offset) {
    size_t lo = 0, hi = r->nshifts; /* last shift with new_end <= new_offset */
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (r->shifts[mid].new_end <= new_offset)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0) return new_offset;
    const shift *s = &r->shifts[lo - 1];
    return s->old_end + (new_offset - s->new_end);
}

static bool is_digit(char c) { return c >= '0' && c <= '9'; }

/* Length of the JSON number at s[0..n) (0 if none); *integral when it has no fraction/exponent. */
static size_t number_length(const char *s, size_t n, bool *integral) {
    size_t i = 0;
    if (i < n && s[i] == '-') i++;
    if (i < n && s[i] == '0')
        i++;
    else if (i < n && is_digit(s[i]))
        while (i < n && is_digit(s[i])) i++;
    else
        return 0;
    *integral = true;
    if (i + 1 < n && s[i] == '.' && is_digit(s[i + 1])) {
        *integral = false;
        i++;
        while (i < n && is_digit(s[i])) i++;
    }
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        size_t j = i + 1;
        if (j < n && (s[j] == '+' || s[j] == '-')) j++;
        if (j < n && is_digit(s[j])) {
            *integral = false;
            while (j < n && is_digit(s[j])) j++;
            i = j;
        }
    }
    return i;
}

static bool starts_with(const char *s, size_t n, const char *word) {
    size_t w = strlen(word);
    return n >= w && memcmp(s, word, w) == 0;
}

static void emit_marker(rewriter *r, char kind, const char *literal, size_t n) {
    char head[3] = { '"', MARK_BYTE, kind };
    emit(r, head, 3);
    emit(r, literal, n);
    emit(r, "\"", 1);
    note_shift(r, r->pos + n);
    r->pos += n;
}

static int hex4(const char *s) {
    int v = 0;
    for (int i = 0; i < 4; i++) {
        char c = s[i];
        int d = c >= '0' && c <= '9'   ? c - '0'
                : c >= 'a' && c <= 'f' ? c - 'a' + 10
                : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                       : -1;
        if (d < 0) return -1;
        v = v * 16 + d;
    }
    return v;
}

/* Copies a string literal starting at the opening quote, rewriting \u0000 and lone surrogates. */
static void copy_string(rewriter *r) {
    const char *s = r->src;
    size_t i = r->pos + 1, n = r->len;
    emit(r, "\"", 1);
    while (i < n && s[i] != '"') {
        size_t run = i;
        while (run < n && s[run] != '"' && s[run] != '\\') run++;
        emit(r, s + i, run - i);
        i = run;
        if (i >= n || s[i] == '"') break;
        /* a backslash escape */
        int unit = i + 6 <= n && s[i + 1] == 'u' ? hex4(s + i + 2) : -1;
        bool high = unit >= 0xD800 && unit <= 0xDBFF;
        int next =
            high && i + 12 <= n && s[i + 6] == '\\' && s[i + 7] == 'u' ? hex4(s + i + 8) : -1;
        if (high && next >= 0xDC00 && next <= 0xDFFF) {
            emit(r, s + i, 12); /* a proper pair: cJSON decodes it */
            i += 12;
        } else if (unit == 0 || (unit >= 0xD800 && unit <= 0xDFFF)) {
            char mark[6] = { MARK_BYTE, unit == 0 ? '0' : 'u', s[i + 2], s[i + 3], s[i + 4],
                             s[i + 5] };
            emit(r, mark, unit == 0 ? 2 : 6);
            i += 6;
            note_shift(r, i);
        } else {
            size_t take = i + 1 < n ? 2 : 1;
            emit(r, s + i, take);
            i += take;
        }
    }
    if (i < n) {
        emit(r, "\"", 1);
        i++;
    }
    r->pos = i;
}

static int rewrite(rewriter *r, fr_error *err) {
    const char *s = r->src;
    size_t depth = 0;
    while (r->pos < r->len && !r->failed) {
        char c = s[r->pos];
        size_t left = r->len - r->pos;
        bool integral;
        size_t n;
        if (c == '"') {
            copy_string(r);
        } else if ((c == '-' || is_digit(c)) && (n = number_length(s + r->pos, left, &integral))) {
            emit_marker(r, integral ? 'i' : 'f', s + r->pos, n);
        } else if (starts_with(s + r->pos, left, "NaN")) {
            emit_marker(r, 'f', "NaN", 3);
        } else if (starts_with(s + r->pos, left, "Infinity")) {
            emit_marker(r, 'f', "Infinity", 8);
        } else if (starts_with(s + r->pos, left, "-Infinity")) {
            emit_marker(r, 'f', "-Infinity", 9);
        } else {
            if (c == '[' || c == '{') {
                if (++depth > JSON_READ_MAX_DEPTH)
                    return fr_fail(err, "JSON nests deeper than %d at byte %zu",
                                   JSON_READ_MAX_DEPTH, r->pos);
            } else if ((c == ']' || c == '}') && depth) {
                depth--;
            }
            emit(r, &c, 1);
            r->pos++;
        }
    }
    if (r->failed) return fr_fail(err, "out of memory reading JSON");
    return 0;
}

/* --- cJSON tree -> values ----------------------------------------------------------------- */

static bool is_marker(const char *s) { return s[0] == MARK_BYTE && (s[1] == 'i' || s[1] == 'f'); }

static fv *number_value(fv_arena *arena, const char *literal, fr_error *err) {
    const char *text = literal + 2;
    if (literal[1] == 'f') {
        if (strcmp(text, "NaN") == 0) return fv_float(arena, NAN);
        if (strcmp(text, "Infinity") == 0) return fv_float(arena, INFINITY);
        if (strcmp(text, "-Infinity") == 0) return fv_float(arena, -INFINITY);
        return fv_float(arena, strtod(text, NULL)); /* overflow gives ±inf, as float() does */
    }
    errno = 0;
    long long v = strtoll(text, NULL, 10);
    if (errno == ERANGE) {
        fr_fail(err, "integer %.40s does not fit in 64 bits", text);
        return NULL;
    }
    return fv_int(arena, (int64_t)v);
}

/* A string value with the \u0000 and lone-surrogate markers turned back into bytes. */
static fv *string_value(fv_arena *arena, const char *s) {
    size_t n = strlen(s);
    if (!memchr(s, MARK_BYTE, n)) return fv_str(arena, s, n);
    char *buf = malloc(n + 1);
    if (!buf) return NULL;
    size_t o = 0;
    for (size_t i = 0; i < n;) {
        if (s[i] == MARK_BYTE && s[i + 1] == '0') {
            buf[o++] = '\0';
            i += 2;
        } else if (s[i] == MARK_BYTE && s[i + 1] == 'u' && i + 6 <= n) {
            int cp = hex4(s + i + 2); /* D800..DFFF: three bytes ED xx xx */
            buf[o++] = (char)(0xE0 | (cp >> 12));
            buf[o++] = (char)(0x80 | ((cp >> 6) & 0x3F));
            buf[o++] = (char)(0x80 | (cp & 0x3F));
            i += 6;
        } else {
            buf[o++] = s[i++];
        }
    }
    fv *v = fv_str(arena, buf, o);
    free(buf);
    return v;
}

/* spine: how many containers down the rightmost path (this one, its last child, ...) a salvage
 * closed early (json_salvage.h); each is flagged FV_FLAG_TRUNCATED. */
static fv *convert(const cJSON *item, fv_arena *arena, fr_error *err, size_t spine) {
    if (cJSON_IsNull(item)) return fv_none(arena);
    if (cJSON_IsBool(item)) return fv_bool(arena, cJSON_IsTrue(item));
    if (cJSON_IsString(item)) {
        if (is_marker(item->valuestring)) return number_value(arena, item->valuestring, err);
        return string_value(arena, item->valuestring);
    }
    if (cJSON_IsNumber(item))
        return fv_float(arena, item->valuedouble); /* not reached: rewritten */
    bool object = cJSON_IsObject(item);
    fv *c = object ? fv_dict(arena) : fv_list(arena);
    if (!c) return NULL;
    if (spine) c->flags |= FV_FLAG_TRUNCATED;
    for (const cJSON *child = item->child; child; child = child->next) {
        /* depth bounded by JSON_READ_MAX_DEPTH */
        fv *v = convert(child, arena, err, spine && !child->next ? spine - 1 : 0);
        if (!v) return NULL;
        if (!object) {
            if (!fv_seq_push(arena, c, v)) return NULL;
            continue;
        }
        if (!child->string || is_marker(child->string)) {
            fr_fail(err, "JSON object keys must be strings");
            return NULL;
        }
        fv *key = string_value(arena, child->string);
        if (!key || !fv_dict_set(arena, c, key, v)) return NULL;
    }
    return c;
}

static int read_text(const char *text, size_t len, fv_arena *arena, fv **out, fr_error *err,
                     size_t spine) {
    *out = NULL;
    fr_clear(err);
    size_t bad = utf8_invalid_at((const unsigned char *)text, len);
    if (bad != len) return fr_fail(err, "invalid UTF-8 in JSON at byte %zu", bad);
    rewriter r = { .src = text, .len = len };
    int rc = rewrite(&r, err);
    if (rc == 0) {
        const char *end = NULL;
        cJSON *tree = cJSON_ParseWithLengthOpts(r.out ? r.out : "", r.out_len, &end, false);
        if (!tree) {
            size_t at = end && r.out ? original_offset(&r, (size_t)(end - r.out)) : 0;
            rc = fr_fail(err, "JSON parse error at byte %zu", at > len ? len : at);
        } else {
            size_t rest = (size_t)(end - r.out);
            while (rest < r.out_len && strchr(" \t\r\n", r.out[rest])) rest++;
            if (rest < r.out_len) {
                rc = fr_fail(err, "extra data after the JSON value at byte %zu",
                             original_offset(&r, rest));
            } else {
                *out = convert(tree, arena, err, spine);
                if (!*out) rc = err->msg[0] ? -1 : fr_fail(err, "out of memory reading JSON");
            }
            cJSON_Delete(tree);
        }
    }
    free(r.out);
    free(r.shifts);
    return rc;
}

int json_read(const char *text, size_t len, fv_arena *arena, fv **out, fr_error *err) {
    return read_text(text, len, arena, out, err, 0);
}

int json_read_salvage(const char *text, size_t len, fv_arena *arena, fv **out, fr_error *err) {
    if (read_text(text, len, arena, out, err, 0) == 0) return 0;
    json_cut cut;
    if (!json_truncation_cut(text, len, JSON_READ_MAX_DEPTH, &cut)) return -1;
    char *kept = malloc(cut.at + cut.nclosers + 1);
    int rc = -1;
    fr_error first = *err; /* the whole text's error, if the cut text does not parse either */
    if (kept) {
        memcpy(kept, text, cut.at);
        memcpy(kept + cut.at, cut.closers, cut.nclosers);
        rc = read_text(kept, cut.at + cut.nclosers, arena, out, err, cut.nclosers);
    }
    free(kept);
    free(cut.closers);
    if (rc != 0) {
        *err = first;
        return -1;
    }
    fr_fail(err, "truncated JSON at byte %zu", len);
    return 1;
}
