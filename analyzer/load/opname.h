/* opname.h — profiling names ("nccl:send 0->1") taken apart, and the op families of a type.
 *
 * The lowest file of the analyzer's op vocabulary: the store parses each distinct name once
 * with it, and match tests families with it; it needs nothing but the C library.
 */
#ifndef FRTRACE_OPNAME_H
#define FRTRACE_OPNAME_H

#include <stdbool.h>
#include <stdint.h>

/* Op families a profiling name's type falls into (see match.c for what each implies). */
enum {
    FA_OP_END_MARKER = 1 << 0, /* coalesced, ALLGATHER_coalesced, REDUCE_SCATTER_coalesced */
    FA_OP_COALESCED = 1 << 1,  /* exactly "coalesced" (closes a batch_isend_irecv) */
    FA_OP_ALL_TO_ALL = 1 << 2,
    FA_OP_ALL_GATHER = 1 << 3,
    FA_OP_REDUCE_SCATTER = 1 << 4,
    FA_OP_ALL_REDUCE = 1 << 5,
    FA_OP_SCATTER = 1 << 6,
    FA_OP_GATHER = 1 << 7,
    FA_OP_BROADCAST = 1 << 8,
    FA_OP_REDUCE = 1 << 9, /* exactly "reduce" (to one root) */
    /* Rooted collectives: data flows to or from one root; where a backend runs them one-to-all
     * (gloo), a member completes its part while another member never joined (a broadcast's
     * receiver once its data came): their completion does not prove that every member issued
     * them (match.c). */
    FA_OP_ROOTED = FA_OP_SCATTER | FA_OP_GATHER | FA_OP_BROADCAST | FA_OP_REDUCE,
};

/* FA_OP_* of an op type; the one place that says which types form which family. */
uint32_t fa_op_flags(const char *type);

/* A profiling name taken apart: "nccl:send 0->1" -> backend nccl, type send, src 0, dst 1. */
typedef struct fa_opname {
    char backend[32];
    char type[64];
    bool is_send, is_recv;
    int64_t src, dst; /* group ranks for send/recv; -1 when unknown ("recv 1<-?") */
} fa_opname;

/* 0 on success; -1 when the name has no "backend:" part. */
int fa_parse_profiling_name(const char *name, fa_opname *out);
bool fa_is_end_marker(
    const char *type); /* coalesced, ALLGATHER_coalesced, REDUCE_SCATTER_coalesced */

#endif
