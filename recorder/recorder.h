/* recorder.h — what the recorder's modules share: the ring, the process's global rank and
 * NCCL version, and the lifecycle hooks of the shim (activation at the first communicator,
 * inertness in a forked child).
 *
 * The ring lives in shim.c next to the wrappers that fill it; watchdog.c and dump.c read it
 * through rec_recorder_ring().
 */
#ifndef FRTRACE_REC_RECORDER_H
#define FRTRACE_REC_RECORDER_H

#include <stdint.h>

#include "ring.h"

rec_ring *rec_recorder_ring(void);
/* FRTRACE_RANK & co., else the rank in the first communicator, else the pid. */
int64_t rec_recorder_global_rank(void);
/* The same without the pid fallback: -1 while the global rank is unknown. */
int64_t rec_recorder_known_rank(void);
/* "2.28.9" once a communicator exists, else "". */
const char *rec_recorder_nccl_version(void);
/* CLOCK_MONOTONIC and CLOCK_REALTIME in ns (both async-signal-safe). */
int64_t rec_now_mono_ns(void);
int64_t rec_now_real_ns(void);
/* The real ncclCommGetAsyncError on `handle` (not recorded); 0 and *error, or -1. */
int rec_shim_comm_async_error(uintptr_t handle, int *error);

#endif
