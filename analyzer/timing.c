/* timing.c — phase wall times to stderr when FRTRACE_TIMING is set (timing.h). */
#include "timing.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
    fprintf(stderr, "frtrace timing: %-8s %7.3f s\n", phase, t - *since);
    *since = t;
}
