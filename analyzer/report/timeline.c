/* timeline.c — what the job's timeline draws (timeline.h): which ranks (all, the selected ones,
 * or the culprits' story under a cap), which window (the user's, or one around the hang), and
 * the view both pictures share (timeline_view.h: time base, entry spans, hang point). The
 * pictures themselves: timeline_trace.c (Chrome Trace Event JSON), timeline_svg.c (SVG).
 */
#include "report/timeline.h"
#include "report/timeline_view.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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

/* ------------------------------------------------------------ shared (timeline_view.h) -- */

static bool is_pending(const fa_traits *t) { return t->state != FR_STATE_COMPLETED; }

span tl_entry_span(const view *v, const fa_dump *d, uint32_t i) {
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
long tl_entry_group(const view *v, size_t r, const fa_dump *d, uint32_t i, long *pg_group) {
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

int tl_view_init(view *v, const fa_analysis *a, const fa_report_options *opt,
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
void tl_hang_label(const fa_analysis *a, long op, char *buf, size_t len) {
    char g[256], o[140];
    fa_group_label(&a->groups.v[a->match.ops[op].group], g, sizeof g);
    fa_op_label(&a->match, (size_t)op, o, sizeof o);
    snprintf(buf, len, "%s %s", g, o);
}

const fa_straggler *tl_straggler_of(const fa_analysis *a, int64_t rank) {
    for (size_t i = 0; i < a->perf.nstragglers; i++)
        if (a->perf.stragglers[i].rank == rank) return &a->perf.stragglers[i];
    return NULL;
}

bool tl_is_culprit(const fa_analysis *a, int64_t rank) {
    return fa_ranks_contains(&a->verdict.culprits, rank);
}

double tl_us(const view *v, int64_t ns) { return (double)(ns - v->t0) / 1000.0; }

bool tl_in_window(const view *v, span s) { return s.end >= v->lo && s.start <= v->hi; }
