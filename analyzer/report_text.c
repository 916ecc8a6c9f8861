/* report_text.c — the default report: the verdict line; the culprits' evidence across every
 * group; the wait chain (waiters -> victims -> root causes, with the count of sends/recvs the
 * hang explains); each finding with its evidence table, then warnings; and the -j side-by-side
 * entry table. The culprit table, the wait-chain lines and which findings are listed are shared
 * with the markdown report, so both say the same.
 *
 * Per-rank evidence rows with identical content are merged into one row with a rank range, so
 * a 1000-rank group prints a handful of lines.
 */
#include <stdlib.h>
#include <string.h>

#include "index.h"
#include "report.h"
#include "perf_report.h"
#include "stacks.h"
#include "table.h"
#include "wrap.h"

static void dtypes_text(const fr_strings *s, char *buf, size_t len) {
    size_t at = 0;
    buf[0] = '\0';
    for (uint32_t i = 0; i < s->count && at < len; i++) at += (size_t)snprintf(buf + at, len - at, "%s%s", i ? "," : "", s->items[i]);
    if (!s->count) snprintf(buf, len, "-");
}

void fa_report_evidence_table(const fa_analysis *a, long op, fa_table *t) {
    fa_table_init(t, 6);
    fa_table_row(t);
    fa_table_cell(t, "ranks");
    fa_table_cell(t, "state");
    fa_table_cell(t, "operation");
    fa_table_cell(t, "input sizes");
    fa_table_cell(t, "output sizes");
    fa_table_cell(t, "dtypes");
    if (op < 0) return;
    const fa_op *o = &a->match.ops[op];
    const fa_group *g = &a->groups.v[o->group];
    uint32_t *members = malloc((g->nmembers + 2) * sizeof *members);
    if (!members) return;
    uint32_t n = fa_op_expected(&a->match, &a->groups, (size_t)op, members);
    fa_smap rows = {0};
    char **keys = calloc(n + 1, sizeof *keys);
    fa_ranks *ranks = calloc(n + 1, sizeof *ranks);
    size_t nrows = 0;
    int last_state = -1; /* the row of the last member without a call, by its state */
    uint64_t last_row = 0;
    for (uint32_t k = 0; keys && ranks && k < n; k++) {
        fa_member_state s = fa_op_member_state(&a->match, &a->groups, (size_t)op, members[k]);
        const fa_call *c = fa_op_call(&a->match, (size_t)op, members[k]);
        if (!c && (int)s == last_state) { /* a million members without a dump: no key each */
            fa_ranks_add(&ranks[last_row], g->members[members[k]]);
            continue;
        }
        char in[256] = "", outs[256] = "", dt[128] = "", name[200] = "", key[1200];
        if (c) {
            fr_entry full, *e = &full;
            fa_call_expand(&a->match, &a->in, c, 0, &full);
            fa_shapes_text(&e->input_sizes, in, sizeof in);
            fa_shapes_text(&e->output_sizes, outs, sizeof outs);
            char di[60], dout[60];
            dtypes_text(&e->input_dtypes, di, sizeof di);
            dtypes_text(&e->output_dtypes, dout, sizeof dout);
            snprintf(dt, sizeof dt, "%s -> %s", di, dout);
            snprintf(name, sizeof name, "%s%s", e->profiling_name, c->nentries > 1 ? " +bundle" : "");
            if (c->nentries > 1) snprintf(name, sizeof name, "%s (+%u coalesced)", e->profiling_name, c->nentries - 1);
        }
        snprintf(key, sizeof key, "%s\x1f%s\x1f%s\x1f%s\x1f%s", fa_member_state_name(s), name, in, outs, dt);
        uint64_t at;
        if (!fa_smap_get(&rows, key, &at)) {
            at = nrows;
            keys[nrows++] = strdup(key);
            fa_smap_put(&rows, key, at);
        }
        if (!c) {
            last_state = (int)s;
            last_row = at;
        }
        fa_ranks_add(&ranks[at], g->members[members[k]]);
    }
    for (size_t r = 0; r < nrows; r++) {
        char *who = fa_ranks_format(ranks[r].v, ranks[r].n);
        fa_table_row(t);
        fa_table_cell(t, "%s", who);
        char *field = keys[r];
        for (int col = 0; col < 5; col++) {
            char *sep = strchr(field, '\x1f');
            if (sep) *sep = '\0';
            fa_table_cell(t, "%s", field);
            field = sep ? sep + 1 : field + strlen(field);
        }
        free(who);
        free(keys[r]);
        fa_ranks_free(&ranks[r]);
    }
    free(keys);
    free(ranks);
    free(members);
    fa_smap_free(&rows);
}

