#!/usr/bin/env python3
# make_dump_seeds.py — writes the committed seeds of fuzz_dump into tests/fuzz/corpus/dump/.
#
# Tiny but valid Flight Recorder 2.9 dumps, built as plain dicts and written with Python's
# pickle module at protocol 2 (as PyTorch's unpickler reads them; repeated strings go through
# the memo, as in real dumps) and one with json: a collective and a p2p entry with frames,
# one dump with the recorder's "frtrace" key, one without "entries" (includeCollectives=False),
# one cut inside its second entry (the decoder's salvage path), and one with enough distinct
# strings and lists (~11 KB) to make the interner and the shared-list tables grow. The output
# is deterministic, so rerunning this leaves the committed files unchanged.
# Run: python3 tests/fuzz/make_dump_seeds.py
import json
import os
import pickle

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus", "dump")


def entry(record_id, name, p2p, state, frames=True):
    e = {
        "record_id": record_id,
        "pg_id": 0,
        "process_group": ("0", "default_pg"),
        "thread_name": "pt_main_thread",
        "thread_id": "140245215201088",
        "collective_seq_id": 0 if p2p else record_id + 1,
        "p2p_seq_id": record_id + 1 if p2p else 0,
        "op_id": record_id + 1,
        "profiling_name": name,
        "time_created_ns": 1724779239936775119 + record_id,
        "input_sizes": [[3, 4]],
        "input_dtypes": ["Float"],
        "output_sizes": [[3, 4]],
        "output_dtypes": ["Float"],
        "state": state,
        "time_discovered_started_ns": None if state == "scheduled" else 1724779239936780119,
        "time_discovered_completed_ns": 1724779239936865119 if state == "completed" else None,
        "retired": state == "completed",
        "timeout_ms": 600000,
        "is_p2p": p2p,
    }
    if state == "completed":
        e["duration_ms"] = 0.5
    if frames:
        e["frames"] = [
            {"name": "all_reduce", "filename": "/opt/torch/distributed/distributed_c10d.py", "line": 2696},
            {"name": "train_step", "filename": "train.py", "line": 42},
        ]
    return e


def dump(entries=True):
    d = {
        "version": "2.9",
        "pg_config": {"0": {"name": "0", "desc": "default_pg", "ranks": "[0, 1]"}},
        "nccl_version": "2.27.5",
        "pg_status": {
            "0": {"last_enqueued_collective": 2, "last_started_collective": 2, "last_completed_collective": 1}
        },
    }
    if entries:
        d["entries"] = [
            entry(0, "nccl:all_reduce", False, "completed"),
            entry(1, "nccl:send 0->1", True, "started", frames=False),
        ]
    return d


def many():
    """80 groups (160 distinct names and descs) and 40 entries with distinct shapes, dtypes and
    frames: past the interner's first table (256 slots, half full) and the shared-list tables'
    first 64 slots. Only the keys an entry needs, to keep the seed small."""
    d = {
        "version": "2.9",
        "pg_config": {str(g): {"desc": "d%d" % g, "ranks": "[0]"} for g in range(80)},  # name = key
        "pg_status": {},
        "entries": [],
    }
    for i in range(40):
        d["entries"].append({
            "record_id": i, "pg_id": i, "process_group": (str(i), "d%d" % i),
            "collective_seq_id": i, "p2p_seq_id": 0, "profiling_name": "nccl:all_reduce",
            "input_sizes": [[i]], "output_sizes": [[i, 1]],
            "input_dtypes": ["T%d" % i], "output_dtypes": ["Float"],
            "state": "completed", "frames": [{"name": "f", "filename": "x.py", "line": i}],
        })
    return d


def write(name, data):
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(data)


def main():
    os.makedirs(OUT, exist_ok=True)
    whole = pickle.dumps(dump(), protocol=2)
    write("v2.9-min.pkl", whole)
    write("v2.9-no-entries.pkl", pickle.dumps(dump(entries=False), protocol=2))

    extra = dump()
    extra["frtrace"] = {
        "version": "1",
        "global_rank": 0,
        "trigger": "timeout",
        "comms": {"0": {"comm_rank": 0, "comm_size": 2, "parent": None, "color": -1,
                        "nccl_hash": "0x1f2e3d4c", "state": "live"}},
    }
    write("v2.9-frtrace.pkl", pickle.dumps(extra, protocol=2))

    # cut inside the second entry: the salvage keeps the first one
    write("v2.9-truncated.pkl", whole[: whole.rindex(b"nccl:send") + 4])

    write("v2.9-many.pkl", pickle.dumps(many(), protocol=2))

    j = dump()
    j["pg_config"]["0"]["ranks"] = [0, 1]
    j["pg_status"] = {k: {kk: str(vv) for kk, vv in v.items()} for k, v in j["pg_status"].items()}
    j["frtrace"] = extra["frtrace"]
    write("v2.9-min.json", json.dumps(j, sort_keys=True).encode())


if __name__ == "__main__":
    main()
