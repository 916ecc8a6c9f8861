/* store_index.h — the store's (kind, blob) -> id index, shared by the store (store.c) and the
 * compactors (compact.c); private to those two.
 *
 * A value is interned as a blob of its kind (K_*; store.c's opening comment says how each kind
 * is serialized). The same open-addressing table type serves the store's job-wide index (behind
 * its lock) and each compactor's private cache of it (no lock), so both find a blob the same
 * way: by fa_store_hash, then kind, length and bytes.
 */
#ifndef FRTRACE_STORE_INDEX_H
#define FRTRACE_STORE_INDEX_H

#include <stddef.h>
#include <stdint.h>

#include "load/store.h"

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

uint64_t fa_store_hash(uint32_t kind, const uint8_t *p, size_t len);
/* The slot of (kind, blob) in t, or NULL. */
const slot *fa_table_find(const table *t, uint32_t kind, uint64_t hash, const uint8_t *blob,
                          size_t len);
int fa_table_put(table *t, slot value); /* 0, or -1 when out of memory */
/* The id of (kind, blob) in the store, storing it (and its typed view) when new, under the
 * store's lock: the id, or -1 when out of memory; *stored the store's copy of the blob. */
long fa_store_intern(fa_store *s, uint32_t kind, const uint8_t *blob, size_t len, uint64_t hash,
                     const uint8_t **stored);

#endif
