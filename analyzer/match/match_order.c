/* match_order.c — collectives paired by their order. The recorder numbers a communicator's
 * launches with one counter (a collective or a send/recv batch takes the next number), while
 * NCCL pairs a communicator's collectives by their order alone: a member's k-th collective there
 * meets every other member's k-th. Where members' numbers diverge (one left a collective out, or
 * issued one on the wrong communicator, and a send/recv batch took the number), the same number
 * is not the same collective: a member whose entries in the group carry every launch number from
 * 1 to its newest (no ring that wrapped, no completed entry left out) shows which collective is
 * its k-th, and two such members whose k-th collectives differ in type, sizes or dtypes
 * mismatch, as members of one op do (check_op). Only groups where some member's window shows a
 * number went to something else (the op check's "never issued") are looked at; ordinals at which
 * the members compared all carry one number are the ops check_op has already judged.
 */
#include "match/match_check.h"

#include <stdlib.h>
#include <string.h>

typedef struct launch_rec {
    size_t view;
    int64_t launch;
    uint32_t op, call;
    bool p2p;
} launch_rec;

static int compare_launches(const void *x, const void *y) {
    const launch_rec *a = x, *b = y;
    if (a->view != b->view) return (a->view > b->view) - (a->view < b->view);
    if (a->launch != b->launch) return (a->launch > b->launch) - (a->launch < b->launch);
    if (a->p2p != b->p2p) return a->p2p - b->p2p;
    return (a->op > b->op) - (a->op < b->op);
}

/* Whether collective op_index misses a member whose launch-numbered window says its number went
 * to something else (fa_op_member_state's FA_MS_NEVER by the window). */
static bool number_went_elsewhere(const checker *k, size_t op_index) {
    const fa_op *op = &k->m->ops[op_index];
    const fa_group *g = &k->groups->v[op->group];
    if (op->is_p2p || op->ncalls >= g->nmembers) return false;
    uint32_t at = 0;
    for (uint32_t p = 0; p < g->nmembers; p++) {
        while (at < op->ncalls && k->m->calls[op->first_call + at].member < p) at++;
        if (at < op->ncalls && k->m->calls[op->first_call + at].member == p) continue;
        const fa_view *v = view_of(k->m, op->group, p);
        if (g->member_input[p] >= 0 && v->launch_numbered && op->seq >= v->window_min &&
            op->seq <= v->issued_max)
            return true;
    }
    return false;
}

/* The launch records of the calls in flagged groups by launch-numbered ranks, sorted by view
 * and launch; NULL (with *n 0) when none or out of memory (*oom set). */
static launch_rec *gather_launches(const checker *k, const bool *flagged, size_t *n, bool *oom) {
    size_t count = 0, cap = 0;
    launch_rec *v = NULL;
    *oom = false;
    for (size_t o = 0; o < k->m->nops; o++) {
        const fa_op *op = &k->m->ops[o];
        if (!flagged[op->group]) continue;
        for (uint32_t i = 0; i < op->ncalls; i++) {
            const fa_call *c = &k->m->calls[op->first_call + i];
            const fa_dump *d = k->in->ranks[c->rank_index].dump;
            if (!d->launch_numbered) continue;
            int64_t launch = op->seq;
            if (op->is_p2p) launch = fa_entry_p2p_seq(d, fa_call_entry(k->m, k->in, c, 0));
            if (launch <= 0) continue;
            if (count == cap) {
                cap = cap ? 2 * cap : 256;
                launch_rec *grown = realloc(v, cap * sizeof *v);
                if (!grown) {
                    free(v);
                    *oom = true;
                    *n = 0;
                    return NULL;
                }
                v = grown;
            }
            v[count++] = (launch_rec){ .view = k->m->view_at[op->group] + c->member,
                                       .launch = launch,
                                       .op = (uint32_t)o,
                                       .call = op->first_call + i,
                                       .p2p = op->is_p2p };
        }
    }
    if (count) qsort(v, count, sizeof *v, compare_launches);
    *n = count;
    return v;
}

/* Whether a view's records [lo, hi) carry every launch number from 1 to their newest. */
static bool numbers_whole(const launch_rec *r, size_t lo, size_t hi) {
    int64_t want = 1;
    for (size_t i = lo; i < hi; i++) {
        if (r[i].launch == want - 1) continue; /* more calls of the same launch */
        if (r[i].launch != want) return false;
        want++;
    }
    return hi > lo;
}

/* The number of the last launch that the member at view `vi` completed in its group by its
 * dump's pg_status (the recorder numbers it as a launch), -1 unknown. */
static int64_t status_completed(const checker *k, size_t vi, const launch_rec *r) {
    return fa_view_status_completed(k->in->ranks[k->m->calls[r->call].rank_index].dump,
                                    &k->m->views[vi]);
}

