/* shown.h — text from a dump (stacks, thread and host names) shown, never obeyed.
 *
 * The stacks section's one door for input text. A stand-in until formats/safe_text.h (issue 20)
 * is merged, kept small so that switching is one edit here: fa_shown is safe_text's
 * fr_text_shown, fa_shown_md_code its fr_md_code.
 *   - terminal: C0 and C1 controls, DEL, bidi and invisible format characters and bytes that
 *     are not UTF-8 become visible escapes (\x1b, \u202e, \xff); nothing else changes;
 *   - markdown: that text inside a code span whose fence outruns any backticks in it, so that
 *     no link, emphasis, heading or HTML can form ('|' escaped too in a table cell).
 */
#ifndef FRTRACE_SHOWN_H
#define FRTRACE_SHOWN_H

#include <stdbool.h>
#include <stdio.h>

/* A malloc'd copy of s in its terminal form (NULL s: ""); NULL when out of memory. */
char *fa_shown(const char *s);
/* s as a markdown code span. */
void fa_shown_md_code(FILE *out, const char *s, bool in_table);

#endif
