/* value.c — the arena and the value type (see value.h for the model).
 *
 * The arena hands out memory from chunks that grow geometrically (64 KiB, or what
 * fv_arena_new_sized says, up to 16 MiB); a request of half a chunk or more gets a chunk of its
 * own, linked behind the current one, which keeps serving small requests. Nothing is freed
 * until the arena is (or reset, which keeps the newest chunk for reuse). Growing a list or dict
 * reallocates its item array inside the arena, doubling: when the array is the newest
 * allocation of the current chunk — the usual case, since a reader fills one container at a
 * time — it simply grows in place; otherwise the old array is left behind, so the waste stays
 * under half. None, the booleans and the integers 0..255 are one shared node per arena.
 *
 * Dicts keep insertion order in a flat array of key/value pairs. Finding whether a new key is
 * already there is the cost of building a dict, and a reader builds millions of them, so:
 *   - a dict usually has a model (see fv_dict_set): an earlier dict whose keys it repeats node
 *     for node, as a pickle's entry dicts do through the memo; the model's next key is known
 *     to be new, without any search;
 *   - otherwise, up to DICT_LINEAR_MAX pairs, a 32-bit signature with one bit per key hash (a
 *     one-word Bloom filter) rules most keys out, and only then are the pairs scanned; string
 *     keys cache their hash in the node, so the memoized key nodes are hashed once per file;
 *   - past DICT_LINEAR_MAX an open-addressing index of pair numbers is built and kept, so that
 *     a hostile dict of a million keys costs a million probes, not 10^12.
 * The item array's last slot, which fv_dict_set always keeps spare, holds the model (small
 * dicts) or the index (large ones), and moves with the array.
 */
#include "value.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mix64.h"
#include "grow.h"

/* --- arena ------------------------------------------------------------------------------ */

enum { CHUNK_MIN = 64 * 1024, CHUNK_MAX = 16 * 1024 * 1024, ALIGN = 16 };

typedef struct chunk {
    struct chunk *next;
    size_t size, used;
    _Alignas(16) unsigned char data[];
} chunk;

enum { MODEL_SLOTS = 8, SMALL_INTS = 256 };

struct fv_arena {
    chunk *head; /* the current chunk; older and dedicated ones follow */
    size_t next_chunk_size;
    size_t handed_out;
    size_t limit;
    /* dicts whose key sequence new dicts probably repeat, by first key (see fv_dict_set) */
    fv *models[MODEL_SLOTS];
    /* shared scalars (see the constructors), made on first use */
    fv *none, *bools[2];
    fv **small_ints; /* SMALL_INTS slots, malloc'ed on first use: a fixed 2 KiB, kept out of
                        the arena so that budgets on what it hands out see only the values */
};

fv_arena *fv_arena_new_sized(size_t first_chunk) {
    fv_arena *arena = calloc(1, sizeof *arena);
    if (!arena) return NULL;
    first_chunk = (first_chunk + 1023) & ~(size_t)1023;
    if (first_chunk < 1024) first_chunk = 1024;
    if (first_chunk > CHUNK_MAX) first_chunk = CHUNK_MAX;
    arena->next_chunk_size = first_chunk;
    return arena;
}

fv_arena *fv_arena_new(void) { return fv_arena_new_sized(CHUNK_MIN); }

void fv_arena_free(fv_arena *arena) {
    if (!arena) return;
    free(arena->small_ints);
    chunk *c = arena->head;
    while (c) {
        chunk *next = c->next;
        free(c);
        c = next;
    }
    free(arena);
}

void fv_arena_reset(fv_arena *arena) {
    chunk *keep = arena->head; /* never larger than CHUNK_MAX unless it was the first request */
    if (keep && keep->size > CHUNK_MAX) keep = NULL;
    chunk *c = arena->head;
    while (c) {
        chunk *next = c->next;
        if (c != keep) free(c);
        c = next;
    }
    arena->head = keep;
    if (keep) {
        keep->next = NULL;
        keep->used = 0;
    }
    arena->handed_out = 0;
    memset(arena->models, 0, sizeof arena->models);
    arena->none = arena->bools[0] = arena->bools[1] = NULL;
    if (arena->small_ints) memset(arena->small_ints, 0, SMALL_INTS * sizeof(fv *));
}

void fv_arena_set_limit(fv_arena *arena, size_t max_bytes) { arena->limit = max_bytes; }

