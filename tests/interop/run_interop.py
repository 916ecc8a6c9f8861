#!/usr/bin/env python3
"""`make interop`: frtrace against what today's PyTorch really writes, and PyTorch's own analyzer
against what frtrace's recorder writes. Opt-in (it needs torch from PyPI, about 5 GB); never part
of `make check`.

    run_interop.py --python VENV_PYTHON --frtrace build/frtrace [--save testdata/torch-2.15-gloo]
                   [--only CASE ...] [--rescore]

1. Every fault of gloo_job.py (FAULTS) runs as a real 8-rank gloo job, dumped through torch's
   own `_dump_fr_trace` (pickle; also with stack traces, and only-active) and
   `_dump_fr_trace_json`; frtrace's verdict and culprits must be exactly the expected ones.
2. Every tests/interop/i*.sh runs with INTEROP_PY set (the recorder's dumps read by the real
   torchfrtrace).
With --save, each case's dumps and an EXPECTED file ("STATUS CULPRITS SLOW", "-" for none) go under the
given directory, for `make check` to test on machines without torch (tests/t0205).
--rescore judges the dumps an earlier run left in --workdir with the given frtrace, without
rerunning torch (the jobs' dumps do not depend on the analyzer: an analyzer change is checked
against real bytes in seconds); a case whose dumps are missing fails.
Prints one line per case, then "N passed, N failed"; exits 1 when anything failed.
`make interop` then runs random_jobs.py: random real gloo jobs with known answers, scored like
`make accuracy` (INTEROP_RANDOM=A:B).
"""
import argparse
import glob
import json
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from gloo_job import FAULTS, SLOW  # noqa: E402
import shapes_job  # noqa: E402

# (case name, fault, dump options)
VARIANTS = [("", ["--format", "pickle"]), ("-json", ["--format", "json"])]
EXTRA = [("stuck_cpu-stack", "stuck_cpu", ["--format", "pickle", "--stack"]),
         ("skip-only-active", "skip", ["--format", "pickle", "--only-active"]),
         ("healthy-only-active", "healthy", ["--format", "json", "--only-active"]),
         # 16 processes on a few cores: completions reach the ranks milliseconds apart
         ("healthy-16", "healthy", ["--format", "pickle", "--ranks", "16"]),
         ("slow-16", "slow", ["--format", "pickle", "--ranks", "16"])]


# shapes_job.py's jobs (DeviceMesh, ZeRO shard groups, pipeline pairs; SIGKILL, a kill inside a
# collective, an early dump, send/recv that never happened), every other rank's dump as JSON
SHAPES = [(case, case, ["--format", "mixed"]) for case in shapes_job.CASES]
SHAPES += [("pipe_skip_dp-only-active", "pipe_skip_dp", ["--format", "pickle", "--only-active"]),
           ("zero_sigkill-json", "zero_sigkill", ["--format", "json"])]


def cases(only):
    out = [(fault + suffix, fault, opts) for fault in FAULTS for suffix, opts in VARIANTS]
    out += EXTRA + SHAPES
    return [c for c in out if not only or c[0] in only]


def expectation(fault):
    """(status, culprits, slow, alternatives, what) of a gloo_job fault or a shapes_job case."""
    if fault in shapes_job.CASES:
        _, _, _, what, status, culprits = shapes_job.CASES[fault]
        return status, culprits, [], shapes_job.ALTERNATIVES.get(fault, []), what
    what, status, culprits = FAULTS[fault]
    return status, culprits, SLOW.get(fault, []), [], what


def verdict(frtrace, path):
    run = subprocess.run([frtrace, "-f", "json", path], capture_output=True, text=True, timeout=120)
    try:
        db = json.loads(run.stdout)
    except ValueError:
        return None, None, f"exit {run.returncode}, no JSON: {run.stderr.strip()[:200]}", None, None
    v = db["verdict"]
    return (v["status"], v["culprit_ranks"], v["summary"],
            [s["rank"] for s in db.get("stragglers", [])],
            sorted(a["ranks"] for a in v.get("alternatives", [])))


