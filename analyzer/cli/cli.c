/* cli.c — `frtrace [OPTIONS] [DIR]`: options -> an analysis -> a report -> an exit status.
 *
 * Accepts man/frtrace.1's spellings and torchfrtrace's (--just_print_entries, --mismatch_cap,
 * --print_stack_trace, --allow-incomplete-ranks, --selected-ranks R..., --pg-filters S...,
 * --transform-ft with --group-world-size N), and short options combined as getopt splits them
 * (-vj, -vo FILE). A command word (stats, timeline, show, stacks, help) may come after options
 * or DIR as well as first (frtrace -v stats DIR); -h and the word help print the help of the
 * command named anywhere on the line (help.c). --selected-ranks takes the following rank lists
 * ("9 14", "9,14", "8-15", "8-56/8"); --pg-filters the following words up to an option, "--",
 * a command word or an existing directory (when DIR is not given yet); "--" ends the options.
 * Flags that contradict each other are a usage error naming both; a filter that matches nothing
 * is a warning. Without DIR, FRTRACE_DUMP_DIR and PyTorch's default dump places are searched,
 * and stderr says which was used. -o FILE whose folder cannot take it is a usage error before
 * anything is read; it writes through output_file.h (an exclusive temporary file renamed over
 * FILE); a failed write, stdout's too, is said on stderr and exits 2. While the analysis runs,
 * a terminal gets a progress line (progress_line.h), erased before anything else is printed.
 * Exit status: 0 ok; 1 hang, mismatch or inconclusive; 2 usage error or nothing readable.
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis.h"
#include "grow.h"
#include "util/timing.h"
#include "util/xmalloc.h"
#include "cli/commands.h"
#include "report/report.h"
#include "cli/perf_cli.h"
#include "report/folded.h"
#include "cli/help.h"
#include "cli/progress_line.h"
#include "cli/output_file.h"
#include "safe_text.h"

typedef struct request {
    fa_options analysis;
    fa_report_options report;
    const char *format;
    char format_flag[96]; /* the words that set it ("-f markdown"), for conflict messages */
    const char *output;
    bool just_print_entries;
    bool width_given;
    bool transform_ft;
    long long group_world_size;
    int64_t *ranks;
    size_t ranks_cap;
    const char **filters;
    char **expanded;        /* argv with combined short flags split ("-vj" -> "-v" "-j") */
    fa_command command;     /* frtrace, frtrace stats, timeline, stacks (perf_cli.h) */
    bool command_named;     /* a command word was given (before or after the options) */
    bool help;              /* -h, --help or the word help: print the command's help */
    bool help_word;         /* the word help: the next word names a command */
    bool pretty;            /* --pretty, for show */
    const char *color;      /* --color auto|always|never */
    int show_at;            /* the word "show" after options: show.c reads what follows */
    bool by_rank;           /* frtrace stacks --by-rank */
    fa_progress progress;   /* how far the analysis has come */
    fa_progress_line *line; /* its line on a terminal, while the analysis runs */
    fa_perf_cli perf;       /* their own options */
} request;

typedef int (*report_writer)(const fa_analysis *a, const fa_report_options *opt, FILE *out);

/* The report formats of -f: the one list that parsing, help and output use. */
static const struct {
    const char *name;
    report_writer write;
} formats[] = {
    { "text", fa_report_text },
    { "markdown", fa_report_markdown },
    { "jira", fa_report_jira },
    { "json", fa_report_db },
};
#define NFORMATS (sizeof formats / sizeof formats[0])

static report_writer format_writer(const char *name) {
    for (size_t i = 0; i < NFORMATS; i++)
        if (strcmp(formats[i].name, name) == 0) return formats[i].write;
    return NULL;
}

/* Messages quote the user's words and the input's names: shown, never obeyed (safe_text.h). */
static int usage_error(const char *fmt, const char *arg) {
    char *text = xasprintf(fmt, arg);
    fputs("frtrace: ", stderr);
    fr_text_fputs(stderr, text);
    fputs("\nTry 'frtrace --help'.\n", stderr);
    free(text);
    return 2;
}

static int conflict(const char *a, const char *b, const char *why) {
    fr_text_printf(stderr, "frtrace: %s and %s cannot go together: %s\n", a, b, why);
    fputs("Try 'frtrace --help'.\n", stderr);
    return 2;
}

/* The option name without dashes, with '_' read as '-': both tools' spellings compare equal. */
static bool is_option(const char *arg, const char *short_name, const char *long_name) {
    if (short_name && strcmp(arg, short_name) == 0) return true;
    if (strncmp(arg, "--", 2) != 0) return false;
    const char *a = arg + 2, *b = long_name;
    for (; *a && *a != '=' && *b; a++, b++)
        if (!(*a == *b || (*a == '_' && *b == '-'))) return false;
    return *b == '\0' && (*a == '\0' || *a == '=');
}

