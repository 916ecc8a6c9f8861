/* value.h — the one value type every reader produces (pickle, JSON) and every consumer walks.
 *
 * A value (`fv`) is one of: none, bool, int (64-bit), float (double), string (UTF-8 bytes,
 * NUL-terminated, length kept), list, tuple, dict. Everything lives in an arena (`fv_arena`):
 * a reader allocates as it goes and the whole tree is released at once with fv_arena_free().
 * There is no reference counting and nothing is freed piecemeal, which keeps readers simple and
 * fast and makes a half-built tree after an error harmless.
 *
 * Values may alias: a pickle's memo lets one node appear under several parents, and even under
 * itself (a cycle). Consumers must therefore never recurse on input-controlled depth without a
 * bound; fv_tree_weight() measures the size of a value as printed, with cycle detection, so a
 * printer can refuse an exponential or cyclic tree before writing a byte. An arena also hands
 * out one shared node for None, for each boolean and for each integer 0..255, so values must
 * not be modified once made (readers only fill in a node they have just made, and set flags on
 * containers).
 *
 * A dict keeps its pairs in insertion order (like Python's dict, and like the order the C++
 * pickler wrote). fv_dict_set() replaces the value of an existing equal key in place, as Python
 * does; fv_dict_get() looks a key up by C string.
 *
 * Nodes closed by a reader's salvage of a truncated input carry FV_FLAG_TRUNCATED: the container
 * may be missing items, while a container without the flag is whole.
 *
 * A string used as a dict key caches its hash in the node (FV_FLAG_HASHED): a pickle's memo makes
 * the keys of thousands of entry dicts the same few nodes, so each is hashed once per file. The
 * bytes of a string node must therefore not change once it has been used as a key (a reader may
 * still fill in a node it has just made, as pickle_read's str_node does).
 */
#ifndef FRTRACE_VALUE_H
#define FRTRACE_VALUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"

typedef enum fv_kind {
    FV_NONE,
    FV_BOOL,
    FV_INT,
    FV_FLOAT,
    FV_STR,
    FV_LIST,
    FV_TUPLE,
    FV_DICT,
} fv_kind;

enum {
    FV_FLAG_TRUNCATED = 1u << 0, /* closed by salvage after truncated input: may lack items */
    FV_FLAG_VISITING = 1u << 1,  /* scratch for fv_tree_weight's cycle detection */
    FV_FLAG_HASHED = 1u << 2,    /* FV_STR: u.s_hash holds the hash of the bytes */
};

typedef struct fv fv;

struct fv {
    uint8_t kind;  /* fv_kind */
    uint8_t flags; /* FV_FLAG_* */
    uint32_t len;  /* FV_STR: bytes; FV_LIST/FV_TUPLE: items; FV_DICT: pairs */
    union {
        bool b;
        int64_t i;
        double f;
        struct {
            const char *s;   /* FV_STR: len bytes then a NUL */
            uint32_t s_hash; /* FV_STR: hash of the bytes, valid once FV_FLAG_HASHED is set */
        };
        struct {
            fv **items;   /* list/tuple: items[0..len); dict: key items[2k], value items[2k+1] */
            uint32_t cap; /* allocated slots in items, counted in items (dict: pairs * 2) */
            uint32_t sig; /* dict: one bit per key hash, to skip the scan for a new key */
        } seq;
    } u;
    uint64_t weight; /* scratch for fv_tree_weight (0 = not computed) */
};

/* --- arena ------------------------------------------------------------------------------ */

typedef struct fv_arena fv_arena;

fv_arena *fv_arena_new(void);
void fv_arena_free(fv_arena *arena);
/* Memory aligned to 16 bytes, or NULL when out of memory or over the arena's limit. */
void *fv_arena_alloc(fv_arena *arena, size_t size);
/* Copies bytes and appends a NUL; NULL on failure. */
char *fv_arena_strdup(fv_arena *arena, const char *bytes, size_t len);
/* Bytes handed out so far (the arena's footprint, roughly). */
size_t fv_arena_used(const fv_arena *arena);
/* Where the arena keeps that count, for a loop that checks a budget after every step (the
 * pickle machine, once per opcode) without a call each time. Valid while the arena lives. */
const size_t *fv_arena_used_counter(const fv_arena *arena);
/* Bytes of memory the arena holds from malloc: what it handed out plus the unused tails of its
 * chunks (for measuring the real footprint). */
