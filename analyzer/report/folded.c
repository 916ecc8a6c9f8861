/* folded.c — folded stacks for flame graphs (see folded.h).
 *
 * Each thread's line is built as text, frame by frame, then counted in a string map; the
 * distinct lines are sorted with strcmp at the end.
 */
#include "report/folded.h"

#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "util/index.h"
#include "safe_text.h"
#include "report/whereabouts.h"

typedef struct line {
    char *v;
    size_t n, cap;
    bool failed;
} line;

/* Appends one frame: ';' before it unless it is the root, its text shown, ';' made ':'. */
static void add_frame(line *l, const char *raw) {
    char *text = fr_text_shown(raw);
    size_t len = text ? strlen(text) : 0;
    if (!text || fr_grow((void **)&l->v, &l->cap, l->n + len + 2, 1, 256)) {
        l->failed = true;
        free(text);
        return;
    }
    if (l->n) l->v[l->n++] = ';';
    for (size_t i = 0; i < len; i++) l->v[l->n++] = text[i] == ';' ? ':' : text[i];
    l->v[l->n] = '\0';
    free(text);
}

static void add_python(line *l, const fr_frame *f) {
    char *text = NULL;
    if (asprintf(&text, "%s (%s:%lld)", f->name ? f->name : "?", fa_where_basename(f->filename),
                 (long long)f->line) < 0) {
        l->failed = true;
        return;
    }
    add_frame(l, text);
    free(text);
}

static void add_native(line *l, const fr_frame *f) {
    char *text = NULL;
    if (f->name) {
        add_frame(l, f->name);
        return;
    }
    if (asprintf(&text, "%s+0x%llx", fa_where_basename(f->filename), (unsigned long long)f->line) <
        0) {
        l->failed = true;
        return;
    }
    add_frame(l, text);
    free(text);
}

static void thread_line(const fa_store *s, int64_t rank, bool by_rank, const fa_thread *t,
                        line *l) {
    fa_frames python = fa_store_frames(s, t->python), native = fa_store_frames(s, t->native);
    size_t shown = fa_where_native_shown(s, t);
    char root[40];
    l->n = 0;
    if (by_rank) snprintf(root, sizeof root, "rank %lld", (long long)rank), add_frame(l, root);
    add_frame(l, t->name && *t->name ? t->name : "?");
    for (size_t i = python.n; i-- > 0;) add_python(l, &python.v[i]);
    for (size_t i = shown; i-- > 0;) add_native(l, &native.v[i]);
    if (!python.n && !shown) add_frame(l, "[no stack]");
}

static bool selected(const fa_report_options *opt, int64_t rank) {
    if (!opt->selected_ranks) return true;
    for (size_t i = 0; i < opt->nselected_ranks; i++)
        if (opt->selected_ranks[i] == rank) return true;
    return false;
}

static int by_text(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int fa_report_folded(const fa_input *in, const fa_report_options *opt, bool by_rank, FILE *out,
                     size_t *nthreads) {
    fa_smap counts = { 0 };
    char **keys = NULL;
    size_t nkeys = 0, cap = 0;
    line l = { 0 };
    *nthreads = 0;
    for (size_t r = 0; r < in->nranks && !l.failed; r++) {
        const fa_dump *d = in->ranks[r].dump;
        if (!d->has_stacks || !selected(opt, in->ranks[r].rank)) continue;
        for (uint32_t i = 0; i < d->nthreads && !l.failed; i++) {
            thread_line(in->store, in->ranks[r].rank, by_rank, &d->threads[i], &l);
            uint64_t n = 0;
            if (l.failed) break;
            bool known = fa_smap_get(&counts, l.v, &n);
            if (!known && (fr_grow((void **)&keys, &cap, nkeys + 1, sizeof *keys, 64) ||
                           !(keys[nkeys] = strdup(l.v)))) {
                l.failed = true;
                break;
            }
            nkeys += !known;
            if (fa_smap_put(&counts, l.v, n + 1) != 0) l.failed = true;
            (*nthreads)++;
        }
    }
    if (!l.failed && nkeys) qsort(keys, nkeys, sizeof *keys, by_text);
    for (size_t i = 0; i < nkeys; i++) {
        uint64_t n = 0;
        fa_smap_get(&counts, keys[i], &n);
        if (!l.failed) fprintf(out, "%s %llu\n", keys[i], (unsigned long long)n);
        free(keys[i]);
    }
    free(keys);
    free(l.v);
    fa_smap_free(&counts);
    return l.failed || ferror(out) ? -1 : 0;
}
