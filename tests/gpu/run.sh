#!/bin/sh
# run.sh — issue 24's check on a real GPU, prepared as one run of at most BUDGET_SEC (450 s).
#
#   sh tests/gpu/run.sh            on a GPU machine: results under $OUT (the device tool's folder)
#   FAKE=1 sh tests/gpu/run.sh     the same on the fake NCCL and CUDA of tests/fakes, any machine
#   make gpu-check [FAKE=1]        the same, results in build/gpu-out
#
# Steps, each bounded by `timeout` and by what is left of the budget; a failing step is recorded
# and the others still run:
#   1. versions: device, driver, CUDA, NCCL (header and library), compiler;
#   2. builds: the recorder against the machine's nccl.h (NCCL_HOME, the Python wheel's
#      nvidia/nccl, $CUDA_HOME, /usr, a search; .gpu-carry/nccl as a last resort), frtrace (with
#      .gpu-carry's cJSON when the machine has none), and tests/gpu/nccl_probe.c + probe_cuda.cu
#      by nvcc (FAKE: nccl_probe.c + probe_fake.c on the fakes, by make);
#   3. the probe's `ops` without the recorder, then with it (a dump on SIGUSR2), and `hang` (a
#      kernel spins until the recorder's watchdog has dumped);
#   4. the recorder's cost per ncclAllReduce call: no recorder, FRTRACE_GPU_EVENTS=0, 1, 2; back
#      to back (the GPU's pace once the launch queue is full) and paced (the host's own cost);
#   5. PyTorch's own Flight Recorder (TORCH_NCCL_ENABLE_TIMING=1) on a one-rank job with three
#      groups (tests/gpu/torch_job.py), alone and with the recorder preloaded (FAKE: the job on
#      gloo when torch is importable, else "skipped: no torch/GPU");
#   6. frtrace, and torchfrtrace when it is installed, on every dump;
#   7. each case against the EXPECTED file written for it, and the dumps that COMPARE pairs
#      (tests/gpu/gpu_checks.py).
#
# Results under $OUT (a few small files: the device tool brings back at most 8):
#   summary.txt       versions, "ok|FAIL|skipped STEP: detail" lines, the cost per call, and
#                     "result: N ok, N failed, N skipped" last
#   run.log           every step's command and output
#   analysis.txt      frtrace's and torchfrtrace's reports on every dump
#   gpu-dumps.tar.gz  gpu-<device>-nccl<version>/: a folder per case (a dump and EXPECTED),
#                     COMPARE and README, to unpack under testdata/ and commit
# Exit status 0 when nothing failed. Settings: OUT, FAKE, BUDGET_SEC, PYTHON (the one with torch;
# python3), NCCL_HOME, CUDA_HOME, NVCC_ARCH, BENCH_CALLS; BUILD (FAKE, build) or GPU_BUILD
# (build-gpu) for the build folder.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
cd "$TOP" || exit 2
FAKE=${FAKE:-0}
PYTHON=${PYTHON:-python3}
BUDGET_SEC=${BUDGET_SEC:-450}
STARTED=$(date +%s)
DEADLINE=$((STARTED + BUDGET_SEC))
OUT=${OUT:-$TOP/build/gpu-out}
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd) || exit 2
WORK=$(mktemp -d "${TMPDIR:-/tmp}/frtrace-gpu.XXXXXX") || exit 2
mkdir -p "$WORK/log" "$WORK/bin"
SUMMARY=$OUT/summary.txt
LOG=$OUT/run.log
ANALYSIS=$OUT/analysis.txt
: >"$SUMMARY" && : >"$LOG" && : >"$ANALYSIS" || exit 2
TAG=gpu$$
trap 'rm -rf "$WORK"; rm -f /dev/shm/frtrace-fake-$TAG-*' EXIT
trap 'exit 130' INT TERM
JOBS=$(nproc 2>/dev/null || echo 2)
nok=0 nfail=0 nskip=0
if [ "$FAKE" = 1 ]; then MODE=fake; else MODE=gpu; fi

# --- bookkeeping ------------------------------------------------------------------------------

note() { printf '%s\n' "$*" | tee -a "$SUMMARY"; }

