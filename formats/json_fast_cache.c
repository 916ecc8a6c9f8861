/* json_fast_cache.c — the direct JSON reader's value cache (json_fast.h): a value's raw text
 * and what it decoded to, so that text met before is compared, not decoded. A set-associative
 * table (CACHE_SETS x CACHE_WAYS) found by a hash of the HASH_BYTES at the cursor, each way
 * compared byte for byte; a layout key's own last two values sit in the key (near) and are tried
 * first by `cached` (json_fast.h, inlined in the hot loop), which comes here on a miss. Slots
 * carry the file's number (gen), so nothing of an earlier file is ever taken.
 */
#include "json_fast.h"

HOT size_t cache_set(const uint8_t *p, int field) {
    uint64_t h = (load64(p) ^ (load64(p + 8) >> 7 | load64(p + 8) << 57) ^ (uint64_t)field) *
                 0x9e3779b97f4a7c15ull;
    return (size_t)(h >> 56) & (CACHE_SETS - 1);
}

/* Makes `v` the layout key's most recent value (its previous one the other). */
static void near_keep(layout_key *lk, const vslot *v) {
    lk->near[1] = lk->near[0];
    lk->near[0] = *v;
}

/* The slot of the value at the cursor for `field` in the cache when its raw text was met before
 * (the cursor then after it, and the slot also the most recent value of the entry's key `lk`,
 * unless lk is NULL: a key off the layout, or a frame's); else NULL, with *set where the value
 * read now may be kept (or CACHE_SETS when the input ends too soon to hash). */
static const vslot *cache_take(dump_json_fast *f, int field, layout_key *lk, size_t *set) {
    size_t room = left(f);
    if (room < HASH_BYTES) {
        *set = CACHE_SETS;
        return NULL;
    }
    *set = cache_set(f->p, field);
    const vslot *w = f->cache[*set];
    for (int k = 0; k < CACHE_WAYS; k++)
        if (w[k].gen == f->gen && w[k].field == field && w[k].len <= room &&
            same_bytes(f->p, w[k].raw, w[k].len)) {
            f->p += w[k].len;
            if (lk) near_keep(lk, &w[k]);
            return &w[k];
        }
    return NULL;
}

/* Keeps the value just read from `raw` to the cursor in `set`, as its most recent way, and as
 * the key's most recent value (not one whose length does not fit the slot: a shorter one would
 * match other text). Returns where it is kept (f->scratch when nowhere else). */
static const vslot *cache_keep(dump_json_fast *f, size_t set, int field, layout_key *lk,
                               const uint8_t *raw, const vslot *value) {
    vslot *v = &f->scratch;
    *v = *value;
    if ((uint64_t)(f->p - raw) > UINT32_MAX) return v;
    v->raw = raw;
    v->len = (uint32_t)(f->p - raw);
    v->gen = f->gen;
    v->field = field;
    if (set < CACHE_SETS) {
        vslot *w = f->cache[set];
        memmove(&w[1], &w[0], (CACHE_WAYS - 1) * sizeof *w);
        w[0] = *v;
    }
    if (!lk) return v;
    near_keep(lk, v);
    return &lk->near[0];
}

/* `cached` when the value is not one of the key's last two: the cache, else `read`. */
const vslot *jf_cached_slow(dump_json_fast *f, int field, layout_key *lk, value_reader read) {
    size_t set;
    const vslot *hit = cache_take(f, field, lk, &set);
    if (hit) return hit;
    const uint8_t *raw = f->p;
    vslot v = { 0 };
    return read(f, field, &v) ? cache_keep(f, set, field, lk, raw, &v) : NULL;
}
