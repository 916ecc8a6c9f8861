/* test_dump_pickle_fast.c — the direct pickle path (dump_pickle_fast.c) decodes exactly as the
 * generic one.
 *
 * Every test decodes the same bytes twice, with an fr_decoder on its default (direct path
 * first) and one with the direct path turned off, and requires the same outcome: the same
 * dump, field by field (dump_equal.h), or the same error message. The stories: every pickle of
 * ../shared (real PyTorch dumps and the synthetic ones of other versions) takes the direct
 * path; a dump cut at every byte, or with bytes flipped at random, comes out the same both
 * ways (the direct path declines, the generic one salvages or refuses); and the shapes the
 * direct path does not take — a Python-written pickle, a string that is not ASCII, a repeated
 * key — still decode, the generic way.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "dump.h"
#include "dump_decoder.h"
#include "dump_equal.h"
#include "files.h"
#include "two_ways.h"

#define TESTDATA "../shared/testdata"
#define REAL     TESTDATA "/torch-fr-2.9-nvrx/"

static bool is_json(const uint8_t *bytes, size_t len) {
    size_t i = 0;
    while (i < len && (bytes[i] == ' ' || bytes[i] == '\n')) i++;
    return i < len && bytes[i] == '{';
}

typedef struct tally {
    int pickles, direct, json;
} tally;

static void each_file(two_ways *t, const char *dir, tally *n) {
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *ent;
    while ((ent = readdir(d)) != NULL) {
        if (ent->d_name[0] == '.') continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, ent->d_name);
        struct stat st;
        if (stat(path, &st) != 0) continue;
        if (S_ISDIR(st.st_mode)) {
            each_file(t, path, n);
            continue;
        }
        if (strstr(ent->d_name, ".py") || strstr(ent->d_name, ".md") || strstr(ent->d_name, ".txt"))
            continue;
        size_t len;
        uint8_t *bytes = slurp(path, &len);
        if (!bytes) continue;
        bool direct = same_both_ways(t, bytes, len, path);
        if (is_json(bytes, len)) { /* the direct JSON path's (test_dump_json_fast.c) */
            n->json++;
            if (!direct) fail_msg("%s: a PyTorch JSON dump that the direct path declined", path);
        } else if (len > 2 && bytes[0] == 0x80) {
            n->pickles++;
            if (!direct) fail_msg("%s: a PyTorch pickle that the direct path declined", path);
            n->direct++;
        }
        free(bytes);
    }
    closedir(d);
}

static void every_shared_pickle_takes_the_direct_path_to_the_same_dump(void **state) {
    DIR *probe = opendir(TESTDATA);
    if (!probe) skip();
    closedir(probe);
    two_ways t = two_ways_new();
    tally n = { 0 };
    each_file(&t, TESTDATA, &n);
    assert_true(n.pickles >= 64); /* the real job's 64 dumps and the synthetic versions */
    assert_int_equal(n.direct, n.pickles);
    two_ways_free(&t);
}

static void a_dump_cut_at_every_byte_decodes_the_same_both_ways(void **state) {
    size_t len;
    uint8_t *bytes = slurp(REAL "gpu_error_1st/_dump_5", &len);
    if (!bytes) skip();
    two_ways t = two_ways_new();
    /* only the whole file: a cut one is the generic path's */
    assert_int_equal(cut_at_every_byte(&t, bytes, len), 1);
    two_ways_free(&t);
    free(bytes);
}

static void flipped_bytes_decode_the_same_both_ways(void **state) {
    size_t len;
    uint8_t *bytes = slurp(REAL "lock_gil_2nd/_dump_3", &len);
    if (!bytes) skip();
    two_ways t = two_ways_new();
    /* a flip inside a number or a name keeps the shape */
    assert_true(flipped_bits(&t, bytes, len, 3000) > 0);
    two_ways_free(&t);
    free(bytes);
}

