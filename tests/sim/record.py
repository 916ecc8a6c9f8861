"""record.py — what each backend's flight recorder holds about a rank at its dump time.

dump_dict(job, engine, rank, T) builds the dump as a dict in the producer's key order:
* nccl (PyTorch ProcessGroupNCCL, layout 2.9 or 2.10): collective_seq_id counts collective
  launches per group (a coalesced block once), p2p_seq_id send/recv launches (a batch once), op_id
  every operation; a coalesced block or batch ends with a "nccl:coalesced" marker carrying the
  launch's state, its members stay "scheduled" (PyTorch never updates them: `member_quirk`) or
  follow it; without timing states go scheduled -> completed (time_discovered_started_ns None),
  with timing through started and completed entries carry duration_ms (float32); retired once
  the watchdog saw the completion (within 100 ms); pg_config lists the groups whose communicator
  exists (the rank ran an operation there) with global ranks; pg_status the last enqueued,
  started (-1 without timing) and completed work's sequence id per pg_id.
* gloo (PyTorch 2.15, layout 2.10): pg_config is one key "" with group-local ranks of the last
  group created; send/recv are not recorded, they only take op ids (gaps before the group's next
  collective); pg_status holds the op ids of the last collective enqueued and of the last one
  finished or failed (a pending send/recv is not counted: the committed real job
  testdata/torch-2.15.0-gloo/pipe_no_send, rank 5 blocked in a recv with enqueued == completed),
  and lists a group once it recorded a collective; state stays "scheduled"; `retired` is true
  once the operation finished or failed.
* recorder (ours): one launch counter per communicator gives collective_seq_id to collective
  launches and p2p_seq_id to send/recv launches, so that the two never share a number; an end
  marker closes a group of two or more operations (op_id counts it); names are the
  communicator's hash, desc "undefined"; pg_config ranks "[]" unless the member files were
  complete; the "frtrace" key says the global rank, the trigger and each communicator.
Entries are those issued by time T; only-active dumps keep those not completed; a ring of
`ring` entries keeps the newest.
"""
import random
import struct

EPOCH_NS = 1795580000000000000


def f32(x):
    return struct.unpack("f", struct.pack("f", x))[0]


def recorder_name(op, size):
    """The NCCL-level call behind a PyTorch-level collective (what the shim sees)."""
    n_in = op.ins[0][0] if op.ins else 1
    if op.name in ("all_gather", "_allgather_base"):
        return "all_gather", [[n_in]], [[n_in * size]]
    if op.name in ("reduce_scatter", "_reduce_scatter_base"):
        n = op.outs[0][0]
        return "reduce_scatter", [[n * size]], [[n]]
    if op.name == "barrier":
        return "all_reduce", [[1]], [[1]]
    return op.name, op.ins, op.outs


