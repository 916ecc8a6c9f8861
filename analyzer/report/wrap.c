/* wrap.c — line breaking for the text report (see wrap.h). */
#include "wrap.h"

#include <stdlib.h>
#include <string.h>

#include "safe_text.h"

/* A line may end after ',' or ';' (rank lists "8,10-13,15", clauses) and at a space, never
 * inside a name: TENSOR_MODEL_PARALLEL_GROUP, _reduce_scatter_base and a path stay whole. */
static bool breaks_after(char c) { return c == ',' || c == ';'; }

/* A shape "[[4096, 1, 5120]]" is one word too where the width allows, unless it is longer than
 * this (a coalesced op's hundred tensors): then it breaks after its commas like a rank list. */
enum { BRACKETED_WORD_MAX = 40 };

size_t fa_wrap_word(const char *text, size_t len, bool keep_brackets) {
    size_t i = 0, depth = 0;
    for (; i < len; i++) {
        char c = text[i];
        depth += c == '[';
        if (c == ']' && depth) depth--;
        bool inside = keep_brackets && depth > 0 && i < BRACKETED_WORD_MAX;
        if (c == ' ' && !inside) return i;
        if (breaks_after(c) && !inside) return i + 1;
    }
    return i;
}

size_t fa_wrap_token(const char *text, size_t len) { return fa_wrap_word(text, len, true); }

/* The longest run of whole words from text[0] within width; 0 when the first word is longer. */
static size_t fill(const char *text, size_t len, size_t width, bool keep_brackets, size_t *first) {
    size_t end = 0;
    *first = 0;
    for (size_t at = 0, n; at < len; at += n) {
        n = fa_wrap_word(text + at, len - at, keep_brackets);
        if (n == 0) { /* a space */
            n = 1;
            continue;
        }
        if (!*first) *first = at + n;
        if (at + n > width) break;
        end = at + n;
    }
    return end;
}

size_t fa_wrap_next(const char *text, size_t len, size_t width, size_t *skip) {
    *skip = 0;
    if (width == 0 || len <= width) return len;
    size_t first, end = fill(text, len, width, true, &first);
    if (!end) end = fill(text, len, width, false, &first); /* a shape may break at its spaces */
    if (!end) end = first; /* a word longer than the width runs long, whole */
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
