#!/usr/bin/env python3
"""conformance.py — the simulator's dumps are laid out as the real producers lay theirs out.

    python3 tests/sim/conformance.py --seeds A:B --frtrace build/frtrace [REAL_DUMP...]

For every job of the seeds: each dump that answer.json calls readable loads in `frtrace show`
(exit 0) and in Python, and its layout matches the real producer's, key by key (and, with --mkdump, each pickle is the one the project's own C
writer makes of the same content, byte for byte): the top-level
keys in the producer's order, every entry's keys in torch's order (frames first when present,
duration_ms only with timing), each value of the type real dumps hold, pg_config/pg_status as
the backend writes them, profiling names of the real forms; each unreadable dump is rejected by
`frtrace show`. REAL_DUMP files (real PyTorch 2.9 NCCL, 2.15 gloo, recorder dumps) are checked
against the same tables first, so that the tables stay those of real dumps, and encode.py must
write each of them back byte for byte from its decoded content. Exit 1 on any
difference, each printed with its file.
"""
import argparse
import json
import os
import pickle
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import encode  # noqa: E402
import sim  # noqa: E402

TOP = {("nccl", "2.9"): ["version", "pg_config", "nccl_version", "pg_status", "entries"],
       ("nccl", "2.10"): ["version", "pg_config", "comm_lib_version", "pg_status", "entries"],
       ("gloo", "2.10"): ["version", "pg_config", "comm_lib_version", "pg_status", "entries"],
       ("recorder", "2.10"): ["version", "pg_config", "comm_lib_version", "pg_status", "entries",
                              "frtrace"]}
ENTRY = ["frames", "record_id", "pg_id", "process_group", "thread_name", "thread_id",
         "collective_seq_id", "p2p_seq_id", "op_id", "profiling_name", "time_created_ns",
         "duration_ms", "input_sizes", "input_dtypes", "output_sizes", "output_dtypes", "state",
         "time_discovered_started_ns", "time_discovered_completed_ns", "retired", "timeout_ms",
         "is_p2p"]
OPTIONAL = {"frames", "duration_ms"}
TYPES = {"record_id": int, "pg_id": int, "process_group": tuple, "thread_name": str,
         "thread_id": str, "collective_seq_id": int, "p2p_seq_id": int, "op_id": int,
         "profiling_name": str, "time_created_ns": int, "duration_ms": float,
         "input_sizes": list, "input_dtypes": list, "output_sizes": list, "output_dtypes": list,
         "state": str, "time_discovered_started_ns": (int, type(None)),
         "time_discovered_completed_ns": (int, type(None)), "retired": bool,
         "timeout_ms": int, "is_p2p": bool, "frames": list}
NAME = re.compile(r"^(nccl|gloo):([a-z_]+|send \d+->\d+|recv \d+<-\d+)$")


def producer(d):
    if "frtrace" in d:
        return "recorder"
    if list(d.get("pg_config", {})) == [""]:
        return "gloo"
    return "nccl"


def check_dump(d, path, is_json):
    """Differences between one decoded dump and its producer's layout."""
    errs = []
    who, version = producer(d), d.get("version")
    want = TOP.get((who, version))
    if want is None:
        return ["%s: no layout for %s %s" % (path, who, version)]
    keys = list(d)
    if is_json:
        want = sorted(set(want + ["nccl_comm_state"]) - ({"entries"} if not d.get("entries")
                                                         else set()))
        if keys != sorted(keys):
            errs.append("%s: JSON keys not sorted: %s" % (path, keys))
        keys = sorted(keys)
    if keys != want:
        errs.append("%s: top-level keys %s, %s writes %s" % (path, keys, who, want))
    for name, cfg in d.get("pg_config", {}).items():
        if list(cfg) != (sorted(["name", "desc", "ranks"]) if is_json else
                         ["name", "desc", "ranks"]) or cfg["name"] != name or \
                not re.match(r"^\[(\d+(, \d+)*)?\]$", cfg["ranks"]):
            errs.append("%s: pg_config[%r] = %r" % (path, name, cfg))
    for pg, st in d.get("pg_status", {}).items():
        vals = list(st.values())
        if not pg.isdigit() or len(vals) != 3 or not all(
                isinstance(v, str if is_json else int) for v in vals):
            errs.append("%s: pg_status[%r] = %r" % (path, pg, st))
    if who == "gloo":
        errs += gloo_status(d, path)
    for e in d.get("entries", []):
        order = [k for k in ENTRY if k in e]
        if list(e) != order and not is_json or is_json and sorted(e) != sorted(order):
            errs.append("%s: entry keys %s" % (path, list(e)))
        missing = [k for k in ENTRY if k not in e and k not in OPTIONAL]
        if missing:
            errs.append("%s: entry lacks %s" % (path, missing))
        for k, t in TYPES.items():
            if k in e:
                v = e[k]
                if is_json and k == "process_group":
                    t = list
                if is_json and k.startswith("time_discovered"):
                    t = int
                if not isinstance(v, t) or (t is int and isinstance(v, bool)):
                    errs.append("%s: %s = %r" % (path, k, v))
        if not NAME.match(e.get("profiling_name", "")):
            errs.append("%s: profiling_name %r" % (path, e.get("profiling_name")))
        if e.get("state") not in ("scheduled", "started", "completed"):
            errs.append("%s: state %r" % (path, e.get("state")))
        if errs:
            break
    return errs


