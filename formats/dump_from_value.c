/* dump_from_value.c — Flight Recorder values → typed dumps (fr_dump), for every format version:
 * the generic path's mapping of a value tree (fr_dump_from_value), which the direct paths
 * share for everything but the entries (dump_from_value.h).
 *
 * fr_dump_decode() picks the reader by content (a '{' after optional whitespace is JSON,
 * anything else a pickle). Each first goes down a direct path that reads the regular shape
 * straight into fr_entry structs and declines anything else: dump_pickle_fast.c for what PyTorch's
 * C++ pickler writes (about three times faster), dump_json_fast.c for plain JSON (some forty times
 * faster); then the generic path: the reader (pickle_read with salvage on, or json_read) builds a
 * value tree and fr_dump_from_value() maps it to structs. All paths build through the same
 * helpers (dump_builder.h), so they give the same dump. Keys are looked up by name and unknown
 * keys ignored, so one mapping serves 2.0 (frames last, "float" dtypes, no timeout_ms) through
 * 2.10 (comm_lib_version) and later minor versions; what a version lacks gets a neutral default
 * (see dump.h).
 *
 * Scale shapes the code: a job of 16 384 ranks × 2 000 entries is 32 M entry dicts. So:
 *   - strings are interned per dump (intern.h), and a pickle's memo already makes a repeated
 *     string one node: a direct-mapped cache from node pointer to interned copy skips even the
 *     hashing for those;
 *   - the entry dicts of a pickle share their key nodes too, so the key → field decision is
 *     cached per key node instead of comparing every key of every entry by name;
 *   - the same goes for the state strings, the dtype lists (same item nodes, same list) and the
 *     frame dicts torch memoizes: each is decoded once per node;
 *   - entries are decoded in one pass over each dict's pairs, straight into the fr_entry array,
 *     and "entry N" for error messages is only formatted when there is an error;
 *   - identical shape lists, dtype lists and stacks are stored once per dump and shared by the
 *     entries that repeat them (see "shared lists"), so an entry costs little besides its
 *     fr_entry;
 *   - every rank's pg_config repeats the default group's ranks as one text, "[0, 1, ...,
 *     N-1]" (100 KB at 16 384 ranks): the decoder keeps the last few long texts it parsed,
 *     across files, and a byte-identical text takes the kept parse (copied into the dump;
 *     pg_ranks.c);
 *   - the dump's arena starts small (the entry array, being large, gets a chunk of its own), so
 *     that thousands of ranks do not each keep a half-empty 64 KiB chunk.
 * Everything the dump keeps is copied into its own arena. The value tree lives in a scratch
 * arena that an fr_decoder (dump_decoder.h) resets and reuses from file to file, together with
 * the caches above, which are cleared between files since node addresses repeat (all but the
 * ranks texts, which are kept by content, not by node).
 *
 * A salvaged (truncated) pickle is used only when it is clear which entries are whole: the
 * reader flags every container it had to close early, so version, pg_config and pg_status must
 * be unflagged, and of the entries only the unflagged prefix is kept.
 */
#include "dump_from_value.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dump_builder.h"
#include "dump_whereabouts.h"
#include "grow.h"
#include "intern.h"
#include "pg_ranks.h"

/* --- the decoder's working state ---------------------------------------------------------- */

enum {
    STR_CACHE_SLOTS = 4096,
    DTYPE_CACHE_SLOTS = 256,
    KEY_CACHE_SLOTS = 256,
    FRAME_CACHE_SLOTS = 1024
};

typedef struct node_str {
    const fv *node;
    const char *str;
} node_str;

typedef struct node_frame {
    const fv *node;
    fr_frame frame;
} node_frame;

typedef struct node_field {
    const fv *node;
    int field;
} node_field;

/* A dtype list recently decoded, by its item nodes (a pickle's memo makes each dtype string one
 * node, so the next ["BFloat16"] has the very same item): the same items give the same list. */
enum { RECENT_DTYPE_SLOTS = 16, RECENT_DTYPE_ITEMS = 4 };

typedef struct dtype_list {
    uint32_t len; /* 0 with items[0] NULL: unused slot */
    const fv *items[RECENT_DTYPE_ITEMS];
    fr_strings value;
} dtype_list;

typedef enum where_kind {
    WHERE_TEXT,
    WHERE_ENTRY,
    WHERE_GROUP,
    WHERE_STATUS,
    WHERE_COMM
} where_kind;

enum { DIRTY_MAX = 1024 };

typedef struct decoder {
    dump_builder b;        /* the dump being built: its arena, interner and shared lists */
    char where[96];        /* "entry 17", "pg_config[\"3\"]": the prefix of error messages ... */
    where_kind where_kind; /* ... written from these only when an error needs it */
    int64_t where_index;
    const char *where_key;
    const fv **dirty[DIRTY_MAX]; /* cache slots filled since the last clear (see decoder_clear) */
    size_t ndirty;
    node_str str_cache[STR_CACHE_SLOTS];
    node_str dtype_cache[DTYPE_CACHE_SLOTS];
    node_field key_cache[KEY_CACHE_SLOTS];
    node_frame frame_cache[FRAME_CACHE_SLOTS];
    dtype_list recent_dtypes[RECENT_DTYPE_SLOTS];
    const fv *state_nodes[3]; /* the string node last seen for each fr_state */
    const char **strings_buf; /* scratch for one dtype list */
    size_t strings_buf_cap;
    uint32_t *ndims_buf; /* scratch for one shape list, flattened */
    size_t ndims_buf_cap;
    int64_t *dims_buf;
    size_t dims_buf_cap;
    pg_ranks_cache ranks; /* kept across files, unlike the caches above */
} decoder;

