#!/usr/bin/env python3
"""accuracy.py — frtrace against many simulated jobs with known answers (`make accuracy`).

    python3 tests/sim/accuracy.py --seeds A:B [-j N] [--frtrace PATH] [--seed-file FILE]
                                  [--cache DIR]

For each seed in [A, B) (and each seed listed in --seed-file, `SEED  note` lines), sim.py writes
the job into a scratch directory, `frtrace DIR/dumps -o db.json` analyses it, and the verdict is
scored against answer.json's `expected`:
  exact      status and culprit_ranks equal; where explanations are expected, frtrace listed
             alternatives touching each of them; where stragglers are scored (healthy, slow,
             clock_offset jobs) the slow ranks are exactly the expected ones; exit status 0 for
             ok, 1 otherwise (2 and no database where no dump is readable and the answer is
             inconclusive: frtrace's exit status when no dump could be read);
  ambiguous  frtrace named only expected culprits and said it could not decide: alternatives
             among which (with its culprits) every expected culprit is offered, or
             inconclusive naming nobody: honest, less precise;
  wrong      anything else (a rank outside the answer named, a culprit missed without saying
             so, ok for a broken job or the reverse, mismatch for hang, a crash), and any
             verdict whose culprit_evidence has rows of a rank outside its culprit_ranks (every
             rank named as a culprit anywhere is in culprit_ranks).
With --cache DIR each job is kept in DIR/<simulator hash>/<seed> (about 1 MB a job) and read
back by later runs instead of simulated again: scoring another frtrace over 11 000 kept jobs takes
frtrace's time alone. The hash covers every tests/sim/*.py, so a changed simulator starts afresh.
Prints one row per fault class, a total, and for every seed that is not exact one line with
what was expected, what frtrace said and the command that reproduces it. Exits 1 when any seed
is wrong.
"""
import argparse
import json
import multiprocessing
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import faults  # noqa: E402
import hashlib  # noqa: E402
import sim  # noqa: E402

STRAGGLER_CLASSES = ("healthy", "slow", "clock_offset")
# scratch space: memory when there is some (thousands of small files), else the usual temp dir
SCRATCH = "/dev/shm" if os.access("/dev/shm", os.W_OK) else None
FRTRACE = "build/frtrace"


def verdict_of(db):
    """What frtrace's database says, as score() reads it: the verdict with the stragglers beside
    it; None when frtrace wrote no database."""
    if not os.path.exists(db):
        return None
    with open(db) as f:
        d = json.load(f)
    got = dict(d.get("verdict", {}))
    got["stragglers"] = d.get("stragglers", [])
    return got


def score(exp, got, code, cls, readable=1):
    """(verdict, reason): exact, ambiguous or wrong. `readable`: how many dumps the simulator
    left readable; with none, frtrace's answer is exit status 2 and no database (no dump could
    be read: man/frtrace.1, EXIT STATUS), which is the simulator's `inconclusive`."""
    if got is None:
        if code == 2 and readable == 0 and exp["status"] == "inconclusive":
            return "exact", ""
        return "wrong", "no database (exit %s)" % code
    st, cul = got.get("status"), sorted(got.get("culprit_ranks", []))
    alts = [set(a.get("ranks", [])) for a in got.get("alternatives", []) or []]
    want_code = 0 if st == "ok" else 1
    if code != want_code:
        return "wrong", "exit status %s for %s" % (code, st)
    # Every rank named as a culprit anywhere is in culprit_ranks (man/frtrace.1, VERDICT): a
    # rank in the evidence rows that the verdict does not name is a culprit shown, not counted.
    shown = sorted({e.get("rank") for e in got.get("culprit_evidence", []) or []} - set(cul))
    if shown:
        return "wrong", "culprit_evidence names rank%s %s outside culprit_ranks" % (
            "s" if len(shown) > 1 else "", ",".join(map(str, shown[:8])))
    if cls in STRAGGLER_CLASSES and exp["status"] == "ok" and st == "ok":
        slow = sorted(s["rank"] for s in got.get("stragglers", []))
        if slow != exp["stragglers"]:
            return "wrong", "stragglers %s, expected %s" % (slow or "none",
                                                            exp["stragglers"] or "none")
    if st == exp["status"] and cul == exp["culprit_ranks"]:
        named = set().union(*alts) if alts else set()
        if not exp["alternatives"] or all(named & set(e) for e in exp["alternatives"]):
            return "exact", ""
        return "ambiguous", "alternatives do not cover the expected explanations"
    # Undecided and honest: frtrace named no rank the answer clears as a culprit, and each
    # expected culprit is among its culprits or its alternatives (gloo's idle pipeline pairs:
    # "4 never sent, or 6 never received", where the simulator knows which); an inconclusive
    # verdict that names nobody is honest too.
    undecided = bool(alts) or st == "inconclusive"
    offered = set(cul).union(*alts) if alts else set(cul)
    covered = all(c in offered for c in exp["culprit_ranks"]) or (st == "inconclusive"
                                                                  and not offered)
    if (st == exp["status"] or st == "inconclusive") and set(cul) <= set(exp["culprit_ranks"]) \
            and undecided and covered:
        return "ambiguous", ""
    return "wrong", ""


