#!/bin/sh
# t0600-perf.sh — speed from the same dumps: slow ranks (stragglers) in the report, the
# database and the ok summary; `frtrace stats`; `frtrace timeline` as Chrome trace JSON and SVG.
# Jobs come from the generator with injected slow ranks (one, two, a slow node, a slow GPU, one
# beside a hang; calls that wait, so that the delay spreads; node clocks seconds apart, stage
# clocks drifting apart); each must be found exactly, and nothing on healthy jobs, generated or
# real.
# Databases are checked against the shipped schema (tests/tools/validate_db.py).
. "$(dirname "$0")/lib.sh"

GEN="$TOP/$BUILD/bench/gen_dumps"

# stragglers FILE: the database's straggler ranks, "5 42" (most significant first), "" for none.
stragglers() { python3 -c 'import json,sys; print(*[s["rank"] for s in json.load(open(sys.argv[1]))["stragglers"]])' "$1"; }
sorted_stragglers() { python3 -c 'import json,sys; print(*sorted(s["rank"] for s in json.load(open(sys.argv[1]))["stragglers"]))' "$1"; }
gen() { "$GEN" --ranks 64 --entries 400 --jobs 2 "$@" 2>/dev/null; }
# analysed GEN-ARGS...: a generated job (what the generator says in printed) that frtrace reads
# with exit 0, its database in db.json checked against the schema, its text report in out.
analysed() {
    gen "$@" jobdir >printed &&
        test_expect_code 0 "$FRTRACE" -o db.json jobdir >out &&
        python3 "$TOP/tests/tools/validate_db.py" db.json
}

if [ ! -x "$GEN" ]; then
    test_skip 'the generator is not built (make build-tests)' 'slow ranks found exactly'
    test_done
    exit
fi

test_expect_success 'a healthy job jittering by 4 ms has no slow rank: stragglers is [], the summary says ok' '
    gen --jitter-ms 4 jobdir >/dev/null &&
    test_expect_code 0 "$FRTRACE" -o db.json jobdir >out &&
    test "$(stragglers db.json)" = "" &&
    python3 -c "import json; d=json.load(open(\"db.json\")); assert d[\"stragglers\"] == [] and d[\"stats\"]" &&
    head -n 1 out | grep -q "^ok: 64 ranks" && ! grep -q "slow" out
'

test_expect_success 'a healthy job with durations has no slow rank either' '
    gen --durations --jitter-ms 4 --seed 7 jobdir >/dev/null &&
    test_expect_code 0 "$FRTRACE" -o db.json jobdir >/dev/null &&
    test "$(stragglers db.json)" = ""
'

test_expect_success 'one rank 40 ms late is found exactly; the ok summary names it, the report shows slow ranks' '
    analysed --slow-ranks 5 && grep -qx "slow_ranks: 5" printed &&
    test "$(stragglers db.json)" = 5 &&
    head -n 1 out | grep -Eq "^ok: no hang; rank 5 is slow: last to arrive in ([0-9]+) of \1 collectives, 40 ms late \(median\)$" &&
    grep -q "^slow ranks" out &&
    test "$(awk "length > 100" out | wc -l)" = 0 &&
    python3 -c "import json; s=json.load(open(\"db.json\"))[\"stragglers\"][0]; assert 38 < s[\"late_ms_median\"] < 42 and s[\"late_ms_p90\"] >= s[\"late_ms_median\"] and s[\"last_in\"] == s[\"collectives\"] >= 64 and s[\"groups\"], s" &&
    test_expect_code 0 "$FRTRACE" -f markdown jobdir >md && grep -q "^## Slow ranks" md &&
    python3 -c "import json; d=json.load(open(\"db.json\")); assert d[\"verdict\"][\"status\"] == \"ok\" and d[\"verdict\"][\"culprit_ranks\"] == []"
'

test_expect_success 'two slow ranks are both found, and no other' '
    gen --slow-ranks 5,42 jobdir >/dev/null &&
    test_expect_code 0 "$FRTRACE" -o db.json jobdir >out &&
    test "$(sorted_stragglers db.json)" = "5 42" &&
    head -n 1 out | grep -q "^ok: no hang; ranks 5,42 are slow"
'

