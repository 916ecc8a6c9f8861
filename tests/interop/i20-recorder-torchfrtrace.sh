#!/bin/sh
# i20-recorder-torchfrtrace.sh — opt-in interop check (not run by `make check`): PyTorch's own
# analyzer, torchfrtrace, reads the freshly built recorder's dumps of the fake 4-rank job (with a
# send/recv batch and coalesced collectives every step) to the end, and names the skipping rank.
#
#   INTEROP_PY=/path/to/venv/bin/python tests/interop/i20-recorder-torchfrtrace.sh
#
# torchfrtrace is the one beside INTEROP_PY. One line per case, "ok|FAIL <case>: <what>"; exit
# status 1 on any failure. torchfrtrace runs under `timeout` and an address-space limit (it once
# looped for ever on these dumps, growing past 6 GB).
#
# torchfrtrace's matcher of send/recv batches calls `tabulate`, which torch does not install;
# without it the analyzer dies with NameError. When INTEROP_PY lacks it, the script installs the
# real package with that interpreter's pip into a private folder (build/interop-pydeps) and puts
# it on PYTHONPATH; it says so on a "note:" line.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-build}
SO="$TOP/$BUILD/libfrtrace-recorder.so"
DRIVER="$TOP/$BUILD/fakes/frtrace-driver"
failed=0

say() { echo "$1 $2: $3"; [ "$1" = ok ] || failed=1; }

if [ -z "${INTEROP_PY:-}" ] || [ ! -x "$INTEROP_PY" ]; then
    say FAIL setup "INTEROP_PY is not set to a Python interpreter"
    exit 1
fi
TORCHFRTRACE="$(dirname "$INTEROP_PY")/torchfrtrace"
[ -x "$TORCHFRTRACE" ] || { say FAIL setup "no torchfrtrace beside $INTEROP_PY"; exit 1; }
make -C "$TOP" -s "$BUILD/libfrtrace-recorder.so" "$BUILD/fakes/frtrace-driver" >/dev/null ||
    { say FAIL setup "the recorder and the fake driver do not build"; exit 1; }

PYDEPS="$TOP/$BUILD/interop-pydeps"
if ! "$INTEROP_PY" -c "import tabulate" 2>/dev/null &&
   ! PYTHONPATH="$PYDEPS" "$INTEROP_PY" -c "import tabulate" 2>/dev/null; then
    "$INTEROP_PY" -m pip install -q --target "$PYDEPS" tabulate >/dev/null 2>&1 ||
        { say FAIL setup "tabulate is missing and could not be installed"; exit 1; }
fi
if ! "$INTEROP_PY" -c "import tabulate" 2>/dev/null; then
    echo "note: tabulate from $PYDEPS (torchfrtrace needs it for send/recv batches)"
    PYTHONPATH="$PYDEPS${PYTHONPATH:+:$PYTHONPATH}"
    export PYTHONPATH
fi

WORK=$(mktemp -d "${TMPDIR:-/tmp}/frtrace-i20.XXXXXX")
trap 'rm -rf "$WORK"; rm -f /dev/shm/frtrace-fake-i20-$$-*' EXIT

# record CASE VAR=value...: the fake job under the recorder, dumps in $WORK/CASE/dumps.
record() {
    case_dir="$WORK/$1"
    shift
    mkdir -p "$case_dir"
    (cd "$case_dir" && env FAKE_SHM_TAG="i20-$$-$(basename "$case_dir")" \
        FRTRACE_DUMP_DIR="$case_dir/dumps" FRTRACE_TRIGGER_FILE="$case_dir/trigger" \
        FRTRACE_TIMEOUT_SEC=1 FRTRACE_LOG=0 DEADLINE=8 DUMPS_EXPECTED=4 GROUPED=1 STEPS=4 "$@" \
        LD_PRELOAD="$SO" timeout 60 "$DRIVER" >job.out 2>job.err)
    ls "$case_dir/dumps/rank_0" "$case_dir/dumps/rank_1" "$case_dir/dumps/rank_2" \
        "$case_dir/dumps/rank_3" >/dev/null 2>&1
}

# analyze CASE: torchfrtrace on the case's dumps, bounded; its status, output in torch.out.
# --mismatch_cap: torchfrtrace 2.15 counts about three false mismatches per step of this job
# (a ring send/recv batch always fails its pairing rule; a coalesced collective group checked
# with another rank order than the outer loop's reports a member as missing), and stops the
# whole analysis after 10 (the default); the cap is raised so that it reads to the end.
analyze() {
    timeout 120 prlimit --as=4000000000 "$TORCHFRTRACE" "$WORK/$1/dumps" -p rank_ \
        --mismatch_cap 1000 \
        >"$WORK/$1/torch.out" 2>&1
}

if record healthy FRTRACE_DUMP_ON_EXIT=1 DUMPS_EXPECTED=0; then
    analyze healthy
    rc=$?
    if [ $rc -ne 0 ]; then
        say FAIL healthy "torchfrtrace exit $rc: $(tail -n 1 "$WORK/healthy/torch.out")"
    elif grep -q "Too many mismatches" "$WORK/healthy/torch.out"; then
        say FAIL healthy "torchfrtrace gave up before the end (too many mismatches)"
    else
        say ok healthy "torchfrtrace read the 4 dumps to the end (exit 0)"
    fi
else
    say FAIL healthy "the job left no dumps of all 4 ranks"
fi

if record skip SKIP=2@3; then
    analyze skip
    rc=$?
    if [ $rc -ne 0 ]; then
        say FAIL skip "torchfrtrace exit $rc: $(tail -n 1 "$WORK/skip/torch.out")"
    elif ! grep -q "missing ranks: {2}" "$WORK/skip/torch.out"; then
        say FAIL skip "torchfrtrace exit 0 but never names rank 2 as missing"
    else
        say ok skip "torchfrtrace exit 0, names rank 2 ($(grep -m1 -B4 "missing ranks: {2}" \
            "$WORK/skip/torch.out" | head -n 1))"
    fi
else
    say FAIL skip "the job left no dumps of all 4 ranks"
fi
exit $failed
