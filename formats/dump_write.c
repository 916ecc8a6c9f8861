/* dump_write.c — fr_dump → PyTorch FR pickle (any version's exact bytes) or JSON.
 *
 * A `layout` is decided once from the target version (which keys, in which order, which
 * containers memoized); the writers then walk the dump and emit keys in that order. The pickle
 * path drives pickle_write's streaming API; the JSON path formats into a small buffer flushed
 * to a sink, with keys in sorted order as nlohmann::json (a std::map) prints them.
 *
 * Frame dicts: torch memoizes a frame dict when its C++ object is referenced more than once
 * (2.2+) or always (2.0, where the all_frames vector keeps every frame alive); equal frames are
 * one object. So a counting pass builds a table of distinct frames (by name, file, line) with
 * their reference counts, and the write pass emits BINPUT after the first emission and BINGET
 * for repeats. The table and the formatted strings that must stay put while the writer's memo
 * points at them live in one scratch block: the caller's (fixed-memory writers, no malloc) or a
 * malloc'd one (heap writers).
 *
 * Async-signal-safety of the pickle path with a fixed-memory writer (the recorder's fatal-signal
 * dump runs fr_dump_write_pickle inside a SIGSEGV handler). Every libc call reachable from
 * fr_dump_write_pickle when w->owns_memory is false, and from pickle_write.c's fixed-memory
 * functions, is one of: memset, memcpy, memcmp, strcmp, strlen (async-signal-safe since
 * POSIX.1-2008 TC2) and the caller's sink (the recorder's calls write(2)). Numbers are formatted
 * by fmt_i64() below (json_text.h's fr_json_int), error text is copied by fr_fail_text()
 * (error.h): no snprintf, no malloc/free, no stdio on that path. The JSON writer and the heap
 * pickle writer do allocate; they are never used from a handler. tests/fakes/asig_trap.c checks
 * this at run time (t0400).
 */
#include "dump_write.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dump_write_whereabouts.h"
#include "json_text.h"

/* Decimal text of v in out (at least 21 bytes), NUL-terminated; returns the length. A
 * signal-safe stand-in for snprintf: the pickle path may run inside a fatal-signal handler. */
static size_t fmt_i64(char *out, int64_t v) {
    size_t n = fr_json_int(v, out);
    out[n] = '\0';
    return n;
}

static const char *or_empty(const char *s) { return s ? s : ""; }

/* --- layouts ----------------------------------------------------------------------------- */

typedef struct layout {
    int major, minor;
    bool v2_0;           /* entries first, frames last, 2.0 memo rules, 2.0 dtype spellings */
    bool has_timeout;    /* 2.1+ (2.1 is taken to be as 2.2) */
    bool has_pg_status;  /* 2.3+ */
    bool has_threads;    /* 2.8+ */
    const char *lib_key; /* "nccl_version" 2.6–2.9, "comm_lib_version" 2.10+, else NULL */
    bool root_memo;
    char version[24];
} layout;

static int choose_layout(const fr_dump *d, const fr_write_options *o, layout *l, fr_error *err) {
    memset(l, 0, sizeof *l);
    l->major = 2;
    l->minor = 10;
    if (o && (o->version_major || o->version_minor)) {
        l->major = o->version_major;
        l->minor = o->version_minor;
    } else if (d->version && d->version_major) {
        l->major = d->version_major;
        l->minor = d->version_minor;
    }
    if (l->major != 2 || l->minor < 0)
        return fr_fail_text(err, "can only write Flight Recorder versions 2.x");
    l->v2_0 = l->minor == 0;
    l->has_timeout = l->minor >= 1;
    l->has_pg_status = l->minor >= 3;
    l->has_threads = l->minor >= 8;
    l->lib_key = l->minor >= 10 ? "comm_lib_version" : l->minor >= 6 ? "nccl_version" : NULL;
    fr_root_memo memo = o ? o->root_memo : FR_ROOT_MEMO_AS_VERSION;
    l->root_memo = memo == FR_ROOT_MEMO_YES || (memo == FR_ROOT_MEMO_AS_VERSION && l->minor < 10);
    size_t n = fmt_i64(l->version, l->major); /* "%d.%d" without snprintf (signal path) */
    l->version[n++] = '.';
    fmt_i64(l->version + n, l->minor);
    return 0;
}

static bool has_extras(const fr_dump *d) { return d->global_rank >= 0 || d->ncomms > 0; }

/* --- 2.0 dtype spellings ------------------------------------------------------------------ */

