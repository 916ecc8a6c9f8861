/* help.c — `frtrace --help`, `frtrace help [COMMAND]` and `frtrace COMMAND --help`.
 *
 * One text per command, each listing only the options that command reads, so that
 * `frtrace stats --help` answers the question the user asked; the general text lists the
 * commands and the analysis's options. The command names live here too (fa_cli_command_named),
 * so that the parser, the help and the shell completion (tests check it against
 * completion/) agree on one list.
 */
#include "help.h"

#include <string.h>

static const char general_text[] =
    "usage: frtrace [OPTIONS] [DIR]             which rank broke the job (the report)\n"
    "       frtrace stats [OPTIONS] [DIR]       per group x operation x size statistics\n"
    "       frtrace timeline [OPTIONS] [DIR]    the job as a Perfetto trace or an SVG picture\n"
    "       frtrace show [--pretty] FILE...     decode dumps to JSON\n"
    "       frtrace stacks [OPTIONS] [DIR]      every rank's threads as folded stacks\n"
    "       frtrace help [COMMAND]              this text, or a command's own\n"
    "\n"
    "Reads every rank's Flight Recorder dump under DIR and says which rank broke the job.\n"
    "Without DIR: $FRTRACE_DUMP_DIR, then where PyTorch writes ($TORCH_FR_DUMP_TEMP_FILE,\n"
    "$TORCH_NCCL_DEBUG_INFO_TEMP_FILE, ~/.cache/torch, /tmp). Options may stand before or\n"
    "after the command (frtrace -v stats DIR).\n"
    "\n"
    "  -d, --dir DIR              dump directory (same as the positional DIR)\n"
    "  -p, --prefix P             file-name prefix before the rank (default: inferred)\n"
    "  -o, --output FILE          write the analysis database as JSON ('-' = stdout, alone);\n"
    "                             torchfrtrace's -o writes a pickle, frtrace's JSON\n"
    "  -f, --format FMT           report format: text (default), markdown (GitHub, GitLab),\n"
    "                             jira (Jira, Confluence wiki), json\n"
    "  -j, --just-print-entries   side-by-side table of every rank's entries; no matching\n"
    "  -v, --verbose              more detail, plus groups and collectives tables\n"
    "      --selected-ranks R...  only these ranks in -j and the report (9 14, 9,14, 8-15,\n"
    "                             or 8-56/8: every 8th rank from 8 to 56)\n"
    "      --pg-filters S...      only these groups (name or desc) in -j and the report\n"
    "      --                     ends the options: the next word is DIR\n"
    "      --mismatch-cap N       list at most N findings per group (default 10)\n"
    "      --width N              wrap the text report at N columns (default: the terminal's\n"
    "                             width on a terminal, else 100; 0: no limit)\n"
    "      --color WHEN           colour the verdict: auto (on a terminal, unless NO_COLOR\n"
    "                             is set or TERM=dumb; the default), always, never\n"
    "      --allow-incomplete-ranks  accepted for compatibility (always on)\n"
    "      --print-stack-trace    show stack frames, merged across ranks\n"
    "      --all-collectives      list every collective in the database, not only those that\n"
    "                             did not pass (the rest are counted per group)\n"
    "      --all-calls            list every rank's call (and every collective) in the database\n"
    "      --hosts FILE           'RANK HOST' lines (a launcher's log, srun -l hostname): the\n"
    "                             report names each culprit's host when its dump does not\n"
    "      --transform-ft --group-world-size N\n"
    "                             torchft: each dump's default_pg lists replica-local ranks;\n"
    "                             make them global (r + rank / N * N), as torchfrtrace does\n"
    "      --straggler-floor-ms X lateness under X ms counts as none; a slow rank is X ms or\n"
    "                             more late on average over its collectives (default 5)\n"
    "  -J, --jobs N               threads (default: number of cores); results do not depend on it\n"
    "  -h, --help                 this text (frtrace COMMAND --help: the command's)\n"
    "  -V, --version              print the version\n"
    "\n"
    "Short options combine: -vj, -vo db.json. A value may start with '-' (-d -x, -o -db.json).\n"
    "Text from the dumps is shown, never obeyed: controls, bidi and bad bytes as \\x1b, \\u202e,\n"
    "\\xff; markdown and jira put it in code spans (frtrace(1): TEXT FROM THE INPUT).\n"
    "On a terminal, reading dumps that take more than two seconds shows a progress line on\n"
    "stderr.\n"
    "Exit status: 0 ok, 1 hang/mismatch/inconclusive, 2 usage error or no readable dump.\n";

/* The options every analysing command shares, for the commands' own texts. */
#define SHARED_INPUT_OPTIONS                                                                       \
    "  -d, --dir DIR              dump directory (same as the positional DIR)\n"                   \
    "  -p, --prefix P             file-name prefix before the rank (default: inferred)\n"          \
    "      --selected-ranks R...  only these ranks (9 14, 9,14, 8-15 or 8-56/8)\n"                 \
    "      --pg-filters S...      only these groups (name or desc)\n"                              \
    "      --transform-ft --group-world-size N   torchft's replica-local ranks made global\n"      \
    "  -J, --jobs N               threads (default: number of cores)\n"                            \
    "  -h, --help                 this text\n"

