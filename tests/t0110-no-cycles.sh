#!/bin/sh
# A maintainer reads the code bottom-up: within each part, arrows between files go one way, so
# that a file can be understood (and tested) knowing only the files below it. call_graph.py
# reads who calls whom from the built object files; a cycle means a file calls up into one
# that calls it, and the story fails and names the files.
. "$(dirname "$0")/lib.sh"

CALL_GRAPH="python3 $TOP/tests/tools/call_graph.py"
OBJ="$TOP/$BUILD/obj"
PIC="$TOP/$BUILD/pic"

test_expect_success 'analyzer/: no file calls up into a file that calls it' '
	$CALL_GRAPH --edges --only analyzer/ "$OBJ" >out || { grep -v " -> " out; exit 1; } &&
	grep -q "^analyzer/match/match.c -> " out &&
	tail -n 1 out | grep -q " 0 cycles$"
'

test_expect_success 'formats/: no file calls up into a file that calls it' '
	$CALL_GRAPH --edges --only formats/ "$OBJ" >out || { grep -v " -> " out; exit 1; } &&
	grep -q "^formats/dump_fast.c -> .*formats/dump_builder.c" out &&
	grep -q "^formats/dump_json_fast.c -> .*formats/dump_builder.c" out &&
	! grep -- "-> .*formats/dump.c" out &&
	tail -n 1 out | grep -q " 0 cycles$"
'

if [ -d "$PIC/recorder" ]; then
	test_expect_success 'recorder/: no cycle, and nothing calls up into the shim' '
		$CALL_GRAPH --edges --only recorder/ "$PIC" >out || { grep -v " -> " out; exit 1; } &&
		grep -q "^recorder/shim.c -> .*recorder/recorder.c" out &&
		! grep -- "-> .*recorder/shim.c" out &&
		tail -n 1 out | grep -q " 0 cycles$"
	'
else
	test_skip "the recorder was not built (no \$CUDA_HOME/include/nccl.h)" \
		'recorder/: no cycle, and nothing calls up into the shim'
fi

test_done
