/* readiness.c — per call the ready time of its rank's next call (readiness.h). */
#include "perf/readiness.h"

#include <stdlib.h>
#include <string.h>

#include "perf/perfstat.h"

static int64_t created(const fa_dump *d, uint32_t e) { return fa_time_created(d, e); }

/* Scratch for one op's members, sized for the widest op. */
typedef struct wake_scratch {
    double *wake, *others, *tmp;
    uint32_t *call; /* which call each known wake-up is */
} wake_scratch;

/* The op's calls' next_ready: its last arrival plus the other members' lower median wake-up; all 0
 * when the op did not block (a member went on before its last arrival) or nothing is known. */
static void ready_after(const fa_input *in, const fa_match *m, const fa_op *o, int64_t tolerance,
                        wake_scratch *s, int64_t *next_ready) {
    int64_t done = 0;
    for (uint32_t k = 0; k < o->ncalls; k++) {
        const fa_call *c = &m->calls[o->first_call + k];
        int64_t at = created(in->ranks[c->rank_index].dump, fa_call_entry_index(m, c, 0));
        if (at > done) done = at;
    }
    size_t known = 0;
    bool blocking = done != 0;
    for (uint32_t k = 0; k < o->ncalls && blocking; k++) {
        uint32_t ci = o->first_call + k;
        const fa_call *c = &m->calls[ci];
        uint32_t last = fa_call_entry_index(m, c, fa_call_nentries(m, c) - 1);
        int64_t next = created(in->ranks[c->rank_index].dump, last + 1);
        if (!next) continue;
        if (next + tolerance < done) blocking = false;
        s->wake[known] = next > done ? (double)(next - done) : 0;
        s->call[known++] = ci;
    }
    for (uint32_t k = 0; k < o->ncalls; k++) next_ready[o->first_call + k] = blocking ? done : 0;
    if (!blocking || known < 2) return;
    fa_lower_median_of_others(s->wake, known, s->tmp, s->others);
    for (size_t i = 0; i < known; i++) next_ready[s->call[i]] = done + (int64_t)s->others[i];
}

int fa_readiness_build(const fa_input *in, const fa_match *m, int64_t tolerance_ns,
                       fa_readiness *rd) {
    memset(rd, 0, sizeof *rd);
    bool any_blocking = false;
    for (size_t r = 0; r < in->nranks; r++) any_blocking |= in->ranks[r].dump->blocks_caller;
    if (!any_blocking) return 0;
    size_t widest = 1;
    for (size_t op = 0; op < m->nops; op++)
        if (m->ops[op].ncalls > widest) widest = m->ops[op].ncalls;
    wake_scratch s = { malloc(widest * sizeof(double)), malloc(widest * sizeof(double)),
                       malloc(widest * sizeof(double)), malloc(widest * sizeof(uint32_t)) };
    rd->rank_at = malloc((in->nranks + 1) * sizeof *rd->rank_at);
    rd->next_ready = malloc((m->ncalls + 1) * sizeof *rd->next_ready);
    size_t total = 0;
    for (size_t r = 0; rd->rank_at && r < in->nranks; r++) {
        rd->rank_at[r] = total;
        total += in->ranks[r].dump ? in->ranks[r].dump->nentries : 0;
    }
    if (rd->rank_at) rd->rank_at[in->nranks] = total;
    rd->entry_call = malloc((total + 1) * sizeof *rd->entry_call);
    int rc =
        rd->rank_at && rd->next_ready && rd->entry_call && s.wake && s.others && s.tmp && s.call
            ? 0
            : -1;
    if (rc == 0) {
        memset(rd->entry_call, 0xff, (total + 1) * sizeof *rd->entry_call); /* FA_NO_CALL */
        for (size_t ci = 0; ci < m->ncalls; ci++) {
            const fa_call *c = &m->calls[ci];
            for (uint32_t e = 0; e < fa_call_nentries(m, c); e++)
                rd->entry_call[rd->rank_at[c->rank_index] + fa_call_entry_index(m, c, e)] =
                    (uint32_t)ci;
        }
        for (size_t op = 0; op < m->nops; op++)
            ready_after(in, m, &m->ops[op], tolerance_ns, &s, rd->next_ready);
    }
    free(s.wake), free(s.others), free(s.tmp), free(s.call);
    if (rc) fa_readiness_free(rd);
    return rc;
}

void fa_readiness_free(fa_readiness *rd) {
    free(rd->rank_at), free(rd->entry_call), free(rd->next_ready);
    memset(rd, 0, sizeof *rd);
}