/* The prefix of error messages. Entries and groups are many and errors rare: the text is only
 * formatted when a message needs it (`where_key` points into the value tree, which outlives
 * the decoding). */
static const char *where(decoder *dec) {
    switch (dec->where_kind) {
    case WHERE_TEXT: break;
    case WHERE_ENTRY:
        snprintf(dec->where, sizeof dec->where, "entry %lld", (long long)dec->where_index);
        break;
    case WHERE_GROUP:
        snprintf(dec->where, sizeof dec->where, "pg_config[\"%.40s\"]", dec->where_key);
        break;
    case WHERE_STATUS:
        snprintf(dec->where, sizeof dec->where, "pg_status[\"%.40s\"]", dec->where_key);
        break;
    case WHERE_COMM:
        snprintf(dec->where, sizeof dec->where, FR_EXTRA_KEY ".comms[\"%.40s\"]", dec->where_key);
        break;
    }
    dec->where_kind = WHERE_TEXT;
    return dec->where;
}

static void set_where(decoder *dec, where_kind kind, int64_t index, const char *key) {
    dec->where_kind = kind;
    dec->where_index = index;
    dec->where_key = key;
}

/* A cache slot was filled: decoder_clear empties the filled ones rather than every slot. */
static void remember(decoder *dec, const fv **slot_node) {
    if (dec->ndirty < DIRTY_MAX) dec->dirty[dec->ndirty] = slot_node;
    dec->ndirty++;
}

static size_t pointer_slot(const void *p, size_t slots) {
    uint64_t x = (uint64_t)(uintptr_t)p * 0x9e3779b97f4a7c15ull;
    return (size_t)(x >> 40) & (slots - 1);
}

static int wrong_type(decoder *dec, const char *key, const fv *v, const char *expected) {
    if (!v || v->kind == FV_NONE)
        return fr_fail(dec->b.err, "%s: \"%s\" is None, expected %s", where(dec), key, expected);
    const char *got = fv_kind_name((fv_kind)v->kind);
    return fr_fail(dec->b.err, "%s: \"%s\" is a%s %s, expected %s", where(dec), key,
                   got[0] == 'i' ? "n" : "", got, expected);
}

/* The interned copy of a string node, through the node-pointer cache. */
static const char *intern_node(decoder *dec, const fv *v) {
    node_str *c = &dec->str_cache[pointer_slot(v, STR_CACHE_SLOTS)];
    if (c->node == v) return c->str;
    const char *s = fr_intern(dec->b.strings, v->u.s, v->len);
    if (s) {
        if (!c->node) remember(dec, &c->node);
        c->node = v;
        c->str = s;
    }
    return s;
}

/* Scratch arrays kept by the decoder (false/NULL when out of memory). */
static const char **scratch_strings(decoder *dec, size_t n) {
    if (fr_scratch((void **)&dec->strings_buf, &dec->strings_buf_cap, n, sizeof *dec->strings_buf,
                   64))
        return NULL;
    return dec->strings_buf;
}

static bool scratch_shapes(decoder *dec, size_t nshapes, size_t ndims_total, uint32_t **ndims,
                           int64_t **dims) {
    if (fr_scratch((void **)&dec->ndims_buf, &dec->ndims_buf_cap, nshapes, sizeof *dec->ndims_buf,
                   64) ||
        fr_scratch((void **)&dec->dims_buf, &dec->dims_buf_cap, ndims_total, sizeof *dec->dims_buf,
                   64))
        return false;
    *ndims = dec->ndims_buf;
    *dims = dec->dims_buf;
    return true;
}

/* --- scalar fields ------------------------------------------------------------------------ */

static int get_str(decoder *dec, const fv *v, const char *key, const char **out) {
    if (!fv_is(v, FV_STR)) return wrong_type(dec, key, v, "str");
    *out = intern_node(dec, v);
    return *out ? 0 : dump_out_of_memory(&dec->b);
}

/* str, or None for "not known" (NULL). */
static int get_str_or_none(decoder *dec, const fv *v, const char *key, const char **out) {
    if (fv_is(v, FV_NONE)) {
        *out = NULL;
        return 0;
    }
    return get_str(dec, v, key, out);
}

static int get_int(decoder *dec, const fv *v, const char *key, int64_t *out) {
    if (!fv_is(v, FV_INT)) return wrong_type(dec, key, v, "int");
    *out = v->u.i;
    return 0;
}

