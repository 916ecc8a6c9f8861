/* dump_whereabouts.h — reading the recorder's "frtrace_identity" and "frtrace_stacks" keys.
 *
 * Internal to formats/: dump.c calls it on the top-level dict of every dump (both decoding
 * paths keep the top level's other keys as a value tree, so this is the one reader). The keys'
 * layout is in dump.h. These keys only describe the process; its entries do not depend on them.
 * So a value of the wrong shape is not an error: the key is dropped and the dump's warning says
 * so (unless it already has one), and the rest of the dump is used as usual.
 */
#ifndef FRTRACE_DUMP_WHEREABOUTS_H
#define FRTRACE_DUMP_WHEREABOUTS_H

#include "dump_builder.h"
#include "value.h"

/* Fills d->identity/has_identity and d->threads/nthreads/has_stacks from `root` (a dict).
 * 0, or -1 with the builder's error filled (out of memory). */
int dump_decode_whereabouts(dump_builder *b, const fv *root, fr_dump *d);

#endif
