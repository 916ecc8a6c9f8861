/* config.c — reads the FRTRACE_* environment once (pthread_once) into a static rec_config.
 *
 * Bad values fall back to the default with a warning: a typo in a debugging knob must never
 * stop the job it is meant to observe, and no setting may hurt it either: a fatal signal is
 * refused as the dump signal, the ring is bounded (REC_MAX_BUFFER_SIZE), paths are kept whole
 * whatever their length (never cut), and a prefix that cannot make a file name is refused.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

static rec_config g_config;
static pthread_once_t g_config_once = PTHREAD_ONCE_INIT;
/* Set once load_config has run: from then on rec_config_get is a plain load, which a signal
 * handler may do (pthread_once is not on the async-signal-safe list). */
static _Atomic bool g_config_loaded;

static const char *env_or_null(const char *name) {
    const char *v = getenv(name);
    return (v != NULL && v[0] != '\0') ? v : NULL;
}

static bool parse_int64(const char *text, int64_t *out) {
    char *end = NULL;
    long long v = strtoll(text, &end, 10);
    if (end == text || *end != '\0') return false;
    *out = v;
    return true;
}

int rec_parse_signal(const char *text) {
    static const struct {
        const char *name;
        int sig;
    } names[] = {
        { "USR1", SIGUSR1 },
        { "USR2", SIGUSR2 },
        { "HUP", SIGHUP },
        { "QUIT", SIGQUIT },
        { "TERM", SIGTERM },
        { "INT", SIGINT },
        { "PWR", SIGPWR },
        { "URG", SIGURG },
        { "ALRM", SIGALRM },
        { "WINCH", SIGWINCH },
        { "CONT", SIGCONT },
        { "CHLD", SIGCHLD },
        { "PIPE", SIGPIPE },
        { "XCPU", SIGXCPU },
        { "XFSZ", SIGXFSZ },
        { "PROF", SIGPROF },
        { "VTALRM", SIGVTALRM },
        { "TSTP", SIGTSTP },
        { "TTIN", SIGTTIN },
        { "TTOU", SIGTTOU },
        /* named so that they can be refused by name (rec_signal_is_fatal) */
        { "SEGV", SIGSEGV },
        { "BUS", SIGBUS },
        { "ILL", SIGILL },
        { "FPE", SIGFPE },
        { "ABRT", SIGABRT },
        { "TRAP", SIGTRAP },
        { "SYS", SIGSYS },
        { "KILL", SIGKILL },
        { "STOP", SIGSTOP },
    };
    int64_t num;
    if (strcasecmp(text, "none") == 0 || strcmp(text, "0") == 0) return 0;
    if (parse_int64(text, &num)) return (num > 0 && num < NSIG) ? (int)num : -1;
    if (strncasecmp(text, "SIG", 3) == 0) text += 3;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcasecmp(text, names[i].name) == 0) return names[i].sig;
    return -1;
}

bool rec_signal_is_fatal(int sig) {
    return sig == SIGSEGV || sig == SIGBUS || sig == SIGILL || sig == SIGFPE || sig == SIGABRT ||
           sig == SIGTRAP || sig == SIGSYS || sig == SIGKILL || sig == SIGSTOP;
}

/* The setting's own copy, whatever its length (the environment may change later). */
static const char *keep_setting(const char *value) {
    char *copy = strdup(value);
    return copy ? copy : value;
}

static int64_t global_rank_from_env(void) {
    static const char *const vars[] = { "FRTRACE_RANK", "RANK", "OMPI_COMM_WORLD_RANK", "PMI_RANK",
                                        "SLURM_PROCID" };
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        const char *v = env_or_null(vars[i]);
        int64_t r;
        if (v != NULL && parse_int64(v, &r) && r >= 0) return r;
    }
    return -1;
}

static void load_log_level(rec_config *c) {
    const char *v = env_or_null("FRTRACE_LOG");
    c->log_level = REC_LOG_WARN;
    if (v == NULL) return;
    if (strcmp(v, "0") == 0 || strcasecmp(v, "off") == 0 || strcasecmp(v, "none") == 0)
        c->log_level = REC_LOG_OFF;
    else if (strcasecmp(v, "info") == 0 || strcmp(v, "2") == 0)
        c->log_level = REC_LOG_INFO;
}

static void load_numbers(rec_config *c) {
    const char *v;
    int64_t n;
    c->buffer_size = 2000;
    if ((v = env_or_null("FRTRACE_BUFFER_SIZE")) != NULL) {
        if (parse_int64(v, &n) && n >= 0 && n <= REC_MAX_BUFFER_SIZE)
            c->buffer_size = (uint32_t)n;
        else if (parse_int64(v, &n) && n > REC_MAX_BUFFER_SIZE) {
            c->buffer_size = REC_MAX_BUFFER_SIZE;
            rec_log(REC_LOG_WARN,
                    "FRTRACE_BUFFER_SIZE=%s is more than %d entries (all reserved at once: "
                    "gigabytes); using %d",
                    v, REC_MAX_BUFFER_SIZE, REC_MAX_BUFFER_SIZE);
        } else
            rec_log(REC_LOG_WARN, "FRTRACE_BUFFER_SIZE=%s is not a count; using 2000", v);
    }
    c->timeout_ms = 300 * 1000;
    if ((v = env_or_null("FRTRACE_TIMEOUT_SEC")) != NULL) {
        char *end = NULL;
        double sec = strtod(v, &end);
        if (end != v && *end == '\0' && sec > 0 && sec < 1e9)
            c->timeout_ms = (int64_t)(sec * 1000.0);
        else
            rec_log(REC_LOG_WARN, "FRTRACE_TIMEOUT_SEC=%s is not a duration; using 300", v);
    }
    c->gpu_events = 2;
    if ((v = env_or_null("FRTRACE_GPU_EVENTS")) != NULL) {
        if (parse_int64(v, &n) && n >= 0 && n <= 2)
            c->gpu_events = (int)n;
        else
            rec_log(REC_LOG_WARN, "FRTRACE_GPU_EVENTS=%s is not 0, 1 or 2; using 2", v);
    }
}