/* A decimal integer written as a string (JSON's pg_status values): strictly digits. */
static bool parse_decimal(const char *s, size_t len, int64_t *out) {
    size_t i = 0;
    bool negative = len > 0 && s[0] == '-';
    if (negative) i++;
    if (i == len || len - i > 19) return false;
    uint64_t acc = 0;
    for (; i < len; i++) {
        if (s[i] < '0' || s[i] > '9') return false;
        acc = acc * 10 + (uint64_t)(s[i] - '0');
    }
    if (acc > (uint64_t)INT64_MAX + (negative ? 1 : 0)) return false;
    *out = negative ? (int64_t)(0 - acc) : (int64_t)acc;
    return true;
}

static int get_int_or_decimal(decoder *dec, const fv *v, const char *key, int64_t *out) {
    if (fv_is(v, FV_STR)) {
        if (parse_decimal(v->u.s, v->len, out)) return 0;
        return fr_fail(dec->b.err, "%s: \"%s\" is the string \"%.40s\", expected an integer",
                       where(dec), key, v->u.s);
    }
    return get_int(dec, v, key, out);
}

/* int, or None/absent meaning 0 (time_discovered_*). */
static int get_int_or_none(decoder *dec, const fv *v, const char *key, int64_t *out) {
    if (fv_is(v, FV_NONE)) {
        *out = 0;
        return 0;
    }
    return get_int(dec, v, key, out);
}

static int get_bool(decoder *dec, const fv *v, const char *key, bool *out) {
    if (fv_is(v, FV_BOOL))
        *out = v->u.b;
    else if (fv_is(v, FV_INT) && (v->u.i == 0 || v->u.i == 1))
        *out = v->u.i == 1;
    else
        return wrong_type(dec, key, v, "bool");
    return 0;
}

/* --- dtype names ---------------------------------------------------------------------------- */

static const char *dtype_node(decoder *dec, const fv *v) {
    node_str *c = &dec->dtype_cache[pointer_slot(v, DTYPE_CACHE_SLOTS)];
    if (c->node == v) return c->str;
    const char *whole = intern_node(dec, v); /* a NUL inside kept, as the direct paths keep it */
    const char *s = whole ? dump_dtype(&dec->b, whole) : NULL;
    if (s) {
        if (!c->node) remember(dec, &c->node);
        c->node = v;
        c->str = s;
    }
    return s;
}

/* --- dtypes ------------------------------------------------------------------------------- */

static dtype_list *recent_dtypes(decoder *dec, const fv *v) {
    const fv *first = v->len ? fv_item(v, 0) : NULL;
    return &dec->recent_dtypes[pointer_slot(first, RECENT_DTYPE_SLOTS) ^
                               (v->len & (RECENT_DTYPE_SLOTS - 1))];
}

static int get_dtypes_uncached(decoder *dec, const fv *v, const char *key, fr_strings *out);

static int get_dtypes(decoder *dec, const fv *v, const char *key, fr_strings *out) {
    if (!fv_is_seq(v)) return wrong_type(dec, key, v, "list of str");
    if (v->len > RECENT_DTYPE_ITEMS) return get_dtypes_uncached(dec, v, key, out);
    dtype_list *r = recent_dtypes(dec, v);
    bool hit = r->len == v->len && (v->len || r->value.items);
    for (uint32_t i = 0; hit && i < v->len; i++) hit = r->items[i] == fv_item(v, i);
    if (hit) {
        *out = r->value;
        return 0;
    }
    if (get_dtypes_uncached(dec, v, key, out)) return -1;
    r->len = v->len;
    for (uint32_t i = 0; i < v->len; i++) r->items[i] = fv_item(v, i);
    r->value = *out;
    return 0;
}

static int get_dtypes_uncached(decoder *dec, const fv *v, const char *key, fr_strings *out) {
    const char **items = scratch_strings(dec, v->len);
    if (!items) return dump_out_of_memory(&dec->b);
    for (uint32_t i = 0; i < v->len; i++) {
        const fv *item = fv_item(v, i);
        if (!fv_is(item, FV_STR)) return wrong_type(dec, key, item, "list of str");
        if (!(items[i] = dtype_node(dec, item))) return dump_out_of_memory(&dec->b);
    }
    return dump_store_dtypes(&dec->b, v->len, items, out);
}

/* --- shapes -------------------------------------------------------------------------------- */

static int get_shapes(decoder *dec, const fv *v, const char *key, fr_shapes *out) {
    if (!fv_is_seq(v)) return wrong_type(dec, key, v, "list of lists of int");
    uint64_t total = 0;
    for (uint32_t i = 0; i < v->len; i++) {
        const fv *shape = fv_item(v, i);
        if (!fv_is_seq(shape)) return wrong_type(dec, key, shape, "list of lists of int");
        total += shape->len;
    }
    uint32_t *ndims;
    int64_t *dims;
    if (!scratch_shapes(dec, v->len, total, &ndims, &dims)) return dump_out_of_memory(&dec->b);
    int64_t *d = dims;
    for (uint32_t i = 0; i < v->len; i++) {
        const fv *shape = fv_item(v, i);
        ndims[i] = shape->len;
        for (uint32_t k = 0; k < shape->len; k++) {
            const fv *dim = fv_item(shape, k);
            if (!fv_is(dim, FV_INT)) return wrong_type(dec, key, dim, "list of lists of int");
            *d++ = dim->u.i;
        }
    }
    return dump_store_shapes(&dec->b, v->len, ndims, dims, out);
}

