/* store.h — every rank's dump reduced to compact records, and the job-wide values they share.
 *
 * A decoded fr_dump spends 224 bytes per entry plus its shape arrays, strings and the arena
 * behind them; keeping 16 384 of them for the whole analysis needs ~10 GB. The analyzer needs
 * far less: per entry its ids, seqs, state, and *which* profiling name, shapes, dtypes and
 * frames it has. Those values repeat across entries and ranks (a job has a few hundred distinct
 * shape lists, a handful of dtype lists, one default-group rank list that every file repeats),
 * so the store interns each distinct value once for the whole job, and then each distinct
 * combination of them (fa_traits); an entry keeps the combination's 32-bit id: fa_entry is 32
 * bytes, and the fr_dump is freed as soon as it has been compacted.
 *
 * Interning is thread-safe: load workers compact their dumps in parallel. The shared tables sit
 * behind one mutex; each worker has an fa_compactor whose cache answers repeated values without
 * the lock (its entries point into the store's arena, which never moves or frees a value while
 * the store lives). Ids depend on which worker got there first, so they are only ever compared
 * for equality, never ordered. Once loading is over the store is read-only and lock-free.
 *
 * A profiling name is parsed once, when first interned (fa_opinfo): its op type (interned, so
 * types compare by pointer), send/recv peers, and the op-family flags match and verdict test.
 */
#ifndef FRTRACE_STORE_H
#define FRTRACE_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dump.h"
#include "opname.h"

#define FA_NONE UINT32_MAX /* "no value" for an id (an entry without frames) */

typedef struct fa_store fa_store;
typedef struct fa_compactor fa_compactor;

/* A profiling name, parsed once. */
typedef struct fa_opinfo {
    const char *text; /* the profiling name itself */
    const char *type; /* op type ("all_reduce"); the whole name when it does not parse; interned */
    bool parsed;      /* fa_parse_profiling_name accepted it */
    bool is_send, is_recv;
    int64_t src, dst; /* group ranks of send/recv, -1 unknown */
    uint32_t flags;   /* FA_OP_* */
} fa_opinfo;

/* What an entry has in common with many others: which profiling name, shapes, dtypes and
 * stack it has, and its state. A job has a few thousand distinct ones, so the store interns
 * each once and an entry keeps its id (fa_entry.traits): 32 bytes an entry instead of 56, which
 * at 16 384 ranks x 2 000 entries is 0.8 GB less memory to fault in and to walk. */
typedef struct fa_traits {
    uint32_t name;                  /* profiling name (fa_store_op) */
    uint32_t in_sizes, out_sizes;   /* fa_store_shapes */
    uint32_t in_dtypes, out_dtypes; /* fa_store_strings */
    uint32_t frames;                /* fa_store_frames, FA_NONE when the dump has none */
    uint8_t state;                  /* fr_state */
    bool is_p2p;
    bool ended; /* read as completed, but only "retired" says so (gloo): the operation ended,
                 * successfully or not (gloo retires an operation that failed, too) */
} fa_traits;

/* One entry, compact. Everything shared lives in the store (ids) or in the rank's pg table. */
typedef struct fa_entry {
    int64_t record_id;
    int64_t collective_seq_id;
    int64_t p2p_seq_id;
    uint32_t traits;                /* fa_store_traits */
    uint32_t pg : 31;               /* index into the rank's fa_dump.pgs */
    uint32_t unrecorded_before : 1; /* op ids skipped right before it in its group: the backend
                                     * ran operations there that it did not record (gloo p2p) */
} fa_entry;
_Static_assert(sizeof(fa_entry) == 32, "fa_entry is 32 bytes: millions of them");

/* An entry's process_group tuple and pg_id, shared by a rank's entries of that group. */
typedef struct fa_pg {
    const char *name, *desc; /* desc may be NULL */
    int64_t pg_id;
    int64_t last_op_id; /* of its newest entry; 0 when none carried one */
    bool skips_op_ids;  /* op ids missing between its entries, or enqueued after them
                         * (pg_status): operations the backend did not record */
} fa_pg;

/* When an entry happened (perf.h reads them): parallel to fa_dump.entries, 16 bytes an entry. */
typedef struct fa_times {
    int64_t created_ns; /* time_created_ns (the call's arrival), 0 unknown */
    float duration_ms;  /* duration_ms (GPU start to end), NaN when absent */
    uint32_t
        completed_us; /* time_discovered_completed_ns - created_ns in us, FA_NO_TIME when unknown */
} fa_times;
#define FA_NO_TIME UINT32_MAX

