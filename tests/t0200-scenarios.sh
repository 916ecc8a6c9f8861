#!/bin/sh
# The stories frtrace must tell right: each scenario is a small job written as PyTorch-layout
# pickles by our own writer (tests/scenarios/gen.py -> build/tests/mkdump), then analyzed.
. "$(dirname "$0")/lib.sh"
SC="$TOP/tests/scenarios"

# analyze SCENARIO [OPTION...]: writes the dumps and the database db.json (frtrace -f json
# OPTION...) in the current directory.
analyze() {
    sh "$SC/run_scenario.sh" "$1" dumps && shift &&
    { "$FRTRACE" -f json "$@" dumps >db.json; status=$?; [ $status -le 1 ]; }
}
check() { python3 "$SC/check.py" db.json "$@"; }

test_expect_success 'a healthy run is ok and exits 0' '
    analyze healthy && check ok - && "$FRTRACE" dumps >/dev/null
'
test_expect_success 'a snapshot with the same collective in flight everywhere is ok' '
    analyze in_flight && check ok -
'
test_expect_success 'a rank whose CPU never issued all_reduce #4 is the culprit' '
    analyze missing_rank && check hang 2 missing_ranks:2 &&
    test_expect_code 1 "$FRTRACE" dumps >out && head -1 out | grep "rank 2 never joined default_pg (0) all_reduce #4"
'
test_expect_success 'a different collective type on one rank is a mismatch naming it' '
    analyze type_mismatch && check mismatch 3 type_mismatch:3
'
test_expect_success 'different input sizes on one rank: the minority is named' '
    analyze size_mismatch && check mismatch 1 size_mismatch:1
'
test_expect_success 'a different dtype on one rank is a dtype mismatch' '
    analyze dtype_mismatch && check mismatch 2 dtype_mismatch:2
'
test_expect_success 'all_to_all totals that do not add up are an alltoall_size_mismatch' '
    analyze alltoall_total && check mismatch 0,1,2,3 alltoall_size_mismatch
'
test_expect_success 'all_to_all with uneven splits that add up is fine' '
    analyze alltoall_uneven && check ok -
'
test_expect_success 'a GPU that stopped completing work is seen through states (lag)' '
    analyze gpu_stall && check hang 1 state_mismatch:1
'
test_expect_success 'the rank whose GPU never started what the others started is named' '
    analyze never_started && check hang 2 state_mismatch:2
'
test_expect_success 'every member started, nothing completes, more queued: stuck, no culprit' '
    analyze stuck && check hang - stuck_collective
'
test_expect_success 'a member without a dump that everyone waits for is the culprit' '
    analyze missing_dump && check hang 3 missing_dump:3 &&
    python3 -c "import json;d=json.load(open(\"db.json\"));assert d[\"input\"][\"ranks_without_dump\"]==[3]"
'
test_expect_success 'wait chains across groups: the culprit is the end of the chain, not the first waiter' '
    analyze wait_chain && check hang 3 missing_ranks:3 lagging_ranks:2
'
test_expect_success 'split groups sharing a name get distinct ids and are judged apart' '
    analyze split_groups && check hang 3 missing_ranks:3 &&
    python3 -c "import json;d=json.load(open(\"db.json\"));assert sorted(g[\"id\"] for g in d[\"groups\"])==[\"0\",\"1@0\",\"1@1\"]"
'
test_expect_success 'torchft replicas: --transform-ft makes each default_pg global and names the culprit; without it, inconclusive and a hint, never ok' '
    sh "$SC/run_scenario.sh" torchft dumps &&
    test_expect_code 1 "$FRTRACE" -f json --transform-ft --group-world-size 2 dumps >db.json &&
    check hang 3 missing_ranks:3 &&
    python3 -c "import json;d=json.load(open(\"db.json\"));assert sorted(g[\"id\"] for g in d[\"groups\"])==[\"0@0\",\"0@1\"]" &&
    test_expect_code 2 "$FRTRACE" --transform-ft dumps 2>err && grep "needs --group-world-size" err &&
    test_expect_code 1 "$FRTRACE" dumps >plain.txt &&
    head -1 plain.txt | grep "^inconclusive: ranks 2,3 recorded collectives in groups whose member lists leave them out" &&
    grep -e "--transform-ft --group-world-size N" plain.txt
