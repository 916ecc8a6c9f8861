/* pickle_memo.h — the pickle machine's memo (pickle_read.c): 64-bit id -> node.
 *
 * Writers number memo entries 0, 1, 2, ... (torch and Python alike), so the memo starts as a
 * plain array indexed by id. The first id that does not fit (PUT 4000000000, or ids far apart)
 * turns it for good into an open-addressing hash map, where any id costs one slot. The array
 * is never allowed more bytes than the hash map would have at that count (the map's size is
 * tracked as `map_cap` even while unused), so the memory bound sees no more than it would if
 * there were only the map. Lookups are inline: GET and BINGET are among a dump's commonest
 * opcodes, and the machine's loop reads `dense` itself for BINGET's fast case.
 */
#ifndef FRTRACE_PICKLE_MEMO_H
#define FRTRACE_PICKLE_MEMO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "value.h"

typedef struct memo_map {
    fv **dense; /* array mode: dense[id] for id < dense_cap (NULL = not stored) */
    size_t dense_cap;
    uint64_t *ids;  /* map mode */
    fv **nodes;     /* NULL = empty slot */
    size_t cap;     /* slots of the map (0 in array mode) */
    size_t map_cap; /* what the map's size is or would be for `count` entries */
    size_t count;   /* entries stored */
} memo_map;

/* The map's slot of `id`: where it is, or the empty slot where it would go (map mode). */
static inline size_t pickle_memo_slot(const memo_map *m, uint64_t id) {
    uint64_t h = id * 0x9e3779b97f4a7c15ULL;
    size_t s = (size_t)(h >> 20) & (m->cap - 1);
    while (m->nodes[s] && m->ids[s] != id) s = (s + 1) & (m->cap - 1);
    return s;
}

/* The node stored under `id`, or NULL. */
static inline fv *pickle_memo_get(const memo_map *m, uint64_t id) {
    if (id < m->dense_cap) return m->dense[id];
    if (!m->cap) return NULL;
    return m->nodes[pickle_memo_slot(m, id)];
}

/* Stores `node` under `id` (replacing what was there); false when out of memory. */
bool pickle_memo_put(memo_map *m, uint64_t id, fv *node);

/* The bytes the memo holds, for the machine's memory bound. */
static inline size_t pickle_memo_bytes(const memo_map *m) {
    return m->dense_cap * sizeof *m->dense + m->cap * (sizeof *m->ids + sizeof *m->nodes);
}

#endif
