/* match.c — collectives by (group, seq), send/recv by peer and order, agreement checks.
 *
 * The build runs in four steps (see match.h for the rules):
 *   1. walk each rank's entries once, in record order: attribute each to its group, grow the
 *      member's view (issued/completed counters), and cut the entries into calls — collective
 *      calls get an op through a hash on (group, seq, occurrence) and are kept compact in walk
 *      order, counted per op; send/recv go to a side list;
 *   2. place the collective calls straight into their final slots (ops in creation order, each
 *      op's calls in rank order), now that every op's size is known;
 *   3. sort the send/recv list by (group, sender, receiver, side, order) and pair it into ops,
 *      whose calls follow the collective ones;
 *   4. fold in pg_status and check each op: all cores screen the ops, one thread reports on the
 *      ones that are not clean, in op order (check_all).
 * Everything is linear in the number of entries except the p2p sort (n log n). FRTRACE_TIMING=1
 * prints the steps' wall times to stderr.
 */
#include "match.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "index.h"
#include "analysis.h"

/* ---------------------------------------------------------------- profiling names --- */

int fa_parse_profiling_name(const char *name, fa_opname *out) {
    memset(out, 0, sizeof *out);
    out->src = out->dst = -1;
    const char *colon = name ? strrchr(name, ':') : NULL;
    /* split on the last colon ("weird:backend:all_reduce" is an all_reduce), but a colon
     * inside the meta part (after the first space) does not count */
    const char *space = name ? strchr(name, ' ') : NULL;
    if (colon && space && colon > space) {
        colon = NULL;
        for (const char *p = name; p < space; p++)
            if (*p == ':') colon = p;
    }
    if (!colon) return -1;
    snprintf(out->backend, sizeof out->backend, "%.*s", (int)(colon - name), name);
    const char *op = colon + 1;
    size_t tl = strcspn(op, " ");
    snprintf(out->type, sizeof out->type, "%.*s", (int)tl, op);
    out->is_send = strcmp(out->type, "send") == 0;
    out->is_recv = strcmp(out->type, "recv") == 0;
    if ((out->is_send || out->is_recv) && op[tl] == ' ') {
        const char *meta = op + tl + 1;
        const char *arrow = strstr(meta, out->is_send ? "->" : "<-");
        if (arrow) {
            char *end;
            long long first = strtoll(meta, &end, 10);
            int first_ok = end != meta;
            long long second = strtoll(arrow + 2, &end, 10);
            int second_ok = end != arrow + 2;
            if (out->is_send) {
                out->src = first_ok ? first : -1;
                out->dst = second_ok ? second : -1;
            } else {
                out->dst = first_ok ? first : -1;
                out->src = second_ok ? second : -1;
            }
        }
    }
    return 0;
}

bool fa_is_end_marker(const char *type) { return (fa_op_flags(type) & FA_OP_END_MARKER) != 0; }

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
            at += (size_t)snprintf(buf + at, len - at, "%s%lld", d ? ", " : "", (long long)s->shapes[i].dims[d]);
        if (at < len) at += (size_t)snprintf(buf + at, len - at, "]");
    }
    if (at < len) snprintf(buf + at, len - at, "]");
}

/* A call's own consistency, independent of other ranks: all_reduce keeps its size,
 * all_gather multiplies by the group size, reduce_scatter divides by it, in and out dtypes
 * agree. Returns the kind of problem or FA_FULLY_MATCHED. */
static fa_match_state check_intrinsic(const fr_entry *self, const fr_entry *other, uint32_t flags, int64_t group_size,
                                      char *why, size_t whylen) {
    char a[256], b[256];
    if ((flags & FA_OP_ALL_REDUCE) && !shapes_equal(&self->input_sizes, &other->output_sizes)) {
        fa_shapes_text(&self->input_sizes, a, sizeof a);
        fa_shapes_text(&other->output_sizes, b, sizeof b);
        if (why) snprintf(why, whylen, "input sizes %s but output sizes %s", a, b);
        return FA_SIZE_OR_SYNTAX_MISMATCH;
    }
    if ((flags & FA_OP_ALL_GATHER) && total_numel(&other->output_sizes) != total_numel(&self->input_sizes) * group_size) {
        if (why)
            snprintf(why, whylen, "output numel %lld is not input numel %lld x group size %lld",
                     (long long)total_numel(&other->output_sizes), (long long)total_numel(&self->input_sizes), (long long)group_size);
        return FA_SIZE_OR_SYNTAX_MISMATCH;
    }
    if ((flags & FA_OP_REDUCE_SCATTER) && total_numel(&other->input_sizes) != total_numel(&self->output_sizes) * group_size) {
        if (why)
            snprintf(why, whylen, "input numel %lld is not output numel %lld x group size %lld",
                     (long long)total_numel(&other->input_sizes), (long long)total_numel(&self->output_sizes), (long long)group_size);
        return FA_SIZE_OR_SYNTAX_MISMATCH;
    }
    return FA_FULLY_MATCHED;
}

static bool own_dtypes_disagree(const fr_entry *e, uint32_t flags) {
    return !(flags & (FA_OP_SCATTER | FA_OP_GATHER | FA_OP_BROADCAST)) && has_tensor(&e->input_sizes) && has_tensor(&e->output_sizes) &&
           e->input_dtypes.count && e->output_dtypes.count && !dtype_sets_equal(&e->input_dtypes, &e->output_dtypes);
}

static bool compares_inputs(const char *type) { return !is_all_to_all(type) && strcmp(type, "scatter") != 0; }
static bool compares_outputs(const char *type) { return !is_all_to_all(type) && strcmp(type, "gather") != 0; }

static fa_match_state match_p2p(const fa_opname *a, const fr_entry *ea, const fa_opname *b, const fr_entry *eb) {
    if (a->is_send == b->is_send || !(b->is_send || b->is_recv)) return FA_SIZE_OR_SYNTAX_MISMATCH;
    bool src_ok = a->src < 0 || b->src < 0 || a->src == b->src;
    bool dst_ok = a->dst < 0 || b->dst < 0 || a->dst == b->dst;
    const fr_entry *send = a->is_send ? ea : eb, *recv = a->is_send ? eb : ea;
    const fr_shapes *got = recv->output_sizes.count ? &recv->output_sizes : &recv->input_sizes;
    if (!src_ok || !dst_ok || !shapes_equal(&send->input_sizes, got)) return FA_SIZE_OR_SYNTAX_MISMATCH;
    return FA_FULLY_MATCHED;
}

