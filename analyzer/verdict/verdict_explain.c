/* verdict_explain.c — what the reports present once the culprits are known (verdict_explain.h).
 *
 * Evidence: for every op that someone has pending (the graph's op nodes, ascending), what each
 * root cause in it did: never issued it, wrote no (readable) dump, stalled while a peer completed
 * it, never started it while peers did, or is broken there (crashed, async error); and every
 * mismatch naming it. Rows are sorted by rank, then what it did itself before what it left
 * undone, then group and seq. A member without a dump gets rows in at most
 * EVIDENCE_NO_DUMP_MAX members per op: the finding names the rest as a range.
 *
 * The wait chain: level 0 is the root causes (the culprits), level 1 the ranks others wait for
 * that are blocked themselves (victims that look like causes), level 2 the ranks that only wait.
 * Each pending op adds its pending members to their level, and its targets (who the others wait
 * for) to that level's waits_for, once per rank; `via` names the groups and op types of the waits
 * (via_set). Each rank's oldest pending op is kept, so that lagging_ranks can say, per op, which
 * victims are blocked there and on whom.
 *
 * A p2p_unmatched finding whose absent side is a root cause or has something pending itself is
 * part of the hang: it is marked explained, and the reports fold it into one count.
 */
#include "verdict/verdict_explain.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "util/xmalloc.h"

/* The level-0 ranks of the wait chain: the hang's root causes and the verdict's culprits. */
static bool is_root(const decider *d, size_t node) {
    return d->facts[node].culprit || fa_ranks_contains(&d->v->culprits, d->facts[node].rank);
}

/* Members of op that the others in it wait for: they never issued it, wrote no dump, have it
 * only scheduled where another member's GPU started it (their stream has not reached it), or
 * are root causes that have not completed it. d->members and d->states hold op's n expected members
 * (fa_vg_expected_states). */
static void op_targets(const decider *d, size_t op, uint32_t n, fa_ranks *out) {
    const fa_group *grp = &d->groups->v[d->m->ops[op].group];
    bool started = false;
    for (uint32_t k = 0; k < n && !started; k++) started = d->states[k] == FA_MS_STARTED;
    out->n = 0;
    for (uint32_t k = 0; k < n; k++) {
        fa_member_state s = d->states[k];
        long node = fa_vg_rank_node(d, grp->members[d->members[k]]);
        if (s == FA_MS_NEVER || s == FA_MS_NO_DUMP || (started && s == FA_MS_SCHEDULED) ||
            (node >= 0 && s != FA_MS_COMPLETED && is_root(d, (size_t)node)))
            fa_ranks_add(out, grp->members[d->members[k]]);
    }
}

typedef struct via_set {
    fa_smap seen; /* "desc\x1ftype" */
    char **descs; /* distinct descs in order of first use, each with its types "send/recv" */
    size_t n, cap;
} via_set;

static void via_add(via_set *vs, const decider *d, size_t op) {
    const fa_op *o = &d->m->ops[op];
    const fa_group *grp = &d->groups->v[o->group];
    char label[300]; /* "group 5" when the description says nothing, as every section says it */
    snprintf(label, sizeof label, "group %s", grp->id);
    const char *desc = fa_desc_says_nothing(grp->desc) ? label : grp->desc;
    char key[400];
    const char *type = fa_op_type(d->m, o);
    snprintf(key, sizeof key, "%s\x1f%s", desc, type);
    uint64_t at;
    if (fa_smap_get(&vs->seen, key, &at)) return;
    fa_smap_put(&vs->seen, key, 0);
    for (size_t i = 0; i < vs->n; i++) {
        size_t len = strlen(desc);
        if (strncmp(vs->descs[i], desc, len) == 0 && vs->descs[i][len] == ' ') {
            size_t ntypes = 1;
            for (const char *c = vs->descs[i] + len; *c; c++) ntypes += *c == '/';
            if (ntypes == 3 || strstr(vs->descs[i] + len, "/..."))
                return; /* three types say enough */
            char *more = xasprintf("%s/%s", vs->descs[i], ntypes == 2 ? "..." : type);
            free(vs->descs[i]);
            vs->descs[i] = more;
            return;
        }
    }
    xgrow((void **)&vs->descs, &vs->cap, vs->n + 1, sizeof *vs->descs, 8);
    vs->descs[vs->n++] = xasprintf("%s %s", desc, type);
}

