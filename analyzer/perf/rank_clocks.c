/* rank_clocks.c — each rank's clock offset over the whole job, settled across its groups
 * (rank_clocks.h). */
#include "perf/rank_clocks.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "perf/clocks.h"
#include "perf/perfstat.h"

/* Call c's completion as its dump reads it (its last entry's), 0 unknown. */
static int64_t call_done(const fa_input *in, const fa_match *m, const fa_call *c) {
    uint32_t last = fa_call_entry_index(m, c, fa_call_nentries(m, c) - 1);
    return fa_time_completed(in->ranks[c->rank_index].dump, last);
}

/* Per op and call, its completion's residual against the median of the op's (ns, NaN unknown):
 * collectives with two completions or more. */
static void op_residuals(const fa_input *in, const fa_match *m, int64_t *tmp, double *resid) {
    for (size_t op = 0; op < m->nops; op++) {
        const fa_op *o = &m->ops[op];
        size_t known = 0;
        for (uint32_t k = 0; k < o->ncalls; k++) {
            const fa_call *c = &m->calls[o->first_call + k];
            int64_t done = call_done(in, m, c);
            if (done) tmp[known++] = done;
        }
        double median = known >= 2 && !o->is_p2p ? fa_median_i64(tmp, known) : NAN;
        for (uint32_t k = 0; k < o->ncalls; k++) {
            const fa_call *c = &m->calls[o->first_call + k];
            int64_t done = call_done(in, m, c);
            resid[o->first_call + k] = done && !isnan(median) ? (double)done - median : NAN;
        }
    }
}

/* Memberships (group, member) with their residual median, and per rank its memberships. */
typedef struct offsets_ctx {
    size_t n;         /* memberships */
    size_t *group_at; /* per group: its first membership; [ngroups] the end */
    uint32_t *group;  /* per membership */
    size_t *rank;     /* per membership: its input rank, SIZE_MAX none */
    double *rho;      /* per membership: the median residual of its calls, NaN none */
    size_t *rank_at;  /* per input rank: its first entry in of_rank; [nranks] the end */
    size_t *of_rank;  /* memberships with a residual, by rank */
    double *off, *next, *ref, *scratch;
} offsets_ctx;

static void offsets_free(offsets_ctx *o) {
    free(o->group_at), free(o->group), free(o->rank), free(o->rho), free(o->rank_at);
    free(o->of_rank), free(o->off), free(o->next), free(o->ref), free(o->scratch);
}

/* The residual medians per membership (grouping the calls' residuals by counting). */
static int membership_residuals(const fa_match *m, const double *resid, offsets_ctx *o) {
    size_t *count = calloc(o->n + 1, sizeof *count), *at = calloc(o->n + 2, sizeof *at);
    double *v = malloc((m->ncalls + 1) * sizeof *v);
    int rc = count && at && v ? 0 : -1;
    for (size_t op = 0; op < m->nops && rc == 0; op++)
        for (uint32_t k = 0; k < m->ops[op].ncalls; k++) {
            size_t ci = m->ops[op].first_call + k;
            size_t p = o->group_at[m->ops[op].group] + m->calls[ci].member;
            o->rank[p] = m->calls[ci].rank_index;
            count[p] += !isnan(resid[ci]);
        }
    for (size_t p = 0; p < o->n && rc == 0; p++) at[p + 1] = at[p] + count[p];
    for (size_t op = 0; op < m->nops && rc == 0; op++)
        for (uint32_t k = 0; k < m->ops[op].ncalls; k++) {
            size_t ci = m->ops[op].first_call + k;
            if (!isnan(resid[ci]))
                v[at[o->group_at[m->ops[op].group] + m->calls[ci].member]++] = resid[ci];
        }
    for (size_t p = 0, lo = 0; p < o->n && rc == 0; p++) {
        o->rho[p] = count[p] ? fa_median(v + lo, count[p]) : NAN;
        lo += count[p];
    }
    free(count), free(at), free(v);
    return rc;
}

/* Per rank its memberships with a residual, in of_rank[rank_at[r]..rank_at[r + 1]). */
static void index_by_rank(offsets_ctx *o, size_t nranks) {
    for (size_t p = 0; p < o->n; p++)
        if (o->rank[p] != SIZE_MAX && !isnan(o->rho[p])) o->rank_at[o->rank[p] + 2]++;
    for (size_t r = 0; r < nranks; r++) o->rank_at[r + 2] += o->rank_at[r + 1];
    for (size_t p = 0; p < o->n; p++)
        if (o->rank[p] != SIZE_MAX && !isnan(o->rho[p]))
            o->of_rank[o->rank_at[o->rank[p] + 1]++] = p;
}

/* One round: each group's reference from its members' offsets, then each rank's offset from its
 * groups (into next, swapped in). Returns the largest move (ns). */
