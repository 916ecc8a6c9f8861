/* ranks.c — rank sets and their "0-7,9" text form (see ranks.h). */
#include "util/ranks.h"
#include "util/xmalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void fa_ranks_add(fa_ranks *set, int64_t rank) {
    xgrow((void **)&set->v, &set->cap, set->n + 1, sizeof *set->v, 8);
    set->v[set->n++] = rank;
}

void fa_ranks_add_all(fa_ranks *set, const fa_ranks *from) {
    for (size_t k = 0; k < from->n; k++) fa_ranks_add(set, from->v[k]);
}

static int compare_i64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

void fa_ranks_normalize(fa_ranks *set) {
    if (set->n < 2) return;
    qsort(set->v, set->n, sizeof *set->v, compare_i64);
    size_t out = 1;
    for (size_t i = 1; i < set->n; i++)
        if (set->v[i] != set->v[out - 1]) set->v[out++] = set->v[i];
    set->n = out;
}

int fa_ranks_contains(const fa_ranks *set, int64_t rank) {
    return set->n && bsearch(&rank, set->v, set->n, sizeof *set->v, compare_i64) != NULL;
}

void fa_ranks_free(fa_ranks *set) {
    free(set->v);
    memset(set, 0, sizeof *set);
}

/* How many of v[i..n) continue the step v[i+1] - v[i] (at least 1; 1 when i is the last). */
static size_t run_length(const int64_t *v, size_t n, size_t i, int64_t *step) {
    if (i + 1 >= n) return 1;
    *step = v[i + 1] - v[i];
    size_t k = i + 1;
    while (k + 1 < n && v[k + 1] - v[k] == *step) k++;
    return k - i + 1;
}

char *fa_ranks_format(const int64_t *ranks, size_t n) {
    int64_t *sorted = malloc((n ? n : 1) * sizeof *sorted);
    char *text = malloc(n * 44 + 1);
    if (!sorted || !text) {
        free(sorted);
        free(text);
        return NULL;
    }
    size_t m = 0; /* distinct ranks */
    if (n) {
        memcpy(sorted, ranks, n * sizeof *sorted);
        qsort(sorted, n, sizeof *sorted, compare_i64);
        for (size_t i = 0; i < n; i++)
            if (!m || sorted[i] != sorted[m - 1]) sorted[m++] = sorted[i];
    }
    size_t len = 0;
    text[0] = '\0';
    for (size_t i = 0; i < m;) {
        int64_t step = 1;
        size_t run = run_length(sorted, m, i, &step);
        const char *sep = len ? "," : "";
        if (run >= 3 && step == 1) { /* 8-15 */
            len += (size_t)sprintf(text + len, "%s%lld-%lld", sep, (long long)sorted[i],
                                   (long long)sorted[i + run - 1]);
        } else if (run >= FA_RANKS_STRIDE_MIN) { /* every 8th: 1540-2044/8 */
            len += (size_t)sprintf(text + len, "%s%lld-%lld/%lld", sep, (long long)sorted[i],
                                   (long long)sorted[i + run - 1], (long long)step);
        } else {
            len += (size_t)sprintf(text + len, "%s%lld", sep, (long long)sorted[i]);
            run = 1;
        }
        i += run;
    }
    free(sorted);
    return text;
}
