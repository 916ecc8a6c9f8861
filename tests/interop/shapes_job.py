#!/usr/bin/env python3
"""Real multi-process PyTorch gloo jobs of shapes gloo_job.py does not have, with one fault (or
two) each, dumped by torch's own Flight Recorder: what `make interop` runs so that the verdict is
judged on jobs nobody tuned it for.

    shapes_job.py CASE OUTDIR [--format pickle|json|mixed] [--only-active]

Shapes (each rank creates every group, in the same order, as real programs do):
  mesh   a 2-D DeviceMesh (init_device_mesh("cpu", (dp, tp))): tp all_reduces, dp all_reduces,
         a checkpoint barrier on the default group every other step;
  zero   ZeRO/FSDP-like shard groups of SHARD ranks: per step an all_gather of parameters and a
         reduce_scatter of gradients in the shard group, an all_reduce across the replicas;
  pipe   pipeline pairs that run send/recv and all_reduce on the same group (stage 0 sends its
         activations to stage 1, then both all_reduce a shared embedding), plus a data-parallel
         all_reduce across the pairs.
A case (CASES) is a shape, a fault and the verdict the evidence supports: (status, culprits).
Every rank runs a dumper thread that waits for a trigger file and writes torch's own dump
(`_dump_fr_trace` or `_dump_fr_trace_json`; with --format mixed, odd ranks write JSON) as
OUTDIR/rank_<r>[.json]. A rank whose dump is taken early (`early`) dumps when the parent tells it,
mid-run, and goes on; the parent triggers everyone else once nothing moves.
"""
import argparse
import os
import shutil
import signal
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from gloo_job import DUMP_WAIT_S, cpu_seconds, job_state, progress, reap, still_busy  # noqa: E402

STEPS, STEP = 6, 3
SHARD = 6
# case -> (shape, ranks, fault, description, status, culprits)
CASES = {
    "mesh_healthy": ("mesh", 8, "none", "2x4 DeviceMesh, healthy", "ok", []),
    "mesh_sigkill": ("mesh", 8, "sigkill:7",
                     "rank 7 is SIGKILLed before its tp all_reduce: no dump", "hang", [7]),
    "mesh_stuck_early": ("mesh", 8, "stuck:2,early:5",
                         "rank 2 sleeps before its tp all_reduce; rank 5 dumped seconds early",
                         "hang", [2]),
    "mesh_early": ("mesh", 8, "stuck_dp:7,early:5",
                   "rank 7 sleeps before its dp all_reduce; rank 5, which waits in the "
                   "checkpoint barrier with the others, dumped seconds early", "hang", [7]),
    "mesh_two_stuck": ("mesh", 8, "stuck:1,stuck_late:6",
                       "rank 1 stops before its tp all_reduce at step 3, rank 6 before its "
                       "dp all_reduce at step 2: two independent stuck ranks", "hang", [1, 6]),
    "mesh_barrier_skip": ("mesh", 8, "skip_barrier:3",
                          "rank 3 skips the checkpoint barrier and goes on", "hang", [3]),
    "zero_healthy": ("zero", 12, "none", "ZeRO shard groups of 6, healthy", "ok", []),
    "zero_bucket": ("zero", 12, "bucket:10",
                    "rank 10 all_gathers a bucket of another size in its shard group",
                    "mismatch", [10]),
    "zero_sigkill": ("zero", 12, "sigkill:4",
                     "rank 4 is SIGKILLed before its all_gather: no dump", "hang", [4]),
    "zero_kill_mid": ("zero", 12, "kill_mid:9",
                      "rank 9 is killed while inside a reduce_scatter its peers wait in "
                      "(rank 11 is late to it)", "hang", [9]),
    "zero_dtype": ("zero", 12, "dtype:3",
                   "rank 3 reduce_scatters float64 in its shard group", "mismatch", [3]),
    "pipe_healthy": ("pipe", 8, "none", "pipeline pairs, healthy", "ok", []),
    "pipe_skip_dp": ("pipe", 8, "skip_dp:2",
                     "rank 2 skips its data-parallel all_reduce (send/recv on the same group)",
                     "hang", [2]),
    "pipe_no_send": ("pipe", 8, "no_send:4",
                     "rank 4 (stage 0) never sends its activations at step 3 and goes on; its "
                     "stage-1 peer 5 waits in recv", "hang", []),
    "pipe_two_stuck": ("pipe", 8, "stuck:0,stuck2:6",
                       "ranks 0 and 6 sleep before their sends: 0 or 1, and 6 or 7 (gloo records "
                       "no send/recv)", "hang", []),
    "pipe_stuck": ("pipe", 8, "stuck:6",
                   "rank 6 sleeps in Python before its send: rank 6 never sent, or its peer 7 "
                   "never received", "hang", []),
}


