/* report_db.c — the analysis database (contract §4, schema "frtrace-db/1"), written as it goes.
 *
 * collectives: one row per op of each group, all ranks merged; nccl_calls: by default only the
 * calls of ops that did not pass and calls that matched nothing (--all-calls: every call), so
 * the database grows with the problems, not with the job.
 *
 * A healthy 512-rank job already lists 180 000 collectives (64 MB of JSON); building that as
 * one cJSON tree cost more than the analysis. So rows are written straight to the FILE through
 * a buffer, in the exact form cJSON_PrintUnformatted gave before (same key order, cJSON's string
 * escaping and number formatting), and nothing of a row outlives it.
 */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "report.h"

/* ---------------------------------------------------------------- JSON writer ------ */

typedef struct jw {
    FILE *out;
    char buf[1 << 16];
    size_t n;
    bool comma; /* the next value in the current object/array needs a comma before it */
} jw;

static void jw_flush(jw *w) {
    if (w->n) fwrite(w->buf, 1, w->n, w->out);
    w->n = 0;
}

static void jw_raw(jw *w, const char *s, size_t len) {
    if (w->n + len > sizeof w->buf) jw_flush(w);
    if (len > sizeof w->buf) {
        fwrite(s, 1, len, w->out);
        return;
    }
    memcpy(w->buf + w->n, s, len);
    w->n += len;
}

static void jw_char(jw *w, char c) {
    if (w->n == sizeof w->buf) jw_flush(w);
    w->buf[w->n++] = c;
}

static void jw_sep(jw *w) {
    if (w->comma) jw_char(w, ',');
    w->comma = true;
}

static void jw_open(jw *w, char c) {
    jw_sep(w);
    jw_char(w, c);
    w->comma = false;
}

static void jw_close(jw *w, char c) {
    jw_char(w, c);
    w->comma = true;
}

/* cJSON's print_string_ptr: ", \ and control characters escaped, other bytes as they are. */
static void jw_string_body(jw *w, const char *s) {
    /* fast path: most strings (ids, types, states, keys) need no escaping; copy them whole */
    const unsigned char *q = (const unsigned char *)s;
    while (*q >= 32 && *q != '"' && *q != '\\') q++;
    if (!*q) {
        size_t len = (size_t)(q - (const unsigned char *)s);
        if (w->n + len + 2 <= sizeof w->buf) {
            w->buf[w->n++] = '"';
            memcpy(w->buf + w->n, s, len);
            w->n += len;
            w->buf[w->n++] = '"';
            return;
        }
    }
    jw_char(w, '"');
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        const char *esc = NULL;
        switch (*p) {
        case '"': esc = "\\\""; break;
        case '\\': esc = "\\\\"; break;
        case '\b': esc = "\\b"; break;
        case '\f': esc = "\\f"; break;
        case '\n': esc = "\\n"; break;
        case '\r': esc = "\\r"; break;
        case '\t': esc = "\\t"; break;
        default: break;
        }
        if (esc) {
            jw_raw(w, esc, 2);
        } else if (*p < 32) {
            char u[8];
            snprintf(u, sizeof u, "\\u%04x", *p);
            jw_raw(w, u, 6);
        } else {
            jw_char(w, (char)*p);
        }
    }
    jw_char(w, '"');
}

static void jw_key(jw *w, const char *key) {
    jw_sep(w);
    jw_string_body(w, key);
    jw_char(w, ':');
    w->comma = false;
}

/* A string value; cJSON drops a key whose string is NULL, and so does this. */
static void jw_str(jw *w, const char *key, const char *s) {
    if (!s) return;
    if (key) jw_key(w, key);
    jw_sep(w);
    jw_string_body(w, s);
}

/* cJSON's print_number for a number made from an int64: "%d" when the value fits an int,
 * otherwise %1.15g, or %1.17g when that does not read back as the same double. Written into
 * tmp (32 bytes); returns the length. */
static size_t int_text(int64_t v, char *tmp) {
    double d = (double)v;
    if (d > INT_MIN && d < INT_MAX) {
        char digits[24], *p = digits + sizeof digits;
        uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
        do *--p = (char)('0' + u % 10);
        while ((u /= 10) != 0);
        if (v < 0) *--p = '-';
        size_t len = (size_t)(digits + sizeof digits - p);
        memcpy(tmp, p, len);
        return len;
    }
    int valueint = d >= INT_MAX ? INT_MAX : INT_MIN;
    int len;
    if (d == (double)valueint) {
        len = snprintf(tmp, 32, "%d", valueint);
    } else {
        double back = 0;
        len = snprintf(tmp, 32, "%1.15g", d);
        if (sscanf(tmp, "%lg", &back) != 1 || fabs(back - d) > (fabs(back) > fabs(d) ? fabs(back) : fabs(d)) * DBL_EPSILON)
            len = snprintf(tmp, 32, "%1.17g", d);
    }
    return (size_t)len;
}

