#!/usr/bin/env python3
"""hostile_fuzz.py — random hostile strings in every string field of real dumps (issue 20).

Usage: hostile_fuzz.py FRTRACE SRC_JOB SECONDS [SEED]
For SECONDS (at least one round), each round copies the real job SRC_JOB (a directory of
pickles, e.g. lock_gil_1st) and writes into one to four of its string fields random text made
of escape sequences (CSI, OSC 52, OSC 8), C0 and C1 controls, DEL, bidi and invisible format
characters, lone surrogates, NULs, newlines, markdown and HTML specials, backtick runs and
plain Unicode: group names (pg_config key, name and every entry's process_group, kept
consistent), descs, profiling names, thread names and ids, frames, dtypes, states, the version
and nccl_version, on every rank or on one. The dumps are written as pickles or as JSON. Then
every output of frtrace runs on it — the report (-v, --print-stack-trace), markdown, -j, stats
in three formats, the database, the timeline as JSON and SVG, show — and each is judged by
tests/tools/check_output.py (and the exit status must be 0, 1 or 2, within 20 s). A failing
round's job is kept in ./hostile-fuzz-failure-N (cwd) and the script exits 1.
Prints "hostile_fuzz: N rounds in S s, seed X".
"""
import json
import os
import pickle
import random
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
import check_output  # noqa: E402

PIECES = [
    "\x1b[2J", "\x1b[31m", "\x1b]52;c;ZWNobyBwd25lZA==\x07", "\x1b]8;;http://evil.example/\x1b\\",
    "\x1b]0;title\x07", "\x1bP+q\x1b\\", "\x9b31m", "\x9d0;x\x9c", "\x85", "\r", "\n", "\t", "\x00",
    "\x07", "\x08", "\x7f", "\u202e", "\u202d", "\u2066", "\u2069", "\u200b", "\u200f", "\u2028",
    "\ufeff", "\ufffe", "\ud800", "\udfff", "\udc80", "\ud83d", "```", "`", "``", "<img src=x onerror=alert(1)>",
    "<script>", "</details>", "[x](javascript:alert(1))", "![i](http://e/x.png)", "# ", "\n# h",
    "\n- item", "\n> q", "\n1. one", "#123", "@oncall", "www.evil.example", "https://evil.example",
    "|", "\\|", "\\", "*", "_", "~~", "&amp;", "&", "<", ">", "\"", "'", "]]>", "<!--", "é", "日本",
    "\U0001F600", " ", "  ", "DP", "nccl:all_reduce", "%s%n", "{}", "\ud800\udc00",
]


def random_text(rng):
    parts = [rng.choice(PIECES) for _ in range(rng.randint(1, 8))]
    if rng.random() < 0.2:
        parts.append(chr(rng.randint(1, 0x10FFFF)))
    return "".join(parts)


def rename_group(job, old, new):
    for d in job.values():
        if old in d["pg_config"]:
            cfg = d["pg_config"].pop(old)
            cfg["name"] = new
            d["pg_config"][new] = cfg
        for e in d.get("entries", []):
            if e["process_group"][0] == old:
                e["process_group"] = (new, e["process_group"][1])


def mutate(job, rng):
    """One to four random string fields get random hostile text; returns what was done."""
    done = []
    ranks = sorted(job)
    for _ in range(rng.randint(1, 4)):
        field = rng.choice(["group", "desc", "name", "thread", "tid", "frame", "dtype", "state",
                            "version", "nccl", "desc_one", "name_one"])
        text = random_text(rng)
        done.append((field, text))
        some = job[rng.choice(ranks)]
        if field == "group":
            rename_group(job, rng.choice(sorted(some["pg_config"])), text)
        elif field in ("desc", "desc_one"):
            old = rng.choice(sorted(cfg["desc"] for cfg in some["pg_config"].values()))
            for d in job.values() if field == "desc" else [some]:
                for cfg in d["pg_config"].values():
                    if cfg["desc"] == old:
                        cfg["desc"] = text
                for e in d.get("entries", []):
                    if e["process_group"][1] == old:
                        e["process_group"] = (e["process_group"][0], text)
        elif field in ("name", "name_one"):
            for d in job.values() if field == "name" else [some]:
                for e in d.get("entries", []):
                    if rng.random() < 0.5:
                        e["profiling_name"] = e["profiling_name"] + rng.choice(["", " "]) + text
        elif field in ("thread", "tid", "frame", "dtype", "state"):
            for d in job.values():
                for e in d.get("entries", []):
                    if field == "thread":
                        e["thread_name"] = text
                    elif field == "tid":
                        e["thread_id"] = text
                    elif field == "frame":
                        e["frames"] = [{"name": text, "filename": random_text(rng), "line": 3}]
                    elif field == "dtype" and rng.random() < 0.3:
                        e["input_dtypes"] = [text]
                    elif field == "state" and rng.random() < 0.05:
                        e["state"] = text
        elif field == "version":
            some["version"] = text
        elif field == "nccl":
            some["nccl_version"] = text
    return done


