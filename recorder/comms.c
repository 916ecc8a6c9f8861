/* comms.c — the communicator registry (see comms.h) and NCCL's communicator hash.
 *
 * The map holds handle -> index + 1 in two parallel atomic arrays; a key of 1 is a tombstone
 * left by a destroyed communicator, so that probe chains stay intact. The registry is sized for
 * the lifetime of a process (1024 communicators); past that, new communicators pass through
 * unrecorded (logged once).
 */
#include "comms.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "../formats/recorder_keys.h"
#include "config.h"

#define MAP_SLOTS 4096 /* power of two, 4x the registry */
#define TOMBSTONE ((uintptr_t)1)

static rec_comm g_comms[REC_MAX_COMMS];
static _Atomic uint32_t g_ncomms;
static _Atomic uintptr_t g_map_keys[MAP_SLOTS];
static _Atomic uint32_t g_map_vals[MAP_SLOTS];
static pthread_mutex_t g_comms_lock = PTHREAD_MUTEX_INITIALIZER;

/* --- NCCL's hash, written from its description: two 64-bit accumulators, 8-byte chunks --- */

static void hash_eat(uint64_t acc[2], const void *bytes, size_t size) {
    const unsigned char *p = bytes;
    acc[0] ^= size;
    while (size != 0) {
        acc[0] += acc[1];
        acc[1] ^= acc[0];
        acc[0] ^= acc[0] >> 31;
        acc[0] *= 0x9de62bbc8cef3ce3ull;
        acc[1] ^= acc[1] >> 32;
        acc[1] *= 0x485cd6311b599e79ull;
        size_t chunk = size < 8 ? size : 8;
        uint64_t x = 0;
        memcpy(&x, p, chunk);
        p += chunk;
        size -= chunk;
        acc[0] += x;
    }
}

static uint64_t hash_digest(const uint64_t acc[2]) {
    uint64_t h = acc[0];
    h ^= h >> 31;
    h *= 0xbac3bd562846de6bull;
    h += acc[1];
    h ^= h >> 32;
    h *= 0x995a187a14e7b445ull;
    return h;
}

uint64_t rec_hash_bytes(const void *bytes, size_t len) {
    uint64_t acc[2] = { 1, 1 };
    hash_eat(acc, bytes, len);
    return hash_digest(acc);
}

uint64_t rec_hash_split(uint64_t parent_hash, int split_count, int color) {
    uint64_t acc[2] = { 1, 1 };
    hash_eat(acc, &parent_hash, sizeof parent_hash);
    hash_eat(acc, &split_count, sizeof split_count);
    hash_eat(acc, &color, sizeof color);
    return hash_digest(acc);
}

