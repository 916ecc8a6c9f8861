/* pickle_write.h — a streaming pickle writer in the byte layout of torch's C++ Pickler.
 *
 * The writer emits opcodes as the caller walks its data (no value tree needed): PROTO 2, dicts
 * as EMPTY_DICT MARK ... SETITEMS, lists as EMPTY_LIST MARK ... APPENDS, tuples as TUPLE1/2/3
 * or MARK ... TUPLE, strings as BINUNICODE memoized by value (BINPUT on first use, BINGET on
 * repeats, LONG_* past id 255), ints through torch's pushInt ladder (LONG1 always 8 bytes),
 * floats as big-endian BINFLOAT, then STOP. See docs/dump-formats.md §1.
 *
 * It never allocates on its own: the caller hands it a staging buffer and a string-memo table
 * (pw_init), and a sink that receives full buffers. That makes it usable from a fatal-signal
 * handler with preallocated memory and write(2) as the sink. pw_init_alloc() is the convenient
 * heap-backed form for ordinary code (growable memory buffer, growable memo).
 *
 * Errors are sticky: after a failure (sink error, a fixed buffer full with no sink, out of
 * memory) every call is a no-op and pw_finish() returns -1. A fixed memo table that reaches its
 * load limit (3/4 of memo_cap) is not an error: further new strings are written in full every
 * time (each with a fresh BINPUT id that is never looked up): still a valid pickle, only longer.
 */
#ifndef FRTRACE_PICKLE_WRITE_H
#define FRTRACE_PICKLE_WRITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Receives `len` bytes; returns 0 on success, -1 on failure. */
typedef int (*pw_sink_fn)(void *ctx, const uint8_t *bytes, size_t len);

/* One slot of the caller-provided string memo (open addressing). */
typedef struct pw_memo_slot {
    const char
        *str; /* NULL = empty; points at the caller's string, which must outlive the writer */
    uint32_t len;
    uint32_t id;
    uint64_t hash;
} pw_memo_slot;

typedef struct pw_writer {
    uint8_t *buf;
    size_t cap, len;
    pw_sink_fn sink;
    void *sink_ctx;
    pw_memo_slot *memo;
    uint32_t memo_cap; /* power of two */
    uint32_t memo_used;
    uint32_t next_memo_id; /* shared by strings and memoized containers, as in torch */
    bool owns_memory;      /* pw_init_alloc: buf and memo are malloc'd and grow */
    int failed;
} pw_writer;

/* Fixed memory, no allocation ever: `buf` of `cap` bytes is flushed to `sink` when full;
 * `memo` has `memo_cap` slots (a power of two), zeroed by pw_init. */
void pw_init(pw_writer *w, uint8_t *buf, size_t cap, pw_memo_slot *memo, uint32_t memo_cap,
             pw_sink_fn sink, void *sink_ctx);
/* Heap-backed: with sink NULL, everything accumulates in w->buf (w->len bytes). */
int pw_init_alloc(pw_writer *w, pw_sink_fn sink, void *sink_ctx);
/* Flushes, releases heap memory of pw_init_alloc writers except the collected buffer when
 * sink is NULL (then *out and *out_len receive it; free() it). A pw_init writer without a sink
 * hands back its own `buf` (not to be freed). Returns 0 or -1; the writer is spent after. */
int pw_finish(pw_writer *w, uint8_t **out, size_t *out_len);

void pw_proto(pw_writer *w);                          /* 80 02 */
void pw_stop(pw_writer *w);                           /* 2e */
void pw_dict_begin(pw_writer *w);                     /* 7d 28 */
void pw_dict_end(pw_writer *w);                       /* 75 */
void pw_list_begin(pw_writer *w);                     /* 5d 28 */
void pw_list_end(pw_writer *w);                       /* 65 */
void pw_mark(pw_writer *w);                           /* 28 */
void pw_tuple_from_mark(pw_writer *w);                /* 74 */
void pw_tuple2(pw_writer *w);                         /* 86: the last two values become a tuple */
void pw_str(pw_writer *w, const char *s, size_t len); /* memoized by value */
void pw_cstr(pw_writer *w, const char *s);
/* Like pw_str for a string in memory that will not outlive the call (a formatted number): a
 * repeat of an already memoized string is a BINGET; a new one is written and given a memo id
 * (BINPUT, keeping the id count torch's) but not remembered, so a later equal string is written
 * again. Used only when the caller has no stable storage for the string. */
void pw_str_transient(pw_writer *w, const char *s, size_t len);
void pw_int(pw_writer *w, int64_t v);
void pw_float(pw_writer *w, double v);
void pw_bool(pw_writer *w, bool v);
void pw_none(pw_writer *w);
/* Memoizes the value just written (a container): BINPUT/LONG_BINPUT with the next id, which
 * is returned; pw_get(w, id) later emits BINGET/LONG_BINGET. */
uint32_t pw_put(pw_writer *w);
void pw_get(pw_writer *w, uint32_t id);

#endif