static const char stats_text[] =
    "usage: frtrace stats [OPTIONS] [DIR]\n"
    "\n"
    "Per group x operation x size x dtype: how many, bytes, arrival skew (p50/p99), duration\n"
    "(p50/p99, when the dumps have it), algorithm and bus bandwidth (nccl-tests' factors).\n"
    "Columns that no row has a value for are left out of the text, markdown and jira tables.\n"
    "\n"
    "  -f, --format FMT           text (default), markdown, jira (Jira/Confluence wiki) or json\n"
    "  -o, --output FILE          write it to FILE instead of stdout\n"
    "      --width N              fit the text table in N columns (default: the terminal's\n"
    "                             width on a terminal, else 100; 0: no limit)\n"
    "      --straggler-floor-ms X lateness under X ms counts as none (default "
    "5)\n" SHARED_INPUT_OPTIONS "\n"
    "Exit status: 0 written, 2 usage error, no readable dump or a failed write.\n";

static const char timeline_text[] =
    "usage: frtrace timeline [OPTIONS] [DIR] [-f json|svg] [-o FILE]\n"
    "\n"
    "The job as a timeline: Chrome Trace Event JSON (-f json, the default: open it in\n"
    "https://ui.perfetto.dev or chrome://tracing) or a self-contained SVG picture (-f svg: a\n"
    "browser shows it). One track per rank; arrows join each collective's arrivals in time\n"
    "order; the hang is marked. On a large job the SVG draws the culprits, the peers of their\n"
    "groups and a window around the hang.\n"
    "\n"
    "  -f, --format FMT           json (default) or svg\n"
    "  -o, --output FILE          write it to FILE (stderr says how to open it) instead of\n"
    "                             stdout\n"
    "      --from-ms X, --to-ms Y only that window (ms after the first arrival)\n"
    "      --max-ranks N          draw at most N ranks (default 64; 0: all)\n" SHARED_INPUT_OPTIONS
    "\n"
    "Exit status: 0 written, 2 usage error, no readable dump or a failed write.\n";

static const char show_text[] =
    "usage: frtrace show [--pretty] FILE...\n"
    "\n"
    "Decode Flight Recorder dumps (pickle, protocols 0-5, or JSON; detected by content)\n"
    "and print each as one JSON document, as Python's json.dumps(pickle.load(f)) would.\n"
    "Pickle opcodes that would run code are refused, never executed.\n"
    "\n"
    "  --pretty    indent by two spaces (json.dumps(value, indent=2))\n"
    "  -h, --help  show this help\n"
    "\n"
    "Exit status: 0 every file shown, 2 some file could not be read (see stderr).\n";

static const char stacks_text[] =
    "usage: frtrace stacks [OPTIONS] [DIR] [--by-rank]\n"
    "\n"
    "Every rank's threads when it dumped (the recorder's dumps carry them), as folded stacks,\n"
    "'frame;frame;frame COUNT' per line, for flame-graph tools (flamegraph.pl, speedscope).\n"
    "\n"
    "      --by-rank              a 'rank N' frame at the root of each stack\n" SHARED_INPUT_OPTIONS
    "\n"
    "Exit status: 0 stacks printed, 1 no dump has stacks, 2 usage error or no readable dump.\n";

static const char help_text[] =
    "usage: frtrace help [COMMAND]\n"
    "\n"
    "Prints frtrace's help, or COMMAND's own (stats, timeline, show, stacks).\n";

static const struct {
    const char *name;
    fa_command command;
    const char *text;
} commands[] = {
    { "stats", FA_CMD_STATS, stats_text }, { "timeline", FA_CMD_TIMELINE, timeline_text },
    { "show", FA_CMD_SHOW, show_text },    { "stacks", FA_CMD_STACKS, stacks_text },
    { "help", FA_CMD_HELP, help_text },    { NULL, FA_CMD_ANALYZE, general_text },
};
#define NCOMMANDS (sizeof commands / sizeof commands[0])

bool fa_cli_command_named(const char *word, fa_command *command) {
    for (size_t i = 0; i + 1 < NCOMMANDS; i++)
        if (strcmp(commands[i].name, word) == 0) {
            *command = commands[i].command;
            return true;
        }
    return false;
}

const char *fa_cli_command_name(fa_command command) {
    for (size_t i = 0; i < NCOMMANDS; i++)
        if (commands[i].command == command) return commands[i].name ? commands[i].name : "frtrace";
    return "frtrace";
}

void fa_cli_help(FILE *out, fa_command command) {
    for (size_t i = 0; i < NCOMMANDS; i++)
        if (commands[i].command == command) {
            fputs(commands[i].text, out);
            return;
        }
    fputs(general_text, out);
}
