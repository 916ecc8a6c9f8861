/* verdict_title.c — the verdict's one line, fit for an incident ticket's title (verdict_title.h).
 *
 * Each culprit-bearing finding becomes a clause: "rank 9 never joined EXPERT_MODEL_PARALLEL_GROUP
 * (72) all_to_all #45265 (ranks 8,10-13,15 wait)". A title must name every culprit rank and stay
 * within FA_TITLE_WIDTH columns where that is possible, so the clauses are tried at decreasing
 * detail until the whole line fits:
 *   0  every clause in full (group id, who waits or completed it);
 *   1  the group by its description alone, and clauses that then read alike merged, their ranks
 *      united ("ranks 12,14 stalled in TENSOR_MODEL_PARALLEL_GROUP _all_gather_base #42806
 *      (ranks 13,15 completed it)": two TP groups, one fact);
 *   2  as 1, without who waits, a dump that is missing or unreadable without where it is
 *      waited for ("rank 3's dump is unreadable"), and a long description cut in its middle
 *      ("EXPERT_MODEL_PARALLEL_GRO...ES_ON_AND_ON");
 *   3  as 2, without the operation;
 * and when even that is too long, every culprit rank up front and the first clause after it
 * ("hang: ranks 3,9,14: rank 9 never joined ...; and 2 more"; not twice when that clause names
 * them all). A type or dtype mismatch names both sides ("rank 1 issued all_gather where ranks
 * 0,2-7 issued all_reduce #4 in default_pg (0)"). Clauses about unreadable dumps
 * come after those found from the entries. The words are the reports' too: causes are an enum
 * (fa_cause), never looked for in a finding's prose.
 */
#include "verdict/verdict_title.h"
#include "util/xmalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { LEVELS = 4, CLAUSE = 600 };
/* A group description longer than LONG_DESC is cut in its middle from level 2 on (the report's
 * body names it in full), keeping its last TAIL_KEPT characters. */
enum { LONG_DESC = 40, TAIL_KEPT = 12 };

void fa_signal_label(int signal, char *buf, size_t len) {
    static const struct {
        int number;
        const char *name;
    } known[] = {
        { 4, "SIGILL" }, { 6, "SIGABRT" }, { 7, "SIGBUS" }, { 8, "SIGFPE" }, { 11, "SIGSEGV" },
    };
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (known[i].number == signal) {
            snprintf(buf, len, "%s", known[i].name);
            return;
        }
    if (signal > 0)
        snprintf(buf, len, "signal %d", signal);
    else
        snprintf(buf, len, "a fatal signal");
}

void fa_op_label(const fa_match *m, size_t op, char *buf, size_t len) {
    const fa_op *o = &m->ops[op];
    if (o->is_p2p) {
        /* global ranks: the profiling name's group ranks mean little outside the group */
        char src[24] = "?", dst[24] = "?";
        if (o->src >= 0) snprintf(src, sizeof src, "%lld", (long long)o->src);
        if (o->dst >= 0) snprintf(dst, sizeof dst, "%lld", (long long)o->dst);
        bool recv = strcmp(fa_op_type(m, o), "recv") == 0;
        snprintf(buf, len, "%s %s%s%s (p2p #%lld)", fa_op_type(m, o), recv ? dst : src,
                 recv ? "<-" : "->", recv ? src : dst, (long long)o->seq);
    } else {
        snprintf(buf, len, "%s #%lld", fa_op_type(m, o), (long long)o->seq);
    }
}

/* "TENSOR_MODEL_PARALLEL_GROUP (37)" at level 0, "TENSOR_MODEL_PARALLEL_GROUP" after; a group
 * without a description keeps its id ("group 5"). */
static void group_words(const fa_title_input *in, const fa_finding *f, int level, char *buf,
                        size_t len) {
    buf[0] = '\0';
    if (f->group < 0) return;
    const fa_group *g = &in->groups->v[f->group];
    bool described = !fa_desc_says_nothing(g->desc);
    size_t dlen = strlen(g->desc);
    if (level == 0 || !described)
        fa_group_label(g, buf, len);
    else if (level >= 2 && dlen > LONG_DESC) /* its head and tail say which group it is */
        snprintf(buf, len, "%.*s...%s", LONG_DESC - TAIL_KEPT - 3, g->desc,
                 g->desc + dlen - TAIL_KEPT);
    else
        snprintf(buf, len, "%s", g->desc);
}

/* What the culprits of a finding did, with a "%s" where their ranks go, and (after a '\t') who
 * else is concerned ("ranks 8,10 wait"), both without the ranks that merging unites. */
