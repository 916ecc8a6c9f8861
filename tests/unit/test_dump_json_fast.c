/* test_dump_json_fast.c — the direct JSON path (dump_json_fast.c) decodes exactly as the
 * generic one (json_read through cJSON, then the value-tree mapping).
 *
 * Every test decodes the same text twice, with an fr_decoder on its default (direct paths
 * first) and one with the direct paths turned off, and requires one outcome: the same dump,
 * field by field (dump_equal.h), or the same error message. The stories: PyTorch's JSON (the
 * synthetic 2.10 dump) and JSON written from every real dump — in PyTorch's layout by our
 * writer, and as `frtrace show` prints it (Python's json.dumps of the pickle: blanks, frames,
 * nulls, pickle key order) — take the direct path; entries twisted one way each (escapes,
 * numbers of every form and length, nulls, missing, extra and reordered keys, blanks between
 * pairs) decode the same, and the direct path takes the ones it should; its layout's keys,
 * which hold the separator before them, match only where that separator belongs; values that
 * alternate or begin like the last ones are told apart; text it must decline (a repeated key,
 * NaN, an int past 64 bits, invalid UTF-8, ...) and text cut at every byte or with bytes
 * flipped at random come out the same both ways (two_ways.h).
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

#include "dump.h"
#include "dump_decoder.h"
#include "dump_equal.h"
#include "dump_write.h"
#include "files.h"
#include "json_write.h"
#include "pickle_read.h"
#include "two_ways.h"

#define TESTDATA       "../shared/testdata"
#define REAL           TESTDATA "/torch-fr-2.9-nvrx/"
#define SYNTHETIC_JSON TESTDATA "/torch-fr-synthetic/v2.10_json_rank_0.json"

static bool same_both_ways_str(two_ways *t, const char *text, const char *what) {
    return same_both_ways(t, text, strlen(text), what);
}

/* --- PyTorch's JSON, and JSON written from the real dumps -------------------------------- */

static void the_synthetic_torch_json_takes_the_direct_path(void **state) {
    size_t len;
    uint8_t *bytes = slurp(SYNTHETIC_JSON, &len);
    if (!bytes) skip();
    two_ways t = two_ways_new();
    assert_true(same_both_ways(&t, (const char *)bytes, len, SYNTHETIC_JSON));
    fr_dump *d;
    fr_error err;
    assert_int_equal(fr_decoder_decode(t.fast, bytes, len, &d, &err), 0);
    assert_int_equal(d->encoding, FR_ENCODING_JSON);
    assert_int_equal(d->nentries, 3);
    const fr_entry *e = &d->entries[0];
    assert_true(e->has_duration && e->duration_ms == 0.0368579737842083);
    assert_int_equal(e->time_created_ns, 1724779239936775119LL);
    assert_string_equal(e->thread_id, "140245215201088");
    assert_ptr_equal(e->pg_name, d->groups[0].name); /* interned with the header's strings */
    assert_false(d->entries[2].has_duration);
    assert_string_equal(d->entries[2].profiling_name, "nccl:send 0->1");
    assert_int_equal(d->entries[2].state, FR_STATE_STARTED);
    fr_dump_free(d);
    two_ways_free(&t);
    free(bytes);
}

typedef struct text {
    char *bytes;
    size_t len;
} text;

static int text_sink(void *ctx, const uint8_t *bytes, size_t len) {
    FILE *f = ctx;
    return fwrite(bytes, 1, len, f) == len ? 0 : -1;
}

/* The dump at `path` as PyTorch's JSON (our writer's layout); empty text when unreadable. */
static text torch_json_of(const uint8_t *bytes, size_t len) {
    text out = { 0 };
    fr_dump *d;
    fr_error err;
    if (fr_dump_decode(bytes, len, &d, &err) != 0) return out;
    FILE *f = open_memstream(&out.bytes, &out.len);
    assert_non_null(f);
    assert_int_equal(fr_dump_write_json(d, NULL, text_sink, f, &err), 0);
    fclose(f);
    fr_dump_free(d);
    return out;
}