const char *fr_dtype_legacy_name(const char *c10_name) {
    static const char *const names[][2] = {
        { "Float", "float" },
        { "Double", "double" },
        { "Half", "c10::Half" },
        { "BFloat16", "c10::BFloat16" },
        { "Long", "long int" },
        { "Int", "int" },
        { "Short", "short int" },
        { "Char", "signed char" },
        { "Byte", "unsigned char" },
        { "Bool", "bool" },
        { "ComplexHalf", "c10::complex<c10::Half>" },
        { "ComplexFloat", "c10::complex<float>" },
        { "ComplexDouble", "c10::complex<double>" },
        { "QInt8", "c10::qint8" },
        { "QUInt8", "c10::quint8" },
        { "QInt32", "c10::qint32" },
        { "QUInt4x2", "c10::quint4x2" },
        { "QUInt2x4", "c10::quint2x4" },
        { "UInt16", "unsigned short" },
        { "UInt32", "unsigned int" },
        { "UInt64", "unsigned long" },
        { "Float8_e5m2", "c10::Float8_e5m2" },
        { "Float8_e4m3fn", "c10::Float8_e4m3fn" },
        { "Float8_e5m2fnuz", "c10::Float8_e5m2fnuz" },
        { "Float8_e4m3fnuz", "c10::Float8_e4m3fnuz" },
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(c10_name, names[i][0]) == 0) return names[i][1];
    return c10_name;
}

/* --- scratch: the frame table and a pool of stable formatted strings ----------------------- */

enum { NO_MEMO_ID = UINT32_MAX };

typedef struct frame_slot {
    const fr_frame *frame; /* NULL = empty */
    uint32_t hash;
    uint32_t count;   /* references in the whole dump */
    uint32_t memo_id; /* NO_MEMO_ID until written with a BINPUT */
} frame_slot;

typedef struct scratch {
    frame_slot *frames; /* NULL: no frame memo */
    size_t frame_cap;   /* power of two */
    char *pool;
    size_t pool_left;
} scratch;

static size_t frame_table_slots(const fr_dump *d) {
    uint64_t total = 0;
    for (uint32_t i = 0; i < d->nentries; i++) total += d->entries[i].nframes;
    if (total == 0) return 0;
    size_t cap = 16;
    while (cap < total * 2) cap *= 2;
    return cap;
}

static size_t digits_bound(void) { return 22; } /* "-9223372036854775808" plus ", " */

static size_t pool_bytes(const fr_dump *d) {
    size_t n = (size_t)d->nstatus * digits_bound();
    for (uint32_t g = 0; g < d->ngroups; g++) n += 3 + (size_t)d->groups[g].nranks * digits_bound();
    return n;
}

size_t fr_dump_write_scratch_size(const fr_dump *d) {
    return frame_table_slots(d) * sizeof(frame_slot) + pool_bytes(d) + 16;
}

/* Carves the table and the pool out of `mem` (size bytes); a table that does not fit is left out.
 */
static void scratch_carve(scratch *s, const fr_dump *d, void *mem, size_t size) {
    memset(s, 0, sizeof *s);
    if (!mem) return;
    size_t slots = frame_table_slots(d), table = slots * sizeof(frame_slot);
    char *p = mem;
    if (slots && table <= size) {
        s->frames = (frame_slot *)p;
        s->frame_cap = slots;
        memset(p, 0, table);
        p += table;
        size -= table;
    }
    s->pool = p;
    s->pool_left = size;
}

static uint32_t frame_hash(const fr_frame *f) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (const char *s = or_empty(f->name); *s; s++) h = (h ^ (uint8_t)*s) * 0x100000001b3ull;
    h = (h ^ 0xff) * 0x100000001b3ull;
    for (const char *s = or_empty(f->filename); *s; s++) h = (h ^ (uint8_t)*s) * 0x100000001b3ull;
    h = (h ^ (uint64_t)f->line) * 0x100000001b3ull;
    return (uint32_t)(h ^ (h >> 32));
}

static bool same_frame(const fr_frame *a, const fr_frame *b) {
    return a->line == b->line &&
           (a->name == b->name || strcmp(or_empty(a->name), or_empty(b->name)) == 0) &&
           (a->filename == b->filename ||
            strcmp(or_empty(a->filename), or_empty(b->filename)) == 0);
}

/* The slot of an equal frame, or the empty slot where it goes. */
static frame_slot *frame_lookup(scratch *s, const fr_frame *f, uint32_t h) {
    size_t i = h & (s->frame_cap - 1);
    for (;;) {
        frame_slot *slot = &s->frames[i];
        if (!slot->frame || (slot->hash == h && same_frame(slot->frame, f))) return slot;
        i = (i + 1) & (s->frame_cap - 1);
    }
}

