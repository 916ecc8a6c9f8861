/* match_intrinsic.c — what one op's calls can get wrong without any peer: a call inconsistent
 * in itself (all_reduce keeps its size, all_gather multiplies by the group size, reduce_scatter
 * divides by it, input and output dtypes agree), and an all_to_all whose members send more or
 * fewer elements in total than they receive. The common, consistent case is settled from the
 * store's interned ids; only a suspect entry is expanded and compared in full. A group rebuilt
 * from the entries is held to the size its collectives state.
 */
#include "match/match_check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
fa_finding_kind fa_mc_intrinsic_problem(const checker *k, const fa_call *c, int64_t group_size,
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
void fa_mc_check_intrinsic_calls(checker *k, size_t op_index) {
    fa_op *op = &k->m->ops[op_index];
    const fa_group *g = &k->groups->v[op->group];
    char why[300] = "", first_why[2][300] = { "", "" };
    size_t bad[2] = { 0, 0 };
    for (uint32_t i = 0; i < op->ncalls; i++) {
        const fa_call *c = &k->m->calls[op->first_call + i];
        fa_finding_kind kind =
            fa_mc_intrinsic_problem(k, c, size_to_check(k, c, g), why, sizeof why);
        k->kind[i] = (uint8_t)(kind == FA_SIZE_MISMATCH ? 1 : kind == FA_DTYPE_MISMATCH ? 2 : 0);
        if (k->kind[i] && bad[k->kind[i] - 1]++ == 0)
            memcpy(first_why[k->kind[i] - 1], why, sizeof why);
    }
    for (int pass = 0; pass < 2; pass++) {
        if (!bad[pass]) continue;
        for (uint32_t i = 0; i < op->ncalls; i++) k->odd[i] = k->kind[i] == pass + 1;
        fa_finding *f =
            fa_mc_add_mismatch(k, op_index, pass ? FA_DTYPE_MISMATCH : FA_SIZE_MISMATCH);
        if (!f) return;
        char *who = fa_ranks_format(f->ranks.v, f->ranks.n);
        fa_finding_set_detail(f, "rank%s %s: %s", f->ranks.n > 1 ? "s" : "", who, first_why[pass]);
        free(who);
    }
}

/* An all_to_all whose members send more or fewer elements in total than they receive. */
bool fa_mc_all_to_all_totals_differ(const checker *k, const fa_op *op, int64_t *in_total,
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

void fa_mc_check_all_to_all_totals(checker *k, size_t op_index) {
    fa_op *op = &k->m->ops[op_index];
    int64_t in_total, out_total;
    if (!fa_mc_all_to_all_totals_differ(k, op, &in_total, &out_total)) return;
    for (uint32_t i = 0; i < op->ncalls; i++) k->odd[i] = true;
    fa_finding *f = fa_mc_add_mismatch(k, op_index, FA_ALLTOALL_SIZE_MISMATCH);
    if (f)
        fa_finding_set_detail(f,
                              "the members send %lld elements in total but receive %lld; the dumps "
                              "do not say whose split is wrong",
                              (long long)in_total, (long long)out_total);
}