/* One thread of the process when it dumped (the recorder's frtrace_stacks, dump.h): its frame
 * lists are interned like entries' stacks, so ranks with the same stack share one id. */
typedef struct fa_thread {
    int64_t tid;
    const char *name, *note; /* note: what was cut or unreadable, or NULL */
    uint32_t python;         /* fa_store_frames, innermost first; FA_NONE: none */
    uint32_t native;         /* the same; filename = object, line = offset */
} fa_thread;

/* What the analyzer keeps of one rank's dump: fr_dump's fields of the same names (strings and
 * rank lists point into the store) and compact entries. */
typedef struct fa_dump {
    const char *version;
    int version_major, version_minor;
    const char *comm_lib_version;
    uint32_t ngroups;
    fr_group_config *groups;
    uint32_t nstatus;
    fr_pg_status *status;
    bool has_entries;
    uint32_t nentries;
    fa_entry *entries;
    uint32_t npgs;
    fa_pg *pgs;
    int64_t global_rank;
    const char *trigger;
    uint32_t ncomms;
    fr_comm_info *comms;
    bool truncated;
    const char *warning;
    bool records_no_p2p;  /* its entries come from a backend that records no send/recv (gloo) */
    bool launch_numbered; /* the recorder's: collectives and send/recv batches draw their seq ids
                           * from one launch counter per communicator, so a seq id inside the
                           * rank's window that no collective of its carries went to a send/recv
                           * batch: that collective was not issued there */
    bool blocks_caller;   /* ... and from one whose calls return once they completed (gloo) */
    int64_t newest_ns;    /* the latest time_created_ns of its entries, 0 when none */
    int64_t oldest_ns;    /* the earliest one (> 0), 0 when none */
    fa_times *times;      /* per entry, parallel to entries (perf.h) */
    bool has_identity;    /* frtrace_identity: host, pid, GPU (strings in the store) */
    fr_identity identity;
    bool has_stacks; /* frtrace_stacks: every thread at dump time */
    uint32_t nthreads;
    fa_thread *threads;
    int64_t caller_tid; /* the thread that made its newest call (thread_id), -1 unknown */
} fa_dump;

typedef struct fa_frames {
    uint32_t n;
    const fr_frame *v;
} fa_frames;

fa_store *fa_store_new(void);
void fa_store_free(fa_store *store);

/* A worker's cache over the store; one per thread. NULL when out of memory. */
fa_compactor *fa_compactor_new(fa_store *store);
void fa_compactor_free(fa_compactor *c);
/* Compacts `in` (which the caller still owns and may free right after). NULL when out of memory. */
fa_dump *fa_dump_compact(fa_compactor *c, const fr_dump *in);
void fa_dump_free(fa_dump *d);

/* Interns a list of global ranks (thread-safe); the stored copy, or NULL when out of memory.
 * Equal lists give the same pointer, so lists compare by pointer. */
const int64_t *fa_store_ranks(fa_store *store, const int64_t *ranks, uint32_t n);

/* Read-only lookups (after loading). */
const fa_opinfo *fa_store_op(const fa_store *store, uint32_t name);
const fr_shapes *fa_store_shapes(const fa_store *store, uint32_t id);
int64_t fa_store_numel(const fa_store *store, uint32_t shapes); /* total elements of a shape list */
const fr_strings *fa_store_strings(const fa_store *store, uint32_t id);
uint64_t fa_store_strings_set(const fa_store *store, uint32_t id); /* equal for equal sets */
fa_frames fa_store_frames(const fa_store *store, uint32_t id);     /* {0, NULL} for FA_NONE */
/* Every interned fa_traits, indexed by id: fetched once by loops over many entries. */
const fa_traits *fa_store_traits_all(const fa_store *store);
static inline const fa_traits *fa_entry_traits(const fa_store *store, const fa_entry *e) {
    return &fa_store_traits_all(store)[e->traits];
}

/* Rebuilds the full fr_entry of d->entries[i] (fields the store does not keep are zero/NULL);
 * every pointer in it points into the store or `d`. */
void fa_entry_expand(const fa_store *store, const fa_dump *d, const fa_entry *e, fr_entry *out);

#endif
