"""torch_job.py — a one-rank PyTorch job with three process groups, dumped by torch's own
Flight Recorder (tests/gpu/run.sh runs it twice on a GPU: alone, and with the recorder preloaded).

    python3 torch_job.py OUT_DIR [--backend nccl|gloo] [--recorder-dump DIR] [--p2p]

On cuda:0 with the NCCL backend, eagerly initialised (device_id), so that the default group's
communicator comes from ncclCommInitRankConfig and those of the two new groups
("TENSOR_MODEL_PARALLEL_GROUP", "DATA_PARALLEL_GROUP") from ncclCommSplit. On each group:
all_reduce (float32 and bfloat16), all_gather_into_tensor, reduce_scatter_tensor, broadcast; on
the tensor group two all_reduces coalesced (torch's coalescing manager: one NCCL group); a
barrier on the default group. Then it waits for the GPU and for torch's watchdog to retire every
operation (durations are filled at retirement with TORCH_NCCL_ENABLE_TIMING=1, which this script
sets), and dumps through torch._C._distributed_c10d._dump_nccl_trace (pickle) into
OUT_DIR/torch-pickle/nccl_trace_rank_0 and _dump_nccl_trace_json into
OUT_DIR/torch-json/nccl_trace_rank_0. With --recorder-dump DIR (the recorder preloaded,
FRTRACE_DUMP_DIR=DIR) it also raises SIGUSR2 and waits for DIR/rank_0.

--p2p runs instead two all_reduces and one batch_isend_irecv of a send and a recv to the rank
itself (one NCCL group), so that PyTorch's own layout of a send/recv batch, its "nccl:coalesced"
end marker, is seen; run.sh gives that dump to torchfrtrace as well.

--backend gloo runs the same on the CPU (no NCCL: for debugging this script without a GPU);
the dumps then come from _dump_fr_trace and _dump_fr_trace_json.

Prints "versions torch=... nccl=... device=...", one "op NAME" line per operation issued, and
"job ok" at the end; exit status 0 when every dump was written.
"""
import os
import signal
import sys
import tempfile
import time

os.environ.setdefault("TORCH_NCCL_TRACE_BUFFER_SIZE", "2000")
os.environ.setdefault("TORCH_FR_BUFFER_SIZE", "2000")
os.environ.setdefault("TORCH_NCCL_ENABLE_TIMING", "1")
os.environ.setdefault("TORCH_NCCL_DUMP_ON_TIMEOUT", "0")

import torch  # noqa: E402  (the environment above must be set first)
import torch.distributed as dist  # noqa: E402


def parse_args(argv):
    out, backend, recorder_dump, p2p = None, "nccl", None, False
    i = 0
    while i < len(argv):
        if argv[i] == "--p2p":
            p2p, i = True, i + 1
        elif argv[i] == "--backend":
            backend, i = argv[i + 1], i + 2
        elif argv[i] == "--recorder-dump":
            recorder_dump, i = argv[i + 1], i + 2
        else:
            out, i = argv[i], i + 1
    if out is None or backend not in ("nccl", "gloo"):
        sys.exit(__doc__)
    return out, backend, recorder_dump, p2p


def versions(backend):
    nccl = "none"
    if backend == "nccl":
        v = torch.cuda.nccl.version()  # a tuple since torch 2.1, an int before
        nccl = ".".join(map(str, v)) if isinstance(v, tuple) else str(v)
    device = torch.cuda.get_device_name(0) if backend == "nccl" else "cpu"
    print("versions torch=%s nccl=%s device=%s" % (torch.__version__, nccl, device), flush=True)


def start(backend, store_dir):
    store = dist.FileStore(os.path.join(store_dir, "store"), 1)
    kwargs = {"backend": backend, "store": store, "rank": 0, "world_size": 1}
    if backend == "nccl":
        torch.cuda.set_device(0)
        kwargs["device_id"] = torch.device("cuda", 0)
    dist.init_process_group(**kwargs)
    tp = dist.new_group([0], group_desc="TENSOR_MODEL_PARALLEL_GROUP")
    dp = dist.new_group([0], group_desc="DATA_PARALLEL_GROUP")
    return tp, dp


def issue(name, fn):
    """Runs one operation; gloo lacks some, which is reported and skipped."""
    try:
        fn()
        print("op %s" % name, flush=True)
        return 1
    except (RuntimeError, ValueError) as e:
        print("op %s unsupported: %s" % (name, str(e).splitlines()[0][:120]), flush=True)
        return 0


