/* verdict_order.c — the evidence of order: which of two ops a rank would issue first, and
 * whether it went past an op it never issued. A rank that others wait on for an op it never
 * issued, while it waits in another, is either blocked before that op (a victim) or skipped it
 * (the root). Its own history rarely says which, so the dumps of others are asked: the op's own
 * group when both ops are in it (their numbers), the ranks that issued both ops (program_order),
 * the rank's sink component and the sibling groups of the ops' families, which run the same
 * program (order_vote, sibling_vote; one_family, stands_for say which groups count), the sibling
 * stages for a send/recv (p2p_family_vote), and last the step before each op. A witness whose own
 * order is in doubt (accused) says nothing; a rank's lack of an entry counts only where its dump
 * proves it (absent_proven). verdict_sinks.c asks fa_vo_blocked_before to excuse victims and
 * fa_vo_went_past to find cycles that hold themselves.
 */
#include "verdict/verdict_order.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The record_id of input rank ri's collective entry in `group` with `seq`, or -1. */
static int64_t record_at(const decider *d, size_t ri, uint32_t group, int64_t seq) {
    const fa_dump *dump = d->in->ranks[ri].dump;
    for (uint32_t i = dump->nentries; i-- > 0;) {
        const fa_entry *e = &dump->entries[i];
        if (fa_entry_coll_seq(dump, e) != seq || fa_entry_traits(d->in->store, e)->is_p2p) continue;
        if (fa_groups_find(d->groups, ri, dump->pgs[fa_entry_pg(d->in->store, e)].name) ==
            (long)group)
            return fa_entry_record_id(dump, e);
    }
    return -1;
}

/* In a cycle of ranks that each wait in one op for another that never issued its own (a rank
 * skipped a collective and went on to the next group's), the rank's own history tells the
 * skipper from its victim: the step before, which of the two groups came first. When the op it
 * is pending in (group H, #t) comes before the one it is missing (group G, #s) in its program,
 * as H #t-1 came before G #s-1, it is blocked before reaching the missing op: a victim. In one
 * group (the recorder numbers send/recv batches and collectives alike, so a rank that left one
 * out holds another op at its number) the numbers say it: pending at #t < #s, a victim. */
/* The op nodes the rank waits in within its component, one at a time: *at walks its edges. */
static const fa_op *next_pending(const decider *d, size_t node, size_t *at) {
    while (*at < d->g.edge_at[node + 1]) {
        uint32_t x = d->g.edges[(*at)++];
        if (x < d->g.nrank_nodes || d->comp[x] != d->comp[node]) continue;
        const fa_op *pending = &d->m->ops[d->g.op_of_node[x - d->g.nrank_nodes]];
        if (!pending->is_p2p) return pending;
    }
    return NULL;
}

/* Whether undescribed groups a and b are one group shifted: of one size (two or more), b's
 * member at each group rank that of a plus one offset, every member known. The groups of one
 * dimension of a Megatron or DeviceMesh layout are so ({12,44}, {16,48}); a group of another
 * dimension may be too (pipeline and embedding groups of two stages), so the callers match an
 * op's counterpart by its name and number as well. Two groups of the same members (offset 0)
 * are two dimensions, never one group shifted (sim seed 4619: rank 5's all_reduce #2 in one of
 * two groups {5,7} read as the counterpart of the reduce_scatter #2 of the other, which rank 7
 * never issued, so 7, blocked in a send, was named as having gone past it). */
static bool shifted(const fa_group *a, const fa_group *b) {
    if (a->nmembers != b->nmembers || a->nmembers < 2 || a->members[0] < 0 || b->members[0] < 0)
        return false;
    int64_t offset = b->members[0] - a->members[0];
    if (offset == 0) return false; /* the same members: another dimension, never a shift */
    for (uint32_t p = 1; p < a->nmembers; p++)
        if (a->members[p] < 0 || b->members[p] < 0 || b->members[p] - a->members[p] != offset)
            return false;
    return true;
}

/* Whether groups a and b share a member. The groups of one family partition the ranks: two that
 * share one are two dimensions under one description (real torch gloo jobs 62, 74, 194, 197,
 * 214: EXPERT_GROUP both for the pairs {0,1} {2,3} and for {0,2} {1,3}). */
static bool overlap(const fa_group *a, const fa_group *b) {
    for (uint32_t p = 0; p < a->nmembers; p++)
        if (a->members[p] >= 0 && fa_group_position(b, a->members[p]) >= 0) return true;
    return false;
}

/* Whether groups a and b are of one family (one description, named by the program: the groups
 * of an SPMD program's family run the same numbered collectives in the same order; without a
 * description, as the recorder and gloo jobs often leave them, one group shifted: tests/sim
 * seeds 4058, 5690, where a rank ran its data-parallel collective on its pipeline or tensor
 * group and only the shifted groups of the other ranks said which order the program runs). Groups
 * of one description are one family only at one size and without a shared member: a description
 * may name split groups of several sizes or dimensions (real torch gloo jobs, EXPERT_GROUP). */
bool fa_vo_one_family(const fa_group *a, const fa_group *b) {
    if (a == b) return true;
    if (fa_desc_says_nothing(a->desc) && fa_desc_says_nothing(b->desc)) return shifted(a, b);
    return a->desc[0] && strcmp(a->desc, "default_pg") != 0 && strcmp(a->desc, "undefined") != 0 &&
           strcmp(a->desc, b->desc) == 0 && a->nmembers == b->nmembers && !overlap(a, b);
}

/* Group g's family key into *key (fa_vo_one_family's terms): "D size desc" for a described
 * group, "S size offsets" for an undescribed one whose members are all known; false where no
 * other group can be of g's family (the default group, an undescribed group of one, or of an
 * unknown member). */
static bool family_key(const fa_group *g, char **key, size_t *cap) {
    bool nothing = fa_desc_says_nothing(g->desc);
    if (!nothing && strcmp(g->desc, "default_pg") == 0) return false;
    if (nothing && (g->nmembers < 2 || g->members[0] < 0)) return false;
    size_t need = 32 + (nothing ? 21 * (size_t)g->nmembers : strlen(g->desc));
    if (need > *cap) {
        char *grown = realloc(*key, need);
        if (!grown) return false;
        *key = grown, *cap = need;
    }
    size_t at = (size_t)snprintf(*key, *cap, "%c%u ", nothing ? 'S' : 'D', g->nmembers);
    if (!nothing) {
        memcpy(*key + at, g->desc, strlen(g->desc) + 1);
        return true;
    }
    for (uint32_t p = 1; p < g->nmembers; p++) {
        if (g->members[p] < 0) return false;
        at += (size_t)snprintf(*key + at, *cap - at, "%lld,",
                               (long long)(g->members[p] - g->members[0]));
    }
    return true;
}

