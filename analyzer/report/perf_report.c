/* perf_report.c — slow ranks and stats in text, markdown and JSON (perf_report.h). */
#include "report/perf_report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "perf/perfstat.h"
#include "safe_text.h"
#include "report/json_writer.h"
#include "report/table.h"
#include "report/wrap.h"

bool fa_perf_group_selected(const fa_analysis *a, const fa_report_options *opt, uint32_t gi) {
    const fa_group *g = &a->groups.v[gi];
    if (opt->pg_filters) {
        bool hit = false;
        for (size_t i = 0; i < opt->npg_filters && !hit; i++) {
            const char *f = opt->pg_filters[i];
            hit = strcmp(g->name, f) == 0 || (g->desc && strcmp(g->desc, f) == 0) ||
                  (g->id && strcmp(g->id, f) == 0);
        }
        if (!hit) return false;
    }
    if (opt->selected_ranks) {
        for (size_t i = 0; i < opt->nselected_ranks; i++)
            if (fa_group_position(g, opt->selected_ranks[i]) >= 0) return true;
        return false;
    }
    return true;
}

/* ------------------------------------------------------------ text pieces ------------ */

static void ms_cell(fa_table *t, double ms) {
    if (isnan(ms))
        fa_table_cell(t, "-");
    else if (fabs(ms) >= 100)
        fa_table_cell(t, "%.0f", ms);
    else if (fabs(ms) >= 1)
        fa_table_cell(t, "%.1f", ms);
    else
        fa_table_cell(t, "%.3f", ms);
}

static void bytes_cell(fa_table *t, int64_t b) {
    static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB" };
    if (b < 0) {
        fa_table_cell(t, "?");
        return;
    }
    double v = (double)b;
    int u = 0;
    while (v >= 1024 && u < 4) v /= 1024, u++;
    if (u == 0)
        fa_table_cell(t, "%lld B", (long long)b);
    else
        fa_table_cell(t, "%.1f %s", v, unit[u]);
}

static void groups_text(const fa_analysis *a, const fa_straggler *s, char *buf, size_t len) {
    size_t at = 0;
    buf[0] = '\0';
    for (size_t k = 0; k < s->ngroups && at < len; k++) {
        char label[256];
        fa_group_label(&a->groups.v[s->groups[k]], label, sizeof label);
        at += (size_t)snprintf(buf + at, len - at, "%s%s", k ? ", " : "", label);
    }
}

bool fa_perf_slow_ranks_table(const fa_analysis *a, fa_table *out_table) {
    const fa_perf *p = &a->perf;
    if (!p->nstragglers) return false;
    bool timed = false; /* the excess column only where some straggler has durations */
    for (size_t i = 0; i < p->nstragglers; i++) timed |= !isnan(p->stragglers[i].slow_ms_median);
    fa_table t;
    fa_table_init(&t, timed ? 7 : 6);
    fa_table_row(&t);
    const char *head[] = { "rank",    "late ms p50", "late ms p90",  "late in",
                           "last in", "groups",      "slower ms p50" };
    for (int i = 0; i < 5; i++) fa_table_cell(&t, "%s", head[i]);
    if (timed) fa_table_cell(&t, "%s", head[6]);
    fa_table_cell(&t, "%s", head[5]);
    for (size_t i = 0; i < p->nstragglers; i++) {
        const fa_straggler *s = &p->stragglers[i];
        char groups[1024];
        groups_text(a, s, groups, sizeof groups);
        fa_table_row(&t);
        fa_table_cell(&t, "%lld", (long long)s->rank);
        ms_cell(&t, s->late_ms_median);
        ms_cell(&t, s->late_ms_p90);
        fa_table_cell(&t, "%u of %u", s->late_in, s->collectives);
        fa_table_cell(&t, "%u of %u", s->last_in, s->collectives);
        if (timed) ms_cell(&t, s->slow_ms_median);
        fa_table_cell(&t, "%s", groups);
    }
    *out_table = t;
    return true;
}

