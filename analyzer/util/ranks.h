/* ranks.h — lists of global ranks: sorted sets and their compact text form.
 *
 * Reports and summaries write rank lists the way people read them: "0-7,9,12-15". One function
 * produces that text so that the summary line, the tables and the database agree.
 */
#ifndef FRTRACE_RANKS_H
#define FRTRACE_RANKS_H

#include <stddef.h>
#include <stdint.h>

typedef struct fa_ranks {
    int64_t *v;
    size_t n, cap;
} fa_ranks;

int fa_ranks_add(fa_ranks *set, int64_t rank);            /* appends; 0 or -1 (out of memory) */
void fa_ranks_normalize(fa_ranks *set);                   /* sorts ascending, drops duplicates */
int fa_ranks_contains(const fa_ranks *set, int64_t rank); /* on a normalized set */
void fa_ranks_free(fa_ranks *set);

/* "0-7,9" into a malloc'd string (NULL when out of memory); sorts a copy, tolerates duplicates. */
char *fa_ranks_format(const int64_t *ranks, size_t n);

#endif
