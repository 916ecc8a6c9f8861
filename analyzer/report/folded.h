/* folded.h — `frtrace stacks`: every rank's threads at dump time as folded stacks.
 *
 * One line per distinct stack, "frame;frame;frame COUNT", root first, as flame-graph tools read
 * them (flamegraph.pl, speedscope, inferno): the root is the thread's name ("rank N" above it
 * with --by-rank), then its Python frames ("name (file.py:line)") and the native frames above the
 * interpreter, or for a thread without Python its native frames from the program's own code up
 * ("name", or "object+0xoffset" when unnamed). COUNT is how many threads, over all ranks, stand
 * in that stack; a thread whose stack was not captured counts under "[no stack]". Frame text from
 * the dumps is shown visibly (safe_text.h) and a ';' in it becomes ':', so that every line splits
 * into the frames it holds. Lines come sorted, so the output does not depend on load order.
 */
#ifndef FRTRACE_FOLDED_H
#define FRTRACE_FOLDED_H

#include <stdbool.h>
#include <stdio.h>

#include "report/report.h"

/* Writes the folded stacks of the loaded dumps (only --selected-ranks when given). 0, with
 * *nthreads the threads counted (0: no dump has stacks), or -1 out of memory or output error. */
int fa_report_folded(const fa_input *in, const fa_report_options *opt, bool by_rank, FILE *out,
                     size_t *nthreads);

#endif
