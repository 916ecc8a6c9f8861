/* test_dump_decode.c — values → fr_dump for every FR version, error messages, interning, and
 * the salvage of truncated pickles (real dumps cut at every byte when ../shared is present). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dump.h"
#include "dump_equal.h"
#include "files.h"

/* --- building value trees as each version's writer did ------------------------------------ */

typedef struct build {
    fv_arena *a;
    int minor; /* 2.<minor> */
} build;

static fv *s(build *b, const char *str) { return fv_cstr(b->a, str); }
static fv *i(build *b, int64_t v) { return fv_int(b->a, v); }
static void put(build *b, fv *d, const char *k, fv *v) {
    assert_true(fv_dict_set(b->a, d, s(b, k), v));
}

static fv *shape_list(build *b, int64_t d0, int64_t d1) {
    fv *outer = fv_list(b->a), *inner = fv_list(b->a);
    fv_seq_push(b->a, inner, i(b, d0));
    fv_seq_push(b->a, inner, i(b, d1));
    fv_seq_push(b->a, outer, inner);
    return outer;
}

static fv *str_list(build *b, const char *x) {
    fv *l = fv_list(b->a);
    fv_seq_push(b->a, l, s(b, x));
    return l;
}

static fv *frames(build *b) {
    fv *l = fv_list(b->a), *f = fv_dict(b->a);
    put(b, f, "name", s(b, "all_reduce"));
    put(b, f, "filename", s(b, "/opt/torch/distributed/distributed_c10d.py"));
    put(b, f, "line", i(b, 2696));
    fv_seq_push(b->a, l, f);
    return l;
}

/* One entry in the key order and with the keys of version 2.<minor>. */
static fv *entry(build *b, int64_t id, const char *dtype, bool with_duration, bool tuple_pg) {
    fv *e = fv_dict(b->a);
    if (b->minor >= 2) put(b, e, "frames", frames(b));
    put(b, e, "record_id", i(b, id));
    put(b, e, "pg_id", i(b, 0));
    fv *pg = tuple_pg ? fv_tuple(b->a) : fv_list(b->a);
    fv_seq_push(b->a, pg, s(b, "0"));
    fv_seq_push(b->a, pg, s(b, "default_pg"));
    put(b, e, "process_group", pg);
    if (b->minor >= 8) {
        put(b, e, "thread_name", s(b, "pt_main_thread"));
        put(b, e, "thread_id", s(b, "140245215201088"));
    }
    put(b, e, "collective_seq_id", i(b, id + 1));
    put(b, e, "p2p_seq_id", i(b, 0));
    put(b, e, "op_id", i(b, id + 1));
    put(b, e, "profiling_name", s(b, "nccl:all_reduce"));
    put(b, e, "time_created_ns", i(b, 1724779239936775119LL + id));
    if (with_duration) put(b, e, "duration_ms", fv_float(b->a, 0.5));
    put(b, e, "input_sizes", shape_list(b, 3, 4));
    put(b, e, "input_dtypes", str_list(b, dtype));
    put(b, e, "output_sizes", shape_list(b, 3, 4));
    put(b, e, "output_dtypes", str_list(b, dtype));
    put(b, e, "state", s(b, "completed"));
    put(b, e, "time_discovered_started_ns", with_duration ? i(b, 5) : fv_none(b->a));
    put(b, e, "time_discovered_completed_ns", with_duration ? i(b, 0) : fv_none(b->a));
    put(b, e, "retired", fv_bool(b->a, true));
    if (b->minor >= 1) put(b, e, "timeout_ms", i(b, 600000));
    put(b, e, "is_p2p", fv_bool(b->a, false));
    if (b->minor == 0) put(b, e, "frames", frames(b));
    return e;
}

static fv *pg_config(build *b, const char *ranks) {
    fv *cfg = fv_dict(b->a), *g = fv_dict(b->a);
    put(b, g, "name", s(b, "0"));
    put(b, g, "desc", s(b, "default_pg"));
    put(b, g, "ranks", s(b, ranks));
    put(b, cfg, "0", g);
    return cfg;
}

static fv *pg_status(build *b, bool as_strings) {
    fv *st = fv_dict(b->a), *g = fv_dict(b->a);
    put(b, g, "last_enqueued_collective", as_strings ? s(b, "2") : i(b, 2));
    put(b, g, "last_started_collective", as_strings ? s(b, "-1") : i(b, -1));
    put(b, g, "last_completed_collective", as_strings ? s(b, "1") : i(b, 1));
    put(b, st, "0", g);
    return st;
}

