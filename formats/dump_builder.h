/* dump_builder.h — inside formats/: how a dump's structs are built, shared by the decoding paths.
 *
 * A dump is decoded one of two ways (see dump.c): generically, through pickle_read's or
 * json_read's value tree mapped by dump.c, or directly, by dump_pickle_fast.c's reader of the
 * regular shape PyTorch's C++ pickler writes or dump_json_fast.c's reader of plain JSON. All build
 * the same fr_dump through one builder (dump_builder.c): it owns the dump's arena and string
 * interner and the tables that store each distinct shape list, dtype list and stack once per
 * dump. The builder's state is a struct dump_builder that dump.c embeds in its decoder and
 * hands to the direct paths, so that calls go one way: dump.c -> dump_pickle_fast.c,
 * dump_json_fast.c
 * -> dump_builder.c. Everything here is internal to formats/; the analyzer sees only dump.h and
 * dump_decoder.h.
 *
 * The rules all paths must apply identically also live here: which keys an entry has, which
 * are required, what an entry holds before its keys are read, the spellings of states and
 * dtypes. Errors: functions returning int give 0, or -1 with the builder's error filled ("out
 * of memory"); the fast paths never report them (they decline and let the generic path speak).
 */
#ifndef FRTRACE_DUMP_BUILDER_H
#define FRTRACE_DUMP_BUILDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "dump.h"
#include "intern.h"

/* A table of lists the dump keeps once however many entries repeat them (dump_builder.c). */
typedef struct list_slot {
    uint64_t hash;
    const void *items; /* NULL = empty slot */
    uint32_t count;
} list_slot;

typedef struct list_table {
    list_slot *slots;
    size_t size, used; /* size: power of two or 0 */
} list_table;

/* The builder's state: one per decoder, reused dump after dump (zeroed when made). */
typedef struct dump_builder {
    fv_arena *arena;      /* the dump's arena */
    fr_interner *strings; /* interned copies in `arena` */
    fr_error *err;
    list_table shapes, dtypes, frames; /* shared fr_shapes / fr_strings / frame lists */
    fr_frame *frame_buf;               /* scratch for one entry's frames */
    size_t frame_buf_cap;
} dump_builder;

/* Sets b up to build a dump in `arena`; *d is the empty dump. 0, or -1 with err filled. */
int dump_builder_begin(dump_builder *b, fv_arena *arena, fr_encoding encoding, fr_error *err,
                       fr_dump **d);
/* Forgets the dump built (what the tables point to lives in its arena): ready for the next. */
void dump_builder_end(dump_builder *b);
/* Frees what b holds (not b itself). */
void dump_builder_free(dump_builder *b);
/* Fills the builder's error with "out of memory while decoding the dump"; returns -1. */
int dump_out_of_memory(dump_builder *b);

/* The keys of an entry dict that the decoder reads, as bit numbers for a `seen` mask. */
typedef enum entry_field {
    F_FRAMES,
    F_RECORD_ID,
    F_PG_ID,
    F_PROCESS_GROUP,
    F_THREAD_NAME,
    F_THREAD_ID,
    F_COLLECTIVE_SEQ_ID,
    F_P2P_SEQ_ID,
    F_OP_ID,
    F_PROFILING_NAME,
    F_TIME_CREATED_NS,
    F_DURATION_MS,
    F_INPUT_SIZES,
    F_INPUT_DTYPES,
    F_OUTPUT_SIZES,
    F_OUTPUT_DTYPES,
    F_STATE,
    F_TIME_DISCOVERED_STARTED_NS,
    F_TIME_DISCOVERED_COMPLETED_NS,
    F_RETIRED,
    F_TIMEOUT_MS,
    F_IS_P2P,
    F_COUNT,
    F_UNKNOWN = -1,
} entry_field;

/* The field named by bytes[0..len), or F_UNKNOWN. */
int dump_entry_field(const char *bytes, size_t len);
/* The key of field f (0 <= f < F_COUNT). */
const char *dump_entry_field_name(int f);
/* An entry before its keys are read: the defaults of dump.h (inline: once per entry). Copied
 * from a constant rather than built in place, which gcc does with `rep stos`, slow to start. */
static inline void dump_entry_init(fr_entry *e) {
    static const fr_entry blank = { .timeout_ms = -1, .profiling_name = "" };
    memcpy(e, &blank, sizeof blank);
}
/* Whether `seen` (bits of entry_field) holds every key an entry must have. */
bool dump_entry_complete(uint32_t seen);
/* The first required field that `seen` lacks, or F_UNKNOWN when it has them all. */
int dump_entry_missing(uint32_t seen);
/* The fr_state spelled by the C string s, or -1. */
int dump_state_of(const char *s);

/* The interned copy of bytes[0..len) in the dump (NULL when out of memory). */
const char *dump_intern(dump_builder *b, const char *bytes, size_t len);
/* The interned c10 spelling of a dtype given as an interned C string (NULL when out of memory). */
const char *dump_dtype(dump_builder *b, const char *interned);
/* A thread id written as a number, as the string the other writers give. */
const char *dump_thread_id_text(dump_builder *b, int64_t id);

/* Lists stored once per dump: `out` points to the dump's copy of the given items. */
int dump_store_shapes(dump_builder *b, uint32_t count, const uint32_t *ndims, const int64_t *dims,
                      fr_shapes *out);
int dump_store_dtypes(dump_builder *b, uint32_t count, const char *const *items, fr_strings *out);
int dump_store_frames(dump_builder *b, const fr_frame *frames, uint32_t n, fr_entry *e);
/* The builder's scratch for one entry's frames, room for n (NULL when out of memory). */
fr_frame *dump_scratch_frames(dump_builder *b, uint32_t n);

/* The arena the dump lives in, for a path that keeps more in it. */
fv_arena *dump_arena(dump_builder *b);

#endif