void fa_perf_print_slow_ranks(const fa_analysis *a, const char *format, size_t width, FILE *out) {
    const fa_perf *p = &a->perf;
    fa_table t;
    if (!fa_perf_slow_ranks_table(a, &t)) return;
    bool jira = strcmp(format, "jira") == 0;
    if (jira || strcmp(format, "markdown") == 0) {
        fputs(jira ? "h2. Slow ranks\n\n" : "## Slow ranks\n\n", out);
        if (jira)
            fa_table_print_jira(&t, out);
        else
            fa_table_print_markdown(&t, out);
        fprintf(out,
                "\n_Lateness: arrival after its peers' median arrival (with gloo, at most the "
                "delay the rank made itself); late in: collectives it was late in by the floor "
                "(%.1f ms) or more; last in: collectives it arrived last in; over %zu collectives "
                "judged. A slow rank does not change the verdict._\n\n",
                p->floor_ms, p->judged);
    } else {
        fputs("slow ranks (late or slower than their peers, consistently):\n\n", out);
        fa_table_print_fit(&t, out, "  ", width);
        char note[200];
        snprintf(note, sizeof note,
                 "(%zu collectives judged; late in: late by the floor, %.1f ms, or more; last in: "
                 "arrived last; frtrace stats and frtrace timeline show more)",
                 p->judged, p->floor_ms);
        fa_wrap_print(out, "  ", "   ", note, width);
        fputc('\n', out);
    }
    fa_table_free(&t);
}

/* ------------------------------------------------------------ JSON ------------------- */

/* A shape list's value: [[4,4],[8]], ints in exact decimal. */
static void json_shapes(jw *w, const fr_shapes *s) {
    jw_open(w, '[');
    for (uint32_t i = 0; i < s->count; i++) {
        jw_open(w, '[');
        for (uint32_t d = 0; d < s->shapes[i].ndim; d++) jw_i64(w, NULL, s->shapes[i].dims[d]);
        jw_close(w, ']');
    }
    jw_close(w, ']');
}

static void write_stragglers(const fa_analysis *a, jw *w) {
    const fa_perf *p = &a->perf;
    jw_open(w, '[');
    for (size_t i = 0; i < p->nstragglers; i++) {
        const fa_straggler *s = &p->stragglers[i];
        jw_open(w, '{');
        jw_i64(w, "rank", s->rank);
        jw_fixed3(w, "late_ms_median", s->late_ms_median);
        jw_fixed3(w, "late_ms_p90", s->late_ms_p90);
        jw_fixed3(w, "late_ms_when_late", s->late_ms_when_late);
        jw_i64(w, "late_in", s->late_in);
        jw_i64(w, "last_in", s->last_in);
        jw_i64(w, "collectives", s->collectives);
        jw_key(w, "groups");
        jw_open(w, '[');
        for (size_t k = 0; k < s->ngroups; k++) jw_text(w, NULL, a->groups.v[s->groups[k]].id);
        jw_close(w, ']');
        jw_fixed3(w, "slow_ms_median", s->slow_ms_median);
        jw_i64(w, "timed", s->timed);
        jw_bool(w, "late", s->late);
        jw_bool(w, "slow_ops", s->slow_ops);
        jw_close(w, '}');
    }
    jw_close(w, ']');
}

