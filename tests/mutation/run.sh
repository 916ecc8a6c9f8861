#!/bin/sh
# tests/mutation/run.sh [ID...] — mutation testing: does the suite notice small wrong changes?
# (`make mutation`; not part of `make check`: it takes a while.)
#
# Keeps a scratch tree, build/mutation/tree, a copy of the working tree (git's tracked and
# untracked, non-ignored files) — the working files are never touched. Each run brings the copy
# up to date, copying only the files that changed since the last run (mutate.py sync), so that
# its incremental build recompiles only what they feed; then it checks that every mutant applies
# and compiles (mutate.py check --compile: a stillborn mutant shows in a minute, not hours in),
# builds, and runs the tests as a baseline, timing each (build/mutation/cost); a test that
# passed in an earlier run's baseline is not run again while no source but the mutant list
# changed since (build/mutation/passed: the same sources, the same build). Then, for each mutant of
# tests/mutation/mutants.txt (or only the IDs given), taken file by file (the next build then
# recompiles one file, not two): applies its one textual substitution to the scratch copy of its
# file, rebuilds, and runs its tests until one fails:
#   * first the test that killed this mutant in an earlier run (build/mutation/killers, kept
#     between runs; else tests/mutation/killers.txt, the same list as committed after a full
#     run, so that a fresh checkout starts with the hints), when there is one: a mutant that
#     stays killed costs one test; a unit test binary named so is built alone and run before
#     the full build (quick_kill: one object, one link, one test). For a story the hint names
#     the test in it that failed first,
#     "t0200:17", and only that test runs first (FRTRACE_TEST_RUN=17, tests/lib.sh), not the
#     story from its test 1; a kill by it counts only when that test passes alone on the
#     unmutated tree (it may need an earlier test's files), which the baseline checks once per
#     hint, remembered with the baseline's (build/mutation/alone; a test 1 needs no check: alone
#     it runs as in the story). Where it does not pass alone, or does not kill the mutant, the
#     whole story runs next, as for a hint that names only the story ("t0200", as older lists
#     have it);
#   * then the rest, fastest first by the baseline's times: the unit test binaries and the
#     story scripts that exercise the file (listed in mutants.txt by number, t0200 for
#     tests/t0200-*.sh; each story stops at its first failing test, with a timeout). A unit test
#     binary that the mutant's build left byte for byte as the baseline's (a static library's
#     object it does not link changed) passed there and is not run again, for a mutant of C
#     code; every other test runs: a survivor has passed every test that can see it.
# It prints
#   KILLED   ID FILE by TEST        a test failed (or timed out): the suite bites
#   SURVIVED ID FILE                every test passed: a test is missing (or the mutant is
#                                   equivalent, marked so in mutants.txt with the reason)
#   STILLBORN ID FILE               the mutant does not compile or apply (fix the list)
# with the seconds it took, restores the file, and at the end the kill rate. Logs:
# build/mutation/logs/ID.log. The verdicts are those of running every test in list order; only
# the order and the time differ (MUTATION_FULL=1 drops the hints, the binary comparison and the
# earlier baselines, to measure that). MUTANTS=FILE uses another list; MUTATION_TIMEOUT (s, default 600) bounds each
# test run. Exit status 1 when a mutant survived that is not marked equivalent, or one was
# stillborn.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
LIST=${MUTANTS:-$TOP/tests/mutation/mutants.txt}
MUT="$TOP/build/mutation"
TREE="$MUT/tree"
LOGS="$MUT/logs"
KILLERS="$MUT/killers" # ID<TAB>TEST (tNNNN:N in a story): what killed each mutant last time
KNOWN="$TOP/tests/mutation/killers.txt" # the same, committed: the hints of a fresh checkout
PASSED="$MUT/passed"   # the tests the tree passed unmutated, since its sources last changed
ALONE="$MUT/alone"     # tNNNN:N<TAB>pass|fail: that story's test N alone on the same tree
TIMEOUT=${MUTATION_TIMEOUT:-600}
FULL=${MUTATION_FULL:-0}
MUTATE="python3 $TOP/tests/mutation/mutate.py"
TAB=$(printf '\t')

