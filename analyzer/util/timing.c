/* timing.c — phase wall times to stderr when FRTRACE_TIMING is set (timing.h). */
#include "util/timing.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

double fa_clock(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

bool fa_timing_wanted(void) {
    const char *v = getenv("FRTRACE_TIMING");
    return v && *v && strcmp(v, "0") != 0;
}

void fa_timing_note(const char *phase, double *since) {
    double t = fa_clock();
    struct rusage ru;
    long peak_mb = getrusage(RUSAGE_SELF, &ru) == 0 ? ru.ru_maxrss / 1024 : -1;
    fprintf(stderr, "frtrace timing: %-8s %7.3f s  (peak %ld MB)\n", phase, t - *since, peak_mb);
    *since = t;
}
