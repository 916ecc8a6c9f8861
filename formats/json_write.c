/* json_write.c — values → JSON text as Python's json.dumps writes it (see json_write.h).
 *
 * The document is first rendered into a growing memory buffer and written out only when it is
 * complete, so a refusal (depth, size, bad key) leaves the output untouched. The walk is an
 * explicit stack of (container, next child) frames: no recursion on input depth.
 *
 * Floats: Python's repr is the shortest decimal that reads back to the same double. We find it
 * by asking printf for 1, 2, ... 17 significant digits and keeping the first that strtod maps
 * back to the same bits (glibc rounds both ways correctly), then lay the digits out the way
 * CPython's float_repr does: fixed notation for decimal exponents -4..15, scientific otherwise.
 */
#include "json_write.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* --- output buffer ----------------------------------------------------------------------------- */

typedef struct sbuf {
    char *data;
    size_t len, cap, limit;
    bool failed; /* out of memory or over the limit */
} sbuf;

static bool sb_reserve(sbuf *b, size_t more) {
    if (b->failed) return false;
    if (more > b->limit - b->len) {
        b->failed = true;
        return false;
    }
    if (b->len + more <= b->cap) return true;
    size_t cap = b->cap ? b->cap : 4096;
    while (cap < b->len + more) cap *= 2;
    char *bigger = realloc(b->data, cap);
    if (!bigger) {
        b->failed = true;
        return false;
    }
    b->data = bigger;
    b->cap = cap;
    return true;
}

static void sb_put(sbuf *b, const char *s, size_t n) {
    if (!sb_reserve(b, n)) return;
    memcpy(b->data + b->len, s, n);
    b->len += n;
}

static void sb_puts(sbuf *b, const char *s) { sb_put(b, s, strlen(s)); }

static void sb_char(sbuf *b, char c) {
    if (!sb_reserve(b, 1)) return;
    b->data[b->len++] = c;
}

static void sb_indent(sbuf *b, size_t depth) {
    if (!sb_reserve(b, 1 + 2 * depth)) return;
    b->data[b->len++] = '\n';
    memset(b->data + b->len, ' ', 2 * depth);
    b->len += 2 * depth;
}

/* --- scalars ----------------------------------------------------------------------------------- */

