/* timing.h — phase wall times for performance work, the analyzer's lowest file.
 *
 * With FRTRACE_TIMING=1 in the environment, each phase's wall time goes to stderr ("frtrace
 * timing: PHASE SECONDS"); normal output never changes.
 */
#ifndef FRTRACE_TIMING_H
#define FRTRACE_TIMING_H

#include <stdbool.h>

bool fa_timing_wanted(void);
double fa_clock(void);                                 /* monotonic seconds */
void fa_timing_note(const char *phase, double *since); /* prints now - *since, sets *since = now */

#endif
