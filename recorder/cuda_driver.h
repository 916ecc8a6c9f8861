/* cuda_driver.h — the CUDA driver API, loaded at run time, and the recorder's event pool.
 *
 * libcuda.so.1 is dlopen'ed (never linked): a process without a GPU or driver runs the
 * recorder in call-only mode. Events come from a pool created once, on the thread that
 * creates the first communicator (which has the right context current), never on the hot
 * path or in the watchdog. Event pair p (start, end) is owned by the ring entry whose record
 * id was last written into `owner[p]`; the watchdog queries a pair only for its owner, so a
 * recycled pair never reports another entry's progress.
 */
#ifndef FRTRACE_REC_CUDA_DRIVER_H
#define FRTRACE_REC_CUDA_DRIVER_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum rec_query { REC_Q_DONE, REC_Q_PENDING, REC_Q_ERROR };

/* Loads libcuda.so.1 and creates `pairs` event pairs in the current context (or the primary
 * context of `device`). Returns false (call-only mode) when anything is missing. Idempotent. */
bool rec_cuda_init(uint32_t pairs, int device);
bool rec_cuda_ready(void);
uint32_t rec_cuda_pairs(void);

/* Whether `stream` is capturing a CUDA graph (or the answer is unknown: then treat as yes). */
bool rec_cuda_stream_capturing(uintptr_t stream);
/* Records the start (which = 0) or end (which = 1) event of pair `pair` on `stream`. */
bool rec_cuda_record(uint32_t pair, int which, uintptr_t stream);
/* Queries an event of a pair. */
enum rec_query rec_cuda_query(uint32_t pair, int which);
/* The GPU time from a pair's start to its end event, both done, as PyTorch's duration_ms
 * (cuEventElapsedTime); false when unknown: a driver without the call, or an error. */
bool rec_cuda_elapsed_ms(uint32_t pair, float *ms);
/* The GPU time from a pair's start to its end event, both done, as PyTorch's duration_ms
 * (cuEventElapsedTime); false when unknown: a driver without the call, or an error. */
bool rec_cuda_elapsed_ms(uint32_t pair, float *ms);
/* For the watchdog thread: make the pool's context current and switch this thread to
 * thread-local stream-capture mode, so that querying never disturbs another thread's capture. */
void rec_cuda_prepare_watchdog_thread(void);
/* Who owns each pair: the record id of the entry that recorded it last. */
void rec_cuda_set_owner(uint32_t pair, uint64_t record_id);
bool rec_cuda_owned_by(uint32_t pair, uint64_t record_id);
/* The PCI bus id ("0000:5A:00.0") and UUID ("GPU-xxxxxxxx-xxxx-...") of device `index`, as the
 * driver gives them, through a libcuda.so.1 the process has already loaded (never loading it).
 * False when either is unknown. For the dump's identity (identity.h). */
bool rec_cuda_device_identity(int index, char *bus, size_t bus_cap, char *uuid, size_t uuid_cap);
/* Child of a fork: CUDA is unusable there; forget the pool. */
void rec_cuda_forget(void);

#endif
