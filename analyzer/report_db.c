/* report_db.c — the analysis database (contract §4, schema "frtrace-db/1") through cJSON.
 *
 * collectives: one row per op of each group, all ranks merged; nccl_calls: by default only the
 * calls of ops that did not pass and calls that matched nothing (--all-calls: every call), so
 * the database grows with the problems, not with the job.
 */
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "report.h"

static cJSON *rank_array(const int64_t *v, size_t n) {
    cJSON *a = cJSON_CreateArray();
    for (size_t i = 0; i < n; i++) cJSON_AddItemToArray(a, cJSON_CreateNumber((double)v[i]));
    return a;
}

static cJSON *shapes_json(const fr_shapes *s) {
    cJSON *a = cJSON_CreateArray();
    for (uint32_t i = 0; i < s->count; i++) {
        cJSON *shape = cJSON_CreateArray();
        for (uint32_t d = 0; d < s->shapes[i].ndim; d++) cJSON_AddItemToArray(shape, cJSON_CreateNumber((double)s->shapes[i].dims[d]));
        cJSON_AddItemToArray(a, shape);
    }
    return a;
}

static cJSON *strings_json(const fr_strings *s) {
    cJSON *a = cJSON_CreateArray();
    for (uint32_t i = 0; i < s->count; i++) cJSON_AddItemToArray(a, cJSON_CreateString(s->items[i]));
    return a;
}

static cJSON *input_json(const fa_analysis *a) {
    cJSON *in = cJSON_CreateObject();
    cJSON_AddStringToObject(in, "dir", a->in.dir);
    cJSON_AddStringToObject(in, "prefix", a->in.prefix);
    cJSON *versions = cJSON_AddArrayToObject(in, "versions");
    for (size_t i = 0; i < a->in.nversions; i++) cJSON_AddItemToArray(versions, cJSON_CreateString(a->in.versions[i]));
    cJSON *loaded = cJSON_AddArrayToObject(in, "ranks_loaded");
    for (size_t i = 0; i < a->in.nranks; i++) cJSON_AddItemToArray(loaded, cJSON_CreateNumber((double)a->in.ranks[i].rank));
    cJSON_AddItemToObject(in, "ranks_without_dump", rank_array(a->groups.without_dump.v, a->groups.without_dump.n));
    cJSON *rejected = cJSON_AddArrayToObject(in, "files_rejected");
    for (size_t i = 0; i < a->in.nrejected; i++) {
        cJSON *r = cJSON_CreateObject();
        cJSON_AddStringToObject(r, "path", a->in.rejected[i].path);
        cJSON_AddStringToObject(r, "error", a->in.rejected[i].error);
        cJSON_AddItemToArray(rejected, r);
    }
    return in;
}

static void add_groups(const fa_analysis *a, cJSON *root) {
    cJSON *groups = cJSON_AddArrayToObject(root, "groups");
    cJSON *members = cJSON_AddArrayToObject(root, "memberships");
    for (size_t i = 0; i < a->groups.n; i++) {
        const fa_group *g = &a->groups.v[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "id", g->id);
        cJSON_AddStringToObject(o, "name", g->name);
        cJSON_AddStringToObject(o, "desc", g->desc);
        cJSON_AddNumberToObject(o, "size", g->nmembers);
        cJSON_AddItemToObject(o, "ranks", rank_array(g->members, g->nmembers));
        cJSON_AddItemToArray(groups, o);
        for (uint32_t m = 0; m < g->nmembers; m++) {
            cJSON *ms = cJSON_CreateObject();
            cJSON_AddStringToObject(ms, "group_id", g->id);
            cJSON_AddNumberToObject(ms, "global_rank", (double)g->members[m]);
            cJSON_AddItemToArray(members, ms);
        }
    }
}

static bool op_passes(const fa_analysis *a, size_t op, fa_ranks *missing, fa_ranks *expected) {
    const fa_op *o = &a->match.ops[op];
    const fa_group *g = &a->groups.v[o->group];
    uint32_t *members = malloc((g->nmembers + 2) * sizeof *members);
    uint32_t n = members ? fa_op_expected(&a->match, &a->groups, op, members) : 0;
    for (uint32_t k = 0; k < n; k++) {
        fa_member_state s = fa_op_member_state(&a->match, &a->groups, op, members[k]);
        fa_ranks_add(expected, g->members[members[k]]);
        if (s == FA_MS_NEVER || s == FA_MS_NO_DUMP) fa_ranks_add(missing, g->members[members[k]]);
    }
    free(members);
    fa_ranks_normalize(missing);
    fa_ranks_normalize(expected);
    return !o->mismatch && !o->unmatched && missing->n == 0;
}

static const char *op_state(const fa_analysis *a, const fa_op *o) {
    fr_state least = FR_STATE_COMPLETED;
    for (uint32_t k = 0; k < o->ncalls; k++)
        if (a->match.calls[o->first_call + k].state < least) least = a->match.calls[o->first_call + k].state;
    return fr_state_name(least);
}

