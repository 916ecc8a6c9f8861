/* value.c — the arena and the value type (see value.h for the model).
 *
 * The arena hands out memory from chunks that grow geometrically (64 KiB up to 16 MiB); a
 * request larger than a chunk gets a chunk of its own. Nothing is freed until the arena is.
 * Growing a list reallocates its item array inside the arena (the old array is simply left
 * behind), doubling, so the waste stays under half.
 *
 * Dicts keep insertion order in a flat array of key/value pairs. Up to DICT_LINEAR_MAX pairs a
 * duplicate key is found by scanning; past that an open-addressing index of pair numbers is
 * built and kept, so that a hostile dict of a million keys costs a million probes, not 10^12.
 */
#include "value.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* --- arena ------------------------------------------------------------------------------ */

enum { CHUNK_MIN = 64 * 1024, CHUNK_MAX = 16 * 1024 * 1024, ALIGN = 16 };

typedef struct chunk {
    struct chunk *next;
    size_t size, used;
    _Alignas(16) unsigned char data[];
} chunk;

struct fv_arena {
    chunk *head;
    size_t next_chunk_size;
    size_t handed_out;
    size_t limit;
};

fv_arena *fv_arena_new(void) {
    fv_arena *arena = calloc(1, sizeof *arena);
    if (arena) arena->next_chunk_size = CHUNK_MIN;
    return arena;
}

void fv_arena_free(fv_arena *arena) {
    if (!arena) return;
    chunk *c = arena->head;
    while (c) {
        chunk *next = c->next;
        free(c);
        c = next;
    }
    free(arena);
}

void fv_arena_set_limit(fv_arena *arena, size_t max_bytes) { arena->limit = max_bytes; }

size_t fv_arena_used(const fv_arena *arena) { return arena->handed_out; }

static chunk *arena_grow(fv_arena *arena, size_t need) {
    size_t size = arena->next_chunk_size;
    if (size < need) size = need;
    chunk *c = malloc(sizeof *c + size);
    if (!c) return NULL;
    c->size = size;
    c->used = 0;
    c->next = arena->head;
    arena->head = c;
    if (arena->next_chunk_size < CHUNK_MAX) arena->next_chunk_size *= 2;
    return c;
}

