/* mixed.c — dumps of more than one job in one directory (see mixed.h). */
#include "match/mixed.h"
#include "util/xmalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct window {
    int64_t from, to; /* time_created_ns of a rank's oldest and newest entries */
    size_t rank_index;
} window;

static int by_start(const void *a, const void *b) {
    const window *x = a, *y = b;
    return (x->from > y->from) - (x->from < y->from);
}

static void clock_text(int64_t ns, char *buf, size_t len) {
    time_t s = (time_t)(ns / 1000000000);
    struct tm tm;
    if (!gmtime_r(&s, &tm) || !strftime(buf, len, "%Y-%m-%d %H:%M:%S UTC", &tm))
        snprintf(buf, len, "?");
}

/* The ranks of each cluster of overlapping windows; 1 when they all overlap (or none has
 * entries). `starts` gets each cluster's first position in the sorted windows. */
static size_t time_clusters(window *w, size_t n, size_t *starts) {
    if (!n) return 1;
    qsort(w, n, sizeof *w, by_start);
    size_t clusters = 1;
    starts[0] = 0;
    int64_t end = w[0].to;
    for (size_t i = 1; i < n; i++) {
        if (w[i].from > end && w[i].from - end > FA_MIXED_GAP_NS) starts[clusters++] = i;
        if (w[i].to > end) end = w[i].to;
    }
    return clusters;
}

static char *cluster_ranks(const fa_input *in, const window *w, size_t from, size_t to) {
    fa_ranks r = { 0 };
    for (size_t i = from; i < to; i++) fa_ranks_add(&r, in->ranks[w[i].rank_index].rank);
    fa_ranks_normalize(&r);
    char *text = fa_ranks_format(r.v, r.n);
    fa_ranks_free(&r);
    return text;
}

/* Clocks: two clusters of ranks recorded far apart. */
static char *by_time(const fa_input *in, fa_finding *f) {
    window *w = malloc((in->nranks + 1) * sizeof *w);
    size_t *starts = malloc((in->nranks + 1) * sizeof *starts), n = 0;
    char *summary = NULL;
    if (!w || !starts) goto out;
    for (size_t r = 0; r < in->nranks; r++)
        if (in->ranks[r].dump->oldest_ns > 0)
            w[n++] = (window){ in->ranks[r].dump->oldest_ns, in->ranks[r].dump->newest_ns, r };
    size_t clusters = time_clusters(w, n, starts);
    if (clusters < 2) goto out;
    starts[clusters] = n;
    char detail[1500];
    size_t at =
        (size_t)snprintf(detail, sizeof detail,
                         "these dumps cannot belong to one job: their entries were recorded in "
                         "%zu runs more than 10 minutes apart:",
                         clusters);
    int64_t end_first = w[0].to;
    for (size_t i = 1; i < starts[1]; i++)
        if (w[i].to > end_first) end_first = w[i].to;
    for (size_t c = 0; c < clusters && at < sizeof detail; c++) {
        char *who = cluster_ranks(in, w, starts[c], starts[c + 1]), when[64];
        clock_text(w[starts[c]].from, when, sizeof when);
        at += (size_t)snprintf(detail + at, sizeof detail - at, "%s ranks %s from %s (%s ...)",
                               c ? ";" : "", who ? who : "?", when,
                               in->ranks[w[starts[c]].rank_index].path);
        for (size_t i = starts[c]; i < starts[c + 1]; i++)
            fa_ranks_add(&f->ranks, in->ranks[w[i].rank_index].rank);
        free(who);
    }
    fa_finding_set_detail(f, "%s; analyze each job's dumps on their own", detail);
    char *a = cluster_ranks(in, w, starts[0], starts[1]),
         *b = cluster_ranks(in, w, starts[1], starts[2]);
    double hours = (double)(w[starts[1]].from - end_first) / 3.6e12;
    summary = xasprintf("inconclusive: dumps of %zu jobs: ranks %s and %s%s recorded %.1f %s apart",
                        clusters, a ? a : "?", b ? b : "?", clusters > 2 ? " and more" : "",
                        hours >= 1 ? hours : hours * 60, hours >= 1 ? "h" : "min");
    free(a);
    free(b);
out:
    free(w);
    free(starts);
    return summary;
}

