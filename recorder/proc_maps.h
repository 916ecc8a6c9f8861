/* proc_maps.h — this process's memory map (/proc/self/maps), for naming code addresses.
 *
 * Unwinding and symbolizing need to know, for a code address, which file it comes from and
 * where that file was loaded. The map is read once per dump with plain read(2) calls (no
 * stdio, no dladdr: the dynamic loader's lock may be held by the host) into scratch memory.
 * A mapping's `base` is where its file's address zero lies in memory (the start of the file's
 * first mapping minus that mapping's file offset), so `addr - base` is the address the
 * file's own symbol table and addr2line use for position-independent objects.
 */
#ifndef FRTRACE_REC_PROC_MAPS_H
#define FRTRACE_REC_PROC_MAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "scratch.h"

typedef struct rec_mapping {
    uintptr_t start, end; /* [start, end) */
    uint64_t offset;      /* file offset of start */
    uintptr_t base;       /* the file's address zero in memory */
    const char *path;     /* "/usr/lib/x86_64-linux-gnu/libc.so.6", "[vdso]", or "" */
    bool exec, read;
} rec_mapping;

typedef struct rec_maps {
    rec_mapping *v; /* ascending by start */
    size_t n;
} rec_maps;

/* Reads the map into scratch memory; false when /proc/self/maps cannot be read. */
bool rec_maps_read(rec_maps *m, rec_scratch *s);
/* The mapping holding addr, or NULL. */
const rec_mapping *rec_maps_find(const rec_maps *m, uintptr_t addr);
/* Whether addr lies in an executable mapping (a plausible code address). */
bool rec_maps_is_code(const rec_maps *m, uintptr_t addr);

#endif
