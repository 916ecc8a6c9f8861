#!/usr/bin/env python3
"""mutate.py — reads the mutant list for tests/mutation/run.sh and applies one mutant.

  mutate.py list LIST [ID...]        one line per mutant: "ID<TAB>FILE<TAB>TESTS<TAB>NOTE"
                                     (TESTS: the story scripts for FILE, space-separated)
  mutate.py apply LIST ID TREE       rewrites TREE/FILE with the mutant's substitution; exits 1
                                     (with the reason) when the snippet is not found exactly once
  mutate.py check [--compile] LIST TREE [ID...]
                                     whether every mutant still applies to TREE's sources (a
                                     mutant whose code moved is stillborn; seconds, not hours):
                                     one line per stale mutant, exit 1 when there is one. With
                                     --compile, each mutant of a C file is also compiled with
                                     the project's warnings (-Werror, from the Makefile's WARN)
                                     in a copy of TREE's C sources: the mutated file, or for a
                                     header every C file that names it; a mutant that does not
                                     compile (say, it leaves a static function unused) is
                                     stale too. A minute or two; `make mutation` runs it first.
  mutate.py sync SRC TREE            makes TREE's copy of the files named on stdin (NUL-ended,
                                     relative to SRC) equal to SRC's, copying only those that
                                     differ (a fresh mtime: make rebuilds what they feed) and
                                     removing TREE's other files outside build/; so that the
                                     scratch tree of run.sh rebuilds only what changed (one
                                     line per file copied or removed, then the counts)

The list (tests/mutation/mutants.txt) holds, besides comments (#) and blank lines:
  tests FILE: SCRIPT...              the story scripts that exercise FILE (unit tests always run)
  ID FILE[:LINE] `FROM` ~> `TO`  [# note]
FROM must occur exactly once on LINE (when given) or in the whole FILE (otherwise); it is
replaced by TO. A note starting "equivalent:" marks a mutant no test can kill, with the reason.
"""
import concurrent.futures
import os
import re
import shutil
import subprocess
import sys
import tempfile

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


def sync(src, tree, names):
    """Copies to tree the files of names whose content differs; removes tree's others."""
    keep, copied = set(names), 0
    for name in names:
        a, b = os.path.join(src, name), os.path.join(tree, name)
        if os.path.islink(a) or not os.path.isfile(a):
            continue  # tar copied links the first time; git's files are files here
        if os.path.isfile(b) and not os.path.islink(b):
            with open(a, "rb") as fa, open(b, "rb") as fb:
                if fa.read() == fb.read():
                    continue
        os.makedirs(os.path.dirname(b) or ".", exist_ok=True)
        if os.path.lexists(b):
            os.unlink(b)
        shutil.copyfile(a, b)  # not copy2: a fresh mtime, so that make rebuilds from it
        shutil.copymode(a, b)
        print("copied " + name)
        copied += 1
    removed = 0
    for root, dirs, files in os.walk(tree):
        rel = os.path.relpath(root, tree)
        if rel == "." and "build" in dirs:
            dirs.remove("build")
        for f in files:
            name = os.path.normpath(os.path.join(rel, f))
            if name not in keep:
                os.unlink(os.path.join(root, f))
                print("removed " + name)
                removed += 1
    return copied, removed


def warn_flags(tree):
    """The Makefile's WARN line: the warnings every build uses, -Werror among them."""
    for line in open(os.path.join(tree, "Makefile")):
        m = re.match(r"^WARN\s*:?=\s*(.*)$", line)
        if m:
            return m.group(1).split()
    return ["-Wall", "-Wextra", "-Werror"]


def compile_units(m, copy):
    """The C files a mutant of m["file"] compiles into, relative to copy."""
    if m["file"].endswith(".c"):
        return [m["file"]]
    base = os.path.basename(m["file"])
    units = []
    for root, _, files in os.walk(copy):
        for f in files:
            if f.endswith(".c"):
                path = os.path.join(root, f)
                if re.search(r'#\s*include\s+"([^"]*/)?%s"' % re.escape(base), open(path).read()):
                    units.append(os.path.relpath(path, copy))
    return sorted(units)


