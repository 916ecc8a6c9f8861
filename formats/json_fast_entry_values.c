/* json_fast_entry_values.c — the value readers of the direct JSON reader (json_fast.h): how a
 * string, a state, a process group, a dtype list, a shape list and a stack of frame dicts are
 * decoded the first time their text is met. The value cache of dump_json_fast.c calls them on a
 * miss and keeps what they made, so each distinct value of a dump is decoded once; a frame dict
 * goes through the cache too (`cached`), for stacks that share frames.
 */
#include "json_fast.h"

bool jf_str_value(dump_json_fast *f, int field, vslot *v) {
    return (v->v.str = jf_read_interned(f)) != NULL;
}

bool jf_state_value(dump_json_fast *f, int field, vslot *v) {
    const char *s = jf_read_interned(f);
    v->v.state = s ? dump_state_of(s) : -1;
    return v->v.state >= 0; /* the generic path names the unknown state */
}

/* [name, desc]: a list of two strs (the generic path takes longer lists too: declined). */
bool jf_pg_value(dump_json_fast *f, int field, vslot *v) {
    bool more;
    return open_container(f, '[', ']', &more) && more &&
           (v->v.pg.name = jf_read_interned(f)) != NULL && next_item(f, ']', &more) && more &&
           (v->v.pg.desc = jf_read_interned(f)) != NULL && next_item(f, ']', &more) && !more;
}

/* A list of dtype strs, normalized and stored once per dump. */
bool jf_dtypes_value(dump_json_fast *f, int field, vslot *v) {
    size_t n = 0;
    bool more;
    if (!open_container(f, '[', ']', &more)) return false;
    while (more) {
        const char *s = jf_read_interned(f);
        if (!s ||
            !jf_ensure((void **)&f->lists.strs, &f->lists.strs_cap, n + 1, sizeof *f->lists.strs))
            return false;
        if (!(f->lists.strs[n++] = dump_dtype(f->b, s)) || !next_item(f, ']', &more) ||
            n >= UINT32_MAX)
            return false;
    }
    return dump_store_dtypes(f->b, (uint32_t)n, f->lists.strs, &v->v.dtypes) == 0;
}

/* One shape, [d0, d1, ...], appended to the flattened scratch. */
static bool read_shape(dump_json_fast *f, size_t nshapes, size_t *ndims_total) {
    uint32_t ndim = 0;
    bool more;
    if (!open_container(f, '[', ']', &more)) return false;
    while (more) {
        if (!jf_ensure((void **)&f->lists.dims, &f->lists.dims_cap, *ndims_total + 1,
                       sizeof *f->lists.dims))
            return false;
        if (!read_int(f, &f->lists.dims[(*ndims_total)++]) || !next_item(f, ']', &more) ||
            ++ndim == UINT32_MAX)
            return false;
    }
    if (!jf_ensure((void **)&f->lists.ndims, &f->lists.ndims_cap, nshapes + 1,
                   sizeof *f->lists.ndims))
        return false;
    f->lists.ndims[nshapes] = ndim;
    return true;
}

/* A list of shapes, stored once per dump. */
bool jf_shapes_value(dump_json_fast *f, int field, vslot *v) {
    size_t n = 0, total = 0;
    bool more;
    if (!open_container(f, '[', ']', &more)) return false;
    while (more)
        if (!read_shape(f, n++, &total) || !next_item(f, ']', &more) || n >= UINT32_MAX)
            return false;
    return dump_store_shapes(f->b, (uint32_t)n, f->lists.ndims, f->lists.dims, &v->v.shapes) == 0;
}

/* A frame dict's key: 0 name, 1 filename, 2 line, 3 another key; -1 decline. */
static int frame_key(dump_json_fast *f) {
    const char *s;
    size_t n;
    if (!jf_read_string(f, &s, &n)) return -1;
    blanks(f);
    if (!next_is(f, ':')) return -1;
    blanks(f);
    if (n == 4 && memcmp(s, "name", 4) == 0) return 0;
    if (n == 8 && memcmp(s, "filename", 8) == 0) return 1;
    if (n == 4 && memcmp(s, "line", 4) == 0) return 2;
    return 3;
}

/* One frame dict {"name": str, "filename": str, "line": int}, any key missing ("" or 0), other
 * keys ignored, none repeated. */
static bool frame_value(dump_json_fast *f, int field, vslot *v) {
    fr_frame *out = &v->v.frame;
    *out = (fr_frame){ "", "", 0 };
    unsigned seen = 0;
    bool more;
    if (!open_container(f, '{', '}', &more)) return false;
    while (more) {
        int k = frame_key(f);
        if (k < 0 || (k < 3 && (seen & 1u << k))) return false;
        seen |= 1u << k;
        bool ok = k == 0   ? (out->name = jf_read_interned(f)) != NULL
                  : k == 1 ? (out->filename = jf_read_interned(f)) != NULL
                  : k == 2 ? read_int(f, &out->line)
                           : jf_read_value(f, 2) != NULL;
        if (!ok || !next_item(f, '}', &more)) return false;
    }
    return true;
}

/* A list of frame dicts, stored once per dump. */
bool jf_frames_value(dump_json_fast *f, int field, vslot *v) {
    size_t n = 0;
    bool more;
    if (!open_container(f, '[', ']', &more)) return false;
    while (more) {
        if (!jf_ensure((void **)&f->lists.frames, &f->lists.frames_cap, n + 1,
                       sizeof *f->lists.frames))
            return false;
        const vslot *frame = cached(f, FIELD_FRAME, NULL, frame_value);
        if (!frame || !next_item(f, ']', &more) || n + 1 >= UINT32_MAX) return false;
        f->lists.frames[n++] = frame->v.frame;
    }
    fr_entry held;
    if (dump_store_frames(f->b, f->lists.frames, (uint32_t)n, &held)) return false;
    v->v.stack.items = held.frames;
    v->v.stack.n = held.nframes;
    return true;
}
