/* transform_ft.c — torchfrtrace's --transform-ft, for jobs run under torchft.
 *
 * torchft runs the job as replica groups of `group world size` ranks each. Every replica has a
 * default process group of its own, with the same name as the others' ("0", desc "default_pg")
 * but listing the replica's local ranks, 0 to gws-1, in every dump. Matched by name, the
 * replicas' default groups would merge into one whose members disagree about who belongs.
 * The transform, as torchfrtrace does it, rewrites the ranks of each dump's pg_config entries
 * whose desc is "default_pg" to global ranks: r + (rank / gws) * gws, `rank` being the dump's
 * own (file) rank. The groups step then sees one default group per replica: the same name with
 * other members, which it keeps apart as distinct groups (groups.h). Nothing else changes.
 *
 * The rewritten lists are interned in the store like every other rank list, so the dumps of a
 * replica share one copy.
 */
#include "load/transform_ft.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/index.h"

static int transform_group(fa_input *in, const fa_rank_dump *rd, fr_group_config *g,
                           int64_t first_rank, int64_t *scratch, fr_error *err) {
    for (uint32_t k = 0; k < g->nranks; k++) {
        if (__builtin_add_overflow(g->ranks[k], first_rank, &scratch[k])) {
            fr_fail(err, "%s: --transform-ft: default_pg rank %lld + %lld overflows", rd->path,
                    (long long)g->ranks[k], (long long)first_rank);
            return -1;
        }
    }
    const int64_t *stored = fa_store_ranks(in->store, scratch, g->nranks);
    if (!stored) {
        fr_fail(err, "out of memory while transforming the default groups");
        return -1;
    }
    g->ranks = stored;
    return 0;
}

int fa_transform_ft(fa_input *in, int64_t group_world_size, fr_error *err) {
    int64_t *scratch = NULL;
    size_t cap = 0;
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < in->nranks; i++) {
        const fa_rank_dump *rd = &in->ranks[i];
        int64_t first_rank = rd->rank / group_world_size * group_world_size;
        for (uint32_t k = 0; rc == 0 && k < rd->dump->ngroups; k++) {
            fr_group_config *g = &rd->dump->groups[k];
            if (!g->desc || strcmp(g->desc, "default_pg") != 0 || g->nranks == 0 || first_rank == 0)
                continue;
            if (fa_grow((void **)&scratch, &cap, g->nranks, sizeof *scratch) != 0) {
                fr_fail(err, "out of memory while transforming the default groups");
                rc = -1;
                break;
            }
            rc = transform_group(in, rd, g, first_rank, scratch, err);
        }
    }
    free(scratch);
    return rc;
}
