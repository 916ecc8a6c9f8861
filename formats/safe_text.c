/* safe_text.c — the terminal, markdown and XML forms of text from the input (safe_text.h).
 *
 * One walk over the text (fr_text_next) sends runs of plain characters whole and builds each
 * escape in a small buffer; the markdown and XML forms are the terminal form passed through one
 * more filter (a code span's fence and '|', XML's five entities).
 */
#include "safe_text.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char hex[] = "0123456789abcdef";

/* The visible escape of one character that is not plain, at out (at most 12 bytes). */
static size_t escape_char(const fr_char *c, char *out) {
    size_t n = 0;
    out[n++] = '\\';
    if (c->kind == FR_CH_CONTROL && (c->cp == '\n' || c->cp == '\r' || c->cp == '\t')) {
        out[n++] = c->cp == '\n' ? 'n' : c->cp == '\r' ? 'r' : 't';
    } else if (c->kind == FR_CH_BAD_BYTE || c->kind == FR_CH_NUL || c->cp < 0x80) {
        out[n++] = 'x';
        out[n++] = hex[(c->cp >> 4) & 15];
        out[n++] = hex[c->cp & 15];
    } else if (c->cp < 0x10000) {
        out[n++] = 'u';
        for (int shift = 12; shift >= 0; shift -= 4) out[n++] = hex[(c->cp >> shift) & 15];
    } else { /* no format character lies past the BMP today; kept for completeness */
        out[n++] = 'U';
        for (int shift = 28; shift >= 0; shift -= 4) out[n++] = hex[(c->cp >> shift) & 15];
    }
    return n;
}

bool fr_text_is_plain(const char *s, size_t n) {
    const uint8_t *u = (const uint8_t *)s;
    for (size_t i = 0; i < n;) {
        if (u[i] >= 0x20 && u[i] < 0x7F) {
            i++;
            continue;
        }
        fr_char c;
        i += fr_text_next(u + i, n - i, &c);
        if (c.kind != FR_CH_PLAIN) return false;
    }
    return true;
}

void fr_text_escape(const char *s, size_t n, fr_text_put put, void *ctx) {
    const uint8_t *u = (const uint8_t *)s;
    size_t i = 0;
    while (i < n) {
        size_t run = i;
        fr_char c = { FR_CH_PLAIN, 0 };
        size_t used = 0;
        while (run < n) {
            if (u[run] >= 0x20 && u[run] < 0x7F) {
                run++;
                continue;
            }
            used = fr_text_next(u + run, n - run, &c);
            if (c.kind != FR_CH_PLAIN) break;
            run += used;
        }
        if (run > i) put(ctx, s + i, run - i);
        if (run >= n) return;
        char e[16];
        put(ctx, e, escape_char(&c, e));
        i = run + used;
    }
}

static void put_file(void *ctx, const char *bytes, size_t len) { fwrite(bytes, 1, len, ctx); }

void fr_text_fputs(FILE *out, const char *s) {
    if (s) fr_text_escape(s, strlen(s), put_file, out);
}

/* A growing malloc'd string that the escapers can write into. */
typedef struct text_buf {
    char *v;
    size_t n, cap;
    bool failed;
} text_buf;

static void put_buf(void *ctx, const char *bytes, size_t len) {
    text_buf *b = ctx;
    if (b->failed) return;
    if (b->n + len + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 64;
        while (cap < b->n + len + 1) cap *= 2;
        char *v = realloc(b->v, cap);
        if (!v) {
            b->failed = true;
            return;
        }
        b->v = v;
        b->cap = cap;
    }
    memcpy(b->v + b->n, bytes, len);
    b->n += len;
    b->v[b->n] = '\0';
}

char *fr_text_shown(const char *s) {
    text_buf b = { 0 };
    put_buf(&b, "", 0);
    if (s) fr_text_escape(s, strlen(s), put_buf, &b);
    if (b.failed) {
        free(b.v);
        return NULL;
    }
    return b.v;
}

int fr_text_printf(FILE *out, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    char *text = NULL;
    int n = vasprintf(&text, fmt, ap);
    va_end(ap);
    if (n < 0) return n;
    size_t len = (size_t)n, body = len;
    while (body > 0 && text[body - 1] == '\n') body--;
    fr_text_escape(text, body, put_file, out);
    fwrite(text + body, 1, len - body, out);
    free(text);
    return n;
}

/* --- markdown ----------------------------------------------------------------------------- */

static size_t longest_backtick_run(const char *s) {
    size_t longest = 0, run = 0;
    for (; *s; s++) {
        run = *s == '`' ? run + 1 : 0;
        if (run > longest) longest = run;
    }
    return longest;
}