size_t fv_arena_held(const fv_arena *arena);
/* Refuse allocations once `max_bytes` would be exceeded (0 = no limit). */
void fv_arena_set_limit(fv_arena *arena, size_t max_bytes);
/* An arena whose first chunk is `first_chunk` bytes (rounded up to 1 KiB) instead of 64 KiB: for
 * the many small arenas that outlive decoding (one fr_dump per rank), where a half-empty 64 KiB
 * chunk per rank adds up. Chunks still grow geometrically from there. */
fv_arena *fv_arena_new_sized(size_t first_chunk);
/* Forgets everything handed out (every pointer into the arena becomes invalid) but keeps the
 * newest chunk's memory for the next use, so that decoding file after file with one arena does
 * not map and fault in fresh pages each time. The limit stays. */
void fv_arena_reset(fv_arena *arena);

/* --- constructors (NULL when the arena refuses) ---------------------------------------- */

fv *fv_none(fv_arena *arena);
fv *fv_bool(fv_arena *arena, bool b);
fv *fv_int(fv_arena *arena, int64_t i);
fv *fv_float(fv_arena *arena, double f);
fv *fv_str(fv_arena *arena, const char *bytes, size_t len); /* copies */
fv *fv_cstr(fv_arena *arena, const char *s);                /* copies */
fv *fv_list(fv_arena *arena);
fv *fv_tuple(fv_arena *arena);
fv *fv_dict(fv_arena *arena);

/* Makes room for `items` items in a list or tuple, or `items / 2` pairs in a dict, so that the
 * pushes or sets that follow do not grow the item array step by step. A hint: false only when
 * out of memory, and nothing changes then. */
bool fv_reserve(fv_arena *arena, fv *v, uint64_t items);
/* Appends to a list or tuple. false when out of memory or `seq` is not a list/tuple. */
bool fv_seq_push(fv_arena *arena, fv *seq, fv *item);
/* Appends items[0..n) to a list or tuple, as n fv_seq_push calls would (but growing the item
 * array once). false when out of memory or `seq` is not a list/tuple; nothing is added then. */
bool fv_seq_extend(fv_arena *arena, fv *seq, fv *const *items, size_t n);
/* Sets key -> value, replacing the value of an equal key (Python's semantics: 1, 1.0 and True
 * are one key). Large dicts use a hash index so that building one stays linear. The dict must
 * live in `arena` (the arena remembers recent dicts as models for later ones). */
bool fv_dict_set(fv_arena *arena, fv *dict, fv *key, fv *value);
/* fv_dict_set for the pairs (items[2k], items[2k+1]), k < npairs, in order — what a reader's
 * SETITEMS does — stopping before the first pair whose key is a list or a dict (unhashable in
 * Python, so the reader reports it). Returns the pairs set; *failed is true when it stopped
 * because memory ran out (or `dict` is no dict, or an item is NULL). */
size_t fv_dict_update(fv_arena *arena, fv *dict, fv *const *items, size_t npairs, bool *failed);

/* --- access ------------------------------------------------------------------------------ */

static inline fv *fv_item(const fv *seq, uint32_t i) { return seq->u.seq.items[i]; }
static inline fv *fv_dict_key(const fv *dict, uint32_t i) { return dict->u.seq.items[2 * i]; }
static inline fv *fv_dict_value(const fv *dict, uint32_t i) { return dict->u.seq.items[2 * i + 1]; }
static inline bool fv_is(const fv *v, fv_kind kind) { return v != NULL && v->kind == kind; }
static inline bool fv_is_seq(const fv *v) {
    return v != NULL && (v->kind == FV_LIST || v->kind == FV_TUPLE);
}

/* The value under a string key, or NULL (also when `dict` is not a dict). */
fv *fv_dict_get(const fv *dict, const char *key);
/* Python's == between two keys (str, int, float, bool, none; containers compare unequal). */
bool fv_key_equal(const fv *a, const fv *b);
/* "none", "bool", ... for messages. */
const char *fv_kind_name(fv_kind kind);

/* Size of `v` as it would be printed, in rough output bytes, following aliases. Stops early and
 * returns UINT64_MAX when the weight passes `limit` or the tree is cyclic. Uses the scratch
 * fields of the nodes; not thread-safe for trees shared between threads. */
uint64_t fv_tree_weight(fv *v, uint64_t limit);

#endif
