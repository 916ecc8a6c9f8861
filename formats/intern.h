/* intern.h — a string interner: equal strings get one shared copy.
 *
 * Decoding thousands of ranks' dumps repeats the same few hundred strings (group names, descs,
 * profiling names, dtypes, thread names, frame file names) millions of times. Interning copies
 * each distinct string once into the caller's arena and hands back that copy for every equal
 * string, so that a dump holds each string once and consumers may compare strings by pointer
 * when both come from the same interner.
 *
 * The lookup table is heap memory owned by the interner (freed by fr_intern_free); the strings
 * live in the arena and outlive the interner.
 */
#ifndef FRTRACE_INTERN_H
#define FRTRACE_INTERN_H

#include <stddef.h>

#include "value.h"

typedef struct fr_interner fr_interner;

/* NULL when out of memory. Strings are copied into `arena`. */
fr_interner *fr_intern_new(fv_arena *arena);
void fr_intern_free(fr_interner *in);
/* The shared NUL-terminated copy of bytes[0..len), or NULL when out of memory. A NUL inside
 * bytes is kept as C0 80 (safe_text.h), so that the copy is never cut short. */
const char *fr_intern(fr_interner *in, const char *bytes, size_t len);
/* Distinct strings interned so far. */
size_t fr_intern_count(const fr_interner *in);

#endif
