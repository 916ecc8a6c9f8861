/* match_majority.c — who disagrees with whom. Each call's property (its type as NCCL runs it,
 * its sizes, its dtypes) is hashed (fa_mc_call_signature: interned ids stand for contents, an
 * end marker beside operations names none), and the calls outside the strict majority of those
 * hashes are the odd ones (fa_mc_mark_minority; without a majority, two members or a tie, every
 * call is). The finding names the odd ranks against the others and says what each side issued
 * (fa_mc_describe_pair), the sentence contrasting one odd call with the majority's
 * representative.
 */
#include "match/match_check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
uint64_t fa_mc_call_signature(const checker *k, const fa_call *c, int what) {
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
long fa_mc_mark_minority(checker *k, uint32_t ncalls) {
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

fa_finding *fa_mc_add_mismatch(checker *k, size_t op_index, fa_finding_kind kind) {
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

const char *fa_mc_call_types(const checker *k, const fa_call *c, char *buf, size_t len) {
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
void fa_mc_dtypes_pair(const fr_entry *e, char *buf, size_t len) {
    const char *in = e->input_dtypes.count ? e->input_dtypes.items[0] : "-",
               *out = e->output_dtypes.count ? e->output_dtypes.items[0] : "-";
    if (strcmp(in, out) == 0)
        snprintf(buf, len, "%s", in);
    else
        snprintf(buf, len, "%s -> %s", in, out);
}

void fa_mc_describe_pair(const checker *k, const fa_op *op, long odd_call, long rep_call,
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
        fa_mc_call_types(k, x, a, sizeof a);
        if (y) fa_mc_call_types(k, y, b, sizeof b);
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
        fa_mc_dtypes_pair(ex, a, sizeof a);
        if (ey) fa_mc_dtypes_pair(ey, b, sizeof b);
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
