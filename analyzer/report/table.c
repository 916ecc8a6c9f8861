/* table.c — aligned text and markdown tables (see table.h). */
#include "table.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "wrap.h"
#include "grow.h"
#include "safe_text.h"

void fa_table_init(fa_table *t, size_t ncols) {
    memset(t, 0, sizeof *t);
    t->ncols = ncols ? ncols : 1;
}

void fa_table_row(fa_table *t) {
    if (fr_grow((void **)&t->cells, &t->cap, (t->nrows + 1) * t->ncols, sizeof *t->cells,
                t->ncols * 16))
        return;
    for (size_t c = 0; c < t->ncols; c++) t->cells[t->nrows * t->ncols + c] = NULL;
    t->nrows++;
    t->col = 0;
}

void fa_table_cell(fa_table *t, const char *fmt, ...) {
    if (t->nrows == 0 || t->col >= t->ncols) return;
    va_list ap;
    va_start(ap, fmt);
    char *text = NULL;
    if (vasprintf(&text, fmt, ap) < 0) text = NULL;
    va_end(ap);
    t->cells[(t->nrows - 1) * t->ncols + t->col++] = text;
}

static const char *cell(const fa_table *t, size_t r, size_t c) {
    const char *s = t->cells[r * t->ncols + c];
    return s ? s : "";
}

void fa_table_print_text(const fa_table *t, FILE *out, const char *indent) {
    fa_table_print_fit(t, out, indent, 0);
}

/* The narrowest a column gets: its longest word (fa_wrap_token) in any cell, the header's too,
 * and at least 5, so that no name is ever cut in two. */
static size_t least_width(const fa_table *t, size_t c, bool keep_brackets) {
    size_t longest = 5;
    for (size_t r = 0; r < t->nrows; r++) {
        const char *s = cell(t, r, c);
        for (size_t left = strlen(s), n; left > 0; s += n, left -= n) {
            n = fa_wrap_word(s, left, keep_brackets);
            if (n > longest) longest = n;
            if (n == 0) n = 1; /* a space */
        }
    }
    return longest;
}

/* The least widths of the columns, as wide as the room allows: whole cells in the columns that
 * keep them whole (tier 0), else whole shapes (1), else words (2), up to tier `last`. Returns
 * their sum with the gaps. */
static size_t least_widths(const fa_table *t, const size_t *natural, size_t room, int last,
                           size_t *least) {
    size_t sum = 0;
    for (int tier = 0; tier <= last; tier++) {
        sum = 0;
        for (size_t c = 0; c < t->ncols; c++) {
            bool whole = tier == 0 && c < 64 && (t->whole >> c & 1);
            least[c] = whole ? natural[c] : least_width(t, c, tier < 2);
            sum += least[c] + (c + 1 < t->ncols ? 2 : 0);
        }
        if (!room || sum <= room) break;
    }
    return sum;
}

/* Natural widths (widest cell), then the widest column that can still give one up, one column at
 * a time, until the row fits: the rest of a cell wraps onto continuation lines. A column never
 * gets narrower than its longest word: when every column is at its least the row runs long. */
static void fit_widths(const fa_table *t, size_t *width, size_t room) {
    size_t total = 0, *least = calloc(t->ncols, sizeof *least);
    if (!least) return;
    for (size_t c = 0; c < t->ncols; c++) {
        for (size_t r = 0; r < t->nrows; r++)
            if (strlen(cell(t, r, c)) > width[c]) width[c] = strlen(cell(t, r, c));
        total += width[c] + (c + 1 < t->ncols ? 2 : 0);
    }
    least_widths(t, width, room, 2, least);
    while (room && total > room) {
        size_t widest = t->ncols;
        for (size_t c = 0; c < t->ncols; c++)
            if (width[c] > least[c] && (widest == t->ncols || width[c] > width[widest])) widest = c;
        if (widest == t->ncols) break; /* every column at its least: let the row run long */
        width[widest]--;
        total--;
    }
    free(least);
}

void fa_table_keep_whole(fa_table *t, size_t c) {
    if (c < 64) t->whole |= (uint64_t)1 << c;
}

bool fa_table_fits(const fa_table *t, const char *indent, size_t width) {
    if (!width) return true;
    size_t room = width > strlen(indent) ? width - strlen(indent) : 1;
    size_t *natural = calloc(t->ncols, sizeof *natural), *least = calloc(t->ncols, sizeof *least);
    bool fits = natural && least;
    for (size_t c = 0; fits && c < t->ncols; c++)
        for (size_t r = 0; r < t->nrows; r++)
            if (strlen(cell(t, r, c)) > natural[c]) natural[c] = strlen(cell(t, r, c));
    if (fits) fits = least_widths(t, natural, room, 1, least) <= room; /* shapes whole */
    free(natural);
    free(least);
    return fits;
}

/* Removes column c: its cells freed, the rows compacted. */
static void remove_column(fa_table *t, size_t c) {
    size_t n = t->ncols - 1;
    for (size_t r = 0; r < t->nrows; r++) free(t->cells[r * t->ncols + c]);
    for (size_t r = 0; r < t->nrows; r++)
        for (size_t k = 0; k < t->ncols; k++)
            if (k != c) t->cells[r * n + (k > c ? k - 1 : k)] = t->cells[r * t->ncols + k];
    uint64_t low = t->whole & (((uint64_t)1 << c) - 1), high = c + 1 < 64 ? t->whole >> (c + 1) : 0;
    t->whole = low | high << c;
    t->ncols = n;
}

