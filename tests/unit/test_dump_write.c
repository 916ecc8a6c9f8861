/* test_dump_write.c — fr_dump → pickle/JSON: versions, the fixed-memory path the recorder uses,
 * the "frtrace", "frtrace_identity" and "frtrace_stacks" extra keys both ways (and through both
 * decoding paths), and JSON number formatting. Byte-exact comparisons with the
 * real and synthetic dumps are in tests/t0150-dump-roundtrip.sh. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dump.h"
#include "dump_decoder.h"
#include "dump_equal.h"
#include "dump_write.h"
#include "pickle_write.h"
#include "files.h"

typedef struct bytes {
    uint8_t *data;
    size_t len, cap;
} bytes;

static int collect(void *ctx, const uint8_t *p, size_t n) {
    bytes *b = ctx;
    if (b->len + n + 1 > b->cap) {
        b->cap = (b->len + n + 1) * 2;
        b->data = realloc(b->data, b->cap);
    }
    memcpy(b->data + b->len, p, n);
    b->len += n;
    b->data[b->len] = 0;
    return 0;
}

static fr_dump *decode_file(const char *path) {
    size_t len;
    uint8_t *content = slurp(path, &len);
    if (!content) return NULL;
    fr_error err = { { 0 } };
    fr_dump *d = NULL;
    if (fr_dump_decode(content, len, &d, &err) != 0) fail_msg("%s: %s", path, err.msg);
    free(content);
    return d;
}

static void heap_pickle(const fr_dump *d, const fr_write_options *o, bytes *out) {
    pw_writer w;
    fr_error err = { { 0 } };
    assert_int_equal(pw_init_alloc(&w, collect, out), 0);
    assert_int_equal(fr_dump_write_pickle(d, o, &w, &err), 0);
    assert_int_equal(pw_finish(&w, NULL, NULL), 0);
}

/* The recorder's path: a 13-byte staging buffer, a fixed memo, caller's scratch, no malloc. */
static void fixed_pickle(const fr_dump *d, fr_write_options o, void *scratch, size_t scratch_size,
                         bytes *out) {
    uint8_t buf[13];
    static pw_memo_slot memo[4096];
    pw_writer w;
    fr_error err = { { 0 } };
    pw_init(&w, buf, sizeof buf, memo, 4096, collect, out);
    o.scratch = scratch;
    o.scratch_size = scratch_size;
    assert_int_equal(fr_dump_write_pickle(d, &o, &w, &err), 0);
    assert_int_equal(pw_finish(&w, NULL, NULL), 0);
}

#define SYNTH "../shared/testdata/torch-fr-synthetic/"

static void the_fixed_memory_path_writes_the_heap_bytes_in_every_version(void **state) {
    fr_dump *d = decode_file(SYNTH "v2.0_pickle_rank_0"); /* frames, shared frame dicts */
    if (!d) skip();
    static const int minors[] = { 0, 2, 4, 9, 10 };
    for (size_t k = 0; k < sizeof minors / sizeof minors[0]; k++) {
        fr_write_options o = { .version_major = 2, .version_minor = minors[k] };
        bytes heap = { 0 }, fixed = { 0 };
        heap_pickle(d, &o, &heap);
        size_t size = fr_dump_write_scratch_size(d);
        void *scratch = malloc(size);
        fixed_pickle(d, o, scratch, size, &fixed);
        assert_int_equal(fixed.len, heap.len);
        assert_memory_equal(fixed.data, heap.data, heap.len);
        free(scratch);
        free(heap.data);
        free(fixed.data);
    }
    fr_dump_free(d);
}