def workload(device, tp, dp):
    n = 0
    for label, group in (("default", None), ("tp", tp), ("dp", dp)):
        x = torch.ones(4096, device=device)
        y = torch.ones(1024, device=device, dtype=torch.bfloat16)
        gathered = torch.empty(4096, device=device)
        scattered = torch.empty(4096, device=device)
        n += issue(label + " all_reduce", lambda: dist.all_reduce(x, group=group))
        n += issue(label + " all_reduce bf16", lambda: dist.all_reduce(y, group=group))
        n += issue(label + " all_gather_into_tensor",
                   lambda: dist.all_gather_into_tensor(gathered, x, group=group))
        n += issue(label + " reduce_scatter_tensor",
                   lambda: dist.reduce_scatter_tensor(scattered, x, group=group))
        n += issue(label + " broadcast", lambda: dist.broadcast(x, src=0, group=group))
    a = torch.ones(512, device=device)
    b = torch.ones(128, device=device)

    def coalesced():
        with dist._coalescing_manager(group=tp, device=device):
            dist.all_reduce(a, group=tp)
            dist.all_reduce(b, group=tp)

    n += issue("tp coalesced all_reduce x2", coalesced)
    n += issue("default barrier", lambda: dist.barrier())
    return n


def p2p_workload(device):
    x = torch.ones(1024, device=device)
    sent = torch.ones(256, device=device)
    received = torch.empty(256, device=device)

    def batch():
        ops = [dist.P2POp(dist.isend, sent, 0), dist.P2POp(dist.irecv, received, 0)]
        for work in dist.batch_isend_irecv(ops):
            work.wait()

    # two: the batch's collective_seq_id (2) then differs from its p2p_seq_id (1), as in any
    # job with more collectives than batches before it
    n = issue("default all_reduce", lambda: dist.all_reduce(x))
    n += issue("default all_reduce", lambda: dist.all_reduce(x))
    n += issue("default batch_isend_irecv to self", batch)
    return n


def settle(backend):
    """Waits for the GPU, then for the watchdog to retire every work (it fills durations)."""
    if backend == "nccl":
        torch.cuda.synchronize()
    time.sleep(2.0)


def dump_torch(out, backend):
    c10d = torch._C._distributed_c10d
    if backend == "nccl":
        pickled = c10d._dump_nccl_trace(includeCollectives=True, includeStackTraces=False,
                                        onlyActive=False)
        as_json = c10d._dump_nccl_trace_json(includeCollectives=True, onlyActive=False)
    else:
        pickled = c10d._dump_fr_trace(includeCollectives=True, includeStackTraces=False,
                                      onlyActive=False)
        as_json = c10d._dump_fr_trace_json(includeCollectives=True, onlyActive=False)
    for sub, data in (("torch-pickle", pickled), ("torch-json", as_json)):
        os.makedirs(os.path.join(out, sub), exist_ok=True)
        if isinstance(data, str):
            data = data.encode()
        with open(os.path.join(out, sub, "nccl_trace_rank_0"), "wb") as f:
            f.write(data)
        print("dump %s %d bytes" % (sub, len(data)), flush=True)


def dump_recorder(directory):
    """SIGUSR2 is the recorder's dump signal; its dumper thread writes DIR/rank_0."""
    path = os.path.join(directory, "rank_0")
    os.kill(os.getpid(), signal.SIGUSR2)
    deadline = time.time() + 10
    while time.time() < deadline:
        if os.path.exists(path):
            print("dump recorder %d bytes" % os.path.getsize(path), flush=True)
            return True
        time.sleep(0.05)
    print("no recorder dump in %s" % directory, flush=True)
    return False


def main():
    out, backend, recorder_dump, p2p = parse_args(sys.argv[1:])
    versions(backend)
    device = torch.device("cuda", 0) if backend == "nccl" else torch.device("cpu")
    with tempfile.TemporaryDirectory() as store_dir:
        tp, dp = start(backend, store_dir)
        n = p2p_workload(device) if p2p else workload(device, tp, dp)
        settle(backend)
        dump_torch(out, backend)
        ok = recorder_dump is None or dump_recorder(recorder_dump)
        dist.destroy_process_group()
    print("job ok: %d operations" % n if ok else "job FAIL", flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