RUNS = [
    ("text", "o.text", ["-v", "--print-stack-trace"]),
    ("markdown", "o.md", ["-f", "markdown", "-v", "--print-stack-trace"]),
    ("jira", "o.jira", ["-f", "jira", "-v", "--print-stack-trace"]),
    ("text", "o.j", ["-j", "-v", "--print-stack-trace"]),
    ("text", "o.stats", ["stats"]),
    ("markdown", "o.statsmd", ["stats", "-f", "markdown"]),
    ("json", "o.statsjson", ["stats", "-f", "json"]),
    ("json", "o.db", ["-f", "json", "--all-calls"]),
    ("json", "o.trace", ["timeline", "-f", "json"]),
    ("svg", "o.svg", ["timeline", "-f", "svg"]),
]


def judge(frtrace, jobdir, work):
    """Every output of frtrace on jobdir; the list of problems found."""
    found = []
    runs = RUNS + [("json", "o.show", ["show", os.path.join(jobdir, sorted(os.listdir(jobdir))[0])])]
    for kind, name, args in runs:
        cmd = [frtrace] + args + ([] if args[0] == "show" else ["--", jobdir])
        try:
            p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=20)
        except subprocess.TimeoutExpired:
            found.append("%s: timed out" % " ".join(args))
            continue
        if p.returncode not in (0, 1, 2):
            found.append("%s: exit %d" % (" ".join(args), p.returncode))
        if p.returncode == 2 and args[0] == "show":
            continue  # a dump this round broke (a bad version): refused, nothing to judge
        for k, data, what in ((kind, p.stdout, "stdout"), ("text", p.stderr, "stderr")):
            if p.returncode == 2 and what == "stdout":
                continue
            found += ["%s %s: %s" % (" ".join(args), what, x) for x in check_output.problems(k, data)]
    return found


def write_job(job, out, as_json):
    os.makedirs(out)
    for name, d in job.items():
        if as_json:
            with open(os.path.join(out, name), "w", encoding="ascii") as f:
                json.dump(d, f)
        else:
            with open(os.path.join(out, name), "wb") as f:
                pickle.dump(d, f, protocol=rng_protocol(name))


def rng_protocol(name):
    return 2 + sum(map(ord, name)) % 4  # protocols 2 to 5, as Python re-writes pickles


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    frtrace, src, seconds = os.path.abspath(sys.argv[1]), sys.argv[2], float(sys.argv[3])
    seed = int(sys.argv[4]) if len(sys.argv) > 4 else random.SystemRandom().randrange(1 << 30)
    rng = random.Random(seed)
    base = {}
    for name in sorted(os.listdir(src)):
        with open(os.path.join(src, name), "rb") as f:
            base[name] = pickle.load(f)
    start, rounds, failures = time.time(), 0, 0
    scratch = "hostile-fuzz-round"
    while rounds == 0 or time.time() - start < seconds:
        rounds += 1
        job = pickle.loads(pickle.dumps(base))
        done = mutate(job, rng)
        as_json = rng.random() < 0.4
        shutil.rmtree(scratch, ignore_errors=True)
        write_job(job, scratch, as_json)
        found = judge(frtrace, scratch, ".")
        if found:
            failures += 1
            keep = "hostile-fuzz-failure-%d" % failures
            shutil.rmtree(keep, ignore_errors=True)
            os.rename(scratch, keep)
            print("round %d (%s, seed %d): %r" % (rounds, "json" if as_json else "pickle", seed, done))
            for x in found[:8]:
                print("  " + x)
            if failures >= 3:
                break
    shutil.rmtree(scratch, ignore_errors=True)
    print("hostile_fuzz: %d rounds in %.0f s, seed %d, %d failing" % (rounds, time.time() - start, seed, failures))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
