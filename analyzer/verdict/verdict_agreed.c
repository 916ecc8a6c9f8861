/* verdict_agreed.c — what the readings of a dump older only by what it shows issued agree on
 * (verdict_either.c), carried out in the verdict's last decision (verdict.c).
 *
 * After the sinks are judged, the culprits the readings do not all name leave the culprit
 * findings (a finding left naming nobody goes), before the evidence is gathered; the offered
 * ranks become one ambiguity, "one of them" (why FA_WHY_RAN_PAST for the ranks whose dumps were
 * read both ways), or, where no culprit was withdrawn and no ambiguity is open, ranks that may
 * have stopped too beside the culprits (maybe_also). The title, the alternatives and the
 * evidence then come from the usual steps. Linear in the culprit findings and offered ranks.
 */
#include "verdict/verdict_either.h"

#include <stdlib.h>
#include <string.h>

/* Why offered rank node x would be the root cause. */
static const char *offered_why(const decider *d, size_t node) {
    const rank_facts *f = &d->facts[node];
    if (fa_ranks_contains(&d->plan->ran_past, f->rank)) return FA_WHY_RAN_PAST;
    if (!f->has_dump) return FA_WHY_NO_DUMP;
    return f->stale ? FA_WHY_STALE : FA_WHY_STOPPED;
}

/* The withdrawn ranks leave the culprit findings [before, *after_sinks); a finding left naming
 * nobody goes, the later ones moving down. */
static void withdraw_culprits(decider *d, size_t before, size_t *after_sinks) {
    fa_findings *fs = d->findings;
    size_t kept = before;
    for (size_t i = before; i < *after_sinks; i++) {
        fa_finding *f = &fs->v[i];
        size_t n = 0;
        for (size_t k = 0; k < f->ranks.n; k++)
            if (!fa_ranks_contains(&d->plan->withdrawn, f->ranks.v[k]))
                f->ranks.v[n++] = f->ranks.v[k];
        bool emptied = f->ranks.n && !n;
        f->ranks.n = n;
        if (emptied)
            fa_finding_release(f);
        else
            fs->v[kept++] = *f;
    }
    size_t dropped = *after_sinks - kept;
    memmove(fs->v + kept, fs->v + *after_sinks, (fs->n - *after_sinks) * sizeof *fs->v);
    fs->n -= dropped;
    *after_sinks = kept;
}

int fa_ve_apply_plan(decider *d, size_t before, size_t *after_sinks) {
    const fa_either_plan *p = d->plan;
    withdraw_culprits(d, before, after_sinks);
    if (!p->offered.n) return 0;
    if (!p->withdrawn.n && !d->nambiguities) { /* the culprits stand: one may have stopped too */
        fa_ranks_add_all(&d->maybe_also, &p->offered);
        return 0;
    }
    /* one of them: the ranks that may have stopped too are options as well (the alternatives
     * list the ambiguities' options alone where there are some) */
    fa_ranks offered = { 0 };
    fa_ranks_add_all(&offered, &p->offered);
    fa_ranks_add_all(&offered, &d->maybe_also);
    fa_ranks_normalize(&offered);
    fa_option *options = malloc((offered.n + 1) * sizeof *options);
    size_t n = 0;
    for (size_t k = 0; options && k < offered.n; k++) {
        long node = fa_vg_rank_node(d, offered.v[k]);
        if (node >= 0) options[n++] = (fa_option){ (uint32_t)node, offered_why(d, (size_t)node) };
    }
    int rc = !options ? -1 : n ? fa_vg_note_ambiguity(d, options, n) : 0;
    free(options);
    fa_ranks_free(&offered);
    return rc;
}

void fa_ve_plan_free(fa_either_plan *plan) {
    fa_ranks_free(&plan->withdrawn);
    fa_ranks_free(&plan->offered);
    fa_ranks_free(&plan->ran_past);
    memset(plan, 0, sizeof *plan);
}
