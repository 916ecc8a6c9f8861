/* report_db.c — the analysis database (docs/database.md, "frtrace-db/1"), written as it goes.
 *
 * collectives: one row per op of each group, all ranks merged, by default only the ops that did
 * not pass (fa_op.passes, the matcher's word) and are not merely unverified (fa_op.unverified: only
 * members without a dump leave them unproven), with collective_summary counting per group the
 * others and their sequence ids (--all-collectives or --all-calls: every op); nccl_calls: by
 * default only the calls of the listed ops that did not pass and calls that matched nothing
 * (--all-calls: every call). So the database grows with the problems, not with the job: a healthy
 * job's is its groups, memberships, summaries and stats, and a lost dump is one finding, not a
 * row for every op of its groups.
 *
 * A healthy 512-rank job already lists 180 000 collectives (64 MB of JSON); building that as
 * one cJSON tree cost more than the analysis. So rows are written straight to the FILE through
 * a buffer, in the exact form cJSON_PrintUnformatted gave before (same key order, cJSON's string
 * escaping and number formatting), and nothing of a row outlives it.
 *
 * The two big arrays (collectives, nccl_calls) are cut into chunks of ops that every core formats
 * into memory, and the chunks reach the file in order (ordered_write.h): each row starts with its
 * comma, and the sink drops the array's first one, so the bytes are those of one sequential pass.
 * A row's shapes, dtype lists, profiling name and group id are interned values that repeat over
 * and over; each worker formats one of them once and copies the text afterwards (frag_cache).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/version.h"
#include "grow.h"
#include "json_text.h"
#include "report/json_writer.h"
#include "report/ordered_write.h"
#include "report/report.h"
#include "report/perf_report.h"
#include "report/report_whereabouts.h"
#include "report/headline.h"

/* ---------------------------------------------------------------- fragment cache --- */

/* Text already formatted for an id (an interned shape list, dtype list or profiling name, or a
 * group), one cache per worker: formatted once, copied from then on. */
typedef struct frag_cache {
    size_t *at; /* per id: 1 + offset into text; 0 = not formatted yet */
    size_t *len;
    size_t n; /* ids the arrays cover */
    fa_textbuf text;
} frag_cache;

enum { FRAG_MAX_IDS = 1 << 22 }; /* ids beyond are formatted every time */

static void frag_free(frag_cache *c) {
    free(c->at);
    free(c->len);
    fa_textbuf_free(&c->text);
}

/* Copies id's text to w; false when it has none yet. */
static bool frag_write(jw *w, const frag_cache *c, uint32_t id) {
    if (id >= c->n || !c->at[id]) return false;
    jw_raw(w, c->text.v + c->at[id] - 1, c->len[id]);
    return true;
}

static bool frag_cover(frag_cache *c, uint32_t id) {
    size_t n = c->n;
    void **const columns[] = { (void **)&c->at, (void **)&c->len };
    const size_t sizes[] = { sizeof *c->at, sizeof *c->len };
    if (fr_grow_parallel(columns, sizes, 2, &c->n, (size_t)id + 1, 64)) return false;
    memset(c->at + n, 0, (c->n - n) * sizeof *c->at);
    return true;
}

/* Keeps what w (a chunk in memory) holds from `start` on as id's text. */
static void frag_keep(frag_cache *c, uint32_t id, const jw *w, size_t start) {
    if (w->out || w->failed || id >= FRAG_MAX_IDS || !frag_cover(c, id)) return;
    size_t n = w->t.n - start;
    if (!fa_textbuf_reserve(&c->text, n + 1)) return; /* + 1: never a NULL buffer, even for "" */
    if (n) memcpy(c->text.v + c->text.n, w->t.v + start, n);
    c->at[id] = c->text.n + 1;
    c->len[id] = n;
    c->text.n += n;
}

/* `,"key":"s"` after an earlier member of the row (nothing when s is NULL, as jw_str). */
static void cached_str(jw *w, frag_cache *c, uint32_t id, const char *key, const char *s) {
    if (frag_write(w, c, id)) return;
    size_t start = w->t.n;
    jw_str(w, key, s);
    frag_keep(c, id, w, start);
}

