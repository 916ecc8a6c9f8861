/* dump_pickle_fast.c — the direct path from a PyTorch pickle to fr_entry structs, without a value
 * tree.
 *
 * PyTorch's C++ pickler writes every dump in one regular shape: a top-level dict; each
 * container an EMPTY_DICT or EMPTY_LIST followed by MARK ... SETITEMS / APPENDS batches; strings
 * memoized by content (BINPUT after the first occurrence, BINGET after that), frame dicts
 * memoized too; a tuple only for `process_group` (TUPLE2); ints as BININT1/BININT2/BININT/LONG1.
 * The generic path (pickle_read's value tree, then dump.c's mapping) spends most of a large
 * job's decoding time building that tree and walking it again. This path reads the regular
 * shape by recursive descent instead and writes each entry's fields straight into its
 * fr_entry, through the same builder as the generic path (dump_builder.h): same interning, same
 * shared lists, same rules. A memoized string is decided once — its interned copy, its meaning
 * as an entry key, as a state, as a dtype — so the 2 000 entries of a dump that repeat the same
 * twenty keys cost a table lookup per key. Most entries cost less still: the entries of a dump
 * write the same keys in the same order, so each entry is read along the keys of the one before
 * it (its layout), key bytes compared instead of looked up, and the common encoding of each
 * value (an int, a memoized string, a shape list met before) read in place within a 16-byte
 * margin of the input's end; where an entry differs, the rest of it is read key by key and
 * becomes the next layout. The header (version, pg_config, pg_status, ...) is
 * small: it is read into a value tree as before and mapped by dump.c, so both paths share every
 * rule about it.
 *
 * It is only a fast path. Whenever the bytes stray from that shape — another opcode, a tuple
 * elsewhere, a memoized container read back, a repeated entry key, a string that is not ASCII,
 * a value of another type than the field takes, a truncated file, anything the generic path
 * might report — it declines, and dump.c decodes the file the generic way, which then gives the
 * generic result or error. Declining is always safe, so this path has no error messages; what
 * it accepts it must decode exactly as the generic path would, which the tests check file by
 * file (tests/unit/test_dump_pickle_fast.c).
 *
 * Hostile input: every read is bounds-checked (running out declines) or made where at least
 * LAYOUT_MARGIN bytes are known to remain, recursion is bounded
 * (MAX_DEPTH), memo ids are bounded (MEMO_MAX and the input's length), memory stays within the
 * generic reader's budget (64 MiB + 32 bytes per input byte), and no memoized container is
 * ever read back, so the work is linear in the input.
 */
#include "dump_direct.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "pickle_opcodes.h"
#include "grow.h"

enum { MAX_DEPTH = 32, MEMO_MAX = 1u << 22, FRAME_PENDING_MAX = 4, LAYOUT_MAX = 32 };
enum { NOT_ASKED = -2 };

typedef enum slot_kind {
    SLOT_EMPTY,
    SLOT_STR,   /* a string: bytes[0..len) */
    SLOT_VALUE, /* a scalar read by the header path: node */
    SLOT_FRAME, /* a frame dict of an entry's stack: frame */
    SLOT_OTHER, /* anything this path never reads back (containers, ints of entries) */
} slot_kind;

/* One memo entry. A string's interned copy, its meaning as an entry key, as a state and as a
 * dtype are worked out the first time they are needed and kept, for every later BINGET. */
typedef struct memo_slot {
    uint8_t kind;
    int8_t field; /* entry_field of the string as a key, or NOT_ASKED */
    int8_t state; /* fr_state, -1 for no state, or NOT_ASKED */
    uint32_t len;
    const char *bytes;    /* SLOT_STR: in the input or in a header node */
    const char *interned; /* SLOT_STR: the dump's copy, once asked */
    const char *dtype;    /* SLOT_STR: the normalized dtype, once asked */
    fv *node;             /* SLOT_VALUE: the scalar; SLOT_STR: its node, once the header needs it */
    fr_frame frame;       /* SLOT_FRAME */
    fr_strings dtypes;    /* SLOT_STR: the dtype list of just this string, once asked */
} memo_slot;

/* A list met before, by its bytes. A shape list reads without a GET or a PUT, a stack of
 * memoized frames with GETs only: while no PUT has replaced a memo entry (`overwrites`), the same
 * bytes read the same list, and the entries of one call site repeat their sizes and their stack.
 * `items` is what the builder stored (fr_shape or fr_frame), `count` how many. */
enum { SPANS = 8, SPAN_MAX = 4096 };

typedef struct span {
    const uint8_t *bytes; /* in the input; NULL: unused */
    size_t len;
    uint64_t overwrites; /* f->overwrites when it was read */
    uint32_t count;
    const void *items;
} span;

typedef struct span_cache {
    span v[SPANS];
    unsigned next;
} span_cache;

/* Shape lists: a job has a few dozen distinct ones, read at every entry, so they sit in a
 * direct-mapped table found by a hash of the 16 bytes at the cursor. A list shorter than that
 * is followed by the next key, which the entries of one dump write the same way, so the same
 * list at the same place in an entry hashes the same. */
enum { SHAPE_SLOTS = 64, SHAPE_KEY = 16 };

struct dump_pickle_fast {
    const uint8_t *p, *end; /* the cursor and the end of the input */
    size_t len;             /* of the whole input */
    dump_builder *b;
    fv_arena *values; /* the header's value tree */
    size_t budget;    /* bytes this file may take: the generic reader's limit */
    memo_slot *memo;
    uint32_t memo_cap, memo_hi; /* slots allocated; slots possibly set (cleared per file) */
    memo_slot loose;            /* a string that is not memoized */
    direct_entries entries;
    direct_lists lists;
    uint64_t puts;       /* PUTs read so far: a span read without one does not change the memo */
    uint64_t overwrites; /* PUTs that replaced a memo entry: spans of GETs read the same without */
    span shapes[SHAPE_SLOTS];
    span_cache stack_spans;
    /* For BINGET ids 0..255 (where torch's entry keys sit): the entry field of the string the
     * memo holds there, F_UNKNOWN for another string, NOT_A_KEY for anything else; so the key of
     * each pair costs a byte of this table instead of a look at the memo. Kept by memo_set. */
    int8_t key_field[256];
    /* The keys of the last entry read key by key, in order, when each was a 1-byte BINGET of a
     * known field in one batch: the entries of a dump repeat one order of keys, so the next
     * entry's keys are checked against it byte by byte and need no look-up at all (see
     * read_entry). Valid while no PUT has replaced a memo entry (layout_overwrites). */
    uint8_t layout_id[LAYOUT_MAX];
    int8_t layout_field[LAYOUT_MAX];
    uint32_t layout_seen[LAYOUT_MAX + 1]; /* [k]: the bits of the fields of keys 0..k-1 */
    uint32_t layout_n;
    uint64_t layout_overwrites;
};

