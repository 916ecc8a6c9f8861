/* test_json.c — json_read (exact ints through cJSON, NaN/Infinity, \u0000, surrogates, limits,
 * error offsets) and json_write (Python's json.dumps byte for byte: floats, escapes, keys,
 * pretty layout, refusals that print nothing). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_read.h"
#include "json_salvage.h"
#include "json_write.h"
#include "value.h"

/* JSON text of `v` (malloc'd), or "ERR: msg". */
static char *write_json(fv *v, bool pretty) {
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    fr_error err;
    int rc = fv_write_json(f, v, pretty, 1u << 20, &err);
    fclose(f);
    if (rc) {
        assert_int_equal(len, 0); /* nothing written on error */
        free(text);
        text = malloc(600);
        snprintf(text, 600, "ERR: %s", err.msg);
    }
    return text;
}

/* json_read then json_write, or "ERR: msg". */
static char *reshow(const char *in) {
    fv_arena *a = fv_arena_new();
    fv *root;
    fr_error err;
    char *out;
    if (json_read(in, strlen(in), a, &root, &err) == 0) {
        out = write_json(root, false);
    } else {
        out = malloc(600);
        snprintf(out, 600, "ERR: %s", err.msg);
    }
    fv_arena_free(a);
    return out;
}

#define assert_reshows(in, want)                                                                   \
    do {                                                                                           \
        char *got_ = reshow(in);                                                                   \
        assert_string_equal(got_, want);                                                           \
        free(got_);                                                                                \
    } while (0)

