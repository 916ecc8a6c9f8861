/* groups.c — merging pg_config across ranks into groups with ids (see groups.h).
 *
 * Pass 1 visits every rank's pg_config (and recorder comms) and gathers distinct (name, member
 * list) pairs, keyed by name + a hash of the list. Pass 2 sorts them (name, then lowest
 * member), gives ids, and builds per rank a pg_name -> group map for the matcher.
 */
#include "match/groups.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "match/group_fill.h"
#include "grow.h"

typedef struct proto_group {
    const char *name, *desc;
    uint32_t n;
    int64_t *members;
    size_t added;  /* position before sorting */
    bool inferred; /* members rebuilt from the dumps that record it: ranks without one unknown */
} proto_group;

typedef struct builder {
    proto_group *v;
    size_t n, cap;
    fa_smap index; /* "name\x1f<hash>" -> position in v */
} builder;

/* Member lists are interned in the store (equal lists share one pointer), so the pointer stands
 * for the list: no need to hash the default group's 16 384 ranks once per file. */
static char *member_key(const char *name, const int64_t *members, uint32_t n) {
    char *key = malloc(strlen(name) + 48);
    if (key) sprintf(key, "%s\x1f%u:%p", name, n, (const void *)members);
    return key;
}

static long builder_add(builder *b, const char *name, const char *desc, const int64_t *members,
                        uint32_t n) {
    char *key = member_key(name, members, n);
    uint64_t at;
    if (!key) return -1;
    if (fa_smap_get(&b->index, key, &at)) {
        free(key);
        return (long)at;
    }
    if (fr_grow((void **)&b->v, &b->cap, b->n + 1, sizeof *b->v, 16)) {
        free(key);
        return -1;
    }
    int64_t *copy = malloc((n ? n : 1) * sizeof *copy);
    if (!copy) {
        free(key);
        return -1;
    }
    memcpy(copy, members, n * sizeof *copy);
    b->v[b->n] = (proto_group){ name, desc ? desc : "", n, copy, b->n, false };
    fa_smap_put(&b->index, key, b->n);
    free(key);
    return (long)b->n++;
}

static void add_note(fa_groups *g, const char *text) {
    char **notes = realloc(g->notes, (g->nnotes + 1) * sizeof *notes);
    if (!notes) return;
    g->notes = notes;
    g->notes[g->nnotes++] = strdup(text);
}

/* Recorder dumps: members rebuilt from (global rank, comm_rank, comm_size) of every dump. */
static void rebuild_recorder_groups(const fa_input *in, builder *b, fa_smap *recorder_key) {
    fa_smap slots = { 0 }; /* "name#size" -> proto index */
    for (size_t r = 0; r < in->nranks; r++) {
        const fa_dump *d = in->ranks[r].dump;
        for (uint32_t c = 0; c < d->ncomms; c++) {
            const fr_comm_info *ci = &d->comms[c];
            if (ci->comm_size <= 0 || ci->comm_rank < 0 || ci->comm_rank >= ci->comm_size) continue;
            int configured = 0;
            for (uint32_t k = 0; k < d->ngroups; k++)
                if (strcmp(d->groups[k].name, ci->pg_name) == 0 && d->groups[k].nranks > 0)
                    configured = 1;
            if (configured) continue;
            char key[600];
            snprintf(key, sizeof key, "%s#%lld", ci->pg_name, (long long)ci->comm_size);
            uint64_t at;
            if (!fa_smap_get(&slots, key, &at)) {
                int64_t *unknown = malloc((size_t)ci->comm_size * sizeof *unknown);
                if (!unknown) continue;
                for (int64_t k = 0; k < ci->comm_size; k++) unknown[k] = -1;
                const int64_t *shared = fa_store_ranks(in->store, unknown, (uint32_t)ci->comm_size);
                free(unknown);
                if (!shared) continue;
                /* a placeholder name makes the key unique until members are filled in */
                const char *desc = NULL;
                for (uint32_t k = 0; k < d->ngroups; k++)
                    if (strcmp(d->groups[k].name, ci->pg_name) == 0) desc = d->groups[k].desc;
                long idx = builder_add(b, key, desc, shared, (uint32_t)ci->comm_size);
                if (idx < 0) continue;
                b->v[idx].name = ci->pg_name;
                at = (uint64_t)idx;
                fa_smap_put(&slots, key, at);
            }
            b->v[at].members[ci->comm_rank] = in->ranks[r].rank;
            char rk[640];
            snprintf(rk, sizeof rk, "%zu\x1f%s", r, ci->pg_name);
            fa_smap_put(recorder_key, rk, at);
        }
    }
    fa_smap_free(&slots);
}

