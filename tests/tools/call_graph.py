#!/usr/bin/env python3
"""call_graph.py [--edges] [--only PREFIX]... OBJDIR... — which .c file calls into which other
file's functions, read from the object files' symbols (nm: what each defines, what each needs),
and the cycles in it.

Prints every cycle as "cycle among: a.c b.c" and exits 1 when there is one; with --edges also
prints the graph. A file's calls into itself, and into libraries outside OBJDIRs, do not count.
--only PREFIX (repeatable) keeps the whole graph but reports only the files whose path under
OBJDIR starts with a PREFIX, and only the cycles that contain one ("--only analyzer/").
The house rule it checks: arrows go one way (formats <- analyzer, formats <- recorder), and
within a part each helper lives in the lowest file that needs it.
"""
import argparse
import os
import subprocess
import sys


def symbols(obj):
    out = subprocess.run(["nm", "--defined-only", "-g", obj], capture_output=True, text=True).stdout
    defined = {line.split()[-1] for line in out.splitlines() if len(line.split()) == 3}
    out = subprocess.run(["nm", "-u", obj], capture_output=True, text=True).stdout
    needed = {line.split()[-1] for line in out.splitlines() if line.strip()}
    return defined, needed


def source_name(root, obj):
    return os.path.relpath(obj, root)[:-2] + ".c"  # "analyzer/match/match.c"


def graph(roots):
    defines, needs = {}, {}
    for root in roots:
        for dirpath, _, files in os.walk(root):
            for f in files:
                if f.endswith(".o"):
                    obj = os.path.join(dirpath, f)
                    name = source_name(root, obj)
                    d, n = symbols(obj)
                    needs[name] = n
                    for s in d:
                        defines[s] = name
    edges = {name: sorted({defines[s] for s in n if s in defines and defines[s] != name})
             for name, n in needs.items()}
    return edges


def cycles(edges):
    """Strongly connected components of more than one file (Tarjan, iterative)."""
    index, low, on, stack, out, counter = {}, {}, set(), [], [], [0]
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, 0)]
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
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[v])
    return out


def main():
    parser = argparse.ArgumentParser(description="who calls whom among .c files, and cycles")
    parser.add_argument("--edges", action="store_true", help="print the graph too")
    parser.add_argument("--only", action="append", default=[], metavar="PREFIX",
                        help="report only files under PREFIX (e.g. analyzer/); repeatable")
    parser.add_argument("objdirs", nargs="+", metavar="OBJDIR")
    opts = parser.parse_args()
    for root in opts.objdirs:
        if not os.path.isdir(root):
            parser.error(f"{root}: no such directory")
    edges = graph(opts.objdirs)

    def wanted(name):
        return not opts.only or any(name.startswith(p) for p in opts.only)

    shown = {name: e for name, e in edges.items() if wanted(name)}
    if opts.edges:
        for name in sorted(shown):
            print(f"{name} -> {', '.join(shown[name]) or '-'}")
    found = [comp for comp in cycles(edges) if any(wanted(name) for name in comp)]
    for comp in found:
        print("cycle among: " + " ".join(comp))
    print(f"{len(shown)} files, {sum(len(e) for e in shown.values())} arrows, {len(found)} cycles")
    sys.exit(1 if found else 0)


if __name__ == "__main__":
    main()
