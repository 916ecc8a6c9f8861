/* test_op_index.c — the matcher's op index (analyzer/match/op_index.h) against a plain list: keys
 * of dense, descending, sparse and extreme seqs, second occurrences, groups that move from their
 * array to the hash table part way, and lookups of keys never added. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>

#include "match/op_index.h"

typedef struct key {
    uint32_t group;
    int64_t seq;
    uint32_t occurrence;
} key;

/* The op of k in the reference list, or -1. */
static long reference_find(const key *keys, size_t n, key k) {
    for (size_t i = 0; i < n; i++)
        if (keys[i].group == k.group && keys[i].seq == k.seq && keys[i].occurrence == k.occurrence)
            return (long)i;
    return -1;
}

/* Adds each key not there yet (op = its place in the list), then checks every key and some
 * absent ones. */
static void check_keys(const key *in, size_t n, uint32_t ngroups) {
    fa_op_index ix;
    assert_int_equal(fa_op_index_init(&ix, ngroups), 0);
    key *keys = calloc(n + 1, sizeof *keys);
    size_t nkeys = 0;
    for (size_t i = 0; i < n; i++) {
        long ref = reference_find(keys, nkeys, in[i]);
        assert_int_equal(fa_op_index_find(&ix, in[i].group, in[i].seq, in[i].occurrence), ref);
        if (ref < 0) {
            assert_int_equal(
                fa_op_index_add(&ix, in[i].group, in[i].seq, in[i].occurrence, (uint32_t)nkeys), 0);
            keys[nkeys++] = in[i];
        }
    }
    for (size_t i = 0; i < nkeys; i++) {
        assert_int_equal(fa_op_index_find(&ix, keys[i].group, keys[i].seq, keys[i].occurrence),
                         (long)i);
        int64_t next = keys[i].seq == INT64_MAX ? INT64_MIN : keys[i].seq + 1;
        key absent[3] = { { keys[i].group, next, keys[i].occurrence },
                          { keys[i].group, keys[i].seq, keys[i].occurrence + 1 },
                          { keys[i].group + 1, keys[i].seq, keys[i].occurrence } };
        for (int a = 0; a < 3; a++)
            assert_int_equal(
                fa_op_index_find(&ix, absent[a].group, absent[a].seq, absent[a].occurrence),
                reference_find(keys, nkeys, absent[a]));
    }
    free(keys);
    fa_op_index_free(&ix);
}

static void dense_seqs_in_both_directions(void **state) {
    key k[3000];
    size_t n = 0;
    for (int64_t s = 1000; s < 2000; s++) k[n++] = (key){ 0, s, 0 };
    for (int64_t s = 999; s >= 0; s--) k[n++] = (key){ 0, s, 0 }; /* grows downwards */
    for (int64_t s = 0; s < 1000; s++)
        k[n++] = (key){ 1, 5000 - s * 3, s % 2 }; /* every third, two occurrences */
    check_keys(k, n, 2);
}

static void sparse_and_extreme_seqs_move_the_group_to_the_table(void **state) {
    key k[] = { { 0, 5, 0 },
                { 0, 6, 0 },
                { 0, 7, 0 },
                { 0, 1000000000, 0 },
                { 0, 8, 0 },
                { 0, -3, 0 },
                { 1, INT64_MAX, 0 },
                { 1, INT64_MIN, 0 },
                { 1, 0, 0 },
                { 1, 1, 0 },
                { 2, -5, 0 },
                { 2, -4, 0 },
                { 2, ((int64_t)1 << 62) + 7, 0 },
                { 2, -6, 0 },
                { 2, -4, 1 },
                { 3, 0, 0 },
                { 3, 100000, 0 },
                { 3, 200000, 0 },
                { 3, 1, 0 } };
    check_keys(k, sizeof k / sizeof k[0], 4);
}

static void many_groups_and_repeats(void **state) {
    enum { N = 4000 };
    key *k = calloc(N, sizeof *k);
    uint64_t x = 12345;
    for (size_t i = 0; i < N; i++) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        uint32_t g = (uint32_t)(x >> 60);               /* 16 groups */
        int64_t s = (int64_t)((x >> 20) % 600);         /* dense-ish, repeated */
        uint32_t occ = (x >> 8) % 16 == 0 ? 1 : 0;      /* some second occurrences */
        if ((x >> 4) % 997 == 0) s = (int64_t)(x >> 3); /* now and then far away */
        k[i] = (key){ g, s, occ };
    }
    check_keys(k, N, 16);
    free(k);
}

static void groups_beyond_the_array_use_the_table(void **state) {
    key k[] = { { 7, 1, 0 }, { 7, 2, 0 }, { 9, 1, 0 }, { 7, 1, 1 } };
    check_keys(k, sizeof k / sizeof k[0], 2); /* groups 7 and 9 are past the 2 windows */
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(dense_seqs_in_both_directions),
        cmocka_unit_test(sparse_and_extreme_seqs_move_the_group_to_the_table),
        cmocka_unit_test(many_groups_and_repeats),
        cmocka_unit_test(groups_beyond_the_array_use_the_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