static int64_t job_top(const fa_input *in);

/* Whether input rank r's dump may hide a place in the recorder communicator `name`: it names
 * none of its communicators (cut before them), or names this one without saying where. A dump
 * that lists its communicators (the recorder lists every one its process made) without this one
 * says the rank is no member. */
static bool may_be_member(const fa_dump *d, const char *name) {
    for (uint32_t c = 0; c < d->ncomms; c++)
        if (strcmp(d->comms[c].pg_name, name) == 0) return false;
    return d->ncomms == 0;
}

/* Whether dump d's entries name the communicator `name`: its rank is a member (the recorder
 * names a communicator by its hash, the same on every member and on no other). */
static bool names_in_entries(const fa_dump *d, const char *name) {
    for (uint32_t k = 0; k < d->npgs; k++)
        if (d->pgs[k].name && strcmp(d->pgs[k].name, name) == 0) return true;
    return false;
}

/* A recorder communicator whose members are rebuilt from the dumps' comms has a slot for every
 * comm_rank; a member whose dump is missing or cut before its comms leaves its slot unknown
 * (-1). When the job's ranks that could fill them (not in the group, without a dump or with one
 * silent about its communicators) are exactly as many as the unknown slots, they fill them in
 * order: one missing member is then known; several, in an order that only matters for
 * send/recv names. Else the ranks among them whose entries name the communicator (a dump cut
 * before its comms: they are members) fill them when exactly as many (tests/sim seed 2944: rank
 * 1's cut dump names communicators whose open slots ranks without a dump could also fill). */
static void fill_unknown_slots(const fa_input *in, builder *b, fa_smap *recorder_key) {
    int64_t top = job_top(in);
    for (size_t i = 0; i < b->n; i++) {
        proto_group *p = &b->v[i];
        uint32_t slots = 0;
        for (uint32_t k = 0; k < p->n; k++) slots += p->members[k] < 0;
        if (!slots) continue;
        fa_ranks have = { 0 }, could = { 0 };
        for (uint32_t k = 0; k < p->n; k++)
            if (p->members[k] >= 0) fa_ranks_add(&have, p->members[k]);
        fa_ranks_normalize(&have);
        for (int64_t r = 0; r <= top; r++) {
            long ri = fa_input_find(in, r);
            if (!fa_ranks_contains(&have, r) &&
                (ri < 0 || may_be_member(in->ranks[ri].dump, p->name)))
                fa_ranks_add(&could, r);
        }
        fa_ranks named = { 0 };
        for (size_t c = 0; c < could.n && could.n != slots; c++) {
            long ri = fa_input_find(in, could.v[c]);
            if (ri >= 0 && names_in_entries(in->ranks[ri].dump, p->name))
                fa_ranks_add(&named, could.v[c]);
        }
        const fa_ranks *fill = could.n == slots ? &could : named.n == slots ? &named : NULL;
        for (uint32_t k = 0, c = 0; fill && k < p->n; k++) {
            if (p->members[k] >= 0) continue;
            p->members[k] = fill->v[c++];
            /* a member whose dump was cut before its comms: its entries of the communicator are
             * this group's, not a group of their own rebuilt around it (tests/sim seed 153: rank
             * 2 alone in a copy of a 3-rank communicator, filled with ranks 3,4 the job lacks) */
            long ri = fa_input_find(in, p->members[k]);
            char rk[640];
            snprintf(rk, sizeof rk, "%ld\x1f%s", ri, p->name);
            if (ri >= 0) fa_smap_put(recorder_key, rk, (uint64_t)i);
        }
        fa_ranks_free(&have);
        fa_ranks_free(&could);
        fa_ranks_free(&named);
    }
}

