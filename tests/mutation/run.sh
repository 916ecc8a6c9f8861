#!/bin/sh
# tests/mutation/run.sh [ID...] — mutation testing: does the suite notice small wrong changes?
# (`make mutation`; not part of `make check`: it takes a while.)
#
# Copies the working tree (git's tracked and untracked, non-ignored files) into a scratch
# tree, build/mutation/tree — the working files are never touched — builds it once and runs
# the tests there as a baseline. Then, for each mutant of tests/mutation/mutants.txt (or only
# the IDs given): applies its one textual substitution to the scratch copy of its file,
# rebuilds, runs every unit test and the story scripts that exercise the file (listed in
# mutants.txt by number, t0200 for tests/t0200-*.sh; each stops at its first failing test,
# with a timeout), prints
#   KILLED   ID FILE by TEST        a test failed (or timed out): the suite bites
#   SURVIVED ID FILE                every test passed: a test is missing (or the mutant is
#                                   equivalent, marked so in mutants.txt with the reason)
#   STILLBORN ID FILE               the mutant does not compile or apply (fix the list)
# restores the file, and at the end the kill rate. Logs: build/mutation/logs/ID.log.
# MUTANTS=FILE uses another list; MUTATION_TIMEOUT (s, default 600) bounds each test run.
# Exit status 1 when a mutant survived that is not marked equivalent, or one was stillborn.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
LIST=${MUTANTS:-$TOP/tests/mutation/mutants.txt}
MUT="$TOP/build/mutation"
TREE="$MUT/tree"
LOGS="$MUT/logs"
TIMEOUT=${MUTATION_TIMEOUT:-600}
MUTATE="python3 $TOP/tests/mutation/mutate.py"

ids=$($MUTATE list "$LIST" "$@" | cut -f1) || exit 2
[ -n "$ids" ] || { echo "no mutants in $LIST"; exit 2; }

# --- the scratch tree ----------------------------------------------------------------------
rm -rf "$TREE" "$LOGS" "$MUT/orig" # orig: a file as this run found it, restored after each mutant
mkdir -p "$TREE" "$LOGS" "$MUT/orig"
if git -C "$TOP" rev-parse --git-dir >/dev/null 2>&1; then
    (cd "$TOP" && git ls-files -z --cached --others --exclude-standard |
        tar --null --ignore-failed-read -T - -cf -) | (cd "$TREE" && tar -xf -) || exit 2
else
    (cd "$TOP" && tar --exclude=./build --exclude=./build-san --exclude=./build-tsan \
        --exclude=./build-fuzz -cf - .) | (cd "$TREE" && tar -xf -) || exit 2
fi
# The stories find the real dumps at $TOP/../shared: here build/mutation/shared.
rm -f "$MUT/shared"
[ -d "$TOP/../shared" ] && ln -s "$(cd "$TOP/.." && pwd)/shared" "$MUT/shared"

# build: the CLI, the unit tests and the tools the stories use; no fuzzers (their own story,
# t0102, is not a mutation test and they take long to link).
build() {
    # two makes, as `make check` does: `all` re-enters make, which must not race build-tests
    (cd "$TREE" && env -u MAKEFLAGS -u MAKELEVEL make -j2 FUZZ_CC=no-fuzzer-here all &&
        env -u MAKEFLAGS -u MAKELEVEL make -j2 FUZZ_CC=no-fuzzer-here build-tests) >"$1" 2>&1
}

# run_tests SCRIPTS LOG: prints the first failing test's name (nothing when all pass).
run_tests() {
    scripts=$1 log=$2
    for prog in "$TREE"/build/tests/test_*; do
        case $prog in *.d) continue ;; esac
        [ -x "$prog" ] || continue
        name=$(basename "$prog")
        echo "== $name" >>"$log"
        if ! (cd "$TREE" && CMOCKA_MESSAGE_OUTPUT=TAP timeout "$TIMEOUT" "$prog") >>"$log" 2>&1; then
            echo "$name"
            return
        fi
    done
    for s in $scripts; do
        echo "== $s" >>"$log"
        script=$(ls "$TREE/tests/$s"*.sh 2>/dev/null | head -n 1)
        if [ -z "$script" ] || ! (cd "$TREE" && FRTRACE_TOP="$TREE" FRTRACE_TEST_IMMEDIATE=1 BUILD=build \
                timeout "$TIMEOUT" sh "$script") >>"$log" 2>&1; then
            echo "$s"
            return
        fi
    done
}

echo "== mutation testing in $TREE"
if ! build "$LOGS/baseline-build.log"; then
    echo "the unmutated tree does not build: $LOGS/baseline-build.log"
    exit 2
fi
all_scripts=$($MUTATE list "$LIST" "$@" | cut -f3 | tr ' ' '\n' | sort -u | tr '\n' ' ')
failed=$(run_tests "$all_scripts" "$LOGS/baseline.log")
if [ -n "$failed" ]; then
    echo "the unmutated tree fails $failed (log: $LOGS/baseline.log): no mutant can be judged"
    exit 2
fi
echo "== baseline: the unit tests and $all_scripts pass"

total=0 killed=0 survived=0 equivalent=0 stillborn=0
survivors=""
TAB=$(printf '\t')
$MUTATE list "$LIST" "$@" >"$MUT/mutants.tsv"
while IFS="$TAB" read -r id file scripts note; do
    total=$((total + 1))
    log="$LOGS/$id.log"
    mkdir -p "$MUT/orig/$(dirname "$file")"
    [ -f "$MUT/orig/$file" ] || cp -p "$TREE/$file" "$MUT/orig/$file"
    if ! $MUTATE apply "$LIST" "$id" "$TREE" >"$log" 2>&1; then
        result="STILLBORN"
        stillborn=$((stillborn + 1))
        by="($(tail -n 1 "$log"))"
    elif ! build "$log.build" </dev/null; then
        result="STILLBORN"
        stillborn=$((stillborn + 1))
        by="(does not compile: $log.build)"
    else
        by=$(run_tests "$scripts" "$log" </dev/null)
        if [ -n "$by" ]; then
            result="KILLED"
            killed=$((killed + 1))
            by="by $by"
        else
            result="SURVIVED"
            survived=$((survived + 1))
            case $note in
                equivalent:*) equivalent=$((equivalent + 1)); by="($note)" ;;
                *) survivors="$survivors $id"; by="" ;;
            esac
        fi
    fi
    cp -p "$MUT/orig/$file" "$TREE/$file"
    touch "$TREE/$file"   # newer than the mutant's object: the next build recompiles it
    printf '%-9s %-5s %-26s %s\n' "$result" "$id" "$file" "$by"
done <"$MUT/mutants.tsv"

judged=$((killed + survived))
echo "== $total mutants: $killed killed, $survived survived ($equivalent marked equivalent), $stillborn stillborn"
if [ "$judged" -gt 0 ]; then
    echo "== kill rate $killed/$judged = $((100 * killed / judged))%; without the equivalent ones $killed/$((judged - equivalent)) = $((100 * killed / (judged - equivalent > 0 ? judged - equivalent : 1)))%"
fi
[ -n "$survivors" ] && echo "== survivors needing a test:$survivors"
[ -z "$survivors" ] && [ "$stillborn" -eq 0 ]
