# Story-test library, after git's t/test-lib.sh: each script tells what a user does and
# checks what they see. Source it from tests/tNNNN-*.sh, then call
#   test_expect_success 'what the user expects' 'shell commands'
#   test_skip 'why' 'what would have been checked'
#   test_done
# Output is TAP ("ok 1 - ...", "not ok 2 - ..."), counted by tests/run.sh.
# Each test runs in a fresh scratch directory, $TRASH/N, removed at the end.
#
# Writing a story body (POSIX sh; `sh` is dash on Debian):
#   * A test passes when its body's exit status is 0. Join EVERY command with && so that any
#     failing command fails the test: `a; b` or a newline between them throws a's status away.
#     The chain linter (tests/chainlint.py, after git's chainlint) rejects a body with such a
#     break before running it; the test then fails with "broken &&-chain".
#   * A command that must exit with a given status: `test_expect_code 1 "$FRTRACE" dumps >out`
#     (fails unless exactly 1). A command that must fail (any status 1..125, not a crash by
#     signal, not 126/127): `test_must_fail cmd args`. Never `cmd; test $? = 1`.
#   * `! cmd` is for commands that answer a question (`! grep x out`), not for programs under
#     test: a crash is a failure too, and `!` would turn it into a pass — use test_must_fail.
#   * A loop fails on its first failing iteration only when its body says so:
#       for f in a b; do cmd "$f" || return 1; done
#     (the linter requires "|| return 1" or "|| exit 1" at the end of every loop body).
#   * Helper functions defined outside the bodies are not linted: write them so that their
#     status is the one that matters (end with the check, or `|| return 1` after each step).
#   * Diagnostics: anything the body prints goes to the log, shown under "not ok" (last 30
#     lines); FRTRACE_TEST_CHAIN_LINT=0 turns the linter off, for a quick experiment only;
#     FRTRACE_TEST_IMMEDIATE=1 stops a script at its first failing test;
#     FRTRACE_TEST_RUN=N[,M...] runs only those tests' bodies, by their number in the script
#     (git's --run): the others print "ok N # skip not selected", the numbering stays, and the
#     script's own set-up outside the bodies still runs. A test that reads what an earlier one
#     left in $TRASH fails alone (tests/mutation/run.sh checks a test passes alone before it
#     trusts a kill by it).

set -u
TOP=${FRTRACE_TOP:-$(cd "$(dirname "$0")/.." && pwd)}
. "$TOP/tests/paths.sh"
export TOP BUILD FRTRACE SHARED REAL_DUMPS SYNTH_DUMPS

test_count=0
test_failed=0
TRASH=$(mktemp -d "${TMPDIR:-/tmp}/frtrace-test.XXXXXX")
trap 'rm -rf "$TRASH"' EXIT
# fd 9: where test_expect_code and test_must_fail explain a failure, even when the body
# redirects the command's stderr (the test's log inside a test, the script's stderr outside).
exec 9>&2

have_shared() { [ -d "$SHARED/testdata" ]; }

# test_expect_code N CMD [ARGS...]: runs CMD, fails unless it exits with exactly N.
test_expect_code() {
    test_want_code_=$1
    shift
    "$@"
    test_got_code_=$?
    if [ "$test_got_code_" = "$test_want_code_" ]; then
        return 0
    fi
    echo "test_expect_code: exit status $test_got_code_, wanted $test_want_code_: $*" >&9
    return 1
}

# test_must_fail CMD [ARGS...]: runs CMD, fails unless it exits with 1..125 (not 0, not
# "not found"/"cannot run", not a death by signal, which the shell reports as 128 + N).
test_must_fail() {
    "$@"
    test_got_code_=$?
    if [ "$test_got_code_" = 0 ]; then
        echo "test_must_fail: command succeeded: $*" >&9
        return 1
    elif [ "$test_got_code_" -ge 126 ]; then
        echo "test_must_fail: exit status $test_got_code_ (not found, not runnable, or a signal): $*" >&9
        return 1
    fi
    return 0
}

# test_chain_lint_ BODY: 0 when every command of BODY is &&-chained (messages otherwise).
test_chain_lint_() {
    [ "${FRTRACE_TEST_CHAIN_LINT:-1}" = 0 ] && return 0
    if ! command -v python3 >/dev/null 2>&1; then
        echo "# chainlint skipped: no python3"
        return 0
    fi
    printf '%s\n' "$1" | python3 "$TOP/tests/chainlint.py"
}

# The body runs inside a function, so that "return 1" in it (and in its loops) ends the test.
test_eval_() {
    eval "$1"
}

test_expect_success() {
    desc=$1 body=$2
    test_count=$((test_count + 1))
    if ! test_selected_; then
        echo "ok $test_count # skip not selected (FRTRACE_TEST_RUN=$FRTRACE_TEST_RUN)"
        return 0
    fi
    dir="$TRASH/$test_count"
    mkdir -p "$dir"
    if ! test_chain_lint_ "$body" >"$dir.out" 2>&1; then
        echo "not ok $test_count - $desc"
        echo "# broken &&-chain (or a body the linter cannot read); the test was not run:"
        sed 's/^/# /' "$dir.out"
        test_failed=$((test_failed + 1))
        test_stop_if_immediate_
        return 0
    fi
    # Not "if (...)": the body's own status decides, read right after the subshell ends.
    (cd "$dir" && test_eval_ "$body") >>"$dir.out" 2>&1 9>&1 </dev/null
    test_status_=$?
    if [ "$test_status_" = 0 ]; then
        echo "ok $test_count - $desc"
    else
        echo "not ok $test_count - $desc"
        sed 's/^/# /' "$dir.out" | tail -n 30
        test_failed=$((test_failed + 1))
        test_stop_if_immediate_
    fi
}

# test_selected_: whether the current test is one FRTRACE_TEST_RUN names (every test when unset
# or empty): "3" or "3,17", numbers separated by commas.
test_selected_() {
    case ",${FRTRACE_TEST_RUN:-$test_count}," in
        *",$test_count,"*) return 0 ;;
    esac
    return 1
}

# FRTRACE_TEST_IMMEDIATE=1: the script stops at its first failing test (tests/mutation/run.sh).
test_stop_if_immediate_() {
    if [ "${FRTRACE_TEST_IMMEDIATE:-0}" = 1 ]; then
        test_done
        exit 1
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
