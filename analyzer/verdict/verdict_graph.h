/* verdict_graph.h — the state the verdict's judging (verdict.c) and explaining
 * (verdict_explain.c) share: the decider, its wait graph, what is known of each rank, and the
 * small questions both ask of them. Internal to verdict*.c; nothing else includes it.
 *
 * Nodes 0..nranks-1 are ranks (loaded ranks and group members without a dump, ascending);
 * after them one node per op that some member has pending (op_of_node). Edges are built once
 * into a CSR array (edge_at, edges) from the from/to lists; a rank node with an edge out has
 * something pending (fa_vg_node_pending). A rank's node is found through an array when ranks
 * are dense (every real job), else through a map (fa_vg_rank_node).
 *
 * What recorder dumps say of their own rank (a crash, an async error per communicator, a stuck
 * NCCL call) is read once into rank_facts and the async_error map before the graph is built;
 * `fa_vg_broken` is the one test every later step asks.
 *
 * A member's state in an op comes from a walk beside the op's calls (sorted by member), not a
 * search per member (fa_vg_states_into); fa_vg_expected_states fills the decider's scratch
 * arrays `members` and `states`, which the caller reads before asking again.
 */
#ifndef FRTRACE_VERDICT_GRAPH_H
#define FRTRACE_VERDICT_GRAPH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/index.h"
#include "verdict/verdict.h"

/* What is known of one rank: node r is facts[r]. */
typedef struct rank_facts {
    int64_t rank;
    bool has_dump;
    const char *unreadable; /* its file was rejected: what it is ("a FIFO"), or "" */
    bool waited;            /* some pending op waits for it to issue something */
    long missing_op;        /* the op most ranks wait for it in */
    size_t missing_waiters;
    long queued_op; /* the op most ranks wait for it in that it has queued behind its own send/recv
                     * to the wrong peer (verdict_waits.c's add_pending_edges), -1 */
    size_t queued_waiters;
    bool lag;           /* has an op pending that a peer completed */
    bool maybe_stalled; /* lag's looser reading (find_lag): any op pending that a peer completed,
                         * whatever else is known of it; its GPU may have stalled there */
    long lag_op;
    int64_t lag_record;
    bool culprit;
    bool crashed;      /* its dump was written from a fatal signal's handler */
    int signal;        /* that signal's number, 0 unknown */
    bool stuck_in_api; /* it dumped because a thread was stuck inside an NCCL call */
    bool timed_out;    /* its dump says its watchdog timed out: its oldest pending op ran past
                        * the timeout (recorder trigger "timeout") */
    long broken_op;    /* the op most ranks wait on it in, in a group where it is broken; -1 */
    size_t broken_waiters;
    bool maybe_in_p2p;   /* idle, but may be blocked in a send/recv its backend did not record */
    bool idle;           /* nothing pending, from a backend that records no send/recv */
    bool excused;        /* waited on, but its own history shows it blocked before that op */
    bool behind_excused; /* pending in an op that waited only on a rank of unknown state that the
                          * doubts excused (fa_vw_join_excused_unknowns): its victim */
    bool stale;          /* its dump is older than its peers', or cut short (fa_stale) */
    bool cut;            /* ... cut short: a truncated dump kept for its whole entries */
    bool older;          /* ... older: a peer completed what it had not issued (fa_stale.group) */
    bool may_drop_done;  /* its dump neither begins at record 0 nor shows a completed entry (an
                          * only-active dump): what it completed may be gone from it */
    int64_t open_head;   /* a stale dump's oldest call not completed (its record id), whatever
                          * its state now: INT64_MAX none (or not stale) */
    bool failed;         /* gloo: its newest op ended while a member never joined it or still has it
                          * pending: it failed, its peer gone (it waits on the members without a
                          * dump, possibly) */
    long failed_op;
    bool died;          /* gloo ended an op in view as failed (on every member pending there)
                         * while it, a member, left no dump file (fa_vg_ended_failed): it died
                         * there, its dump is not merely lost */
    bool blamable;      /* has an op pending in a group where an idle peer may be blocked in a
                         * send/recv that it skipped (verdict_possible.c) */
    uint32_t blamed_by; /* that peer's node */
    long p2p_group;     /* a group where it may be blocked in (or have skipped) a send/recv, -1 */
    uint8_t doubt;      /* fa_doubt: what verdict_possible.c made of a rank that may be a root */
} rank_facts;

/* Whether the rank's state at the end is known: it left a dump as new as its peers' (not older,
 * not cut short). */
static inline bool fa_vg_state_known(const rank_facts *f) { return f->has_dump && !f->stale; }

