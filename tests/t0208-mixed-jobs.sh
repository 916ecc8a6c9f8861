#!/bin/sh
# Someone copies two jobs' dumps into one directory. frtrace must not blame anyone: the verdict
# is inconclusive, a mixed_jobs finding says which ranks and files disagree and how, and the
# summary says so within a ticket title's length.
. "$(dirname "$0")/lib.sh"

# two_jobs A B: A's 16 dumps as ranks 0-15 and B's as 16-31, in ./mixed
two_jobs() {
    mkdir mixed &&
    cp "$REAL_DUMPS/$1"/_dump_* mixed/ &&
    for i in $(seq 0 15); do cp "$REAL_DUMPS/$2/_dump_$i" mixed/_dump_$((i + 16)) || return 1; done
}

if ! have_shared; then
    test_skip 'no ../shared' 'mixed jobs'
    test_done
    exit 0
fi

test_expect_success 'two real jobs 8 hours apart: inconclusive, mixed_jobs first, nobody blamed' '
    two_jobs lock_gil_1st gpu_error_1st &&
    test_expect_code 1 "$FRTRACE" -o db.json mixed >out &&
    head -n 1 out | grep "^inconclusive: dumps of 2 jobs: ranks 0-8,10-13,15 and 16-31 recorded 8.1 h apart$" &&
    test $(head -n 1 out | wc -c) -le 101 &&
    ! grep -q "transform-ft" out &&
    python3 -c "
import json; d = json.load(open(\"db.json\"))
assert d[\"verdict\"][\"status\"] == \"inconclusive\" and d[\"verdict\"][\"culprit_ranks\"] == []
f = d[\"findings\"][0]
assert f[\"kind\"] == \"mixed_jobs\" and f[\"ranks\"] == list(range(9)) + [10, 11, 12, 13, 15] + list(range(16, 32)), f
assert \"mixed/_dump_\" in f[\"detail\"] and \"2025-09-23 06:55:05 UTC\" in f[\"detail\"], f"
'

test_expect_success 'two jobs 18 minutes apart are told apart too' '
    two_jobs lock_gil_1st gpu_error_2nd &&
    test_expect_code 1 "$FRTRACE" mixed >out &&
    head -n 1 out | grep "^inconclusive: dumps of 2 jobs: .* recorded 18.0 min apart$"
'

test_expect_success 'one real job is never called mixed, whatever its hang' '
    for run in gpu_error_1st gpu_error_2nd lock_gil_1st lock_gil_2nd; do
        test_expect_code 1 "$FRTRACE" -f json "$REAL_DUMPS/$run" >db.json &&
        python3 -c "
import json; d = json.load(open(\"db.json\"))
assert d[\"verdict\"][\"status\"] == \"hang\" and not [f for f in d[\"findings\"] if f[\"kind\"] == \"mixed_jobs\"]" || return 1
    done
'
test_done
