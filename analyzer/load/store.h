/* store.h — every rank's dump reduced to compact records, and the job-wide values they share.
 *
 * A decoded fr_dump spends 224 bytes per entry plus its shape arrays, strings and the arena
 * behind them; keeping 16 384 of them for the whole analysis needs ~10 GB. The analyzer needs
 * far less: per entry its ids, seqs, state, and *which* profiling name, shapes, dtypes and
 * frames it has. Those values repeat across entries and ranks (a job has a few hundred distinct
 * shape lists, a handful of dtype lists, one default-group rank list that every file repeats),
 * so the store interns each distinct value once for the whole job, and then each distinct
 * combination of them (fa_traits); an entry keeps the combination's 32-bit id: fa_entry is 8
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

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dump.h"
#include "load/opname.h"

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
 * stack it has, its state, and which of its rank's groups (pg slot) it is in. A job has a few
 * thousand distinct ones, so the store interns each once and an entry keeps its id
 * (fa_entry.traits). */
typedef struct fa_traits {
    uint32_t name;                  /* profiling name (fa_store_op) */
    uint32_t in_sizes, out_sizes;   /* fa_store_shapes */
    uint32_t in_dtypes, out_dtypes; /* fa_store_strings */
    uint32_t frames;                /* fa_store_frames, FA_NONE when the dump has none */
    uint32_t pg;                    /* index into its rank's fa_dump.pgs */
    uint8_t state;                  /* fr_state */
    bool is_p2p;
    bool ended; /* read as completed, but only "retired" says so (gloo): the operation ended,
                 * successfully or not (gloo retires an operation that failed, too) */
} fa_traits;

/* One entry, compact: 8 bytes, because at 131 072 ranks x 2 000 entries every byte of an entry
 * is 262 MB. Everything shared lives in the store (its traits id, which also says which of its
 * rank's groups it is in); its sequence ids are kept as offsets from the smallest of its group
 * in its dump (a group's ids within one ring span fewer than 2^16: one a collective), and its
 * record_id is its dump's first plus its index (PyTorch's dumps are consecutive). A dump where
 * that does not hold keeps the record ids, or all three values whole, beside (fa_dump.record,
 * fa_dump.wide). Read them through fa_entry_record_id, fa_entry_coll_seq, fa_entry_p2p_seq and
 * fa_entry_pg. */
typedef struct fa_entry {
    uint16_t coll;                  /* collective_seq_id - its fa_pg.coll_base */
    uint16_t p2p;                   /* p2p_seq_id - its fa_pg.p2p_base */
    uint32_t traits : 31;           /* fa_store_traits */
    uint32_t unrecorded_before : 1; /* op ids skipped right before it in its group: the backend
                                     * ran operations there that it did not record (gloo p2p) */
} fa_entry;
_Static_assert(sizeof(fa_entry) == 8, "fa_entry is 8 bytes: the memory budget counts on it");

/* An entry's process_group tuple and pg_id, shared by a rank's entries of that group. */
typedef struct fa_pg {
    const char *name, *desc; /* desc may be NULL */
    int64_t pg_id;
    int64_t last_op_id;          /* of its newest entry; 0 when none carried one */
    int64_t coll_base, p2p_base; /* its entries' sequence ids are these plus fa_entry's */
    bool skips_op_ids;           /* op ids missing between its entries, or enqueued after them
                                  * (pg_status): operations the backend did not record */
} fa_pg;

#define FA_NO_TIME          UINT32_MAX
#define FA_MAX_DUMP_ENTRIES ((1u << 28) - 1) /* the loader refuses a dump with more */

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
    const fa_store *store; /* its entries' traits */
    int64_t record_base;   /* record ids are this plus the index, or plus record[] */
    uint32_t *record; /* per entry: record_id - record_base; NULL when it is the entry's index */
    int64_t *wide;    /* per entry its record_id, collective_seq_id, p2p_seq_id whole, where an
                       * offset would not fit 32 bits; NULL otherwise */
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
    /* when each entry happened, per entry (perf.h), 10 bytes: read through fa_time_* */
    int64_t time_base;      /* the earliest time_created_ns > 0 of its entries */
    uint32_t *created_us;   /* time_created_ns - time_base: its microseconds (FA_NO_TIME unknown) */
    uint16_t *created_ns;   /* ... and the nanoseconds beyond them */
    int64_t *created_wide;  /* time_created_ns whole (0 unknown) instead, for a dump spanning more
                             * than 71 minutes; NULL otherwise */
    uint32_t *completed_us; /* time_discovered_completed_ns - created in us, FA_NO_TIME unknown */
    float *duration;        /* duration_ms, NaN absent; NULL when no entry has one */
    bool has_identity;      /* frtrace_identity: host, pid, GPU (strings in the store) */
    fr_identity identity;
    bool has_stacks; /* frtrace_stacks: every thread at dump time */
    uint32_t nthreads;
    fa_thread *threads;
    int64_t caller_tid; /* the thread that made its newest call (thread_id), -1 unknown */
} fa_dump;
_Static_assert(sizeof *((fa_dump *)0)->created_us + sizeof *((fa_dump *)0)->created_ns +
                       sizeof *((fa_dump *)0)->completed_us ==
                   10,
               "an entry's times are 10 bytes: the memory budget counts on it");

