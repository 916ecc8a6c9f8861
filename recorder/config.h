/* config.h — the recorder's settings, read once from the FRTRACE_* environment variables.
 *
 * man/libfrtrace-recorder.7 (ENVIRONMENT) fixes the names and defaults. The configuration is one
 * of the three pieces of global state the recorder keeps (with the ring and the communicator
 * registry); it is filled by rec_config_load() before anything else runs and never changes
 * afterwards, so every thread reads it without locks.
 */
#ifndef FRTRACE_REC_CONFIG_H
#define FRTRACE_REC_CONFIG_H

#include <stdbool.h>
#include <stdint.h>

enum { REC_LOG_OFF = 0, REC_LOG_WARN = 1, REC_LOG_INFO = 2 };
/* FRTRACE_STACKS: 0 none; 1 (default) libdw's unwinder when found, else frame pointers; fp */
enum { REC_STACKS_OFF = 0, REC_STACKS_ON = 1, REC_STACKS_FRAME_POINTERS = 2 };

typedef struct rec_config {
    uint32_t buffer_size;     /* FRTRACE_BUFFER_SIZE: ring capacity; 0 = recording off */
    const char *dump_dir;     /* FRTRACE_DUMP_DIR, any length (opened component by component) */
    const char *dump_prefix;  /* FRTRACE_DUMP_PREFIX: with the rank, one file name (255 bytes) */
    int64_t timeout_ms;       /* FRTRACE_TIMEOUT_SEC, in ms (accepts fractions: "1.5") */
    int dump_signal;          /* FRTRACE_SIGNAL: signal number, 0 = none */
    const char *trigger_file; /* FRTRACE_TRIGGER_FILE, any length; "" when unset */
    int gpu_events;           /* FRTRACE_GPU_EVENTS: 0, 1 (end) or 2 (start and end) */
    int64_t global_rank;      /* FRTRACE_RANK, RANK, ...; -1 when none is set */
    bool json;                /* FRTRACE_FORMAT=json */
    int log_level;            /* FRTRACE_LOG */
    bool dump_on_exit;        /* FRTRACE_DUMP_ON_EXIT=1 (extension, default off) */
    int stacks;               /* FRTRACE_STACKS: REC_STACKS_* (every thread's stacks in dumps) */
} rec_config;

/* The configuration, loaded on first use (thread-safe). */
const rec_config *rec_config_get(void);

/* Parses a signal spelling ("USR2", "SIGUSR1", "12", "none"); -1 when it is not one. */
int rec_parse_signal(const char *text);
/* Whether sig cannot be the dump signal: a fault the recorder must let kill the process (SEGV,
 * BUS, ILL, FPE, ABRT, TRAP, SYS: a handler that returns would re-run the faulting instruction
 * forever) or one that cannot be caught (KILL, STOP). */
bool rec_signal_is_fatal(int sig);

/* Bounds on the settings, each refused with a warning beyond it. FRTRACE_BUFFER_SIZE: the ring
 * and the two dump workspaces are reserved at once for every entry (a few hundred bytes each),
 * so a million entries is some hundreds of MB, and 16 million would be gigabytes.
 * FRTRACE_DUMP_PREFIX: the prefix and the rank (up to 20 digits) are one file name of at most
 * 255 bytes. */
enum { REC_MAX_BUFFER_SIZE = 1000000, REC_MAX_PREFIX = 255 - 20 };

/* Logging to stderr with the "frtrace: " prefix, filtered by FRTRACE_LOG. Not signal-safe. A
 * closed pipe on stderr never kills the host: SIGPIPE is blocked around the write and a
 * SIGPIPE it raised is taken back. */
void rec_log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
