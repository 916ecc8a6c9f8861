/* test_verdict.c — the verdict's wait graph, told as small jobs: who is the culprit, who is a
 * victim, what the wait chain and the culprit evidence say.
 *
 * Each case writes a few ranks' dumps as JSON (PyTorch's keys, as torchcomms writes them) into a
 * temporary directory and runs the whole analysis through fa_analyze(), so that the cases do
 * not depend on how fr_entry is laid out inside. A job is a list of groups and, per rank, the
 * entries it recorded ("group op seq state"); a rank can be left without a dump, and the job's
 * backend (the profiling names' prefix, "nccl") can be gloo's, and a rank's dump can carry the
 * recorder's "frtrace" key.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis.h"
#include "job_dumps.h"

enum { MAX_RANKS = 10, MAX_GROUPS = 8 };

typedef struct job {
    int world;
    const char *group_name[MAX_GROUPS], *group_desc[MAX_GROUPS],
        *group_ranks[MAX_GROUPS]; /* "[0, 1]"; "[]" (members unknown): in every rank's dump */
    int ngroups;
    char entries[MAX_RANKS][4096];
    int nentries[MAX_RANKS];
    int skip[MAX_RANKS];              /* 1: this rank wrote no dump; 2: a file cut short; 3: a
                                       * file cut inside its entries, after the whole ones (its
                                       * pg_config was after the cut); 4: cut inside its
                                       * entries, pg_config and pg_status before them whole */
    int coll_p2p_seq;                 /* what rec() writes as p2p_seq_id: a collective carries
                                       * its group's send/recv count so far; 0 unless set */
    int p2p_coll_seq;                 /* what p2p() and batch_end() write as collective_seq_id
                                       * (the group's collective count so far); 0 unless set */
    int no_config[MAX_RANKS];         /* 1: the rank's pg_config is empty (lost with a cut) */
    const char *backend;              /* the profiling names' prefix: "nccl" unless set */
    int gloo_config;                  /* 1: pg_config holds only gloo's key "" (members inferred) */
    int op_id[MAX_RANKS][MAX_GROUPS]; /* per rank and group: the last op id (PyTorch counts per
                                       * group; gap() skips one, as gloo's unrecorded p2p do) */
    char status[MAX_RANKS][512];      /* the rank's pg_status, or "" (none) */
    char frtrace[MAX_RANKS][512];     /* the recorder's "frtrace" key of the rank's dump, or "" */
    const char *output_sizes;         /* what rec() writes as output_sizes; NULL: [[4, 4]] */
    int first_record[MAX_RANKS];      /* the record_id of the rank's first entry: > 0, a ring
                                       * that wrapped (what came before is gone) */
    const char *unmade[MAX_RANKS];    /* a group of the rank that its pg_config leaves out: its
                                       * communicator was never made (NULL: none) */
    const char *p2p_sizes, *p2p_dtype; /* what p2p() writes as sizes and dtype; NULL: [[4, 4]],
                                        * Float */
    char dir[JD_DIR_BYTES];
    fa_analysis a;
} job;

static void job_init(job *j, int world) {
    memset(j, 0, sizeof *j);
    j->world = world;
    j->group_name[0] = "0";
    j->group_desc[0] = "default_pg";
    j->group_ranks[0] = world == 2 ? "[0, 1]" : world == 3 ? "[0, 1, 2]" : "[0, 1, 2, 3]";
    j->ngroups = 1;
}

static void group(job *j, const char *name, const char *desc, const char *ranks) {
    j->group_name[j->ngroups] = name;
    j->group_desc[j->ngroups] = desc;
    j->group_ranks[j->ngroups++] = ranks;
}

static const char *desc_of(const job *j, const char *name) {
    for (int g = 0; g < j->ngroups; g++)
        if (strcmp(j->group_name[g], name) == 0) return j->group_desc[g];
    return "?";
}

/* gloo never moves an entry past "scheduled"; `retired` says it finished (or failed). */
static const char *gloo_state(const job *j, const char *state) {
    return j->backend && strcmp(j->backend, "gloo") == 0 ? "scheduled" : state;
}

static int group_index(const job *j, const char *name) {
    for (int g = 0; g < j->ngroups; g++)
        if (strcmp(j->group_name[g], name) == 0) return g;
    return 0;
}

/* rank runs an operation in group `name` that its backend does not record (gloo's send/recv). */
static void gap(job *j, int rank, const char *name) { j->op_id[rank][group_index(j, name)]++; }

/* rank records `op` (e.g. "all_reduce") as collective `seq` of group `name` in `state`. */
static void rec(job *j, int rank, const char *name, const char *op, int seq, const char *state) {
    char *at = j->entries[rank] + strlen(j->entries[rank]);
    int id = j->nentries[rank]++, op_id = ++j->op_id[rank][group_index(j, name)];
    sprintf(at,
            "%s{\"record_id\": %d, \"pg_id\": %s, \"process_group\": [\"%s\", \"%s\"], "
            "\"collective_seq_id\": %d, "
            "\"p2p_seq_id\": %d, \"op_id\": %d, \"profiling_name\": \"%s:%s\", "
            "\"time_created_ns\": %d, "
            "\"input_sizes\": [[4, 4]], \"input_dtypes\": [\"Float\"], \"output_sizes\": %s, "
            "\"output_dtypes\": [\"Float\"], "
            "\"state\": \"%s\", \"retired\": %s, \"timeout_ms\": 600000, \"is_p2p\": false, "
            "\"frames\": []}",
            id ? ", " : "", j->first_record[rank] + id, name, name, desc_of(j, name), seq,
            j->coll_p2p_seq, op_id, j->backend ? j->backend : "nccl", op, id,
            j->output_sizes ? j->output_sizes : "[[4, 4]]", gloo_state(j, state),
            strcmp(state, "completed") ? "false" : "true");
}

/* rank records a send/recv ("send 0->2": group ranks) as p2p `seq` of group `name`. */
static void p2p(job *j, int rank, const char *name, const char *what, int seq, const char *state) {
    char *at = j->entries[rank] + strlen(j->entries[rank]);
    const char *sizes = j->p2p_sizes ? j->p2p_sizes : "[[4, 4]]",
               *dtype = j->p2p_dtype ? j->p2p_dtype : "Float";
    int id = j->nentries[rank]++, op_id = ++j->op_id[rank][group_index(j, name)];
    sprintf(at,
            "%s{\"record_id\": %d, \"pg_id\": %s, \"process_group\": [\"%s\", \"%s\"], "
            "\"collective_seq_id\": %d, \"p2p_seq_id\": %d, \"op_id\": %d, "
            "\"profiling_name\": \"nccl:%s\", \"time_created_ns\": %d, "
            "\"input_sizes\": %s, \"input_dtypes\": [\"%s\"], \"output_sizes\": %s, "
            "\"output_dtypes\": [\"%s\"], \"state\": \"%s\", \"retired\": false, "
            "\"timeout_ms\": 600000, \"is_p2p\": true, \"frames\": []}",
            id ? ", " : "", j->first_record[rank] + id, name, name, desc_of(j, name),
            j->p2p_coll_seq, seq, op_id, what, id, sizes, dtype, sizes, dtype, state);
}

/* rank closes its batch_isend_irecv of p2p `seq` in group `name` with the `coalesced` end marker
 * PyTorch writes after the batch's send/recv (their state stays scheduled; the marker's says). */
static void batch_end(job *j, int rank, const char *name, int seq, const char *state) {
    char *at = j->entries[rank] + strlen(j->entries[rank]);
    int id = j->nentries[rank]++, op_id = j->op_id[rank][group_index(j, name)];
    sprintf(at,
            "%s{\"record_id\": %d, \"pg_id\": %s, \"process_group\": [\"%s\", \"%s\"], "
            "\"collective_seq_id\": %d, \"p2p_seq_id\": %d, \"op_id\": %d, "
            "\"profiling_name\": \"nccl:coalesced\", \"time_created_ns\": %d, "
            "\"input_sizes\": [], \"input_dtypes\": [], \"output_sizes\": [], "
            "\"output_dtypes\": [], \"state\": \"%s\", \"retired\": false, "
            "\"timeout_ms\": 600000, \"is_p2p\": false, \"frames\": []}",
            id ? ", " : "", j->first_record[rank] + id, name, name, desc_of(j, name),
            j->p2p_coll_seq, seq, op_id, id, state);
}

/* Every member of group `name` (ranks given) records op seq; states[r] NULL: rank r skips it. */
static void coll(job *j, const char *name, const char *op, int seq,
                 const char *const states[MAX_RANKS]) {
    for (int r = 0; r < j->world; r++)
        if (states[r]) rec(j, r, name, op, seq, states[r]);
}

/* Writes rank r's groups into its pg_config: gloo's one key, or the groups it is a member of. */
static void write_groups(FILE *f, const void *ctx, int r) {
    const job *j = ctx;
    if (j->gloo_config) /* gloo 2.15: one key "", the last group made, group-local ranks */
        fprintf(f, "\"\": {\"name\": \"\", \"desc\": \"\", \"ranks\": \"[0, 1]\"}");
    for (int g = 0, n = 0; g < j->ngroups && !j->gloo_config && !j->no_config[r]; g++) {
        char me[16];
        snprintf(me, sizeof me, "%d", r);
        if (!strstr(j->group_ranks[g], me) && strcmp(j->group_ranks[g], "[]") != 0)
            continue; /* single-digit ranks: a member iff its digit appears */
        if (j->unmade[r] && strcmp(j->unmade[r], j->group_name[g]) == 0) continue;
        fprintf(f, "%s\"%s\": {\"name\": \"%s\", \"desc\": \"%s\", \"ranks\": \"%s\"}",
                n++ ? ", " : "", j->group_name[g], j->group_name[g], j->group_desc[g],
                j->group_ranks[g]);
    }
}

static void run(job *j) {
    jd_make_dir(j->dir, "test_verdict");
    for (int r = 0; r < j->world; r++) {
        jd_dump dump = { .entries = j->skip[r] == 1 ? NULL : j->entries[r],
                         .pg_status = j->status[r],
                         .frtrace = j->frtrace[r],
                         .cut = j->skip[r] == 2   ? JD_CUT_CONFIG
                                : j->skip[r] == 3 ? JD_CUT_ENTRIES
                                : j->skip[r] == 4 ? JD_CUT_AFTER_STATUS
                                                  : JD_WHOLE };
        jd_write(j->dir, r, &dump, write_groups, j);
    }
    jd_analyze(j->dir, &j->a);
}

static void done(job *j) { jd_remove(j->dir, j->world, &j->a); }

static char *culprits(const job *j) {
    return fa_ranks_format(j->a.verdict.culprits.v, j->a.verdict.culprits.n);
}

static void assert_culprits(const job *j, fa_status status, const char *want) {
    char *got = culprits(j);
    if (j->a.verdict.status != status || strcmp(got, want) != 0)
        fail_msg("status %s culprits '%s', expected %s '%s' (%s)",
                 fa_status_name(j->a.verdict.status), got, fa_status_name(status), want,
                 j->a.verdict.summary);
    free(got);
}

/* Whether some explanation the verdict leaves open (verdict.alternatives) names `rank`. */
static bool offers(const job *j, int64_t rank) {
    for (size_t i = 0; i < j->a.verdict.nalternatives; i++)
        if (fa_ranks_contains(&j->a.verdict.alternatives[i].ranks, rank)) return true;
    return false;
}

static const fa_finding *finding(const job *j, fa_finding_kind kind) {
    for (size_t i = 0; i < j->a.findings.n; i++)
        if (j->a.findings.v[i].kind == kind) return &j->a.findings.v[i];
    return NULL;
}

static void assert_ranks(const fa_ranks *r, const char *want) {
    char *got = fa_ranks_format(r->v, r->n);
    assert_string_equal(got, want);
    free(got);
}

#define S(...) ((const char *const[MAX_RANKS]){ __VA_ARGS__ })

/* Ranks 0,1 wait in A for 2; 2 waits in B for 3, which never issued it: 3 is the culprit, 2 a
 * victim (lagging, located in B), and the chain reads 0,1 -> 2 -> 3. */
static void chain_across_groups(void **state) {
    job j;
    job_init(&j, 4);
    group(&j, "1", "A", "[0, 1, 2]");
    group(&j, "2", "B", "[2, 3]");
    coll(&j, "1", "all_reduce", 1, S("completed", "completed", "completed", NULL));
    coll(&j, "2", "all_reduce", 1, S(NULL, NULL, "completed", "completed"));
    coll(&j, "2", "all_reduce", 2, S(NULL, NULL, "scheduled", NULL));
    coll(&j, "1", "all_reduce", 2, S("scheduled", "scheduled", NULL, NULL));
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "3");
    const fa_finding *lag = finding(&j, FA_LAGGING_RANKS);
    assert_non_null(lag);
    assert_ranks(&lag->ranks, "2");
    assert_non_null(strstr(lag->detail, "2 in B (2) all_reduce #2 (waiting for 3)"));
    const fa_verdict *v = &j.a.verdict;
    assert_ranks(&v->levels[0].ranks, "3");
    assert_ranks(&v->levels[1].ranks, "2");
    assert_ranks(&v->levels[1].waits_for, "3");
    assert_ranks(&v->levels[2].ranks, "0,1");
    assert_ranks(&v->levels[2].waits_for, "2");
    assert_string_equal(v->levels[2].via, "A all_reduce");
    assert_int_equal(v->nevidence, 1);
    assert_int_equal(v->evidence[0].kind, FA_EV_NEVER_ISSUED);
    assert_ranks(&v->evidence[0].waiters, "2");
    done(&j);
}

/* Rank 1 completed Y #1, which rank 0 still has pending, and never issued Z #1, which rank 0
 * waits in: 1 is the culprit, and rank 0 waits for it in Z only — not in Y, which the culprit
 * finished (mutation v10: a root is a target of an op only when it has not completed it). gloo,
 * whose calls run on the CPU: no stalled GPU, no stream order (with NCCL, Z #1 would be queued
 * behind a stalled Y #1: an_op_queued_behind_a_stall_waits_for_nobody). */
static void a_culprit_is_not_waited_for_where_it_completed(void **state) {
    job j;
    job_init(&j, 2);
    j.backend = "gloo";
    group(&j, "1", "Y", "[0, 1]");
    group(&j, "2", "Z", "[0, 1]");
    rec(&j, 0, "1", "all_reduce", 1, "scheduled");
    rec(&j, 1, "1", "all_reduce", 1, "completed");
    rec(&j, 0, "2", "all_reduce", 1, "scheduled");
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "1");
    const fa_verdict *v = &j.a.verdict;
    assert_ranks(&v->levels[0].ranks, "1");
    assert_ranks(&v->levels[2].ranks, "0");
    assert_ranks(&v->levels[2].waits_for, "1");
    assert_string_equal(v->levels[2].via, "Z all_reduce");
    done(&j);
}

/* A coalesced end marker closes its bundle: a second bundle at the same seq is a second
 * collective, even when it holds the same type (mutation w01). */
static void an_end_marker_closes_its_bundle(void **state) {
    job j;
    job_init(&j, 2);
    for (int r = 0; r < 2; r++) {
        rec(&j, r, "0", "broadcast", 1, "completed");
        rec(&j, r, "0", "broadcast", 1, "completed");
        rec(&j, r, "0", "coalesced", 1, "completed");
        rec(&j, r, "0", "broadcast", 1, "completed");
        rec(&j, r, "0", "coalesced", 1, "completed");
    }
    run(&j);
    assert_culprits(&j, FA_STATUS_OK, "");
    assert_int_equal(j.a.match.nops, 2);
    assert_int_equal(j.a.match.ops[0].ncalls, 2);
    assert_int_equal(j.a.match.ops[1].ncalls, 2);
    done(&j);
}

/* A rank that never issued #2 is told with the last seq it did issue, from its entries alone
 * (no pg_status here; mutation w04). */
static void never_issued_names_the_last_seq_issued(void **state) {
    job j;
    job_init(&j, 3);
    coll(&j, "0", "all_reduce", 1, S("completed", "completed", "completed"));
    coll(&j, "0", "all_reduce", 2, S("scheduled", "scheduled", NULL));
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "2");
    const fa_finding *f = finding(&j, FA_MISSING_RANKS);
    assert_non_null(f);
    assert_ranks(&f->others, "0,1");
    if (!strstr(f->detail, "never issued it (its last was #1)")) fail_msg("%s", f->detail);
    done(&j);
}

/* Rank 0's ring lost everything before its pending #5: #5 is still pending there, not completed
 * (what a ring lost before its oldest pending entry, #4 here, is completed; mutation w07). */
static void a_ring_that_starts_pending_is_still_pending(void **state) {
    job j;
    job_init(&j, 3);
    rec(&j, 0, "0", "all_reduce", 5, "scheduled");
    coll(&j, "0", "all_reduce", 4, S(NULL, "completed", "completed"));
    coll(&j, "0", "all_reduce", 5, S(NULL, "scheduled", NULL));
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "2");
    const fa_finding *f = finding(&j, FA_MISSING_RANKS);
    assert_non_null(f);
    assert_ranks(&f->others, "0,1");
    /* #4, which rank 0's ring lost, is completed there: before its oldest pending one (w07) */
    int seen = 0;
    for (size_t op = 0; op < j.a.match.nops; op++)
        if (j.a.match.ops[op].seq == 4) {
            assert_int_equal(fa_op_member_state(&j.a.match, &j.a.groups, op, 0), FA_MS_COMPLETED);
            seen++;
        }
    assert_int_equal(seen, 1);
    done(&j);
}

/* Every member started X #2 and none completed it; what is queued behind it is in another
 * group (Y #1, recorded later on each rank): still stuck (mutation w06: the newest pending record
 * of a rank counts, whatever its group). */
static void work_queued_in_another_group_makes_a_collective_stuck(void **state) {
    job j;
    job_init(&j, 2);
    group(&j, "1", "X", "[0, 1]");
    group(&j, "2", "Y", "[0, 1]");
    coll(&j, "1", "all_reduce", 1, S("completed", "completed"));
    coll(&j, "1", "all_reduce", 2, S("started", "started"));
    coll(&j, "2", "all_reduce", 1, S("scheduled", "scheduled"));
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "");
    const fa_finding *f = finding(&j, FA_STUCK_COLLECTIVE);
    assert_non_null(f);
    assert_ranks(&f->others, "0,1");
    done(&j);
}

/* Group "1" is split into [0, 3] and [1, 2]; rank 0 wrote no dump, so [1, 2] is met first. The
 * ids still follow each part's lowest member: 1@0 is [0, 3] (mutation g03). */
static void split_groups_are_numbered_by_their_lowest_member(void **state) {
    job j;
    job_init(&j, 4);
    group(&j, "1", "S", "[0, 3]");
    group(&j, "1", "S", "[1, 2]");
    j.skip[0] = 1;
    coll(&j, "0", "all_reduce", 1, S(NULL, "completed", "completed", "completed"));
    run(&j);
    int seen = 0;
    for (size_t i = 0; i < j.a.groups.n; i++) {
        const fa_group *g = &j.a.groups.v[i];
        if (strcmp(g->id, "1@0") == 0) {
            assert_int_equal(g->nmembers, 2);
            assert_int_equal(g->members[0], 0);
            assert_int_equal(g->members[1], 3);
            seen |= 1;
        } else if (strcmp(g->id, "1@1") == 0) {
            assert_int_equal(g->members[0], 1);
            seen |= 2;
        }
    }
    assert_int_equal(seen, 3);
    done(&j);
}

/* Numeric group names sort as numbers: 0, 2, 10 (mutation g04). */
static void numeric_group_names_sort_as_numbers(void **state) {
    job j;
    job_init(&j, 2);
    group(&j, "10", "B", "[0, 1]");
    group(&j, "2", "A", "[0, 1]");
    coll(&j, "0", "all_reduce", 1, S("completed", "completed"));
    run(&j);
    assert_int_equal(j.a.groups.n, 3);
    assert_string_equal(j.a.groups.v[0].id, "0");
    assert_string_equal(j.a.groups.v[1].id, "2");
    assert_string_equal(j.a.groups.v[2].id, "10");
    done(&j);
}

/* Two ranks issue two groups' collectives in opposite orders: each waits for the other. A cycle
 * has no single root: both are named. */
static void deadlock_cycle_names_both(void **state) {
    job j;
    job_init(&j, 2);
    group(&j, "1", "X", "[0, 1]");
    group(&j, "2", "Y", "[0, 1]");
    rec(&j, 0, "1", "all_reduce", 1, "scheduled");
    rec(&j, 1, "2", "all_reduce", 1, "scheduled");
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "0,1");
    assert_null(finding(&j, FA_LAGGING_RANKS));
    done(&j);
}

/* Everyone started #2 and queued #3 behind it; nothing completes: stuck, no rank to blame. */
static void stuck_collective_has_no_culprit(void **state) {
    job j;
    job_init(&j, 2);
    coll(&j, "0", "all_reduce", 1, S("completed", "completed"));
    coll(&j, "0", "all_reduce", 2, S("started", "started"));
    coll(&j, "0", "all_reduce", 3, S("scheduled", "scheduled"));
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "");
    assert_non_null(finding(&j, FA_STUCK_COLLECTIVE));
    done(&j);
}

/* A snapshot of a running job: the same newest collective scheduled everywhere is ok. */
static void same_newest_op_everywhere_is_ok(void **state) {
    job j;
    job_init(&j, 3);
    coll(&j, "0", "all_reduce", 1, S("completed", "completed", "completed"));
    coll(&j, "0", "all_reduce", 2, S("scheduled", "scheduled", "scheduled"));
    run(&j);
    assert_culprits(&j, FA_STATUS_OK, "");
    assert_int_equal(j.a.verdict.nevidence, 0);
    done(&j);
}

/* Everyone started #2 and nothing is queued behind it: a snapshot of a collective in flight,
 * not a stuck one (mutation v06: "issued later" must mean a seq beyond #2, not #2 itself). */
static void started_everywhere_with_nothing_queued_is_ok(void **state) {
    job j;
    job_init(&j, 2);
    coll(&j, "0", "all_reduce", 1, S("completed", "completed"));
    coll(&j, "0", "all_reduce", 2, S("started", "started"));
    run(&j);
    assert_culprits(&j, FA_STATUS_OK, "");
    assert_null(finding(&j, FA_STUCK_COLLECTIVE));
    done(&j);
}

/* Ranks 0,1 started #2 on their GPUs; rank 2 only scheduled it: rank 2 is the culprit. */
static void scheduled_ones_are_culprits_when_others_started(void **state) {
    job j;
    job_init(&j, 3);
    coll(&j, "0", "all_reduce", 1, S("completed", "completed", "completed"));
    coll(&j, "0", "all_reduce", 2, S("started", "started", "scheduled"));
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "2");
    const fa_finding *f = finding(&j, FA_STATE_MISMATCH);
    assert_non_null(f);
    assert_ranks(&f->others, "0,1");
    assert_int_equal(j.a.verdict.evidence[0].kind, FA_EV_NEVER_STARTED);
    done(&j);
}

/* Rank 1 still has #2 pending that 0 and 2 completed: its GPU stopped (lag). */
static void gpu_lag_names_the_stalled_rank(void **state) {
    job j;
    job_init(&j, 3);
    coll(&j, "0", "all_reduce", 1, S("completed", "completed", "completed"));
    coll(&j, "0", "all_reduce", 2, S("completed", "scheduled", "completed"));
    coll(&j, "0", "all_reduce", 3, S("scheduled", "scheduled", "scheduled"));
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "1");
    const fa_evidence *e = &j.a.verdict.evidence[0];
    assert_int_equal(e->kind, FA_EV_STALLED);
    assert_int_equal(e->seq, 2);
    assert_ranks(&e->done, "0,2");
    done(&j);
}

/* Rank 2 wrote no dump and every other rank waits for it: docs/database.md §6 names it. */
static void missing_dump_everyone_waits_for_is_culprit(void **state) {
    job j;
    job_init(&j, 3);
    coll(&j, "0", "all_reduce", 1, S("completed", "completed", "completed"));
    coll(&j, "0", "all_reduce", 2, S("scheduled", "scheduled", NULL));
    j.skip[2] = 1;
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "2");
    assert_non_null(finding(&j, FA_MISSING_DUMP));
    assert_int_equal(j.a.verdict.evidence[0].kind, FA_EV_NO_DUMP);
    done(&j);
}

/* gloo retires a collective that failed because a peer is gone as it retires one that completed.
 * Rank 0 retired #1, which rank 1 still has pending; rank 2 wrote no dump. Rank 1's oldest
 * pending entry is #1: what came before it is completed there, #1 itself is not (mutation w05).
 * So rank 0's newest collective failed, rank 0 may be blocked on rank 2 as well, and the verdict
 * is a hang on rank 2, not "rank 0 waits for nobody: a stopped rank or a lost dump?". */
static void a_gloo_collective_retired_while_a_peer_waits_failed(void **state) {
    job j;
    job_init(&j, 3);
    j.backend = "gloo";
    coll(&j, "0", "all_reduce", 1, S("completed", "scheduled", NULL));
    j.skip[2] = 1;
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "2");
    assert_int_equal(j.a.match.views[j.a.match.view_at[0] + 1].completed_max, 0);
    done(&j);
}

/* gloo runs a broadcast one-to-all: a receiver goes on once its data came, whether or not every
 * member joined. Rank 0, the root, still has broadcast #1 pending; rank 1 completed it and waits
 * in #2; rank 2 retired #1, its newest entry, and has nothing pending; rank 3 wrote no dump.
 * Rank 1 past #1 proves only that the root sent to it, not that #1 ran to its end on every
 * member (rank 0 has it pending): rank 2's #1 may have failed with the dead rank 3, so 2 is no
 * stopped rank, and rank 3 is the culprit (real seed 206, where 2 was named; mutation vg01). */
static void a_gloo_broadcast_past_on_a_receiver_proves_no_end(void **state) {
    job j;
    job_init(&j, 4);
    j.backend = "gloo";
    coll(&j, "0", "broadcast", 1, S("scheduled", "completed", "completed", NULL));
    rec(&j, 1, "0", "broadcast", 2, "scheduled");
    j.skip[3] = 1;
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "3");
    done(&j);
}

/* The same broadcast, where a later all_reduce of the group ran: rank 0 completed broadcast #1
 * and all_reduce #2, which needs every member, and waits in #3; rank 1's dump is older, ending
 * with #1 retired; rank 2 wrote no dump. #2 ran, so every member went past #1 (gloo's calls
 * block): rank 1 did not fail in #1, and rank 2 is the culprit, with rank 1's older dump no
 * explanation (real seed 109; sim seed 875). */
static void a_gloo_broadcast_before_a_collective_that_ran_ran(void **state) {
    job j;
    job_init(&j, 3);
    j.backend = "gloo";
    coll(&j, "0", "broadcast", 1, S("completed", "completed", NULL));
    rec(&j, 0, "0", "all_reduce", 2, "completed");
    rec(&j, 0, "0", "all_reduce", 3, "scheduled");
    j.skip[2] = 1;
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "2");
    assert_int_equal(j.a.verdict.nalternatives, 0);
    done(&j);
}

/* The recorder lists a communicator whose members it did not learn with ranks []: its members
 * come from every dump's communicators (global rank, comm_rank, comm_size), rank 1's too,
 * though it recorded nothing in it. Rank 1 never issued #1, which rank 0 waits in: rank 1 is
 * the culprit (mutation g02: an empty member list is no configuration). */
static void a_recorder_group_without_members_is_rebuilt_from_the_comms(void **state) {
    job j;
    job_init(&j, 2);
    group(&j, "5", "tp", "[]");
    coll(&j, "0", "all_reduce", 1, S("completed", "completed"));
    rec(&j, 0, "5", "all_reduce", 1, "scheduled");
    for (int r = 0; r < 2; r++)
        snprintf(j.frtrace[r], sizeof j.frtrace[r],
                 "{\"comms\": {\"5\": {\"comm_rank\": %d, \"comm_size\": 2, \"parent\": \"0\", "
                 "\"color\": 0, \"nccl_hash\": \"0x5\", \"state\": \"live\"}}, "
                 "\"global_rank\": %d, \"trigger\": \"timeout\", \"version\": \"1\"}",
                 r, r);
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "1");
    assert_int_equal(j.a.groups.n, 2);
    assert_string_equal(j.a.groups.v[1].id, "5");
    assert_int_equal(j.a.groups.v[1].nmembers, 2);
    assert_false(j.a.groups.v[1].inferred);
    done(&j);
}

/* Rank 2's dump is older than its peers': they completed #2 and #3 with it, but its dump stops
 * with #2 pending. Rank 3 never issued #4, where 0 and 1 wait: 3 is the culprit. What rank 2
 * did after its dump is unknown (FA_MS_STALE), never read as "never issued", and its pending #2
 * is no stalled GPU (peers completed it): it is not named. */
static void an_older_dump_is_unknown_not_guilty(void **state) {
    job j;
    job_init(&j, 4);
    coll(&j, "0", "all_reduce", 1, S("completed", "completed", "completed", "completed"));
    coll(&j, "0", "all_reduce", 2, S("completed", "completed", "scheduled", "completed"));
    coll(&j, "0", "all_reduce", 3, S("completed", "completed", NULL, "completed"));
    coll(&j, "0", "all_reduce", 4, S("scheduled", "scheduled", NULL, NULL));
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "3");
    assert_int_equal(j.a.match.rank_stale[2].seq, 3);
    assert_int_equal(j.a.match.rank_stale[2].issued, 2);
    size_t op = 0;
    while (j.a.match.ops[op].seq != 4) op++;
    assert_int_equal(fa_op_member_state(&j.a.match, &j.a.groups, op, 2), FA_MS_STALE);
    assert_int_equal(fa_op_member_state(&j.a.match, &j.a.groups, op, 3), FA_MS_NEVER);
    assert_int_equal(j.a.verdict.nalternatives, 0);
    done(&j);
}

/* Only-active dumps of three ranks: each ran a send/recv batch (p2p #1) and a bundle of two
 * collectives (#2) in the default group, whose end markers completed and were dropped, their
 * entries left "scheduled". Ranks 0 and 1 went on to all_to_all #3, where they wait; rank 2's
 * CPU stopped before it. Rank 2's own counters say "completed 2", above every send/recv number
 * it can have reached (1): its bundle completed, its dump is as new as its peers', and rank 2,
 * which never issued #3, is the culprit (sim seed 12173: read as an older dump, rank 2 only
 * "unknown" and the hang blamed on a rank without a readable dump). */
static void own_counters_past_every_send_recv_number_complete_a_bundle(void **state) {
    job j;
    job_init(&j, 3);
    for (int r = 0; r < 3; r++) {
        j.first_record[r] = 2; /* records 0 and 1 (done) and each end marker dropped */
        j.p2p_coll_seq = 1;
        p2p(&j, r, "0", r == 0 ? "send 0->1" : r == 1 ? "send 1->2" : "send 2->0", 1, "scheduled");
        p2p(&j, r, "0", r == 0 ? "recv 0<-2" : r == 1 ? "recv 1<-0" : "recv 2<-1", 1, "scheduled");
        j.nentries[r]++;
        j.p2p_coll_seq = 0;
        j.coll_p2p_seq = 1;
        rec(&j, r, "0", "all_reduce", 2, "scheduled");
        rec(&j, r, "0", "broadcast", 2, "scheduled");
        j.nentries[r]++;
        if (r < 2) rec(&j, r, "0", "all_to_all", 3, "started");
        j.coll_p2p_seq = 0;
        snprintf(j.status[r], sizeof j.status[r],
                 "\"0\": {\"last_enqueued_collective\": %d, \"last_started_collective\": %d, "
                 "\"last_completed_collective\": 2}",
                 r < 2 ? 3 : 2, r < 2 ? 3 : 2);
    }
    run(&j);
    assert_false(fa_stale_known(&j.a.match.rank_stale[2]));
    assert_culprits(&j, FA_STATUS_HANG, "2");
    done(&j);
}

/* Every rank ran all_reduce_barrier #2 and then a ring exchange, batch p2p #1, whose end marker
 * completed. Ranks 2 and 3's rings start at the batch (the barrier fell off), and their pg_status
 * numbers the batch: "completed 1". The batch, on the group's stream after the barrier, carries
 * the collective count 2: the barrier completed there too. Nothing is pending: ok (sim seed
 * 18907, where 2 and 3's like were "stalled in the barrier" ranks 0 and 1 completed). */
static void a_completed_batch_completes_the_collectives_before_it(void **state) {
    job j;
    job_init(&j, 4);
    for (int r = 0; r < 4; r++) {
        char send[16], recv[16];
        j.first_record[r] = 6;
        if (r < 2) {
            j.first_record[r] = 5;
            rec(&j, r, "0", "all_reduce_barrier", 2, "completed");
        }
        snprintf(send, sizeof send, "send %d->%d", r, (r + 1) % 4);
        snprintf(recv, sizeof recv, "recv %d<-%d", r, (r + 3) % 4);
        j.p2p_coll_seq = 2;
        p2p(&j, r, "0", send, 1, "scheduled");
        p2p(&j, r, "0", recv, 1, "scheduled");
        batch_end(&j, r, "0", 1, "completed");
        j.p2p_coll_seq = 0;
        snprintf(j.status[r], sizeof j.status[r],
                 "\"0\": {\"last_enqueued_collective\": 1, \"last_started_collective\": -1, "
                 "\"last_completed_collective\": %d}",
                 r < 2 ? 2 : 1);
    }
    run(&j);
    assert_culprits(&j, FA_STATUS_OK, "");
    done(&j);
}

/* Pipeline stages 0, 1 and 2 (ranks 0-2) count their own send/recv apart, the middle stage
 * twice per step; 1 and 2's rings wrapped: 1's sends to 2 run #5 (done) and #11 (pending, behind
 * its pending recv #10 from 0, after its send #9 to 0, done); 2's recvs from 1 run #4 (done, the
 * partner of 1's #5) and #6 (pending). Their windows' ids overlap, but the completed pair carries
 * #5 and #4: the ids do not compare, and 2's #6 is no recv done with a send #6 that 1's window
 * dropped: it pairs with 1's #11 (sim seed 18907, where 1's #11 was then read as never received
 * and 2 named for it). Every transfer from 1 to 2 is a pair. */
static void pipeline_stages_whose_completed_pair_has_two_ids_pair_their_pending_ones(void **state) {
    job j;
    job_init(&j, 4);
    for (int r = 1; r < 3; r++) j.first_record[r] = 8;
    for (int r = 0; r < 4; r++) rec(&j, r, "0", "all_reduce", 1, "completed");
    j.p2p_coll_seq = 1; /* the send/recv carry the collective count so far */
    p2p(&j, 0, "0", "recv 0<-1", 1, "completed");
    p2p(&j, 1, "0", "send 1->2", 5, "completed");
    p2p(&j, 1, "0", "send 1->0", 9, "completed");
    p2p(&j, 1, "0", "recv 1<-0", 10, "scheduled");
    batch_end(&j, 1, "0", 10, "scheduled");
    p2p(&j, 1, "0", "send 1->2", 11, "scheduled");
    batch_end(&j, 1, "0", 11, "scheduled");
    p2p(&j, 2, "0", "recv 2<-1", 4, "completed");
    p2p(&j, 2, "0", "recv 2<-1", 6, "scheduled");
    batch_end(&j, 2, "0", 6, "scheduled");
    j.p2p_coll_seq = 0;
    for (int r = 0; r < 4; r += 3) rec(&j, r, "0", "all_reduce", 2, "scheduled");
    run(&j);
    size_t pairs = 0;
    for (size_t op = 0; op < j.a.match.nops; op++) {
        const fa_op *o = &j.a.match.ops[op];
        if (!o->is_p2p || o->src != 1 || o->dst != 2) continue;
        assert_int_equal(o->ncalls, 2);
        pairs++;
    }
    assert_int_equal(pairs, 2);
    done(&j);
}

/* Only-active dumps, timed. Rank 0's batch #2 with rank 1 in their context-parallel pair started
 * and never completed; rank 1's dump keeps nothing of the pair (it dropped what completed), and
 * its counters there say "completed 2": both transfers ran on the wire, and rank 0's GPU stopped
 * completing work. Rank 1 waits in all_reduce #3, queued behind 0's batch there. Rank 0 stalled
 * (sim seed 17102, where the batch read as stuck on every member, "suspect the GPU or the
 * network", and nobody was named). */
static void a_batch_its_peers_counters_complete_is_a_stalled_gpu(void **state) {
    job j;
    job_init(&j, 2);
    group(&j, "1", "CONTEXT_PARALLEL_GROUP", "[0, 1]");
    j.first_record[0] = 4;
    j.first_record[1] = 7;
    p2p(&j, 0, "1", "send 0->1", 2, "started");
    p2p(&j, 0, "1", "recv 0<-1", 2, "started");
    batch_end(&j, 0, "1", 2, "started");
    rec(&j, 0, "0", "all_reduce", 3, "scheduled");
    rec(&j, 1, "0", "all_reduce", 3, "started");
    static const char *const fmt =
        "\"0\": {\"last_enqueued_collective\": 3, \"last_started_collective\": %d, "
        "\"last_completed_collective\": 2}, \"1\": {\"last_enqueued_collective\": 2, "
        "\"last_started_collective\": 2, \"last_completed_collective\": %d}";
    snprintf(j.status[0], sizeof j.status[0], fmt, 2, 1);
    snprintf(j.status[1], sizeof j.status[1], fmt, 3, 2);
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "0");
    assert_null(finding(&j, FA_STUCK_COLLECTIVE));
    done(&j);
}

/* Ranks 0 and 1 wait in their data-parallel groups, 0 for rank 2, which left no dump, 1 for
 * rank 3, whose dump is older than its peers' (rank 1 completed #1 of their group with it; its
 * dump shows none of that group). Ranks 2 and 3 share a tensor-parallel group, where 3's dump
 * stops with #2 pending: 3 may be blocked there behind 2, or 2 behind 3 in a later one that 3's
 * old dump cannot show. Either alone explains both waits: one of them, no culprit (E16; sim
 * seeds 2470, 2944; mutation hp01). */
static void an_older_dump_beside_a_lost_one_in_a_shared_group_is_one_of_them(void **state) {
    job j;
    job_init(&j, 4);
    group(&j, "1", "DATA_PARALLEL_GROUP", "[0, 2]");
    group(&j, "2", "DATA_PARALLEL_GROUP", "[1, 3]");
    group(&j, "3", "TENSOR_MODEL_PARALLEL_GROUP", "[2, 3]");
    j.skip[2] = 1;
    rec(&j, 3, "3", "all_reduce", 1, "completed");
    rec(&j, 3, "3", "all_reduce", 2, "scheduled");
    rec(&j, 1, "2", "all_reduce", 1, "completed");
    rec(&j, 1, "2", "all_reduce", 2, "scheduled");
    rec(&j, 0, "1", "all_reduce", 1, "completed");
    rec(&j, 0, "1", "all_reduce", 2, "scheduled");
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "");
    assert_int_equal(j.a.verdict.nalternatives, 2);
    assert_non_null(strstr(j.a.verdict.summary, "rank 2 or 3"));
    done(&j);
}

/* gloo, two ranks: rank 0 left no dump file; rank 1 completed its collectives (gloo retires them)
 * and has nothing pending, in a group rebuilt from its own entries alone. gloo records no
 * send/recv, so rank 1 may sit in one with rank 0: nothing proves the job healthy, and nothing
 * names rank 0 either: inconclusive, not ok (sim seeds 1419, 1959, 5862; mutation hp02). */
static void a_gloo_rank_idle_beside_a_lost_one_is_not_ok(void **state) {
    job j;
    job_init(&j, 2);
    j.backend = "gloo";
    j.gloo_config = 1;
    group(&j, "3", "TENSOR_MODEL_PARALLEL_GROUP", "[0, 1]");
    rec(&j, 1, "3", "all_reduce", 1, "completed");
    rec(&j, 1, "3", "all_reduce", 2, "completed");
    j.skip[0] = 1;
    run(&j);
    assert_culprits(&j, FA_STATUS_INCONCLUSIVE, "");
    assert_non_null(strstr(j.a.verdict.summary, "rank 1 idle, rank 0 left no dump"));
    done(&j);
}

/* Rank 0's dump keeps only what is active (PyTorch's only-active dump) and has no pg_status: it
 * holds all_reduce #5 pending, nothing else, in a group where four send/recv ran before it (its
 * p2p_seq_id), so its completed count, 4, may be a send/recv number and proves nothing by
 * itself. Its stream does: it runs its launches in order, so collectives #1 to #4 completed on
 * it, and every member issued them. Rank 1's dump, which stops with #3 pending, was written
 * before (older) and says nothing of the end; rank 1 is no stalled GPU. Rank 2 left no dump: it
 * is the culprit (mutation ro20; sim seed 577). */
static void an_only_active_stream_head_shows_a_peer_dump_older(void **state) {
    job j;
    job_init(&j, 3);
    coll(&j, "0", "all_reduce", 1, S(NULL, "completed", NULL));
    coll(&j, "0", "all_reduce", 2, S(NULL, "completed", NULL));
    rec(&j, 1, "0", "all_reduce", 3, "scheduled");
    j.op_id[0][0] = 4;
    j.coll_p2p_seq = 4;
    rec(&j, 0, "0", "all_reduce", 5, "scheduled");
    j.skip[2] = 1;
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "2");
    assert_int_equal(j.a.match.rank_stale[1].seq, 4);
    done(&j);
}

/* Rank 2 left no dump; ranks 1 and 3 wait for it in their groups with it. Rank 0's batch sends to
 * rank 3 and receives from rank 1, whose send is queued behind its wait for rank 2: rank 0 waits
 * on rank 1 only jointly. But rank 3 completed its side of the batch while rank 0's entries are
 * all still scheduled: rank 0's stream may have stopped there (a GPU stall), so nothing proves it
 * waits. Rank 2 stopped, or only its dump was lost while a stalled rank 0 held it: inconclusive,
 * and rank 0 is the rank that waits for nobody (mutation ls02; sim seed 2628). */
static void a_rank_whose_batch_a_peer_completed_may_be_stalled(void **state) {
    job j;
    job_init(&j, 4);
    group(&j, "1", "g1", "[1, 2]");
    group(&j, "3", "g3", "[0, 1, 3]");
    group(&j, "4", "g4", "[2, 3]");
    j.skip[2] = 1;
    rec(&j, 1, "1", "all_reduce", 1, "scheduled");
    p2p(&j, 1, "3", "send 1->0", 1, "scheduled");
    p2p(&j, 0, "3", "send 0->2", 1, "scheduled");
    p2p(&j, 0, "3", "recv 0<-1", 1, "scheduled");
    batch_end(&j, 0, "3", 1, "scheduled");
    p2p(&j, 3, "3", "recv 2<-0", 1, "completed");
    rec(&j, 3, "4", "all_reduce", 1, "scheduled");
    run(&j);
    assert_culprits(&j, FA_STATUS_INCONCLUSIVE, "");
    assert_non_null(strstr(j.a.verdict.summary, "while rank 0 waits for nobody"));
    done(&j);
}

/* As above, without rank 3's side done: rank 0's batch waits on rank 1 only jointly, rank 1's send
 * queued behind its wait for the dumpless rank 2, so a path of proven waits leads from rank 0 to
 * rank 2. Rank 4 waits for rank 0 in g5 #1, which rank 0 never issued; rank 0's CPU stopped
 * issuing while its stream waits for rank 2, most often in a synchronize behind that wait. For it
 * to have stopped itself, rank 2 (alive, only its dump lost) would have to wait for it, which
 * nothing shows: rank 2, without a dump, is what everyone waits for (mutation ls01; it read
 * "rank 0 waits for nobody: a stopped rank or a lost dump?" before, sim seeds 2397, 4617, 8583
 * and six more of 10 000, each killed rank named by the simulator and now by frtrace). */
static void a_rank_others_wait_for_behind_a_lost_rank_is_no_stopped_rank(void **state) {
    job j;
    job_init(&j, 5);
    j.group_ranks[0] = "[0, 1, 2, 3, 4]";
    group(&j, "1", "g1", "[1, 2]");
    group(&j, "3", "g3", "[0, 1, 3]");
    group(&j, "4", "g4", "[2, 3]");
    group(&j, "5", "g5", "[0, 4]");
    j.skip[2] = 1;
    rec(&j, 1, "1", "all_reduce", 1, "scheduled");
    p2p(&j, 1, "3", "send 1->0", 1, "scheduled");
    p2p(&j, 0, "3", "send 0->2", 1, "scheduled");
    p2p(&j, 0, "3", "recv 0<-1", 1, "scheduled");
    batch_end(&j, 0, "3", 1, "scheduled");
    p2p(&j, 3, "3", "recv 2<-0", 1, "scheduled");
    rec(&j, 3, "4", "all_reduce", 1, "scheduled");
    rec(&j, 4, "5", "all_reduce", 1, "scheduled");
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "2");
    done(&j);
}

/* gloo: rank 3 died and left no dump. Its tensor-parallel group is rebuilt from the dumps as {2}
 * alone, but its family (the other TENSOR_MODEL_PARALLEL_GROUP has two members) says it lost a
 * member: rank 3 is put back. Rank 2's all_reduce with it ended (gloo retires a failed op) and
 * rank 2 stopped: a victim. Ranks 0,1 wait for 2 and 3 in the default group: 3 is the culprit. */
static void a_dumpless_member_is_missing_not_a_smaller_group(void **state) {
    job j;
    job_init(&j, 4);
    j.backend = "gloo";
    j.gloo_config = 1;
    group(&j, "1", "TENSOR_MODEL_PARALLEL_GROUP", "[0, 1]");
    group(&j, "2", "TENSOR_MODEL_PARALLEL_GROUP", "[2, 3]");
    coll(&j, "0", "all_reduce", 1, S("completed", "completed", "completed", NULL));
    coll(&j, "1", "all_reduce", 1, S("completed", "completed", NULL, NULL));
    rec(&j, 2, "2", "all_reduce", 1, "completed");
    coll(&j, "0", "all_reduce", 2, S("scheduled", "scheduled", NULL, NULL));
    j.skip[3] = 1;
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "3");
    long tp = -1;
    for (size_t g = 0; g < j.a.groups.n; g++)
        if (strcmp(j.a.groups.v[g].name, "2") == 0) tp = (long)g;
    assert_true(tp >= 0);
    assert_int_equal(j.a.groups.v[tp].nmembers, 2);
    assert_int_equal(j.a.groups.v[tp].members[1], 3);
    done(&j);
}

/* A gloo pipeline pair 0 -> 1 (send/recv in group P, unrecorded: op ids skip) and data-parallel
 * groups {0,2}, {1,3}. At step 3 rank 0 stopped before its send and rank 1 sits in its recv:
 * both have nothing pending, 2 waits for 0 and 3 for 1. Whether 0 never sent or 1 never
 * received (and 0 blocks in a send), the dumps cannot tell: no culprit, two explanations. */
static void gloo_pipeline_pair_both_idle_is_an_ambiguity(void **state) {
    job j;
    job_init(&j, 4);
    j.backend = "gloo";
    j.gloo_config = 1;
    group(&j, "1", "PIPELINE_MODEL_PARALLEL_GROUP", "[0, 1]");
    group(&j, "2", "DATA_PARALLEL_GROUP", "[0, 2]");
    group(&j, "3", "DATA_PARALLEL_GROUP", "[1, 3]");
    for (int s = 1; s <= 2; s++) {
        gap(&j, 0, "1");
        gap(&j, 1, "1");
        coll(&j, "1", "all_reduce", s, S("completed", "completed", NULL, NULL));
        coll(&j, "2", "all_reduce", s, S("completed", NULL, "completed", NULL));
        coll(&j, "3", "all_reduce", s, S(NULL, "completed", NULL, "completed"));
    }
    rec(&j, 2, "2", "all_reduce", 3, "scheduled");
    rec(&j, 3, "3", "all_reduce", 3, "scheduled");
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "");
    assert_int_equal(j.a.verdict.nalternatives, 2);
    assert_ranks(&j.a.verdict.alternatives[0].ranks, "0");
    assert_ranks(&j.a.verdict.alternatives[1].ranks, "1");
    assert_non_null(strstr(j.a.verdict.summary, "rank 0 or 1 in PIPELINE_MODEL_PARALLEL_GROUP"));
    done(&j);
}

/* As above, but rank 0 went on without its send: its pipeline all_reduce #3 follows #2 with no
 * unrecorded op between (it ran one before every other), and waits for rank 1, in its recv.
 * "0 never sent, or 1 never received": both are explanations, neither a culprit. */
static void gloo_send_that_never_happened_is_one_of_two(void **state) {
    job j;
    job_init(&j, 4);
    j.backend = "gloo";
    j.gloo_config = 1;
    group(&j, "1", "PIPELINE_MODEL_PARALLEL_GROUP", "[0, 1]");
    group(&j, "2", "DATA_PARALLEL_GROUP", "[0, 2]");
    group(&j, "3", "DATA_PARALLEL_GROUP", "[1, 3]");
    for (int s = 1; s <= 2; s++) {
        gap(&j, 0, "1");
        gap(&j, 1, "1");
        coll(&j, "1", "all_reduce", s, S("completed", "completed", NULL, NULL));
        coll(&j, "2", "all_reduce", s, S("completed", NULL, "completed", NULL));
        coll(&j, "3", "all_reduce", s, S(NULL, "completed", NULL, "completed"));
    }
    rec(&j, 0, "1", "all_reduce", 3, "scheduled"); /* no gap: the send never ran */
    rec(&j, 2, "2", "all_reduce", 3, "scheduled");
    rec(&j, 3, "3", "all_reduce", 3, "scheduled");
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "");
    assert_int_equal(j.a.verdict.nalternatives, 2);
    const fa_alternative *skipped = &j.a.verdict.alternatives[0];
    if (skipped->ranks.v[0] != 0) skipped = &j.a.verdict.alternatives[1];
    assert_non_null(strstr(skipped->explanation, "rank 0 went on without a send/recv"));
    done(&j);
}

/* As above, but rank 0 did send (an unrecorded op right before its pipeline all_reduce #3, as at
 * every step) and waits there for rank 1: rank 1 stopped; rank 0 is cleared of the send/recv
 * rank 1 might be in (they met there), and rank 1 is the culprit. */
static void gloo_peer_that_ran_its_send_is_cleared(void **state) {
    job j;
    job_init(&j, 4);
    j.backend = "gloo";
    j.gloo_config = 1;
    group(&j, "1", "PIPELINE_MODEL_PARALLEL_GROUP", "[0, 1]");
    group(&j, "2", "DATA_PARALLEL_GROUP", "[0, 2]");
    group(&j, "3", "DATA_PARALLEL_GROUP", "[1, 3]");
    for (int s = 1; s <= 2; s++) {
        gap(&j, 0, "1");
        gap(&j, 1, "1");
        coll(&j, "1", "all_reduce", s, S("completed", "completed", NULL, NULL));
        coll(&j, "2", "all_reduce", s, S("completed", NULL, "completed", NULL));
        coll(&j, "3", "all_reduce", s, S(NULL, "completed", NULL, "completed"));
    }
    gap(&j, 0, "1"); /* step 3: rank 0 sent, and waits in the pipeline all_reduce */
    rec(&j, 0, "1", "all_reduce", 3, "scheduled");
    rec(&j, 2, "2", "all_reduce", 3, "scheduled");
    rec(&j, 3, "3", "all_reduce", 3, "scheduled");
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "1");
    assert_null(strstr(j.a.verdict.summary, "1 or 3"));
    done(&j);
}

/* The same collective stuck in both tensor-parallel groups (every member started #1, none
 * completed it, #2 queued behind): one stuck_collective finding naming both groups, and a title
 * that never lists an empty set of ranks (issue 21: "hang: rank : ..."). */
static void the_same_stuck_collective_in_many_groups_is_one_finding(void **state) {
    job j;
    job_init(&j, 4);
    group(&j, "1", "TENSOR_MODEL_PARALLEL_GROUP", "[0, 1]");
    group(&j, "2", "TENSOR_MODEL_PARALLEL_GROUP", "[2, 3]");
    coll(&j, "1", "all_reduce", 1, S("started", "started", NULL, NULL));
    coll(&j, "2", "all_reduce", 1, S(NULL, NULL, "started", "started"));
    coll(&j, "1", "all_reduce", 2, S("scheduled", "scheduled", NULL, NULL));
    coll(&j, "2", "all_reduce", 2, S(NULL, NULL, "scheduled", "scheduled"));
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "");
    size_t stuck = 0;
    for (size_t i = 0; i < j.a.findings.n; i++)
        stuck += j.a.findings.v[i].kind == FA_STUCK_COLLECTIVE;
    assert_int_equal(stuck, 1);
    const fa_finding *f = finding(&j, FA_STUCK_COLLECTIVE);
    assert_ranks(&f->others, "0-3");
    assert_non_null(strstr(f->detail, "in 2 groups"));
    assert_null(strstr(j.a.verdict.summary, "rank :"));
    assert_non_null(strstr(j.a.verdict.summary, "started on every member"));
    done(&j);
}

/* gloo counts pg_status in op ids: rank 1's "last_enqueued_collective": 4 is its pipeline
 * all_reduce #2 (op 4, after an unrecorded send at op 3), not #4. Its ring kept only #1. Rank 0
 * waits in #3: rank 1 never issued it (read as seq 4, it would be "in flight" and nobody named). */
static void gloo_pg_status_counts_op_ids(void **state) {
    job j;
    job_init(&j, 2);
    j.backend = "gloo";
    j.gloo_config = 1;
    group(&j, "1", "PIPELINE_MODEL_PARALLEL_GROUP", "[0, 1]");
    for (int s = 1; s <= 2; s++) {
        gap(&j, 0, "1");
        gap(&j, 1, "1");
        coll(&j, "1", "all_reduce", s, S("completed", s == 1 ? "completed" : NULL));
    }
    gap(&j, 0, "1");
    rec(&j, 0, "1", "all_reduce", 3, "scheduled");
    strcpy(j.status[1], "\"1\": {\"last_enqueued_collective\": 4, \"last_started_collective\": -1, "
                        "\"last_completed_collective\": 4}");
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "1");
    done(&j);
}

/* gloo runs a collective on the CPU: rank 2 still has #1 pending while 0 and 1 completed it and
 * went on to #2, where they wait for it. That is no stopped GPU ("stalled"): rank 2 never issued
 * #2 (missing_ranks), however it got stuck in #1. */
static void gloo_has_no_gpu_lag(void **state) {
    job j;
    job_init(&j, 3);
    j.backend = "gloo";
    coll(&j, "0", "all_reduce", 1, S("completed", "completed", "scheduled"));
    coll(&j, "0", "all_reduce", 2, S("scheduled", "scheduled", NULL));
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "2");
    assert_null(finding(&j, FA_STATE_MISMATCH));
    assert_null(strstr(j.a.verdict.summary, "stalled"));
    done(&j);
}

/* Ranks 2 and 4 of six left no dump; the tensor-parallel family has {0, 1} whole and {3} short of
 * one.
 * Both {2, 3} and {3, 4} are runs of its stride through rank 3 made of ranks without a dump: which
 * one cannot be told, so the group is left as found. */
static void a_group_with_two_ways_to_fill_is_left_as_found(void **state) {
    job j;
    job_init(&j, 6);
    j.backend = "gloo";
    j.gloo_config = 1;
    group(&j, "1", "TENSOR_MODEL_PARALLEL_GROUP", "[0, 1]");
    group(&j, "2", "TENSOR_MODEL_PARALLEL_GROUP", "[2, 3, 4]");
    group(&j, "3", "DATA_PARALLEL_GROUP", "[5]"); /* rank 5 says the job reaches rank 4 */
    coll(&j, "1", "all_reduce", 1, S("completed", "completed", NULL, NULL, NULL, NULL));
    rec(&j, 3, "2", "all_reduce", 1, "completed");
    rec(&j, 5, "3", "all_reduce", 1, "completed");
    j.skip[2] = j.skip[4] = 1;
    run(&j);
    long tp = -1;
    for (size_t g = 0; g < j.a.groups.n; g++)
        if (strcmp(j.a.groups.v[g].name, "2") == 0) tp = (long)g;
    assert_true(tp >= 0);
    assert_int_equal(j.a.groups.v[tp].nmembers, 1);
    done(&j);
}

/* Rank 0 issued an all_reduce in the default group where its program had TP's #2: alone there,
 * it waits for 1, 2, 3, which wait for it (1 in TP #2, 2 in DP #2) or for 1 (3 in DP #2): a cycle.
 * The one rank that went where no other member went is the root; the others are its victims. */
static void a_rank_alone_in_a_wrong_group_op_is_the_root(void **state) {
    job j;
    job_init(&j, 4);
    group(&j, "1", "TENSOR_MODEL_PARALLEL_GROUP", "[0, 1]");
    group(&j, "2", "TENSOR_MODEL_PARALLEL_GROUP", "[2, 3]");
    group(&j, "3", "DATA_PARALLEL_GROUP", "[0, 2]");
    group(&j, "4", "DATA_PARALLEL_GROUP", "[1, 3]");
    coll(&j, "0", "all_reduce", 1, S("completed", "completed", "completed", "completed"));
    coll(&j, "1", "all_reduce", 1, S("completed", "completed", NULL, NULL));
    coll(&j, "2", "all_reduce", 1, S(NULL, NULL, "completed", "completed"));
    coll(&j, "3", "all_reduce", 1, S("completed", NULL, "completed", NULL));
    coll(&j, "4", "all_reduce", 1, S(NULL, "completed", NULL, "completed"));
    rec(&j, 0, "0", "all_reduce", 2, "scheduled"); /* instead of TP's #2 */
    rec(&j, 1, "1", "all_reduce", 2, "scheduled");
    coll(&j, "2", "all_reduce", 2, S(NULL, NULL, "completed", "completed"));
    rec(&j, 2, "3", "all_reduce", 2, "scheduled");
    rec(&j, 3, "4", "all_reduce", 2, "scheduled");
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "0");
    done(&j);
}

/* Rank 0 waits alone in DP #2, its oldest pending op; ranks 1 and 2, the rest of DP, are idle
 * after #1 (nothing pending) and nobody else waits for them: rank 0 went where the group does not
 * follow (an op too many, or one of another group), and it is the root, not the idle majority,
 * though nobody waits for it (tests/sim's E12; sim seeds 9228, 7762: ranks 4 and 0 were named by
 * nobody). */
static void a_rank_alone_beside_an_idle_majority_is_the_root(void **state) {
    job j;
    job_init(&j, 4);
    group(&j, "1", "DATA_PARALLEL_GROUP", "[0, 1, 2]");
    coll(&j, "0", "all_reduce", 1, S("completed", "completed", "completed", "completed"));
    coll(&j, "1", "all_reduce", 1, S("completed", "completed", "completed", NULL));
    rec(&j, 0, "1", "all_reduce", 2, "scheduled");
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "0");
    const fa_finding *x = finding(&j, FA_MISSING_RANKS);
    assert_non_null(x);
    assert_int_equal(x->cause, FA_CAUSE_WENT_ALONE);
    assert_ranks(&x->others, "1,2");
    assert_non_null(strstr(j.a.verdict.summary, "issued"));
    done(&j);
}

/* gloo names no group's members: they are rebuilt from the entries. Rank 2 waits in group 5's
 * first collective, which no other dump records: the group looks like {2} alone, yet a
 * collective of one member never waits. Its other members left dumps that record nothing there,
 * and nothing says which ranks they are: not ok, inconclusive (sim seed 8475: rank 3 stopped
 * before it, and the job was called ok with exit status 0). */
static void a_gloo_wait_in_a_group_nobody_else_recorded_is_not_ok(void **state) {
    job j;
    job_init(&j, 4);
    j.backend = "gloo";
    j.gloo_config = 1;
    group(&j, "2", "undefined", "[2, 3]");
    group(&j, "10", "undefined", "[1, 3]");
    group(&j, "11", "undefined", "[0, 1]");
    group(&j, "12", "undefined", "[2, 3]");
    coll(&j, "10", "all_reduce", 1, S(NULL, "completed", NULL, "completed"));
    coll(&j, "0", "all_reduce", 1, S("completed", "completed", "completed", "completed"));
    coll(&j, "11", "all_to_all", 2, S("completed", "completed", NULL, NULL));
    coll(&j, "12", "all_to_all", 2, S(NULL, NULL, "completed", "completed"));
    rec(&j, 2, "2", "all_reduce", 3, "scheduled");
    /* every dump counts work in a group none of its entries names (the pipeline pairs, whose
     * send/recv gloo records nowhere): each rank may be the member group 2 lacks */
    for (int r = 0; r < 4; r++)
        strcpy(j.status[r], "\"9\": {\"last_enqueued_collective\": 1, "
                            "\"last_started_collective\": -1, \"last_completed_collective\": 1}");
    run(&j);
    assert_culprits(&j, FA_STATUS_INCONCLUSIVE, "");
    assert_non_null(strstr(j.a.verdict.summary, "rank 2 waits in group 2 all_reduce #3"));
    done(&j);
}

/* After default #1 and DP #1, ranks 0 and 3 wait in default #2 and never issued DP #2; ranks 1
 * and 2 wait in DP #2 and never issued default #2: a cycle, two against two. Each pair's own
 * history (default #1 before DP #1) says nothing of which of the two #2 the program runs first;
 * the other pair, whose complete dumps hold the one op and show no trace of the other, votes
 * against each rank's order. No side is proven right: all four are named. Read as "not proven",
 * a voter lacking the op its rank waits in would leave the order to the ranks' own histories,
 * which name ranks 1 and 2 alone (mutation ov02). */
static void a_two_against_two_cycle_names_both_sides(void **state) {
    job j;
    job_init(&j, 4);
    group(&j, "1", "DATA_PARALLEL_GROUP", "[0, 1, 2, 3]");
    coll(&j, "0", "all_reduce", 1, S("completed", "completed", "completed", "completed"));
    coll(&j, "1", "all_reduce", 1, S("completed", "completed", "completed", "completed"));
    coll(&j, "1", "all_reduce", 2, S(NULL, "scheduled", "scheduled", NULL));
    coll(&j, "0", "all_reduce", 2, S("scheduled", NULL, NULL, "scheduled"));
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "0-3");
    done(&j);
}

/* Rank 1's dump is older than its peers' (they completed all_reduce #2, which needs it; its
 * dump ends at #1). In a group of three, its recv from rank 0 is paired with rank 0's send by
 * their order, but its window ends earlier: the recv may be an earlier transfer. Their sizes
 * differing is no size mismatch (mutation sp01; sim seeds 1711, 8776; from branch wt-skip8). */
static void a_pair_across_an_older_dump_is_no_size_mismatch(void **state) {
    job j;
    job_init(&j, 3);
    coll(&j, "0", "all_reduce", 1, S("completed", "completed", "completed"));
    j.coll_p2p_seq = 1;
    rec(&j, 0, "0", "all_reduce", 2, "completed");
    rec(&j, 2, "0", "all_reduce", 2, "completed");
    j.p2p_coll_seq = 2;
    p2p(&j, 0, "0", "send 0->1", 1, "scheduled");
    j.p2p_coll_seq = 1;
    p2p(&j, 1, "0", "recv 1<-0", 1, "scheduled");
    char *sizes = strrchr(j.entries[1], '{');
    char *at = strstr(sizes, "\"output_sizes\": [[4, 4]]");
    assert_non_null(at);
    memcpy(at, "\"output_sizes\": [[4, 8]]", strlen("\"output_sizes\": [[4, 8]]"));
    run(&j);
    assert_null(finding(&j, FA_SIZE_MISMATCH));
    done(&j);
}

/* Rank 1 left out DP's all_reduce #2 and went on to the default group's #1, which ranks 0 and 2
 * hold queued behind DP #2 (their history: DP #2 first); rank 3 left no dump. Everyone waits in
 * DP #2 on 1 and on 3, but the cycle through rank 1 holds whatever 3 did: 1 is the culprit, and
 * 3 may have stopped too, an alternative, not the one named (sim seed 3318). */
static void a_skip_cycle_holds_beside_a_rank_without_dump(void **state) {
    job j;
    job_init(&j, 4);
    group(&j, "1", "DATA_PARALLEL_GROUP", "[0, 1, 2, 3]");
    coll(&j, "1", "all_reduce", 1, S("completed", "completed", "completed", NULL));
    rec(&j, 0, "1", "all_reduce", 2, "scheduled");
    rec(&j, 2, "1", "all_reduce", 2, "scheduled");
    coll(&j, "0", "all_reduce", 1, S("scheduled", "started", "scheduled", NULL));
    j.skip[3] = 1;
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "1");
    assert_true(offers(&j, 3));
    done(&j);
}

/* Three pipeline pairs of one family run send #1 (stage 0 to 1), then send #2 back. Rank 4, stage
 * 0 of the third pair, left out its recv #2 and posts its next send at #2, where its sibling
 * stages 0 and 2 hold that recv; rank 5 holds the send its siblings 1 and 3 hold there. Each of 4
 * and 5 waits on the other's missing recv: the family says 4 left the program, 5 follows it (sim
 * seed 5944). */
static void a_send_recv_left_out_is_told_by_the_sibling_stages(void **state) {
    job j;
    job_init(&j, 6);
    j.group_ranks[0] = "[0, 1, 2, 3, 4, 5]";
    group(&j, "1", "PIPELINE_MODEL_PARALLEL_GROUP", "[0, 1]");
    group(&j, "2", "PIPELINE_MODEL_PARALLEL_GROUP", "[2, 3]");
    group(&j, "3", "PIPELINE_MODEL_PARALLEL_GROUP", "[4, 5]");
    const char *names[] = { "1", "2", "3" };
    for (int p = 0; p < 3; p++) {
        p2p(&j, 2 * p, names[p], "send 0->1", 1, "completed");
        p2p(&j, 2 * p + 1, names[p], "recv 1<-0", 1, "completed");
    }
    for (int p = 0; p < 2; p++) {
        p2p(&j, 2 * p, names[p], "recv 0<-1", 2, "completed");
        p2p(&j, 2 * p + 1, names[p], "send 1->0", 2, "completed");
    }
    p2p(&j, 4, "3", "send 0->1", 2, "started"); /* its recv #2 left out */
    p2p(&j, 5, "3", "send 1->0", 2, "started");
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "4");
    done(&j);
}

/* Only-active dumps: the sibling stages keep no completed send/recv, so none holds the rank's
 * number any more. Stages 0 of the first two pipeline pairs (ranks 0, 2) stand in their recv
 * 0<-1 #2, their tensor-parallel all_reduce #1 queued behind it; rank 4, stage 0 of the third
 * pair, stands in the same recv before the same all_reduce at #1: it posted one send/recv fewer
 * there (it left out its send #1), and 4 and 5 wait on each other. The siblings' own oldest
 * pending send/recv says it: 4 left the program, 5 follows it (sim seeds 8918, 9679). Without
 * the tensor-parallel all_reduce after it on both sides, nothing puts the siblings at the rank's
 * point of the program (they may be a step ahead): no word. */
static void a_send_recv_left_out_is_told_by_the_siblings_pending_one_later(void **state) {
    for (int anchored = 1; anchored >= 0; anchored--) {
        job j;
        job_init(&j, 6);
        j.group_ranks[0] = "[0, 1, 2, 3, 4, 5]";
        group(&j, "1", "PIPELINE_MODEL_PARALLEL_GROUP", "[0, 1]");
        group(&j, "2", "PIPELINE_MODEL_PARALLEL_GROUP", "[2, 3]");
        group(&j, "3", "PIPELINE_MODEL_PARALLEL_GROUP", "[4, 5]");
        group(&j, "4", "TENSOR_MODEL_PARALLEL_GROUP", "[0, 2, 4]");
        group(&j, "5", "TENSOR_MODEL_PARALLEL_GROUP", "[1, 3, 5]");
        const char *names[] = { "1", "2" };
        for (int p = 0; p < 2; p++) {
            p2p(&j, 2 * p, names[p], "recv 0<-1", 2, "started");
            if (anchored) rec(&j, 2 * p, "4", "all_reduce", 1, "scheduled");
            p2p(&j, 2 * p + 1, names[p], "send 1->0", 2, "started");
            rec(&j, 2 * p + 1, "5", "all_reduce", 1, "scheduled");
        }
        p2p(&j, 4, "3", "recv 0<-1", 1, "started"); /* its send #1 left out */
        rec(&j, 4, "4", "all_reduce", 1, "scheduled");
        p2p(&j, 5, "3", "recv 1<-0", 1, "started");
        run(&j);
        if (anchored)
            assert_culprits(&j, FA_STATUS_HANG, "4");
        else
            assert_false(j.a.verdict.status == FA_STATUS_HANG && j.a.verdict.culprits.n == 1 &&
                         j.a.verdict.culprits.v[0] == 4);
        done(&j);
    }
}

/* Only-active dumps, three pipeline pairs of one family: stage 0 receives #1, sends #2, receives
 * #3 (of other shapes), then both stages run their tensor-parallel all_reduce #1. The siblings'
 * #2 completed (gone from their dumps); their #1 and #3 are pending. Rank 5, stage 1 of the third
 * pair, left out its recv #2 and posts its send of #3's shapes at #2, before the all_reduce: its
 * sibling stages hold that send at #3, before the same all_reduce (the oldest they have pending is
 * #1, which rank 5 agrees with: no word of where it left the program). Rank 4 holds its send #2
 * where 5 holds a send too. Rank 5 is the one named, not 4, and no recv from the wrong source
 * excuses either in a group of two, where there is no other source (sim seed 12007). */
static void a_pair_left_out_send_recv_is_told_by_the_siblings_later_run(void **state) {
    job j;
    job_init(&j, 6);
    j.group_ranks[0] = "[0, 1, 2, 3, 4, 5]";
    group(&j, "1", "PIPELINE_MODEL_PARALLEL_GROUP", "[0, 1]");
    group(&j, "2", "PIPELINE_MODEL_PARALLEL_GROUP", "[2, 3]");
    group(&j, "3", "PIPELINE_MODEL_PARALLEL_GROUP", "[4, 5]");
    group(&j, "4", "TENSOR_MODEL_PARALLEL_GROUP", "[0, 2, 4]");
    group(&j, "5", "TENSOR_MODEL_PARALLEL_GROUP", "[1, 3, 5]");
    const char *names[] = { "1", "2", "3" };
    for (int p = 0; p < 3; p++) {
        j.p2p_sizes = "[[4]]";
        p2p(&j, 2 * p, names[p], "recv 0<-1", 1, "started");
        p2p(&j, 2 * p + 1, names[p], "send 1->0", 1, "started");
        if (p == 2) {
            j.p2p_sizes = "[[64]]";
            p2p(&j, 4, "3", "send 0->1", 2, "scheduled");
        }
        j.p2p_sizes = "[[128]]";
        p2p(&j, 2 * p, names[p], "recv 0<-1", 3, "scheduled");
        rec(&j, 2 * p, "4", "all_reduce", 1, "scheduled");
        p2p(&j, 2 * p + 1, names[p], "send 1->0", p == 2 ? 2 : 3, "scheduled"); /* 5: #3 at #2 */
        rec(&j, 2 * p + 1, "5", "all_reduce", 1, "scheduled");
    }
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "5");
    done(&j);
}

/* Three pipeline pairs of one family (and two more whose dumps hold nothing of the pipeline,
 * their send/recv gone: silent, no votes): stage 0 sends #1, receives #2, then runs its
 * tensor-parallel all_reduce #1 and the job's all_reduce #1. Rank 4, stage 0 of the third pair,
 * left out its recv #2: its whole dump shows its send #1, then the tensor-parallel all_reduce,
 * done with its sibling stages, which ran their recv #2 first. It has nothing pending in the
 * pipeline group, so no pending send/recv of its own says where it stands; its history says it
 * went past #2. Rank 5 waits in its send #2 to 4, and the job's all_reduce waits on 5: 4 is
 * named, not 5 (sim seeds 16063; 4942, where embedding groups of the same two stages read as
 * the pipeline's family and said nothing). */
static void a_stage_with_nothing_pending_that_ran_past_its_recv_is_named(void **state) {
    job j;
    job_init(&j, 10);
    j.group_ranks[0] = "[0, 1, 2, 3, 4, 5, 6, 7, 8, 9]";
    group(&j, "1", "PIPELINE_MODEL_PARALLEL_GROUP", "[0, 1]");
    group(&j, "2", "PIPELINE_MODEL_PARALLEL_GROUP", "[2, 3]");
    group(&j, "3", "PIPELINE_MODEL_PARALLEL_GROUP", "[4, 5]");
    group(&j, "6", "PIPELINE_MODEL_PARALLEL_GROUP", "[6, 7]");
    group(&j, "7", "PIPELINE_MODEL_PARALLEL_GROUP", "[8, 9]");
    group(&j, "4", "TENSOR_MODEL_PARALLEL_GROUP", "[0, 2, 4, 6, 8]");
    group(&j, "5", "TENSOR_MODEL_PARALLEL_GROUP", "[1, 3, 5, 7, 9]");
    const char *names[] = { "1", "2", "3" };
    for (int p = 0; p < 5; p++) {
        if (p < 3) {
            p2p(&j, 2 * p, names[p], "send 0->1", 1, "completed");
            p2p(&j, 2 * p + 1, names[p], "recv 1<-0", 1, "completed");
            if (p < 2) p2p(&j, 2 * p, names[p], "recv 0<-1", 2, "completed");
            p2p(&j, 2 * p + 1, names[p], "send 1->0", 2, p < 2 ? "completed" : "started");
        }
        rec(&j, 2 * p, "4", "all_reduce", 1, "completed");
        rec(&j, 2 * p, "0", "all_reduce", 1, "scheduled");
        if (p == 2) continue; /* rank 5 is blocked in its send */
        rec(&j, 2 * p + 1, "5", "all_reduce", 1, "scheduled");
        rec(&j, 2 * p + 1, "0", "all_reduce", 1, "scheduled");
    }
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "4");
    done(&j);
}

/* A pair whose stage 0 (rank 0) left out its recv #2: its next send lands at #2, where rank 1's
 * send #2 waits, and its recv #3 is of the shapes of 1's send #4. NCCL pairs the pair's sends
 * and recvs in the order they were posted: 1's send #2 meets 0's recv #3, of other shapes: a
 * size mismatch of both (tests/sim's E3; sim seeds 1978, 3485), not halves nobody posted. Where
 * the two have the same shapes, they are one transfer whose numbers the left-out recv shifted: no
 * mismatch. Nor where nothing shows the lower number went elsewhere: only-active dumps, rank 0's
 * GPU stalled in its recv #2 from 1, whose send #2 completed and is gone from its dump; 1's next
 * send #4, of other shapes, is no partner of that recv (sim seed 8408). */
static void a_pairs_next_transfer_of_other_shapes_is_a_mismatch(void **state) {
    for (int variant = 0; variant < 3; variant++) {
        bool same = variant == 1, dropped = variant == 2;
        job j;
        job_init(&j, 2);
        group(&j, "1", "PIPELINE_MODEL_PARALLEL_GROUP", "[0, 1]");
        j.p2p_sizes = "[[4]]";
        if (dropped) {
            p2p(&j, 0, "1", "recv 0<-1", 2, "started"); /* 1's send #2 done, dropped */
            p2p(&j, 0, "1", "send 0->1", 3, "scheduled");
            p2p(&j, 1, "1", "recv 1<-0", 3, "started");
            j.p2p_sizes = "[[16]]";
            p2p(&j, 1, "1", "send 1->0", 4, "scheduled");
        } else {
            p2p(&j, 0, "1", "send 0->1", 1, "completed");
            p2p(&j, 1, "1", "recv 1<-0", 1, "completed");
            p2p(&j, 1, "1", "send 1->0", 2, "started");
            p2p(&j, 0, "1", "send 0->1", 2, "started"); /* its recv #2 left out */
            j.p2p_sizes = same ? "[[4]]" : "[[16]]";
            p2p(&j, 0, "1", "recv 0<-1", 3, "scheduled");
            p2p(&j, 1, "1", "recv 1<-0", 3, "scheduled");
            p2p(&j, 1, "1", "send 1->0", 4, "scheduled");
        }
        run(&j);
        if (same || dropped)
            assert_true(j.a.verdict.status != FA_STATUS_MISMATCH);
        else
            assert_culprits(&j, FA_STATUS_MISMATCH, "0,1");
        done(&j);
    }
}

/* A ring of four that exchanges in batches: each rank sends to the next and receives from the one
 * before. In batch #2 rank 2 receives from 0 instead of 1; in batch #3 (other shapes) it
 * receives from 1. NCCL pairs 1's sends to 2 in posting order: its send #2 meets 2's recv #3, of
 * other shapes, since 2's #2 holds no recv from 1: a size mismatch of 1 and 2 (tests/sim's E3;
 * sim seed 13523, rings that wrapped), not "2 never posted the recv" with 1's #3 paired by
 * number. */
static void a_ring_batch_from_the_wrong_peer_meets_the_next_transfer(void **state) {
    job j;
    job_init(&j, 4);
    for (int r = 0; r < 4; r++) {
        char send[16], recv[16];
        j.first_record[r] = 8; /* rings that wrapped: no whole history to pair in order */
        snprintf(send, sizeof send, "send %d->%d", r, (r + 1) % 4);
        snprintf(recv, sizeof recv, "recv %d<-%d", r, r == 2 ? 0 : (r + 3) % 4);
        j.p2p_sizes = "[[4]]";
        p2p(&j, r, "0", send, 2, "scheduled");
        p2p(&j, r, "0", recv, 2, "scheduled");
        snprintf(recv, sizeof recv, "recv %d<-%d", r, (r + 3) % 4);
        j.p2p_sizes = "[[16]]";
        p2p(&j, r, "0", send, 3, "scheduled");
        p2p(&j, r, "0", recv, 3, "scheduled");
    }
    run(&j);
    assert_culprits(&j, FA_STATUS_MISMATCH, "1,2");
    done(&j);
}

/* Four pipeline stages on one communicator (our recorder's numbering: each rank counts its own
 * send/recv). Stage 1 sends to 3 instead of 2 and then waits to receive from 2; 2 waits to receive
 * from 1, its send to 3 behind that recv; 3's recv from 2 meets that send, and 3's send to 2 waits
 * behind its recv. 2's recv from 1 is no recv from the wrong source: the only end that waits on 2
 * (3's send) is queued behind 3's own recv, and 1, which it would excuse, posted a wrong end of
 * its own. Rank 1 is named (sim seed 17689, where 2 was). */
static void a_queued_send_does_not_make_its_peer_a_wrong_receiver(void **state) {
    job j;
    job_init(&j, 4);
    p2p(&j, 0, "0", "send 0->1", 5, "completed");
    p2p(&j, 1, "0", "recv 1<-0", 5, "completed");
    p2p(&j, 1, "0", "send 1->3", 6, "scheduled");
    p2p(&j, 1, "0", "recv 1<-2", 7, "scheduled");
    p2p(&j, 2, "0", "recv 2<-1", 6, "scheduled");
    p2p(&j, 2, "0", "send 2->3", 7, "scheduled");
    p2p(&j, 3, "0", "recv 3<-2", 6, "scheduled");
    p2p(&j, 3, "0", "send 3->2", 7, "scheduled");
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "1");
    done(&j);
}

/* Only-active dumps of a pipeline pair in a larger job: rank 3, stage 1, left out its recv #2 and
 * posts its send #3 at #2; rank 2 waits in its send #2, its recv #3 behind it, and the job's
 * all_reduce waits on 2. The sibling pairs' dumps hold nothing of the pipeline (what they ran
 * completed and is gone): nothing says whether 3 left one out or 2 posted one too many. One of
 * them, no culprit (sim seed 1875, where 2 alone was named). */
static void a_pair_in_two_orders_without_siblings_words_is_one_of_two(void **state) {
    job j;
    job_init(&j, 4);
    group(&j, "1", "PIPELINE_MODEL_PARALLEL_GROUP", "[0, 1]");
    group(&j, "2", "PIPELINE_MODEL_PARALLEL_GROUP", "[2, 3]");
    j.p2p_sizes = "[[4]]";
    p2p(&j, 2, "2", "send 0->1", 2, "started");
    p2p(&j, 3, "2", "send 1->0", 2, "started"); /* its recv #2 left out */
    p2p(&j, 2, "2", "recv 0<-1", 3, "scheduled");
    coll(&j, "0", "all_reduce", 1, S("scheduled", "scheduled", NULL, "scheduled"));
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "");
    assert_true(offers(&j, 2) && offers(&j, 3));
    assert_non_null(strstr(j.a.verdict.summary, "rank 2 or 3"));
    done(&j);
}

/* Only-active dumps. Rank 2 left TP #4 and #5 out and went on to the step's default_pg #3, where
 * it waits for rank 3; rank 3 waits in TP #4 for rank 2. Ranks 0 and 1 completed TP #4, gone from
 * their dumps, but their TP #5, pending before default_pg #3, says they issued #4 before it too
 * (a group issues its collectives in number order): rank 3 never got to default_pg #3, a victim,
 * and rank 2 is the one named (sim seed 9679, where the lack of the dropped collective made
 * four victims culprits). Read by the kept entries alone, nobody tells the order: 2 and 3. */
static void a_later_collective_of_the_group_says_its_dropped_one_came_first(void **state) {
    job j;
    job_init(&j, 4);
    group(&j, "1", "TP", "[0, 1]");
    group(&j, "2", "TP", "[2, 3]");
    for (int r = 0; r < 2; r++) {
        rec(&j, r, "1", "all_reduce", 5, "scheduled");
        rec(&j, r, "0", "all_reduce", 3, "started");
    }
    rec(&j, 2, "0", "all_reduce", 3, "started");
    rec(&j, 3, "2", "all_reduce", 4, "started");
    const char *tp[] = { "\"1\": {\"last_enqueued_collective\": 5, \"last_started_collective\": 4, "
                         "\"last_completed_collective\": 4}",
                         "\"2\": {\"last_enqueued_collective\": 3, \"last_started_collective\": 3, "
                         "\"last_completed_collective\": 3}",
                         "\"2\": {\"last_enqueued_collective\": 4, \"last_started_collective\": 4, "
                         "\"last_completed_collective\": 3}" };
    for (int r = 0; r < 4; r++)
        snprintf(j.status[r], sizeof j.status[r],
                 "\"0\": {\"last_enqueued_collective\": %d, \"last_started_collective\": %d, "
                 "\"last_completed_collective\": 2}, %s",
                 r < 3 ? 3 : 2, r < 3 ? 3 : 2, tp[r < 2 ? 0 : r - 1]);
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "2");
    done(&j);
}

/* Every member of a gloo group (members rebuilt from the entries) has #2 pending, but one issued
 * another operation there: the mismatch holds them up, not a member without a dump. */
static void members_pending_in_different_ops_are_no_missing_member(void **state) {
    job j;
    job_init(&j, 3);
    j.backend = "gloo";
    j.gloo_config = 1;
    group(&j, "1", "fsdp_shard", "[0, 1, 2]");
    coll(&j, "1", "all_reduce", 1, S("completed", "completed", "completed"));
    coll(&j, "1", "reduce_scatter", 2, S("scheduled", "scheduled", NULL));
    rec(&j, 2, "1", "all_reduce", 2, "scheduled");
    run(&j);
    assert_culprits(&j, FA_STATUS_MISMATCH, "2");
    long shard = -1;
    for (size_t g = 0; g < j.a.groups.n; g++)
        if (strcmp(j.a.groups.v[g].name, "1") == 0) shard = (long)g;
    assert_true(shard >= 0);
    assert_int_equal(j.a.groups.v[shard].nmembers, 3);
    done(&j);
}

/* All three members of a gloo group have #2 in flight, and its all_gather said three members:
 * a snapshot of a running job, not a fourth member holding them up. */
static void members_all_pending_where_all_gathers_say_all_are_there(void **state) {
    job j;
    job_init(&j, 3);
    j.backend = "gloo";
    j.gloo_config = 1;
    group(&j, "1", "fsdp_shard", "[0, 1, 2]");
    j.output_sizes = "[[4, 4], [4, 4], [4, 4]]";
    coll(&j, "1", "all_gather", 1, S("completed", "completed", "completed"));
    j.output_sizes = NULL;
    coll(&j, "1", "all_reduce", 2, S("scheduled", "scheduled", "scheduled"));
    run(&j);
    long shard = -1;
    for (size_t g = 0; g < j.a.groups.n; g++)
        if (strcmp(j.a.groups.v[g].name, "1") == 0) shard = (long)g;
    assert_true(shard >= 0);
    assert_int_equal(j.a.groups.v[shard].nmembers, 3);
    assert_culprits(&j, FA_STATUS_OK, "");
    done(&j);
}

/* gloo retires a failed op as done; when a member left no dump, the others' newest op may have
 * failed with it (they wait on it). A member whose file is there but unreadable lived to dump:
 * no sign of a failure, and a snapshot where everyone's newest op ended is ok. */
static void an_unreadable_member_did_not_die_in_an_ended_op(void **state) {
    job j;
    job_init(&j, 3);
    j.backend = "gloo";
    coll(&j, "0", "all_reduce", 1, S("completed", "completed", NULL));
    j.skip[2] = 2;
    run(&j);
    assert_culprits(&j, FA_STATUS_OK, "");
    done(&j);
    job_init(&j, 3);
    j.backend = "gloo";
    coll(&j, "0", "all_reduce", 1, S("completed", "completed", NULL));
    j.skip[2] = 1;
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "2");
    done(&j);
}

/* gloo: rank 1's file is there but unreadable, so it lived to dump, and rank 0's newest op did
 * not fail for its death: rank 0, idle, never issued #2, which rank 2 waits in. Rank 0 stopped:
 * the culprit, rank 1 only an alternative (it may have stopped too). Mutation ro01: an unreadable
 * member read as one that died makes rank 0 a victim and names rank 1 alone (sim seed 445, before
 * rank 2's entry past #1 proved #1 ran, fa_vg_op_ran; the second job keeps the op unproven, as
 * sim seed 3793 does). */
static void an_unreadable_member_does_not_excuse_an_idle_rank(void **state) {
    job j;
    job_init(&j, 3);
    j.backend = "gloo";
    coll(&j, "0", "all_reduce", 1, S("completed", "completed", "completed"));
    rec(&j, 2, "0", "all_reduce", 2, "scheduled");
    j.skip[1] = 2;
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "0");
    done(&j);
    /* the same where rank 0's newest op is one no dump shows ran (in the first job rank 2, past
     * #1, proves #1 ran, and no member can have died in it): its pair op with rank 1, retired on
     * rank 0's newest entry, could have failed only if rank 1 had died, and rank 1 lived to write
     * its file (ro01 names rank 1 alone) */
    job_init(&j, 3);
    j.backend = "gloo";
    group(&j, "1", "pair", "[0, 1]");
    coll(&j, "0", "all_reduce", 1, S("completed", "completed", "completed"));
    coll(&j, "1", "all_reduce", 1, S("completed", "completed", NULL));
    rec(&j, 2, "0", "all_reduce", 2, "scheduled");
    j.skip[1] = 2;
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "0");
    done(&j);
}

/* An only-active dump drops a batch's completed `coalesced` marker and leaves its send/recv
 * "scheduled" (PyTorch's way): the batch completed. The collective issued next in the group
 * carries the group's send/recv count (p2p_seq_id 1) but is no transfer of the batch: rank 0's
 * batch, followed by such a collective, completed as rank 1's did, followed by another group's
 * (mutation hg02: read as pending, rank 0 was a stalled GPU beside the real culprit; sim seed
 * 4317, 16 ranks named). */
static void a_collective_after_a_batch_is_no_part_of_it(void **state) {
    job j;
    job_init(&j, 3);
    group(&j, "1", "pair", "[0, 1]");
    p2p(&j, 0, "1", "send 0->1", 1, "scheduled");
    p2p(&j, 0, "1", "recv 0<-1", 1, "scheduled");
    p2p(&j, 1, "1", "recv 1<-0", 1, "scheduled");
    p2p(&j, 1, "1", "send 1->0", 1, "scheduled");
    j.first_record[0] = j.first_record[1] = 1; /* the markers, completed, were dropped */
    j.coll_p2p_seq = 1;
    rec(&j, 0, "1", "broadcast", 2, "scheduled");
    j.coll_p2p_seq = 0;
    rec(&j, 1, "0", "all_reduce", 2, "scheduled");
    rec(&j, 2, "0", "all_reduce", 2, "scheduled");
    rec(&j, 1, "1", "broadcast", 2, "scheduled");
    run(&j);
    for (size_t op = 0; op < j.a.match.nops; op++)
        if (j.a.match.ops[op].is_p2p)
            for (uint32_t p = 0; p < 2; p++)
                assert_int_equal(fa_op_member_state(&j.a.match, &j.a.groups, op, p),
                                 FA_MS_COMPLETED);
    assert_culprits(&j, FA_STATUS_HANG, "0");
    done(&j);
}

/* A ring of batches 0 -> 1 -> 2 -> 3 -> 0 in default_pg, each rank's last work, after five
 * collectives; rank 3's dump is unreadable. The only-active dumps of 0, 1 and 2 end with their
 * batch's send and recv, left "scheduled" (PyTorch's way), the `coalesced` marker not shown.
 * Their pg_status says the last work enqueued was numbered `seq`, the batch's send/recv number:
 * with seq 1 only its marker enqueues that (a ring keeps the newest records, so a marker made
 * and not shown was dropped as completed: nobody waits, sim seed 8926); with seq 5 it may be the
 * fifth collective's, the marker never made (a CPU stopped between the transfers and the
 * marker): ranks 0 and 2 wait for rank 3. */
static void ring_of_batches_at_the_dumps_end(job *j, int seq) {
    job_init(j, 4);
    j->skip[3] = 1;
    j->p2p_coll_seq = 5;
    const char *ring[3][2] = { { "send 0->1", "recv 0<-3" },
                               { "send 1->2", "recv 1<-0" },
                               { "send 2->3", "recv 2<-1" } };
    for (int r = 0; r < 3; r++) {
        j->first_record[r] = 5;
        p2p(j, r, "0", ring[r][0], seq, "scheduled");
        p2p(j, r, "0", ring[r][1], seq, "scheduled");
        sprintf(j->status[r],
                "\"0\": {\"last_enqueued_collective\": %d, \"last_started_collective\": -1, "
                "\"last_completed_collective\": %d}",
                seq, seq);
    }
    run(j);
}

static void a_batch_whose_marker_was_made_and_not_shown_completed(void **state) {
    job j;
    ring_of_batches_at_the_dumps_end(&j, 1);
    assert_culprits(&j, FA_STATUS_OK, "");
    done(&j);
}

static void a_batch_whose_marker_may_not_have_been_made_is_pending(void **state) {
    job j;
    ring_of_batches_at_the_dumps_end(&j, 5);
    assert_culprits(&j, FA_STATUS_HANG, "3");
    done(&j);
}

/* Rank 3's CPU stopped before default_pg's all_reduce #2, which ranks 0 and 2 wait in. Rank 1's
 * dump shows default_pg's #1 pending, which 0, 2 and 3 completed, and nothing of its pair group
 * with rank 0, where rank 0 completed all_reduce #1 and waits in #2; its earlier records are gone
 * (an only-active dump). Its pg_config lists no communicator of the pair group (PyTorch makes one
 * at a group's first operation): it never ran #1 there, which rank 0 completed with it, so its
 * dump is older than rank 0's (E8), no stalled GPU nor a rank that never issued #2; rank 3 is
 * the culprit (sim seed 9939). With the pair group listed, its ops may lie before the window. */
static void older_dump_job(job *j, const char *unmade) {
    job_init(j, 4);
    group(j, "1", "pair", "[0, 1]");
    j->unmade[1] = unmade;
    j->first_record[0] = j->first_record[1] = j->first_record[2] = 4;
    rec(j, 0, "0", "all_reduce", 2, "scheduled");
    rec(j, 0, "1", "all_reduce", 2, "scheduled");
    rec(j, 1, "0", "all_reduce", 1, "scheduled");
    rec(j, 2, "0", "all_reduce", 2, "scheduled");
    const char *st = "\"0\": {\"last_enqueued_collective\": %d, \"last_started_collective\": -1, "
                     "\"last_completed_collective\": %d}";
    sprintf(j->status[0], st, 2, 1);
    strcat(j->status[0], ", \"1\": {\"last_enqueued_collective\": 2, "
                         "\"last_started_collective\": -1, \"last_completed_collective\": 1}");
    sprintf(j->status[1], st, 1, -1);
    sprintf(j->status[2], st, 2, 1);
    sprintf(j->status[3], st, 1, 1);
    run(j);
}

static void a_group_missing_from_pg_config_shows_a_dump_older(void **state) {
    job j;
    older_dump_job(&j, "1");
    assert_true(fa_stale_known(&j.a.match.rank_stale[1]));
    assert_culprits(&j, FA_STATUS_HANG, "3");
    done(&j);
}

static void a_group_in_pg_config_may_have_run_before_the_window(void **state) {
    job j;
    older_dump_job(&j, NULL);
    assert_false(fa_stale_known(&j.a.match.rank_stale[1]));
    done(&j);
}

/* A coalesced all_reduce #1 (two entries of one collective_seq_id) left "scheduled" on every
 * rank, its completed `coalesced` marker dropped by only-active dumps (PyTorch's way). Ranks 0,
 * 1, 3 went on to #2, which follows the bundle without its marker: the marker completed, and
 * the bundle with it. Rank 2 went on only in a group of its own, but the others completed #1,
 * so its bundle ran and its marker, recorded before the launch, completed too. Rank 2 never
 * issued #2: it is named for #2, and nobody is a stalled GPU in #1 (tests/sim seeds 4806, 6007,
 * 9097; mutations mc01, mc02, mc03). */
static void a_bundle_without_its_marker_completed(void **state) {
    job j;
    job_init(&j, 4);
    group(&j, "1", "solo", "[2]");
    coll(&j, "0", "all_reduce", 1, S("scheduled", "scheduled", "scheduled", "scheduled"));
    coll(&j, "0", "all_reduce", 1, S("scheduled", "scheduled", "scheduled", "scheduled"));
    for (int r = 0; r < 4; r++) j.first_record[r] = 1; /* the markers, completed, dropped */
    coll(&j, "0", "all_reduce", 2, S("scheduled", "scheduled", NULL, "scheduled"));
    rec(&j, 2, "1", "all_reduce", 1, "scheduled");
    run(&j);
    for (size_t op = 0; op < j.a.match.nops; op++)
        if (j.a.match.ops[op].seq == 1 && j.a.groups.v[j.a.match.ops[op].group].nmembers == 4)
            for (uint32_t p = 0; p < 4; p++)
                assert_int_equal(fa_op_member_state(&j.a.match, &j.a.groups, op, p),
                                 FA_MS_COMPLETED);
    assert_culprits(&j, FA_STATUS_HANG, "2");
    if (!strstr(j.a.verdict.summary, "rank 2 never joined"))
        fail_msg("summary: %s", j.a.verdict.summary);
    done(&j);
}

/* The same bundle where no member went on in the group and nobody completed it. Rank 2's
 * record after the bundle is gone, but nothing of the group follows there, and nothing shows
 * the bundle launched: the record dropped may be another thread's, the marker not yet written.
 * The bundle stays in flight on all, a snapshot of a running job (mutation mc04). */
static void a_bundle_without_its_marker_nowhere_done_is_in_flight(void **state) {
    job j;
    job_init(&j, 4);
    group(&j, "1", "solo", "[2]");
    coll(&j, "0", "all_reduce", 1, S("scheduled", "scheduled", "scheduled", "scheduled"));
    coll(&j, "0", "all_reduce", 1, S("scheduled", "scheduled", "scheduled", "scheduled"));
    j.first_record[2] = 1;
    rec(&j, 2, "1", "all_reduce", 1, "scheduled");
    run(&j);
    for (size_t op = 0; op < j.a.match.nops; op++)
        for (uint32_t p = 0; j.a.groups.v[j.a.match.ops[op].group].nmembers == 4 && p < 4; p++)
            assert_int_not_equal(fa_op_member_state(&j.a.match, &j.a.groups, op, p),
                                 FA_MS_COMPLETED);
    assert_culprits(&j, FA_STATUS_OK, "");
    done(&j);
}

/* A coalesced bundle of two types (all_reduce and broadcast #1, one collective_seq_id, two ops
 * here) on every rank, left "scheduled". Ranks 0 and 1 still show its `coalesced` marker
 * pending: their dumps are older (pg_status: completed 0). Ranks 2 and 3 dropped the marker (the
 * record after the broadcast is gone, completed) and ran a batch of send/recv after it, all
 * their work done (pg_status: enqueued 9, completed 9): the marker closed the whole bundle, so
 * the all_reduce, the bundle's first member, completed with the broadcast, not only the member
 * right before the gap (mutation mc05: 2 and 3 read as pending in the all_reduce, and "rank 0
 * or 1 stopped" in a job where nothing waits; sim seeds 4956, 5111, expected ok). */
static void a_bundle_of_two_types_without_its_marker_completed_whole(void **state) {
    job j;
    job_init(&j, 4);
    coll(&j, "0", "all_reduce", 1, S("scheduled", "scheduled", "scheduled", "scheduled"));
    coll(&j, "0", "broadcast", 1, S("scheduled", "scheduled", "scheduled", "scheduled"));
    coll(&j, "0", "coalesced", 1, S("scheduled", "scheduled", NULL, NULL));
    j.first_record[2] = j.first_record[3] = 1; /* their markers, completed, dropped */
    j.p2p_coll_seq = 1;
    p2p(&j, 2, "0", "send 2->3", 1, "scheduled");
    p2p(&j, 2, "0", "recv 2<-3", 1, "scheduled");
    p2p(&j, 3, "0", "recv 3<-2", 1, "scheduled");
    p2p(&j, 3, "0", "send 3->2", 1, "scheduled");
    const char *st = "\"0\": {\"last_enqueued_collective\": %d, \"last_started_collective\": -1, "
                     "\"last_completed_collective\": %d}";
    for (int r = 0; r < 4; r++) sprintf(j.status[r], st, r < 2 ? 1 : 9, r < 2 ? 0 : 9);
    run(&j);
    for (size_t op = 0; op < j.a.match.nops; op++)
        for (uint32_t p = 2; j.a.match.ops[op].seq == 1 && p < 4; p++)
            assert_int_equal(fa_op_member_state(&j.a.match, &j.a.groups, op, p), FA_MS_COMPLETED);
    assert_culprits(&j, FA_STATUS_OK, "");
    done(&j);
}

/* gloo, members rebuilt from the entries: rank 3's file was cut after its first entry, before
 * it showed its pair group (and before its pg_config). Rank 2 waits in its pair group {2, ?},
 * which its family says holds two: the member it lost is rank 3, whose groups after the cut are
 * unknown, not a rank 4 the dumps never show (mutations hg01, hg06; sim seeds 3528, 1760). */
static void a_cut_dump_may_be_the_member_a_group_lost(void **state) {
    job j;
    job_init(&j, 4);
    j.backend = "gloo";
    j.gloo_config = 1;
    group(&j, "1", "pair", "[0, 1]");
    group(&j, "2", "pair", "[2, 3]");
    coll(&j, "0", "all_reduce", 1, S("completed", "completed", "completed", "completed"));
    coll(&j, "1", "all_reduce", 1, S("completed", "completed", NULL, NULL));
    rec(&j, 2, "2", "all_reduce", 1, "scheduled");
    j.skip[3] = 3;
    run(&j);
    long pair = -1;
    for (size_t g = 0; g < j.a.groups.n; g++)
        if (strcmp(j.a.groups.v[g].name, "2") == 0) pair = (long)g;
    assert_true(pair >= 0);
    assert_int_equal(j.a.groups.v[pair].nmembers, 2);
    assert_int_equal(j.a.groups.v[pair].members[1], 3);
    assert_culprits(&j, FA_STATUS_HANG, "3");
    done(&j);
    /* the same where rank 3's ring wrapped and lost its pair group's entries (sim seed 1760) */
    job_init(&j, 4);
    j.backend = "gloo";
    j.gloo_config = 1;
    group(&j, "1", "pair", "[0, 1]");
    group(&j, "2", "pair", "[2, 3]");
    coll(&j, "1", "all_reduce", 1, S("completed", "completed", NULL, NULL));
    j.first_record[3] = 5;
    coll(&j, "0", "all_reduce", 2, S("completed", "completed", "completed", "completed"));
    rec(&j, 2, "2", "all_reduce", 1, "scheduled");
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "3");
    done(&j);
}

/* gloo: ranks 1 and 3 retired #2 (their newest op), which rank 2, alive (its dump is there),
 * never issued: #2 cannot have completed, so it failed, and gloo fails an op whose peer died:
 * rank 0, which left no dump. Ranks 1 and 3 wait on the dead rank, not on rank 2, which went on
 * from #1 with them and is nobody's cause; and rank 0 is no dump merely lost beside an idle rank
 * (mutants m602, m603; tests/sim's E9; sim seed 2895). */
static void an_op_that_failed_on_a_death_waits_on_the_dead(void **state) {
    job j;
    job_init(&j, 4);
    j.backend = "gloo";
    coll(&j, "0", "all_reduce", 1, S(NULL, "completed", "completed", "completed"));
    coll(&j, "0", "all_reduce", 2, S(NULL, "completed", NULL, "completed"));
    j.skip[0] = 1;
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "0");
    done(&j);
    /* rank 3 still has #2 in progress (gloo failed it only on the dead peer's neighbours): it
     * waits on every member absent, rank 2 too, which never issued it (sim seed 875) */
    job_init(&j, 4);
    j.backend = "gloo";
    coll(&j, "0", "all_reduce", 1, S(NULL, "completed", "completed", "completed"));
    coll(&j, "0", "all_reduce", 2, S(NULL, "completed", NULL, "scheduled"));
    j.skip[0] = 1;
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "2");
    done(&j);
}

/* Rank 1 ran its step's all_reduce in its TP group {0, 1} instead of its DP group {1, 3} (groups
 * without a description: each its own family), then queued default_pg #2. Rank 3 waits for it in
 * the DP group; rank 1 waits for rank 0 in the TP group; rank 0 waits in default_pg #2. Rank 1's
 * own order (TP #2 before default_pg #2) is the one in doubt, since rank 3 waits on it: it is no
 * witness that rank 0 left TP #2 out, and rank 0's history (default_pg #1 before TP #1) says it is
 * blocked before it. Rank 1 alone is the culprit (mutation hg05; sim seeds 1981, 836). */
static void an_accused_rank_is_no_witness_of_the_order(void **state) {
    job j;
    job_init(&j, 4);
    group(&j, "1", "undefined", "[0, 1]");
    group(&j, "2", "undefined", "[2, 3]");
    group(&j, "3", "undefined", "[0, 2]");
    group(&j, "4", "undefined", "[1, 3]");
    /* each step: DP all_reduce, default_pg all_reduce, TP all_reduce */
    coll(&j, "3", "all_reduce", 1, S("completed", NULL, "completed", NULL));
    coll(&j, "4", "all_reduce", 1, S(NULL, "completed", NULL, "completed"));
    coll(&j, "0", "all_reduce", 1, S("completed", "completed", "completed", "completed"));
    coll(&j, "1", "all_reduce", 1, S("completed", "completed", NULL, NULL));
    coll(&j, "2", "all_reduce", 1, S(NULL, NULL, "completed", "completed"));
    coll(&j, "3", "all_reduce", 2, S("completed", NULL, "completed", NULL));
    rec(&j, 3, "4", "all_reduce", 2, "started");
    rec(&j, 1, "1", "all_reduce", 2, "started");
    coll(&j, "0", "all_reduce", 2, S("scheduled", "scheduled", "scheduled", NULL));
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "1");
    done(&j);
}

/* gloo groups without a description ("undefined"): groups 1, 2 (data parallel, {0,2,4} and
 * {1,3,5}) and 3, 4, 5 (tensor parallel, {0,1}, {2,3}, {4,5}) are one family each, told apart
 * by their order of creation and their disjoint members, not one family of five. Rank 4 left no
 * dump; rank 5's tensor-parallel group is rebuilt as {5}, its family says two: rank 4 is put
 * back, rank 5's ended all_reduce with it failed, and rank 4 alone is the culprit (mutation ro02;
 * sim seed 233). */
static void undescribed_groups_make_families_by_their_order(void **state) {
    job j;
    job_init(&j, 6);
    j.backend = "gloo";
    j.gloo_config = 1;
    j.group_ranks[0] = "[0, 1, 2, 3, 4, 5]";
    group(&j, "1", "undefined", "[0, 2, 4]");
    group(&j, "2", "undefined", "[1, 3, 5]");
    group(&j, "3", "undefined", "[0, 1]");
    group(&j, "4", "undefined", "[2, 3]");
    group(&j, "5", "undefined", "[4, 5]");
    coll(&j, "1", "all_reduce", 1, S("completed", NULL, "completed", NULL, NULL, NULL));
    coll(&j, "2", "all_reduce", 1, S(NULL, "completed", NULL, "completed", NULL, "completed"));
    coll(&j, "3", "all_reduce", 1, S("completed", "completed", NULL, NULL, NULL, NULL));
    coll(&j, "4", "all_reduce", 1, S(NULL, NULL, "completed", "completed", NULL, NULL));
    rec(&j, 5, "5", "all_reduce", 1, "completed");
    coll(&j, "1", "all_reduce", 2, S("scheduled", NULL, "scheduled", NULL, NULL, NULL));
    coll(&j, "2", "all_reduce", 2, S(NULL, "scheduled", NULL, "scheduled", NULL, NULL));
    j.skip[4] = 1;
    run(&j);
    long tp = -1;
    for (size_t g = 0; g < j.a.groups.n; g++)
        if (strcmp(j.a.groups.v[g].name, "5") == 0) tp = (long)g;
    assert_true(tp >= 0);
    assert_int_equal(j.a.groups.v[tp].nmembers, 2);
    assert_int_equal(j.a.groups.v[tp].members[0], 4);
    assert_culprits(&j, FA_STATUS_HANG, "4");
    done(&j);
}

/* A family's groups of two ({8,9} whole, and its all_gathers say two) lost ranks 0, 2, 4 and 6:
 * {1} could take 0 or 2, {3} 2 or 4, {5} 4 or 6, but {7} only 6 (8 has a dump); once it has, {5}
 * can only take 4, then {3} only 2, and then {1} only 0. Filled one after the other, again until
 * nothing more is (mutation ro03: one pass leaves two groups short, more than the one that the
 * candidates left over may fill; sim seed 33). */
static void a_group_filled_leaves_its_neighbour_one_way(void **state) {
    job j;
    job_init(&j, 10);
    j.backend = "gloo";
    j.gloo_config = 1;
    j.group_ranks[0] = "[0, 1, 2, 3, 4, 5, 6, 7, 8, 9]";
    group(&j, "1", "fsdp_shard", "[0, 1]");
    group(&j, "2", "fsdp_shard", "[2, 3]");
    group(&j, "3", "fsdp_shard", "[4, 5]");
    group(&j, "4", "fsdp_shard", "[6, 7]");
    group(&j, "5", "fsdp_shard", "[8, 9]");
    j.output_sizes = "[[4, 4], [4, 4]]";
    for (int g = 0; g < 4; g++) {
        char name[2] = { (char)('1' + g), 0 };
        rec(&j, 2 * g + 1, name, "all_gather", 1, "completed");
    }
    coll(&j, "5", "all_gather", 1,
         S(NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, "completed", "completed"));
    j.output_sizes = NULL;
    j.skip[0] = j.skip[2] = j.skip[4] = j.skip[6] = 1;
    run(&j);
    size_t filled = 0;
    for (size_t g = 0; g < j.a.groups.n; g++) {
        const fa_group *grp = &j.a.groups.v[g];
        if (strlen(grp->name) != 1 || grp->name[0] < '1' || grp->name[0] > '4') continue;
        assert_int_equal(grp->nmembers, 2);
        assert_int_equal(grp->members[0], 2 * (grp->name[0] - '1'));
        filled++;
    }
    assert_int_equal(filled, 4);
    done(&j);
}

/* The group of `name` in the analysis, or fails. */
static const fa_group *group_named(const job *j, const char *name) {
    for (size_t g = 0; g < j->a.groups.n; g++)
        if (strcmp(j->a.groups.v[g].name, name) == 0) return &j->a.groups.v[g];
    fail_msg("no group %s", name);
    return NULL;
}

/* Split groups sharing one description (expert groups {0,1,2}, {3,4,5}, then their crossings
 * {0,3}, {1,4}, {2,5}, all "EXPERT_GROUP") are two families, each a run of disjoint groups made
 * one after another, not one family of mixed sizes where no size has half. Rank 0 was killed and
 * is in no group the dumps show whole: {1,2} and {3} are each short of it. Rank 3's newest op, in
 * {0,3}, ended (gloo retires a failed op): it failed with rank 0, and 4, 5 wait for rank 3 in
 * their all_to_all. Rank 0 is the culprit (mutation rr01; real seed 30 of random_job.py). */
static void split_groups_of_one_description_are_families_by_their_runs(void **state) {
    job j;
    job_init(&j, 6);
    j.backend = "gloo";
    j.gloo_config = 1;
    group(&j, "1", "EXPERT_GROUP", "[0, 1, 2]");
    group(&j, "2", "EXPERT_GROUP", "[3, 4, 5]");
    group(&j, "3", "EXPERT_GROUP", "[0, 3]");
    group(&j, "4", "EXPERT_GROUP", "[1, 4]");
    group(&j, "5", "EXPERT_GROUP", "[2, 5]");
    coll(&j, "1", "all_to_all", 1, S(NULL, "completed", "completed", NULL, NULL, NULL));
    coll(&j, "2", "all_to_all", 1, S(NULL, NULL, NULL, "completed", "completed", "completed"));
    coll(&j, "4", "all_reduce", 1, S(NULL, "completed", NULL, NULL, "completed", NULL));
    coll(&j, "5", "all_reduce", 1, S(NULL, NULL, "completed", NULL, NULL, "completed"));
    rec(&j, 3, "3", "all_reduce", 1, "completed");
    coll(&j, "1", "all_to_all", 2, S(NULL, "scheduled", "scheduled", NULL, NULL, NULL));
    coll(&j, "2", "all_to_all", 2, S(NULL, NULL, NULL, NULL, "scheduled", "scheduled"));
    j.skip[0] = 1;
    run(&j);
    const fa_group *ep = group_named(&j, "1"), *cross = group_named(&j, "3");
    assert_int_equal(ep->nmembers, 3);
    assert_int_equal(ep->members[0], 0);
    assert_int_equal(cross->nmembers, 2);
    assert_int_equal(cross->members[0], 0);
    assert_culprits(&j, FA_STATUS_HANG, "0");
    done(&j);
}

/* Global ranks are dense from 0: rank 0, below rank 2 that dumped, is a member of the job even
 * though no group the dumps show holds it (mutation rr03). */
static void a_rank_below_the_highest_that_dumped_is_a_member_of_the_job(void **state) {
    job j;
    job_init(&j, 3);
    j.backend = "gloo";
    j.gloo_config = 1;
    group(&j, "1", "X", "[1, 2]");
    coll(&j, "1", "all_reduce", 1, S(NULL, "completed", "completed"));
    j.skip[0] = 1;
    run(&j);
    assert_ranks(&j.a.groups.without_dump, "0");
    done(&j);
}

/* gloo, three ranks: ranks 0 and 1 left no dump; rank 2 dumped, idle, its collectives retired,
 * its pg_config empty, so its data-parallel group is rebuilt from its own entries and names no
 * other member. No group the dumps show lists ranks 0 and 1, but both are below rank 2, which
 * dumped, so both are the job's: most of the job is lost, and the one dump cannot speak for it
 * (inconclusive on that ground, not as "rank 2 idle beside lost ranks"; sim seeds 677, 8546)
 * (kills hg701). */
static void most_of_a_gloo_job_lost_below_the_rank_that_dumped_is_inconclusive(void **state) {
    job j;
    job_init(&j, 3);
    j.backend = "gloo";
    j.no_config[2] = 1;
    group(&j, "1", "DATA_PARALLEL_GROUP", "[0, 1, 2]");
    rec(&j, 2, "1", "all_reduce", 1, "completed");
    rec(&j, 2, "1", "all_reduce", 2, "completed");
    j.skip[0] = j.skip[1] = 1;
    run(&j);
    assert_culprits(&j, FA_STATUS_INCONCLUSIVE, "");
    assert_non_null(strstr(j.a.verdict.summary, "2 of 3 ranks left no readable dump (ranks 0,1)"));
    done(&j);
}

/* Two ranks, two groups: rank 0 waits in default_pg #2 for rank 1, which waits in TP #2 for
 * rank 0. Each one's history holds its own order only (rank 0 ran default_pg #1 after TP #1, as
 * rank 1 did), and no third rank says which order the program runs: both are named, as the two
 * sides of a two-member mismatch (tests/sim's E11; sim seeds 6689, 8558; kills pq01). */
static void a_two_rank_cycle_across_groups_names_both(void **state) {
    job j;
    job_init(&j, 2);
    group(&j, "1", "TP", "[0, 1]");
    coll(&j, "1", "all_reduce", 1, S("completed", "completed"));
    coll(&j, "0", "all_reduce", 1, S("completed", "completed"));
    rec(&j, 0, "0", "all_reduce", 2, "scheduled");
    rec(&j, 1, "1", "all_reduce", 2, "scheduled");
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "0,1");
    done(&j);
}

/* Two ranks, two groups of the pair: rank 0 ran all_reduce #4 in group 2 and then #3 in group 1;
 * rank 1 ran #3 and #4 in group 1 and never #4 in group 2. Rank 0 is below #4 in group 1, yet it
 * ran group 2's #4 before: with no third rank to say which order the program runs, it may be the
 * one that left it, and both are named (tests/sim's E11; sim seed 5155; kills or02). */
static void a_two_rank_cycle_below_the_missing_number_names_both(void **state) {
    job j;
    job_init(&j, 2);
    group(&j, "1", "A", "[0, 1]");
    group(&j, "2", "B", "[0, 1]");
    coll(&j, "1", "all_reduce", 2, S("completed", "completed"));
    coll(&j, "2", "all_reduce", 3, S("completed", "completed"));
    rec(&j, 0, "2", "all_reduce", 4, "started");
    rec(&j, 0, "1", "all_reduce", 3, "scheduled");
    rec(&j, 1, "1", "all_reduce", 3, "started");
    rec(&j, 1, "1", "all_reduce", 4, "scheduled");
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "0,1");
    done(&j);
}

/* Rank 0's only-active dump ends in a batch of send/recv with rank 1, left "scheduled", its end
 * marker not shown; rank 1 completed both transfers. The batch ran on the wire, so its marker was
 * recorded, and an only-active dump drops a marker only when it completed (its pg_status says
 * its last work, numbered 1, completed): no stalled GPU, as there would be with the marker shown
 * pending (kills hw10). */
static void a_batch_done_on_the_wire_without_its_marker_is_no_stall(void **state) {
    job j;
    job_init(&j, 2);
    rec(&j, 1, "0", "all_reduce", 1, "completed");
    j.first_record[0] = 1;
    j.p2p_coll_seq = 1;
    p2p(&j, 0, "0", "send 0->1", 1, "scheduled");
    p2p(&j, 0, "0", "recv 0<-1", 1, "scheduled");
    p2p(&j, 1, "0", "recv 1<-0", 1, "completed");
    p2p(&j, 1, "0", "send 1->0", 1, "completed");
    batch_end(&j, 1, "0", 1, "completed");
    strcpy(j.status[0], "\"0\": {\"last_enqueued_collective\": 1, "
                        "\"last_started_collective\": -1, \"last_completed_collective\": 1}");
    run(&j);
    assert_culprits(&j, FA_STATUS_OK, "");
    done(&j);
}

/* A ring of batches 0 -> 1 -> 2 -> 3 -> 4 -> 0 on the default group, only-active dumps (record
 * ids start past the completed all_reduce #1): rank 1 receives from 4 where its program received
 * from 0, and rank 3's dump is older (it shows only #1). The dumps of 2 and 4 end in their
 * batches' send/recv, "scheduled", without the end marker that the job's PyTorch records (0's and
 * 1's dumps show theirs pending): it completed and was dropped, so their batches ran, with 3. 0
 * waits to send to 1, which never posted that recv, and 1 to receive from 4, idle: 1 posted to
 * the wrong peer, the culprit; not 3, whose older dump nobody waits on (sim seed 16972; kills
 * um01). In a job whose PyTorch records no markers, nothing says that those batches ran: a hang
 * still (kills um02). */
/* The ring of batches_that_end_only_active_dumps_without_their_markers_ran: 0 and 1 close their
 * batches with a pending end marker where `markers`, nobody where not. */
static void wrong_source_ring_of_five(job *j, bool markers) {
    job_init(j, 5);
    j->group_ranks[0] = "[0, 1, 2, 3, 4]";
    rec(j, 3, "0", "all_reduce", 1, "completed");
    j->p2p_coll_seq = 1;
    const char *sends[] = { "send 0->1", "send 1->2", "send 2->3", NULL, "send 4->0" },
               *recvs[] = { "recv 0<-4", "recv 1<-4", "recv 2<-1", NULL, "recv 4<-3" };
    for (int r = 0; r < 5; r++) {
        strcpy(j->status[r], "\"0\": {\"last_enqueued_collective\": 1, "
                             "\"last_started_collective\": 1, \"last_completed_collective\": 1}");
        if (r == 3) continue;
        j->first_record[r] = 1;
        p2p(j, r, "0", sends[r], 1, "scheduled");
        p2p(j, r, "0", recvs[r], 1, "scheduled");
        if (markers && r < 2) batch_end(j, r, "0", 1, "started");
    }
    run(j);
}

static void batches_that_end_only_active_dumps_without_their_markers_ran(void **state) {
    job j;
    wrong_source_ring_of_five(&j, true);
    assert_culprits(&j, FA_STATUS_HANG, "1");
    done(&j);
    /* a job whose PyTorch records no markers: nothing says that 2's and 4's batches ran */
    wrong_source_ring_of_five(&j, false);
    assert_int_equal(j.a.verdict.status, FA_STATUS_HANG);
    done(&j);
}

/* A pipeline of four stages on one group, only-active dumps: each stage's send/recv, one batch
 * each, left "scheduled" when their end markers completed and were dropped, and as many lone
 * send/recv after them, completed and dropped. No rank ran a collective there, so each one's
 * pg_status numbers its own send/recv: the middle stages' "completed 8" is no collective that
 * the end stages, at 4, had not issued (no older dump), and each "completed" is past every
 * p2p_seq_id its rank shows (nothing in flight): ok, whatever the group's size (sim seed 12320;
 * kills op01, op02). */
static void own_send_recv_counters_complete_them_in_a_group_of_four(void **state) {
    job j;
    job_init(&j, 4);
    const char *chain[4][4] = { { "send 0->1", "recv 0<-1", NULL, NULL },
                                { "recv 1<-0", "send 1->2", "recv 1<-2", "send 1->0" },
                                { "recv 2<-1", "send 2->3", "recv 2<-3", "send 2->1" },
                                { "recv 3<-2", "send 3->2", NULL, NULL } };
    for (int r = 0; r < 4; r++) {
        j.first_record[r] = 1;
        int n = 0;
        for (int k = 0; k < 4 && chain[r][k]; k++) p2p(&j, r, "0", chain[r][k], ++n, "scheduled");
        snprintf(j.status[r], sizeof j.status[r],
                 "\"0\": {\"last_enqueued_collective\": %d, \"last_started_collective\": -1, "
                 "\"last_completed_collective\": %d}",
                 2 * n, 2 * n);
    }
    run(&j);
    assert_culprits(&j, FA_STATUS_OK, "");
    for (size_t r = 0; r < 4; r++) assert_false(fa_stale_known(&j.a.match.rank_stale[r]));
    assert_non_null(strstr(j.a.verdict.summary, "(0 operations in flight)"));
    done(&j);
}

/* The next entry rank `r` records gets record_id `id` (the ones between dropped: an only-active
 * dump keeps only what is pending). */
static void at_record(job *j, int r, int id) { j->first_record[r] = id - j->nentries[r]; }

/* A pipeline of four on group 3 (PyTorch numbering each stage's own send/recv), only-active,
 * timed: stage 0's GPU stalled in its send #3 to 1 (started). Stage 0's recv #2 from 1 ([[128]])
 * is done by its counters ("completed 2"); stage 1's window, with gaps, still shows its send #4
 * to 0 ([[128]]) "scheduled", then its send #8 to 0 ([[1]]) started. The data came, so #4 ran:
 * it pairs with 0's recv #2, and #8 with 0's pending recv #4 ([[1]]): 0 stalled, no size
 * mismatch (sim seed 3941; kills dw01). */
static void a_completed_recv_pairs_with_a_pending_send_in_a_window_with_gaps(void **state) {
    job j;
    job_init(&j, 4);
    group(&j, "3", "PIPELINE_MODEL_PARALLEL_GROUP", "[0, 1, 2, 3]");
    struct {
        int rank, record;
        const char *what;
        int seq;
        const char *state, *sizes;
    } sends[] = {
        { 0, 0, "send 0->1", 1, "scheduled", "[[4]]" },
        { 0, 2, "recv 0<-1", 2, "scheduled", "[[128]]" },
        { 0, 6, "send 0->1", 3, "started", "[[4]]" },
        { 0, 7, "recv 0<-1", 4, "scheduled", "[[1]]" },
        { 1, 0, "recv 1<-0", 1, "scheduled", "[[4]]" },
        { 1, 2, "send 1->2", 2, "scheduled", "[[4]]" },
        { 1, 4, "recv 1<-2", 3, "scheduled", "[[128]]" },
        { 1, 6, "send 1->0", 4, "scheduled", "[[128]]" },
        { 1, 12, "send 1->0", 8, "started", "[[1]]" },
        { 2, 0, "recv 2<-1", 1, "scheduled", "[[4]]" },
        { 2, 2, "send 2->3", 2, "scheduled", "[[4]]" },
        { 2, 4, "recv 2<-3", 3, "scheduled", "[[128]]" },
        { 2, 6, "send 2->1", 4, "scheduled", "[[128]]" },
        { 3, 0, "recv 3<-2", 1, "scheduled", "[[4]]" },
        { 3, 2, "send 3->2", 2, "scheduled", "[[128]]" },
    };
    for (size_t k = 0; k < sizeof sends / sizeof *sends; k++) {
        at_record(&j, sends[k].rank, sends[k].record);
        j.p2p_sizes = sends[k].sizes;
        p2p(&j, sends[k].rank, "3", sends[k].what, sends[k].seq, sends[k].state);
    }
    const int all_reduce_at[4] = { 9, 13, 13, 9 };
    const char *all_reduce[4] = { "scheduled", "scheduled", "started", "scheduled" };
    const int pp_counts[4][3] = { { 4, 3, 2 }, { 8, 8, 7 }, { 8, 8, 8 }, { 4, 4, 4 } };
    for (int r = 0; r < 4; r++) {
        at_record(&j, r, all_reduce_at[r]);
        rec(&j, r, "0", "all_reduce", 2, all_reduce[r]);
        snprintf(j.status[r], sizeof j.status[r],
                 "\"0\": {\"last_enqueued_collective\": 2, \"last_started_collective\": %d, "
                 "\"last_completed_collective\": 1}, \"3\": {\"last_enqueued_collective\": %d, "
                 "\"last_started_collective\": %d, \"last_completed_collective\": %d}",
                 r == 2 ? 2 : 1, pp_counts[r][0], pp_counts[r][1], pp_counts[r][2]);
    }
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "0");
    done(&j);
}

/* gloo, four ranks: a data-parallel group of all four, expert pairs {0, 1} and {2, 3}. Rank 0
 * waits in data-parallel all_reduce #3, which 1, 2 and 3 never issued: 3 is blocked in its
 * pair's all_reduce #2 on 2, and 1 and 2 are idle, their last calls done (gloo's calls block: 0
 * went on past its pair's #3 with 1). The op is 0's alone, but the idle ones are no majority
 * and nobody waits for 0: it waits for them, and both stopped, not 2 alone (sim seed 13804;
 * kills ja01). */
static void idle_members_beside_a_lonely_op_are_roots(void **state) {
    job j;
    job_init(&j, 4);
    j.backend = "gloo";
    group(&j, "10", "ep", "[0, 1]");
    group(&j, "11", "ep", "[2, 3]");
    for (int r = 0; r < 4; r++) {
        const char *pair = r < 2 ? "10" : "11";
        rec(&j, r, pair, "all_reduce", 1, "completed");
        rec(&j, r, "0", "all_reduce", 1, "completed");
        rec(&j, r, "0", "all_reduce", 2, "completed");
        if (r == 2) continue;
        rec(&j, r, pair, "all_reduce", 2, r == 3 ? "scheduled" : "completed");
        if (r == 3) continue;
        rec(&j, r, pair, "all_reduce", 3, "completed");
        if (r == 0) rec(&j, r, "0", "all_reduce", 3, "scheduled");
    }
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "1,2");
    done(&j);
}

/* gloo, six ranks, members inferred: expert pairs {0,1} {2,3} {4,5}, one data-parallel group of
 * all six. Rank 2 was killed before expert all_reduce #2, where 3 waits for it; rank 4 before
 * data-parallel all_reduce #2, where 0, 1 and 5 wait (for 3, blocked, and whoever else). The
 * data-parallel group rebuilt from the dumps lacks 2 and 4: 2 is the culprit, and 4, a member
 * without a dump inside the group's span that no group of its family holds, may have stopped
 * too: offered, not dropped as "nothing depends on it" (sim seeds 11172, 14222; kills oh01). */
static void a_lost_rank_inside_a_rebuilt_group_may_have_stopped_too(void **state) {
    job j;
    job_init(&j, 6);
    j.backend = "gloo";
    j.gloo_config = 1;
    group(&j, "1", "DATA_PARALLEL_GROUP", "[0, 1, 2, 3, 4, 5]");
    group(&j, "10", "EXPERT_MODEL_PARALLEL_GROUP", "[0, 1]");
    group(&j, "11", "EXPERT_MODEL_PARALLEL_GROUP", "[2, 3]");
    group(&j, "12", "EXPERT_MODEL_PARALLEL_GROUP", "[4, 5]");
    const char *pair[6] = { "10", "10", "11", "11", "12", "12" };
    for (int r = 0; r < 6; r++) {
        if (r == 2 || r == 4) continue;
        rec(&j, r, pair[r], "all_reduce", 1, "completed");
        rec(&j, r, "1", "all_reduce", 1, "completed");
        rec(&j, r, pair[r], "all_reduce", 2, r == 3 ? "scheduled" : "completed");
        if (r != 3) rec(&j, r, "1", "all_reduce", 2, "scheduled");
    }
    j.skip[2] = j.skip[4] = 1;
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "2");
    assert_true(offers(&j, 4));
    done(&j);
}

/* A pipeline pair, only-active dumps keeping their transfers "scheduled" (batches of one whose
 * completed markers were dropped). Rank 0's GPU stalled in its send #3 to 1; rank 1's dump shows
 * #1, #2 and #4, its recv #3 dropped in between as completed, and its pair's counters say
 * "completed 3": 1 received, 0 stalled, not "1 never posted its recv" (sim seed 16129; kills
 * pd02). */
static void a_transfer_dropped_inside_a_window_with_gaps_completed(void **state) {
    job j;
    job_init(&j, 2);
    const char *zero[] = { "send 0->1", "recv 0<-1", "send 0->1", "recv 0<-1" };
    const char *one[] = { "recv 1<-0", "send 1->0", "recv 1<-0", "send 1->0" };
    for (int k = 0; k < 4; k++) {
        at_record(&j, 0, 3 * k);
        p2p(&j, 0, "0", zero[k], k + 1, k == 2 ? "started" : "scheduled");
        if (k == 2) continue; /* rank 1's recv #3, completed, dropped */
        at_record(&j, 1, 3 * k);
        p2p(&j, 1, "0", one[k], k + 1, "scheduled");
    }
    for (int r = 0; r < 2; r++)
        snprintf(j.status[r], sizeof j.status[r],
                 "\"0\": {\"last_enqueued_collective\": 4, \"last_started_collective\": -1, "
                 "\"last_completed_collective\": %d}",
                 r == 0 ? 2 : 3);
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "0");
    done(&j);
}

/* A ring exchange batch #1 on default_pg after collective #4, then all_reduce #5: rank 1's CPU
 * stopped before the all_reduce. Only-active dumps whose rings kept four records: 0, 2 and 3
 * show their batch's recv (its send and its completed end marker are gone) and all_reduce #5
 * and broadcast #6 pending; their pg_status "completed 1" is below the collectives their
 * streams ran before all_reduce #5, so it numbers the batch, done: 1 never joined, not "2
 * stalled in its recv" (sim seed 15624; kills cb01). */
static void counters_below_the_streams_collectives_number_a_batch(void **state) {
    job j;
    job_init(&j, 4);
    j.p2p_coll_seq = 4;
    const char *ring[4][2] = { { "recv 0<-3", NULL },
                               { "send 1->2", "recv 1<-0" },
                               { "recv 2<-1", NULL },
                               { "recv 3<-2", NULL } };
    for (int r = 0; r < 4; r++) {
        at_record(&j, r, r == 1 ? 4 : 5);
        for (int k = 0; k < 2 && ring[r][k]; k++) p2p(&j, r, "0", ring[r][k], 1, "scheduled");
        if (r != 1) {
            at_record(&j, r, 7);
            j.coll_p2p_seq = 1;
            rec(&j, r, "0", "all_reduce", 5, "scheduled");
            rec(&j, r, "0", "broadcast", 6, "scheduled");
            j.coll_p2p_seq = 0;
        }
        snprintf(j.status[r], sizeof j.status[r],
                 "\"0\": {\"last_enqueued_collective\": %d, \"last_started_collective\": -1, "
                 "\"last_completed_collective\": 1}",
                 r == 1 ? 1 : 6);
    }
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "1");
    done(&j);
}

/* A mesh group of three exchanging a batch between collectives #7 and #8: rank 2's GPU stalled in
 * it (its batch pending, "scheduled" without timing), while the only-active dumps of 0 and 1 show
 * only broadcast #8, which carries the send/recv count 1 as rank 2's own #8 does: each made its
 * first send/recv launch before #8, in step with 2, and the dump dropped it, completed. 2 stalled,
 * not "0,1 never joined" (sim seeds 1250, 16774; kills al01, al03). Had 1 left its half out,
 * its #8 would carry the count 0: it never joined (kills al02). */
static void halves_dropped_in_step_with_the_peers_count_completed(void **state) {
    for (int skipped = 0; skipped < 2; skipped++) {
        job j;
        job_init(&j, 3);
        group(&j, "1", "mesh_tp", "[0, 1, 2]");
        j.first_record[0] = j.first_record[1] = 10;
        j.first_record[2] = 7;
        j.p2p_coll_seq = 7;
        p2p(&j, 2, "1", "send 2->0", 1, "scheduled");
        p2p(&j, 2, "1", "recv 2<-1", 1, "scheduled");
        batch_end(&j, 2, "1", 1, "scheduled");
        for (int r = 0; r < 3; r++) {
            j.coll_p2p_seq = r == 1 && skipped ? 0 : 1;
            rec(&j, r, "1", "broadcast", 8, "scheduled");
            snprintf(j.status[r], sizeof j.status[r],
                     "\"1\": {\"last_enqueued_collective\": 8, \"last_started_collective\": -1, "
                     "\"last_completed_collective\": %d}",
                     r == 2              ? 7
                     : r == 1 && skipped ? 7
                                         : 1);
        }
        run(&j);
        assert_culprits(&j, FA_STATUS_HANG, skipped ? "1" : "2");
        done(&j);
    }
    /* a ring 0 -> 1 -> 2 -> 3 -> 0 in a group of four where 2 received from 0 instead of 1: 3
     * and 0 went past their halves in step, but 1's send to 2 waits, and 2's window shows its
     * own batch: 2 posted to the wrong peer, it never joined, no stalled GPU (sim seed 1783;
     * kills al04) */
    job j;
    job_init(&j, 4);
    group(&j, "1", "mesh_tp", "[0, 1, 2, 3]");
    const char *sends[] = { NULL, "send 1->2", "send 2->3", NULL },
               *recvs[] = { NULL, "recv 1<-0", "recv 2<-0", NULL };
    for (int r = 0; r < 4; r++) {
        j.first_record[r] = 10;
        j.p2p_coll_seq = 7;
        if (sends[r]) {
            p2p(&j, r, "1", sends[r], 1, "scheduled");
            p2p(&j, r, "1", recvs[r], 1, "scheduled");
            batch_end(&j, r, "1", 1, "scheduled");
        }
        j.coll_p2p_seq = 1;
        rec(&j, r, "1", "broadcast", 8, "scheduled");
        snprintf(j.status[r], sizeof j.status[r],
                 "\"1\": {\"last_enqueued_collective\": 8, \"last_started_collective\": -1, "
                 "\"last_completed_collective\": %d}",
                 sends[r] ? 7 : 1);
    }
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "2");
    assert_int_equal(j.a.verdict.evidence[0].kind, FA_EV_NEVER_ISSUED);
    done(&j);
}

/* A pipeline of four stages on one group, windows wrapped: the end stage 0 counts one send/recv
 * per step, the middle stage 1 two, so their p2p_seq_ids do not compare. 0's recv #4 from 1
 * completed, #6 ([[128]]) and #8 ([[1]]) are pending; 1, which completed its own #9, has its
 * sends #12 ([[128]]) and #16 ([[1]]) to 0 pending. 1's "completed #9" says nothing of 0's #6
 * (the numbers they show, #4-#8 and #9-#16, do not overlap as a ring's would): the pending ones
 * pair in order, shapes alike, no size mismatch (sim seed 18328; kills pd01). */
static void send_recv_ids_of_pipeline_stages_do_not_compare(void **state) {
    job j;
    job_init(&j, 4);
    group(&j, "1", "PIPELINE_MODEL_PARALLEL_GROUP", "[0, 1, 2, 3]");
    coll(&j, "0", "all_reduce", 1, S("completed", "completed", "completed", "completed"));
    const struct {
        int rank, seq;
        const char *what, *sizes, *end;
    } p[] = {
        { 0, 4, "recv 0<-1", "[[8]]", "completed" },
        { 0, 6, "recv 0<-1", "[[128]]", "started" },
        { 0, 8, "recv 0<-1", "[[1]]", "scheduled" },
        { 1, 9, "recv 1<-0", "[[8]]", "completed" },
        { 1, 12, "send 1->0", "[[128]]", "scheduled" },
        { 1, 16, "send 1->0", "[[1]]", "scheduled" },
    };
    j.first_record[0] = j.first_record[1] = 20;
    for (size_t i = 0; i < sizeof p / sizeof p[0]; i++) {
        j.p2p_sizes = p[i].sizes;
        p2p(&j, p[i].rank, "1", p[i].what, p[i].seq, "scheduled");
        batch_end(&j, p[i].rank, "1", p[i].seq, p[i].end);
    }
    run(&j);
    assert_int_not_equal(j.a.verdict.status, FA_STATUS_MISMATCH);
    done(&j);
}

/* A job of two ranks: rank 1 left out all_reduce #6 and went on to a send/recv batch with rank 0,
 * which ran #6 first and has the batch queued behind it. Rank 1 skipped #6, or rank 0 ran one the
 * program does not have: no third rank shows which order is the program's, so the verdict is
 * "rank 0 or 1", each an alternative, neither a culprit (sim seed 5760; kills ot01). */
static void two_ranks_that_ran_two_orders_are_one_or_the_other(void **state) {
    job j;
    job_init(&j, 2);
    for (int seq = 1; seq <= 5; seq++)
        coll(&j, "0", "all_reduce", seq, S("completed", "completed"));
    rec(&j, 0, "0", "all_reduce", 6, "started");
    j.p2p_coll_seq = 6;
    p2p(&j, 0, "0", "send 0->1", 1, "scheduled");
    p2p(&j, 0, "0", "recv 0<-1", 1, "scheduled");
    batch_end(&j, 0, "0", 1, "scheduled");
    j.p2p_coll_seq = 5;
    p2p(&j, 1, "0", "recv 1<-0", 1, "started");
    p2p(&j, 1, "0", "send 1->0", 1, "started");
    batch_end(&j, 1, "0", 1, "started");
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "");
    assert_non_null(strstr(j.a.verdict.summary, "rank 0 or 1 in default_pg"));
    assert_int_equal(j.a.verdict.nalternatives, 2);
    for (int r = 0; r < 2; r++)
        assert_true(fa_ranks_contains(&j.a.verdict.alternatives[0].ranks, r) ||
                    fa_ranks_contains(&j.a.verdict.alternatives[1].ranks, r));
    done(&j);
}

/* Rank 4 ran its data-parallel all_reduce #2 on the world group (its #2 there, started), then the
 * world's own all_reduce as its #3, which nobody else issued; ranks 0-2 wait in the data-parallel
 * #2, their world #2 queued behind it. Rank 3 left no dump. The ranks that ran both put the
 * data-parallel #2 first: rank 4 went past it, and that cycle holds itself whatever rank 3 did,
 * though rank 4 waits in an op it went to alone (sim seeds 1832, 8384, 3138, 8519; kills hs01). */
static void a_rank_alone_in_its_next_op_still_holds_its_cycle(void **state) {
    job j;
    job_init(&j, 5);
    j.group_ranks[0] = "[0, 1, 2, 3, 4]";
    group(&j, "1", "DATA_PARALLEL_GROUP", "[0, 1, 2, 3, 4]");
    coll(&j, "1", "all_reduce", 1, S("completed", "completed", "completed", NULL, "completed"));
    coll(&j, "0", "all_reduce", 1, S("completed", "completed", "completed", NULL, "completed"));
    for (int r = 0; r < 3; r++) {
        rec(&j, r, "1", "all_reduce", 2, "scheduled");
        rec(&j, r, "0", "all_reduce", 2, "scheduled");
    }
    rec(&j, 4, "0", "all_reduce", 2, "started");
    rec(&j, 4, "0", "all_reduce", 3, "scheduled");
    j.skip[3] = 1;
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "4");
    assert_true(offers(&j, 3));
    done(&j);
}

/* Rank r's pg_status in a 2-D mesh: the last enqueued and completed collective of the world
 * (def, def - 1), of its replicate group (rep, rep_done), of its shard pair (shard, shard_done). */
static void mesh_status(job *j, int r, int def, int rep, int rep_done, int shard, int shard_done) {
    snprintf(j->status[r], sizeof j->status[r],
             "\"0\": {\"last_enqueued_collective\": %d, \"last_started_collective\": -1, "
             "\"last_completed_collective\": %d}, "
             "\"1\": {\"last_enqueued_collective\": %d, \"last_started_collective\": -1, "
             "\"last_completed_collective\": %d}, "
             "\"2\": {\"last_enqueued_collective\": %d, \"last_started_collective\": -1, "
             "\"last_completed_collective\": %d}",
             def, def - 1, rep, rep_done, shard, shard_done);
}

/* A 2-D mesh of 8 ranks, replicate groups {0,2,4,6} and {1,3,5,7}, shard pairs {0,1} ... {6,7},
 * only the ops not completed kept: every rank has the world's barrier #2 pending; ranks 0, 2, 6
 * wait in replicate reduce_scatter #6, which rank 4 never issued: it ran it on its shard pair
 * (#7), where it waits on rank 5, whose dump was cut in its entries (its counters, before them,
 * say shard #6). The replicate peers' order (#6 before the barrier, which rank 4 holds) proves
 * rank 4 went past it. Whether rank 5 never issued shard #7, its cut dump cannot say: it is
 * offered beside rank 4, not named (sim seed 2150; kills ou02). */
static void an_older_dump_beside_a_rank_that_left_the_order_is_offered(void **state) {
    job j;
    job_init(&j, 8);
    j.group_ranks[0] = "[0, 1, 2, 3, 4, 5, 6, 7]";
    group(&j, "1", "mesh_replicate", "[0, 2, 4, 6]");
    group(&j, "1", "mesh_replicate", "[1, 3, 5, 7]");
    const char *pairs[] = { "[0, 1]", "[2, 3]", "[4, 5]", "[6, 7]" };
    for (int p = 0; p < 4; p++) group(&j, "2", "mesh_shard", pairs[p]);
    for (int r = 0; r < 8; r++) {
        j.first_record[r] = 12;
        if (r == 0 || r == 2 || r == 6) rec(&j, r, "1", "all_reduce", 6, "scheduled");
        if (r == 4) rec(&j, r, "2", "all_reduce", 7, "scheduled");
        if (r != 5) rec(&j, r, "0", "all_reduce_barrier", 2, "scheduled");
        bool waits = r == 0 || r == 2 || r == 6; /* in replicate #6 */
        mesh_status(&j, r, 2, r == 4 ? 5 : 6, waits || r == 4 ? 5 : 6, r == 4 ? 7 : 6, 6);
    }
    j.skip[5] = 4;
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "4");
    assert_true(offers(&j, 5));
    done(&j);
}

/* Tensor-parallel groups {0,1} and {2,3}, a data-parallel group {1,3}, a context-parallel pair
 * {1,4}; the program runs TP #1, TP #2, then DP #1. Rank 1 left its TP #2 out: it ran an
 * all_reduce in its CP pair instead, where it waits on rank 4, idle (the sink), and went on to
 * DP #1. Rank 3 ran TP #2 before DP #1, so rank 1, holding DP #1 and not TP #2, went past the
 * op rank 0 waits for it in: nothing anyone else does completes it, and rank 1 is a root beside
 * the sink (sim seed 7266; kills bs01). */
static void a_rank_that_went_past_its_op_is_a_root_beside_the_sink(void **state) {
    job j;
    job_init(&j, 5);
    j.group_ranks[0] = "[0, 1, 2, 3, 4]";
    group(&j, "1", "TP", "[0, 1]");
    group(&j, "2", "TP", "[2, 3]");
    group(&j, "3", "DP", "[1, 3]");
    group(&j, "4", "CP", "[1, 4]");
    coll(&j, "0", "all_reduce", 1,
         S("completed", "completed", "completed", "completed", "completed"));
    coll(&j, "1", "all_reduce", 1, S("completed", "completed", NULL, NULL, NULL));
    coll(&j, "2", "all_reduce", 1, S(NULL, NULL, "completed", "completed", NULL));
    coll(&j, "2", "all_reduce", 2, S(NULL, NULL, "completed", "completed", NULL));
    rec(&j, 0, "1", "all_reduce", 2, "scheduled");
    rec(&j, 1, "4", "all_reduce", 1, "scheduled");
    coll(&j, "3", "all_reduce", 1, S(NULL, "scheduled", NULL, "scheduled", NULL));
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "1,4");
    done(&j);
}

/* The job of the three tests below; rank 3's ring starts at record `first3` (5: wrapped), and
 * the data-parallel group of ranks 2 and 3 is named `dp23` ("2", or "1" with {0,1} named "2"). */
static void run_hidden_group_job(job *j, int first3, const char *dp23) {
    const char *dp01 = strcmp(dp23, "2") == 0 ? "1" : "2";
    char status[256];
    job_init(j, 4);
    j->backend = "gloo";
    j->gloo_config = 1;
    group(j, dp01, "DP", "[0, 1]");
    group(j, dp23, "DP", "[2, 3]");
    coll(j, dp01, "all_reduce", 1, S("completed", "completed"));
    rec(j, 2, dp23, "all_reduce", 1, "completed");
    rec(j, 2, dp23, "all_reduce", 2, "completed");
    rec(j, 2, dp23, "all_reduce", 3, "scheduled");
    j->first_record[3] = first3;
    rec(j, 3, "0", "all_reduce", 1, "completed");
    snprintf(status, sizeof status,
             "\"0\": {\"last_enqueued_collective\": 1, "
             "\"last_started_collective\": -1, \"last_completed_collective\": 1}, "
             "\"%s\": {\"last_enqueued_collective\": 2, "
             "\"last_started_collective\": -1, \"last_completed_collective\": 2}",
             dp23);
    strcpy(j->status[3], status);
    run(j);
}

/* gloo, data-parallel groups {0,1} and {2,3}, members inferred: rank 3's ring dropped its
 * entries of group 2, but its pg_status counts work there. Every rank dumped; the family holds
 * each rank once and lacks rank 3, whose dump hides a group: group 2 takes back rank 3, not a
 * rank 4 above every dump, and rank 3, idle, never joined #3 (sim seeds 1760, 7859; its ring
 * wrapped, which alone offers it: kills hg06, not pq03). */
static void a_rank_whose_dump_hides_a_group_fills_it(void **state) {
    job j;
    run_hidden_group_job(&j, 5, "2");
    assert_int_equal(group_named(&j, "2")->nmembers, 2);
    assert_int_equal(group_named(&j, "0")->nmembers, 4);
    assert_culprits(&j, FA_STATUS_HANG, "3");
    done(&j);
}

/* The same job, rank 3's ring whole (its first record is 0): its pg_status alone counts work in
 * group 2, which none of its entries names (hides_a_group): it still takes back rank 3. Its
 * group numbers 0 and 2 also leave 1 unnamed (leaves_a_group_unnamed), which offers it too; with
 * the groups' names swapped ({2,3} is "1", so rank 3 names 0 and 1), hides_a_group alone offers
 * rank 3, and without it group 1 would take a rank 4 above every dump (kills pq03). */
static void a_whole_ring_whose_status_hides_a_group_fills_it(void **state) {
    const char *names[] = { "2", "1" };
    for (size_t i = 0; i < 2; i++) {
        job j;
        run_hidden_group_job(&j, 0, names[i]);
        const fa_group *dp = group_named(&j, names[i]);
        assert_int_equal(dp->nmembers, 2);
        assert_int_equal(dp->members[1], 3);
        assert_int_equal(group_named(&j, "0")->nmembers, 4);
        assert_culprits(&j, FA_STATUS_HANG, "3");
        done(&j);
    }
}

/* gloo, members inferred: data-parallel groups 1 {0,1} and 2 {2,3}, pipeline groups 3 {0,2} and
 * 4 {1,3}, whose send/recv gloo does not record, and a group 5 of all four. Rank 3 ran an
 * all_gather of two in group 4 instead of its all_reduce #2 in group 5, where ranks 0-2 wait for
 * it. No entry of rank 1 names group 4, but its groups' numbers (pg_id 1 and 5) leave numbers
 * unnamed: groups it joined and recorded nothing in. Group 4 takes back rank 1 (the one run of
 * its family's stride, 2), not a rank 4 above every dump in a job of four (sim seed 7859: rank 2,
 * not a rank 6 in a job of six; kills gn01). */
static void a_rank_whose_group_numbers_skip_one_fills_a_group(void **state) {
    job j;
    job_init(&j, 4);
    j.backend = "gloo";
    j.gloo_config = 1;
    group(&j, "1", "undefined", "[0, 1]");
    group(&j, "2", "undefined", "[2, 3]");
    group(&j, "3", "undefined", "[0, 2]");
    group(&j, "4", "undefined", "[1, 3]");
    group(&j, "5", "Y", "[0, 1, 2, 3]");
    coll(&j, "1", "all_reduce", 1, S("completed", "completed", NULL, NULL));
    coll(&j, "2", "all_reduce", 1, S(NULL, NULL, "completed", "completed"));
    coll(&j, "3", "all_reduce", 1, S("completed", NULL, "completed", NULL));
    coll(&j, "5", "all_reduce", 1, S("completed", "completed", "completed", "completed"));
    coll(&j, "5", "all_reduce", 2, S("scheduled", "scheduled", "scheduled", NULL));
    j.output_sizes = "[[4, 4], [4, 4]]";
    rec(&j, 3, "4", "all_gather", 1, "scheduled");
    j.output_sizes = NULL;
    run(&j);
    const fa_group *pipe = group_named(&j, "4");
    assert_int_equal(pipe->nmembers, 2);
    assert_int_equal(pipe->members[0], 1);
    assert_int_equal(pipe->members[1], 3);
    assert_int_equal(group_named(&j, "5")->nmembers, 4);
    assert_int_equal(j.a.groups.without_dump.n, 0);
    done(&j);
}

/* gloo, members inferred, nine ranks: data-parallel groups 1 {0,3,6}, 2 {1,4,7}, 3 {2,5,8},
 * tensor-parallel groups 4 {0,1,2}, 5 {3,4,5}, 6 {6,7,8}. Ranks 2 and 4 wrote no dump; their
 * tensor partners wait for them in tensor all_reduce #2, ranks 6-8 in data-parallel all_reduce
 * #2. The data-parallel family spans the job but for those two, one of its three groups complete
 * (the older rule wanted half): 9 ranks, three groups of 3 (no fourth group could hold the ones
 * seen), so each short group takes back its run's hole (sim seed 11785: four groups of 192,
 * three each one short, rank 405 "a lost dump nothing depends on"; kills ms01). */
static void a_family_spanning_the_job_takes_back_its_lost_ranks(void **state) {
    job j;
    job_init(&j, 9);
    j.group_ranks[0] = "[0, 1, 2, 3, 4, 5, 6, 7, 8]";
    j.backend = "gloo";
    j.gloo_config = 1;
    group(&j, "1", "DATA_PARALLEL_GROUP", "[0, 3, 6]");
    group(&j, "2", "DATA_PARALLEL_GROUP", "[1, 4, 7]");
    group(&j, "3", "DATA_PARALLEL_GROUP", "[2, 5, 8]");
    group(&j, "4", "TENSOR_MODEL_PARALLEL_GROUP", "[0, 1, 2]");
    group(&j, "5", "TENSOR_MODEL_PARALLEL_GROUP", "[3, 4, 5]");
    group(&j, "6", "TENSOR_MODEL_PARALLEL_GROUP", "[6, 7, 8]");
    j.skip[2] = j.skip[4] = 1;
    const char *c = "completed", *w = "scheduled";
    coll(&j, "1", "all_reduce", 1, S(c, NULL, NULL, c, NULL, NULL, c));
    coll(&j, "2", "all_reduce", 1, S(NULL, c, NULL, NULL, NULL, NULL, NULL, c));
    coll(&j, "3", "all_reduce", 1, S(NULL, NULL, NULL, NULL, NULL, c, NULL, NULL, c));
    coll(&j, "4", "all_reduce", 1, S(c, c));
    coll(&j, "5", "all_reduce", 1, S(NULL, NULL, NULL, c, NULL, c));
    coll(&j, "6", "all_reduce", 1, S(NULL, NULL, NULL, NULL, NULL, NULL, c, c, c));
    coll(&j, "4", "all_reduce", 2, S(w, w));
    coll(&j, "5", "all_reduce", 2, S(NULL, NULL, NULL, w, NULL, w));
    coll(&j, "6", "all_reduce", 2, S(NULL, NULL, NULL, NULL, NULL, NULL, c, c, c));
    coll(&j, "1", "all_reduce", 2, S(NULL, NULL, NULL, NULL, NULL, NULL, w));
    coll(&j, "2", "all_reduce", 2, S(NULL, NULL, NULL, NULL, NULL, NULL, NULL, w));
    coll(&j, "3", "all_reduce", 2, S(NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, w));
    run(&j);
    for (int g = 1; g <= 6; g++) {
        char name[2] = { (char)('0' + g), 0 };
        assert_int_equal(group_named(&j, name)->nmembers, 3);
    }
    assert_culprits(&j, FA_STATUS_HANG, "2,4");
    done(&j);
}

/* gloo, members inferred: data-parallel groups 1 {0,1} and 2 {2,3}, pipeline groups 3 {0,2} and
 * 4 {1,3} where nobody records anything (gloo's send/recv), and a group 5 of all four. Rank 3
 * ran an all_reduce in group 4 instead of its all_reduce #2 in group 5, where ranks 0-2 wait for
 * it. Group 4 is seen in rank 3's dump alone, its wait says a member is missing, and no stride
 * says which: ranks 0-2 each leave a group number unnamed, and each is blocked in group 5 #2, so
 * whichever is the partner never reached group 4. No rank 4 above every dump is presumed (sim
 * seeds 1337, 4651, 7939 named a rank 168 of 168): rank 3 is the root. With rank 1 idle (it
 * never issued #2: it may be the partner, blocked in an unrecorded send/recv) the presumption
 * stays (sim seed 8195). */
static void a_lone_wrong_group_presumes_no_rank_above_the_job(void **state) {
    for (int idle = 0; idle < 2; idle++) {
        job j;
        job_init(&j, 4);
        j.backend = "gloo";
        j.gloo_config = 1;
        group(&j, "1", "undefined", "[0, 1]");
        group(&j, "2", "undefined", "[2, 3]");
        group(&j, "3", "undefined", "[0, 2]");
        group(&j, "4", "undefined", "[1, 3]");
        group(&j, "5", "Y", "[0, 1, 2, 3]");
        coll(&j, "1", "all_reduce", 1, S("completed", "completed", NULL, NULL));
        coll(&j, "2", "all_reduce", 1, S(NULL, NULL, "completed", "completed"));
        coll(&j, "5", "all_reduce", 1, S("completed", "completed", "completed", "completed"));
        coll(&j, "5", "all_reduce", 2,
             S("scheduled", idle ? NULL : "scheduled", "scheduled", NULL));
        rec(&j, 3, "4", "all_reduce", 1, "scheduled");
        run(&j);
        assert_int_equal(group_named(&j, "4")->nmembers, idle ? 2 : 1);
        if (!idle) assert_culprits(&j, FA_STATUS_HANG, "3");
        done(&j);
    }
}

/* A batched ring in default_pg, 0 -> 1 -> 2 -> 3 -> 0, where rank 3 receives from 0 instead of
 * 2. Ranks 0 and 1 completed their batches (their rings wrapped: older dumps' windows), ranks 2
 * and 3 did not: 2's send to 3 and 3's recv from 0 are left unmatched. Rank 0's window shows its
 * batch without a send to 3: never posted, not dropped. Rank 3 is the root; rank 2, stuck in its
 * batch, and rank 0, waiting in its pipeline send to 2 (group 7), are its victims, and the lone
 * halves in two groups (0's send in group 7, 3's recv from 0) are no wrong peer of rank 0's
 * (sim seed 6681; kills pq05, pq06). */
static void a_recv_from_the_wrong_source_in_a_batched_ring(void **state) {
    job j;
    job_init(&j, 4);
    group(&j, "7", "PP", "[0, 2]");
    group(&j, "8", "PP", "[1, 3]");
    const char *ring[4][2] = { { "send 0->1", "recv 0<-3" },
                               { "send 1->2", "recv 1<-0" },
                               { "send 2->3", "recv 2<-1" },
                               { "send 3->0", "recv 3<-0" } };
    for (int r = 0; r < 4; r++) {
        j.first_record[r] = r < 2 ? 10 : 0;
        rec(&j, r, "0", "all_reduce", 1, "completed");
        p2p(&j, r, "0", ring[r][0], 1, "scheduled");
        p2p(&j, r, "0", ring[r][1], 1, "scheduled");
        batch_end(&j, r, "0", 1, r < 2 ? "completed" : "started");
    }
    p2p(&j, 0, "7", "send 0->1", 1, "started");
    p2p(&j, 1, "8", "send 0->1", 1, "started");
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "3");
    done(&j);
}

/* Rank 1 posted its recv from 2 where its program received from 0: 0 sent to 1 and waits there,
 * and 2 never sent. Rank 1 also waits for 0 in K #1, which 0 never issued: it is queued behind
 * 0's send, which never completes. One fault explains both lone halves and the wait in K: rank
 * 1 is the culprit, and the sender 0, held in its send by 1, is its victim, not a second
 * culprit for K #1 (sim seed 6681) (kills pq06). The sink judge pairs the two halves only
 * because rank 1's wrong end keeps its own loop, so that its recv lies in rank 1's sink beside
 * 0's send (sim seed 3297) (kills wp14). */
static void the_sender_a_wrong_source_left_unmatched_is_a_victim(void **state) {
    job j;
    job_init(&j, 3);
    group(&j, "1", "K", "[0, 1]");
    coll(&j, "0", "all_reduce", 1, S("completed", "completed", "completed"));
    p2p(&j, 0, "0", "send 0->1", 1, "scheduled");
    rec(&j, 1, "1", "all_reduce", 1, "scheduled");
    p2p(&j, 1, "0", "recv 1<-2", 1, "scheduled");
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "1");
    done(&j);
}

/* Only-active dumps of a batched ring in default_pg, 0 -> 1 -> 2 -> 3 -> 0, where rank 2 sends
 * to 0 instead of 3: ranks 0 and 1 completed their batches and kept no entry; their counters
 * stop at 3 while rank 3's say collective #7 completed, which every member issued. Their 3 is
 * their third send/recv batch (PyTorch numbers send/recv with their own counter), or their dumps
 * are older than rank 3's: either way rank 0 is no rank that never posted the recv from 3. Rank
 * 2, which posted to the wrong peer, is the root; rank 3 waits on it, not on rank 0 (sim seed
 * 5160; kills pq07, which names no other culprit but shows rank 3 waiting for 0 too). */
static void counters_below_a_proven_collective_are_no_unposted_send_recv(void **state) {
    job j;
    job_init(&j, 4);
    j.p2p_coll_seq = 7;
    const char *ring[2][2] = { { "send 2->0", "recv 2<-1" }, { "send 3->0", "recv 3<-2" } };
    for (int r = 2; r < 4; r++) {
        j.first_record[r] = 30;
        p2p(&j, r, "0", ring[r - 2][0], 3, "scheduled");
        p2p(&j, r, "0", ring[r - 2][1], 3, "scheduled");
        batch_end(&j, r, "0", 3, "scheduled");
        strcpy(j.status[r], "\"0\": {\"last_enqueued_collective\": 3, "
                            "\"last_started_collective\": -1, \"last_completed_collective\": 7}");
    }
    for (int r = 0; r < 2; r++)
        strcpy(j.status[r], "\"0\": {\"last_enqueued_collective\": 3, "
                            "\"last_started_collective\": -1, \"last_completed_collective\": 3}");
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "2");
    /* nobody is shown waiting for rank 0: what it did with #3 is unknown, not "never posted" */
    for (int l = 0; l < FA_WAIT_LEVELS; l++)
        assert_false(fa_ranks_contains(&j.a.verdict.levels[l].waits_for, 0));
    done(&j);
}

/* A run of groups of three, {0,1,2} whole with stride 1 and {3,5,7} with stride 2, where {4} and
 * {6} are each short of two: every rank of the job dumped, so ranks above rank 7 are candidates,
 * but neither group can be filled (no common stride, two groups short). A candidate that no group
 * took is no rank of the job: the default group holds ranks 0-7, not 0-11 (mutation rr02). */
static void a_candidate_no_group_took_is_no_rank(void **state) {
    job j;
    job_init(&j, 8);
    j.backend = "gloo";
    j.gloo_config = 1;
    group(&j, "1", "F", "[0, 1, 2]");
    group(&j, "2", "F", "[3, 5, 7]");
    group(&j, "3", "F", "[4]");
    group(&j, "4", "F", "[6]");
    for (int r = 0; r < 8; r++) rec(&j, r, "0", "all_reduce", 1, "completed");
    coll(&j, "1", "all_reduce", 1, S("completed", "completed", "completed"));
    coll(&j, "2", "all_reduce", 1,
         S(NULL, NULL, NULL, "completed", NULL, "completed", NULL, "completed"));
    rec(&j, 4, "3", "all_reduce", 1, "completed");
    rec(&j, 6, "4", "all_reduce", 1, "completed");
    run(&j);
    assert_int_equal(group_named(&j, "3")->nmembers, 1);
    assert_int_equal(group_named(&j, "0")->nmembers, 8);
    done(&j);
}

/* gloo, Megatron's TP {0,1} {2,3} {4,5} and DP {0,2,4} {1,3,5}: rank 1 issued its DP broadcast #2
 * on the default group. Ranks 0, 2, 4 completed that default broadcast #2 (a broadcast's receivers
 * go on once the root's data came), and wait in TP #2; ranks 3, 5 wait for rank 1 in DP #2 and
 * never issued the default #2. A rooted collective that some members completed does not prove
 * that the others issued it: the dumps of 3 and 5 are not older than their peers', and rank 1,
 * alone where its group never goes, is the culprit (mutation rr04; real seed 21). */
static void a_completed_broadcast_proves_no_member_joined(void **state) {
    job j;
    job_init(&j, 6);
    j.backend = "gloo";
    j.gloo_config = 1;
    group(&j, "1", "TENSOR_MODEL_PARALLEL_GROUP", "[0, 1]");
    group(&j, "2", "TENSOR_MODEL_PARALLEL_GROUP", "[2, 3]");
    group(&j, "3", "TENSOR_MODEL_PARALLEL_GROUP", "[4, 5]");
    group(&j, "4", "DATA_PARALLEL_GROUP", "[0, 2, 4]");
    group(&j, "5", "DATA_PARALLEL_GROUP", "[1, 3, 5]");
    const char *const *all =
        S("completed", "completed", "completed", "completed", "completed", "completed");
    coll(&j, "4", "broadcast", 1, S("completed", NULL, "completed", NULL, "completed", NULL));
    coll(&j, "5", "broadcast", 1, S(NULL, "completed", NULL, "completed", NULL, "completed"));
    coll(&j, "0", "broadcast", 1, all);
    coll(&j, "1", "all_reduce", 1, S("completed", "completed", NULL, NULL, NULL, NULL));
    coll(&j, "2", "all_reduce", 1, S(NULL, NULL, "completed", "completed", NULL, NULL));
    coll(&j, "3", "all_reduce", 1, S(NULL, NULL, NULL, NULL, "completed", "completed"));
    coll(&j, "4", "broadcast", 2, S("completed", NULL, "completed", NULL, "completed", NULL));
    coll(&j, "5", "broadcast", 2, S(NULL, NULL, NULL, "scheduled", NULL, "scheduled"));
    coll(&j, "0", "broadcast", 2,
         S("completed", "scheduled", "completed", NULL, "completed", NULL));
    coll(&j, "1", "all_reduce", 2, S("scheduled", NULL, NULL, NULL, NULL, NULL));
    coll(&j, "2", "all_reduce", 2, S(NULL, NULL, "scheduled", NULL, NULL, NULL));
    coll(&j, "3", "all_reduce", 2, S(NULL, NULL, NULL, NULL, "scheduled", NULL));
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "1");
    assert_null(strstr(j.a.verdict.summary, "1 or 3"));
    done(&j);
}

/* Rank 1 stopped: rank 0 waits for it in A #2. Rank 2's dump is unreadable and rank 3 waits for
 * it in B #2: rank 2 may have stopped too, or be blocked, where nobody can see, behind rank 1.
 * Beside a root the dumps show, a rank of unknown state is an alternative, not a culprit
 * (mutation ro04; sim seed 363). */
static void an_unknown_rank_beside_a_seen_root_is_an_alternative(void **state) {
    job j;
    job_init(&j, 4);
    group(&j, "1", "A", "[0, 1]");
    group(&j, "2", "B", "[2, 3]");
    coll(&j, "1", "all_reduce", 1, S("completed", "completed", NULL, NULL));
    coll(&j, "2", "all_reduce", 1, S(NULL, NULL, NULL, "completed"));
    rec(&j, 0, "1", "all_reduce", 2, "scheduled");
    rec(&j, 3, "2", "all_reduce", 2, "scheduled");
    j.skip[2] = 2;
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "1");
    assert_true(offers(&j, 2));
    done(&j);
}

/* Rank 1's ring wrapped: its oldest entry is the end marker of coalesced #1, whose all_reduce
 * fell off. That call is cut short, not another operation: no type mismatch, and rank 1, which
 * never issued #2, is the culprit of the hang (mutation ro05; sim seed 360). */
static void a_bundle_cut_by_the_ring_is_no_mismatch(void **state) {
    job j;
    job_init(&j, 2);
    rec(&j, 0, "0", "all_reduce", 1, "completed");
    rec(&j, 0, "0", "coalesced", 1, "completed");
    rec(&j, 0, "0", "all_reduce", 2, "scheduled");
    j.first_record[1] = 1;
    rec(&j, 1, "0", "coalesced", 1, "completed");
    run(&j);
    assert_null(finding(&j, FA_TYPE_MISMATCH));
    assert_culprits(&j, FA_STATUS_HANG, "1");
    done(&j);
}

/* Rank 0's GPU stopped in A #1 (rank 1 completed it); B #1, issued after, is queued behind it
 * on its stream. Rank 2 never issued B #1, but nobody waits in it yet: rank 0 is the culprit,
 * rank 2 is not (mutation ro06; sim seed 471). */
static void an_op_queued_behind_a_stall_waits_for_nobody(void **state) {
    job j;
    job_init(&j, 3);
    group(&j, "1", "A", "[0, 1]");
    group(&j, "2", "B", "[0, 2]");
    coll(&j, "0", "all_reduce", 1, S("completed", "completed", "completed"));
    coll(&j, "1", "all_reduce", 1, S("scheduled", "completed", NULL));
    rec(&j, 0, "2", "all_reduce", 1, "scheduled");
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "0");
    done(&j);
}

/* As above, rank 0's GPU stopped in A #1 with B #1 queued behind it, which rank 2 never issued;
 * but rank 2 is not idle: it waits in the default group's #2 that rank 0 never reached. Nobody
 * waits in B #1 yet, so nobody waits for rank 2 there either: it is a waiter, not a blocked rank
 * others wait for (an op queued behind a stall waits for no absent member, whatever that member
 * has pending elsewhere: the held-head rule spares only an idle or dumpless one; sim seed 471)
 * (kills ro06). */
static void a_member_busy_elsewhere_is_not_waited_for_in_an_op_queued_behind_a_stall(void **state) {
    job j;
    job_init(&j, 3);
    group(&j, "1", "A", "[0, 1]");
    group(&j, "2", "B", "[0, 2]");
    coll(&j, "0", "all_reduce", 1, S("completed", "completed", "completed"));
    coll(&j, "1", "all_reduce", 1, S("scheduled", "completed", NULL));
    rec(&j, 0, "2", "all_reduce", 1, "scheduled");
    coll(&j, "0", "all_reduce", 2, S(NULL, "scheduled", "scheduled"));
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "0");
    assert_ranks(&j.a.verdict.levels[1].ranks, "");
    assert_ranks(&j.a.verdict.levels[2].ranks, "1,2");
    done(&j);
}

/* Rank 2's dump is older than its peers' (they completed #2 and #3 with it; it shows #2 pending
 * and no #3). Ranks 0 and 1 both have T #1 pending, and rank 0 has its send to rank 2 queued
 * behind it. Every member pending in the send has it queued behind an older call, yet rank 2 is
 * no cut dump that joined: an older dump's rank stays waited for there, and the dumps show a
 * hang on it, not a healthy job with work in flight (sim seeds 330, 2557, 2684) (kills aw02). */
static void an_older_dump_is_waited_for_in_a_send_queued_behind_the_peers_head(void **state) {
    job j;
    job_init(&j, 3);
    group(&j, "1", "T", "[0, 1]");
    coll(&j, "0", "all_reduce", 1, S("completed", "completed", "completed"));
    coll(&j, "0", "all_reduce", 2, S("completed", "completed", "scheduled"));
    coll(&j, "0", "all_reduce", 3, S("completed", "completed", NULL));
    coll(&j, "1", "all_reduce", 1, S("scheduled", "scheduled", NULL));
    p2p(&j, 0, "0", "send 0->2", 1, "scheduled");
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "2");
    done(&j);
}

/* Rank 0's dump lost its pg_config, and the name of its data-parallel group is shared by split
 * groups: its group is rebuilt from its entries as {0}, and a member without a dump may belong
 * too. Its reduce_scatter says two members: no size mismatch (a group rebuilt is at least as
 * large as seen, never smaller than it is; mutation ro07; sim seed 257). */
static void a_rebuilt_group_is_held_to_the_size_its_collectives_say(void **state) {
    job j;
    job_init(&j, 4);
    group(&j, "1", "DATA_PARALLEL_GROUP", "[0, 2]");
    group(&j, "1", "DATA_PARALLEL_GROUP", "[1, 3]");
    j.output_sizes = "[[2, 4]]";
    coll(&j, "1", "reduce_scatter", 1, S("completed", "completed", "completed", "completed"));
    j.output_sizes = NULL;
    j.no_config[0] = 1;
    run(&j);
    assert_null(finding(&j, FA_SIZE_MISMATCH));
    assert_culprits(&j, FA_STATUS_OK, "");
    done(&j);
}

/* Rank 0 has #1 and #2 pending; rank 1 completed both. A stalled GPU would hold #2 behind #1
 * on rank 0's stream, and #2 could not have completed anywhere: rank 0 ran both after its dump,
 * which is older than its peer's. No stalled GPU, nobody waits: ok (mutation ro08; sim seed
 * 78). */
static void a_peer_past_the_ranks_stream_head_shows_an_older_dump(void **state) {
    job j;
    job_init(&j, 2);
    coll(&j, "0", "all_reduce", 1, S("scheduled", "completed"));
    coll(&j, "0", "all_reduce", 2, S("scheduled", "completed"));
    run(&j);
    assert_true(fa_stale_known(&j.a.match.rank_stale[0]));
    assert_culprits(&j, FA_STATUS_OK, "");
    done(&j);
}

/* Rank 0's GPU stopped in A #1, which rank 1 completed; rank 2 stopped before #2 of the default
 * group, where ranks 0 and 1 wait for it. Two roots: the stall is nobody else's doing, beside the
 * sink that rank 2 is (mutation ro09; sim seeds 327, 150). */
static void a_stall_beside_a_stopped_rank_is_a_root_too(void **state) {
    job j;
    job_init(&j, 3);
    group(&j, "1", "A", "[0, 1]");
    coll(&j, "0", "all_reduce", 1, S("completed", "completed", "completed"));
    coll(&j, "1", "all_reduce", 1, S("scheduled", "completed", NULL));
    coll(&j, "0", "all_reduce", 2, S("scheduled", "scheduled", NULL));
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "0,2");
    done(&j);
}

/* Two GPUs stalled in one collective that the other members completed: each is a root (a
 * completed call proves every member started it), beside the rank that never issued the next. */
static void two_stalls_in_one_op_are_two_roots(void **state) {
    job j;
    job_init(&j, 4);
    coll(&j, "0", "all_reduce", 1, S("scheduled", "scheduled", "completed", "completed"));
    coll(&j, "0", "all_reduce", 2, S("scheduled", "scheduled", "scheduled", NULL));
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "0,1,3");
    done(&j);
}

/* PyTorch leaves a coalesced bundle's entries "scheduled" when its end marker completed, and an
 * only-active dump drops the marker: rank 0's #1 looks pending where rank 1 completed it. Its
 * own pg_status says #1 completed: no stalled GPU, a healthy snapshot. */
static void the_ranks_own_counters_complete_a_bundle_left_scheduled(void **state) {
    job j;
    job_init(&j, 2);
    rec(&j, 0, "0", "all_reduce", 1, "scheduled");
    rec(&j, 1, "0", "all_reduce", 1, "completed");
    coll(&j, "0", "all_reduce", 2, S("scheduled", "scheduled"));
    strcpy(j.status[0], "\"0\": {\"last_enqueued_collective\": 2, "
                        "\"last_started_collective\": -1, \"last_completed_collective\": 1}");
    run(&j);
    assert_culprits(&j, FA_STATUS_OK, "");
    done(&j);
}

/* Rank 0 sent to 2 where its program sent to 1: 1 waits to receive from 0, 2 never posted a
 * recv from 0 (nor had to) and is idle (not blocked anywhere). One fault explains both unmatched
 * halves: 0 is the culprit; 2 is not, for ignoring a send it was never meant to get. */
static void a_send_to_the_wrong_peer_names_the_sender(void **state) {
    job j;
    job_init(&j, 3);
    coll(&j, "0", "all_reduce", 1, S("completed", "completed", "completed"));
    p2p(&j, 0, "0", "send 0->2", 1, "scheduled");
    p2p(&j, 1, "0", "recv 1<-0", 1, "scheduled");
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "0");
    done(&j);
    /* the same halves from a pipeline: 2 is blocked before its recv (in group {2,3}, waiting
     * for 3), so 0's send waits for it, and 1 waits on 0: 3 is the culprit, 0 a victim */
    job_init(&j, 4);
    group(&j, "1", "X", "[2, 3]");
    coll(&j, "0", "all_reduce", 1, S("completed", "completed", "completed", "completed"));
    p2p(&j, 0, "0", "send 0->2", 1, "scheduled");
    p2p(&j, 1, "0", "recv 1<-0", 1, "scheduled");
    rec(&j, 2, "1", "all_reduce", 1, "scheduled");
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "3");
    done(&j);
}

/* A ring of batches 0 -> 1 -> 2 -> 0 whose windows wrapped (record ids start at 7): rank 2 sent
 * to 1 where its program sent to 0. Rank 1's batch completed: its recv from 0 ran, so rank 0's
 * send, still "scheduled" in a batch held up by its recv from 2, was done on the wire and pairs
 * with it (a completed recv proves its send; mutations wp01, wp02). 0 waits to receive from 2, 2's
 * send waits on 1, which is idle: 2 is the culprit, not 1. */
static void a_completed_recv_pairs_with_a_send_in_a_pending_batch(void **state) {
    job j;
    job_init(&j, 3);
    j.first_record[0] = j.first_record[1] = j.first_record[2] = 7;
    coll(&j, "0", "all_reduce", 1, S("completed", "completed", "completed"));
    const char *sends[] = { "send 0->1", "send 1->2", "send 2->1" },
               *recvs[] = { "recv 0<-2", "recv 1<-0", "recv 2<-1" },
               *ends[] = { "scheduled", "completed", "scheduled" };
    for (int r = 0; r < 3; r++) {
        p2p(&j, r, "0", sends[r], 1, "scheduled");
        p2p(&j, r, "0", recvs[r], 1, "scheduled");
        batch_end(&j, r, "0", 1, ends[r]);
    }
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "2");
    done(&j);
}

/* A ring of batches 0 -> 1 -> 2 -> 3 -> 0 where rank 1 sent to 3 instead of 2: the batches of 0
 * and 3 completed and both went on to all_reduce #2, where they wait for 1 and 2; 2 waits to
 * receive from 1. Rank 3, the wrong peer, is blocked, but on the poster itself (1 never joined
 * #2): no pipeline stage on its way to a recv from 1. 1 is the culprit (mutation wp03). */
static void a_wrong_peer_blocked_on_the_sender_is_no_excuse(void **state) {
    job j;
    job_init(&j, 4);
    coll(&j, "0", "all_reduce", 1, S("completed", "completed", "completed", "completed"));
    const char *sends[] = { "send 0->1", "send 1->3", "send 2->3", "send 3->0" },
               *recvs[] = { "recv 0<-3", "recv 1<-0", "recv 2<-1", "recv 3<-2" },
               *ends[] = { "completed", "scheduled", "scheduled", "completed" };
    for (int r = 0; r < 4; r++) {
        p2p(&j, r, "0", sends[r], 1, "scheduled");
        p2p(&j, r, "0", recvs[r], 1, "scheduled");
        batch_end(&j, r, "0", 1, ends[r]);
    }
    coll(&j, "0", "all_reduce", 2, S("scheduled", NULL, NULL, "scheduled"));
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "1");
    done(&j);
}

/* A ring of batches 0 -> 1 -> 2 -> 3 -> 0 where rank 2 received from 3 instead of 1: the
 * batches of 0 and 3 completed and every rank issued all_reduce #2, which 1 and 2 have queued
 * behind their own batches. 1 waits on 2 (its send), 2 on 3 (its recv), and 3 in #2 on 1 and
 * 2, whose streams have not reached it: a cycle, broken at 2, whose recv from 3 is posted where
 * nobody sends. What 2 has pending after that recv is queued behind its own mistake, no wait on
 * the others (tests/sim seeds 102, 438; mutations wp05, wp06). */
static void a_wrong_source_with_collectives_queued_behind_it(void **state) {
    job j;
    job_init(&j, 4);
    coll(&j, "0", "all_reduce", 1, S("completed", "completed", "completed", "completed"));
    const char *sends[] = { "send 0->1", "send 1->2", "send 2->3", "send 3->0" },
               *recvs[] = { "recv 0<-3", "recv 1<-0", "recv 2<-3", "recv 3<-2" },
               *ends[] = { "completed", "scheduled", "scheduled", "completed" };
    for (int r = 0; r < 4; r++) {
        p2p(&j, r, "0", sends[r], 1, "scheduled");
        p2p(&j, r, "0", recvs[r], 1, "scheduled");
        batch_end(&j, r, "0", 1, ends[r]);
    }
    coll(&j, "0", "all_reduce", 2, S("scheduled", "scheduled", "scheduled", "scheduled"));
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "2");
    done(&j);
}

/* A ring of batches 0 -> 1 -> 2 -> 0 in group 1 where rank 1 received from 2 instead of 0: 2's
 * batch completed and 2 went on to the default group's all_reduce #2, where rank 3 left no dump
 * and 0 and 1 have #2 queued behind their batches. 2 is blocked, but on 1 among others (its
 * stream has not reached #2): no stage on its way to a send to 1. 1 is the culprit; 3 may have
 * stopped too, an alternative (tests/sim seeds 71, 166; mutation wp07). */
static void a_wrong_peer_waiting_on_the_queued_poster_is_no_excuse(void **state) {
    job j;
    job_init(&j, 4);
    group(&j, "1", "ring", "[0, 1, 2]");
    coll(&j, "0", "all_reduce", 1, S("completed", "completed", "completed", NULL));
    const char *sends[] = { "send 0->1", "send 1->2", "send 2->0" },
               *recvs[] = { "recv 0<-2", "recv 1<-2", "recv 2<-1" },
               *ends[] = { "scheduled", "scheduled", "completed" };
    for (int r = 0; r < 3; r++) {
        p2p(&j, r, "1", sends[r], 1, "scheduled");
        p2p(&j, r, "1", recvs[r], 1, "scheduled");
        batch_end(&j, r, "1", 1, ends[r]);
    }
    coll(&j, "0", "all_reduce", 2, S("scheduled", "scheduled", "scheduled", NULL));
    j.skip[3] = 1;
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "1");
    done(&j);
}

/* A ring of batches 0 -> 1 -> 2 -> 0 where rank 1 sent to 0 instead of 2, and 2 left no dump
 * (its recv from 1, the other half, unseen). 0's batch #1 completed without a recv from 1 and 0
 * went on to all_reduce #2, where it waits for 1: 0 ran that slot of the ring to the end without
 * the half 1 posted, so 1's send waits on nobody; 1 is the culprit, not 0, and 2 may have stopped
 * too (tests/sim seed 368; mutation wp12). */
static void a_peer_past_the_slot_of_a_lone_send_is_no_culprit(void **state) {
    job j;
    job_init(&j, 3);
    coll(&j, "0", "all_reduce", 1, S("completed", "completed", NULL));
    p2p(&j, 0, "0", "send 0->1", 1, "scheduled");
    p2p(&j, 0, "0", "recv 0<-2", 1, "scheduled");
    batch_end(&j, 0, "0", 1, "completed");
    p2p(&j, 1, "0", "send 1->0", 1, "scheduled");
    p2p(&j, 1, "0", "recv 1<-0", 1, "scheduled");
    batch_end(&j, 1, "0", 1, "scheduled");
    rec(&j, 0, "0", "all_reduce", 2, "scheduled");
    j.skip[2] = 1;
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "1");
    done(&j);
}

/* The same ring, but rank 1 issued all_reduce #2 too, queued behind its batch that nothing will
 * complete: 0 waits for 1 there all the same, since 1's stream never gets there. 0 ran the slot
 * of 1's send to the end without it, and waits on 1: 1 is the culprit, not 0 "never posting" a
 * recv from 1, and the finding says that 1 issued #2 but has it queued (tests/sim seeds 5995,
 * 8682; mutations wp33, wp34). */
static void a_peer_past_the_slot_waits_on_the_poster_queued(void **state) {
    job j;
    job_init(&j, 3);
    coll(&j, "0", "all_reduce", 1, S("completed", "completed", NULL));
    p2p(&j, 0, "0", "send 0->1", 1, "scheduled");
    p2p(&j, 0, "0", "recv 0<-2", 1, "scheduled");
    batch_end(&j, 0, "0", 1, "completed");
    p2p(&j, 1, "0", "send 1->0", 1, "scheduled");
    p2p(&j, 1, "0", "recv 1<-0", 1, "scheduled");
    batch_end(&j, 1, "0", 1, "scheduled");
    coll(&j, "0", "all_reduce", 2, S("scheduled", "scheduled", NULL));
    j.skip[2] = 1;
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "1");
    if (!strstr(j.a.verdict.summary, "rank 1 posted a send/recv to the wrong peer before"))
        fail_msg("summary: %s", j.a.verdict.summary);
    done(&j);
}

/* A ring of batches in group 1 (0 -> 1 -> 2 -> 0) where rank 0 sent to 2 instead of 1. Before
 * it, rank 0's dump keeps a recv from 2 of default_pg's send/recv #1 (record 3, "scheduled"),
 * the records before and after it gone (a ring that wrapped, an only-active dump that dropped
 * what completed), and its pg_status says it completed default_pg's work #2, issued after that
 * recv: the recv may be a member of a batch that completed. Rank 2's window starts later (record
 * 8), its own batch in group 1 done (its marker dropped) and its all_reduce #1 there pending,
 * and shows none of its send/recv to 0 in default_pg, yet its all_reduce #3 there carries a
 * send/recv count of 1: it issued one before its window, which may be the send that recv took.
 * Rank 2 is not named for "never posting" that send (mutation wp37: "rank 2 never joined
 * default_pg recv 0<-2"); rank 0, whom 1 waits for in group 1, is the culprit (tests/sim seed
 * 7109). */
static void a_send_before_the_peers_window_is_not_never_posted(void **state) {
    job j;
    job_init(&j, 3);
    group(&j, "1", "dp", "[0, 1, 2]");
    j.first_record[0] = 3;
    j.p2p_coll_seq = 1;
    p2p(&j, 0, "0", "recv 0<-2", 1, "scheduled");
    j.p2p_coll_seq = 0;
    j.first_record[0] = 7; /* records 4-7 gone: the next entry is record 8 */
    j.first_record[1] = j.first_record[2] = 8;
    const char *sends[] = { "send 0->2", "send 1->2", "send 2->0" },
               *recvs[] = { "recv 0<-2", "recv 1<-0", "recv 2<-1" };
    for (int r = 0; r < 3; r++) {
        p2p(&j, r, "1", sends[r], 1, "scheduled");
        p2p(&j, r, "1", recvs[r], 1, "scheduled");
        if (r < 2) batch_end(&j, r, "1", 1, "scheduled");
    }
    j.first_record[2]++; /* rank 2's marker completed, dropped: its batch ran */
    j.coll_p2p_seq = 1;
    rec(&j, 2, "1", "all_reduce", 1, "scheduled");
    rec(&j, 2, "0", "all_reduce", 3, "scheduled");
    strcpy(j.status[0], "\"0\": {\"last_enqueued_collective\": 2, \"last_started_collective\": -1, "
                        "\"last_completed_collective\": 2}");
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "0");
    done(&j);
}

/* A ring of batches in group 1 (0 -> 1 -> 2 -> 3 -> 0) where rank 3 received from 1 instead of
 * 2. Only-active dumps: ranks 0 and 1 completed their batches (markers dropped, a gap in the
 * record ids) and wait in all_reduce #1; rank 1's window starts at its batch's first transfer,
 * so a ring may have taken an earlier one of it (a send to 3?). But rank 3's marker says
 * "started": its batch did not complete, while its other transfer, the send to 0, is done at 0
 * (0's batch completed): the recv from 1 is what it waits for, and no partner of it ran. Rank 3,
 * which posted to the wrong peer (2 waits to send to it), is named, not left unseen behind a
 * dropped partner (tests/sim seed 1790: rank 262's recv from 235). */
static void a_batch_waiting_for_its_one_transfer_has_no_dropped_partner(void **state) {
    job j;
    job_init(&j, 4);
    group(&j, "1", "cp", "[0, 1, 2, 3]");
    const char *sends[] = { "send 0->1", "send 1->2", "send 2->3", "send 3->0" },
               *recvs[] = { "recv 0<-3", "recv 1<-0", "recv 2<-1", "recv 3<-1" };
    j.coll_p2p_seq = 1;
    for (int r = 0; r < 4; r++) {
        j.first_record[r] = 5;
        p2p(&j, r, "1", sends[r], 1, "scheduled");
        p2p(&j, r, "1", recvs[r], 1, "scheduled");
        if (r < 2)
            j.first_record[r]++; /* its marker completed, dropped: its batch ran */
        else
            batch_end(&j, r, "1", 1, r == 3 ? "started" : "scheduled");
        rec(&j, r, "1", "all_reduce", 1, r < 2 ? "started" : "scheduled");
    }
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "3");
    bool shown = false; /* the recv from 1 is kept, unmatched (mutation ol01: dropped) */
    for (size_t i = 0; i < j.a.findings.n; i++) {
        const char *detail = j.a.findings.v[i].detail;
        shown |= detail && strstr(detail, "rank 3 receives from rank 1") != NULL;
    }
    if (!shown) fail_msg("no finding shows rank 3's recv from 1 (%s)", j.a.verdict.summary);
    done(&j);
}

/* A ring of batches 0 -> 1 -> 2 -> 3 -> 0 where rank 1 received from 2 instead of 0, and rank
 * 3 left no dump. Rank 2's send to 3 is unmatched, and 1 waits to receive from 2: the pattern
 * of a send to the wrong peer, but 3 may well have posted its recv from 2 (nothing says it did
 * not), so 2 is not named for it (mutation wp06). */
static void a_send_to_a_rank_without_a_dump_is_no_wrong_peer(void **state) {
    job j;
    job_init(&j, 4);
    coll(&j, "0", "all_reduce", 1, S("completed", "completed", "completed", NULL));
    const char *sends[] = { "send 0->1", "send 1->2", "send 2->3" },
               *recvs[] = { "recv 0<-3", "recv 1<-2", "recv 2<-1" };
    for (int r = 0; r < 3; r++) {
        p2p(&j, r, "0", sends[r], 1, "scheduled");
        p2p(&j, r, "0", recvs[r], 1, "scheduled");
        batch_end(&j, r, "0", 1, "scheduled");
    }
    j.skip[3] = 1;
    run(&j);
    char *got = culprits(&j);
    if (strchr(got, '2')) fail_msg("rank 2 named: '%s' (%s)", got, j.a.verdict.summary);
    free(got);
    done(&j);
}

/* Pipeline pairs: rank 0 sends to 1 in group {0,1}, and 1, idle, never posted the recv; rank 2
 * waits to receive from 0 in group {0,2}, which 0 has not reached. Two unmatched halves that meet
 * in 0, but in two groups: a send to the wrong peer names another member of its own group (and
 * {0,1} has no other). 1 is the culprit, 0 its victim (mutation wp08). */
static void unmatched_halves_in_two_groups_are_no_wrong_peer(void **state) {
    job j;
    job_init(&j, 4);
    group(&j, "1", "pp_a", "[0, 1]");
    group(&j, "2", "pp_b", "[0, 2]");
    coll(&j, "0", "all_reduce", 1, S("completed", "completed", "completed", "completed"));
    p2p(&j, 0, "1", "send 0->1", 1, "scheduled");
    p2p(&j, 2, "2", "recv 1<-0", 1, "scheduled");
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "1");
    done(&j);
}

/* Pipeline 0 -> 1 <- 2 in group 1: rank 1 waits to receive from 2, and 0's send to 1 waits
 * for 1: the two halves of a recv from the wrong peer. But rank 2 is idle while 3 waits for it
 * in group 2: 2 stopped, and 1 is right to wait for it (a stage receiving from the stage that
 * stopped). 2 is the culprit, 1 not (gen_dumps' faulty job in t0600; mutation wp15). */
static void a_peer_that_others_wait_for_is_no_wrong_peer(void **state) {
    job j;
    job_init(&j, 4);
    group(&j, "1", "pp", "[0, 1, 2]");
    group(&j, "2", "dp", "[2, 3]");
    coll(&j, "0", "all_reduce", 1, S("completed", "completed", "completed", "completed"));
    p2p(&j, 0, "1", "send 0->1", 1, "scheduled");
    p2p(&j, 1, "1", "recv 1<-2", 1, "scheduled");
    rec(&j, 3, "2", "all_reduce", 1, "scheduled");
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "2");
    done(&j);
}

/* Rank 0 ran group 1's all_reduce #2 on the default group instead: 1 waits for it in group 1,
 * 2 and 3 are idle, 4 left no dump. More than half of the default group provably never issued
 * #2 and nobody there waits in it: 0 went where nobody else went, the culprit, and 1-4 are not
 * (tests/sim seed 334; mutation wg01). */
static void a_collective_on_the_wrong_group_beside_a_lost_dump(void **state) {
    job j;
    job_init(&j, 5);
    j.group_ranks[0] = "[0, 1, 2, 3, 4]";
    group(&j, "1", "dp", "[0, 1]");
    coll(&j, "0", "all_reduce", 1, S("completed", "completed", "completed", "completed"));
    coll(&j, "1", "all_reduce", 1, S("completed", "completed"));
    rec(&j, 0, "0", "all_reduce", 2, "scheduled");
    rec(&j, 1, "1", "all_reduce", 2, "scheduled");
    j.skip[4] = 1;
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "0");
    done(&j);
}

/* Rank 0's send to 1 completed, so rank 1's recv ran on the wire; rank 1 still shows it started,
 * alone (no batch), and both sit in all_reduce #2 behind it: rank 1's stream stopped (a stalled
 * GPU), as for a collective every peer completed (mutation wp04). */
static void a_lone_recv_whose_send_completed_is_a_stalled_gpu(void **state) {
    job j;
    job_init(&j, 2);
    coll(&j, "0", "all_reduce", 1, S("completed", "completed"));
    p2p(&j, 0, "0", "send 0->1", 1, "completed");
    p2p(&j, 1, "0", "recv 1<-0", 1, "started");
    coll(&j, "0", "all_reduce", 2, S("scheduled", "scheduled"));
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "1");
    done(&j);
}

/* Pipeline stages 2 -> 1 in a group of three, both rings wrapped (what came before is gone):
 * rank 2's send #4 completed and its send #6 is still started, alone; rank 1 completed both of
 * its recvs from 2 in its window. The newest recv completed, so a send ran with it: paired from
 * the newest backwards (send #4 with recv #5), send #6 would have no recv and rank 1, which
 * waits in all_reduce #2 for rank 2, would be named for never posting one. Send #6 pairs with
 * recv #5: rank 2's GPU stopped after the transfer (tests/sim seed 5436; seed 7846 is the
 * older dump that looks alike and the verdict weighs as one). */
static void a_lone_pending_send_whose_newest_recv_completed_pairs_with_it(void **state) {
    job j;
    job_init(&j, 3);
    group(&j, "7", "pipeline", "[0, 1, 2]");
    for (int r = 0; r < 3; r++) j.first_record[r] = 10;
    coll(&j, "0", "all_reduce", 1, S("completed", "completed", "completed"));
    p2p(&j, 1, "7", "recv 1<-2", 3, "completed");
    p2p(&j, 2, "7", "send 2->1", 4, "completed");
    p2p(&j, 1, "7", "recv 1<-2", 5, "completed");
    p2p(&j, 2, "7", "send 2->1", 6, "started");
    coll(&j, "0", "all_reduce", 2, S("started", "started", "scheduled"));
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "2");
    done(&j);
}

/* A ring of batches in group 2 (0 -> 1 -> 2 -> 0), each rank's ring wrapped inside its batch #1:
 * the window starts at that batch's recv (record 3; its send is gone), the record after it is
 * missing too (an only-active dump dropped the batch's end marker and the all_reduce #2 after
 * it, completed), and pg_status says the group's work #2 completed. PyTorch leaves a batch's
 * send/recv "scheduled" when its marker completes: the recv is done, not the oldest pending
 * batch that batch #2 is queued behind. Rank 2 never issued batch #2: it is the culprit, and
 * rank 0's send #2 ([[4]]) pairs with rank 1's recv #2, not with its recv #1 ([[1]]) as a size
 * mismatch nobody made (tests/sim seed 8881: "mismatch: ranks 0-17 used other sizes"). */
static void a_batch_recv_at_the_rings_edge_with_later_work_done_completed(void **state) {
    job j;
    job_init(&j, 3);
    group(&j, "2", "mesh_shard", "[0, 1, 2]");
    const char *sends[] = { "send 0->1", "send 1->2" },
               *recvs[] = { "recv 0<-2", "recv 1<-0", "recv 2<-1" };
    j.p2p_coll_seq = 1;
    j.p2p_sizes = "[[1]]";
    for (int r = 0; r < 3; r++) {
        j.first_record[r] = 3;
        p2p(&j, r, "2", recvs[r], 1, "scheduled");
        j.first_record[r] += 4; /* records 4-7 gone: the next entry is record 8 */
        snprintf(j.status[r], sizeof j.status[r],
                 "\"2\": {\"last_enqueued_collective\": 2, \"last_started_collective\": -1, "
                 "\"last_completed_collective\": 2}");
    }
    j.p2p_coll_seq = 2;
    j.p2p_sizes = "[[4]]";
    for (int r = 0; r < 2; r++) {
        p2p(&j, r, "2", sends[r], 2, "scheduled");
        p2p(&j, r, "2", recvs[r], 2, "scheduled");
        batch_end(&j, r, "2", 2, "scheduled");
    }
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "2");
    done(&j);
}

/* A SIGKILL'd rank left no dump, and the one dump there is has every group to itself but for a
 * recorder communicator of two: the job has a rank 1 (global ranks are dense), which fills the
 * slot and is the culprit; never "ok" with one rank of one. */
static void a_communicator_says_how_large_the_job_is(void **state) {
    job j;
    job_init(&j, 2);
    j.group_ranks[0] = "[]";
    group(&j, "5", "tp", "[]");
    rec(&j, 0, "5", "all_reduce", 1, "scheduled");
    j.skip[1] = 1;
    snprintf(j.frtrace[0], sizeof j.frtrace[0],
             "{\"comms\": {\"5\": {\"comm_rank\": 0, \"comm_size\": 2, \"parent\": null, "
             "\"color\": 0, \"nccl_hash\": \"0x5\", \"state\": \"live\"}}, "
             "\"global_rank\": 0, \"trigger\": \"timeout\", \"version\": \"1\"}");
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "1");
    done(&j);
}

/* A recorder communicator of two whose slot 1 nobody's comms fill: rank 1's dump was cut before
 * them, and rank 2 left none, so either could hold it. Rank 1's entries name the communicator:
 * it is a member, the one slot is its, and its recv is the other side of rank 0's send, not an
 * op of a group of its own (mutations gf01, gf02; sim seed 2944). */
static void a_cut_dump_naming_a_communicator_fills_its_one_open_slot(void **state) {
    job j;
    job_init(&j, 3);
    j.group_ranks[0] = "[]";
    group(&j, "5", "undefined", "[]");
    coll(&j, "0", "all_reduce", 1, S("completed", "completed", NULL));
    p2p(&j, 0, "5", "send 0->1", 1, "scheduled");
    p2p(&j, 1, "5", "recv 1<-0", 1, "scheduled");
    j.skip[1] = 3;
    j.skip[2] = 1;
    snprintf(j.frtrace[0], sizeof j.frtrace[0],
             "{\"comms\": {\"0\": {\"comm_rank\": 0, \"comm_size\": 3, \"parent\": null, "
             "\"color\": 0, \"nccl_hash\": \"0x0\", \"state\": \"live\"}, "
             "\"5\": {\"comm_rank\": 0, \"comm_size\": 2, \"parent\": null, "
             "\"color\": 0, \"nccl_hash\": \"0x5\", \"state\": \"live\"}}, "
             "\"global_rank\": 0, \"trigger\": \"timeout\", \"version\": \"1\"}");
    run(&j);
    size_t named = 0;
    for (size_t g = 0; g < j.a.groups.n; g++) {
        const fa_group *grp = &j.a.groups.v[g];
        if (strcmp(grp->name, "5") != 0) continue;
        named++;
        assert_int_equal(grp->nmembers, 2);
        assert_int_equal(grp->members[0], 0);
        assert_int_equal(grp->members[1], 1);
    }
    assert_int_equal(named, 1);
    done(&j);
}

/* Rank 1's ring no longer holds #2 (it wrapped), but its pg_status says it enqueued #2: it is in
 * flight there like rank 0, not a rank that never joined it. */
static void pg_status_says_what_a_rank_enqueued_beyond_its_entries(void **state) {
    job j;
    job_init(&j, 2);
    coll(&j, "0", "all_reduce", 1, S("completed", "completed"));
    rec(&j, 0, "0", "all_reduce", 2, "scheduled");
    strcpy(j.status[1], "\"0\": {\"last_enqueued_collective\": 2, "
                        "\"last_started_collective\": -1, \"last_completed_collective\": 1}");
    run(&j);
    assert_culprits(&j, FA_STATUS_OK, "");
    done(&j);
}

/* Rank 2's ring holds nothing of group 0 any more, so its own entries give no pg id to read its
 * pg_status by; ranks 0 and 1 agree that the group is pg 0, and by that id rank 2's counters say
 * it enqueued #2: in flight there with the others, not a rank that never joined it (kills m09). */
static void members_agreeing_on_the_pg_id_lend_it_to_a_rank_without_entries(void **state) {
    job j;
    job_init(&j, 3);
    coll(&j, "0", "all_reduce", 1, S("completed", "completed", NULL));
    coll(&j, "0", "all_reduce", 2, S("scheduled", "scheduled", NULL));
    j.first_record[2] = 7;
    strcpy(j.status[2], "\"0\": {\"last_enqueued_collective\": 2, "
                        "\"last_started_collective\": -1, \"last_completed_collective\": 1}");
    run(&j);
    assert_culprits(&j, FA_STATUS_OK, "");
    done(&j);
}

/* Every rank's recorder dump says it timed out and names one live communicator "0" of the whole
 * job, the rank its own comm_rank: the launch-numbered dumps of frtrace's recorder. */
static void recorder_comm_zero(job *j) {
    for (int r = 0; r < j->world; r++)
        snprintf(j->frtrace[r], sizeof j->frtrace[r],
                 "{\"comms\": {\"0\": {\"comm_rank\": %d, \"comm_size\": %d, \"parent\": null, "
                 "\"color\": -1, \"nccl_hash\": \"0x0\", \"state\": \"live\"}}, "
                 "\"global_rank\": %d, \"trigger\": \"timeout\", \"version\": \"1\"}",
                 r, j->world, r);
}

/* The recorder numbers every launch of a communicator: rank 0 left all_reduce #2 out (no entry
 * of its carries #2) and went on to #3, where it waits for rank 1; rank 1 waits in #2 for rank
 * 0. Each misses the op the other is pending in, and in one group the numbers tell the skipper
 * from its victim: rank 1, pending at #2 before the #3 it misses, never got there (kills e10). */
static void in_one_group_the_launch_numbers_tell_the_skipper(void **state) {
    job j;
    job_init(&j, 2);
    coll(&j, "0", "all_reduce", 1, S("completed", "completed"));
    rec(&j, 0, "0", "all_reduce", 3, "scheduled");
    rec(&j, 1, "0", "all_reduce", 2, "scheduled");
    recorder_comm_zero(&j);
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "0");
    done(&j);
}

/* Four pipeline stages in one group. Stage 3 posts its forward recv from 0 instead of 2; 2 waits
 * in its forward send to 3 ([[16]] Float), 1 in its backward recv from 2 ([[1]] Half), 0 in its
 * backward recv from 1. 2's send is no send to the wrong peer beside 1's recv: a wrong send
 * carries what the right peer waits for, and 1 waits for another tensor. 3's recv, of the shapes
 * of 2's send, is the wrong end: 3 is named, not 2 beside it (sim seed 12978). */
static void a_send_of_other_shapes_than_the_waiting_recv_is_no_wrong_peer(void **state) {
    job j;
    job_init(&j, 4);
    j.p2p_sizes = "[[1]]";
    j.p2p_dtype = "Half";
    p2p(&j, 0, "0", "recv 0<-1", 3, "started");
    p2p(&j, 1, "0", "recv 1<-2", 7, "started");
    j.p2p_sizes = "[[16]]";
    j.p2p_dtype = "Float";
    p2p(&j, 2, "0", "send 2->3", 6, "started");
    p2p(&j, 3, "0", "recv 3<-0", 3, "started");
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "3");
    done(&j);
}

/* Our recorder's dumps of a ring's batches, sizes alike, dtypes not, rings that wrapped. In batch
 * #2 rank 2 receives from 0 instead of 1; 0 ran both batches to the end, and so did 3 its #2 on
 * the wire. NCCL pairs 1's sends to 2 in posting order: its send #2 meets 2's recv #3, so the only
 * end left waiting on 2 is 1's send #3, queued behind its #2. Queued, it still makes 2's recv
 * from 0 the wrong end, as 0 posted no wrong end of its own: 2 is named, not 0 for a send it
 * never owed (sim seed 15721). */
static void a_queued_send_still_shows_a_wrong_receiver(void **state) {
    job j;
    job_init(&j, 4);
    for (int r = 0; r < 4; r++) {
        char send[16], recv[16];
        j.first_record[r] = 8;
        snprintf(send, sizeof send, "send %d->%d", r, (r + 1) % 4);
        snprintf(recv, sizeof recv, "recv %d<-%d", r, r == 2 ? 0 : (r + 3) % 4);
        const char *st = r == 0 || r == 3 ? "completed" : "scheduled";
        j.p2p_dtype = "BFloat16";
        p2p(&j, r, "0", send, 2, st);
        p2p(&j, r, "0", recv, 2, st);
        batch_end(&j, r, "0", 2, st);
        snprintf(recv, sizeof recv, "recv %d<-%d", r, (r + 3) % 4);
        st = r == 0 ? "completed" : "scheduled";
        j.p2p_dtype = "Half";
        p2p(&j, r, "0", send, 3, st);
        p2p(&j, r, "0", recv, 3, st);
        batch_end(&j, r, "0", 3, st);
    }
    recorder_comm_zero(&j);
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "2");
    done(&j);
}

/* Rank 2 left TP #4 out and went on to the step's default_pg #3, where it waits for rank 3;
 * rank 3 waits in TP #4 for rank 2. Each misses the op the other is pending in. Their own
 * histories mislead (default_pg #2 came before TP #3, as it runs once a step), but ranks 0 and
 * 1 ran TP #4 before default_pg #3: rank 3, pending in TP #4, never got to default_pg #3, and
 * rank 2 went past TP #4 (tests/sim seed 1619; kills hw01). */
static void the_peers_order_tells_the_skipper_across_groups(void **state) {
    job j;
    job_init(&j, 4);
    group(&j, "1", "TP", "[0, 1]");
    group(&j, "2", "TP", "[2, 3]");
    coll(&j, "0", "all_reduce", 1, S("completed", "completed", "completed", "completed"));
    for (int r = 0; r < 4; r++) {
        const char *tp = r < 2 ? "1" : "2";
        rec(&j, r, tp, "all_reduce", 1, "completed");
        rec(&j, r, tp, "all_reduce", 2, "completed");
        rec(&j, r, "0", "all_reduce", 2, "completed");
        rec(&j, r, tp, "all_reduce", 3, "completed");
        if (r < 2) rec(&j, r, tp, "all_reduce", 4, "completed");
        if (r == 3) rec(&j, r, tp, "all_reduce", 4, "started");
        if (r < 3) rec(&j, r, "0", "all_reduce", 3, "started");
    }
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "2");
    done(&j);
}

/* Only-active dumps: ranks 1 and 2 kept nothing, and their counters say they completed #4.
 * Rank 0 has #3 started and #4 queued behind it: #4 completed on its peers, so rank 0 ran #3
 * and #4 after its dump was taken. Its dump is older, no stalled GPU (tests/sim seed 570;
 * kills hw03). */
static void peers_counters_past_a_ranks_stream_head_show_it_older(void **state) {
    job j;
    job_init(&j, 3);
    j.first_record[0] = 4;
    rec(&j, 0, "0", "all_reduce", 3, "started");
    rec(&j, 0, "0", "all_reduce", 4, "scheduled");
    strcpy(j.status[0], "\"0\": {\"last_enqueued_collective\": 4, "
                        "\"last_started_collective\": 3, \"last_completed_collective\": 2}");
    for (int r = 1; r < 3; r++)
        strcpy(j.status[r], "\"0\": {\"last_enqueued_collective\": 4, "
                            "\"last_started_collective\": 4, \"last_completed_collective\": 4}");
    run(&j);
    assert_culprits(&j, FA_STATUS_OK, "");
    done(&j);
}

/* A ring's batch_isend_irecv: ranks 0 and 2 completed their halves of both of rank 1's
 * transfers (0 sent to it, 2 received from it), while rank 1's batch, its end marker included,
 * is still pending: the batch ran on the wire, and rank 1's stream stopped completing work
 * (tests/sim seed 1926; kills hw09). */
static void a_batch_its_peers_completed_on_the_wire_is_a_stall(void **state) {
    job j;
    job_init(&j, 3);
    p2p(&j, 0, "0", "send 0->1", 1, "completed");
    p2p(&j, 0, "0", "recv 0<-2", 1, "completed");
    batch_end(&j, 0, "0", 1, "completed");
    p2p(&j, 1, "0", "send 1->2", 1, "started");
    p2p(&j, 1, "0", "recv 1<-0", 1, "started");
    batch_end(&j, 1, "0", 1, "started");
    p2p(&j, 2, "0", "send 2->0", 1, "completed");
    p2p(&j, 2, "0", "recv 2<-1", 1, "completed");
    batch_end(&j, 2, "0", 1, "completed");
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "1");
    assert_non_null(finding(&j, FA_STATE_MISMATCH));
    done(&j);
}

/* Three of five ranks left no dump: the two that did cannot speak for the job (inconclusive),
 * though they wait for the others. */
static void most_ranks_without_a_dump_is_inconclusive(void **state) {
    job j;
    job_init(&j, 5);
    j.group_ranks[0] = "[0, 1, 2, 3, 4]";
    coll(&j, "0", "all_reduce", 1, S("scheduled", "scheduled", NULL, NULL, NULL));
    j.skip[2] = j.skip[3] = j.skip[4] = 1;
    run(&j);
    assert_culprits(&j, FA_STATUS_INCONCLUSIVE, "");
    done(&j);
}

/* Of five ranks, three left no dump, and the two that did disagree on #1's type: nobody can say
 * which is the odd one out without most of the group, so the job is inconclusive, not a
 * mismatch naming both (a real torch job whose dumps came late under load, interop seed 24;
 * mutation ml01). */
static void a_mismatch_among_a_few_dumps_of_a_lost_job_is_inconclusive(void **state) {
    job j;
    job_init(&j, 5);
    j.group_ranks[0] = "[0, 1, 2, 3, 4]";
    rec(&j, 0, "0", "all_reduce", 1, "scheduled");
    rec(&j, 1, "0", "all_gather", 1, "scheduled");
    j.skip[2] = j.skip[3] = j.skip[4] = 1;
    run(&j);
    assert_culprits(&j, FA_STATUS_INCONCLUSIVE, "");
    /* a tie names each call's own rank (mutation ml02: "ranks 0,1 issued ... where rank  ...") */
    const fa_finding *f = finding(&j, FA_TYPE_MISMATCH);
    assert_non_null(f);
    assert_string_equal(f->detail, "rank 0 issued all_reduce where rank 1 issued all_gather");
    done(&j);
}

/* gloo: ranks 0 and 1 aborted and left no dump; rank 2's groups are rebuilt from its own
 * entries, so no group lists them. Global ranks are dense from 0: a dump of rank 2 proves ranks
 * 0 and 1 are the job's, and two of three lost is most of the job: inconclusive, never an ok
 * that closes the ticket (tests/sim seeds 677, 8546; kills hg701). */
static void ranks_below_a_dumped_rank_count_as_lost(void **state) {
    job j;
    job_init(&j, 3);
    j.backend = "gloo";
    j.no_config[2] = 1; /* its pg_config names no member that left no dump */
    group(&j, "1", "DATA_PARALLEL_GROUP", "[2]");
    rec(&j, 2, "1", "all_gather", 1, "completed");
    j.skip[0] = j.skip[1] = 1;
    run(&j);
    assert_culprits(&j, FA_STATUS_INCONCLUSIVE, "");
    done(&j);
}

/* Rank 2's dump keeps only what is active: its oldest pending collective is #6, so its stream
 * ran #1..#5 to completion, which needs every member. Rank 1's dump still has #2 pending and
 * shows nothing after: it is older than rank 2's, not a stalled GPU, and the rank is presumed
 * to have gone on. Rank 2 waits in #6 for rank 0, which left no dump, and for rank 1, whose
 * state is unknown; and in a recv from rank 1 behind it. Rank 0 is the culprit, and rank 1, whose
 * dump says nothing of the end, is not a rank "waiting for nobody" that would make it inconclusive
 * (mutations ro20-ro23; sim seed 577). */
static void an_only_active_stream_head_shows_a_peers_dump_older(void **state) {
    job j;
    job_init(&j, 3);
    j.skip[0] = 1;
    rec(&j, 1, "0", "all_reduce", 2, "scheduled");
    rec(&j, 2, "0", "all_reduce", 6, "scheduled");
    p2p(&j, 2, "0", "recv 2<-1", 1, "scheduled"); /* queued behind #6: rank 2 waits for 0 */
    run(&j);
    assert_true(fa_stale_known(&j.a.match.rank_stale[0])); /* input rank 0 is global rank 1 */
    assert_int_equal(j.a.match.rank_stale[0].seq, 5);
    assert_culprits(&j, FA_STATUS_HANG, "0");
    done(&j);
}

/* Rank 0's dump keeps only what is active (its record ids skip one): it holds all_reduce #1
 * scheduled, then the record after it dropped (completed), then its send to rank 1 scheduled,
 * which rank 1's recv completed. The head may be a one-member bundle whose end marker completed
 * and was dropped (complete_unmarked reads only bundles of several members, or a member beside
 * its own entries), so the send completed on its peer proves nothing about rank 0's dump being
 * older (mutation wp21; sim seed 1815). */
static void a_completed_send_behind_a_maybe_bundle_head_proves_no_older_dump(void **state) {
    job j;
    job_init(&j, 2);
    rec(&j, 0, "0", "all_reduce", 1, "scheduled");
    j.nentries[0]++; /* record 1 dropped: the bundle's end marker, completed */
    p2p(&j, 0, "0", "send 0->1", 1, "scheduled");
    rec(&j, 1, "0", "all_reduce", 1, "completed");
    p2p(&j, 1, "0", "recv 1<-0", 1, "completed");
    rec(&j, 1, "0", "all_reduce", 2, "scheduled");
    run(&j);
    assert_false(fa_stale_known(&j.a.match.rank_stale[0]));
    done(&j);
}

/* Ranks 0 and 1 keep only what is active: each shows the members of its batch p2p #1
 * (collective count 2) and of its batch p2p #2 (count 3), left "scheduled" by PyTorch, with the
 * records between them gone: batch #1's end marker and all_reduce #3, which the entries' counts
 * say was issued in between, dropped because they completed. Their pg_status's "completed 2" is
 * batch #2's number, not a collective's. Rank 2 still has #3 started: its GPU stalled there, and
 * ranks 0 and 1 completed #3 (not "in flight, no entry": sim seed 10725 named 244 ranks). */
static void a_collective_dropped_between_entries_completed(void **state) {
    job j;
    job_init(&j, 3);
    for (int r = 0; r < 2; r++) {
        char send[16], recv[16];
        snprintf(send, sizeof send, "send %d->%d", r, 1 - r);
        snprintf(recv, sizeof recv, "recv %d<-%d", r, 1 - r);
        j.p2p_coll_seq = 2;
        p2p(&j, r, "0", send, 1, "scheduled");
        p2p(&j, r, "0", recv, 1, "scheduled");
        j.nentries[r] += 2; /* batch #1's end marker and all_reduce #3: completed, dropped */
        j.p2p_coll_seq = 3;
        p2p(&j, r, "0", send, 2, "scheduled");
        p2p(&j, r, "0", recv, 2, "scheduled");
        strcpy(j.status[r], "\"0\": {\"last_enqueued_collective\": 2, "
                            "\"last_started_collective\": 2, \"last_completed_collective\": 2}");
    }
    rec(&j, 2, "0", "all_reduce", 3, "started");
    run(&j);
    size_t op = 0;
    while (j.a.match.ops[op].is_p2p || j.a.match.ops[op].seq != 3) op++;
    assert_int_equal(fa_op_member_state(&j.a.match, &j.a.groups, op, 0), FA_MS_COMPLETED);
    assert_int_equal(fa_op_member_state(&j.a.match, &j.a.groups, op, 1), FA_MS_COMPLETED);
    char *got = culprits(&j);
    assert_null(strchr(got, '0'));
    assert_null(strchr(got, '1'));
    free(got);
    done(&j);
}

/* Rank 0's dump keeps only what is active (record 1 dropped): all_reduce #2 of group A
 * scheduled, a lone entry of its own (the record after it, kept, is its batch), then its batch
 * with rank 1 in the default group, whose other side rank 1 completed. Rank 0's stream runs the
 * batch only after #2, so it did after its dump was taken: the dump is older, #2 no stalled GPU
 * (sim seeds 10725, 6853, 9680). With #2 followed by a dropped record instead (a member
 * of a bundle whose end marker completed), nothing says so (seed 1815). */
static void a_completed_batch_behind_a_lone_pending_head_shows_an_older_dump(void **state) {
    for (int lone = 0; lone < 2; lone++) {
        job j;
        job_init(&j, 2);
        group(&j, "1", "A", "[0, 1]");
        rec(&j, 0, "1", "all_reduce", 1, "completed");
        j.nentries[0]++; /* record 1 dropped (completed): the window is not whole */
        rec(&j, 0, "1", "all_reduce", 2, "scheduled");
        if (!lone) j.nentries[0]++; /* record 3 dropped: #2's end marker, completed */
        p2p(&j, 0, "0", "send 0->1", 1, "scheduled");
        p2p(&j, 0, "0", "recv 0<-1", 1, "scheduled");
        batch_end(&j, 0, "0", 1, "scheduled");
        rec(&j, 1, "1", "all_reduce", 1, "completed");
        rec(&j, 1, "1", "all_reduce", 2, "completed");
        p2p(&j, 1, "0", "send 1->0", 1, "scheduled");
        p2p(&j, 1, "0", "recv 1<-0", 1, "scheduled");
        batch_end(&j, 1, "0", 1, "completed");
        run(&j);
        assert_int_equal(fa_stale_known(&j.a.match.rank_stale[0]), lone);
        done(&j);
    }
}

/* Rank 1 keeps no entry (only-active) in a group where send/recv ran; its pg_status says
 * "completed 2": its batch p2p #2, done (then it never issued #4), or an older dump's
 * collective #2. Ranks 0 and 2 wait in #4, rank 0's stream having completed #3, which needs
 * rank 1 too: rank 1's state in #4 is unknown, not "never issued" (sim seed 1353: rank 145
 * named beside the real culprit). Unless a group without send/recv (B) shows rank 1's dump as
 * far as its peers there (its "completed 1" where they wait in #2): its numbers elsewhere read
 * as send/recv's, and it never issued #4 (sim seed 7672: rank 20, stopped). */
static void counters_of_send_recv_or_an_older_dump_leave_later_collectives_unknown(void **state) {
    for (int current = 0; current < 2; current++) {
        job j;
        job_init(&j, 3);
        if (current) group(&j, "1", "B", "[0, 1, 2]");
        j.coll_p2p_seq = 2;
        j.first_record[0] = j.first_record[2] = 9; /* the rest completed, dropped */
        rec(&j, 0, "0", "all_reduce", 4, "started");
        rec(&j, 2, "0", "all_reduce", 4, "scheduled");
        j.coll_p2p_seq = 0;
        if (current) {
            rec(&j, 0, "1", "all_reduce", 2, "scheduled");
            rec(&j, 2, "1", "all_reduce", 2, "scheduled");
        }
        snprintf(j.status[1], sizeof j.status[1],
                 "\"0\": {\"last_enqueued_collective\": 2, \"last_started_collective\": 2, "
                 "\"last_completed_collective\": 2}%s",
                 current ? ", \"1\": {\"last_enqueued_collective\": 1, "
                           "\"last_started_collective\": 1, \"last_completed_collective\": 1}"
                         : "");
        run(&j);
        size_t op = 0;
        while (j.a.match.ops[op].is_p2p || j.a.match.ops[op].seq != 4) op++;
        assert_int_equal(fa_op_member_state(&j.a.match, &j.a.groups, op, 1),
                         current ? FA_MS_NEVER : FA_MS_STALE);
        done(&j);
    }
}

/* Rank 1 left nothing active, and its pg_status says it completed #4 in a group where no
 * send/recv ran: rank 0, whose dump stops at #2 pending, is older, not stalled: ok. Where the
 * group also carries send/recv, PyTorch's counters may hold a send/recv number: they prove
 * nothing, and rank 0's #2, which rank 1's counters complete, is a stalled GPU (mutation ro24;
 * sim seed 570's rank 13). */
static void counters_past_a_ranks_issued_work_show_it_older(void **state) {
    for (int with_p2p = 0; with_p2p < 2; with_p2p++) {
        job j;
        job_init(&j, 2);
        rec(&j, 0, "0", "all_reduce", 1, "completed");
        rec(&j, 0, "0", "all_reduce", 2, "scheduled");
        if (with_p2p) p2p(&j, 0, "0", "send 0->1", 1, "completed");
        strcpy(j.status[1], "\"0\": {\"last_enqueued_collective\": 4, "
                            "\"last_started_collective\": -1, \"last_completed_collective\": 4}");
        run(&j);
        assert_int_equal(fa_stale_known(&j.a.match.rank_stale[0]), !with_p2p);
        assert_culprits(&j, with_p2p ? FA_STATUS_HANG : FA_STATUS_OK, with_p2p ? "0" : "");
        done(&j);
    }
}

/* Ranks 0 and 1 started A #2 on their GPUs; rank 2 has it only scheduled (its stream has not
 * reached it); rank 3's dump is older than its peers' (they completed default #2 with it). The
 * waiters of A #2 wait for rank 2, which has not started it: rank 3 is presumed to have gone on,
 * and no alternative (mutation ro25; sim seed 149). */
static void a_member_not_started_is_missing_before_an_older_dump(void **state) {
    for (int listed = 0; listed < 2; listed++) { /* 1: rank 3's older dump has A #2 too (ro28) */
        job j;
        job_init(&j, 4);
        group(&j, "1", "A", "[0, 1, 2, 3]");
        coll(&j, "0", "all_reduce", 1, S("completed", "completed", "completed", "scheduled"));
        coll(&j, "1", "all_reduce", 1, S("completed", "completed", "completed", NULL));
        coll(&j, "0", "all_reduce", 2, S("completed", "completed", "completed", NULL));
        coll(&j, "1", "all_reduce", 2,
             S("started", "started", "scheduled", listed ? "scheduled" : NULL));
        run(&j);
        assert_true(fa_stale_known(&j.a.match.rank_stale[3]));
        assert_culprits(&j, FA_STATUS_HANG, "2");
        assert_int_equal(j.a.verdict.nalternatives, 0);
        done(&j);
    }
}

/* Rank 1 stopped: rank 0 waits for it in A #2. Rank 3 left no dump: rank 2 waits for it in B #2,
 * and rank 4 waits for rank 2 in D #2, which 2 never issued. Rank 3 may be blocked behind rank 1
 * (it is also missing from C #2, where rank 0 waits): beside the root the dumps show it is an
 * alternative. Rank 2, pending in B #2 on nobody but rank 3, is its victim, not a culprit for
 * rank 4's wait (mutation ro29; sim seed 129). */
static void a_victim_of_an_excused_unknown_is_no_culprit(void **state) {
    job j;
    job_init(&j, 5);
    j.group_ranks[0] = "[0, 1, 2, 3, 4]";
    group(&j, "1", "A", "[0, 1]");
    group(&j, "2", "B", "[2, 3]");
    group(&j, "3", "C", "[0, 3]");
    group(&j, "4", "D", "[2, 4]");
    j.skip[3] = 1;
    coll(&j, "0", "all_reduce", 1, S("completed", "completed", "completed", NULL, "completed"));
    coll(&j, "1", "all_reduce", 1, S("completed", "completed", NULL, NULL, NULL));
    coll(&j, "2", "all_reduce", 1, S(NULL, NULL, "completed", NULL, NULL));
    coll(&j, "3", "all_reduce", 1, S("completed", NULL, NULL, NULL, NULL));
    coll(&j, "4", "all_reduce", 1, S(NULL, NULL, "completed", NULL, "completed"));
    rec(&j, 0, "1", "all_reduce", 2, "scheduled");
    rec(&j, 0, "3", "all_reduce", 2, "scheduled");
    rec(&j, 2, "2", "all_reduce", 2, "scheduled");
    rec(&j, 4, "4", "all_reduce", 2, "scheduled");
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "1");
    assert_true(offers(&j, 3));
    done(&j);
    /* The same where rank 4 waits in D #1, D's first op: no earlier round of B and D in rank 2's
     * history says whether it reached B #2 before D #1 (fa_vo_blocked_before cannot excuse it),
     * so only its wait on the excused rank 3 keeps it from being named: a victim, named, beside
     * the root (mutation ro29 survived the case above, where that order excuses rank 2 too; sim
     * seed 10571: rank 0 named beside the culprit 53). */
    job_init(&j, 5);
    j.group_ranks[0] = "[0, 1, 2, 3, 4]";
    group(&j, "1", "A", "[0, 1]");
    group(&j, "2", "B", "[2, 3]");
    group(&j, "3", "C", "[0, 3]");
    group(&j, "4", "D", "[2, 4]");
    j.skip[3] = 1;
    coll(&j, "0", "all_reduce", 1, S("completed", "completed", "completed", NULL, "completed"));
    coll(&j, "1", "all_reduce", 1, S("completed", "completed", NULL, NULL, NULL));
    coll(&j, "2", "all_reduce", 1, S(NULL, NULL, "completed", NULL, NULL));
    coll(&j, "3", "all_reduce", 1, S("completed", NULL, NULL, NULL, NULL));
    rec(&j, 0, "1", "all_reduce", 2, "scheduled");
    rec(&j, 0, "3", "all_reduce", 2, "scheduled");
    rec(&j, 2, "2", "all_reduce", 2, "scheduled");
    rec(&j, 4, "4", "all_reduce", 1, "scheduled");
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "1");
    done(&j);
}

/* The same, one rank further: rank 4 started E #2, which rank 2 has queued behind B #2 (its wait
 * on the excused rank 3), and never issued F #2, where rank 5 waits for it: rank 4 is blocked
 * before, held up by rank 2 as rank 2 is by rank 3. Its sink holds a victim of the excused
 * unknown, so the root lies outside it: that its history excuses every candidate there (rank 4
 * alone) is no reason to name them all (mutation mu02; sim seeds 1056, 772). */
static void a_rank_held_by_an_excused_unknowns_victim_is_no_culprit(void **state) {
    job j;
    job_init(&j, 6);
    j.group_ranks[0] = "[0, 1, 2, 3, 4, 5]";
    group(&j, "1", "A", "[0, 1]");
    group(&j, "2", "B", "[2, 3]");
    group(&j, "3", "C", "[0, 3]");
    group(&j, "4", "E", "[2, 4]");
    group(&j, "5", "F", "[4, 5]");
    j.skip[3] = 1;
    coll(&j, "0", "all_reduce", 1,
         S("completed", "completed", "completed", NULL, "completed", "completed"));
    coll(&j, "1", "all_reduce", 1, S("completed", "completed", NULL, NULL, NULL, NULL));
    coll(&j, "2", "all_reduce", 1, S(NULL, NULL, "completed", NULL, NULL, NULL));
    coll(&j, "3", "all_reduce", 1, S("completed", NULL, NULL, NULL, NULL, NULL));
    coll(&j, "4", "all_reduce", 1, S(NULL, NULL, "completed", NULL, "completed", NULL));
    coll(&j, "5", "all_reduce", 1, S(NULL, NULL, NULL, NULL, "completed", "completed"));
    rec(&j, 0, "1", "all_reduce", 2, "scheduled");
    rec(&j, 0, "3", "all_reduce", 2, "scheduled");
    rec(&j, 2, "2", "all_reduce", 2, "scheduled");
    rec(&j, 2, "4", "all_reduce", 2, "scheduled");
    rec(&j, 4, "4", "all_reduce", 2, "started");
    rec(&j, 5, "5", "all_reduce", 2, "scheduled");
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "1");
    done(&j);
}

/* Rank 0 recorded a coalesced bundle all_reduce, broadcast, coalesced as #1; the rings of ranks
 * 1 and 2 wrapped inside it and kept its broadcast and marker only. The walk splits rank 0's
 * bundle where its type changes, so its all_reduce is the first call of #1 and its broadcast the
 * second, while the wrapped rings' broadcast, counted from the first entry they kept, is their
 * first: what they lost is unknown, not another operation (mutation mu01; sim seeds 106, 904,
 * where rank 0's bundle was named a type mismatch). */
static void a_ring_that_wrapped_inside_a_split_bundle_agrees(void **state) {
    job j;
    job_init(&j, 3);
    rec(&j, 0, "0", "all_reduce", 1, "completed");
    for (int r = 0; r < 3; r++) {
        j.first_record[r] = r ? 1 : 0;
        rec(&j, r, "0", "broadcast", 1, "completed");
        rec(&j, r, "0", "coalesced", 1, "completed");
        rec(&j, r, "0", "all_reduce", 2, "completed");
    }
    run(&j);
    assert_culprits(&j, FA_STATUS_OK, "");
    assert_null(finding(&j, FA_TYPE_MISMATCH));
    done(&j);
}

/* A recorder communicator of three, members unlisted: ranks 0 and 2 place themselves in it,
 * rank 1 left no dump, and rank 3's dump lists its communicators without this one, so it is no
 * member: the unknown slot is rank 1's, and rank 1 is the culprit (mutation ro30; sim seed 417:
 * before, every rank with a dump elsewhere was a candidate, the slot stayed unknown and the
 * victims were named). */
static void a_dump_that_lists_its_communicators_is_no_missing_member(void **state) {
    job j;
    job_init(&j, 4);
    group(&j, "5", "undefined", "[]");
    j.skip[1] = 1;
    coll(&j, "0", "all_reduce", 1, S("completed", NULL, "completed", "completed"));
    rec(&j, 0, "5", "all_reduce", 1, "scheduled");
    rec(&j, 2, "5", "all_reduce", 1, "scheduled");
    rec(&j, 3, "0", "all_reduce", 2, "scheduled"); /* rank 3 waits for the others */
    const char *comm = "{\"comms\": {\"%s\": {\"comm_rank\": %d, \"comm_size\": %d, \"parent\": "
                       "null, \"color\": -1, \"nccl_hash\": \"0x%s\", \"state\": \"live\"}}, "
                       "\"global_rank\": %d, \"trigger\": \"timeout\", \"version\": \"1\"}";
    snprintf(j.frtrace[0], sizeof j.frtrace[0], comm, "5", 0, 3, "5", 0);
    snprintf(j.frtrace[2], sizeof j.frtrace[2], comm, "5", 2, 3, "5", 2);
    snprintf(j.frtrace[3], sizeof j.frtrace[3], comm, "6", 0, 1, "6", 3);
    run(&j);
    long g = -1;
    for (size_t i = 0; i < j.a.groups.n; i++)
        if (strcmp(j.a.groups.v[i].id, "5") == 0) g = (long)i;
    assert_true(g >= 0);
    assert_int_equal(j.a.groups.v[g].nmembers, 3);
    assert_int_equal(j.a.groups.v[g].members[1], 1);
    assert_culprits(&j, FA_STATUS_HANG, "1");
    done(&j);
}

/* Rank 0 started A #2 on its GPU; rank 1 has it only scheduled, its stream blocked in B #2, where
 * it waits for rank 2, which left no dump. Rank 0 waits for rank 1 (the wait chain says so): it
 * is no rank "waiting for nobody", and the verdict names rank 2 instead of calling a stopped rank
 * and a lost dump alike (mutation ro31; sim seed 417). */
static void a_rank_started_where_a_peer_is_only_scheduled_waits_for_it(void **state) {
    job j;
    job_init(&j, 3);
    group(&j, "1", "A", "[0, 1]");
    group(&j, "2", "B", "[1, 2]");
    j.skip[2] = 1;
    coll(&j, "0", "all_reduce", 1, S("completed", "completed", NULL));
    coll(&j, "1", "all_reduce", 1, S("completed", "completed", NULL));
    coll(&j, "2", "all_reduce", 1, S(NULL, "completed", NULL));
    rec(&j, 1, "2", "all_reduce", 2, "started");
    coll(&j, "1", "all_reduce", 2, S("started", "scheduled", NULL));
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "2");
    assert_true(fa_ranks_contains(&j.a.verdict.levels[2].ranks, 0));
    done(&j);
}

/* Rank 1's stream waits at its head, A #2, for rank 2, which never issued it (idle: stopped).
 * B #2, queued behind on rank 1, has rank 0 as its other member, which left no dump: nobody waits
 * in B #2 yet (a rank waits in its oldest unfinished launch, tests/sim's W1), so rank 0 explains
 * no wait and is not named beside rank 2 (mutations mq01, mq03; sim seeds 2176, 277). */
static void a_member_of_an_op_queued_behind_a_surer_wait_is_no_culprit(void **state) {
    job j;
    job_init(&j, 3);
    group(&j, "1", "A", "[1, 2]");
    group(&j, "2", "B", "[0, 1]");
    j.skip[0] = 1;
    coll(&j, "1", "all_reduce", 1, S(NULL, "completed", "completed"));
    coll(&j, "2", "all_reduce", 1, S(NULL, "completed", NULL));
    rec(&j, 1, "1", "all_reduce", 2, "started");
    rec(&j, 1, "2", "all_reduce", 2, "scheduled");
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "2");
    done(&j);
}

/* A pipeline pair: rank 0's send #5 is pending, and rank 1's dump (only what is still pending:
 * record ids from 7) holds no recv #5, only its later send #6. Its pg_status, which numbers only
 * send/recv in a group where it ran no collective, says #5 completed: rank 1 received it, and
 * rank 0's GPU stalled in its send; rank 1 did not "never post" it (mutation p4a; sim seed
 * 1810). */
static void pg_status_says_a_dropped_recv_completed(void **state) {
    job j;
    job_init(&j, 2);
    group(&j, "1", "PP", "[0, 1]");
    j.first_record[0] = 6;
    p2p(&j, 0, "1", "send 0->1", 5, "scheduled");
    p2p(&j, 0, "1", "recv 0<-1", 6, "scheduled");
    j.first_record[1] = 7;
    p2p(&j, 1, "1", "send 1->0", 6, "scheduled");
    strcpy(j.status[0], "\"1\": {\"last_enqueued_collective\": 6, "
                        "\"last_started_collective\": -1, \"last_completed_collective\": 4}");
    strcpy(j.status[1], "\"1\": {\"last_enqueued_collective\": 6, "
                        "\"last_started_collective\": -1, \"last_completed_collective\": 5}");
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "0");
    done(&j);
}

/* A pipeline pair: rank 0's send #4 to rank 1 is pending, and rank 1's window holds no entry of
 * the pair's group at all (an only-active dump dropped what completed). Rank 0's entries there
 * carry collective_seq_id 0: no collective ran in the group before them, and none completes on
 * rank 1 without rank 0, so rank 1's "completed 4" is its send/recv number: it received #4, and
 * rank 0's GPU stalled in its send; rank 1 did not "never post" it (mutation sg01; sim seed 3347,
 * two_faults 6035). */
static void pg_status_of_a_peer_without_entries_says_its_recv_completed(void **state) {
    job j;
    job_init(&j, 2);
    group(&j, "1", "PP", "[0, 1]");
    coll(&j, "0", "all_reduce", 1, S("completed", "completed"));
    p2p(&j, 0, "1", "send 0->1", 4, "started");
    strcpy(j.status[1], "\"1\": {\"last_enqueued_collective\": 4, "
                        "\"last_started_collective\": -1, \"last_completed_collective\": 4}");
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "0");
    assert_non_null(strstr(j.a.verdict.summary, "stalled"));
    done(&j);
}

/* A pipeline pair whose p2p_seq_ids count alike: rank 0's send #5 to rank 1 completed, so rank 1
 * had posted its recv #5; rank 1's ring (record ids from 3, no gap, not cut) shows its send/recv
 * there up to #4 and nothing after: its dump was written before, and is older (mutation sg02; sim
 * seed 4201, where the older dump beside a lost one makes "4 or 5"). */
static void a_completed_send_past_a_gapless_window_shows_its_dump_older(void **state) {
    job j;
    job_init(&j, 2);
    group(&j, "1", "PP", "[0, 1]");
    rec(&j, 0, "0", "all_reduce", 1, "completed");
    p2p(&j, 0, "1", "send 0->1", 5, "completed");
    p2p(&j, 0, "1", "recv 0<-1", 6, "scheduled");
    j.first_record[1] = 3;
    p2p(&j, 1, "1", "send 1->0", 4, "completed");
    rec(&j, 1, "0", "all_reduce", 1, "completed");
    run(&j);
    assert_true(fa_stale_known(&j.a.match.rank_stale[1]));
    assert_false(fa_stale_known(&j.a.match.rank_stale[0]));
    done(&j);
}

/* Rank 2 crashed (its recorder dump says fatal:11) before all_reduce #2 of the default group,
 * which rank 0 has queued behind its recv #1 from rank 1, which rank 1 never posted (it stopped).
 * Nobody waits in #2 yet (tests/sim's W1: a rank waits in its oldest pending launch), so the
 * crash explains no wait: rank 1 is the culprit, rank 2 is not named beside it (mutation sg03;
 * sim seed 10673). */
static void a_crash_before_an_op_nobody_waits_in_yet_explains_no_wait(void **state) {
    job j;
    job_init(&j, 3);
    group(&j, "1", "PP", "[0, 1]");
    coll(&j, "0", "all_reduce", 1, S("completed", "completed", "completed"));
    p2p(&j, 0, "1", "recv 0<-1", 1, "scheduled");
    rec(&j, 0, "0", "all_reduce", 2, "scheduled");
    strcpy(j.frtrace[2], "{\"global_rank\": 2, \"trigger\": \"fatal:11\", \"version\": \"1\"}");
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "1");
    done(&j);
}

/* gloo: rank 3's newest all_reduce #2 retired (finished or failed), rank 2 idle after #1 never
 * issued it, rank 0 left no file, rank 1's file is unreadable. The op failed on the dead member:
 * rank 0. Rank 1 lived to write its file, so it did not die in #2, and rank 3 no longer waits
 * for it there (sim seed 11823: ranks 0,1 were named). */
static void a_failed_gloo_op_waits_on_the_dead_not_on_an_unreadable_file(void **state) {
    job j;
    job_init(&j, 4);
    j.backend = "gloo";
    coll(&j, "0", "all_reduce", 1, S(NULL, NULL, "completed", "completed"));
    rec(&j, 3, "0", "all_reduce", 2, "completed");
    j.skip[0] = 1;
    j.skip[1] = 2;
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "0");
    done(&j);
}

/* Rank 1 crashed (fatal:11) with all_reduce #2 of its pair with rank 0 pending; rank 0, idle,
 * never issued it. A dead rank waits for nobody: rank 0 explains no wait there. Rank 2 waits in
 * its pair's all_reduce #1 for rank 3, which never issued it: rank 3 alone is the culprit (sim
 * seed 12527: rank 0, whose CPU stopped, was named beside the stalled rank). */
static void a_crash_pending_alone_waits_for_nobody(void **state) {
    job j;
    job_init(&j, 4);
    group(&j, "1", "PP", "[0, 1]");
    group(&j, "2", "TP", "[2, 3]");
    coll(&j, "0", "all_reduce", 1, S("completed", "completed", "completed", "completed"));
    coll(&j, "1", "all_reduce", 1, S("completed", "completed", NULL, NULL));
    rec(&j, 1, "1", "all_reduce", 2, "scheduled");
    rec(&j, 2, "2", "all_reduce", 1, "started");
    strcpy(j.frtrace[1], "{\"global_rank\": 1, \"trigger\": \"fatal:11\", \"version\": \"1\"}");
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "3");
    done(&j);
}

/* A collective entry carries its group's send/recv count so far: rank 0's only-active dump keeps
 * only broadcast #2 of its pair, started, carrying p2p #1: it issued its end of batch #1 before,
 * and the pair's stream ran it before starting #2. Rank 1's batch #1 is still pending though
 * rank 0 did its end, and rank 2 waits for rank 1 in their DP all_reduce #1: rank 1 is the
 * culprit, rank 0 is not (sim seed 11349: "rank 0 never posted p2p #1", both named). */
static void a_started_collective_carrying_a_send_recv_count_ran_it(void **state) {
    job j;
    job_init(&j, 3);
    group(&j, "1", "TP", "[0, 1]");
    group(&j, "2", "DP", "[1, 2]");
    coll(&j, "0", "all_reduce", 1, S("completed", "completed", "completed"));
    j.first_record[0] = 5;
    j.coll_p2p_seq = 1;
    rec(&j, 0, "1", "broadcast", 2, "started");
    j.coll_p2p_seq = 0;
    j.p2p_coll_seq = 1;
    p2p(&j, 1, "1", "send 1->0", 1, "started");
    p2p(&j, 1, "1", "recv 1<-0", 1, "started");
    batch_end(&j, 1, "1", 1, "started");
    j.coll_p2p_seq = 1;
    rec(&j, 1, "1", "broadcast", 2, "scheduled");
    j.coll_p2p_seq = 0;
    rec(&j, 2, "2", "all_reduce", 1, "started");
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "1");
    done(&j);
}

/* Rank 1's batch receives from rank 0, whose batch completed, and sends to rank 2, idle, whose
 * only-active dump shows nothing. The transfer with rank 0 ran on the wire: it cannot hold rank
 * 1's batch, so rank 2 cannot have done its end unseen: rank 1 waits for rank 2, the culprit
 * (sim seed 11937: ranks 9, 11 named beside 10). */
static void a_transfer_done_on_the_wire_holds_no_batch(void **state) {
    job j;
    job_init(&j, 3);
    j.p2p_coll_seq = 1;
    p2p(&j, 0, "0", "send 0->1", 1, "completed");
    batch_end(&j, 0, "0", 1, "completed");
    p2p(&j, 1, "0", "recv 1<-0", 1, "scheduled");
    p2p(&j, 1, "0", "send 1->2", 1, "scheduled");
    batch_end(&j, 1, "0", 1, "started");
    j.first_record[2] = 3;
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "2");
    done(&j);
}

/* Ranks 1 and 2 each send to the other and receive from rank 0 in one batch, every end started;
 * rank 0, idle, its only-active dump showing nothing. The transfer between 1 and 2 runs at both
 * sides: nothing but a failed GPU or network holds it, so it cannot hold their batches while 0
 * did its ends unseen: 0 never posted them, the culprit (sim seed 22378: read as "started on
 * every member and never completed, suspect GPU or network", nobody named). */
static void a_transfer_running_at_both_sides_holds_no_batch(void **state) {
    job j;
    job_init(&j, 3);
    j.p2p_coll_seq = 1;
    p2p(&j, 1, "0", "send 1->2", 1, "started");
    p2p(&j, 1, "0", "recv 1<-0", 1, "started");
    batch_end(&j, 1, "0", 1, "started");
    p2p(&j, 2, "0", "send 2->0", 1, "started");
    p2p(&j, 2, "0", "recv 2<-1", 1, "started");
    batch_end(&j, 2, "0", 1, "started");
    j.first_record[0] = 3;
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "0");
    done(&j);
}

/* Rank 2 crashed (fatal:11) while it waited, at its stream's head, in all_to_all #1 of group
 * "2" with rank 1, which has that op queued behind its own head: all_reduce #1 of group "1",
 * where ranks 0 and 1 wait for rank 3, which left no dump. Nobody's head waits on rank 2 (tests/
 * sim's W1), neither there nor in the default group's all_reduce #2, queued on 0 and 1 and never
 * issued by 2: the crash explains no wait, rank 3 does (sim seed 5696: rank 9 was named). */
static void a_crash_at_a_head_that_peers_queued_behind_a_wait_explains_no_wait(void **state) {
    job j;
    job_init(&j, 4);
    group(&j, "1", "TP", "[0, 1, 3]");
    group(&j, "2", "EP", "[1, 2]");
    coll(&j, "0", "all_reduce", 1, S("completed", "completed", "completed", NULL));
    rec(&j, 0, "1", "all_reduce", 1, "started");
    rec(&j, 1, "1", "all_reduce", 1, "started");
    rec(&j, 1, "2", "all_to_all", 1, "scheduled");
    rec(&j, 2, "2", "all_to_all", 1, "started");
    rec(&j, 0, "0", "all_reduce", 2, "scheduled");
    rec(&j, 1, "0", "all_reduce", 2, "scheduled");
    j.skip[3] = 1;
    strcpy(j.frtrace[2], "{\"global_rank\": 2, \"trigger\": \"fatal:11\", \"version\": \"1\"}");
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "3");
    done(&j);
}

/* Recorder pairs "5" (rank 0 and a slot no dump names) and "6" (the same, with rank 3); ranks 1
 * and 2 left no dump. Rank 0 waits in all_reduce #1 of "5" for whichever of them is its
 * partner; rank 3 crashed (fatal:11) in all_reduce #1 of "6", where it alone is pending: a crashed
 * rank waits on nobody, so nobody waits there for the slot's rank, and the crash explains no wait
 * (nothing the dumps show puts 1 or 2 behind it). Not a collective stuck on every member, nor both
 * 1 and 2 named where one slot waits: inconclusive, naming nobody (sim seed 1796). */
static void a_slot_waited_beside_a_crash_nobody_waits_on_is_no_stuck_collective(void **state) {
    job j;
    job_init(&j, 4);
    group(&j, "5", "undefined", "[]");
    group(&j, "6", "undefined", "[]");
    j.unmade[0] = "6";
    j.unmade[3] = "5";
    coll(&j, "0", "all_reduce", 1, S("completed", NULL, NULL, "completed"));
    rec(&j, 0, "5", "all_reduce", 1, "started");
    rec(&j, 3, "6", "all_reduce", 1, "started");
    j.skip[1] = j.skip[2] = 1;
    strcpy(j.frtrace[0], "{\"comms\": {\"5\": {\"comm_rank\": 0, \"comm_size\": 2, "
                         "\"state\": \"live\"}}, \"global_rank\": 0, \"trigger\": "
                         "\"trigger_file\", \"version\": \"1\"}");
    strcpy(j.frtrace[3], "{\"comms\": {\"6\": {\"comm_rank\": 1, \"comm_size\": 2, "
                         "\"state\": \"live\"}}, \"global_rank\": 3, \"trigger\": "
                         "\"fatal:11\", \"version\": \"1\"}");
    run(&j);
    assert_culprits(&j, FA_STATUS_INCONCLUSIVE, "");
    done(&j);
}

/* Recorder pair "5": rank 3 and a slot no dump names; ranks 1 and 2 left no dump. Rank 3 waits in
 * all_reduce #1 of "5" for whichever of them is its partner, with all_reduce #1 of its pair "7"
 * with rank 0 queued behind; rank 0 is pending there, its oldest op, and rank 4 waits for rank 0
 * in their pair "6", in a recv whose send rank 0 never posted. Rank 0's wait leads to a rank
 * without a dump, but which one the dumps do not say: the other may be the lost dump of a rank
 * blocked behind a rank 0 that stopped. Neither 1 nor 2 is named, nor both: inconclusive, rank 0
 * the rank that waits for nobody (mutations ls04, lw04; sim seeds 13594, 15622, held out:
 * "ranks 2,11" and "2,4" where one slot waits). */
static void a_rank_waited_for_behind_an_open_slot_may_have_stopped(void **state) {
    job j;
    job_init(&j, 5);
    j.group_ranks[0] = "[0, 1, 2, 3, 4]";
    group(&j, "5", "undefined", "[]");
    group(&j, "6", "undefined", "[0, 4]");
    group(&j, "7", "undefined", "[0, 3]");
    j.unmade[0] = j.unmade[4] = "5";
    coll(&j, "0", "all_reduce", 1, S("completed", NULL, NULL, "completed", "completed"));
    rec(&j, 3, "5", "all_reduce", 1, "scheduled");
    coll(&j, "7", "all_reduce", 1, S("scheduled", NULL, NULL, "scheduled", NULL));
    p2p(&j, 4, "6", "recv 1<-0", 1, "scheduled");
    j.skip[1] = j.skip[2] = 1;
    strcpy(j.frtrace[3], "{\"comms\": {\"5\": {\"comm_rank\": 0, \"comm_size\": 2, "
                         "\"state\": \"live\"}}, \"global_rank\": 3, \"trigger\": "
                         "\"trigger_file\", \"version\": \"1\"}");
    run(&j);
    assert_culprits(&j, FA_STATUS_INCONCLUSIVE, "");
    assert_non_null(strstr(j.a.verdict.summary, "while rank 0 waits for nobody"));
    done(&j);
}

/* Rank 0 waits in all_reduce #1 of its pair with rank 1, which left no dump; rank 3 crashed
 * (fatal:11) in all_reduce #1 of its pair with rank 1, where nobody waits on it. Rank 1 may have
 * stopped, or sat blocked behind the crash: a hang, rank 1 or 3, never "ok" because the crash
 * (a root of nothing anyone is seen waiting in) seemed to explain rank 1 (sim seed 19103, held
 * out, where the job read as healthy). */
static void a_lost_rank_beside_a_crash_nobody_waits_on_is_no_healthy_job(void **state) {
    job j;
    job_init(&j, 4);
    group(&j, "1", "undefined", "[0, 1]");
    group(&j, "2", "undefined", "[1, 3]");
    coll(&j, "0", "all_reduce", 1, S("completed", NULL, "completed", "completed"));
    rec(&j, 0, "1", "all_reduce", 1, "started");
    rec(&j, 3, "2", "all_reduce", 1, "started");
    j.skip[1] = 1;
    strcpy(j.frtrace[0], "{\"global_rank\": 0, \"trigger\": \"timeout\", \"version\": \"1\"}");
    strcpy(j.frtrace[3], "{\"global_rank\": 3, \"trigger\": \"fatal:11\", \"version\": \"1\"}");
    run(&j);
    assert_int_equal(j.a.verdict.status, FA_STATUS_HANG);
    assert_true(fa_ranks_contains(&j.a.verdict.culprits, 1) || offers(&j, 1));
    done(&j);
}

/* Rank 2 crashed (fatal:11) after all_reduce #1; ranks 0 and 1 wait in #2, and rank 1's
 * communicator reports ncclRemoteError, what NCCL tells the survivors of a peer that died: the
 * crash explains it, rank 2 is the culprit and rank 1 a victim (mutation ae01; random recorder
 * jobs 244, 270). Without the crash (rank 2 waits in #2 too), the same error is rank 1's own: it
 * is the culprit. A CUDA error of its own GPU is never a peer's: beside the crash, both are
 * named (ae02). */
static void a_remote_error_beside_a_crash_is_the_crash(void **state) {
    static const struct {
        int crash;
        const char *error, *culprits;
    } cases[] = { { 1, "ncclRemoteError", "2" },
                  { 0, "ncclRemoteError", "1" },
                  { 1, "ncclUnhandledCudaError", "1,2" } };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        job j;
        job_init(&j, 3);
        coll(&j, "0", "all_reduce", 1, S("completed", "completed", "completed"));
        coll(&j, "0", "all_reduce", 2,
             S("scheduled", "scheduled", cases[i].crash ? NULL : "scheduled"));
        snprintf(j.frtrace[1], sizeof j.frtrace[1],
                 "{\"global_rank\": 1, \"trigger\": \"timeout\", \"version\": \"1\", "
                 "\"comms\": {\"0\": {\"comm_rank\": 1, \"comm_size\": 3, "
                 "\"state\": \"async_error:%s\"}}}",
                 cases[i].error);
        if (cases[i].crash)
            strcpy(j.frtrace[2],
                   "{\"global_rank\": 2, \"trigger\": \"fatal:11\", \"version\": \"1\"}");
        run(&j);
        assert_culprits(&j, FA_STATUS_HANG, cases[i].culprits);
        done(&j);
    }
}

/* Pipeline stages 0, 1, 2 run batches of one send/recv; PyTorch leaves their entries "scheduled"
 * and an only-active dump drops each batch's completed end marker, so nothing beside an entry
 * says it sits in a batch. Each rank's pg_status says the group's last enqueued work, its newest
 * send/recv, completed: a lone send/recv that completed would be dumped "completed", so those
 * are batches, done on the group's stream after every earlier one. Rank 1's window starts later
 * than rank 0's (a ring): paired by order, rank 0's send #3 of [[4]] would meet rank 1's recv #9
 * of [[8]], a size mismatch nobody made. Rank 2 never issued all_reduce #2, which 0 and 1 wait
 * in (mutation sg05; sim seeds 3962, 5219). */
static void a_pending_batch_of_one_done_by_its_own_counters(void **state) {
    job j;
    job_init(&j, 3);
    group(&j, "1", "PP", "[0, 1, 2]");
    static const struct {
        int rank, seq;
        const char *what, *sizes;
    } p[] = { { 0, 3, "send 0->1", "[[4]]" },   { 0, 4, "recv 0<-1", "[[4]]" },
              { 0, 5, "send 0->1", "[[8]]" },   { 0, 6, "recv 0<-1", "[[16]]" },
              { 1, 8, "send 1->0", "[[4]]" },   { 1, 9, "recv 1<-0", "[[8]]" },
              { 1, 10, "send 1->2", "[[8]]" },  { 1, 11, "recv 1<-2", "[[16]]" },
              { 1, 12, "send 1->0", "[[16]]" }, { 2, 5, "recv 2<-1", "[[8]]" },
              { 2, 6, "send 2->1", "[[16]]" } };
    for (size_t i = 0; i < sizeof p / sizeof *p; i++) {
        j.p2p_sizes = p[i].sizes;
        p2p(&j, p[i].rank, "1", p[i].what, p[i].seq, "scheduled");
    }
    coll(&j, "0", "all_reduce", 1, S("completed", "completed", "completed"));
    rec(&j, 0, "0", "all_reduce", 2, "scheduled");
    rec(&j, 1, "0", "all_reduce", 2, "scheduled");
    static const char *const fmt =
        "\"0\": {\"last_enqueued_collective\": %d, \"last_started_collective\": -1, "
        "\"last_completed_collective\": 1}, \"1\": {\"last_enqueued_collective\": %d, "
        "\"last_started_collective\": -1, \"last_completed_collective\": %d}";
    snprintf(j.status[0], sizeof j.status[0], fmt, 2, 6, 6);
    snprintf(j.status[1], sizeof j.status[1], fmt, 2, 12, 12);
    snprintf(j.status[2], sizeof j.status[2], fmt, 1, 6, 6);
    run(&j);
    assert_null(finding(&j, FA_SIZE_MISMATCH));
    assert_culprits(&j, FA_STATUS_HANG, "2");
    done(&j);
}

/* Rank 1 issued all_reduce #1 on its pipeline group after its batches of one recv (left
 * "scheduled", markers dropped): its pg_status's last enqueued is that collective, its newest
 * entry there, and its last completed, 2, above every collective number it issued there, is a
 * send/recv's: its recvs #1 and #2 are done, as rank 0's sends are by its own counters, so that
 * rank 0's pending send #3 is not paired with a recv rank 1 finished (mutation sg09; sim seed
 * 5419, where the sides' mixed states made a size mismatch). */
static void a_collective_after_the_batches_is_their_ranks_last_enqueued(void **state) {
    job j;
    job_init(&j, 3);
    group(&j, "1", "PP", "[0, 1, 2]");
    coll(&j, "0", "all_reduce", 1, S("completed", "completed", "completed"));
    j.p2p_sizes = "[[1]]";
    p2p(&j, 0, "1", "send 0->1", 1, "scheduled");
    p2p(&j, 1, "1", "recv 1<-0", 1, "scheduled");
    j.p2p_sizes = "[[8]]";
    p2p(&j, 0, "1", "send 0->1", 2, "scheduled");
    p2p(&j, 1, "1", "recv 1<-0", 2, "scheduled");
    j.p2p_sizes = "[[4]]";
    p2p(&j, 0, "1", "send 0->1", 3, "scheduled");
    batch_end(&j, 0, "1", 3, "scheduled");
    j.coll_p2p_seq = 2;
    rec(&j, 1, "1", "all_reduce", 1, "scheduled");
    static const char *const fmt =
        "\"0\": {\"last_enqueued_collective\": 1, \"last_started_collective\": -1, "
        "\"last_completed_collective\": 1}, \"1\": {\"last_enqueued_collective\": %d, "
        "\"last_started_collective\": -1, \"last_completed_collective\": 2}";
    snprintf(j.status[0], sizeof j.status[0], fmt, 3);
    snprintf(j.status[1], sizeof j.status[1], fmt, 1);
    run(&j);
    for (size_t op = 0; op < j.a.match.nops; op++) {
        const fa_call *c = fa_op_call(&j.a.match, op, 1);
        if (j.a.match.ops[op].is_p2p && c) assert_int_equal(c->state, FR_STATE_COMPLETED);
    }
    assert_null(finding(&j, FA_SIZE_MISMATCH));
    done(&j);
}

/* PyTorch's pg_status numbers a collective by its collective_seq_id and a batch by its
 * p2p_seq_id: rank 0's "completed 1" is its all_reduce #1, not its batch #1 (send to 1, recv
 * from 2, its end marker still pending), whose entries carry collective count 1: the batch stays
 * pending, and ranks 1 and 2, idle, never posted their ends (mutation sg08; sim seed 684, where
 * the batch was read as done and the job as ok). */
static void a_collective_number_completed_is_no_batch_of_that_number(void **state) {
    job j;
    job_init(&j, 3);
    coll(&j, "0", "all_reduce", 1, S("completed", "completed", "completed"));
    j.p2p_coll_seq = 1;
    p2p(&j, 0, "0", "send 0->1", 1, "scheduled");
    p2p(&j, 0, "0", "recv 0<-2", 1, "scheduled");
    batch_end(&j, 0, "0", 1, "scheduled");
    strcpy(j.status[0], "\"0\": {\"last_enqueued_collective\": 1, "
                        "\"last_started_collective\": -1, \"last_completed_collective\": 1}");
    run(&j);
    for (size_t op = 0; op < j.a.match.nops; op++)
        if (j.a.match.ops[op].is_p2p) {
            const fa_call *c = fa_op_call(&j.a.match, op, 0);
            assert_non_null(c);
            assert_int_not_equal(c->state, FR_STATE_COMPLETED);
        }
    assert_int_equal(j.a.verdict.status, FA_STATUS_HANG);
    done(&j);
}

/* Rank 1's recorder dump holds its whole history (record ids from 0, entries completed: no
 * only-active dump) and one send to its pipeline peer 0, whose ring shows two recvs from 1
 * completed: each had its send on the wire, so rank 1 sent again after its dump was written,
 * which is older than rank 0's. Its all_reduce #1, still started, is no stalled GPU though rank
 * 0 completed it (mutation sg06; sim seed 10130, where the recorder's launch numbers leave the
 * pair's ids unaligned). */
static void a_whole_history_with_fewer_sends_than_its_peer_received_is_older(void **state) {
    job j;
    job_init(&j, 3);
    group(&j, "1", "PP", "[0, 1]");
    for (int r = 0; r < 2; r++)
        snprintf(j.frtrace[r], sizeof j.frtrace[r], "{\"global_rank\": %d, \"version\": \"1\"}", r);
    j.first_record[0] = 3;
    p2p(&j, 0, "1", "recv 0<-1", 2, "completed");
    p2p(&j, 0, "1", "recv 0<-1", 3, "completed");
    rec(&j, 0, "0", "all_reduce", 1, "completed");
    rec(&j, 0, "0", "all_reduce", 2, "scheduled");
    p2p(&j, 1, "1", "send 1->0", 1, "completed");
    rec(&j, 1, "0", "all_reduce", 1, "started");
    j.skip[2] = 1;
    run(&j);
    assert_true(fa_stale_known(&j.a.match.rank_stale[1]));
    assert_false(fa_stale_known(&j.a.match.rank_stale[0]));
    assert_culprits(&j, FA_STATUS_HANG, "2");
    done(&j);
    /* an only-active dump (nothing in it completed) may have dropped its newest records, sends
     * that completed among them: no proof of an older dump (mutation sg07) */
    job_init(&j, 3);
    group(&j, "1", "PP", "[0, 1]");
    for (int r = 0; r < 2; r++)
        snprintf(j.frtrace[r], sizeof j.frtrace[r], "{\"global_rank\": %d, \"version\": \"1\"}", r);
    j.first_record[0] = 3;
    p2p(&j, 0, "1", "recv 0<-1", 2, "completed");
    p2p(&j, 0, "1", "recv 0<-1", 3, "completed");
    rec(&j, 0, "0", "all_reduce", 2, "scheduled");
    p2p(&j, 1, "1", "send 1->0", 1, "scheduled");
    rec(&j, 1, "0", "all_reduce", 1, "started");
    j.skip[2] = 1;
    run(&j);
    assert_false(fa_stale_known(&j.a.match.rank_stale[1]));
    done(&j);
}

/* Two ranks, all_reduce #1 and #2 completed on both; rank 0 completed #3 and has #4 scheduled;
 * rank 1's dump cut inside its entries after #2, its pg_status (whole, written before the
 * entries) saying it enqueued #4 and completed `completed`. Run. */
static void run_cut_after_two_all_reduces(job *j, int completed) {
    job_init(j, 2);
    coll(j, "0", "all_reduce", 1, S("completed", "completed"));
    coll(j, "0", "all_reduce", 2, S("completed", "completed"));
    rec(j, 0, "0", "all_reduce", 3, "completed");
    rec(j, 0, "0", "all_reduce", 4, "scheduled");
    j->skip[1] = 4;
    snprintf(j->status[1], sizeof j->status[1],
             "\"0\": {\"last_enqueued_collective\": 4, \"last_started_collective\": -1, "
             "\"last_completed_collective\": %d}",
             completed);
    run(j);
}

/* Rank 1's dump was cut inside its entries after all_reduce #2 (its pg_config and pg_status,
 * written before the entries as in a torch pickle, are whole): its counters say it issued #3 and
 * completed #2, and rank 0 completed #3. Rank 1's GPU stalled in #3: it is named, the job is not
 * "ok, in flight" (mutation sg04; sim seed 9877). */
static void a_cut_dump_whose_counters_lag_is_a_stalled_gpu(void **state) {
    job j;
    run_cut_after_two_all_reduces(&j, 2);
    assert_culprits(&j, FA_STATUS_HANG, "1");
    done(&j);
}

/* The same job, rank 1's counters "enqueued 4, completed 1" below the all_reduce #2 its own
 * entries show completed: they number something else than its collectives (PyTorch gives a
 * send/recv batch the group's send/recv number), so they are no proof that #3 did not complete
 * on it: no stalled GPU is read from them (mutation pq09; sim seed 13374: rank 20's cut dump,
 * "completed 2" after its batch #2, named stalled in #4 beside 55 ranks saying the same). */
static void a_cut_dump_whose_counters_trail_its_entries_shows_no_lag(void **state) {
    job j;
    run_cut_after_two_all_reduces(&j, 1);
    assert_null(finding(&j, FA_STATE_MISMATCH));
    done(&j);
}

/* Three ranks; rank 2 was killed before all_reduce #2 (no dump). Rank 1 waits in #2. Rank 0's
 * dump was cut inside its first entry, its pg_status (whole, before the entries, as in a torch
 * pickle) saying it enqueued #2 and completed #1: it is in flight in #2 like rank 1, a waiter,
 * not a rank that may have stopped before it. Rank 2 alone explains the wait (sim seeds 975,
 * 9718; an earlier reading offered "rank 0 or 2"). */
static void a_cut_dump_in_flight_by_its_counters_is_no_stopped_rank(void **state) {
    job j;
    job_init(&j, 3);
    coll(&j, "0", "all_reduce", 1, S(NULL, "completed", NULL));
    rec(&j, 1, "0", "all_reduce", 2, "started");
    j.skip[0] = 4;
    j.skip[2] = 1;
    snprintf(j.status[0], sizeof j.status[0],
             "\"0\": {\"last_enqueued_collective\": 2, \"last_started_collective\": -1, "
             "\"last_completed_collective\": 1}");
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "2");
    assert_false(offers(&j, 0));
    done(&j);
}

/* The same kind of cut dump, but its rank is waited for where it issued nothing: ranks 0 and 3
 * wait in the world's all_reduce #2 for ranks 1 and 2; rank 2 was killed (no dump); rank 1's
 * dump, cut inside its first entry, says by its counters that it is in flight in its pair's #2
 * with rank 3 and enqueued only #1 in the world. NCCL returns at once: its CPU may have stopped
 * after the pair's #2, before the world's #2, so rank 1 stays offered beside rank 2 (sim seed
 * 3482). */
static void a_cut_dump_in_flight_elsewhere_stays_offered_where_it_is_waited_for(void **state) {
    job j;
    job_init(&j, 4);
    group(&j, "1", "pair", "[1, 3]");
    rec(&j, 3, "1", "all_reduce", 1, "completed");
    rec(&j, 3, "1", "all_reduce", 2, "scheduled");
    coll(&j, "0", "all_reduce", 1, S("completed", NULL, NULL, "completed"));
    coll(&j, "0", "all_reduce", 2, S("started", NULL, NULL, "scheduled"));
    j.skip[1] = 4;
    j.skip[2] = 1;
    snprintf(j.status[1], sizeof j.status[1],
             "\"0\": {\"last_enqueued_collective\": 1, \"last_started_collective\": -1, "
             "\"last_completed_collective\": 1}, \"1\": {\"last_enqueued_collective\": 2, "
             "\"last_started_collective\": -1, \"last_completed_collective\": 1}");
    run(&j);
    assert_true(offers(&j, 1));
    done(&j);
}

/* Shard pairs {0,1} and {2,3}. Rank 3 was killed before their all_reduce #2 (no dump), where
 * rank 2 waits. Rank 0 completed #1-#3 with rank 1, whose JSON dump was cut after #1 (no
 * pg_status): rank 1 joined #3, so it went past the point where rank 3 is waited for and cannot
 * hold it up; nothing seen is a stopped rank beside the lost one: rank 3 is named, the verdict
 * is not "a stopped rank or a lost dump?" (sim seed 7603). */
static void a_cut_rank_its_peer_completed_past_the_lost_one_is_no_doubt(void **state) {
    job j;
    job_init(&j, 4);
    group(&j, "1", "shard", "[0, 1]");
    group(&j, "1", "shard", "[2, 3]");
    coll(&j, "1", "all_reduce", 1, S("completed", "completed", "completed", NULL));
    rec(&j, 0, "1", "all_reduce", 2, "completed");
    rec(&j, 0, "1", "all_reduce", 3, "completed");
    rec(&j, 2, "1", "all_reduce", 2, "started");
    j.skip[1] = 3;
    j.skip[3] = 1;
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "3");
    done(&j);
}

/* Pipeline pair {1,3}, expert pair {0,1}, data pair {0,2}. Rank 3 was killed (no dump): rank 1's
 * send to it is pending, the expert pair's all_reduce #1 queued behind it; rank 0 is pending in
 * that all_reduce, its oldest op; rank 2 waits in the data pair's all_reduce #1, which rank 0
 * never issued. Rank 0's wait leads through rank 1's stream to rank 3: whatever its CPU did after
 * (a synchronize, most often), it is rank 3's victim, and rank 2 waiting for it makes it no
 * stopped rank beside a lost dump. Rank 3 is named, not "rank 0 waits for nobody: a stopped rank
 * or a lost dump?" (sim seeds 2397, 4617, 8583: ten such of 10 000). */
static void a_rank_waited_for_behind_a_lost_ranks_victim_is_its_victim_too(void **state) {
    job j;
    job_init(&j, 4);
    group(&j, "1", "pp", "[1, 3]");
    group(&j, "2", "ep", "[0, 1]");
    group(&j, "3", "dp", "[0, 2]");
    coll(&j, "0", "all_reduce", 1, S("completed", "completed", "completed", NULL));
    p2p(&j, 1, "1", "send 0->1", 1, "scheduled");
    rec(&j, 1, "2", "all_reduce", 1, "scheduled");
    rec(&j, 0, "2", "all_reduce", 1, "scheduled");
    rec(&j, 2, "3", "all_reduce", 1, "scheduled");
    j.skip[3] = 1;
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "3");
    done(&j);
}

/* Three ranks; pairs "1" {0,2} and "2" {0,1}. Rank 2 was killed (no dump): rank 0 waits for it
 * in pair "1"'s all_reduce #1. Rank 1's dump was cut after its first entry (the world's #1):
 * older than rank 0's by pair "2"'s #1, which rank 0 completed with it, and whole as far as it
 * goes, nothing pending. A dump cut short that shows nothing pending says nothing of where its
 * rank stopped (tests/sim's E13: presumed gone on, as after an older dump), so rank 1 is no rank
 * that waits for nobody: rank 2 is named (mutation ls05; sim seeds 316, 5357, 6241: "a stopped
 * rank or a lost dump?"). A dump cut before any whole entry shows nothing either way: it keeps
 * the doubt (mutation ls06, which the regression seed 9851 kills: the rank that stopped there
 * read older). */
static void run_cut_idle_beside_a_lost_rank(job *j, int cut_entries) {
    job_init(j, 3);
    group(j, "1", "pair", "[0, 2]");
    group(j, "2", "pair", "[0, 1]");
    rec(j, 0, "0", "all_reduce", 1, "completed");
    if (cut_entries) rec(j, 1, "0", "all_reduce", 1, "completed");
    rec(j, 0, "2", "all_reduce", 1, "completed");
    rec(j, 0, "1", "all_reduce", 1, "scheduled");
    j->skip[1] = 3;
    j->skip[2] = 1;
    run(j);
}

static void a_cut_dump_showing_nothing_pending_says_nothing_of_the_end(void **state) {
    job j;
    run_cut_idle_beside_a_lost_rank(&j, 1);
    assert_culprits(&j, FA_STATUS_HANG, "2");
    done(&j);
    run_cut_idle_beside_a_lost_rank(&j, 0);
    assert_int_not_equal(j.a.verdict.status, FA_STATUS_OK);
    assert_true(j.a.verdict.culprits.n == 0);
    done(&j);
}

/* Tensor pairs "1" {0,1} and "4" {2,3}, expert pair "6" {3,4}, pipeline pair "7" {1,3}, where
 * nobody waits. Rank 1 was killed (no dump):
 * rank 0 waits for it in their pair's all_reduce #1. Rank 2 completed its pair's #1 with rank 3;
 * ranks 2 and 4 wait in the world's all_reduce #2 for ranks 0, 1 and 3. Rank 3's dump was cut
 * after the world's #1 (older by that pair #1). Rank 3 may have stopped before the world's #2,
 * but rank 1 cannot be blocked behind it there: rank 2's history runs the tensor pair's #1 before
 * the world's #2, and rank 1 never got past its pair's #1, where rank 0 waits for it. Rank 1
 * alone explains every wait, rank 3 is presumed gone on: named is 1, not "rank 1 or 3"
 * (mutations lp05, lh03, lh01: the pair "7" they share, where nobody waits, offers nothing either;
 * sim seeds 2162, 4283, 8678, 6752: a killed rank and a cut one offered as one
 * of two, where the simulator and the truth name the killed one; rank 3 stays an alternative
 * beside it, "may have stopped too"). Run with rank 4 waiting in the world's #2 or, waited_alone,
 * in the expert pair's #1. */
static void run_lost_rank_waited_before_a_cut_one(job *j, int waited_alone) {
    job_init(j, 5);
    j->group_ranks[0] = "[0, 1, 2, 3, 4]";
    group(j, "1", "tp", "[0, 1]");
    group(j, "4", "tp", "[2, 3]");
    group(j, "6", "ep", "[3, 4]");
    group(j, "7", "pp", "[1, 3]");
    coll(j, "0", "all_reduce", 1, S("completed", NULL, "completed", "completed", "completed"));
    rec(j, 0, "1", "all_reduce", 1, "scheduled");
    rec(j, 2, "4", "all_reduce", 1, "completed");
    rec(j, 2, "0", "all_reduce", 2, "scheduled");
    rec(j, 4, waited_alone ? "6" : "0", "all_reduce", waited_alone ? 1 : 2, "scheduled");
    j->skip[1] = 1;
    j->skip[3] = 4;
    run(j);
}

/* As above, with rank 4 waiting for rank 3 alone in their expert pair's #1: rank 3 is waited for
 * on its own, not only beside rank 1, and may have stopped there with rank 1 blocked behind it
 * elsewhere: one of them (mutation lh02; sim seed 11942, held out, tests/sim's E16). */
static void a_lost_rank_waited_for_before_the_op_it_shares_with_a_cut_one_is_named(void **state) {
    job j;
    run_lost_rank_waited_before_a_cut_one(&j, 0);
    assert_culprits(&j, FA_STATUS_HANG, "1");
    assert_null(strstr(j.a.verdict.summary, "1 or 3"));
    done(&j);
    run_lost_rank_waited_before_a_cut_one(&j, 1);
    assert_culprits(&j, FA_STATUS_HANG, "");
    assert_non_null(strstr(j.a.verdict.summary, "1 or 3"));
    done(&j);
}

/* gloo, four ranks in one tensor group "5". Rank 1 was killed (no dump). Rank 0 has the group's
 * all_reduce #3 pending; rank 3 retired it, its newest (finished, or failed with rank 1); rank 2's
 * pickle was cut inside its entries after the world's barrier #2, its counters kept. Whatever
 * rank 2 did after its cut, the job is hung on a rank the dumps do not show: never "ok", which it
 * read once, when dropping rank 2 left rank 1 alone where nobody is proven to wait for it
 * (held-out sim seed 11328; drop_unblocking keeps rank 2 now: it is waited for on its own). */
static void a_lost_rank_left_alone_beside_a_dropped_cut_one_is_no_healthy_job(void **state) {
    job j;
    job_init(&j, 4);
    j.backend = "gloo";
    group(&j, "5", "TENSOR_MODEL_PARALLEL_GROUP", "[0, 1, 2, 3]");
    coll(&j, "5", "all_reduce", 1, S("completed", NULL, "completed", "completed"));
    coll(&j, "5", "all_reduce", 2, S("completed", NULL, "completed", "completed"));
    coll(&j, "0", "all_reduce", 1, S("completed", NULL, "completed", "completed"));
    coll(&j, "0", "barrier", 2, S("completed", NULL, "completed", "completed"));
    coll(&j, "5", "all_reduce", 3, S("scheduled", NULL, NULL, "completed"));
    j.skip[1] = 1;
    j.skip[2] = 4;
    snprintf(j.status[2], sizeof j.status[2],
             "\"0\": {\"last_enqueued_collective\": 2, \"last_started_collective\": -1, "
             "\"last_completed_collective\": 2}, \"5\": {\"last_enqueued_collective\": 3, "
             "\"last_started_collective\": -1, \"last_completed_collective\": 2}");
    run(&j);
    assert_int_not_equal(j.a.verdict.status, FA_STATUS_OK);
    done(&j);
}

/* Two ranks; rank 1 completed all_reduce #1 and started #2. Rank 0's dump was cut inside its
 * first entry; its counters say it enqueued #2, completed #1 and last started `started`. Run. */
static void run_cut_in_flight_beside_a_started_peer(job *j, int started) {
    job_init(j, 2);
    rec(j, 1, "0", "all_reduce", 1, "completed");
    rec(j, 1, "0", "all_reduce", 2, "started");
    j->skip[0] = 4;
    snprintf(j->status[0], sizeof j->status[0],
             "\"0\": {\"last_enqueued_collective\": 2, \"last_started_collective\": %d, "
             "\"last_completed_collective\": 1}",
             started);
    run(j);
}

/* Counters that say rank 0 started #2 (or say nothing of starts: -1, timing off) show a job
 * with one collective in flight everywhere: ok, not "rank 0 never started #2 on the GPU" (sim
 * seed 7087). Counters that say it last started #1 do show that: rank 0 is named (seed 747). */
static void a_cut_dumps_started_counter_says_whether_it_never_started(void **state) {
    job j;
    run_cut_in_flight_beside_a_started_peer(&j, 2);
    assert_culprits(&j, FA_STATUS_OK, "");
    done(&j);
    run_cut_in_flight_beside_a_started_peer(&j, -1);
    assert_culprits(&j, FA_STATUS_OK, "");
    done(&j);
    run_cut_in_flight_beside_a_started_peer(&j, 1);
    assert_culprits(&j, FA_STATUS_HANG, "0");
    assert_non_null(strstr(j.a.verdict.summary, "never started"));
    done(&j);
}

/* Data-parallel pairs {0,1} and {2,3} of one family; rank 3 was killed before their #2, where
 * rank 2 waits. Ranks 0 and 1 completed their own pair's #2 and are idle: they ran the program's
 * step #2, so they went past everything before it, and rank 3 cannot be blocked behind them
 * there: rank 3 is named, not "a stopped rank or a lost dump?" (sim seeds 945, 6891: an
 * earlier reading asked for a later step than the lost rank's). The same with undescribed
 * groups (our recorder's) whose members the dumps list: groups shifted are one family (seeds
 * 5983, 8822). */
static void idle_ranks_at_the_lost_ranks_step_in_a_sibling_group_are_no_doubt(void **state) {
    const char *descs[] = { "dp", "undefined" };
    for (int k = 0; k < 2; k++) {
        job j;
        job_init(&j, 4);
        group(&j, "1", descs[k], "[0, 1]");
        group(&j, "2", descs[k], "[2, 3]");
        coll(&j, "1", "all_reduce", 1, S("completed", "completed", NULL, NULL));
        coll(&j, "1", "all_reduce", 2, S("completed", "completed", NULL, NULL));
        rec(&j, 2, "2", "all_reduce", 1, "completed");
        rec(&j, 2, "2", "all_reduce", 2, "started");
        j.skip[3] = 1;
        run(&j);
        assert_culprits(&j, FA_STATUS_HANG, "3");
        done(&j);
    }
}

/* Rank 2 was killed (no dump). Rank 0 completed all_reduce #1-#3 and waits in #4. Rank 1's
 * dump shows #2 and #3 pending, which rank 0 completed: the only proof that its dump is older is
 * what it shows issued. Read older, rank 2 stopped the job (rank 1 went on, unseen); read final,
 * rank 1's GPU ran past what it recorded and stopped (real runs gpu_error_1st/2nd), and rank 2
 * may have died behind it. The dumps allow both: neither is named alone, both are offered
 * (verdict_either.c; tests/sim seed 378). */
static void run_rank_1_behind_rank_0(job *j, int completed_by_0) {
    job_init(j, 3);
    coll(j, "0", "all_reduce", 1, S("completed", "completed", NULL));
    for (int seq = 2; seq <= completed_by_0; seq++) rec(j, 0, "0", "all_reduce", seq, "completed");
    rec(j, 0, "0", "all_reduce", completed_by_0 + 1, "scheduled");
    rec(j, 1, "0", "all_reduce", 2, "scheduled");
    rec(j, 1, "0", "all_reduce", 3, "scheduled");
    j->skip[2] = 1;
    run(j);
}

static void a_dump_older_only_by_what_it_issued_is_read_both_ways(void **state) {
    job j;
    run_rank_1_behind_rank_0(&j, 3);
    assert_culprits(&j, FA_STATUS_HANG, "");
    bool offered[3] = { false };
    for (size_t i = 0; i < j.a.verdict.nalternatives; i++)
        for (size_t k = 0; k < j.a.verdict.alternatives[i].ranks.n; k++)
            offered[j.a.verdict.alternatives[i].ranks.v[k] % 3] = true;
    assert_true(offered[1] && offered[2] && !offered[0]);
    /* the withdrawn culprit's finding went with it: the title is the ambiguity's alone */
    assert_int_equal(strncmp(j.a.verdict.summary, "hang: rank 1 or 2 ", 18), 0);
    assert_int_equal(j.a.verdict.nculprit_findings, 0);
    done(&j);
}

/* The same job, rank 0 having completed all_reduce #4 too, which rank 1's dump shows it never
 * issued: that proves its dump older (a collective completes once every member ran it), whatever
 * its pending launches say. Read older alone, rank 2 stopped the job (mutation ei06: the proof by
 * what rank 1 issued was kept, and "1 or 2" read both ways). */
static void a_dump_older_by_what_it_never_issued_is_read_older_only(void **state) {
    job j;
    run_rank_1_behind_rank_0(&j, 4);
    assert_culprits(&j, FA_STATUS_HANG, "2");
    assert_false(j.a.match.rank_stale[1].issued_only);
    done(&j);
}

/* Only-active dumps, no timing, pg_status "completed 3" on the ranks in `fresh`: each holds
 * all_reduce #4 and #5 pending. Each rank in `behind` shows #2 and #3 pending, never started, and
 * "completed 1": launches its peers' counters show done while they still have the group's work
 * pending. Its dump is older, or its GPU ran past what it recorded and stopped (the real runs
 * gpu_error_1st/2nd); the other ranks left no dump. */
static void run_heads_the_peers_counted_done(job *j, int world, const char *fresh,
                                             const char *behind) {
    job_init(j, world);
    const char *st = "\"0\": {\"last_enqueued_collective\": %d, \"last_started_collective\": -1, "
                     "\"last_completed_collective\": %d}";
    for (int r = 0; r < world; r++) {
        bool is_fresh = strchr(fresh, '0' + r) != NULL;
        if (!is_fresh && !strchr(behind, '0' + r)) {
            j->skip[r] = 1;
            continue;
        }
        int head = is_fresh ? 4 : 2;
        rec(j, r, "0", "all_reduce", head, "scheduled");
        rec(j, r, "0", "all_reduce", head + 1, "scheduled");
        snprintf(j->status[r], sizeof j->status[r], st, head + 1, head - 1);
    }
    run(j);
}

/* Rank 2 left no dump; rank 1's dump reads older (rank 2 stopped the job) or final (rank 1's GPU
 * stopped, rank 2 perhaps dead behind it): one of them, neither named alone (sim seed 12994). */
static void a_head_peers_counted_done_beside_a_lost_dump_is_one_of_two(void **state) {
    job j;
    run_heads_the_peers_counted_done(&j, 3, "0", "1");
    assert_culprits(&j, FA_STATUS_HANG, "");
    assert_true(offers(&j, 1) && offers(&j, 2) && !offers(&j, 0));
    done(&j);
}

/* Ranks 1 and 3 both so: read older, each leaves the blame on the other, nowhere else, so the
 * reading moves it nowhere: both GPUs stalled, both named, their dumps final in the reports
 * too (verdict_either.c blame_stays_on_stalls; real runs gpu_error_1st/2nd: 12 and 14). */
static void heads_peers_counted_done_that_blame_only_each_other_are_stalls(void **state) {
    job j;
    run_heads_the_peers_counted_done(&j, 4, "02", "13");
    assert_culprits(&j, FA_STATUS_HANG, "1,3");
    assert_int_equal(j.a.verdict.nalternatives, 0);
    assert_true(j.a.match.rank_stale[1].group < 0 && j.a.match.rank_stale[3].group < 0);
    done(&j);
}

/* Rank 0 left out the tensor-parallel all_reduce #1 of its pair with rank 1 and went on to the
 * world's all_reduce #2; rank 1 waits in the pair's #1, so they wait for each other in
 * collectives each never issued, and both wait on rank 3 too, which left no dump (so does rank 2,
 * in #2). No rank outside the cycle can release it, whatever rank 3 did: 3 is offered as an
 * alternative beside the cycle, never named alone (verdict_sinks.c absence_cycle; mutation ac01;
 * tests/sim seeds 12146, 16556: an older dump or another group's rank named in its place). */
static void ranks_waiting_for_each_other_hold_themselves_beside_a_lost_dump(void **state) {
    job j;
    job_init(&j, 4);
    group(&j, "1", "TENSOR_MODEL_PARALLEL_GROUP", "[0, 1]");
    coll(&j, "0", "all_reduce", 1, S("completed", "completed", "completed", NULL));
    rec(&j, 1, "1", "all_reduce", 1, "scheduled");
    rec(&j, 0, "0", "all_reduce", 2, "scheduled");
    rec(&j, 2, "0", "all_reduce", 2, "scheduled");
    j.skip[3] = 1;
    run(&j);
    char *got = culprits(&j);
    bool offered = offers(&j, 3);
    if (j.a.verdict.status != FA_STATUS_HANG || strchr(got, '3') || !offered)
        fail_msg("culprits '%s', rank 3 %s (%s)", got, offered ? "offered" : "not offered",
                 j.a.verdict.summary);
    free(got);
    done(&j);
}

/* Rank 0's sends to rank 1 in their pipeline pair completed beyond what rank 1's dump shows
 * there: with `ring`, its window (a ring without a gap) shows its recv #1 and no later one, and
 * send #2 completed (note_older); without, its whole history shows no send/recv there, and send
 * #1 completed (note_older_by_count). */
static void run_sends_completed_past_rank_1(job *j, bool ring) {
    job_init(j, 2);
    group(j, "1", "PP", "[0, 1]");
    coll(j, "0", "all_reduce", 1, S("completed", "completed"));
    p2p(j, 0, "1", "send 0->1", 1, "completed");
    if (ring) {
        j->first_record[1] = 5;
        p2p(j, 1, "1", "recv 1<-0", 1, "completed");
        p2p(j, 0, "1", "send 0->1", 2, "completed");
    }
    rec(j, 0, "0", "all_reduce", 2, "scheduled");
    run(j);
}

/* NCCL completes a send that fits the receiver's buffer before the recv is posted, so rank 1's
 * dump is older, or it never posted the recv: a proof by what it issued (fa_stale.issued_only),
 * read both ways, in either shape; a recv completed from it would prove more (mutations ei07,
 * ei08; tests/sim seed 12069). */
static void a_send_completed_to_a_rank_proves_its_dump_older_only_by_doubt(void **state) {
    for (int ring = 0; ring <= 1; ring++) {
        job j;
        run_sends_completed_past_rank_1(&j, ring);
        assert_int_equal(j.a.match.rank_stale[1].seq, ring ? 2 : 1);
        assert_true(j.a.match.rank_stale[1].issued_only);
        done(&j);
    }
}

/* Ranks 0 and 2 run TP #1 ([0, 1, 2]) before the default group's all_reduce #2. Rank 1 left no
 * dump; rank 0 waits for it in TP #1 and has #2 queued behind. Rank 3 is idle: it never issued
 * #2. Rank 2's dump was cut after all_reduce #1: its counters say it issued TP #1 and #2 and
 * completed neither, with no entry to order them by, so nothing shows it waiting in #2 rather
 * than in TP #1. Nobody is seen waiting in #2: idle rank 3 explains no wait and is not named
 * (sim seed 3422: rank 3, stopped, named for the default group's all_reduce #1 queued on every
 * rank behind waits on two killed ranks, beside a cut dump counted in both). */
static void a_cut_dump_counted_in_two_ops_is_seen_waiting_in_neither(void **state) {
    job j;
    job_init(&j, 4);
    group(&j, "1", "TP", "[0, 1, 2]");
    coll(&j, "0", "all_reduce", 1, S("completed", NULL, "completed", "completed"));
    rec(&j, 0, "1", "all_reduce", 1, "started");
    rec(&j, 0, "0", "all_reduce", 2, "scheduled");
    j.skip[1] = 1;
    j.skip[2] = 4;
    strcpy(j.status[2], "\"0\": {\"last_enqueued_collective\": 2, "
                        "\"last_started_collective\": -1, \"last_completed_collective\": 1}, "
                        "\"1\": {\"last_enqueued_collective\": 1, "
                        "\"last_started_collective\": -1, \"last_completed_collective\": -1}");
    run(&j);
    char *got = culprits(&j);
    if (strchr(got, '3')) fail_msg("rank 3 named: %s", j.a.verdict.summary);
    for (size_t i = 0; i < j.a.verdict.nalternatives; i++)
        assert_false(fa_ranks_contains(&j.a.verdict.alternatives[i].ranks, 3));
    free(got);
    done(&j);
}

/* The same counters say nothing of a number the rank's own entries show went elsewhere: rank 1
 * left its send #3 out, so its recv is #3; rank 0's recv #3 from it was never sent, whatever
 * rank 1's pg_status counts (mutation p4b; sim seed 149). */
static void pg_status_numbers_inside_the_window_are_the_entries(void **state) {
    job j;
    job_init(&j, 2);
    group(&j, "1", "PP", "[0, 1]");
    p2p(&j, 0, "1", "recv 0<-1", 3, "scheduled");
    p2p(&j, 1, "1", "recv 1<-0", 3, "scheduled");
    strcpy(j.status[1], "\"1\": {\"last_enqueued_collective\": 3, "
                        "\"last_started_collective\": -1, \"last_completed_collective\": 2}");
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "0,1");
    done(&j);
}

/* Rank 0's ring starts at a completed `coalesced` marker whose bundle's members are gone: a
 * send/recv batch's marker reads as collective #4 as well as a coalesced bundle's does. It is no
 * call to hold against rank 1's all_reduce #4 (no type mismatch); rank 1 never issued #6, which
 * rank 0 waits in (mutation p4c; sim seed 2788). */
static void a_marker_whose_members_the_ring_dropped_is_no_call(void **state) {
    job j;
    job_init(&j, 2);
    j.first_record[0] = 6;
    rec(&j, 0, "0", "coalesced", 4, "completed");
    rec(&j, 0, "0", "all_reduce", 5, "completed");
    rec(&j, 0, "0", "all_reduce", 6, "scheduled");
    coll(&j, "0", "all_reduce", 4, S(NULL, "completed"));
    coll(&j, "0", "all_reduce", 5, S(NULL, "completed"));
    run(&j);
    assert_null(finding(&j, FA_TYPE_MISMATCH));
    assert_culprits(&j, FA_STATUS_HANG, "1");
    done(&j);
}

/* Rank 0's bundle #2 changes type (all_reduce, then broadcast), so it is split into two calls;
 * its end marker completed, and speaks for both (PyTorch leaves the members scheduled). Rank 0
 * waits in #3, which rank 1 never issued: rank 1 is the culprit, not a "stall" of rank 0 in the
 * bundle's first part. The group runs send/recv too, so the rank's counters do not settle it
 * (mutation p4d; sim seed 1520). */
static void a_completed_marker_completes_a_bundle_split_by_type(void **state) {
    job j;
    job_init(&j, 2);
    coll(&j, "0", "all_reduce", 1, S("completed", "completed"));
    p2p(&j, 0, "0", "send 0->1", 1, "completed");
    p2p(&j, 1, "0", "recv 1<-0", 1, "completed");
    for (int r = 0; r < 2; r++) {
        rec(&j, r, "0", "all_reduce", 2, r ? "completed" : "scheduled");
        rec(&j, r, "0", "broadcast", 2, r ? "completed" : "scheduled");
        rec(&j, r, "0", "coalesced", 2, "completed");
    }
    rec(&j, 0, "0", "all_reduce", 3, "scheduled");
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "1");
    done(&j);
}

/* Rank 2's dump lost its pg_config (a JSON dump cut before it): its entries in "0" are in the
 * default group its peers describe, not in a copy of it for rank 2 alone. Ranks 0, 1, 3 wait in
 * #2, which rank 2 never issued (mutation p4e; sim seed 1368). */
static void a_dump_without_its_config_joins_the_group_its_peers_describe(void **state) {
    job j;
    job_init(&j, 4);
    coll(&j, "0", "all_reduce", 1, S("completed", "completed", "completed", "completed"));
    coll(&j, "0", "all_reduce", 2, S("scheduled", "scheduled", NULL, "scheduled"));
    j.no_config[2] = 1;
    run(&j);
    assert_int_equal(j.a.groups.n, 1);
    assert_culprits(&j, FA_STATUS_HANG, "2");
    done(&j);
}

/* Rank 3 waits in B #1 for rank 2, which never issued it (idle); it has C #1 queued behind. Rank
 * 1's stream head is C #1, which its peer 3 holds behind that sure wait: rank 1 waits there for
 * good, and its A #1, issued after, waits for nobody yet. Rank 0, idle, never issued A #1 but is
 * no culprit: rank 2 alone (mutation m601; sim seed 9128). */
static void a_head_held_behind_a_peers_sure_wait_is_sure_too(void **state) {
    job j;
    job_init(&j, 4);
    group(&j, "1", "A", "[0, 1]");
    group(&j, "2", "B", "[2, 3]");
    group(&j, "3", "C", "[1, 3]");
    coll(&j, "0", "all_reduce", 1, S("completed", "completed", "completed", "completed"));
    rec(&j, 3, "2", "all_reduce", 1, "scheduled");
    rec(&j, 3, "3", "all_reduce", 1, "scheduled");
    rec(&j, 1, "3", "all_reduce", 1, "scheduled");
    rec(&j, 1, "1", "broadcast", 1, "scheduled");
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "2");
    done(&j);
}

/* Rank 2's GPU stalled in A #1 (rank 1 completed it), with B #1 and default #2 queued behind.
 * Rank 0's head is B #1, which rank 2 holds behind its stall: rank 0 waits there for good, and
 * its default #2 waits for nobody yet. Rank 1, idle, never issued default #2 but is no culprit:
 * rank 2 alone (mutation m606; sim seed 6137). */
static void a_head_held_behind_a_peers_stalled_gpu_is_sure_too(void **state) {
    job j;
    job_init(&j, 3);
    group(&j, "1", "A", "[1, 2]");
    group(&j, "2", "B", "[0, 2]");
    coll(&j, "0", "all_reduce", 1, S("completed", "completed", "completed"));
    coll(&j, "1", "all_reduce", 1, S(NULL, "completed", "scheduled"));
    coll(&j, "2", "all_reduce", 1, S("scheduled", NULL, "scheduled"));
    coll(&j, "0", "all_reduce", 2, S("scheduled", NULL, "scheduled"));
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "2");
    done(&j);
}

/* Rank 0's GPU stalled in #2, which ranks 1 and 2 completed; rank 3's dump is older (it shows
 * no #2). The completion proves rank 3 joined #2 too: its unknown state holds nobody up there,
 * and rank 0 is a root beside rank 2, who never issued A #1, where rank 1 waits (and rank 0,
 * behind its stall) (mutation m607; sim seed 1682). */
static void a_stall_beside_a_member_of_unknown_state_is_a_root(void **state) {
    job j;
    job_init(&j, 4);
    group(&j, "1", "A", "[0, 1, 2]");
    coll(&j, "0", "all_reduce", 1, S("completed", "completed", "completed", "completed"));
    coll(&j, "0", "all_reduce", 2, S("scheduled", "completed", "completed", NULL));
    coll(&j, "1", "all_reduce", 1, S("scheduled", "scheduled", NULL));
    run(&j);
    assert_true(fa_stale_known(&j.a.match.rank_stale[3]));
    assert_culprits(&j, FA_STATUS_HANG, "0,2");
    done(&j);
}

/* Rank 2's GPU stalled in #2, which rank 0 completed; the dumps of ranks 1 and 3 are older (they
 * show no #2). Rank 0 waits in #3, which nobody else issued. The stall is no wait for a member
 * that never joined: it does not say that ranks 1 and 3 went on, so each may have stopped too,
 * beside rank 2 (mutation rg01; sim seeds 4877, 7237, 9722: m606's rule had dropped them). */
static void a_stall_keeps_an_older_dumps_doubt(void **state) {
    job j;
    job_init(&j, 4);
    coll(&j, "0", "all_reduce", 1, S("completed", "completed", "completed", "completed"));
    coll(&j, "0", "all_reduce", 2, S("completed", NULL, "scheduled", NULL));
    coll(&j, "0", "broadcast", 3, S("scheduled", NULL, NULL, NULL));
    run(&j);
    assert_true(fa_stale_known(&j.a.match.rank_stale[1]));
    assert_culprits(&j, FA_STATUS_HANG, "2");
    assert_int_equal(j.a.verdict.nalternatives, 3);
    assert_ranks(&j.a.verdict.alternatives[1].ranks, "1,2");
    assert_ranks(&j.a.verdict.alternatives[2].ranks, "2,3");
    done(&j);
}

/* Rank 1 left out A #2, where rank 0 waits; rank 0, stuck there, never issued default #3, where
 * ranks 1 and 2 wait, but it has default #2 pending: it is blocked before #3, no rank accused of
 * going elsewhere, and its history (A #2 before default #2) says that rank 1 went past A #2.
 * Rank 1 alone (mutation rg02; sim seed 3964). */
static void a_rank_blocked_before_the_op_it_never_issued_witnesses_the_order(void **state) {
    job j;
    job_init(&j, 3);
    group(&j, "1", "A", "[0, 1]");
    coll(&j, "0", "all_reduce", 1, S("completed", "completed", "completed"));
    coll(&j, "1", "all_reduce", 1, S("completed", "completed"));
    coll(&j, "1", "all_reduce", 2, S("scheduled", NULL));
    coll(&j, "0", "all_reduce", 2, S("scheduled", "scheduled", "scheduled"));
    coll(&j, "0", "all_reduce", 3, S(NULL, "scheduled", "scheduled"));
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "1");
    done(&j);
}

/* gloo: rank 0 retired #2 (it failed: rank 3 left no dump), but rank 1 still has #2 pending, not
 * ended, and waits for every member absent: rank 2, idle, never issued it. Rank 2 stays named
 * (mutation m608; sim seed 328). */
static void a_gloo_op_still_open_on_a_member_waits_for_the_idle_one(void **state) {
    job j;
    job_init(&j, 4);
    j.backend = "gloo";
    coll(&j, "0", "all_reduce", 1, S("completed", "completed", "completed"));
    coll(&j, "0", "all_reduce", 2, S("completed", "scheduled", NULL));
    j.skip[3] = 1;
    run(&j);
    char *got = culprits(&j);
    assert_non_null(strstr(got, "2"));
    free(got);
    done(&j);
}

/* Rank 0 completed default #1 and went on in A; rank 1's ring wrapped (its first record is 5)
 * and holds only A's ops. Its dump knows nothing of the default group: #1 may lie before its
 * window, so its dump is not older for it. Rank 0 waits in A #3, which rank 1 never issued:
 * rank 1 is the culprit (mutation m604; sim seed 7855). */
static void a_group_before_a_wrapped_window_makes_no_dump_older(void **state) {
    job j;
    job_init(&j, 2);
    group(&j, "1", "A", "[0, 1]");
    j.first_record[1] = 5;
    rec(&j, 0, "0", "barrier", 1, "completed");
    coll(&j, "1", "all_reduce", 1, S("completed", "completed"));
    coll(&j, "1", "all_reduce", 2, S("completed", "completed"));
    rec(&j, 0, "1", "all_reduce", 3, "scheduled");
    run(&j);
    assert_false(fa_stale_known(&j.a.match.rank_stale[1]));
    assert_culprits(&j, FA_STATUS_HANG, "1");
    done(&j);
}

/* gloo 2.15's pg_config names no group's members: group A is rebuilt from the dumps that record
 * it (0, 2, 3), and rank 1 left no dump. Ranks 0 and 3 retired A's all_reduce #2 (failed or
 * finished: gloo retires both), which rank 2, alive, never issued. A failure proves a
 * death only on a member the group surely has; A may lack rank 1, so nothing here shows that the
 * op failed on a death, and rank 2 stays named (mutation m605: read as a death, the failure
 * cleared rank 2; sim seed 241). */
static void a_gloo_failure_beside_a_member_the_group_may_lack_proves_no_death(void **state) {
    job j;
    job_init(&j, 4);
    j.backend = "gloo";
    j.gloo_config = 1;
    group(&j, "1", "A", "[0, 2, 3]");
    coll(&j, "0", "all_reduce", 1, S("completed", NULL, "completed", "completed"));
    coll(&j, "1", "all_reduce", 1, S("completed", NULL, "completed", "completed"));
    coll(&j, "1", "all_reduce", 2, S("completed", NULL, NULL, "completed"));
    j.skip[1] = 1;
    run(&j);
    char *got = culprits(&j);
    assert_non_null(strstr(got, "2"));
    free(got);
    done(&j);
}

/* The recorder numbers a communicator's launches with one counter, NCCL pairs its collectives
 * by their order: rank 2 left all_reduce #2 out and its send (launch #2) took the number, so its
 * broadcast (launch #3) is its second collective, the one ranks 0 and 1 issued as all_reduce
 * #2. Every member's numbers run from 1 unbroken: a mismatch, rank 2 the odd one (sim seeds 329,
 * 751, 2172; kills go01). */
static void recorder_collectives_pair_by_their_order(void **state) {
    job j;
    job_init(&j, 3);
    coll(&j, "0", "all_reduce", 1, S("completed", "completed", "completed"));
    coll(&j, "0", "all_reduce", 2, S("scheduled", "scheduled", NULL));
    j.p2p_coll_seq = 1;
    p2p(&j, 2, "0", "send 2->0", 2, "scheduled");
    coll(&j, "0", "broadcast", 3, S("scheduled", "scheduled", "scheduled"));
    recorder_comm_zero(&j);
    run(&j);
    assert_culprits(&j, FA_STATUS_MISMATCH, "2");
    const fa_finding *f = finding(&j, FA_TYPE_MISMATCH);
    assert_non_null(f);
    assert_ranks(&f->others, "0,1");
    done(&j);
}

/* A ring of batches under the recorder's launch numbers, windows past record 0 (rings that
 * wrapped): rank 1 left step 2's all_reduce out, so its batch took launch #3, its peers' #4. Its
 * send 1->2 (#3) and rank 2's recv 2<-1 (#4), both pending, are one transfer to NCCL, which pairs
 * a peer's sends and recvs in order: equal ids would leave each unmatched and name rank 2 as never
 * receiving. Ranks 0 and 2 wait in all_reduce #3 for rank 1, which waits in its batch for them:
 * rank 1 left the collective out (random_rec_jobs seeds 19, 92, 483; mutant ln01). */
static void launch_numbers_shifted_by_an_omission_pair_in_order(void **state) {
    job j;
    job_init(&j, 3);
    for (int r = 0; r < 3; r++) j.first_record[r] = 4;
    coll(&j, "0", "all_reduce", 1, S("completed", "completed", "completed"));
    j.p2p_coll_seq = 1;
    for (int r = 0; r < 3; r++) {
        char send[32], recv[32];
        snprintf(send, sizeof send, "send %d->%d", r, (r + 1) % 3);
        snprintf(recv, sizeof recv, "recv %d<-%d", r, (r + 2) % 3);
        p2p(&j, r, "0", send, 2, "completed");
        p2p(&j, r, "0", recv, 2, "completed");
        batch_end(&j, r, "0", 2, "completed");
    }
    rec(&j, 0, "0", "all_reduce", 3, "started");
    rec(&j, 2, "0", "all_reduce", 3, "started");
    p2p(&j, 1, "0", "send 1->2", 3, "scheduled");
    p2p(&j, 1, "0", "recv 1<-0", 3, "scheduled");
    batch_end(&j, 1, "0", 3, "scheduled");
    j.p2p_coll_seq = 3;
    p2p(&j, 0, "0", "send 0->1", 4, "scheduled");
    p2p(&j, 0, "0", "recv 0<-2", 4, "scheduled");
    batch_end(&j, 0, "0", 4, "scheduled");
    p2p(&j, 2, "0", "send 2->0", 4, "scheduled");
    p2p(&j, 2, "0", "recv 2<-1", 4, "scheduled");
    batch_end(&j, 2, "0", 4, "scheduled");
    recorder_comm_zero(&j);
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "1");
    done(&j);
}

/* A ring of batches under the recorder's launch numbers, windows past record 0: at launch #2
 * rank 2 sent to 1 instead of 3, so its batch waits (1 never receives from 2) and its send to 3
 * of launch #3, [[1]], is the next one rank 3 gets. Rank 3's recv 3<-2 of launch #2, [[2]],
 * pending, comes before its recv of launch #3: NCCL pairs a peer's sends and recvs in order, so
 * the send of #3 meets the recv of #2 and their sizes differ, though equal launch numbers pair
 * it with the recv of #3 of its own size. A pending record in a batch left alone before a pair of
 * equal numbers refutes the numbers (tests/sim seeds 8329, 4350, 5020: hang, the wrong rank). */
static void a_lone_pending_recv_before_equal_launch_numbers_pairs_in_order(void **state) {
    job j;
    job_init(&j, 4);
    for (int r = 0; r < 4; r++) j.first_record[r] = 4;
    coll(&j, "0", "all_reduce", 1, S("completed", "completed", "completed", "completed"));
    j.p2p_coll_seq = 1;
    j.p2p_sizes = "[[2]]";
    const char *st2[4] = { "completed", "completed", "started", "started" };
    for (int r = 0; r < 4; r++) {
        char send[32], recv[32];
        snprintf(send, sizeof send, "send %d->%d", r, r == 2 ? 1 : (r + 1) % 4);
        snprintf(recv, sizeof recv, "recv %d<-%d", r, (r + 3) % 4);
        p2p(&j, r, "0", send, 2, st2[r]);
        p2p(&j, r, "0", recv, 2, st2[r]);
        batch_end(&j, r, "0", 2, st2[r]);
    }
    j.p2p_sizes = "[[1]]";
    const char *st3[4] = { "started", "started", "scheduled", "scheduled" };
    for (int r = 0; r < 4; r++) {
        char send[32], recv[32];
        snprintf(send, sizeof send, "send %d->%d", r, (r + 1) % 4);
        snprintf(recv, sizeof recv, "recv %d<-%d", r, (r + 3) % 4);
        p2p(&j, r, "0", send, 3, st3[r]);
        p2p(&j, r, "0", recv, 3, st3[r]);
        batch_end(&j, r, "0", 3, st3[r]);
    }
    recorder_comm_zero(&j);
    run(&j);
    assert_culprits(&j, FA_STATUS_MISMATCH, "2,3");
    done(&j);
}

/* The same ring: at launch #2 rank 2 sent to 0 instead of 3. Rank 0's ring kept only the end
 * marker of its batch #2, completed: its recv 0<-3 took rank 3's send of #2 ([[8]]) on the
 * wire. Rank 3's batch #2 waits for its recv from 2; its send, pending with it, is no partner of
 * rank 0's recv of #3 ([[2]]): the completed marker says rank 0's transfers of #2 ran, as they
 * would if shown. No size mismatch: a hang (tests/sim seed 9966). */
static void a_completed_batch_marker_alone_says_its_transfers_ran(void **state) {
    job j;
    job_init(&j, 4);
    for (int r = 1; r < 4; r++) {
        j.first_record[r] = 4;
        rec(&j, r, "0", "all_reduce", 1, "completed");
    }
    j.first_record[0] = 6;
    j.p2p_coll_seq = 1;
    j.p2p_sizes = "[[8]]";
    batch_end(&j, 0, "0", 2, "completed");
    const char *st2[4] = { NULL, "completed", "started", "started" };
    for (int r = 1; r < 4; r++) {
        char send[32], recv[32];
        snprintf(send, sizeof send, "send %d->%d", r, r == 2 ? 0 : (r + 1) % 4);
        snprintf(recv, sizeof recv, "recv %d<-%d", r, (r + 3) % 4);
        p2p(&j, r, "0", send, 2, st2[r]);
        p2p(&j, r, "0", recv, 2, st2[r]);
        batch_end(&j, r, "0", 2, st2[r]);
    }
    j.p2p_sizes = "[[2]]";
    p2p(&j, 0, "0", "send 0->1", 3, "started");
    p2p(&j, 0, "0", "recv 0<-3", 3, "started");
    batch_end(&j, 0, "0", 3, "started");
    p2p(&j, 1, "0", "send 1->2", 3, "started");
    p2p(&j, 1, "0", "recv 1<-0", 3, "started");
    batch_end(&j, 1, "0", 3, "started");
    recorder_comm_zero(&j);
    run(&j);
    assert_int_equal(j.a.verdict.status, FA_STATUS_HANG);
    assert_null(finding(&j, FA_SIZE_MISMATCH));
    done(&j);
}

/* A recorder communicator of two, windows past record 0 (rings), both members' pg_status saying
 * launch #3 was their last completed there: they completed the same collectives (one completes
 * on every member at once), as many each, so their first pending collectives are the pair NCCL
 * meets, whatever the launch numbers say. Rank 1 issued its all_reduce elsewhere: its batch took
 * launch #4, its broadcast #5, while rank 0's all_reduce is #4: all_reduce against broadcast, a
 * type mismatch of two, both named (tests/sim seeds 8824, 8371: rank 0 read as waiting for a
 * rank that never issued #4). */
static void collectives_pair_in_order_after_a_shared_completed_prefix(void **state) {
    job j;
    job_init(&j, 2);
    group(&j, "1", "dp", "[0, 1]");
    for (int r = 0; r < 2; r++) {
        j.first_record[r] = 6;
        snprintf(j.status[r], sizeof j.status[r],
                 "\"0\": {\"last_enqueued_collective\": %d, \"last_started_collective\": -1, "
                 "\"last_completed_collective\": 3}",
                 r ? 5 : 6);
        rec(&j, r, "1", "all_gather", 1, "completed"); /* not the ring's first record of "0" */
    }
    rec(&j, 0, "0", "all_reduce", 4, "scheduled");
    j.p2p_coll_seq = 4;
    p2p(&j, 0, "0", "send 0->1", 5, "scheduled");
    p2p(&j, 0, "0", "recv 0<-1", 5, "scheduled");
    batch_end(&j, 0, "0", 5, "scheduled");
    rec(&j, 0, "0", "broadcast", 6, "scheduled");
    j.p2p_coll_seq = 3;
    p2p(&j, 1, "0", "recv 1<-0", 4, "scheduled");
    p2p(&j, 1, "0", "send 1->0", 4, "scheduled");
    batch_end(&j, 1, "0", 4, "scheduled");
    rec(&j, 1, "0", "broadcast", 5, "scheduled");
    recorder_comm_zero(&j);
    run(&j);
    assert_culprits(&j, FA_STATUS_MISMATCH, "0,1");
    assert_non_null(finding(&j, FA_TYPE_MISMATCH));
    done(&j);
}

/* Pipeline stages 0 -> 1 -> 2 -> 3 and back on communicator "1" of the recorder, each send/recv
 * alone (no batch), numbered by each stage's own launches: stage 2 sent its launch #4 to 0
 * instead of 1, and waits there; stage 1 waits in its recv #3 from 2. Stage 2 completed a recv
 * #3 of its own (from 3) and waits for 1 in all_reduce #2 of "0", which 1 never issued: yet that
 * is no step of a common pattern that 1 left out, as a ring's batch is; lone send/recv of
 * pipeline stages carry numbers that differ from stage to stage. Stage 2 is the culprit, not 1
 * beside it (tests/sim seed 639). */
static void a_pipeline_stage_past_a_number_is_no_wrong_peer_of_its_receiver(void **state) {
    job j;
    job_init(&j, 4);
    group(&j, "1", "pp", "[0, 1, 2, 3]");
    coll(&j, "0", "all_reduce", 1, S("completed", "completed", "completed", "completed"));
    p2p(&j, 0, "1", "send 0->1", 1, "completed");
    p2p(&j, 0, "1", "recv 0<-1", 2, "scheduled");
    p2p(&j, 1, "1", "recv 1<-0", 1, "completed");
    p2p(&j, 1, "1", "send 1->2", 2, "completed");
    p2p(&j, 1, "1", "recv 1<-2", 3, "scheduled");
    p2p(&j, 1, "1", "send 1->0", 4, "scheduled");
    p2p(&j, 2, "1", "recv 2<-1", 1, "completed");
    p2p(&j, 2, "1", "send 2->3", 2, "completed");
    p2p(&j, 2, "1", "recv 2<-3", 3, "completed");
    p2p(&j, 2, "1", "send 2->0", 4, "scheduled");
    p2p(&j, 3, "1", "recv 3<-2", 1, "completed");
    p2p(&j, 3, "1", "send 3->2", 2, "completed");
    coll(&j, "0", "all_reduce", 2, S(NULL, NULL, "scheduled", "scheduled"));
    for (int r = 0; r < 4; r++)
        snprintf(j.frtrace[r], sizeof j.frtrace[r],
                 "{\"comms\": {\"0\": {\"comm_rank\": %d, \"comm_size\": 4, \"parent\": null, "
                 "\"color\": -1, \"nccl_hash\": \"0x0\", \"state\": \"live\"}, \"1\": "
                 "{\"comm_rank\": %d, \"comm_size\": 4, \"parent\": null, \"color\": -1, "
                 "\"nccl_hash\": \"0x1\", \"state\": \"live\"}}, \"global_rank\": %d, "
                 "\"trigger\": \"timeout\", \"version\": \"1\"}",
                 r, r, r);
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "2");
    done(&j);
}

/* Only-active dumps of a ring of batches (each sends to the next, receives from the one before):
 * rank 0 sent to 2 instead of 1. Rank 2 completed batch #2 (its recv took rank 1's send on the
 * wire, the dump dropped it) and waits in #3, of other shapes; rank 1's batch #2 waits for the
 * send rank 0 never posted. Rank 1's send #2 and rank 2's recv #3, next in order, differ in id
 * and shapes: nothing shows them one transfer, no size mismatch; rank 0 is the culprit (tests/sim
 * seed 7382; mutant pu01). */
static void a_pair_of_other_ids_and_shapes_in_dropped_windows_is_no_mismatch(void **state) {
    job j;
    job_init(&j, 3);
    for (int r = 0; r < 3; r++) j.first_record[r] = 6;
    j.p2p_sizes = "[[4096]]";
    p2p(&j, 0, "0", "send 0->2", 2, "started");
    p2p(&j, 0, "0", "recv 0<-2", 2, "started");
    batch_end(&j, 0, "0", 2, "started");
    p2p(&j, 1, "0", "send 1->2", 2, "started");
    p2p(&j, 1, "0", "recv 1<-0", 2, "started");
    batch_end(&j, 1, "0", 2, "started");
    j.p2p_sizes = "[[1]]";
    p2p(&j, 2, "0", "send 2->0", 3, "scheduled");
    p2p(&j, 2, "0", "recv 2<-1", 3, "scheduled");
    batch_end(&j, 2, "0", 3, "scheduled");
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "0");
    done(&j);
}

/* Dumps that begin past record 0 (a ring, or only-active): ranks 0 and 1 begin with a plain
 * all_gather #7, pending, no end marker after it; rank 2's #7 is a bundle of two. A bundle the
 * ring cut keeps its end marker (the newest record), and nothing says #7 completed (which could
 * have dropped a marker from an only-active dump): the plain ones are whole, and rank 2
 * mismatches them (sim seed 2003; kills go02). */
static void a_pending_call_without_its_marker_was_not_cut(void **state) {
    job j;
    job_init(&j, 3);
    for (int r = 0; r < 3; r++) j.first_record[r] = 8;
    coll(&j, "0", "all_gather", 7, S("scheduled", "scheduled", "scheduled"));
    rec(&j, 2, "0", "all_gather", 7, "scheduled");
    rec(&j, 2, "0", "coalesced", 7, "scheduled");
    run(&j);
    assert_culprits(&j, FA_STATUS_MISMATCH, "2");
    done(&j);
}

/* PyTorch's NCCL barrier is an all_reduce of one float: rank 2's barrier #3 against the others'
 * all_reduce #3 of the same size and dtype is one NCCL collective, no type mismatch; the others
 * started it, rank 2 never did (sim seed 1936; kills go03). */
static void a_barrier_is_an_all_reduce_to_nccl(void **state) {
    job j;
    job_init(&j, 3);
    coll(&j, "0", "all_reduce", 3, S("started", "started", NULL));
    rec(&j, 2, "0", "all_reduce_barrier", 3, "scheduled");
    run(&j);
    assert_null(finding(&j, FA_TYPE_MISMATCH));
    assert_int_not_equal(j.a.verdict.status, FA_STATUS_MISMATCH);
    done(&j);
}

/* A ring of batches 0 -> 1 -> 2 -> 0 whose windows wrapped, every member numbering its batches
 * alike: at batch 2 rank 1 received from 2 instead of 0. Rank 0 posted sends to 1 in batches 1,
 * 2 and 3, rank 1 recvs from 0 in 1 and 3 only. Equal ids would pair 0's batch-3 send with 1's,
 * leaving 0's batch-2 send alone between two pairs; but NCCL pairs a peer's sends and recvs in
 * order, so that send meets 1's batch-3 recv, which expects other sizes: a mismatch of 0 and 1,
 * as tests/sim pairs them (seed 1310; mutation wp16). */
static void a_lone_send_between_pairs_pairs_in_order(void **state) {
    job j;
    job_init(&j, 3);
    const char *sends[] = { "send 0->1", "send 1->2", "send 2->0" },
               *recvs[] = { "recv 0<-2", "recv 1<-0", "recv 2<-1" };
    for (int r = 0; r < 3; r++) {
        j.first_record[r] = 5;
        for (int b = 1; b <= 3; b++) {
            j.p2p_sizes = b == 3 ? "[[8]]" : NULL;
            p2p(&j, r, "0", sends[r], b, b == 1 ? "completed" : "scheduled");
            p2p(&j, r, "0", r == 1 && b == 2 ? "recv 1<-2" : recvs[r], b,
                b == 1 ? "completed" : "scheduled");
            batch_end(&j, r, "0", b, b == 1 ? "completed" : "scheduled");
        }
    }
    run(&j);
    assert_culprits(&j, FA_STATUS_MISMATCH, "0,1");
    done(&j);
}

/* Pipeline 0 <- 1 <- 2 in group 1, windows wrapped, each stage numbering its own send/recv: rank
 * 0 received from 2 instead of 1 (its batch 3), and its next recv from 1 (batch 4) is queued
 * behind it. Rank 1's window shows its send/recv completed up to id 6, past 0's id 4; but that
 * recv of 0's never started, so it moved nothing with a send 1's window lost: it pairs with 1's
 * pending send, whose sizes it does not expect (tests/sim seed 614; mutation wp17). */
static void a_recv_queued_behind_a_wrong_source_pairs_with_the_pending_send(void **state) {
    job j;
    job_init(&j, 3);
    group(&j, "1", "pp", "[0, 1, 2]");
    for (int r = 0; r < 3; r++) j.first_record[r] = 5;
    p2p(&j, 0, "1", "recv 0<-2", 3, "scheduled");
    batch_end(&j, 0, "1", 3, "scheduled");
    j.p2p_sizes = "[[8]]";
    p2p(&j, 0, "1", "recv 0<-1", 4, "scheduled");
    batch_end(&j, 0, "1", 4, "scheduled");
    j.p2p_sizes = NULL;
    p2p(&j, 1, "1", "recv 1<-2", 6, "scheduled");
    batch_end(&j, 1, "1", 6, "completed");
    p2p(&j, 1, "1", "send 1->0", 7, "scheduled");
    batch_end(&j, 1, "1", 7, "scheduled");
    p2p(&j, 2, "1", "send 2->1", 5, "scheduled");
    batch_end(&j, 2, "1", 5, "completed");
    run(&j);
    assert_culprits(&j, FA_STATUS_MISMATCH, "0,1");
    done(&j);
}

/* Group 1 of ranks 0-3, where rank 1 sent to 3 instead of 2: 2 waits on its recv from 1, and
 * nobody receives 1's send. 0 and 3 went on to group 1's all_reduce #2 (after #1, which all four
 * ran), which 1 and 2 never issued; 4 waits for 3 in group 2 and 5 for 0 in group 3, which they
 * have not reached. 3 is waited for elsewhere, but it waits there on the poster itself: no
 * excuse for 1, and 0 and 3 are victims (tests/sim seed 2926; mutation wp03). */
static void a_waited_peer_that_waits_on_the_poster_excuses_nobody(void **state) {
    job j;
    job_init(&j, 6);
    j.group_ranks[0] = "[0, 1, 2, 3, 4, 5]";
    group(&j, "1", "pp", "[0, 1, 2, 3]");
    group(&j, "2", "dp", "[3, 4]");
    group(&j, "3", "dp", "[0, 5]");
    coll(&j, "0", "all_reduce", 1,
         S("completed", "completed", "completed", "completed", "completed", "completed"));
    coll(&j, "1", "all_reduce", 1,
         S("completed", "completed", "completed", "completed", NULL, NULL));
    j.p2p_coll_seq = 1;
    p2p(&j, 1, "1", "send 1->3", 1, "scheduled");
    p2p(&j, 2, "1", "recv 2<-1", 1, "scheduled");
    rec(&j, 0, "1", "all_reduce", 2, "scheduled");
    rec(&j, 3, "1", "all_reduce", 2, "scheduled");
    rec(&j, 4, "2", "all_reduce", 1, "scheduled");
    rec(&j, 5, "3", "all_reduce", 1, "scheduled");
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "1");
    done(&j);
}

/* Pipeline 0 <- 1 <- 2 <- 3 in group 1 where rank 3 sent to 1 instead of 2: 2 waits on its recv
 * from 3, its send to 1 queued behind it; 1 waits on that send, and in group 2 on 2, which never
 * got there; 4 waits for 1 in group 3 and 5 for 0 in group 4, which they have not reached. 1 is
 * blocked, not by 3 itself but by 2, which waits on 3: a chain back to the poster, no excuse for
 * it (tests/sim seed 2454; mutation wp19). */
static void a_peer_blocked_through_a_chain_to_the_poster_excuses_nobody(void **state) {
    job j;
    job_init(&j, 6);
    j.group_ranks[0] = "[0, 1, 2, 3, 4, 5]";
    group(&j, "1", "pp", "[0, 1, 2, 3]");
    group(&j, "2", "tp", "[1, 2]");
    group(&j, "3", "dp", "[1, 4]");
    group(&j, "4", "dp", "[0, 5]");
    coll(&j, "0", "all_reduce", 1,
         S("completed", "completed", "completed", "completed", "completed", "completed"));
    p2p(&j, 3, "1", "send 3->1", 1, "scheduled");
    p2p(&j, 2, "1", "recv 2<-3", 1, "scheduled");
    p2p(&j, 2, "1", "send 2->1", 2, "scheduled");
    p2p(&j, 1, "1", "recv 1<-2", 1, "scheduled");
    p2p(&j, 1, "1", "send 1->0", 2, "scheduled");
    rec(&j, 1, "2", "all_reduce", 1, "scheduled");
    p2p(&j, 0, "1", "recv 0<-1", 1, "scheduled");
    rec(&j, 4, "3", "all_reduce", 1, "scheduled");
    rec(&j, 5, "4", "all_reduce", 1, "scheduled");
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "3");
    done(&j);
}

/* Rank 2's dump has broadcast #2 pending, which 0, 1 and 3 completed, and behind it its batch of
 * group 1's ring 0 -> 1 -> 2 -> 0, which 0 and 1 completed with it: 2 ran that batch, so its
 * broadcast too, after its dump was taken (an older dump, not a stalled GPU). 0 and 1 wait in
 * all_reduce #3 for 2 and for 3, which never issued it: 3 is the culprit, and 2 presumed to have
 * gone on (tests/sim seed 2440; mutation wp20). */
static void a_batch_peers_completed_behind_the_head_shows_an_older_dump(void **state) {
    job j;
    job_init(&j, 4);
    group(&j, "1", "ring", "[0, 1, 2]");
    coll(&j, "0", "all_reduce", 1, S("completed", "completed", "completed", "completed"));
    coll(&j, "0", "broadcast", 2, S("completed", "completed", "scheduled", "completed"));
    const char *sends[] = { "send 0->1", "send 1->2", "send 2->0" },
               *recvs[] = { "recv 0<-2", "recv 1<-0", "recv 2<-1" },
               *ends[] = { "completed", "completed", "scheduled" };
    for (int r = 0; r < 3; r++) {
        p2p(&j, r, "1", sends[r], 1, "scheduled");
        p2p(&j, r, "1", recvs[r], 1, "scheduled");
        batch_end(&j, r, "1", 1, ends[r]);
    }
    coll(&j, "0", "all_reduce", 3, S("scheduled", "scheduled", NULL, NULL));
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "3");
    done(&j);
}

/* Ranks 0 and 1 completed #3 (their counters: an only-active dump keeps no completed entry),
 * while rank 2's dump still has #2 and #3 pending. Its stream runs #2 before #3, and #3
 * completed only once rank 2 ran it too: its GPU went past #2, so its dump is older than theirs
 * (or no longer recorded completions), no stalled GPU. The group finished all anyone issued:
 * nothing waits, ok (sim seeds 897, 1977; mutant os01). Where a member still has work of the group
 * pending, a stall is still read (gpu_lag_names_the_stalled_rank, the real gpu_error runs). */
static void a_pending_collective_its_stream_went_past_is_older(void **state) {
    job j;
    job_init(&j, 3);
    rec(&j, 2, "0", "all_reduce", 2, "scheduled");
    rec(&j, 2, "0", "all_reduce", 3, "scheduled");
    for (int r = 0; r < 3; r++)
        sprintf(j.status[r],
                "\"0\": {\"last_enqueued_collective\": 3, \"last_started_collective\": -1, "
                "\"last_completed_collective\": %d}",
                r == 2 ? 1 : 3);
    run(&j);
    assert_culprits(&j, FA_STATUS_OK, "");
    assert_true(fa_stale_known(&j.a.match.rank_stale[2]));
    done(&j);
    /* rank 1 has #4 pending, which rank 0 never issued: the group's work is not all done, and
     * rank 0 may have stopped with its completions unrecorded, as the real gpu_error runs show
     * (mutant os03) */
    job_init(&j, 2);
    rec(&j, 0, "0", "all_reduce", 2, "scheduled");
    rec(&j, 0, "0", "all_reduce", 3, "scheduled");
    rec(&j, 1, "0", "all_reduce", 4, "scheduled");
    for (int r = 0; r < 2; r++)
        sprintf(j.status[r],
                "\"0\": {\"last_enqueued_collective\": %d, \"last_started_collective\": -1, "
                "\"last_completed_collective\": %d}",
                3 + r, r ? 3 : 1);
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "0");
    assert_false(fa_stale_known(&j.a.match.rank_stale[0]));
    assert_int_equal(j.a.verdict.evidence[0].kind, FA_EV_STALLED);
    done(&j);
}

/* Two ranks, a pipeline pair 5 where they ran send/recv only, and an embedding group 6. Rank 0
 * ran an all_reduce #1 in group 5 instead of its #2 in group 6, where rank 1 waits. Rank 1's
 * pg_status says it completed 2 in group 5: PyTorch numbers a send/recv's work by the group's
 * send/recv count, and rank 1 issued no collective there (counts_p2p), so that is its recv #2,
 * not the all_reduce #1 it never issued: rank 0 did not stall with rank 1 done (sim seeds
 * 8558, 9888); each waits for the other, a two-rank cycle, both named. `whole`: the dumps keep
 * what completed; else they are only-active, and rank 1's window holds nothing of group 5. */
static void run_all_reduce_in_the_send_recv_pair(job *j, bool whole) {
    job_init(j, 2);
    group(j, "5", "PIPELINE", "[0, 1]");
    group(j, "6", "EMB", "[0, 1]");
    if (whole) {
        coll(j, "6", "all_reduce", 1, S("completed", "completed"));
        p2p(j, 0, "5", "send 0->1", 1, "completed");
        p2p(j, 1, "5", "recv 1<-0", 1, "completed");
        p2p(j, 0, "5", "recv 0<-1", 2, "completed");
        p2p(j, 1, "5", "send 1->0", 2, "completed");
    }
    j->coll_p2p_seq = 2;
    rec(j, 0, "5", "all_reduce", 1, "scheduled");
    j->coll_p2p_seq = 0;
    rec(j, 1, "6", "all_reduce", 2, "scheduled");
    strcpy(j->status[0],
           "\"5\": {\"last_enqueued_collective\": 1, \"last_started_collective\": -1, "
           "\"last_completed_collective\": 2}, \"6\": {\"last_enqueued_collective\": 1, "
           "\"last_started_collective\": -1, \"last_completed_collective\": 1}");
    strcpy(j->status[1],
           "\"5\": {\"last_enqueued_collective\": 2, \"last_started_collective\": -1, "
           "\"last_completed_collective\": 2}, \"6\": {\"last_enqueued_collective\": 2, "
           "\"last_started_collective\": -1, \"last_completed_collective\": 1}");
    run(j);
}

static void send_recv_counters_complete_no_collective_of_a_pair(void **state) {
    job j;
    run_all_reduce_in_the_send_recv_pair(&j, true);
    assert_culprits(&j, FA_STATUS_HANG, "0,1");
    done(&j);
}

/* The same job in only-active dumps: rank 1's "completed 2" in group 5 is above every collective
 * rank 0's entries show issued in the pair (#1, pending) and within the send/recv count rank 0's
 * all_reduce carries (2): a collective completes on nobody before every member issued it, so it
 * is a send/recv's number (mutation ap01; sim seed 16614: rank 1 named alone, "stalled in
 * all_reduce #1 (rank 0 completed it)"). */
static void send_recv_counters_above_the_peers_collectives_complete_none(void **state) {
    job j;
    run_all_reduce_in_the_send_recv_pair(&j, false);
    assert_culprits(&j, FA_STATUS_HANG, "0,1");
    done(&j);
}

/* Four ranks, pipeline pairs {0, 2} and {1, 3} (one family) that ran send/recv only, and a data
 * group of all four. Rank 0 ran an all_reduce #1 in its pair instead of the data group's #2,
 * which it has queued behind it; rank 2, with nothing pending in the pair, waits in the data
 * group's #2 for rank 0 (a two-rank cycle). The sibling pair ran no collective: rank 0 went
 * where the program never goes, rank 2 is its victim (sim seed 2026: 348 named, not 724). */
static void a_collective_no_sibling_pair_runs_names_its_issuer(void **state) {
    job j;
    job_init(&j, 4);
    group(&j, "5", "PIPELINE", "[0, 2]");
    group(&j, "6", "PIPELINE", "[1, 3]");
    group(&j, "7", "DATA", "[0, 1, 2, 3]");
    coll(&j, "7", "all_reduce", 1, S("completed", "completed", "completed", "completed"));
    p2p(&j, 0, "5", "send 0->1", 1, "completed");
    p2p(&j, 2, "5", "recv 1<-0", 1, "completed");
    p2p(&j, 1, "6", "send 0->1", 1, "completed");
    p2p(&j, 3, "6", "recv 1<-0", 1, "completed");
    j.coll_p2p_seq = 1;
    rec(&j, 0, "5", "all_reduce", 1, "scheduled");
    j.coll_p2p_seq = 0;
    coll(&j, "7", "all_reduce", 2, S("scheduled", "started", "started", "started"));
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "0");
    done(&j);
}

/* As above, with a second dimension under the pairs' description: PIPELINE also names {0, 1},
 * which ran a send/recv and a collective. It shares members with both pairs, so it is no sibling
 * of theirs (real gloo jobs name two dimensions EXPERT_GROUP alike); the family's counts, where
 * two of its groups share members, give way to asking each group (mutant fm01). */
static void a_collective_no_sibling_pair_runs_beside_an_overlapping_dimension(void **state) {
    job j;
    job_init(&j, 4);
    group(&j, "5", "PIPELINE", "[0, 2]");
    group(&j, "6", "PIPELINE", "[1, 3]");
    group(&j, "7", "DATA", "[0, 1, 2, 3]");
    group(&j, "8", "PIPELINE", "[0, 1]");
    p2p(&j, 0, "8", "send 0->1", 1, "completed");
    p2p(&j, 1, "8", "recv 1<-0", 1, "completed");
    j.coll_p2p_seq = 1;
    rec(&j, 0, "8", "all_reduce", 1, "completed");
    rec(&j, 1, "8", "all_reduce", 1, "completed");
    j.coll_p2p_seq = 0;
    coll(&j, "7", "all_reduce", 1, S("completed", "completed", "completed", "completed"));
    p2p(&j, 0, "5", "send 0->1", 1, "completed");
    p2p(&j, 2, "5", "recv 1<-0", 1, "completed");
    p2p(&j, 1, "6", "send 0->1", 1, "completed");
    p2p(&j, 3, "6", "recv 1<-0", 1, "completed");
    j.coll_p2p_seq = 1;
    rec(&j, 0, "5", "all_reduce", 1, "scheduled");
    j.coll_p2p_seq = 0;
    coll(&j, "7", "all_reduce", 2, S("scheduled", "started", "started", "started"));
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "0");
    done(&j);
}

/* In the pair group 5, rank 1's send/recv entries stay scheduled while its own counters, which
 * number send/recv alone there, say it completed both: they are done, and rank 1 waits for
 * nobody. Rank 0's dump is older (rank 1 completed #2 of the default group, rank 0 shows #1
 * pending) and holds nothing of group 5: nobody needs it there either, ok (sim seed 929;
 * mutant pc01). */
static void send_recv_its_own_counters_completed_wait_for_nobody(void **state) {
    job j;
    job_init(&j, 2);
    group(&j, "5", "pp", "[0, 1]");
    coll(&j, "0", "all_reduce", 1, S("scheduled", "completed"));
    rec(&j, 1, "0", "all_reduce", 2, "completed");
    p2p(&j, 1, "5", "recv 1<-0", 1, "scheduled");
    p2p(&j, 1, "5", "send 1->0", 2, "scheduled");
    strcpy(j.status[1], "\"5\": {\"last_enqueued_collective\": 2, \"last_started_collective\": -1, "
                        "\"last_completed_collective\": 2}");
    run(&j);
    assert_culprits(&j, FA_STATUS_OK, "");
    done(&j);
}

/* Rank 1's batch (send 1->2, recv 1<-0) ends its only-active dump, its entries left "scheduled"
 * and its end marker dropped; its pg_status says it completed #3 in the group, a number above
 * both counts the batch carries (collective #2 before it, send/recv #1 its own): work it issued
 * after the batch completed on the group's stream, so the batch did too, and nobody waits. With
 * #2 completed, the collective before the batch, nothing is proven; nor for a lone send (PyTorch
 * runs it on a communicator of the pair, with its own stream: real run gpu_error_1st): rank 1
 * still waits, a hang, for both idle peers of its batch, one launch (sim seeds 4525, 4771, 9616;
 * mutants lw01, lw02, lw03; to02). */
static void a_batch_behind_completed_work_is_done(void **state) {
    for (int c = 0; c < 3; c++) {
        int later = c != 1;
        job j;
        job_init(&j, 3);
        group(&j, "2", "mesh_shard", "[0, 1, 2]");
        coll(&j, "2", "all_reduce", 1, S("completed", "completed", "completed"));
        coll(&j, "2", "all_reduce", 2, S("completed", "completed", "completed"));
        j.p2p_coll_seq = 2;
        p2p(&j, 1, "2", "send 1->2", 1, "scheduled");
        if (c != 2) p2p(&j, 1, "2", "recv 1<-0", 1, "scheduled");
        for (int r = 0; r < 3; r++)
            snprintf(j.status[r], sizeof j.status[r],
                     "\"2\": {\"last_enqueued_collective\": %d, \"last_started_collective\": -1, "
                     "\"last_completed_collective\": %d}",
                     2 + later, 2 + later);
        run(&j);
        if (c == 0)
            assert_culprits(&j, FA_STATUS_OK, "");
        else /* the batch is one launch: its recv waits on rank 0 as its send on rank 2 */
            assert_culprits(&j, FA_STATUS_HANG, c == 1 ? "0,2" : "2");
        done(&j);
    }
}

/* Groups 1 {0, 1} and 2 {2, 3} have no description: one group shifted, one family (the tensor
 * groups of a layout). Each step runs a tensor all_reduce, then default_pg's; rank 3 ran its next
 * tensor all_reduce (#2) instead of default_pg #1, where 0-2 wait for it, while it waits for 2 in
 * group 2. Ranks 2 and 3 alone cannot tell whose order is the program's; ranks 0 and 1, in the
 * shifted group 1, ran default_pg #1 with no tensor #2 before it: rank 3 is the culprit, rank 2
 * blocked before (sim seeds 5690, 4058; mutant gw01). */
static void shifted_undescribed_groups_tell_the_order(void **state) {
    job j;
    job_init(&j, 4);
    group(&j, "1", "undefined", "[0, 1]");
    group(&j, "2", "undefined", "[2, 3]");
    coll(&j, "1", "all_reduce", 1, S("completed", "completed", NULL, NULL));
    coll(&j, "2", "all_reduce", 1, S(NULL, NULL, "completed", "completed"));
    rec(&j, 3, "2", "all_reduce", 2, "started");
    coll(&j, "0", "all_reduce", 1, S("scheduled", "scheduled", "scheduled", NULL));
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "3");
    done(&j);
}

/* Pipeline groups 3 {0, 2}, 4 {1, 3} and embedding groups 5 {0, 2}, 6 {1, 3}: each pair runs
 * embedding #1, #2, then pipeline #1. Rank 3 ran pipeline #1 before embedding #2: it waits for 1
 * there, 1 waits for it in embedding #2, and nobody else waits on either. The cycle's two ranks
 * each hold their own order only; the other pair, outside the cycle, ran embedding #2 first:
 * rank 3 is the culprit, rank 1 blocked before (sim seeds 4058, 9650; mutant gw02). */
static void the_sibling_pair_outside_a_cycle_tells_its_order(void **state) {
    job j;
    job_init(&j, 4);
    group(&j, "3", "PP", "[0, 2]");
    group(&j, "4", "PP", "[1, 3]");
    group(&j, "5", "EMB", "[0, 2]");
    group(&j, "6", "EMB", "[1, 3]");
    coll(&j, "5", "all_reduce", 1, S("completed", NULL, "completed", NULL));
    coll(&j, "6", "all_reduce", 1, S(NULL, "completed", NULL, "completed"));
    coll(&j, "5", "all_reduce", 2, S("completed", NULL, "completed", NULL));
    coll(&j, "3", "all_reduce", 1, S("completed", NULL, "completed", NULL));
    rec(&j, 1, "6", "all_reduce", 2, "started");
    rec(&j, 3, "4", "all_reduce", 1, "started");
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "3");
    done(&j);
}

/* The recorder, three pairs 1 {0, 1}, 2 {2, 3}, 3 {4, 5} without descriptions (one family): each
 * runs all_reduce #1, a send/recv batch (launch #2: one counter numbers both) and broadcast #3.
 * Rank 5 left the batch out: its broadcast took launch #2, where it waits for 4, while 4 waits in
 * the batch for it, its broadcast #3 queued behind. Rank 4's #3 is numbered past 5's #2, but it
 * went past nothing: it holds the batch at #2, as rank 4's place in the sibling pairs (0, 2) does,
 * and rank 5 is the one that left the order (sim seed 11211: 256 named for 257's skip). */
static void a_batch_at_the_launch_number_a_peer_ran_a_collective_at_is_no_skip(void **state) {
    job j;
    job_init(&j, 6);
    j.group_ranks[0] = "[0, 1, 2, 3, 4, 5]";
    group(&j, "1", "undefined", "[0, 1]");
    group(&j, "2", "undefined", "[2, 3]");
    group(&j, "3", "undefined", "[4, 5]");
    for (int r = 0; r < 6; r++) {
        const char *g = r < 2 ? "1" : r < 4 ? "2" : "3";
        bool stuck = r >= 4;
        rec(&j, r, g, "all_reduce", 1, "completed");
        if (r == 5) {
            rec(&j, r, g, "broadcast", 2, "started");
            continue;
        }
        j.p2p_coll_seq = 1;
        p2p(&j, r, g, r % 2 ? "recv 1<-0" : "send 0->1", 2, stuck ? "started" : "completed");
        p2p(&j, r, g, r % 2 ? "send 1->0" : "recv 0<-1", 2, stuck ? "started" : "completed");
        batch_end(&j, r, g, 2, stuck ? "started" : "completed");
        j.p2p_coll_seq = 0;
        j.coll_p2p_seq = 2;
        rec(&j, r, g, "broadcast", 3, stuck ? "scheduled" : "completed");
        j.coll_p2p_seq = 0;
    }
    for (int r = 0; r < 6; r++)
        snprintf(j.frtrace[r], sizeof j.frtrace[r],
                 "{\"comms\": {\"0\": {\"comm_rank\": %d, \"comm_size\": 6, \"parent\": null, "
                 "\"color\": -1, \"nccl_hash\": \"0x0\", \"state\": \"live\"}, "
                 "\"%d\": {\"comm_rank\": %d, \"comm_size\": 2, \"parent\": \"0\", "
                 "\"color\": %d, \"nccl_hash\": \"0x%d\", \"state\": \"live\"}}, "
                 "\"global_rank\": %d, \"trigger\": \"timeout\", \"version\": \"1\"}",
                 r, r / 2 + 1, r % 2, r / 2, r / 2 + 1, r);
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "5");
    done(&j);
}

/* The same groups, but 1 {0, 1} and 2 {0, 1} both shifted from 3 {2, 3} (a pipeline and an
 * embedding group of two stages): rank 3 ran all_reduce #1 on group 3, waiting there for 2,
 * while 2 waits for it in group 4 {2, 3}'s all_reduce #2. Rank 0's all_reduce #1 in group 1 may
 * stand for either op: nobody can tell the order, and both are named (mutant gw03). */
static void a_group_shifted_from_both_ops_witnesses_neither(void **state) {
    job j;
    job_init(&j, 4);
    group(&j, "1", "undefined", "[0, 1]");
    group(&j, "3", "undefined", "[2, 3]");
    group(&j, "4", "undefined", "[2, 3]");
    coll(&j, "1", "all_reduce", 1, S("completed", "completed", NULL, NULL));
    coll(&j, "4", "all_reduce", 1, S(NULL, NULL, "completed", "completed"));
    coll(&j, "1", "all_reduce", 2, S("completed", "completed", NULL, NULL));
    rec(&j, 2, "4", "all_reduce", 2, "started");
    rec(&j, 3, "3", "all_reduce", 1, "started");
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "2,3");
    done(&j);
}

/* Pairs 5 {1, 3} and 6 {0, 2}, one group shifted. Rank 3 ran the job's all_reduce #2 in its
 * pair (5 #2), then the job's next one as its #2: every rank has 0 #2 pending, ranks 0-2 #3 as
 * well, which 3 never issued, and 3 waits for 1 in 5 #2. Rank 3's 0 #2 below the missing #3 does
 * not show it blocked before #3: it issued 5 #2 first, which every other rank, holding 0 #3 and
 * no #2 in its pair, puts after. Rank 3 alone is the culprit, 1 blocked before (sim seed 10278;
 * mutant or01). */
static void an_op_issued_out_of_order_before_a_lower_number_breaks_it(void **state) {
    job j;
    job_init(&j, 4);
    group(&j, "5", "undefined", "[1, 3]");
    group(&j, "6", "undefined", "[0, 2]");
    coll(&j, "0", "all_reduce", 1, S("completed", "completed", "completed", "completed"));
    coll(&j, "6", "all_reduce", 1, S("completed", NULL, "completed", NULL));
    coll(&j, "5", "all_reduce", 1, S(NULL, "completed", NULL, "completed"));
    rec(&j, 3, "5", "all_reduce", 2, "scheduled");
    coll(&j, "0", "all_reduce", 2, S("scheduled", "scheduled", "scheduled", "scheduled"));
    coll(&j, "0", "all_reduce", 3, S("scheduled", "scheduled", "scheduled", NULL));
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "3");
    done(&j);
}

/* Pairs of two stages 1 {0, 2} and 2 {0, 2} (a pipeline and an embedding group, one group
 * shifted from each other and from 3 {1, 3}, 4 {1, 3}), a data-parallel pair 5 {0, 1}. Ranks 0
 * and 1 run broadcast #1 in 5, then each rank all_reduce #1 in its embedding group. Rank 0 ran the
 * broadcast in group 1 instead: it waits there for 2, 2 waits for it in 2's all_reduce #1, and 1
 * waits for it in 5. Rank 1's history shows 0 went past that broadcast; nothing tells whether 2,
 * absent from group 1's, is blocked before it (no sibling can tell the two groups of the pair
 * apart). Rank 0 is the culprit; 2 is offered beside it, not named (sim seeds 4996, 10606, 7859;
 * mutant ou01). */
static void a_rank_beside_one_that_left_the_order_is_offered_not_named(void **state) {
    job j;
    job_init(&j, 4);
    group(&j, "1", "undefined", "[0, 2]");
    group(&j, "2", "undefined", "[0, 2]");
    group(&j, "3", "undefined", "[1, 3]");
    group(&j, "4", "undefined", "[1, 3]");
    group(&j, "5", "undefined", "[0, 1]");
    coll(&j, "0", "all_reduce", 1, S("completed", "completed", "completed", "completed"));
    rec(&j, 0, "1", "broadcast", 1, "started");
    rec(&j, 0, "2", "all_reduce", 1, "scheduled");
    rec(&j, 1, "5", "broadcast", 1, "started");
    rec(&j, 1, "4", "all_reduce", 1, "scheduled");
    rec(&j, 2, "2", "all_reduce", 1, "started");
    rec(&j, 3, "4", "all_reduce", 1, "started");
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "0");
    assert_true(offers(&j, 2));
    done(&j);
}

/* A recorder communicator of three, its members rebuilt from the comms of ranks 0 and 1; rank
 * 2's dump was cut inside its entries, before its comms: it takes the slot left (the one rank
 * that can), and its entries of the communicator are that group's, not a group of their own
 * filled with ranks 3 and 4 that the job lacks (sim seeds 153, 2492; mutant rk01). */
static void a_cut_recorder_dump_joins_the_communicator_it_fills(void **state) {
    job j;
    job_init(&j, 3);
    group(&j, "5", "tp", "[]");
    j.output_sizes = "[[12, 4]]";
    coll(&j, "5", "all_gather", 1, S("completed", "completed", "completed"));
    coll(&j, "5", "all_gather", 2, S("completed", "completed", "completed"));
    for (int r = 0; r < 2; r++)
        snprintf(j.frtrace[r], sizeof j.frtrace[r],
                 "{\"comms\": {\"5\": {\"comm_rank\": %d, \"comm_size\": 3, \"parent\": \"0\", "
                 "\"color\": 0, \"nccl_hash\": \"0x5\", \"state\": \"live\"}}, "
                 "\"global_rank\": %d, \"trigger\": \"timeout\", \"version\": \"1\"}",
                 r, r);
    j.skip[2] = 3;
    run(&j);
    assert_culprits(&j, FA_STATUS_OK, "");
    long tp = -1;
    for (size_t g = 0; g < j.a.groups.n; g++)
        if (strcmp(j.a.groups.v[g].name, "5") == 0) tp = tp < 0 ? (long)g : -2;
    assert_true(tp >= 0);
    assert_int_equal(j.a.groups.v[tp].nmembers, 3);
    assert_int_equal(j.a.groups.v[tp].members[2], 2);
    assert_int_equal(j.a.groups.v[0].nmembers, 3);
    done(&j);
}

/* The same communicator; rank 2's cut dump lost its recorder keys but is the recorder's, as its
 * peers' are: its all_reduce pending as #3 is launch #3, after the send/recv batch (launch #2),
 * and proves no collective #2 that rank 1, which shows #1 alone, must have joined: rank 1's dump
 * is not older (sim seed 10185; mutant rk02). */
static void a_cut_dump_beside_recorder_dumps_counts_launches(void **state) {
    job j;
    job_init(&j, 3);
    group(&j, "5", "tp", "[]");
    coll(&j, "5", "all_reduce", 1, S("completed", "completed", NULL));
    j.p2p_coll_seq = 1;
    p2p(&j, 0, "5", "send 0->2", 2, "started");
    batch_end(&j, 0, "5", 2, "started");
    p2p(&j, 2, "5", "recv 2<-0", 2, "completed");
    batch_end(&j, 2, "5", 2, "completed");
    rec(&j, 2, "5", "all_reduce", 3, "scheduled");
    for (int r = 0; r < 2; r++)
        snprintf(j.frtrace[r], sizeof j.frtrace[r],
                 "{\"comms\": {\"5\": {\"comm_rank\": %d, \"comm_size\": 3, \"parent\": \"0\", "
                 "\"color\": 0, \"nccl_hash\": \"0x5\", \"state\": \"live\"}}, "
                 "\"global_rank\": %d, \"trigger\": \"timeout\", \"version\": \"1\"}",
                 r, r);
    j.skip[2] = 3;
    run(&j);
    assert_false(fa_stale_known(&j.a.match.rank_stale[1]));
    done(&j);
}

/* Rank 2's dump was cut inside its entries: it shows #1 done and #2's bundle (an all_reduce and
 * a broadcast, their end marker lost) pending, the oldest it had open, as on ranks 0 and 1, which
 * have #3 queued behind it. As of its dump rank 2 had joined #2; nobody waits in the bundle's
 * broadcast nor in #3 yet (queued behind the all_reduce), where what it did is unknown: nothing
 * blocked, ok, never "rank 2 never issued #2" (sim seed 2879; mutants aw01, aw03). */
static void a_cut_dump_that_joined_the_oldest_open_op_is_not_waited_for(void **state) {
    job j;
    job_init(&j, 3);
    coll(&j, "0", "all_reduce", 1, S("completed", "completed", "completed"));
    coll(&j, "0", "all_reduce", 2, S("scheduled", "scheduled", "scheduled"));
    coll(&j, "0", "broadcast", 2, S("scheduled", "scheduled", "scheduled"));
    coll(&j, "0", "all_reduce", 3, S("scheduled", "scheduled", NULL));
    j.skip[2] = 3;
    run(&j);
    assert_culprits(&j, FA_STATUS_OK, "");
    done(&j);
}

/* Rank 0 waits for rank 1, which left no dump, in their group's all_reduce #1; rank 2 waits in
 * default_pg's all_reduce #2 for rank 0, which never issued it, and for rank 3, whose dump was cut
 * after its whole entries (ranks 2 and 3 are past their own group's all_reduce #2). Rank 1 waiting
 * there, blocked behind rank 3, would need rank 0 to join it first, which rank 0 cannot before rank
 * 1 joins their all_reduce: rank 1 would wait on itself. So rank 1 is the culprit, never "1 or 3";
 * rank 3 may have stopped too, an alternative beside it (sim seed 183; mutant sh01). */
static void an_unknown_rank_is_no_victim_where_it_would_wait_on_itself(void **state) {
    job j;
    job_init(&j, 4);
    group(&j, "1", "dp", "[0, 1]");
    group(&j, "2", "dp", "[2, 3]");
    coll(&j, "0", "all_reduce", 1, S("completed", "completed", "completed", "completed"));
    coll(&j, "2", "all_reduce", 1, S(NULL, NULL, "completed", "completed"));
    coll(&j, "2", "all_reduce", 2, S(NULL, NULL, "completed", "completed"));
    rec(&j, 0, "1", "all_reduce", 1, "started");
    rec(&j, 2, "0", "all_reduce", 2, "started");
    j.skip[1] = 1;
    j.skip[3] = 3;
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "1");
    bool beside = false;
    for (size_t i = 0; i < j.a.verdict.nalternatives; i++) {
        char *who = fa_ranks_format(j.a.verdict.alternatives[i].ranks.v,
                                    j.a.verdict.alternatives[i].ranks.n);
        beside |= strcmp(who, "1,3") == 0;
        free(who);
    }
    assert_true(beside);
    done(&j);
}

/* The same job, rank 0 having also issued their group's all_reduce #2 (scheduled, queued behind
 * #1 on the group's stream, which waits for rank 1): rank 0 still cannot go on before rank 1
 * does, and rank 1 waiting in default_pg's all_reduce #2 would still wait on itself. So rank 1
 * alone, never "1 or 3" (verdict_selfheld.c's worklist covering #2 by the older #1; sim seed 183;
 * mutant sh02). */
static void a_pending_op_queued_behind_a_self_held_one_is_held_too(void **state) {
    job j;
    job_init(&j, 4);
    group(&j, "1", "dp", "[0, 1]");
    group(&j, "2", "dp", "[2, 3]");
    coll(&j, "0", "all_reduce", 1, S("completed", "completed", "completed", "completed"));
    coll(&j, "2", "all_reduce", 1, S(NULL, NULL, "completed", "completed"));
    coll(&j, "2", "all_reduce", 2, S(NULL, NULL, "completed", "completed"));
    rec(&j, 0, "1", "all_reduce", 1, "started");
    rec(&j, 0, "1", "all_reduce", 2, "scheduled");
    rec(&j, 2, "0", "all_reduce", 2, "started");
    j.skip[1] = 1;
    j.skip[3] = 3;
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "1");
    done(&j);
}

/* The same job, rank 3 without any dump: rank 1 still cannot wait where it would wait on itself,
 * but beside another rank without a dump that others wait for E1's judgement names both, as
 * before (name_waited_unknowns), never rank 1 alone with rank 3 excused behind it (sim seed 2805;
 * mutant sh03). */
static void two_ranks_without_a_dump_stay_named_beside_a_self_held_wait(void **state) {
    job j;
    job_init(&j, 4);
    group(&j, "1", "dp", "[0, 1]");
    group(&j, "2", "dp", "[2, 3]");
    coll(&j, "0", "all_reduce", 1, S("completed", "completed", "completed", "completed"));
    coll(&j, "2", "all_reduce", 1, S(NULL, NULL, "completed", "completed"));
    coll(&j, "2", "all_reduce", 2, S(NULL, NULL, "completed", "completed"));
    rec(&j, 0, "1", "all_reduce", 1, "started");
    rec(&j, 2, "0", "all_reduce", 2, "started");
    j.skip[1] = j.skip[3] = 1;
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "1,3");
    done(&j);
}

/* End events only (FRTRACE_GPU_EVENTS=1: nothing is ever "started"): every rank has all_reduce
 * #2 scheduled with #3 queued behind it. From a running job that is ok; but rank 0's dump says its
 * own watchdog timed out, on #2, its oldest pending op: the collective is stuck past the timeout,
 * hang with stuck_collective and no culprit (random_rec_jobs seeds 253, 354, 406, 532; mutant
 * to01). Without that word the same entries stay ok. */
static void a_collective_scheduled_everywhere_past_a_timeout_is_stuck(void **state) {
    for (int timed_out = 0; timed_out < 2; timed_out++) {
        job j;
        job_init(&j, 3);
        coll(&j, "0", "all_reduce", 1, S("completed", "completed", "completed"));
        coll(&j, "0", "all_reduce", 2, S("scheduled", "scheduled", "scheduled"));
        coll(&j, "0", "all_reduce", 3, S("scheduled", "scheduled", "scheduled"));
        for (int r = 0; r < 3; r++)
            snprintf(j.frtrace[r], sizeof j.frtrace[r],
                     "{\"global_rank\": %d, \"trigger\": \"%s\", \"version\": \"1\"}", r,
                     r == 0 && timed_out ? "timeout" : "trigger_file");
        run(&j);
        assert_culprits(&j, timed_out ? FA_STATUS_HANG : FA_STATUS_OK, "");
        const fa_finding *x = finding(&j, FA_STUCK_COLLECTIVE);
        assert_true(timed_out ? x && j.a.match.ops[x->op].seq == 2 : !x);
        if (x) assert_int_equal(x->cause, FA_CAUSE_TIMEOUT);
        done(&j);
    }
}

/* Rank 2 stopped after #1 (nothing pending); rank 0 left all_reduce #2 out and waits in its
 * batch, whose send to rank 1 is queued behind rank 1's #2 and whose recv from rank 2 rank 2 never
 * posted; rank 1 waits in #2 for 0 and 2. The batch is one launch at rank 0's stream head: its
 * recv from rank 2 is as much rank 0's wait as its send, not queued behind it, so rank 2, idle
 * and waited for, is the culprit; never ok (random_rec_jobs seed 225; mutant to02). */
static void a_recv_in_the_batch_at_the_stream_head_is_a_wait(void **state) {
    job j;
    job_init(&j, 3);
    group(&j, "5", "dp", "[0, 2]");
    coll(&j, "0", "all_reduce", 1, S("completed", "completed", "completed"));
    coll(&j, "5", "all_to_all", 1, S("completed", NULL, "completed"));
    p2p(&j, 0, "0", "send 0->1", 1, "scheduled");
    p2p(&j, 0, "0", "recv 0<-2", 1, "scheduled");
    batch_end(&j, 0, "0", 1, "scheduled");
    rec(&j, 0, "5", "all_to_all", 2, "scheduled");
    rec(&j, 1, "0", "all_reduce", 2, "started");
    p2p(&j, 1, "0", "recv 1<-0", 1, "scheduled");
    p2p(&j, 1, "0", "send 1->2", 1, "scheduled");
    batch_end(&j, 1, "0", 1, "scheduled");
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "2");
    done(&j);
}

/* The cases of dumps that end before the others' (older, or cut short) and of counters that say
 * more than the entries: a group of their own, main's list being long enough. */
static int run_partial_dump_tests(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_pending_collective_its_stream_went_past_is_older),
        cmocka_unit_test(send_recv_its_own_counters_completed_wait_for_nobody),
        cmocka_unit_test(a_batch_behind_completed_work_is_done),
        cmocka_unit_test(shifted_undescribed_groups_tell_the_order),
        cmocka_unit_test(a_batch_at_the_launch_number_a_peer_ran_a_collective_at_is_no_skip),
        cmocka_unit_test(the_sibling_pair_outside_a_cycle_tells_its_order),
        cmocka_unit_test(a_group_shifted_from_both_ops_witnesses_neither),
        cmocka_unit_test(an_op_issued_out_of_order_before_a_lower_number_breaks_it),
        cmocka_unit_test(a_rank_beside_one_that_left_the_order_is_offered_not_named),
        cmocka_unit_test(a_cut_recorder_dump_joins_the_communicator_it_fills),
        cmocka_unit_test(a_cut_dump_beside_recorder_dumps_counts_launches),
        cmocka_unit_test(a_cut_dump_that_joined_the_oldest_open_op_is_not_waited_for),
        cmocka_unit_test(an_unknown_rank_is_no_victim_where_it_would_wait_on_itself),
        cmocka_unit_test(a_pending_op_queued_behind_a_self_held_one_is_held_too),
        cmocka_unit_test(two_ranks_without_a_dump_stay_named_beside_a_self_held_wait),
    };
    return cmocka_run_group_tests_name("partial dumps", tests, NULL, NULL);
}

/* gloo groups without a description are runs of consecutive numbers: {0,2} and {1,3} (groups 1,
 * 2) are one family; group 4, {4}, made after a described group 3, starts another, though its
 * member is not in the first family's groups. Rank 5 left no dump. Read as one family of groups
 * of two, {4} would be one short and take rank 5, the one rank whose groups no dump shows: a
 * member nothing says it has, and "hang: rank 5" for an all_reduce rank 4 completed (mutation
 * ro02: the earlier test of it, undescribed_groups_make_families_by_their_order, no longer tells
 * once fill_unknown_slots puts its rank 4 back either way). */
static void undescribed_groups_run_by_consecutive_numbers(void **state) {
    job j;
    job_init(&j, 6);
    j.backend = "gloo";
    j.gloo_config = 1;
    j.group_ranks[0] = "[0, 1, 2, 3, 4, 5]";
    group(&j, "1", "undefined", "[0, 2]");
    group(&j, "2", "undefined", "[1, 3]");
    group(&j, "3", "pair", "[0, 1]");
    group(&j, "4", "undefined", "[4]");
    coll(&j, "0", "all_reduce", 1,
         S("completed", "completed", "completed", "completed", "completed", NULL));
    coll(&j, "1", "all_reduce", 1, S("completed", NULL, "completed"));
    coll(&j, "2", "all_reduce", 1, S(NULL, "completed", NULL, "completed"));
    coll(&j, "3", "all_reduce", 1, S("completed", "completed"));
    rec(&j, 4, "4", "all_reduce", 1, "completed");
    j.skip[5] = 1;
    run(&j);
    const fa_group *g = group_named(&j, "4");
    assert_non_null(g);
    assert_int_equal(g->nmembers, 1);
    assert_culprits(&j, FA_STATUS_OK, "");
    done(&j);
}

/* A ring of batches, each rank sending to the next and receiving from the one before, with
 * dumps that keep only what is in flight (record ids start past 0). Rank 1 received from 3
 * instead of 0: its batch (send 1->2, recv 1<-3) never completes, and 0's (send 0->1) waits on
 * it. Ranks 2 and 3 show nothing: whether 2 received 1's send is unknown, and 1 waits there on
 * nobody but itself (its own wrong recv holds its batch): 1 alone is the culprit (tests/sim
 * seed 6644; mutation wp22). */
static void a_peer_of_the_wrong_batch_that_shows_nothing_is_waited_by_nobody(void **state) {
    job j;
    job_init(&j, 4);
    for (int r = 0; r < 4; r++) j.first_record[r] = 5;
    p2p(&j, 0, "0", "send 0->1", 1, "started");
    p2p(&j, 0, "0", "recv 0<-3", 1, "started");
    batch_end(&j, 0, "0", 1, "started");
    p2p(&j, 1, "0", "send 1->2", 1, "started");
    p2p(&j, 1, "0", "recv 1<-3", 1, "started");
    batch_end(&j, 1, "0", 1, "started");
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "1");
    done(&j);
}

/* As above, with whole histories, and ranks 2 and 3 both pending in X #1 of their own group.
 * Rank 1's send to 2 lies in the batch of its wrong recv from 3, which never completes: it waits
 * on nobody absent, so rank 2, busy in X, is not waited for there (an op whose every pending
 * member is held by its own wrong end) and is never named; the maybe-done-unshown rule cannot
 * spare it, as rank 2 has work pending (tests/sim seed 6644) (kills wp22). */
static void a_busy_peer_of_the_wrong_batch_is_waited_by_nobody(void **state) {
    job j;
    job_init(&j, 4);
    group(&j, "1", "X", "[2, 3]");
    p2p(&j, 0, "0", "send 0->1", 1, "started");
    p2p(&j, 0, "0", "recv 0<-3", 1, "started");
    batch_end(&j, 0, "0", 1, "started");
    p2p(&j, 1, "0", "send 1->2", 1, "started");
    p2p(&j, 1, "0", "recv 1<-3", 1, "started");
    batch_end(&j, 1, "0", 1, "started");
    rec(&j, 2, "1", "all_reduce", 1, "scheduled");
    rec(&j, 3, "1", "all_reduce", 1, "scheduled");
    run(&j);
    assert_int_equal(j.a.verdict.status, FA_STATUS_HANG);
    assert_true(fa_ranks_contains(&j.a.verdict.culprits, 1));
    assert_false(fa_ranks_contains(&j.a.verdict.culprits, 2));
    done(&j);
}

/* Rank 0's batch sends to and receives from rank 1 alone; rank 1's dump keeps only what is in
 * flight and shows nothing. Rank 1 cannot have done both ends on the wire while rank 0's batch
 * still waits (short of a stalled GPU or network, which a culprit rules out first): it never
 * posted them, the culprit (tests/sim seed 10413; mutant wu02). */
static void a_batch_only_with_a_peer_that_shows_nothing_waits_for_it(void **state) {
    job j;
    job_init(&j, 2);
    for (int r = 0; r < 2; r++) j.first_record[r] = 5;
    p2p(&j, 0, "0", "send 0->1", 1, "started");
    p2p(&j, 0, "0", "recv 0<-1", 1, "started");
    batch_end(&j, 0, "0", 1, "started");
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "1");
    done(&j);
}

/* As above in a group of three: rank 2 idle too, its dump (only-active) empty. The pg_status
 * counters of a group of more than two count send/recv per rank, not per pair, so nothing shows
 * whether rank 1 never posted its ends or did them, its only-active dump dropping them done,
 * while rank 0's GPU stalled after the transfers: one of 0 and 1, no culprit (tests/sim's E17;
 * sim seeds 452, 10413). */
static void a_lone_peer_that_shows_nothing_in_a_group_of_three_is_one_of_two(void **state) {
    job j;
    job_init(&j, 3);
    for (int r = 0; r < 3; r++) j.first_record[r] = 5;
    p2p(&j, 0, "0", "send 0->1", 1, "started");
    p2p(&j, 0, "0", "recv 0<-1", 1, "started");
    batch_end(&j, 0, "0", 1, "started");
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "");
    assert_int_equal(j.a.verdict.nalternatives, 2);
    for (size_t i = 0; i < 2; i++) {
        assert_int_equal(j.a.verdict.alternatives[i].ranks.n, 1);
        assert_true(fa_ranks_contains(&j.a.verdict.alternatives[i].ranks, (int64_t)i));
    }
    done(&j);
}

/* As above with a batch to two peers, but the rings of ranks 1 and 2 wrapped keeping completed
 * entries (all_reduce #1): a ring drops its oldest entries, never one newer than those it shows,
 * so neither posted its end; both are waited for (tests/sim seed 10539; mutant wu03). */
static void a_wrapped_ring_that_keeps_completed_work_hides_no_transfer(void **state) {
    job j;
    job_init(&j, 3);
    for (int r = 0; r < 3; r++) j.first_record[r] = 5;
    coll(&j, "0", "all_reduce", 1, S("completed", "completed", "completed"));
    p2p(&j, 0, "0", "send 0->1", 1, "started");
    p2p(&j, 0, "0", "recv 0<-2", 1, "started");
    batch_end(&j, 0, "0", 1, "started");
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "1,2");
    done(&j);
}

/* A send of Float that its recv reads as Half: the sizes agree, the dtypes do not. Both windows
 * whole, so the order pairs them (tests/sim seeds 2939, 2270, 3671, 7881: a wrong peer shifted
 * which send meets which recv; mutation wp30). */
static void a_send_and_its_recv_of_other_dtypes_mismatch(void **state) {
    job j;
    job_init(&j, 2);
    coll(&j, "0", "all_reduce", 1, S("completed", "completed"));
    p2p(&j, 0, "0", "send 0->1", 1, "scheduled");
    j.p2p_dtype = "Half";
    p2p(&j, 1, "0", "recv 1<-0", 1, "scheduled");
    run(&j);
    assert_culprits(&j, FA_STATUS_MISMATCH, "0,1");
    done(&j);
}

/* Rank 0's ring wrapped (its first record is 3) and holds only its pending send #5 to rank 1;
 * rank 1 holds its completed recv #1 and its pending recv #2 from rank 0. Rank 1's completed recv
 * has no partner in rank 0's window: the transfers between them that rank 0's ring dropped are
 * unknown, so the pending send and the pending recv, paired by their order alone, may be
 * different transfers. Their dtypes differing is no mismatch (tests/sim seed 504: pipeline stages
 * under a ring of 32; mutation wp31). */
static void a_pair_by_order_alone_compares_no_dtypes(void **state) {
    job j;
    job_init(&j, 3);
    j.first_record[0] = 3;
    p2p(&j, 0, "0", "send 0->1", 5, "scheduled");
    p2p(&j, 1, "0", "recv 1<-0", 1, "completed");
    j.p2p_dtype = "Half";
    p2p(&j, 1, "0", "recv 1<-0", 2, "scheduled");
    j.p2p_dtype = NULL;
    run(&j);
    assert_true(j.a.verdict.status != FA_STATUS_MISMATCH);
    assert_null(finding(&j, FA_DTYPE_MISMATCH));
    done(&j);
}

/* A ring of batches (each rank sends to the next, receives from the one before), only-active
 * dumps: rank 2 posted its recv from 0 instead of 1. Ranks 0 and 3 completed their batches (the
 * dumps dropped them) and hold all_reduce_barrier #1 pending; their entries carry p2p_seq_id 1
 * and their pg_status says 1 completed. That 1 is the batch's number (PyTorch's counters mix
 * send/recv numbers in), not the barrier's: the barrier is not read as completed, and rank 2 is
 * the culprit, not an "ok" job (tests/sim seed 10900; mutation wp32). */
static void a_counter_after_send_recv_completes_no_collective(void **state) {
    job j;
    job_init(&j, 4);
    p2p(&j, 1, "0", "send 1->2", 1, "scheduled");
    p2p(&j, 1, "0", "recv 1<-0", 1, "scheduled");
    batch_end(&j, 1, "0", 1, "scheduled");
    p2p(&j, 2, "0", "send 2->3", 1, "scheduled");
    p2p(&j, 2, "0", "recv 2<-0", 1, "scheduled");
    batch_end(&j, 2, "0", 1, "scheduled");
    j.coll_p2p_seq = 1;
    coll(&j, "0", "all_reduce_barrier", 1, S("scheduled", "scheduled", "scheduled", "scheduled"));
    for (int r = 0; r < 4; r++)
        sprintf(j.status[r],
                "\"0\": {\"last_enqueued_collective\": 1, \"last_started_collective\": -1, "
                "\"last_completed_collective\": %d}",
                r == 0 || r == 3 ? 1 : -1);
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "2");
    done(&j);
}

/* gloo, rank 2 left no dump. Ranks 0 and 3 completed all_reduce #1 of the default group; rank 1's
 * #1 is still pending. Rank 0 waits in #2, which ranks 1 and 3 never issued. Rank 1's pending #1
 * does not wait for the dumpless rank 2: ranks 0 and 3 completed it, which no all_reduce does
 * before every member took part, so rank 2 joined #1 and rank 1 is not "behind" it (not excused
 * as a rank of unknown state's victim). Ranks 1 and 3 both never joined #2: both are named
 * (mutation ro32; found by a random differential search of small jobs, job 146487). */
static void a_rank_pending_in_an_op_a_peer_completed_is_not_behind_a_lost_rank(void **state) {
    job j;
    job_init(&j, 4);
    j.backend = "gloo";
    j.skip[2] = 1;
    coll(&j, "0", "all_reduce", 1, S("completed", "scheduled", NULL, "completed"));
    coll(&j, "0", "all_reduce", 2, S("scheduled", NULL, NULL, NULL));
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "1,3");
    done(&j);
}

/* The job of the two tests below: gloo groups A, B, C rebuilt from the entries (pg_config names
 * no member); rank 2 pending alone in B, after completing B #1 there when `b_ran_before`. */
static void lone_member_job(job *j, bool b_ran_before) {
    job_init(j, 6);
    j->backend = "gloo";
    j->gloo_config = 1;
    group(j, "1", "A", "[]");
    group(j, "2", "B", "[]");
    group(j, "3", "C", "[]");
    coll(j, "1", "all_reduce", 1, S("completed", "completed", "completed"));
    coll(j, "1", "all_reduce", 2, S("scheduled", "scheduled", NULL));
    if (b_ran_before) rec(j, 2, "2", "all_reduce", 1, "completed");
    rec(j, 2, "2", "all_reduce", b_ran_before ? 2 : 1, "scheduled");
    j->first_record[3] = j->first_record[5] = 5;
    coll(j, "3", "all_reduce", 1, S(NULL, NULL, NULL, "scheduled", NULL, "scheduled"));
    rec(j, 4, "0", "barrier", 1, "completed"); /* counts C, names none: C's member */
    strcpy(j->status[4], "\"3\": {\"last_enqueued_collective\": 0, "
                         "\"last_started_collective\": -1, \"last_completed_collective\": 0}");
}

/* gloo groups rebuilt from the entries (pg_config names no member). A {0,1,2}: ranks 0,1 wait in
 * all_reduce #2, which rank 2 never issued: rank 2 is pending alone in B all_reduce #2 after it
 * completed B #1, which needed B's other member; that member's ring wrapped (ranks 3 and 5: their
 * dumps lost whatever came first) and no dump names it. Rank 2 waits for it (gloo blocks in its
 * call): a victim, not a culprit for A. Ranks 3,5 wait in C #1 for rank 4, idle, whose counters
 * count C (its entries name no C): the culprit (sim seed 5387: rank 16 alone in its expert
 * group's all_to_all #2, partner 20's ring of 3 without it, 20 blocked behind the stopped rank
 * 21). */
static void a_lone_member_after_a_completed_collective_waits_for_its_partner(void **state) {
    job j;
    lone_member_job(&j, true);
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "4");
    done(&j);
}

/* The same, but rank 2's pending B collective is the group's first: nothing shows B ran with
 * another member, and rank 2 may have issued it on the wrong group (sim seed 1337): it stays named.
 */
static void a_lone_member_in_a_first_collective_stays_named(void **state) {
    job j;
    lone_member_job(&j, false);
    run(&j);
    char *got = culprits(&j);
    assert_non_null(strstr(got, "2"));
    free(got);
    done(&j);
}

/* Ranks 4 and 5 left no dump. Ranks 0,2,6 wait for 4 in A #2; ranks 1,7 wait in B #2 for 5 and
 * for 3, which waits for 4 in T #1. Nothing the dumps show is stuck: rank 5 may be blocked in B
 * #2 behind 3, but an unknown rank is never seen waiting, and a rank without a dump is no
 * witness that another is blocked (tests/sim's E1): both are named, not 4 with 5 beside it
 * (sim seeds 3093, 3654: a killed rank and a garbage dump). */
static void an_unknown_rank_behind_another_unknown_is_named(void **state) {
    job j;
    job_init(&j, 8);
    j.backend = "gloo";
    j.group_ranks[0] = "[0, 1, 2, 3, 4, 5, 6, 7]";
    group(&j, "1", "A", "[0, 2, 4, 6]");
    group(&j, "2", "B", "[1, 3, 5, 7]");
    group(&j, "3", "T", "[3, 4]");
    j.skip[4] = j.skip[5] = 1;
    coll(&j, "1", "all_reduce", 1,
         S("completed", NULL, "completed", NULL, NULL, NULL, "completed"));
    coll(&j, "1", "all_reduce", 2,
         S("scheduled", NULL, "scheduled", NULL, NULL, NULL, "scheduled"));
    coll(&j, "2", "all_reduce", 1,
         S(NULL, "completed", NULL, "completed", NULL, NULL, NULL, "completed"));
    coll(&j, "2", "all_reduce", 2, S(NULL, "scheduled", NULL, NULL, NULL, NULL, NULL, "scheduled"));
    rec(&j, 3, "3", "all_reduce", 1, "scheduled");
    run(&j);
    assert_culprits(&j, FA_STATUS_HANG, "4,5");
    assert_int_equal(j.a.verdict.nalternatives, 0);
    done(&j);
}

/* The members of group `name`, as the verdict saw them ("0,2,4,6"). */
static char *members_of(const job *j, const char *name) {
    for (size_t i = 0; i < j->a.groups.n; i++)
        if (strcmp(j->a.groups.v[i].name, name) == 0) {
            fa_ranks m = { 0 };
            for (uint32_t k = 0; k < j->a.groups.v[i].nmembers; k++)
                fa_ranks_add(&m, j->a.groups.v[i].members[k]);
            fa_ranks_normalize(&m);
            char *text = fa_ranks_format(m.v, m.n);
            fa_ranks_free(&m);
            return text;
        }
    return NULL;
}

/* gloo groups rebuilt from the entries: 1 as {2,4,6}, 2 as {1,5,7}; ranks 0 and 3 left no dump.
 * Their reduce_scatters take 16 elements in and give 4 out: groups of four, each short of one
 * member, and no group of the family is complete to show its stride. Each group's own members
 * do (2): the one run of four through them over ranks without a dump is {0,2,4,6}, {1,3,5,7}
 * (sim seed 3654; 9747, 10947: a span of 148 by 2, wider than what the entries say). */
static void short_groups_are_filled_by_their_own_stride(void **state) {
    job j;
    job_init(&j, 8);
    j.backend = "gloo";
    j.gloo_config = 1;
    j.output_sizes = "[[4]]";
    group(&j, "1", "undefined", "[]");
    group(&j, "2", "undefined", "[]");
    j.skip[0] = j.skip[3] = 1;
    coll(&j, "1", "reduce_scatter", 1,
         S(NULL, NULL, "completed", NULL, "completed", NULL, "completed"));
    coll(&j, "2", "reduce_scatter", 1,
         S(NULL, "completed", NULL, NULL, NULL, "completed", NULL, "completed"));
    coll(&j, "1", "reduce_scatter", 2, S(NULL, NULL, NULL, NULL, "scheduled", NULL, "scheduled"));
    coll(&j, "2", "reduce_scatter", 2,
         S(NULL, NULL, NULL, NULL, NULL, "scheduled", NULL, "scheduled"));
    run(&j);
    char *one = members_of(&j, "1"), *two = members_of(&j, "2");
    assert_string_equal(one ? one : "?", "0,2,4,6");
    assert_string_equal(two ? two : "?", "1,3,5,7");
    free(one);
    free(two);
    done(&j);
}

/* No dump keeps an entry of default_pg (an only-active dump drops what completed): its pg_status
 * counters are found through pg_config, the one group there without a pg_id any entry names
 * beside the one pg_status key no other group claims. Ranks 1 and 2 completed default_pg's #2,
 * which needs every member; rank 0's counters there say it had enqueued #1 only: its dump is
 * older, and its data-parallel all_reduce #3, pending, completed on its peers, may have completed
 * since (mutation ok01: "rank 0 stalled in all_reduce #3", tests/sim seed 11786). With a second
 * group of rank 0's that no entry names, its two free keys cannot be told apart: its counters
 * there are unknown, not "nothing issued" (mutation ok04: rank 0 older by default_pg's #2, which
 * its peers' counters still show; sim seed 7832): the stall stands. */
static void an_entryless_groups_counters_are_its_last_pg_status_key(void **state) {
    for (int unnamed = 0; unnamed < 2; unnamed++) {
        job j;
        job_init(&j, 3);
        group(&j, "1", "DATA_PARALLEL_GROUP", "[0, 1, 2]");
        if (unnamed) group(&j, "2", "EXPERT_MODEL_PARALLEL_GROUP", "[0]");
        rec(&j, 0, "1", "all_reduce", 3, "scheduled");
        const char *more = unnamed ? ", \"2\": {\"last_enqueued_collective\": 4, "
                                     "\"last_started_collective\": -1, "
                                     "\"last_completed_collective\": 4}"
                                   : "";
        snprintf(j.status[0], sizeof j.status[0],
                 "\"0\": {\"last_enqueued_collective\": 1, \"last_started_collective\": -1, "
                 "\"last_completed_collective\": 1}, \"1\": {\"last_enqueued_collective\": 3, "
                 "\"last_started_collective\": -1, \"last_completed_collective\": 2}%s",
                 more);
        for (int r = 1; r < 3; r++)
            strcpy(j.status[r],
                   "\"0\": {\"last_enqueued_collective\": 2, \"last_started_collective\": -1, "
                   "\"last_completed_collective\": 2}, \"1\": {\"last_enqueued_collective\": "
                   "3, \"last_started_collective\": -1, \"last_completed_collective\": 3}");
        run(&j);
        assert_culprits(&j, unnamed ? FA_STATUS_HANG : FA_STATUS_OK, unnamed ? "0" : "");
        done(&j);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(chain_across_groups),
        cmocka_unit_test(a_culprit_is_not_waited_for_where_it_completed),
        cmocka_unit_test(deadlock_cycle_names_both),
        cmocka_unit_test(numeric_group_names_sort_as_numbers),
        cmocka_unit_test(split_groups_are_numbered_by_their_lowest_member),
        cmocka_unit_test(work_queued_in_another_group_makes_a_collective_stuck),
        cmocka_unit_test(never_issued_names_the_last_seq_issued),
        cmocka_unit_test(a_ring_that_starts_pending_is_still_pending),
        cmocka_unit_test(an_end_marker_closes_its_bundle),
        cmocka_unit_test(stuck_collective_has_no_culprit),
        cmocka_unit_test(same_newest_op_everywhere_is_ok),
        cmocka_unit_test(started_everywhere_with_nothing_queued_is_ok),
        cmocka_unit_test(scheduled_ones_are_culprits_when_others_started),
        cmocka_unit_test(gpu_lag_names_the_stalled_rank),
        cmocka_unit_test(missing_dump_everyone_waits_for_is_culprit),
        cmocka_unit_test(a_gloo_collective_retired_while_a_peer_waits_failed),
        cmocka_unit_test(a_gloo_broadcast_past_on_a_receiver_proves_no_end),
        cmocka_unit_test(a_gloo_broadcast_before_a_collective_that_ran_ran),
        cmocka_unit_test(a_recorder_group_without_members_is_rebuilt_from_the_comms),
        cmocka_unit_test(an_older_dump_is_unknown_not_guilty),
        cmocka_unit_test(own_counters_past_every_send_recv_number_complete_a_bundle),
        cmocka_unit_test(a_rank_whose_batch_a_peer_completed_may_be_stalled),
        cmocka_unit_test(a_rank_others_wait_for_behind_a_lost_rank_is_no_stopped_rank),
        cmocka_unit_test(an_only_active_stream_head_shows_a_peer_dump_older),
        cmocka_unit_test(a_dumpless_member_is_missing_not_a_smaller_group),
        cmocka_unit_test(gloo_pipeline_pair_both_idle_is_an_ambiguity),
        cmocka_unit_test(gloo_send_that_never_happened_is_one_of_two),
        cmocka_unit_test(gloo_peer_that_ran_its_send_is_cleared),
        cmocka_unit_test(the_same_stuck_collective_in_many_groups_is_one_finding),
        cmocka_unit_test(gloo_pg_status_counts_op_ids),
        cmocka_unit_test(gloo_has_no_gpu_lag),
        cmocka_unit_test(a_group_with_two_ways_to_fill_is_left_as_found),
        cmocka_unit_test(a_rank_alone_in_a_wrong_group_op_is_the_root),
        cmocka_unit_test(a_rank_alone_beside_an_idle_majority_is_the_root),
        cmocka_unit_test(a_gloo_wait_in_a_group_nobody_else_recorded_is_not_ok),
        cmocka_unit_test(a_two_against_two_cycle_names_both_sides),
        cmocka_unit_test(a_skip_cycle_holds_beside_a_rank_without_dump),
        cmocka_unit_test(a_pair_across_an_older_dump_is_no_size_mismatch),
        cmocka_unit_test(a_send_recv_left_out_is_told_by_the_sibling_stages),
        cmocka_unit_test(a_send_recv_left_out_is_told_by_the_siblings_pending_one_later),
        cmocka_unit_test(a_pair_left_out_send_recv_is_told_by_the_siblings_later_run),
        cmocka_unit_test(a_stage_with_nothing_pending_that_ran_past_its_recv_is_named),
        cmocka_unit_test(a_pairs_next_transfer_of_other_shapes_is_a_mismatch),
        cmocka_unit_test(a_ring_batch_from_the_wrong_peer_meets_the_next_transfer),
        cmocka_unit_test(a_pair_in_two_orders_without_siblings_words_is_one_of_two),
        cmocka_unit_test(a_queued_send_does_not_make_its_peer_a_wrong_receiver),
        cmocka_unit_test(a_queued_send_still_shows_a_wrong_receiver),
        cmocka_unit_test(a_send_of_other_shapes_than_the_waiting_recv_is_no_wrong_peer),
        cmocka_unit_test(a_later_collective_of_the_group_says_its_dropped_one_came_first),
        cmocka_unit_test(members_pending_in_different_ops_are_no_missing_member),
        cmocka_unit_test(members_all_pending_where_all_gathers_say_all_are_there),
        cmocka_unit_test(an_unreadable_member_did_not_die_in_an_ended_op),
        cmocka_unit_test(an_unreadable_member_does_not_excuse_an_idle_rank),
        cmocka_unit_test(undescribed_groups_make_families_by_their_order),
        cmocka_unit_test(undescribed_groups_run_by_consecutive_numbers),
        cmocka_unit_test(split_groups_of_one_description_are_families_by_their_runs),
        cmocka_unit_test(a_rank_below_the_highest_that_dumped_is_a_member_of_the_job),
        cmocka_unit_test(most_of_a_gloo_job_lost_below_the_rank_that_dumped_is_inconclusive),
        cmocka_unit_test(a_candidate_no_group_took_is_no_rank),
        cmocka_unit_test(a_two_rank_cycle_across_groups_names_both),
        cmocka_unit_test(a_two_rank_cycle_below_the_missing_number_names_both),
        cmocka_unit_test(two_ranks_that_ran_two_orders_are_one_or_the_other),
        cmocka_unit_test(a_batch_done_on_the_wire_without_its_marker_is_no_stall),
        cmocka_unit_test(batches_that_end_only_active_dumps_without_their_markers_ran),
        cmocka_unit_test(own_send_recv_counters_complete_them_in_a_group_of_four),
        cmocka_unit_test(halves_dropped_in_step_with_the_peers_count_completed),
        cmocka_unit_test(counters_below_the_streams_collectives_number_a_batch),
        cmocka_unit_test(a_completed_recv_pairs_with_a_pending_send_in_a_window_with_gaps),
        cmocka_unit_test(idle_members_beside_a_lonely_op_are_roots),
        cmocka_unit_test(a_lost_rank_inside_a_rebuilt_group_may_have_stopped_too),
        cmocka_unit_test(a_transfer_dropped_inside_a_window_with_gaps_completed),
        cmocka_unit_test(send_recv_ids_of_pipeline_stages_do_not_compare),
        cmocka_unit_test(a_rank_alone_in_its_next_op_still_holds_its_cycle),
        cmocka_unit_test(an_older_dump_beside_a_rank_that_left_the_order_is_offered),
        cmocka_unit_test(a_rank_that_went_past_its_op_is_a_root_beside_the_sink),
        cmocka_unit_test(a_rank_whose_dump_hides_a_group_fills_it),
        cmocka_unit_test(a_whole_ring_whose_status_hides_a_group_fills_it),
        cmocka_unit_test(a_rank_whose_group_numbers_skip_one_fills_a_group),
        cmocka_unit_test(a_lone_wrong_group_presumes_no_rank_above_the_job),
        cmocka_unit_test(a_family_spanning_the_job_takes_back_its_lost_ranks),
        cmocka_unit_test(a_recv_from_the_wrong_source_in_a_batched_ring),
        cmocka_unit_test(the_sender_a_wrong_source_left_unmatched_is_a_victim),
        cmocka_unit_test(counters_below_a_proven_collective_are_no_unposted_send_recv),
        cmocka_unit_test(a_completed_broadcast_proves_no_member_joined),
        cmocka_unit_test(a_group_filled_leaves_its_neighbour_one_way),
        cmocka_unit_test(an_unknown_rank_beside_a_seen_root_is_an_alternative),
        cmocka_unit_test(a_bundle_cut_by_the_ring_is_no_mismatch),
        cmocka_unit_test(an_op_queued_behind_a_stall_waits_for_nobody),
        cmocka_unit_test(a_member_busy_elsewhere_is_not_waited_for_in_an_op_queued_behind_a_stall),
        cmocka_unit_test(an_older_dump_is_waited_for_in_a_send_queued_behind_the_peers_head),
        cmocka_unit_test(a_rebuilt_group_is_held_to_the_size_its_collectives_say),
        cmocka_unit_test(a_peer_past_the_ranks_stream_head_shows_an_older_dump),
        cmocka_unit_test(a_stall_beside_a_stopped_rank_is_a_root_too),
        cmocka_unit_test(two_stalls_in_one_op_are_two_roots),
        cmocka_unit_test(the_ranks_own_counters_complete_a_bundle_left_scheduled),
        cmocka_unit_test(a_send_to_the_wrong_peer_names_the_sender),
        cmocka_unit_test(a_completed_recv_pairs_with_a_send_in_a_pending_batch),
        cmocka_unit_test(a_wrong_peer_blocked_on_the_sender_is_no_excuse),
        cmocka_unit_test(a_wrong_source_with_collectives_queued_behind_it),
        cmocka_unit_test(a_wrong_peer_waiting_on_the_queued_poster_is_no_excuse),
        cmocka_unit_test(a_peer_past_the_slot_of_a_lone_send_is_no_culprit),
        cmocka_unit_test(a_peer_past_the_slot_waits_on_the_poster_queued),
        cmocka_unit_test(a_send_before_the_peers_window_is_not_never_posted),
        cmocka_unit_test(a_batch_waiting_for_its_one_transfer_has_no_dropped_partner),
        cmocka_unit_test(a_send_to_a_rank_without_a_dump_is_no_wrong_peer),
        cmocka_unit_test(unmatched_halves_in_two_groups_are_no_wrong_peer),
        cmocka_unit_test(a_peer_that_others_wait_for_is_no_wrong_peer),
        cmocka_unit_test(a_collective_on_the_wrong_group_beside_a_lost_dump),
        cmocka_unit_test(a_lone_recv_whose_send_completed_is_a_stalled_gpu),
        cmocka_unit_test(a_lone_pending_send_whose_newest_recv_completed_pairs_with_it),
        cmocka_unit_test(a_batch_recv_at_the_rings_edge_with_later_work_done_completed),
        cmocka_unit_test(a_communicator_says_how_large_the_job_is),
        cmocka_unit_test(a_cut_dump_naming_a_communicator_fills_its_one_open_slot),
        cmocka_unit_test(pg_status_says_what_a_rank_enqueued_beyond_its_entries),
        cmocka_unit_test(members_agreeing_on_the_pg_id_lend_it_to_a_rank_without_entries),
        cmocka_unit_test(in_one_group_the_launch_numbers_tell_the_skipper),
        cmocka_unit_test(the_peers_order_tells_the_skipper_across_groups),
        cmocka_unit_test(peers_counters_past_a_ranks_stream_head_show_it_older),
        cmocka_unit_test(a_batch_its_peers_completed_on_the_wire_is_a_stall),
        cmocka_unit_test(most_ranks_without_a_dump_is_inconclusive),
        cmocka_unit_test(a_mismatch_among_a_few_dumps_of_a_lost_job_is_inconclusive),
        cmocka_unit_test(ranks_below_a_dumped_rank_count_as_lost),
        cmocka_unit_test(an_only_active_stream_head_shows_a_peers_dump_older),
        cmocka_unit_test(a_completed_send_behind_a_maybe_bundle_head_proves_no_older_dump),
        cmocka_unit_test(a_collective_dropped_between_entries_completed),
        cmocka_unit_test(a_completed_batch_behind_a_lone_pending_head_shows_an_older_dump),
        cmocka_unit_test(counters_of_send_recv_or_an_older_dump_leave_later_collectives_unknown),
        cmocka_unit_test(counters_past_a_ranks_issued_work_show_it_older),
        cmocka_unit_test(a_member_not_started_is_missing_before_an_older_dump),
        cmocka_unit_test(a_victim_of_an_excused_unknown_is_no_culprit),
        cmocka_unit_test(a_rank_held_by_an_excused_unknowns_victim_is_no_culprit),
        cmocka_unit_test(a_ring_that_wrapped_inside_a_split_bundle_agrees),
        cmocka_unit_test(a_dump_that_lists_its_communicators_is_no_missing_member),
        cmocka_unit_test(a_rank_started_where_a_peer_is_only_scheduled_waits_for_it),
        cmocka_unit_test(a_member_of_an_op_queued_behind_a_surer_wait_is_no_culprit),
        cmocka_unit_test(pg_status_says_a_dropped_recv_completed),
        cmocka_unit_test(pg_status_numbers_inside_the_window_are_the_entries),
        cmocka_unit_test(a_marker_whose_members_the_ring_dropped_is_no_call),
        cmocka_unit_test(a_completed_marker_completes_a_bundle_split_by_type),
        cmocka_unit_test(a_dump_without_its_config_joins_the_group_its_peers_describe),
        cmocka_unit_test(a_collective_after_a_batch_is_no_part_of_it),
        cmocka_unit_test(a_batch_whose_marker_was_made_and_not_shown_completed),
        cmocka_unit_test(a_batch_whose_marker_may_not_have_been_made_is_pending),
        cmocka_unit_test(a_group_missing_from_pg_config_shows_a_dump_older),
        cmocka_unit_test(a_group_in_pg_config_may_have_run_before_the_window),
        cmocka_unit_test(a_bundle_without_its_marker_completed),
        cmocka_unit_test(a_bundle_without_its_marker_nowhere_done_is_in_flight),
        cmocka_unit_test(a_bundle_of_two_types_without_its_marker_completed_whole),
        cmocka_unit_test(a_cut_dump_may_be_the_member_a_group_lost),
        cmocka_unit_test(an_op_that_failed_on_a_death_waits_on_the_dead),
        cmocka_unit_test(an_accused_rank_is_no_witness_of_the_order),
        cmocka_unit_test(a_head_held_behind_a_peers_sure_wait_is_sure_too),
        cmocka_unit_test(a_head_held_behind_a_peers_stalled_gpu_is_sure_too),
        cmocka_unit_test(a_stall_beside_a_member_of_unknown_state_is_a_root),
        cmocka_unit_test(a_stall_keeps_an_older_dumps_doubt),
        cmocka_unit_test(a_rank_blocked_before_the_op_it_never_issued_witnesses_the_order),
        cmocka_unit_test(a_gloo_op_still_open_on_a_member_waits_for_the_idle_one),
        cmocka_unit_test(a_group_before_a_wrapped_window_makes_no_dump_older),
        cmocka_unit_test(a_gloo_failure_beside_a_member_the_group_may_lack_proves_no_death),
        cmocka_unit_test(recorder_collectives_pair_by_their_order),
        cmocka_unit_test(launch_numbers_shifted_by_an_omission_pair_in_order),
        cmocka_unit_test(a_lone_pending_recv_before_equal_launch_numbers_pairs_in_order),
        cmocka_unit_test(a_completed_batch_marker_alone_says_its_transfers_ran),
        cmocka_unit_test(collectives_pair_in_order_after_a_shared_completed_prefix),
        cmocka_unit_test(a_pipeline_stage_past_a_number_is_no_wrong_peer_of_its_receiver),
        cmocka_unit_test(a_pair_of_other_ids_and_shapes_in_dropped_windows_is_no_mismatch),
        cmocka_unit_test(a_pending_call_without_its_marker_was_not_cut),
        cmocka_unit_test(a_barrier_is_an_all_reduce_to_nccl),
        cmocka_unit_test(a_lone_send_between_pairs_pairs_in_order),
        cmocka_unit_test(a_recv_queued_behind_a_wrong_source_pairs_with_the_pending_send),
        cmocka_unit_test(a_waited_peer_that_waits_on_the_poster_excuses_nobody),
        cmocka_unit_test(a_peer_blocked_through_a_chain_to_the_poster_excuses_nobody),
        cmocka_unit_test(a_send_and_its_recv_of_other_dtypes_mismatch),
        cmocka_unit_test(a_pair_by_order_alone_compares_no_dtypes),
        cmocka_unit_test(a_counter_after_send_recv_completes_no_collective),
        cmocka_unit_test(a_batch_peers_completed_behind_the_head_shows_an_older_dump),
        cmocka_unit_test(a_peer_of_the_wrong_batch_that_shows_nothing_is_waited_by_nobody),
        cmocka_unit_test(a_busy_peer_of_the_wrong_batch_is_waited_by_nobody),
        cmocka_unit_test(a_collective_scheduled_everywhere_past_a_timeout_is_stuck),
        cmocka_unit_test(a_recv_in_the_batch_at_the_stream_head_is_a_wait),
        cmocka_unit_test(a_batch_only_with_a_peer_that_shows_nothing_waits_for_it),
        cmocka_unit_test(a_lone_peer_that_shows_nothing_in_a_group_of_three_is_one_of_two),
        cmocka_unit_test(a_wrapped_ring_that_keeps_completed_work_hides_no_transfer),
        cmocka_unit_test(an_older_dump_beside_a_lost_one_in_a_shared_group_is_one_of_them),
        cmocka_unit_test(a_completed_batch_completes_the_collectives_before_it),
        cmocka_unit_test(a_batch_its_peers_counters_complete_is_a_stalled_gpu),
        cmocka_unit_test(pipeline_stages_whose_completed_pair_has_two_ids_pair_their_pending_ones),
        cmocka_unit_test(a_gloo_rank_idle_beside_a_lost_one_is_not_ok),
        cmocka_unit_test(pg_status_of_a_peer_without_entries_says_its_recv_completed),
        cmocka_unit_test(a_completed_send_past_a_gapless_window_shows_its_dump_older),
        cmocka_unit_test(a_crash_before_an_op_nobody_waits_in_yet_explains_no_wait),
        cmocka_unit_test(a_crash_at_a_head_that_peers_queued_behind_a_wait_explains_no_wait),
        cmocka_unit_test(a_failed_gloo_op_waits_on_the_dead_not_on_an_unreadable_file),
        cmocka_unit_test(a_crash_pending_alone_waits_for_nobody),
        cmocka_unit_test(a_started_collective_carrying_a_send_recv_count_ran_it),
        cmocka_unit_test(a_transfer_done_on_the_wire_holds_no_batch),
        cmocka_unit_test(a_transfer_running_at_both_sides_holds_no_batch),
        cmocka_unit_test(a_slot_waited_beside_a_crash_nobody_waits_on_is_no_stuck_collective),
        cmocka_unit_test(a_rank_waited_for_behind_an_open_slot_may_have_stopped),
        cmocka_unit_test(a_lost_rank_beside_a_crash_nobody_waits_on_is_no_healthy_job),
        cmocka_unit_test(a_cut_dump_counted_in_two_ops_is_seen_waiting_in_neither),
        cmocka_unit_test(a_remote_error_beside_a_crash_is_the_crash),
        cmocka_unit_test(a_cut_dump_whose_counters_lag_is_a_stalled_gpu),
        cmocka_unit_test(a_cut_dump_whose_counters_trail_its_entries_shows_no_lag),
        cmocka_unit_test(a_cut_dump_in_flight_by_its_counters_is_no_stopped_rank),
        cmocka_unit_test(idle_ranks_at_the_lost_ranks_step_in_a_sibling_group_are_no_doubt),
        cmocka_unit_test(a_cut_dumps_started_counter_says_whether_it_never_started),
        cmocka_unit_test(a_cut_dump_in_flight_elsewhere_stays_offered_where_it_is_waited_for),
        cmocka_unit_test(a_cut_rank_its_peer_completed_past_the_lost_one_is_no_doubt),
        cmocka_unit_test(a_rank_waited_for_behind_a_lost_ranks_victim_is_its_victim_too),
        cmocka_unit_test(a_cut_dump_showing_nothing_pending_says_nothing_of_the_end),
        cmocka_unit_test(a_lost_rank_waited_for_before_the_op_it_shares_with_a_cut_one_is_named),
        cmocka_unit_test(a_lost_rank_left_alone_beside_a_dropped_cut_one_is_no_healthy_job),
        cmocka_unit_test(ranks_waiting_for_each_other_hold_themselves_beside_a_lost_dump),
        cmocka_unit_test(a_head_peers_counted_done_beside_a_lost_dump_is_one_of_two),
        cmocka_unit_test(heads_peers_counted_done_that_blame_only_each_other_are_stalls),
        cmocka_unit_test(a_dump_older_only_by_what_it_issued_is_read_both_ways),
        cmocka_unit_test(a_dump_older_by_what_it_never_issued_is_read_older_only),
        cmocka_unit_test(a_send_completed_to_a_rank_proves_its_dump_older_only_by_doubt),
        cmocka_unit_test(a_pending_batch_of_one_done_by_its_own_counters),
        cmocka_unit_test(a_collective_number_completed_is_no_batch_of_that_number),
        cmocka_unit_test(a_collective_after_the_batches_is_their_ranks_last_enqueued),
        cmocka_unit_test(a_whole_history_with_fewer_sends_than_its_peer_received_is_older),
        cmocka_unit_test(a_rank_pending_in_an_op_a_peer_completed_is_not_behind_a_lost_rank),
        cmocka_unit_test(a_lone_member_after_a_completed_collective_waits_for_its_partner),
        cmocka_unit_test(a_lone_member_in_a_first_collective_stays_named),
        cmocka_unit_test(an_unknown_rank_behind_another_unknown_is_named),
        cmocka_unit_test(short_groups_are_filled_by_their_own_stride),
        cmocka_unit_test(send_recv_counters_complete_no_collective_of_a_pair),
        cmocka_unit_test(send_recv_counters_above_the_peers_collectives_complete_none),
        cmocka_unit_test(a_collective_no_sibling_pair_runs_names_its_issuer),
        cmocka_unit_test(a_collective_no_sibling_pair_runs_beside_an_overlapping_dimension),
        cmocka_unit_test(an_entryless_groups_counters_are_its_last_pg_status_key),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    return failed + run_partial_dump_tests();
}
