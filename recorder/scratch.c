/* scratch.c — a bump allocator over one mmap'd region (see scratch.h). */
#include "scratch.h"

#include <string.h>
#include <sys/mman.h>

bool rec_scratch_open(rec_scratch *s, size_t size) {
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    s->base = p == MAP_FAILED ? NULL : p;
    s->size = s->base ? size : 0;
    s->used = 0;
    return s->base != NULL;
}

void rec_scratch_close(rec_scratch *s) {
    if (s->base) munmap(s->base, s->size);
    s->base = NULL;
    s->size = s->used = 0;
}

void *rec_scratch_alloc(rec_scratch *s, size_t n) {
    size_t at = (s->used + 15) & ~(size_t)15;
    if (!s->base || at > s->size || n > s->size - at) return NULL;
    s->used = at + n;
    return s->base + at; /* fresh pages of an anonymous mapping are zero */
}

char *rec_scratch_text(rec_scratch *s, const char *text, size_t len, size_t max) {
    if (len > max) {
        len = max;
        while (len > 0 && ((unsigned char)text[len] & 0xC0) == 0x80) len--; /* a continuation */
    }
    char *out = rec_scratch_alloc(s, len + 1);
    if (!out) return NULL;
    memcpy(out, text, len);
    out[len] = '\0';
    return out;
}