static void without_scratch_the_pickle_is_still_valid_and_complete(void **state) {
    fr_dump *d = decode_file(SYNTH "v2.4_pickle_rank_0");
    if (!d) skip();
    fr_write_options o = { 0 };
    bytes fixed = { 0 };
    fixed_pickle(d, o, NULL, 0, &fixed);
    fr_error err = { { 0 } };
    fr_dump *back;
    assert_int_equal(fr_dump_decode(fixed.data, fixed.len, &back, &err), 0);
    assert_int_equal(back->nentries, d->nentries);
    assert_int_equal(back->entries[2].nframes, 3);
    assert_string_equal(back->entries[2].frames[2].name, "<module>");
    assert_string_equal(back->groups[0].name, "0");
    assert_int_equal(back->groups[0].nranks, 2);
    assert_int_equal(back->status[0].last_enqueued, 2);
    fr_dump_free(back);
    free(fixed.data);
    fr_dump_free(d);
}

/* The communicator of the recorder's dump below. */
static const fr_comm_info recorder_comm = { "7", 2, 4, "0", 1, "0xabc", "live" };

/* A dump as the recorder would fill it (no interning, extras set), with what it points to. */
typedef struct recorder_sample {
    fr_dump d;
    fr_group_config g;
    fr_comm_info c;
    fr_entry e;
    fr_pg_status st;
} recorder_sample;

static void recorder_dump(recorder_sample *x) {
    fr_dump *d = &x->d;
    fr_group_config *g = &x->g;
    fr_comm_info *c = &x->c;
    fr_entry *e = &x->e;
    fr_pg_status *st = &x->st;
    static const int64_t ranks[] = { 0, 1, 2, 3 };
    static const int64_t dims[] = { 1024 };
    static const fr_shape shape = { 1, dims };
    static const char *const dtype[] = { "Float" };
    memset(d, 0, sizeof *d);
    d->version = "2.10";
    d->version_major = 2;
    d->version_minor = 10;
    d->comm_lib_version = "2.27.3";
    *g = (fr_group_config){ "7", "undefined", 4, ranks };
    d->ngroups = 1;
    d->groups = g;
    *st = (fr_pg_status){ 3, 5, 5, 4 };
    d->nstatus = 1;
    d->status = st;
    memset(e, 0, sizeof *e);
    e->record_id = 9;
    e->pg_id = 3;
    e->pg_name = "7";
    e->pg_desc = "undefined";
    e->thread_name = "python";
    e->thread_id = "77";
    e->collective_seq_id = 5;
    e->op_id = 5;
    e->profiling_name = "nccl:all_reduce";
    e->time_created_ns = 1758610505592891074LL;
    e->input_sizes = e->output_sizes = (fr_shapes){ 1, &shape };
    e->input_dtypes = e->output_dtypes = (fr_strings){ 1, dtype };
    e->state = FR_STATE_STARTED;
    e->time_discovered_started_ns = 1758610505592899999LL;
    e->timeout_ms = 300000;
    d->has_entries = true;
    d->nentries = 1;
    d->entries = e;
    d->global_rank = 2;
    d->trigger = "timeout";
    *c = recorder_comm;
    d->ncomms = 1;
    d->comms = c;
}

static void check_recorder_dump(const fr_dump *back) {
    assert_int_equal(back->global_rank, 2);
    assert_string_equal(back->trigger, "timeout");
    assert_int_equal(back->ncomms, 1);
    assert_true(comm_eq(&back->comms[0], &recorder_comm));
    assert_int_equal(back->entries[0].state, FR_STATE_STARTED);
    assert_int_equal(back->entries[0].time_discovered_started_ns, 1758610505592899999LL);
    assert_int_equal(back->entries[0].input_sizes.shapes[0].dims[0], 1024);
    assert_int_equal(back->groups[0].ranks[3], 3);
    assert_int_equal(back->status[0].last_completed, 4);
}