enum { NOT_A_KEY = -3 };

dump_pickle_fast *dump_pickle_fast_new(void) { return calloc(1, sizeof(dump_pickle_fast)); }

void dump_pickle_fast_free(dump_pickle_fast *f) {
    if (f) direct_free(f, &f->lists, f->memo);
}

/* --- bytes --------------------------------------------------------------------------------- */

static inline int peek(const dump_pickle_fast *f) { return f->p < f->end ? *f->p : -1; }

static inline bool next_is(dump_pickle_fast *f, int op) {
    if (peek(f) != op) return false;
    f->p++;
    return true;
}

static inline size_t left(const dump_pickle_fast *f) { return (size_t)(f->end - f->p); }

static inline uint32_t le32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Room for n items in a scratch array (false when out of memory or over the budget). */
static bool ensure(dump_pickle_fast *f, void **buf, size_t *cap, size_t n, size_t size) {
    if (n <= *cap) return true;
    if (fr_grown_cap(*cap, n, 64) > f->budget / size) return false;
    return fr_grow(buf, cap, n, size, 64) == 0;
}

/* Text this path takes as is: ASCII (the generic reader checks other UTF-8). */
static bool ascii(const uint8_t *s, size_t n) {
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, s + i, 8);
        if (w & 0x8080808080808080ull) return false;
    }
    for (; i < n; i++)
        if (s[i] & 0x80) return false;
    return true;
}

/* --- memo ---------------------------------------------------------------------------------- */

static bool memo_reserve(dump_pickle_fast *f, uint32_t id) {
    if (id >= f->memo_cap) {
        if (id >= MEMO_MAX || id > f->len) return false;
        uint32_t cap = f->memo_cap ? f->memo_cap : 256;
        while (cap <= id) cap *= 2;
        memo_slot *memo = realloc(f->memo, (size_t)cap * sizeof *memo);
        if (!memo) return false;
        memset(memo + f->memo_cap, 0, (size_t)(cap - f->memo_cap) * sizeof *memo);
        f->memo = memo;
        f->memo_cap = cap;
    }
    if (id >= f->memo_hi) f->memo_hi = id + 1;
    return true;
}

#define HOT static inline __attribute__((always_inline))

static inline bool is_put(int op) { return op == OP_BINPUT || op == OP_LONG_BINPUT; }

/* The id after a memo opcode at the cursor, the 1-byte form `short_op` (BINPUT, BINGET) or the
 * 4-byte one `long_op`, consumed: 1; no such opcode: 0; cut short: -1. */
HOT int take_memo_id(dump_pickle_fast *f, int short_op, int long_op, uint32_t *id) {
    int op = peek(f);
    if (op == short_op && left(f) >= 2) {
        *id = f->p[1];
        f->p += 2;
    } else if (op == long_op && left(f) >= 5) {
        *id = le32(f->p + 1);
        f->p += 5;
    } else {
        return op == short_op || op == long_op ? -1 : 0;
    }
    return 1;
}

/* A PUT at the cursor: consumes it and gives its id (1), none there (0), or declines (-1). */
HOT int take_put(dump_pickle_fast *f, uint32_t *id) {
    int r = take_memo_id(f, OP_BINPUT, OP_LONG_BINPUT, id);
    if (r <= 0) return r;
    f->puts++;
    if (!memo_reserve(f, *id)) return -1;
    if (f->memo[*id].kind != SLOT_EMPTY) f->overwrites++;
    return 1;
}

static int slot_field(memo_slot *s);

/* Memo entry `id` (reserved) becomes `value`; key_field follows. */
HOT memo_slot *memo_set(dump_pickle_fast *f, uint32_t id, memo_slot value) {
    memo_slot *s = &f->memo[id];
    *s = value;
    if (id < 256) f->key_field[id] = (int8_t)(value.kind == SLOT_STR ? slot_field(s) : NOT_A_KEY);
    return s;
}

/* The PUTs after a value: each memoizes a copy of `value`. */
HOT bool put_all(dump_pickle_fast *f, memo_slot value) {
    uint32_t id;
    int r;
    while ((r = take_put(f, &id)) == 1) memo_set(f, id, value);
    return r == 0;
}

/* The PUTs after a value this path never reads back. */
HOT bool put_other(dump_pickle_fast *f) {
    return !is_put(peek(f)) || put_all(f, (memo_slot){ .kind = SLOT_OTHER });
}

/* The slot a GET at the cursor names, consumed; NULL when there is no GET or no such slot. */
HOT memo_slot *take_get(dump_pickle_fast *f) {
    uint32_t id;
    if (take_memo_id(f, OP_BINGET, OP_LONG_BINGET, &id) <= 0) return NULL;
    if (id >= f->memo_hi || f->memo[id].kind == SLOT_EMPTY) return NULL;
    return &f->memo[id];
}

/* --- scalars ------------------------------------------------------------------------------- */

static int slot_field(memo_slot *s) {
    if (s->field == NOT_ASKED) s->field = (int8_t)dump_entry_field(s->bytes, s->len);
    return s->field;
}

/* A str at the cursor, new or memoized, with the PUTs after it: its slot, or NULL. The slot of
 * a string that is not memoized is f->loose, good until the next string. */
