/* pickle_read.c — the pickle machine (see pickle_read.h for what it accepts).
 *
 * The machine is Python's Unpickler, minus everything that runs code: an object stack, a stack
 * of MARK positions, and a memo. As in CPython's C unpickler the newest MARK is a fence: an
 * opcode may only pop items pushed after it, so "MARK TUPLE2" underflows even when older items
 * lie below the mark.
 *
 * Hostile input is the design case:
 *  - every read goes through need(), which checks the bytes left before touching them;
 *    running out is "truncated" (salvageable), everything else is an error;
 *  - length fields are compared with the bytes left before anything is allocated, so a string
 *    claiming 4 GB in a 100-byte file costs nothing;
 *  - memory is the arena's growth plus the VM's own stacks, checked against max_memory after
 *    every opcode (the stacks' share is kept up to date when they grow, and the arena's count
 *    is read in place, so the check is a few instructions);
 *  - the memo (pickle_memo.h) is an array while ids come the way writers number them (0, 1,
 *    2, ...) and a hash map from the first id that does not fit on, so PUT 3000000 costs one
 *    slot; it never holds more memory than the map alone would. An id whose slot Python's own
 * array-based memo could not allocate within the memory budget (PUT 4000000000) is an error, as it
 * is there;
 *  - a FRAME longer than the bytes left is truncation, as in Python (a hint we otherwise skip);
 *  - arithmetic on sizes is done in uint64_t with explicit bounds, shifts only on unsigned types.
 *
 * Strings must be UTF-8 as Python's pickle decodes them: 'surrogatepass', so the UTF-8 encoding
 * of a lone surrogate (ED A0..BF xx) is accepted and kept as is. Protocol-0 UNICODE lines use
 * raw-unicode-escape; py2 STRING/BINSTRING are accepted when ASCII, as Python 3's default
 * encoding='ASCII' does. The text rules themselves are pickle_text.c's; this file says which
 * opcode and byte a rejected text belongs to.
 */
#include "pickle_read.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pickle_memo.h"
#include "pickle_opcodes.h"
#include "pickle_text.h"
#include "grow.h"

/* --- opcode names -------------------------------------------------------------------------- */

static const char *const opcode_names[256] = {
#define OPCODE_NAME(name, byte) [byte] = #name,
    FR_PICKLE_OPCODES(OPCODE_NAME)
#undef OPCODE_NAME
};

const char *pickle_opcode_name(uint8_t op) { return opcode_names[op]; }

/* Opcodes that import, call or look up code: the reason pickles are dangerous. */
static bool opcode_runs_code(uint8_t op) {
    switch (op) {
    case OP_GLOBAL:
    case OP_STACK_GLOBAL:
    case OP_REDUCE:
    case OP_BUILD:
    case OP_INST:
    case OP_OBJ:
    case OP_NEWOBJ:
    case OP_NEWOBJ_EX:
    case OP_PERSID:
    case OP_BINPERSID:
    case OP_EXT1:
    case OP_EXT2:
    case OP_EXT4: return true;
    default: return false;
    }
}

/* --- the machine ------------------------------------------------------------------------------ */

enum { R_OK = 0, R_ERROR = -1, R_TRUNCATED = -2 };

typedef struct vm {
    const uint8_t *buf;
    size_t len, pos;
    size_t op_pos; /* where the current opcode starts */
    uint8_t op;

    fv_arena *arena;
    const size_t *arena_used; /* the arena's live count (fv_arena_used_counter) */
    size_t arena_start;
    size_t max_memory;
    size_t own_bytes; /* the stacks and the memo, updated whenever one of them grows */

    fv **stack;
    size_t sp, stack_cap;
    size_t *marks;
    size_t nmarks, marks_cap;
    uint32_t max_marks;
    uint64_t marks_pushed; /* ever, to tell whether a container got its MARK */
    memo_map memo;

    fv *last_empty;            /* the newest EMPTY_LIST/EMPTY_DICT ... */
    uint64_t last_empty_marks; /* ... and marks_pushed when it was made */

    fr_error *err;
} vm;

static const char *op_name(const vm *m) {
    const char *n = opcode_names[m->op];
    return n ? n : "?";
}

static int truncated(vm *m, uint64_t wanted) {
    fr_fail(m->err, "truncated pickle at byte %zu (%s at byte %zu needs %" PRIu64 " more bytes)",
            m->len, op_name(m), m->op_pos, wanted);
    return R_TRUNCATED;
}

static int out_of_memory(vm *m) {
    return fr_fail(m->err, "pickle needs more than %zu bytes of memory (at %s, byte %zu)",
                   m->max_memory, op_name(m), m->op_pos);
}

