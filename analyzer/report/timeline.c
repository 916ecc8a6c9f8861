/* timeline.c — Chrome Trace Event JSON and SVG of the job's entries over time (timeline.h). */
#include "report/timeline.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "report/json_writer.h"
#include "report/perf_report.h"
#include "safe_text.h"

/* ------------------------------------------------------------ which ranks ----------- */

static int cmp_size(const void *a, const void *b) {
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return x < y ? -1 : x > y;
}

static bool rank_wanted(const fa_report_options *opt, int64_t rank) {
    for (size_t i = 0; i < opt->nselected_ranks; i++)
        if (opt->selected_ranks[i] == rank) return true;
    return false;
}

/* Takes input rank index r when the cap allows and it is not taken yet. */
static void take(fa_timeline_sel *sel, bool *taken, long r, size_t cap) {
    if (r >= 0 && !taken[r] && sel->n < cap) taken[r] = true, sel->ranks[sel->n++] = (size_t)r;
}

/* The culprits, the slow ranks, then the ranks that wait for the culprits in each group they
 * block, then those groups' other members: the ranks that tell the hang's story. */
static void pick_around_culprits(const fa_analysis *a, fa_timeline_sel *sel, bool *taken,
                                 size_t cap) {
    const fa_verdict *vd = &a->verdict;
    for (size_t i = 0; i < vd->culprits.n; i++)
        take(sel, taken, fa_input_find(&a->in, vd->culprits.v[i]), cap);
    for (size_t i = 0; i < a->perf.nstragglers; i++)
        take(sel, taken, fa_input_find(&a->in, a->perf.stragglers[i].rank), cap);
    /* the waiters of every group in turn, so that a 64-rank data-parallel group does not
     * crowd out the culprit's tensor-parallel peers */
    bool more = true;
    for (size_t k = 0; more && sel->n < cap; k++) {
        more = false;
        for (size_t i = 0; i < vd->nevidence; i++)
            if (k < vd->evidence[i].waiters.n) {
                take(sel, taken, fa_input_find(&a->in, vd->evidence[i].waiters.v[k]), cap);
                more = true;
            }
    }
    for (size_t i = 0; i < vd->nevidence; i++) {
        const fa_group *g = &a->groups.v[vd->evidence[i].group];
        for (uint32_t m = 0; m < g->nmembers; m++)
            take(sel, taken, fa_input_find(&a->in, g->members[m]), cap);
    }
}

int fa_timeline_pick(const fa_analysis *a, const fa_report_options *opt, long max_ranks,
                     fa_timeline_sel *sel) {
    memset(sel, 0, sizeof *sel);
    size_t n = a->in.nranks;
    sel->ranks = malloc((n + 1) * sizeof *sel->ranks);
    bool *taken = calloc(n + 1, sizeof *taken);
    if (!sel->ranks || !taken) {
        free(taken);
        return -1;
    }
    if (opt->selected_ranks) {
        for (size_t i = 0; i < n; i++)
            if (rank_wanted(opt, a->in.ranks[i].rank)) sel->ranks[sel->n++] = i;
    } else if (max_ranks <= 0 || n <= (size_t)max_ranks) {
        for (size_t i = 0; i < n; i++) sel->ranks[sel->n++] = i;
    } else {
        size_t cap = (size_t)max_ranks;
        if (a->verdict.culprits.n) {
            sel->around_culprits = true;
            pick_around_culprits(a, sel, taken, cap);
        } else {
            for (size_t i = 0; i < a->perf.nstragglers; i++)
                take(sel, taken, fa_input_find(&a->in, a->perf.stragglers[i].rank), cap);
            for (size_t i = 0; i < n; i++) take(sel, taken, (long)i, cap);
        }
        qsort(sel->ranks, sel->n, sizeof *sel->ranks, cmp_size);
        sel->dropped = n - sel->n;
    }
    free(taken);
    return 0;
}

void fa_timeline_sel_free(fa_timeline_sel *sel) {
    free(sel->ranks);
    memset(sel, 0, sizeof *sel);
}

/* ------------------------------------------------------------ shared ---------------- */

/* What both pictures need: the time base, each drawn entry's span, the marks. */
typedef struct span {
    int64_t start, end; /* ns */
    bool pending, end_known;
} span;

typedef struct view {
    const fa_analysis *a;
    const fa_report_options *opt;
    const fa_timeline_sel *sel;
    int64_t t0, t_end; /* first arrival, the dump's time (the latest instant seen) */
    int64_t lo, hi;    /* the window drawn */
    long hang_op;      /* the verdict's operation, or -1 */
    int64_t hang_ns;   /* where its first rank arrived */
    bool *input_shown; /* per input rank */
} view;

static bool is_pending(const fa_traits *t) { return t->state != FR_STATE_COMPLETED; }

static span entry_span(const view *v, const fa_dump *d, uint32_t i) {
    const fa_traits *tr = fa_entry_traits(v->a->in.store, &d->entries[i]);
    int64_t created = fa_time_created(d, i), completed = fa_time_completed(d, i);
    double duration = fa_time_duration(d, i);
    span s = { created, created, is_pending(tr), false };
    if (s.pending) {
        s.end = v->t_end > s.start ? v->t_end : s.start;
    } else if (completed) {
        s.end = completed;
        s.end_known = true;
    } else if (!isnan(duration)) {
        s.end = s.start + (int64_t)(duration * 1e6);
        s.end_known = true;
    }
    return s;
}

