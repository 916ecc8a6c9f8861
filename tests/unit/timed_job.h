/* timed_job.h — the perf unit tests' small jobs: a few ranks' dumps written as JSON (PyTorch's
 * keys), every entry a completed all_reduce with its arrival and completion times (ms), each
 * rank's stamps read on its own clock (ms ahead of the true time), then analyzed whole
 * (fa_analyze) for the input, groups and match the perf stages read. Groups are given by their
 * members; group g is named "g" in every member's pg_config. A rank can be left without a dump.
 * The files are written, analyzed and removed by job_dumps.h, as test_verdict.c's jobs are. */
#ifndef FRTRACE_TEST_TIMED_JOB_H
#define FRTRACE_TEST_TIMED_JOB_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis.h"
#include "job_dumps.h"

enum { TJ_MAX_RANKS = 8, TJ_MAX_GROUPS = 8, TJ_ENTRIES_BYTES = 65536, TJ_ENTRY_BYTES = 1024 };
#define TJ_T0_NS 1700000000000000000LL

typedef struct timed_job {
    int world, ngroups;
    int member[TJ_MAX_GROUPS][TJ_MAX_RANKS]; /* member[g][r]: 1 when rank r is in group g */
    double clock_ms[TJ_MAX_RANKS];           /* how far ahead each rank's clock reads */
    int no_dump[TJ_MAX_RANKS];               /* 1: the rank left no dump (its calls unwritten) */
    int no_durations;                        /* 1: tj_call writes no duration_ms (timing off) */
    int gloo; /* 1: tj_call writes gloo's all_reduce: no discovered times, "scheduled" (blocks) */
    int same_launch; /* 1: tj_call's call joins its rank's previous one in the group: a
                      * coalesced group's member whose end marker is not shown (one seq id) */
    const char *op;  /* the profiling name tj_call writes on NCCL (NULL: nccl:all_reduce) */
    char entries[TJ_MAX_RANKS][TJ_ENTRIES_BYTES];
    int nentries[TJ_MAX_RANKS];
    int seq[TJ_MAX_RANKS][TJ_MAX_GROUPS];     /* the last collective_seq_id per rank and group */
    int p2p_seq[TJ_MAX_RANKS][TJ_MAX_GROUPS]; /* the last p2p_seq_id per rank and group */
    char dir[JD_DIR_BYTES];
    fa_analysis a;
} timed_job;

/* Adds group g of the ranks listed (-1 ends the list). */
static inline void tj_group(timed_job *j, const int *ranks) {
    for (int i = 0; ranks[i] >= 0; i++) j->member[j->ngroups][ranks[i]] = 1;
    j->ngroups++;
}

static inline long long tj_ns(const timed_job *j, int rank, double ms) {
    return TJ_T0_NS + (long long)((ms + j->clock_ms[rank]) * 1e6);
}

/* rank enters its next all_reduce of group g at `arrival` ms; done > 0: completed at `done` ms
 * (true times; the dump reads them on the rank's clock); done 0: still "started" when its dump
 * was taken (no completion, no duration). In a gloo job (j->gloo) only the arrival is written. */
static inline void tj_call(timed_job *j, int rank, int g, double arrival, double done) {
    char *at = j->entries[rank] + strlen(j->entries[rank]);
    assert_true(at + TJ_ENTRY_BYTES < j->entries[rank] + TJ_ENTRIES_BYTES);
    int id = j->nentries[rank]++, seq = j->same_launch ? j->seq[rank][g] : ++j->seq[rank][g];
    char completed[32] = "null", duration[32] = "null";
    if (j->gloo) {
        sprintf(at,
                "%s{\"record_id\": %d, \"pg_id\": %d, \"process_group\": [\"%d\", \"default\"], "
                "\"collective_seq_id\": %d, \"p2p_seq_id\": 0, \"op_id\": %d, "
                "\"profiling_name\": \"gloo:all_reduce\", \"time_created_ns\": %lld, "
                "\"time_discovered_started_ns\": 0, \"time_discovered_completed_ns\": 0, "
                "\"input_sizes\": [[4]], \"input_dtypes\": [\"Float\"], \"output_sizes\": "
                "[[4]], \"output_dtypes\": [\"Float\"], \"state\": \"scheduled\", "
                "\"retired\": true, \"timeout_ms\": 600000, \"is_p2p\": false, \"frames\": []}",
                id ? ", " : "", id, g, g, seq, seq, tj_ns(j, rank, arrival));
        return;
    }
    if (done > 0) {
        snprintf(completed, sizeof completed, "%lld", tj_ns(j, rank, done));
        if (!j->no_durations) snprintf(duration, sizeof duration, "%.3f", done - arrival);
    }
    sprintf(at,
            "%s{\"record_id\": %d, \"pg_id\": %d, \"process_group\": [\"%d\", \"default\"], "
            "\"collective_seq_id\": %d, \"p2p_seq_id\": 0, \"op_id\": %d, "
            "\"profiling_name\": \"%s\", \"time_created_ns\": %lld, "
            "\"time_discovered_started_ns\": %lld, \"time_discovered_completed_ns\": %s, "
            "\"duration_ms\": %s, \"input_sizes\": [[4, 4]], \"input_dtypes\": [\"Float\"], "
            "\"output_sizes\": [[4, 4]], \"output_dtypes\": [\"Float\"], \"state\": "
            "\"%s\", \"retired\": %s, \"timeout_ms\": 600000, \"is_p2p\": false, "
            "\"frames\": []}",
            id ? ", " : "", id, g, g, seq, seq + j->p2p_seq[rank][g],
            j->op ? j->op : "nccl:all_reduce", tj_ns(j, rank, arrival), tj_ns(j, rank, arrival),
            completed, duration, done > 0 ? "completed" : "started", done > 0 ? "true" : "false");
}

