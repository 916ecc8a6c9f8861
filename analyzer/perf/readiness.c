/* readiness.c — per call the ready time of its rank's next call (readiness.h). */
#include "perf/readiness.h"

#include <stdlib.h>
#include <string.h>

#include "perf/perfstat.h"

static int64_t created(const fa_dump *d, uint32_t e) { return fa_time_created(d, e); }

/* Call c's arrival (its first entry's time_created_ns) and its rank's next call's (the entry
 * after its last one), 0 where unknown. */
static void call_span(const fa_input *in, const fa_match *m, const fa_call *c, int64_t *arrival,
                      int64_t *next) {
    const fa_dump *d = in->ranks[c->rank_index].dump;
    *arrival = created(d, fa_call_entry_index(m, c, 0));
    *next = created(d, fa_call_entry_index(m, c, fa_call_nentries(m, c) - 1) + 1);
}

/* Scratch for one op's members, sized for the widest op. */
typedef struct wake_scratch {
    double *wake, *others, *tmp;
    uint32_t *call; /* which call each known wake-up is */
} wake_scratch;

/* Whether op o lacks a member's call: a member without a dump, or whose dump (cut, or a window)
 * holds nothing of it. */
static bool missing_member(const fa_groups *groups, const fa_op *o) {
    if (o->is_p2p) return o->unmatched || o->ncalls < 2;
    return o->ncalls < groups->v[o->group].nmembers;
}

/* The op's calls' next_ready: its last arrival plus the other members' lower median wake-up; all 0
 * when the op did not block (a member went on before its last arrival) or nothing is known.
 * Where one member alone went on to a known next call and another member's arrival is unknown,
 * the op may have ended as late as that next call (the unknown member came last): its rank made
 * no delay there that the dumps show. */
static void ready_after(const fa_input *in, const fa_groups *groups, const fa_match *m,
                        const fa_op *o, int64_t tolerance, wake_scratch *s, int64_t *next_ready) {
    int64_t done = 0, at, next;
    for (uint32_t k = 0; k < o->ncalls; k++) {
        call_span(in, m, &m->calls[o->first_call + k], &at, &next);
        if (at > done) done = at;
    }
    size_t known = 0;
    bool blocking = done != 0;
    for (uint32_t k = 0; k < o->ncalls && blocking; k++) {
        uint32_t ci = o->first_call + k;
        call_span(in, m, &m->calls[ci], &at, &next);
        if (!next) continue;
        if (next + tolerance < done) blocking = false;
        s->wake[known] = next > done ? (double)(next - done) : 0;
        s->call[known++] = ci;
    }
    for (uint32_t k = 0; k < o->ncalls; k++) next_ready[o->first_call + k] = blocking ? done : 0;
    if (blocking && known == 1 && missing_member(groups, o)) {
        call_span(in, m, &m->calls[s->call[0]], &at, &next);
        next_ready[s->call[0]] = next;
    }
    if (!blocking || known < 2) return;
    fa_lower_median_of_others(s->wake, known, s->tmp, s->others);
    for (size_t i = 0; i < known; i++) next_ready[s->call[i]] = done + (int64_t)s->others[i];
}

/* Per input rank and group slot of its dump (pg_at[rank] + slot): at how many recorded
 * operations of the group its stay is known (known[]), and at how many it waited for a peer
 * (waits[]): it arrived before the last member by the tolerance or more and stayed longer than
 * the member that stayed least by as much (a stay is on the rank's own clock, but it also holds
 * the rank's own work before its next call: a rank that pauses after the operation is no waiter
 * for that; an arrival is compared across clocks, which a node's offset can shift). */
static void count_waits(const fa_input *in, const fa_match *m, int64_t tolerance,
                        const size_t *pg_at, uint32_t *known, uint32_t *waits, int64_t *stay,
                        int64_t *arrival) {
    for (size_t op = 0; op < m->nops; op++) {
        const fa_op *o = &m->ops[op];
        int64_t least = INT64_MAX, last_arrival = 0;
        for (uint32_t k = 0; k < o->ncalls; k++) {
            int64_t at, next;
            call_span(in, m, &m->calls[o->first_call + k], &at, &next);
            arrival[k] = at;
            stay[k] = at && next >= at ? next - at : -1;
            if (stay[k] >= 0 && stay[k] < least) least = stay[k];
            if (at > last_arrival) last_arrival = at;
        }
        for (uint32_t k = 0; k < o->ncalls && least != INT64_MAX; k++) {
            const fa_call *c = &m->calls[o->first_call + k];
            const fa_dump *d = in->ranks[c->rank_index].dump;
            size_t slot = pg_at[c->rank_index] +
                          fa_entry_pg(in->store, &d->entries[fa_call_entry_index(m, c, 0)]);
            if (stay[k] < 0) continue;
            known[slot]++;
            waits[slot] += stay[k] - least >= tolerance && last_arrival - arrival[k] >= tolerance;
        }
    }
}

