/* whereabouts.c — places, the thread that matters, trimmed frames and groups (whereabouts.h).
 *
 * A group's key is the text of its thread's Python frames (name, file, line) and of its shown
 * native frames by name (an unnamed frame by its object): two ranks of one binary waiting in the
 * same call group together even when the exact instruction differs (a spinning loop). The keys
 * go into a string map, so grouping 16 384 ranks is one pass.
 */
#include "report/whereabouts.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "util/index.h"

const char *fa_where_basename(const char *path) {
    const char *slash = path ? strrchr(path, '/') : NULL;
    return slash ? slash + 1 : path ? path : "";
}

char *fa_where_place(const fa_input *in, int64_t rank) {
    long at = fa_input_find(in, rank);
    const fa_dump *d = at >= 0 ? in->ranks[at].dump : NULL;
    const fr_identity *id = d && d->has_identity ? &d->identity : NULL;
    const char *host = id && id->hostname ? id->hostname : fa_hosts_find(&in->hosts, rank);
    char *text = NULL;
    if (!host && !(id && id->cuda_index >= 0)) return NULL;
    char gpu[160] = "";
    if (id && id->cuda_index >= 0)
        snprintf(gpu, sizeof gpu, "%sGPU %lld%s%.100s%s", host ? ", " : "",
                 (long long)id->cuda_index, id->pci_bus_id ? " (" : "",
                 id->pci_bus_id ? id->pci_bus_id : "", id->pci_bus_id ? ")" : "");
    if (asprintf(&text, "%s%s", host ? host : "", gpu) < 0) return NULL;
    return text;
}

bool fa_where_known(const fa_input *in) {
    if (in->hosts.n) return true;
    for (size_t i = 0; i < in->nranks; i++)
        if (in->ranks[i].dump->has_identity || in->ranks[i].dump->has_stacks) return true;
    return false;
}

const fa_thread *fa_where_thread(const fa_dump *d) {
    if (!d->has_stacks || !d->nthreads) return NULL;
    int64_t pid = d->has_identity ? d->identity.pid : -1;
    for (uint32_t i = 0; i < d->nthreads; i++)
        if (d->caller_tid >= 0 && d->threads[i].tid == d->caller_tid) return &d->threads[i];
    for (uint32_t i = 0; i < d->nthreads; i++)
        if (pid >= 0 && d->threads[i].tid == pid) return &d->threads[i];
    for (uint32_t i = 0; i < d->nthreads; i++)
        if (d->threads[i].python != FA_NONE) return &d->threads[i];
    for (uint32_t i = 0; i < d->nthreads; i++)
        if (d->threads[i].native != FA_NONE) return &d->threads[i];
    return &d->threads[0];
}

/* --- trimming ------------------------------------------------------------------------------ */

static bool starts_with(const char *s, const char *prefix) {
    return s && strncmp(s, prefix, strlen(prefix)) == 0;
}

static bool interpreter_loop(const fr_frame *f) {
    return starts_with(f->name, "_PyEval_") || starts_with(f->name, "PyEval_");
}

static bool in_libc(const fr_frame *f) {
    const char *base = fa_where_basename(f->filename);
    return starts_with(base, "libc.so") || starts_with(base, "libc-") ||
           starts_with(base, "libpthread") || starts_with(base, "ld-linux");
}

static bool start_up(const fr_frame *f) {
    static const char *const names[] = {
        "_start",  "__libc_start_main", "__libc_start_call_main", "start_thread", "clone", "clone3",
        "__clone", "__clone3"
    };
    if (!f->name) return in_libc(f);
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(f->name, names[i]) == 0) return true;
    return false;
}

size_t fa_where_native_shown(const fa_store *s, const fa_thread *t) {
    fa_frames native = fa_store_frames(s, t->native);
    if (t->python != FA_NONE) {
        for (size_t i = 0; i < native.n; i++)
            if (interpreter_loop(&native.v[i])) return i;
        return native.n;
    }
    size_t n = native.n;
    while (n > 1 && start_up(&native.v[n - 1])) n--;
    return n;
}

/* The native frame that says most: the innermost named one outside libc, else the innermost
 * named one; NULL when none of the shown frames has a name. */
static const fr_frame *telling_frame(const fa_frames *native, size_t shown) {
    for (size_t i = 0; i < shown; i++)
        if (native->v[i].name && !in_libc(&native->v[i])) return &native->v[i];
    for (size_t i = 0; i < shown; i++)
        if (native->v[i].name) return &native->v[i];
    return NULL;
}

