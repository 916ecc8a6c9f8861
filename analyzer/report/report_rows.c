/* report_rows.c — what the text and markdown reports both show, built once: the per-rank evidence
 * table of a finding's operation (rows of identical content merged into one with a rank range,
 * so a 1000-rank group prints a handful of lines), each culprit's rows across every group, the
 * wait-chain lines, and which findings --selected-ranks / --pg-filters keep. The reports only
 * lay these out (report_text.c as aligned text, report_ticket.c as markdown or jira tables to
 * paste).
 */
#include <stdlib.h>
#include <string.h>

#include "report/report.h"
#include "report/table.h"
#include "util/xmalloc.h"

static void dtypes_text(const fr_strings *s, char *buf, size_t len) {
    size_t at = 0;
    buf[0] = '\0';
    for (uint32_t i = 0; i < s->count && at < len; i++)
        at += (size_t)snprintf(buf + at, len - at, "%s%s", i ? "," : "", s->items[i]);
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
    fa_table_keep_whole(t, 3); /* a shape split over two lines reads as two */
    fa_table_keep_whole(t, 4);
    if (op < 0) return;
    const fa_op *o = &a->match.ops[op];
    const fa_group *g = &a->groups.v[o->group];
    uint32_t *members = malloc((g->nmembers + 2) * sizeof *members);
    if (!members) return;
    uint32_t n = fa_op_expected(&a->match, &a->groups, (size_t)op, members);
    fa_smap rows = { 0 };
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
            if (strcmp(di, dout) == 0) /* the same both ways, as but for casts: once */
                snprintf(dt, sizeof dt, "%s", di);
            else
                snprintf(dt, sizeof dt, "%s -> %s", di, dout);
            uint32_t bundled = fa_call_nentries(&a->match, c);
            snprintf(name, sizeof name, "%s%s", e->profiling_name, bundled > 1 ? " +bundle" : "");
            if (bundled > 1)
                snprintf(name, sizeof name, "%s (+%u coalesced)", e->profiling_name, bundled - 1);
        }
        snprintf(key, sizeof key, "%s\x1f%s\x1f%s\x1f%s\x1f%s", fa_member_state_name(s), name, in,
                 outs, dt);
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

/* ---------------------------------------------------------------- culprits, chain --- */

static bool rank_selected(const fa_report_options *opt, int64_t rank) {
    if (!opt->selected_ranks) return true;
    for (size_t i = 0; i < opt->nselected_ranks; i++)
        if (opt->selected_ranks[i] == rank) return true;
    return false;
}

enum { ROWS_PER_CULPRIT = 6, CULPRITS_SHOWN = 8 };

static const char *evidence_what(const fa_evidence *e, char *buf, size_t len) {
    char *done = fa_ranks_format(e->done.v, e->done.n);
    switch (e->kind) {
    case FA_EV_NEVER_ISSUED: snprintf(buf, len, "never issued"); break;
    case FA_EV_NO_DUMP: snprintf(buf, len, "wrote no dump"); break;
    case FA_EV_UNREADABLE: snprintf(buf, len, "dump unreadable"); break;
    case FA_EV_STALLED:
        snprintf(buf, len, "stalled: pending, %s completed it", done ? done : "?");
        break;
    case FA_EV_NEVER_STARTED:
        snprintf(buf, len, "never started it on the GPU, %s did", done ? done : "?");
        break;
    case FA_EV_MISMATCHED:
        snprintf(buf, len, "mismatched %s", done && *done ? done : "the others");
        break;
    case FA_EV_CRASHED: {
        char signal[32];
        fa_signal_label(e->signal, signal, sizeof signal);
        snprintf(buf, len, "crashed (%s)", signal);
        break;
    }
    case FA_EV_ASYNC_ERROR:
        snprintf(buf, len, "NCCL async error %s", e->error ? e->error : "?");
        break;
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
        if (x->rank != e->rank || x->group != e->group || x->kind != e->kind ||
            a->match.ops[x->op].src != a->match.ops[e->op].src ||
            a->match.ops[x->op].dst != a->match.ops[e->op].dst)
            break;
        n++;
    }
    return n;
}

