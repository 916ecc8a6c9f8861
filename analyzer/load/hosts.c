/* hosts.c — reads a `--hosts FILE` (see hosts.h).
 *
 * The file is read line by line with getline (no length limit to trust: a line longer than
 * LINE_MAX bytes is refused), each line split into a decimal rank, an optional ':', and one host
 * word. The pairs are sorted by rank, so that a lookup is a binary search and a repeated rank is
 * found next to its twin.
 */
#include "load/hosts.h"

#include <ctype.h>
#include <stdbool.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"

#define LINE_MAX_BYTES 4096
#define HOST_MAX       255

typedef struct parsed {
    int64_t rank;
    const char *host;
    size_t host_len;
} parsed;

/* "RANK HOST" or "RANK: HOST" (surrounding blanks allowed); NULL, or what is wrong. */
static const char *parse_line(char *line, parsed *p) {
    char *s = line, *end;
    while (isspace((unsigned char)*s)) s++;
    if (!isdigit((unsigned char)*s)) return "expected \"RANK HOST\"";
    errno = 0;
    long long rank = strtoll(s, &end, 10);
    if (errno || rank > INT32_MAX) return "the rank is out of range";
    s = end;
    if (*s == ':') s++;
    if (!isspace((unsigned char)*s)) return "expected \"RANK HOST\"";
    while (isspace((unsigned char)*s)) s++;
    const char *host = s;
    while (*s && !isspace((unsigned char)*s)) s++;
    size_t len = (size_t)(s - host);
    while (isspace((unsigned char)*s)) s++;
    if (len == 0) return "the host is missing";
    if (*s) return "more than one word after the rank";
    if (len > HOST_MAX) return "the host name is longer than 255 bytes";
    *p = (parsed){ rank, host, len };
    return NULL;
}

static int by_rank(const void *a, const void *b) {
    int64_t x = ((const fa_host *)a)->rank, y = ((const fa_host *)b)->rank;
    return (x > y) - (x < y);
}

static bool blank_or_comment(const char *line) {
    while (isspace((unsigned char)*line)) line++;
    return *line == '\0' || *line == '#';
}

int fa_hosts_load(const char *path, fa_hosts *out, fr_error *err) {
    memset(out, 0, sizeof *out);
    FILE *f = fopen(path, "r");
    if (!f) return fr_fail(err, "%s: cannot read the hosts file: %s", path, strerror(errno));
    char *line = NULL;
    size_t cap = 0, hosts_cap = 0, number = 0;
    ssize_t len;
    int rc = 0;
    while (rc == 0 && (len = getline(&line, &cap, f)) >= 0) {
        parsed p;
        const char *problem;
        number++;
        if ((size_t)len > LINE_MAX_BYTES || memchr(line, '\0', (size_t)len))
            problem = "not a text line (too long, or a NUL byte)";
        else if (blank_or_comment(line))
            continue;
        else
            problem = parse_line(line, &p);
        if (problem) {
            rc = fr_fail(err, "%s:%zu: %s", path, number, problem);
        } else if (fr_grow((void **)&out->v, &hosts_cap, out->n + 1, sizeof *out->v, 64) ||
                   !(out->v[out->n].host = strndup(p.host, p.host_len))) {
            rc = fr_fail(err, "%s: out of memory", path);
        } else {
            out->v[out->n++].rank = p.rank;
        }
    }
    if (rc == 0 && ferror(f)) rc = fr_fail(err, "%s: read error: %s", path, strerror(errno));
    free(line);
    fclose(f);
    if (rc == 0 && out->n) qsort(out->v, out->n, sizeof *out->v, by_rank);
    for (size_t i = 1; rc == 0 && i < out->n; i++)
        if (out->v[i].rank == out->v[i - 1].rank)
            rc = fr_fail(err, "%s: rank %lld is given twice", path, (long long)out->v[i].rank);
    if (rc) fa_hosts_free(out);
    return rc;
}

const char *fa_hosts_find(const fa_hosts *h, int64_t rank) {
    size_t lo = 0, hi = h->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (h->v[mid].rank < rank)
            lo = mid + 1;
        else if (h->v[mid].rank > rank)
            hi = mid;
        else
            return h->v[mid].host;
    }
    return NULL;
}

void fa_hosts_free(fa_hosts *h) {
    for (size_t i = 0; i < h->n; i++) free(h->v[i].host);
    free(h->v);
    memset(h, 0, sizeof *h);
}
