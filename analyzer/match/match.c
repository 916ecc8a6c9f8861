/* match.c — collectives by (group, seq), send/recv by peer and order, agreement checks.
 *
 * The build runs in four steps (see match.h for the rules):
 *   1. walk each rank's entries once, in record order: attribute each to its group, grow the
 *      member's view (issued/completed counters), and cut the entries into calls — collective
 *      calls get an op through (group, seq, occurrence) and are kept compact in walk order,
 *      counted per op; send/recv go to a side list;
 *   2. place the collective calls straight into their final slots (ops in creation order, each
 *      op's calls in rank order), now that every op's size is known;
 *      (steps 1 and 2 are match_walk.c's, on every core, with the same result as one walk)
 *   3. order the send/recv list by (group, sender, receiver, side, order) and pair it into ops,
 *      whose calls follow the collective ones (sort_p2p: a counting sort over the runs);
 *   4. fold in pg_status and check each op: all cores sort each op's calls by member and screen
 *      it, one thread reports on the ones that are not clean, in op order (check_all). An op
 *      whose calls are all one entry with the same interned values (fa_walk.uniform) is screened
 *      by its first call alone.
 * Everything is linear in the number of entries. FRTRACE_TIMING=1 prints the steps' wall times
 * to stderr.
 */
#include "match/match.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/timing.h"
#include "util/index.h"
#include "match/match_walk.h"
#include "util/parallel.h"

static bool is_all_to_all(const char *t) { return (fa_op_flags(t) & FA_OP_ALL_TO_ALL) != 0; }

/* ---------------------------------------------------------------- entry comparison --- */

static bool shapes_equal(const fr_shapes *a, const fr_shapes *b) {
    if (a->count != b->count) return false;
    for (uint32_t i = 0; i < a->count; i++) {
        if (a->shapes[i].ndim != b->shapes[i].ndim) return false;
        for (uint32_t d = 0; d < a->shapes[i].ndim; d++)
            if (a->shapes[i].dims[d] != b->shapes[i].dims[d]) return false;
    }
    return true;
}

static int64_t total_numel(const fr_shapes *s) {
    int64_t total = 0;
    for (uint32_t i = 0; i < s->count; i++) {
        int64_t n = 1;
        for (uint32_t d = 0; d < s->shapes[i].ndim; d++) n *= s->shapes[i].dims[d];
        total += n;
    }
    return total;
}

static bool has_tensor(const fr_shapes *s) { return s->count > 0 && s->shapes[0].ndim > 0; }

static bool string_in(const fr_strings *set, const char *s) {
    for (uint32_t i = 0; i < set->count; i++)
        if (strcmp(set->items[i], s) == 0) return true;
    return false;
}

static bool dtype_sets_equal(const fr_strings *a, const fr_strings *b) {
    for (uint32_t i = 0; i < a->count; i++)
        if (!string_in(b, a->items[i])) return false;
    for (uint32_t i = 0; i < b->count; i++)
        if (!string_in(a, b->items[i])) return false;
    return true;
}

void fa_shapes_text(const fr_shapes *s, char *buf, size_t len) {
    size_t at = (size_t)snprintf(buf, len, "[");
    for (uint32_t i = 0; i < s->count && at < len; i++) {
        at += (size_t)snprintf(buf + at, len - at, "%s[", i ? ", " : "");
        for (uint32_t d = 0; d < s->shapes[i].ndim && at < len; d++)
            at += (size_t)snprintf(buf + at, len - at, "%s%lld", d ? ", " : "",
                                   (long long)s->shapes[i].dims[d]);
        if (at < len) at += (size_t)snprintf(buf + at, len - at, "]");
    }
    if (at < len) snprintf(buf + at, len - at, "]");
}

/* A call's own consistency, independent of other ranks: all_reduce keeps its size,
 * all_gather multiplies by the group size, reduce_scatter divides by it, in and out dtypes
 * agree. Returns the kind of problem or FA_FULLY_MATCHED. */
static fa_match_state check_intrinsic(const fr_entry *self, const fr_entry *other, uint32_t flags,
                                      int64_t group_size, char *why, size_t whylen) {
    char a[256], b[256];
    if ((flags & FA_OP_ALL_REDUCE) && !shapes_equal(&self->input_sizes, &other->output_sizes)) {
        fa_shapes_text(&self->input_sizes, a, sizeof a);
        fa_shapes_text(&other->output_sizes, b, sizeof b);
        if (why) snprintf(why, whylen, "input sizes %s but output sizes %s", a, b);
        return FA_SIZE_OR_SYNTAX_MISMATCH;
    }
    if ((flags & FA_OP_ALL_GATHER) &&
        total_numel(&other->output_sizes) != total_numel(&self->input_sizes) * group_size) {
        if (why)
            snprintf(why, whylen, "output numel %lld is not input numel %lld x group size %lld",
                     (long long)total_numel(&other->output_sizes),
                     (long long)total_numel(&self->input_sizes), (long long)group_size);
        return FA_SIZE_OR_SYNTAX_MISMATCH;
    }
    if ((flags & FA_OP_REDUCE_SCATTER) &&
        total_numel(&other->input_sizes) != total_numel(&self->output_sizes) * group_size) {
        if (why)
            snprintf(why, whylen, "input numel %lld is not output numel %lld x group size %lld",
                     (long long)total_numel(&other->input_sizes),
                     (long long)total_numel(&self->output_sizes), (long long)group_size);
        return FA_SIZE_OR_SYNTAX_MISMATCH;
    }
    return FA_FULLY_MATCHED;
}

static bool own_dtypes_disagree(const fr_entry *e, uint32_t flags) {
    return !(flags & (FA_OP_SCATTER | FA_OP_GATHER | FA_OP_BROADCAST)) &&
           has_tensor(&e->input_sizes) && has_tensor(&e->output_sizes) && e->input_dtypes.count &&
           e->output_dtypes.count && !dtype_sets_equal(&e->input_dtypes, &e->output_dtypes);
}

static bool compares_inputs(const char *type) {
    return !is_all_to_all(type) && strcmp(type, "scatter") != 0;
}
static bool compares_outputs(const char *type) {
    return !is_all_to_all(type) && strcmp(type, "gather") != 0;
}

static fa_match_state match_p2p(const fa_opname *a, const fr_entry *ea, const fa_opname *b,
                                const fr_entry *eb) {
    if (a->is_send == b->is_send || !(b->is_send || b->is_recv)) return FA_SIZE_OR_SYNTAX_MISMATCH;
    bool src_ok = a->src < 0 || b->src < 0 || a->src == b->src;
    bool dst_ok = a->dst < 0 || b->dst < 0 || a->dst == b->dst;
    const fr_entry *send = a->is_send ? ea : eb, *recv = a->is_send ? eb : ea;
    const fr_shapes *got = recv->output_sizes.count ? &recv->output_sizes : &recv->input_sizes;
    if (!src_ok || !dst_ok || !shapes_equal(&send->input_sizes, got))
        return FA_SIZE_OR_SYNTAX_MISMATCH;
    return FA_FULLY_MATCHED;
}

