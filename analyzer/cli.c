/* cli.c — `frtrace [OPTIONS] [DIR]`: options -> an analysis -> a report -> an exit status.
 *
 * Accepts the contract's spellings and torchfrtrace's (--just_print_entries, --mismatch_cap,
 * --print_stack_trace, --allow-incomplete-ranks, --selected-ranks R..., --pg-filters S...,
 * --transform-ft with --group-world-size N).
 * --selected-ranks takes the following numbers; --pg-filters the following words up to an
 * option, "--" or an existing directory (when DIR is not given yet); "--" ends the options.
 * Exit status: 0 ok; 1 hang, mismatch or inconclusive; 2 usage error or nothing readable.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analysis.h"
#include "timing.h"
#include "commands.h"
#include "report.h"

typedef struct request {
    fa_options analysis;
    fa_report_options report;
    const char *format;
    const char *output;
    bool just_print_entries;
    bool transform_ft;
    long long group_world_size;
    int64_t *ranks;
    const char **filters;
} request;

static const char usage_text[] =
    "usage: frtrace [OPTIONS] [DIR]\n"
    "       frtrace show [--pretty] FILE...\n"
    "\n"
    "Reads every rank's Flight Recorder dump under DIR and says which rank broke the job.\n"
    "\n"
    "  -d, --dir DIR              dump directory (same as the positional DIR)\n"
    "  -p, --prefix P             file-name prefix before the rank (default: inferred)\n"
    "  -o, --output FILE          write the analysis database as JSON ('-' = stdout)\n"
    "  -f, --format FMT           report format: text (default), markdown, json\n"
    "  -j, --just-print-entries   side-by-side table of every rank's entries; no matching\n"
    "  -v, --verbose              more detail, plus groups and collectives tables\n"
    "      --selected-ranks R...  only these ranks in -j and in the report's findings\n"
    "      --pg-filters S...      only these groups (name or desc) in -j and the report\n"
    "      --                     ends the options: the next word is DIR\n"
    "      --mismatch-cap N       list at most N findings per group (default 10)\n"
    "      --allow-incomplete-ranks  accepted for compatibility (always on)\n"
    "      --print-stack-trace    show stack frames, merged across ranks\n"
    "      --all-calls            list every rank's call in the database\n"
    "      --transform-ft --group-world-size N\n"
    "                             torchft: each dump's default_pg lists replica-local ranks;\n"
    "                             make them global (r + rank / N * N), as torchfrtrace does\n"
    "  -J, --jobs N               threads (default: number of cores); results do not depend on it\n"
    "  -h, --help                 this text\n"
    "  -V, --version              print the version\n"
    "\n"
    "Exit status: 0 ok, 1 hang/mismatch/inconclusive, 2 usage error or no readable dump.\n";

static int usage_error(const char *fmt, const char *arg) {
    fprintf(stderr, "frtrace: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\nTry 'frtrace --help'.\n");
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

static int parse_args(int argc, char **argv, request *rq) {
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        const char *value;
        long long n;
        if (is_option(arg, "-h", "help")) {
            fputs(usage_text, stdout);
            return -1;
        } else if (is_option(arg, "-V", "version")) {
            printf("frtrace %s\n", FRTRACE_VERSION);
            return -1;
        } else if (is_option(arg, "-d", "dir") || is_option(arg, "-p", "prefix") || is_option(arg, "-o", "output") ||
                   is_option(arg, "-f", "format")) {
            if (!(value = option_value(argc, argv, &i))) return usage_error("option %s needs a value", arg);
            if (is_option(arg, "-d", "dir")) rq->analysis.dir = value;
            else if (is_option(arg, "-p", "prefix")) rq->analysis.prefix = value;
            else if (is_option(arg, "-o", "output")) rq->output = value;
            else rq->format = value;
        } else if (is_option(arg, "-J", "jobs") || is_option(arg, NULL, "mismatch-cap")) {
            if (!(value = option_value(argc, argv, &i)) || !parse_int(value, &n) || n < 0)
                return usage_error("option %s needs a number", arg);
            if (is_option(arg, "-J", "jobs")) rq->analysis.jobs = rq->report.jobs = (int)n;
            else rq->analysis.mismatch_cap = (int)n;
        } else if (is_option(arg, NULL, "group-world-size")) {
            if (!(value = option_value(argc, argv, &i)) || !parse_int(value, &n) || n < 1)
                return usage_error("option %s needs a positive number", arg);
            rq->group_world_size = n;
        } else if (is_option(arg, NULL, "transform-ft")) {
            rq->transform_ft = true;
        } else if (is_option(arg, "-j", "just-print-entries")) {
            rq->just_print_entries = true;
        } else if (is_option(arg, "-v", "verbose")) {
            rq->report.verbose = true;
        } else if (is_option(arg, NULL, "print-stack-trace")) {
            rq->report.stack_traces = true;
        } else if (is_option(arg, NULL, "all-calls")) {
            rq->report.all_calls = true;
        } else if (is_option(arg, NULL, "allow-incomplete-ranks")) {
            /* always on: a missing dump is a finding, not a fatal error */
        } else if (is_option(arg, NULL, "selected-ranks")) {
            rq->ranks = rq->ranks ? rq->ranks : calloc((size_t)argc, sizeof *rq->ranks);
            if (!rq->ranks) return usage_error("%s", "out of memory");
            rq->report.selected_ranks = rq->ranks;
            /* ranks are numbers: the first word that is not one ends the list (it may be DIR) */
            while (i + 1 < argc && parse_int(argv[i + 1], &n)) {
                rq->ranks[rq->report.nselected_ranks++] = n;
                i++;
            }
            if (!rq->report.nselected_ranks) return usage_error("%s needs at least one rank", arg);
        } else if (is_option(arg, NULL, "pg-filters")) {
            rq->filters = rq->filters ? rq->filters : calloc((size_t)argc, sizeof *rq->filters);
            if (!rq->filters) return usage_error("%s", "out of memory");
            rq->report.pg_filters = rq->filters;
            /* group names are any words: stop at an option, at "--", and at an existing
             * directory when no DIR was given yet (frtrace --pg-filters TP dumps/) */
            while (i + 1 < argc && argv[i + 1][0] != '-' && !(!rq->analysis.dir && is_directory(argv[i + 1])))
                rq->filters[rq->report.npg_filters++] = argv[++i];
            if (!rq->report.npg_filters) return usage_error("%s needs at least one group", arg);
        } else if (strcmp(arg, "--") == 0) {
            for (i++; i < argc; i++) {
                if (rq->analysis.dir) return usage_error("more than one directory given ('%s')", argv[i]);
                rq->analysis.dir = argv[i];
            }
        } else if (arg[0] == '-' && arg[1]) {
            return usage_error("unknown option '%s'", arg);
        } else if (!rq->analysis.dir) {
            rq->analysis.dir = arg;
        } else {
            return usage_error("more than one directory given ('%s')", arg);
        }
    }
    if (!rq->analysis.dir) return usage_error("%s", "no dump directory given (frtrace [OPTIONS] DIR)");
    if (rq->transform_ft && !rq->group_world_size)
        return usage_error("%s", "--transform-ft needs --group-world-size N (the ranks of one torchft replica group)");
    if (rq->transform_ft) rq->analysis.ft_group_world_size = rq->group_world_size;
    if (strcmp(rq->format, "text") && strcmp(rq->format, "markdown") && strcmp(rq->format, "json"))
        return usage_error("unknown format '%s' (text, markdown or json)", rq->format);
    return 0;
}

