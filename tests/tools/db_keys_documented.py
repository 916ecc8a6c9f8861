#!/usr/bin/env python3
"""db_keys_documented.py MANPAGE DB.json... — every key that the databases contain is named in
the man page (font escapes such as \\fB stripped). Prints the missing ones and exits 1."""
import json
import re
import sys


def keys_of(x, out):
    if isinstance(x, dict):
        for k, v in x.items():
            out.add(k)
            keys_of(v, out)
    elif isinstance(x, list):
        for v in x:
            keys_of(v, out)
    return out


def main():
    man = re.sub(r"\\f[BIRP]", " ", open(sys.argv[1]).read()).replace("\\-", "-")
    keys = set()
    for path in sys.argv[2:]:
        with open(path) as f:
            keys_of(json.load(f), keys)
    missing = sorted(k for k in keys if not re.search(r"\b" + re.escape(k) + r"\b", man))
    if missing:
        print("not documented in %s: %s" % (sys.argv[1], ", ".join(missing)))
    sys.exit(1 if missing else 0)


if __name__ == "__main__":
    main()
