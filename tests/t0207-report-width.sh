#!/bin/sh
# The engineer on call pastes the text report into a ticket or reads it in a terminal: it fits
# 100 columns (or --width N, or the terminal's width), wraps rather than cuts (a name longer than
# a narrow terminal's room runs past it whole), never loses a rank, and is coloured only on a
# terminal, never with NO_COLOR.
. "$(dirname "$0")/lib.sh"

# widest FILE: the longest line after the first (the verdict line, a ticket's title, is the
# on-call issue's own matter).
widest() { sed 1d "$1" | awk '{ if (length > m) m = length } END { print m + 0 }'; }

if ! have_shared; then
    test_skip 'no ../shared' 'report width on the real runs'
    test_done
    exit 0
fi

test_expect_success 'the four real runs fit 100 columns by default, -v included' '
    for run in gpu_error_1st gpu_error_2nd lock_gil_1st lock_gil_2nd; do
        test_expect_code 1 "$FRTRACE" "$REAL_DUMPS/$run" >$run.txt &&
        test_expect_code 1 "$FRTRACE" -v "$REAL_DUMPS/$run" >$run.v.txt &&
        test "$(widest $run.txt)" -le 100 && test "$(widest $run.v.txt)" -le 100 || return 1
    done
'

test_expect_success '--width 60 wraps at 60 but never cuts a name; --width 0 does not wrap' '
    test_expect_code 1 "$FRTRACE" --width 60 "$REAL_DUMPS/gpu_error_1st" >narrow &&
    sed -n "/^wait chain/,/^findings/p" narrow >chain &&
    test "$(widest chain)" -le 60 && test "$(widest narrow)" -gt 60 &&
    test_expect_code 1 "$FRTRACE" --width 0 "$REAL_DUMPS/gpu_error_1st" >unwrapped &&
    python3 "$TOP/tests/tools/names_whole.py" unwrapped narrow &&
    test_expect_code 1 "$FRTRACE" --width 0 "$REAL_DUMPS/gpu_error_1st" >wide &&
    test "$(widest wide)" -gt 120
'

test_expect_success 'wrapping loses nothing: the same words, in the same order' '
    test_expect_code 1 "$FRTRACE" --width 0 "$REAL_DUMPS/lock_gil_1st" >wide &&
    test_expect_code 1 "$FRTRACE" "$REAL_DUMPS/lock_gil_1st" >fit &&
    sed -n "/^wait chain/,/^findings/p" wide | tr -s " \n" "  " >wide.words &&
    sed -n "/^wait chain/,/^findings/p" fit | tr -s " \n" "  " >fit.words &&
    cmp wide.words fit.words &&
    sed -n "/^culprits/,/^wait chain/p" fit | grep -c "^  9 \|^  14 " >culprit.rows &&
    test "$(cat culprit.rows)" = 2
'

test_expect_success 'colour on a terminal only, and never with NO_COLOR' '
    test_expect_code 1 "$FRTRACE" "$REAL_DUMPS/lock_gil_1st" >plain &&
    ! grep -q "$(printf "\033")" plain &&
    if command -v script >/dev/null; then
        test_expect_code 1 script -qec "\"$FRTRACE\" \"$REAL_DUMPS/lock_gil_1st\"" /dev/null >tty.out </dev/null &&
        grep -q "$(printf "\033\\[1;31m")hang:" tty.out &&
        NO_COLOR=1 test_expect_code 1 script -qec "\"$FRTRACE\" \"$REAL_DUMPS/lock_gil_1st\"" /dev/null >nocolor.out </dev/null &&
        ! grep -q "$(printf "\033")" nocolor.out && grep -q "^hang:" nocolor.out
    fi
'
test_done
