/* perfstat.c — quantiles, MAD, robust z-scores, dtype sizes, bus bandwidth factors (perfstat.h). */
#include "perf/perfstat.h"

#include <math.h>
#include <string.h>

/* The k-th smallest of v[0..n) (0-based), by three-way partitioning (duplicates are common:
 * equal timestamps, zero lateness); v is reordered so that v[k] holds it, smaller values before
 * and larger after. No NaN in v. */
#define SELECT_KTH(NAME, T)                                                                        \
    static T NAME(T *v, size_t n, size_t k) {                                                      \
        size_t lo = 0, hi = n - 1;                                                                 \
        while (lo < hi) {                                                                          \
            T pivot = v[lo + (hi - lo) / 2], t;                                                    \
            size_t lt = lo, i = lo, gt = hi;                                                       \
            while (i <= gt) {                                                                      \
                if (v[i] < pivot)                                                                  \
                    t = v[lt], v[lt++] = v[i], v[i++] = t;                                         \
                else if (v[i] > pivot) {                                                           \
                    t = v[gt], v[gt] = v[i], v[i] = t;                                             \
                    if (gt-- == lo) break;                                                         \
                } else                                                                             \
                    i++;                                                                           \
            }                                                                                      \
            if (k < lt)                                                                            \
                hi = lt - 1;                                                                       \
            else if (k > gt)                                                                       \
                lo = gt + 1;                                                                       \
            else                                                                                   \
                return pivot;                                                                      \
        }                                                                                          \
        return v[k];                                                                               \
    }
SELECT_KTH(select_kth, double)
SELECT_KTH(select_kth_i64, int64_t)

/* The smallest of v[from..n). */
static double min_from(const double *v, size_t n, size_t from) {
    double m = v[from];
    for (size_t i = from + 1; i < n; i++)
        if (v[i] < m) m = v[i];
    return m;
}

double fa_quantile(double *v, size_t n, double q) {
    if (n == 0) return NAN;
    if (q <= 0) q = 0;
    if (q >= 1) q = 1;
    double pos = q * (double)(n - 1);
    size_t k = (size_t)pos;
    double frac = pos - (double)k;
    double lo = select_kth(v, n, k);
    if (frac == 0 || k + 1 >= n) return lo;
    /* after selection every value past k is >= v[k]: the next order statistic is their minimum */
    double hi = min_from(v, n, k + 1);
    return lo + (hi - lo) * frac;
}

/* The largest of v[0..n). */
static double max_to(const double *v, size_t n) {
    double m = v[0];
    for (size_t i = 1; i < n; i++)
        if (v[i] > m) m = v[i];
    return m;
}

void fa_median_of_others(const double *v, size_t n, double *scratch, double *out) {
    if (n < 2) {
        if (n) out[0] = NAN;
        return;
    }
    /* Removing one value moves the median to a neighbouring order statistic, which one depends
     * only on which side of the middle the removed value lies: the middle three s[k-1], s[k],
     * s[k+1] of the sorted values decide every answer. */
    memcpy(scratch, v, n * sizeof *v);
    size_t k = n / 2;
    double mid = select_kth(scratch, n, k);
    double below = max_to(scratch, k), above = k + 1 < n ? min_from(scratch, n, k + 1) : mid;
    for (size_t i = 0; i < n; i++) {
        if (n % 2 == 0) /* n - 1 odd: the middle of what is left is one value */
            out[i] = v[i] < mid ? mid : below;
        else if (v[i] < mid)
            out[i] = (mid + above) / 2;
        else if (v[i] > mid)
            out[i] = (below + mid) / 2;
        else
            out[i] = (below + above) / 2;
    }
}

void fa_lower_median_of_others(const double *v, size_t n, double *scratch, double *out) {
    if (n < 2) {
        if (n) out[0] = NAN;
        return;
    }
    /* the others' lower middle is s[n/2] when v[i] lies below it, else s[n/2 - 1] */
    memcpy(scratch, v, n * sizeof *v);
    size_t k = n / 2;
    double mid = select_kth(scratch, n, k), below = max_to(scratch, k);
    for (size_t i = 0; i < n; i++) out[i] = v[i] < mid ? mid : below;
}

double fa_lower_median(double *v, size_t n) { return n ? select_kth(v, n, (n - 1) / 2) : NAN; }

double fa_median_i64(int64_t *v, size_t n) {
    if (n == 0) return 0;
    /* selection on int64 keeps nanosecond timestamps exact (a double holds 53 bits) */
    size_t k = (n - 1) / 2;
    select_kth_i64(v, n, k);
    int64_t a = v[k];
    if (n % 2) return (double)a;
    int64_t b = v[k + 1];
    for (size_t i = k + 2; i < n; i++)
        if (v[i] < b) b = v[i];
    /* the mean of the middle two, without overflow */
    return (double)a + (double)(b - a) / 2.0;
}

double fa_lower_median_i64(int64_t *v, size_t n) {
    return n ? (double)select_kth_i64(v, n, (n - 1) / 2) : 0;
}

double fa_mad_sigma(const double *v, size_t n, double center, double *scratch) {
    if (n == 0) return 0;
    for (size_t i = 0; i < n; i++) scratch[i] = fabs(v[i] - center);
    return 1.4826 * fa_median(scratch, n);
}

double fa_robust_z(double x, double center, double sigma) {
    if (sigma > 0) return (x - center) / sigma;
    return x > center ? INFINITY : x < center ? -INFINITY : 0;
}

int fa_dtype_size(const char *d) {
    static const struct {
        const char *name;
        int size;
    } sizes[] = {
        { "Float", 4 },
        { "Half", 2 },
        { "BFloat16", 2 },
        { "Double", 8 },
        { "Long", 8 },
        { "Int", 4 },
        { "Short", 2 },
        { "Char", 1 },
        { "Byte", 1 },
        { "Bool", 1 },
        { "UInt16", 2 },
        { "UInt32", 4 },
        { "UInt64", 8 },
        { "ComplexHalf", 4 },
        { "ComplexFloat", 8 },
        { "ComplexDouble", 16 },
        { "Float8_e4m3fn", 1 },
        { "Float8_e5m2", 1 },
        { "Float8_e4m3fnuz", 1 },
        { "Float8_e5m2fnuz", 1 },
        { "Float8_e8m0fnu", 1 },
    };
    if (!d) return 0;
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        if (strcmp(sizes[i].name, d) == 0) return sizes[i].size;
    return 0;
}

double fa_busbw_factor(const char *t, int64_t n) {
    if (!t || n < 1) return 1;
    double part = (double)(n - 1) / (double)n;
    if (strstr(t, "all_reduce") || strstr(t, "allreduce")) return 2 * part;
    if (strstr(t, "all_gather") || strstr(t, "allgather") || strstr(t, "reduce_scatter") ||
        strstr(t, "all_to_all") || strstr(t, "alltoall"))
        return part;
    if (strstr(t, "gather") || strstr(t, "scatter")) return part;
    return 1;
}

double fa_binomial_tail(uint32_t k, uint32_t n, double p) {
    if (k == 0) return 1;
    if (k > n || p <= 0) return 0;
    if (p >= 1) return 1;
    double sum = 0, lp = log(p), lq = log1p(-p);
    for (uint32_t i = k; i <= n; i++)
        sum += exp(lgamma(n + 1.0) - lgamma(i + 1.0) - lgamma(n - i + 1.0) + i * lp + (n - i) * lq);
    return sum < 1 ? sum : 1;
}