/* The pickle as `frtrace show` prints it: Python's json.dumps of pickle.load. */
static text show_json_of(const uint8_t *bytes, size_t len, bool pretty) {
    text out = { 0 };
    fv_arena *arena = fv_arena_new();
    fv *root;
    fr_error err;
    pr_options opts = { .salvage = false };
    if (pickle_read(bytes, len, arena, &opts, &root, &err) == 0) {
        FILE *f = open_memstream(&out.bytes, &out.len);
        assert_non_null(f);
        assert_int_equal(fv_write_json(f, root, pretty, 1u << 30, &err), 0);
        fclose(f);
    }
    fv_arena_free(arena);
    return out;
}

typedef struct tally {
    int files, direct;
} tally;

static void check_text(two_ways *t, text x, const char *what, tally *n) {
    if (!x.bytes) return;
    n->files++;
    if (same_both_ways(t, x.bytes, x.len, what))
        n->direct++;
    else
        fail_msg("%s: the direct path declined it", what);
    free(x.bytes);
}

static void each_real_dump(two_ways *t, const char *dir, tally *n) {
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *ent;
    while ((ent = readdir(d)) != NULL) {
        if (ent->d_name[0] == '.' || strstr(ent->d_name, ".md")) continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, ent->d_name);
        if (strncmp(ent->d_name, "_dump_", 6) != 0) {
            each_real_dump(t, path, n);
            continue;
        }
        size_t len;
        uint8_t *bytes = slurp(path, &len);
        if (!bytes) continue;
        char what[1100];
        snprintf(what, sizeof what, "%s as torch JSON", path);
        check_text(t, torch_json_of(bytes, len), what, n);
        snprintf(what, sizeof what, "%s as frtrace show prints it", path);
        check_text(t, show_json_of(bytes, len, false), what, n);
        snprintf(what, sizeof what, "%s as frtrace show --pretty prints it", path);
        check_text(t, show_json_of(bytes, len, true), what, n);
        free(bytes);
    }
    closedir(d);
}

static void json_of_every_real_dump_takes_the_direct_path_to_the_same_dump(void **state) {
    DIR *probe = opendir(REAL);
    if (!probe) skip();
    closedir(probe);
    two_ways t = two_ways_new();
    tally n = { 0 };
    each_real_dump(&t, REAL, &n);
    assert_true(n.files >= 3 * 64);
    assert_int_equal(n.direct, n.files);
    two_ways_free(&t);
}

/* --- entries twisted one way each -------------------------------------------------------- */

/* A dump of twelve entries in PyTorch's layout, the sixth entry's text replaced by `twisted`
 * when it is not NULL. */
static const char *const HEADER_END =
    "],\"nccl_comm_state\":{},\"pg_config\":{\"0\":{\"desc\":\"default_pg\",\"name\":\"0\","
    "\"ranks\":\"[0, 1]\"}},\"pg_status\":{\"0\":{\"last_completed_collective\":\"1\","
    "\"last_enqueued_collective\":\"2\",\"last_started_collective\":\"-1\"}},\"version\":\"2.10\"}";

static void plain_entry(char *out, size_t cap, int i) {
    static const char *const names[] = { "nccl:all_reduce", "nccl:all_gather",
                                         "nccl:_reduce_scatter_base" };
    snprintf(
        out, cap,
        "{\"collective_seq_id\":%d,%s\"input_dtypes\":[\"Float\"],\"input_sizes\":[[%d,4]],"
        "\"is_p2p\":false,\"op_id\":%d,\"output_dtypes\":[\"BFloat16\"],\"output_sizes\":[[3,%d]],"
        "\"p2p_seq_id\":0,\"pg_id\":0,\"process_group\":[\"0\",\"default_pg\"],"
        "\"profiling_name\":\"%s\",\"record_id\":%d,\"retired\":%s,\"state\":\"%s\","
        "\"thread_id\":\"140245215201088\",\"thread_name\":\"pt_main_thread\","
        "\"time_created_ns\":17247792399367751%02d,\"time_discovered_completed_ns\":0,"
        "\"time_discovered_started_ns\":1724779239936780119,\"timeout_ms\":600000}",
        i + 1, i % 3 ? "\"duration_ms\":0.0368579737842083," : "", 3 + i % 2, i + 1, 4 + i % 3,
        names[i % 3], i, i % 2 ? "true" : "false", i % 4 ? "completed" : "started", i);
}

