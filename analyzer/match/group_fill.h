/* group_fill.h — the members a rebuilt group lost with their dumps, put back (group_fill.c).
 *
 * A group that pg_config does not describe (gloo) is rebuilt from the ranks whose dumps record
 * entries in it (groups.c); a member that left no dump is missing from it, and the group looks
 * smaller than it is: an all_gather's output then looks too large for it, and the members wait
 * on nobody. A member without a dump is a missing member, never a smaller group, so the group's
 * size is taken from every source that states it, and the missing members are found among the
 * ranks without a dump:
 *   size  the group's own all_gathers (output elements / input elements), its own waits (every
 *         member seen pending in one collective: someone unseen holds it up), and its family: the
 *         groups of the same description (TENSOR_MODEL_PARALLEL_GROUP, a DeviceMesh dimension),
 *         which training frameworks make all alike, when half of them or more agree on one size
 *         (a family is a run of groups made one after another whose members are disjoint, one
 *         dimension's groups: split groups sharing a description are several families);
 *   who   the ranks of the job without a dump that no other group of the family holds; where
 *         the family's complete groups are runs of one stride (0,4 / 1,5 / 2,6) the run through
 *         the group's members names them (a group filled takes its ranks from the others'
 *         choices); a group alone in lacking members takes them all when their number is
 *         right. Where the job has too few ranks without a dump, the job is larger than the
 *         dumps' ranks show (the highest rank left none): ranks above are candidates, and the job
 *         grows by those a group took back; not where the family lost no dump and every rank
 *         whose group numbers leave one unnamed is blocked in an operation its dump records
 *         (the member is one of them, which one no dump says: the group stays short, and said).
 * What cannot be decided is left as found, and said.
 */
#ifndef FRTRACE_GROUP_FILL_H
#define FRTRACE_GROUP_FILL_H

#include <stdint.h>

#include "load/load.h"
#include "util/ranks.h"

typedef struct fa_fill_group {
    const char *name, *desc;
    fa_ranks members; /* the ranks recording it, sorted; completed in place */
    fa_ranks added;   /* the members put back */
} fa_fill_group;

/* Completes groups[0..n) (the default group excluded by the caller); *top, the highest rank of
 * the job, may grow. Appends one sentence per completed group to *notes (malloc'd, "; "
 * separated; NULL when nothing was added). 0, or -1 when out of memory. */
int fa_fill_groups(const fa_input *in, fa_fill_group *groups, size_t n, int64_t *top, char **notes);

#endif
