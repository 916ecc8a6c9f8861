/* test_match.c — torchfrtrace's unit cases (test_fr_analysis.py) against fa_match_entries:
 * the match_one_event table, every collective matching itself, distinct variants, the
 * _all_gather_base numel check, uneven all_to_all, recv from any source, backend prefixes. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "match/match.h"
#include "util/ranks.h"

typedef struct ev {
    fr_entry e;
    fr_shape in[4], out[4];
    int64_t dims[8][4];
    const char *in_dt[4], *out_dt[4];
} ev;

/* one_event("all_reduce", {{4,4}}, {{4,4}}) — shapes given as up to 2 tensors of up to 2 dims */
static void make(ev *x, const char *name, int nin, const int64_t in[][2], int nout,
                 const int64_t out[][2], fr_state st, const char *in_dt, const char *out_dt) {
    memset(x, 0, sizeof *x);
    x->e.profiling_name = name;
    for (int i = 0; i < nin; i++) {
        x->dims[i][0] = in[i][0];
        x->dims[i][1] = in[i][1];
        x->in[i] = (fr_shape){ in[i][1] ? 2u : (in[i][0] ? 1u : 0u), x->dims[i] };
        x->in_dt[i] = in_dt;
    }
    for (int i = 0; i < nout; i++) {
        x->dims[4 + i][0] = out[i][0];
        x->dims[4 + i][1] = out[i][1];
        x->out[i] = (fr_shape){ out[i][1] ? 2u : (out[i][0] ? 1u : 0u), x->dims[4 + i] };
        x->out_dt[i] = out_dt;
    }
    x->e.input_sizes = (fr_shapes){ (uint32_t)nin, x->in };
    x->e.output_sizes = (fr_shapes){ (uint32_t)nout, x->out };
    x->e.input_dtypes = (fr_strings){ (uint32_t)(in_dt[0] ? nin : 0), x->in_dt };
    x->e.output_dtypes = (fr_strings){ (uint32_t)(out_dt[0] ? nout : 0), x->out_dt };
    x->e.state = st;
}

static const int64_t S44[][2] = { { 4, 4 } }, S54[][2] = { { 5, 4 } }, S8[][2] = { { 8, 0 } },
                     S12[][2] = { { 12, 0 } }, S16[][2] = { { 16, 0 } }, S24[][2] = { { 24, 0 } },
                     S32[][2] = { { 32, 0 } }, S4[][2] = { { 4, 0 } },
                     S44x2[][2] = { { 4, 4 }, { 4, 4 } }, SEMPTY[][2] = { { 0, 0 } };

static fa_match_state m(const ev *a, const ev *b) {
    return fa_match_entries(&a->e, &b->e, 2, NULL, 0);
}

/* A scheduled op of Float tensors, what most cases below compare. */
static void op(ev *x, const char *name, int nin, const int64_t in[][2], int nout,
               const int64_t out[][2]) {
    make(x, name, nin, in, nout, out, FR_STATE_SCHEDULED, "Float", "Float");
}

/* How such an op matches itself. */
static fa_match_state self(const char *name, int nin, const int64_t in[][2], int nout,
                           const int64_t out[][2]) {
    ev x;
    op(&x, name, nin, in, nout, out);
    return m(&x, &x);
}

/* How two such ops, of one input and one output tensor each, match. */
static fa_match_state pair(const char *a, const int64_t a_in[][2], const int64_t a_out[][2],
                           const char *b, const int64_t b_in[][2], const int64_t b_out[][2]) {
    ev x, y;
    op(&x, a, 1, a_in, 1, a_out);
    op(&y, b, 1, b_in, 1, b_out);
    return m(&x, &y);
}

