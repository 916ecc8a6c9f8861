/* test_clocks.c — clock offsets from completion times (clocks.h): a member whose clock reads
 * seconds ahead is found at every op (against the op's median: the odd one out is the one
 * corrected; of an even split, the later half), a linear drift is followed, discovery noise below
 * FA_CLOCK_MIN_MS corrects nothing, a slow member (late arrival, the same completion) is no
 * clock, and an op without completions takes its neighbours' offsets; an offset read through
 * discovery noise is uncertain by that noise (the window's or the job's), an exact one by none. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdbool.h>

#include "perf/clocks.h"

enum { N = 4, OPS = 9 };
#define T0 1700000000000000000LL

/* Walks OPS ops of members 0..N-1 whose completions read done(op, member) (ns after T0; -1 none)
 * as a group's walk does: op k's offsets asked once op k + FA_CLOCK_HALF is put. off[k][i], and
 * whether op k is corrected in corrected[k]. */
static void walk(int64_t (*done)(int op, int member), double off[OPS][N], bool corrected[OPS]) {
    fa_clock_ring c;
    assert_int_equal(fa_clock_ring_init(&c, N), 0);
    fa_clock_reset(&c, N);
    uint32_t member[N] = { 0, 1, 2, 3 };
    for (int k = 0; k < OPS + FA_CLOCK_HALF; k++) {
        if (k < OPS) {
            int64_t completed[N];
            for (int i = 0; i < N; i++) {
                int64_t t = done(k, i);
                completed[i] = t >= 0 ? T0 + t : 0;
            }
            fa_clock_put(&c, (size_t)k, N, member, completed);
        }
        int j = k - FA_CLOCK_HALF;
        if (j >= 0) corrected[j] = fa_clock_at(&c, (size_t)j, OPS, N, member, off[j], NULL);
    }
    fa_clock_ring_free(&c);
}

static int64_t ahead_3s(int op, int member) { /* member 2's clock 3 s ahead, microseconds jitter */
    return op * 100000000LL + (member == 2 ? 3000000000LL : 0) + member * 1000;
}

static void a_node_seconds_ahead_is_found(void **state) {
    (void)state;
    double off[OPS][N];
    bool corrected[OPS];
    walk(ahead_3s, off, corrected);
    for (int k = 0; k < OPS; k++) {
        assert_true(corrected[k]);
        assert_float_equal(off[k][2], 3000.0, 0.01); /* ms, against the op's median */
        assert_float_equal(off[k][0], 0.0, 0.01);
    }
}

static int64_t most_ahead(int op, int member) { /* members 1-3 3 s ahead of member 0 */
    return op * 100000000LL + (member ? 3000000000LL : 0);
}

static void offsets_are_against_the_median(void **state) {
    (void)state;
    double off[OPS][N];
    bool corrected[OPS];
    walk(most_ahead, off, corrected);
    for (int k = 0; k < OPS; k++) {
        assert_true(corrected[k]);
        assert_float_equal(off[k][0], -3000.0, 0.01); /* the odd one out is member 0 */
        assert_float_equal(off[k][1], 0.0, 0.01);
    }
}

static int64_t half_ahead(int op, int member) { /* members 2, 3 (one host) 200 ms ahead, jitter */
    return op * 100000000LL + (member >= 2 ? 200000000LL : 0) +
           ((op * 7 + member * 3) % 5) * 1000000;
}

/* Two hosts of a group of four, 200 ms apart: against the lower median the later host reads a
 * clear 200 ms at every op (the mean of the middle two would put each half 100 ms off, at the
 * threshold, corrected at some ops and not at others). */
static void an_even_split_is_read_against_one_half(void **state) {
    (void)state;
    double off[OPS][N];
    bool corrected[OPS];
    walk(half_ahead, off, corrected);
    for (int k = 0; k < OPS; k++) {
        assert_true(corrected[k]);
        assert_true(fabs(off[k][2] - 200.0) < 5 && fabs(off[k][3] - 200.0) < 5);
        assert_true(fabs(off[k][0]) < 5 && fabs(off[k][1]) < 5);
    }
}

static int64_t drifting(int op, int member) { /* member 3 gains 400 ms per op */
    return op * 100000000LL + (member == 3 ? op * 400000000LL : 0);
}

static void a_linear_drift_is_followed(void **state) {
    (void)state;
    double off[OPS][N];
    bool corrected[OPS];
    walk(drifting, off, corrected);
    for (int k = FA_CLOCK_HALF; k + FA_CLOCK_HALF < OPS; k++) { /* whole windows */
        assert_true(corrected[k]);
        assert_float_equal(off[k][3], 400.0 * k, 0.01);
    }
}