/* An interned shape list's value, after its key. */
static void cached_shapes(jw *w, frag_cache *c, const fa_store *store, uint32_t id) {
    if (frag_write(w, c, id)) {
        w->comma = true;
        return;
    }
    size_t start = w->t.n;
    jw_shapes_value(w, fa_store_shapes(store, id));
    frag_keep(c, id, w, start);
}

/* An interned string list's value, after its key. */
static void cached_strings(jw *w, frag_cache *c, const fa_store *store, uint32_t id) {
    if (frag_write(w, c, id)) {
        w->comma = true;
        return;
    }
    size_t start = w->t.n;
    jw_strings_value(w, fa_store_strings(store, id));
    frag_keep(c, id, w, start);
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
    jw_key(w, "older_dumps"); /* dumps taken before their peers' (match.h, fa_stale) */
    jw_open(w, '[');
    for (size_t i = 0; i < a->in.nranks; i++) {
        const fa_stale *st = &a->match.rank_stale[i];
        if (st->group < 0) continue; /* (a truncated dump is in files_rejected) */
        jw_open(w, '{');
        jw_int(w, "rank", a->in.ranks[i].rank);
        jw_str(w, "group_id", a->groups.v[st->group].id);
        jw_int(w, "peers_completed_seq", st->seq);
        jw_int(w, "dump_reaches_seq", st->issued);
        jw_bool(w, "issued_only", st->issued_only);
        jw_close(w, '}');
    }
    jw_close(w, ']');
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
    t->v = malloc(r->n * 33 + 3); /* jw_int_text may use all of its 32 bytes */
    if (!t->v) return -1;
    size_t at = 0;
    t->v[at++] = '[';
    for (size_t i = 0; i < r->n; i++) {
        if (i) t->v[at++] = ',';
        at += jw_int_text(r->v[i], t->v + at);
    }
    t->v[at++] = ']';
    t->n = at;
    return 0;
}

/* The expected ranks of group g's collectives (fa_op_expected: every known member), formatted
 * once per group; NULL when out of memory. */
static const rank_list_text *group_expected(const fa_analysis *a, rank_list_text *cache,
                                            uint32_t g) {
    if (cache[g].v) return &cache[g];
    const fa_group *grp = &a->groups.v[g];
    fa_ranks all = { 0 };
    for (uint32_t p = 0; p < grp->nmembers; p++)
        if (grp->members[p] >= 0) fa_ranks_add(&all, grp->members[p]);
    fa_ranks_normalize(&all);
    int rc = rank_list_format(&cache[g], &all);
    fa_ranks_free(&all);
    return rc ? NULL : &cache[g];
}

/* The ranks a collective lacks (never issued it, or left no dump), as the matcher's member
 * states say: the members are walked in order beside the op's calls (sorted by member). */
static void collective_missing(const fa_analysis *a, size_t op, fa_ranks *missing) {
    const fa_op *o = &a->match.ops[op];
    const fa_group *g = &a->groups.v[o->group];
    const fa_call *c = &a->match.calls[o->first_call], *end = c + o->ncalls;
    for (uint32_t p = 0; p < g->nmembers; p++) {
        if (g->members[p] < 0) continue;
        while (c < end && c->member < p) c++;
        fa_member_state s = fa_op_member_state_of(&a->match, &a->groups, op, p,
                                                  c < end && c->member == p ? c : NULL);
        if (s == FA_MS_NEVER || s == FA_MS_NO_DUMP) fa_ranks_add(missing, g->members[p]);
    }
    fa_ranks_normalize(missing);
}

/* collective_missing's common case, from the calls alone: one call per member, member k's call
 * k (calls are sorted by member), so nobody is missing. */
static bool has_every_member(const fa_analysis *a, const fa_op *o) {
    if (o->ncalls != a->groups.v[o->group].nmembers) return false;
    const fa_call *c = &a->match.calls[o->first_call];
    for (uint32_t k = 0; k < o->ncalls; k++)
        if (c[k].member != k) return false;
    return true;
}

