/* json_salvage.h — where a truncated JSON text can be cut so that what is left parses.
 *
 * A JSON dump cut short mid-write (a full disk, a killed writer) ends with open arrays and
 * objects. As with a truncated pickle (pickle_read.h's salvage), the whole entries before the
 * cut are still evidence: json_truncation_cut finds the last place where every value before it
 * is complete — after an opening bracket, or before a ',' — and the brackets that close what is
 * open there. json_read_salvage (json_read.h) parses that text and flags the containers it had
 * to close (FV_FLAG_TRUNCATED), so that dump.c keeps the same whole prefix as for a pickle.
 */
#ifndef FRTRACE_JSON_SALVAGE_H
#define FRTRACE_JSON_SALVAGE_H

#include <stdbool.h>
#include <stddef.h>

typedef struct json_cut {
    size_t at;       /* keep text[0, at) */
    char *closers;   /* then append these ("]}]"), malloc'd */
    size_t nclosers; /* how many containers the cut leaves open: the flagged spine's length */
} json_cut;

/* True and *cut set when text[0, len) is one JSON value that ends while containers are still
 * open (inside a string or not) and has a cut point; false for a whole text, for one whose
 * brackets do not match (that is not truncation), or when out of memory. Linear in len. */
bool json_truncation_cut(const char *text, size_t len, size_t max_depth, json_cut *cut);

#endif
