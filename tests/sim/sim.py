#!/usr/bin/env python3
"""sim.py — one random distributed job with a known answer, as real flight-recorder dumps.

    python3 tests/sim/sim.py --seed N --out DIR

draws a job from N alone (random.Random(N)), runs it in simulated time, and writes
DIR/dumps/<one file per rank that dumped> and DIR/answer.json (the truth, and the answer the
evidence supports). `frtrace DIR/dumps` should say what answer.json's `expected` says;
tests/sim/accuracy.py checks that over many seeds. Python 3 standard library only.

The job: 2 to 1 024 ranks (log-uniform); a layout (layout.py: Megatron TP/CP/DP/PP/EP, a 2-D
DeviceMesh of split groups, FSDP shard/replicate groups, the default group alone); a program of
steps (program.py); a fault class (faults.py); a backend and its recording (record.py, encode.py).

RULES — how answer.json's `expected` follows from the simulated truth (answer.py applies them)
 T1  Execution (engine.py): NCCL enqueues and returns, each stream runs in issue order, a launch
     starts when the previous one finished there, a collective completes once every member
     started it, a send/recv pair once both sides did; the CPU blocks at the end of each step
     (stream drained) and at `max_inflight` unfinished launches. gloo blocks in every call. Ops
     meet by order per group (per peer pair for send/recv); calls that disagree never complete.
     The run goes on until nothing can move (a hang), or, for healthy jobs, to the end or to a
     moment when one last collective is in flight on every rank.
 T2  Truth: who waits in which instance for whom at the end (answer.truth.wait_for); the root
     causes are the fault ranks that fired and sit in the sink components of that graph.
 W1  A rank waits in its oldest unfinished launch for the members that have not started it.
 W2  Culprits of a hang: the sink ranks reachable from waiting ranks (not seen waiting: a stopped
     CPU, a dead or unknown rank), plus ranks whose GPU stalled (a frontier every peer completed);
     a cycle of waiting ranks (a deadlock after a skip) is broken at its fault rank, whose
     order the other ranks contradict (E11); in a two-rank job both are named. A cycle is a
     deadlock even where its ranks wait for others too: each waits for every member missing
     from its launch (an earlier rule named only the sinks: seed 2440's final reading of 35
     named 35 alone, where 14, which sent to 29 instead of 15, and 29, waiting for 14, were
     deadlocked whatever 35 did).
 E1  No readable dump (none, garbage, cut before its entries): the rank is unknown. When
     others wait for it, it is a culprit (missing_dump) unless the dumps show a stuck rank
     (W2) that it may be waiting for too: then it is an alternative, not a culprit.
 E2  More than half of the ranks unknown: inconclusive, no culprits.
 E3  A disagreeing instance (all_to_all: type and dtype only, its splits are not recorded)
     recorded by two or more readable dumps: mismatch; culprits are the recorded members
     outside the unique largest side, or all recorded members without one.
     Wins over the hang rules. Not provable from the culprit's dump alone (its peers aborted or
     never recorded it): the hang rules apply.
 E8  An older dump (a peer completed an instance with the rank beyond the rank's own frontier,
     or one its dump does not show; a peer completing the frontier itself is what a stalled GPU
     looks like) says nothing about the end: the rank is presumed to have gone on; a missing
     member only when nobody else is missing there, and then weighed as an unknown rank (E1).
     The bytes prove it only through an instance the dump shows the rank had not issued: a
     collective a peer completed, or a transfer a peer received from it. Launches it shows
     pending that peers completed prove only that its GPU ran them (the real gpu_error_1st/2nd:
     a failed GPU's fresh dump, a dozen such launches), and a send a peer completed to it proves
     no recv (NCCL completes a send into the receiver's buffer). Drawn older on those alone, the
     dump is read both ways (older; final, its GPU having run past what it recorded, or stopped
     where it shows): where the readings name different ranks, expected is what both name, the
     rest alternatives (answer.py either(); an earlier rule named 0 alone in seed 12994, where
     2's fresh-looking dump may be a failed GPU's, and 3 alone in 12069).
     A dump whose only witness damage made unreadable (or cut) shows nothing older: it is read
     as final (an earlier rule kept it older: seed 3052 expected ok where rank 1, the only
     readable dump, waits for rank 0, whose dump is garbage).
 E14 A rank waiting in a send/recv on idle peers nobody else waits for, while another waits
     on it in the other half (a send for its recv, or the reverse), posted to the wrong peer:
     the culprit, not the idle peer nor the other unmatched half. Peers without a readable
     dump beside the idle ones there are alternatives (E1), no bar (seed 3071: an earlier rule
     named the idle peer, whose whole dump shows its batch done without the other half); peers
     there seen stopped (stuck, a stalled GPU) are culprits beside it, no bar (seed 1608: an
     earlier rule named the idle peer 13 and 15, read final, where 8 sent to 13, not 9).
 E13 A torch pickle or JSON dump cut inside its entries: the whole entries before the cut are
     known as of its moment, the rest unknown, as after an older dump (E8). Readers salvage
     exactly those (man/frtrace.1: a file truncated mid-write is used only when its whole
     entries can be told apart; a JSON entry is whole once its closing brace is read; torch's
     JSON sorts its keys, so pg_config and pg_status, after the entries, are lost). An earlier
     rule read a cut JSON dump as unreadable, claiming less than the dump shows (seeds 316,
     336, 788). A cut pickle keeps pg_status: a collective at or before the last number it
     completed in a group (a collective's, or our recorder's launch's) completed (an earlier
     rule credited no counter and named the cut rank of seeds 15089 and 15341, whose counters
     show it completed the all_reduce its peer's stalled GPU is pending in), and one at or
     before its last enqueued number was issued: the rank did not stop before it (seeds 975,
     9718: a cut rank in flight where its peer waits for a killed rank is no "one of them"),
     and one at or before its last started number (timing on) it arrived at (W1; seed 9718);
     whether its GPU started one only enqueued is unknown (seed 9877).
     Re-pickled dumps cut anywhere, and dumps cut before their entries, are unreadable (E1).
 E16 One of them. Where no seen rank explains the waits and a rank without a readable dump is
     among those waited for, a cut or older dump beside it is no proof of going on: a cut dump
     shows nothing after its cut (a rank whose CPU stopped still writes one), an older one only
     that the rank passed its old frontier. Such a rank named for a wait (E8), or a member
     beside the unknown one in a waiter's operation whose dump is cut (an older one keeps E8's
     presumption) and that no readable dump shows past it,
     may have stopped there, and the unknown rank may be blocked behind it: the answer is
     one of them (alternatives, no culprit). An earlier rule named the unknown rank alone
     (seed 975: rank 1 waits for 0, cut with no entries, and 2, no dump) or both (2019: rank 1,
     older, was a victim blocked behind 0).
 E17 Two readings. A rank waiting in a send/recv with one peer alone (its batch holds no other
     peer), in a group of more than two, on an idle peer that nobody else waits for and whose
     dump holds no entry (only-active, nothing in flight: what it completed is dropped), reads
     alike whether the peer never posted its end or the waiter's GPU stalled after the
     transfer: the pg_status counters of such a group count send/recv per rank, not per pair.
     Expected is one of them (alternatives, no culprit), as frtrace says it. An earlier rule
     credited every launch issued before the dump as shown, even one the dump dropped (seed
     452: 118's send to 86 in a pipeline group of 4, 86's only-active dump empty, 118 named
     stalled; 10413: the reverse truth, 1 never posted, read the same and named 1).
 E12 A waiter whose operation more than half of its members never issued while seen idle
     (nothing pending), and that nobody else waits for, issued an operation the group will
     never run: it is the culprit, not the idle majority. Where some are idle, a member seen
     waiting for the waiter alone in an operation the waiter never issued counts with them
     (seeds 510, 8061: exactly half idle, the other half waiting for the waiter in the op it
     left; an earlier rule named the idle half). Idle ranks that several waiters wait
     for never joined them (W2): the waiters agree on the program, and ranks stopped at one
     point look just so (an earlier rule named the waiters of seeds 2124, 3778 and 5818, where
     three ranks stopped: more than the dumps show).
 E9  gloo `retired` is finished or failed: a rank whose newest operation is retired and has a
     member without readable dump waits for that member.
 E10 gloo send/recv are unrecorded, and PyTorch 2.15's pg_status counts collectives only (the
     real testdata/torch-2.15.0-gloo/pipe_no_send: rank 5, blocked in a recv, has enqueued ==
     completed; an earlier rule counted send/recv there and read such a rank as waiting for its
     pipeline peer, which no real dump shows). A send/recv leaves op-id gaps before its group's
     next collective at most; a group that runs send/recv alone (every gloo pipeline pair here)
     shows in no dump. A rank blocked in one looks idle, as a stopped rank does: named by W2,
     nothing linking it to its peer (as tests/interop/random_job.py's p2p_shown and the real
     random143_sigkill_stuck read it).
 E15 A rank with a fresh dump, waited for in an operation it never issued and whose step on
     that group it recorded no call of, that records a later step's call, went past it (a skip,
     or a collective on another group in its place): a culprit whatever else it waits for (an
     older dump then an alternative), and no E12/E14 culprit made of its waiter. The order of the
     two steps must be shown: two or more other dumps record the step (for a send/recv, the
     members in its place in the sibling groups: seed 5153's wrong peer named a rank with no
     call there), and one not itself waited for in an operation it never issued records both
     (an earlier reading named the older dump 13 of seed 6145 alone, missed 165 of seed 5143,
     and named 6, left alone in the CP batch 7 skipped, in seed 10779). An operation one member
     issued alone, where most of its group of three or more is seen elsewhere, is that member's
     word alone and makes no witness doubtful (seeds 6446, 8456: a rank's broadcast on the world
     group made every other rank "waited for", and an unreadable dump was named in its place).
 H1  Nobody waits: ok, stragglers exactly the slow ranks the dumps can show (none under clock
     offsets alone; a slow rank shows in a group where every member's readable dump records 5
     of its collectives with it: not without its dump, nor in only-active dumps of a job that
     ended); one collective in flight everywhere with nothing queued behind it is ok.
 G1  Generation keeps the answer decidable, and says so: faults strike after the first step
     (every rank has used each of its groups, so dumps show memberships); a dump is drawn older
     only when the evidence shows it (E8), in the dumps as finally drawn (an earlier rule
     checked each draw alone, and a later draw could take its evidence away: seed 3303) —
     otherwise its moment changes nothing and it is written as final; a ring keeps every
     unfinished entry (the frontier) and drops history; no mismatch member loses its dump by
     damage or has it drawn older; under gloo the highest rank keeps its dump (no gloo dump
     states the world size); damage never hides the last visible wait of a hang, nor turns a
     healthy job's in-flight collective into a wait.
"""
import argparse
import json
import math
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import answer  # noqa: E402
import encode  # noqa: E402
import engine  # noqa: E402
import faults  # noqa: E402
import layout  # noqa: E402
import program  # noqa: E402
import record  # noqa: E402


