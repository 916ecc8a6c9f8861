#!/bin/sh
# t0601-recorder-perf.sh — the recorder fills duration_ms from its start and end CUDA events as
# PyTorch does with timing on, and a rank the fake job slows down is found as a slow rank in the
# recorder's own dumps.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/fakes/rec-lib.sh"
require_recorder 'duration_ms and slow ranks from recorder dumps'

test_expect_success 'with start and end events, every completed entry has duration_ms >= 0; pending ones none' '
    run_job STEPS=4 FRTRACE_DUMP_ON_EXIT=1 DUMPS_EXPECTED=0 &&
    dump_field 1 "[(e[\"state\"], e.get(\"duration_ms\")) for e in d[\"entries\"]]" >durations &&
    cat durations &&
    python3 -c "
import json
v = json.load(open(\"durations\"))
done = [d for s, d in v if s == \"completed\"]
assert done and all(isinstance(d, float) and d >= 0 for d in done), v
assert all(d is None for s, d in v if s != \"completed\"), v" &&
    test_expect_code 0 "$FRTRACE" stats -f json dumps >stats.json &&
    python3 -c "
import json
r = [x for x in json.load(open(\"stats.json\"))[\"stats\"] if x[\"op\"] == \"all_reduce\"]
assert r and r[0][\"duration_ms_p50\"] is not None, r"
'

test_expect_success 'with end events only (FRTRACE_GPU_EVENTS=1) there is no duration_ms, as in PyTorch without timing' '
    run_job STEPS=2 FRTRACE_GPU_EVENTS=1 FRTRACE_DUMP_ON_EXIT=1 DUMPS_EXPECTED=0 &&
    test "$(dump_field 0 "sum(\"duration_ms\" in e for e in d[\"entries\"])")" = 0
'

test_expect_success 'a rank that sleeps 60 ms before every step is the one slow rank' '
    run_job STEPS=12 SLOW=2:60 FRTRACE_DUMP_ON_EXIT=1 DUMPS_EXPECTED=0 &&
    test_expect_code 0 "$FRTRACE" -o db.json dumps >out &&
    head -n 1 out &&
    python3 -c "
import json
s = json.load(open(\"db.json\"))[\"stragglers\"]
assert [x[\"rank\"] for x in s] == [2] and s[0][\"late_ms_median\"] > 20, s" &&
    head -n 1 out | grep -q "^ok: no hang; rank 2 is slow"
'

test_expect_success 'the same job without the sleep has no slow rank' '
    run_job STEPS=12 FRTRACE_DUMP_ON_EXIT=1 DUMPS_EXPECTED=0 &&
    test_expect_code 0 "$FRTRACE" -o db.json dumps >/dev/null &&
    python3 -c "import json; assert json.load(open(\"db.json\"))[\"stragglers\"] == []"
'

test_done