static void count_frames(scratch *s, const fr_dump *d) {
    if (!s->frames) return;
    for (uint32_t i = 0; i < d->nentries; i++)
        for (uint32_t k = 0; k < d->entries[i].nframes; k++) {
            const fr_frame *f = &d->entries[i].frames[k];
            uint32_t h = frame_hash(f);
            frame_slot *slot = frame_lookup(s, f, h);
            if (!slot->frame) {
                slot->frame = f;
                slot->hash = h;
                slot->memo_id = NO_MEMO_ID;
            }
            slot->count++;
        }
}

/* A stable copy of a formatted string in the pool, or NULL when the pool is exhausted. */
static const char *pool_keep(scratch *s, const char *text, size_t len) {
    if (!s->pool || s->pool_left < len + 1) return NULL;
    char *copy = s->pool;
    memcpy(copy, text, len);
    copy[len] = '\0';
    s->pool += len + 1;
    s->pool_left -= len + 1;
    return copy;
}

/* --- formatting helpers shared by both writers --------------------------------------------- */

/* torch's ranks_str(): "[0, 1, 2]", "[]". Returns the length; `buf` must hold `cap` bytes. */
static size_t ranks_text(const fr_group_config *g, char *buf, size_t cap) {
    size_t n = 0;
    buf[n++] = '[';
    for (uint32_t i = 0; i < g->nranks && cap - n >= digits_bound() + 2; i++) {
        if (i) buf[n++] = ',', buf[n++] = ' ';
        n += fmt_i64(buf + n, g->ranks[i]);
    }
    buf[n++] = ']';
    buf[n] = '\0';
    return n;
}

static size_t ranks_text_cap(const fr_group_config *g) {
    return 3 + (size_t)g->nranks * digits_bound();
}

/* --- pickle -------------------------------------------------------------------------------- */

typedef struct pickler {
    pw_writer *w;
    const fr_dump *d;
    layout l;
    scratch s;
} pickler;

static void key(pickler *p, const char *k) { pw_cstr(p->w, k); }

/* A string formatted on the stack: kept in the pool when possible so that later equal strings
 * can be memo hits, as in torch. */
static void formatted_str(pickler *p, const char *text, size_t len) {
    const char *stable = pool_keep(&p->s, text, len);
    if (stable)
        pw_str(p->w, stable, len);
    else
        pw_str_transient(p->w, text, len);
}

static void write_shapes(pickler *p, const fr_shapes *shapes) {
    pw_list_begin(p->w);
    for (uint32_t i = 0; i < shapes->count; i++) {
        pw_list_begin(p->w);
        for (uint32_t k = 0; k < shapes->shapes[i].ndim; k++)
            pw_int(p->w, shapes->shapes[i].dims[k]);
        pw_list_end(p->w);
    }
    pw_list_end(p->w);
}

static void write_dtypes(pickler *p, const fr_strings *dtypes) {
    pw_list_begin(p->w);
    for (uint32_t i = 0; i < dtypes->count; i++) {
        const char *name = or_empty(dtypes->items[i]);
        pw_cstr(p->w, p->l.v2_0 ? fr_dtype_legacy_name(name) : name);
    }
    pw_list_end(p->w);
}

static void write_frame(pickler *p, const fr_frame *f) {
    frame_slot *slot = p->s.frames ? frame_lookup(&p->s, f, frame_hash(f)) : NULL;
    if (slot && slot->memo_id != NO_MEMO_ID) {
        pw_get(p->w, slot->memo_id);
        return;
    }
    pw_dict_begin(p->w);
    key(p, "name");
    pw_cstr(p->w, or_empty(f->name));
    key(p, "filename");
    pw_cstr(p->w, or_empty(f->filename));
    key(p, "line");
    pw_int(p->w, f->line);
    pw_dict_end(p->w);
    bool shared = p->l.v2_0 || (slot && slot->count >= 2);
    if (shared) {
        uint32_t id = pw_put(p->w);
        if (slot) slot->memo_id = id;
    }
}

static void write_frames(pickler *p, const fr_entry *e) {
    key(p, "frames");
    pw_list_begin(p->w);
    for (uint32_t i = 0; i < e->nframes; i++) write_frame(p, &e->frames[i]);
    pw_list_end(p->w);
}

static void write_optional_time(pickler *p, const char *k, int64_t ns) {
    key(p, k);
    if (ns)
        pw_int(p->w, ns);
    else
        pw_none(p->w);
}

