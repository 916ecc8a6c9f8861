/* test_ranks_text.c — rank sets as the reports write them (ranks.h): ranges, pairs, strided
 * runs of five or more as crontab writes them ("1540-2044/8"), duplicates and order tolerated;
 * the 63 waiting members of a 2 048-rank job's data-parallel group in two runs, not 16 lines. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "ranks.h"

static void formats_as(const int64_t *v, size_t n, const char *want) {
    char *got = fa_ranks_format(v, n);
    assert_non_null(got);
    assert_string_equal(got, want);
    free(got);
}

static void ranges_pairs_and_singles(void **state) {
    (void)state;
    formats_as(NULL, 0, "");
    formats_as((int64_t[]){ 3 }, 1, "3");
    formats_as((int64_t[]){ 0, 1 }, 2, "0,1");
    formats_as((int64_t[]){ 7, 0, 1, 2, 3, 4, 5, 6, 9 }, 9, "0-7,9");
    formats_as((int64_t[]){ 8, 10, 11, 12, 13, 15 }, 6, "8,10-13,15");
    formats_as((int64_t[]){ 2, 2, 1, 1, 0 }, 5, "0-2"); /* duplicates count once */
}

static void strided_runs_of_five_or_more(void **state) {
    (void)state;
    formats_as((int64_t[]){ 0, 2, 4, 6 }, 4, "0,2,4,6"); /* four: still a list */
    formats_as((int64_t[]){ 0, 2, 4, 6, 8 }, 5, "0-8/2");
    formats_as((int64_t[]){ 1, 2, 3, 4, 6, 8, 10, 12, 14 }, 9, "1-4,6-14/2");
    int64_t dp[64];
    size_t n = 0;
    for (int64_t r = 1537; r <= 2041; r += 8)
        if (r != 1657) dp[n++] = r; /* a data-parallel group without its culprit */
    formats_as(dp, n, "1537-1649/8,1665-2041/8");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ranges_pairs_and_singles),
        cmocka_unit_test(strided_runs_of_five_or_more),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
