/* dump_equal.h — whether two fr_dumps hold the same content (their interned pointers differ),
 * for the tests that decode one file two ways: a reused fr_decoder against a fresh one, the
 * direct pickle path against the generic one. Used by tests/unit and tests/fuzz; comm_eq also
 * by the tests that check the "frtrace" key's communicators against the ones they expect. */
#ifndef FRTRACE_TEST_DUMP_EQUAL_H
#define FRTRACE_TEST_DUMP_EQUAL_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "dump.h"

static inline bool str_eq(const char *a, const char *b) {
    return a == b || (a && b && strcmp(a, b) == 0);
}

static inline bool shapes_eq(const fr_shapes *a, const fr_shapes *b) {
    if (a->count != b->count) return false;
    for (uint32_t i = 0; i < a->count; i++) {
        if (a->shapes[i].ndim != b->shapes[i].ndim) return false;
        if (a->shapes[i].ndim &&
            memcmp(a->shapes[i].dims, b->shapes[i].dims, a->shapes[i].ndim * sizeof(int64_t)) != 0)
            return false;
    }
    return true;
}

static inline bool strings_eq(const fr_strings *a, const fr_strings *b) {
    if (a->count != b->count) return false;
    for (uint32_t i = 0; i < a->count; i++)
        if (!str_eq(a->items[i], b->items[i])) return false;
    return true;
}

static inline bool entry_eq(const fr_entry *a, const fr_entry *b) {
    if (a->record_id != b->record_id || a->pg_id != b->pg_id ||
        a->collective_seq_id != b->collective_seq_id || a->p2p_seq_id != b->p2p_seq_id ||
        a->op_id != b->op_id || a->time_created_ns != b->time_created_ns ||
        a->has_duration != b->has_duration ||
        memcmp(&a->duration_ms, &b->duration_ms, sizeof a->duration_ms) || a->state != b->state ||
        a->time_discovered_started_ns != b->time_discovered_started_ns ||
        a->time_discovered_completed_ns != b->time_discovered_completed_ns ||
        a->retired != b->retired || a->is_p2p != b->is_p2p || a->timeout_ms != b->timeout_ms ||
        a->nframes != b->nframes || (a->frames == NULL) != (b->frames == NULL))
        return false;
    if (!str_eq(a->pg_name, b->pg_name) || !str_eq(a->pg_desc, b->pg_desc) ||
        !str_eq(a->thread_name, b->thread_name) || !str_eq(a->thread_id, b->thread_id) ||
        !str_eq(a->profiling_name, b->profiling_name))
        return false;
    if (!shapes_eq(&a->input_sizes, &b->input_sizes) ||
        !shapes_eq(&a->output_sizes, &b->output_sizes) ||
        !strings_eq(&a->input_dtypes, &b->input_dtypes) ||
        !strings_eq(&a->output_dtypes, &b->output_dtypes))
        return false;
    for (uint32_t k = 0; k < a->nframes; k++)
        if (!str_eq(a->frames[k].name, b->frames[k].name) ||
            !str_eq(a->frames[k].filename, b->frames[k].filename) ||
            a->frames[k].line != b->frames[k].line)
            return false;
    return true;
}

static inline bool comm_eq(const fr_comm_info *x, const fr_comm_info *y) {
    return str_eq(x->pg_name, y->pg_name) && x->comm_rank == y->comm_rank &&
           x->comm_size == y->comm_size && str_eq(x->parent, y->parent) && x->color == y->color &&
           str_eq(x->nccl_hash, y->nccl_hash) && str_eq(x->state, y->state);
}

static inline bool dump_eq(const fr_dump *a, const fr_dump *b) {
    if (a->encoding != b->encoding || !str_eq(a->version, b->version) ||
        a->version_major != b->version_major || a->version_minor != b->version_minor ||
        !str_eq(a->comm_lib_version, b->comm_lib_version) || a->ngroups != b->ngroups ||
        a->nstatus != b->nstatus || a->has_entries != b->has_entries ||
        a->nentries != b->nentries || a->global_rank != b->global_rank ||
        !str_eq(a->trigger, b->trigger) || a->ncomms != b->ncomms || a->truncated != b->truncated ||
        !str_eq(a->warning, b->warning))
        return false;
    for (uint32_t i = 0; i < a->ngroups; i++) {
        const fr_group_config *x = &a->groups[i], *y = &b->groups[i];
        if (!str_eq(x->name, y->name) || !str_eq(x->desc, y->desc) || x->nranks != y->nranks ||
            (x->nranks && memcmp(x->ranks, y->ranks, x->nranks * sizeof(int64_t))))
            return false;
    }
    if (a->nstatus && memcmp(a->status, b->status, a->nstatus * sizeof *a->status)) return false;
    for (uint32_t i = 0; i < a->ncomms; i++)
        if (!comm_eq(&a->comms[i], &b->comms[i])) return false;
    for (uint32_t i = 0; i < a->nentries; i++)
        if (!entry_eq(&a->entries[i], &b->entries[i])) return false;
    return true;
}

#endif
