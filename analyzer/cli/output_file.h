/* output_file.h — where the CLI's output goes, and what it says when that fails.
 *
 * -o FILE (the database, stats, a timeline): '-' is stdout; a FIFO, a device or another
 * non-regular file that exists is written in place (never renamed over); anything else is
 * written through atomic_file.h — an exclusive temporary file in FILE's directory, fsync'ed and
 * renamed over FILE — so that a planted link is never followed and a failed write (a full
 * disk, a file-size limit) leaves the previous file as it was. Every failure, stdout's
 * included (a full disk, a closed pipe), is said on stderr with the file's name, shown safely
 * (safe_text.h), and the caller exits 2.
 */
#ifndef FRTRACE_OUTPUT_FILE_H
#define FRTRACE_OUTPUT_FILE_H

#include <stdbool.h>
#include <stdio.h>

/* Writes one output: 0 done, -1 failed (errno, or 0 when unknown). */
typedef int (*fa_output_fn)(void *ctx, FILE *out);

/* Runs fn on PATH ("-": stdout) as described above; 0, or -1 after the message on stderr. */
int fa_output_write(const char *path, fa_output_fn fn, void *ctx);

/* After output on stdout: flushes it; 0, or -1 after "frtrace: error writing to standard
 * output: ..." on stderr (a full disk, a closed pipe). */
int fa_output_stdout_done(void);

#endif
