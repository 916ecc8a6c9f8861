#!/usr/bin/env python3
"""gen_values.py — random values pickled with every protocol, and what json.dumps says of them.

Usage: gen_values.py OUTDIR [COUNT] [SEED]
Writes OUTDIR/v<NNN>.p<P> for protocols 0..5, and OUTDIR/files.txt (the file names in order),
OUTDIR/expected.json (json.dumps of each, one per line, in that order) and
OUTDIR/expected-pretty.json (indent=2). The values cover what `frtrace show` must reproduce:
ints over the whole int64 range and its boundaries, floats that stress repr (-0.0, inf, nan,
1e16, 1e-05, subnormals), unicode incl. astral chars, controls and lone surrogates, bools, None,
lists, tuples, dicts (str keys mostly, some int/float/bool/None keys), shared sub-objects (memo
aliasing) and batches past 1000 items (APPENDS/SETITEMS batching).
"""
import json
import math
import os
import pickle
import random
import struct
import sys

INT_EDGES = [0, 1, -1, 255, 256, 65535, 65536, 2**31 - 1, -2**31, 2**31, -2**31 - 1,
             2**32, 2**53 + 1, 2**63 - 1, -2**63, -2**63 + 1, 1724779239936775119]
FLOAT_EDGES = [0.0, -0.0, math.inf, -math.inf, math.nan, 1e16, 1e-5, 1e-4, 1e15, 9999999999999998.0,
               0.1, 1.5, -2.5, 123456789.125, 5e-324, 2.2250738585072014e-308, 2.225073858507201e-308,
               1.7976931348623157e308, 1e22, 1e23, 0.0368579737842083, 1 / 3, 2**-1074 * 12345]
CHARS = ("abcXYZ019 _-", "\"\\/'", "\n\r\t\b\f\x00\x01\x1a\x1f\x7f", "\x80\xe9\xff", "\u0100\u20ac\u4e2d\ufffd\uffff",
         "\U0001F600\U00010000\U0010FFFF", "\ud800\udfff", "\\u0041\\U00000042")


def rand_int(r):
    if r.random() < 0.3:
        return r.choice(INT_EDGES)
    bits = r.randint(1, 63)
    v = r.getrandbits(bits)
    return -v - (r.random() < 0.1) if r.random() < 0.5 else v


def rand_float(r):
    k = r.random()
    if k < 0.3:
        return r.choice(FLOAT_EDGES)
    if k < 0.6:
        f = struct.unpack("<d", r.getrandbits(64).to_bytes(8, "little"))[0]
        return 0.5 if math.isnan(f) else f
    if k < 0.8:
        return round(r.uniform(-1e6, 1e6), r.randint(0, 8))
    return r.uniform(-1, 1) * 10.0 ** r.randint(-30, 30)


def rand_str(r):
    n = r.choice([0, 1, 2, 5, 10, 40])
    return "".join(r.choice(r.choice(CHARS)) for _ in range(n))


def rand_key(r):
    k = r.random()
    if k < 0.85:
        return rand_str(r)
    return r.choice([rand_int(r), rand_float(r), True, False, None])


def rand_value(r, depth, shared):
    k = r.random()
    if depth > 4 or k < 0.45:
        return r.choice([rand_int, rand_float, rand_str, lambda r: r.random() < 0.5, lambda r: None])(r)
    if shared and k < 0.52:
        return r.choice(shared)
    size = r.choice([0, 1, 2, 3, 4, 7]) if r.random() > 0.03 else r.choice([1001, 1500, 2100])
    kind = r.choice(["list", "tuple", "dict"])
    if kind == "dict":
        v = {}
        for _ in range(size):
            v[rand_key(r)] = rand_value(r, 99 if size > 100 else depth + 1, shared)
    else:
        items = [rand_value(r, 99 if size > 100 else depth + 1, shared) for _ in range(size)]
        v = items if kind == "list" else tuple(items)
    if r.random() < 0.2:
        shared.append(v)
    return v


def main():
    out = sys.argv[1]
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 200
    r = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 20240901)
    os.makedirs(out, exist_ok=True)
    names, compact, pretty = [], [], []
    for i in range(count):
        shared = []
        value = rand_value(r, 0, shared)
        for proto in range(6):
            name = "v%03d.p%d" % (i, proto)
            data = pickle.dumps(value, protocol=proto)
            with open(os.path.join(out, name), "wb") as f:
                f.write(data)
            back = pickle.loads(data)
            names.append(name)
            compact.append(json.dumps(back))
            pretty.append(json.dumps(back, indent=2))
    for fname, lines in (("files.txt", names), ("expected.json", compact), ("expected-pretty.json", pretty)):
        with open(os.path.join(out, fname), "w") as f:
            f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
