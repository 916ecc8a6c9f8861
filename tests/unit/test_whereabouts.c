/* test_whereabouts.c — where each rank was at dump time: which thread of a dump matters, which
 * native frames are shown, the one-line summaries, how ranks group, the --hosts file and the
 * folded stacks of `frtrace stacks` and the database's "whereabouts" member. Dumps are built as the
 * recorder fills them and compacted into a store, as the load stage does. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/folded.h"
#include "report/json_writer.h"
#include "report/report_whereabouts.h"
#include "load/hosts.h"
#include "load/load.h"
#include "report/whereabouts.h"

static const fr_frame waiting_py[] = { { "wait", "/job/train.py", 79 },
                                       { "<module>", "/job/train.py", 93 } };
static const fr_frame sleeping_py[] = { { "load_batch", "/job/train.py", 63 },
                                        { "<module>", "/job/train.py", 93 } };
static const fr_frame waiting_native[] = {
    { NULL, "/lib/libc.so.6", 0x85f14 },
    { "pthread_cond_wait", "/lib/libc.so.6", 0x885d8 },
    { "cuStreamSynchronize", "/lib/libcuda.so.1", 0x276b },
    { "_PyEval_EvalFrameDefault", "/lib/libpython3.11.so.1.0", 0xfd9c3 },
    { "main", "/usr/bin/python3", 0x1000 },
};
static const fr_frame sleeping_native[] = {
    { "clock_nanosleep", "/lib/libc.so.6", 0xcf545 },
    { "time_sleep", "/lib/libpython3.11.so.1.0", 0x315ae4 },
    { "_PyEval_EvalFrameDefault", "/lib/libpython3.11.so.1.0", 0xfd9c3 },
};
static const fr_frame c_native[] = {
    { "pause", "/lib/libc.so.6", 0xd3df2 },
    { "stuck;here", "/bin/driver", 0x2b8d },
    { "job", "/bin/driver", 0x33db },
    { NULL, "/lib/libc.so.6", 0x2724a },
    { "__libc_start_main", "/lib/libc.so.6", 0x27305 },
    { "_start", "/bin/driver", 0x28a1 },
};

typedef struct sample {
    fr_dump d;
    fr_entry e;
    fr_thread_stack t[3];
} sample;

/* A rank's dump: a helper thread first (lower id), the caller's thread second. */
static void make(sample *x, int64_t pid, int64_t caller, const fr_frame *py, uint32_t npy,
                 const fr_frame *native, uint32_t nnative) {
    static char caller_text[4][24];
    static int next;
    char *id = caller_text[next++ % 4];
    snprintf(id, 24, "%lld", (long long)caller);
    memset(x, 0, sizeof *x);
    x->e = (fr_entry){ .profiling_name = "nccl:all_reduce", .pg_name = "0", .thread_id = id };
    x->d = (fr_dump){ .version = "2.10",
                      .version_major = 2,
                      .version_minor = 10,
                      .has_entries = true,
                      .nentries = 1,
                      .entries = &x->e,
                      .global_rank = -1 };
    x->d.has_identity = true;
    x->d.identity = (fr_identity){ "node-17", pid, 3, 3, "0000:5A:00.0", "GPU-0a", "2.28.9" };
    x->t[0] = (fr_thread_stack){ pid - 5, "helper", 0, NULL, 1, c_native + 4, NULL };
    x->t[1] = (fr_thread_stack){ caller, "python3", npy, py, nnative, native, NULL };
    x->t[2] = (fr_thread_stack){ pid, "python3", 0, NULL, 0, NULL, "signals blocked" };
    x->d.has_stacks = true;
    x->d.nthreads = 3;
    x->d.threads = x->t;
}

typedef struct job {
    fa_input in;
    fa_rank_dump ranks[4];
} job;

