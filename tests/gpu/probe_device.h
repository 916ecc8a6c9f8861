/* probe_device.h — what the NCCL probe (nccl_probe.c) needs of a GPU, behind one interface.
 *
 * Two builds implement it: probe_cuda.cu (nvcc and the CUDA runtime: device memory, streams,
 * graph capture and replay, kernels that spin) for a real GPU, and probe_fake.c (the fake
 * libcuda.so.1 of tests/fakes: a stream is a host FIFO, a "kernel" is a host function queued
 * on it, capture records nothing to replay) so that the probe's NCCL calls and the recorder
 * under them run on any machine. The probe itself calls no CUDA function directly.
 */
#ifndef FRTRACE_PROBE_DEVICE_H
#define FRTRACE_PROBE_DEVICE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A stream, as NCCL takes it (cudaStream_t): kept opaque here so that C callers need no
 * CUDA header beyond nccl.h's. */
typedef void *probe_stream;
/* A host-mapped word a spinning kernel reads; the host writes 1 to release it. */
typedef struct probe_flag probe_flag;

/* Selects device 0 and makes its primary context current; writes the device's name and
 * "driver D runtime R" into the buffers. 0 on success, else -1 with a reason in `name`. */
int probe_dev_init(char *name, size_t name_cap, char *versions, size_t versions_cap);
/* "cuda" or "fake". */
const char *probe_dev_kind(void);
/* Device memory of `bytes` (zeroed), or NULL. The fake NCCL never touches it. */
void *probe_dev_alloc(size_t bytes);
probe_stream probe_dev_stream(void);
/* Waits for the stream's work for at most timeout_ms: 0 drained, 1 still busy, -1 error. */
int probe_dev_sync(probe_stream s, int timeout_ms);

probe_flag *probe_dev_flag(void);
/* Queues a kernel that spins until the flag is released, or limit_ms passed (so that the GPU
 * is never left busy even if the host dies without releasing it). */
int probe_dev_spin(probe_stream s, probe_flag *flag, int limit_ms);
void probe_dev_release(probe_flag *flag);
/* Queues a kernel that spins for ms milliseconds. */
int probe_dev_sleep(probe_stream s, int ms);

/* Global-mode capture of the stream, then instantiation and `replays` launches of the graph.
 * capture_end returns the number of replays done (0 on the fake, which records no graph), or
 * -1 with the reason in `why`. */
int probe_dev_capture_begin(probe_stream s);
int probe_dev_capture_end(probe_stream s, int replays, char *why, size_t why_cap);

#ifdef __cplusplus
}
#endif

#endif
