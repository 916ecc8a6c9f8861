#!/bin/sh
# The recorder never hurts its host (issue 20): the 4-rank job on the fake NCCL, with the recorder
# preloaded, under what a shared cluster throws at it — a child forked while the parent dumps, a
# file-size limit, a closed pipe on stderr, a fatal signal named as the dump signal, paths longer
# than any fixed buffer, a huge ring, links planted where the dumps and the trigger file go. The
# host is never killed, hung or redirected: it exits as it would have, the dump lands where it
# was asked to (or a warning says why not), and no file outside the dump directory changes.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/fakes/rec-lib.sh"
require_recorder 'the recorder under hostile conditions'

test_expect_success 'a child forked while the parent dumps never deadlocks at its exit dump' '
    DRIVER_ARGS=forkdump run_job FRTRACE_DUMP_ON_EXIT=1 FRTRACE_BUFFER_SIZE=20000 CALLS=20000 \
        FRTRACE_TIMEOUT_SEC=60 DUMPS_EXPECTED=0 &&
    cat job.out && grep -x "children 30 hung 0" job.out
'

test_expect_success 'a file-size limit below the dump: the host exits 0, a warning, no torn file' '
    # 100 blocks: 51 200 bytes in dash, 102 400 in bash; the fake needs 36 kB, a dump 250 kB
    (ulimit -f 100 && run_job FRTRACE_DUMP_ON_EXIT=1 DUMPS_EXPECTED=0 STEPS=300 FRTRACE_TIMEOUT_SEC=60) &&
    test "$(grep -c "exit 0" job.out)" = 4 &&
    grep -q "dump (exit) to .*/dumps/rank_0 failed: File too large; no file left behind" job.err &&
    test "$(ls -A dumps | grep -vc "^\.frtrace-comms$")" = 0
'

test_expect_success 'a closed pipe on stderr: the exit dump warns into it and the host still exits 0' '
    python3 - "$DRIVER" "$SO" <<-\PY
	import os, subprocess, sys
	r, w = os.pipe()
	os.close(r)
	env = dict(os.environ, FRTRACE_DUMP_DIR=os.getcwd() + "/dumps", FRTRACE_DUMP_ON_EXIT="1",
	           FRTRACE_TIMEOUT_SEC="60", DUMPS_EXPECTED="0", DEADLINE="8",
	           FAKE_SHM_TAG="pipe%d" % os.getpid(), LD_PRELOAD=sys.argv[2])
	p = subprocess.run([sys.argv[1]], stdout=subprocess.PIPE, stderr=w, env=env, timeout=30)
	out = p.stdout.decode()
	print(out)
	assert out.count("exit 0") == 4, out
	assert sorted(os.listdir("dumps"))[-1] == "rank_3"
	PY
'

test_expect_success 'FRTRACE_SIGNAL=11 is refused: a crash still kills the rank, with its fatal dump' '
    run_job FRTRACE_SIGNAL=11 CRASH=1@2 DEADLINE=4 DUMPS_EXPECTED=1 FRTRACE_TIMEOUT_SEC=60 || true &&
    grep -q "rank 1 signal 11" job.out &&
    grep -q "FRTRACE_SIGNAL=11 is a fatal signal (Segmentation fault).*; using USR2" job.err &&
    test "$(dump_field 1 "d[\"frtrace\"][\"trigger\"]")" = fatal:11
'

test_expect_success 'ILL, BUS, FPE, ABRT, KILL and STOP are refused as the dump signal too' '
    for sig in 4 BUS SIGFPE 6 KILL 19; do
        run_job FRTRACE_SIGNAL=$sig FRTRACE_DUMP_ON_EXIT=1 DUMPS_EXPECTED=0 FRTRACE_TIMEOUT_SEC=60 &&
        test "$(grep -c "exit 0" job.out)" = 4 &&
        grep -q "FRTRACE_SIGNAL=$sig is a fatal signal" job.err || return 1
    done
'