/* Ranks 0, 1, 3 wait in an all_reduce; rank 2 sleeps in its data loader. */
static void make_job(job *j) {
    memset(j, 0, sizeof *j);
    j->in.store = fa_store_new();
    fa_compactor *c = fa_compactor_new(j->in.store);
    for (int r = 0; r < 4; r++) {
        sample x;
        if (r == 2)
            make(&x, 1000 * r, 1000 * r + 7, sleeping_py, 2, sleeping_native, 3);
        else
            make(&x, 1000 * r, 1000 * r + 7, waiting_py, 2, waiting_native, 5);
        j->ranks[r] = (fa_rank_dump){ r, NULL, fa_dump_compact(c, &x.d) };
        assert_non_null(j->ranks[r].dump);
    }
    fa_compactor_free(c);
    j->in.ranks = j->ranks;
    j->in.nranks = 4;
}

static void free_job(job *j) {
    for (int r = 0; r < 4; r++) fa_dump_free(j->ranks[r].dump);
    fa_store_free(j->in.store);
    fa_hosts_free(&j->in.hosts);
}

static void the_thread_that_made_the_last_call_matters(void **state) {
    job j;
    make_job(&j);
    const fa_dump *d = j.ranks[2].dump;
    assert_int_equal(d->caller_tid, 2007);
    const fa_thread *t = fa_where_thread(d);
    assert_non_null(t);
    assert_int_equal(t->tid, 2007); /* not the main thread (2000), nor the first listed */
    sample x;
    make(&x, 500, -1, waiting_py, 2, waiting_native, 5); /* no caller known: the main thread */
    x.e.thread_id = NULL;
    fa_compactor *c = fa_compactor_new(j.in.store);
    fa_dump *none = fa_dump_compact(c, &x.d);
    assert_int_equal(fa_where_thread(none)->tid, 500);
    x.d.has_stacks = false;
    fa_dump *nostacks = fa_dump_compact(c, &x.d);
    assert_null(fa_where_thread(nostacks));
    fa_dump_free(none);
    fa_dump_free(nostacks);
    fa_compactor_free(c);
    free_job(&j);
}

static void native_frames_are_trimmed_to_what_matters(void **state) {
    job j;
    make_job(&j);
    const fa_thread *t = fa_where_thread(j.ranks[0].dump);
    assert_int_equal(fa_where_native_shown(j.in.store, t), 3); /* up to the interpreter's loop */
    sample x;
    make(&x, 100, 100, NULL, 0, c_native, 6); /* no Python: libc's start-up frames left out */
    fa_compactor *c = fa_compactor_new(j.in.store);
    fa_dump *d = fa_dump_compact(c, &x.d);
    assert_int_equal(fa_where_native_shown(j.in.store, fa_where_thread(d)), 3);
    char *s = fa_where_summary(j.in.store, fa_where_thread(d));
    assert_string_equal(s, "in stuck;here (driver)"); /* the innermost named frame outside libc */
    free(s);
    fa_dump_free(d);
    fa_compactor_free(c);
    free_job(&j);
}

static void summaries_name_the_python_frame_and_the_native_call(void **state) {
    job j;
    make_job(&j);
    char *a = fa_where_summary(j.in.store, fa_where_thread(j.ranks[0].dump));
    char *b = fa_where_summary(j.in.store, fa_where_thread(j.ranks[2].dump));
    char *c = fa_where_summary(j.in.store, &j.ranks[2].dump->threads[2]);
    assert_string_equal(a, "in wait at train.py:79 (in cuStreamSynchronize)");
    assert_string_equal(b, "in load_batch at train.py:63 (in time_sleep)");
    assert_string_equal(c, "signals blocked");
    free(a);
    free(b);
    free(c);
    free_job(&j);
}

static void ranks_in_the_same_frames_share_a_group(void **state) {
    job j;
    make_job(&j);
    fa_where_groups g;
    assert_int_equal(fa_where_group_ranks(&j.in, NULL, 0, &g), 0);
    assert_int_equal(g.n, 2);
    assert_int_equal(g.v[0].ranks.n, 3);
    assert_int_equal(g.v[0].ranks.v[2], 3);
    assert_int_equal(g.v[1].ranks.n, 1);
    assert_int_equal(g.v[1].ranks.v[0], 2);
    assert_string_equal(g.v[1].summary, "in load_batch at train.py:63 (in time_sleep)");
    fa_where_groups_free(&g);
    const int64_t only[] = { 1, 2 };
    assert_int_equal(fa_where_group_ranks(&j.in, only, 2, &g), 0);
    assert_int_equal(g.n, 2);
    assert_int_equal(g.v[0].ranks.n, 1);
    fa_where_groups_free(&g);
    free_job(&j);
}

