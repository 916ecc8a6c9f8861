/* test_release.c — what released a rank before its late arrival (release.h), told as small jobs
 * (timed_job.h) and read from the stragglers perf names: a rank that waited for a slow peer and
 * went on at once is released by that wait's end, also where the peer left no dump and the end
 * is known only to lie between the arrivals' and its first discovery. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>

#include "perf/release.h"
#include "timed_job.h"

enum { WORLD = 3, STEPS = 6 };

/* Group 0 of ranks 0 and 2, group 1 of ranks 0 and 1. Each step rank 2 comes 50 ms late to
 * their all_reduce in group 0; rank 0 waits there (it notices the end `lag` ms after it), then
 * syncs and meets rank 1 in group 1, 40 ms after rank 1 came. */
static void slow_peer(timed_job *j, int slow_has_dump, double lag) {
    memset(j, 0, sizeof *j);
    j->world = WORLD;
    tj_group(j, (const int[]){ 0, 2, -1 });
    tj_group(j, (const int[]){ 0, 1, -1 });
    j->no_dump[2] = !slow_has_dump;
    for (int s = 0; s < STEPS; s++) {
        double t = s * 100.0;
        tj_call(j, 0, 0, t, t + 51 + lag);
        tj_call(j, 2, 0, t + 50, t + 51 + lag);
        tj_call(j, 1, 1, t + 12, t + 53);
        tj_call(j, 0, 1, t + 52, t + 53);
    }
    tj_run(j);
}

static int named(const timed_job *j, int rank) {
    for (size_t i = 0; i < j->a.perf.nstragglers; i++)
        if (j->a.perf.stragglers[i].rank == rank) return 1;
    return 0;
}

/* With every dump, the slow rank is named and the rank that waited for it is not. */
static void a_victim_released_by_a_known_end_is_not_named(void **state) {
    (void)state;
    timed_job *j = malloc(sizeof *j);
    slow_peer(j, 1, 30);
    assert_true(named(j, 2));
    assert_false(named(j, 0));
    assert_int_equal(j->a.perf.nstragglers, 1);
    tj_done(j);
    free(j);
}

/* Without the slow rank's dump its arrival is unknown: the end rank 0 waited for may have come
 * as late as rank 0 noticed it, which it did after going on. Nobody is named. */
static void a_victim_of_a_rank_without_a_dump_is_not_named(void **state) {
    (void)state;
    timed_job *j = malloc(sizeof *j);
    slow_peer(j, 0, 30);
    assert_int_equal(j->a.perf.nstragglers, 0);
    tj_done(j);
    free(j);
}

/* Rank 0 sends to rank 2, which left no dump, each step; rank 2 takes the send 50 ms late, and
 * rank 0, which waits for it (a send is as far as its bound of launches goes), then meets rank 1
 * in group 1, 40 ms after rank 1 came. No op holds the sends (their peer shows none): their ends
 * lie between rank 0's arrival and its discovery, and may have released it. Nobody is named. */
static void a_victim_of_a_send_to_a_rank_without_a_dump_is_not_named(void **state) {
    (void)state;
    timed_job *j = calloc(1, sizeof *j);
    j->world = WORLD;
    tj_group(j, (const int[]){ 0, 2, -1 });
    tj_group(j, (const int[]){ 0, 1, -1 });
    j->no_dump[2] = 1;
    for (int s = 0; s < STEPS; s++) {
        double t = s * 100.0;
        tj_send(j, 0, 0, 1, t, t + 81);
        tj_call(j, 1, 1, t + 12, t + 53);
        tj_call(j, 0, 1, t + 52, t + 53);
    }
    tj_run(j);
    assert_int_equal(j->a.perf.nstragglers, 0);
    tj_done(j);
    free(j);
}

/* The call of `rank` whose first entry is entry e of its dump, asserted found. */
static const fa_call *call_at_entry(const timed_job *j, int rank, uint32_t e) {
    const fa_match *m = &j->a.match;
    for (size_t ci = 0; ci < m->ncalls; ci++) {
        const fa_call *c = &m->calls[ci];
        if (j->a.in.ranks[c->rank_index].rank == rank && fa_call_entry_index(m, c, 0) == e)
            return c;
    }
    fail_msg("no call of rank %d at entry %u", rank, e);
    return NULL;
}

