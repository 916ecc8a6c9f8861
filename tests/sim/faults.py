"""faults.py — the fault classes: what goes wrong, on which rank, at which call.

Each class draws its faults on a healthy program and changes the program or arms the engine:
  stop_cpu        the rank's CPU stops before call `pos` (Python stuck, a lock): never issued
  skip            the rank leaves call `pos` out and goes on (NCCL/gloo then match by order)
  type_mismatch   the rank issues another collective type at `pos`
  size_mismatch   ... the same collective with other sizes
  dtype_mismatch  ... with another dtype
  wrong_group     ... the same collective on another of its groups
  wrong_peer      a send/recv at `pos` (alone or in a batch) names another member of the group
  stalled_gpu     the launch of call `pos` never completes on the rank (its peers complete it)
  exit_dump       the process dies at `pos` and the recorder's fatal-signal handler dumps
  sigkill         the process dies at `pos`, no dump
  gloo_abort      (gloo) a size/dtype/type mismatch after which the culprit's ring neighbours
                  in that group abort: they die without a dump, as gloo_job.py's size_pair
  two_faults, three_faults   independent stop/stall/kill(/exit) faults on distinct ranks
  slow            healthy; 1-2 ranks 20-80 ms late at every collective (stragglers)
  clock_offset    healthy; one node's clocks off by up to seconds (no straggler)
  healthy         nothing goes wrong; dumped at the end, or while one collective is in flight
"""
from program import DTYPES, coll_op

HANG_KINDS = ["stop", "stall", "kill"]
CLASSES = ["healthy", "slow", "clock_offset", "stop_cpu", "skip", "type_mismatch",
           "size_mismatch", "dtype_mismatch", "wrong_group", "wrong_peer", "stalled_gpu",
           "exit_dump", "sigkill", "gloo_abort", "two_faults", "three_faults"]
MISMATCH = {"type_mismatch": "type", "size_mismatch": "size", "dtype_mismatch": "dtype"}


class Fault:
    def __init__(self, kind, rank, pos, detail=""):
        self.kind, self.rank, self.pos, self.detail = kind, rank, pos, detail
        self.fired = None  # simulated time at which it struck, None if never
        self.abort = ()    # gloo: ranks that abort when this mismatch meets them

    def as_json(self):
        d = {"kind": self.kind, "rank": self.rank, "call": self.pos, "detail": self.detail,
             "fired": self.fired is not None}
        if self.abort:
            d["aborting_peers"] = list(self.abort)
        return d


def eligible_classes(backend):
    out = [c for c in CLASSES if c != "gloo_abort" or backend == "gloo"]
    if backend != "recorder":
        out.remove("exit_dump")  # only the recorder dumps on a fatal signal
    if backend == "gloo":  # gloo records no send/recv: a wrong peer is out of its evidence
        out.remove("wrong_peer")
        out.remove("stalled_gpu")  # gloo runs on the CPU: no stream to stall
    return out


def pick_pos(rng, calls, want=None):
    """A call index after the first step (every rank has then used every group once, so that
    the dumps show who belongs where) and not the very last call (so that someone waits)."""
    idx = [i for i, c in enumerate(calls) if c.step >= 1 and (want is None or want(c))]
    if len(calls) > 2:
        inner = [i for i in idx if 0 < i < len(calls) - 1]
        idx = inner or idx
    return rng.choice(idx) if idx else None


SAME_CALL = {"all_gather": "g", "_allgather_base": "g", "reduce_scatter": "s",
             "_reduce_scatter_base": "s"}


def other_collective(rng, op, size):
    """Another collective, never one that NCCL runs as the same call (all_gather and
    _allgather_base are both ncclAllGather: they would meet and complete)."""
    names = ["all_reduce", "broadcast", "_allgather_base", "all_to_all"]
    if size <= 64:
        names += ["all_gather", "reduce_scatter"]
    mine = SAME_CALL.get(op.name, op.name)
    name = rng.choice([n for n in names if SAME_CALL.get(n, n) != mine])
    n = max(1, op.ins[0][0] if op.ins and op.ins[0] else 4)
    return coll_op(name, size, n, op.dtype)


def mismatch(rng, job, kind, rank):
    """A collective of another type, size or dtype. Never other sizes in an all_to_all: its
    splits may differ legally from rank to rank and the dumps record no splits, so no dump
    could show which rank was off."""
    calls = job.calls[rank]
    pos = pick_pos(rng, calls, lambda c: c.kind == "coll" and c.ops[0].name != "barrier" and
                   not (kind == "size" and c.ops[0].name == "all_to_all"))
    if pos is None:
        return None
    call = calls[pos]
    op = call.ops[0].copy()
    if kind == "type":
        op = other_collective(rng, op, call.group.size)
        if job.backend == "gloo" and op.name == "_allgather_base":
            op = coll_op("all_gather", call.group.size, op.ins[0][0], op.dtype)
        detail = "%s instead of %s" % (op.name, call.ops[0].name)
    elif kind == "size":
        double = rng.random() < 0.5
        op.ins = [[s[0] * 2 if double else s[0] + 1] + s[1:] for s in op.ins]
        op.outs = [[s[0] * 2 if double else s[0] + 1] + s[1:] for s in op.outs]
        detail = "input %s instead of %s" % (op.ins, call.ops[0].ins)
    else:
        op.dtype = rng.choice([d for d in DTYPES + ["Double"] if d != op.dtype])
        detail = "%s instead of %s" % (op.dtype, call.ops[0].dtype)
    call = copy_call(call)
    call.ops = [op]
    calls[pos] = call
    f = Fault(kind, rank, pos, "%s on group %s: %s" % (call.group.kind, call.group.name, detail))
    call.fault = f
    return f