test_expect_success 'a slow node (ranks 8-15, one tensor-parallel group) is found as those eight ranks' '
    gen --slow-ranks 8-15 jobdir >/dev/null &&
    test_expect_code 0 "$FRTRACE" -o db.json jobdir >/dev/null &&
    test "$(sorted_stragglers db.json)" = "8 9 10 11 12 13 14 15"
'

test_expect_success 'a slow GPU (rank 17, durations 8x) is found by its durations, not its arrivals' '
    analysed --slow-gpu 17 && grep -qx "slow_gpus: 17" printed &&
    test "$(stragglers db.json)" = 17 &&
    python3 -c "import json; s=json.load(open(\"db.json\"))[\"stragglers\"][0]; assert s[\"slow_ops\"] and not s[\"late\"] and s[\"slow_ms_median\"] > 5, s" &&
    head -n 1 out | grep -q "^ok: no hang; rank 17 is slow: its collectives take"
'

test_expect_success 'in a hang, a slow rank is judged over the completed history; the verdict stays the hang' '
    gen --slow-ranks 21 --faults 1 jobdir >printed &&
    culprit=$(sed -n "s/^culprit_ranks: //p" printed) &&
    test_expect_code 1 "$FRTRACE" -o db.json jobdir >out &&
    test "$(stragglers db.json)" = 21 &&
    python3 -c "import json,sys; v=json.load(open(\"db.json\"))[\"verdict\"]; assert v[\"status\"] == \"hang\" and v[\"culprit_ranks\"] == [int(sys.argv[1])], v" "$culprit" &&
    head -n 1 out | grep -q "^hang:" && grep -q "^slow ranks" out
'

test_expect_success 'calls that wait (--cascade): one slow rank is named, not the peers that waited for it and came late to their next groups' '
    gen --cascade --slow-ranks 5 jobdir >/dev/null &&
    test_expect_code 0 "$FRTRACE" -o db.json jobdir >out &&
    test "$(stragglers db.json)" = 5 &&
    head -n 1 out | grep -Eq "^ok: no hang; rank 5 is slow: last to arrive in ([0-9]+) of \1 collectives, (39|40|41) ms late \(median\)$"
'

test_expect_success 'calls that wait: two slow ranks in different stages, or a slow node, are named, and only they (the delay also travels through sends)' '
    gen --cascade --slow-ranks 5,42 jobdir >/dev/null &&
    test_expect_code 0 "$FRTRACE" -o db.json jobdir >/dev/null &&
    test "$(sorted_stragglers db.json)" = "5 42" &&
    gen --cascade --slow-ranks 8-15 jobdir >/dev/null &&
    test_expect_code 0 "$FRTRACE" -o db.json jobdir >/dev/null &&
    test "$(sorted_stragglers db.json)" = "8 9 10 11 12 13 14 15" &&
    gen --cascade --jitter-ms 4 jobdir >/dev/null &&
    test_expect_code 0 "$FRTRACE" -o db.json jobdir >/dev/null &&
    test "$(stragglers db.json)" = ""
'

test_expect_success 'node clocks up to 3 s apart: no slow rank without one, exactly the slow one with it (also when calls wait)' '
    gen --node-offset-ms 3000 jobdir >/dev/null &&
    test_expect_code 0 "$FRTRACE" -o db.json jobdir >out &&
    test "$(stragglers db.json)" = "" && head -n 1 out | grep -q "^ok: 64 ranks" &&
    python3 -c "import json; r=json.load(open(\"db.json\"))[\"stats\"]; assert max(x[\"skew_ms_p50\"] for x in r if x[\"op\"] != \"send/recv\") < 5, r" &&
    gen --node-offset-ms 3000 --slow-ranks 21 jobdir >/dev/null &&
    test_expect_code 0 "$FRTRACE" -o db.json jobdir >out &&
    test "$(stragglers db.json)" = 21 &&
    head -n 1 out | grep -Eq "^ok: no hang; rank 21 is slow: last to arrive in ([0-9]+) of \1 collectives, 40 ms late" &&
    gen --cascade --node-offset-ms 3000 --slow-ranks 21 jobdir >/dev/null &&
    test_expect_code 0 "$FRTRACE" -o db.json jobdir >/dev/null &&
    test "$(stragglers db.json)" = 21
'