/* A send/recv's expected ranks (sender and receiver) and those of them missing. */
static void p2p_ranks(const fa_analysis *a, size_t op, uint32_t *members, fa_ranks *missing,
                      fa_ranks *expected) {
    const fa_group *g = &a->groups.v[a->match.ops[op].group];
    uint32_t n = fa_op_expected(&a->match, &a->groups, op, members);
    for (uint32_t k = 0; k < n; k++) {
        fa_member_state s = fa_op_member_state(&a->match, &a->groups, op, members[k]);
        fa_ranks_add(expected, g->members[members[k]]);
        if (s == FA_MS_NEVER || s == FA_MS_NO_DUMP) fa_ranks_add(missing, g->members[members[k]]);
    }
    fa_ranks_normalize(missing);
    fa_ranks_normalize(expected);
}

/* The least advanced state of the op's calls. */
static fr_state op_state(const fa_analysis *a, const fa_op *o) {
    fr_state least = FR_STATE_COMPLETED;
    for (uint32_t k = 0; k < o->ncalls; k++)
        if (a->match.calls[o->first_call + k].state < least)
            least = a->match.calls[o->first_call + k].state;
    return least;
}

/* Per op, the kind of its first mismatch finding (as listed), or NULL: one pass over findings. */
static const char **first_mismatch(const fa_analysis *a) {
    const char **kind = calloc(a->match.nops + 1, sizeof *kind);
    for (size_t f = a->findings.n; kind && f-- > 0;) {
        const fa_finding *x = &a->findings.v[f];
        if (x->op >= 0 && (size_t)x->op < a->match.nops && fa_finding_is_mismatch(x->kind))
            kind[x->op] = fa_finding_kind_name(x->kind);
    }
    return kind;
}

/* ---------------------------------------------------------------- row arrays ------- */

/* One formatting thread's scratch. */
typedef struct db_worker {
    _Alignas(64) frag_cache names; /* workers sit in one array: no cache line shared between two */
    frag_cache shapes, dtypes, groups, states;
    fa_ranks missing, expected;
    uint32_t *members; /* fa_op_expected's answer: the widest group + 2 */
} db_worker;

/* Where chunks start: op[c] is the first op of chunk c (op[n] = nops), call[c] the id of its first
 * nccl_calls row. */
typedef struct chunk_plan {
    size_t *op, *call;
    size_t n, cap;
} chunk_plan;

/* What the row formatters share (read-only while they run, but list_calls, of which each op's
 * flag is written by the one worker formatting that op). */
typedef struct db {
    const fa_analysis *a;
    const fa_report_options *opt;
    jw *w;                    /* the file */
    bool *list_calls;         /* per op: its calls go to nccl_calls */
    const char **mismatch;    /* per op: first_mismatch */
    rank_list_text *expected; /* per group: group_expected */
    db_worker *workers;
    unsigned nworkers;
    bool all_ops;    /* every op's row in collectives, not only those that did not pass */
    chunk_plan rows; /* the array being written: its chunks (plan_collectives, plan_calls) */
    bool any;        /* the array being written has a row already (sink_rows) */
} db;

/* A chunk holds about CHUNK_BYTES of rows, by estimate: a collectives row is ROW_BYTES plus
 * RANK_BYTES per expected rank, an nccl_calls row ROW_BYTES. (By count of rows alone, a job
 * whose ops all span 16 384 ranks would make chunks of hundreds of megabytes.) */
enum {
    CHUNK_BYTES = 1 << 20,
    ROW_BYTES = 300,
    RANK_BYTES = 6,
    OPS_PER_CHUNK = 8192,
    PREFETCH_AHEAD = 32
};