def copy_call(call):
    from program import Call
    c = Call(call.kind, call.group, [o.copy() for o in call.ops], call.step, call.phase,
             call.delay)
    c.sync = call.sync
    return c


def wrong_group(rng, job, rank):
    calls = job.calls[rank]
    others = [g for g in job.layout.of_rank[rank] if g.size >= 2]
    pos = pick_pos(rng, calls, lambda c: c.kind == "coll" and c.ops[0].name != "barrier" and
                   any(g is not c.group and g.family != c.group.family for g in others))
    if pos is None:
        return None
    call = copy_call(calls[pos])
    g2 = rng.choice([g for g in others if g is not call.group and g.family != call.group.family])
    op = call.ops[0]
    n = min(s[0] for s in op.ins + op.outs)
    if op.name == "all_to_all":
        n //= call.group.size
    call.ops = [coll_op(op.name, g2.size, max(1, n), op.dtype)]
    f = Fault("wrong_group", rank, pos, "%s on %s %s instead of %s %s" % (
        op.name, g2.kind, g2.name, call.group.kind, call.group.name))
    call.group, call.fault = g2, f
    calls[pos] = call
    return f


def wrong_peer(rng, job, rank):
    calls = job.calls[rank]
    pos = pick_pos(rng, calls, lambda c: c.is_p2p() and c.group.size >= 3)
    if pos is None:
        return None
    call = copy_call(calls[pos])
    op = rng.choice(call.ops)
    peer = rng.choice([m for m in call.group.members if m not in (rank, op.peer)])
    f = Fault("wrong_peer", rank, pos, "%s with %d instead of %d" % (op.name, peer, op.peer))
    op.peer = peer
    call.fault = f
    calls[pos] = call
    return f


def simple(rng, job, kind, rank):
    calls = job.calls[rank]
    if kind == "skip":
        pos = pick_pos(rng, calls, lambda c: not c.sync)
        if pos is None:
            return None
        c = calls.pop(pos)
        return Fault("skip", rank, pos, "leaves out %s on %s %s" % (
            "+".join(o.name for o in c.ops), c.group.kind, c.group.name))
    pos = pick_pos(rng, calls)
    if pos is None:
        return None
    c = calls[pos]
    what = "%s on %s %s" % ("+".join(o.name for o in c.ops), c.group.kind, c.group.name)
    words = {"stop": "CPU stops before ", "stall": "GPU stalls in ", "kill": "killed before ",
             "exit": "dies (fatal signal, dumps) before "}
    return Fault(kind, rank, pos, words[kind] + what)


def draw_faults(rng, job, cls):
    """Arms the faults of class `cls` on job.calls; returns them (empty for healthy kinds).
    Under gloo the highest rank never dies: nothing in a gloo dump states the world size, so
    no evidence could name a missing last rank."""
    W = job.layout.world
    lives = W - 1 if job.backend == "gloo" else W
    if cls in ("healthy", "slow", "clock_offset"):
        return []
    if cls in ("two_faults", "three_faults"):
        n = 2 if cls == "two_faults" else 3
        kinds = HANG_KINDS + (["exit"] if job.backend == "recorder" else [])
        if job.backend == "gloo":
            kinds = ["stop", "kill"]
        ranks = rng.sample(range(lives), min(n, lives))
        out = []
        for r in ranks:
            f = simple(rng, job, rng.choice(kinds), r)
            if f:
                out.append(f)
        return out
    rank = rng.randrange(lives if cls in ("sigkill",) else W)
    if cls in MISMATCH or cls == "gloo_abort":
        kind = MISMATCH.get(cls) or rng.choice(["size", "dtype", "type"])
        f = mismatch(rng, job, kind, rank)
        if f and cls == "gloo_abort":
            g = job.calls[rank][f.pos].group
            i = g.local(rank)
            nbrs = sorted({g.members[(i - 1) % g.size], g.members[(i + 1) % g.size]} -
                          {rank, W - 1})
            if not nbrs:
                return [f]
            f.abort = tuple(sorted(rng.sample(nbrs, rng.choice([1, len(nbrs)]))))
            return [f] + [Fault("abort", a, None, "aborts on the mismatch of rank %d" % rank)
                          for a in f.abort]
        return [f] if f else []
    if cls == "wrong_group":
        f = wrong_group(rng, job, rank)
    elif cls == "wrong_peer":
        f = wrong_peer(rng, job, rank)
    else:
        kind = {"stop_cpu": "stop", "skip": "skip", "stalled_gpu": "stall", "exit_dump": "exit",
                "sigkill": "kill"}[cls]
        f = simple(rng, job, kind, rank)
    return [f] if f else []