test_expect_success 'pipeline stages whose clocks drift 8 s apart, a default-group all_reduce every step: nobody is slow' '
    gen --clock-drift-ms 8000 --period 1 jobdir >/dev/null &&
    test_expect_code 0 "$FRTRACE" -o db.json jobdir >out &&
    test "$(stragglers db.json)" = "" && head -n 1 out | grep -q "^ok: 64 ranks" &&
    gen --clock-drift-ms 8000 --period 1 --slow-ranks 40 jobdir >/dev/null &&
    test_expect_code 0 "$FRTRACE" -o db.json jobdir >/dev/null &&
    test "$(stragglers db.json)" = 40
'

test_expect_success '--straggler-floor-ms above the lateness hides it; a bad value is a usage error' '
    gen --slow-ranks 5 jobdir >/dev/null &&
    test_expect_code 0 "$FRTRACE" --straggler-floor-ms 100 -o db.json jobdir >/dev/null &&
    test "$(stragglers db.json)" = "" &&
    test_expect_code 2 "$FRTRACE" --straggler-floor-ms -3 jobdir 2>err && grep -q "straggler-floor-ms" err &&
    test_expect_code 2 "$FRTRACE" --straggler-floor-ms abc jobdir 2>/dev/null
'

test_expect_success 'gloo: a slow rank'"'"'s victims, late at their next groups, are not named (their calls waited)' '
    sh "$TOP/tests/scenarios/run_scenario.sh" gloo_slow_start jobdir &&
    test_expect_code 0 "$FRTRACE" -o db.json jobdir >out &&
    test "$(stragglers db.json)" = 3 &&
    head -n 1 out | grep -Eq "^ok: no hang; rank 3 is slow: last to arrive in 8 of 8 collectives, (59|60|61) ms late \(median\)$" &&
    python3 -c "import json; s=json.load(open(\"db.json\"))[\"stragglers\"][0]; assert s[\"late_in\"] == 8 and 58 < s[\"late_ms_when_late\"] < 62, s"
'

test_expect_success 'gloo: a rank late at one of three collectives a step is named; its median lateness is 0' '
    sh "$TOP/tests/scenarios/run_scenario.sh" gloo_slow_world jobdir &&
    test_expect_code 0 "$FRTRACE" -o db.json jobdir >out &&
    test "$(stragglers db.json)" = 5 &&
    head -n 1 out | grep -Eq "^ok: no hang; rank 5 is slow: (59|60|61) ms late in 8 of 24 collectives \(median\)$" &&
    python3 -c "import json; s=json.load(open(\"db.json\"))[\"stragglers\"][0]; assert s[\"late_ms_median\"] < 5 and s[\"late_in\"] == 8 and s[\"collectives\"] == 24, s" &&
    grep -q "^  rank  late ms p50  late ms p90  late in  *last in  *groups" out
'

test_expect_success 'NCCL, calls that do not wait: a node 40 ms behind is named (it waited for nobody, its gaps are its peers'"'"'), and one that waited but went on at once' '
    sh "$TOP/tests/scenarios/run_scenario.sh" nccl_slow_node jobdir &&
    test_expect_code 0 "$FRTRACE" -o db.json jobdir >out &&
    test "$(sorted_stragglers db.json)" = "2 3" &&
    head -n 1 out | grep -q "^ok: no hang; ranks 2,3 are slow: up to 40 ms late (median)$" &&
    sh "$TOP/tests/scenarios/run_scenario.sh" nccl_two_lags jobdir2 &&
    test_expect_code 0 "$FRTRACE" -o db.json jobdir2 >out &&
    test "$(sorted_stragglers db.json)" = "2 3"
'

test_expect_success 'NCCL: a node 300 ms ahead whose peers notice ends 0-90 ms late (each rank its own lag) is no straggler: its offset is only known to that noise' '
    sh "$TOP/tests/scenarios/run_scenario.sh" nccl_clock_noise jobdir &&
    test_expect_code 0 "$FRTRACE" -o db.json jobdir >out &&
    test "$(stragglers db.json)" = "" && head -n 1 out | grep -q "^ok: 8 ranks"
'

test_expect_success 'gloo: a node whose clock reads 300 ms ahead is late everywhere but slow nowhere (its peers went on before it came); a slow rank beside it is named alone' '
    sh "$TOP/tests/scenarios/run_scenario.sh" gloo_clock_ahead jobdir &&
    test_expect_code 0 "$FRTRACE" -o db.json jobdir >out &&
    test "$(stragglers db.json)" = "" && head -n 1 out | grep -q "^ok: 8 ranks" &&
    sh "$TOP/tests/scenarios/run_scenario.sh" gloo_clock_ahead_slow jobdir2 &&
    test_expect_code 0 "$FRTRACE" -o db.json jobdir2 >out &&
    test "$(stragglers db.json)" = 5