# record ok|FAIL|skipped STEP DETAIL...
record() {
    case $1 in
    ok) nok=$((nok + 1)) ;;
    FAIL) nfail=$((nfail + 1)) ;;
    *) nskip=$((nskip + 1)) ;;
    esac
    verdict=$1 step=$2
    shift 2
    note "$verdict $step: $*"
}

# bounded STEP LIMIT CMD...: runs CMD with no input, its output in $STEP_OUT (and the log), for
# at most LIMIT seconds and what is left of the budget; its exit status (200: no time left).
bounded() {
    step_name=$1 limit=$2
    shift 2
    STEP_OUT=$WORK/log/$step_name.out
    STEP_SECS=0
    left=$((DEADLINE - $(date +%s) - 20))
    if [ "$left" -lt 5 ]; then
        echo "not run: the time budget is spent" >"$STEP_OUT"
        return 200
    fi
    [ "$limit" -gt "$left" ] && limit=$left
    printf '\n=== %s (at most %s s): %s\n' "$step_name" "$limit" "$*" >>"$LOG"
    t0=$(date +%s)
    timeout -k 5 "$limit" "$@" >"$STEP_OUT" 2>&1 </dev/null
    rc=$?
    STEP_SECS=$(($(date +%s) - t0))
    head -c 400000 "$STEP_OUT" >>"$LOG"
    echo "=== $step_name: exit $rc after $STEP_SECS s" >>"$LOG"
    return $rc
}

# why_failed RC: a few words on how the last bounded step ended: its first error, else its last
# line
why_failed() {
    case $1 in
    124 | 137) echo "timed out after $STEP_SECS s" ;;
    200) echo "not run: the time budget is spent" ;;
    *)
        line=$(grep -m 1 -E 'error|fatal|FAIL' "$STEP_OUT")
        [ -n "$line" ] || line=$(grep -v '^ *$' "$STEP_OUT" | tail -n 1)
        echo "exit $1: $(echo "$line" | cut -c1-200)"
        ;;
    esac
}

# step_detail NAME: what the probe said of its step NAME
step_detail() { sed -n "s/^step $1 [a-zA-Z]* //p" "$STEP_OUT" | head -n 1; }

# failed_steps: the probe's failed steps, on one line
failed_steps() { grep '^step .* FAIL' "$STEP_OUT" | head -n 3 | tr '\n' ';' | cut -c1-300; }

# probe_passed RC: the probe ran to its end and every step passed
probe_passed() { [ "$1" = 0 ] && grep -q '^probe ok' "$STEP_OUT"; }

# expect CASE LINE...: CASE's EXPECTED file (tests/gpu/gpu_checks.py reads it), when CASE has
# a dump; lines that start with "#" say what the case is
expect() {
    case_dir=$CASES/$1
    shift
    [ -d "$case_dir" ] && printf '%s\n' "$@" >"$case_dir/EXPECTED"
}

# nccl_version DIR: the version of DIR/include/nccl.h ("2.28.9")
nccl_version() {
    sed -n 's/^#define NCCL_\(MAJOR\|MINOR\|PATCH\) *\([0-9]*\).*/\2/p' "$1/include/nccl.h" \
        2>/dev/null | head -n 3 | paste -sd. -
}

# --- 1. versions ------------------------------------------------------------------------------

versions() {
    note "frtrace GPU check ($MODE) $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(uname -n) ($(uname -srm))"
    note "tree: $(git -C "$TOP" describe --always --dirty 2>/dev/null || echo 'no git')"
    CUDA_HOME=${CUDA_HOME:-}
    if [ -z "$CUDA_HOME" ] && command -v nvcc >/dev/null 2>&1; then
        CUDA_HOME=$(dirname "$(dirname "$(command -v nvcc)")")
    fi
    CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
    NVCC=$CUDA_HOME/bin/nvcc
    [ -x "$NVCC" ] || NVCC=$(command -v nvcc 2>/dev/null || echo nvcc)
    DEVICE=fake
    if [ "$MODE" = gpu ]; then
        DEVICE=gpu
        if bounded nvidia-smi 30 nvidia-smi --query-gpu=name,driver_version,memory.total \
            --format=csv,noheader; then
            note "device: $(head -n 1 "$STEP_OUT")"
            DEVICE=$(head -n 1 "$STEP_OUT" | grep -o -i -E 'GH200|[ABHL][0-9]{2,3}S?' |
                head -n 1 | tr 'A-Z' 'a-z')
            DEVICE=${DEVICE:-gpu}
        else
            record FAIL nvidia-smi "$(why_failed $?)"
        fi
        note "nvcc: $("$NVCC" --version 2>/dev/null | tail -n 1)"
    fi
    note "cc: $(cc --version 2>/dev/null | head -n 1); make: $(command -v make || echo none)"
}

