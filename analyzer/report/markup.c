/* markup.c — markdown and Jira wiki markup for the ticket report (markup.h). */
#include "markup.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "safe_text.h"

void fa_mu_heading(FILE *out, fa_markup m, int level) {
    if (m == FA_JIRA) {
        fprintf(out, "h%d. ", level);
        return;
    }
    for (int i = 0; i < level; i++) fputc('#', out);
    fputc(' ', out);
}

void fa_mu_code(FILE *out, fa_markup m, const char *s) {
    if (m == FA_JIRA)
        fr_jira_code(out, s, false);
    else
        fr_md_code(out, s, false);
}

void fa_mu_text(FILE *out, fa_markup m, const char *s) {
    if (m == FA_JIRA)
        fr_jira_text(out, s, false);
    else
        fr_md_text(out, s, false);
}

void fa_mu_bold(FILE *out, fa_markup m, const char *word) {
    fprintf(out, m == FA_JIRA ? "*%s*" : "**%s**", word);
}

void fa_mu_item(FILE *out, fa_markup m, bool numbered) {
    fputs(m == FA_JIRA ? (numbered ? "# " : "* ") : (numbered ? "1. " : "- "), out);
}

/* Our words between backticks become {{code}} in Jira, with its markup characters escaped. */
static void jira_note(FILE *out, const char *text) {
    const char *p = text;
    while (*p) {
        const char *tick = strchr(p, '`');
        if (!tick) {
            fputs(p, out);
            break;
        }
        fwrite(p, 1, (size_t)(tick - p), out);
        const char *end = strchr(tick + 1, '`');
        if (!end) {
            fputs(tick, out);
            break;
        }
        char *code = strndup(tick + 1, (size_t)(end - tick - 1));
        if (code) fr_jira_code(out, code, false);
        free(code);
        p = end + 1;
    }
}

void fa_mu_note(FILE *out, fa_markup m, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    char *text = NULL;
    if (vasprintf(&text, fmt, ap) < 0) text = NULL;
    va_end(ap);
    if (!text) return;
    fputc('_', out);
    if (m == FA_JIRA)
        jira_note(out, text);
    else
        fputs(text, out);
    fputs("_\n\n", out);
    free(text);
}

void fa_mu_table(FILE *out, fa_markup m, const fa_table *t) {
    if (m == FA_JIRA)
        fa_table_print_jira(t, out);
    else
        fa_table_print_markdown(t, out);
}

/* A fenced block whose fence is longer than any backtick run inside (at least three). */
static void md_fenced(FILE *out, const char *text) {
    size_t fence = 3, run = 0;
    for (const char *p = text; *p; p++) {
        run = *p == '`' ? run + 1 : 0;
        if (run >= fence) fence = run + 1;
    }
    for (size_t i = 0; i < fence; i++) fputc('`', out);
    fputc('\n', out);
    fputs(text, out);
    if (*text && text[strlen(text) - 1] != '\n') fputc('\n', out);
    for (size_t i = 0; i < fence; i++) fputc('`', out);
    fputc('\n', out);
}

void fa_mu_block(FILE *out, fa_markup m, const char *title, const char *text) {
    if (m == FA_JIRA) {
        fprintf(out, "*%s*\n", title);
        fr_jira_block(out, text);
        fputc('\n', out);
        return;
    }
    fprintf(out, "<details><summary>%s</summary>\n\n", title);
    md_fenced(out, text);
    fputs("</details>\n\n", out);
}
