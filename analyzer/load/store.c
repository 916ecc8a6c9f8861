/* store.c — job-wide interning of the values entries share, and compacting dumps (see store.h).
 *
 * Every value is first serialized into a byte blob (a string with its NUL; a shape list as int64
 * words count, ndim, dims..., ndim, dims...; a dtype list as count and string ids; a frame list
 * as count and (name id, file id, line) triples; a rank list as its int64s). One hash table maps
 * (kind, blob) to an id; the blob is copied once into the store's arena, and the typed view the
 * analyzer reads (fr_shapes, fr_strings, fr_frame[], fa_opinfo) is built from it then, pointing
 * into the blob where it can (shape dims, rank lists). The compactor keeps the same kind of table
 * privately, so a worker takes the store's lock only for a value it has not met before, and a
 * per-dump pointer cache, because a decoded dump already interns its strings: the same pointer
 * within one dump is the same string.
 */
#include "store.h"

#include "backend.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "index.h"
#include "match.h"
#include "grow.h"

enum { K_STR, K_NAME, K_SHAPES, K_STRINGS, K_FRAMES, K_RANKS, K_TRAITS, K_COUNT };

typedef struct slot {
    uint64_t hash;
    const uint8_t *blob; /* in the store's arena; NULL = empty slot */
    uint32_t len, kind, id;
} slot;

typedef struct table {
    slot *v;
    size_t cap, count;
} table;

typedef struct chunk {
    struct chunk *next;
    size_t used, cap;
    _Alignas(8) uint8_t data[];
} chunk;

typedef struct vec {
    void *v;
    size_t n, cap;
} vec;

struct fa_store {
    pthread_mutex_t lock;
    table index;
    chunk *arena;
    vec kinds[K_COUNT]; /* per kind: the typed views, indexed by id */
    vec numel;          /* per shape list */
    vec set_key;        /* per dtype list */
};

static const size_t view_size[K_COUNT] = { sizeof(const char *), sizeof(fa_opinfo),
                                           sizeof(fr_shapes),    sizeof(fr_strings),
                                           sizeof(fa_frames),    sizeof(const int64_t *),
                                           sizeof(fa_traits) };

/* ---------------------------------------------------------------- memory ----------- */

static void *arena_alloc(fa_store *s, size_t size) {
    size = (size + 7) & ~(size_t)7;
    if (!s->arena || s->arena->cap - s->arena->used < size) {
        size_t cap = size > (1u << 20) ? size : (1u << 20);
        chunk *c = malloc(sizeof *c + cap);
        if (!c) return NULL;
        c->next = s->arena;
        c->used = 0;
        c->cap = cap;
        s->arena = c;
    }
    void *p = s->arena->data + s->arena->used;
    s->arena->used += size;
    return p;
}

static void *vec_push(vec *v, size_t size) {
    if (fr_grow(&v->v, &v->cap, v->n + 1, size, 64)) return NULL;
    return (uint8_t *)v->v + size * v->n++;
}

/* Eight bytes at a time: the default group's rank list is 128 KiB per file at 16 384 ranks. */
static uint64_t hash_blob(uint32_t kind, const uint8_t *p, size_t len) {
    uint64_t h = (kind + 1) * 0x9e3779b97f4a7c15ULL ^ len;
    for (; len >= 8; p += 8, len -= 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        h = ((h ^ (w * 0x87c37b91114253d5ULL)) << 31 | (h ^ (w * 0x87c37b91114253d5ULL)) >> 33) *
            0x4cf5ad432745937fULL;
    }
    uint64_t tail = 0;
    memcpy(&tail, p, len);
    return fr_mix64(h ^ tail ^ (tail << 17));
}

/* ---------------------------------------------------------------- hash tables ------ */

static const slot *table_find(const table *t, uint32_t kind, uint64_t hash, const uint8_t *blob,
                              size_t len) {
    if (!t->cap) return NULL;
    for (size_t i = hash & (t->cap - 1);; i = (i + 1) & (t->cap - 1)) {
        const slot *s = &t->v[i];
        if (!s->blob) return NULL;
        if (s->hash == hash && s->kind == kind && s->len == len && memcmp(s->blob, blob, len) == 0)
            return s;
    }
}

static int table_put(table *t, slot value) {
    if ((t->count + 1) * 2 > t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 1024;
        slot *v = calloc(cap, sizeof *v);
        if (!v) return -1;
        for (size_t i = 0; i < t->cap; i++) {
            if (!t->v[i].blob) continue;
            size_t j = t->v[i].hash & (cap - 1);
            while (v[j].blob) j = (j + 1) & (cap - 1);
            v[j] = t->v[i];
        }
        free(t->v);
        t->v = v;
        t->cap = cap;
    }
    size_t i = value.hash & (t->cap - 1);
    while (t->v[i].blob) i = (i + 1) & (t->cap - 1);
    t->v[i] = value;
    t->count++;
    return 0;
}

/* ---------------------------------------------------------------- typed views ------ */

static long intern_locked(fa_store *s, uint32_t kind, const uint8_t *blob, size_t len,
                          uint64_t hash, const uint8_t **stored);

static const char *str_of(const fa_store *s, uint64_t id) {
    return id == FA_NONE ? NULL : ((const char *const *)s->kinds[K_STR].v)[id];
}

