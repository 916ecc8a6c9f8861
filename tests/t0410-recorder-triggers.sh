#!/bin/sh
# How dumps get requested (signal, trigger file), and how the recorder stays out of the way:
# graph capture, fork, ncclCommInitAll, recording switched off, call-only mode, and the real
# libnccl.so.2 on a machine without a GPU.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/fakes/rec-lib.sh"
require_recorder 'trigger and safety stories'

test_expect_success 'kill -USR2 dumps every rank while their main threads wait in a collective' '
    run_job SKIP=3@2 FRTRACE_TIMEOUT_SEC=60 SIGNAL_AFTER_MS=700 &&
    for r in 0 1 2 3; do test "$(dump_field $r "d[\"frtrace\"][\"trigger\"]")" = signal || exit 1; done &&
    test ! -e trigger &&
    verdict_is hang 3
'

test_expect_success 'FRTRACE_SIGNAL=USR1 moves the request to SIGUSR1' '
    run_job SKIP=3@2 FRTRACE_TIMEOUT_SEC=60 FRTRACE_SIGNAL=USR1 SIGNAL_NUM=10 SIGNAL_AFTER_MS=500 &&
    for r in 0 1 2 3; do test "$(dump_field $r "d[\"frtrace\"][\"trigger\"]")" = signal || exit 1; done
'

test_expect_success 'FRTRACE_SIGNAL=none installs no handler (USR2 keeps its default action)' '
    run_job SKIP=3@2 FRTRACE_TIMEOUT_SEC=60 FRTRACE_SIGNAL=none SIGNAL_AFTER_MS=500 &&
    test "$(grep -c "signal 12" job.out)" = 4 &&
    test ! -e dumps/rank_0
'

test_expect_success 'a trigger file that appears makes every rank dump' '
    ( sleep 1 && echo go >trigger ) &
    run_job SKIP=1@2 FRTRACE_TIMEOUT_SEC=60 &&
    wait &&
    for r in 0 1 2 3; do test "$(dump_field $r "d[\"frtrace\"][\"trigger\"]")" = trigger_file || exit 1; done &&
    verdict_is hang 1
'

test_expect_success 'the rank that times out creates the trigger file' '
    run_job STALL=2@1 &&
    test -s trigger &&
    verdict_is hang 2
'

