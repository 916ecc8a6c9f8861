/* json_write.c — values → JSON text as Python's json.dumps writes it (see json_write.h).
 *
 * The document is first rendered into a growing memory buffer and written out only when it is
 * complete, so a refusal (depth, size, bad key) leaves the output untouched. The walk is an
 * explicit stack of (container, next child) frames: no recursion on input depth.
 *
 * Strings, floats (Python's repr: the shortest decimal that reads back to the same double) and
 * ints are written by json_text.h, shared with the other JSON writers; here only NaN and the
 * infinities get json.dumps' spellings.
 */
#include "json_write.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "json_text.h"
#include "grow.h"

/* --- output buffer -----------------------------------------------------------------------------
 */

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
    if (fr_grow((void **)&b->data, &b->cap, b->len + more, 1, 4096) == 0) return true;
    b->failed = true;
    return false;
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

/* --- scalars -----------------------------------------------------------------------------------
 */

size_t fv_format_float(double d, char *out) {
    if (isnan(d)) return (size_t)sprintf(out, "NaN");
    if (isinf(d)) return (size_t)sprintf(out, d < 0 ? "-Infinity" : "Infinity");
    return fr_json_float(d, FR_JSON_FIXED_PYTHON, out);
}

static void put_int(sbuf *b, int64_t i) {
    char text[24];
    sb_put(b, text, fr_json_int(i, text));
}

static void put_float(sbuf *b, double d) {
    char text[40];
    size_t n = fv_format_float(d, text);
    sb_put(b, text, n);
}

static void put_text(void *b, const char *s, size_t n) { sb_put(b, s, n); }

static void put_string(sbuf *b, const char *str, size_t n) {
    sb_char(b, '"');
    fr_json_escape(str, n, true, put_text, b);
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
    case FV_NONE:
    case FV_BOOL:
    case FV_INT:
    case FV_FLOAT:
        sb_char(b, '"');
        put_scalar(b, k);
        sb_char(b, '"');
        return true;
    default: return false;
    }
}

/* --- the walk ----------------------------------------------------------------------------------
 */

typedef struct frame {
    const fv *v;
    uint32_t next; /* next item (list, tuple) or pair (dict) */
} frame;

static bool is_container(const fv *v) {
    return v->kind == FV_LIST || v->kind == FV_TUPLE || v->kind == FV_DICT;
}

static int render(sbuf *b, fv *root, bool pretty, fr_error *err) {
    frame *stack = malloc(FV_JSON_MAX_DEPTH * sizeof *stack);
    if (!stack) {
        fr_fail(err, "out of memory");
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
                fr_fail(err, "value nests deeper than %d containers", FV_JSON_MAX_DEPTH);
                rc = -1;
                break;
            } else {
                sb_char(b, v->kind == FV_DICT ? '{' : '[');
                stack[depth++] = (frame){ v, 0 };
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
                fr_fail(err, "keys must be str, int, float, bool or None, not %s",
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
        fr_fail(err, "JSON text would exceed %zu bytes (or out of memory)", b->limit);
        rc = -1;
    }
    return rc;
}

int fv_write_json(FILE *out, fv *v, bool pretty, uint64_t max_weight, fr_error *err) {
    if (!v) {
        fr_fail(err, "no value to write");
        return -1;
    }
    uint64_t weight = fv_tree_weight(v, max_weight);
    if (weight == UINT64_MAX || weight > max_weight) {
        fr_fail(err, "value is cyclic or would print more than %" PRIu64 " bytes (memo aliasing?)",
                max_weight);
        return -1;
    }
    /* Escapes make a string up to 6 times its bytes and numbers up to 24 characters, so the text
     * stays within a small multiple of the weight; indentation adds at most 2 per level a line. */
    uint64_t limit = 16 * weight + (1u << 20);
    sbuf b = { .limit = limit > SIZE_MAX / 2 ? SIZE_MAX / 2 : (size_t)limit };
    int rc = render(&b, v, pretty, err);
    if (rc == 0 && b.len && fwrite(b.data, 1, b.len, out) != b.len) {
        fr_fail(err, "write error");
        rc = -1;
    }
    free(b.data);
    return rc;
}
