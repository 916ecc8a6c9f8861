#!/bin/sh
# bench_read.sh — how fast `frtrace show` decodes a dump: a ~40 MB pickle made by repeating
# the entries of a real 2.9 dump (or of a generated one without ../shared), timed against cat.
# Prints MB/s for decode+print (pickle -> JSON) and for the JSON it printed read back.
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$TOP/tests/paths.sh"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/frtrace-bench.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
REAL="$REAL_DUMPS/gpu_error_1st/_dump_0"

python3 - "$REAL" "$WORK/big.pkl" <<'PY' || exit 1
import os, pickle, sys
src, out = sys.argv[1], sys.argv[2]
if os.path.exists(src):
    with open(src, "rb") as f:
        d = pickle.load(f)
else:
    e = {"record_id": 0, "pg_id": 0, "process_group": ("0", "default_pg"), "collective_seq_id": 1,
         "profiling_name": "nccl:all_reduce", "time_created_ns": 1724779239936775119,
         "duration_ms": 0.0368, "input_sizes": [[4, 4]], "input_dtypes": ["Float"], "state": "completed",
         "frames": [{"name": "f", "filename": "/x.py", "line": 1}]}
    d = {"version": "2.9", "pg_config": {}, "entries": [e]}
one = d["entries"]
entries = []
rounds = 40_000_000 // max(1, len(pickle.dumps(one, protocol=2)))
for _ in range(rounds):
    for e in one:
        e = dict(e)
        e["record_id"] = len(entries)
        entries.append(e)
d["entries"] = entries
with open(out, "wb") as f:
    pickle.dump(d, f, protocol=2)
PY

now() { date +%s.%N; }
size=$(wc -c <"$WORK/big.pkl")
t0=$(now); cat "$WORK/big.pkl" >/dev/null; t1=$(now)
"$FRTRACE" show "$WORK/big.pkl" >"$WORK/big.json" || exit 1
t2=$(now)
"$FRTRACE" show "$WORK/big.json" >/dev/null || exit 1
t3=$(now)
jsize=$(wc -c <"$WORK/big.json")
python3 - "$size" "$jsize" "$t0" "$t1" "$t2" "$t3" <<'PY'
import sys
size, jsize = int(sys.argv[1]), int(sys.argv[2])
t0, t1, t2, t3 = map(float, sys.argv[3:])
mb, jmb = size / 1e6, jsize / 1e6
print("pickle %.1f MB: cat %.3f s; frtrace show (read + JSON out) %.3f s = %.0f MB/s of pickle"
      % (mb, t1 - t0, t2 - t1, mb / (t2 - t1)))
print("JSON %.1f MB: frtrace show (read + JSON out) %.3f s = %.0f MB/s of JSON" % (jmb, t3 - t2, jmb / (t3 - t2)))
PY
