/* store.c — job-wide interning of the values entries share (see store.h); compact.c reduces each
 * dump to records interned here.
 *
 * Every value is first serialized into a byte blob (a string with its NUL; a shape list as int64
 * words count, ndim, dims..., ndim, dims...; a dtype list as count and string ids; a frame list
 * as count and (name id, file id, line) triples; a rank list as its int64s). One hash table maps
 * (kind, blob) to an id; the blob is copied once into the store's arena, and the typed view the
 * analyzer reads (fr_shapes, fr_strings, fr_frame[], fa_opinfo) is built from it then, pointing
 * into the blob where it can (shape dims, rank lists). The index (store_index.h) is shared with the
 * compactors, which keep a private copy of it, so that a worker takes the store's lock
 * (fa_store_intern) only for a value it has not met before.
 */
#include "load/store.h"
#include "load/store_index.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "mix64.h"
#include "grow.h"

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
uint64_t fa_store_hash(uint32_t kind, const uint8_t *p, size_t len) {
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

const slot *fa_table_find(const table *t, uint32_t kind, uint64_t hash, const uint8_t *blob,
                          size_t len) {
    if (!t->cap) return NULL;
    for (size_t i = hash & (t->cap - 1);; i = (i + 1) & (t->cap - 1)) {
        const slot *s = &t->v[i];
        if (!s->blob) return NULL;
        if (s->hash == hash && s->kind == kind && s->len == len && memcmp(s->blob, blob, len) == 0)
            return s;
    }
}

int fa_table_put(table *t, slot value) {
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
                          fa_store_hash(K_STR, (const uint8_t *)buf, tl + 1), &stored) < 0)
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
    const slot *hit = fa_table_find(&s->index, kind, hash, blob, len);
    if (hit) {
        *stored = hit->blob;
        return hit->id;
    }
    uint8_t *copy = arena_alloc(s, len ? len : 1);
    if (!copy) return -1;
    memcpy(copy, blob, len);
    uint32_t id = (uint32_t)s->kinds[kind].n;
    if (make_view(s, kind, copy, len) != 0) return -1;
    if (fa_table_put(&s->index, (slot){ hash, copy, (uint32_t)len, kind, id }) != 0) return -1;
    *stored = copy;
    return id;
}

/* ---------------------------------------------------------------- public: store ---- */

long fa_store_intern(fa_store *s, uint32_t kind, const uint8_t *blob, size_t len, uint64_t hash,
                     const uint8_t **stored) {
    pthread_mutex_lock(&s->lock);
    long id = intern_locked(s, kind, blob, len, hash, stored);
    pthread_mutex_unlock(&s->lock);
    return id;
}

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

const int64_t *fa_store_ranks(fa_store *s, const int64_t *ranks, uint32_t n) {
    const uint8_t *stored = NULL;
    size_t len = n * sizeof *ranks;
    long id = fa_store_intern(s, K_RANKS, (const uint8_t *)ranks, len,
                              fa_store_hash(K_RANKS, (const uint8_t *)ranks, len), &stored);
    return id < 0 ? NULL : (const int64_t *)stored;
}