void fa_report_culprit_table(const fa_analysis *a, const fa_report_options *opt, fa_table *t,
                             size_t *hidden) {
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
        fa_ranks self = { (int64_t *)&e->rank, 1, 1 };
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
        if (first)
            fa_table_cell(t, "%lld", (long long)e->rank);
        else
            fa_table_cell(t, "%s", "");
        fa_table_cell(t, "%s", group);
        if (later)
            fa_table_cell(t, "%s +%zu later to #%lld", label, later, (long long)e[later].seq);
        else
            fa_table_cell(t, "%s", label);
        fa_table_cell(t, "%s", evidence_what(e, what, sizeof what));
        fa_table_cell(t, "%s", waiting && *waiting ? waiting : "-");
        free(waiting);
    }
}

/* whom without the ranks of who (both normalized copies are made): a level whose ranks wait for
 * ranks of the same level wait "for one another", never for themselves. *among: some did. */
static void others_only(const fa_ranks *who, const fa_ranks *whom, fa_ranks *out, bool *among) {
    fa_ranks w = { 0 };
    for (size_t i = 0; i < who->n; i++) fa_ranks_add(&w, who->v[i]);
    fa_ranks_normalize(&w);
    *among = false;
    for (size_t i = 0; i < whom->n; i++) {
        if (fa_ranks_contains(&w, whom->v[i]))
            *among = true;
        else
            fa_ranks_add(out, whom->v[i]);
    }
    fa_ranks_free(&w);
}

char *fa_report_wait_line(const fa_analysis *a, int level) {
    const fa_wait_level *l = &a->verdict.levels[level];
    if (!l->ranks.n) return NULL;
    fa_ranks targets = { 0 };
    bool among = false;
    others_only(&l->ranks, &l->waits_for, &targets, &among);
    char *who = fa_ranks_format(l->ranks.v, l->ranks.n),
         *whom = fa_ranks_format(targets.v, targets.n);
    char *line = NULL;
    const char *s = l->ranks.n > 1 ? "s" : "";
    const char *each = !among ? "" : targets.n ? " and for one another" : "one another";
    if (who && whom) {
        line = level == 0 ? xasprintf("rank%s %s: the root cause%s (see culprits)", s, who, s)
                          : xasprintf("rank%s %s wait%s for %s%s in %s", s, who,
                                      l->ranks.n > 1 ? "" : "s", whom, each, l->via ? l->via : "?");
    }
    free(who);
    free(whom);
    fa_ranks_free(&targets);
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
        if ((g->name && strcmp(g->name, opt->pg_filters[i]) == 0) ||
            (g->desc && strcmp(g->desc, opt->pg_filters[i]) == 0) ||
            strcmp(g->id, opt->pg_filters[i]) == 0)
            return true;
    return false;
}

bool fa_report_selects(const fa_analysis *a, const fa_report_options *opt, long group,
                       const fa_ranks *ranks, const fa_ranks *others) {
    if (opt->pg_filters && group >= 0 && !group_matches(opt, &a->groups.v[group])) return false;
    if (opt->selected_ranks && (ranks->n || (others && others->n)) && !any_selected(opt, ranks) &&
        !(others && any_selected(opt, others)))
        return false;
    return true;
}

bool fa_report_file_over_cap(const fa_finding *f, const fa_report_options *opt, size_t *shown) {
    if (f->kind != FA_REJECTED_FILE || opt->verbose) return false;
    return ++*shown > FA_REPORT_FILES_SHOWN;
}

bool fa_report_lists_finding(const fa_analysis *a, const fa_finding *f,
                             const fa_report_options *opt) {
    return f->listed && (!f->explained || opt->verbose) &&
           fa_report_selects(a, opt, f->group, &f->ranks, &f->others);
}
