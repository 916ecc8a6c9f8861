"""program.py — what every rank of a simulated job calls, step by step.

A program is a global sequence of phases; each phase has every group of one family (or every
pipeline pair) run one operation, and each rank's call list is the phases it takes part in, in
that order. Because all ranks follow one global order, a healthy program cannot deadlock (the
earliest unfinished phase always has every member at the head of its stream).

Calls (one launch on one group, as the backend sees it):
* coll       one collective: all_reduce, broadcast, all_gather / _allgather_base (output = group
             size x input), reduce_scatter / _reduce_scatter_base (input = size x output),
             all_to_all, barrier;
* coalesced  several collectives on one group in one launch (PyTorch's coalescing manager:
             one collective_seq_id, then a "coalesced" end marker);
* p2p        one send or recv (a pipeline stage boundary);
* batch      batch_isend_irecv: several sends/recvs in one launch (one p2p_seq_id, end marker).
The last call of each step is a sync point: the CPU waits there until its stream drained (the
end of an optimizer step), so that a hung job leaves several operations pending per rank.
"""

DTYPES = ["Float", "BFloat16", "Half"]
LIST_MAX = 64


class Op:
    """One operation as one rank calls it."""

    def __init__(self, name, ins, outs, dtype, peer=None):
        self.name, self.ins, self.outs, self.dtype, self.peer = name, ins, outs, dtype, peer

    def signature(self):
        return (self.name, tuple(map(tuple, self.ins)), tuple(map(tuple, self.outs)), self.dtype)

    def copy(self):
        return Op(self.name, [list(s) for s in self.ins], [list(s) for s in self.outs], self.dtype,
                  self.peer)


class Call:
    """One launch by one rank: a collective, a coalesced block, a send/recv or a batch."""

    def __init__(self, kind, group, ops, step, phase, delay):
        self.kind, self.group, self.ops = kind, group, ops
        self.step, self.phase, self.delay = step, phase, delay
        self.sync = False
        self.fault = None  # set by faults.py on the call a fault changed
        self.sig = None    # the backend's signature, once computed (sim.signature)

    def is_p2p(self):
        return self.kind in ("p2p", "batch")

    def signature(self):
        return tuple(o.signature() for o in self.ops)


def coll_op(name, size, n, dtype):
    """The shapes PyTorch records for a collective on a group of `size` members."""
    if name == "all_gather":
        return Op(name, [[n]], [[n]] * size, dtype)
    if name == "_allgather_base":
        return Op(name, [[n]], [[n * size]], dtype)
    if name == "reduce_scatter":
        return Op(name, [[n]] * size, [[n]], dtype)
    if name == "_reduce_scatter_base":
        return Op(name, [[n * size]], [[n]], dtype)
    if name == "all_to_all":
        return Op(name, [[n * size]], [[n * size]], dtype)
    if name == "barrier":
        return Op(name, [[1]], [[1]], "Float")
    return Op(name, [[n]], [[n]], dtype)


class Builder:
    """Accumulates phases into per-rank call lists."""

    def __init__(self, rng, layout, backend):
        self.rng, self.layout, self.backend = rng, layout, backend
        self.calls = [[] for _ in range(layout.world)]
        self.phase = 0
        self.step = 0

    def delay(self):
        r = self.rng.random()
        return 0.05 + (r * 0.4 if r < 0.8 else r * 4.0)

    def n(self):
        return self.rng.choice([1, 2, 4, 8, 16, 64, 128, 1024, 4096])

    def name_for(self, name, size):
        """The list forms record one shape per member: past LIST_MAX members jobs use the
        tensor forms (and the dumps stay proportional to the job)."""
        if self.backend == "gloo":  # gloo has no _base variants under these names
            name = {"_allgather_base": "all_gather", "_reduce_scatter_base": "reduce_scatter"
                    }.get(name, name)
            if name in ("all_gather", "reduce_scatter") and size > LIST_MAX:
                return "all_reduce"
            return name
        if size > LIST_MAX:
            return {"all_gather": "_allgather_base", "reduce_scatter": "_reduce_scatter_base"
                    }.get(name, name)
        return name

    def coll(self, family, name, n=None, dtype=None):
        """Every group of a family runs one collective (same shapes in every group)."""
        n = n or self.n()
        dtype = dtype or self.rng.choice(DTYPES)
        name = self.name_for(name, self.layout.families[family][0].size)
        for g in self.layout.families[family]:
            if g.size < 2 and name != "all_reduce":
                continue
            ops = [coll_op(name, g.size, n, dtype)]  # shared by the members: never changed
            for r in g.members:                       # in place (faults.py copies first)
                self.calls[r].append(Call("coll", g, ops, self.step, self.phase, self.delay()))
        self.phase += 1

    def coalesced(self, family, names):
        """A coalesced block of collectives on every group of a family."""
        if self.backend == "gloo":  # no coalescing manager: one launch each
            for name in names:
                self.coll(family, name)
            return
        size = self.layout.families[family][0].size
        shapes = [(self.name_for(nm, size), self.n(), self.rng.choice(DTYPES)) for nm in names]
        for g in self.layout.families[family]:
            for r in g.members:
                ops = [coll_op(nm, g.size, n, dt) for nm, n, dt in shapes]
                self.calls[r].append(Call("coalesced", g, ops, self.step, self.phase,
                                          self.delay()))
        self.phase += 1

    def pipeline(self, family, forward, batched):
        """Activations (or gradients) across every stage boundary of every group, in order."""
        n, dtype = self.n(), self.rng.choice(DTYPES)
        stages = range(self.layout.families[family][0].size - 1)
        for s in (stages if forward else reversed(stages)):
            for g in self.layout.families[family]:
                a, b = (g.members[s], g.members[s + 1]) if forward else (
                    g.members[s + 1], g.members[s])
                kind = "batch" if batched else "p2p"
                self.calls[a].append(Call(kind, g, [Op("send", [[n]], [[n]], dtype, b)],
                                          self.step, self.phase, self.delay()))
                self.calls[b].append(Call(kind, g, [Op("recv", [[n]], [[n]], dtype, a)],
                                          self.step, self.phase, self.delay()))
            self.phase += 1

    def ring_exchange(self, family):
        """batch_isend_irecv around each group's ring: send to the next, receive from the
        previous, in one batch per rank (context parallel attention, halo exchange)."""
        n, dtype = self.n(), self.rng.choice(DTYPES)
        for g in self.layout.families[family]:
            if g.size < 2:
                continue
            for i, r in enumerate(g.members):
                nxt, prv = g.members[(i + 1) % g.size], g.members[(i - 1) % g.size]
                ops = [Op("send", [[n]], [[n]], dtype, nxt), Op("recv", [[n]], [[n]], dtype, prv)]
                if g.size == 2:
                    ops = ops if i == 0 else ops[::-1]
                self.calls[r].append(Call("batch", g, ops, self.step, self.phase, self.delay()))
        self.phase += 1

    def end_step(self):
        for calls in self.calls:
            if calls and calls[-1].step == self.step:
                calls[-1].sync = True
        self.step += 1


