#!/usr/bin/env python3
"""gen.py — writes the JSON dumps of one named scenario, one file per rank.

    python3 gen.py SCENARIO OUTDIR

Each scenario is a small story of a job (who issued what, in which state). The dumps are JSON
in PyTorch's key layout; the scenario tests turn them into PyTorch-layout pickles with our own
writer (build/tests/mkdump) before running frtrace, so reader, writer and analyzer meet.
"""
import json
import os
import sys

VERSION = "2.9"


class Job:
    def __init__(self, world):
        self.world = world
        self.groups = {"0": ("default_pg", list(range(world)))}
        self.entries = {r: [] for r in range(world)}
        self.record = {r: 0 for r in range(world)}
        self.seq = {}
        self.version = {r: VERSION for r in range(world)}
        self.skip = set()
        self.recorder = False  # write pg_config ranks "[]" and the recorder's "frtrace" key
        self.trigger = {}      # recorder: rank -> frtrace.trigger ("fatal:11", "stuck_in_api")
        self.comm_state = {}   # recorder: (rank, group name) -> comm state ("async_error:...")
        self.local_ranks = {}  # (rank, group name) -> the ranks that rank's pg_config lists (torchft)

    def group(self, name, desc, ranks):
        self.groups[name] = (desc, ranks)

    def add(self, rank, name, op, seq, state="completed", ins=((4, 4),), outs=None, dtype="Float",
            p2p=False, p2p_seq=0, out_dtype=None, backend="nccl", at_ns=None, retired=None, done_ns=None,
            op_id=None):
        outs = ins if outs is None else outs
        at_ns = 1700000000000000000 + self.record[rank] if at_ns is None else at_ns
        self.entries[rank].append({
            "record_id": self.record[rank], "pg_id": int(name) if name.isdigit() else 0,
            "process_group": [name, self.groups[name][0]],
            "thread_name": "pt_main_thread", "thread_id": "1",
            "collective_seq_id": seq, "p2p_seq_id": p2p_seq, "op_id": self.record[rank] + 1 if op_id is None else op_id,
            "profiling_name": backend + ":" + op, "time_created_ns": at_ns,
            "input_sizes": [list(s) for s in ins], "input_dtypes": [dtype] * len(ins),
            "output_sizes": [list(s) for s in outs], "output_dtypes": [out_dtype or dtype] * len(outs),
            "state": state, "time_discovered_started_ns": None, "time_discovered_completed_ns": done_ns,
            "retired": state == "completed" if retired is None else retired, "timeout_ms": 600000,
            "is_p2p": p2p,
            "frames": [{"name": "train_step", "filename": "train.py", "line": 42}]})
        self.record[rank] += 1

    def coll(self, name, op, seq, states=None, ranks=None, **kw):
        members = self.groups[name][1] if ranks is None else ranks
        for r in members:
            st = (states or {}).get(r, "completed")
            if st is not None:
                self.add(r, name, op, seq, st, **kw)

    def write(self, outdir):
        os.makedirs(outdir, exist_ok=True)
        for r in range(self.world):
            if r in self.skip:
                continue
            pgs = {n: {"name": n, "desc": d,
                       "ranks": "[" + ", ".join(map(str, self.local_ranks.get((r, n), m))) + "]"}
                   for n, (d, m) in sorted(self.groups.items()) if r in m}
            status = {}
            for n in pgs:
                es = [e for e in self.entries[r] if e["process_group"][0] == n and not e["is_p2p"]]
                pid = str(int(n) if n.isdigit() else 0)
                done = [e["collective_seq_id"] for e in es if e["state"] == "completed"]
                status[pid] = {"last_enqueued_collective": max([e["collective_seq_id"] for e in es], default=-1),
                               "last_started_collective": -1,
                               "last_completed_collective": max(done, default=-1)}
            dump = {"version": self.version[r], "pg_config": pgs, "nccl_version": "2.27.3",
                    "pg_status": status, "entries": self.entries[r]}
            if self.recorder:  # one process knows only its own place in each communicator
                for pg in pgs.values():
                    pg["ranks"] = "[]"
                dump["frtrace"] = {"version": "1", "global_rank": r, "comms": {
                    n: {"comm_rank": self.groups[n][1].index(r), "comm_size": len(self.groups[n][1]),
                        "state": self.comm_state.get((r, n), "live")} for n in pgs}}
                if r in self.trigger:
                    dump["frtrace"]["trigger"] = self.trigger[r]
            with open(os.path.join(outdir, "nccl_trace_rank_%d.json" % r), "w") as f:
                json.dump(dump, f)


