#!/bin/sh
# The four real 16-rank Megatron runs (../shared, never copied here): frtrace must name the
# ranks where faults were injected (nvidia-resiliency-ext's fault_injection logs).
. "$(dirname "$0")/lib.sh"
SC="$TOP/tests/scenarios"

real() { "$FRTRACE" -f json "$REAL_DUMPS/$1" >db.json; test $? = 1; }

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
test_expect_success 'lock_gil_1st: rank 9 issued TENSOR_MODEL_PARALLEL_GROUP up to #88683 only' '
    "$FRTRACE" -v "$REAL_DUMPS/lock_gil_1st" >out; grep "^hang: ranks 9,14 never joined" out
'
test_expect_success 'lock_gil_2nd: CPUs of 10 and 15 never joined their expert all_to_all' '
    real lock_gil_2nd && python3 "$SC/check.py" db.json hang 10,15 missing_ranks:10 missing_ranks:15
'
test_done
