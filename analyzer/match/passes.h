/* passes.h — whether each op passes: the matcher's last word on it, that reports only present.
 *
 * An op passes when every member expected in it (fa_op_expected: the group's known members, or
 * sender and receiver) issued it — its state for that member is neither "never issued" nor "no
 * dump" — and no check names it (no type/size/dtype/all_to_all mismatch, not an unmatched send
 * or recv). An op in flight everywhere passes: nothing is wrong with it yet. An op that does not
 * pass only because members wrote no dump, while every member with a dump completed it, is
 * `unverified`: nothing waits in it, and what the lost members did is unknown. The database lists
 * the ops that do not pass and are not unverified (report_db.c) and counts the rest, so that one
 * lost dump does not list every op of its groups.
 *
 * Set once the views and the checks are final (fa_analyze, right after fa_match_build), for every
 * op in parallel: linear in the calls, a collective whose calls are exactly its members' (the
 * common case) in O(calls) without looking at any view.
 */
#ifndef FRTRACE_PASSES_H
#define FRTRACE_PASSES_H

#include "match/groups.h"
#include "match/match.h"

/* Sets m->ops[i].passes for every op, on `jobs` workers (<= 0: one per core). */
void fa_match_mark_passes(const fa_groups *groups, fa_match *m, int jobs);

#endif
