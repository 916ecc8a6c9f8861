/* json_writer.c — the analyzer's JSON writer, its less frequent calls (see json_writer.h).
 *
 * The hot calls are inline in the header; here are the buffer's slow path, containers, escaped
 * strings and the number forms other than cJSON's int.
 */
#include "report/json_writer.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>

bool jw_open_file(jw *w, FILE *out) {
    *w = (jw){ out, { malloc(JW_FILE_BUFFER), 0, JW_FILE_BUFFER }, false, false };
    if (!w->t.v) w->failed = true, w->t.cap = 0;
    return !w->failed;
}

int jw_close_file(jw *w) {
    jw_flush(w);
    free(w->t.v);
    w->t = (fa_textbuf){ 0 };
    return w->failed || ferror(w->out) ? -1 : 0;
}

void jw_flush(jw *w) {
    if (w->out && w->t.n) fwrite(w->t.v, 1, w->t.n, w->out);
    w->t.n = 0;
}

/* jw_room when the buffer is full: flush it (FILE mode) or grow it (memory mode). */
bool jw_room_slow(jw *w, size_t len) {
    if (w->out) {
        jw_flush(w);
        return len <= w->t.cap;
    }
    if (fa_textbuf_reserve(&w->t, len)) return true;
    w->failed = true;
    return false;
}

void jw_open(jw *w, char c) {
    jw_sep(w);
    jw_char(w, c);
    w->comma = false;
}

void jw_close(jw *w, char c) {
    jw_char(w, c);
    w->comma = true;
}

void jw_newline(jw *w) {
    if (w->comma) jw_char(w, ',');
    jw_char(w, '\n');
    w->comma = false;
}

static void jw_put(void *w, const char *s, size_t len) { jw_raw(w, s, len); }

void jw_string_escaped(jw *w, const char *s) {
    jw_char(w, '"');
    fr_json_escape(s, strlen(s), false, jw_put, w);
    jw_char(w, '"');
}

void jw_key(jw *w, const char *key) {
    jw_sep(w);
    jw_string_body(w, key);
    jw_char(w, ':');
    w->comma = false;
}

void jw_str(jw *w, const char *key, const char *s) {
    if (!s) return;
    if (key) jw_key(w, key);
    jw_sep(w);
    jw_string_body(w, s);
}

void jw_text(jw *w, const char *key, const char *s) { jw_str(w, key, s ? s : ""); }

void jw_str_begin(jw *w, const char *key) {
    if (key) jw_key(w, key);
    jw_sep(w);
    jw_char(w, '"');
}

void jw_str_part(jw *w, const char *s) {
    if (s) fr_json_escape(s, strlen(s), false, jw_put, w);
}

void jw_str_end(jw *w) { jw_char(w, '"'); }

size_t jw_int_text_wide(int64_t v, char *tmp) {
    double d = (double)v;
    int valueint = d >= INT_MAX ? INT_MAX : INT_MIN;
    int len;
    if (d == (double)valueint) {
        len = snprintf(tmp, 32, "%d", valueint);
    } else {
        double back = 0;
        len = snprintf(tmp, 32, "%1.15g", d);
        if (sscanf(tmp, "%lg", &back) != 1 ||
            fabs(back - d) > (fabs(back) > fabs(d) ? fabs(back) : fabs(d)) * DBL_EPSILON)
            len = snprintf(tmp, 32, "%1.17g", d);
    }
    return (size_t)len;
}

void jw_i64(jw *w, const char *key, int64_t v) {
    if (key) jw_key(w, key);
    jw_sep(w);
    char tmp[24];
    jw_raw(w, tmp, fr_json_int(v, tmp));
}

void jw_fixed3(jw *w, const char *key, double v) {
    if (key) jw_key(w, key);
    jw_sep(w);
    if (isnan(v) || isinf(v)) {
        jw_raw(w, "null", 4);
        return;
    }
    char tmp[352]; /* "%.3f" of DBL_MAX: 309 digits, the point and 3 decimals */
    int len = snprintf(tmp, sizeof tmp, "%.3f", v);
    jw_raw(w, tmp, len > 0 ? (size_t)len : 0);
}

void jw_bool(jw *w, const char *key, bool v) {
    jw_key(w, key);
    jw_sep(w);
    jw_raw(w, v ? "true" : "false", v ? 4 : 5);
}

void jw_null(jw *w, const char *key) {
    jw_key(w, key);
    jw_sep(w);
    jw_raw(w, "null", 4);
}

void jw_ints(jw *w, const char *key, const int64_t *v, size_t n) {
    jw_key(w, key);
    jw_open(w, '[');
    for (size_t i = 0; i < n; i++) jw_int(w, NULL, v[i]);
    jw_close(w, ']');
}

void jw_shapes_value(jw *w, const fr_shapes *s) {
    jw_open(w, '[');
    for (uint32_t i = 0; i < s->count; i++) {
        jw_open(w, '[');
        for (uint32_t d = 0; d < s->shapes[i].ndim; d++) jw_int(w, NULL, s->shapes[i].dims[d]);
        jw_close(w, ']');
    }
    jw_close(w, ']');
}

void jw_strings_value(jw *w, const fr_strings *s) {
    jw_open(w, '[');
    for (uint32_t i = 0; i < s->count; i++) jw_str(w, NULL, s->items[i]);
    jw_close(w, ']');
}
