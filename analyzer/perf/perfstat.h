/* perfstat.h — the robust statistics behind stragglers and `frtrace stats`, apart from any dump.
 *
 * Quantiles are taken as numpy's default ("linear": between the two closest order statistics),
 * so p50 of an even count is the mean of the middle two. The spread of a sample is its median
 * absolute deviation, scaled by 1.4826 so that it estimates the standard deviation of normal
 * noise; an outlier is a value whose robust z-score (x - median) / spread passes a threshold
 * (Iglewicz and Hoaglin's modified z-score: Grubbs' test with median and MAD in place of mean
 * and standard deviation, which one or several outliers cannot drag along with them).
 * Functions that select reorder their input; none allocates.
 */
#ifndef FRTRACE_PERFSTAT_H
#define FRTRACE_PERFSTAT_H

#include <stddef.h>
#include <stdint.h>

/* The q-quantile (0 <= q <= 1) of v[0..n); reorders v. NaN when n == 0. */
double fa_quantile(double *v, size_t n, double q);
/* The median of v[0..n) (reorders v); NaN when n == 0. */
static inline double fa_median(double *v, size_t n) { return fa_quantile(v, n, 0.5); }
/* The median of n int64 values, as a double; reorders v. 0 when n == 0. */
double fa_median_i64(int64_t *v, size_t n);
/* The lower median of n int64 values (the smaller middle one of an even count), as a double;
 * reorders v. 0 when n == 0. */
double fa_lower_median_i64(int64_t *v, size_t n);
/* For each i, the median of v without v[i] (n >= 2; out[0] = NaN when n < 2): what member i is
 * compared with, its peers alone, so that in a group of two the late one is late by the whole
 * gap, not half of it. `scratch` holds n doubles; v is left as it is. O(n). */
void fa_median_of_others(const double *v, size_t n, double *scratch, double *out);
/* For each i, the lower median of v without v[i]: where the others are an even count, the
 * smaller of their middle two (out[0] = NaN when n < 2). O(n); v is left as it is. */
void fa_lower_median_of_others(const double *v, size_t n, double *scratch, double *out);
/* The lower median of v[0..n): the smaller middle value of an even count; reorders v. NaN when
 * n == 0. */
double fa_lower_median(double *v, size_t n);
/* 1.4826 x the median absolute deviation of v around `center`; `scratch` holds n doubles. */
double fa_mad_sigma(const double *v, size_t n, double center, double *scratch);
/* Robust z-score of x in a sample with this center and sigma: +inf when sigma is 0 and x is
 * above the center, 0 when equal. */
double fa_robust_z(double x, double center, double sigma);

/* P(X >= k) for X ~ Binomial(n, p): how likely k or more of n trials succeed by chance, each
 * with probability p. 1 when k == 0, 0 when p == 0 < k. O(n - k). */
double fa_binomial_tail(uint32_t k, uint32_t n, double p);

/* Threshold of the modified z-score beyond which a value is an outlier (Iglewicz-Hoaglin). */
#define FA_OUTLIER_Z 3.5

/* Bytes of one element of a c10 dtype name ("Float" 4, "BFloat16" 2, ...); 0 when unknown. */
int fa_dtype_size(const char *dtype);
/* nccl-tests' bus bandwidth factor for an op type on n ranks: all_reduce 2(n-1)/n; all_gather,
 * reduce_scatter, all_to_all, gather, scatter (n-1)/n; broadcast, reduce, send, recv and the
 * rest 1. */
double fa_busbw_factor(const char *type, int64_t n);

#endif
