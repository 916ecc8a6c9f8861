/* test_value.c — the value type: construction, dict semantics, aliasing and tree weight. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "value.h"

static void a_dict_keeps_insertion_order_and_replaces_equal_keys(void **state) {
    fv_arena *a = fv_arena_new();
    fv *d = fv_dict(a);
    assert_true(fv_dict_set(a, d, fv_cstr(a, "b"), fv_int(a, 1)));
    assert_true(fv_dict_set(a, d, fv_cstr(a, "a"), fv_int(a, 2)));
    assert_true(fv_dict_set(a, d, fv_cstr(a, "b"), fv_int(a, 3)));
    assert_int_equal(d->len, 2);
    assert_string_equal(fv_dict_key(d, 0)->u.s, "b");
    assert_int_equal(fv_dict_get(d, "b")->u.i, 3);
    assert_int_equal(fv_dict_get(d, "a")->u.i, 2);
    assert_null(fv_dict_get(d, "c"));
    fv_arena_free(a);
}

static void numeric_keys_follow_python_equality(void **state) {
    fv_arena *a = fv_arena_new();
    fv *d = fv_dict(a);
    fv_dict_set(a, d, fv_int(a, 1), fv_cstr(a, "int"));
    fv_dict_set(a, d, fv_bool(a, true), fv_cstr(a, "bool"));
    fv_dict_set(a, d, fv_float(a, 1.0), fv_cstr(a, "float"));
    assert_int_equal(d->len, 1);
    assert_int_equal(fv_dict_key(d, 0)->kind, FV_INT);
    assert_string_equal(fv_dict_value(d, 0)->u.s, "float");
    fv_arena_free(a);
}

static void a_large_dict_stays_correct_past_the_linear_limit(void **state) {
    fv_arena *a = fv_arena_new();
    fv *d = fv_dict(a);
    char key[32];
    for (int round = 0; round < 2; round++)
        for (int i = 0; i < 20000; i++) {
            snprintf(key, sizeof key, "k%d", i);
            assert_true(fv_dict_set(a, d, fv_cstr(a, key), fv_int(a, i + round * 100000)));
        }
    assert_int_equal(d->len, 20000);
    assert_int_equal(fv_dict_get(d, "k19999")->u.i, 119999);
    assert_string_equal(fv_dict_key(d, 5)->u.s, "k5");
    fv_arena_free(a);
}

static void weight_counts_every_appearance_of_a_shared_node(void **state) {
    fv_arena *a = fv_arena_new();
    fv *leaf = fv_list(a);
    fv *level = leaf;
    for (int i = 0; i < 80; i++) { /* 2^80 appearances: must be refused, quickly */
        fv *up = fv_list(a);
        fv_seq_push(a, up, level);
        fv_seq_push(a, up, level);
        level = up;
    }
    assert_int_equal(fv_tree_weight(level, 1u << 20), UINT64_MAX);
    fv *small = fv_list(a);
    fv_seq_push(a, small, fv_cstr(a, "abc"));
    fv_seq_push(a, small, fv_int(a, 7));
    assert_int_equal(fv_tree_weight(small, 1000), 2 + 5 + 8);
    fv_arena_free(a);
}

static void weight_refuses_a_cycle(void **state) {
    fv_arena *a = fv_arena_new();
    fv *l = fv_list(a);
    fv_seq_push(a, l, fv_int(a, 1));
    fv_seq_push(a, l, l);
    assert_int_equal(fv_tree_weight(l, UINT64_MAX / 4), UINT64_MAX);
    fv_arena_free(a);
}

static void the_arena_limit_is_enforced(void **state) {
    fv_arena *a = fv_arena_new();
    fv_arena_set_limit(a, 4096);
    int made = 0;
    while (fv_int(a, made)) made++;
    assert_in_range(made, 10, 4096 / 16);
    fv_arena_free(a);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_dict_keeps_insertion_order_and_replaces_equal_keys),
        cmocka_unit_test(numeric_keys_follow_python_equality),
        cmocka_unit_test(a_large_dict_stays_correct_past_the_linear_limit),
        cmocka_unit_test(weight_counts_every_appearance_of_a_shared_node),
        cmocka_unit_test(weight_refuses_a_cycle),
        cmocka_unit_test(the_arena_limit_is_enforced),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
