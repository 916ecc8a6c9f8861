#!/bin/sh
# The recorder's cost per NCCL call (ns), on the fake NCCL whose ncclAllReduce returns at once:
# without the shim, with it recording calls only (FRTRACE_GPU_EVENTS=0), and with end / start+end
# events on the fake CUDA driver (whose cuEventRecord queues a marker on a host thread: it
# measures our overhead plus the fake's, not a GPU's). One thread, then two threads on their
# own communicators (contention on the ring's head).
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$TOP/tests/paths.sh"
BENCH="$TOP/$BUILD/bench/bench-recorder"
SO="$TOP/$BUILD/libfrtrace-recorder.so"
if [ ! -x "$BENCH" ] || [ ! -f "$SO" ]; then
    echo "recorder not built (no nccl.h): skipped"
    exit 0
fi
DIR=$(mktemp -d)
trap 'rm -rf "$DIR"; rm -f /dev/shm/frtrace-fake-bench*' EXIT
export FAKE_NCCL_NOOP=1 FRTRACE_DUMP_DIR="$DIR" FRTRACE_LOG=0

best_of_3() { # prints the smallest ns_per_call of three runs of "$@"
    for i in 1 2 3; do "$@" | sed -n 's/^ns_per_call //p'; done | sort -n | head -n 1
}

printf '%-44s %12s %12s\n' "configuration" "1 thread" "2 threads"
row() {
    label=$1 n=$2; shift 2
    one=$(best_of_3 env "$@" "$BENCH" "$n" 1)
    two=$(best_of_3 env "$@" "$BENCH" "$n" 2)
    printf '%-44s %9s ns %9s ns\n' "$label" "$one" "$two"
}
row "bare fake ncclAllReduce (no shim)" 5000000
row "shim, calls only (FRTRACE_GPU_EVENTS=0)" 2000000 LD_PRELOAD="$SO" FRTRACE_GPU_EVENTS=0
row "shim, end event (FRTRACE_GPU_EVENTS=1)" 200000 LD_PRELOAD="$SO" FRTRACE_GPU_EVENTS=1
row "shim, start+end events (FRTRACE_GPU_EVENTS=2)" 200000 LD_PRELOAD="$SO" FRTRACE_GPU_EVENTS=2
