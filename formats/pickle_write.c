/* pickle_write.c — the streaming pickle writer of pickle_write.h, byte for byte like torch.
 *
 * Bytes go into a staging buffer; when it is full they are handed to the sink and the buffer is
 * reused (a heap writer without a sink grows the buffer instead and keeps everything). Strings
 * are memoized by value in an open-addressing table of pw_memo_slot keyed by a 64-bit FNV-1a
 * hash: the first use of a string writes BINUNICODE + BINPUT <id>, every later use BINGET <id>.
 * Containers share the id counter through pw_put()/pw_get(), as torch's Pickler does.
 *
 * Fixed-memory writers (pw_init) never call malloc or free and touch no global state: the
 * recorder runs them inside a fatal-signal handler with write(2) as the sink. Only async-signal-
 * safe work happens here (memcpy, arithmetic, the sink). When their memo table reaches its load
 * limit, further new strings are written in full each time (each with a fresh memo id, which is
 * never looked up) — the pickle stays valid and only grows — rather than failing the dump. Heap
 * writers (pw_init_alloc) grow the table.
 *
 * A string is written as Python's unpickler will read it back (UTF-8 with 'surrogatepass'): a
 * NUL kept as C0 80 inside the analyzer's strings (safe_text.h) goes out as a NUL, and a byte
 * that is not UTF-8 (a thread name set by the host, a native frame) as U+DC00 + byte, the
 * lone surrogate Python's 'surrogateescape' would have made of it; a dump never holds a string
 * that Python's pickle cannot load.
 *
 * Integers follow torch's pushInt ladder: BININT1 (0..255), BININT2 (..65535), BININT (int32),
 * else LONG1 with a length byte of 8 (never the minimal length Python would use). Floats are
 * BINFLOAT with the IEEE double in big-endian order.
 */
#include "pickle_write.h"

#include <stdlib.h>
#include <string.h>

#include "pickle_opcodes.h"
#include "grow.h"
#include "safe_text.h"

enum { HEAP_CHUNK = 64 * 1024, HEAP_MEMO_SLOTS = 1024 };

/* --- output buffer ------------------------------------------------------------------------ */

static void fail(pw_writer *w) { w->failed = 1; }

static void flush_to_sink(pw_writer *w) {
    if (w->failed || w->len == 0) return;
    if (w->sink(w->sink_ctx, w->buf, w->len) != 0) {
        fail(w);
        return;
    }
    w->len = 0;
}

/* Heap writers without a sink keep everything: make room for `need` more bytes. */
static void grow_buffer(pw_writer *w, size_t need) {
    if (need > SIZE_MAX / 2 - w->len ||
        fr_grow((void **)&w->buf, &w->cap, w->len + need, 1, HEAP_CHUNK))
        fail(w);
}

static void emit(pw_writer *w, const void *bytes, size_t n) {
    const uint8_t *p = bytes;
    while (n > 0 && !w->failed) {
        if (w->len == w->cap) {
            if (w->sink)
                flush_to_sink(w);
            else if (w->owns_memory)
                grow_buffer(w, n);
            else
                fail(w); /* fixed buffer, nowhere to flush */
            continue;
        }
        size_t room = w->cap - w->len;
        size_t take = n < room ? n : room;
        memcpy(w->buf + w->len, p, take);
        w->len += take;
        p += take;
        n -= take;
    }
}

static void emit_op(pw_writer *w, uint8_t op) { emit(w, &op, 1); }

static void emit_u32le(pw_writer *w, uint8_t op, uint32_t v) {
    uint8_t b[5] = { op, (uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24) };
    emit(w, b, sizeof b);
}

/* --- memo --------------------------------------------------------------------------------- */

static uint64_t hash_bytes(const char *s, size_t len) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < len; i++) {
        h ^= (uint8_t)s[i];
        h *= 0x100000001b3ull;
    }
    return h ? h : 1;
}

/* BINPUT/LONG_BINPUT with the next memo id; returns that id. */
static uint32_t emit_put(pw_writer *w) {
    uint32_t id = w->next_memo_id++;
    if (id <= 0xff) {
        uint8_t b[2] = { OP_BINPUT, (uint8_t)id };
        emit(w, b, 2);
    } else {
        emit_u32le(w, OP_LONG_BINPUT, id);
    }
    return id;
}

static void emit_get(pw_writer *w, uint32_t id) {
    if (id <= 0xff) {
        uint8_t b[2] = { OP_BINGET, (uint8_t)id };
        emit(w, b, 2);
    } else {
        emit_u32le(w, OP_LONG_BINGET, id);
    }
}

