/* verdict_setup.c — a rank that never finished creating a communicator its peers made and now
 * wait on: the culprit of a hang that no Flight Recorder entry shows.
 *
 * NCCL records nothing while a communicator is being made, so a rank stuck inside
 * ncclCommInitRank leaves no entry, and neither do its peers blocked in the next call on that
 * communicator (an ncclCommSplit, a collective's ncclGroupEnd). Recorder dumps still say two
 * things: which communicators each rank holds (the "frtrace" key's comms: a name, this rank's
 * place and the communicator's size), and where every thread was (frtrace_stacks). Making a
 * communicator is collective: a peer's ncclCommInitRank (or split) returns only once every member
 * took part, so when the members that hold communicator X fall short of its size and exactly as
 * many ranks that lack X are still inside a call that makes communicators, those ranks joined
 * X's making and never came back from it. Nothing in the job needs them to get further (their
 * peers are past that point), so they are roots, and the peers blocked in NCCL calls wait on them.
 *
 * Only where every rank of the job left a readable dump (a rank without one could be the member
 * that is missing), the sinks found nothing from the entries, and some holder of X is itself
 * inside an NCCL call (else nobody waits). A thread is inside an NCCL call when a frame of its
 * native stack is one of NCCL's entry points (the recorder's wrapper, or NCCL's own `pnccl`
 * name for it); the outermost such frame says which.
 */
#include "verdict/verdict_steps.h"

#include <stdlib.h>
#include <string.h>

#include "recorder_keys.h"
#include "util/xmalloc.h"

/* NCCL's entry points a thread can block in, those that make a communicator first. */
static const char *const entry_points[] = {
    FR_NCCL_MAKING_CALLS, FR_NCCL_ENDING_CALLS, "ncclAllReduce",     "ncclBroadcast",
    "ncclReduce",         "ncclAllGather",      "ncclReduceScatter", "ncclAlltoAll",
    "ncclGather",         "ncclScatter",        "ncclSend",          "ncclRecv",
};
enum { MAKERS = FR_NCCL_MAKING_COUNT, NO_CALL = -1 };

static int entry_point_of(const char *name) {
    if (!name) return NO_CALL;
    if (name[0] == 'p') name++; /* NCCL's own name for the same function */
    for (size_t i = 0; i < sizeof entry_points / sizeof entry_points[0]; i++)
        if (strcmp(name, entry_points[i]) == 0) return (int)i;
    return NO_CALL;
}

/* The NCCL call a rank's process is inside (a maker first, over any thread; else any), or
 * NO_CALL: the outermost entry point on each thread's native stack. */
static int call_inside(const fa_dump *dump) {
    int found = NO_CALL;
    for (uint32_t t = 0; dump->has_stacks && t < dump->nthreads; t++) {
        fa_frames frames = fa_store_frames(dump->store, dump->threads[t].native);
        int outermost = NO_CALL;
        for (uint32_t k = 0; k < frames.n; k++) { /* innermost first */
            int at = entry_point_of(frames.v[k].name);
            if (at != NO_CALL) outermost = at;
        }
        if (outermost != NO_CALL && (found == NO_CALL || (outermost < MAKERS && found >= MAKERS)))
            found = outermost;
    }
    return found;
}

/* What each group's communicator shows across the dumps. */
typedef struct comm_tally {
    int64_t size;     /* its comm_size (the largest any holder says) */
    uint32_t held;    /* ranks whose dump lists it, in any state */
    uint32_t makers;  /* of those, ranks inside a making call (they finished this one) */
    uint32_t waiting; /* live holders inside some NCCL call */
} comm_tally;