static void finding_heading(const fa_analysis *a, const fa_finding *f, char *buf, size_t len) {
    char group[300] = "", label[200] = "";
    if (f->group >= 0) fa_group_label(&a->groups.v[f->group], group, sizeof group);
    if (f->op >= 0) fa_op_label(&a->match, (size_t)f->op, label, sizeof label);
    snprintf(buf, len, "%s%s%s%s%s", fa_finding_kind_name(f->kind), group[0] ? " in " : "", group, label[0] ? ", " : "", label);
}

static void print_finding(const fa_analysis *a, const fa_report_options *opt, const fa_finding *f, size_t number, FILE *out) {
    char heading[600];
    finding_heading(a, f, heading, sizeof heading);
    char lead[32];
    snprintf(lead, sizeof lead, "%zu. ", number);
    fa_wrap_print(out, lead, "   ", heading, opt->width);
    fa_wrap_print(out, "   ", "   ", f->detail ? f->detail : "", opt->width);
    if (f->op >= 0) {
        fa_table t;
        fa_report_evidence_table(a, f->op, &t);
        fputc('\n', out);
        fa_table_print_fit(&t, out, "   ", opt->width);
        fa_table_free(&t);
        if (opt->stack_traces) {
            fputs("   stack traces:\n", out);
            fa_stacks_print(a, f->op, out, "     ");
        }
    }
    fputc('\n', out);
}

static void print_groups(const fa_analysis *a, const fa_report_options *opt, FILE *out) {
    fa_table t;
    fa_table_init(&t, 4);
    fa_table_row(&t);
    fa_table_cell(&t, "id");
    fa_table_cell(&t, "desc");
    fa_table_cell(&t, "size");
    fa_table_cell(&t, "ranks");
    for (size_t i = 0; i < a->groups.n; i++) {
        const fa_group *g = &a->groups.v[i];
        char *who = fa_ranks_format(g->members, g->nmembers);
        fa_table_row(&t);
        fa_table_cell(&t, "%s", g->id);
        fa_table_cell(&t, "%s", g->desc);
        fa_table_cell(&t, "%u", g->nmembers);
        fa_table_cell(&t, "%s", who);
        free(who);
    }
    fputs("groups:\n", out);
    fa_table_print_fit(&t, out, "  ", opt->width);
    fa_table_free(&t);
    fputc('\n', out);
}

static void print_collectives(const fa_analysis *a, const fa_report_options *opt, FILE *out) {
    fa_table t;
    fa_table_init(&t, 5);
    fa_table_row(&t);
    fa_table_cell(&t, "group");
    fa_table_cell(&t, "operation");
    fa_table_cell(&t, "ranks issued");
    fa_table_cell(&t, "completed on");
    fa_table_cell(&t, "check");
    for (size_t i = 0; i < a->match.nops; i++) {
        const fa_op *o = &a->match.ops[i];
        if (o->ncalls == 0) continue;
        const fa_group *g = &a->groups.v[o->group];
        fa_ranks issued = {0}, done = {0};
        for (uint32_t k = 0; k < o->ncalls; k++) {
            const fa_call *c = &a->match.calls[o->first_call + k];
            fa_ranks_add(&issued, g->members[c->member]);
            if (c->state == FR_STATE_COMPLETED) fa_ranks_add(&done, g->members[c->member]);
        }
        char label[200];
        fa_op_label(&a->match, i, label, sizeof label);
        char *wi = fa_ranks_format(issued.v, issued.n), *wd = fa_ranks_format(done.v, done.n);
        fa_table_row(&t);
        fa_table_cell(&t, "%s", g->id);
        fa_table_cell(&t, "%s", label);
        fa_table_cell(&t, "%s", wi);
        fa_table_cell(&t, "%s", wd[0] ? wd : "-");
        fa_table_cell(&t, "%s", o->mismatch ? "MISMATCH" : o->unmatched ? "unmatched" : "ok");
        free(wi);
        free(wd);
        fa_ranks_free(&issued);
        fa_ranks_free(&done);
    }
    fputs("collectives:\n", out);
    fa_table_print_fit(&t, out, "  ", opt->width);
    fa_table_free(&t);
    fputc('\n', out);
}

