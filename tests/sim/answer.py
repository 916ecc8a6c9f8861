"""answer.py — the answer the evidence supports, derived from the simulated truth.

The same reasoning runs twice: once with full knowledge (every rank known at the end: the
truth), once with what the dumps can show (readable, fresh or older dumps: the expected answer).
The rules (sim.py's table gives them with their numbers):

 W1 Waiting. A rank waits in its frontier (its oldest launch not finished: NCCL's stream head,
    gloo's current call) for the members of that launch's instances that have not arrived.
    Arrived = started it (its earlier launches finished), or the instance completed somewhere.
    A gloo rank whose newest operation failed waits for the dead members of it (E9).
 W2 Roots. The culprits of a hang are the ranks in the sink components of the wait-for graph
    reachable from waiting ranks that are not themselves seen waiting (a stopped CPU, a dead
    rank, a rank without a readable dump), plus every rank whose GPU stalled (its frontier
    launch completed on all its peers but not on it). A sink component of several waiting ranks
    (a deadlock of ranks that issued the same operations in different orders, as after a skip)
    is broken at its fault rank, the one whose order the other ranks contradict (it issued an
    operation that they issue only after the one they wait in) (E11); in a job of two ranks
    nobody can tell which order is right: both are named, as the two sides of a two-member
    mismatch. Such a component is a deadlock even where its ranks wait for others as well: each
    waits for every member missing from its launch, so the cycle never clears whatever the
    others do (seed 2440: 14 sent to 29 instead of 15; 29 waits in the next collective for 14
    and for 35, whose dump may be final: 35 going on frees neither).
 E1 Unknown. A rank without a readable dump (none written, garbage, cut before its entries) is
    unknown: it is never seen waiting. When others wait for it and no rank that the dumps show stuck
    (W2) explains their waits, it is a culprit (missing_dump); when such ranks exist, it may be
    waiting for them as well as stuck itself: it is an alternative, not a culprit.
 E2 Most missing. More than half of the ranks unknown: inconclusive, no culprits.
 E3 Mismatch. An instance whose calls disagree (type, sizes, dtype, compared as the backend
    compares them; an all_to_all's sizes not at all: its splits are not recorded) and that two
    or more readable dumps recorded: status mismatch; culprits are the members outside the
    unique largest side among the recorded calls, or, without one (two members, a tie), every
    recorded member. It wins over the hang rules.
 E8 Older dumps. A dump is older when a peer's dump shows an instance with the rank completed
    that lies beyond the rank's frontier in its own stream, or that its dump does not show (a
    peer completing the frontier itself is what a stalled GPU looks like: no proof). Such a rank
    is presumed to have gone on: a waiter's missing member only when no other member is missing
    there, and its own (old) frontier is not read as a wait; when waited for, it is weighed as
    an unknown rank (E1). The bytes prove it older only through an instance its dump shows it
    had not issued (its counters stop below it): a collective a peer completed, or a transfer a
    peer received from it (older_shown()). Instances it shows issued and pending that peers
    completed prove only that its GPU ran them: the real NVIDIA runs gpu_error_1st/2nd show a
    dozen such launches behind the head of a GPU that failed, in fresh dumps. And a send a peer
    completed to it proves no recv (NCCL completes a send that fits the receiver's buffer first).
    Where only those show it older, the dump is read both ways: older (gone on), or final, its
    GPU having run past what it recorded (then stopped anywhere after: it holds up whoever waits
    for it, not stalled where nobody does) or, with a send alone, stopped where its dump shows;
    where the final reading names a rank the older one does not, the answer is what both name,
    the rest of what either names alternatives (either(); seeds 12994, 12069: the older reading
    alone named the rank without a dump, or the wrong peer, where the dumps also allow the rank
    with the older-looking dump). Where it names only ranks the older reading names, that one
    stands (it names every older dump a wait may rest on).
 E14 Wrong peer. A rank waiting in a send/recv on peers seen idle that nobody else waits for,
    while another rank waits on it in the other half (it sends to the rank that receives, or
    the reverse), posted to the wrong peer: it is the culprit; the idle peer and the rank left
    with the other unmatched half are not (both halves meet in it). Peers without a readable
    dump beside the idle ones in that send/recv change nothing of it; each is an alternative
    (E1: it may have stopped too). Peers there seen stopped (stuck, a stalled GPU) change
    nothing of it either: they are culprits beside it (seed 1608). An earlier rule needed every peer seen idle and named the
    idle one (seed 3071: 1's batch sends to 5 and receives from 0, whose dump is garbage; 5's
    whole dump shows its batch of that step done without a recv from 1; 2 waits for 1's send).
 E13 Cut dumps. A torch pickle cut inside its entries keeps pg_config, pg_status and the whole
    entries before the cut; a torch JSON dump (keys sorted: the entries first) keeps the whole
    entries before the cut and loses pg_config and pg_status. Readers salvage exactly those
    entries: the launches they record are known as of the dump's moment (started, completed,
    their calls' types and sizes), the rest is unknown, as after an older dump (E8): the rank
    is presumed to have gone on. A cut pickle's pg_status, written before its entries, says
    which collectives the rank completed in each group: those at or before its last completed
    number, where that number is a collective's (PyTorch's NCCL numbers a send/recv from its own
    counter) or a launch's (our recorder numbers both from one); an instance so completed
    completed (counted_done(); seeds 15089, 15341: the rank cut before its first entry had
    completed the all_reduce its peer's stalled GPU is pending in; an earlier rule, crediting
    no counter, named the cut rank). Its last enqueued number says alike which collectives it
    issued (counted_issued()): its CPU did not stop before them, so E16 offers no such member as
    one that may have stopped there (seeds 975, 9718, 2490: a cut rank in flight in the
    all_gather its peer waits in for a killed rank was read as possibly stopped before it, "one
    of them", where the killed rank alone explains the wait, as frtrace reads those counters;
    gloo's count its collectives alone, seed 21536). Whether its GPU started them only its last
    started number says (kept where timing was on): W1 reads a member whose started number
    covers an instance as arrived there (counted_started(); seed 9718), one whose enqueued
    number alone does as not (seed 9877's stalled GPU). Nothing else of the counters is
    credited, so the rules never expect more than the dump proves. A re-pickled dump cut anywhere, or a dump cut
    before its entries, is unreadable (E1).
 E16 One of them. Where no seen rank explains the waits (W2) and a rank without a readable
    dump is waited for, a cut or older dump beside it is no proof of going on: a cut dump shows
    nothing after its cut (a rank whose CPU stopped still writes one), an older dump only that
    the rank passed its old frontier. A rank named for a wait only through such a dump (E8),
    or a member beside the unknown rank in a waiter's operation whose dump is cut (not older:
    E8 stands) and that no readable dump shows past it (passed()), may have stopped there, the unknown rank blocked behind it: the answer
    is one of them (alternatives, no culprit), the reasons in evidence.reasons (one_of()). A
    rank without a dump cannot be blocked behind such a dump's rank in an operation that comes,
    in its program, after one a seen rank waits for it in, a gloo rank whose newest operation
    failed (E9) too (can_block; seeds 5290, 5788, 12305 offered the cut rank there).
 E17 Two readings. A rank waiting in a send/recv with one peer alone (no other peer in its
    batch), in a group of more than two, whose dump holds no entry (an only-active dump with
    nothing in flight: what it completed is dropped), idle and waited for by nobody else: the
    bytes fit "the peer never posted" (the waiter waits for it) and "the waiter's GPU stalled
    after the transfer" (the peer's launch done) alike, as pg_status counts send/recv per rank,
    not per pair, in such a group. The answer is one of the two (alternatives, no culprit),
    whichever the truth is (seeds 452 and 10413; two_readings()).
 E12 Extra operation. A waiter whose operation more than half of its members never issued
    while seen idle (nothing pending) and waited for by nobody else issued an operation the
    group will never run: it is the culprit, the idle majority is not (a rank that used the
    wrong group or peer late in the job, when everyone else had finished). A member that never
    issued it and is seen waiting for the waiter alone in another operation (one the waiter
    never issued: it went to this one instead) counts with the idle ones, where some are idle:
    it too shows the waiter off the program (seeds 510, 8061: 87 ran an all_reduce on the world
    group in its DP group's step; the other DP group, 100 of 200, idle, the 99 of its own
    waiting for it in DP all_reduce #3, which 87 never issued; an earlier reading named the 100
    idle ranks, exactly half, and not 87). Idle ranks that
    other ranks wait for too never joined them (W2): the waiters, each seen in the program's
    next operation, agree on it, and several ranks stopped at one point look exactly so
    (an earlier rule named the waiters there: seeds 2124, 3778, 5818, three ranks stopped).
 E9 gloo retired. `retired` is finished or failed: a rank whose newest operation is a retired
    collective with a member that left no dump file (an unreadable file proves it lived to dump)
    may have failed on it, so it waits for those members, whether it in truth finished or failed (the dumps read alike), unless a member's
    dump shows it went on past that collective (then it finished, gloo's calls block).
 E10 gloo send/recv are not recorded, and PyTorch 2.15's pg_status counts collectives only
    (record.py; the real pipe_no_send: a rank blocked in a recv has enqueued == completed): a
    finished send/recv leaves op-id gaps at most, and a rank blocked in one looks idle, as a
    stopped rank does (View.unrecorded). Where no dump shows the rank's send/recv (a pipeline
    group running send/recv alone, as every gloo pipeline here: no dump names the group),
    nothing links it to its peer: W2 names it, as tests/interop/random_job.py (p2p_shown) and
    the real random143_sigkill_stuck do.
 E15 Went past. A rank with a fresh dump that others wait for in an instance it never issued,
    whose dump records no call of that program step on that group but records a later step's
    call, went past the instance: it left it out (a skip, or a collective on another group in
    its place), and nothing any other rank does can complete it. It is a culprit beside the
    sinks, whatever else it waits for (an older dump, a rank seen idle): those stay what they
    were without it (an unknown rank an alternative, W2's sinks culprits). The program's order
    of the two steps is what the dumps show only through witnesses: two or more other fresh
    dumps record the step (one rank's word alone may be its own deviation, E12: seed 95), and
    one of them, not itself waited for in an instance it never issued, records the later step
    too (frtrace's program_order and sibling votes). A send/recv step is not every member's:
    its witnesses are the members in the rank's place in the sibling groups of its family
    (frtrace's p2p_family_vote), so the rank a wrong peer named, which has no call there by the
    program, is none (seed 5153). A waiter whose idle peer went past its operation is no E12
    or E14 culprit: the skip explains it (seed 10779: 7 left out its CP batch with 6, and 6,
    left alone in it, was named). Sim seeds 6145, 5143: a wrong-group all_reduce waiting on an
    older dump (an earlier reading named that dump's rank alone), and a skipped gloo
    all_gather beside idle pipeline ranks (its skipper was not named). An instance one member
    issued alone, while most of its group (three or more) is seen elsewhere, is that member's
    word alone: it makes no witness doubtful (lonely(); seeds 6446, 8456).
 H1 Healthy. No waits: ok. A healthy dump taken while one collective is in flight on every rank
    and nothing is queued behind it is ok too. The stragglers are the slow ranks the dumps can
    show: those with a group of two or more whose every member's readable dump records at least
    STRAGGLER_MIN_RECORDED of its collectives with them (shows_slow). A slow rank whose dump is
    unreadable, whose dumps keep only what is in flight (only-active), or whose peers left none,
    cannot be told from a peer whose own GPU is slow: nobody is expected.
"""
import record  # the dump as written and its encoding (sim.py writes them so)