/* Builds the typed view of a freshly stored blob; 0 or -1 (out of memory). */
static int make_view(fa_store *s, uint32_t kind, const uint8_t *blob, size_t len) {
    void *view = vec_push(&s->kinds[kind], view_size[kind]);
    if (!view) return -1;
    const int64_t *w = (const int64_t *)blob;
    if (kind == K_STR) {
        *(const char **)view = (const char *)blob;
    } else if (kind == K_RANKS) {
        *(const int64_t **)view = w;
    } else if (kind == K_TRAITS) {
        memcpy(view, blob, sizeof(fa_traits));
    } else if (kind == K_NAME) {
        fa_opinfo *o = view;
        fa_opname n;
        o->text = (const char *)blob;
        o->parsed = fa_parse_profiling_name(o->text, &n) == 0;
        const char *type = o->parsed ? n.type : o->text;
        size_t tl = strnlen(type, sizeof n.type - 1); /* as fa_parse_profiling_name's buffer */
        char buf[sizeof n.type];
        memcpy(buf, type, tl);
        buf[tl] = '\0';
        const uint8_t *stored;
        if (intern_locked(s, K_STR, (const uint8_t *)buf, tl + 1,
                          hash_blob(K_STR, (const uint8_t *)buf, tl + 1), &stored) < 0)
            return -1;
        o->type = (const char *)stored;
        o->is_send = o->parsed && n.is_send;
        o->is_recv = o->parsed && n.is_recv;
        o->src = o->parsed ? n.src : -1;
        o->dst = o->parsed ? n.dst : -1;
        o->flags = fa_op_flags(o->type);
    } else if (kind == K_SHAPES) {
        fr_shapes *sh = view;
        int64_t *numel = vec_push(&s->numel, sizeof *numel);
        fr_shape *v = arena_alloc(s, (size_t)(w[0] + 1) * sizeof *v);
        if (!numel || !v) return -1;
        size_t at = 1;
        *numel = 0;
        for (int64_t i = 0; i < w[0]; i++) {
            v[i].ndim = (uint32_t)w[at];
            v[i].dims = w + at + 1;
            int64_t n = 1;
            for (uint32_t d = 0; d < v[i].ndim; d++) n *= v[i].dims[d];
            *numel += n;
            at += 1 + v[i].ndim;
        }
        *sh = (fr_shapes){ (uint32_t)w[0], v };
    } else if (kind == K_STRINGS) {
        fr_strings *st = view;
        uint64_t *key = vec_push(&s->set_key, sizeof *key);
        const char **items = arena_alloc(s, (size_t)(w[0] + 1) * sizeof *items);
        if (!key || !items) return -1;
        *key = 0;
        for (int64_t i = 0; i < w[0]; i++) {
            items[i] = str_of(s, (uint64_t)w[1 + i]);
            bool seen = false;
            for (int64_t j = 0; j < i; j++) seen |= w[1 + j] == w[1 + i];
            if (!seen) *key += fr_mix64((uint64_t)w[1 + i] + 1); /* order-free */
        }
        *st = (fr_strings){ (uint32_t)w[0], items };
    } else {
        fa_frames *fr = view;
        fr_frame *v = arena_alloc(s, (size_t)(w[0] + 1) * sizeof *v);
        if (!v) return -1;
        for (int64_t i = 0; i < w[0]; i++)
            v[i] = (fr_frame){ str_of(s, (uint64_t)w[1 + 3 * i]), str_of(s, (uint64_t)w[2 + 3 * i]),
                               w[3 + 3 * i] };
        *fr = (fa_frames){ (uint32_t)w[0], v };
    }
    (void)len;
    return 0;
}

/* The id of (kind, blob), storing it when new. Caller holds the lock. */
static long intern_locked(fa_store *s, uint32_t kind, const uint8_t *blob, size_t len,
                          uint64_t hash, const uint8_t **stored) {
    const slot *hit = table_find(&s->index, kind, hash, blob, len);
    if (hit) {
        *stored = hit->blob;
        return hit->id;
    }
    uint8_t *copy = arena_alloc(s, len ? len : 1);
    if (!copy) return -1;
    memcpy(copy, blob, len);
    uint32_t id = (uint32_t)s->kinds[kind].n;
    if (make_view(s, kind, copy, len) != 0) return -1;
    if (table_put(&s->index, (slot){ hash, copy, (uint32_t)len, kind, id }) != 0) return -1;
    *stored = copy;
    return id;
}

/* ---------------------------------------------------------------- public: store ---- */

fa_store *fa_store_new(void) {
    fa_store *s = calloc(1, sizeof *s);
    if (s && pthread_mutex_init(&s->lock, NULL) != 0) {
        free(s);
        return NULL;
    }
    return s;
}

void fa_store_free(fa_store *s) {
    if (!s) return;
    while (s->arena) {
        chunk *next = s->arena->next;
        free(s->arena);
        s->arena = next;
    }
    for (int k = 0; k < K_COUNT; k++) free(s->kinds[k].v);
    free(s->numel.v);
    free(s->set_key.v);
    free(s->index.v);
    pthread_mutex_destroy(&s->lock);
    free(s);
}

const fa_opinfo *fa_store_op(const fa_store *s, uint32_t name) {
    return &((const fa_opinfo *)s->kinds[K_NAME].v)[name];
}
const fr_shapes *fa_store_shapes(const fa_store *s, uint32_t id) {
    return &((const fr_shapes *)s->kinds[K_SHAPES].v)[id];
}
int64_t fa_store_numel(const fa_store *s, uint32_t id) { return ((const int64_t *)s->numel.v)[id]; }
const fr_strings *fa_store_strings(const fa_store *s, uint32_t id) {
    return &((const fr_strings *)s->kinds[K_STRINGS].v)[id];
}
uint64_t fa_store_strings_set(const fa_store *s, uint32_t id) {
    return ((const uint64_t *)s->set_key.v)[id];
}

const fa_traits *fa_store_traits_all(const fa_store *s) { return s->kinds[K_TRAITS].v; }

fa_frames fa_store_frames(const fa_store *s, uint32_t id) {
    if (id == FA_NONE) return (fa_frames){ 0, NULL };
    return ((const fa_frames *)s->kinds[K_FRAMES].v)[id];
}

