/* readiness.c — per op its last arrival, per entry its op (readiness.h). */
#include "readiness.h"

#include <stdlib.h>
#include <string.h>

static int64_t arrival_of(const fa_input *in, const fa_match *m, const fa_call *c) {
    const fa_dump *d = in->ranks[c->rank_index].dump;
    return c->nentries && d->times ? d->times[m->entry_refs[c->entries_at]].created_ns : 0;
}

/* An op that some member left, arriving at its next entry, before the op's last arrival, did not
 * hold its caller until it ended: gloo's async calls (DDP's bucket all_reduces, any
 * `async_op=True`) return at once. Its last arrival says nothing of when its members were free,
 * so it is forgotten (0): the slow rank of a DDP job is late at every bucket, not only the first
 * of each step. The tolerance keeps a few hosts' clock skew from forgetting blocking ops. */
static void forget_unblocking_ops(const fa_input *in, fa_readiness *rd, int64_t tolerance_ns) {
    for (size_t r = 0; r < in->nranks; r++) {
        const fa_dump *d = in->ranks[r].dump;
        if (!d || !d->times) continue;
        const uint32_t *ops = rd->entry_op + rd->rank_at[r];
        for (size_t e = 0; e + 1 < d->nentries; e++) {
            uint32_t op = ops[e];
            int64_t next = d->times[e + 1].created_ns;
            if (op == FA_NO_OP || ops[e + 1] == op || !next || !rd->op_done[op]) continue;
            if (next + tolerance_ns < rd->op_done[op]) rd->unblocking[op] = 1;
        }
    }
    for (size_t op = 0; op < rd->nops; op++)
        if (rd->unblocking[op]) rd->op_done[op] = 0;
}

int fa_readiness_build(const fa_input *in, const fa_match *m, int64_t tolerance_ns,
                       fa_readiness *rd) {
    memset(rd, 0, sizeof *rd);
    rd->rank_at = malloc((in->nranks + 1) * sizeof *rd->rank_at);
    rd->op_done = malloc((m->nops + 1) * sizeof *rd->op_done);
    rd->unblocking = calloc(m->nops + 1, 1);
    rd->nops = m->nops;
    if (!rd->rank_at || !rd->op_done || !rd->unblocking) goto oom;
    size_t total = 0;
    for (size_t r = 0; r < in->nranks; r++) {
        rd->rank_at[r] = total;
        total += in->ranks[r].dump ? in->ranks[r].dump->nentries : 0;
    }
    rd->rank_at[in->nranks] = total;
    rd->entry_op = malloc((total + 1) * sizeof *rd->entry_op);
    if (!rd->entry_op) goto oom;
    memset(rd->entry_op, 0xff, (total + 1) * sizeof *rd->entry_op); /* FA_NO_OP */
    for (size_t op = 0; op < m->nops; op++) {
        const fa_op *o = &m->ops[op];
        int64_t done = 0;
        for (uint32_t k = 0; k < o->ncalls; k++) {
            const fa_call *c = &m->calls[o->first_call + k];
            int64_t at = arrival_of(in, m, c);
            if (at > done) done = at;
            size_t base = rd->rank_at[c->rank_index];
            for (uint32_t e = 0; e < c->nentries; e++)
                rd->entry_op[base + m->entry_refs[c->entries_at + e]] = (uint32_t)op;
        }
        rd->op_done[op] = done;
    }
    forget_unblocking_ops(in, rd, tolerance_ns);
    return 0;
oom:
    fa_readiness_free(rd);
    return -1;
}

void fa_readiness_free(fa_readiness *rd) {
    free(rd->rank_at), free(rd->entry_op), free(rd->op_done), free(rd->unblocking);
    memset(rd, 0, sizeof *rd);
}