'

test_expect_success 'gloo: a rank late at asynchronous calls its peers leave at once, and waited for at the blocking one, is slow (no clock)' '
    sh "$TOP/tests/scenarios/run_scenario.sh" gloo_async_slow jobdir &&
    test_expect_code 0 "$FRTRACE" -o db.json jobdir >out &&
    test "$(stragglers db.json)" = 2 &&
    head -n 1 out | grep -q "^ok: no hang; rank 2 is slow: last to arrive in 104 of 104 collectives, 60 ms late"
'

test_expect_success 'gloo: a healthy job timed the same way names nobody' '
    sh "$TOP/tests/scenarios/run_scenario.sh" gloo_healthy jobdir &&
    test_expect_code 0 "$FRTRACE" -o db.json jobdir >out &&
    test "$(stragglers db.json)" = "" &&
    head -n 1 out | grep -q "^ok: 8 ranks"
'

# real_slow DIR: the slow ranks a committed real job must show ("" none): its EXPECTED file's
# third field, for the gloo jobs; none for the rest.
real_slow() {
    test -f "$1/EXPECTED" || return 0
    set -- $(head -n 1 "$1/EXPECTED")
    [ "$3" = - ] || echo "$3" | tr , " "
}

test_expect_success 'real dumps, healthy and faulty (gloo 2.15, recorder, demo), show no false slow rank' '
    n=0 &&
    for d in "$TOP"/testdata/torch-2.15.0-gloo/*/ "$TOP"/testdata/recorder-fake-nccl/*/ "$TOP"/testdata/demo-hang/; do
        rc=0 &&
        { "$FRTRACE" -o db.json "$d" >/dev/null 2>&1 || rc=$?; } &&
        test "$rc" -le 1 &&
        python3 "$TOP/tests/tools/validate_db.py" db.json &&
        test "$(sorted_stragglers db.json)" = "$(real_slow "$d")" &&
        n=$((n + 1)) || exit 1
    done &&
    test "$n" -ge 20
'

