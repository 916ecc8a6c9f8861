/* launch_clash.c — a collective and a send/recv batch that took one launch number (step 5 of
 * match.c, after the agreement checks).
 *
 * Dumps whose numbers count launches (the recorder's: fa_dump.launch_numbered) give a group's
 * collectives and its send/recv batches one counter, as NCCL orders them on the communicator:
 * launch #N of a group is one operation for every member. Where some members ran a collective
 * as #N and another a send/recv batch (its p2p_seq_id N), the records of that operation
 * disagree in type: a rank left an operation out (or added one), and NCCL paired what it ran
 * next with its peers' collective. That is a type mismatch, as between two collectives: the
 * members outside the unique largest side are named, or every recorded member without one (two
 * members, a tie). Only the lowest such launch of a group is reported: the ones after it follow
 * from it (the numbers stay shifted).
 *
 * Cost: one map entry per collective op of a launch-numbered dump, one lookup per send/recv
 * call of one; linear.
 */
#include "match/match_build.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/index.h"

/* The ranks whose send/recv batch took a collective's launch number. */
typedef struct clash {
    uint32_t coll_op;
    int64_t rank;
} clash;

static int compare_clashes(const void *pa, const void *pb) {
    const clash *a = pa, *b = pb;
    if (a->coll_op != b->coll_op) return a->coll_op < b->coll_op ? -1 : 1;
    return (a->rank > b->rank) - (a->rank < b->rank);
}

static bool call_launch_numbered(const fa_input *in, const fa_call *c) {
    return in->ranks[c->rank_index].dump->launch_numbered;
}

/* The collective ops of launch-numbered calls by (group, seq). -1 when out of memory. */
static int index_collectives(const fa_input *in, const fa_match *m, fa_imap *by_launch) {
    for (size_t op = 0; op < m->nops; op++) {
        const fa_op *o = &m->ops[op];
        if (o->is_p2p || !o->ncalls || !call_launch_numbered(in, &m->calls[o->first_call]))
            continue;
        if (fa_imap_put(by_launch, fa_key2(o->group, (uint64_t)o->seq), op)) return -1;
    }
    return 0;
}

/* Whether global `rank` has a call in op. */
static bool has_call(const fa_match *m, const fa_groups *groups, const fa_op *o, int64_t rank) {
    const fa_group *g = &groups->v[o->group];
    for (uint32_t k = 0; k < o->ncalls; k++)
        if (g->members[m->calls[o->first_call + k].member] == rank) return true;
    return false;
}

/* Every (collective op, rank) where the rank's send/recv batch carries the collective's launch
 * number in its group while the rank has no call in the collective; sorted, without repeats. */
static clash *find_clashes(const fa_input *in, const fa_groups *groups, const fa_match *m,
                           const fa_imap *by_launch, size_t *n) {
    size_t cap = 16;
    clash *v = malloc(cap * sizeof *v);
    *n = 0;
    for (size_t op = 0; v && op < m->nops; op++) {
        const fa_op *o = &m->ops[op];
        for (uint32_t k = 0; o->is_p2p && k < o->ncalls; k++) {
            const fa_call *c = &m->calls[o->first_call + k];
            if (!call_launch_numbered(in, c)) continue;
            const fa_dump *d = in->ranks[c->rank_index].dump;
            int64_t launch = fa_entry_p2p_seq(d, fa_call_entry(m, in, c, 0));
            uint64_t coll;
            int64_t rank = groups->v[o->group].members[c->member];
            if (!fa_imap_get(by_launch, fa_key2(o->group, (uint64_t)launch), &coll) ||
                has_call(m, groups, &m->ops[coll], rank))
                continue;
            if (*n == cap) {
                clash *grown = realloc(v, 2 * cap * sizeof *v);
                if (!grown) {
                    free(v);
                    return NULL;
                }
                v = grown;
                cap *= 2;
            }
            v[(*n)++] = (clash){ (uint32_t)coll, rank };
        }
    }
    if (!v) return NULL;
    qsort(v, *n, sizeof *v, compare_clashes);
    size_t kept = 0;
    for (size_t i = 0; i < *n; i++)
        if (!kept || compare_clashes(&v[kept - 1], &v[i]) != 0) v[kept++] = v[i];
    *n = kept;
    return v;
}