static void write_stat(const fa_analysis *a, const fa_stat_row *r, jw *w) {
    const fa_store *st = a->in.store;
    const fa_group *g = &a->groups.v[r->group];
    const fr_strings *dt = fa_store_strings(st, r->dtypes);
    jw_open(w, '{');
    jw_text(w, "group_id", g->id);
    jw_text(w, "group_desc", g->desc);
    jw_text(w, "op", r->type);
    jw_key(w, "input_sizes");
    json_shapes(w, fa_store_shapes(st, r->in_sizes));
    jw_key(w, "output_sizes");
    json_shapes(w, fa_store_shapes(st, r->out_sizes));
    if (dt->count)
        jw_text(w, "dtype", dt->items[0]);
    else
        jw_null(w, "dtype");
    jw_i64(w, "ranks", r->is_p2p ? 2 : g->nmembers);
    jw_i64(w, "count", (int64_t)r->count);
    if (r->bytes >= 0)
        jw_i64(w, "bytes", r->bytes);
    else
        jw_null(w, "bytes");
    jw_fixed3(w, "skew_ms_p50", r->skew_p50);
    jw_fixed3(w, "skew_ms_p99", r->skew_p99);
    jw_fixed3(w, "duration_ms_p50", r->dur_p50);
    jw_fixed3(w, "duration_ms_p99", r->dur_p99);
    jw_fixed3(w, "algbw_gbps", r->algbw);
    jw_fixed3(w, "busbw_gbps", r->busbw);
    jw_close(w, '}');
}

static void write_stats(const fa_analysis *a, const fa_report_options *opt, jw *w) {
    const fa_perf *p = &a->perf;
    jw_open(w, '[');
    for (size_t i = 0; i < p->nstats; i++)
        if (fa_perf_group_selected(a, opt, p->stats[i].group)) write_stat(a, &p->stats[i], w);
    jw_close(w, ']');
}

void fa_perf_write_db_keys(const fa_analysis *a, const fa_report_options *opt, jw *w) {
    jw_key(w, "stragglers");
    write_stragglers(a, w);
    jw_key(w, "stats");
    write_stats(a, opt, w);
    /* both empty for want of memory, not for want of slow ranks */
    if (a->perf.skipped) jw_str(w, "perf_skipped", a->perf.skipped);
}

/* ------------------------------------------------------------ frtrace stats ---------- */

static void dtype_text(const fa_store *st, uint32_t id, char *buf, size_t len) {
    const fr_strings *dt = fa_store_strings(st, id);
    snprintf(buf, len, "%s", dt->count ? dt->items[0] : "-");
}

/* On a terminal too narrow for every column (names are never cut): group and op share one,
 * then sizes and dtype. */
static void fit_columns(fa_table *t, size_t width) {
    static const struct {
        size_t column;
        const char *header;
    } joins[] = { { 0, "group, op" }, { 1, "sizes, dtype" } };
    fa_table_keep_whole(t, 6); /* "80.0 MiB" */
    for (size_t k = 0; k < sizeof joins / sizeof joins[0] && !fa_table_fits(t, "", width); k++) {
        fa_table_join_columns(t, joins[k].column);
        free(t->cells[joins[k].column]);
        t->cells[joins[k].column] = strdup(joins[k].header);
    }
}