static void add_collectives(const fa_analysis *a, const fa_report_options *opt, cJSON *root) {
    cJSON *rows = cJSON_AddArrayToObject(root, "collectives");
    cJSON *calls = cJSON_AddArrayToObject(root, "nccl_calls");
    size_t call_id = 0;
    for (size_t i = 0; i < a->match.nops; i++) {
        const fa_op *o = &a->match.ops[i];
        if (!o->rep) continue;
        const fa_group *g = &a->groups.v[o->group];
        fa_ranks missing = {0}, expected = {0};
        bool pass = op_passes(a, i, &missing, &expected);
        cJSON *r = cJSON_CreateObject();
        cJSON_AddNumberToObject(r, "id", (double)i);
        cJSON_AddStringToObject(r, "group_id", g->id);
        cJSON_AddNumberToObject(r, "collective_seq_id", (double)o->rep->collective_seq_id);
        cJSON_AddNumberToObject(r, "p2p_seq_id", (double)o->rep->p2p_seq_id);
        cJSON_AddNumberToObject(r, "record_id", (double)o->rep->record_id);
        cJSON_AddStringToObject(r, "profiling_name", o->rep->profiling_name);
        cJSON_AddItemToObject(r, "input_sizes", shapes_json(&o->rep->input_sizes));
        cJSON_AddItemToObject(r, "output_sizes", shapes_json(&o->rep->output_sizes));
        cJSON_AddItemToObject(r, "input_dtypes", strings_json(&o->rep->input_dtypes));
        cJSON_AddItemToObject(r, "output_dtypes", strings_json(&o->rep->output_dtypes));
        cJSON_AddStringToObject(r, "state", op_state(a, o));
        cJSON_AddItemToObject(r, "expected_ranks", rank_array(expected.v, expected.n));
        cJSON_AddItemToObject(r, "missing_ranks", rank_array(missing.v, missing.n));
        cJSON_AddBoolToObject(r, "pass_check", pass);
        const char *mismatch = NULL;
        for (size_t f = 0; f < a->findings.n && !mismatch; f++)
            if (a->findings.v[f].op == (long)i && fa_finding_is_mismatch(a->findings.v[f].kind)) mismatch = fa_finding_kind_name(a->findings.v[f].kind);
        if (mismatch) cJSON_AddStringToObject(r, "mismatch", mismatch);
        else cJSON_AddNullToObject(r, "mismatch");
        cJSON_AddItemToArray(rows, r);
        for (uint32_t k = 0; k < o->ncalls; k++) {
            const fa_call *c = &a->match.calls[o->first_call + k];
            if (!opt->all_calls && pass && !o->unmatched) continue;
            const fr_entry *e = fa_call_entry(&a->match, &a->in, c, 0);
            cJSON *call = cJSON_CreateObject();
            cJSON_AddNumberToObject(call, "id", (double)call_id++);
            cJSON_AddNumberToObject(call, "collective_id", (double)i);
            cJSON_AddStringToObject(call, "group_id", g->id);
            cJSON_AddNumberToObject(call, "global_rank", (double)g->members[c->member]);
            cJSON_AddNumberToObject(call, "record_id", (double)e->record_id);
            cJSON_AddStringToObject(call, "profiling_name", e->profiling_name);
            cJSON_AddStringToObject(call, "state", fr_state_name(c->state));
            cJSON_AddItemToObject(call, "input_sizes", shapes_json(&e->input_sizes));
            cJSON_AddItemToObject(call, "output_sizes", shapes_json(&e->output_sizes));
            cJSON_AddItemToArray(calls, call);
        }
        fa_ranks_free(&missing);
        fa_ranks_free(&expected);
    }
}

static void add_findings(const fa_analysis *a, cJSON *root) {
    cJSON *list = cJSON_AddArrayToObject(root, "findings");
    for (size_t i = 0; i < a->findings.n; i++) {
        const fa_finding *f = &a->findings.v[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "kind", fa_finding_kind_name(f->kind));
        if (f->group >= 0) {
            cJSON_AddStringToObject(o, "group_id", a->groups.v[f->group].id);
            cJSON_AddStringToObject(o, "group_desc", a->groups.v[f->group].desc);
        } else {
            cJSON_AddNullToObject(o, "group_id");
            cJSON_AddNullToObject(o, "group_desc");
        }
        if (f->op >= 0 && a->match.ops[f->op].rep) {
            const fa_op *op = &a->match.ops[f->op];
            cJSON_AddNumberToObject(o, "collective_seq_id", (double)(op->is_p2p ? op->rep->collective_seq_id : op->seq));
            if (op->is_p2p) cJSON_AddNumberToObject(o, "p2p_seq_id", (double)op->seq);
            cJSON_AddStringToObject(o, "profiling_name", op->rep->profiling_name);
            cJSON_AddNumberToObject(o, "collective_id", (double)f->op);
        } else {
            cJSON_AddNullToObject(o, "collective_seq_id");
            cJSON_AddNullToObject(o, "profiling_name");
        }
        cJSON_AddItemToObject(o, "ranks", rank_array(f->ranks.v, f->ranks.n));
        cJSON_AddItemToObject(o, "other_ranks", rank_array(f->others.v, f->others.n));
        cJSON_AddStringToObject(o, "detail", f->detail ? f->detail : "");
        cJSON_AddBoolToObject(o, "warning", fa_finding_is_warning(f->kind));
        cJSON_AddBoolToObject(o, "listed", f->listed);
        if (f->kind == FA_P2P_UNMATCHED) cJSON_AddBoolToObject(o, "explained_by_hang", f->explained);
        cJSON_AddItemToArray(list, o);
    }
}

