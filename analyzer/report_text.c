/* report_text.c — the default report: the verdict line, then each finding with its evidence
 * in aligned tables, then warnings; and the -j side-by-side entry table.
 *
 * Per-rank evidence rows with identical content are merged into one row with a rank range, so
 * a 1000-rank group prints a handful of lines.
 */
#include <stdlib.h>
#include <string.h>

#include "index.h"
#include "report.h"
#include "stacks.h"
#include "table.h"

void fa_report_shapes(const fr_shapes *s, char *buf, size_t len) {
    size_t at = (size_t)snprintf(buf, len, "[");
    for (uint32_t i = 0; i < s->count && at < len; i++) {
        at += (size_t)snprintf(buf + at, len - at, "%s[", i ? ", " : "");
        for (uint32_t d = 0; d < s->shapes[i].ndim && at < len; d++)
            at += (size_t)snprintf(buf + at, len - at, "%s%lld", d ? ", " : "", (long long)s->shapes[i].dims[d]);
        if (at < len) at += (size_t)snprintf(buf + at, len - at, "]");
    }
    if (at < len) snprintf(buf + at, len - at, "]");
}

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
    for (uint32_t k = 0; keys && ranks && k < n; k++) {
        fa_member_state s = fa_op_member_state(&a->match, &a->groups, (size_t)op, members[k]);
        const fa_call *c = fa_op_call(&a->match, (size_t)op, members[k]);
        char in[256] = "", outs[256] = "", dt[128] = "", name[200] = "", key[1200];
        if (c) {
            const fr_entry *e = fa_call_entry(&a->match, &a->in, c, 0);
            fa_report_shapes(&e->input_sizes, in, sizeof in);
            fa_report_shapes(&e->output_sizes, outs, sizeof outs);
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
    fprintf(out, "%zu. %s\n   %s\n", number, heading, f->detail ? f->detail : "");
    if (f->op >= 0) {
        fa_table t;
        fa_report_evidence_table(a, f->op, &t);
        fputc('\n', out);
        fa_table_print_text(&t, out, "   ");
        fa_table_free(&t);
        if (opt->stack_traces) {
            fputs("   stack traces:\n", out);
            fa_stacks_print(a, f->op, out, "     ");
        }
    }
    fputc('\n', out);
}

static void print_groups(const fa_analysis *a, FILE *out) {
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
    fa_table_print_text(&t, out, "  ");
    fa_table_free(&t);
    fputc('\n', out);
}

static void print_collectives(const fa_analysis *a, FILE *out) {
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
    fa_table_print_text(&t, out, "  ");
    fa_table_free(&t);
    fputc('\n', out);
}

int fa_report_text(const fa_analysis *a, const fa_report_options *opt, FILE *out) {
    const fa_verdict *v = &a->verdict;
    fprintf(out, "%s\n", v->summary ? v->summary : fa_status_name(v->status));
    char *culprits = fa_ranks_format(v->culprits.v, v->culprits.n);
    fprintf(out, "\nstatus: %s   culprit ranks: %s   (%zu ranks read from %s, prefix \"%s\", version%s ", fa_status_name(v->status),
            culprits && culprits[0] ? culprits : "none", a->in.nranks, a->in.dir, a->in.prefix, a->in.nversions > 1 ? "s" : "");
    for (size_t i = 0; i < a->in.nversions; i++) fprintf(out, "%s%s", i ? "," : "", a->in.versions[i]);
    fputs(")\n\n", out);
    free(culprits);
    size_t number = 0, hidden = 0;
    for (int warnings = 0; warnings < 2; warnings++) {
        bool header = false;
        for (size_t i = 0; i < a->findings.n; i++) {
            const fa_finding *f = &a->findings.v[i];
            if (fa_finding_is_warning(f->kind) != (warnings == 1)) continue;
            if (!f->listed) {
                hidden++;
                continue;
            }
            if (!header) {
                fputs(warnings ? "warnings:\n\n" : "findings:\n\n", out);
                header = true;
            }
            print_finding(a, opt, f, ++number, out);
        }
    }
    if (hidden) fprintf(out, "(%zu more findings not listed: over --mismatch-cap per group)\n\n", hidden);
    if (opt->verbose) {
        print_groups(a, out);
        print_collectives(a, out);
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
            const fr_dump *d = in->ranks[r].dump;
            if (i >= d->nentries || !group_selected(opt, &d->entries[i])) {
                fa_table_cell(&t, "%s", "");
                continue;
            }
            const fr_entry *e = &d->entries[i];
            char sizes[256];
            fa_report_shapes(&e->input_sizes, sizes, sizeof sizes);
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
            const fr_dump *d = in->ranks[r].dump;
            if (!rank_selected(opt, in->ranks[r].rank) || !d->nentries) continue;
            const fr_entry *e = &d->entries[d->nentries - 1];
            fprintf(out, "rank %lld, %s:\n", (long long)in->ranks[r].rank, e->profiling_name);
            for (uint32_t k = 0; k < e->nframes; k++)
                fprintf(out, "    %s at %s:%lld\n", e->frames[k].name, e->frames[k].filename, (long long)e->frames[k].line);
        }
    }
    return ferror(out) ? -1 : 0;
}
