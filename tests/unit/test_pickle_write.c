/* test_pickle_write.c — the streaming pickle writer: torch's opcodes byte for byte, the memo,
 * and the fixed-memory mode the recorder uses from a signal handler. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pickle_read.h"
#include "pickle_write.h"

/* A growable byte collector used as a sink. */
typedef struct bytes {
    uint8_t *data;
    size_t len, cap;
    int calls;
} bytes;

static int collect(void *ctx, const uint8_t *p, size_t n) {
    bytes *b = ctx;
    if (b->len + n > b->cap) {
        b->cap = (b->len + n) * 2;
        b->data = realloc(b->data, b->cap);
    }
    memcpy(b->data + b->len, p, n);
    b->len += n;
    b->calls++;
    return 0;
}

static int refuse(void *ctx, const uint8_t *p, size_t n) { return -1; }

static void heap_bytes(void (*write)(pw_writer *), uint8_t **out, size_t *len) {
    pw_writer w;
    assert_int_equal(pw_init_alloc(&w, NULL, NULL), 0);
    write(&w);
    assert_int_equal(pw_finish(&w, out, len), 0);
}

/* What `write` puts on the heap is exactly want[0..n). */
static void expect_bytes(void (*write)(pw_writer *), const uint8_t *want, size_t n) {
    uint8_t *out;
    size_t len;
    heap_bytes(write, &out, &len);
    assert_int_equal(len, n);
    assert_memory_equal(out, want, n);
    free(out);
}

static void ints(pw_writer *w) {
    pw_int(w, 0);
    pw_int(w, 255);
    pw_int(w, 256);
    pw_int(w, 65535);
    pw_int(w, 65536);
    pw_int(w, -1);
    pw_int(w, INT32_MIN);
    pw_int(w, 2147483648LL);
    pw_int(w, 1724779239936775119LL);
    pw_int(w, INT64_MIN);
}

static void integers_follow_torchs_ladder_and_long1_is_always_8_bytes(void **state) {
    static const uint8_t want[] = {
        0x4b, 0x00, 0x4b, 0xff, 0x4d, 0x00, 0x01, 0x4d, 0xff, 0xff, 0x4a, 0x00, 0x00, 0x01,
        0x00, 0x4a, 0xff, 0xff, 0xff, 0xff, 0x4a, 0x00, 0x00, 0x00, 0x80, 0x8a, 0x08, 0x00,
        0x00, 0x00, 0x80, 0x00, 0x00, 0x00, 0x00, 0x8a, 0x08, 0xcf, 0x53, 0x66, 0x98, 0x94,
        0xa5, 0xef, 0x17, 0x8a, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x80,
    };
    expect_bytes(ints, want, sizeof want);
}

static void scalars(pw_writer *w) {
    pw_proto(w);
    pw_float(w, 0.0368579737842083);
    pw_bool(w, true);
    pw_bool(w, false);
    pw_none(w);
    pw_stop(w);
}

static void floats_are_big_endian_binfloat(void **state) {
    static const uint8_t want[] = { 0x80, 0x02, 0x47, 0x3f, 0xa2, 0xdf, 0x0c, 0x60,
                                    0x00, 0x00, 0x00, 0x88, 0x89, 0x4e, 0x2e };
    expect_bytes(scalars, want, sizeof want);
}

static void strings_and_containers(pw_writer *w) {
    pw_proto(w);
    pw_dict_begin(w);
    pw_cstr(w, "a");
    pw_list_begin(w);
    pw_cstr(w, "b");
    pw_cstr(w, "a");
    pw_list_end(w);
    uint32_t id = pw_put(w); /* the list is memo id 2 */
    pw_cstr(w, "c");
    pw_get(w, id);
    pw_dict_end(w);
    pw_stop(w);
}

static void strings_are_memoized_by_value_sharing_ids_with_containers(void **state) {
    static const uint8_t want[] = {
        0x80, 0x02, '}', '(', 'X', 1, 0,   0,   0, 'a', 'q', 0,   ']',
        '(',  'X',  1,   0,   0,   0, 'b', 'q', 1, 'h', 0,   'e', 'q',
        2,    'X',  1,   0,   0,   0, 'c', 'q', 3, 'h', 2,   'u', '.',
    };
    expect_bytes(strings_and_containers, want, sizeof want);
}

/* 300 distinct strings, then two repeats: ids past 255 use the LONG_ forms. */
static char many_names[300][16];

static void many_strings(pw_writer *w) {
    for (int i = 0; i < 300; i++) snprintf(many_names[i], sizeof many_names[i], "s%d", i);
    pw_proto(w);
    pw_list_begin(w);
    for (int i = 0; i < 300; i++) pw_cstr(w, many_names[i]);
    pw_cstr(w, many_names[0]);
    pw_cstr(w, many_names[299]);
    pw_list_end(w);
    pw_stop(w);
}

/* many_strings through a fixed-memory writer of a `size`-byte buffer and `nmemo` memo slots,
 * the bytes collected in sink. */