typedef struct clause_shape {
    char verb[CLAUSE];       /* "never joined EXPERT_MODEL_PARALLEL_GROUP all_to_all #45265" */
    const char *others_verb; /* "wait", "completed it", "did", NULL when not said */
    char where_after[520];   /* said after who else ("wait in X"), for a dump that is missing */
    bool unreadable;         /* "rank 3's dump is unreadable": the on-call issue's words */
    /* "issued all_reduce #4 in default_pg (0)": both sides named, the others inline ("rank 1
     * issued all_gather where ranks 0,2-7 issued all_reduce #4 ..."); empty when not */
    char others_did[400];
} clause_shape;

/* A type or dtype mismatch with a majority: "issued all_gather where" ... "issued all_reduce #4
 * in default_pg (0)"; "used Int where" ... "used Float in default_pg (0) all_reduce #4". The
 * group goes at level 3, the op's number never (it says which collective). */
static void both_sides(const fa_title_input *in, const fa_finding *f, int level, const char *group,
                       clause_shape *c) {
    char label[200] = "", in_group[320] = "";
    if (f->op >= 0) fa_op_label(in->match, (size_t)f->op, label, sizeof label);
    if (level < 3 && group[0]) snprintf(in_group, sizeof in_group, " in %s", group);
    if (f->kind == FA_TYPE_MISMATCH) {
        const char *number = strchr(label, '#'); /* "all_reduce #4": the majority's op */
        snprintf(c->verb, sizeof c->verb, "issued %.200s where", f->odd_what);
        snprintf(c->others_did, sizeof c->others_did, "issued %.100s%s%.40s%.200s", f->usual_what,
                 number ? " " : "", number ? number : "", in_group);
    } else {
        snprintf(c->verb, sizeof c->verb, "used %.200s where", f->odd_what);
        snprintf(c->others_did, sizeof c->others_did, "used %.200s%s%s%s", f->usual_what, in_group,
                 label[0] && level < 3 ? " " : "", level < 3 ? label : "");
    }
}

static void shape(const fa_title_input *in, const fa_finding *f, int level, clause_shape *c) {
    char group[300], label[200] = "", where[520];
    group_words(in, f, level, group, sizeof group);
    if (f->op >= 0 && (level < 3 || f->kind == FA_MISSING_DUMP))
        fa_op_label(in->match, (size_t)f->op, label, sizeof label);
    snprintf(where, sizeof where, "%s%s%s", group, label[0] ? " " : "", label);
    char cause[64] = "";
    if (f->cause == FA_CAUSE_CRASH) fa_signal_label(f->signal, cause, sizeof cause);
    c->others_verb = NULL;
    c->where_after[0] = '\0';
    c->others_did[0] = '\0';
    c->unreadable = false;
    switch (f->kind) {
    case FA_MISSING_RANKS:
        if (f->cause == FA_CAUSE_CRASH)
            snprintf(c->verb, sizeof c->verb, "crashed (%s) in %s", cause, where);
        else if (f->cause == FA_CAUSE_UNFINISHED_SETUP) {
            snprintf(c->verb, sizeof c->verb, "stuck in %.60s of %s",
                     f->odd_what ? f->odd_what : "making", group);
            snprintf(c->where_after, sizeof c->where_after, "%.60s",
                     f->usual_what ? f->usual_what : "NCCL calls");
        } else if (f->cause == FA_CAUSE_WENT_ALONE) {
            snprintf(c->verb, sizeof c->verb, "issued %s alone", where);
            c->others_verb = "never issued it";
            break;
        } else if (f->cause == FA_CAUSE_WRONG_PEER)
            snprintf(c->verb, sizeof c->verb, "posted a send/recv to the wrong peer before %s",
                     where);
        else
            snprintf(c->verb, sizeof c->verb, "never joined %s", where);
        c->others_verb = "wait";
        break;
    case FA_MISSING_DUMP:
        c->unreadable = f->cause == FA_CAUSE_UNREADABLE;
        snprintf(c->verb, sizeof c->verb, "%s",
                 c->unreadable ? "left an unreadable dump" : "wrote no dump");
        if (level < 2 || (level == 2 && !c->unreadable))
            snprintf(c->where_after, sizeof c->where_after, "%s", where);
        c->others_verb = "wait";
        break;
    case FA_STATE_MISMATCH:
        if (f->cause == FA_CAUSE_ASYNC_ERROR) {
            snprintf(c->verb, sizeof c->verb, "hit NCCL async error %s in %s",
                     f->error ? f->error : "?", where);
            c->others_verb = "wait";
        } else if (f->cause == FA_CAUSE_NEVER_STARTED) {
            snprintf(c->verb, sizeof c->verb, "never started %s on the GPU", where);
            c->others_verb = "did";
        } else {
            snprintf(c->verb, sizeof c->verb, "stalled in %s", where);
            c->others_verb = "completed it";
        }
        break;
    case FA_STUCK_COLLECTIVE: /* no start events: pending everywhere past the timeout */
        if (f->cause == FA_CAUSE_TIMEOUT)
            snprintf(c->verb, sizeof c->verb,
                     "%s pending on every member past the watchdog's timeout (suspect GPU or "
                     "network)",
                     where);
        else
            snprintf(c->verb, sizeof c->verb,
                     "%s started on every member and never completed (suspect GPU or network)",
                     where);
        break;
    case FA_TYPE_MISMATCH:
    case FA_DTYPE_MISMATCH:
        if (f->odd_what && f->usual_what && f->others.n) { /* name what each side did */
            both_sides(in, f, level, group, c);
            break;
        }
        /* fall through */
    case FA_SIZE_MISMATCH:
    case FA_ALLTOALL_SIZE_MISMATCH: /* the majority is the other side */
        snprintf(c->verb, sizeof c->verb, "%s in %s",
                 f->kind == FA_TYPE_MISMATCH    ? "issued another operation"
                 : f->kind == FA_SIZE_MISMATCH  ? "used other sizes"
                 : f->kind == FA_DTYPE_MISMATCH ? "used other dtypes"
                                                : "sent all_to_all sizes that do not add up",
                 where);
        c->others_verb = "agree";
        break;
    default:
        snprintf(c->verb, sizeof c->verb, "%s in %s", fa_finding_kind_name(f->kind), where);
        break;
    }
}