static void collective_row(jw *w, db *x, db_worker *k, size_t i) {
    const fa_analysis *a = x->a;
    const fa_op *o = &a->match.ops[i];
    const fa_entry *rep = fa_op_rep_entry(&a->match, o);
    if (!rep || ((o->passes || o->unverified) && !x->all_ops)) return;
    const fa_store *store = a->in.store;
    k->missing.n = k->expected.n = 0;
    const rank_list_text *expected_text = o->is_p2p ? NULL : &x->expected[o->group];
    bool pass = o->passes; /* the matcher's decision (passes.h); the rows only show it */
    if (!expected_text)
        p2p_ranks(a, i, k->members, &k->missing, &k->expected);
    else if (!has_every_member(a, o))
        collective_missing(a, i, &k->missing);
    x->list_calls[i] = x->opt->all_calls || (!pass && !o->unverified) || o->unmatched;
    jw_open(w, '{');
    JW_KEY(w, "id");
    jw_int(w, NULL, (int64_t)i);
    cached_str(w, &k->groups, o->group, "group_id", a->groups.v[o->group].id);
    const fa_dump *rep_dump = a->in.ranks[fa_op_rep_rank(&a->match, o)].dump;
    JW_KEY(w, "collective_seq_id");
    jw_int(w, NULL, fa_entry_coll_seq(rep_dump, rep));
    JW_KEY(w, "p2p_seq_id");
    jw_int(w, NULL, fa_entry_p2p_seq(rep_dump, rep));
    JW_KEY(w, "record_id");
    jw_int(w, NULL, fa_entry_record_id(rep_dump, rep));
    const fa_traits *t = fa_entry_traits(store, rep);
    cached_str(w, &k->names, t->name, "profiling_name", fa_store_op(store, t->name)->text);
    JW_KEY(w, "input_sizes");
    cached_shapes(w, &k->shapes, store, t->in_sizes);
    JW_KEY(w, "output_sizes");
    cached_shapes(w, &k->shapes, store, t->out_sizes);
    JW_KEY(w, "input_dtypes");
    cached_strings(w, &k->dtypes, store, t->in_dtypes);
    JW_KEY(w, "output_dtypes");
    cached_strings(w, &k->dtypes, store, t->out_dtypes);
    fr_state least = op_state(a, o);
    cached_str(w, &k->states, least, "state", fr_state_name(least));
    JW_KEY(w, "expected_ranks");
    if (expected_text) {
        jw_sep(w);
        jw_raw(w, expected_text->v, expected_text->n);
    } else {
        jw_open(w, '[');
        for (size_t r = 0; r < k->expected.n; r++) jw_int(w, NULL, k->expected.v[r]);
        jw_close(w, ']');
    }
    JW_KEY(w, "missing_ranks");
    jw_open(w, '[');
    for (size_t r = 0; r < k->missing.n; r++) jw_int(w, NULL, k->missing.v[r]);
    jw_close(w, ']');
    if (pass && !x->mismatch[i]) { /* the healthy op's ending */
        static const char tail[] = ",\"pass_check\":true,\"mismatch\":null}";
        jw_raw(w, tail, sizeof tail - 1);
        w->comma = true;
        return;
    }
    jw_bool(w, "pass_check", pass);
    if (x->mismatch[i])
        jw_str(w, "mismatch", x->mismatch[i]);
    else
        jw_null(w, "mismatch");
    jw_close(w, '}');
}

/* A chunk of collectives rows, each with its leading comma (fa_chunk_format). */
static int format_collectives(void *ctx, unsigned worker, size_t chunk, fa_textbuf *out) {
    db *x = ctx;
    jw w = { NULL, *out, true, false };
    size_t lo = x->rows.op[chunk], hi = x->rows.op[chunk + 1];
    const fa_op *ops = x->a->match.ops;
    for (size_t i = lo; i < hi; i++) {
        /* the representative entries lie all over the ranks' dumps: ask for them early */
        if (i + PREFETCH_AHEAD < hi && ops[i + PREFETCH_AHEAD].rep_call != FA_NO_CALL_ID)
            __builtin_prefetch(&x->a->match.calls[ops[i + PREFETCH_AHEAD].rep_call]);
        collective_row(&w, x, &x->workers[worker], i);
    }
    *out = w.t;
    return w.failed ? -1 : 0;
}

