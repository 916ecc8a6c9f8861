/* report_whereabouts.c — the reports' "where the culprit is now" and "every rank at dump time"
 * sections, and the database's "whereabouts" key (whereabouts.h decides what; this lays it out).
 *
 * Text and the ticket (markdown, Jira) show, for each culprit that its dump or --hosts places: its
 * host and GPU, the thread that matters with its Python frames and the native frames above the
 * interpreter, and one line for each other thread; then every rank grouped by the frames its thread
 * stands in. Nothing is shown when no dump says where it was (PyTorch's dumps without --hosts), so
 * reports of such jobs are as before. Every piece of dump text goes through safe_text.h.
 */
#include "report/report_whereabouts.h"

#include <stdlib.h>
#include <string.h>

#include "report/json_writer.h"
#include "report/markup.h"
#include "safe_text.h"
#include "report/table.h"
#include "report/whereabouts.h"
#include "report/wrap.h"

#define NATIVE_SHOWN  8 /* native frames of a culprit's thread in text and markdown */
#define THREADS_SHOWN 8 /* other threads of a culprit, one line each */

static const fa_dump *dump_of(const fa_input *in, int64_t rank) {
    long at = fa_input_find(in, rank);
    return at >= 0 ? in->ranks[at].dump : NULL;
}

/* "rank 2 on node-17, GPU 3 (0000:5A:00.0), pid 4242", shown; NULL when nothing places it. */
static char *culprit_line(const fa_input *in, int64_t rank) {
    char *place = fa_where_place(in, rank), *shown = place ? fr_text_shown(place) : NULL,
         *line = NULL;
    const fa_dump *d = dump_of(in, rank);
    bool stacks = d && fa_where_thread(d);
    char pid[40] = "";
    if (d && d->has_identity && d->identity.pid >= 0)
        snprintf(pid, sizeof pid, "%spid %lld", shown ? ", " : " (", (long long)d->identity.pid);
    if ((shown || stacks) &&
        asprintf(&line, "rank %lld%s%s%s%s", (long long)rank, shown ? " on " : "",
                 shown ? shown : "", pid, pid[0] && !shown ? ")" : "") < 0)
        line = NULL;
    free(place);
    free(shown);
    return line;
}

static char *frame_text(const fr_frame *f, bool python) {
    char *text = NULL;
    int rc = python    ? asprintf(&text, "%s (%s:%lld)", f->name ? f->name : "?",
                                  fa_where_basename(f->filename), (long long)f->line)
             : f->name ? asprintf(&text, "%s (%s)", f->name, fa_where_basename(f->filename))
                       : asprintf(&text, "%s+0x%llx", fa_where_basename(f->filename),
                                  (unsigned long long)f->line);
    if (rc < 0) return NULL;
    char *shown = fr_text_shown(text);
    free(text);
    return shown;
}

/* --- text ---------------------------------------------------------------------------------- */

static void text_line(FILE *out, const char *first, const char *indent, const char *raw,
                      size_t width) {
    char *shown = fr_text_shown(raw);
    if (shown) fa_wrap_print(out, first, indent, shown, width);
    free(shown);
}

static void text_thread(const fa_input *in, const fa_dump *d, const fa_thread *t, size_t width,
                        FILE *out) {
    fa_frames python = fa_store_frames(in->store, t->python),
              native = fa_store_frames(in->store, t->native);
    size_t shown = fa_where_native_shown(in->store, t);
    char *name = fr_text_shown(t->name), *head = NULL;
    if (asprintf(&head, "thread %s (%lld)%s:", name ? name : "?", (long long)t->tid,
                 t->tid == d->caller_tid ? ", which made the rank's last NCCL call" : "") >= 0)
        fa_wrap_print(out, "    ", "      ", head, width);
    free(head);
    free(name);
    for (size_t i = 0; i < python.n; i++) {
        char *f = frame_text(&python.v[i], true);
        if (f) fa_wrap_print(out, "      ", "        ", f, width);
        free(f);
    }
    if (shown) fputs(python.n ? "      native, above the interpreter:\n" : "      native:\n", out);
    for (size_t i = 0; i < shown && i < NATIVE_SHOWN; i++) {
        char *f = frame_text(&native.v[i], false);
        if (f) fa_wrap_print(out, "        ", "          ", f, width);
        free(f);
    }
    if (shown > NATIVE_SHOWN) fprintf(out, "        (%zu more)\n", shown - NATIVE_SHOWN);
    if (t->note) text_line(out, "      note: ", "        ", t->note, width);
}

