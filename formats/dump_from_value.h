/* dump_from_value.h — inside formats/: the mapping from a value tree to an fr_dump
 * (dump_from_value.c), as the decoder entry (dump.c) drives it: a decoder keeps its caches and
 * scratch from file to file, builds each dump through its builder (dump_builder.h), and is
 * cleared after each.
 */
#ifndef FRTRACE_DUMP_FROM_VALUE_H
#define FRTRACE_DUMP_FROM_VALUE_H

#include <stdint.h>

#include "dump.h"
#include "dump_builder.h"

typedef struct decoder decoder;

decoder *dump_value_decoder_new(void); /* NULL when out of memory */
void dump_value_decoder_free(decoder *dec);

/* The builder of the dump being built (a direct path fills its entries). */
dump_builder *dump_value_builder(decoder *dec);

/* Sets `dec` up to build a dump in `arena` (fresh or cleared decoder); *d is the empty dump. */
int dump_value_begin(decoder *dec, fv_arena *arena, fr_encoding encoding, fr_error *err,
                     fr_dump **d);
/* Leaves `dec` cleared for the next dump. */
void dump_value_end(decoder *dec);

/* Maps the root dict (version, pg_config, pg_status, entries...) into d; truncated_at >= 0
 * says where a salvaged input was cut (then only whole parts are kept). 0, or -1 with the
 * builder's error set. */
int dump_value_decode_root(decoder *dec, const fv *root, fr_dump *d, int64_t truncated_at);

/* begin, decode_root and end in one: `dec` is fresh or cleared, and cleared again after. */
int dump_value_decode(decoder *dec, fv *root, fv_arena *arena, fr_encoding encoding,
                      int64_t truncated_at, fr_dump **out, fr_error *err);

#endif