class View:
    """What the reasoning may read about each rank: known (a readable dump), at time T."""

    def __init__(self, engine, known, T, stale, fatal, cut=None, wrote=None, hide_p2p=False,
                 older=None, drops=None, lagging=(), numbered=None):
        self.eng, self.known, self.T, self.stale, self.fatal = engine, known, T, stale, fatal
        self.lagging = set(lagging)  # E8: read as a GPU whose completions went unrecorded
        self.drops = drops or (lambda r: False)  # E17: r's dump is empty, may drop done
        self.wrote = known if wrote is None else wrote  # ranks with a dump file, readable or not
        self.cut = cut or {}  # rank -> first launch whose entries a truncated dump lost (E13)
        # E13: cut ranks whose pickle kept pg_status -> how its numbers count launches: "launch"
        # (our recorder: one counter), "coll" (PyTorch's NCCL: a send/recv's own number may
        # come last), "gloo" (collectives only); and whether it holds a started number (timing)
        self.numbered = dict(numbered or {})
        self.older = set(stale) - set(self.cut) if older is None else older  # E8 older dumps
        self.hide_p2p = hide_p2p  # gloo: send/recv are in no entry and no pg_status count (E10)
        self._frontier, self._completed, self._missing = {}, {}, {}

    def shown(self, L, r):
        """r's dump covers the launch's moment: issued by its dump time, not cut off (E13)."""
        return L.issue_t <= self.T[r] and (r not in self.cut or L.pos < self.cut[r])

    def unrecorded(self, L):
        return self.hide_p2p and L.call.is_p2p()

    def visible(self, L, r):
        """r's dump shows the launch: covered, and of a kind the backend records (E10)."""
        return self.shown(L, r) and not self.unrecorded(L)

    def launch_done(self, L, r):
        """Finished by the time r's dump was taken (gloo: retired, finished or failed)."""
        return L.done_t is not None and L.done_t <= self.T[r]

    def frontier(self, r):
        if r not in self._frontier:
            self._frontier[r] = None
            for L in self.eng.stream[r]:
                if not self.shown(L, r):
                    break
                if self.unrecorded(L):  # E10: a finished one leaves op ids only; in an
                    if self.launch_done(L, r):  # unfinished one the rank looks idle
                        continue
                    break
                if not self.launch_done(L, r):
                    self._frontier[r] = L
                    break
        return self._frontier[r]

    def missing(self, inst):
        """(members seen not to have arrived, members whose older dump leaves it open)."""
        key = inst.key
        if key not in self._missing:
            missing, unsure = [], []
            for m in inst.members:
                a = arrived(self, m, inst)
                if a is False or (a is None and m not in self.stale):
                    missing.append(m)
                elif a is None:
                    unsure.append(m)
            self._missing[key] = (missing, unsure)
        return self._missing[key]


