/* dump_write_whereabouts.c — writes "frtrace_identity" and "frtrace_stacks" (see the header).
 *
 * Both keys come after every key PyTorch's tools read, so that their readers meet nothing new
 * before the end. Unknown values are None (pickle) or null (JSON), never a made-up default:
 * a reader must be able to tell "no GPU" from "GPU 0".
 */
#include "dump_write_whereabouts.h"

#include <string.h>

/* --- pickle -------------------------------------------------------------------------------- */

static void p_str_or_none(pw_writer *w, const char *s) {
    if (s)
        pw_cstr(w, s);
    else
        pw_none(w);
}

static void p_int_or_none(pw_writer *w, int64_t v) {
    if (v >= 0)
        pw_int(w, v);
    else
        pw_none(w);
}

static void p_identity(pw_writer *w, const fr_identity *id) {
    pw_cstr(w, FR_IDENTITY_KEY);
    pw_dict_begin(w);
    pw_cstr(w, "hostname"), p_str_or_none(w, id->hostname);
    pw_cstr(w, "pid"), p_int_or_none(w, id->pid);
    pw_cstr(w, "local_rank"), p_int_or_none(w, id->local_rank);
    pw_cstr(w, "cuda_device");
    if (id->cuda_index < 0) {
        pw_none(w);
    } else {
        pw_dict_begin(w);
        pw_cstr(w, "index"), pw_int(w, id->cuda_index);
        pw_cstr(w, "pci_bus_id"), p_str_or_none(w, id->pci_bus_id);
        pw_cstr(w, "uuid"), p_str_or_none(w, id->uuid);
        pw_dict_end(w);
    }
    pw_cstr(w, "nccl_version"), p_str_or_none(w, id->nccl_version);
    pw_dict_end(w);
}

static void p_frames(pw_writer *w, const fr_frame *f, uint32_t n, bool native) {
    pw_list_begin(w);
    for (uint32_t i = 0; i < n; i++) {
        pw_dict_begin(w);
        pw_cstr(w, "name");
        if (native)
            p_str_or_none(w, f[i].name);
        else
            pw_cstr(w, f[i].name ? f[i].name : "");
        pw_cstr(w, native ? "object" : "filename"), pw_cstr(w, f[i].filename ? f[i].filename : "");
        pw_cstr(w, native ? "offset" : "line"), pw_int(w, f[i].line);
        pw_dict_end(w);
    }
    pw_list_end(w);
}

static void p_stacks(pw_writer *w, const fr_dump *d) {
    pw_cstr(w, FR_STACKS_KEY);
    pw_list_begin(w);
    for (uint32_t i = 0; i < d->nthreads; i++) {
        const fr_thread_stack *t = &d->threads[i];
        pw_dict_begin(w);
        pw_cstr(w, "thread_id"), pw_int(w, t->thread_id);
        pw_cstr(w, "thread_name"), pw_cstr(w, t->thread_name ? t->thread_name : "");
        pw_cstr(w, "python"), p_frames(w, t->python, t->npython, false);
        pw_cstr(w, "native"), p_frames(w, t->native, t->nnative, true);
        if (t->note) pw_cstr(w, "note"), pw_cstr(w, t->note);
        pw_dict_end(w);
    }
    pw_list_end(w);
}

void fr_write_whereabouts_pickle(pw_writer *w, const fr_dump *d) {
    if (d->has_identity) p_identity(w, &d->identity);
    if (d->has_stacks) p_stacks(w, d);
}

/* --- JSON ---------------------------------------------------------------------------------- */

typedef struct jout {
    fr_json_put put;
    void *ctx;
} jout;

static void j_lit(const jout *j, const char *s) { j->put(j->ctx, s, strlen(s)); }

static void j_str(const jout *j, const char *s) {
    j->put(j->ctx, "\"", 1);
    fr_json_escape(s, strlen(s), false, j->put, j->ctx);
    j->put(j->ctx, "\"", 1);
}

static void j_str_or_null(const jout *j, const char *s) {
    if (s)
        j_str(j, s);
    else
        j_lit(j, "null");
}

static void j_int(const jout *j, int64_t v) {
    char buf[24];
    j->put(j->ctx, buf, fr_json_int(v, buf));
}

static void j_int_or_null(const jout *j, int64_t v) {
    if (v >= 0)
        j_int(j, v);
    else
        j_lit(j, "null");
}

/* The separator before a member of the top-level object: none before its first. */
static void j_member(const jout *j, bool *first, const char *key) {
    if (!*first) j_lit(j, ",");
    *first = false;
    j_lit(j, key);
}

static void j_identity(const jout *j, const fr_identity *id) {
    j_lit(j, "{\"cuda_device\":");
    if (id->cuda_index < 0) {
        j_lit(j, "null");
    } else {
        j_lit(j, "{\"index\":"), j_int(j, id->cuda_index);
        j_lit(j, ",\"pci_bus_id\":"), j_str_or_null(j, id->pci_bus_id);
        j_lit(j, ",\"uuid\":"), j_str_or_null(j, id->uuid);
        j_lit(j, "}");
    }
    j_lit(j, ",\"hostname\":"), j_str_or_null(j, id->hostname);
    j_lit(j, ",\"local_rank\":"), j_int_or_null(j, id->local_rank);
    j_lit(j, ",\"nccl_version\":"), j_str_or_null(j, id->nccl_version);
    j_lit(j, ",\"pid\":"), j_int_or_null(j, id->pid);
    j_lit(j, "}");
}

static void j_frames(const jout *j, const fr_frame *f, uint32_t n, bool native) {
    j_lit(j, "[");
    for (uint32_t i = 0; i < n; i++) {
        if (i) j_lit(j, ",");
        if (native) {
            j_lit(j, "{\"name\":"), j_str_or_null(j, f[i].name);
            j_lit(j, ",\"object\":"), j_str(j, f[i].filename ? f[i].filename : "");
            j_lit(j, ",\"offset\":"), j_int(j, f[i].line);
        } else {
            j_lit(j, "{\"filename\":"), j_str(j, f[i].filename ? f[i].filename : "");
            j_lit(j, ",\"line\":"), j_int(j, f[i].line);
            j_lit(j, ",\"name\":"), j_str(j, f[i].name ? f[i].name : "");
        }
        j_lit(j, "}");
    }
    j_lit(j, "]");
}

static void j_stacks(const jout *j, const fr_dump *d) {
    j_lit(j, "[");
    for (uint32_t i = 0; i < d->nthreads; i++) {
        const fr_thread_stack *t = &d->threads[i];
        j_lit(j, i ? ",{\"native\":" : "{\"native\":");
        j_frames(j, t->native, t->nnative, true);
        if (t->note) j_lit(j, ",\"note\":"), j_str(j, t->note);
        j_lit(j, ",\"python\":"), j_frames(j, t->python, t->npython, false);
        j_lit(j, ",\"thread_id\":"), j_int(j, t->thread_id);
        j_lit(j, ",\"thread_name\":"), j_str(j, t->thread_name ? t->thread_name : "");
        j_lit(j, "}");
    }
    j_lit(j, "]");
}

void fr_write_whereabouts_json(const fr_dump *d, bool *first, fr_json_put put, void *ctx) {
    jout j = { put, ctx };
    if (d->has_identity) {
        j_member(&j, first, "\"" FR_IDENTITY_KEY "\":");
        j_identity(&j, &d->identity);
    }
    if (d->has_stacks) {
        j_member(&j, first, "\"" FR_STACKS_KEY "\":");
        j_stacks(&j, d);
    }
}
