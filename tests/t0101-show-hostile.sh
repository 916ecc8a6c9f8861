#!/bin/sh
# Hostile input: whatever a file holds — code-importing pickles, lies in length fields, deep
# nesting, memo bombs, cycles, garbage — `frtrace show` answers with exit 2 and a message that
# names the file, never crashes or hangs, and never runs anything.
. "$(dirname "$0")/lib.sh"

TOOLS="$TOP/tests/tools"

# refused FILE: exit status exactly 2 and one message naming the file.
refused() {
    status=0
    "$FRTRACE" show "$1" >out 2>err || status=$?
    if [ "$status" != 2 ] || ! grep -q "^frtrace show: $1: ." err; then
        echo "$1: exit $status: $(cat err)"
        return 1
    fi
    test ! -s out
}

if command -v python3 >/dev/null 2>&1; then
    REAL="$REAL_DUMPS/gpu_error_1st/_dump_0"
    [ -f "$REAL" ] || REAL=""
    test_expect_success 'the exploit pickle (GLOBAL os.system + REDUCE) is refused and runs nothing' '
        python3 "$TOOLS/hostile.py" h &&
        refused h/exploit-global-reduce.pkl &&
        grep -q "refusing opcode GLOBAL (0x63) at byte 0: pickles that import code are never loaded" err &&
        for f in h/exploit-*; do refused "$f" || exit 1; done &&
        test ! -e PWNED && test ! -e h/PWNED
    '
    test_expect_success 'every hostile file is refused with exit 2 and its name' '
        python3 "$TOOLS/hostile.py" h $REAL &&
        n=0 &&
        for f in $(cat h/list.txt); do refused "h/$f" && n=$((n + 1)) || exit 1; done &&
        test "$n" -ge 30 &&
        test ! -e PWNED
    '
    test_expect_success 'length fields that lie (4 GB strings) are truncation, not allocation' '
        python3 "$TOOLS/hostile.py" h &&
        refused h/huge-binunicode.pkl && grep -q "truncated pickle at byte 11" err &&
        refused h/huge-binunicode8.pkl && grep -q "truncated pickle" err &&
        refused h/unknown-memo-id.pkl && grep -q "memo id 2147483647 not found" err
    '
    test_expect_success '100000-deep nesting is refused, by MARK depth or by output depth' '
        python3 "$TOOLS/hostile.py" h &&
        refused h/deep-marks.pkl && grep -q "MARK nesting deeper than 10000" err &&
        refused h/deep-list-chain.pkl && grep -q "nests deeper than 1000" err &&
        refused h/json-deep.json && grep -q "nests deeper than 1000" err
    '
    test_expect_success 'a memo bomb (2^100 leaves in 700 bytes) and cycles are refused quickly' '
        python3 "$TOOLS/hostile.py" h &&
        refused h/exponential-alias.pkl && grep -q "cyclic or would print more than" err &&
        refused h/cycle-list.pkl && refused h/cycle-dict.pkl
    '
    if [ -n "$REAL" ]; then
        test_expect_success '2000 bit-flipped copies of a real dump: each shown or refused, no crash' '
            python3 "$TOOLS/hostile.py" h "$REAL" &&
            status=0 &&
            { "$FRTRACE" show h/flips/* >out 2>err || status=$?; } &&
            { test "$status" = 0 || test "$status" = 2; } &&
            shown=$(wc -l <out) && refused=$(wc -l <err) &&
            echo "shown $shown, refused $refused" &&
            test $((shown + refused)) = 2000 &&
            test "$(grep -vc "^frtrace show: h/flips/f[0-9]*: ." err)" = 0
        '
    else
        test_skip 'no ../shared' 'bit-flipped copies of a real dump'
    fi
else
    test_skip 'no python3' 'hostile files'
fi

test_expect_success 'random bytes and an empty file are refused' '
    head -c 5000 /dev/urandom >rnd && : >empty &&
    refused rnd && refused empty && grep -q "empty file" err
'

test_expect_success 'a directory is refused with its name' '
    mkdir d && refused d
'

test_done
