/* pickle_fast_fields.c — one entry field in each encoding PyTorch writes, for the direct pickle
 * reader (pickle_fast.h): the process-group pair, shape lists (with the shape table: a list met
 * before at the same bytes is not read again), dtype lists (a one-dtype list remembered in its
 * string's slot), stacks of frame dicts (memoized frames; recent stacks remembered by their
 * bytes), states and the scalars. The layout loop of dump_pickle_fast.c reads the common
 * encodings in place and comes here for everything else; anything off torch's shape declines.
 */
#include "pickle_fast.h"

/* (name, desc): a TUPLE2 of two strs as torch writes it, or a list of exactly two. */
static bool read_process_group(dump_pickle_fast *f, fr_entry *e) {
    bool list = next_is(f, OP_EMPTY_LIST);
    if (list && !(put_other(f) && next_is(f, OP_MARK))) return false;
    if (!read_str_field(f, &e->pg_name) || !read_str_field(f, &e->pg_desc)) return false;
    if (!list) return next_is(f, OP_TUPLE2) && put_other(f);
    return next_is(f, OP_APPENDS) && put_other(f) && peek(f) != OP_MARK;
}

static bool read_shapes_fresh(dump_pickle_fast *f, fr_shapes *out) {
    if (!next_is(f, OP_EMPTY_LIST) || !put_other(f)) return false;
    size_t nshapes = 0, ndims = 0;
    while (next_is(f, OP_MARK)) {
        while (peek(f) != OP_APPENDS) {
            if (!next_is(f, OP_EMPTY_LIST) || !put_other(f)) return false;
            if (!pf_ensure(f, (void **)&f->lists.ndims, &f->lists.ndims_cap, nshapes + 1,
                           sizeof *f->lists.ndims))
                return false;
            size_t first = ndims;
            while (next_is(f, OP_MARK)) {
                while (peek(f) != OP_APPENDS) {
                    if (!pf_ensure(f, (void **)&f->lists.dims, &f->lists.dims_cap, ndims + 1,
                                   sizeof *f->lists.dims))
                        return false;
                    if (!read_int(f, &f->lists.dims[ndims])) return false;
                    ndims++;
                }
                f->p++;
                if (!put_other(f)) return false;
            }
            f->lists.ndims[nshapes++] = (uint32_t)(ndims - first);
        }
        f->p++;
        if (!put_other(f)) return false;
    }
    return dump_store_shapes(f->b, (uint32_t)nshapes, f->lists.ndims, f->lists.dims, out) == 0;
}

/* The list of the cache whose bytes are at the cursor, or NULL. */
HOT const span *span_find(const dump_pickle_fast *f, const span_cache *c) {
    for (unsigned k = 0; k < SPANS; k++) {
        const span *sp = &c->v[k];
        if (sp->bytes && sp->len < left(f) && same_bytes(sp->bytes, f->p, sp->len) &&
            !is_put(f->p[sp->len]) && sp->overwrites == f->overwrites)
            return sp;
    }
    return NULL;
}

/* Keeps the list just read from `start` when reading it put nothing in the memo (`puts`: the
 * count before). */
static void span_keep(dump_pickle_fast *f, span_cache *c, const uint8_t *start, uint64_t puts,
                      uint32_t count, const void *items) {
    size_t len = (size_t)(f->p - start);
    if (f->puts == puts && len <= SPAN_MAX)
        c->v[c->next++ % SPANS] = (span){ start, len, f->overwrites, count, items };
}

static bool read_shapes(dump_pickle_fast *f, fr_shapes *out) {
    span *sp = left(f) >= SHAPE_KEY ? shape_slot(f, f->p) : NULL;
    if (sp && shape_hit(f, sp, f->p, left(f))) {
        f->p += sp->len;
        *out = (fr_shapes){ sp->count, sp->items };
        return true;
    }
    const uint8_t *start = f->p;
    uint64_t puts = f->puts;
    if (!read_shapes_fresh(f, out)) return false;
    size_t len = (size_t)(f->p - start);
    if (sp && f->puts == puts && len <= SPAN_MAX)
        *sp = (span){ start, len, f->overwrites, out->count, out->shapes };
    return true;
}

