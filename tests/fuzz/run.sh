#!/bin/sh
# run.sh SECONDS [KIND...] — runs each fuzzer (KINDs among pickle, json, dump, dir, hostile;
# default all) for SECONDS on a fresh seed corpus and prints "fuzz_NAME: N execs in S s" (or the
# crash). hostile is tests/fuzz/hostile_fuzz.py (random hostile strings in every string field
# of a real job from ../shared, every output checked; a failing job is kept in
# $BUILD/fuzz/hostile-fuzz-failure-*). Exit 1
# when a fuzzer found a problem. The corpus is built in a scratch directory from
# tests/fuzz/corpus/<kind>/ plus, when ../shared exists, the real and synthetic dumps (copied
# into the scratch directory only, never into the repo). fuzz_dump decodes both encodings, so
# its corpus is every committed seed and every shared dump, pickle and JSON. The JSON fuzzers
# (json, dump) get tests/fuzz/json.dict's tokens. fuzz_dir takes a directory as one input
# (tests/fuzz/fuzz_dir.c: parts joined by "\n--\n"); its seeds join the committed dump seeds two
# by two and, from ../shared, the first six dumps of each real run.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-build}
SECONDS_EACH=${1:-60}
[ $# -gt 0 ] && shift
KINDS=${*:-pickle json dump dir hostile}
SHARED="$TOP/../shared/testdata"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/frtrace-fuzz.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
status=0
for kind in $KINDS; do
    if [ "$kind" = hostile ]; then
        job="$SHARED/torch-fr-2.9-nvrx/lock_gil_1st"
        [ -d "$job" ] || { echo "hostile_fuzz: no ../shared, skipped"; continue; }
        mkdir -p "$TOP/$BUILD/fuzz"
        (cd "$TOP/$BUILD/fuzz" && python3 "$TOP/tests/fuzz/hostile_fuzz.py" "$TOP/$BUILD/frtrace" \
            "$job" "$SECONDS_EACH") || status=1
        continue
    fi
    bin="$TOP/$BUILD/fuzz/fuzz_$kind"
    [ -x "$bin" ] || { echo "fuzz_$kind: not built (no clang?)"; status=1; continue; }
    corpus="$WORK/$kind"
    mkdir -p "$corpus"
    if [ "$kind" = dir ]; then
        prev=""
        for f in "$TOP"/tests/fuzz/corpus/dump/*; do
            [ -f "$f" ] || continue
            [ -n "$prev" ] && { cat "$prev"; printf '\n--\n'; cat "$f"; } >"$corpus/pair_$(basename "$f")"
            prev=$f
        done
        for run in "$SHARED"/torch-fr-2.9-nvrx/*/; do
            [ -f "$run/_dump_0" ] || continue
            for r in 0 1 2 3 4 5; do cat "$run/_dump_$r"; [ "$r" = 5 ] || printf '\n--\n'; done \
                >"$corpus/run_$(basename "$run")"
        done
    elif [ "$kind" = dump ]; then
        for f in "$TOP"/tests/fuzz/corpus/*/*; do
            [ -f "$f" ] && cp "$f" "$corpus/$(basename "$(dirname "$f")")_$(basename "$f")"
        done
    else
        cp "$TOP/tests/fuzz/corpus/$kind/"* "$corpus/" 2>/dev/null
    fi
    if [ -d "$SHARED" ] && [ "$kind" != dir ]; then
        if [ "$kind" = dump ]; then
            for f in "$SHARED"/torch-fr-2.9-nvrx/*/_dump_* "$SHARED"/torch-fr-synthetic/*_pickle_rank_* \
                     "$SHARED"/torch-fr-synthetic/*.json; do
                [ -f "$f" ] && cp "$f" "$corpus/$(echo "$f" | tr / _)"
            done
        elif [ "$kind" = pickle ]; then
            for f in "$SHARED"/torch-fr-2.9-nvrx/*/_dump_0 "$SHARED"/torch-fr-synthetic/*_pickle_rank_0; do
                [ -f "$f" ] && cp "$f" "$corpus/$(echo "$f" | tr / _)"
            done
        else
            cp "$SHARED"/torch-fr-synthetic/*.json "$corpus/" 2>/dev/null
        fi
    fi
    log="$WORK/$kind.log"
    dict=""
    [ "$kind" != pickle ] && dict="-dict=$TOP/tests/fuzz/json.dict"
    (cd "$WORK" && "$bin" -max_total_time="$SECONDS_EACH" -timeout=10 -rss_limit_mb=2048 \
        -artifact_prefix="$TOP/$BUILD/fuzz/" $dict \
        -print_final_stats=1 "$corpus" >"$log" 2>&1)
    rc=$?
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    if [ "$rc" -eq 0 ]; then
        echo "fuzz_$kind: ${execs:-?} execs in $SECONDS_EACH s, no crash"
    else
        echo "fuzz_$kind: FAILED (exit $rc)"
        grep -E "ERROR|SUMMARY|Test unit written|invariant failed" "$log" | head -n 10
        status=1
    fi
done
exit $status