HOT memo_slot *read_str(dump_pickle_fast *f) {
    int op = peek(f);
    if (op == OP_BINGET || op == OP_LONG_BINGET) {
        memo_slot *s = take_get(f);
        if (!s || s->kind != SLOT_STR) return NULL;
        return is_put(peek(f)) ? NULL : s; /* torch never re-memoizes */
    }
    size_t n, head;
    if (op == OP_BINUNICODE && left(f) >= 5)
        n = le32(f->p + 1), head = 5;
    else if (op == OP_SHORT_BINUNICODE && left(f) >= 2)
        n = f->p[1], head = 2;
    else
        return NULL;
    if (left(f) - head < n) return NULL;
    const uint8_t *bytes = f->p + head;
    if (!ascii(bytes, n)) return NULL;
    f->p += head + n;
    memo_slot value = { .kind = SLOT_STR,
                        .field = NOT_ASKED,
                        .state = NOT_ASKED,
                        .len = (uint32_t)n,
                        .bytes = (const char *)bytes };
    uint32_t id;
    int r = take_put(f, &id);
    if (r < 0) return NULL;
    memo_slot *s = r ? memo_set(f, id, value) : (f->loose = value, &f->loose);
    return is_put(peek(f)) ? NULL : s;
}

HOT const char *slot_interned(dump_pickle_fast *f, memo_slot *s) {
    if (!s->interned) s->interned = dump_intern(f->b, s->bytes, s->len);
    return s->interned;
}

static int slot_state(dump_pickle_fast *f, memo_slot *s) {
    if (s->state == NOT_ASKED) {
        const char *text = slot_interned(f, s);
        s->state = (int8_t)(text ? dump_state_of(text) : -1);
    }
    return s->state;
}

static const char *slot_dtype(dump_pickle_fast *f, memo_slot *s) {
    if (!s->dtype) {
        const char *text = slot_interned(f, s);
        s->dtype = text ? dump_dtype(f->b, text) : NULL;
    }
    return s->dtype;
}

static bool slot_is(const memo_slot *s, const char *name) {
    size_t n = strlen(name);
    return s->len == n && memcmp(s->bytes, name, n) == 0;
}

/* An int opcode at the cursor (without the PUTs after it). */
HOT bool read_int_raw(dump_pickle_fast *f, int64_t *out) {
    const uint8_t *p = f->p;
    switch (peek(f)) {
    case OP_BININT1:
        if (left(f) < 2) return false;
        *out = p[1];
        f->p += 2;
        return true;
    case OP_BININT2:
        if (left(f) < 3) return false;
        *out = (int64_t)p[1] | (int64_t)p[2] << 8;
        f->p += 3;
        return true;
    case OP_BININT:
        if (left(f) < 5) return false;
        *out = (int32_t)le32(p + 1);
        f->p += 5;
        return true;
    case OP_LONG1: {
        if (left(f) < 2) return false;
        size_t n = p[1];
        if (n > 8 || left(f) - 2 < n) return false;
        uint64_t v = 0;
        if (n == 8)
            v = (uint64_t)le32(p + 2) | (uint64_t)le32(p + 6) << 32; /* the time stamps */
        else
            for (size_t i = 0; i < n; i++) v |= (uint64_t)p[2 + i] << (8 * i);
        if (n > 0 && n < 8 && (p[1 + n] & 0x80)) v |= ~(uint64_t)0 << (8 * n);
        memcpy(out, &v, sizeof *out);
        f->p += 2 + n;
        return true;
    }
    default: return false;
    }
}

HOT bool read_int(dump_pickle_fast *f, int64_t *out) {
    return read_int_raw(f, out) && put_other(f);
}

HOT bool read_str_field(dump_pickle_fast *f, const char **out) {
    memo_slot *s = read_str(f);
    return s && (*out = slot_interned(f, s)) != NULL;
}

/* None (as 0) or an int: time_discovered_*. */
static bool read_int_or_none(dump_pickle_fast *f, int64_t *out) {
    if (next_is(f, OP_NONE)) {
        *out = 0;
        return put_other(f);
    }
    return read_int(f, out);
}

/* A bool, or the ints 0 and 1. */
static bool read_bool(dump_pickle_fast *f, bool *out) {
    int64_t i;
    if (next_is(f, OP_NEWTRUE))
        *out = true;
    else if (next_is(f, OP_NEWFALSE))
        *out = false;
    else if (read_int_raw(f, &i) && (i == 0 || i == 1))
        *out = i == 1;
    else
        return false;
    return put_other(f);
}

static bool read_float_raw(dump_pickle_fast *f, double *out) {
    if (peek(f) != OP_BINFLOAT || left(f) < 9) return false;
    uint64_t bits = 0;
    for (int i = 1; i <= 8; i++) bits = bits << 8 | f->p[i];
    memcpy(out, &bits, sizeof *out);
    f->p += 9;
    return true;
}

/* --- the header's values, and values this path skips --------------------------------------------
 */

static fv *str_node(dump_pickle_fast *f, memo_slot *s) {
    if (!s->node) s->node = fv_str(f->values, s->bytes, s->len);
    return s->node;
}

static fv *read_value(dump_pickle_fast *f, int depth);

/* The items of EMPTY_LIST's batches, into `list`. */
static bool read_list_items(dump_pickle_fast *f, fv *list, int depth) {
    while (next_is(f, OP_MARK)) {
        while (peek(f) != OP_APPENDS) {
            fv *item = read_value(f, depth + 1);
            if (!item || !fv_seq_push(f->values, list, item)) return false;
        }
        f->p++;
        if (!put_other(f)) return false;
    }
    return true;
}

static bool read_dict_items(dump_pickle_fast *f, fv *dict, int depth) {
    while (next_is(f, OP_MARK)) {
        while (peek(f) != OP_SETITEMS) {
            fv *key = read_value(f, depth + 1);
            if (!key || key->kind == FV_LIST || key->kind == FV_DICT || key->kind == FV_TUPLE)
                return false;
            fv *value = read_value(f, depth + 1);
            if (!value || !fv_dict_set(f->values, dict, key, value)) return false;
        }
        f->p++;
        if (!put_other(f)) return false;
    }
    return true;
}

