#!/bin/sh
# bench_decode.sh — single-thread decode speed and memory per entry (build/bench/bench_decode):
# the 64 real 2.9 dumps in ../shared (when present), and generated 2 000-entry v2.9 dumps
# without and with stack frames (build/bench/gen_dumps, 8 ranks each), the same plain dumps
# written as PyTorch's JSON (gen_dumps --json), and the generated ones again with the direct
# paths turned off (bench_decode --generic). One table row per set:
# MB/s and entries/s of CPU time (best of the repetitions), the value tree's and the decoded
# dump's bytes per entry; then the JSON row's cost per entry against the pickle row's. With
# callgrind installed and BENCH_CALLGRIND=1, also the instructions
# per entry of one decode of one generated file (repeatable on a loaded machine).
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$TOP/tests/paths.sh"
BENCH="$TOP/$BUILD/bench/bench_decode"
GEN="$TOP/$BUILD/bench/gen_dumps"
for p in "$BENCH" "$GEN"; do
    [ -x "$p" ] || { echo "bench_decode: $p is missing (make bench builds it)"; exit 1; }
done
DIR=$(mktemp -d "${TMPDIR:-/tmp}/frtrace-bench-decode.XXXXXX")
trap 'rm -rf "$DIR"' EXIT
"$GEN" --ranks 8 --entries 2000 "$DIR/plain" >/dev/null 2>&1 || exit 1
"$GEN" --ranks 8 --entries 2000 --frames "$DIR/frames" >/dev/null 2>&1 || exit 1
"$GEN" --ranks 8 --entries 2000 --json "$DIR/json" >/dev/null 2>&1 || exit 1

printf '%-28s %9s %12s %9s %11s %10s\n' "input" "MB/s" "entries/s" "ns/entry" "value B/e" "dump B/e"
row() { # row LABEL [--generic] FILE...
    label=$1
    shift
    line=$("$BENCH" -n 5 -q "$@") || { echo "$label: failed"; return; }
    v() { echo "$line" | sed -n "s/.* $1=\([^ ]*\).*/\1/p"; }
    printf '%-28s %9s %12s %9s %11s %10s\n' "$label" "$(v MB_s)" "$(v entries_s)" "$(v ns_entry)" \
        "$(v value_B_entry)" "$(v held_B_entry)"
    last_ns=$(v ns_entry)
}
last_ns=
[ -d "$REAL_DUMPS" ] && row "real 2.9 dumps (64 files)" "$REAL_DUMPS"/*/_dump_*
row "generated, 8 x 2000 entries" "$DIR"/plain/*
pickle_ns=$last_ns
row "generated, with frames" "$DIR"/frames/*
row "generated, as JSON" "$DIR"/json/*
json_ns=$last_ns
# the same files the generic way (pickle_read's or cJSON's value tree), as before the direct paths
row "generated, generic path" --generic "$DIR"/plain/*
row "with frames, generic path" --generic "$DIR"/frames/*
row "as JSON, generic path" --generic "$DIR"/json/*
[ -n "$pickle_ns" ] && [ -n "$json_ns" ] &&
    awk -v p="$pickle_ns" -v j="$json_ns" \
        'BEGIN { if (p > 0) printf "JSON / pickle: %.1fx the time per entry\n", j / p }'

if [ "${BENCH_CALLGRIND:-0}" = 1 ] && command -v valgrind >/dev/null 2>&1; then
    first=$(ls "$DIR"/plain/* | head -n 1)
    valgrind --tool=callgrind --callgrind-out-file="$DIR/cg.out" "$BENCH" -n 1 -q "$first" >/dev/null 2>&1
    total=$(callgrind_annotate --inclusive=yes "$DIR/cg.out" 2>/dev/null |
        sed -n 's/^ *\([0-9,]*\) .*fr_decoder_decode .*/\1/p' | head -n 1 | tr -d ,)
    [ -n "$total" ] && echo "callgrind: $((total / 2000)) instructions per entry (fr_decoder_decode, one 2 000-entry file)"
fi
