/* group.c — what the recorder does once per ncclGroupStart/End batch (group.h): the
 * "nccl:coalesced" end marker of each communicator's batch, the CUDA events recorded around the
 * real ncclGroupEnd (one pair per stream, shared by its members), and a simulated batch undone.
 */
#include "group.h"

#include "recorder.h"
#include "ring.h"

group_comm *rec_group_comm_for(rec_group *g, int index, rec_comm *c) {
    for (int i = 0; i < g->ncomms; i++)
        if (g->comms[i].comm == index) return &g->comms[i];
    if (g->ncomms == GROUP_MAX_COMMS) return NULL;
    group_comm *gc = &g->comms[g->ncomms++];
    memset(gc, 0, sizeof *gc);
    gc->comm = index;
    gc->coll_before = atomic_load(&c->coll_seq);
    gc->p2p_before = atomic_load(&c->p2p_seq);
    gc->op_before = atomic_load(&c->op_id);
    gc->launch_before = atomic_load(&c->launch_seq);
    gc->stream = -1;
    return gc;
}

void rec_group_publish_end_markers(rec_group *g, uint32_t tid, const char *thread_name) {
    for (int i = 0; i < g->ncomms; i++) {
        group_comm *gc = &g->comms[i];
        if (gc->nops < 2) continue;
        rec_comm *c = rec_comms_at(gc->comm);
        rec_call_words cw;
        rec_call *call = &cw.call;
        memset(&cw, 0, sizeof cw);
        int64_t mono = rec_now_coarse_mono_ns();
        call->record_id = rec_ring_reserve(rec_recorder_ring());
        call->mono_created_ns = mono;
        call->time_created_ns = rec_recorder_real_of(mono);
        call->comm = (uint16_t)gc->comm;
        call->op = REC_OP_COALESCED;
        call->peer = -1;
        call->flags = REC_F_IN_GROUP;
        call->tid = tid;
        memcpy(call->thread_name, thread_name, sizeof call->thread_name);
        call->coll_seq = atomic_load(&c->coll_seq);
        call->p2p_seq = atomic_load(&c->p2p_seq);
        /* PyTorch's end marker takes no op id of its own: it repeats the batch's last one
         * (torch 2.11 on an H100: send op_id 2, recv 3, nccl:coalesced 3) */
        call->op_id = atomic_load(&c->op_id);
        call->event = -1;
        int s = gc->stream;
        if (s >= 0 && s < g->nstreams) {
            call->stream = g->streams[s].stream;
            if (g->streams[s].pair >= 0) {
                call->event = g->streams[s].pair;
                call->event_owner = (uint16_t)(call->record_id - g->streams[s].owner);
            }
        }
        rec_ring_publish(rec_recorder_ring(), &cw, 0);
        rec_group_add_member(g, call->record_id, s);
    }
}

static void arm_members(rec_group *g, int stream, uint64_t bits) {
    for (int i = 0; i < g->nmembers; i++)
        if (g->members[i].stream == stream)
            rec_ring_set_bits(rec_recorder_ring(), g->members[i].id, bits);
}

void rec_group_record_events(rec_group *g, int which) {
    uint64_t bit = which == 0 ? REC_S_START_ARMED : REC_S_END_ARMED;
    for (int s = 0; s < g->nstreams; s++)
        if (g->streams[s].pair >= 0 &&
            rec_cuda_record((uint32_t)g->streams[s].pair, which, g->streams[s].stream))
            arm_members(g, s, bit);
}

void rec_group_drop(rec_group *g) {
    for (int i = 0; i < g->nmembers; i++)
        rec_ring_advance(rec_recorder_ring(), g->members[i].id, REC_DROPPED, 0);
    for (int i = 0; i < g->ncomms; i++) {
        rec_comm *c = rec_comms_at(g->comms[i].comm);
        atomic_store(&c->coll_seq, g->comms[i].coll_before);
        atomic_store(&c->p2p_seq, g->comms[i].p2p_before);
        atomic_store(&c->op_id, g->comms[i].op_before);
        atomic_store(&c->launch_seq, g->comms[i].launch_before);
    }
    g->nmembers = g->ncomms = g->nstreams = 0;
}