/* --- frames -------------------------------------------------------------------------------- */

/* One frame dict. Torch memoizes a frame dict used more than once, so the same node comes back
 * entry after entry: its frame is remembered by node. */
static int get_frame(decoder *dec, const fv *f, fr_frame *out) {
    if (!fv_is(f, FV_DICT)) return wrong_type(dec, "frames", f, "list of dict");
    node_frame *c = &dec->frame_cache[pointer_slot(f, FRAME_CACHE_SLOTS)];
    if (c->node == f) {
        *out = c->frame;
        return 0;
    }
    const fv *name = fv_dict_get(f, "name"), *file = fv_dict_get(f, "filename");
    const fv *line = fv_dict_get(f, "line");
    out->name = out->filename = "";
    out->line = 0;
    if (name && get_str(dec, name, "frames.name", &out->name)) return -1;
    if (file && get_str(dec, file, "frames.filename", &out->filename)) return -1;
    if (line && get_int(dec, line, "frames.line", &out->line)) return -1;
    if (!c->node) remember(dec, &c->node);
    c->node = f;
    c->frame = *out;
    return 0;
}

static int get_frames(decoder *dec, const fv *v, fr_entry *e) {
    if (!fv_is_seq(v)) return wrong_type(dec, "frames", v, "list of dict");
    fr_frame *frames = dump_scratch_frames(&dec->b, v->len);
    if (!frames) return dump_out_of_memory(&dec->b);
    for (uint32_t i = 0; i < v->len; i++)
        if (get_frame(dec, fv_item(v, i), &frames[i])) return -1;
    return dump_store_frames(&dec->b, frames, v->len, e);
}

/* --- entries ------------------------------------------------------------------------------- */

static int field_by_name(const fv *key) {
    return fv_is(key, FV_STR) ? dump_entry_field(key->u.s, key->len) : F_UNKNOWN;
}

/* Pickled entry dicts share their key nodes through the memo: decide once per node. */
static int field_of_key(decoder *dec, const fv *key) {
    node_field *c = &dec->key_cache[pointer_slot(key, KEY_CACHE_SLOTS)];
    if (c->node == key) return c->field;
    if (!c->node) remember(dec, &c->node);
    c->node = key;
    c->field = field_by_name(key);
    return c->field;
}

static int get_state(decoder *dec, const fv *v, fr_state *out) {
    if (!fv_is(v, FV_STR)) return wrong_type(dec, "state", v, "str");
    for (int k = 0; k < 3; k++) /* the memo makes each state string one node */
        if (dec->state_nodes[k] == v) {
            *out = (fr_state)k;
            return 0;
        }
    int state = dump_state_of(v->u.s);
    if (state < 0) return fr_fail(dec->b.err, "%s: unknown state \"%.40s\"", where(dec), v->u.s);
    *out = (fr_state)state;
    dec->state_nodes[*out] = v;
    return 0;
}

static int get_process_group(decoder *dec, const fv *v, fr_entry *e) {
    if (!fv_is_seq(v) || v->len < 2)
        return wrong_type(dec, "process_group", v, "(name, desc) tuple");
    if (get_str(dec, fv_item(v, 0), "process_group[0]", &e->pg_name)) return -1;
    return get_str(dec, fv_item(v, 1), "process_group[1]", &e->pg_desc);
}

static int get_thread_id(decoder *dec, const fv *v, const char **out) {
    if (fv_is(v, FV_INT)) { /* some writers give the pthread id as a number */
        *out = dump_thread_id_text(&dec->b, v->u.i);
        return *out ? 0 : dump_out_of_memory(&dec->b);
    }
    return get_str(dec, v, "thread_id", out);
}

static int get_duration(decoder *dec, const fv *v, fr_entry *e) {
    if (fv_is(v, FV_NONE)) return 0;
    if (fv_is(v, FV_FLOAT))
        e->duration_ms = v->u.f;
    else if (fv_is(v, FV_INT))
        e->duration_ms = (double)v->u.i;
    else
        return wrong_type(dec, "duration_ms", v, "float");
    e->has_duration = true;
    return 0;
}

