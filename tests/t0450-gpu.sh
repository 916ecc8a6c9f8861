#!/bin/sh
# The GPU check of issue 24 (tests/gpu/run.sh) on the fakes: a user without a GPU runs
# `FAKE=1 sh tests/gpu/run.sh` and gets a summary where every step passed, the dumps packed as a
# testdata folder that the checker accepts; a failing step is recorded while the others still
# run, and the time budget bounds the run. The dumps that runs on real GPUs left under
# testdata/gpu-*/ still read as their EXPECTED and COMPARE files say.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/fakes/rec-lib.sh"
CHECKS="$TOP/tests/gpu/gpu_checks.py"

found=0
for root in "$TOP"/testdata/gpu-*/; do
    [ -d "$root" ] || continue
    found=1
    test_expect_success "committed GPU dumps $(basename "$root"): EXPECTED and COMPARE hold" "
        python3 '$CHECKS' cases '$root' >out &&
        cat out && ! grep -q '^FAIL' out
    "
done
[ $found = 1 ] || test_skip "no testdata/gpu-*/ yet (tests/gpu/run.sh makes them on a GPU)" \
    'committed GPU dumps read as EXPECTED says'

if [ ! -f "$SO" ] || [ ! -x "$TOP/$BUILD/gpu/nccl-probe-fake" ]; then
    test_skip "the recorder was not built (no \$CUDA_HOME/include/nccl.h)" 'FAKE=1 tests/gpu/run.sh'
    test_done
    exit 0
fi

# fake_run OUT [VAR=value...]: the script on the fakes, results in OUT, its stdout in run.out
fake_run() {
    fake_out=$1
    shift
    env FAKE=1 OUT="$fake_out" BUDGET_SEC=120 "$@" sh "$TOP/tests/gpu/run.sh" >run.out 2>&1
}
RUN="$TRASH/fake-run" # the first test's results, read by the next two

test_expect_success 'FAKE=1 run.sh: every step passes, and the summary says so last' '
    fake_run "$RUN" &&
    ln -s "$RUN" out && cat out/summary.txt &&
    tail -n 1 out/summary.txt | grep "^result: [0-9]* ok, 0 failed" &&
    grep "^ok probe-bare: every call passes without the recorder" out/summary.txt &&
    grep "^ok probe-ops: every call passes under the recorder, dumped on SIGUSR2" out/summary.txt &&
    grep "^ok probe-hang: the watchdog dumped" out/summary.txt &&
    grep "^ok bench: .*no recorder [0-9.]*, paced [0-9.]*; FRTRACE_GPU_EVENTS=0 [0-9.]* " \
        out/summary.txt &&
    grep "^ok bench: .*; FRTRACE_GPU_EVENTS=2 [0-9.]* (+-*[0-9]*), paced [0-9.]* (+-*[0-9]*)$" \
        out/summary.txt &&
    grep -E "^(skipped torch: no torch/GPU|ok torch-gloo)" out/summary.txt &&
    grep "^ok probe-ops: EXPECTED holds (36 entries)" out/summary.txt &&
    grep "^nccl: header [0-9.]*" out/summary.txt &&
    cmp out/summary.txt run.out &&
    ls out >files && test "$(wc -l <files)" -le 8 &&
    grep -x gpu-dumps.tar.gz files && grep -x run.log files && grep -x analysis.txt files &&
    grep "^ok: 1 rank, 4 groups" out/analysis.txt
'

test_expect_success 'the packed dumps are a testdata folder the checker accepts, and it checks' '
    mkdir "$TRASH/data" && tar -xzf "$RUN/gpu-dumps.tar.gz" -C "$TRASH/data" &&
    ln -s "$TRASH/data" data &&
    root=$(echo data/gpu-fake-nccl*) && test -f "$root/README" &&
    test -f "$root/probe-ops/rank_0" && test -f "$root/probe-hang/EXPECTED" &&
    ! find data -name ".frtrace-comms" | grep -q . &&
    python3 "$CHECKS" cases "$root" >ok.out && cat ok.out &&
    grep "^ok probe-hang: EXPECTED holds (2 entries)" ok.out &&
    sed "s/^pending: .*/pending: nccl:all_reduce/" "$root/probe-ops/EXPECTED" >e &&
    mv e "$root/probe-ops/EXPECTED" &&
    test_expect_code 1 python3 "$CHECKS" cases "$root" >bad.out &&
    pending="nccl:all_reduce nccl:all_reduce nccl:broadcast nccl:coalesced" &&
    grep "^FAIL probe-ops: pending $pending, EXPECTED nccl:all_reduce$" bad.out
'

test_expect_success 'compare: a dump agrees with itself, not with another job or other durations' '
    root=$(echo "$TRASH"/data/gpu-fake-nccl*) &&
    python3 "$CHECKS" compare "$root/probe-ops" "$root/probe-ops" durations >same.out &&
    grep "^ok .*: 36 entries in 4 groups; durations: 32 compared (of 32 timed in A)" same.out &&
    test_expect_code 1 python3 "$CHECKS" compare "$root/probe-ops" "$root/probe-hang" >other.out &&
    grep "^FAIL" other.out && grep "group 0 (.*): 32 entries vs 2" other.out &&
    mkdir slow && "$FRTRACE" show "$root/probe-ops/rank_0" | python3 -c "
import json, sys
d = json.load(sys.stdin)
for e in d[\"entries\"]:
    if e.get(\"duration_ms\") is not None and e[\"profiling_name\"] == \"nccl:reduce\":
        e[\"duration_ms\"] += 1.0
json.dump(d, open(\"slow/rank_0\", \"w\"))" &&
    python3 "$CHECKS" compare "$root/probe-ops" slow >slow1.out &&
    test_expect_code 1 python3 "$CHECKS" compare "$root/probe-ops" slow durations >slow.out &&
    cat slow.out && test "$(grep -c "^    duration nccl:reduce #" slow.out)" = 3
'

test_expect_success 'a failing step is recorded, the others still run, the exit status says so' '
    test_expect_code 1 fake_run "$PWD/out" FRTRACE_SIGNAL=none &&
    grep "^FAIL probe-ops: " out/summary.txt &&
    grep "^ok probe-hang: " out/summary.txt && grep "^ok bench: " out/summary.txt &&
    tail -n 1 out/summary.txt | grep "^result: [0-9]* ok, [1-9][0-9]* failed"
'

test_expect_success 'BUDGET_SEC bounds the run: the steps past it are not run, and say so' '
    test_expect_code 1 env FAKE=1 OUT="$PWD/short" BUDGET_SEC=10 sh "$TOP/tests/gpu/run.sh" \
        >short.out 2>&1 &&
    grep "^FAIL build: not run: the time budget is spent" short/summary.txt &&
    grep "^FAIL probe-ops: .*not run: the time budget is spent" short/summary.txt &&
    tail -n 1 short/summary.txt | grep "^result: "
'
test_done
