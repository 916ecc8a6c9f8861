/* index.h — the two hash maps the analyzer indexes everything with, and the growing array.
 *
 * fa_imap maps a 64-bit key to a 64-bit value; fa_smap maps a string to a 64-bit value (the map
 * keeps its own copy of the key). Both use open addressing with linear probing and double when
 * half full, so building an index over n items is linear. They are how the analyzer avoids
 * rescanning lists: (group, sequence id) -> collective, pg_name -> group, global rank -> node.
 * fa_grow doubles a plain array (pointer + capacity) that the caller fills: formats/grow.h's
 * fr_grow, from 64 items.
 */
#ifndef FRTRACE_INDEX_H
#define FRTRACE_INDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "grow.h"
#include "mix64.h"

typedef struct fa_imap {
    uint64_t *keys;
    uint64_t *values;
    uint8_t *used;
    size_t cap, count;
} fa_imap;

typedef struct fa_smap {
    char **keys;
    uint64_t *values;
    size_t cap, count;
} fa_smap;

/* Room for `need` items of `size` bytes in the array *v of *cap items, doubling from 64: 0, or
 * -1 when out of memory (the array is left as it was). */
static inline int fa_grow(void **v, size_t *cap, size_t need, size_t size) {
    return fr_grow(v, cap, need, size, 64);
}

/* Returns 0, or -1 when out of memory. */
int fa_imap_put(fa_imap *map, uint64_t key, uint64_t value);
/* true and *value set when present. */
bool fa_imap_get(const fa_imap *map, uint64_t key, uint64_t *value);
void fa_imap_free(fa_imap *map);

int fa_smap_put(fa_smap *map, const char *key, uint64_t value);
bool fa_smap_get(const fa_smap *map, const char *key, uint64_t *value);
void fa_smap_free(fa_smap *map);

/* Mixes two 64-bit values into one key (for composite keys such as (group, seq)). */
static inline uint64_t fa_key2(uint64_t a, uint64_t b) {
    return fr_mix64(a * 0x9e3779b97f4a7c15ULL) ^ (b + 0x632be59bd9b4e019ULL + (a << 7));
}
uint64_t fa_hash_bytes(const void *bytes, size_t len);

#endif
