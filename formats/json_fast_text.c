/* json_fast_text.c — what JSON text means, for the direct JSON reader (json_fast.h): strings
 * (a plain run is taken as is, eight bytes at a time; one with escapes is decoded the way
 * cJSON reads it, by json_literal.c), numbers as json_read makes them, and any value as a node
 * of the header's value tree (the header, and values of keys no entry field takes; depth bounded
 * by MAX_DEPTH). Declines whatever cJSON and the generic path would read otherwise.
 */
#include "json_fast.h"

#include <stdlib.h>

#include "json_literal.h"
#include "utf8.h"

/* Room for n items in a scratch array (false when out of memory). */
bool jf_ensure(void **buf, size_t *cap, size_t n, size_t size) {
    if (n <= *cap) return true;
    size_t want = *cap ? *cap * 2 : 64;
    if (want < n) want = n;
    if (want > SIZE_MAX / size) return false;
    void *p = realloc(*buf, want * size);
    if (!p) return false;
    *buf = p;
    *cap = want;
    return true;
}

/* The end of the plain run from q: the first quote, backslash, control or non-ASCII byte
 * whose UTF-8 is invalid; valid UTF-8 sequences are stepped over. `end` when there is none. */
static const uint8_t *plain_run(const uint8_t *q, const uint8_t *end) {
    for (;;) {
        while (end - q >= 8 && !word_is_special(load64(q))) q += 8;
        while (q < end && *q >= 0x20 && *q < 0x80 && *q != '"' && *q != '\\') q++;
        if (q == end || *q < 0x80) return q;
        size_t n = fr_utf8_sequence(q, (size_t)(end - q));
        if (!n) return q;
        q += n;
    }
}

/* A string with escapes from q (after the opening quote), decoded into f->text (never longer
 * than its escaped text); the cursor after its closing quote. false: malformed. */
static bool decode_escaped(dump_json_fast *f, const uint8_t *q, const char **s, size_t *n) {
    const uint8_t *close = json_closing_quote(q, f->end);
    if (!close || !jf_ensure((void **)&f->text, &f->text_cap, (size_t)(close - q) + 1, 1))
        return false;
    char *out = f->text;
    size_t o = 0;
    for (;;) {
        const uint8_t *run = plain_run(q, f->end);
        memcpy(out + o, q, (size_t)(run - q));
        o += (size_t)(run - q);
        q = run;
        if (q == f->end || *q != '\\') break;
        if (f->end - q < 2) return false;
        int c = json_simple_escape(q[1]);
        size_t used = 2, wrote = 1;
        if (c >= 0)
            out[o] = (char)c;
        else if (q[1] != 'u' || !(used = json_unicode_escape(q, f->end, out + o, &wrote)))
            return false;
        o += wrote;
        q += used;
    }
    if (q == f->end || *q != '"') return false;
    f->p = q + 1;
    *s = out;
    *n = o;
    return true;
}

/* The string token at the cursor (its opening quote), decoded: its bytes in *s — in the input
 * when it has no escape, else in f->text, good until the next string — and their number. The
 * cursor after the closing quote. false: decline. */
bool jf_read_string(dump_json_fast *f, const char **s, size_t *n) {
    if (peek(f) != '"') return false;
    const uint8_t *q = f->p + 1, *run = plain_run(q, f->end);
    if (run < f->end && *run == '"') {
        *s = (const char *)q;
        *n = (size_t)(run - q);
        f->p = run + 1;
        return true;
    }
    if (run == f->end || *run != '\\') return false;
    return decode_escaped(f, q, s, n);
}

const char *jf_read_interned(dump_json_fast *f) {
    const char *s;
    size_t n;
    return jf_read_string(f, &s, &n) ? dump_intern(f->b, s, n) : NULL;
}

/* An int at the cursor, the slow way: number_token's literal, if it is an integer within 64
 * bits. */
bool jf_read_int_slow(dump_json_fast *f, int64_t *out) {
    bool integral;
    size_t len = json_number_token(f->p, f->end, &integral);
    if (!len || !integral || !json_integer_value(f->p, len, out)) return false;
    f->p += len;
    return true;
}

/* The number at the cursor as json_read makes it (json_number), the cursor after it. */
bool jf_read_number(dump_json_fast *f, bool *is_int, int64_t *i, double *d) {
    size_t len = json_number(f->p, f->end, is_int, i, d);
    f->p += len;
    return len != 0;
}

static fv *read_dict(dump_json_fast *f, int depth) {
    fv *dict = fv_dict(f->values);
    blanks(f);
    if (!dict || next_is(f, '}')) return dict;
    for (;;) {
        const char *s;
        size_t n;
        if (!jf_read_string(f, &s, &n)) return NULL;
        fv *key = fv_str(f->values, s, n), *value;
        blanks(f);
        if (!key || !next_is(f, ':')) return NULL;
        blanks(f);
        if (!(value = jf_read_value(f, depth + 1)) || !fv_dict_set(f->values, dict, key, value))
            return NULL;
        blanks(f);
        if (next_is(f, '}')) return dict;
        if (!next_is(f, ',')) return NULL;
        blanks(f);
    }
}

static fv *read_list(dump_json_fast *f, int depth) {
    fv *list = fv_list(f->values);
    blanks(f);
    if (!list || next_is(f, ']')) return list;
    for (;;) {
        fv *item = jf_read_value(f, depth + 1);
        if (!item || !fv_seq_push(f->values, list, item)) return NULL;
        blanks(f);
        if (next_is(f, ']')) return list;
        if (!next_is(f, ',')) return NULL;
        blanks(f);
    }
}

/* The value at the cursor as json_read would build it (no blanks before it). NULL: decline. */
fv *jf_read_value(dump_json_fast *f, int depth) {
    if (depth > MAX_DEPTH) return NULL;
    const char *s;
    size_t n;
    bool is_int;
    int64_t i;
    double d;
    switch (peek(f)) {
    case '{': f->p++; return read_dict(f, depth);
    case '[': f->p++; return read_list(f, depth);
    case '"': return jf_read_string(f, &s, &n) ? fv_str(f->values, s, n) : NULL;
    case 't': return literal(f, "true", 4) ? fv_bool(f->values, true) : NULL;
    case 'f': return literal(f, "false", 5) ? fv_bool(f->values, false) : NULL;
    case 'n': return literal(f, "null", 4) ? fv_none(f->values) : NULL;
    default:
        if (!jf_read_number(f, &is_int, &i, &d)) return NULL;
        return is_int ? fv_int(f->values, i) : fv_float(f->values, d);
    }
}