/* A scalar of the header with the PUTs after it. */
static fv *scalar(dump_pickle_fast *f, fv *node) {
    return node && put_all(f, (memo_slot){ .kind = SLOT_VALUE, .node = node }) ? node : NULL;
}

/* Any value of the regular shape, as a node of the header's tree (NULL: decline). */
static fv *read_value(dump_pickle_fast *f, int depth) {
    if (depth > MAX_DEPTH || fv_arena_used(f->values) > f->budget) return NULL;
    int64_t i;
    double d;
    fv *v;
    switch (peek(f)) {
    case OP_BINUNICODE:
    case OP_SHORT_BINUNICODE: {
        memo_slot *s = read_str(f);
        return s ? str_node(f, s) : NULL;
    }
    case OP_BINGET:
    case OP_LONG_BINGET: {
        memo_slot *s = take_get(f);
        if (!s || (s->kind != SLOT_STR && s->kind != SLOT_VALUE)) return NULL;
        if (is_put(peek(f))) return NULL;
        return s->kind == SLOT_STR ? str_node(f, s) : s->node;
    }
    case OP_BININT1:
    case OP_BININT2:
    case OP_BININT:
    case OP_LONG1: return read_int_raw(f, &i) ? scalar(f, fv_int(f->values, i)) : NULL;
    case OP_BINFLOAT: return read_float_raw(f, &d) ? scalar(f, fv_float(f->values, d)) : NULL;
    case OP_NONE: f->p++; return scalar(f, fv_none(f->values));
    case OP_NEWTRUE: f->p++; return scalar(f, fv_bool(f->values, true));
    case OP_NEWFALSE: f->p++; return scalar(f, fv_bool(f->values, false));
    case OP_EMPTY_TUPLE: f->p++; return (v = fv_tuple(f->values)) && put_other(f) ? v : NULL;
    case OP_EMPTY_LIST:
        f->p++;
        return (v = fv_list(f->values)) && put_other(f) && read_list_items(f, v, depth) ? v : NULL;
    case OP_EMPTY_DICT:
        f->p++;
        return (v = fv_dict(f->values)) && put_other(f) && read_dict_items(f, v, depth) ? v : NULL;
    default: return NULL;
    }
}

/* --- entry fields -------------------------------------------------------------------------- */

/* (name, desc): a TUPLE2 of two strs as torch writes it, or a list of exactly two. */
static bool read_process_group(dump_pickle_fast *f, fr_entry *e) {
    bool list = next_is(f, OP_EMPTY_LIST);
    if (list && !(put_other(f) && next_is(f, OP_MARK))) return false;
    if (!read_str_field(f, &e->pg_name) || !read_str_field(f, &e->pg_desc)) return false;
    if (!list) return next_is(f, OP_TUPLE2) && put_other(f);
    return next_is(f, OP_APPENDS) && put_other(f) && peek(f) != OP_MARK;
}

static bool read_shapes_fresh(dump_pickle_fast *f, fr_shapes *out) {
    if (!next_is(f, OP_EMPTY_LIST) || !put_other(f)) return false;
    size_t nshapes = 0, ndims = 0;
    while (next_is(f, OP_MARK)) {
        while (peek(f) != OP_APPENDS) {
            if (!next_is(f, OP_EMPTY_LIST) || !put_other(f)) return false;
            if (!ensure(f, (void **)&f->lists.ndims, &f->lists.ndims_cap, nshapes + 1,
                        sizeof *f->lists.ndims))
                return false;
            size_t first = ndims;
            while (next_is(f, OP_MARK)) {
                while (peek(f) != OP_APPENDS) {
                    if (!ensure(f, (void **)&f->lists.dims, &f->lists.dims_cap, ndims + 1,
                                sizeof *f->lists.dims))
                        return false;
                    if (!read_int(f, &f->lists.dims[ndims])) return false;
                    ndims++;
                }
                f->p++;
                if (!put_other(f)) return false;
            }
            f->lists.ndims[nshapes++] = (uint32_t)(ndims - first);
        }
        f->p++;
        if (!put_other(f)) return false;
    }
    return dump_store_shapes(f->b, (uint32_t)nshapes, f->lists.ndims, f->lists.dims, out) == 0;
}

static inline uint64_t word_at(const uint8_t *p) {
    uint64_t w;
    memcpy(&w, p, sizeof w);
    return w;
}

/* Whether a[0..n) and b[0..n) are equal. Shape lists are 8 to 16 bytes that mostly differ at
 * their end (the lists all open with "](](M"), so the last word is compared first and such a
 * list takes two compares instead of a call. */
HOT bool same_bytes(const uint8_t *a, const uint8_t *b, size_t n) {
    if (n < 8) return memcmp(a, b, n) == 0;
    if (word_at(a + n - 8) != word_at(b + n - 8)) return false;
    return n <= 16 ? word_at(a) == word_at(b) : memcmp(a, b, n - 8) == 0;
}

/* The list of the cache whose bytes are at the cursor, or NULL. */
HOT const span *span_find(const dump_pickle_fast *f, const span_cache *c) {
    for (unsigned k = 0; k < SPANS; k++) {
        const span *sp = &c->v[k];
        if (sp->bytes && sp->len < left(f) && same_bytes(sp->bytes, f->p, sp->len) &&
            !is_put(f->p[sp->len]) && sp->overwrites == f->overwrites)
            return sp;
    }
    return NULL;
}

/* Keeps the list just read from `start` when reading it put nothing in the memo (`puts`: the
 * count before). */
static void span_keep(dump_pickle_fast *f, span_cache *c, const uint8_t *start, uint64_t puts,
                      uint32_t count, const void *items) {
    size_t len = (size_t)(f->p - start);
    if (f->puts == puts && len <= SPAN_MAX)
        c->v[c->next++ % SPANS] = (span){ start, len, f->overwrites, count, items };
}

/* The slot of the shape table for the list at p (SHAPE_KEY bytes are there). */
static inline span *shape_slot(const dump_pickle_fast *f, const uint8_t *p) {
    uint64_t h = word_at(p) * 0x9e3779b97f4a7c15ull ^ word_at(p + 8) * 0xc2b2ae3d27d4eb4full;
    return (span *)&f->shapes[h >> 58 & (SHAPE_SLOTS - 1)];
}

