/* test_xmalloc.c — the analyzer's allocation that cannot fail (xmalloc.h): it returns usable
 * memory, and when the memory cannot be had it says "frtrace: out of memory (N bytes)" and
 * exits with status 2 instead of returning NULL to a caller that would not check. The dying
 * cases run in a child process; sizes that overflow are refused before malloc is asked, so
 * the test needs no real exhaustion. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/ranks.h"
#include "util/xmalloc.h"

static void gives_usable_memory(void **state) {
    (void)state;
    char *s = xasprintf("%s-%d", "rank", 7);
    assert_string_equal(s, "rank-7");
    char *d = xstrdup(s);
    assert_string_equal(d, "rank-7");
    int *z = xcalloc(4, sizeof *z);
    assert_int_equal(z[0] + z[1] + z[2] + z[3], 0);
    z = xrealloc(z, 1000 * sizeof *z);
    z[999] = 1;
    fa_ranks set = { 0 };
    for (int64_t r = 0; r < 1000; r++) fa_ranks_add(&set, 999 - r);
    fa_ranks_normalize(&set);
    assert_int_equal(set.n, 1000);
    assert_int_equal(set.v[0], 0);
    fa_ranks_free(&set);
    free(z);
    free(d);
    free(s);
    free(xmalloc(0)); /* never NULL, even for nothing */
}

/* Runs `what` in a child with stderr in a pipe; returns its exit status, its stderr in err. */
static int run_child(void (*what)(void), char *err, size_t cap) {
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        dup2(fds[1], 2);
        close(fds[0]);
        what();
        _exit(0); /* not reached when `what` dies as it should */
    }
    close(fds[1]);
    size_t n = 0;
    ssize_t got;
    while (n + 1 < cap && (got = read(fds[0], err + n, cap - 1 - n)) > 0) n += (size_t)got;
    err[n] = '\0';
    close(fds[0]);
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    return WEXITSTATUS(status);
}

static void calloc_overflow(void) { xcalloc(SIZE_MAX / 2, 4); }

static void grow_overflow(void) {
    void *v = NULL;
    size_t cap = 0;
    xgrow(&v, &cap, SIZE_MAX / 2, 8, 16);
}

static void dies_with_status_2_and_a_message(void **state) {
    (void)state;
    char err[256];
    assert_int_equal(run_child(calloc_overflow, err, sizeof err), 2);
    assert_string_equal(err, "frtrace: out of memory (18446744073709551615 bytes)\n");
    assert_int_equal(run_child(grow_overflow, err, sizeof err), 2);
    assert_string_equal(err, "frtrace: out of memory (18446744073709551615 bytes)\n");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(gives_usable_memory),
        cmocka_unit_test(dies_with_status_2_and_a_message),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
