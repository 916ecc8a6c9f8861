/* inflight.c — the per-thread "inside NCCL call X since t" slots (inflight.h).
 *
 * A slot is claimed by a compare-and-swap of its tid from 0 and kept for the thread's life.
 * The thread name goes in first and the tid is published with release order, so a reader
 * that sees the tid sees the name.
 */
#include "inflight.h"

#include <stdbool.h>
#include <string.h>

#include "../formats/recorder_keys.h"
#include "ring.h"

static rec_inflight g_slots[REC_INFLIGHT_SLOTS];
static _Atomic uint32_t g_claiming[REC_INFLIGHT_SLOTS]; /* 1 while a thread fills the slot */

int rec_inflight_claim(uint32_t tid, const char *name) {
    for (int i = 0; i < REC_INFLIGHT_SLOTS; i++) {
        uint32_t free_slot = 0;
        if (atomic_load_explicit(&g_slots[i].tid, memory_order_relaxed) != 0 ||
            !atomic_compare_exchange_strong(&g_claiming[i], &free_slot, 1))
            continue;
        strncpy(g_slots[i].thread_name, name, sizeof g_slots[i].thread_name - 1);
        atomic_store_explicit(&g_slots[i].api, REC_API_NONE, memory_order_relaxed);
        atomic_store_explicit(&g_slots[i].tid, tid ? tid : 1, memory_order_release);
        return i;
    }
    return -1;
}

rec_inflight *rec_inflight_at(int index) { return &g_slots[index]; }

void rec_inflight_reset(void) {
    for (int i = 0; i < REC_INFLIGHT_SLOTS; i++) {
        atomic_store(&g_slots[i].api, REC_API_NONE);
        atomic_store(&g_slots[i].tid, 0);
        atomic_store(&g_claiming[i], 0);
    }
}

const char *rec_api_name(unsigned api) {
    static const char *const lifecycle[] = { "none", FR_NCCL_MAKING_CALLS, FR_NCCL_ENDING_CALLS };
    static const char *const ops[REC_OP_COUNT_] = { [REC_OP_ALL_REDUCE] = "ncclAllReduce",
                                                    [REC_OP_BROADCAST] = "ncclBroadcast",
                                                    [REC_OP_REDUCE] = "ncclReduce",
                                                    [REC_OP_ALL_GATHER] = "ncclAllGather",
                                                    [REC_OP_REDUCE_SCATTER] = "ncclReduceScatter",
                                                    [REC_OP_ALL_TO_ALL] = "ncclAlltoAll",
                                                    [REC_OP_GATHER] = "ncclGather",
                                                    [REC_OP_SCATTER] = "ncclScatter",
                                                    [REC_OP_SEND] = "ncclSend",
                                                    [REC_OP_RECV] = "ncclRecv",
                                                    [REC_OP_COALESCED] = "ncclGroupEnd" };
    if (api < sizeof lifecycle / sizeof lifecycle[0]) return lifecycle[api];
    if (api >= REC_API_OP && api < REC_API_OP + REC_OP_COUNT_) return ops[api - REC_API_OP];
    return "nccl?";
}