def completed_somewhere(view, inst, members_known):
    """An instance completed (every member arrived) as some readable dump shows it."""
    key = inst.key
    if key in view._completed:
        return view._completed[key]
    done = False
    for m, L in inst.launches.items():
        if m in members_known and not L.failed and L.done_t is not None \
                and L.done_t <= view.T[m] and (view.visible(L, m) or counted_done(view, L, m)):
            done = True
            break
    view._completed[key] = done
    return done


def counted_done(view, L, m):
    """E13: m's cut pickle kept pg_status, whose last completed sequence id in L's group is
    that of a launch at or after L (launches complete in order on a group's stream): any launch
    where send/recv and collectives share the numbers (our recorder), a collective where they do
    not (PyTorch's NCCL: a send/recv's number says nothing of the collectives)."""
    if view.numbered.get(m, ("gloo",))[0] == "gloo" or L.call.is_p2p():
        return False  # gloo's completed count takes retired (failed) ops too: not credited
    return last_counted(view, L, m, lambda K: K.done_t is not None and K.done_t <= view.T[m])


def last_counted(view, L, m, reached):
    """E13: whether m's cut pickle's pg_status number for L's group, the last launch there for
    which reached(K) holds, covers L: a collective's number (or our recorder's launch's, shared
    with send/recv); where PyTorch's NCCL gave a send/recv its own number last, nothing is said;
    gloo counts collectives alone."""
    kind = view.numbered.get(m, (None, False))[0]
    if L is None or kind is None or (L.call.is_p2p() and kind != "launch"):
        return False
    last = None
    for K in view.eng.stream[m]:
        if K.call.group is L.call.group and reached(K) and \
                not (kind == "gloo" and K.call.is_p2p()):
            last = K
    return last is not None and last.pos >= L.pos and (kind == "launch" or
                                                       not last.call.is_p2p())


def counted_issued(view, L, m):
    """E13: m's cut pickle's last enqueued number says it issued L by its dump's moment, so its
    CPU did not stop before it (whether its GPU started it, only a started number says:
    counted_started; seed 9877's stalled GPU). Our recorder's enqueued count is its last
    collective's launch number, shared with send/recv, so it covers a send/recv launch before
    it too (seed 2490)."""
    if L is None or m not in view.numbered:
        return False
    if view.numbered[m][0] == "launch":  # the last collective's launch number
        return last_counted(view, L, m, lambda K: K.issue_t <= view.T[m] and
                            not K.call.is_p2p())
    return last_counted(view, L, m, lambda K: K.issue_t <= view.T[m])


def counted_started(view, L, m):
    """E13, W1: m's cut pickle kept a last started number (timing on) that covers L: its GPU
    started L, so it arrived there (seed 9718: rank 1's "started 4" in the all_gather #4 that
    rank 2 waits in for the stalled rank 0; read as absent, rank 1 was named beside it)."""
    if L is None or not view.numbered.get(m, (None, False))[1]:
        return False
    return last_counted(view, L, m, lambda K: K.start_t is not None and K.start_t <= view.T[m])


def arrived(view, m, inst):
    """Did member m start the instance, as far as the view shows? (True, False or None.)"""
    if completed_somewhere(view, inst, view.known):
        return True
    if m in view.fatal:
        return False  # its dump says it died; an unfinished instance never gets it
    if m not in view.known:
        return None
    L = inst.launches.get(m)
    T = view.T[m]
    if L is None or not view.visible(L, m):
        if counted_started(view, L, m):
            return True  # E13: its cut pickle's started number covers the launch
        return None if m in view.stale else False
    fr = view.frontier(m)
    if fr is None or fr.pos >= L.pos:
        return True
    return None if m in view.stale else False


def went_on(view, r, inst):
    """A member other than r that the dumps show past the instance (gloo blocks: it finished
    it, so the instance did not fail): a later launch of its own that its dump records."""
    for m, L in inst.launches.items():
        if m != r and m in view.known and m not in view.fatal:
            if any(view.visible(M, m) for M in view.eng.stream[m][L.pos + 1:]):
                return True
    return False