/* "A send/recv, B recv" (at most four groups, then "and N more"); frees the set. */
static char *via_text(via_set *vs) {
    size_t len = 1;
    for (size_t i = 0; i < vs->n && i < 4; i++) len += strlen(vs->descs[i]) + 2;
    char *text = malloc(len + 32);
    if (text) {
        size_t at = 0;
        text[0] = '\0';
        for (size_t i = 0; i < vs->n && i < 4; i++)
            at += (size_t)sprintf(text + at, "%s%s", i ? ", " : "", vs->descs[i]);
        if (vs->n > 4) sprintf(text + at, " and %zu more", vs->n - 4);
    }
    for (size_t i = 0; i < vs->n; i++) free(vs->descs[i]);
    free(vs->descs);
    fa_smap_free(&vs->seen);
    return text;
}

static int add_evidence(decider *d, int64_t rank, size_t op, fa_evidence_kind kind,
                        const fa_ranks *waiters, const fa_ranks *done) {
    fa_verdict *v = d->v;
    if (fr_grow((void **)&v->evidence, &v->evidence_cap, v->nevidence + 1, sizeof *v->evidence, 1))
        return -1;
    fa_evidence *e = &v->evidence[v->nevidence++];
    *e = (fa_evidence){ rank,
                        (long)op,
                        d->m->ops[op].group,
                        d->m->ops[op].seq,
                        d->m->ops[op].is_p2p,
                        kind,
                        { 0 },
                        { 0 },
                        0,
                        NULL };
    for (size_t i = 0; waiters && i < waiters->n; i++)
        if (waiters->v[i] != rank) fa_ranks_add(&e->waiters, waiters->v[i]);
    for (size_t i = 0; done && i < done->n; i++) fa_ranks_add(&e->done, done->v[i]);
    return 0;
}

/* A culprit broken in op's group: others pending there wait on it (a crash or an async error);
 * what it has pending itself there is no evidence of anything, so with nobody waiting: no row. */
static int add_broken_evidence(decider *d, size_t node, size_t op, const fa_ranks *pending) {
    const rank_facts *f = &d->facts[node];
    if (!pending->n || (pending->n == 1 && pending->v[0] == f->rank)) return 0;
    const char *error = f->crashed ? NULL : fa_vg_async_error(d, node, d->m->ops[op].group);
    if (add_evidence(d, f->rank, op, error ? FA_EV_ASYNC_ERROR : FA_EV_CRASHED, pending, NULL))
        return -1;
    d->v->evidence[d->v->nevidence - 1].signal = f->signal;
    d->v->evidence[d->v->nevidence - 1].error = error;
    return 0;
}

/* What each culprit did in every op that someone waits in (and every mismatch naming it). */
enum { EVIDENCE_NO_DUMP_MAX = 256 };