static fv *root(build *b, int nentries, const char *dtype) {
    fv *r = fv_dict(b->a), *list = fv_list(b->a);
    for (int k = 0; k < nentries; k++) fv_seq_push(b->a, list, entry(b, k, dtype, k == 0, true));
    char version[16];
    snprintf(version, sizeof version, "2.%d", b->minor);
    if (b->minor == 0) put(b, r, "entries", list);
    put(b, r, "version", s(b, version));
    put(b, r, "pg_config", pg_config(b, "[0, 1]"));
    if (b->minor >= 10)
        put(b, r, "comm_lib_version", s(b, "2.27.5"));
    else if (b->minor >= 6)
        put(b, r, "nccl_version", s(b, "2.21.5"));
    if (b->minor >= 3) put(b, r, "pg_status", pg_status(b, false));
    if (b->minor >= 1) put(b, r, "entries", list);
    return r;
}

/* Decodes `r` (built in b->a) into a dump that owns a fresh arena. */
static fr_dump *decode(fv *r, fr_error *err) {
    fv_arena *arena = fv_arena_new();
    fr_dump *d = NULL;
    if (fr_dump_from_value(r, arena, FR_ENCODING_PICKLE, &d, err) != 0) {
        fv_arena_free(arena);
        return NULL;
    }
    return d;
}

static fr_dump *decode_ok(fv *r) {
    fr_error err = { { 0 } };
    fr_dump *d = decode(r, &err);
    if (!d) fail_msg("decode failed: %s", err.msg);
    return d;
}

static void expect_error(fv *r, const char *message) {
    fr_error err = { { 0 } };
    fr_dump *d = decode(r, &err);
    assert_null(d);
    assert_string_equal(err.msg, message);
}

/* --- versions ------------------------------------------------------------------------------ */

static void version_2_0_has_frames_last_legacy_dtypes_and_no_timeout(void **state) {
    build b = { fv_arena_new(), 0 };
    fr_dump *d = decode_ok(root(&b, 2, "float"));
    assert_string_equal(d->version, "2.0");
    assert_int_equal(d->version_major, 2);
    assert_int_equal(d->version_minor, 0);
    assert_int_equal(d->nentries, 2);
    fr_entry *e = &d->entries[0];
    assert_string_equal(e->input_dtypes.items[0], "Float");
    assert_int_equal(e->timeout_ms, -1);
    assert_int_equal(e->nframes, 1);
    assert_string_equal(e->frames[0].name, "all_reduce");
    assert_int_equal(e->frames[0].line, 2696);
    assert_null(e->thread_name);
    assert_int_equal(d->nstatus, 0);
    assert_null(d->comm_lib_version);
    assert_true(d->has_entries);
    fr_dump_free(d);
    fv_arena_free(b.a);
}

static void legacy_dtype_spellings_become_c10_names(void **state) {
    static const char *const pairs[][2] = {
        { "c10::BFloat16", "BFloat16" }, { "double", "Double" },
        { "long int", "Long" },          { "c10::Half", "Half" },
        { "unsigned char", "Byte" },     { "c10::Float8_e4m3fn", "Float8_e4m3fn" },
        { "BFloat16", "BFloat16" }
    };
    for (size_t k = 0; k < sizeof pairs / sizeof pairs[0]; k++) {
        build b = { fv_arena_new(), 0 };
        fr_dump *d = decode_ok(root(&b, 1, pairs[k][0]));
        assert_string_equal(d->entries[0].output_dtypes.items[0], pairs[k][1]);
        fr_dump_free(d);
        fv_arena_free(b.a);
    }
}

static void version_2_2_has_no_pg_status_and_frames_first(void **state) {
    build b = { fv_arena_new(), 2 };
    fr_dump *d = decode_ok(root(&b, 1, "Float"));
    assert_int_equal(d->nstatus, 0);
    assert_int_equal(d->entries[0].timeout_ms, 600000);
    assert_int_equal(d->entries[0].nframes, 1);
    fr_dump_free(d);
    fv_arena_free(b.a);
}