def waits(view, r, gloo):
    """The ranks r is seen waiting for, and how: (kind, [ranks]) or None."""
    if r not in view.known or r in view.stale or r in view.fatal:
        return None
    fr = view.frontier(r)
    eng = view.eng
    if r in view.lagging:  # E8's second reading: its GPU ran past what it recorded and may
        return ("stuck", [])  # have stopped anywhere after: it holds up those who wait for it
    if fr is None:
        if gloo:
            last = [L for L in eng.stream[r] if view.visible(L, r)]
            # retired reads alike for finished and failed (E9): the truth's `failed` is not
            # evidence, except for a send/recv whose failure the view shows (the truth's:
            # E10, no dump records one)
            if last and (last[-1].failed or not last[-1].call.is_p2p()) and \
                    not went_on(view, r, last[-1].insts[0]):
                inst = last[-1].insts[0]
                gone = [m for m in inst.members  # a file, even unreadable: it lived to dump
                        if m != r and (m not in view.wrote or m in view.fatal)]
                if gone:
                    return ("failed", gone)
        return None
    if fr.stalled:
        peers_done = [completed_somewhere(view, i, view.known) for i in fr.insts]
        if all(peers_done):
            return ("stalled", [])
    missing, unsure = [], []
    for inst in fr.insts:
        mi, un = view.missing(inst)
        missing += [m for m in mi if m != r]
        unsure += [m for m in un if m != r]
    if not missing and unsure:
        missing = unsure  # E8: an older dump is the only explanation left
    if any(i.stuck for i in fr.insts) and not missing:
        return ("stuck", [])
    if not missing:
        return ("in_flight", [])
    return ("waits", sorted(set(missing)))


def step_of(view, inst):
    """(phase, group) of the program step an instance runs: its members' calls share both."""
    L = next(iter(inst.launches.values()), None)
    return (L.call.phase, L.call.group) if L is not None else (None, None)


def is_p2p(inst):
    L = next(iter(inst.launches.values()), None)
    return L is not None and L.call.is_p2p()


def fresh_rank(view, r):
    return r in view.known and r not in view.stale and r not in view.fatal


def recorded_step(view, r, phase, family):
    """Whether r's dump records a call of program step `phase` on a group of `family`."""
    return any(L.call.phase == phase and L.call.group.family == family and view.visible(L, r)
               for L in view.eng.stream[r])


def went_past(view, r, inst, accused):
    """E15: r, waited for in `inst`, never issued it, yet its fresh dump records a later step's
    call, and another fresh dump records both steps (the program's order shown). A witness
    that is itself waited for in an instance it never issued (`accused`) may have left that
    one out: its order is what is in doubt (frtrace's accused())."""
    phase, group = step_of(view, inst)
    if phase is None or not fresh_rank(view, r) or r in inst.launches:
        return False
    mine = [L for L in view.eng.stream[r] if view.visible(L, r)]
    if any(L.call.phase == phase and L.call.group is group for L in mine):
        return False  # it ran this step on this group, another instance of it
    later = {(L.call.phase, L.call.group.family) for L in mine if L.call.phase > phase}
    if is_p2p(inst):  # a pair's step is not every member's: the sibling groups' members in
        # r's place say whether the program has r there (frtrace's p2p_family_vote)
        at = group.local(r)
        step = [g.members[at] for g in view.eng.job.layout.families[group.kind]
                if g is not group and g.size == group.size and g.members[at] != r]
        step = [w for w in step if fresh_rank(view, w) and
                any(L.call.phase == phase and L.call.group.family == group.family and
                    view.visible(L, w) for L in view.eng.stream[w])]
    else:
        step = [w for w in range(len(view.eng.stream)) if w != r and fresh_rank(view, w) and
                recorded_step(view, w, phase, group.family)]
    if len(step) < 2:
        return False  # one rank's word alone: it may be the one off the program (E12, sim seed
        # 95: an all_to_all on the world group in an ep step, which nobody else ran)
    return any(w not in accused and any(recorded_step(view, w, ph, fam) for ph, fam in later)
               for w in step)


def lonely(view, inst):
    """Whether one member alone issued `inst` while more than half of its group of three or more,
    seen with fresh dumps, never did (frtrace's fa_vw_lonely_op)."""
    if len(inst.members) < 3 or len(inst.launches) != 1:
        return False
    never = sum(1 for m in inst.members if m not in inst.launches and fresh_rank(view, m))
    return 2 * never > len(inst.members)


def skippers(view, graph):
    """E15: the ranks the dumps show went past an instance a waiter waits for them in."""
    absent = []  # (instance, member): waited for in an instance it has no launch in
    for v, ws in graph.items():
        fr = view.frontier(v)
        for inst in (fr.insts if fr is not None and ws else []):
            absent += [(inst, m) for m in view.missing(inst)[0]
                       if m != v and m in ws and m not in inst.launches]
    # an instance one member issued alone, while most of its group (three or more) is seen
    # elsewhere, is that member's word alone (E15's rule for witnesses): it accuses nobody of
    # leaving it out (frtrace's fa_vw_lonely_op; sim seeds 6446, 8456: a broadcast a rank ran on
    # the world group in its tensor group's step made every other rank a doubtful witness)
    accused = {m for inst, m in absent if not lonely(view, inst)}
    out, asked = set(), set()
    for inst, m in absent:
        if m not in out and (inst.key, m) not in asked:
            asked.add((inst.key, m))
            if went_past(view, m, inst, accused):
                out.add(m)
    return out


def sccs(nodes, edges):
    """Tarjan's strongly connected components (iterative)."""
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = [0]
    for v0 in nodes:
        if v0 in index:
            continue
        work = [(v0, 0)]
        while work:
            v, i = work.pop()
            if i == 0:
                index[v] = low[v] = counter[0]
                counter[0] += 1
                stack.append(v)
                on.add(v)
            succ = edges.get(v, [])
            if i < len(succ):
                work.append((v, i + 1))
                w = succ[i]
                if w not in index:
                    work.append((w, 0))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            for w in succ:
                if w in on:
                    low[v] = min(low[v], low[w])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                out.append(sorted(comp))
    return out


