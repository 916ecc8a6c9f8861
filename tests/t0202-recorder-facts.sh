#!/bin/sh
# What a recorder dump says of its own rank changes the story: a rank that dumped from a fatal
# signal's handler crashed, a communicator in state async_error:X failed, a rank stuck inside an
# NCCL call hung where Flight Recorder records nothing. Each scenario is written as JSON dumps
# with the "frtrace" key (tests/scenarios/gen.py), turned into pickles by build/tests/mkdump.
. "$(dirname "$0")/lib.sh"
SC="$TOP/tests/scenarios"

# analyze SCENARIO: writes the dumps, the database db.json and the text report out.
analyze() {
    sh "$SC/run_scenario.sh" "$1" dumps &&
    { "$FRTRACE" -f json dumps >db.json; status=$?; [ $status -le 1 ]; } &&
    { "$FRTRACE" dumps >out; [ $? -le 1 ]; }
}
check() { python3 "$SC/check.py" db.json "$@"; }
# evidence RANK WHAT KEY VALUE: rank's first culprit_evidence row says WHAT, with KEY = VALUE
evidence() {
    python3 - "$@" <<-\EOF
	import json, sys
	ev = [e for e in json.load(open("db.json"))["verdict"]["culprit_evidence"] if e["rank"] == int(sys.argv[1])]
	assert ev and ev[0]["what"] == sys.argv[2] and ev[0].get(sys.argv[3]) == sys.argv[4], ev
	assert not [e for e in ev if e["what"] == "stalled"], ev
	EOF
}

test_expect_success 'a rank that crashed (fatal:11) is the culprit with the crash story, not a stalled GPU' '
    analyze recorder_crash && check hang 1 missing_ranks:1 &&
    head -1 out | grep -x "hang: rank 1 crashed (SIGSEGV) in default_pg (0) all_reduce #3 (ranks 0,2,3 wait)" &&
    grep "^  1 .*all_reduce #3 .*crashed (SIGSEGV) .*0,2,3" out && ! grep stalled out &&
    evidence 1 crashed signal SIGSEGV &&
    python3 -c "import json; d = json.load(open(\"db.json\")); assert \"crashed (SIGSEGV)\" in [f for f in d[\"findings\"] if f[\"kind\"] == \"missing_ranks\"][0][\"detail\"]"
'
test_expect_success 'the crashed rank'"'"'s own frozen entries (#1, #2, nobody waits in them) are no evidence rows' '
    analyze recorder_crash &&
    python3 -c "import json; ev = json.load(open(\"db.json\"))[\"verdict\"][\"culprit_evidence\"]; assert [(e[\"rank\"], e[\"collective_seq_id\"]) for e in ev] == [(1, 3)], ev; assert ev[0][\"waiting_ranks\"] == [0, 2, 3], ev"
'
test_expect_success 'a rank that crashed inside a collective everyone started is the culprit (not stuck_collective)' '
    analyze recorder_crash_inside && check hang 1 missing_ranks:1 &&
    head -1 out | grep -x "hang: rank 1 crashed (SIGBUS) in default_pg (0) all_reduce #2 (ranks 0,2,3 wait)" &&
    ! grep stuck_collective db.json && evidence 1 crashed signal SIGBUS
'
test_expect_success 'an async NCCL error on a rank others wait on beats its GPU lag: the error is the story' '
    analyze recorder_async_error && check hang 2 state_mismatch:2 &&
    head -1 out | grep -x "hang: rank 2 hit NCCL async error ncclRemoteError in default_pg (0) all_reduce #4 (ranks 0,1,3 wait)" &&
    evidence 2 async_error nccl_error ncclRemoteError &&
    grep "NCCL async error ncclRemoteError" out
'
test_expect_success 'no entries, a rank stuck inside NCCL (communicator init): inconclusive, says so' '
    analyze recorder_stuck_init && check inconclusive - &&
    head -1 out | grep -x "inconclusive: rank 1 stuck inside an NCCL call (e.g. communicator initialization); no collective was recorded"
'
# Without the key, rank 1's entries show #1 and #2 pending where its peers completed both: a GPU
# stalled in #1 would have held #2 on its stream, so its states are older than its peers' (the
# crashed process stopped updating them), and the story is that it never joined #3.
test_expect_success 'the same dumps without the frtrace key keep the stories the entries tell' '
    sh "$SC/run_scenario.sh" recorder_crash dumps && python3 "$SC/gen.py" recorder_crash json &&
    python3 -c "
import json, glob
for p in glob.glob(\"json/*.json\"):
    d = json.load(open(p)); del d[\"frtrace\"]
    for g in d[\"pg_config\"].values(): g[\"ranks\"] = \"[0, 1, 2, 3]\"
    json.dump(d, open(p, \"w\"))" &&
    for f in json/*.json; do "$TOP/$BUILD/tests/mkdump" --version 2.9 "$f" "dumps/$(basename "$f" .json)" || return 1; done &&
    test_expect_code 1 "$FRTRACE" dumps >out && head -1 out | grep "^hang: rank 1 never joined default_pg (0) all_reduce #3"
'
test_expect_success 'a communicator whose comm_rank is not below its comm_size is ignored, not made a group' '
    python3 "$SC/gen.py" recorder_style json &&
    python3 -c "
import json
p = \"json/nccl_trace_rank_3.json\"; d = json.load(open(p))
d[\"frtrace\"][\"comms\"][\"9\"] = {\"comm_rank\": 2, \"comm_size\": 2, \"state\": \"live\"}
json.dump(d, open(p, \"w\"))" &&
    mkdir dumps &&
    for f in json/*.json; do "$TOP/$BUILD/tests/mkdump" --version 2.9 "$f" "dumps/$(basename "$f" .json)" || return 1; done &&
    test_expect_code 1 "$FRTRACE" -f json dumps >db.json &&
    check hang 3 missing_ranks:3 &&
    python3 -c "
import json; d = json.load(open(\"db.json\"))
g = {x[\"id\"]: x[\"ranks\"] for x in d[\"groups\"]}
assert g == {\"0\": [0, 1, 2, 3], \"1\": [1, 3]}, g"
'
test_done
