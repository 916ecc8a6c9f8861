/* xmalloc.h — allocation that cannot fail, for the analyzer's small internal memory (git's rule).
 *
 * Two kinds of allocation live in the analyzer, and they fail differently:
 *  - Sizes that come from the input (a file's bytes, counts read from a dump, ranks x entries
 *    arrays, a store sized by what was decoded) use malloc and friends and check the result:
 *    a hostile or huge dump must give "out of memory reading N bytes" naming the file and
 *    the stage, and exit status 2, so that the user learns which input was too big.
 *  - Small internal memory (rank sets, findings and their detail sentences, scratch text a few
 *    lines long) uses this family. Running out there means the machine is already failing;
 *    threading -1 through fifty callers that cannot do anything useful with it only produced
 *    unchecked results (47 of 52 callers of the old int-returning fa_ranks_add ignored it). So
 *    these print "frtrace: out of memory (N bytes)" and exit(2), the exit status for "cannot do the
 *    work", and never return NULL.
 * formats/ is a library and keeps returning errors; only analyzer/ uses this file.
 */
#ifndef FRTRACE_XMALLOC_H
#define FRTRACE_XMALLOC_H

#include <stdarg.h>
#include <stddef.h>

void *xmalloc(size_t size);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t size);
char *xstrdup(const char *s);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *xvasprintf(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));
/* fr_grow (grow.h) that cannot fail: room for `need` items of `size` bytes in *v. */
void xgrow(void **v, size_t *cap, size_t need, size_t size, size_t first);
/* Prints "frtrace: out of memory (N bytes)" and exits with status 2. */
_Noreturn void x_out_of_memory(size_t size);

#endif