/* ---------------------------------------------------------------- compactor -------- */

typedef struct ptr_slot {
    const void *ptr;
    const uint8_t *stored; /* the store's copy */
    uint32_t kind, id, generation;
} ptr_slot;

/* A long rank list the compactor stored lately (see stored_ranks). */
enum { RECENT_RANKS = 4, RECENT_RANKS_MIN = 256 };

typedef struct recent_ranks {
    const int64_t *stored; /* the store's copy, immutable; NULL: unused */
    uint32_t n;
} recent_ranks;

/* A direct-mapped front for the pointer cache: most lookups are for the few pointers the last
 * entries used, and this answers them without hashing or probing. */
enum { PTR_FRONT = 256 };

/* What makes an entry's fa_traits within one dump: the decoder keeps one copy of each string
 * and list per dump, so equal pointers are equal values. */
typedef struct traits_key {
    const void *name, *in_sizes, *out_sizes, *in_dtypes, *out_dtypes, *frames;
    uint32_t counts[5]; /* of the lists (an empty one may have no pointer) */
    uint32_t pg;        /* its pg slot */
    uint8_t state;
    bool is_p2p;
} traits_key;

/* A direct-mapped cache from an entry's traits_key to its fa_traits id, for this dump
 * (generation): consecutive entries mostly repeat a handful of call sites. */
enum { TRAITS_FRONT = 512 };

typedef struct traits_slot {
    traits_key key;
    uint32_t id, generation;
} traits_slot;

struct fa_compactor {
    fa_store *store;
    ptr_slot front[PTR_FRONT];
    traits_slot traits[TRAITS_FRONT];
    recent_ranks recent[RECENT_RANKS];
    unsigned next_recent;
    table cache;    /* (kind, blob) -> id, blobs in the store's arena */
    ptr_slot *ptrs; /* per dump: (kind, pointer into the dump) -> id */
    size_t ptrs_cap, ptrs_count;
    uint32_t generation;
    int64_t *scratch; /* the blob being built */
    size_t scratch_cap;
    bool failed; /* out of memory somewhere in this dump */
};

fa_compactor *fa_compactor_new(fa_store *store) {
    fa_compactor *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    c->store = store;
    return c;
}

void fa_compactor_free(fa_compactor *c) {
    if (!c) return;
    free(c->cache.v);
    free(c->ptrs);
    free(c->scratch);
    free(c);
}

static uint32_t intern(fa_compactor *c, uint32_t kind, const void *blob, size_t len,
                       const uint8_t **stored_out) {
    uint64_t hash = hash_blob(kind, blob, len);
    const slot *hit = table_find(&c->cache, kind, hash, blob, len);
    if (hit) {
        if (stored_out) *stored_out = hit->blob;
        return hit->id;
    }
    const uint8_t *stored = NULL;
    pthread_mutex_lock(&c->store->lock);
    long id = intern_locked(c->store, kind, blob, len, hash, &stored);
    pthread_mutex_unlock(&c->store->lock);
    if (id < 0 ||
        table_put(&c->cache, (slot){ hash, stored, (uint32_t)len, kind, (uint32_t)id }) != 0) {
        c->failed = true;
        return FA_NONE;
    }
    if (stored_out) *stored_out = stored;
    return (uint32_t)id;
}

const int64_t *fa_store_ranks(fa_store *s, const int64_t *ranks, uint32_t n) {
    const uint8_t *stored = NULL;
    pthread_mutex_lock(&s->lock);
    long id = intern_locked(s, K_RANKS, (const uint8_t *)ranks, n * sizeof *ranks,
                            hash_blob(K_RANKS, (const uint8_t *)ranks, n * sizeof *ranks), &stored);
    pthread_mutex_unlock(&s->lock);
    return id < 0 ? NULL : (const int64_t *)stored;
}

/* The per-dump pointer cache: what a pointer into the dump (a string, a shape list, a dtype list,
 * a stack: the decoder stores each distinct one once per dump) was interned as. The slot for
 * (kind, p): a hit, or the empty slot where it belongs; NULL when out of memory. Growing the
 * table moves the slots, so a slot is good only until the next call. */
static ptr_slot *ptr_find(fa_compactor *c, uint32_t kind, const void *p) {
    if ((c->ptrs_count + 1) * 2 >
        c->ptrs_cap) { /* rehash this dump's pointers into a bigger table */
        size_t cap = c->ptrs_cap ? c->ptrs_cap * 2 : 256;
        ptr_slot *v = calloc(cap, sizeof *v), *old = c->ptrs;
        if (!v) {
            c->failed = true;
            return NULL;
        }
        size_t oldcap = c->ptrs_cap;
        c->ptrs = v;
        c->ptrs_cap = cap;
        c->ptrs_count = 0;
        for (size_t i = 0; i < oldcap; i++) {
            if (old[i].generation != c->generation || !old[i].ptr) continue;
            size_t j = fr_mix64((uintptr_t)old[i].ptr ^ old[i].kind) & (cap - 1);
            while (v[j].generation == c->generation && v[j].ptr) j = (j + 1) & (cap - 1);
            v[j] = old[i];
            c->ptrs_count++;
        }
        free(old);
    }
    size_t i = fr_mix64((uintptr_t)p ^ kind) & (c->ptrs_cap - 1);
    for (; c->ptrs[i].generation == c->generation && c->ptrs[i].ptr;
         i = (i + 1) & (c->ptrs_cap - 1))
        if (c->ptrs[i].ptr == p && c->ptrs[i].kind == kind) break;
    return &c->ptrs[i];
}

static bool ptr_hit(const fa_compactor *c, const ptr_slot *s) {
    return s->generation == c->generation && s->ptr;
}

