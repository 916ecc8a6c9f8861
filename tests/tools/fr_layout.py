#!/usr/bin/env python3
"""fr_layout.py — test helper: the reference bytes of a dump in a chosen FR version's layout.

    fr_layout.py SHARED_TOOLS_DIR VERSION IN OUT

Loads IN (a pickle, with Python's pickle module, or a JSON dump), rearranges its content into
the key orders, types and memo rules of VERSION as docs/dump-formats.md §2-§3 gives them, and
writes it with the shared reference writer torch_fr_pickler.py (imported from
SHARED_TOOLS_DIR, never copied). The story tests compare mkdump's output with this, so that the
C writer is checked against an independent implementation of the same rules.
"""
import json
import pickle
import sys

LEGACY = {"Float": "float", "Double": "double", "Half": "c10::Half", "BFloat16": "c10::BFloat16",
          "Long": "long int", "Int": "int", "Short": "short int", "Char": "signed char",
          "Byte": "unsigned char", "Bool": "bool"}


def frame_key(f):
    return (f["name"], f["filename"], f["line"])


def layout(d, major, minor, shared_cls):
    v20 = minor == 0
    lib = d.get("nccl_version", d.get("comm_lib_version", ""))
    # torch's frames are one object per distinct frame: count references across the dump
    counts = {}
    for e in d.get("entries", []):
        for f in e.get("frames", []) or []:
            counts[frame_key(f)] = counts.get(frame_key(f), 0) + 1
    frame_objs = {}

    def frame(f):
        k = frame_key(f)
        if k not in frame_objs:
            obj = {"name": f["name"], "filename": f["filename"], "line": f["line"]}
            frame_objs[k] = shared_cls(obj) if (v20 or counts[k] >= 2) else obj
        return frame_objs[k]

    def none0(x):
        return None if not x else x

    def entry(e):
        out = {}
        frames = [frame(f) for f in e.get("frames", [])] if ("frames" in e or v20) else None
        if frames is not None and not v20:
            out["frames"] = frames
        out["record_id"] = e["record_id"]
        out["pg_id"] = e["pg_id"]
        out["process_group"] = tuple(e["process_group"])
        if minor >= 8:
            out["thread_name"] = e.get("thread_name", "")
            out["thread_id"] = e.get("thread_id", "")
        for k in ("collective_seq_id", "p2p_seq_id", "op_id", "profiling_name", "time_created_ns"):
            out[k] = e[k]
        if e.get("duration_ms") is not None:
            out["duration_ms"] = float(e["duration_ms"])
        c10 = {legacy: name for name, legacy in LEGACY.items()}
        dt = ((lambda ts: [LEGACY.get(c10.get(t, t), t) for t in ts]) if v20
              else (lambda ts: [c10.get(t, t) for t in ts]))
        out["input_sizes"] = e["input_sizes"]
        out["input_dtypes"] = dt(e["input_dtypes"])
        out["output_sizes"] = e["output_sizes"]
        out["output_dtypes"] = dt(e["output_dtypes"])
        out["state"] = e["state"]
        out["time_discovered_started_ns"] = none0(e.get("time_discovered_started_ns"))
        out["time_discovered_completed_ns"] = none0(e.get("time_discovered_completed_ns"))
        out["retired"] = e["retired"]
        if minor >= 1:
            out["timeout_ms"] = e.get("timeout_ms", -1)
        out["is_p2p"] = e["is_p2p"]
        if v20:
            out["frames"] = frames
        return out

    entries = [entry(e) for e in d.get("entries", [])]
    pg_config = {}
    for name in sorted(d["pg_config"]):
        g = d["pg_config"][name]
        ranks = g["ranks"]
        if not isinstance(ranks, str):
            ranks = "[" + ", ".join(str(r) for r in ranks) + "]"
        pg_config[name] = {"name": g.get("name", name), "desc": g.get("desc", ""), "ranks": ranks}
    pg_status = {}
    for k in sorted(d.get("pg_status", {}), key=int):
        s = d["pg_status"][k]
        pg_status[k] = {x: int(s[x]) for x in ("last_enqueued_collective", "last_started_collective",
                                                "last_completed_collective")}
    root = {}
    version = "%d.%d" % (major, minor)
    if v20:
        root["entries"] = shared_cls(entries)
        root["version"] = version
        root["pg_config"] = shared_cls(pg_config)
    else:
        root["version"] = version
        root["pg_config"] = pg_config
        if minor >= 10:
            root["comm_lib_version"] = lib
        elif minor >= 6:
            root["nccl_version"] = lib
        if minor >= 3:
            root["pg_status"] = pg_status
        root["entries"] = entries
    return shared_cls(root) if minor < 10 else root


def main():
    tools, version, src, dst = sys.argv[1:5]
    sys.path.insert(0, tools)
    import torch_fr_pickler as ref
    raw = open(src, "rb").read()
    d = json.loads(raw) if raw.lstrip()[:1] == b"{" else pickle.loads(raw)
    major, minor = (int(x) for x in version.split("."))
    open(dst, "wb").write(ref.torch_fr_dumps(layout(d, major, minor, ref.Shared)))


if __name__ == "__main__":
    main()