/* The group index of entry i of input rank r (-1 none), cached per pg slot. */
static long entry_group(const view *v, size_t r, const fa_dump *d, uint32_t i, long *pg_group) {
    uint32_t pg = fa_entry_pg(v->a->in.store, &d->entries[i]);
    if (pg_group[pg] == -2) pg_group[pg] = fa_groups_find(&v->a->groups, r, d->pgs[pg].name);
    return pg_group[pg];
}

static long hang_op(const fa_analysis *a) {
    const fa_verdict *vd = &a->verdict;
    if (vd->status == FA_STATUS_OK) return -1;
    if (vd->nculprit_findings && a->findings.v[vd->first_culprit_finding].op >= 0)
        return a->findings.v[vd->first_culprit_finding].op;
    if (vd->nevidence) return vd->evidence[0].op;
    for (size_t i = 0; i < a->findings.n; i++)
        if (a->findings.v[i].op >= 0 && !fa_finding_is_warning(a->findings.v[i].kind))
            return a->findings.v[i].op;
    return -1;
}

/* Where the verdict's operation began: its first rank's arrival (0 when there is none). */
static int64_t hang_point(const fa_analysis *a, long op) {
    int64_t at = 0;
    if (op < 0) return 0;
    const fa_op *o = &a->match.ops[op];
    for (uint32_t k = 0; k < o->ncalls; k++) {
        const fa_call *c = &a->match.calls[o->first_call + k];
        int64_t t =
            fa_time_created(a->in.ranks[c->rank_index].dump, fa_call_entry_index(&a->match, c, 0));
        if (t && (!at || t < at)) at = t;
    }
    return at;
}

/* The first arrival among the drawn ranks (0 when none has times). */
static int64_t first_arrival(const fa_analysis *a, const fa_timeline_sel *sel) {
    int64_t t0 = INT64_MAX;
    for (size_t k = 0; k < sel->n; k++) {
        const fa_dump *d = a->in.ranks[sel->ranks[k]].dump;
        for (uint32_t i = 0; i < d->nentries; i++) {
            int64_t t = fa_time_created(d, i);
            if (t && t < t0) t0 = t;
        }
    }
    return t0 == INT64_MAX ? 0 : t0;
}

static int view_init(view *v, const fa_analysis *a, const fa_report_options *opt,
                     const fa_timeline_sel *sel) {
    memset(v, 0, sizeof *v);
    v->a = a, v->opt = opt, v->sel = sel;
    v->input_shown = calloc(a->in.nranks + 1, sizeof *v->input_shown);
    if (!v->input_shown) return -1;
    for (size_t k = 0; k < sel->n; k++) v->input_shown[sel->ranks[k]] = true;
    int64_t t_end = 0;
    for (size_t r = 0; r < a->in.nranks; r++) {
        const fa_dump *d = a->in.ranks[r].dump;
        for (uint32_t i = 0; i < d->nentries; i++) {
            int64_t created = fa_time_created(d, i), completed = fa_time_completed(d, i);
            if (!created) continue;
            int64_t end = completed ? completed : created;
            if (end > t_end) t_end = end;
        }
    }
    v->t0 = first_arrival(a, sel);
    v->t_end = t_end;
    v->lo = v->t0 + (sel->has_from ? (int64_t)(sel->from_ms * 1e6) : 0);
    v->hi = sel->has_to ? v->t0 + (int64_t)(sel->to_ms * 1e6) : t_end;
    v->hang_op = hang_op(a);
    v->hang_ns = hang_point(a, v->hang_op);
    return 0;
}

/* The last WINDOW_OPS operations before the hang on every drawn rank, and what they queued
 * after it: where the picture has something to say. */
enum { WINDOW_OPS = 16 };

bool fa_timeline_window_around_hang(const fa_analysis *a, fa_timeline_sel *sel) {
    if (sel->has_from || sel->has_to) return false; /* the user chose */
    int64_t hang = hang_point(a, hang_op(a)), t0 = first_arrival(a, sel), lo = INT64_MAX, hi = 0,
            t_end = 0;
    if (!hang || !t0) return false;
    for (size_t k = 0; k < sel->n; k++) {
        const fa_dump *d = a->in.ranks[sel->ranks[k]].dump;
        uint32_t before = 0; /* the first entry at or after the hang */
        while (before < d->nentries && fa_time_created(d, before) < hang) before++;
        uint32_t from = before > WINDOW_OPS ? before - WINDOW_OPS : 0;
        for (uint32_t i = from; i < d->nentries; i++) {
            int64_t t = fa_time_created(d, i), completed = fa_time_completed(d, i);
            if (!t) continue;
            if (i < before && t < lo) lo = t;
            if (t > hi) hi = t;
            int64_t end = completed ? completed : t;
            if (end > t_end) t_end = end;
        }
    }
    if (lo == INT64_MAX) lo = hang;
    if (hi < hang) hi = hang;
    int64_t width = hi - lo > 1000000 ? hi - lo : 1000000; /* at least 1 ms */
    lo -= width / 20, hi += width / 5;                     /* margins: the hang is not the edge */
    if (lo < t0) lo = t0;
    int64_t whole = (t_end > hi ? t_end : hi) - t0;
    if (whole <= 0 || (double)(hi - lo) > 0.5 * (double)whole) return false; /* nothing to zoom */
    sel->has_from = sel->has_to = sel->windowed = true;
    sel->from_ms = (double)(lo - t0) / 1e6;
    sel->to_ms = (double)(hi - t0) / 1e6;
    return true;
}