/* The size of the default group a dump's pg_config gives, 0 when it gives none. */
static uint32_t default_size(const fa_dump *d) {
    for (uint32_t k = 0; k < d->ngroups; k++)
        if (d->groups[k].desc && strcmp(d->groups[k].desc, "default_pg") == 0)
            return d->groups[k].nranks;
    return 0;
}

/* World sizes: two sizes of the default group, each given by at least two dumps (one dump that
 * disagrees with all the others is a corrupt header, which the loader names; not a second job). */
static char *by_world_size(const fa_input *in, fa_finding *f) {
    uint32_t size[2] = { 0, 0 };
    size_t count[2] = { 0, 0 }, other = 0;
    for (size_t r = 0; r < in->nranks; r++) {
        uint32_t n = default_size(in->ranks[r].dump);
        if (!n) continue;
        int k = size[0] == 0 || size[0] == n ? 0 : size[1] == 0 || size[1] == n ? 1 : -1;
        if (k < 0) {
            other++;
            continue;
        }
        size[k] = n;
        count[k]++;
    }
    if (count[0] < 2 || count[1] < 2) return NULL;
    fa_finding_set_detail(f,
                          "these dumps cannot belong to one job: %zu of them give the default "
                          "group %u ranks, %zu give it %u%s; "
                          "analyze each job's dumps on their own",
                          count[0], size[0], count[1], size[1],
                          other ? " (and some yet another count)" : "");
    char *summary = NULL;
    summary =
        xasprintf("inconclusive: dumps of more than one job: default groups of %u and of %u ranks",
                  size[0], size[1]);
    return summary;
}

/* Membership: ranks with entries in a non-default group whose member list leaves them out. */
static char *by_membership(const fa_input *in, const fa_groups *g, fa_finding *f) {
    fa_ranks outside = { 0 };
    const char *group = NULL, *path = NULL;
    for (size_t r = 0; r < in->nranks; r++) {
        const fa_dump *d = in->ranks[r].dump;
        for (uint32_t k = 0; k < d->npgs; k++) {
            long gi = fa_groups_find(g, r, d->pgs[k].name);
            if (gi < 0 || strcmp(g->v[gi].desc, "default_pg") == 0 ||
                fa_group_position(&g->v[gi], in->ranks[r].rank) >= 0)
                continue;
            fa_ranks_add(&outside, in->ranks[r].rank);
            if (!group) {
                group = g->v[gi].id;
                path = in->ranks[r].path;
            }
        }
    }
    if (!outside.n) return NULL;
    fa_ranks_normalize(&outside);
    char *who = fa_ranks_format(outside.v, outside.n), *summary = NULL;
    fa_finding_set_detail(
        f,
        "these dumps cannot belong to one job: rank%s %s recorded collectives in groups whose "
        "member lists "
        "leave %s out (first: group %s, %s); analyze each job's dumps on their own",
        outside.n > 1 ? "s" : "", who ? who : "?", outside.n > 1 ? "them" : "it", group, path);
    for (size_t i = 0; i < outside.n; i++) fa_ranks_add(&f->ranks, outside.v[i]);
    summary =
        xasprintf("inconclusive: dumps of more than one job: rank%s %s are not members of groups "
                  "they recorded in",
                  outside.n > 1 ? "s" : "", who ? who : "?");
    free(who);
    fa_ranks_free(&outside);
    return summary;
}

char *fa_mixed_jobs(const fa_input *in, const fa_groups *groups, fa_findings *findings) {
    fa_finding probe = { 0 };
    char *summary = by_time(in, &probe);
    if (!summary) summary = by_world_size(in, &probe);
    if (!summary) summary = by_membership(in, groups, &probe);
    if (summary) {
        fa_ranks_normalize(&probe.ranks);
        fa_finding *f = fa_findings_add(findings, FA_MIXED_JOBS, -1, -1);
        f->ranks = probe.ranks;
        f->detail = probe.detail;
        return summary;
    }
    fa_ranks_free(&probe.ranks);
    free(probe.detail);
    return summary;
}