/* One clause as the title shows it: findings with the same shape merged. */
typedef struct clause {
    clause_shape shape;
    fa_ranks ranks, others;
    int order; /* 0 from the entries, 1 an unreadable dump's: it comes after */
} clause;

static size_t gather(const fa_title_input *in, int level, clause *out, size_t cap) {
    size_t n = 0;
    for (size_t i = in->from; i < in->findings->n; i++) {
        const fa_finding *f = &in->findings->v[i];
        if (!in->pick(f->kind) || (f->kind == FA_MISSING_DUMP && f->op < 0))
            continue; /* idle: a warning */
        clause_shape s;
        shape(in, f, level, &s);
        int order = f->cause == FA_CAUSE_UNREADABLE;
        size_t k = 0;
        if (level > 0)
            while (k < n && !(out[k].order == order && strcmp(out[k].shape.verb, s.verb) == 0)) k++;
        else
            k = n;
        if (k == n) {
            if (n == cap) continue;
            out[n++] = (clause){ s, { 0 }, { 0 }, order };
        }
        for (size_t r = 0; r < f->ranks.n; r++) fa_ranks_add(&out[k].ranks, f->ranks.v[r]);
        for (size_t r = 0; r < f->others.n; r++) fa_ranks_add(&out[k].others, f->others.v[r]);
    }
    for (size_t k = 0; k < n; k++) {
        fa_ranks_normalize(&out[k].ranks);
        fa_ranks_normalize(&out[k].others);
        /* a rank that is a culprit of a merged clause is nobody's witness in it */
        size_t kept = 0;
        for (size_t r = 0; r < out[k].others.n; r++)
            if (!fa_ranks_contains(&out[k].ranks, out[k].others.v[r]))
                out[k].others.v[kept++] = out[k].others.v[r];
        out[k].others.n = kept;
    }
    return n;
}

static void clauses_free(clause *c, size_t n) {
    for (size_t k = 0; k < n; k++) {
        fa_ranks_free(&c[k].ranks);
        fa_ranks_free(&c[k].others);
    }
}

