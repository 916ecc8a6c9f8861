#!/usr/bin/env python3
"""Random recorder jobs on the fakes, with known answers, scored like tests/sim/accuracy.py.

    random_rec_jobs.py --seeds A:B --frtrace build/frtrace [--build build] [--json FILE]
                       [--keep] [--workdir DIR]
    random_rec_jobs.py --seed N --describe          the drawn job and its answer, nothing run

The simulator (tests/sim) writes recorder-format dumps by simulation; this runs the recorder
itself (build/libfrtrace-recorder.so preloaded) over the fake NCCL and CUDA (build/fakes) in
jobs nobody wrote by hand. From a seed alone (random.Random(N)) draw() picks a run of
tests/fakes/driver.c:
  mode      train (the driver's default), or now and then its lifecycle tour (InitRankConfig,
            InitRankScalable, Shrink, Abort, Revoke) with a SKIP on the shrunk communicator;
  layout    NRANKS 2 to 8, STEPS 3 to 8, GROUPED (coalesced collectives) or not;
  faults    none, one or two (distinct kinds, distinct ranks) of SKIP, OMIT, STALL, MISMATCH,
            CRASH, SLOW and the fake library's ASYNC_ERR and HANG_IN (init or destroy, alone),
            each at a random rank and step;
  dumps     pickle or JSON (FRTRACE_FORMAT), a dump at exit or not (FRTRACE_DUMP_ON_EXIT), now
            and then end events only (FRTRACE_GPU_EVENTS=1) or a ring of 24 to 64 entries that
            wraps (FRTRACE_BUFFER_SIZE, drawn from a second generator), and
            the trigger of a hang: the watchdog (FRTRACE_TIMEOUT_SEC=1), SIGUSR2 from the
            driver (SIGNAL_AFTER_MS) or the trigger file, created here; a job that does not hang
            is read from its exit dumps.
model() then runs the driver's program on a model of the fakes (fake_nccl.c: a collective
completes once every member reached it with the same count, a member past it counts as there;
a send never blocks, a receive waits for its send; each rank's stream runs its operations in
order, its CPU issues a step and waits for its stream) to the point where nothing moves: what
each rank issued, what completed, where its stream and its CPU stopped, who left a dump. That is
checked against the dumps the recorder wrote (entries and completed entries per rank; a run
that disagrees is a broken model or fake, reported as `model`, never scored), and expect()
derives the answer the evidence supports, by the rules of tests/sim/answer.py:
  E3  a collective whose recorded calls disagree in size: mismatch, the members outside the
      unique largest side (no unique one: every recorded member) (MISMATCH);
  W1  a rank waits in its oldest unfinished operation for the members that did not reach it
      (a collective), or for its peer (a receive);
  W2  culprits of a hang: the ranks the wait-for chains end at that are not seen waiting (a
      stopped CPU: SKIP; a dead rank with its fatal dump: CRASH; a communicator in error:
      ASYNC_ERR, whose member takes no further part, unless a member crashed: ncclRemoteError
      is what a dead peer leaves the survivors; a stream stalled before an operation every
      peer reached: STALL; a stalled rank whose peers did not all reach that operation waits
      for them, as tests/sim says); a deadlock of waiting ranks is broken at the rank whose
      order the others contradict (OMIT: it left out a collective, then waits in the next
      step's receive for a peer that waits for it);
  GPU events  with FRTRACE_GPU_EVENTS=1 (drawn now and then) nothing shows what started: a
      stalled stream looks like one in flight; where every rank is in flight, the watchdog's
      timeout says hang (no culprit shown), a signal or trigger file a running job (ok);
  E1  a rank without a dump (it exited without FRTRACE_DUMP_ON_EXIT) that others wait for is a
      culprit, or an alternative beside a culprit the dumps show;
  H1  nobody waits: ok; where a SLOW rank is the only fault and late at 5 or more all_reduces
      (5 steps), it is the one straggler (fewer: the stragglers are not scored);
  a rank stuck inside ncclCommInitRank (the others in ncclCommSplit, nothing recorded) or
  ncclCommDestroy (nobody waits) past the watchdog's timeout is the culprit of a hang
  (frtrace's `inconclusive` naming nobody there is honest, scored ambiguous); inside
  ncclCommDestroy for less than the timeout (a signal's or trigger file's dump) nothing shows
  it: ok.
`frtrace -f json DIR/dumps` is scored by accuracy.py's score(): exact, ambiguous (honestly
undecided) or wrong. Prints one row per fault class, a total, and for each seed that is not
exact what was drawn, expected and said, with a command that reproduces it (the seed, and the
driver's own command line). Jobs run one at a time, each a few seconds (DEADLINE,
DUMPS_EXPECTED: the driver ends 300 ms after the dumps the model predicts exist). A seed's
directory is removed once scored unless it is not exact (or --keep). Exits 1 when a seed is
wrong or its run disagrees with the model. tests/t0703-random-recorder-jobs.sh runs a few seeds
in `make check`; `make recorder-jobs` more (RECORDER_JOBS=A:B).
"""
import argparse
import glob
import json
import os
import pickle
import random
import shlex
import shutil
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(TOP, "tests", "sim"))
from accuracy import fmt_verdict, parse_seeds, run_seeds, score  # noqa: E402
from answer import sccs  # noqa: E402

