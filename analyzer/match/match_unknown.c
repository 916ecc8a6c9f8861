/* match_unknown.c — what is unknown never disagrees. A dump whose ring wrapped lost its oldest
 * records: the call holding its first entry may be the cut tail of a coalesced bundle, or a
 * later part of a bundle the walk split where its type changed, so its type and sizes say
 * nothing against its peers'. Such calls take the first whole call's signature before the
 * majority is counted (fa_mc_unknown_agrees).
 */
#include "match/match_check.h"

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
void fa_mc_unknown_agrees(checker *k, const fa_op *op) {
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
