/* mixed.h — dumps that cannot belong to one job, told apart before anyone is blamed.
 *
 * Copying two jobs' dumps into one directory (ranks 0-15 of one, renamed 16-31 of another)
 * must not give a confident verdict. The evidence that dumps come from more than one job:
 *   - time: each rank's entries span a window; the ranks of one job record the same
 *     collectives at about the same time, so their windows overlap (a rank stuck early still
 *     shares the history before it). Ranks whose windows fall into clusters more than
 *     FA_MIXED_GAP_NS apart were recorded by different runs;
 *   - world sizes: the dumps' default groups (default_pg) list different numbers of ranks, each
 *     number given by at least two dumps (a single dump that disagrees is a corrupt header);
 *   - membership: a rank recorded collectives in a group other than the default one whose
 *     member list leaves it out (torchft replicas only renumber the default group).
 * fa_mixed_jobs adds one mixed_jobs finding that says which ranks and files disagree and how,
 * and returns a one-line summary for an inconclusive verdict; NULL when the dumps fit one job.
 */
#ifndef FRTRACE_MIXED_H
#define FRTRACE_MIXED_H

#include "match/findings.h"
#include "match/groups.h"
#include "load/load.h"

#define FA_MIXED_GAP_NS (10LL * 60 * 1000000000) /* ten minutes between two runs' windows */

/* The verdict's summary (malloc'd) when the dumps cannot belong to one job, else NULL. */
char *fa_mixed_jobs(const fa_input *in, const fa_groups *groups, fa_findings *findings);

#endif