static void version_2_4_has_pg_status(void **state) {
    build b = { fv_arena_new(), 4 };
    fr_dump *d = decode_ok(root(&b, 1, "Float"));
    assert_int_equal(d->nstatus, 1);
    assert_int_equal(d->status[0].pg_id, 0);
    assert_int_equal(d->status[0].last_enqueued, 2);
    assert_int_equal(d->status[0].last_started, -1);
    assert_int_equal(d->status[0].last_completed, 1);
    assert_null(d->entries[0].thread_name);
    fr_dump_free(d);
    fv_arena_free(b.a);
}

static void version_2_8_has_thread_fields_and_nccl_version(void **state) {
    build b = { fv_arena_new(), 8 };
    fr_dump *d = decode_ok(root(&b, 1, "Float"));
    assert_string_equal(d->entries[0].thread_name, "pt_main_thread");
    assert_string_equal(d->entries[0].thread_id, "140245215201088");
    assert_string_equal(d->comm_lib_version, "2.21.5");
    fr_dump_free(d);
    fv_arena_free(b.a);
}

static void version_2_10_has_comm_lib_version(void **state) {
    build b = { fv_arena_new(), 10 };
    fr_dump *d = decode_ok(root(&b, 1, "Float"));
    assert_string_equal(d->version, "2.10");
    assert_int_equal(d->version_minor, 10);
    assert_string_equal(d->comm_lib_version, "2.27.5");
    fr_dump_free(d);
    fv_arena_free(b.a);
}

static void any_other_version_key_is_the_comm_lib_version(void **state) {
    build b = { fv_arena_new(), 4 };
    fv *r = root(&b, 1, "Float");
    put(&b, r, "xccl_version", s(&b, "2021.13"));
    fr_dump *d = decode_ok(r);
    assert_string_equal(d->comm_lib_version, "2021.13");
    fr_dump_free(d);
    fv_arena_free(b.a);
}

static void a_later_minor_version_with_extra_keys_is_read(void **state) {
    build b = { fv_arena_new(), 11 };
    fv *r = root(&b, 2, "Float");
    put(&b, fv_item(fv_dict_get(r, "entries"), 1), "stream_id", i(&b, 7));
    put(&b, r, "future_top_level_key", fv_list(b.a));
    fr_dump *d = decode_ok(r);
    assert_string_equal(d->version, "2.11");
    assert_int_equal(d->nentries, 2);
    assert_int_equal(d->entries[1].record_id, 1);
    fr_dump_free(d);
    fv_arena_free(b.a);
}

static void duration_and_time_discovered_may_be_absent_none_or_zero(void **state) {
    build b = { fv_arena_new(), 9 };
    fr_dump *d = decode_ok(root(&b, 2, "Float"));
    assert_true(d->entries[0].has_duration);
    assert_true(d->entries[0].duration_ms == 0.5);
    assert_int_equal(d->entries[0].time_discovered_started_ns, 5);
    assert_int_equal(d->entries[0].time_discovered_completed_ns, 0); /* 0 */
    assert_false(d->entries[1].has_duration);
    assert_int_equal(d->entries[1].time_discovered_started_ns, 0); /* None */
    fr_dump_free(d);
    fv_arena_free(b.a);
}

static void process_group_may_be_a_tuple_or_a_list(void **state) {
    build b = { fv_arena_new(), 9 };
    fv *r = root(&b, 0, "Float");
    fv *list = fv_dict_get(r, "entries");
    fv_seq_push(b.a, list, entry(&b, 0, "Float", false, true));
    fv_seq_push(b.a, list, entry(&b, 1, "Float", false, false));
    fr_dump *d = decode_ok(r);
    assert_string_equal(d->entries[0].pg_name, "0");
    assert_string_equal(d->entries[1].pg_desc, "default_pg");
    fr_dump_free(d);
    fv_arena_free(b.a);
}

static void equal_strings_share_one_pointer(void **state) {
    build b = { fv_arena_new(), 9 };
    fr_dump *d = decode_ok(root(&b, 3, "BFloat16")); /* every string a distinct node, as in JSON */
    assert_ptr_equal(d->entries[0].pg_name, d->entries[2].pg_name);
    assert_ptr_equal(d->entries[0].pg_name, d->groups[0].name);
    assert_ptr_equal(d->entries[0].profiling_name, d->entries[1].profiling_name);
    assert_ptr_equal(d->entries[0].input_dtypes.items[0], d->entries[2].output_dtypes.items[0]);
    assert_ptr_equal(d->entries[0].frames[0].filename, d->entries[1].frames[0].filename);
    assert_ptr_equal(d->entries[1].thread_id, d->entries[2].thread_id);
    fr_dump_free(d);
    fv_arena_free(b.a);
}

