/* pystacks.h — every Python thread's stack, read from the interpreter's memory without the GIL.
 *
 * A hung rank's Python threads are usually blocked, often holding the GIL (in C code) or waiting
 * for it: taking it to ask the interpreter would hang the dump too. So the stacks are read as
 * CPython's faulthandler reads them on a fatal error, from the interpreter's own structures:
 * each interpreter's list of thread states (head from PyInterpreterState_Head and
 * PyInterpreterState_ThreadHead, plain loads of a global), each thread state's chain of
 * frames, each frame's code object (qualified name, file name, and the line, decoded from its
 * location table as PyCode_Addr2Line does). Unlike faulthandler, every read goes through
 * rec_safe_read, so a thread that changes its frames meanwhile gives a shorter or stale stack,
 * never a crash; every code object and string is checked to be one (its type pointer) before it
 * is read, and every loop is bounded.
 *
 * The layouts of those structures change between CPython versions; this file knows 3.11, 3.12
 * and 3.13 (the default, GIL build; the version comes from Py_Version). For another version,
 * or a process that is not Python, there are no Python stacks and rec_py_note() says why.
 */
#ifndef FRTRACE_REC_PYSTACKS_H
#define FRTRACE_REC_PYSTACKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../formats/dump.h"
#include "scratch.h"

typedef struct rec_py_thread {
    int64_t tid;      /* the thread's kernel id (native_thread_id) */
    fr_frame *frames; /* innermost first */
    uint32_t nframes;
    const char *note; /* a cut or an unreadable frame, or NULL */
} rec_py_thread;

/* At activation (a normal thread, loader lock free): finds the interpreter's symbols. */
void rec_py_load(void);
/* Whether this process runs a CPython whose stacks can be read. */
bool rec_py_supported(void);
/* Why not (a CPython of another version), or NULL (supported, or not Python at all). */
const char *rec_py_note(void);
/* Reads at most max_threads threads, max_frames frames each, into out; returns how many. */
size_t rec_py_read(rec_scratch *s, rec_py_thread *out, size_t max_threads, size_t max_frames);

#endif
