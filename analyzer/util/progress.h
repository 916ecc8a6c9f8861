/* progress.h — how far an analysis has come, for a progress line (cli/progress_line.c).
 *
 * The pipeline's stages say where they are: the loader counts the files it has decoded and
 * their bytes (its worker threads add with atomic operations), the analysis names the stage it
 * enters. Nothing here prints or waits: whoever wants to show progress reads the counters from
 * another thread. A NULL fa_progress means nobody watches; every call then does nothing.
 */
#ifndef FRTRACE_PROGRESS_H
#define FRTRACE_PROGRESS_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

typedef enum fa_stage {
    FA_STAGE_START,
    FA_STAGE_READING, /* decoding the dumps: files_done of files_total */
    FA_STAGE_GROUPS,
    FA_STAGE_MATCHING,
    FA_STAGE_DECIDING,
    FA_STAGE_TIMING, /* stragglers and stats */
    FA_STAGE_DONE,
} fa_stage;

typedef struct fa_progress {
    atomic_int stage;
    atomic_size_t files_done, files_total;
    atomic_uint_fast64_t bytes_done;
} fa_progress;

static inline void fa_progress_stage(fa_progress *p, fa_stage stage) {
    if (p) atomic_store(&p->stage, (int)stage);
}

static inline void fa_progress_files(fa_progress *p, size_t total) {
    if (p) atomic_store(&p->files_total, total);
}

static inline void fa_progress_file_done(fa_progress *p, uint64_t bytes) {
    if (!p) return;
    atomic_fetch_add(&p->files_done, 1);
    atomic_fetch_add(&p->bytes_done, bytes);
}

#endif