static int name_is_number(const char *s) {
    if (!*s) return 0;
    for (; *s; s++)
        if (*s < '0' || *s > '9') return 0;
    return 1;
}

static int64_t lowest_member(const proto_group *p) {
    int64_t low = INT64_MAX;
    for (uint32_t i = 0; i < p->n; i++)
        if (p->members[i] >= 0 && p->members[i] < low) low = p->members[i];
    return low;
}

static int compare_protos(const void *a, const void *b) {
    const proto_group *x = a, *y = b;
    int nx = name_is_number(x->name), ny = name_is_number(y->name);
    if (nx && ny && strlen(x->name) != strlen(y->name))
        return strlen(x->name) < strlen(y->name) ? -1 : 1;
    int c = strcmp(x->name, y->name);
    if (c) return c;
    int64_t lx = lowest_member(x), ly = lowest_member(y);
    return (lx > ly) - (lx < ly);
}

static void assign_ids(fa_groups *g) {
    for (size_t i = 0; i < g->n;) {
        size_t j = i;
        while (j < g->n && strcmp(g->v[j].name, g->v[i].name) == 0) j++;
        for (size_t k = i; k < j; k++) {
            fa_group *grp = &g->v[k];
            grp->id = malloc(strlen(grp->name) + 24);
            if (!grp->id) continue;
            if (j - i == 1)
                strcpy(grp->id, grp->name);
            else
                sprintf(grp->id, "%s@%zu", grp->name, k - i);
        }
        i = j;
    }
}

/* Whether members are a run of consecutive ranks ("[0, 1, ..., N-1]", a TP block): then a
 * rank's position is computed and no map is built (a million-member group costs no 32 MB map). */
static bool is_contiguous(const fa_group *grp) {
    for (uint32_t m = 1; m < grp->nmembers; m++)
        if (grp->members[m] != grp->members[0] + m) return false;
    return grp->nmembers > 0 && grp->members[0] >= 0;
}

static void index_members(const fa_input *in, fa_groups *g) {
    fa_ranks missing = { 0 };
    int64_t counted_first = -1, counted_n = 0; /* the last run of members counted in missing */
    for (size_t i = 0; i < g->n; i++) {
        fa_group *grp = &g->v[i];
        grp->member_input = malloc((grp->nmembers ? grp->nmembers : 1) * sizeof *grp->member_input);
        if (!grp->member_input) continue;
        grp->contiguous = is_contiguous(grp);
        bool counted = grp->contiguous && grp->members[0] >= counted_first &&
                       grp->members[0] + grp->nmembers <= counted_first + counted_n;
        for (uint32_t m = 0; m < grp->nmembers; m++) {
            int64_t r = grp->members[m];
            grp->member_input[m] = r >= 0 ? fa_input_find(in, r) : -1;
            if (r >= 0 && !grp->contiguous) fa_imap_put(&grp->member_pos, (uint64_t)r, m);
            if (r >= 0 && grp->member_input[m] < 0 && !counted) fa_ranks_add(&missing, r);
        }
        if (grp->contiguous && !counted && grp->nmembers > counted_n) {
            counted_first = grp->members[0];
            counted_n = grp->nmembers;
        }
    }
    /* Global ranks are dense from 0: a rank below the job's highest that left no dump is a
     * member of the job (of the default group, and of groups that no dump shows), never absent. */
    int64_t top = job_top(in);
    for (int64_t r = 0; r <= top; r++)
        if (fa_input_find(in, r) < 0) fa_ranks_add(&missing, r);
    fa_ranks_normalize(&missing);
    g->without_dump = missing;
}