def self_test():
    """The scoring rules on hand-made verdicts (t0700 runs this)."""
    hang = lambda c, a=(): {"status": "hang", "culprit_ranks": c,
                            "alternatives": [{"ranks": x} for x in a], "stragglers": []}
    exp = {"status": "hang", "culprit_ranks": [4], "alternatives": [], "stragglers": []}
    cases = [(hang([4]), "exact"), (hang([], [[4], [6]]), "ambiguous"),
             (hang([], [[5], [6]]), "wrong"), (hang([4, 6]), "wrong"), (hang([6]), "wrong"),
             ({"status": "inconclusive", "culprit_ranks": [], "alternatives": []}, "ambiguous"),
             ({"status": "ok", "culprit_ranks": [], "alternatives": []}, "wrong")]
    bad = 0
    for got, want in cases:
        code = 0 if got["status"] == "ok" else 1
        res = score(exp, got, code, "stop_cpu")[0]
        if res != want:
            print("score(%s) = %s, expected %s" % (fmt_verdict(got), res, want))
            bad += 1
    exp2 = dict(exp, culprit_ranks=[4], alternatives=[[7]])
    if score(exp2, hang([4], [[4], [4, 7]]), 1, "stop_cpu")[0] != "exact" or \
            score(exp2, hang([4]), 1, "stop_cpu")[0] != "ambiguous":
        print("alternatives beside a culprit are not scored as the rules say")
        bad += 1
    none = dict(exp, status="inconclusive", culprit_ranks=[])
    if score(none, None, 2, "sigkill", readable=0)[0] != "exact" or \
            score(none, None, 2, "sigkill", readable=1)[0] != "wrong" or \
            score(exp, None, 2, "sigkill", readable=0)[0] != "wrong":
        print("exit status 2 is exact only where no dump is readable and inconclusive expected")
        bad += 1
    shown = dict(hang([4]), culprit_evidence=[{"rank": 4}, {"rank": 6}])
    if score(exp, shown, 1, "stop_cpu")[0] != "wrong" or \
            score(exp, dict(shown, culprit_evidence=[{"rank": 4}]), 1, "stop_cpu")[0] != "exact":
        print("evidence rows of a rank outside culprit_ranks are not scored wrong")
        bad += 1
    print("scoring self-test: %d of %d cases wrong" % (bad, len(cases) + 3))
    return 1 if bad else 0


def fmt_verdict(v):
    if v is None:
        return "nothing"
    s = "%s %s" % (v.get("status"), ",".join(map(str, v.get("culprit_ranks", []))) or "-")
    alts = v.get("alternatives") or []
    if alts:
        s += " alt[%s]" % " | ".join(",".join(map(str, a.get("ranks", a) if isinstance(a, dict)
                                                   else a)) for a in alts)
    return s


def sim_hash():
    """A short hash of the simulator's sources: the key of the jobs a --cache keeps."""
    h = hashlib.sha256()
    for name in sorted(os.listdir(HERE)):
        if name.endswith(".py"):
            with open(os.path.join(HERE, name), "rb") as f:
                h.update(name.encode() + b"\0" + f.read())
    return h.hexdigest()[:16]


def make_job(seed, tmp, cache):
    """The job of `seed` in a directory: (dir, answer doc). Without a cache, simulated into tmp;
    with one, read back from cache/seed, or simulated there first (into a scratch directory
    renamed into place, so that a run cut short leaves no half job)."""
    if not cache:
        return tmp, sim.make(seed, tmp)
    kept = os.path.join(cache, str(seed))
    if not os.path.exists(os.path.join(kept, "answer.json")):
        part = tempfile.mkdtemp(prefix=".%d-" % seed, dir=cache)
        sim.make(seed, part)
        try:
            os.rename(part, kept)
        except OSError:  # another run kept it first (or left a half one without answer.json)
            if not os.path.exists(os.path.join(kept, "answer.json")):
                shutil.rmtree(kept, ignore_errors=True)
                os.rename(part, kept)
            shutil.rmtree(part, ignore_errors=True)
    with open(os.path.join(kept, "answer.json")) as f:
        return kept, json.load(f)


