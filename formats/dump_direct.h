/* dump_direct.h — inside formats/: the two direct paths from a dump's bytes to fr_entry structs,
 * and what they share.
 *
 * dump_pickle_fast.c reads a pickle in PyTorch's regular shape, dump_json_fast.c a JSON dump, each
 * by recursive descent, without a value tree; dump.c tries the one for the file's encoding first
 * and falls back to the generic path (pickle_read's or json_read's value tree, then the
 * value-tree mapping) whenever it declines. Both build through the builder (dump_builder.h)
 * and keep working memory from file to file in their state, two parts of which are the same
 * and kept here (inline: they are used for every value and every entry):
 *   - direct_lists: the scratch lists one value is read into before the builder stores it
 *     once per dump (a shape list flattened, a dtype list, a stack of frames);
 *   - direct_entries: the dump's entries, built in place in an array in the dump's arena,
 *     sized for as many entries as the previous file had (a job's ranks keep rings of one
 *     size), doubled when that is too few, and never longer than the caller allows (what its
 *     memory budget or its input can hold).
 */
#ifndef FRTRACE_DUMP_DIRECT_H
#define FRTRACE_DUMP_DIRECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dump_builder.h"
#include "value.h"

/* Working memory kept from file to file: memo, layout, caches, entry array, scratch lists. */
typedef struct dump_pickle_fast dump_pickle_fast; /* pickles */
typedef struct dump_json_fast dump_json_fast;     /* JSON */

dump_pickle_fast *dump_pickle_fast_new(void); /* NULL when out of memory */
void dump_pickle_fast_free(dump_pickle_fast *f);
dump_json_fast *dump_json_fast_new(void); /* NULL when out of memory */
void dump_json_fast_free(dump_json_fast *f);

/* Each reads a whole dump. 0: *root is the dump's top-level dict (in `values`) without its
 * entries ("entries" maps to an empty list when the dump has the key), and entries[0..*n) are
 * its entries, built through `b` in the dump's arena. -1: declined; the caller decodes the file
 * the generic way. */
int dump_pickle_fast_read(dump_pickle_fast *f, dump_builder *b, const uint8_t *bytes, size_t len,
                          fv_arena *values, fv **root, fr_entry **entries, uint32_t *n);
int dump_json_fast_read(dump_json_fast *f, dump_builder *b, const uint8_t *bytes, size_t len,
                        fv_arena *values, fv **root, fr_entry **entries, uint32_t *n);

/* --- shared by the two paths ---------------------------------------------------------------- */

/* Scratch lists for one value, grown by the path's own rule and kept. */
typedef struct direct_lists {
    uint32_t *ndims; /* one shape list, flattened: each shape's number of dims */
    size_t ndims_cap;
    int64_t *dims; /* and the dims, one shape after the other */
    size_t dims_cap;
    const char **strs; /* one dtype list */
    size_t strs_cap;
    fr_frame *frames; /* one stack */
    size_t frames_cap;
} direct_lists;

/* Frees a path's state `state`, which holds the lists `l` and a buffer of its own (the pickle
 * path's memo, the JSON path's decoded string). */
static inline void direct_free(void *state, direct_lists *l, void *own) {
    free(l->ndims);
    free(l->dims);
    free(l->strs);
    free(l->frames);
    free(own);
    free(state);
}

/* The entries of the file being read. */
typedef struct direct_entries {
    fr_entry *items; /* in the dump's arena */
    uint32_t n, cap;
    uint32_t last_count; /* entries of the previous file */
} direct_entries;

/* Before a file: no entries yet. */
static inline void direct_entries_begin(direct_entries *es) {
    es->items = NULL;
    es->n = es->cap = 0;
}

/* The next entry when the array has room for it (not initialized), else NULL: grow it first. */
static inline fr_entry *direct_entry_next(direct_entries *es) {
    return es->n < es->cap ? &es->items[es->n++] : NULL;
}

/* A longer array, of at most `most` entries, the entries so far copied into it; false when it
 * can be no longer (then the path declines). */
static inline bool direct_entries_grow(direct_entries *es, fv_arena *arena, size_t most) {
    size_t cap = es->cap ? (size_t)es->cap * 2 : es->last_count > 64 ? es->last_count : 64;
    if (cap > most) cap = most;
    if (cap <= es->n || cap > UINT32_MAX / 2) return false;
    fr_entry *v = fv_arena_alloc(arena, cap * sizeof *v);
    if (!v) return false;
    if (es->n) memcpy(v, es->items, (size_t)es->n * sizeof *v);
    es->items = v;
    es->cap = (uint32_t)cap;
    return true;
}

/* After a file read to its end: its entries, and their number kept for the next file. */
static inline void direct_entries_end(direct_entries *es, fr_entry **entries, uint32_t *n) {
    *entries = es->items;
    *n = es->n;
    es->last_count = es->n;
}

#endif