/* Interned strings lie a few bytes apart, so the slot comes from a multiplicative hash of the
 * whole pointer rather than from its low bits. */
static inline ptr_slot *front_slot(fa_compactor *c, uint32_t kind, const void *p) {
    uint64_t h = ((uint64_t)(uintptr_t)p + kind) * 0x9e3779b97f4a7c15ull;
    return &c->front[h >> 56 & (PTR_FRONT - 1)];
}

static const ptr_slot *ptr_lookup_slow(fa_compactor *c, uint32_t kind, const void *p, ptr_slot *f);

/* The cached slot for (kind, p): from the front (inline: five times per entry), else from the
 * table (and then put in front). */
static inline const ptr_slot *ptr_lookup(fa_compactor *c, uint32_t kind, const void *p) {
    ptr_slot *f = front_slot(c, kind, p);
    if (f->ptr == p && f->kind == kind && f->generation == c->generation) return f;
    return ptr_lookup_slow(c, kind, p, f);
}

static const ptr_slot *ptr_lookup_slow(fa_compactor *c, uint32_t kind, const void *p, ptr_slot *f) {
    const ptr_slot *s = ptr_find(c, kind, p);
    if (!s || !ptr_hit(c, s)) return NULL;
    *f = *s;
    return f;
}

static void ptr_remember(fa_compactor *c, uint32_t kind, const void *p, uint32_t id,
                         const uint8_t *stored) {
    ptr_slot *s = ptr_find(c, kind, p);
    if (!s || ptr_hit(c, s)) return;
    *s = (ptr_slot){ p, stored, kind, id, c->generation };
    c->ptrs_count++;
}

/* A string of the dump (K_STR or K_NAME), through the per-dump pointer cache; *stored_out (when
 * asked for) gets the store's copy, which other workers cannot move, unlike the id vectors. */
static uint32_t intern_str_at(fa_compactor *c, uint32_t kind, const char *str,
                              const char **stored_out) {
    if (stored_out) *stored_out = NULL;
    if (!str) return FA_NONE;
    const ptr_slot *s = ptr_lookup(c, kind, str);
    if (s) {
        if (stored_out) *stored_out = (const char *)s->stored;
        return s->id;
    }
    if (c->failed) return FA_NONE;
    const uint8_t *stored = NULL;
    uint32_t id = intern(c, kind, str, strlen(str) + 1, &stored);
    if (id == FA_NONE) return FA_NONE;
    ptr_remember(c, kind, str, id, stored);
    if (stored_out) *stored_out = (const char *)stored;
    return id;
}

/* The id of a list the dump stores once (see ptr_find), when this dump has met it before. */
static bool ptr_known(fa_compactor *c, uint32_t kind, const void *p, uint32_t *id) {
    const ptr_slot *s = p ? ptr_lookup(c, kind, p) : NULL;
    if (!s) return false;
    *id = s->id;
    return true;
}

static uint32_t intern_str(fa_compactor *c, uint32_t kind, const char *str) {
    return intern_str_at(c, kind, str, NULL);
}

static const char *stored_str(fa_compactor *c, const char *str) {
    const char *stored;
    intern_str_at(c, K_STR, str, &stored);
    return stored;
}

static int64_t *scratch(fa_compactor *c, size_t words) {
    if (fr_grow((void **)&c->scratch, &c->scratch_cap, words, sizeof *c->scratch, 64)) {
        c->failed = true;
        return NULL;
    }
    return c->scratch;
}

static uint32_t intern_shapes(fa_compactor *c, const fr_shapes *s) {
    uint32_t id;
    if (ptr_known(c, K_SHAPES, s->shapes, &id)) return id;
    size_t words = 1;
    for (uint32_t i = 0; i < s->count; i++) words += 1 + s->shapes[i].ndim;
    int64_t *w = scratch(c, words);
    if (!w) return FA_NONE;
    size_t at = 0;
    w[at++] = s->count;
    for (uint32_t i = 0; i < s->count; i++) {
        w[at++] = s->shapes[i].ndim;
        memcpy(w + at, s->shapes[i].dims, s->shapes[i].ndim * sizeof *w);
        at += s->shapes[i].ndim;
    }
    id = intern(c, K_SHAPES, w, at * sizeof *w, NULL);
    if (id != FA_NONE && s->shapes) ptr_remember(c, K_SHAPES, s->shapes, id, NULL);
    return id;
}

static uint32_t intern_strings(fa_compactor *c, const fr_strings *s) {
    uint32_t id;
    if (ptr_known(c, K_STRINGS, s->items, &id)) return id;
    int64_t *w = scratch(c, 1 + (size_t)s->count);
    if (!w) return FA_NONE;
    w[0] = s->count;
    for (uint32_t i = 0; i < s->count; i++) w[1 + i] = intern_str(c, K_STR, s->items[i]);
    id = intern(c, K_STRINGS, w, (1 + (size_t)s->count) * sizeof *w, NULL);
    if (id != FA_NONE && s->items) ptr_remember(c, K_STRINGS, s->items, id, NULL);
    return id;
}

static uint32_t intern_frames(fa_compactor *c, const fr_frame *f, uint32_t n) {
    if (!f) return FA_NONE;
    uint32_t id;
    if (ptr_known(c, K_FRAMES, f, &id)) return id;
    int64_t *w = scratch(c, 1 + 3 * (size_t)n);
    if (!w) return FA_NONE;
    w[0] = n;
    for (uint32_t i = 0; i < n; i++) {
        w[1 + 3 * i] = intern_str(c, K_STR, f[i].name);
        w[2 + 3 * i] = intern_str(c, K_STR, f[i].filename);
        w[3 + 3 * i] = f[i].line;
    }
    id = intern(c, K_FRAMES, w, (1 + 3 * (size_t)n) * sizeof *w, NULL);
    if (id != FA_NONE) ptr_remember(c, K_FRAMES, f, id, NULL);
    return id;
}

