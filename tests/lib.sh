# Story-test library, after git's t/test-lib.sh: each script tells what a user does and
# checks what they see. Source it from tests/tNNNN-*.sh, then call
#   test_expect_success 'what the user expects' 'shell commands'
#   test_skip 'why' 'what would have been checked'
#   test_done
# Output is TAP ("ok 1 - ...", "not ok 2 - ..."), counted by tests/run.sh.
# Each test runs in a fresh scratch directory, $TRASH, removed at the end.

set -u
TOP=${FRTRACE_TOP:-$(cd "$(dirname "$0")/.." && pwd)}
BUILD=${BUILD:-build}
FRTRACE="$TOP/$BUILD/frtrace"
SHARED="$TOP/../shared"
REAL_DUMPS="$SHARED/testdata/torch-fr-2.9-nvrx"
SYNTH_DUMPS="$SHARED/testdata/torch-fr-synthetic"
export TOP BUILD FRTRACE SHARED REAL_DUMPS SYNTH_DUMPS

test_count=0
test_failed=0
TRASH=$(mktemp -d "${TMPDIR:-/tmp}/frtrace-test.XXXXXX")
trap 'rm -rf "$TRASH"' EXIT

have_shared() { [ -d "$SHARED/testdata" ]; }

test_expect_success() {
    desc=$1 body=$2
    test_count=$((test_count + 1))
    dir="$TRASH/$test_count"
    mkdir -p "$dir"
    if (cd "$dir" && set -e && eval "$body") >"$dir.out" 2>&1; then
        echo "ok $test_count - $desc"
    else
        echo "not ok $test_count - $desc"
        sed 's/^/# /' "$dir.out" | tail -n 30
        test_failed=$((test_failed + 1))
    fi
}

test_skip() {
    test_count=$((test_count + 1))
    echo "ok $test_count # skip $2 ($1)"
}

test_done() {
    echo "1..$test_count"
    [ "$test_failed" -eq 0 ]
}