/* The value of an option: after '=' in the same word, or the next word. */
static const char *option_value(int argc, char **argv, int *i) {
    const char *eq = strncmp(argv[*i], "--", 2) == 0 ? strchr(argv[*i], '=') : NULL;
    if (eq) return eq + 1;
    if (*i + 1 >= argc) return NULL;
    return argv[++*i];
}

static bool parse_int(const char *s, long long *out) {
    char *end;
    if (!s || !*s) return false;
    *out = strtoll(s, &end, 10);
    return *end == '\0';
}

static bool is_directory(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* ------------------------------------------------------------ combined short flags -- */

static const char flag_letters[] = "hVjv";   /* short options without a value */
static const char value_letters[] = "dpofJ"; /* short options with one */

/* Long options whose value may be the next word (cli.c's and perf_cli.c's). */
static const char *const long_with_value[] = {
    "dir",
    "prefix",
    "output",
    "format",
    "jobs",
    "mismatch-cap",
    "width",
    "group-world-size",
    "straggler-floor-ms",
    "from-ms",
    "to-ms",
    "max-ranks",
    "color",
    "colour",
    "hosts",
};

/* Whether the word after `a` is an option's value, taken as it is even when it starts with '-'
 * (-d "-dumps dir", -o -db.json, --from-ms -5). */
static bool value_follows(const char *a) {
    if (a[0] != '-' || a[1] == '\0') return false;
    if (a[1] != '-') { /* a short option or a cluster: its last letter takes the next word */
        for (const char *c = a + 1; *c; c++)
            if (strchr(value_letters, *c)) return c[1] == '\0';
        return false;
    }
    if (strchr(a, '=')) return false;
    for (size_t k = 0; k < sizeof long_with_value / sizeof long_with_value[0]; k++)
        if (is_option(a, NULL, long_with_value[k])) return true;
    return false;
}

/* "-vj" -> "-v" "-j"; "-vo db.json" -> "-v" "-o" "db.json"; "-ofile" -> "-o" "file", as getopt
 * splits them. A word that is not such a cluster is kept whole, and so is an option's value and
 * every word after "--". 0, or 2 after a usage error (an unknown letter). */
static int expand_short_flags(int argc, char **argv, char ***out, int *outc) {
    char **v = xcalloc((size_t)argc * 3 + 1, sizeof *v);
    int n = 0;
    bool options_over = false, is_value = false;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (i == 0 || options_over || is_value || a[0] != '-' || a[1] == '-' || a[1] == '\0' ||
            a[2] == '\0') {
            options_over |= !is_value && strcmp(a, "--") == 0;
            is_value = i > 0 && !options_over && !is_value && value_follows(a);
            v[n++] = xstrdup(a);
            continue;
        }
        is_value = value_follows(a);
        for (const char *c = a + 1; *c; c++) {
            char flag[3] = { '-', *c, '\0' };
            if (strchr(value_letters, *c)) {
                v[n++] = xstrdup(flag);
                if (c[1]) v[n++] = xstrdup(c + 1);
                break;
            }
            if (!strchr(flag_letters, *c)) {
                for (int k = 0; k < n; k++) free(v[k]);
                free(v);
                char what[64];
                snprintf(what, sizeof what, "-%c' in '%.40s", *c, a);
                return usage_error("unknown option '%s'", what);
            }
            v[n++] = xstrdup(flag);
        }
    }
    *out = v;
    *outc = n;
    return 0;
}

/* ------------------------------------------------------------ rank lists ----------- */

static int add_rank(request *rq, long long r) {
    if (fr_grow((void **)&rq->ranks, &rq->ranks_cap, rq->report.nselected_ranks + 1,
                sizeof *rq->ranks, 16))
        return -1;
    rq->ranks[rq->report.nselected_ranks++] = r;
    return 0;
}

/* Ranks as a word: "9", "9,14", "8-15", "0,4-6", "8-56/8" (every 8th). False (nothing added) when
 * the word is not one. A range is bounded so that "0-99999999999" cannot ask for memory it does not
 * need. */
static bool parse_rank_list(request *rq, const char *word) {
    size_t before = rq->report.nselected_ranks;
    const char *p = word;
    while (*p) {
        char *end;
        if (*p < '0' || *p > '9') goto not_ranks;
        long long lo = strtoll(p, &end, 10), hi = lo, step = 1;
        if (*end == '-') {
            p = end + 1;
            if (*p < '0' || *p > '9') goto not_ranks;
            hi = strtoll(p, &end, 10);
            if (*end == '/') { /* 1540-2044/8, as the reports write every 8th rank */
                p = end + 1;
                if (*p < '0' || *p > '9') goto not_ranks;
                step = strtoll(p, &end, 10);
            }
        }
        if (lo < 0 || hi < lo || hi > INT32_MAX || hi - lo > 1 << 20 || step < 1 ||
            (*end && *end != ','))
            goto not_ranks;
        for (long long r = lo; r <= hi; r += step)
            if (add_rank(rq, r) != 0) goto not_ranks;
        p = *end ? end + 1 : end;
        if (*end == ',' && !*p) goto not_ranks;
    }
    return rq->report.nselected_ranks > before;
not_ranks:
    rq->report.nselected_ranks = before;
    return false;
}