/* A group seen by several ranks with the same name and members but different descs. */
static void check_descs(const fa_input *in, fa_groups *g) {
    for (size_t r = 0; r < in->nranks; r++) {
        const fa_dump *d = in->ranks[r].dump;
        for (uint32_t k = 0; k < d->ngroups; k++) {
            long gi = fa_groups_find(g, r, d->groups[k].name);
            const char *desc = d->groups[k].desc ? d->groups[k].desc : "";
            if (gi < 0 || strcmp(g->v[gi].desc, desc) == 0) continue;
            char note[700];
            snprintf(note, sizeof note,
                     "group %s: rank %lld calls it \"%.200s\", others \"%.200s\"", g->v[gi].id,
                     (long long)in->ranks[r].rank, desc, g->v[gi].desc);
            add_note(g, note);
        }
    }
}

/* Entries a rank recorded in a group whose member list leaves that rank out cannot be matched
 * (the rank has no place among the members). Say so, per group, with the ranks, and count them:
 * the verdict must not call such a job ok. A torchft job read without --transform-ft looks like
 * this: every replica's default_pg lists the replica-local ranks 0..N-1. */
static void check_outsiders(const fa_input *in, fa_groups *g) {
    fa_ranks *outside = calloc(g->n + 1, sizeof *outside);
    if (!outside) return;
    for (size_t r = 0; r < in->nranks; r++) {
        const fa_dump *d = in->ranks[r].dump;
        for (uint32_t k = 0; k < d->npgs; k++) { /* the groups its entries name */
            long gi = fa_groups_find(g, r, d->pgs[k].name);
            if (gi >= 0 && fa_group_position(&g->v[gi], in->ranks[r].rank) < 0)
                fa_ranks_add(&outside[gi], in->ranks[r].rank);
        }
    }
    for (size_t gi = 0; gi < g->n; gi++) {
        if (!outside[gi].n) continue;
        fa_ranks_normalize(&outside[gi]);
        char *who = fa_ranks_format(outside[gi].v, outside[gi].n);
        char note[700];
        snprintf(note, sizeof note,
                 "group %s (%.200s): rank%s %s recorded collectives in it, but its member list "
                 "leaves %s out, so "
                 "they were not matched (a torchft job? try --transform-ft --group-world-size N)",
                 g->v[gi].id, g->v[gi].desc, outside[gi].n > 1 ? "s" : "", who ? who : "?",
                 outside[gi].n > 1 ? "them" : "it");
        char **notes = realloc(g->outsider_notes, (g->noutsider_notes + 1) * sizeof *notes);
        if (notes) {
            g->outsider_notes = notes;
            g->outsider_notes[g->noutsider_notes++] = strdup(note);
        }
        free(who);
        for (size_t i = 0; i < outside[gi].n; i++) fa_ranks_add(&g->outsiders, outside[gi].v[i]);
        fa_ranks_free(&outside[gi]);
    }
    fa_ranks_normalize(&g->outsiders);
    free(outside);
}

/* pg_config's key "" is no group an entry can name: PyTorch 2.15's gloo records it in the group's
 * constructor before the name is set, with group-local ranks, and every group overwrites it. */
static bool config_usable(const fr_group_config *c) { return c->nranks > 0 && c->name[0] != '\0'; }

static bool described(const fa_dump *d, const char *name) {
    for (uint32_t k = 0; k < d->ngroups; k++)
        if (config_usable(&d->groups[k]) && strcmp(d->groups[k].name, name) == 0) return true;
    return false;
}

/* Every rank the job is known to have: the loaded ones, the rejected files', and the gaps up to
 * the highest (ranks are dense from 0). The default group's members when pg_config lacks it.
 * A group of n ranks needs a job of n ranks at least: gloo's pg_config key "" lists some group's
 * group-local ranks, so where the dumps of ranks 0, 2 and 3 are missing (aborted by a peer's
 * mismatch) rank 1's "[0, 1, 2, 3]" still says that they were there. A recorder communicator of
 * n ranks says the same of ranks 0..n-1. */
