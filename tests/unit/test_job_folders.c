/* test_job_folders.c — a directory holding several jobs is told apart before decoding
 * (job_folders.h): the same rank in two folders is two jobs, named with a few folders relative
 * to DIR; ranks spread over node folders are one job; odd entries (a directory named like a
 * dump) do not count. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "load/job_folders.h"

static fa_dir_entry entry(const char *path, int64_t rank, const char *odd) {
    return (fa_dir_entry){ (char *)path, strrchr(path, '/') + 1, rank, 5, odd, odd != NULL };
}

static void the_same_rank_in_two_folders_is_two_jobs(void **state) {
    (void)state;
    fa_dir_entry files[] = {
        entry("runs/a/rank_0", 0, NULL), entry("runs/b/rank_0", 0, NULL),
        entry("runs/c/rank_0", 0, NULL), entry("runs/d/rank_0", 0, NULL),
        entry("runs/a/rank_1", 1, NULL), entry("runs/b/rank_1", 1, NULL),
    };
    char *msg = fa_job_folders_message(files, 6, "runs/");
    assert_non_null(msg);
    assert_string_equal(msg, "runs/ holds the dumps of 4 jobs (rank 0's dump is in 4 folders: a, "
                             "b, c and 1 more): analyze one at a time, e.g. frtrace runs/a");
    free(msg);
}

static void ranks_spread_over_node_folders_are_one_job(void **state) {
    (void)state;
    fa_dir_entry files[] = {
        entry("job/node0/rank_0", 0, NULL),
        entry("job/node0/rank_1", 1, NULL),
        entry("job/node1/rank_2", 2, NULL),
        entry("job/rank_2/x", 2, "a directory"), /* odd: not a second dump of rank 2 */
        entry("job/node1/rank_3", 3, NULL),
    };
    assert_null(fa_job_folders_message(files, 5, "job"));
    fa_dir_entry twice[] = { entry("job/rank_0", 0, NULL), entry("job/rank_0.json", 0, NULL) };
    assert_null(fa_job_folders_message(twice, 2, "job")); /* one folder: the loader's business */
}

static void two_jobs_side_by_side_are_two_jobs(void **state) {
    (void)state; /* each rank's dump twice, once per folder: the smallest run that is two jobs */
    fa_dir_entry files[] = {
        entry("runs/a/rank_0", 0, NULL),
        entry("runs/b/rank_0", 0, NULL),
        entry("runs/a/rank_1", 1, NULL),
        entry("runs/b/rank_1", 1, NULL),
    };
    char *msg = fa_job_folders_message(files, 4, "runs");
    assert_non_null(msg);
    assert_string_equal(msg, "runs holds the dumps of 2 jobs (rank 0's dump is in 2 folders: a, "
                             "b): analyze one at a time, e.g. frtrace runs/a");
    free(msg);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_same_rank_in_two_folders_is_two_jobs),
        cmocka_unit_test(ranks_spread_over_node_folders_are_one_job),
        cmocka_unit_test(two_jobs_side_by_side_are_two_jobs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