/* Marks family f no partition where group g shares a member with an earlier group of it: the
 * first member for an undescribed group (shifted groups of one offset pattern are one group only
 * where their first members match), every member for a described one (overlap). */
static int note_members(const fa_group *g, uint32_t f, fa_imap *seen, bool *partition) {
    uint32_t upto = fa_desc_says_nothing(g->desc) ? 1 : g->nmembers;
    for (uint32_t p = 0; p < upto; p++) {
        if (g->members[p] < 0) continue;
        uint64_t key = fa_key2(f, (uint64_t)g->members[p]), any;
        if (fa_imap_get(seen, key, &any)) partition[f] = false; /* a hash clash errs safe */
        if (fa_imap_put(seen, key, 1) != 0) return -1;
    }
    return 0;
}

int fa_vo_families(const fa_groups *groups, fa_families *out) {
    memset(out, 0, sizeof *out);
    fa_smap by_key = { 0 };
    fa_imap seen = { 0 };
    char *key = NULL;
    size_t cap = 0;
    out->of = malloc((groups->n + 1) * sizeof *out->of);
    out->partition = malloc((groups->n + 1) * sizeof *out->partition);
    int rc = out->of && out->partition ? 0 : -1;
    for (size_t g = 0; rc == 0 && g < groups->n; g++) {
        out->of[g] = FA_NO_FAMILY;
        if (!family_key(&groups->v[g], &key, &cap)) continue;
        uint64_t f;
        if (!fa_smap_get(&by_key, key, &f)) {
            f = out->n;
            out->partition[out->n++] = true;
            rc = fa_smap_put(&by_key, key, f);
        }
        out->of[g] = (uint32_t)f;
        if (rc == 0) rc = note_members(&groups->v[g], (uint32_t)f, &seen, out->partition);
    }
    free(key);
    fa_smap_free(&by_key);
    fa_imap_free(&seen);
    if (rc != 0) fa_vo_families_free(out);
    return rc;
}

void fa_vo_families_free(fa_families *f) {
    free(f->of);
    free(f->partition);
    memset(f, 0, sizeof *f);
}

/* Whether group g may hold the counterpart of an op of group `of`, asked beside an op of group
 * `other`: of itself, or a group of its family, unless g is undescribed and of other's family
 * too (a pipeline and an embedding group of the same two stages are one group shifted each: an
 * all_reduce #1 in a rank's embedding group is no counterpart of an all_reduce #1 that another
 * ran in its pipeline group, nor of its embedding one, when either may be meant). */
static bool stands_for(const fa_group *g, const fa_group *of, const fa_group *other) {
    if (g == of) return true;
    if (!fa_vo_one_family(g, of)) return false;
    return !fa_desc_says_nothing(g->desc) || (g != other && !fa_vo_one_family(g, other));
}

/* The record_id of input rank ri's first collective entry numbered past op's in op's group or
 * one of its family (stands_for), or -1. A group issues its collectives in number order: the
 * rank issued op's counterpart before it, though its window (only-active, a ring) may have
 * dropped that one (sim seed 9679: stage 0's tensor-parallel all_reduce #6 before its embedding
 * all_reduce #2, #5 dropped, read as "embedding first" against a last stage pending in #5). */
static int64_t later_in_family(const decider *d, size_t ri, const fa_op *op, const fa_op *other) {
    const fa_dump *dump = d->in->ranks[ri].dump;
    for (uint32_t i = 0; i < dump->nentries; i++) {
        const fa_entry *e = &dump->entries[i];
        if (fa_entry_traits(d->in->store, e)->is_p2p || fa_entry_coll_seq(dump, e) <= op->seq)
            continue;
        long gi = fa_groups_find(d->groups, ri, dump->pgs[fa_entry_pg(d->in->store, e)].name);
        if (gi >= 0 &&
            stands_for(&d->groups->v[gi], &d->groups->v[op->group], &d->groups->v[other->group]))
            return fa_entry_record_id(dump, e);
    }
    return -1;
}

/* What input rank ri's history says of the order of `first` and `second` where its window
 * dropped one of them (at_first or at_second -1: only-active, a ring) but kept a later
 * collective of that one's group: +1 first before second, -1 second before first, 0 it cannot
 * say (the later one was issued after the other: the dropped one may lie on either side; or
 * both dropped). 2 where no such later collective speaks: the caller reads the records kept. */
static int dropped_order(const decider *d, size_t ri, const fa_op *first, const fa_op *second,
                         int64_t at_first, int64_t at_second) {
    if ((at_first < 0) == (at_second < 0)) return at_first < 0 ? 0 : 2;
    int64_t later = at_first < 0 ? later_in_family(d, ri, first, second)
                                 : later_in_family(d, ri, second, first);
    if (later < 0) return 2;
    if (at_first < 0) return later < at_second ? 1 : 0;
    return later < at_first ? -1 : 0;
}

enum { ORDER_WITNESSES = 8 };

/* What input rank wi's history says of the program's order: +1 when it issued the `first`
 * family's #first_seq before the `second` family's #second_seq, -1 after, 0 when it holds
 * only one of them (or neither). */
static int witness_order(const decider *d, size_t wi, const fa_op *first, const fa_op *second) {
    const fa_dump *dump = d->in->ranks[wi].dump;
    const fa_group *gf = &d->groups->v[first->group], *gs = &d->groups->v[second->group];
    int64_t at_first = -1, at_second = -1;
    for (uint32_t i = 0; i < dump->nentries && (at_first < 0 || at_second < 0); i++) {
        const fa_entry *e = &dump->entries[i];
        int64_t seq = fa_entry_coll_seq(dump, e);
        if ((seq != first->seq && seq != second->seq) || fa_entry_traits(d->in->store, e)->is_p2p)
            continue;
        long g = fa_groups_find(d->groups, wi, dump->pgs[fa_entry_pg(d->in->store, e)].name);
        if (g < 0) continue;
        if (at_first < 0 && seq == first->seq && stands_for(&d->groups->v[g], gf, gs))
            at_first = fa_entry_record_id(dump, e);
        else if (at_second < 0 && seq == second->seq && stands_for(&d->groups->v[g], gs, gf))
            at_second = fa_entry_record_id(dump, e);
    }
    int said = dropped_order(d, wi, first, second, at_first, at_second);
    if (said != 2) return said;
    return at_first < 0 || at_second < 0 ? 0 : at_first < at_second ? 1 : -1;
}