static void the_frtrace_extras_survive_pickle_and_json(void **state) {
    recorder_sample x;
    recorder_dump(&x);
    bytes pickle = { 0 }, json = { 0 };
    heap_pickle(&x.d, NULL, &pickle);
    fr_error err = { { 0 } };
    fr_dump *back;
    assert_int_equal(fr_dump_decode(pickle.data, pickle.len, &back, &err), 0);
    check_recorder_dump(back);
    fr_dump_free(back);

    assert_int_equal(fr_dump_write_json(&x.d, NULL, collect, &json, &err), 0);
    assert_non_null(
        strstr((char *)json.data,
               "\"frtrace\":{\"comms\":{\"7\":{\"color\":1,\"comm_rank\":2,\"comm_size\":4,"
               "\"nccl_hash\":\"0xabc\",\"parent\":\"0\",\"state\":\"live\"}},"
               "\"global_rank\":2,\"trigger\":\"timeout\",\"version\":\"1\"}"));
    assert_int_equal(fr_dump_decode(json.data, json.len, &back, &err), 0);
    check_recorder_dump(back);
    fr_dump_free(back);
    free(pickle.data);
    free(json.data);
}

static void a_dump_without_extras_has_no_frtrace_key(void **state) {
    recorder_sample x;
    recorder_dump(&x);
    x.d.global_rank = -1;
    x.d.ncomms = 0;
    bytes pickle = { 0 };
    heap_pickle(&x.d, NULL, &pickle);
    assert_null(memmem(pickle.data, pickle.len, "frtrace", 7));
    free(pickle.data);
}

/* --- frtrace_identity and frtrace_stacks --- */

static const fr_frame sample_python[] = { { "load_batch", "/job/train.py", 63 },
                                          { "<module>", "/job/train.py", 93 } };
static const fr_frame sample_native[] = { { "clock_nanosleep", "/lib/libc.so.6", 0xcf545 },
                                          { NULL, "/lib/libffi.so.8", 0x640e } };
static const fr_thread_stack sample_threads[] = {
    { 4242, "python3", 2, sample_python, 2, sample_native, NULL },
    { 4250, "pt_nccl_watchdg", 0, NULL, 0, NULL, "native stack not captured: it exited" },
};

static void add_whereabouts(recorder_sample *x) {
    x->d.has_identity = true;
    x->d.identity = (fr_identity){ "node-17", 4242, 0, 3, "0000:5A:00.0", "GPU-0a", "2.28.9" };
    x->d.has_stacks = true;
    x->d.nthreads = 2;
    x->d.threads = (fr_thread_stack *)sample_threads;
}

static bool frames_eq(const fr_frame *a, const fr_frame *b, uint32_t n) {
    for (uint32_t i = 0; i < n; i++)
        if (!str_eq(a[i].name, b[i].name) || !str_eq(a[i].filename, b[i].filename) ||
            a[i].line != b[i].line)
            return false;
    return true;
}

static void check_whereabouts(const fr_dump *back) {
    assert_true(back->has_identity);
    assert_string_equal(back->identity.hostname, "node-17");
    assert_int_equal(back->identity.pid, 4242);
    assert_int_equal(back->identity.local_rank, 0); /* 0 is a rank, not "unknown" */
    assert_int_equal(back->identity.cuda_index, 3);
    assert_string_equal(back->identity.pci_bus_id, "0000:5A:00.0");
    assert_string_equal(back->identity.uuid, "GPU-0a");
    assert_string_equal(back->identity.nccl_version, "2.28.9");
    assert_true(back->has_stacks);
    assert_int_equal(back->nthreads, 2);
    for (uint32_t i = 0; i < 2; i++) {
        const fr_thread_stack *t = &back->threads[i], *w = &sample_threads[i];
        assert_int_equal(t->thread_id, w->thread_id);
        assert_string_equal(t->thread_name, w->thread_name);
        assert_int_equal(t->npython, w->npython);
        assert_int_equal(t->nnative, w->nnative);
        assert_true(frames_eq(t->python, w->python, w->npython));
        assert_true(frames_eq(t->native, w->native, w->nnative));
        assert_true(str_eq(t->note, w->note));
    }
    check_recorder_dump(back); /* the entries and the "frtrace" key are unharmed */
}