TRAIN_FAULTS = ("skip", "omit", "stall", "mismatch", "crash", "slow", "async_err", "hang_in")
GROUP = ("ar512", "ar128", "bcast")  # GROUPED: the coalesced collectives of a step, one group
SETTLE_MS = 1500  # a hang has formed by then (signal and trigger file), plus the slow ranks'


# ---------------------------------------------------------------- drawing the job from the seed

def draw(seed):
    rng = random.Random(seed)
    # drawn apart (added later), so that the other draws of a seed stay as they were
    ring = random.Random("ring-%d" % seed)
    job = {"seed": seed, "mode": "lifecycle" if rng.random() < 0.1 else "train",
           "nranks": rng.randint(2, 8), "steps": rng.randint(3, 8),
           "grouped": rng.random() < 0.5, "faults": [],
           "format": "json" if rng.random() < 0.25 else "pickle",
           "exit_dump": rng.random() < 0.5,
           "trigger": rng.choice(["timeout", "timeout", "signal", "trigger_file"]),
           "events": 1 if rng.random() < 0.15 else 2}
    job["ring"] = ring.choice([24, 40, 64]) if ring.random() < 0.15 else None
    if job["mode"] == "lifecycle":
        job.update(nranks=max(3, job["nranks"]), steps=3, grouped=False)
        if rng.random() < 0.7:  # the shrunk communicator leaves out the last rank
            job["faults"].append({"kind": "skip", "rank": rng.randrange(job["nranks"] - 1),
                                  "step": rng.randrange(3)})
        return job
    n = rng.choices([0, 1, 2], [0.15, 0.55, 0.3])[0]
    for i in range(n):
        taken = {f["rank"] for f in job["faults"]}
        # HANG_IN (inside init or destroy) is rarer and always alone
        kinds = [k for k in TRAIN_FAULTS if k not in {f["kind"] for f in job["faults"]} and
                 (k != "hang_in" or n == 1)]
        kind = rng.choice(kinds)
        if kind == "hang_in" and rng.random() < 0.5:
            kind = "skip"
        rank = rng.choice([r for r in range(job["nranks"]) if r not in taken])
        f = {"kind": kind, "rank": rank, "step": rng.randrange(job["steps"])}
        if kind == "mismatch":
            f["count"] = rng.choice([7, 512, 1000, 2048])
        elif kind == "slow":
            f["ms"] = rng.randint(40, 80)
            del f["step"]
        elif kind == "async_err":  # after this many collectives on the world communicator
            f["after"] = rng.randrange(job["steps"] * (3 if job["grouped"] else 1))
            del f["step"]
        elif kind == "hang_in":
            f["where"] = rng.choice(["init", "destroy"])
            del f["step"]
        job["faults"].append(f)
    return job


def fault(job, kind):
    return next((f for f in job["faults"] if f["kind"] == kind), None)


def slow_shows(job):
    """H1: a slow rank shows where it is late at 5 or more collectives: one a step, the step's
    first all_reduce (the operations after it start together on every stream)."""
    return job["steps"] >= 5 and not job["ring"]


def fault_class(job):
    kinds = sorted(("lifecycle_" if job["mode"] == "lifecycle" else "") +
                   (f["kind"] + "_" + f["where"] if f["kind"] == "hang_in" else f["kind"])
                   for f in job["faults"])
    if not kinds:
        return "lifecycle" if job["mode"] == "lifecycle" else "healthy"
    return kinds[0] if len(kinds) == 1 else "two:" + "+".join(kinds)