def healthy():
    j = Job(4)
    for s in range(1, 4):
        j.coll("0", "all_reduce", s)
    return j


def in_flight():
    j = healthy()
    j.coll("0", "all_reduce", 4, states={r: "scheduled" for r in range(4)})
    return j


def missing_rank():  # rank 2's CPU is stuck: it never issues all_reduce #3
    j = healthy()
    j.coll("0", "all_reduce", 4, states={0: "scheduled", 1: "scheduled", 2: None, 3: "scheduled"})
    return j


def type_mismatch():
    j = healthy()
    j.coll("0", "all_reduce", 4, states={r: "scheduled" for r in range(4)}, ranks=[0, 1, 2])
    j.add(3, "0", "all_gather", 4, "scheduled", ins=((4, 4),), outs=((16, 4),))
    return j


def size_mismatch():
    j = healthy()
    j.coll("0", "all_reduce", 4, states={r: "scheduled" for r in range(4)}, ranks=[0, 2, 3])
    j.add(1, "0", "all_reduce", 4, "scheduled", ins=((5, 4),))
    return j


def dtype_mismatch():
    j = healthy()
    j.coll("0", "all_reduce", 4, states={r: "scheduled" for r in range(4)}, ranks=[0, 1, 3])
    j.add(2, "0", "all_reduce", 4, "scheduled", dtype="BFloat16")
    return j


def alltoall_total():
    j = healthy()
    for r, (i, o) in enumerate([(8, 8), (8, 8), (8, 8), (8, 9)]):
        j.add(r, "0", "all_to_all", 4, "scheduled", ins=((i,),), outs=((o,),))
    return j


def alltoall_uneven():
    j = healthy()
    for r, (i, o) in enumerate([(8, 12), (12, 8), (6, 6), (10, 10)]):
        j.add(r, "0", "all_to_all", 4, "completed", ins=((i,),), outs=((o,),))
    return j


def gpu_stall():  # rank 1's GPU stopped: all_reduce #4 pending there, completed on the others
    j = healthy()
    j.coll("0", "all_reduce", 4, states={0: "completed", 1: "scheduled", 2: "completed", 3: "completed"})
    j.coll("0", "all_reduce", 5, states={0: "scheduled", 1: None, 2: "scheduled", 3: "scheduled"})
    return j


def never_started():
    j = healthy()
    j.coll("0", "all_reduce", 4, states={0: "started", 1: "started", 2: "scheduled", 3: "started"})
    return j


def stuck():
    j = healthy()
    j.coll("0", "all_reduce", 4, states={r: "started" for r in range(4)})
    j.coll("0", "all_reduce", 5, states={r: "scheduled" for r in range(4)})
    return j


def missing_dump():
    j = healthy()
    j.coll("0", "all_reduce", 4, states={0: "scheduled", 1: "scheduled", 2: "scheduled", 3: None})
    j.skip.add(3)
    return j


def wait_chain():
    """Ranks 0,1 wait in group A (0,1,2) for rank 2; rank 2 waits in group B (2,3) for rank 3,
    which never issued it: the culprit is 3, not the first waiting rank; 2 is a victim."""
    j = Job(4)
    j.group("1", "A", [0, 1, 2])
    j.group("2", "B", [2, 3])
    j.coll("1", "all_reduce", 1)
    j.coll("2", "all_reduce", 1)
    j.coll("2", "all_reduce", 2, states={2: "scheduled", 3: None})
    j.coll("1", "all_reduce", 2, states={0: "scheduled", 1: "scheduled", 2: None})
    return j


