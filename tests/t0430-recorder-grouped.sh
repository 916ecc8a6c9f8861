#!/bin/sh
# Grouped NCCL calls (a send/recv batch, coalesced collectives) recorded as PyTorch's
# coalescing manager records them: the committed dumps of a healthy and a skipping 4-rank job
# keep their verdicts, a fresh job shows the layout, and dumps are written safely.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/fakes/rec-lib.sh"

CASES="$TOP/testdata/recorder-fake-nccl"

# Each case's EXPECTED: "status: S" and "culprits: R R" (frtrace's verdict on its dumps).
for case in healthy skip; do
test_expect_success "committed recorder dumps ($case): the verdict and culprits in EXPECTED" '
    "$FRTRACE" -f json "$CASES/'$case'" >db.json 2>err || true &&
    python3 - "$CASES/'$case'/EXPECTED" <<-\PY
	import json, sys
	want = dict(l.split(":", 1) for l in open(sys.argv[1]).read().splitlines())
	v = json.load(open("db.json"))["verdict"]
	got = (v["status"], v["culprit_ranks"])
	exp = (want["status"].strip(), [int(r) for r in want["culprits"].split()])
	assert got == exp, "verdict %r, EXPECTED %r" % (got, exp)
	PY
'
done

test_expect_success 'committed dumps list every communicator'"'"'s members (global ranks) in pg_config' '
    python3 - "$CASES/skip" <<-\PY
	import pickle, sys
	ranks = sorted(g["ranks"] for g in pickle.load(open(sys.argv[1] + "/rank_1", "rb"))["pg_config"].values())
	assert ranks == ["[0, 1, 2, 3]", "[1, 3]"], ranks
	PY
'

if [ -f "$SO" ] && [ -x "$DRIVER" ]; then
test_expect_success 'coalesced collectives: one collective_seq_id per group, one end marker per comm' '
    run_job GROUPED=1 STEPS=2 FRTRACE_DUMP_ON_EXIT=1 DUMPS_EXPECTED=0 &&
    test "$(grep -c "exit 0" job.out)" = 4 &&
    dump_field 0 "[(e[\"profiling_name\"], e[\"collective_seq_id\"], e[\"p2p_seq_id\"], e[\"is_p2p\"]) for e in d[\"entries\"][6:10]]" >grouped &&
    cat grouped &&
    test "$(cat grouped)" = "[[\"nccl:all_reduce\", 3, 2, false], [\"nccl:all_reduce\", 3, 2, false], [\"nccl:broadcast\", 3, 0, false], [\"nccl:coalesced\", 3, 2, false]]" &&
    verdict_is ok ""
'

test_expect_success 'a rank that leaves out one all_reduce and goes on (send/recv batches on the same communicator) is named, not its waiting peers' '
    run_job GROUPED=1 OMIT=2@5 STEPS=6 &&
    verdict_is hang "2" &&
    summary_has "rank 2 never joined" &&
    python3 -c "
import json
v = json.load(open(\"db.json\"))[\"verdict\"]
assert \"stalled\" not in v[\"summary\"], v[\"summary\"]
assert v[\"alternatives\"] == [], v"
'

test_expect_success 'a collective never shares its sequence id with the next send/recv batch' '
    run_job STEPS=3 FRTRACE_DUMP_ON_EXIT=1 DUMPS_EXPECTED=0 &&
    dump_field 3 "[(e[\"collective_seq_id\"], e[\"p2p_seq_id\"]) for e in d[\"entries\"] if e[\"profiling_name\"] in (\"nccl:all_reduce\", \"nccl:send 3->0\")]" >ids &&
    test "$(cat ids)" = "[[1, 0], [1, 2], [3, 2], [3, 4], [5, 4], [5, 6]]"
'
else
    test_skip "the recorder was not built (no \$CUDA_HOME/include/nccl.h)" 'fresh grouped jobs'
fi

# A crash during a normal dump must not write into the file the dumper is writing.
if [ -f "$SO" ] && [ -x "$DRIVER" ] && command -v strace >/dev/null 2>&1; then
test_expect_success 'dumps: an exclusive temporary file of a random name per dump, fsync before rename' '
    FAKE_SHM_TAG="t$$-strace" strace -f -o trace -e trace=openat,fsync,rename,renameat,renameat2 env \
        FRTRACE_DUMP_DIR="$PWD/dumps" FRTRACE_TRIGGER_FILE="$PWD/trigger" FRTRACE_TIMEOUT_SEC=1 \
        DEADLINE=8 DUMPS_EXPECTED=4 FRTRACE_LOG=warn CRASH=1@1 LD_PRELOAD="$SO" \
        "$DRIVER" >job.out 2>job.err || true && # rank 1 crashes on purpose: the checks below judge
    rm -f /dev/shm/frtrace-fake-t$$-strace-* &&
    grep "rank 1 signal 11" job.out &&
    python3 - <<-\PY
	import re
	lines = open("trace").read().splitlines()
	opening, fd_of, synced, names = {}, {}, set(), []  # per pid: name being opened; (pid, fd) -> name
	for l in lines:
	    m = re.match(r"(\d+) +openat\(.*\"(\.frtrace-[0-9a-f]{16}\.tmp)\", ([A-Z_|]*)", l)
	    if m:
	        assert "O_EXCL" in m.group(3) and "O_NOFOLLOW" in m.group(3), "not exclusive: " + l
	        opening[m.group(1)] = m.group(2)
	        names.append(m.group(2))
	    m = re.match(r"(\d+) +(?:openat\(.*|<\.\.\. openat resumed>.*) = (\d+)$", l)
	    if m and m.group(1) in opening: fd_of[m.group(1), m.group(2)] = opening.pop(m.group(1))
	    m = re.match(r"(\d+) +fsync\((\d+)", l)
	    if m and (m.group(1), m.group(2)) in fd_of: synced.add(fd_of[m.group(1), m.group(2)])
	    m = re.match(r"\d+ +rename(?:at2?)?\((?:\d+, )?\"([^\"]*)\"", l)
	    if m and m.group(1).startswith(".frtrace-"):
	        assert m.group(1) in synced, "renamed before fsync: " + m.group(1)
	assert synced, "no fsync of a temporary dump"
	assert len(names) >= 4 and len(set(names)) == len(names), names  # one fresh name per dump
	PY
'
else
    test_skip 'strace (or the recorder) is missing' 'temporary dump files per writer'
fi

test_done