class Job:
    def __init__(self, seed):
        self.seed = seed
        self.rng = random.Random(seed)
        self.slow = {}
        self.clock_offset = {}
        self.faults = []
        self.frame_pool = {}

    def node_of(self, rank):
        return rank // self.node_size

    def thread_name(self, rank):
        return {"nccl": "pt_main_thread", "gloo": "python", "recorder": "python3"}[self.backend]

    def thread_id(self, rank):
        return str(139990000000000 + rank * 4096 + self.seed % 997)

    def timeout_ms(self, g):
        if self.backend == "recorder":
            return 300000
        if self.backend == "gloo":
            return 600000 if g.kind == "default" else 1800000
        return 600000

    def frames_for(self, call):
        """A Python stack per operation kind; equal stacks share their frame dicts (torch
        memoizes a frame referenced twice)."""
        key = call.ops[0].name
        if key not in self.frame_pool:
            self.frame_pool[key] = [
                {"name": key, "filename": "torch/distributed/distributed_c10d.py", "line": 2800},
                {"name": "wrapper", "filename": "torch/distributed/c10d_logger.py", "line": 81},
                {"name": "train_step", "filename": "train.py", "line": 120 + len(key)},
                {"name": "<module>", "filename": "train.py", "line": 300}]
        return list(self.frame_pool[key])


