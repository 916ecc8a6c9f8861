/* table.c — aligned text and markdown tables (see table.h). */
#include "table.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void fa_table_init(fa_table *t, size_t ncols) {
    memset(t, 0, sizeof *t);
    t->ncols = ncols ? ncols : 1;
}

void fa_table_row(fa_table *t) {
    if ((t->nrows + 1) * t->ncols > t->cap) {
        size_t cap = t->cap ? t->cap * 2 : t->ncols * 16;
        while (cap < (t->nrows + 1) * t->ncols) cap *= 2;
        char **cells = realloc(t->cells, cap * sizeof *cells);
        if (!cells) return;
        t->cells = cells;
        t->cap = cap;
    }
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
    size_t *width = calloc(t->ncols, sizeof *width);
    if (!width) return;
    for (size_t r = 0; r < t->nrows; r++)
        for (size_t c = 0; c < t->ncols; c++)
            if (strlen(cell(t, r, c)) > width[c]) width[c] = strlen(cell(t, r, c));
    for (size_t r = 0; r < t->nrows; r++) {
        fputs(indent, out);
        size_t last = t->ncols;
        while (last > 1 && !*cell(t, r, last - 1)) last--;
        for (size_t c = 0; c < last; c++) {
            if (c + 1 == last) fputs(cell(t, r, c), out);
            else fprintf(out, "%-*s  ", (int)width[c], cell(t, r, c));
        }
        fputc('\n', out);
        if (r == 0) {
            fputs(indent, out);
            for (size_t c = 0; c < t->ncols; c++) {
                for (size_t k = 0; k < width[c]; k++) fputc('-', out);
                if (c + 1 < t->ncols) fputs("  ", out);
            }
            fputc('\n', out);
        }
    }
    free(width);
}

static void markdown_cell(FILE *out, const char *s) {
    fputc(' ', out);
    for (; *s; s++) {
        if (*s == '|') fputs("\\|", out);
        else if (*s == '\n') fputc(' ', out);
        else fputc(*s, out);
    }
    fputs(" |", out);
}

void fa_table_print_markdown(const fa_table *t, FILE *out) {
    for (size_t r = 0; r < t->nrows; r++) {
        fputc('|', out);
        for (size_t c = 0; c < t->ncols; c++) markdown_cell(out, cell(t, r, c));
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