static int64_t job_top(const fa_input *in) {
    int64_t top = -1;
    for (size_t r = 0; r < in->nranks; r++) {
        const fa_dump *d = in->ranks[r].dump;
        if (in->ranks[r].rank > top) top = in->ranks[r].rank;
        for (uint32_t k = 0; k < d->ngroups; k++)
            if ((int64_t)d->groups[k].nranks - 1 > top) top = (int64_t)d->groups[k].nranks - 1;
        /* a recorder communicator of n ranks: the job has ranks 0..n-1 (global ranks are dense) */
        for (uint32_t c = 0; c < d->ncomms; c++)
            if (d->comms[c].comm_size - 1 > top) top = d->comms[c].comm_size - 1;
    }
    for (size_t r = 0; r < in->nrejected; r++)
        if (in->rejected[r].rank > top) top = in->rejected[r].rank;
    return top;
}

static void job_ranks(int64_t top, fa_ranks *out) {
    for (int64_t r = 0; r <= top; r++) fa_ranks_add(out, r);
}

typedef struct evidence {
    const char *name, *desc;
    fa_ranks ranks; /* ranks whose dumps record entries in the group */
} evidence;

typedef struct evidence_list {
    evidence *v;
    size_t n;
    fa_smap at; /* name -> position */
} evidence_list;

/* Whether rank r's group slot k names a group that its own pg_config does not describe and that
 * `key` does not place yet ((rank, name) -> group, filled into rk): one the entries must decide. */
static bool unplaced_slot(const fa_input *in, size_t r, uint32_t k, const fa_smap *key, char *rk,
                          size_t len) {
    const fa_dump *d = in->ranks[r].dump;
    const char *name = d->pgs[k].name ? d->pgs[k].name : "";
    uint64_t at;
    snprintf(rk, len, "%zu\x1f%s", r, name);
    return !described(d, name) && !fa_smap_get(key, rk, &at);
}

static void gather_evidence(const fa_input *in, const fa_smap *recorder_key, evidence_list *ev) {
    for (size_t r = 0; r < in->nranks; r++) {
        const fa_dump *d = in->ranks[r].dump;
        for (uint32_t k = 0; k < d->npgs; k++) {
            const char *name = d->pgs[k].name ? d->pgs[k].name : "";
            char rk[640];
            uint64_t at;
            if (!unplaced_slot(in, r, k, recorder_key, rk, sizeof rk)) continue;
            if (!fa_smap_get(&ev->at, name, &at)) {
                evidence *v = realloc(ev->v, (ev->n + 1) * sizeof *v);
                if (!v) return;
                ev->v = v;
                v[ev->n] = (evidence){ name, d->pgs[k].desc ? d->pgs[k].desc : "", { 0 } };
                at = ev->n++;
                fa_smap_put(&ev->at, name, at);
            }
            fa_ranks_add(&ev->v[at].ranks, in->ranks[r].rank);
        }
    }
}

static bool ignored_config(const fa_input *in, char *buf, size_t len) {
    for (size_t r = 0; r < in->nranks; r++) {
        const fa_dump *d = in->ranks[r].dump;
        for (uint32_t k = 0; k < d->ngroups; k++) {
            const fr_group_config *c = &d->groups[k];
            if (c->nranks == 0 || c->name[0]) continue;
            char *list = fa_ranks_format(c->ranks, c->nranks);
            snprintf(buf, len,
                     " (pg_config names only a group \"\", ranks %s, group-local, as gloo "
                     "writes it)",
                     list ? list : "?");
            free(list);
            return true;
        }
    }
    return false;
}

static void add_inferred_note(fa_groups *g, const char *text) {
    char **notes = realloc(g->inferred, (g->ninferred + 1) * sizeof *notes);
    if (!notes) return;
    g->inferred = notes;
    g->inferred[g->ninferred++] = strdup(text);
}