static void includecollectives_false_means_no_entries(void **state) {
    build b = { fv_arena_new(), 9 };
    fv *r = fv_dict(b.a);
    put(&b, r, "version", s(&b, "2.9"));
    put(&b, r, "pg_config", pg_config(&b, "[]"));
    fr_dump *d = decode_ok(r);
    assert_false(d->has_entries);
    assert_int_equal(d->nentries, 0);
    assert_int_equal(d->groups[0].nranks, 0);
    fr_dump_free(d);
    fv_arena_free(b.a);
}

/* --- pg_config ranks and pg_status --------------------------------------------------------- */

static void ranks_strings_and_lists_are_parsed(void **state) {
    static const struct {
        const char *text;
        uint32_t n;
        int64_t last;
    } ok[] = {
        { "[0, 1, 2, 3]", 4, 3 },         { "[0,1]", 2, 1 }, { "[]", 0, 0 }, { "[ 7 ]", 1, 7 },
        { "[2147483647]", 1, INT32_MAX },
    };
    for (size_t k = 0; k < sizeof ok / sizeof ok[0]; k++) {
        build b = { fv_arena_new(), 9 };
        fv *r = root(&b, 0, "Float");
        put(&b, r, "pg_config", pg_config(&b, ok[k].text));
        fr_dump *d = decode_ok(r);
        assert_int_equal(d->groups[0].nranks, ok[k].n);
        if (ok[k].n) assert_int_equal(d->groups[0].ranks[ok[k].n - 1], ok[k].last);
        fr_dump_free(d);
        fv_arena_free(b.a);
    }
    build b = { fv_arena_new(), 9 };
    fv *r = root(&b, 0, "Float");
    fv *ranks = fv_list(b.a);
    fv_seq_push(b.a, ranks, i(&b, 4));
    fv_seq_push(b.a, ranks, i(&b, 6));
    put(&b, fv_dict_get(fv_dict_get(r, "pg_config"), "0"), "ranks", ranks);
    fr_dump *d = decode_ok(r);
    assert_int_equal(d->groups[0].nranks, 2);
    assert_int_equal(d->groups[0].ranks[1], 6);
    fr_dump_free(d);
    fv_arena_free(b.a);
}

static void malformed_ranks_strings_are_refused(void **state) {
    static const char *const bad[] = { "[0,,1]",  "[0, 1", "0, 1]",
                                       "abc",     "[1 2]", "[99999999999999999999]",
                                       "[0, 1]x", "",      "[-]",
                                       "[1,]" };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        build b = { fv_arena_new(), 9 };
        fv *r = root(&b, 0, "Float");
        put(&b, r, "pg_config", pg_config(&b, bad[k]));
        fr_error err = { { 0 } };
        assert_null(decode(r, &err));
        assert_non_null(strstr(err.msg, "pg_config[\"0\"]: \"ranks\" is"));
        fv_arena_free(b.a);
    }
}

/* Numbers that parse but cannot be ranks (>= 2^31, negative), in a text or a list, name the group.
 */
static void numbers_that_cannot_be_ranks_are_refused(void **state) {
    static const char *const bad[] = { "[0, 4294967295]", "[2147483648]", "[-5, 1]",
                                       "[9223372036854775807]" };
    for (size_t k = 0; k <= sizeof bad / sizeof bad[0]; k++) {
        build b = { fv_arena_new(), 9 };
        fv *r = root(&b, 0, "Float");
        if (k < sizeof bad / sizeof bad[0]) {
            put(&b, r, "pg_config", pg_config(&b, bad[k]));
        } else {
            fv *ranks = fv_list(b.a);
            fv_seq_push(b.a, ranks, i(&b, -1));
            put(&b, fv_dict_get(fv_dict_get(r, "pg_config"), "0"), "ranks", ranks);
        }
        fr_error err = { { 0 } };
        assert_null(decode(r, &err));
        if (!strstr(err.msg, "pg_config[\"0\"]: \"ranks\" lists ") ||
            !strstr(err.msg, "cannot be a rank"))
            fail_msg("%s", err.msg);
        fv_arena_free(b.a);
    }
}