size_t fv_arena_used(const fv_arena *arena) { return arena->handed_out; }

const size_t *fv_arena_used_counter(const fv_arena *arena) { return &arena->handed_out; }

size_t fv_arena_held(const fv_arena *arena) {
    size_t held = sizeof *arena + (arena->small_ints ? SMALL_INTS * sizeof(fv *) : 0);
    for (const chunk *c = arena->head; c; c = c->next) held += sizeof *c + c->size;
    return held;
}

/* A chunk with room for `need` bytes. A request of at least half the next chunk size gets a
 * chunk of exactly its size, linked behind the current one, which thus keeps serving small
 * requests instead of being abandoned with its tail unused. */
static chunk *arena_grow(fv_arena *arena, size_t need) {
    bool dedicated = need >= arena->next_chunk_size / 2 && arena->head;
    size_t size = dedicated ? need : arena->next_chunk_size;
    if (size < need) size = need;
    chunk *c = malloc(sizeof *c + size);
    if (!c) return NULL;
    c->size = size;
    c->used = 0;
    if (dedicated) {
        c->next = arena->head->next;
        arena->head->next = c;
        return c;
    }
    c->next = arena->head;
    arena->head = c;
    if (arena->next_chunk_size < CHUNK_MAX) arena->next_chunk_size *= 2;
    return c;
}

static size_t round_up(size_t size) {
    size_t rounded = (size + (ALIGN - 1)) & ~(size_t)(ALIGN - 1);
    return rounded ? rounded : ALIGN;
}

/* The allocation itself, inlined into the node constructors (whose sizes are constants). */
static inline void *arena_take(fv_arena *arena, size_t size) {
    if (size > SIZE_MAX / 2) return NULL;
    size_t rounded = round_up(size);
    if (arena->limit && arena->handed_out + rounded > arena->limit) return NULL;
    chunk *c = arena->head;
    if (__builtin_expect(!c || c->size - c->used < rounded, 0)) {
        c = arena_grow(arena, rounded);
        if (!c) return NULL;
    }
    void *p = c->data + c->used;
    c->used += rounded;
    arena->handed_out += rounded;
    return p;
}

void *fv_arena_alloc(fv_arena *arena, size_t size) { return arena_take(arena, size); }

/* Grows the allocation `p` of `old_size` bytes to `new_size` where it is, which works when it
 * is the newest allocation of the current chunk and the chunk has room. */
static bool arena_extend(fv_arena *arena, void *p, size_t old_size, size_t new_size) {
    chunk *c = arena->head;
    size_t old_r = round_up(old_size), new_r = round_up(new_size);
    if (!c || !p || (unsigned char *)p + old_r != c->data + c->used) return false;
    size_t more = new_r - old_r;
    if (c->size - c->used < more) return false;
    if (arena->limit && arena->handed_out + more > arena->limit) return false;
    c->used += more;
    arena->handed_out += more;
    return true;
}

/* Gives back the tail of the allocation `p` beyond `new_size`, when it is the newest allocation
 * of the current chunk; false (and nothing changes) otherwise. */
static bool arena_trim(fv_arena *arena, void *p, size_t old_size, size_t new_size) {
    chunk *c = arena->head;
    size_t old_r = round_up(old_size), new_r = round_up(new_size);
    if (!c || !p || new_r > old_r || (unsigned char *)p + old_r != c->data + c->used) return false;
    c->used -= old_r - new_r;
    arena->handed_out -= old_r - new_r;
    return true;
}

char *fv_arena_strdup(fv_arena *arena, const char *bytes, size_t len) {
    if (len >= UINT32_MAX) return NULL;
    char *s = fv_arena_alloc(arena, len + 1);
    if (!s) return NULL;
    if (len) memcpy(s, bytes, len);
    s[len] = '\0';
    return s;
}

/* --- constructors ------------------------------------------------------------------------- */

static inline fv *node(fv_arena *arena, fv_kind kind) {
    fv *v = arena_take(arena, sizeof *v);
    if (!v) return NULL;
    memset(v, 0, sizeof *v);
    v->kind = (uint8_t)kind;
    return v;
}

/* None, booleans and the integers 0..255 are one node each per arena: a value is never changed
 * once made (only containers get flags, only strings get filled in), so sharing them is as
 * invisible as a pickle's memo sharing a node, and they are the most frequent scalars. */
fv *fv_none(fv_arena *arena) {
    if (!arena->none) arena->none = node(arena, FV_NONE);
    return arena->none;
}

