#!/bin/sh
# `make bench`: runs every tests/bench/bench_*.sh in turn. Each prints its own table.
# Benchmarks measure; they never pass or fail on a number.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
export TOP BUILD=${BUILD:-build}
for b in "$TOP"/tests/bench/bench_*.sh; do
    [ -f "$b" ] || continue
    echo "== $(basename "$b" .sh)"
    sh "$b" || echo "(benchmark $(basename "$b") failed with status $?)"
done
