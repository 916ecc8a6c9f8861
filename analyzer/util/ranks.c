/* ranks.c — rank sets and their "0-7,9" text form (see ranks.h). */
#include "ranks.h"
#include "grow.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int fa_ranks_add(fa_ranks *set, int64_t rank) {
    if (fr_grow((void **)&set->v, &set->cap, set->n + 1, sizeof *set->v, 8)) return -1;
    set->v[set->n++] = rank;
    return 0;
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

char *fa_ranks_format(const int64_t *ranks, size_t n) {
    int64_t *sorted = malloc((n ? n : 1) * sizeof *sorted);
    char *text = malloc(n * 44 + 1);
    if (!sorted || !text) {
        free(sorted);
        free(text);
        return NULL;
    }
    if (n) {
        memcpy(sorted, ranks, n * sizeof *sorted);
        qsort(sorted, n, sizeof *sorted, compare_i64);
    }
    size_t len = 0;
    text[0] = '\0';
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j + 1 < n && (sorted[j + 1] == sorted[j] || sorted[j + 1] == sorted[j] + 1)) j++;
        len += (size_t)sprintf(text + len, "%s%lld", len ? "," : "", (long long)sorted[i]);
        if (sorted[j] != sorted[i])
            len += (size_t)sprintf(text + len, "%s%lld", sorted[j] == sorted[i] + 1 ? "," : "-",
                                   (long long)sorted[j]);
        i = j + 1;
    }
    free(sorted);
    return text;
}
