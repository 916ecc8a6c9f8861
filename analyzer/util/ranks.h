/* ranks.h — lists of global ranks: sorted sets and their compact text form.
 *
 * Reports and summaries write rank lists the way people read them: "0-7,9,12-15", and a run of
 * at least FA_RANKS_STRIDE_MIN ranks a constant step apart as crontab writes it: "1540-2044/8"
 * (every 8th rank from 1540 to 2044: one data-parallel group of a 2 048-rank job, 63 ranks in
 * eleven characters). One function produces that text so that the summary line, the tables
 * and the database agree; --selected-ranks reads it back.
 */
#ifndef FRTRACE_RANKS_H
#define FRTRACE_RANKS_H

#include <stddef.h>
#include <stdint.h>

typedef struct fa_ranks {
    int64_t *v;
    size_t n, cap;
} fa_ranks;

void fa_ranks_add(fa_ranks *set, int64_t rank);             /* appends (xmalloc.h: never fails) */
void fa_ranks_add_all(fa_ranks *set, const fa_ranks *from); /* appends every rank of from */
void fa_ranks_normalize(fa_ranks *set);                     /* sorts ascending, drops duplicates */
int fa_ranks_contains(const fa_ranks *set, int64_t rank);   /* on a normalized set */
void fa_ranks_free(fa_ranks *set);

enum { FA_RANKS_STRIDE_MIN = 5 };

/* "0-7,9,16-48/8" into a malloc'd string (NULL when out of memory); sorts a copy, tolerates
 * duplicates. */
char *fa_ranks_format(const int64_t *ranks, size_t n);

#endif
