"""encode.py — a dump (a Python dict) as the bytes that each producer writes.

* torch_pickle(): the pickle that torch's C++ Pickler writes for Flight Recorder dumps
  (docs/dump-formats.md §1): PROTO 2; BINUNICODE strings memoized by value; ints by the
  BININT1/BININT2/BININT/LONG1(8 bytes) ladder; BINFLOAT doubles; dicts EMPTY_DICT MARK ...
  SETITEMS and lists EMPTY_LIST MARK ... APPENDS even when empty; tuples TUPLE1/2/3; containers
  memoized only where torch's refcount made them shared (frame dicts referenced twice or more,
  and the root dict when the producer pickled a named local: `root_memo`).
* torch_json(): PyTorch's JSON layout (nlohmann::json): keys sorted, compact, no frames,
  process_group an array, time_discovered_* 0 for None, pg_status values as strings, entries
  left out when empty, "nccl_comm_state": {}.
* python_pickle(): the dump as Python re-wrote it (pickle.load, then pickle.dump).
Written from the specification, independently of the project's C writer, so that a bug in one
does not hide in the other.
"""
import json
import pickle
import struct


_SHAPES = {}
_Q = struct.Struct("<q")


class _TorchPickler:
    def __init__(self, shared_ids):
        self.out = bytearray()
        self.next_memo = 0
        self.strings = {}
        self.objects = {}
        self.shared_ids = shared_ids  # id() of containers torch held more than one reference to
        self.entry_starts = []  # byte offset where each entry dict begins (to cut a dump there)

    def _put(self):
        n = self.next_memo
        self.out += b"q" + bytes([n]) if n <= 0xFF else b"r" + struct.pack("<I", n)
        self.next_memo += 1
        return n

    def _get(self, n):
        self.out += b"h" + bytes([n]) if n <= 0xFF else b"j" + struct.pack("<I", n)

    def value(self, v):
        t = type(v)
        if t is str:
            n = self.strings.get(v)
            if n is None:
                self._str(v)
            elif n <= 0xFF:
                self.out += b"h" + bytes((n,))
            else:
                self._get(n)
        elif t is int:
            if 0 <= v <= 0xFF:
                self.out += b"K" + bytes((v,))
            else:
                self._int(v)
        elif v is None:
            self.out += b"N"
        elif v is True:
            self.out += b"\x88"
        elif v is False:
            self.out += b"\x89"
        elif t is float:
            self.out += b"G" + struct.pack(">d", v)
        elif id(v) in self.objects:
            self._get(self.objects[id(v)])
        else:
            self._container(v)

    def _int(self, n):
        if 0 <= n <= 0xFF:
            self.out += b"K" + bytes([n])
        elif 0 <= n <= 0xFFFF:
            self.out += b"M" + struct.pack("<H", n)
        elif -(2 ** 31) <= n < 2 ** 31:
            self.out += b"J" + struct.pack("<i", n)
        else:
            self.out += b"\x8a\x08" + struct.pack("<q", n)

    def _str(self, s):
        if s in self.strings:
            self._get(self.strings[s])
            return
        raw = s.encode("utf-8")
        self.out += b"X" + struct.pack("<I", len(raw)) + raw
        self.strings[s] = self._put()

    def _shapes(self, v):
        """A list of shapes (lists of ints): no strings, so its bytes never depend on the memo."""
        key = tuple(map(tuple, v))
        raw = _SHAPES.get(key)
        if raw is None:
            p = _TorchPickler(())
            for shape in v:
                p.out += b"]("
                for n in shape:
                    p._int(n)
                p.out += b"e"
            raw = _SHAPES[key] = b"](" + bytes(p.out) + b"e"
        self.out += raw

    def _entry(self, e):
        """An entry dict, inline: the same bytes as value(), without one call per field."""
        out, strings, pack_q = self.out, self.strings, _Q.pack
        out += b"}("
        for k, x in e.items():
            n = strings.get(k)
            if n is not None and n <= 0xFF:
                out += b"h" + bytes((n,))
            else:
                self.value(k)
            t = type(x)
            if t is int:
                if 0 <= x <= 0xFF:
                    out += b"K" + bytes((x,))
                elif x > 0x7FFFFFFF:
                    out += b"\x8a\x08" + pack_q(x)
                else:
                    self._int(x)
            elif t is str:
                n = strings.get(x)
                if n is not None and n <= 0xFF:
                    out += b"h" + bytes((n,))
                else:
                    self.value(x)
            elif t is list:
                if x and type(x[0]) is list:
                    self._shapes(x)
                elif x and type(x[0]) is str:
                    out += b"]("
                    for y in x:
                        n = strings.get(y)
                        if n is not None and n <= 0xFF:
                            out += b"h" + bytes((n,))
                        else:
                            self.value(y)
                    out += b"e"
                else:
                    self.value(x)
            elif x is None:
                out += b"N"
            elif x is True:
                out += b"\x88"
            elif x is False:
                out += b"\x89"
            else:
                self.value(x)
        out += b"u"

    def _container(self, v):
        if isinstance(v, dict):
            self.out += b"}("
            for k, x in v.items():
                self.value(k)
                self.value(x)
            self.out += b"u"
        elif isinstance(v, list) and v and type(v[0]) is list and id(v) not in self.shared_ids:
            self._shapes(v)
            return
        elif isinstance(v, list):
            self.out += b"]("
            for x in v:
                if type(x) is dict and "record_id" in x and id(x) not in self.shared_ids:
                    self.entry_starts.append(len(self.out))
                    self._entry(x)
                else:
                    self.value(x)
            self.out += b"e"
        elif isinstance(v, tuple):
            if not v:
                self.out += b")"
            elif len(v) <= 3:
                for x in v:
                    self.value(x)
                self.out += b"\x85\x86\x87"[len(v) - 1:len(v)]
            else:
                self.out += b"("
                for x in v:
                    self.value(x)
                self.out += b"t"
        else:
            raise TypeError("cannot pickle %r" % type(v))
        if id(v) in self.shared_ids:
            self.objects[id(v)] = self._put()


