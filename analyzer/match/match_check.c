/* match_check.c — the agreement checks (step 4 of match.c): all cores sort each op's calls by
 * member and screen it; one thread then reports on the ones that are not clean, in op order
 * (check_all): the minority whose type, size or dtype differs, a call inconsistent in itself,
 * all_to_all totals that differ, a send/recv pair that disagrees. An op whose calls are all one
 * entry with the same interned values (fa_walk.uniform) is screened by its first call alone.
 * What is unknown never disagrees: a call cut short by a ring that wrapped agrees with the whole
 * ones, and a group rebuilt from the entries is held to the size its collectives state.
 */
#include "match/match_build.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/parallel.h"

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
    return fa_mb_has_tensor(fa_store_shapes(store, id));
}

/* An op type as NCCL runs it: PyTorch's NCCL barrier is an all_reduce of one float recorded as
 * "all_reduce_barrier", so against a peer's all_reduce of one float it is the same collective
 * (sizes and dtypes still compare; tests/sim seed 1936: a barrier met a peer's all_reduce of one
 * float, no mismatch for NCCL, a hang). Hashed by content: the two names are two strings. */
static uint64_t nccl_type_key(const char *type) {
    if (strcmp(type, "all_reduce_barrier") == 0) type = "all_reduce";
    return fa_hash_bytes(type, strlen(type));
}

/* What a call's members must agree on, as a hash. Shapes and dtype sets are interned in the
 * store, so their ids (dtype lists: their set key) stand for their contents. */