static void text_other_threads(const fa_input *in, const fa_dump *d, const fa_thread *main,
                               size_t width, FILE *out) {
    size_t others = d->nthreads - 1, listed = 0;
    if (!others) return;
    fprintf(out, "    %zu other thread%s:\n", others, others > 1 ? "s" : "");
    for (uint32_t i = 0; i < d->nthreads && listed < THREADS_SHOWN; i++) {
        const fa_thread *t = &d->threads[i];
        if (t == main) continue;
        char *summary = fa_where_summary(in->store, t), *line = NULL;
        if (summary && asprintf(&line, "%s (%lld): %s", t->name ? t->name : "?", (long long)t->tid,
                                summary) >= 0)
            text_line(out, "      ", "        ", line, width);
        free(summary);
        free(line);
        listed++;
    }
    if (others > listed)
        fprintf(out, "      (%zu more; frtrace stacks DIR shows every thread)\n", others - listed);
}

static void text_culprits(const fa_analysis *a, const fa_report_options *opt, FILE *out) {
    bool header = false;
    const fa_ranks *culprits = &a->verdict.culprits;
    for (size_t i = 0; i < culprits->n; i++) {
        char *line = culprit_line(&a->in, culprits->v[i]);
        if (!line) continue;
        if (!header)
            fprintf(out, "where the culprit%s %s now (when %s dumped):\n\n",
                    culprits->n > 1 ? "s" : "", culprits->n > 1 ? "are" : "is",
                    culprits->n > 1 ? "they" : "it");
        header = true;
        fa_wrap_print(out, "  ", "    ", line, opt->width);
        free(line);
        const fa_dump *d = dump_of(&a->in, culprits->v[i]);
        const fa_thread *t = d ? fa_where_thread(d) : NULL;
        if (t) {
            text_thread(&a->in, d, t, opt->width, out);
            text_other_threads(&a->in, d, t, opt->width, out);
        }
        fputc('\n', out);
    }
}

static void text_groups(const fa_where_groups *g, const fa_report_options *opt, FILE *out) {
    if (!g->n) return;
    fputs("every rank at dump time (ranks in the same frames together):\n\n", out);
    for (size_t i = 0; i < g->n; i++) {
        char *who = fa_ranks_format(g->v[i].ranks.v, g->v[i].ranks.n), *line = NULL,
             *summary = fr_text_shown(g->v[i].summary);
        if (who && summary &&
            asprintf(&line, "rank%s %s: %s", g->v[i].ranks.n > 1 ? "s" : "", who, summary) >= 0)
            fa_wrap_print(out, "  ", "      ", line, opt->width);
        free(who);
        free(summary);
        free(line);
    }
    fputc('\n', out);
}

void fa_report_whereabouts_text(const fa_analysis *a, const fa_report_options *opt, FILE *out) {
    if (!fa_where_known(&a->in)) return;
    fa_where_groups g;
    text_culprits(a, opt, out);
    if (fa_where_group_ranks(&a->in, opt->selected_ranks, opt->nselected_ranks, &g) == 0) {
        text_groups(&g, opt, out);
        fa_where_groups_free(&g);
    }
}

/* --- the ticket: markdown or Jira (markup.h) ----------------------------------------------- */

static void ticket_frames(const fa_input *in, const fa_thread *t, fa_markup m, FILE *out) {
    fa_frames python = fa_store_frames(in->store, t->python),
              native = fa_store_frames(in->store, t->native);
    size_t shown = fa_where_native_shown(in->store, t);
    fa_table tb;
    fa_table_init(&tb, 2);
    fa_table_row(&tb);
    fa_table_cell(&tb, "frame");
    fa_table_cell(&tb, "where");
    for (size_t i = 0; i < python.n; i++) {
        fa_table_row(&tb);
        fa_table_cell(&tb, "%s", python.v[i].name ? python.v[i].name : "?");
        fa_table_cell(&tb, "%s:%lld", fa_where_basename(python.v[i].filename),
                      (long long)python.v[i].line);
    }
    for (size_t i = 0; i < shown && i < NATIVE_SHOWN; i++) {
        fa_table_row(&tb);
        if (native.v[i].name)
            fa_table_cell(&tb, "%s", native.v[i].name);
        else
            fa_table_cell(&tb, "+0x%llx", (unsigned long long)native.v[i].line);
        fa_table_cell(&tb, "%s (native)", fa_where_basename(native.v[i].filename));
    }
    fa_mu_table(out, m, &tb);
    fa_table_free(&tb);
    fputc('\n', out);
}