/* Whether entry e of `rank` is held by no op. */
static int no_call_at(const timed_job *j, int rank, uint32_t e) {
    const fa_match *m = &j->a.match;
    for (size_t ci = 0; ci < m->ncalls; ci++) {
        const fa_call *c = &m->calls[ci];
        if (j->a.in.ranks[c->rank_index].rank != rank) continue;
        for (uint32_t k = 0; k < fa_call_nentries(m, c); k++)
            if (fa_call_entry_index(m, c, k) == e) return 0;
    }
    return 1;
}

/* slow_peer, but rank 2's dump was taken before it noticed the last all_reduce's end (its entry
 * still "started"): rank 0's dump shows it completed, so every member started it, and its end
 * (rank 2's arrival) released rank 0 before its last call in group 1. Taking the pending entry
 * as hiding the end would fall back to the step before's. */
static void an_older_dumps_pending_entry_hides_no_completion(void **state) {
    (void)state;
    timed_job *j = calloc(1, sizeof *j);
    j->world = WORLD;
    tj_group(j, (const int[]){ 0, 2, -1 });
    tj_group(j, (const int[]){ 0, 1, -1 });
    for (int s = 0; s < STEPS; s++) {
        double t = s * 100.0;
        tj_call(j, 0, 0, t, t + 81);
        tj_call(j, 2, 0, t + 50, s + 1 < STEPS ? t + 81 : 0);
        tj_call(j, 1, 1, t + 12, t + 53);
        tj_call(j, 0, 1, t + 52, t + 53);
    }
    tj_run(j);
    fa_release rl;
    assert_int_equal(fa_release_build(&j->a.in, &j->a.groups, &j->a.match, 5.0, &rl), 0);
    const fa_call *last = call_at_entry(j, 0, 2 * STEPS - 1);
    double t = (STEPS - 1) * 100.0;
    assert_true(fa_release_ns(&rl, &j->a.match, last) >= tj_ns(j, 0, t + 50));
    assert_true(fa_release_ns(&rl, &j->a.match, last) <= tj_ns(j, 0, t + 52));
    fa_release_free(&rl);
    tj_done(j);
    free(j);
}

/* Rank 0 waits in an all_reduce of group 0 for rank 1, 59 ms late; meanwhile it issues a send to
 * rank 2, then, just after the end, another, having paused longer than its usual step: held at
 * its bound of launches in flight until that end. Rank 2's dump holds no recv of them (its
 * window no longer does): no op holds the sends, and the pause is judged on the rank's usual
 * step. The end released rank 0 before its late all_reduce in group 1. */
static void a_pause_at_an_entry_no_op_holds_shows_a_release(void **state) {
    (void)state;
    timed_job *j = calloc(1, sizeof *j);
    j->world = WORLD;
    tj_group(j, (const int[]){ 0, 1, -1 });
    tj_group(j, (const int[]){ 0, 2, -1 });
    for (int s = 0; s < STEPS; s++) {
        double t = s * 100.0;
        tj_call(j, 0, 0, t, t + 60);
        tj_call(j, 1, 0, t + 59, t + 60);
        tj_send(j, 0, 1, 1, t + 1, t + 2);
        tj_send(j, 0, 1, 1, t + 62, t + 63);
        tj_call(j, 2, 1, t + 20, t + 65);
        tj_call(j, 0, 1, t + 64, t + 65);
    }
    tj_run(j);
    assert_true(no_call_at(j, 0, 4 * STEPS - 2));
    fa_release rl;
    assert_int_equal(fa_release_build(&j->a.in, &j->a.groups, &j->a.match, 5.0, &rl), 0);
    const fa_call *last = call_at_entry(j, 0, 4 * STEPS - 1);
    double t = (STEPS - 1) * 100.0;
    assert_true(fa_release_ns(&rl, &j->a.match, last) >= tj_ns(j, 0, t + 59));
    fa_release_free(&rl);
    tj_done(j);
    free(j);
}

