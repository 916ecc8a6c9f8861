#!/bin/sh
# An on-call engineer points frtrace at the wrong place, or at a directory with junk in it:
# every mistake gets a message that names the path and what is wrong, exit status 2 when
# nothing could be analyzed, and junk files never stop the analysis of the real dumps.
. "$(dirname "$0")/lib.sh"

DEMO="$TOP/testdata/demo-hang"

test_expect_success 'an empty directory: exit 2, and the message names it' '
	mkdir empty &&
	if "$FRTRACE" empty >out 2>err; then exit 1; else test $? -eq 2; fi &&
	grep -q "empty: no dump files found" err &&
	test ! -s out
'

test_expect_success 'a directory that does not exist: exit 2 with the reason' '
	if "$FRTRACE" does-not-exist 2>err; then exit 1; else test $? -eq 2; fi &&
	grep -q "does-not-exist: cannot read directory: No such file or directory" err
'

test_expect_success 'no directory at all, or an unknown option: usage error, exit 2' '
	if "$FRTRACE" 2>err; then exit 1; else test $? -eq 2; fi &&
	grep -q "no dump directory given" err &&
	if "$FRTRACE" --no-such-option "$DEMO" 2>err; then exit 1; else test $? -eq 2; fi &&
	grep -q "unknown option" err
'

test_expect_success 'a junk file named like a dump is reported by path; the rest is analyzed' '
	mkdir dumps && cp "$DEMO"/* dumps/ &&
	printf "garbage\n" >dumps/nccl_trace_rank_9 &&
	if "$FRTRACE" dumps >out 2>err; then exit 1; else test $? -eq 1; fi &&
	grep -q "dumps/nccl_trace_rank_9: not a Flight Recorder dump (neither a pickle nor JSON)" err &&
	head -n 1 out | grep -q "^hang: rank 2 never joined"
'

test_expect_success 'only junk: nothing readable, exit 2' '
	mkdir junk && printf "x" >junk/rank_0 && printf "{" >junk/rank_1 &&
	if "$FRTRACE" junk >out 2>err; then exit 1; else test $? -eq 2; fi &&
	grep -q "junk/rank_0: not a Flight Recorder dump" err && grep -q "junk/rank_1: " err
'

test_done
