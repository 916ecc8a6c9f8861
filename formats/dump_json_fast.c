/* dump_json_fast.c — the direct path from a JSON dump to fr_entry structs, without a value tree.
 *
 * The generic path for JSON rewrites the text for cJSON (json_read.c), lets cJSON build its
 * tree, converts that into a value tree and maps the tree to structs (dump.c): four passes and
 * two trees for every entry. PyTorch's JSON dumps (`_dump_nccl_trace_json`: nlohmann::json,
 * compact, keys sorted) and the recorder's are regular: every entry writes the same keys in the
 * same order, and most values repeat from entry to entry. This path reads the text once, by
 * recursive descent, and writes each entry's fields straight into its fr_entry, through the
 * same builder as the generic path (dump_builder.h): same interning, same shared lists, same
 * rules. Three things make an entry cheap:
 *   - the layout: the raw text of the keys seen so far, each with the separator before it (the
 *     entry's '{' for its first key, the ',' after the previous value for the others, blanks
 *     and all: ",\"op_id\":"), in order. Each key of an entry and the separator before it are
 *     compared with the next key of the layout in one run, the first 32 bytes as four masked
 *     words without a branch (key_at), instead of being scanned, decoded and looked up; a key
 *     off the layout (an optional key missing, an extra one) is read the slow way and learnt.
 *     A key learnt at an entry's start begins with '{' and the others never do, so each can
 *     only match where it belongs: the cursor is at a '{' at an entry's start, and a '{' after
 *     a value declines;
 *   - the value cache: the raw text of a string, a process group, a dtype list, a shape list,
 *     a stack of frames gives what it decoded to the last time (the interned string, the
 *     shared list): first the key's own last two values (the entries of a dump repeat a few
 *     values key by key, or alternate two), then a table found by a hash of the 16 bytes at
 *     the cursor, each compared byte for byte. The same bytes are the same JSON value wherever
 *     they stand, since a string or an array token ends itself;
 *   - numbers parsed in place: an int eight digits at a time from a word of the input
 *     (read_int), a float exactly (json_literal.c, where strings' escapes are decoded too).
 * The header (version, pg_config, pg_status, ...) is small: it is read into a value tree, as
 * json_read would build it, and mapped by dump.c, so both paths share every rule about it.
 *
 * It is only a fast path. Whenever the text strays from plain JSON as PyTorch, Python or the
 * recorder write it — a byte-order mark, a control character outside a string or raw inside
 * one, NaN or Infinity, an integer past 64 bits, nesting past MAX_DEPTH, a repeated key in an
 * entry or a frame, a value of another type than the field takes, a process group of more than
 * two items, invalid UTF-8, trailing bytes, a truncated file, anything the generic path might
 * report — it declines, and dump.c decodes the file the generic way, which then gives the
 * generic result or error. Declining is always safe, so this path has no error messages; what
 * it accepts it must decode exactly as the generic path would (cJSON's reading of escapes:
 * \u0000 a NUL byte, a lone surrogate its three-byte form, a pair one code point), which the
 * tests check shape by shape (tests/unit/test_dump_json_fast.c) and the fuzzer input by input.
 *
 * Hostile input: every read is bounds-checked (a word read needs its 8, 24 or 32 bytes left;
 * else the byte by byte way), recursion is bounded (MAX_DEPTH), the layout and the cache have
 * fixed sizes, and every byte is read a bounded number of times: a hit compares the bytes it
 * skips once; a miss stops a word past the first byte that differs, which lies within the
 * value at the cursor (a value whose text began with a slot's whole value would end where it
 * ends); at most six slots are tried for a value and LOOKAHEAD layout keys for a key. So the
 * work is linear in the input.
 */
#include "dump_direct.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "json_literal.h"
#include "utf8.h"

enum { MAX_DEPTH = 64, LAYOUT_MAX = 32, LOOKAHEAD = 3, KEY_MAX = 255 };
enum { CACHE_SETS = 256, CACHE_WAYS = 4, HASH_BYTES = 16, HEAD_BYTES = 32 };
enum { NOT_A_KEY = -2, END_OF_ENTRY = -3 }; /* read_key's answers besides fields */
enum { FIELD_FRAME = F_COUNT };             /* the cache's key for one frame dict */

/* A value met before, by its raw text, and what it decoded to (which member: by `field`). */
typedef struct vslot {
    const uint8_t *raw; /* in the input; valid while gen is the file's */
    uint32_t len, gen;
    int32_t field;
    union {
        const char *str; /* thread_name, thread_id, profiling_name */
        struct {
            const char *name, *desc;
        } pg;              /* process_group */
        int state;         /* state */
        fr_shapes shapes;  /* input_sizes, output_sizes */
        fr_strings dtypes; /* input_dtypes, output_dtypes */
        struct {
            const fr_frame *items;
            uint32_t n;
        } stack;        /* frames */
        fr_frame frame; /* FIELD_FRAME */
    } v;
} vslot;

