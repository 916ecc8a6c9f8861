/* lateness.c — a group's ops read, corrected for clocks and judged, in order (lateness.h). */
#include "perf/lateness.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "load/backend.h"
#include "perf/perfstat.h"

static int times_init(fa_op_times *t, uint32_t maxcalls) {
    size_t n = (size_t)maxcalls + 1;
    t->member = malloc(n * sizeof *t->member);
    t->arrival = malloc(n * sizeof *t->arrival);
    t->done = malloc(n * sizeof *t->done);
    t->ready = malloc(n * sizeof *t->ready);
    t->gap = malloc(n * sizeof *t->gap);
    t->stay = malloc(n * sizeof *t->stay);
    t->held_before = malloc(n * sizeof *t->held_before);
    t->freed = malloc(n * sizeof *t->freed);
    t->started = malloc(n * sizeof *t->started);
    t->started_late = malloc(n * sizeof *t->started_late);
    t->duration = malloc(n * sizeof *t->duration);
    t->at = malloc(n * sizeof *t->at);
    t->uncertain = malloc(n * sizeof *t->uncertain);
    t->job_off = malloc(n * sizeof *t->job_off);
    t->late = malloc(n * sizeof *t->late);
    t->excess = malloc(n * sizeof *t->excess);
    return t->member && t->started && t->started_late && t->arrival && t->done && t->ready &&
                   t->gap && t->stay && t->held_before && t->freed && t->duration && t->at &&
                   t->uncertain && t->job_off && t->late && t->excess
               ? 0
               : -1;
}

static void times_free(fa_op_times *t) {
    free(t->member), free(t->arrival), free(t->done), free(t->ready), free(t->gap), free(t->stay);
    free(t->held_before), free(t->freed), free(t->started), free(t->started_late),
        free(t->duration), free(t->at), free(t->uncertain), free(t->job_off), free(t->late),
        free(t->excess);
}

int fa_late_scratch_init(fa_late_scratch *s, uint32_t maxcalls) {
    memset(s, 0, sizeof *s);
    int rc = fa_clock_ring_init(&s->clock, maxcalls);
    for (int i = 0; i < FA_CLOCK_WIDTH && rc == 0; i++) rc = times_init(&s->slot[i], maxcalls);
    size_t n = (size_t)maxcalls + 1;
    s->tmp = malloc(n * sizeof *s->tmp);
    s->tmp2 = malloc(n * sizeof *s->tmp2);
    s->off = malloc(n * sizeof *s->off);
    s->idx = malloc(n * sizeof *s->idx);
    if (rc == 0 && s->tmp && s->tmp2 && s->off && s->idx) return 0;
    fa_late_scratch_free(s);
    return -1;
}

void fa_late_scratch_free(fa_late_scratch *s) {
    for (int i = 0; i < FA_CLOCK_WIDTH; i++) times_free(&s->slot[i]);
    fa_clock_ring_free(&s->clock);
    free(s->tmp), free(s->tmp2), free(s->off), free(s->idx);
    memset(s, 0, sizeof *s);
}

/* ------------------------------------------------------------ reading -------------- */

/* One call: its first entry's arrival and duration, its last entry's completion, and how it
 * stands to its rank's previous call. */