fa_match_state fa_match_entries(const fr_entry *a, const fr_entry *b, int64_t group_size, char *why,
                                size_t whylen) {
    fa_opname na, nb;
    char x[256], y[256];
    if (why && whylen) why[0] = '\0';
    if (fa_parse_profiling_name(a->profiling_name, &na) != 0 ||
        fa_parse_profiling_name(b->profiling_name, &nb) != 0) {
        if (why) snprintf(why, whylen, "profiling name without a backend prefix");
        return FA_SIZE_OR_SYNTAX_MISMATCH;
    }
    if (na.is_send || na.is_recv) return match_p2p(&na, a, &nb, b);
    if (strcmp(na.type, nb.type) != 0) {
        if (why)
            snprintf(why, whylen, "expected collective type '%s', found '%s'", na.type, nb.type);
        return FA_COLLECTIVE_TYPE_MISMATCH;
    }
    if (fa_is_end_marker(na.type)) return FA_FULLY_MATCHED;
    if (compares_inputs(na.type) && !shapes_equal(&a->input_sizes, &b->input_sizes)) {
        fa_shapes_text(&a->input_sizes, x, sizeof x);
        fa_shapes_text(&b->input_sizes, y, sizeof y);
        if (why) snprintf(why, whylen, "expected input sizes %s, found %s", x, y);
        return FA_SIZE_OR_SYNTAX_MISMATCH;
    }
    if (compares_outputs(na.type) && !shapes_equal(&a->output_sizes, &b->output_sizes)) {
        fa_shapes_text(&a->output_sizes, x, sizeof x);
        fa_shapes_text(&b->output_sizes, y, sizeof y);
        if (why) snprintf(why, whylen, "expected output sizes %s, found %s", x, y);
        return FA_SIZE_OR_SYNTAX_MISMATCH;
    }
    uint32_t flags = fa_op_flags(na.type);
    fa_match_state s = check_intrinsic(a, b, flags, group_size, why, whylen);
    if (s != FA_FULLY_MATCHED) return s;
    bool dtype_bad =
        own_dtypes_disagree(a, flags) ||
        (!(flags & (FA_OP_SCATTER | FA_OP_BROADCAST)) && has_tensor(&a->input_sizes) &&
         has_tensor(&b->input_sizes) && !dtype_sets_equal(&a->input_dtypes, &b->input_dtypes)) ||
        (strcmp(na.type, "gather") != 0 && has_tensor(&a->output_sizes) &&
         has_tensor(&b->output_sizes) && !dtype_sets_equal(&a->output_dtypes, &b->output_dtypes));
    if (dtype_bad) {
        if (why) snprintf(why, whylen, "dtypes differ");
        return FA_COLLECTIVE_DTYPE_MISMATCH;
    }
    if (a->state != b->state) {
        if (why)
            snprintf(why, whylen, "expected state '%s', found '%s'", fr_state_name(a->state),
                     fr_state_name(b->state));
        return FA_COLLECTIVE_STATE_MISMATCH;
    }
    if (is_all_to_all(na.type)) return FA_UNDECIDED;
    return FA_FULLY_MATCHED;
}

const char *fa_match_state_name(fa_match_state state) {
    switch (state) {
    case FA_FULLY_MATCHED: return "FULLY_MATCHED";
    case FA_COLLECTIVE_TYPE_MISMATCH: return "COLLECTIVE_TYPE_MISMATCH";
    case FA_SIZE_OR_SYNTAX_MISMATCH: return "SIZE_OR_SYNTAX_MISMATCH";
    case FA_COLLECTIVE_STATE_MISMATCH: return "COLLECTIVE_STATE_MISMATCH";
    case FA_COLLECTIVE_DTYPE_MISMATCH: return "COLLECTIVE_DTYPE_MISMATCH";
    case FA_UNDECIDED: return "UNDECIDED";
    }
    return "?";
}

const char *fa_member_state_name(fa_member_state s) {
    switch (s) {
    case FA_MS_COMPLETED: return "completed";
    case FA_MS_STARTED: return "started";
    case FA_MS_SCHEDULED: return "scheduled";
    case FA_MS_IN_FLIGHT: return "in flight (no entry)";
    case FA_MS_NEVER: return "never issued";
    case FA_MS_NO_DUMP: return "no dump";
    case FA_MS_STALE: return "unknown (older dump)";
    }
    return "?";
}

/* ---------------------------------------------------------------- building --------- */

typedef fa_p2p_rec p2p_rec;

/* What pairing the send/recv records needs: the walk's records and room to append ops, calls
 * and entry refs. */
typedef struct builder {
    const fa_input *in;
    const fa_groups *groups;
    fa_match *m;
    size_t calls_cap, ops_cap;
    p2p_rec *p2p;
    size_t np2p;
    int64_t *p2p_issued; /* per view: the highest p2p_seq_id among the member's send/recv */
} builder;

static long new_op(builder *b, uint32_t group, bool is_p2p, int64_t seq) {
    fa_match *m = b->m;
    if (fa_grow((void **)&m->ops, &b->ops_cap, m->nops + 1, sizeof *m->ops)) return -1;
    fa_op *op = &m->ops[m->nops];
    memset(op, 0, sizeof *op);
    op->group = group & FA_MAX_GROUPS;
    op->is_p2p = is_p2p;
    op->seq = seq;
    op->src = op->dst = -1;
    op->rep_call = FA_NO_CALL_ID;
    return (long)m->nops++;
}

static long new_call(builder *b, uint32_t member, uint32_t rank_index, fr_state state,
                     uint32_t entry) {
    fa_match *m = b->m;
    if (fa_grow((void **)&m->calls, &b->calls_cap, m->ncalls + 1, sizeof *m->calls)) return -1;
    m->calls[m->ncalls] = (fa_call){ .member = member & FA_MAX_MEMBERS,
                                     .state = state,
                                     .in_minority = 0,
                                     .rank_index = rank_index,
                                     .at = entry };
    return (long)m->ncalls++;
}

static fa_view *view_of(const fa_match *m, uint32_t group, uint32_t member) {
    return &m->views[m->view_at[group] + member];
}

/* ---- ordering the send/recv records ----
 * Pairing wants the records by (group, sender, receiver, sends first) and, within that, by
 * entry. Within one such run every record comes from one rank (the sender's position is its own
 * on the send side, the receiver's on the recv side), and the walk appended each rank's records
 * in entry order; so a stable sort on the run alone gives that order. The distinct runs (a few per
 * pipeline pair) are found through a small hash, sorted, and the records' indices scattered by
 * counts: linear in the records, instead of a comparison sort over all of them. (Indices, not the
 * records: thousands of runs fill at once, and 4-byte writes keep their open lines in cache.) */

typedef struct p2p_run {
    uint32_t group, src_pos, dst_pos, is_send;
    size_t count, at; /* records in the run; where the run starts in the sorted order */
} p2p_run;

typedef struct run_index {
    p2p_run *runs;
    size_t n, cap;
    uint32_t *slots; /* run + 1, 0 empty */
    size_t nslots;
} run_index;

static bool same_run(const p2p_run *r, const p2p_rec *x) {
    return r->group == x->group && r->src_pos == x->src_pos && r->dst_pos == x->dst_pos &&
           r->is_send == x->is_send;
}

static size_t run_slot(const run_index *ix, uint32_t group, uint32_t src, uint32_t dst,
                       uint32_t is_send) {
    return fa_key2(fa_key2(group, src), ((uint64_t)dst << 1) | is_send) & (ix->nslots - 1);
}

static int run_rehash(run_index *ix) {
    size_t n = ix->nslots ? ix->nslots * 2 : 1024;
    uint32_t *slots = calloc(n, sizeof *slots);
    if (!slots) return -1;
    free(ix->slots);
    ix->slots = slots;
    ix->nslots = n;
    for (size_t r = 0; r < ix->n; r++) {
        const p2p_run *x = &ix->runs[r];
        size_t i = run_slot(ix, x->group, x->src_pos, x->dst_pos, x->is_send);
        while (ix->slots[i]) i = (i + 1) & (ix->nslots - 1);
        ix->slots[i] = (uint32_t)r + 1;
    }
    return 0;
}

/* The run of record x, made when new; -1 when out of memory. */
static long run_of(run_index *ix, const p2p_rec *x) {
    if ((ix->n + 1) * 2 > ix->nslots && run_rehash(ix)) return -1;
    size_t i = run_slot(ix, x->group, x->src_pos, x->dst_pos, x->is_send);
    for (; ix->slots[i]; i = (i + 1) & (ix->nslots - 1))
        if (same_run(&ix->runs[ix->slots[i] - 1], x)) return (long)ix->slots[i] - 1;
    if (fa_grow((void **)&ix->runs, &ix->cap, ix->n + 1, sizeof *ix->runs)) return -1;
    ix->runs[ix->n] = (p2p_run){ x->group, x->src_pos, x->dst_pos, x->is_send, 0, 0 };
    ix->slots[i] = (uint32_t)ix->n + 1;
    return (long)ix->n++;
}