static void ticket_culprit(const fa_input *in, int64_t rank, fa_markup m, FILE *out) {
    const fa_dump *d = dump_of(in, rank);
    const fa_thread *t = d ? fa_where_thread(d) : NULL;
    char *place = fa_where_place(in, rank), who[40];
    snprintf(who, sizeof who, "Rank %lld", (long long)rank);
    fa_mu_bold(out, m, who);
    if (place) fputs(" on ", out), fa_mu_code(out, m, place);
    if (d && d->has_identity && d->identity.pid >= 0)
        fprintf(out, ", pid %lld", (long long)d->identity.pid);
    free(place);
    if (!t) {
        fputs(".\n\n", out);
        return;
    }
    fputs(". Thread ", out);
    fa_mu_code(out, m, t->name);
    fprintf(out, " (%lld)%s:\n\n", (long long)t->tid,
            t->tid == d->caller_tid ? ", which made the rank's last NCCL call" : "");
    ticket_frames(in, t, m, out);
    if (t->note) fputs("Note: ", out), fa_mu_code(out, m, t->note), fputs("\n\n", out);
    for (uint32_t i = 0, listed = 0; i < d->nthreads && listed < THREADS_SHOWN; i++) {
        if (&d->threads[i] == t) continue;
        char *summary = fa_where_summary(in->store, &d->threads[i]);
        fa_mu_item(out, m, false);
        fputs("thread ", out);
        fa_mu_code(out, m, d->threads[i].name);
        fprintf(out, " (%lld): ", (long long)d->threads[i].tid);
        fa_mu_code(out, m, summary);
        fputc('\n', out);
        free(summary);
        listed++;
    }
    fputc('\n', out);
}

void fa_report_whereabouts_ticket(const fa_analysis *a, const fa_report_options *opt, fa_markup m,
                                  FILE *out) {
    if (!fa_where_known(&a->in)) return;
    const fa_ranks *culprits = &a->verdict.culprits;
    bool header = false;
    for (size_t i = 0; i < culprits->n; i++) {
        char *line = culprit_line(&a->in, culprits->v[i]);
        if (!line) continue;
        free(line);
        if (!header) fa_mu_heading(out, m, 2), fputs("Where the culprit is now\n\n", out);
        header = true;
        ticket_culprit(&a->in, culprits->v[i], m, out);
    }
    fa_where_groups g;
    if (fa_where_group_ranks(&a->in, opt->selected_ranks, opt->nselected_ranks, &g) != 0) return;
    if (g.n) {
        fa_table tb;
        fa_table_init(&tb, 2);
        fa_table_row(&tb);
        fa_table_cell(&tb, "ranks");
        fa_table_cell(&tb, "where");
        for (size_t i = 0; i < g.n; i++) {
            char *who = fa_ranks_format(g.v[i].ranks.v, g.v[i].ranks.n);
            fa_table_row(&tb);
            fa_table_cell(&tb, "%s", who ? who : "?");
            fa_table_cell(&tb, "%s", g.v[i].summary);
            free(who);
        }
        fa_mu_heading(out, m, 2);
        fputs("Every rank at dump time\n\n", out);
        fa_mu_table(out, m, &tb);
        fa_table_free(&tb);
        fputc('\n', out);
    }
    fa_where_groups_free(&g);
}

/* --- database ------------------------------------------------------------------------------ */

/* A string value, null when there is none. */
static void j_str(jw *w, const char *key, const char *s) {
    if (s)
        jw_str(w, key, s);
    else
        jw_null(w, key);
}

/* A count or id that is negative when unknown: null then. */
static void j_int_or_null(jw *w, const char *key, int64_t v) {
    if (v >= 0)
        jw_i64(w, key, v);
    else
        jw_null(w, key);
}