static void put_fence(FILE *out, size_t n) {
    for (size_t i = 0; i < n; i++) fputc('`', out);
}

/* In a table, '|' ends a cell even inside a code span unless escaped; a backslash before it
 * is doubled so that the escape stays the pipe's. */
static void put_code_body(FILE *out, const char *s, bool in_table) {
    for (; *s; s++) {
        if (in_table && *s == '|')
            fputs("\\|", out);
        else if (in_table && *s == '\\' && s[1] == '|')
            fputs("\\\\", out);
        else
            fputc(*s, out);
    }
}

void fr_md_code(FILE *out, const char *s, bool in_table) {
    char *shown = fr_text_shown(s);
    if (!shown) return;
    size_t n = strlen(shown);
    if (n == 0) {
        free(shown);
        return;
    }
    size_t fence = longest_backtick_run(shown) + 1;
    /* A space each side when the text starts or ends with a backtick (it would join the fence),
     * or with a space at both ends (CommonMark strips one from each side) */
    bool pad = shown[0] == '`' || shown[n - 1] == '`' || (shown[0] == ' ' && shown[n - 1] == ' ');
    put_fence(out, fence);
    if (pad) fputc(' ', out);
    put_code_body(out, shown, in_table);
    if (pad) fputc(' ', out);
    put_fence(out, fence);
    free(shown);
}

/* Letters, digits, spaces, ',' and '-' (not first: a list item) form no markdown at all. */
static bool markdown_inert(const char *s) {
    if (*s == '-') return false;
    for (; *s; s++) {
        char c = *s;
        bool word = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
        if (!word && c != ' ' && c != ',' && c != '-') return false;
    }
    return true;
}

void fr_md_text(FILE *out, const char *s, bool in_table) {
    if (!s || !*s) return;
    if (markdown_inert(s))
        fputs(s, out);
    else
        fr_md_code(out, s, in_table);
}

/* --- Jira and Confluence wiki markup ------------------------------------------------------- */

/* The ASCII characters that take part in wiki markup: effects (*bold* _x_ -x- +x+ ^x^ ~x~
 * ??x?? {{x}}, dashes -- and ---), macros and links ({...} [...] [~user]), images (!x!), table
 * cells (|), numbered lists (#), emoticons ((x) (!) (on)), and the escape itself; and those
 * that do only before what follows them: ':' in ":)" ":P" "://", ';' in ";)", '&' in an
 * entity. The renderer reads each as itself after a backslash. */
static bool jira_special(const char *p) {
    if (strchr("\\*_?-+^~{}[]|!#()", *p)) return true;
    char next = p[1];
    if (*p == ':') return next && strchr(")(PpDd/", next);
    if (*p == ';') return next == ')';
    if (*p == '&')
        return next == '#' || (next >= 'a' && next <= 'z') || (next >= 'A' && next <= 'Z');
    return false;
}

static void put_jira(FILE *out, const char *s) {
    for (; *s; s++) {
        if (jira_special(s)) fputc('\\', out);
        fputc(*s, out);
    }
}

void fr_jira_code(FILE *out, const char *s, bool in_table) {
    (void)in_table; /* '|' is escaped everywhere */
    char *shown = fr_text_shown(s);
    if (!shown) return;
    if (shown[0]) {
        fputs("{{", out);
        put_jira(out, shown);
        fputs("}}", out);
    }
    free(shown);
}

void fr_jira_text(FILE *out, const char *s, bool in_table) {
    if (!s || !*s) return;
    if (markdown_inert(s)) /* letters, digits, spaces and ',' form no wiki markup either */
        fputs(s, out);
    else
        fr_jira_code(out, s, in_table);
}

void fr_jira_block(FILE *out, const char *s) {
    fputs("{noformat}\n", out);
    for (const char *p = s ? s : ""; *p; p++) { /* the text cannot close the block */
        if (*p == '{' && strncasecmp(p + 1, "noformat", 8) == 0) {
            fputs("{ ", out);
            continue;
        }
        fputc(*p, out);
    }
    if (s && *s && s[strlen(s) - 1] != '\n') fputc('\n', out);
    fputs("{noformat}\n", out);
}

/* --- XML ---------------------------------------------------------------------------------- */

static void put_xml(void *ctx, const char *bytes, size_t len) {
    FILE *out = ctx;
    for (size_t i = 0; i < len; i++) {
        switch (bytes[i]) {
        case '&': fputs("&amp;", out); break;
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '"': fputs("&quot;", out); break;
        case '\'': fputs("&apos;", out); break;
        default: fputc(bytes[i], out);
        }
    }
}

void fr_xml_fputs(FILE *out, const char *s) {
    if (s) fr_text_escape(s, strlen(s), put_xml, out);
}
