/* pickle_read.h — a pickle machine for hostile input: bytes → a value tree (value.h).
 *
 * Decodes the data opcodes of pickle protocols 0 to 5 (what Python's pickle.load would build
 * from dicts, lists, tuples, str, int, float, bool and None) and refuses every opcode that names
 * code (GLOBAL, REDUCE, BUILD, ...) or builds objects a JSON document cannot hold (bytes, sets,
 * out-of-band buffers). It never recurses, never reads past the buffer, keeps memory under a
 * limit and MARK nesting under a depth, and says what went wrong and at which byte.
 *
 * Memo entries alias: GET returns the very node PUT stored, so a value may appear under several
 * parents or even under itself; see fv_tree_weight() before printing.
 *
 * With `salvage`, running out of bytes is not the end: every open MARK is closed from the top
 * down, its items go into the container below it, and that container is flagged
 * FV_FLAG_TRUNCATED. Containers without the flag are whole (their closing opcode ran).
 */
#ifndef FRTRACE_PICKLE_READ_H
#define FRTRACE_PICKLE_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "value.h"

typedef struct pr_options {
    size_t max_memory;       /* bytes of arena and VM stacks; 0 = 64 MiB + 32 x input */
    uint32_t max_mark_depth; /* open MARKs at once; 0 = 10000 */
    bool salvage;            /* keep what a truncated pickle holds (see above) */
} pr_options;

/* 0: ok, *out = root. 1: input truncated but salvaged (only if opts->salvage): *out = root with
 * FV_FLAG_TRUNCATED on every container that was still open, err says "truncated pickle at byte N".
 * -1: error, err->msg names the problem and the byte offset. `opts` may be NULL (defaults). */
int pickle_read(const uint8_t *buf, size_t len, fv_arena *arena, const pr_options *opts, fv **out,
                fr_error *err);

/* The opcode's name ("BINUNICODE"), or NULL for a byte that is no pickle opcode. */
const char *pickle_opcode_name(uint8_t op);

#endif