char *fa_where_summary(const fa_store *s, const fa_thread *t) {
    fa_frames python = fa_store_frames(s, t->python), native = fa_store_frames(s, t->native);
    size_t shown = fa_where_native_shown(s, t);
    const fr_frame *inner = telling_frame(&native, shown);
    char *text = NULL;
    int rc;
    if (python.n)
        rc = inner ? asprintf(&text, "in %s at %s:%lld (in %s)", python.v[0].name,
                              fa_where_basename(python.v[0].filename), (long long)python.v[0].line,
                              inner->name)
                   : asprintf(&text, "in %s at %s:%lld", python.v[0].name,
                              fa_where_basename(python.v[0].filename), (long long)python.v[0].line);
    else if (inner)
        rc = asprintf(&text, "in %s (%s)", inner->name, fa_where_basename(inner->filename));
    else if (native.n)
        rc = asprintf(&text, "in %s+0x%llx", fa_where_basename(native.v[0].filename),
                      (unsigned long long)native.v[0].line);
    else
        rc = asprintf(&text, "%s", t->note ? t->note : "no frames");
    return rc < 0 ? NULL : text;
}

/* --- groups -------------------------------------------------------------------------------- */

typedef struct keybuf {
    char *v;
    size_t n, cap;
} keybuf;

static bool key_add(keybuf *k, const char *s) {
    size_t len = strlen(s ? s : "?");
    if (fr_grow((void **)&k->v, &k->cap, k->n + len + 2, 1, 256)) return false;
    memcpy(k->v + k->n, s ? s : "?", len);
    k->n += len;
    k->v[k->n++] = '\n';
    k->v[k->n] = '\0';
    return true;
}

static bool group_key(const fa_store *s, const fa_thread *t, keybuf *k) {
    fa_frames python = fa_store_frames(s, t->python), native = fa_store_frames(s, t->native);
    size_t shown = fa_where_native_shown(s, t);
    char line[32];
    k->n = 0;
    bool ok = key_add(k, "");
    for (size_t i = 0; ok && i < python.n; i++) {
        snprintf(line, sizeof line, ":%lld", (long long)python.v[i].line);
        ok = key_add(k, python.v[i].name) && key_add(k, python.v[i].filename) && key_add(k, line);
    }
    for (size_t i = 0; ok && i < shown; i++)
        ok = key_add(k, native.v[i].name ? native.v[i].name : native.v[i].filename);
    return ok;
}

static bool selected(const int64_t *v, size_t n, int64_t rank) {
    if (!v) return true;
    for (size_t i = 0; i < n; i++)
        if (v[i] == rank) return true;
    return false;
}

int fa_where_group_ranks(const fa_input *in, const int64_t *sel, size_t nsel,
                         fa_where_groups *out) {
    memset(out, 0, sizeof *out);
    fa_smap index = { 0 };
    keybuf key = { 0 };
    size_t cap = 0;
    int rc = 0;
    for (size_t i = 0; i < in->nranks && rc == 0; i++) {
        const fa_dump *d = in->ranks[i].dump;
        const fa_thread *t = fa_where_thread(d);
        if (!t || !selected(sel, nsel, in->ranks[i].rank)) continue;
        uint64_t at;
        if (!group_key(in->store, t, &key)) {
            rc = -1;
        } else if (!fa_smap_get(&index, key.v, &at)) {
            at = out->n;
            if (fr_grow((void **)&out->v, &cap, out->n + 1, sizeof *out->v, 16) ||
                fa_smap_put(&index, key.v, at) != 0) {
                rc = -1;
                break;
            }
            out->v[out->n++] = (fa_where_group){ { 0 }, d, t, fa_where_summary(in->store, t) };
        }
        if (rc == 0) fa_ranks_add(&out->v[at].ranks, in->ranks[i].rank);
    }
    free(key.v);
    fa_smap_free(&index);
    if (rc) fa_where_groups_free(out);
    return rc;
}

void fa_where_groups_free(fa_where_groups *g) {
    for (size_t i = 0; i < g->n; i++) {
        fa_ranks_free(&g->v[i].ranks);
        free(g->v[i].summary);
    }
    free(g->v);
    memset(g, 0, sizeof *g);
}
