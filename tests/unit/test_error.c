/* test_error.c — the one way to fill an fr_error (error.h): fr_fail formats and returns -1,
 * fr_fail_prefix puts context in front of a message already there and cuts the end to fit,
 * fr_clear empties it, and all of them accept a NULL error. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "error.h"

static void fail_formats_and_returns_minus_one(void **state) {
    (void)state;
    fr_error err = { "old" };
    assert_int_equal(fr_fail(&err, "bad %s at byte %d", "memo", 7), -1);
    assert_string_equal(err.msg, "bad memo at byte 7");
    fr_clear(&err);
    assert_string_equal(err.msg, "");
    assert_int_equal(fr_fail(NULL, "nothing %d", 1), -1);
    assert_int_equal(fr_fail_prefix(NULL, "x: "), -1);
    fr_clear(NULL);
}

static void prefix_goes_in_front_and_the_end_is_cut(void **state) {
    (void)state;
    fr_error err;
    fr_fail(&err, "bad memo id in GET at byte 0");
    assert_int_equal(fr_fail_prefix(&err, "not a dump: "), -1);
    assert_string_equal(err.msg, "not a dump: bad memo id in GET at byte 0");
    char long_msg[600];
    memset(long_msg, 'a', sizeof long_msg - 1);
    long_msg[sizeof long_msg - 1] = '\0';
    fr_fail(&err, "%s", long_msg);
    fr_fail_prefix(&err, "P: ");
    assert_int_equal(strlen(err.msg), sizeof err.msg - 1);
    assert_memory_equal(err.msg, "P: aaa", 6);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fail_formats_and_returns_minus_one),
        cmocka_unit_test(prefix_goes_in_front_and_the_end_is_cut),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
