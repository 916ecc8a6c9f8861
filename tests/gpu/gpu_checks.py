"""gpu_checks.py — checks on the dumps of tests/gpu/run.sh, and on those committed from it.

    python3 gpu_checks.py cases ROOT        every case folder under ROOT that has an EXPECTED
                                            file, and every pair that ROOT/COMPARE names
    python3 gpu_checks.py compare A B [durations]
                                            the dumps in folders A and B record the same job

A case folder holds one rank's dump (rank_0 or nccl_trace_rank_0) and EXPECTED, lines of
"key: value" ('#' starts a comment):
    status: ok|hang|mismatch|inconclusive    frtrace's verdict on the folder
    culprits: R R ...                        its culprit ranks (empty: none)
    trigger: signal|timeout|...              the recorder's dump trigger (frtrace.trigger)
    groups: N                                entries of pg_config
    pending: NAME NAME ...                   profiling names of the entries not completed, in
                                             record order (empty: every entry completed)
    durations: all                           every completed entry has duration_ms
ROOT/COMPARE: lines "A B" or "A B durations" (case folders under ROOT), compared as below.

compare: the entries of each process group, matched by the order in which groups first appear
and then by position, agree on the operation (PyTorch's names mapped onto NCCL's: all_gather
for _allgather_base, all_reduce for all_reduce_barrier...; a PyTorch dump read as the NCCL calls
it made, see nccl_view), the element counts and dtypes of
inputs and outputs (not for nccl:coalesced markers, whose sizes PyTorch releases fill
differently), and the state; with "durations", every entry that both timed agrees within
DURATION_ABS_MS + DURATION_REL x the first's duration (the recorder's events sit inside
PyTorch's, around the same kernel).

Dumps are decoded by `frtrace show` ($FRTRACE, else build/frtrace beside this file's tree), or
when there is none by Python's pickle with every class refused, or json. Prints "ok WHAT: ..."
or "FAIL WHAT: ..." lines; exit status 1 when anything failed.
"""
import io
import json
import os
import pickle
import subprocess
import sys

DURATION_ABS_MS = 0.25
DURATION_REL = 0.25
DUMP_PREFIXES = ("rank_", "nccl_trace_rank_")
TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def frtrace_path():
    path = os.environ.get("FRTRACE") or os.path.join(TOP, "build", "frtrace")
    return path if os.access(path, os.X_OK) else None


class NoClasses(pickle.Unpickler):
    def find_class(self, module, name):
        raise pickle.UnpicklingError("class %s.%s refused" % (module, name))


def decode(path):
    frtrace = frtrace_path()
    if frtrace:
        out = subprocess.run([frtrace, "show", path], capture_output=True, timeout=60)
        if out.returncode != 0:
            raise ValueError("frtrace show %s: %s" % (path, out.stderr.decode()[-300:]))
        return json.loads(out.stdout)
    raw = open(path, "rb").read()
    if raw[:1] in (b"{", b"["):
        return json.loads(raw)
    return NoClasses(io.BytesIO(raw)).load()


def dump_in(folder):
    names = sorted(n for n in os.listdir(folder) if n.startswith(DUMP_PREFIXES))
    if not names:
        raise ValueError("no rank_* or nccl_trace_rank_* dump in %s" % folder)
    return os.path.join(folder, names[0])


# --- compare ---------------------------------------------------------------------------------

TORCH_NAMES = {
    "_allgather_base": "all_gather", "_all_gather_base": "all_gather",
    "all_gather_into_tensor": "all_gather",
    "allgather": "all_gather", "allgather_into_tensor_coalesced": "all_gather",
    "_reduce_scatter_base": "reduce_scatter", "reduce_scatter_tensor": "reduce_scatter",
    "reduce_scatter_tensor_coalesced": "reduce_scatter", "allreduce": "all_reduce",
    "all_reduce_barrier": "all_reduce", "barrier": "all_reduce", "allreduce_coalesced":
    "all_reduce", "ALLGATHER_coalesced": "all_gather", "REDUCE_SCATTER_coalesced":
    "reduce_scatter",
}
# PyTorch's entries for one call over several tensors: NCCL sees one call per tensor.
TORCH_MULTI_TENSOR = ("allreduce_coalesced", "ALLGATHER_coalesced", "REDUCE_SCATTER_coalesced",
                      "allgather_into_tensor_coalesced", "all_gather_into_tensor_coalesced",
                      "reduce_scatter_tensor_coalesced")


def op_of(entry):
    name = str(entry.get("profiling_name", "")).split(" ")[0]
    name = name.split(":", 1)[-1]
    return TORCH_NAMES.get(name, name)


def numels(shapes):
    out = []
    for shape in shapes or []:
        n = 1
        for dim in shape:
            n *= dim
        out.append(n)
    return out