static void pg_status_values_may_be_strings(void **state) {
    build b = { fv_arena_new(), 10 };
    fv *r = root(&b, 0, "Float");
    put(&b, r, "pg_status", pg_status(&b, true));
    fr_dump *d = decode_ok(r);
    assert_int_equal(d->status[0].last_started, -1);
    assert_int_equal(d->status[0].last_completed, 1);
    fr_dump_free(d);
    fv_arena_free(b.a);
}

/* --- errors -------------------------------------------------------------------------------- */

static void missing_or_malformed_top_level_keys_are_named(void **state) {
    build b = { fv_arena_new(), 9 };
    fv *r = root(&b, 1, "Float");
    fv *no_version = fv_dict(b.a);
    put(&b, no_version, "pg_config", pg_config(&b, "[0]"));
    expect_error(no_version, "not a Flight Recorder dump: no \"version\" key");
    put(&b, r, "version", s(&b, "abc"));
    expect_error(r, "version \"abc\" is not MAJOR.MINOR");
    put(&b, r, "version", s(&b, "2."));
    expect_error(r, "version \"2.\" is not MAJOR.MINOR");
    put(&b, r, "version", fv_float(b.a, 2.9));
    expect_error(r, "\"version\" is a float, expected str like \"2.9\"");
    fv *no_config = fv_dict(b.a);
    put(&b, no_config, "version", s(&b, "2.9"));
    expect_error(no_config, "not a Flight Recorder dump: no \"pg_config\" key");
    expect_error(fv_list(b.a), "not a Flight Recorder dump: the top level is a list, not a dict");
    fv_arena_free(b.a);
}

static void a_malformed_entry_names_its_index_and_key(void **state) {
    build b = { fv_arena_new(), 9 };
    fv *r = root(&b, 18, "Float");
    fv *entries = fv_dict_get(r, "entries");
    put(&b, fv_item(entries, 17), "collective_seq_id", s(&b, "3"));
    expect_error(r, "entry 17: \"collective_seq_id\" is a str, expected int");
    put(&b, fv_item(entries, 17), "collective_seq_id", i(&b, 3));
    put(&b, fv_item(entries, 4), "state", s(&b, "exploded"));
    expect_error(r, "entry 4: unknown state \"exploded\"");
    put(&b, fv_item(entries, 4), "state", s(&b, "started"));
    put(&b, fv_item(entries, 5), "input_sizes", i(&b, 3));
    expect_error(r, "entry 5: \"input_sizes\" is an int, expected list of lists of int");
    put(&b, fv_item(entries, 5), "input_sizes", shape_list(&b, 1, 2));
    put(&b, fv_item(entries, 6), "retired", fv_none(b.a));
    expect_error(r, "entry 6: \"retired\" is None, expected bool");
    fv_arena_free(b.a);

    b.a = fv_arena_new();
    r = root(&b, 0, "Float");
    fv *e = fv_dict(b.a);
    put(&b, e, "record_id", i(&b, 1));
    fv_seq_push(b.a, fv_dict_get(r, "entries"), e);
    expect_error(r, "entry 0: no \"pg_id\" key");
    fv_arena_free(b.a);
}

/* --- the recorder's extra key ------------------------------------------------------------- */

static void the_frtrace_key_carries_rank_trigger_and_comms(void **state) {
    build b = { fv_arena_new(), 10 };
    fv *r = root(&b, 1, "Float");
    fv *x = fv_dict(b.a), *comms = fv_dict(b.a), *c = fv_dict(b.a);
    put(&b, x, "version", s(&b, "1"));
    put(&b, x, "global_rank", i(&b, 12));
    put(&b, x, "trigger", s(&b, "timeout"));
    put(&b, c, "comm_rank", i(&b, 1));
    put(&b, c, "comm_size", i(&b, 4));
    put(&b, c, "parent", s(&b, "0"));
    put(&b, c, "color", i(&b, 3));
    put(&b, c, "nccl_hash", s(&b, "0x1f2e"));
    put(&b, c, "state", fv_none(b.a));
    put(&b, comms, "7", c);
    put(&b, x, "comms", comms);
    put(&b, r, "frtrace", x);
    fr_dump *d = decode_ok(r);
    static const fr_comm_info comm = { "7", 1, 4, "0", 3, "0x1f2e", NULL }; /* state: None */
    assert_int_equal(d->global_rank, 12);
    assert_string_equal(d->trigger, "timeout");
    assert_int_equal(d->ncomms, 1);
    assert_true(comm_eq(&d->comms[0], &comm));
    fr_dump_free(d);

    build plain = { fv_arena_new(), 10 };
    d = decode_ok(root(&plain, 1, "Float"));
    assert_int_equal(d->global_rank, -1);
    assert_int_equal(d->ncomms, 0);
    fr_dump_free(d);
    fv_arena_free(plain.a);
    fv_arena_free(b.a);
}

