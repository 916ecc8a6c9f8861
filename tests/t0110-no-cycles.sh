#!/bin/sh
# A maintainer reads the code bottom-up (docs/ARCHITECTURE.md). Includes point down the
# pipeline, util -> load -> match -> verdict -> perf -> analysis.h -> report -> cli, each written
# with its folder (include_order.py reads them from the sources). Within each part, arrows
# between files go one way, so that a file can be understood (and tested) knowing only the files
# below it: call_graph.py reads who calls whom from the built object files; a cycle means a file
# calls up into one that calls it, and the story fails and names the files.
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
	grep -q "^formats/dump_pickle_fast.c -> .*formats/dump_builder.c" out &&
	grep -q "^formats/dump_json_fast.c -> .*formats/dump_builder.c" out &&
	! grep -- "-> .*formats/dump.c" out &&
	tail -n 1 out | grep -q " 0 cycles$"
'

test_expect_success 'every include points down the pipeline, written with its folder' '
	python3 "$TOP/tests/tools/include_order.py" "$TOP" >out || { cat out; exit 1; } &&
	grep -q "^[0-9][0-9]* files, 0 backward includes$" out
'

test_expect_success 'the include check names a backward include' '
	mkdir -p tree/analyzer/match tree/analyzer/report &&
	echo "#include \"report/report.h\"" >tree/analyzer/match/match.c &&
	: >tree/analyzer/report/report.h &&
	test_expect_code 1 python3 "$TOP/tests/tools/include_order.py" tree >out &&
	grep -q "^analyzer/match/match.c: includes report/report.h, a later stage$" out
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