/* A rank that waits on nobody the dumps show, but might: what the possible waits make of it. */
typedef enum fa_doubt {
    FA_DOUBT_NONE,      /* proven, or nothing possible: judged from proof */
    FA_DOUBT_EXCUSED,   /* it may be blocked on ranks that explain it: not a root cause */
    FA_DOUBT_AMBIGUOUS, /* one of an ambiguity's options (decider.ambiguities) */
} fa_doubt;

/* The wait graph: an edge a -> b says a waits on b. The edges the dumps prove come first
 * (edge_at, edges); the possible ones, which the dumps cannot rule out (verdict_possible.c), are
 * kept apart (pedge_at, pedges), so that "has something pending" stays a proven fact while the
 * components see both. */
typedef struct graph {
    size_t nnodes, nrank_nodes;
    size_t *edge_at; /* CSR */
    uint32_t *edges;
    uint32_t *from, *to;
    size_t nedges, cap;
    long *op_of_node; /* node -> op for op nodes */
    size_t *pedge_at; /* possible edges, CSR over every node (NULL: none) */
    uint32_t *pedges;
    uint32_t *pfrom, *pto;
    size_t npedges, pcap;
} graph;

/* Why an option of an ambiguity would be the root cause: its explanation's words
 * (verdict_graph.c). */
extern const char FA_WHY_STOPPED[], FA_WHY_NO_DUMP[], FA_WHY_STALE[], FA_WHY_SKIPPED_P2P[],
    FA_WHY_ORDER[], FA_WHY_PAIR_ORDER[], FA_WHY_STALLED_AFTER[], FA_WHY_RAN_PAST[];

/* One way the dumps allow: the ranks that are root causes if it is the truth. */
typedef struct fa_option {
    uint32_t node;
    const char *why; /* FA_WHY_* */
} fa_option;

/* A sink of the graph whose root cause the dumps cannot pin down: one of its options. */
typedef struct ambiguity {
    fa_option *options;
    size_t n;
} ambiguity;

/* What ran in a group, as verdict_waits.c's lonely_in_pair reads it: counted once per verdict
 * (fa_vw_build_graph), the family test asked once per group that needs it. */
typedef struct group_runs {
    uint32_t collectives;   /* collective ops of the group */
    bool p2p;               /* a send/recv op ran there */
    int8_t family_p2p_only; /* lonely_in_pair's family test: 0 not asked yet, 1 holds, -1 not */
} group_runs;

/* The families of the groups (fa_vo_families, verdict_order.c). */
#define FA_NO_FAMILY UINT32_MAX
typedef struct fa_families {
    uint32_t *of;    /* per group: its family, FA_NO_FAMILY where no other group can be of it */
    bool *partition; /* per family: every two of its groups are one family (fa_vo_one_family);
                      * false where two share their members (then ask fa_vo_one_family) */
    uint32_t n;
} fa_families;

/* What ran in a family of groups (fa_vo_families), for lonely_in_pair: its groups that ran
 * send/recv, and of those the ones that ran a collective too. */
typedef struct family_runs {
    uint32_t p2p, busy;
} family_runs;

/* Everything the verdict works with while deciding; fa_verdict_decide owns and frees it. */
typedef struct decider {
    const fa_input *in;
    const fa_groups *groups;
    const fa_match *m;
    fa_findings *findings;
    fa_verdict *v;
    rank_facts *facts;
    size_t nfacts;
    bool any_stale;    /* some rank_facts.stale */
    bool slot_guessed; /* an op waits on several ranks without a dump, any of which may be the
                        * member its group lacks (build_graph's wait_for_unseen_members) */
    fa_imap node_of_rank;
    fa_imap async_error; /* node * ngroups + group -> ncclResult name (char *, in the store) */
    graph g;
    uint32_t *members; /* scratch: expected members of an op (widest entries) */
    size_t widest;
    fa_member_state *states; /* scratch: their states (fa_vg_expected_states) */
    uint32_t *comp;          /* node -> component */
    size_t ncomps;
    size_t inflight;  /* ops with a call not completed (build_graph counts them for the summary) */
    long unplaced_op; /* an op of a rebuilt group that every member seen has pending, none
                       * completed, and no rank without a dump could join: its other members
                       * recorded nothing in the group (build_graph; -1: none) */
    uint32_t *dense;  /* rank -> node + 1 (0: none) when ranks are dense; else node_of_rank */
    size_t ndense;
    uint32_t *unseen; /* the nodes of ranks without a (readable) dump */
    size_t nunseen;
    ambiguity *ambiguities; /* verdict_possible.c */
    size_t nambiguities;
    fa_ranks maybe_also;      /* waited ranks of unknown state the culprits explain: they may have
                               * stopped too, which the dumps cannot rule out (an alternative) */
    group_runs *runs;         /* per group (fa_vw_build_graph); NULL before, or out of memory */
    fa_families families;     /* the groups' families (with runs); .of NULL if not found */
    family_runs *family_runs; /* per family (with runs); NULL before, or out of memory */
    uint8_t *joined_ops;      /* per op node: its waits on an excused rank of unknown state
                               * were dropped (fa_vw_join_excused_unknowns): that rank may have
                               * joined the op, or not; NULL: none */
    const struct fa_either_plan *plan; /* what the readings agree on (verdict_either.c), NULL */
} decider;

