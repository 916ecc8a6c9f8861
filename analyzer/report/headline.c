/* headline.c — the line that heads every output (headline.h).
 *
 * slow_ranks_line words perf/'s stragglers, the first of which (the latest) stands for them all;
 * fa_headline puts it after "ok: no hang; " when the verdict is ok, else returns the verdict's
 * summary as it is.
 */
#include "report/headline.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "util/ranks.h"
#include "util/xmalloc.h"

/* Ten or more milliseconds to the millisecond, less to a tenth: "40 ms", "2.5 ms". */
static void ms_text(double ms, char *buf, size_t len) {
    if (fabs(ms) >= 10)
        snprintf(buf, len, "%.0f ms", ms);
    else
        snprintf(buf, len, "%.1f ms", ms);
}

/* "rank 3 is slow: ..." for one straggler, "ranks 3,5 are slow: up to ..." for several; NULL
 * when there are none. */
static char *slow_ranks_line(const fa_perf *p) {
    if (!p->nstragglers) return NULL;
    const fa_straggler *s = &p->stragglers[0];
    char late[32], slow[32];
    ms_text(s->late_ms_typical, late, sizeof late);
    ms_text(s->slow_ms_median, slow, sizeof slow);
    if (p->nstragglers == 1) {
        if (!s->late)
            return xasprintf("rank %lld is slow: its collectives take %s longer than its peers' "
                             "(median of %u)",
                             (long long)s->rank, slow, s->timed);
        if (s->late_ms_typical == s->late_ms_median)
            return xasprintf(
                "rank %lld is slow: last to arrive in %u of %u collectives, %s late (median)",
                (long long)s->rank, s->last_in, s->collectives, late);
        /* late once in a while, at the same place of every step */
        return xasprintf("rank %lld is slow: %s late in %u of %u collectives (median)",
                         (long long)s->rank, late, s->late_in, s->collectives);
    }
    int64_t *r = xmalloc(p->nstragglers * sizeof *r);
    for (size_t i = 0; i < p->nstragglers; i++) r[i] = p->stragglers[i].rank;
    char *list = fa_ranks_format(r, p->nstragglers);
    free(r);
    if (!list) return NULL;
    char *text = xasprintf("ranks %s are slow: up to %s %s (median)", list, s->late ? late : slow,
                           s->late ? "late" : "longer per collective");
    free(list);
    return text;
}

char *fa_headline(const fa_analysis *a) {
    char *slow = a->verdict.status == FA_STATUS_OK ? slow_ranks_line(&a->perf) : NULL;
    if (slow) {
        char *title = xasprintf("ok: no hang; %s", slow);
        free(slow);
        return title;
    }
    return a->verdict.summary ? xstrdup(a->verdict.summary) : NULL;
}
