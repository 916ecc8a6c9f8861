/* bench_decode.c — how fast one thread decodes Flight Recorder dumps, and what they cost in memory.
 *
 *   bench_decode [-n REPS] [-q] [--fresh] [--generic] FILE...
 *
 * How it works: every FILE is read into memory first, so that only decoding is timed. Then the
 * whole set is decoded REPS times (default 5) in this one thread with one fr_decoder, as a load
 * worker of the analyzer does (--fresh: fr_dump_decode() per file, which sets up its scratch
 * memory every time; --generic: the direct paths turned off, so that every pickle goes
 * through pickle_read's value tree and every JSON dump through cJSON's), and each dump is freed
 * right away; MB/s and entries/s come
 * from the best repetition's CPU time (CLOCK_THREAD_CPUTIME_ID, so that other jobs on a shared
 * machine disturb the figure less) and the wall time is printed beside it. A separate pass
 * splits the cost: the reader alone (pickle_read or json_read: bytes -> value tree) timed the
 * same way, and it reports
 *   value B/entry  bytes the value tree takes in its arena (fv_arena_used), per entry;
 *   dump B/entry   bytes the decoded fr_dump keeps (fv_arena_used of its arena), per entry;
 *   dump held      bytes of arena chunks the fr_dump holds, waste included (fv_arena_held).
 * `-q` prints only the one summary line (for scripts and for callgrind runs with -n 1).
 *
 * The figures are for the files as given: use the real 2.9 dumps for realism and a generated
 * 2 000-entry dump (build/bench/gen_dumps) for the per-entry cost at scale.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dump.h"
#include "dump_decoder.h"
#include "load/file_read.h"
#include "json_read.h"
#include "pickle_read.h"

typedef struct input {
    const char *path;
    uint8_t *bytes;
    size_t len;
} input;

static double clock_s(clockid_t id) {
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

typedef struct totals {
    double cpu, wall;
    uint64_t entries;
    uint64_t dump_used, dump_held;
} totals;

/* One pass over every input with one fr_decoder (or fr_dump_decode per file when `fresh`). false
 * when a file does not decode. */
static bool decode_pass(const input *in, size_t n, bool fresh, bool generic, totals *t) {
    double c0 = clock_s(CLOCK_THREAD_CPUTIME_ID), w0 = clock_s(CLOCK_MONOTONIC);
    memset(t, 0, sizeof *t);
    fr_decoder *fd = fresh ? NULL : fr_decoder_new();
    if (fd && generic) fr_decoder_use_fast_path(fd, false);
    for (size_t i = 0; i < n; i++) {
        fr_dump *d;
        fr_error err;
        int rc = fd ? fr_decoder_decode(fd, in[i].bytes, in[i].len, &d, &err)
                    : fr_dump_decode(in[i].bytes, in[i].len, &d, &err);
        if (rc != 0) {
            fprintf(stderr, "bench_decode: %s: %s\n", in[i].path, err.msg);
            return false;
        }
        t->entries += d->nentries;
        t->dump_used += fv_arena_used(d->arena);
        t->dump_held += fv_arena_held(d->arena);
        fr_dump_free(d);
    }
    fr_decoder_free(fd);
    t->cpu = clock_s(CLOCK_THREAD_CPUTIME_ID) - c0;
    t->wall = clock_s(CLOCK_MONOTONIC) - w0;
    return true;
}

/* One pass with the reader alone (pickle_read, or json_read for JSON); adds the value arena's
 * size. */
static void pickle_pass(const input *in, size_t n, double *cpu, uint64_t *value_bytes) {
    double c0 = clock_s(CLOCK_THREAD_CPUTIME_ID);
    *value_bytes = 0;
    for (size_t i = 0; i < n; i++) {
        fv_arena *a = fv_arena_new();
        fv *root;
        fr_error err;
        pr_options opts = { .salvage = true };
        int rc = !a ? -1
                 : in[i].len && in[i].bytes[0] == '{'
                     ? json_read((const char *)in[i].bytes, in[i].len, a, &root, &err)
                     : pickle_read(in[i].bytes, in[i].len, a, &opts, &root, &err);
        if (rc >= 0) *value_bytes += fv_arena_used(a);
        fv_arena_free(a);
    }
    *cpu = clock_s(CLOCK_THREAD_CPUTIME_ID) - c0;
}

