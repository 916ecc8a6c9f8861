/* pystacks.c — CPython 3.11-3.13 thread states and frames, read safely (see pystacks.h).
 *
 * Offsets (x86-64 and other LP64 machines) were measured with offsetof() against each version's
 * headers (3.11.2, 3.11.7, 3.12.1, 3.13.0); within a minor version CPython keeps them. A thread
 * state's frame is reached through its _PyCFrame (3.11, 3.12) or directly (3.13). A frame
 * holds its code object (3.13: f_executable, which may be something else: checked), the previous
 * frame, the instruction pointer (3.11, 3.12: the last instruction run; 3.13: the current one;
 * both measured from the code's first instruction as faulthandler does) and its owner; frames
 * owned by the C stack (3.12+) are the interpreter's entry shims and are skipped.
 *
 * Lines come from the code object's location table (co_linetable), the format CPython documents
 * in Objects/locations.md: entries of one header byte (bit 7 set; code = bits 3-6; length - 1 =
 * bits 0-2, in code units) followed by varints. Codes 0-9 keep the line, 10-12 add 0-2 lines, 13
 * and 14 add a signed varint, 15 means "no line". Text of str objects is converted from their
 * 1-, 2- or 4-byte units to UTF-8.
 */
#include "pystacks.h"

#include <dlfcn.h>
#include <string.h>

#include "safe_read.h"

#define MAX_STATES    1024  /* thread states looked at, per interpreter */
#define MAX_STEPS     4096  /* frames followed per thread, skipped ones included */
#define TEXT_MAX      192   /* bytes of a name or file name kept */
#define LINETABLE_MAX 65536 /* bytes of a location table read */
#define STRING_CACHE  1024

typedef struct layout {
    unsigned version;             /* 0x030b: 3.11 */
    size_t ts_native_tid;         /* PyThreadState.native_thread_id */
    long ts_cframe, cframe_frame; /* tstate->cframe->current_frame; ts_cframe -1: ... */
    size_t ts_frame;              /* ... tstate->current_frame (3.13) */
    size_t fr_code, fr_prev, fr_instr, fr_owner;
    int owner_cstack; /* -1: none */
    size_t co_filename, co_qualname, co_linetable, co_firstlineno, co_code;
    size_t str_ascii, str_compact; /* sizeof PyASCIIObject, PyCompactUnicodeObject */
} layout;

static const layout g_layouts[] = {
    { 0x030b, 160, 56, 8, 0, 32, 48, 56, 69, -1, 112, 128, 136, 72, 184, 48, 72 },
    { 0x030c, 144, 56, 0, 0, 0, 8, 56, 70, 3, 112, 128, 136, 68, 192, 40, 56 },
    { 0x030d, 160, -1, 0, 72, 0, 8, 56, 70, 3, 112, 128, 136, 68, 200, 40, 56 },
};

#define TS_NEXT    8  /* PyThreadState.next, every version */
#define OB_TYPE    8  /* PyObject.ob_type */
#define VAR_SIZE   16 /* PyVarObject.ob_size */
#define STR_LEN    16 /* PyASCIIObject.length */
#define STR_STATE  32
#define BYTES_DATA 32 /* PyBytesObject.ob_sval */

static struct {
    const layout *l;
    void *(*interp_head)(void);
    void *(*interp_next)(void *);
    void *(*thread_head)(void *);
    uintptr_t code_type, str_type;
    char note[96];
} g_py;

void rec_py_load(void) {
    const unsigned long *version = dlsym(RTLD_DEFAULT, "Py_Version");
    if (!version) {
        if (dlsym(RTLD_DEFAULT, "Py_GetVersion"))
            strcpy(g_py.note, "CPython before 3.11: Python stacks are not read");
        return;
    }
    unsigned minor = (unsigned)(*version >> 16);
    for (size_t i = 0; i < sizeof g_layouts / sizeof g_layouts[0]; i++)
        if (g_layouts[i].version == minor) g_py.l = &g_layouts[i];
    *(void **)&g_py.interp_head = dlsym(RTLD_DEFAULT, "PyInterpreterState_Head");
    *(void **)&g_py.interp_next = dlsym(RTLD_DEFAULT, "PyInterpreterState_Next");
    *(void **)&g_py.thread_head = dlsym(RTLD_DEFAULT, "PyInterpreterState_ThreadHead");
    g_py.code_type = (uintptr_t)dlsym(RTLD_DEFAULT, "PyCode_Type");
    g_py.str_type = (uintptr_t)dlsym(RTLD_DEFAULT, "PyUnicode_Type");
    if (!g_py.l || !g_py.interp_head || !g_py.interp_next || !g_py.thread_head || !g_py.code_type ||
        !g_py.str_type) {
        g_py.l = NULL;
        char *n = g_py.note;
        strcpy(n, "CPython 3.");
        size_t at = strlen(n);
        unsigned m = minor & 0xff;
        if (m >= 10) n[at++] = (char)('0' + m / 10);
        n[at++] = (char)('0' + m % 10);
        strcpy(n + at, ": Python stacks are not read (3.11 to 3.13 are)");
    }
}