/* The finding for collective op `coll`, whose launch number the ranks batch[0..nb) used for a
 * send/recv batch. */
static int report_clash(const fa_groups *groups, fa_match *m, fa_findings *findings, size_t coll,
                        const clash *batch, size_t nb) {
    fa_op *o = &m->ops[coll];
    fa_ranks ran = { 0 }, sent = { 0 };
    for (uint32_t k = 0; k < o->ncalls; k++)
        fa_ranks_add(&ran, groups->v[o->group].members[m->calls[o->first_call + k].member]);
    for (size_t i = 0; i < nb; i++) fa_ranks_add(&sent, batch[i].rank);
    fa_ranks_normalize(&ran);
    fa_ranks_normalize(&sent);
    size_t total = ran.n + sent.n;
    bool collective_side = ran.n > sent.n && ran.n >= 2 && total > 2,
         batch_side = sent.n > ran.n && sent.n >= 2 && total > 2;
    fa_finding *f = fa_findings_add(findings, FA_TYPE_MISMATCH, (long)o->group, (long)coll);
    if (!f) {
        fa_ranks_free(&ran);
        fa_ranks_free(&sent);
        return -1;
    }
    o->mismatch = true;
    f->listed = true;
    const fa_ranks *named = batch_side ? &ran : &sent, *other = batch_side ? &sent : &ran;
    for (size_t i = 0; i < named->n; i++) fa_ranks_add(&f->ranks, named->v[i]);
    fa_ranks *rest = collective_side || batch_side ? &f->others : &f->ranks;
    for (size_t i = 0; i < other->n; i++) fa_ranks_add(rest, other->v[i]);
    fa_ranks_normalize(&f->ranks);
    fa_ranks_normalize(&f->others);
    for (uint32_t k = 0; batch_side && k < o->ncalls; k++)
        m->calls[o->first_call + k].in_minority = true;
    char *who_sent = fa_ranks_format(sent.v, sent.n), *who_ran = fa_ranks_format(ran.v, ran.n);
    fa_finding_set_detail(f,
                          "rank%s %s ran a send/recv batch as launch #%lld of the group, where "
                          "rank%s %s ran %s #%lld: the dumps number both alike, so the members "
                          "disagree on that operation's type",
                          sent.n > 1 ? "s" : "", who_sent, (long long)o->seq, ran.n > 1 ? "s" : "",
                          who_ran, fa_op_type(m, o), (long long)o->seq);
    free(who_sent);
    free(who_ran);
    fa_ranks_free(&ran);
    fa_ranks_free(&sent);
    return 0;
}

int fa_mb_check_launch_clashes(const fa_input *in, const fa_groups *groups, fa_match *m,
                               fa_findings *findings) {
    fa_imap by_launch = { 0 };
    size_t n = 0;
    clash *v = NULL;
    int rc = index_collectives(in, m, &by_launch);
    if (rc == 0 && by_launch.count && !(v = find_clashes(in, groups, m, &by_launch, &n))) rc = -1;
    fa_imap_free(&by_launch);
    /* the lowest launch of each group */
    int64_t *lowest = rc == 0 ? malloc((groups->n + 1) * sizeof *lowest) : NULL;
    if (rc == 0 && !lowest) rc = -1;
    for (size_t g = 0; rc == 0 && g < groups->n; g++) lowest[g] = INT64_MAX;
    for (size_t i = 0; rc == 0 && i < n; i++) {
        const fa_op *o = &m->ops[v[i].coll_op];
        if (o->seq < lowest[o->group]) lowest[o->group] = o->seq;
    }
    for (size_t i = 0; rc == 0 && i < n;) {
        size_t j = i;
        while (j < n && v[j].coll_op == v[i].coll_op) j++;
        const fa_op *o = &m->ops[v[i].coll_op];
        if (o->seq == lowest[o->group] && !o->mismatch)
            rc = report_clash(groups, m, findings, v[i].coll_op, v + i, j - i);
        i = j;
    }
    free(lowest);
    free(v);
    return rc;
}