/* Whether input rank wi is itself waited on in an op it never issued: its own order is what is
 * in doubt (it may have gone where nobody else went), so it witnesses nothing of the program's
 * (sim seeds 1981, 836: a rank that ran an all_reduce in its TP group instead of its DP group
 * said its partner, blocked before that op, had left it out). Not a rank pending in that op's
 * group at an earlier number: it is blocked before the op, on its way there, and its order
 * stands (sim seed 3964: a rank stuck in its TP all_reduce, which its partner left out, with the
 * world's all_reduce before the one it never issued still pending, is the witness that names
 * the partner). */
static bool accused(const decider *d, size_t wi) {
    long node = fa_vg_rank_node(d, d->in->ranks[wi].rank);
    if (node < 0 || !d->facts[node].waited || d->facts[node].missing_op < 0) return false;
    const fa_op *missing = &d->m->ops[d->facts[node].missing_op], *pending;
    for (size_t at = d->g.edge_at[node]; (pending = next_pending(d, (size_t)node, &at)) != NULL;)
        if (pending->group == missing->group && pending->seq < missing->seq) return false;
    return true;
}

/* The program's order of `pending` and `missing` as the ranks that issued either of them tell
 * it (their own history: what they issued in those groups' families, and in which order):
 * +1 pending comes first, -1 missing does, 0 no witness or no majority. The rank itself
 * (input ri) is no witness; at most ORDER_WITNESSES others are asked. */
static int program_order(const decider *d, long ri, const fa_op *pending, const fa_op *missing) {
    int votes = 0, asked = 0;
    const fa_op *ops[] = { pending, missing };
    for (int o = 0; o < 2 && asked < ORDER_WITNESSES; o++)
        for (uint32_t k = 0; k < ops[o]->ncalls && asked < ORDER_WITNESSES; k++) {
            size_t wi = d->m->calls[ops[o]->first_call + k].rank_index;
            if ((long)wi == ri || accused(d, wi)) continue;
            int says = witness_order(d, wi, pending, missing);
            votes += says;
            asked += says != 0;
        }
    return (votes > 0) - (votes < 0);
}

/* The component's word on a cycle (tests/sim's E11: the fault rank is the one whose order the
 * others contradict). A rank pending in op P while others wait on it in op M that it never
 * issued claims "P before M". Another rank of its sink component that is a member of both ops'
 * families (a sibling TP group runs the same program) says which came first for it: having
 * issued M's counterpart and not P's, or M's first, it contradicts; P's first, it agrees. The
 * skipper is the minority, so two voters at least and a majority decide. Unlike program_order's
 * witnesses, a voter need not have issued both: in a fresh cycle nobody has (real random seeds
 * 35, 161: a skipped world barrier). Voters are capped: cycles are small. */
enum { MAX_ORDER_VOTERS = 64 };

/* The record_id of input rank ri's entry that stands where op does (its seq and name, in op's
 * group or one of its family), or -1. */
static int64_t counterpart(const decider *d, size_t ri, const fa_op *op, const fa_op *other) {
    const fa_entry *rep = fa_op_rep_entry(d->m, op);
    if (!rep) return -1;
    uint32_t name = fa_entry_traits(d->in->store, rep)->name;
    const fa_dump *dump = d->in->ranks[ri].dump;
    for (uint32_t i = dump->nentries; i-- > 0;) {
        const fa_entry *e = &dump->entries[i];
        const fa_traits *t = fa_entry_traits(d->in->store, e);
        if (t->is_p2p || t->name != name || fa_entry_coll_seq(dump, e) != op->seq) continue;
        long gi = fa_groups_find(d->groups, ri, dump->pgs[fa_entry_pg(d->in->store, e)].name);
        if (gi >= 0 &&
            stands_for(&d->groups->v[gi], &d->groups->v[op->group], &d->groups->v[other->group]))
            return fa_entry_record_id(dump, e);
    }
    return -1;
}

/* Whether input rank ri is a member of a group of op's family: only then does the lack of its
 * counterpart say that it has not got there yet. */
static long family_group(const decider *d, size_t ri, const fa_op *op) {
    const fa_dump *dump = d->in->ranks[ri].dump;
    for (uint32_t k = 0; k < dump->npgs; k++) {
        long gi = fa_groups_find(d->groups, ri, dump->pgs[k].name);
        if (gi >= 0 && fa_vo_one_family(&d->groups->v[gi], &d->groups->v[op->group])) return gi;
    }
    return -1;
}

static bool in_family(const decider *d, size_t ri, const fa_op *op) {
    return family_group(d, ri, op) >= 0;
}

/* Whether input rank ri's dump would hold its entry numbered seq in group gi, had the rank
 * issued one: it kept every entry from its first (record_id 0), or it holds an entry of that
 * group numbered below seq (a send/recv too, where the recorder numbers launches alike); a ring
 * drops the oldest entries, never one between two it kept. */
static bool window_reaches(const decider *d, size_t ri, long gi, int64_t seq) {
    const fa_dump *dump = d->in->ranks[ri].dump;
    if (dump->nentries && fa_entry_record_id(dump, &dump->entries[0]) == 0) return true;
    for (uint32_t i = 0; i < dump->nentries; i++) {
        const fa_entry *e = &dump->entries[i];
        int64_t n = fa_entry_traits(d->in->store, e)->is_p2p
                        ? (dump->launch_numbered ? fa_entry_p2p_seq(dump, e) : -1)
                        : fa_entry_coll_seq(dump, e);
        if (n >= 1 && n < seq &&
            fa_groups_find(d->groups, ri, dump->pgs[fa_entry_pg(d->in->store, e)].name) == gi)
            return true;
    }
    return false;
}

/* The group of op's family that input rank ri is a member of, by the job's groups (its dump
 * need not name a group it never ran anything in), or -1. */