/* A small dump in PyTorch's layout, with room to vary one entry. */
static size_t torch_like(uint8_t *out, const char *name_op, const char *state) {
    size_t n = 0;
#define BYTES(...)                                                                                 \
    do {                                                                                           \
        const uint8_t b_[] = { __VA_ARGS__ };                                                      \
        memcpy(out + n, b_, sizeof b_);                                                            \
        n += sizeof b_;                                                                            \
    } while (0)
#define STR(s)                                                                                     \
    do {                                                                                           \
        size_t l_ = strlen(s);                                                                     \
        BYTES('X', (uint8_t)l_, 0, 0, 0);                                                          \
        memcpy(out + n, s, l_);                                                                    \
        n += l_;                                                                                   \
    } while (0)
    BYTES(0x80, 2, '}', '(');
    STR("version");
    STR("2.9");
    STR("pg_config");
    BYTES('}', '(');
    STR("0");
    BYTES('q', 0);
    BYTES('}', '(');
    STR("name");
    BYTES('h', 0);
    STR("desc");
    STR("default_pg");
    STR("ranks");
    STR("[0]");
    BYTES('u', 'u');
    STR("entries");
    BYTES(']', '(', '}', '(');
    STR("record_id");
    BYTES('K', 7);
    STR("pg_id");
    BYTES('K', 0);
    STR("process_group");
    BYTES('h', 0);
    STR("default_pg");
    BYTES(0x86);
    STR("collective_seq_id");
    BYTES('K', 1);
    STR("p2p_seq_id");
    BYTES('K', 0);
    STR("op_id");
    BYTES('K', 1);
    STR("profiling_name");
    STR(name_op);
    STR("time_created_ns");
    BYTES(0x8a, 8, 1, 2, 3, 4, 5, 6, 7, 0x17);
    STR("input_sizes");
    BYTES(']', '(', ']', '(', 'M', 0, 16, 'e', 'e');
    STR("input_dtypes");
    BYTES(']', '(');
    STR("Float");
    BYTES('e');
    STR("output_sizes");
    BYTES(']', '(', ']', '(', 'M', 0, 16, 'e', 'e');
    STR("output_dtypes");
    BYTES(']', '(');
    STR("float");
    BYTES('e');
    STR("state");
    STR(state);
    STR("time_discovered_started_ns");
    BYTES('N');
    STR("time_discovered_completed_ns");
    BYTES('J', 0xff, 0xff, 0xff, 0xff);
    STR("retired");
    BYTES(0x88);
    STR("timeout_ms");
    BYTES('J', 0xc0, 0x27, 9, 0);
    STR("is_p2p");
    BYTES(0x89);
    STR("duration_ms");
    BYTES('G', 0x3f, 0xf8, 0, 0, 0, 0, 0, 0);
    BYTES('u', 'e', 'u', '.');
#undef STR
#undef BYTES
    return n;
}

static void a_torch_shaped_dump_is_read_field_by_field(void **state) {
    uint8_t buf[2048];
    size_t len = torch_like(buf, "nccl:all_reduce", "started");
    two_ways t = two_ways_new();
    assert_true(same_both_ways(&t, buf, len, "torch-like"));
    fr_dump *d;
    fr_error err;
    assert_int_equal(fr_decoder_decode(t.fast, buf, len, &d, &err), 0);
    assert_int_equal(d->nentries, 1);
    const fr_entry *e = &d->entries[0];
    assert_int_equal(e->record_id, 7);
    assert_string_equal(e->pg_name, "0");
    assert_ptr_equal(e->pg_name, d->groups[0].name); /* interned with the header's strings */
    assert_int_equal(e->time_created_ns, 0x1707060504030201LL);
    assert_int_equal(e->input_sizes.shapes[0].dims[0], 4096);
    assert_string_equal(e->output_dtypes.items[0], "Float"); /* legacy spelling normalized */
    assert_ptr_equal(e->input_dtypes.items, e->output_dtypes.items); /* one shared list */
    assert_int_equal(e->state, FR_STATE_STARTED);
    assert_int_equal(e->time_discovered_completed_ns, -1);
    assert_int_equal(e->timeout_ms, 600000);
    assert_true(e->has_duration);
    assert_true(e->duration_ms == 1.5);
    assert_true(e->retired);
    assert_false(e->is_p2p);
    assert_null(e->frames);
    fr_dump_free(d);
    two_ways_free(&t);
}

