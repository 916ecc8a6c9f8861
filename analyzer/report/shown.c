/* shown.c — visible escapes for input text (see shown.h). */
#include "shown.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"

typedef struct text {
    char *v;
    size_t n, cap;
    bool failed;
} text;

static void put(text *t, const char *s, size_t n) {
    if (t->failed || fr_grow((void **)&t->v, &t->cap, t->n + n + 1, 1, 64)) {
        t->failed = true;
        return;
    }
    memcpy(t->v + t->n, s, n);
    t->n += n;
    t->v[t->n] = '\0';
}

static void put_escape(text *t, const char *form, uint32_t v) {
    char buf[12];
    snprintf(buf, sizeof buf, form, (unsigned)v);
    put(t, buf, strlen(buf));
}

static bool is_format(uint32_t cp) {
    return (cp >= 0x80 && cp <= 0x9F) || (cp >= 0xD800 && cp <= 0xDFFF) || cp == 0x061C ||
           cp == 0x180E || (cp >= 0x200B && cp <= 0x200F) || (cp >= 0x2028 && cp <= 0x202E) ||
           (cp >= 0x2060 && cp <= 0x2069) || cp == 0xFEFF || (cp >= 0xFFF9 && cp <= 0xFFFB);
}

/* The length of the valid UTF-8 sequence at s (0 when there is none) and its code point. */
static size_t utf8_at(const unsigned char *s, uint32_t *cp) {
    unsigned char b = s[0];
    size_t len = b >= 0xF0 && b <= 0xF4 ? 4 : b >= 0xE0 ? 3 : b >= 0xC2 && b <= 0xDF ? 2 : 0;
    if (!len || (len == 3 && b > 0xEF)) return 0;
    uint32_t v = b & (0x7F >> len);
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80) return 0;
        v = v << 6 | (s[i] & 0x3F);
    }
    if ((len == 3 && v < 0x800) || (len == 4 && (v < 0x10000 || v > 0x10FFFF))) return 0;
    *cp = v;
    return len;
}

char *fa_shown(const char *s) {
    text t = { 0 };
    put(&t, "", 0);
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p;) {
        uint32_t cp = 0;
        size_t len = *p < 0x80 ? 1 : utf8_at(p, &cp);
        if (*p < 0x20 || *p == 0x7F || len == 0)
            put_escape(&t, "\\x%02x", *p), len = 1;
        else if (*p >= 0x80 && is_format(cp))
            put_escape(&t, "\\u%04x", cp);
        else
            put(&t, (const char *)p, len);
        p += len;
    }
    if (t.failed) {
        free(t.v);
        return NULL;
    }
    return t.v;
}

void fa_shown_md_code(FILE *out, const char *s, bool in_table) {
    char *v = fa_shown(s);
    if (!v) return;
    size_t run = 0, longest = 0;
    for (const char *p = v; *p; p++) {
        run = *p == '`' ? run + 1 : 0;
        if (run > longest) longest = run;
    }
    char fence[64];
    size_t n = longest + 1 < sizeof fence ? longest + 1 : sizeof fence - 1;
    memset(fence, '`', n);
    fence[n] = '\0';
    bool pad = v[0] == '`' || (v[0] && v[strlen(v) - 1] == '`');
    fprintf(out, "%s%s", fence, pad ? " " : "");
    for (const char *p = v; *p; p++) {
        if (in_table && *p == '|') fputc('\\', out);
        fputc(*p, out);
    }
    fprintf(out, "%s%s", pad ? " " : "", fence);
    free(v);
}