def megatron_step(b, L):
    rng, d = b.rng, L.dims
    p2p_batched = b.backend != "gloo" and rng.random() < 0.5
    for _ in range(rng.choice([1, 1, 2])):  # micro-batches
        if d["pp"] > 1:
            b.pipeline("pp", True, p2p_batched)
        if d["tp"] > 1:
            b.coll("tp", "all_reduce")
        if d["cp"] > 1:
            b.ring_exchange("cp") if b.backend != "gloo" else b.coll("cp", "all_gather")
        if d["ep"] > 1:
            b.coll("ep", "all_to_all")
        if d["pp"] > 1:
            b.pipeline("pp", False, p2p_batched)
        if d["tp"] > 1:
            if rng.random() < 0.3:
                b.coalesced("tp", ["all_reduce", "all_reduce"])
            else:
                b.coll("tp", "all_reduce")
    if d["dp"] > 1:
        if rng.random() < 0.5:
            b.coll("dp", "_reduce_scatter_base")
            b.coll("dp", "_allgather_base")
        else:
            b.coll("dp", "all_reduce")
    if d["pp"] > 1:
        b.coll("emb", "all_reduce")
    if rng.random() < 0.5:
        b.coll("default", "all_reduce", n=1, dtype="Float")


def mesh_step(b, L):
    rng = b.rng
    b.coll("mesh1", "all_reduce")
    b.coll("mesh0", rng.choice(["all_gather", "_allgather_base"]))
    if rng.random() < 0.4:
        b.ring_exchange("mesh1")
    b.coll("mesh1", "broadcast")
    b.coll("mesh0", rng.choice(["all_to_all", "_reduce_scatter_base", "reduce_scatter"]))


def fsdp_step(b, L):
    rng = b.rng
    layers = rng.choice([1, 2, 3])
    for _ in range(layers):
        b.coll("shard", "_allgather_base")
    if rng.random() < 0.3:
        b.coalesced("shard", ["_allgather_base"] * rng.choice([2, 3]))
    for _ in range(layers):
        b.coll("shard", "_allgather_base")
        b.coll("shard", "_reduce_scatter_base")
    if "replicate" in L.families:
        b.coll("replicate", "all_reduce")


def world_step(b, L):
    rng = b.rng
    for _ in range(rng.choice([2, 3, 4])):
        b.coll("default", rng.choice(["all_reduce", "all_reduce", "broadcast", "all_gather",
                                      "reduce_scatter", "all_to_all", "_allgather_base"]))
    if b.backend != "gloo" and rng.random() < 0.3:
        b.ring_exchange("default")
    if b.backend != "gloo" and rng.random() < 0.2:
        b.coalesced("default", ["all_reduce", "broadcast"])


STEPS = {"megatron": megatron_step, "mesh": mesh_step, "fsdp": fsdp_step, "world": world_step}


def draw_program(rng, layout, backend, steps, ring=False):
    """Per-rank call lists for `steps` training steps; a checkpoint barrier now and then.
    `ring`: every step also exchanges around the rings of a family of three or more (halo
    exchange), so that a send/recv can name a wrong peer (the wrong_peer class)."""
    b = Builder(rng, layout, backend)
    wide = [k for k, gs in layout.families.items() if gs[0].size >= 3]
    for _ in range(steps):
        STEPS[layout.kind](b, layout)
        if ring and wide:
            b.ring_exchange(rng.choice(sorted(wide)))
        if rng.random() < 0.2:
            b.coll("default", "barrier")
        b.end_step()
    return b.calls