ids=$($MUTATE list "$LIST" "$@" | cut -f1) || exit 2
[ -n "$ids" ] || { echo "no mutants in $LIST"; exit 2; }

# --- the scratch tree ------------------------------------------------------------------------
rm -rf "$LOGS" "$MUT/orig" # orig: a file as this run found it, restored after each mutant
mkdir -p "$TREE" "$LOGS" "$MUT/orig"
touch "$KILLERS" "$PASSED" "$ALONE"
if git -C "$TOP" rev-parse --git-dir >/dev/null 2>&1; then
    if [ -f "$TREE/Makefile" ]; then # a tree of an earlier run: copy what changed since
        (cd "$TOP" && git ls-files -z --cached --others --exclude-standard) |
            $MUTATE sync "$TOP" "$TREE" >"$LOGS/sync.log" 2>&1 || { cat "$LOGS/sync.log"; exit 2; }
        # a changed source (not the mutant list, which no test reads) is judged again
        grep -E "^(copied|removed) " "$LOGS/sync.log" | grep -qv " tests/mutation/" &&
            : >"$PASSED"
    else
        : >"$PASSED"
        (cd "$TOP" && git ls-files -z --cached --others --exclude-standard |
            tar --null --ignore-failed-read -T - -cf -) | (cd "$TREE" && tar -xf -) || exit 2
    fi
else
    : >"$PASSED"
    rm -rf "$TREE" && mkdir -p "$TREE" &&
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

# quick_kill HINT LOG: where the hint is a unit test binary (test_*), builds that binary alone (its
# libraries and itself, not the CLI and the other thirty test binaries) and runs it; status 0 and
# the hint printed when it fails (the mutant is killed, and no full build is needed: most kills
# cost one object, one link and one test). A build that fails, or a test that passes, falls
# through to the full build and the tests in order, as without the hint.
quick_kill() {
    case $1 in test_*) ;; *) return 1 ;; esac
    [ "$FULL" = 1 ] && return 1
    (cd "$TREE" && env -u MAKEFLAGS -u MAKELEVEL make -j2 FUZZ_CC=no-fuzzer-here \
        "build/tests/$1") >"$2.quick-build" 2>&1 || return 1
    from=$(wc -l <"$2")
    run_one "$1" "$2" && return 1
    killer "$1" "$2" "$from"
}

now_ms() { date +%s%3N; }

units() {
    for prog in "$TREE"/build/tests/test_*; do
        case $prog in *.d) continue ;; esac
        [ -x "$prog" ] && basename "$prog"
    done
}

# sums FILE: the unit test binaries' checksums, one "SUM  build/tests/NAME" a line.
sums() { (cd "$TREE" && sha1sum $(units | sed 's|^|build/tests/|')) >"$1"; }

# run_one TEST LOG: runs a unit test binary (test_*), a story (tNNNN) or one test of a story
# (tNNNN:N, FRTRACE_TEST_RUN=N); status 0 when it passed.
run_one() {
    echo "== $1" >>"$2"
    case $1 in
        test_*) (cd "$TREE" && CMOCKA_MESSAGE_OUTPUT=TAP timeout "$TIMEOUT" "build/tests/$1") \
            >>"$2" 2>&1 ;;
        *)  script=$(ls "$TREE/tests/${1%%:*}"*.sh 2>/dev/null | head -n 1)
            only=""
            case $1 in *:*) only=${1#*:} ;; esac
            [ -n "$script" ] && (cd "$TREE" && FRTRACE_TOP="$TREE" FRTRACE_TEST_IMMEDIATE=1 \
                FRTRACE_TEST_RUN="$only" BUILD=build timeout "$TIMEOUT" sh "$script") \
                >>"$2" 2>&1 ;;
    esac
}

# killer TEST LOG FROM: the name a failing TEST goes by in the killers file: for a story, with the
# number of its first "not ok" in LOG after line FROM ("t0200:17"), where it has one.
killer() {
    case $1 in
        test_* | *:*) echo "$1" ;;
        *)  n=$(tail -n "+$(($3 + 1))" "$2" | sed -n 's/^not ok \([0-9][0-9]*\) .*/\1/p' |
                head -n 1)
            echo "$1${n:+:$n}" ;;
    esac
}