def _shared_frames(dump):
    """id()s of the frame dicts that two or more frame slots refer to."""
    seen, shared = set(), set()
    for e in dump.get("entries", []):
        for f in e.get("frames", ()):
            (shared if id(f) in seen else seen).add(id(f))
    return shared


def torch_pickle(dump, root_memo, entry_starts=None):
    """torch's pickle of a dump; entry_starts, a list, gets the byte offset of each entry."""
    p = _TorchPickler(_shared_frames(dump))
    p.out += b"\x80\x02"
    p.value(dump)
    if root_memo:
        p._put()
    p.out += b"."
    if entry_starts is not None:
        entry_starts.extend(p.entry_starts)
    return bytes(p.out)


def _json_entry(e):
    j = {k: v for k, v in e.items() if k != "frames"}
    j["process_group"] = list(e["process_group"])
    for k in ("time_discovered_started_ns", "time_discovered_completed_ns"):
        if j[k] is None:
            j[k] = 0
    return j


def torch_json(dump, entry_spans=None):
    """torch's JSON of a dump; entry_spans, a list, gets each entry's (start, end) byte offsets
    (keys sorted: the entries come right after comm_lib_version, before pg_config/pg_status)."""
    j = {k: v for k, v in dump.items() if k != "entries"}
    j["pg_status"] = {pg: {k: str(v) for k, v in s.items()} for pg, s in dump["pg_status"].items()}
    if dump.get("entries"):
        j["entries"] = [_json_entry(e) for e in dump["entries"]]
    j["nccl_comm_state"] = {}
    dumps = lambda v: json.dumps(v, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    raw = dumps(j).encode()
    if entry_spans is not None:
        at = raw.find(b'"entries":[')
        for e in j.get("entries", []):
            one = dumps(e).encode()
            at = raw.find(one, at)
            entry_spans.append((at, at + len(one)))
            at += len(one)
    return raw


def python_pickle(dump, protocol):
    """What `pickle.dump(pickle.load(f), out, protocol)` writes: tuples stay tuples."""
    return pickle.dumps(pickle.loads(torch_pickle(dump, False)), protocol=protocol)