/* "group 5 all_reduce #4": the hang point's name. */
static void hang_label(const fa_analysis *a, long op, char *buf, size_t len) {
    char g[256], o[140];
    fa_group_label(&a->groups.v[a->match.ops[op].group], g, sizeof g);
    fa_op_label(&a->match, (size_t)op, o, sizeof o);
    snprintf(buf, len, "%s %s", g, o);
}

static const fa_straggler *straggler_of(const fa_analysis *a, int64_t rank) {
    for (size_t i = 0; i < a->perf.nstragglers; i++)
        if (a->perf.stragglers[i].rank == rank) return &a->perf.stragglers[i];
    return NULL;
}

static bool is_culprit(const fa_analysis *a, int64_t rank) {
    return fa_ranks_contains(&a->verdict.culprits, rank);
}

static double us(const view *v, int64_t ns) { return (double)(ns - v->t0) / 1000.0; }

/* ------------------------------------------------------------ trace JSON ------------ */

/* Perfetto nests the slices of one thread track: ordered by start (the longer first when two
 * start together), a slice that starts inside another must end inside it. NCCL queues the next
 * collective of a group while the GPU still runs the previous one, so their spans overlap
 * without nesting; such a slice goes to the group's next lane (a track of its own, "GROUP
 * (overlapping 2)"), the first lane where it nests or follows. Each lane keeps the ends of its
 * open slices (at most STACK deep). MAX_LANES bounds the tracks; a deeper overlap shares the
 * last. */
enum { MAX_LANES = 8, STACK = 16 };

typedef struct lanes {
    uint8_t *of;    /* per entry of the rank: its lane */
    int64_t *open;  /* [(group * MAX_LANES + lane) * STACK + k]: ends of the open slices */
    uint8_t *depth; /* [group * MAX_LANES + lane]: how many are open */
    uint8_t *count; /* per group: lanes used */
} lanes;

/* The track of group gi's lane: lane 0 keeps the group's own number. */
static long lane_tid(const view *v, long gi, unsigned lane) {
    return gi + 1 + (long)lane * (long)(v->a->groups.n + 1);
}

typedef struct order_key {
    int64_t start, end;
    uint32_t entry;
} order_key;

static int cmp_order(const void *x, const void *y) {
    const order_key *p = x, *q = y;
    if (p->start != q->start) return p->start < q->start ? -1 : 1;
    if (p->end != q->end) return p->end > q->end ? -1 : 1; /* the longer one is the parent */
    return (p->entry > q->entry) - (p->entry < q->entry);
}

/* Whether [start, end] fits lane slot (its open slices popped up to start): it nests in the
 * innermost open one, or nothing is open. Pushes it when it does. */
static bool lane_takes(lanes *l, size_t slot, int64_t start, int64_t end) {
    int64_t *open = &l->open[slot * STACK];
    uint8_t *depth = &l->depth[slot];
    while (*depth && open[*depth - 1] <= start) --*depth;
    if ((*depth && open[*depth - 1] < end) || *depth == STACK) return false;
    open[(*depth)++] = end;
    return true;
}

static int lanes_assign(const view *v, size_t r, const long *entry_gi, lanes *l) {
    const fa_dump *d = v->a->in.ranks[r].dump;
    size_t ng = v->a->groups.n + 1;
    order_key *keys = malloc((d->nentries + 1) * sizeof *keys);
    l->of = calloc(d->nentries + 1, 1);
    l->open = malloc(ng * MAX_LANES * STACK * sizeof *l->open);
    l->depth = calloc(ng * MAX_LANES, 1);
    l->count = calloc(ng, 1);
    if (!keys || !l->of || !l->open || !l->depth || !l->count) {
        free(keys);
        return -1;
    }
    size_t n = 0;
    for (uint32_t i = 0; i < d->nentries; i++) {
        if (entry_gi[i] < -1) continue; /* not drawn */
        span s = entry_span(v, d, i);
        keys[n++] = (order_key){ s.start, s.end > s.start ? s.end : s.start + 1000, i };
    }
    qsort(keys, n, sizeof *keys, cmp_order);
    for (size_t k = 0; k < n; k++) {
        size_t g = (size_t)(entry_gi[keys[k].entry] + 1);
        unsigned lane = 0;
        while (lane + 1 < MAX_LANES &&
               !lane_takes(l, g * MAX_LANES + lane, keys[k].start, keys[k].end))
            lane++;
        if (lane >= l->count[g]) l->count[g] = (uint8_t)(lane + 1);
        l->of[keys[k].entry] = (uint8_t)lane;
    }
    free(keys);
    return 0;
}

static void lanes_free(lanes *l) {
    free(l->of), free(l->open), free(l->depth), free(l->count);
    memset(l, 0, sizeof *l);
}

