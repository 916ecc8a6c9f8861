/* groups.h — process groups and memberships, merged and validated across every rank's dump.
 *
 * A group is identified by its name (pg_config key) together with its member list: PyTorch
 * reuses names across split groups (sub_pg "1" = [0] on rank 0 and [1] on rank 1 are two
 * groups). The group id shown to users is the name when that name is unique, otherwise
 * "name@k", k counting the same-named groups in order of their lowest member ("1@0", "1@1").
 *
 * Members come from pg_config's `ranks` (global ranks in group-rank order). The recorder's dumps
 * may carry "[]" there; then membership is rebuilt from every dump's frtrace.comms entries
 * (global rank of the file, comm_rank, comm_size) per pg_name.
 *
 * Groups that entries name but no pg_config describes (PyTorch 2.15's gloo writes a single key
 * "" with group-local ranks) are rebuilt from evidence: their members are the ranks whose dumps
 * record entries in them, and the default group ("default_pg") holds every rank of the job. Each
 * such rebuild is said in `inferred` (a membership_inferred warning); no entry is ever dropped
 * because pg_config lacks its group.
 *
 * Disagreements between ranks (the same name and members with another desc) become notes;
 * members without a dump are listed in `without_dump` and are never fatal.
 */
#ifndef FRTRACE_GROUPS_H
#define FRTRACE_GROUPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "index.h"
#include "load.h"
#include "ranks.h"

typedef struct fa_group {
    char *id;
    const char *name;
    const char *desc;
    uint32_t nmembers;
    int64_t *members;   /* global ranks in group-rank order; -1 where unknown (recorder dumps) */
    long *member_input; /* index into fa_input.ranks per member, -1 = no dump */
    fa_imap member_pos; /* global rank -> position in members */
    bool inferred;      /* members rebuilt from the entries: a rank without a dump may belong too */
    bool contiguous; /* members are members[0], +1, +2, ...: positions computed, member_pos empty */
} fa_group;

typedef struct fa_groups {
    fa_group *v;
    size_t n;
    fa_smap *by_rank; /* per input rank: pg_name -> group index */
    size_t nby_rank;
    fa_ranks without_dump; /* members of some group with no dump, ascending */
    fa_ranks outsiders; /* ranks with entries in a group whose members leave them out, ascending */
    char **notes;
    size_t nnotes;
    char **inferred; /* membership_inferred: groups rebuilt from the entries, and from what */
    size_t ninferred;
    char **outsider_notes; /* per group with outsiders: who, and the torchft hint */
    size_t noutsider_notes;
} fa_groups;

int fa_groups_build(const fa_input *in, fa_groups *groups, fr_error *err);
void fa_groups_free(fa_groups *groups);

/* The group an entry of input rank `rank_index` with `pg_name` belongs to, or -1. */
long fa_groups_find(const fa_groups *groups, size_t rank_index, const char *pg_name);
/* Position of `global_rank` in the group (its group rank), or -1. */
long fa_group_position(const fa_group *group, int64_t global_rank);

/* "TENSOR_MODEL_PARALLEL_GROUP (37)", or "group 37" when the group has no description. */
void fa_group_label(const fa_group *group, char *buf, size_t len);
/* Whether a group description says nothing: empty, or "undefined", which PyTorch writes for a
 * group created without one. Such a group is called by its id ("group 5") everywhere. */
static inline bool fa_desc_says_nothing(const char *desc) {
    return !desc || !desc[0] || strcmp(desc, "undefined") == 0;
}

#endif