static bool read_dtypes(dump_pickle_fast *f, fr_strings *out) {
    const fr_strings *known = left(f) >= 6 && !is_put(f->p[5]) ? one_dtype_at(f, f->p) : NULL;
    if (known) {
        f->p += 5;
        *out = *known;
        return true;
    }
    if (!next_is(f, OP_EMPTY_LIST) || !put_other(f)) return false;
    size_t n = 0;
    ptrdiff_t only = -1; /* the memo slot of the last item (a PUT may move the memo) */
    while (next_is(f, OP_MARK)) {
        while (peek(f) != OP_APPENDS) {
            memo_slot *s = read_str(f);
            if (!s || !pf_ensure(f, (void **)&f->lists.strs, &f->lists.strs_cap, n + 1,
                                 sizeof *f->lists.strs))
                return false;
            if (!(f->lists.strs[n++] = pf_slot_dtype(f, s))) return false;
            only = s == &f->loose ? -1 : s - f->memo;
        }
        f->p++;
        if (!put_other(f)) return false;
    }
    if (dump_store_dtypes(f->b, (uint32_t)n, f->lists.strs, out) != 0) return false;
    if (n == 1 && only >= 0) f->memo[only].dtypes = *out;
    return true;
}

/* PUTs inside or after a frame dict whose frame is not known yet: noted, filled in at the end. */
static bool note_pending(dump_pickle_fast *f, uint32_t *pending, int *npending) {
    uint32_t id;
    int r;
    while ((r = take_put(f, &id)) == 1) {
        if (*npending == FRAME_PENDING_MAX) return false;
        memo_set(f, id,
                 (memo_slot){ .kind = SLOT_OTHER }); /* a dict read back inside itself: decline */
        pending[(*npending)++] = id;
    }
    return r == 0;
}

/* One frame: a memoized frame dict, or a new {"name", "filename", "line"} dict. */
static bool read_frame(dump_pickle_fast *f, fr_frame *out) {
    if (peek(f) == OP_BINGET || peek(f) == OP_LONG_BINGET) {
        memo_slot *s = take_get(f);
        if (!s || s->kind != SLOT_FRAME) return false;
        *out = s->frame;
        return !is_put(peek(f));
    }
    uint32_t pending[FRAME_PENDING_MAX];
    int npending = 0;
    if (!next_is(f, OP_EMPTY_DICT) || !note_pending(f, pending, &npending)) return false;
    *out = (fr_frame){ .name = "", .filename = "", .line = 0 };
    unsigned seen = 0;
    while (next_is(f, OP_MARK)) {
        while (peek(f) != OP_SETITEMS) {
            memo_slot *key = read_str(f);
            if (!key) return false;
            unsigned bit = pf_slot_is(key, "name")       ? 1
                           : pf_slot_is(key, "filename") ? 2
                           : pf_slot_is(key, "line")     ? 4
                                                         : 0;
            if (bit & seen) return false; /* a repeated key: the generic path decides */
            seen |= bit;
            bool ok = bit == 1   ? read_str_field(f, &out->name)
                      : bit == 2 ? read_str_field(f, &out->filename)
                      : bit == 4 ? read_int(f, &out->line)
                                 : pf_read_value(f, 1) != NULL;
            if (!ok) return false;
        }
        f->p++;
        if (!note_pending(f, pending, &npending)) return false;
    }
    for (int i = 0; i < npending; i++)
        memo_set(f, pending[i], (memo_slot){ .kind = SLOT_FRAME, .frame = *out });
    return true;
}