static void call_row(jw *w, db_worker *k, const fa_analysis *a, size_t op, const fa_call *c,
                     size_t call_id) {
    const fa_group *g = &a->groups.v[a->match.ops[op].group];
    const fa_entry *e = fa_call_entry(&a->match, &a->in, c, 0);
    const fa_store *store = a->in.store;
    jw_open(w, '{');
    JW_KEY(w, "id");
    jw_int(w, NULL, (int64_t)call_id);
    JW_KEY(w, "collective_id");
    jw_int(w, NULL, (int64_t)op);
    cached_str(w, &k->groups, a->match.ops[op].group, "group_id", g->id);
    JW_KEY(w, "global_rank");
    jw_int(w, NULL, g->members[c->member]);
    JW_KEY(w, "record_id");
    jw_int(w, NULL, fa_call_record_id(&a->match, &a->in, c, 0));
    const fa_traits *t = fa_entry_traits(store, e);
    cached_str(w, &k->names, t->name, "profiling_name", fa_store_op(store, t->name)->text);
    cached_str(w, &k->states, c->state, "state", fr_state_name(c->state));
    JW_KEY(w, "input_sizes");
    cached_shapes(w, &k->shapes, store, t->in_sizes);
    JW_KEY(w, "output_sizes");
    cached_shapes(w, &k->shapes, store, t->out_sizes);
    jw_close(w, '}');
}

/* A chunk of nccl_calls rows (plan_calls), each with its comma. */
static int format_calls(void *ctx, unsigned worker, size_t chunk, fa_textbuf *out) {
    db *x = ctx;
    const fa_analysis *a = x->a;
    jw w = { NULL, *out, true, false };
    size_t call_id = x->rows.call[chunk];
    for (size_t i = x->rows.op[chunk]; i < x->rows.op[chunk + 1]; i++) {
        if (!x->list_calls[i]) continue;
        const fa_op *o = &a->match.ops[i];
        for (uint32_t k = 0; k < o->ncalls; k++)
            call_row(&w, &x->workers[worker], a, i, &a->match.calls[o->first_call + k], call_id++);
    }
    *out = w.t;
    return w.failed ? -1 : 0;
}

static int plan_add(chunk_plan *p, size_t op, size_t call) {
    void **const columns[] = { (void **)&p->op, (void **)&p->call };
    const size_t sizes[] = { sizeof *p->op, sizeof *p->call };
    if (fr_grow_parallel(columns, sizes, 2, &p->cap, p->n + 2, 64)) return -1;
    p->op[p->n] = op;
    p->call[p->n++] = call;
    return 0;
}

/* The calls of ops [0, op): the calls of op i + 1 follow those of op i (collectives placed in op
 * order, then each send/recv op's as it was made). */
static size_t calls_before(const fa_match *m, size_t op) {
    return op < m->nops ? m->ops[op].first_call : m->ncalls;
}

/* The estimated bytes of the collectives rows of ops [lo, hi): each lists its expected ranks,
 * about one per call. */
static size_t collectives_bytes(const fa_match *m, size_t lo, size_t hi) {
    size_t calls = calls_before(m, hi) - calls_before(m, lo);
    return (hi - lo) * ROW_BYTES + calls * RANK_BYTES;
}

/* Cuts the collectives rows into chunks of about CHUNK_BYTES (at most OPS_PER_CHUNK ops), each
 * end found by bisection: no pass over the ops. */
static int plan_collectives(db *x) {
    const fa_match *m = &x->a->match;
    chunk_plan *p = &x->rows;
    p->n = 0;
    for (size_t lo = 0; lo < m->nops;) {
        if (plan_add(p, lo, 0)) return -1;
        size_t a = lo + 1, b = lo + OPS_PER_CHUNK < m->nops ? lo + OPS_PER_CHUNK : m->nops;
        while (a < b) { /* the first end whose rows reach CHUNK_BYTES, else b */
            size_t mid = a + (b - a) / 2;
            if (collectives_bytes(m, lo, mid) >= CHUNK_BYTES)
                b = mid;
            else
                a = mid + 1;
        }
        lo = a;
    }
    if (plan_add(p, m->nops, 0)) return -1;
    p->n--; /* the last entry only ends the last chunk */
    return 0;
}