static int compare_runs(const void *x, const void *y) {
    const p2p_run *a = *(p2p_run *const *)x, *b = *(p2p_run *const *)y;
    if (a->group != b->group) return a->group < b->group ? -1 : 1;
    if (a->src_pos != b->src_pos) return a->src_pos < b->src_pos ? -1 : 1;
    if (a->dst_pos != b->dst_pos) return a->dst_pos < b->dst_pos ? -1 : 1;
    return (a->is_send < b->is_send) - (a->is_send > b->is_send); /* sends first */
}

/* The indices of b->p2p in the order described above, or NULL when out of memory. */
static uint32_t *sort_p2p(const builder *b) {
    run_index ix = { 0 };
    uint32_t *run = malloc((b->np2p + 1) * sizeof *run);
    uint32_t *sorted = malloc((b->np2p + 1) * sizeof *sorted);
    p2p_run **order = NULL;
    int rc = run && sorted ? 0 : -1;
    for (size_t i = 0; rc == 0 && i < b->np2p; i++) {
        long r = run_of(&ix, &b->p2p[i]);
        if (r < 0)
            rc = -1;
        else {
            run[i] = (uint32_t)r;
            ix.runs[r].count++;
        }
    }
    if (rc == 0 && !(order = malloc((ix.n + 1) * sizeof *order))) rc = -1;
    if (rc == 0) {
        for (size_t r = 0; r < ix.n; r++) order[r] = &ix.runs[r];
        qsort(order, ix.n, sizeof *order, compare_runs);
        size_t at = 0;
        for (size_t r = 0; r < ix.n; r++) {
            order[r]->at = at;
            at += order[r]->count;
        }
        for (size_t i = 0; i < b->np2p; i++) sorted[ix.runs[run[i]].at++] = (uint32_t)i;
    }
    free(order);
    free(run);
    free(ix.runs);
    free(ix.slots);
    if (rc) {
        free(sorted);
        return NULL;
    }
    return sorted;
}

static int p2p_call(builder *b, long op, const p2p_rec *r) {
    long call = new_call(b, fa_p2p_member(r), r->rank_index, r->state, r->entry);
    if (call < 0) return -1;
    b->m->ops[op].ncalls++;
    return 0;
}

static int p2p_op(builder *b, const p2p_rec *send, const p2p_rec *recv) {
    const p2p_rec *any = send ? send : recv;
    const fa_group *g = &b->groups->v[any->group];
    long op = new_op(b, any->group, true, fa_p2p_seq(b->in, any));
    if (op < 0) return -1;
    fa_op *o = &b->m->ops[op];
    o->first_call =
        (uint32_t)b->m->ncalls; /* its calls follow at once, after every collective call */
    o->src = fa_op_rank32(any->src_pos < g->nmembers ? g->members[any->src_pos] : -1);
    o->dst = fa_op_rank32(any->dst_pos < g->nmembers ? g->members[any->dst_pos] : -1);
    o->unmatched = !(send && recv) && o->src >= 0 && o->dst >= 0;
    if (send && p2p_call(b, op, send)) return -1;
    if (recv && p2p_call(b, op, recv)) return -1;
    return 0;
}

/* Whether the p2p_seq_ids of a run's two sides count the same operations, so that equal ids are
 * one transfer: in a PyTorch group of two, each member's counter counts every send/recv between
 * them (a batch once), so ids pair even where one side's window ends earlier (an older dump) or
 * starts later (a ring). Not the recorder's launch numbers: a rank that left a collective out
 * numbers every later launch differently, while NCCL pairs a peer's sends and recvs in order. */
static bool seq_ids_align(const builder *b, const p2p_rec *any) {
    const fa_group *g = &b->groups->v[any->group];
    if (g->nmembers != 2) return false;
    long src = any->src_pos < g->nmembers ? g->member_input[any->src_pos] : -1,
         dst = any->dst_pos < g->nmembers ? g->member_input[any->dst_pos] : -1;
    return src >= 0 && dst >= 0 && !b->in->ranks[src].dump->launch_numbered &&
           !b->in->ranks[dst].dump->launch_numbered;
}

/* x completed without its other side, whose dump shows no send/recv in the group as far as x:
 * that dump is older than x's (a send and its recv complete together), unless the other side's
 * window had not reached it. */
static void note_older(builder *b, const p2p_rec *x) {
    const fa_group *g = &b->groups->v[x->group];
    uint32_t other = x->is_send ? x->dst_pos : x->src_pos;
    long ri = other < g->nmembers ? g->member_input[other] : -1;
    int64_t issued = ri >= 0 ? b->p2p_issued[b->m->view_at[x->group] + other] : INT64_MAX;
    fa_stale *st = ri >= 0 ? &b->m->rank_stale[ri] : NULL;
    int64_t seq = fa_p2p_seq(b->in, x);
    if (st && issued < seq && st->group < 0)
        *st = (fa_stale){ (long)x->group, seq, issued, st->cut };
}

/* Whether input rank ri's dump holds every entry it recorded: record ids 0, 1, 2, ... without a
 * gap (no ring that wrapped, no only-active dump that left the completed ones out). */
static bool whole_history(const builder *b, uint32_t ri) {
    const fa_dump *d = b->in->ranks[ri].dump;
    return d->nentries && fa_entry_record_id(d, &d->entries[0]) == 0 &&
           fa_entry_record_id(d, &d->entries[d->nentries - 1]) == (int64_t)d->nentries - 1;
}

/* NCCL pairs a peer's sends and recvs in the order they were posted: with both histories whole,
 * the k-th send pairs with the k-th recv, whatever each side recorded of its state (in a batch
 * that never completed, an op done on the wire stays "scheduled"). */
static int pair_in_order(builder *b, const uint32_t *S, size_t ns, const uint32_t *R, size_t nr) {
    const p2p_rec *v = b->p2p;
    for (size_t i = 0; i < ns || i < nr; i++) {
        const p2p_rec *s = i < ns ? &v[S[i]] : NULL, *r = i < nr ? &v[R[i]] : NULL;
        if (s && r) {
            if (p2p_op(b, s, r)) return -1;
        } else if ((s ? s : r)->state != FR_STATE_COMPLETED && p2p_op(b, s, r)) {
            return -1;
        }
    }
    return 0;
}

/* Pairs by equal p2p_seq_id (both sides in entry order, so ids ascend); a record without its
 * other side is unmatched when pending, and the window's edge (or an older dump's) when
 * completed. */
static int pair_by_seq(builder *b, const uint32_t *S, size_t ns, const uint32_t *R, size_t nr) {
    const p2p_rec *v = b->p2p;
    size_t i = 0, j = 0;
    while (i < ns || j < nr) {
        const p2p_rec *s = i < ns ? &v[S[i]] : NULL, *r = j < nr ? &v[R[j]] : NULL;
        int64_t ss = s ? fa_p2p_seq(b->in, s) : 0, rs = r ? fa_p2p_seq(b->in, r) : 0;
        if (s && r && ss == rs) {
            if (p2p_op(b, s, r)) return -1;
            i++, j++;
        } else if (s && (!r || ss < rs)) {
            if (s->state != FR_STATE_COMPLETED ? p2p_op(b, s, NULL) : (note_older(b, s), 0))
                return -1;
            i++;
        } else {
            if (r->state != FR_STATE_COMPLETED ? p2p_op(b, NULL, r) : (note_older(b, r), 0))
                return -1;
            j++;
        }
    }
    return 0;
}

/* Pairs one (group, sender, receiver) run, the records b->p2p[run[0..n-1]] (sends first): by
 * p2p_seq_id where the two sides' ids count alike (pair_by_seq); else pending sends with pending
 * recvs in order, completed ones from the newest backwards; leftovers that completed are the
 * window's edge, not findings. */
