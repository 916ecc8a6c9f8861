#!/usr/bin/env python3
"""A real multi-process PyTorch gloo job with one injected fault, dumped by torch's own Flight
Recorder: what `make interop` runs to see what today's PyTorch writes.

    gloo_job.py FAULT OUTDIR [--ranks N] [--format pickle|json] [--stack] [--only-active]

Eight ranks (by default) form Megatron-like groups besides the default one: tensor parallel
pairs (TP), data parallel groups (DP) and pipeline stages (PP) joined by send/recv. Each rank
runs a few training steps of tiny tensors; the fault (below) strikes at STEP. The ddp_* faults
train a small model under DistributedDataParallel instead (async bucket all_reduces), and
a2a_size runs all_to_alls on the default group alone, each on the ranks RANKS gives. Every rank runs a
dumper thread that waits for the trigger file the parent creates once the job is done or stuck,
then writes torch's own dump (`_dump_fr_trace` or `_dump_fr_trace_json`) as OUTDIR/rank_<r>
(`.json` for JSON), and the parent ends the job. What each fault should make the analyzer say
is in FAULTS: (status, culprit ranks).
"""
import argparse
import os
import shutil
import subprocess
import sys
import threading
import time

STEPS, STEP = 6, 3
# fault -> (what happens at STEP, expected verdict, expected culprit ranks)
# and the slow ranks (stragglers) each fault's dumps must show; none for every other fault
FAULTS = {
    "healthy": ("nothing", "ok", []),
    "stuck_cpu": ("rank 5 sleeps in Python before its TP all_reduce", "hang", [5]),
    "skip": ("rank 2 skips its DP all_reduce and goes on to the default group", "hang", [2]),
    "size": ("rank 3 all_reduces 5 elements on the default group where the others have 4",
             "mismatch", [3]),
    "dtype": ("rank 6 all_reduces float64 on the default group where the others have float32",
              "mismatch", [6]),
    "size_pair": ("rank 3 all_reduces 9 elements on TP where its peer has 8: the peer aborts",
                  "hang", [2]),
    "type": ("rank 1 all_gathers on the default group where the others all_reduce", "mismatch", [1]),
    "exit": ("rank 4 exits", "hang", [4]),
    "two_stuck": ("ranks 1 and 6 sleep before their DP all_reduce", "hang", [1, 6]),
    "slow": ("rank 3 arrives 60 ms late at every collective; nothing hangs", "ok", []),
    "slow_two": ("ranks 1 and 4 start every step 60 ms late; nothing hangs", "ok", []),
    "slow_dp": ("rank 6 sleeps 60 ms before its DP all_reduce, mid-step; nothing hangs", "ok", []),
    "slow_world": ("rank 5 sleeps 60 ms before the first of three default-group collectives a "
                   "step (late at one of three); nothing hangs", "ok", []),
    "stuck_cpu_p2p_world": ("rank 5 sleeps before its TP all_reduce; pipeline send/recv on the "
                            "default group", "hang", [5]),
    # DistributedDataParallel: bucketed all_reduces that return at once (async), a loaded machine
    "ddp_healthy": ("DDP training of a small MLP, 8 ranks on however few cores: ranks late by "
                    "tens of ms at random; nothing hangs", "ok", []),
    "ddp_slow": ("DDP on 4 ranks, rank 2 sleeps 50 ms before every forward; nothing hangs", "ok",
                 []),
    "a2a_size": ("rank 1 all_to_alls 12 elements where its 3 peers have 8: the peers abort, only "
                 "rank 1 dumps (inconclusive: most ranks left no dump)", "inconclusive", []),
}
RANKS = {"ddp_slow": 4, "a2a_size": 4}  # faults run on other than 8 ranks