# alone_ok tNNNN:N: whether the baseline saw that test pass alone (a test 1 always does: alone it
# runs as it ran in the story, which passed the baseline).
alone_ok() {
    case $1 in *:1) return 0 ;; esac
    grep -qx "$1${TAB}pass" "$ALONE"
}

# by_cost TEST...: the tests, fastest first by the baseline's times ($MUT/cost), one a line.
by_cost() {
    for t in "$@"; do
        ms=$(awk -F "$TAB" -v t="$t" '$1 == t { print $2 }' "$MUT/cost")
        printf '%s\t%s\n' "${ms:-0}" "$t"
    done | sort -n -s -k1,1 | cut -f2
}

# run_tests TESTS HINT LOG: runs the hint (when one of TESTS; a story's test "tNNNN:N" alone
# first when it passed alone on the baseline, then its whole story), then the rest fastest
# first; prints the first failing test's name (nothing when all pass), "tNNNN:N" for a story.
run_tests() {
    tests=$1 hint=$2 log=$3 ran=" "
    case $hint in
        *:*) if alone_ok "$hint"; then hint="$hint ${hint%%:*}"; else hint=${hint%%:*}; fi ;;
    esac
    for t in $hint $(by_cost $tests); do
        case " $tests " in *" ${t%%:*} "*) ;; *) continue ;; esac
        case $ran in *" $t "*) continue ;; esac
        ran="$ran$t "
        from=$(wc -l <"$log")
        if ! run_one "$t" "$log"; then
            killer "$t" "$log" "$from"
            return
        fi
    done
}

# unit_tests FILE: the unit test binaries a mutant of FILE must run: for C code, those whose
# build differs from the baseline's (an unchanged binary passed the baseline); else all.
unit_tests() {
    case $FULL:$1 in
        0:*.c | 0:*.h)
            sums "$MUT/mutant.sums"
            diff "$MUT/baseline.sums" "$MUT/mutant.sums" | sed -n 's|^> .*build/tests/||p' ;;
        *) units ;;
    esac
}

# hint_of ID: the test that killed the mutant last time (build/mutation/killers, else the
# committed tests/mutation/killers.txt); nothing with MUTATION_FULL=1. Status 0 always.
hint_of() {
    [ "$FULL" = 1 ] && return 0
    h=$(awk -F "$TAB" -v id="$1" '$1 == id { print $2 }' "$KILLERS" | tail -n 1)
    [ -z "$h" ] && [ -f "$KNOWN" ] && h=$(awk -F "$TAB" -v id="$1" '$1 == id { print $2 }' "$KNOWN")
    echo "$h"
}

# record_killer ID TEST: remembers what killed the mutant (TEST empty: nothing did).
record_killer() {
    grep -v "^$1$TAB" "$KILLERS" >"$KILLERS.new"
    [ -n "$2" ] && printf '%s\t%s\n' "$1" "$2" >>"$KILLERS.new"
    mv "$KILLERS.new" "$KILLERS"
}

echo "== mutation testing in $TREE"
# the mutants that do not apply or compile: stillborn, no build needed to tell
$MUTATE check --compile "$LIST" "$TREE" $ids >"$LOGS/check.log" 2>&1
grep "^[^ ]*: " "$LOGS/check.log" >"$MUT/stale"
if ! build "$LOGS/baseline-build.log"; then
    echo "the unmutated tree does not build: $LOGS/baseline-build.log"
    exit 2
fi
sums "$MUT/baseline.sums"
all_scripts=$($MUTATE list "$LIST" "$@" | cut -f3 | tr ' ' '\n' | sort -u | tr '\n' ' ')
[ "$FULL" = 1 ] && : >"$PASSED"
[ -s "$PASSED" ] || : >"$ALONE" # the sources changed (or none passed yet): judged again
touch "$MUT/cost"
for t in $(units) $all_scripts; do
    grep -qx "$t" "$PASSED" && continue # passed on these very sources in an earlier run
    start=$(now_ms)
    if ! run_one "$t" "$LOGS/baseline.log"; then
        echo "the unmutated tree fails $t (log: $LOGS/baseline.log): no mutant can be judged"
        exit 2
    fi
    ms=$(($(now_ms) - start))
    grep -v "^$t$TAB" "$MUT/cost" >"$MUT/cost.new"
    printf '%s\t%s\n' "$t" "$ms" >>"$MUT/cost.new" && mv "$MUT/cost.new" "$MUT/cost"
    echo "$t" >>"$PASSED"