static int collect_evidence(decider *d, size_t nmatch_findings) {
    int rc = 0;
    for (size_t i = 0; i < nmatch_findings && !rc; i++) {
        const fa_finding *f = &d->findings->v[i];
        if (!fa_finding_is_mismatch(f->kind) || f->op < 0) continue;
        for (size_t k = 0; k < f->ranks.n && !rc; k++)
            rc = add_evidence(d, f->ranks.v[k], (size_t)f->op, FA_EV_MISMATCHED, NULL, &f->others);
    }
    /* only ops with a pending member say anything: those are the graph's op nodes, ascending */
    for (size_t x = d->g.nrank_nodes; x < d->g.nnodes && !rc; x++) {
        size_t op = (size_t)d->g.op_of_node[x - d->g.nrank_nodes];
        fa_ranks pending = { 0 }, completed = { 0 }, started = { 0 };
        const fa_group *grp = &d->groups->v[d->m->ops[op].group];
        uint32_t n = fa_vg_expected_states(d, op);
        for (uint32_t k = 0; k < n; k++) {
            int64_t r = grp->members[d->members[k]];
            if (fa_member_state_pending(d->states[k])) fa_ranks_add(&pending, r);
            if (fa_vg_is_completed(d->states[k])) fa_ranks_add(&completed, r);
            if (fa_vg_is_started(d->states[k])) fa_ranks_add(&started, r);
        }
        fa_ranks_normalize(&pending);
        fa_ranks_normalize(&completed);
        fa_ranks_normalize(&started);
        if (!pending.n) n = 0;
        uint32_t without_dump = 0;
        for (uint32_t k = 0; k < n && !rc; k++) {
            int64_t r = grp->members[d->members[k]];
            fa_member_state s = d->states[k];
            /* a million members without a dump need not a row each in every op: the finding
             * names them all as a range; the rows show the first EVIDENCE_NO_DUMP_MAX */
            if (s == FA_MS_NO_DUMP && ++without_dump > EVIDENCE_NO_DUMP_MAX) continue;
            long node = fa_vg_rank_node(d, r);
            if (node < 0 || !is_root(d, (size_t)node)) continue;
            if (s != FA_MS_COMPLETED && fa_vg_broken(d, (size_t)node, d->m->ops[op].group))
                rc = add_broken_evidence(d, (size_t)node, op, &pending);
            else if (s == FA_MS_NEVER || s == FA_MS_NO_DUMP)
                rc = add_evidence(d, r, op,
                                  s == FA_MS_NEVER            ? FA_EV_NEVER_ISSUED
                                  : d->facts[node].unreadable ? FA_EV_UNREADABLE
                                                              : FA_EV_NO_DUMP,
                                  &pending, NULL);
            else if (fa_member_state_pending(s) && completed.n)
                rc = add_evidence(d, r, op, FA_EV_STALLED, &pending, &completed);
            else if (fa_vg_never_started(d, op, k) && started.n)
                rc = add_evidence(d, r, op, FA_EV_NEVER_STARTED, &pending, &started);
        }
        fa_ranks_free(&pending);
        fa_ranks_free(&completed);
        fa_ranks_free(&started);
    }
    return rc;
}

/* What a culprit did itself (stalled, never started, mismatched) reads before what it left
 * undone (never issued, no dump). */
static int kind_order(fa_evidence_kind k) {
    switch (k) {
    case FA_EV_CRASHED: return -2;
    case FA_EV_ASYNC_ERROR: return -1;
    case FA_EV_STALLED: return 0;
    case FA_EV_NEVER_STARTED: return 1;
    case FA_EV_MISMATCHED: return 2;
    case FA_EV_NO_DUMP: return 3;
    case FA_EV_UNREADABLE: return 3;
    case FA_EV_NEVER_ISSUED: return 4;
    }
    return 5;
}

static int compare_evidence(const void *pa, const void *pb) {
    const fa_evidence *a = pa, *b = pb;
    if (a->rank != b->rank) return a->rank < b->rank ? -1 : 1;
    if (a->p2p != b->p2p) return a->p2p ? 1 : -1;
    if (a->kind != b->kind) return kind_order(a->kind) < kind_order(b->kind) ? -1 : 1;
    if (a->group != b->group) return a->group < b->group ? -1 : 1;
    if (a->seq != b->seq) return a->seq < b->seq ? -1 : 1;
    return (a->op > b->op) - (a->op < b->op);
}

