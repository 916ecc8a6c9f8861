/* table.h — aligned text tables and GitHub-flavoured markdown tables, written by us.
 *
 * Build a table cell by cell (fa_table_cell appends to the current row; fa_table_row starts a
 * new one), then print it: fa_table_print_text pads columns to their widest cell (UTF-8 aware
 * enough for ASCII data), each cell in its terminal form (safe_text.h: text from the input is
 * shown, never obeyed); fa_table_print_markdown writes `| a | b |` with a separator row, each
 * cell but the header's as safe_text.h's fr_md_text (a code span unless plain words or ranks).
 * The first row is the header, our own text.
 */
#ifndef FRTRACE_TABLE_H
#define FRTRACE_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef struct fa_table {
    char **cells; /* row-major, ncols per row */
    size_t ncols, nrows, cap;
    size_t col;     /* next column of the current row */
    uint64_t whole; /* bit c: column c's cells stay on one line when the table still fits */
} fa_table;

void fa_table_init(fa_table *t, size_t ncols);
void fa_table_row(fa_table *t);
void fa_table_cell(fa_table *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void fa_table_print_text(const fa_table *t, FILE *out, const char *indent);
/* The same within `width` columns (0: no limit): columns give up width, widest first, down to
 * the longest word of any of their cells, and cells (headers too) wrap onto continuation lines
 * between words; no character is dropped and no name is cut (wrap.h). */
void fa_table_print_fit(const fa_table *t, FILE *out, const char *indent, size_t width);
/* Whether the table fits in `width` columns after `indent` with no name or shape split (0:
 * always). */
bool fa_table_fits(const fa_table *t, const char *indent, size_t width);
/* Column c+1's cells appended to column c's after a space (the header's too), and column c+1
 * removed: a narrow terminal reads "TENSOR_MODEL_PARALLEL_GROUP (37) all_reduce #4" in one
 * column where two would not fit. */
void fa_table_join_columns(fa_table *t, size_t c);
/* Every column whose cells below the header all read `blank` ("-": no dump had the value) is
 * removed, so that a table shows only what the dumps say. */
void fa_table_drop_columns_of(fa_table *t, const char *blank);
/* Column c's cells (shapes "[[4096, 1, 5120]]") are kept on one line where the table fits so;
 * on a terminal too narrow for that they wrap between words like the others. */
void fa_table_keep_whole(fa_table *t, size_t c);
void fa_table_print_markdown(const fa_table *t, FILE *out);
/* Jira/Confluence wiki markup: "||a||b||" then "|x|y|" rows, each cell but the header's as
 * safe_text.h's fr_jira_text (monospace and escaped unless plain words or ranks). */
void fa_table_print_jira(const fa_table *t, FILE *out);
void fa_table_free(fa_table *t);

#endif
