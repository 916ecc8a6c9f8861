/* wrap.c — line breaking for the text report (see wrap.h). */
#include "wrap.h"

#include <stdlib.h>
#include <string.h>

#include "safe_text.h"

/* A line may end after ',' or ';' (rank lists "8,10-13,15", clauses) and at a space, never
 * inside a name: TENSOR_MODEL_PARALLEL_GROUP, _reduce_scatter_base and a path stay whole. */
static bool breaks_after(char c) { return c == ',' || c == ';'; }

size_t fa_wrap_token(const char *text, size_t len) {
    size_t i = 0;
    while (i < len && text[i] != ' ' && !breaks_after(text[i])) i++;
    return i < len && text[i] != ' ' ? i + 1 : i;
}

size_t fa_wrap_next(const char *text, size_t len, size_t width, size_t *skip) {
    *skip = 0;
    if (width == 0 || len <= width) return len;
    size_t end = 0; /* the longest line within the width that ends where a line may end */
    for (size_t i = width; i > 0 && !end; i--) {
        if (text[i] == ' ' && text[i - 1] != ' ') /* text[width] exists: len > width */
            end = i;
        else if (breaks_after(text[i - 1]) && text[i] != ' ')
            end = i;
    }
    if (!end) { /* a word longer than the width: the line runs long rather than cut it */
        end = fa_wrap_token(text, len);
        while (end == 0 && end < len && text[end] == ' ') end++;
    }
    while (end + *skip < len && text[end + *skip] == ' ') (*skip)++;
    return end;
}

void fa_wrap_print(FILE *out, const char *first, const char *indent, const char *raw,
                   size_t width) {
    char *shown = fr_text_shown(raw); /* text from the input is shown, never obeyed */
    if (!shown) return;
    const char *lead = first, *text = shown;
    size_t len = strlen(text);
    do {
        size_t room = width > strlen(lead) + 20 ? width - strlen(lead) : (width ? 20 : 0);
        size_t skip, n = fa_wrap_next(text, len, room, &skip);
        fprintf(out, "%s%.*s\n", lead, (int)n, text);
        text += n + skip;
        len -= n + skip;
        lead = indent;
    } while (len > 0);
    free(shown);
}
