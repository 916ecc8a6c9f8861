# rec-lib.sh — helpers for the recorder's story scripts (t04xx-*.sh); source after lib.sh.
#
#   run_job [VAR=value ...]                    the fake 4-rank job, shim preloaded, in $PWD:
#                                              dumps in ./dumps, trigger file ./trigger,
#                                              1 s timeout; stdout in job.out, stderr in job.err
#                                              (DRIVER_ARGS: the driver's mode; EXTRA_PRELOAD:
#                                              libraries preloaded after the shim)
#   verdict_is STATUS "R R"                    the analyzer's verdict and culprits on ./dumps
#   summary_has TEXT                           the summary of the last verdict_is contains TEXT
#   dump_field RANK 'python expr on d'         evaluates an expression on rank RANK's dump;
#                                              prints a string as is, anything else as JSON
#   run_py_job [VAR=value ...]                 the same 4-rank job in Python (py_job.py, ctypes
#                                              over the fakes), one process per rank launched as
#                                              torchrun would (RANK, LOCAL_RANK, WORLD_SIZE); ends
#                                              them 300 ms after the 4 dumps exist (or after 20 s)
# Skips everything (and ends the script) when the shim was not built (no nccl.h).

SO="$TOP/$BUILD/libfrtrace-recorder.so"
DRIVER="$TOP/$BUILD/fakes/frtrace-driver"
SMOKE="$TOP/$BUILD/fakes/smoke-real"
ASIG_TRAP="$TOP/$BUILD/fakes/libasig-trap.so"
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
# ASan: our preload comes before libasan in the link order; the crash test needs the
# SIGSEGV to reach the recorder's handler and then kill the process, not ASan's report.
ASAN_OPTIONS="verify_asan_link_order=0:handle_segv=0:handle_abort=0:detect_leaks=0:allow_user_segv_handler=1"
export SO DRIVER SMOKE ASIG_TRAP ASAN_OPTIONS

require_recorder() {
    if [ ! -f "$SO" ] || [ ! -x "$DRIVER" ]; then
        test_skip "the recorder was not built (no \$CUDA_HOME/include/nccl.h)" "$1"
        test_done
        exit 0
    fi
}

job_number=0
# Each job's shared-memory segments carry a tag of their own, removed after the job even when
# the driver was killed.
run_job() {
    job_number=$((job_number + 1))
    FAKE_SHM_TAG="t$$-$job_number"
    export FAKE_SHM_TAG
    run_job_with_tag "$@"
    status=$?
    rm -f /dev/shm/frtrace-fake-"$FAKE_SHM_TAG"-*
    return $status
}

run_job_with_tag() {
    env FRTRACE_DUMP_DIR="$PWD/dumps" FRTRACE_TRIGGER_FILE="$PWD/trigger" \
        FRTRACE_TIMEOUT_SEC=1 DEADLINE=8 DUMPS_EXPECTED=4 FRTRACE_LOG=warn "$@" \
        LD_PRELOAD="$SO${EXTRA_PRELOAD:+ $EXTRA_PRELOAD}" timeout 30 "$DRIVER" ${DRIVER_ARGS:-} >job.out 2>job.err
}

verdict_is() {
    want_status=$1 want_culprits=$2
    "$FRTRACE" -f json dumps >db.json 2>analyzer.err || true
    python3 - "$want_status" "$want_culprits" <<'PY'
import json, sys
db = json.load(open("db.json"))
v = db["verdict"]
want = [int(x) for x in sys.argv[2].split()]
if v["status"] != sys.argv[1] or v["culprit_ranks"] != want:
    sys.exit("verdict %r, wanted %s %s" % (v, sys.argv[1], want))
PY
}

summary_has() {
    python3 - "$1" <<'PY'
import json, sys
s = json.load(open("db.json"))["verdict"]["summary"]
if sys.argv[1] not in s:
    sys.exit("summary %r lacks %r" % (s, sys.argv[1]))
PY
}

dump_field() {
    python3 - "$1" "$2" <<'PY'
import pickle, sys, json
raw = open("dumps/rank_" + sys.argv[1], "rb").read()
d = json.loads(raw) if raw[:1] == b"{" else pickle.loads(raw)
r = eval(sys.argv[2], {"d": d})
print(r if isinstance(r, str) else json.dumps(r))
PY
}

# One python3 per rank; each is ended by its pid once the dumps exist (they hang by design).
run_py_job() {
    job_number=$((job_number + 1))
    FAKE_SHM_TAG="t$$-py$job_number"
    export FAKE_SHM_TAG
    rm -rf uid dumps trigger
    pids=""
    for r in 0 1 2 3; do
        env RANK=$r LOCAL_RANK=$r WORLD_SIZE=4 FAKES="$TOP/$BUILD/fakes" ID_FILE="$PWD/uid" \
            FRTRACE_DUMP_DIR="$PWD/dumps" FRTRACE_TRIGGER_FILE="$PWD/trigger" \
            FRTRACE_TIMEOUT_SEC=1 FRTRACE_LOG=warn "$@" LD_PRELOAD="$SO" \
            timeout 40 python3 "$TOP/tests/fakes/py_job.py" >job$r.out 2>job$r.err &
        pids="$pids $!"
    done
    waited=0
    while [ "$(ls dumps 2>/dev/null | grep -cE '^rank_[0-9]+$')" -lt 4 ] && [ $waited -lt 200 ]; do
        sleep 0.1
        waited=$((waited + 1))
    done
    sleep 0.3
    kill $pids 2>/dev/null
    wait
    rm -f /dev/shm/frtrace-fake-"$FAKE_SHM_TAG"-*
    [ "$(ls dumps 2>/dev/null | grep -cE '^rank_[0-9]+$')" -eq 4 ]
}

# Whether python3 is a CPython whose stacks the recorder reads (3.11 to 3.13).
python_stacks_readable() {
    python3 -c 'import sys, platform; sys.exit(not (platform.python_implementation() == "CPython" and (3, 11) <= sys.version_info[:2] <= (3, 13)))'
}