static int pair_run(builder *b, const uint32_t *run, size_t n) {
    const p2p_rec *v = b->p2p;
    size_t ns = 0;
    while (ns < n && v[run[ns]].is_send) ns++;
    const uint32_t *S = run, *R = run + ns;
    size_t nr = n - ns, cs = 0, cr = 0;
    if (ns && nr && v[run[0]].src_pos != UINT32_MAX && v[run[0]].dst_pos != UINT32_MAX &&
        seq_ids_align(b, &v[run[0]]))
        return pair_by_seq(b, S, ns, R, nr);
    if (ns && nr && whole_history(b, v[S[0]].rank_index) && whole_history(b, v[R[0]].rank_index))
        return pair_in_order(b, S, ns, R, nr);
    while (cs < ns && v[S[cs]].state == FR_STATE_COMPLETED) cs++;
    while (cr < nr && v[R[cr]].state == FR_STATE_COMPLETED) cr++;
    if (v[run[0]].src_pos == UINT32_MAX ||
        v[run[0]].dst_pos == UINT32_MAX) { /* recv from any source */
        for (size_t i = 0; i < n; i++) {
            const p2p_rec *x = &v[run[i]];
            if (x->state != FR_STATE_COMPLETED &&
                p2p_op(b, x->is_send ? x : NULL, x->is_send ? NULL : x))
                return -1;
        }
        return 0;
    }
    for (size_t i = 0; i < cs && i < cr; i++)
        if (p2p_op(b, &v[S[cs - 1 - i]], &v[R[cr - 1 - i]])) return -1;
    size_t ps = ns - cs, pr = nr - cr;
    for (size_t i = 0; i < ps || i < pr; i++)
        if (p2p_op(b, i < ps ? &v[S[cs + i]] : NULL, i < pr ? &v[R[cr + i]] : NULL)) return -1;
    return 0;
}

static bool same_pair(const p2p_rec *a, const p2p_rec *b) {
    return a->group == b->group && a->src_pos == b->src_pos && a->dst_pos == b->dst_pos;
}

static int pair_p2p(builder *b) {
    size_t nviews = b->groups->n
                        ? b->m->view_at[b->groups->n - 1] + b->groups->v[b->groups->n - 1].nmembers
                        : 0;
    b->p2p_issued = malloc((nviews + 1) * sizeof *b->p2p_issued);
    uint32_t *order = b->p2p_issued ? sort_p2p(b) : NULL;
    if (!order) {
        free(b->p2p_issued);
        return -1;
    }
    for (size_t i = 0; i < nviews; i++) b->p2p_issued[i] = -1;
    for (size_t i = 0; i < b->np2p; i++) {
        const p2p_rec *x = &b->p2p[i];
        size_t at = b->m->view_at[x->group] + fa_p2p_member(x);
        int64_t seq = fa_p2p_seq(b->in, x);
        if (seq > b->p2p_issued[at]) b->p2p_issued[at] = seq;
    }
    int rc = 0;
    for (size_t i = 0; i < b->np2p && rc == 0;) {
        size_t j = i;
        while (j < b->np2p && same_pair(&b->p2p[order[j]], &b->p2p[order[i]])) j++;
        rc = pair_run(b, order + i, j - i);
        i = j;
    }
    free(order);
    free(b->p2p_issued);
    b->p2p_issued = NULL;
    return rc;
}

static int compare_members(const void *x, const void *y) {
    const fa_call *a = x, *b = y;
    return (a->member > b->member) - (a->member < b->member);
}

/* An op's calls by member. Ranks are walked in order and a send precedes its recv, so members
 * mostly arrive sorted: only an op whose calls are not gets sorted. (The screening workers sort
 * each op they take, just before screening it.) */
static void sort_op_calls(fa_match *m, size_t o) {
    fa_call *v = m->calls + m->ops[o].first_call;
    for (uint32_t i = 1; i < m->ops[o].ncalls; i++) {
        if (v[i - 1].member <= v[i].member) continue;
        qsort(v, m->ops[o].ncalls, sizeof *v, compare_members);
        break;
    }
}

/* pg_status counters, through the member's pg_id or, lacking entries, the one its peers use. */
static void fold_status(const fa_input *in, const fa_groups *groups, fa_match *m) {
    for (size_t gi = 0; gi < groups->n; gi++) {
        const fa_group *g = &groups->v[gi];
        int64_t consensus = -1;
        bool agree = true;
        for (uint32_t p = 0; p < g->nmembers; p++) {
            fa_view *v = view_of(m, (uint32_t)gi, p);
            if (v->pg_id < 0) continue;
            if (consensus >= 0 && consensus != v->pg_id) agree = false;
            consensus = v->pg_id;
        }
        for (uint32_t p = 0; p < g->nmembers; p++) {
            fa_view *v = view_of(m, (uint32_t)gi, p);
            v->has_dump = g->member_input[p] >= 0;
            int64_t pg_id = v->pg_id >= 0 ? v->pg_id : (agree ? consensus : -1);
            if (!v->has_dump || pg_id < 0) continue;
            const fa_dump *d = in->ranks[g->member_input[p]].dump;
            for (uint32_t s = 0; s < d->nstatus; s++) {
                if (d->status[s].pg_id != pg_id) continue;
                if (d->status[s].last_enqueued > v->issued_max)
                    v->issued_max = d->status[s].last_enqueued;
                if (d->status[s].last_completed > v->completed_max)
                    v->completed_max = d->status[s].last_completed;
            }
        }
    }
}

/* A collective whose entries still say pending while the rank's own counters (pg_status, or
 * in-order completion) say it completed: the counters win. PyTorch leaves the entries of a
 * coalesced bundle "scheduled" when their end marker completed, and an only-active dump drops
 * that marker with the completed entries. Not where the member also has send/recv in the group
 * (PyTorch's counters then mix in send/recv numbers), nor for gloo (its counters count op ids,
 * and a retired op may have failed) nor launch-numbered dumps (their numbers mix send/recv
 * batches). Returns -1 when out of memory. */
static int complete_by_counters(const fa_input *in, const fa_groups *groups, fa_match *m) {
    size_t nviews = groups->n ? m->view_at[groups->n - 1] + groups->v[groups->n - 1].nmembers : 0;
    bool *has_p2p = calloc(nviews + 1, 1);
    if (!has_p2p) return -1;
    for (size_t op = 0; op < m->nops; op++)
        for (uint32_t i = 0; m->ops[op].is_p2p && i < m->ops[op].ncalls; i++)
            has_p2p[m->view_at[m->ops[op].group] + m->calls[m->ops[op].first_call + i].member] =
                true;
    for (size_t op = 0; op < m->nops; op++) {
        const fa_op *o = &m->ops[op];
        if (o->is_p2p) continue;
        for (uint32_t i = 0; i < o->ncalls; i++) {
            fa_call *c = &m->calls[o->first_call + i];
            const fa_view *v = view_of(m, o->group, c->member);
            const fa_dump *d = in->ranks[c->rank_index].dump;
            if (c->state != FR_STATE_COMPLETED && o->seq <= v->completed_max && !d->blocks_caller &&
                !d->launch_numbered && !has_p2p[m->view_at[o->group] + c->member])
                c->state = FR_STATE_COMPLETED;
        }
    }
    free(has_p2p);
    return 0;
}

/* ---------------------------------------------------------------- agreement checks -- */

typedef struct checker {
    const fa_input *in;
    const fa_groups *groups;
    fa_match *m;
    fa_findings *findings;
    int cap;
    size_t *listed_per_group;
    uint64_t *sig; /* per call of the op being checked */
    bool *odd;     /* per call: named by this check */
    uint8_t
        *kind; /* per call: its own problem, 0 none, 1 sizes, 2 dtypes (check_intrinsic_calls) */
} checker;

enum { SIG_TYPE, SIG_SIZE, SIG_DTYPE };

static bool shapes_have_tensor(const fa_store *store, uint32_t id) {
    return has_tensor(fa_store_shapes(store, id));
}

/* What a call's members must agree on, as a hash. Shapes, dtype sets and types are interned in
 * the store, so their ids (dtype lists: their set key) stand for their contents. */
