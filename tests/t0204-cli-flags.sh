#!/bin/sh
# Flags as a Unix user expects them: combined short options, rank lists, contradictions named,
# filters that match nothing said, -o that never leaves half a file, and dumps found where
# PyTorch writes them when no directory is given.
. "$(dirname "$0")/lib.sh"

if ! have_shared; then
    test_skip 'no ../shared' 'flags on a real run'
    test_done
    exit 0
fi
RUN="$REAL_DUMPS/lock_gil_1st"

test_expect_success 'combined short flags: -vj is -v -j, -vo FILE is -v -o FILE' '
    test_expect_code 0 "$FRTRACE" -vj "$RUN" >combined &&
    test_expect_code 0 "$FRTRACE" -v -j "$RUN" >separate &&
    cmp combined separate &&
    test_expect_code 1 "$FRTRACE" -vo db.json "$RUN" >out &&
    python3 -c "import json; assert json.load(open(\"db.json\"))[\"verdict\"][\"culprit_ranks\"] == [9, 14]" &&
    grep "^groups" out
'

test_expect_success 'an unknown letter in a cluster is named with its cluster' '
    test_expect_code 2 "$FRTRACE" -vx "$RUN" 2>err &&
    grep "unknown option .-x. in .-vx." err
'

test_expect_success '--selected-ranks takes 9 14, 9,14 and 8-15 alike' '
    test_expect_code 1 "$FRTRACE" --selected-ranks 9 14 "$RUN" >a &&
    test_expect_code 1 "$FRTRACE" --selected-ranks 9,14 "$RUN" >b &&
    test_expect_code 1 "$FRTRACE" --selected-ranks=9,14 "$RUN" >c &&
    cmp a b && cmp a c &&
    test_expect_code 0 "$FRTRACE" -j --selected-ranks 8-10 "$RUN" >j &&
    head -n 1 j | grep "Rank 8 .*Rank 9 .*Rank 10" &&
    ! head -n 1 j | grep "Rank 11"
'

test_expect_success 'contradicting flags are a usage error naming both' '
    test_expect_code 2 "$FRTRACE" -j -o j.json "$RUN" 2>err1 &&
    grep "^frtrace: -j and -o cannot go together" err1 && ! test -e j.json &&
    test_expect_code 2 "$FRTRACE" -j -f markdown "$RUN" 2>err2 &&
    grep "^frtrace: -j and -f markdown cannot go together" err2 &&
    test_expect_code 2 "$FRTRACE" -o - -f text "$RUN" 2>err3 &&
    grep "^frtrace: -o - and -f text cannot go together" err3
'

test_expect_success 'filters that match nothing are warned about, by name' '
    test_expect_code 1 "$FRTRACE" --selected-ranks 99 --pg-filters NO_SUCH_GROUP "$RUN" >out 2>err &&
    grep "warning: --selected-ranks: rank 99 is not in these dumps" err &&
    grep "warning: --pg-filters: no group is named or described .NO_SUCH_GROUP." err &&
    test_expect_code 1 "$FRTRACE" --pg-filters EXPERT_MODEL_PARALLEL_GROUP "$RUN" 2>err2 >/dev/null &&
    ! grep warning err2
'

test_expect_success '-o - prints the database alone on stdout' '
    test_expect_code 1 "$FRTRACE" -o - "$RUN" >db.json &&
    python3 -c "import json; d = json.load(open(\"db.json\")); assert d[\"verdict\"][\"culprit_ranks\"] == [9, 14]"
'

test_expect_success 'a full disk leaves the previous db.json intact, and says so' '
    test_expect_code 1 "$FRTRACE" -o db.json "$REAL_DUMPS/lock_gil_1st" >/dev/null &&
    cp db.json before.json &&
    (ulimit -f 8 && test_expect_code 2 "$FRTRACE" -o db.json "$REAL_DUMPS/gpu_error_1st" >/dev/null 2>err) &&
    grep "^frtrace: db.json: write failed" err &&
    cmp db.json before.json &&
    test "$(ls | grep -c "db.json.tmp")" = 0
'

test_expect_success 'without DIR: FRTRACE_DUMP_DIR, then PyTorch default places, said on stderr' '
    mkdir -p fr home/.cache/torch tmpdumps &&
    cp "$RUN"/_dump_* fr/ &&
    (FRTRACE_DUMP_DIR=$PWD/fr HOME=$PWD/home test_expect_code 1 "$FRTRACE" >out 2>err) &&
    grep "^frtrace: no DIR given; reading $PWD/fr (FRTRACE_DUMP_DIR)" err &&
    head -n 1 out | grep "^hang: ranks 9,14" &&
    for f in "$RUN"/_dump_*; do cp "$f" tmpdumps/trace_rank_${f##*_dump_} || return 1; done &&
    (unset FRTRACE_DUMP_DIR && TORCH_FR_DUMP_TEMP_FILE=$PWD/tmpdumps/trace_rank_ HOME=$PWD/home \
        test_expect_code 1 "$FRTRACE" >out2 2>err2) &&
    grep "reading $PWD/tmpdumps (TORCH_FR_DUMP_TEMP_FILE), prefix trace_rank_" err2 &&
    for f in "$RUN"/_dump_*; do cp "$f" home/.cache/torch/comm_lib_trace_rank_${f##*_dump_} || return 1; done &&
    (unset FRTRACE_DUMP_DIR TORCH_FR_DUMP_TEMP_FILE TORCH_NCCL_DEBUG_INFO_TEMP_FILE XDG_CACHE_HOME &&
        HOME=$PWD/home test_expect_code 1 "$FRTRACE" >out3 2>err3) &&
    grep "reading $PWD/home/.cache/torch (PyTorch.s default), prefix comm_lib_trace_rank_" err3
'

test_expect_success 'without DIR and no dump anywhere: a usage error that lists where it looked' '
    mkdir -p home &&
    (unset FRTRACE_DUMP_DIR TORCH_FR_DUMP_TEMP_FILE TORCH_NCCL_DEBUG_INFO_TEMP_FILE XDG_CACHE_HOME &&
        FRTRACE_DUMP_DIR=$PWD/nothing HOME=$PWD/home test_expect_code 2 "$FRTRACE" 2>err) &&
    grep "none found where PyTorch writes dumps: .*nothing (FRTRACE_DUMP_DIR)" err
'
test_expect_success 'two prefixes equally common: the usage error lists both' '
    mkdir tie &&
    for i in 0 1; do cp "$RUN/_dump_$i" tie/a_$i && cp "$RUN/_dump_$i" tie/b_$i || return 1; done &&
    test_expect_code 2 "$FRTRACE" tie 2>err &&
    grep "^frtrace: cannot infer the file-name prefix: 2 files each have \"a_\", \"b_\"; give --prefix$" err &&
    test_expect_code 1 "$FRTRACE" --prefix b_ tie >out &&
    head -n 1 out | grep "^inconclusive: 14 of 16 ranks left no readable dump"
'

test_expect_success '--version prints the version and exits 0 at once; a usage error before it is 2' '
    test_expect_code 0 "$FRTRACE" --version /no/such/dir --bogus >out 2>err &&
    grep "^frtrace [0-9][0-9.]*$" out &&
    test "$(wc -l <out)" -eq 1 &&
    ! test -s err &&
    test_expect_code 2 "$FRTRACE" --bogus --version >out 2>err &&
    ! test -s out &&
    grep "^frtrace: unknown option .--bogus.$" err
'
test_done
