/* verdict.h — who waits for whom, across groups; the root causes; the one-line summary.
 *
 * The wait graph has a node per rank and per pending operation. A rank with op X pending waits
 * on X; X waits on each expected member that has it pending too (a joint wait) or never issued
 * it (a strong wait: "that rank never joined") or wrote no dump. A rank has GPU-lag evidence
 * when it has X pending while a peer completed X: its stream stopped finishing work its peers
 * finished; an op that every member with it pending issued after its own stalled op is queued
 * behind the stall and waits for nobody yet. In every sink strongly connected component that
 * someone waits on, the culprits are
 * the ranks with lag evidence if any (state_mismatch); otherwise the ranks waited for
 * (missing_ranks, or missing_dump); otherwise nobody is missing: a collective that some members
 * started and others never started names the latter; all started with work queued behind is a
 * stuck_collective with no culprit; plain in-flight work everyone agrees on is ok. A rank whose
 * GPU stalled in its oldest pending op, which every other member completed or stalled in too
 * (most of them completed it), is a culprit beside the sinks' (a second root: nobody holds it up
 * there). Ranks waited
 * for that are themselves blocked elsewhere are victims (lagging_ranks). Any type/size/dtype
 * disagreement makes the status `mismatch`, with the minority as culprits.
 *
 * Once the culprits are known, the verdict also records what the reports present: each
 * culprit's evidence in every group (not only the op that names it in the summary), the wait
 * chain condensed into at most three levels of rank ranges (so it stays a few lines at 16k
 * ranks), and which p2p_unmatched findings the hang explains (the absent side is a culprit or is
 * blocked itself), so that reports fold those into one count.
 *
 * Inconclusive: the dumps hold no entries at all; or every culprit is a member without a
 * readable dump while some loaded rank waits for nobody, so a stopped rank and a lost dump look
 * alike (when every loaded rank waits for it, docs/database.md §6 names it: missing_dump).
 *
 * Recorder dumps also say what the rank knew of itself (the "frtrace" key). A rank that dumped
 * from a fatal signal's handler ("fatal:N") crashed, and a communicator in state
 * "async_error:X" is broken: such a member takes no further part in that group (every group,
 * after a crash). It waits on nothing there; others pending in an op of the group wait on it;
 * and its own pending entries there are not GPU lag (a crashed process cannot query its
 * events). In a sink, a member others wait on in a group where it is broken is the culprit
 * before lag and before missing ranks: its dump says why (missing_ranks for a crash,
 * state_mismatch for an async error, with the story in the detail and the summary). A rank
 * that dumped because it was stuck inside an NCCL call ("stuck_in_api") turns a verdict the
 * entries cannot decide (no entries, or nothing blocked) into an inconclusive one that says so.
 */
#ifndef FRTRACE_VERDICT_H
#define FRTRACE_VERDICT_H

#include "match/findings.h"
#include "match/groups.h"
#include "load/load.h"
#include "match/match.h"
#include "verdict/verdict_title.h"
#include "util/ranks.h"

typedef enum fa_status {
    FA_STATUS_OK,
    FA_STATUS_HANG,
    FA_STATUS_MISMATCH,
    FA_STATUS_INCONCLUSIVE,
} fa_status;

/* What a culprit did in one operation: the rows of its evidence across every group. */
typedef enum fa_evidence_kind {
    FA_EV_NEVER_ISSUED,  /* others wait in it; the culprit's dump shows it never issued it */
    FA_EV_NO_DUMP,       /* others wait in it; the culprit wrote no dump */
    FA_EV_UNREADABLE,    /* others wait in it; the culprit's dump exists but was rejected */
    FA_EV_STALLED,       /* pending on the culprit while a peer completed it (GPU lag) */
    FA_EV_NEVER_STARTED, /* scheduled on the culprit, started on its peers */
    FA_EV_MISMATCHED,    /* its call disagrees with the majority (type, size, dtype) */
    FA_EV_CRASHED,       /* others wait in it; the culprit's process died (signal) */
    FA_EV_ASYNC_ERROR,   /* others wait in it; the culprit's communicator reported `error` */
} fa_evidence_kind;

typedef struct fa_evidence {
    int64_t rank;   /* the culprit */
    long op;        /* index into fa_match.ops */
    uint32_t group; /* the op's group and seq: the evidence is sorted by rank, group, kind, seq */
    int64_t seq;
    bool p2p; /* sends/recvs sort after the collectives */
    fa_evidence_kind kind;
    fa_ranks waiters;  /* members with the op pending, the culprit excluded */
    fa_ranks done;     /* members that completed it (stalled), or started it (never started) */
    int signal;        /* FA_EV_CRASHED: the fatal signal's number (0 unknown) */
    const char *error; /* FA_EV_ASYNC_ERROR: ncclResult name ("ncclRemoteError"); in the store */
} fa_evidence;

/* One level of the wait chain: blocked ranks, whom they wait for, and in what. Level 0 is the
 * culprits; level 1 the blocked ranks others wait for (victims that look like causes); level 2
 * the ranks that only wait. `via` names the groups (by desc) and op types of the waits. */
typedef struct fa_wait_level {
    fa_ranks ranks;
    fa_ranks waits_for;
    char *via; /* "PIPELINE_MODEL_PARALLEL_GROUP send/recv, default_pg recv" (NULL for level 0) */
} fa_wait_level;

#define FA_WAIT_LEVELS 3

/* One explanation the dumps allow when they cannot pin the root cause down (verdict_possible.c):
 * the ranks at fault if it is the truth, and in words. */
typedef struct fa_alternative {
    fa_ranks ranks;
    char *explanation;
} fa_alternative;

#define FA_MAX_ALTERNATIVES 16

typedef struct fa_verdict {
    fa_status status;
    fa_ranks culprits;
    char *summary;
    size_t nculprit_findings; /* findings[first_culprit_finding..+n) explain the culprits */
    size_t first_culprit_finding;
    fa_evidence *evidence; /* per culprit, ascending rank, then by group and seq */
    size_t nevidence, evidence_cap;
    fa_wait_level levels[FA_WAIT_LEVELS];
    size_t nexplained_p2p; /* p2p_unmatched findings explained by the hang (finding.explained) */
    fa_alternative *alternatives; /* empty when the culprits are the whole answer */
    size_t nalternatives;
    /* Ranks whose dumps the match held older by fa_stale.stall_first alone and the verdict read
     * final, their GPUs stalled (verdict_either.c): fa_match_read_final makes the match agree. */
    fa_ranks read_final;
} fa_verdict;

int fa_verdict_decide(const fa_input *in, const fa_groups *groups, const fa_match *m,
                      fa_findings *findings, fa_verdict *v, fr_error *err);
void fa_verdict_free(fa_verdict *v);
/* Inconclusive after all, with `summary` (taken over): no culprits, evidence or wait chain. */
void fa_verdict_withdraw(fa_verdict *v, char *summary);
/* Inconclusive instead of ok where some ranks' entries had no place in their groups (groups.h,
 * outsiders): nothing can be said of the collectives they recorded. */
void fa_verdict_doubt_outsiders(fa_verdict *v, const fa_groups *groups);
const char *fa_status_name(fa_status status);

/* fa_signal_label and fa_op_label, how a crash and an op are named everywhere: verdict_title.h. */

#endif
