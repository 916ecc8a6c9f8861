/* wrap.c — line breaking for the text report (see wrap.h). */
#include "wrap.h"

#include <stdlib.h>
#include <string.h>

#include "safe_text.h"

static int breaks_after(char c) { return c == ',' || c == '/' || c == ';' || c == ')' || c == '_'; }

size_t fa_wrap_next(const char *text, size_t len, size_t width, size_t *skip) {
    *skip = 0;
    if (width == 0 || len <= width) return len;
    size_t at = 0;
    for (size_t i = width; i > 0 && !at; i--)
        if (text[i] == ' ') at = i; /* text[width] exists: len > width */
    if (at) {
        size_t end = at;
        while (end > 0 && text[end - 1] == ' ') end--;
        while (at + *skip < len && text[at + *skip] == ' ') (*skip)++;
        if (end) return end;
    }
    for (size_t i = width; i > 0; i--)
        if (breaks_after(text[i - 1])) return i;
    size_t cut = width; /* never inside a UTF-8 sequence: each line stays valid text */
    while (cut > 1 && ((unsigned char)text[cut] & 0xC0) == 0x80) cut--;
    return cut;
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
