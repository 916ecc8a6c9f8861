/* perf_cli.c — the options and the output of `frtrace stats` and `frtrace timeline` (perf_cli.h).
 */
#include "perf_cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output_file.h"
#include "perf_report.h"
#include "safe_text.h"
#include "timeline.h"

/* "--name" or "--name=VALUE" (with '_' for '-', as cli.c reads torchfrtrace's spellings). */
static const char *long_option(const char *arg, const char *name, bool *matched) {
    *matched = false;
    if (strncmp(arg, "--", 2) != 0) return NULL;
    const char *a = arg + 2, *b = name;
    for (; *a && *a != '=' && *b; a++, b++)
        if (!(*a == *b || (*a == '_' && *b == '-'))) return NULL;
    if (*b || (*a && *a != '=')) return NULL;
    *matched = true;
    return *a == '=' ? a + 1 : NULL;
}

static bool number(const char *s, double *out) {
    char *end;
    if (!s || !*s) return false;
    *out = strtod(s, &end);
    return *end == '\0' && *out == *out;
}

int fa_perf_cli_option(int argc, char **argv, int *i, fa_perf_cli *pc) {
    static const char *const names[] = { "straggler-floor-ms", "from-ms", "to-ms", "max-ranks" };
    for (int k = 0; k < 4; k++) {
        bool matched;
        const char *value = long_option(argv[*i], names[k], &matched);
        if (!matched) continue;
        if (!value && *i + 1 < argc) value = argv[++*i];
        double x;
        if (!number(value, &x) || (k != 1 && k != 2 && x < 0)) {
            fprintf(stderr, "frtrace: option --%s needs a%s number\nTry 'frtrace --help'.\n",
                    names[k], k == 1 || k == 2 ? "" : " non-negative");
            return -1;
        }
        if (k == 0)
            pc->floor_ms = x;
        else if (k == 1)
            pc->from_ms = x, pc->has_from = true;
        else if (k == 2)
            pc->to_ms = x, pc->has_to = true;
        else
            pc->max_ranks = (long)x;
        return 1;
    }
    return 0;
}

bool fa_perf_cli_format_ok(fa_command cmd, const char *f) {
    if (cmd == FA_CMD_STATS)
        return !strcmp(f, "text") || !strcmp(f, "markdown") || !strcmp(f, "jira") ||
               !strcmp(f, "json");
    return !strcmp(f, "json") || !strcmp(f, "svg");
}

static int timeline(const fa_analysis *a, const fa_report_options *opt, const char *format,
                    FILE *out, const fa_perf_cli *pc) {
    fa_timeline_sel sel = { 0 };
    if (fa_timeline_pick(a, opt, pc->max_ranks < 0 ? FA_TIMELINE_MAX_RANKS : pc->max_ranks, &sel) !=
        0)
        return -1;
    sel.has_from = pc->has_from, sel.from_ms = pc->from_ms;
    sel.has_to = pc->has_to, sel.to_ms = pc->to_ms;
    bool svg = strcmp(format, "svg") == 0;
    if (sel.dropped)
        fprintf(stderr,
                "frtrace: timeline: %zu ranks; drawing %zu of them (%s); choose with "
                "--selected-ranks R..., or --max-ranks N (0: all)\n",
                a->in.nranks, sel.n,
                sel.around_culprits ? "the culprits, the slow ranks, the ranks of the groups the "
                                      "culprits block"
                                    : "the slow ranks, then the lowest ranks");
    if (svg && fa_timeline_window_around_hang(a, &sel)) /* a picture cannot zoom: show the hang */
        fprintf(stderr,
                "frtrace: timeline: drawing %.1f to %.1f ms, around the hang; --from-ms X "
                "--to-ms Y draw another window\n",
                sel.from_ms, sel.to_ms);
    int rc =
        svg ? fa_timeline_write_svg(a, opt, &sel, out) : fa_timeline_write_trace(a, opt, &sel, out);
    fa_timeline_sel_free(&sel);
    return rc;
}

/* What fa_output_write runs: the stats or the timeline, into out. */
typedef struct perf_job {
    const fa_analysis *a;
    const fa_report_options *opt;
    fa_command cmd;
    const char *format;
    const fa_perf_cli *pc;
} perf_job;

static int perf_to(void *ctx, FILE *out) {
    const perf_job *job = ctx;
    return job->cmd == FA_CMD_STATS ? fa_perf_print_stats(job->a, job->opt, job->format, out)
                                    : timeline(job->a, job->opt, job->format, out, job->pc);
}

int fa_perf_cli_run(const fa_analysis *a, const fa_report_options *opt, fa_command cmd,
                    const char *format, const char *output, const fa_perf_cli *pc) {
    perf_job job = { a, opt, cmd, format, pc };
    if (fa_output_write(output ? output : "-", perf_to, &job) != 0) return 2;
    if (cmd == FA_CMD_TIMELINE && output && strcmp(output, "-") != 0) /* what to do with it */
        fr_text_printf(stderr, "frtrace: wrote %s: %s\n", output,
                       strcmp(format, "svg") == 0
                           ? "open it in a web browser"
                           : "open it at https://ui.perfetto.dev (Open trace file) or in "
                             "chrome://tracing");
    return 0;
}