# --- 2. builds ----------------------------------------------------------------------------------

# The folder whose include/nccl.h the recorder is built against.
find_nccl() {
    wheel=$(timeout 60 "$PYTHON" -c 'import nvidia.nccl as m; print(list(m.__path__)[0])' \
        2>/dev/null)
    for dir in ${NCCL_HOME:-} $wheel "$CUDA_HOME" /usr; do
        [ -f "$dir/include/nccl.h" ] && { echo "$dir"; return 0; }
    done
    found=$(timeout 60 find / -xdev -name nccl.h -path '*/include/nccl.h' 2>/dev/null | head -n 1)
    [ -n "$found" ] && dirname "$(dirname "$found")"
}

# The folder of the libnccl.so.2 beside the header of $1, else the one ldconfig knows.
find_nccl_lib() {
    for dir in "$1/lib" "$1/lib64" "$1/lib/x86_64-linux-gnu"; do
        [ -e "$dir/libnccl.so.2" ] && { echo "$dir"; return 0; }
    done
    lib=$(ldconfig -p 2>/dev/null | sed -n 's/.*libnccl.so.2 .*=> //p' | head -n 1)
    [ -n "$lib" ] && dirname "$lib"
}

build_fake() {
    B=${BUILD:-build}
    NCCL_ROOT=$CUDA_HOME
    note "nccl: header $(nccl_version "$NCCL_ROOT") ($NCCL_ROOT/include/nccl.h), the fake libnccl"
    if bounded build 600 make -s BUILD="$B" SANITIZE="${SANITIZE:-}" "$B/libfrtrace-recorder.so" \
        "$B/frtrace" "$B/gpu/nccl-probe-fake" "$B/fakes/libnccl.so.2" "$B/fakes/libcuda.so.1"; then
        record ok build "the recorder, frtrace and the fake probe in $B"
    else
        record FAIL build "$(why_failed $?)"
    fi
    PROBE=$TOP/$B/gpu/nccl-probe-fake
    RUNTIME_ENV="FAKE_SHM_TAG=$TAG"
}

# build_recorder NCCL_ROOT: the recorder against NCCL_ROOT/include/nccl.h; cuda.h and the rest
# of the toolkit's headers come after it, as system headers (C_INCLUDE_PATH)
build_recorder() {
    rm -rf "$B/pic" "$B/libfrtrace-recorder.so"
    bounded build-recorder 240 env C_INCLUDE_PATH="$CUDA_HOME/include" make -s -j"$JOBS" \
        BUILD="$B" CUDA_HOME="$1" "$B/libfrtrace-recorder.so"
}

# The recorder against the machine's nccl.h, else the carried one; HEADER_ROOT: the one used.
build_recorder_real() {
    why=""
    HEADER_ROOT=$NCCL_ROOT
    if [ -z "$NCCL_ROOT" ]; then
        why="no nccl.h found"
    elif build_recorder "$NCCL_ROOT"; then
        record ok build-recorder "against nccl.h $(nccl_version "$NCCL_ROOT") ($STEP_SECS s)"
        return
    else
        why=$(why_failed $?)
    fi
    if [ -f .gpu-carry/nccl/include/nccl.h ] && build_recorder "$TOP/.gpu-carry/nccl"; then
        HEADER_ROOT=$TOP/.gpu-carry/nccl
        record FAIL build-recorder \
            "$why; built against the carried nccl.h $(nccl_version .gpu-carry/nccl) instead"
    else
        record FAIL build-recorder "$why"
    fi
}