static const char *evidence_kind_name(fa_evidence_kind k) {
    switch (k) {
    case FA_EV_NEVER_ISSUED: return "never_issued";
    case FA_EV_NO_DUMP: return "no_dump";
    case FA_EV_STALLED: return "stalled";
    case FA_EV_NEVER_STARTED: return "never_started";
    case FA_EV_MISMATCHED: return "mismatched";
    }
    return "?";
}

/* verdict.culprit_evidence (every row, uncapped) and verdict.wait_chain (levels, root first). */
static void add_explanation(const fa_analysis *a, cJSON *verdict) {
    cJSON *rows = cJSON_AddArrayToObject(verdict, "culprit_evidence");
    for (size_t i = 0; i < a->verdict.nevidence; i++) {
        const fa_evidence *e = &a->verdict.evidence[i];
        const fa_op *o = &a->match.ops[e->op];
        cJSON *r = cJSON_CreateObject();
        cJSON_AddNumberToObject(r, "rank", (double)e->rank);
        cJSON_AddStringToObject(r, "group_id", a->groups.v[e->group].id);
        cJSON_AddStringToObject(r, "group_desc", a->groups.v[e->group].desc);
        cJSON_AddNumberToObject(r, "collective_id", (double)e->op);
        cJSON_AddNumberToObject(r, o->is_p2p ? "p2p_seq_id" : "collective_seq_id", (double)e->seq);
        cJSON_AddStringToObject(r, "op_type", o->type);
        cJSON_AddStringToObject(r, "what", evidence_kind_name(e->kind));
        cJSON_AddItemToObject(r, "waiting_ranks", rank_array(e->waiters.v, e->waiters.n));
        cJSON_AddItemToObject(r, e->kind == FA_EV_NEVER_STARTED ? "started_ranks" : e->kind == FA_EV_MISMATCHED ? "majority_ranks" : "completed_ranks",
                              rank_array(e->done.v, e->done.n));
        cJSON_AddItemToArray(rows, r);
    }
    cJSON *chain = cJSON_AddArrayToObject(verdict, "wait_chain");
    for (int l = 0; l < FA_WAIT_LEVELS; l++) {
        const fa_wait_level *w = &a->verdict.levels[l];
        if (!w->ranks.n) continue;
        cJSON *r = cJSON_CreateObject();
        cJSON_AddNumberToObject(r, "level", l);
        cJSON_AddItemToObject(r, "ranks", rank_array(w->ranks.v, w->ranks.n));
        cJSON_AddItemToObject(r, "wait_for", rank_array(w->waits_for.v, w->waits_for.n));
        if (w->via) cJSON_AddStringToObject(r, "via", w->via);
        else cJSON_AddNullToObject(r, "via");
        cJSON_AddItemToArray(chain, r);
    }
    cJSON_AddNumberToObject(verdict, "p2p_explained_by_hang", (double)a->verdict.nexplained_p2p);
}

int fa_report_db(const fa_analysis *a, const fa_report_options *opt, FILE *out) {
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "schema", "frtrace-db/1");
    cJSON_AddStringToObject(root, "generator", "frtrace " FRTRACE_VERSION);
    cJSON_AddItemToObject(root, "input", input_json(a));
    add_groups(a, root);
    add_collectives(a, opt, root);
    add_findings(a, root);
    cJSON *verdict = cJSON_AddObjectToObject(root, "verdict");
    cJSON_AddStringToObject(verdict, "status", fa_status_name(a->verdict.status));
    cJSON_AddItemToObject(verdict, "culprit_ranks", rank_array(a->verdict.culprits.v, a->verdict.culprits.n));
    cJSON_AddStringToObject(verdict, "summary", a->verdict.summary ? a->verdict.summary : "");
    add_explanation(a, verdict);
    char *text = cJSON_PrintUnformatted(root);
    cJSON_Delete(root);
    if (!text) return -1;
    fputs(text, out);
    fputc('\n', out);
    free(text);
    return ferror(out) ? -1 : 0;
}