if have_shared && [ -d "$REAL_DUMPS" ]; then
    test_expect_success 'the real 2.9 NVRx dumps (GPU errors, GIL locks) show no false slow rank' '
        for d in "$REAL_DUMPS"/*/; do
            test_expect_code 1 "$FRTRACE" -o db.json "$d" >/dev/null &&
            test "$(stragglers db.json)" = "" || exit 1
        done
    '
else
    test_skip 'no ../shared/testdata' 'the real 2.9 NVRx dumps show no false slow rank'
fi

test_expect_success 'frtrace stats: rows per group x op x sizes x dtype, bytes and nccl-tests bandwidths' '
    gen --durations --slow-ranks 5 jobdir >/dev/null &&
    test_expect_code 0 "$FRTRACE" stats -f json jobdir >stats.json &&
    test_expect_code 0 "$FRTRACE" -o db.json jobdir >/dev/null &&
    python3 - <<-"PY"
	import json
	s = json.load(open("stats.json")); db = json.load(open("db.json"))
	rows = s["stats"]
	assert rows and rows == db["stats"], "stats -f json and db.json agree"
	assert [x["rank"] for x in s["stragglers"]] == [5]
	size = {"Float": 4, "BFloat16": 2, "Long": 8}
	def numel(shapes):
	    t = 0
	    for sh in shapes:
	        n = 1
	        for d in sh: n *= d
	        t += n
	    return t
	keys = set()
	for r in rows:
	    k = (r["group_id"], r["op"], str(r["input_sizes"]), str(r["output_sizes"]), r["dtype"])
	    assert k not in keys, k; keys.add(k)
	    b = max(numel(r["input_sizes"]), numel(r["output_sizes"])) * size[r["dtype"]]
	    assert r["bytes"] == b, (r, b)
	    assert r["count"] >= 1 and r["skew_ms_p50"] <= r["skew_ms_p99"]
	    if r["op"] == "send/recv": continue
	    n = r["ranks"]
	    f = 2 * (n - 1) / n if "all_reduce" in r["op"] else (n - 1) / n if any(x in r["op"] for x in ("all_gather", "reduce_scatter", "all_to_all")) else 1
	    assert r["duration_ms_p50"] > 0, r
	    alg = r["bytes"] / (r["duration_ms_p50"] * 1e6)
	    assert abs(r["algbw_gbps"] - alg) <= 0.01 * alg + 0.002, (r, alg)
	    assert abs(r["busbw_gbps"] - alg * f) <= 0.01 * alg + 0.002, (r, alg * f)
	# a transfer is one row, whichever side stands for it
	ops = [r["op"] for r in rows]
	assert "send/recv" in ops and "send" not in ops and "recv" not in ops, ops
	# the slow rank shows as skew in its groups: 40 ms between first and last arrival
	assert max(r["skew_ms_p50"] for r in rows) > 35
	PY
'

test_expect_success 'frtrace stats as text and markdown; --pg-filters keeps only that group; a bad -f is a usage error' '
    test_expect_code 0 "$FRTRACE" stats "$TOP/testdata/torch-2.15.0-gloo/healthy" >out &&
    head -n 1 out | grep -q "^13 operation kinds, 8 ranks" &&
    grep -q "skew p50" out && ! grep -q "busbw GB/s" out && grep -q "no durations" out &&
    test_expect_code 0 "$FRTRACE" stats -f markdown "$TOP/testdata/torch-2.15.0-gloo/healthy" >md &&
    grep -q "^| group | op |" md &&
    test_expect_code 0 "$FRTRACE" stats -f json --pg-filters default_pg -- "$TOP/testdata/torch-2.15.0-gloo/healthy" >one.json &&
    python3 -c "import json; r=json.load(open(\"one.json\"))[\"stats\"]; assert len(r) == 1 and r[0][\"group_desc\"] == \"default_pg\" and r[0][\"count\"] == 6, r" &&
    test_expect_code 2 "$FRTRACE" stats -f svg "$TOP/testdata/torch-2.15.0-gloo/healthy" 2>err && grep -q "unknown format" err &&
    test_expect_code 2 "$FRTRACE" stats -j "$TOP/testdata/torch-2.15.0-gloo/healthy" 2>/dev/null
'

test_expect_success 'frtrace timeline: Chrome trace JSON with a process per rank, a slice per entry, flows, the hang marked' '
    gen --slow-ranks 21 --faults 1 jobdir >printed &&
    culprit=$(sed -n "s/^culprit_ranks: //p" printed) &&
    test_expect_code 0 "$FRTRACE" timeline jobdir -o trace.json &&
    python3 - "$culprit" <<-"PY"
	import json, sys
	culprit = int(sys.argv[1])
	t = json.load(open("trace.json"))
	ev = t["traceEvents"]
	x = [e for e in ev if e["ph"] == "X"]
	assert {e["pid"] for e in x} == set(range(64)), "one process per rank"
	assert len(x) == 64 * 400, len(x)
	assert all(e["dur"] > 0 and "collective_seq_id" in e["args"] and "state" in e["args"] for e in x)
	pending = [e for e in x if e["args"].get("pending")]
	assert pending and all(e["name"].endswith("(pending)") and e["cname"] == "terrible" for e in pending)
	names = {e["pid"]: e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "process_name"}
	assert "culprit" in names[culprit] and "slow" in names[21], (names[culprit], names[21])
	assert sum(1 for e in ev if e["ph"] == "M" and e["name"] == "thread_name") >= 64 * 3
	flows = [e for e in ev if e["ph"] in "stf" and e.get("cat") == "flow"]
	assert any(e["ph"] == "s" for e in flows) and any(e["ph"] == "f" for e in flows)
	hang = [e for e in ev if e["ph"] == "i" and e["name"].startswith("hang point")]
	assert len(hang) == 1 and hang[0]["s"] == "g"
	assert any(e["ph"] == "i" and e["name"] == "culprit" and e["pid"] == culprit for e in ev)
	lines = open("trace.json").read().split("\n")
	assert sum(1 for l in lines if l.startswith("{\"ph\":")) == len(ev), "one event a line"
	PY
'

test_expect_success 'timeline filters: --selected-ranks, --pg-filters, a time window, and a cap with a clear message' '
    gen --slow-ranks 21 --faults 1 jobdir >printed &&
    culprit=$(sed -n "s/^culprit_ranks: //p" printed) &&
    test_expect_code 0 "$FRTRACE" timeline --selected-ranks 0-3 -o sel.json jobdir &&
    python3 -c "import json; e=json.load(open(\"sel.json\"))[\"traceEvents\"]; assert {x[\"pid\"] for x in e if x[\"ph\"]==\"X\"} == {0,1,2,3}" &&
    test_expect_code 0 "$FRTRACE" timeline --pg-filters TENSOR_MODEL_PARALLEL_GROUP -o tp.json -- jobdir &&
    python3 -c "import json; e=json.load(open(\"tp.json\"))[\"traceEvents\"]; assert {x[\"args\"][\"profiling_name\"].split()[0] for x in e if x[\"ph\"]==\"X\"} <= {\"nccl:_all_gather_base\",\"nccl:_reduce_scatter_base\",\"nccl:broadcast\"}" &&
    test_expect_code 0 "$FRTRACE" timeline --from-ms 500 --to-ms 1000 -o win.json jobdir &&
    python3 -c "
import json
e=[x for x in json.load(open(\"win.json\"))[\"traceEvents\"] if x[\"ph\"]==\"X\"]
assert e and all(x[\"ts\"] + x[\"dur\"] >= 500e3 and x[\"ts\"] <= 1000e3 for x in e)" &&
    test_expect_code 0 "$FRTRACE" timeline --max-ranks 8 -o cap.json jobdir 2>err &&
    grep -q "timeline: 64 ranks; drawing 8 of them" err && grep -q -- "--max-ranks N" err &&
    python3 -c "
import json,sys
pids={x[\"pid\"] for x in json.load(open(\"cap.json\"))[\"traceEvents\"] if x[\"ph\"]==\"X\"}
assert len(pids) == 8 and {int(sys.argv[1]), 21} <= pids, pids" "$culprit" &&
    test_expect_code 2 "$FRTRACE" timeline -f text jobdir 2>/dev/null
'

test_expect_success 'timeline -f svg: a self-contained SVG, culprit and slow rows marked, pending bars red' '
    gen --slow-ranks 21 --faults 1 jobdir >/dev/null &&
    test_expect_code 0 "$FRTRACE" timeline -f svg -o t.svg jobdir &&
    python3 - <<-"PY"
	import xml.etree.ElementTree as ET
	root = ET.parse("t.svg").getroot()
	assert root.tag.endswith("svg")
	text = open("t.svg").read()
	assert "http" not in text.replace("http://www.w3.org/2000/svg", ""), "no external references"
	labels = [t.text or "" for t in root.iter("{http://www.w3.org/2000/svg}text")]
	assert any("culprit" in l for l in labels) and any(l.startswith("rank 21 slow +40 ms") for l in labels), labels[:70]
	assert any(l.startswith("hang point") for l in labels)
	assert "#e15759" in text
	rects = sum(1 for _ in root.iter("{http://www.w3.org/2000/svg}rect"))
	assert 100 < rects < 64 * 400, rects
	PY
'

test_expect_success '-o onto something that is not a regular file (a FIFO, /dev/null) writes through it, never replaces it' '
    mkfifo fifo &&
    { cat fifo >trace.json & } &&
    test_expect_code 0 "$FRTRACE" timeline -o fifo "$TOP/testdata/demo-hang" &&
    wait && test -p fifo &&
    python3 -c "import json; json.load(open(\"trace.json\"))" &&
    { cat fifo >db.json & } &&
    test_expect_code 1 "$FRTRACE" -o fifo "$TOP/testdata/demo-hang" >/dev/null &&
    wait && test -p fifo &&
    python3 -c "import json; assert json.load(open(\"db.json\"))[\"stragglers\"] == []"
'

if command -v rsvg-convert >/dev/null 2>&1; then
    test_expect_success 'the SVG renders (rsvg-convert to PNG)' '
        gen --slow-ranks 21 --faults 1 jobdir >/dev/null &&
        test_expect_code 0 "$FRTRACE" timeline -f svg -o t.svg jobdir &&
        rsvg-convert -o t.png t.svg &&
        python3 -c "d=open(\"t.png\",\"rb\").read(); import struct; assert d[:8]==b\"\\x89PNG\\r\\n\\x1a\\n\"; w,h=struct.unpack(\">II\", d[16:24]); assert w == 1200 and h > 300, (w, h)"
    '
else
    test_skip 'rsvg-convert absent (Debian: librsvg2-bin)' 'the SVG renders to PNG'
fi

test_done