/* The node of a rank, or -1. */
static inline long fa_vg_rank_node(const decider *d, int64_t rank) {
    if (d->dense) return rank >= 0 && (size_t)rank < d->ndense ? (long)d->dense[rank] - 1 : -1;
    uint64_t at;
    return fa_imap_get(&d->node_of_rank, (uint64_t)rank, &at) ? (long)at : -1;
}

/* Whether the node waits on something (a rank: has an op pending). */
static inline bool fa_vg_node_pending(const decider *d, size_t node) {
    return d->g.edge_at[node + 1] > d->g.edge_at[node];
}

/* Member-state tests, for members_in_state and the evidence. */
static inline bool fa_vg_is_completed(fa_member_state s) { return s == FA_MS_COMPLETED; }
static inline bool fa_vg_is_started(fa_member_state s) { return s == FA_MS_STARTED; }
/* Whether member k of op (d->members/d->states just filled by fa_vg_expected_states) is known
 * never to have started it on its GPU: scheduled by its own entry, or in flight by a cut dump's
 * counters alone whose last started number (kept where timing was on) is below the op's (sim
 * seed 747: rank 0's GPU stalled before _allgather_base #15, "started 14"). Counters without a
 * started number say nothing of it (sim seed 7087: a healthy job, rank 0's dump cut before the
 * all_reduce #13 that rank 1 started, "started 13"). */
bool fa_vg_never_started(const decider *d, size_t op, uint32_t k);

/* The node's possible edges (none when the graph has no possible edges). */
static inline size_t fa_vg_possible_begin(const graph *g, size_t node) {
    return g->pedge_at ? g->pedge_at[node] : 0;
}
static inline size_t fa_vg_possible_end(const graph *g, size_t node) {
    return g->pedge_at ? g->pedge_at[node + 1] : 0;
}

/* The ncclResult name of the async error the rank's communicator for `group` reported, or NULL. */
const char *fa_vg_async_error(const decider *d, size_t node, uint32_t group);
/* A member that takes no further part in the group's ops: its process crashed, or its
 * communicator for the group reported an async error. */
bool fa_vg_broken(const decider *d, size_t node, uint32_t group);
/* The record_id of the member's entry for op (for choosing its oldest pending op). */
int64_t fa_vg_call_record(const decider *d, size_t op, uint32_t member);
/* The same for the member with global `rank` (INT64_MAX - 1 when it is none, or has no call). */
int64_t fa_vg_rank_record(const decider *d, size_t op, int64_t rank);
/* Records an ambiguity in decider.ambiguities (takes a copy of the options). 0, or -1 when out
 * of memory. */
int fa_vg_note_ambiguity(decider *d, const fa_option *options, size_t n);

/* Whether the group has a member slot whose rank no dump told (recorder groups rebuilt from the
 * dumps' communicators, groups.c: a member whose dump is missing or cut before its comms). */
bool fa_vg_unknown_slot(const fa_group *grp);
/* op's expected members (fa_op_expected) into members, the state of each into states; the count. */
uint32_t fa_vg_states_into(const decider *d, size_t op, uint32_t *members, fa_member_state *states);
/* Whether the dumps show that op ran to its end for every member (no member failed or died in
 * it): a member's call surely completed, a collective or a call of a backend that blocks. */
bool fa_vg_op_ran(const decider *d, size_t op);
/* Whether the rank wrote a file, unreadable or not: it lived to dump, so no op failed because it
 * died (gloo fails an op whose peer died, and retires it). */
bool fa_vg_left_a_file(const decider *d, int64_t rank);
/* Whether op (its states just filled) is one gloo ended as failed: a member that completed it is
 * read as pending (a peer died in it). Its waiters wait for the members without a dump only,
 * unless *still_open: a member has it pending, not ended. */
bool fa_vg_ended_failed(const decider *d, size_t op, const uint32_t *members,
                        const fa_member_state *states, uint32_t n, bool *still_open);
/* fa_vg_states_into d->members and d->states. */
uint32_t fa_vg_expected_states(const decider *d, size_t op);
/* Whether op is a send/recv that only one side posted (both ends known); *sent: the sender did. */
bool fa_vg_lone_p2p(const decider *d, size_t op, bool *sent);
/* op's group ("TENSOR_MODEL_PARALLEL_GROUP (37)") and op ("all_reduce #3") for a detail. */
void fa_vg_context(const decider *d, size_t op, char *group, size_t glen, char *label, size_t llen);

#endif