/* A dump of twelve entries, entry i's text given by entries[i] where that is not NULL (else
 * plain_entry's). */
static char *dump_of(const char *const entries[12]) {
    size_t cap = 16384;
    for (int i = 0; i < 12; i++) cap += entries[i] ? strlen(entries[i]) : 0;
    char *out = malloc(cap), entry[1024];
    assert_non_null(out);
    size_t n = (size_t)snprintf(out, cap, "{\"comm_lib_version\":\"2.27.5\",\"entries\":[");
    for (int i = 0; i < 12; i++) {
        plain_entry(entry, sizeof entry, i);
        n += (size_t)snprintf(out + n, cap - n, "%s%s", i ? "," : "",
                              entries[i] ? entries[i] : entry);
    }
    snprintf(out + n, cap - n, "%s", HEADER_END);
    return out;
}

static char *dump_with(const char *twisted) {
    const char *entries[12] = { [5] = twisted };
    return dump_of(entries);
}

/* Entry i with `from` replaced by `to` (the first occurrence; it must be there), into out. */
static void entry_replacing(char *out, size_t cap, int i, const char *from, const char *to) {
    char entry[1024];
    plain_entry(entry, sizeof entry, i);
    const char *at = strstr(entry, from);
    if (!at) fail_msg("'%s' is not in the entry", from);
    snprintf(out, cap, "%.*s%s%s", (int)(at - entry), entry, to, at + strlen(from));
}

/* The sixth entry with `from` replaced by `to` (the first occurrence; it must be there). */
static char *dump_replacing(const char *from, const char *to) {
    char twisted[4096];
    entry_replacing(twisted, sizeof twisted, 5, from, to);
    return dump_with(twisted);
}

typedef struct twist {
    const char *from, *to;
    bool direct; /* whether the direct path must take it */
} twist;

