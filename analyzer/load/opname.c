/* opname.c — profiling names taken apart, and which op types form which family (opname.h). */
#include "load/opname.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const all_to_all_types[] = {
    "all_to_all", "all_to_all_single", "all_to_all_v_single", "alltoall_base", "alltoall", NULL
};
static const char *const all_gather_types[] = { "all_gather", "_all_gather_base",
                                                "all_gather_into_tensor_coalesced",
                                                "all_gather_into_tensor", NULL };
static const char *const reduce_scatter_types[] = { "reduce_scatter", "_reduce_scatter_base",
                                                    "reduce_scatter_tensor_coalesced",
                                                    "reduce_scatter_tensor", NULL };
static const char *const all_reduce_types[] = { "all_reduce", "allreduce_coalesced", NULL };
static const char *const end_marker_types[] = { "coalesced", "ALLGATHER_coalesced",
                                                "REDUCE_SCATTER_coalesced", NULL };

static bool type_in(const char *type, const char *const *list) {
    for (; *list; list++)
        if (strcmp(type, *list) == 0) return true;
    return false;
}

uint32_t fa_op_flags(const char *type) {
    uint32_t f = 0;
    if (type_in(type, end_marker_types)) f |= FA_OP_END_MARKER;
    if (strcmp(type, "coalesced") == 0) f |= FA_OP_COALESCED;
    if (type_in(type, all_to_all_types)) f |= FA_OP_ALL_TO_ALL;
    if (type_in(type, all_gather_types)) f |= FA_OP_ALL_GATHER;
    if (type_in(type, reduce_scatter_types)) f |= FA_OP_REDUCE_SCATTER;
    if (type_in(type, all_reduce_types)) f |= FA_OP_ALL_REDUCE;
    if (strcmp(type, "scatter") == 0) f |= FA_OP_SCATTER;
    if (strcmp(type, "gather") == 0) f |= FA_OP_GATHER;
    if (strcmp(type, "broadcast") == 0) f |= FA_OP_BROADCAST;
    if (strcmp(type, "reduce") == 0) f |= FA_OP_REDUCE;
    return f;
}

int fa_parse_profiling_name(const char *name, fa_opname *out) {
    memset(out, 0, sizeof *out);
    out->src = out->dst = -1;
    const char *colon = name ? strrchr(name, ':') : NULL;
    /* split on the last colon ("weird:backend:all_reduce" is an all_reduce), but a colon
     * inside the meta part (after the first space) does not count */
    const char *space = name ? strchr(name, ' ') : NULL;
    if (colon && space && colon > space) {
        colon = NULL;
        for (const char *p = name; p < space; p++)
            if (*p == ':') colon = p;
    }
    if (!colon) return -1;
    snprintf(out->backend, sizeof out->backend, "%.*s", (int)(colon - name), name);
    const char *op = colon + 1;
    size_t tl = strcspn(op, " ");
    snprintf(out->type, sizeof out->type, "%.*s", (int)tl, op);
    out->is_send = strcmp(out->type, "send") == 0;
    out->is_recv = strcmp(out->type, "recv") == 0;
    if ((out->is_send || out->is_recv) && op[tl] == ' ') {
        const char *meta = op + tl + 1;
        const char *arrow = strstr(meta, out->is_send ? "->" : "<-");
        if (arrow) {
            char *end;
            long long first = strtoll(meta, &end, 10);
            int first_ok = end != meta;
            long long second = strtoll(arrow + 2, &end, 10);
            int second_ok = end != arrow + 2;
            if (out->is_send) {
                out->src = first_ok ? first : -1;
                out->dst = second_ok ? second : -1;
            } else {
                out->dst = first_ok ? first : -1;
                out->src = second_ok ? second : -1;
            }
        }
    }
    return 0;
}

bool fa_is_end_marker(const char *type) { return (fa_op_flags(type) & FA_OP_END_MARKER) != 0; }