/* The rank's pg slot for an entry; a rank has few groups, and runs of entries share one. */
static uint32_t pg_slot(fa_compactor *c, fa_dump *d, size_t *cap, const fr_entry *e) {
    for (uint32_t i = 0; i < d->npgs; i++) {
        uint32_t k = d->npgs - 1 - i;
        if (d->pgs[k].pg_id == e->pg_id && d->pgs[k].name == stored_str(c, e->pg_name) &&
            d->pgs[k].desc == stored_str(c, e->pg_desc))
            return k;
    }
    if (fr_grow((void **)&d->pgs, cap, d->npgs + 1, sizeof *d->pgs, 8)) {
        c->failed = true;
        return 0;
    }
    d->pgs[d->npgs] = (fa_pg){ .name = stored_str(c, e->pg_name),
                               .desc = stored_str(c, e->pg_desc),
                               .pg_id = e->pg_id };
    return d->npgs++;
}

/* Whether e has the key k (read from e's fields in place: a key built on the stack and compared
 * word by word stalls on store forwarding). */
static inline bool key_is(const traits_key *k, const fr_entry *e, uint32_t pg) {
    return k->pg == pg && k->name == e->profiling_name && k->in_sizes == e->input_sizes.shapes &&
           k->out_sizes == e->output_sizes.shapes && k->in_dtypes == e->input_dtypes.items &&
           k->out_dtypes == e->output_dtypes.items && k->frames == e->frames &&
           k->counts[0] == e->input_sizes.count && k->counts[1] == e->output_sizes.count &&
           k->counts[2] == e->input_dtypes.count && k->counts[3] == e->output_dtypes.count &&
           k->counts[4] == e->nframes && k->state == (uint8_t)e->state && k->is_p2p == e->is_p2p;
}

static traits_key key_of(const fr_entry *e, uint32_t pg) {
    traits_key k;
    k.pg = pg;
    k.name = e->profiling_name;
    k.in_sizes = e->input_sizes.shapes;
    k.out_sizes = e->output_sizes.shapes;
    k.in_dtypes = e->input_dtypes.items;
    k.out_dtypes = e->output_dtypes.items;
    k.frames = e->frames;
    k.counts[0] = e->input_sizes.count;
    k.counts[1] = e->output_sizes.count;
    k.counts[2] = e->input_dtypes.count;
    k.counts[3] = e->output_dtypes.count;
    k.counts[4] = e->nframes;
    k.state = (uint8_t)e->state;
    k.is_p2p = e->is_p2p;
    return k;
}

static uint32_t intern_traits(fa_compactor *c, const fr_entry *e, uint32_t pg) {
    fa_traits t;
    memset(&t, 0, sizeof t); /* the padding too: the blob is hashed and compared bytewise */
    t.name = intern_str(c, K_NAME, e->profiling_name ? e->profiling_name : "");
    t.in_sizes = intern_shapes(c, &e->input_sizes);
    t.out_sizes = intern_shapes(c, &e->output_sizes);
    t.in_dtypes = intern_strings(c, &e->input_dtypes);
    t.out_dtypes = intern_strings(c, &e->output_dtypes);
    t.frames = intern_frames(c, e->frames, e->nframes);
    t.pg = pg;
    t.state = (uint8_t)e->state;
    t.is_p2p = e->is_p2p;
    t.ended = e->retired && e->state == FR_STATE_COMPLETED &&
              fa_backend_of(e->profiling_name) == FA_BACKEND_GLOO;
    return c->failed ? FA_NONE : intern(c, K_TRAITS, &t, sizeof t, NULL);
}

/* An entry's fa_traits id (in pg slot `pg`): from the front cache, else interned (and then put
 * in front). */
static uint32_t traits_of(fa_compactor *c, const fr_entry *e, uint32_t pg) {
    uint64_t h = fr_mix64((uintptr_t)e->profiling_name ^ (uintptr_t)e->input_sizes.shapes * 3 ^
                          (uintptr_t)e->output_sizes.shapes * 5 ^
                          (uintptr_t)e->input_dtypes.items * 7 ^ (uintptr_t)e->frames * 11 ^
                          (uint64_t)pg << 40 ^ (uint64_t)e->state << 1 ^ e->is_p2p);
    traits_slot *front = &c->traits[h & (TRAITS_FRONT - 1)];
    if (front->generation == c->generation && key_is(&front->key, e, pg)) return front->id;
    uint32_t id = intern_traits(c, e, pg);
    if (id != FA_NONE && id >= 1u << 31) { /* fa_entry keeps 31 bits of it */
        c->failed = true;
        return FA_NONE;
    }
    if (id != FA_NONE) *front = (traits_slot){ key_of(e, pg), id, c->generation };
    return id;
}

/* Op ids of one group that its entries skip: what the backend ran but did not record. True when
 * some are skipped right before this entry. */
static bool note_op_id(fa_pg *pg, int64_t op_id) {
    if (op_id <= 0) return false;
    bool skipped = pg->last_op_id > 0 && op_id > pg->last_op_id + 1;
    if (skipped) pg->skips_op_ids = true;
    if (op_id > pg->last_op_id) pg->last_op_id = op_id;
    return skipped;
}

/* gloo counts pg_status in op ids (its send/recv, unrecorded, take op ids too), where every
 * other backend counts collective seq ids: the seq id that an op-id counter stands for is the
 * newest collective of the group at or before that op id, or, when the first entry after it
 * follows it at once, that entry's seq minus one (everything before it was done). -1 unknown. */
