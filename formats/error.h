/* error.h — the error every reader and writer in formats/ reports, and the one way to fill it.
 *
 * A problem gives one message in an fr_error; the caller adds the file's path in front. The
 * type is shared by every reader and writer so that errors travel up unchanged. fr_fail()
 * formats the message and returns -1, so that `return fr_fail(err, "...", ...);` reports and
 * fails in one statement; fr_fail_text() copies a fixed message without formatting, which is
 * async-signal-safe (no stdio, no malloc) for the pickle writer that may run inside a fatal
 * signal's handler. Both accept a NULL err (nothing is written then).
 */
#ifndef FRTRACE_ERROR_H
#define FRTRACE_ERROR_H

/* An error message for the user; the caller adds the file's path in front. */
typedef struct fr_error {
    char msg[512];
} fr_error;

/* Formats the message into err (truncated to fit); returns -1. */
int fr_fail(fr_error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Copies msg into err (truncated to fit) with no formatting; async-signal-safe; returns -1. */
int fr_fail_text(fr_error *err, const char *msg);

#endif
