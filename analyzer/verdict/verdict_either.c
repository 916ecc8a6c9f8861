/* verdict_either.c — a dump older only by what it shows issued, read both ways.
 *
 * A dump is older than its peers' (fa_stale) where they completed with the rank something it had
 * not issued. Where the only proof is what the dump shows issued (fa_stale.issued_only: launches
 * pending there that peers completed, a send a peer completed to it), the bytes fit a second
 * reading as well: the dump is final, and the rank's GPU ran past what it recorded and stopped
 * (the real NVIDIA runs gpu_error_1st/2nd: a failed GPU's fresh dump leaves pending a dozen
 * launches its peers completed), or it never posted the recv. Nothing in the dumps tells the two
 * apart, so the verdict takes what both readings say (tests/sim's E8).
 *
 * The verdict is decided in the first reading (every such dump older: what the rank did since
 * is unknown); where it is a hang, its findings are set aside, and the verdict is decided once
 * per such rank u with u's dump read as final (a copy of the match's rank_stale with u's entry
 * cleared), each of these decisions rolled back after it. Folding each answer b into the answer
 * a so far:
 *   - b names a culprit a does not: the culprits are the ranks both name, and every other rank
 *     either names (culprits and alternatives) is offered: one of them;
 *   - b names only culprits a names, or one reading sees nobody waiting: a stands (it names
 *     every older dump a wait may rest on), b's alternatives joined to a's.
 * Before any fold: where every rank the first decision names or offers has a dump older only by
 * a never-started head its peers' counters show done (fa_stale.stall_first), the older reading
 * moves the blame nowhere else, and the decision with those dumps read final, their GPUs stalled,
 * is the verdict (read_final; the real runs gpu_error_1st/2nd: "ranks 12,14 stalled", where each
 * read older leaves the blame on the other). Beside a lost dump or any other rank, they are read
 * both ways as above (tests/sim seed 12994: "0 or 2").
 * Where the fold left the first answer as it was, the first decision stands (its findings put
 * back); where it changed it, the verdict is decided once more in the first reading, with the
 * plan (fa_either_plan), which verdict_agreed.c carries out: the withdrawn
 * culprits leave their findings, the offered ranks are noted as an ambiguity; the evidence, the
 * alternatives and the title then come from the usual steps. This file holds fa_verdict_decide,
 * the verdict's entry point; verdict.c one decision (fa_verdict_decide_reading).
 *
 * Cost: nothing where no dump is older by what it shows issued or the first decision is no hang.
 * Else one decision more per such rank, at most MAX_SINGLE_READINGS of them; beyond that one
 * decision reads all of them final together; and one more where the answer changes (a job of
 * 100 000 ranks decides at most MAX_SINGLE_READINGS + 2 times).
 */
#include "verdict/verdict.h"
#include "verdict/verdict_either.h"

#include <stdlib.h>
#include <string.h>

enum { MAX_SINGLE_READINGS = 8 };

/* What one decision says: whether anyone waits (a hang), its culprits, and the other ranks its
 * alternatives offer. */
typedef struct reading {
    bool waiting;
    fa_ranks culprits, offered;
} reading;

static void reading_free(reading *r) {
    fa_ranks_free(&r->culprits);
    fa_ranks_free(&r->offered);
}

/* Appends the ranks of `set` not in `but` (normalized) to out, and normalizes it. */
static void difference(const fa_ranks *set, const fa_ranks *but, fa_ranks *out) {
    for (size_t k = 0; k < set->n; k++)
        if (!fa_ranks_contains(but, set->v[k])) fa_ranks_add(out, set->v[k]);
    fa_ranks_normalize(out);
}

/* What decision v says. */
static void read_verdict(const fa_verdict *v, reading *out) {
    memset(out, 0, sizeof *out);
    out->waiting = v->status == FA_STATUS_HANG;
    fa_ranks_add_all(&out->culprits, &v->culprits);
    fa_ranks_normalize(&out->culprits);
    for (size_t a = 0; a < v->nalternatives; a++)
        difference(&v->alternatives[a].ranks, &out->culprits, &out->offered);
}

/* The explained flags of the first n findings (the one thing a decision changes in them), to put
 * back with restore_flags; NULL when out of memory. */
static bool *save_flags(const fa_findings *findings, size_t n) {
    bool *flags = malloc((n + 1) * sizeof *flags);
    for (size_t i = 0; flags && i < n; i++) flags[i] = findings->v[i].explained;
    return flags;
}

static void restore_flags(fa_findings *findings, const bool *flags, size_t n) {
    for (size_t i = 0; i < n; i++) findings->v[i].explained = flags[i];
}