static void print_input_messages(const fa_analysis *a) {
    for (size_t i = 0; i < a->in.nrejected; i++) fprintf(stderr, "frtrace: %s: %s\n", a->in.rejected[i].path, a->in.rejected[i].error);
    for (size_t i = 0; i < a->in.nnotes; i++) fprintf(stderr, "frtrace: %s\n", a->in.notes[i]);
}

static int write_database(const fa_analysis *a, const request *rq) {
    if (!rq->output) return 0;
    if (strcmp(rq->output, "-") == 0) return fa_report_db(a, &rq->report, stdout);
    FILE *f = fopen(rq->output, "w");
    if (!f) {
        perror(rq->output);
        return -1;
    }
    int rc = fa_report_db(a, &rq->report, f);
    if (fclose(f) != 0) rc = -1;
    if (rc) fprintf(stderr, "frtrace: %s: write failed\n", rq->output);
    return rc;
}

static int run(request *rq) {
    fa_analysis a;
    fr_error err = {{0}};
    if (rq->just_print_entries) {
        memset(&a, 0, sizeof a);
        if (fa_load_input(&rq->analysis, &a.in, &err) != 0 ||
            fa_groups_build(&a.in, &a.groups, &err) != 0) {
            fprintf(stderr, "frtrace: %s\n", err.msg);
            fa_analysis_free(&a);
            return 2;
        }
        print_input_messages(&a);
        fa_report_entries(&a.in, &a.groups, &rq->report, stdout);
        fa_analysis_free(&a);
        return 0;
    }
    if (fa_analyze(&rq->analysis, &a, &err) != 0) {
        print_input_messages(&a);
        fprintf(stderr, "frtrace: %s\n", err.msg);
        fa_analysis_free(&a);
        return 2;
    }
    print_input_messages(&a);
    bool timing = fa_timing_wanted();
    double t = fa_clock();
    int rc = 0;
    if (strcmp(rq->format, "json") == 0) rc = fa_report_db(&a, &rq->report, stdout);
    else if (strcmp(rq->format, "markdown") == 0) rc = fa_report_markdown(&a, &rq->report, stdout);
    else rc = fa_report_text(&a, &rq->report, stdout);
    if (timing) fa_timing_note("report", &t);
    if (write_database(&a, rq) != 0) rc = -1;
    if (timing) fa_timing_note("database", &t);
    int status = a.verdict.status == FA_STATUS_OK ? 0 : 1;
    fa_analysis_free(&a);
    if (timing) fa_timing_note("free", &t);
    if (rc) return 2;
    return status;
}

int analyze_main(int argc, char **argv) {
    request rq;
    memset(&rq, 0, sizeof rq);
    rq.format = "text";
    rq.analysis.mismatch_cap = 10;
    int status = parse_args(argc, argv, &rq);
    if (status == 0) status = run(&rq);
    else if (status < 0) status = 0; /* --help, --version */
    free(rq.ranks);
    free(rq.filters);
    return status;
}
