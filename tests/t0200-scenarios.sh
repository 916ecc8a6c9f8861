#!/bin/sh
# The stories frtrace must tell right: each scenario is a small job written as PyTorch-layout
# pickles by our own writer (tests/scenarios/gen.py -> build/tests/mkdump), then analyzed.
. "$(dirname "$0")/lib.sh"
SC="$TOP/tests/scenarios"

# analyze SCENARIO: writes the dumps and the database db.json in the current directory.
analyze() {
    sh "$SC/run_scenario.sh" "$1" dumps &&
    { "$FRTRACE" -f json dumps >db.json; status=$?; [ $status -le 1 ]; }
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
    { "$FRTRACE" dumps >out; test $? = 1; } && head -1 out | grep "rank 2 never joined default_pg (0) all_reduce #4"
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
test_expect_success 'p2p pipeline: symmetric batch_isend_irecv matches; an unmatched send names the peer' '
    analyze pipeline && check hang 3 missing_ranks:3 p2p_unmatched:3 &&
    python3 -c "import json;d=json.load(open(\"db.json\"));assert not [c for c in d[\"collectives\"] if c[\"group_id\"]==\"5\" and c[\"mismatch\"]]"
'
test_expect_success 'ring-buffer windows starting at different record_ids align by seq' '
    analyze ring_wrap && check hang 3 missing_ranks:3 &&
    python3 -c "import json;d=json.load(open(\"db.json\"));assert [f for f in d[\"findings\"] if f[\"kind\"]==\"missing_ranks\"][0][\"collective_seq_id\"]==8"
'
test_expect_success 'mixed versions 2.4 + 2.9 + 2.10 in one directory: a warning, still ok' '
    analyze mixed_versions && check ok - version_mismatch &&
    python3 -c "import json;d=json.load(open(\"db.json\"));assert d[\"input\"][\"versions\"]==[\"2.10\",\"2.4\",\"2.9\"]"
'
test_expect_success 'a truncated dump is reported on stderr and the rest analyzed' '
    sh "$SC/run_scenario.sh" missing_rank dumps &&
    size=$(wc -c <dumps/nccl_trace_rank_1) && head -c $((size / 2)) dumps/nccl_trace_rank_1 >t && mv t dumps/nccl_trace_rank_1 &&
    { "$FRTRACE" -f json dumps >db.json 2>err; test $? = 1; } &&
    python3 -c "import json;d=json.load(open(\"db.json\"));assert d[\"verdict\"][\"culprit_ranks\"]==[2], d[\"verdict\"]" &&
    { grep "nccl_trace_rank_1" err || python3 -c "import json;d=json.load(open(\"db.json\"));assert d[\"input\"][\"files_rejected\"] or 1 in d[\"input\"][\"ranks_loaded\"]"; }
'
test_expect_success 'stray files do not spoil prefix inference; -o writes the database' '
    sh "$SC/run_scenario.sh" healthy dumps && echo hi >dumps/notes1 && echo x >dumps/README &&
    "$FRTRACE" -o out.json dumps >/dev/null && python3 -c "import json;d=json.load(open(\"out.json\"));assert d[\"schema\"]==\"frtrace-db/1\" and d[\"input\"][\"prefix\"]==\"nccl_trace_rank_\""
'
test_expect_success 'usage errors exit 2; torchfrtrace spellings are accepted' '
    { "$FRTRACE" --no-such-option 2>/dev/null; test $? = 2; } &&
    { "$FRTRACE" >/dev/null 2>&1; test $? = 2; } &&
    { "$FRTRACE" /nonexistent 2>/dev/null; test $? = 2; } &&
    sh "$SC/run_scenario.sh" healthy dumps &&
    "$FRTRACE" --mismatch_cap 3 --allow-incomplete-ranks dumps >/dev/null &&
    "$FRTRACE" dumps --just_print_entries --selected-ranks 0 1 --pg-filters default_pg >j && grep "Rank 1" j && ! grep "Rank 2" j
'
test_expect_success 'text and markdown reports match the golden files' '
    sh "$SC/run_scenario.sh" missing_rank dumps &&
    "$FRTRACE" dumps | sed "s|$PWD/||" >text.out; "$FRTRACE" -f markdown dumps | sed "s|$PWD/||" >md.out;
    diff -u "$SC/golden/missing_rank.txt" text.out && diff -u "$SC/golden/missing_rank.md" md.out
'
test_done