static uint64_t call_signature(const checker *k, const fa_call *c, int what) {
    const fa_store *store = k->in->store;
    uint64_t h = 0x5151;
    for (uint32_t i = 0; i < fa_call_nentries(k->m, c); i++) {
        const fa_traits *e = fa_entry_traits(store, fa_call_entry(k->m, k->in, c, i));
        const fa_opinfo *n = fa_store_op(store, e->name);
        if (what == SIG_TYPE) {
            h = fa_key2(h, (uint64_t)(uintptr_t)n->type);
        } else if (n->flags & FA_OP_END_MARKER) {
            continue;
        } else if (what == SIG_SIZE) {
            if (!(n->flags & (FA_OP_ALL_TO_ALL | FA_OP_SCATTER)))
                h = fa_key2(fa_key2(h, 1), e->in_sizes);
            if (!(n->flags & (FA_OP_ALL_TO_ALL | FA_OP_GATHER)))
                h = fa_key2(fa_key2(h, 2), e->out_sizes);
        } else {
            if (!(n->flags & (FA_OP_SCATTER | FA_OP_BROADCAST)) &&
                shapes_have_tensor(store, e->in_sizes))
                h = fa_key2(fa_key2(h, 3), fa_store_strings_set(store, e->in_dtypes));
            if (!(n->flags & FA_OP_GATHER) && shapes_have_tensor(store, e->out_sizes))
                h = fa_key2(fa_key2(h, 4), fa_store_strings_set(store, e->out_dtypes));
        }
    }
    return h;
}

/* Marks in k->odd the calls outside the majority class of k->sig. Without a strict majority
 * class (two members, or a tie) every call is on a minority side. Returns the majority class
 * representative call index, or -1 when all calls agree. */
static long mark_minority(checker *k, uint32_t ncalls) {
    uint32_t same = 1;
    while (same < ncalls && k->sig[same] == k->sig[0]) same++;
    if (same >= ncalls) return -1; /* the common case: everyone agrees, no counting needed */
    fa_imap counts = { 0 };
    uint64_t best = 0, best_n = 0, second_n = 0;
    for (uint32_t i = 0; i < ncalls; i++) {
        uint64_t n = 0;
        fa_imap_get(&counts, k->sig[i], &n);
        fa_imap_put(&counts, k->sig[i], ++n);
    }
    for (uint32_t i = 0; i < ncalls; i++) {
        uint64_t n = 0;
        fa_imap_get(&counts, k->sig[i], &n);
        if (n > best_n) {
            if (k->sig[i] != best) second_n = best_n;
            best_n = n;
            best = k->sig[i];
        } else if (k->sig[i] != best && n > second_n) {
            second_n = n;
        }
    }
    fa_imap_free(&counts);
    if (best_n == ncalls) return -1;
    bool majority = best_n > second_n && best_n >= 2 && ncalls > 2;
    long rep = -1;
    for (uint32_t i = 0; i < ncalls; i++) {
        bool in_best = k->sig[i] == best;
        k->odd[i] = !majority || !in_best;
        if (in_best && rep < 0) rep = i;
    }
    return majority ? rep : -1;
}

static void collect_ranks(const checker *k, const fa_op *op, bool odd, fa_ranks *out) {
    const fa_group *g = &k->groups->v[op->group];
    for (uint32_t i = 0; i < op->ncalls; i++)
        if (k->odd[i] == odd) fa_ranks_add(out, g->members[k->m->calls[op->first_call + i].member]);
    fa_ranks_normalize(out);
}

static fa_finding *add_mismatch(checker *k, size_t op_index, fa_finding_kind kind) {
    fa_op *op = &k->m->ops[op_index];
    fa_finding *f = fa_findings_add(k->findings, kind, (long)op->group, (long)op_index);
    if (!f) return NULL;
    op->mismatch = true;
    f->listed = k->listed_per_group[op->group]++ < (size_t)k->cap;
    collect_ranks(k, op, true, &f->ranks);
    collect_ranks(k, op, false, &f->others);
    for (uint32_t i = 0; i < op->ncalls; i++)
        if (k->odd[i]) k->m->calls[op->first_call + i].in_minority = true;
    return f;
}

static const char *call_types(const checker *k, const fa_call *c, char *buf, size_t len) {
    size_t at = 0;
    buf[0] = '\0';
    for (uint32_t i = 0; i < fa_call_nentries(k->m, c) && at + 2 < len; i++)
        at += (size_t)snprintf(
            buf + at, len - at, "%s%s", i ? "+" : "",
            fa_store_op(k->in->store,
                        fa_entry_traits(k->in->store, fa_call_entry(k->m, k->in, c, i))->name)
                ->type);
    return buf;
}

/* "Float" when input and output agree (as they do but for casts), else "Float -> BFloat16". */
static void dtypes_pair(const fr_entry *e, char *buf, size_t len) {
    const char *in = e->input_dtypes.count ? e->input_dtypes.items[0] : "-",
               *out = e->output_dtypes.count ? e->output_dtypes.items[0] : "-";
    if (strcmp(in, out) == 0)
        snprintf(buf, len, "%s", in);
    else
        snprintf(buf, len, "%s -> %s", in, out);
}

static void describe_pair(const checker *k, const fa_op *op, long odd_call, long rep_call,
                          fa_finding *f, int what) {
    char a[300], b[300], ra[200], rb[200];
    const fa_call *x = &k->m->calls[op->first_call + odd_call];
    const fa_call *y = rep_call >= 0 ? &k->m->calls[op->first_call + rep_call] : NULL;
    char *odd_ranks = fa_ranks_format(f->ranks.v, f->ranks.n),
         *other_ranks = fa_ranks_format(f->others.v, f->others.n);
    fr_entry ex_full, ey_full;
    fa_call_expand(k->m, k->in, x, 0, &ex_full);
    if (y) fa_call_expand(k->m, k->in, y, 0, &ey_full);
    const fr_entry *ex = &ex_full, *ey = y ? &ey_full : NULL;
    if (what == SIG_TYPE) {
        call_types(k, x, a, sizeof a);
        if (y) call_types(k, y, b, sizeof b);
        if (y) {
            fa_finding_set_detail(f, "rank%s %s issued %s where rank%s %s issued %s",
                                  f->ranks.n > 1 ? "s" : "", odd_ranks, a,
                                  f->others.n > 1 ? "s" : "", other_ranks, b);
            f->odd_what = strdup(a);
            f->usual_what = strdup(b);
        } else
            fa_finding_set_detail(
                f, "ranks %s disagree on the collective's type (rank %lld issued %s)", odd_ranks,
                (long long)k->groups->v[op->group].members[x->member], a);
    } else if (what == SIG_SIZE) {
        fa_shapes_text(&ex->input_sizes, a, sizeof a);
        fa_shapes_text(&ex->output_sizes, ra, sizeof ra);
        if (ey) {
            fa_shapes_text(&ey->input_sizes, b, sizeof b);
            fa_shapes_text(&ey->output_sizes, rb, sizeof rb);
            fa_finding_set_detail(f, "rank%s %s: sizes %s -> %s; rank%s %s: %s -> %s",
                                  f->ranks.n > 1 ? "s" : "", odd_ranks, a, ra,
                                  f->others.n > 1 ? "s" : "", other_ranks, b, rb);
        } else {
            fa_finding_set_detail(f, "ranks %s disagree on sizes (rank %lld: %s -> %s)", odd_ranks,
                                  (long long)k->groups->v[op->group].members[x->member], a, ra);
        }
    } else {
        dtypes_pair(ex, a, sizeof a);
        if (ey) dtypes_pair(ey, b, sizeof b);
        fa_finding_set_detail(f, "rank%s %s use%s dtypes %s%s%s%s%s%s", f->ranks.n > 1 ? "s" : "",
                              odd_ranks, f->ranks.n > 1 ? "" : "s", a, ey ? "; rank" : "",
                              ey && f->others.n > 1 ? "s "
                              : ey                  ? " "
                                                    : "",
                              ey ? other_ranks : "",
                              ey ? (f->others.n > 1 ? " use " : " uses ") : "", ey ? b : "");
        if (ey) {
            f->odd_what = strdup(a);
            f->usual_what = strdup(b);
        }
    }
    free(odd_ranks);
    free(other_ranks);
}

/* Whether an entry may be inconsistent in itself, from interned ids alone (equal ids are equal
 * contents, dtype lists compare as sets through their set keys): the common, consistent case
 * costs no string or shape comparison. */