/* rank sends to group rank `to` of group g (its next send/recv there) at `arrival` ms, completed
 * at `done` ms: a completed NCCL send, as tj_call's all_reduce. */
static inline void tj_send(timed_job *j, int rank, int g, int to, double arrival, double done) {
    char *at = j->entries[rank] + strlen(j->entries[rank]);
    assert_true(at + TJ_ENTRY_BYTES < j->entries[rank] + TJ_ENTRIES_BYTES);
    int id = j->nentries[rank]++, seq = ++j->p2p_seq[rank][g], from = 0;
    for (int r = 0; r < rank; r++) from += j->member[g][r];
    sprintf(at,
            "%s{\"record_id\": %d, \"pg_id\": %d, \"process_group\": [\"%d\", \"default\"], "
            "\"collective_seq_id\": 0, \"p2p_seq_id\": %d, \"op_id\": %d, "
            "\"profiling_name\": \"nccl:send %d->%d\", \"time_created_ns\": %lld, "
            "\"time_discovered_started_ns\": %lld, \"time_discovered_completed_ns\": %lld, "
            "\"duration_ms\": %.3f, \"input_sizes\": [[4, 4]], \"input_dtypes\": [\"Float\"], "
            "\"output_sizes\": [[4, 4]], \"output_dtypes\": [\"Float\"], \"state\": "
            "\"completed\", \"retired\": true, \"timeout_ms\": 600000, \"is_p2p\": true, "
            "\"frames\": []}",
            id ? ", " : "", id, g, g, seq, j->seq[rank][g] + seq, from, to, tj_ns(j, rank, arrival),
            tj_ns(j, rank, arrival), tj_ns(j, rank, done), done - arrival);
}

static inline void tj_write_ranks(FILE *f, const timed_job *j, int g) {
    fprintf(f, "[");
    for (int r = 0, n = 0; r < j->world; r++)
        if (j->member[g][r]) fprintf(f, "%s%d", n++ ? ", " : "", r);
    fprintf(f, "]");
}

/* Writes rank r's groups into its pg_config (job_dumps.h's callback). */
static inline void tj_write_groups(FILE *f, const void *ctx, int r) {
    const timed_job *j = ctx;
    for (int g = 0, n = 0; g < j->ngroups; g++) {
        if (!j->member[g][r]) continue;
        fprintf(f, "%s\"%d\": {\"name\": \"%d\", \"desc\": \"default\", \"ranks\": \"",
                n++ ? ", " : "", g, g);
        tj_write_ranks(f, j, g);
        fprintf(f, "\"}");
    }
}

/* Writes the dumps and analyzes them (j->a). */
static inline void tj_run(timed_job *j) {
    jd_make_dir(j->dir, "test_timed_job");
    for (int r = 0; r < j->world; r++) {
        jd_dump dump = { .entries = j->no_dump[r] ? NULL : j->entries[r],
                         .pg_status = "",
                         .frtrace = "" };
        jd_write(j->dir, r, &dump, tj_write_groups, j);
    }
    jd_analyze(j->dir, &j->a);
}

static inline void tj_done(timed_job *j) { jd_remove(j->dir, j->world, &j->a); }

/* Group g's index in the analysis (its name is "g"), asserted found. */
static inline uint32_t tj_group_index(const timed_job *j, int g) {
    char name[16];
    snprintf(name, sizeof name, "%d", g);
    for (size_t i = 0; i < j->a.groups.n; i++)
        if (strcmp(j->a.groups.v[i].name, name) == 0) return (uint32_t)i;
    fail_msg("group %s not found", name);
    return 0;
}

#endif
