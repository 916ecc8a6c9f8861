/* timeline_trace.c — the job as Chrome Trace Event JSON (Perfetto, chrome://tracing; see
 * timeline.h for what it shows): a process per rank, a thread per group, and where two entries of
 * one group overlap on a rank (async collectives), extra lanes so that no slice hides another;
 * a slice per entry, flow arrows joining the calls of one collective, instants for the hang
 * point and the culprits. Written through json_writer.h, so every string from a dump is escaped.
 */
#include "report/timeline.h"
#include "report/timeline_view.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "report/json_writer.h"
#include "report/perf_report.h"
#include "report/headline.h"
#include "safe_text.h"

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
        span s = tl_entry_span(v, d, i);
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
    jw_fixed3(w, "ts", tl_us(v, s.start));
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
    const fa_straggler *s = tl_straggler_of(a, rank);
    trace_meta_open(w, rank, NULL, "process_name");
    char slow[128] = "";
    if (s && s->late)
        snprintf(slow, sizeof slow, " (slow: %.1f ms late, median)", s->late_ms_typical);
    else if (s)
        snprintf(slow, sizeof slow, " (slow: operations %.1f ms longer, median)",
                 s->slow_ms_median);
    jw_strf(w, "name", "rank %lld%s%s", (long long)rank, tl_is_culprit(a, rank) ? " (culprit)" : "",
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
            span s = tl_entry_span(v, d, i);
            if (!s.start || !tl_in_window(v, s)) continue;
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
            jw_fixed3(w, "ts", tl_us(v, at[k].ns));
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
        gi[i] = tl_entry_group(v, r, d, i, pg_group);
        span s = tl_entry_span(v, d, i);
        if ((gi[i] >= 0 && !fa_perf_group_selected(v->a, v->opt, (uint32_t)gi[i])) || !s.start ||
            !tl_in_window(v, s))
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
        trace_entry(v, w, rank, lane_tid(v, gi[i], l->of[i]), d, i, tl_entry_span(v, d, i));
        if (gi[i] >= 0 && !seen[gi[i]]) seen[gi[i]] = true, used[nused++] = gi[i];
    }
    trace_names(v, w, r, used, nused, l);
    if (tl_is_culprit(a, rank) && v->hang_ns) {
        jw_newline(w);
        jw_open(w, '{');
        jw_str(w, "ph", "i");
        jw_str(w, "s", "p");
        jw_i64(w, "pid", rank);
        jw_i64(w, "tid", 0);
        jw_fixed3(w, "ts", tl_us(v, v->hang_ns));
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
    char *title = fa_headline(a);
    jw_open(w, '{');
    jw_str(w, "displayTimeUnit", "ms");
    jw_key(w, "otherData");
    jw_open(w, '{');
    jw_str(w, "generator", "frtrace");
    jw_text(w, "dir", a->in.dir);
    jw_text(w, "verdict", title);
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
    jw_str_part(w, title);
    jw_str_end(w);
    trace_meta_close(w);
    free(title);
}

int fa_timeline_write_trace(const fa_analysis *a, const fa_report_options *opt,
                            const fa_timeline_sel *sel, FILE *out) {
    view v;
    if (tl_view_init(&v, a, opt, sel) != 0) return -1;
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
        tl_hang_label(a, v.hang_op, label, sizeof label);
        jw_newline(&w);
        jw_open(&w, '{');
        jw_str(&w, "ph", "i");
        jw_str(&w, "s", "g");
        jw_i64(&w, "pid", -1);
        jw_i64(&w, "tid", 0);
        jw_fixed3(&w, "ts", tl_us(&v, v.hang_ns));
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