# The explanations the dumps allow where they cannot tell the root cause (gloo records no
# send/recv): verdict.alternatives must hold each of these rank sets.
ALTERNATIVES = {
    "pipe_no_send": [[4], [5]],
    "pipe_stuck": [[6], [7]],
    "pipe_two_stuck": [[0, 6], [1, 6], [0, 7], [1, 7]],
}


def stage_groups(dist, world, shape):
    """Every group of the shape, created by every rank in the same order. Returns per rank a
    dict of role -> (group, members)."""
    mine = {r: {} for r in range(world)}

    def add(role, members, desc=None):
        g = dist.new_group(members, group_desc=desc) if desc else dist.new_group(members)
        for r in members:
            mine[r][role] = (g, members)

    if shape == "mesh":
        from torch.distributed.device_mesh import init_device_mesh
        dp, tp = 2, world // 2
        mesh = init_device_mesh("cpu", (dp, tp), mesh_dim_names=("dp", "tp"))
        rank = dist.get_rank()
        tp_g, dp_g = mesh.get_group("tp"), mesh.get_group("dp")
        mine[rank]["tp"] = (tp_g, dist.get_process_group_ranks(tp_g))
        mine[rank]["dp"] = (dp_g, dist.get_process_group_ranks(dp_g))
    elif shape == "zero":
        for start in range(0, world, SHARD):
            add("shard", list(range(start, start + SHARD)), "ZERO_SHARD_GROUP")
        for i in range(SHARD):
            add("replica", list(range(i, world, SHARD)), "ZERO_REPLICA_GROUP")
    elif shape == "pipe":
        for start in range(0, world, 2):
            add("pp", [start, start + 1], "PIPELINE_MODEL_PARALLEL_GROUP")
        for stage in range(2):
            add("dp", list(range(stage, world, 2)), "DATA_PARALLEL_GROUP")
    return mine


def faults_of(spec):
    """"stuck:2,early:5" -> {"stuck": 2, "early": 5}"""
    out = {}
    for part in spec.split(","):
        if part != "none":
            kind, rank = part.split(":")
            out[kind] = int(rank)
    return out


def kill_self_later(seconds):
    threading.Timer(seconds, lambda: os.kill(os.getpid(), signal.SIGKILL)).start()


def mesh_step(dist, torch, f, rank, g, i):
    at = i == STEP
    if at and f.get("sigkill") == rank:
        os.kill(os.getpid(), signal.SIGKILL)
    if at and f.get("stuck") == rank:
        time.sleep(3600)
    dist.all_reduce(torch.ones(8), group=g["tp"][0])
    if (i == STEP - 1 and f.get("stuck_late") == rank) or (at and f.get("stuck_dp") == rank):
        time.sleep(3600)
    dist.all_reduce(torch.ones(16), group=g["dp"][0])
    if i % 2 == 1 and not (at and f.get("skip_barrier") == rank):
        dist.barrier()  # the checkpoint's barrier


def zero_step(dist, torch, f, rank, g, i):
    at = i == STEP
    shard, members = g["shard"]
    n = len(members)
    if at and f.get("sigkill") == rank:
        os.kill(os.getpid(), signal.SIGKILL)
    bucket = 5 if (at and f.get("bucket") == rank) else 4
    params = torch.empty(n * bucket)
    dist.all_gather_into_tensor(params, torch.ones(bucket), group=shard)
    if at and f.get("kill_mid") is not None:
        victim = f["kill_mid"]
        if rank == victim:
            kill_self_later(1.0)  # dies inside the reduce_scatter below
        elif rank == members[-1] and victim in members:
            time.sleep(3.0)  # late: the victim is inside the collective when it dies
    dtype = torch.float64 if (at and f.get("dtype") == rank) else torch.float32
    grads = torch.ones(n * 4, dtype=dtype)
    dist.reduce_scatter_tensor(torch.empty(4, dtype=dtype), grads, group=shard)
    dist.all_reduce(torch.ones(4), group=g["replica"][0])


def pipe_step(dist, torch, f, rank, g, i):
    at = i == STEP
    pp, (first, second) = g["pp"]
    if at and rank in (f.get("stuck"), f.get("stuck2")):
        time.sleep(3600)
    if rank == first:
        if not (at and f.get("no_send") == rank):
            dist.send(torch.ones(4), dst=second, group=pp)
    else:
        dist.recv(torch.empty(4), src=first, group=pp)
    dist.all_reduce(torch.ones(2), group=pp)  # the shared embedding
    if not (at and f.get("skip_dp") == rank):
        dist.all_reduce(torch.ones(16), group=g["dp"][0])


STEP_OF = {"mesh": mesh_step, "zero": zero_step, "pipe": pipe_step}


def dump_name(args, rank):
    json_dump = args.format == "json" or (args.format == "mixed" and rank % 2 == 1)
    return os.path.join(args.outdir, f"rank_{rank}" + (".json" if json_dump else "")), json_dump