static long member_of_family(const decider *d, size_t ri, const fa_op *op) {
    const fa_group *of = &d->groups->v[op->group];
    for (size_t gi = 0; gi < d->groups->n; gi++)
        if (fa_vo_one_family(of, &d->groups->v[gi]) &&
            fa_group_position(&d->groups->v[gi], d->in->ranks[ri].rank) >= 0)
            return (long)gi;
    return -1;
}

/* Whether input rank ri's dump proves it has not issued op's counterpart, which it lacks: where
 * op's group has a description, as before, its lack (the families' voters' word, real random
 * seeds 35, 161); in an undescribed group's family (one group shifted), only a dump that keeps
 * completed entries (not an only-active one, which drops them: sim seed 1145) and whose window
 * reaches back below op's number in its group of that family. */
static bool absent_proven(const decider *d, size_t ri, const fa_op *op) {
    if (!fa_desc_says_nothing(d->groups->v[op->group].desc)) return true;
    const fa_dump *dump = d->in->ranks[ri].dump;
    long gi = member_of_family(d, ri, op);
    return fa_dump_shows_completed(dump) && gi >= 0 && window_reaches(d, ri, gi, op->seq);
}

/* +1 when the ranks of the component mine[0..n) other than `node` that are members of both
 * families mostly put `pending` first (the rank is blocked before `missing`), -1 when they
 * mostly put `missing` first (it went past it), 0 undecided. */
static int order_vote(const decider *d, const uint32_t *mine, size_t n, size_t node,
                      const fa_op *pending, const fa_op *missing) {
    int agree = 0, contradict = 0, asked = 0;
    for (size_t k = 0; k < n && asked < MAX_ORDER_VOTERS; k++) {
        long ri = mine[k] == node ? -1 : fa_input_find(d->in, d->facts[mine[k]].rank);
        if (ri < 0 || !d->facts[mine[k]].has_dump || !in_family(d, (size_t)ri, pending) ||
            !in_family(d, (size_t)ri, missing))
            continue;
        asked++;
        int64_t p = counterpart(d, (size_t)ri, pending, missing),
                m = counterpart(d, (size_t)ri, missing, pending);
        int said = dropped_order(d, (size_t)ri, pending, missing, p, m);
        if (said != 2) {
            agree += said > 0;
            contradict += said < 0;
            continue;
        }
        if (m >= 0 && (p < 0 ? absent_proven(d, (size_t)ri, pending) : m < p))
            contradict++;
        else if (p >= 0 && (m < 0 ? absent_proven(d, (size_t)ri, missing) : p < m))
            agree++;
    }
    if (agree + contradict < 2 || agree == contradict) return 0;
    return agree > contradict ? 1 : -1;
}

/* The pg slot of input rank ri's dump that is group gi (its entries' traits.pg), or -1: found
 * once, so that a scan of the entries compares slots rather than looking each name up. */
static long group_slot(const decider *d, size_t ri, long gi) {
    const fa_dump *dump = d->in->ranks[ri].dump;
    for (uint32_t k = 0; gi >= 0 && k < dump->npgs; k++)
        if (fa_groups_find(d->groups, ri, dump->pgs[k].name) == gi) return (long)k;
    return -1;
}

/* What input rank ri's sends and recvs in `group` numbered p2p #seq say of one named `name` (a
 * traits' profiling name: kind and group-relative direction): +1 one of them is it, -1 it holds
 * some and none is it, 0 it holds none. A batch numbers its sends and recvs alike, so one
 * number may hold several (sim seed 4569: a stage's recv, its oldest pending, beside the send
 * of its batch that its siblings list first, read as another operation at that number). */
static int p2p_word_at(const decider *d, size_t ri, uint32_t group, int64_t seq, uint32_t name) {
    const fa_dump *dump = d->in->ranks[ri].dump;
    long slot = group_slot(d, ri, (long)group);
    int word = 0;
    for (uint32_t i = 0; slot >= 0 && i < dump->nentries; i++) {
        const fa_entry *e = &dump->entries[i];
        const fa_traits *t = fa_entry_traits(d->in->store, e);
        if (t->pg != (uint32_t)slot || !t->is_p2p || fa_entry_p2p_seq(dump, e) != seq) continue;
        const fa_opinfo *op = fa_store_op(d->in->store, t->name);
        if (!op->is_send && !op->is_recv) continue;
        if (t->name == name) return 1;
        word = -1;
    }
    return word;
}

/* Whether input rank ri's entry i is a send/recv of its pg slot `slot` (group_slot) still
 * pending. */
static bool pending_p2p_in(const decider *d, size_t ri, uint32_t i, long slot) {
    const fa_traits *t = fa_entry_traits(d->in->store, &d->in->ranks[ri].dump->entries[i]);
    const fa_opinfo *op = fa_store_op(d->in->store, t->name);
    return (long)t->pg == slot && (op->is_send || op->is_recv) && t->state != FR_STATE_COMPLETED &&
           !t->ended;
}

/* The first entry of input rank ri's dump at or after `at` that is a plain collective or a
 * pending send/recv of its pg slot `slot` (what a run of the program in that group is made of),
 * or nentries. */
static uint32_t next_step_entry(const decider *d, size_t ri, uint32_t at, long slot) {
    const fa_dump *dump = d->in->ranks[ri].dump;
    while (at < dump->nentries && !fa_entry_plain_collective(d->in->store, &dump->entries[at]) &&
           !pending_p2p_in(d, ri, at, slot))
        at++;
    return at;
}

enum { MAX_RUN = 64 };

/* Whether input ranks a (from entry ia, group ga) and b (from ib, gb) hold one run of the
 * program: the same pending send/recv, one for one by name, then the same collective (its number
 * and name, in one family of groups). A sibling further on within the same step holds fewer of
 * them before that collective, so it is no such run. */
static bool same_run(const decider *d, size_t a, uint32_t ia, long ga, size_t b, uint32_t ib,
                     long gb) {
    const fa_dump *da = d->in->ranks[a].dump, *db = d->in->ranks[b].dump;
    long sa = group_slot(d, a, ga), sb = group_slot(d, b, gb);
    for (int steps = 0; steps < MAX_RUN; steps++, ia++, ib++) {
        ia = next_step_entry(d, a, ia, sa);
        ib = next_step_entry(d, b, ib, sb);
        if (ia >= da->nentries || ib >= db->nentries) return false;
        const fa_entry *x = &da->entries[ia], *y = &db->entries[ib];
        bool xc = fa_entry_plain_collective(d->in->store, x),
             yc = fa_entry_plain_collective(d->in->store, y);
        const fa_traits *tx = fa_entry_traits(d->in->store, x),
                        *ty = fa_entry_traits(d->in->store, y);
        if (xc != yc || tx->name != ty->name) return false;
        if (!xc) continue;
        long gx = fa_groups_find(d->groups, a, da->pgs[tx->pg].name),
             gy = fa_groups_find(d->groups, b, db->pgs[ty->pg].name);
        return gx >= 0 && gy >= 0 && fa_entry_coll_seq(da, x) == fa_entry_coll_seq(db, y) &&
               fa_vo_one_family(&d->groups->v[gx], &d->groups->v[gy]);
    }
    return false;
}