static double settle_round(offsets_ctx *o, size_t nranks, size_t ngroups) {
    for (size_t g = 0; g < ngroups; g++) {
        size_t k = 0;
        for (size_t p = o->group_at[g]; p < o->group_at[g + 1]; p++)
            if (o->rank[p] != SIZE_MAX && !isnan(o->rho[p])) o->scratch[k++] = o->off[o->rank[p]];
        o->ref[g] = k ? fa_median(o->scratch, k) : 0;
    }
    double moved = 0;
    for (size_t r = 0; r < nranks; r++) {
        size_t k = 0;
        for (size_t i = o->rank_at[r]; i < o->rank_at[r + 1]; i++)
            o->scratch[k++] = o->rho[o->of_rank[i]] + o->ref[o->group[o->of_rank[i]]];
        o->next[r] = k ? fa_median(o->scratch, k) : 0;
        if (fabs(o->next[r] - o->off[r]) > moved) moved = fabs(o->next[r] - o->off[r]);
    }
    double *t = o->off;
    o->off = o->next, o->next = t;
    return moved;
}

/* The settled offsets against the lower median of the ranks that have one (of two hosts alike,
 * the one that reads earlier), into off; 0 below FA_CLOCK_MIN_MS and for ranks without any
 * residual. */
static void finish(offsets_ctx *o, size_t nranks, int64_t *off) {
    size_t k = 0;
    for (size_t r = 0; r < nranks; r++)
        if (o->rank_at[r + 1] > o->rank_at[r]) o->next[k++] = o->off[r];
    double common = k ? fa_lower_median(o->next, k) : 0;
    for (size_t r = 0; r < nranks; r++) {
        double d = o->rank_at[r + 1] > o->rank_at[r] ? o->off[r] - common : 0;
        off[r] = fabs(d) >= FA_CLOCK_MIN_MS * 1e6 ? (int64_t)d : 0;
    }
}

static int offsets_alloc(offsets_ctx *o, const fa_groups *groups, size_t nranks, size_t widest) {
    size_t ng = groups->n;
    o->group_at = malloc((ng + 1) * sizeof *o->group_at);
    if (!o->group_at) return -1;
    o->group_at[0] = 0;
    for (size_t g = 0; g < ng; g++) o->group_at[g + 1] = o->group_at[g] + groups->v[g].nmembers;
    o->n = o->group_at[ng];
    o->group = malloc((o->n + 1) * sizeof *o->group);
    o->rank = malloc((o->n + 1) * sizeof *o->rank);
    o->rho = malloc((o->n + 1) * sizeof *o->rho);
    o->rank_at = calloc(nranks + 2, sizeof *o->rank_at);
    o->of_rank = malloc((o->n + 1) * sizeof *o->of_rank);
    o->off = calloc(nranks + 1, sizeof *o->off);
    o->next = calloc(nranks + 1, sizeof *o->next);
    o->ref = calloc(ng + 1, sizeof *o->ref);
    o->scratch = malloc((widest + o->n + 1) * sizeof *o->scratch);
    if (!o->group || !o->rank || !o->rho || !o->rank_at || !o->of_rank || !o->off || !o->next ||
        !o->ref || !o->scratch)
        return -1;
    for (size_t g = 0; g < ng; g++)
        for (size_t p = o->group_at[g]; p < o->group_at[g + 1]; p++) o->group[p] = (uint32_t)g;
    for (size_t p = 0; p < o->n; p++) o->rank[p] = SIZE_MAX;
    return 0;
}

/* The offsets: rank_clocks.h. */
int fa_rank_offsets(const fa_input *in, const fa_groups *groups, const fa_match *m, int64_t *off) {
    size_t widest = 1, nranks = in->nranks;
    offsets_ctx o = { 0 };
    for (size_t op = 0; op < m->nops; op++)
        if (m->ops[op].ncalls > widest) widest = m->ops[op].ncalls;
    for (size_t g = 0; g < groups->n; g++)
        if (groups->v[g].nmembers > widest) widest = groups->v[g].nmembers;
    int64_t *tmp = malloc((widest + 1) * sizeof *tmp);
    double *resid = malloc((m->ncalls + 1) * sizeof *resid);
    int rc = tmp && resid ? offsets_alloc(&o, groups, nranks, widest) : -1;
    if (rc == 0) op_residuals(in, m, tmp, resid);
    if (rc == 0) rc = membership_residuals(m, resid, &o);
    if (rc == 0) index_by_rank(&o, nranks);
    for (int round = 0; round < FA_RANK_CLOCK_ROUNDS && rc == 0; round++)
        if (settle_round(&o, nranks, groups->n) < 1e5) break; /* 0.1 ms */
    if (rc == 0) finish(&o, nranks, off);
    for (size_t r = 0; r < nranks && rc != 0; r++) off[r] = 0;
    free(tmp), free(resid);
    offsets_free(&o);
    return rc;
}
