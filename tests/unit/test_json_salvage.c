/* test_json_salvage.c — where a JSON text cut short can be cut again so that it parses
 * (json_salvage.h): before a ',' at any depth, after an opening bracket, never in a text whose
 * brackets do not match (that is damage, not truncation). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "json_salvage.h"

/* text cuts at `keep` characters and closes with `closers`. */
static void cuts_to(const char *text, size_t keep, const char *closers) {
    json_cut cut = { 0 };
    assert_true(json_truncation_cut(text, strlen(text), 64, &cut));
    assert_int_equal(cut.at, keep);
    assert_int_equal(cut.nclosers, strlen(closers));
    assert_memory_equal(cut.closers, closers, strlen(closers));
    free(cut.closers);
}

static void no_cut(const char *text) {
    json_cut cut = { 0 };
    assert_false(json_truncation_cut(text, strlen(text), 64, &cut));
}

static void the_last_whole_value_at_any_depth(void **state) {
    (void)state;
    cuts_to("{\"a\": 1, \"b\": 2", strlen("{\"a\": 1"), "}"); /* a top-level key kept */
    cuts_to("{\"a\": 1, \"b\": [1, 2", strlen("{\"a\": 1, \"b\": [1"), "]}");
    cuts_to("{\"a\": [1, 2], \"b\": \"cut in a str", strlen("{\"a\": [1, 2]"), "}");
    cuts_to("[{\"x\": 1}, {\"x\"", strlen("[{\"x\": 1}, {"), "}]");
}

static void whole_or_damaged_texts_are_no_truncation(void **state) {
    (void)state;
    no_cut("{\"a\": [1, 2]}");
    no_cut("{\"a\": [1}, \"b\": [2"); /* a '}' closing a '[': damage */
    no_cut("{\"a\": {\"b\": [1]], \"c\": [");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_last_whole_value_at_any_depth),
        cmocka_unit_test(whole_or_damaged_texts_are_no_truncation),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
