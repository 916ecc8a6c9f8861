/* job_dumps.h — writes a small job's dumps as JSON files (PyTorch's keys) into a temporary
 * directory, analyzes them whole (fa_analyze) and removes them: the one job writer under the
 * verdict tests (test_verdict.c) and the perf tests' timed jobs (timed_job.h), which differ only
 * in the entries and groups they make. A dump is
 *   {"version": "2.9", "pg_config": {GROUPS}[, "pg_status": {STATUS}], "entries": [ENTRIES]
 *    [, "frtrace": KEY]}
 * with GROUPS written by the caller's callback (its groups, for that rank), STATUS and KEY left
 * out when empty; a rank can leave no file, or one cut short after its pg_config opens or inside
 * its entries. */
#ifndef FRTRACE_TEST_JOB_DUMPS_H
#define FRTRACE_TEST_JOB_DUMPS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis.h"

enum { JD_DIR_BYTES = 64 };
enum { JD_WHOLE, JD_CUT_CONFIG, JD_CUT_ENTRIES, JD_CUT_AFTER_STATUS };

/* What a rank's dump holds besides its groups; entries NULL: the rank writes no file. */
typedef struct jd_dump {
    const char *entries;   /* the entries' JSON objects, comma-separated */
    const char *pg_status; /* pg_status's members, or "" (no pg_status) */
    const char *frtrace;   /* the recorder's "frtrace" value, or "" (none) */
    int cut; /* JD_CUT_CONFIG: the file ends right after pg_config opens; JD_CUT_ENTRIES: it
              * holds only the entries, cut inside the next one (the whole ones salvageable);
              * JD_CUT_AFTER_STATUS: whole up to its entries, cut inside the next one (a torch
              * pickle's layout: pg_config and pg_status before the entries) */
} jd_dump;

/* Writes rank's pg_config members to f (ctx: the caller's job). */
typedef void jd_groups_fn(FILE *f, const void *ctx, int rank);

/* Makes dir (JD_DIR_BYTES) a fresh directory /tmp/PREFIX.XXXXXX. */
static inline void jd_make_dir(char *dir, const char *prefix) {
    snprintf(dir, JD_DIR_BYTES, "/tmp/%s.XXXXXX", prefix);
    assert_non_null(mkdtemp(dir));
}

/* Writes rank's dump dir/rank_RANK.json. */
static inline void jd_write(const char *dir, int rank, const jd_dump *dump, jd_groups_fn *groups,
                            const void *ctx) {
    if (!dump->entries) return;
    char path[128];
    snprintf(path, sizeof path, "%s/rank_%d.json", dir, rank);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    if (dump->cut == JD_CUT_ENTRIES) {
        fprintf(f, "{\"entries\": [%s, {\"record_id\": 9", dump->entries);
        fclose(f);
        return;
    }
    fputs("{\"version\": \"2.9\", \"pg_config\": {", f);
    if (dump->cut == JD_CUT_CONFIG) { /* the process lived to dump, the file is cut short */
        fclose(f);
        return;
    }
    groups(f, ctx, rank);
    if (dump->pg_status[0]) fprintf(f, "}, \"pg_status\": {%s", dump->pg_status);
    if (dump->cut == JD_CUT_AFTER_STATUS) {
        fprintf(f, "}, \"entries\": [%s%s{\"record_id\": 9", dump->entries,
                dump->entries[0] ? ", " : ""); /* no whole entry: cut inside the first */
        fclose(f);
        return;
    }
    fprintf(f, "}, \"entries\": [%s]%s%s}\n", dump->entries,
            dump->frtrace[0] ? ", \"frtrace\": " : "", dump->frtrace);
    fclose(f);
}

/* Analyzes the dumps of dir into a, asserting that the analysis ran. */
static inline void jd_analyze(const char *dir, fa_analysis *a) {
    fa_options opt = { .dir = dir, .jobs = 1, .mismatch_cap = 10 };
    fr_error err = { { 0 } };
    assert_int_equal(fa_analyze(&opt, a, &err), 0);
}

/* Removes the dumps of ranks 0..world-1 and dir, and frees a. */
static inline void jd_remove(const char *dir, int world, fa_analysis *a) {
    for (int r = 0; r < world; r++) {
        char path[128];
        snprintf(path, sizeof path, "%s/rank_%d.json", dir, r);
        unlink(path);
    }
    rmdir(dir);
    fa_analysis_free(a);
}

#endif