def split_groups():  # name "1" is two groups: [0,1] and [2,3]; only [2,3] hangs
    j = Job(4)
    j.group("1", "sub", [0, 1])
    for r in (0, 1):
        j.add(r, "1", "all_reduce", 1, "completed")
    j.groups["1"] = ("sub", [2, 3])
    j.add(2, "1", "all_reduce", 1, "scheduled")
    j.groups["1"] = ("sub", None)
    return j


def torchft():
    """torchft: two replicas of 2 ranks, each with its own default_pg "0" whose pg_config lists
    the replica's local ranks [0, 1]. Replica 1's rank 3 never issues all_reduce #4."""
    j = Job(4)
    j.local_ranks = {(r, "0"): [0, 1] for r in range(4)}
    for s in range(1, 5):
        j.coll("0", "all_reduce", s, ranks=[0, 1])
    for s in range(1, 4):
        j.coll("0", "all_reduce", s, ranks=[2, 3])
    j.coll("0", "all_reduce", 4, states={2: "scheduled", 3: None}, ranks=[2, 3])
    return j


def pipeline():
    """PP over 4 ranks in group 5: 0->1->2->3 sends; a batch_isend_irecv pair between 1 and 2
    (send listed before recv on both sides, whose entries stay scheduled while the marker
    completed); rank 3 never posts its recv from 2."""
    j = Job(4)
    j.group("5", "PIPELINE", [0, 1, 2, 3])
    j.add(0, "5", "send 0->1", 0, "completed", p2p=True, p2p_seq=1)
    j.add(1, "5", "recv 1<-0", 0, "completed", p2p=True, p2p_seq=1)
    j.add(1, "5", "send 1->2", 0, "scheduled", p2p=True, p2p_seq=2)
    j.add(1, "5", "recv 1<-2", 0, "scheduled", p2p=True, p2p_seq=2)
    j.add(1, "5", "coalesced", 0, "completed", p2p_seq=2)
    j.add(2, "5", "send 2->1", 0, "scheduled", p2p=True, p2p_seq=1)
    j.add(2, "5", "recv 2<-1", 0, "scheduled", p2p=True, p2p_seq=1)
    j.add(2, "5", "coalesced", 0, "completed", p2p_seq=1)
    j.add(2, "5", "send 2->3", 0, "scheduled", p2p=True, p2p_seq=2)
    j.add(3, "0", "all_reduce", 1, "scheduled")
    for r in (0, 1, 2):
        j.add(r, "0", "all_reduce", 1, "scheduled")
    return j


def ring_wrap():  # windows start at different record_ids; rank 3 lost more history
    j = Job(4)
    for s in range(1, 8):
        j.coll("0", "all_reduce", s)
    j.coll("0", "all_reduce", 8, states={0: "scheduled", 1: "scheduled", 2: "scheduled", 3: None})
    for r, drop in enumerate([2, 3, 4, 6]):
        j.entries[r] = j.entries[r][drop:]
    return j


def mixed_versions():
    j = healthy()
    j.version[1] = "2.4"
    j.version[2] = "2.10"
    return j


def unmatched_recv():
    """Rank 1 posts a recv from rank 0 in the pipeline group; rank 0 finished everything and
    never sends: rank 0 is the culprit, and the p2p_unmatched is the hang's own evidence."""
    j = Job(4)
    j.group("5", "PIPELINE", [0, 1, 2, 3])
    j.coll("0", "all_reduce", 1)
    j.add(1, "5", "recv 1<-0", 0, "scheduled", p2p=True, p2p_seq=1)
    return j


def recorder_style():
    """The recorder's dumps: pg_config ranks "[]" (one process cannot know its peers' global
    ranks) and the "frtrace" key with each communicator's comm_rank/comm_size. Group "1" is
    ranks 1,3; rank 3 never issues its all_reduce #2, which rank 1 waits in."""
    j = Job(4)
    j.recorder = True
    j.group("1", "SUB", [1, 3])
    j.coll("0", "all_reduce", 1)
    j.coll("1", "all_reduce", 1)
    j.coll("1", "all_reduce", 2, states={1: "scheduled", 3: None})
    return j