/* Where the member's completed prefix in the group ends, as its records [lo, hi) show it: the
 * newest launch number whose records all completed (where none did, the window's start follows
 * the last launch pg_status says completed), every later launch number up to the newest record
 * shown (none lost between them) and none of those later records completed. -1 when not so
 * (nothing says, a gap, a completed record after a pending one, pg_status past the records). */
static int64_t completed_anchor(const checker *k, const launch_rec *r, size_t lo, size_t hi) {
    if (lo >= hi) return -1;
    int64_t anchor = -1, status = status_completed(k, r[lo].view, &r[lo]);
    size_t from = lo;
    for (size_t i = lo; i < hi; i++)
        if (k->m->calls[r[i].call].state == FR_STATE_COMPLETED) anchor = r[i].launch, from = i;
    if (anchor < 0 && (status < 0 || r[lo].launch != status + 1)) return -1;
    if (anchor < 0) anchor = status;
    if (status >= 0 && status != anchor) return -1;
    int64_t want = r[from].launch;
    for (size_t i = from; i < hi; i++) {
        if (r[i].launch == want) continue; /* more calls of the same launch */
        if (r[i].launch != want + 1 || k->m->calls[r[i].call].state == FR_STATE_COMPLETED)
            return -1;
        want++;
    }
    for (size_t i = lo; i < hi; i++)
        if (r[i].launch == anchor && k->m->calls[r[i].call].state != FR_STATE_COMPLETED) return -1;
    return anchor;
}

typedef struct ordinal {
    int64_t launch;
    uint32_t call; /* UINT32_MAX: several ops took the launch (a bundle split by type): unknown */
    uint32_t op;
} ordinal;

/* A member's collectives in order: its distinct collective launches, skipping send/recv. A call
 * holding a wrapped ring's first entry may have lost its bundle's head (head_cut): unknown. */
static uint32_t member_ordinals(const checker *k, const launch_rec *r, size_t lo, size_t hi,
                                ordinal *out) {
    uint32_t n = 0;
    for (size_t i = lo; i < hi; i++) {
        if (r[i].p2p) continue;
        if (n && out[n - 1].launch == r[i].launch) {
            out[n - 1].call = UINT32_MAX;
            continue;
        }
        const fa_call *c = &k->m->calls[r[i].call];
        const fa_dump *d = k->in->ranks[c->rank_index].dump;
        bool cut =
            fa_call_entry_index(k->m, c, 0) == 0 && fa_entry_record_id(d, &d->entries[0]) > 0;
        out[n++] = (ordinal){ r[i].launch, cut ? UINT32_MAX : r[i].call, r[i].op };
    }
    return n;
}

/* The finding for the members' k-th collectives (their calls and ops, k->odd marking the
 * minority): the op named is the one of `other`'s call (the majority's, when there is one). */
static void report_ordinal(checker *k, uint32_t group, const uint32_t *calls, const uint32_t *ops,
                           uint32_t n, uint32_t odd, uint32_t other, int what, fa_finding_kind kind,
                           uint32_t ordinal_no) {
    const fa_group *g = &k->groups->v[group];
    fa_finding *f = fa_findings_add(k->findings, kind, (long)group, (long)ops[other]);
    f->listed = k->listed_per_group[group]++ < (size_t)k->cap;
    for (uint32_t i = 0; i < n; i++) {
        fa_call *c = &k->m->calls[calls[i]];
        fa_ranks_add(k->odd[i] ? &f->ranks : &f->others, g->members[c->member]);
        if (k->odd[i]) c->in_minority = true;
        k->m->ops[ops[i]].mismatch = true;
    }
    fa_ranks_normalize(&f->ranks);
    fa_ranks_normalize(&f->others);
    const fa_call *x = &k->m->calls[calls[odd]], *y = &k->m->calls[calls[other]];
    char a[300], b[300];
    if (what == SIG_TYPE) {
        fa_mc_call_types(k, x, a, sizeof a);
        fa_mc_call_types(k, y, b, sizeof b);
        f->odd_what = strdup(a);
        f->usual_what = strdup(b);
    } else {
        fr_entry ex, ey;
        fa_call_expand(k->m, k->in, x, 0, &ex);
        fa_call_expand(k->m, k->in, y, 0, &ey);
        if (what == SIG_SIZE) {
            fa_shapes_text(&ex.input_sizes, a, sizeof a);
            fa_shapes_text(&ey.input_sizes, b, sizeof b);
        } else {
            fa_mc_dtypes_pair(&ex, a, sizeof a);
            fa_mc_dtypes_pair(&ey, b, sizeof b);
            f->odd_what = strdup(a);
            f->usual_what = strdup(b);
        }
    }
    /* without a majority (two members, a tie) every call is odd: name the two compared */
    fa_ranks x_rank = { 0 }, y_rank = { 0 };
    fa_ranks_add(&x_rank, g->members[x->member]);
    fa_ranks_add(&y_rank, g->members[y->member]);
    const fa_ranks *us = f->others.n ? &f->ranks : &x_rank,
                   *them = f->others.n ? &f->others : &y_rank;
    char *odd_ranks = fa_ranks_format(us->v, us->n),
         *other_ranks = fa_ranks_format(them->v, them->n);
    fa_finding_set_detail(f,
                          "collective #%u of the group (collectives pair by their order): "
                          "rank%s %s issued %s (launch #%lld)%s rank%s %s issued %s "
                          "(launch #%lld)",
                          ordinal_no, us->n > 1 ? "s" : "", odd_ranks, a,
                          (long long)k->m->ops[ops[odd]].seq, f->others.n ? " where" : ", and",
                          them->n > 1 ? "s" : "", other_ranks, b,
                          (long long)k->m->ops[ops[other]].seq);
    fa_ranks_free(&x_rank);
    fa_ranks_free(&y_rank);
    free(odd_ranks);
    free(other_ranks);
}

