/* error.c — filling an fr_error (see error.h): vsnprintf for fr_fail, a plain bounded copy for
 * the signal-safe fr_fail_text.
 */
#include "error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int fr_fail(fr_error *err, const char *fmt, ...) {
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
    }
    return -1;
}

int fr_fail_text(fr_error *err, const char *msg) {
    if (!err) return -1;
    size_t n = strlen(msg);
    if (n > sizeof err->msg - 1) n = sizeof err->msg - 1;
    memcpy(err->msg, msg, n);
    err->msg[n] = '\0';
    return -1;
}
