#!/bin/sh
# A script reads db.json: it is valid against the JSON Schema the project ships
# (man/frtrace-db.schema.json), its root causes come first, and every key it has is documented
# in the man page. Checked on every data set the project has: the real 16-rank runs, the
# PyTorch 2.15 gloo jobs, the recorder's dumps, and the scenarios' verdict goldens.
. "$(dirname "$0")/lib.sh"

# db_of DIR OUT: writes frtrace's database of DIR (exit 0 or 1) to OUT.
db_of() {
    "$FRTRACE" -f json "$1" >"$2"
    test $? -le 1
}

test_expect_success 'the schema is itself a valid JSON Schema, and the validator rejects a broken db' '
    python3 -c "
import json, jsonschema
jsonschema.Draft7Validator.check_schema(json.load(open(\"$TOP/man/frtrace-db.schema.json\")))" &&
    db_of "$TOP/testdata/torch-2.15.0-gloo/exit" good.json &&
    python3 "$TOP/tests/tools/validate_db.py" good.json &&
    python3 -c "
import json; d = json.load(open(\"good.json\")); d[\"verdict\"][\"status\"] = \"broken\"
json.dump(d, open(\"bad1.json\", \"w\"))
d = json.load(open(\"good.json\")); d[\"findings\"].reverse(); json.dump(d, open(\"bad2.json\", \"w\"))" &&
    test_expect_code 1 python3 "$TOP/tests/tools/validate_db.py" bad1.json >out1 &&
    grep "verdict/status" out1 &&
    test_expect_code 1 python3 "$TOP/tests/tools/validate_db.py" bad2.json >out2 &&
    grep "not ordered root causes" out2
'

test_expect_success 'every committed data set gives a valid db.json, root causes first' '
    n=0 &&
    find "$TOP/testdata" -name "rank_0*" -o -name "_dump_0" -o -name "nccl_trace_rank_0" |
        xargs -n 1 dirname | sort -u >dirs &&
    while read -r dir; do
        db_of "$dir" db.$n.json && n=$((n + 1)) || return 1
    done <dirs &&
    test $n -gt 20 &&
    python3 "$TOP/tests/tools/validate_db.py" db.*.json
'

if have_shared; then
    test_expect_success 'the four real runs give valid databases whose findings[0] is a culprit root cause' '
        for run in gpu_error_1st gpu_error_2nd lock_gil_1st lock_gil_2nd; do
            db_of "$REAL_DUMPS/$run" $run.json &&
            python3 "$TOP/tests/tools/validate_db.py" $run.json &&
            python3 -c "
import json; d = json.load(open(\"$run.json\")); f = d[\"findings\"][0]
assert not f[\"warning\"] and set(f[\"ranks\"]) <= set(d[\"verdict\"][\"culprit_ranks\"]), f" || return 1
        done
    '
else
    test_skip 'no ../shared' 'the four real runs'
fi

test_expect_success 'by default collectives lists only what did not pass; collective_summary counts the rest; --all-collectives lists all, same ids' '
    db_of "$TOP/testdata/torch-2.15.0-gloo/healthy" ok.json &&
    "$FRTRACE" -f json --all-collectives "$TOP/testdata/torch-2.15.0-gloo/healthy" >all.json &&
    db_of "$TOP/testdata/torch-2.15.0-gloo/skip" hang.json &&
    test_expect_code 1 "$FRTRACE" -f json --all-collectives "$TOP/testdata/torch-2.15.0-gloo/skip" >hangall.json &&
    python3 "$TOP/tests/tools/validate_db.py" ok.json all.json hang.json hangall.json &&
    python3 - <<-\PY
	import json
	for few, every in (("ok.json", "all.json"), ("hang.json", "hangall.json")):
	    d, a = json.load(open(few)), json.load(open(every))
	    failing = [c for c in a["collectives"] if not c["pass_check"]]
	    assert d["collectives"] == failing, (few, len(d["collectives"]), len(failing))
	    assert d["collective_summary"] == a["collective_summary"]
	    for s in d["collective_summary"]:
	        rows = [c for c in a["collectives"] if c["group_id"] == s["group_id"]]
	        passed = [c for c in rows if c["pass_check"] and not c["profiling_name"].startswith(("nccl:send", "nccl:recv"))]
	        assert s["passed"] == len(passed) and s["not_passed"] == len([c for c in rows if not c["pass_check"]]), s
	        seqs = [c["collective_seq_id"] for c in passed]
	        assert (s["collective_seq_id_first"], s["collective_seq_id_last"]) == ((min(seqs), max(seqs)) if seqs else (None, None)), s
	    ids = {c["id"] for c in a["collectives"]}
	    assert all(c["collective_id"] in ids for c in d["nccl_calls"])
	    assert all(f["collective_id"] in {c["id"] for c in d["collectives"]} for f in d["findings"] if f.get("collective_id") is not None and not f["warning"])
	ok = json.load(open("ok.json"))
	assert ok["collectives"] == [] and ok["nccl_calls"] == [] and sum(s["passed"] for s in ok["collective_summary"]) > 0
	assert json.load(open("hang.json"))["collectives"], "a hang lists the collective it waits in"
	PY
'

test_expect_success 'a lost dump: what every member with a dump completed is counted unverified, not listed; the op others wait in is' '
    test_expect_code 1 "$FRTRACE" -f json "$TOP/testdata/torch-2.15.0-gloo/zero_sigkill" >lost.json &&
    test_expect_code 1 "$FRTRACE" -f json --all-collectives "$TOP/testdata/torch-2.15.0-gloo/zero_sigkill" >lostall.json &&
    python3 "$TOP/tests/tools/validate_db.py" lost.json lostall.json &&
    python3 - <<-\PY
	import json
	d, a = json.load(open("lost.json")), json.load(open("lostall.json"))
	lost = set(d["input"]["ranks_without_dump"])
	assert lost == {4}, lost
	def unverified(c):
	    return (not c["pass_check"] and c["mismatch"] is None and c["state"] == "completed"
	            and c["missing_ranks"] and set(c["missing_ranks"]) <= lost)
	folded = [c for c in a["collectives"] if unverified(c)]
	listed = [c for c in a["collectives"] if not c["pass_check"] and not unverified(c)]
	assert len(folded) >= 4 and d["collectives"] == listed, (len(folded), len(listed))
	assert sum(s["unverified"] for s in d["collective_summary"]) == len(folded)
	assert sum(s["not_passed"] for s in d["collective_summary"]) == len(listed)
	for s in d["collective_summary"]:
	    seqs = [c["collective_seq_id"] for c in folded if c["group_id"] == s["group_id"]]
	    assert s["unverified"] == len(seqs), s
	    assert (s["unverified_seq_id_first"], s["unverified_seq_id_last"]) == ((min(seqs), max(seqs)) if seqs else (None, None)), s
	wait = [c for c in d["collectives"] if c["missing_ranks"] == [4]]
	assert wait and wait[0]["state"] != "completed", "rank 4 alone is missing where the others wait: listed"
	listed_ids = {c["id"] for c in listed}
	for db in (d, a):
	    assert all(c["collective_id"] in listed_ids for c in db["nccl_calls"] if c["collective_id"] is not None)
	PY
'

test_expect_success 'every key of a database is documented in the man page' '
    db_of "$TOP/testdata/torch-2.15.0-gloo/exit" a.json &&
    db_of "$TOP/testdata/recorder-fake-nccl/skip" b.json &&
    test_expect_code 1 "$FRTRACE" -f json --all-calls "$TOP/testdata/torch-2.15.0-gloo/type" >c.json &&
    python3 "$TOP/tests/tools/db_keys_documented.py" "$TOP/man/frtrace.1" a.json b.json c.json
'
test_done
