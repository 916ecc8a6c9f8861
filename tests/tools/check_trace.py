#!/usr/bin/env python3
"""check_trace.py TRACE.json — a Chrome trace that Perfetto draws as frtrace meant: on each
thread track the slices nest (ordered by start, the longer first, a slice that starts inside
another ends inside it), and every flow's steps (s, t..., f) go forward in time. Exits 1 saying
how many slices overlap partially and how many flows run backwards."""
import collections
import json
import sys


def main(path):
    events = json.load(open(path))["traceEvents"]
    tracks = collections.defaultdict(list)
    for e in events:
        if e.get("ph") == "X":
            tracks[(e["pid"], e["tid"])].append((e["ts"], -(e["ts"] + e["dur"])))
    overlaps = 0
    for slices in tracks.values():
        slices.sort()
        open_ends = []
        for start, neg_end in slices:
            end = -neg_end
            while open_ends and open_ends[-1] <= start + 1e-9:
                open_ends.pop()
            if open_ends and end > open_ends[-1] + 1e-6:
                overlaps += 1
            open_ends.append(end)
    flows = collections.defaultdict(list)
    for e in events:
        if e.get("cat") == "flow":
            flows[e["id"]].append(e["ts"])
    backwards = sum(1 for ts in flows.values() if ts != sorted(ts))
    if overlaps or backwards:
        print("%s: %d slices overlap partially, %d of %d flows run backwards"
              % (path, overlaps, backwards, len(flows)))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
