/* json_fast.h — the direct JSON reader's state and the primitives all its parts read with (private
 * to dump_json_fast.c, json_fast_cache.c, json_fast_text.c and json_fast_entry_values.c; users
 * see dump_direct.h).
 *
 * The reader is one cursor over the text, the layout of the entries' keys, and the value cache
 * (vslot: a value's raw text and what it decoded to). Its parts: dump_json_fast.c reads the root
 * and the entries along their layout, through the cache (the hot loop); json_fast_entry_values.c
 * decodes a value the cache has not seen, one reader per kind of field; json_fast_text.c reads
 * strings (escapes through json_literal.c), numbers and the header's value tree;
 * json_fast_cache.c keeps the values met before. What the hot
 * loop uses for every entry is here, always inlined (HOT): the byte cursor, blanks, word
 * compares, ints eight digits at a time, container separators. Every primitive declines
 * (false, NULL) instead of failing: the generic path decides what a stray byte means.
 */
#ifndef FRTRACE_JSON_FAST_H
#define FRTRACE_JSON_FAST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "dump_direct.h"
#include "json_literal.h"

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

/* What reads one kind of value into v->v (false: decline), for the value cache. */
typedef bool (*value_reader)(dump_json_fast *f, int field, vslot *v);

/* json_fast_text.c: strings, numbers, and any value as a node of the header's tree */
bool jf_ensure(void **buf, size_t *cap, size_t n, size_t size); /* room for n items */
/* The string at the cursor, decoded (*s valid until the next string), cursor after it. */
bool jf_read_string(dump_json_fast *f, const char **s, size_t *n);
const char *jf_read_interned(dump_json_fast *f); /* a string, interned in the dump */
bool jf_read_int_slow(dump_json_fast *f, int64_t *out);
bool jf_read_number(dump_json_fast *f, bool *is_int, int64_t *i, double *d);
fv *jf_read_value(dump_json_fast *f, int depth);

/* json_fast_entry_values.c: the value_readers of the entry fields the cache keeps */
bool jf_str_value(dump_json_fast *f, int field, vslot *v);
bool jf_state_value(dump_json_fast *f, int field, vslot *v);
bool jf_pg_value(dump_json_fast *f, int field, vslot *v);
bool jf_dtypes_value(dump_json_fast *f, int field, vslot *v);
bool jf_shapes_value(dump_json_fast *f, int field, vslot *v);
bool jf_frames_value(dump_json_fast *f, int field, vslot *v);

/* json_fast_cache.c: `cached` on a miss of the key's last two values: the table, else `read` */
const vslot *jf_cached_slow(dump_json_fast *f, int field, layout_key *lk, value_reader read);

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

/* Whether the 8 bytes of w hold a quote, a backslash, a control byte or a non-ASCII byte. */
HOT bool word_is_special(uint64_t w) {
    const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
    uint64_t quote = w ^ (ones * '"'), backslash = w ^ (ones * '\\');
    uint64_t zero_q = (quote - ones) & ~quote, zero_b = (backslash - ones) & ~backslash;
    uint64_t control = (w - ones * 0x20) & ~w;
    return ((zero_q | zero_b | control) & highs) != 0 || (w & highs) != 0;
}

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

/* An int at the cursor: an integer literal within 64 bits, the cursor after it. As with
 * number_token, what follows is the caller's to check: each takes only a separator there, so
 * "6.5" or "6e1" declines after "6" is read. The common case (no sign, no leading zero but 0
 * itself, at most 19 digits, 24 bytes from the end at least) is read eight digits at a time
 * from at most three words. */
HOT bool read_int(dump_json_fast *f, int64_t *out) {
    const uint8_t *p = f->p;
    if (f->end - p < 24 || (p[0] == '0' && json_is_digit(p[1]))) return jf_read_int_slow(f, out);
    uint64_t w = load64(p), v;
    unsigned n = digits_in(w);
    if (n == 1) {
        v = (uint64_t)(p[0] - '0');
    } else if (n < 8) {
        if (!n) return jf_read_int_slow(f, out);
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
                return jf_read_int_slow(f, out); /* too long, or past 64 bits */
            n += more;
        }
    }
    *out = (int64_t)v;
    f->p = p + n;
    return true;
}

HOT bool literal(dump_json_fast *f, const char *word, size_t n) {
    if (left(f) < n || memcmp(f->p, word, n) != 0) return false;
    f->p += n;
    return true;
}

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
    return jf_cached_slow(f, field, lk, read);
}

#endif