/* ------------------------------------------------------------ options -------------- */

/* A command word (stats, timeline, show) where no command is chosen yet, or "help" once: before
 * or after the options, and after DIR (frtrace DIR stats); a directory named like a command is
 * then ./stats or -d stats. */
static bool is_command_word(const request *rq, const char *word) {
    fa_command named;
    if (!fa_cli_command_named(word, &named)) return false;
    return named == FA_CMD_HELP ? !rq->help_word || !rq->command_named : !rq->command_named;
}

/* What reading one word decided: go on with the next word, stop reading (the words that follow
 * are show's own), stop with status 0 (--version, which printed already) or with status 2 (a
 * usage error, reported already); or, for a reader of one kind of word, that the word is not of
 * its kind. */
typedef enum { WORD_READ, WORD_LAST, WORD_EXIT_OK, WORD_USAGE_ERROR, WORD_NOT_MINE } word_result;

static word_result args_error(const char *fmt, const char *arg) {
    usage_error(fmt, arg);
    return WORD_USAGE_ERROR;
}

/* Options that take no value; false when `arg` is none of them. */
static bool read_flag(const char *arg, request *rq) {
    if (is_option(arg, "-h", "help"))
        rq->help = true; /* printed once every word is read: frtrace --help stats */
    else if (is_option(arg, NULL, "pretty"))
        rq->pretty = true;
    else if (is_option(arg, NULL, "by-rank")) /* before or after the word stacks */
        rq->by_rank = true;
    else if (is_option(arg, NULL, "transform-ft"))
        rq->transform_ft = true;
    else if (is_option(arg, "-j", "just-print-entries"))
        rq->just_print_entries = true;
    else if (is_option(arg, "-v", "verbose"))
        rq->report.verbose = true;
    else if (is_option(arg, NULL, "print-stack-trace"))
        rq->report.stack_traces = true;
    else if (is_option(arg, NULL, "all-calls"))
        rq->report.all_calls = true;
    else if (is_option(arg, NULL, "all-collectives"))
        rq->report.all_collectives = true;
    else if (!is_option(arg, NULL, "allow-incomplete-ranks"))
        return false; /* --allow-incomplete-ranks is always on: a missing dump is a finding */
    return true;
}

/* -d, -p, -o, -f: their value is any word. */
static word_result read_word_option(int argc, char **argv, int *i, request *rq) {
    const char *arg = argv[*i], *value;
    if (!(is_option(arg, "-d", "dir") || is_option(arg, "-p", "prefix") ||
          is_option(arg, "-o", "output") || is_option(arg, "-f", "format")))
        return WORD_NOT_MINE;
    if (!(value = option_value(argc, argv, i))) return args_error("option %s needs a value", arg);
    if (is_option(arg, "-d", "dir"))
        rq->analysis.dir = value;
    else if (is_option(arg, "-p", "prefix"))
        rq->analysis.prefix = value;
    else if (is_option(arg, "-o", "output"))
        rq->output = value;
    else {
        rq->format = value;
        snprintf(rq->format_flag, sizeof rq->format_flag, "%.40s%s%.40s", arg,
                 strchr(arg, '=') ? "" : " ", strchr(arg, '=') ? "" : value);
    }
    return WORD_READ;
}

/* Options whose value is checked: a colour choice, numbers, the hosts file. */
static word_result read_checked_option(int argc, char **argv, int *i, request *rq) {
    const char *arg = argv[*i], *value;
    long long n;
    if (is_option(arg, NULL, "color") || is_option(arg, NULL, "colour")) {
        value = option_value(argc, argv, i);
        if (!value || !(strcmp(value, "auto") == 0 || strcmp(value, "always") == 0 ||
                        strcmp(value, "never") == 0))
            return args_error("option %s needs auto, always or never", arg);
        rq->color = value;
    } else if (is_option(arg, "-J", "jobs") || is_option(arg, NULL, "mismatch-cap")) {
        if (!(value = option_value(argc, argv, i)) || !parse_int(value, &n) || n < 0)
            return args_error("option %s needs a number", arg);
        if (is_option(arg, "-J", "jobs"))
            rq->analysis.jobs = rq->report.jobs = (int)n;
        else
            rq->analysis.mismatch_cap = (int)n;
    } else if (is_option(arg, NULL, "width")) {
        if (!(value = option_value(argc, argv, i)) || !parse_int(value, &n) || n < 0 || n > 100000)
            return args_error("option %s needs a number of columns (0: no limit)", arg);
        rq->report.width = (size_t)n;
        rq->width_given = true;
    } else if (is_option(arg, NULL, "group-world-size")) {
        if (!(value = option_value(argc, argv, i)) || !parse_int(value, &n) || n < 1)
            return args_error("option %s needs a positive number", arg);
        rq->group_world_size = n;
    } else if (is_option(arg, NULL, "hosts")) {
        if (!(value = option_value(argc, argv, i)))
            return args_error("option %s needs a file of 'RANK HOST' lines", arg);
        rq->analysis.hosts_file = value;
    } else {
        return WORD_NOT_MINE;
    }
    return WORD_READ;
}