/* Where a sibling's window no longer holds the rank's number (an only-active dump dropped what
 * completed, a ring the old ones), its pending send/recv in its group still say where it stands:
 * one of them, the same send/recv (`name`) as the rank's at a higher number than its `seq`, that
 * starts the same run (same_run: the same send/recv after it, then the same collective): both
 * stand at one point of the program, and the sibling got there having posted more send/recv in
 * the group than the rank: the rank left some out (-1; sim seeds 8918, 9679: a stage that
 * skipped its send posts its next recv one number below its sibling stages', both before the
 * same tensor-parallel all_reduce; 12007: the sibling's send at that point is not its oldest
 * pending, a send of the step before is). 0 when the sibling says nothing of it. */
static int p2p_shift_word(const decider *d, size_t own_ri, uint32_t own_at, long own_g, size_t ri,
                          long gi, int64_t seq, uint32_t name) {
    const fa_dump *dump = d->in->ranks[ri].dump;
    long slot = group_slot(d, ri, gi);
    for (uint32_t i = 0; slot >= 0 && i < dump->nentries; i++) {
        const fa_entry *e = &dump->entries[i];
        if (fa_entry_traits(d->in->store, e)->name != name || fa_entry_p2p_seq(dump, e) <= seq ||
            !pending_p2p_in(d, ri, i, slot))
            continue;
        if (same_run(d, own_ri, own_at, own_g, ri, i, gi)) return -1;
    }
    return 0;
}

/* What input rank ri's launch-numbered dump holds at launch #seq of `group` (the recorder draws
 * collectives' and send/recv batches' numbers from one counter): LAUNCH_BATCH a send/recv,
 * LAUNCH_COLL a collective (*name its traits' name), LAUNCH_NONE nothing (or not such a dump). */
enum { LAUNCH_NONE, LAUNCH_BATCH, LAUNCH_COLL };
static int launch_at(const decider *d, size_t ri, long group, int64_t seq, uint32_t *name) {
    const fa_dump *dump = d->in->ranks[ri].dump;
    if (!dump->launch_numbered || group < 0) return LAUNCH_NONE;
    for (uint32_t i = 0; i < dump->nentries; i++) {
        const fa_entry *e = &dump->entries[i];
        const fa_traits *t = fa_entry_traits(d->in->store, e);
        const fa_opinfo *op = fa_store_op(d->in->store, t->name);
        bool transfer = op->is_send || op->is_recv;
        if (op->flags & FA_OP_END_MARKER) continue;
        if ((transfer ? fa_entry_p2p_seq(dump, e) : fa_entry_coll_seq(dump, e)) != seq ||
            fa_groups_find(d->groups, ri, dump->pgs[t->pg].name) != group)
            continue;
        *name = t->name;
        return transfer ? LAUNCH_BATCH : LAUNCH_COLL;
    }
    return LAUNCH_NONE;
}

/* Where the rank at `node` holds one operation at launch #seq of group G (kind, name: launch_at)
 * and a peer waits on it there for another (a send/recv batch where the rank ran a collective,
 * or the reverse; `missing_name` the missing collective's), both numbered alike by the one
 * launch counter: neither went past the other's; one of them left the program's order. The
 * members in the rank's place in G's sibling groups (one program) say which: holding what the
 * rank holds, it follows the program, +1 (the peer deviated); holding the missing one, it left
 * it out, -1 (sim seed 11211: rank 257 ran its mesh broadcast as launch #4 where its partner 256
 * and every sibling pair ran a send/recv batch, the broadcast #5; 256, whose #5 broadcast is
 * numbered past 257's #4, was read as having gone past it). Two voters at least and a majority
 * decide; else 0. */
static int launch_slot_vote(const decider *d, size_t node, const fa_op *missing) {
    long ri = fa_input_find(d->in, d->facts[node].rank);
    const fa_group *g = &d->groups->v[missing->group];
    long pos = fa_group_position(g, d->facts[node].rank);
    uint32_t own_name = 0, missing_name = 0, name = 0;
    int own = ri >= 0 && pos >= 0
                  ? launch_at(d, (size_t)ri, (long)missing->group, missing->seq, &own_name)
                  : LAUNCH_NONE;
    int other = missing->is_p2p ? LAUNCH_BATCH : LAUNCH_COLL;
    if (own == LAUNCH_NONE || own == other) return 0;
    if (!missing->is_p2p) {
        const fa_op *o = missing;
        if (o->rep_call == UINT32_MAX || o->ncalls == 0) return 0;
        missing_name =
            fa_entry_traits(d->in->store, fa_call_entry(d->m, d->in, &d->m->calls[o->rep_call], 0))
                ->name;
    }
    int agree = 0, contradict = 0, asked = 0;
    for (size_t gi = 0; gi < d->groups->n && asked < MAX_ORDER_VOTERS; gi++) {
        const fa_group *sib = &d->groups->v[gi];
        if (sib == g || sib->nmembers != g->nmembers || !fa_vo_one_family(sib, g)) continue;
        long vi = fa_input_find(d->in, sib->members[pos]);
        int kind = vi >= 0 ? launch_at(d, (size_t)vi, (long)gi, missing->seq, &name) : LAUNCH_NONE;
        if (kind == LAUNCH_NONE) continue;
        asked++;
        if (kind == own && (own == LAUNCH_BATCH || name == own_name))
            agree++;
        else if (kind == other && (other == LAUNCH_BATCH || name == missing_name))
            contradict++;
    }
    if (agree + contradict < 2 || agree == contradict) return 0;
    return agree > contradict ? 1 : -1;
}

/* The first plain collective of input rank ri's dump after entry `at`: *gi its group (-1
 * unknown), *seq its number, *name its name. False when none. */