def one(args):
    seed, frtrace, cache = args
    tmp = tempfile.mkdtemp(prefix="frtrace-sim-", dir=SCRATCH)
    try:
        t0 = time.time()
        try:
            job_dir, doc = make_job(seed, tmp, cache)
        except Exception as e:  # a simulator bug: reported, never hidden
            return {"seed": seed, "class": "sim_error", "backend": "?", "world": 0,
                    "result": "wrong", "why": "sim.py failed: %r" % e, "expected": {
                        "status": "?", "culprit_ranks": [], "alternatives": []},
                    "got": None, "gen_s": time.time() - t0, "run_s": 0.0, "dump": None}
        t1 = time.time()
        db = os.path.join(tmp, "db.json")
        p = subprocess.run([frtrace, os.path.join(job_dir, "dumps"), "-o", db],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        t2 = time.time()
        got = verdict_of(db)
        exp = doc["expected"]
        readable = sum(1 for d in doc["dumps"].values() if d["readable"])
        result, why = score(exp, got, p.returncode, doc["class"], readable)
        return {"seed": seed, "class": doc["class"], "backend": doc["backend"],
                "world": doc["world"], "result": result, "why": why, "expected": exp,
                "got": got, "gen_s": t1 - t0, "run_s": t2 - t1,
                "dump": doc["dumps"] and next(iter(doc["dumps"].values()))["file"]}
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def parse_seeds(spec):
    a, _, b = spec.partition(":")
    return list(range(int(a), int(b))) if b else [int(a)]


def run_seeds(seeds, run_seed, json_path, result_width, time_format):
    """One job a seed, in order (the random real and recorder jobs: each runs processes of its
    own): a line per seed as it ends, and every row so far in json_path after each, so that an
    interrupted run keeps what it scored. Returns the rows."""
    rows = []
    for seed in seeds:
        row = run_seed(seed)
        rows.append(row)
        print(("seed %d %-*s %s -> %s (" + time_format + " s)")
              % (seed, result_width, row["result"], row["class"], fmt_verdict(row["got"]),
                 row["job_s"]), flush=True)
        if json_path:
            with open(json_path, "w") as f:
                json.dump(rows, f, indent=1)
    return rows


def seed_file(path):
    out = []
    with open(path) as f:
        for line in f:
            line = line.split("#")[0].strip()
            if line:
                out.append(int(line.split()[0]))
    return out


def report(rows, elapsed, jobs):
    classes = faults.CLASSES + ["sim_error"]
    print("%-14s %6s %6s %9s %6s" % ("class", "jobs", "exact", "ambiguous", "wrong"))
    tot = [0, 0, 0, 0]
    for c in classes:
        rs = [r for r in rows if r["class"] == c]
        if not rs:
            continue
        n = [len(rs)] + [sum(r["result"] == k for r in rs) for k in ("exact", "ambiguous",
                                                                      "wrong")]
        tot = [a + b for a, b in zip(tot, n)]
        print("%-14s %6d %6d %9d %6d" % (c, *n))
    print("%-14s %6d %6d %9d %6d" % ("total", *tot))
    gen = sum(r["gen_s"] for r in rows)
    run = sum(r["run_s"] for r in rows)
    print("%d jobs in %.0f s with %d workers (simulating %.0f s, frtrace %.0f s in all)" % (
        len(rows), elapsed, jobs, gen, run))
    bad = sorted((r for r in rows if r["result"] != "exact"), key=lambda r: (r["class"],
                                                                             r["seed"]))
    for r in bad:
        e = r["expected"]
        print("%s %s seed %d (%s, %d ranks): expected %s, got %s%s\n    python3 tests/sim/sim.py"
              " --seed %d --out /tmp/j && %s /tmp/j/dumps" % (
                  r["result"], r["class"], r["seed"], r["backend"], r["world"],
                  fmt_verdict({"status": e["status"], "culprit_ranks": e["culprit_ranks"],
                               "alternatives": e["alternatives"]}),
                  fmt_verdict(r["got"]), (" (%s)" % r["why"]) if r["why"] else "", r["seed"],
                  FRTRACE))
    return tot[3]


def main():
    global FRTRACE
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--seeds", default="0:100")
    p.add_argument("--seed-file", action="append", default=[])
    p.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1)
    p.add_argument("--frtrace", default=FRTRACE)
    p.add_argument("--json", help="write every seed's row to this file")
    p.add_argument("--cache", help="keep the simulated jobs here and reuse them")
    p.add_argument("--self-test", action="store_true", help="check the scoring rules, then exit")
    a = p.parse_args()
    if a.self_test:
        sys.exit(self_test())
    FRTRACE = a.frtrace
    seeds = parse_seeds(a.seeds)
    for f in a.seed_file:
        seeds += [s for s in seed_file(f) if s not in seeds]
    frtrace = os.path.abspath(a.frtrace)
    t0 = time.time()
    rows = []
    cache = None
    if a.cache:
        cache = os.path.join(os.path.abspath(a.cache), sim_hash())
        os.makedirs(cache, exist_ok=True)
    work = [(s, frtrace, cache) for s in seeds]
    pool = multiprocessing.Pool(a.jobs) if a.jobs > 1 else None
    results = pool.imap_unordered(one, work, chunksize=4) if pool else map(one, work)
    for row in results:
        rows.append(row)
        if len(rows) % 1000 == 0 and sys.stderr.isatty():
            print("%d of %d jobs (%.0f s)" % (len(rows), len(seeds), time.time() - t0),
                  file=sys.stderr)
    if pool:
        pool.close()
        pool.join()
    wrong = report(rows, time.time() - t0, a.jobs)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(sorted(rows, key=lambda r: r["seed"]), f, indent=1)
    sys.exit(1 if wrong else 0)


if __name__ == "__main__":
    main()
