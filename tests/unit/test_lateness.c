/* test_lateness.c — a group's walk (lateness.h) told as small jobs: how late each member arrived
 * at each collective, and which delay is its own.
 *
 * Each case writes a few ranks' dumps (timed_job.h: every entry's arrival and completion) and
 * analyzes them for the input, groups and match, then builds what perf.c builds before its walks
 * (readiness, held, clock noise; no releases: the cap studied here is the gap's) and walks one
 * group with fa_group_lateness, keeping each judged op's lateness per member. Times are given in
 * ms.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>

#include "perf/lateness.h"
#include "perf/perf.h"
#include "timed_job.h"

enum { WORLD = 4, MAX_OPS = 8 };

typedef struct job {
    timed_job tj;
    double late[MAX_OPS][WORLD]; /* per judged op of the walked group, by member; NaN unjudged */
    size_t nwalked;
} job;

/* Group 0 of ranks 0-2 and group 1 of ranks 2 and 3 (rank 2 belongs to both). */
static job *job_new(void) {
    job *j = calloc(1, sizeof *j);
    assert_non_null(j);
    j->tj.world = WORLD;
    tj_group(&j->tj, (const int[]){ 0, 1, 2, -1 });
    tj_group(&j->tj, (const int[]){ 2, 3, -1 });
    return j;
}

static void call(job *j, int rank, int g, double arrival, double done) {
    tj_call(&j->tj, rank, g, arrival, done);
}

static int record_late(void *arg, const fa_op_times *t) {
    job *j = arg;
    if (j->nwalked >= MAX_OPS) return -1;
    double *late = j->late[j->nwalked++];
    for (int i = 0; i < WORLD; i++) late[i] = NAN;
    for (uint32_t i = 0; i < t->n && t->judged; i++) late[t->member[i]] = t->late[i];
    return 0;
}

/* Writes the dumps, analyzes them and walks group 0. */
static void run(job *j) {
    tj_run(&j->tj);
    fa_analysis *a = &j->tj.a;
    const fa_match *m = &a->match;
    uint32_t gi = tj_group_index(&j->tj, 0);
    size_t ops[MAX_OPS], nops = 0;
    for (size_t i = 0; i < m->nops && nops < MAX_OPS; i++)
        if (m->ops[i].group == gi) ops[nops++] = i;

    fa_readiness ready;
    fa_held held;
    double floor_ms = FA_STRAGGLER_FLOOR_MS;
    fa_late_env env = {
        &a->in, &a->groups, m, a->verdict.status, floor_ms, &ready, &held, NULL, 0
    };
    fa_late_scratch s;
    assert_int_equal(fa_readiness_build(&a->in, &a->groups, m, (int64_t)(floor_ms * 1e6), &ready),
                     0);
    assert_int_equal(fa_held_build(&a->in, m, floor_ms, 1, &held), 0);
    assert_int_equal(fa_clock_noise(&a->in, m, &env.clock_noise_ms), 0);
    assert_int_equal(fa_late_scratch_init(&s, WORLD), 0);
    assert_int_equal(fa_group_lateness(&env, &s, gi, ops, nops, record_late, j), 0);
    fa_late_scratch_free(&s);
    fa_held_free(&held);
    fa_readiness_free(&ready);
}

static void done(job *j) {
    tj_done(&j->tj);
    free(j);
}

/* Rank 2 comes to group 0's second all_reduce 70 ms after ranks 0 and 1, 10 ms after its call
 * in group 1 ended, as they came 10 ms after theirs: in group 1 it waited 60 ms for rank 3. The
 * delay is rank 3's, carried by rank 2: its lateness is capped by its own gap, none. */
static void a_held_victim_is_late_by_its_own_gap_only(void **state) {
    (void)state;
    job *j = job_new();
    for (int r = 0; r < 3; r++) call(j, r, 0, 0, 10);
    call(j, 2, 1, 20, 80);
    call(j, 3, 1, 70, 80);
    call(j, 0, 0, 20, 100), call(j, 1, 0, 20, 100), call(j, 2, 0, 90, 100);
    call(j, 0, 0, 110, 120), call(j, 1, 0, 110, 120), call(j, 2, 0, 110, 120);
    run(j);
    assert_int_equal(j->nwalked, 3);
    assert_false(isnan(j->late[1][2]));
    assert_float_equal(j->late[1][2], 0.0, 0.5);
    done(j);
}

/* The same arrivals at group 0, but rank 2 is slow: it came 50 ms late to group 0's first
 * all_reduce and 90 ms late to group 1's (rank 3 waited), and its call there ended late because
 * of it. Its short gap since is not the delay it made: nothing held it, and it stays 60 ms late
 * (a victim's cap, applied to a rank that was not held, would clear the slow rank). */
static void a_slow_rank_not_held_keeps_its_lateness(void **state) {
    (void)state;
    job *j = job_new();
    call(j, 0, 0, 0, 60), call(j, 1, 0, 0, 60), call(j, 2, 0, 50, 60);
    call(j, 3, 1, 20, 120);
    call(j, 2, 1, 110, 120);
    call(j, 0, 0, 70, 140), call(j, 1, 0, 70, 140), call(j, 2, 0, 130, 140);
    call(j, 0, 0, 150, 160), call(j, 1, 0, 150, 160), call(j, 2, 0, 150, 160);
    run(j);
    assert_int_equal(j->nwalked, 3);
    assert_float_equal(j->late[0][2], 50.0, 0.5);
    assert_float_equal(j->late[1][2], 60.0, 0.5);
    assert_float_equal(j->late[1][0], 0.0, 0.5);
    done(j);
}

/* Rank 2 waited 60 ms for rank 3 in group 1, then ran group 1's next call with it at once (its
 * gap no longer than rank 3's: it kept up, and waited for nobody), then came to group 0's second
 * all_reduce 80 ms after ranks 0 and 1, 10 ms after that call, as they came 10 ms after theirs.
 * The delay is still rank 3's, carried through a call where rank 2 waited for nobody: held
 * before and kept up is held (held.h), and its lateness is capped by its own gap, none (kills
 * s10). */
static void a_victim_carries_its_wait_through_a_call_it_kept_up_in(void **state) {
    (void)state;
    job *j = job_new();
    for (int r = 0; r < 3; r++) call(j, r, 0, 0, 10);
    call(j, 2, 1, 20, 80);
    call(j, 3, 1, 70, 80);
    call(j, 2, 1, 85, 90);
    call(j, 3, 1, 85, 90);
    call(j, 0, 0, 20, 110), call(j, 1, 0, 20, 110), call(j, 2, 0, 100, 110);
    call(j, 0, 0, 120, 130), call(j, 1, 0, 120, 130), call(j, 2, 0, 120, 130);
    run(j);
    assert_int_equal(j->nwalked, 3);
    assert_false(isnan(j->late[1][2]));
    assert_float_equal(j->late[1][2], 0.0, 0.5);
    done(j);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_held_victim_is_late_by_its_own_gap_only),
        cmocka_unit_test(a_slow_rank_not_held_keeps_its_lateness),
        cmocka_unit_test(a_victim_carries_its_wait_through_a_call_it_kept_up_in),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