/* The slot holding `s`, or the empty slot where it would go. */
static pw_memo_slot *memo_find(pw_memo_slot *memo, uint32_t cap, const char *s, uint32_t len,
                               uint64_t h) {
    uint32_t i = (uint32_t)h & (cap - 1);
    for (;;) {
        pw_memo_slot *slot = &memo[i];
        if (!slot->str) return slot;
        if (slot->hash == h && slot->len == len && memcmp(slot->str, s, len) == 0) return slot;
        i = (i + 1) & (cap - 1);
    }
}

/* Heap writers: double the table once it is half full. */
static bool memo_grow(pw_writer *w) {
    uint32_t cap = w->memo_cap * 2;
    if (cap == 0 || cap > (1u << 30)) return false;
    pw_memo_slot *fresh = calloc(cap, sizeof *fresh);
    if (!fresh) return false;
    for (uint32_t i = 0; i < w->memo_cap; i++) {
        pw_memo_slot *old = &w->memo[i];
        if (old->str) *memo_find(fresh, cap, old->str, old->len, old->hash) = *old;
    }
    free(w->memo);
    w->memo = fresh;
    w->memo_cap = cap;
    return true;
}

/* Room for one more string? A fixed table keeps a quarter free so probes stay short. */
static bool memo_has_room(pw_writer *w) {
    if ((uint64_t)(w->memo_used + 1) * 4 <= (uint64_t)w->memo_cap * 3) return true;
    if (!w->owns_memory) return false;
    if (!memo_grow(w)) {
        fail(w);
        return false;
    }
    return true;
}

/* --- setup and teardown ------------------------------------------------------------------- */

void pw_init(pw_writer *w, uint8_t *buf, size_t cap, pw_memo_slot *memo, uint32_t memo_cap,
             pw_sink_fn sink, void *sink_ctx) {
    memset(w, 0, sizeof *w);
    w->buf = buf;
    w->cap = cap;
    w->sink = sink;
    w->sink_ctx = sink_ctx;
    w->memo = memo;
    w->memo_cap = memo_cap;
    if (memo && memo_cap) memset(memo, 0, (size_t)memo_cap * sizeof *memo);
    /* a table that is not a power of two cannot be probed with a mask: use none of it */
    if (memo_cap & (memo_cap - 1)) w->memo_cap = 0;
    if (!buf || cap == 0) fail(w);
}

int pw_init_alloc(pw_writer *w, pw_sink_fn sink, void *sink_ctx) {
    memset(w, 0, sizeof *w);
    w->sink = sink;
    w->sink_ctx = sink_ctx;
    w->owns_memory = true;
    w->buf = malloc(HEAP_CHUNK);
    w->memo = calloc(HEAP_MEMO_SLOTS, sizeof *w->memo);
    if (!w->buf || !w->memo) {
        free(w->buf);
        free(w->memo);
        w->buf = NULL;
        w->memo = NULL;
        fail(w);
        return -1;
    }
    w->cap = HEAP_CHUNK;
    w->memo_cap = HEAP_MEMO_SLOTS;
    return 0;
}

int pw_finish(pw_writer *w, uint8_t **out, size_t *out_len) {
    if (out) *out = NULL;
    if (out_len) *out_len = 0;
    if (w->sink) flush_to_sink(w);
    int rc = w->failed ? -1 : 0;
    if (w->owns_memory) {
        free(w->memo);
        w->memo = NULL;
        if (!w->sink && rc == 0 && out) {
            *out = w->buf;
            if (out_len) *out_len = w->len;
        } else {
            free(w->buf);
        }
        w->buf = NULL;
    } else if (!w->sink && rc == 0 && out) {
        *out = w->buf; /* the caller's own buffer: not to be freed by us */
        if (out_len) *out_len = w->len;
    }
    w->failed = 1; /* the writer is spent */
    return rc;
}

/* --- opcodes ------------------------------------------------------------------------------ */

void pw_proto(pw_writer *w) {
    uint8_t b[2] = { OP_PROTO, 2 };
    emit(w, b, 2);
}

void pw_stop(pw_writer *w) { emit_op(w, OP_STOP); }

void pw_dict_begin(pw_writer *w) {
    uint8_t b[2] = { OP_EMPTY_DICT, OP_MARK };
    emit(w, b, 2);
}

void pw_dict_end(pw_writer *w) { emit_op(w, OP_SETITEMS); }

void pw_list_begin(pw_writer *w) {
    uint8_t b[2] = { OP_EMPTY_LIST, OP_MARK };
    emit(w, b, 2);
}

void pw_list_end(pw_writer *w) { emit_op(w, OP_APPENDS); }
void pw_mark(pw_writer *w) { emit_op(w, OP_MARK); }
void pw_tuple_from_mark(pw_writer *w) { emit_op(w, OP_TUPLE); }
void pw_tuple2(pw_writer *w) { emit_op(w, OP_TUPLE2); }

