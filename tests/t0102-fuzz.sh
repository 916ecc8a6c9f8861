#!/bin/sh
# A short fuzzing run of both readers, the dump decoder and whole directories (about 5 s each) on every
# `make check`; `make fuzz` runs them longer. A crash leaves its input in $BUILD/fuzz/crash-*
# for replay.
. "$(dirname "$0")/lib.sh"

if [ -x "$TOP/$BUILD/fuzz/fuzz_pickle" ] && [ -x "$TOP/$BUILD/fuzz/fuzz_json" ]; then
    test_expect_success 'pickle_read and json_read survive 5 s of libFuzzer each' '
        BUILD=$BUILD sh "$TOP/tests/fuzz/run.sh" 5 pickle json
    '
else
    test_skip 'fuzzers not built (no clang)' 'short libFuzzer run of the readers'
fi

if [ -x "$TOP/$BUILD/fuzz/fuzz_dump" ]; then
    test_expect_success 'fr_dump_decode survives 5 s of libFuzzer with its invariants checked' '
        BUILD=$BUILD sh "$TOP/tests/fuzz/run.sh" 5 dump
    '
else
    test_skip 'fuzzer not built (no clang)' 'short libFuzzer run of the dump decoder'
fi

if [ -x "$TOP/$BUILD/fuzz/fuzz_dir" ]; then
    test_expect_success 'a directory of a few mutated files survives 5 s of libFuzzer through every report' '
        BUILD=$BUILD sh "$TOP/tests/fuzz/run.sh" 5 dir
    '
else
    test_skip 'fuzzer not built (no clang)' 'short libFuzzer run of whole directories'
fi

test_done
