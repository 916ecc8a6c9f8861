"""engine.py — runs every rank's calls in simulated time (milliseconds) and keeps the truth.

NCCL (PyTorch's ProcessGroupNCCL and our recorder alike): the CPU enqueues a call and goes on;
each rank's stream runs its launches in issue order; a launch starts on a rank when the previous
one completed there; a collective completes on all members once every member has started it
(plus a short duration); a send/recv pair completes once both sides started; a batch completes
when all its pairs did. The CPU blocks only at sync points (the last call of a step waits for
the stream to drain) and when `max_inflight` launches are unfinished.
gloo: the CPU runs each call and blocks until it completes (a launch starts when issued).

Matching is by order, as NCCL and gloo match: a rank's k-th collective launch on a group meets
the others' k-th; its k-th send to a peer meets that peer's k-th receive from it. Launches whose
collective calls disagree (type, sizes, dtype) never complete.

Faults (faults.py sets them up): a stopped CPU never issues its call; an exited rank dies
(its instances never complete); a stalled GPU starts its launch, its peers complete it, but its
own end never fires and nothing after it starts. Under gloo a death breaks every unfinished
instance that the dead rank belongs to: each member waiting in it fails with probability 1/2
(the operation is retired like a finished one, and the rank stops issuing, as a worker that
caught the error and waits), the others stay blocked; a mismatch with aborting peers kills those
peers once the culprit and they have arrived. The run ends when nothing can move (a hang) or
everything finished.
"""
import heapq

GLOO_FAIL_CHANCE = 0.5


class Launch:
    __slots__ = ("rank", "call", "pos", "issue_t", "start_t", "done_t", "failed", "insts",
                 "left", "stalled", "blamed", "spared")

    def __init__(self, rank, call, pos, t):
        self.rank, self.call, self.pos, self.issue_t = rank, call, pos, t
        self.start_t = self.done_t = None
        self.failed = self.stalled = False
        self.insts, self.left, self.blamed, self.spared = [], 0, (), False


class Instance:
    """One meeting of members: a collective launch on a group, or one send/recv pair."""
    __slots__ = ("key", "members", "arrived", "launches", "done_t", "broken", "stuck", "sigs",
                 "seq")

    def __init__(self, key, members):
        self.key, self.members = key, members
        self.arrived, self.launches, self.sigs = {}, {}, {}
        self.done_t = None
        self.broken = self.stuck = False
        self.seq = 0


