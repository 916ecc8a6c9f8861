/* test_stragglers.c — which ranks perf.c names where two causes meet: a node whose clock reads
 * ahead by just more than a group's completions show is no straggler. Small jobs (timed_job.h),
 * analyzed whole, asserting the names. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "timed_job.h"

enum { STEPS = 12 };

/* Ranks 2 and 3 (a node) read 115 ms ahead, on time everywhere. In group 0 of ranks 0-3 their
 * completions read only 85 ms after the lower median's (ranks 0 and 1 notice ends 10 and
 * 30 ms late, 2 and 3 at once): under the 100 ms a window corrects (clocks.h), so their arrivals
 * there seem 115 ms late. Their four groups with ranks 4 and 5 show the whole offset, and the
 * job's (rank_clocks.h) accounts for that lateness: nobody is named (seed 9166). */
static void a_node_ahead_by_little_more_than_the_minimum_is_no_straggler(void **state) {
    (void)state;
    timed_job *j = calloc(1, sizeof *j);
    assert_non_null(j);
    j->world = 6;
    j->no_durations = 1;
    tj_group(j, (const int[]){ 0, 1, 2, 3, -1 });
    tj_group(j, (const int[]){ 2, 4, -1 });
    tj_group(j, (const int[]){ 3, 5, -1 });
    tj_group(j, (const int[]){ 0, 1, 4, 5, -1 });
    tj_group(j, (const int[]){ 2, 5, -1 });
    tj_group(j, (const int[]){ 3, 4, -1 });
    j->clock_ms[2] = j->clock_ms[3] = 115.0;
    for (int s = 0; s < STEPS; s++) {
        double t = s * 100.0;
        tj_call(j, 0, 0, t, t + 11);
        tj_call(j, 1, 0, t, t + 31);
        tj_call(j, 2, 0, t, t + 1);
        tj_call(j, 3, 0, t, t + 1);
        tj_call(j, 2, 1, t + 40, t + 41);
        tj_call(j, 4, 1, t + 40, t + 41);
        tj_call(j, 3, 2, t + 40, t + 41);
        tj_call(j, 5, 2, t + 40, t + 41);
        for (int r = 0; r < 6; r++)
            if (r != 2 && r != 3) tj_call(j, r, 3, t + 60, t + 61);
        tj_call(j, 2, 4, t + 80, t + 81);
        tj_call(j, 5, 4, t + 80, t + 81);
        tj_call(j, 3, 5, t + 80, t + 81);
        tj_call(j, 4, 5, t + 80, t + 81);
    }
    tj_run(j);
    assert_int_equal(j->a.perf.nstragglers, 0);
    tj_done(j);
    free(j);
}

/* gloo, rank 0 pairs in group 0 with rank 1, which left no dump, then meets ranks 2 and 3 in
 * group 1 76 ms later each step, after them by 75 ms. Group 0's call blocks until its end, which
 * rank 1 (no record of it) may have made as late as rank 0's next call: the dumps show no delay
 * of rank 0's own, and a slow rank 1 would look just so. Nobody is named (seed 12044). */
static void
a_gloo_rank_alone_in_an_op_beside_a_member_without_a_record_is_no_straggler(void **state) {
    (void)state;
    timed_job *j = calloc(1, sizeof *j);
    assert_non_null(j);
    j->world = 4;
    j->gloo = 1;
    j->no_dump[1] = 1;
    tj_group(j, (const int[]){ 0, 1, -1 });
    tj_group(j, (const int[]){ 0, 2, 3, -1 });
    for (int s = 0; s < STEPS; s++) {
        double t = s * 100.0;
        tj_call(j, 0, 0, t, 0);
        tj_call(j, 0, 1, t + 76, 0);
        tj_call(j, 2, 1, t + 1, 0);
        tj_call(j, 3, 1, t + 1.2, 0);
    }
    tj_run(j);
    assert_int_equal(j->a.perf.nstragglers, 0);
    tj_done(j);
    free(j);
}

/* Rank 0 waits 3 ms (below the floor) in group 0 for rank 1, issues a call in group 2 before
 * that end, and comes to group 1 4 ms after it, 6.5 ms after ranks 2 and 3, having paused 6.8 ms
 * before it where they took 0.2 ms from their previous call: held at its bound of launches in
 * flight until that end, as far as the dumps show, and every step since the end is below the
 * floor: jitter, no pause of its own. Nobody is named (seed 11111). */