/* One rank's calls that an unrecorded operation may have held: for each entry right after op ids
 * its group skipped (fa_entry.unrecorded_before), in a group where the rank waited for a peer at
 * most of the recorded operations whose stays are known (count_waits), the entries
 * after the group's previous one up to it; a running count over the rank's entries (stretches
 * opened and closed, one pass). */
static void mark_held(const fa_input *in, const fa_match *m, const fa_readiness *rd, size_t r,
                      const uint32_t *known, const uint32_t *waits, int32_t *opens,
                      uint32_t *last_in_pg) {
    const fa_dump *d = in->ranks[r].dump;
    if (!d || !d->blocks_caller || !d->nentries) return;
    memset(opens, 0, (d->nentries + 1) * sizeof *opens);
    for (uint32_t g = 0; g < d->npgs; g++) last_in_pg[g] = UINT32_MAX;
    for (uint32_t i = 0; i < d->nentries; i++) {
        uint32_t g = fa_entry_pg(in->store, &d->entries[i]);
        if (d->entries[i].unrecorded_before && 2 * waits[g] > known[g]) {
            opens[last_in_pg[g] == UINT32_MAX ? 0 : last_in_pg[g] + 1]++;
            opens[i + 1]--;
        }
        last_in_pg[g] = i;
    }
    int32_t open = 0;
    for (uint32_t i = 0; i < d->nentries; i++) {
        open += opens[i];
        uint32_t ci = rd->entry_call[rd->rank_at[r] + i];
        if (open > 0 && ci != FA_NO_CALL && i == fa_call_entry_index(m, &m->calls[ci], 0))
            rd->held_unrecorded[ci / 8] |= (uint8_t)(1u << (ci % 8));
    }
}

/* rd->held_unrecorded: count_waits over every op, then mark_held over every rank. */
static int mark_held_calls(const fa_input *in, const fa_match *m, int64_t tolerance, size_t widest,
                           fa_readiness *rd) {
    size_t npgs = 0, longest = 0, widest_pgs = 1;
    size_t *pg_at = malloc((in->nranks + 1) * sizeof *pg_at);
    for (size_t r = 0; pg_at && r < in->nranks; r++) {
        const fa_dump *d = in->ranks[r].dump;
        pg_at[r] = npgs;
        npgs += d ? d->npgs : 0;
        if (d && d->nentries > longest) longest = d->nentries;
        if (d && d->npgs > widest_pgs) widest_pgs = d->npgs;
    }
    uint32_t *known = calloc(npgs + 1, sizeof *known), *waits = calloc(npgs + 1, sizeof *waits);
    int64_t *stay = malloc(2 * widest * sizeof *stay); /* and the arrivals */
    int32_t *opens = malloc((longest + 1) * sizeof *opens);
    uint32_t *last_in_pg = malloc(widest_pgs * sizeof *last_in_pg);
    rd->held_unrecorded = calloc(m->ncalls / 8 + 1, 1);
    int rc = pg_at && known && waits && stay && opens && last_in_pg && rd->held_unrecorded ? 0 : -1;
    if (rc == 0) {
        count_waits(in, m, tolerance, pg_at, known, waits, stay, stay + widest);
        for (size_t r = 0; r < in->nranks; r++)
            mark_held(in, m, rd, r, known + pg_at[r], waits + pg_at[r], opens, last_in_pg);
    }
    free(pg_at), free(known), free(waits), free(stay), free(opens), free(last_in_pg);
    return rc;
}

int fa_readiness_build(const fa_input *in, const fa_groups *groups, const fa_match *m,
                       int64_t tolerance_ns, fa_readiness *rd) {
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
            ready_after(in, groups, m, &m->ops[op], tolerance_ns, &s, rd->next_ready);
        rc = mark_held_calls(in, m, tolerance_ns, widest, rd);
    }
    free(s.wake), free(s.others), free(s.tmp), free(s.call);
    if (rc) fa_readiness_free(rd);
    return rc;
}

void fa_readiness_free(fa_readiness *rd) {
    free(rd->rank_at), free(rd->entry_call), free(rd->next_ready), free(rd->held_unrecorded);
    memset(rd, 0, sizeof *rd);
}