/* cJSON's print_number for an int64 (int_text). */
static void jw_int(jw *w, const char *key, int64_t v) {
    if (key) jw_key(w, key);
    jw_sep(w);
    char tmp[32];
    size_t len = int_text(v, tmp);
    jw_raw(w, tmp, len);
}

static void jw_bool(jw *w, const char *key, bool v) {
    jw_key(w, key);
    jw_sep(w);
    jw_raw(w, v ? "true" : "false", v ? 4 : 5);
}

static void jw_null(jw *w, const char *key) {
    jw_key(w, key);
    jw_sep(w);
    jw_raw(w, "null", 4);
}

static void jw_ints(jw *w, const char *key, const int64_t *v, size_t n) {
    jw_key(w, key);
    jw_open(w, '[');
    for (size_t i = 0; i < n; i++) jw_int(w, NULL, v[i]);
    jw_close(w, ']');
}

static void jw_shapes(jw *w, const char *key, const fr_shapes *s) {
    jw_key(w, key);
    jw_open(w, '[');
    for (uint32_t i = 0; i < s->count; i++) {
        jw_open(w, '[');
        for (uint32_t d = 0; d < s->shapes[i].ndim; d++) jw_int(w, NULL, s->shapes[i].dims[d]);
        jw_close(w, ']');
    }
    jw_close(w, ']');
}

static void jw_strings(jw *w, const char *key, const fr_strings *s) {
    jw_key(w, key);
    jw_open(w, '[');
    for (uint32_t i = 0; i < s->count; i++) jw_str(w, NULL, s->items[i]);
    jw_close(w, ']');
}

/* ---------------------------------------------------------------- sections --------- */

static void write_input(jw *w, const fa_analysis *a) {
    jw_key(w, "input");
    jw_open(w, '{');
    jw_str(w, "dir", a->in.dir);
    jw_str(w, "prefix", a->in.prefix);
    jw_key(w, "versions");
    jw_open(w, '[');
    for (size_t i = 0; i < a->in.nversions; i++) jw_str(w, NULL, a->in.versions[i]);
    jw_close(w, ']');
    jw_key(w, "ranks_loaded");
    jw_open(w, '[');
    for (size_t i = 0; i < a->in.nranks; i++) jw_int(w, NULL, a->in.ranks[i].rank);
    jw_close(w, ']');
    jw_ints(w, "ranks_without_dump", a->groups.without_dump.v, a->groups.without_dump.n);
    jw_key(w, "files_rejected");
    jw_open(w, '[');
    for (size_t i = 0; i < a->in.nrejected; i++) {
        jw_open(w, '{');
        jw_str(w, "path", a->in.rejected[i].path);
        jw_str(w, "error", a->in.rejected[i].error);
        jw_close(w, '}');
    }
    jw_close(w, ']');
    jw_close(w, '}');
}

static void write_groups(jw *w, const fa_analysis *a) {
    jw_key(w, "groups");
    jw_open(w, '[');
    for (size_t i = 0; i < a->groups.n; i++) {
        const fa_group *g = &a->groups.v[i];
        jw_open(w, '{');
        jw_str(w, "id", g->id);
        jw_str(w, "name", g->name);
        jw_str(w, "desc", g->desc);
        jw_int(w, "size", g->nmembers);
        jw_ints(w, "ranks", g->members, g->nmembers);
        jw_close(w, '}');
    }
    jw_close(w, ']');
    jw_key(w, "memberships");
    jw_open(w, '[');
    for (size_t i = 0; i < a->groups.n; i++) {
        const fa_group *g = &a->groups.v[i];
        for (uint32_t m = 0; m < g->nmembers; m++) {
            jw_open(w, '{');
            jw_str(w, "group_id", g->id);
            jw_int(w, "global_rank", g->members[m]);
            jw_close(w, '}');
        }
    }
    jw_close(w, ']');
}

/* A JSON array of ranks as jw_ints writes it, kept as text: every collective of a group expects
 * the same members, and in a big job these lists are most of the database. */
typedef struct rank_list_text {
    char *v;
    size_t n;
} rank_list_text;

