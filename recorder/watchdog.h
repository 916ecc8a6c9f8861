/* watchdog.h — the recorder's two threads and its signal handlers.
 *
 * The poller advances entries from scheduled to started to completed by querying their CUDA
 * events (oldest pending entry per stream only: a stream completes in order). It is the only
 * thread of ours that calls CUDA, so a driver stuck inside a query cannot stop dumps.
 * The dumper never calls CUDA or NCCL: it sleeps in poll() on a self-pipe and wakes for a dump
 * request (the dump signal's handler writes one byte), every 100 ms to look for a timed-out
 * entry (then it dumps and creates the trigger file, so that every rank dumps) and for the
 * trigger file. Fatal signals dump from inside the handler (dumper.c) and are re-raised.
 * Threads and handlers start at the first communicator, never at load time.
 */
#ifndef FRTRACE_REC_WATCHDOG_H
#define FRTRACE_REC_WATCHDOG_H

/* Starts the threads and installs the handlers (once per process, again in a forked child
 * that creates a communicator of its own). */
void rec_watchdog_start(void);
/* A communicator's ncclCommGetAsyncError result (from the application's call or the poller):
 * a change to an error marks the communicator "async_error:<name>" and asks the dumper for a
 * dump with trigger "async_error" (and the trigger file). ncclInProgress is ignored. */
void rec_watchdog_note_async_error(int comm_index, int nccl_result);
/* In the child of a fork: the threads are gone; forget them (no dump requests go anywhere). */
void rec_watchdog_forget(void);

#endif
