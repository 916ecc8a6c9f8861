#!/usr/bin/env python3
"""check_waits.py REPORT — the wait chain of a text report (frtrace --width 0) never shows a rank
waiting for itself: for each line "ranks A wait for B [and for one another] in ...", A and B are
disjoint. Rank lists are read as frtrace writes them: 3, 0-7, 1540-2044/8. Exits 1 naming the
first line that breaks it, 2 when the report has no wait chain."""
import re
import sys


def ranks(text):
    out = set()
    for part in text.split(","):
        m = re.fullmatch(r"(\d+)(?:-(\d+)(?:/(\d+))?)?", part)
        if not m:
            raise ValueError("not a rank list: %r" % text)
        lo = int(m.group(1))
        hi = int(m.group(2) or lo)
        out.update(range(lo, hi + 1, int(m.group(3) or 1)))
    return out


def main(path):
    lines = open(path).read().split("\n")
    if "wait chain (who waits for whom):" not in lines:
        print("no wait chain in %s" % path)
        return 2
    for line in lines:
        m = re.match(r"^\s*(?:-> )?ranks? ([\d,/-]+) waits? for ([\d,/-]+)", line)
        if not m:
            continue
        both = ranks(m.group(1)) & ranks(m.group(2))
        if both:
            print("ranks wait for themselves (%s): %s" % (sorted(both)[:8], line))
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