static int decode_field(decoder *dec, int field, const fv *v, fr_entry *e) {
    const char *key = dump_entry_field_name(field);
    switch ((entry_field)field) {
    case F_FRAMES: return get_frames(dec, v, e);
    case F_RECORD_ID: return get_int(dec, v, key, &e->record_id);
    case F_PG_ID: return get_int(dec, v, key, &e->pg_id);
    case F_PROCESS_GROUP: return get_process_group(dec, v, e);
    case F_THREAD_NAME: return get_str(dec, v, key, &e->thread_name);
    case F_THREAD_ID: return get_thread_id(dec, v, &e->thread_id);
    case F_COLLECTIVE_SEQ_ID: return get_int(dec, v, key, &e->collective_seq_id);
    case F_P2P_SEQ_ID: return get_int(dec, v, key, &e->p2p_seq_id);
    case F_OP_ID: return get_int(dec, v, key, &e->op_id);
    case F_PROFILING_NAME:
        if (fv_is(v, FV_NONE)) return 0;
        return get_str(dec, v, key, &e->profiling_name);
    case F_TIME_CREATED_NS: return get_int(dec, v, key, &e->time_created_ns);
    case F_DURATION_MS: return get_duration(dec, v, e);
    case F_INPUT_SIZES: return get_shapes(dec, v, key, &e->input_sizes);
    case F_INPUT_DTYPES: return get_dtypes(dec, v, key, &e->input_dtypes);
    case F_OUTPUT_SIZES: return get_shapes(dec, v, key, &e->output_sizes);
    case F_OUTPUT_DTYPES: return get_dtypes(dec, v, key, &e->output_dtypes);
    case F_STATE: return get_state(dec, v, &e->state);
    case F_TIME_DISCOVERED_STARTED_NS:
        return get_int_or_none(dec, v, key, &e->time_discovered_started_ns);
    case F_TIME_DISCOVERED_COMPLETED_NS:
        return get_int_or_none(dec, v, key, &e->time_discovered_completed_ns);
    case F_RETIRED: return get_bool(dec, v, key, &e->retired);
    case F_TIMEOUT_MS: return get_int(dec, v, key, &e->timeout_ms);
    case F_IS_P2P: return get_bool(dec, v, key, &e->is_p2p);
    case F_COUNT:
    case F_UNKNOWN: break;
    }
    return 0;
}

static int decode_entry(decoder *dec, const fv *d, uint32_t index, fr_entry *e) {
    set_where(dec, WHERE_ENTRY, index, NULL);
    if (!fv_is(d, FV_DICT))
        return fr_fail(dec->b.err, "entry %u is a %s, expected dict", index,
                       fv_kind_name((fv_kind)d->kind));
    dump_entry_init(e);
    uint32_t seen = 0;
    for (uint32_t p = 0; p < d->len; p++) {
        int field = field_of_key(dec, fv_dict_key(d, p));
        if (field == F_UNKNOWN) continue;
        seen |= 1u << field;
        if (decode_field(dec, field, fv_dict_value(d, p), e)) return -1;
    }
    int missing = dump_entry_missing(seen);
    if (missing != F_UNKNOWN)
        return fr_fail(dec->b.err, "entry %u: no \"%s\" key", index,
                       dump_entry_field_name(missing));
    if (!e->profiling_name) e->profiling_name = "";
    return 0;
}

/* --- pg_config, pg_status ------------------------------------------------------------------ */

static int parse_ranks_str(decoder *dec, const fv *v, fr_group_config *g) {
    uint32_t n = 0;
    bool bad = false;
    const int64_t *parsed = pg_ranks_parse(&dec->ranks, v->u.s, v->len, &n, &bad);
    if (bad)
        return fr_fail(dec->b.err,
                       "%s: \"ranks\" is \"%.60s\", expected a list of ranks like \"[0, 1]\"",
                       where(dec), v->u.s);
    if (!parsed) return dump_out_of_memory(&dec->b);
    int64_t *ranks = fv_arena_alloc(dec->b.arena, (size_t)(n ? n : 1) * sizeof *ranks);
    if (!ranks) return dump_out_of_memory(&dec->b);
    memcpy(ranks, parsed, (size_t)n * sizeof *ranks);
    pg_ranks_trim(&dec->ranks);
    g->nranks = n;
    g->ranks = ranks;
    return 0;
}

/* Ranks are ints from 0 to 2^31-1 (NCCL's and torch's int): a group listing 4294967295 or -5 is
 * not a dump to trust, and the analyzer sizes nothing by such a number. */
static int check_ranks(decoder *dec, const fr_group_config *g) {
    for (uint32_t i = 0; i < g->nranks; i++)
        if (g->ranks[i] < 0 || g->ranks[i] > INT32_MAX)
            return fr_fail(dec->b.err,
                           "%s: \"ranks\" lists %" PRId64
                           ", which cannot be a rank (0 to 2147483647)",
                           where(dec), g->ranks[i]);
    return 0;
}

static int get_ranks(decoder *dec, const fv *v, fr_group_config *g) {
    if (fv_is(v, FV_STR)) return parse_ranks_str(dec, v, g) ? -1 : check_ranks(dec, g);
    if (!fv_is_seq(v)) return wrong_type(dec, "ranks", v, "str or list of int");
    int64_t *ranks = fv_arena_alloc(dec->b.arena, (size_t)(v->len ? v->len : 1) * sizeof *ranks);
    if (!ranks) return dump_out_of_memory(&dec->b);
    for (uint32_t i = 0; i < v->len; i++)
        if (get_int(dec, fv_item(v, i), "ranks", &ranks[i])) return -1;
    g->nranks = v->len;
    g->ranks = ranks;
    return check_ranks(dec, g);
}