static const twist TWISTS[] = {
    { "nccl:_reduce_scatter_base", "nccl:all\\u005freduce", true }, /* an escape in a str */
    { "nccl:_reduce_scatter_base", "caf\\u00e9 \\u4e2d", true },    /* two- and three-byte */
    { "nccl:_reduce_scatter_base", "\\ud83d\\ude00 pair", true },   /* a surrogate pair */
    { "nccl:_reduce_scatter_base", "lone \\ud800 \\udc00 \\ud800\\ud800", true }, /* lone ones */
    { "nccl:_reduce_scatter_base", "nul \\u0000 inside", true },         /* \u0000: a NUL byte */
    { "nccl:_reduce_scatter_base", "\\\"\\\\\\/\\b\\f\\n\\r\\t", true }, /* every short escape */
    { "nccl:_reduce_scatter_base", "caf\xc3\xa9 \xe4\xb8\xad \xf0\x9f\x98\x80",
      true }, /* raw UTF-8 */
    { "\"pt_main_thread\"", "\"pt_\\u006dain_thread\"", true },
    { "\"state\":\"completed\"", "\"state\":\"comp\\u006ceted\"", true },
    { "[\"Float\"]", "[\"float\",\"c10::Half\",\"long int\"]", true }, /* legacy dtypes */
    { "[\"Float\"]", "[]", true },
    { "[[4,4]]", "[[],[1],[-2,0,9223372036854775807,-9223372036854775808]]", true },
    { "[[4,4]]", "[]", true },
    { "0.0368579737842083", "1", true }, /* an int as the duration */
    { "0.0368579737842083", "-0.0", true },
    { "0.0368579737842083", "1e-3", true },
    { "0.0368579737842083", "1E+2", true },
    { "0.0368579737842083", "2.5e-300", true }, /* strtod's own */
    { "0.0368579737842083", "123456789012345678901234567890.5", true },
    { "0.0368579737842083", "9007199254740993.0", true }, /* past 2^53 */
    { "0.0368579737842083", "1e400", true },              /* inf, as float() */
    { "0.0368579737842083", "null", true },
    { "\"time_discovered_completed_ns\":0", "\"time_discovered_completed_ns\":null", true },
    { "\"profiling_name\":\"nccl:_reduce_scatter_base\"", "\"profiling_name\":null", true },
    { "\"thread_id\":\"140245215201088\"", "\"thread_id\":140245215201088", true },
    { "\"retired\":true", "\"retired\":1", true }, /* an int for a bool */
    { "\"is_p2p\":false", "\"is_p2p\":0", true },
    { "\"op_id\":6,", "", true }, /* an optional key missing */
    { "\"thread_id\":\"140245215201088\",\"thread_name\":\"pt_main_thread\",", "", true },
    { "\"is_p2p\":false,", "\"extra\":{\"a\":[1,2.5,null,true,\"x\"]},\"is_p2p\":false,", true },
    { "\"is_p2p\":false,", "\"is_p2p\":false,\"record_id\\u0000\":7,", true }, /* an unknown key */
    { "\"collective_seq_id\":6,", "", false }, /* a required key missing: an error */
    { "{\"collective_seq_id\":6,", "{\"timeout_ms\":5,\"collective_seq_id\":6,",
      false },                                                  /* twice */
    { "\"op_id\":6", "\"op_id\":6.0", false },                  /* a float for an int: an error */
    { "\"op_id\":6", "\"op_id\":99999999999999999999", false }, /* past 64 bits: an error */
    { "\"op_id\":6", "\"op_id\":-9223372036854775808", true },
    { "\"op_id\":6", "\"op_id\":12345678", true }, /* ints of every length of word */
    { "\"op_id\":6", "\"op_id\":123456789", true },
    { "\"op_id\":6", "\"op_id\":1234567890123456", true },
    { "\"op_id\":6", "\"op_id\":12345678901234567", true },
    { "\"op_id\":6", "\"op_id\":9223372036854775807", true },
    { "\"op_id\":6", "\"op_id\":9223372036854775808", false }, /* past 64 bits */
    { "\"op_id\":6", "\"op_id\":18446744073709551616", false },
    { "\"op_id\":6", "\"op_id\":0", true },
    { "\"op_id\":6", "\"op_id\":-6", true },
    { "\"op_id\":6", "\"op_id\":00", false },
    { "\"op_id\":6", "\"op_id\":012345678", false },
    { "\"op_id\":6", "\"op_id\":6.5", false }, /* read as 6, then no separator */
    { "\"op_id\":6", "\"op_id\":6e1", false },
    { "\"op_id\":6", "\"op_id\":12345678E1", false },
    { "\"op_id\":6", "\"op_id\":1234567890123456.5", false },
    { "\"op_id\":6", "\"op_id\":6x", false },
    { "\"retired\":true", "\"retired\":1.0", false },
    { "[[4,4]]", "[[12345678,123456789,1234567890123456789],[0,00]]", false },
    { "[[4,4]]", "[[12345678,123456789,1234567890123456789],[0]]", true },
    { "{\"collective_seq_id\"", "{ \"collective_seq_id\"", true }, /* blanks between pairs */
    { ",\"op_id\"", " ,\n\t\"op_id\"", true },
    { "\"op_id\":6,", "\"op_id\" : 6 ,", true },
    { "\"timeout_ms\":600000}", "\"timeout_ms\":600000 }", true },
    { "\"timeout_ms\":600000}", "\"timeout_ms\":600000,}", false },
    { "\"is_p2p\":false,", "\"is_p2p\":false", false },     /* a separator missing */
    { "\"is_p2p\":false,", "\"is_p2p\":false,,", false },   /* one too many */
    { "\"pt_main_thread\"", "\"pt_main_thread_2\"", true }, /* like the last value */
    { "\"pt_main_thread\"", "\"pt_main_threa\"", true },
    { "[\"0\",\"default_pg\"]", "[\"0\",\"default_pg\" ]", true },
    { "\"op_id\":6", "\"op_id\" :  6 ", true }, /* blanks */
    { "\"state\":\"completed\"", "\"state\":\"stuck\"", false },
    { "[\"0\",\"default_pg\"]", "[\"0\",\"default_pg\",3]", false }, /* longer: declined */
    { "[\"0\",\"default_pg\"]", "[\"0\"]", false },
    { "\"op_id\":6", "\"op_id\":NaN", false },
    { "\"op_id\":6", "\"op_id\":06", false },
    { "\"op_id\":6", "\"op_id\":6.", false },
    { "nccl:_reduce_scatter_base", "bad \\x escape", false },
    { "nccl:_reduce_scatter_base", "bad \\u12g4 escape", false },
    { "nccl:_reduce_scatter_base", "raw \x01 control", false },
    { "nccl:_reduce_scatter_base", "invalid \xed\xa0\x80 utf-8", false },
    { "nccl:_reduce_scatter_base", "invalid \xc3 utf-8", false },
};