def make_groups(dist, world):
    """Megatron's layout for TP=2, PP=2, DP=world/4: every rank creates every group, in order."""
    tp, pp = 2, 2
    dp = world // (tp * pp)
    groups = {}
    for start in range(0, world, tp):
        g = dist.new_group(list(range(start, start + tp)), group_desc="TENSOR_MODEL_PARALLEL_GROUP")
        for r in range(start, start + tp):
            groups.setdefault(r, {})["tp"] = g
    per_stage = world // pp
    for stage in range(pp):
        for t in range(tp):
            members = [stage * per_stage + d * tp + t for d in range(dp)]
            g = dist.new_group(members)  # no desc: recorded as "undefined"
            for r in members:
                groups[r]["dp"] = g
    for first in range(per_stage):
        members = [first + s * per_stage for s in range(pp)]
        g = dist.new_group(members, group_desc="PIPELINE_MODEL_PARALLEL_GROUP")
        for r in members:
            groups[r]["pp"] = (g, members)
    return groups


def dumper(args, rank, trigger):
    import torch.distributed as _  # noqa: F401  (loads the c10d bindings)
    from torch._C import _distributed_c10d as c10d
    while not os.path.exists(trigger):
        time.sleep(0.02)
    if args.format == "json":
        data = c10d._dump_fr_trace_json(includeCollectives=True, onlyActive=args.only_active)
        path, mode = os.path.join(args.outdir, f"rank_{rank}.json"), "wb"
    else:
        data = c10d._dump_fr_trace(includeCollectives=True, includeStackTraces=args.stack,
                                   onlyActive=args.only_active)
        path, mode = os.path.join(args.outdir, f"rank_{rank}"), "wb"
    with open(path + ".tmp", mode) as f:
        f.write(data)
    os.rename(path + ".tmp", path)
    os._exit(0)


SLOW = {"slow": [3], "slow_two": [1, 4], "slow_dp": [6], "slow_world": [5], "ddp_slow": [2]}
SLOW_S = 0.06


def progress(outdir, rank, what):
    """Tells the parent how far this rank got; it triggers the dump once nobody moves."""
    with open(os.path.join(outdir, f".progress_{rank}"), "a") as f:
        f.write(what + "\n")


def step(dist, torch, fault, rank, world, groups, i):
    mine = groups[rank]
    if (fault == "slow" and rank == 3) or (fault == "slow_two" and rank in (1, 4)):
        time.sleep(SLOW_S)  # late to its TP all_reduce, and so to everything after it
    x = torch.ones(8)
    at_fault = i == STEP
    if at_fault and fault.startswith("stuck_cpu") and rank == 5:
        time.sleep(3600)
    if at_fault and fault == "size_pair" and rank == 3:
        x = torch.ones(9)
    dist.all_reduce(x, group=mine["tp"])
    pp_group, pp_members = mine["pp"]
    p2p_group = None if fault.endswith("_p2p_world") else pp_group  # None: the default group
    if rank == pp_members[0]:
        dist.send(torch.ones(4), dst=pp_members[1], group=p2p_group)
    else:
        dist.recv(torch.empty(4), src=pp_members[0], group=p2p_group)
    dist.all_reduce(torch.ones(2), group=pp_group)  # the embedding sync of first and last stage
    if at_fault and fault == "two_stuck" and rank in (1, 6):
        time.sleep(3600)
    if at_fault and fault == "exit" and rank == 4:
        os._exit(3)
    y = torch.ones(16)
    if fault == "slow_dp" and rank == 6:
        time.sleep(SLOW_S)
    if not (at_fault and fault == "skip" and rank == 2):
        dist.all_reduce(y, group=mine["dp"])
    z = torch.ones(5 if (at_fault and fault == "size" and rank == 3) else 4,
                   dtype=torch.float64 if (at_fault and fault == "dtype" and rank == 6)
                   else torch.float32)
    if at_fault and fault == "type" and rank == 1:
        dist.all_gather([torch.empty(4) for _ in range(world)], z)
    else:
        if fault == "slow_world" and rank == 5:
            time.sleep(SLOW_S)
        dist.all_reduce(z)
    if fault == "slow_world":  # two more default-group collectives, where nobody is late
        dist.broadcast(torch.ones(3), src=0)
        dist.all_reduce(torch.ones(3))