/* --selected-ranks R...: rank lists are numbers, so the first word that is not one ends them
 * (it may be DIR); --selected-ranks=R takes one list. */
static word_result read_selected_ranks(int argc, char **argv, int *i, request *rq) {
    const char *arg = argv[*i];
    size_t before = rq->report.nselected_ranks;
    const char *eq = strchr(arg, '=');
    if (eq && !parse_rank_list(rq, eq + 1))
        return args_error("%s: not a list of ranks (9 14, 9,14 or 8-15)", arg);
    while (!eq && *i + 1 < argc && parse_rank_list(rq, argv[*i + 1])) ++*i;
    if (rq->report.nselected_ranks == before)
        return args_error("%s needs at least one rank (9 14, 9,14 or 8-15)", arg);
    rq->report.selected_ranks = rq->ranks;
    return WORD_READ;
}

/* --pg-filters S...: group names are any words, so they stop at an option, at "--", at a
 * command word, and at an existing directory when no DIR was given yet (frtrace --pg-filters
 * TP dumps/). */
static word_result read_pg_filters(int argc, char **argv, int *i, request *rq) {
    rq->filters = rq->filters ? rq->filters : xcalloc((size_t)argc, sizeof *rq->filters);
    rq->report.pg_filters = rq->filters;
    while (*i + 1 < argc && argv[*i + 1][0] != '-' &&
           !(!rq->analysis.dir && is_directory(argv[*i + 1])) && !is_command_word(rq, argv[*i + 1]))
        rq->filters[rq->report.npg_filters++] = argv[++*i];
    if (!rq->report.npg_filters) return args_error("%s needs at least one group", argv[*i]);
    return WORD_READ;
}

/* A word that starts with '-' (and is not "-" alone, a directory's name): an option of this
 * file or of perf_cli.c, or "--", after which every word is DIR. */
static word_result read_option(int argc, char **argv, int *i, request *rq) {
    const char *arg = argv[*i];
    word_result r;
    if (is_option(arg, "-V", "version")) {
        printf("frtrace %s\n", FRTRACE_VERSION);
        return WORD_EXIT_OK;
    }
    if (read_flag(arg, rq)) return WORD_READ;
    if ((r = read_word_option(argc, argv, i, rq)) != WORD_NOT_MINE) return r;
    if ((r = read_checked_option(argc, argv, i, rq)) != WORD_NOT_MINE) return r;
    if (is_option(arg, NULL, "selected-ranks")) return read_selected_ranks(argc, argv, i, rq);
    if (is_option(arg, NULL, "pg-filters")) return read_pg_filters(argc, argv, i, rq);
    if (strcmp(arg, "--") == 0) {
        for (++*i; *i < argc; ++*i) {
            if (rq->analysis.dir)
                return args_error("more than one directory given ('%s')", argv[*i]);
            rq->analysis.dir = argv[*i];
        }
        return WORD_READ;
    }
    if (arg[0] != '-' || !arg[1]) return WORD_NOT_MINE;
    long long n = fa_perf_cli_option(argc, argv, i, &rq->perf);
    if (n < 0) return WORD_USAGE_ERROR; /* stragglers' floor, timeline window and cap */
    if (n > 0) return WORD_READ;
    return args_error("unknown option '%s'", arg);
}

/* A word that is no option: a command word, or DIR. */
static word_result read_word(int i, char **argv, request *rq) {
    const char *arg = argv[i];
    fa_command named;
    if (is_command_word(rq, arg)) {
        fa_cli_command_named(arg, &named);
        if (named == FA_CMD_HELP && !rq->help_word) {
            rq->help = rq->help_word = true;
            return WORD_READ;
        }
        rq->command = named;
        rq->command_named = true;
        if (named == FA_CMD_SHOW && !rq->help) {
            rq->show_at = i; /* show's own words follow: FILE..., not a DIR */
            return WORD_LAST;
        }
        return WORD_READ;
    }
    if (fa_cli_command_named(arg, &named) && !is_directory(arg))
        return args_error("'%s' is a second command: one at a time (frtrace help lists them)", arg);
    if (rq->help_word && !rq->command_named)
        return args_error("no help for '%s': the commands are stats, timeline, show and stacks",
                          arg);
    if (rq->analysis.dir) return args_error("more than one directory given ('%s')", arg);
    rq->analysis.dir = arg;
    return WORD_READ;
}

/* Reads every word in turn, options before or after DIR and the command word. */
static word_result parse_args(int argc, char **argv, request *rq) {
    for (int i = 1; i < argc; i++) {
        word_result r = read_option(argc, argv, &i, rq);
        if (r == WORD_NOT_MINE) r = read_word(i, argv, rq);
        if (r != WORD_READ) return r;
    }
    return WORD_READ;
}