static void fixed_many_strings(size_t size, size_t nmemo, bytes *sink) {
    uint8_t buf[64];
    pw_memo_slot memo[1024];
    assert_true(size <= sizeof buf && nmemo <= 1024);
    pw_writer w;
    pw_init(&w, buf, size, memo, nmemo, collect, sink);
    many_strings(&w);
    assert_int_equal(pw_finish(&w, NULL, NULL), 0);
}

static void memo_ids_past_255_use_long_binput_and_long_binget(void **state) {
    uint8_t *out;
    size_t len;
    heap_bytes(many_strings, &out, &len);
    /* "s255" is id 255: BINPUT 255; "s256" is id 256: LONG_BINPUT 256 */
    static const uint8_t put255[] = { 'X', 4, 0, 0, 0, 's', '2', '5', '5', 'q', 0xff };
    static const uint8_t put256[] = { 'X', 4, 0, 0, 0, 's', '2', '5', '6', 'r', 0x00, 0x01, 0, 0 };
    static const uint8_t tail[] = { 'h', 0, 'j', 0x2b, 0x01, 0, 0, 'e', '.' };
    assert_non_null(memmem(out, len, put255, sizeof put255));
    assert_non_null(memmem(out, len, put256, sizeof put256));
    assert_memory_equal(out + len - sizeof tail, tail, sizeof tail);
    free(out);
}

static void fixed_memory_with_a_tiny_buffer_gives_the_heap_bytes(void **state) {
    uint8_t *heap;
    size_t heap_len;
    heap_bytes(many_strings, &heap, &heap_len);

    bytes sink = { 0 };
    fixed_many_strings(7, 1024, &sink);
    assert_int_equal(sink.len, heap_len);
    assert_memory_equal(sink.data, heap, heap_len);
    assert_true(sink.calls > 100); /* it really went through the sink in small pieces */
    free(sink.data);
    free(heap);
}

static void a_full_fixed_memo_still_writes_a_readable_pickle(void **state) {
    bytes sink = { 0 };
    fixed_many_strings(64, 8, &sink);

    fv_arena *a = fv_arena_new();
    fv *root = NULL;
    fr_error err = { { 0 } };
    pr_options opts = { 0 };
    assert_int_equal(pickle_read(sink.data, sink.len, a, &opts, &root, &err), 0);
    assert_int_equal(root->len, 302);
    assert_string_equal(fv_item(root, 250)->u.s, "s250");
    assert_string_equal(fv_item(root, 300)->u.s, "s0");
    assert_string_equal(fv_item(root, 301)->u.s, "s299");
    fv_arena_free(a);
    free(sink.data);
}

static void errors_are_sticky(void **state) {
    uint8_t buf[4];
    pw_memo_slot memo[16];
    pw_writer w;
    pw_init(&w, buf, sizeof buf, memo, 16, NULL, NULL); /* no sink: 4 bytes is all there is */
    pw_proto(&w);
    pw_cstr(&w, "too long for the buffer");
    pw_stop(&w);
    assert_int_equal(pw_finish(&w, NULL, NULL), -1);

    pw_init(&w, buf, sizeof buf, memo, 16, refuse, NULL);
    pw_proto(&w);
    pw_cstr(&w, "the sink refuses");
    assert_int_equal(pw_finish(&w, NULL, NULL), -1);
}

static void a_fixed_writer_without_sink_hands_back_its_buffer(void **state) {
    uint8_t buf[64];
    pw_memo_slot memo[16];
    pw_writer w;
    pw_init(&w, buf, sizeof buf, memo, 16, NULL, NULL);
    pw_proto(&w);
    pw_none(&w);
    pw_stop(&w);
    uint8_t *out;
    size_t len;
    assert_int_equal(pw_finish(&w, &out, &len), 0);
    assert_ptr_equal(out, buf);
    assert_int_equal(len, 4);
}

static void transient_strings(pw_writer *w) {
    char tmp[4] = "x";
    pw_cstr(w, "x");             /* id 0 */
    pw_str_transient(w, tmp, 1); /* already memoized: BINGET 0 */
    strcpy(tmp, "y");
    pw_str_transient(w, tmp, 1); /* new: id 1, not remembered */
    pw_cstr(w, "y");             /* written again: id 2 */
}

static void transient_strings_keep_the_id_count(void **state) {
    static const uint8_t want[] = { 'X', 1, 0,   0,   0, 'x', 'q', 0, 'h', 0, 'X', 1,   0,
                                    0,   0, 'y', 'q', 1, 'X', 1,   0, 0,   0, 'y', 'q', 2 };
    expect_bytes(transient_strings, want, sizeof want);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(integers_follow_torchs_ladder_and_long1_is_always_8_bytes),
        cmocka_unit_test(floats_are_big_endian_binfloat),
        cmocka_unit_test(strings_are_memoized_by_value_sharing_ids_with_containers),
        cmocka_unit_test(memo_ids_past_255_use_long_binput_and_long_binget),
        cmocka_unit_test(fixed_memory_with_a_tiny_buffer_gives_the_heap_bytes),
        cmocka_unit_test(a_full_fixed_memo_still_writes_a_readable_pickle),
        cmocka_unit_test(errors_are_sticky),
        cmocka_unit_test(a_fixed_writer_without_sink_hands_back_its_buffer),
        cmocka_unit_test(transient_strings_keep_the_id_count),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
