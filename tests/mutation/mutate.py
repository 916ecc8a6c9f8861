#!/usr/bin/env python3
"""mutate.py — reads the mutant list for tests/mutation/run.sh and applies one mutant.

  mutate.py list LIST [ID...]        one line per mutant: "ID<TAB>FILE<TAB>TESTS<TAB>NOTE"
                                     (TESTS: the story scripts for FILE, space-separated)
  mutate.py apply LIST ID TREE       rewrites TREE/FILE with the mutant's substitution; exits 1
                                     (with the reason) when the snippet is not found exactly once
  mutate.py check LIST TREE          whether every mutant still applies to TREE's sources (a
                                     mutant whose code moved is stillborn; seconds, not hours):
                                     one line per stale mutant, exit 1 when there is one

The list (tests/mutation/mutants.txt) holds, besides comments (#) and blank lines:
  tests FILE: SCRIPT...              the story scripts that exercise FILE (unit tests always run)
  ID FILE[:LINE] `FROM` ~> `TO`  [# note]
FROM must occur exactly once on LINE (when given) or in the whole FILE (otherwise); it is
replaced by TO. A note starting "equivalent:" marks a mutant no test can kill, with the reason.
"""
import re
import sys

MUTANT = re.compile(r"^(\S+)\s+([^\s:]+)(?::(\d+))?\s+`([^`]*)`\s+~>\s+`([^`]*)`\s*(?:#\s*(.*))?$")


def read_list(path):
    tests, mutants, seen = {}, [], set()
    for n, line in enumerate(open(path), 1):
        s = line.strip()
        if not s or s.startswith("#"):
            continue
        if s.startswith("tests "):
            f, _, names = s[6:].partition(":")
            tests[f.strip()] = names.split()
            continue
        m = MUTANT.match(s)
        if not m:
            sys.exit("%s:%d: not a mutant line: %s" % (path, n, s))
        mid, f, ln, frm, to, note = m.groups()
        if mid in seen:
            sys.exit("%s:%d: mutant %s listed twice" % (path, n, mid))
        if frm == to:
            sys.exit("%s:%d: mutant %s changes nothing" % (path, n, mid))
        seen.add(mid)
        mutants.append({"id": mid, "file": f, "line": int(ln) if ln else None, "from": frm,
                        "to": to, "note": note or ""})
    return tests, mutants


def mutated(text, m):
    """The text with m's substitution, and why not ("" when it applies)."""
    if m["line"]:
        lines = text.split("\n")
        i = m["line"] - 1
        if i >= len(lines) or lines[i].count(m["from"]) != 1:
            return text, "%s: `%s` is not on %s:%d exactly once" % (m["id"], m["from"], m["file"],
                                                                   m["line"])
        lines[i] = lines[i].replace(m["from"], m["to"])
        return "\n".join(lines), ""
    if text.count(m["from"]) != 1:
        return text, "%s: `%s` occurs %d times in %s, not once" % (
            m["id"], m["from"], text.count(m["from"]), m["file"])
    return text.replace(m["from"], m["to"]), ""


def main():
    cmd, path = sys.argv[1], sys.argv[2]
    tests, mutants = read_list(path)
    if cmd == "list":
        want = sys.argv[3:]
        unknown = set(want) - {m["id"] for m in mutants}
        if unknown:
            sys.exit("no such mutant: %s" % " ".join(sorted(unknown)))
        for m in mutants:
            if not want or m["id"] in want:
                print("\t".join([m["id"], m["file"], " ".join(tests.get(m["file"], [])), m["note"]]))
        return 0
    if cmd == "apply":
        mid, tree = sys.argv[3], sys.argv[4]
        m = [x for x in mutants if x["id"] == mid][0]
        target = "%s/%s" % (tree, m["file"])
        text, why = mutated(open(target).read(), m)
        if why:
            sys.exit(why)
        open(target, "w").write(text)
        return 0
    if cmd == "check":
        tree, stale = sys.argv[3], 0
        for m in mutants:
            try:
                _, why = mutated(open("%s/%s" % (tree, m["file"])).read(), m)
            except OSError as e:
                why = "%s: %s" % (m["id"], e)
            if why:
                print(why)
                stale += 1
        print("%d mutants, %d stale" % (len(mutants), stale))
        return 1 if stale else 0
    sys.exit("usage: mutate.py list|apply|check LIST ...")


if __name__ == "__main__":
    sys.exit(main())
