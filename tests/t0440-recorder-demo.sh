#!/bin/sh
# A new user tries the recorder without a GPU, as README says: `make demo-recorder` runs a
# 4-rank job on the fake NCCL where rank 1 skips an all_reduce; the recorder's log lines name
# the rank, the operation, the reason and the file, and frtrace names rank 1.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/fakes/rec-lib.sh"
require_recorder 'the recorder demo'

test_expect_success 'the demo catches the skipping rank and says where each dump went' '
    BUILD_DIR="$TOP/$BUILD" &&
    sh "$TOP/tests/fakes/demo.sh" >demo.out 2>demo.err &&
    grep "^hang: rank 1 never joined" demo.out &&
    grep "^== exit status 1" demo.out &&
    grep -E "^frtrace: rank [023]: nccl:all_reduce #[0-9]+ on communicator [0-9a-f]+ is pending for more than 1000 ms: dumping \(timeout\)$" demo.err &&
    for r in 0 1 2 3; do
        grep -E "^frtrace: rank $r dumped [0-9]+ entries to $BUILD_DIR/demo-recorder/dumps/rank_$r \((timeout|trigger_file)\)$" demo.err ||
        return 1
    done
'

test_expect_success 'README tells how to install and how to run the demo' '
    grep -q "make install" "$TOP/README.md" && grep -q "make demo-recorder" "$TOP/README.md"
'
test_done
