/* analysis.h — the whole pipeline in one call: load -> groups -> match -> verdict.
 *
 * fa_analyze() fills an fa_analysis that reports read; it adds the input findings
 * (rejected_file, version_mismatch, group notes) so that every finding lives in one list.
 */
#ifndef FRTRACE_ANALYSIS_H
#define FRTRACE_ANALYSIS_H

#include "match/findings.h"
#include "match/groups.h"
#include "load/load.h"
#include "match/match.h"
#include "perf/perf.h"
#include "util/progress.h"
#include "verdict/verdict.h"

/* Findings listed per group by default (--mismatch-cap N). */
enum { FA_DEFAULT_MISMATCH_CAP = 10 };

typedef struct fa_options {
    const char *dir;
    const char *prefix;
    int jobs;
    int mismatch_cap;
    int64_t ft_group_world_size; /* --transform-ft --group-world-size N; 0: off */
    double straggler_floor_ms;   /* --straggler-floor-ms; 0: the default (perf.h) */
    const char *hosts_file;      /* --hosts FILE (hosts.h), or NULL */
    fa_progress *progress;       /* how far it has come, for a progress line; NULL: nobody asks */
} fa_options;

typedef struct fa_analysis {
    fa_input in;
    fa_groups groups;
    fa_match match;
    fa_findings findings;
    fa_verdict verdict;
    fa_perf perf; /* stragglers and stats (perf.h) */
} fa_analysis;

/* Loads the dumps (fa_load_dir) and applies --transform-ft when asked. 0, or -1 with err. */
int fa_load_input(const fa_options *opt, fa_input *in, fr_error *err);

/* 0 on success; -1 with err when nothing could be analyzed (unreadable dir, no dump read). */
int fa_analyze(const fa_options *opt, fa_analysis *a, fr_error *err);
void fa_analysis_free(fa_analysis *a);

#endif
