/* test_safe_text.c — text from the input shown, never obeyed (safe_text.h, json_text.h): the
 * terminal form of every kind of character (controls, DEL, C1, bidi, surrogates, NUL kept as
 * C0 80, bytes that are not UTF-8), plain UTF-8 untouched; markdown code spans sized past any
 * backtick run, pipes escaped in cells, inert words left plain; Jira monospace with every
 * markup character escaped, {noformat} blocks nothing ends early; XML entities; JSON always valid
 * UTF-8 with Python's surrogateescape for bad bytes; the interner keeping a NUL as C0 80; the
 * pickle writer turning both back into what Python's unpickler reads. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "intern.h"
#include "json_text.h"
#include "pickle_write.h"
#include "safe_text.h"

static void shown_is(const char *in, const char *want) {
    char *got = fr_text_shown(in);
    assert_non_null(got);
    assert_string_equal(got, want);
    free(got);
}

static void terminal_escapes_what_could_act(void **state) {
    (void)state;
    shown_is("default_pg", "default_pg");
    shown_is("a\x1b]52;c;ZXZpbA==\x07z", "a\\x1b]52;c;ZXZpbA==\\x07z");
    shown_is("x\ny\rz\tw", "x\\ny\\rz\\tw");
    shown_is("del\x7f", "del\\x7f");
    shown_is("c1 \xc2\x9b"
             "31m",
             "c1 \\u009b31m");
    shown_is("bidi \xe2\x80\xae"
             "gnp.exe",
             "bidi \\u202egnp.exe");
    shown_is("iso \xe2\x81\xa6"
             "x",
             "iso \\u2066x");
    shown_is("lsep \xe2\x80\xa8"
             "x",
             "lsep \\u2028x");
    shown_is("sur \xed\xa0\x80", "sur \\ud800");
    shown_is("nul \xc0\x80"
             "x",
             "nul \\x00x");
    shown_is("bad \xff\xfe \xc3", "bad \\xff\\xfe \\xc3");
    shown_is("overlong \xc1\xbf", "overlong \\xc1\\xbf");
    shown_is("caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x98\x80",
             "caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x98\x80");
    assert_true(fr_text_is_plain("caf\xc3\xa9", 5));
    assert_false(fr_text_is_plain("a\x1b", 2));
    assert_false(fr_text_is_plain("\xe2\x80\xae", 3));
}

static void classifier_reads_each_kind(void **state) {
    (void)state;
    fr_char c;
    assert_int_equal(fr_text_next((const uint8_t *)"\xed\xbf\xbf", 3, &c), 3);
    assert_int_equal(c.kind, FR_CH_SURROGATE);
    assert_int_equal(c.cp, 0xDFFF);
    assert_int_equal(fr_text_next((const uint8_t *)"\xf4\x90\x80\x80", 4, &c), 1);
    assert_int_equal(c.kind, FR_CH_BAD_BYTE); /* past U+10FFFF */
    assert_int_equal(fr_text_next((const uint8_t *)"\xe2\x80", 2, &c), 1);
    assert_int_equal(c.kind, FR_CH_BAD_BYTE); /* cut short */
    assert_int_equal(fr_text_next((const uint8_t *)"\xc2\xa0", 2, &c), 2);
    assert_int_equal(c.kind, FR_CH_PLAIN); /* U+00A0: past the C1 range */
    assert_int_equal(fr_text_next((const uint8_t *)"\xef\xbb\xbf", 3, &c), 3);
    assert_int_equal(c.kind, FR_CH_FORMAT);
}

static char *printed(void (*fn)(FILE *, const char *, bool), const char *s, bool table) {
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_non_null(f);
    fn(f, s, table);
    fclose(f);
    return text;
}

static void markdown_is(void (*fn)(FILE *, const char *, bool), const char *in, bool table,
                        const char *want) {
    char *got = printed(fn, in, table);
    assert_string_equal(got, want);
    free(got);
}

static void markdown_puts_input_in_code_spans(void **state) {
    (void)state;
    markdown_is(fr_md_code, "<img src=x onerror=alert(1)>", false,
                "`<img src=x onerror=alert(1)>`");
    markdown_is(fr_md_code, "a ``` b", false, "````a ``` b````");
    markdown_is(fr_md_code, "`x`", false, "`` `x` ``");
    markdown_is(fr_md_code, " x ", false, "`  x  `");
    markdown_is(fr_md_code, "a|b\\|c", true, "`a\\|b\\\\\\|c`");
    markdown_is(fr_md_code, "x\n# ok: no hang", false, "`x\\n# ok: no hang`");
    markdown_is(fr_md_code, "", false, "");
    markdown_is(fr_md_text, "8,10-13,15", true, "8,10-13,15");
    markdown_is(fr_md_text, "never issued", true, "never issued");
    markdown_is(fr_md_text, "see #123", true, "`see #123`");
    markdown_is(fr_md_text, "[x](javascript:alert(1))", false, "`[x](javascript:alert(1))`");
    markdown_is(fr_md_text, "- item", false, "`- item`");
    markdown_is(fr_md_text, "www.example.com", false, "`www.example.com`");
}

static void jira_block_is(const char *in, const char *want) {
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    fr_jira_block(f, in);
    fclose(f);
    assert_string_equal(text, want);
    free(text);
}