build_frtrace_real() {
    if bounded build-frtrace 240 make -s -j"$JOBS" BUILD="$B" "$B/frtrace"; then
        record ok build-frtrace "$STEP_SECS s"
    elif [ -f .gpu-carry/include/cjson/cJSON.h ] &&
        bounded build-frtrace 240 env C_INCLUDE_PATH="$TOP/.gpu-carry/include" \
            LIBRARY_PATH="$TOP/.gpu-carry/lib" make -s -j"$JOBS" BUILD="$B" "$B/frtrace"; then
        record ok build-frtrace "with the carried cJSON of .gpu-carry ($STEP_SECS s)"
    else
        record FAIL build-frtrace "$(why_failed $?) (no cJSON? make gpu-carry, carry .gpu-carry)"
    fi
}

# The probe: its NCCL part by cc against the header the recorder used, the device part by nvcc,
# linked to the libnccl.so.2 that was found (beside the machine's nccl.h, else ldconfig's).
build_probe_real() {
    mkdir -p "$B/gpu"
    arch=${NVCC_ARCH:--gencode arch=compute_90,code=sm_90 -gencode arch=compute_75,code=compute_75}
    # shellcheck disable=SC2016
    if bounded build-probe 240 sh -c 'set -e
        cc -std=c11 -D_GNU_SOURCE -O2 -Wall -Wextra -isystem "$1/include" -isystem "$2/include" \
            -Itests/gpu -c tests/gpu/nccl_probe.c -o "$3/nccl_probe.o"
        "$4" -O2 $5 -Itests/gpu -c tests/gpu/probe_cuda.cu -o "$3/probe_cuda.o"
        "$4" "$3/nccl_probe.o" "$3/probe_cuda.o" -L"$6" -l:libnccl.so.2 -Xlinker -rpath="$6" \
            -ldl -o "$3/nccl-probe"' sh "${HEADER_ROOT:-/none}" "$CUDA_HOME" "$B/gpu" \
        "$NVCC" "$arch" "${NCCL_LIB:-/none}"; then
        record ok build-probe "nvcc $arch ($STEP_SECS s)"
    else
        record FAIL build-probe "$(why_failed $?)"
    fi
}

build_real() {
    B=${GPU_BUILD:-build-gpu}
    NCCL_ROOT=$(find_nccl)
    NCCL_LIB=$(find_nccl_lib "${NCCL_ROOT:-/none}")
    note "nccl: header $(nccl_version "${NCCL_ROOT:-/none}") in ${NCCL_ROOT:-(none found)};" \
        "library ${NCCL_LIB:-(not found)}/libnccl.so.2"
    build_recorder_real
    build_frtrace_real
    build_probe_real
    PROBE=$TOP/$B/gpu/nccl-probe
    RUNTIME_ENV=""
}

# frtrace through a wrapper, so that the carried cJSON, when it was needed, is found at run time;
# FRTRACE is empty when frtrace was not built (gpu_checks.py then decodes dumps with Python).
frtrace_wrapper() {
    FRTRACE=""
    export FRTRACE
    [ -x "$TOP/$B/frtrace" ] || return 0
    FRTRACE=$WORK/bin/frtrace
    printf '#!/bin/sh\nLD_LIBRARY_PATH="%s${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" exec "%s" "$@"\n' \
        "$TOP/.gpu-carry/lib" "$TOP/$B/frtrace" >"$FRTRACE"
    chmod +x "$FRTRACE"
}

# --- 3. the probe -------------------------------------------------------------------------------

probe_bare() {
    # shellcheck disable=SC2086
    bounded probe-bare 120 env $RUNTIME_ENV $COMMON "$PROBE" ops "$WORK/bare"
    rc=$?
    if probe_passed $rc; then
        record ok probe-bare "every call passes without the recorder ($STEP_SECS s);" \
            "$(step_detail device)"
    else
        record FAIL probe-bare "$(failed_steps) $(why_failed $rc)"
    fi
}