/* One key of the layout: its raw text from the separator before it (the entry's '{' or the ','
 * after the previous value) to the value, and the last two values it had. */
typedef struct layout_key {
    const uint8_t *raw; /* in the input */
    uint32_t len;
    int32_t field;                                       /* entry_field, F_UNKNOWN included */
    uint64_t word[HEAD_BYTES / 8], mask[HEAD_BYTES / 8]; /* its first bytes, for key_at */
    vslot near[2];                                       /* [0] the most recent; len 0: none yet */
} layout_key;

struct dump_json_fast {
    const uint8_t *p, *end; /* the cursor and the end of the input */
    size_t len;
    dump_builder *b;
    fv_arena *values; /* the header's value tree */
    direct_entries entries;
    char *text; /* one string with escapes, decoded */
    size_t text_cap;
    direct_lists lists;
    layout_key layout[LAYOUT_MAX];
    uint32_t layout_n;
    uint32_t gen; /* the file's number, for the cache */
    vslot cache[CACHE_SETS][CACHE_WAYS];
    vslot scratch; /* a value read but kept nowhere else */
};

#define HOT static inline __attribute__((always_inline))

/* --- bytes --------------------------------------------------------------------------------- */

static inline int peek(const dump_json_fast *f) { return f->p < f->end ? *f->p : -1; }

static inline size_t left(const dump_json_fast *f) { return (size_t)(f->end - f->p); }

HOT bool next_is(dump_json_fast *f, int c) {
    if (peek(f) != c) return false;
    f->p++;
    return true;
}

/* JSON's four blanks; cJSON takes any control byte as one, this path declines those. */
HOT void blanks(dump_json_fast *f) {
    while (f->p < f->end && (*f->p == ' ' || *f->p == '\n' || *f->p == '\r' || *f->p == '\t'))
        f->p++;
}

HOT uint64_t load64(const uint8_t *p) {
    uint64_t w;
    memcpy(&w, p, 8);
    return w;
}

/* Whether a[0..n) equals b[0..n), eight bytes at a time. */
HOT bool same_bytes(const uint8_t *a, const uint8_t *b, size_t n) {
    if (n < 8) return memcmp(a, b, n) == 0;
    size_t i = 0;
    for (; i + 8 < n; i += 8)
        if (load64(a + i) != load64(b + i)) return false;
    return load64(a + n - 8) == load64(b + n - 8);
}