static void floats_print_as_python_repr(void **state) {
    static const struct {
        double d;
        const char *repr;
    } cases[] = {
        { 0.0, "0.0" },
        { -0.0, "-0.0" },
        { 1.0, "1.0" },
        { 1.5, "1.5" },
        { 0.1, "0.1" },
        { 1e16, "1e+16" },
        { 1e15, "1000000000000000.0" },
        { 9999999999999998.0, "9999999999999998.0" },
        { 1e-4, "0.0001" },
        { 1e-5, "1e-05" },
        { 1.5e300, "1.5e+300" },
        { 5e-324, "5e-324" },
        { 1.7976931348623157e308, "1.7976931348623157e+308" },
        { 2.2250738585072014e-308, "2.2250738585072014e-308" },
        { 123456789.125, "123456789.125" },
        { 0.0368579737842083, "0.0368579737842083" },
        { 1.0 / 3, "0.3333333333333333" },
        { -2.5e-7, "-2.5e-07" },
        { 1e22, "1e+22" },
        { 1e23, "1e+23" },
        { INFINITY, "Infinity" },
        { -INFINITY, "-Infinity" },
        { NAN, "NaN" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char buf[40];
        fv_format_float(cases[i].d, buf);
        assert_string_equal(buf, cases[i].repr);
    }
}

static void strings_escape_as_ensure_ascii(void **state) {
    fv_arena *a = fv_arena_new();
    static const char s[] =
        "a\"\\/\n\r\t\b\f\x01\x1f\x7f\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\xed\xa0\x80";
    fv *v = fv_str(a, s, sizeof s - 1);
    char *t = write_json(v, false);
    assert_string_equal(
        t, "\"a\\\"\\\\/\\n\\r\\t\\b\\f\\u0001\\u001f\\u007f\\u00e9\\u20ac\\ud83d\\ude00\\ud800\"");
    free(t);
    fv_arena_free(a);
}

static void keys_convert_as_json_dumps_does(void **state) {
    fv_arena *a = fv_arena_new();
    fv *d = fv_dict(a);
    fv_dict_set(a, d, fv_int(a, -7), fv_none(a));
    fv_dict_set(a, d, fv_float(a, 1.5), fv_none(a));
    fv_dict_set(a, d, fv_bool(a, false), fv_none(a));
    fv_dict_set(a, d, fv_none(a), fv_none(a));
    fv_dict_set(a, d, fv_float(a, INFINITY), fv_none(a));
    char *t = write_json(d, false);
    assert_string_equal(
        t, "{\"-7\": null, \"1.5\": null, \"false\": null, \"null\": null, \"Infinity\": null}");
    free(t);
    fv *bad = fv_dict(a);
    fv_dict_set(a, bad, fv_tuple(a), fv_none(a));
    t = write_json(bad, false);
    assert_string_equal(t, "ERR: keys must be str, int, float, bool or None, not tuple");
    free(t);
    fv_arena_free(a);
}

static void pretty_is_indent_2(void **state) {
    fv_arena *a = fv_arena_new();
    fv *root;
    fr_error err;
    static const char in[] = "{\"a\": [1, [], {}, [2]], \"b\": {\"c\": null}}";
    assert_int_equal(json_read(in, sizeof in - 1, a, &root, &err), 0);
    char *t = write_json(root, true);
    assert_string_equal(t, "{\n  \"a\": [\n    1,\n    [],\n    {},\n    [\n      2\n    ]\n  ],\n"
                           "  \"b\": {\n    \"c\": null\n  }\n}");
    free(t);
    fv_arena_free(a);
}

static void cycles_and_memo_bombs_are_refused(void **state) {
    fv_arena *a = fv_arena_new();
    fv *l = fv_list(a);
    fv_seq_push(a, l, l);
    char *t = write_json(l, false);
    assert_non_null(strstr(t, "ERR: value is cyclic"));
    free(t);
    fv *x = fv_list(a);
    for (int i = 0; i < 80; i++) {
        fv *pair = fv_tuple(a);
        fv_seq_push(a, pair, x);
        fv_seq_push(a, pair, x);
        x = pair;
    }
    t = write_json(x, false);
    assert_non_null(strstr(t, "ERR: value is cyclic or would print more than"));
    free(t);
    fv_arena_free(a);
}

static void depth_is_bounded_both_ways(void **state) {
    size_t n = 1001;
    char *deep = malloc(2 * n + 1);
    memset(deep, '[', n);
    memset(deep + n, ']', n);
    deep[2 * n] = '\0';
    char *t = reshow(deep);
    assert_string_equal(t, "ERR: JSON nests deeper than 1000 at byte 1000");
    free(t);
    deep[n - 1] = ' ', deep[n] = ' '; /* 1000 deep: fine */
    t = reshow(deep);
    assert_int_equal(strncmp(t, "[[[", 3), 0);
    free(t);
    free(deep);
}

static void ints_stay_exact_and_apart_from_floats(void **state) {
    assert_reshows("[9223372036854775807, -9223372036854775808, 1724779239936775119, 1, 1.0, -0, "
                   "-0.0, 1e2, 1E-2]",
                   "[9223372036854775807, -9223372036854775808, 1724779239936775119, 1, 1.0, 0, "
                   "-0.0, 100.0, 0.01]");
    assert_reshows("[NaN, Infinity, -Infinity, 1e400]", "[NaN, Infinity, -Infinity, Infinity]");
    assert_reshows("[9223372036854775808]",
                   "ERR: integer 9223372036854775808 does not fit in 64 bits");
    assert_reshows("{\"NaN\": \"1.5\", \"x\": \"-Infinity 12\"}",
                   "{\"NaN\": \"1.5\", \"x\": \"-Infinity 12\"}");
}

static void strings_keep_nul_and_lone_surrogates(void **state) {
    assert_reshows("[\"a\\u0000b\", \"\\ud800x\", \"\\udc00\", \"\\ud83d\\ude00\", \"\\\\u0000\", "
                   "\"\\u00e9\"]",
                   "[\"a\\u0000b\", \"\\ud800x\", \"\\udc00\", \"\\ud83d\\ude00\", \"\\\\u0000\", "
                   "\"\\u00e9\"]");
    assert_reshows("{\"k\\u0000\": 1, \"k\": 2, \"k\\u0000\": 3}", "{\"k\\u0000\": 3, \"k\": 2}");
}

static void errors_give_offsets_in_the_original_text(void **state) {
    assert_reshows("[1234567890123, 2, }", "ERR: JSON parse error at byte 19");
    assert_reshows("{1: 2}", "ERR: JSON object keys must be strings");
    assert_reshows("{\"a\": 1} x", "ERR: extra data after the JSON value at byte 9");
    assert_reshows("[01]", "ERR: JSON parse error at byte 2");
    assert_reshows("\"\xff\"", "ERR: invalid UTF-8 in JSON at byte 1");
    assert_reshows("", "ERR: JSON parse error at byte 0");
}

/* "TEXT" cut: "KEPT+CLOSERS", or "-" when it is not a truncated text. */
static void assert_cut(const char *text, const char *want) {
    json_cut cut;
    char got[200] = "-";
    if (json_truncation_cut(text, strlen(text), JSON_READ_MAX_DEPTH, &cut)) {
        snprintf(got, sizeof got, "%.*s%.*s", (int)cut.at, text, (int)cut.nclosers, cut.closers);
        free(cut.closers);
    }
    assert_string_equal(got, want);
}

static void a_truncated_text_is_cut_after_its_last_whole_value(void **state) {
    assert_cut("{\"a\":[1,2", "{\"a\":[1]}");
    assert_cut("{\"a\":[1,2]", "{\"a\":[1,2]}");
    assert_cut("{\"a\":[1,2],\"b\":", "{\"a\":[1,2]}");
    assert_cut("{\"a\":\"x,]}", "{}"); /* inside a string: its brackets are text */
    assert_cut("[{\"k\":\"\\\"]\"},{", "[{\"k\":\"\\\"]\"},{}]");
    assert_cut("{\"a\":1}", "-"); /* whole */
    assert_cut("[1,2}", "-");     /* mismatched: not truncation */
    assert_cut("[1] [", "-");     /* a second value */
    assert_cut("", "-");
    assert_cut("{", "{}");
    fv_arena *a = fv_arena_new();
    fv *root = NULL;
    fr_error err;
    const char *text = "{\"entries\":[{\"a\":1},{\"a\":2},{\"a\"";
    assert_int_equal(json_read_salvage(text, strlen(text), a, &root, &err), 1);
    assert_string_equal(err.msg, "truncated JSON at byte 32");
    const fv *entries = fv_dict_get(root, "entries");
    assert_true(root->flags & FV_FLAG_TRUNCATED);
    assert_true(entries->flags & FV_FLAG_TRUNCATED);
    assert_int_equal(entries->len, 3);
    assert_false(fv_item(entries, 0)->flags & FV_FLAG_TRUNCATED);
    assert_false(fv_item(entries, 1)->flags & FV_FLAG_TRUNCATED);
    assert_true(fv_item(entries, 2)->flags & FV_FLAG_TRUNCATED); /* the partial one: {} */
    text = "{\"a\":[1,}";
    assert_int_equal(json_read_salvage(text, strlen(text), a, &root, &err), -1);
    assert_non_null(strstr(err.msg, "JSON parse error at byte"));
    fv_arena_free(a);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(floats_print_as_python_repr),
        cmocka_unit_test(strings_escape_as_ensure_ascii),
        cmocka_unit_test(keys_convert_as_json_dumps_does),
        cmocka_unit_test(pretty_is_indent_2),
        cmocka_unit_test(cycles_and_memo_bombs_are_refused),
        cmocka_unit_test(depth_is_bounded_both_ways),
        cmocka_unit_test(ints_stay_exact_and_apart_from_floats),
        cmocka_unit_test(strings_keep_nul_and_lone_surrogates),
        cmocka_unit_test(errors_give_offsets_in_the_original_text),
        cmocka_unit_test(a_truncated_text_is_cut_after_its_last_whole_value),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