def ddp_steps(torch, dist, fault, rank, outdir):
    """20 steps of a small MLP under DistributedDataParallel: its gradient buckets are all_reduced
    asynchronously while backward runs (bucket_cap_mb small, so several buckets a step)."""
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(64, 256), torch.nn.ReLU(),
                                torch.nn.Linear(256, 256), torch.nn.ReLU(), torch.nn.Linear(256, 10))
    ddp = torch.nn.parallel.DistributedDataParallel(model, bucket_cap_mb=0.1)
    opt = torch.optim.SGD(ddp.parameters(), lr=0.01)
    for i in range(20):
        progress(outdir, rank, f"step {i}")
        if fault == "ddp_slow" and rank == 2:
            time.sleep(0.05)  # a slow data loader
        loss = ddp(torch.randn(32, 64)).sum()
        opt.zero_grad()
        loss.backward()
        opt.step()


def a2a_steps(torch, dist, rank, world, outdir):
    for i in range(5):
        progress(outdir, rank, f"step {i}")
        n = world * (3 if (rank == 1 and i == 3) else 2)
        dist.all_to_all_single(torch.empty(n), torch.ones(n))
        dist.all_reduce(torch.ones(4))


def worker(args, rank, world, trigger):
    os.environ.update(RANK=str(rank),
                      WORLD_SIZE=str(world), TORCH_FR_BUFFER_SIZE="2000")
    if args.fault == "ddp_slow":  # one compute thread per rank, as torchrun sets it
        os.environ["OMP_NUM_THREADS"] = "1"
    import torch
    import torch.distributed as dist
    threading.Thread(target=dumper, args=(args, rank, trigger), daemon=True).start()
    import datetime
    store = "file://" + os.path.abspath(os.path.join(args.outdir, ".store"))
    dist.init_process_group("gloo", init_method=store, rank=rank, world_size=world,
                            timeout=datetime.timedelta(seconds=600))
    own_loop = args.fault.startswith(("ddp", "a2a"))  # jobs of their own shape, no subgroups
    groups = None if own_loop else make_groups(dist, world)
    try:
        if args.fault.startswith("ddp"):
            ddp_steps(torch, dist, args.fault, rank, args.outdir)
        elif args.fault == "a2a_size":
            a2a_steps(torch, dist, rank, world, args.outdir)
        for i in range(STEPS if groups else 0):
            progress(args.outdir, rank, f"step {i}")
            step(dist, torch, args.fault, rank, world, groups, i)
        progress(args.outdir, rank, "done")
    except RuntimeError as e:  # a peer died or aborted: stay, as a hung rank would, and dump
        progress(args.outdir, rank, f"error: {str(e).splitlines()[0][:200]}")
    print(f"rank {rank}: all steps done", flush=True)
    time.sleep(3600)  # the dumper thread ends the process


# How long the parent waits, after the trigger, for every rank to write its dump and exit before
# it kills the rest: a dump with stack traces symbolizes every frame, and on a machine loaded
# many times over that took 20 to 33 s (random seeds 20, 21, 24 at load 40-50: with 30 s, 5 of
# 8 and 4 of 6 ranks were killed before they wrote, and the job became one of lost dumps). A
# rank that writes exits at once, so the wait costs nothing where dumps are quick.
DUMP_WAIT_S = 180


def reap(procs, seconds):
    """Waits for the workers, `seconds` in all, then kills those still running."""
    deadline = time.time() + seconds
    for p in procs:
        try:
            p.wait(timeout=max(0.1, deadline - time.time()))
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


