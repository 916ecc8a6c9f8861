#!/bin/sh
# The test runner behind `make check`.
#
# Runs every cmocka program in $BUILD/tests (TAP output) and every story script
# tests/t[0-9]*.sh (TAP output through tests/lib.sh), then prints one closing line:
#   "N passed, N failed" (", N skipped" when some were skipped).
# A program that dies without finishing its plan counts as one more failure, so a crash
# can never pass silently. Exits 1 when anything failed.
set -u
BUILD=${BUILD:-build}
export BUILD
TOP=$(cd "$(dirname "$0")/.." && pwd)
export FRTRACE_TOP="$TOP"
LOG_DIR="$TOP/$BUILD/test-logs"
mkdir -p "$LOG_DIR"

passed=0 failed=0 skipped=0
failures=""

# count_tap NAME LOGFILE EXIT_STATUS: add the file's results to the totals.
count_tap() {
    name=$1 log=$2 status=$3
    # A skip is "ok N # skip" from tests/lib.sh, "not ok N # SKIP" from cmocka's TAP output.
    ok=$(grep '^ok ' "$log" | grep -vci '# skip' || true)
    skip=$(grep -E '^(not )?ok ' "$log" | grep -ci '# skip' || true)
    bad=$(grep '^not ok ' "$log" | grep -vci '# skip' || true)
    plan=$(sed -n 's/^1\.\.\([0-9][0-9]*\).*/\1/p' "$log" | head -n 1)
    ran=$((ok + skip + bad))
    if [ -n "$plan" ] && [ "$ran" -lt "$plan" ]; then
        bad=$((bad + plan - ran))
    fi
    if [ "$status" -ne 0 ] && [ "$bad" -eq 0 ]; then
        bad=1   # died, or failed outside any test
    fi
    passed=$((passed + ok)) skipped=$((skipped + skip)) failed=$((failed + bad))
    if [ "$bad" -gt 0 ]; then
        failures="$failures $name"
        echo "FAIL $name ($bad failed; log: $log)"
        grep -E '^(not ok|#)' "$log" | head -n 20 | sed 's/^/    /'
    else
        printf 'ok   %-40s %3d passed%s\n' "$name" "$ok" "$( [ "$skip" -gt 0 ] && echo ", $skip skipped")"
    fi
}

for prog in "$TOP/$BUILD"/tests/test_*; do
    [ -x "$prog" ] || continue
    name=$(basename "$prog")
    log="$LOG_DIR/$name.log"
    (cd "$TOP" && CMOCKA_MESSAGE_OUTPUT=TAP timeout 600 "$prog") >"$log" 2>&1
    count_tap "$name" "$log" $?
done

for script in "$TOP"/tests/t[0-9]*.sh; do
    [ -f "$script" ] || continue
    name=$(basename "$script" .sh)
    log="$LOG_DIR/$name.log"
    (cd "$TOP" && timeout 900 sh "$script") >"$log" 2>&1
    count_tap "$name" "$log" $?
done

[ -n "$failures" ] && echo "failed:$failures"
if [ "$skipped" -gt 0 ]; then
    echo "$passed passed, $failed failed, $skipped skipped"
else
    echo "$passed passed, $failed failed"
fi
[ "$failed" -eq 0 ]