def describe(job):
    fs = []
    for f in job["faults"]:
        extra = "".join(" %s=%s" % (k, v) for k, v in sorted(f.items())
                        if k not in ("kind", "rank"))
        fs.append("%s rank %d%s" % (f["kind"], f["rank"], extra))
    return "seed %d: %s %d ranks, %d steps%s, %s, %s%s, trigger %s; %s" % (
        job["seed"], job["mode"], job["nranks"], job["steps"],
        " grouped" if job["grouped"] else "", job["format"],
        "exit dumps" if job["exit_dump"] else "no exit dumps",
        (", end events only" if job["events"] == 1 else "") +
        (", ring of %d" % job["ring"] if job["ring"] else ""), job["trigger"],
        "; ".join(fs) or "no fault")


# ---------------------------------------------------------------- the driver on the fakes, modelled

def members(job, comm, r):
    n = job["nranks"]
    return list(range(n)) if comm == "world" else [q for q in range(n) if q % 2 == r % 2]


def program(job, r, step):
    """The operations rank r's CPU gives its stream in one step (driver.c's one_step)."""
    n = job["nranks"]
    ops = []
    stall, mism, omit = fault(job, "stall"), fault(job, "mismatch"), fault(job, "omit")
    here = lambda f: f is not None and f["rank"] == r and f["step"] == step  # noqa: E731
    if here(stall):
        ops.append({"kind": "stall"})
    if not here(omit):
        ops.append({"kind": "coll", "comm": "world", "count": mism["count"] if here(mism)
                    else 1024, "label": (step, "all_reduce")})
    ops += [{"kind": "send", "comm": "world", "peer": (r + 1) % n},
            {"kind": "recv", "comm": "world", "peer": (r + n - 1) % n},
            {"kind": "coll", "comm": "half", "count": 64, "label": (step, "all_to_all")},
            {"kind": "coll", "comm": "half", "count": 32, "label": (step, "all_gather")}]
    if job["grouped"]:
        ops += [{"kind": "coll", "comm": "world", "count": 512, "label": (step, "ar512")},
                {"kind": "coll", "comm": "world", "count": 128, "label": (step, "ar128")},
                {"kind": "coll", "comm": "half", "count": 64, "label": (step, "bcast")}]
    return ops


def comm_key(comm, r):
    return "world" if comm == "world" else "half%d" % (r % 2)


def model(job):
    """Runs the train program on the fakes' semantics until nothing moves. Per rank: cpu (where
    its CPU ended: exited, stopped, dead, sync, hang_init, hang_destroy), ops (each issued
    operation with its state: completed, started, scheduled), dumped (whether a dump is
    written)."""
    n = job["nranks"]
    skip, crash, aerr, hang = (fault(job, k) for k in ("skip", "crash", "async_err", "hang_in"))
    cpu = ["run"] * n
    step = [0] * n
    ops = [[] for _ in range(n)]
    head = [0] * n
    arrive = {}  # (comm key, rank) -> (seq, count) of its latest collective reached
    issued = {}  # (comm key, rank) -> collectives issued
    sent, recvd = {}, {}
    broken = set()
    if hang is not None and hang["where"] == "init":
        for r in range(n):  # the others wait in ncclCommSplit for it: nothing is recorded
            cpu[r] = "hang_init" if r == hang["rank"] else "split"
    moved = True
    while moved:
        moved = False
        for r in range(n):
            if cpu[r] == "run" or (cpu[r] == "sync" and head[r] == len(ops[r])):
                s = step[r]
                if s == job["steps"]:
                    cpu[r] = "hang_destroy" if hang and hang["rank"] == r else "exited"
                elif crash and crash["rank"] == r and crash["step"] == s:
                    cpu[r] = "dead"
                elif skip and skip["rank"] == r and skip["step"] == s:
                    cpu[r] = "stopped"
                else:
                    for op in program(job, r, s):
                        op = dict(op, state="scheduled")
                        if op["kind"] == "coll":
                            k = (comm_key(op["comm"], r), r)
                            issued[k] = issued.get(k, 0) + 1
                            op["seq"] = issued[k]
                            if aerr and aerr["rank"] == r and op["comm"] == "world" and \
                                    op["seq"] > aerr["after"]:
                                broken.add(r)  # the fake reports the error once issued
                        elif op["kind"] in ("send", "recv"):
                            k = (op["kind"], r, op["peer"])
                            sent[k] = sent.get(k, 0) + 1
                            op["nth"] = sent[k]
                        ops[r].append(op)
                    step[r] += 1
                    cpu[r] = "sync"
                moved = True
            while head[r] < len(ops[r]):  # the stream
                op = ops[r][head[r]]
                if op["kind"] == "stall":
                    break
                if op["kind"] == "send":
                    k = (r, op["peer"])
                    recvd[k] = recvd.get(k, 0) + 1
                elif op["kind"] == "recv":
                    op["state"] = "started"
                    if recvd.get((op["peer"], r), 0) < op["nth"]:
                        break
                else:
                    op["state"] = "started"
                    key = comm_key(op["comm"], r)
                    if aerr and aerr["rank"] == r and op["comm"] == "world" and \
                            op["seq"] > aerr["after"]:
                        op["async_err"] = True
                        break
                    arrive[key, r] = (op["seq"], op["count"])
                    ok = True
                    for m in members(job, op["comm"], r):
                        a = arrive.get((key, m))
                        if a is None or a[0] < op["seq"] or (a[0] == op["seq"] and
                                                             a[1] != op["count"]):
                            ok = False
                    if not ok:
                        break
                op["state"] = "completed"
                head[r] += 1
                moved = True
    return {"cpu": cpu, "ops": ops, "head": head, "arrive": arrive, "broken": broken}


