/* recorder.c — the recorder's process-wide state: the ring, the process's identity, the clock
 * offset and the hook for the watchdog's ncclCommGetAsyncError (recorder.h).
 *
 * The shim writes this state at activation (ring memory, clock offset, NCCL version, the hook)
 * and when a communicator is created (the first comm rank); the watchdog, the dumper and the
 * fatal-signal handler read it. It calls nothing of the recorder's but ring.c and config.c, so
 * every other file can call down into it. Readers take no lock and allocate nothing: the rank
 * is an atomic, the version a string written before the phase turns active (the shim's release
 * store), the hook an atomic pointer.
 */
#include "recorder.h"

#include <stdatomic.h>
#include <stddef.h>
#include <unistd.h>

#include "config.h"

rec_ring rec_g_ring;
int64_t rec_g_real_minus_mono_ns;

static _Atomic int64_t g_first_comm_rank = -1;
static char g_nccl_version[24];
static _Atomic(rec_async_error_fn) g_async_error;

int rec_recorder_init(uint32_t capacity) { return rec_ring_init(&rec_g_ring, capacity); }

void rec_recorder_reset(void) {
    rec_ring_reset(&rec_g_ring);
    atomic_store(&g_first_comm_rank, -1);
}

int64_t rec_recorder_known_rank(void) {
    int64_t r = rec_config_get()->global_rank;
    return r >= 0 ? r : atomic_load(&g_first_comm_rank);
}

int64_t rec_recorder_global_rank(void) {
    int64_t r = rec_recorder_known_rank();
    return r >= 0 ? r : (int64_t)getpid();
}

void rec_recorder_note_comm_rank(int64_t rank) {
    int64_t none = -1;
    if (rank >= 0) atomic_compare_exchange_strong(&g_first_comm_rank, &none, rank);
}

const char *rec_recorder_nccl_version(void) { return g_nccl_version; }

void rec_recorder_set_nccl_version(const char *version) {
    size_t i = 0;
    for (; version[i] != '\0' && i + 1 < sizeof g_nccl_version; i++) g_nccl_version[i] = version[i];
    g_nccl_version[i] = '\0';
}

void rec_recorder_sync_clocks(void) {
    rec_g_real_minus_mono_ns = rec_now_real_ns() - rec_now_coarse_mono_ns();
}

void rec_recorder_set_async_error(rec_async_error_fn fn) {
    atomic_store_explicit(&g_async_error, fn, memory_order_release);
}

int rec_recorder_comm_async_error(uintptr_t handle, int *error) {
    rec_async_error_fn fn = atomic_load_explicit(&g_async_error, memory_order_acquire);
    return fn != NULL ? fn(handle, error) : -1;
}
