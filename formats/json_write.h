/* json_write.h — a value tree as JSON text, byte for byte what Python's json.dumps writes.
 *
 * fv_write_json(out, v, false, ...) equals json.dumps(v) and with `pretty` json.dumps(v,
 * indent=2): separators ", " and ": " (pretty: "," at line ends), ASCII output with \uXXXX
 * escapes (surrogate pairs beyond the BMP), tuples as arrays, non-string dict keys converted as
 * json.dumps does, floats as Python's repr (shortest round trip, "1.0", "1e+16", NaN, Infinity).
 *
 * A tree that aliases itself (a cycle, or an exponential fan-out through the memo), whose
 * printed size passes max_weight (see fv_tree_weight), or that nests deeper than
 * FV_JSON_MAX_DEPTH is refused with an error and nothing is written.
 */
#ifndef FRTRACE_JSON_WRITE_H
#define FRTRACE_JSON_WRITE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "value.h"

/* Containers nested deeper than this are refused (cJSON's own nesting limit, and about where
 * Python's json.dumps hits its recursion limit). */
#define FV_JSON_MAX_DEPTH 1000

/* 0 when written (no trailing newline), -1 with `err` filled; nothing is written on error. */
int fv_write_json(FILE *out, fv *v, bool pretty, uint64_t max_weight, fr_error *err);

/* Python's repr(float) into `out` (at least 32 bytes); returns its length. NaN, Infinity and
 * -Infinity are spelled as json.dumps spells them. */
size_t fv_format_float(double d, char *out);

#endif