def sent_to(m, recv, r):
    """Whether the send a receive of rank r waits for was made."""
    peer = recv["peer"]
    return sum(op["kind"] == "send" and op["peer"] == r and op["state"] == "completed"
               for op in m["ops"][peer]) >= recv["nth"]


def went_past(m, omit):
    """Whether the rank that left a collective out issued a later call of that step."""
    return any(op.get("label", (-1,))[0] >= omit["step"] for op in m["ops"][omit["rank"]])


def dumped(job, m):
    """Who writes a dump: every live rank once a hang is seen (the watchdog, the signal, the
    trigger file), a dead one its fatal dump, an exited one only with FRTRACE_DUMP_ON_EXIT."""
    hang_seen = any(c in ("sync", "stopped", "hang_init", "split") for c in m["cpu"]) and \
        any(h < len(o) for h, o in zip(m["head"], m["ops"])) or \
        any(c in ("hang_init", "hang_destroy") for c in m["cpu"]) or bool(m["broken"])
    out = []
    for r, c in enumerate(m["cpu"]):
        if c == "dead":
            out.append(r)
        elif c == "exited":
            if job["exit_dump"] or not hang_seen:
                out.append(r)
        elif hang_seen:
            out.append(r)
    return out, hang_seen


# ---------------------------------------------------------------- the answer the dumps support