static void match_one_event_table(void **state) {
    ev e1, x;
    make(&e1, "nccl:all_reduce", 1, S44, 1, S44, FR_STATE_SCHEDULED, "float32", "float32");
    assert_int_equal(m(&e1, &e1), FA_FULLY_MATCHED);
    make(&x, "nccl:all_gather", 1, S44, 1, S44, FR_STATE_SCHEDULED, "float32", "float32");
    assert_int_equal(m(&e1, &x), FA_COLLECTIVE_TYPE_MISMATCH);
    make(&x, "nccl:all_to_all", 1, S44, 1, S44, FR_STATE_SCHEDULED, "float32", "float32");
    assert_int_equal(m(&x, &x), FA_UNDECIDED);
    make(&x, "nccl:all_reduce", 1, S54, 1, S44, FR_STATE_SCHEDULED, "float32", "float32");
    assert_int_equal(m(&e1, &x), FA_SIZE_OR_SYNTAX_MISMATCH);
    make(&x, "nccl:all_reduce", 1, S44, 1, S54, FR_STATE_SCHEDULED, "float32", "float32");
    assert_int_equal(m(&e1, &x), FA_SIZE_OR_SYNTAX_MISMATCH);
    assert_int_equal(m(&x, &x), FA_SIZE_OR_SYNTAX_MISMATCH); /* e7: all_reduce in != out */
    ev e9, e10;
    make(&e9, "nccl:all_reduce", 1, S44, 1, S44, FR_STATE_COMPLETED, "float32", "float32");
    assert_int_equal(m(&e1, &e9), FA_COLLECTIVE_STATE_MISMATCH);
    make(&e10, "nccl:all_reduce", 1, S44, 1, S44, FR_STATE_COMPLETED, "float32", "float16");
    assert_int_equal(m(&e10, &e9), FA_COLLECTIVE_DTYPE_MISMATCH);
    ev e11, e12;
    make(&e11, "nccl:gather", 1, S44, 2, S44x2, FR_STATE_COMPLETED, "float32", "float32");
    make(&e12, "nccl:gather", 1, S44, 1, SEMPTY, FR_STATE_COMPLETED, "float32", "");
    assert_int_equal(m(&e11, &e12), FA_FULLY_MATCHED);
    make(&e12, "nccl:gather", 1, S44, 1, S44, FR_STATE_COMPLETED, "float32", "");
    assert_int_equal(m(&e11, &e12), FA_FULLY_MATCHED);
}

static void every_collective_matches_itself(void **state) {
    static const char *const names[] = { "broadcast",
                                         "_broadcast_oop",
                                         "reduce",
                                         "_reduce_oop",
                                         "all_reduce",
                                         "gather",
                                         "scatter",
                                         "all_reduce_barrier",
                                         "allreduce_coalesced",
                                         "ALLGATHER_coalesced",
                                         "REDUCE_SCATTER_coalesced" };
    char name[80];
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        snprintf(name, sizeof name, "nccl:%s", names[i]);
        assert_int_equal(self(name, 1, S44, 1, S44), FA_FULLY_MATCHED);
    }
    static const char *const rs[] = { "nccl:reduce_scatter", "nccl:_reduce_scatter_base",
                                      "nccl:reduce_scatter_tensor_coalesced" };
    for (size_t i = 0; i < 3; i++) assert_int_equal(self(rs[i], 1, S44, 1, S8), FA_FULLY_MATCHED);
    static const char *const ag[] = { "nccl:all_gather", "nccl:_all_gather_base",
                                      "nccl:all_gather_into_tensor_coalesced" };
    for (size_t i = 0; i < 3; i++) assert_int_equal(self(ag[i], 1, S44, 1, S32), FA_FULLY_MATCHED);
    assert_int_equal(self("nccl:all_to_all_single", 1, S44, 1, S44), FA_UNDECIDED);
}

static void variants_are_distinct_types(void **state) {
    static const char *const pairs[][2] = { { "nccl:all_gather", "nccl:_all_gather_base" },
                                            { "nccl:all_reduce", "nccl:allreduce_coalesced" },
                                            { "nccl:reduce_scatter", "nccl:_reduce_scatter_base" },
                                            { "nccl:all_to_all", "nccl:all_to_all_single" } };
    for (size_t i = 0; i < 4; i++)
        assert_int_equal(pair(pairs[i][0], S8, S8, pairs[i][1], S8, S8),
                         FA_COLLECTIVE_TYPE_MISMATCH);
}

static void all_gather_base_numel_is_checked(void **state) {
    assert_int_equal(self("nccl:_all_gather_base", 1, S8, 1, S16), FA_FULLY_MATCHED);
    assert_int_equal(self("nccl:_all_gather_base", 1, S8, 1, S24), FA_SIZE_OR_SYNTAX_MISMATCH);
}

static void uneven_all_to_all_is_not_a_mismatch(void **state) {
    assert_int_equal(pair("nccl:all_to_all_single", S8, S12, "nccl:all_to_all_single", S12, S8),
                     FA_UNDECIDED);
}

static void recv_from_any_source_has_no_peer(void **state) {
    fa_opname n;
    assert_int_equal(fa_parse_profiling_name("nccl:recv 1<-?", &n), 0);
    assert_int_equal(n.src, -1);
    assert_int_equal(n.dst, 1);
    static const char recv[] = "nccl:recv 1<-?", send[] = "nccl:send 0->1";
    assert_int_equal(pair(recv, S8, S8, send, S8, S8), FA_FULLY_MATCHED);
    assert_int_equal(pair(send, S8, S8, recv, S8, S8), FA_FULLY_MATCHED);
    assert_int_equal(pair(send, S4, S4, recv, S8, S8), FA_SIZE_OR_SYNTAX_MISMATCH);
}