static int decode_group(decoder *dec, const fv *key, const fv *v, fr_group_config *g) {
    set_where(dec, WHERE_GROUP, 0, fv_is(key, FV_STR) ? key->u.s : "?");
    if (!fv_is(key, FV_STR))
        return fr_fail(dec->b.err, "pg_config: a key is a %s, expected str",
                       fv_kind_name((fv_kind)key->kind));
    if (!fv_is(v, FV_DICT))
        return fr_fail(dec->b.err, "%s is a %s, expected dict", where(dec),
                       fv_kind_name((fv_kind)v->kind));
    const fv *name = fv_dict_get(v, "name"), *desc = fv_dict_get(v, "desc"),
             *ranks = fv_dict_get(v, "ranks");
    if (get_str(dec, name ? name : key, "name", &g->name)) return -1;
    g->desc = "";
    if (desc && get_str(dec, desc, "desc", &g->desc)) return -1;
    if (!ranks) return fr_fail(dec->b.err, "%s: no \"ranks\" key", where(dec));
    return get_ranks(dec, ranks, g);
}

static int decode_groups(decoder *dec, const fv *pg_config, fr_dump *d) {
    if (!fv_is(pg_config, FV_DICT))
        return fr_fail(dec->b.err, "\"pg_config\" is a %s, expected dict",
                       fv_kind_name((fv_kind)pg_config->kind));
    d->groups = fv_arena_alloc(dec->b.arena,
                               (size_t)(pg_config->len ? pg_config->len : 1) * sizeof *d->groups);
    if (!d->groups) return dump_out_of_memory(&dec->b);
    for (uint32_t i = 0; i < pg_config->len; i++)
        if (decode_group(dec, fv_dict_key(pg_config, i), fv_dict_value(pg_config, i),
                         &d->groups[i]))
            return -1;
    d->ngroups = pg_config->len;
    return 0;
}

static int decode_one_status(decoder *dec, const fv *key, const fv *v, fr_pg_status *s) {
    set_where(dec, WHERE_STATUS, 0, fv_is(key, FV_STR) ? key->u.s : "?");
    if (get_int_or_decimal(dec, key, "pg_id", &s->pg_id)) return -1;
    if (!fv_is(v, FV_DICT))
        return fr_fail(dec->b.err, "%s is a %s, expected dict", where(dec),
                       fv_kind_name((fv_kind)v->kind));
    static const char *const keys[3] = { "last_enqueued_collective", "last_started_collective",
                                         "last_completed_collective" };
    int64_t *fields[3] = { &s->last_enqueued, &s->last_started, &s->last_completed };
    for (int k = 0; k < 3; k++) {
        const fv *value = fv_dict_get(v, keys[k]);
        *fields[k] = -1;
        if (value && get_int_or_decimal(dec, value, keys[k], fields[k])) return -1;
    }
    return 0;
}

static int decode_status(decoder *dec, const fv *pg_status, fr_dump *d) {
    if (!fv_is(pg_status, FV_DICT))
        return fr_fail(dec->b.err, "\"pg_status\" is a %s, expected dict",
                       fv_kind_name((fv_kind)pg_status->kind));
    d->status = fv_arena_alloc(dec->b.arena,
                               (size_t)(pg_status->len ? pg_status->len : 1) * sizeof *d->status);
    if (!d->status) return dump_out_of_memory(&dec->b);
    for (uint32_t i = 0; i < pg_status->len; i++)
        if (decode_one_status(dec, fv_dict_key(pg_status, i), fv_dict_value(pg_status, i),
                              &d->status[i]))
            return -1;
    d->nstatus = pg_status->len;
    return 0;
}

/* --- the recorder's extra key --------------------------------------------------------------- */

static int decode_comm(decoder *dec, const fv *key, const fv *v, fr_comm_info *c) {
    set_where(dec, WHERE_COMM, 0, fv_is(key, FV_STR) ? key->u.s : "?");
    if (get_str(dec, key, "comms key", &c->pg_name)) return -1;
    if (!fv_is(v, FV_DICT))
        return fr_fail(dec->b.err, "%s is a %s, expected dict", where(dec),
                       fv_kind_name((fv_kind)v->kind));
    const fv *x;
    c->comm_rank = c->comm_size = c->color = -1;
    c->parent = c->nccl_hash = c->state = NULL;
    if ((x = fv_dict_get(v, "comm_rank")) && get_int(dec, x, "comm_rank", &c->comm_rank)) return -1;
    if ((x = fv_dict_get(v, "comm_size")) && get_int(dec, x, "comm_size", &c->comm_size)) return -1;
    if ((x = fv_dict_get(v, "color")) && get_int(dec, x, "color", &c->color)) return -1;
    if ((x = fv_dict_get(v, "parent")) && get_str_or_none(dec, x, "parent", &c->parent)) return -1;
    if ((x = fv_dict_get(v, "nccl_hash")) && get_str_or_none(dec, x, "nccl_hash", &c->nccl_hash))
        return -1;
    if ((x = fv_dict_get(v, "state")) && get_str_or_none(dec, x, "state", &c->state)) return -1;
    return 0;
}

