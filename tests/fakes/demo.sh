#!/bin/sh
# `make demo-recorder`: watch the recorder catch a hang, without a GPU. A 4-rank job runs on the
# fake NCCL and CUDA of tests/fakes (real processes that really wait for each other); rank 1
# skips one all_reduce. The recorder, preloaded, sees the others' all_reduce pending past its
# 1 s timeout, dumps, touches the trigger file, every rank dumps, and frtrace names rank 1.
set -eu
TOP=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-build}
OUT="$TOP/$BUILD/demo-recorder"
rm -rf "$OUT"
mkdir -p "$OUT"
FAKE_SHM_TAG="demo$$"
export FAKE_SHM_TAG
trap 'rm -f /dev/shm/frtrace-fake-"$FAKE_SHM_TAG"-*' EXIT
echo "== a 4-rank job on the fake NCCL, recorder preloaded; rank 1 skips an all_reduce"
echo "\$ LD_PRELOAD=$BUILD/libfrtrace-recorder.so FRTRACE_DUMP_DIR=$OUT/dumps FRTRACE_TIMEOUT_SEC=1 \\"
echo "    FRTRACE_TRIGGER_FILE=$OUT/trigger SKIP=1@2 $BUILD/fakes/frtrace-driver"
env FRTRACE_DUMP_DIR="$OUT/dumps" FRTRACE_TRIGGER_FILE="$OUT/trigger" FRTRACE_TIMEOUT_SEC=1 \
    DEADLINE=8 DUMPS_EXPECTED=4 SKIP=1@2 LD_PRELOAD="$TOP/$BUILD/libfrtrace-recorder.so" \
    timeout 30 "$TOP/$BUILD/fakes/frtrace-driver" >"$OUT/job.out"
echo
echo "== what the recorder wrote"
ls -l "$OUT/dumps"
echo
echo "\$ $BUILD/frtrace $OUT/dumps"
status=0
"$TOP/$BUILD/frtrace" "$OUT/dumps" || status=$?
echo "== exit status $status (1: hang)"
[ "$status" = 1 ]
