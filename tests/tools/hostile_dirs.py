#!/usr/bin/env python3
"""hostile_dirs.py — dump directories that are hostile as a whole (issue 14).

Usage: hostile_dirs.py SRC OUT CASE
Copies the dump directory SRC (a real job, e.g. lock_gil_1st) to OUT and changes one thing, named
by CASE; `hostile_dirs.py --list` prints the cases. The changes are made here, in the test, so
that no big or odd file is ever committed: a 2 GB file is sparse, a million-rank group is one
memo-shared text, the memo bombs are Python's own pickler sharing one object. The victim file is
always _dump_3 or _dump_0, never a culprit's (9, 14), so that the verdict can still name them.
Nothing here is ever unpickled from OUT; SRC is read with pickle (it is our own test data).
"""
import os
import pickle
import shutil
import struct
import sys


def load(path):
    with open(path, "rb") as f:
        return pickle.load(f)


def save(path, obj, protocol=2):
    os.chmod(path, 0o644)
    with open(path, "wb") as f:
        pickle.dump(obj, f, protocol=protocol)


def ranks_text(n, extra=()):
    return "[" + ", ".join(str(r) for r in list(range(n)) + list(extra)) + "]"


def set_group_ranks(out, name, text, groups=None):
    d = load(os.path.join(out, name))
    for g, cfg in d["pg_config"].items():
        if groups is None or g in groups:
            cfg["ranks"] = text
    save(os.path.join(out, name), d)


def replace(out, name):
    path = os.path.join(out, name)
    os.chmod(path, 0o644)
    os.unlink(path)
    return path


def raw_edit(out, name, edit):
    path = os.path.join(out, name)
    with open(path, "rb") as f:
        data = f.read()
    os.chmod(path, 0o644)
    with open(path, "wb") as f:
        f.write(edit(data))


def frame(length):
    # protocol 4's FRAME opcode before the body of the protocol-2 pickle
    return lambda data: b"\x80\x04\x95" + struct.pack("<Q", length) + data[2:]


def long_binput(data):
    # the first BINPUT 0 (after the key 'version') becomes LONG_BINPUT 0xFFFFFFF0
    at = data.index(b"q\x00")
    return data[:at] + b"r" + struct.pack("<I", 0xFFFFFFF0) + data[at + 2:]


def memo_sizes(out):
    d = load(os.path.join(out, "_dump_3"))
    shared = list(range(1000))
    d["entries"][0]["input_sizes"] = [shared] * 100000
    save(os.path.join(out, "_dump_3"), d)


def memo_entries(out):
    for name in os.listdir(out):
        d = load(os.path.join(out, name))
        if d["entries"]:
            d["entries"] = [d["entries"][-1]] * 1000000
        save(os.path.join(out, name), d)


def sparse(out):
    with open(replace(out, "_dump_3"), "wb") as f:
        f.truncate(2 << 30)


CASES = {
    "two-links": lambda o: (os.symlink(".", os.path.join(o, "a")),
                            os.symlink(".", os.path.join(o, "b"))),
    "one-link": lambda o: os.symlink(".", os.path.join(o, "a")),
    "up-link": lambda o: (os.mkdir(os.path.join(o, "sub")),
                          os.symlink("..", os.path.join(o, "sub", "up")),
                          os.symlink(".", os.path.join(o, "here"))),
    "fifo": lambda o: os.mkfifo(replace(o, "_dump_3")),
    "dev-zero": lambda o: os.symlink("/dev/zero", replace(o, "_dump_3")),
    "directory": lambda o: os.mkdir(replace(o, "_dump_3")),
    "dangling": lambda o: os.symlink("nowhere", replace(o, "_dump_3")),
    "sparse-2g": sparse,
    "group-200k": lambda o: set_group_ranks(o, "_dump_3", ranks_text(200000), {"0"}),
    "groups-1m": lambda o: set_group_ranks(o, "_dump_3", ranks_text(1000000)),
    "memo-sizes": memo_sizes,
    "memo-entries": memo_entries,
    "rank-4294967295": lambda o: set_group_ranks(o, "_dump_3", ranks_text(16, [4294967295]), {"0"}),
    "rank-negative": lambda o: set_group_ranks(o, "_dump_3", ranks_text(16, [-5]), {"0"}),
    "frame-1e9": lambda o: raw_edit(o, "_dump_3", frame(10**9)),
    "frame-max": lambda o: raw_edit(o, "_dump_3", frame(2**64 - 1)),
    "long-binput": lambda o: raw_edit(o, "_dump_3", long_binput),
}


def main():
    if sys.argv[1:] == ["--list"]:
        print("\n".join(CASES))
        return 0
    if len(sys.argv) != 4 or sys.argv[3] not in CASES:
        sys.stderr.write(__doc__)
        return 2
    src, out, case = sys.argv[1:]
    shutil.copytree(src, out, copy_function=shutil.copyfile)
    os.chmod(out, 0o755)
    CASES[case](out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
