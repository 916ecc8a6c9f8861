/* json_read.h — JSON text → a value tree (value.h), as Python's json.load would read it.
 *
 * Objects become dicts (insertion order; a repeated key keeps its first place and its last
 * value), arrays lists, integer literals exact 64-bit ints, other numbers floats (NaN, Infinity
 * and -Infinity accepted, as Python's json does), strings UTF-8 (\u0000 and lone surrogate
 * escapes kept). Parsing is cJSON's; see json_read.c for how numbers survive it.
 */
#ifndef FRTRACE_JSON_READ_H
#define FRTRACE_JSON_READ_H

#include <stddef.h>

#include "value.h"

/* Containers nested deeper than this are refused (cJSON's CJSON_NESTING_LIMIT). */
#define JSON_READ_MAX_DEPTH 1000

/* 0 and *out = root, or -1 with err->msg naming the problem and its byte offset. */
int json_read(const char *text, size_t len, fv_arena *arena, fv **out, fr_error *err);
/* The same, and a text cut short (json_salvage.h) whose whole part parses: 1, *out = that
 * part's tree with the containers closed early flagged FV_FLAG_TRUNCATED, and err->msg
 * "truncated JSON at byte LEN". */
int json_read_salvage(const char *text, size_t len, fv_arena *arena, fv **out, fr_error *err);

#endif
