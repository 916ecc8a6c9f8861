#!/usr/bin/env python3
"""hostile.py — files that `frtrace show` must refuse cleanly (exit 2, message, no crash).

Usage: hostile.py OUTDIR [REAL_DUMP]
Writes one file per attack into OUTDIR (names say what they are) and OUTDIR/list.txt. With a
real dump, also truncated copies (trunc-*) and OUTDIR/flips/ with bit-flipped copies (fixed
seed), which may or may not decode but must never crash. Nothing here is ever unpickled.
"""
import os
import random
import struct
import sys


def exponential_alias(levels):
    """t0 = []; t(k+1) = (tk, tk): a few bytes per level, 2^levels leaves when printed."""
    out = bytearray(b"\x80\x02]q\x00")
    for k in range(levels):
        get = b"h" + bytes([k]) if k < 256 else b"j" + struct.pack("<I", k)
        put = b"q" + bytes([k + 1]) if k + 1 < 256 else b"r" + struct.pack("<I", k + 1)
        out += b"0" + get + get + b"\x86" + put  # POP the previous level, build the next
    return bytes(out + b".")


ATTACKS = {
    "exploit-global-reduce.pkl": b"cos\nsystem\n(S'touch PWNED'\ntR.",
    "exploit-proto2-reduce.pkl": b"\x80\x02cposix\nsystem\nq\x00X\x0b\x00\x00\x00touch PWNEDq\x01\x85q\x02Rq\x03.",
    "exploit-stack-global.pkl": b"\x80\x04\x95\x1a\x00\x00\x00\x00\x00\x00\x00\x8c\x02os\x8c\x06system\x93\x8c\x0btouch PWNED\x85R.",
    "exploit-inst.pkl": b"(S'touch PWNED'\nios\nsystem\n.",
    "bytes.pkl": b"\x80\x03C\x03abcq\x00.",
    "set.pkl": b"\x80\x04\x8f(K\x01\x90.",
    "unknown-opcode.pkl": b"\x80\x02\xff.",
    "random.bin": bytes(random.Random(7).getrandbits(8) for _ in range(4096)),
    "huge-binunicode.pkl": b"\x80\x02X\xff\xff\xff\xffabc.",
    "huge-binunicode8.pkl": b"\x80\x04\x8d" + struct.pack("<Q", 2**63 + 5) + b"x.",
    "huge-binstring.pkl": b"T\xff\xff\xff\x7fabc.",
    "unknown-memo-id.pkl": b"\x80\x02j\xff\xff\xff\x7f.",
    "deep-marks.pkl": b"\x80\x02" + b"](" * 100000 + b"e" * 100000 + b".",
    "deep-list-chain.pkl": b"(l" * 100000 + b"a" * 99999 + b".",
    "exponential-alias.pkl": exponential_alias(100),
    "cycle-list.pkl": b"\x80\x02]q\x00h\x00a.",
    "cycle-dict.pkl": b"\x80\x02}q\x00X\x01\x00\x00\x00ah\x00s.",
    "trailing-garbage.pkl": b"\x80\x02K\x01.garbage",
    "two-items-at-stop.pkl": b"K\x01K\x02.",
    "stack-underflow.pkl": b"\x80\x02\x86.",
    "odd-setitems.pkl": b"\x80\x02}(K\x01u.",
    "setitems-on-list.pkl": b"\x80\x02](K\x01K\x02u.",
    "no-stop.pkl": b"\x80\x02K\x01",
    "invalid-utf8.pkl": b"\x80\x02X\x02\x00\x00\x00\xff\xfe.",
    "long-beyond-64-bits.pkl": b"\x80\x02\x8a\x09" + b"\x00" * 8 + b"\x01.",
    "bad-proto.pkl": b"\x80\x09N.",
    "empty": b"",
    "json-bad.json": b'{"a": [1, 2}',
    "json-deep.json": b"[" * 100000 + b"]" * 100000,
    "json-big-int.json": b'{"t": 99999999999999999999}',
    "json-trailing.json": b'{"a": 1} x',
    "json-invalid-utf8.json": b'{"a": "\xff"}',
}


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    names = []
    for name, data in ATTACKS.items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)
        names.append(name)
    if len(sys.argv) > 2:
        with open(sys.argv[2], "rb") as f:
            real = f.read()
        for cut in (1, 2, 3, 10, 100, len(real) // 2, len(real) - 2, len(real) - 1):
            name = "trunc-%d" % cut
            with open(os.path.join(out, name), "wb") as f:
                f.write(real[:cut])
            names.append(name)
        os.makedirs(os.path.join(out, "flips"), exist_ok=True)
        r = random.Random(1234)
        for i in range(2000):
            data = bytearray(real)
            for _ in range(r.choice([1, 1, 2, 4, 16])):
                bit = r.randrange(len(data) * 8)
                data[bit // 8] ^= 1 << (bit % 8)
            with open(os.path.join(out, "flips", "f%04d" % i), "wb") as f:
                f.write(data)
    with open(os.path.join(out, "list.txt"), "w") as f:
        f.write("\n".join(names) + "\n")


if __name__ == "__main__":
    main()