static void load_signal(rec_config *c) {
    const char *v = env_or_null("FRTRACE_SIGNAL");
    c->dump_signal = SIGUSR2;
    if (v == NULL) return;
    int sig = rec_parse_signal(v);
    if (sig < 0)
        rec_log(REC_LOG_WARN, "FRTRACE_SIGNAL=%s is not a signal; using USR2", v);
    else if (rec_signal_is_fatal(sig))
        rec_log(REC_LOG_WARN,
                "FRTRACE_SIGNAL=%s is a fatal signal (%s): a crash must still kill the process "
                "(it dumps then); using USR2",
                v, strsignal(sig));
    else
        c->dump_signal = sig;
}

static void load_stacks(rec_config *c) {
    const char *v = env_or_null("FRTRACE_STACKS");
    c->stacks = REC_STACKS_ON;
    if (v == NULL || strcmp(v, "1") == 0) return;
    if (strcmp(v, "0") == 0)
        c->stacks = REC_STACKS_OFF;
    else if (strcasecmp(v, "fp") == 0)
        c->stacks = REC_STACKS_FRAME_POINTERS;
    else
        rec_log(REC_LOG_WARN, "FRTRACE_STACKS=%s is not 0, 1 or fp; using 1", v);
}

static void load_config(void) {
    rec_config *c = &g_config;
    const char *v;
    load_log_level(c);
    load_numbers(c);
    c->dump_dir = keep_setting((v = env_or_null("FRTRACE_DUMP_DIR")) ? v : "./frtrace-dumps");
    c->dump_prefix = "rank_";
    if ((v = env_or_null("FRTRACE_DUMP_PREFIX")) != NULL) {
        if (strlen(v) <= REC_MAX_PREFIX && !strchr(v, '/'))
            c->dump_prefix = keep_setting(v);
        else
            rec_log(REC_LOG_WARN, "FRTRACE_DUMP_PREFIX (%zu bytes) is %s; using rank_", strlen(v),
                    strchr(v, '/') ? "not a file name (it holds '/')"
                                   : "too long: with the rank it must fit a file name of 255 "
                                     "bytes");
    }
    c->trigger_file = keep_setting((v = env_or_null("FRTRACE_TRIGGER_FILE")) ? v : "");
    load_signal(c);
    c->json = (v = env_or_null("FRTRACE_FORMAT")) != NULL && strcasecmp(v, "json") == 0;
    c->global_rank = global_rank_from_env();
    c->dump_on_exit = (v = env_or_null("FRTRACE_DUMP_ON_EXIT")) != NULL && strcmp(v, "0") != 0;
    load_stacks(c);
}

const rec_config *rec_config_get(void) {
    if (atomic_load_explicit(&g_config_loaded, memory_order_acquire)) return &g_config;
    pthread_once(&g_config_once, load_config);
    atomic_store_explicit(&g_config_loaded, true, memory_order_release);
    return &g_config;
}

/* Writes all of text to stderr; a closed pipe there is the host's business: SIGPIPE is blocked
 * in this thread for the write, and one that the write raised is taken back. */
static void write_stderr(const char *text, size_t len) {
    sigset_t pipe_only, old, pending;
    sigemptyset(&pipe_only);
    sigaddset(&pipe_only, SIGPIPE);
    sigpending(&pending);
    bool was_pending = sigismember(&pending, SIGPIPE) == 1;
    pthread_sigmask(SIG_BLOCK, &pipe_only, &old);
    while (len > 0) {
        ssize_t n = write(STDERR_FILENO, text, len);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        text += n;
        len -= (size_t)n;
    }
    sigpending(&pending);
    if (!was_pending && sigismember(&pending, SIGPIPE) == 1) {
        struct timespec now = { 0, 0 };
        sigtimedwait(&pipe_only, NULL, &now);
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
}

void rec_log(int level, const char *fmt, ...) {
    /* load_config sets the level first, so its own warnings are filtered too. */
    if (level == REC_LOG_OFF || level > g_config.log_level) return;
    char *body = NULL, *line = NULL;
    va_list ap;
    va_start(ap, fmt);
    int n = vasprintf(&body, fmt, ap);
    va_end(ap);
    if (n >= 0 && asprintf(&line, "frtrace: %s\n", body) >= 0) write_stderr(line, strlen(line));
    free(body);
    free(line);
}