static void read_call(const fa_late_env *env, const fa_call *c, bool blocking, fa_op_times *t) {
    uint32_t i = t->n;
    const fa_dump *d = env->in->ranks[c->rank_index].dump;
    t->member[i] = c->member;
    t->arrival[i] = t->done[i] = t->ready[i] = 0;
    t->gap[i] = t->stay[i] = t->duration[i] = t->freed[i] = NAN;
    t->held_before[i] = false;
    t->job_off[i] = env->release ? fa_release_offset_ms(env->release, c->rank_index) : 0;
    {
        uint32_t first = fa_call_entry_index(env->m, c, 0);
        uint32_t last = fa_call_entry_index(env->m, c, fa_call_nentries(env->m, c) - 1);
        t->arrival[i] = fa_time_created(d, first);
        t->done[i] = fa_time_completed(d, last);
        t->duration[i] = fa_time_duration(d, first);
        t->ready[i] = blocking ? fa_ready_ns(env->ready, env->m, c) : 0;
        if (blocking && fa_held_unrecorded(env->ready, env->m, c)) t->ready[i] = t->arrival[i];
        int64_t next = blocking ? fa_time_created(d, last + 1) : 0;
        if (next && t->arrival[i]) t->stay[i] = (double)(next - t->arrival[i]) / 1e6;
        int64_t before = first ? fa_time_completed(d, first - 1) : 0;
        int64_t release = env->release ? fa_release_ns(env->release, env->m, c) : 0;
        int64_t start = env->release ? fa_release_start_ns(env->release, env->m, c) : 0;
        int64_t late_start =
            env->release ? fa_release_start_in_order_ns(env->release, env->m, c) : 0;
        t->started[i] = start && t->arrival[i] ? (double)(start - t->arrival[i]) / 1e6 : 0;
        t->started_late[i] = late_start > start && t->arrival[i]
                                 ? (double)(late_start - t->arrival[i]) / 1e6
                                 : t->started[i];
        /* steps all below the floor since its release (or, with none, since the first entry its
         * dump holds): jitter that added up, none of it a pause */
        double longest = env->release ? fa_release_longest_ms(env->release, env->m, c) : NAN;
        if (release && t->arrival[i] >= release) {
            t->freed[i] = (double)(t->arrival[i] - release) / 1e6;
            if (longest < env->floor_ms && longest < t->freed[i]) t->freed[i] = longest;
        } else if (!release && longest < env->floor_ms) {
            t->freed[i] = longest;
        }
        if (before && t->arrival[i]) {
            t->gap[i] = (double)(t->arrival[i] - before) / 1e6;
            t->held_before[i] = fa_held_at(env->held, c->rank_index, first - 1);
        }
    }
    t->narrived += t->arrival[i] != 0;
    t->ntimed += !isnan(t->duration[i]);
    t->completed &= c->state == FR_STATE_COMPLETED;
    t->n++;
}

static void read_op(const fa_late_env *env, size_t op, fa_op_times *t) {
    const fa_op *o = &env->m->ops[op];
    t->op = op;
    t->n = t->narrived = t->ntimed = 0;
    t->completed = true;
    t->judged = t->corrected = false;
    t->last = -1;
    /* readiness holds only where a call waits for its operation's end (backend.h) */
    const fa_entry *rep = fa_op_rep_entry(env->m, o);
    bool blocking =
        rep && fa_backend_blocks_caller(fa_backend_of(
                   fa_store_op(env->in->store, fa_entry_traits(env->in->store, rep)->name)->text));
    for (uint32_t k = 0; k < o->ncalls; k++)
        read_call(env, &env->m->calls[o->first_call + k], blocking, t);
}

/* Is the op judged for stragglers? Every member present with an arrival, no mismatch, and in a
 * job that is not ok, completed everywhere (the completed history); once per launch: the members
 * of a coalesced group arrive together, one measurement, not one per entry (seed 15296: four
 * groups of two read as eight collectives, a 2-rank job's slow rank shown by four). */
static bool is_judged(const fa_late_env *env, const fa_op_times *t) {
    const fa_op *o = &env->m->ops[t->op];
    const fa_group *g = &env->groups->v[o->group];
    return !o->is_p2p && !o->mismatch && !t->same_launch && g->nmembers >= 2 &&
           t->n == g->nmembers && t->narrived == t->n &&
           (env->status == FA_STATUS_OK || t->completed);
}

/* ------------------------------------------------------------ judging -------------- */

/* Arrivals in ms after the op's first one, less each member's clock offset. */
static void place_arrivals(fa_late_scratch *s, size_t k, size_t nops, fa_op_times *t, bool clocks) {
    int64_t base = INT64_MAX;
    for (uint32_t i = 0; i < t->n; i++)
        if (t->arrival[i] && t->arrival[i] < base) base = t->arrival[i];
    t->corrected = clocks && fa_clock_at(&s->clock, k, nops, t->n, t->member, s->off, t->uncertain);
    for (uint32_t i = 0; i < t->n && !t->corrected; i++) t->uncertain[i] = 0;
    for (uint32_t i = 0; i < t->n; i++)
        t->at[i] = t->arrival[i]
                       ? (double)(t->arrival[i] - base) / 1e6 - (t->corrected ? s->off[i] : 0)
                       : NAN;
}

/* The delay each member made itself, where known (else +inf): its gap less the median gap of the
 * others, where its previous call held it. */
