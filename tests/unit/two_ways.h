/* two_ways.h — the check of the direct paths' tests (test_dump_pickle_fast.c for pickles,
 * test_dump_json_fast.c for JSON): decode the same bytes twice, with an fr_decoder on its
 * default (the direct paths first) and with one whose direct paths are off, and require one
 * outcome — the same dump, field by field (dump_equal.h), or the same error message — and
 * tell whether the direct path took the bytes. Also the two stories both tell of a dump: cut at
 * every byte, and with bits flipped at random (a fixed seed, so a failure repeats). Header
 * only (cmocka's asserts, static inline), like dump_equal.h and files.h.
 */
#ifndef FRTRACE_TEST_TWO_WAYS_H
#define FRTRACE_TEST_TWO_WAYS_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dump.h"
#include "dump_decoder.h"
#include "dump_equal.h"

typedef struct two_ways {
    fr_decoder *fast, *generic;
} two_ways;

static inline two_ways two_ways_new(void) {
    two_ways t = { fr_decoder_new(), fr_decoder_new() };
    assert_non_null(t.fast);
    assert_non_null(t.generic);
    fr_decoder_use_fast_path(t.generic, false);
    return t;
}

static inline void two_ways_free(two_ways *t) {
    fr_decoder_free(t->fast);
    fr_decoder_free(t->generic);
}

/* Decodes bytes[0..len) both ways and requires one outcome; returns whether the direct path
 * took them. A failure names the first entry that differs. */
static inline bool same_both_ways(two_ways *t, const void *bytes, size_t len, const char *what) {
    uint64_t before = fr_decoder_fast_count(t->fast);
    fr_dump *a = NULL, *b = NULL;
    fr_error ea = { { 0 } }, eb = { { 0 } };
    int ra = fr_decoder_decode(t->fast, bytes, len, &a, &ea);
    int rb = fr_decoder_decode(t->generic, bytes, len, &b, &eb);
    if (ra != rb)
        fail_msg("%s: direct path gives %d (%s), generic %d (%s)", what, ra, ea.msg, rb, eb.msg);
    if (ra == 0 && !dump_eq(a, b)) {
        uint32_t i = 0;
        while (i < a->nentries && i < b->nentries && entry_eq(&a->entries[i], &b->entries[i])) i++;
        fail_msg("%s: the two paths give different dumps (entry %u of %u)", what, i, a->nentries);
    }
    if (ra != 0 && strcmp(ea.msg, eb.msg) != 0)
        fail_msg("%s: messages differ: '%s' vs '%s'", what, ea.msg, eb.msg);
    assert_int_equal(fr_decoder_fast_count(t->generic), 0);
    fr_dump_free(a);
    fr_dump_free(b);
    return fr_decoder_fast_count(t->fast) > before;
}

/* Every prefix of bytes[0..len), the whole included, decodes the same both ways; returns how
 * many the direct path took. */
static inline int cut_at_every_byte(two_ways *t, const void *bytes, size_t len) {
    char what[64];
    int direct = 0;
    for (size_t cut = 0; cut <= len; cut++) {
        snprintf(what, sizeof what, "cut at %zu", cut);
        direct += same_both_ways(t, bytes, cut, what);
    }
    return direct;
}

static inline uint64_t next_random(uint64_t *s) {
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* `rounds` copies of bytes[0..len), each with one to three bits flipped at random, decode the
 * same both ways; returns how many the direct path took. */
static inline int flipped_bits(two_ways *t, const void *bytes, size_t len, int rounds) {
    uint8_t *copy = malloc(len);
    assert_non_null(copy);
    uint64_t seed = 0x9e3779b97f4a7c15ull;
    char what[64];
    int direct = 0;
    for (int round = 0; round < rounds; round++) {
        memcpy(copy, bytes, len);
        int flips = 1 + (int)(next_random(&seed) % 3);
        for (int k = 0; k < flips; k++)
            copy[next_random(&seed) % len] ^= (uint8_t)(1u << (next_random(&seed) % 8));
        snprintf(what, sizeof what, "round %d", round);
        direct += same_both_ways(t, copy, len, what);
    }
    free(copy);
    return direct;
}

#endif