def expect(job, m, with_dump):
    """(expected, notes): status, culprit_ranks, alternatives, stragglers."""
    n, notes = job["nranks"], []
    exp = {"status": "ok", "culprit_ranks": [], "alternatives": [], "stragglers": []}
    known = set(with_dump)
    if job["mode"] == "lifecycle":
        skip = fault(job, "skip")
        if skip:
            exp.update(status="hang", culprit_ranks=[skip["rank"]])
            notes.append("W2: rank %d stopped on the shrunk communicator" % skip["rank"])
        return exp, notes
    hang = fault(job, "hang_in")
    if hang is not None and hang["where"] == "destroy" and job["trigger"] != "timeout":
        notes.append("rank %d inside ncclCommDestroy, not yet for the watchdog's timeout; "
                     "nothing recorded pending" % hang["rank"])
        return exp, notes
    if hang is not None:
        exp.update(status="hang", culprit_ranks=[hang["rank"]])
        notes.append("rank %d stuck inside ncclComm%s" % (
            hang["rank"], "InitRank (the others in ncclCommSplit)" if hang["where"] == "init"
            else "Destroy"))
        return exp, notes
    # E3: the recorded calls of one collective disagree. One collective: the same operation of
    # the same step, which the recorder numbers alike on every rank that issued the same ones
    # before it (a rank that left one out numbers the rest differently: it issued none of them)
    calls = {}
    for r in known:
        for op in m["ops"][r]:
            if op["kind"] == "coll":
                calls.setdefault((comm_key(op["comm"], r), op["label"]), []).append((r, op))
    odd = set()
    for key, cs in sorted(calls.items()):
        if len(cs) < 2 or len({op["count"] for _, op in cs}) == 1:
            continue
        sides = {}
        for r, op in cs:
            sides.setdefault(op["count"], []).append(r)
        big = sorted(len(v) for v in sides.values())
        if len(big) > 1 and big[-1] == big[-2]:
            odd.update(r for r, _ in cs)
        else:
            top = max(sides.values(), key=len)
            odd.update(r for r, _ in cs if r not in top)
        notes.append("E3: %s %s of step %d sizes %s" % (
            key[0], key[1][1], key[1][0], {c: sorted(v) for c, v in sides.items()}))
    if odd:
        exp.update(status="mismatch", culprit_ranks=sorted(odd))
        return exp, notes
    # W1: who waits for whom where nothing moves
    graph, sinks = {}, set()
    # what the dumps show of who reached what: every collective before a rank's oldest
    # unfinished operation, and that one where it started (FRTRACE_GPU_EVENTS=1: no start
    # events, so the oldest unfinished one, whether started or not)
    arrive = dict(m["arrive"])
    for r in range(n):
        h = m["head"][r]
        if job["events"] == 1 and h < len(m["ops"][r]) and m["ops"][r][h]["kind"] == "stall":
            nxt = next((op for op in m["ops"][r][h:] if op["kind"] == "coll"), None)
            if nxt is not None:
                arrive[comm_key(nxt["comm"], r), r] = (nxt["seq"], nxt["count"])
    pending = []
    for r in range(n):
        h = m["head"][r]
        if h == len(m["ops"][r]):
            continue
        op = m["ops"][r][h]
        pending.append(r)
        stalled = op["kind"] == "stall"
        if stalled:  # it waits in the operation its stream never started, as a rank would
            op = next(o for o in m["ops"][r][h:] if o["kind"] != "stall")
            if job["events"] == 1:
                notes.append("rank %d's stream stalled before %s, unseen without start events"
                             % (r, op.get("label", (0, op["kind"]))[1]))
        if op["kind"] == "send" or (op["kind"] == "recv" and stalled and sent_to(m, op, r)):
            sinks.add(r)  # nothing it waits for: a stalled stream (W2)
            notes.append("W2: rank %d's stream stalled" % r)
        if r in m["broken"]:
            continue  # below
        elif op["kind"] == "recv":
            graph[r] = [op["peer"]]
        else:
            key = comm_key(op["comm"], r)
            graph[r] = [q for q in members(job, op["comm"], r) if q != r and (
                arrive.get((key, q), (0, 0))[0] < op["seq"] or
                (op["comm"] == "world" and q in m["broken"]))]
            if not graph[r]:
                del graph[r]
                if stalled and job["events"] == 2:
                    sinks.add(r)  # every peer reached it, its GPU never started it (W2)
                    notes.append("W2: rank %d's stream stalled" % r)
            elif stalled and job["events"] == 2:
                notes.append("rank %d's stream stalled, waiting for %s there as well" % (
                    r, graph[r]))
    dead = [q for q in range(n) if m["cpu"][q] == "dead"]
    for r in sorted(m["broken"]):
        if r not in pending:
            pending.append(r)
        if dead:
            # ncclRemoteError is what a dead peer leaves its communicator's survivors: the
            # crash explains it, and the rank waits for the dead one
            graph[r] = dead
            notes.append("rank %d's communicator in error, beside the crash of %s" % (r, dead))
            continue
        # its communicator reported an error (the fake: once it issued one collective too many):
        # it takes no further part there, whatever its stream is at (ASYNC_ERR)
        sinks.add(r)
        notes.append("W2: rank %d's communicator in error" % r)
    if not graph and not sinks and pending:
        # every member is in its oldest unfinished collective, none is seen missing: stuck, no
        # culprit the dumps show; a hang where the watchdog's timeout says so, else work in
        # flight (the judgement call of a running job's snapshot)
        if job["trigger"] == "timeout":
            exp.update(status="hang")
            notes.append("stuck: ranks %s in flight, the watchdog's timeout" % pending)
        else:
            notes.append("ranks %s in flight, nothing shows a wait" % pending)
        return exp, notes
    if not graph and not sinks:
        slow = fault(job, "slow")
        if slow is not None and len(job["faults"]) == 1 and slow_shows(job):
            exp["stragglers"] = [slow["rank"]]
        return exp, notes
    seen = known
    known_graph = {v: [w for w in ws if w in seen] for v, ws in graph.items()}
    hidden = sorted({w for ws in graph.values() for w in ws if w not in seen})
    culprits = set(sinks)
    omit = fault(job, "omit")
    for c in sccs(sorted(set(graph) | {w for ws in known_graph.values() for w in ws}),
                  known_graph):
        comp = set(c)
        if any(w not in comp for v in c for w in known_graph.get(v, [])):
            continue  # not a sink
        if len(c) == 1 and c[0] not in graph:
            if c[0] not in sinks:
                notes.append("W2: rank %d is not waiting (%s)" % (c[0], m["cpu"][c[0]]))
            culprits.add(c[0])
        elif len(c) == 1 and not known_graph.get(c[0]):
            continue  # waits for ranks without a dump only
        else:
            breaker = [v for v in c if omit and v == omit["rank"]]
            notes.append("E11: deadlock of %s broken at %s" % (c, breaker or c))
            culprits.update(breaker or c)
    if omit is not None and omit["rank"] in seen and went_past(m, omit) and any(
            omit["rank"] in ws for v, ws in known_graph.items() if v != omit["rank"]):
        # E15: others wait for it in the collective it left out, and its dump records calls of
        # that step after it (the recorder's launch numbers show the place it left empty): a
        # root whatever else it waits for (seed 539: beside a rank stopped before that step)
        notes.append("E15: rank %d left out a collective others wait in, and went on" %
                     omit["rank"])
        culprits.add(omit["rank"])
    if culprits:
        exp["alternatives"] = [[u] for u in hidden]
        if hidden:
            notes.append("E1: no dump of %s, beside %s" % (hidden, sorted(culprits)))
    else:
        culprits = set(hidden)
        notes.append("E1: no dump of %s, waited for" % hidden)
    exp.update(status="hang", culprit_ranks=sorted(culprits))
    return exp, notes


