/* parallel.c — fa_parallel_for (see parallel.h): an atomic chunk counter, threads started per
 * call (the loops it serves run for tens of milliseconds, thread start-up is microseconds). A
 * thread that cannot be started leaves its share to the others. */
#include "util/parallel.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <unistd.h>

typedef struct loop {
    size_t n, chunk;
    fa_range_fn fn;
    void *ctx;
    atomic_size_t next;
} loop;

typedef struct worker_arg {
    loop *l;
    unsigned worker;
} worker_arg;

static void run(loop *l, unsigned worker) {
    for (;;) {
        size_t lo = atomic_fetch_add(&l->next, l->chunk);
        if (lo >= l->n) return;
        l->fn(l->ctx, worker, lo, lo + l->chunk < l->n ? lo + l->chunk : l->n);
    }
}

static void *thread_main(void *arg) {
    worker_arg *a = arg;
    run(a->l, a->worker);
    return NULL;
}

void fa_parallel_for(size_t n, size_t chunk, unsigned nworkers, fa_range_fn fn, void *ctx) {
    loop l = { n, chunk ? chunk : 1, fn, ctx, 0 };
    size_t chunks = (n + l.chunk - 1) / l.chunk;
    if (nworkers > FA_MAX_WORKERS) nworkers = FA_MAX_WORKERS;
    if (nworkers > chunks) nworkers = chunks ? (unsigned)chunks : 1;
    pthread_t threads[FA_MAX_WORKERS];
    worker_arg args[FA_MAX_WORKERS];
    bool started[FA_MAX_WORKERS] = { false };
    for (unsigned t = 1; t < nworkers; t++) {
        args[t] = (worker_arg){ &l, t };
        started[t] = pthread_create(&threads[t], NULL, thread_main, &args[t]) == 0;
    }
    run(&l, 0);
    for (unsigned t = 1; t < nworkers; t++)
        if (started[t]) pthread_join(threads[t], NULL);
}

unsigned fa_worker_count(int jobs) {
    long n = jobs > 0 ? jobs : sysconf(_SC_NPROCESSORS_ONLN);
    if (n < 1) n = 1;
    return n > FA_MAX_WORKERS ? (unsigned)FA_MAX_WORKERS : (unsigned)n;
}