def reason(view, gloo, fault_ranks):
    """The verdict a reader with this view reaches: status, culprits, alternatives, graph."""
    eng = view.eng
    W = len(eng.stream)
    graph, stalled, stuck, in_flight = {}, [], [], []
    for r in range(W):
        w = waits(view, r, gloo)
        if w is None:
            continue
        kind, ranks = w
        if kind == "stalled":
            stalled.append(r)
        elif kind == "stuck":
            stuck.append(r)
        elif kind == "in_flight":
            in_flight.append(r)
        else:
            graph[r] = ranks
    idle = lambda m: m in view.known and m not in view.stale and m not in view.fatal and \
        m not in graph and m not in stalled and m not in stuck and m not in in_flight
    waited_by = {}
    for v, ws in graph.items():
        for w in ws:
            waited_by.setdefault(w, set()).add(v)
    # E12: a waiter whose operation more than half the members never issued while idle
    # (nothing pending), and that nobody else waits for, issued an operation the group will
    # never run: it is the odd one. Idle ranks that other waiters wait for too never joined
    # them either (W2): several ranks seen waiting for them agree on the program.
    skipped = skippers(view, graph)  # E15, read before E12 and E14 rewrite the waits
    extra = set()
    for r, ws in graph.items():
        fr = view.frontier(r)
        if fr is None or not ws:
            continue
        size = sum(len(i.members) for i in fr.insts)
        seen_idle = [m for m in ws if idle(m) and waited_by.get(m) == {r} and m not in skipped]
        # a member that never issued r's operation and waits for r alone elsewhere contradicts
        # r's order as an idle one does: r owes it an operation r never issued (seeds 510, 8061:
        # exactly half idle, the other half waiting for r in the operation r left for this one)
        owed = [m for m in ws if graph.get(m) == [r] and m not in skipped and
                not any(m in i.launches and view.visible(i.launches[m], m) for i in fr.insts)]
        if len(seen_idle) * 2 > size or (seen_idle and (len(seen_idle) + len(owed)) * 2 > size):
            extra.add(r)
    # E14: a rank that waits in a send/recv on idle peers that nobody else waits for, while
    # another rank waits on it in the other half of that send/recv (it sends to the rank that
    # receives, or the reverse), posted to the wrong peer: it explains both unmatched halves.
    # A peer without a readable dump beside the idle one (the same batch) changes nothing of
    # that: the post to the idle peer is unmatched whatever it did; it stays an alternative (E1:
    # it may have stopped too). Seed 3071: 1's batch sends to 5 and receives from 0 (garbage);
    # 5's whole dump shows its batch of that step done with no recv from 1; 2 waits for 1's send.
    # A peer there that is stopped itself (stuck, its GPU stalled) changes nothing of it either;
    # it holds up the poster and is named beside it (seed 1608: 8 sends to 13 instead of 9 and
    # receives from 15, whose dump read final shows a GPU that stopped).
    posters, beside, holders = set(), set(), set()
    for r, ws in graph.items():
        fr = view.frontier(r)
        held = [m for m in ws if m in view.known and (m in stuck or m in stalled)]
        shown = [m for m in ws if m in view.known and m not in held]
        if not shown or fr is None or not fr.call.is_p2p() or \
                any(not idle(m) or m in skipped or waited_by.get(m, set()) != {r} for m in shown):
            continue
        halves = {("recv" if op.name == "send" else "send") for op in fr.call.ops
                  if op.peer in shown}
        for z in waited_by.get(r, ()):
            fz = view.frontier(z)
            if z != r and fz is not None and fz.call.is_p2p() and \
                    any(op.peer == r and op.name in halves for op in fz.call.ops):
                posters.add(r)
                beside.update(m for m in ws if m not in view.known)
                holders.update(held)
    extra |= posters
    for r in extra:
        graph[r] = []
    # Unknown ranks (no readable dump) are never seen waiting: the known graph leaves them out
    # and a waiter they explain is not a sink; they are weighed last (E1).
    seen = view.known - view.stale  # an older dump says nothing of the end either (E8)
    hidden = sorted({w for ws in graph.values() for w in ws if w not in seen})
    known_graph = {v: [w for w in ws if w in seen] for v, ws in graph.items()}
    reach, todo = set(), list(graph)
    while todo:
        v = todo.pop()
        if v in reach:
            continue
        reach.add(v)
        todo.extend(known_graph.get(v, []))
    comps = sccs(sorted(reach), known_graph)
    comp_of = {v: i for i, c in enumerate(comps) for v in c}
    culprits, cycles = set(stalled), []
    culprits |= skipped  # E15: went past an instance others wait for it in
    culprits |= holders  # E14: stopped in the poster's send/recv beside its wrong peer
    for i, c in enumerate(comps):
        if len(c) == 1 and any(comp_of[w] != i for w in known_graph.get(c[0], [])):
            continue  # not a sink; a cycle is a deadlock even where it waits for others too
        if len(c) == 1 and (c[0] not in graph or c[0] in extra):
            culprits.add(c[0])  # seen not waiting: stopped, dead (its fatal dump), or E12
        elif len(c) == 1:
            continue  # waits for unknown ranks only: they explain it
        else:
            cycles.append(c)
            if W == 2:  # E11: two ranks, two orders: nobody shows which one broke it
                culprits.update(c)
            else:
                culprits.update(v for v in c if v in fault_ranks)
    # E17: a waiter in a send/recv with one peer alone (group of more than two) whose dump is
    # empty (only-active: what it completed is dropped), that peer idle and waited for by
    # nobody else: "the peer never posted" (the waiter waits for it, a sink) and "the waiter's
    # GPU stalled after the transfer" (the peer's launch done, the waiter stalled) read alike.
    two = two_readings(view, graph, stalled, waited_by, skipped, idle, culprits)
    reasons = []
    for x, y in two:
        culprits.discard(y)
        culprits.discard(x)
        reasons.append("E17: rank %d waits in a send/recv with rank %d alone, whose dump is "
                       "empty: %d never posted, or %d's GPU stalled after the transfer: one of "
                       "them" % (x, y, y, x))
    # E1: a rank nobody can see is needed only when no seen culprit could be what it waits for
    alternatives = []
    if culprits or two:
        alternatives = [[u] for u in sorted(set(hidden) | (beside - culprits))]
        alternatives = sorted({tuple(a) for a in alternatives} |
                              {(v,) for x, y in two for v in (x, y)})
        alternatives = [list(a) for a in alternatives]
    else:
        culprits, alternatives, reasons = one_of(view, graph, hidden)
    return {"graph": {str(k): v for k, v in sorted(graph.items())}, "stalled": stalled,
            "stuck": stuck, "in_flight": in_flight, "culprits": sorted(culprits),
            "alternatives": alternatives, "cycles": cycles, "reasons": reasons,
            "waiting": bool(graph) or bool(stalled)}