def draw_world(rng):
    w = int(round(2 ** rng.uniform(1, 10)))
    if w >= 8 and rng.random() < 0.7:
        w = w // 8 * 8
    return max(2, min(1024, w))


def draw_recording(rng, backend):
    rc = {"version": "2.10", "timing": False, "gpu_events": None, "format": "pickle",
          "protocol": None, "only_active": False, "ring": None, "frames": False,
          "member_quirk": False, "members_known": False, "root_memo": True, "mixed": False}
    fmt = rng.random()
    if backend == "nccl":
        rc["version"] = rng.choice(["2.9", "2.10"])
        rc["timing"] = rng.random() < 0.5
        rc["format"] = "pickle" if fmt < 0.6 else ("json" if fmt < 0.85 else "repickle")
        rc["protocol"] = rng.randrange(6)
        rc["only_active"] = rng.random() < 0.2
        rc["member_quirk"] = rng.random() < 0.6
        rc["root_memo"] = rc["version"] == "2.9" or rng.random() < 0.5
        rc["frames"] = rc["format"] != "json" and rng.random() < 0.3
        rc["prefix"] = rng.choice(["nccl_trace_rank_", "_dump_", "comm_lib_trace_rank_"])
    elif backend == "gloo":
        rc["format"] = "pickle" if fmt < 0.6 else "json"
        rc["only_active"] = rng.random() < 0.15
        rc["prefix"] = "rank_"
    else:
        rc["gpu_events"] = rng.choice([1, 2])
        rc["format"] = "pickle" if fmt < 0.75 else "json"
        rc["members_known"] = rng.random() < 0.3
        rc["root_memo"] = False
        rc["prefix"] = "rank_"
    rc["mixed"] = rng.random() < 0.1 and backend != "recorder"
    rc["ring_wanted"] = rng.random() < 0.2
    rc["older_wanted"] = backend != "gloo" and rng.random() < 0.2
    rc["damage"] = rng.choice([None] * 8 + ["garbage", "truncated"])
    return rc


