#!/usr/bin/env python3
"""handchecked.py — sim.py still gives the answers that were checked by hand.

    python3 tests/sim/handchecked.py tests/sim/handchecked.txt

Each line `SEED STATUS CULPRITS ALTERNATIVES # note` holds an answer.json `expected` that a
person derived from the job's truth by the rules (sim.py's table). The simulator is run for each
seed and its expected status, culprit ranks and alternatives compared; every difference is
printed. Exit 1 on any.
"""
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sim  # noqa: E402


def ranks(text):
    return [] if text == "-" else [int(r) for r in text.split(",")]


def main():
    bad = 0
    with open(sys.argv[1]) as f:
        lines = [ln.split("#")[0].split() for ln in f if ln.split("#")[0].strip()]
    for seed, status, culprits, alternatives in lines:
        tmp = tempfile.mkdtemp(prefix="frtrace-hand-")
        try:
            e = sim.make(int(seed), tmp)["expected"]
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        want = (status, ranks(culprits),
                [] if alternatives == "-" else [ranks(a) for a in alternatives.split("|")])
        got = (e["status"], e["culprit_ranks"], e["alternatives"])
        if got != want:
            bad += 1
            print("seed %s: checked %s, sim.py now says %s" % (seed, want, got))
    print("%d of %d hand-checked answers differ" % (bad, len(lines)))
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