static void another_line_is_another_group(void **state) {
    job j;
    make_job(&j);
    fr_frame moved[2] = { waiting_py[0], waiting_py[1] };
    moved[0].line = 80;
    sample x;
    make(&x, 3000, 3007, moved, 2, waiting_native, 5);
    fa_compactor *c = fa_compactor_new(j.in.store);
    fa_dump_free(j.ranks[3].dump);
    j.ranks[3].dump = fa_dump_compact(c, &x.d);
    fa_compactor_free(c);
    fa_where_groups g;
    assert_int_equal(fa_where_group_ranks(&j.in, NULL, 0, &g), 0);
    assert_int_equal(g.n, 3);
    fa_where_groups_free(&g);
    free_job(&j);
}

static void places_come_from_the_dump_then_the_hosts_file(void **state) {
    job j;
    make_job(&j);
    char *p = fa_where_place(&j.in, 2);
    assert_string_equal(p, "node-17, GPU 3 (0000:5A:00.0)");
    free(p);
    assert_null(fa_where_place(&j.in, 9));
    char path[] = "/tmp/frtrace-hosts-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fputs("# launcher\n9: node-99\n  2 elsewhere  \n", f);
    fclose(f);
    fr_error err = { { 0 } };
    assert_int_equal(fa_hosts_load(path, &j.in.hosts, &err), 0);
    p = fa_where_place(&j.in, 9);
    assert_string_equal(p, "node-99");
    free(p);
    p = fa_where_place(&j.in, 2); /* the dump's own name wins */
    assert_string_equal(p, "node-17, GPU 3 (0000:5A:00.0)");
    free(p);
    fa_hosts bad;
    f = fopen(path, "w");
    fputs("1 a\nnode-2 2\n", f);
    fclose(f);
    assert_int_equal(fa_hosts_load(path, &bad, &err), -1);
    char want[128];
    snprintf(want, sizeof want, "%s:2: expected \"RANK HOST\"", path);
    assert_string_equal(err.msg, want);
    remove(path);
    free_job(&j);
}

static void folded_stacks_count_threads_root_first(void **state) {
    job j;
    make_job(&j);
    char *text = NULL;
    size_t len = 0, threads = 0;
    FILE *out = open_memstream(&text, &len);
    fa_report_options opt = { 0 };
    assert_int_equal(fa_report_folded(&j.in, &opt, false, out, &threads), 0);
    fclose(out);
    assert_int_equal(threads, 12);
    assert_string_equal(text,
                        "helper;__libc_start_main 4\n"
                        "python3;<module> (train.py:93);load_batch (train.py:63);time_sleep;"
                        "clock_nanosleep 1\n"
                        "python3;<module> (train.py:93);wait (train.py:79);cuStreamSynchronize;"
                        "pthread_cond_wait;libc.so.6+0x85f14 3\n"
                        "python3;[no stack] 4\n");
    free(text);
    free_job(&j);
}

/* The database's "whereabouts" member: the culprit's host, GPU and every thread, then the ranks
 * grouped by where they are, in the database's compact form (report_db.c's json_writer.h). */