int fa_perf_print_stats(const fa_analysis *a, const fa_report_options *opt, const char *format,
                        FILE *out) {
    const fa_perf *p = &a->perf;
    if (strcmp(format, "json") == 0) {
        jw w;
        if (!jw_open_file(&w, out)) return jw_close_file(&w);
        jw_open(&w, '{');
        jw_key(&w, "stats");
        write_stats(a, opt, &w);
        jw_key(&w, "stragglers");
        write_stragglers(a, &w);
        jw_close(&w, '}');
        jw_char(&w, '\n');
        return jw_close_file(&w);
    }
    bool jira = strcmp(format, "jira") == 0, md = jira || strcmp(format, "markdown") == 0;
    fa_table t;
    fa_table_init(&t, 13);
    fa_table_row(&t);
    const char *head[] = { "group",      "op",         "sizes",       "dtype",       "ranks",
                           "count",      "bytes",      "skew p50 ms", "skew p99 ms", "dur p50 ms",
                           "dur p99 ms", "algbw GB/s", "busbw GB/s" };
    for (int i = 0; i < 13; i++) fa_table_cell(&t, "%s", head[i]);
    size_t shown = 0;
    for (size_t i = 0; i < p->nstats; i++) {
        const fa_stat_row *r = &p->stats[i];
        if (!fa_perf_group_selected(a, opt, r->group)) continue;
        shown++;
        char label[256], sizes[256], dt[64];
        fa_group_label(&a->groups.v[r->group], label, sizeof label);
        fa_shapes_text(fa_store_shapes(a->in.store, r->in_sizes), sizes, sizeof sizes);
        if (r->out_sizes != r->in_sizes) {
            size_t n = strlen(sizes);
            snprintf(sizes + n, sizeof sizes - n, " -> ");
            n = strlen(sizes);
            fa_shapes_text(fa_store_shapes(a->in.store, r->out_sizes), sizes + n, sizeof sizes - n);
        }
        dtype_text(a->in.store, r->dtypes, dt, sizeof dt);
        fa_table_row(&t);
        fa_table_cell(&t, "%s", label);
        fa_table_cell(&t, "%s", r->type);
        fa_table_cell(&t, "%s", sizes);
        fa_table_cell(&t, "%s", dt);
        fa_table_cell(&t, "%u", r->is_p2p ? 2 : a->groups.v[r->group].nmembers);
        fa_table_cell(&t, "%llu", (unsigned long long)r->count);
        bytes_cell(&t, r->bytes);
        ms_cell(&t, r->skew_p50);
        ms_cell(&t, r->skew_p99);
        ms_cell(&t, r->dur_p50);
        ms_cell(&t, r->dur_p99);
        if (isnan(r->algbw))
            fa_table_cell(&t, "-"), fa_table_cell(&t, "-");
        else
            fa_table_cell(&t, "%.2f", r->algbw), fa_table_cell(&t, "%.2f", r->busbw);
    }
    fa_table_drop_columns_of(&t, "-"); /* durations and bandwidth where no dump has them */
    if (jira) {
        fprintf(out, "h1. frtrace stats: %zu ranks from ", a->in.nranks);
        fr_jira_code(out, a->in.dir, false); /* a path: shown, never obeyed (safe_text.h) */
        fputs("\n\n", out);
        fa_table_print_jira(&t, out);
        fputc('\n', out);
    } else if (md) {
        fprintf(out, "# frtrace stats: %zu ranks from ", a->in.nranks);
        fr_md_code(out, a->in.dir, false); /* a path: shown, never obeyed (safe_text.h) */
        fputs("\n\n", out);
        fa_table_print_markdown(&t, out);
        fputc('\n', out);
    } else {
        fprintf(out, "%zu operation kinds, %zu ranks read from ", shown, a->in.nranks);
        fr_text_fputs(out, a->in.dir);
        fputs("\n\n", out);
        fit_columns(&t, opt->width);
        fa_table_print_fit(&t, out, "", opt->width);
        fputc('\n', out);
    }
    if (!p->any_duration && jira)
        fputs("_No durations in these dumps (PyTorch writes {{duration\\_ms}} only with timing on: "
              "{{TORCH\\_NCCL\\_ENABLE\\_TIMING=1}}), so no duration or bandwidth columns._\n\n",
              out);
    else if (!p->any_duration && md)
        fputs("_No durations in these dumps (PyTorch writes duration_ms only with timing on: "
              "TORCH_NCCL_ENABLE_TIMING=1), so no duration or bandwidth columns._\n\n",
              out);
    else if (!p->any_duration) {
        fa_wrap_print(out, "", " ",
                      "(no durations in these dumps (PyTorch writes duration_ms only with timing "
                      "on: TORCH_NCCL_ENABLE_TIMING=1), so no duration or bandwidth columns)",
                      opt->width);
        fputc('\n', out);
    }
    fa_table_free(&t);
    fa_perf_print_slow_ranks(a, format, opt->width, out);
    if (!p->nstragglers)
        fprintf(out, "%sno slow ranks (%zu collectives judged, floor %.1f ms)%s\n", md ? "_" : "",
                p->judged, p->floor_ms, md ? "_" : "");
    return ferror(out) ? -1 : 0;
}