def two_readings(view, graph, stalled, waited_by, skipped, idle, culprits):
    """E17: the (waiter, peer) pairs whose bytes read alike for "the peer never posted" and
    "the waiter's GPU stalled after the transfer": the waiter, fresh, has a send/recv of a group
    of more than two at its frontier with that peer alone, and waits for it alone (it never
    posted: a sink) or is stalled there (the peer's launch done); the peer is idle, waited for
    by nobody else, and its dump holds no entry (view.drops: only-active, nothing in flight).
    The pg_status counters of such a group count send/recv per rank, not per pair."""
    out = []
    for x in sorted(set(graph) | set(stalled)):
        fr = view.frontier(x)
        if fr is None or not fr.call.is_p2p() or fr.call.group.size <= 2 or \
                not fresh_rank(view, x) or x in skipped:
            continue
        peers = {op.peer for op in fr.call.ops}
        if len(peers) != 1:
            continue
        y = peers.pop()
        if not idle(y) or y in skipped or not view.drops(y) or \
                waited_by.get(y, set()) - {x} or \
                (x in graph and graph[x] != [y]) or (x not in graph and waited_by.get(y)) or \
                (y if x in graph else x) not in culprits:
            continue
        out.append((x, y))
    return out


def passed(view, c, inst):
    """A readable peer's dump shows c completed an instance that lies at or beyond inst in c's
    stream: c went on past inst (what makes a dump older, E8, proves no more than that)."""
    L = inst.launches.get(c)
    if L is None:
        return False
    for M in view.eng.stream[c][L.pos:]:
        for i in M.insts:
            for m, K in i.launches.items():
                if m != c and m in view.known and not K.failed and \
                        K.done_t is not None and K.done_t <= view.T[m] and view.visible(K, m):
                    return True
    return False


def program_keys(eng, x):
    """The instance keys of x's program, call by call, as the engine binds them (issued or
    not: a rank without a dump may have gone as far as any of them)."""
    out, coll, p2p = [], {}, {}
    for call in eng.job.calls[x]:
        g, keys = call.group, []
        if call.is_p2p():
            for op in call.ops:
                src, dst = (x, op.peer) if op.name == "send" else (op.peer, x)
                k = p2p[(g.uid, src, dst, op.name)] = p2p.get((g.uid, src, dst, op.name), 0) + 1
                keys.append((("p", g.uid, src, dst, k), (min(src, dst), max(src, dst))))
        else:
            k = coll[g.uid] = coll.get(g.uid, 0) + 1
            keys.append((("c", g.uid, k), tuple(g.members)))
        out.append(keys)
    return out


def can_block(view, graph, x, y):
    """Could x be blocked behind y, as far as the dumps show? x has not passed the earliest
    operation of its program that a waiter is pending in with it (a collective completes for
    none before all arrive), so x is pending at or before it; y holds x up only in an operation
    there that no dump shows completed and that no dump shows y past."""
    waited = set()
    for v in graph:
        fr = view.frontier(v)
        waited.update(i.key for i in (fr.insts if fr is not None else []) if x != v)
        if fr is None and graph[v] and x != v:
            # a gloo rank whose newest operation failed waits there (E9): x never got past it
            # either (seeds 5290, 5788, 12305: the killed rank read as blocked further on)
            last = [L for L in view.eng.stream[v] if view.visible(L, v)]
            waited.update(i.key for i in (last[-1].insts if last else []))
    prog = program_keys(view.eng, x)
    first = next((n for n, keys in enumerate(prog) if any(k in waited for k, _ in keys)), None)
    if first is None:
        return False
    # y, or a seen waiter whose waits lead to y, holds x up in an operation up to there
    behind, todo = set(), [y]
    back = {}
    for v, ws in graph.items():
        for w in ws:
            back.setdefault(w, []).append(v)
    while todo:
        w = todo.pop()
        if w not in behind:
            behind.add(w)
            todo.extend(back.get(w, []))
    for keys in prog[:first + 1]:
        for key, members in keys:
            inst = view.eng.insts.get(key)
            for z in members:
                if z == x or z not in behind:
                    continue
                if inst is None:
                    return True  # nobody issued it: no member arrived
                if completed_somewhere(view, inst, view.known):
                    continue
                if (z == y and not passed(view, y, inst)) or \
                        (z != y and z in sum(view.missing(inst), [])):
                    return True
    return False


def issued_where_waited(view, graph, u):
    """E13, E16: u's cut pickle's counters say it issued every instance a seen waiter waits in
    for it (its CPU went on to them: it stopped nowhere before)."""
    found = False
    for v in graph:
        fr = view.frontier(v)
        for inst in (fr.insts if fr is not None and v != u else []):
            missing, unsure = view.missing(inst)
            if u in missing or u in unsure:
                if not counted_issued(view, inst.launches.get(u), u):
                    return False
                found = True
    return found


