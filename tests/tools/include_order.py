#!/usr/bin/env python3
"""include_order.py — does every include point down the pipeline? (t0110)

The analyzer's stages, lowest first: util, load, match, verdict, perf, the orchestrator
analysis.h, report, cli. A file may include headers of its own stage and of stages below it,
written with their folder ("match/match.h"); formats/ includes nothing of analyzer/, and the
recorder nothing of either. Prints each include that points up (or is written without its
folder) as "FILE: includes HEADER" and exits 1; prints "N files, 0 backward includes" else.
Usage: include_order.py [ROOT]
"""
import os
import re
import sys

ORDER = ["util", "load", "match", "verdict", "perf", "analysis", "report", "cli"]
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def stage_of(path):
    parts = path.split("/")
    if parts[0] != "analyzer":
        return parts[0]
    return "analysis" if len(parts) == 2 else parts[1]


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "."
    headers = {}
    for top in ("analyzer", "formats"):
        for d, _, names in os.walk(os.path.join(root, top)):
            for n in names:
                if n.endswith(".h"):
                    rel = os.path.relpath(os.path.join(d, n), root)
                    headers.setdefault(n, rel)
    bad, files = [], 0
    for top in ("analyzer", "formats", "recorder"):
        for d, _, names in os.walk(os.path.join(root, top)):
            for n in sorted(names):
                if not n.endswith((".c", ".h")):
                    continue
                rel = os.path.relpath(os.path.join(d, n), root)
                files += 1
                mine = stage_of(rel)
                for inc in INCLUDE.findall(open(os.path.join(d, n), errors="replace").read()):
                    base = os.path.basename(inc)
                    if mine in ("formats", "recorder"):
                        if inc.split("/")[0] in ORDER[:-3] + ["report", "cli"] or (
                                base in headers and headers[base].startswith("analyzer/")):
                            bad.append("%s: includes %s (from analyzer/)" % (rel, inc))
                        continue
                    target = headers.get(base)
                    if not target or target.startswith("formats/"):
                        continue
                    if inc != target[len("analyzer/"):]:
                        bad.append("%s: includes %s without its folder (%s)" % (rel, inc, target))
                        continue
                    if ORDER.index(stage_of(target)) > ORDER.index(mine):
                        bad.append("%s: includes %s, a later stage" % (rel, inc))
    for line in bad:
        print(line)
    print("%d files, %d backward includes" % (files, len(bad)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
