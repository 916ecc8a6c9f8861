/* group.h — the recorder's bookkeeping of one ncclGroupStart/End batch on a thread (group.c).
 *
 * Inside a group NCCL launches nothing until the outermost ncclGroupEnd, so the shim notes, per
 * batch: the communicators it touches (with their counters at the batch's first op, to share
 * one launch number and to restore them when ncclGroupSimulateEnd launches nothing), the
 * streams (one CUDA event pair per stream, owned by its first member) and the members (the
 * ring entries whose events the pair stands for). Bounded arrays: a batch past the bounds
 * records its extra members without events, never allocates. The stream lookup and the member
 * list are inline, as they were in the shim, since they run on every NCCL call inside a group
 * (the compiler kept the communicator lookup out of line there too); the rest is group.c's.
 */
#ifndef FRTRACE_REC_GROUP_H
#define FRTRACE_REC_GROUP_H

#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include "comms.h"
#include "cuda_driver.h"

#define GROUP_MAX_STREAMS 16
#define GROUP_MAX_COMMS   16
#define GROUP_MAX_MEMBERS 512

typedef struct group_stream {
    uintptr_t stream;
    int32_t pair;   /* -1: no events for this stream */
    uint64_t owner; /* record id that owns the pair */
} group_stream;

typedef struct group_comm {
    int comm;
    int64_t coll_before, p2p_before, op_before, launch_before; /* at the group's first op */
    int64_t launch; /* the group's launch number on this comm, 0 until its first op */
    int nops;
    int stream; /* index in streams of its first op */
} group_comm;

typedef struct grp_member {
    uint64_t id;
    int stream; /* index in streams, -1 untracked */
} grp_member;

typedef struct rec_group {
    int nstreams, ncomms, nmembers;
    group_stream streams[GROUP_MAX_STREAMS];
    group_comm comms[GROUP_MAX_COMMS];
    grp_member members[GROUP_MAX_MEMBERS];
} rec_group;

/* The batch's record of communicator `index` (c), made at its first op; NULL when the batch
 * touches too many communicators. */
group_comm *rec_group_comm_for(rec_group *g, int index, rec_comm *c);

/* The stream slot of the current group for `stream`; its pair is owned by record `id` when
 * this is the stream's first member. -1 when the group touches too many streams. */
static inline int rec_group_stream_for(rec_group *g, uintptr_t stream, uint64_t id, bool events) {
    for (int i = 0; i < g->nstreams; i++)
        if (g->streams[i].stream == stream) return i;
    if (g->nstreams == GROUP_MAX_STREAMS) return -1;
    group_stream *gs = &g->streams[g->nstreams];
    gs->stream = stream;
    gs->owner = id;
    gs->pair = -1;
    if (events && !rec_cuda_stream_capturing(stream)) {
        gs->pair = (int32_t)(id % rec_cuda_pairs());
        rec_cuda_set_owner((uint32_t)gs->pair, id);
    }
    return g->nstreams++;
}

static inline void rec_group_add_member(rec_group *g, uint64_t id, int stream) {
    if (g->nmembers < GROUP_MAX_MEMBERS)
        g->members[g->nmembers++] = (grp_member){ .id = id, .stream = stream };
}

/* One "nccl:coalesced" entry per communicator that issued two or more operations, written as
 * by the thread `tid` named `thread_name`. */
void rec_group_publish_end_markers(rec_group *g, uint32_t tid, const char *thread_name);

/* Records event `which` (0: start, 1: end) of every stream of the batch on its stream, and
 * marks its members armed. */
void rec_group_record_events(rec_group *g, int which);

/* A simulated batch (ncclGroupSimulateEnd): its entries dropped, its communicators' counters
 * restored, the batch emptied. */
void rec_group_drop(rec_group *g);

#endif