def write_dump(args, rank):
    from torch._C import _distributed_c10d as c10d
    path, json_dump = dump_name(args, rank)
    if json_dump:
        data = c10d._dump_fr_trace_json(includeCollectives=True, onlyActive=args.only_active)
    else:
        data = c10d._dump_fr_trace(includeCollectives=True, includeStackTraces=False,
                                   onlyActive=args.only_active)
    with open(path + ".tmp", "wb") as out:
        out.write(data)
    os.rename(path + ".tmp", path)


def dumper(args, rank):
    import torch.distributed as _  # noqa: F401  (loads the c10d bindings)
    early, trigger = os.path.join(args.outdir, f".early_{rank}"), os.path.join(args.outdir,
                                                                                ".trigger")
    dumped_early = False
    while not os.path.exists(trigger):
        if not dumped_early and os.path.exists(early):
            write_dump(args, rank)  # a dump taken seconds before the others; the rank goes on
            progress(args.outdir, rank, "dumped early")
            dumped_early = True
        time.sleep(0.02)
    if not dumped_early:
        write_dump(args, rank)
    os._exit(0)


def worker(args, rank):
    shape, world, spec = CASES[args.case][:3]
    os.environ.update(RANK=str(rank), WORLD_SIZE=str(world), TORCH_FR_BUFFER_SIZE="2000")
    import torch
    import torch.distributed as dist
    threading.Thread(target=dumper, args=(args, rank), daemon=True).start()
    import datetime
    store = "file://" + os.path.abspath(os.path.join(args.outdir, ".store"))
    dist.init_process_group("gloo", init_method=store, rank=rank, world_size=world,
                            timeout=datetime.timedelta(seconds=600))
    groups = stage_groups(dist, world, shape)[rank]
    f = faults_of(spec)
    try:
        for i in range(STEPS):
            progress(args.outdir, rank, f"step {i}")
            if i == 1 and f.get("early") == rank:
                open(os.path.join(args.outdir, ".wants_early"), "w").close()
                time.sleep(0.5)  # the parent triggers this rank's early dump meanwhile
            STEP_OF[shape](dist, torch, f, rank, groups, i)
        progress(args.outdir, rank, "done")
    except RuntimeError as e:  # a peer died or aborted: stay, as a hung rank would, and dump
        progress(args.outdir, rank, f"error: {str(e).splitlines()[0][:200]}")
    time.sleep(3600)  # the dumper thread ends the process


def wait_until_still(args, procs, settle):
    last, since, deadline = None, time.time(), time.time() + 180
    cpu_then = cpu_seconds(procs)
    wants_early = os.path.join(args.outdir, ".wants_early")
    while time.time() < deadline:
        if os.path.exists(wants_early):
            os.unlink(wants_early)
            f = faults_of(CASES[args.case][2])
            open(os.path.join(args.outdir, f".early_{f['early']}"), "w").close()
        state = job_state(args, procs)
        started = all(s is not None or code is not None for s, code in zip(*state))
        if state != last:
            last, since, cpu_then = state, time.time(), cpu_seconds(procs)
        elif started and time.time() - since >= settle:
            if not still_busy(procs, cpu_then):  # nobody said anything, nor computed
                return
            since, cpu_then = time.time(), cpu_seconds(procs)
        time.sleep(0.1)


def run_parent(args):
    shape, world = CASES[args.case][:2]
    args.ranks = world
    shutil.rmtree(args.outdir, ignore_errors=True)
    os.makedirs(args.outdir)
    log = open(os.path.join(args.outdir, ".log"), "w")
    cmd = [sys.executable, __file__, args.case, args.outdir, "--format", args.format]
    cmd += ["--only-active"] if args.only_active else []
    procs = [subprocess.Popen(cmd + ["--worker", str(r)], stdout=log, stderr=log)
             for r in range(world)]
    wait_until_still(args, procs, args.settle)
    open(os.path.join(args.outdir, ".trigger"), "w").close()
    reap(procs, DUMP_WAIT_S)
    for name in os.listdir(args.outdir):
        if name.startswith((".trigger", ".early_", ".store")):
            os.unlink(os.path.join(args.outdir, name))
    written = [r for r in range(world) if os.path.exists(dump_name(args, r)[0])]
    print(f"{args.case}: {len(written)} of {world} ranks dumped ({CASES[args.case][3]})")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("case", choices=sorted(CASES))
    p.add_argument("outdir")
    p.add_argument("--format", choices=["pickle", "json", "mixed"], default="pickle")
    p.add_argument("--only-active", action="store_true")
    p.add_argument("--settle", type=float, default=3.0)
    p.add_argument("--worker", type=int, default=None)
    args = p.parse_args()
    if args.worker is None:
        run_parent(args)
    else:
        worker(args, args.worker)


if __name__ == "__main__":
    main()