/* The members' k-th collectives (their calls and ops), compared as check_op compares an op's
 * calls: type first (when it differs, sizes do not compare), then sizes and dtypes. */
static void compare_ordinal(checker *k, uint32_t group, const uint32_t *calls, const uint32_t *ops,
                            uint32_t n, uint32_t ordinal_no) {
    static const int dims[] = { SIG_TYPE, SIG_SIZE, SIG_DTYPE };
    static const fa_finding_kind kinds[] = { FA_TYPE_MISMATCH, FA_SIZE_MISMATCH,
                                             FA_DTYPE_MISMATCH };
    for (int dim = 0; dim < 3; dim++) {
        for (uint32_t i = 0; i < n; i++)
            k->sig[i] = fa_mc_call_signature(k, &k->m->calls[calls[i]], dims[dim]);
        bool disagree = false;
        for (uint32_t i = 0; i < n; i++) disagree |= k->sig[i] != k->sig[0];
        if (!disagree) continue;
        long rep = fa_mc_mark_minority(k, n);
        uint32_t odd = 0;
        while (odd < n && !k->odd[odd]) odd++;
        uint32_t other = rep >= 0 ? (uint32_t)rep : (odd == 0 ? 1 : 0);
        report_ordinal(k, group, calls, ops, n, odd, other, dims[dim], kinds[dim], ordinal_no);
        if (dims[dim] == SIG_TYPE) return;
    }
}

/* Scratch for one group: per member where its ordinals start and how many (0: its numbers are
 * not whole), and per ordinal the calls compared. */
typedef struct order_scratch {
    ordinal *ord;
    size_t *start;
    uint32_t *count, *calls, *ops;
    uint64_t *sig;
    bool *odd;
} order_scratch;

/* Per member, its collectives in order (s->start, s->count) from launch 1 where its numbers are
 * whole (numbers_whole); the most any member has. */
static uint32_t whole_ordinals(const checker *k, uint32_t group, const launch_rec *r, size_t lo,
                               size_t hi, order_scratch *s) {
    const fa_group *g = &k->groups->v[group];
    size_t base = k->m->view_at[group], at = lo, used = 0;
    uint32_t most = 0;
    for (uint32_t p = 0; p < g->nmembers; p++) {
        size_t from = at;
        while (at < hi && r[at].view == base + p) at++;
        s->start[p] = used;
        s->count[p] =
            numbers_whole(r, from, at) ? member_ordinals(k, r, from, at, s->ord + used) : 0;
        used += s->count[p];
        if (s->count[p] > most) most = s->count[p];
    }
    return most;
}

/* Per member, its pending collectives in order, counted after its completed prefix
 * (completed_anchor), where two or more members show one and all of those end their prefix at
 * one launch number; the most any member has (0: not so). A collective completes on every
 * member at once, so the members completed the same collectives, as many each: their first
 * pending ones are their (m+1)-th, whatever their windows lost before (a ring that wrapped).
 * The one launch number guards against a stalled GPU, whose pending collective its peers
 * completed: its prefix ends earlier than theirs (tests/sim seeds 8824, 8371: a rank that
 * issued its all_reduce on the wrong communicator, its pair's next launch a send/recv batch
 * there; its pair partner's all_reduce meets its broadcast). */