bool rec_py_supported(void) { return g_py.l != NULL; }

const char *rec_py_note(void) { return g_py.note[0] ? g_py.note : NULL; }

/* --- reading ------------------------------------------------------------------------------- */

typedef struct cached_str {
    uintptr_t object;
    const char *text;
} cached_str;

typedef struct reader {
    rec_scratch *s;
    const layout *l;
    cached_str strings[STRING_CACHE];
    uint8_t linetable[LINETABLE_MAX];
} reader;

static uint64_t word_at(const uint8_t *p, size_t off) {
    uint64_t w;
    memcpy(&w, p + off, sizeof w);
    return w;
}

/* Appends code point cp as UTF-8; false when it does not fit. */
static bool put_utf8(char *out, size_t *len, size_t cap, uint32_t cp) {
    char b[4];
    size_t n;
    if (cp < 0x80) {
        b[0] = (char)cp, n = 1;
    } else if (cp < 0x800) {
        b[0] = (char)(0xC0 | cp >> 6), b[1] = (char)(0x80 | (cp & 0x3F)), n = 2;
    } else if (cp < 0x10000) {
        b[0] = (char)(0xE0 | cp >> 12), b[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        b[2] = (char)(0x80 | (cp & 0x3F)), n = 3;
    } else {
        b[0] = (char)(0xF0 | cp >> 18), b[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
        b[2] = (char)(0x80 | ((cp >> 6) & 0x3F)), b[3] = (char)(0x80 | (cp & 0x3F)), n = 4;
    }
    if (*len + n > cap) return false;
    memcpy(out + *len, b, n);
    *len += n;
    return true;
}

/* The text of a str object (compact strings only, as every identifier and file name is). */
static const char *read_str_uncached(reader *r, uintptr_t obj) {
    uint64_t type, length;
    uint32_t state;
    if (!rec_safe_word(obj + OB_TYPE, &type) || type != g_py.str_type ||
        !rec_safe_word(obj + STR_LEN, &length) || !rec_safe_read_all(&state, obj + STR_STATE, 4))
        return NULL;
    unsigned kind = (state >> 2) & 7, compact = (state >> 5) & 1, ascii = (state >> 6) & 1;
    if (!compact || (kind != 1 && kind != 2 && kind != 4)) return NULL;
    uintptr_t data = obj + (ascii ? r->l->str_ascii : r->l->str_compact);
    size_t units = length < TEXT_MAX ? (size_t)length : TEXT_MAX;
    uint8_t raw[TEXT_MAX * 4];
    if (!rec_safe_read_all(raw, data, units * kind)) return NULL;
    char text[TEXT_MAX + 4];
    size_t len = 0;
    for (size_t i = 0; i < units; i++) {
        uint32_t cp = 0;
        memcpy(&cp, raw + i * kind, kind); /* little-endian units */
        if (!put_utf8(text, &len, TEXT_MAX, cp)) break;
    }
    return rec_scratch_text(r->s, text, len, TEXT_MAX);
}

static const char *read_str(reader *r, uintptr_t obj) {
    cached_str *c = &r->strings[(obj >> 4) % STRING_CACHE];
    if (c->object == obj && c->text) return c->text;
    const char *text = read_str_uncached(r, obj);
    if (text) *c = (cached_str){ obj, text };
    return text;
}

static unsigned varint(const uint8_t **p, const uint8_t *end) {
    unsigned v = 0, shift = 0;
    while (*p < end && shift < 32) {
        uint8_t b = *(*p)++;
        v |= (unsigned)(b & 63) << shift;
        shift += 6;
        if (!(b & 64)) break;
    }
    return v;
}

static int signed_varint(const uint8_t **p, const uint8_t *end) {
    unsigned v = varint(p, end);
    return (v & 1) ? -(int)(v >> 1) : (int)(v >> 1);
}

/* The line of the code unit at byte offset `at` (location table, see the file's comment). */
static int64_t line_of(const uint8_t *table, size_t len, int64_t first, int64_t at) {
    if (at < 0) return first;
    int64_t line = first, addr = 0;
    for (const uint8_t *p = table, *end = table + len; p < end;) {
        uint8_t head = *p++;
        unsigned code = (head >> 3) & 15, units = (head & 7) + 1u;
        const uint8_t *q = p;
        if (code == 13 || code == 14)
            line += signed_varint(&q, end);
        else if (code >= 10 && code <= 12)
            line += code - 10;
        if (at < addr + 2 * (int64_t)units) return code == 15 ? -1 : line;
        addr += 2 * (int64_t)units;
        while (p < end && !(*p & 0x80)) p++;
    }
    return -1;
}

/* One frame's code object into f; false when it is not a readable code object. */
static bool read_code(reader *r, uintptr_t code, uintptr_t instr, fr_frame *f) {
    uint8_t co[256];
    const layout *l = r->l;
    if (!rec_safe_read_all(co, code, l->co_code + 8) || word_at(co, OB_TYPE) != g_py.code_type)
        return false;
    int32_t first;
    memcpy(&first, co + l->co_firstlineno, sizeof first);
    f->filename = read_str(r, (uintptr_t)word_at(co, l->co_filename));
    f->name = read_str(r, (uintptr_t)word_at(co, l->co_qualname));
    if (!f->filename || !f->name) return false;
    uintptr_t table = (uintptr_t)word_at(co, l->co_linetable);
    uint64_t table_len = 0;
    size_t got = 0;
    if (rec_safe_word(table + VAR_SIZE, &table_len))
        got = rec_safe_read(r->linetable, table + BYTES_DATA,
                            table_len < LINETABLE_MAX ? (size_t)table_len : LINETABLE_MAX);
    int64_t at = instr ? ((int64_t)instr - (int64_t)(code + l->co_code)) : -2;
    f->line = line_of(r->linetable, got, first, at);
    return true;
}

static uintptr_t top_frame(const layout *l, uintptr_t ts) {
    uint64_t frame = 0, cframe = 0;
    if (l->ts_cframe < 0) return rec_safe_word(ts + l->ts_frame, &frame) ? (uintptr_t)frame : 0;
    if (!rec_safe_word(ts + (size_t)l->ts_cframe, &cframe) || !cframe) return 0;
    return rec_safe_word((uintptr_t)cframe + (size_t)l->cframe_frame, &frame) ? (uintptr_t)frame
                                                                              : 0;
}

static void read_thread(reader *r, uintptr_t ts, rec_py_thread *t, size_t max_frames) {
    const layout *l = r->l;
    uint64_t tid = 0;
    rec_safe_word(ts + l->ts_native_tid, &tid);
    t->tid = (int64_t)tid;
    t->frames = rec_scratch_alloc(r->s, (max_frames ? max_frames : 1) * sizeof *t->frames);
    if (!t->frames) return;
    uintptr_t frame = top_frame(l, ts);
    for (int step = 0; frame && step < MAX_STEPS; step++) {
        uint8_t fr[80];
        if (!rec_safe_read_all(fr, frame, l->fr_owner + 1)) {
            t->note = "Python stack unreadable past this frame";
            return;
        }
        uintptr_t code = (uintptr_t)word_at(fr, l->fr_code),
                  prev = (uintptr_t)word_at(fr, l->fr_prev);
        if (l->owner_cstack < 0 || fr[l->fr_owner] != l->owner_cstack) {
            if (t->nframes == max_frames) {
                t->note = "Python stack cut (innermost frames kept)";
                return;
            }
            fr_frame *f = &t->frames[t->nframes];
            if (read_code(r, code, (uintptr_t)word_at(fr, l->fr_instr), f))
                t->nframes++;
            else if (l->version < 0x030d) /* 3.13: f_executable may be None: skipped */
                t->note = "a Python frame could not be read";
        }
        frame = prev;
    }
}

size_t rec_py_read(rec_scratch *s, rec_py_thread *out, size_t max_threads, size_t max_frames) {
    if (!g_py.l) return 0;
    reader *r = rec_scratch_alloc(s, sizeof *r);
    if (!r) return 0;
    r->s = s;
    r->l = g_py.l;
    size_t n = 0;
    void *interp = g_py.interp_head();
    for (int i = 0; interp && i < 64 && n < max_threads; i++, interp = g_py.interp_next(interp)) {
        uint64_t ts = (uint64_t)(uintptr_t)g_py.thread_head(interp);
        for (int k = 0; ts && k < MAX_STATES && n < max_threads; k++) {
            memset(&out[n], 0, sizeof out[n]);
            read_thread(r, (uintptr_t)ts, &out[n], max_frames);
            n++;
            if (!rec_safe_word((uintptr_t)ts + TS_NEXT, &ts)) break;
        }
    }
    return n;
}