# ---------------------------------------------------------------- running it

def env_of(job, expected_dumps, hang):
    env = {"NRANKS": job["nranks"], "STEPS": job["steps"], "FRTRACE_LOG": "warn",
           "FRTRACE_FORMAT": job["format"], "DEADLINE": 8,
           "DUMPS_EXPECTED": expected_dumps if hang else 0}
    if job["grouped"]:
        env["GROUPED"] = 1
    if job["events"] != 2:
        env["FRTRACE_GPU_EVENTS"] = job["events"]
    if job["ring"]:
        env["FRTRACE_BUFFER_SIZE"] = job["ring"]
    if job["exit_dump"] or not hang:
        env["FRTRACE_DUMP_ON_EXIT"] = 1
    slow_ms = 0
    for f in job["faults"]:
        k = f["kind"]
        if k == "slow":
            env["SLOW"] = "%d:%d" % (f["rank"], f["ms"])
            slow_ms = f["ms"] * job["steps"]
        elif k == "mismatch":
            env["MISMATCH"] = "%d@%d:%d" % (f["rank"], f["step"], f["count"])
        elif k == "async_err":
            env["ASYNC_ERR"] = "%d@%d" % (f["rank"], f["after"])
        elif k == "hang_in":
            env["HANG_IN"] = "%d@%s" % (f["rank"], f["where"])
        else:
            env[k.upper()] = "%d@%d" % (f["rank"], f["step"])
    settle = SETTLE_MS + slow_ms
    if job["trigger"] == "timeout" or not hang:
        env["FRTRACE_TIMEOUT_SEC"] = 1
    else:
        env["FRTRACE_TIMEOUT_SEC"] = 60
        if job["trigger"] == "signal":
            env["SIGNAL_AFTER_MS"] = settle // 10 * 10
    return {k: str(v) for k, v in env.items()}, settle


