#!/usr/bin/env python3
"""names_whole.py WIDE NARROW... — no name is cut in two by wrapping: every name of the unwrapped
report WIDE (frtrace --width 0) appears as often, whole, in each wrapped report NARROW (the same
analysis at --width 80, 100). A name is a word with an underscore (TENSOR_MODEL_PARALLEL_GROUP,
_reduce_scatter_base, nccl:_all_gather_base), the words a wrap used to cut. Exits 1 listing the
names that lost occurrences."""
import collections
import re
import sys

NAME = re.compile(r"[A-Za-z0-9_:.]*_[A-Za-z0-9_:.]*")


def names(path):
    return collections.Counter(m.group(0).strip(".:") for m in NAME.finditer(open(path).read()))


def main(wide, narrows):
    want = names(wide)
    bad = 0
    for narrow in narrows:
        got = names(narrow)
        lost = {k: (v, got.get(k, 0)) for k, v in want.items() if got.get(k, 0) != v}
        if lost:
            bad = 1
            print("%s: names cut or lost (name: unwrapped count, wrapped count): %s"
                  % (narrow, sorted(lost.items())[:10]))
    return bad


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2:]))
