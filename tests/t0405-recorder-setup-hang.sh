#!/bin/sh
# A hang inside the making of a communicator, which NCCL records nothing of: rank 2 never comes
# back from ncclCommInitRank while ranks 0, 1 and 3, which made the world communicator with it,
# wait in the split of it. The recorder's dumps hold no entry, but each says which communicators
# its rank holds (the "frtrace" key) and where its threads are (frtrace_stacks), and the analyzer
# names rank 2 from them (analyzer/verdict/verdict_setup.c). The job runs once, with JSON dumps;
# each story then changes a copy of them to show what the rule needs: a stack inside NCCL on
# both sides, exactly as many ranks inside a making call as the communicator lacks, and a dump
# from every rank.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/fakes/rec-lib.sh"
require_recorder 'communicator setup stories'

JOB="$TRASH/job"

# variant NAME PYTHON: a copy of the job's dumps in NAME/dumps, with PYTHON run on each dump as
# `d` (its rank `r`); then frtrace's db.json in NAME
variant() {
    rm -rf "$1" && mkdir "$1" && cp -r "$JOB/dumps" "$1/" &&
        python3 - "$1/dumps" "$2" <<-\PY &&
	import json, os, sys
	folder, change = sys.argv[1], sys.argv[2]
	for name in sorted(n for n in os.listdir(folder) if n.startswith("rank_")):
	    path = os.path.join(folder, name)
	    d, r = json.load(open(path)), int(name.split("_")[-1])
	    exec(change, {"d": d, "r": r, "folder": folder, "json": json})
	    json.dump(d, open(path, "w"))
	PY
        (cd "$1" && "$FRTRACE" -f json dumps >db.json 2>err; test $? -le 1)
}

# the verdict of variant NAME: "status culprits summary"
verdict_of() {
    python3 -c 'import json, sys; v = json.load(open(sys.argv[1]))["verdict"]
print(v["status"], ",".join(map(str, v["culprit_ranks"])) or "-", v["summary"])' "$1/db.json"
}

# rename(d, old, new): every native frame named old gets the name new
RENAME='
def rename(d, old, new):
    for t in d["frtrace_stacks"]:
        for f in t["native"]:
            if f["name"] == old:
                f["name"] = new
'

test_expect_success 'the job: rank 2 hangs in ncclCommInitRank, the others in ncclCommSplit' '
    mkdir "$JOB" && (cd "$JOB" && run_job HANG_IN=2@init FRTRACE_FORMAT=json) &&
    ls "$JOB/dumps/rank_0" "$JOB/dumps/rank_1" "$JOB/dumps/rank_2" "$JOB/dumps/rank_3" &&
    variant same "pass" && verdict_of same >v && cat v &&
    grep "^hang 2 hang: rank 2 stuck in ncclCommInitRank of group [0-9a-f]* (ranks 0,1,3 wait in ncclCommSplit)$" v
'

test_expect_success "NCCL's own frame names (pnccl...) without the recorder's wrapper frames" '
    variant own "
d[\"frtrace_stacks\"] = [dict(t, native=[f for f in t[\"native\"]
                                          if not (f[\"object\"] or \"\").endswith(\"libfrtrace-recorder.so\")])
                         for t in d[\"frtrace_stacks\"]]" &&
    ! grep -l "\"ncclComm" own/dumps/* && verdict_of own >v && cat v && grep "^hang 2 " v
'

test_expect_success 'a thread in another NCCL call beside the one making the communicator' '
    variant threads "
if r == 2:
    t = d[\"frtrace_stacks\"][0]
    other = dict(t, thread_id=1, native=[dict(f, name=\"ncclSend\") if f[\"name\"] == \"ncclCommInitRank\" else f
                                          for f in t[\"native\"]])
    d[\"frtrace_stacks\"].insert(0, other)" &&
    verdict_of threads >v && cat v && grep "^hang 2 .* ncclCommInitRank " v
'

test_expect_success 'nobody inside NCCL beside it: nobody waits, nobody named' '
    variant idle "$RENAME
if r != 2:
    rename(d, \"ncclCommSplit\", \"train_step\")
    rename(d, \"pncclCommSplit\", \"train_step_inner\")" &&
    verdict_of idle >v && cat v && grep "^inconclusive - " v
'

test_expect_success 'the rank left out in a call that makes no communicator is not named' '
    variant other_call "$RENAME
if r == 2:
    rename(d, \"ncclCommInitRank\", \"ncclAllReduce\")
    rename(d, \"pncclCommInitRank\", \"pncclAllReduce\")" &&
    verdict_of other_call >v && cat v && grep "^inconclusive - " v
'

test_expect_success 'two ranks in a making call for one place: one of them, so nobody named' '
    variant two "
if r == 2:
    twin = dict(d, frtrace=dict(d[\"frtrace\"], global_rank=4))
    json.dump(twin, open(folder + \"/rank_4\", \"w\"))" &&
    ls two/dumps/rank_4 && verdict_of two >v && cat v && ! grep "^hang" v
'

test_expect_success 'a rank without the communicator in a call that makes none is no culprit beside the one that is' '
    variant bystander "$RENAME
if r == 2:
    twin = json.loads(json.dumps(d))
    twin[\"frtrace\"][\"global_rank\"] = 4
    rename(twin, \"ncclCommInitRank\", \"ncclAllReduce\")
    json.dump(twin, open(folder + \"/rank_4\", \"w\"))" &&
    verdict_of bystander >v && cat v && grep "^hang 2 " v
'

test_done