static void write_entry(pickler *p, const fr_entry *e) {
    pw_writer *w = p->w;
    pw_dict_begin(w);
    if (!p->l.v2_0 && e->frames) write_frames(p, e);
    key(p, "record_id"), pw_int(w, e->record_id);
    key(p, "pg_id"), pw_int(w, e->pg_id);
    key(p, "process_group");
    pw_cstr(w, or_empty(e->pg_name));
    pw_cstr(w, or_empty(e->pg_desc));
    pw_tuple2(w);
    if (p->l.has_threads) {
        key(p, "thread_name"), pw_cstr(w, or_empty(e->thread_name));
        key(p, "thread_id"), pw_cstr(w, or_empty(e->thread_id));
    }
    key(p, "collective_seq_id"), pw_int(w, e->collective_seq_id);
    key(p, "p2p_seq_id"), pw_int(w, e->p2p_seq_id);
    key(p, "op_id"), pw_int(w, e->op_id);
    key(p, "profiling_name"), pw_cstr(w, or_empty(e->profiling_name));
    key(p, "time_created_ns"), pw_int(w, e->time_created_ns);
    if (e->has_duration) key(p, "duration_ms"), pw_float(w, e->duration_ms);
    key(p, "input_sizes"), write_shapes(p, &e->input_sizes);
    key(p, "input_dtypes"), write_dtypes(p, &e->input_dtypes);
    key(p, "output_sizes"), write_shapes(p, &e->output_sizes);
    key(p, "output_dtypes"), write_dtypes(p, &e->output_dtypes);
    key(p, "state"), pw_cstr(w, fr_state_name(e->state));
    write_optional_time(p, "time_discovered_started_ns", e->time_discovered_started_ns);
    write_optional_time(p, "time_discovered_completed_ns", e->time_discovered_completed_ns);
    key(p, "retired"), pw_bool(w, e->retired);
    if (p->l.has_timeout) key(p, "timeout_ms"), pw_int(w, e->timeout_ms);
    key(p, "is_p2p"), pw_bool(w, e->is_p2p);
    if (p->l.v2_0) write_frames(p, e); /* 2.0: always, and last */
    pw_dict_end(w);
}

static void write_entries(pickler *p) {
    key(p, "entries");
    pw_list_begin(p->w);
    for (uint32_t i = 0; i < p->d->nentries; i++) write_entry(p, &p->d->entries[i]);
    pw_list_end(p->w);
    if (p->l.v2_0) pw_put(p->w); /* 2.0 pickled the named local `entries` */
}

static void write_ranks(pickler *p, const fr_group_config *g) {
    char small[256];
    size_t cap = ranks_text_cap(g);
    char *buf = small;
    /* a big group's text goes straight into the pool; without room, it is cut to what fits */
    if (cap > sizeof small) {
        if (p->s.pool && p->s.pool_left >= cap) {
            size_t len = ranks_text(g, p->s.pool, cap);
            pw_str(p->w, p->s.pool, len);
            p->s.pool += len + 1;
            p->s.pool_left -= len + 1;
            return;
        }
        cap = sizeof small; /* no stable room: truncated text, still a valid pickle */
    }
    size_t len = ranks_text(g, buf, cap);
    formatted_str(p, buf, len);
}

/* --- torch's std::map orders, without allocating ---
 * pg_config comes out ordered by (name, desc), pg_status by numeric pg_id. The dump's arrays are
 * usually in that order already (one O(n) check); otherwise each step picks the next item by a
 * scan, O(n^2) over a few hundred groups at most, and no memory needed in a signal handler. */

static int compare_groups(const fr_dump *d, uint32_t a, uint32_t b) {
    int c = strcmp(or_empty(d->groups[a].name), or_empty(d->groups[b].name));
    if (!c) c = strcmp(or_empty(d->groups[a].desc), or_empty(d->groups[b].desc));
    return c ? c : (a > b) - (a < b);
}

static int compare_status(const fr_dump *d, uint32_t a, uint32_t b) {
    uint64_t x = (uint64_t)d->status[a].pg_id,
             y = (uint64_t)d->status[b].pg_id; /* size_t in torch */
    if (x != y) return x < y ? -1 : 1;
    return (a > b) - (a < b);
}

typedef int (*compare_fn)(const fr_dump *d, uint32_t a, uint32_t b);

static bool in_order(const fr_dump *d, uint32_t n, compare_fn cmp) {
    for (uint32_t i = 1; i < n; i++)
        if (cmp(d, i - 1, i) > 0) return false;
    return true;
}

/* The item after `prev` in the order (prev == UINT32_MAX: the first), or UINT32_MAX. */
static uint32_t next_in_order(const fr_dump *d, uint32_t n, compare_fn cmp, bool sorted,
                              uint32_t prev) {
    if (sorted)
        return prev == UINT32_MAX ? (n ? 0 : UINT32_MAX) : (prev + 1 < n ? prev + 1 : UINT32_MAX);
    uint32_t best = UINT32_MAX;
    for (uint32_t i = 0; i < n; i++)
        if ((prev == UINT32_MAX || cmp(d, i, prev) > 0) &&
            (best == UINT32_MAX || cmp(d, i, best) < 0))
            best = i;
    return best;
}