static int rank_list_format(rank_list_text *t, const fa_ranks *r) {
    t->v = malloc(r->n * 21 + 3);
    if (!t->v) return -1;
    size_t at = 0;
    t->v[at++] = '[';
    for (size_t i = 0; i < r->n; i++) {
        if (i) t->v[at++] = ',';
        at += int_text(r->v[i], t->v + at);
    }
    t->v[at++] = ']';
    t->n = at;
    return 0;
}

/* The expected ranks of group g's collectives (fa_op_expected: every known member), formatted
 * once per group; NULL when out of memory. */
static const rank_list_text *group_expected(const fa_analysis *a, rank_list_text *cache, uint32_t g) {
    if (cache[g].v) return &cache[g];
    const fa_group *grp = &a->groups.v[g];
    fa_ranks all = {0};
    for (uint32_t p = 0; p < grp->nmembers; p++)
        if (grp->members[p] >= 0) fa_ranks_add(&all, grp->members[p]);
    fa_ranks_normalize(&all);
    int rc = rank_list_format(&cache[g], &all);
    fa_ranks_free(&all);
    return rc ? NULL : &cache[g];
}

/* op_passes for a collective: the members are walked in order beside the op's calls (sorted by
 * member), instead of a search for each member's call. */
static bool collective_passes(const fa_analysis *a, size_t op, fa_ranks *missing) {
    const fa_op *o = &a->match.ops[op];
    const fa_group *g = &a->groups.v[o->group];
    const fa_call *c = &a->match.calls[o->first_call], *end = c + o->ncalls;
    for (uint32_t p = 0; p < g->nmembers; p++) {
        if (g->members[p] < 0) continue;
        while (c < end && c->member < p) c++;
        fa_member_state s = fa_op_member_state_of(&a->match, &a->groups, op, p, c < end && c->member == p ? c : NULL);
        if (s == FA_MS_NEVER || s == FA_MS_NO_DUMP) fa_ranks_add(missing, g->members[p]);
    }
    fa_ranks_normalize(missing);
    return !o->mismatch && !o->unmatched && missing->n == 0;
}

