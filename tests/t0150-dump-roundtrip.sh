#!/bin/sh
# t0150 — dumps survive decode + re-write byte for byte: the 64 real v2.9 dumps, the synthetic
# 2.0/2.4/2.10 pickles and the 2.10 JSON; every version's layout agrees with the shared Python
# reference writer; mkdump turns Python-made JSON into pickles PyTorch's loader reads.
. "$(dirname "$0")/lib.sh"
MKDUMP="$TOP/$BUILD/tests/mkdump"
LAYOUT="$TOP/tests/tools/fr_layout.py"
export MKDUMP LAYOUT

if ! have_shared; then
    test_skip 'no ../shared' 'real and synthetic dumps re-written byte for byte'
    test_done
    exit
fi

test_expect_success 'every real v2.9 dump is re-written byte for byte' '
    for f in "$REAL_DUMPS"/*/_dump_*; do
        "$MKDUMP" "$f" out.pkl && cmp "$f" out.pkl || exit 1
    done
'

test_expect_success 'every real dump comes back the same through JSON' '
    for f in "$REAL_DUMPS"/*/_dump_*; do
        "$MKDUMP" --json "$f" out.json && "$MKDUMP" --version 2.9 out.json out.pkl && cmp "$f" out.pkl || exit 1
    done
'

test_expect_success 'the synthetic 2.0, 2.4 and 2.10 pickles are re-written byte for byte' '
    for v in 2.0 2.4 2.10; do
        "$MKDUMP" "$SYNTH_DUMPS/v${v}_pickle_rank_0" out.pkl && cmp "$SYNTH_DUMPS/v${v}_pickle_rank_0" out.pkl || exit 1
    done
'

test_expect_success 'the 2.10 pickle written as JSON is PyTorch'"'"'s JSON, byte for byte' '
    "$MKDUMP" --json "$SYNTH_DUMPS/v2.10_pickle_rank_0" out.json &&
    cmp "$SYNTH_DUMPS/v2.10_json_rank_0.json" out.json &&
    "$MKDUMP" --json "$SYNTH_DUMPS/v2.10_json_rank_0.json" again.json &&
    cmp "$SYNTH_DUMPS/v2.10_json_rank_0.json" again.json
'

test_expect_success 'the torchcomms variant: 2.10 with the trailing top-level BINPUT' '
    "$MKDUMP" --root-memo yes "$SYNTH_DUMPS/v2.10_pickle_rank_0" out.pkl &&
    size=$(wc -c <"$SYNTH_DUMPS/v2.10_pickle_rank_0") && [ $(wc -c <out.pkl) -eq $((size + 2)) ] &&
    "$MKDUMP" --root-memo no out.pkl back.pkl && cmp "$SYNTH_DUMPS/v2.10_pickle_rank_0" back.pkl
'

if command -v python3 >/dev/null 2>&1; then
    test_expect_success 'the shared reference writer re-creates the real dumps (sanity of the helper)' '
        for f in "$REAL_DUMPS"/gpu_error_1st/_dump_*; do
            python3 "$LAYOUT" "$SHARED/tools" 2.9 "$f" ref.pkl && cmp "$f" ref.pkl || exit 1
        done
    '

    test_expect_success 'every version'"'"'s layout agrees with the reference writer' '
        for v in 2.0 2.1 2.2 2.3 2.4 2.5 2.6 2.7 2.8 2.9 2.10 2.11; do
            for f in "$REAL_DUMPS"/lock_gil_2nd/_dump_1 "$REAL_DUMPS"/gpu_error_2nd/_dump_7 \
                     "$SYNTH_DUMPS"/v2.0_pickle_rank_0 "$SYNTH_DUMPS"/v2.4_pickle_rank_0 \
                     "$SYNTH_DUMPS"/v2.10_pickle_rank_0 "$SYNTH_DUMPS"/v2.10_json_rank_0.json; do
                python3 "$LAYOUT" "$SHARED/tools" $v "$f" ref.pkl &&
                "$MKDUMP" --version $v "$f" ours.pkl &&
                cmp ref.pkl ours.pkl || { echo "version $v, $f"; exit 1; }
            done || exit 1
        done
    '

    test_expect_success 'a JSON dump made in Python becomes a pickle that pickle.load reads' '
        python3 -c "
import json
e = dict(record_id=0, pg_id=0, process_group=[\"0\", \"default_pg\"], collective_seq_id=1,
         p2p_seq_id=0, op_id=1, profiling_name=\"nccl:all_reduce\", time_created_ns=5,
         input_sizes=[[2, 2]], input_dtypes=[\"Float\"], output_sizes=[[2, 2]],
         output_dtypes=[\"Float\"], state=\"scheduled\", time_discovered_started_ns=0,
         time_discovered_completed_ns=0, retired=False, timeout_ms=600000, is_p2p=False,
         thread_name=\"t\", thread_id=\"1\")
d = dict(version=\"2.10\", comm_lib_version=\"2.27.3\", entries=[e],
         pg_config={\"0\": dict(name=\"0\", desc=\"default_pg\", ranks=\"[0, 1]\")},
         pg_status={\"0\": dict(last_enqueued_collective=1, last_started_collective=-1,
                                last_completed_collective=0)},
         frtrace=dict(version=\"1\", global_rank=1, comms={}))
json.dump(d, open(\"rank_1.json\", \"w\"))
" &&
        "$MKDUMP" rank_1.json rank_1 &&
        python3 -c "
import pickle
d = pickle.load(open(\"rank_1\", \"rb\"))
assert d[\"version\"] == \"2.10\" and list(d)[:4] == [\"version\", \"pg_config\", \"comm_lib_version\", \"pg_status\"], d
e = d[\"entries\"][0]
assert e[\"process_group\"] == (\"0\", \"default_pg\") and e[\"time_discovered_started_ns\"] is None, e
assert d[\"frtrace\"][\"global_rank\"] == 1, d
"
    '
else
    test_skip 'no python3' 'layouts checked against the reference writer'
fi

test_expect_success 'a truncated dump is converted with a warning; garbage is refused' '
    head -c 3000 "$REAL_DUMPS/gpu_error_1st/_dump_3" >cut &&
    "$MKDUMP" cut out.pkl 2>err && grep -q "warning: truncated at byte" err &&
    "$MKDUMP" out.pkl again.pkl &&
    printf "not a dump" >junk && test_must_fail "$MKDUMP" junk out2.pkl 2>err2 && grep -q "mkdump: junk:" err2
'

test_done