def recorder_crash():
    """Rank 1 crashed (SIGSEGV) after issuing all_reduce #2 and dumped from its signal handler,
    which cannot query CUDA: #1 and #2 still read scheduled there, though the others completed
    them. Ranks 0,2,3 wait in #3, which rank 1 never issued. The story is the crash, not a GPU
    that stopped completing work."""
    j = Job(4)
    j.recorder = True
    j.trigger = {0: "timeout", 1: "fatal:11", 2: "trigger_file", 3: "trigger_file"}
    j.coll("0", "all_reduce", 1, states={1: "scheduled"})
    j.coll("0", "all_reduce", 2, states={1: "scheduled"})
    j.coll("0", "all_reduce", 3, states={0: "started", 1: None, 2: "started", 3: "started"})
    return j


def recorder_crash_inside():
    """Every rank started all_reduce #2 and more is queued (from the entries alone: stuck, no
    culprit); rank 1 died inside it by SIGBUS, so the others wait on it."""
    j = Job(4)
    j.recorder = True
    j.trigger = {0: "timeout", 1: "fatal:7", 2: "trigger_file", 3: "trigger_file"}
    j.coll("0", "all_reduce", 1)
    j.coll("0", "all_reduce", 2, states={r: "started" for r in range(4)})
    j.coll("0", "broadcast", 3, states={r: "scheduled" for r in range(4)})
    return j


def recorder_async_error():
    """Rank 2's communicator for group "0" reported ncclRemoteError. Its all_reduce #3 still
    reads scheduled while the others completed it (GPU lag from the entries alone), and everyone
    waits in #4: the async error is the story, on the op the others wait in."""
    j = Job(4)
    j.recorder = True
    j.group("1", "SUB", [0, 2])
    j.trigger = {0: "trigger_file", 1: "timeout", 2: "async_error", 3: "trigger_file"}
    j.comm_state = {(2, "0"): "async_error:ncclRemoteError"}
    j.coll("0", "all_reduce", 1)
    j.coll("1", "all_reduce", 1)
    j.coll("0", "all_reduce", 2)
    j.coll("0", "all_reduce", 3, states={2: "scheduled"})
    j.coll("0", "all_reduce", 4, states={0: "started", 1: "started", 2: "scheduled", 3: "started"})
    return j


def recorder_stuck_init():
    """Rank 2 hangs in ncclCommInitRank; rank 1, stuck in ncclCommSplit, dumps (stuck_in_api)
    and the others follow the trigger file: no entry anywhere."""
    j = Job(4)
    j.recorder = True
    j.trigger = {0: "trigger_file", 1: "stuck_in_api", 2: "trigger_file", 3: "trigger_file"}
    return j


def lost_dump():
    """Ranks 0,1 wait in group "1" (0,1,2) for rank 2, which left no dump, while rank 3 waits
    for nobody: a stopped rank 2 and a dump of a healthy rank 2 that got lost look the same."""
    j = Job(4)
    j.group("1", "SUB", [0, 1, 2])
    j.coll("0", "all_reduce", 1)
    j.coll("1", "all_reduce", 1, states={0: "scheduled", 1: "scheduled", 2: None})
    j.skip.add(2)
    return j


def _builddb(r0, r1):
    """torchfrtrace's testBuildDB setup (test_fr_analysis.py): version 2.8, ranks 0 and 1, pg "0"
    default_pg [0, 1] and "1" sub_pg, which is [0] on rank 0 and [1] on rank 1 (split_groups
    writes the per-rank pg_config). Entries: (op, shape, pg) with seq 0, all completed."""
    j = Job(2)
    j.version = {0: "2.8", 1: "2.8"}
    j.group("1", "sub_pg", None)
    for r, ops in ((0, r0), (1, r1)):
        for op, shape, pg in ops:
            j.add(r, pg, op, 0, "completed", ins=(shape,))
    return j


