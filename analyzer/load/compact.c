/* compact.c — a decoded dump reduced to compact records (fa_dump, see store.h), its values
 * interned in the job-wide store.
 *
 * Each load worker has an fa_compactor: a private copy of the store's index (so the store's lock
 * is taken only for a value this worker has not met), and a per-dump pointer cache, because a
 * decoded dump already interns its strings and lists: the same pointer within one dump is the
 * same value (a direct-mapped front answers the pointers the last entries used). An entry
 * becomes its traits id (which name, shapes, dtypes, stack, state, group: interned as one
 * fa_traits, cached per dump too), its sequence ids as offsets from its group's base, and its
 * times in the narrowest columns that hold them; the group table, pg_config, pg_status and
 * threads are copied over. Out of memory anywhere marks the dump failed and it is dropped whole.
 */
#include "load/store.h"
#include "load/store_index.h"

#include "load/backend.h"

#include <stdlib.h>
#include <string.h>

#include "mix64.h"
#include "grow.h"

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
    uint64_t hash = fa_store_hash(kind, blob, len);
    const slot *hit = fa_table_find(&c->cache, kind, hash, blob, len);
    if (hit) {
        if (stored_out) *stored_out = hit->blob;
        return hit->id;
    }
    const uint8_t *stored = NULL;
    long id = fa_store_intern(c->store, kind, blob, len, hash, &stored);
    if (id < 0 ||
        fa_table_put(&c->cache, (slot){ hash, stored, (uint32_t)len, kind, (uint32_t)id }) != 0) {
        c->failed = true;
        return FA_NONE;
    }
    if (stored_out) *stored_out = stored;
    return (uint32_t)id;
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