static void tally_comms(const decider *d, const int *inside, comm_tally *t) {
    for (size_t i = 0; i < d->in->nranks; i++) {
        const fa_dump *dump = d->in->ranks[i].dump;
        for (uint32_t c = 0; dump && c < dump->ncomms; c++) {
            const fr_comm_info *comm = &dump->comms[c];
            long g = comm->pg_name ? fa_groups_find(d->groups, i, comm->pg_name) : -1;
            if (g < 0) continue;
            if (comm->comm_size > t[g].size) t[g].size = comm->comm_size;
            t[g].held++;
            t[g].makers += inside[i] != NO_CALL && inside[i] < MAKERS;
            t[g].waiting +=
                inside[i] != NO_CALL && comm->state && strcmp(comm->state, FR_COMM_LIVE) == 0;
        }
    }
}

static bool holds(const fa_dump *dump, const fa_groups *groups, size_t rank_index, long group) {
    for (uint32_t c = 0; c < dump->ncomms; c++)
        if (dump->comms[c].pg_name &&
            fa_groups_find(groups, rank_index, dump->comms[c].pg_name) == group)
            return true;
    return false;
}

/* The finding: the makers that lack `group` (culprits), its live holders inside a call (others). */
static void blame_unfinished(decider *d, const int *inside, long group) {
    fa_finding *f = fa_findings_add(d->findings, FA_MISSING_RANKS, group, -1);
    f->cause = FA_CAUSE_UNFINISHED_SETUP;
    int theirs = NO_CALL;
    for (size_t i = 0; i < d->in->nranks; i++) {
        const fa_dump *dump = d->in->ranks[i].dump;
        int64_t rank = d->in->ranks[i].rank;
        long node = fa_vg_rank_node(d, rank);
        if (!dump || node < 0 || inside[i] == NO_CALL) continue;
        if (!holds(dump, d->groups, i, group)) {
            if (inside[i] >= MAKERS) continue;
            fa_ranks_add(&f->ranks, rank);
            d->facts[node].culprit = true;
            if (!f->odd_what) f->odd_what = xstrdup(entry_points[inside[i]]);
        } else {
            fa_ranks_add(&f->others, rank);
            if (theirs == NO_CALL) theirs = inside[i];
        }
    }
    fa_ranks_normalize(&f->ranks);
    fa_ranks_normalize(&f->others);
    if (theirs != NO_CALL) f->usual_what = xstrdup(entry_points[theirs]);
    char *who = fa_ranks_format(f->ranks.v, f->ranks.n),
         *others = fa_ranks_format(f->others.v, f->others.n);
    fa_finding_set_detail(f,
                          "rank%s %s made this communicator and wait%s inside %s; rank%s %s, "
                          "the member%s left, never returned from %s",
                          f->others.n > 1 ? "s" : "", others ? others : "?",
                          f->others.n > 1 ? "" : "s", f->usual_what ? f->usual_what : "?",
                          f->ranks.n > 1 ? "s" : "", who ? who : "?", f->ranks.n > 1 ? "s" : "",
                          f->odd_what ? f->odd_what : "?");
    free(others);
    free(who);
}

int fa_vsetup_judge_unfinished(decider *d) {
    if (d->nunseen || d->groups->without_dump.n || !d->in->nranks) return 0;
    int *inside = malloc(d->in->nranks * sizeof *inside);
    comm_tally *t = calloc(d->groups->n + 1, sizeof *t);
    if (!inside || !t) {
        free(inside);
        free(t);
        return -1;
    }
    uint32_t makers = 0;
    for (size_t i = 0; i < d->in->nranks; i++) {
        inside[i] = d->in->ranks[i].dump ? call_inside(d->in->ranks[i].dump) : NO_CALL;
        makers += inside[i] != NO_CALL && inside[i] < MAKERS;
    }
    long best = -1;
    tally_comms(d, inside, t);
    for (size_t g = 0; makers && g < d->groups->n; g++) {
        /* vacant places, each filled by exactly one maker that lacks it */
        int64_t vacant = t[g].size - (int64_t)t[g].held;
        if (vacant > 0 && vacant == (int64_t)(makers - t[g].makers) && t[g].waiting &&
            (best < 0 || t[g].size > t[best].size))
            best = (long)g;
    }
    if (best >= 0) blame_unfinished(d, inside, best);
    free(inside);
    free(t);
    return 0;
}