static int64_t noisy(int op, int member) { /* the watchdog notices within 100 ms */
    return op * 100000000LL + ((op * 7 + member * 13) % 10) * 10000000LL;
}

static void discovery_noise_corrects_nothing(void **state) {
    (void)state;
    double off[OPS][N];
    bool corrected[OPS];
    walk(noisy, off, corrected);
    for (int k = 0; k < OPS; k++) {
        assert_false(corrected[k]);
        for (int i = 0; i < N; i++) assert_float_equal(off[k][i], 0, 0);
    }
}

static int64_t in_flight_fifth(int op, int member) { /* op 4 has not completed anywhere */
    return op == 4 ? -1 : ahead_3s(op, member);
}

static void an_op_in_flight_takes_its_neighbours_offsets(void **state) {
    (void)state;
    double off[OPS][N];
    bool corrected[OPS];
    walk(in_flight_fifth, off, corrected);
    assert_true(corrected[4]);
    assert_float_equal(off[4][2], 3000.0, 0.01);
}

static int64_t slow_member(int op, int member) { /* member 1 arrives late: all complete after it */
    (void)member;
    return op * 100000000LL + 40000000LL;
}

static void a_slow_member_is_no_clock(void **state) {
    (void)state;
    double off[OPS][N];
    bool corrected[OPS];
    walk(slow_member, off, corrected);
    for (int k = 0; k < OPS; k++) assert_false(corrected[k]);
}

/* Member 2's clock 3 s ahead, everyone's end noticed within 90 ms (the same lag per member at
 * every op, as a watchdog polling in phase would give): its offset may miss by that lag. */
static int64_t ahead_noisy(int op, int member) {
    return ahead_3s(op, member) + member * 30000000LL;
}

static void an_offset_is_as_uncertain_as_the_noise_it_is_read_through(void **state) {
    (void)state;
    fa_clock_ring c;
    assert_int_equal(fa_clock_ring_init(&c, N), 0);
    fa_clock_reset(&c, N);
    uint32_t member[N] = { 0, 1, 2, 3 };
    double off[N], unc[N];
    for (int k = 0; k < OPS; k++) {
        int64_t completed[N];
        for (int i = 0; i < N; i++) completed[i] = T0 + ahead_noisy(k, i);
        fa_clock_put(&c, (size_t)k, N, member, completed);
    }
    assert_true(fa_clock_at(&c, OPS / 2, OPS, N, member, off, unc));
    for (int i = 0; i < N; i++) /* the truth lies within what each may miss */
        assert_true(fabs(off[i] - (i == 2 ? 3000.0 : 0.0)) <= unc[i] + 45.0);
    assert_true(unc[2] >= 90.0); /* the in-step members 0, 1, 3 spread 90 ms */
    c.job_noise_ms = 250.0;      /* the job's noise, where it is more, rules */
    assert_true(fa_clock_at(&c, OPS / 2, OPS, N, member, off, unc));
    for (int i = 0; i < N; i++) assert_float_equal(unc[i], 250.0, 0.01);
    fa_clock_ring_free(&c);
}

static void exact_clocks_leave_nothing_uncertain(void **state) {
    (void)state;
    fa_clock_ring c;
    assert_int_equal(fa_clock_ring_init(&c, N), 0);
    fa_clock_reset(&c, N);
    uint32_t member[N] = { 0, 1, 2, 3 };
    double off[N], unc[N];
    for (int k = 0; k < OPS; k++) {
        int64_t completed[N];
        for (int i = 0; i < N; i++) completed[i] = T0 + ahead_3s(k, i);
        fa_clock_put(&c, (size_t)k, N, member, completed);
    }
    assert_true(fa_clock_at(&c, 0, OPS, N, member, off, unc)); /* the first op: a window too */
    assert_float_equal(off[2], 3000.0, 0.01);
    for (int i = 0; i < N; i++) assert_true(unc[i] < 0.01);
    fa_clock_ring_free(&c);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_node_seconds_ahead_is_found),
        cmocka_unit_test(offsets_are_against_the_median),
        cmocka_unit_test(an_even_split_is_read_against_one_half),
        cmocka_unit_test(a_linear_drift_is_followed),
        cmocka_unit_test(discovery_noise_corrects_nothing),
        cmocka_unit_test(an_op_in_flight_takes_its_neighbours_offsets),
        cmocka_unit_test(a_slow_member_is_no_clock),
        cmocka_unit_test(an_offset_is_as_uncertain_as_the_noise_it_is_read_through),
        cmocka_unit_test(exact_clocks_leave_nothing_uncertain),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
