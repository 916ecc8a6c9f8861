#!/bin/sh
# Hostile directories (issue 14): a copy of a real 16-rank hang (lock_gil_1st, culprits 9 and 14)
# with one thing changed — symlink loops, a FIFO or /dev/zero or a directory named like a dump,
# a 2 GB sparse file, a group of a million ranks, memo bombs, numbers that cannot be ranks, pickle
# length fields that lie. The user runs frtrace on it and expects an answer within 10 s and 1 GB,
# exit 0, 1 or 2, a message on stderr that names the odd file, and the real culprits still named.
# The directories are made here by tests/tools/hostile_dirs.py; nothing big is committed.
. "$(dirname "$0")/lib.sh"

SRC="$REAL_DUMPS/lock_gil_1st"
MAKE_DIR="$TOP/tests/tools/hostile_dirs.py"

# run_bounded CASE [ARGS...]: makes the case's directory, runs frtrace on it under 1 GB of
# address space and 10 s; out, err and status hold what the user sees. Under AddressSanitizer
# (SANITIZE=1), which reserves terabytes of address space for its shadow and runs several times
# slower, the bounds are 60 s and no address-space limit.
LIMIT_KB=1048576 LIMIT_S=10
[ "${SANITIZE:-}" = 1 ] && LIMIT_KB=unlimited LIMIT_S=60
run_bounded() {
    case_name=$1
    shift
    python3 "$MAKE_DIR" "$SRC" "$case_name" "$case_name" || return 1
    status=0
    (ulimit -v "$LIMIT_KB" && exec timeout "$LIMIT_S" "$FRTRACE" "$@" "$case_name") >out 2>err ||
        status=$?
    echo "$case_name: exit $status"
    head -n 3 err
    case $status in 0|1|2) ;; *) echo "exit $status: killed, timed out or crashed"; return 1 ;; esac
}

# culprits_named: the status line names 9 and 14 among the culprits.
culprits_named() {
    grep -Eq "^status: hang +culprit ranks: ([0-9,-]*,)?9,14(,[0-9,-]*)? " out || {
        echo "culprits 9,14 not named:"; head -n 3 out; return 1; }
}

# leads_with_culprits: the title names 9 and 14 first.
leads_with_culprits() {
    head -n 1 out | grep -q "^hang: ranks 9,14 never joined" || {
        echo "title: $(head -n 1 out)"; return 1; }
}

# unreadable_rank3 WHAT: rank 3 is unreadable (WHAT), never "wrote no dump", and no culprit: what
# its peers have pending with it is queued behind their waits on 9 and 14 (a rank waits in its
# oldest pending operation), so nothing they wait for depends on it, and the report says so.
unreadable_rank3() {
    test "$status" = 1 && leads_with_culprits && culprits_named &&
    grep -q "^frtrace: $case_name/_dump_3: not a regular file but $1; rank 3.s dump is unreadable" err &&
    head -n 1 out | grep -q "; rank 3 left an unreadable dump$" &&
    grep -q "no readable dump from rank 3 (group members); nothing the others wait for" out &&
    ! grep -q "wrote no dump" out && grep -q "^status: hang   culprit ranks: 9,14 " out
}

if ! have_shared || ! [ -d "$SRC" ]; then
    test_skip 'no ../shared' 'hostile directories made from lock_gil_1st'
    test_done
    exit
fi
if ! command -v python3 >/dev/null 2>&1; then
    test_skip 'no python3' 'hostile directories'
    test_done
    exit
fi

test_expect_success 'two links to . are each reported once as a loop, not walked 2^64 times' '
    run_bounded two-links &&
    test "$status" = 1 && culprits_named && leads_with_culprits &&
    loop="a symbolic link to a directory already walked (a loop); not followed" &&
    grep -q "^frtrace: two-links/a: $loop$" err && grep -q "^frtrace: two-links/b: $loop$" err &&
    test "$(wc -l <err)" = 2
'

test_expect_success 'one link to . gives one loop message, not 640 "second dump" warnings' '
    run_bounded one-link &&
    test "$status" = 1 && culprits_named &&
    test "$(grep -c "already walked" err)" = 1 && ! grep -q "second dump" err
'

test_expect_success 'sub/up -> .. and here -> . are walked once each' '
    run_bounded up-link &&
    test "$status" = 1 && culprits_named &&
    grep -q "^frtrace: up-link/here: a symbolic link to a directory already walked" err &&
    grep -q "^frtrace: up-link/sub/up: a symbolic link to a directory already walked" err &&
    test "$(wc -l <err)" = 2
'

test_expect_success 'a FIFO named _dump_3 is never opened: rank 3 is unreadable, not absent' '
    run_bounded fifo -o db.json &&
    unreadable_rank3 "a FIFO" &&
    grep -q "\"kind\":\"rejected_file\"" db.json && grep -q "\"culprit_ranks\":\[9,14\]" db.json &&
    ! grep -q "\"what\":\"no_dump\"" db.json
'