/* Jira wiki markup: the input in {{monospace}}, every markup character escaped; plain words and
 * rank lists as they are; a {noformat} block nothing inside can end. */
static void jira_escapes_every_markup_character(void **state) {
    (void)state;
    markdown_is(fr_jira_code, "all_reduce #4 (x)", false, "{{all\\_reduce \\#4 \\(x\\)}}");
    markdown_is(fr_jira_code, "*b* -s- +u+ ^s^ ~s~ ??c?? !i.png! [~admin] {code} a|b", true,
                "{{\\*b\\* \\-s\\- \\+u\\+ \\^s\\^ \\~s\\~ \\?\\?c\\?\\? \\!i.png\\! "
                "\\[\\~admin\\] \\{code\\} a\\|b}}");
    markdown_is(fr_jira_code, "hang: ok :) http://x a;b ;) &amp; a&b", false,
                "{{hang: ok \\:\\) http\\://x a;b \\;\\) \\&amp; a\\&b}}");
    markdown_is(fr_jira_code, "x\nh1. forged", false, "{{x\\\\nh1. forged}}");
    markdown_is(fr_jira_code, "", false, "");
    markdown_is(fr_jira_text, "8,10-13,15", true, "8,10-13,15");
    markdown_is(fr_jira_text, "never issued", true, "never issued");
    markdown_is(fr_jira_text, "- item", true, "{{\\- item}}");
    jira_block_is("frame\n", "{noformat}\nframe\n{noformat}\n");
    jira_block_is("a {noformat} b {NoFormat}",
                  "{noformat}\na { noformat} b { NoFormat}\n{noformat}\n");
}

static void xml_is(const char *in, const char *want) {
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    fr_xml_fputs(f, in);
    fclose(f);
    assert_string_equal(text, want);
    free(text);
}

static void xml_is_well_formed(void **state) {
    (void)state;
    xml_is("<script>&'\"", "&lt;script&gt;&amp;&apos;&quot;");
    xml_is("\x01\xff\xed\xa0\x80\xef\xbf\xbe", "\\x01\\xff\\ud800\\ufffe");
}

static void put_mem(void *ctx, const char *bytes, size_t len) {
    FILE *f = ctx;
    fwrite(bytes, 1, len, f);
}

static void json_is(const char *in, size_t n, bool ascii, const char *want) {
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    fr_json_escape(in, n, ascii, put_mem, f);
    fclose(f);
    assert_string_equal(text, want);
    free(text);
}

static void json_is_always_valid_utf8(void **state) {
    (void)state;
    json_is("caf\xc3\xa9", 5, false, "caf\xc3\xa9");
    json_is("caf\xc3\xa9", 5, true, "caf\\u00e9");
    json_is("\xed\xa0\x80", 3, false, "\\ud800");
    json_is("\xff", 1, false, "\\udcff");
    json_is("\xff", 1, true, "\\udcff");
    json_is("a\xc0\x80z", 4, false, "a\\u0000z");
    json_is("a\0z", 3, false, "a\\u0000z");
    json_is("\x1b[2J\x7f", 5, false, "\\u001b[2J\\u007f");
    json_is("\xe2\x80\xae\xc2\x9b", 5, false, "\\u202e\\u009b");
    json_is("\xf0\x9f\x98\x80", 4, true, "\\ud83d\\ude00");
    json_is("\"\\\n", 3, false, "\\\"\\\\\\n");
}

static void interner_keeps_nuls(void **state) {
    (void)state;
    fv_arena *arena = fv_arena_new();
    fr_interner *in = fr_intern_new(arena);
    const char *a = fr_intern(in, "ab\0cd", 5);
    assert_non_null(a);
    assert_memory_equal(a,
                        "ab\xc0\x80"
                        "cd",
                        7);
    assert_ptr_equal(a, fr_intern(in, "ab\0cd", 5)); /* still interned: one copy */
    assert_ptr_equal(a, fr_intern(in,
                                  "ab\xc0\x80"
                                  "cd",
                                  6));
    fr_intern_free(in);
    fv_arena_free(arena);
}

static void pickled_strings_load_in_python(void **state) {
    (void)state;
    pw_writer w;
    assert_int_equal(pw_init_alloc(&w, NULL, NULL), 0);
    pw_cstr(&w, "a\xc0\x80\xff");
    uint8_t *bytes;
    size_t len;
    assert_int_equal(pw_finish(&w, &bytes, &len), 0);
    /* BINUNICODE of length 1 + 1 + 3: 'a', NUL, U+DCFF (ED B3 BF) */
    static const uint8_t want[] = { 'X', 5, 0, 0, 0, 'a', 0, 0xED, 0xB3, 0xBF };
    assert_true(len >= sizeof want);
    assert_memory_equal(bytes, want, sizeof want);
    free(bytes);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(terminal_escapes_what_could_act),
        cmocka_unit_test(classifier_reads_each_kind),
        cmocka_unit_test(markdown_puts_input_in_code_spans),
        cmocka_unit_test(jira_escapes_every_markup_character),
        cmocka_unit_test(xml_is_well_formed),
        cmocka_unit_test(json_is_always_valid_utf8),
        cmocka_unit_test(interner_keeps_nuls),
        cmocka_unit_test(pickled_strings_load_in_python),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
