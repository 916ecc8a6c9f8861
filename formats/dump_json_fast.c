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
 * This file holds the root, the entries, their layout and fields; the reader's state and the
 * primitives it inlines (the cursor, numbers, `cached`) are in json_fast.h, the cache's table in
 * json_fast_cache.c, the value readers in json_fast_entry_values.c, strings, numbers and the
 * header's tree in json_fast_text.c.
 *
 * Hostile input: every read is bounds-checked (a word read needs its 8, 24 or 32 bytes left;
 * else the byte by byte way), recursion is bounded (MAX_DEPTH), the layout and the cache have
 * fixed sizes, and every byte is read a bounded number of times: a hit compares the bytes it
 * skips once; a miss stops a word past the first byte that differs, which lies within the
 * value at the cursor (a value whose text began with a slot's whole value would end where it
 * ends); at most six slots are tried for a value and LOOKAHEAD layout keys for a key. So the
 * work is linear in the input.
 */
#include "json_fast.h"

#include <stdlib.h>
#include <string.h>

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
    if (!jf_read_number(f, &is_int, &i, &d)) return false;
    e->duration_ms = is_int ? (double)i : d;
    e->has_duration = true;
    return true;
}

/* Each field whose values go through the cache: lk is the key's layout entry, NULL when the key
 * is off the layout. */
HOT bool read_str_field(dump_json_fast *f, int field, layout_key *lk, const char **out) {
    const vslot *v = cached(f, field, lk, jf_str_value);
    return v && (*out = v->v.str, true);
}

HOT bool read_state(dump_json_fast *f, layout_key *lk, fr_state *out) {
    const vslot *v = cached(f, F_STATE, lk, jf_state_value);
    return v && (*out = (fr_state)v->v.state, true);
}

HOT bool read_shapes(dump_json_fast *f, int field, layout_key *lk, fr_shapes *out) {
    const vslot *v = cached(f, field, lk, jf_shapes_value);
    return v && (*out = v->v.shapes, true);
}

HOT bool read_dtypes(dump_json_fast *f, int field, layout_key *lk, fr_strings *out) {
    const vslot *v = cached(f, field, lk, jf_dtypes_value);
    return v && (*out = v->v.dtypes, true);
}

HOT bool read_pg(dump_json_fast *f, layout_key *lk, fr_entry *e) {
    const vslot *v = cached(f, F_PROCESS_GROUP, lk, jf_pg_value);
    return v && (e->pg_name = v->v.pg.name, e->pg_desc = v->v.pg.desc, true);
}

static bool read_frames(dump_json_fast *f, layout_key *lk, fr_entry *e) {
    const vslot *v = cached(f, F_FRAMES, lk, jf_frames_value);
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
    if (!jf_read_string(f, &s, &n)) return NOT_A_KEY;
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
            if (!jf_read_value(f, 2)) return false;
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
    if (!jf_read_string(f, &s, &n)) return false;
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
        value = jf_read_value(f, 1);
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