/* Whether the slot holds the list at p, with `room` bytes there. */
static inline bool shape_hit(const dump_pickle_fast *f, const span *sp, const uint8_t *p,
                             size_t room) {
    return sp->bytes && sp->len < room && sp->overwrites == f->overwrites &&
           same_bytes(sp->bytes, p, sp->len) && !is_put(p[sp->len]);
}

static bool read_shapes(dump_pickle_fast *f, fr_shapes *out) {
    span *sp = left(f) >= SHAPE_KEY ? shape_slot(f, f->p) : NULL;
    if (sp && shape_hit(f, sp, f->p, left(f))) {
        f->p += sp->len;
        *out = (fr_shapes){ sp->count, sp->items };
        return true;
    }
    const uint8_t *start = f->p;
    uint64_t puts = f->puts;
    if (!read_shapes_fresh(f, out)) return false;
    size_t len = (size_t)(f->p - start);
    if (sp && f->puts == puts && len <= SPAN_MAX)
        *sp = (span){ start, len, f->overwrites, out->count, out->shapes };
    return true;
}

/* The dtype list at p when it is [one memoized dtype] (EMPTY_LIST MARK BINGET id APPENDS, as
 * torch writes most lists) whose string was read as a dtype list before; NULL otherwise. The
 * caller knows that 5 bytes are there. */
static inline const fr_strings *one_dtype_at(const dump_pickle_fast *f, const uint8_t *p) {
    if (p[0] != OP_EMPTY_LIST || p[1] != OP_MARK || p[2] != OP_BINGET || p[4] != OP_APPENDS ||
        p[3] >= f->memo_hi)
        return NULL;
    const memo_slot *s = &f->memo[p[3]];
    return s->kind == SLOT_STR && s->dtypes.items ? &s->dtypes : NULL;
}

static bool read_dtypes(dump_pickle_fast *f, fr_strings *out) {
    const fr_strings *known = left(f) >= 6 && !is_put(f->p[5]) ? one_dtype_at(f, f->p) : NULL;
    if (known) {
        f->p += 5;
        *out = *known;
        return true;
    }
    if (!next_is(f, OP_EMPTY_LIST) || !put_other(f)) return false;
    size_t n = 0;
    ptrdiff_t only = -1; /* the memo slot of the last item (a PUT may move the memo) */
    while (next_is(f, OP_MARK)) {
        while (peek(f) != OP_APPENDS) {
            memo_slot *s = read_str(f);
            if (!s || !ensure(f, (void **)&f->lists.strs, &f->lists.strs_cap, n + 1,
                              sizeof *f->lists.strs))
                return false;
            if (!(f->lists.strs[n++] = slot_dtype(f, s))) return false;
            only = s == &f->loose ? -1 : s - f->memo;
        }
        f->p++;
        if (!put_other(f)) return false;
    }
    if (dump_store_dtypes(f->b, (uint32_t)n, f->lists.strs, out) != 0) return false;
    if (n == 1 && only >= 0) f->memo[only].dtypes = *out;
    return true;
}

/* PUTs inside or after a frame dict whose frame is not known yet: noted, filled in at the end. */
static bool note_pending(dump_pickle_fast *f, uint32_t *pending, int *npending) {
    uint32_t id;
    int r;
    while ((r = take_put(f, &id)) == 1) {
        if (*npending == FRAME_PENDING_MAX) return false;
        memo_set(f, id,
                 (memo_slot){ .kind = SLOT_OTHER }); /* a dict read back inside itself: decline */
        pending[(*npending)++] = id;
    }
    return r == 0;
}

/* One frame: a memoized frame dict, or a new {"name", "filename", "line"} dict. */
static bool read_frame(dump_pickle_fast *f, fr_frame *out) {
    if (peek(f) == OP_BINGET || peek(f) == OP_LONG_BINGET) {
        memo_slot *s = take_get(f);
        if (!s || s->kind != SLOT_FRAME) return false;
        *out = s->frame;
        return !is_put(peek(f));
    }
    uint32_t pending[FRAME_PENDING_MAX];
    int npending = 0;
    if (!next_is(f, OP_EMPTY_DICT) || !note_pending(f, pending, &npending)) return false;
    *out = (fr_frame){ .name = "", .filename = "", .line = 0 };
    unsigned seen = 0;
    while (next_is(f, OP_MARK)) {
        while (peek(f) != OP_SETITEMS) {
            memo_slot *key = read_str(f);
            if (!key) return false;
            unsigned bit = slot_is(key, "name")       ? 1
                           : slot_is(key, "filename") ? 2
                           : slot_is(key, "line")     ? 4
                                                      : 0;
            if (bit & seen) return false; /* a repeated key: the generic path decides */
            seen |= bit;
            bool ok = bit == 1   ? read_str_field(f, &out->name)
                      : bit == 2 ? read_str_field(f, &out->filename)
                      : bit == 4 ? read_int(f, &out->line)
                                 : read_value(f, 1) != NULL;
            if (!ok) return false;
        }
        f->p++;
        if (!note_pending(f, pending, &npending)) return false;
    }
    for (int i = 0; i < npending; i++)
        memo_set(f, pending[i], (memo_slot){ .kind = SLOT_FRAME, .frame = *out });
    return true;
}

static bool read_frames_fresh(dump_pickle_fast *f, fr_entry *e) {
    if (!next_is(f, OP_EMPTY_LIST) || !put_other(f)) return false;
    size_t n = 0;
    while (next_is(f, OP_MARK)) {
        while (peek(f) != OP_APPENDS) {
            if (!ensure(f, (void **)&f->lists.frames, &f->lists.frames_cap, n + 1,
                        sizeof *f->lists.frames))
                return false;
            if (!read_frame(f, &f->lists.frames[n++])) return false;
        }
        f->p++;
        if (!put_other(f)) return false;
    }
    return dump_store_frames(f->b, f->lists.frames, (uint32_t)n, e) == 0;
}