static uint32_t anchored_ordinals(const checker *k, uint32_t group, const launch_rec *r, size_t lo,
                                  size_t hi, order_scratch *s) {
    const fa_group *g = &k->groups->v[group];
    size_t base = k->m->view_at[group], at = lo, used = 0;
    uint32_t most = 0, members = 0;
    int64_t common = -1;
    for (uint32_t p = 0; p < g->nmembers; p++) {
        size_t from = at;
        while (at < hi && r[at].view == base + p) at++;
        int64_t anchor = completed_anchor(k, r, from, at);
        s->start[p] = used;
        s->count[p] = 0;
        if (anchor < 0) continue;
        if (common >= 0 && anchor != common) return 0;
        common = anchor;
        members++;
        size_t first = from;
        while (first < at && r[first].launch <= anchor) first++;
        s->count[p] = member_ordinals(k, r, first, at, s->ord + used);
        used += s->count[p];
        if (s->count[p] > most) most = s->count[p];
    }
    return members >= 2 ? most : 0;
}

/* Compares the group's members' collectives ordinal by ordinal (records [lo, hi) are the
 * group's, by view): from launch 1 where two members' numbers are whole, else after a completed
 * prefix they share (anchored_ordinals). */
static void compare_group_order(checker *k, uint32_t group, const launch_rec *r, size_t lo,
                                size_t hi, order_scratch *s) {
    const fa_group *g = &k->groups->v[group];
    uint32_t most = whole_ordinals(k, group, r, lo, hi, s), whole = 0;
    for (uint32_t p = 0; p < g->nmembers; p++) whole += s->count[p] > 0;
    if (whole < 2) most = anchored_ordinals(k, group, r, lo, hi, s);
    checker local = *k;
    local.sig = s->sig;
    local.odd = s->odd;
    for (uint32_t o = 0; o < most; o++) {
        uint32_t n = 0;
        bool differ = false, bundle = false;
        for (uint32_t p = 0; p < g->nmembers; p++) {
            if (s->count[p] <= o || s->ord[s->start[p] + o].call == UINT32_MAX) continue;
            const ordinal *x = &s->ord[s->start[p] + o];
            differ |= n > 0 && x->launch != k->m->ops[s->ops[0]].seq;
            bundle |= fa_call_nentries(k->m, &k->m->calls[x->call]) > 1;
            s->calls[n] = x->call;
            s->ops[n++] = x->op;
        }
        /* NCCL pairs the collectives inside a coalesced bundle one by one: a bundle is no one
         * collective to hold against a peer's k-th, and the ordinals after it are counted apart
         * from NCCL's (t0430: rank 2's all_reduce pair after the all_reduce it left out is no
         * type mismatch; it never issued that all_reduce) */
        if (bundle) break;
        if (n >= 2 && differ) compare_ordinal(&local, group, s->calls, s->ops, n, o + 1);
    }
}

/* The pass over every group where a launch number went to something else (the file's opening
 * comment). Returns -1 when out of memory. */
int fa_mc_check_launch_order(checker *k) {
    bool any = false;
    for (size_t i = 0; i < k->in->nranks && !any; i++)
        any = k->in->ranks[i].dump && k->in->ranks[i].dump->launch_numbered;
    if (!any) return 0;
    bool *flagged = calloc(k->groups->n + 1, sizeof *flagged);
    if (!flagged) return -1;
    bool some = false;
    for (size_t o = 0; o < k->m->nops; o++)
        if (!flagged[k->m->ops[o].group] && number_went_elsewhere(k, o))
            some = flagged[k->m->ops[o].group] = true;
    size_t n = 0;
    bool oom = false;
    launch_rec *r = some ? gather_launches(k, flagged, &n, &oom) : NULL;
    for (size_t lo = 0, hi; lo < n && !oom; lo = hi) {
        uint32_t group = k->m->ops[r[lo].op].group;
        size_t end = k->m->view_at[group] + k->groups->v[group].nmembers;
        for (hi = lo; hi < n && r[hi].view < end; hi++) {}
        uint32_t members = k->groups->v[group].nmembers;
        order_scratch s = { malloc((hi - lo) * sizeof *s.ord), malloc(members * sizeof *s.start),
                            malloc(members * sizeof *s.count), malloc(members * sizeof *s.calls),
                            malloc(members * sizeof *s.ops),   malloc(members * sizeof *s.sig),
                            malloc(members * sizeof *s.odd) };
        oom = !s.ord || !s.start || !s.count || !s.calls || !s.ops || !s.sig || !s.odd;
        if (!oom) compare_group_order(k, group, r, lo, hi, &s);
        free(s.ord);
        free(s.start);
        free(s.count);
        free(s.calls);
        free(s.ops);
        free(s.sig);
        free(s.odd);
    }
    free(r);
    free(flagged);
    return oom ? -1 : 0;
}