static void write_pg_config(pickler *p) {
    key(p, "pg_config");
    pw_dict_begin(p->w);
    const fr_dump *d = p->d;
    bool sorted = in_order(d, d->ngroups, compare_groups);
    for (uint32_t i = next_in_order(d, d->ngroups, compare_groups, sorted, UINT32_MAX);
         i != UINT32_MAX; i = next_in_order(d, d->ngroups, compare_groups, sorted, i)) {
        const fr_group_config *g = &d->groups[i];
        pw_cstr(p->w, or_empty(g->name));
        pw_dict_begin(p->w);
        key(p, "name"), pw_cstr(p->w, or_empty(g->name));
        key(p, "desc"), pw_cstr(p->w, or_empty(g->desc));
        key(p, "ranks"), write_ranks(p, g);
        pw_dict_end(p->w);
    }
    pw_dict_end(p->w);
    if (p->l.v2_0) pw_put(p->w); /* 2.0 pickled the named local `pg_config` */
}

static void write_pg_status(pickler *p) {
    key(p, "pg_status");
    pw_dict_begin(p->w);
    const fr_dump *d = p->d;
    bool sorted = in_order(d, d->nstatus, compare_status);
    for (uint32_t i = next_in_order(d, d->nstatus, compare_status, sorted, UINT32_MAX);
         i != UINT32_MAX; i = next_in_order(d, d->nstatus, compare_status, sorted, i)) {
        const fr_pg_status *s = &d->status[i];
        char id[24];
        formatted_str(p, id, fmt_i64(id, s->pg_id));
        pw_dict_begin(p->w);
        key(p, "last_enqueued_collective"), pw_int(p->w, s->last_enqueued);
        key(p, "last_started_collective"), pw_int(p->w, s->last_started);
        key(p, "last_completed_collective"), pw_int(p->w, s->last_completed);
        pw_dict_end(p->w);
    }
    pw_dict_end(p->w);
}

static void str_or_none(pw_writer *w, const char *s) {
    if (s)
        pw_cstr(w, s);
    else
        pw_none(w);
}

/* "frtrace": {"version": "1", "global_rank": int, ["trigger": str,] "comms": {...}} */
static void write_extras(pickler *p) {
    pw_writer *w = p->w;
    const fr_dump *d = p->d;
    key(p, FR_EXTRA_KEY);
    pw_dict_begin(w);
    key(p, "version"), pw_cstr(w, "1");
    key(p, "global_rank"), pw_int(w, d->global_rank);
    if (d->trigger) key(p, "trigger"), pw_cstr(w, d->trigger);
    key(p, "comms");
    pw_dict_begin(w);
    for (uint32_t i = 0; i < d->ncomms; i++) {
        const fr_comm_info *c = &d->comms[i];
        pw_cstr(w, or_empty(c->pg_name));
        pw_dict_begin(w);
        key(p, "comm_rank"), pw_int(w, c->comm_rank);
        key(p, "comm_size"), pw_int(w, c->comm_size);
        key(p, "parent"), str_or_none(w, c->parent);
        key(p, "color"), pw_int(w, c->color);
        key(p, "nccl_hash"), str_or_none(w, c->nccl_hash);
        key(p, "state"), str_or_none(w, c->state);
        pw_dict_end(w);
    }
    pw_dict_end(w);
    pw_dict_end(w);
}

static void write_root(pickler *p) {
    const fr_dump *d = p->d;
    const char *version =
        d->version && d->version_major == p->l.major && d->version_minor == p->l.minor
            ? d->version
            : p->l.version;
    pw_proto(p->w);
    pw_dict_begin(p->w);
    if (p->l.v2_0) {
        write_entries(p);
        key(p, "version"), pw_cstr(p->w, version);
        write_pg_config(p);
    } else {
        key(p, "version"), pw_cstr(p->w, version);
        write_pg_config(p);
        if (p->l.lib_key) key(p, p->l.lib_key), pw_cstr(p->w, or_empty(d->comm_lib_version));
        if (p->l.has_pg_status) write_pg_status(p);
        if (d->has_entries) write_entries(p);
    }
    if (has_extras(d)) write_extras(p);
    fr_write_whereabouts_pickle(p->w, d);
    pw_dict_end(p->w);
    if (p->l.root_memo) pw_put(p->w);
    pw_stop(p->w);
}