def group_sizes(dump):
    """Ranks in each process group, by the name entries carry (pg_config's "ranks")."""
    sizes = {}
    for name, cfg in (dump.get("pg_config") or {}).items():
        ranks = str(cfg.get("ranks", "")).strip("[] ")
        sizes[name] = len(ranks.split(",")) if ranks else 0
    return sizes


def nccl_view(entries, sizes):
    """PyTorch's entries as the NCCL calls they made: an entry over several tensors becomes one
    per tensor (untimed: PyTorch times them together), and a reduce_scatter on a group of one
    rank goes (PyTorch 2.11 copies there: NCCL_DEBUG=INFO shows no ReduceScatter call)."""
    out = []
    for e in entries:
        name = str(e.get("profiling_name", "")).split(":", 1)[-1]
        group = (e.get("process_group") or [None])[0]
        if op_of(e) == "reduce_scatter" and sizes.get(group) == 1:
            continue
        if name not in TORCH_MULTI_TENSOR or len(e.get("input_sizes") or []) < 2:
            out.append(e)
            continue
        for i in range(len(e["input_sizes"])):
            one = dict(e, duration_ms=None, profiling_name="nccl:" + op_of(e))
            for key in ("input_sizes", "output_sizes", "input_dtypes", "output_dtypes"):
                values = list(e.get(key) or [])
                one[key] = values[i:i + 1]
            out.append(one)
    return out


def by_group(dump):
    """Entries per process group, groups in order of their first entry, entries by record id;
    a dump PyTorch wrote (not the recorder's) as the NCCL calls it made."""
    groups = {}
    for e in sorted(dump.get("entries", []), key=lambda e: e.get("record_id", 0)):
        key = json.dumps(e.get("process_group", e.get("pg_id")))
        groups.setdefault(key, []).append(e)
    if "frtrace" not in dump:
        sizes = group_sizes(dump)
        groups = {k: nccl_view(v, sizes) for k, v in groups.items()}
    return list(groups.items())


def ops_list(entries, shown=12):
    ops = " ".join(op_of(e) for e in entries[:shown])
    return ops + (" ..." if len(entries) > shown else "")


def entry_differences(a, b):
    found = []
    if op_of(a) != op_of(b):
        found.append("op %s vs %s" % (a.get("profiling_name"), b.get("profiling_name")))
    if op_of(a) != "coalesced":
        for key in ("input_sizes", "output_sizes"):
            if numels(a.get(key)) != numels(b.get(key)):
                found.append("%s %s vs %s" % (key, a.get(key), b.get(key)))
        for key in ("input_dtypes", "output_dtypes"):
            if list(a.get(key) or []) != list(b.get(key) or []):
                found.append("%s %s vs %s" % (key, a.get(key), b.get(key)))
    if a.get("state") != b.get("state"):
        found.append("state %s vs %s" % (a.get("state"), b.get("state")))
    return found


def compare_durations(pairs):
    """(compared, worst |diff| in ms, list of entries outside the tolerance)."""
    compared, worst, outside = 0, 0.0, []
    for a, b in pairs:
        da, db = a.get("duration_ms"), b.get("duration_ms")
        if da is None or db is None:
            continue
        compared += 1
        diff = abs(float(da) - float(db))
        worst = max(worst, diff)
        if diff > DURATION_ABS_MS + DURATION_REL * float(da):
            outside.append("%s #%s: %.4f vs %.4f ms" % (a.get("profiling_name"),
                                                        a.get("record_id"), da, db))
    return compared, worst, outside


def compare(folder_a, folder_b, durations):
    """Returns (ok, one-line summary, detail lines)."""
    a, b = decode(dump_in(folder_a)), decode(dump_in(folder_b))
    ga, gb = by_group(a), by_group(b)
    problems, pairs = [], []
    if len(ga) != len(gb):
        problems.append("%d groups vs %d" % (len(ga), len(gb)))
    for i, ((name_a, ea), (name_b, eb)) in enumerate(zip(ga, gb)):
        if len(ea) != len(eb):
            problems.append("group %d (%s / %s): %d entries vs %d: %s vs %s" % (
                i, name_a, name_b, len(ea), len(eb), ops_list(ea), ops_list(eb)))
        for x, y in zip(ea, eb):
            pairs.append((x, y))
            for d in entry_differences(x, y):
                problems.append("group %d entry %s/%s: %s" % (i, x.get("record_id"),
                                                              y.get("record_id"), d))
    summary = "%d entries in %d groups" % (len(pairs), min(len(ga), len(gb)))
    if durations:
        compared, worst, outside = compare_durations(pairs)
        timed_a = sum(1 for x, _ in pairs if x.get("duration_ms") is not None)
        summary += "; durations: %d compared (of %d timed in A), max |diff| %.4f ms" % (
            compared, timed_a, worst)
        problems += ["duration " + o for o in outside]
        if timed_a > 0 and compared < timed_a:
            problems.append("duration: B times %d of the %d entries A timed" % (compared, timed_a))
    return not problems, summary, problems