def builddb_1():
    ops = [("all_reduce", (4, 4), "0"), ("all_reduce", (5, 5), "1")]
    return _builddb(ops, ops)


def builddb_2():
    ops = [("allreduce_coalesced", (4, 4), "0")]
    return _builddb(ops, ops)


def builddb_3():
    ops = [("broadcast", (4, 4), "0"), ("broadcast", (4, 4), "0"), ("coalesced", (4, 4), "0")]
    return _builddb(ops, ops)


def builddb_4():
    return _builddb([("_broadcast_oop", (4, 4), "0"), ("_broadcast_oop", (5, 5), "0"), ("ALLGATHER_coalesced", (4, 4), "0")],
                    [("_broadcast_oop", (4, 4), "0"), ("_broadcast_oop", (4, 4), "0"), ("ALLGATHER_coalesced", (4, 4), "0")])


def builddb_5():
    ops = [("_reduce_oop", (4, 4), "0"), ("_reduce_oop", (4, 4), "0"), ("REDUCE_SCATTER_coalesced", (4, 4), "0")]
    return _builddb(ops, ops)


def builddb_6():
    return _builddb([("all_reduce", (4, 4), "0")],
                    [("all_reduce", (4, 4), "0"), ("_reduce_oop", (4, 4), "0"), ("_reduce_oop", (4, 4), "0"),
                     ("REDUCE_SCATTER_coalesced", (4, 4), "0")])