/* Cuts the listed ops' nccl_calls rows into chunks of about CHUNK_BYTES; the ids run on across
 * chunks. */
static int plan_calls(db *x) {
    const fa_match *m = &x->a->match;
    chunk_plan *p = &x->rows;
    p->n = 0;
    size_t ncalls = 0, bytes = CHUNK_BYTES;
    for (size_t i = 0; i < m->nops; i++) {
        if (!x->list_calls[i]) continue;
        if (bytes >= CHUNK_BYTES) {
            if (plan_add(p, i, ncalls)) return -1;
            bytes = 0;
        }
        bytes += m->ops[i].ncalls * ROW_BYTES;
        ncalls += m->ops[i].ncalls;
    }
    if (plan_add(p, m->nops, ncalls)) return -1;
    p->n--;
    return 0;
}

/* Receives chunks in order: the array's first row loses its comma. */
static int sink_rows(void *ctx, const char *bytes, size_t n) {
    db *x = ctx;
    if (n && !x->any) {
        bytes++;
        n--;
        x->any = true;
    }
    if (x->w->out) { /* a chunk is large: straight to the file, behind what the buffer holds */
        jw_flush(x->w);
        if (n) fwrite(bytes, 1, n, x->w->out);
    } else {
        jw_raw(x->w, bytes, n);
    }
    return 0;
}

static int write_rows(db *x, const char *key, size_t nchunks, fa_chunk_format format) {
    jw_key(x->w, key);
    jw_open(x->w, '[');
    x->any = false;
    int rc = fa_ordered_write(nchunks, x->nworkers, format, x, sink_rows, x);
    jw_close(x->w, ']');
    return rc;
}

static void db_free(db *x) {
    for (size_t g = 0; x->expected && g < x->a->groups.n; g++) free(x->expected[g].v);
    free(x->expected);
    for (unsigned t = 0; x->workers && t < x->nworkers; t++) {
        db_worker *k = &x->workers[t];
        frag_free(&k->names);
        frag_free(&k->shapes);
        frag_free(&k->dtypes);
        frag_free(&k->groups);
        frag_free(&k->states);
        fa_ranks_free(&k->missing);
        fa_ranks_free(&k->expected);
        free(k->members);
    }
    free(x->workers);
    free(x->list_calls);
    free(x->mismatch);
    free(x->rows.op);
    free(x->rows.call);
}

/* Everything the row formatters share, made before they start: per group the expected ranks'
 * text (every group, so that workers only read it), per op its first mismatch, per worker its
 * scratch. */
static int db_init(db *x, const fa_analysis *a, const fa_report_options *opt, jw *w) {
    memset(x, 0, sizeof *x);
    x->a = a;
    x->opt = opt;
    x->w = w;
    x->all_ops = opt->all_collectives || opt->all_calls;
    x->list_calls = calloc(a->match.nops + 1, sizeof *x->list_calls);
    x->mismatch = first_mismatch(a);
    x->expected = calloc(a->groups.n + 1, sizeof *x->expected);
    x->nworkers = fa_worker_count(opt->jobs);
    x->workers = aligned_alloc(_Alignof(db_worker), x->nworkers * sizeof *x->workers);
    if (x->workers) memset(x->workers, 0, x->nworkers * sizeof *x->workers);
    if (!x->list_calls || !x->mismatch || !x->expected || !x->workers) return -1;
    size_t widest = 2;
    for (uint32_t g = 0; g < a->groups.n; g++) {
        if (a->groups.v[g].nmembers + 2 > widest) widest = a->groups.v[g].nmembers + 2;
        if (!group_expected(a, x->expected, g)) return -1;
    }
    for (unsigned t = 0; t < x->nworkers; t++)
        if (!(x->workers[t].members = malloc(widest * sizeof *x->workers[t].members))) return -1;
    return 0;
}