/* The membership_inferred warning: which groups, rebuilt from what. */
static void note_inferred(const fa_input *in, fa_groups *g, const evidence_list *ev) {
    char text[1200], why[300] = "";
    if (ignored_config(in, why, sizeof why)) { /* gloo, always: say it in a line, not a page */
        snprintf(text, sizeof text,
                 "%zu group%s rebuilt from the dumps that record entries in them%s; frtrace -v "
                 "lists their members",
                 ev->n, ev->n > 1 ? "s" : "", why);
        add_inferred_note(g, text);
        return;
    }
    size_t at = (size_t)snprintf(text, sizeof text,
                                 "%zu group%s that entries name %s no pg_config entry%s; "
                                 "members rebuilt from the dumps that record entries in them:",
                                 ev->n, ev->n > 1 ? "s" : "", ev->n > 1 ? "have" : "has", why);
    for (size_t i = 0; i < ev->n && at < sizeof text; i++) {
        if (i == 8) {
            snprintf(text + at, sizeof text - at, "; and %zu more", ev->n - i);
            break;
        }
        char *who = fa_ranks_format(ev->v[i].ranks.v, ev->v[i].ranks.n);
        bool whole_job = strcmp(ev->v[i].desc, "default_pg") == 0;
        bool nothing = fa_desc_says_nothing(ev->v[i].desc);
        at += (size_t)snprintf(text + at, sizeof text - at, "%s %.60s%s%.60s (%s%s)", i ? ";" : "",
                               ev->v[i].name, nothing ? "" : " ", nothing ? "" : ev->v[i].desc,
                               whole_job ? "every rank of the job; recorded by " : "",
                               who ? who : "?");
        free(who);
    }
    add_inferred_note(g, text);
}

/* Groups that entries name but no pg_config describes, rebuilt from evidence: the members are
 * the ranks whose dumps record entries in them (in rank order, as new_group sorts them) and the
 * members that left no dump, put back (group_fill.h); the default group holds every rank of the
 * job. Each (rank, name) is mapped in `key` as the recorder's groups are. */
/* Whether proto p lists global rank r. */
static bool proto_has(const proto_group *p, int64_t r) {
    for (uint32_t k = 0; k < p->n; k++)
        if (p->members[k] == r) return true;
    return false;
}

/* A dump that names a group in its entries but not in its pg_config (a JSON dump cut before its
 * pg_config, which follows the entries) is in the group its peers' pg_config describe under that
 * name with the rank among the members, when exactly one such group exists: `key` maps
 * (rank, name) to it, so that no second group of the same members is inferred for the rank alone
 * (tests/sim seed 1368: "0@1", rank 2 alone in a copy of default_pg). Protos from pg_config
 * are b->v[first..]. Cost: the ranks' pg slots times the members of the groups of their names,
 * for dumps that lack a config only. */
static void adopt_described(const fa_input *in, const builder *b, size_t first, fa_smap *key) {
    for (size_t r = 0; r < in->nranks; r++) {
        const fa_dump *d = in->ranks[r].dump;
        for (uint32_t k = 0; k < d->npgs; k++) {
            const char *name = d->pgs[k].name ? d->pgs[k].name : "";
            char rk[640];
            if (!unplaced_slot(in, r, k, key, rk, sizeof rk)) continue;
            long found = -1;
            for (size_t i = first; i < b->n && found != -2; i++)
                if (strcmp(b->v[i].name, name) == 0 && proto_has(&b->v[i], in->ranks[r].rank))
                    found = found == -1 ? (long)i : -2;
            if (found >= 0) fa_smap_put(key, rk, (uint64_t)found);
        }
    }
}