static void the_database_names_the_culprit_and_groups_the_stacks(void **state) {
    job j;
    make_job(&j);
    fa_analysis a;
    memset(&a, 0, sizeof a);
    a.in = j.in;
    int64_t culprit = 2;
    a.verdict.culprits = (fa_ranks){ &culprit, 1, 1 };
    fa_report_options opt = { 0 };
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    jw w;
    assert_true(jw_open_file(&w, out));
    jw_open(&w, '{');
    assert_int_equal(fa_report_whereabouts_db(&a, &opt, &w), 0);
    jw_close(&w, '}');
    assert_int_equal(jw_close_file(&w), 0);
    fclose(out);
    assert_string_equal(
        text,
        "{\"whereabouts\":{\"culprits\":[{\"rank\":2,\"host\":\"node-17\",\"host_from\":\"dump\","
        "\"pid\":2000,"
        "\"local_rank\":3,\"cuda_device\":{\"index\":3,\"pci_bus_id\":\"0000:5A:00.0\",\"uuid\":"
        "\"GPU-0a\"},"
        "\"nccl_version\":\"2.28.9\",\"threads\":[{\"thread_id\":1995,\"thread_name\":\"helper\","
        "\"matters\":false,"
        "\"made_last_call\":false,\"python\":[],\"native\":[{\"name\":\"__libc_start_main\","
        "\"object\":\"/lib/libc.so.6\","
        "\"offset\":160517}],\"note\":null},{\"thread_id\":2007,\"thread_name\":\"python3\","
        "\"matters\":true,"
        "\"made_last_call\":true,\"python\":[{\"name\":\"load_batch\",\"filename\":\"/job/"
        "train.py\","
        "\"line\":63},{\"name\":\"<module>\",\"filename\":\"/job/"
        "train.py\",\"line\":93}],\"native\":[{\"name\":\"clock_nanosleep\","
        "\"object\":\"/lib/libc.so.6\",\"offset\":849221},{\"name\":\"time_sleep\",\"object\":\"/"
        "lib/libpython3.11.so.1.0\","
        "\"offset\":3234532},{\"name\":\"_PyEval_EvalFrameDefault\",\"object\":\"/lib/"
        "libpython3.11.so.1.0\","
        "\"offset\":1038787}],\"note\":null},{\"thread_id\":2000,\"thread_name\":\"python3\","
        "\"matters\":false,"
        "\"made_last_call\":false,\"python\":[],\"native\":[],\"note\":\"signals "
        "blocked\"}]}],\"stack_groups\":[{\"ranks\":[0,"
        "1,3],\"summary\":\"in wait at train.py:79 (in "
        "cuStreamSynchronize)\",\"thread_name\":\"python3\","
        "\"python\":[{\"name\":\"wait\",\"filename\":\"/job/"
        "train.py\",\"line\":79},{\"name\":\"<module>\","
        "\"filename\":\"/job/train.py\",\"line\":93}],\"native\":[{\"name\":null,\"object\":\"/lib/"
        "libc.so.6\","
        "\"offset\":548628},{\"name\":\"pthread_cond_wait\",\"object\":\"/lib/"
        "libc.so.6\",\"offset\":558552},"
        "{\"name\":\"cuStreamSynchronize\",\"object\":\"/lib/"
        "libcuda.so.1\",\"offset\":10091}]},{\"ranks\":[2],"
        "\"summary\":\"in load_batch at train.py:63 (in time_sleep)\",\"thread_name\":\"python3\","
        "\"python\":[{\"name\":\"load_batch\",\"filename\":\"/job/"
        "train.py\",\"line\":63},{\"name\":\"<module>\","
        "\"filename\":\"/job/"
        "train.py\",\"line\":93}],\"native\":[{\"name\":\"clock_nanosleep\",\"object\":\"/lib/"
        "libc.so.6\","
        "\"offset\":849221},{\"name\":\"time_sleep\",\"object\":\"/lib/"
        "libpython3.11.so.1.0\",\"offset\":3234532}]}]}}");
    free(text);
    free_job(&j);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_thread_that_made_the_last_call_matters),
        cmocka_unit_test(native_frames_are_trimmed_to_what_matters),
        cmocka_unit_test(summaries_name_the_python_frame_and_the_native_call),
        cmocka_unit_test(ranks_in_the_same_frames_share_a_group),
        cmocka_unit_test(another_line_is_another_group),
        cmocka_unit_test(places_come_from_the_dump_then_the_hosts_file),
        cmocka_unit_test(folded_stacks_count_threads_root_first),
        cmocka_unit_test(the_database_names_the_culprit_and_groups_the_stacks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
