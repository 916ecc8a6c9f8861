/* dump.h — one rank's Flight Recorder dump as typed C structs, for every format version.
 *
 * fr_dump_decode() turns the bytes of a dump file (a PyTorch FR pickle of versions 2.0–2.10 and
 * later minor versions, its JSON form, or the recorder's own dump) into an fr_dump. It detects
 * the encoding by content, reads through pickle_read or json_read into values, then maps the
 * values to structs version by version: keys are looked up by name, unknown keys ignored, keys a
 * version lacks never required; `process_group` may be a tuple or a list, `time_discovered_*`
 * None or 0, dtypes in either spelling ("Float" or "float"), `pg_status` values ints or strings.
 * A problem gives one clear message in `fr_error` (the caller adds the path).
 *
 * Everything an fr_dump points to lives in its arena and is released by fr_dump_free(). Strings
 * that repeat (group names, descs, profiling names, dtypes, frame names) are interned per dump,
 * so equal strings of one dump share one pointer.
 *
 * A truncated pickle is salvaged when the reader can tell exactly which entries are whole: the
 * dump then has `truncated` set, `entries` holds the whole ones, and `warning` says what was
 * dropped. When even that is impossible (no version, no pg_config) decoding fails.
 *
 * The recorder's dumps carry an extra top-level key "frtrace" (see FR_EXTRA_KEY below) with the
 * facts one process knows about its communicators; PyTorch's tools ignore it. Its layout (written
 * by dump_write after the standard keys, read here; missing fields take the defaults in
 * fr_comm_info):
 *   "frtrace": {"version": "1",            layout version of this key
 *               "global_rank": int,        this process's global rank
 *               "trigger": str,            why it dumped (only when known)
 *               "comms": {pg_name: {"comm_rank": int, "comm_size": int,
 *                                   "parent": str or None, "color": int,
 *                                   "nccl_hash": str or None, "state": str or None}}}
 * In JSON the same object appears with its keys sorted.
 *
 * Two more extra keys say where the process was and what its threads did when it dumped
 * (decoded by dump_whereabouts.c, written by dump_write_whereabouts.c):
 *   "frtrace_identity": {"hostname": str, "pid": int, "local_rank": int or None,
 *                        "cuda_device": {"index": int, "pci_bus_id": str or None,
 *                                        "uuid": str or None} or None,
 *                        "nccl_version": str or None}
 *   "frtrace_stacks": [{"thread_id": int, "thread_name": str,
 *                       "python": [{"name": str, "filename": str, "line": int}, ...],
 *                       "native": [{"name": str or None, "object": str, "offset": int}, ...],
 *                       ["note": str]}, ...]          frames innermost first
 * A malformed value of either key is dropped with a warning (the entries stay usable).
 *
 * Decoding defaults for keys a version lacks: thread_name/thread_id NULL (before 2.8),
 * timeout_ms -1 (2.0), has_duration false (no "duration_ms"), time_discovered_* 0 (None),
 * frames NULL (no "frames" key; an empty but present list gives non-NULL with nframes 0),
 * nstatus 0 (before 2.3), comm_lib_version NULL (before 2.6). Extra keys are ignored.
 */
#ifndef FRTRACE_DUMP_H
#define FRTRACE_DUMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "value.h"

typedef enum fr_state {
    FR_STATE_SCHEDULED = 0,
    FR_STATE_STARTED = 1,
    FR_STATE_COMPLETED = 2,
} fr_state;

typedef enum fr_encoding {
    FR_ENCODING_PICKLE = 0,
    FR_ENCODING_JSON = 1,
} fr_encoding;

/* One tensor's shape. */
typedef struct fr_shape {
    uint32_t ndim;
    const int64_t *dims;
} fr_shape;

/* The shapes of a list of tensors (`input_sizes`, `output_sizes`). */
typedef struct fr_shapes {
    uint32_t count;
    const fr_shape *shapes;
} fr_shapes;

/* A list of strings (`input_dtypes`, `output_dtypes`); dtypes normalized to c10 spelling. */
typedef struct fr_strings {
    uint32_t count;
    const char *const *items;
} fr_strings;

typedef struct fr_frame {
    const char *name;
    const char *filename;
    int64_t line;
} fr_frame;

typedef struct fr_entry {
    int64_t record_id;
    int64_t pg_id;
    const char *pg_name;     /* process_group[0]: pg_config key */
    const char *pg_desc;     /* process_group[1] */
    const char *thread_name; /* NULL before 2.8 */
    const char *thread_id;   /* NULL before 2.8 */
    int64_t collective_seq_id;
    int64_t p2p_seq_id;
    int64_t op_id;
    const char *profiling_name; /* "nccl:all_reduce", "nccl:send 0->1", ... ("" if absent) */
    int64_t time_created_ns;
    bool has_duration;
    double duration_ms;
    fr_shapes input_sizes, output_sizes;
    fr_strings input_dtypes, output_dtypes;
    fr_state state;
    int64_t time_discovered_started_ns;   /* 0 when None or 0 */
    int64_t time_discovered_completed_ns; /* 0 when None or 0 */
    bool retired;
    bool is_p2p;
    int64_t timeout_ms; /* -1 when absent (2.0) */
    uint32_t nframes;
    const fr_frame *frames; /* innermost first; NULL when the dump has no frames */
} fr_entry;