static bool read_frames(dump_pickle_fast *f, fr_entry *e) {
    const span *sp = span_find(f, &f->stack_spans);
    if (sp) {
        f->p += sp->len;
        e->nframes = sp->count;
        e->frames = sp->items;
        return true;
    }
    const uint8_t *start = f->p;
    uint64_t puts = f->puts;
    if (!read_frames_fresh(f, e)) return false;
    span_keep(f, &f->stack_spans, start, puts, e->nframes, e->frames);
    return true;
}

static bool read_state(dump_pickle_fast *f, fr_state *out) {
    memo_slot *s = read_str(f);
    int state = s ? slot_state(f, s) : -1;
    if (state < 0) return false;
    *out = (fr_state)state;
    return true;
}

static bool read_field(dump_pickle_fast *f, entry_field field, fr_entry *e) {
    int64_t i;
    switch (field) {
    case F_RECORD_ID: return read_int(f, &e->record_id);
    case F_PG_ID: return read_int(f, &e->pg_id);
    case F_PROCESS_GROUP: return read_process_group(f, e);
    case F_THREAD_NAME: return read_str_field(f, &e->thread_name);
    case F_THREAD_ID:
        if (peek(f) == OP_BINUNICODE || peek(f) == OP_SHORT_BINUNICODE || peek(f) == OP_BINGET ||
            peek(f) == OP_LONG_BINGET)
            return read_str_field(f, &e->thread_id);
        return read_int(f, &i) && (e->thread_id = dump_thread_id_text(f->b, i)) != NULL;
    case F_COLLECTIVE_SEQ_ID: return read_int(f, &e->collective_seq_id);
    case F_P2P_SEQ_ID: return read_int(f, &e->p2p_seq_id);
    case F_OP_ID: return read_int(f, &e->op_id);
    case F_PROFILING_NAME:
        if (next_is(f, OP_NONE)) return put_other(f);
        return read_str_field(f, &e->profiling_name);
    case F_TIME_CREATED_NS: return read_int(f, &e->time_created_ns);
    case F_DURATION_MS:
        if (next_is(f, OP_NONE)) return put_other(f);
        if (read_float_raw(f, &e->duration_ms))
            e->has_duration = true;
        else if (read_int_raw(f, &i))
            e->duration_ms = (double)i, e->has_duration = true;
        else
            return false;
        return put_other(f);
    case F_INPUT_SIZES: return read_shapes(f, &e->input_sizes);
    case F_INPUT_DTYPES: return read_dtypes(f, &e->input_dtypes);
    case F_OUTPUT_SIZES: return read_shapes(f, &e->output_sizes);
    case F_OUTPUT_DTYPES: return read_dtypes(f, &e->output_dtypes);
    case F_STATE: return read_state(f, &e->state);
    case F_TIME_DISCOVERED_STARTED_NS: return read_int_or_none(f, &e->time_discovered_started_ns);
    case F_TIME_DISCOVERED_COMPLETED_NS:
        return read_int_or_none(f, &e->time_discovered_completed_ns);
    case F_RETIRED: return read_bool(f, &e->retired);
    case F_TIMEOUT_MS: return read_int(f, &e->timeout_ms);
    case F_IS_P2P: return read_bool(f, &e->is_p2p);
    case F_FRAMES: return read_frames(f, e);
    case F_COUNT:
    case F_UNKNOWN: break;
    }
    return false;
}

/* --- entries and the root ------------------------------------------------------------------ */

/* Room for one more entry (dump_direct.h), the array within the budget. */
static fr_entry *new_entry(dump_pickle_fast *f) {
    fr_entry *e = direct_entry_next(&f->entries);
    if (e) return e;
    size_t used = fv_arena_used(f->values);
    size_t most = used < f->budget ? (f->budget - used) / sizeof(fr_entry) : 0;
    return direct_entries_grow(&f->entries, dump_arena(f->b), most) ? direct_entry_next(&f->entries)
                                                                    : NULL;
}

/* An entry's key: its field, F_UNKNOWN, or NOT_A_KEY (decline). */
HOT int read_key(dump_pickle_fast *f) {
    const uint8_t *p = f->p;
    if (left(f) >= 3 && p[0] == OP_BINGET && p[1] < f->memo_hi && !is_put(p[2])) {
        int field = f->key_field[p[1]];
        if (field != NOT_A_KEY) f->p += 2;
        return field;
    }
    memo_slot *key = read_str(f);
    return key ? slot_field(key) : NOT_A_KEY;
}

/* How the layout loop reads a field's value in the common case: an int, None or an int, a bool,
 * a memoized str (its interned copy), a memoized state, a process group of two memoized strs,
 * a dtype list of one memoized dtype, a shape list met before; anything else, and any other
 * encoding of these, goes through read_field. */
typedef enum value_kind {
    V_FIELD,
    V_INT,
    V_INT_OR_NONE,
    V_BOOL,
    V_STR,
    V_STATE,
    V_PG,
    V_DTYPES,
    V_SHAPES
} value_kind;