def gloo_status(d, path):
    """PyTorch 2.15's gloo pg_status: per group that recorded a collective, the op ids of the
    newest one enqueued and of the newest one finished; a send/recv, recorded nowhere, is not
    counted, pending or not (the real testdata/torch-2.15.0-gloo/pipe_no_send: rank 5, blocked
    in a recv, has enqueued == completed == its newest all_reduce's op id). Every gloo entry
    stays scheduled, so even only-active dumps keep the newest entry of each group."""
    newest = {}
    for e in d.get("entries", []):
        newest[str(e["pg_id"])] = max(newest.get(str(e["pg_id"]), -1), e["op_id"])
    keys = ("last_enqueued_collective", "last_started_collective", "last_completed_collective")
    status = {pg: [int(st[k]) for k in keys] for pg, st in d.get("pg_status", {}).items()}
    if set(status) != set(newest):
        return ["%s: gloo pg_status lists groups %s, its entries %s" % (
            path, sorted(status), sorted(newest))]
    return ["%s: gloo pg_status[%r] = %r, newest entry's op id %d" % (path, pg, st, newest[pg])
            for pg, st in sorted(status.items())
            if st[0] != newest[pg] or st[1] != -1 or st[2] > st[0]]


def same_bytes(path, d, is_json):
    """encode.py writes a real dump's own content back byte for byte."""
    with open(path, "rb") as f:
        raw = f.read()
    if is_json:
        d = dict(d)
        d.pop("nccl_comm_state", None)
        d["pg_status"] = {k: {a: int(b) for a, b in v.items()} for k, v in d["pg_status"].items()}
        for e in d.get("entries", []):
            e["process_group"] = tuple(e["process_group"])
            for k in ("time_discovered_started_ns", "time_discovered_completed_ns"):
                e[k] = e[k] or None
        ours = [encode.torch_json(d)]
    else:  # with or without the root dict's memo entry, as its producer did
        ours = [encode.torch_pickle(d, True), encode.torch_pickle(d, False)]
    return [] if raw in ours else ["%s: encode.py writes it back differently" % path]


def load(path):
    with open(path, "rb") as f:
        raw = f.read()
    if raw[:1] == b"{":
        return json.loads(raw), True
    return pickle.loads(raw), False


def same_as_c_writer(d, mkdump, label):
    """The project's C writer (build/tests/mkdump), given the same dump as JSON, writes the same
    pickle bytes: two independent writers of torch's layout agree."""
    d = dict(d)
    memo = d.get("version") == "2.9"
    with tempfile.TemporaryDirectory(dir=sim_scratch()) as tmp:
        src, dst = os.path.join(tmp, "in.json"), os.path.join(tmp, "out.pkl")
        with open(src, "wb") as f:
            f.write(encode.torch_json(d))
        p = subprocess.run([mkdump, "--version", d["version"], "--root-memo",
                            "yes" if memo else "no", src, dst], stderr=subprocess.PIPE)
        if p.returncode != 0:
            return ["%s: mkdump: %s" % (label, p.stderr.decode(errors="replace").strip())]
        with open(dst, "rb") as f:
            theirs = f.read()
    if "frtrace" in d:  # the JSON the C writer read lists communicators by name
        fr = dict(d["frtrace"])
        fr["comms"] = dict(sorted(fr["comms"].items()))
        d["frtrace"] = fr
    ours = encode.torch_pickle(d, memo)
    return [] if ours == theirs else ["%s: encode.py and the C writer disagree" % label]


