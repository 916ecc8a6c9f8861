#!/bin/sh
# Real PyTorch 2.15 gloo jobs (8 ranks, TP/DP/PP groups and the default one, one injected fault
# each), dumped by torch's own Flight Recorder and committed by `make interop SAVE=1`: a user
# points frtrace at each and gets the verdict and culprits that the fault implies. Their
# pg_config holds only gloo's key "" with group-local ranks, so every group's members are
# rebuilt from the entries; states are "scheduled" for ever with `retired` marking what finished.
. "$(dirname "$0")/lib.sh"
GLOO="$TOP/testdata/torch-2.15.0-gloo"

# expected_verdict CASE: the database of one committed job, checked against its EXPECTED file
# ("STATUS CULPRITS SLOW [ALTERNATIVES]", "-" for none; alternatives as "4|5" or "0,6|1,6"): the
# verdict, the culprits, the slow ranks and the explanations the dumps allow, exactly.
expected_verdict() {
    set -- "$1" $(head -n 1 "$GLOO/$1/EXPECTED")
    code=1
    [ "$2" = ok ] && code=0
    test_expect_code $code "$FRTRACE" -f json "$GLOO/$1" >db.json &&
    python3 "$TOP/tests/scenarios/check.py" db.json "$2" "$3" membership_inferred &&
    python3 -c "
import json, sys
v = json.load(open(\"db.json\"))
slow = [s[\"rank\"] for s in v[\"stragglers\"]]
want = [] if sys.argv[1] == \"-\" else [int(r) for r in sys.argv[1].split(\",\")]
assert slow == want, (slow, want)
alts = sorted(a[\"ranks\"] for a in v[\"verdict\"][\"alternatives\"])
want = sorted([int(r) for r in a.split(\",\")] for a in sys.argv[2].split(\"|\") if a)
assert alts == want, (alts, want)" "$4" "${5:-}"
}

for dir in "$GLOO"/*/; do
    case=$(basename "$dir")
    test_expect_success "gloo $case: $(sed -n 's/^# //p' "$dir/EXPECTED" | cut -d';' -f1)" "
        expected_verdict $case
    "
done

test_expect_success 'gloo: every entry is kept and every group rebuilt, none dropped for a missing pg_config' '
    "$FRTRACE" -f json --all-calls "$GLOO/healthy" >db.json &&
    python3 -c "
import json, subprocess, glob
d = json.load(open(\"db.json\"))
recorded = sum(len(json.loads(subprocess.check_output([\"$FRTRACE\", \"show\", f]))[\"entries\"])
               for f in glob.glob(\"$GLOO/healthy/rank_*\"))
assert len(d[\"nccl_calls\"]) == recorded, (len(d[\"nccl_calls\"]), recorded)
groups = {g[\"desc\"]: 0 for g in d[\"groups\"]}
for g in d[\"groups\"]: groups[g[\"desc\"]] += 1
assert groups == {\"default_pg\": 1, \"TENSOR_MODEL_PARALLEL_GROUP\": 4, \"undefined\": 4,
                  \"PIPELINE_MODEL_PARALLEL_GROUP\": 4}, groups
assert [g[\"ranks\"] for g in d[\"groups\"] if g[\"desc\"] == \"default_pg\"] == [list(range(8))]
assert all(c[\"state\"] == \"completed\" for c in d[\"collectives\"]), \"retired entries are completed\"
assert \"\" not in [g[\"name\"] for g in d[\"groups\"]], \"gloo pg_config key is no group\""
'

test_expect_success 'gloo: the summary says that gloo records no send/recv, and the man page why' '
    test_expect_code 1 "$FRTRACE" "$GLOO/stuck_cpu" >out &&
    head -n 1 out | grep "^hang: rank 5 never joined .*; gloo records no send/recv$" &&
    grep -q "gloo records no send" "$TOP/man/frtrace.1"
'

test_expect_success 'gloo DDP: async bucket all_reduces do not hide how late the slow rank is' '
    "$FRTRACE" -f json "$GLOO/ddp_slow" >db.json &&
    python3 -c "
import json
s = json.load(open(\"db.json\"))[\"stragglers\"]
assert [x[\"rank\"] for x in s] == [2], s
assert 40 <= s[0][\"late_ms_median\"] <= 60, s[0]  # it sleeps 50 ms before every forward
assert s[0][\"last_in\"] >= 30, s[0]" &&
    "$FRTRACE" "$GLOO/ddp_slow-json" >out &&
    head -n 1 out | grep "^ok: no hang; rank 2 is slow: last to arrive in [0-9]* of 44 collectives, 5[0-9] ms late (median)$"
'

test_expect_success 'gloo: a job most of whose ranks aborted is inconclusive, never ok' '
    test_expect_code 1 "$FRTRACE" "$GLOO/a2a_size" >out &&
    head -n 1 out | grep "^inconclusive: 3 of 4 ranks left no readable dump (ranks 0,2,3); 1 dump cannot speak for the job$" &&
    grep "^status: inconclusive   culprit ranks: none" out &&
    test $(head -n 1 out | wc -c) -le 101
'

test_expect_success 'gloo JSON dumps (_dump_fr_trace_json) read like the pickles' '
    test_expect_code 1 "$FRTRACE" -f json "$GLOO/skip" >pickle.json &&
    test_expect_code 1 "$FRTRACE" -f json "$GLOO/skip-json" >json.json &&
    python3 -c "
import json
a, b = (json.load(open(f)) for f in (\"pickle.json\", \"json.json\"))
assert a[\"verdict\"][\"culprit_ranks\"] == b[\"verdict\"][\"culprit_ranks\"] == [2]
assert [g[\"ranks\"] for g in a[\"groups\"]] == [g[\"ranks\"] for g in b[\"groups\"]]"
'
test_expect_success 'gloo: rank A or B titles stay short, one group said once' '
    test_expect_code 1 "$FRTRACE" "$GLOO/pipe_stuck" >out &&
    test $(head -n 1 out | wc -c) -le 101 &&
    head -n 1 out | grep -q "(one stopped; gloo records no send/recv)$" &&
    test_expect_code 1 "$FRTRACE" "$GLOO/pipe_two_stuck" >out &&
    test $(head -n 1 out | wc -c) -le 110 &&
    head -n 1 out | grep -q " and rank [0-9]* or [0-9]* in PIPELINE_MODEL_PARALLEL_GROUP ("
'

test_done