static int decode_extra(decoder *dec, const fv *extra, fr_dump *d) {
    snprintf(dec->where, sizeof dec->where, "%s", FR_EXTRA_KEY);
    set_where(dec, WHERE_TEXT, 0, NULL);
    if (!fv_is(extra, FV_DICT)) return wrong_type(dec, FR_EXTRA_KEY, extra, "dict");
    const fv *x;
    if ((x = fv_dict_get(extra, "global_rank")) && get_int(dec, x, "global_rank", &d->global_rank))
        return -1;
    if ((x = fv_dict_get(extra, "trigger")) && get_str_or_none(dec, x, "trigger", &d->trigger))
        return -1;
    const fv *comms = fv_dict_get(extra, "comms");
    if (!comms || fv_is(comms, FV_NONE)) return 0;
    if (!fv_is(comms, FV_DICT)) return wrong_type(dec, "comms", comms, "dict");
    d->comms =
        fv_arena_alloc(dec->b.arena, (size_t)(comms->len ? comms->len : 1) * sizeof *d->comms);
    if (!d->comms) return dump_out_of_memory(&dec->b);
    for (uint32_t i = 0; i < comms->len; i++)
        if (decode_comm(dec, fv_dict_key(comms, i), fv_dict_value(comms, i), &d->comms[i]))
            return -1;
    d->ncomms = comms->len;
    return 0;
}

/* --- the root ------------------------------------------------------------------------------ */

static int decode_version(decoder *dec, const fv *root, fr_dump *d) {
    const fv *v = fv_dict_get(root, "version");
    if (!v) return fr_fail(dec->b.err, "not a Flight Recorder dump: no \"version\" key");
    if (!fv_is(v, FV_STR))
        return fr_fail(dec->b.err, "\"version\" is a %s, expected str like \"2.9\"",
                       fv_kind_name((fv_kind)v->kind));
    const char *dot = memchr(v->u.s, '.', v->len);
    int64_t major, minor;
    if (!dot || !parse_decimal(v->u.s, (size_t)(dot - v->u.s), &major) ||
        !parse_decimal(dot + 1, v->len - (size_t)(dot + 1 - v->u.s), &minor) || v->u.s[0] == '-' ||
        dot[1] == '-' || major > 1000 || minor > 1000000)
        return fr_fail(dec->b.err, "version \"%.40s\" is not MAJOR.MINOR", v->u.s);
    if (major != 2)
        return fr_fail(dec->b.err, "Flight Recorder version \"%.40s\" is not supported (2.x only)",
                       v->u.s);
    d->version_major = (int)major;
    d->version_minor = (int)minor;
    d->version = intern_node(dec, v);
    return d->version ? 0 : dump_out_of_memory(&dec->b);
}

/* nccl_version (2.6–2.9), comm_lib_version (2.10), xccl_version, or any other *_version. */
static int decode_comm_lib_version(decoder *dec, const fv *root, fr_dump *d) {
    const fv *v = fv_dict_get(root, "nccl_version");
    if (!v) v = fv_dict_get(root, "comm_lib_version");
    for (uint32_t p = 0; !v && p < root->len; p++) {
        const fv *k = fv_dict_key(root, p);
        if (fv_is(k, FV_STR) && k->len > 8 && strcmp(k->u.s + k->len - 8, "_version") == 0)
            v = fv_dict_value(root, p);
    }
    if (!v || !fv_is(v, FV_STR)) return 0; /* informational only: never a reason to reject */
    d->comm_lib_version = intern_node(dec, v);
    return d->comm_lib_version ? 0 : dump_out_of_memory(&dec->b);
}

static bool whole(const fv *v) { return !(v->flags & FV_FLAG_TRUNCATED); }