static uint64_t call_signature(const checker *k, const fa_call *c, int what) {
    const fa_store *store = k->in->store;
    uint64_t h = 0x5151;
    for (uint32_t i = 0; i < fa_call_nentries(k->m, c); i++) {
        const fa_traits *e = fa_entry_traits(store, fa_call_entry(k->m, k->in, c, i));
        const fa_opinfo *n = fa_store_op(store, e->name);
        if (what == SIG_TYPE) { /* an end marker beside operations names none (an only-active
                                 * dump drops a completed one, its bundle left scheduled) */
            if (!(n->flags & FA_OP_END_MARKER) || fa_call_nentries(k->m, c) == 1)
                h = fa_key2(h, nccl_type_key(n->type));
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
    char *odd_ranks, *other_ranks;
    if (y && !f->others.n) {
        /* a tie lists both sides as odd (no majority): the sentence contrasts the two calls'
         * own ranks, never "ranks 2,4 issued all_gather where rank  issued all_reduce" */
        const int64_t *members = k->groups->v[op->group].members;
        odd_ranks = fa_ranks_format(&members[x->member], 1);
        other_ranks = fa_ranks_format(&members[y->member], 1);
    } else {
        odd_ranks = fa_ranks_format(f->ranks.v, f->ranks.n);
        other_ranks = fa_ranks_format(f->others.v, f->others.n);
    }
    size_t nodd = y && !f->others.n ? 1 : f->ranks.n, nother = y && !f->others.n ? 1 : f->others.n;
    fr_entry ex_full, ey_full;
    fa_call_expand(k->m, k->in, x, 0, &ex_full);
    if (y) fa_call_expand(k->m, k->in, y, 0, &ey_full);
    const fr_entry *ex = &ex_full, *ey = y ? &ey_full : NULL;
    if (what == SIG_TYPE) {
        call_types(k, x, a, sizeof a);
        if (y) call_types(k, y, b, sizeof b);
        if (y) {
            fa_finding_set_detail(f, "rank%s %s issued %s where rank%s %s issued %s",
                                  nodd > 1 ? "s" : "", odd_ranks, a, nother > 1 ? "s" : "",
                                  other_ranks, b);
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
                                  nodd > 1 ? "s" : "", odd_ranks, a, ra, nother > 1 ? "s" : "",
                                  other_ranks, b, rb);
        } else {
            fa_finding_set_detail(f, "ranks %s disagree on sizes (rank %lld: %s -> %s)", odd_ranks,
                                  (long long)k->groups->v[op->group].members[x->member], a, ra);
        }
    } else {
        dtypes_pair(ex, a, sizeof a);
        if (ey) dtypes_pair(ey, b, sizeof b);
        fa_finding_set_detail(f, "rank%s %s use%s dtypes %s%s%s%s%s%s", nodd > 1 ? "s" : "",
                              odd_ranks, nodd > 1 ? "" : "s", a, ey ? "; rank" : "",
                              ey && nother > 1 ? "s "
                              : ey             ? " "
                                               : "",
                              ey ? other_ranks : "", ey ? (nother > 1 ? " use " : " uses ") : "",
                              ey ? b : "");
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
        if (fa_mb_check_intrinsic(e, e, n->flags, group_size, why, len) != FA_FULLY_MATCHED)
            return FA_SIZE_MISMATCH;
        if (fa_mb_own_dtypes_disagree(e, n->flags)) {
            snprintf(why, len, "input dtype %s but output dtype %s", e->input_dtypes.items[0],
                     e->output_dtypes.items[0]);
            return FA_DTYPE_MISMATCH;
        }
    }
    return FA_MISSING_RANKS; /* = no problem */
}

/* The group size to hold call c's entries to: the group's, or, for a group rebuilt from the
 * entries (a member without a dump may belong too: the group is at least as large as seen), the
 * size its all_gather or reduce_scatter states when that is a whole multiple no smaller. */
static int64_t size_to_check(const checker *k, const fa_call *c, const fa_group *g) {
    if (!g->inferred) return g->nmembers;
    for (uint32_t i = 0; i < fa_call_nentries(k->m, c); i++) {
        const fa_traits *x = fa_entry_traits(k->in->store, fa_call_entry(k->m, k->in, c, i));
        uint32_t flags = fa_store_op(k->in->store, x->name)->flags;
        int64_t in = fa_store_numel(k->in->store, x->in_sizes),
                out = fa_store_numel(k->in->store, x->out_sizes);
        int64_t small = flags & FA_OP_ALL_GATHER       ? in
                        : flags & FA_OP_REDUCE_SCATTER ? out
                                                       : 0,
                big = flags & FA_OP_ALL_GATHER ? out : in;
        if (small > 0 && big % small == 0 && big / small >= (int64_t)g->nmembers)
            return big / small;
    }
    return g->nmembers;
}

/* Each call's own problem is found once (it does not depend on the pass); the size problems
 * are reported first, then the dtype ones, each with the first offending call's reason. */
static void check_intrinsic_calls(checker *k, size_t op_index) {
    fa_op *op = &k->m->ops[op_index];
    const fa_group *g = &k->groups->v[op->group];
    char why[300] = "", first_why[2][300] = { "", "" };
    size_t bad[2] = { 0, 0 };
    for (uint32_t i = 0; i < op->ncalls; i++) {
        const fa_call *c = &k->m->calls[op->first_call + i];
        fa_finding_kind kind = intrinsic_problem(k, c, size_to_check(k, c, g), why, sizeof why);
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
    if (!fa_mb_is_all_to_all(fa_op_type(k->m, op)) || op->ncalls != g->nmembers)
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
    return fa_mb_match_p2p(&na, ea, &nb, eb) == FA_FULLY_MATCHED;
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

/* Whether call c holds its rank's oldest entry in a dump that dropped earlier records (a ring
 * that wrapped; its first record_id is not 0). */
static bool at_ring_head(const checker *k, const fa_call *c) {
    const fa_dump *dump = k->in->ranks[c->rank_index].dump;
    return fa_call_entry_index(k->m, c, 0) == 0 && fa_entry_record_id(dump, &dump->entries[0]) > 0;
}

/* Whether the call is at a wrapped ring's head (at_ring_head) and has fewer entries than a peer's
 * call (`most`):
 * its bundle lost its first entries (a coalesced end marker alone), so its type and sizes say
 * nothing against its peers'. (Also reading a ring-head bundle closed by its end marker as cut,
 * whatever its length, fixed sim 856 and 2494 but made five hangs mismatches on 0:10000 — 3115,
 * 3508, 3862, 4710, 8042 — and was withdrawn; split_part fixes those two.) */
static bool head_cut(const checker *k, const fa_op *op, const fa_call *c, uint32_t most) {
    if (!(fa_call_nentries(k->m, c) < most && at_ring_head(k, c))) return false;
    /* A ring keeps the newest records, so a bundle that lost its head kept its end marker,
     * unless an only-active dump dropped that marker because the bundle completed. A call that
     * ends without a marker and that neither its state nor its rank's counters say completed
     * is whole: a plain collective that begins the dump (tests/sim seed 2003: only-active, a
     * single all_gather read as the cut tail of a peer's bundle). Gloo writes no end markers. */
    const fa_dump *dump = k->in->ranks[c->rank_index].dump;
    if (dump->blocks_caller) return true;
    const fa_store *store = k->in->store;
    const fa_entry *last = fa_call_entry(k->m, k->in, c, fa_call_nentries(k->m, c) - 1);
    if (fa_store_op(store, fa_entry_traits(store, last)->name)->flags & FA_OP_END_MARKER)
        return true;
    return c->state == FR_STATE_COMPLETED ||
           op->seq <= view_of(k->m, op->group, c->member)->completed_max;
}

/* Whether call c is the first part of a bundle that the walk split where its type changed
 * (continues_call): its rank's next entry is a collective of the same group and seq. The parts
 * of such a seq are that op and the ones after it, counted from the bundle's first entry; a
 * ring that wrapped inside the bundle counts them from the first entry it kept, so its head call
 * may be a later part than the op says (tests/sim seeds 106 and 904: a peer's whole bundle
 * all_reduce, broadcast, coalesced read against the wrapped ranks' broadcast, coalesced). */
static bool split_part(const checker *k, const fa_call *c) {
    const fa_dump *d = k->in->ranks[c->rank_index].dump;
    uint32_t last = fa_call_entry_index(k->m, c, fa_call_nentries(k->m, c) - 1);
    if (last + 1 >= d->nentries) return false;
    const fa_entry *a = &d->entries[last], *b = &d->entries[last + 1];
    const fa_traits *ta = fa_entry_traits(k->in->store, a), *tb = fa_entry_traits(k->in->store, b);
    if (ta->pg != tb->pg || tb->is_p2p ||
        (fa_store_op(k->in->store, tb->name)->flags & FA_OP_END_MARKER))
        return false;
    return fa_entry_coll_seq(d, a) == fa_entry_coll_seq(d, b);
}

/* Whether call c's type and sizes are unknown: cut short by the ring (head_cut), or at a wrapped
 * ring's head in an op that is the first part of a split bundle (`split`, split_part). */
static bool call_unknown(const checker *k, const fa_op *op, const fa_call *c, uint32_t most,
                         bool split) {
    return head_cut(k, op, c, most) || (split && at_ring_head(k, c));
}

/* Calls cut short by the ring (head_cut), and calls at a wrapped ring's head in an op that is
 * the first part of a split bundle (split_part: they may be a later part), agree with the first
 * whole call: what is unknown is never read as a disagreement. */
static void unknown_agrees(checker *k, const fa_op *op) {
    uint32_t most = 0;
    bool split = false;
    for (uint32_t i = 0; i < op->ncalls; i++) {
        const fa_call *c = &k->m->calls[op->first_call + i];
        uint32_t n = fa_call_nentries(k->m, c);
        if (n > most) most = n;
        split = split || (!at_ring_head(k, c) && split_part(k, c));
    }
    long whole = -1;
    for (uint32_t i = 0; i < op->ncalls && whole < 0; i++)
        if (!call_unknown(k, op, &k->m->calls[op->first_call + i], most, split)) whole = i;
    for (uint32_t i = 0; i < op->ncalls && whole >= 0; i++)
        if (call_unknown(k, op, &k->m->calls[op->first_call + i], most, split))
            k->sig[i] = k->sig[whole];
}

/* Whether a send/recv pair joins a record of a dump older than its peers' (fa_stale) to one of a
 * newer dump, paired by their order: the older window ends earlier, so its record may be an
 * earlier transfer than the other side's, and their disagreeing says nothing against the job
 * (tests/sim seeds 1711, 8776: rank 5's send of [[2]] against older rank 6's recv of [[1024]] in
 * a group of four). In a group of two both sides number their send/recv alike: records of one
 * number are one transfer, however old the dump. (Branch wt-skip8's f49480f, its rule 2.) */
static bool pair_spans_older_dump(const checker *k, const fa_op *op, const fa_call *a,
                                  const fa_call *b) {
    if (fa_stale_known(&k->m->rank_stale[a->rank_index]) ==
        fa_stale_known(&k->m->rank_stale[b->rank_index]))
        return false;
    const fa_dump *da = k->in->ranks[a->rank_index].dump, *db = k->in->ranks[b->rank_index].dump;
    return k->groups->v[op->group].nmembers != 2 ||
           fa_entry_p2p_seq(da, fa_call_entry(k->m, k->in, a, 0)) !=
               fa_entry_p2p_seq(db, fa_call_entry(k->m, k->in, b, 0));
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
            !(a->state == FR_STATE_COMPLETED && b->state == FR_STATE_COMPLETED) &&
            !pair_spans_older_dump(k, op, a, b)) {
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
        unknown_agrees(k, op);
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

/* ------------------------------------------------- collectives paired by their order ---- */

/* The recorder numbers a communicator's launches with one counter (a collective or a send/recv
 * batch takes the next number), while NCCL pairs a communicator's collectives by their order
 * alone: a member's k-th collective there meets every other member's k-th. Where members'
 * numbers diverge (one left a collective out, or issued one on the wrong communicator, and a
 * send/recv batch took the number), the same number is not the same collective: a member whose
 * entries in the group carry every launch number from 1 to its newest (no ring that wrapped, no
 * completed entry left out) shows which collective is its k-th, and two such members whose k-th
 * collectives differ in type, sizes or dtypes mismatch, as members of one op do (check_op). Only
 * groups where some member's window shows a number went to something else (the op check's
 * "never issued") are looked at; ordinals at which the members compared all carry one number are
 * the ops check_op has already judged. */
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
        call_types(k, x, a, sizeof a);
        call_types(k, y, b, sizeof b);
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
            dtypes_pair(&ex, a, sizeof a);
            dtypes_pair(&ey, b, sizeof b);
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
            k->sig[i] = call_signature(k, &k->m->calls[calls[i]], dims[dim]);
        bool disagree = false;
        for (uint32_t i = 0; i < n; i++) disagree |= k->sig[i] != k->sig[0];
        if (!disagree) continue;
        long rep = mark_minority(k, n);
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

/* Compares the group's members' collectives ordinal by ordinal (records [lo, hi) are the
 * group's, by view). */
static void compare_group_order(checker *k, uint32_t group, const launch_rec *r, size_t lo,
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

/* The pass over every group where a launch number went to something else (see above). Returns
 * -1 when out of memory. */
static int check_launch_order(checker *k) {
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

int fa_mb_check_all(const fa_input *in, const fa_groups *groups, fa_match *m, const fa_walk *walk,
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
    int rc = check_launch_order(&k);
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
    return rc;
}
