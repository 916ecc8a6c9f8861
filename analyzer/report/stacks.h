/* stacks.h — stack frames of one operation merged across ranks.
 *
 * Ranks whose frames for an op are identical share one block: "ranks 0-7,9:" then the frames
 * innermost first, "name at file:line", names and files in their terminal form (safe_text.h:
 * shown, never obeyed; each frame one line). Keeps thousand-rank reports short.
 */
#ifndef FRTRACE_STACKS_H
#define FRTRACE_STACKS_H

#include <stdio.h>

#include "analysis.h"

/* Writes the merged frames of op's calls, each line prefixed by `indent`. */
void fa_stacks_print(const fa_analysis *a, long op, FILE *out, const char *indent);

#endif
