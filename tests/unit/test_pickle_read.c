/* test_pickle_read.c — the pickle machine: opcodes, errors with offsets, limits, salvage, and
 * a real dump cut at every byte and bit-flipped thousands of times (when ../shared exists). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_write.h"
#include "pickle_read.h"
#include "value.h"
#include "files.h"

#define REAL_DUMP "../shared/testdata/torch-fr-2.9-nvrx/gpu_error_1st/_dump_0"

/* JSON text of a value (malloc'd), or NULL when the writer refuses it. */
static char *to_json(fv *v) {
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    fr_error err;
    int rc = fv_write_json(f, v, false, 1u << 26, &err);
    fclose(f);
    if (rc) {
        free(text);
        return NULL;
    }
    return text;
}

/* Reads `bytes` and returns its JSON text, or "ERR: message". */
static char *show(const char *bytes, size_t len) {
    fv_arena *a = fv_arena_new();
    fv *root;
    fr_error err;
    char *out;
    if (pickle_read((const uint8_t *)bytes, len, a, NULL, &root, &err) == 0) {
        out = to_json(root);
        if (!out) out = strdup("ERR: writer refused");
    } else {
        out = malloc(600);
        snprintf(out, 600, "ERR: %s", err.msg);
    }
    fv_arena_free(a);
    return out;
}

#define assert_shows(lit, want)                                                                    \
    do {                                                                                           \
        char *got_ = show(lit, sizeof(lit) - 1);                                                   \
        assert_string_equal(got_, want);                                                           \
        free(got_);                                                                                \
    } while (0)

#define assert_refused(lit, fragment)                                                              \
    do {                                                                                           \
        char *got_ = show(lit, sizeof(lit) - 1);                                                   \
        if (strncmp(got_, "ERR: ", 5) || !strstr(got_, fragment)) fail_msg("%s", got_);            \
        free(got_);                                                                                \
    } while (0)

static void protocol2_opcodes_as_torch_writes_them(void **state) {
    assert_shows(
        "\x80\x02}(X\x01\x00\x00\x00"
        "aq\x00K\x01X\x01\x00\x00\x00"
        "bq\x01]("
        "M\x00\x01J\xff\xff\xff\xff\x8a\x08\xcf\x53\x66\x98\x94\xa5\xef\x17"
        "G\x3f\xa2\xdf\x0c\x60\x00\x00\x00\x88\x89N"
        "h\x00h\x01\x86"
        "e"
        "uq\x02.",
        "{\"a\": 1, \"b\": [256, -1, 1724779239936775119, 0.0368579737842083, true, false, null, "
        "[\"a\", \"b\"]]}");
}

static void protocol0_text_opcodes(void **state) {
    assert_shows(
        "(lp0\nI01\naI00\naI-42\naL-1234567890123456789L\naF1.5\naF-"
        "inf\naVab\\u00e9\\U0001f600\np1\na"
        "S'x\\'y\\n'\nag1\na.",
        "[true, false, -42, -1234567890123456789, 1.5, -Infinity, \"ab\\u00e9\\ud83d\\ude00\", "
        "\"x'y\\n\", \"ab\\u00e9\\ud83d\\ude00\"]");
}

/* Escapes at their edges, as Python's pickle.loads reads them: an octal escape takes at most
 * three digits (mutation p04); in UNICODE only an odd run of backslashes starts an escape. */
static void protocol0_escapes_at_their_edges(void **state) {
    assert_shows("S'\\1234'\n.", "\"S4\"");
    assert_shows("S'\\0'\n.", "\"\\u0000\"");
    assert_shows("V\\\\u0041\n.", "\"\\\\\\\\u0041\"");
    assert_shows("V\\\\\\u0041\n.", "\"\\\\\\\\A\"");
    assert_shows("Va\\b\n.", "\"a\\\\b\"");
}

/* Numbers and stack edges exactly at their limits (mutations p02, p06, p07, p09, p12). */
static void limits_are_exact(void **state) {
    assert_shows("I9223372036854775807\n.", "9223372036854775807");
    assert_shows("I-9223372036854775808\n.", "-9223372036854775808");
    assert_refused("I9223372036854775808\n.", "integer beyond 64 bits in INT at byte 0");
    assert_refused("I-9223372036854775809\n.", "integer beyond 64 bits in INT at byte 0");
    assert_shows("\x8a\x07\xff\xff\xff\xff\xff\xff\xff.", "-1");
    assert_shows("\x8a\x07\x00\x00\x00\x00\x00\x00\x80.", "-36028797018963968");
    /* LONG4 takes the general path (the loop's own LONG1 reading is another one) */
    assert_shows("\x8b\x07\x00\x00\x00\xff\xff\xff\xff\xff\xff\xff.", "-1");
    assert_shows("\x8b\x07\x00\x00\x00\x00\x00\x00\x00\x00\x00\x80.", "-36028797018963968");
    assert_refused("g-1\n.", "bad memo id in GET at byte 0");
    assert_refused("]((e.", "stack underflow: APPENDS at byte 3");
    assert_refused("X\x04\x00\x00\x00\xf4\x90\x80\x80.", "invalid UTF-8"); /* U+110000 */
}

