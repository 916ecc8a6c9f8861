/* test_value_fast.c — the value type's fast paths: dict models and signatures, cached string
 * hashes, in-place growth, arena reset and sizing. Each is checked against the plain semantics
 * (a randomized comparison with a naive dict for the dict paths). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "value.h"

/* A naive dict: pairs in insertion order, found by fv_key_equal. */
typedef struct naive {
    fv *k[256], *v[256];
    uint32_t n;
} naive;

static void naive_set(naive *d, fv *k, fv *v) {
    for (uint32_t i = 0; i < d->n; i++)
        if (fv_key_equal(d->k[i], k)) {
            d->v[i] = v;
            return;
        }
    d->k[d->n] = k;
    d->v[d->n++] = v;
}

static void assert_same(const fv *d, const naive *n) {
    assert_int_equal(d->len, n->n);
    for (uint32_t i = 0; i < n->n; i++) {
        assert_ptr_equal(fv_dict_key(d, i), n->k[i]);
        assert_ptr_equal(fv_dict_value(d, i), n->v[i]);
    }
}

/* Many dicts built in one arena from a pool of shared key nodes and equal-valued copies, mostly
 * in one common order (so models are used), sometimes deviating, repeating or duplicating. */
static void dicts_match_a_naive_dict(void **state) {
    fv_arena *a = fv_arena_new();
    enum { POOL = 48 };
    fv *pool[POOL], *copy[POOL];
    char name[32];
    for (int i = 0; i < POOL; i++) {
        if (i % 8 == 7) { /* numeric keys: 1, 1.0 and True are one key */
            pool[i] = fv_int(a, i / 8);
            copy[i] = (i / 8) == 1 ? fv_bool(a, true) : fv_float(a, (double)(i / 8));
        } else {
            snprintf(name, sizeof name, "key_%d", i);
            pool[i] = fv_cstr(a, name);
            copy[i] = fv_cstr(a, name);
        }
    }
    srand(12345);
    naive *ref = calloc(1, sizeof *ref);
    for (int round = 0; round < 3000; round++) {
        fv *d = fv_dict(a);
        memset(ref, 0, sizeof *ref);
        int n = rand() % POOL + 1;
        for (int i = 0; i < n; i++) {
            int r = rand() % 100, at = i;
            if (r < 5) at = rand() % POOL; /* a different key than usual */
            fv *k = pool[at];
            if (r >= 5 && r < 8) k = copy[at];                   /* an equal key, another node */
            if (r >= 8 && r < 10 && i > 0) k = pool[rand() % i]; /* a repeat */
            fv *v = fv_int(a, round * 100 + i);
            assert_true(fv_dict_set(a, d, k, v));
            naive_set(ref, k, v);
        }
        assert_same(d, ref);
        for (uint32_t i = 0; i < ref->n; i++)
            if (fv_is(ref->k[i], FV_STR))
                assert_ptr_equal(fv_dict_get(d, ref->k[i]->u.s), ref->v[i]);
    }
    free(ref);
    fv_arena_free(a);
}

/* Past 32 pairs the dict switches to its index; duplicates are still found. */
static void a_large_dict_finds_duplicates_by_value(void **state) {
    fv_arena *a = fv_arena_new();
    fv *d = fv_dict(a);
    char name[32];
    for (int i = 0; i < 1000; i++) {
        snprintf(name, sizeof name, "k%d", i);
        assert_true(fv_dict_set(a, d, fv_cstr(a, name), fv_int(a, i)));
    }
    for (int i = 0; i < 1000; i += 7) {
        snprintf(name, sizeof name, "k%d", i);
        assert_true(fv_dict_set(a, d, fv_cstr(a, name), fv_int(a, -i)));
    }
    assert_int_equal(d->len, 1000);
    assert_int_equal(fv_dict_get(d, "k0")->u.i, 0);
    assert_int_equal(fv_dict_get(d, "k7")->u.i, -7);
    assert_int_equal(fv_dict_get(d, "k8")->u.i, 8);
    assert_int_equal(fv_dict_get(d, "k994")->u.i, -994);
    fv_arena_free(a);
}

/* A list filled one push at a time grows in place: no abandoned arrays. */
static void a_list_grows_in_place(void **state) {
    fv_arena *a = fv_arena_new();
    fv *items[1024];
    for (int i = 0; i < 1024; i++) items[i] = fv_int(a, i);
    size_t before = fv_arena_used(a);
    fv *l = fv_list(a);
    for (int i = 0; i < 1024; i++) assert_true(fv_seq_push(a, l, items[i]));
    for (int i = 0; i < 1024; i++) assert_ptr_equal(fv_item(l, i), items[i]);
    /* the node plus 1024 pointers, not 4 + 8 + ... + 1024 of them */
    assert_true(fv_arena_used(a) - before <= 1024 * sizeof(fv *) + 64);
    fv_arena_free(a);
}

