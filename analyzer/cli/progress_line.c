/* progress_line.c — the progress line on a terminal (progress_line.h).
 *
 * A thread wakes every 250 ms (a condition variable's timed wait, so that stopping is prompt),
 * and once the delay has passed writes "\r" + the stage and its counters + "erase to the end
 * of the line", so that the line is rewritten in place and never scrolls. Nothing is written
 * when stderr is not a terminal (a log, a pipe, a CI job): the line is for a person waiting.
 * Stopping erases the line. The counters are fa_progress's atomics, which the analysis updates.
 */
#include "cli/progress_line.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

struct fa_progress_line {
    fa_progress *p;
    long delay_ms;
    bool stop, shown;
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t wake;
};

enum { TICK_MS = 250 };

/* ECMA-48 "erase in line" (EL, CSI K): clears from the cursor to the end of the line, so that a
 * shorter line drawn over a longer one leaves nothing of it behind. */
#define ERASE_TO_END_OF_LINE "\033[K"

static const char *stage_words(fa_stage stage) {
    switch (stage) {
    case FA_STAGE_READING: return "reading dumps";
    case FA_STAGE_GROUPS: return "rebuilding the groups";
    case FA_STAGE_MATCHING: return "matching every rank's collectives";
    case FA_STAGE_DECIDING: return "deciding who waits for whom";
    case FA_STAGE_TIMING: return "timing the ranks";
    default: return "looking for dumps";
    }
}

static void draw(fa_progress_line *l) {
    fa_stage stage = (fa_stage)atomic_load(&l->p->stage);
    if (stage == FA_STAGE_DONE) return;
    size_t done = atomic_load(&l->p->files_done), total = atomic_load(&l->p->files_total);
    double mb = (double)atomic_load(&l->p->bytes_done) / 1e6;
    if (stage == FA_STAGE_START)
        fprintf(stderr, "\rfrtrace: %s" ERASE_TO_END_OF_LINE, stage_words(stage));
    else if (stage == FA_STAGE_READING)
        fprintf(stderr, "\rfrtrace: %s: %zu of %zu files, %.0f MB" ERASE_TO_END_OF_LINE,
                stage_words(stage), done, total, mb);
    else
        fprintf(stderr, "\rfrtrace: %s (%zu files read, %.0f MB)" ERASE_TO_END_OF_LINE,
                stage_words(stage), done, mb);
    fflush(stderr);
    l->shown = true;
}

static void *watch(void *arg) {
    fa_progress_line *l = arg;
    struct timespec start, now;
    clock_gettime(CLOCK_MONOTONIC, &start);
    pthread_mutex_lock(&l->lock);
    if (l->delay_ms == 0) draw(l); /* at once: FRTRACE_PROGRESS_DELAY_MS=0 */
    while (!l->stop) {
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += TICK_MS * 1000000L;
        if (until.tv_nsec >= 1000000000L) until.tv_sec++, until.tv_nsec -= 1000000000L;
        pthread_cond_timedwait(&l->wake, &l->lock, &until);
        if (l->stop) break;
        clock_gettime(CLOCK_MONOTONIC, &now);
        long elapsed = (long)(now.tv_sec - start.tv_sec) * 1000 +
                       (long)(now.tv_nsec - start.tv_nsec) / 1000000L;
        if (elapsed >= l->delay_ms) draw(l);
    }
    pthread_mutex_unlock(&l->lock);
    return NULL;
}

fa_progress_line *fa_progress_line_start(fa_progress *p, long delay_ms) {
    if (!p || !isatty(STDERR_FILENO)) return NULL;
    fa_progress_line *l = calloc(1, sizeof *l);
    if (!l) return NULL;
    l->p = p;
    l->delay_ms = delay_ms;
    pthread_mutex_init(&l->lock, NULL);
    pthread_cond_init(&l->wake, NULL);
    if (pthread_create(&l->thread, NULL, watch, l) != 0) {
        pthread_mutex_destroy(&l->lock);
        pthread_cond_destroy(&l->wake);
        free(l);
        return NULL;
    }
    return l;
}

void fa_progress_line_stop(fa_progress_line *l) {
    if (!l) return;
    pthread_mutex_lock(&l->lock);
    l->stop = true;
    pthread_cond_signal(&l->wake);
    pthread_mutex_unlock(&l->lock);
    pthread_join(l->thread, NULL);
    if (l->shown) {
        fputs("\r" ERASE_TO_END_OF_LINE, stderr);
        fflush(stderr);
    }
    pthread_mutex_destroy(&l->lock);
    pthread_cond_destroy(&l->wake);
    free(l);
}