typedef struct chain {
    via_set via[FA_WAIT_LEVELS];
    long *block_op;     /* per rank node: the oldest pending op it waits in, -1 */
    int64_t *block_rec; /* its record_id */
    uint8_t *listed;    /* per rank node: bit l once it is in levels[l].waits_for */
} chain;

static int level_of(const decider *d, size_t node) {
    return is_root(d, node) ? 0 : d->facts[node].waited ? 1 : 2;
}

/* Adds every pending member of op that waits on someone to its level, once per op per level.
 * d->members and d->states hold op's n expected members (fa_vg_expected_states). */
static void chain_op(decider *d, chain *c, size_t op, const fa_ranks *targets, uint32_t n) {
    const fa_group *grp = &d->groups->v[d->m->ops[op].group];
    bool added[FA_WAIT_LEVELS] = { false };
    for (uint32_t k = 0; k < n; k++) {
        fa_member_state s = d->states[k];
        int64_t r = grp->members[d->members[k]];
        long node = fa_vg_rank_node(d, r);
        if (node < 0 || !fa_member_state_pending(s) || (targets->n == 1 && targets->v[0] == r))
            continue;
        int level = level_of(d, (size_t)node);
        if (level == 0) continue;
        fa_wait_level *l = &d->v->levels[level];
        fa_ranks_add(&l->ranks, r);
        if (!added[level]) {
            added[level] = true;
            for (size_t t = 0; t < targets->n;
                 t++) { /* once per rank, not per op: a million targets */
                long tn = fa_vg_rank_node(d, targets->v[t]);
                if (tn >= 0 && (c->listed[tn] & (1u << level))) continue;
                if (tn >= 0) c->listed[tn] |= (uint8_t)(1u << level);
                fa_ranks_add(&l->waits_for, targets->v[t]);
            }
            via_add(&c->via[level], d, op);
        }
        int64_t rec = fa_vg_call_record(d, op, d->members[k]);
        if (c->block_op[node] < 0 || rec < c->block_rec[node]) {
            c->block_op[node] = (long)op;
            c->block_rec[node] = rec;
        }
    }
}

static int compare_pairs(const void *pa, const void *pb) {
    const int64_t *a = pa, *b = pb;
    if (a[0] != b[0]) return a[0] < b[0] ? -1 : 1;
    return (a[1] > b[1]) - (a[1] < b[1]);
}

/* lagging_ranks: the level-1 ranks, grouped by the op each is blocked in, with whom they wait
 * for. */
static void note_victims(decider *d, const chain *c) {
    const fa_wait_level *l = &d->v->levels[1];
    if (!l->ranks.n) return;
    fa_finding *x = fa_findings_add(d->findings, FA_LAGGING_RANKS, -1, -1);
    for (size_t i = 0; i < l->ranks.n; i++) fa_ranks_add(&x->ranks, l->ranks.v[i]);
    size_t cap = 2048, used = 0, shown = 0, total = 0, n = 0;
    char *where = calloc(cap, 1);
    /* (op, rank) pairs sorted by op: the ranks blocked in one op are adjacent (linear at scale) */
    int64_t(*pairs)[2] = malloc((l->ranks.n + 1) * sizeof *pairs);
    for (size_t i = 0; pairs && i < l->ranks.n; i++) {
        long node = fa_vg_rank_node(d, l->ranks.v[i]);
        if (node >= 0 && c->block_op[node] >= 0) {
            pairs[n][0] = c->block_op[node];
            pairs[n++][1] = l->ranks.v[i];
        }
    }
    if (pairs) qsort(pairs, n, sizeof *pairs, compare_pairs);
    fa_ranks same = { 0 }, targets = { 0 };
    for (size_t i = 0; where && pairs && i < n;) {
        long op = (long)pairs[i][0];
        same.n = 0;
        for (; i < n && pairs[i][0] == op; i++) fa_ranks_add(&same, pairs[i][1]);
        total++;
        if (shown == 4) continue;
        op_targets(d, (size_t)op, fa_vg_expected_states(d, (size_t)op), &targets);
        char group[300], label[200];
        fa_vg_context(d, (size_t)op, group, sizeof group, label, sizeof label);
        char *who = fa_ranks_format(same.v, same.n), *whom = fa_ranks_format(targets.v, targets.n);
        if (who && whom && used + 600 < cap)
            used += (size_t)snprintf(where + used, cap - used, "%s%s in %s %s (waiting for %s)",
                                     shown ? "; " : "", who, group, label, whom);
        shown++;
        free(who);
        free(whom);
    }
    free(pairs);
    if (where && total > shown) snprintf(where + used, cap - used, "; and %zu more", total - shown);
    char *all = fa_ranks_format(x->ranks.v, x->ranks.n);
    fa_finding_set_detail(x, "rank%s %s hold%s others up only because %s stuck %s: %s; %s",
                          x->ranks.n > 1 ? "s" : "", all, x->ranks.n > 1 ? "" : "s",
                          x->ranks.n > 1 ? "they are" : "it is",
                          x->ranks.n > 1 ? "themselves" : "itself", where ? where : "",
                          x->ranks.n > 1 ? "victims, not causes" : "a victim, not a cause");
    free(all);
    free(where);
    fa_ranks_free(&same);
    fa_ranks_free(&targets);
}