/* Bytes the reader holds: arena growth plus its own stacks and memo. Checked after every
 * opcode, so the part that rarely changes is kept up to date by account() instead of being
 * summed each time. */
static void account(vm *m) {
    m->own_bytes = m->stack_cap * sizeof *m->stack + m->marks_cap * sizeof *m->marks +
                   pickle_memo_bytes(&m->memo);
}

static size_t memory_used(const vm *m) { return (*m->arena_used - m->arena_start) + m->own_bytes; }

static bool need(const vm *m, uint64_t n) { return n <= (uint64_t)(m->len - m->pos); }

static const uint8_t *take(vm *m, size_t n) {
    const uint8_t *p = m->buf + m->pos;
    m->pos += n;
    return p;
}

static inline __attribute__((always_inline)) uint64_t load_le(const uint8_t *p, unsigned n) {
    switch (n) { /* the argument sizes opcodes have, spelled out: this runs for most opcodes */
    case 1: return p[0];
    case 2: return (uint64_t)p[0] | (uint64_t)p[1] << 8;
    case 4:
        return (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 | (uint64_t)p[3] << 24;
    default: {
        uint64_t v = 0;
        for (unsigned i = 0; i < n; i++) v |= (uint64_t)p[i] << (8 * i);
        return v;
    }
    }
}

/* A text argument: bytes up to the next '\n' (excluded). Missing newline = truncated. */
static int read_line(vm *m, const char **text, size_t *n) {
    const uint8_t *start = m->buf + m->pos;
    const uint8_t *nl = memchr(start, '\n', m->len - m->pos);
    if (!nl) return truncated(m, 1);
    *text = (const char *)start;
    *n = (size_t)(nl - start);
    m->pos += *n + 1;
    return R_OK;
}

/* --- the stacks ------------------------------------------------------------------------------- */

static size_t fence(const vm *m) { return m->nmarks ? m->marks[m->nmarks - 1] : 0; }

static int grow_stack(vm *m) {
    if (fr_grow((void **)&m->stack, &m->stack_cap, m->sp + 1, sizeof *m->stack, 256))
        return out_of_memory(m);
    account(m);
    return R_OK;
}

/* Inlined into every opcode that makes a value: the common case is two tests and a store. */
static inline int push(vm *m, fv *v) {
    if (!v) return out_of_memory(m);
    if (m->sp == m->stack_cap) {
        int rc = grow_stack(m);
        if (rc) return rc;
    }
    m->stack[m->sp++] = v;
    return R_OK;
}

static int underflow(vm *m) {
    return fr_fail(m->err, "stack underflow: %s at byte %zu needs more items than there are",
                   op_name(m), m->op_pos);
}

static int pop(vm *m, fv **v) {
    if (m->sp <= fence(m)) return underflow(m);
    *v = m->stack[--m->sp];
    return R_OK;
}

static int top(vm *m, fv **v) {
    if (m->sp <= fence(m)) return underflow(m);
    *v = m->stack[m->sp - 1];
    return R_OK;
}

static int push_mark(vm *m) {
    if (m->nmarks >= m->max_marks)
        return fr_fail(m->err, "MARK nesting deeper than %" PRIu32 " at byte %zu", m->max_marks,
                       m->op_pos);
    if (m->nmarks == m->marks_cap) {
        if (fr_grow((void **)&m->marks, &m->marks_cap, m->nmarks + 1, sizeof *m->marks, 64))
            return out_of_memory(m);
        account(m);
    }
    m->marks[m->nmarks++] = m->sp;
    m->marks_pushed++;
    return R_OK;
}

/* Removes the newest MARK; the items after it are stack[*start .. sp). */
static int pop_mark(vm *m, size_t *start) {
    if (!m->nmarks) return fr_fail(m->err, "%s at byte %zu without a MARK", op_name(m), m->op_pos);
    *start = m->marks[--m->nmarks];
    return R_OK;
}

/* --- building values -------------------------------------------------------------------------- */

/* A list or tuple holding exactly `n` items. */
static fv *make_seq(vm *m, fv_kind kind, fv *const *items, size_t n) {
    if (n > UINT32_MAX / 2) return NULL;
    fv *v = kind == FV_TUPLE ? fv_tuple(m->arena) : fv_list(m->arena);
    if (!v || n == 0) return v;
    fv **slots = fv_arena_alloc(m->arena, n * sizeof *slots);
    if (!slots) return NULL;
    memcpy(slots, items, n * sizeof *slots);
    v->u.seq.items = slots;
    v->u.seq.cap = (uint32_t)n;
    v->len = (uint32_t)n;
    return v;
}

static bool unhashable(const fv *key) { return key->kind == FV_LIST || key->kind == FV_DICT; }

static int not_a(vm *m, const char *wanted, const fv *got) {
    return fr_fail(m->err, "%s at byte %zu expects a %s below its items, found a %s", op_name(m),
                   m->op_pos, wanted, fv_kind_name(got->kind));
}

/* Adds items[0..n) to `target` (a list, or a dict taking them as key/value pairs). */
static int extend_list(vm *m, fv *list, fv *const *items, size_t n) {
    if (!fv_is(list, FV_LIST)) return not_a(m, "list", list);
    if (!fv_seq_extend(m->arena, list, items, n)) return out_of_memory(m);
    return R_OK;
}

/* The pairs go in in order; the first unhashable key stops them with its error, as it would
 * stop Python, unless memory ran out before. */
static int update_dict(vm *m, fv *dict, fv *const *items, size_t n) {
    if (!fv_is(dict, FV_DICT)) return not_a(m, "dict", dict);
    if (n % 2)
        return fr_fail(m->err, "odd number of items for %s at byte %zu", op_name(m), m->op_pos);
    bool failed;
    size_t done = fv_dict_update(m->arena, dict, items, n / 2, &failed);
    if (failed) return out_of_memory(m);
    if (done < n / 2) {
        const fv *key = items[2 * done];
        return fr_fail(m->err, "unhashable %s used as a dict key (%s at byte %zu)",
                       fv_kind_name(key->kind), op_name(m), m->op_pos);
    }
    return R_OK;
}

/* --- strings ---------------------------------------------------------------------------------- */

/* A node for bytes already in the arena (no copy). */
static fv *str_node(vm *m, const char *bytes, size_t n) {
    fv *v = fv_str(m->arena, "", 0);
    if (!v) return NULL;
    v->u.s = bytes;
    v->len = (uint32_t)n;
    return v;
}

/* BINUNICODE & co.: `n` bytes of UTF-8 follow. */
static int load_utf8(vm *m, uint64_t n) {
    if (!need(m, n)) return truncated(m, n - (m->len - m->pos));
    if (n >= UINT32_MAX)
        return fr_fail(m->err, "string of %" PRIu64 " bytes at byte %zu is too long", n, m->op_pos);
    const uint8_t *p = take(m, (size_t)n);
    size_t bad = pickle_utf8_invalid_at(p, (size_t)n);
    if (bad != n)
        return fr_fail(m->err, "invalid UTF-8 in %s at byte %zu (string at byte %zu)", op_name(m),
                       (size_t)(p - m->buf) + bad, m->op_pos);
    return push(m, fv_str(m->arena, (const char *)p, (size_t)n));
}

/* py2 str (STRING, BINSTRING, SHORT_BINSTRING): ASCII only, as encoding='ASCII' decodes it. */
static int push_ascii(vm *m, const char *bytes, size_t n) {
    for (size_t i = 0; i < n; i++)
        if ((uint8_t)bytes[i] >= 0x80)
            return fr_fail(m->err, "non-ASCII byte in py2 string (%s at byte %zu)", op_name(m),
                           m->op_pos);
    return push(m, fv_str(m->arena, bytes, n));
}

/* UNICODE (protocol 0): raw-unicode-escape. */
static int load_raw_unicode(vm *m, const char *s, size_t n) {
    if (n > (UINT32_MAX - 1) / 2)
        return fr_fail(m->err, "string at byte %zu is too long", m->op_pos);
    char *out = fv_arena_alloc(m->arena, 2 * n + 1);
    if (!out) return out_of_memory(m);
    size_t o = 0;
    char letter = 'u';
    switch (pickle_raw_unicode(s, n, out, &o, &letter)) {
    case PT_OK: break;
    case PT_TRUNCATED_ESCAPE:
        return fr_fail(m->err, "truncated \\%c escape in UNICODE at byte %zu", letter, m->op_pos);
    case PT_BAD_ESCAPE:
        return fr_fail(m->err, "bad \\%c escape in UNICODE at byte %zu", letter, m->op_pos);
    default: return fr_fail(m->err, "\\U escape beyond U+10FFFF in UNICODE at byte %zu", m->op_pos);
    }
    return push(m, str_node(m, out, o));
}

/* STRING (protocol 0): a quoted Python bytes literal, decoded like codecs.escape_decode. */
static int load_quoted_string(vm *m, const char *s, size_t n) {
    if (n < 2 || s[0] != s[n - 1] || (s[0] != '\'' && s[0] != '"'))
        return fr_fail(m->err, "the STRING argument at byte %zu must be quoted", m->op_pos);
    char *out = malloc(n - 2 + 1);
    if (!out) return out_of_memory(m);
    size_t o = 0;
    int rc;
    switch (pickle_escape_decode(s + 1, n - 2, out, &o)) {
    case PT_OK: rc = push_ascii(m, out, o); break;
    case PT_TRAILING_BACKSLASH:
        rc = fr_fail(m->err, "trailing \\ in STRING at byte %zu", m->op_pos);
        break;
    default: rc = fr_fail(m->err, "invalid \\x escape in STRING at byte %zu", m->op_pos); break;
    }
    free(out);
    return rc;
}

/* --- numbers ---------------------------------------------------------------------------------- */

static int push_text_int(vm *m, const char *s, size_t n, bool trailing_l) {
    int64_t v;
    int rc = pickle_parse_decimal(s, n, trailing_l, &v);
    if (rc == -2)
        return fr_fail(m->err, "integer beyond 64 bits in %s at byte %zu", op_name(m), m->op_pos);
    if (rc) return fr_fail(m->err, "bad integer literal in %s at byte %zu", op_name(m), m->op_pos);
    return push(m, fv_int(m->arena, v));
}

/* LONG1/LONG4: little-endian two's complement of n bytes; must fit int64. */
static int load_long_bytes(vm *m, uint64_t n) {
    if (!need(m, n)) return truncated(m, n - (m->len - m->pos));
    const uint8_t *p = take(m, (size_t)n);
    if (n == 0) return push(m, fv_int(m->arena, 0));
    bool negative = p[n - 1] & 0x80;
    if (n > 8) { /* fits only when the extra bytes merely extend byte 7's sign */
        uint8_t extension = (p[7] & 0x80) ? 0xFF : 0x00;
        for (uint64_t i = 8; i < n; i++)
            if (p[i] != extension)
                return fr_fail(m->err, "integer beyond 64 bits in %s at byte %zu", op_name(m),
                               m->op_pos);
    }
    unsigned used = n < 8 ? (unsigned)n : 8;
    uint64_t v = load_le(p, used);
    if (negative && used < 8) v |= ~(uint64_t)0 << (8 * used);
    int64_t i64;
    memcpy(&i64, &v, sizeof i64);
    return push(m, fv_int(m->arena, i64));
}

/* FLOAT (protocol 0): Python's repr of a float, e.g. "1.5", "1e+16", "inf", "nan". */
static int load_text_float(vm *m, const char *s, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (s[i] == 'x' || s[i] == 'X' || s[i] == '(' || s[i] == '\0')
            return fr_fail(m->err, "bad float literal in FLOAT at byte %zu", m->op_pos);
    char small[64];
    char *text = n < sizeof small ? small : malloc(n + 1);
    if (!text) return out_of_memory(m);
    memcpy(text, s, n);
    text[n] = '\0';
    char *end;
    double d = strtod(text, &end);
    bool ok = n > 0 && end == text + n;
    if (text != small) free(text);
    if (!ok) return fr_fail(m->err, "bad float literal in FLOAT at byte %zu", m->op_pos);
    return push(m, fv_float(m->arena, d));
}

/* --- memo ------------------------------------------------------------------------------------- */

/* Python's unpickler keeps the memo as an array of twice the highest id, 8 bytes a slot, so an id
 * whose array would not fit this pickle's memory budget is one it fails on too (MemoryError). */
static int memo_store(vm *m, uint64_t id) {
    if (id > m->max_memory / 16)
        return fr_fail(m->err,
                       "memo id %" PRIu64
                       " out of range (%s at byte %zu): a memo that large would take more "
                       "than the %zu bytes this %zu-byte pickle may use",
                       id, op_name(m), m->op_pos, m->max_memory, m->len);
    fv *v = NULL;
    int rc = top(m, &v);
    if (rc) return rc;
    if (!pickle_memo_put(&m->memo, id, v)) return out_of_memory(m);
    account(m);
    return R_OK;
}

static int memo_missing(vm *m, uint64_t id) {
    return fr_fail(m->err, "memo id %" PRIu64 " not found (%s at byte %zu)", id, op_name(m),
                   m->op_pos);
}

static inline int memo_fetch(vm *m, uint64_t id) {
    fv *v = pickle_memo_get(&m->memo, id);
    return v ? push(m, v) : memo_missing(m, id);
}

static int text_memo_id(vm *m, const char *s, size_t n, uint64_t *id) {
    int64_t v;
    if (pickle_parse_decimal(s, n, false, &v) || v < 0)
        return fr_fail(m->err, "bad memo id in %s at byte %zu", op_name(m), m->op_pos);
    *id = (uint64_t)v;
    return R_OK;
}

/* --- one opcode ------------------------------------------------------------------------------- */

/* Fixed-size argument of `n` bytes, little-endian. */
static inline __attribute__((always_inline)) int arg_le(vm *m, unsigned n, uint64_t *v) {
    if (!need(m, n)) return truncated(m, n - (m->len - m->pos));
    *v = load_le(take(m, n), n);
    return R_OK;
}

/* FRAME: a hint for buffered readers, as we hold the whole input; but a frame longer than the
 * bytes left is truncation, as Python's reader says ("pickle data was truncated"). */
static int op_frame(vm *m) {
    uint64_t a = 0;
    int rc = arg_le(m, 8, &a);
    if (rc) return rc;
    if (a > m->len - m->pos) return truncated(m, a - (m->len - m->pos));
    return R_OK;
}

static int refuse(vm *m) {
    const char *name = opcode_names[m->op];
    if (!name)
        return fr_fail(m->err, "unknown opcode 0x%02x at byte %zu: not a pickle, or a corrupt one",
                       m->op, m->op_pos);
    if (opcode_runs_code(m->op))
        return fr_fail(
            m->err,
            "refusing opcode %s (0x%02x) at byte %zu: pickles that import code are never loaded",
            name, m->op, m->op_pos);
    return fr_fail(
        m->err,
        "unsupported opcode %s (0x%02x) at byte %zu: only plain data (dict, list, tuple, str, "
        "int, float, bool, None) is read",
        name, m->op, m->op_pos);
}

static int op_tuple_n(vm *m, size_t n) {
    if (m->sp - fence(m) < n) return underflow(m);
    fv *t = make_seq(m, FV_TUPLE, m->stack + m->sp - n, n);
    m->sp -= n;
    return push(m, t);
}

static int op_from_mark(vm *m, fv_kind kind) {
    size_t start = 0;
    int rc = pop_mark(m, &start);
    if (rc) return rc;
    size_t n = m->sp - start;
    m->sp = start;
    if (kind != FV_DICT) return push(m, make_seq(m, kind, m->stack + start, n));
    fv *d = fv_dict(m->arena);
    if (!d) return out_of_memory(m);
    rc = update_dict(m, d, m->stack + start, n);
    return rc ? rc : push(m, d);
}

/* APPENDS / SETITEMS: the items after the newest MARK go into the container below it. */
static int op_fill_from_mark(vm *m, bool into_dict) {
    size_t start = 0;
    int rc = pop_mark(m, &start);
    if (rc) return rc;
    if (start <= fence(m) || start == 0) return underflow(m);
    fv *target = m->stack[start - 1];
    size_t n = m->sp - start;
    m->sp = start;
    return into_dict ? update_dict(m, target, m->stack + start, n)
                     : extend_list(m, target, m->stack + start, n);
}

static int op_append(vm *m) {
    fv *v = NULL, *list = NULL;
    int rc = pop(m, &v);
    if (!rc) rc = top(m, &list);
    return rc ? rc : extend_list(m, list, &v, 1);
}

static int op_setitem(vm *m) {
    fv *kv[2] = { NULL, NULL }, *dict = NULL;
    int rc = pop(m, &kv[1]);
    if (!rc) rc = pop(m, &kv[0]);
    if (!rc) rc = top(m, &dict);
    return rc ? rc : update_dict(m, dict, kv, 2);
}

static int op_pop(vm *m) {
    if (m->nmarks &&
        m->marks[m->nmarks - 1] == m->sp) { /* as CPython: POP on an empty frame drops the MARK */
        m->nmarks--;
        return R_OK;
    }
    fv *v = NULL;
    return pop(m, &v);
}

static int op_empty(vm *m, fv *v) {
    m->last_empty = v;
    m->last_empty_marks = m->marks_pushed;
    return push(m, v);
}

static int op_stop(vm *m) {
    if (m->nmarks)
        return fr_fail(m->err, "STOP at byte %zu with %zu MARKs still open", m->op_pos, m->nmarks);
    if (m->sp != 1)
        return fr_fail(m->err, "STOP at byte %zu with %zu items on the stack instead of 1",
                       m->op_pos, m->sp);
    if (m->pos != m->len)
        return fr_fail(m->err, "trailing data after STOP: %zu bytes at byte %zu", m->len - m->pos,
                       m->pos);
    return R_OK;
}

/* Text-argument opcodes of protocol 0. */
static int op_text(vm *m) {
    const char *s;
    size_t n;
    int rc = read_line(m, &s, &n);
    if (rc) return rc;
    uint64_t id = 0;
    switch (m->op) {
    case OP_INT:
        if (n == 2 && s[0] == '0' && (s[1] == '0' || s[1] == '1'))
            return push(m, fv_bool(m->arena, s[1] == '1'));
        return push_text_int(m, s, n, false);
    case OP_LONG: return push_text_int(m, s, n, true);
    case OP_FLOAT: return load_text_float(m, s, n);
    case OP_UNICODE: return load_raw_unicode(m, s, n);
    case OP_STRING: return load_quoted_string(m, s, n);
    case OP_PUT: return (rc = text_memo_id(m, s, n, &id)) ? rc : memo_store(m, id);
    case OP_GET: return (rc = text_memo_id(m, s, n, &id)) ? rc : memo_fetch(m, id);
    default: return refuse(m);
    }
}

static int step(vm *m) {
    uint64_t a = 0;
    int rc;
    fv *v = NULL;
    switch (m->op) {
    case OP_PROTO:
        if ((rc = arg_le(m, 1, &a))) return rc;
        if (a > 5)
            return fr_fail(m->err, "unsupported pickle protocol %" PRIu64 " at byte %zu", a,
                           m->op_pos);
        return R_OK;
    case OP_FRAME: return op_frame(m);
    case OP_STOP: return op_stop(m);
    case OP_MARK: return push_mark(m);
    case OP_POP: return op_pop(m);
    case OP_POP_MARK: {
        size_t start = 0;
        if ((rc = pop_mark(m, &start))) return rc;
        m->sp = start;
        return R_OK;
    }
    case OP_DUP: return (rc = top(m, &v)) ? rc : push(m, v);
    case OP_EMPTY_DICT: return op_empty(m, fv_dict(m->arena));
    case OP_EMPTY_LIST: return op_empty(m, fv_list(m->arena));
    case OP_EMPTY_TUPLE: return push(m, fv_tuple(m->arena));
    case OP_DICT: return op_from_mark(m, FV_DICT);
    case OP_LIST: return op_from_mark(m, FV_LIST);
    case OP_TUPLE: return op_from_mark(m, FV_TUPLE);
    case OP_TUPLE1: return op_tuple_n(m, 1);
    case OP_TUPLE2: return op_tuple_n(m, 2);
    case OP_TUPLE3: return op_tuple_n(m, 3);
    case OP_SETITEM: return op_setitem(m);
    case OP_SETITEMS: return op_fill_from_mark(m, true);
    case OP_APPEND: return op_append(m);
    case OP_APPENDS: return op_fill_from_mark(m, false);
    case OP_BINUNICODE: return (rc = arg_le(m, 4, &a)) ? rc : load_utf8(m, a);
    case OP_SHORT_BINUNICODE: return (rc = arg_le(m, 1, &a)) ? rc : load_utf8(m, a);
    case OP_BINUNICODE8: return (rc = arg_le(m, 8, &a)) ? rc : load_utf8(m, a);
    case OP_BINSTRING: /* BINSTRING: signed 32-bit length */
        if ((rc = arg_le(m, 4, &a))) return rc;
        if (a & 0x80000000u)
            return fr_fail(m->err, "BINSTRING at byte %zu has a negative length", m->op_pos);
        /* fall through */
    case OP_SHORT_BINSTRING:
        if (m->op == OP_SHORT_BINSTRING && (rc = arg_le(m, 1, &a))) return rc;
        if (!need(m, a)) return truncated(m, a - (m->len - m->pos));
        return push_ascii(m, (const char *)take(m, (size_t)a), (size_t)a);
    case OP_BININT: {
        if ((rc = arg_le(m, 4, &a))) return rc;
        int32_t i32;
        uint32_t u32 = (uint32_t)a;
        memcpy(&i32, &u32, sizeof i32);
        return push(m, fv_int(m->arena, i32));
    }
    case OP_BININT1: return (rc = arg_le(m, 1, &a)) ? rc : push(m, fv_int(m->arena, (int64_t)a));
    case OP_BININT2: return (rc = arg_le(m, 2, &a)) ? rc : push(m, fv_int(m->arena, (int64_t)a));
    case OP_LONG1: return (rc = arg_le(m, 1, &a)) ? rc : load_long_bytes(m, a);
    case OP_LONG4:
        if ((rc = arg_le(m, 4, &a))) return rc;
        if (a & 0x80000000u)
            return fr_fail(m->err, "LONG4 at byte %zu has a negative length", m->op_pos);
        return load_long_bytes(m, a);
    case OP_BINFLOAT: {
        if (!need(m, 8)) return truncated(m, 8 - (m->len - m->pos));
        const uint8_t *p = take(m, 8);
        uint64_t bits = 0;
        for (int i = 0; i < 8; i++) bits = bits << 8 | p[i];
        double d;
        memcpy(&d, &bits, sizeof d);
        return push(m, fv_float(m->arena, d));
    }
    case OP_NONE: return push(m, fv_none(m->arena));
    case OP_NEWTRUE: return push(m, fv_bool(m->arena, true));
    case OP_NEWFALSE: return push(m, fv_bool(m->arena, false));
    case OP_BINPUT: return (rc = arg_le(m, 1, &a)) ? rc : memo_store(m, a);
    case OP_LONG_BINPUT: return (rc = arg_le(m, 4, &a)) ? rc : memo_store(m, a);
    case OP_MEMOIZE: return memo_store(m, m->memo.count);
    case OP_BINGET: return (rc = arg_le(m, 1, &a)) ? rc : memo_fetch(m, a);
    case OP_LONG_BINGET: return (rc = arg_le(m, 4, &a)) ? rc : memo_fetch(m, a);
    case OP_INT:
    case OP_LONG:
    case OP_FLOAT:
    case OP_UNICODE:
    case OP_STRING:
    case OP_PUT:
    case OP_GET: return op_text(m);
    default: return refuse(m);
    }
}

/* --- salvage ---------------------------------------------------------------------------------- */

/* Closes every open MARK from the top down: its items go into the container below it (a list
 * takes them all, a dict takes whole pairs), which is flagged truncated. Items whose MARK has
 * no list or dict below become a flagged tuple. A list or dict made after the newest MARK is
 * flagged too: its own MARK had not been read yet, so it may well miss items. */
static int salvage(vm *m) {
    if (m->last_empty && m->last_empty_marks == m->marks_pushed)
        m->last_empty->flags |= FV_FLAG_TRUNCATED;
    while (m->nmarks) {
        size_t start = m->marks[--m->nmarks];
        size_t n = m->sp - start;
        fv *below = start > fence(m) ? m->stack[start - 1] : NULL;
        fv **items = m->stack + start;
        m->sp = start;
        if (fv_is(below, FV_LIST)) {
            for (size_t i = 0; i < n; i++)
                if (!fv_seq_push(m->arena, below, items[i])) return out_of_memory(m);
            below->flags |= FV_FLAG_TRUNCATED;
        } else if (fv_is(below, FV_DICT)) {
            for (size_t i = 0; i + 1 < n; i += 2) {
                if (unhashable(items[i])) continue;
                if (!fv_dict_set(m->arena, below, items[i], items[i + 1])) return out_of_memory(m);
            }
            below->flags |= FV_FLAG_TRUNCATED;
        } else {
            fv *t = make_seq(m, FV_TUPLE, items, n);
            if (!t) return out_of_memory(m);
            t->flags |= FV_FLAG_TRUNCATED;
            int rc = push(m, t);
            if (rc) return rc;
        }
    }
    return m->sp ? R_OK : R_ERROR;
}

/* --- entry point ------------------------------------------------------------------------------ */

static size_t default_memory(size_t len) {
    size_t base = (size_t)64 << 20;
    if (len > (SIZE_MAX - base) / 32) return SIZE_MAX;
    return base + 32 * len;
}

/* The opcode loop. The hot opcodes of a Flight Recorder dump (BINGET, MARK, the small ints,
 * EMPTY_LIST/EMPTY_DICT, NONE and the booleans: ~80% of them) run inline on local copies of
 * `pos` and `sp`, since going through the machine struct costs loads and stores per opcode
 * that the compiler cannot keep in registers across step()'s calls. A fast case either
 * completes (its bytes are there, the memo hit is in the array, the stack has room) or
 * changes nothing and lets step() do the opcode from its start, so every error, truncation and
 * growth path is step()'s, exactly as before; the locals are written back before step() runs
 * and read again after. The memory check after an opcode is skipped only after fast cases that
 * allocate nothing (the count it compares is then what it was at the last check). */
static int run(vm *m) {
    const uint8_t *const buf = m->buf;
    const size_t len = m->len;
    size_t pos = m->pos, sp = m->sp;
    fv **stack = m->stack;
    size_t stack_cap = m->stack_cap;
    int rc;
    while (pos < len) {
        size_t op_pos = pos;
        uint8_t op = buf[pos++];
        fv *v;
        switch (op) {
        case OP_BINGET:
            if (pos < len && sp < stack_cap && buf[pos] < m->memo.dense_cap &&
                (v = m->memo.dense[buf[pos]])) {
                stack[sp++] = v;
                pos++;
                continue;
            }
            break;
        case OP_MARK:
            if (m->nmarks < m->max_marks && m->nmarks < m->marks_cap) {
                m->marks[m->nmarks++] = sp;
                m->marks_pushed++;
                continue;
            }
            break;
        case OP_BININT1:
            if (pos < len && sp < stack_cap) {
                v = fv_int(m->arena, buf[pos]);
                pos++;
                goto pushed;
            }
            break;
        case OP_BININT2:
            if (len - pos >= 2 && sp < stack_cap) {
                v = fv_int(m->arena, (int64_t)load_le(buf + pos, 2));
                pos += 2;
                goto pushed;
            }
            break;
        case OP_BININT:
            if (len - pos >= 4 && sp < stack_cap) {
                uint32_t u32 = (uint32_t)load_le(buf + pos, 4);
                int32_t i32;
                memcpy(&i32, &u32, sizeof i32);
                v = fv_int(m->arena, i32);
                pos += 4;
                goto pushed;
            }
            break;
        case OP_LONG1: /* LONG1 of 1 to 8 bytes (the common time stamps) */
            if (len - pos >= 1 && buf[pos] >= 1 && buf[pos] <= 8 && len - pos - 1 >= buf[pos] &&
                sp < stack_cap) {
                unsigned n = buf[pos];
                uint64_t u = load_le(buf + pos + 1, n);
                if (n < 8 && (buf[pos + n] & 0x80)) u |= ~(uint64_t)0 << (8 * n);
                int64_t i64;
                memcpy(&i64, &u, sizeof i64);
                v = fv_int(m->arena, i64);
                pos += 1 + n;
                goto pushed;
            }
            break;
        case OP_EMPTY_LIST:
        case OP_EMPTY_DICT:
            if (sp < stack_cap) {
                v = op == OP_EMPTY_LIST ? fv_list(m->arena) : fv_dict(m->arena);
                if (v) {
                    m->last_empty = v;
                    m->last_empty_marks = m->marks_pushed;
                }
                goto pushed;
            }
            break;
        case OP_NONE:
            if (sp < stack_cap) {
                v = fv_none(m->arena);
                goto pushed;
            }
            break;
        case OP_NEWTRUE:
        case OP_NEWFALSE:
            if (sp < stack_cap) {
                v = fv_bool(m->arena, op == OP_NEWTRUE);
                goto pushed;
            }
            break;
        default: break;
        }
        /* everything else, and a fast case that could not complete: step() from the start */
        m->pos = pos = op_pos + 1;
        m->sp = sp;
        m->op_pos = op_pos;
        m->op = op;
        rc = step(m);
        pos = m->pos;
        sp = m->sp;
        stack = m->stack;
        stack_cap = m->stack_cap;
        if (rc) return rc;
        if (op == OP_STOP) return R_OK;
        goto check;
    pushed:
        if (!v) {
            m->pos = pos;
            m->sp = sp;
            m->op_pos = op_pos;
            m->op = op;
            return out_of_memory(m);
        }
        stack[sp++] = v;
    check:
        if (memory_used(m) > m->max_memory) {
            m->pos = pos;
            m->sp = sp;
            m->op_pos = op_pos;
            m->op = op;
            return out_of_memory(m);
        }
    }
    m->pos = pos;
    m->sp = sp;
    m->op_pos = m->pos;
    m->op = OP_STOP;
    fr_fail(m->err, "truncated pickle at byte %zu (no STOP)", m->len);
    return R_TRUNCATED;
}

int pickle_read(const uint8_t *buf, size_t len, fv_arena *arena, const pr_options *opts, fv **out,
                fr_error *err) {
    pr_options defaults = { 0 };
    if (!opts) opts = &defaults;
    *out = NULL;
    fr_clear(err);
    vm m = {
        .buf = buf,
        .len = buf ? len : 0,
        .arena = arena,
        .arena_used = fv_arena_used_counter(arena),
        .arena_start = fv_arena_used(arena),
        .max_memory = opts->max_memory ? opts->max_memory : default_memory(len),
        .max_marks = opts->max_mark_depth ? opts->max_mark_depth : 10000,
        .err = err,
    };
    int result;
    m.stack = malloc(256 * sizeof *m.stack); /* never NULL below: `stack + 0` must be valid */
    m.stack_cap = m.stack ? 256 : 0;
    account(&m);
    if (!m.stack) {
        fr_fail(err, "out of memory");
        result = -1;
    } else if (m.len == 0) {
        fr_fail(err, "empty pickle");
        result = -1;
    } else {
        int rc = run(&m);
        if (rc == R_OK) {
            *out = m.stack[0];
            result = 0;
        } else if (rc == R_TRUNCATED && opts->salvage) {
            fr_error why = *err;
            if (salvage(&m) == R_OK) {
                *out = m.stack[0];
                *err = why;
                result = 1;
            } else {
                if (m.sp == 0) fr_fail(err, "%.400s, nothing to salvage", why.msg);
                result = -1;
            }
        } else {
            result = -1;
        }
    }
    free(m.stack);
    free(m.marks);
    free(m.memo.dense);
    free(m.memo.ids);
    free(m.memo.nodes);
    return result;
}