probe_ops() {
    # shellcheck disable=SC2086
    bounded probe-ops 120 env $RUNTIME_ENV $COMMON FAKE_CUDA_REPORT="$WORK/violations" \
        FRTRACE_DUMP_DIR="$CASES/probe-ops" FRTRACE_TIMEOUT_SEC=60 LD_PRELOAD="$SO" \
        "$PROBE" ops "$CASES/probe-ops"
    rc=$?
    violations=$(sed -n 's/^violations //p' "$WORK/violations" 2>/dev/null)
    if probe_passed $rc && [ "${violations:-0}" = 0 ]; then
        record ok probe-ops "every call passes under the recorder, dumped on SIGUSR2" \
            "($(grep -c '^step .* ok' "$STEP_OUT") steps; capture: $(step_detail capture))"
    else
        record FAIL probe-ops \
            "$(failed_steps) $(why_failed $rc) ${violations:+capture violations: $violations}"
    fi
    expect probe-ops "# nccl-probe ops under the recorder: every call completed but the four" \
        "# issued in a CUDA graph capture (no events there); dumped on SIGUSR2" \
        "status: ok" "culprits:" "trigger: signal" "groups: 4" \
        "pending: nccl:all_reduce nccl:all_reduce nccl:broadcast nccl:coalesced" "durations: all"
}

probe_hang() {
    # shellcheck disable=SC2086
    bounded probe-hang 120 env $RUNTIME_ENV $COMMON FRTRACE_DUMP_DIR="$CASES/probe-hang" \
        FRTRACE_TIMEOUT_SEC=$HANG_TIMEOUT HANG_WAIT_SEC=30 LD_PRELOAD="$SO" \
        "$PROBE" hang "$CASES/probe-hang"
    rc=$?
    if probe_passed $rc; then
        record ok probe-hang "the watchdog dumped the all_reduce behind the spinning kernel" \
            "$(step_detail watchdog_dump); the kernel released, the stream drained"
    else
        record FAIL probe-hang "$(failed_steps) $(why_failed $rc)"
    fi
    expect probe-hang "# nccl-probe hang: the second all_reduce waits behind a spinning kernel;" \
        "# the watchdog dumped after FRTRACE_TIMEOUT_SEC=$HANG_TIMEOUT. One rank alone has no" \
        "# peer to blame: frtrace reads an operation in flight" \
        "status: ok" "culprits:" "trigger: timeout" "groups: 1" "pending: nccl:all_reduce" \
        "durations: all"
}

# --- 4. cost per call ---------------------------------------------------------------------------

# bench_one CONFIG: ns per call with FRTRACE_GPU_EVENTS=CONFIG, or without the recorder (bare),
# in $ns; its status
bench_one() {
    preload=$SO
    [ "$1" = bare ] && preload=""
    # shellcheck disable=SC2086
    bounded bench-$1 90 env $BENCH_ENV FRTRACE_GPU_EVENTS=$1 FRTRACE_DUMP_DIR="$WORK/bench" \
        FRTRACE_LOG=warn LD_PRELOAD="$preload" "$PROBE" bench "$CALLS"
    rc=$?
    ns=$(sed -n 's/^ns_per_call //p' "$STEP_OUT")
    paced=$(sed -n 's/^ns_per_call_paced //p' "$STEP_OUT")
    [ $rc = 0 ] && [ -n "$ns" ] && [ -n "$paced" ] || return $((rc == 0 ? 1 : rc))
}

bench() {
    if [ "$MODE" = fake ]; then
        CALLS=${BENCH_CALLS:-20000}
        BENCH_ENV="FAKE_SHM_TAG=$TAG FAKE_NCCL_NOOP=1"
    else
        CALLS=${BENCH_CALLS:-50000}
        BENCH_ENV=""
    fi
    row="" base="" failed=0
    for config in bare 0 1 2; do
        if ! bench_one $config; then
            row="$row; $config: $(why_failed $rc)"
            failed=1
        elif [ $config = bare ]; then
            base=$ns base_paced=$paced row="no recorder $ns, paced $paced"
        else
            extra=$(echo "$ns ${base:-0}" | awk '{printf "%.0f", $1 - $2}')
            extra_paced=$(echo "$paced ${base_paced:-0}" | awk '{printf "%.0f", $1 - $2}')
            row="$row; FRTRACE_GPU_EVENTS=$config $ns (+$extra), paced $paced (+$extra_paced)"
        fi
    done
    if [ $failed = 0 ]; then
        record ok bench "ns per ncclAllReduce call (1024 floats, in place, best of 3 x $CALLS" \
            "back to back; paced: the stream drained every 64 calls, untimed):" "$row"
    else
        record FAIL bench "$row"
    fi
}

