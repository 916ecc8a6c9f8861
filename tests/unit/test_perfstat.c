/* test_perfstat.c — the statistics behind stragglers and `frtrace stats` (perfstat.h): quantiles
 * as numpy's linear default, medians of int64 timestamps kept exact, MAD scaled to sigma, the
 * robust z-score (one outlier among jittering ranks stands out, a second does not hide the
 * first), dtype sizes and nccl-tests' bus bandwidth factors. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

#include "perf/perfstat.h"

static void quantiles_match_numpy_linear(void **state) {
    (void)state;
    double v[] = { 7, 1, 3, 5, 9 };
    assert_float_equal(fa_median(v, 5), 5, 1e-12);
    double w[] = { 4, 1, 3, 2 };
    assert_float_equal(fa_median(w, 4), 2.5, 1e-12);
    /* numpy.quantile([1..10], 0.9) == 9.1, 0.99 == 9.91 */
    double x[10];
    for (int i = 0; i < 10; i++) x[i] = 10 - i;
    assert_float_equal(fa_quantile(x, 10, 0.9), 9.1, 1e-9);
    assert_float_equal(fa_quantile(x, 10, 0.99), 9.91, 1e-9);
    assert_float_equal(fa_quantile(x, 10, 0), 1, 1e-12);
    assert_float_equal(fa_quantile(x, 10, 1), 10, 1e-12);
    double one[] = { 42 };
    assert_float_equal(fa_quantile(one, 1, 0.99), 42, 1e-12);
    assert_true(isnan(fa_quantile(one, 0, 0.5)));
}

static void selection_survives_duplicates_and_sorted_input(void **state) {
    (void)state;
    enum { N = 1001 };
    double *v = malloc(N * sizeof *v);
    assert_non_null(v);
    for (int i = 0; i < N; i++) v[i] = 3; /* all equal */
    assert_float_equal(fa_median(v, N), 3, 0);
    for (int i = 0; i < N; i++) v[i] = i % 2;  /* two values */
    assert_float_equal(fa_median(v, N), 0, 0); /* 501 zeros, 500 ones */
    for (int i = 0; i < N; i++) v[i] = i;      /* sorted */
    assert_float_equal(fa_median(v, N), 500, 0);
    for (int i = 0; i < N; i++) v[i] = N - i; /* reversed */
    assert_float_equal(fa_quantile(v, N, 0.9), 901, 1e-9);
    free(v);
}

static void int64_median_keeps_nanoseconds(void **state) {
    (void)state;
    int64_t base = 1758600000123456789LL;
    int64_t t[] = { base + 3, base + 1, base + 2 };
    assert_true(fa_median_i64(t, 3) == (double)(base + 2));
    int64_t u[] = { base + 10, base, base + 4, base + 6 };
    /* (base+4 + base+6) / 2 without overflow; the offset, in doubles (cmocka's float asserts would
     * round a timestamp) */
    assert_true(fabs(fa_median_i64(u, 4) - (double)base - 5) <= 256);
    int64_t big[] = { INT64_MAX - 2, INT64_MAX };
    assert_true(fa_median_i64(big, 2) > 9.2e18);
}

static void mad_sigma_estimates_normal_spread(void **state) {
    (void)state;
    double v[] = { -1, 1, -1, 1, 0 }, scratch[5];
    /* deviations 1,1,1,1,0: MAD 1, sigma 1.4826 */
    assert_float_equal(fa_mad_sigma(v, 5, 0, scratch), 1.4826, 1e-9);
    double flat[] = { 2, 2, 2 };
    assert_float_equal(fa_mad_sigma(flat, 3, 2, scratch), 0, 0);
}

/* The straggler test: per-rank median lateness of 64 healthy ranks jitters within +-2 ms; one
 * rank 40 ms late, and then a second 30 ms late, are outliers; no healthy rank is. */