/* In-place growth respects the limit as any allocation does. */
static void in_place_growth_respects_the_limit(void **state) {
    fv_arena *a = fv_arena_new();
    fv_arena_set_limit(a, 4096);
    fv *l = fv_list(a), *x = fv_none(a);
    int pushed = 0;
    while (fv_seq_push(a, l, x)) pushed++;
    assert_true(pushed > 100);
    assert_true(fv_arena_used(a) <= 4096);
    assert_int_equal(l->len, pushed);
    fv_arena_free(a);
}

/* fv_reserve makes room up front; the dict behaves the same. */
static void reserve_is_only_a_hint(void **state) {
    fv_arena *a = fv_arena_new();
    fv *d = fv_dict(a), *l = fv_list(a);
    assert_true(fv_reserve(a, d, 44));
    assert_true(fv_reserve(a, l, 10));
    assert_true(fv_reserve(a, fv_int(a, 1), 10)); /* not a container: nothing to do */
    char name[16];
    for (int i = 0; i < 22; i++) {
        snprintf(name, sizeof name, "f%d", i);
        assert_true(fv_dict_set(a, d, fv_cstr(a, name), fv_int(a, i)));
        assert_true(fv_seq_push(a, l, fv_int(a, i)));
    }
    assert_int_equal(d->len, 22);
    assert_int_equal(fv_dict_get(d, "f21")->u.i, 21);
    assert_int_equal(l->len, 22);
    fv_arena_free(a);
}

/* Reset forgets everything but keeps memory for reuse; models do not survive it. */
static void reset_reuses_the_arena(void **state) {
    fv_arena *a = fv_arena_new();
    for (int round = 0; round < 5; round++) {
        fv *k = fv_cstr(a, "a"), *d = fv_dict(a);
        for (int i = 0; i < 100000; i++) assert_non_null(fv_int(a, i));
        assert_true(fv_dict_set(a, d, k, fv_int(a, 1)));
        assert_true(fv_dict_set(a, d, fv_cstr(a, "b"), fv_int(a, 2)));
        assert_true(fv_dict_set(a, d, fv_cstr(a, "a"), fv_int(a, 3)));
        assert_int_equal(d->len, 2);
        assert_int_equal(fv_dict_get(d, "a")->u.i, 3);
        assert_true(fv_arena_used(a) > 100000 * sizeof(fv));
        fv_arena_reset(a);
        assert_int_equal(fv_arena_used(a), 0);
        assert_true(fv_arena_held(a) <= (size_t)17 << 20);
    }
    fv_arena_free(a);
}

/* A small arena holds little; a large request gets its own chunk and the current one keeps
 * serving small ones. */
static void a_sized_arena_starts_small(void **state) {
    fv_arena *a = fv_arena_new_sized(4096);
    assert_non_null(fv_none(a));
    assert_true(fv_arena_held(a) < 8192);
    void *big = fv_arena_alloc(a, 100000);
    assert_non_null(big);
    memset(big, 1, 100000);
    size_t held = fv_arena_held(a);
    assert_true(held < 100000 + 8192);
    for (int i = 0; i < 50; i++) assert_non_null(fv_none(a)); /* fits the first chunk */
    assert_int_equal(fv_arena_held(a), held);
    fv_arena_free(a);
}

/* A string's cached hash is the hash of its bytes: equal strings made apart are one key. */
static void equal_strings_are_one_key_whatever_their_history(void **state) {
    fv_arena *a = fv_arena_new();
    fv *d1 = fv_dict(a), *d2 = fv_dict(a);
    fv *k = fv_cstr(a, "a_rather_long_key_name_of_40_bytes_or_so");
    assert_true(fv_dict_set(a, d1, k, fv_int(a, 1)));
    for (int i = 0; i < 40; i++) {
        char name[16];
        snprintf(name, sizeof name, "p%d", i);
        assert_true(fv_dict_set(a, d2, fv_cstr(a, name), fv_int(a, i)));
    }
    assert_true(fv_dict_set(a, d2, k, fv_int(a, 2)));
    assert_true(
        fv_dict_set(a, d2, fv_cstr(a, "a_rather_long_key_name_of_40_bytes_or_so"), fv_int(a, 3)));
    assert_int_equal(d2->len, 41);
    assert_int_equal(fv_dict_get(d2, "a_rather_long_key_name_of_40_bytes_or_so")->u.i, 3);
    fv_arena_free(a);
}

/* SETITEMS's batch: pairs in order, duplicates replace, an unhashable key stops it, and the
 * item array ends no larger than one-at-a-time insertion would leave it. */