class Engine:
    def __init__(self, job):
        self.job = job
        self.rng = job.rng
        self.gloo = job.backend == "gloo"
        self.calls = job.calls
        W = job.layout.world
        self.stream = [[] for _ in range(W)]
        self.head = [0] * W
        self.pos = [0] * W
        self.state = ["run"] * W  # run, blocked, stopped, finished, dead, failed
        self.block = [None] * W   # "drain" or "bound"
        self.death_t = {}
        self.coll_count = [dict() for _ in range(W)]  # group uid -> launches so far
        self.p2p_count = [dict() for _ in range(W)]   # (uid, src, dst) -> count
        self.insts = {}
        self.events = []
        self.seq = 0
        self.t_stop = 0.0
        self.cpu_fault = {f.rank: f for f in job.faults if f.kind in ("stop", "exit", "kill")}
        self.stall = {(f.rank, f.pos): f for f in job.faults if f.kind == "stall"}
        self.skips = {(f.rank, f.pos): f for f in job.faults if f.kind == "skip"}

    # --- events ---
    def push(self, t, kind, obj):
        self.seq += 1
        heapq.heappush(self.events, (t, self.seq, kind, obj))

    def run(self):
        for r, calls in enumerate(self.calls):
            self.push(calls[0].delay if calls else 0.0, "cpu", r)
        while self.events:
            t, _, kind, obj = heapq.heappop(self.events)
            self.t_stop = t
            getattr(self, "on_" + kind)(obj, t)

    # --- CPU ---
    def on_cpu(self, r, t):
        if self.state[r] != "run":
            return
        pos = self.pos[r]
        skip = self.skips.get((r, pos))
        if skip and skip.fired is None:
            skip.fired = t
        f = self.cpu_fault.get(r)
        if f and f.pos == pos:
            f.fired = t
            if f.kind == "stop":
                self.state[r] = "stopped"
            else:
                self.die(r, t)
            return
        if pos >= len(self.calls[r]):
            self.state[r] = "finished"
            return
        call = self.calls[r][pos]
        if call.fault is not None and call.fault.fired is None:
            call.fault.fired = t
        L = Launch(r, call, len(self.stream[r]), t)
        self.stream[r].append(L)
        self.pos[r] += 1
        self.bind(L)
        self.try_start(r, t)
        if self.gloo or call.sync:
            self.state[r], self.block[r] = "blocked", "drain"
            self.wake_if_ready(r, t)
        elif self.inflight(r) >= self.job.max_inflight:
            self.state[r], self.block[r] = "blocked", "bound"
            self.wake_if_ready(r, t)
        else:
            self.next_cpu(r, t)

    def next_cpu(self, r, t):
        pos = self.pos[r]
        delay = self.calls[r][pos].delay if pos < len(self.calls[r]) else 0.0
        self.push(t + delay, "cpu", r)

    def inflight(self, r):
        return len(self.stream[r]) - self.head[r]

    def wake_if_ready(self, r, t):
        if self.state[r] != "blocked":
            return
        n = self.inflight(r)
        if (self.block[r] == "drain" and n == 0) or (self.block[r] == "bound" and
                                                     n < self.job.max_inflight):
            self.state[r] = "run"
            self.next_cpu(r, t)

    # --- matching ---
    def bind(self, L):
        """The instances a launch takes part in, by order on its group."""
        r, call, g = L.rank, L.call, L.call.group
        if call.is_p2p():
            for op in call.ops:
                src, dst = (r, op.peer) if op.name == "send" else (op.peer, r)
                k = self.p2p_count[r].get((g.uid, src, dst, op.name), 0) + 1
                self.p2p_count[r][(g.uid, src, dst, op.name)] = k
                self.join(L, ("p", g.uid, src, dst, k), (min(src, dst), max(src, dst)), op)
        else:
            k = self.coll_count[r].get(g.uid, 0) + 1
            self.coll_count[r][g.uid] = k
            self.join(L, ("c", g.uid, k), g.members, None)
        L.left = len(L.insts)

    def join(self, L, key, members, op):
        inst = self.insts.get(key)
        if inst is None:
            inst = self.insts[key] = Instance(key, members)
            inst.seq = key[-1]
        inst.launches[L.rank] = L
        inst.sigs[L.rank] = self.job.sig(L.call) if op is None else (
            tuple(map(tuple, op.ins)), op.dtype)
        L.insts.append(inst)

    # --- GPU ---
    def try_start(self, r, t):
        s, h = self.stream[r], self.head[r]
        if h >= len(s) or self.state[r] == "dead":
            return
        L = s[h]
        if L.start_t is not None:
            return
        L.start_t = t
        for inst in L.insts:
            inst.arrived[r] = t
            if inst.broken or (self.death_t and any(m in self.death_t for m in inst.members)):
                self.break_instance(inst, t)
            elif len(inst.arrived) == len(inst.members):
                self.all_arrived(inst, t)

    def all_arrived(self, inst, t):
        sigs = {s for s in inst.sigs.values()}
        if len(sigs) > 1:
            inst.stuck = True
            self.mismatch_aborts(inst, t)
            return
        inst.done_t = t + self.duration(inst)
        self.push(inst.done_t, "inst_done", inst)

    def duration(self, inst):
        return 0.02 + 0.3 * self.rng.random()

    def on_inst_done(self, inst, t):
        if inst.broken:
            return
        for L in inst.launches.values():
            L.left -= 1
            if L.left == 0:
                self.launch_done(L, t)

    def launch_done(self, L, t):
        r = L.rank
        if self.state[r] == "dead" or L.failed:
            return
        f = self.stall.get((r, L.pos))
        if f is not None:
            f.fired = t
            L.stalled = True
            return
        L.done_t = t
        self.head[r] += 1
        self.try_start(r, t)
        self.wake_if_ready(r, t)

    # --- deaths and failures ---
    def die(self, r, t):
        self.state[r] = "dead"
        self.death_t[r] = t
        for inst in list(self.insts.values()):
            if r in inst.members and (inst.done_t is None or inst.done_t > t) and not inst.broken:
                self.break_instance(inst, t)

    def on_die(self, r, t):
        if self.state[r] != "dead":
            for f in self.job.faults:
                if f.kind == "abort" and f.rank == r:
                    f.fired = t
            self.die(r, t)

    def break_instance(self, inst, t):
        """A member died before the instance completed: it never completes; under gloo each
        member waiting in it fails with GLOO_FAIL_CHANCE (decided once per member)."""
        first = not inst.broken
        inst.broken = True
        if first:
            inst.done_t = None
        if not self.gloo:
            return
        dead = tuple(m for m in inst.members if m in self.death_t)
        for r, L in inst.launches.items():
            if r in self.death_t or L.failed or L.done_t is not None or L.start_t is None:
                continue
            if L.spared:
                continue
            if self.rng.random() < GLOO_FAIL_CHANCE or self.forced_fail(inst, r):
                L.failed, L.done_t, L.blamed = True, t, dead
                self.state[r] = "failed"
            else:
                L.spared = True

    def forced_fail(self, inst, r):
        """The culprit of a gloo mismatch whose peers aborted sees its operation fail (as in
        the real size_pair job)."""
        L = inst.launches[r]
        return L.call.fault is not None and L.call.fault.abort

    def mismatch_aborts(self, inst, t):
        if not self.gloo:
            return
        for L in inst.launches.values():
            f = L.call.fault
            if f is not None and f.abort:
                for a in f.abort:
                    self.push(t + 0.5, "die", a)