static int64_t seq_at_op_id(const fr_dump *in, int64_t pg_id, int64_t op_id) {
    int64_t seq = -1, next_op = INT64_MAX, next_seq = -1;
    for (uint32_t i = 0; i < in->nentries; i++) {
        const fr_entry *e = &in->entries[i];
        if (e->pg_id != pg_id || e->is_p2p || e->op_id <= 0) continue;
        if (e->op_id <= op_id && e->collective_seq_id > seq) seq = e->collective_seq_id;
        if (e->op_id > op_id && e->op_id < next_op) {
            next_op = e->op_id;
            next_seq = e->collective_seq_id;
        }
    }
    if (next_op == op_id + 1 && next_seq - 1 > seq) seq = next_seq - 1;
    return seq;
}

static void status_in_seq_ids(const fr_dump *in, fa_dump *d) {
    for (uint32_t s = 0; s < d->nstatus; s++) {
        fr_pg_status *st = &d->status[s];
        if (st->last_enqueued >= 0)
            st->last_enqueued = seq_at_op_id(in, st->pg_id, st->last_enqueued);
        if (st->last_started >= 0) st->last_started = seq_at_op_id(in, st->pg_id, st->last_started);
        if (st->last_completed >= 0)
            st->last_completed = seq_at_op_id(in, st->pg_id, st->last_completed);
    }
}

static void note_enqueued_after(const fr_dump *in, fa_dump *d) {
    for (uint32_t k = 0; k < d->npgs; k++)
        for (uint32_t s = 0; s < in->nstatus; s++)
            if (in->status[s].pg_id == d->pgs[k].pg_id && d->pgs[k].last_op_id > 0 &&
                in->status[s].last_enqueued > d->pgs[k].last_op_id)
                d->pgs[k].skips_op_ids = true;
}

/* Entry i's times (perf.h): its arrival, and its discovered completion in us after it. */
static void put_times(fa_dump *d, uint32_t i, const fr_entry *e) {
    int64_t created = e->time_created_ns > 0 ? e->time_created_ns : 0,
            done = e->time_discovered_completed_ns;
    if (d->created_wide) {
        d->created_wide[i] = created;
    } else {
        d->created_us[i] = created ? (uint32_t)((created - d->time_base) / 1000) : FA_NO_TIME;
        d->created_ns[i] = created ? (uint16_t)((created - d->time_base) % 1000) : 0;
    }
    d->completed_us[i] = FA_NO_TIME;
    if (created && done >= created)
        d->completed_us[i] = (done - created) / 1000 >= FA_NO_TIME
                                 ? FA_NO_TIME - 1
                                 : (uint32_t)((done - created) / 1000);
    if (d->duration) d->duration[i] = e->has_duration ? (float)e->duration_ms : NAN;
}

/* Each entry's pg slot (slots[i]), the dump's pg table made on the way. */
static void assign_slots(fa_compactor *c, const fr_dump *in, fa_dump *d, uint32_t *slots) {
    size_t pgs_cap = 0;
    uint32_t last_pg = FA_NONE;
    const fr_entry *last = NULL;
    for (uint32_t i = 0; i < in->nentries && !c->failed; i++) {
        const fr_entry *e = &in->entries[i];
        if (!last || e->pg_name != last->pg_name || e->pg_desc != last->pg_desc ||
            e->pg_id != last->pg_id)
            last_pg = pg_slot(c, d, &pgs_cap, e);
        last = e;
        slots[i] = last_pg;
    }
}

/* Per pg slot: the smallest and largest collective and p2p sequence ids of its entries. */
static void seq_ranges(const fr_dump *in, const fa_dump *d, const uint32_t *slots,
                       int64_t (*range)[4]) {
    for (uint32_t k = 0; k < d->npgs; k++)
        range[k][0] = range[k][2] = INT64_MAX, range[k][1] = range[k][3] = INT64_MIN;
    for (uint32_t i = 0; i < in->nentries; i++) {
        int64_t *r = range[slots[i]];
        const fr_entry *e = &in->entries[i];
        if (e->collective_seq_id < r[0]) r[0] = e->collective_seq_id;
        if (e->collective_seq_id > r[1]) r[1] = e->collective_seq_id;
        if (e->p2p_seq_id < r[2]) r[2] = e->p2p_seq_id;
        if (e->p2p_seq_id > r[3]) r[3] = e->p2p_seq_id;
    }
}

/* The bases the entries' values are offsets from, and where they must be kept otherwise: the
 * record ids when they are not the first plus the index; all three values whole when a group's
 * sequence ids in this dump span 2^16 or more (never in PyTorch's dumps, whose ring holds 2 000
 * entries; possible in a big ring or a crafted dump); arrivals whole when they span more than
 * 2^32 microseconds. Durations are kept only when some entry has one. */