/* The length s[0..len) takes as Python's unpickler reads it (see above); *clean when it is the
 * same bytes. Plain ASCII, the common case, is decided without decoding. */
static size_t pickled_len(const char *s, size_t len, bool *clean) {
    const uint8_t *u = (const uint8_t *)s;
    size_t i = 0, out = 0;
    *clean = true;
    while (i < len && u[i] < 0x80) i++;
    out = i;
    while (i < len) {
        fr_char c;
        size_t used = fr_text_next(u + i, len - i, &c);
        if (c.kind == FR_CH_NUL || c.kind == FR_CH_BAD_BYTE) {
            *clean = false;
            out += c.kind == FR_CH_NUL ? 1 : 3;
        } else {
            out += used;
        }
        i += used;
    }
    return out;
}

/* BINUNICODE with s[0..len) as Python's unpickler will read it back. */
static void emit_unicode(pw_writer *w, const char *s, size_t len) {
    bool clean;
    size_t out = pickled_len(s, len, &clean);
    if (out > UINT32_MAX) {
        fail(w);
        return;
    }
    emit_u32le(w, OP_BINUNICODE, (uint32_t)out);
    if (clean) {
        emit(w, s, len);
        return;
    }
    const uint8_t *u = (const uint8_t *)s;
    for (size_t i = 0; i < len;) {
        fr_char c;
        size_t used = fr_text_next(u + i, len - i, &c);
        uint8_t b[4];
        if (c.kind == FR_CH_NUL)
            emit(w, "", 1);
        else if (c.kind == FR_CH_BAD_BYTE)
            emit(w, b, fr_utf8_put(b, 0xDC00 | c.cp));
        else
            emit(w, u + i, used);
        i += used;
    }
}

void pw_str(pw_writer *w, const char *s, size_t len) {
    if (w->failed) return;
    if (len > UINT32_MAX) {
        fail(w);
        return;
    }
    uint64_t h = hash_bytes(s, len);
    pw_memo_slot *slot = NULL;
    if (w->memo_cap) {
        slot = memo_find(w->memo, w->memo_cap, s, (uint32_t)len, h);
        if (slot->str) {
            emit_get(w, slot->id);
            return;
        }
    }
    emit_unicode(w, s, len);
    if (!slot || !memo_has_room(w)) { /* full fixed table: a fresh id, not remembered */
        emit_put(w);
        return;
    }
    if (w->failed) return;
    /* the table may have grown: look the slot up again */
    slot = memo_find(w->memo, w->memo_cap, s, (uint32_t)len, h);
    slot->str = s;
    slot->len = (uint32_t)len;
    slot->hash = h;
    slot->id = emit_put(w);
    w->memo_used++;
}

void pw_cstr(pw_writer *w, const char *s) { pw_str(w, s, strlen(s)); }

void pw_str_transient(pw_writer *w, const char *s, size_t len) {
    if (w->failed) return;
    if (len > UINT32_MAX) {
        fail(w);
        return;
    }
    if (w->memo_cap) {
        pw_memo_slot *slot = memo_find(w->memo, w->memo_cap, s, (uint32_t)len, hash_bytes(s, len));
        if (slot->str) {
            emit_get(w, slot->id);
            return;
        }
    }
    emit_unicode(w, s, len);
    emit_put(w);
}

void pw_int(pw_writer *w, int64_t v) {
    if (v >= 0 && v <= 0xff) {
        uint8_t b[2] = { OP_BININT1, (uint8_t)v };
        emit(w, b, 2);
    } else if (v >= 0 && v <= 0xffff) {
        uint8_t b[3] = { OP_BININT2, (uint8_t)v, (uint8_t)(v >> 8) };
        emit(w, b, 3);
    } else if (v >= INT32_MIN && v <= INT32_MAX) {
        emit_u32le(w, OP_BININT, (uint32_t)(int32_t)v);
    } else {
        uint64_t u = (uint64_t)v;
        uint8_t b[10] = { OP_LONG1, 8 };
        for (int i = 0; i < 8; i++) b[2 + i] = (uint8_t)(u >> (8 * i));
        emit(w, b, sizeof b);
    }
}

void pw_float(pw_writer *w, double v) {
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    uint8_t b[9] = { OP_BINFLOAT };
    for (int i = 0; i < 8; i++) b[1 + i] = (uint8_t)(bits >> (56 - 8 * i));
    emit(w, b, sizeof b);
}

void pw_bool(pw_writer *w, bool v) { emit_op(w, v ? OP_NEWTRUE : OP_NEWFALSE); }
void pw_none(pw_writer *w) { emit_op(w, OP_NONE); }

uint32_t pw_put(pw_writer *w) { return emit_put(w); }
void pw_get(pw_writer *w, uint32_t id) { emit_get(w, id); }