int fr_dump_write_pickle(const fr_dump *d, const fr_write_options *options, pw_writer *w,
                         fr_error *err) {
    pickler p = { .w = w, .d = d };
    if (choose_layout(d, options, &p.l, err)) return -1;
    void *heap = NULL;
    if (w->owns_memory) {
        size_t size = fr_dump_write_scratch_size(d);
        heap = malloc(size);
        if (!heap) return fr_fail_text(err, "out of memory while writing the dump");
        scratch_carve(&p.s, d, heap, size);
    } else if (options) {
        scratch_carve(&p.s, d, options->scratch, options->scratch_size);
    }
    count_frames(&p.s, d);
    write_root(&p);
    if (heap) free(heap); /* never reached by fixed-memory writers (signal handlers) */
    if (w->failed)
        return fr_fail_text(err, "could not write the pickle (output error or out of memory)");
    return 0;
}

/* --- JSON ---------------------------------------------------------------------------------- */

typedef struct jwriter {
    char buf[8192];
    size_t len;
    pw_sink_fn sink;
    void *ctx;
    int failed;
    layout l;
    const fr_dump *d;
} jwriter;

static void j_flush(jwriter *j) {
    if (!j->failed && j->len && j->sink(j->ctx, (const uint8_t *)j->buf, j->len) != 0)
        j->failed = 1;
    j->len = 0;
}

static void j_raw(jwriter *j, const char *s, size_t n) {
    while (n > 0) {
        if (j->len == sizeof j->buf) j_flush(j);
        size_t take = sizeof j->buf - j->len < n ? sizeof j->buf - j->len : n;
        memcpy(j->buf + j->len, s, take);
        j->len += take;
        s += take;
        n -= take;
    }
}

static void j_lit(jwriter *j, const char *s) { j_raw(j, s, strlen(s)); }

static void j_text(void *j, const char *s, size_t n) { j_raw(j, s, n); }

/* nlohmann::json's escaping: ", \, and control characters; other bytes as they are. */
static void j_str(jwriter *j, const char *s) {
    j_raw(j, "\"", 1);
    fr_json_escape(s, strlen(s), false, j_text, j);
    j_raw(j, "\"", 1);
}

static void j_key(jwriter *j, const char *k, bool *first) {
    if (!*first) j_raw(j, ",", 1);
    *first = false;
    j_str(j, k);
    j_raw(j, ":", 1);
}

static void j_int(jwriter *j, int64_t v) {
    char buf[24];
    j_raw(j, buf, fr_json_int(v, buf));
}

static void j_int_as_str(jwriter *j, int64_t v) {
    char buf[24];
    fmt_i64(buf, v);
    j_str(j, buf);
}

/* The shortest decimal that reads back to v, laid out as nlohmann::json's dtoa does:
 * 1.0, 0.0368, 1e-05, 1.5e+20; null for NaN and the infinities. */
static void j_double(jwriter *j, double v) {
    if (!isfinite(v)) {
        j_lit(j, "null");
        return;
    }
    char out[40];
    j_raw(j, out, fr_json_float(v, FR_JSON_FIXED_NLOHMANN, out));
}

static void j_shapes(jwriter *j, const fr_shapes *shapes) {
    j_raw(j, "[", 1);
    for (uint32_t i = 0; i < shapes->count; i++) {
        if (i) j_raw(j, ",", 1);
        j_raw(j, "[", 1);
        for (uint32_t k = 0; k < shapes->shapes[i].ndim; k++) {
            if (k) j_raw(j, ",", 1);
            j_int(j, shapes->shapes[i].dims[k]);
        }
        j_raw(j, "]", 1);
    }
    j_raw(j, "]", 1);
}

static void j_dtypes(jwriter *j, const fr_strings *dtypes) {
    j_raw(j, "[", 1);
    for (uint32_t i = 0; i < dtypes->count; i++) {
        if (i) j_raw(j, ",", 1);
        const char *name = or_empty(dtypes->items[i]);
        j_str(j, j->l.v2_0 ? fr_dtype_legacy_name(name) : name);
    }
    j_raw(j, "]", 1);
}