static void j_frames(jw *w, const char *key, const fa_frames *f, size_t n, bool native) {
    jw_key(w, key);
    jw_open(w, '[');
    for (size_t i = 0; i < n; i++) {
        jw_open(w, '{');
        j_str(w, "name", f->v[i].name);
        jw_text(w, native ? "object" : "filename", f->v[i].filename);
        jw_i64(w, native ? "offset" : "line", f->v[i].line);
        jw_close(w, '}');
    }
    jw_close(w, ']');
}

static void j_thread(const fa_input *in, const fa_dump *d, const fa_thread *t,
                     const fa_thread *main, jw *w) {
    fa_frames python = fa_store_frames(in->store, t->python),
              native = fa_store_frames(in->store, t->native);
    jw_open(w, '{');
    jw_i64(w, "thread_id", t->tid);
    jw_text(w, "thread_name", t->name);
    jw_bool(w, "matters", t == main);
    jw_bool(w, "made_last_call", t->tid == d->caller_tid);
    j_frames(w, "python", &python, python.n, false);
    j_frames(w, "native", &native, native.n, true);
    j_str(w, "note", t->note);
    jw_close(w, '}');
}

static void j_culprit(const fa_input *in, int64_t rank, jw *w) {
    const fa_dump *d = dump_of(in, rank);
    const fr_identity *id = d && d->has_identity ? &d->identity : NULL;
    const char *hosts_file = fa_hosts_find(&in->hosts, rank);
    const char *host = id && id->hostname ? id->hostname : hosts_file;
    jw_open(w, '{');
    jw_i64(w, "rank", rank);
    j_str(w, "host", host);
    j_str(w, "host_from", id && id->hostname ? "dump" : hosts_file ? "hosts_file" : NULL);
    j_int_or_null(w, "pid", id ? id->pid : -1);
    j_int_or_null(w, "local_rank", id ? id->local_rank : -1);
    if (id && id->cuda_index >= 0) {
        jw_key(w, "cuda_device");
        jw_open(w, '{');
        jw_i64(w, "index", id->cuda_index);
        j_str(w, "pci_bus_id", id->pci_bus_id);
        j_str(w, "uuid", id->uuid);
        jw_close(w, '}');
    } else {
        jw_null(w, "cuda_device");
    }
    j_str(w, "nccl_version", id ? id->nccl_version : NULL);
    jw_key(w, "threads");
    jw_open(w, '[');
    const fa_thread *main = d ? fa_where_thread(d) : NULL;
    for (uint32_t i = 0; d && d->has_stacks && i < d->nthreads; i++)
        j_thread(in, d, &d->threads[i], main, w);
    jw_close(w, ']');
    jw_close(w, '}');
}

int fa_report_whereabouts_db(const fa_analysis *a, const fa_report_options *opt, jw *w) {
    jw_key(w, "whereabouts");
    jw_open(w, '{');
    jw_key(w, "culprits");
    jw_open(w, '[');
    for (size_t i = 0; i < a->verdict.culprits.n; i++) {
        int64_t rank = a->verdict.culprits.v[i];
        const fa_dump *d = dump_of(&a->in, rank);
        if (!(d && (d->has_identity || d->has_stacks)) && !fa_hosts_find(&a->in.hosts, rank))
            continue;
        j_culprit(&a->in, rank, w);
    }
    jw_close(w, ']');
    jw_key(w, "stack_groups");
    jw_open(w, '[');
    fa_where_groups g;
    int rc = fa_where_group_ranks(&a->in, opt->selected_ranks, opt->nselected_ranks, &g);
    for (size_t i = 0; rc == 0 && i < g.n; i++) {
        const fa_thread *t = g.v[i].thread;
        fa_frames python = fa_store_frames(a->in.store, t->python),
                  native = fa_store_frames(a->in.store, t->native);
        jw_open(w, '{');
        jw_key(w, "ranks");
        jw_open(w, '[');
        for (size_t k = 0; k < g.v[i].ranks.n; k++) jw_i64(w, NULL, g.v[i].ranks.v[k]);
        jw_close(w, ']');
        jw_text(w, "summary", g.v[i].summary);
        jw_text(w, "thread_name", t->name);
        j_frames(w, "python", &python, python.n, false);
        j_frames(w, "native", &native, fa_where_native_shown(a->in.store, t), true);
        jw_close(w, '}');
    }
    if (rc == 0) fa_where_groups_free(&g);
    jw_close(w, ']');
    jw_close(w, '}');
    return rc;
}
