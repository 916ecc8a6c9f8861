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
#include "wrap.h"

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

/* Lines end at a space or after ',' / ';', never inside a name; a word longer than the width
 * runs long whole; a shape is one word while the width allows, else it breaks at its spaces. */
static void a_wrap_never_cuts_a_name(void **state) {
    (void)state;
    size_t skip;
    const char *t = "waits in TENSOR_MODEL_PARALLEL_GROUP (37)";
    assert_int_equal(fa_wrap_next(t, strlen(t), 20, &skip), 8); /* "waits in" */
    assert_int_equal(skip, 1);
    t += 9;
    assert_int_equal(fa_wrap_next(t, strlen(t), 20, &skip), 27); /* the name, whole, past 20 */
    const char *ranks = "8,10-13,15,17";
    assert_int_equal(fa_wrap_next(ranks, strlen(ranks), 8, &skip), 8); /* "8,10-13," */
    const char *shape = "[[4096, 1, 5120]] -> [[8192, 1, 5120]]";
    assert_int_equal(fa_wrap_next(shape, strlen(shape), 20, &skip),
                     20); /* "[[4096, 1, 5120]] ->" */
    assert_int_equal(fa_wrap_next(shape, strlen(shape), 12, &skip), 10); /* "[[4096, 1," */
    assert_int_equal(fa_wrap_token("_reduce_scatter_base #4", 23), 20);
    assert_int_equal(fa_wrap_word("[[4, 4]] x", 10, true), 8);
    assert_int_equal(fa_wrap_word("[[4, 4]] x", 10, false), 4);
}

/* A column is never narrower than its longest word: a table that cannot fit runs long; two
 * columns joined read as one; columns of "-" only are dropped. */
static void tables_keep_words_whole(void **state) {
    (void)state;
    fa_table t;
    fa_table_init(&t, 3);
    fa_table_row(&t);
    fa_table_cell(&t, "group");
    fa_table_cell(&t, "op");
    fa_table_cell(&t, "dur");
    fa_table_row(&t);
    fa_table_cell(&t, "TENSOR_AND_DATA_PARALLEL_GROUP_WITH_CP (58)");
    fa_table_cell(&t, "all_reduce #6870");
    fa_table_cell(&t, "-");
    assert_false(fa_table_fits(&t, "  ", 40));
    assert_true(fa_table_fits(&t, "  ", 70));
    fa_table_drop_columns_of(&t, "-");
    assert_int_equal(t.ncols, 2);
    fa_table_join_columns(&t, 0);
    assert_int_equal(t.ncols, 1);
    sink s;
    open_sink(&s);
    fa_table_print_fit(&t, s.f, "", 30);
    close_sink(&s);
    assert_non_null(strstr(s.text, "TENSOR_AND_DATA_PARALLEL_GROUP_WITH_CP\n"));
    assert_non_null(strstr(s.text, "(58) all_reduce #6870\n"));
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
        cmocka_unit_test(a_wrap_never_cuts_a_name),
        cmocka_unit_test(tables_keep_words_whole),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