def one_of(view, graph, hidden):
    """E16: (culprits, alternatives, reasons) where no seen rank explains the waits. The hidden
    ranks are the culprits (E1), unless a cut or older dump is among the candidates: a cut dump
    shows nothing after its cut (a rank whose CPU stopped still writes one), and an older one
    leaves open whether the rank went on as far as the wait; either may be blocked behind a
    rank without a dump, or that rank behind it. Then the dumps prove only one of them."""
    unknown = [u for u in hidden if u not in view.known]
    if len(unknown) != 1:  # several unknown ranks are all named (E1); "one of" cannot say more
        return set(hidden), [], []
    reasons = []
    cand, x = set(hidden), unknown[0]
    stale = [u for u in hidden if u in view.stale]
    if len(stale) == 1:  # x or u alone explains the waits where the other may be blocked on it
        u = stale[0]
        x_alone, u_alone = can_block(view, graph, u, x), can_block(view, graph, x, u)
        if x_alone and issued_where_waited(view, graph, u):
            reasons.append("E16: rank %d, named for a wait only through a cut dump whose counters "
                           "say it issued what it is waited for in, did not stop before it: it "
                           "is blocked behind rank %d, which left no readable dump" % (u, x))
            return set(hidden) - {u}, [], reasons
        what = "a cut" if u in view.cut else "an older"
        if x_alone and u_alone:
            reasons.append("E16: rank %d, named for a wait only through %s dump, may be blocked "
                           "behind rank %d, which left no readable dump, or rank %d behind "
                           "it: one of them" % (u, what, x, x))
            return set(), [[x], [u]], reasons
        if x_alone != u_alone:
            a, b = (x, u) if x_alone else (u, x)
            reasons.append("E16: rank %d may be blocked behind rank %d (%s dump), not the "
                           "reverse: %d is named, %d an alternative" % (
                               b, a, "no readable" if a == x else what, a, b))
            return {a}, [[b]], reasons
        return set(hidden), [], []
    if stale:
        return set(hidden), [], []
    # a cut member beside a missing unknown one in a waiter's operation: the cut dump does not
    # show it arrived (E13 presumed it went on, as after an older dump; nothing shows it did)
    for v in sorted(graph):
        fr = view.frontier(v)
        for inst in (fr.insts if fr is not None else []):
            missing, unsure = view.missing(inst)
            gone = [m for m in missing if m in unknown]
            if not gone:
                continue
            for c in unsure:
                if c != v and c not in cand and c in view.cut and c not in view.older and \
                        not passed(view, c, inst) and \
                        not counted_issued(view, inst.launches.get(c), c) and \
                        can_block(view, graph, x, c):
                    cand.add(c)
                    reasons.append("E16: rank %d waits in launch %d for rank%s %s (no readable "
                                   "dump) and for rank %d, whose dump stops before it: either "
                                   "may have stopped" % (v, fr.pos, "s" if len(gone) > 1
                                                         else "", ",".join(map(str, gone)), c))
    if not reasons:
        return set(hidden), [], []
    return set(), [[u] for u in sorted(cand)], reasons


def fault_roots(result, fault_ranks):
    """The fault ranks behind each truth culprit: itself when it is one, else the nearest fault
    ranks upstream of it (a wrong peer behind the idle rank it named)."""
    graph = {int(k): v for k, v in result["graph"].items()}
    back = {}
    for v, ws in graph.items():
        for w in ws:
            back.setdefault(w, []).append(v)
    out = set()
    for c in result["culprits"]:
        if c in fault_ranks:
            out.add(c)
            continue
        seen, todo = {c}, [c]
        while todo:
            nxt = []
            for v in todo:
                for u in back.get(v, []):
                    if u not in seen:
                        seen.add(u)
                        (out.add(u) if u in fault_ranks else nxt.append(u))
            todo = nxt
    return sorted(out)


def comparable(sig):
    """What readers can compare of a call: an all_to_all's sizes may differ from rank to rank
    (uneven splits, which dumps do not record), so only its type and dtype count."""
    return tuple((op[0], None, None) + tuple(op[3:]) if "all_to_all" in op[0] else op
                 for op in sig)


def mismatch(view, eng):
    """E3: provable mismatches and their minority sides."""
    out = set()
    found = []
    for inst in eng.insts.values():
        if len(set(inst.sigs.values())) < 2:
            continue
        seen = {}
        for m, L in inst.launches.items():
            if m in view.known and m not in view.fatal and view.visible(L, m):
                seen[m] = comparable(inst.sigs[m])
        if len(seen) < 2 or len(set(seen.values())) < 2:
            continue
        sides = {}
        for m, s in seen.items():
            sides.setdefault(s, []).append(m)
        sizes = sorted((len(v) for v in sides.values()), reverse=True)
        if sizes[0] > sizes[1]:
            big = max(sides.values(), key=len)
            losers = [m for m in seen if m not in big]
        else:
            losers = list(seen)
        out.update(losers)
        found.append({"instance": list(inst.key), "culprits": sorted(losers)})
    return sorted(out), found


STRAGGLER_MIN_RECORDED = 5  # H1: collectives of a group every member's dump records


def recorded_launches(job, eng, dumps, r, cut):
    """The stream positions of the launches whose entries r's readable dump keeps (ring,
    only-active, a cut: E13)."""
    launch_of = []
    record.dump_dict(job, eng, r, dumps[r]["time"], None, launch_of)
    return {p for p in launch_of if r not in cut or p < cut[r]}


def empty_dump(job, eng, dumps, r, seen):
    """E17: r's readable dump holds no entry (an only-active dump of a rank with nothing in
    flight: what it completed is dropped; frtrace's may_drop_done with no entry at all)."""
    if r not in seen:
            seen[r] = not record.dump_dict(job, eng, r, dumps[r]["time"])["entries"]
    return seen[r]


def shows_slow(job, eng, dumps, known, cut, rank):
    """H1: a slow rank is a straggler the dumps can show only where its lateness can be
    measured: in a group of two or more whose every member's readable dump records at least
    STRAGGLER_MIN_RECORDED of the group's collectives that the rank took part in. A slow rank
    without a readable dump, or whose dumps keep only what is in flight (only-active), or whose
    group's other members left no dump, is seen by no one."""
    kept = {}
    count = {}
    for key, inst in eng.insts.items():
        if key[0] != "c" or rank not in inst.launches or len(inst.members) < 2:
            continue
        if any(m not in known for m in inst.members) or inst.done_t is None:
            continue
        ok = True
        for m in inst.members:
            if m not in kept:
                kept[m] = recorded_launches(job, eng, dumps, m, cut)
            L = inst.launches.get(m)
            ok = ok and L is not None and L.pos in kept[m]
        if ok:
            count[key[1]] = count.get(key[1], 0) + 1
            if count[key[1]] >= STRAGGLER_MIN_RECORDED:
                return True
    return False


def older_shown(eng, r, T, known, issued=False):
    """E8: a readable, whole peer's dump completed, with r, an instance that r's dump shows r
    had not issued (beyond its frontier, issued after its dump moment): r issued it later, so its
    dump is older. A collective proves it (it completes once every member ran it), and so does a
    transfer the peer received from r; a send the peer completed to r does not (NCCL completes a
    send that fits the receiver's buffer before the recv is posted: seed 12069). An instance r
    shows issued and pending that a peer completed proves no more than that r's GPU ran it: the
    real NVIDIA runs gpu_error_1st/2nd show peers completing a dozen launches queued behind the
    head of a rank whose GPU failed, in fresh dumps (seeds 12994, 5257)."""
    front = next((L.pos for L in eng.stream[r] if L.issue_t > T[r] or
                  not (L.done_t is not None and L.done_t <= T[r])), len(eng.stream[r]))
    for L in eng.stream[r][front:]:
        if (L.issue_t <= T[r]) != issued or (L.pos == front and issued):
            continue  # `issued`: the instances r shows pending behind its frontier instead
        for inst in L.insts:
            for m, P in inst.launches.items():
                if m != r and m in known and not P.failed and P.done_t is not None and \
                        P.done_t <= T[m] and (not L.call.is_p2p() or inst.key[3] == m):
                    return True
    return False