static bool may_be_inconsistent(const fa_store *store, const fa_traits *e, uint32_t flags,
                                int64_t group_size) {
    if ((flags & FA_OP_ALL_REDUCE) && e->in_sizes != e->out_sizes) return true;
    if ((flags & FA_OP_ALL_GATHER) &&
        fa_store_numel(store, e->out_sizes) != fa_store_numel(store, e->in_sizes) * group_size)
        return true;
    if ((flags & FA_OP_REDUCE_SCATTER) &&
        fa_store_numel(store, e->in_sizes) != fa_store_numel(store, e->out_sizes) * group_size)
        return true;
    return !(flags & (FA_OP_SCATTER | FA_OP_GATHER | FA_OP_BROADCAST)) &&
           fa_store_strings_set(store, e->in_dtypes) != fa_store_strings_set(store, e->out_dtypes);
}

/* One call's own consistency (all_reduce in==out, all_gather/reduce_scatter numel, in/out dtype).
 */
static fa_finding_kind intrinsic_problem(const checker *k, const fa_call *c, int64_t group_size,
                                         char *why, size_t len) {
    for (uint32_t i = 0; i < fa_call_nentries(k->m, c); i++) {
        const fa_traits *x = fa_entry_traits(k->in->store, fa_call_entry(k->m, k->in, c, i));
        const fa_opinfo *n = fa_store_op(k->in->store, x->name);
        if (!n->parsed || !may_be_inconsistent(k->in->store, x, n->flags, group_size)) continue;
        fr_entry full, *e = &full;
        fa_call_expand(k->m, k->in, c, i, &full);
        if (check_intrinsic(e, e, n->flags, group_size, why, len) != FA_FULLY_MATCHED)
            return FA_SIZE_MISMATCH;
        if (own_dtypes_disagree(e, n->flags)) {
            snprintf(why, len, "input dtype %s but output dtype %s", e->input_dtypes.items[0],
                     e->output_dtypes.items[0]);
            return FA_DTYPE_MISMATCH;
        }
    }
    return FA_MISSING_RANKS; /* = no problem */
}

/* Each call's own problem is found once (it does not depend on the pass); the size problems
 * are reported first, then the dtype ones, each with the first offending call's reason. */
static void check_intrinsic_calls(checker *k, size_t op_index) {
    fa_op *op = &k->m->ops[op_index];
    const fa_group *g = &k->groups->v[op->group];
    char why[300] = "", first_why[2][300] = { "", "" };
    size_t bad[2] = { 0, 0 };
    for (uint32_t i = 0; i < op->ncalls; i++) {
        fa_finding_kind kind =
            intrinsic_problem(k, &k->m->calls[op->first_call + i], g->nmembers, why, sizeof why);
        k->kind[i] = (uint8_t)(kind == FA_SIZE_MISMATCH ? 1 : kind == FA_DTYPE_MISMATCH ? 2 : 0);
        if (k->kind[i] && bad[k->kind[i] - 1]++ == 0)
            memcpy(first_why[k->kind[i] - 1], why, sizeof why);
    }
    for (int pass = 0; pass < 2; pass++) {
        if (!bad[pass]) continue;
        for (uint32_t i = 0; i < op->ncalls; i++) k->odd[i] = k->kind[i] == pass + 1;
        fa_finding *f = add_mismatch(k, op_index, pass ? FA_DTYPE_MISMATCH : FA_SIZE_MISMATCH);
        if (!f) return;
        char *who = fa_ranks_format(f->ranks.v, f->ranks.n);
        fa_finding_set_detail(f, "rank%s %s: %s", f->ranks.n > 1 ? "s" : "", who, first_why[pass]);
        free(who);
    }
}

/* An all_to_all whose members send more or fewer elements in total than they receive. */
static bool all_to_all_totals_differ(const checker *k, const fa_op *op, int64_t *in_total,
                                     int64_t *out_total) {
    const fa_group *g = &k->groups->v[op->group];
    *in_total = *out_total = 0;
    if (!is_all_to_all(fa_op_type(k->m, op)) || op->ncalls != g->nmembers)
        return false; /* totals need every member */
    for (uint32_t i = 0; i < op->ncalls; i++) {
        const fa_call *c = &k->m->calls[op->first_call + i];
        for (uint32_t j = 0; j < fa_call_nentries(k->m, c); j++) {
            const fa_traits *e = fa_entry_traits(k->in->store, fa_call_entry(k->m, k->in, c, j));
            *in_total += fa_store_numel(k->in->store, e->in_sizes);
            *out_total += fa_store_numel(k->in->store, e->out_sizes);
        }
    }
    return *in_total != *out_total;
}

static void check_all_to_all_totals(checker *k, size_t op_index) {
    fa_op *op = &k->m->ops[op_index];
    int64_t in_total, out_total;
    if (!all_to_all_totals_differ(k, op, &in_total, &out_total)) return;
    for (uint32_t i = 0; i < op->ncalls; i++) k->odd[i] = true;
    fa_finding *f = add_mismatch(k, op_index, FA_ALLTOALL_SIZE_MISMATCH);
    if (f)
        fa_finding_set_detail(f,
                              "the members send %lld elements in total but receive %lld; the dumps "
                              "do not say whose split is wrong",
                              (long long)in_total, (long long)out_total);
}

static void set_representative(checker *k, fa_op *op, long rep_call) {
    op->rep_call = op->first_call + (uint32_t)(rep_call >= 0 ? rep_call : 0);
}

/* fa_match_entries for a send/recv pair, with the names already parsed in the store. */
static bool p2p_pair_matches(const fa_store *store, const fa_entry *a, const fr_entry *ea,
                             const fa_entry *b, const fr_entry *eb) {
    const fa_opinfo *ia = fa_store_op(store, fa_entry_traits(store, a)->name),
                    *ib = fa_store_op(store, fa_entry_traits(store, b)->name);
    if (!ia->parsed || !ib->parsed) return false;
    fa_opname na = {
        .is_send = ia->is_send, .is_recv = ia->is_recv, .src = ia->src, .dst = ia->dst
    };
    fa_opname nb = {
        .is_send = ib->is_send, .is_recv = ib->is_recv, .src = ib->src, .dst = ib->dst
    };
    if (!na.is_send && !na.is_recv) return fa_match_entries(ea, eb, 2, NULL, 0) == FA_FULLY_MATCHED;
    return match_p2p(&na, ea, &nb, eb) == FA_FULLY_MATCHED;
}

/* The common case of p2p_pair_matches from interned ids alone: a parsed send and recv that name
 * compatible peers, the send's input sizes the very shape list the recv expects. False means
 * "not sure" (p2p_pair_matches decides). */
static bool p2p_pair_surely_matches(const fa_store *store, const fa_entry *ea, const fa_entry *eb) {
    const fa_traits *a = fa_entry_traits(store, ea), *b = fa_entry_traits(store, eb);
    const fa_opinfo *ia = fa_store_op(store, a->name), *ib = fa_store_op(store, b->name);
    if (!ia->parsed || !ib->parsed || !(ia->is_send || ia->is_recv) ||
        !(ib->is_send || ib->is_recv) || ia->is_send == ib->is_send)
        return false;
    if (!(ia->src < 0 || ib->src < 0 || ia->src == ib->src) ||
        !(ia->dst < 0 || ib->dst < 0 || ia->dst == ib->dst))
        return false;
    const fa_traits *send = ia->is_send ? a : b, *recv = ia->is_send ? b : a;
    uint32_t got =
        fa_store_shapes(store, recv->out_sizes)->count ? recv->out_sizes : recv->in_sizes;
    return send->in_sizes == got;
}

