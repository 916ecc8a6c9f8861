/* dump_fast.h — inside formats/: the direct path from a PyTorch pickle to fr_entry structs.
 *
 * See dump_fast.c. dump.c tries this path first for every pickle and falls back to the
 * generic one (pickle_read, then the value-tree mapping) whenever it declines.
 */
#ifndef FRTRACE_DUMP_FAST_H
#define FRTRACE_DUMP_FAST_H

#include <stddef.h>
#include <stdint.h>

#include "dump_builder.h"
#include "value.h"

/* Working memory kept from file to file (memo, entry buffer, scratch lists). */
typedef struct dump_fast dump_fast;

dump_fast *dump_fast_new(void); /* NULL when out of memory */
void dump_fast_free(dump_fast *f);

/* Reads a whole pickle in PyTorch's regular shape. 0: *root is the dump's top-level dict (in
 * `values`) without its entries ("entries" maps to an empty list when the dump has the key),
 * and entries[0..*n) are its entries, built through `b` in the dump's arena.
 * -1: declined; the caller decodes the file the generic way. */
int dump_fast_read(dump_fast *f, dump_builder *b, const uint8_t *bytes, size_t len,
                   fv_arena *values, fv **root, fr_entry **entries, uint32_t *n);

#endif