void fa_table_drop_columns_of(fa_table *t, const char *blank) {
    if (t->nrows < 2) return; /* a header alone says nothing about the values */
    for (size_t c = t->ncols; c-- > 0 && t->ncols > 1;) {
        bool all = true;
        for (size_t r = 1; r < t->nrows && all; r++) all = strcmp(cell(t, r, c), blank) == 0;
        if (all) remove_column(t, c);
    }
}

void fa_table_join_columns(fa_table *t, size_t c) {
    if (c + 1 >= t->ncols) return;
    for (size_t r = 0; r < t->nrows; r++) {
        char **a = &t->cells[r * t->ncols + c], *b = t->cells[r * t->ncols + c + 1], *both = NULL;
        if (b && *b && asprintf(&both, "%s%s%s", *a ? *a : "", *a && **a ? " " : "", b) >= 0) {
            free(*a);
            *a = both;
        }
    }
    remove_column(t, c + 1);
}

/* One table row, its cells wrapped to their columns' widths, as many lines as the tallest. */
static void print_row(const fa_table *t, size_t r, const size_t *width, FILE *out,
                      const char *indent) {
    const char *rest[64];
    size_t left[64], ncols = t->ncols < 64 ? t->ncols : 64, last = ncols;
    while (last > 1 && !*cell(t, r, last - 1)) last--;
    for (size_t c = 0; c < ncols; c++) {
        rest[c] = cell(t, r, c);
        left[c] = strlen(rest[c]);
    }
    bool more = true;
    while (more) {
        more = false;
        fputs(indent, out);
        size_t pending_pad = 0;
        for (size_t c = 0; c < last; c++) {
            size_t skip, n = fa_wrap_next(rest[c], left[c], width[c], &skip);
            if (n) {
                fprintf(out, "%*s%.*s", (int)pending_pad, "", (int)n, rest[c]);
                pending_pad = 0;
            }
            pending_pad += width[c] - (n < width[c] ? n : width[c]) + 2;
            rest[c] += n + skip;
            left[c] -= n + skip;
            more |= left[c] > 0;
        }
        fputc('\n', out);
    }
}

/* The table as shown: every cell in its terminal form (safe_text.h), so that widths count what
 * is printed and nothing a cell holds acts on the terminal. */
static bool shown_copy(const fa_table *t, fa_table *shown) {
    *shown = *t;
    shown->cells = calloc(t->nrows * t->ncols + 1, sizeof *shown->cells);
    if (!shown->cells) {
        shown->nrows = 0;
        return false;
    }
    for (size_t i = 0; i < t->nrows * t->ncols; i++)
        if (t->cells[i] && !(shown->cells[i] = fr_text_shown(t->cells[i]))) return false;
    return true;
}

void fa_table_print_fit(const fa_table *raw, FILE *out, const char *indent, size_t width) {
    fa_table shown = { 0 };
    size_t *widths = calloc(raw->ncols, sizeof *widths);
    if (!widths || !shown_copy(raw, &shown)) {
        free(widths);
        fa_table_free(&shown);
        return;
    }
    const fa_table *t = &shown;
    size_t room = width > strlen(indent) ? width - strlen(indent) : 0;
    fit_widths(t, widths, width ? (room ? room : 1) : 0);
    for (size_t r = 0; r < t->nrows; r++) {
        print_row(t, r, widths, out, indent);
        if (r == 0) {
            fputs(indent, out);
            for (size_t c = 0; c < t->ncols; c++) {
                for (size_t k = 0; k < widths[c]; k++) fputc('-', out);
                if (c + 1 < t->ncols) fputs("  ", out);
            }
            fputc('\n', out);
        }
    }
    free(widths);
    fa_table_free(&shown);
}

/* A header cell is our own text; the others may hold the input's: a code span unless inert
 * (safe_text.h's fr_md_text). */
static void markdown_cell(FILE *out, const char *s, bool header) {
    fputc(' ', out);
    if (header)
        fputs(s, out);
    else
        fr_md_text(out, s, true);
    fputs(" |", out);
}

void fa_table_print_markdown(const fa_table *t, FILE *out) {
    for (size_t r = 0; r < t->nrows; r++) {
        fputc('|', out);
        for (size_t c = 0; c < t->ncols; c++) markdown_cell(out, cell(t, r, c), r == 0);
        fputc('\n', out);
        if (r == 0) {
            fputc('|', out);
            for (size_t c = 0; c < t->ncols; c++) fputs(" --- |", out);
            fputc('\n', out);
        }
    }
}

void fa_table_free(fa_table *t) {
    for (size_t i = 0; i < t->nrows * t->ncols; i++) free(t->cells[i]);
    free(t->cells);
    memset(t, 0, sizeof *t);
}

/* A Jira cell: our header words as they are, the others as fr_jira_text (an empty cell holds a
 * space: "||" would be read as a header cell). */
void fa_table_print_jira(const fa_table *t, FILE *out) {
    for (size_t r = 0; r < t->nrows; r++) {
        const char *bar = r == 0 ? "||" : "|";
        fputs(bar, out);
        for (size_t c = 0; c < t->ncols; c++) {
            const char *s = cell(t, r, c);
            if (r == 0)
                fputs(s, out);
            else if (*s)
                fr_jira_text(out, s, true);
            else
                fputc(' ', out);
            fputs(bar, out);
        }
        fputc('\n', out);
    }
}