static void own_delays(fa_late_scratch *s, const fa_op_times *t, double *own) {
    uint32_t known = 0;
    bool any_held = false;
    for (uint32_t i = 0; i < t->n; i++) {
        own[i] = INFINITY;
        any_held |= t->held_before[i];
        if (!isnan(t->gap[i])) s->idx[known] = i, s->tmp[known++] = t->gap[i];
    }
    if (known < 2 || !any_held) return; /* nobody to cap: no median to take */
    double *others = s->off;            /* the clock offsets are applied by now */
    fa_median_of_others(s->tmp, known, s->tmp2, others);
    for (uint32_t k = 0; k < known; k++)
        if (t->held_before[s->idx[k]]) own[s->idx[k]] = s->tmp[k] - others[k];
}

/* The arrival each member is compared with, in ref: the lower median of the others' (readiness.h
 * says why the lower). Where clocks
 * were corrected and two members or more read in step (no offset, clocks.h), only theirs: a
 * corrected arrival is known only up to its offset's uncertainty, and would carry that into
 * everyone's reference. Returns whether the reference is so taken. */
static bool reference_arrivals(fa_late_scratch *s, const fa_op_times *t, double *ref) {
    uint32_t nin = 0;
    for (uint32_t i = 0; i < t->n && t->corrected; i++)
        if (t->uncertain[i] == 0) s->tmp[nin++] = t->at[i];
    if (nin < 2 || nin == t->n) {
        fa_lower_median_of_others(t->at, t->n, s->tmp2, ref);
        return false;
    }
    double *others = s->off; /* the clock offsets are applied by now */
    fa_lower_median_of_others(s->tmp, nin, s->tmp2, others);
    memcpy(s->tmp2, s->tmp, nin * sizeof *s->tmp);
    double all = fa_median(s->tmp2, nin);
    for (uint32_t i = 0, k = 0; i < t->n; i++) ref[i] = t->uncertain[i] == 0 ? others[k++] : all;
    return true;
}

/* Where clocks were corrected, lateness is known only up to the offsets' uncertainty: its own
 * and, unless the reference is in step, that of the others' median. A rank is never late by
 * what a clock may account for. */
static void unclocked(fa_late_scratch *s, fa_op_times *t, bool in_step_reference) {
    if (in_step_reference)
        for (uint32_t i = 0; i < t->n; i++) s->tmp[i] = 0;
    else
        fa_median_of_others(t->uncertain, t->n, s->tmp2, s->tmp);
    for (uint32_t i = 0; i < t->n; i++) {
        double u = t->uncertain[i] + s->tmp[i];
        if (t->late[i] > 0) t->late[i] = t->late[i] > u ? t->late[i] - u : 0;
    }
}

/* Where calls block (gloo), nobody arrives later than the others stay in the call: their next
 * calls come after it ended, and it ended after its last member came. Each member's stay is
 * replaced by the median of the others' (NaN unknown): its lateness beyond that is a clock
 * ahead of theirs, or a call that did not block (perf.c weighs which). */
static void others_stays(fa_late_scratch *s, fa_op_times *t) {
    uint32_t known = 0;
    for (uint32_t i = 0; i < t->n; i++)
        if (!isnan(t->stay[i])) s->idx[known] = i, s->tmp[known++] = t->stay[i];
    if (known < 2) {
        for (uint32_t i = 0; i < t->n; i++) t->stay[i] = NAN;
        return;
    }
    fa_median_of_others(s->tmp, known, s->tmp2, s->off);
    double all = fa_median(s->tmp, known); /* reorders tmp: after the others' medians */
    for (uint32_t i = 0, k = 0; i < t->n; i++)
        t->stay[i] = k < known && s->idx[k] == i ? s->off[k++] : all;
}

/* A collective ends on its members together, so a member whose kernel ran longer because it
 * started early and waited in it for a late peer is not slow: its duration's excess counts only
 * as far as its end (its start, rebuilt by release.h, plus its duration) is later than the
 * others' median end. A slow GPU ends after its peers; its victims end with them. */
static void ended_late(fa_late_scratch *s, fa_op_times *t) {
    for (uint32_t i = 0; i < t->n; i++) s->tmp[i] = t->at[i] + t->started_late[i] + t->duration[i];
    fa_median_of_others(s->tmp, t->n, s->tmp2, s->off);
    for (uint32_t i = 0; i < t->n; i++) {
        double end = t->at[i] + t->started[i] + t->duration[i] - s->off[i];
        if (end < t->excess[i]) t->excess[i] = end;
    }
}