static const struct {
    uint8_t kind;
    uint16_t offset; /* of the value in fr_entry */
} field_reading[F_COUNT] = {
    [F_RECORD_ID] = { V_INT, offsetof(fr_entry, record_id) },
    [F_PG_ID] = { V_INT, offsetof(fr_entry, pg_id) },
    [F_PROCESS_GROUP] = { V_PG, offsetof(fr_entry, pg_name) },
    [F_THREAD_NAME] = { V_STR, offsetof(fr_entry, thread_name) },
    [F_THREAD_ID] = { V_STR, offsetof(fr_entry, thread_id) },
    [F_COLLECTIVE_SEQ_ID] = { V_INT, offsetof(fr_entry, collective_seq_id) },
    [F_P2P_SEQ_ID] = { V_INT, offsetof(fr_entry, p2p_seq_id) },
    [F_OP_ID] = { V_INT, offsetof(fr_entry, op_id) },
    [F_PROFILING_NAME] = { V_STR, offsetof(fr_entry, profiling_name) },
    [F_TIME_CREATED_NS] = { V_INT, offsetof(fr_entry, time_created_ns) },
    [F_INPUT_SIZES] = { V_SHAPES, offsetof(fr_entry, input_sizes) },
    [F_OUTPUT_SIZES] = { V_SHAPES, offsetof(fr_entry, output_sizes) },
    [F_INPUT_DTYPES] = { V_DTYPES, offsetof(fr_entry, input_dtypes) },
    [F_OUTPUT_DTYPES] = { V_DTYPES, offsetof(fr_entry, output_dtypes) },
    [F_STATE] = { V_STATE, offsetof(fr_entry, state) },
    [F_TIME_DISCOVERED_STARTED_NS] = { V_INT_OR_NONE,
                                       offsetof(fr_entry, time_discovered_started_ns) },
    [F_TIME_DISCOVERED_COMPLETED_NS] = { V_INT_OR_NONE,
                                         offsetof(fr_entry, time_discovered_completed_ns) },
    [F_RETIRED] = { V_BOOL, offsetof(fr_entry, retired) },
    [F_TIMEOUT_MS] = { V_INT, offsetof(fr_entry, timeout_ms) },
    [F_IS_P2P] = { V_BOOL, offsetof(fr_entry, is_p2p) },
};

/* The layout loop reads a key and the common encodings of its value without bounds checks while
 * this many bytes are left: a 1-byte BINGET key (2), LONG1 with 8 bytes (10), the next opcode. */
enum { LAYOUT_MARGIN = 16 };

/* An int opcode at p, unchecked (LAYOUT_MARGIN): its length, or 0 for another opcode. */
HOT size_t int_at(const uint8_t *p, int64_t *out) {
    switch (p[0]) {
    case OP_BININT1: *out = p[1]; return 2;
    case OP_BININT2: *out = (int64_t)p[1] | (int64_t)p[2] << 8; return 3;
    case OP_BININT: *out = (int32_t)le32(p + 1); return 5;
    case OP_LONG1:
        if (p[1] != 8) return 0; /* time stamps; other widths take read_field */
        *out = (int64_t)((uint64_t)le32(p + 2) | (uint64_t)le32(p + 6) << 32);
        return 10;
    default: return 0;
    }
}

/* The str slot a 1-byte or 4-byte BINGET at p names, unchecked (LAYOUT_MARGIN), when it is a
 * string already interned; its length in *n. NULL otherwise. */
HOT const memo_slot *interned_at(const dump_pickle_fast *f, const uint8_t *p, size_t *n) {
    uint32_t id;
    if (p[0] == OP_BINGET)
        id = p[1], *n = 2;
    else if (p[0] == OP_LONG_BINGET)
        id = le32(p + 1), *n = 5;
    else
        return NULL;
    if (id >= f->memo_hi) return NULL;
    const memo_slot *s = &f->memo[id];
    return s->kind == SLOT_STR && s->interned ? s : NULL;
}

/* The value of the layout's field k at p in its common encoding, written into e: its length,
 * or 0 when read_field must read it. Unchecked: LAYOUT_MARGIN bytes are left. */
HOT size_t common_value(const dump_pickle_fast *f, const uint8_t *p, entry_field field,
                        fr_entry *e) {
    char *at = (char *)e + field_reading[field].offset;
    int64_t i;
    size_t n = 0, n2;
    const memo_slot *s, *s2;
    switch ((value_kind)field_reading[field].kind) {
    case V_INT:
        if ((n = int_at(p, &i))) memcpy(at, &i, sizeof i);
        break;
    case V_INT_OR_NONE:
        if (p[0] == OP_NONE)
            i = 0, n = 1;
        else
            n = int_at(p, &i);
        if (n) memcpy(at, &i, sizeof i);
        break;
    case V_BOOL:
        if (p[0] == OP_NEWTRUE || p[0] == OP_NEWFALSE) *(bool *)at = p[0] == OP_NEWTRUE, n = 1;
        break;
    case V_STR:
        if ((s = interned_at(f, p, &n)))
            memcpy(at, &s->interned, sizeof s->interned);
        else
            n = 0;
        break;
    case V_STATE:
        if ((s = interned_at(f, p, &n)) && s->state >= 0)
            *(fr_state *)at = (fr_state)s->state;
        else
            n = 0;
        break;
    case V_PG: /* TUPLE2 of two strs: both must be 1-byte GETs to stay within the margin */
        if (p[0] == OP_BINGET && p[2] == OP_BINGET && p[4] == OP_TUPLE2 &&
            (s = interned_at(f, p, &n)) && (s2 = interned_at(f, p + 2, &n2))) {
            e->pg_name = s->interned;
            e->pg_desc = s2->interned;
            n = 5;
        } else {
            n = 0;
        }
        break;
    case V_DTYPES: {
        const fr_strings *known = one_dtype_at(f, p);
        if (known) memcpy(at, known, sizeof *known), n = 5;
        break;
    }
    case V_SHAPES: { /* a list in the shape table */
        size_t room = (size_t)(f->end - p);
        const span *sp = room >= SHAPE_KEY ? shape_slot(f, p) : NULL;
        if (sp && shape_hit(f, sp, p, room)) {
            fr_shapes shapes = { sp->count, sp->items };
            memcpy(at, &shapes, sizeof shapes);
            return sp->len; /* shape_hit saw no PUT after it */
        }
        break;
    }
    case V_FIELD: break;
    }
    return n && !is_put(p[n]) ? n : 0; /* torch memoizes none of these values */
}

/* The keys of an entry's layout that come next, with their values (seen: the fields read).
 * Stops at the first key that differs, or at the end of the layout. The cursor stays in a local
 * while the common encodings are read. */