def run_job(args, job, out, expected_dumps, hang, early=False):
    """Runs the driver in out/ (dumps in out/dumps); returns (driver output, seconds, command)."""
    env, settle = env_of(job, expected_dumps, hang)
    if early:
        # an async error is dumped at once, perhaps before the other ranks stopped moving: the
        # dumps that count are the later ones (the timeout, the signal, the trigger file)
        env.update(DUMPS_EXPECTED="0", DEADLINE=str(-(-(settle + 1500) // 1000)))
    tag = "rrj%d-%d" % (os.getpid(), job["seed"])
    env.update(FRTRACE_DUMP_DIR=os.path.join(out, "dumps"),
               FRTRACE_TRIGGER_FILE=os.path.join(out, "trigger"), FAKE_SHM_TAG=tag)
    so = os.path.join(args.build, "libfrtrace-recorder.so")
    driver = os.path.join(args.build, "fakes", "frtrace-driver")
    argv = [driver] + (["lifecycle"] if job["mode"] == "lifecycle" else [])
    shown = {k: v for k, v in env.items() if k not in ("FAKE_SHM_TAG",)}
    cmd = "env %s LD_PRELOAD=%s %s" % (" ".join("%s=%s" % (k, shlex.quote(v)) for k, v in
                                                 sorted(shown.items())), so, " ".join(argv))
    t0 = time.time()
    p = subprocess.Popen(argv, cwd=out, env=dict(os.environ, LD_PRELOAD=so, **env),
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         start_new_session=True)
    if hang and job["trigger"] == "trigger_file":
        try:
            p.wait(settle / 1000)
        except subprocess.TimeoutExpired:
            open(os.path.join(out, "trigger"), "w").close()
    try:
        so_out, so_err = p.communicate(timeout=40)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        so_out, so_err = p.communicate()
    for f in glob.glob("/dev/shm/frtrace-fake-%s-*" % tag):
        os.unlink(f)
    return so_out + so_err, time.time() - t0, cmd


def read_dump(path):
    with open(path, "rb") as f:
        raw = f.read()
    return json.loads(raw) if raw[:1] == b"{" else pickle.loads(raw)


def check_model(job, m, with_dump, out):
    """Where the dumps disagree with the model: a list of differences (empty: they agree)."""
    diffs = []
    files = sorted(os.listdir(os.path.join(out, "dumps"))) if \
        os.path.isdir(os.path.join(out, "dumps")) else []
    ranks = sorted(int(f[5:]) for f in files if f.startswith("rank_") and f[5:].isdigit())
    if ranks != with_dump:
        diffs.append("dumps of ranks %s, the model says %s" % (ranks, with_dump))
    if job["mode"] == "lifecycle":
        return diffs
    for r in ranks:
        try:
            d = read_dump(os.path.join(out, "dumps", "rank_%d" % r))
        except Exception as e:  # the recorder wrote something unreadable: say so
            diffs.append("rank %d: unreadable dump (%r)" % (r, e))
            continue
        es = [e for e in d.get("entries", []) if e.get("profiling_name") != "nccl:coalesced"]
        mo = [op for op in m["ops"][r] if op["kind"] != "stall"]
        if job["ring"]:  # the ring keeps the newest entries, end markers of groups included
            marked = []
            for op in mo:
                marked.append(op)
                if op["kind"] == "recv" or op.get("label", (0, ""))[1] == "bcast":
                    marked.append(None)
            mo = [op for op in marked[-job["ring"]:] if op is not None]
        got = (len(es), sum(e.get("state") == "completed" for e in es))
        # a send/recv batch completes as one (its events sit around the group's end)
        want = (len(mo), sum(op["state"] == "completed" and (
            op["kind"] != "send" or i + 1 == len(mo) or mo[i + 1]["state"] == "completed") and
            (op.get("label", (0, ""))[1] not in GROUP or all(
                o["state"] == "completed" for o in mo if o.get("label", (0, ""))[1] in GROUP
                and o["label"][0] == op["label"][0])) for i, op in enumerate(mo)))
        # the same for a coalesced group;
        # the fatal dump writes the states of the poller's last look (every 50 ms), never
        # newer: a rank that crashed may show fewer completed
        fatal = str(d.get("frtrace", {}).get("trigger", "")).startswith("fatal")
        if got[0] != want[0] or (got[1] > want[1] if fatal else got[1] != want[1]):
            diffs.append("rank %d: %d entries, %d completed; the model %d, %d" % (r, *got,
                                                                                  *want))
    return diffs


def run_seed(args, seed):
    job = draw(seed)
    out = os.path.abspath(os.path.join(args.workdir, "seed-%d" % seed))
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    if job["mode"] == "lifecycle":
        m = None
        skip = fault(job, "skip")
        n = job["nranks"]
        hang = skip is not None
        with_dump = [r for r in range(n) if not hang or r < n - 1 or job["exit_dump"]]
    else:
        m = model(job)
        with_dump, hang = dumped(job, m)
    exp, notes = expect(job, m, with_dump)
    driver_out, job_s, cmd = run_job(args, job, out, len(with_dump), hang,
                                     bool(m and m["broken"]))
    diffs = check_model(job, m, with_dump, out)
    db = os.path.join(out, "db.json")
    with open(db, "w") as f:
        run = subprocess.run([args.frtrace, "-f", "json", os.path.join(out, "dumps")],
                             stdout=f, stderr=subprocess.PIPE, text=True, timeout=120)
    try:
        with open(db) as f:
            d = json.load(f)
        got = dict(d.get("verdict", {}))
        got["stragglers"] = d.get("stragglers", [])
    except ValueError:
        got = None
    cls = fault_class(job)
    if diffs:
        result, why = "model", "; ".join(diffs)
    else:
        # stragglers are scored in healthy jobs and where a lone SLOW rank shows (H1)
        result, why = score(exp, got, run.returncode, "healthy" if cls == "healthy" else
                            "slow" if cls == "slow" and slow_shows(job) else
                            "slow_unscored" if cls == "slow" else cls,
                            len(with_dump))
    row = {"seed": seed, "class": cls, "result": result, "why": why, "job": describe(job),
           "expected": exp, "got": got, "notes": notes, "job_s": job_s, "dir": out,
           "command": "cd %s && rm -rf dumps trigger && %s && %s -f json dumps" % (
               out, cmd, args.frtrace), "driver": driver_out.strip()[-400:]}
    if result == "exact" and not args.keep:
        shutil.rmtree(out, ignore_errors=True)
    return row


def report(args, rows, elapsed):
    print("%-26s %6s %6s %9s %6s %6s" % ("class", "jobs", "exact", "ambiguous", "wrong",
                                         "model"))
    tot = [0] * 5
    for c in sorted({r["class"] for r in rows}):
        rs = [r for r in rows if r["class"] == c]
        k = [len(rs)] + [sum(r["result"] == x for r in rs) for x in ("exact", "ambiguous",
                                                                      "wrong", "model")]
        tot = [a + b for a, b in zip(tot, k)]
        print("%-26s %6d %6d %9d %6d %6d" % (c, *k))
    print("%-26s %6d %6d %9d %6d %6d" % ("total", *tot))
    print("%d recorder jobs in %.0f s, one at a time" % (len(rows), elapsed))
    for r in sorted((r for r in rows if r["result"] != "exact"), key=lambda r: r["seed"]):
        print("%s %s seed %d: expected %s, got %s%s\n    %s%s\n    python3 %s --seeds %d:%d "
              "--frtrace %s --keep\n    %s" % (
                  r["result"], r["class"], r["seed"], fmt_verdict(r["expected"]),
                  fmt_verdict(r["got"]), (" (%s)" % r["why"]) if r["why"] else "", r["job"],
                  ("\n    notes: " + "; ".join(r["notes"])) if r["notes"] else "",
                  os.path.relpath(os.path.abspath(__file__)), r["seed"], r["seed"] + 1,
                  args.frtrace, r["command"]))
    return tot[3] + tot[4]


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--seeds", default="0:20")
    p.add_argument("--seed", type=int, help="with --describe: the job of this seed")
    p.add_argument("--describe", action="store_true", help="print the drawn job and answer")
    p.add_argument("--frtrace", default="build/frtrace")
    p.add_argument("--build", default=None, help="the build folder (default: frtrace's)")
    p.add_argument("--workdir", default=None, help="default: BUILD/recorder-jobs")
    p.add_argument("--json", help="write every seed's row to this file")
    p.add_argument("--keep", action="store_true", help="keep the dumps of exact seeds too")
    args = p.parse_args()
    if args.describe:
        job = draw(args.seed if args.seed is not None else parse_seeds(args.seeds)[0])
        m = model(job) if job["mode"] == "train" else None
        with_dump, hang = dumped(job, m) if m else (list(range(job["nranks"])), True)
        exp, notes = expect(job, m, with_dump)
        print(describe(job))
        print("expected %s; dumps of %s%s" % (fmt_verdict(exp), with_dump,
                                               "".join("\n  " + x for x in notes)))
        return
    args.frtrace = os.path.abspath(args.frtrace)
    args.build = os.path.abspath(args.build or os.path.dirname(args.frtrace))
    args.workdir = args.workdir or os.path.join(args.build, "recorder-jobs")
    for need in ("libfrtrace-recorder.so", "fakes/frtrace-driver"):
        if not os.path.exists(os.path.join(args.build, need)):
            sys.exit("random_rec_jobs.py: %s is not built" % os.path.join(args.build, need))
    os.makedirs(args.workdir, exist_ok=True)
    t0 = time.time()
    rows = run_seeds(parse_seeds(args.seeds), lambda seed: run_seed(args, seed), args.json, 9,
                     "%.1f")
    print()
    bad = report(args, rows, time.time() - t0)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