size_t fv_format_float(double d, char *out) {
    if (isnan(d)) return (size_t)sprintf(out, "NaN");
    if (isinf(d)) return (size_t)sprintf(out, d < 0 ? "-Infinity" : "Infinity");
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
    if (exp10 >= -4 && exp10 < 16) {
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

static void put_int(sbuf *b, int64_t i) {
    char text[24];
    int n = snprintf(text, sizeof text, "%" PRId64, i);
    sb_put(b, text, (size_t)n);
}

static void put_float(sbuf *b, double d) {
    char text[40];
    size_t n = fv_format_float(d, text);
    sb_put(b, text, n);
}

static void put_u_escape(sbuf *b, uint32_t unit) {
    static const char hex[] = "0123456789abcdef";
    char e[6] = {'\\', 'u', hex[(unit >> 12) & 15], hex[(unit >> 8) & 15], hex[(unit >> 4) & 15], hex[unit & 15]};
    sb_put(b, e, sizeof e);
}

/* Decodes one UTF-8 sequence (surrogates allowed, as pickle's 'surrogatepass' keeps them);
 * an invalid byte counts as U+FFFD so that output stays ASCII whatever the input. */
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

static void put_string(sbuf *b, const char *str, size_t n) {
    const unsigned char *s = (const unsigned char *)str;
    sb_char(b, '"');
    size_t i = 0;
    while (i < n) {
        size_t run = i;
        while (run < n && s[run] >= 0x20 && s[run] < 0x7F && s[run] != '"' && s[run] != '\\') run++;
        if (run > i) {
            sb_put(b, str + i, run - i);
            i = run;
            continue;
        }
        unsigned char c = s[i];
        switch (c) {
        case '"': sb_puts(b, "\\\""); i++; continue;
        case '\\': sb_puts(b, "\\\\"); i++; continue;
        case '\n': sb_puts(b, "\\n"); i++; continue;
        case '\r': sb_puts(b, "\\r"); i++; continue;
        case '\t': sb_puts(b, "\\t"); i++; continue;
        case '\b': sb_puts(b, "\\b"); i++; continue;
        case '\f': sb_puts(b, "\\f"); i++; continue;
        default: break;
        }
        if (c < 0x80) {
            put_u_escape(b, c);
            i++;
            continue;
        }
        size_t used;
        uint32_t cp = next_code_point(s + i, n - i, &used);
        i += used;
        if (cp >= 0x10000) {
            cp -= 0x10000;
            put_u_escape(b, 0xD800 | (cp >> 10));
            put_u_escape(b, 0xDC00 | (cp & 0x3FF));
        } else {
            put_u_escape(b, cp);
        }
    }
    sb_char(b, '"');
}

static void put_scalar(sbuf *b, const fv *v) {
    switch (v->kind) {
    case FV_NONE: sb_puts(b, "null"); break;
    case FV_BOOL: sb_puts(b, v->u.b ? "true" : "false"); break;
    case FV_INT: put_int(b, v->u.i); break;
    case FV_FLOAT: put_float(b, v->u.f); break;
    case FV_STR: put_string(b, v->u.s, v->len); break;
    default: break;
    }
}

/* A dict key as json.dumps converts it; false for keys it refuses (containers). */
static bool put_key(sbuf *b, const fv *k) {
    switch (k->kind) {
    case FV_STR: put_string(b, k->u.s, k->len); return true;
    case FV_NONE: case FV_BOOL: case FV_INT: case FV_FLOAT:
        sb_char(b, '"');
        put_scalar(b, k);
        sb_char(b, '"');
        return true;
    default: return false;
    }
}

/* --- the walk ---------------------------------------------------------------------------------- */

typedef struct frame {
    const fv *v;
    uint32_t next; /* next item (list, tuple) or pair (dict) */
} frame;

static bool is_container(const fv *v) { return v->kind == FV_LIST || v->kind == FV_TUPLE || v->kind == FV_DICT; }

static int render(sbuf *b, fv *root, bool pretty, fr_error *err) {
    frame *stack = malloc(FV_JSON_MAX_DEPTH * sizeof *stack);
    if (!stack) {
        snprintf(err->msg, sizeof err->msg, "out of memory");
        return -1;
    }
    size_t depth = 0;
    const fv *v = root;
    int rc = 0;
    for (;;) {
        /* write `v`: a scalar entirely, a container's opening */
        if (v) {
            if (!is_container(v)) {
                put_scalar(b, v);
            } else if (v->len == 0) {
                sb_puts(b, v->kind == FV_DICT ? "{}" : "[]");
            } else if (depth == FV_JSON_MAX_DEPTH) {
                snprintf(err->msg, sizeof err->msg, "value nests deeper than %d containers", FV_JSON_MAX_DEPTH);
                rc = -1;
                break;
            } else {
                sb_char(b, v->kind == FV_DICT ? '{' : '[');
                stack[depth++] = (frame){v, 0};
            }
            v = NULL;
        }
        if (depth == 0 || b->failed) break;
        frame *f = &stack[depth - 1];
        if (f->next == f->v->len) {
            if (pretty) sb_indent(b, depth - 1);
            sb_char(b, f->v->kind == FV_DICT ? '}' : ']');
            depth--;
            continue;
        }
        if (f->next > 0) sb_puts(b, pretty ? "," : ", ");
        if (pretty) sb_indent(b, depth);
        uint32_t i = f->next++;
        if (f->v->kind == FV_DICT) {
            const fv *key = fv_dict_key(f->v, i);
            if (!put_key(b, key)) {
                snprintf(err->msg, sizeof err->msg, "keys must be str, int, float, bool or None, not %s",
                         fv_kind_name(key->kind));
                rc = -1;
                break;
            }
            sb_puts(b, ": ");
            v = fv_dict_value(f->v, i);
        } else {
            v = fv_item(f->v, i);
        }
    }
    free(stack);
    if (rc == 0 && b->failed) {
        snprintf(err->msg, sizeof err->msg, "JSON text would exceed %zu bytes (or out of memory)", b->limit);
        rc = -1;
    }
    return rc;
}

int fv_write_json(FILE *out, fv *v, bool pretty, uint64_t max_weight, fr_error *err) {
    if (!v) {
        snprintf(err->msg, sizeof err->msg, "no value to write");
        return -1;
    }
    uint64_t weight = fv_tree_weight(v, max_weight);
    if (weight == UINT64_MAX || weight > max_weight) {
        snprintf(err->msg, sizeof err->msg,
                 "value is cyclic or would print more than %" PRIu64 " bytes (memo aliasing?)", max_weight);
        return -1;
    }
    /* Escapes make a string up to 6 times its bytes and numbers up to 24 characters, so the text
     * stays within a small multiple of the weight; indentation adds at most 2 per level a line. */
    uint64_t limit = 16 * weight + (1u << 20);
    sbuf b = {.limit = limit > SIZE_MAX / 2 ? SIZE_MAX / 2 : (size_t)limit};
    int rc = render(&b, v, pretty, err);
    if (rc == 0 && b.len && fwrite(b.data, 1, b.len, out) != b.len) {
        snprintf(err->msg, sizeof err->msg, "write error");
        rc = -1;
    }
    free(b.data);
    return rc;
}