/* Flags that contradict each other are a usage error naming both, never one silently ignored. */
static int check_conflicts(request *rq) {
    if (rq->by_rank && rq->command != FA_CMD_STACKS)
        return usage_error("--by-rank is an option of stacks (frtrace stacks --by-rank DIR)%s", "");
    if (rq->pretty)
        return usage_error("--pretty is an option of show (frtrace show --pretty FILE...)%s", "");
    if (rq->transform_ft && !rq->group_world_size)
        return usage_error(
            "%s",
            "--transform-ft needs --group-world-size N (the ranks of one torchft replica group)");
    if (rq->transform_ft) rq->analysis.ft_group_world_size = rq->group_world_size;
    rq->analysis.straggler_floor_ms = rq->perf.floor_ms;
    if (rq->command == FA_CMD_TIMELINE && !rq->format_flag[0]) rq->format = "json";
    if ((rq->command == FA_CMD_STATS || rq->command == FA_CMD_TIMELINE) &&
        !fa_perf_cli_format_ok(rq->command, rq->format))
        return usage_error(rq->command == FA_CMD_STATS
                               ? "unknown format '%s' (text, markdown, jira or json)"
                               : "unknown format '%s' (json or svg)",
                           rq->format);
    if ((rq->command == FA_CMD_STATS || rq->command == FA_CMD_TIMELINE) && rq->just_print_entries)
        return conflict("-j", rq->command == FA_CMD_STATS ? "stats" : "timeline",
                        "-j prints the entries without analyzing them");
    if (rq->command == FA_CMD_STACKS &&
        (rq->output || rq->format_flag[0] || rq->just_print_entries))
        return conflict("stacks",
                        rq->output           ? "-o"
                        : rq->format_flag[0] ? rq->format_flag
                                             : "-j",
                        "stacks prints folded stacks on stdout");
    if (rq->command == FA_CMD_ANALYZE && !format_writer(rq->format))
        return usage_error("unknown format '%s' (text, markdown, jira or json)", rq->format);
    if (rq->just_print_entries && rq->output)
        return conflict(
            "-j", "-o",
            "-j prints the entries without analyzing them, so there is no database to write");
    if (rq->just_print_entries && rq->format_flag[0] && strcmp(rq->format, "text") != 0)
        return conflict("-j", rq->format_flag, "-j prints one plain table of entries");
    if (rq->command == FA_CMD_ANALYZE && rq->output && strcmp(rq->output, "-") == 0 &&
        rq->format_flag[0] && strcmp(rq->format, "json") != 0)
        return conflict("-o -", rq->format_flag,
                        "both would print on stdout (-o - prints only the database)");
    return 0;
}

/* The text report's width and colour: --width, else the terminal's width on a terminal, else
 * 100; --color always or never as asked, auto (the default) only on a terminal, and never with
 * NO_COLOR set (no-color.org: a flag given on the command line wins over it) or TERM=dumb. */
static void choose_layout(request *rq) {
    bool tty = isatty(STDOUT_FILENO);
    struct winsize ws;
    if (!rq->width_given)
        rq->report.width = tty && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 40
                               ? ws.ws_col
                               : FA_DEFAULT_WIDTH;
    const char *no_color = getenv("NO_COLOR"), *term = getenv("TERM");
    if (rq->color && strcmp(rq->color, "auto") != 0)
        rq->report.color = strcmp(rq->color, "always") == 0;
    else
        rq->report.color = tty && !(no_color && *no_color) && !(term && strcmp(term, "dumb") == 0);
}

/* -o FILE where FILE cannot be written (its folder missing, not a folder, not writable, or
 * FILE a directory): said before the analysis, which can take minutes at scale, rather than
 * after it and after the report. The write itself still reports what goes wrong later. */
static int check_output_target(const request *rq) {
    const char *path = rq->output;
    if (!path || strcmp(path, "-") == 0) return 0;
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
        return usage_error("-o %s: is a directory; name a file in it", path);
    const char *slash = strrchr(path, '/');
    char folder[4096];
    snprintf(folder, sizeof folder, "%.*s", slash ? (int)(slash - path) : 1,
             slash ? (slash == path ? "/" : path) : ".");
    bool exists = stat(folder, &st) == 0;
    if (!exists || !S_ISDIR(st.st_mode)) {
        char what[4200];
        snprintf(what, sizeof what, "-o %s: %s %s", path, folder,
                 exists ? "is not a folder" : "does not exist");
        return usage_error("%s (nothing was read)", what);
    }
    if (access(folder, W_OK | X_OK) != 0)
        return usage_error("-o %s: cannot write in that folder (nothing was read)", path);
    return 0;
}

/* ------------------------------------------------------------ where the dumps are -- */