static void print_culprits(const fa_analysis *a, const fa_report_options *opt, FILE *out) {
    if (!a->verdict.nevidence) return;
    fa_table t;
    size_t hidden;
    fa_report_culprit_table(a, opt, &t, &hidden);
    fputs(a->verdict.status == FA_STATUS_INCONCLUSIVE ? "suspects (what each did, in every group):\n\n" : "culprits (what each did, in every group):\n\n", out);
    fa_table_print_fit(&t, out, "  ", opt->width);
    fa_table_free(&t);
    if (hidden) fprintf(out, "  (%zu more rows; -v lists them)\n", hidden);
    fputc('\n', out);
}

static void print_wait_chain(const fa_analysis *a, const fa_report_options *opt, FILE *out) {
    const fa_verdict *v = &a->verdict;
    if (!v->levels[1].ranks.n && !v->nexplained_p2p) return; /* one hop: the culprit table says it all */
    fputs("wait chain (who waits for whom):\n\n", out);
    const char *arrow = "  ";
    for (int level = FA_WAIT_LEVELS - 1; level >= 0; level--) {
        char *line = fa_report_wait_line(a, level);
        if (!line) continue;
        fa_wrap_print(out, arrow, "     ", line, opt->width);
        arrow = "  -> ";
        free(line);
    }
    char note[200];
    if (v->nexplained_p2p) {
        snprintf(note, sizeof note, "(%zu %s on blocked peers: p2p_unmatched explained by the hang;%s)", v->nexplained_p2p,
                 v->nexplained_p2p > 1 ? "sends/recvs wait" : "send/recv waits", opt->verbose ? " listed under warnings" : " -v lists them");
        fa_wrap_print(out, "  ", "   ", note, opt->width);
    }
    fputc('\n', out);
}

/* The verdict line, never wrapped (it is a ticket's title); in colour on a terminal. */
static void print_title(const fa_verdict *v, const fa_report_options *opt, FILE *out) {
    const char *colour = v->status == FA_STATUS_OK ? "\033[1;32m" : v->status == FA_STATUS_INCONCLUSIVE ? "\033[1;33m" : "\033[1;31m";
    fprintf(out, "%s%s%s\n", opt->color ? colour : "", v->summary ? v->summary : fa_status_name(v->status), opt->color ? "\033[0m" : "");
}

static void print_status(const fa_analysis *a, const fa_report_options *opt, FILE *out) {
    const fa_verdict *v = &a->verdict;
    char *culprits = fa_ranks_format(v->culprits.v, v->culprits.n), versions[200] = "", *line = NULL;
    for (size_t i = 0, at = 0; i < a->in.nversions && at < sizeof versions; i++)
        at += (size_t)snprintf(versions + at, sizeof versions - at, "%s%s", i ? "," : "", a->in.versions[i]);
    if (asprintf(&line, "status: %s   culprit ranks: %s   (%zu ranks read from %s, prefix \"%s\", version%s %s)",
                 fa_status_name(v->status), culprits && culprits[0] ? culprits : "none", a->in.nranks, a->in.dir, a->in.prefix,
                 a->in.nversions > 1 ? "s" : "", versions) >= 0) {
        fputc('\n', out);
        fa_wrap_print(out, "", "        ", line, opt->width);
        fputc('\n', out);
    }
    free(line);
    free(culprits);
}

