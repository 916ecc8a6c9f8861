#!/bin/sh
# The recorder's concurrent parts under ThreadSanitizer: the ring with concurrent producers and
# a reader (unit test), and the whole shim (wrappers, poller, dumper, signal path) in the fake
# 4-rank job. Builds its own copies in build-tsan/; skipped where TSan cannot run.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/fakes/rec-lib.sh"
require_recorder 'ThreadSanitizer runs'

TSAN_BUILD=build-tsan
TSAN_SO="$TOP/$TSAN_BUILD/libfrtrace-recorder.so"
TSAN_DRIVER="$TOP/$TSAN_BUILD/fakes/frtrace-driver"
TSAN_UNIT="$TOP/$TSAN_BUILD/tests/test_rec_ring"
export TSAN_OPTIONS="halt_on_error=0:report_signal_unsafe=0"

build_tsan() {
    (cd "$TOP" && env -u MAKEFLAGS -u MAKELEVEL make -s -j2 BUILD=$TSAN_BUILD \
        SANFLAGS=-fsanitize=thread $TSAN_BUILD/tests/test_rec_ring \
        $TSAN_BUILD/libfrtrace-recorder.so $TSAN_BUILD/fakes/frtrace-driver) >"$TRASH/tsan-build.log" 2>&1
}

tsan_runs() {
    printf 'int main(void){return 0;}\n' >"$TRASH/t.c" &&
    cc -fsanitize=thread "$TRASH/t.c" -o "$TRASH/t" 2>/dev/null && "$TRASH/t" 2>/dev/null
}

if ! tsan_runs; then
    test_skip 'ThreadSanitizer cannot build or run programs here' 'ring and e2e under TSan'
    test_done
    exit 0
fi
if ! build_tsan; then
    tail -n 20 "$TRASH/tsan-build.log" | sed 's/^/# /'
    test_skip 'the TSan build of the recorder failed' 'ring and e2e under TSan'
    test_done
    exit 0
fi

tsan_job() {
    FAKE_SHM_TAG="tsan$$-$(date +%s%N)"
    export FAKE_SHM_TAG
    env FRTRACE_DUMP_DIR="$PWD/dumps" FRTRACE_TRIGGER_FILE="$PWD/trigger" FRTRACE_TIMEOUT_SEC=1 \
        DEADLINE=15 DUMPS_EXPECTED=4 "$@" LD_PRELOAD="$TSAN_SO" timeout 60 "$TSAN_DRIVER" \
        >job.out 2>job.err
    rm -f /dev/shm/frtrace-fake-"$FAKE_SHM_TAG"-*
    ! grep -A20 "WARNING: ThreadSanitizer" job.err
}

test_expect_success 'ring: concurrent producers and a reader, no race reported' '
    { CMOCKA_MESSAGE_OUTPUT=TAP "$TSAN_UNIT" >unit.out 2>&1 || { cat unit.out; exit 1; }; } &&
    cat unit.out && ! grep -q "ThreadSanitizer" unit.out && ! grep -q "^not ok" unit.out
'

test_expect_success 'a healthy job with exit dumps: no race reported' '
    tsan_job FRTRACE_DUMP_ON_EXIT=1 DUMPS_EXPECTED=0 &&
    test "$(grep -c "exit 0" job.out)" = 4 && verdict_is ok ""
'

test_expect_success 'a GPU stall with timeout, trigger file and dumps on every rank: no race' '
    tsan_job STALL=1@2 && verdict_is hang 1
'

test_expect_success 'dump signals while ranks wait: no race reported' '
    tsan_job SKIP=2@2 FRTRACE_TIMEOUT_SEC=60 SIGNAL_AFTER_MS=800 && verdict_is hang 2
'

test_done