# --- 5. PyTorch's own Flight Recorder -----------------------------------------------------------

# move_case FROM CASE: the dumps in FROM become case folder CASE
move_case() { [ -d "$1" ] && mkdir -p "$CASES/$2" && mv "$1"/* "$CASES/$2/"; }

# torch_job STEP DIR [VAR=value...]: tests/gpu/torch_job.py DIR $JOB_ARGS, recorded as STEP,
# for at most JOB_LIMIT seconds (180)
torch_job() {
    step=$1 dir=$2
    shift 2
    if bounded "$step" "${JOB_LIMIT:-180}" env "$@" "$PYTHON" tests/gpu/torch_job.py "$dir" ${JOB_ARGS:-} &&
        grep -q '^job ok' "$STEP_OUT"; then
        record ok "$step" "$(grep '^job ok' "$STEP_OUT") ($STEP_SECS s)"
    else
        record FAIL "$step" "$(why_failed $?)"
    fi
}

torch_on_gpu() {
    JOB_ARGS="" torch_job torch-plain "$WORK/torch-plain" FRTRACE_TORCH=alone
    JOB_ARGS="--recorder-dump $WORK/torch-rec/recorder" torch_job torch-recorder \
        "$WORK/torch-rec" FRTRACE_RANK=0 FRTRACE_LOG=info \
        FRTRACE_DUMP_DIR="$WORK/torch-rec/recorder" LD_PRELOAD="$SO"
    JOB_ARGS="--p2p" JOB_LIMIT=60 torch_job torch-p2p "$WORK/torch-p2p" FRTRACE_TORCH=alone
    move_case "$WORK/torch-p2p/torch-pickle" torch-p2p
    expect torch-p2p "# PyTorch's own Flight Recorder on tests/gpu/torch_job.py --p2p: two" \
        "# all_reduces and a batch_isend_irecv to the rank itself. PyTorch leaves a batch's" \
        "# send and recv scheduled (no work of their own); its nccl:coalesced end completes" \
        "status: ok" "culprits:" "pending: nccl:send 0->0 nccl:recv 0<-0"
    move_case "$WORK/torch-plain/torch-pickle" torch-pickle
    move_case "$WORK/torch-plain/torch-json" torch-json
    move_case "$WORK/torch-rec/torch-pickle" torch-with-recorder
    move_case "$WORK/torch-rec/recorder" recorder-in-torch
    for c in torch-pickle torch-json torch-with-recorder; do
        expect $c "# PyTorch's own Flight Recorder (TORCH_NCCL_ENABLE_TIMING=1) on" \
            "# tests/gpu/torch_job.py, one rank, three groups: every operation completed" \
            "status: ok" "culprits:" "pending:"
    done
    expect recorder-in-torch "# the recorder preloaded into tests/gpu/torch_job.py, dumped on" \
        "# SIGUSR2 (torch-with-recorder is the same run's torch dump)" \
        "status: ok" "culprits:" "trigger: signal" "pending:" "durations: all"
    printf '%s\n' "torch-with-recorder recorder-in-torch durations  # one run: torch's and ours" \
        "torch-pickle torch-with-recorder  # torch alone, and beside the recorder" \
        "torch-pickle torch-json durations  # one dump as pickle and as JSON" >"$CASES/COMPARE"
}

torch_on_gloo() {
    JOB_ARGS="--backend gloo" torch_job torch-gloo "$WORK/torch-gloo" FRTRACE_TORCH=gloo
    move_case "$WORK/torch-gloo/torch-pickle" torch-gloo-pickle
    move_case "$WORK/torch-gloo/torch-json" torch-gloo-json
    for c in torch-gloo-pickle torch-gloo-json; do
        expect $c "# tests/gpu/torch_job.py on gloo (a FAKE run: no GPU, no NCCL)" \
            "status: ok" "culprits:"
    done
    echo "torch-gloo-pickle torch-gloo-json  # one dump as pickle and as JSON" >"$CASES/COMPARE"
}

torch_part() {
    bounded torch-detect 120 "$PYTHON" -c 'import torch, torch.distributed as d
v = torch.cuda.nccl.version() if d.is_nccl_available() else "none"
nccl = ".".join(map(str, v)) if isinstance(v, tuple) else str(v)
print("torch", torch.__version__, "cuda", torch.version.cuda, "nccl", nccl,
      "gpu", torch.cuda.is_available())'
    torch_line=$(grep '^torch ' "$STEP_OUT" | tail -n 1)
    note "torch: ${torch_line:-none: $PYTHON cannot import it}"
    if [ "$MODE" = gpu ] && echo "$torch_line" | grep -q 'gpu True'; then
        torch_on_gpu
    elif [ "$MODE" = fake ] && [ -n "$torch_line" ]; then
        torch_on_gloo
    else
        record skipped torch "no torch/GPU (${torch_line:-$PYTHON cannot import torch})"
    fi
}

# --- 6. the analyzers on every dump -------------------------------------------------------------

# run_torchfrtrace CASE_DIR: PyTorch's analyzer, bounded in time and memory (it has looped)
run_torchfrtrace() {
    prefix=rank_
    [ -f "$1/nccl_trace_rank_0" ] && prefix=nccl_trace_rank_
    cap=""
    command -v prlimit >/dev/null 2>&1 && cap="prlimit --as=8000000000"
    # shellcheck disable=SC2086
    # 20 s: on a small dump it ends in a few; it loops for ever after a send/recv batch
    bounded "torchfrtrace-$(basename "$1")" 20 $cap "$TORCHFRTRACE" "$1" -p $prefix \
        --mismatch_cap 1000
}

analyze() {
    TORCHFRTRACE=$(dirname "$(command -v "$PYTHON" 2>/dev/null || echo /none/x)")/torchfrtrace
    [ -x "$TORCHFRTRACE" ] || TORCHFRTRACE=$(command -v torchfrtrace 2>/dev/null)
    verdicts="" notes=""
    for dir in "$CASES"/*/; do
        [ -d "$dir" ] || continue
        c=$(basename "$dir")
        bounded "frtrace-$c" 60 "${FRTRACE:-frtrace-not-built}" --width 100 "$dir"
        rc=$?
        { echo "===== frtrace $c (exit $rc)"; cat "$STEP_OUT"; } >>"$ANALYSIS"
        verdicts="$verdicts $c:$(head -n 1 "$STEP_OUT" | cut -d: -f1)"
        [ $rc -le 1 ] || record FAIL "frtrace-$c" "$(why_failed $rc)"
        # it reads pickles only; the recorder's dumps it must read to the end (docs/dump-formats.md)
        [ -n "$TORCHFRTRACE" ] && [ "${c%-json}" = "$c" ] || continue
        run_torchfrtrace "$dir"
        rc=$?
        { echo "===== torchfrtrace $c (exit $rc)"; cat "$STEP_OUT"; } >>"$ANALYSIS"
        case $c in
        probe-* | recorder-*)
            if [ $rc = 0 ]; then
                record ok "torchfrtrace-$c" "read the recorder's dump to the end"
            elif [ $rc = 124 ] && [ "$c" = probe-ops ]; then
                probe_ops_loop=$(why_failed $rc) # judged once torch-p2p has run, below
            else
                record FAIL "torchfrtrace-$c" "$(why_failed $rc)"
            fi
            ;;
        torch-p2p) torch_p2p_rc=$rc notes="$notes $c:exit-$rc" ;;
        *) notes="$notes $c:exit-$rc" ;;
        esac
    done
    # torchfrtrace loops on a send/recv batch (find_coalesced_group stops before the batch's
    # "nccl:coalesced" end marker, which has is_p2p false; the marker alone is never popped):
    # a fault of ours only if it reads PyTorch's own batch (torch-p2p) to the end
    if [ -n "${probe_ops_loop:-}" ] && [ "${torch_p2p_rc:-}" = 124 ]; then
        record skipped torchfrtrace-probe-ops "$probe_ops_loop, as on PyTorch's own send/recv" \
            "batch (torch-p2p): its loop on the batch's end marker"
    elif [ -n "${probe_ops_loop:-}" ]; then
        record FAIL torchfrtrace-probe-ops "$probe_ops_loop (torch-p2p: exit ${torch_p2p_rc:-none})"
    fi
    note "frtrace verdicts:${verdicts:- none}"
    [ -n "$TORCHFRTRACE" ] || record skipped torchfrtrace "not installed beside $PYTHON"
    [ -z "$notes" ] || note "torchfrtrace on torch's own dumps:$notes"
}

