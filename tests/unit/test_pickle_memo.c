/* test_pickle_memo.c — the pickle machine's memo (array while ids are dense, map from the first
 * id that does not fit) and its batch SETITEMS/APPENDS: same results as Python's Unpickler. */
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

typedef struct buf {
    uint8_t b[1 << 16];
    size_t n;
} buf;

#define PUT(p, lit) put((p), (lit), sizeof(lit) - 1)

static void put(buf *p, const void *bytes, size_t n) {
    memcpy(p->b + p->n, bytes, n);
    p->n += n;
}
static void op(buf *p, uint8_t o) { p->b[p->n++] = o; }
static void u32(buf *p, uint32_t v) {
    for (int i = 0; i < 4; i++) op(p, (uint8_t)(v >> (8 * i)));
}
static void binput(buf *p, uint32_t id) {
    if (id < 256)
        op(p, 'q'), op(p, (uint8_t)id);
    else
        op(p, 'r'), u32(p, id);
}
static void binget(buf *p, uint32_t id) {
    if (id < 256)
        op(p, 'h'), op(p, (uint8_t)id);
    else
        op(p, 'j'), u32(p, id);
}

/* JSON of what `p` reads to, or the error. */
static const char *show(const buf *p, char *out, size_t len) {
    fv_arena *a = fv_arena_new();
    fv *root;
    fr_error err;
    if (pickle_read(p->b, p->n, a, NULL, &root, &err) != 0) {
        snprintf(out, len, "error: %s", err.msg);
    } else {
        FILE *f = fmemopen(out, len, "w");
        fv_write_json(f, root, false, 1 << 20, &err);
        fclose(f);
    }
    fv_arena_free(a);
    return out;
}

/* ints put under the given ids, then got back in reverse order */
static const char *put_then_get(const uint32_t *ids, size_t n, char *out, size_t len) {
    static buf p;
    p.n = 0;
    PUT(&p, "\x80\x02](");
    for (size_t i = 0; i < n; i++) {
        op(&p, 'M'), op(&p, (uint8_t)i), op(&p, (uint8_t)(i >> 8));
        binput(&p, ids[i]);
    }
    for (size_t i = n; i-- > 0;) binget(&p, ids[i]);
    PUT(&p, "e.");
    return show(&p, out, len);
}

static void ids_in_any_order_are_found(void **state) {
    static char got[1 << 16], want[1 << 16];
    uint32_t ids[600];
    /* dense, then one far id (the array turns into a map), then dense again */
    size_t n = 0;
    for (uint32_t i = 0; i < 300; i++) ids[n++] = i;
    ids[n++] = 3000000u;
    for (uint32_t i = 300; i < 400; i++) ids[n++] = i;
    ids[n++] = 70000;
    put_then_get(ids, n, got, sizeof got);
    size_t w = 0;
    w += (size_t)snprintf(want + w, sizeof want - w, "[");
    for (size_t i = 0; i < n; i++) w += (size_t)snprintf(want + w, sizeof want - w, "%zu, ", i);
    for (size_t i = n; i-- > 0;)
        w += (size_t)snprintf(want + w, sizeof want - w, "%zu%s", i, i ? ", " : "]");
    assert_string_equal(got, want);
    /* ids that skip a little stay in the array; a sparse start goes to the map at once */
    uint32_t skipping[5] = { 0, 2, 64, 130, 7 }, sparse[3] = { 1000000, 3, 0 };
    assert_string_equal(put_then_get(skipping, 5, got, sizeof got),
                        "[0, 1, 2, 3, 4, 4, 3, 2, 1, 0]");
    assert_string_equal(put_then_get(sparse, 3, got, sizeof got), "[0, 1, 2, 2, 1, 0]");
    /* a PUT over an existing id replaces it */
    uint32_t again[3] = { 5, 5, 6 };
    assert_string_equal(put_then_get(again, 3, got, sizeof got), "[0, 1, 2, 2, 1, 1]");
}

/* MEMOIZE numbers entries by their count, whichever form the memo has. */
static void memoize_counts_entries(void **state) {
    static char got[4096];
    buf p = { .n = 0 };
    PUT(&p, "\x80\x04](K\x01\x94K\x02r\xa0\x86\x01\x00K\x03\x94"); /* ids 0, 100000, then 2 */
    binget(&p, 0), binget(&p, 100000), binget(&p, 2);
    PUT(&p, "e.");
    assert_string_equal(show(&p, got, sizeof got), "[1, 2, 3, 1, 2, 3]");
    buf q = { .n = 0 };
    PUT(&q, "\x80\x04](K\x01\x94");
    binget(&q, 1); /* never stored */
    PUT(&q, "e.");
    assert_non_null(strstr(show(&q, got, sizeof got), "memo id 1 not found (BINGET at byte 7)"));
}

/* SETITEM then SETITEMS batches on one dict, with keys repeated across and within batches. */
static void dict_batches_replace_equal_keys(void **state) {
    static char got[4096];
    buf p = { .n = 0 };
    PUT(&p, "\x80\x02}");
    PUT(&p, "X\x01\x00\x00\x00"
            "a"),
        binput(&p, 0), PUT(&p, "K\x01s");          /* a: 1 */
    PUT(&p, "("), binget(&p, 0), PUT(&p, "K\x02"); /* a: 2 */
    PUT(&p, "X\x01\x00\x00\x00"
            "b"),
        binput(&p, 1), PUT(&p, "K\x03");                                    /* b: 3 */
    binget(&p, 1), PUT(&p, "K\x04u");                                       /* b: 4 */
    PUT(&p, "(K\x01K\x05\x88K\x06G\x3f\xf0\x00\x00\x00\x00\x00\x00K\x07u"); /* 1, True, 1.0 */
    PUT(&p, ".");
    assert_string_equal(show(&p, got, sizeof got), "{\"a\": 2, \"b\": 4, \"1\": 7}");
    buf q = { .n = 0 };
    PUT(&q, "\x80\x02}(K\x01K\x02]K\x03K\x04K\x05u."); /* a list key stops the batch */
    assert_non_null(strstr(show(&q, got, sizeof got),
                           "unhashable list used as a dict key (SETITEMS at byte 15)"));
}

/* Under a tight budget a torch-like memo of many strings fits no worse than a map would. */
static void the_memo_stays_within_the_budget(void **state) {
    static buf p;
    p.n = 0;
    PUT(&p, "\x80\x02](");
    char s[16];
    for (uint32_t i = 0; i < 2000; i++) {
        int n = snprintf(s, sizeof s, "s%u", i);
        op(&p, 'X'), u32(&p, (uint32_t)n), put(&p, s, (size_t)n), binput(&p, i);
        op(&p, '0');
    }
    PUT(&p, "e.");
    fv_arena *a = fv_arena_new();
    fv *root;
    fr_error err;
    pr_options opts = { .max_memory = 200000 };
    assert_int_equal(pickle_read(p.b, p.n, a, &opts, &root, &err), 0);
    opts.max_memory = 20000;
    assert_int_equal(pickle_read(p.b, p.n, a, &opts, &root, &err), -1);
    assert_non_null(strstr(err.msg, "more than 20000 bytes of memory"));
    fv_arena_free(a);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ids_in_any_order_are_found),
        cmocka_unit_test(memoize_counts_entries),
        cmocka_unit_test(dict_batches_replace_equal_keys),
        cmocka_unit_test(the_memo_stays_within_the_budget),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