test_expect_success 'a link to /dev/zero named _dump_3 is never read' '
    run_bounded dev-zero && unreadable_rank3 "a symbolic link to a character device"
'

test_expect_success 'a directory named _dump_3 is said to be one' '
    run_bounded directory && unreadable_rank3 "a directory"
'

test_expect_success 'a dangling link named _dump_3 is said to be one' '
    run_bounded dangling && unreadable_rank3 "a dangling symbolic link"
'

test_expect_success 'a 2 GB sparse _dump_3 is refused by its size before a byte is read' '
    run_bounded sparse-2g &&
    test "$status" = 1 && culprits_named && leads_with_culprits &&
    too_big="2147483648 bytes, larger than any dump can be (603979776; FRTRACE_MAX_DUMP_BYTES" &&
    grep -q "^frtrace: sparse-2g/_dump_3: $too_big" err
'

test_expect_success 'FRTRACE_MAX_DUMP_BYTES lowers the bound (and names it)' '
    python3 "$MAKE_DIR" "$SRC" small one-link &&
    test_expect_code 2 env FRTRACE_MAX_DUMP_BYTES=1K "$FRTRACE" small >out 2>err &&
    grep -q "^frtrace: small/_dump_0: 3444 bytes, larger than any dump can be (1024;" err
'

test_expect_success 'one dump listing 200 000 ranks in the default group: fast, and that file is named' '
    run_bounded group-200k &&
    test "$status" = 1 && culprits_named && leads_with_culprits &&
    grep -q "^frtrace: group-200k/_dump_3: pg_config\[\"0\"\] lists 200000 ranks, where 15 other" err &&
    ! grep -q "(rank  waits in  )" out
'

test_expect_success 'one dump sharing a 1 000 000-rank list among its 13 groups is refused, named' '
    run_bounded groups-1m -o db.json &&
    test "$status" = 1 && culprits_named && leads_with_culprits &&
    grep -q "^frtrace: groups-1m/_dump_3: pg_config lists 13000000 group memberships in 7892" err &&
    test "$(wc -c <db.json)" -lt 1000000
'

test_expect_success '100 000 memo references to one list in input_sizes are refused as hostile' '
    run_bounded memo-sizes -o db.json &&
    test "$status" = 1 && culprits_named && leads_with_culprits &&
    grep -q "^frtrace: memo-sizes/_dump_3: memo sharing expands this 206565-byte pickle" err &&
    test "$(wc -c <db.json)" -lt 1000000
'

test_expect_success 'a million memo references to one entry in every dump are refused: ten named, the rest counted' '
    run_bounded memo-entries &&
    test "$status" = 1 &&
    test "$(grep -c "^frtrace: memo-entries/_dump_[0-9]*: memo sharing expands" err)" = 10 &&
    grep -q "^frtrace: \.\.\. and 4 more files not read" err && # the first 10 named, then counted
    grep -q "^inconclusive: " out
'

test_expect_success 'a rank of 4294967295 or -5 in a group is refused, naming the file' '
    run_bounded rank-4294967295 &&
    test "$status" = 1 && culprits_named && leads_with_culprits &&
    not_rank="which cannot be a rank (0 to 2147483647)" &&
    grep -q "^frtrace: rank-4294967295/_dump_3: pg_config\[\"0\"\]: \"ranks\" lists 4294967295, $not_rank" err &&
    ! grep -q "rank 4294967295" out &&
    run_bounded rank-negative &&
    test "$status" = 1 && culprits_named &&
    grep -q "^frtrace: rank-negative/_dump_3: pg_config\[\"0\"\]: \"ranks\" lists -5, $not_rank" err
'

test_expect_success 'FRAME lengths beyond the file are truncation, as in Python' '
    run_bounded frame-1e9 &&
    test "$status" = 1 && culprits_named && leads_with_culprits &&
    grep -q "^frtrace: frame-1e9/_dump_3: truncated pickle at byte 3455 (FRAME at byte 2 needs 999996556" err &&
    run_bounded frame-max &&
    test "$status" = 1 && culprits_named &&
    grep -q "^frtrace: frame-max/_dump_3: truncated pickle at byte 3455 (FRAME at byte 2 needs 1844674407" err
'

test_expect_success 'LONG_BINPUT 0xFFFFFFF0 is an error, as in Python' '
    run_bounded long-binput &&
    test "$status" = 1 && culprits_named && leads_with_culprits &&
    grep -q "^frtrace: long-binput/_dump_3: memo id 4294967280 out of range (LONG_BINPUT at byte 16" err
'

test_expect_success 'frtrace show agrees on the lying pickles (exit 2, the file named)' '
    python3 "$MAKE_DIR" "$SRC" f frame-1e9 && python3 "$MAKE_DIR" "$SRC" l long-binput &&
    for f in f/_dump_3 l/_dump_3; do
        test_expect_code 2 "$FRTRACE" show "$f" >out 2>err && grep -q "^frtrace show: $f: " err || exit 1
    done
'

test_done