/* A directory holding at least one file named PREFIX<rank>, for the default locations. */
static bool holds_dumps(const char *dir, const char *prefix) {
    DIR *d = opendir(dir);
    if (!d) return false;
    bool found = false;
    struct dirent *e;
    size_t plen = prefix ? strlen(prefix) : 0;
    while (!found && (e = readdir(d))) {
        size_t at;
        if (fa_dump_name_rank(e->d_name, &at) < 0) continue;
        found = !prefix || (at == plen && strncmp(e->d_name, prefix, plen) == 0);
    }
    closedir(d);
    return found;
}

/* The first of PyTorch's default file prefixes under which dir holds dumps, or NULL. */
static const char *default_prefix_in(const char *dir) {
    static const char *const prefixes[] = { "comm_lib_trace_rank_", "nccl_trace_rank_" };
    for (size_t k = 0; k < sizeof prefixes / sizeof prefixes[0]; k++)
        if (holds_dumps(dir, prefixes[k])) return prefixes[k];
    return NULL;
}

/* Without DIR: FRTRACE_DUMP_DIR, then where PyTorch writes by default. A path prefix such as
 * TORCH_FR_DUMP_TEMP_FILE=/tmp/trace_ gives the directory and the file prefix. Says on stderr
 * which it used; NULL (and a message listing where it looked) when none holds a dump. */
static int find_default_dir(request *rq, char *dir, size_t dlen, char *prefix, size_t plen) {
    const char *home = getenv("HOME"), *xdg = getenv("XDG_CACHE_HOME");
    char cache[4096] = "";
    if (xdg && *xdg)
        snprintf(cache, sizeof cache, "%s/torch", xdg);
    else if (home && *home)
        snprintf(cache, sizeof cache, "%s/.cache/torch", home);
    struct {
        const char *from, *path;
        bool is_prefix;
    } places[] = {
        { "FRTRACE_DUMP_DIR", getenv("FRTRACE_DUMP_DIR"), false },
        { "TORCH_FR_DUMP_TEMP_FILE", getenv("TORCH_FR_DUMP_TEMP_FILE"), true },
        { "TORCH_NCCL_DEBUG_INFO_TEMP_FILE", getenv("TORCH_NCCL_DEBUG_INFO_TEMP_FILE"), true },
        { "PyTorch's default", cache, false },
        { "PyTorch's old default", "/tmp", false },
    };
    char looked[2048] = "";
    size_t at = 0;
    for (size_t i = 0; i < sizeof places / sizeof places[0]; i++) {
        const char *p = places[i].path;
        if (!p || !*p) continue;
        if (places[i].is_prefix && !is_directory(p)) {
            const char *slash = strrchr(p, '/');
            snprintf(dir, dlen, "%.*s", slash ? (int)(slash - p) : 1,
                     slash ? (slash == p ? "/" : p) : ".");
            snprintf(prefix, plen, "%s", slash ? slash + 1 : p);
        } else {
            snprintf(dir, dlen, "%s", p);
            prefix[0] = '\0';
        }
        bool found;
        if (i < 3) {
            found = holds_dumps(dir, prefix[0] ? prefix : NULL);
        } else { /* PyTorch's default places: under its default prefixes only */
            const char *known = default_prefix_in(dir);
            if (known) snprintf(prefix, plen, "%s", known);
            found = known != NULL;
        }
        if (found) {
            fr_text_printf(stderr, "frtrace: no DIR given; reading %s (%s)%s%s\n", dir,
                           places[i].from, prefix[0] ? ", prefix " : "", prefix);
            rq->analysis.dir = dir;
            if (prefix[0] && !rq->analysis.prefix) rq->analysis.prefix = prefix;
            return 0;
        }
        if (at < sizeof looked)
            at += (size_t)snprintf(looked + at, sizeof looked - at, "%s%s (%s)", at ? ", " : "", p,
                                   places[i].from);
    }
    return usage_error("no dump directory given, and none found where PyTorch writes dumps: %s",
                       looked[0] ? looked : "(none set)");
}

/* ------------------------------------------------------------ output --------------- */

/* Messages about single files: the first few of each kind, then how many more, so that a
 * directory of 200 000 junk files says a dozen lines, not 200 000 (the database lists every
 * rejected file). Paths and messages are shown, never obeyed (safe_text.h). */
enum { MESSAGES_SHOWN = 10 };

static void print_input_messages(const fa_analysis *a) {
    size_t shown = a->in.nrejected < MESSAGES_SHOWN ? a->in.nrejected : MESSAGES_SHOWN;
    for (size_t i = 0; i < shown; i++)
        fr_text_printf(stderr, "frtrace: %s: %s\n", a->in.rejected[i].path,
                       a->in.rejected[i].error);
    if (a->in.nrejected > shown)
        fprintf(stderr,
                "frtrace: ... and %zu more files not read (-o FILE lists every one under "
                "input.files_rejected)\n",
                a->in.nrejected - shown);
    shown = a->in.nnotes < MESSAGES_SHOWN ? a->in.nnotes : MESSAGES_SHOWN;
    for (size_t i = 0; i < shown; i++) fr_text_printf(stderr, "frtrace: %s\n", a->in.notes[i]);
    if (a->in.nnotes > shown)
        fprintf(stderr, "frtrace: ... and %zu more warnings about files like these\n",
                a->in.nnotes - shown);
}

