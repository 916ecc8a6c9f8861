/* backend.h — what an entry's state means, per backend: the one place that says it.
 *
 * Every Flight Recorder entry carries `state` ("scheduled", "started", "completed") and
 * `retired`, but backends fill them differently, and the analyzer must read them alike:
 *
 * backend                    pending, not started     started           completed
 * -------------------------  -----------------------  ----------------  --------------------
 * PyTorch NCCL, timing on    scheduled                started           completed
 * PyTorch NCCL, timing off   scheduled (started is    -                 completed
 *                            never recorded)
 * PyTorch gloo (2.15)        scheduled, retired       -                 scheduled, retired
 *                            false (in progress on                      true
 *                            the CPU)
 * frtrace's recorder         scheduled                started (start    completed (end
 *                                                     event, level 2)   event)
 *
 * So a gloo entry that is `retired` is completed, whatever its `state` says (gloo never moves
 * it past "scheduled"); for every other backend `state` is the truth and `retired` adds
 * nothing. The backend is the profiling name's prefix ("gloo:all_reduce").
 *
 * What a backend records matters too: PyTorch's gloo records no send/recv at all (they only
 * advance the group's op id; torch 2.15's pg_status counts them not, and a group that ran only
 * send/recv is absent from it), so a rank blocked in one looks like a rank that never issued
 * its next collective; the verdict takes that into account (verdict.c) and the
 * summary says so.
 *
 * And what an arrival means: gloo runs a collective on the calling CPU thread, which returns
 * once it completed, so a rank's next arrival comes after its previous operation ended
 * (readiness.h builds on that); NCCL and the recorder enqueue on a stream and return at once, so
 * a rank's CPU may run many operations ahead of its device and its arrivals say nothing of when
 * the previous one ended.
 */
#ifndef FRTRACE_BACKEND_H
#define FRTRACE_BACKEND_H

#include <stdbool.h>

#include "dump.h"

typedef enum fa_backend {
    FA_BACKEND_OTHER, /* nccl, xccl, the recorder, anything whose state is the truth */
    FA_BACKEND_GLOO,
} fa_backend;

/* The backend an entry's profiling name ("gloo:all_reduce") says it came from. */
fa_backend fa_backend_of(const char *profiling_name);

/* Whether the backend records send/recv (every one but gloo does). */
bool fa_backend_records_p2p(fa_backend backend);

/* Whether a call returns only once its operation completed (gloo), so that the rank's next
 * arrival follows its previous operation's end. */
bool fa_backend_blocks_caller(fa_backend backend);

/* The state the analyzer uses for e: its recorded state, read with its backend's meaning. */
static inline fr_state fa_backend_state(const fr_entry *e) {
    if (e->retired && e->state != FR_STATE_COMPLETED &&
        fa_backend_of(e->profiling_name) == FA_BACKEND_GLOO)
        return FR_STATE_COMPLETED;
    return e->state;
}

#endif