def gloo_steps(slow_at=None, steps=8, jitter_ms=1.5, seed=1, world_ops=1, clock_ahead=None):
    """A gloo job of 8 ranks as gloo_job.py runs it (TP pairs, DP pairs, PP pairs joined by
    send/recv that gloo leaves unrecorded, then the default group), timed the way gloo runs: a
    call returns once every member arrived, so each rank's next arrival follows its previous
    operation's end. A step: tp, p2p, pp, dp, then world_ops collectives on the default group.
    slow_at = (rank, before which of them, by index, ms): that rank sleeps there every step;
    everybody else only jitters. clock_ahead: rank -> ms its clock reads ahead (every stamp).
    Entries are gloo's: "scheduled" and retired."""
    import random
    rnd = random.Random(seed)
    j = Job(8)
    tp = {r: str(1 + r // 2) for r in range(8)}                      # 1..4: (0,1) (2,3) ...
    dp = {r: str(5 + (r // 4) * 2 + r % 2) for r in range(8)}        # 5..8: (0,2) (1,3) ...
    pp = {r: str(9 + r % 4) for r in range(8)}                       # 9..12: (0,4) (1,5) ...
    for r in range(8):
        j.groups.setdefault(tp[r], ("TENSOR_MODEL_PARALLEL_GROUP", []))[1].append(r)
        j.groups.setdefault(dp[r], ("undefined", []))[1].append(r)
        j.groups.setdefault(pp[r], ("PIPELINE_MODEL_PARALLEL_GROUP", []))[1].append(r)
    free = {r: 0.0 for r in range(8)}  # ms: when each rank is free to go on
    seq, op_ids = {}, {}
    for _ in range(steps):
        for k, kind in enumerate(["tp", "p2p", "pp", "dp"] + ["world"] * world_ops):
            arrive = {}
            for r in range(8):
                arrive[r] = free[r] + 1.0 + rnd.random() * jitter_ms
                if slow_at and slow_at[0] == r and slow_at[1] == k:
                    arrive[r] += slow_at[2]
            if kind == "p2p":  # stage 0 sends to stage 1: the receiver waits for the sender
                for r in range(4):
                    free[r] = arrive[r]
                    free[r + 4] = max(arrive[r + 4], arrive[r]) + 0.1
                for r in range(8):  # gloo counts it in the pipeline group's op ids, unrecorded
                    op_ids[(r, pp[r])] = op_ids.get((r, pp[r]), 0) + 1
                continue
            group = {"tp": tp, "pp": pp, "dp": dp, "world": {r: "0" for r in range(8)}}[kind]
            for name in sorted(set(group.values())):
                members = [r for r in range(8) if group[r] == name]
                done = max(arrive[r] for r in members) + 0.2
                seq[name] = seq.get(name, 0) + 1
                for r in members:
                    ahead = (clock_ahead or {}).get(r, 0.0)
                    op_ids[(r, name)] = op_ids.get((r, name), 0) + 1  # PyTorch's: per group
                    j.add(r, name, "all_reduce", seq[name], "scheduled", backend="gloo",
                          retired=True, at_ns=1700000000000000000 + int((arrive[r] + ahead) * 1e6),
                          op_id=op_ids[(r, name)])
                    free[r] = done
    return j


def nccl_lag(lag, steps=8, slot_ms=10.0, jitter_ms=1.5, seed=1, clock_ahead=None, noticed_ms=None):
    """An NCCL job of 8 ranks whose CPUs run ahead (calls return at once): every rank issues its
    calls at their planned times, plus jitter, plus its lag (lag: rank -> ms, a constant delay,
    as of a slow node), whatever its calls wait for. A step: the tensor-parallel pairs
    (0,1) (2,3) (4,5) (6,7), then the default group. Each collective completes 0.2 ms after its
    last member arrived, on every member (time_discovered_completed_ns), or noticed_ms(rank, seq)
    later (a watchdog's lag). clock_ahead: rank -> ms its clock reads ahead (every stamp)."""
    import random
    rnd = random.Random(seed)
    j = Job(8)
    for r in range(8):
        j.groups.setdefault(str(1 + r // 2), ("TENSOR_MODEL_PARALLEL_GROUP", []))[1].append(r)
    seq = {}
    t = 0.0
    for _ in range(steps):
        for kind in ("tp", "world"):
            t += slot_ms
            arrive = {r: t + rnd.random() * jitter_ms + lag.get(r, 0.0) for r in range(8)}
            names = sorted({str(1 + r // 2) for r in range(8)}) if kind == "tp" else ["0"]
            for name in names:
                members = j.groups[name][1]
                done = max(arrive[r] for r in members) + 0.2
                seq[name] = seq.get(name, 0) + 1
                for r in members:
                    ahead = (clock_ahead or {}).get(r, 0.0)
                    seen = done + (noticed_ms(r, seq[name]) if noticed_ms else 0.0)
                    j.add(r, name, "all_reduce", seq[name],
                          at_ns=1700000000000000000 + int((arrive[r] + ahead) * 1e6),
                          done_ns=1700000000000000000 + int((seen + ahead) * 1e6))
    return j


def nccl_slow_node():  # ranks 2,3 (one node) 40 ms behind, the calls not waiting: both named
    return nccl_lag({2: 40.0, 3: 40.0})


def nccl_clock_noise():  # ranks 2,3 read 300 ms ahead, ends noticed 0-90 ms late per rank: nobody
    return nccl_lag({}, clock_ahead={2: 300.0, 3: 300.0},
                    noticed_ms=lambda r, seq: r * 37 % 10 * 10.0)


def nccl_two_lags():  # rank 2 40 ms behind waits for rank 3, 80 ms behind, but went on: both named
    return nccl_lag({2: 40.0, 3: 80.0})


def wide_values(seqs=(5, 6, 70006, 70007, 1 << 40, (1 << 40) + 1), apart_ns=3_000_000_000_000):
    """Values the analyzer's compact entries keep beside them (store.h): record ids that are not
    consecutive (an onlyActive dump, a gap), collective sequence ids of one group more than 2^16
    apart within one dump, arrivals more than 71 minutes apart. Healthy: ok."""
    j = Job(4)
    base = 1700000000000000000
    for k, seq in enumerate(seqs):
        for r in range(4):
            j.record[r] += 7 * k  # gaps in the record ids
            j.add(r, "0", "all_reduce", seq, at_ns=base + k * apart_ns + r * 1000,
                  done_ns=base + k * apart_ns + 5000)
    return j


def record_gaps():  # only the record ids are not consecutive; the rest fits the compact entries
    return wide_values(seqs=range(5, 11), apart_ns=1_000_000)


def gloo_healthy():  # no slow rank: nobody is named
    return gloo_steps()


def gloo_slow_start():  # rank 3 starts every step 60 ms late: only rank 3, not its victims
    return gloo_steps(slow_at=(3, 0, 60.0))


def gloo_clock_ahead():  # ranks 2,3 (a node) read 300 ms ahead: late everywhere, slow nowhere
    return gloo_steps(clock_ahead={2: 300.0, 3: 300.0})


def gloo_clock_ahead_slow():  # ... and rank 5 sleeps 60 ms a step: only rank 5
    return gloo_steps(slow_at=(5, 0, 60.0), clock_ahead={2: 300.0, 3: 300.0})


def gloo_async_slow(steps=8, buckets=12):
    """gloo DDP-like: 4 ranks (the default group) issue `buckets` asynchronous all_reduces a step,
    each returning at once, then one that blocks until its last member came. Rank 2 sleeps 60 ms
    before every step: late at every bucket, which its peers leave at once, and waited for only
    at the blocking one; it is slow all the same (its lateness is not a clock's)."""
    j = Job(4)
    j.groups["0"] = ("default_pg", [0, 1, 2, 3])
    free = {r: 0.0 for r in range(4)}
    seq = 0
    for _ in range(steps):
        arrive = {r: free[r] + 1.0 + r * 0.3 + (60.0 if r == 2 else 0.0) for r in range(4)}
        for b in range(buckets + 1):
            seq += 1
            for r in range(4):
                j.add(r, "0", "all_reduce", seq, "scheduled", backend="gloo", retired=True,
                      at_ns=1700000000000000000 + int((arrive[r] + b * 1.0) * 1e6))
        done = max(arrive[r] + buckets * 1.0 for r in range(4)) + 0.2
        for r in range(4):
            free[r] = done
    return j


def gloo_slow_world():  # rank 5 is 60 ms late at the first of 3 default-group collectives a step
    return gloo_steps(slow_at=(5, 4, 60.0), world_ops=3)


def demo_hang():  # the bundled example: 4 ranks, rank 2 never joins all_reduce #4
    return missing_rank()


SCENARIOS = {f.__name__: f for f in [healthy, in_flight, missing_rank, type_mismatch, size_mismatch, dtype_mismatch,
                                     alltoall_total, alltoall_uneven, demo_hang, gpu_stall, never_started, stuck, missing_dump,
                                     wait_chain, split_groups, pipeline, ring_wrap, mixed_versions, unmatched_recv,
                                     recorder_style, recorder_crash, recorder_crash_inside, recorder_async_error,
                                     recorder_stuck_init, lost_dump, builddb_1, builddb_2, builddb_3, builddb_4, builddb_5,
                                     builddb_6, torchft, gloo_healthy, gloo_slow_start, gloo_slow_world, nccl_slow_node,
                                     wide_values, record_gaps, nccl_two_lags, gloo_clock_ahead,
                                     gloo_clock_ahead_slow, nccl_clock_noise, gloo_async_slow]}

if __name__ == "__main__":
    job = SCENARIOS[sys.argv[1]]()
    if sys.argv[1] in ("split_groups",) or sys.argv[1].startswith("builddb_"):
        # pg_config differs per rank: ranks 0,1 see "1"=[0,1], ranks 2,3 see "1"=[2,3]
        # builddb: "1" = [0] on rank 0, [1] on rank 1
        first, second = ([0, 1], [2, 3]) if sys.argv[1] == "split_groups" else ([0], [1])
        desc = job.groups["1"][0]
        job.groups["1"] = (desc, first)
        job.write(sys.argv[2])
        keep = {r: open(os.path.join(sys.argv[2], "nccl_trace_rank_%d.json" % r)).read() for r in first}
        job.groups["1"] = (desc, second)
        job.write(sys.argv[2])
        for r, text in keep.items():
            open(os.path.join(sys.argv[2], "nccl_trace_rank_%d.json" % r), "w").write(text)
    else:
        job.write(sys.argv[2])
