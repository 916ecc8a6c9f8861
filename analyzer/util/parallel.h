/* parallel.h — spreading a loop over index ranges across the cores.
 *
 * fa_parallel_for runs fn over [0, n) in chunks that `nworkers` threads (the calling thread is
 * worker 0) take in turn from a shared counter, and returns when every chunk is done. Each index
 * is handled exactly once, by one worker; fn gets the worker's number so that it can use scratch
 * of its own. The order chunks run in is not defined: fn must write only what its indices own.
 */
#ifndef FRTRACE_PARALLEL_H
#define FRTRACE_PARALLEL_H

#include <stddef.h>

/* The most worker threads any stage starts (fa_worker_count's cap): stages keep per-worker
 * scratch in arrays of this size. Beyond it, more threads mostly contend for memory bandwidth. */
enum { FA_MAX_WORKERS = 64 };

typedef void (*fa_range_fn)(void *ctx, unsigned worker, size_t lo, size_t hi);

void fa_parallel_for(size_t n, size_t chunk, unsigned nworkers, fa_range_fn fn, void *ctx);

/* Worker threads worth starting: `jobs` when positive, else the online cores; at most
 * FA_MAX_WORKERS. */
unsigned fa_worker_count(int jobs);

#endif