static void long1_and_long4_any_width(void **state) {
    assert_shows("\x8a\x00.", "0");
    assert_shows("\x8a\x01\xff.", "-1");
    assert_shows("\x8a\x02\x00\x80.", "-32768");
    assert_shows("\x8a\x08\x00\x00\x00\x00\x00\x00\x00\x80.", "-9223372036854775808");
    assert_shows("\x8a\x09\xff\xff\xff\xff\xff\xff\xff\x7f\x00.", "9223372036854775807");
    assert_shows("\x8b\x02\x00\x00\x00\xff\x7f.", "32767");
    assert_refused("\x8a\x09\x00\x00\x00\x00\x00\x00\x00\x80\x00.",
                   "integer beyond 64 bits in LONG1 at byte 0");
    assert_refused("\x8b\xff\xff\xff\xff.", "negative length");
}

static void strings_must_be_utf8_surrogates_pass(void **state) {
    assert_shows("X\x03\x00\x00\x00\xed\xa0\x80.", "\"\\ud800\"");
    assert_shows("\x8c\x04\xf0\x9f\x98\x80.", "\"\\ud83d\\ude00\"");
    assert_refused("X\x02\x00\x00\x00\xc0\x80.", "invalid UTF-8 in BINUNICODE at byte 5");
    assert_refused("X\x03\x00\x00\x00\xf4\x90\x80.", "invalid UTF-8");
    assert_refused("U\x01\xe9.", "non-ASCII");
}

static void memo_aliases_and_huge_ids(void **state) {
    assert_shows("]r\xc0\xc6\x2d\x00(j\xc0\xc6\x2d\x00"
                 "0e.",
                 "[]"); /* id 3000000 put, got, popped */
    /* ids Python's array memo cannot hold are errors there too; so is a FRAME beyond the input */
    assert_refused("]r\xf0\xff\xff\xff.",
                   "memo id 4294967280 out of range (LONG_BINPUT at byte 1)");
    assert_refused("\x80\x04\x95\xff\xff\xff\xff\xff\xff\xff\xff]q\x00.", "FRAME at byte 2 needs");
    assert_refused("\x80\x04\x95\x00\xca\x9a\x3b\x00\x00\x00\x00]q\x00.",
                   "truncated pickle at byte 15");
    assert_shows("\x80\x04\x95\x04\x00\x00\x00\x00\x00\x00\x00]q\x00.", "[]");
    assert_shows("]\x94(h\x00"
                 "0e.",
                 "[]");
    assert_refused("\x80\x02j\x00\x00\x00\x01.",
                   "memo id 16777216 not found (LONG_BINGET at byte 2)");
    assert_refused("g99999999999999999999\n.", "bad memo id");
    /* aliasing: both items are one node */
    fv_arena *a = fv_arena_new();
    fv *root;
    fr_error err;
    static const char p[] = "\x80\x02]q\x00h\x00\x86.";
    assert_int_equal(pickle_read((const uint8_t *)p, sizeof p - 1, a, NULL, &root, &err), 0);
    assert_ptr_equal(fv_item(root, 0), fv_item(root, 1));
    fv_arena_free(a);
}

