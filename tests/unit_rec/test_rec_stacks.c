/* test_rec_stacks.c — the recorder's stacks at dump time, in-process, without NCCL or Python.
 *
 * Threads of this test sit in static functions of their own (one blocked in read(2), one
 * spinning in C code, one with every signal blocked); a capture must list each by name, find
 * the static functions (from this unstripped binary's .symtab) in the first two, and say why the
 * third has no native stack, within its time budget. The pieces underneath are checked alone
 * too: safe reads of unmapped memory, the memory map, the ELF symbolizer.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "elf_symbols.h"
#include "proc_maps.h"
#include "safe_read.h"
#include "thread_stacks.h"

static int g_pipe[2];
static _Atomic int g_stop;

static __attribute__((noinline)) void parked_in_static(void) {
    char c;
    (void)!read(g_pipe[0], &c, 1);
    __asm__ volatile("" ::: "memory"); /* keeps the call from being a tail call */
}

static __attribute__((noinline)) void spinning_in_static(void) {
    while (!atomic_load(&g_stop)) __asm__ volatile("" ::: "memory");
}

static void *parked_main(void *arg) {
    (void)arg;
    pthread_setname_np(pthread_self(), "parked");
    parked_in_static();
    return NULL;
}

static void *spinning_main(void *arg) {
    (void)arg;
    pthread_setname_np(pthread_self(), "spinner");
    spinning_in_static();
    return NULL;
}

static void *deaf_main(void *arg) {
    (void)arg;
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, NULL);
    pthread_setname_np(pthread_self(), "deaf");
    char c;
    (void)!read(g_pipe[0], &c, 1);
    return NULL;
}

static const fr_thread_stack *thread_named(const rec_stacks *st, const char *name) {
    for (uint32_t i = 0; i < st->nthreads; i++)
        if (strcmp(st->threads[i].thread_name, name) == 0) return &st->threads[i];
    return NULL;
}

static bool has_native(const fr_thread_stack *t, const char *name) {
    for (uint32_t i = 0; t && i < t->nnative; i++)
        if (t->native[i].name && strcmp(t->native[i].name, name) == 0) return true;
    return false;
}

static void test_every_thread_captured(void **state) {
    (void)state;
    pthread_t th[3];
    assert_int_equal(pipe(g_pipe), 0);
    pthread_create(&th[0], NULL, parked_main, NULL);
    pthread_create(&th[1], NULL, spinning_main, NULL);
    pthread_create(&th[2], NULL, deaf_main, NULL);
    struct timespec settle = { 0, 200 * 1000000L };
    nanosleep(&settle, NULL);
    rec_stacks_prepare();
    rec_stacks st;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    assert_true(rec_stacks_collect(&st));
    clock_gettime(CLOCK_MONOTONIC, &t1);
    assert_true(t1.tv_sec - t0.tv_sec < 4);
    const fr_thread_stack *parked = thread_named(&st, "parked"),
                          *spinner = thread_named(&st, "spinner"),
                          *deaf = thread_named(&st, "deaf");
    assert_non_null(parked);
    assert_non_null(spinner);
    assert_non_null(deaf);
    assert_true(has_native(parked, "parked_in_static"));
    assert_true(has_native(parked, "parked_main"));
    assert_true(has_native(spinner, "spinning_in_static"));
    assert_int_equal(deaf->nnative, 0);
    assert_non_null(deaf->note);
    assert_non_null(strstr(deaf->note, "blocks signals"));
    for (uint32_t i = 1; i < st.nthreads; i++) /* ascending ids; the capturing thread left out */
        assert_true(st.threads[i - 1].thread_id < st.threads[i].thread_id);
    for (uint32_t i = 0; i < st.nthreads; i++)
        assert_int_not_equal(st.threads[i].thread_id, getpid());
    for (uint32_t i = 0; i < st.nthreads; i++) assert_int_equal(st.threads[i].npython, 0);
    rec_stacks_release(&st);
    atomic_store(&g_stop, 1);
    (void)!write(g_pipe[1], "xx", 2);
    for (int i = 0; i < 3; i++) pthread_join(th[i], NULL);
}

static void test_safe_read(void **state) {
    (void)state;
    long page = sysconf(_SC_PAGESIZE);
    char *p =
        mmap(NULL, (size_t)page * 2, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(p != MAP_FAILED);
    memset(p, 'a', (size_t)page);
    munmap(p + page, (size_t)page); /* the second page is gone */
    char buf[64];
    assert_int_equal(rec_safe_read(buf, (uintptr_t)p + page - 16, 64), 16);
    assert_int_equal(rec_safe_read(buf, (uintptr_t)p + page, 8), 0);
    assert_int_equal(rec_safe_read(buf, 8, 8), 0);
    uint64_t w;
    assert_true(rec_safe_word((uintptr_t)p, &w));
    assert_false(rec_safe_word(16, &w));
    munmap(p, (size_t)page);
}

static void test_maps_and_symbols(void **state) {
    (void)state;
    rec_scratch s;
    rec_maps maps;
    assert_true(rec_scratch_open(&s, 16u << 20));
    assert_true(rec_maps_read(&maps, &s));
    uintptr_t fn = (uintptr_t)&spinning_in_static;
    const rec_mapping *m = rec_maps_find(&maps, fn);
    assert_non_null(m);
    assert_true(m->exec);
    assert_non_null(strstr(m->path, "test_rec_stacks"));
    assert_false(rec_maps_is_code(&maps, (uintptr_t)&g_stop)); /* data */
    rec_elf_cache *c = rec_elf_cache_new(&s);
    const char *name = rec_elf_symbol(c, m, fn + 1);
    assert_non_null(name);
    assert_string_equal(name, "spinning_in_static");
    assert_null(rec_elf_symbol(c, NULL, fn));
    rec_elf_cache_close(c);
    rec_scratch_close(&s);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_safe_read),
        cmocka_unit_test(test_maps_and_symbols),
        cmocka_unit_test(test_every_thread_captured),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
