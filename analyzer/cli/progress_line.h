/* progress_line.h — "frtrace: reading dumps: 1 024 of 16 384 files, 812 MB" on stderr while an
 * analysis runs long (progress_line.c). */
#ifndef FRTRACE_PROGRESS_LINE_H
#define FRTRACE_PROGRESS_LINE_H

#include <stdbool.h>

#include "progress.h"

typedef struct fa_progress_line fa_progress_line;

/* Starts watching p: once delay_ms have passed, and only when stderr is a terminal, a line on
 * stderr says what the analysis does, rewritten in place a few times a second. NULL (nothing
 * to stop) when stderr is no terminal or a thread cannot start. */
fa_progress_line *fa_progress_line_start(fa_progress *p, long delay_ms);
/* Stops watching and erases the line if one was shown, so that messages and the report start
 * on a clean line. NULL does nothing. */
void fa_progress_line_stop(fa_progress_line *line);

#endif
