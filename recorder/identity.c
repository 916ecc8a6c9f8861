/* identity.c — host name, local rank, CUDA device and NCCL version (see identity.h).
 *
 * The texts are written once, each before the atomic flag that publishes it (release), and
 * read after that flag (acquire): the dumper and the fatal-signal handler never see half a
 * text. The device is taken from the first communicator only: a process drives one GPU in the
 * jobs this is for, and a later communicator of the same process has the same device.
 */
#include "identity.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cuda_driver.h"
#include "recorder.h"

static struct {
    char hostname[256];
    int64_t local_rank;
    _Atomic bool host_known;
    int64_t cuda_index;
    char pci_bus_id[32], uuid[48];
    _Atomic int device_state; /* 0 not yet, 1 being written, 2 known */
} g_id;

static int64_t local_rank_from_env(void) {
    static const char *const vars[] = { "LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_RANK",
                                        "MPI_LOCALRANKID", "MV2_COMM_WORLD_LOCAL_RANK",
                                        "SLURM_LOCALID" };
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        const char *v = getenv(vars[i]);
        char *end;
        if (!v || !*v) continue;
        long long r = strtoll(v, &end, 10);
        if (*end == '\0' && r >= 0 && r < (1LL << 31)) return r;
    }
    return -1;
}

void rec_identity_init(void) {
    if (atomic_load(&g_id.host_known)) return;
    if (gethostname(g_id.hostname, sizeof g_id.hostname - 1) != 0) g_id.hostname[0] = '\0';
    g_id.hostname[sizeof g_id.hostname - 1] = '\0';
    g_id.local_rank = local_rank_from_env();
    atomic_store_explicit(&g_id.host_known, true, memory_order_release);
}

void rec_identity_note_device(int cuda_index) {
    int none = 0;
    if (cuda_index < 0 || !atomic_compare_exchange_strong(&g_id.device_state, &none, 1)) return;
    g_id.cuda_index = cuda_index;
    if (!rec_cuda_device_identity(cuda_index, g_id.pci_bus_id, sizeof g_id.pci_bus_id, g_id.uuid,
                                  sizeof g_id.uuid))
        g_id.pci_bus_id[0] = g_id.uuid[0] = '\0';
    atomic_store_explicit(&g_id.device_state, 2, memory_order_release);
}

void rec_identity_fill(fr_identity *out) {
    bool host = atomic_load_explicit(&g_id.host_known, memory_order_acquire);
    bool device = atomic_load_explicit(&g_id.device_state, memory_order_acquire) == 2;
    const char *nccl = rec_recorder_nccl_version();
    *out = (fr_identity){
        .hostname = host && g_id.hostname[0] ? g_id.hostname : NULL,
        .pid = getpid(),
        .local_rank = host ? g_id.local_rank : -1,
        .cuda_index = device ? g_id.cuda_index : -1,
        .pci_bus_id = device && g_id.pci_bus_id[0] ? g_id.pci_bus_id : NULL,
        .uuid = device && g_id.uuid[0] ? g_id.uuid : NULL,
        .nccl_version = nccl && nccl[0] ? nccl : NULL,
    };
}