static int compare_ints(const void *a, const void *b) {
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

uint64_t rec_hash_shrink(uint64_t parent_id, int shrink_count, const int *excluded, int n) {
    uint64_t acc[2] = { 1, 1 };
    int sorted[256];
    int m = n < 256 ? (n > 0 ? n : 0) : 256;
    if (m > 0) memcpy(sorted, excluded, (size_t)m * sizeof(int));
    qsort(sorted, (size_t)m, sizeof(int), compare_ints);
    hash_eat(acc, &parent_id, sizeof parent_id);
    hash_eat(acc, &shrink_count, sizeof shrink_count);
    hash_eat(acc, sorted, (size_t)m * sizeof(int));
    return hash_digest(acc);
}

/* --- the registry ------------------------------------------------------------------------ */

static uint32_t map_home(uintptr_t handle) {
    uint64_t h = (uint64_t)handle * 0x9e3779b97f4a7c15ull;
    return (uint32_t)(h >> 52) & (MAP_SLOTS - 1);
}

static void hex64(char *out, uint64_t v, bool prefix) {
    static const char digits[] = "0123456789abcdef";
    int n = 0;
    if (prefix) {
        out[n++] = '0';
        out[n++] = 'x';
    }
    for (int shift = 60; shift >= 0; shift -= 4) out[n++] = digits[(v >> shift) & 0xf];
    out[n] = '\0';
}

static void fill_record(rec_comm *c, const rec_comm_init *init) {
    memset(c, 0, sizeof *c);
    c->handle = init->handle;
    c->id = init->id;
    c->nccl_hash = init->nccl_hash;
    c->parent = init->parent;
    c->color = init->color;
    atomic_init(&c->rank, init->rank);
    atomic_init(&c->nranks, init->nranks);
    c->blocking = init->blocking;
    atomic_init(&c->state, REC_COMM_LIVE);
    pthread_mutex_init(&c->busy, NULL); /* a new record: nobody can hold it yet */
    const char *name = init->name != NULL && init->name[0] != '\0' ? init->name : "undefined";
    strncpy(c->desc, name, sizeof c->desc - 1);
    hex64(c->pg_name, c->id, false);
    if (init->device_index > 0 && init->device_index <= 1000) {
        size_t n = strlen(c->pg_name), k = 0;
        char digits[8];
        for (int v = init->device_index - 1; k == 0 || v != 0; v /= 10)
            digits[k++] = (char)('0' + v % 10);
        c->pg_name[n++] = '.';
        while (k > 0) c->pg_name[n++] = digits[--k];
        c->pg_name[n] = '\0';
    }
    hex64(c->hash_text, c->nccl_hash, true);
    atomic_init(&c->last_started, -1);
    atomic_init(&c->last_completed, -1);
}

static void map_put(uintptr_t handle, uint32_t index) {
    uint32_t i = map_home(handle);
    for (uint32_t n = 0; n < MAP_SLOTS; n++, i = (i + 1) & (MAP_SLOTS - 1)) {
        uintptr_t k = atomic_load_explicit(&g_map_keys[i], memory_order_relaxed);
        if (k == 0 || k == TOMBSTONE || k == handle) {
            atomic_store_explicit(&g_map_vals[i], index + 1, memory_order_relaxed);
            atomic_store_explicit(&g_map_keys[i], handle, memory_order_release);
            return;
        }
    }
}

static void map_remove(uintptr_t handle) {
    uint32_t i = map_home(handle);
    for (uint32_t n = 0; n < MAP_SLOTS; n++, i = (i + 1) & (MAP_SLOTS - 1)) {
        uintptr_t k = atomic_load_explicit(&g_map_keys[i], memory_order_relaxed);
        if (k == 0) return;
        if (k == handle) {
            atomic_store_explicit(&g_map_keys[i], TOMBSTONE, memory_order_release);
            return;
        }
    }
}

int rec_comms_add(const rec_comm_init *init) {
    static bool warned;
    int index = -1;
    pthread_mutex_lock(&g_comms_lock);
    uint32_t n = atomic_load_explicit(&g_ncomms, memory_order_relaxed);
    if (n < REC_MAX_COMMS) {
        fill_record(&g_comms[n], init);
        atomic_store_explicit(&g_ncomms, n + 1, memory_order_release);
        if (init->handle != 0) {
            map_remove(init->handle); /* a stale entry for a reused address */
            map_put(init->handle, n);
        }
        index = (int)n;
    } else if (!warned) {
        warned = true;
        rec_log(REC_LOG_WARN, "more than %d communicators: new ones are not recorded",
                REC_MAX_COMMS);
    }
    pthread_mutex_unlock(&g_comms_lock);
    return index;
}

int rec_comms_find(uintptr_t handle) {
    uint32_t i = map_home(handle);
    for (uint32_t n = 0; n < MAP_SLOTS; n++, i = (i + 1) & (MAP_SLOTS - 1)) {
        uintptr_t k = atomic_load_explicit(&g_map_keys[i], memory_order_acquire);
        if (k == handle) return (int)atomic_load_explicit(&g_map_vals[i], memory_order_relaxed) - 1;
        if (k == 0) return -1;
    }
    return -1;
}

rec_comm *rec_comms_at(int index) { return &g_comms[index]; }

uint32_t rec_comms_count(void) { return atomic_load_explicit(&g_ncomms, memory_order_acquire); }

void rec_comms_retire(int index, int state) {
    pthread_mutex_lock(&g_comms_lock);
    rec_comm *c = &g_comms[index];
    atomic_store(&c->state, state);
    if (state != REC_COMM_FINALIZED && state != REC_COMM_REVOKED && c->handle != 0) {
        map_remove(c->handle);
        c->handle = 0;
    }
    pthread_mutex_unlock(&g_comms_lock);
}

void rec_comms_reset(void) {
    /* The child of a fork runs this alone (other threads did not survive): no lock needed, and
     * the mutex may even be held by a thread that no longer exists, so re-initialize it. */
    pthread_mutex_t fresh = PTHREAD_MUTEX_INITIALIZER;
    g_comms_lock = fresh;
    for (uint32_t i = 0; i < MAP_SLOTS; i++)
        atomic_store_explicit(&g_map_keys[i], 0, memory_order_relaxed);
    atomic_store(&g_ncomms, 0);
}

const char *rec_comm_state_name(int state) {
    static const char *const names[] = { FR_COMM_LIVE, "finalized", "destroyed",
                                         "aborted",    "revoked",   FR_COMM_ASYNC_ERROR };
    return (state >= 0 && state <= REC_COMM_ERROR) ? names[state] : "unknown";
}

const char *rec_comm_state_text(const rec_comm *c) {
    static const char *const errors[] = {
#define ASYNC(name) FR_COMM_ASYNC_ERROR_PREFIX #name
        ASYNC(ncclSuccess),       ASYNC(ncclUnhandledCudaError), ASYNC(ncclSystemError),
        ASYNC(ncclInternalError), ASYNC(ncclInvalidArgument),    ASYNC(ncclInvalidUsage),
        ASYNC(ncclRemoteError)
#undef ASYNC
    };
    int state = atomic_load_explicit(&c->state, memory_order_relaxed);
    int err = atomic_load_explicit(&c->async_error, memory_order_relaxed);
    if (state != REC_COMM_ERROR) return rec_comm_state_name(state);
    return (err > 0 && err < (int)(sizeof errors / sizeof errors[0])) ? errors[err]
                                                                      : FR_COMM_ASYNC_ERROR;
}