static void plan_values(fa_compactor *c, const fr_dump *in, fa_dump *d, int64_t (*range)[4]) {
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    bool consecutive = true, durations = false;
    int64_t first = INT64_MAX, last = 0; /* arrivals */
    for (uint32_t i = 0; i < in->nentries; i++) {
        const fr_entry *e = &in->entries[i];
        if (e->time_created_ns > 0 && e->time_created_ns < first) first = e->time_created_ns;
        if (e->time_created_ns > last) last = e->time_created_ns;
        if (e->record_id < lo) lo = e->record_id;
        if (e->record_id > hi) hi = e->record_id;
        consecutive &= (uint64_t)e->record_id == (uint64_t)in->entries[0].record_id + i;
        durations |= e->has_duration;
    }
    bool narrow = !in->nentries || (uint64_t)hi - (uint64_t)lo < UINT32_MAX;
    for (uint32_t k = 0; k < d->npgs; k++) {
        d->pgs[k].coll_base = range[k][0] == INT64_MAX ? 0 : range[k][0];
        d->pgs[k].p2p_base = range[k][2] == INT64_MAX ? 0 : range[k][2];
        narrow &= range[k][0] == INT64_MAX ||
                  ((uint64_t)range[k][1] - (uint64_t)range[k][0] <= UINT16_MAX &&
                   (uint64_t)range[k][3] - (uint64_t)range[k][2] <= UINT16_MAX);
    }
    d->record_base = in->nentries ? lo : 0;
    if (!narrow) {
        d->wide = malloc((size_t)in->nentries * 3 * sizeof *d->wide);
        c->failed |= !d->wide;
    } else if (!consecutive) {
        d->record = malloc((size_t)in->nentries * sizeof *d->record);
        c->failed |= !d->record;
    } else if (in->nentries) {
        d->record_base = in->entries[0].record_id;
    }
    if (durations) {
        d->duration = malloc(((size_t)in->nentries + 1) * sizeof *d->duration);
        c->failed |= !d->duration;
    }
    d->time_base = first == INT64_MAX ? 0 : first;
    size_t n = (size_t)in->nentries + 1;
    if (last > d->time_base && (uint64_t)(last - d->time_base) / 1000 >= FA_NO_TIME) {
        c->failed |= !(d->created_wide = malloc(n * sizeof *d->created_wide));
    } else {
        c->failed |= !(d->created_us = malloc(n * sizeof *d->created_us));
        c->failed |= !(d->created_ns = malloc(n * sizeof *d->created_ns));
    }
}

static void put_values(fa_dump *d, uint32_t i, const fr_entry *e, uint32_t traits, uint32_t pg) {
    if (d->wide) {
        d->wide[3 * (size_t)i] = e->record_id;
        d->wide[3 * (size_t)i + 1] = e->collective_seq_id;
        d->wide[3 * (size_t)i + 2] = e->p2p_seq_id;
        d->entries[i] = (fa_entry){ .traits = traits };
        return;
    }
    if (d->record) d->record[i] = (uint32_t)((uint64_t)e->record_id - (uint64_t)d->record_base);
    d->entries[i] =
        (fa_entry){ .coll =
                        (uint16_t)((uint64_t)e->collective_seq_id - (uint64_t)d->pgs[pg].coll_base),
                    .p2p = (uint16_t)((uint64_t)e->p2p_seq_id - (uint64_t)d->pgs[pg].p2p_base),
                    .traits = traits };
}

static void compact_entries(fa_compactor *c, const fr_dump *in, fa_dump *d) {
    uint32_t *slots = malloc(((size_t)in->nentries + 1) * sizeof *slots);
    int64_t(*range)[4] = NULL;
    c->failed |= !slots;
    if (!c->failed) assign_slots(c, in, d, slots);
    if (!c->failed) c->failed |= !(range = malloc(((size_t)d->npgs + 1) * sizeof *range));
    if (!c->failed) seq_ranges(in, d, slots, range);
    if (!c->failed) plan_values(c, in, d, range);
    free(range);
    for (uint32_t i = 0; i < in->nentries && !c->failed; i++) {
        const fr_entry *e = &in->entries[i], *as_meant = e;
        fr_entry read_as;
        if (e->retired && e->state != FR_STATE_COMPLETED && fa_backend_state(e) != e->state) {
            read_as = *e; /* rare: a gloo entry (backend.h); its traits hold the state it means */
            read_as.state = fa_backend_state(e);
            as_meant = &read_as;
        }
        put_values(d, i, e, traits_of(c, as_meant, slots[i]), slots[i]);
        if (c->failed) break;
        d->entries[i].unrecorded_before = note_op_id(&d->pgs[slots[i]], e->op_id);
        if (e->time_created_ns > d->newest_ns) d->newest_ns = e->time_created_ns;
        if (e->time_created_ns > 0 && (!d->oldest_ns || e->time_created_ns < d->oldest_ns))
            d->oldest_ns = e->time_created_ns;
        put_times(d, i, e);
    }
    free(slots);
    if (!c->failed && in->nentries) {
        fa_backend b = fa_backend_of(in->entries[in->nentries - 1].profiling_name);
        d->records_no_p2p = !fa_backend_records_p2p(b);
        d->blocks_caller = fa_backend_blocks_caller(b);
    }
    if (!c->failed) note_enqueued_after(in, d);
    if (!c->failed && d->records_no_p2p) status_in_seq_ids(in, d);
}

/* The store's copy of a group's ranks. The default group's list is in every rank's dump, 128 KiB
 * at 16 384 ranks: one comparison with the copy this worker stored last is cheaper than hashing
 * the list and taking the store's lock, file after file. */
static const int64_t *stored_ranks(fa_compactor *c, const int64_t *ranks, uint32_t n) {
    if (n >= RECENT_RANKS_MIN)
        for (unsigned i = 0; i < RECENT_RANKS; i++) {
            const recent_ranks *r = &c->recent[i];
            if (r->stored && r->n == n && memcmp(r->stored, ranks, (size_t)n * sizeof *ranks) == 0)
                return r->stored;
        }
    const int64_t *stored = fa_store_ranks(c->store, ranks, n);
    if (stored && n >= RECENT_RANKS_MIN)
        c->recent[c->next_recent++ % RECENT_RANKS] = (recent_ranks){ stored, n };
    return stored;
}

