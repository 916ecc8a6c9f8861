/* thread_stacks.h — every thread's native and Python stack at dump time ("frtrace_stacks").
 *
 * A dump says what each rank's operations were; an engineer facing a hang also wants to know
 * where the stuck rank is now (a data loader, a checkpoint write, a lock). At each ordinary dump
 * (not the fatal-signal one, which must stay async-signal-safe) the dumper thread lists the
 * process's threads (/proc/self/task), captures each one's registers and stack top with a signal
 * (thread_capture.h), unwinds and names the frames (unwind.h), and reads every Python thread's
 * frames (pystacks.h). It takes no lock the host may hold and never waits for the GIL; it is
 * bounded: at most MAX_THREADS threads (the lowest thread ids), MAX_NATIVE native and MAX_PYTHON
 * Python frames each (the innermost), about ten seconds in all. A thread's note says what was cut
 * or could not be read. The recorder's own threads are left out. FRTRACE_STACKS=0 turns it off.
 *
 * Memory: one scratch region per dump (scratch.h), released after the dump is written.
 */
#ifndef FRTRACE_REC_THREAD_STACKS_H
#define FRTRACE_REC_THREAD_STACKS_H

#include <stdbool.h>
#include <stdint.h>

#include "../formats/dump.h"
#include "scratch.h"

#define REC_STACKS_MAX_THREADS 256
#define REC_STACKS_MAX_NATIVE  48
#define REC_STACKS_MAX_PYTHON  64

typedef struct rec_stacks {
    rec_scratch scratch;
    fr_thread_stack *threads; /* ascending thread id */
    uint32_t nthreads;
    bool keep_memory; /* a capture handler may still write into the scratch: never unmapped */
} rec_stacks;

/* At activation, on a normal thread: the capture signal, libdw, the interpreter's symbols. */
void rec_stacks_prepare(void);
/* Captures every thread (dumper thread only). False when stacks are off or out of memory. */
bool rec_stacks_collect(rec_stacks *st);
void rec_stacks_release(rec_stacks *st);

#endif