/* Decides the verdict in m's reading and keeps its answer in out; findings as before. */
static int read_once(const fa_input *in, const fa_groups *groups, const fa_match *m,
                     fa_findings *findings, reading *out, fr_error *err) {
    size_t n = findings->n;
    bool *explained = save_flags(findings, n);
    if (!explained) return -1;
    fa_verdict v;
    int rc = fa_verdict_decide_reading(in, groups, m, findings, &v, NULL, err);
    memset(out, 0, sizeof *out);
    if (rc == 0) read_verdict(&v, out);
    fa_verdict_free(&v);
    fa_findings_truncate(findings, n);
    restore_flags(findings, explained, n);
    free(explained);
    return rc;
}

/* Folds reading b into a (the header's two cases). */
static void fold(reading *a, const reading *b) {
    if (!a->waiting || !b->waiting) return;
    fa_ranks only_b = { 0 };
    difference(&b->culprits, &a->culprits, &only_b);
    bool narrower = only_b.n == 0;
    fa_ranks_free(&only_b);
    if (narrower) {
        difference(&b->offered, &a->culprits, &a->offered);
        return;
    }
    fa_ranks both = { 0 }, named = { 0 };
    for (size_t k = 0; k < a->culprits.n; k++)
        if (fa_ranks_contains(&b->culprits, a->culprits.v[k]))
            fa_ranks_add(&both, a->culprits.v[k]);
    fa_ranks_add_all(&named, &a->culprits);
    fa_ranks_add_all(&named, &b->culprits);
    fa_ranks_add_all(&named, &a->offered);
    fa_ranks_add_all(&named, &b->offered);
    fa_ranks_normalize(&both);
    fa_ranks_normalize(&named);
    fa_ranks_free(&a->offered);
    difference(&named, &both, &a->offered);
    fa_ranks_free(&a->culprits);
    fa_ranks_free(&named);
    a->culprits = both;
}

/* The answer of the reading where the dumps of the ranks marked in `final` (input ranks) are
 * read as final, folded into a. */
static int fold_final(const fa_input *in, const fa_groups *groups, const fa_match *m,
                      fa_findings *findings, const bool *final, reading *a, fr_error *err) {
    fa_stale *stale = malloc((in->nranks + 1) * sizeof *stale);
    if (!stale) return -1;
    memcpy(stale, m->rank_stale, (in->nranks + 1) * sizeof *stale);
    for (size_t ri = 0; ri < in->nranks; ri++)
        if (final[ri]) stale[ri].group = -1, stale[ri].issued_only = false;
    fa_match mb = *m;
    mb.rank_stale = stale;
    reading b;
    int rc = read_once(in, groups, &mb, findings, &b, err);
    if (rc == 0) fold(a, &b);
    reading_free(&b);
    free(stale);
    return rc;
}

/* Folds the final readings into the first one's answer (first, a hang) and leaves in plan what
 * changed: the culprits withdrawn, the ranks offered. */
static int weigh(const fa_input *in, const fa_groups *groups, const fa_match *m,
                 fa_findings *findings, size_t nboth, const reading *first, fa_either_plan *plan,
                 fr_error *err) {
    bool *final = calloc(in->nranks + 1, 1);
    if (!final) return -1;
    reading a = { first->waiting, { 0 }, { 0 } };
    fa_ranks_add_all(&a.culprits, &first->culprits);
    fa_ranks_add_all(&a.offered, &first->offered);
    int rc = 0;
    for (size_t ri = 0; rc == 0 && ri < in->nranks; ri++) {
        if (!fa_stale_read_both_ways(&m->rank_stale[ri])) continue;
        fa_ranks_add(&plan->ran_past, in->ranks[ri].rank);
        final[ri] = true;
        if (nboth > MAX_SINGLE_READINGS) continue; /* all of them at once, below */
        rc = fold_final(in, groups, m, findings, final, &a, err);
        final[ri] = false;
    }
    if (rc == 0 && nboth > MAX_SINGLE_READINGS)
        rc = fold_final(in, groups, m, findings, final, &a, err);
    if (rc == 0) {
        difference(&first->culprits, &a.culprits, &plan->withdrawn);
        difference(&a.offered, &first->offered, &plan->offered);
    }
    fa_ranks_normalize(&plan->ran_past);
    free(final);
    reading_free(&a);
    return rc;
}

/* The final readings of a first decision v (a hang, its findings from the n-th on) into plan:
 * its findings are set aside meanwhile (the others decide on those before it) and put back, with
 * the explained flags it left (flags_before: those it found). */