/* Per group, what collectives leaves out by default: how many of its ops passed and how many
 * are unverified (passes.h: only members without a dump leave them unproven), each with the
 * first and last sequence ids among them (collective_seq_id for collectives, p2p_seq_id for
 * send/recv), and how many did not pass (those have rows). One pass over the ops. */
typedef struct seq_count {
    uint64_t n;
    int64_t first, last;
} seq_count;

typedef struct group_summary {
    seq_count passed, p2p_passed, unverified, p2p_unverified;
    uint64_t not_passed;
} group_summary;

static void seq_count_add(seq_count *c, int64_t seq) {
    if (!c->n++ || seq < c->first) c->first = seq;
    if (c->n == 1 || seq > c->last) c->last = seq;
}

static void summary_add(group_summary *s, const fa_op *o) {
    if (o->passes)
        seq_count_add(o->is_p2p ? &s->p2p_passed : &s->passed, o->seq);
    else if (o->unverified)
        seq_count_add(o->is_p2p ? &s->p2p_unverified : &s->unverified, o->seq);
    else
        s->not_passed++;
}

/* "NAME": count, "PREFIX_first": seq, "PREFIX_last": seq (null when the count is 0). */
static void jw_seq_count(jw *w, const char *name, const char *prefix, const seq_count *c) {
    char first[64], last[64];
    snprintf(first, sizeof first, "%s_first", prefix);
    snprintf(last, sizeof last, "%s_last", prefix);
    jw_int(w, name, (int64_t)c->n);
    if (c->n) {
        jw_int(w, first, c->first);
        jw_int(w, last, c->last);
    } else {
        jw_null(w, first);
        jw_null(w, last);
    }
}

static int write_summary(jw *w, const fa_analysis *a) {
    group_summary *s = calloc(a->groups.n + 1, sizeof *s);
    if (!s) return -1;
    for (size_t i = 0; i < a->match.nops; i++)
        if (fa_op_rep_entry(&a->match, &a->match.ops[i]))
            summary_add(&s[a->match.ops[i].group], &a->match.ops[i]);
    jw_key(w, "collective_summary");
    jw_open(w, '[');
    for (size_t g = 0; g < a->groups.n; g++) {
        const group_summary *x = &s[g];
        if (!x->passed.n && !x->p2p_passed.n && !x->unverified.n && !x->p2p_unverified.n &&
            !x->not_passed)
            continue;
        jw_open(w, '{');
        jw_str(w, "group_id", a->groups.v[g].id);
        jw_seq_count(w, "passed", "collective_seq_id", &x->passed);
        jw_seq_count(w, "p2p_passed", "p2p_seq_id", &x->p2p_passed);
        jw_seq_count(w, "unverified", "unverified_seq_id", &x->unverified);
        jw_seq_count(w, "p2p_unverified", "p2p_unverified_seq_id", &x->p2p_unverified);
        jw_int(w, "not_passed", (int64_t)x->not_passed);
        jw_close(w, '}');
    }
    jw_close(w, ']');
    free(s);
    return 0;
}

