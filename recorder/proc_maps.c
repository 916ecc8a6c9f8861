/* proc_maps.c — parses /proc/self/maps into rec_maps (see proc_maps.h).
 *
 * Lines look like "7f12a4c00000-7f12a4c28000 r--p 00000000 08:01 1234   /usr/lib/libc.so.6".
 * The whole file is read into one scratch buffer (at most MAPS_MAX bytes; a larger map is cut,
 * and addresses past the cut are simply not named), then each line is split in place.
 */
#include "proc_maps.h"

#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#define MAPS_MAX (4u << 20)

static const char *hex_field(const char *p, const char *end, uint64_t *out) {
    uint64_t v = 0;
    const char *start = p;
    for (; p < end; p++) {
        int d = (*p >= '0' && *p <= '9')   ? *p - '0'
                : (*p >= 'a' && *p <= 'f') ? *p - 'a' + 10
                : (*p >= 'A' && *p <= 'F') ? *p - 'A' + 10
                                           : -1;
        if (d < 0) break;
        v = v << 4 | (uint64_t)d;
    }
    *out = v;
    return p > start ? p : NULL;
}

static const char *skip_field(const char *p, const char *end) {
    while (p < end && *p == ' ') p++;
    while (p < end && *p != ' ') p++;
    return p;
}

/* One line [p, end) into m; false when it does not parse. */
static bool parse_line(char *p, char *end, rec_mapping *m) {
    uint64_t start, stop, offset;
    const char *q = hex_field(p, end, &start);
    if (!q || *q != '-' || !(q = hex_field(q + 1, end, &stop)) || q + 5 > end) return false;
    m->start = (uintptr_t)start;
    m->end = (uintptr_t)stop;
    m->read = q[1] == 'r';
    m->exec = q[3] == 'x';
    q += 5;
    while (q < end && *q == ' ') q++;
    if (!(q = hex_field(q, end, &offset))) return false;
    m->offset = offset;
    q = skip_field(q, end); /* device */
    q = skip_field(q, end); /* inode */
    while (q < end && *q == ' ') q++;
    *end = '\0';
    m->path = q;
    return true;
}

/* Where each mapping's file has its address zero: the first mapping of a run of mappings of
 * the same file gives it (the map lists a file's mappings one after another). */
static void fill_bases(rec_maps *m) {
    for (size_t i = 0; i < m->n; i++) {
        rec_mapping *x = &m->v[i];
        const rec_mapping *prev = i ? &m->v[i - 1] : NULL;
        if (prev && x->path[0] && strcmp(prev->path, x->path) == 0)
            x->base = prev->base;
        else
            x->base = x->start - (uintptr_t)x->offset;
    }
}

static size_t read_all(const char *path, char *buf, size_t cap) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    size_t len = 0;
    for (;;) {
        ssize_t n = read(fd, buf + len, cap - len);
        if (n <= 0) break;
        len += (size_t)n;
        if (len == cap) break;
    }
    close(fd);
    return len;
}

bool rec_maps_read(rec_maps *m, rec_scratch *s) {
    m->v = NULL;
    m->n = 0;
    char *buf = rec_scratch_alloc(s, MAPS_MAX);
    if (!buf) return false;
    size_t len = read_all("/proc/self/maps", buf, MAPS_MAX - 1);
    if (len == 0) return false;
    size_t lines = 0;
    for (size_t i = 0; i < len; i++) lines += buf[i] == '\n';
    m->v = rec_scratch_alloc(s, (lines + 1) * sizeof *m->v);
    if (!m->v) return false;
    for (char *p = buf, *end = buf + len; p < end;) {
        char *nl = memchr(p, '\n', (size_t)(end - p));
        char *line_end = nl ? nl : end;
        if (m->n <= lines && parse_line(p, line_end, &m->v[m->n])) m->n++;
        p = line_end + 1;
    }
    fill_bases(m);
    return m->n > 0;
}

const rec_mapping *rec_maps_find(const rec_maps *m, uintptr_t addr) {
    size_t lo = 0, hi = m->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (addr < m->v[mid].start)
            hi = mid;
        else if (addr >= m->v[mid].end)
            lo = mid + 1;
        else
            return &m->v[mid];
    }
    return NULL;
}

bool rec_maps_is_code(const rec_maps *m, uintptr_t addr) {
    const rec_mapping *x = rec_maps_find(m, addr);
    return x && x->exec;
}