static int weigh_beside(const fa_input *in, const fa_groups *groups, const fa_match *m,
                        fa_findings *findings, size_t n, const bool *flags_before, size_t nboth,
                        const fa_verdict *v, fa_either_plan *plan, fr_error *err) {
    size_t ntail = findings->n - n;
    fa_finding *tail = malloc((ntail + 1) * sizeof *tail);
    bool *flags_after = save_flags(findings, n);
    int rc = tail && flags_after ? 0 : -1;
    if (rc == 0) {
        memcpy(tail, findings->v + n, ntail * sizeof *tail);
        findings->n = n;
        restore_flags(findings, flags_before, n);
        reading first;
        read_verdict(v, &first);
        rc = weigh(in, groups, m, findings, nboth, &first, plan, err);
        reading_free(&first);
        memcpy(findings->v + n, tail, ntail * sizeof *tail); /* the list never shrinks */
        findings->n = n + ntail;
        restore_flags(findings, flags_after, n);
    }
    free(tail);
    free(flags_after);
    return rc;
}

/* Whether every rank decision v names or offers is one whose dump reads older only by a peer's
 * counters past a head its GPU never started (fa_stale.stall_first), and it names or offers one:
 * then the older reading moves the blame nowhere else, and the stall reading stands (real runs
 * gpu_error_1st/2nd: ranks 12 and 14, each the other's alternative when both read older). */
static bool blame_stays_on_stalls(const fa_input *in, const fa_match *m, const fa_verdict *v) {
    size_t named = 0;
    for (size_t a = 0; a <= v->nalternatives; a++) {
        const fa_ranks *set = a < v->nalternatives ? &v->alternatives[a].ranks : &v->culprits;
        for (size_t k = 0; k < set->n; k++, named++) {
            long ri = fa_input_find(in, set->v[k]);
            if (ri < 0 || !fa_stale_read_both_ways(&m->rank_stale[ri]) ||
                !m->rank_stale[ri].stall_first)
                return false;
        }
    }
    return named > 0;
}

/* The decision with every stall_first dump read final, in place of v. */
static int decide_stalled(const fa_input *in, const fa_groups *groups, const fa_match *m,
                          fa_findings *findings, size_t n, const bool *flags_before, fa_verdict *v,
                          fr_error *err) {
    fa_stale *stale = malloc((in->nranks + 1) * sizeof *stale);
    if (!stale) return -1;
    memcpy(stale, m->rank_stale, (in->nranks + 1) * sizeof *stale);
    fa_ranks final = { 0 };
    for (size_t ri = 0; ri < in->nranks; ri++)
        if (stale[ri].stall_first) fa_ranks_add(&final, in->ranks[ri].rank);
    fa_match mb = *m;
    mb.rank_stale = stale;
    fa_match_read_final(&mb, in, final.v, final.n);
    fa_verdict_free(v);
    fa_findings_truncate(findings, n);
    restore_flags(findings, flags_before, n);
    int rc = fa_verdict_decide_reading(in, groups, &mb, findings, v, NULL, err);
    fa_ranks_normalize(&final);
    v->read_final = final;
    free(stale);
    return rc;
}

/* Decided once where every dump reads one way; where some dump is older only by what it shows
 * issued and the first decision is a hang, the final readings follow, and where they change its
 * answer, a last decision with what they agree on (verdict_agreed.c) replaces it. */
int fa_verdict_decide(const fa_input *in, const fa_groups *groups, const fa_match *m,
                      fa_findings *findings, fa_verdict *v, fr_error *err) {
    size_t nboth = 0, n = findings->n;
    for (size_t ri = 0; ri < in->nranks; ri++) nboth += fa_stale_read_both_ways(&m->rank_stale[ri]);
    bool *flags_before = nboth ? save_flags(findings, n) : NULL;
    if (nboth && !flags_before) {
        memset(v, 0, sizeof *v);
        fr_fail(err, "out of memory while deciding the verdict");
        return -1;
    }
    int rc = fa_verdict_decide_reading(in, groups, m, findings, v, NULL, err);
    if (rc != 0 || !nboth || v->status != FA_STATUS_HANG) {
        free(flags_before);
        return rc;
    }
    if (blame_stays_on_stalls(in, m, v)) {
        rc = decide_stalled(in, groups, m, findings, n, flags_before, v, err);
        free(flags_before);
        return rc;
    }
    fa_either_plan plan;
    memset(&plan, 0, sizeof plan);
    rc = weigh_beside(in, groups, m, findings, n, flags_before, nboth, v, &plan, err);
    if (rc == 0 && (plan.withdrawn.n || plan.offered.n)) {
        fa_verdict_free(v);
        fa_findings_truncate(findings, n);
        restore_flags(findings, flags_before, n);
        rc = fa_verdict_decide_reading(in, groups, m, findings, v, &plan, err);
    } else if (rc != 0) {
        fr_fail(err, "out of memory while deciding the verdict");
    }
    fa_ve_plan_free(&plan);
    free(flags_before);
    return rc;
}