/* A p2p_unmatched whose absent side is a culprit or blocked itself is part of the hang. */
static void explain_p2p(decider *d) {
    for (size_t i = 0; i < d->findings->n; i++) {
        fa_finding *f = &d->findings->v[i];
        if (f->kind != FA_P2P_UNMATCHED || !f->ranks.n) continue;
        long node = fa_vg_rank_node(d, f->ranks.v[0]);
        if (node >= 0 && (is_root(d, (size_t)node) || fa_vg_node_pending(d, (size_t)node))) {
            f->explained = true;
            d->v->nexplained_p2p++;
        }
    }
}

/* Evidence per culprit, the wait chain, lagging ranks, explained p2p findings. */
int fa_verdict_explain(decider *d, size_t nmatch_findings) {
    if (collect_evidence(d, nmatch_findings) != 0) return -1;
    if (d->v->nevidence)
        qsort(d->v->evidence, d->v->nevidence, sizeof *d->v->evidence, compare_evidence);
    chain c = { 0 };
    c.block_op = malloc((d->nfacts + 1) * sizeof *c.block_op);
    c.block_rec = malloc((d->nfacts + 1) * sizeof *c.block_rec);
    c.listed = calloc(d->nfacts + 1, 1);
    if (!c.block_op || !c.block_rec || !c.listed) {
        free(c.block_op);
        free(c.block_rec);
        free(c.listed);
        return -1;
    }
    for (size_t i = 0; i < d->nfacts; i++) c.block_op[i] = -1;
    fa_ranks targets = { 0 };
    for (size_t n = d->g.nrank_nodes; n < d->g.nnodes; n++) {
        size_t op = (size_t)d->g.op_of_node[n - d->g.nrank_nodes];
        uint32_t count = fa_vg_expected_states(d, op);
        op_targets(d, op, count, &targets);
        if (targets.n) chain_op(d, &c, op, &targets, count);
    }
    fa_ranks_free(&targets);
    for (size_t i = 0; i < d->nfacts; i++)
        if (is_root(d, i)) fa_ranks_add(&d->v->levels[0].ranks, d->facts[i].rank);
    for (int l = 0; l < FA_WAIT_LEVELS; l++) {
        fa_ranks_normalize(&d->v->levels[l].ranks);
        fa_ranks_normalize(&d->v->levels[l].waits_for);
        if (l) d->v->levels[l].via = via_text(&c.via[l]);
    }
    note_victims(d, &c);
    explain_p2p(d);
    free(c.block_op);
    free(c.block_rec);
    free(c.listed);
    return 0;
}
