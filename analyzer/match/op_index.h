/* op_index.h — the matcher's collective ops by (group, collective_seq_id, occurrence).
 *
 * Every collective entry of every rank looks its op up here, so the lookup is the walk's inner
 * loop. A group's sequence ids are dense (each member counts its collectives 1, 2, 3, ...), so
 * the ops of occurrence 0 (nearly all) sit in a per-group array indexed by seq - base, a few bytes
 * per op that stay in cache while a group's members are walked one after another. Everything
 * else (a second op with the same seq, a group whose seqs are spread too thin for an array) goes
 * to a hash table on the key fa_key2(fa_key2(group, seq), occurrence). Which of the two holds a
 * key depends only on the group and the occurrence, never on the order keys arrive in: a group
 * that outgrows its array moves it into the table for good.
 */
#ifndef FRTRACE_OP_INDEX_H
#define FRTRACE_OP_INDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct fa_seq_window {
    int64_t base;   /* seq of slot[0] */
    uint32_t *slot; /* op per seq - base; UINT32_MAX none */
    uint32_t n;     /* slots */
    uint32_t count; /* ops in the window */
    bool hashed;    /* the group's seqs went to the table */
} fa_seq_window;

typedef struct fa_op_slot {
    uint64_t key;
    uint32_t op; /* UINT32_MAX: empty */
} fa_op_slot;

typedef struct fa_op_index {
    fa_seq_window *windows; /* per group */
    size_t ngroups;
    fa_op_slot *slots;
    size_t cap, count;
} fa_op_index;

/* 0, or -1 when out of memory. */
int fa_op_index_init(fa_op_index *ix, size_t ngroups);
/* The op of the key, or -1. */
long fa_op_index_find(const fa_op_index *ix, uint32_t group, int64_t seq, uint32_t occurrence);
/* Adds a key that is not there yet; 0, or -1 when out of memory. */
int fa_op_index_add(fa_op_index *ix, uint32_t group, int64_t seq, uint32_t occurrence, uint32_t op);
void fa_op_index_free(fa_op_index *ix);

#endif
