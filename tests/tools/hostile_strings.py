#!/usr/bin/env python3
"""hostile_strings.py — a real job with one hostile string in it (issue 20).

Usage: hostile_strings.py SRC OUT FIELD VALUE [--json]
       hostile_strings.py --field-names
Copies the dump directory SRC (a real 16-rank job, lock_gil_1st: culprits 9 and 14, which hang
EXPERT_MODEL_PARALLEL_GROUP's all_to_all) to OUT and puts VALUE into one kind of string, the
same on every rank, so that the verdict stays what it was and the string reaches every report:
  desc      the desc of EXPERT_MODEL_PARALLEL_GROUP (pg_config and every entry's process_group)
  name      the profiling name of every all_to_all entry ("nccl:all_to_all " + VALUE)
  frame     a stack frame (name VALUE, file VALUE.py) on every entry of every rank
  thread    every entry's thread name
VALUE is read as a Python string literal's body ('\\x1b[2J', '\\ud800', '\\u202e', '\\x00'). With
--json the dumps are written as JSON (Python's json: lone surrogates as \\ud800, NUL as \\u0000),
else as pickles (protocol 2; lone surrogates kept, as pickle's surrogatepass does).
Also a module: put() is what the fuzzer (tests/fuzz/hostile_fuzz.py) calls with random strings.
SRC is read with pickle (it is our own test data); nothing in OUT is ever unpickled here.
"""
import ast
import json
import os
import pickle
import sys

HANG_GROUP = "EXPERT_MODEL_PARALLEL_GROUP"
FIELDS = ("desc", "name", "frame", "thread")


def load_job(src):
    job = {}
    for name in sorted(os.listdir(src)):
        with open(os.path.join(src, name), "rb") as f:
            job[name] = pickle.load(f)
    return job


def put(dump, field, value):
    """Puts value into one kind of string of one rank's dump (a dict as pickle.load gives)."""
    if field == "desc":
        for cfg in dump["pg_config"].values():
            if cfg["desc"] == HANG_GROUP:
                cfg["desc"] = value
    for e in dump.get("entries", []):
        if field == "desc" and e["process_group"][1] == HANG_GROUP:
            e["process_group"] = (e["process_group"][0], value)
        elif field == "name" and e["profiling_name"] == "nccl:all_to_all":
            e["profiling_name"] = "nccl:all_to_all " + value
        elif field == "frame":
            e["frames"] = [{"name": value, "filename": value + ".py", "line": 7}]
        elif field == "thread":
            e["thread_name"] = value


def write_job(job, out, as_json=False):
    os.makedirs(out, exist_ok=True)
    for name, dump in job.items():
        path = os.path.join(out, name)
        if as_json:
            with open(path, "w", encoding="ascii") as f:
                json.dump(dump, f)
        else:
            with open(path, "wb") as f:
                pickle.dump(dump, f, protocol=2)


def decode_value(text):
    return ast.literal_eval('"' + text.replace('"', '\\"') + '"')


def main():
    if sys.argv[1:] == ["--field-names"]:
        print("\n".join(FIELDS))
        return
    if len(sys.argv) < 5 or sys.argv[3] not in FIELDS:
        sys.exit(__doc__)
    src, out, field, value = sys.argv[1], sys.argv[2], sys.argv[3], decode_value(sys.argv[4])
    job = load_job(src)
    for dump in job.values():
        put(dump, field, value)
    write_job(job, out, "--json" in sys.argv[5:])


if __name__ == "__main__":
    main()
