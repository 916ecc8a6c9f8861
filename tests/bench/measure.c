/* measure.c — runs one command and reports what it cost: wall time, CPU time, peak memory.
 *
 *   measure [-o FILE] [-l LABEL] [--] COMMAND [ARG...]
 *
 * How it works: fork, execvp the command (stdin/stdout/stderr inherited), wait4() for it and
 * take user+sys CPU time and ru_maxrss from the child's rusage (which includes the descendants
 * it waited for, so `sh -c '... | xargs cat'` is measured as a whole); wall time comes from
 * CLOCK_MONOTONIC around fork and wait. One line of key=value pairs, readable by people and by
 * `sed`/`awk`, goes to stderr or to FILE:
 *
 *   measure: label=cat wall_s=1.234 cpu_s=2.345 user_s=2.000 sys_s=0.345 maxrss_kb=12345 exit=0
 *
 * exit= is the command's exit status, or 128+N when it was killed by signal N. measure itself
 * exits with the same status (127 when the command cannot be run), so scripts can test it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double tv_s(struct timeval tv) { return (double)tv.tv_sec + (double)tv.tv_usec / 1e6; }

static void usage(void) {
    fprintf(stderr, "usage: measure [-o FILE] [-l LABEL] [--] COMMAND [ARG...]\n");
    exit(2);
}

/* Runs argv, fills *ru; returns the exit status (128+signal when killed, 127 if not run). */
static int run(char **argv, struct rusage *ru) {
    pid_t pid = fork();
    if (pid < 0) {
        perror("measure: fork");
        return 127;
    }
    if (pid == 0) {
        execvp(argv[0], argv);
        fprintf(stderr, "measure: %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    int status = 0;
    while (wait4(pid, &status, 0, ru) < 0) {
        if (errno != EINTR) {
            perror("measure: wait4");
            return 127;
        }
    }
    if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
    return WEXITSTATUS(status);
}

int main(int argc, char **argv) {
    const char *out = NULL, *label = NULL;
    int i = 1;
    for (; i < argc; i++) {
        if (!strcmp(argv[i], "-o") && i + 1 < argc)
            out = argv[++i];
        else if (!strcmp(argv[i], "-l") && i + 1 < argc)
            label = argv[++i];
        else if (!strcmp(argv[i], "--")) {
            i++;
            break;
        } else if (argv[i][0] == '-')
            usage();
        else
            break;
    }
    if (i >= argc) usage();
    struct rusage ru;
    memset(&ru, 0, sizeof ru);
    double t0 = now_s();
    int status = run(argv + i, &ru);
    double wall = now_s() - t0;
    double user = tv_s(ru.ru_utime), sys = tv_s(ru.ru_stime);
    FILE *f = out ? fopen(out, "w") : stderr;
    if (!f) {
        perror(out);
        return 2;
    }
    fprintf(f,
            "measure: %s%s%swall_s=%.3f cpu_s=%.3f user_s=%.3f sys_s=%.3f maxrss_kb=%ld exit=%d\n",
            label ? "label=" : "", label ? label : "", label ? " " : "", wall, user + sys, user,
            sys, ru.ru_maxrss, status);
    if (out) fclose(f);
    return status;
}