fv *fv_bool(fv_arena *arena, bool b) {
    fv **slot = &arena->bools[b ? 1 : 0];
    if (!*slot && (*slot = node(arena, FV_BOOL))) (*slot)->u.b = b;
    return *slot;
}

fv *fv_int(fv_arena *arena, int64_t i) {
    fv **slot = NULL;
    if (i >= 0 && i < SMALL_INTS) {
        if (!arena->small_ints) arena->small_ints = calloc(SMALL_INTS, sizeof(fv *));
        slot = arena->small_ints ? &arena->small_ints[i] : NULL; /* no table: unshared */
    }
    if (slot && *slot) return *slot;
    fv *v = node(arena, FV_INT);
    if (v) v->u.i = i;
    if (slot) *slot = v;
    return v;
}

fv *fv_float(fv_arena *arena, double f) {
    fv *v = node(arena, FV_FLOAT);
    if (v) v->u.f = f;
    return v;
}

fv *fv_str(fv_arena *arena, const char *bytes, size_t len) {
    fv *v = node(arena, FV_STR);
    if (!v) return NULL;
    char *s = fv_arena_strdup(arena, bytes, len);
    if (!s) return NULL;
    v->u.s = s;
    v->len = (uint32_t)len;
    return v;
}

fv *fv_cstr(fv_arena *arena, const char *s) { return fv_str(arena, s, strlen(s)); }
fv *fv_list(fv_arena *arena) { return node(arena, FV_LIST); }
fv *fv_tuple(fv_arena *arena) { return node(arena, FV_TUPLE); }
fv *fv_dict(fv_arena *arena) { return node(arena, FV_DICT); }

/* Makes room for `slots` item pointers in a list, tuple or dict: in place when the array is the
 * arena's newest allocation, else by moving it. reserve() below is the call. */
static bool grow_items(fv_arena *arena, fv *v, uint64_t slots) {
    if (slots > UINT32_MAX / 2) return false;
    uint64_t cap = v->u.seq.cap ? (uint64_t)v->u.seq.cap * 2 : 4;
    while (cap < slots) cap *= 2;
    if (cap > UINT32_MAX) cap = UINT32_MAX;
    /* a dict's last slot (its model or index, see fv_dict_set) moves to the new last slot */
    bool dict = v->kind == FV_DICT;
    fv *spare = dict && v->u.seq.cap ? v->u.seq.items[v->u.seq.cap - 1] : NULL;
    size_t old_bytes = (size_t)v->u.seq.cap * sizeof(fv *), new_bytes = (size_t)cap * sizeof(fv *);
    if (!v->u.seq.cap || !arena_extend(arena, v->u.seq.items, old_bytes, new_bytes)) {
        fv **items = fv_arena_alloc(arena, new_bytes);
        if (!items) return false;
        uint64_t used = dict ? (uint64_t)v->len * 2 : v->len;
        if (used) memcpy(items, v->u.seq.items, (size_t)used * sizeof *items);
        v->u.seq.items = items;
    }
    v->u.seq.cap = (uint32_t)cap;
    if (dict) v->u.seq.items[cap - 1] = spare;
    return true;
}

static inline bool reserve(fv_arena *arena, fv *v, uint64_t slots) {
    return slots <= v->u.seq.cap || grow_items(arena, v, slots);
}

bool fv_seq_push(fv_arena *arena, fv *seq, fv *item) {
    if (!fv_is_seq(seq) || !item || seq->len == UINT32_MAX) return false;
    if (!reserve(arena, seq, (uint64_t)seq->len + 1)) return false;
    seq->u.seq.items[seq->len++] = item;
    return true;
}

/* --- dict keys ---------------------------------------------------------------------------- */

/* Python makes True == 1 == 1.0 one key; represent every numeric key as a double or an int. */
static bool key_as_int(const fv *k, int64_t *out) {
    switch (k->kind) {
    case FV_BOOL: *out = k->u.b; return true;
    case FV_INT: *out = k->u.i; return true;
    case FV_FLOAT:
        if (isfinite(k->u.f) && k->u.f == floor(k->u.f) && k->u.f >= -9223372036854775808.0 &&
            k->u.f < 9223372036854775808.0) {
            *out = (int64_t)k->u.f;
            return true;
        }
        return false;
    default: return false;
    }
}

