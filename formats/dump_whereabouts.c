/* dump_whereabouts.c — "frtrace_identity" and "frtrace_stacks" from a dump's value tree.
 *
 * Each reader returns OK, BAD (the value has the wrong shape: `why` says where) or NOMEM. A BAD
 * key is dropped whole, so a reader never sees half an identity or a thread without its frames.
 * Strings are interned in the dump like every other string of it; frame arrays are allocated
 * in the dump's arena.
 */
#include "dump_whereabouts.h"

#include <stdio.h>
#include <string.h>

typedef enum { OK = 0, BAD = 1, NOMEM = -1 } outcome;

typedef struct reader {
    dump_builder *b;
    char why[96];
} reader;

static outcome bad(reader *r, const char *what) {
    snprintf(r->why, sizeof r->why, "%s", what);
    return BAD;
}

static outcome str_of(reader *r, const fv *v, bool none_ok, const char **out, const char *what) {
    if (none_ok && (!v || fv_is(v, FV_NONE))) {
        *out = NULL;
        return OK;
    }
    if (!fv_is(v, FV_STR)) return bad(r, what);
    *out = dump_intern(r->b, v->u.s, v->len);
    return *out ? OK : NOMEM;
}

/* An int >= 0, or None/absent for "unknown" (-1). */
static outcome count_of(reader *r, const fv *v, int64_t *out, const char *what) {
    if (!v || fv_is(v, FV_NONE)) {
        *out = -1;
        return OK;
    }
    if (!fv_is(v, FV_INT) || v->u.i < 0) return bad(r, what);
    *out = v->u.i;
    return OK;
}

#define TRY(call)                                                                                  \
    do {                                                                                           \
        outcome o_ = (call);                                                                       \
        if (o_ != OK) return o_;                                                                   \
    } while (0)

/* --- identity ------------------------------------------------------------------------------ */

static outcome read_device(reader *r, const fv *v, fr_identity *id) {
    id->cuda_index = -1;
    if (!v || fv_is(v, FV_NONE)) return OK;
    if (!fv_is(v, FV_DICT)) return bad(r, "cuda_device is not a dict");
    TRY(count_of(r, fv_dict_get(v, "index"), &id->cuda_index, "cuda_device.index"));
    TRY(str_of(r, fv_dict_get(v, "pci_bus_id"), true, &id->pci_bus_id, "cuda_device.pci_bus_id"));
    TRY(str_of(r, fv_dict_get(v, "uuid"), true, &id->uuid, "cuda_device.uuid"));
    return OK;
}

static outcome read_identity(reader *r, const fv *v, fr_identity *id) {
    if (!fv_is(v, FV_DICT)) return bad(r, "not a dict");
    TRY(str_of(r, fv_dict_get(v, "hostname"), true, &id->hostname, "hostname"));
    TRY(count_of(r, fv_dict_get(v, "pid"), &id->pid, "pid"));
    TRY(count_of(r, fv_dict_get(v, "local_rank"), &id->local_rank, "local_rank"));
    TRY(read_device(r, fv_dict_get(v, "cuda_device"), id));
    TRY(str_of(r, fv_dict_get(v, "nccl_version"), true, &id->nccl_version, "nccl_version"));
    return OK;
}

/* --- stacks -------------------------------------------------------------------------------- */

