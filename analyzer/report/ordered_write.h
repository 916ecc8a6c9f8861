/* ordered_write.h — format a long output in chunks on every core, write it in order.
 *
 * The database is one long JSON text whose rows depend on nothing but the analysis, so chunks of
 * rows can be formatted in parallel as long as they reach the file in order. fa_ordered_write
 * hands chunk indices 0..n-1 to `nworkers` formatters (the calling thread is worker 0) and passes
 * each finished chunk's bytes to `sink`, in chunk order, from the calling thread only. Workers
 * run at most a small window of chunks ahead of the sink, whose buffers are reused, so memory
 * stays bounded by the window, not by the output.
 */
#ifndef FRTRACE_ORDERED_WRITE_H
#define FRTRACE_ORDERED_WRITE_H

#include <stdbool.h>
#include <stddef.h>

#include "util/parallel.h" /* fa_worker_count */

/* A growable byte buffer. */
typedef struct fa_textbuf {
    char *v;
    size_t n, cap;
} fa_textbuf;

/* Makes room for `more` bytes after v[n]; false when out of memory. */
bool fa_textbuf_reserve(fa_textbuf *b, size_t more);
void fa_textbuf_free(fa_textbuf *b);

/* Formats chunk `chunk` into `out` (empty on entry, its capacity kept from earlier chunks);
 * `worker` (0..nworkers-1) tells whose scratch to use. Returns 0, or -1 to stop everything. */
typedef int (*fa_chunk_format)(void *ctx, unsigned worker, size_t chunk, fa_textbuf *out);
/* Receives a finished chunk, in chunk order, on the calling thread. Returns 0 or -1. */
typedef int (*fa_chunk_sink)(void *ctx, const char *bytes, size_t n);

/* Workers: `nworkers` formatters in all (<= 1: everything on the calling thread, no threads).
 * Returns 0, or -1 when a formatter or the sink failed (the sink then got a prefix only). */
int fa_ordered_write(size_t nchunks, unsigned nworkers, fa_chunk_format format, void *format_ctx,
                     fa_chunk_sink sink, void *sink_ctx);

#endif