static const char *warning_text(decoder *dec, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static const char *warning_text(decoder *dec, const char *fmt, ...) {
    char buf[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return fv_arena_strdup(dec->b.arena, buf, strlen(buf));
}

/* truncated_at: byte offset where a salvaged pickle ended, or -1 for a whole input. */
static int decode_entries(decoder *dec, const fv *list, fr_dump *d, int64_t truncated_at) {
    if (!fv_is_seq(list))
        return fr_fail(dec->b.err, "\"entries\" is a %s, expected list",
                       fv_kind_name((fv_kind)list->kind));
    uint32_t n = list->len;
    bool partial_dropped = false;
    if (!whole(list)) { /* keep the whole prefix */
        for (uint32_t i = 0; i < n; i++)
            if (!fv_is(fv_item(list, i), FV_DICT) || !whole(fv_item(list, i))) {
                partial_dropped = true;
                n = i;
                break;
            }
    }
    d->entries = fv_arena_alloc(dec->b.arena, (size_t)(n ? n : 1) * sizeof *d->entries);
    if (!d->entries) return dump_out_of_memory(&dec->b);
    for (uint32_t i = 0; i < n; i++)
        if (decode_entry(dec, fv_item(list, i), i, &d->entries[i])) return -1;
    d->nentries = n;
    if (!whole(list)) {
        d->warning = warning_text(dec, "truncated at byte %lld: kept %u whole entries%s",
                                  (long long)truncated_at, n,
                                  partial_dropped ? ", dropped the partial one" : "");
    }
    return 0;
}

int dump_value_decode_root(decoder *dec, const fv *root, fr_dump *d, int64_t truncated_at) {
    if (!fv_is(root, FV_DICT))
        return fr_fail(dec->b.err, "not a Flight Recorder dump: the top level is a %s, not a dict",
                       root ? fv_kind_name((fv_kind)root->kind) : "nothing");
    bool salvaged = !whole(root) || truncated_at >= 0; /* even a lost STOP is a truncated file */
    const fv *pg_config = fv_dict_get(root, "pg_config"),
             *pg_status = fv_dict_get(root, "pg_status");
    const fv *entries = fv_dict_get(root, "entries"), *extra = fv_dict_get(root, FR_EXTRA_KEY);
    /* PyTorch's JSON sorts its keys: "entries" comes before "pg_config" and "version", so a
     * cut JSON dump has whole entries and no header; the other ranks' headers stand in */
    bool header_lost = salvaged && d->encoding == FR_ENCODING_JSON && entries &&
                       !fv_dict_get(root, "version") && !pg_config && !pg_status;
    if (salvaged && !header_lost &&
        (!fv_dict_get(root, "version") || !pg_config || !whole(pg_config) ||
         (pg_status && !whole(pg_status))))
        return fr_fail(dec->b.err, "truncated %s at byte %lld before the entries",
                       d->encoding == FR_ENCODING_JSON ? "JSON" : "pickle",
                       (long long)truncated_at);
    if (!header_lost && decode_version(dec, root, d)) return -1;
    if (!pg_config && !header_lost)
        return fr_fail(dec->b.err, "not a Flight Recorder dump: no \"pg_config\" key");
    if (pg_config && decode_groups(dec, pg_config, d)) return -1;
    if (pg_status && decode_status(dec, pg_status, d)) return -1;
    if (decode_comm_lib_version(dec, root, d)) return -1;
    d->truncated = salvaged;
    /* PyTorch's JSON leaves "entries" out when there are none: absent means empty there */
    d->has_entries = entries != NULL || salvaged || d->encoding == FR_ENCODING_JSON;
    if (entries && decode_entries(dec, entries, d, truncated_at)) return -1;
    if (header_lost && d->warning)
        d->warning =
            warning_text(dec, "%s; its version and pg_config were after the cut", d->warning);
    if (salvaged && !d->warning)
        d->warning =
            warning_text(dec, "truncated at byte %lld after the entries: kept all %u entries",
                         (long long)truncated_at, d->nentries);
    if (extra && whole(extra) && decode_extra(dec, extra, d)) return -1;
    return dump_decode_whereabouts(&dec->b, root, d);
}

decoder *dump_value_decoder_new(void) { return calloc(1, sizeof(decoder)); }

void dump_value_decoder_free(decoder *dec) {
    if (!dec) return;
    dump_builder_free(&dec->b);
    free(dec->strings_buf);
    free(dec->ndims_buf);
    free(dec->dims_buf);
    pg_ranks_free(&dec->ranks);
    free(dec);
}

/* Forgets the previous dump: its node pointers may be reused by the next value tree, and what
 * the caches and tables point to lives in the previous dump's arena. */
static void decoder_clear(decoder *dec) {
    if (dec->ndirty > DIRTY_MAX) {
        memset(dec->str_cache, 0, sizeof dec->str_cache);
        memset(dec->dtype_cache, 0, sizeof dec->dtype_cache);
        memset(dec->key_cache, 0, sizeof dec->key_cache);
        memset(dec->frame_cache, 0, sizeof dec->frame_cache);
    } else {
        for (size_t i = 0; i < dec->ndirty; i++) *dec->dirty[i] = NULL;
    }
    dec->ndirty = 0;
    memset(dec->recent_dtypes, 0, sizeof dec->recent_dtypes);
    memset(dec->state_nodes, 0, sizeof dec->state_nodes);
    dec->where[0] = '\0';
    set_where(dec, WHERE_TEXT, 0, NULL);
}

/* Sets `dec` up to build a dump in `arena` (fresh or cleared decoder); *d is the empty dump. */
int dump_value_begin(decoder *dec, fv_arena *arena, fr_encoding encoding, fr_error *err,
                     fr_dump **d) {
    return dump_builder_begin(&dec->b, arena, encoding, err, d);
}

/* Leaves `dec` cleared for the next dump. */
void dump_value_end(decoder *dec) {
    dump_builder_end(&dec->b);
    decoder_clear(dec);
}

/* `dec` is fresh or cleared; it is cleared again before returning. */
int dump_value_decode(decoder *dec, fv *root, fv_arena *arena, fr_encoding encoding,
                      int64_t truncated_at, fr_dump **out, fr_error *err) {
    *out = NULL;
    fr_dump *d;
    if (dump_value_begin(dec, arena, encoding, err, &d)) return -1;
    int rc = dump_value_decode_root(dec, root, d, truncated_at);
    dump_value_end(dec);
    if (rc == 0) *out = d;
    return rc;
}

int fr_dump_from_value(fv *root, fv_arena *arena, fr_encoding encoding, fr_dump **out,
                       fr_error *err) {
    *out = NULL;
    decoder *dec = dump_value_decoder_new();
    if (!dec) return fr_fail(err, "out of memory while decoding the dump");
    int rc = dump_value_decode(dec, root, arena, encoding, -1, out, err);
    dump_value_decoder_free(dec);
    return rc;
}

dump_builder *dump_value_builder(decoder *dec) { return &dec->b; }