static void check_op(checker *k, size_t op_index) {
    fa_op *op = &k->m->ops[op_index];
    if (op->ncalls == 0) return;
    set_representative(k, op, 0);
    if (op->is_p2p) {
        const fa_call *a = &k->m->calls[op->first_call], *b = a + 1;
        /* a pair both sides completed did transfer: their records disagreeing says the pairing
         * of a window's edge is off (an older dump, a ring that started later), not the job */
        if (op->ncalls == 2 &&
            !(a->state == FR_STATE_COMPLETED && b->state == FR_STATE_COMPLETED)) {
            fr_entry ea, eb;
            fa_call_expand(k->m, k->in, a, 0, &ea);
            fa_call_expand(k->m, k->in, b, 0, &eb);
            if (!p2p_pair_matches(k->in->store, fa_call_entry(k->m, k->in, a, 0), &ea,
                                  fa_call_entry(k->m, k->in, b, 0), &eb)) {
                k->odd[0] = k->odd[1] = true;
                fa_finding *f = add_mismatch(k, op_index, FA_SIZE_MISMATCH);
                char x[200], y[200];
                fa_shapes_text(&ea.input_sizes, x, sizeof x);
                fa_shapes_text(&eb.output_sizes, y, sizeof y);
                if (f)
                    fa_finding_set_detail(f, "send %lld->%lld carries %s but the recv expects %s",
                                          (long long)op->src, (long long)op->dst, x, y);
            }
        }
        return;
    }
    static const int dims[] = { SIG_TYPE, SIG_SIZE, SIG_DTYPE };
    static const fa_finding_kind kinds[] = { FA_TYPE_MISMATCH, FA_SIZE_MISMATCH,
                                             FA_DTYPE_MISMATCH };
    for (int d = 0; d < 3; d++) {
        for (uint32_t i = 0; i < op->ncalls; i++)
            k->sig[i] = call_signature(k, &k->m->calls[op->first_call + i], dims[d]);
        long rep = mark_minority(k, op->ncalls);
        bool disagree = false;
        for (uint32_t i = 0; i < op->ncalls && rep < 0; i++) disagree |= k->sig[i] != k->sig[0];
        if (rep < 0 && !disagree) continue;
        if (rep >= 0) set_representative(k, op, rep);
        long odd_call = -1;
        for (uint32_t i = 0; i < op->ncalls; i++)
            if (k->odd[i] && (odd_call < 0 || (rep < 0 && (long)i != 0)))
                odd_call = odd_call < 0 ? (long)i : odd_call;
        fa_finding *f = add_mismatch(k, op_index, kinds[d]);
        if (f)
            describe_pair(k, op, odd_call, rep >= 0 ? rep : (op->ncalls > 1 ? 1 : -1), f, dims[d]);
        if (dims[d] == SIG_TYPE) return; /* sizes of different collectives do not compare */
    }
    if (!op->mismatch) check_intrinsic_calls(k, op_index);
    if (!op->mismatch) check_all_to_all_totals(k, op_index);
}

/* Whether check_op would find nothing wrong with op_index: every call agrees on type, sizes and
 * dtypes, none is inconsistent in itself, all_to_all totals add up (collectives), the pair
 * matches (send/recv). Sets the op's representative as check_op does; reads everything else.
 * `uniform` (fa_walk.uniform): every call is one entry with the same interned values, so the
 * signatures agree and every call's own consistency is the first call's. */
static bool op_is_clean(checker *k, size_t op_index, bool uniform) {
    fa_op *op = &k->m->ops[op_index];
    if (op->ncalls == 0) return true;
    set_representative(k, op, 0);
    if (op->is_p2p) {
        if (op->ncalls != 2) return true;
        const fa_call *a = &k->m->calls[op->first_call], *b = &k->m->calls[op->first_call + 1];
        if (p2p_pair_surely_matches(k->in->store, fa_call_entry(k->m, k->in, a, 0),
                                    fa_call_entry(k->m, k->in, b, 0)))
            return true;
        fr_entry ea, eb;
        fa_call_expand(k->m, k->in, a, 0, &ea);
        fa_call_expand(k->m, k->in, b, 0, &eb);
        return p2p_pair_matches(k->in->store, fa_call_entry(k->m, k->in, a, 0), &ea,
                                fa_call_entry(k->m, k->in, b, 0), &eb);
    }
    static const int dims[] = { SIG_TYPE, SIG_SIZE, SIG_DTYPE };
    for (int d = 0; d < 3 && !uniform; d++) {
        uint64_t first = call_signature(k, &k->m->calls[op->first_call], dims[d]);
        for (uint32_t i = 1; i < op->ncalls; i++)
            if (call_signature(k, &k->m->calls[op->first_call + i], dims[d]) != first) return false;
    }
    char why[300];
    uint32_t nmembers = k->groups->v[op->group].nmembers;
    for (uint32_t i = 0; i < (uniform ? 1 : op->ncalls); i++)
        if (intrinsic_problem(k, &k->m->calls[op->first_call + i], nmembers, why, sizeof why) !=
            FA_MISSING_RANKS)
            return false;
    /* op->type is the first entry's type, whose flags the store parsed once */
    const fa_traits *first =
        fa_entry_traits(k->in->store, fa_call_entry(k->m, k->in, &k->m->calls[op->first_call], 0));
    if (!(fa_store_op(k->in->store, first->name)->flags & FA_OP_ALL_TO_ALL)) return true;
    int64_t in_total, out_total;
    return !all_to_all_totals_differ(k, op, &in_total, &out_total);
}

/* The agreement checks are split in two so that the costly part runs on every core: workers
 * screen ops (op_is_clean, a chunk of ops at a time from a shared counter, each op's flag written
 * by the one worker that took it), then one thread runs check_op on the ops that are not clean,
 * in op order, so findings come out in the same order whatever the scheduling. A healthy job's
 * ops are all clean. An op a worker could not screen (out of memory) simply stays unscreened. */
typedef struct screen_job {
    const fa_input *in;
    const fa_groups *groups;
    fa_match *m;
    const uint8_t *uniform; /* per collective op (fa_walk.uniform) */
    size_t nuniform;
    uint8_t *flags;                  /* per op: SCREEN_* */
    uint32_t widest[FA_MAX_WORKERS]; /* per worker: the most calls it saw in one op */
} screen_job;

enum { SCREEN_CHUNK = 1024 };
enum { SCREEN_CLEAN = 1, SCREEN_UNMATCHED = 2 /* a p2p_unmatched finding to record */ };

static void screen_range(void *arg, unsigned worker, size_t lo, size_t hi) {
    screen_job *job = arg;
    checker k = { job->in, job->groups, job->m, NULL, 0, NULL, NULL, NULL, NULL };
    uint32_t widest = job->widest[worker];
    for (size_t i = lo; i < hi; i++) {
        const fa_op *op = &job->m->ops[i];
        sort_op_calls(job->m, i); /* before anything reads the op's calls in member order */
        uint8_t f = op_is_clean(&k, i, i < job->nuniform && job->uniform[i]) ? SCREEN_CLEAN : 0;
        if (op->unmatched && op->ncalls &&
            job->m->calls[op->first_call].state != FR_STATE_COMPLETED)
            f |= SCREEN_UNMATCHED;
        job->flags[i] = f;
        if (op->ncalls > widest) widest = op->ncalls;
    }
    job->widest[worker] = widest;
}

/* Screens every op (flags[op]: SCREEN_*); returns the most calls of one op (at least 1). */
static uint32_t screen_ops(const fa_input *in, const fa_groups *groups, fa_match *m,
                           const fa_walk *walk, int jobs, uint8_t *flags) {
    screen_job job = { in, groups, m, walk->uniform, walk->nuniform, flags, { 0 } };
    unsigned nw = fa_worker_count(jobs);
    fa_parallel_for(m->nops, SCREEN_CHUNK, nw, screen_range, &job);
    uint32_t widest = 1;
    for (unsigned t = 0; t < nw; t++)
        if (job.widest[t] > widest) widest = job.widest[t];
    return widest;
}

