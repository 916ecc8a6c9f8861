/* ordered_write.c — parallel chunk formatting, in-order writing (see ordered_write.h).
 *
 * A ring of `window` slots holds the chunks between the sink and the formatters: chunk c lives in
 * slot c % window, and may only be claimed once chunk c - window has been written, so a slot's
 * buffer is reused chunk after chunk (no fresh pages per chunk). One mutex and one condition
 * variable guard the counters: workers wait while the window is full, the calling thread waits
 * while the next chunk to write is not finished and there is nothing it may format itself.
 */
#include "report/ordered_write.h"
#include "grow.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

bool fa_textbuf_reserve(fa_textbuf *b, size_t more) {
    return fr_grow((void **)&b->v, &b->cap, b->n + more, 1, 4096) == 0;
}

void fa_textbuf_free(fa_textbuf *b) {
    free(b->v);
    memset(b, 0, sizeof *b);
}

typedef struct slot {
    fa_textbuf buf;
    bool done;
} slot;

typedef struct ordered {
    size_t nchunks, window;
    fa_chunk_format format;
    void *format_ctx;
    slot *slots;
    pthread_mutex_t lock;
    pthread_cond_t changed;
    size_t next_claim, next_write;
    bool failed;
    unsigned next_worker; /* worker index handed to the next thread started */
} ordered;

static bool may_claim(const ordered *o) {
    return o->next_claim < o->nchunks && o->next_claim < o->next_write + o->window;
}

/* Formats chunk c (the lock is held on entry and on return). */
static void format_chunk(ordered *o, unsigned worker, size_t c) {
    slot *s = &o->slots[c % o->window];
    pthread_mutex_unlock(&o->lock);
    s->buf.n = 0;
    int rc = o->format(o->format_ctx, worker, c, &s->buf);
    pthread_mutex_lock(&o->lock);
    s->done = true;
    if (rc) o->failed = true;
    pthread_cond_broadcast(&o->changed);
}

static void *worker_main(void *arg) {
    ordered *o = arg;
    pthread_mutex_lock(&o->lock);
    unsigned worker = o->next_worker++;
    for (;;) {
        while (!o->failed && o->next_claim < o->nchunks && !may_claim(o))
            pthread_cond_wait(&o->changed, &o->lock);
        if (o->failed || o->next_claim >= o->nchunks) break;
        format_chunk(o, worker, o->next_claim++);
    }
    pthread_mutex_unlock(&o->lock);
    return NULL;
}

/* The calling thread: writes finished chunks in order, formats one itself when the next to write
 * is not ready yet and the window allows, otherwise waits. */
static void writer_main(ordered *o, fa_chunk_sink sink, void *sink_ctx) {
    pthread_mutex_lock(&o->lock);
    while (!o->failed && o->next_write < o->nchunks) {
        slot *s = &o->slots[o->next_write % o->window];
        if (s->done) {
            pthread_mutex_unlock(&o->lock);
            int rc = sink(sink_ctx, s->buf.v, s->buf.n);
            pthread_mutex_lock(&o->lock);
            s->done = false;
            o->next_write++;
            if (rc) o->failed = true;
            pthread_cond_broadcast(&o->changed);
        } else if (may_claim(o)) {
            format_chunk(o, 0, o->next_claim++);
        } else {
            pthread_cond_wait(&o->changed, &o->lock);
        }
    }
    o->failed |= o->next_write < o->nchunks;
    pthread_cond_broadcast(&o->changed);
    pthread_mutex_unlock(&o->lock);
}

static int run_inline(size_t nchunks, fa_chunk_format format, void *format_ctx, fa_chunk_sink sink,
                      void *sink_ctx) {
    fa_textbuf buf = { 0 };
    int rc = 0;
    for (size_t c = 0; c < nchunks && rc == 0; c++) {
        buf.n = 0;
        rc = format(format_ctx, 0, c, &buf);
        if (rc == 0) rc = sink(sink_ctx, buf.v, buf.n);
    }
    fa_textbuf_free(&buf);
    return rc;
}

int fa_ordered_write(size_t nchunks, unsigned nworkers, fa_chunk_format format, void *format_ctx,
                     fa_chunk_sink sink, void *sink_ctx) {
    if (nworkers > FA_MAX_WORKERS) nworkers = FA_MAX_WORKERS;
    if (nworkers > nchunks) nworkers = (unsigned)nchunks;
    if (nworkers <= 1) return run_inline(nchunks, format, format_ctx, sink, sink_ctx);
    ordered o = { .nchunks = nchunks,
                  .window = 2 * (size_t)nworkers + 2,
                  .format = format,
                  .format_ctx = format_ctx,
                  .next_worker = 1 };
    o.slots = calloc(o.window, sizeof *o.slots);
    if (!o.slots) return run_inline(nchunks, format, format_ctx, sink, sink_ctx);
    pthread_mutex_init(&o.lock, NULL);
    pthread_cond_init(&o.changed, NULL);
    pthread_t threads[FA_MAX_WORKERS];
    unsigned started = 0;
    for (unsigned t = 1; t < nworkers; t++)
        if (pthread_create(&threads[started], NULL, worker_main, &o) == 0) started++;
    writer_main(&o, sink, sink_ctx);
    for (unsigned t = 0; t < started; t++) pthread_join(threads[t], NULL);
    pthread_cond_destroy(&o.changed);
    pthread_mutex_destroy(&o.lock);
    for (size_t i = 0; i < o.window; i++) fa_textbuf_free(&o.slots[i].buf);
    free(o.slots);
    return o.failed ? -1 : 0;
}