/* Group 0 of ranks 0 and 2, group 1 of ranks 0 and 1. Each step rank 0 waits 4 ms for rank 2 in
 * group 0, less than the floor, issues nothing until that ends (a sync point), then takes `own`
 * ms itself before it meets rank 1 in group 1, which came at once. */
static void short_wait(timed_job *j, double own) {
    memset(j, 0, sizeof *j);
    j->world = WORLD;
    tj_group(j, (const int[]){ 0, 2, -1 });
    tj_group(j, (const int[]){ 0, 1, -1 });
    for (int s = 0; s < STEPS; s++) {
        double t = s * 100.0;
        tj_call(j, 0, 0, t, t + 4.2);
        tj_call(j, 2, 0, t + 4, t + 4.2);
        tj_call(j, 1, 1, t + 0.5, t + 4 + own + 0.2);
        tj_call(j, 0, 1, t + 4 + own, t + 4 + own + 0.2);
    }
    tj_run(j);
}

/* The wait below the floor and 3.9 ms of its own make rank 0 7.9 ms late to group 1 at every
 * step; it went on within the floor of the end it waited for, which released it: 3.9 ms of its
 * own, jitter (seeds 2178, 10373). 25 ms of its own, after the same wait, are its own delay (and
 * the end, 25 ms before its next call, is no evidence that it was held): it is named. */
static void a_wait_below_the_floor_at_a_sync_point_releases(void **state) {
    (void)state;
    timed_job *j = malloc(sizeof *j);
    short_wait(j, 3.9);
    assert_int_equal(j->a.perf.nstragglers, 0);
    tj_done(j);
    short_wait(j, 25);
    assert_true(named(j, 0));
    assert_int_equal(j->a.perf.nstragglers, 1);
    tj_done(j);
    free(j);
}

static double late_median(const timed_job *j, int rank) {
    for (size_t i = 0; i < j->a.perf.nstragglers; i++)
        if (j->a.perf.stragglers[i].rank == rank) return j->a.perf.stragglers[i].late_ms_median;
    return 0;
}

/* A slow node, ranks 1 and 2, 40 ms behind at every call, their CPUs running ahead (NCCL): in
 * their own group 1 rank 1 waits for rank 2 by their jitter (0.8 ms), and both meet ranks 0 and
 * 3 in group 2 a slot (10 ms) later. Rank 1's short wait released nothing (it went on 9 ms after
 * the end, on its own cadence): both are named 40 ms late, not the 9 ms since that end (t0600's
 * nccl_slow_node). The last to come, rank 2, waited for nobody: its own arrivals release it
 * from nothing (t0600's single slow rank). */
static void a_slow_node_waiting_for_itself_by_its_jitter_is_not_released(void **state) {
    (void)state;
    timed_job *j = calloc(1, sizeof *j);
    j->world = 4;
    tj_group(j, (const int[]){ 0, 3, -1 });
    tj_group(j, (const int[]){ 1, 2, -1 });
    tj_group(j, (const int[]){ 0, 1, 2, 3, -1 });
    for (int s = 0; s < STEPS; s++) {
        double t = s * 100.0, w = t + 10;
        tj_call(j, 0, 0, t + 0.3, t + 1.2);
        tj_call(j, 3, 0, t + 1, t + 1.2);
        tj_call(j, 1, 1, t + 40, t + 41);
        tj_call(j, 2, 1, t + 40.8, t + 41);
        tj_call(j, 0, 2, w + 0.2, w + 41);
        tj_call(j, 3, 2, w + 0.6, w + 41);
        tj_call(j, 1, 2, w + 40.1, w + 41);
        tj_call(j, 2, 2, w + 40.7, w + 41);
    }
    tj_run(j);
    assert_true(named(j, 1));
    assert_true(named(j, 2));
    assert_int_equal(j->a.perf.nstragglers, 2);
    assert_true(late_median(j, 1) > 30);
    assert_true(late_median(j, 2) > 30);
    tj_done(j);
    free(j);
}

