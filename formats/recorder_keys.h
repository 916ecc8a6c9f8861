/* recorder_keys.h — the words a recorder dump uses to say why it was written and how its
 * communicators stand, typed once for the writer (recorder/) and the reader (analyzer/).
 *
 * A dump's "trigger" says what made the recorder write it (man/libfrtrace-recorder.7 and
 * man/frtrace.1 list them for users); a communicator's "state" is a plain state
 * name, or FR_COMM_ASYNC_ERROR ":" and the ncclResult_t name once NCCL reported an asynchronous
 * error. The analyzer's verdict reads three of them as the rank's own account of itself:
 * FR_TRIGGER_FATAL_PREFIX (the process died by that signal), FR_TRIGGER_STUCK_IN_API and an
 * FR_COMM_ASYNC_ERROR_PREFIX state. They are macros so that they join other literals at
 * compile time (the recorder's fatal-signal handler may not build strings).
 */
#ifndef FRTRACE_RECORDER_KEYS_H
#define FRTRACE_RECORDER_KEYS_H

/* --- triggers --- */
#define FR_TRIGGER_TIMEOUT      "timeout"            /* the watchdog's timeout with work pending */
#define FR_TRIGGER_STUCK_IN_API "stuck_in_api"       /* a thread inside one NCCL call too long */
#define FR_TRIGGER_SIGNAL       "signal"             /* the dump signal (SIGUSR2 by default) */
#define FR_TRIGGER_FILE         "trigger_file"       /* the trigger file appeared */
#define FR_TRIGGER_ASYNC_ERROR  "async_error"        /* a communicator reported an async error */
#define FR_TRIGGER_EXIT         "exit"               /* the process exited */
#define FR_TRIGGER_FATAL        "fatal"              /* a fatal signal, its number unknown */
#define FR_TRIGGER_FATAL_PREFIX FR_TRIGGER_FATAL ":" /* then the signal's number: "fatal:11" */

/* --- communicator states --- */
#define FR_COMM_LIVE               "live" /* made, in use */
#define FR_COMM_ASYNC_ERROR        "async_error"
#define FR_COMM_ASYNC_ERROR_PREFIX FR_COMM_ASYNC_ERROR ":" /* then the ncclResult_t name */
/* The ncclResult_t name NCCL reports for "a problem on a remote peer", what the survivors of a
 * peer that died see: the analyzer reads it beside a member's crash as that crash's. */
#define FR_NCCL_REMOTE_ERROR "ncclRemoteError"

/* --- NCCL calls a thread can be stuck in outside the recorded operations --- */
/* Those that make a communicator, then those that end one, in the order of the recorder's
 * rec_api enum (recorder/inflight.h), which names them by these lists; the analyzer reads the
 * same names off a dump's stacks (analyzer/verdict/verdict_setup.c: a rank still making a
 * communicator its peers made). */
#define FR_NCCL_MAKING_CALLS                                                                       \
    "ncclCommInitRank", "ncclCommInitRankConfig", "ncclCommInitRankScalable", "ncclCommInitAll",   \
        "ncclCommSplit", "ncclCommShrink"
#define FR_NCCL_MAKING_COUNT 6
#define FR_NCCL_ENDING_CALLS                                                                       \
    "ncclCommFinalize", "ncclCommDestroy", "ncclCommAbort", "ncclCommRevoke", "ncclGroupEnd"

#endif