int fa_report_text(const fa_analysis *a, const fa_report_options *opt, FILE *out) {
    const fa_verdict *v = &a->verdict;
    print_title(v, opt, out);
    print_status(a, opt, out);
    if (opt->selected_ranks || opt->pg_filters)
        fputs("(showing only findings about the selected ranks/groups; the verdict covers every rank)\n\n", out);
    print_culprits(a, opt, out);
    print_wait_chain(a, opt, out);
    size_t number = 0, hidden = 0;
    bool header[2] = {false, false};
    for (int order = 0; order < 3; order++) { /* root causes, evidence, then warnings, as in db.json */
        int warnings = order == 2;
        for (size_t i = 0; i < a->findings.n; i++) {
            const fa_finding *f = &a->findings.v[i];
            if (fa_finding_order(f, i, v->first_culprit_finding, v->nculprit_findings) != order) continue;
            if (!f->listed) hidden++;
            if (!fa_report_lists_finding(a, f, opt)) continue;
            if (!header[warnings]) {
                fputs(warnings ? "warnings:\n\n" : "findings:\n\n", out);
                header[warnings] = true;
            }
            print_finding(a, opt, f, ++number, out);
        }
    }
    if (hidden) fprintf(out, "(%zu more findings not listed: over --mismatch-cap per group)\n\n", hidden);
    fa_perf_print_slow_ranks(a, false, out);
    if (opt->verbose) {
        print_groups(a, opt, out);
        print_collectives(a, opt, out);
    }
    return ferror(out) ? -1 : 0;
}

/* ---------------------------------------------------------------- -j --------------- */

static bool rank_selected(const fa_report_options *opt, int64_t rank) {
    if (!opt->selected_ranks) return true;
    for (size_t i = 0; i < opt->nselected_ranks; i++)
        if (opt->selected_ranks[i] == rank) return true;
    return false;
}

static bool group_selected(const fa_report_options *opt, const fr_entry *e) {
    if (!opt->pg_filters) return true;
    for (size_t i = 0; i < opt->npg_filters; i++)
        if ((e->pg_name && strcmp(e->pg_name, opt->pg_filters[i]) == 0) || (e->pg_desc && strcmp(e->pg_desc, opt->pg_filters[i]) == 0))
            return true;
    return false;
}

int fa_report_entries(const fa_input *in, const fa_groups *groups, const fa_report_options *opt, FILE *out) {
    (void)groups;
    size_t ncols = 0, longest = 0;
    for (size_t r = 0; r < in->nranks; r++)
        if (rank_selected(opt, in->ranks[r].rank)) {
            ncols++;
            if (in->ranks[r].dump->nentries > longest) longest = in->ranks[r].dump->nentries;
        }
    fa_table t;
    fa_table_init(&t, ncols);
    fa_table_row(&t);
    for (size_t r = 0; r < in->nranks; r++)
        if (rank_selected(opt, in->ranks[r].rank)) fa_table_cell(&t, "Rank %lld", (long long)in->ranks[r].rank);
    for (size_t i = 0; i < longest; i++) {
        fa_table_row(&t);
        for (size_t r = 0; r < in->nranks; r++) {
            if (!rank_selected(opt, in->ranks[r].rank)) continue;
            const fa_dump *d = in->ranks[r].dump;
            fr_entry full, *e = &full;
            if (i < d->nentries) fa_entry_expand(in->store, d, &d->entries[i], &full);
            if (i >= d->nentries || !group_selected(opt, e)) {
                fa_table_cell(&t, "%s", "");
                continue;
            }
            char sizes[256];
            fa_shapes_text(&e->input_sizes, sizes, sizeof sizes);
            const char *name = strrchr(e->profiling_name, ':');
            if (opt->verbose)
                fa_table_cell(&t, "%s(pg=%s seq=%lld p2p=%lld in=%s, %s)", name ? name + 1 : e->profiling_name, e->pg_name,
                              (long long)e->collective_seq_id, (long long)e->p2p_seq_id, sizes, fr_state_name(e->state));
            else
                fa_table_cell(&t, "%s(%s #%lld, in=%s, %s)", name ? name + 1 : e->profiling_name, e->pg_desc ? e->pg_desc : e->pg_name,
                              (long long)(e->is_p2p ? e->p2p_seq_id : e->collective_seq_id), sizes, fr_state_name(e->state));
        }
    }
    fa_table_print_text(&t, out, "");
    fa_table_free(&t);
    if (opt->stack_traces) {
        fputs("\nstack traces (newest entry of each rank):\n", out);
        for (size_t r = 0; r < in->nranks; r++) {
            const fa_dump *d = in->ranks[r].dump;
            if (!rank_selected(opt, in->ranks[r].rank) || !d->nentries) continue;
            fr_entry full, *e = &full;
            fa_entry_expand(in->store, d, &d->entries[d->nentries - 1], &full);
            fprintf(out, "rank %lld, %s:\n", (long long)in->ranks[r].rank, e->profiling_name);
            for (uint32_t k = 0; k < e->nframes; k++)
                fprintf(out, "    %s at %s:%lld\n", e->frames[k].name, e->frames[k].filename, (long long)e->frames[k].line);
        }
    }
    return ferror(out) ? -1 : 0;
}