int main(int argc, char **argv) {
    int reps = 5, quiet = 0, first = 1;
    bool fresh = false, generic = false;
    for (; first < argc && argv[first][0] == '-'; first++) {
        if (strcmp(argv[first], "-n") == 0 && first + 1 < argc)
            reps = atoi(argv[++first]);
        else if (strcmp(argv[first], "-q") == 0)
            quiet = 1;
        else if (strcmp(argv[first], "--fresh") == 0)
            fresh = true;
        else if (strcmp(argv[first], "--generic") == 0)
            generic = true;
        else
            break;
    }
    if (first >= argc || reps < 1) {
        fprintf(stderr, "usage: bench_decode [-n REPS] [-q] [--fresh] [--generic] FILE...\n");
        return 2;
    }
    size_t n = (size_t)(argc - first);
    input *in = calloc(n, sizeof *in);
    uint64_t bytes = 0;
    for (size_t i = 0; in && i < n; i++) {
        in[i].path = argv[first + (int)i];
        fa_file_buffer file = { 0 }; /* one buffer per input: all of them stay in memory */
        fr_error err;
        long len = fa_read_whole_file(in[i].path, &file, &err);
        if (len < 0) {
            fprintf(stderr, "bench_decode: %s: %s\n", in[i].path, err.msg);
            fa_file_buffer_free(&file);
            return 2;
        }
        in[i].bytes = file.bytes;
        in[i].len = (size_t)len;
        bytes += in[i].len;
    }
    if (!in) return 2;

    totals best = { 0 }, t;
    for (int r = 0; r < reps; r++) {
        if (!decode_pass(in, n, fresh, generic, &t)) return 1;
        if (r == 0 || t.cpu < best.cpu) best = t;
    }
    double pr_cpu = 0, pr_best = 0;
    uint64_t value_bytes = 0;
    for (int r = 0; r < reps; r++) {
        pickle_pass(in, n, &pr_cpu, &value_bytes);
        if (r == 0 || pr_cpu < pr_best) pr_best = pr_cpu;
    }
    double e = best.entries ? (double)best.entries : 1;
    if (!quiet) {
        printf("files %zu, %.1f MB, %llu entries (%.1f B/entry), %d repetitions, sizeof(fr_entry) "
               "%zu\n",
               n, (double)bytes / 1e6, (unsigned long long)best.entries, (double)bytes / e, reps,
               sizeof(fr_entry));
        printf(
            "decode:      cpu %.4f s  wall %.4f s  %7.1f MB/s  %9.0f entries/s  %6.0f ns/entry\n",
            best.cpu, best.wall, (double)bytes / 1e6 / best.cpu, e / best.cpu, best.cpu * 1e9 / e);
        printf("reader:      cpu %.4f s                 %7.1f MB/s  %9.0f entries/s  (%.0f%% of "
               "decode)\n",
               pr_best, (double)bytes / 1e6 / pr_best, e / pr_best, 100 * pr_best / best.cpu);
        printf("memory: value %.0f B/entry, dump %.1f B/entry used, %.1f B/entry held\n",
               (double)value_bytes / e, (double)best.dump_used / e, (double)best.dump_held / e);
    } else {
        printf("bench_decode: MB_s=%.1f entries_s=%.0f ns_entry=%.0f wall_s=%.4f "
               "value_B_entry=%.0f dump_B_entry=%.1f "
               "held_B_entry=%.1f\n",
               (double)bytes / 1e6 / best.cpu, e / best.cpu, best.cpu * 1e9 / e, best.wall,
               (double)value_bytes / e, (double)best.dump_used / e, (double)best.dump_held / e);
    }
    for (size_t i = 0; i < n; i++) free(in[i].bytes);
    free(in);
    return 0;
}