static void a_step_across_an_end_it_waited_in_is_not_its_own_pause(void **state) {
    (void)state;
    timed_job *j = calloc(1, sizeof *j);
    assert_non_null(j);
    j->world = 5;
    tj_group(j, (const int[]){ 0, 1, -1 });
    tj_group(j, (const int[]){ 0, 2, 3, -1 });
    tj_group(j, (const int[]){ 0, 4, -1 });
    tj_group(j, (const int[]){ 2, 3, -1 });
    for (int s = 0; s < STEPS; s++) {
        double t = s * 100.0;
        tj_call(j, 2, 3, t + 0.3, t + 0.4);
        tj_call(j, 3, 3, t + 0.3, t + 0.4);
        tj_call(j, 0, 0, t, t + 3.05);
        tj_call(j, 1, 0, t + 3, t + 3.05);
        tj_call(j, 0, 2, t + 0.2, t + 3.2);
        tj_call(j, 4, 2, t + 0.1, t + 3.2);
        tj_call(j, 0, 1, t + 7, t + 7.1);
        tj_call(j, 2, 1, t + 0.5, t + 7.1);
        tj_call(j, 3, 1, t + 0.5, t + 7.1);
    }
    tj_run(j);
    assert_int_equal(j->a.perf.nstragglers, 0);
    tj_done(j);
    free(j);
}

/* Two ranks, rank 1 60 ms late at each of `launches` coalesced groups of an all_reduce and a
 * broadcast whose end markers are not shown (each member an op of its own at the group's seq
 * id, as an only-active dump leaves them). */
static void coalesced_late(timed_job *j, int launches) {
    j->world = 2;
    tj_group(j, (const int[]){ 0, 1, -1 });
    for (int s = 0; s < launches; s++) {
        double t = s * 100.0;
        for (int member = 0; member < 2; member++) {
            j->same_launch = member;
            j->op = member ? "nccl:broadcast" : NULL;
            tj_call(j, 0, 0, t + member, t + 61 + member);
            tj_call(j, 1, 0, t + 60 + member, t + 61 + member);
        }
    }
    j->same_launch = 0;
    j->op = NULL;
    tj_run(j);
}

/* The members of one coalesced group arrive together: one measurement, not one per entry. Four
 * launches (eight entries) are fewer than FA_STRAGGLER_MIN_JUDGED collectives: nobody is named
 * (sim seed 15296: a 2-rank job read as eight collectives); six are enough, and name rank 1. */
static void a_coalesced_group_is_judged_once(void **state) {
    (void)state;
    timed_job *j = calloc(1, sizeof *j);
    assert_non_null(j);
    coalesced_late(j, 4);
    assert_int_equal(j->a.perf.judged, 4);
    assert_int_equal(j->a.perf.nstragglers, 0);
    tj_done(j);
    memset(j, 0, sizeof *j);
    coalesced_late(j, 6);
    assert_int_equal(j->a.perf.judged, 6);
    assert_int_equal(j->a.perf.nstragglers, 1);
    assert_int_equal(j->a.perf.stragglers[0].rank, 1);
    tj_done(j);
    free(j);
}

/* Four pairs; rank 1 arrives 11 ms after its partner in every other step, on time in the rest:
 * its mean lateness, 5.5 ms, reaches the floor, and nobody else is ever late, but a rank late by
 * a little in half of its collectives is what roughly corrected clocks leave (a group of two
 * cannot tell its pair's offset from its lateness): no straggler (tests/sim seed 5544). Late by
 * 40 ms in 5 of 12, as a slow rank that is seldom last, rank 5 is named. */
static void late_by_little_in_half_is_no_straggler_late_by_much_is(void **state) {
    (void)state;
    timed_job *j = calloc(1, sizeof *j);
    assert_non_null(j);
    j->world = 8;
    j->no_durations = 1;
    for (int g = 0; g < 4; g++) tj_group(j, (const int[]){ 2 * g, 2 * g + 1, -1 });
    for (int s = 0; s < STEPS; s++) {
        double t = s * 100.0, late1 = s % 2 ? 11.0 : 0.0, late5 = s % 12 < 5 ? 40.0 : 0.0;
        for (int r = 0; r < 8; r++) {
            double arrive = t + (r == 1 ? late1 : r == 5 ? late5 : 0.0);
            double end = t + 1 + (r / 2 == 0 ? late1 : r / 2 == 2 ? late5 : 0.0);
            tj_call(j, r, r / 2, arrive, end);
        }
    }
    tj_run(j);
    assert_int_equal(j->a.perf.nstragglers, 1);
    assert_int_equal(j->a.perf.stragglers[0].rank, 5);
    tj_done(j);
    free(j);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_node_ahead_by_little_more_than_the_minimum_is_no_straggler),
        cmocka_unit_test(
            a_gloo_rank_alone_in_an_op_beside_a_member_without_a_record_is_no_straggler),
        cmocka_unit_test(a_step_across_an_end_it_waited_in_is_not_its_own_pause),
        cmocka_unit_test(a_coalesced_group_is_judged_once),
        cmocka_unit_test(late_by_little_in_half_is_no_straggler_late_by_much_is),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