static void robust_z_finds_outliers_not_jitter(void **state) {
    (void)state;
    enum { N = 64 };
    double v[N], copy[N], scratch[N];
    for (int i = 0; i < N; i++) v[i] = ((i * 37) % 41) / 10.0 - 2.0;
    v[5] = 40;
    v[42] = 30;
    for (int i = 0; i < N; i++) copy[i] = v[i];
    double center = fa_median(copy, N), sigma = fa_mad_sigma(v, N, center, scratch);
    int outliers = 0;
    for (int i = 0; i < N; i++) {
        bool out = fa_robust_z(v[i], center, sigma) >= FA_OUTLIER_Z;
        outliers += out;
        assert_true(out == (i == 5 || i == 42));
    }
    assert_int_equal(outliers, 2);
    assert_true(isinf(fa_robust_z(1, 0, 0)) && fa_robust_z(0, 0, 0) == 0);
}

/* Each member against its peers alone: checked against removing the value and taking the median
 * of the rest, for every size from 1 to 9 and many draws with ties (values from a small range). */
static void median_of_others_matches_removing_each_value(void **state) {
    (void)state;
    enum { MAXN = 9 };
    double v[MAXN], scratch[MAXN], out[MAXN], rest[MAXN];
    unsigned seed = 12345;
    for (int round = 0; round < 2000; round++) {
        size_t n = 1 + (size_t)round % MAXN;
        for (size_t i = 0; i < n; i++) {
            seed = seed * 1103515245u + 12345u;
            v[i] = (double)((seed >> 16) % 7); /* small range: many ties */
        }
        double before[MAXN];
        for (size_t i = 0; i < n; i++) before[i] = v[i];
        fa_median_of_others(v, n, scratch, out);
        for (size_t i = 0; i < n; i++) assert_true(v[i] == before[i]); /* v left as it is */
        if (n == 1) {
            assert_true(isnan(out[0]));
            continue;
        }
        for (size_t i = 0; i < n; i++) {
            size_t k = 0;
            for (size_t j = 0; j < n; j++)
                if (j != i) rest[k++] = v[j];
            assert_float_equal(out[i], fa_median(rest, k), 0);
        }
    }
    /* in a group of two the late one is late by the whole gap */
    double two[] = { 100, 160 };
    fa_median_of_others(two, 2, scratch, out);
    assert_true(out[0] == 160 && out[1] == 100);
}

/* The sorted lower middle: v[(n - 1) / 2] of the sorted values. */
static double sorted_lower_median(double *v, size_t n) {
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && v[j - 1] > v[j]; j--) {
            double t = v[j];
            v[j] = v[j - 1], v[j - 1] = t;
        }
    return v[(n - 1) / 2];
}

/* The lower median of the others, against removing the value and sorting the rest, for every
 * size from 1 to 9 with ties; and where the others split evenly, the earlier half: of three ranks,
 * two late by 22 and 74 ms, the one late by 22 is compared with the on-time one. */
static void lower_median_of_others_matches_removing_each_value(void **state) {
    (void)state;
    enum { MAXN = 9 };
    double v[MAXN], scratch[MAXN], out[MAXN], rest[MAXN];
    unsigned seed = 777;
    for (int round = 0; round < 2000; round++) {
        size_t n = 1 + (size_t)round % MAXN;
        for (size_t i = 0; i < n; i++) {
            seed = seed * 1103515245u + 12345u;
            v[i] = (double)((seed >> 16) % 7);
        }
        double before[MAXN];
        for (size_t i = 0; i < n; i++) before[i] = v[i];
        fa_lower_median_of_others(v, n, scratch, out);
        for (size_t i = 0; i < n; i++) assert_true(v[i] == before[i]);
        if (n == 1) {
            assert_true(isnan(out[0]));
            continue;
        }
        for (size_t i = 0; i < n; i++) {
            size_t k = 0;
            for (size_t j = 0; j < n; j++)
                if (j != i) rest[k++] = v[j];
            assert_float_equal(out[i], sorted_lower_median(rest, k), 0);
        }
        for (size_t i = 0; i < n; i++) rest[i] = v[i];
        assert_float_equal(fa_lower_median(rest, n), sorted_lower_median(v, n), 0);
    }
    double three[] = { 22, 74, 0 };
    fa_lower_median_of_others(three, 3, scratch, out);
    assert_true(out[0] == 0 && out[1] == 0 && out[2] == 22);
    assert_true(isnan(fa_lower_median(three, 0)));
    double two[] = { 175, 0 };
    assert_true(fa_lower_median(two, 2) == 0);
}

