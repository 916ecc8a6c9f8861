#!/bin/sh
# The seeds of tests/sim/regressions.txt, each a simulated job that once came out wrong: a user
# who runs frtrace on any of them that it now gets right keeps getting it right. Fast (about 30
# jobs, seconds), so that the mutation run (tests/mutation/mutants.txt) can use it for the
# verdict, match and perf stages. The seeds still wrong are listed here, each with why; when one
# comes out right, take it off the list.
. "$(dirname "$0")/lib.sh"
SIM="$TOP/tests/sim"
# Still wrong (issue 18): 279 an older dump that only counters show.
STILL_WRONG="279"
# Seeds that must stay exact, not merely not wrong: their answer once was honest but vaguer
# ("inconclusive") than the dumps allow. 739, 1013: ranks pending in a collective every member
# joined, behind a member blocked on the killed rank, wait for it too; they are no stopped rank.
# 1299, 2169: members without a readable dump that others wait for are all named (E1). 99, 18:
# an older dump waited for beside the culprit is offered as an alternative (E8).
# 2176, 277: a member absent only from ops queued behind its peers' surer waits is no culprit (W1).
# 2998: two GPUs stalled in one op are two roots. 752, 670: a gloo op that peers went on past did
# not fail; one in a group rebuilt from the dumps may have failed on the dead. 9349: idle ranks past
# the killed rank's point in its group's family cannot hold it up: a hang naming it. 1815: a batch
# its peers completed, pending behind an older launch in an only-active dump with gaps in its record
# ids, does not make that dump older (the dump may have dropped what completed).
# 2470, 2944, 7641: a lost dump and an older or cut one beside it in a group nobody waits in, each
# possibly blocked behind the other: one of them (E16), neither both named nor inconclusive.
# 1069, 2711, 1113: a dump older only by what it shows issued, read final, names its rank beside
# the culprit: it is offered beside them (E8, verdict_either.c), not left out.
# 2440, 1608, 1022: the rank that posted to the wrong peer stays named where a dump read final
# stops beside it (a cycle through the wrong peer, a stopped peer in its batch); the other is
# offered. 15089: a cut pickle's pg_status shows its rank completed what its peer is pending in.
# 12146, 16556: fresh ranks waiting for one another in collectives each never issued hold
# themselves, whatever else they wait for (verdict_sinks.c absence_cycle). 12994, 9801, 14651: a
# head its peers' counters show done while they still have the group's work pending reads older
# too, where that moves the blame off such heads (verdict_either.c; real gpu_error runs stay
# stalls). 16614: a pair member's counters above every collective its peer issued there are
# send/recv numbers (match.c p2p_counters_above_peer). 12320: a rank without a collective in a
# group of any size counts its own send/recv there (counts_own_p2p): no older dump. 16972: a batch
# ending an only-active dump without the marker its job records ran (match.c unmarked_bundle).
# 16774: the absent halves of a batch whose ranks went past it in step with its peer completed
# (match_aligned.c). 18328, 7432: send/recv numbers of pipeline stages that do not overlap do not
# compare (match_p2p.c ids_comparable); 6917, 9966: those of a ring of batches do. 15296: a
# coalesced group is one measurement of lateness (perf/lateness.c). 15624: counters below the
# collectives a stream ran number a send/recv (match_p2p.c counted_done). 3941: a completed recv
# pairs with the pending send of its shapes in a window with gaps (done_on_wire). 13804: idle
# members beside a lonely op are roots (verdict_sinks.c judge_alone). 16129: a pair member's
# counters complete a transfer its only-active window dropped inside its span (fa_p2p_dropped).
# 1978: a pair's first pending send and recv meet on the wire, of other shapes a size mismatch
# (match_p2p.c mismatched_on_wire); 13523: so too in a ring of batches, a recv from the wrong
# peer; 8408: not where the lower number may be a transfer an only-active dump dropped done.
# 12007, 16063, 4942: the sibling stages tell which stage of a pair left a send/recv out
# (verdict_order.c p2p_family_vote, p2p_passed_vote). 17689: an end queued behind its poster's own
# recv makes no wrong receiver of a peer whose sender posted to the wrong peer (verdict_wrong_peer.c
# queued_end). 12978: a send of other shapes than the recv that waits on its poster is no send to
# the wrong peer (same_tensor). 18907: a completed batch completes the collectives before it
# (match_walk.c note_batch_done); pipeline stages whose completed pair carries two ids pair their
# pending transfers (match_p2p.c drop_unpairable). 5544, 17394: clocks seconds apart in groups of
# two leave healthy ranks late by a little in half their collectives: no straggler (perf.c
# consistently_late). 17102, 18253: a batch whose absent halves its peers' counters complete ran on
# the wire: its poster's GPU stalled (verdict_heads.c absent_counted_done). 22378 (held out): a
# transfer started at both sides holds no batch while an idle rank did its ends unseen
# (verdict_heads.c transfers_ready). 975, 2490: a cut dump in flight by its counters, waited for
# nowhere, is no stopped rank (verdict_possible.c root_why); 3482: waited for where it issued
# nothing, it stays one. 7087: a collective in flight by a cut dump's counters alone was not
# "never started on the GPU" (verdict_graph.h fa_vg_is_scheduled). 7603: a cut rank its peer
# completed a later collective with went past the lost rank's op (issued_or_joined_in). 2397,
# 4617: a rank others wait for, pending behind a killed rank's victims, is its victim too: the
# killed rank is named (verdict_summary.c seen_waiting), unless several lost ranks may fill the
# slot it waits on (13594, 15622: never two of them named for one slot). 2162: a killed rank
# waited for in a collective that runs before the one it shares with a cut rank is named alone
# (verdict_possible.c drop_unblocking; 11328: never "ok" once the cut rank is dropped). 316: a cut
# dump showing nothing pending says nothing of the end; 9851: one with no whole entry keeps the
# doubt (verdict_summary.c says_nothing_of_the_end). 6752: nor is such a pair "one of them" through
# a group they share where nobody waits (verdict_hidden.c); 5788: the simulator's E16 reads a
# gloo rank whose newest collective failed as waiting there (answer.py can_block).
KEEP_EXACT="739 1013 1299 2169 99 18 2176 277 2998 752 670 9349 1815 2470 2944 7641 1069 2711 1113
2440 1608 1022 15089 12146 16556 12994 9801 14651 16614 12320 16972 16774 18328 7432 6917 9966
15296 15624 3941 13804 16129 1978 8408 12007 16063 4942 13523 17689 12978 18907 5544
17394 17102 18253 22378 975 2490 3482 7087 7603 2397 4617 2162 316 6752 5788"
# SEED:RANK pairs: ranks the dumps clear, never named nor offered as an alternative, whatever
# else the verdict says. 2930: rank 15's dump, cut, records other groups than the one whose slot
# of unknown rank waits; it is no candidate for that slot (m506).
CLEARED="2930:15"

