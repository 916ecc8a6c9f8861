"""layout.py — the process groups of a simulated job.

draw_layout(rng, world) picks one of:
* megatron: TP x CP x DP x PP (and EP inside DP) as Megatron-LM builds them: every rank calls
  new_group for every group, in one order, so group names ("1", "2", ...) agree on every rank;
  descs like TENSOR_MODEL_PARALLEL_GROUP, or "undefined" when the job set none.
* mesh: a 2-D DeviceMesh whose dimensions are split groups: each dimension is a family of
  disjoint groups sharing one name, each rank's pg_config listing only its own.
* fsdp: FSDP/ZeRO hybrid sharding: shard groups (all_gather/reduce_scatter of size-dependent
  shapes) and replicate groups (all_reduce).
* world: the default group alone.
The default group "0" ("default_pg") comes first in every layout. A rank's pg_id for a group
is its creation index among the groups that rank belongs to, as ProcessGroupNCCL's local id.
"""

MEGATRON_DESC = {"tp": "TENSOR_MODEL_PARALLEL_GROUP", "pp": "PIPELINE_MODEL_PARALLEL_GROUP",
                 "dp": "DATA_PARALLEL_GROUP", "cp": "CONTEXT_PARALLEL_GROUP",
                 "ep": "EXPERT_MODEL_PARALLEL_GROUP", "emb": "EMBEDDING_GROUP"}


class Group:
    """One communicator: its members (global ranks, ascending) and its names."""

    def __init__(self, uid, name, desc, members, kind, family):
        self.uid, self.name, self.desc = uid, name, desc
        self.members, self.kind, self.family = tuple(members), kind, family
        self.size = len(self.members)

    def local(self, rank):
        return self.members.index(rank)

    def __repr__(self):
        return "Group(%s %s %s)" % (self.name, self.kind, list(self.members))


class Layout:
    def __init__(self, world, kind):
        self.world, self.kind = world, kind
        self.groups = []                        # creation order
        self.of_rank = [[] for _ in range(world)]  # each rank's groups, creation order
        self.families = {}                      # kind -> list of groups
        self.dims = {}
        self.next_name = 0  # the default group is "0", new_group calls count from 1

    def add_family(self, kind, member_lists, desc, shared_name=False):
        """One new_group per member list (or one split family sharing a name)."""
        fam = len(self.families)
        name = str(self.next_name) if shared_name else None
        self.next_name += 1 if shared_name else 0
        out = []
        for members in member_lists:
            if name is None:
                gname = str(self.next_name)
                self.next_name += 1
            else:
                gname = name
            g = Group(len(self.groups), gname, desc, sorted(members), kind, fam)
            self.groups.append(g)
            for r in g.members:
                self.of_rank[r].append(g)
            out.append(g)
        self.families[kind] = out
        return out

    def group_of(self, rank, kind):
        for g in self.of_rank[rank]:
            if g.kind == kind:
                return g
        return None

    def pg_id(self, rank, group):
        return self.of_rank[rank].index(group)


def divisors_in(n, choices):
    return [c for c in choices if n % c == 0]


def draw_megatron(rng, world, descs, max_pp):
    tp = rng.choice(divisors_in(world, [1, 2, 4, 8]))
    rest = world // tp
    pp = rng.choice(divisors_in(rest, [p for p in (1, 2, 4) if p <= max_pp]))
    rest //= pp
    cp = rng.choice(divisors_in(rest, [1, 1, 2]))
    dp = rest // cp
    ep = rng.choice(divisors_in(dp, [1, 2, 4]))
    L = Layout(world, "megatron")
    L.dims = {"tp": tp, "cp": cp, "dp": dp, "pp": pp, "ep": ep}
    L.add_family("default", [range(world)], "default_pg")

    def rank_of(t, c, d, p):
        return t + tp * (c + cp * (d + dp * p))

    def desc(kind):
        return MEGATRON_DESC[kind] if descs else "undefined"
    L.add_family("dp", [[rank_of(t, c, d, p) for d in range(dp)]
                        for p in range(pp) for c in range(cp) for t in range(tp)], desc("dp"))
    if cp > 1:
        L.add_family("cp", [[rank_of(t, c, d, p) for c in range(cp)]
                            for p in range(pp) for d in range(dp) for t in range(tp)], desc("cp"))
    L.add_family("tp", [[rank_of(t, c, d, p) for t in range(tp)]
                        for p in range(pp) for d in range(dp) for c in range(cp)], desc("tp"))
    L.add_family("pp", [[rank_of(t, c, d, p) for p in range(pp)]
                        for d in range(dp) for c in range(cp) for t in range(tp)], desc("pp"))
    if pp > 1:
        L.add_family("emb", [[rank_of(t, c, d, p) for p in (0, pp - 1)]
                             for d in range(dp) for c in range(cp) for t in range(tp)], desc("emb"))
    if ep > 1:
        L.add_family("ep", [[rank_of(t, c, d0 + e, p) for e in range(ep)]
                            for p in range(pp) for c in range(cp) for t in range(tp)
                            for d0 in range(0, dp, ep)], desc("ep"))
    return L


def draw_mesh(rng, world):
    a = rng.choice([d for d in range(2, world) if world % d == 0] or [1])
    b = world // a
    L = Layout(world, "mesh")
    L.dims = {"mesh0": a, "mesh1": b}
    L.add_family("default", [range(world)], "default_pg")
    names = rng.choice([("dp", "tp"), ("replicate", "shard"), ("dp", "cp")])
    L.add_family("mesh0", [[i * b + j for i in range(a)] for j in range(b)],
                 "mesh_" + names[0], shared_name=True)
    L.add_family("mesh1", [[i * b + j for j in range(b)] for i in range(a)],
                 "mesh_" + names[1], shared_name=True)
    return L


def draw_fsdp(rng, world):
    shard = rng.choice([d for d in range(2, world + 1) if world % d == 0 and d <= 64] or [world])
    L = Layout(world, "fsdp")
    L.dims = {"shard": shard, "replicate": world // shard}
    L.add_family("default", [range(world)], "default_pg")
    L.add_family("shard", [range(s, s + shard) for s in range(0, world, shard)],
                 rng.choice(["undefined", "fsdp_shard"]))
    if world // shard > 1:
        L.add_family("replicate", [range(i, world, shard) for i in range(shard)],
                     rng.choice(["undefined", "fsdp_replicate"]))
    return L


def draw_layout(rng, world, backend):
    kinds = ["megatron", "megatron", "mesh", "fsdp", "world"]
    if world < 4:
        kinds = ["megatron", "world", "fsdp"]
    kind = rng.choice(kinds)
    if kind == "megatron":
        # gloo records no send/recv: its pipeline groups stay pairs (answer.py, rule E10: a
        # rank blocked in one looks idle)
        return draw_megatron(rng, world, rng.random() < 0.7, 2 if backend == "gloo" else 4)
    if kind == "mesh" and backend != "gloo":  # gloo's split groups are out of scope
        return draw_mesh(rng, world)
    if kind == "fsdp":
        return draw_fsdp(rng, world)
    L = Layout(world, "world")
    L.add_family("default", [range(world)], "default_pg")
    return L
