#!/bin/sh
# Random jobs with known answers (tests/sim/, issue 18): the simulator draws a job from a seed,
# runs it, writes the dumps its backend would write and the answer the evidence supports; a
# user who runs frtrace on them gets that answer. Here: the simulator is deterministic, its
# dumps are laid out as real PyTorch's and the recorder's are (its pickle writer writes real
# dumps back byte for byte, and agrees byte for byte with the project's C writer), its answers for the hand-checked seeds stand; then frtrace is
# scored on 200 seeds and every seed of tests/sim/regressions.txt (`make accuracy`: 10 000).
. "$(dirname "$0")/lib.sh"
SIM="$TOP/tests/sim"
SEEDS=${FRTRACE_ACCURACY_SEEDS:-0:200}
# Whether no seed may come out wrong. Until the verdict rewrite of issue 18
# lands, today's analyzer gets some wrong: the table is printed and the requirement skipped.
# The lead sets REQUIRE_NONE_WRONG=1 here once it holds (FRTRACE_ACCURACY_REQUIRED overrides).
REQUIRE_NONE_WRONG=0
REQUIRE=${FRTRACE_ACCURACY_REQUIRED:-$REQUIRE_NONE_WRONG}
TABLE="$TRASH/accuracy.txt"

# score_seeds FILE: the accuracy table into FILE; fails on a crash or a simulator error, not on
# frtrace's wrong answers (exit status 1), which the next test judges.
score_seeds() {
    python3 "$SIM/accuracy.py" --seeds "$SEEDS" --seed-file "$SIM/regressions.txt" -j 2 \
        --frtrace "$FRTRACE" >"$1"
    status=$?
    cat "$1"
    [ "$status" -le 1 ] && ! grep -q '^sim_error' "$1" && grep -q '^total ' "$1"
}

test_expect_success 'one seed gives the same job, byte for byte, every time' '
    python3 "$SIM/sim.py" --seed 4242 --out a >/dev/null &&
    python3 "$SIM/sim.py" --seed 4242 --out b >/dev/null &&
    diff -r a b
'

real=""
if have_shared; then
    real="$REAL_DUMPS/gpu_error_1st/_dump_0 $SYNTH_DUMPS/v2.10_json_rank_0.json"
fi
test_expect_success 'simulated dumps load, laid out key by key as real producers lay theirs' "
    python3 \"\$SIM/conformance.py\" --seeds 0:12 --frtrace \"\$FRTRACE\" \
        --mkdump \"\$TOP/\$BUILD/tests/mkdump\" $real \
        \"\$TOP/testdata/torch-2.15.0-gloo/stuck_cpu-stack/rank_0\" \
        \"\$TOP/testdata/torch-2.15.0-gloo/skip-json/rank_0.json\" \
        \"\$TOP/testdata/torch-2.15.0-gloo/pipe_no_send/rank_4\" \
        \"\$TOP/testdata/torch-2.15.0-gloo/pipe_no_send/rank_5.json\" \
        \"\$TOP/testdata/recorder-fake-nccl/skip/rank_0\"
"

test_expect_success 'the answers checked by hand stay as checked (tests/sim/handchecked.txt)' '
    python3 "$SIM/handchecked.py" "$SIM/handchecked.txt"
'

test_expect_success 'the scorer scores hand-made verdicts as its rules say' '
    python3 "$SIM/accuracy.py" --self-test
'

test_expect_success "frtrace is scored on seeds $SEEDS and every regression seed" '
    score_seeds "$TABLE"
'

if [ "$REQUIRE" = 1 ]; then
    test_expect_success 'frtrace gets none of those seeds wrong' '
        awk "\$1 == \"total\" { wrong = \$5 } END { exit wrong == \"\" || wrong != 0 }" "$TABLE"
    '
else
    wrong_now=$(awk '$1 == "total" { print $5 }' "$TABLE" 2>/dev/null)
    test_skip "not required until the verdict rewrite: REQUIRE_NONE_WRONG=1 in $0" \
        "frtrace gets none of the scored seeds wrong (${wrong_now:-?} wrong now)"
fi

test_done