/* "rank 9 never joined X (ranks 8,10 wait)"; others only at levels 0 and 1. */
static void render(const clause *c, int level, char *buf, size_t len) {
    char *who = fa_ranks_format(c->ranks.v, c->ranks.n),
         *others = fa_ranks_format(c->others.v, c->others.n);
    bool with_others = level < 2 && c->shape.others_verb && c->others.n;
    bool many = c->others.n > 1;
    const char *verb = c->shape.others_verb ? c->shape.others_verb : "";
    bool plural_verb = strcmp(verb, "wait") == 0 || strcmp(verb, "agree") == 0;
    const char *in = c->shape.where_after[0] ? " in " : "";
    char tail[800] = "";
    if (with_others)
        snprintf(tail, sizeof tail, " (rank%s %s %s%s%s%s)", many ? "s" : "", others ? others : "?",
                 verb, !many && plural_verb ? "s" : "", in, c->shape.where_after);
    else if (c->shape.where_after[0])
        snprintf(tail, sizeof tail, " (waited for in %s)", c->shape.where_after);
    if (c->shape.others_did[0] && c->ranks.n && c->others.n)
        snprintf(buf, len, "rank%s %s %.200s rank%s %s %s", c->ranks.n > 1 ? "s" : "",
                 who ? who : "?", c->shape.verb, many ? "s" : "", others ? others : "?",
                 c->shape.others_did);
    else if (c->shape.unreadable && level >= 2)
        snprintf(buf, len, "rank%s %s%s", c->ranks.n > 1 ? "s" : "", who ? who : "?",
                 c->ranks.n > 1 ? " left unreadable dumps" : "'s dump is unreadable");
    else if (c->ranks.n)
        snprintf(buf, len, "rank%s %s %s%s", c->ranks.n > 1 ? "s" : "", who ? who : "?",
                 c->shape.verb, tail);
    else
        snprintf(buf, len, "%s%s", c->shape.verb, tail);
    free(who);
    free(others);
}

/* lead: clause; clause...; then suffix. NULL when out of memory. */
static char *compose(const char *lead, const clause *c, size_t n, int level, const char *suffix) {
    size_t cap = strlen(lead) + strlen(suffix) + 4 + n * (CLAUSE + 220);
    char *text = malloc(cap), part[CLAUSE + 220];
    if (!text) return NULL;
    size_t used = (size_t)snprintf(text, cap, "%s: ", lead);
    for (int order = 0; order < 2; order++)
        for (size_t k = 0; k < n; k++) {
            if ((int)c[k].order != order) continue;
            render(&c[k], level, part, sizeof part);
            used += (size_t)snprintf(text + used, cap - used, "%s%s",
                                     used > strlen(lead) + 2 ? "; " : "", part);
        }
    snprintf(text + used, cap - used, "%s", suffix);
    return text;
}

/* The last resort: every culprit rank first, then the first clause and how many more. */
static char *all_ranks_first(const fa_title_input *in, const char *lead, const clause *c, size_t n,
                             const char *suffix) {
    fa_ranks all = { 0 };
    for (size_t k = 0; k < n; k++)
        for (size_t r = 0; r < c[k].ranks.n; r++) fa_ranks_add(&all, c[k].ranks.v[r]);
    fa_ranks_normalize(&all);
    char *who = fa_ranks_format(all.v, all.n), part[CLAUSE + 220] = "";
    size_t first = 0; /* the first clause found from the entries, not an unreadable dump's */
    while (first < n && c[first].order != 0) first++;
    if (first == n) first = 0;
    if (n) render(&c[first], 3, part, sizeof part);
    char more[40] = "";
    if (n > 1) snprintf(more, sizeof more, "; and %zu more", n - 1);
    /* nobody to name first (a stuck collective), or the first clause names them all ("ranks
     * 9,14: ranks 9,14 ..."): no rank list before it */
    bool bare = !all.n || (n && c[first].ranks.n == all.n);
    char *text = bare ? xasprintf("%s: %s%s%s", lead, part, more, suffix)
                      : xasprintf("%s: rank%s %s: %s%s%s", lead, all.n > 1 ? "s" : "",
                                  who ? who : "?", part, more, suffix);
    (void)in;
    free(who);
    fa_ranks_free(&all);
    return text;
}

char *fa_verdict_title(const fa_title_input *in) {
    enum { MAX_CLAUSES = 64 };
    clause *c = calloc(MAX_CLAUSES, sizeof *c);
    if (!c) return NULL;
    const char *suffix = in->suffix ? in->suffix : "";
    char *best = NULL;
    for (int level = 0; level < LEVELS && !best; level++) {
        size_t n = gather(in, level, c, MAX_CLAUSES);
        char *text = compose(in->lead, c, n, level, suffix);
        if (text && strlen(text) <= FA_TITLE_WIDTH)
            best = text;
        else if (level == LEVELS - 1) {
            free(text);
            best = all_ranks_first(in, in->lead, c, n, suffix);
        } else
            free(text);
        clauses_free(c, n);
        memset(c, 0, MAX_CLAUSES * sizeof *c);
    }
    free(c);
    return best;
}
