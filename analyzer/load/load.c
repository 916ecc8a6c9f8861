/* load.c — finding dump files, inferring the prefix, decoding in parallel (see load.h).
 *
 * The walk collects candidate files first (path + basename), then the prefix is settled, then
 * the kept files are decoded on every core (fa_parallel_for), one file at a time to whichever
 * worker is free; each worker keeps its read buffer, decoder and compactor from file to file and
 * writes only its files' slots, so no lock is needed beyond the shared store's.
 */
#include "load/load.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "dump_decoder.h"
#include "load/file_read.h"
#include "util/index.h"
#include "util/xmalloc.h"
#include "util/parallel.h"
#include "load/dir_walk.h"
#include "load/job_folders.h"

typedef fa_dir_entry candidate;

static int compare_strings(const void *a, const void *b) {
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The prefix most candidates share; NULL when two prefixes tie for most (then the user must say,
 * and the message names every candidate). */
static char *infer_prefix(const fa_dir_list *c, fr_error *err) {
    fa_smap counts = { 0 };
    char *best = NULL;
    uint64_t best_count = 0;
    int tie = 0;
    for (size_t i = 0; i < c->n; i++) {
        if (c->v[i].is_dir) continue; /* rank_3/ holding rank 3's files names no prefix */
        char *p = strndup(c->v[i].base, c->v[i].prefix_len);
        uint64_t n = 0;
        if (!p) break;
        fa_smap_get(&counts, p, &n);
        fa_smap_put(&counts, p, ++n);
        if (n > best_count) {
            free(best);
            best = p;
            best_count = n;
            tie = 0;
        } else {
            if (n == best_count && strcmp(p, best) != 0) tie = 1;
            free(p);
        }
    }
    if (tie) { /* name every candidate, in order, so that the user can pick one */
        const char **tied = xcalloc(counts.cap + 1, sizeof *tied);
        size_t ntied = 0;
        for (size_t k = 0; k < counts.cap; k++)
            if (counts.keys[k] && counts.values[k] == best_count) tied[ntied++] = counts.keys[k];
        qsort(tied, ntied, sizeof *tied, compare_strings);
        char names[sizeof err->msg] = ""; /* the message holds no more than this anyway */
        for (size_t k = 0, at = 0; k < ntied && at < sizeof names; k++)
            at +=
                (size_t)snprintf(names + at, sizeof names - at, "%s \"%s\"", k ? "," : "", tied[k]);
        fr_fail(err, "cannot infer the file-name prefix: %llu files each have%s; give --prefix",
                (unsigned long long)best_count, names);
        free(tied);
        free(best);
        best = NULL;
    }
    fa_smap_free(&counts);
    return best;
}

/* What one worker keeps from file to file: its read buffer, decoder and compactor. */
typedef struct decode_worker {
    fa_file_buffer buf;
    fr_decoder *dec;
    fa_compactor *comp;
} decode_worker;

typedef struct decode_job {
    candidate *files;
    fa_store *store;
    fa_dump **dumps;
    char **errors;
    fa_progress *progress; /* files and bytes decoded, for a progress line (or NULL) */
    decode_worker workers[FA_MAX_WORKERS];
} decode_job;

/* A rank of a world-sized "[0, 1, ...]" text costs about 7 bytes of the file (6 from rank 1 000
 * on), so a pg_config whose groups list more memberships than the file has bytes (beyond 64 Ki)
 * shares one memoized member list among more than about seven world-sized groups (real jobs
 * have two to four: default_pg and the groups that span every rank). Such a header multiplies
 * its input: every group x member would cost a membership, a position and database rows.
 * NULL when it is sane. */
static char *hostile_memberships(const fr_dump *dump, size_t len) {
    uint64_t members = 0;
    for (uint32_t k = 0; k < dump->ngroups; k++) members += dump->groups[k].nranks;
    if (members <= (uint64_t)len + 65536) return NULL;
    char *msg = NULL;
    if (asprintf(&msg,
                 "pg_config lists %llu group memberships in %zu bytes (memo-shared member "
                 "lists): more than a dump can hold, refused as hostile",
                 (unsigned long long)members, len) < 0)
        msg = NULL;
    return msg;
}

static void decode_one(decode_job *job, size_t i, decode_worker *w) {
    fr_error err = { { 0 } };
    if (job->files[i].odd) { /* never opened: it could block, or never end */
        fa_progress_file_done(job->progress, 0);
        if (asprintf(&job->errors[i], "not a regular file but %s; rank %lld's dump is unreadable",
                     job->files[i].odd, (long long)job->files[i].rank) < 0)
            job->errors[i] = NULL;
        return;
    }
    long len = fa_read_whole_file(job->files[i].path, &w->buf, &err);
    fa_progress_file_done(job->progress, len > 0 ? (uint64_t)len : 0);
    if (len < 0) {
        job->errors[i] = strdup(err.msg);
        return;
    }
    fr_dump *dump = NULL;
    if (fr_decoder_decode(w->dec, w->buf.bytes, (size_t)len, &dump, &err) != 0) {
        job->errors[i] = strdup(err.msg[0] ? err.msg : "not a Flight Recorder dump");
    } else if ((job->errors[i] = hostile_memberships(dump, (size_t)len)) != NULL) {
        fr_dump_free(dump);
    } else if (dump->nentries > FA_MAX_DUMP_ENTRIES) {
        if (asprintf(&job->errors[i], "%u entries: more than %u cannot be analyzed", dump->nentries,
                     FA_MAX_DUMP_ENTRIES) < 0)
            job->errors[i] = NULL;
        fr_dump_free(dump);
    } else {
        job->dumps[i] = fa_dump_compact(w->comp, dump);
        if (!job->dumps[i]) job->errors[i] = strdup("out of memory");
        fr_dump_free(dump);
    }
}

static void decode_range(void *ctx, unsigned worker, size_t lo, size_t hi) {
    decode_job *job = ctx;
    decode_worker *w = &job->workers[worker];
    if (!w->dec) w->dec = fr_decoder_new();
    if (!w->comp) w->comp = fa_compactor_new(job->store);
    for (size_t i = lo; i < hi; i++) {
        if (w->dec && w->comp)
            decode_one(job, i, w);
        else
            job->errors[i] = strdup("out of memory");
    }
}

/* One file at a time to whichever worker is free: files differ in size. */
static void decode_all(candidate *files, size_t n, int jobs, fa_store *store, fa_dump **dumps,
                       char **errors, fa_progress *progress) {
    decode_job *job = calloc(1, sizeof *job);
    if (!job) {
        for (size_t i = 0; i < n; i++) errors[i] = strdup("out of memory");
        return;
    }
    *job = (decode_job){
        .files = files, .store = store, .dumps = dumps, .errors = errors, .progress = progress
    };
    fa_parallel_for(n, 1, fa_worker_count(jobs), decode_range, job);
    for (unsigned t = 0; t < sizeof job->workers / sizeof *job->workers; t++) {
        fa_compactor_free(job->workers[t].comp);
        fr_decoder_free(job->workers[t].dec);
        fa_file_buffer_free(&job->workers[t].buf);
    }
    free(job);
}

static int compare_candidates(const void *a, const void *b) {
    const candidate *x = a, *y = b;
    if (x->rank != y->rank) return x->rank < y->rank ? -1 : 1;
    if (!x->odd != !y->odd) return x->odd ? 1 : -1; /* a rank's regular file before odd entries */
    return strcmp(x->path, y->path);
}

static void add_note(fa_input *in, const char *path, const char *msg) {
    in->notes = xrealloc(in->notes, (in->nnotes + 1) * sizeof *in->notes);
    in->notes[in->nnotes++] = xasprintf("%s: %s", path, msg);
}

static void add_version(fa_input *in, const char *version) {
    size_t at = 0;
    while (at < in->nversions && strcmp(in->versions[at], version) < 0) at++;
    if (at < in->nversions && strcmp(in->versions[at], version) == 0) return;
    char **v = in->versions = xrealloc(in->versions, (in->nversions + 1) * sizeof *v);
    memmove(v + at + 1, v + at, (in->nversions - at) * sizeof *v);
    v[at] = xstrdup(version);
    in->nversions++;
}

/* Keeps decoded dumps and records failures; a second dump for the same rank is rejected. */
static void collect(fa_input *in, candidate *files, size_t n, fa_dump **dumps, char **errors) {
    in->ranks = calloc(n ? n : 1, sizeof *in->ranks);
    in->rejected = calloc(n ? n : 1, sizeof *in->rejected);
    for (size_t i = 0; i < n; i++) {
        int duplicate =
            in->nranks > 0 && in->ranks[in->nranks - 1].rank == files[i].rank && dumps[i];
        if (!dumps[i] || duplicate) {
            char msg[600];
            if (duplicate) {
                snprintf(msg, sizeof msg, "a second dump for rank %lld (already read %s)",
                         (long long)files[i].rank, in->ranks[in->nranks - 1].path);
                fa_dump_free(dumps[i]);
            }
            in->rejected[in->nrejected++] =
                (fa_rejected){ files[i].path,
                               strdup(duplicate   ? msg
                                      : errors[i] ? errors[i]
                                                  : "out of memory"),
                               files[i].rank, duplicate ? NULL : files[i].odd };
            free(errors[i]);
            continue;
        }
        fa_dump *d = dumps[i];
        in->ranks[in->nranks++] = (fa_rank_dump){ files[i].rank, files[i].path, d };
        if (d->version) add_version(in, d->version); /* a cut JSON dump may have lost it */
        if (d->warning) add_note(in, files[i].path, d->warning);
        if (d->global_rank >= 0 && d->global_rank != files[i].rank) {
            char msg[200];
            snprintf(msg, sizeof msg,
                     "the dump says it is rank %lld, the file name says %lld; using the file name",
                     (long long)d->global_rank, (long long)files[i].rank);
            add_note(in, files[i].path, msg);
        }
    }
}

/* Keeps the entries with the chosen prefix, and drops a directory named like a dump when its
 * rank has a regular file too (rank_3/ holding rank_3.pkl); frees what it drops. */
static size_t keep_prefixed(fa_dir_list *all, const char *chosen) {
    size_t pl = strlen(chosen), kept = 0;
    for (size_t i = 0; i < all->n; i++) {
        if (all->v[i].prefix_len == pl && strncmp(all->v[i].base, chosen, pl) == 0)
            all->v[kept++] = all->v[i];
        else
            free(all->v[i].path);
    }
    qsort(all->v, kept, sizeof *all->v, compare_candidates);
    size_t out = 0;
    for (size_t i = 0; i < kept; i++) {
        bool shadowed = all->v[i].is_dir && out > 0 && all->v[out - 1].rank == all->v[i].rank;
        if (shadowed)
            free(all->v[i].path);
        else
            all->v[out++] = all->v[i];
    }
    all->n = out;
    return out;
}

/* "name\x1fN": how many dumps list N members for group `name`. */
static char *size_key(const fr_group_config *c) {
    return xasprintf("%s\x1f%u", c->name ? c->name : "", c->nranks);
}

/* A dump whose pg_config gives a group another member count than most dumps do (a group of
 * 200 000 ranks in a job of 16) is named: its claim is the odd one, whatever it does later. */
static void note_odd_group_sizes(fa_input *in) {
    fa_smap count = { 0 }, best = { 0 }; /* size key -> dumps; name -> most common count */
    for (int pass = 0; pass < 3; pass++)
        for (size_t r = 0; r < in->nranks; r++) {
            const fa_dump *d = in->ranks[r].dump;
            for (uint32_t k = 0; k < d->ngroups; k++) {
                const fr_group_config *c = &d->groups[k];
                char *key = size_key(c);
                uint64_t n = 0, most = 0;
                if (!key || !c->name || !c->nranks) {
                    free(key);
                    continue;
                }
                fa_smap_get(&count, key, &n);
                if (pass == 0) fa_smap_put(&count, key, n + 1);
                if (pass == 1 && (!fa_smap_get(&best, c->name, &most) || n > most))
                    fa_smap_put(&best, c->name, n);
                if (pass == 2 && fa_smap_get(&best, c->name, &most) && n < most && n == 1) {
                    char msg[400];
                    snprintf(
                        msg, sizeof msg,
                        "pg_config[\"%.100s\"] lists %u ranks, where %llu other dumps agree on "
                        "another count for that group (a corrupt header, or dumps of two jobs?)",
                        c->name, c->nranks, (unsigned long long)most);
                    add_note(in, in->ranks[r].path, msg);
                }
                free(key);
            }
        }
    fa_smap_free(&count);
    fa_smap_free(&best);
}

static void take_walk_notes(fa_input *in, fa_dir_list *all) {
    for (size_t i = 0; i < all->nnotes; i++) {
        in->notes = xrealloc(in->notes, (in->nnotes + 1) * sizeof *in->notes);
        in->notes[in->nnotes++] = all->notes[i];
        all->notes[i] = NULL;
    }
}

/* DIR is a file: say what to type instead (show decodes one dump; the folder is the job). */
static void not_a_directory(const char *dir, fr_error *err) {
    const char *slash = strrchr(dir, '/');
    int parent_len = slash ? (int)(slash - dir) : 1;
    fr_fail(err,
            "%s is a file, not a directory: frtrace show %s decodes that one dump; frtrace "
            "%.*s analyzes the job it belongs to",
            dir, dir, slash && slash != dir ? parent_len : 1,
            slash ? (slash == dir ? "/" : dir) : ".");
}

int fa_load_dir(const char *dir, const char *prefix, int jobs, fa_progress *progress, fa_input *in,
                fr_error *err) {
    memset(in, 0, sizeof *in);
    fa_dir_list all;
    if (fa_dir_walk(dir, &all) != 0) {
        if (errno == ENOTDIR)
            not_a_directory(dir, err);
        else
            fr_fail(err, "%s: cannot read directory: %s", dir, strerror(errno));
        fa_dir_walk_free(&all, true);
        return -1;
    }
    char *chosen = prefix ? xstrdup(prefix) : infer_prefix(&all, err);
    size_t nall = all.n, kept = 0;
    if (chosen)
        kept = keep_prefixed(&all, chosen);
    else
        fa_dir_walk_free(&all, true);
    if (!chosen || kept == 0) {
        if (chosen || nall == 0) /* else infer_prefix said why */
            fr_fail(err, "%s: no dump files found (names like %s<rank>)", dir,
                    prefix ? prefix : "PREFIX");
        free(chosen);
        fa_dir_walk_free(&all, false);
        return -1;
    }
    char *jobs_msg = fa_job_folders_message(all.v, kept, dir);
    if (jobs_msg) { /* a folder of runs: say so once, before decoding any of them */
        fr_fail(err, "%s", jobs_msg);
        free(jobs_msg);
        free(chosen);
        fa_dir_walk_free(&all, true);
        return -1;
    }
    fa_dump **dumps = calloc(kept, sizeof *dumps);
    char **errors = calloc(kept, sizeof *errors);
    in->store = fa_store_new();
    if (!dumps || !errors || !in->store) {
        fr_fail(err, "out of memory");
        return -1;
    }
    fa_progress_files(progress, kept);
    fa_progress_stage(progress, FA_STAGE_READING);
    decode_all(all.v, kept, jobs, in->store, dumps, errors, progress);
    in->dir = xstrdup(dir);
    in->prefix = chosen;
    collect(in, all.v, kept, dumps, errors);
    note_odd_group_sizes(in);
    take_walk_notes(in, &all);
    free(dumps);
    free(errors);
    fa_dir_walk_free(&all, false);
    return 0;
}

void fa_input_free(fa_input *in) {
    for (size_t i = 0; i < in->nranks; i++) {
        free(in->ranks[i].path);
        fa_dump_free(in->ranks[i].dump);
    }
    fa_store_free(in->store);
    for (size_t i = 0; i < in->nrejected; i++) {
        free(in->rejected[i].path);
        free(in->rejected[i].error);
    }
    for (size_t i = 0; i < in->nnotes; i++) free(in->notes[i]);
    for (size_t i = 0; i < in->nversions; i++) free(in->versions[i]);
    free(in->ranks);
    free(in->rejected);
    free(in->notes);
    free(in->versions);
    free(in->dir);
    free(in->prefix);
    fa_hosts_free(&in->hosts);
    memset(in, 0, sizeof *in);
}

long fa_input_find(const fa_input *in, int64_t rank) {
    size_t lo = 0, hi = in->nranks;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (in->ranks[mid].rank < rank)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < in->nranks && in->ranks[lo].rank == rank ? (long)lo : -1;
}