static int check_all(const fa_input *in, const fa_groups *groups, fa_match *m, const fa_walk *walk,
                     int cap, int jobs, fa_findings *findings) {
    uint8_t *flags = calloc(m->nops + 1, 1);
    if (!flags) return -1;
    uint32_t widest = screen_ops(in, groups, m, walk, jobs, flags);
    checker k = { in,
                  groups,
                  m,
                  findings,
                  cap,
                  calloc(groups->n + 1, sizeof(size_t)),
                  calloc(widest, sizeof(uint64_t)),
                  calloc(widest, sizeof(bool)),
                  calloc(widest, sizeof(uint8_t)) };
    if (!k.listed_per_group || !k.sig || !k.odd || !k.kind) {
        free(k.listed_per_group);
        free(k.sig);
        free(k.odd);
        free(k.kind);
        free(flags);
        return -1;
    }
    for (size_t i = 0; i < m->nops; i++)
        if (!(flags[i] & SCREEN_CLEAN)) check_op(&k, i);
    /* p2p with one side absent: the verdict weighs it; here it is recorded */
    for (size_t i = 0; i < m->nops; i++) {
        if (!(flags[i] & SCREEN_UNMATCHED)) continue;
        fa_op *op = &m->ops[i];
        const fa_call *c = &m->calls[op->first_call];
        fa_finding *f = fa_findings_add(findings, FA_P2P_UNMATCHED, (long)op->group, (long)i);
        if (!f) break;
        f->listed = k.listed_per_group[op->group]++ < (size_t)cap;
        bool sender_posted = c->member == fa_group_position(&groups->v[op->group], op->src);
        fa_ranks_add(&f->ranks, sender_posted ? op->dst : op->src);
        fa_ranks_add(&f->others, sender_posted ? op->src : op->dst);
        fa_finding_set_detail(
            f,
            sender_posted
                ? "rank %lld sends to rank %lld (p2p #%lld); rank %lld has no matching recv"
                : "rank %lld receives from rank %lld (p2p #%lld); rank %lld has no matching send",
            (long long)(sender_posted ? op->src : op->dst),
            (long long)(sender_posted ? op->dst : op->src), (long long)op->seq,
            (long long)(sender_posted ? op->dst : op->src));
    }
    free(flags);
    free(k.listed_per_group);
    free(k.sig);
    free(k.odd);
    free(k.kind);
    return 0;
}

/* ---------------------------------------------------------------- public ------------ */

static int alloc_views(const fa_input *in, const fa_groups *groups, fa_match *m) {
    size_t nviews = 0;
    m->view_at = calloc(groups->n + 1, sizeof *m->view_at);
    if (!m->view_at) return -1;
    for (size_t g = 0; g < groups->n; g++) {
        m->view_at[g] = nviews;
        nviews += groups->v[g].nmembers;
    }
    m->views = calloc(nviews + 1, sizeof *m->views);
    m->rank_newest_pending = calloc(in->nranks + 1, sizeof *m->rank_newest_pending);
    m->rank_stale = malloc((in->nranks + 1) * sizeof *m->rank_stale);
    if (!m->views || !m->rank_newest_pending || !m->rank_stale) return -1;
    for (size_t i = 0; i < nviews; i++)
        m->views[i] = (fa_view){ -1, -1, -1, INT64_MAX, false, false, false };
    for (size_t r = 0; r <= in->nranks; r++)
        m->rank_stale[r] = (fa_stale){ -1, -1, -1, r < in->nranks && in->ranks[r].dump->truncated };
    return 0;
}

/* Which dumps are older than their peers' (fa_stale): per group, the highest seq that a member
 * surely completed (its state says completed, beyond gloo's uncertain "retired" on a rank's
 * newest entry), which every member must have issued; a member with a dump that shows less was
 * dumped before. Collectives only: a send completes without every member. */
static void find_stale(const fa_input *in, const fa_groups *groups, fa_match *m) {
    int64_t *proven = malloc((groups->n + 1) * sizeof *proven);
    if (!proven) return;
    for (size_t g = 0; g < groups->n; g++) proven[g] = -1;
    for (size_t i = 0; i < m->nops; i++) {
        const fa_op *o = &m->ops[i];
        if (o->is_p2p || o->seq <= proven[o->group]) continue;
        for (uint32_t k = 0; k < o->ncalls; k++) {
            const fa_call *c = &m->calls[o->first_call + k];
            if (c->state == FR_STATE_COMPLETED && !fa_call_end_uncertain(m, in, c)) {
                proven[o->group] = o->seq;
                break;
            }
        }
    }
    for (size_t g = 0; g < groups->n; g++) {
        const fa_group *grp = &groups->v[g];
        for (uint32_t p = 0; p < grp->nmembers && proven[g] >= 0; p++) {
            const fa_view *v = view_of(m, (uint32_t)g, p);
            long ri = grp->member_input[p];
            if (ri < 0 || v->issued_max >= proven[g]) continue;
            fa_stale *s = &m->rank_stale[ri];
            if (s->group < 0 || proven[g] - v->issued_max > s->seq - s->issued)
                *s = (fa_stale){ (long)g, proven[g], v->issued_max, s->cut };
        }
    }
    free(proven);
}

int fa_match_build(const fa_input *in, const fa_groups *groups, int mismatch_cap, int jobs,
                   fa_match *m, fa_findings *findings, fr_error *err) {
    memset(m, 0, sizeof *m);
    m->in = in;
    fa_walk walk = { 0 };
    if (groups->n > FA_MAX_GROUPS) {
        snprintf(err->msg, sizeof err->msg, "%zu process groups: more than %u cannot be matched",
                 groups->n, FA_MAX_GROUPS);
        return -1;
    }
    for (size_t g = 0; g < groups->n; g++)
        if (groups->v[g].nmembers > FA_MAX_MEMBERS) {
            snprintf(err->msg, sizeof err->msg,
                     "group %s has %u members: more than %u cannot be matched", groups->v[g].id,
                     groups->v[g].nmembers, FA_MAX_MEMBERS);
            return -1;
        }
    int rc = alloc_views(in, groups, m);
    if (rc == 0) rc = fa_walk_ranks(in, groups, jobs, m, &walk);
    bool timing = fa_timing_wanted();
    double t = fa_clock();
    builder b = { in, groups, m, walk.calls_cap, walk.ops_cap, walk.p2p, walk.np2p, NULL };
    walk.p2p = NULL; /* the builder's now */
    if (rc == 0) rc = pair_p2p(&b);
    /* Each stage's scratch is freed as soon as its stage ends: holding the p2p records while
     * checking allocates would make them part of the peak RSS (first-touch page faults of that
     * peak are most of the run's system time). */
    free(b.p2p);
    b.p2p = NULL;
    if (timing) fa_timing_note("  p2p", &t);
    if (rc == 0) fold_status(in, groups, m);
    if (rc == 0) rc = complete_by_counters(in, groups, m);
    if (rc == 0) find_stale(in, groups, m);
    if (rc == 0) rc = check_all(in, groups, m, &walk, mismatch_cap, jobs, findings);
    if (timing) fa_timing_note("  check", &t);
    fa_walk_free(&walk);
    if (rc) snprintf(err->msg, sizeof err->msg, "out of memory while matching");
    return rc;
}

void fa_match_free(fa_match *m) {
    free(m->ops);
    free(m->calls);
    free(m->entry_refs);
    free(m->view_at);
    free(m->views);
    free(m->rank_newest_pending);
    free(m->rank_stale);
    memset(m, 0, sizeof *m);
}

const fa_call *fa_op_call(const fa_match *m, size_t op, uint32_t member) {
    const fa_op *o = &m->ops[op];
    size_t lo = o->first_call, hi = (size_t)o->first_call + o->ncalls;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (m->calls[mid].member < member)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < (size_t)o->first_call + o->ncalls && m->calls[lo].member == member ? &m->calls[lo]
                                                                                   : NULL;
}

fa_member_state fa_op_member_state(const fa_match *m, const fa_groups *groups, size_t op,
                                   uint32_t member) {
    return fa_op_member_state_of(m, groups, op, member, fa_op_call(m, op, member));
}

uint32_t fa_op_expected(const fa_match *m, const fa_groups *groups, size_t op, uint32_t *out) {
    const fa_op *o = &m->ops[op];
    const fa_group *g = &groups->v[o->group];
    if (!o->is_p2p) {
        uint32_t n = 0;
        for (uint32_t p = 0; p < g->nmembers; p++)
            if (g->members[p] >= 0) out[n++] = p;
        return n;
    }
    uint32_t n = 0;
    long s = fa_group_position(g, o->src), d = fa_group_position(g, o->dst);
    if (s >= 0) out[n++] = (uint32_t)s;
    if (d >= 0 && d != s) out[n++] = (uint32_t)d;
    if (n == 0 && o->ncalls) out[n++] = m->calls[o->first_call].member;
    return n;
}
