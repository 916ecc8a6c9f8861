/* cuda_driver.c — dlopen'ed driver API and the event pool (see cuda_driver.h).
 *
 * Function pointers are declared with cuda.h's types only; the symbol names are the driver's
 * stable base names. Everything is resolved once under pthread_once-like protection (the first
 * communicator's creation is serialized by the registry lock anyway) and published with an
 * atomic flag, so the hot path reads plain pointers after one acquire load.
 */
#include "cuda_driver.h"

#include <cuda.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "config.h"

typedef CUresult (*fn_cuInit)(unsigned int);
typedef CUresult (*fn_cuCtxGetCurrent)(CUcontext *);
typedef CUresult (*fn_cuCtxSetCurrent)(CUcontext);
typedef CUresult (*fn_cuDeviceGet)(CUdevice *, int);
typedef CUresult (*fn_cuDevicePrimaryCtxRetain)(CUcontext *, CUdevice);
typedef CUresult (*fn_cuEventCreate)(CUevent *, unsigned int);
typedef CUresult (*fn_cuEventRecord)(CUevent, CUstream);
typedef CUresult (*fn_cuEventQuery)(CUevent);
typedef CUresult (*fn_cuEventElapsedTime)(float *, CUevent, CUevent);
typedef CUresult (*fn_cuStreamIsCapturing)(CUstream, CUstreamCaptureStatus *);
typedef CUresult (*fn_cuThreadExchangeStreamCaptureMode)(CUstreamCaptureMode *);

static struct {
    fn_cuInit init;
    fn_cuCtxGetCurrent ctx_get;
    fn_cuCtxSetCurrent ctx_set;
    fn_cuDeviceGet device_get;
    fn_cuDevicePrimaryCtxRetain primary_retain;
    fn_cuEventCreate event_create;
    fn_cuEventRecord event_record;
    fn_cuEventQuery event_query;
    fn_cuEventElapsedTime elapsed; /* optional: duration_ms when start events are recorded */
    fn_cuStreamIsCapturing is_capturing;
    fn_cuThreadExchangeStreamCaptureMode exchange_capture_mode;
    CUcontext ctx;
    CUevent *events; /* 2 per pair: start, end */
    _Atomic uint64_t *owner;
    uint32_t pairs;
    bool tried;
    _Atomic bool ready;
} g_cuda;

static pthread_mutex_t g_cuda_lock = PTHREAD_MUTEX_INITIALIZER;

/* Timing events cost a little more to record: only when start events are recorded too
 * (FRTRACE_GPU_EVENTS=2) and the driver can measure them, as PyTorch with timing on. */
static bool load_elapsed(void *lib) {
    if (rec_config_get()->gpu_events >= 2) {
        g_cuda.elapsed = (fn_cuEventElapsedTime)dlsym(lib, "cuEventElapsedTime_v2");
        if (g_cuda.elapsed == NULL)
            g_cuda.elapsed = (fn_cuEventElapsedTime)dlsym(lib, "cuEventElapsedTime");
    }
    return true;
}

static bool load_symbols(void *lib) {
#define LOAD(field, name) (g_cuda.field = (__typeof__(g_cuda.field))dlsym(lib, name)) != NULL
    return LOAD(init, "cuInit") && LOAD(ctx_get, "cuCtxGetCurrent") &&
           LOAD(ctx_set, "cuCtxSetCurrent") && LOAD(device_get, "cuDeviceGet") &&
           LOAD(primary_retain, "cuDevicePrimaryCtxRetain") &&
           LOAD(event_create, "cuEventCreate") && LOAD(event_record, "cuEventRecord") &&
           LOAD(event_query, "cuEventQuery") && LOAD(is_capturing, "cuStreamIsCapturing") &&
           LOAD(exchange_capture_mode, "cuThreadExchangeStreamCaptureMode") && load_elapsed(lib);
#undef LOAD
}

/* The context the events will live in: the caller's, else the device's primary context. */
static bool choose_context(int device) {
    CUcontext current = NULL;
    if (g_cuda.ctx_get(&current) == CUDA_SUCCESS && current != NULL) {
        g_cuda.ctx = current;
        return true;
    }
    CUdevice dev;
    if (g_cuda.device_get(&dev, device < 0 ? 0 : device) != CUDA_SUCCESS ||
        g_cuda.primary_retain(&g_cuda.ctx, dev) != CUDA_SUCCESS)
        return false;
    return true;
}

static bool create_pool(uint32_t pairs) {
    CUcontext previous = NULL;
    g_cuda.ctx_get(&previous);
    if (previous != g_cuda.ctx) g_cuda.ctx_set(g_cuda.ctx);
    g_cuda.events = calloc((size_t)pairs * 2, sizeof(CUevent));
    g_cuda.owner = calloc(pairs, sizeof(*g_cuda.owner));
    bool ok = g_cuda.events != NULL && g_cuda.owner != NULL;
    for (uint32_t i = 0; ok && i < pairs * 2; i++)
        ok = g_cuda.event_create(&g_cuda.events[i],
                                 g_cuda.elapsed ? CU_EVENT_DEFAULT : CU_EVENT_DISABLE_TIMING) ==
             CUDA_SUCCESS;
    if (previous != g_cuda.ctx) g_cuda.ctx_set(previous);
    for (uint32_t i = 0; ok && i < pairs; i++) atomic_init(&g_cuda.owner[i], UINT64_MAX);
    g_cuda.pairs = pairs;
    return ok;
}

