/* verdict_explain.h — what the verdict presents once the culprits are known (verdict_explain.c).
 * Internal to verdict*.c: verdict.c calls it after judging the sinks.
 */
#ifndef FRTRACE_VERDICT_EXPLAIN_H
#define FRTRACE_VERDICT_EXPLAIN_H

#include "verdict/verdict_graph.h"

/* Evidence per culprit (after the first nmatch_findings findings, the matcher's, whose mismatches
 * it reads), the wait chain, the lagging_ranks finding, explained p2p findings. 0, or -1 when out
 * of memory. */
int fa_verdict_explain(decider *d, size_t nmatch_findings);

#endif