/* Whether the dump numbers its work as PyTorch's NCCL does: collectives by the group's collective
 * counter, send/recv by its send/recv counter, pg_status by whichever gave the last work's number
 * (not gloo's op ids, which also count unrecorded send/recv, nor the recorder's launch numbers). */
static inline bool fa_dump_nccl_numbered(const fa_dump *d) {
    return !d->launch_numbered && !d->blocks_caller && !d->records_no_p2p;
}

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

/* Entry e's record_id, collective_seq_id, p2p_seq_id, and pg slot (index into d->pgs). */
static inline int64_t fa_entry_record_id(const fa_dump *d, const fa_entry *e) {
    size_t i = (size_t)(e - d->entries);
    if (d->wide) return d->wide[3 * i];
    return d->record_base + (d->record ? (int64_t)d->record[i] : (int64_t)i);
}
/* Whether dump d holds every record between its first and its last (no gap that an only-active
 * dump leaves where completed ones were, a bundle's end marker among them). */
static inline bool fa_dump_window_whole(const fa_dump *d) {
    return d->nentries && fa_entry_record_id(d, &d->entries[d->nentries - 1]) -
                                  fa_entry_record_id(d, &d->entries[0]) ==
                              (int64_t)d->nentries - 1;
}
/* ..._in: the same, its pg slot already known (its traits' pg). */
static inline int64_t fa_entry_coll_seq_in(const fa_dump *d, const fa_entry *e, uint32_t pg) {
    if (d->wide) return d->wide[3 * (size_t)(e - d->entries) + 1];
    return d->pgs[pg].coll_base + e->coll;
}
static inline int64_t fa_entry_p2p_seq_in(const fa_dump *d, const fa_entry *e, uint32_t pg) {
    if (d->wide) return d->wide[3 * (size_t)(e - d->entries) + 2];
    return d->pgs[pg].p2p_base + e->p2p;
}
static inline int64_t fa_entry_coll_seq(const fa_dump *d, const fa_entry *e) {
    return fa_entry_coll_seq_in(d, e, d->wide ? 0 : fa_entry_traits(d->store, e)->pg);
}
static inline int64_t fa_entry_p2p_seq(const fa_dump *d, const fa_entry *e) {
    return fa_entry_p2p_seq_in(d, e, d->wide ? 0 : fa_entry_traits(d->store, e)->pg);
}
static inline uint32_t fa_entry_pg(const fa_store *store, const fa_entry *e) {
    return fa_entry_traits(store, e)->pg;
}
/* Whether entry e is a collective of its own: no send/recv (by its is_p2p flag or its name) and no
 * end marker of a coalesced bundle or batch. */
static inline bool fa_entry_plain_collective(const fa_store *store, const fa_entry *e) {
    const fa_traits *t = fa_entry_traits(store, e);
    const fa_opinfo *op = fa_store_op(store, t->name);
    return !t->is_p2p && !op->is_send && !op->is_recv && !(op->flags & FA_OP_END_MARKER);
}
/* The dump's newest entry in pg slot k, or NULL. */
static inline const fa_entry *fa_dump_last_in_slot(const fa_dump *d, uint32_t k) {
    for (uint32_t i = d->nentries; i-- > 0;)
        if (fa_entry_pg(d->store, &d->entries[i]) == k) return &d->entries[i];
    return NULL;
}
/* Whether the dump shows an entry completed: it keeps what completed (PyTorch's only-active dump
 * drops every entry it saw completed). The match and the verdict both ask it. */
static inline bool fa_dump_shows_completed(const fa_dump *d) {
    for (uint32_t i = 0; i < d->nentries; i++)
        if (fa_entry_traits(d->store, &d->entries[i])->state == FR_STATE_COMPLETED) return true;
    return false;
}

/* The pg_status of the dump's pg slot k (the first with its pg_id), NULL when it has none. */
static inline const fr_pg_status *fa_dump_pg_status(const fa_dump *d, uint32_t k) {
    for (uint32_t s = 0; s < d->nstatus; s++)
        if (d->status[s].pg_id == d->pgs[k].pg_id) return &d->status[s];
    return NULL;
}

/* Entry i's times (perf.h reads them): its arrival (time_created_ns), 0 when unknown; when its
 * completion was discovered (time_discovered_completed_ns, to the microsecond), 0 when unknown;
 * its duration_ms, NaN when absent. Readers go through these, not the layout. */
static inline int64_t fa_time_created(const fa_dump *d, uint32_t i) {
    if (i >= d->nentries) return 0;
    if (d->created_wide) return d->created_wide[i];
    if (d->created_us[i] == FA_NO_TIME) return 0;
    return d->time_base + (int64_t)d->created_us[i] * 1000 + d->created_ns[i];
}
static inline int64_t fa_time_completed(const fa_dump *d, uint32_t i) {
    if (i >= d->nentries || d->completed_us[i] == FA_NO_TIME) return 0;
    return fa_time_created(d, i) + (int64_t)d->completed_us[i] * 1000;
}
static inline double fa_time_duration(const fa_dump *d, uint32_t i) {
    return i < d->nentries && d->duration ? d->duration[i] : NAN;
}

/* Rebuilds the full fr_entry of d->entries[i] (fields the store does not keep are zero/NULL);
 * every pointer in it points into the store or `d`. */
void fa_entry_expand(const fa_store *store, const fa_dump *d, const fa_entry *e, fr_entry *out);

#endif