def draw_job(seed):
    job = Job(seed)
    rng = job.rng
    job.backend = rng.choices(["nccl", "gloo", "recorder"], [5, 2, 3])[0]
    job.cls = rng.choice(faults.eligible_classes(job.backend))
    world = draw_world(rng)
    if job.cls in ("two_faults", "three_faults"):
        world = max(world, 4)
    job.layout = layout.draw_layout(rng, world, job.backend)
    job.node_size = rng.choice([2, 4, 8, 8])
    if job.cls == "slow":
        steps = rng.randint(6, 8)
    else:
        steps = 2 if world >= 128 else rng.randint(2, 4)  # big jobs: as much evidence, less time
    job.calls = program.draw_program(rng, job.layout, job.backend, steps,
                                     ring=job.cls == "wrong_peer")
    job.snapshot = "end"
    if job.cls == "healthy" and rng.random() < 0.5:
        job.snapshot = "in_flight"
        b = program.Builder(rng, job.layout, job.backend)
        b.calls, b.step = job.calls, steps
        b.coll("default", "all_reduce")
        b.end_step()
    job.faults = faults.draw_faults(rng, job, job.cls)
    tried = {job.cls}
    while not job.faults and job.cls not in ("healthy", "slow", "clock_offset"):
        # the class found no place to strike in this program (a wrong peer needs a send/recv
        # in a group of three or more): another class strikes instead
        left = [c for c in faults.eligible_classes(job.backend) if c not in tried]
        job.cls = rng.choice(left)
        tried.add(job.cls)
        job.faults = faults.draw_faults(rng, job, job.cls)
    if job.cls == "slow":
        for r in rng.sample(range(world), min(world - 1, rng.choice([1, 1, 2]))):
            job.slow[r] = rng.uniform(20.0, 80.0)
            for c in job.calls[r]:
                if not c.is_p2p():
                    c.delay += job.slow[r] + rng.uniform(0, 2)
    if job.cls == "clock_offset":
        nodes = sorted({job.node_of(r) for r in range(world)})
        for n in rng.sample(nodes, max(1, len(nodes) // 3)):
            job.clock_offset[n] = rng.choice([-1, 1]) * rng.uniform(100.0, 3000.0)
    job.max_inflight = 1 if job.backend == "gloo" else rng.choice([2, 4, 8, 32, 10 ** 6])
    job.rec = draw_recording(rng, job.backend)
    job.comm_hash = ["%016x" % rng.getrandbits(64) for _ in job.layout.groups]
    return job


def signature(job):
    """How the backend compares calls: NCCL runs the NCCL-level call (a list all_gather and
    _allgather_base are one ncclAllGather); gloo compares the PyTorch-level call."""
    if job.backend == "gloo":
        return program.Call.signature

    def nccl(call):
        if call.sig is not None:
            return call.sig
        out = []
        for op in call.ops:
            name, ins, outs = record.recorder_name(op, call.group.size)
            total = lambda shapes: sum(math.prod(s) for s in shapes)
            out.append((name, total(ins), total(outs), op.dtype, op.peer))
        call.sig = tuple(out)
        return call.sig
    return nccl


def run(job):
    job.sig = signature(job)
    eng = engine.Engine(job)
    eng.run()
    return eng


def entries_of(job, L):
    """How many entries a launch leaves (record.py's rules)."""
    call = L.call
    if job.backend == "gloo":
        return 0 if call.is_p2p() else len(call.ops)
    marker = call.kind in ("coalesced", "batch") and len(call.ops) >= (
        2 if job.backend == "recorder" else 1)
    return len(call.ops) + (1 if marker else 0)


def dump_times(job, eng):
    """Each rank's dump moment: the end (seconds after the job stopped moving), the in-flight
    moment of a healthy snapshot, a dead rank's fatal moment; some ranks older (G1)."""
    W = job.layout.world
    rng = job.rng
    if job.snapshot == "in_flight":
        last = [eng.stream[r][-1] for r in range(W)]
        t0 = max(L.start_t for L in last)
        t1 = min(L.done_t for L in last)
        end = t0 + (t1 - t0) * 0.5
    else:
        end = eng.t_stop + rng.uniform(1000.0, 5000.0)
    T = {r: end for r in range(W)}
    for f in job.faults:
        if f.kind == "exit" and f.fired is not None:
            T[f.rank] = eng.death_t[f.rank]
    return T


def fresh(eng, r, T):
    for L in eng.stream[r]:
        for t in (L.issue_t, L.start_t, L.done_t):
            if t is not None and t > T:
                return False
    return True


def older_provable(eng, r, T, known):
    """E8: a readable peer completed an instance with r that lies beyond r's frontier in r's
    own stream (or that r's dump does not show at all): r must have finished its frontier, so
    its dump is older. (A peer completing r's frontier itself proves nothing: that is what a
    stalled GPU looks like.)"""
    frontier = None
    for L in eng.stream[r]:
        if L.issue_t > T[r] or not (L.done_t is not None and L.done_t <= T[r]):
            frontier = L.pos
            break
    if frontier is None:
        return False  # everything it issued is in its dump, finished, and nothing came after
    for L in eng.stream[r][frontier + 1:] if eng.stream[r][frontier].issue_t <= T[r] else \
            eng.stream[r][frontier:]:
        for inst in L.insts:
            for m, P in inst.launches.items():
                if m != r and m in known and not P.failed and P.done_t is not None and \
                        P.done_t <= T[m]:
                    return True
    return False


def plan_dumps(job, eng):
    """Which ranks leave which dump, at which moment, readable or not."""
    W = job.layout.world
    rng = job.rng
    rc = job.rec
    T = dump_times(job, eng)
    dead_silent = {f.rank for f in job.faults if f.kind in ("kill", "abort") and
                   f.fired is not None}
    fatal = {f.rank for f in job.faults if f.kind == "exit" and f.fired is not None}
    dumps = {}
    for r in range(W):
        if r in dead_silent or r in eng.death_t and r not in fatal:
            continue
        dumps[r] = {"time": T[r], "readable": True, "fatal": r in fatal, "older": False}
    known = set(dumps)
    if rc["older_wanted"] and job.snapshot == "end":
        keep = set()  # G1: the members of a mismatch keep their evidence
        for inst in eng.insts.values():
            if len(set(inst.sigs.values())) > 1:
                keep.update(inst.members)
        cands = sorted(r for r in dumps if not dumps[r]["fatal"] and r not in keep)
        final = {r: T[r] for r in dumps}
        for r in rng.sample(cands, min(len(cands), rng.choice([1, 1, 2, 3]))):
            first = eng.stream[r][0].issue_t if eng.stream[r] else 0.0
            t = first + rng.uniform(0.0, 1.0) * max(0.0, eng.t_stop - first)
            saved = T[r]
            T[r] = t
            if fresh(eng, r, t):
                T[r] = saved  # G1: the moment changes nothing; written as final
            elif older_provable(eng, r, T, known):
                dumps[r]["time"] = t
                dumps[r]["older"] = True
            else:
                T[r] = saved  # G1: an older dump the evidence could not tell: not drawn
        # G1, E8: a later draw can take away the evidence an earlier one rested on (seed 3303:
        # rank 0 drawn older while rank 1's final dump proved it, then rank 1 drawn older too,
        # leaving nothing that shows rank 0's dump older): each older dump must still be provable
        # from the dumps as drawn, or it is written as final. Restoring a dump's moment only adds
        # evidence for the others, so one pass settles it.
        for r in sorted(dumps):
            if dumps[r]["older"] and not older_provable(eng, r, T, known):
                T[r] = dumps[r]["time"] = final[r]
                dumps[r]["older"] = False
    if rc["ring_wanted"]:
        need, total = 1, None
        for r in dumps:
            n_all = sum(entries_of(job, L) for L in eng.stream[r] if L.issue_t <= T[r])
            pend = 0
            for L in eng.stream[r]:
                if L.issue_t <= T[r] and not (L.done_t is not None and L.done_t <= T[r]):
                    pend = sum(entries_of(job, M) for M in eng.stream[r][L.pos:]
                               if M.issue_t <= T[r])
                    break
            need = max(need, pend + 2)
            total = n_all if total is None else min(total, n_all)
        rc["ring"] = max(need, int((total or 0) * rng.uniform(0.3, 0.9)))
    return dumps


def damage(job, eng, dumps):
    """Garbage or a truncated write on one rank (G1: never a mismatch member, never gloo's
    last rank, never the last visible wait of a hang)."""
    kind = job.rec["damage"]
    if not kind:
        return
    protect = set()
    for inst in eng.insts.values():
        if len(set(inst.sigs.values())) > 1:
            protect.update(inst.members)
    if job.backend == "gloo":
        protect.add(job.layout.world - 1)
    cands = sorted(r for r in dumps if r not in protect)
    if not cands:
        return
    r = job.rng.choice(cands)
    before = answer.expected(job, eng, dumps)["expected"]
    cut = cut_plan(job, eng, dumps, r) if kind == "truncated" else None
    if cut:
        dumps[r]["cut"] = cut  # E13: the whole entries before the cut stay readable
    else:
        dumps[r]["readable"] = False
    unproven = older_unproven(eng, dumps)
    for o in unproven:
        dumps[o]["older"] = False  # E8: its witness lost, nothing shows it older: read as final
    after = answer.expected(job, eng, dumps)["expected"]
    if before["status"] != after["status"] and "ok" in (before["status"], after["status"]):
        dumps[r]["readable"] = True  # G1: damage neither hides a hang nor breaks a healthy job
        dumps[r].pop("cut", None)
        for o in unproven:
            dumps[o]["older"] = True
        return
    dumps[r]["damage"] = kind


def older_unproven(eng, dumps):
    """The dumps drawn older whose proof (E8: a readable peer completed an instance with the
    rank beyond its frontier) no readable, whole dump gives any more."""
    known = {x for x, d in dumps.items() if d["readable"] and not d.get("cut")}
    T = [dumps[x]["time"] if x in dumps else eng.t_stop for x in range(len(eng.stream))]
    return [o for o, d in sorted(dumps.items())
            if d["older"] and not older_provable(eng, o, T, known)]


def cut_plan(job, eng, dumps, r):
    """E13: where a truncated torch pickle or JSON dump is cut: inside the first entry of a
    launch, so that the entries before it (whole launches) stay readable. None: nothing
    salvageable (a Python re-pickle, or no entries; a JSON dump keeps nothing before its
    entries): the dump is unreadable."""
    fmt = record.rank_format(job, r)
    if fmt not in ("pickle", "json"):
        return None
    launch_of = []
    record.dump_dict(job, eng, r, dumps[r]["time"], None, launch_of)
    starts = [i for i in range(len(launch_of)) if i == 0 or launch_of[i] != launch_of[i - 1]]
    if fmt == "json":
        starts = starts[1:]  # one whole entry at least: a JSON cut in its first keeps nothing
    if not starts:
        return None
    s = random.Random(job.seed * 7919 + r).choice(starts)
    return {"entry": s, "launch": launch_of[s]}


def truncate(job, r, info, d, raw):
    """The bytes a write cut short leaves: inside entry info["cut"]["entry"] (E13), or, where
    nothing is to be salvaged, inside pg_config (pickles) or anywhere (JSON)."""
    crng = random.Random(job.seed * 31337 + r)
    if info.get("cut"):
        s = info["cut"]["entry"]
        if raw[:1] == b"{":  # JSON: the entry's own bytes, its closing brace lost
            spans = []
            encode.torch_json(d, spans)
            start, span = spans[s][0], spans[s][1] - spans[s][0]
        else:
            starts = []
            encode.torch_pickle(d, job.rec["root_memo"], starts)
            start = starts[s]
            span = (starts[s + 1] if s + 1 < len(starts) else len(raw)) - starts[s]
        return raw[:start + crng.randint(3, max(3, min(span - 3, 400)))]
    i = raw.find(b"pg_config")
    j = raw.find(b"pg_status", i + 1) if i >= 0 else -1
    if raw[:1] != b"{" and 0 <= i < j - 12:
        return raw[:crng.randint(i + 10, j - 2)]
    return raw[:max(1, int(len(raw) * crng.uniform(0.2, 0.95)))]


def file_name(job, r, fmt):
    rc = job.rec
    suffix = ".json" if fmt == "json" and job.backend != "recorder" else ""
    return rc["prefix"] + str(r) + suffix


def encode_dump(job, d, fmt):
    rc = job.rec
    if fmt == "json":
        return encode.torch_json(d)
    if fmt == "repickle":
        return encode.python_pickle(d, rc["protocol"])
    return encode.torch_pickle(d, rc["root_memo"])


def write_job(job, eng, dumps, out):
    ddir = os.path.join(out, "dumps")
    os.makedirs(ddir, exist_ok=True)
    rng = job.rng
    files = {}
    for r in sorted(dumps):
        info = dumps[r]
        fmt = record.rank_format(job, r)
        trigger = None
        if job.backend == "recorder":
            trigger = "fatal:11" if info["fatal"] else rng.choice(["timeout", "trigger_file"])
        d = record.dump_dict(job, eng, r, info["time"], trigger)
        raw = encode_dump(job, d, fmt)
        if info.get("damage") == "garbage":
            raw = bytes(rng.getrandbits(8) for _ in range(rng.randint(1, 200)))
            raw = raw.replace(b"\x80", b"\x81") or b"\x00"
            if raw[:1] in (b"{", b"["):
                raw = b"#" + raw[1:]
        elif info.get("damage") == "truncated":
            raw = truncate(job, r, info, d, raw)
        name = file_name(job, r, fmt)
        with open(os.path.join(ddir, name), "wb") as f:
            f.write(raw)
        files[str(r)] = {"file": "dumps/" + name, "format": fmt, "readable": info["readable"],
                         "damage": info.get("damage"), "older": info["older"],
                         "cut": info.get("cut"), "fatal": info["fatal"],
                         "time_ms": round(info["time"], 3)}
    return files


def describe(job):
    L = job.layout
    return {"kind": L.kind, "dims": L.dims, "groups": len(L.groups),
            "families": {k: len(v) for k, v in L.families.items()}}


def make(seed, out):
    job = draw_job(seed)
    eng = run(job)
    dumps = plan_dumps(job, eng)
    damage(job, eng, dumps)
    ans = answer.expected(job, eng, dumps)
    files = write_job(job, eng, dumps, out)
    rc = {k: v for k, v in job.rec.items() if not k.endswith("_wanted")}
    doc = {"seed": seed, "class": job.cls, "backend": job.backend, "world": job.layout.world,
           "layout": describe(job), "snapshot": job.snapshot, "max_inflight": job.max_inflight,
           "recording": rc, "dumps": files, "clock_offset_ms": {str(k): round(v, 3) for k, v in
                                                               job.clock_offset.items()},
           "slow_ms": {str(k): round(v, 3) for k, v in job.slow.items()}}
    doc.update(ans)
    with open(os.path.join(out, "answer.json"), "w") as f:
        json.dump(doc, f, sort_keys=True, separators=(",", ":"))
        f.write("\n")
    return doc


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--seed", type=int, required=True)
    p.add_argument("--out", required=True)
    a = p.parse_args()
    if os.path.isdir(os.path.join(a.out, "dumps")):
        for n in os.listdir(os.path.join(a.out, "dumps")):
            os.unlink(os.path.join(a.out, "dumps", n))
    doc = make(a.seed, a.out)
    e = doc["expected"]
    print("seed %d: %s, %s, %d ranks (%s): expect %s %s" % (
        a.seed, doc["class"], doc["backend"], doc["world"], doc["layout"]["kind"], e["status"],
        ",".join(map(str, e["culprit_ranks"])) or "-"))


if __name__ == "__main__":
    main()
