/* safe_text.h — text that came from the input is shown, never obeyed.
 *
 * A dump is written by the job being debugged, often into a directory that others can write. Its
 * strings (group names and descs, profiling names, frames, thread names, stacks) and the names of
 * its files reach the on-call engineer's terminal, the incident ticket, JSON and SVG files. Every
 * writer passes such text through this module, so that whatever bytes it holds are shown as
 * visible text and none of them acts on what displays it:
 *   - terminal (fr_text_*): C0 controls, DEL and C1 controls, bidi and invisible format
 *     characters, lone surrogates and bytes that are not UTF-8 are written as visible escapes
 *     (\n \r \t by name, \x1b, \x7f, \u009b, \u202e, \ud800, \xff); a NUL inside a dump string
 *     is \x00. Nothing else changes: our own text never holds these characters, so a whole
 *     composed line (a verdict, a table cell) can be escaped at the writer, and the verdict
 *     stays one line whatever a desc holds;
 *   - markdown (fr_md_*): the terminal form inside a code span whose fence is longer than any
 *     run of backticks in it (padded when it starts or ends with one), so that no HTML, link,
 *     image, emphasis, heading, list, fence or #123/@name autolink can form; in a table cell
 *     '|' is escaped as well. Cells of plain words and rank lists stay plain;
 *   - Jira and Confluence wiki markup (fr_jira_*): the terminal form in {{monospace}} with
 *     every markup character backslash-escaped, blocks in {noformat}; cells of plain words and
 *     rank lists stay plain;
 *   - XML/SVG (fr_xml_*): the terminal form with & < > " ' as entities: well-formed XML 1.0,
 *     which forbids most controls even as character references;
 *   - JSON (json_text.c, through fr_text_next): always valid UTF-8. A lone surrogate is the
 *     \ud800 escape, a byte that is not UTF-8 the escape of U+DC00 + byte (0xff -> \udcff, as
 *     Python's surrogateescape maps it: os.fsencode gives the byte back), a NUL \u0000, controls
 *     and format characters \uXXXX; every other character as it is.
 *
 * Strings inside the analyzer are NUL-terminated, so a NUL inside a dump string is kept as the
 * two bytes C0 80 (Modified UTF-8, as Java does: intern.c stores it so), which no valid UTF-8
 * holds; fr_text_next reads it back as FR_CH_NUL, and every writer shows it as a NUL. Paths
 * are bytes: the same decoding shows their non-UTF-8 bytes (a path's own C0 80 would show as a
 * NUL, which a path cannot hold: the one ambiguity).
 *
 * fr_text_next is inline and touches no memory but its input, so the recorder's dump writers
 * (pickle_write.c, json_text.c) use it too, inside a fatal signal's handler.
 */
#ifndef FRTRACE_SAFE_TEXT_H
#define FRTRACE_SAFE_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef enum fr_char_kind {
    FR_CH_PLAIN,     /* printable ASCII, or valid UTF-8 not listed below */
    FR_CH_CONTROL,   /* C0 controls (0x00..0x1F), DEL, C1 controls (U+0080..U+009F) */
    FR_CH_FORMAT,    /* bidi controls, invisible and line-breaking format characters,
                        the noncharacters U+FFFE/U+FFFF (see fr_char_is_format) */
    FR_CH_SURROGATE, /* U+D800..U+DFFF in its three-byte form (pickle's surrogatepass) */
    FR_CH_NUL,       /* C0 80: a NUL inside a dump string, as the readers keep it */
    FR_CH_BAD_BYTE,  /* a byte that begins no valid sequence; cp is the byte */
} fr_char_kind;

typedef struct fr_char {
    fr_char_kind kind;
    uint32_t cp; /* the code point (FR_CH_BAD_BYTE: the byte; FR_CH_NUL: 0) */
} fr_char;

/* Characters that change how the text around them is laid out or read without being seen:
 * U+061C and U+200E/U+200F (bidi marks), U+202A..U+202E and U+2066..U+2069 (bidi embeddings,
 * overrides and isolates), U+180E, U+200B..U+200D, U+2060..U+2065, U+FEFF (invisible),
 * U+2028/U+2029 (line and paragraph separators), U+FFF9..U+FFFB (annotations), U+FFFE/U+FFFF. */
static inline bool fr_char_is_format(uint32_t cp) {
    return cp == 0x061C || cp == 0x180E || (cp >= 0x200B && cp <= 0x200F) ||
           (cp >= 0x2028 && cp <= 0x202E) || (cp >= 0x2060 && cp <= 0x2069) || cp == 0xFEFF ||
           (cp >= 0xFFF9 && cp <= 0xFFFB) || cp == 0xFFFE || cp == 0xFFFF;
}

/* The character at s[0..n) (n > 0) in *c; returns how many bytes it takes (at least 1). UTF-8 as
 * Python's 'surrogatepass' reads it (no overlong forms, nothing past U+10FFFF, surrogates
 * allowed), plus C0 80 as FR_CH_NUL; any other byte that starts no valid sequence is one
 * FR_CH_BAD_BYTE. */
