/* error.h — the error every reader and writer in formats/ reports, and the one way to fill it.
 *
 * A problem gives one message in an fr_error; the caller adds the file's path in front. The
 * type is shared by every reader and writer so that errors travel up unchanged. fr_fail()
 * formats the message and returns -1, so that `return fr_fail(err, "...", ...);` reports and
 * fails in one statement; fr_fail_text() copies a fixed message without formatting, which is
 * async-signal-safe (no stdio, no malloc) for the pickle writer that may run inside a fatal
 * signal's handler. fr_clear() empties it (a reader starts clean, so that a caller can tell
 * "failed and said why" from "failed without a word"); fr_fail_prefix() puts context in front
 * of a message already there. All accept a NULL err (nothing is written then). These are the
 * only code that writes an fr_error's msg (t0111 checks it): a message is made in one place.
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
/* Empties err's message. */
void fr_clear(fr_error *err);
/* Puts prefix in front of err's message (the message's end is cut to fit); returns -1. */
int fr_fail_prefix(fr_error *err, const char *prefix);

#endif