bool fv_key_equal(const fv *a, const fv *b) {
    if (a == b) return true;
    if (a->kind == FV_STR || b->kind == FV_STR) /* the common case: decide without key_as_int */
        return a->kind == b->kind && a->len == b->len && memcmp(a->u.s, b->u.s, a->len) == 0;
    int64_t ia, ib;
    if (key_as_int(a, &ia) && key_as_int(b, &ib)) return ia == ib;
    if (a->kind != b->kind) return false;
    switch (a->kind) {
    case FV_NONE: return true;
    case FV_FLOAT: return a->u.f == b->u.f; /* NaN != NaN, as in Python for distinct objects */
    default: return false;
    }
}

/* Eight bytes at a time, then mixed: keys are short, but JSON keys and hostile ones need not be. */
static uint32_t bytes_hash(const char *s, uint32_t len) {
    uint64_t h = 0x9e3779b97f4a7c15ULL ^ len;
    uint32_t n = 0;
    for (; n + 8 <= len; n += 8) {
        uint64_t w;
        memcpy(&w, s + n, 8);
        h = (h ^ w) * 0xff51afd7ed558ccdULL;
        h ^= h >> 29;
    }
    uint64_t tail = 0;
    memcpy(&tail, s + n, len - n);
    return (uint32_t)fr_mix64(h ^ tail);
}

/* A 32-bit hash consistent with fv_key_equal. A string node keeps its hash once computed. */
static uint32_t key_hash_slow(fv *k) {
    int64_t i;
    switch (k->kind) {
    case FV_STR:
        if (!(k->flags & FV_FLAG_HASHED)) {
            k->u.s_hash = bytes_hash(k->u.s, k->len);
            k->flags |= FV_FLAG_HASHED;
        }
        return k->u.s_hash;
    case FV_FLOAT:
        if (!key_as_int(k, &i)) {
            uint64_t bits;
            memcpy(&bits, &k->u.f, sizeof bits);
            return (uint32_t)fr_mix64(bits);
        }
        return (uint32_t)fr_mix64((uint64_t)i);
    case FV_BOOL:
    case FV_INT: key_as_int(k, &i); return (uint32_t)fr_mix64((uint64_t)i);
    case FV_NONE: return 0x7f4a7c15u;
    default: return (uint32_t)fr_mix64((uint64_t)(uintptr_t)k); /* containers: identity */
    }
}

static inline uint32_t key_hash(fv *k) {
    if (k->flags & FV_FLAG_HASHED) return k->u.s_hash; /* set on strings only */
    return key_hash_slow(k);
}

/* The dict's signature bit for a key hash (high bits: the index uses the low ones). */
static uint32_t sig_bit(uint32_t h) { return 1u << (h >> 27); }

enum { DICT_LINEAR_MAX = 32 };

/* A dict past DICT_LINEAR_MAX pairs has an index: a table of (pair number + 1), 0 = empty, sized
 * to a power of two at least twice the pairs. Its pointer is kept in the last slot of the item
 * array, which fv_dict_set always leaves spare; when the array moves or grows the index is
 * rebuilt. A dict of up to DICT_LINEAR_MAX pairs uses that spare slot for its model instead. */
typedef struct dict_index {
    uint32_t size; /* slots, power of two */
    uint32_t slots[];
} dict_index;

static fv **spare_slot(fv *d) { return &d->u.seq.items[d->u.seq.cap - 1]; }
static dict_index **index_slot(fv *d) { return (dict_index **)spare_slot(d); }

static bool index_rebuild(fv_arena *arena, fv *d) {
    uint32_t size = 64;
    while (size < (uint64_t)d->len * 2 + 2) size *= 2;
    dict_index *ix = fv_arena_alloc(arena, sizeof *ix + (size_t)size * sizeof ix->slots[0]);
    if (!ix) return false;
    ix->size = size;
    memset(ix->slots, 0, (size_t)size * sizeof ix->slots[0]);
    for (uint32_t p = 0; p < d->len; p++) {
        uint32_t s = key_hash(fv_dict_key(d, p)) & (size - 1);
        while (ix->slots[s]) s = (s + 1) & (size - 1);
        ix->slots[s] = p + 1;
    }
    *index_slot(d) = ix;
    return true;
}