/* Keys in sorted order, as a std::map prints them. */
static void j_entry(jwriter *j, const fr_entry *e) {
    bool first = true;
    j_raw(j, "{", 1);
    j_key(j, "collective_seq_id", &first), j_int(j, e->collective_seq_id);
    if (e->has_duration) j_key(j, "duration_ms", &first), j_double(j, e->duration_ms);
    j_key(j, "input_dtypes", &first), j_dtypes(j, &e->input_dtypes);
    j_key(j, "input_sizes", &first), j_shapes(j, &e->input_sizes);
    j_key(j, "is_p2p", &first), j_lit(j, e->is_p2p ? "true" : "false");
    j_key(j, "op_id", &first), j_int(j, e->op_id);
    j_key(j, "output_dtypes", &first), j_dtypes(j, &e->output_dtypes);
    j_key(j, "output_sizes", &first), j_shapes(j, &e->output_sizes);
    j_key(j, "p2p_seq_id", &first), j_int(j, e->p2p_seq_id);
    j_key(j, "pg_id", &first), j_int(j, e->pg_id);
    j_key(j, "process_group", &first);
    j_raw(j, "[", 1), j_str(j, or_empty(e->pg_name)), j_raw(j, ",", 1),
        j_str(j, or_empty(e->pg_desc));
    j_raw(j, "]", 1);
    j_key(j, "profiling_name", &first), j_str(j, or_empty(e->profiling_name));
    j_key(j, "record_id", &first), j_int(j, e->record_id);
    j_key(j, "retired", &first), j_lit(j, e->retired ? "true" : "false");
    j_key(j, "state", &first), j_str(j, fr_state_name(e->state));
    if (j->l.has_threads) {
        j_key(j, "thread_id", &first), j_str(j, or_empty(e->thread_id));
        j_key(j, "thread_name", &first), j_str(j, or_empty(e->thread_name));
    }
    j_key(j, "time_created_ns", &first), j_int(j, e->time_created_ns);
    j_key(j, "time_discovered_completed_ns", &first), j_int(j, e->time_discovered_completed_ns);
    j_key(j, "time_discovered_started_ns", &first), j_int(j, e->time_discovered_started_ns);
    if (j->l.has_timeout) j_key(j, "timeout_ms", &first), j_int(j, e->timeout_ms);
    j_raw(j, "}", 1);
}

/* --- sorting indices by key string (std::map order) --- */

typedef struct sort_item {
    const char *key;
    uint32_t index;
    char number[24]; /* pg_status: the pg_id as text */
} sort_item;

static int compare_items(const void *a, const void *b) {
    return strcmp(((const sort_item *)a)->key, ((const sort_item *)b)->key);
}

static int compare_numbers(const void *a, const void *b) {
    return strcmp(((const sort_item *)a)->number, ((const sort_item *)b)->number);
}

static sort_item *sorted_groups(const fr_dump *d) {
    sort_item *items = calloc(d->ngroups ? d->ngroups : 1, sizeof *items);
    if (!items) return NULL;
    for (uint32_t i = 0; i < d->ngroups; i++)
        items[i] = (sort_item){ .key = or_empty(d->groups[i].name), .index = i };
    qsort(items, d->ngroups, sizeof *items, compare_items);
    return items;
}

static sort_item *sorted_status(const fr_dump *d) {
    sort_item *items = calloc(d->nstatus ? d->nstatus : 1, sizeof *items);
    if (!items) return NULL;
    for (uint32_t i = 0; i < d->nstatus; i++) {
        items[i].index = i;
        snprintf(items[i].number, sizeof items[i].number, "%" PRId64, d->status[i].pg_id);
    }
    qsort(items, d->nstatus, sizeof *items, compare_numbers);
    return items;
}

static sort_item *sorted_comms(const fr_dump *d) {
    sort_item *items = calloc(d->ncomms ? d->ncomms : 1, sizeof *items);
    if (!items) return NULL;
    for (uint32_t i = 0; i < d->ncomms; i++)
        items[i] = (sort_item){ .key = or_empty(d->comms[i].pg_name), .index = i };
    qsort(items, d->ncomms, sizeof *items, compare_items);
    return items;
}

static int j_pg_config(jwriter *j) {
    const fr_dump *d = j->d;
    sort_item *order = sorted_groups(d);
    if (!order) return -1;
    j_raw(j, "{", 1);
    for (uint32_t i = 0; i < d->ngroups; i++) {
        const fr_group_config *g = &d->groups[order[i].index];
        if (i) j_raw(j, ",", 1);
        j_str(j, or_empty(g->name));
        j_lit(j, ":{\"desc\":"), j_str(j, or_empty(g->desc));
        j_lit(j, ",\"name\":"), j_str(j, or_empty(g->name));
        j_lit(j, ",\"ranks\":");
        size_t cap = ranks_text_cap(g);
        char *text = malloc(cap);
        if (!text) {
            free(order);
            return -1;
        }
        ranks_text(g, text, cap);
        j_str(j, text);
        free(text);
        j_raw(j, "}", 1);
    }
    j_raw(j, "}", 1);
    free(order);
    return 0;
}

