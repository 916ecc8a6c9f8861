/* job_folders.c — several jobs under one directory (job_folders.h).
 *
 * For each rank (the files come sorted by rank), the distinct folders holding a regular file of
 * it are counted in a set; the rank found in the most folders tells how many jobs there are at
 * least, and its folders are the ones to name. Linear in the files.
 */
#include "job_folders.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "index.h"

enum { FOLDERS_NAMED = 3 };

/* The folder part of path ("." when it has none), malloc'd. */
static char *folder_of(const char *path) {
    const char *slash = strrchr(path, '/');
    return slash ? strndup(path, (size_t)(slash - path)) : strdup(".");
}

/* The folder as the user would type it after DIR: without DIR's own "DIR/" in front. */
static const char *below(const char *folder, const char *dir) {
    size_t len = strlen(dir);
    while (len > 1 && dir[len - 1] == '/') len--;
    if (strncmp(folder, dir, len) == 0 && folder[len] == '/') return folder + len + 1;
    return folder;
}

/* How many distinct folders hold regular files of the rank run files[lo, hi). */
static size_t folders_in_run(const fa_dir_entry *files, size_t lo, size_t hi) {
    fa_smap seen = { 0 };
    size_t count = 0;
    for (size_t i = lo; i < hi; i++) {
        if (files[i].odd) continue;
        char *folder = folder_of(files[i].path);
        if (folder && !fa_smap_get(&seen, folder, NULL)) {
            fa_smap_put(&seen, folder, 0);
            count++;
        }
        free(folder);
    }
    fa_smap_free(&seen);
    return count;
}

/* "a2a_size, ddp_healthy, healthy and 38 more": the first folders (in path order) of the run. */
static void name_folders(const fa_dir_entry *files, size_t lo, size_t hi, size_t count,
                         const char *dir, char *buf, size_t len) {
    size_t at = 0, named = 0;
    char *last = NULL;
    buf[0] = '\0';
    for (size_t i = lo; i < hi && named < FOLDERS_NAMED; i++) {
        if (files[i].odd) continue;
        char *folder = folder_of(files[i].path);
        if (!folder || (last && strcmp(last, folder) == 0)) {
            free(folder);
            continue;
        }
        free(last);
        last = folder;
        at += (size_t)snprintf(buf + at, at < len ? len - at : 0, "%s%.80s", named ? ", " : "",
                               below(folder, dir));
        named++;
    }
    free(last);
    if (count > named && at < len) snprintf(buf + at, len - at, " and %zu more", count - named);
}

char *fa_job_folders_message(const fa_dir_entry *files, size_t n, const char *dir) {
    size_t best = 1, best_lo = 0, best_hi = 0;
    for (size_t lo = 0, hi; lo < n; lo = hi) {
        for (hi = lo + 1; hi < n && files[hi].rank == files[lo].rank;) hi++;
        if (hi - lo < 2) continue; /* one file: one folder */
        size_t count = folders_in_run(files, lo, hi);
        if (count > best) best = count, best_lo = lo, best_hi = hi;
    }
    if (best < 2) return NULL;
    char names[400], *msg = NULL;
    name_folders(files, best_lo, best_hi, best, dir, names, sizeof names);
    char *first = NULL;
    for (size_t i = best_lo; i < best_hi && !first; i++)
        if (!files[i].odd) first = folder_of(files[i].path);
    if (asprintf(&msg,
                 "%s holds the dumps of %zu jobs (rank %lld's dump is in %zu folders: %s): "
                 "analyze one at a time, e.g. frtrace %s",
                 dir, best, (long long)files[best_lo].rank, best, names, first ? first : dir) < 0)
        msg = NULL;
    free(first);
    return msg;
}