static void errors_name_the_opcode_and_byte(void **state) {
    assert_refused(
        "cos\nsystem\n(S'touch PWNED'\ntR.",
        "refusing opcode GLOBAL (0x63) at byte 0: pickles that import code are never loaded");
    assert_refused("\x80\x02K\x01K\x02R.", "refusing opcode REDUCE (0x52) at byte 6");
    assert_refused("\x80\x05\x96\x00\x00\x00\x00\x00\x00\x00\x00.",
                   "unsupported opcode BYTEARRAY8 (0x96) at byte 2");
    assert_refused("\x80\x02\x86.", "stack underflow: TUPLE2 at byte 2");
    assert_refused("\x80\x02K\x01(\x85.", "stack underflow: TUPLE1 at byte 5");
    assert_refused("}(K\x01u.", "odd number of items for SETITEMS at byte 4");
    assert_refused("K\x01(K\x02K\x03u.",
                   "SETITEMS at byte 7 expects a dict below its items, found a int");
    assert_refused("K\x01K\x02.", "STOP at byte 4 with 2 items");
    assert_refused("(.", "STOP at byte 1 with 1 MARKs still open");
    assert_refused("N.x", "trailing data after STOP: 1 bytes at byte 2");
    assert_refused("}(]K\x01u.", "unhashable list used as a dict key");
    assert_refused("\x01", "unknown opcode 0x01 at byte 0");
    assert_refused("X\xff\xff\xff\xff.", "truncated pickle at byte 6 (BINUNICODE at byte 0 needs");
    assert_refused("K", "truncated pickle at byte 1");
    assert_refused("N", "truncated pickle at byte 1 (no STOP)");
    assert_refused("I12", "truncated pickle");
    assert_refused("I1x\n.", "bad integer literal in INT at byte 0");
    assert_refused("I99999999999999999999\n.", "integer beyond 64 bits");
    assert_refused("F0x10\n.", "bad float literal");
    assert_refused("S'abc\n.", "must be quoted");
    assert_refused("Vab\\u12\n.", "truncated \\u escape");
    assert_refused("\x80\x06N.", "unsupported pickle protocol 6");
    assert_refused("", "empty pickle");
}

static void pop_on_an_empty_frame_drops_the_mark(void **state) {
    assert_shows("K\x01(0.", "1");
    assert_shows("K\x01(K\x02"
                 "1.",
                 "1");
    assert_shows("(K\x01K\x02t2\x86.", "[[1, 2], [1, 2]]");
}

static void mark_depth_and_memory_are_bounded(void **state) {
    size_t n = 20000;
    uint8_t *p = malloc(n + 1);
    memset(p, '(', n);
    p[n] = '.';
    fv_arena *a = fv_arena_new();
    fv *root;
    fr_error err;
    assert_int_equal(pickle_read(p, n + 1, a, NULL, &root, &err), -1);
    assert_non_null(strstr(err.msg, "MARK nesting deeper than 10000 at byte 10000"));
    pr_options small = { .max_mark_depth = 5 };
    assert_int_equal(pickle_read(p, n + 1, a, &small, &root, &err), -1);
    assert_non_null(strstr(err.msg, "deeper than 5"));
    /* DUP bomb under a tight memory limit */
    p[0] = 'N';
    memset(p + 1, '2', n - 1);
    pr_options tight = { .max_memory = 4096 };
    assert_int_equal(pickle_read(p, n + 1, a, &tight, &root, &err), -1);
    assert_non_null(strstr(err.msg, "more than 4096 bytes of memory"));
    fv_arena_free(a);
    free(p);
}

static void batched_appends_and_setitems(void **state) {
    /* Python batches by 1000: two APPENDS on one list */
    char buf[8192];
    size_t o = 0;
    memcpy(buf + o, "\x80\x04]q\x00(", 6), o += 6;
    for (int i = 0; i < 1000; i++) buf[o++] = 'K', buf[o++] = 7;
    buf[o++] = 'e', buf[o++] = '(';
    for (int i = 0; i < 5; i++) buf[o++] = 'K', buf[o++] = 8;
    buf[o++] = 'e', buf[o++] = '.';
    fv_arena *a = fv_arena_new();
    fv *root;
    fr_error err;
    assert_int_equal(pickle_read((uint8_t *)buf, o, a, NULL, &root, &err), 0);
    assert_int_equal(root->len, 1005);
    assert_int_equal(fv_item(root, 1004)->u.i, 8);
    fv_arena_free(a);
}

/* --- real dump ----------------------------------------------------------------------------- */

