/* dump_builder.c — builds a dump's structs for every decoding path (see dump_builder.h).
 *
 * One builder serves the generic path (dump.c, from a value tree) and the direct ones
 * (dump_pickle_fast.c, dump_json_fast.c), so that all give the same dump: strings are interned per
 * dump, dtypes spelled the way c10 spells them today, and the shape lists, dtype lists and
 * stacks that thousands of entries repeat are stored once per dump (see "shared lists"). The
 * rules of an entry's keys (which exist, which are required, the state spellings) live here
 * too. The builder keeps its tables and scratch from dump to dump; dump_builder_end forgets
 * what pointed into the finished dump's arena.
 */
#include "dump_builder.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "intern.h"

/* --- the builder ---------------------------------------------------------------------------- */

static void table_free(list_table *t);

int dump_builder_begin(dump_builder *b, fv_arena *arena, fr_encoding encoding, fr_error *err,
                       fr_dump **d) {
    *d = fv_arena_alloc(arena, sizeof **d);
    b->strings = fr_intern_new(arena);
    if (!*d || !b->strings) {
        fr_intern_free(b->strings);
        b->strings = NULL;
        return fr_fail(err, "out of memory while decoding the dump");
    }
    b->arena = arena;
    b->err = err;
    memset(*d, 0, sizeof **d);
    (*d)->encoding = encoding;
    (*d)->global_rank = -1;
    (*d)->arena = arena;
    return 0;
}

void dump_builder_end(dump_builder *b) {
    fr_intern_free(b->strings);
    b->strings = NULL;
    table_free(&b->shapes);
    table_free(&b->dtypes);
    table_free(&b->frames);
    memset(&b->shapes, 0, sizeof b->shapes);
    memset(&b->dtypes, 0, sizeof b->dtypes);
    memset(&b->frames, 0, sizeof b->frames);
}

void dump_builder_free(dump_builder *b) {
    fr_intern_free(b->strings);
    table_free(&b->shapes);
    table_free(&b->dtypes);
    table_free(&b->frames);
    free(b->frame_buf);
}

int dump_out_of_memory(dump_builder *b) {
    return fr_fail(b->err, "out of memory while decoding the dump");
}

/* --- strings -------------------------------------------------------------------------------- */

static const char *intern_cstr(dump_builder *b, const char *s) {
    return fr_intern(b->strings, s, strlen(s));
}

const char *dump_intern(dump_builder *b, const char *bytes, size_t len) {
    return fr_intern(b->strings, bytes, len);
}

const char *dump_thread_id_text(dump_builder *b, int64_t id) {
    char buf[24];
    snprintf(buf, sizeof buf, "%lld", (long long)id);
    return intern_cstr(b, buf);
}

fv_arena *dump_arena(dump_builder *b) { return b->arena; }

/* --- dtype names ---------------------------------------------------------------------------- */

/* 2.0 wrote TypeMeta::name() spellings; later versions c10::toString(ScalarType). */
static const char *const LEGACY_DTYPES[][2] = {
    { "float", "Float" },
    { "double", "Double" },
    { "c10::Half", "Half" },
    { "c10::BFloat16", "BFloat16" },
    { "long int", "Long" },
    { "long", "Long" },
    { "int64_t", "Long" },
    { "long long", "Long" },
    { "int", "Int" },
    { "int32_t", "Int" },
    { "short int", "Short" },
    { "short", "Short" },
    { "int16_t", "Short" },
    { "signed char", "Char" },
    { "int8_t", "Char" },
    { "unsigned char", "Byte" },
    { "uint8_t", "Byte" },
    { "bool", "Bool" },
    { "c10::complex<c10::Half>", "ComplexHalf" },
    { "c10::complex<float>", "ComplexFloat" },
    { "c10::complex<double>", "ComplexDouble" },
    { "c10::qint8", "QInt8" },
    { "c10::quint8", "QUInt8" },
    { "c10::qint32", "QInt32" },
    { "c10::quint4x2", "QUInt4x2" },
    { "c10::quint2x4", "QUInt2x4" },
    { "unsigned short", "UInt16" },
    { "uint16_t", "UInt16" },
    { "unsigned int", "UInt32" },
    { "uint32_t", "UInt32" },
    { "unsigned long", "UInt64" },
    { "uint64_t", "UInt64" },
};

static const char *normalized_dtype(const char *s) {
    for (size_t i = 0; i < sizeof LEGACY_DTYPES / sizeof LEGACY_DTYPES[0]; i++)
        if (strcmp(s, LEGACY_DTYPES[i][0]) == 0) return LEGACY_DTYPES[i][1];
    if (strncmp(s, "c10::", 5) == 0) return s + 5; /* c10::Float8_e4m3fn and friends */
    return s;
}

const char *dump_dtype(dump_builder *b, const char *interned) {
    return intern_cstr(b, normalized_dtype(interned));
}

/* --- shared lists -------------------------------------------------------------------------- */

