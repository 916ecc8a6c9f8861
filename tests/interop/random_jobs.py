#!/usr/bin/env python3
"""Random real PyTorch gloo jobs with known answers, scored like tests/sim/accuracy.py.

    random_jobs.py --seeds A:B --python VENV_PYTHON [--frtrace build/frtrace]
                   [--workdir build/interop/random] [--json FILE] [--keep] [--rescore]

For each seed in [A, B), ONE at a time (each job is 4 to 12 real processes), random_job.py draws
and runs a real gloo job and writes its dumps and answer.json (the answer the dumps support,
derived from the fault and from what each rank really issued); `frtrace DIR -o db.json` reads
the dumps, and accuracy.py's score() judges the verdict: exact, ambiguous (honestly undecided)
or wrong. Prints one row per fault class, a total, and for every seed that is not exact what
was drawn, what was expected, what frtrace said and the command that reproduces it. A seed's
directory is removed once scored unless it is not exact (or --keep). Exits 1 when any seed is
wrong. `make interop` runs 20 seeds (INTEROP_RANDOM=A:B to change).
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "sim"))
from accuracy import fmt_verdict, parse_seeds, run_seeds, score, verdict_of  # noqa: E402


def run_seed(args, seed):
    out = os.path.join(args.workdir, f"seed-{seed}")
    t0 = time.time()
    again = ["--answer-only"] if args.rescore and os.path.isdir(out) else []
    job = subprocess.run([args.python, os.path.join(HERE, "random_job.py"), "--seed", str(seed),
                          out] + again, capture_output=True, text=True, timeout=600)
    t1 = time.time()
    try:
        with open(os.path.join(out, "answer.json")) as f:
            answer = json.load(f)
    except (OSError, ValueError):
        return {"seed": seed, "class": "job_error", "result": "wrong", "job": "?",
                "why": "random_job.py failed: " + job.stderr.strip()[-300:], "expected": None,
                "got": None, "notes": [], "job_s": t1 - t0, "dir": out}
    db = os.path.join(out, "db.json")
    run = subprocess.run([args.frtrace, out, "-o", db], capture_output=True, text=True,
                         timeout=300)
    got = verdict_of(db)
    result, why = score(answer["expected"], got, run.returncode, answer["class"])
    row = {"seed": seed, "class": answer["class"], "result": result, "why": why,
           "job": answer["job"], "expected": answer["expected"], "got": got,
           "notes": answer["notes"], "job_s": t1 - t0, "dir": out}
    if result == "exact" and not args.keep:
        shutil.rmtree(out, ignore_errors=True)
    return row


def report(args, rows, elapsed):
    print("%-22s %6s %6s %9s %6s" % ("class", "jobs", "exact", "ambiguous", "wrong"))
    tot = [0, 0, 0, 0]
    for c in sorted({r["class"] for r in rows}):
        rs = [r for r in rows if r["class"] == c]
        n = [len(rs)] + [sum(r["result"] == k for r in rs) for k in ("exact", "ambiguous",
                                                                      "wrong")]
        tot = [a + b for a, b in zip(tot, n)]
        print("%-22s %6d %6d %9d %6d" % (c, *n))
    print("%-22s %6d %6d %9d %6d" % ("total", *tot))
    print("%d real jobs in %.0f s, one at a time" % (len(rows), elapsed))
    for r in sorted((r for r in rows if r["result"] != "exact"), key=lambda r: r["seed"]):
        e = r["expected"] or {}
        slow = ""
        if r["got"] and (e.get("stragglers") or r["got"].get("stragglers")):
            slow = " (slow: expected %s, got %s)" % (
                e.get("stragglers"), sorted(s["rank"] for s in r["got"]["stragglers"]))
        print("%s %s seed %d: expected %s, got %s%s%s\n    %s%s\n    %s %s --seed %d %s && %s %s"
              % (r["result"], r["class"], r["seed"], fmt_verdict(e) if e else "?",
                 fmt_verdict(r["got"]), slow, (" (%s)" % r["why"]) if r["why"] else "", r["job"],
                 ("\n    notes: " + "; ".join(r["notes"])) if r["notes"] else "", args.python,
                 os.path.join("tests", "interop", "random_job.py"), r["seed"], r["dir"],
                 args.frtrace, r["dir"]))
    return tot[3]


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--seeds", default="0:20")
    p.add_argument("--python", required=True, help="a Python with torch")
    p.add_argument("--frtrace", default="build/frtrace")
    p.add_argument("--workdir", default="build/interop/random")
    p.add_argument("--json", help="write every seed's row to this file")
    p.add_argument("--keep", action="store_true", help="keep the dumps of exact seeds too")
    p.add_argument("--rescore", action="store_true",
                   help="where a seed's directory is kept, derive its answer again and score "
                   "frtrace on its dumps without running the job")
    args = p.parse_args()
    os.makedirs(args.workdir, exist_ok=True)
    t0 = time.time()
    rows = run_seeds(parse_seeds(args.seeds), lambda seed: run_seed(args, seed), args.json, 10,
                     "%.0f")
    print()
    wrong = report(args, rows, time.time() - t0)
    sys.exit(1 if wrong else 0)


if __name__ == "__main__":
    main()
