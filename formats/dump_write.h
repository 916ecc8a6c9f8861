/* dump_write.h — writes an fr_dump as a PyTorch Flight Recorder pickle or JSON document.
 *
 * The pickle is byte for byte what torch's C++ writer of the chosen format version emits for the
 * same content (docs/dump-formats.md §2-§3): the version's key insertion
 * orders (2.0: entries first and frames last in each entry; 2.2+: frames first; thread fields
 * from 2.8; nccl_version 2.6–2.9, comm_lib_version from 2.10; pg_status from 2.3; timeout_ms
 * from 2.2), its container memoization (2.0: the entries list, pg_config and every frame dict;
 * 2.2+: frame dicts referenced at least twice), the 2.0 dtype spellings ("float", "c10::BFloat16"),
 * and the trailing top-level BINPUT (2.0–2.9 yes, 2.10 and later no, unless overridden).
 * Recorder extras (global_rank >= 0 or ncomms > 0) go under the extra key "frtrace" after the
 * standard keys, then "frtrace_identity" and "frtrace_stacks" when the dump has them
 * (dump_write_whereabouts.h), in the layouts documented in dump.h.
 *
 * The JSON form is PyTorch's `_dump_nccl_trace_json` layout (ibid.): keys sorted, compact, no
 * frames, time_discovered_* 0 for None, pg_status values as strings, "entries" omitted when
 * empty, "nccl_comm_state": {}.
 *
 * What the dump does not keep is not written: nccl_comm_state contents (pickle: omitted).
 * Entries are written in the dump's order; pg_config and pg_status in torch's std::map orders
 * (pickle: by (name, desc) and by numeric pg_id; JSON: by key string), whatever the dump's order,
 * so that a dump that went through JSON comes back as the same pickle bytes.
 *
 * Memory: with a fixed-memory pw_writer (pw_init) fr_dump_write_pickle never allocates, so the
 * recorder may call it from a fatal-signal handler. It then needs scratch memory for the frame
 * memo and for the formatted strings it must keep stable while writing (ranks strings, pg_status
 * keys, the version): fr_dump_write_scratch_size() bytes in options.scratch. With less, it still
 * writes a valid pickle, only without frame-dict memoization and with repeated formatted strings
 * written in full. A heap writer (pw_init_alloc) allocates its scratch itself.
 */
#ifndef FRTRACE_DUMP_WRITE_H
#define FRTRACE_DUMP_WRITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "dump.h"
#include "pickle_write.h"

/* The trailing BINPUT of the top-level dict (pickle only). Zero means "as the version does". */
typedef enum fr_root_memo {
    FR_ROOT_MEMO_AS_VERSION = 0, /* 2.0–2.9: yes; 2.10+: no (PyTorch main) */
    FR_ROOT_MEMO_NO = 1,
    FR_ROOT_MEMO_YES = 2, /* torchcomms' 2.10 */
} fr_root_memo;

typedef struct fr_write_options {
    int version_major, version_minor; /* 0, 0: the dump's own version (2.10 when it has none) */
    fr_root_memo root_memo;
    void *scratch; /* for fixed-memory writers, see above; may be NULL */
    size_t scratch_size;
} fr_write_options;

/* Writes the whole pickle (PROTO ... STOP) into `w`; the caller then calls pw_finish().
 * `options` may be NULL (the dump's own version). Returns 0, or -1 with `err` filled (a version
 * this writer does not know, or the writer failed). */
int fr_dump_write_pickle(const fr_dump *d, const fr_write_options *options, pw_writer *w,
                         fr_error *err);

/* Scratch bytes fr_dump_write_pickle wants for `d` with a fixed-memory writer. */
size_t fr_dump_write_scratch_size(const fr_dump *d);

/* Writes the JSON document through `sink` (pw_sink_fn: 0 ok, -1 error), without a trailing
 * newline. Allocates a little heap memory (key sorting): not for signal handlers. */
int fr_dump_write_json(const fr_dump *d, const fr_write_options *options, pw_sink_fn sink,
                       void *sink_ctx, fr_error *err);
/* The same into a stdio stream. */
int fr_dump_write_json_file(const fr_dump *d, const fr_write_options *options, FILE *out,
                            fr_error *err);

/* The spelling of a c10 dtype name ("Float") in 2.0 dumps ("float"); unknown names unchanged. */
const char *fr_dtype_legacy_name(const char *c10_name);

#endif