test_expect_success 'no event is recorded or queried against a capturing stream' '
    DRIVER_ARGS=capture run_job FRTRACE_TIMEOUT_SEC=60 &&
    cat job.out &&
    grep -x "violations 0" job.out &&
    test "$(dump_field 0 "len(d[\"entries\"])")" = 5
'

test_expect_success 'a forked child stays inert: a dump signal neither kills it nor writes' '
    DRIVER_ARGS=fork run_job FRTRACE_TIMEOUT_SEC=60 &&
    grep -x "child exit 0" job.out &&
    test "$(ls dumps | wc -l)" = 1 &&
    test "$(dump_field 0 "len(d[\"entries\"])")" = 1
'

test_expect_success 'ncclCommInitAll: one group entry per device, named from the inner ncclGetUniqueId id' '
    DRIVER_ARGS=initall run_job FRTRACE_TIMEOUT_SEC=60 &&
    dump_field 0 "sorted(d[\"pg_config\"])" >names && cat names &&
    python3 -c "import json; n=json.load(open(\"names\")); assert len(n)==2 and n[0][:-2]==n[1][:-2] and n[0].endswith(\".0\") and n[1].endswith(\".1\"), n" &&
    test "$(dump_field 0 "sorted(c[\"comm_rank\"] for c in d[\"frtrace\"][\"comms\"].values())")" = "[0, 1]" &&
    test "$(dump_field 0 "sorted(c[\"comm_size\"] for c in d[\"frtrace\"][\"comms\"].values())")" = "[2, 2]" &&
    test "$(dump_field 0 "len(d[\"entries\"])")" = 2
'

test_expect_success 'the rest of the API: InitRankConfig names, InitRankScalable, Shrink ids, Abort/Revoke states, SimulateEnd drops its ops' '
    DRIVER_ARGS=lifecycle run_job FRTRACE_DUMP_ON_EXIT=1 DUMPS_EXPECTED=0 &&
    test "$(grep -c "exit 0" job.out)" = 4 &&
    for r in 0 1 2 3; do dump_field $r "sorted((g[\"desc\"], n) for n, g in d[\"pg_config\"].items())" >pg.$r || exit 1; done &&
    cat pg.0 && cmp pg.0 pg.1 && cmp pg.0 pg.2 &&
    python3 - <<-\PY
	import json, pickle
	d = [pickle.load(open("dumps/rank_%d" % r, "rb")) for r in range(4)]
	descs = sorted(g["desc"] for g in d[0]["pg_config"].values())
	assert descs == ["scalable", "undefined", "world-dp"], descs
	comms = [x["frtrace"]["comms"] for x in d]
	world = [n for n, g in d[0]["pg_config"].items() if g["desc"] == "world-dp"][0]
	shrunk = [n for n, c in comms[0].items() if c["parent"] == world][0]
	assert shrunk != world and all(shrunk in comms[r] for r in (0, 1, 2)), comms
	assert len(comms[3]) == 2 and shrunk not in comms[3], comms[3]
	assert [comms[r][shrunk]["comm_size"] for r in (0, 1, 2)] == [3, 3, 3]
	assert [comms[r][shrunk]["comm_rank"] for r in (0, 1, 2)] == [0, 1, 2]
	states = {d[0]["pg_config"][n]["desc"]: c["state"] for n, c in comms[0].items()}
	assert states == {"world-dp": "destroyed", "scalable": "aborted", "undefined": "revoked"}, states
	sizes = [e["input_sizes"] for e in d[0]["entries"]]
	assert sizes == [[[16]], [[32]], [[48]], [[48]], [[48]]], sizes
	assert [e["input_sizes"] for e in d[3]["entries"]] == [[[16]], [[32]]]
	assert [e["collective_seq_id"] for e in d[0]["entries"]] == [1, 1, 1, 2, 3]
	PY
'

test_expect_success 'FRTRACE_BUFFER_SIZE=0: nothing recorded, no dump, the job runs' '
    run_job FRTRACE_BUFFER_SIZE=0 FRTRACE_DUMP_ON_EXIT=1 DEADLINE=4 &&
    test "$(grep -c "exit 0" job.out)" = 4 &&
    test ! -e dumps
'

test_expect_success 'FRTRACE_GPU_EVENTS=0 records calls only and never times out' '
    run_job FRTRACE_GPU_EVENTS=0 SKIP=2@3 SIGNAL_AFTER_MS=1500 DEADLINE=4 &&
    test ! -e trigger &&
    test "$(dump_field 0 "d[\"frtrace\"][\"trigger\"]")" = signal &&
    test "$(dump_field 0 "sorted(set(e[\"state\"] for e in d[\"entries\"]))")" = "[\"scheduled\"]"
'

test_expect_success 'a small ring keeps the newest entries with consecutive record ids' '
    run_job FRTRACE_BUFFER_SIZE=7 FRTRACE_DUMP_ON_EXIT=1 DUMPS_EXPECTED=0 &&
    test "$(dump_field 2 "[e[\"record_id\"] for e in d[\"entries\"]]")" = "[29, 30, 31, 32, 33, 34, 35]"
'

if [ -f "$CUDA_HOME/lib64/libnccl.so.2" ] && [ -x "$SMOKE" ]; then
test_expect_success 'the shim exports only names the real libnccl.so.2 defines (26 of them)' '
    nm -D --defined-only "$SO" | awk "{print \$3}" | grep "nccl" | sort >shim &&
    nm -D --defined-only "$CUDA_HOME/lib64/libnccl.so.2" | awk "{print \$3}" | sort >nccl &&
    test "$(wc -l <shim)" = 26 && test -z "$(comm -23 shim nccl)"
'

test_expect_success 'the real libnccl.so.2 through the shim: version, id, clean init failure' '
    { FRTRACE_DUMP_DIR="$PWD/dumps" LD_PRELOAD="$SO" timeout 60 "$SMOKE" "$CUDA_HOME/lib64/libnccl.so.2" >out 2>err ||
      { cat out err; exit 1; }; } &&
    cat out err &&
    grep "ncclCommInitRank from .*libfrtrace-recorder.so" out &&
    grep -x "version 22809" out && grep -x "unique id ok" out && grep -x "done" out &&
    ! grep -x "init rank: no error" out
'
else
    test_skip "no real libnccl.so.2 under $CUDA_HOME/lib64" 'the real-library smoke test'
fi

test_done