static int infer_groups(const fa_input *in, builder *b, fa_smap *key, fa_groups *g) {
    evidence_list ev = { 0 };
    gather_evidence(in, key, &ev);
    fa_fill_group *fill = calloc(ev.n + 1, sizeof *fill);
    size_t nfill = 0;
    int64_t top = job_top(in);
    char *filled = NULL;
    int rc = fill ? 0 : -1;
    for (size_t i = 0; i < ev.n && rc == 0; i++) {
        fa_ranks_normalize(&ev.v[i].ranks);
        if (strcmp(ev.v[i].desc, "default_pg") == 0) continue;
        fill[nfill] = (fa_fill_group){ ev.v[i].name, ev.v[i].desc, { 0 }, { 0 } };
        for (size_t k = 0; k < ev.v[i].ranks.n; k++)
            fa_ranks_add(&fill[nfill].members, ev.v[i].ranks.v[k]);
        nfill++;
    }
    if (rc == 0) rc = fa_fill_groups(in, fill, nfill, &top, &filled);
    for (size_t i = 0, f = 0; i < ev.n && rc == 0; i++) {
        evidence *e = &ev.v[i];
        bool whole_job = strcmp(e->desc, "default_pg") == 0;
        fa_ranks members = { 0 };
        if (whole_job) job_ranks(top, &members);
        const fa_ranks *own = whole_job ? &e->ranks : &fill[f++].members;
        for (size_t k = 0; k < own->n; k++) fa_ranks_add(&members, own->v[k]);
        fa_ranks_normalize(&members);
        long idx = builder_add(b, e->name, e->desc, members.v, (uint32_t)members.n);
        fa_ranks_free(&members);
        if (idx < 0)
            rc = -1;
        else
            b->v[idx].inferred = !whole_job;
        for (size_t r = 0; r < in->nranks && rc == 0; r++) {
            if (!fa_ranks_contains(&e->ranks, in->ranks[r].rank)) continue;
            char rk[640];
            snprintf(rk, sizeof rk, "%zu\x1f%s", r, e->name);
            fa_smap_put(key, rk, (uint64_t)idx);
        }
    }
    if (ev.n && rc == 0) note_inferred(in, g, &ev);
    if (filled && rc == 0) add_inferred_note(g, filled);
    free(filled);
    for (size_t i = 0; i < nfill; i++) {
        fa_ranks_free(&fill[i].members);
        fa_ranks_free(&fill[i].added);
    }
    free(fill);
    for (size_t i = 0; i < ev.n; i++) fa_ranks_free(&ev.v[i].ranks);
    free(ev.v);
    fa_smap_free(&ev.at);
    return rc;
}

int fa_groups_build(const fa_input *in, fa_groups *g, fr_error *err) {
    memset(g, 0, sizeof *g);
    builder b = { 0 };
    fa_smap recorder_key = { 0 }; /* (rank index, name) -> proto, for groups not from pg_config */
    rebuild_recorder_groups(in, &b, &recorder_key);
    fill_unknown_slots(in, &b, &recorder_key);
    size_t first_config = b.n;
    for (size_t r = 0; r < in->nranks; r++) {
        const fa_dump *d = in->ranks[r].dump;
        for (uint32_t k = 0; k < d->ngroups; k++) {
            const fr_group_config *c = &d->groups[k];
            if (!config_usable(c)) continue; /* recorder dumps: rebuilt above; gloo's "" */
            if (builder_add(&b, c->name, c->desc, c->ranks, c->nranks) < 0) {
                fr_fail(err, "out of memory");
                return -1;
            }
        }
    }
    adopt_described(in, &b, first_config, &recorder_key);
    if (infer_groups(in, &b, &recorder_key, g) != 0) {
        fr_fail(err, "out of memory");
        return -1;
    }
    /* remember, before sorting, which proto each (rank, name) refers to */
    size_t *order = malloc((b.n ? b.n : 1) * sizeof *order);
    proto_group *sorted = malloc((b.n ? b.n : 1) * sizeof *sorted);
    if (b.n) {
        memcpy(sorted, b.v, b.n * sizeof *sorted);
        qsort(sorted, b.n, sizeof *sorted, compare_protos);
    }
    for (size_t i = 0; i < b.n; i++) order[sorted[i].added] = i;
    g->n = b.n;
    g->v = calloc(b.n ? b.n : 1, sizeof *g->v);
    for (size_t i = 0; i < b.n; i++)
        g->v[i] =
            (fa_group){ NULL, sorted[i].name, sorted[i].desc,     sorted[i].n, sorted[i].members,
                        NULL, { 0 },          sorted[i].inferred, false };
    assign_ids(g);
    g->by_rank = calloc(in->nranks ? in->nranks : 1, sizeof *g->by_rank);
    g->nby_rank = in->nranks;
    for (size_t r = 0; r < in->nranks; r++) {
        const fa_dump *d = in->ranks[r].dump;
        for (uint32_t k = 0; k < d->ngroups; k++) {
            const fr_group_config *c = &d->groups[k];
            if (!config_usable(c)) continue;
            char *key = member_key(c->name, c->ranks, c->nranks);
            uint64_t at;
            if (key && fa_smap_get(&b.index, key, &at))
                fa_smap_put(&g->by_rank[r], c->name, order[at]);
            free(key);
        }
        for (uint32_t c = 0; c < d->ncomms; c++) {
            char rk[640];
            uint64_t at;
            snprintf(rk, sizeof rk, "%zu\x1f%s", r, d->comms[c].pg_name);
            if (fa_smap_get(&recorder_key, rk, &at))
                fa_smap_put(&g->by_rank[r], d->comms[c].pg_name, order[at]);
        }
        for (uint32_t k = 0; k < d->npgs; k++) { /* inferred groups */
            char rk[640];
            uint64_t at;
            const char *name = d->pgs[k].name ? d->pgs[k].name : "";
            snprintf(rk, sizeof rk, "%zu\x1f%s", r, name);
            if (fa_smap_get(&recorder_key, rk, &at)) fa_smap_put(&g->by_rank[r], name, order[at]);
        }
    }
    index_members(in, g);
    check_descs(in, g);
    check_outsiders(in, g);
    fa_smap_free(&b.index);
    fa_smap_free(&recorder_key);
    free(b.v);
    free(sorted);
    free(order);
    return 0;
}

