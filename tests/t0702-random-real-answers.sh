#!/bin/sh
# Random real jobs with known answers (tests/interop/random_job.py, issue 18): `make interop` runs
# real gloo jobs drawn from seeds and scores frtrace against the answer their dumps support. That
# needs torch; here, without it: a seed draws the same job every time, and the answer rules
# (expect()) give the answers the evidence rules say on hand-made runs of a pipeline job.
. "$(dirname "$0")/lib.sh"
JOB="$TOP/tests/interop/random_job.py"

test_expect_success 'a seed draws the same job every time, and seeds draw different ones' '
    python3 "$JOB" --seed 7 --describe >a &&
    python3 "$JOB" --seed 7 --describe >b &&
    python3 "$JOB" --seed 8 --describe >c &&
    cmp a b &&
    ! cmp -s a c &&
    grep -q "^seed 7: .* ranks" a
'

test_expect_success 'the answers follow the evidence rules on hand-made runs' '
    python3 "$JOB" --self-test >out &&
    grep -q "answer self-test: 0 of 15 cases wrong" out
'

test_expect_success 'the scorer reads the answers it writes' '
    python3 "$TOP/tests/interop/random_jobs.py" --help >help &&
    grep -q -- "--rescore" help
'

test_done