static bool read_layout(dump_pickle_fast *f, fr_entry *e, uint32_t *seen, uint32_t *matched) {
    const uint8_t *p = f->p, *end = f->end;
    uint32_t k = 0, n = f->layout_n;
    for (; k < n; k++) {
        entry_field field = (entry_field)f->layout_field[k];
        if ((size_t)(end - p) < LAYOUT_MARGIN) { /* the end of the input: checked reads */
            if ((size_t)(end - p) < 2 || p[0] != OP_BINGET || p[1] != f->layout_id[k]) break;
            f->p = p + 2; /* a PUT after the key makes every field reader decline */
            if (!read_field(f, field, e)) return false;
            p = f->p;
            continue;
        }
        if (p[0] != OP_BINGET || p[1] != f->layout_id[k]) break;
        size_t len = common_value(f, p + 2, field, e);
        p += 2 + len;
        if (!len) {
            f->p = p;
            if (!read_field(f, field, e)) return false;
            p = f->p;
        }
    }
    f->p = p;
    *seen |= f->layout_seen[k];
    *matched = k;
    return true;
}

/* The rest of a batch of an entry's pairs, up to its SETITEMS (consumed). `learn`: the keys
 * are recorded into the layout from position *nlearned on, while each is a 1-byte BINGET of a
 * known field; *nlearned becomes -1 when one is not. */
static bool read_pairs(dump_pickle_fast *f, fr_entry *e, uint32_t *seen, int *nlearned) {
    while (peek(f) != OP_SETITEMS) {
        const uint8_t *key_at = f->p;
        int field = read_key(f);
        if (field == NOT_A_KEY) return false;
        if (*nlearned >= 0) {
            if (field >= 0 && f->p == key_at + 2 && key_at[0] == OP_BINGET &&
                *nlearned < LAYOUT_MAX) {
                f->layout_id[*nlearned] = key_at[1];
                f->layout_field[*nlearned] = (int8_t)field;
                ++*nlearned;
            } else {
                *nlearned = -1;
            }
        }
        if (field == F_UNKNOWN) {
            if (!read_value(f, 1)) return false;
            continue;
        }
        if (*seen & 1u << field) return false; /* a repeated key: the generic path decides */
        *seen |= 1u << field;
        if (!read_field(f, (entry_field)field, e)) return false;
    }
    f->p++;
    return put_other(f);
}

/* An entry dict. Its first batch is read along the layout of the entries before it as far as it
 * matches; what differs is read key by key, and then becomes the layout. */
static bool read_entry(dump_pickle_fast *f, fr_entry *e) {
    if (!next_is(f, OP_EMPTY_DICT) || !put_other(f)) return false;
    dump_entry_init(e);
    uint32_t seen = 0;
    if (next_is(f, OP_MARK)) {
        uint32_t matched = 0;
        if (f->layout_overwrites != f->overwrites) f->layout_n = 0;
        if (f->layout_n && !read_layout(f, e, &seen, &matched)) return false;
        bool whole = matched == f->layout_n && peek(f) == OP_SETITEMS;
        int nlearned = whole ? -1 : (int)matched;
        if (whole) f->p++; /* SETITEMS */
        if (whole ? !put_other(f) : !read_pairs(f, e, &seen, &nlearned)) return false;
        bool one_batch = peek(f) != OP_MARK;
        while (next_is(f, OP_MARK)) {
            int none = -1;
            if (!read_pairs(f, e, &seen, &none)) return false;
        }
        if (nlearned >= 0 && one_batch) {
            f->layout_n = (uint32_t)nlearned;
            f->layout_overwrites = f->overwrites;
            for (int k = 0; k < nlearned; k++)
                f->layout_seen[k + 1] = f->layout_seen[k] | 1u << f->layout_field[k];
        }
    }
    if (!e->profiling_name) e->profiling_name = "";
    return dump_entry_complete(seen);
}

static bool read_entries(dump_pickle_fast *f) {
    if (!next_is(f, OP_EMPTY_LIST) || !put_other(f)) return false;
    while (next_is(f, OP_MARK)) {
        while (peek(f) != OP_APPENDS) {
            fr_entry *e = new_entry(f);
            if (!e || !read_entry(f, e)) return false;
        }
        f->p++;
        if (!put_other(f)) return false;
    }
    return true;
}

/* PROTO, the top-level dict's batches, STOP, and nothing after it. */
static bool read_root(dump_pickle_fast *f, fv **root) {
    if (next_is(f, OP_PROTO) && (left(f) < 1 || *f->p++ > 5)) return false;
    fv *dict = fv_dict(f->values);
    if (!dict || !next_is(f, OP_EMPTY_DICT) || !put_other(f)) return false;
    bool have_entries = false;
    while (next_is(f, OP_MARK)) {
        while (peek(f) != OP_SETITEMS) {
            memo_slot *k = read_str(f);
            if (!k) return false;
            if (slot_is(k, "entries")) {
                if (have_entries || !read_entries(f)) return false;
                have_entries = true;
                continue;
            }
            fv *key = str_node(f, k);
            fv *value = key ? read_value(f, 1) : NULL;
            if (!value || !fv_dict_set(f->values, dict, key, value)) return false;
        }
        f->p++;
        if (!put_other(f)) return false;
    }
    if (!next_is(f, OP_STOP) || f->p != f->end) return false;
    if (have_entries) {
        fv *key = fv_cstr(f->values, "entries"), *empty = fv_list(f->values);
        if (!key || !empty || !fv_dict_set(f->values, dict, key, empty)) return false;
    }
    *root = dict;
    return true;
}

int dump_pickle_fast_read(dump_pickle_fast *f, dump_builder *b, const uint8_t *bytes, size_t len,
                          fv_arena *values, fv **root, fr_entry **entries, uint32_t *n) {
    if (f->memo_hi) memset(f->memo, 0, (size_t)f->memo_hi * sizeof *f->memo);
    f->memo_hi = 0;
    direct_entries_begin(&f->entries);
    memset(f->shapes, 0, sizeof f->shapes);
    memset(f->key_field, NOT_A_KEY, sizeof f->key_field);
    memset(&f->stack_spans, 0, sizeof f->stack_spans);
    f->layout_n = 0;
    f->p = bytes;
    f->end = bytes + len;
    f->len = len;
    f->b = b;
    f->values = values;
    f->budget = ((size_t)64 << 20) + (len > SIZE_MAX / 64 ? SIZE_MAX / 2 : 32 * len);
    if (!read_root(f, root)) return -1;
    direct_entries_end(&f->entries, entries, n);
    return 0;
}