/* Room for n items in a scratch array (false when out of memory). */
static bool ensure(void **buf, size_t *cap, size_t n, size_t size) {
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

/* --- strings ------------------------------------------------------------------------------- */

/* Whether the 8 bytes of w hold a quote, a backslash, a control byte or a non-ASCII byte. */
HOT bool word_is_special(uint64_t w) {
    const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
    uint64_t quote = w ^ (ones * '"'), backslash = w ^ (ones * '\\');
    uint64_t zero_q = (quote - ones) & ~quote, zero_b = (backslash - ones) & ~backslash;
    uint64_t control = (w - ones * 0x20) & ~w;
    return ((zero_q | zero_b | control) & highs) != 0 || (w & highs) != 0;
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
    if (!close || !ensure((void **)&f->text, &f->text_cap, (size_t)(close - q) + 1, 1))
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
static bool read_string(dump_json_fast *f, const char **s, size_t *n) {
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

static const char *read_interned(dump_json_fast *f) {
    const char *s;
    size_t n;
    return read_string(f, &s, &n) ? dump_intern(f->b, s, n) : NULL;
}

/* --- numbers ------------------------------------------------------------------------------- */

/* The number of leading ASCII digits of the 8 bytes of w (first byte lowest), 0 to 8. A byte
 * is a digit when its high nibble is 3 and its low nibble with 6 added does not carry; adding
 * carries only out of a byte that is no digit, so the first one flagged is the first non-digit. */
HOT unsigned digits_in(uint64_t w) {
    const uint64_t highs = 0xF0F0F0F0F0F0F0F0ull;
    uint64_t x = w ^ 0x3030303030303030ull;
    uint64_t not_digit = (x & highs) | ((x + 0x0606060606060606ull) & highs);
    return not_digit ? (unsigned)__builtin_ctzll(not_digit) / 8 : 8;
}

/* The value of the first n (1 to 8) bytes of w, all digits: they are moved to the top of the
 * word, below them zero bytes (leading zeros), and pairs, quads and halves of it are added up
 * with one multiplication each. */
HOT uint64_t digits_value(uint64_t w, unsigned n) {
    w = (w << (8 * (8 - n)) & 0x0F0F0F0F0F0F0F0Full) * 2561 >> 8;
    w = (w & 0x00FF00FF00FF00FFull) * 6553601 >> 16;
    return (w & 0x0000FFFF0000FFFFull) * 42949672960001ull >> 32;
}

static const uint64_t POW10_INT[] = {
    1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000
};
/* An int at the cursor, the slow way: number_token's literal, if it is an integer within 64
 * bits. */
static bool read_int_slow(dump_json_fast *f, int64_t *out) {
    bool integral;
    size_t len = json_number_token(f->p, f->end, &integral);
    if (!len || !integral || !json_integer_value(f->p, len, out)) return false;
    f->p += len;
    return true;
}

/* An int at the cursor: an integer literal within 64 bits, the cursor after it. As with
 * number_token, what follows is the caller's to check: each takes only a separator there, so
 * "6.5" or "6e1" declines after "6" is read. The common case (no sign, no leading zero but 0
 * itself, at most 19 digits, 24 bytes from the end at least) is read eight digits at a time
 * from at most three words. */
HOT bool read_int(dump_json_fast *f, int64_t *out) {
    const uint8_t *p = f->p;
    if (f->end - p < 24 || (p[0] == '0' && json_is_digit(p[1]))) return read_int_slow(f, out);
    uint64_t w = load64(p), v;
    unsigned n = digits_in(w);
    if (n == 1) {
        v = (uint64_t)(p[0] - '0');
    } else if (n < 8) {
        if (!n) return read_int_slow(f, out);
        v = digits_value(w, n);
    } else {
        v = digits_value(w, 8);
        w = load64(p + 8);
        unsigned more = digits_in(w);
        if (more) v = v * POW10_INT[more] + digits_value(w, more);
        n += more;
        if (more == 8) {
            w = load64(p + 16);
            more = digits_in(w);
            if (more > 3 ||
                (more && (v = v * POW10_INT[more] + digits_value(w, more)) > (uint64_t)INT64_MAX))
                return read_int_slow(f, out); /* too long, or past 64 bits */
            n += more;
        }
    }
    *out = (int64_t)v;
    f->p = p + n;
    return true;
}

/* The number at the cursor as json_read makes it (json_number), the cursor after it. */
static bool read_number(dump_json_fast *f, bool *is_int, int64_t *i, double *d) {
    size_t len = json_number(f->p, f->end, is_int, i, d);
    f->p += len;
    return len != 0;
}

/* --- any value, as a value tree (the header, and values of keys no entry field takes) --- */

static fv *read_value(dump_json_fast *f, int depth);

HOT bool literal(dump_json_fast *f, const char *word, size_t n) {
    if (left(f) < n || memcmp(f->p, word, n) != 0) return false;
    f->p += n;
    return true;
}

static fv *read_dict(dump_json_fast *f, int depth) {
    fv *dict = fv_dict(f->values);
    blanks(f);
    if (!dict || next_is(f, '}')) return dict;
    for (;;) {
        const char *s;
        size_t n;
        if (!read_string(f, &s, &n)) return NULL;
        fv *key = fv_str(f->values, s, n), *value;
        blanks(f);
        if (!key || !next_is(f, ':')) return NULL;
        blanks(f);
        if (!(value = read_value(f, depth + 1)) || !fv_dict_set(f->values, dict, key, value))
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
        fv *item = read_value(f, depth + 1);
        if (!item || !fv_seq_push(f->values, list, item)) return NULL;
        blanks(f);
        if (next_is(f, ']')) return list;
        if (!next_is(f, ',')) return NULL;
        blanks(f);
    }
}

/* The value at the cursor as json_read would build it (no blanks before it). NULL: decline. */
static fv *read_value(dump_json_fast *f, int depth) {
    if (depth > MAX_DEPTH) return NULL;
    const char *s;
    size_t n;
    bool is_int;
    int64_t i;
    double d;
    switch (peek(f)) {
    case '{': f->p++; return read_dict(f, depth);
    case '[': f->p++; return read_list(f, depth);
    case '"': return read_string(f, &s, &n) ? fv_str(f->values, s, n) : NULL;
    case 't': return literal(f, "true", 4) ? fv_bool(f->values, true) : NULL;
    case 'f': return literal(f, "false", 5) ? fv_bool(f->values, false) : NULL;
    case 'n': return literal(f, "null", 4) ? fv_none(f->values) : NULL;
    default:
        if (!read_number(f, &is_int, &i, &d)) return NULL;
        return is_int ? fv_int(f->values, i) : fv_float(f->values, d);
    }
}

/* --- the value cache ----------------------------------------------------------------------- */

HOT size_t cache_set(const uint8_t *p, int field) {
    uint64_t h = (load64(p) ^ (load64(p + 8) >> 7 | load64(p + 8) << 57) ^ (uint64_t)field) *
                 0x9e3779b97f4a7c15ull;
    return (size_t)(h >> 56) & (CACHE_SETS - 1);
}

/* Makes `v` the layout key's most recent value (its previous one the other). */
static void near_keep(layout_key *lk, const vslot *v) {
    lk->near[1] = lk->near[0];
    lk->near[0] = *v;
}

/* The slot of the value at the cursor for `field` in the cache when its raw text was met before
 * (the cursor then after it, and the slot also the most recent value of the entry's key `lk`,
 * unless lk is NULL: a key off the layout, or a frame's); else NULL, with *set where the value
 * read now may be kept (or CACHE_SETS when the input ends too soon to hash). */
static const vslot *cache_take(dump_json_fast *f, int field, layout_key *lk, size_t *set) {
    size_t room = left(f);
    if (room < HASH_BYTES) {
        *set = CACHE_SETS;
        return NULL;
    }
    *set = cache_set(f->p, field);
    const vslot *w = f->cache[*set];
    for (int k = 0; k < CACHE_WAYS; k++)
        if (w[k].gen == f->gen && w[k].field == field && w[k].len <= room &&
            same_bytes(f->p, w[k].raw, w[k].len)) {
            f->p += w[k].len;
            if (lk) near_keep(lk, &w[k]);
            return &w[k];
        }
    return NULL;
}

/* Keeps the value just read from `raw` to the cursor in `set`, as its most recent way, and as
 * the key's most recent value (not one whose length does not fit the slot: a shorter one would
 * match other text). Returns where it is kept (f->scratch when nowhere else). */
static const vslot *cache_keep(dump_json_fast *f, size_t set, int field, layout_key *lk,
                               const uint8_t *raw, const vslot *value) {
    vslot *v = &f->scratch;
    *v = *value;
    if ((uint64_t)(f->p - raw) > UINT32_MAX) return v;
    v->raw = raw;
    v->len = (uint32_t)(f->p - raw);
    v->gen = f->gen;
    v->field = field;
    if (set < CACHE_SETS) {
        vslot *w = f->cache[set];
        memmove(&w[1], &w[0], (CACHE_WAYS - 1) * sizeof *w);
        w[0] = *v;
    }
    if (!lk) return v;
    near_keep(lk, v);
    return &lk->near[0];
}

/* What reads one kind of value into v->v (false: decline), for `cached`. */
typedef bool (*value_reader)(dump_json_fast *f, int field, vslot *v);

/* `cached` when the value is not one of the key's last two: the cache, else `read`. */
static const vslot *cached_slow(dump_json_fast *f, int field, layout_key *lk, value_reader read) {
    size_t set;
    const vslot *hit = cache_take(f, field, lk, &set);
    if (hit) return hit;
    const uint8_t *raw = f->p;
    vslot v = { 0 };
    return read(f, field, &v) ? cache_keep(f, set, field, lk, raw, &v) : NULL;
}

/* The value at the cursor for `field`: what the same text decoded to before — the last two
 * values of the entry's key `lk` are tried first (the entries of a dump repeat a few values
 * key by key), then the cache — else what `read` makes of it now (then kept). NULL: declined.
 * The slot is good until the next value is read. A slot's length is 0 until it is set. */
HOT const vslot *cached(dump_json_fast *f, int field, layout_key *lk, value_reader read) {
    if (lk) {
        size_t room = left(f);
        for (int k = 0; k < 2; k++)
            if ((size_t)lk->near[k].len - 1 < room &&
                same_bytes(f->p, lk->near[k].raw, lk->near[k].len)) {
                f->p += lk->near[k].len;
                return &lk->near[k];
            }
    }
    return cached_slow(f, field, lk, read);
}

/* --- containers ---------------------------------------------------------------------------- */

/* Separators inside a container: after an item, ',' (true, *more) or the closing `close`. */
HOT bool next_item(dump_json_fast *f, int close, bool *more) {
    blanks(f);
    if (next_is(f, ',')) {
        blanks(f);
        *more = true;
        return true;
    }
    *more = false;
    return next_is(f, close);
}

/* The opening `open` of a container at the cursor and the blanks after it: *more whether an
 * item follows (else the cursor after the closing `close`). false: no `open` there. */
HOT bool open_container(dump_json_fast *f, int open, int close, bool *more) {
    if (!next_is(f, open)) return false;
    blanks(f);
    *more = !next_is(f, close);
    return true;
}

/* --- entry values -------------------------------------------------------------------------- */

static bool str_value(dump_json_fast *f, int field, vslot *v) {
    return (v->v.str = read_interned(f)) != NULL;
}

static bool state_value(dump_json_fast *f, int field, vslot *v) {
    const char *s = read_interned(f);
    v->v.state = s ? dump_state_of(s) : -1;
    return v->v.state >= 0; /* the generic path names the unknown state */
}

/* [name, desc]: a list of two strs (the generic path takes longer lists too: declined). */
static bool pg_value(dump_json_fast *f, int field, vslot *v) {
    bool more;
    return open_container(f, '[', ']', &more) && more &&
           (v->v.pg.name = read_interned(f)) != NULL && next_item(f, ']', &more) && more &&
           (v->v.pg.desc = read_interned(f)) != NULL && next_item(f, ']', &more) && !more;
}

/* A list of dtype strs, normalized and stored once per dump. */
static bool dtypes_value(dump_json_fast *f, int field, vslot *v) {
    size_t n = 0;
    bool more;
    if (!open_container(f, '[', ']', &more)) return false;
    while (more) {
        const char *s = read_interned(f);
        if (!s ||
            !ensure((void **)&f->lists.strs, &f->lists.strs_cap, n + 1, sizeof *f->lists.strs))
            return false;
        if (!(f->lists.strs[n++] = dump_dtype(f->b, s)) || !next_item(f, ']', &more) ||
            n >= UINT32_MAX)
            return false;
    }
    return dump_store_dtypes(f->b, (uint32_t)n, f->lists.strs, &v->v.dtypes) == 0;
}

/* One shape, [d0, d1, ...], appended to the flattened scratch. */
static bool read_shape(dump_json_fast *f, size_t nshapes, size_t *ndims_total) {
    uint32_t ndim = 0;
    bool more;
    if (!open_container(f, '[', ']', &more)) return false;
    while (more) {
        if (!ensure((void **)&f->lists.dims, &f->lists.dims_cap, *ndims_total + 1,
                    sizeof *f->lists.dims))
            return false;
        if (!read_int(f, &f->lists.dims[(*ndims_total)++]) || !next_item(f, ']', &more) ||
            ++ndim == UINT32_MAX)
            return false;
    }
    if (!ensure((void **)&f->lists.ndims, &f->lists.ndims_cap, nshapes + 1, sizeof *f->lists.ndims))
        return false;
    f->lists.ndims[nshapes] = ndim;
    return true;
}

/* A list of shapes, stored once per dump. */
static bool shapes_value(dump_json_fast *f, int field, vslot *v) {
    size_t n = 0, total = 0;
    bool more;
    if (!open_container(f, '[', ']', &more)) return false;
    while (more)
        if (!read_shape(f, n++, &total) || !next_item(f, ']', &more) || n >= UINT32_MAX)
            return false;
    return dump_store_shapes(f->b, (uint32_t)n, f->lists.ndims, f->lists.dims, &v->v.shapes) == 0;
}

/* A frame dict's key: 0 name, 1 filename, 2 line, 3 another key; -1 decline. */
static int frame_key(dump_json_fast *f) {
    const char *s;
    size_t n;
    if (!read_string(f, &s, &n)) return -1;
    blanks(f);
    if (!next_is(f, ':')) return -1;
    blanks(f);
    if (n == 4 && memcmp(s, "name", 4) == 0) return 0;
    if (n == 8 && memcmp(s, "filename", 8) == 0) return 1;
    if (n == 4 && memcmp(s, "line", 4) == 0) return 2;
    return 3;
}

/* One frame dict {"name": str, "filename": str, "line": int}, any key missing ("" or 0), other
 * keys ignored, none repeated. */
static bool frame_value(dump_json_fast *f, int field, vslot *v) {
    fr_frame *out = &v->v.frame;
    *out = (fr_frame){ "", "", 0 };
    unsigned seen = 0;
    bool more;
    if (!open_container(f, '{', '}', &more)) return false;
    while (more) {
        int k = frame_key(f);
        if (k < 0 || (k < 3 && (seen & 1u << k))) return false;
        seen |= 1u << k;
        bool ok = k == 0   ? (out->name = read_interned(f)) != NULL
                  : k == 1 ? (out->filename = read_interned(f)) != NULL
                  : k == 2 ? read_int(f, &out->line)
                           : read_value(f, 2) != NULL;
        if (!ok || !next_item(f, '}', &more)) return false;
    }
    return true;
}

/* A list of frame dicts, stored once per dump. */
static bool frames_value(dump_json_fast *f, int field, vslot *v) {
    size_t n = 0;
    bool more;
    if (!open_container(f, '[', ']', &more)) return false;
    while (more) {
        if (!ensure((void **)&f->lists.frames, &f->lists.frames_cap, n + 1,
                    sizeof *f->lists.frames))
            return false;
        const vslot *frame = cached(f, FIELD_FRAME, NULL, frame_value);
        if (!frame || !next_item(f, ']', &more) || n + 1 >= UINT32_MAX) return false;
        f->lists.frames[n++] = frame->v.frame;
    }
    fr_entry held;
    if (dump_store_frames(f->b, f->lists.frames, (uint32_t)n, &held)) return false;
    v->v.stack.items = held.frames;
    v->v.stack.n = held.nframes;
    return true;
}

/* --- entry fields -------------------------------------------------------------------------- */

HOT bool read_bool(dump_json_fast *f, bool *out) {
    int64_t i;
    if (literal(f, "true", 4))
        *out = true;
    else if (literal(f, "false", 5))
        *out = false;
    else if (read_int(f, &i) && (i == 0 || i == 1))
        *out = i == 1; /* as get_bool takes ints */
    else
        return false;
    return true;
}

HOT bool read_int_or_null(dump_json_fast *f, int64_t *out) {
    if (peek(f) == 'n' && literal(f, "null", 4)) return *out = 0, true;
    return read_int(f, out);
}

static bool read_duration(dump_json_fast *f, fr_entry *e) {
    if (literal(f, "null", 4)) return true;
    bool is_int;
    int64_t i;
    double d;
    if (!read_number(f, &is_int, &i, &d)) return false;
    e->duration_ms = is_int ? (double)i : d;
    e->has_duration = true;
    return true;
}

/* Each field whose values go through the cache: lk is the key's layout entry, NULL when the key
 * is off the layout. */
HOT bool read_str_field(dump_json_fast *f, int field, layout_key *lk, const char **out) {
    const vslot *v = cached(f, field, lk, str_value);
    return v && (*out = v->v.str, true);
}

HOT bool read_state(dump_json_fast *f, layout_key *lk, fr_state *out) {
    const vslot *v = cached(f, F_STATE, lk, state_value);
    return v && (*out = (fr_state)v->v.state, true);
}

HOT bool read_shapes(dump_json_fast *f, int field, layout_key *lk, fr_shapes *out) {
    const vslot *v = cached(f, field, lk, shapes_value);
    return v && (*out = v->v.shapes, true);
}

HOT bool read_dtypes(dump_json_fast *f, int field, layout_key *lk, fr_strings *out) {
    const vslot *v = cached(f, field, lk, dtypes_value);
    return v && (*out = v->v.dtypes, true);
}

HOT bool read_pg(dump_json_fast *f, layout_key *lk, fr_entry *e) {
    const vslot *v = cached(f, F_PROCESS_GROUP, lk, pg_value);
    return v && (e->pg_name = v->v.pg.name, e->pg_desc = v->v.pg.desc, true);
}

static bool read_frames(dump_json_fast *f, layout_key *lk, fr_entry *e) {
    const vslot *v = cached(f, F_FRAMES, lk, frames_value);
    return v && (e->frames = v->v.stack.items, e->nframes = v->v.stack.n, true);
}

static bool read_thread_id(dump_json_fast *f, layout_key *lk, fr_entry *e) {
    int64_t i;
    if (peek(f) == '"') return read_str_field(f, F_THREAD_ID, lk, &e->thread_id);
    return read_int(f, &i) && (e->thread_id = dump_thread_id_text(f->b, i)) != NULL;
}

/* The value of `field` at the cursor into e; lk: the key's layout entry, NULL when off it. */
HOT bool read_field(dump_json_fast *f, entry_field field, layout_key *lk, fr_entry *e) {
    switch (field) { /* by the kind of value */
    case F_RECORD_ID: return read_int(f, &e->record_id);
    case F_PG_ID: return read_int(f, &e->pg_id);
    case F_COLLECTIVE_SEQ_ID: return read_int(f, &e->collective_seq_id);
    case F_P2P_SEQ_ID: return read_int(f, &e->p2p_seq_id);
    case F_OP_ID: return read_int(f, &e->op_id);
    case F_TIME_CREATED_NS: return read_int(f, &e->time_created_ns);
    case F_TIMEOUT_MS: return read_int(f, &e->timeout_ms);
    case F_TIME_DISCOVERED_STARTED_NS: return read_int_or_null(f, &e->time_discovered_started_ns);
    case F_TIME_DISCOVERED_COMPLETED_NS:
        return read_int_or_null(f, &e->time_discovered_completed_ns);
    case F_RETIRED: return read_bool(f, &e->retired);
    case F_IS_P2P: return read_bool(f, &e->is_p2p);
    case F_DURATION_MS: return read_duration(f, e);
    case F_THREAD_NAME: return read_str_field(f, field, lk, &e->thread_name);
    case F_THREAD_ID: return read_thread_id(f, lk, e);
    case F_PROFILING_NAME:
        return literal(f, "null", 4) || read_str_field(f, field, lk, &e->profiling_name);
    case F_STATE: return read_state(f, lk, &e->state);
    case F_PROCESS_GROUP: return read_pg(f, lk, e);
    case F_INPUT_SIZES: return read_shapes(f, field, lk, &e->input_sizes);
    case F_OUTPUT_SIZES: return read_shapes(f, field, lk, &e->output_sizes);
    case F_INPUT_DTYPES: return read_dtypes(f, field, lk, &e->input_dtypes);
    case F_OUTPUT_DTYPES: return read_dtypes(f, field, lk, &e->output_dtypes);
    case F_FRAMES: return read_frames(f, lk, e);
    case F_COUNT:
    case F_UNKNOWN: break;
    }
    return false;
}

/* --- the layout ---------------------------------------------------------------------------- */

/* Whether the layout key is at p (room bytes from the end). A key of at most HEAD_BYTES is
 * compared in one run without a branch: the words of the input at p, masked to its length,
 * against the key's (there must be HEAD_BYTES of input left). */
HOT bool key_at(const layout_key *lk, const uint8_t *p, size_t room) {
    if (lk->len > HEAD_BYTES || room < HEAD_BYTES)
        return lk->len <= room && same_bytes(p, lk->raw, lk->len);
    uint64_t diff = 0;
    for (int i = 0; i < HEAD_BYTES / 8; i++)
        diff |= (load64(p + 8 * i) & lk->mask[i]) ^ lk->word[i];
    return diff == 0;
}

/* layout_take's look past layout[k]. */
static int layout_ahead(dump_json_fast *f, uint32_t k) {
    size_t room = left(f);
    for (uint32_t j = k + 1; j < f->layout_n && j < k + LOOKAHEAD; j++) {
        const layout_key *lk = &f->layout[j];
        if (key_at(lk, f->p, room)) {
            f->p += lk->len;
            return (int)j;
        }
    }
    return -1;
}

/* The layout key at the cursor among layout[k .. k + LOOKAHEAD): its index (the cursor then at
 * the value), or -1. A missing optional key costs a look ahead, not a slow read; layout[k] is
 * tried inline, the others out of line. */
HOT int layout_take(dump_json_fast *f, uint32_t k) {
    const layout_key *lk = &f->layout[k];
    if (k < f->layout_n && key_at(lk, f->p, left(f))) {
        f->p += lk->len;
        return (int)k;
    }
    return layout_ahead(f, k);
}

/* A key read the slow way from raw[0..len) becomes the layout's key at *k, unless the layout
 * has it already (then *k is past it) or is full. */
static void layout_learn(dump_json_fast *f, uint32_t *k, const uint8_t *raw, size_t len,
                         int field) {
    for (uint32_t j = 0; j < f->layout_n; j++)
        if (f->layout[j].len == len && memcmp(f->layout[j].raw, raw, len) == 0) {
            *k = j + 1;
            return;
        }
    if (f->layout_n == LAYOUT_MAX || len > KEY_MAX) return;
    memmove(&f->layout[*k + 1], &f->layout[*k], (f->layout_n - *k) * sizeof *f->layout);
    layout_key *lk = &f->layout[*k];
    *lk = (layout_key){ .raw = raw, .len = (uint32_t)len, .field = field };
    uint8_t head[HEAD_BYTES] = { 0 }, mask[HEAD_BYTES] = { 0 };
    memcpy(head, raw, len < HEAD_BYTES ? len : HEAD_BYTES);
    memset(mask, 0xFF, len < HEAD_BYTES ? len : HEAD_BYTES);
    for (int i = 0; i < HEAD_BYTES / 8; i++) {
        lk->word[i] = load64(head + 8 * i);
        lk->mask[i] = load64(mask + 8 * i);
    }
    f->layout_n++;
    ++*k;
}

/* An entry's key off the layout, read the slow way with the separator before it (the entry's
 * '{' for the first key, else the ',' after the previous value, blanks around) and learnt, the
 * separator included: its field, F_UNKNOWN, NOT_A_KEY (decline) or END_OF_ENTRY (the entry's
 * '}' instead, the cursor after it). Else the cursor at the value. */
static int read_key(dump_json_fast *f, uint32_t *k, bool first) {
    const uint8_t *raw = f->p;
    if (first && !next_is(f, '{')) return NOT_A_KEY;
    blanks(f);
    if (next_is(f, '}')) return END_OF_ENTRY;
    if (!first) {
        if (!next_is(f, ',')) return NOT_A_KEY;
        blanks(f);
    }
    const char *s;
    size_t n;
    if (!read_string(f, &s, &n)) return NOT_A_KEY;
    blanks(f);
    if (!next_is(f, ':')) return NOT_A_KEY;
    blanks(f);
    int field = dump_entry_field(s, n);
    layout_learn(f, k, raw, (size_t)(f->p - raw), field);
    return field;
}

/* --- entries and the root ------------------------------------------------------------------ */

/* Room for one more entry (dump_direct.h), the array no longer than the input can hold. */
static fr_entry *new_entry(dump_json_fast *f) {
    fr_entry *e = direct_entry_next(&f->entries);
    if (e) return e;
    size_t most = f->len / 64 + 1; /* an entry's required keys alone take more bytes */
    return direct_entries_grow(&f->entries, dump_arena(f->b), most) ? direct_entry_next(&f->entries)
                                                                    : NULL;
}

/* One entry, pair by pair: each key with the separator before it is the next of the layout or
 * one of the few after it (an optional key missing), else it is read the slow way. A key
 * learnt at an entry's start begins with '{', the others never do; so one must match only at
 * the start (where the cursor is at a '{') and none after a value (where a '{' declines). */
static bool read_entry(dump_json_fast *f, fr_entry *e) {
    if (peek(f) != '{') return false;
    dump_entry_init(e);
    uint32_t seen = 0, k = 0;
    for (bool first = true;; first = false) {
        int j = layout_take(f, k), field;
        layout_key *lk = NULL;
        if (j >= 0) {
            lk = &f->layout[j];
            field = lk->field;
            k = (uint32_t)j + 1;
        } else if ((field = read_key(f, &k, first)) < F_UNKNOWN) {
            return field == END_OF_ENTRY && dump_entry_complete(seen);
        }
        if (field == F_UNKNOWN) {
            if (!read_value(f, 2)) return false;
        } else {
            if (seen & 1u << field) return false; /* a repeated key: the generic path decides */
            seen |= 1u << field;
            if (!read_field(f, (entry_field)field, lk, e)) return false;
        }
        int c = peek(f);
        if (c == '}') {
            f->p++;
            return dump_entry_complete(seen);
        }
        if (c == '{') return false;
    }
}

static bool read_entries(dump_json_fast *f) {
    if (!next_is(f, '[')) return false;
    blanks(f);
    bool more = peek(f) != ']';
    if (!more) f->p++;
    while (more) {
        fr_entry *e = new_entry(f);
        if (!e || !read_entry(f, e) || !next_item(f, ']', &more)) return false;
    }
    return true;
}

/* One pair of the top-level dict into `dict`; "entries" (once) read as entries. */
static bool read_root_pair(dump_json_fast *f, fv *dict, bool *have_entries) {
    const char *s;
    size_t n;
    if (!read_string(f, &s, &n)) return false;
    bool entries = n == 7 && memcmp(s, "entries", 7) == 0;
    fv *key = fv_str(f->values, s, n), *value;
    blanks(f);
    if (!key || !next_is(f, ':')) return false;
    blanks(f);
    if (entries) {
        if (*have_entries || !read_entries(f)) return false;
        *have_entries = true;
        value = fv_list(f->values);
    } else {
        value = read_value(f, 1);
    }
    return value && fv_dict_set(f->values, dict, key, value);
}

/* The top-level dict, and nothing but blanks around it. */
static bool read_root(dump_json_fast *f, fv **root) {
    blanks(f);
    fv *dict = fv_dict(f->values);
    if (!dict || !next_is(f, '{')) return false;
    blanks(f);
    bool more = peek(f) != '}', have_entries = false;
    if (!more) f->p++;
    while (more)
        if (!read_root_pair(f, dict, &have_entries) || !next_item(f, '}', &more)) return false;
    blanks(f);
    if (f->p != f->end) return false;
    *root = dict;
    return true;
}

/* --- the entry points (dump_direct.h) ---------------------------------------------------- */

dump_json_fast *dump_json_fast_new(void) { return calloc(1, sizeof(dump_json_fast)); }

void dump_json_fast_free(dump_json_fast *f) {
    if (f) direct_free(f, &f->lists, f->text);
}

int dump_json_fast_read(dump_json_fast *f, dump_builder *b, const uint8_t *bytes, size_t len,
                        fv_arena *values, fv **root, fr_entry **entries, uint32_t *n) {
    if (++f->gen == 0) { /* after 2^32 files: the cache's old slots must not look current */
        memset(f->cache, 0, sizeof f->cache);
        f->gen = 1;
    }
    f->p = bytes;
    f->end = bytes + len;
    f->len = len;
    f->b = b;
    f->values = values;
    direct_entries_begin(&f->entries);
    f->layout_n = 0;
    if (!read_root(f, root)) return -1;
    direct_entries_end(&f->entries, entries, n);
    return 0;
}