/* Decodes through the direct path and the generic one; both must give the same. */
static void decode_both_ways(const bytes *b, void (*check)(const fr_dump *)) {
    for (int fast = 0; fast < 2; fast++) {
        fr_decoder *dec = fr_decoder_new();
        fr_error err = { { 0 } };
        fr_dump *back = NULL;
        fr_decoder_use_fast_path(dec, fast);
        if (fr_decoder_decode(dec, b->data, b->len, &back, &err) != 0) fail_msg("%s", err.msg);
        check(back);
        assert_int_equal(fr_decoder_fast_count(dec), (uint64_t)fast);
        fr_dump_free(back);
        fr_decoder_free(dec);
    }
}

static void identity_and_stacks_survive_pickle_and_json(void **state) {
    recorder_sample x;
    recorder_dump(&x);
    add_whereabouts(&x);
    bytes heap = { 0 }, fixed = { 0 }, json = { 0 };
    heap_pickle(&x.d, NULL, &heap);
    size_t size = fr_dump_write_scratch_size(&x.d);
    void *scratch = malloc(size);
    fixed_pickle(&x.d, (fr_write_options){ 0 }, scratch, size, &fixed); /* the recorder's way */
    assert_int_equal(fixed.len, heap.len);
    assert_memory_equal(fixed.data, heap.data, heap.len);
    decode_both_ways(&heap, check_whereabouts);
    fr_error err = { { 0 } };
    assert_int_equal(fr_dump_write_json(&x.d, NULL, collect, &json, &err), 0);
    /* nlohmann's order: keys sorted, after "frtrace", before "nccl_comm_state" */
    assert_non_null(strstr((char *)json.data,
                           ",\"frtrace_identity\":{\"cuda_device\":{\"index\":3,\"pci_bus_id\":"
                           "\"0000:5A:00.0\",\"uuid\":\"GPU-0a\"},\"hostname\":\"node-17\","
                           "\"local_rank\":0,\"nccl_version\":\"2.28.9\",\"pid\":4242},"
                           "\"frtrace_stacks\":[{\"native\":[{\"name\":\"clock_nanosleep\""));
    assert_non_null(strstr((char *)json.data, "{\"name\":null,\"object\":\"/lib/libffi.so.8\""));
    assert_non_null(strstr((char *)json.data, "\"pt_nccl_watchdg\"}],\"nccl_comm_state\":{}"));
    decode_both_ways(&json, check_whereabouts);
    free(scratch);
    free(heap.data);
    free(fixed.data);
    free(json.data);
}

static void check_unknowns(const fr_dump *back) {
    assert_true(back->has_identity);
    assert_null(back->identity.hostname);
    assert_int_equal(back->identity.local_rank, -1);
    assert_int_equal(back->identity.cuda_index, -1);
    assert_null(back->identity.pci_bus_id);
    assert_null(back->identity.nccl_version);
    assert_false(back->has_stacks);
}

static void unknown_identity_fields_stay_unknown(void **state) {
    recorder_sample x;
    recorder_dump(&x);
    x.d.has_identity = true;
    x.d.identity = (fr_identity){ NULL, 77, -1, -1, NULL, NULL, NULL };
    bytes pickle = { 0 }, json = { 0 };
    heap_pickle(&x.d, NULL, &pickle);
    decode_both_ways(&pickle, check_unknowns);
    fr_error err = { { 0 } };
    assert_int_equal(fr_dump_write_json(&x.d, NULL, collect, &json, &err), 0);
    assert_non_null(strstr((char *)json.data, "{\"cuda_device\":null,\"hostname\":null,"
                                              "\"local_rank\":null,\"nccl_version\":null"));
    assert_null(strstr((char *)json.data, "frtrace_stacks"));
    decode_both_ways(&json, check_unknowns);
    free(pickle.data);
    free(json.data);
}