static void shapes_the_direct_path_declines_still_decode_the_generic_way(void **state) {
    uint8_t buf[2048];
    two_ways t = two_ways_new();
    /* not ASCII: the generic reader checks the UTF-8 */
    size_t len = torch_like(buf,
                            "nccl:all_r\xc3\xa9"
                            "duce",
                            "completed");
    assert_false(same_both_ways(&t, buf, len, "UTF-8 name"));
    /* an unknown state: the generic path names it */
    len = torch_like(buf, "nccl:all_reduce", "stuck");
    assert_false(same_both_ways(&t, buf, len, "unknown state"));
    fr_dump *d;
    fr_error err;
    assert_int_equal(fr_decoder_decode(t.fast, buf, len, &d, &err), -1);
    assert_non_null(strstr(err.msg, "unknown state \"stuck\""));
    /* trailing bytes after STOP */
    len = torch_like(buf, "nccl:all_reduce", "completed");
    buf[len++] = 'N';
    assert_false(same_both_ways(&t, buf, len, "trailing byte"));
    /* a Python-style one-item SETITEM in place of the SETITEMS batch of the top level */
    static const uint8_t python_style[] = { 0x80, 2,   '}', 'q', 0,   'X', 7,   0,   0,
                                            0,    'v', 'e', 'r', 's', 'i', 'o', 'n', 'X',
                                            3,    0,   0,   0,   '2', '.', '9', 's', '.' };
    assert_false(same_both_ways(&t, python_style, sizeof python_style, "SETITEM"));
    two_ways_free(&t);
}

/* --- many entries, one of them twisted ------------------------------------------------------
 * The direct path reads an entry along the keys of the entry before it (its layout) and falls
 * back to reading key by key where they differ. These dumps of twelve entries, written as
 * PyTorch's pickler writes them (every string memoized by content), twist the sixth entry in
 * one way each, so that the layout breaks at its start, in its middle or at its end, and a
 * later entry must relearn it. */

typedef struct pickler {
    uint8_t *out;
    size_t n;
    const char *memo[256]; /* the string each memo id holds (ids below 256 only) */
    unsigned next_id;
    int old_state_id; /* REBOUND_KEY: the id "state" had */
} pickler;

static void op(pickler *w, uint8_t b) { w->out[w->n++] = b; }

static int memo_id_of(const pickler *w, const char *s) {
    for (unsigned i = 0; i < w->next_id; i++)
        if (w->memo[i] && strcmp(w->memo[i], s) == 0) return (int)i;
    return -1;
}

/* A str as torch writes it: BINGET when memoized, else BINUNICODE and BINPUT `at` (the next id
 * when at < 0; another id rebinds it, as a hostile pickle may). */
static void str_at(pickler *w, const char *s, int at) {
    int id = memo_id_of(w, s);
    if (id >= 0 && at < 0) {
        op(w, 'h');
        op(w, (uint8_t)id);
        return;
    }
    size_t len = strlen(s);
    op(w, 'X');
    op(w, (uint8_t)len), op(w, 0), op(w, 0), op(w, 0);
    memcpy(w->out + w->n, s, len);
    w->n += len;
    unsigned put = at < 0 ? w->next_id++ : (unsigned)at;
    op(w, 'q');
    op(w, (uint8_t)put);
    w->memo[put] = s;
}

static void str(pickler *w, const char *s) { str_at(w, s, -1); }
static void int1(pickler *w, uint8_t v) { op(w, 'K'), op(w, v); }

typedef enum twist {
    PLAIN,
    SWAPPED_KEYS,    /* state before output_dtypes */
    EXTRA_KEY,       /* an unknown key in the middle */
    MISSING_KEY,     /* no op_id (not a required key) */
    REPEATED_KEY,    /* record_id twice: the direct path declines */
    PUT_AFTER_INT,   /* record_id's value memoized */
    LONG_GET_KEY,    /* a key read back by LONG_BINGET */
    OTHER_ENCODINGS, /* a 5-byte LONG1 time, a bool as an int, None as the name */
    TWO_BATCHES,     /* the dict's pairs in two MARK ... SETITEMS batches */
    REBOUND_KEY,     /* the name is memoized over the id of the key "state", and the next
                        entry has that id where its state key was: an unknown key there, not
                        the state, so that entry's state comes fresh at its end */
    TWO_DTYPES,      /* input_dtypes ["Half", "Float"]: that list is not "Float"'s own one-dtype
                        list, which later entries read back (mutation d05) */
    NTWISTS,
    OLD_ID_AS_KEY = NTWISTS, /* that next entry */
} twist;

static int four_dim_shapes; /* entry i's input_sizes [[1, 100 + i, 3, 4]]: 18 bytes of pickle */

