/* dump_json_fast.h — inside formats/: the direct path from a JSON dump to fr_entry structs.
 *
 * See dump_json_fast.c. dump.c tries this path first for every JSON dump and falls back to the
 * generic one (json_read's value tree through cJSON, then the value-tree mapping) whenever it
 * declines.
 */
#ifndef FRTRACE_DUMP_JSON_FAST_H
#define FRTRACE_DUMP_JSON_FAST_H

#include <stddef.h>
#include <stdint.h>

#include "dump_builder.h"
#include "value.h"

/* Working memory kept from file to file (entry layout, value cache, scratch lists). */
typedef struct dump_json_fast dump_json_fast;

dump_json_fast *dump_json_fast_new(void); /* NULL when out of memory */
void dump_json_fast_free(dump_json_fast *f);

/* Reads a whole JSON dump. 0: *root is the dump's top-level dict (in `values`) without its
 * entries ("entries" maps to an empty list when the dump has the key), and entries[0..*n) are
 * its entries, built through `b` in the dump's arena. -1: declined; the caller decodes the file
 * the generic way. */
int dump_json_fast_read(dump_json_fast *f, dump_builder *b, const uint8_t *bytes, size_t len,
                        fv_arena *values, fv **root, fr_entry **entries, uint32_t *n);

#endif
