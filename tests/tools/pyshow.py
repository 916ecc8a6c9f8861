#!/usr/bin/env python3
"""pyshow.py — what `frtrace show` must print, computed by Python itself.

Usage: pyshow.py [--pretty] FILE...  For each file: json.load if it starts (after whitespace)
with '{' or '[', else pickle.load; then print json.dumps(value) (indent=2 with --pretty), one
document per line. Only for trusted test inputs: pickle.load runs code.
"""
import json
import pickle
import sys


def load(path):
    with open(path, "rb") as f:
        data = f.read()
    if data.lstrip(b" \t\r\n")[:1] in (b"{", b"["):
        return json.loads(data.decode("utf-8"))
    return pickle.loads(data)


def main():
    args = sys.argv[1:]
    indent = None
    if args and args[0] == "--pretty":
        indent = 2
        args = args[1:]
    for path in args:
        sys.stdout.write(json.dumps(load(path), indent=indent) + "\n")


if __name__ == "__main__":
    main()
