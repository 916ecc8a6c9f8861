/* unwind.h — from a captured thread (thread_capture.h) to its call stack and function names.
 *
 * Two ways, chosen per dump:
 *   - elfutils' libdw (libdw.so.1, dlopen'ed at activation, never linked: a host without it
 *     still works): DWARF call-frame information (.eh_frame, which every x86-64 object has even
 *     without frame pointers) unwinds from the captured registers, and libdw names each address
 *     from the object's .symtab or .dynsym. Separate debug files and debuginfod are never
 *     consulted (a dump must not wait for the network);
 *   - without libdw, or with FRTRACE_STACKS=fp: a frame-pointer walk (exact for code built with
 *     frame pointers, best effort otherwise: the innermost caller is found by scanning the top
 *     of the stack for a return address) and elf_symbols.h for the names.
 * Every memory read goes to the captured copy of the stack when it lies there, else through
 * rec_safe_read: a wrong guess ends a stack early, never crashes the host.
 */
#ifndef FRTRACE_REC_UNWIND_H
#define FRTRACE_REC_UNWIND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proc_maps.h"
#include "scratch.h"
#include "thread_capture.h"

typedef struct rec_unwinder rec_unwinder;

/* One frame: its address, and whether that is a return address (a caller's frame: it is named
 * by the byte before it, which is still inside the call). */
typedef struct rec_pc {
    uintptr_t pc;
    bool caller;
} rec_pc;

/* At activation: dlopen libdw.so.1 and look up its functions. False: frame pointers only. */
bool rec_unwind_load(void);
/* For one dump, in scratch memory; libdw only when loaded and `use_libdw`. NULL when full. */
rec_unwinder *rec_unwinder_begin(rec_scratch *s, const rec_maps *maps, bool use_libdw);
/* "libdw" or "frame pointers". */
const char *rec_unwinder_method(const rec_unwinder *u);
/* The frames of a captured thread, innermost first, at most max; *cut when there were more. */
size_t rec_unwind(rec_unwinder *u, const rec_captured *c, rec_pc *out, size_t max, bool *cut);
/* The function a frame is in, or NULL. The text lives until rec_unwinder_end. */
const char *rec_unwind_symbol(rec_unwinder *u, const rec_pc *pc);
void rec_unwinder_end(rec_unwinder *u);

#endif
