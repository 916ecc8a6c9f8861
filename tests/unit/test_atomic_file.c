/* test_atomic_file.c — files written whole or not at all, never through a planted link
 * (atomic_file.h): the target appears only at commit, an abort leaves the old file and no
 * temporary, a link at the target is replaced (its victim untouched), a 255-byte name works and
 * a 256-byte one is refused, writes stop with EFBIG before RLIMIT_FSIZE (no SIGXFSZ), and a
 * directory path longer than PATH_MAX is opened and created component by component. Each test
 * works in a fresh directory under /tmp. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "atomic_file.h"

static char *fresh_dir(void) {
    char *dir = strdup("/tmp/frtrace-atomic.XXXXXX");
    assert_non_null(mkdtemp(dir));
    return dir;
}

static char *path_in(const char *dir, const char *name) {
    char *p = NULL;
    assert_true(asprintf(&p, "%s/%s", dir, name) > 0);
    return p;
}

static void write_text(const char *path, const char *text) {
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static char *read_text(const char *path) {
    static char buf[256];
    FILE *f = fopen(path, "r");
    if (!f) return NULL;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    return buf;
}

static int entries(const char *dir) {
    char *cmd = NULL;
    assert_true(asprintf(&cmd, "ls -A '%s' | wc -l", dir) > 0);
    FILE *p = popen(cmd, "r");
    int n = -1;
    assert_int_equal(fscanf(p, "%d", &n), 1);
    pclose(p);
    free(cmd);
    return n;
}

static void cleanup(char *dir) {
    char *cmd = NULL;
    assert_true(asprintf(&cmd, "rm -rf '%s'", dir) > 0);
    assert_int_equal(system(cmd), 0);
    free(cmd);
    free(dir);
}

static void the_target_appears_only_at_commit(void **state) {
    (void)state;
    char *dir = fresh_dir(), *target = path_in(dir, "db.json");
    write_text(target, "old");
    fr_atomic_file f;
    fr_error err;
    assert_int_equal(fr_atomic_open(&f, target, 0644, &err), 0);
    assert_int_equal(fr_atomic_write(&f, "new", 3), 0);
    assert_string_equal(read_text(target), "old");
    assert_int_equal(strncmp(f.tmp, ".frtrace-", 9), 0);
    assert_int_equal(fr_atomic_commit(&f, &err), 0);
    assert_string_equal(read_text(target), "new");
    assert_int_equal(entries(dir), 1); /* no temporary left */
    assert_int_equal(fr_atomic_open(&f, target, 0644, &err), 0);
    assert_int_equal(fr_atomic_write(&f, "half", 4), 0);
    fr_atomic_abort(&f);
    fr_atomic_abort(&f); /* twice is harmless */
    assert_string_equal(read_text(target), "new");
    assert_int_equal(entries(dir), 1);
    free(target);
    cleanup(dir);
}

static void a_link_at_the_target_is_replaced_not_followed(void **state) {
    (void)state;
    char *dir = fresh_dir(), *target = path_in(dir, "out"), *victim = path_in(dir, "victim");
    write_text(victim, "precious");
    assert_int_equal(symlink(victim, target), 0);
    fr_atomic_file f;
    fr_error err;
    assert_int_equal(fr_atomic_open(&f, target, 0644, &err), 0);
    assert_int_equal(fr_atomic_write(&f, "data", 4), 0);
    assert_int_equal(fr_atomic_commit(&f, &err), 0);
    struct stat st;
    assert_int_equal(lstat(target, &st), 0);
    assert_true(S_ISREG(st.st_mode));
    assert_string_equal(read_text(victim), "precious");
    free(target);
    free(victim);
    cleanup(dir);
}

static void names_of_255_bytes_work_and_longer_are_refused(void **state) {
    (void)state;
    char *dir = fresh_dir(), name[300];
    memset(name, 'n', 255);
    name[255] = '\0';
    char *target = path_in(dir, name);
    fr_atomic_file f;
    fr_error err;
    assert_int_equal(fr_atomic_open(&f, target, 0644, &err), 0);
    assert_int_equal(fr_atomic_commit(&f, &err), 0);
    assert_non_null(read_text(target));
    free(target);
    memset(name, 'n', 256);
    name[256] = '\0';
    target = path_in(dir, name);
    assert_int_equal(fr_atomic_open(&f, target, 0644, &err), -1);
    assert_int_equal(errno, ENAMETOOLONG);
    assert_non_null(strstr(err.msg, "longer than the file system allows"));
    free(target);
    target = path_in(dir, "sub/");
    assert_int_equal(fr_atomic_open(&f, target, 0644, &err), -1);
    free(target);
    cleanup(dir);
}

static void writes_stop_before_the_file_size_limit(void **state) {
    (void)state;
    char *dir = fresh_dir(), *target = path_in(dir, "big");
    pid_t child = fork();
    if (child == 0) { /* the limit only in the child; SIGXFSZ left at its default (death) */
        struct rlimit rl = { 4096, 4096 };
        setrlimit(RLIMIT_FSIZE, &rl);
        fr_atomic_file f;
        char block[1000] = { 0 };
        if (fr_atomic_open(&f, target, 0644, NULL) != 0) _exit(10);
        for (int i = 0; i < 4; i++)
            if (fr_atomic_write(&f, block, sizeof block) != 0) _exit(11);
        if (fr_atomic_write(&f, block, sizeof block) == 0 || errno != EFBIG) _exit(12);
        fr_atomic_abort(&f);
        _exit(0);
    }
    int status = 0;
    assert_int_equal(waitpid(child, &status, 0), child);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    assert_int_equal(entries(dir), 0);
    free(target);
    cleanup(dir);
}

static void directories_longer_than_path_max_open_and_are_created(void **state) {
    (void)state;
    char *dir = fresh_dir();
    size_t len = strlen(dir);
    char *deep = malloc(len + 30 * 201 + 1);
    memcpy(deep, dir, len);
    for (int i = 0; i < 30; i++) {
        deep[len++] = '/';
        memset(deep + len, 'd', 200);
        len += 200;
    }
    deep[len] = '\0';
    assert_true(len > PATH_MAX);
    assert_int_equal(fr_dir_open(deep, len, false), -1);
    int fd = fr_dir_open(deep, len, true);
    assert_true(fd >= 0);
    fr_atomic_file f;
    assert_int_equal(fr_atomic_open_at(&f, fd, "rank_0", 0644, NULL), 0);
    assert_int_equal(fr_atomic_write(&f, "x", 1), 0);
    assert_int_equal(fr_atomic_commit(&f, NULL), 0);
    assert_int_equal(faccessat(fd, "rank_0", F_OK, 0), 0);
    close(fd);
    free(deep);
    cleanup(dir);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_target_appears_only_at_commit),
        cmocka_unit_test(a_link_at_the_target_is_replaced_not_followed),
        cmocka_unit_test(names_of_255_bytes_work_and_longer_are_refused),
        cmocka_unit_test(writes_stop_before_the_file_size_limit),
        cmocka_unit_test(directories_longer_than_path_max_open_and_are_created),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