# CPU seconds a worker may burn in a settle window and still count as still: a rank blocked in
# gloo or asleep uses next to none (its dumper thread polls the trigger file), a rank computing
# uses a share of a core, even on a machine loaded many times over
BUSY_CPU_S = 0.1


def cpu_seconds(procs):
    """Each worker's CPU time so far (user + system, all its threads); 0 once it has exited."""
    out = []
    for p in procs:
        try:
            with open(f"/proc/{p.pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            out.append((int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK"))
        except (OSError, IndexError, ValueError):
            out.append(0.0)
    return out


def still_busy(procs, cpu_then):
    """Whether a worker computed in the window since cpu_then (cpu_seconds then): a job whose
    ranks say nothing for a while may still be computing, when many processes share few cores.
    Dumping it then would show a healthy rank as one that never joined."""
    return any(now - then > BUSY_CPU_S for now, then in zip(cpu_seconds(procs), cpu_then))


def job_state(args, procs):
    """What every rank has said so far, and which processes still run."""
    said = []
    for r in range(args.ranks):
        try:
            with open(os.path.join(args.outdir, f".progress_{r}")) as f:
                said.append(f.read())
        except FileNotFoundError:
            said.append(None)
    return said, [p.poll() for p in procs]


def wait_until_still(args, procs):
    """Returns once every rank has started (or died) and nothing moved for args.settle s: no
    rank said anything new and none computed (still_busy)."""
    last, since, deadline = None, time.time(), time.time() + 180
    cpu_then = cpu_seconds(procs)
    while time.time() < deadline:
        state = job_state(args, procs)
        started = all(s is not None or code is not None for s, code in zip(*state))
        if state != last:
            last, since, cpu_then = state, time.time(), cpu_seconds(procs)
        elif started and time.time() - since >= args.settle:
            if not still_busy(procs, cpu_then):
                return
            since, cpu_then = time.time(), cpu_seconds(procs)
        time.sleep(0.1)


def run_parent(args):
    if os.path.isdir(args.outdir):
        shutil.rmtree(args.outdir)
    os.makedirs(args.outdir)
    trigger = os.path.join(args.outdir, ".trigger")
    if os.path.exists(trigger):
        os.unlink(trigger)
    log = open(os.path.join(args.outdir, ".log"), "w")
    procs = [subprocess.Popen([sys.executable, __file__, args.fault, args.outdir, "--worker",
                               str(r), "--ranks", str(args.ranks),
                               "--format", args.format]
                              + (["--stack"] if args.stack else [])
                              + (["--only-active"] if args.only_active else []),
                              stdout=log, stderr=log)
             for r in range(args.ranks)]
    wait_until_still(args, procs)
    open(trigger, "w").close()
    reap(procs, DUMP_WAIT_S)
    os.unlink(trigger)
    suffix = ".json" if args.format == "json" else ""
    written = [r for r in range(args.ranks)
               if os.path.exists(os.path.join(args.outdir, f"rank_{r}{suffix}"))]
    print(f"{args.fault}: {len(written)} of {args.ranks} ranks dumped ({FAULTS[args.fault][0]})")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("fault", choices=sorted(FAULTS))
    p.add_argument("outdir")
    p.add_argument("--ranks", type=int, default=None, help="8, or the fault's own (RANKS)")
    p.add_argument("--format", choices=["pickle", "json"], default="pickle")
    p.add_argument("--stack", action="store_true")
    p.add_argument("--only-active", action="store_true")
    p.add_argument("--settle", type=float, default=3.0,
                   help="seconds without progress before the dump trigger")
    p.add_argument("--worker", type=int, default=None)
    args = p.parse_args()
    if args.ranks is None:
        args.ranks = RANKS.get(args.fault, 8)
    if args.worker is None:
        run_parent(args)
    else:
        trigger = os.path.join(args.outdir, ".trigger")
        worker(args, args.worker, args.ranks, trigger)


if __name__ == "__main__":
    main()