done
echo "== baseline: the unit tests and $all_scripts pass"
# The stories' tests that the hints name alone ("t0200:17"): does each pass alone here? Once per
# hint while the sources stay the same (build/mutation/alone, emptied with build/mutation/passed).
for id in $([ "$FULL" = 1 ] || echo "$ids"); do
    awk -F "$TAB" -v id="$id" '$1 == id { print $2 }' "$KILLERS" | tail -n 1
    [ -f "$KNOWN" ] && awk -F "$TAB" -v id="$id" '$1 == id { print $2 }' "$KNOWN"
done | grep "^t[0-9]*:[0-9][0-9]*$" | grep -v ":1$" | sort -u | while read -r t; do
    case " $all_scripts " in *" ${t%%:*} "*) ;; *) continue ;; esac # a story this run uses
    grep -q "^$t$TAB" "$ALONE" && continue
    if run_one "$t" "$LOGS/alone.log" </dev/null; then r=pass; else r=fail; fi
    printf '%s\t%s\n' "$t" "$r" >>"$ALONE"
    echo "== $t alone on the unmutated tree: $r"
done

total=0 killed=0 survived=0 equivalent=0 stillborn=0
survivors=""
# file by file (a stable sort: the list's order within a file)
# (an empty field written "-": read splits at runs of tabs, so that an empty list of stories
# would hand the note to $scripts)
$MUTATE list "$LIST" "$@" | sort -s -t "$TAB" -k2,2 |
    awk -F "$TAB" -v OFS="$TAB" '{ for (i = 1; i <= 4; i++) if ($i == "") $i = "-"; print }' \
        >"$MUT/mutants.tsv"
while IFS="$TAB" read -r id file scripts note; do
    [ "$scripts" = "-" ] && scripts=""
    [ "$note" = "-" ] && note=""
    total=$((total + 1))
    start=$(now_ms)
    log="$LOGS/$id.log"
    mkdir -p "$MUT/orig/$(dirname "$file")"
    [ -f "$MUT/orig/$file" ] || cp -p "$TREE/$file" "$MUT/orig/$file"
    if grep "^$id: " "$MUT/stale" >"$log"; then
        result="STILLBORN"
        stillborn=$((stillborn + 1))
        by="($(cut -c1-120 "$log"))"
    elif ! $MUTATE apply "$LIST" "$id" "$TREE" >"$log" 2>&1; then
        result="STILLBORN"
        stillborn=$((stillborn + 1))
        by="($(tail -n 1 "$log"))"
    elif hint=$(hint_of "$id") && by=$(quick_kill "$hint" "$log" </dev/null); then
        record_killer "$id" "$by"
        result="KILLED"
        killed=$((killed + 1))
        by="by $by"
    elif ! build "$log.build" </dev/null; then
        result="STILLBORN"
        stillborn=$((stillborn + 1))
        by="(does not compile: $log.build)"
    else
        by=$(run_tests "$(unit_tests "$file" | tr '\n' ' ')$scripts" "$hint" "$log" </dev/null)
        record_killer "$id" "$by"
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
    printf '%-9s %-5s %-26s %4ds %s\n' "$result" "$id" "$file" $((($(now_ms) - start) / 1000)) "$by"
done <"$MUT/mutants.tsv"

judged=$((killed + survived))
echo "== $total mutants: $killed killed, $survived survived ($equivalent marked equivalent), $stillborn stillborn"
if [ "$judged" -gt 0 ]; then
    echo "== kill rate $killed/$judged = $((100 * killed / judged))%; without the equivalent ones $killed/$((judged - equivalent)) = $((100 * killed / (judged - equivalent > 0 ? judged - equivalent : 1)))%"
fi
[ -n "$survivors" ] && echo "== survivors needing a test:$survivors"
echo "== the killers are in $KILLERS; after a full run, commit them as tests/mutation/killers.txt"
[ -z "$survivors" ] && [ "$stillborn" -eq 0 ]
