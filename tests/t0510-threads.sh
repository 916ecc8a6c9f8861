#!/bin/sh
# t0510-threads.sh — the analysis does not depend on how many threads run it: the matcher walks
# the ranks in parallel and the database is formatted on every core, yet a user who passes -J 1,
# -J 2 or -J 5 gets the same report, the same database (every call listed) and the same exit
# status, on a job with culprits and p2p, and on a job with fewer ranks than threads.
. "$(dirname "$0")/lib.sh"

GEN="$TOP/$BUILD/bench/gen_dumps"

# same_for_all_jobs DIR [OPTIONS...]: report, database and exit status agree for -J 1, 2, 5.
same_for_all_jobs() {
    dir=$1
    shift
    for j in 1 2 5; do
        "$FRTRACE" -J $j -v --all-calls "$@" -o db.$j.json "$dir" >report.$j.txt 2>&1
        echo "exit $?" >>report.$j.txt
    done
    cmp report.1.txt report.2.txt && cmp report.1.txt report.5.txt &&
    cmp db.1.json db.2.json && cmp db.1.json db.5.json
}

test_expect_success 'a job with culprits, expert groups and p2p: -J 1, 2 and 5 agree' '
    "$GEN" --ranks 128 --entries 300 --faults 2 --ep 2 --seed 5 job >/dev/null &&
    same_for_all_jobs job &&
    grep -q "^status: hang" report.1.txt
'

test_expect_success 'a healthy job with frames, as markdown: -J 1, 2 and 5 agree' '
    "$GEN" --ranks 64 --entries 200 --frames --version 2.10 --seed 8 job >/dev/null &&
    same_for_all_jobs job -f markdown --print-stack-trace
'

test_expect_success 'fewer ranks than threads: 3 ranks, -J 1, 2 and 5 agree' '
    "$GEN" --ranks 3 --entries 50 --faults 1 --seed 2 job >/dev/null &&
    same_for_all_jobs job
'

test_done