fa_match_state fa_match_entries(const fr_entry *a, const fr_entry *b, int64_t group_size, char *why, size_t whylen) {
    fa_opname na, nb;
    char x[256], y[256];
    if (why && whylen) why[0] = '\0';
    if (fa_parse_profiling_name(a->profiling_name, &na) != 0 || fa_parse_profiling_name(b->profiling_name, &nb) != 0) {
        if (why) snprintf(why, whylen, "profiling name without a backend prefix");
        return FA_SIZE_OR_SYNTAX_MISMATCH;
    }
    if (na.is_send || na.is_recv) return match_p2p(&na, a, &nb, b);
    if (strcmp(na.type, nb.type) != 0) {
        if (why) snprintf(why, whylen, "expected collective type '%s', found '%s'", na.type, nb.type);
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
    bool dtype_bad = own_dtypes_disagree(a, flags) ||
                     (!(flags & (FA_OP_SCATTER | FA_OP_BROADCAST)) && has_tensor(&a->input_sizes) && has_tensor(&b->input_sizes) &&
                      !dtype_sets_equal(&a->input_dtypes, &b->input_dtypes)) ||
                     (strcmp(na.type, "gather") != 0 && has_tensor(&a->output_sizes) && has_tensor(&b->output_sizes) &&
                      !dtype_sets_equal(&a->output_dtypes, &b->output_dtypes));
    if (dtype_bad) {
        if (why) snprintf(why, whylen, "dtypes differ");
        return FA_COLLECTIVE_DTYPE_MISMATCH;
    }
    if (a->state != b->state) {
        if (why) snprintf(why, whylen, "expected state '%s', found '%s'", fr_state_name(a->state), fr_state_name(b->state));
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
    }
    return "?";
}

/* ---------------------------------------------------------------- building --------- */

typedef struct p2p_rec {
    uint32_t group, src_pos, dst_pos;
    uint32_t is_send;
    uint32_t rank_index, member, entry;
    fr_state state;
    int64_t p2p_seq;
} p2p_rec;

/* Per (rank, group) scratch while walking one rank's entries. */
typedef struct open_group {
    bool touched;
    long call;          /* open collective call, -1 none */
    int64_t seq;
    const char *type;   /* last non-marker type in the open call (interned), NULL none */
    bool closed;        /* the open call ended with an end marker */
    uint32_t occurrence;
    bool last_p2p;
    int64_t p2p_seq;
    size_t batch_first, batch_n;
    int64_t min_pending;
} open_group;

typedef struct builder {
    const fa_input *in;
    const fa_groups *groups;
    fa_match *m;
    size_t calls_cap, ops_cap, refs_cap;
    fa_imap op_index;
    p2p_rec *p2p;
    size_t np2p, p2p_cap;
    open_group *open;
    uint32_t *touched; /* groups the rank being walked has entries in, first-seen order */
    size_t ntouched;
    uint32_t *entry_call;
    size_t entry_call_cap;
    long *pg_group, *pg_pos; /* per pg slot of the rank being walked: group index and position */
    size_t pg_cap;
    long *group_pos; /* per group: the position of the rank being placed, -1 (place_collective_calls) */
    fa_call *rank_calls; /* the collective calls of the rank being walked, in entry order */
    size_t nrank_calls, rank_calls_cap;
    /* Every rank's collective calls in walk order, kept compact until their op sizes are known
     * (a call's member and rank follow from its rank): op, entry count, state; per rank where its calls and entry refs start. */
    uint32_t *pend_op, *pend_n;
    uint8_t *pend_state;
    size_t npend, pend_cap;
    size_t *rank_pend_at, *rank_refs_at; /* per input rank, + 1 */
} builder;

#define NO_CALL UINT32_MAX

static int grow(void **v, size_t *cap, size_t need, size_t size) {
    if (need <= *cap) return 0;
    size_t c = *cap ? *cap : 64;
    while (c < need) c *= 2;
    void *p = realloc(*v, c * size);
    if (!p) return -1;
    *v = p;
    *cap = c;
    return 0;
}

static long new_op(builder *b, uint32_t group, bool is_p2p, int64_t seq) {
    fa_match *m = b->m;
    if (grow((void **)&m->ops, &b->ops_cap, m->nops + 1, sizeof *m->ops)) return -1;
    fa_op *op = &m->ops[m->nops];
    memset(op, 0, sizeof *op);
    op->group = group;
    op->is_p2p = is_p2p;
    op->seq = seq;
    op->src = op->dst = -1;
    return (long)m->nops++;
}

static long new_call(builder *b, uint32_t op, uint32_t member, uint32_t rank_index, fr_state state) {
    fa_match *m = b->m;
    if (grow((void **)&m->calls, &b->calls_cap, m->ncalls + 1, sizeof *m->calls)) return -1;
    m->calls[m->ncalls] = (fa_call){op, member, rank_index, 0, 0, state, false};
    return (long)m->ncalls++;
}

/* A collective call of the rank being walked (in b->rank_calls; placed once every rank is walked). */
static long new_rank_call(builder *b, uint32_t op, uint32_t member, uint32_t rank_index) {
    if (grow((void **)&b->rank_calls, &b->rank_calls_cap, b->nrank_calls + 1, sizeof *b->rank_calls)) return -1;
    b->rank_calls[b->nrank_calls] = (fa_call){op, member, rank_index, 0, 0, FR_STATE_COMPLETED, false};
    return (long)b->nrank_calls++;
}

static long collective_op(builder *b, uint32_t group, int64_t seq, uint32_t occurrence) {
    uint64_t key = fa_key2(fa_key2(group, (uint64_t)seq), occurrence), at;
    if (fa_imap_get(&b->op_index, key, &at)) return (long)at;
    long op = new_op(b, group, false, seq);
    if (op >= 0 && fa_imap_put(&b->op_index, key, (uint64_t)op) != 0) return -1;
    return op;
}

static fa_view *view_of(const fa_match *m, uint32_t group, uint32_t member) { return &m->views[m->view_at[group] + member]; }

/* A collective entry joins the open call when it has the same seq and continues the bundle.
 * Types are interned, so equal types are the same pointer. */
static bool continues_call(const open_group *o, int64_t seq, const fa_opinfo *op) {
    if (o->call < 0 || o->closed || o->seq != seq) return false;
    return (op->flags & FA_OP_END_MARKER) || !o->type || o->type[0] == '\0' || o->type == op->type;
}

static int add_collective_entry(builder *b, open_group *o, uint32_t group, uint32_t member, uint32_t rank_index,
                                const fa_entry *e, const fa_opinfo *op_info, uint32_t entry_index) {
    if (!continues_call(o, e->collective_seq_id, op_info)) {
        o->occurrence = (o->call >= 0 && o->seq == e->collective_seq_id) ? o->occurrence + 1 : 0;
        long op = collective_op(b, group, e->collective_seq_id, o->occurrence);
        long call = op < 0 ? -1 : new_rank_call(b, (uint32_t)op, member, rank_index);
        if (call < 0) return -1;
        o->call = call;
        o->seq = e->collective_seq_id;
        o->type = NULL;
        o->closed = false;
    }
    fa_call *c = &b->rank_calls[o->call];
    c->nentries++;
    if (op_info->flags & FA_OP_END_MARKER) {
        c->state = (fr_state)e->state; /* the marker speaks for the whole bundle */
        o->closed = true;
    } else {
        if (e->state < c->state) c->state = (fr_state)e->state;
        o->type = op_info->type;
    }
    b->entry_call[entry_index] = (uint32_t)o->call;
    return 0;
}

static int add_p2p_entry(builder *b, open_group *o, uint32_t group, uint32_t member, uint32_t rank_index, const fa_entry *e,
                         const fa_opinfo *name, uint32_t entry_index) {
    const fa_group *g = &b->groups->v[group];
    int64_t peer = name->is_send ? name->dst : name->src;
    uint32_t src = name->is_send ? member : (peer >= 0 && peer < g->nmembers ? (uint32_t)peer : UINT32_MAX);
    uint32_t dst = name->is_send ? (peer >= 0 && peer < g->nmembers ? (uint32_t)peer : UINT32_MAX) : member;
    if (grow((void **)&b->p2p, &b->p2p_cap, b->np2p + 1, sizeof *b->p2p)) return -1;
    if (o->last_p2p && o->p2p_seq == e->p2p_seq_id) {
        o->batch_n++;
    } else {
        o->batch_first = b->np2p;
        o->batch_n = 1;
        o->p2p_seq = e->p2p_seq_id;
    }
    o->last_p2p = true;
    b->p2p[b->np2p++] = (p2p_rec){group, src, dst, name->is_send, rank_index, member, entry_index, (fr_state)e->state, e->p2p_seq_id};
    return 0;
}

/* A `coalesced` end marker right after send/recv of the same p2p_seq_id closes a
 * batch_isend_irecv group: its state lifts the batch's entries (they may stay scheduled). */
static bool closes_p2p_batch(builder *b, open_group *o, const fa_entry *e, const fa_opinfo *op) {
    if (!o->last_p2p || !(op->flags & FA_OP_COALESCED) || e->p2p_seq_id != o->p2p_seq) return false;
    for (size_t i = o->batch_first; i < o->batch_first + o->batch_n; i++)
        if (b->p2p[i].state < (fr_state)e->state) b->p2p[i].state = (fr_state)e->state;
    return true;
}

static void note_progress(fa_view *v, const fa_entry *e, int64_t pg_id) {
    if (e->collective_seq_id > v->issued_max) v->issued_max = e->collective_seq_id;
    if (v->pg_id < 0) v->pg_id = pg_id;
    v->has_entries = true;
}

/* Group and position of each of the rank's pg slots, looked up once per rank, not per entry. */
static int resolve_pgs(builder *b, uint32_t rank_index) {
    const fa_dump *d = b->in->ranks[rank_index].dump;
    if (grow((void **)&b->pg_group, &b->pg_cap, d->npgs + 1, sizeof *b->pg_group)) return -1;
    long *pos = realloc(b->pg_pos, b->pg_cap * sizeof *pos);
    if (!pos) return -1;
    b->pg_pos = pos;
    for (uint32_t k = 0; k < d->npgs; k++) {
        long gi = fa_groups_find(b->groups, rank_index, d->pgs[k].name);
        b->pg_group[k] = gi;
        b->pg_pos[k] = gi < 0 ? -1 : fa_group_position(&b->groups->v[gi], b->in->ranks[rank_index].rank);
    }
    return 0;
}

/* Appends the walked rank's calls to the pending list, counting them into their ops; lays its
 * call entries out contiguously in entry_refs (calls in walk order, entries in record order). */
static int finish_rank_calls(builder *b, uint32_t rank_index, uint32_t nentries) {
    fa_match *m = b->m;
    size_t need = b->npend + b->nrank_calls + 1;
    if (need > b->pend_cap) {
        size_t cap = b->pend_cap ? b->pend_cap : 1024;
        while (cap < need) cap *= 2;
        uint32_t *op = realloc(b->pend_op, cap * sizeof *op);
        if (op) b->pend_op = op;
        uint32_t *n = realloc(b->pend_n, cap * sizeof *n);
        if (n) b->pend_n = n;
        uint8_t *st = realloc(b->pend_state, cap * sizeof *st);
        if (st) b->pend_state = st;
        if (!op || !n || !st) return -1;
        b->pend_cap = cap;
    }
    b->rank_pend_at[rank_index] = b->npend;
    b->rank_refs_at[rank_index] = m->nentry_refs;
    size_t at = m->nentry_refs;
    for (size_t c = 0; c < b->nrank_calls; c++) {
        fa_call *call = &b->rank_calls[c];
        b->pend_op[b->npend] = call->op;
        b->pend_n[b->npend] = call->nentries;
        b->pend_state[b->npend++] = (uint8_t)call->state;
        m->ops[call->op].ncalls++;
        call->entries_at = (uint32_t)at;
        at += call->nentries;
        call->nentries = 0;
    }
    if (grow((void **)&m->entry_refs, &b->refs_cap, at + 1, sizeof *m->entry_refs)) return -1;
    for (uint32_t i = 0; i < nentries; i++) {
        if (b->entry_call[i] == NO_CALL) continue;
        fa_call *c = &b->rank_calls[b->entry_call[i]];
        m->entry_refs[c->entries_at + c->nentries++] = i;
    }
    m->nentry_refs = at;
    b->nrank_calls = 0;
    return 0;
}

static int walk_rank(builder *b, uint32_t rank_index) {
    const fa_dump *d = b->in->ranks[rank_index].dump;
    const fa_store *store = b->in->store;
    int64_t rank = b->in->ranks[rank_index].rank;
    fa_match *m = b->m;
    if (grow((void **)&b->entry_call, &b->entry_call_cap, d->nentries + 1, sizeof *b->entry_call)) return -1;
    if (resolve_pgs(b, rank_index)) return -1;
    m->rank_newest_pending[rank_index] = -1;
    for (uint32_t i = 0; i < d->nentries; i++) {
        const fa_entry *e = &d->entries[i];
        b->entry_call[i] = NO_CALL;
        long gi = b->pg_group[e->pg], pos = b->pg_pos[e->pg];
        if (gi < 0 || pos < 0) continue;
        const fa_opinfo *name = fa_store_op(store, e->name);
        open_group *o = &b->open[gi];
        if (!o->touched) {
            memset(o, 0, sizeof *o);
            o->touched = true;
            o->call = -1;
            o->min_pending = INT64_MAX;
            b->touched[b->ntouched++] = (uint32_t)gi;
        }
        fa_view *v = view_of(m, (uint32_t)gi, (uint32_t)pos);
        note_progress(v, e, d->pgs[e->pg].pg_id);
        if (e->state != FR_STATE_COMPLETED && e->record_id > m->rank_newest_pending[rank_index])
            m->rank_newest_pending[rank_index] = e->record_id;
        m->any_entries = true;
        int rc = 0;
        if (e->is_p2p || name->is_send || name->is_recv) {
            rc = add_p2p_entry(b, o, (uint32_t)gi, (uint32_t)pos, rank_index, e, name, i);
        } else if (closes_p2p_batch(b, o, e, name)) {
            o->last_p2p = false;
        } else {
            o->last_p2p = false;
            rc = add_collective_entry(b, o, (uint32_t)gi, (uint32_t)pos, rank_index, e, name, i);
            if (e->state == FR_STATE_COMPLETED) {
                if (e->collective_seq_id > v->completed_max) v->completed_max = e->collective_seq_id;
            } else if (e->collective_seq_id < o->min_pending) {
                o->min_pending = e->collective_seq_id;
            }
        }
        if (rc) return -1;
    }
    /* in-order completion within a group: everything before the oldest pending one is done;
     * only the groups this rank has entries in are visited (not every group of the job) */
    for (size_t t = 0; t < b->ntouched; t++) {
        open_group *o = &b->open[b->touched[t]];
        long pos = fa_group_position(&b->groups->v[b->touched[t]], rank);
        fa_view *v = view_of(m, b->touched[t], (uint32_t)pos);
        if (o->min_pending != INT64_MAX && o->min_pending - 1 > v->completed_max) v->completed_max = o->min_pending - 1;
        o->touched = false;
    }
    b->ntouched = 0;
    return finish_rank_calls(b, rank_index, d->nentries);
}

/* Puts every collective call at its final place: ops in creation order, each op's calls in rank
 * order (the order the ranks were walked). The call array is allocated once at its final size
 * plus room for the send/recv calls pair_p2p appends; the rank-order pending list is read
 * sequentially and each call written straight to its slot, which stays cache-friendly because
 * consecutive ranks fill neighbouring slots of the same ops. (Permuting a walk-order array in
 * place instead costs a dependent cache miss per call: most of the matcher's time at scale.) */
static int place_collective_calls(builder *b) {
    fa_match *m = b->m;
    size_t total = b->npend + b->np2p;
    m->calls = malloc((total + 1) * sizeof *m->calls);
    if (!m->calls) return -1;
    b->calls_cap = total + 1;
    size_t at = 0;
    for (size_t o = 0; o < m->nops; o++) {
        m->ops[o].first_call = (uint32_t)at;
        at += m->ops[o].ncalls;
        m->ops[o].ncalls = 0;
    }
    for (uint32_t r = 0; r < b->in->nranks; r++) {
        if (resolve_pgs(b, r)) return -1;
        const fa_dump *d = b->in->ranks[r].dump;
        /* the rank's position per group from its few pg slots; two slots of one group agree */
        for (uint32_t k = 0; k < d->npgs; k++)
            if (b->pg_group[k] >= 0) b->group_pos[b->pg_group[k]] = b->pg_pos[k];
        size_t refs = b->rank_refs_at[r], end = r + 1 < b->in->nranks ? b->rank_pend_at[r + 1] : b->npend;
        for (size_t p = b->rank_pend_at[r]; p < end; p++) {
            fa_op *op = &m->ops[b->pend_op[p]];
            fa_call *c = &m->calls[op->first_call + op->ncalls++];
            *c = (fa_call){b->pend_op[p], (uint32_t)b->group_pos[op->group], r, (uint32_t)refs, b->pend_n[p], b->pend_state[p], false};
            refs += b->pend_n[p];
        }
        for (uint32_t k = 0; k < d->npgs; k++)
            if (b->pg_group[k] >= 0) b->group_pos[b->pg_group[k]] = -1;
    }
    m->ncalls = at;
    return 0;
}

static int compare_p2p(const void *x, const void *y) {
    const p2p_rec *a = x, *b = y;
    if (a->group != b->group) return a->group < b->group ? -1 : 1;
    if (a->src_pos != b->src_pos) return a->src_pos < b->src_pos ? -1 : 1;
    if (a->dst_pos != b->dst_pos) return a->dst_pos < b->dst_pos ? -1 : 1;
    if (a->is_send != b->is_send) return a->is_send > b->is_send ? -1 : 1; /* sends first */
    return (a->entry > b->entry) - (a->entry < b->entry);
}

static int p2p_call(builder *b, long op, const p2p_rec *r) {
    long call = new_call(b, (uint32_t)op, r->member, r->rank_index, r->state);
    if (call < 0) return -1;
    fa_match *m = b->m;
    if (grow((void **)&m->entry_refs, &b->refs_cap, m->nentry_refs + 1, sizeof *m->entry_refs)) return -1;
    m->calls[call].entries_at = (uint32_t)m->nentry_refs;
    m->calls[call].nentries = 1;
    m->ops[op].ncalls++;
    m->entry_refs[m->nentry_refs++] = r->entry;
    return 0;
}

static int p2p_op(builder *b, const p2p_rec *send, const p2p_rec *recv) {
    const p2p_rec *any = send ? send : recv;
    const fa_group *g = &b->groups->v[any->group];
    long op = new_op(b, any->group, true, any->p2p_seq);
    if (op < 0) return -1;
    fa_op *o = &b->m->ops[op];
    o->first_call = (uint32_t)b->m->ncalls; /* its calls follow at once, after every collective call */
    o->src = any->src_pos < g->nmembers ? g->members[any->src_pos] : -1;
    o->dst = any->dst_pos < g->nmembers ? g->members[any->dst_pos] : -1;
    o->unmatched = !(send && recv) && o->src >= 0 && o->dst >= 0;
    if (send && p2p_call(b, op, send)) return -1;
    if (recv && p2p_call(b, op, recv)) return -1;
    return 0;
}

/* Pairs one (group, sender, receiver) run: pending sends with pending recvs in order; completed
 * ones from the newest backwards; leftovers that completed are the window's edge, not findings. */
static int pair_run(builder *b, p2p_rec *run, size_t n) {
    size_t ns = 0;
    while (ns < n && run[ns].is_send) ns++;
    p2p_rec *S = run, *R = run + ns;
    size_t nr = n - ns, cs = 0, cr = 0;
    while (cs < ns && S[cs].state == FR_STATE_COMPLETED) cs++;
    while (cr < nr && R[cr].state == FR_STATE_COMPLETED) cr++;
    if (run[0].src_pos == UINT32_MAX || run[0].dst_pos == UINT32_MAX) { /* recv from any source */
        for (size_t i = 0; i < n; i++)
            if (run[i].state != FR_STATE_COMPLETED && p2p_op(b, run[i].is_send ? &run[i] : NULL, run[i].is_send ? NULL : &run[i])) return -1;
        return 0;
    }
    for (size_t i = 0; i < cs && i < cr; i++)
        if (p2p_op(b, &S[cs - 1 - i], &R[cr - 1 - i])) return -1;
    size_t ps = ns - cs, pr = nr - cr;
    for (size_t i = 0; i < ps || i < pr; i++)
        if (p2p_op(b, i < ps ? &S[cs + i] : NULL, i < pr ? &R[cr + i] : NULL)) return -1;
    return 0;
}

static int pair_p2p(builder *b) {
    if (b->np2p) qsort(b->p2p, b->np2p, sizeof *b->p2p, compare_p2p);
    for (size_t i = 0; i < b->np2p;) {
        size_t j = i;
        while (j < b->np2p && b->p2p[j].group == b->p2p[i].group && b->p2p[j].src_pos == b->p2p[i].src_pos &&
               b->p2p[j].dst_pos == b->p2p[i].dst_pos)
            j++;
        if (pair_run(b, b->p2p + i, j - i)) return -1;
        i = j;
    }
    return 0;
}

static int compare_members(const void *x, const void *y) {
    const fa_call *a = x, *b = y;
    return (a->member > b->member) - (a->member < b->member);
}

/* Calls within each op by member. Ranks are walked in order and a send precedes its recv, so
 * members mostly arrive sorted: only an op whose calls are not gets sorted. */
static void sort_op_members(fa_match *m) {
    for (size_t o = 0; o < m->nops; o++) {
        fa_call *v = m->calls + m->ops[o].first_call;
        for (uint32_t i = 1; i < m->ops[o].ncalls; i++) {
            if (v[i - 1].member <= v[i].member) continue;
            qsort(v, m->ops[o].ncalls, sizeof *v, compare_members);
            break;
        }
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
                if (d->status[s].last_enqueued > v->issued_max) v->issued_max = d->status[s].last_enqueued;
                if (d->status[s].last_completed > v->completed_max) v->completed_max = d->status[s].last_completed;
            }
        }
    }
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
    uint8_t *kind; /* per call: its own problem, 0 none, 1 sizes, 2 dtypes (check_intrinsic_calls) */
} checker;