static bool next_collective(const decider *d, size_t ri, uint32_t at, long *gi, int64_t *seq,
                            uint32_t *name) {
    const fa_dump *dump = d->in->ranks[ri].dump;
    for (uint32_t i = at + 1; i < dump->nentries; i++) {
        const fa_entry *e = &dump->entries[i];
        if (!fa_entry_plain_collective(d->in->store, e)) continue;
        const fa_traits *t = fa_entry_traits(d->in->store, e);
        *gi = fa_groups_find(d->groups, ri, dump->pgs[t->pg].name);
        *seq = fa_entry_coll_seq(dump, e);
        *name = t->name;
        return *gi >= 0;
    }
    return false;
}

/* What input rank own_ri's dump says of send/recv #seq of group own_g, which it holds no entry
 * of and has nothing pending in, beside a sibling's (input rank ri, group gi): the sibling holds
 * a send/recv at that number and then collective X; the rank holds X too, after a send/recv of
 * the group numbered below #seq (its window reaches back past the number) and none at it: it went
 * on to X without it, -1 (sim seed 16063: a stage that left out its recv #6 and ran the next
 * step's all_reduces, while its partner waits in the send). 0 when the rank's dump does not show
 * it; SIBLING_SILENT when the sibling holds nothing there (an embedding group of the same two
 * stages reads as one family with the pipeline group: sim seed 4942). */
enum { SIBLING_SILENT = 2 };
static int p2p_passed_word(const decider *d, size_t own_ri, long own_g, size_t ri, long gi,
                           int64_t seq) {
    const fa_dump *sd = d->in->ranks[ri].dump, *od = d->in->ranks[own_ri].dump;
    long at = -1, sslot = group_slot(d, ri, gi), oslot = group_slot(d, own_ri, own_g);
    for (uint32_t i = 0; sslot >= 0 && i < sd->nentries && at < 0; i++) {
        const fa_entry *e = &sd->entries[i];
        const fa_traits *t = fa_entry_traits(d->in->store, e);
        const fa_opinfo *op = fa_store_op(d->in->store, t->name);
        if ((long)t->pg == sslot && (op->is_send || op->is_recv) && fa_entry_p2p_seq(sd, e) == seq)
            at = (long)i;
    }
    long xg;
    int64_t xs;
    uint32_t xn;
    if (at < 0 || !next_collective(d, ri, (uint32_t)at, &xg, &xs, &xn)) return SIBLING_SILENT;
    bool below = false;
    for (uint32_t i = 0; i < od->nentries; i++) {
        const fa_entry *e = &od->entries[i];
        const fa_traits *t = fa_entry_traits(d->in->store, e);
        const fa_opinfo *op = fa_store_op(d->in->store, t->name);
        if (op->is_send || op->is_recv) {
            if ((long)t->pg != oslot) continue;
            if (fa_entry_p2p_seq(od, e) >= seq) return 0;
            below = true;
        } else if (below && fa_entry_plain_collective(d->in->store, e) && t->name == xn &&
                   fa_entry_coll_seq(od, e) == xs) {
            long g = fa_groups_find(d->groups, own_ri, od->pgs[t->pg].name);
            if (g >= 0 && fa_vo_one_family(&d->groups->v[g], &d->groups->v[xg])) return -1;
        }
    }
    return 0;
}

/* p2p_family_vote where the rank has no send/recv pending in the missing one's group: the
 * members in its place in the sibling groups, by p2p_passed_word: -1 where two or more of them,
 * and more than half of those that hold the number, say it went past; else 0. Silent ones do
 * not count as asked, so how many are looked at is bounded on its own (each costs a scan of its
 * dump; a family of a huge job has thousands). */
static int p2p_passed_vote(const decider *d, size_t own_ri, const fa_op *missing, uint32_t pos) {
    const fa_group *g = &d->groups->v[missing->group];
    int contradict = 0, asked = 0, looked = 0;
    for (size_t gi = 0;
         gi < d->groups->n && asked < MAX_ORDER_VOTERS && looked < 4 * MAX_ORDER_VOTERS; gi++) {
        const fa_group *sib = &d->groups->v[gi];
        if (sib == g || sib->nmembers != g->nmembers || !fa_vo_one_family(sib, g)) continue;
        looked++;
        long ri = fa_input_find(d->in, sib->members[pos]);
        int word = ri < 0 ? SIBLING_SILENT
                          : p2p_passed_word(d, own_ri, (long)missing->group, (size_t)ri, (long)gi,
                                            missing->seq);
        asked += word != SIBLING_SILENT;
        contradict += word < 0;
    }
    return contradict >= 2 && 2 * contradict > asked ? -1 : 0;
}

/* For a send/recv that the rank at `node` is absent from, in group G: the groups of G's family
 * (one program, tests/sim's pipeline groups) hold, at the member in the rank's place, the same
 * numbered send/recv as it. Where they hold the one it has pending in G (its oldest there) by
 * its number, it follows the program and has not got to the missing one: +1; where they hold
 * another one there, it left out what the program has at that number and went on: -1 (sim seed
 * 5944: rank 3 skipped its recv from 7 and posts its next send at the recv's number, which its
 * sibling stages hold as that recv). In a group of two, the rank's own op at the missing one's
 * number, where it has one, is the one asked of: its oldest pending may lie before the number,
 * where the siblings agree with it, and say nothing of where it left the program (sim seed
 * 12007). A rank with nothing pending in G is asked of by its history (p2p_passed_vote). Two
 * voters at least and a majority decide; else 0. */
