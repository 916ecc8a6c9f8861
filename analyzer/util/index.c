/* index.c — open-addressing hash maps (see index.h). Linear probing; a table is never more than
 * half full, so probes stay short; growth rehashes everything once, keeping inserts amortized
 * constant. */
#include "util/index.h"

#include <stdlib.h>
#include <string.h>

uint64_t fa_hash_bytes(const void *bytes, size_t len) {
    const unsigned char *p = bytes;
    uint64_t h = 1469598103934665603ULL; /* FNV-1a, then a final mix */
    for (size_t i = 0; i < len; i++) h = (h ^ p[i]) * 1099511628211ULL;
    return fr_mix64(h);
}

static int imap_grow(fa_imap *map) {
    size_t cap = map->cap ? map->cap * 2 : 16;
    fa_imap bigger = { calloc(cap, sizeof(uint64_t)), calloc(cap, sizeof(uint64_t)), calloc(cap, 1),
                       cap, 0 };
    if (!bigger.keys || !bigger.values || !bigger.used) {
        fa_imap_free(&bigger);
        return -1;
    }
    for (size_t i = 0; i < map->cap; i++)
        if (map->used[i]) fa_imap_put(&bigger, map->keys[i], map->values[i]);
    fa_imap_free(map);
    *map = bigger;
    return 0;
}

int fa_imap_put(fa_imap *map, uint64_t key, uint64_t value) {
    if ((map->count + 1) * 2 > map->cap && imap_grow(map) != 0) return -1;
    size_t i = fr_mix64(key) & (map->cap - 1);
    while (map->used[i] && map->keys[i] != key) i = (i + 1) & (map->cap - 1);
    if (!map->used[i]) {
        map->used[i] = 1;
        map->keys[i] = key;
        map->count++;
    }
    map->values[i] = value;
    return 0;
}

bool fa_imap_get(const fa_imap *map, uint64_t key, uint64_t *value) {
    if (map->cap == 0) return false;
    size_t i = fr_mix64(key) & (map->cap - 1);
    while (map->used[i]) {
        if (map->keys[i] == key) {
            if (value) *value = map->values[i];
            return true;
        }
        i = (i + 1) & (map->cap - 1);
    }
    return false;
}

void fa_imap_free(fa_imap *map) {
    free(map->keys);
    free(map->values);
    free(map->used);
    memset(map, 0, sizeof *map);
}

static int smap_grow(fa_smap *map) {
    size_t cap = map->cap ? map->cap * 2 : 16;
    char **keys = calloc(cap, sizeof(char *));
    uint64_t *values = calloc(cap, sizeof(uint64_t));
    if (!keys || !values) {
        free(keys);
        free(values);
        return -1;
    }
    for (size_t i = 0; i < map->cap; i++) {
        if (!map->keys[i]) continue;
        size_t j = fa_hash_bytes(map->keys[i], strlen(map->keys[i])) & (cap - 1);
        while (keys[j]) j = (j + 1) & (cap - 1);
        keys[j] = map->keys[i];
        values[j] = map->values[i];
    }
    free(map->keys);
    free(map->values);
    map->keys = keys;
    map->values = values;
    map->cap = cap;
    return 0;
}

int fa_smap_put(fa_smap *map, const char *key, uint64_t value) {
    if ((map->count + 1) * 2 > map->cap && smap_grow(map) != 0) return -1;
    size_t i = fa_hash_bytes(key, strlen(key)) & (map->cap - 1);
    while (map->keys[i] && strcmp(map->keys[i], key) != 0) i = (i + 1) & (map->cap - 1);
    if (!map->keys[i]) {
        map->keys[i] = strdup(key);
        if (!map->keys[i]) return -1;
        map->count++;
    }
    map->values[i] = value;
    return 0;
}

bool fa_smap_get(const fa_smap *map, const char *key, uint64_t *value) {
    if (map->cap == 0) return false;
    size_t i = fa_hash_bytes(key, strlen(key)) & (map->cap - 1);
    while (map->keys[i]) {
        if (strcmp(map->keys[i], key) == 0) {
            if (value) *value = map->values[i];
            return true;
        }
        i = (i + 1) & (map->cap - 1);
    }
    return false;
}

void fa_smap_free(fa_smap *map) {
    for (size_t i = 0; i < map->cap; i++) free(map->keys[i]);
    free(map->keys);
    free(map->values);
    memset(map, 0, sizeof *map);
}