class Recorder:
    """Turns one rank's launches into flight-recorder entries at dump time T."""

    def __init__(self, job, engine, rank, T):
        self.job, self.eng, self.rank, self.T = job, engine, rank, T
        self.rc = job.rec
        self.backend = job.backend
        self.offset_ms = job.clock_offset.get(job.node_of(rank), 0.0)
        self.entries = []
        self.entry_launch = []  # the stream position of the launch each entry records
        self.next_id = 0
        self.seq = {}  # group uid -> [coll_seq, p2p_seq, op_id, launch]
        self.status = {}

    def ns(self, t):
        return EPOCH_NS + int(round((t + self.offset_ms) * 1e6))

    def lag(self, L, which):
        """The watchdog's delay in noticing an event (deterministic per launch)."""
        h = (L.rank * 7919 + L.pos * 104729 + which * 31) % 1000
        return h / 10.0  # 0..100 ms

    def state_of(self, L):
        T = self.T
        done = L.done_t is not None and L.done_t <= T and not L.failed
        started = L.start_t is not None and L.start_t <= T
        return done, started

    def counters(self, g):
        return self.seq.setdefault(g.uid, [0, 0, 0, 0])

    def group_name(self, g):
        if self.backend == "recorder":
            return self.job.comm_hash[g.uid], "undefined"
        return g.name, g.desc

    def add_launch(self, L):
        call, g = L.call, L.call.group
        c = self.counters(g)
        gloo = self.backend == "gloo"
        if self.backend == "recorder":
            c[3] += 1
            if call.is_p2p():
                c[1] = c[3]
            else:
                c[0] = c[3]
        elif call.is_p2p():
            c[1] += 0 if gloo else 1
        else:
            c[0] += 1
        done, started = self.state_of(L)
        if gloo and call.is_p2p():
            c[2] += len(call.ops)  # takes op ids, never recorded, never in pg_status
            return
        st = self.status.setdefault(g.uid, {"enq": -1, "start": -1, "done": -1})
        seq_of_launch = c[1] if call.is_p2p() and self.backend == "nccl" else c[0]
        ended = done
        if self.backend == "recorder":
            st["enq"] = c[0] if c[0] > 0 else -1
            seq_of_launch = c[3]
        elif gloo:  # op ids: the collective's own (torch numbers gloo work by op id); it counts
            seq_of_launch = c[2] + len(call.ops)  # as completed once finished or failed
            ended = self.retired(L, done)
        if self.backend != "recorder":
            st["enq"] = seq_of_launch
        if started and self.timing_started() and not gloo:
            st["start"] = seq_of_launch
        if ended:
            st["done"] = seq_of_launch
        members = []
        for op in call.ops:
            c[2] += 1
            members.append(self.entry(L, op, c, done, started))
        marker = len(call.ops) >= (2 if self.backend == "recorder" else 1) and \
            call.kind in ("coalesced", "batch") and not gloo
        if marker:
            if self.backend == "recorder":
                c[2] += 1
            end = self.entry(L, None, c, done, started)
            if self.rc["member_quirk"] and self.backend == "nccl":
                for e in members:
                    self.freeze(e)
            members.append(end)
        self.entries.extend(members)
        self.entry_launch.extend([L.pos] * len(members))

    def timing_started(self):
        return self.rc["timing"] or self.rc.get("gpu_events") == 2

    def freeze(self, e):
        e["state"] = "scheduled"
        e["retired"] = False
        e["time_discovered_started_ns"] = None
        e["time_discovered_completed_ns"] = None
        e.pop("duration_ms", None)

    def entry(self, L, op, c, done, started):
        g = L.call.group
        rc, T = self.rc, self.T
        e = {}
        if rc["frames"]:
            e["frames"] = self.job.frames_for(L.call)
        e["record_id"] = self.next_id
        self.next_id += 1
        e["pg_id"] = self.job.layout.pg_id(self.rank, g)
        e["process_group"] = self.group_name(g)
        e["thread_name"] = self.job.thread_name(self.rank)
        e["thread_id"] = self.job.thread_id(self.rank)
        e["collective_seq_id"] = c[0]
        e["p2p_seq_id"] = c[1]
        e["op_id"] = c[2]
        e["profiling_name"] = self.profiling_name(L, op)
        e["time_created_ns"] = self.ns(L.issue_t)
        ins, outs, dt = self.shapes(op, g)
        timing = self.timing_started()
        retired = self.retired(L, done)
        if done and retired and timing and self.backend != "gloo" and L.start_t is not None:
            e["duration_ms"] = f32(max(0.001, L.done_t - L.start_t))
        e["input_sizes"] = ins
        e["input_dtypes"] = [dt] * len(ins)
        e["output_sizes"] = outs
        e["output_dtypes"] = [dt] * len(outs)
        if self.backend == "gloo":
            e["state"] = "scheduled"
            e["time_discovered_started_ns"] = None
            e["time_discovered_completed_ns"] = None
        else:
            e["state"] = "completed" if done else ("started" if started and timing else
                                                   "scheduled")
            e["time_discovered_started_ns"] = self.ns(min(T, L.start_t + self.lag(L, 1))) if (
                started and timing) else None
            e["time_discovered_completed_ns"] = self.ns(min(T, L.done_t + self.lag(L, 2))) if \
                done else None
        e["retired"] = retired
        e["timeout_ms"] = self.job.timeout_ms(g)
        e["is_p2p"] = op is not None and op.name in ("send", "recv")
        return e

    def retired(self, L, done):
        if self.backend == "gloo":
            return L.done_t is not None and L.done_t <= self.T
        if self.backend == "recorder":
            return done
        return done and L.done_t + self.lag(L, 2) <= self.T

    def shapes(self, op, g):
        if op is None:
            return [], [], None
        if op.name in ("send", "recv"):
            return [list(s) for s in op.ins], [list(s) for s in op.outs], op.dtype
        if self.backend == "recorder":
            _, ins, outs = recorder_name(op, g.size)
            dt = "Float" if op.name == "barrier" else op.dtype
            return [list(s) for s in ins], [list(s) for s in outs], dt
        if self.backend == "gloo" and op.name == "barrier":
            return [], [], None
        return [list(s) for s in op.ins], [list(s) for s in op.outs], op.dtype

    def profiling_name(self, L, op):
        prefix = "gloo:" if self.backend == "gloo" else "nccl:"
        if op is None:
            return prefix + "coalesced"
        g = L.call.group
        if op.name == "send":
            return "%ssend %d->%d" % (prefix, g.local(self.rank), g.local(op.peer))
        if op.name == "recv":
            return "%srecv %d<-%d" % (prefix, g.local(self.rank), g.local(op.peer))
        if self.backend == "recorder":
            return prefix + recorder_name(op, g.size)[0]
        if op.name == "barrier":
            return prefix + ("barrier" if self.backend == "gloo" else "all_reduce_barrier")
        return prefix + op.name