static int p2p_family_vote(const decider *d, size_t node, const fa_op *missing) {
    const fa_group *g = &d->groups->v[missing->group];
    long pos = fa_group_position(g, d->facts[node].rank);
    const fa_call *own = NULL, *at_missing = NULL;
    int64_t seq = INT64_MAX;
    for (size_t e = d->g.edge_at[node]; pos >= 0 && e < d->g.edge_at[node + 1]; e++) {
        uint32_t x = d->g.edges[e];
        if (x < d->g.nrank_nodes) continue;
        size_t op = (size_t)d->g.op_of_node[x - d->g.nrank_nodes];
        const fa_op *o = &d->m->ops[op];
        const fa_call *c =
            o->is_p2p && o->group == missing->group ? fa_op_call(d->m, op, (uint32_t)pos) : NULL;
        if (!c) continue;
        const fa_entry *ce = fa_call_entry(d->m, d->in, c, 0);
        int64_t s = fa_entry_p2p_seq(d->in->ranks[c->rank_index].dump, ce);
        if (s < seq) seq = s, own = c;
        if (s == missing->seq && g->nmembers == 2) { /* its own op at the number */
            at_missing = c;
            break;
        }
    }
    if (at_missing) seq = missing->seq, own = at_missing;
    long ri_own = fa_input_find(d->in, d->facts[node].rank);
    if (!own && ri_own >= 0 && d->facts[node].has_dump && pos >= 0)
        return p2p_passed_vote(d, (size_t)ri_own, missing, (uint32_t)pos);
    if (!own) return 0;
    uint32_t name = fa_entry_traits(d->in->store, fa_call_entry(d->m, d->in, own, 0))->name;
    int agree = 0, contradict = 0, asked = 0;
    for (size_t gi = 0; gi < d->groups->n && asked < MAX_ORDER_VOTERS; gi++) {
        const fa_group *sib = &d->groups->v[gi];
        if (sib == g || sib->nmembers != g->nmembers || !fa_vo_one_family(sib, g)) continue;
        long ri = fa_input_find(d->in, sib->members[pos]);
        int word = ri >= 0 ? p2p_word_at(d, (size_t)ri, (uint32_t)gi, seq, name) : 0;
        if (ri >= 0 && word == 0 && d->facts[node].has_dump)
            word = p2p_shift_word(d, own->rank_index, fa_call_entry_index(d->m, own, 0),
                                  (long)missing->group, (size_t)ri, (long)gi, seq, name);
        asked += word != 0;
        agree += word > 0;
        contradict += word < 0;
    }
    if (agree + contradict < 2 || agree == contradict) return 0;
    return agree > contradict ? 1 : -1;
}

/* One voter's word for sibling_vote: +1 it issued `pending`'s counterpart first, -1
 * `missing`'s, 0 it cannot say. A voter that holds one op's counterpart and not the other's says
 * which came first only when its window reaches back below the absent one's number. */
static int sibling_word(const decider *d, size_t ri, const fa_op *pending, const fa_op *missing) {
    long pg = member_of_family(d, ri, pending), mg = member_of_family(d, ri, missing);
    if (pg < 0 || mg < 0) return 0;
    int64_t pr = counterpart(d, ri, pending, missing), mr = counterpart(d, ri, missing, pending);
    if (mr >= 0 &&
        (pr >= 0 ? mr < pr
                 : window_reaches(d, ri, pg, pending->seq) && absent_proven(d, ri, pending)))
        return -1;
    if (pr >= 0 &&
        (mr >= 0 ? pr < mr
                 : window_reaches(d, ri, mg, missing->seq) && absent_proven(d, ri, missing)))
        return 1;
    return 0;
}

/* The word of the job's ranks where the component's cannot tell (a cycle of two ranks that
 * only wait on each other, in two groups they share): the members, by the job's groups, with a
 * fresh dump and not waited on for an op they never issued themselves (accused), of the groups
 * of either op's family (their own groups and the sibling groups, which run the same program),
 * as order_vote asks its voters, each once. +1 pending first, -1 missing first, 0 undecided
 * (fewer than two voters, or a tie). Where the two groups are a pipeline and an embedding group
 * of the same two stages without descriptions, no sibling can tell them apart (stands_for) and
 * the cycle stays undecided (sim seeds 4996, 7859). */
static int sibling_vote(const decider *d, size_t node, const fa_op *pending, const fa_op *missing) {
    const fa_group *fams[] = { &d->groups->v[pending->group], &d->groups->v[missing->group] };
    size_t voters[MAX_ORDER_VOTERS], nvoters = 0;
    int agree = 0, contradict = 0;
    for (int f = 0; f < 2; f++)
        for (size_t gi = 0; gi < d->groups->n && nvoters < MAX_ORDER_VOTERS; gi++) {
            const fa_group *g = &d->groups->v[gi];
            if (!fa_vo_one_family(fams[f], g)) continue;
            for (uint32_t p = 0; p < g->nmembers && nvoters < MAX_ORDER_VOTERS; p++) {
                long ri = g->member_input[p], vn = ri >= 0 ? fa_vg_rank_node(d, g->members[p]) : -1;
                if (vn < 0 || (size_t)vn == node || d->facts[vn].stale || accused(d, (size_t)ri))
                    continue;
                bool asked = false;
                for (size_t k = 0; k < nvoters && !asked; k++) asked = voters[k] == (size_t)ri;
                if (asked) continue;
                voters[nvoters++] = (size_t)ri;
                int says = sibling_word(d, (size_t)ri, pending, missing);
                agree += says > 0;
                contradict += says < 0;
            }
        }
    if (agree + contradict < 2 || agree == contradict) return 0;
    return agree > contradict ? 1 : -1;
}

/* Whether the rank at `node`, pending in `pending` of the missing op's group at a lower number,
 * has pending in its component a collective of another group that it issued before `pending`
 * and that the program, as the component's ranks or the ranks that issued them tell it, runs
 * after `missing`: the rank left the common order before it got to `pending`, whose number then
 * says nothing of where it stopped (sim seed 10278: rank 18 ran its all_reduce #3 of the whole
 * job in its group of two, then the job's next all_reduce as its #3; everyone else waits at #3,
 * and #4 is missing on 18 alone). */
static bool older_breaks_order(const decider *d, size_t node, const fa_op *pending,
                               const fa_op *missing, const uint32_t *mine, size_t nmine) {
    long ri = fa_input_find(d->in, d->facts[node].rank);
    long pos = fa_group_position(&d->groups->v[pending->group], d->facts[node].rank);
    if (ri < 0 || pos < 0) return false;
    int64_t rec = fa_vg_call_record(d, (size_t)(pending - d->m->ops), (uint32_t)pos);
    const fa_op *older;
    for (size_t at = d->g.edge_at[node]; (older = next_pending(d, node, &at)) != NULL;) {
        if (older->group == missing->group ||
            fa_vg_rank_record(d, (size_t)(older - d->m->ops), d->facts[node].rank) >= rec)
            continue;
        if (order_vote(d, mine, nmine, node, older, missing) < 0 ||
            program_order(d, ri, older, missing) < 0)
            return true;
    }
    return false;
}

