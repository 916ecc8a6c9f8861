/* load.h — which files are dumps, whose rank each is, and decoding them in parallel.
 *
 * fa_load_dir() walks DIR recursively and keeps every regular file whose name is PREFIX +
 * decimal rank, optionally followed by ".json", ".pkl" or ".pickle". Without a prefix it
 * infers one: among the names of that shape, the prefix shared by the most files (a stray file
 * such as notes1 or README does not spoil the inference, unlike torchfrtrace). Ranks are
 * sorted, so nothing downstream depends on directory order. Files are decoded by `jobs`
 * threads, each compacting its dump (store.h) and freeing the decoded one at once, so that only
 * `jobs` full dumps exist at any time; a file that fails to decode is kept as a rejected file with
 * its message, and the rest are analyzed. A second file for the same rank is rejected too.
 *
 * Library code: nothing is printed. The caller reports `rejected` and `notes`.
 */
#ifndef FRTRACE_LOAD_H
#define FRTRACE_LOAD_H

#include <stddef.h>
#include <stdint.h>

#include "progress.h"
#include "dump.h"
#include "dir_walk.h"
#include "hosts.h"
#include "store.h"

typedef struct fa_rank_dump {
    int64_t rank; /* global rank, from the file name */
    char *path;
    fa_dump *dump; /* compact; values it shares live in fa_input.store */
} fa_rank_dump;

typedef struct fa_rejected {
    char *path;
    char *error;
    int64_t rank;     /* from the file name, -1 if none */
    const char *what; /* what the entry is when not a regular file ("a FIFO"), else NULL; static */
} fa_rejected;

typedef struct fa_input {
    fa_store *store; /* interned values every rank's fa_dump points into */
    char *dir;
    char *prefix;
    fa_rank_dump *ranks; /* loaded dumps, ascending rank */
    size_t nranks;
    fa_rejected *rejected;
    size_t nrejected;
    char **notes; /* warnings about files that were loaded: "PATH: message" */
    size_t nnotes;
    char **versions; /* distinct format versions, ascending */
    size_t nversions;
    fa_hosts hosts; /* --hosts FILE, empty without one */
} fa_input;

/* 0 on success (even if some files were rejected); -1 with `err` when the directory cannot be
 * read, no file looks like a dump, or the prefix cannot be inferred. jobs <= 0: one per core. */
int fa_load_dir(const char *dir, const char *prefix, int jobs, fa_progress *progress, fa_input *in,
                fr_error *err);
void fa_input_free(fa_input *in);

/* Index of `rank` in in->ranks, or -1. */
long fa_input_find(const fa_input *in, int64_t rank);

/* fa_dump_name_rank, the dump-name shape, is dir_walk.h's. */

#endif