static void twisted_entries_decode_the_same_both_ways(void **state) {
    two_ways t = two_ways_new();
    for (size_t k = 0; k < sizeof TWISTS / sizeof TWISTS[0]; k++) {
        char *dump = dump_replacing(TWISTS[k].from, TWISTS[k].to);
        char what[256];
        snprintf(what, sizeof what, "twist %zu (%s)", k, TWISTS[k].to);
        bool direct = same_both_ways_str(&t, dump, what);
        if (direct != TWISTS[k].direct)
            fail_msg("%s: the direct path %s it", what, direct ? "took" : "declined");
        free(dump);
    }
    two_ways_free(&t);
}

/* The layout follows keys in another order, and entries that lose or gain keys on the way. */
static void reordered_keys_decode_the_same_both_ways(void **state) {
    two_ways t = two_ways_new();
    const char *reversed =
        "{\"timeout_ms\":1,\"time_discovered_started_ns\":2,\"time_discovered_completed_ns\":3,"
        "\"time_created_ns\":4,\"thread_name\":\"t\",\"thread_id\":\"5\",\"state\":\"scheduled\","
        "\"record_id\":6,\"retired\":false,\"profiling_name\":\"p\",\"process_group\":[\"0\",\"d\"]"
        ","
        "\"pg_id\":7,\"p2p_seq_id\":8,\"output_sizes\":[[1]],\"output_dtypes\":[\"Int\"],\"op_id\":"
        "9,"
        "\"is_p2p\":true,\"input_sizes\":[[2]],\"input_dtypes\":[\"Long\"],\"collective_seq_id\":"
        "10}";
    char *dump = dump_with(reversed);
    assert_true(same_both_ways_str(&t, dump, "reversed keys"));
    free(dump);
    two_ways_free(&t);
}

/* The layout's keys hold the separator before them: the entry's '{' for the first key, the ','
 * after the previous value for the others. A key learnt at an entry's start must not match after
 * a value ("6{\"is_p2p\":" is no separator), nor a key learnt after a value at an entry's start
 * (",\"duration_ms\":" is no '{'): the direct path declines both, as the generic path fails. */
static void keys_match_only_after_their_own_separator(void **state) {
    char first[1024], bad[1024];
    /* entry 0 starts with "is_p2p", so the layout holds "{\"is_p2p\":" near its front */
    entry_replacing(first, sizeof first, 0, "\"is_p2p\":false,", "");
    memmove(first + 1 + 15, first + 1, strlen(first + 1) + 1);
    memcpy(first + 1, "\"is_p2p\":false,", 15);
    char moved[1024];
    entry_replacing(moved, sizeof moved, 5, "\"is_p2p\":false,", "");
    entry_replacing(bad, sizeof bad, 5, "\"is_p2p\":false,", "");
    const char *at = strstr(moved, "\"collective_seq_id\":6,");
    assert_non_null(at);
    snprintf(bad, sizeof bad, "%.*s\"collective_seq_id\":6{\"is_p2p\":false,%s", (int)(at - moved),
             moved, at + strlen("\"collective_seq_id\":6,"));
    two_ways t = two_ways_new();
    const char *ok_entries[12] = { [0] = first, [5] = moved };
    char *dump = dump_of(ok_entries);
    assert_true(same_both_ways_str(&t, dump, "an entry that starts with is_p2p"));
    free(dump);
    const char *bad_entries[12] = { [0] = first, [5] = bad };
    dump = dump_of(bad_entries);
    assert_false(same_both_ways_str(&t, dump, "a '{' after a value"));
    free(dump);
    /* entry 1 has "duration_ms" second: its key with the ',' before it is in the layout */
    entry_replacing(moved, sizeof moved, 5, "{\"collective_seq_id\":6,", "");
    snprintf(bad, sizeof bad, ",%.*s,\"collective_seq_id\":6}", (int)strlen(moved) - 1, moved);
    dump = dump_with(bad);
    assert_false(same_both_ways_str(&t, dump, "an entry without its '{'"));
    free(dump);
    snprintf(bad, sizeof bad, "{%.*s,\"collective_seq_id\":6}", (int)strlen(moved) - 1, moved);
    dump = dump_with(bad);
    assert_true(same_both_ways_str(&t, dump, "an entry that starts with duration_ms"));
    free(dump);
    two_ways_free(&t);
}