/* Whether the rank at `node` has pending, issued before `pending`, a collective of another group
 * that a member of it never issued. In a job of two ranks nobody else tells the program's order
 * (tests/sim's E11): the rank may have run that one out of order, so being below the missing
 * op's number in `pending`'s group does not clear it (sim seed 5155: rank 0 ran an all_reduce #4
 * in one group of the pair, rank 1 its #3 and #4 in the other; either may have left the order). */
static bool older_unshared(const decider *d, size_t node, const fa_op *pending) {
    long pos = fa_group_position(&d->groups->v[pending->group], d->facts[node].rank);
    if (pos < 0) return false;
    int64_t rec = fa_vg_call_record(d, (size_t)(pending - d->m->ops), (uint32_t)pos);
    const fa_op *older;
    for (size_t at = d->g.edge_at[node]; (older = next_pending(d, node, &at)) != NULL;) {
        if (older->group != pending->group && older->ncalls < d->groups->v[older->group].nmembers &&
            fa_vg_rank_record(d, (size_t)(older - d->m->ops), d->facts[node].rank) < rec)
            return true;
    }
    return false;
}

/* The order of the op the rank waits in and `missing_op`, the one others wait for it in: +1 when
 * its history (or its peers') puts the pending op first (it is blocked before reaching the
 * missing one), -1 when the missing op comes first (it went past it: it skipped it), 0 when
 * nothing tells. */
static int pending_order(const decider *d, size_t node, long missing_op, const uint32_t *mine,
                         size_t nmine) {
    const rank_facts *f = &d->facts[node];
    long ri = fa_input_find(d->in, f->rank);
    const fa_op *missing = &d->m->ops[missing_op], *pending;
    if (ri < 0) return 0;
    int slot = launch_slot_vote(d, node, missing);
    if (slot) return slot;
    if (missing->is_p2p) return p2p_family_vote(d, node, missing);
    /* one group first (launch-numbered dumps, where another op took the missing one's number):
     * pending before it, the rank never got there, unless an op it issued earlier breaks the
     * program's order; pending after it, it went past */
    for (size_t at = d->g.edge_at[node]; (pending = next_pending(d, node, &at)) != NULL;)
        if (pending->group == missing->group)
            return pending->seq < missing->seq &&
                           !older_breaks_order(d, node, pending, missing, mine, nmine)
                       ? (d->nfacts <= 2 && older_unshared(d, node, pending) ? 0 : 1)
                       : -1;
    /* across groups, in a job of two ranks: each side's history holds its own order only and no
     * third rank says which one the program runs (tests/sim's E11: both are named, as the two
     * sides of a two-member mismatch; seeds 6689, 5155) */
    if (d->nfacts <= 2) return 0;
    /* the component's vote, then the others' histories: where the ranks that issued the two
     * ops ran them in one order */
    for (size_t at = d->g.edge_at[node]; (pending = next_pending(d, node, &at)) != NULL;) {
        int order = pending->group != missing->group
                        ? order_vote(d, mine, nmine, node, pending, missing)
                        : 0;
        if (order) return order;
    }
    for (size_t at = d->g.edge_at[node]; (pending = next_pending(d, node, &at)) != NULL;) {
        int order = program_order(d, ri, pending, missing);
        if (order) return order;
    }
    for (size_t at = d->g.edge_at[node]; (pending = next_pending(d, node, &at)) != NULL;) {
        int order = pending->group != missing->group ? sibling_vote(d, node, pending, missing) : 0;
        if (order) return order;
    }
    if (missing->seq < 2) return 0;
    for (size_t at = d->g.edge_at[node]; (pending = next_pending(d, node, &at)) != NULL;) {
        if (pending->seq < 2) continue;
        int64_t before_pending = record_at(d, (size_t)ri, pending->group, pending->seq - 1);
        int64_t before_missing = record_at(d, (size_t)ri, missing->group, missing->seq - 1);
        if (before_pending >= 0 && before_missing >= 0)
            return before_pending < before_missing ? 1 : -1;
    }
    return 0;
}

int fa_vo_program_order(const decider *d, const fa_op *first, const fa_op *second) {
    return program_order(d, -1, first, second);
}

int fa_vo_order(const decider *d, size_t node, long missing_op, const uint32_t *mine,
                size_t nmine) {
    return pending_order(d, node, missing_op, mine, nmine);
}

/* pending_order's +1: see verdict_order.h. */
bool fa_vo_blocked_before(const decider *d, size_t node, long missing_op, const uint32_t *mine,
                          size_t nmine) {
    return pending_order(d, node, missing_op, mine, nmine) > 0;
}

/* Whether the rank at `node` has its own entry in op `o`: it issued it, as its dump shows, not a
 * state read from its counters (sim seed 10978: a rank blocked in a send/recv batch whose
 * entries carry the group's collective count, read as pending in that collective). */
static bool issued_it(const decider *d, size_t node, const fa_op *o) {
    long pos = fa_group_position(&d->groups->v[o->group], d->facts[node].rank);
    return pos >= 0 && fa_op_call(d->m, (size_t)(o - d->m->ops), (uint32_t)pos) != NULL;
}

/* Whether what the dumps show proves that the rank at `node` went past `missing_op`, which it
 * never issued: it issued a later collective of the op's group, or the ranks that issued both
 * the op it waits in and the missing one ran the missing one first (program_order), or, for a
 * send/recv, the sibling groups of its family hold another operation at the number of the one it
 * has pending (p2p_family_vote). Stricter than pending_order, whose other readings (a voter
 * holding only the missing op, the step before) weigh a cycle that is judged anyway. */
bool fa_vo_went_past(const decider *d, size_t node, long missing_op) {
    long ri = fa_input_find(d->in, d->facts[node].rank);
    const fa_op *missing = &d->m->ops[missing_op], *pending;
    if (ri < 0) return false;
    int slot = launch_slot_vote(d, node, missing);
    if (slot) return slot < 0;
    if (missing->is_p2p) return p2p_family_vote(d, node, missing) < 0;
    for (size_t at = d->g.edge_at[node]; (pending = next_pending(d, node, &at)) != NULL;)
        if (pending->group == missing->group && issued_it(d, node, pending))
            return pending->seq > missing->seq;
    for (size_t at = d->g.edge_at[node]; (pending = next_pending(d, node, &at)) != NULL;) {
        int order = issued_it(d, node, pending) ? program_order(d, ri, pending, missing) : 0;
        if (order) return order < 0;
    }
    return false;
}
