/* op_index.c — per-group seq arrays with a hash table behind them (see op_index.h).
 *
 * A group's array grows to cover each new seq, doubling in the direction it grows, as long as it
 * stays within 16 slots per op it holds (plus 4096): dense counters use it well, and a group
 * whose seqs jump about (a hostile or broken dump) moves to the table instead of eating memory.
 * Seqs beyond +-2^62 also send their group to the table, which keeps the arithmetic in range.
 *
 * New arrays and tables are filled with 0xff bytes (UINT32_MAX = no op) rather than calloc'd:
 * a lookup in calloc'd memory maps the shared zero page first, and the first store into that page
 * then costs a copy-on-write fault whose TLB flush interrupts every other thread of the process.
 */
#include "match/op_index.h"

#include <stdlib.h>
#include <string.h>

#include "util/index.h"

#define NO_OP     UINT32_MAX
#define SEQ_LIMIT ((int64_t)1 << 62)

enum { FIRST_WINDOW = 256, SLACK_SLOTS = 4096, SLOTS_PER_OP = 16 };

static uint64_t op_key(uint32_t group, int64_t seq, uint32_t occurrence) {
    return fa_key2(fa_key2(group, (uint64_t)seq), occurrence);
}

/* ---------------------------------------------------------------- hash table ------- */

static long table_find(const fa_op_index *ix, uint64_t key) {
    if (!ix->cap) return -1;
    for (size_t i = fr_mix64(key) & (ix->cap - 1);; i = (i + 1) & (ix->cap - 1)) {
        if (ix->slots[i].op == NO_OP) return -1;
        if (ix->slots[i].key == key) return (long)ix->slots[i].op;
    }
}

static void table_insert(fa_op_slot *slots, size_t cap, uint64_t key, uint32_t op) {
    size_t i = fr_mix64(key) & (cap - 1);
    while (slots[i].op != NO_OP) i = (i + 1) & (cap - 1);
    slots[i] = (fa_op_slot){ key, op };
}

/* Adds a key known to be absent; the table stays at most half full. */
static int table_put(fa_op_index *ix, uint64_t key, uint32_t op) {
    if ((ix->count + 1) * 2 > ix->cap) {
        size_t cap = ix->cap ? ix->cap * 2 : 1024;
        fa_op_slot *slots = malloc(cap * sizeof *slots);
        if (!slots) return -1;
        memset(slots, 0xff, cap * sizeof *slots);
        for (size_t i = 0; i < ix->cap; i++)
            if (ix->slots[i].op != NO_OP)
                table_insert(slots, cap, ix->slots[i].key, ix->slots[i].op);
        free(ix->slots);
        ix->slots = slots;
        ix->cap = cap;
    }
    table_insert(ix->slots, ix->cap, key, op);
    ix->count++;
    return 0;
}

/* ---------------------------------------------------------------- seq windows ------ */

static bool covers(const fa_seq_window *w, int64_t seq) {
    return w->n && seq >= w->base && seq - w->base < (int64_t)w->n;
}

/* Moves the group's array into the table, for good. */
static int to_table(fa_op_index *ix, uint32_t group) {
    fa_seq_window *w = &ix->windows[group];
    for (uint32_t i = 0; i < w->n; i++)
        if (w->slot[i] != NO_OP && table_put(ix, op_key(group, w->base + i, 0), w->slot[i]))
            return -1;
    free(w->slot);
    *w = (fa_seq_window){ .hashed = true };
    return 0;
}

/* Makes the group's array cover seq, or moves the group to the table. */
static int widen(fa_op_index *ix, uint32_t group, int64_t seq) {
    fa_seq_window *w = &ix->windows[group];
    if (seq <= -SEQ_LIMIT || seq >= SEQ_LIMIT) return to_table(ix, group);
    int64_t lo = w->n ? (seq < w->base ? seq : w->base) : seq - FIRST_WINDOW / 2;
    int64_t hi = w->n ? (seq >= w->base + (int64_t)w->n ? seq + 1 : w->base + (int64_t)w->n)
                      : seq + FIRST_WINDOW / 2;
    int64_t limit = (int64_t)w->count * SLOTS_PER_OP + SLACK_SLOTS;
    if (hi - lo > limit || hi - lo > (int64_t)(UINT32_MAX / 8)) return to_table(ix, group);
    int64_t n = hi - lo < 2 * (int64_t)w->n ? 2 * (int64_t)w->n : hi - lo;
    if (n > limit) n = hi - lo;
    int64_t base = w->n && seq < w->base ? hi - n : lo; /* the slack goes where it grows */
    uint32_t *slot = malloc((size_t)n * sizeof *slot);
    if (!slot) return -1;
    memset(slot, 0xff, (size_t)n * sizeof *slot);
    if (w->n) memcpy(slot + (w->base - base), w->slot, w->n * sizeof *slot);
    free(w->slot);
    w->slot = slot;
    w->base = base;
    w->n = (uint32_t)n;
    return 0;
}

/* ---------------------------------------------------------------- public ----------- */

int fa_op_index_init(fa_op_index *ix, size_t ngroups) {
    memset(ix, 0, sizeof *ix);
    ix->windows = calloc(ngroups + 1, sizeof *ix->windows);
    ix->ngroups = ngroups;
    return ix->windows ? 0 : -1;
}

long fa_op_index_find(const fa_op_index *ix, uint32_t group, int64_t seq, uint32_t occurrence) {
    if (occurrence == 0 && group < ix->ngroups && !ix->windows[group].hashed) {
        const fa_seq_window *w = &ix->windows[group];
        return covers(w, seq) && w->slot[seq - w->base] != NO_OP ? (long)w->slot[seq - w->base]
                                                                 : -1;
    }
    return table_find(ix, op_key(group, seq, occurrence));
}

int fa_op_index_add(fa_op_index *ix, uint32_t group, int64_t seq, uint32_t occurrence,
                    uint32_t op) {
    if (occurrence == 0 && group < ix->ngroups && !ix->windows[group].hashed) {
        fa_seq_window *w = &ix->windows[group];
        if (!covers(w, seq) && widen(ix, group, seq)) return -1;
        if (!w->hashed) {
            w->slot[seq - w->base] = op;
            w->count++;
            return 0;
        }
    }
    return table_put(ix, op_key(group, seq, occurrence), op);
}

void fa_op_index_free(fa_op_index *ix) {
    for (size_t g = 0; ix->windows && g < ix->ngroups; g++) free(ix->windows[g].slot);
    free(ix->windows);
    free(ix->slots);
    memset(ix, 0, sizeof *ix);
}
