#!/bin/sh
# The four real 16-rank Megatron runs (../shared, never copied here): frtrace must name the
# ranks where faults were injected (nvidia-resiliency-ext's fault_injection logs).
. "$(dirname "$0")/lib.sh"
SC="$TOP/tests/scenarios"

real() { test_expect_code 1 "$FRTRACE" -f json "$REAL_DUMPS/$1" >db.json; }

if ! have_shared; then
    test_skip 'no ../shared' 'the four real runs'
    test_done
    exit 0
fi
test_expect_success 'gpu_error_1st: GPUs of 12 and 14 stopped (pending what their TP peers completed)' '
    real gpu_error_1st && python3 "$SC/check.py" db.json hang 12,14 state_mismatch:12 state_mismatch:14 lagging_ranks:13,15
'
test_expect_success 'gpu_error_2nd: GPUs of 9 and 14 stopped' '
    real gpu_error_2nd && python3 "$SC/check.py" db.json hang 9,14 state_mismatch:9 state_mismatch:14
'
test_expect_success 'lock_gil_1st: CPUs of 9 and 14 never issued what the others wait in; 8 is a victim' '
    real lock_gil_1st && python3 "$SC/check.py" db.json hang 9,14 missing_ranks:9,14 &&
    python3 -c "
import json; d = json.load(open(\"db.json\"))
lag = [f for f in d[\"findings\"] if f[\"kind\"] == \"lagging_ranks\"][0]
assert 8 in lag[\"ranks\"] and 8 not in d[\"verdict\"][\"culprit_ranks\"]"
'
test_expect_success 'lock_gil_1st: rank 9 never issued TP (37) #88684 while 8,10,11 wait; EP and TDP too' '
    real lock_gil_1st && python3 -c "
import json; d = json.load(open(\"db.json\"))
ev = d[\"verdict\"][\"culprit_evidence\"]
def has(rank, desc, gid, seq, waiting):
    return any(e[\"rank\"] == rank and e[\"group_desc\"] == desc and e[\"group_id\"] == gid and e.get(\"collective_seq_id\") == seq
               and e[\"what\"] == \"never_issued\" and e[\"waiting_ranks\"] == waiting for e in ev)
assert has(9, \"TENSOR_MODEL_PARALLEL_GROUP\", \"37\", 88684, [8, 10, 11])
assert has(9, \"EXPERT_MODEL_PARALLEL_GROUP\", \"72\", 45265, [8, 10, 11, 12, 13, 15])
assert has(9, \"TENSOR_AND_DATA_PARALLEL_GROUP_WITH_CP\", \"64\", 15118, [8, 10, 11, 12, 13, 15])
assert has(14, \"TENSOR_MODEL_PARALLEL_GROUP\", \"38\", 88684, [12, 13, 15])
chain = {tuple(l[\"ranks\"]): l[\"wait_for\"] for l in d[\"verdict\"][\"wait_chain\"]}
assert chain[(0, 1, 2, 3, 4, 5, 6, 7)] == list(range(8, 16)), chain
assert chain[(8, 10, 11, 12, 13, 15)] == [9, 14], chain
assert d[\"verdict\"][\"p2p_explained_by_hang\"] == 24"
'
test_expect_success 'lock_gil_1st text: one summary line, culprits across groups, wait chain, p2p folded' '
    test_expect_code 1 "$FRTRACE" --width 0 "$REAL_DUMPS/lock_gil_1st" >out &&
    head -1 out | grep "^hang: ranks 9,14 never joined" && test $(head -1 out | wc -c) -le 211 &&
    grep "^  9 .*TENSOR_MODEL_PARALLEL_GROUP (37) .*_reduce_scatter_base #88684 .*never issued .*8,10,11" out &&
    grep "^  ranks 0-7 wait for 8-15 in" out && grep "^  -> ranks 8,10-13,15 wait for 9,14 in" out &&
    grep "24 sends/recvs wait on blocked peers" out && ! grep "p2p_unmatched in" out &&
    grep "ranks 8,10-13,15 hold others up only because they are stuck themselves: 8,10-13,15 in EXPERT_MODEL_PARALLEL_GROUP (72) all_to_all #45265 (waiting for 9,14)" out &&
    test $(grep -n "^findings:" out | cut -d: -f1) -lt $(grep -n "^warnings:" out | cut -d: -f1)
'
test_expect_success 'gpu_error_1st: 12 stalled at TP (41) #42806, which 13 completed' '
    real gpu_error_1st && python3 -c "
import json; d = json.load(open(\"db.json\"))
ev = d[\"verdict\"][\"culprit_evidence\"]
assert any(e[\"rank\"] == 12 and e[\"group_id\"] == \"41\" and e.get(\"collective_seq_id\") == 42806 and e[\"what\"] == \"stalled\"
           and e[\"completed_ranks\"] == [13] for e in ev), [e for e in ev if e[\"rank\"] == 12][:3]
assert any(e[\"rank\"] == 14 and e[\"group_id\"] == \"42\" and e.get(\"collective_seq_id\") == 42806 and e[\"what\"] == \"stalled\" for e in ev)" &&
    test_expect_code 1 "$FRTRACE" --width 0 "$REAL_DUMPS/gpu_error_1st" >out &&
    grep "^  12 .*TENSOR_MODEL_PARALLEL_GROUP (41) .*_all_gather_base #42806.*stalled: pending, 13 completed it" out
'
test_expect_success 'lock_gil_2nd: CPUs of 10 and 15 never joined their expert all_to_all' '
    real lock_gil_2nd && python3 "$SC/check.py" db.json hang 10,15 missing_ranks:10 missing_ranks:15
'
test_done
