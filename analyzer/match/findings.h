/* findings.h — what the analysis found, as data: one list shared by match and verdict.
 *
 * A finding has a kind (docs/database.md §5), the group and collective it is about (when it
 * is about one), the ranks it names (for a culprit-bearing finding, the ranks at fault), the
 * ranks on the other side (waiting, or the majority), and one detail sentence. Warnings
 * (rejected_file, version_mismatch, lagging_ranks, and notes) never change the status alone.
 * Reports print findings; they never decide them.
 */
#ifndef FRTRACE_FINDINGS_H
#define FRTRACE_FINDINGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/ranks.h"

typedef enum fa_finding_kind {
    FA_MISSING_RANKS,
    FA_TYPE_MISMATCH,
    FA_SIZE_MISMATCH,
    FA_DTYPE_MISMATCH,
    FA_STATE_MISMATCH,
    FA_ALLTOALL_SIZE_MISMATCH,
    FA_P2P_UNMATCHED,
    FA_STUCK_COLLECTIVE,
    FA_MISSING_DUMP,
    FA_REJECTED_FILE,
    FA_VERSION_MISMATCH,
    FA_LAGGING_RANKS,
    FA_GROUP_MISMATCH,      /* ranks disagree about a group's description */
    FA_MEMBERSHIP_INFERRED, /* members rebuilt from the entries: pg_config lacks the group */
    FA_MIXED_JOBS,          /* dumps that cannot belong to one job (mixed.c) */
} fa_finding_kind;

/* What a culprit-bearing finding rests on when the culprit's own dump says what happened (the
 * recorder's "frtrace" key), rather than what its entries imply: the summary tells that story. */
typedef enum fa_cause {
    FA_CAUSE_ENTRIES,       /* inferred from the entries (every PyTorch dump) */
    FA_CAUSE_CRASH,         /* the process died by a fatal signal (trigger "fatal:N") */
    FA_CAUSE_ASYNC_ERROR,   /* its communicator reported an asynchronous NCCL error */
    FA_CAUSE_UNREADABLE,    /* missing_dump: the rank's file exists but was rejected (unreadable) */
    FA_CAUSE_NEVER_STARTED, /* state_mismatch: others started it on the GPU, these never did */
    FA_CAUSE_TIMEOUT,       /* stuck_collective: scheduled everywhere past a watchdog's timeout */
    FA_CAUSE_WRONG_PEER,    /* missing_ranks: issued, but queued behind its own send/recv posted
                             * to the wrong peer, which its stream never gets past */
    FA_CAUSE_WENT_ALONE,    /* missing_ranks: the culprit issued the op alone and waits there;
                             * `others` are the idle members that never did (verdict_sinks.c) */
    FA_CAUSE_UNFINISHED_SETUP, /* missing_ranks with no op: still inside the call that makes the
                                * group's communicator, which its peers made and wait on
                                * (verdict_setup.c; odd_what the call, usual_what theirs) */
} fa_cause;

typedef struct fa_finding {
    fa_finding_kind kind;
    long group;      /* index into fa_groups, or -1 */
    long op;         /* index into fa_match.ops, or -1 */
    fa_ranks ranks;  /* the ranks this finding is about (culprits, rejected rank, ...) */
    fa_ranks others; /* waiting ranks, or the majority */
    char *detail;
    bool listed;    /* false when over --mismatch-cap for its group (counted, not shown) */
    bool explained; /* p2p_unmatched whose absent side is a culprit or blocked: part of the hang */
    fa_cause cause;
    int signal;        /* FA_CAUSE_CRASH: the signal's number, 0 unknown */
    const char *error; /* FA_CAUSE_ASYNC_ERROR: the ncclResult name (in the store), or NULL */
    /* type_mismatch and dtype_mismatch: what the culprits issued ("all_gather", "Int") and what
     * the others did ("all_reduce", "Float"), malloc'd, so that a title can name both; NULL
     * when the dumps do not say (no majority side). FA_CAUSE_UNFINISHED_SETUP: the NCCL calls
     * the culprits and the others are inside ("ncclCommInitRank", "ncclCommSplit"). */
    char *odd_what, *usual_what;
} fa_finding;

typedef struct fa_findings {
    fa_finding *v;
    size_t n, cap;
} fa_findings;

/* Appends a finding and returns it (ranks empty, detail NULL); never NULL (xmalloc.h). */
fa_finding *fa_findings_add(fa_findings *list, fa_finding_kind kind, long group, long op);
void fa_finding_set_detail(fa_finding *f, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void fa_findings_free(fa_findings *list);
/* Frees what one finding holds (it stays in the list, zeroed). */
void fa_finding_release(fa_finding *f);
/* Drops the findings from the n-th on (a verdict's reading that is not kept). */
void fa_findings_truncate(fa_findings *list, size_t n);

const char *fa_finding_kind_name(fa_finding_kind kind);
bool fa_finding_is_warning(fa_finding_kind kind);
/* Where a finding goes when listed, for scripts and readers alike: the root causes found from
 * evidence (a culprit's: findings [first_culprit, +nculprit) of the verdict, a mismatch, mixed
 * jobs), then unreadable dumps that others wait for (never ahead of evidence), then the
 * victims' evidence, then warnings. Within a class the findings keep their order. */
enum {
    FA_ORDER_ROOT_CAUSES,
    FA_ORDER_UNREADABLE,
    FA_ORDER_EVIDENCE,
    FA_ORDER_WARNINGS,
    FA_ORDER_COUNT
};
int fa_finding_order(const fa_finding *f, size_t index, size_t first_culprit, size_t nculprit);
bool fa_finding_is_mismatch(fa_finding_kind kind); /* type/size/dtype/all_to_all size */

#endif