/* Rank 2, 40 ms behind at every call, meets ranks 0 and 1 in three all_reduces 3 ms apart each
 * step; it comes last everywhere, and each of its calls ends at its own arrival. It waited for
 * nobody there: no end of its own releases it (its calls 3 ms apart would clear all but 3 ms of
 * its lateness at two of three). Named 40 ms late (t0600). */
static void the_last_to_come_is_not_released_by_its_own_arrivals(void **state) {
    (void)state;
    timed_job *j = calloc(1, sizeof *j);
    j->world = WORLD;
    j->no_durations = 1; /* a kernel's duration from its start, not from its arrival */
    tj_group(j, (const int[]){ 0, 1, 2, -1 });
    for (int s = 0; s < STEPS; s++) {
        double t = s * 100.0;
        for (int k = 0; k < 3; k++) {
            double at = t + 3 * k;
            tj_call(j, 0, 0, at + 0.3, at + 40.2);
            tj_call(j, 1, 0, at + 0.6, at + 40.2);
            tj_call(j, 2, 0, at + 40, at + 40.2);
        }
    }
    tj_run(j);
    assert_true(named(j, 2));
    assert_int_equal(j->a.perf.nstragglers, 1);
    assert_true(late_median(j, 2) > 30);
    tj_done(j);
    free(j);
}

/* Group 0 of ranks 0-4, where rank 2 comes 20 ms late each step and the others wait for it
 * until the end (a sync point); then ranks 1, 2 and 4 meet in group 1 3.7 ms after that end,
 * and rank 0 meets rank 3 in group 2 `own` ms after it, rank 3 having come at the end. Released
 * by the same end as its peers that waited there (not rank 2, the end's own), rank 0 took 3.8
 * ms more than they did to its next call: no pause, though its step from the end is 7.5 ms
 * (seeds 7332, 8159). 25 ms is one: named. */
static void lead(timed_job *j, double own) {
    memset(j, 0, sizeof *j);
    j->world = 5;
    tj_group(j, (const int[]){ 0, 1, 2, 3, 4, -1 });
    tj_group(j, (const int[]){ 1, 2, 4, -1 });
    tj_group(j, (const int[]){ 0, 3, -1 });
    for (int s = 0; s < STEPS; s++) {
        double t = s * 100.0, end = t + 20;
        tj_call(j, 0, 0, t, end + 0.2);
        tj_call(j, 1, 0, t + 0.4, end + 0.2);
        tj_call(j, 2, 0, end, end + 0.2);
        tj_call(j, 3, 0, t + 0.6, end + 0.2);
        tj_call(j, 4, 0, t + 0.8, end + 0.2);
        tj_call(j, 1, 1, end + 3.7, end + 3.9);
        tj_call(j, 2, 1, end + 3.7, end + 3.9);
        tj_call(j, 4, 1, end + 3.7, end + 3.9);
        tj_call(j, 3, 2, end + 0.1, end + own + 0.2);
        tj_call(j, 0, 2, end + own, end + own + 0.2);
    }
    tj_run(j);
}

static void a_step_from_the_release_counts_less_the_peers_own(void **state) {
    (void)state;
    timed_job *j = malloc(sizeof *j);
    lead(j, 7.5);
    assert_false(named(j, 0));
    assert_true(named(j, 2));
    tj_done(j);
    lead(j, 25);
    assert_true(named(j, 0));
    tj_done(j);
    free(j);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_victim_released_by_a_known_end_is_not_named),
        cmocka_unit_test(a_victim_of_a_rank_without_a_dump_is_not_named),
        cmocka_unit_test(a_victim_of_a_send_to_a_rank_without_a_dump_is_not_named),
        cmocka_unit_test(a_wait_below_the_floor_at_a_sync_point_releases),
        cmocka_unit_test(a_slow_node_waiting_for_itself_by_its_jitter_is_not_released),
        cmocka_unit_test(the_last_to_come_is_not_released_by_its_own_arrivals),
        cmocka_unit_test(a_step_from_the_release_counts_less_the_peers_own),
        cmocka_unit_test(an_older_dumps_pending_entry_hides_no_completion),
        cmocka_unit_test(a_pause_at_an_entry_no_op_holds_shows_a_release),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