/* ---------------------------------------------------------------- culprits, chain --- */

static bool rank_selected(const fa_report_options *opt, int64_t rank);

enum { ROWS_PER_CULPRIT = 6, CULPRITS_SHOWN = 8 };

static const char *evidence_what(const fa_evidence *e, char *buf, size_t len) {
    char *done = fa_ranks_format(e->done.v, e->done.n);
    switch (e->kind) {
    case FA_EV_NEVER_ISSUED: snprintf(buf, len, "never issued"); break;
    case FA_EV_NO_DUMP: snprintf(buf, len, "wrote no dump"); break;
    case FA_EV_UNREADABLE:
        snprintf(buf, len, "dump unreadable");
        break;
    case FA_EV_STALLED: snprintf(buf, len, "stalled: pending, %s completed it", done ? done : "?"); break;
    case FA_EV_NEVER_STARTED: snprintf(buf, len, "never started it on the GPU, %s did", done ? done : "?"); break;
    case FA_EV_MISMATCHED: snprintf(buf, len, "mismatched %s", done && *done ? done : "the others"); break;
    case FA_EV_CRASHED: {
        char signal[32];
        fa_signal_label(e->signal, signal, sizeof signal);
        snprintf(buf, len, "crashed (%s)", signal);
        break;
    }
    case FA_EV_ASYNC_ERROR: snprintf(buf, len, "NCCL async error %s", e->error ? e->error : "?"); break;
    }
    free(done);
    return buf;
}

/* How many evidence rows from i on say the same thing about later ops of one group (the
 * collectives queued behind the first): same culprit, group and kind (and peer, for p2p). */
static size_t same_kind_run(const fa_analysis *a, size_t i) {
    const fa_verdict *v = &a->verdict;
    const fa_evidence *e = &v->evidence[i];
    size_t n = 1;
    while (i + n < v->nevidence) {
        const fa_evidence *x = &v->evidence[i + n];
        if (x->rank != e->rank || x->group != e->group || x->kind != e->kind || a->match.ops[x->op].src != a->match.ops[e->op].src ||
            a->match.ops[x->op].dst != a->match.ops[e->op].dst)
            break;
        n++;
    }
    return n;
}

