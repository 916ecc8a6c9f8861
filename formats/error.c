/* error.c — filling an fr_error (see error.h): vsnprintf for fr_fail, a plain bounded copy for
 * the signal-safe fr_fail_text, a bounded move for fr_fail_prefix.
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

void fr_clear(fr_error *err) {
    if (err) err->msg[0] = '\0';
}

int fr_fail_prefix(fr_error *err, const char *prefix) {
    if (!err) return -1;
    size_t p = strnlen(prefix, sizeof err->msg - 1), m = strnlen(err->msg, sizeof err->msg - 1);
    if (p + m > sizeof err->msg - 1) m = sizeof err->msg - 1 - p;
    memmove(err->msg + p, err->msg, m);
    memcpy(err->msg, prefix, p);
    err->msg[p + m] = '\0';
    return -1;
}
