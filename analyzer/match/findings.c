/* findings.c — the findings list and the names of finding kinds (see findings.h). */
#include "match/findings.h"
#include "util/xmalloc.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

fa_finding *fa_findings_add(fa_findings *list, fa_finding_kind kind, long group, long op) {
    xgrow((void **)&list->v, &list->cap, list->n + 1, sizeof *list->v, 16);
    fa_finding *f = &list->v[list->n++];
    memset(f, 0, sizeof *f);
    f->kind = kind;
    f->group = group;
    f->op = op;
    f->listed = true;
    return f;
}

void fa_finding_set_detail(fa_finding *f, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    char *text = xvasprintf(fmt, ap);
    va_end(ap);
    free(f->detail);
    f->detail = text;
}

void fa_finding_release(fa_finding *f) {
    fa_ranks_free(&f->ranks);
    fa_ranks_free(&f->others);
    free(f->detail);
    free(f->odd_what);
    free(f->usual_what);
    memset(f, 0, sizeof *f);
}

void fa_findings_truncate(fa_findings *list, size_t n) {
    while (list->n > n) fa_finding_release(&list->v[--list->n]);
}

void fa_findings_free(fa_findings *list) {
    fa_findings_truncate(list, 0);
    free(list->v);
    memset(list, 0, sizeof *list);
}

const char *fa_finding_kind_name(fa_finding_kind kind) {
    switch (kind) {
    case FA_MISSING_RANKS: return "missing_ranks";
    case FA_TYPE_MISMATCH: return "type_mismatch";
    case FA_SIZE_MISMATCH: return "size_mismatch";
    case FA_DTYPE_MISMATCH: return "dtype_mismatch";
    case FA_STATE_MISMATCH: return "state_mismatch";
    case FA_ALLTOALL_SIZE_MISMATCH: return "alltoall_size_mismatch";
    case FA_P2P_UNMATCHED: return "p2p_unmatched";
    case FA_STUCK_COLLECTIVE: return "stuck_collective";
    case FA_MISSING_DUMP: return "missing_dump";
    case FA_REJECTED_FILE: return "rejected_file";
    case FA_VERSION_MISMATCH: return "version_mismatch";
    case FA_LAGGING_RANKS: return "lagging_ranks";
    case FA_GROUP_MISMATCH: return "group_mismatch";
    case FA_MEMBERSHIP_INFERRED: return "membership_inferred";
    case FA_MIXED_JOBS: return "mixed_jobs";
    }
    return "unknown";
}

bool fa_finding_is_warning(fa_finding_kind kind) {
    return kind == FA_REJECTED_FILE || kind == FA_VERSION_MISMATCH || kind == FA_LAGGING_RANKS ||
           kind == FA_GROUP_MISMATCH || kind == FA_P2P_UNMATCHED || kind == FA_MEMBERSHIP_INFERRED;
}

int fa_finding_order(const fa_finding *f, size_t index, size_t first_culprit, size_t nculprit) {
    if (fa_finding_is_warning(f->kind)) return FA_ORDER_WARNINGS;
    if ((index >= first_culprit && index < first_culprit + nculprit) ||
        fa_finding_is_mismatch(f->kind) || f->kind == FA_MIXED_JOBS)
        return f->cause == FA_CAUSE_UNREADABLE ? FA_ORDER_UNREADABLE : FA_ORDER_ROOT_CAUSES;
    return FA_ORDER_EVIDENCE;
}

bool fa_finding_is_mismatch(fa_finding_kind kind) {
    return kind == FA_TYPE_MISMATCH || kind == FA_SIZE_MISMATCH || kind == FA_DTYPE_MISMATCH ||
           kind == FA_ALLTOALL_SIZE_MISMATCH;
}
