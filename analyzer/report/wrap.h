/* wrap.h — fitting text to a width without losing a character of it.
 *
 * fa_wrap_next finds where the next line of a text ends: at the last space, or after the last
 * ',' or ';', within the width. A word is never cut (grep and copy-paste find a name whole): a
 * word longer than the width runs past it, and a table gives each column at least its longest
 * word (fa_wrap_token), so that a rank list "8,10-13,15" breaks after a comma and a name such
 * as TENSOR_MODEL_PARALLEL_GROUP stays on one line. fa_wrap_print writes a paragraph that way,
 * the first line after `first`, the others after `indent`, the text in its terminal form
 * (safe_text.h: text from the input is shown, never obeyed; `first` and `indent` are the
 * caller's own). A width of 0 means no limit. Used by the text report and its tables.
 */
#ifndef FRTRACE_WRAP_H
#define FRTRACE_WRAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Of text[0..len), how much goes on a line of `width` columns (at least 1 when len > 0; more
 * than width when its first word is longer), and in *skip how many following spaces the break
 * swallows. */
size_t fa_wrap_next(const char *text, size_t len, size_t width, size_t *skip);
/* The length of the word text[0..len) starts with, up to a space or after a ',' or ';', a
 * bracketed shape "[[4096, 1, 5120]]" counting as one word when keep_brackets: what a line
 * does not split (a shape only where the width leaves no other way). */
size_t fa_wrap_word(const char *text, size_t len, bool keep_brackets);
/* fa_wrap_word(text, len, true). */
size_t fa_wrap_token(const char *text, size_t len);

/* Writes text, in its terminal form, wrapped at width columns (0: unwrapped), each line ended
 * by '\n'. */
void fa_wrap_print(FILE *out, const char *first, const char *indent, const char *text,
                   size_t width);

#endif