def run_case(args, name, fault, opts, workdir):
    out = os.path.join(workdir, name)
    if args.rescore:
        job_line = "(rescored)" if glob.glob(os.path.join(out, "rank_*")) else "(no dumps kept)"
    else:
        shutil.rmtree(out, ignore_errors=True)
        script = "shapes_job.py" if fault in shapes_job.CASES else "gloo_job.py"
        job = subprocess.run([args.python, os.path.join(HERE, script), fault, out] + opts,
                             capture_output=True, text=True, timeout=600)
        job_line = job.stdout.strip().split(' (')[0]
    status, culprits, summary, slow, alternatives = verdict(args.frtrace, out)
    want_status, want_culprits, want_slow, want_alternatives, what = expectation(fault)
    # the slow ranks as a set: they are listed most significant first, and two ranks 60 ms late
    # each come in either order
    good = (status == want_status and culprits == want_culprits and slow is not None
            and sorted(slow) == sorted(want_slow)
            and (alternatives or []) == sorted(want_alternatives))
    alt_text = f", or {alternatives}" if alternatives else ""
    print(f"{'ok  ' if good else 'FAIL'} {name:24} {job_line:38} "
          f"-> {status} {culprits}{alt_text}, slow {slow}"
          f"{'' if good else f' (expected {want_status} {want_culprits}, slow {want_slow}, alternatives {want_alternatives})'}")
    print(f"       {summary}")
    if good and args.save:
        keep = os.path.join(args.save, name)
        shutil.rmtree(keep, ignore_errors=True)
        os.makedirs(keep)
        for f in glob.glob(os.path.join(out, "rank_*")):
            shutil.copy(f, keep)
        alts = "|".join(",".join(map(str, a)) for a in sorted(want_alternatives))
        with open(os.path.join(keep, "EXPECTED"), "w") as f:
            f.write(f"{want_status} {','.join(map(str, want_culprits)) or '-'} "
                    f"{','.join(map(str, want_slow)) or '-'}{' ' + alts if alts else ''}\n"
                    f"# {what}; torch {args.torch_version}, dumped with {' '.join(opts)}\n")
    return good


def run_scripts(args):
    results = []
    env = dict(os.environ, INTEROP_PY=args.python, FRTRACE=os.path.abspath(args.frtrace))
    for script in sorted(glob.glob(os.path.join(HERE, "i[0-9]*.sh"))):
        run = subprocess.run(["sh", script], env=env, capture_output=True, text=True, timeout=1800)
        print(run.stdout.rstrip())
        if run.returncode:
            print(run.stderr.rstrip()[-2000:])
        results.append(run.returncode == 0)
        print(f"{'ok  ' if run.returncode == 0 else 'FAIL'} {os.path.basename(script)}")
    return results


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--python", required=True)
    p.add_argument("--frtrace", required=True)
    p.add_argument("--workdir", default="build/interop")
    p.add_argument("--save", default=None)
    p.add_argument("--only", nargs="*", default=[])
    p.add_argument("--no-scripts", action="store_true")
    p.add_argument("--rescore", action="store_true",
                   help="judge the dumps kept in --workdir again; run no torch job")
    args = p.parse_args()
    args.torch_version = subprocess.run([args.python, "-c", "import torch; print(torch.__version__)"],
                                        capture_output=True, text=True).stdout.strip()
    print(f"== real PyTorch {args.torch_version} gloo jobs, 8 ranks (4 or 12 for some), one fault each")
    results = [run_case(args, *c, args.workdir) for c in cases(args.only)]
    if not args.no_scripts and not args.rescore:
        print("== PyTorch's torchfrtrace on the recorder's dumps")
        results += run_scripts(args)
    passed = sum(results)
    print(f"{passed} passed, {len(results) - passed} failed")
    sys.exit(0 if passed == len(results) else 1)


if __name__ == "__main__":
    main()
