/* dump_write_whereabouts.h — the recorder's "frtrace_identity" and "frtrace_stacks" keys, written.
 *
 * dump_write.c calls these after the standard keys and the "frtrace" key, when the dump has
 * them (fr_dump.has_identity, has_stacks); the layout of both keys is documented in dump.h.
 * The pickle writer only emits through the pw_writer (no allocation), like the rest of the
 * pickle path; the JSON writer sends text to a callback, keys sorted as nlohmann::json sorts
 * them.
 */
#ifndef FRTRACE_DUMP_WRITE_WHEREABOUTS_H
#define FRTRACE_DUMP_WRITE_WHEREABOUTS_H

#include <stdbool.h>

#include "dump.h"
#include "json_text.h"
#include "pickle_write.h"

/* Key-value pairs of the open top-level dict, for the keys the dump has. */
void fr_write_whereabouts_pickle(pw_writer *w, const fr_dump *d);

/* The same as members of the open top-level JSON object ("frtrace_identity":{...},
 * "frtrace_stacks":[...]); *first says whether no member was written before (then no comma),
 * and is cleared when one is written. */
void fr_write_whereabouts_json(const fr_dump *d, bool *first, fr_json_put put, void *ctx);

#endif