# --- 7. EXPECTED and COMPARE --------------------------------------------------------------------

check_cases() {
    bounded cases 180 "$PYTHON" tests/gpu/gpu_checks.py cases "$CASES"
    while IFS= read -r line; do
        case $line in
        "ok "*) nok=$((nok + 1)) ;;
        "FAIL "*) nfail=$((nfail + 1)) ;;
        esac
        note "$line"
    done <"$STEP_OUT"
}

# --- packing, and the GPU left idle -------------------------------------------------------------

readme() {
    echo "Dumps made by tests/gpu/run.sh ($MODE) on $(date -u +%Y-%m-%d); its summary.txt:"
    grep -E '^(device|nvcc|nccl|torch|cc|tree|ok bench):' "$SUMMARY"
    echo
    for f in "$CASES"/*/EXPECTED; do
        [ -f "$f" ] && echo "$(basename "$(dirname "$f")")/:" $(sed -n 's/^# //p' "$f")
    done
    echo
    echo "Each EXPECTED says what frtrace and the dump show (tests/gpu/gpu_checks.py reads it);"
    echo "COMPARE names the dumps of one job that must agree. tests/t0450-gpu.sh checks both."
}

pack() {
    readme >"$CASES/README"
    # .frtrace-comms/: the recorder's member files beside its dumps, no part of them
    if tar -czf "$OUT/gpu-dumps.tar.gz" --exclude=.frtrace-comms -C "$WORK/data" "$NAME"; then
        files=$(tar -tzf "$OUT/gpu-dumps.tar.gz" | grep -vc '/$')
        note "dumps: gpu-dumps.tar.gz holds $NAME/ ($files files)"
    else
        record FAIL pack "tar failed"
    fi
}

gpu_idle() {
    if bounded gpu-idle 30 nvidia-smi --query-compute-apps=pid,process_name \
        --format=csv,noheader && ! grep -q . "$STEP_OUT"; then
        record ok gpu-idle "no process left on the GPU"
    else
        record FAIL gpu-idle "$(tr '\n' ' ' <"$STEP_OUT")"
    fi
}

# --- the run ------------------------------------------------------------------------------------

versions
if [ "$MODE" = fake ]; then build_fake; else build_real; fi
SO=$TOP/$B/libfrtrace-recorder.so
frtrace_wrapper
NAME=gpu-$DEVICE-nccl$(nccl_version "${NCCL_ROOT:-/none}")
CASES=$WORK/data/$NAME
mkdir -p "$CASES"
: >"$CASES/COMPARE"
COMMON="FRTRACE_RANK=0 FRTRACE_LOG=info FRTRACE_GPU_EVENTS=2 NCCL_DEBUG=WARN"
HANG_TIMEOUT=3
[ "$MODE" = fake ] && HANG_TIMEOUT=2
if [ -x "$PROBE" ] && [ -f "$SO" ]; then
    probe_bare
    probe_ops
    probe_hang
    bench
else
    record FAIL probe "not built: $PROBE, $SO"
fi
torch_part
analyze
check_cases
pack
[ "$MODE" = gpu ] && command -v nvidia-smi >/dev/null 2>&1 && gpu_idle
note "result: $nok ok, $nfail failed, $nskip skipped ($(($(date +%s) - STARTED)) s)"
[ "$nfail" = 0 ]
