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
 * This file holds the root, the entries and the layout loop; the reader's state and the
 * primitives the loop inlines are in pickle_fast.h, an entry field read key by key in
 * pickle_fast_fields.c, the header's value tree in pickle_fast_values.c, the rare scalars in
 * pickle_fast_scalars.c.
 *
 * Hostile input: every read is bounds-checked (running out declines) or made where at least
 * LAYOUT_MARGIN bytes are known to remain, recursion is bounded
 * (MAX_DEPTH), memo ids are bounded (MEMO_MAX and the input's length), memory stays within the
 * generic reader's budget (64 MiB + 32 bytes per input byte), and no memoized container is
 * ever read back, so the work is linear in the input.
 */
#include "pickle_fast.h"

#include <stdlib.h>
#include <string.h>

dump_pickle_fast *dump_pickle_fast_new(void) { return calloc(1, sizeof(dump_pickle_fast)); }

void dump_pickle_fast_free(dump_pickle_fast *f) {
    if (f) direct_free(f, &f->lists, f->memo);
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
    return key ? pf_slot_field(key) : NOT_A_KEY;
}

/* How the layout loop reads a field's value in the common case: an int, None or an int, a bool,
 * a memoized str (its interned copy), a memoized state, a process group of two memoized strs,
 * a dtype list of one memoized dtype, a shape list met before; anything else, and any other
 * encoding of these, goes through pf_read_field. */
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
            if (!pf_read_field(f, field, e)) return false;
            p = f->p;
            continue;
        }
        if (p[0] != OP_BINGET || p[1] != f->layout_id[k]) break;
        size_t len = common_value(f, p + 2, field, e);
        p += 2 + len;
        if (!len) {
            f->p = p;
            if (!pf_read_field(f, field, e)) return false;
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
            if (!pf_read_value(f, 1)) return false;
            continue;
        }
        if (*seen & 1u << field) return false; /* a repeated key: the generic path decides */
        *seen |= 1u << field;
        if (!pf_read_field(f, (entry_field)field, e)) return false;
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
            if (pf_slot_is(k, "entries")) {
                if (have_entries || !read_entries(f)) return false;
                have_entries = true;
                continue;
            }
            fv *key = pf_str_node(f, k);
            fv *value = key ? pf_read_value(f, 1) : NULL;
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