/* Each key's last two values are tried before the cache: values that alternate, that begin
 * like the last one or that the last one begins like, and three that take turns. */
static void values_like_the_last_ones_decode_the_same_both_ways(void **state) {
    static const char *const names[] = { "\"pt\"", "\"pt_main_thread\"", "\"pt_main\"",
                                         "\"p\\u0074\"" };
    static const char *const sizes[] = { "[[3,4]]", "[[3,4],[5]]", "[[3]]", "[[3,4] ]", "[]" };
    static const char *const groups[] = { "[\"0\",\"default_pg\"]", "[\"0\",\"default\"]",
                                          "[\"00\",\"default_pg\"]" };
    static const char *const thread_names[] = { "pt", "pt_main_thread", "pt_main", "pt" };
    static const uint32_t counts[] = { 1, 2, 1, 1, 0 };
    char texts[12][1024], step[1024];
    const char *entries[12];
    for (int i = 0; i < 12; i++) {
        entry_replacing(step, sizeof step, i, "\"pt_main_thread\"", names[i % 4]);
        char *at = strstr(step, "[[");
        assert_non_null(at);
        char *close = strstr(at, "]]");
        snprintf(texts[i], sizeof texts[i], "%.*s%s%s", (int)(at - step), step, sizes[(i / 2) % 5],
                 close + 2);
        memcpy(step, texts[i], sizeof step);
        at = strstr(step, "[\"0\",\"default_pg\"]");
        assert_non_null(at);
        snprintf(texts[i], sizeof texts[i], "%.*s%s%s", (int)(at - step), step, groups[i % 3],
                 at + strlen("[\"0\",\"default_pg\"]"));
        entries[i] = texts[i];
    }
    two_ways t = two_ways_new();
    char *dump = dump_of(entries);
    assert_true(same_both_ways_str(&t, dump, "values that take turns"));
    fr_dump *d;
    fr_error err;
    assert_int_equal(fr_decoder_decode(t.fast, (const uint8_t *)dump, strlen(dump), &d, &err), 0);
    for (int i = 0; i < 12; i++) {
        const fr_entry *e = &d->entries[i];
        assert_string_equal(e->thread_name, thread_names[i % 4]);
        assert_int_equal(e->input_sizes.count, counts[(i / 2) % 5]);
        assert_string_equal(e->pg_desc, i % 3 == 1 ? "default" : "default_pg");
    }
    fr_dump_free(d);
    free(dump);
    two_ways_free(&t);
}

/* Top-level shapes: no entries, an empty list, blanks, the recorder's extra key, escapes in
 * the header; and those the direct path must decline. */
