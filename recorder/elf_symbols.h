/* elf_symbols.h — names of code addresses from the ELF files' own symbol tables.
 *
 * The fallback symbolizer, used when elfutils' libdw is not there (or FRTRACE_STACKS=fp):
 * each object a frame points into is opened and mapped read-only once per dump, its .symtab
 * (which an unstripped binary keeps, static functions included) or else .dynsym read, and its
 * function symbols sorted for binary search. No dladdr: the dynamic loader's lock may be held
 * by a host thread, and dladdr does not know static functions anyway. Every offset read from a
 * file is bounds-checked, so a damaged file gives no name, never a crash.
 */
#ifndef FRTRACE_REC_ELF_SYMBOLS_H
#define FRTRACE_REC_ELF_SYMBOLS_H

#include <stdint.h>

#include "proc_maps.h"
#include "scratch.h"

typedef struct rec_elf_cache rec_elf_cache;

/* A cache for one dump, in scratch memory (NULL when full). */
rec_elf_cache *rec_elf_cache_new(rec_scratch *s);
/* Unmaps the files it mapped. */
void rec_elf_cache_close(rec_elf_cache *c);
/* The function holding addr, which lies in mapping m; NULL when unknown. The text lives in the
 * mapped file: valid until rec_elf_cache_close. */
const char *rec_elf_symbol(rec_elf_cache *c, const rec_mapping *m, uintptr_t addr);

#endif