void *fv_arena_alloc(fv_arena *arena, size_t size) {
    if (size > SIZE_MAX / 2) return NULL;
    size_t rounded = (size + (ALIGN - 1)) & ~(size_t)(ALIGN - 1);
    if (rounded == 0) rounded = ALIGN;
    if (arena->limit && arena->handed_out + rounded > arena->limit) return NULL;
    chunk *c = arena->head;
    if (!c || c->size - c->used < rounded) {
        c = arena_grow(arena, rounded);
        if (!c) return NULL;
    }
    void *p = c->data + c->used;
    c->used += rounded;
    arena->handed_out += rounded;
    return p;
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

static fv *node(fv_arena *arena, fv_kind kind) {
    fv *v = fv_arena_alloc(arena, sizeof *v);
    if (!v) return NULL;
    memset(v, 0, sizeof *v);
    v->kind = (uint8_t)kind;
    return v;
}

fv *fv_none(fv_arena *arena) { return node(arena, FV_NONE); }

fv *fv_bool(fv_arena *arena, bool b) {
    fv *v = node(arena, FV_BOOL);
    if (v) v->u.b = b;
    return v;
}

fv *fv_int(fv_arena *arena, int64_t i) {
    fv *v = node(arena, FV_INT);
    if (v) v->u.i = i;
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

/* Makes room for `slots` item pointers in a list, tuple or dict. */
static bool reserve(fv_arena *arena, fv *v, uint64_t slots) {
    if (slots <= v->u.seq.cap) return true;
    if (slots > UINT32_MAX / 2) return false;
    uint64_t cap = v->u.seq.cap ? (uint64_t)v->u.seq.cap * 2 : 4;
    while (cap < slots) cap *= 2;
    if (cap > UINT32_MAX) cap = UINT32_MAX;
    fv **items = fv_arena_alloc(arena, (size_t)cap * sizeof *items);
    if (!items) return false;
    uint64_t used = v->kind == FV_DICT ? (uint64_t)v->len * 2 : v->len;
    if (used) memcpy(items, v->u.seq.items, (size_t)used * sizeof *items);
    v->u.seq.items = items;
    v->u.seq.cap = (uint32_t)cap;
    return true;
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
    int64_t ia, ib;
    if (key_as_int(a, &ia) && key_as_int(b, &ib)) return ia == ib;
    if (a->kind != b->kind) return false;
    switch (a->kind) {
    case FV_NONE: return true;
    case FV_FLOAT: return a->u.f == b->u.f; /* NaN != NaN, as in Python for distinct objects */
    case FV_STR: return a->len == b->len && memcmp(a->u.s, b->u.s, a->len) == 0;
    default: return false;
    }
}

static uint64_t mix64(uint64_t x) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return x;
}

static uint64_t key_hash(const fv *k) {
    int64_t i;
    if (key_as_int(k, &i)) return mix64((uint64_t)i);
    switch (k->kind) {
    case FV_STR: {
        uint64_t h = 1469598103934665603ULL;
        for (uint32_t n = 0; n < k->len; n++) h = (h ^ (unsigned char)k->u.s[n]) * 1099511628211ULL;
        return h;
    }
    case FV_FLOAT: {
        uint64_t bits;
        memcpy(&bits, &k->u.f, sizeof bits);
        return mix64(bits);
    }
    case FV_NONE: return 0x9e3779b97f4a7c15ULL;
    default: return mix64((uint64_t)(uintptr_t)k); /* containers: identity */
    }
}

enum { DICT_LINEAR_MAX = 16 };

/* A dict past DICT_LINEAR_MAX pairs has an index: a table of (pair number + 1), 0 = empty, sized
 * to a power of two at least twice the pairs. Its pointer is kept in the last slot of the item
 * array, which fv_dict_set always leaves spare; when the array moves the index is rebuilt. */
typedef struct dict_index {
    uint32_t size; /* slots, power of two */
    uint32_t slots[];
} dict_index;

static dict_index **index_slot(fv *d) { return (dict_index **)&d->u.seq.items[d->u.seq.cap - 1]; }

static bool index_rebuild(fv_arena *arena, fv *d) {
    uint32_t size = 64;
    while (size < (uint64_t)d->len * 2 + 2) size *= 2;
    dict_index *ix = fv_arena_alloc(arena, sizeof *ix + (size_t)size * sizeof ix->slots[0]);
    if (!ix) return false;
    ix->size = size;
    memset(ix->slots, 0, (size_t)size * sizeof ix->slots[0]);
    for (uint32_t p = 0; p < d->len; p++) {
        uint64_t h = key_hash(fv_dict_key(d, p));
        uint32_t s = (uint32_t)h & (size - 1);
        while (ix->slots[s]) s = (s + 1) & (size - 1);
        ix->slots[s] = p + 1;
    }
    *index_slot(d) = ix;
    return true;
}

/* Position of a key equal to `key`, or -1. */
static int64_t dict_find(fv *d, const fv *key) {
    if (d->len <= DICT_LINEAR_MAX) {
        for (uint32_t p = 0; p < d->len; p++)
            if (fv_key_equal(fv_dict_key(d, p), key)) return p;
        return -1;
    }
    dict_index *ix = *index_slot(d);
    uint32_t s = (uint32_t)key_hash(key) & (ix->size - 1);
    while (ix->slots[s]) {
        uint32_t p = ix->slots[s] - 1;
        if (fv_key_equal(fv_dict_key(d, p), key)) return p;
        s = (s + 1) & (ix->size - 1);
    }
    return -1;
}

bool fv_dict_set(fv_arena *arena, fv *dict, fv *key, fv *value) {
    if (!fv_is(dict, FV_DICT) || !key || !value) return false;
    int64_t at = dict_find(dict, key);
    if (at >= 0) {
        dict->u.seq.items[2 * at + 1] = value;
        return true;
    }
    if (dict->len >= UINT32_MAX / 4) return false;
    bool indexed = dict->len > DICT_LINEAR_MAX;
    dict_index *old_index = indexed ? *index_slot(dict) : NULL;
    /* two slots for the pair, one spare for the index pointer */
    uint32_t old_cap = dict->u.seq.cap;
    if (!reserve(arena, dict, (uint64_t)dict->len * 2 + 3)) return false;
    bool moved = dict->u.seq.cap != old_cap;
    dict->u.seq.items[2 * dict->len] = key;
    dict->u.seq.items[2 * dict->len + 1] = value;
    dict->len++;
    if (dict->len > DICT_LINEAR_MAX) {
        dict_index *ix = indexed && !moved ? old_index : NULL;
        if (!ix || (uint64_t)dict->len * 2 + 2 > ix->size) return index_rebuild(arena, dict);
        uint32_t s = (uint32_t)key_hash(key) & (ix->size - 1);
        while (ix->slots[s]) s = (s + 1) & (ix->size - 1);
        ix->slots[s] = dict->len;
    }
    return true;
}

fv *fv_dict_get(const fv *dict, const char *key) {
    if (!fv_is(dict, FV_DICT)) return NULL;
    size_t len = strlen(key);
    for (uint32_t p = 0; p < dict->len; p++) {
        const fv *k = fv_dict_key(dict, p);
        if (k->kind == FV_STR && k->len == len && memcmp(k->u.s, key, len) == 0) return fv_dict_value(dict, p);
    }
    return NULL;
}

const char *fv_kind_name(fv_kind kind) {
    static const char *const names[] = {"none", "bool", "int", "float", "str", "list", "tuple", "dict"};
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
    stack[depth++] = (frame){root, 0, own_weight(root)};
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
                if (depth == cap) {
                    frame *bigger = realloc(stack, cap * 2 * sizeof *stack);
                    if (!bigger) goto out;
                    stack = bigger;
                    cap *= 2;
                }
                child->flags |= FV_FLAG_VISITING;
                stack[depth++] = (frame){child, 0, own_weight(child)};
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
