/* verdict.h — who waits for whom, across groups; the root causes; the one-line summary.
 *
 * The wait graph has a node per rank and per pending operation. A rank with op X pending waits
 * on X; X waits on each expected member that has it pending too (a joint wait) or never issued
 * it (a strong wait: "that rank never joined") or wrote no dump. A rank has GPU-lag evidence
 * when it has X pending while a peer completed X: its stream stopped finishing work its peers
 * finished. In every sink strongly connected component that someone waits on, the culprits are
 * the ranks with lag evidence if any (state_mismatch); otherwise the ranks waited for
 * (missing_ranks, or missing_dump); otherwise nobody is missing: a collective that some members
 * started and others never started names the latter; all started with work queued behind is a
 * stuck_collective with no culprit; plain in-flight work everyone agrees on is ok. Ranks waited
 * for that are themselves blocked elsewhere are victims (lagging_ranks). Any type/size/dtype
 * disagreement makes the status `mismatch`, with the minority as culprits.
 */
#ifndef FRTRACE_VERDICT_H
#define FRTRACE_VERDICT_H

#include "findings.h"
#include "groups.h"
#include "load.h"
#include "match.h"
#include "ranks.h"

typedef enum fa_status {
    FA_STATUS_OK,
    FA_STATUS_HANG,
    FA_STATUS_MISMATCH,
    FA_STATUS_INCONCLUSIVE,
} fa_status;

typedef struct fa_verdict {
    fa_status status;
    fa_ranks culprits;
    char *summary;
    size_t nculprit_findings; /* findings[first_culprit_finding..+n) explain the culprits */
    size_t first_culprit_finding;
} fa_verdict;

int fa_verdict_decide(const fa_input *in, const fa_groups *groups, const fa_match *m, fa_findings *findings, fa_verdict *v,
                      fr_error *err);
void fa_verdict_free(fa_verdict *v);
const char *fa_status_name(fa_status status);

/* "all_reduce #3" or "send 0->1 (p2p #4)": how an op is named everywhere. */
void fa_op_label(const fa_match *m, size_t op, char *buf, size_t len);

#endif