/* --- whole files ------------------------------------------------------------------------- */

#define SYNTH "../shared/testdata/torch-fr-synthetic/"
#define REAL  "../shared/testdata/torch-fr-2.9-nvrx/"

static void the_encoding_is_detected_by_content(void **state) {
    size_t len;
    uint8_t *json = slurp(SYNTH "v2.10_json_rank_0.json", &len);
    if (!json) skip();
    fr_error err = { { 0 } };
    fr_dump *d;
    assert_int_equal(fr_dump_decode(json, len, &d, &err), 0);
    assert_int_equal(d->encoding, FR_ENCODING_JSON);
    assert_int_equal(d->nentries, 3);
    assert_int_equal(d->status[0].last_enqueued, 2);
    assert_int_equal(d->entries[2].time_discovered_completed_ns, 0);
    assert_null(d->entries[0].frames);
    fr_dump_free(d);
    free(json);

    uint8_t *pickle = slurp(SYNTH "v2.0_pickle_rank_0", &len);
    assert_int_equal(fr_dump_decode(pickle, len, &d, &err), 0);
    assert_int_equal(d->encoding, FR_ENCODING_PICKLE);
    assert_string_equal(d->entries[2].profiling_name, "nccl:send 0->1");
    assert_string_equal(d->entries[2].input_dtypes.items[0], "Float");
    assert_int_equal(d->entries[2].nframes, 3);
    /* memoized frame dicts and strings: one pointer */
    assert_ptr_equal(d->entries[0].frames[1].name, d->entries[2].frames[1].name);
    fr_dump_free(d);
    free(pickle);

    static const uint8_t spaced[] = "  \n{\"version\": \"2.4\", \"pg_config\": {}}";
    assert_int_equal(fr_dump_decode(spaced, sizeof spaced - 1, &d, &err), 0);
    assert_int_equal(d->encoding, FR_ENCODING_JSON);
    assert_true(d->has_entries); /* JSON leaves out an empty entries list */
    fr_dump_free(d);
}

static bool same_entry(const fr_entry *a, const fr_entry *b) {
    return a->record_id == b->record_id && a->collective_seq_id == b->collective_seq_id &&
           a->p2p_seq_id == b->p2p_seq_id && strcmp(a->profiling_name, b->profiling_name) == 0 &&
           strcmp(a->pg_name, b->pg_name) == 0 && a->state == b->state &&
           a->input_sizes.count == b->input_sizes.count &&
           a->time_created_ns == b->time_created_ns && strcmp(a->thread_id, b->thread_id) == 0 &&
           a->timeout_ms == b->timeout_ms && a->is_p2p == b->is_p2p;
}

/* Cut a real dump at every byte: never a crash; either an error or a salvaged dump whose
 * entries are a prefix of the whole dump's. */
static void a_truncated_dump_gives_an_error_or_a_prefix_of_its_entries(void **state) {
    size_t len;
    uint8_t *bytes = slurp(REAL "gpu_error_1st/_dump_5", &len);
    if (!bytes) skip();
    fr_error err = { { 0 } };
    fr_dump *full;
    assert_int_equal(fr_dump_decode(bytes, len, &full, &err), 0);
    assert_false(full->truncated);
    assert_true(full->nentries > 5);
    int salvaged = 0, refused = 0;
    uint32_t most = 0;
    for (size_t cut = 0; cut < len; cut++) {
        uint8_t *part = malloc(cut ? cut : 1);
        memcpy(part, bytes, cut);
        fr_dump *d = NULL;
        if (fr_dump_decode(part, cut, &d, &err) == 0) {
            salvaged++;
            assert_true(d->truncated);
            assert_non_null(d->warning);
            assert_true(d->nentries <= full->nentries);
            for (uint32_t k = 0; k < d->nentries; k++)
                assert_true(same_entry(&d->entries[k], &full->entries[k]));
            if (d->nentries > most) most = d->nentries;
            fr_dump_free(d);
        } else {
            refused++;
            assert_true(err.msg[0] != '\0');
        }
        free(part);
    }
    assert_true(salvaged > 0);
    assert_true(refused > 0);
    assert_true(most >= full->nentries - 1);
    fr_dump_free(full);
    free(bytes);
}