/* A filter that matches nothing leaves an empty report: say so, on stderr. */
static void warn_unmatched_filters(const fa_input *in, const fa_groups *g,
                                   const fa_report_options *opt) {
    for (size_t i = 0; i < opt->nselected_ranks; i++) {
        int64_t r = opt->selected_ranks[i];
        bool known = fa_input_find(in, r) >= 0 || fa_ranks_contains(&g->without_dump, r);
        if (!known)
            fprintf(stderr, "frtrace: warning: --selected-ranks: rank %lld is not in these dumps\n",
                    (long long)r);
    }
    for (size_t i = 0; i < opt->npg_filters; i++) {
        const char *f = opt->pg_filters[i];
        bool known = false;
        for (size_t k = 0; k < g->n && !known; k++)
            known = strcmp(g->v[k].name, f) == 0 || strcmp(g->v[k].desc, f) == 0 ||
                    (g->v[k].id && strcmp(g->v[k].id, f) == 0);
        if (!known)
            fr_text_printf(
                stderr, "frtrace: warning: --pg-filters: no group is named or described '%s'\n", f);
    }
}

/* -o FILE: the database, written through output_file.h (atomically, never through a link). */
typedef struct database_job {
    const fa_analysis *a;
    const request *rq;
} database_job;

static int database_to(void *ctx, FILE *out) {
    const database_job *job = ctx;
    return fa_report_db(job->a, &job->rq->report, out);
}

static int write_database(const fa_analysis *a, const request *rq) {
    if (!rq->output) return 0;
    database_job job = { a, rq };
    return fa_output_write(rq->output, database_to, &job);
}

/* The progress line is shown from PROGRESS_DELAY_MS on (FRTRACE_PROGRESS_DELAY_MS, for tests),
 * and erased before anything else is written. */
enum { PROGRESS_DELAY_MS = 2000 };

static void progress_begin(request *rq) {
    const char *env = getenv("FRTRACE_PROGRESS_DELAY_MS");
    long long delay;
    if (!env || !parse_int(env, &delay) || delay < 0) delay = PROGRESS_DELAY_MS;
    rq->analysis.progress = &rq->progress;
    rq->line = fa_progress_line_start(&rq->progress, (long)delay);
}

static void progress_end(request *rq) {
    fa_progress_line_stop(rq->line);
    rq->line = NULL;
}

/* frtrace stacks: the dumps' threads as folded stacks; no analysis needed. 0 when some dump had
 * stacks, 1 when none had, 2 when nothing could be read. */
static int run_stacks(request *rq) {
    fa_analysis a;
    fr_error err = { { 0 } };
    size_t threads = 0;
    memset(&a, 0, sizeof a);
    int rc = fa_load_input(&rq->analysis, &a.in, &err) == 0 ? 0 : 2;
    progress_end(rq);
    print_input_messages(&a);
    if (rc == 0 && a.in.nranks == 0) {
        fr_fail(&err, "%s: no dump could be read", rq->analysis.dir);
        rc = 2;
    }
    if (rc == 2) fprintf(stderr, "frtrace: %s\n", err.msg);
    if (rc == 0 && fa_report_folded(&a.in, &rq->report, rq->by_rank, stdout, &threads) != 0) rc = 2;
    if (rc == 0 && threads == 0) {
        fprintf(stderr,
                "frtrace: no dump in %s has stacks (the recorder's dumps carry them unless "
                "FRTRACE_STACKS=0)\n",
                rq->analysis.dir);
        rc = 1;
    }
    fa_input_free(&a.in);
    return rc;
}

