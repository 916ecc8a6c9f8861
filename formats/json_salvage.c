/* json_salvage.c — the cut point of a truncated JSON text (json_salvage.h).
 *
 * One pass that knows strings (and their escapes) from the rest keeps the stack of open
 * brackets. A cut point is a place where every value so far is complete: right after '[' or
 * '{', right after a closing bracket, or right before a ',' . At each cut point the stack is
 * remembered; only the part that changed since the last one is copied (between two cut points
 * at most one bracket is pushed, and every pop is itself a cut point), so the pass stays linear.
 * If the text ends with brackets open, the last cut point and its stack are the answer.
 */
#include "json_salvage.h"

#include <stdlib.h>
#include <string.h>

bool json_truncation_cut(const char *text, size_t len, size_t max_depth, json_cut *cut) {
    char *stack = malloc(max_depth + 1), *saved = malloc(max_depth + 1);
    size_t depth = 0, saved_depth = 0, low = 0, cut_at = 0;
    bool in_string = false, escaped = false, found = false, broken = false, started = false;
    if (!stack || !saved) goto done;
    for (size_t i = 0; i < len && !broken; i++) {
        char c = text[i];
        if (in_string) {
            if (escaped)
                escaped = false;
            else if (c == '\\')
                escaped = true;
            else if (c == '"')
                in_string = false;
            continue;
        }
        size_t mark = (size_t)-1; /* a cut point: keep text[0, mark) */
        if (c == '"') {
            in_string = true;
        } else if (c == '[' || c == '{') {
            if (depth >= max_depth || (depth == 0 && started)) broken = true;
            started = true;
            if (!broken) stack[depth++] = c, mark = i + 1;
        } else if (c == ']' || c == '}') {
            if (!depth || stack[depth - 1] != (c == ']' ? '[' : '{')) broken = true;
            if (!broken) depth--, mark = i + 1;
            if (depth < low) low = depth;
        } else if (c == ',' && depth) {
            mark = i;
        }
        if (mark != (size_t)-1 && depth) {
            size_t from = low < saved_depth ? low : saved_depth;
            memcpy(saved + from, stack + from, depth - from);
            saved_depth = depth;
            low = depth;
            cut_at = mark;
            found = true;
        }
    }
    found = found && !broken && (depth > 0 || in_string) && saved_depth > 0;
    if (found) {
        cut->at = cut_at;
        cut->nclosers = saved_depth;
        cut->closers = malloc(saved_depth + 1);
        found = cut->closers != NULL;
        for (size_t k = 0; found && k < saved_depth; k++)
            cut->closers[k] = saved[saved_depth - 1 - k] == '[' ? ']' : '}';
    }
done:
    free(stack);
    free(saved);
    return found;
}