static void header_shapes_decode_the_same_both_ways(void **state) {
    static const struct {
        const char *text;
        bool direct;
    } cases[] = {
        { "{\"pg_config\":{},\"version\":\"2.10\"}", true },
        { " \n{\"entries\":[],\"pg_config\":{},\"version\":\"2.10\"}\r\n\t", true },
        { "{\"entries\" : [ ] , \"pg_config\" : { } , \"version\" : \"2.\\u0031\" }", true },
        { "{\"frtrace\":{\"comms\":{\"0\":{\"color\":-1,\"comm_rank\":0,\"comm_size\":2,"
          "\"nccl_hash\":null,\"parent\":null,\"state\":\"live\"}},\"global_rank\":3,\"trigger\":"
          "\"signal\",\"version\":\"1\"},\"pg_config\":{\"0\":{\"desc\":\"d\",\"name\":\"0\","
          "\"ranks\":[0,1]}},\"pg_status\":{\"0\":{\"last_completed_collective\":1}},"
          "\"version\":\"2.9\",\"xccl_version\":\"1.0\"}",
          true },
        { "{\"version\":\"2.10\",\"version\":\"2.9\",\"pg_config\":{}}", true }, /* last wins */
        { "{\"entries\":[],\"entries\":[],\"pg_config\":{},\"version\":\"2.10\"}", false },
        { "{\"entries\":null,\"pg_config\":{},\"version\":\"2.10\"}", false },
        { "{\"entries\":[1],\"pg_config\":{},\"version\":\"2.10\"}", false },
        { "{\"entries\":[{}],\"pg_config\":{},\"version\":\"2.10\"}", false },
        { "{\"pg_config\":{},\"version\":\"3.0\"}", false },
        { "{\"pg_config\":{},\"version\":2.10}", false },
        { "{\"pg_config\":{},\"version\":\"2.10\"} x", false },
        { "{\"pg_config\":{},\"version\":\"2.10\"}{}", false },
        { "\xef\xbb\xbf{\"pg_config\":{},\"version\":\"2.10\"}", false },
        { "{\"pg_config\":{},\"version\":\"2.10\",\"x\":Infinity}", false },
        { "{\"pg_config\":{},\"version\":\"2.10\",\"x\":-Infinity}", false },
        { "{\"pg_config\":{},\"version\":\"2.10\",\"x\":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["
          "["
          "[[[[[["
          "[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]"
          "]"
          "]]]}",
          false },
        { "{\"pg_config\":{},\"version\":\"2.10\",\"x\":\v1}", false },
        { "{\"pg_config\":{},\"version\":\"2.10\",}", false },
        { "{\"pg_config\":{},\"version\":\"2.10\"", false },
        { "{", false },
    };
    two_ways t = two_ways_new();
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char what[64];
        snprintf(what, sizeof what, "header case %zu", k);
        bool direct = same_both_ways_str(&t, cases[k].text, what);
        if (direct != cases[k].direct)
            fail_msg("%s: the direct path %s it", what, direct ? "took" : "declined");
    }
    two_ways_free(&t);
}

/* --- cut and flipped ------------------------------------------------------------------------ */

static void a_dump_cut_at_every_byte_decodes_the_same_both_ways(void **state) {
    char *dump = dump_with(NULL);
    two_ways t = two_ways_new();
    assert_int_equal(cut_at_every_byte(&t, dump, strlen(dump)), 1); /* only the whole text */
    two_ways_free(&t);
    free(dump);
}

static void flipped_bytes_decode_the_same_both_ways(void **state) {
    size_t len;
    uint8_t *bytes = slurp(REAL "lock_gil_2nd/_dump_3", &len);
    if (!bytes) skip();
    text x = show_json_of(bytes, len, false);
    free(bytes);
    assert_non_null(x.bytes);
    two_ways t = two_ways_new();
    /* a flip inside a number or a name keeps the shape */
    assert_true(flipped_bits(&t, x.bytes, x.len, 2000) > 0);
    free(x.bytes);
    two_ways_free(&t);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_synthetic_torch_json_takes_the_direct_path),
        cmocka_unit_test(twisted_entries_decode_the_same_both_ways),
        cmocka_unit_test(reordered_keys_decode_the_same_both_ways),
        cmocka_unit_test(keys_match_only_after_their_own_separator),
        cmocka_unit_test(values_like_the_last_ones_decode_the_same_both_ways),
        cmocka_unit_test(header_shapes_decode_the_same_both_ways),
        cmocka_unit_test(json_of_every_real_dump_takes_the_direct_path_to_the_same_dump),
        cmocka_unit_test(a_dump_cut_at_every_byte_decodes_the_same_both_ways),
        cmocka_unit_test(flipped_bytes_decode_the_same_both_ways),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
