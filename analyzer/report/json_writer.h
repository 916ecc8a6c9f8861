/* json_writer.h — the one JSON writer of the analyzer's outputs: the database (report_db.c),
 * `frtrace stats -f json` and the database's stats keys (perf_report.c), the whereabouts keys
 * (report_whereabouts.c) and the Perfetto trace (timeline.c).
 *
 * A jw appends to a buffer: in FILE mode (jw_open_file) a full buffer goes to the file, in memory
 * mode (a chunk formatted on a worker, report_db.c) it grows. It keeps one bit of layout state,
 * whether the next value needs a comma, so callers write keys and values and never commas:
 * the text is compact, as cJSON_PrintUnformatted gave it (the database's form since its start).
 * The only other layout is jw_newline (the trace puts one event a line).
 *
 * Numbers come in three forms, because the outputs were written three ways and stay byte for
 * byte as they were: jw_int is cJSON's print_number (ints beyond int's range printed from the
 * double: %1.15g), jw_i64 the exact decimal, jw_fixed3 "%.3f" for milliseconds and microseconds
 * (NaN and the infinities: null). Strings are escaped by json_text.h, as every JSON writer in
 * frtrace does; formats/json_write.c is another kind of writer (a value tree as Python's
 * json.dumps prints it, for `frtrace show`), not a stream of keys and values.
 *
 * The calls made millions of times (room, raw bytes, a separator, a constant key, an int, a
 * plain string) are inline here: the database's rows are written through them.
 */
#ifndef FRTRACE_JSON_WRITER_H
#define FRTRACE_JSON_WRITER_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "dump.h" /* fr_shapes, fr_strings */
#include "json_text.h"
#include "report/ordered_write.h" /* fa_textbuf */

typedef struct jw {
    FILE *out; /* where a full buffer goes; NULL: the buffer grows instead (a chunk in memory) */
    fa_textbuf t;
    bool comma;  /* the next value in the current object/array needs a comma before it */
    bool failed; /* out of memory: the text is incomplete */
} jw;

enum { JW_FILE_BUFFER = 1 << 16 };

/* A writer to `out` with its own buffer; false when out of memory (w->failed set too). */
bool jw_open_file(jw *w, FILE *out);
/* Flushes a FILE writer and frees its buffer; -1 when out of memory or the file had an error. */
int jw_close_file(jw *w);
/* Sends what the buffer holds to the file (FILE mode); empties it in memory mode. */
void jw_flush(jw *w);

bool jw_room_slow(jw *w, size_t len);

/* Room for `len` more bytes in the buffer. False when they do not fit: in FILE mode a run
 * longer than the whole buffer (the caller writes it to the file itself), in memory mode when
 * memory ran out. */
static inline __attribute__((always_inline)) bool jw_room(jw *w, size_t len) {
    return w->t.n + len <= w->t.cap || jw_room_slow(w, len);
}

/* Bytes as they are (already JSON). */
static inline __attribute__((always_inline)) void jw_raw(jw *w, const char *s, size_t len) {
    if (!len) return; /* s may be NULL then (an empty chunk) */
    if (!jw_room(w, len)) {
        if (w->out) fwrite(s, 1, len, w->out);
        return;
    }
    memcpy(w->t.v + w->t.n, s, len);
    w->t.n += len;
}

static inline __attribute__((always_inline)) void jw_char(jw *w, char c) {
    if (jw_room(w, 1)) w->t.v[w->t.n++] = c;
}

/* The comma before a value when one came before it in the same container. */
static inline __attribute__((always_inline)) void jw_sep(jw *w) {
    if (w->comma) jw_char(w, ',');
    w->comma = true;
}

/* Opens an object ('{') or array ('['), as a value; jw_close ends it. */
void jw_open(jw *w, char c);
void jw_close(jw *w, char c);
/* Between two values: the comma, then a line break (one trace event a line). */
void jw_newline(jw *w);