void fa_report_culprit_table(const fa_analysis *a, const fa_report_options *opt, fa_table *t, size_t *hidden) {
    bool all = opt->verbose;
    const fa_verdict *v = &a->verdict;
    fa_table_init(t, 5);
    fa_table_row(t);
    fa_table_cell(t, "culprit");
    fa_table_cell(t, "group");
    fa_table_cell(t, "operation");
    fa_table_cell(t, "what the culprit did");
    fa_table_cell(t, "waiting");
    *hidden = 0;
    size_t culprits = 0, rows = 0;
    int64_t shown_rank = -1;
    for (size_t i = 0; i < v->nevidence;) {
        const fa_evidence *e = &v->evidence[i];
        size_t later = same_kind_run(a, i) - 1;
        i += later + 1;
        fa_ranks self = {(int64_t *)&e->rank, 1, 1};
        if (!fa_report_selects(a, opt, (long)e->group, &self, &e->waiters)) continue;
        bool first = e->rank != shown_rank; /* the culprit's first row names it */
        shown_rank = e->rank;
        if (first) {
            culprits++;
            rows = 0;
        }
        if (!all && (culprits > CULPRITS_SHOWN || rows >= ROWS_PER_CULPRIT)) {
            ++*hidden;
            continue;
        }
        rows++;
        char group[300], label[200], what[300];
        fa_group_label(&a->groups.v[e->group], group, sizeof group);
        fa_op_label(&a->match, (size_t)e->op, label, sizeof label);
        char *waiting = fa_ranks_format(e->waiters.v, e->waiters.n);
        fa_table_row(t);
        if (first) fa_table_cell(t, "%lld", (long long)e->rank);
        else fa_table_cell(t, "%s", "");
        fa_table_cell(t, "%s", group);
        if (later) fa_table_cell(t, "%s +%zu later to #%lld", label, later, (long long)e[later].seq);
        else fa_table_cell(t, "%s", label);
        fa_table_cell(t, "%s", evidence_what(e, what, sizeof what));
        fa_table_cell(t, "%s", waiting && *waiting ? waiting : "-");
        free(waiting);
    }
}

char *fa_report_wait_line(const fa_analysis *a, int level) {
    const fa_wait_level *l = &a->verdict.levels[level];
    if (!l->ranks.n) return NULL;
    char *who = fa_ranks_format(l->ranks.v, l->ranks.n), *whom = fa_ranks_format(l->waits_for.v, l->waits_for.n);
    char *line = NULL;
    const char *s = l->ranks.n > 1 ? "s" : "";
    if (who && whom) {
        int rc = level == 0 ? asprintf(&line, "rank%s %s: the root cause%s (see culprits)", s, who, s)
                            : asprintf(&line, "rank%s %s wait%s for %s in %s", s, who, l->ranks.n > 1 ? "" : "s", whom, l->via ? l->via : "?");
        if (rc < 0) line = NULL;
    }
    free(who);
    free(whom);
    return line;
}

static bool any_selected(const fa_report_options *opt, const fa_ranks *r) {
    for (size_t i = 0; i < r->n; i++)
        if (rank_selected(opt, r->v[i])) return true;
    return false;
}

static bool group_matches(const fa_report_options *opt, const fa_group *g) {
    if (!opt->pg_filters) return true;
    for (size_t i = 0; i < opt->npg_filters; i++)
        if ((g->name && strcmp(g->name, opt->pg_filters[i]) == 0) || (g->desc && strcmp(g->desc, opt->pg_filters[i]) == 0) ||
            strcmp(g->id, opt->pg_filters[i]) == 0)
            return true;
    return false;
}

bool fa_report_selects(const fa_analysis *a, const fa_report_options *opt, long group, const fa_ranks *ranks, const fa_ranks *others) {
    if (opt->pg_filters && group >= 0 && !group_matches(opt, &a->groups.v[group])) return false;
    if (opt->selected_ranks && (ranks->n || (others && others->n)) && !any_selected(opt, ranks) && !(others && any_selected(opt, others)))
        return false;
    return true;
}

bool fa_report_lists_finding(const fa_analysis *a, const fa_finding *f, const fa_report_options *opt) {
    return f->listed && (!f->explained || opt->verbose) && fa_report_selects(a, opt, f->group, &f->ranks, &f->others);
}
