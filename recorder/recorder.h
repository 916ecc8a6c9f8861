/* recorder.h — the recorder's process-wide state (recorder.c): the ring, who this process is
 * (global rank, rank in its first communicator, NCCL version), the clocks, and the one NCCL
 * call the watchdog makes (ncclCommGetAsyncError).
 *
 * It sits at the bottom of the recorder's call graph: shim.c fills the state, watchdog.c and
 * dumper.c read it, and recorder.c calls none of them (only ring.c and config.c). Where a lower
 * file needs something of the shim's, the shim registers it here: the watchdog's
 * ncclCommGetAsyncError goes through a hook the shim installs at activation, because only the
 * shim knows the real NCCL functions.
 *
 * The hot path reads the ring and the clock offset through the inline accessors below, which
 * compile to the same RIP-relative accesses as the shim's former file-static variables (the
 * variables are declared hidden, so no GOT load). Every reader is async-signal-safe.
 */
#ifndef FRTRACE_REC_RECORDER_H
#define FRTRACE_REC_RECORDER_H

#include <stdint.h>
#include <time.h>

#include "ring.h"

#define REC_HIDDEN __attribute__((visibility("hidden")))

/* Written only by recorder.c; read them through the accessors. */
extern rec_ring rec_g_ring REC_HIDDEN;
extern int64_t rec_g_real_minus_mono_ns REC_HIDDEN;

/* --- the ring ------------------------------------------------------------------------------ */

static inline rec_ring *rec_recorder_ring(void) { return &rec_g_ring; }

/* At the first activation: memory for `capacity` entries; 0, or -1 when out of memory. */
int rec_recorder_init(uint32_t capacity);
/* In a forked child that activates again: forget the parent's entries and first comm rank. */
void rec_recorder_reset(void);

/* --- who this process is ------------------------------------------------------------------- */

/* FRTRACE_RANK & co., else the rank in the first communicator, else the pid. */
int64_t rec_recorder_global_rank(void);
/* The same without the pid fallback: -1 while the global rank is unknown. */
int64_t rec_recorder_known_rank(void);
/* The process's rank in a communicator it created; only the first rank >= 0 counts. */
void rec_recorder_note_comm_rank(int64_t rank);
/* "2.28.9" once a communicator exists, else "". */
const char *rec_recorder_nccl_version(void);
void rec_recorder_set_nccl_version(const char *version);

/* --- clocks -------------------------------------------------------------------------------- */

/* CLOCK_MONOTONIC and CLOCK_REALTIME in ns (both async-signal-safe). Inline, like the coarse
 * clock below, so that the wrappers' failure path reads the clock as cheaply as before. */
static inline int64_t rec_now_mono_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static inline int64_t rec_now_real_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* The hot path's clock: the kernel tick's resolution (1-4 ms) is plenty for ordering calls
 * across ranks and for timeouts, at a quarter of the precise clock's cost. */
static inline int64_t rec_now_coarse_mono_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Takes the offset of CLOCK_REALTIME over the coarse monotonic clock (at each activation). */
void rec_recorder_sync_clocks(void);
/* The realtime of a coarse monotonic reading, without a second clock read. */
static inline int64_t rec_recorder_real_of(int64_t coarse_mono_ns) {
    return coarse_mono_ns + rec_g_real_minus_mono_ns;
}

/* --- the watchdog's NCCL call -------------------------------------------------------------- */

/* The real ncclCommGetAsyncError on `handle`, not recorded: 0 and *error, or -1. */
typedef int (*rec_async_error_fn)(uintptr_t handle, int *error);
/* The shim installs it at activation (before the watchdog starts). */
void rec_recorder_set_async_error(rec_async_error_fn fn);
/* Calls the installed function; -1 while none is installed. */
int rec_recorder_comm_async_error(uintptr_t handle, int *error);

#endif