static bool op_passes(const fa_analysis *a, size_t op, uint32_t *members, fa_ranks *missing, fa_ranks *expected) {
    const fa_op *o = &a->match.ops[op];
    const fa_group *g = &a->groups.v[o->group];
    uint32_t n = fa_op_expected(&a->match, &a->groups, op, members);
    for (uint32_t k = 0; k < n; k++) {
        fa_member_state s = fa_op_member_state(&a->match, &a->groups, op, members[k]);
        fa_ranks_add(expected, g->members[members[k]]);
        if (s == FA_MS_NEVER || s == FA_MS_NO_DUMP) fa_ranks_add(missing, g->members[members[k]]);
    }
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

/* Per op, the kind of its first mismatch finding (as listed), or NULL: one pass over findings. */
static const char **first_mismatch(const fa_analysis *a) {
    const char **kind = calloc(a->match.nops + 1, sizeof *kind);
    for (size_t f = a->findings.n; kind && f-- > 0;) {
        const fa_finding *x = &a->findings.v[f];
        if (x->op >= 0 && (size_t)x->op < a->match.nops && fa_finding_is_mismatch(x->kind)) kind[x->op] = fa_finding_kind_name(x->kind);
    }
    return kind;
}

static void write_collective(jw *w, const fa_analysis *a, size_t i, const fr_entry *rep, const fa_ranks *expected,
                             const rank_list_text *expected_text, const fa_ranks *missing, bool pass, const char *mismatch) {
    const fa_op *o = &a->match.ops[i];
    jw_open(w, '{');
    jw_int(w, "id", (int64_t)i);
    jw_str(w, "group_id", a->groups.v[o->group].id);
    jw_int(w, "collective_seq_id", rep->collective_seq_id);
    jw_int(w, "p2p_seq_id", rep->p2p_seq_id);
    jw_int(w, "record_id", rep->record_id);
    jw_str(w, "profiling_name", rep->profiling_name);
    jw_shapes(w, "input_sizes", &rep->input_sizes);
    jw_shapes(w, "output_sizes", &rep->output_sizes);
    jw_strings(w, "input_dtypes", &rep->input_dtypes);
    jw_strings(w, "output_dtypes", &rep->output_dtypes);
    jw_str(w, "state", op_state(a, o));
    if (expected_text) {
        jw_key(w, "expected_ranks");
        jw_sep(w);
        jw_raw(w, expected_text->v, expected_text->n);
    } else {
        jw_ints(w, "expected_ranks", expected->v, expected->n);
    }
    jw_ints(w, "missing_ranks", missing->v, missing->n);
    jw_bool(w, "pass_check", pass);
    if (mismatch) jw_str(w, "mismatch", mismatch);
    else jw_null(w, "mismatch");
    jw_close(w, '}');
}

/* collectives, remembering which ops list their calls (nccl_calls, written next). */
static int write_collectives(jw *w, const fa_analysis *a, const fa_report_options *opt, bool *list_calls) {
    size_t widest = 2;
    for (size_t g = 0; g < a->groups.n; g++)
        if (a->groups.v[g].nmembers + 2 > widest) widest = a->groups.v[g].nmembers + 2;
    uint32_t *members = malloc(widest * sizeof *members);
    const char **mismatch = first_mismatch(a);
    rank_list_text *expected_cache = calloc(a->groups.n + 1, sizeof *expected_cache);
    if (!members || !mismatch || !expected_cache) {
        free(members);
        free(mismatch);
        free(expected_cache);
        return -1;
    }
    jw_key(w, "collectives");
    jw_open(w, '[');
    fa_ranks missing = {0}, expected = {0};
    for (size_t i = 0; i < a->match.nops; i++) {
        const fa_op *o = &a->match.ops[i];
        fr_entry rep;
        if (!fa_op_rep(&a->match, &a->in, o, &rep)) continue;
        missing.n = expected.n = 0;
        const rank_list_text *expected_text = o->is_p2p ? NULL : group_expected(a, expected_cache, o->group);
        bool pass = expected_text ? collective_passes(a, i, &missing) : op_passes(a, i, members, &missing, &expected);
        list_calls[i] = opt->all_calls || !pass || o->unmatched;
        write_collective(w, a, i, &rep, &expected, expected_text, &missing, pass, mismatch[i]);
    }
    jw_close(w, ']');
    fa_ranks_free(&missing);
    fa_ranks_free(&expected);
    for (size_t g = 0; g < a->groups.n; g++) free(expected_cache[g].v);
    free(expected_cache);
    free(members);
    free(mismatch);
    return 0;
}

static void write_calls(jw *w, const fa_analysis *a, const bool *list_calls) {
    jw_key(w, "nccl_calls");
    jw_open(w, '[');
    size_t call_id = 0;
    for (size_t i = 0; i < a->match.nops; i++) {
        const fa_op *o = &a->match.ops[i];
        if (!list_calls[i]) continue;
        const fa_group *g = &a->groups.v[o->group];
        for (uint32_t k = 0; k < o->ncalls; k++) {
            const fa_call *c = &a->match.calls[o->first_call + k];
            fr_entry e;
            fa_call_expand(&a->match, &a->in, c, 0, &e);
            jw_open(w, '{');
            jw_int(w, "id", (int64_t)call_id++);
            jw_int(w, "collective_id", (int64_t)i);
            jw_str(w, "group_id", g->id);
            jw_int(w, "global_rank", g->members[c->member]);
            jw_int(w, "record_id", e.record_id);
            jw_str(w, "profiling_name", e.profiling_name);
            jw_str(w, "state", fr_state_name(c->state));
            jw_shapes(w, "input_sizes", &e.input_sizes);
            jw_shapes(w, "output_sizes", &e.output_sizes);
            jw_close(w, '}');
        }
    }
    jw_close(w, ']');
}

static void write_findings(jw *w, const fa_analysis *a) {
    jw_key(w, "findings");
    jw_open(w, '[');
    for (size_t i = 0; i < a->findings.n; i++) {
        const fa_finding *f = &a->findings.v[i];
        jw_open(w, '{');
        jw_str(w, "kind", fa_finding_kind_name(f->kind));
        if (f->group >= 0) {
            jw_str(w, "group_id", a->groups.v[f->group].id);
            jw_str(w, "group_desc", a->groups.v[f->group].desc);
        } else {
            jw_null(w, "group_id");
            jw_null(w, "group_desc");
        }
        fr_entry rep;
        if (f->op >= 0 && fa_op_rep(&a->match, &a->in, &a->match.ops[f->op], &rep)) {
            const fa_op *op = &a->match.ops[f->op];
            jw_int(w, "collective_seq_id", op->is_p2p ? rep.collective_seq_id : op->seq);
            if (op->is_p2p) jw_int(w, "p2p_seq_id", op->seq);
            jw_str(w, "profiling_name", rep.profiling_name);
            jw_int(w, "collective_id", f->op);
        } else {
            jw_null(w, "collective_seq_id");
            jw_null(w, "profiling_name");
        }
        jw_ints(w, "ranks", f->ranks.v, f->ranks.n);
        jw_ints(w, "other_ranks", f->others.v, f->others.n);
        jw_str(w, "detail", f->detail ? f->detail : "");
        jw_bool(w, "warning", fa_finding_is_warning(f->kind));
        jw_bool(w, "listed", f->listed);
        if (f->kind == FA_P2P_UNMATCHED) jw_bool(w, "explained_by_hang", f->explained);
        jw_close(w, '}');
    }
    jw_close(w, ']');
}

static const char *evidence_kind_name(fa_evidence_kind k) {
    switch (k) {
    case FA_EV_NEVER_ISSUED: return "never_issued";
    case FA_EV_NO_DUMP: return "no_dump";
    case FA_EV_STALLED: return "stalled";
    case FA_EV_NEVER_STARTED: return "never_started";
    case FA_EV_MISMATCHED: return "mismatched";
    case FA_EV_CRASHED: return "crashed";
    case FA_EV_ASYNC_ERROR: return "async_error";
    }
    return "?";
}

/* verdict.culprit_evidence (every row, uncapped) and verdict.wait_chain (levels, root first). */
static void write_explanation(jw *w, const fa_analysis *a) {
    jw_key(w, "culprit_evidence");
    jw_open(w, '[');
    for (size_t i = 0; i < a->verdict.nevidence; i++) {
        const fa_evidence *e = &a->verdict.evidence[i];
        const fa_op *o = &a->match.ops[e->op];
        jw_open(w, '{');
        jw_int(w, "rank", e->rank);
        jw_str(w, "group_id", a->groups.v[e->group].id);
        jw_str(w, "group_desc", a->groups.v[e->group].desc);
        jw_int(w, "collective_id", e->op);
        jw_int(w, o->is_p2p ? "p2p_seq_id" : "collective_seq_id", e->seq);
        jw_str(w, "op_type", o->type);
        jw_str(w, "what", evidence_kind_name(e->kind));
        jw_ints(w, "waiting_ranks", e->waiters.v, e->waiters.n);
        if (e->kind == FA_EV_CRASHED) {
            char signal[32];
            fa_signal_label(e->signal, signal, sizeof signal);
            jw_str(w, "signal", signal);
        }
        if (e->kind == FA_EV_ASYNC_ERROR) jw_str(w, "nccl_error", e->error);
        jw_ints(w, e->kind == FA_EV_NEVER_STARTED ? "started_ranks" : e->kind == FA_EV_MISMATCHED ? "majority_ranks" : "completed_ranks",
                e->done.v, e->done.n);
        jw_close(w, '}');
    }
    jw_close(w, ']');
    jw_key(w, "wait_chain");
    jw_open(w, '[');
    for (int l = 0; l < FA_WAIT_LEVELS; l++) {
        const fa_wait_level *lv = &a->verdict.levels[l];
        if (!lv->ranks.n) continue;
        jw_open(w, '{');
        jw_int(w, "level", l);
        jw_ints(w, "ranks", lv->ranks.v, lv->ranks.n);
        jw_ints(w, "wait_for", lv->waits_for.v, lv->waits_for.n);
        if (lv->via) jw_str(w, "via", lv->via);
        else jw_null(w, "via");
        jw_close(w, '}');
    }
    jw_close(w, ']');
    jw_int(w, "p2p_explained_by_hang", (int64_t)a->verdict.nexplained_p2p);
}

int fa_report_db(const fa_analysis *a, const fa_report_options *opt, FILE *out) {
    jw *w = calloc(1, sizeof *w);
    bool *list_calls = calloc(a->match.nops + 1, sizeof *list_calls);
    int rc = w && list_calls ? 0 : -1;
    if (rc == 0) {
        w->out = out;
        jw_open(w, '{');
        jw_str(w, "schema", "frtrace-db/1");
        jw_str(w, "generator", "frtrace " FRTRACE_VERSION);
        write_input(w, a);
        write_groups(w, a);
        rc = write_collectives(w, a, opt, list_calls);
    }
    if (rc == 0) {
        write_calls(w, a, list_calls);
        write_findings(w, a);
        jw_key(w, "verdict");
        jw_open(w, '{');
        jw_str(w, "status", fa_status_name(a->verdict.status));
        jw_ints(w, "culprit_ranks", a->verdict.culprits.v, a->verdict.culprits.n);
        jw_str(w, "summary", a->verdict.summary ? a->verdict.summary : "");
        write_explanation(w, a);
        jw_close(w, '}');
        jw_close(w, '}');
        jw_char(w, '\n');
        jw_flush(w);
    }
    free(w);
    free(list_calls);
    return rc || ferror(out) ? -1 : 0;
}
