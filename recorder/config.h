/* config.h — the recorder's settings, read once from the FRTRACE_* environment variables.
 *
 * The contract (frtrace-interface.md §5) fixes the names and defaults. The configuration is one
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
    uint32_t buffer_size;   /* FRTRACE_BUFFER_SIZE: ring capacity; 0 = recording off */
    char dump_dir[512];     /* FRTRACE_DUMP_DIR */
    char dump_prefix[128];  /* FRTRACE_DUMP_PREFIX */
    int64_t timeout_ms;     /* FRTRACE_TIMEOUT_SEC, in ms (accepts fractions: "1.5") */
    int dump_signal;        /* FRTRACE_SIGNAL: signal number, 0 = none */
    char trigger_file[512]; /* FRTRACE_TRIGGER_FILE, "" when unset */
    int gpu_events;         /* FRTRACE_GPU_EVENTS: 0, 1 (end) or 2 (start and end) */
    int64_t global_rank;    /* FRTRACE_RANK, RANK, ...; -1 when none is set */
    bool json;              /* FRTRACE_FORMAT=json */
    int log_level;          /* FRTRACE_LOG */
    bool dump_on_exit;      /* FRTRACE_DUMP_ON_EXIT=1 (extension, default off) */
    int stacks;             /* FRTRACE_STACKS: REC_STACKS_* (every thread's stacks in dumps) */
} rec_config;

/* The configuration, loaded on first use (thread-safe). */
const rec_config *rec_config_get(void);

/* Parses a signal spelling ("USR2", "SIGUSR1", "12", "none"); -1 when it is not one. */
int rec_parse_signal(const char *text);

/* Logging to stderr with the "frtrace: " prefix, filtered by FRTRACE_LOG. Not signal-safe. */
void rec_log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
