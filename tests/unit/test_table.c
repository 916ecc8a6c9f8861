/* test_table.c — the report tables: text columns padded to their widest cell, trailing empty
 * cells not padded (no trailing blanks), a dashed rule under the header, wide cells of 1000
 * bytes, markdown with escaped '|' and newlines, and text cells in their terminal form. Printed
 * into memory with open_memstream. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "table.h"

typedef struct sink {
    char *text;
    size_t len;
    FILE *f;
} sink;

static void open_sink(sink *s) {
    s->text = NULL;
    s->f = open_memstream(&s->text, &s->len);
    assert_non_null(s->f);
}

static void close_sink(sink *s) { fclose(s->f); }

static void three_by_two(fa_table *t) {
    fa_table_init(t, 3);
    fa_table_row(t);
    fa_table_cell(t, "ranks");
    fa_table_cell(t, "state");
    fa_table_cell(t, "op");
    fa_table_row(t);
    fa_table_cell(t, "0-7");
    fa_table_cell(t, "scheduled");
    fa_table_cell(t, "nccl:all_reduce");
    fa_table_row(t);
    fa_table_cell(t, "%d", 12);
    fa_table_cell(t, "never issued");
    fa_table_cell(t, "%s", "");
}

static void text_columns_align_to_the_widest_cell(void **state) {
    fa_table t;
    three_by_two(&t);
    sink s;
    open_sink(&s);
    fa_table_print_text(&t, s.f, "  ");
    close_sink(&s);
    assert_string_equal(s.text, "  ranks  state         op\n"
                                "  -----  ------------  ---------------\n"
                                "  0-7    scheduled     nccl:all_reduce\n"
                                "  12     never issued\n");
    free(s.text);
    fa_table_free(&t);
}

static void wide_cells_widen_their_column_only(void **state) {
    fa_table t;
    fa_table_init(&t, 2);
    fa_table_row(&t);
    fa_table_cell(&t, "a");
    fa_table_cell(&t, "b");
    char wide[1001];
    memset(wide, 'x', 1000);
    wide[1000] = '\0';
    fa_table_row(&t);
    fa_table_cell(&t, "%s", wide);
    fa_table_cell(&t, "1");
    sink s;
    open_sink(&s);
    fa_table_print_text(&t, s.f, "");
    close_sink(&s);
    const char *second = strchr(s.text, '\n') + 1, *third = strchr(second, '\n') + 1;
    assert_int_equal(strchr(s.text, 'b') - s.text, 1002); /* "a" padded to 1000, then two blanks */
    assert_int_equal(strchr(second, '\n') - second, 1003);
    assert_int_equal(third[1002], '1');
    free(s.text);
    fa_table_free(&t);
}

static void markdown_escapes_pipes_and_newlines(void **state) {
    fa_table t;
    fa_table_init(&t, 2);
    fa_table_row(&t);
    fa_table_cell(&t, "k");
    fa_table_cell(&t, "v");
    fa_table_row(&t);
    fa_table_cell(&t, "a|b");
    fa_table_cell(&t, "line\nbreak");
    sink s;
    open_sink(&s);
    fa_table_print_markdown(&t, s.f);
    close_sink(&s);
    /* cells of the input's text are code spans: the pipe escaped, the newline shown as \n */
    assert_string_equal(s.text, "| k | v |\n| --- | --- |\n| `a\\|b` | `line\\nbreak` |\n");
    free(s.text);
    fa_table_free(&t);
}

static void a_header_only_table_prints_header_and_rule(void **state) {
    fa_table t;
    fa_table_init(&t, 2);
    fa_table_row(&t);
    fa_table_cell(&t, "id");
    fa_table_cell(&t, "desc");
    sink s;
    open_sink(&s);
    fa_table_print_text(&t, s.f, "");
    close_sink(&s);
    assert_string_equal(s.text, "id  desc\n--  ----\n");
    free(s.text);
    fa_table_free(&t);
}

static void text_cells_are_shown_never_obeyed(void **state) {
    fa_table t;
    fa_table_init(&t, 2);
    fa_table_row(&t);
    fa_table_cell(&t, "k");
    fa_table_cell(&t, "v");
    fa_table_row(&t);
    fa_table_cell(&t, "\x1b[2J");
    fa_table_cell(&t, "a\nb");
    sink s;
    open_sink(&s);
    fa_table_print_text(&t, s.f, "");
    close_sink(&s);
    assert_string_equal(s.text, "k        v\n-------  ----\n\\x1b[2J  a\\nb\n");
    free(s.text);
    fa_table_free(&t);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(text_columns_align_to_the_widest_cell),
        cmocka_unit_test(wide_cells_widen_their_column_only),
        cmocka_unit_test(markdown_escapes_pipes_and_newlines),
        cmocka_unit_test(a_header_only_table_prints_header_and_rule),
        cmocka_unit_test(text_cells_are_shown_never_obeyed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