def either(a, b, u, lagging):
    """E8: the verdicts of two readings of rank u's dump (a: older; b: final, its GPU having run
    past what it recorded, or, with a send alone, stopped where it shows) where the dumps cannot
    tell them apart. Where b names a rank a does not, the answer is what both name, the rest of
    what either names offered as alternatives (one of them). Where b names only ranks a names
    too, a stands: a names every older dump a wait may rest on (weighed as unknown ranks, E1),
    and b named fewer only by presuming the other older dumps went on (seed 3388: 3, 5 and 6
    older, b named 6 alone). Where one reading sees nobody waiting, a stands too: a GPU that ran
    past what it recorded holds up only those who wait for it (no seed of 0:15000 has a wait in
    one reading and none in the other; 5257: ok both ways)."""
    if not a["waiting"] or not b["waiting"] or set(b["culprits"]) <= set(a["culprits"]):
        alts = {x for alt in a["alternatives"] + b["alternatives"] for x in alt} - \
            set(a["culprits"]) if a["waiting"] and b["waiting"] else set()
        if not alts - {x for alt in a["alternatives"] for x in alt}:
            return a
        return dict(a, alternatives=[[x] for x in sorted(alts)])
    both = set(a["culprits"]) & set(b["culprits"])
    named = set(a["culprits"]) | set(b["culprits"]) | \
        {x for alt in a["alternatives"] + b["alternatives"] for x in alt}
    if both == set(a["culprits"]) and named - both == \
            {x for alt in a["alternatives"] for x in alt}:
        return a  # the same answer
    out = dict(a, culprits=sorted(both), alternatives=[[x] for x in sorted(named - both)])
    out["reasons"] = a["reasons"] + [
        ("E8: rank %d's dump shows pending launches that its peers completed with it, none it "
         "had not issued: its dump is older, or its GPU ran past what it recorded (a GPU error): "
         "one of them" if lagging else
         "E8: only a send a peer completed to rank %d lies past its dump, which a recv it never "
         "posted allows: its dump is older, or it stopped where its dump shows: one of them") % u]
    return out


def expected(job, eng, dumps):
    """answer.json's `truth` and `expected` from the run and the dumps written."""
    W = job.layout.world
    gloo = job.backend == "gloo"
    faults = [f for f in job.faults if f.fired is not None]
    fault_ranks = {f.rank for f in faults}
    everyone = set(range(W))
    truth_view = View(eng, everyone, [float("inf")] * W, set(), set(eng.death_t))
    truth = reason(truth_view, gloo, fault_ranks)
    truth_mm, _ = mismatch(truth_view, eng)

    known = {r for r, d in dumps.items() if d["readable"]}
    drops_seen = {}
    T = [dumps[r]["time"] if r in dumps else eng.t_stop for r in range(W)]
    cut = {r: dumps[r]["cut"]["launch"] for r in known if dumps[r].get("cut")}
    numbered = {r: ({"recorder": "launch", "gloo": "gloo"}.get(job.backend, "coll"),  # E13
                    job.backend != "gloo" and (job.rec["timing"] or
                                               job.rec.get("gpu_events") == 2))
                for r in cut if record.rank_format(job, r) == "pickle"}
    stale = {r for r in known if dumps[r].get("older")} | set(cut)  # E13: like an older dump
    fatal = {r for r in known if dumps[r].get("fatal")}
    older = {r for r in known if dumps[r].get("older")}
    drops = None if gloo else lambda r: empty_dump(job, eng, dumps, r, drops_seen)
    view = View(eng, known, T, stale, fatal, cut, set(dumps), hide_p2p=gloo, older=older,
                drops=drops, numbered=numbered)
    seen = reason(view, gloo, fault_ranks)
    whole = {r for r in known if r not in cut}
    for u in sorted(r for r in older if not older_shown(eng, r, T, whole)):
        lag = View(eng, known, T, stale - {u}, fatal, cut, set(dumps), hide_p2p=gloo,
                   older=older - {u}, drops=drops, numbered=numbered,
                   lagging={u} if older_shown(eng, u, T, whole, issued=True) else ())
        seen = either(seen, reason(lag, gloo, fault_ranks), u, lag.lagging)
    mm, mm_found = mismatch(view, eng)
    unknown = sorted(everyone - known)
    alternatives = []
    if len(unknown) * 2 > W:
        status, culprits = "inconclusive", []
    elif mm:
        status, culprits = "mismatch", mm
    elif seen["waiting"]:
        status, culprits = "hang", seen["culprits"]
        alternatives = seen["alternatives"]
    else:
        status, culprits = "ok", []
    stragglers = sorted(r for r in job.slow if shows_slow(job, eng, dumps, known, cut, r)) \
        if status == "ok" else []
    return {
        "truth": {"faults": [f.as_json() for f in job.faults],
                  "root_causes": fault_roots(truth, fault_ranks), "mismatch": truth_mm,
                  "wait_for": truth["graph"], "stalled": truth["stalled"],
                  "cycles": truth["cycles"], "slow_ranks": sorted(job.slow),
                  "dead": sorted(eng.death_t), "hung": truth["waiting"] or bool(truth_mm)},
        "evidence": {"unknown_ranks": unknown, "older_dumps": sorted(stale - set(cut)),
                     "cut_dumps": {str(r): p for r, p in sorted(cut.items())},
                     "names_other_than_truth": status == "hang" and
                     culprits != fault_roots(truth, fault_ranks),
                     "wait_for": seen["graph"], "cycles": seen["cycles"],
                     "mismatches": mm_found, "reasons": seen["reasons"]},
        "expected": {"status": status, "culprit_ranks": culprits, "alternatives": alternatives,
                     "stragglers": stragglers, "class": job.cls},
    }
