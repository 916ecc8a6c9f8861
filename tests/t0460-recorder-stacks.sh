#!/bin/sh
# Where the culprit is now, and which machine it is (issue 23): the recorder's dumps carry every
# thread's stack and the process's identity, and the report names the culprit's host, GPU and
# current frames, with every rank's stack merged. Jobs: the fake NCCL driven from Python (ctypes,
# tests/fakes/py_job.py) and from C (the driver); `frtrace stacks` for flame graphs; --hosts for
# PyTorch's own dumps.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/fakes/rec-lib.sh"
require_recorder 'stacks and identity stories'

HOST=$(hostname)

if python_stacks_readable; then
test_expect_success 'a Python rank stuck in its data loader: text, markdown and db.json name its host, GPU and function' '
    run_py_job STUCK=2@2 &&
    verdict_is hang 2 &&
    test_expect_code 1 "$FRTRACE" --width 0 dumps >report.txt &&
    cat report.txt &&
    grep -F "rank 2 on $HOST, GPU 2 (0000:3A:00.0), pid" report.txt &&
    grep -F "which made the rank'"'"'s last NCCL call:" report.txt &&
    grep -F "load_batch (py_job.py:63)" report.txt &&
    grep -F "  ranks 0,1,3: in all_reduce_and_wait at py_job.py:79 (in cuStreamSynchronize)" report.txt &&
    grep -F "  rank 2: in load_batch at py_job.py:63 (in time_sleep)" report.txt &&
    test_expect_code 1 "$FRTRACE" -f markdown dumps >report.md &&
    grep -F "## Where the culprit is now" report.md &&
    grep -F "**Rank 2** on \`$HOST, GPU 2 (0000:3A:00.0)\`" report.md &&
    grep -F "| 0,1,3 | \`in all_reduce_and_wait at py_job.py:79 (in cuStreamSynchronize)\` |" report.md &&
    python3 "$TOP/tests/tools/validate_db.py" db.json &&
    python3 - "$HOST" <<-\PY
	import json, sys
	w = json.load(open("db.json"))["whereabouts"]
	c = w["culprits"]
	assert [x["rank"] for x in c] == [2], c
	assert c[0]["host"] == sys.argv[1] and c[0]["host_from"] == "dump" and c[0]["local_rank"] == 2, c
	assert c[0]["cuda_device"]["index"] == 2 and c[0]["cuda_device"]["pci_bus_id"] == "0000:3A:00.0", c
	assert c[0]["cuda_device"]["uuid"].startswith("GPU-") and c[0]["nccl_version"] == "2.28.9", c
	main = [t for t in c[0]["threads"] if t["matters"]]
	assert len(main) == 1 and main[0]["made_last_call"], main
	assert main[0]["python"][0]["name"] == "load_batch", main
	groups = {tuple(g["ranks"]): g for g in w["stack_groups"]}
	assert sorted(groups) == [(0, 1, 3), (2,)], groups
	assert groups[(0, 1, 3)]["python"][0]["name"] == "all_reduce_and_wait", groups
	assert "cuStreamSynchronize" in [f["name"] for f in groups[(0, 1, 3)]["native"]], groups
	PY
'

test_expect_success 'a rank holding the GIL in C code still dumps at once, its threads read without it' '
    run_py_job GIL=2@2 &&
    python3 - <<-\PY
	import os, pickle
	late = os.path.getmtime("dumps/rank_2") - os.path.getmtime("trigger")
	assert late < 3, "rank 2 dumped %.1f s after the trigger file" % late
	d = pickle.load(open("dumps/rank_2", "rb"))
	threads = d["frtrace_stacks"]
	spinner = [t for t in threads if t["python"] and t["python"][0]["name"] == "hold_the_gil"]
	assert spinner and spinner[0]["native"][0]["name"] == "fakeHostSpin", threads
	waiter = [t for t in threads if t["python"] and t["python"][0]["name"] == "wait_for_gil"]
	assert waiter, threads
	PY
'
else
    test_skip "python3 is not CPython 3.11-3.13 (its stacks are not read)" 'Python stacks stories'
fi

test_expect_success 'a C program stuck in a static function of its own: that frame is in its stack' '
    run_job SKIP=2@3 &&
    verdict_is hang 2 &&
    test_expect_code 1 "$FRTRACE" --width 0 dumps >report.txt &&
    cat report.txt &&
    grep -F "rank 2 on $HOST, GPU 0 (0000:1A:00.0), pid" report.txt &&
    grep -F "stuck_in_host_code (frtrace-driver)" report.txt &&
    grep -F "rank 2: in stuck_in_host_code (frtrace-driver)" report.txt &&
    grep -E "ranks 0,1,3: in (cuStreamSynchronize|pthread_cond_wait)" report.txt
'

test_expect_success 'FRTRACE_STACKS=fp: the frame-pointer walk and the ELF symbol tables find it too' '
    run_job SKIP=2@3 FRTRACE_STACKS=fp &&
    dump_field 2 "[f[\"name\"] for t in d[\"frtrace_stacks\"] for f in t[\"native\"]]" >names &&
    grep -F "\"stuck_in_host_code\"" names &&
    dump_field 2 "d[\"frtrace_stacks\"][0][\"note\"]" >note &&
    grep -F "frame pointers (FRTRACE_STACKS=fp)" note
'