/* Position of a key equal to `key` (whose hash is `h`), or -1. */
static __attribute__((noinline)) int64_t dict_find(fv *d, const fv *key, uint32_t h) {
    if (d->len <= DICT_LINEAR_MAX) {
        if (!(d->u.seq.sig & sig_bit(h))) return -1;
        if (key->kind == FV_STR) { /* every string key of the dict has its hash cached */
            for (uint32_t p = 0; p < d->len; p++) {
                const fv *k = fv_dict_key(d, p);
                if (k == key || (k->kind == FV_STR && k->u.s_hash == h && k->len == key->len &&
                                 memcmp(k->u.s, key->u.s, key->len) == 0))
                    return p;
            }
            return -1;
        }
        for (uint32_t p = 0; p < d->len; p++)
            if (fv_key_equal(fv_dict_key(d, p), key)) return p;
        return -1;
    }
    dict_index *ix = *index_slot(d);
    uint32_t s = h & (ix->size - 1);
    while (ix->slots[s]) {
        uint32_t p = ix->slots[s] - 1;
        if (fv_key_equal(fv_dict_key(d, p), key)) return p;
        s = (s + 1) & (ix->size - 1);
    }
    return -1;
}

static size_t model_slot(const fv *first_key) {
    return (size_t)(((uintptr_t)first_key >> 5) * 0x9e3779b97f4a7c15ULL >> 58) & (MODEL_SLOTS - 1);
}

/* Models. The entry dicts of a pickle repeat one key sequence made of the same memoized key
 * nodes, so most of the time a new key is simply the next key of the previous dict of that
 * shape. A small dict (up to DICT_LINEAR_MAX pairs) may therefore have a model: another dict
 * whose first `len` keys are, pointer for pointer, this dict's keys. Since a dict's keys are
 * distinct and never change once set, a key that is the model's next one cannot be in the dict
 * yet, and no search is needed. A dict loses its model at its first key that differs, and then
 * becomes the model for later dicts starting with the same key (the arena remembers a few,
 * by first key, so that frame dicts and entry dicts do not evict each other). */
/* fv_dict_set for a dict that has DICT_LINEAR_MAX pairs or more: it has, or is about to get,
 * an index. */
static __attribute__((noinline)) bool dict_set_indexed(fv_arena *arena, fv *dict, fv *key,
                                                       fv *value, uint32_t h) {
    int64_t at = dict_find(dict, key, h);
    if (at >= 0) {
        dict->u.seq.items[2 * at + 1] = value;
        return true;
    }
    uint32_t len = dict->len;
    if (len >= UINT32_MAX / 4) return false;
    bool indexed = len > DICT_LINEAR_MAX;
    dict_index *old_index = indexed ? *index_slot(dict) : NULL;
    /* two slots for the pair, one spare for the index pointer */
    uint32_t old_cap = dict->u.seq.cap;
    if (!reserve(arena, dict, (uint64_t)len * 2 + 3)) return false;
    bool moved = dict->u.seq.cap != old_cap;
    dict->u.seq.items[2 * len] = key;
    dict->u.seq.items[2 * len + 1] = value;
    dict->len = ++len;
    dict->u.seq.sig |= sig_bit(h);
    dict_index *ix = indexed && !moved ? old_index : NULL;
    if (!ix || (uint64_t)len * 2 + 2 > ix->size) return index_rebuild(arena, dict);
    uint32_t s = h & (ix->size - 1);
    while (ix->slots[s]) s = (s + 1) & (ix->size - 1);
    ix->slots[s] = len;
    return true;
}

/* fv_dict_set on a dict, with a key and a value: inlined into fv_dict_set and fv_dict_update. */
static inline __attribute__((always_inline)) bool dict_set(fv_arena *arena, fv *dict, fv *key,
                                                           fv *value) {
    uint32_t h = key_hash(key), len = dict->len;
    if (len >= DICT_LINEAR_MAX) return dict_set_indexed(arena, dict, key, value, h);
    fv *model;
    if (len == 0) {
        model = arena->models[model_slot(key)];
        if (model && fv_dict_key(model, 0) != key) model = NULL;
    } else {
        model = *spare_slot(dict);
        if (model && (model->len <= len || fv_dict_key(model, len) != key)) model = NULL;
        if (!model) {
            int64_t at = dict_find(dict, key, h);
            if (at >= 0) {
                dict->u.seq.items[2 * at + 1] = value;
                return true;
            }
        }
    }
    /* two slots for the pair, one spare for the model (later the index pointer) */
    if (!reserve(arena, dict, (uint64_t)len * 2 + 3)) return false;
    fv **items = dict->u.seq.items;
    items[2 * len] = key;
    items[2 * len + 1] = value;
    dict->len = len + 1;
    dict->u.seq.sig |= sig_bit(h);
    *spare_slot(dict) = model;
    if (!model) arena->models[model_slot(items[0])] = dict;
    return true;
}