def ranks_str(ranks, cache={}):
    """torch's ranks_str(): "[0, 1, 2]" (cached: every member of a group writes the same)."""
    key = tuple(ranks)
    if key not in cache:
        if len(cache) > 4096:
            cache.clear()
        cache[key] = "[" + ", ".join(str(r) for r in ranks) + "]"
    return cache[key]


def dump_dict(job, engine, rank, T, trigger=None, entry_launch=None):
    """The dump's dict; entry_launch, a list, gets the launch position of each entry kept."""
    rec = Recorder(job, engine, rank, T)
    for L in engine.stream[rank]:
        if L.issue_t <= T:
            rec.add_launch(L)
    entries, launch_of = rec.entries, rec.entry_launch
    ring = job.rec["ring"]
    if ring and len(entries) > ring:
        entries, launch_of = entries[-ring:], launch_of[-ring:]
    if job.rec["only_active"]:
        kept = [i for i, e in enumerate(entries) if e["time_discovered_completed_ns"] is None]
        entries, launch_of = [entries[i] for i in kept], [launch_of[i] for i in kept]
    if entry_launch is not None:
        entry_launch.extend(launch_of)
    L = job.layout
    used = [g for g in L.of_rank[rank] if g.uid in rec.seq or g.kind == "default"]
    b = job.backend
    d = {}
    if b == "gloo":
        last = L.of_rank[rank][-1]
        d["version"] = "2.10"
        d["pg_config"] = {"": {"name": "", "desc": "", "ranks": ranks_str(range(last.size))}}
        d["comm_lib_version"] = ""
    else:
        d["version"] = job.rec["version"]
        cfg = {}
        for g in sorted(used, key=lambda g: rec.group_name(g)):
            name, desc = rec.group_name(g)
            shown = g.members if (b == "nccl" or job.rec["members_known"]) else ()
            cfg[name] = {"name": name, "desc": desc, "ranks": ranks_str(shown)}
        d["pg_config"] = cfg
        key = "nccl_version" if d["version"] == "2.9" else "comm_lib_version"
        d[key] = {"nccl": "2.27.3" if key == "nccl_version" else "2.27.5",
                  "recorder": "2.28.9"}[b]
    status = {}
    for g in sorted((g for g in L.of_rank[rank] if g.uid in rec.status),
                    key=lambda g: L.pg_id(rank, g)):
        s = rec.status[g.uid]
        vals = (s["enq"], s["start"] if rec.timing_started() and b != "gloo" else -1, s["done"])
        status[str(L.pg_id(rank, g))] = {"last_enqueued_collective": vals[0],
                                         "last_started_collective": vals[1],
                                         "last_completed_collective": vals[2]}
    d["pg_status"] = status
    d["entries"] = entries
    if b == "recorder":
        comms = {}
        for g in L.of_rank[rank]:
            name = job.comm_hash[g.uid]
            comms[name] = {"comm_rank": g.local(rank), "comm_size": g.size, "parent": None,
                           "color": -1, "nccl_hash": "0x" + name, "state": "live"}
        fr = {"version": "1", "global_rank": rank}
        if trigger:
            fr["trigger"] = trigger
        fr["comms"] = comms
        d["frtrace"] = fr
    return d


def rank_format(job, r):
    """The encoding of r's dump: the job's, or in a mixed directory sometimes the other one
    (drawn from the seed and the rank alone, so that damage() and answer.py know it before the
    files)."""
    fmt = job.rec["format"]
    if job.rec["mixed"] and random.Random(job.seed * 1000003 + r).random() < 0.3:
        fmt = "json" if fmt != "json" else "pickle"
    return fmt