test_expect_success 'FRTRACE_STACKS=0: no stacks in the dumps, the identity still' '
    run_job SKIP=2@3 FRTRACE_STACKS=0 &&
    test "$(dump_field 2 "\"frtrace_stacks\" in d")" = false &&
    test "$(dump_field 2 "d[\"frtrace_identity\"][\"cuda_device\"][\"pci_bus_id\"]")" = 0000:1A:00.0 &&
    test_expect_code 1 "$FRTRACE" dumps >report.txt &&
    grep -F "rank 2 on $HOST, GPU 0 (0000:1A:00.0), pid" report.txt &&
    ! grep -F "every rank at dump time" report.txt &&
    test_expect_code 1 "$FRTRACE" stacks dumps >folded 2>err &&
    test ! -s folded && grep -F "no dump in dumps has stacks" err
'

test_expect_success 'JSON dumps (FRTRACE_FORMAT=json) carry the same keys' '
    run_job SKIP=2@3 FRTRACE_FORMAT=json &&
    test "$(dump_field 2 "d[\"frtrace_identity\"][\"cuda_device\"][\"index\"]")" = 0 &&
    test_expect_code 1 "$FRTRACE" dumps >report.txt &&
    grep -F "rank 2: in stuck_in_host_code (frtrace-driver)" report.txt
'

test_expect_success 'frtrace stacks: folded stacks a flame-graph tool reads, counted over ranks' '
    run_job SKIP=2@3 &&
    "$FRTRACE" stacks dumps >folded &&
    cat folded &&
    "$FRTRACE" stacks --by-rank dumps >by-rank &&
    "$FRTRACE" stacks --selected-ranks 2 dumps >only2 &&
    python3 - <<-\PY
	import pickle, re
	threads = sum(len(pickle.load(open("dumps/rank_%d" % r, "rb"))["frtrace_stacks"]) for r in range(4))
	def parse(path):
	    out = {}
	    for line in open(path).read().splitlines():
	        m = re.fullmatch(r"(.+) ([0-9]+)", line)  # flamegraph.pl: the count after the last space
	        assert m and "\t" not in line, line
	        frames = m.group(1).split(";")
	        assert all(frames), line
	        out[m.group(1)] = int(m.group(2))
	    return out
	folded = parse("folded")
	assert sum(folded.values()) == threads, (folded, threads)
	assert list(folded) == sorted(folded), "lines not sorted"
	stuck = [s for s in folded if "stuck_in_host_code" in s.split(";")]
	assert len(stuck) == 1 and folded[stuck[0]] == 1, folded
	assert stuck[0].split(";")[-1] == "pause" and "job" in stuck[0].split(";"), stuck
	by_rank = parse("by-rank")
	assert sum(by_rank.values()) == threads and all(s.startswith("rank ") for s in by_rank), by_rank
	only2 = parse("only2")
	assert any("stuck_in_host_code" in s for s in only2) and not any("cuStreamSynchronize" in s for s in only2), only2
	PY
'

test_expect_success 'frtrace stacks: input text is shown, never obeyed; a ";" never splits a frame' '
    run_job SKIP=2@3 &&
    python3 - <<-\PY &&
	import pickle
	d = pickle.load(open("dumps/rank_1", "rb"))
	t = d["frtrace_stacks"][0]
	t["thread_name"] = "evil\x1b]0;owned\x07\nname"
	t["native"][0]["name"] = "a;b\u202e"
	pickle.dump(d, open("dumps/rank_1", "wb"), protocol=2)
	PY
    "$FRTRACE" stacks dumps >folded &&
    test "$(grep -c "^evil" folded)" = 1 &&
    grep -F "evil\\x1b]0:owned\\x07\\nname;" folded &&
    grep -F "a:b\\u202e" folded &&
    ! grep -q "$(printf "\\033")" folded &&
    test_expect_code 1 "$FRTRACE" dumps >report.txt &&
    ! grep -q "$(printf "\\033")" report.txt
'

test_expect_success '--hosts FILE names the culprit'"'"'s host for PyTorch'"'"'s own dumps' '
    run_job SKIP=1@2 FRTRACE_STACKS=0 &&
    python3 - <<-\PY &&
	import pickle
	for r in range(4):
	    d = pickle.load(open("dumps/rank_%d" % r, "rb"))
	    for k in ("frtrace", "frtrace_identity", "frtrace_stacks"):
	        d.pop(k, None)
	    pickle.dump(d, open("dumps/rank_%d" % r, "wb"), protocol=2)
	PY
    test_expect_code 1 "$FRTRACE" dumps >plain.txt &&
    ! grep -F "where the culprit" plain.txt &&
    printf "# srun -l hostname\n0: node-10\n1: node-17\n2 node-21\n\n3 node-33\n" >hosts &&
    test_expect_code 1 "$FRTRACE" --hosts hosts dumps >report.txt &&
    grep -F "  rank 1 on node-17" report.txt &&
    test_expect_code 1 "$FRTRACE" --hosts hosts -f json dumps >db.json &&
    python3 "$TOP/tests/tools/validate_db.py" db.json &&
    python3 -c "import json; c=json.load(open(\"db.json\"))[\"whereabouts\"][\"culprits\"]; assert c==[dict(c[0], rank=1, host=\"node-17\", host_from=\"hosts_file\")], c"
'

test_expect_success '--hosts FILE: a line that is no RANK HOST, or a rank twice, is an error naming the line' '
    run_job SKIP=1@2 FRTRACE_STACKS=0 &&
    printf "0 node-10\n1 node-17 extra\n" >bad &&
    test_expect_code 2 "$FRTRACE" --hosts bad dumps 2>err &&
    grep -F "bad:2: more than one word after the rank" err &&
    printf "0 a\n0 b\n" >twice &&
    test_expect_code 2 "$FRTRACE" --hosts twice dumps 2>err &&
    grep -F "twice: rank 0 is given twice" err &&
    test_expect_code 2 "$FRTRACE" --hosts missing-file dumps 2>err &&
    grep -F "missing-file: cannot read the hosts file" err
'

test_done