static void compact_config(fa_compactor *c, const fr_dump *in, fa_dump *d) {
    for (uint32_t k = 0; k < in->ngroups; k++) {
        const fr_group_config *g = &in->groups[k];
        const int64_t *ranks = g->nranks ? stored_ranks(c, g->ranks, g->nranks) : NULL;
        if (g->nranks && !ranks) c->failed = true;
        d->groups[k] =
            (fr_group_config){ stored_str(c, g->name), stored_str(c, g->desc), g->nranks, ranks };
    }
    if (in->nstatus) memcpy(d->status, in->status, in->nstatus * sizeof *d->status);
    for (uint32_t k = 0; k < in->ncomms; k++) {
        const fr_comm_info *ci = &in->comms[k];
        d->comms[k] =
            (fr_comm_info){ stored_str(c, ci->pg_name), ci->comm_rank, ci->comm_size,
                            stored_str(c, ci->parent),  ci->color,     stored_str(c, ci->nccl_hash),
                            stored_str(c, ci->state) };
    }
}

static void compact_identity(fa_compactor *c, const fr_identity *in, fr_identity *out) {
    *out = *in;
    out->hostname = stored_str(c, in->hostname);
    out->pci_bus_id = stored_str(c, in->pci_bus_id);
    out->uuid = stored_str(c, in->uuid);
    out->nccl_version = stored_str(c, in->nccl_version);
}

static void compact_threads(fa_compactor *c, const fr_dump *in, fa_dump *d) {
    d->threads = calloc(in->nthreads + 1, sizeof *d->threads);
    if (!d->threads) {
        c->failed = true;
        return;
    }
    for (uint32_t i = 0; i < in->nthreads && !c->failed; i++) {
        const fr_thread_stack *t = &in->threads[i];
        d->threads[i] =
            (fa_thread){ t->thread_id, stored_str(c, t->thread_name), stored_str(c, t->note),
                         t->npython ? intern_frames(c, t->python, t->npython) : FA_NONE,
                         t->nnative ? intern_frames(c, t->native, t->nnative) : FA_NONE };
    }
    d->nthreads = in->nthreads;
}

/* The thread that made the newest call: PyTorch and the recorder write its id as a string. */
static int64_t caller_tid(const fr_dump *in) {
    const char *id = in->nentries ? in->entries[in->nentries - 1].thread_id : NULL;
    char *end;
    long long v = id && *id ? strtoll(id, &end, 10) : -1;
    return id && *id && *end == '\0' && v >= 0 ? v : -1;
}

fa_dump *fa_dump_compact(fa_compactor *c, const fr_dump *in) {
    c->generation++;
    c->ptrs_count = 0;
    c->failed = false;
    fa_dump *d = calloc(1, sizeof *d);
    if (!d) return NULL;
    d->groups = calloc(in->ngroups + 1, sizeof *d->groups);
    d->status = calloc(in->nstatus + 1, sizeof *d->status);
    d->comms = calloc(in->ncomms + 1, sizeof *d->comms);
    d->entries = malloc((in->nentries + 1) * sizeof *d->entries);
    d->completed_us = malloc((in->nentries + 1) * sizeof *d->completed_us);
    if (!d->groups || !d->status || !d->comms || !d->entries || !d->completed_us) c->failed = true;
    d->version = stored_str(c, in->version);
    d->version_major = in->version_major;
    d->version_minor = in->version_minor;
    d->comm_lib_version = stored_str(c, in->comm_lib_version);
    d->ngroups = in->ngroups;
    d->nstatus = in->nstatus;
    d->has_entries = in->has_entries;
    d->nentries = in->nentries;
    d->store = c->store;
    d->global_rank = in->global_rank;
    d->trigger = stored_str(c, in->trigger);
    d->ncomms = in->ncomms;
    d->launch_numbered = in->ncomms > 0 || in->global_rank >= 0;
    d->truncated = in->truncated;
    d->warning = stored_str(c, in->warning);
    d->has_identity = in->has_identity;
    if (in->has_identity) compact_identity(c, &in->identity, &d->identity);
    d->has_stacks = in->has_stacks;
    if (in->has_stacks && !c->failed) compact_threads(c, in, d);
    d->caller_tid = caller_tid(in);
    if (!c->failed) compact_config(c, in, d);
    if (!c->failed) compact_entries(c, in, d);
    if (c->failed) {
        fa_dump_free(d);
        return NULL;
    }
    return d;
}

void fa_dump_free(fa_dump *d) {
    if (!d) return;
    free(d->groups);
    free(d->status);
    free(d->comms);
    free(d->entries);
    free(d->record);
    free(d->wide);
    free(d->created_us);
    free(d->created_ns);
    free(d->created_wide);
    free(d->completed_us);
    free(d->duration);
    free(d->pgs);
    free(d->threads);
    free(d);
}

void fa_entry_expand(const fa_store *s, const fa_dump *d, const fa_entry *e, fr_entry *out) {
    const fa_traits *t = fa_entry_traits(s, e);
    const fa_pg *pg = &d->pgs[t->pg];
    fa_frames frames = fa_store_frames(s, t->frames);
    *out = (fr_entry){ .record_id = fa_entry_record_id(d, e),
                       .pg_id = pg->pg_id,
                       .pg_name = pg->name,
                       .pg_desc = pg->desc,
                       .collective_seq_id = fa_entry_coll_seq(d, e),
                       .p2p_seq_id = fa_entry_p2p_seq(d, e),
                       .op_id = -1,
                       .profiling_name = fa_store_op(s, t->name)->text,
                       .input_sizes = *fa_store_shapes(s, t->in_sizes),
                       .output_sizes = *fa_store_shapes(s, t->out_sizes),
                       .input_dtypes = *fa_store_strings(s, t->in_dtypes),
                       .output_dtypes = *fa_store_strings(s, t->out_dtypes),
                       .state = (fr_state)t->state,
                       .is_p2p = t->is_p2p,
                       .timeout_ms = -1,
                       .nframes = frames.n,
                       .frames = frames.v };
}