bool fv_dict_set(fv_arena *arena, fv *dict, fv *key, fv *value) {
    if (!fv_is(dict, FV_DICT) || !key || !value) return false;
    return dict_set(arena, dict, key, value);
}

static bool unhashable(const fv *key) { return key->kind == FV_LIST || key->kind == FV_DICT; }

/* Shrinks a small dict's item array to what it holds (plus the spare slot) when that array is
 * the arena's newest allocation, carrying the spare slot's model along. */
static void dict_trim(fv_arena *arena, fv *dict) {
    uint32_t cap = dict->u.seq.cap, want = dict->len * 2 + 1;
    if (dict->len > DICT_LINEAR_MAX || want >= cap) return;
    fv *model = *spare_slot(dict);
    if (!arena_trim(arena, dict->u.seq.items, (size_t)cap * sizeof(fv *),
                    (size_t)want * sizeof(fv *)))
        return;
    dict->u.seq.cap = want;
    *spare_slot(dict) = model;
}

/* fv_dict_update of an empty dict, with room made for every pair, when the keys are a model's
 * first keys pointer for pointer (a pickle's SETITEMS of an entry dict, its keys memoized):
 * dict_set would then take the model's path for every pair, find each key new and keep the
 * model, so the pairs are copied in one go and the dict ends exactly as dict_set leaves it.
 * false, with nothing changed, when the keys (or a NULL item) say otherwise. */
static bool dict_update_as_model(fv_arena *arena, fv *dict, fv *const *items, size_t npairs) {
    fv *model = arena->models[model_slot(items[0])];
    if (!model || model->len < npairs) return false;
    fv *const *keys = model->u.seq.items;
    for (size_t i = 0; i < npairs; i++)
        if (items[2 * i] != keys[2 * i] || !items[2 * i + 1]) return false;
    uint32_t sig = 0; /* a dict's signature is exactly the bits of its keys: a model with the
                         same keys has the same one */
    if (model->len == npairs)
        sig = model->u.seq.sig;
    else
        for (size_t i = 0; i < npairs; i++) sig |= sig_bit(key_hash(items[2 * i]));
    memcpy(dict->u.seq.items, items, npairs * 2 * sizeof *items);
    dict->len = (uint32_t)npairs;
    dict->u.seq.sig |= sig;
    *spare_slot(dict) = model;
    return true;
}

/* Room for all the pairs is made up front, as if every key were new, and what duplicates left
 * unused is given back at the end: the dict never holds more than inserting one pair at a time
 * would have left it with. The room is a hint; without it the pairs go in one at a time. */
size_t fv_dict_update(fv_arena *arena, fv *dict, fv *const *items, size_t npairs, bool *failed) {
    *failed = false;
    if (!fv_is(dict, FV_DICT)) {
        *failed = true;
        return 0;
    }
    uint64_t room = (uint64_t)dict->len * 2 + (uint64_t)npairs * 2 + 1;
    bool trim = npairs > 1 && dict->len + npairs <= DICT_LINEAR_MAX && reserve(arena, dict, room);
    if (trim && dict->len == 0 && dict_update_as_model(arena, dict, items, npairs)) {
        dict_trim(arena, dict);
        return npairs;
    }
    size_t i = 0;
    for (; i < npairs; i++) {
        fv *key = items[2 * i], *value = items[2 * i + 1];
        if (!key || !value || (!unhashable(key) && !dict_set(arena, dict, key, value))) {
            *failed = true;
            break;
        }
        if (unhashable(key)) break;
    }
    if (trim) dict_trim(arena, dict);
    return i;
}

