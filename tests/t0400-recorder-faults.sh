#!/bin/sh
# A user preloads the recorder into an unchanged 4-rank NCCL job (the fake NCCL/CUDA stack:
# processes really wait for each other), something goes wrong, every rank leaves a dump, and
# `frtrace` names the rank at fault.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/fakes/rec-lib.sh"
require_recorder 'fault-injection stories'

test_expect_success 'a healthy job leaves dumps at exit and the verdict is ok' '
    run_job FRTRACE_DUMP_ON_EXIT=1 DUMPS_EXPECTED=0 &&
    test "$(grep -c "exit 0" job.out)" = 4 &&
    ls dumps/rank_0 dumps/rank_1 dumps/rank_2 dumps/rank_3 &&
    verdict_is ok "" &&
    test "$(dump_field 2 "d[\"frtrace\"][\"trigger\"]")" = exit &&
    test "$(dump_field 2 "d[\"version\"]")" = 2.10 &&
    test "$(dump_field 0 "sorted(set(e[\"state\"] for e in d[\"entries\"]))")" = "[\"completed\"]"
'

test_expect_success 'communicator ids agree across ranks, splits included' '
    run_job FRTRACE_DUMP_ON_EXIT=1 DUMPS_EXPECTED=0 &&
    for r in 0 1 2 3; do dump_field $r "sorted(d[\"pg_config\"])" >ids.$r || exit 1; done &&
    cmp ids.0 ids.2 && cmp ids.1 ids.3 && ! cmp -s ids.0 ids.1 &&
    test "$(dump_field 1 "sorted((c[\"comm_size\"], c[\"color\"]) for c in d[\"frtrace\"][\"comms\"].values())")" = "[[2, 1], [4, -1]]"
'

# Shapes, dtypes, names and the grouping of a batch are PyTorch's; the sequence ids are launch
# numbers per communicator (shim.c), so the send/recv batch after all_reduce #1 is p2p #2; the
# batch's end marker repeats its last op id, as PyTorch 2.11 does (testdata/gpu-h100-*/torch-p2p).
test_expect_success 'entries are numbered and shaped as PyTorch records them' '
    run_job FRTRACE_DUMP_ON_EXIT=1 DUMPS_EXPECTED=0 &&
    dump_field 1 "[(e[\"profiling_name\"], e[\"collective_seq_id\"], e[\"p2p_seq_id\"], e[\"op_id\"], e[\"is_p2p\"], e[\"input_sizes\"], e[\"output_sizes\"], e[\"input_dtypes\"]) for e in d[\"entries\"][:6]]" >first &&
    cat first &&
    grep -F "[\"nccl:all_reduce\", 1, 0, 1, false, [[1024]], [[1024]], [\"Float\"]]" first &&
    grep -F "[\"nccl:send 1->2\", 1, 2, 2, true, [[256]], [[256]], [\"BFloat16\"]]" first &&
    grep -F "[\"nccl:recv 1<-0\", 1, 2, 3, true" first &&
    grep -F "[\"nccl:coalesced\", 1, 2, 3, false, [], [], []]" first &&
    grep -F "[\"nccl:all_to_all\", 1, 0, 1, false, [[128]], [[128]]" first &&
    grep -F "[\"nccl:all_gather\", 2, 0, 2, false, [[32]], [[64]], [\"Half\"]]" first
'

test_expect_success 'a rank stuck in CPU code: hang, that rank is the culprit (missing)' '
    run_job SKIP=2@3 &&
    ls dumps/rank_0 dumps/rank_1 dumps/rank_2 dumps/rank_3 &&
    test "$(dump_field 2 "d[\"frtrace\"][\"trigger\"]")" = trigger_file &&
    verdict_is hang 2 &&
    python3 -c "import json; db=json.load(open(\"db.json\")); assert any(f[\"kind\"]==\"missing_ranks\" and f[\"ranks\"]==[2] for f in db[\"findings\"]), db[\"findings\"]"
'

test_expect_success 'a rank whose GPU stream stalls: hang, that rank is the culprit (state)' '
    run_job STALL=1@2 &&
    ls dumps/rank_0 dumps/rank_1 dumps/rank_2 dumps/rank_3 &&
    verdict_is hang 1 &&
    python3 -c "import json; db=json.load(open(\"db.json\")); assert any(f[\"kind\"]==\"state_mismatch\" and 1 in f[\"ranks\"] for f in db[\"findings\"]), db[\"findings\"]"
'

test_expect_success 'a rank passing the wrong count: mismatch, that rank is the culprit' '
    run_job MISMATCH=3@2:77 &&
    ls dumps/rank_0 dumps/rank_1 dumps/rank_2 dumps/rank_3 &&
    verdict_is mismatch 3
'

test_expect_success 'a rank that crashes leaves a fatal dump and still dies by SIGSEGV' '
    run_job CRASH=1@2 &&
    grep "rank 1 signal 11" job.out &&
    test "$(dump_field 1 "d[\"frtrace\"][\"trigger\"]")" = fatal:11 &&
    ls dumps/rank_0 dumps/rank_2 dumps/rank_3 &&
    verdict_is hang 1 && summary_has "hang: rank 1 crashed (SIGSEGV) in "
'

test_expect_success 'a slow rank is never a false culprit' '
    run_job SLOW=2:150 FRTRACE_DUMP_ON_EXIT=1 DUMPS_EXPECTED=0 &&
    test "$(grep -c "exit 0" job.out)" = 4 &&
    "$FRTRACE" -f json dumps >db.json || true &&
    python3 -c "import json; v=json.load(open(\"db.json\"))[\"verdict\"]; assert v[\"status\"]==\"ok\" and v[\"culprit_ranks\"]==[], v"
'

test_expect_success 'FRTRACE_FORMAT=json writes JSON dumps the analyzer reads alike' '
    run_job SKIP=0@2 FRTRACE_FORMAT=json FRTRACE_DUMP_PREFIX=nccl_trace_rank_ &&
    head -c 1 dumps/nccl_trace_rank_0 | grep -q "{" &&
    python3 -c "import json; json.load(open(\"dumps/nccl_trace_rank_3\"))" &&
    verdict_is hang 0
'

# The malloc/stdio trap replaces the allocator, which ASan owns in sanitizer builds.
if [ "${SANITIZE:-}" != 1 ] && [ -f "$ASIG_TRAP" ]; then
test_expect_success 'the fatal dump is async-signal-safe: no malloc/printf in the handler (trap armed), complete dump, death by SIGSEGV' '
    EXTRA_PRELOAD="$ASIG_TRAP" run_job CRASH=1@2 &&
    grep "rank 1 signal 11" job.out &&
    ! grep "asig-trap" job.err &&
    test "$(dump_field 1 "d[\"frtrace\"][\"trigger\"]")" = fatal:11 &&
    test "$(dump_field 1 "(len(d[\"entries\"]), len(d[\"pg_config\"]), len(d[\"pg_status\"]), len(d[\"frtrace\"][\"comms\"]))")" = "[12, 2, 2, 2]" &&
    test "$(dump_field 1 "d[\"entries\"][-1][\"profiling_name\"]")" = nccl:all_gather
'
else
    test_skip 'the allocator trap cannot run under ASan' 'async-signal-safety of the fatal dump'
fi

# From the entries alone the verdict depends on whether rank 2's start event was seen before the
# dump (rank 2 stalled, or nobody: started everywhere); the communicator's state names rank 2.
# The watchdog's timeout is raised here: with run_job's 1 s, a loaded machine let it fire before
# the async error was seen (rank 2's trigger "timeout", or rank 0's, which then woke rank 2 by the
# trigger file), 3 runs in 12 with 20 busy loops beside; at 15 s, 12 in 12.
test_expect_success 'an async NCCL error (ncclRemoteError) on one rank: it dumps at once, every rank follows' '
    run_job ASYNC_ERR=2@3 FRTRACE_TIMEOUT_SEC=15 &&
    ls dumps/rank_0 dumps/rank_1 dumps/rank_2 dumps/rank_3 &&
    grep "reports an asynchronous error (6)" job.err &&
    test "$(dump_field 2 "d[\"frtrace\"][\"trigger\"]")" = async_error &&
    test "$(dump_field 2 "sorted(c[\"state\"] for c in d[\"frtrace\"][\"comms\"].values())")" = "[\"async_error:ncclRemoteError\", \"live\"]" &&
    test "$(dump_field 0 "d[\"frtrace\"][\"trigger\"]")" = trigger_file &&
    test "$(dump_field 0 "sorted(c[\"state\"] for c in d[\"frtrace\"][\"comms\"].values())")" = "[\"live\", \"live\"]" &&
    verdict_is hang 2 && summary_has "hang: rank 2 hit NCCL async error ncclRemoteError in "
'

test_expect_success 'a rank stuck inside ncclCommDestroy dumps with trigger stuck_in_api and creates the trigger file' '
    run_job HANG_IN=1@destroy DUMPS_EXPECTED=1 &&
    grep "rank 1 signal 9" job.out && test "$(grep -c "exit 0" job.out)" = 3 &&
    grep "rank 1: thread .* is inside ncclCommDestroy for more than 1000 ms" job.err &&
    test "$(dump_field 1 "d[\"frtrace\"][\"trigger\"]")" = stuck_in_api &&
    test -s trigger &&
    test "$(dump_field 1 "sorted(c[\"state\"] for c in d[\"frtrace\"][\"comms\"].values())")" = "[\"destroyed\", \"live\"]" &&
    verdict_is inconclusive "" && summary_has "inconclusive: rank 1 stuck inside an NCCL call outside the recorded collectives"
'

# Ranks 0, 1 and 3 made the world communicator (4 ranks) and wait in the split of it; rank 2, its
# member left, never came back from ncclCommInitRank: nothing is recorded, but the dumps' comms
# and stacks prove who holds the others up (verdict_setup.c). Without stacks they cannot say
# which call each rank is in: inconclusive, as it was.
test_expect_success 'a rank stuck inside ncclCommInitRank while the others wait in ncclCommSplit is the culprit' '
    run_job HANG_IN=2@init &&
    ls dumps/rank_0 dumps/rank_1 dumps/rank_2 dumps/rank_3 &&
    grep "rank 2: thread .* is inside ncclCommInitRank for more than" job.err &&
    grep "rank 0: thread .* is inside ncclCommSplit for more than" job.err &&
    test "$(dump_field 2 "(len(d[\"entries\"]), len(d[\"frtrace\"][\"comms\"]))")" = "[0, 0]" &&
    verdict_is hang 2 &&
    summary_has "hang: rank 2 stuck in ncclCommInitRank of group " &&
    summary_has " (ranks 0,1,3 wait in ncclCommSplit)" &&
    test_expect_code 1 "$FRTRACE" dumps >report.txt &&
    grep "ranks 0,1,3 made this communicator and wait inside ncclCommSplit; rank 2, the member left, never" report.txt &&
    rm -rf dumps trigger && run_job HANG_IN=2@init FRTRACE_STACKS=0 &&
    verdict_is inconclusive "" && summary_has "(e.g. communicator initialization); no collective was recorded"
'

test_expect_success 'a communicator short of a member whose dump is missing names nobody' '
    run_job HANG_IN=2@init &&
    rm dumps/rank_2 &&
    verdict_is inconclusive "" && ! summary_has "ncclCommInitRank"
'

test_expect_success 'a rank missing from a shrunk communicator: hang, that rank is the culprit' '
    DRIVER_ARGS=lifecycle run_job SKIP=1@1 FRTRACE_DUMP_ON_EXIT=1 &&
    grep "rank 3 exit 0" job.out &&
    ls dumps/rank_0 dumps/rank_1 dumps/rank_2 dumps/rank_3 &&
    verdict_is hang 1
'

test_done