/* Where the group's window corrected no clock at the op (clocks.h: its members' completions never
 * read FA_CLOCK_MIN_MS apart there, as where the median of a group split evenly between two
 * hosts is one host's, or an offset just above the minimum is read through discovery noise just
 * below it), a member whose clock the whole job shows ahead of the others' (rank_clocks.h: read
 * over all its groups, seed 9166: a node 101 ms ahead, 104 by the job, 85 to 101 in its group of
 * four) is late only beyond that: what a clock may account for is no lateness. Only clears. */
static void job_clocks(fa_late_scratch *s, fa_op_times *t) {
    bool any = false;
    for (uint32_t i = 0; i < t->n; i++) any |= t->job_off[i] != 0;
    if (!any || t->corrected) return;
    fa_lower_median_of_others(t->job_off, t->n, s->tmp2, s->tmp);
    for (uint32_t i = 0; i < t->n; i++) {
        double ahead = t->job_off[i] - s->tmp[i];
        if (ahead > 0 && t->late[i] > 0) t->late[i] = t->late[i] > ahead ? t->late[i] - ahead : 0;
    }
}

static void judge(fa_late_scratch *s, fa_op_times *t) {
    double hi = -INFINITY;
    t->last = -1;
    for (uint32_t i = 0; i < t->n; i++) {
        if (t->at[i] > hi)
            hi = t->at[i], t->last = (long)i;
        else if (t->at[i] == hi)
            t->last = -1;
    }
    bool in_step_reference = reference_arrivals(s, t, t->late);
    for (uint32_t i = 0; i < t->n; i++) t->late[i] = t->at[i] - t->late[i];
    own_delays(s, t, t->excess); /* excess is filled below: borrow it meanwhile */
    for (uint32_t i = 0; i < t->n; i++) {
        double own = t->excess[i];
        if (t->freed[i] < own) own = t->freed[i]; /* NaN: unknown, no cap */
        if (t->ready[i]) {
            double blocked = (double)(t->arrival[i] - t->ready[i]) / 1e6;
            if (blocked < own) own = blocked;
        }
        if (own < t->late[i]) t->late[i] = own;
    }
    if (t->corrected) unclocked(s, t, in_step_reference);
    job_clocks(s, t);
    others_stays(s, t);
    if (t->ntimed == t->n) {
        fa_median_of_others(t->duration, t->n, s->tmp2, t->excess);
        for (uint32_t i = 0; i < t->n; i++) t->excess[i] = t->duration[i] - t->excess[i];
        ended_late(s, t);
    } else {
        for (uint32_t i = 0; i < t->n; i++) t->excess[i] = NAN;
    }
}

int fa_group_lateness(const fa_late_env *env, fa_late_scratch *s, uint32_t gi, const size_t *ops,
                      size_t nops, fa_late_visit visit, void *arg) {
    fa_clock_reset(&s->clock, env->groups->v[gi].nmembers);
    s->clock.job_noise_ms = env->clock_noise_ms;
    for (size_t k = 0; k < nops + FA_CLOCK_HALF; k++) {
        if (k < nops) {
            fa_op_times *t = &s->slot[k % FA_CLOCK_WIDTH];
            read_op(env, ops[k], t);
            const fa_op *o = &env->m->ops[ops[k]], *prev = k ? &env->m->ops[ops[k - 1]] : NULL;
            bool p2p = o->is_p2p;
            t->same_launch = prev && !p2p && !prev->is_p2p && o->seq > 0 && prev->seq == o->seq;
            fa_clock_put(&s->clock, k, p2p ? 0 : t->n, t->member, t->done);
        }
        if (k < FA_CLOCK_HALF) continue;
        size_t j = k - FA_CLOCK_HALF;
        fa_op_times *t = &s->slot[j % FA_CLOCK_WIDTH];
        place_arrivals(s, j, nops, t, !env->m->ops[t->op].is_p2p);
        t->judged = is_judged(env, t);
        if (t->judged) judge(s, t);
        int rc = visit(arg, t);
        if (rc) return rc;
    }
    return 0;
}