bool fv_seq_extend(fv_arena *arena, fv *seq, fv *const *items, size_t n) {
    if (!fv_is_seq(seq) || n > UINT32_MAX - seq->len) return false;
    if (n == 0) return true; /* an empty list may have no item array at all */
    if (!seq->u.seq.cap && n <= UINT32_MAX / 2) {
        /* the first items of a new list (APPENDS after EMPTY_LIST): an array of exactly their
         * size (rounded to the arena's alignment), with no doubling from 4 to get there */
        size_t bytes = round_up(n * sizeof(fv *));
        fv **items_to = arena_take(arena, bytes);
        if (!items_to) return false;
        seq->u.seq.items = items_to;
        seq->u.seq.cap = (uint32_t)(bytes / sizeof(fv *));
    } else if (!reserve(arena, seq, (uint64_t)seq->len + n)) {
        return false;
    }
    fv **to = seq->u.seq.items + seq->len;
    for (size_t i = 0; i < n; i++)             /* mostly a handful: a loop beats a call to memcpy */
        if (!(to[i] = items[i])) return false; /* written past len: not added */
    seq->len += (uint32_t)n;
    return true;
}

bool fv_reserve(fv_arena *arena, fv *v, uint64_t items) {
    if (fv_is_seq(v)) return reserve(arena, v, items);
    if (!fv_is(v, FV_DICT) || v->len > DICT_LINEAR_MAX)
        return true;                     /* an index has its own sizing */
    return reserve(arena, v, items + 1); /* the spare slot fv_dict_set keeps */
}

fv *fv_dict_get(const fv *dict, const char *key) {
    if (!fv_is(dict, FV_DICT)) return NULL;
    size_t len = strlen(key);
    for (uint32_t p = 0; p < dict->len; p++) {
        const fv *k = fv_dict_key(dict, p);
        if (k->kind == FV_STR && k->len == len && memcmp(k->u.s, key, len) == 0)
            return fv_dict_value(dict, p);
    }
    return NULL;
}

const char *fv_kind_name(fv_kind kind) {
    static const char *const names[] = { "none", "bool", "int",   "float",
                                         "str",  "list", "tuple", "dict" };
    return (unsigned)kind < sizeof names / sizeof names[0] ? names[kind] : "?";
}

/* --- weight ------------------------------------------------------------------------------- */

/* Iterative post-order walk with an explicit stack; each node's weight is computed once and
 * cached, so a DAG of shared nodes costs its number of distinct nodes, while the weight itself
 * counts every appearance (an exponential tree gets an exponential weight and is refused). */
typedef struct frame {
    fv *v;
    uint32_t next; /* next child to visit */
    uint64_t sum;
} frame;

static uint64_t own_weight(const fv *v) {
    switch (v->kind) {
    case FV_STR: return 2 + (uint64_t)v->len;
    case FV_LIST:
    case FV_TUPLE:
    case FV_DICT: return 2;
    default: return 8;
    }
}

static uint32_t child_count(const fv *v) {
    if (v->kind == FV_DICT) return v->len * 2;
    return fv_is_seq(v) ? v->len : 0;
}

static void clear_visiting(frame *stack, size_t depth) {
    for (size_t i = 0; i < depth; i++) stack[i].v->flags &= (uint8_t)~FV_FLAG_VISITING;
}

uint64_t fv_tree_weight(fv *root, uint64_t limit) {
    if (!root) return 0;
    if (root->weight) return root->weight;
    size_t cap = 64, depth = 0;
    frame *stack = malloc(cap * sizeof *stack);
    if (!stack) return UINT64_MAX;
    stack[depth++] = (frame){ root, 0, own_weight(root) };
    root->flags |= FV_FLAG_VISITING;
    uint64_t result = UINT64_MAX;
    while (depth) {
        frame *top = &stack[depth - 1];
        if (top->next < child_count(top->v)) {
            fv *child = top->v->u.seq.items[top->next++];
            if (child->weight) {
                top->sum += child->weight;
            } else if (child->flags & FV_FLAG_VISITING) {
                goto out; /* cycle */
            } else if (child_count(child) == 0) {
                child->weight = own_weight(child);
                top->sum += child->weight;
            } else {
                if (fr_grow((void **)&stack, &cap, depth + 1, sizeof *stack, 64)) goto out;
                child->flags |= FV_FLAG_VISITING;
                stack[depth++] = (frame){ child, 0, own_weight(child) };
                continue;
            }
            if (top->sum > limit) goto out;
            continue;
        }
        top->v->flags &= (uint8_t)~FV_FLAG_VISITING;
        top->v->weight = top->sum ? top->sum : 1;
        uint64_t done = top->v->weight;
        depth--;
        if (depth == 0) {
            result = done;
            break;
        }
        stack[depth - 1].sum += done;
        if (stack[depth - 1].sum > limit) goto out;
    }
out:
    clear_visiting(stack, depth);
    free(stack);
    return result;
}
