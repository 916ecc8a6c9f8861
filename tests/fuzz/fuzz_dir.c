/* fuzz_dir.c — libFuzzer harness at the directory level: the input becomes a dump directory of a
 * few files mutated together, and the whole analysis (load, groups, match, verdict) and every
 * report (text, markdown, database) run on it. Must never crash, leak, hang or overread.
 *
 * Layout of an input: up to MAX_FILES parts separated by the 4 bytes "\n--\n"; part k becomes
 * _dump_k. Its first byte, when the part is non-empty, picks what the entry is: mostly a regular
 * file holding the rest of the part, sometimes a directory, a FIFO, a symbolic link to "." (a
 * loop) or a dangling link — so the fuzzer mutates the shapes of issue 14 together with the
 * bytes. The seed corpus (tests/fuzz/run.sh) joins real dumps this way, so that mutations start
 * from a directory that analyzes to a verdict. The directory is made afresh for every input in
 * a scratch directory of the process, and removed after.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis.h"
#include "report/report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { MAX_FILES = 6 };
static const char SEP[] = "\n--\n";

static char root[256];

/* Removes every entry of the scratch directory (one level deep, plus directories it made). */
static void clear_dir(const char *dir) {
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *e;
    char path[512];
    while ((e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (unlink(path) != 0) rmdir(path);
    }
    closedir(d);
}

/* Makes entry _dump_k from one part: its first byte says what it is. */
static void make_entry(int k, const uint8_t *p, size_t n) {
    char path[512];
    snprintf(path, sizeof path, "%s/_dump_%d", root, k);
    uint8_t kind = n ? p[0] : 0;
    if (kind == 0xf1) {
        mkdir(path, 0755);
        return;
    }
    if (kind == 0xf2) {
        mkfifo(path, 0644);
        return;
    }
    if (kind == 0xf3) {
        symlink(".", path);
        return;
    }
    if (kind == 0xf4) {
        symlink("nowhere", path);
        return;
    }
    FILE *f = fopen(path, "wb");
    if (!f) return;
    if (n) fwrite(p, 1, n, f);
    fclose(f);
}

static void analyze_dir(void) {
    fa_options opt = { .dir = root, .prefix = NULL, .jobs = 1, .mismatch_cap = 10 };
    fa_analysis a;
    fr_error err = { { 0 } };
    if (fa_analyze(&opt, &a, &err) == 0) {
        FILE *null = fopen("/dev/null", "w");
        fa_report_options ro = { .verbose = true, .stack_traces = true, .jobs = 1 };
        if (null) {
            fa_report_text(&a, &ro, null);
            fa_report_markdown(&a, &ro, null);
            fa_report_db(&a, &ro, null);
            fclose(null);
        }
    }
    fa_analysis_free(&a);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (!root[0]) {
        snprintf(root, sizeof root, "%s/frtrace-fuzz-dir.%d",
                 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", (int)getpid());
        mkdir(root, 0755);
    }
    clear_dir(root);
    size_t at = 0;
    for (int k = 0; k < MAX_FILES && at <= size; k++) {
        const uint8_t *start = data + at, *end = NULL;
        for (size_t i = at; i + 4 <= size; i++)
            if (memcmp(data + i, SEP, 4) == 0) {
                end = data + i;
                break;
            }
        size_t n = end ? (size_t)(end - start) : size - at;
        make_entry(k, start, n);
        if (!end) break;
        at += n + 4;
    }
    analyze_dir();
    clear_dir(root);
    return 0;
}
