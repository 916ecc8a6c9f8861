/* test_rank_clocks.c — each rank's clock offset over the whole job (rank_clocks.h), from small
 * jobs (timed_job.h): a node whose clock reads ahead is found also where most of its ranks'
 * collectives are within the node (their groups all read alike), offsets are read against the
 * ranks in step (of two hosts alike, the one that reads earlier), and discovery jitter alone
 * corrects nothing. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>

#include "perf/rank_clocks.h"
#include "timed_job.h"

enum { WORLD = 8, STEPS = 6 };

/* Two nodes of four ranks: tensor-parallel pairs within a node (groups 0-3), data-parallel pairs
 * across the nodes (groups 4-7). Each step two collectives within the node and one across, all
 * completing together; each rank notices an end a few ms late (its own jitter). */
static void two_nodes(timed_job *j, double ahead_ms) {
    memset(j, 0, sizeof *j);
    j->world = WORLD;
    for (int g = 0; g < 4; g++) tj_group(j, (const int[]){ 2 * g, 2 * g + 1, -1 });
    for (int g = 0; g < 4; g++) tj_group(j, (const int[]){ g, g + 4, -1 });
    for (int r = 4; r < WORLD; r++) j->clock_ms[r] = ahead_ms;
    for (int s = 0; s < STEPS; s++) {
        double t = s * 100.0;
        for (int r = 0; r < WORLD; r++) {
            double jitter = ((r * 7 + s * 3) % 5) * 2.0;
            tj_call(j, r, r / 2, t, t + 10 + jitter);
            tj_call(j, r, 4 + r % 4, t + 20, t + 40 + jitter);
            tj_call(j, r, r / 2, t + 50, t + 60 + jitter);
        }
    }
    tj_run(j);
}

static void offsets_of(timed_job *j, int64_t *off) {
    assert_int_equal(j->a.in.nranks, WORLD);
    assert_int_equal(fa_rank_offsets(&j->a.in, &j->a.groups, &j->a.match, off), 0);
}

/* off by input rank: the input ranks are read in file order; map to global ranks */
static double offset_ms(const timed_job *j, const int64_t *off, int rank) {
    for (size_t i = 0; i < j->a.in.nranks; i++)
        if (j->a.in.ranks[i].rank == rank) return (double)off[i] / 1e6;
    fail_msg("rank %d not read", rank);
    return 0;
}

static void a_node_ahead_is_found_through_its_groups_across_nodes(void **state) {
    (void)state;
    timed_job *j = malloc(sizeof *j);
    two_nodes(j, 500);
    int64_t off[WORLD];
    offsets_of(j, off);
    for (int r = 0; r < WORLD; r++)
        assert_float_equal(offset_ms(j, off, r), r >= 4 ? 500.0 : 0.0, 10.0);
    tj_done(j);
    free(j);
}

static void a_node_behind_is_found_alike(void **state) {
    (void)state;
    timed_job *j = malloc(sizeof *j);
    two_nodes(j, -2000);
    int64_t off[WORLD];
    offsets_of(j, off);
    for (int r = 0; r < WORLD; r++) /* of two hosts alike, against the earlier one */
        assert_float_equal(offset_ms(j, off, r), r >= 4 ? 0.0 : 2000.0, 10.0);
    tj_done(j);
    free(j);
}

static void jitter_alone_corrects_nothing(void **state) {
    (void)state;
    timed_job *j = malloc(sizeof *j);
    two_nodes(j, 0);
    int64_t off[WORLD];
    offsets_of(j, off);
    for (int r = 0; r < WORLD; r++) assert_int_equal(off[r], 0);
    tj_done(j);
    free(j);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_node_ahead_is_found_through_its_groups_across_nodes),
        cmocka_unit_test(a_node_behind_is_found_alike),
        cmocka_unit_test(jitter_alone_corrects_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
