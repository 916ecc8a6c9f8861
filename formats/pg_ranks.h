/* pg_ranks.h — a process group's ranks text ("[0, 1, 2]", as pg_config writes "ranks") parsed,
 * and the long ones kept from file to file: every rank's pg_config repeats the default group's
 * "[0, 1, ..., N-1]", about 100 KB at 16 384 ranks, so a byte-identical text (memcmp, far
 * cheaper than parsing) reuses the parse. The generic dump decoder (dump_from_value.c) holds
 * one cache per decoder and copies what it returns into the dump: dumps never point into it.
 */
#ifndef FRTRACE_PG_RANKS_H
#define FRTRACE_PG_RANKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A group's ranks text and its parse, kept from file to file (see pg_ranks_parse). Texts
 * shorter than RANKS_CACHE_MIN parse about as fast as they compare; longer than
 * RANKS_CACHE_MAX (a million ranks) are parsed without being kept. */
enum { RANKS_CACHE_SLOTS = 8, RANKS_CACHE_MIN = 256, RANKS_CACHE_MAX = 8 << 20 };

typedef struct ranks_text {
    char *text; /* NULL: the slot holds no text to compare with */
    size_t len;
    int64_t *ranks; /* the parse, n ranks */
    uint32_t n;
    uint64_t last_use;
} ranks_text;

typedef struct pg_ranks_cache {
    ranks_text slots[RANKS_CACHE_SLOTS];
    uint64_t clock;
    int64_t *scratch; /* the parse of a ranks text not kept in a slot */
    size_t scratch_cap;
} pg_ranks_cache; /* all zero: empty */

/* The ranks of the text s[0..len), *n of them, valid until the next call: "[0, 1, 2]" (torch),
 * "[0,1]" (torchcomms) or "[]", strictly that, ints in int64. NULL with *bad false when out of
 * memory, with *bad true when the text is not such a list. */
const int64_t *pg_ranks_parse(pg_ranks_cache *c, const char *s, size_t len, uint32_t *n, bool *bad);

/* Lets go of the scratch a huge text needed (after its parse was copied). */
void pg_ranks_trim(pg_ranks_cache *c);

void pg_ranks_free(pg_ranks_cache *c);

#endif
