/* pg_ranks.c — pg_config's ranks texts parsed, the long ones kept across files (pg_ranks.h):
 * a strict parser of "[0, 1, 2]", a lookup among the kept texts by their bytes, and the kept
 * texts replaced least recently used first.
 */
#include "pg_ranks.h"

#include <stdlib.h>
#include <string.h>

/* "[0, 1, 2]" (torch), "[0,1]" (torchcomms) or "[]": strictly that, ints in int64 (each an
 * optional '-' and 1 to 19 digits, as parse_decimal takes them). Parses into `out`, which has
 * room for len / 2 + 1 ranks (every rank takes at least two bytes with its separator, the
 * brackets pay for the last one); returns the count, or -1 when the text is not such a list. */
static int64_t parse_ranks_text(const char *s, size_t len, int64_t *out) {
    const char *p = s, *end = s + len;
    int64_t n = 0;
    if (p == end || *p++ != '[') return -1;
    while (p < end && *p == ' ') p++;
    if (p < end && *p == ']') return p + 1 == end ? 0 : -1;
    for (;;) {
        bool negative = p < end && *p == '-';
        if (negative) p++;
        const char *digits = p;
        uint64_t acc = 0;
        while (p < end && (unsigned)(*p - '0') <= 9 && p - digits < 19)
            acc = acc * 10 + (uint64_t)(*p++ - '0');
        if (p == digits || (p < end && (unsigned)(*p - '0') <= 9)) return -1; /* none, or a 20th */
        if (acc > (uint64_t)INT64_MAX + (negative ? 1 : 0)) return -1;
        out[n++] = negative ? (int64_t)(0 - acc) : (int64_t)acc;
        while (p < end && *p == ' ') p++;
        if (p < end && *p == ']') return p + 1 == end ? n : -1;
        if (p == end || *p++ != ',') return -1;
        while (p < end && *p == ' ') p++;
    }
}

/* A ranks text seen before by this cache: the default group's "[0, 1, ..., N-1]" is in
 * every rank's pg_config, about 100 KB at 16 384 ranks, so a byte-identical text (memcmp, far
 * cheaper than parsing) reuses the parsed array. The dump still gets its own copy of the
 * array, in its arena: dumps never point into the decoder. */
static const int64_t *ranks_cached(pg_ranks_cache *c, const char *s, size_t len, uint32_t *n) {
    for (int i = 0; i < RANKS_CACHE_SLOTS; i++) {
        ranks_text *r = &c->slots[i];
        if (r->text && r->len == len && memcmp(r->text, s, len) == 0) {
            r->last_use = ++c->clock;
            *n = r->n;
            return r->ranks;
        }
    }
    return NULL;
}

/* Parses a ranks text into the least recently used cache slot, or into scratch for a text
 * too short or too long to keep (so that a pg_config of many small groups does not evict the
 * long texts). NULL with *bad false when out of memory, with *bad true when not a list. */
static const int64_t *ranks_parse(pg_ranks_cache *c, const char *s, size_t len, uint32_t *n,
                                  bool *bad) {
    *bad = false;
    size_t room = len / 2 + 1;
    bool keep = len >= RANKS_CACHE_MIN && len <= RANKS_CACHE_MAX;
    ranks_text *r = NULL;
    int64_t *ranks;
    if (keep) {
        r = &c->slots[0];
        for (int i = 1; i < RANKS_CACHE_SLOTS; i++)
            if (c->slots[i].last_use < r->last_use) r = &c->slots[i];
        free(r->text);
        free(r->ranks);
        *r = (ranks_text){ 0 };
        if (!(r->text = malloc(len)) || !(r->ranks = malloc(room * sizeof *r->ranks))) {
            free(r->text);
            *r = (ranks_text){ 0 };
            return NULL;
        }
        ranks = r->ranks;
    } else {
        if (c->scratch_cap < room) {
            free(c->scratch);
            c->scratch_cap = 0;
            if (!(c->scratch = malloc(room * sizeof *c->scratch))) return NULL;
            c->scratch_cap = room;
        }
        ranks = c->scratch;
    }
    int64_t count = parse_ranks_text(s, len, ranks);
    if (count < 0) {
        if (r) {
            free(r->text);
            free(r->ranks);
            *r = (ranks_text){ 0 };
        }
        *bad = true;
        return NULL;
    }
    *n = (uint32_t)count; /* below len, itself below UINT32_MAX */
    if (r) {
        memcpy(r->text, s, len);
        r->len = len;
        r->n = *n;
        r->last_use = ++c->clock;
    }
    return ranks;
}

const int64_t *pg_ranks_parse(pg_ranks_cache *c, const char *s, size_t len, uint32_t *n,
                              bool *bad) {
    *bad = false;
    const int64_t *parsed = ranks_cached(c, s, len, n);
    return parsed ? parsed : ranks_parse(c, s, len, n, bad);
}

void pg_ranks_trim(pg_ranks_cache *c) {
    if (c->scratch_cap > RANKS_CACHE_MAX / 2 + 1) { /* a huge text's scratch: not kept */
        free(c->scratch);
        c->scratch = NULL;
        c->scratch_cap = 0;
    }
}

void pg_ranks_free(pg_ranks_cache *c) {
    for (int i = 0; i < RANKS_CACHE_SLOTS; i++) {
        free(c->slots[i].text);
        free(c->slots[i].ranks);
    }
    free(c->scratch);
}