/* A send pairs only with a recv: two sends (or two recvs) of the same peers and sizes never match
 * (mutation m08). */
static void two_sends_or_two_recvs_never_match(void **state) {
    static const char send[] = "nccl:send 0->1", recv[] = "nccl:recv 1<-0";
    assert_int_equal(pair(send, S8, S8, send, S8, S8), FA_SIZE_OR_SYNTAX_MISMATCH);
    assert_int_equal(pair(recv, S8, S8, recv, S8, S8), FA_SIZE_OR_SYNTAX_MISMATCH);
}

static void any_backend_prefix_names_the_op(void **state) {
    static const char *const backends[] = {
        "nccl", "ncclx", "gloo", "xccl", "nccl2", "c10d", "unknown_backend", "weird:backend"
    };
    fa_opname n;
    char name[80];
    for (size_t i = 0; i < sizeof backends / sizeof *backends; i++) {
        snprintf(name, sizeof name, "%s:all_reduce", backends[i]);
        assert_int_equal(fa_parse_profiling_name(name, &n), 0);
        assert_string_equal(n.type, "all_reduce");
    }
    assert_int_equal(fa_parse_profiling_name("all_reduce", &n),
                     -1); /* no backend: refused, not a crash */
    assert_int_equal(fa_parse_profiling_name("nccl2:send 0->1", &n), 0);
    assert_true(n.is_send && n.src == 0 && n.dst == 1);
    assert_int_equal(fa_parse_profiling_name("nccl2:recv 1<-0", &n), 0);
    assert_true(n.is_recv && n.src == 0 && n.dst == 1);
}

static void hook_shapes_match_themselves(void **state) {
    static const int64_t S8x2[][2] = { { 8, 0 }, { 8, 0 } },
                         S8x3[][2] = { { 8, 0 }, { 8, 0 }, { 8, 0 } }, S17[][2] = { { 17, 0 } },
                         S84[][2] = { { 8, 0 }, { 4, 0 } };
    static const struct {
        const char *name;
        int nin;
        const int64_t (*in)[2];
        int nout;
        const int64_t (*out)[2];
        fa_match_state want;
    } cases[] = {
        { "nccl2:allreduce_coalesced", 2, S84, 2, S84, FA_FULLY_MATCHED },
        { "nccl2:all_gather", 1, S8, 2, S8x2, FA_FULLY_MATCHED },
        { "nccl2:reduce_scatter", 2, S8x2, 1, S8, FA_FULLY_MATCHED },
        { "nccl2:all_gather", 1, S8, 3, S8x3, FA_SIZE_OR_SYNTAX_MISMATCH },
        { "nccl2:reduce_scatter", 3, S8x3, 1, S8, FA_SIZE_OR_SYNTAX_MISMATCH },
        { "nccl2:all_gather", 1, S8, 1, S17, FA_SIZE_OR_SYNTAX_MISMATCH },
        { "nccl2:reduce_scatter", 1, S17, 1, S8, FA_SIZE_OR_SYNTAX_MISMATCH },
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
        assert_int_equal(
            self(cases[k].name, cases[k].nin, cases[k].in, cases[k].nout, cases[k].out),
            cases[k].want);
}

static void rank_lists_read_as_ranges(void **state) {
    int64_t r[] = { 9, 0, 1, 2, 3, 4, 5, 6, 7, 12, 14, 13 };
    char *s = fa_ranks_format(r, 12);
    assert_string_equal(s, "0-7,9,12-14");
    free(s);
    int64_t two[] = { 3, 4 };
    s = fa_ranks_format(two, 2);
    assert_string_equal(s, "3,4");
    free(s);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(match_one_event_table),
        cmocka_unit_test(every_collective_matches_itself),
        cmocka_unit_test(variants_are_distinct_types),
        cmocka_unit_test(all_gather_base_numel_is_checked),
        cmocka_unit_test(uneven_all_to_all_is_not_a_mismatch),
        cmocka_unit_test(recv_from_any_source_has_no_peer),
        cmocka_unit_test(two_sends_or_two_recvs_never_match),
        cmocka_unit_test(any_backend_prefix_names_the_op),
        cmocka_unit_test(hook_shapes_match_themselves),
        cmocka_unit_test(rank_lists_read_as_ranges),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
