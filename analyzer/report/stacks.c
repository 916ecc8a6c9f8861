/* stacks.c — merging identical stack frames across ranks (see stacks.h). A hash of each
 * call's frame text finds the ranks that share it; blocks come out in order of first rank. */
#include "report/stacks.h"

#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "util/index.h"
#include "safe_text.h"

/* One line per frame, name and file in their terminal form (safe_text.h): a frame's own newline
 * or escape sequence is shown, never obeyed, and never splits the frame into two lines. */
static char *frames_text(const fr_entry *e) {
    size_t cap = 64, len = 0;
    char *s = malloc(cap);
    if (!s) return NULL;
    s[0] = '\0';
    for (uint32_t i = 0; i < e->nframes; i++) {
        const fr_frame *f = &e->frames[i];
        char *name = fr_text_shown(f->name ? f->name : "?");
        char *file = fr_text_shown(f->filename ? f->filename : "?");
        size_t need = (name ? strlen(name) : 0) + (file ? strlen(file) : 0) + 48;
        if (!name || !file || fr_grow((void **)&s, &cap, len + need + 1, 1, 64)) {
            free(name);
            free(file);
            free(s);
            return NULL;
        }
        len +=
            (size_t)snprintf(s + len, cap - len, "%s at %s:%lld\n", name, file, (long long)f->line);
        free(name);
        free(file);
    }
    return s;
}

void fa_stacks_print(const fa_analysis *a, long op, FILE *out, const char *indent) {
    if (op < 0) return;
    const fa_op *o = &a->match.ops[op];
    const fa_group *g = &a->groups.v[o->group];
    fa_smap seen = { 0 };
    char **texts = calloc(o->ncalls + 1, sizeof *texts);
    fa_ranks *ranks = calloc(o->ncalls + 1, sizeof *ranks);
    size_t nblocks = 0;
    for (uint32_t i = 0; texts && ranks && i < o->ncalls; i++) {
        const fa_call *c = &a->match.calls[o->first_call + i];
        fr_entry e;
        fa_call_expand(&a->match, &a->in, c, 0, &e);
        char *t = frames_text(&e);
        if (!t) continue;
        uint64_t at;
        if (!fa_smap_get(&seen, t, &at)) {
            at = nblocks;
            texts[nblocks++] = strdup(t);
            fa_smap_put(&seen, t, at);
        }
        fa_ranks_add(&ranks[at], g->members[c->member]);
        free(t);
    }
    for (size_t b = 0; b < nblocks; b++) {
        char *who = fa_ranks_format(ranks[b].v, ranks[b].n);
        fprintf(out, "%srank%s %s:%s\n", indent, ranks[b].n > 1 ? "s" : "", who,
                texts[b][0] ? "" : " (no frames in the dump)");
        for (char *line = texts[b]; *line;) {
            char *nl = strchr(line, '\n');
            fprintf(out, "%s    %.*s\n", indent, (int)(nl - line), line);
            line = nl + 1;
        }
        free(who);
        free(texts[b]);
        fa_ranks_free(&ranks[b]);
    }
    free(texts);
    free(ranks);
    fa_smap_free(&seen);
}
