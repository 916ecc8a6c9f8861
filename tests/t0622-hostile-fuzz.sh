#!/bin/sh
# Random hostile strings in every string field of a real 16-rank job (tests/fuzz/hostile_fuzz.py:
# escape sequences, C0/C1 controls, bidi, surrogates, NULs, markdown and HTML, backticks, in
# group names, descs, profiling names, threads, frames, dtypes, states, versions; pickle and
# JSON), every output of frtrace checked each round: no raw control or format character, no
# markdown formed by the input, strict-UTF-8 JSON, well-formed SVG, exit 0-2. 15 s here
# (HOSTILE_FUZZ_SECONDS), longer in `make fuzz`; a failing round's job is kept for replay.
. "$(dirname "$0")/lib.sh"

JOB="$REAL_DUMPS/lock_gil_1st"
if ! have_shared || ! [ -d "$JOB" ] || ! command -v python3 >/dev/null 2>&1; then
    test_skip 'no ../shared or no python3' 'hostile strings fuzzed through every output'
    test_done
    exit
fi

test_expect_success 'random hostile strings in every string field: every output stays safe' '
    python3 "$TOP/tests/fuzz/hostile_fuzz.py" "$FRTRACE" "$JOB" "${HOSTILE_FUZZ_SECONDS:-15}" >log ||
        { cat log && cp -r hostile-fuzz-failure-* "$TOP/$BUILD/" 2>/dev/null; false; } &&
    cat log && grep -q "0 failing" log
'

test_done