enum { SIG_TYPE, SIG_SIZE, SIG_DTYPE };

static bool shapes_have_tensor(const fa_store *store, uint32_t id) { return has_tensor(fa_store_shapes(store, id)); }

/* What a call's members must agree on, as a hash. Shapes, dtype sets and types are interned in
 * the store, so their ids (dtype lists: their set key) stand for their contents. */
static uint64_t call_signature(const checker *k, const fa_call *c, int what) {
    const fa_store *store = k->in->store;
    uint64_t h = 0x5151;
    for (uint32_t i = 0; i < c->nentries; i++) {
        const fa_entry *e = fa_call_entry(k->m, k->in, c, i);
        const fa_opinfo *n = fa_store_op(store, e->name);
        if (what == SIG_TYPE) {
            h = fa_key2(h, (uint64_t)(uintptr_t)n->type);
        } else if (n->flags & FA_OP_END_MARKER) {
            continue;
        } else if (what == SIG_SIZE) {
            if (!(n->flags & (FA_OP_ALL_TO_ALL | FA_OP_SCATTER))) h = fa_key2(fa_key2(h, 1), e->in_sizes);
            if (!(n->flags & (FA_OP_ALL_TO_ALL | FA_OP_GATHER))) h = fa_key2(fa_key2(h, 2), e->out_sizes);
        } else {
            if (!(n->flags & (FA_OP_SCATTER | FA_OP_BROADCAST)) && shapes_have_tensor(store, e->in_sizes))
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
    fa_imap counts = {0};
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
    for (uint32_t i = 0; i < c->nentries && at + 2 < len; i++)
        at += (size_t)snprintf(buf + at, len - at, "%s%s", i ? "+" : "", fa_store_op(k->in->store, fa_call_entry(k->m, k->in, c, i)->name)->type);
    return buf;
}

static void describe_pair(const checker *k, const fa_op *op, long odd_call, long rep_call, fa_finding *f, int what) {
    char a[300], b[300], ra[200], rb[200];
    const fa_call *x = &k->m->calls[op->first_call + odd_call];
    const fa_call *y = rep_call >= 0 ? &k->m->calls[op->first_call + rep_call] : NULL;
    char *odd_ranks = fa_ranks_format(f->ranks.v, f->ranks.n), *other_ranks = fa_ranks_format(f->others.v, f->others.n);
    fr_entry ex_full, ey_full;
    fa_call_expand(k->m, k->in, x, 0, &ex_full);
    if (y) fa_call_expand(k->m, k->in, y, 0, &ey_full);
    const fr_entry *ex = &ex_full, *ey = y ? &ey_full : NULL;
    if (what == SIG_TYPE) {
        call_types(k, x, a, sizeof a);
        if (y) call_types(k, y, b, sizeof b);
        if (y) fa_finding_set_detail(f, "rank%s %s issued %s where rank%s %s issued %s", f->ranks.n > 1 ? "s" : "", odd_ranks, a,
                                     f->others.n > 1 ? "s" : "", other_ranks, b);
        else fa_finding_set_detail(f, "ranks %s disagree on the collective's type (rank %lld issued %s)", odd_ranks,
                                   (long long)k->groups->v[op->group].members[x->member], a);
    } else if (what == SIG_SIZE) {
        fa_shapes_text(&ex->input_sizes, a, sizeof a);
        fa_shapes_text(&ex->output_sizes, ra, sizeof ra);
        if (ey) {
            fa_shapes_text(&ey->input_sizes, b, sizeof b);
            fa_shapes_text(&ey->output_sizes, rb, sizeof rb);
            fa_finding_set_detail(f, "rank%s %s: sizes %s -> %s; rank%s %s: %s -> %s", f->ranks.n > 1 ? "s" : "", odd_ranks, a, ra,
                                  f->others.n > 1 ? "s" : "", other_ranks, b, rb);
        } else {
            fa_finding_set_detail(f, "ranks %s disagree on sizes (rank %lld: %s -> %s)", odd_ranks,
                                  (long long)k->groups->v[op->group].members[x->member], a, ra);
        }
    } else {
        fa_finding_set_detail(f, "rank%s %s use dtypes %s -> %s%s%s%s%s", f->ranks.n > 1 ? "s" : "", odd_ranks,
                              ex->input_dtypes.count ? ex->input_dtypes.items[0] : "-",
                              ex->output_dtypes.count ? ex->output_dtypes.items[0] : "-", ey ? "; ranks " : "", ey ? other_ranks : "",
                              ey ? " use " : "", ey ? (ey->input_dtypes.count ? ey->input_dtypes.items[0] : "-") : "");
    }
    free(odd_ranks);
    free(other_ranks);
}

/* Whether an entry may be inconsistent in itself, from interned ids alone (equal ids are equal
 * contents, dtype lists compare as sets through their set keys): the common, consistent case
 * costs no string or shape comparison. */
static bool may_be_inconsistent(const fa_store *store, const fa_entry *e, uint32_t flags, int64_t group_size) {
    if ((flags & FA_OP_ALL_REDUCE) && e->in_sizes != e->out_sizes) return true;
    if ((flags & FA_OP_ALL_GATHER) && fa_store_numel(store, e->out_sizes) != fa_store_numel(store, e->in_sizes) * group_size) return true;
    if ((flags & FA_OP_REDUCE_SCATTER) && fa_store_numel(store, e->in_sizes) != fa_store_numel(store, e->out_sizes) * group_size) return true;
    return !(flags & (FA_OP_SCATTER | FA_OP_GATHER | FA_OP_BROADCAST)) &&
           fa_store_strings_set(store, e->in_dtypes) != fa_store_strings_set(store, e->out_dtypes);
}

/* One call's own consistency (all_reduce in==out, all_gather/reduce_scatter numel, in/out dtype). */
static fa_finding_kind intrinsic_problem(const checker *k, const fa_call *c, int64_t group_size, char *why, size_t len) {
    for (uint32_t i = 0; i < c->nentries; i++) {
        const fa_entry *x = fa_call_entry(k->m, k->in, c, i);
        const fa_opinfo *n = fa_store_op(k->in->store, x->name);
        if (!n->parsed || !may_be_inconsistent(k->in->store, x, n->flags, group_size)) continue;
        fr_entry full, *e = &full;
        fa_call_expand(k->m, k->in, c, i, &full);
        if (check_intrinsic(e, e, n->flags, group_size, why, len) != FA_FULLY_MATCHED) return FA_SIZE_MISMATCH;
        if (own_dtypes_disagree(e, n->flags)) {
            snprintf(why, len, "input dtype %s but output dtype %s", e->input_dtypes.items[0], e->output_dtypes.items[0]);
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
    char why[300] = "", first_why[2][300] = {"", ""};
    size_t bad[2] = {0, 0};
    for (uint32_t i = 0; i < op->ncalls; i++) {
        fa_finding_kind kind = intrinsic_problem(k, &k->m->calls[op->first_call + i], g->nmembers, why, sizeof why);
        k->kind[i] = (uint8_t)(kind == FA_SIZE_MISMATCH ? 1 : kind == FA_DTYPE_MISMATCH ? 2 : 0);
        if (k->kind[i] && bad[k->kind[i] - 1]++ == 0) memcpy(first_why[k->kind[i] - 1], why, sizeof why);
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
static bool all_to_all_totals_differ(const checker *k, const fa_op *op, int64_t *in_total, int64_t *out_total) {
    const fa_group *g = &k->groups->v[op->group];
    *in_total = *out_total = 0;
    if (!is_all_to_all(op->type) || op->ncalls != g->nmembers) return false; /* totals need every member */
    for (uint32_t i = 0; i < op->ncalls; i++) {
        const fa_call *c = &k->m->calls[op->first_call + i];
        for (uint32_t j = 0; j < c->nentries; j++) {
            const fa_entry *e = fa_call_entry(k->m, k->in, c, j);
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
        fa_finding_set_detail(f, "the members send %lld elements in total but receive %lld; the dumps do not say whose split is wrong",
                              (long long)in_total, (long long)out_total);
}

static void set_representative(checker *k, fa_op *op, long rep_call) {
    const fa_call *c = &k->m->calls[op->first_call + (rep_call >= 0 ? rep_call : 0)];
    op->rep = fa_call_entry(k->m, k->in, c, c->nentries - 1); /* a bundle shows its end marker */
    op->rep_rank_index = c->rank_index;
    op->type = fa_store_op(k->in->store, fa_call_entry(k->m, k->in, c, 0)->name)->type;
}

/* fa_match_entries for a send/recv pair, with the names already parsed in the store. */
static bool p2p_pair_matches(const fa_store *store, const fa_entry *a, const fr_entry *ea, const fa_entry *b, const fr_entry *eb) {
    const fa_opinfo *ia = fa_store_op(store, a->name), *ib = fa_store_op(store, b->name);
    if (!ia->parsed || !ib->parsed) return false;
    fa_opname na = {.is_send = ia->is_send, .is_recv = ia->is_recv, .src = ia->src, .dst = ia->dst};
    fa_opname nb = {.is_send = ib->is_send, .is_recv = ib->is_recv, .src = ib->src, .dst = ib->dst};
    if (!na.is_send && !na.is_recv) return fa_match_entries(ea, eb, 2, NULL, 0) == FA_FULLY_MATCHED;
    return match_p2p(&na, ea, &nb, eb) == FA_FULLY_MATCHED;
}

static void check_op(checker *k, size_t op_index) {
    fa_op *op = &k->m->ops[op_index];
    if (op->ncalls == 0) return;
    set_representative(k, op, 0);
    if (op->is_p2p) {
        if (op->ncalls == 2) {
            const fa_call *a = &k->m->calls[op->first_call], *b = &k->m->calls[op->first_call + 1];
            fr_entry ea, eb;
            fa_call_expand(k->m, k->in, a, 0, &ea);
            fa_call_expand(k->m, k->in, b, 0, &eb);
            if (!p2p_pair_matches(k->in->store, fa_call_entry(k->m, k->in, a, 0), &ea, fa_call_entry(k->m, k->in, b, 0), &eb)) {
                k->odd[0] = k->odd[1] = true;
                fa_finding *f = add_mismatch(k, op_index, FA_SIZE_MISMATCH);
                char x[200], y[200];
                fa_shapes_text(&ea.input_sizes, x, sizeof x);
                fa_shapes_text(&eb.output_sizes, y, sizeof y);
                if (f) fa_finding_set_detail(f, "send %lld->%lld carries %s but the recv expects %s", (long long)op->src, (long long)op->dst, x, y);
            }
        }
        return;
    }
    static const int dims[] = {SIG_TYPE, SIG_SIZE, SIG_DTYPE};
    static const fa_finding_kind kinds[] = {FA_TYPE_MISMATCH, FA_SIZE_MISMATCH, FA_DTYPE_MISMATCH};
    for (int d = 0; d < 3; d++) {
        for (uint32_t i = 0; i < op->ncalls; i++) k->sig[i] = call_signature(k, &k->m->calls[op->first_call + i], dims[d]);
        long rep = mark_minority(k, op->ncalls);
        bool disagree = false;
        for (uint32_t i = 0; i < op->ncalls && rep < 0; i++) disagree |= k->sig[i] != k->sig[0];
        if (rep < 0 && !disagree) continue;
        if (rep >= 0) set_representative(k, op, rep);
        long odd_call = -1;
        for (uint32_t i = 0; i < op->ncalls; i++)
            if (k->odd[i] && (odd_call < 0 || (rep < 0 && (long)i != 0))) odd_call = odd_call < 0 ? (long)i : odd_call;
        fa_finding *f = add_mismatch(k, op_index, kinds[d]);
        if (f) describe_pair(k, op, odd_call, rep >= 0 ? rep : (op->ncalls > 1 ? 1 : -1), f, dims[d]);
        if (dims[d] == SIG_TYPE) return; /* sizes of different collectives do not compare */
    }
    if (!op->mismatch) check_intrinsic_calls(k, op_index);
    if (!op->mismatch) check_all_to_all_totals(k, op_index);
}

/* Whether check_op would find nothing wrong with op_index: every call agrees on type, sizes and
 * dtypes, none is inconsistent in itself, all_to_all totals add up (collectives), the pair
 * matches (send/recv). Sets the op's representative as check_op does; reads everything else. */
static bool op_is_clean(checker *k, size_t op_index) {
    fa_op *op = &k->m->ops[op_index];
    if (op->ncalls == 0) return true;
    set_representative(k, op, 0);
    if (op->is_p2p) {
        if (op->ncalls != 2) return true;
        const fa_call *a = &k->m->calls[op->first_call], *b = &k->m->calls[op->first_call + 1];
        fr_entry ea, eb;
        fa_call_expand(k->m, k->in, a, 0, &ea);
        fa_call_expand(k->m, k->in, b, 0, &eb);
        return p2p_pair_matches(k->in->store, fa_call_entry(k->m, k->in, a, 0), &ea, fa_call_entry(k->m, k->in, b, 0), &eb);
    }
    static const int dims[] = {SIG_TYPE, SIG_SIZE, SIG_DTYPE};
    for (int d = 0; d < 3; d++) {
        uint64_t first = call_signature(k, &k->m->calls[op->first_call], dims[d]);
        for (uint32_t i = 1; i < op->ncalls; i++)
            if (call_signature(k, &k->m->calls[op->first_call + i], dims[d]) != first) return false;
    }
    char why[300];
    uint32_t nmembers = k->groups->v[op->group].nmembers;
    for (uint32_t i = 0; i < op->ncalls; i++)
        if (intrinsic_problem(k, &k->m->calls[op->first_call + i], nmembers, why, sizeof why) != FA_MISSING_RANKS) return false;
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
    uint8_t *clean; /* per op: 1 when screened clean */
    atomic_size_t next;
} screen_job;

enum { SCREEN_CHUNK = 1024 };

static void *screen_worker(void *arg) {
    screen_job *job = arg;
    checker k = {job->in, job->groups, job->m, NULL, 0, NULL, NULL, NULL, NULL};
    for (;;) {
        size_t start = atomic_fetch_add(&job->next, SCREEN_CHUNK);
        if (start >= job->m->nops) break;
        size_t end = start + SCREEN_CHUNK < job->m->nops ? start + SCREEN_CHUNK : job->m->nops;
        for (size_t i = start; i < end; i++) job->clean[i] = op_is_clean(&k, i);
    }
    return NULL;
}

static void screen_ops(const fa_input *in, const fa_groups *groups, fa_match *m, int jobs, uint8_t *clean) {
    screen_job job = {in, groups, m, clean, 0};
    if (jobs <= 0) {
        long cores = sysconf(_SC_NPROCESSORS_ONLN);
        jobs = cores > 0 ? (int)cores : 1;
    }
    size_t chunks = (m->nops + SCREEN_CHUNK - 1) / SCREEN_CHUNK;
    if ((size_t)jobs > chunks) jobs = chunks ? (int)chunks : 1;
    pthread_t threads[64];
    int started = 0;
    for (int t = 0; t < jobs - 1 && t < 64; t++)
        if (pthread_create(&threads[started], NULL, screen_worker, &job) == 0) started++;
    screen_worker(&job); /* the calling thread works too */
    for (int t = 0; t < started; t++) pthread_join(threads[t], NULL);
}

static int check_all(const fa_input *in, const fa_groups *groups, fa_match *m, int cap, int jobs, fa_findings *findings) {
    uint32_t widest = 1;
    for (size_t i = 0; i < m->nops; i++)
        if (m->ops[i].ncalls > widest) widest = m->ops[i].ncalls;
    uint8_t *clean = calloc(m->nops + 1, 1);
    if (!clean) return -1;
    screen_ops(in, groups, m, jobs, clean);
    checker k = {in, groups, m, findings, cap, calloc(groups->n + 1, sizeof(size_t)), calloc(widest, sizeof(uint64_t)),
                 calloc(widest, sizeof(bool)), calloc(widest, sizeof(uint8_t))};
    if (!k.listed_per_group || !k.sig || !k.odd || !k.kind) {
        free(k.listed_per_group);
        free(k.sig);
        free(k.odd);
        free(k.kind);
        free(clean);
        return -1;
    }
    for (size_t i = 0; i < m->nops; i++)
        if (!clean[i]) check_op(&k, i);
    free(clean);
    /* p2p with one side absent: the verdict weighs it; here it is recorded */
    for (size_t i = 0; i < m->nops; i++) {
        fa_op *op = &m->ops[i];
        if (!op->unmatched || op->ncalls == 0) continue;
        const fa_call *c = &m->calls[op->first_call];
        if (c->state == FR_STATE_COMPLETED) continue;
        fa_finding *f = fa_findings_add(findings, FA_P2P_UNMATCHED, (long)op->group, (long)i);
        if (!f) break;
        f->listed = k.listed_per_group[op->group]++ < (size_t)cap;
        bool sender_posted = c->member == fa_group_position(&groups->v[op->group], op->src);
        fa_ranks_add(&f->ranks, sender_posted ? op->dst : op->src);
        fa_ranks_add(&f->others, sender_posted ? op->src : op->dst);
        fa_finding_set_detail(f, sender_posted ? "rank %lld sends to rank %lld (p2p #%lld); rank %lld has no matching recv"
                                               : "rank %lld receives from rank %lld (p2p #%lld); rank %lld has no matching send",
                              (long long)(sender_posted ? op->src : op->dst), (long long)(sender_posted ? op->dst : op->src),
                              (long long)op->seq, (long long)(sender_posted ? op->dst : op->src));
    }
    free(k.listed_per_group);
    free(k.sig);
    free(k.odd);
    free(k.kind);
    return 0;
}

/* The walk's per-call scratch, read for the last time by place_collective_calls. */
static void free_pending(builder *b) {
    free(b->pend_op);
    free(b->pend_n);
    free(b->pend_state);
    free(b->rank_pend_at);
    free(b->rank_refs_at);
    free(b->entry_call);
    b->pend_op = b->pend_n = NULL;
    b->pend_state = NULL;
    b->rank_pend_at = b->rank_refs_at = NULL;
    b->entry_call = NULL;
}

/* ---------------------------------------------------------------- public ------------ */

int fa_match_build(const fa_input *in, const fa_groups *groups, int mismatch_cap, int jobs, fa_match *m,
                   fa_findings *findings, fr_error *err) {
    memset(m, 0, sizeof *m);
    builder b = {0};
    b.in = in;
    b.groups = groups;
    b.m = m;
    size_t nviews = 0;
    m->view_at = calloc(groups->n + 1, sizeof *m->view_at);
    for (size_t g = 0; g < groups->n; g++) {
        m->view_at[g] = nviews;
        nviews += groups->v[g].nmembers;
    }
    m->views = calloc(nviews + 1, sizeof *m->views);
    for (size_t i = 0; i < nviews; i++) m->views[i] = (fa_view){-1, -1, -1, false, false};
    m->rank_newest_pending = calloc(in->nranks + 1, sizeof *m->rank_newest_pending);
    b.open = calloc(groups->n + 1, sizeof *b.open);
    b.touched = calloc(groups->n + 1, sizeof *b.touched);
    b.group_pos = malloc((groups->n + 1) * sizeof *b.group_pos);
    b.rank_pend_at = calloc(in->nranks + 1, sizeof *b.rank_pend_at);
    b.rank_refs_at = calloc(in->nranks + 1, sizeof *b.rank_refs_at);
    int rc = (m->view_at && m->views && m->rank_newest_pending && b.open && b.touched && b.group_pos && b.rank_pend_at &&
              b.rank_refs_at) ? 0 : -1;
    for (size_t g = 0; rc == 0 && g <= groups->n; g++) b.group_pos[g] = -1;
    bool timing = fa_timing_wanted();
    double t = fa_clock();
    for (size_t r = 0; rc == 0 && r < in->nranks; r++) rc = walk_rank(&b, (uint32_t)r);
    /* Each stage's scratch is freed as soon as its stage ends, not with the rest below: the op
     * index, the pending calls and the p2p records are ~380 MB at 16k ranks, and holding them
     * while pairing and checking allocate made them part of the peak RSS (3.7 GB, 3.3 GB without).
     * First-touch page faults of that peak are most of the run's system time. */
    fa_imap_free(&b.op_index);
    if (timing) fa_timing_note("  walk", &t);
    if (rc == 0) rc = place_collective_calls(&b);
    free_pending(&b);
    if (timing) fa_timing_note("  place", &t);
    if (rc == 0) rc = pair_p2p(&b);
    free(b.p2p);
    b.p2p = NULL;
    if (rc == 0) sort_op_members(m);
    if (timing) fa_timing_note("  p2p", &t);
    if (rc == 0) fold_status(in, groups, m);
    if (rc == 0) rc = check_all(in, groups, m, mismatch_cap, jobs, findings);
    if (timing) fa_timing_note("  check", &t);
    fa_imap_free(&b.op_index);
    free(b.p2p);
    free(b.open);
    free(b.touched);
    free(b.group_pos);
    free(b.rank_calls);
    free(b.pend_op);
    free(b.pend_n);
    free(b.pend_state);
    free(b.rank_pend_at);
    free(b.rank_refs_at);
    free(b.entry_call);
    free(b.pg_group);
    free(b.pg_pos);
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
    memset(m, 0, sizeof *m);
}

const fa_call *fa_op_call(const fa_match *m, size_t op, uint32_t member) {
    const fa_op *o = &m->ops[op];
    size_t lo = o->first_call, hi = (size_t)o->first_call + o->ncalls;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (m->calls[mid].member < member) lo = mid + 1;
        else hi = mid;
    }
    return lo < (size_t)o->first_call + o->ncalls && m->calls[lo].member == member ? &m->calls[lo] : NULL;
}

static fa_member_state from_state(fr_state s) {
    return s == FR_STATE_COMPLETED ? FA_MS_COMPLETED : s == FR_STATE_STARTED ? FA_MS_STARTED : FA_MS_SCHEDULED;
}

fa_member_state fa_op_member_state(const fa_match *m, const fa_groups *groups, size_t op, uint32_t member) {
    return fa_op_member_state_of(m, groups, op, member, fa_op_call(m, op, member));
}

fa_member_state fa_op_member_state_of(const fa_match *m, const fa_groups *groups, size_t op, uint32_t member, const fa_call *c) {
    const fa_op *o = &m->ops[op];
    if (c) return from_state(c->state);
    const fa_group *g = &groups->v[o->group];
    if (member >= g->nmembers || g->member_input[member] < 0) return FA_MS_NO_DUMP;
    if (o->is_p2p) return FA_MS_NEVER;
    const fa_view *v = &m->views[m->view_at[o->group] + member];
    if (o->seq <= v->completed_max) return FA_MS_COMPLETED;
    if (o->seq <= v->issued_max) return FA_MS_IN_FLIGHT;
    return FA_MS_NEVER;
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