static int run(request *rq) {
    fa_analysis a;
    fr_error err = { { 0 } };
    if (rq->command == FA_CMD_STACKS) return run_stacks(rq);
    if (rq->just_print_entries) {
        memset(&a, 0, sizeof a);
        int loaded = fa_load_input(&rq->analysis, &a.in, &err) == 0 &&
                     fa_groups_build(&a.in, &a.groups, &err) == 0;
        progress_end(rq);
        if (!loaded) {
            fr_text_printf(stderr, "frtrace: %s\n", err.msg);
            fa_analysis_free(&a);
            return 2;
        }
        print_input_messages(&a);
        warn_unmatched_filters(&a.in, &a.groups, &rq->report);
        int rc = fa_report_entries(&a.in, &a.groups, &rq->report, stdout);
        if (fa_output_stdout_done() != 0) rc = -1;
        fa_analysis_free(&a);
        return rc ? 2 : 0;
    }
    int analyzed = fa_analyze(&rq->analysis, &a, &err);
    progress_end(rq);
    if (analyzed != 0) {
        print_input_messages(&a);
        fr_text_printf(stderr, "frtrace: %s\n", err.msg);
        fa_analysis_free(&a);
        return 2;
    }
    print_input_messages(&a);
    warn_unmatched_filters(&a.in, &a.groups, &rq->report);
    if (a.perf.skipped) { /* the rest stands without it; stats has nothing else to show */
        fprintf(stderr, "frtrace: the performance view (slow ranks, stats) was left out: %s; %s\n",
                a.perf.skipped,
                rq->command == FA_CMD_STATS      ? "nothing to show"
                : rq->command == FA_CMD_TIMELINE ? "no slow rank is marked"
                                                 : "the verdict does not need it");
        if (rq->command == FA_CMD_STATS) {
            fa_analysis_free(&a);
            return 2;
        }
    }
    if (rq->command != FA_CMD_ANALYZE) {
        int perf_status =
            fa_perf_cli_run(&a, &rq->report, rq->command, rq->format, rq->output, &rq->perf);
        fa_analysis_free(&a);
        return perf_status;
    }
    bool timing = fa_timing_wanted();
    double t = fa_clock();
    int rc = 0;
    bool database_on_stdout = rq->output && strcmp(rq->output, "-") == 0;
    if (!database_on_stdout) {
        rc = format_writer(rq->format)(&a, &rq->report, stdout);
        if (fa_output_stdout_done() != 0) rc = -1;
    }
    if (timing) fa_timing_note("report", &t);
    if (write_database(&a, rq) != 0) rc = -1;
    if (timing) fa_timing_note("database", &t);
    int status = a.verdict.status == FA_STATUS_OK ? 0 : 1;
    fa_analysis_free(&a);
    if (timing) fa_timing_note("free", &t);
    if (rc) return 2;
    return status;
}

/* The word "show" after options (frtrace --pretty show FILE): show.c reads the words after it.
 * Only --pretty may come before it; the analysis's options mean nothing to show. Returns
 * show's exit status, or 2 after a usage error. */
static int run_show(const request *rq, int argc, char **argv) {
    for (int i = 1; i < rq->show_at; i++)
        if (!is_option(argv[i], NULL, "pretty"))
            return usage_error("show reads only --pretty and files (frtrace show [--pretty] "
                               "FILE...), not '%s'",
                               argv[i]);
    int n = argc - rq->show_at;
    char **words = xcalloc((size_t)n + 2, sizeof *words);
    int k = 0;
    words[k++] = argv[rq->show_at];
    if (rq->by_rank && rq->command != FA_CMD_STACKS) {
        free(words);
        return usage_error("--by-rank is an option of stacks (frtrace stacks --by-rank DIR)%s", "");
    }
    if (rq->pretty) words[k++] = "--pretty";
    for (int i = rq->show_at + 1; i < argc; i++) words[k++] = argv[i];
    int status = show_main(k, words);
    free(words);
    return status;
}

/* Reads the words and does what they ask; the exit status. */
static int run_words(request *rq, int nargs, char **args) {
    switch (parse_args(nargs, args, rq)) {
    case WORD_EXIT_OK: return 0;
    case WORD_USAGE_ERROR: return 2;
    case WORD_READ:
    case WORD_LAST:
    case WORD_NOT_MINE: break;
    }
    if (rq->help) {
        fa_cli_help(stdout, rq->command);
        return 0;
    }
    if (rq->show_at) return run_show(rq, nargs, args);
    char dir[4096], prefix[1024]; /* a default directory found below lives here while it runs */
    int status = check_conflicts(rq);
    if (status == 0) status = check_output_target(rq);
    if (status == 0) choose_layout(rq);
    if (status == 0 && !rq->analysis.dir)
        status = find_default_dir(rq, dir, sizeof dir, prefix, sizeof prefix);
    if (status != 0) return status;
    progress_begin(rq);
    status = run(rq);
    progress_end(rq);
    return status;
}

static int cli_main(int argc, char **argv, fa_command command) {
    request rq;
    memset(&rq, 0, sizeof rq);
    rq.command = command;
    rq.command_named = command != FA_CMD_ANALYZE;
    rq.perf.max_ranks = -1;
    signal(SIGXFSZ, SIG_IGN); /* past a file-size limit, a write fails with EFBIG and is reported */
    signal(SIGPIPE, SIG_IGN); /* a closed pipe on stdout: EPIPE, reported, exit 2 */
    rq.format = "text";
    rq.analysis.mismatch_cap = FA_DEFAULT_MISMATCH_CAP;
    char **args = NULL;
    int nargs = 0;
    int status = expand_short_flags(argc, argv, &args, &nargs);
    if (status == 0) status = run_words(&rq, nargs, args);
    for (int i = 0; i < nargs; i++) free(args[i]);
    free(args);
    free(rq.ranks);
    free(rq.filters);
    return status;
}

int analyze_main(int argc, char **argv) { return cli_main(argc, argv, FA_CMD_ANALYZE); }
int stats_main(int argc, char **argv) { return cli_main(argc, argv, FA_CMD_STATS); }
int timeline_main(int argc, char **argv) { return cli_main(argc, argv, FA_CMD_TIMELINE); }
int stacks_main(int argc, char **argv) { return cli_main(argc, argv, FA_CMD_STACKS); }