static void entry(pickler *w, int i, twist t) {
    static const char *const names[] = { "nccl:all_reduce", "nccl:all_gather",
                                         "nccl:_reduce_scatter_base" };
    op(w, '}'), op(w, '(');
    str(w, "record_id"), int1(w, (uint8_t)i);
    if (t == PUT_AFTER_INT) op(w, 'q'), op(w, 250);
    if (t == REPEATED_KEY) str(w, "record_id"), int1(w, (uint8_t)i);
    str(w, "pg_id"), int1(w, 0);
    str(w, "process_group"), str(w, "0"), str(w, "default_pg"), op(w, 0x86);
    str(w, "collective_seq_id"), int1(w, (uint8_t)(i + 1));
    str(w, "p2p_seq_id"), int1(w, 0);
    if (t == EXTRA_KEY) str(w, "extra"), int1(w, 3);
    if (t != MISSING_KEY) {
        if (t == LONG_GET_KEY)
            op(w, 'j'), op(w, (uint8_t)memo_id_of(w, "op_id")), op(w, 0), op(w, 0), op(w, 0);
        else
            str(w, "op_id");
        int1(w, (uint8_t)(i + 1));
    }
    if (t == TWO_BATCHES) op(w, 'u'), op(w, '(');
    str(w, "profiling_name");
    if (t == OTHER_ENCODINGS)
        op(w, 'N');
    else if (t == REBOUND_KEY)
        str_at(w, "nccl:broadcast", w->old_state_id = memo_id_of(w, "state"));
    else
        str(w, names[i % 3]);
    str(w, "time_created_ns");
    if (t == OTHER_ENCODINGS)
        op(w, 0x8a), op(w, 5), op(w, 1), op(w, 2), op(w, 3), op(w, 4), op(w, 0x85);
    else
        op(w, 0x8a), op(w, 8), op(w, 1), op(w, 2), op(w, 3), op(w, 4), op(w, 5), op(w, 6), op(w, 7),
            op(w, (uint8_t)i);
    str(w, "input_sizes"), op(w, ']'), op(w, '('), op(w, ']'), op(w, '(');
    if (four_dim_shapes) {
        int dims[4] = { 1, 100 + i, 3, 4 };
        for (int k = 0; k < 4; k++)
            op(w, 'M'), op(w, (uint8_t)dims[k]), op(w, (uint8_t)(dims[k] >> 8));
    } else {
        op(w, 'M'), op(w, 0), op(w, (uint8_t)(16 + i % 2));
    }
    op(w, 'e'), op(w, 'e');
    str(w, "input_dtypes"), op(w, ']'), op(w, '(');
    if (t == TWO_DTYPES) str(w, "Half");
    str(w, "Float"), op(w, 'e');
    if (t == SWAPPED_KEYS) str(w, "state"), str(w, "completed");
    str(w, "output_sizes"), op(w, ']'), op(w, '('), op(w, ']'), op(w, '('), op(w, 'M'), op(w, 0),
        op(w, 16), op(w, 'e');
    op(w, 'e');
    str(w, "output_dtypes"), op(w, ']'), op(w, '('), str(w, "Float"), op(w, 'e');
    if (t == OLD_ID_AS_KEY)
        op(w, 'h'), op(w, (uint8_t)w->old_state_id), str(w, "completed");
    else if (t != SWAPPED_KEYS)
        str(w, "state"), str(w, i % 4 ? "completed" : "started");
    str(w, "time_discovered_started_ns"), op(w, 'N');
    str(w, "time_discovered_completed_ns"), op(w, 'J'), op(w, 0xff), op(w, 0xff), op(w, 0xff),
        op(w, 0x7f);
    str(w, "retired");
    if (t == OTHER_ENCODINGS)
        int1(w, 1);
    else
        op(w, i % 2 ? 0x88 : 0x89);
    str(w, "timeout_ms"), op(w, 'J'), op(w, 0xc0), op(w, 0x27), op(w, 9), op(w, 0);
    str(w, "is_p2p"), op(w, 0x89);
    if (t == OLD_ID_AS_KEY) str(w, "state"), str(w, "scheduled");
    op(w, 'u');
}

/* A dump's top-level dict up to its entries' first batch: version, pg_config, "entries". */
static void dump_opening(pickler *w) {
    op(w, 0x80), op(w, 2), op(w, '}'), op(w, '(');
    str(w, "version"), str(w, "2.9");
    str(w, "pg_config"), op(w, '}'), op(w, '('), str(w, "0"), op(w, '}'), op(w, '(');
    str(w, "name"), str(w, "0"), str(w, "desc"), str(w, "default_pg"), str(w, "ranks"),
        str(w, "[0]");
    op(w, 'u'), op(w, 'u');
    str(w, "entries"), op(w, ']'), op(w, '(');
}

