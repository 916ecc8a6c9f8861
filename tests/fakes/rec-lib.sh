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