long fa_groups_find(const fa_groups *g, size_t rank_index, const char *pg_name) {
    uint64_t at;
    if (!g->by_rank || !pg_name || !fa_smap_get(&g->by_rank[rank_index], pg_name, &at)) return -1;
    return (long)at;
}

long fa_group_position(const fa_group *group, int64_t global_rank) {
    uint64_t at;
    if (group->contiguous)
        return global_rank >= group->members[0] && global_rank - group->members[0] < group->nmembers
                   ? (long)(global_rank - group->members[0])
                   : -1;
    if (global_rank < 0 || !fa_imap_get(&group->member_pos, (uint64_t)global_rank, &at)) return -1;
    return (long)at;
}

void fa_groups_free(fa_groups *g) {
    for (size_t i = 0; i < g->n; i++) {
        free(g->v[i].id);
        free(g->v[i].members);
        free(g->v[i].member_input);
        fa_imap_free(&g->v[i].member_pos);
    }
    free(g->v);
    for (size_t r = 0; r < g->nby_rank; r++) fa_smap_free(&g->by_rank[r]);
    free(g->by_rank);
    for (size_t i = 0; i < g->nnotes; i++) free(g->notes[i]);
    free(g->notes);
    for (size_t i = 0; i < g->ninferred; i++) free(g->inferred[i]);
    free(g->inferred);
    for (size_t i = 0; i < g->noutsider_notes; i++) free(g->outsider_notes[i]);
    free(g->outsider_notes);
    fa_ranks_free(&g->without_dump);
    fa_ranks_free(&g->outsiders);
}

/* What tells apart groups that share a name ("0@1": torchft's replicas, PyTorch's split
 * groups) in words: "0, ranks 16-31", or "0, 64 ranks from 1540" when the list is long. */
static void shared_name_words(const fa_group *group, char *buf, size_t len) {
    char *who = fa_ranks_format(group->members, group->nmembers);
    int64_t low = group->nmembers ? group->members[0] : -1;
    for (uint32_t m = 1; m < group->nmembers; m++)
        if (group->members[m] < low) low = group->members[m];
    if (who && strlen(who) <= 24)
        snprintf(buf, len, "%s, rank%s %s", group->name, group->nmembers > 1 ? "s" : "", who);
    else
        snprintf(buf, len, "%s, %u ranks from %lld", group->name, group->nmembers, (long long)low);
    free(who);
}

void fa_group_label(const fa_group *group, char *buf, size_t len) {
    char id[160];
    if (strchr(group->id, '@') && group->name)
        shared_name_words(group, id, sizeof id);
    else
        snprintf(id, sizeof id, "%s", group->id);
    if (fa_desc_says_nothing(group->desc))
        snprintf(buf, len, "group %s", id);
    else
        snprintf(buf, len, "%s (%s)", group->desc, id);
}