/* `"key":"value"` for a string printed with a format (plain text: numbers, words). */
static void jw_strf(jw *w, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void jw_strf(jw *w, const char *key, const char *fmt, ...) {
    char text[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    jw_str(w, key, text);
}

static void trace_entry(const view *v, jw *w, int64_t rank, long tid, const fa_dump *d, uint32_t i,
                        span s) {
    const fa_store *st = v->a->in.store;
    const fa_entry *e = &d->entries[i];
    const fa_traits *tr = fa_entry_traits(st, e);
    const fa_opinfo *op = fa_store_op(st, tr->name);
    char in[256], outs[256];
    fa_shapes_text(fa_store_shapes(st, tr->in_sizes), in, sizeof in);
    fa_shapes_text(fa_store_shapes(st, tr->out_sizes), outs, sizeof outs);
    const fr_strings *dt = fa_store_strings(st, tr->in_dtypes);
    double dur = s.end > s.start ? (double)(s.end - s.start) / 1000.0 : 0.001;
    jw_newline(w);
    jw_open(w, '{');
    jw_str(w, "ph", "X");
    jw_i64(w, "pid", rank);
    jw_i64(w, "tid", tid);
    jw_fixed3(w, "ts", us(v, s.start));
    jw_fixed3(w, "dur", dur);
    jw_str_begin(w, "name");
    jw_str_part(w, op->type);
    if (tr->is_p2p && (op->is_send || op->is_recv)) jw_str_part(w, op->is_send ? " ->" : " <-");
    if (s.pending) jw_str_part(w, " (pending)");
    jw_str_end(w);
    jw_str(w, "cat", tr->is_p2p ? "p2p" : "collective");
    if (s.pending) jw_str(w, "cname", "terrible");
    jw_key(w, "args");
    jw_open(w, '{');
    jw_i64(w, "record_id", fa_entry_record_id(d, e));
    jw_i64(w, "collective_seq_id", fa_entry_coll_seq(d, e));
    jw_i64(w, "p2p_seq_id", fa_entry_p2p_seq(d, e));
    jw_text(w, "profiling_name", op->text);
    jw_str(w, "input_sizes", in);
    jw_str(w, "output_sizes", outs);
    jw_text(w, "dtype", dt->count ? dt->items[0] : "");
    jw_str(w, "state", fr_state_name((fr_state)tr->state));
    if (!isnan(fa_time_duration(d, i))) jw_fixed3(w, "duration_ms", fa_time_duration(d, i));
    if (s.pending) {
        jw_bool(w, "pending", true);
        jw_str(w, "ends_at", "the dump");
    } else if (!s.end_known) {
        jw_str(w, "end", "unknown");
    }
    jw_close(w, '}');
    jw_close(w, '}');
}

/* A metadata event: {"ph":"M","pid":..,["tid":..,]"name":name,"args":{ (the caller writes the
 * args and closes both). */
static void trace_meta_open(jw *w, int64_t pid, const long *tid, const char *name) {
    jw_newline(w);
    jw_open(w, '{');
    jw_str(w, "ph", "M");
    jw_i64(w, "pid", pid);
    if (tid) jw_i64(w, "tid", *tid);
    jw_str(w, "name", name);
    jw_key(w, "args");
    jw_open(w, '{');
}

static void trace_meta_close(jw *w) {
    jw_close(w, '}');
    jw_close(w, '}');
}

static void trace_names(const view *v, jw *w, size_t r, const long *groups_used, size_t ngroups,
                        const lanes *l) {
    const fa_analysis *a = v->a;
    int64_t rank = a->in.ranks[r].rank;
    const fa_straggler *s = straggler_of(a, rank);
    trace_meta_open(w, rank, NULL, "process_name");
    char slow[128] = "";
    if (s && s->late)
        snprintf(slow, sizeof slow, " (slow: %.1f ms late, median)", s->late_ms_typical);
    else if (s)
        snprintf(slow, sizeof slow, " (slow: operations %.1f ms longer, median)",
                 s->slow_ms_median);
    jw_strf(w, "name", "rank %lld%s%s", (long long)rank, is_culprit(a, rank) ? " (culprit)" : "",
            slow);
    trace_meta_close(w);
    trace_meta_open(w, rank, NULL, "process_sort_index");
    jw_i64(w, "sort_index", rank);
    trace_meta_close(w);
    for (size_t k = 0; k < ngroups; k++) {
        char label[256];
        fa_group_label(&a->groups.v[groups_used[k]], label, sizeof label);
        for (unsigned lane = 0; lane < l->count[groups_used[k] + 1]; lane++) {
            long tid = lane_tid(v, groups_used[k], lane);
            trace_meta_open(w, rank, &tid, "thread_name");
            jw_str_begin(w, "name");
            jw_str_part(w, label);
            if (lane) {
                char more[32];
                snprintf(more, sizeof more, " (overlapping %u)", lane + 1);
                jw_str_part(w, more);
            }
            jw_str_end(w);
            trace_meta_close(w);
            trace_meta_open(w, rank, &tid, "thread_sort_index");
            jw_i64(w, "sort_index", (groups_used[k] + 1) * MAX_LANES + (long)lane);
            trace_meta_close(w);
        }
    }
}

static bool in_window(const view *v, span s) { return s.end >= v->lo && s.start <= v->hi; }

typedef struct arrival {
    int64_t ns, rank;
    long tid;
} arrival;

static int cmp_arrival(const void *x, const void *y) {
    const arrival *p = x, *q = y;
    if (p->ns != q->ns) return p->ns < q->ns ? -1 : 1;
    return (p->rank > q->rank) - (p->rank < q->rank);
}

/* Flow arrows join each collective's calls in the order the ranks arrived (not rank order: an
 * arrow never runs backwards in time), on the lane each call's slice was drawn in. */
static void trace_flows(const view *v, jw *w, const lanes *rank_lanes) {
    const fa_analysis *a = v->a;
    const fa_match *m = &a->match;
    arrival *at = NULL;
    size_t cap = 0;
    for (size_t op = 0; op < m->nops; op++) {
        const fa_op *o = &m->ops[op];
        if (o->ncalls < 2 || !fa_perf_group_selected(a, v->opt, o->group)) continue;
        if (fr_grow((void **)&at, &cap, o->ncalls, sizeof *at, 64)) break;
        size_t n = 0;
        for (uint32_t k = 0; k < o->ncalls; k++) {
            const fa_call *c = &m->calls[o->first_call + k];
            if (!v->input_shown[c->rank_index]) continue;
            const fa_dump *d = a->in.ranks[c->rank_index].dump;
            uint32_t i = fa_call_entry_index(m, c, 0);
            span s = entry_span(v, d, i);
            if (!s.start || !in_window(v, s)) continue;
            const lanes *l = &rank_lanes[c->rank_index];
            at[n++] = (arrival){ s.start, a->in.ranks[c->rank_index].rank,
                                 lane_tid(v, (long)o->group, l->of ? l->of[i] : 0) };
        }
        if (n < 2) continue;
        qsort(at, n, sizeof *at, cmp_arrival);
        for (size_t k = 0; k < n; k++) {
            jw_newline(w);
            jw_open(w, '{');
            jw_str(w, "ph", k == 0 ? "s" : k + 1 == n ? "f" : "t");
            jw_i64(w, "id", (int64_t)op);
            jw_i64(w, "pid", at[k].rank);
            jw_i64(w, "tid", at[k].tid);
            jw_fixed3(w, "ts", us(v, at[k].ns));
            jw_str(w, "name", "collective");
            jw_str(w, "cat", "flow");
            jw_str(w, "bp", "e");
            jw_close(w, '}');
        }
    }
    free(at);
}

/* Each entry's group when it is drawn (-1: none), -2 when it is not (filtered, outside the
 * window); malloc'd, NULL when out of memory. */
static long *drawn_groups(const view *v, size_t r) {
    const fa_dump *d = v->a->in.ranks[r].dump;
    long *gi = malloc((d->nentries + 1) * sizeof *gi),
         *pg_group = malloc((d->npgs + 1) * sizeof *pg_group);
    if (!gi || !pg_group) {
        free(gi), free(pg_group);
        return NULL;
    }
    for (uint32_t p = 0; p < d->npgs; p++) pg_group[p] = -2;
    for (uint32_t i = 0; i < d->nentries; i++) {
        gi[i] = entry_group(v, r, d, i, pg_group);
        span s = entry_span(v, d, i);
        if ((gi[i] >= 0 && !fa_perf_group_selected(v->a, v->opt, (uint32_t)gi[i])) || !s.start ||
            !in_window(v, s))
            gi[i] = -2;
    }
    free(pg_group);
    return gi;
}

/* One rank's slices, track names and culprit mark; its lanes are kept for the flows. */
static int trace_rank(const view *v, jw *w, size_t r, long *used, bool *seen, lanes *l) {
    const fa_analysis *a = v->a;
    const fa_dump *d = a->in.ranks[r].dump;
    int64_t rank = a->in.ranks[r].rank;
    long *gi = drawn_groups(v, r);
    if (!gi || lanes_assign(v, r, gi, l) != 0) {
        free(gi);
        return -1;
    }
    size_t nused = 0;
    memset(seen, 0, (a->groups.n + 1) * sizeof *seen);
    for (uint32_t i = 0; i < d->nentries; i++) {
        if (gi[i] < -1) continue;
        trace_entry(v, w, rank, lane_tid(v, gi[i], l->of[i]), d, i, entry_span(v, d, i));
        if (gi[i] >= 0 && !seen[gi[i]]) seen[gi[i]] = true, used[nused++] = gi[i];
    }
    trace_names(v, w, r, used, nused, l);
    if (is_culprit(a, rank) && v->hang_ns) {
        jw_newline(w);
        jw_open(w, '{');
        jw_str(w, "ph", "i");
        jw_str(w, "s", "p");
        jw_i64(w, "pid", rank);
        jw_i64(w, "tid", 0);
        jw_fixed3(w, "ts", us(v, v->hang_ns));
        jw_str(w, "name", "culprit");
        jw_str(w, "cname", "terrible");
        jw_close(w, '}');
    }
    free(l->open), free(l->depth), free(l->count); /* the entries' lanes stay, for the flows */
    l->open = NULL, l->depth = NULL, l->count = NULL;
    free(gi);
    return 0;
}

/* The trace object up to its first event: otherData (where the dumps came from, the verdict,
 * the time origin), then the verdict as the name of a process above every rank. */
static void trace_head(const view *v, const fa_timeline_sel *sel, jw *w) {
    const fa_analysis *a = v->a;
    jw_open(w, '{');
    jw_str(w, "displayTimeUnit", "ms");
    jw_key(w, "otherData");
    jw_open(w, '{');
    jw_str(w, "generator", "frtrace");
    jw_text(w, "dir", a->in.dir);
    jw_text(w, "verdict", a->verdict.summary);
    jw_i64(w, "time_zero_ns", v->t0);
    jw_i64(w, "ranks_drawn", (int64_t)sel->n);
    jw_i64(w, "ranks_left_out", (int64_t)sel->dropped);
    jw_close(w, '}');
    jw_newline(w);
    jw_key(w, "traceEvents");
    jw_open(w, '[');
    trace_meta_open(w, -1, NULL, "process_name");
    jw_str_begin(w, "name");
    jw_str_part(w, "verdict: ");
    jw_str_part(w, a->verdict.summary);
    jw_str_end(w);
    trace_meta_close(w);
}

int fa_timeline_write_trace(const fa_analysis *a, const fa_report_options *opt,
                            const fa_timeline_sel *sel, FILE *out) {
    view v;
    if (view_init(&v, a, opt, sel) != 0) return -1;
    long *used = malloc((a->groups.n + 1) * sizeof *used);
    bool *seen = calloc(a->groups.n + 1, sizeof *seen);
    lanes *rank_lanes = calloc(a->in.nranks + 1, sizeof *rank_lanes);
    jw w = { 0 };
    int rc = used && seen && rank_lanes && jw_open_file(&w, out) ? 0 : -1;
    if (rc == 0) trace_head(&v, sel, &w);
    for (size_t k = 0; k < sel->n && rc == 0; k++)
        rc = trace_rank(&v, &w, sel->ranks[k], used, seen, &rank_lanes[sel->ranks[k]]);
    if (rc == 0) trace_flows(&v, &w, rank_lanes);
    if (rc == 0 && v.hang_ns) {
        char label[400] = "";
        hang_label(a, v.hang_op, label, sizeof label);
        jw_newline(&w);
        jw_open(&w, '{');
        jw_str(&w, "ph", "i");
        jw_str(&w, "s", "g");
        jw_i64(&w, "pid", -1);
        jw_i64(&w, "tid", 0);
        jw_fixed3(&w, "ts", us(&v, v.hang_ns));
        jw_str_begin(&w, "name");
        jw_str_part(&w, "hang point: ");
        jw_str_part(&w, label);
        jw_str_end(&w);
        jw_str(&w, "cname", "terrible");
        jw_close(&w, '}');
    }
    if (w.out) {
        jw_char(&w, '\n');
        jw_close(&w, ']');
        jw_close(&w, '}');
        jw_char(&w, '\n');
        if (jw_close_file(&w) != 0) rc = -1;
    }
    for (size_t r = 0; rank_lanes && r < a->in.nranks; r++) lanes_free(&rank_lanes[r]);
    free(rank_lanes), free(used), free(seen), free(v.input_shown);
    return rc;
}

/* ------------------------------------------------------------ SVG ------------------- */

enum { SVG_W = 1200, SVG_LABEL = 190, SVG_RIGHT = 20, SVG_TOP = 92 };

typedef struct family {
    const char *name, *color;
} family;

static const family FAMILIES[] = {
    { "all_reduce", "#4e79a7" }, { "all_gather", "#59a14f" }, { "reduce_scatter", "#76b7b2" },
    { "all_to_all", "#b07aa1" }, { "broadcast", "#f28e2b" },  { "send/recv", "#9c755f" },
    { "other", "#bab0ac" },
};
enum { NFAMILIES = sizeof FAMILIES / sizeof FAMILIES[0] };
#define PENDING_COLOR "#e15759"

static int family_of(const fa_opinfo *op) {
    const char *t = op->type;
    if (op->is_send || op->is_recv) return 5;
    if (strstr(t, "all_reduce") || strstr(t, "allreduce")) return 0;
    if (strstr(t, "all_gather") || strstr(t, "allgather")) return 1;
    if (strstr(t, "reduce_scatter")) return 2;
    if (strstr(t, "all_to_all") || strstr(t, "alltoall")) return 3;
    if (strstr(t, "broadcast")) return 4;
    return 6;
}

/* Text from the input as SVG character data: well-formed XML, shown, never obeyed. */
static void xml_text(FILE *out, const char *s) { fr_xml_fputs(out, s); }

static double nice_step(double width) {
    double raw = width / 8, p = pow(10, floor(log10(raw > 0 ? raw : 1)));
    double m = raw / p;
    return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
}

/* One row's completed bars at pixel resolution: each pixel column keeps the family of the
 * operation that covers most of it, so a row is at most one rect per pixel whatever the entry
 * count, and neighbouring columns of one family become one rect. */
typedef struct pixrow {
    float *cover; /* [px * NFAMILIES]: how much of each pixel each family covers */
    size_t width;
} pixrow;

static void pix_add(pixrow *p, double x0, double x1, int fam) {
    if (x1 < x0 + 0.6) x1 = x0 + 0.6; /* a bar narrower than a pixel still shows */
    for (size_t px = x0 < 0 ? 0 : (size_t)x0; px < p->width && (double)px < x1; px++) {
        double lo = (double)px > x0 ? (double)px : x0,
               hi = (double)(px + 1) < x1 ? (double)(px + 1) : x1;
        if (hi > lo) p->cover[px * NFAMILIES + (size_t)fam] += (float)(hi - lo);
    }
}

static void pix_flush(pixrow *p, FILE *out, double left, double y, double h) {
    int cur = -1;
    size_t start = 0;
    for (size_t px = 0; px <= p->width; px++) {
        int best = -1;
        float most = 0.25f; /* a pixel less than a quarter covered stays blank */
        for (int f = 0; px < p->width && f < NFAMILIES; f++)
            if (p->cover[px * NFAMILIES + (size_t)f] > most)
                most = p->cover[px * NFAMILIES + (size_t)f], best = f;
        if (best == cur) continue;
        if (cur >= 0)
            fprintf(out,
                    "<rect x=\"%.0f\" y=\"%.1f\" width=\"%zu\" height=\"%.1f\" fill=\"%s\"/>\n",
                    left + (double)start, y, px - start, h, FAMILIES[cur].color);
        cur = best, start = px;
    }
    memset(p->cover, 0, p->width * NFAMILIES * sizeof *p->cover);
}

/* The picture's colours besides the families': rows (culprit, slow, zebra), their labels' ink,
 * the grid and the captions, the pending bars' edge. */
#define CULPRIT_BG   "#fbd5d5"
#define SLOW_BG      "#ffe2b8"
#define ZEBRA_BG     "#f4f4f4"
#define PLAIN_BG     "#ffffff"
#define CULPRIT_INK  "#b00000"
#define SLOW_INK     "#a35200"
#define CAPTION_INK  "#555"
#define GRID_COLOR   "#ddd"
#define PENDING_EDGE "#7a0000"

/* The picture's geometry: one row of height rh per drawn rank, the window [v.lo, v.hi] across
 * plot_w pixels right of the labels. */
typedef struct svg_plot {
    view v;
    const fa_timeline_sel *sel;
    size_t rows;
    double rh, plot_w, height, span_ns;
} svg_plot;

static double xof(const svg_plot *p, int64_t ns) {
    return SVG_LABEL + ((double)(ns - p->v.lo) / p->span_ns) * p->plot_w;
}

/* The <svg> element, the verdict as title and the line saying what is drawn. */
static void svg_head(const svg_plot *p, FILE *out) {
    const fa_analysis *a = p->v.a;
    const fa_timeline_sel *sel = p->sel;
    fprintf(out,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%.0f\" viewBox=\"0 0 "
            "%d %.0f\" "
            "font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\" font-size=\"11\">\n",
            SVG_W, p->height, SVG_W, p->height);
    fprintf(out, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n<text x=\"10\" y=\"20\" "
                 "font-size=\"14\" font-weight=\"bold\">");
    xml_text(out, a->verdict.summary ? a->verdict.summary : fa_status_name(a->verdict.status));
    fprintf(out,
            "</text>\n<text x=\"10\" y=\"38\" fill=\"" CAPTION_INK
            "\">%zu of %zu ranks%s, %.1f ms %s; bars: "
            "arrival to completion; red: pending at the dump</text>\n",
            p->rows, a->in.nranks,
            !sel->dropped          ? ""
            : sel->around_culprits ? " (the culprits and the ranks of the groups they block)"
                                   : " (--max-ranks, --selected-ranks for others)",
            p->span_ns / 1e6,
            sel->windowed ? "around the hang (--from-ms, --to-ms for another window)"
                          : "from the first arrival");
}

/* Each row's background and label: culprits and slow ranks marked. */
static void svg_rows(const svg_plot *p, FILE *out) {
    const fa_analysis *a = p->v.a;
    double rh = p->rh;
    for (size_t k = 0; k < p->rows; k++) {
        int64_t rank = a->in.ranks[p->sel->ranks[k]].rank;
        const fa_straggler *s = straggler_of(a, rank);
        bool culprit = is_culprit(a, rank);
        double y = SVG_TOP + (double)k * rh;
        const char *bg = culprit ? CULPRIT_BG : s ? SLOW_BG : k % 2 ? ZEBRA_BG : PLAIN_BG;
        fprintf(out, "<rect x=\"0\" y=\"%.1f\" width=\"%d\" height=\"%.1f\" fill=\"%s\"/>\n", y,
                SVG_W, rh, bg);
        if (rh < 8) continue;
        fprintf(out, "<text x=\"8\" y=\"%.1f\" font-size=\"%.0f\"%s>rank %lld", y + rh * 0.75,
                rh >= 12 ? 11.0 : rh,
                culprit ? " fill=\"" CULPRIT_INK "\" font-weight=\"bold\""
                : s     ? " fill=\"" SLOW_INK "\" font-weight=\"bold\""
                        : "",
                (long long)rank);
        if (culprit) fputs(" culprit", out);
        if (s && s->late)
            fprintf(out, " slow +%.0f ms", s->late_ms_typical);
        else if (s)
            fprintf(out, " slow ops +%.0f ms", s->slow_ms_median);
        fputs("</text>\n", out);
    }
}

/* The time axis: a grid line and a label at every round step. */
static void svg_axis(const svg_plot *p, FILE *out) {
    const view *v = &p->v;
    double step = nice_step(p->span_ns / 1e6);
    double first = ceil((double)(v->lo - v->t0) / 1e6 / step) * step;
    for (double t = first; t <= (double)(v->hi - v->t0) / 1e6 + 1e-9; t += step) {
        double x = xof(p, v->t0 + (int64_t)(t * 1e6));
        fprintf(out,
                "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"" GRID_COLOR "\"/>\n",
                x, SVG_TOP - 4, x, SVG_TOP + (double)p->rows * p->rh);
        if (step >= 1000)
            fprintf(out,
                    "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" fill=\"" CAPTION_INK
                    "\">%.4g s</text>\n",
                    x, SVG_TOP - 8, t / 1000);
        else
            fprintf(out,
                    "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" fill=\"" CAPTION_INK
                    "\">%.4g ms</text>\n",
                    x, SVG_TOP - 8, t);
    }
}

/* One rank's bars: completed ones merged per pixel (pix), pending ones drawn on top, each with
 * its operation as a tooltip. Marks the families drawn in used. */
static int svg_rank_bars(const svg_plot *p, size_t k, pixrow *pix, bool *used, FILE *out) {
    const view *v = &p->v;
    const fa_analysis *a = v->a;
    size_t r = p->sel->ranks[k];
    const fa_dump *d = a->in.ranks[r].dump;
    long *pg_group = malloc((d->npgs + 1) * sizeof *pg_group);
    if (!pg_group) return -1;
    for (uint32_t g = 0; g < d->npgs; g++) pg_group[g] = -2;
    double y = SVG_TOP + (double)k * p->rh + 1.5, h = p->rh - 3 > 1 ? p->rh - 3 : 1;
    for (int pass = 0; pass < 2; pass++) { /* completed bars first, pending ones on top */
        for (uint32_t i = 0; i < d->nentries; i++) {
            long gi = entry_group(v, r, d, i, pg_group);
            if (gi >= 0 && !fa_perf_group_selected(a, v->opt, (uint32_t)gi)) continue;
            span s = entry_span(v, d, i);
            if (!s.start || !in_window(v, s) || s.pending != (pass == 1)) continue;
            const fa_opinfo *op =
                fa_store_op(a->in.store, fa_entry_traits(a->in.store, &d->entries[i])->name);
            int fam = family_of(op);
            double x0 = xof(p, s.start < v->lo ? v->lo : s.start),
                   x1 = xof(p, s.end > v->hi ? v->hi : s.end);
            if (s.pending) {
                fprintf(out,
                        "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
                        "fill=\"" PENDING_COLOR "\" stroke=\"" PENDING_EDGE
                        "\" stroke-width=\"0.8\"><title>",
                        x0, y, x1 - x0 < 2 ? 2 : x1 - x0, h);
                xml_text(out, op->text);
                fprintf(out, " pending (record %lld)</title></rect>\n",
                        (long long)fa_entry_record_id(d, &d->entries[i]));
                continue;
            }
            used[fam] = true;
            pix_add(pix, x0 - SVG_LABEL, x1 - SVG_LABEL, fam);
        }
        if (pass == 0) pix_flush(pix, out, SVG_LABEL, y, h);
    }
    free(pg_group);
    return 0;
}

/* The hang point: a dashed line where the hung operation began, and its name. */
static void svg_hang(const svg_plot *p, FILE *out) {
    const view *v = &p->v;
    if (!(v->hang_ns && v->hang_ns >= v->lo && v->hang_ns <= v->hi)) return;
    char label[400] = "";
    hang_label(v->a, v->hang_op, label, sizeof label);
    double x = xof(p, v->hang_ns);
    fprintf(out,
            "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"" CULPRIT_INK "\" "
            "stroke-width=\"1.5\" stroke-dasharray=\"5,3\"/>\n",
            x, SVG_TOP - 40, x, SVG_TOP + (double)p->rows * p->rh);
    fprintf(out,
            "<text x=\"%.1f\" y=\"%d\" fill=\"" CULPRIT_INK "\" text-anchor=\"end\" "
            "font-weight=\"bold\">hang point: ",
            x - 4, SVG_TOP - 30);
    xml_text(out, label);
    fputs("</text>\n", out);
}

/* One legend entry at lx: a swatch and its words. */
static void svg_swatch(FILE *out, double lx, double ly, const char *color, const char *words) {
    fprintf(out,
            "<rect x=\"%.0f\" y=\"%.0f\" width=\"12\" height=\"10\" fill=\"%s\"/><text "
            "x=\"%.0f\" y=\"%.0f\">%s</text>\n",
            lx, ly - 9, color, lx + 16, ly, words);
}

/* The legend: the families drawn, then pending, culprit and slow. */
static void svg_legend(const svg_plot *p, const bool *used, FILE *out) {
    double lx = 10, ly = SVG_TOP + (double)p->rows * p->rh + 24;
    for (int f = 0; f < NFAMILIES; f++) {
        if (!used[f]) continue;
        svg_swatch(out, lx, ly, FAMILIES[f].color, FAMILIES[f].name);
        lx += 22 + 7.0 * (double)strlen(FAMILIES[f].name);
    }
    svg_swatch(out, lx, ly, PENDING_COLOR, "pending");
    svg_swatch(out, lx + 80, ly, CULPRIT_BG, "culprit rank");
    svg_swatch(out, lx + 180, ly, SLOW_BG, "slow rank");
}

int fa_timeline_write_svg(const fa_analysis *a, const fa_report_options *opt,
                          const fa_timeline_sel *sel, FILE *out) {
    svg_plot p = { .sel = sel, .rows = sel->n };
    if (view_init(&p.v, a, opt, sel) != 0) return -1;
    p.rh = p.rows <= 16 ? 18 : p.rows <= 40 ? 12 : p.rows <= 100 ? 8 : 4;
    p.plot_w = SVG_W - SVG_LABEL - SVG_RIGHT;
    p.height = SVG_TOP + (double)p.rows * p.rh + 46;
    p.span_ns = (double)(p.v.hi - p.v.lo) > 0 ? (double)(p.v.hi - p.v.lo) : 1;
    bool used[NFAMILIES] = { false };
    svg_head(&p, out);
    svg_rows(&p, out);
    svg_axis(&p, out);
    pixrow pix = { calloc((size_t)p.plot_w * NFAMILIES + NFAMILIES, sizeof(float)),
                   (size_t)p.plot_w };
    int rc = pix.cover ? 0 : -1;
    for (size_t k = 0; k < p.rows && rc == 0; k++) rc = svg_rank_bars(&p, k, &pix, used, out);
    svg_hang(&p, out);
    svg_legend(&p, used, out);
    fputs("</svg>\n", out);
    free(pix.cover);
    free(p.v.input_shown);
    return rc || ferror(out) ? -1 : 0;
}