static void a_cut_before_the_entries_is_an_error(void **state) {
    size_t len;
    uint8_t *bytes = slurp(REAL "gpu_error_1st/_dump_5", &len);
    if (!bytes) skip();
    fr_error err = { { 0 } };
    fr_dump *d;
    assert_int_equal(fr_dump_decode(bytes, 200, &d, &err), -1); /* inside pg_config */
    assert_non_null(strstr(err.msg, "truncated pickle at byte"));
    free(bytes);
}

/* The same for a JSON dump (PyTorch's _dump_nccl_trace_json, torchcomms, Ray): cut at every
 * byte, it is refused or gives a prefix of its whole entries, never a partial one, and says
 * "truncated", not "JSON parse error". */
static void a_truncated_json_dump_keeps_its_whole_entries(void **state) {
    size_t len;
    uint8_t *bytes = slurp("testdata/torch-2.15.0-gloo/healthy-json/rank_0.json", &len);
    assert_non_null(bytes);
    fr_error err = { { 0 } };
    fr_dump *full;
    assert_int_equal(fr_dump_decode(bytes, len, &full, &err), 0);
    assert_false(full->truncated);
    assert_true(full->nentries > 5);
    int salvaged = 0, refused = 0;
    uint32_t most = 0;
    for (size_t cut = 1; cut < len; cut++) {
        fr_dump *d = NULL;
        if (fr_dump_decode(bytes, cut, &d, &err) == 0) {
            salvaged++;
            assert_true(d->truncated);
            assert_non_null(strstr(d->warning, "truncated at byte"));
            assert_true(d->nentries <= full->nentries);
            for (uint32_t k = 0; k < d->nentries; k++)
                assert_true(same_entry(&d->entries[k], &full->entries[k]));
            if (d->nentries > most) most = d->nentries;
            fr_dump_free(d);
        } else {
            refused++;
            if (cut > 16) assert_non_null(strstr(err.msg, "truncated JSON at byte"));
        }
    }
    assert_true(salvaged > 0);
    assert_true(refused > 0);
    assert_int_equal(most, full->nentries); /* cut after "entries", before the header */
    fr_dump_free(full);
    free(bytes);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(version_2_0_has_frames_last_legacy_dtypes_and_no_timeout),
        cmocka_unit_test(legacy_dtype_spellings_become_c10_names),
        cmocka_unit_test(version_2_2_has_no_pg_status_and_frames_first),
        cmocka_unit_test(version_2_4_has_pg_status),
        cmocka_unit_test(version_2_8_has_thread_fields_and_nccl_version),
        cmocka_unit_test(version_2_10_has_comm_lib_version),
        cmocka_unit_test(any_other_version_key_is_the_comm_lib_version),
        cmocka_unit_test(a_later_minor_version_with_extra_keys_is_read),
        cmocka_unit_test(duration_and_time_discovered_may_be_absent_none_or_zero),
        cmocka_unit_test(process_group_may_be_a_tuple_or_a_list),
        cmocka_unit_test(equal_strings_share_one_pointer),
        cmocka_unit_test(includecollectives_false_means_no_entries),
        cmocka_unit_test(ranks_strings_and_lists_are_parsed),
        cmocka_unit_test(malformed_ranks_strings_are_refused),
        cmocka_unit_test(numbers_that_cannot_be_ranks_are_refused),
        cmocka_unit_test(pg_status_values_may_be_strings),
        cmocka_unit_test(missing_or_malformed_top_level_keys_are_named),
        cmocka_unit_test(a_malformed_entry_names_its_index_and_key),
        cmocka_unit_test(the_frtrace_key_carries_rank_trigger_and_comms),
        cmocka_unit_test(the_encoding_is_detected_by_content),
        cmocka_unit_test(a_truncated_dump_gives_an_error_or_a_prefix_of_its_entries),
        cmocka_unit_test(a_cut_before_the_entries_is_an_error),
        cmocka_unit_test(a_truncated_json_dump_keeps_its_whole_entries),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