test_expect_success 'a 600-byte FRTRACE_DUMP_DIR is used whole, never cut at 511 bytes' '
    dir="$PWD/$(python3 -c "print(\"/\".join([\"d\" * 99] * 6))")" &&
    run_job FRTRACE_DUMP_DIR="$dir" FRTRACE_DUMP_ON_EXIT=1 DUMPS_EXPECTED=0 FRTRACE_TIMEOUT_SEC=60 &&
    test "$(grep -c "exit 0" job.out)" = 4 &&
    ls "$dir"/rank_0 "$dir"/rank_3 && test_expect_code 0 "$FRTRACE" "$dir" >out &&
    head -n 1 out | grep -q "^ok"
'

test_expect_success 'a dump directory longer than PATH_MAX (6 000 bytes) still gets every dump' '
    long=$(python3 -c "print(\"/\".join([\"d\" * 200] * 30))") &&
    run_job FRTRACE_DUMP_DIR="$PWD/deep/$long" FRTRACE_DUMP_ON_EXIT=1 DUMPS_EXPECTED=0 FRTRACE_TIMEOUT_SEC=60 &&
    test "$(grep -c "exit 0" job.out)" = 4 &&
    test "$(find deep -type f -name "rank_*" | wc -l)" = 4 &&
    test "$(find deep -type f -name "rank_*" -printf "%h\n" | sort -u)" = "deep/$long"
'

test_expect_success 'a 600-byte trigger path works: a timed-out rank makes every rank dump' '
    trig="$PWD/$(python3 -c "print(\"/\".join([\"t\" * 99] * 6))")/trigger" && mkdir -p "${trig%/trigger}" &&
    run_job FRTRACE_TRIGGER_FILE="$trig" STALL=2@2 &&
    test -f "$trig" && test "$(ls dumps | grep -c rank_)" = 4 && verdict_is hang 2
'

test_expect_success 'a 200-byte prefix is used whole; one too long for a file name is refused, said' '
    prefix=$(python3 -c "print(\"p\" * 200)") &&
    run_job FRTRACE_DUMP_PREFIX="$prefix" FRTRACE_DUMP_ON_EXIT=1 DUMPS_EXPECTED=0 FRTRACE_TIMEOUT_SEC=60 &&
    ls "dumps/${prefix}0" "dumps/${prefix}3" &&
    rm -rf dumps && prefix=$(python3 -c "print(\"q\" * 300)") &&
    run_job FRTRACE_DUMP_PREFIX="$prefix" FRTRACE_DUMP_ON_EXIT=1 DUMPS_EXPECTED=0 FRTRACE_TIMEOUT_SEC=60 &&
    grep -q "FRTRACE_DUMP_PREFIX (300 bytes) is too long: with the rank it must fit a file name of 255 bytes; using rank_" job.err &&
    ls dumps/rank_0
'

test_expect_success 'FRTRACE_BUFFER_SIZE=16777216 is bounded, with a warning, and the job runs' '
    run_job FRTRACE_BUFFER_SIZE=16777216 FRTRACE_DUMP_ON_EXIT=1 DUMPS_EXPECTED=0 FRTRACE_TIMEOUT_SEC=60 &&
    test "$(grep -c "exit 0" job.out)" = 4 &&
    grep -q "FRTRACE_BUFFER_SIZE=16777216 is more than 1000000 entries.*; using 1000000" job.err
'

test_expect_success 'links planted at the dump names and the trigger file: no file outside changes' '
    mkdir dumps && echo precious >victim && echo precious >expected &&
    for r in 0 1 2 3; do ln -s "$PWD/victim" dumps/rank_$r || return 1; done &&
    ln -s "$PWD/victim" trigger &&
    run_job STALL=2@2 DUMPS_EXPECTED=99 DEADLINE=5 && # the links count as dumps for the driver
    cmp victim expected && test ! -L dumps/rank_0 && test "$(ls dumps | grep -c rank_)" = 4 &&
    verdict_is hang 2
'

test_done