/* A frame list: python frames {name, filename, line}, native ones {name, object, offset}. */
static outcome read_frames(reader *r, const fv *v, bool native, const fr_frame **out, uint32_t *n) {
    *out = NULL;
    *n = 0;
    if (!v) return OK;
    if (!fv_is(v, FV_LIST)) return bad(r, native ? "native is not a list" : "python is not a list");
    fr_frame *f = fv_arena_alloc(dump_arena(r->b), (size_t)(v->len ? v->len : 1) * sizeof *f);
    if (!f) return NOMEM;
    const char *file_key = native ? "object" : "filename", *line_key = native ? "offset" : "line";
    for (uint32_t i = 0; i < v->len; i++) {
        const fv *frame = fv_item(v, i), *line;
        if (!fv_is(frame, FV_DICT)) return bad(r, "a frame is not a dict");
        TRY(str_of(r, fv_dict_get(frame, "name"), native, &f[i].name, "a frame's name"));
        TRY(str_of(r, fv_dict_get(frame, file_key), false, &f[i].filename, file_key));
        if (!fv_is((line = fv_dict_get(frame, line_key)), FV_INT)) return bad(r, line_key);
        f[i].line = line->u.i;
    }
    *out = f;
    *n = v->len;
    return OK;
}

static outcome read_thread(reader *r, const fv *v, fr_thread_stack *t) {
    const fv *tid;
    if (!fv_is(v, FV_DICT)) return bad(r, "a thread is not a dict");
    if (!fv_is((tid = fv_dict_get(v, "thread_id")), FV_INT)) return bad(r, "thread_id");
    t->thread_id = tid->u.i;
    TRY(str_of(r, fv_dict_get(v, "thread_name"), true, &t->thread_name, "thread_name"));
    TRY(read_frames(r, fv_dict_get(v, "python"), false, &t->python, &t->npython));
    TRY(read_frames(r, fv_dict_get(v, "native"), true, &t->native, &t->nnative));
    TRY(str_of(r, fv_dict_get(v, "note"), true, &t->note, "note"));
    return OK;
}

static outcome read_stacks(reader *r, const fv *v, fr_dump *d) {
    if (!fv_is(v, FV_LIST)) return bad(r, "not a list");
    fr_thread_stack *t =
        fv_arena_alloc(dump_arena(r->b), (size_t)(v->len ? v->len : 1) * sizeof *t);
    if (!t) return NOMEM;
    memset(t, 0, (size_t)(v->len ? v->len : 1) * sizeof *t);
    for (uint32_t i = 0; i < v->len; i++) TRY(read_thread(r, fv_item(v, i), &t[i]));
    d->threads = t;
    d->nthreads = v->len;
    return OK;
}

/* --- the two keys -------------------------------------------------------------------------- */

static int dropped(reader *r, fr_dump *d, const char *key) {
    if (d->warning) return 0;
    char text[160];
    snprintf(text, sizeof text, "\"%s\" dropped: %s", key, r->why);
    d->warning = fv_arena_strdup(dump_arena(r->b), text, strlen(text));
    return d->warning ? 0 : dump_out_of_memory(r->b);
}

int dump_decode_whereabouts(dump_builder *b, const fv *root, fr_dump *d) {
    reader r = { .b = b };
    const fv *identity = fv_dict_get(root, FR_IDENTITY_KEY),
             *stacks = fv_dict_get(root, FR_STACKS_KEY);
    /* a file cut short inside either key: what was cut is not described, so nothing is */
    if (identity && (identity->flags & FV_FLAG_TRUNCATED)) identity = NULL;
    if (stacks && (stacks->flags & FV_FLAG_TRUNCATED)) stacks = NULL;
    if (identity) {
        fr_identity id = { .pid = -1, .local_rank = -1, .cuda_index = -1 };
        outcome o = read_identity(&r, identity, &id);
        if (o == NOMEM) return dump_out_of_memory(b);
        if (o == BAD && dropped(&r, d, FR_IDENTITY_KEY)) return -1;
        if (o == OK) {
            d->identity = id;
            d->has_identity = true;
        }
    }
    if (stacks) {
        outcome o = read_stacks(&r, stacks, d);
        if (o == NOMEM) return dump_out_of_memory(b);
        if (o == BAD) {
            d->threads = NULL;
            d->nthreads = 0;
            if (dropped(&r, d, FR_STACKS_KEY)) return -1;
        }
        d->has_stacks = o == OK;
    }
    return 0;
}