/* A quoted string with escapes (json_text.h); the slow path of jw_string_body. */
void jw_string_escaped(jw *w, const char *s);

/* The quoted string s: cJSON's print_string_ptr, and text from the input shown, never obeyed
 * (json_text.h): always valid UTF-8, controls, format characters and surrogates escaped. */
static inline void jw_string_body(jw *w, const char *s) {
    /* fast path: most strings (ids, types, states, keys) are plain ASCII; copy them whole */
    const unsigned char *q = (const unsigned char *)s;
    while (fr_json_plain(*q) && *q < 0x7F) q++;
    if (!*q) {
        size_t len = (size_t)(q - (const unsigned char *)s);
        if (jw_room(w, len + 2)) {
            char *at = w->t.v + w->t.n;
            at[0] = '"';
            memcpy(at + 1, s, len);
            at[len + 1] = '"';
            w->t.n += len + 2;
            return;
        }
    }
    jw_string_escaped(w, s);
}

/* A key (escaped); the next call writes its value. */
void jw_key(jw *w, const char *key);

/* A key known when compiling (plain ASCII, nothing to escape): `"key":` in one copy. */
#define JW_KEY(w, k) jw_key_text((w), "\"" k "\":", sizeof("\"" k "\":") - 1)

static inline __attribute__((always_inline)) void jw_key_text(jw *w, const char *text, size_t len) {
    jw_sep(w);
    jw_raw(w, text, len);
    w->comma = false;
}

/* A string value (key NULL: an array item); cJSON drops a key whose string is NULL, and so does
 * this. */
void jw_str(jw *w, const char *key, const char *s);
/* A string value that is always written: NULL as "". */
void jw_text(jw *w, const char *key, const char *s);

/* A string value written in pieces: jw_str_begin (the key, or NULL, and the opening quote),
 * jw_str_part for each piece (escaped), jw_str_end (the closing quote). */
void jw_str_begin(jw *w, const char *key);
void jw_str_part(jw *w, const char *s);
void jw_str_end(jw *w);

/* cJSON's print_number for an int64 beyond int's range (see jw_int); returns the length. */
size_t jw_int_text_wide(int64_t v, char *tmp);

/* cJSON's print_number for a number made from an int64: "%d" when the value fits an int,
 * otherwise %1.15g, or %1.17g when that does not read back as the same double. Written into
 * tmp (32 bytes); returns the length. */
static inline size_t jw_int_text(int64_t v, char *tmp) {
    if (v > INT_MIN && v < INT_MAX) return fr_json_int(v, tmp); /* as (double)v compares: exact */
    return jw_int_text_wide(v, tmp);
}

/* An int as cJSON prints it (jw_int_text); key NULL: an array item. */
static inline void jw_int(jw *w, const char *key, int64_t v) {
    if (key) jw_key(w, key);
    jw_sep(w);
    if (jw_room(w, 32)) {
        w->t.n += jw_int_text(v, w->t.v + w->t.n);
        return;
    }
    char tmp[32];
    size_t len = jw_int_text(v, tmp);
    jw_raw(w, tmp, len);
}

/* An int in exact decimal; key NULL: an array item. */
void jw_i64(jw *w, const char *key, int64_t v);
/* A number as "%.3f" (milliseconds, microseconds); NaN and the infinities as null. */
void jw_fixed3(jw *w, const char *key, double v);
void jw_bool(jw *w, const char *key, bool v);
void jw_null(jw *w, const char *key);
/* An array of ints (jw_int) under key. */
void jw_ints(jw *w, const char *key, const int64_t *v, size_t n);
/* A shape list's value (after its key): [[4,4],[8]], ints as jw_int. */
void jw_shapes_value(jw *w, const fr_shapes *s);
/* A string list's value (after its key): ["Float","Half"]. */
void jw_strings_value(jw *w, const fr_strings *s);

#endif