static bool read_frames_fresh(dump_pickle_fast *f, fr_entry *e) {
    if (!next_is(f, OP_EMPTY_LIST) || !put_other(f)) return false;
    size_t n = 0;
    while (next_is(f, OP_MARK)) {
        while (peek(f) != OP_APPENDS) {
            if (!pf_ensure(f, (void **)&f->lists.frames, &f->lists.frames_cap, n + 1,
                           sizeof *f->lists.frames))
                return false;
            if (!read_frame(f, &f->lists.frames[n++])) return false;
        }
        f->p++;
        if (!put_other(f)) return false;
    }
    return dump_store_frames(f->b, f->lists.frames, (uint32_t)n, e) == 0;
}

static bool read_frames(dump_pickle_fast *f, fr_entry *e) {
    const span *sp = span_find(f, &f->stack_spans);
    if (sp) {
        f->p += sp->len;
        e->nframes = sp->count;
        e->frames = sp->items;
        return true;
    }
    const uint8_t *start = f->p;
    uint64_t puts = f->puts;
    if (!read_frames_fresh(f, e)) return false;
    span_keep(f, &f->stack_spans, start, puts, e->nframes, e->frames);
    return true;
}

static bool read_state(dump_pickle_fast *f, fr_state *out) {
    memo_slot *s = read_str(f);
    int state = s ? pf_slot_state(f, s) : -1;
    if (state < 0) return false;
    *out = (fr_state)state;
    return true;
}

bool pf_read_field(dump_pickle_fast *f, entry_field field, fr_entry *e) {
    int64_t i;
    switch (field) {
    case F_RECORD_ID: return read_int(f, &e->record_id);
    case F_PG_ID: return read_int(f, &e->pg_id);
    case F_PROCESS_GROUP: return read_process_group(f, e);
    case F_THREAD_NAME: return read_str_field(f, &e->thread_name);
    case F_THREAD_ID:
        if (peek(f) == OP_BINUNICODE || peek(f) == OP_SHORT_BINUNICODE || peek(f) == OP_BINGET ||
            peek(f) == OP_LONG_BINGET)
            return read_str_field(f, &e->thread_id);
        return read_int(f, &i) && (e->thread_id = dump_thread_id_text(f->b, i)) != NULL;
    case F_COLLECTIVE_SEQ_ID: return read_int(f, &e->collective_seq_id);
    case F_P2P_SEQ_ID: return read_int(f, &e->p2p_seq_id);
    case F_OP_ID: return read_int(f, &e->op_id);
    case F_PROFILING_NAME:
        if (next_is(f, OP_NONE)) return put_other(f);
        return read_str_field(f, &e->profiling_name);
    case F_TIME_CREATED_NS: return read_int(f, &e->time_created_ns);
    case F_DURATION_MS:
        if (next_is(f, OP_NONE)) return put_other(f);
        if (pf_read_float_raw(f, &e->duration_ms))
            e->has_duration = true;
        else if (read_int_raw(f, &i))
            e->duration_ms = (double)i, e->has_duration = true;
        else
            return false;
        return put_other(f);
    case F_INPUT_SIZES: return read_shapes(f, &e->input_sizes);
    case F_INPUT_DTYPES: return read_dtypes(f, &e->input_dtypes);
    case F_OUTPUT_SIZES: return read_shapes(f, &e->output_sizes);
    case F_OUTPUT_DTYPES: return read_dtypes(f, &e->output_dtypes);
    case F_STATE: return read_state(f, &e->state);
    case F_TIME_DISCOVERED_STARTED_NS:
        return pf_read_int_or_none(f, &e->time_discovered_started_ns);
    case F_TIME_DISCOVERED_COMPLETED_NS:
        return pf_read_int_or_none(f, &e->time_discovered_completed_ns);
    case F_RETIRED: return pf_read_bool(f, &e->retired);
    case F_TIMEOUT_MS: return read_int(f, &e->timeout_ms);
    case F_IS_P2P: return pf_read_bool(f, &e->is_p2p);
    case F_FRAMES: return read_frames(f, e);
    case F_COUNT:
    case F_UNKNOWN: break;
    }
    return false;
}
