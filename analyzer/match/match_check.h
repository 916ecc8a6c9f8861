/* match_check.h — what the agreement checks share. match_check.c drives them: it screens every
 * op on all cores and runs check_op on the ones that are not clean, in op order, then the pass
 * over collectives paired by their order (match_order.c). Both compare one property of each
 * call as a hash and name the calls outside the majority (match_majority.c, which also words
 * the finding); calls a wrapped ring cut short agree with the whole ones (match_unknown.c); a
 * call inconsistent in itself and all_to_all totals that differ are found apart
 * (match_intrinsic.c). Internal to match_check.c and those four files; nothing else includes it.
 */
#ifndef FRTRACE_MATCH_CHECK_H
#define FRTRACE_MATCH_CHECK_H

#include "match/match_build.h"

/* One checking thread's state: what it reads, where findings go, and the scratch for the op
 * being checked (sized for the widest op). */
typedef struct checker {
    const fa_input *in;
    const fa_groups *groups;
    fa_match *m;
    fa_findings *findings;
    int cap;
    size_t *listed_per_group;
    uint64_t *sig; /* per call of the op being checked */
    bool *odd;     /* per call: named by this check */
    uint8_t *kind; /* per call: its own problem, 0 none, 1 sizes, 2 dtypes
                    * (fa_mc_check_intrinsic_calls) */
} checker;

/* The properties the members of an op must agree on, compared in this order. */
enum { SIG_TYPE, SIG_SIZE, SIG_DTYPE };

/* match_majority.c: a call's property `what` (SIG_*) as a hash; the calls outside the majority
 * of k->sig marked in k->odd (returns the majority's representative call, -1 when there is no
 * majority or all agree); the finding that names them, and its sentence. */
uint64_t fa_mc_call_signature(const checker *k, const fa_call *c, int what);
long fa_mc_mark_minority(checker *k, uint32_t ncalls);
fa_finding *fa_mc_add_mismatch(checker *k, size_t op_index, fa_finding_kind kind);
const char *fa_mc_call_types(const checker *k, const fa_call *c, char *buf, size_t len);
void fa_mc_dtypes_pair(const fr_entry *e, char *buf, size_t len);
void fa_mc_describe_pair(const checker *k, const fa_op *op, long odd_call, long rep_call,
                         fa_finding *f, int what);

/* match_unknown.c: the calls of op whose type and sizes a wrapped ring left unknown take the
 * first whole call's k->sig. */
void fa_mc_unknown_agrees(checker *k, const fa_op *op);

/* match_intrinsic.c: one call's own problem (FA_SIZE_MISMATCH, FA_DTYPE_MISMATCH, or
 * FA_MISSING_RANKS for none, `why` its reason); every call of an op checked and reported; an
 * all_to_all whose totals differ, found and reported. */
fa_finding_kind fa_mc_intrinsic_problem(const checker *k, const fa_call *c, int64_t group_size,
                                        char *why, size_t len);
void fa_mc_check_intrinsic_calls(checker *k, size_t op_index);
bool fa_mc_all_to_all_totals_differ(const checker *k, const fa_op *op, int64_t *in_total,
                                    int64_t *out_total);
void fa_mc_check_all_to_all_totals(checker *k, size_t op_index);

/* match_order.c: the pass over collectives paired by their order, in every group where a launch
 * number went to something else. -1 when out of memory. */
int fa_mc_check_launch_order(checker *k);

#endif