/* pg_config[name] */
typedef struct fr_group_config {
    const char *name;
    const char *desc;
    uint32_t nranks;
    const int64_t *ranks; /* global ranks, in the order written (group rank order) */
} fr_group_config;

/* pg_status[pg_id] (2.3+) */
typedef struct fr_pg_status {
    int64_t pg_id;
    int64_t last_enqueued;
    int64_t last_started;
    int64_t last_completed;
} fr_pg_status;

/* frtrace.comms[pg_name]: what the recorder knows of one communicator on this process. */
typedef struct fr_comm_info {
    const char *pg_name;   /* the key used in pg_config and in entries' process_group */
    int64_t comm_rank;     /* this process's rank in the communicator */
    int64_t comm_size;     /* number of ranks in the communicator */
    const char *parent;    /* pg_name of the communicator it was split from, or NULL */
    int64_t color;         /* split color, or -1 */
    const char *nccl_hash; /* NCCL's own commHash as "0x...", or NULL */
    const char *state;     /* "live", "finalized", "destroyed", "aborted", "revoked", or NULL */
} fr_comm_info;

#define FR_EXTRA_KEY    "frtrace"
#define FR_IDENTITY_KEY "frtrace_identity"
#define FR_STACKS_KEY   "frtrace_stacks"

/* frtrace_identity: which machine, process and GPU wrote the dump. */
typedef struct fr_identity {
    const char *hostname;     /* NULL when unknown */
    int64_t pid;              /* -1 when unknown */
    int64_t local_rank;       /* -1 when unknown */
    int64_t cuda_index;       /* -1: no CUDA device known */
    const char *pci_bus_id;   /* "0000:5a:00.0", or NULL */
    const char *uuid;         /* "GPU-...", or NULL */
    const char *nccl_version; /* "2.28.9", or NULL */
} fr_identity;

/* frtrace_stacks[i]: one thread of the process at dump time. Native frames reuse fr_frame:
 * `filename` holds the object (library or executable path), `line` the offset of the address
 * from the object's lowest mapped address, `name` the symbol or NULL. */
typedef struct fr_thread_stack {
    int64_t thread_id; /* the kernel's thread id (gettid) */
    const char *thread_name;
    uint32_t npython;
    const fr_frame *python; /* innermost first */
    uint32_t nnative;
    const fr_frame *native; /* innermost first */
    const char *note;       /* what was cut or could not be read, or NULL */
} fr_thread_stack;

typedef struct fr_dump {
    fr_encoding encoding;
    const char *version; /* "2.9" */
    int version_major, version_minor;
    const char *comm_lib_version; /* nccl_version / comm_lib_version / *_version, or NULL */

    uint32_t ngroups;
    fr_group_config *groups;
    uint32_t nstatus;
    fr_pg_status *status;
    bool has_entries; /* false for pickles made with includeCollectives=False (no "entries"
                         key); always true for JSON, which omits "entries" when it is empty */
    uint32_t nentries;
    fr_entry *entries; /* oldest first, as written */

    /* Recorder extras ("frtrace" key); global_rank -1 and ncomms 0 when absent. */
    int64_t global_rank;
    const char *trigger; /* "timeout", "signal", "trigger_file", "fatal:11", "exit", or NULL */
    uint32_t ncomms;
    fr_comm_info *comms;

    /* Recorder extras "frtrace_identity" and "frtrace_stacks" (absent: false, 0). */
    bool has_identity;
    fr_identity identity;
    bool has_stacks;
    uint32_t nthreads;
    fr_thread_stack *threads;

    bool truncated;      /* salvaged from a truncated file */
    const char *warning; /* a non-fatal problem worth reporting, or NULL */

    fv_arena *arena; /* owns everything above */
} fr_dump;

/* Decodes one dump file's bytes. Returns 0 and sets *out, or -1 with `err` filled. */
int fr_dump_decode(const uint8_t *bytes, size_t len, fr_dump **out, fr_error *err);
void fr_dump_free(fr_dump *dump);

/* Maps an already-read value tree (pickle or JSON) to a dump; the dump allocates in `arena`,
 * which it then owns (on failure the arena stays the caller's). The tree may live in the same
 * arena or another one: everything kept is copied. Used by fr_dump_decode and by tests. */
int fr_dump_from_value(fv *root, fv_arena *arena, fr_encoding encoding, fr_dump **out,
                       fr_error *err);

const char *fr_state_name(fr_state state); /* "scheduled", "started", "completed" */

#endif