static void truncated_at_every_byte_is_an_error_or_a_flagged_salvage(void **state) {
    size_t len = 0;
    uint8_t *full = slurp(REAL_DUMP, &len);
    if (!full) skip();
    fv_arena *a = fv_arena_new();
    fv *whole;
    fr_error err;
    assert_int_equal(pickle_read(full, len, a, NULL, &whole, &err), 0);
    fv *whole_entries = fv_dict_get(whole, "entries");
    assert_non_null(whole_entries);
    int salvaged_with_entries = 0;
    for (size_t cut = 0; cut < len; cut++) {
        uint8_t *copy = malloc(cut ? cut : 1); /* exact size: ASan catches any overread */
        memcpy(copy, full, cut);
        fv_arena *b = fv_arena_new();
        fv *root;
        assert_int_equal(pickle_read(copy, cut, b, NULL, &root, &err), -1);
        pr_options salvage = { .salvage = true };
        int rc = pickle_read(copy, cut, b, &salvage, &root, &err);
        if (cut < 2) assert_int_equal(rc, -1);
        if (rc == 1) {
            assert_non_null(strstr(err.msg, "truncated pickle at byte"));
            fv *entries = fv_dict_get(root, "entries");
            if (fv_is(entries, FV_LIST) && entries->len) {
                salvaged_with_entries++;
                /* unflagged means whole: APPENDS ran */
                if (!(entries->flags & FV_FLAG_TRUNCATED))
                    assert_int_equal(entries->len, whole_entries->len);
                assert_true(entries->len <= whole_entries->len);
                /* an entry without the flag is whole: it equals the full file's entry */
                for (uint32_t i = 0; i < entries->len; i++) {
                    fv *e = fv_item(entries, i);
                    if (e->flags & FV_FLAG_TRUNCATED) {
                        assert_int_equal(i, entries->len - 1); /* only the last can be open */
                        continue;
                    }
                    char *got = to_json(e), *want = to_json(fv_item(whole_entries, i));
                    assert_non_null(got);
                    assert_string_equal(got, want);
                    free(got);
                    free(want);
                }
            }
        } else {
            assert_int_equal(rc, -1);
        }
        fv_arena_free(b);
        free(copy);
    }
    assert_true(salvaged_with_entries > 100);
    fv_arena_free(a);
    free(full);
}

static void bit_flips_never_crash(void **state) {
    size_t len = 0;
    uint8_t *full = slurp(REAL_DUMP, &len);
    if (!full) skip();
    uint64_t seed = 88172645463325252ULL;
    int ok = 0, refused = 0;
    for (int round = 0; round < 20000; round++) {
        uint8_t *copy = malloc(len);
        memcpy(copy, full, len);
        int flips = 1 + round % 4;
        for (int k = 0; k < flips; k++) {
            seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
            size_t bit = (size_t)(seed % (len * 8));
            copy[bit / 8] ^= (uint8_t)(1u << (bit % 8));
        }
        fv_arena *b = fv_arena_new();
        fv *root;
        fr_error err;
        pr_options salvage = { .salvage = round % 2 == 1 };
        int rc = pickle_read(copy, len, b, &salvage, &root, &err);
        if (rc >= 0) {
            char *text = to_json(root); /* may refuse (cycle), must not crash */
            free(text);
            ok++;
        } else {
            assert_true(err.msg[0] != '\0');
            refused++;
        }
        fv_arena_free(b);
        free(copy);
    }
    print_message("# bit flips: %d decoded, %d refused\n", ok, refused);
    free(full);
}

static void salvage_keeps_whole_entries_unflagged(void **state) {
    size_t len = 0;
    uint8_t *full = slurp(REAL_DUMP, &len);
    if (!full) skip();
    fv_arena *a = fv_arena_new();
    fv *root;
    fr_error err;
    pr_options salvage = { .salvage = true };
    /* cut in the middle of the file: inside the entries list */
    assert_int_equal(pickle_read(full, len / 2, a, &salvage, &root, &err), 1);
    assert_non_null(strstr(err.msg, "truncated pickle at byte"));
    assert_true(root->flags & FV_FLAG_TRUNCATED);
    fv *entries = fv_dict_get(root, "entries");
    assert_true(fv_is(entries, FV_LIST));
    assert_true(entries->flags & FV_FLAG_TRUNCATED);
    assert_true(entries->len >= 2);
    for (uint32_t i = 0; i + 1 < entries->len; i++)
        assert_false(fv_item(entries, i)->flags & FV_FLAG_TRUNCATED);
    assert_true(fv_item(entries, entries->len - 1)->flags & FV_FLAG_TRUNCATED);
    assert_false(fv_dict_get(root, "pg_config")->flags & FV_FLAG_TRUNCATED);
    fv_arena_free(a);
    free(full);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(protocol2_opcodes_as_torch_writes_them),
        cmocka_unit_test(protocol0_text_opcodes),
        cmocka_unit_test(protocol0_escapes_at_their_edges),
        cmocka_unit_test(limits_are_exact),
        cmocka_unit_test(long1_and_long4_any_width),
        cmocka_unit_test(strings_must_be_utf8_surrogates_pass),
        cmocka_unit_test(memo_aliases_and_huge_ids),
        cmocka_unit_test(errors_name_the_opcode_and_byte),
        cmocka_unit_test(pop_on_an_empty_frame_drops_the_mark),
        cmocka_unit_test(mark_depth_and_memory_are_bounded),
        cmocka_unit_test(batched_appends_and_setitems),
        cmocka_unit_test(truncated_at_every_byte_is_an_error_or_a_flagged_salvage),
        cmocka_unit_test(bit_flips_never_crash),
        cmocka_unit_test(salvage_keeps_whole_entries_unflagged),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