/* Thousands of entries carry the same few shape lists, dtype lists and stacks, and consumers
 * only read them: each distinct list is stored once per dump and every entry that repeats it
 * points to that copy. The tables map a content hash to the stored list; `same` compares a
 * candidate with a stored one. Sharing only saves memory, so a probe that runs longer than
 * SHARE_PROBE_MAX (hostile collisions) or a list longer than SHARE_ITEMS_MAX simply gets its
 * own copy, which keeps the work per list bounded whatever the input. */
enum { SHARE_PROBE_MAX = 16, SHARE_ITEMS_MAX = 64, FRAME_SHARE_MAX = 256 };

static uint64_t hash_step(uint64_t h, uint64_t x) {
    h = (h ^ x) * 0x9e3779b97f4a7c15ull;
    return h ^ (h >> 32);
}

typedef bool (*same_fn)(const void *stored, uint32_t count, const void *candidate);

/* Doubles the table (or makes the first one). false when out of memory. */
static bool table_grow(list_table *t) {
    size_t size = t->size ? t->size * 2 : 64;
    list_slot *slots = calloc(size, sizeof *slots);
    if (!slots) return false;
    for (size_t i = 0; i < t->size; i++) {
        if (!t->slots[i].items) continue;
        size_t at = t->slots[i].hash & (size - 1);
        while (slots[at].items) at = (at + 1) & (size - 1);
        slots[at] = t->slots[i];
    }
    free(t->slots);
    t->slots = slots;
    t->size = size;
    return true;
}

/* The stored list equal to `candidate`, or NULL; then *fill is the slot to store it in (NULL
 * when the list should not be shared: probe too long, or no memory to grow the table). Inlined,
 * so that each caller's `same` is a direct call. */
static inline __attribute__((always_inline)) const void *
shared_find(list_table *t, uint64_t h, uint32_t count, const void *candidate, same_fn same,
            list_slot **fill) {
    *fill = NULL;
    if ((t->used + 1) * 2 > t->size && !table_grow(t)) return NULL;
    size_t at = h & (t->size - 1);
    for (int probe = 0; probe < SHARE_PROBE_MAX; probe++, at = (at + 1) & (t->size - 1)) {
        list_slot *sl = &t->slots[at];
        if (!sl->items) {
            *fill = sl;
            return NULL;
        }
        if (sl->hash == h && sl->count == count && same(sl->items, count, candidate))
            return sl->items;
    }
    return NULL;
}

static void shared_store(list_table *t, list_slot *sl, uint64_t h, uint32_t count,
                         const void *items) {
    if (!sl) return;
    *sl = (list_slot){ h, items, count };
    t->used++;
}

static void table_free(list_table *t) { free(t->slots); }

/* --- dtypes ------------------------------------------------------------------------------- */

static bool same_strings(const void *stored, uint32_t count, const void *candidate) {
    return count == 0 ||
           memcmp(stored, candidate, (size_t)count * sizeof(const char *)) == 0; /* interned */
}

int dump_store_dtypes(dump_builder *b, uint32_t count, const char *const *items, fr_strings *out) {
    uint64_t h = count;
    for (uint32_t i = 0; i < count; i++) h = hash_step(h, (uint64_t)(uintptr_t)items[i]);
    out->count = count;
    list_slot *fill = NULL;
    if (count <= SHARE_ITEMS_MAX) {
        const void *found = shared_find(&b->dtypes, h, count, items, same_strings, &fill);
        if (found) {
            out->items = found;
            return 0;
        }
    }
    const char **copy = fv_arena_alloc(b->arena, (size_t)(count ? count : 1) * sizeof *copy);
    if (!copy) return dump_out_of_memory(b);
    if (count) memcpy(copy, items, (size_t)count * sizeof *copy);
    shared_store(&b->dtypes, fill, h, count, copy);
    out->items = copy;
    return 0;
}

/* --- shapes -------------------------------------------------------------------------------- */

/* A candidate list of shapes, flattened: shape i has ndims[i] dims, all of them end to end. */
typedef struct flat_shapes {
    const uint32_t *ndims;
    const int64_t *dims;
} flat_shapes;

static bool same_shapes(const void *stored, uint32_t count, const void *candidate) {
    const fr_shape *shapes = stored;
    const flat_shapes *c = candidate;
    const int64_t *dims = c->dims;
    for (uint32_t i = 0; i < count; i++) {
        if (shapes[i].ndim != c->ndims[i]) return false;
        if (shapes[i].ndim &&
            memcmp(shapes[i].dims, dims, (size_t)shapes[i].ndim * sizeof *dims) != 0)
            return false;
        dims += shapes[i].ndim;
    }
    return true;
}

