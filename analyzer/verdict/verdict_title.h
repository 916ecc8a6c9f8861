/* verdict_title.h — the verdict's summary line, and the labels it and the reports share.
 *
 * fa_verdict_title writes "hang: ranks 9,14 never joined EXPERT_MODEL_PARALLEL_GROUP (72)
 * all_to_all #45265 (ranks 8,10-13,15 wait)" from the culprit-bearing findings: every culprit
 * rank named, at most FA_TITLE_WIDTH columns where that is possible (verdict_title.c says how).
 * It reads findings, groups and matched ops only; the judging is verdict.c's.
 */
#ifndef FRTRACE_VERDICT_TITLE_H
#define FRTRACE_VERDICT_TITLE_H

#include <stdbool.h>
#include <stddef.h>

#include "match/findings.h"
#include "match/groups.h"
#include "match/match.h"

enum { FA_TITLE_WIDTH = 100 };

typedef struct fa_title_input {
    const char *lead; /* "hang", "mismatch" */
    const fa_findings *findings;
    size_t from; /* the first finding that may name a culprit */
    bool (*pick)(fa_finding_kind kind);
    const fa_groups *groups;
    const fa_match *match;
    const char *suffix; /* appended as is ("; gloo records no send/recv"), or NULL */
} fa_title_input;

/* The summary line (malloc'd), or NULL when out of memory. */
char *fa_verdict_title(const fa_title_input *in);

/* "SIGSEGV", "signal 42", "a fatal signal" (0). */
void fa_signal_label(int signal, char *buf, size_t len);
/* "all_reduce #3", or "send 0->1 (p2p #2)" with global ranks. */
void fa_op_label(const fa_match *m, size_t op, char *buf, size_t len);

#endif
