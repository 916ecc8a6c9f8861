/* timeline_svg.c — the job as a self-contained SVG (see timeline.h for what it shows): ranks
 * down, time across, a bar per entry coloured by operation family. Bars closer than a pixel are
 * merged per row (pixrow), so the file's size depends on the picture's width, not on the entry
 * count. Every string from a dump is escaped for XML (safe_text.h).
 */
#include "report/timeline.h"
#include "report/timeline_view.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/perf_report.h"
#include "report/headline.h"
#include "safe_text.h"

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
    char *title = fa_headline(a);
    xml_text(out, title ? title : fa_status_name(a->verdict.status));
    free(title);
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
        const fa_straggler *s = tl_straggler_of(a, rank);
        bool culprit = tl_is_culprit(a, rank);
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
            long gi = tl_entry_group(v, r, d, i, pg_group);
            if (gi >= 0 && !fa_perf_group_selected(a, v->opt, (uint32_t)gi)) continue;
            span s = tl_entry_span(v, d, i);
            if (!s.start || !tl_in_window(v, s) || s.pending != (pass == 1)) continue;
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
    tl_hang_label(v->a, v->hang_op, label, sizeof label);
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
    if (tl_view_init(&p.v, a, opt, sel) != 0) return -1;
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