def many_strings():
    """A dump of 300 groups: memo ids past 255 (LONG_BINPUT/LONG_BINGET)."""
    cfg = {str(i): {"name": str(i), "desc": "group_%d" % i, "ranks": "[0, %d]" % (i + 1)}
           for i in range(300)}
    return {"version": "2.9", "pg_config": dict(sorted(cfg.items())), "nccl_version": "2.27.3",
            "pg_status": {}, "entries": []}


def check_seed(seed, frtrace, mkdump=None):
    errs = []
    tmp = tempfile.mkdtemp(prefix="frtrace-conf-", dir=sim_scratch())
    try:
        doc = sim.make(seed, tmp)
        files = doc["dumps"]
        for r, info in sorted(files.items(), key=lambda kv: int(kv[0])):
            path = os.path.join(tmp, info["file"])
            p = subprocess.run([frtrace, "show", path], stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE)
            if info["damage"] == "truncated":
                errs += cut_read_as_planned(frtrace, tmp, seed, r, info)
            elif info["readable"]:
                if info["readable"] and p.returncode != 0:
                    errs.append("seed %d rank %s: frtrace show: %s" % (
                        seed, r, p.stderr.decode(errors="replace").strip()))
                if info["readable"]:
                    d, is_json = load(path)
                    errs += ["seed %d %s" % (seed, x) for x in check_dump(d, info["file"],
                                                                           is_json)]
                    if mkdump and not is_json and info["format"] == "pickle" and \
                            "frames" not in (d.get("entries") or [{}])[0]:
                        errs += same_as_c_writer(d, mkdump, "seed %d %s" % (seed, info["file"]))
            elif p.returncode == 0:
                errs.append("seed %d rank %s: garbage read as a dump" % (seed, r))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return errs


def cut_read_as_planned(frtrace, tmp, seed, r, info):
    """A dump cut inside its entries is salvaged with exactly the whole entries before the cut
    (answer.py's E13); one cut anywhere else is rejected."""
    db = os.path.join(tmp, "db.json")
    p = subprocess.run([frtrace, os.path.join(tmp, "dumps"), "-o", db],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    rejected = []
    if os.path.exists(db):
        with open(db) as f:
            rejected = [x["path"] for x in json.load(f)["input"].get("files_rejected", [])]
    name = os.path.basename(info["file"])
    was_rejected = any(os.path.basename(x) == name for x in rejected)
    if not info["readable"]:
        return [] if was_rejected else ["seed %d rank %s: a dump cut before its entries was "
                                        "read" % (seed, r)]
    kept = "kept %d whole entries" % info["cut"]["entry"]
    if was_rejected or kept not in p.stderr.decode(errors="replace"):
        return ["seed %d rank %s: a dump cut inside entry %d was not salvaged as planned (%s)" % (
            seed, r, info["cut"]["entry"], p.stderr.decode(errors="replace").strip()[:200])]
    return []


def sim_scratch():
    return "/dev/shm" if os.access("/dev/shm", os.W_OK) else None


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--seeds", default="0:20")
    p.add_argument("--frtrace", default="build/frtrace")
    p.add_argument("--mkdump", help="the project's writer (build/tests/mkdump) to agree with")
    p.add_argument("real", nargs="*", help="real dumps to hold the tables against")
    a = p.parse_args()
    errs = []
    for path in a.real:
        d, is_json = load(path)
        errs += check_dump(d, path, is_json)
        errs += same_bytes(path, d, is_json)
    if a.mkdump:
        errs += same_as_c_writer(many_strings(), a.mkdump, "300 groups")
    lo, _, hi = a.seeds.partition(":")
    for seed in range(int(lo), int(hi)):
        errs += check_seed(seed, os.path.abspath(a.frtrace), a.mkdump)
    for e in errs[:50]:
        print(e)
    print("%d differences" % len(errs))
    sys.exit(1 if errs else 0)


if __name__ == "__main__":
    main()
