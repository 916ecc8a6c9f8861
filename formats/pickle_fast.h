/* pickle_fast.h — the direct pickle reader's state and the primitives all its parts read with
 * (private to dump_pickle_fast.c, pickle_fast_fields.c, pickle_fast_values.c and
 * pickle_fast_scalars.c; users see dump_direct.h).
 *
 * The reader is one cursor over the input, PyTorch's pickle memo as slots that remember what each
 * memoized string means, and the caches of lists met before (shape lists, stacks). Its parts:
 * dump_pickle_fast.c reads the root and the entries along their layout (the hot loop);
 * pickle_fast_fields.c an entry's fields in torch's encodings, key by key;
 * pickle_fast_values.c the header's small value tree and values no field takes;
 * pickle_fast_scalars.c what is read rarely enough to stay out of line (memo growth, what a
 * string means as a key, a state or a dtype, bools, floats). What the hot loop calls for every
 * entry is here, always inlined (HOT): the byte cursor, the memo's PUTs and GETs, strings and
 * ints, and the shape and dtype look-ups of the layout loop. Every primitive declines (false,
 * NULL, -1) instead of failing: the generic path decides what a stray byte means.
 */
#ifndef FRTRACE_PICKLE_FAST_H
#define FRTRACE_PICKLE_FAST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "dump_direct.h"
#include "pickle_opcodes.h"

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

#define HOT static inline __attribute__((always_inline))

/* Out of line (pickle_fast_scalars.c): rare enough not to be inlined. */
bool pf_memo_reserve(dump_pickle_fast *f, uint32_t id); /* slot id exists; false: decline */
/* Room for n items in a scratch array (false when out of memory or over the budget). */
bool pf_ensure(dump_pickle_fast *f, void **buf, size_t *cap, size_t n, size_t size);
bool pf_ascii(const uint8_t *s, size_t n);                    /* text this path takes as is */
int pf_slot_field(memo_slot *s);                              /* its entry_field as a key */
int pf_slot_state(dump_pickle_fast *f, memo_slot *s);         /* its fr_state, or -1 */
const char *pf_slot_dtype(dump_pickle_fast *f, memo_slot *s); /* normalized, or NULL */
bool pf_slot_is(const memo_slot *s, const char *name);
bool pf_read_int_or_none(dump_pickle_fast *f, int64_t *out);
bool pf_read_bool(dump_pickle_fast *f, bool *out);
bool pf_read_float_raw(dump_pickle_fast *f, double *out);
/* pickle_fast_values.c: a memoized string's node, and any value as a node of the header's tree */
fv *pf_str_node(dump_pickle_fast *f, memo_slot *s);
fv *pf_read_value(dump_pickle_fast *f, int depth);
/* pickle_fast_fields.c: the value of one entry key, key by key */
bool pf_read_field(dump_pickle_fast *f, entry_field field, fr_entry *e);

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
    if (!pf_memo_reserve(f, *id)) return -1;
    if (f->memo[*id].kind != SLOT_EMPTY) f->overwrites++;
    return 1;
}

/* Memo entry `id` (reserved) becomes `value`; key_field follows. */
HOT memo_slot *memo_set(dump_pickle_fast *f, uint32_t id, memo_slot value) {
    memo_slot *s = &f->memo[id];
    *s = value;
    if (id < 256)
        f->key_field[id] = (int8_t)(value.kind == SLOT_STR ? pf_slot_field(s) : NOT_A_KEY);
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
    if (!pf_ascii(bytes, n)) return NULL;
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

#endif
