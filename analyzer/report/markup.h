/* markup.h — the two markups of a ticket: GitHub/GitLab markdown and Jira/Confluence wiki.
 *
 * The ticket report (report_ticket.c) is written once, in these calls; each says what it is
 * (a heading, a list item, a note, a table, a block of frames) and the markup says how. Text
 * that may hold the input's goes through fa_mu_code / fa_mu_text (safe_text.h: a code span or
 * {{monospace}}, escaped), our own words as they are. A note is our words with `code` in
 * backticks: markdown keeps them, Jira gets {{code}}.
 */
#ifndef FRTRACE_MARKUP_H
#define FRTRACE_MARKUP_H

#include <stdbool.h>
#include <stdio.h>

#include "table.h"

typedef enum fa_markup { FA_MARKDOWN, FA_JIRA } fa_markup;

/* "## " or "h2. " (level 1 to 3): the heading's text follows on the same line. */
void fa_mu_heading(FILE *out, fa_markup m, int level);
/* Text that may hold the input's, as a code span or {{monospace}}. */
void fa_mu_code(FILE *out, fa_markup m, const char *s);
/* The same, but plain words and rank lists as they are. */
void fa_mu_text(FILE *out, fa_markup m, const char *s);
/* Our own words in bold ("**hang**", "*hang*"). */
void fa_mu_bold(FILE *out, fa_markup m, const char *word);
/* A list item's marker: "1. " / "# " (numbered), "- " / "* ". */
void fa_mu_item(FILE *out, fa_markup m, bool numbered);
/* An italic paragraph of our words, `code` in backticks, printf-style; ends with a blank line. */
void fa_mu_note(FILE *out, fa_markup m, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* A table (its first row the header). */
void fa_mu_table(FILE *out, fa_markup m, const fa_table *t);
/* A titled block of text already in its terminal form (stack frames): a fenced block in a
 * collapsed <details>, or a {noformat} block under a bold title. */
void fa_mu_block(FILE *out, fa_markup m, const char *title, const char *text);

#endif