static void write_finding(jw *w, const fa_analysis *a, const fa_finding *f) {
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

/* Root causes first, then the victims' evidence, then warnings (fa_finding_order): a script
 * reading findings[0] reads the root cause. */
static void write_findings(jw *w, const fa_analysis *a) {
    jw_key(w, "findings");
    jw_open(w, '[');
    for (int order = 0; order < FA_ORDER_COUNT; order++)
        for (size_t i = 0; i < a->findings.n; i++)
            if (fa_finding_order(&a->findings.v[i], i, a->verdict.first_culprit_finding,
                                 a->verdict.nculprit_findings) == order)
                write_finding(w, a, &a->findings.v[i]);
    jw_close(w, ']');
}

static const char *evidence_kind_name(fa_evidence_kind k) {
    switch (k) {
    case FA_EV_NEVER_ISSUED: return "never_issued";
    case FA_EV_NO_DUMP: return "no_dump";
    case FA_EV_UNREADABLE: return "unreadable";
    case FA_EV_STALLED: return "stalled";
    case FA_EV_NEVER_STARTED: return "never_started";
    case FA_EV_MISMATCHED: return "mismatched";
    case FA_EV_CRASHED: return "crashed";
    case FA_EV_ASYNC_ERROR: return "async_error";
    }
    return "?";
}

/* verdict.alternatives: the explanations the dumps allow when they cannot pin the root cause
 * down, each with the ranks at fault if it is the truth; [] when the culprits are the answer. */
static void write_alternatives(jw *w, const fa_analysis *a) {
    jw_key(w, "alternatives");
    jw_open(w, '[');
    for (size_t i = 0; i < a->verdict.nalternatives; i++) {
        const fa_alternative *alt = &a->verdict.alternatives[i];
        jw_open(w, '{');
        jw_ints(w, "ranks", alt->ranks.v, alt->ranks.n);
        jw_str(w, "explanation", alt->explanation ? alt->explanation : "");
        jw_close(w, '}');
    }
    jw_close(w, ']');
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
        jw_str(w, "op_type", fa_op_type(&a->match, o));
        jw_str(w, "what", evidence_kind_name(e->kind));
        jw_ints(w, "waiting_ranks", e->waiters.v, e->waiters.n);
        if (e->kind == FA_EV_CRASHED) {
            char signal[32];
            fa_signal_label(e->signal, signal, sizeof signal);
            jw_str(w, "signal", signal);
        }
        if (e->kind == FA_EV_ASYNC_ERROR) jw_str(w, "nccl_error", e->error);
        jw_ints(w,
                e->kind == FA_EV_NEVER_STARTED ? "started_ranks"
                : e->kind == FA_EV_MISMATCHED  ? "majority_ranks"
                                               : "completed_ranks",
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
        if (lv->via)
            jw_str(w, "via", lv->via);
        else
            jw_null(w, "via");
        jw_close(w, '}');
    }
    jw_close(w, ']');
    jw_int(w, "p2p_explained_by_hang", (int64_t)a->verdict.nexplained_p2p);
}

int fa_report_db(const fa_analysis *a, const fa_report_options *opt, FILE *out) {
    jw w;
    db x;
    bool opened = jw_open_file(&w, out);
    int rc = db_init(&x, a, opt, &w) == 0 && opened ? 0 : -1;
    if (rc == 0) {
        jw_open(&w, '{');
        jw_str(&w, "schema", "frtrace-db/1");
        jw_str(&w, "generator", "frtrace " FRTRACE_VERSION);
        write_input(&w, a);
        write_groups(&w, a);
        rc = plan_collectives(&x);
    }
    if (rc == 0) rc = write_rows(&x, "collectives", x.rows.n, format_collectives);
    if (rc == 0) rc = write_summary(&w, a);
    if (rc == 0) rc = plan_calls(&x);
    if (rc == 0) rc = write_rows(&x, "nccl_calls", x.rows.n, format_calls);
    if (rc == 0) {
        write_findings(&w, a);
        fa_perf_write_db_keys(a, opt, &w);
        if (fa_report_whereabouts_db(a, opt, &w) != 0) rc = -1;
        jw_key(&w, "verdict");
        jw_open(&w, '{');
        jw_str(&w, "status", fa_status_name(a->verdict.status));
        jw_ints(&w, "culprit_ranks", a->verdict.culprits.v, a->verdict.culprits.n);
        char *title = fa_headline(a);
        jw_str(&w, "summary", title ? title : "");
        free(title);
        write_alternatives(&w, a);
        write_explanation(&w, a);
        jw_close(&w, '}');
        jw_close(&w, '}');
        jw_char(&w, '\n');
    }
    db_free(&x);
    return jw_close_file(&w) || rc ? -1 : 0;
}