# score TABLE: the regression seeds' table; fails on a crash or a simulator error, not on wrong
# answers (accuracy.py's exit status 1), which the test judges
score() {
    python3 "$SIM/accuracy.py" --seeds 0:0 --seed-file "$SIM/regressions.txt" -j 2 \
        --frtrace "$FRTRACE" --json "$TRASH/rows.json" >"$1"
    [ $? -le 1 ] && cat "$1" && grep -q "^total " "$1" && ! grep -q "^sim_error" "$1"
}

test_expect_success 'every regression seed frtrace once got right stays right; KEEP_EXACT stay exact' '
    score table &&
    sed -n "s/^wrong [a-z_]* seed \([0-9]*\) .*/\1/p" table | sort >wrong &&
    echo $STILL_WRONG | tr " " "\n" | sort >allowed &&
    comm -23 wrong allowed >regressed &&
    cat regressed && test ! -s regressed &&
    sed -n "s/^[a-z]* [a-z_]* seed \([0-9]*\) .*/\1/p" table | sort >vague &&
    echo $KEEP_EXACT | tr " " "\n" | sort >keep &&
    comm -12 vague keep >lost &&
    cat lost && test ! -s lost
'

test_expect_success 'a rank the dumps clear is neither named nor offered (CLEARED)' '
    test -s "$TRASH/rows.json" &&
    python3 -c "
import json, sys
rows = {r[\"seed\"]: r for r in json.load(open(sys.argv[1]))}
bad = 0
for pair in sys.argv[2:]:
    seed, rank = map(int, pair.split(\":\"))
    got = rows[seed][\"got\"] or {}
    offered = set(got.get(\"culprit_ranks\", []))
    for alt in got.get(\"alternatives\", []):
        offered |= set(alt[\"ranks\"])
    if rank in offered:
        print(\"seed %d: rank %d offered: %s\" % (seed, rank, got.get(\"summary\")))
        bad += 1
sys.exit(bad > 0)
" "$TRASH/rows.json" $CLEARED
'

test_expect_success 'every explanation the verdicts leave open names what it says (no empty label)' '
    python3 -c "
import json, sys
bad = 0
for r in json.load(open(sys.argv[1])):
    for alt in (r[\"got\"] or {}).get(\"alternatives\", []):
        words = alt.get(\"explanation\", \"\")
        if not words or \"  \" in words or \" ,\" in words:
            print(\"seed %d: %r\" % (r[\"seed\"], words))
            bad += 1
sys.exit(bad > 0)
" "$TRASH/rows.json"
'

test_done