static size_t twisted_dump(uint8_t *out, twist t) {
    pickler w = { .out = out };
    dump_opening(&w);
    for (int i = 0; i < 12; i++) {
        twist ti = i == 5 ? t : PLAIN;
        if (i == 6 && t == REBOUND_KEY) ti = OLD_ID_AS_KEY;
        entry(&w, i, ti);
    }
    op(&w, 'e'), op(&w, 'u'), op(&w, '.');
    return w.n;
}

/* 100 shape lists of 18 bytes that differ only in bytes 8-9 (the second dim): more than the
 * direct path's table has slots, so some share one; a list met before is reused only when all
 * its bytes are the same (mutation d06: comparing the first and last 8 bytes is not enough). */
static void shape_lists_that_share_a_slot_are_told_apart(void **state) {
    static uint8_t buf[1 << 16];
    pickler w = { .out = buf };
    dump_opening(&w);
    four_dim_shapes = 1;
    for (int i = 0; i < 100; i++) entry(&w, i, PLAIN);
    four_dim_shapes = 0;
    op(&w, 'e'), op(&w, 'u'), op(&w, '.');
    assert_true(w.n < sizeof buf);
    two_ways t = two_ways_new();
    assert_true(same_both_ways(&t, buf, w.n, "four-dim shapes"));
    fr_dump *d;
    fr_error err;
    assert_int_equal(fr_decoder_decode(t.fast, buf, w.n, &d, &err), 0);
    assert_int_equal(d->nentries, 100);
    for (uint32_t i = 0; i < 100; i++) {
        const fr_shape *sh = &d->entries[i].input_sizes.shapes[0];
        assert_int_equal(sh->ndim, 4);
        assert_int_equal(sh->dims[1], 100 + i);
    }
    fr_dump_free(d);
    two_ways_free(&t);
}

static void entries_off_the_layout_decode_the_same_both_ways(void **state) {
    static const char *const what[] = {
        "plain",          "swapped keys",       "an extra key",      "a missing key",
        "a repeated key", "a PUT after an int", "a LONG_BINGET key", "other encodings",
        "two batches",    "a rebound key",      "two dtypes"
    };
    uint8_t buf[16384];
    two_ways t = two_ways_new();
    for (int k = 0; k < NTWISTS; k++) {
        size_t len = twisted_dump(buf, (twist)k);
        assert_true(len < sizeof buf);
        bool direct = same_both_ways(&t, buf, len, what[k]);
        if (direct != (k != REPEATED_KEY))
            fail_msg("%s: the direct path %s it", what[k], direct ? "took" : "declined");
        fr_dump *d;
        fr_error err;
        assert_int_equal(fr_decoder_decode(t.fast, buf, len, &d, &err), 0);
        assert_int_equal(d->nentries, 12);
        for (uint32_t i = 0; i < 12; i++) assert_int_equal(d->entries[i].record_id, i);
        assert_int_equal(d->entries[11].time_created_ns, 0x0b07060504030201LL);
        assert_int_equal(d->entries[11].input_sizes.shapes[0].dims[0], 17 << 8);
        if (k == REBOUND_KEY) {
            assert_string_equal(d->entries[5].profiling_name, "nccl:broadcast");
            assert_int_equal(d->entries[6].state, FR_STATE_SCHEDULED);
        }
        if (k == OTHER_ENCODINGS) assert_int_equal(d->entries[5].time_created_ns, -0x7afbfcfdffLL);
        assert_int_equal(d->entries[5].input_dtypes.count, k == TWO_DTYPES ? 2 : 1);
        assert_int_equal(d->entries[5].output_dtypes.count, 1);
        assert_int_equal(d->entries[6].input_dtypes.count, 1);
        assert_string_equal(d->entries[6].input_dtypes.items[0], "Float");
        fr_dump_free(d);
    }
    two_ways_free(&t);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_torch_shaped_dump_is_read_field_by_field),
        cmocka_unit_test(entries_off_the_layout_decode_the_same_both_ways),
        cmocka_unit_test(shape_lists_that_share_a_slot_are_told_apart),
        cmocka_unit_test(shapes_the_direct_path_declines_still_decode_the_generic_way),
        cmocka_unit_test(every_shared_pickle_takes_the_direct_path_to_the_same_dump),
        cmocka_unit_test(a_dump_cut_at_every_byte_decodes_the_same_both_ways),
        cmocka_unit_test(flipped_bytes_decode_the_same_both_ways),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