int dump_store_shapes(dump_builder *b, uint32_t count, const uint32_t *ndims, const int64_t *dims,
                      fr_shapes *out) {
    uint64_t total = 0, h = count;
    const int64_t *d = dims;
    for (uint32_t i = 0; i < count; i++) {
        total += ndims[i];
        h = hash_step(h, ndims[i]);
        for (uint32_t k = 0; k < ndims[i]; k++) h = hash_step(h, (uint64_t)*d++);
    }
    out->count = count;
    list_slot *fill = NULL;
    flat_shapes candidate = { ndims, dims };
    if (total + count <= SHARE_ITEMS_MAX) {
        const void *found = shared_find(&b->shapes, h, count, &candidate, same_shapes, &fill);
        if (found) {
            out->shapes = found;
            return 0;
        }
    }
    fr_shape *shapes = fv_arena_alloc(b->arena, (size_t)(count ? count : 1) * sizeof *shapes);
    int64_t *copy = fv_arena_alloc(b->arena, (size_t)(total ? total : 1) * sizeof *copy);
    if (!shapes || !copy) return dump_out_of_memory(b);
    if (total) memcpy(copy, dims, (size_t)total * sizeof *copy);
    for (uint32_t i = 0; i < count; i++) {
        shapes[i].ndim = ndims[i];
        shapes[i].dims = copy;
        copy += ndims[i];
    }
    shared_store(&b->shapes, fill, h, count, shapes);
    out->shapes = shapes;
    return 0;
}

/* --- frames -------------------------------------------------------------------------------- */

static bool same_frames(const void *stored, uint32_t count, const void *candidate) {
    const fr_frame *a = stored, *b = candidate;
    for (uint32_t i = 0; i < count; i++)
        if (a[i].name != b[i].name || a[i].filename != b[i].filename || a[i].line != b[i].line)
            return false;
    return true;
}

fr_frame *dump_scratch_frames(dump_builder *b, uint32_t n) {
    if (fr_scratch((void **)&b->frame_buf, &b->frame_buf_cap, n, sizeof *b->frame_buf, 64))
        return NULL;
    return b->frame_buf;
}

/* An entry's frames: a stack seen before in this dump is shared, a new one copied. An empty but
 * present list stays distinguishable from an absent one (frames == NULL). */
int dump_store_frames(dump_builder *b, const fr_frame *frames, uint32_t n, fr_entry *e) {
    uint64_t h = n;
    for (uint32_t i = 0; i < n; i++) {
        h = hash_step(h, (uint64_t)(uintptr_t)frames[i].name);
        h = hash_step(h, (uint64_t)(uintptr_t)frames[i].filename);
        h = hash_step(h, (uint64_t)frames[i].line);
    }
    e->nframes = n;
    list_slot *fill = NULL;
    if (n > 0 && n <= FRAME_SHARE_MAX) {
        const void *found = shared_find(&b->frames, h, n, frames, same_frames, &fill);
        if (found) {
            e->frames = found;
            return 0;
        }
    }
    fr_frame *copy = fv_arena_alloc(b->arena, (size_t)(n ? n : 1) * sizeof *copy);
    if (!copy) return dump_out_of_memory(b);
    if (n) memcpy(copy, frames, (size_t)n * sizeof *copy);
    shared_store(&b->frames, fill, h, n, copy);
    e->frames = copy;
    return 0;
}

/* --- entries ------------------------------------------------------------------------------- */

static const char *const ENTRY_FIELD_NAMES[F_COUNT] = {
    "frames",
    "record_id",
    "pg_id",
    "process_group",
    "thread_name",
    "thread_id",
    "collective_seq_id",
    "p2p_seq_id",
    "op_id",
    "profiling_name",
    "time_created_ns",
    "duration_ms",
    "input_sizes",
    "input_dtypes",
    "output_sizes",
    "output_dtypes",
    "state",
    "time_discovered_started_ns",
    "time_discovered_completed_ns",
    "retired",
    "timeout_ms",
    "is_p2p",
};

/* Every version since 2.0 has these; the analyzer cannot place an entry without them. */
static const uint32_t REQUIRED_ENTRY_FIELDS =
    1u << F_RECORD_ID | 1u << F_PG_ID | 1u << F_PROCESS_GROUP | 1u << F_COLLECTIVE_SEQ_ID |
    1u << F_P2P_SEQ_ID | 1u << F_PROFILING_NAME | 1u << F_STATE | 1u << F_INPUT_SIZES |
    1u << F_OUTPUT_SIZES | 1u << F_INPUT_DTYPES | 1u << F_OUTPUT_DTYPES;

int dump_entry_field(const char *bytes, size_t len) {
    if (len == 0) return F_UNKNOWN;
    for (int f = 0; f < F_COUNT; f++) {
        const char *name = ENTRY_FIELD_NAMES[f];
        if (name[0] == bytes[0] && strlen(name) == len && memcmp(name, bytes, len) == 0) return f;
    }
    return F_UNKNOWN;
}

const char *dump_entry_field_name(int f) { return ENTRY_FIELD_NAMES[f]; }

bool dump_entry_complete(uint32_t seen) { return (REQUIRED_ENTRY_FIELDS & ~seen) == 0; }

int dump_entry_missing(uint32_t seen) {
    uint32_t missing = REQUIRED_ENTRY_FIELDS & ~seen;
    if (!missing) return F_UNKNOWN;
    int f = 0;
    while (!(missing & (1u << f))) f++;
    return f;
}

int dump_state_of(const char *s) {
    if (strcmp(s, "scheduled") == 0) return FR_STATE_SCHEDULED;
    if (strcmp(s, "started") == 0) return FR_STATE_STARTED;
    if (strcmp(s, "completed") == 0) return FR_STATE_COMPLETED;
    return -1;
}