def compiles(copy, unit, flags):
    """Why unit does not compile in copy with flags ("" when it does)."""
    cuda = os.environ.get("CUDA_HOME", "/usr/local/cuda")
    cmd = (["cc", "-std=c11", "-D_GNU_SOURCE", "-O2"] + flags +
           ["-Iformats", "-Ianalyzer", "-Irecorder", "-I" + os.path.dirname(unit),
            "-isystem", cuda + "/include", "-c", unit, "-o", "/dev/null"])
    r = subprocess.run(cmd, cwd=copy, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True)
    if r.returncode == 0:
        return ""
    first = [ln for ln in r.stdout.splitlines() if "error" in ln] or r.stdout.splitlines() or [""]
    return first[0]


def check_compile(tree, mutants):
    """One line per mutant of a C file that applies but does not compile; and the count of
    those not checked because their file does not compile alone, unmutated, here."""
    flags = warn_flags(tree)
    c_mutants = [m for m in mutants if m["file"].endswith((".c", ".h"))]
    stale, unchecked = [], 0
    with tempfile.TemporaryDirectory(prefix="mutate-") as tmp:
        copy = os.path.join(tmp, "src")
        shutil.copytree(tree, copy, ignore=lambda d, names: [
            n for n in names if n.startswith("build") or n == ".git" or
            (os.path.isfile(os.path.join(d, n)) and not n.endswith((".c", ".h")))])
        shutil.copy(os.path.join(tree, "Makefile"), copy)
        units = {m["file"]: compile_units(m, copy) for m in c_mutants}
        every = sorted({u for us in units.values() for u in us})
        workers = concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 2)
        fine = dict(zip(every, workers.map(lambda u: not compiles(copy, u, flags), every)))
        for m in c_mutants:
            path = os.path.join(copy, m["file"])
            original = open(path).read()
            text, why = mutated(original, m)
            mine = [u for u in units[m["file"]] if fine[u]]
            if why or not mine:
                unchecked += not why
                continue
            open(path, "w").write(text)
            try:
                errors = [e for e in workers.map(lambda u: compiles(copy, u, flags), mine) if e]
            finally:
                open(path, "w").write(original)
            if errors:
                stale.append("%s: does not compile: %s" % (m["id"], errors[0]))
        workers.shutdown()
    return stale, unchecked


def main():
    if sys.argv[1:2] == ["sync"]:
        names = [n for n in sys.stdin.buffer.read().decode().split("\0") if n]
        copied, removed = sync(sys.argv[2], sys.argv[3], names)
        print("%d files copied, %d removed" % (copied, removed))
        return 0
    with_compile = sys.argv[2:3] == ["--compile"]
    if with_compile:
        del sys.argv[2]
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
        tree, stale, want = sys.argv[3], 0, set(sys.argv[4:])
        mutants = [m for m in mutants if not want or m["id"] in want]
        for m in mutants:
            try:
                _, why = mutated(open("%s/%s" % (tree, m["file"])).read(), m)
            except OSError as e:
                why = "%s: %s" % (m["id"], e)
            if why:
                print(why)
                stale += 1
        if with_compile:
            lines, unchecked = check_compile(tree, mutants)
            for line in lines:
                print(line)
            stale += len(lines)
            print("%d mutants, %d stale (compiled: %d not checked, their file does not "
                  "compile alone)" % (len(mutants), stale, unchecked))
        else:
            print("%d mutants, %d stale" % (len(mutants), stale))
        return 1 if stale else 0
    sys.exit("usage: mutate.py list|apply|check [--compile]|sync LIST ...")


if __name__ == "__main__":
    sys.exit(main())