static void dict_update_is_dict_set_in_a_row(void **state) {
    fv_arena *a = fv_arena_new();
    fv *k[4] = { fv_cstr(a, "a"), fv_cstr(a, "b"), fv_cstr(a, "a"), fv_int(a, 7) };
    fv *items[8] = {
        k[0], fv_int(a, 1), k[1], fv_int(a, 2), k[2], fv_int(a, 3), k[3], fv_int(a, 4)
    };
    fv *d = fv_dict(a);
    bool failed;
    assert_int_equal(fv_dict_update(a, d, items, 4, &failed), 4);
    assert_false(failed);
    assert_int_equal(d->len, 3);
    assert_int_equal(fv_dict_get(d, "a")->u.i, 3);
    assert_true(d->u.seq.cap <= 8); /* what three fv_dict_set calls leave: 4 -> 8 slots */
    fv *bad[6] = { fv_cstr(a, "c"), fv_int(a, 5),    fv_list(a),
                   fv_int(a, 6),    fv_cstr(a, "d"), fv_int(a, 7) };
    assert_int_equal(fv_dict_update(a, d, bad, 3, &failed), 1); /* stops before the list key */
    assert_false(failed);
    assert_int_equal(d->len, 4);
    assert_null(fv_dict_get(d, "d"));
    assert_int_equal(fv_dict_update(a, fv_list(a), items, 1, &failed), 0);
    assert_true(failed);
    /* entry-like dicts in a row: the same key nodes, a model each time */
    fv *keys[22], *pairs[44];
    char name[32];
    for (int i = 0; i < 22; i++) {
        snprintf(name, sizeof name, "field_%d", i);
        keys[i] = fv_cstr(a, name);
    }
    for (int e = 0; e < 100; e++) {
        for (int i = 0; i < 22; i++)
            pairs[2 * i] = keys[i], pairs[2 * i + 1] = fv_int(a, 1000 + e * 22 + i);
        if (e % 10 == 3) pairs[2 * 5] = keys[4]; /* a duplicate now and then */
        fv *x = fv_dict(a);
        assert_int_equal(fv_dict_update(a, x, pairs, 22, &failed), 22);
        assert_int_equal(x->len, e % 10 == 3 ? 21 : 22);
        assert_int_equal(fv_dict_get(x, "field_4")->u.i, 1000 + e * 22 + (e % 10 == 3 ? 5 : 4));
        assert_int_equal(fv_dict_get(x, "field_21")->u.i, 1000 + e * 22 + 21);
    }
    fv_arena_free(a);
}

static void seq_extend_appends_all_or_nothing(void **state) {
    fv_arena *a = fv_arena_new();
    fv *l = fv_list(a), *items[3] = { fv_int(a, 1), fv_int(a, 2), fv_int(a, 3) };
    assert_true(fv_seq_extend(a, l, items, 3));
    assert_true(fv_seq_extend(a, l, items, 0));
    assert_true(fv_seq_extend(a, l, items, 2));
    assert_int_equal(l->len, 5);
    assert_int_equal(fv_item(l, 4)->u.i, 2);
    fv *with_null[2] = { items[0], NULL };
    assert_false(fv_seq_extend(a, l, with_null, 2));
    assert_int_equal(l->len, 5);
    assert_false(fv_seq_extend(a, fv_dict(a), items, 1));
    fv_arena_free(a);
}

/* None, booleans and 0..255 are shared; other scalars are not; values are unchanged. */
static void small_scalars_are_shared(void **state) {
    fv_arena *a = fv_arena_new();
    assert_ptr_equal(fv_none(a), fv_none(a));
    assert_ptr_equal(fv_bool(a, true), fv_bool(a, true));
    assert_true(fv_bool(a, true) != fv_bool(a, false));
    assert_true(fv_bool(a, true)->u.b && !fv_bool(a, false)->u.b);
    assert_ptr_equal(fv_int(a, 0), fv_int(a, 0));
    assert_ptr_equal(fv_int(a, 255), fv_int(a, 255));
    assert_true(fv_int(a, 256) != fv_int(a, 256));
    assert_true(fv_int(a, -1) != fv_int(a, -1));
    assert_int_equal(fv_int(a, 200)->u.i, 200);
    assert_int_equal(fv_int(a, -1)->u.i, -1);
    const size_t *used = fv_arena_used_counter(a);
    size_t before = *used;
    assert_non_null(fv_int(a, 200));
    assert_int_equal(*used, before); /* already made */
    assert_non_null(fv_int(a, 1000));
    assert_int_equal(*used, fv_arena_used(a));
    assert_true(*used > before);
    fv_arena_reset(a);
    assert_int_equal(fv_int(a, 5)->u.i, 5); /* remade after a reset */
    assert_int_equal(fv_none(a)->kind, FV_NONE);
    fv_arena_free(a);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(dicts_match_a_naive_dict),
        cmocka_unit_test(a_large_dict_finds_duplicates_by_value),
        cmocka_unit_test(a_list_grows_in_place),
        cmocka_unit_test(in_place_growth_respects_the_limit),
        cmocka_unit_test(reserve_is_only_a_hint),
        cmocka_unit_test(reset_reuses_the_arena),
        cmocka_unit_test(a_sized_arena_starts_small),
        cmocka_unit_test(equal_strings_are_one_key_whatever_their_history),
        cmocka_unit_test(dict_update_is_dict_set_in_a_row),
        cmocka_unit_test(seq_extend_appends_all_or_nothing),
        cmocka_unit_test(small_scalars_are_shared),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