'
test_expect_success 'p2p pipeline: symmetric batch_isend_irecv matches, completed by its marker; an unmatched send names the peer' '
    analyze pipeline --all-collectives && check hang 3 missing_ranks:3 p2p_unmatched:3 &&
    python3 -c "
import json; d = json.load(open(\"db.json\"))
pp = [c for c in d[\"collectives\"] if c[\"group_id\"] == \"5\"]
assert not [c for c in pp if c[\"mismatch\"]], pp
got = [(c[\"profiling_name\"], c[\"state\"]) for c in pp]
assert got == [(\"nccl:send 0->1\", \"completed\"), (\"nccl:send 1->2\", \"completed\"), (\"nccl:recv 1<-2\", \"completed\"),
               (\"nccl:send 2->3\", \"scheduled\")], got"
'
test_expect_success 'ring-buffer windows starting at different record_ids align by seq' '
    analyze ring_wrap && check hang 3 missing_ranks:3 &&
    python3 -c "import json;d=json.load(open(\"db.json\"));assert [f for f in d[\"findings\"] if f[\"kind\"]==\"missing_ranks\"][0][\"collective_seq_id\"]==8"
'
test_expect_success 'values kept beside the compact entries (record gaps, seq ids 2^16 and 2^40 apart, hours) read back exactly' '
    analyze wide_values --all-collectives && check ok - &&
    python3 -c "
import json; d = json.load(open(\"db.json\"))
got = [(c[\"collective_seq_id\"], c[\"record_id\"]) for c in d[\"collectives\"]]
want = [(5, 0), (6, 8), (70006, 23), (70007, 45), (1 << 40, 74), ((1 << 40) + 1, 110)]
assert got == want, got" &&
    "$FRTRACE" timeline -o trace.json dumps &&
    python3 -c "
import json; e = [x for x in json.load(open(\"trace.json\"))[\"traceEvents\"] if x[\"ph\"] == \"X\" and x[\"pid\"] == 3]
assert [round(x[\"ts\"], 3) for x in e] == [k * 3e9 + 3.0 for k in range(6)], [x[\"ts\"] for x in e]" &&
    analyze record_gaps --all-collectives && check ok - &&
    python3 -c "
import json; d = json.load(open(\"db.json\"))
got = [(c[\"collective_seq_id\"], c[\"record_id\"]) for c in d[\"collectives\"]]
assert got == [(5, 0), (6, 8), (7, 23), (8, 45), (9, 74), (10, 110)], got"
'
test_expect_success 'mixed versions 2.4 + 2.9 + 2.10 in one directory: a warning, still ok' '
    analyze mixed_versions && check ok - version_mismatch &&
    python3 -c "import json;d=json.load(open(\"db.json\"));assert d[\"input\"][\"versions\"]==[\"2.10\",\"2.4\",\"2.9\"]"
'
test_expect_success 'a truncated dump is salvaged: its whole entries are used and a warning says so' '
    sh "$SC/run_scenario.sh" missing_rank dumps &&
    size=$(wc -c <dumps/nccl_trace_rank_1) && head -c $((size / 2)) dumps/nccl_trace_rank_1 >t && mv t dumps/nccl_trace_rank_1 &&
    test_expect_code 1 "$FRTRACE" -f json dumps >db.json 2>err &&
    grep "nccl_trace_rank_1: truncated" err &&
    python3 -c "
import json; d = json.load(open(\"db.json\"))
assert d[\"verdict\"][\"culprit_ranks\"] == [2], d[\"verdict\"]
assert 1 in d[\"input\"][\"ranks_loaded\"] and not d[\"input\"][\"files_rejected\"], d[\"input\"]
w = [f for f in d[\"findings\"] if f[\"kind\"] == \"rejected_file\"]
assert len(w) == 1 and w[0][\"ranks\"] == [1] and \"whole entries\" in w[0][\"detail\"], w"
'
test_expect_success 'stray files do not spoil prefix inference; -o writes the database' '
    sh "$SC/run_scenario.sh" healthy dumps && echo hi >dumps/notes1 && echo x >dumps/README &&
    "$FRTRACE" -o out.json dumps >/dev/null && python3 -c "import json;d=json.load(open(\"out.json\"));assert d[\"schema\"]==\"frtrace-db/1\" and d[\"input\"][\"prefix\"]==\"nccl_trace_rank_\""
'
test_expect_success 'usage errors exit 2; torchfrtrace spellings are accepted' '
    test_expect_code 2 "$FRTRACE" --no-such-option 2>/dev/null &&
    test_expect_code 2 "$FRTRACE" >/dev/null 2>&1 &&
    test_expect_code 2 "$FRTRACE" /nonexistent 2>/dev/null &&
    sh "$SC/run_scenario.sh" healthy dumps &&
    "$FRTRACE" --mismatch_cap 3 --allow-incomplete-ranks dumps >/dev/null &&
    "$FRTRACE" dumps --just_print_entries --selected-ranks 0 1 --pg-filters default_pg >j && grep "Rank 1" j && ! grep "Rank 2" j
'
# torchfrtrace's testBuildDB (test_fr_analysis.py), cases 1-6: two ranks, version 2.8, sub_pg "1" split
# into [0] and [1]. rows GROUP:RECORD:NAME:PASS... lists the collectives expected in the database.
builddb() {
    analyze "builddb_$1" --all-collectives && python3 - "$@" <<-\EOF
	import json, sys
	d = json.load(open("db.json"))
	got = ["%s:%d:%s:%s" % (c["group_id"], c["record_id"], c["profiling_name"], c["pass_check"]) for c in d["collectives"]]
	assert got == sys.argv[3:], got
	assert d["verdict"]["status"] == sys.argv[2], d["verdict"]
	EOF
}
test_expect_success 'testBuildDB 1: a plain collective and one per split subgroup (3 collectives, all pass)' '
    builddb 1 ok 0:0:nccl:all_reduce:True 1@0:1:nccl:all_reduce:True 1@1:1:nccl:all_reduce:True
'
test_expect_success 'testBuildDB 2: allreduce_coalesced is one collective' '
    builddb 2 ok 0:0:nccl:allreduce_coalesced:True
'
test_expect_success 'testBuildDB 3: broadcasts + coalesced marker are one collective named by the marker (record 2)' '
    builddb 3 ok 0:2:nccl:coalesced:True
'
# torchfrtrace reports rank 0's first mismatching entry (record 1, _broadcast_oop). We keep the
# bundle as one collective named by its end marker, as in cases 3 and 5, and with two members
# that disagree docs/database.md §6 names both (no first-rank bias): mismatch, culprits 0 and 1.
test_expect_success 'testBuildDB 4: a coalesced bundle whose sizes differ does not pass; both ranks named' '
    builddb 4 mismatch 0:2:nccl:ALLGATHER_coalesced:False && check mismatch 0,1 size_mismatch
'
test_expect_success 'testBuildDB 5: _reduce_oop + REDUCE_SCATTER_coalesced is one collective (record 2)' '
    builddb 5 ok 0:2:nccl:REDUCE_SCATTER_coalesced:True
'
# torchfrtrace names the second collective by its first entry (record 1, _reduce_oop); we name a
# bundle by its end marker everywhere (record 3). Rank 0 completed seq 0 and recorded nothing
# later, so it is not waited for: pass, as in torchfrtrace.
test_expect_success 'testBuildDB 6: a bundle only rank 1 recorded at the same seq is a second collective that passes' '
    builddb 6 ok 0:0:nccl:all_reduce:True 0:3:nccl:REDUCE_SCATTER_coalesced:True
'
test_expect_success 'text and markdown reports match the golden files' '
    for sc in missing_rank wait_chain; do
        rm -rf dumps && sh "$SC/run_scenario.sh" $sc dumps &&
        test_expect_code 1 "$FRTRACE" dumps >text.raw && sed "s|$PWD/||" text.raw >text.out &&
        test_expect_code 1 "$FRTRACE" -f markdown dumps >md.raw && sed "s|$PWD/||" md.raw >md.out &&
        diff -u "$SC/golden/$sc.txt" text.out && diff -u "$SC/golden/$sc.md" md.out || return 1
    done
'
test_expect_success 'a wait chain reads from the waiters down to the root cause; the victim is located' '
    analyze wait_chain && test_expect_code 1 "$FRTRACE" --width 0 dumps >out &&
    grep -A4 "^wait chain" out >chain && sed -n 3p chain | grep "ranks 0,1 wait for 2 in A all_reduce" &&
    sed -n 4p chain | grep -- "-> rank 2 waits for 3 in B all_reduce" && sed -n 5p chain | grep -- "-> rank 3: the root cause" &&
    grep "rank 2 holds others up only because it is stuck itself: 2 in B (2) all_reduce #2 (waiting for 3)" out
'
test_expect_success 'a recv whose peer finished everything names the peer; the p2p finding is folded into the chain' '
    analyze unmatched_recv && check hang 0 missing_ranks:0 p2p_unmatched:0 &&
    python3 -c "
import json; d = json.load(open(\"db.json\"))
p = [f for f in d[\"findings\"] if f[\"kind\"] == \"p2p_unmatched\"]
assert len(p) == 1 and p[0][\"explained_by_hang\"] and p[0][\"other_ranks\"] == [1], p
assert d[\"verdict\"][\"p2p_explained_by_hang\"] == 1" &&
    test_expect_code 1 "$FRTRACE" dumps >out && grep "1 send/recv waits on blocked peers" out && ! grep "p2p_unmatched in" out &&
    test_expect_code 1 "$FRTRACE" -v dumps >out && grep "p2p_unmatched in PIPELINE (5), recv 1<-0 (p2p #1)" out
'
test_expect_success 'recorder dumps (pg_config ranks "[]" + the frtrace key): membership is rebuilt from comms' '
    analyze recorder_style && check hang 3 missing_ranks:3 &&
    python3 -c "
import json; d = json.load(open(\"db.json\"))
g = {x[\"id\"]: x[\"ranks\"] for x in d[\"groups\"]}
assert g == {\"0\": [0, 1, 2, 3], \"1\": [1, 3]}, g"
'
test_expect_success 'the only rank others wait for left no dump while another rank waits for nobody: inconclusive, says why' '
    analyze lost_dump && check inconclusive - missing_dump:2 &&
    test_expect_code 1 "$FRTRACE" dumps >out &&
    head -1 out | grep "^inconclusive: ranks 0,1 wait for rank 2, which left no readable dump, while rank 3 waits for nobody"
'
test_expect_success 'the culprit table shows each culprit in every group it blocks' '
    analyze pipeline && test_expect_code 1 "$FRTRACE" dumps >out &&
    grep -A4 "^culprits" out | grep "^  3 .*PIPELINE (5) .*send 2->3 (p2p #2) .*never issued .*2"
'
test_expect_success '--selected-ranks / --pg-filters do not swallow DIR and restrict the report too' '
    sh "$SC/run_scenario.sh" wait_chain dumps &&
    test_expect_code 1 "$FRTRACE" --selected-ranks 0 1 dumps >a && grep "^hang: rank 3" a &&
    test_expect_code 1 "$FRTRACE" --selected-ranks 0 1 -- dumps >b && cmp a b &&
    test_expect_code 1 "$FRTRACE" dumps --selected-ranks 0 1 >c && cmp a c &&
    test_expect_code 1 "$FRTRACE" --selected-ranks 0 1 -d dumps >c && cmp a c &&
    test_expect_code 1 "$FRTRACE" --pg-filters A dumps >d && grep "^hang: rank 3" d &&
    grep "showing only findings about the selected" a && ! grep "missing_ranks in B" a && ! grep "^  3 " a &&
    test_expect_code 1 "$FRTRACE" --selected-ranks 3 dumps >e && grep "missing_ranks in B (2)" e && grep "^  3 " e &&
    "$FRTRACE" -j --pg-filters B -d dumps >j && grep "Rank 3" j
'
test_done