static void check_dropped(const fr_dump *back) {
    assert_false(back->has_stacks);
    assert_int_equal(back->nthreads, 0);
    assert_true(back->has_identity); /* the other key stays */
    assert_non_null(back->warning);
    assert_non_null(strstr(back->warning, "\"frtrace_stacks\" dropped: thread_id"));
    assert_int_equal(back->nentries, 1);
}

/* A damaged key is dropped, with a warning, and the entries are analyzed as usual. */
static void a_malformed_stacks_key_is_dropped_with_a_warning(void **state) {
    recorder_sample x;
    recorder_dump(&x);
    add_whereabouts(&x);
    bytes json = { 0 };
    fr_error err = { { 0 } };
    assert_int_equal(fr_dump_write_json(&x.d, NULL, collect, &json, &err), 0);
    char *at = strstr((char *)json.data, "\"thread_id\":4242");
    assert_non_null(at);
    memcpy(at, "\"thread_id\":true", 16);
    decode_both_ways(&json, check_dropped);
    free(json.data);
}

static void json_numbers_look_like_nlohmanns(void **state) {
    static const struct {
        double v;
        const char *text;
    } cases[] = {
        { 0.0368579737842083, "0.0368579737842083" },
        { 1.0, "1.0" },
        { 0.5, "0.5" },
        { 1e-05, "1e-05" },
        { 0.0001, "0.0001" },
        { 1.5e20, "1.5e+20" },
        { 123456.75, "123456.75" },
        { 0.0, "0.0" },
        { (double)0.1f, "0.10000000149011612" },
        { 1e16, "1e+16" },
        { 100.0, "100.0" },
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        recorder_sample x;
        recorder_dump(&x);
        x.e.has_duration = true;
        x.e.duration_ms = cases[k].v;
        bytes json = { 0 };
        fr_error err = { { 0 } };
        assert_int_equal(fr_dump_write_json(&x.d, NULL, collect, &json, &err), 0);
        char want[80];
        snprintf(want, sizeof want, "\"duration_ms\":%s,", cases[k].text);
        if (!strstr((char *)json.data, want)) fail_msg("want %s in %s", want, (char *)json.data);
        free(json.data);
    }
}

static void an_unknown_major_version_is_refused(void **state) {
    recorder_sample x;
    recorder_dump(&x);
    fr_write_options o = { .version_major = 3, .version_minor = 0 };
    pw_writer w;
    fr_error err = { { 0 } };
    assert_int_equal(pw_init_alloc(&w, NULL, NULL), 0);
    assert_int_equal(fr_dump_write_pickle(&x.d, &o, &w, &err), -1);
    assert_non_null(strstr(err.msg, "2.x"));
    pw_finish(&w, NULL, NULL);
}

static void legacy_dtype_names_round_trip(void **state) {
    assert_string_equal(fr_dtype_legacy_name("Float"), "float");
    assert_string_equal(fr_dtype_legacy_name("BFloat16"), "c10::BFloat16");
    assert_string_equal(fr_dtype_legacy_name("Long"), "long int");
    assert_string_equal(fr_dtype_legacy_name("SomethingNew"), "SomethingNew");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_fixed_memory_path_writes_the_heap_bytes_in_every_version),
        cmocka_unit_test(without_scratch_the_pickle_is_still_valid_and_complete),
        cmocka_unit_test(the_frtrace_extras_survive_pickle_and_json),
        cmocka_unit_test(a_dump_without_extras_has_no_frtrace_key),
        cmocka_unit_test(identity_and_stacks_survive_pickle_and_json),
        cmocka_unit_test(unknown_identity_fields_stay_unknown),
        cmocka_unit_test(a_malformed_stacks_key_is_dropped_with_a_warning),
        cmocka_unit_test(json_numbers_look_like_nlohmanns),
        cmocka_unit_test(an_unknown_major_version_is_refused),
        cmocka_unit_test(legacy_dtype_names_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
