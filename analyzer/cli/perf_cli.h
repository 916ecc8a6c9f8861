/* perf_cli.h — what `frtrace stats` and `frtrace timeline` add to cli.c's options and run.
 *
 * cli.c parses the options every form shares (DIR, -p, -f, -o, --selected-ranks, --pg-filters,
 * -J, ...) and hands the words it does not know to fa_perf_cli_option first; after the analysis
 * it hands the stats and timeline commands to fa_perf_cli_run.
 */
#ifndef FRTRACE_PERF_CLI_H
#define FRTRACE_PERF_CLI_H

#include <stdbool.h>

#include "analysis.h"
#include "report.h"

/* What the command line asked for: the report (no command word), or a command's. */
typedef enum fa_command {
    FA_CMD_ANALYZE,
    FA_CMD_STATS,
    FA_CMD_TIMELINE,
    FA_CMD_STACKS,
    FA_CMD_SHOW, /* handed to show.c with the words after it */
    FA_CMD_HELP, /* `frtrace help [COMMAND]` */
} fa_command;

#define FA_TIMELINE_MAX_RANKS 64 /* ranks drawn by default; --max-ranks N, 0 for all */

typedef struct fa_perf_cli {
    double floor_ms; /* --straggler-floor-ms */
    bool has_from, has_to;
    double from_ms, to_ms; /* --from-ms / --to-ms: the window, from the first arrival */
    long max_ranks;        /* --max-ranks; -1 the default */
} fa_perf_cli;

/* argv[*i] when it is one of the perf options (--straggler-floor-ms X, --from-ms X, --to-ms X,
 * --max-ranks N; "--opt=X" too): 1 and *i past its value; 0 when it is not; -1 (message printed)
 * when its value is wrong. */
int fa_perf_cli_option(int argc, char **argv, int *i, fa_perf_cli *pc);
/* The -f formats a command takes ("text, markdown or json"), and whether `format` is one. */
bool fa_perf_cli_format_ok(fa_command cmd, const char *format);
/* stats or timeline on a finished analysis; the exit status (0 written, 2 failed). */
int fa_perf_cli_run(const fa_analysis *a, const fa_report_options *opt, fa_command cmd,
                    const char *format, const char *output, const fa_perf_cli *pc);

#endif