# --- cases -----------------------------------------------------------------------------------

def read_expected(path):
    want = {}
    for line in open(path, encoding="utf-8"):
        line = line.split("#", 1)[0].strip()
        if ":" in line:
            key, value = line.split(":", 1)
            want[key.strip()] = value.strip()
    return want


def verdict(folder):
    frtrace = frtrace_path()
    if frtrace is None:
        return None
    out = subprocess.run([frtrace, "-f", "json", folder], capture_output=True, timeout=120)
    if out.returncode not in (0, 1):
        raise ValueError("frtrace exit %d: %s" % (out.returncode, out.stderr.decode()[-300:]))
    v = json.loads(out.stdout)["verdict"]
    return v["status"], v["culprit_ranks"]


def case_problems(folder, want):
    problems = []
    if "status" in want:
        got = verdict(folder)
        culprits = [int(r) for r in want.get("culprits", "").split()]
        if got is None:
            problems.append("no frtrace to read the verdict")
        elif got != (want["status"], culprits):
            problems.append("verdict %s %s, EXPECTED %s %s" % (got + (want["status"], culprits)))
    dump = decode(dump_in(folder))
    entries = dump.get("entries", [])
    if "trigger" in want:
        got = (dump.get("frtrace") or {}).get("trigger")
        if got != want["trigger"]:
            problems.append("trigger %s, EXPECTED %s" % (got, want["trigger"]))
    if "groups" in want and len(dump.get("pg_config", {})) != int(want["groups"]):
        problems.append("%d groups, EXPECTED %s" % (len(dump.get("pg_config", {})),
                                                    want["groups"]))
    if "pending" in want:
        got = [e.get("profiling_name") for e in entries if e.get("state") != "completed"]
        # compared as text: PyTorch's p2p names hold spaces ("nccl:send 0->0")
        if " ".join(got) != " ".join(want["pending"].split()):
            problems.append("pending %s, EXPECTED %s" % (" ".join(got) or "none",
                                                         want["pending"] or "none"))
    if want.get("durations") == "all":
        untimed = [e.get("record_id") for e in entries
                   if e.get("state") == "completed" and e.get("duration_ms") is None]
        if untimed:
            problems.append("completed entries without duration_ms: %s" % untimed[:10])
    return problems, len(entries)


def cases(root):
    failed = 0
    folders = sorted(d for d in os.listdir(root)
                     if os.path.isfile(os.path.join(root, d, "EXPECTED")))
    if not folders:
        print("FAIL %s: no case folder with an EXPECTED file" % root)
        return 1
    for name in folders:
        folder = os.path.join(root, name)
        try:
            problems, n = case_problems(folder, read_expected(os.path.join(folder, "EXPECTED")))
        except (OSError, ValueError, KeyError, subprocess.SubprocessError) as e:
            problems, n = ["%s: %s" % (type(e).__name__, e)], 0
        failed += bool(problems)
        print(("FAIL %s: %s" % (name, "; ".join(problems))) if problems
              else "ok %s: EXPECTED holds (%d entries)" % (name, n))
    listing = os.path.join(root, "COMPARE")
    if os.path.exists(listing):
        for line in open(listing, encoding="utf-8"):
            words = line.split("#", 1)[0].split()
            if len(words) < 2:
                continue
            failed += not report_compare(os.path.join(root, words[0]), os.path.join(root, words[1]),
                                         "durations" in words[2:], "%s = %s" % tuple(words[:2]))
    return 1 if failed else 0


def report_compare(a, b, durations, label):
    try:
        ok, summary, problems = compare(a, b, durations)
    except (OSError, ValueError, KeyError, subprocess.SubprocessError) as e:
        ok, summary, problems = False, "%s: %s" % (type(e).__name__, e), []
    print("%s %s: %s" % ("ok" if ok else "FAIL", label, summary))
    for p in problems[:20]:
        print("    " + p)
    if len(problems) > 20:
        print("    ... %d more" % (len(problems) - 20))
    return ok


def main(argv):
    if len(argv) == 2 and argv[0] == "cases":
        return cases(argv[1])
    if len(argv) in (3, 4) and argv[0] == "compare":
        durations = len(argv) == 4 and argv[3] == "durations"
        return 0 if report_compare(argv[1], argv[2], durations, "%s = %s" % tuple(argv[1:3])) else 1
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