/* Against exact sums: P(X >= k) for Binomial(n, p), computed with integers where it can be. */
static void binomial_tail_matches_exact_sums(void **state) {
    (void)state;
    assert_true(fa_binomial_tail(0, 10, 0.3) == 1);
    assert_true(fa_binomial_tail(1, 10, 0) == 0);
    assert_true(fa_binomial_tail(11, 10, 0.5) == 0);
    assert_true(fa_binomial_tail(3, 10, 1) == 1);
    /* n = 4, p = 1/2: P(X >= 3) = (4 + 1) / 16, P(X >= 4) = 1 / 16 */
    assert_true(fabs(fa_binomial_tail(3, 4, 0.5) - 5.0 / 16) < 1e-12);
    assert_true(fabs(fa_binomial_tail(4, 4, 0.5) - 1.0 / 16) < 1e-12);
    /* n = 10, p = 0.1: P(X >= 1) = 1 - 0.9^10 */
    assert_true(fabs(fa_binomial_tail(1, 10, 0.1) - (1 - pow(0.9, 10))) < 1e-12);
    /* what the straggler gate decides: a rank late at 38 of 44 collectives where the others are
     * late at a rate of 0.3 is far beyond chance; at 17 of 44 against 0.4 it is not */
    assert_true(fa_binomial_tail(38, 44, 0.3) < 1e-3);
    assert_true(fa_binomial_tail(17, 44, 0.4) > 0.1);
    /* large n stays finite and in [0, 1] */
    double t = fa_binomial_tail(1000, 2000, 0.5);
    assert_true(t > 0.49 && t < 0.52);
}

static void dtype_sizes_and_bus_factors(void **state) {
    (void)state;
    assert_int_equal(fa_dtype_size("Float"), 4);
    assert_int_equal(fa_dtype_size("BFloat16"), 2);
    assert_int_equal(fa_dtype_size("Long"), 8);
    assert_int_equal(fa_dtype_size("Float8_e4m3fn"), 1);
    assert_int_equal(fa_dtype_size("NoSuchType"), 0);
    assert_int_equal(fa_dtype_size(NULL), 0);
    assert_float_equal(fa_busbw_factor("all_reduce", 8), 2.0 * 7 / 8, 1e-12);
    assert_float_equal(fa_busbw_factor("allreduce_coalesced", 4), 1.5, 1e-12);
    assert_float_equal(fa_busbw_factor("_all_gather_base", 8), 7.0 / 8, 1e-12);
    assert_float_equal(fa_busbw_factor("_reduce_scatter_base", 2), 0.5, 1e-12);
    assert_float_equal(fa_busbw_factor("all_to_all", 16), 15.0 / 16, 1e-12);
    assert_float_equal(fa_busbw_factor("broadcast", 8), 1, 0);
    assert_float_equal(fa_busbw_factor("reduce", 8), 1, 0);
    assert_float_equal(fa_busbw_factor("send", 2), 1, 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(quantiles_match_numpy_linear),
        cmocka_unit_test(selection_survives_duplicates_and_sorted_input),
        cmocka_unit_test(int64_median_keeps_nanoseconds),
        cmocka_unit_test(mad_sigma_estimates_normal_spread),
        cmocka_unit_test(robust_z_finds_outliers_not_jitter),
        cmocka_unit_test(median_of_others_matches_removing_each_value),
        cmocka_unit_test(lower_median_of_others_matches_removing_each_value),
        cmocka_unit_test(binomial_tail_matches_exact_sums),
        cmocka_unit_test(dtype_sizes_and_bus_factors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
