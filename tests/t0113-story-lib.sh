#!/bin/sh
# A developer who changed one thing reruns only the test of a story that shows it, as git's t/
# does with --run: FRTRACE_TEST_RUN=N[,M...] runs only those tests' bodies, numbered as in the
# whole story, and FRTRACE_TEST_IMMEDIATE=1 stops a story at its first failure (tests/lib.sh).
# The mutation run (tests/mutation/run.sh) tries the one test that killed a mutant last time
# this way, so a story that ignored the selection would cost it the whole story again.
. "$(dirname "$0")/lib.sh"

# three_tests: ./three.sh, a story of three tests, the second failing, with a set-up line. The
# variables this story runs with (the mutation run's FRTRACE_TEST_IMMEDIATE=1, FRTRACE_TEST_RUN)
# are not three.sh's: each run of it below sets both.
three_tests() {
    printf '%s\n' "FRTRACE_TOP=\$TOP" ". \"\$TOP/tests/lib.sh\"" "echo set-up ran" \
        "test_expect_success one true" "test_expect_success two false" \
        "test_expect_success three true" test_done >three.sh
}

test_expect_success 'FRTRACE_TEST_RUN runs only the tests it names, numbered as in the story' '
    three_tests &&
    env FRTRACE_TEST_IMMEDIATE=0 FRTRACE_TEST_RUN=3 sh three.sh >out &&
    grep -q "^set-up ran$" out &&
    grep -q "^ok 1 # skip not selected" out && grep -q "^ok 2 # skip not selected" out &&
    grep -q "^ok 3 - three$" out && grep -q "^1\.\.3$" out &&
    test_expect_code 1 env FRTRACE_TEST_IMMEDIATE=0 FRTRACE_TEST_RUN=1,2 sh three.sh >out &&
    grep -q "^ok 1 - one$" out && grep -q "^not ok 2 - two$" out &&
    grep -q "^ok 3 # skip not selected" out
'

test_expect_success 'unset or empty, FRTRACE_TEST_RUN runs every test' '
    three_tests &&
    test_expect_code 1 env FRTRACE_TEST_IMMEDIATE=0 FRTRACE_TEST_RUN= sh three.sh >out &&
    grep -q "^ok 1 - one$" out && grep -q "^ok 3 - three$" out &&
    test_expect_code 1 env -u FRTRACE_TEST_RUN -u FRTRACE_TEST_IMMEDIATE sh three.sh >out &&
    grep -q "^ok 1 - one$" out && grep -q "^ok 3 - three$" out
'

test_expect_success 'FRTRACE_TEST_IMMEDIATE=1 stops the story at its first failing test' '
    three_tests &&
    test_expect_code 1 env FRTRACE_TEST_IMMEDIATE=1 FRTRACE_TEST_RUN= sh three.sh >out &&
    grep -q "^not ok 2 - two$" out && ! grep -q "three" out
'

test_done