static inline size_t fr_text_next(const uint8_t *s, size_t n, fr_char *c) {
    uint8_t b = s[0], lo = 0x80, hi = 0xBF;
    size_t len;
    if (b < 0x80) {
        c->cp = b;
        c->kind = b < 0x20 || b == 0x7F ? FR_CH_CONTROL : FR_CH_PLAIN;
        return 1;
    }
    if (b == 0xC0 && n >= 2 && s[1] == 0x80) {
        c->cp = 0;
        c->kind = FR_CH_NUL;
        return 2;
    }
    if (b >= 0xC2 && b <= 0xDF)
        len = 2;
    else if (b >= 0xE0 && b <= 0xEF)
        len = 3, lo = b == 0xE0 ? 0xA0 : 0x80;
    else if (b >= 0xF0 && b <= 0xF4)
        len = 4, lo = b == 0xF0 ? 0x90 : 0x80, hi = b == 0xF4 ? 0x8F : 0xBF;
    else
        len = 0;
    bool valid = len > 0 && n >= len && s[1] >= lo && s[1] <= hi;
    for (size_t k = 2; valid && k < len; k++) valid = (s[k] & 0xC0) == 0x80;
    if (!valid) {
        c->cp = b;
        c->kind = FR_CH_BAD_BYTE;
        return 1;
    }
    uint32_t cp = b & (0x7F >> len);
    for (size_t k = 1; k < len; k++) cp = cp << 6 | (s[k] & 0x3F);
    c->cp = cp;
    c->kind = cp >= 0xD800 && cp <= 0xDFFF ? FR_CH_SURROGATE
              : cp <= 0x9F                 ? FR_CH_CONTROL
              : fr_char_is_format(cp)      ? FR_CH_FORMAT
                                           : FR_CH_PLAIN;
    return len;
}

/* The value of one hex digit (either case), or -1: for the escapes of pickle text and JSON. */
static inline int fr_hex_digit(unsigned char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* The UTF-8 bytes of cp (surrogates too, in their three-byte form) at out; returns 1 to 4. */
static inline size_t fr_utf8_put(uint8_t *out, uint32_t cp) {
    if (cp < 0x80) return out[0] = (uint8_t)cp, 1;
    if (cp < 0x800) {
        out[0] = (uint8_t)(0xC0 | cp >> 6);
        out[1] = (uint8_t)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (uint8_t)(0xE0 | cp >> 12);
        out[1] = (uint8_t)(0x80 | ((cp >> 6) & 0x3F));
        out[2] = (uint8_t)(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (uint8_t)(0xF0 | cp >> 18);
    out[1] = (uint8_t)(0x80 | ((cp >> 12) & 0x3F));
    out[2] = (uint8_t)(0x80 | ((cp >> 6) & 0x3F));
    out[3] = (uint8_t)(0x80 | (cp & 0x3F));
    return 4;
}

/* Where an escaper sends its text: runs of bytes shown as they are, each escape on its own. */
typedef void (*fr_text_put)(void *ctx, const char *bytes, size_t len);

/* --- terminal ----------------------------------------------------------------------------- */

/* Whether s[0..n) is shown exactly as it is (nothing to escape). */
bool fr_text_is_plain(const char *s, size_t n);
/* The terminal form of s[0..n) (see above), sent to put. */
void fr_text_escape(const char *s, size_t n, fr_text_put put, void *ctx);
/* The terminal form of the C string s (NULL: nothing) written to out. */
void fr_text_fputs(FILE *out, const char *s);
/* A malloc'd copy of s in its terminal form (NULL s: ""); NULL when out of memory. */
char *fr_text_shown(const char *s);
/* Like fprintf to out, every byte of the result in its terminal form but the '\n' that ends
 * the format: for a whole message built from our words and the input's (a warning naming a
 * file). Returns what fprintf returns. */
int fr_text_printf(FILE *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* --- markdown ----------------------------------------------------------------------------- */

/* s as a markdown code span (its terminal form; in_table: '|' escaped for a table cell). */
void fr_md_code(FILE *out, const char *s, bool in_table);
/* s as markdown text: as it is when made only of letters, digits, spaces, ',' and '-' (rank
 * lists, states, plain words), else as fr_md_code; nothing for an empty s. */
void fr_md_text(FILE *out, const char *s, bool in_table);

/* --- Jira and Confluence wiki markup ------------------------------------------------------- */

/* s as monospace, {{...}}, its terminal form with every wiki-markup character backslash-escaped,
 * so that no effect, macro, link, image, mention, emoticon, table cell or list can form. */
void fr_jira_code(FILE *out, const char *s, bool in_table);
/* s as it is when made only of letters, digits, spaces, ',' and '-' (not first), else as
 * fr_jira_code; nothing for an empty s. */
void fr_jira_text(FILE *out, const char *s, bool in_table);
/* s (already in its terminal form: frames, stacks) as a {noformat} block, where nothing is
 * markup; an occurrence of "{noformat" in s is written "{ noformat", so it cannot end it. */
void fr_jira_block(FILE *out, const char *s);

/* --- XML ---------------------------------------------------------------------------------- */

/* s as XML character data or an attribute value (its terminal form, & < > " ' as entities). */
void fr_xml_fputs(FILE *out, const char *s);

#endif