static int j_pg_status(jwriter *j) {
    const fr_dump *d = j->d;
    sort_item *order = sorted_status(d);
    if (!order) return -1;
    j_raw(j, "{", 1);
    for (uint32_t i = 0; i < d->nstatus; i++) {
        const fr_pg_status *s = &d->status[order[i].index];
        if (i) j_raw(j, ",", 1);
        j_str(j, order[i].number);
        j_lit(j, ":{\"last_completed_collective\":"), j_int_as_str(j, s->last_completed);
        j_lit(j, ",\"last_enqueued_collective\":"), j_int_as_str(j, s->last_enqueued);
        j_lit(j, ",\"last_started_collective\":"), j_int_as_str(j, s->last_started);
        j_raw(j, "}", 1);
    }
    j_raw(j, "}", 1);
    free(order);
    return 0;
}

static void j_str_or_null(jwriter *j, const char *s) {
    if (s)
        j_str(j, s);
    else
        j_lit(j, "null");
}

static int j_extras(jwriter *j) {
    const fr_dump *d = j->d;
    sort_item *order = sorted_comms(d);
    if (!order) return -1;
    j_lit(j, "{\"comms\":{");
    for (uint32_t i = 0; i < d->ncomms; i++) {
        const fr_comm_info *c = &d->comms[order[i].index];
        if (i) j_raw(j, ",", 1);
        j_str(j, or_empty(c->pg_name));
        j_lit(j, ":{\"color\":"), j_int(j, c->color);
        j_lit(j, ",\"comm_rank\":"), j_int(j, c->comm_rank);
        j_lit(j, ",\"comm_size\":"), j_int(j, c->comm_size);
        j_lit(j, ",\"nccl_hash\":"), j_str_or_null(j, c->nccl_hash);
        j_lit(j, ",\"parent\":"), j_str_or_null(j, c->parent);
        j_lit(j, ",\"state\":"), j_str_or_null(j, c->state);
        j_raw(j, "}", 1);
    }
    j_lit(j, "},\"global_rank\":"), j_int(j, d->global_rank);
    if (d->trigger) j_lit(j, ",\"trigger\":"), j_str(j, d->trigger);
    j_lit(j, ",\"version\":\"1\"}");
    free(order);
    return 0;
}

static int j_root(jwriter *j) {
    const fr_dump *d = j->d;
    bool first = true;
    const char *version =
        d->version && d->version_major == j->l.major && d->version_minor == j->l.minor
            ? d->version
            : j->l.version;
    j_raw(j, "{", 1);
    if (j->l.lib_key && strcmp(j->l.lib_key, "comm_lib_version") == 0)
        j_key(j, "comm_lib_version", &first), j_str(j, or_empty(d->comm_lib_version));
    if (d->has_entries && d->nentries > 0) {
        j_key(j, "entries", &first);
        j_raw(j, "[", 1);
        for (uint32_t i = 0; i < d->nentries; i++) {
            if (i) j_raw(j, ",", 1);
            j_entry(j, &d->entries[i]);
        }
        j_raw(j, "]", 1);
    }
    if (has_extras(d)) {
        j_key(j, FR_EXTRA_KEY, &first);
        if (j_extras(j)) return -1;
    }
    fr_write_whereabouts_json(d, &first, j_text, j);
    j_key(j, "nccl_comm_state", &first), j_lit(j, "{}");
    if (j->l.lib_key && strcmp(j->l.lib_key, "nccl_version") == 0)
        j_key(j, "nccl_version", &first), j_str(j, or_empty(d->comm_lib_version));
    j_key(j, "pg_config", &first);
    if (j_pg_config(j)) return -1;
    if (j->l.has_pg_status) {
        j_key(j, "pg_status", &first);
        if (j_pg_status(j)) return -1;
    }
    j_key(j, "version", &first), j_str(j, version);
    j_raw(j, "}", 1);
    return 0;
}

int fr_dump_write_json(const fr_dump *d, const fr_write_options *options, pw_sink_fn sink,
                       void *sink_ctx, fr_error *err) {
    jwriter *j = calloc(1, sizeof *j);
    if (!j) return fr_fail_text(err, "out of memory while writing the dump");
    j->sink = sink;
    j->ctx = sink_ctx;
    j->d = d;
    if (choose_layout(d, options, &j->l, err)) {
        free(j);
        return -1;
    }
    int rc = j_root(j);
    j_flush(j);
    if (rc == 0 && j->failed)
        rc = fr_fail_text(err, "could not write the JSON dump (output error)");
    else if (rc != 0)
        fr_fail_text(err, "out of memory while writing the dump");
    free(j);
    return rc;
}

static int file_sink(void *ctx, const uint8_t *bytes, size_t len) {
    return fwrite(bytes, 1, len, (FILE *)ctx) == len ? 0 : -1;
}

int fr_dump_write_json_file(const fr_dump *d, const fr_write_options *options, FILE *out,
                            fr_error *err) {
    return fr_dump_write_json(d, options, file_sink, out, err);
}
