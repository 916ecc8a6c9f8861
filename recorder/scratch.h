/* scratch.h — the memory one stack capture works in: one anonymous mapping, carved in order.
 *
 * A dump's stacks need a few megabytes for a moment (thread lists, stack copies, frames, the
 * text of names) and nothing afterwards. They come from one mmap'd region, handed out front to
 * back and unmapped whole when the dump is written: no malloc, so a host thread that holds an
 * allocator lock cannot block the capture, and nothing is left behind. Pages that are never
 * touched cost nothing, so the region is sized for the worst case.
 */
#ifndef FRTRACE_REC_SCRATCH_H
#define FRTRACE_REC_SCRATCH_H

#include <stdbool.h>
#include <stddef.h>

typedef struct rec_scratch {
    unsigned char *base;
    size_t size, used;
} rec_scratch;

/* Maps `size` bytes; false when the kernel refuses. */
bool rec_scratch_open(rec_scratch *s, size_t size);
void rec_scratch_close(rec_scratch *s);
/* n bytes, 16-aligned and zeroed; NULL when the region is full. */
void *rec_scratch_alloc(rec_scratch *s, size_t n);
/* A NUL-terminated copy of at most `max` bytes of text[0..len) (cut at a UTF-8 character
 * boundary); NULL when the region is full. */
char *rec_scratch_text(rec_scratch *s, const char *text, size_t len, size_t max);

#endif