bool rec_cuda_init(uint32_t pairs, int device) {
    pthread_mutex_lock(&g_cuda_lock);
    if (!g_cuda.tried && pairs > 0) {
        g_cuda.tried = true;
        void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
        if (lib == NULL) {
            rec_log(REC_LOG_INFO, "no libcuda.so.1: recording calls only");
        } else if (!load_symbols(lib) || g_cuda.init(0) != CUDA_SUCCESS ||
                   !choose_context(device) || !create_pool(pairs)) {
            rec_log(REC_LOG_WARN, "CUDA driver unusable: recording calls only");
        } else {
            atomic_store_explicit(&g_cuda.ready, true, memory_order_release);
            rec_log(REC_LOG_INFO, "%u event pairs ready", pairs);
        }
    }
    pthread_mutex_unlock(&g_cuda_lock);
    return rec_cuda_ready();
}

bool rec_cuda_ready(void) { return atomic_load_explicit(&g_cuda.ready, memory_order_acquire); }

uint32_t rec_cuda_pairs(void) { return g_cuda.pairs; }

bool rec_cuda_stream_capturing(uintptr_t stream) {
    CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
    /* An error (e.g. the legacy stream during another thread's global capture) means: don't. */
    if (g_cuda.is_capturing((CUstream)stream, &status) != CUDA_SUCCESS) return true;
    return status != CU_STREAM_CAPTURE_STATUS_NONE;
}

bool rec_cuda_record(uint32_t pair, int which, uintptr_t stream) {
    return g_cuda.event_record(g_cuda.events[pair * 2 + (uint32_t)which], (CUstream)stream) ==
           CUDA_SUCCESS;
}

enum rec_query rec_cuda_query(uint32_t pair, int which) {
    CUresult r = g_cuda.event_query(g_cuda.events[pair * 2 + (uint32_t)which]);
    if (r == CUDA_SUCCESS) return REC_Q_DONE;
    return r == CUDA_ERROR_NOT_READY ? REC_Q_PENDING : REC_Q_ERROR;
}

bool rec_cuda_elapsed_ms(uint32_t pair, float *ms) {
    return g_cuda.elapsed != NULL &&
           g_cuda.elapsed(ms, g_cuda.events[pair * 2], g_cuda.events[pair * 2 + 1]) == CUDA_SUCCESS;
}

void rec_cuda_prepare_watchdog_thread(void) {
    if (!rec_cuda_ready()) return;
    CUstreamCaptureMode mode = CU_STREAM_CAPTURE_MODE_THREAD_LOCAL;
    g_cuda.ctx_set(g_cuda.ctx); /* first, or the exchange would create a context of its own */
    g_cuda.exchange_capture_mode(&mode);
}

void rec_cuda_set_owner(uint32_t pair, uint64_t record_id) {
    atomic_store_explicit(&g_cuda.owner[pair], record_id, memory_order_relaxed);
}

bool rec_cuda_owned_by(uint32_t pair, uint64_t record_id) {
    return atomic_load_explicit(&g_cuda.owner[pair], memory_order_relaxed) == record_id;
}

typedef CUresult (*fn_cuDeviceGetPCIBusId)(char *, int, CUdevice);
typedef CUresult (*fn_cuDeviceGetUuid)(CUuuid *, CUdevice);

/* "GPU-" and the 16 bytes as 8-4-4-4-12 hex digits, as nvidia-smi prints a UUID. */
static void format_uuid(const CUuuid *u, char *out, size_t cap) {
    static const char hex[] = "0123456789abcdef";
    char text[48] = "GPU-";
    size_t n = 4;
    for (int i = 0; i < 16; i++) {
        if (i == 4 || i == 6 || i == 8 || i == 10) text[n++] = '-';
        text[n++] = hex[(unsigned char)u->bytes[i] >> 4];
        text[n++] = hex[(unsigned char)u->bytes[i] & 15];
    }
    text[n] = '\0';
    snprintf(out, cap, "%s", text);
}

bool rec_cuda_device_identity(int index, char *bus, size_t bus_cap, char *uuid, size_t uuid_cap) {
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
    if (lib == NULL) return false;
    fn_cuDeviceGet device_get = (fn_cuDeviceGet)dlsym(lib, "cuDeviceGet");
    fn_cuDeviceGetPCIBusId get_bus = (fn_cuDeviceGetPCIBusId)dlsym(lib, "cuDeviceGetPCIBusId");
    fn_cuDeviceGetUuid get_uuid = (fn_cuDeviceGetUuid)dlsym(lib, "cuDeviceGetUuid_v2");
    if (get_uuid == NULL) get_uuid = (fn_cuDeviceGetUuid)dlsym(lib, "cuDeviceGetUuid");
    CUdevice dev;
    CUuuid u;
    bool ok = device_get && get_bus && get_uuid && device_get(&dev, index) == CUDA_SUCCESS &&
              bus_cap <= 0x7fffffff && get_bus(bus, (int)bus_cap, dev) == CUDA_SUCCESS &&
              get_uuid(&u, dev) == CUDA_SUCCESS;
    if (ok) {
        bus[bus_cap - 1] = '\0';
        format_uuid(&u, uuid, uuid_cap);
    }
    dlclose(lib); /* RTLD_NOLOAD took a reference; the library stays loaded by its owner */
    return ok;
}

void rec_cuda_forget(void) {
    atomic_store(&g_cuda.ready, false);
    g_cuda.tried = false;
    pthread_mutex_t fresh = PTHREAD_MUTEX_INITIALIZER;
    g_cuda_lock = fresh;
}
