#!/usr/bin/env python3
"""check_output.py — does an output of frtrace obey nothing it read? (issue 20)

Usage: check_output.py KIND FILE [WANT]
       check_output.py each KIND:FILE...     several at once (one Python start)
KIND is one of:
  text      valid UTF-8; no control character but '\\n' (no ESC, CR, BEL, NUL, DEL, no C1 such
            as U+009B), no bidi or invisible format character (U+202E, U+2066, U+200B, ...)
  markdown  the same, and outside code spans and fenced blocks nothing that GitHub would turn
            into HTML, a link, an image, a heading, a list, a quote, a fence or an autolink
            (#123, @name, http://, www.): only frtrace's own headings, list items, <details>
            and fences; every table row has its header's number of cells
  jira      the same as text, and outside {{monospace}} and {noformat} blocks only what frtrace
            writes itself (h1.-h3. headings, # and * list items, || and | table rows, _notes_,
            *titles*); inside {{...}} every wiki-markup character is escaped, so that nothing
            forms an effect, a macro, a link, an image, a mention, an emoticon, a cell or a list
  json      strict UTF-8 and a JSON document (Python's json); with WANT, some string in it
            equals WANT (a Python string literal's body, e.g. 'a\\x00b' or '\\ud800')
  svg       strict UTF-8 and well-formed XML (xml.etree)
Prints what is wrong and exits 1, else exits 0. Also a module for the fuzzer.
"""
import ast
import json
import re
import sys
import xml.etree.ElementTree as ET

FORMAT_CHARS = re.compile("[\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff\ufff9-\uffff]")
CONTROLS = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f]")


def text_problems(data):
    try:
        s = data.decode("utf-8")
    except UnicodeDecodeError as e:
        return ["not valid UTF-8: %s" % e]
    found = []
    for pattern, what in ((CONTROLS, "control character"), (FORMAT_CHARS, "format character")):
        m = pattern.search(s)
        if m:
            found.append("raw %s U+%04X near %r" % (what, ord(m.group()), s[max(0, m.start() - 30):m.end() + 10]))
    return found


def strip_code(line):
    """The line with its code spans (CommonMark: a run of n backticks up to the next run of n)
    replaced by a placeholder; None when a backtick run is left open."""
    out, i = [], 0
    while i < len(line):
        if line[i] != "`":
            out.append(line[i])
            i += 1
            continue
        n = len(line[i:]) - len(line[i:].lstrip("`"))
        j = i + n
        while True:
            k = line.find("`" * n, j)
            if k < 0:
                return None
            run = len(line[k:]) - len(line[k:].lstrip("`"))
            if run == n:
                break
            j = k + run
        out.append("CODE")
        i = k + n
    return "".join(out)


OUR_HTML = {"<details><summary>stack traces</summary>", "</details>"}
OUR_LINE_STARTS = ("# CODE", "# frtrace stats: ", "## ", "### CODE", "1. CODE", "- ranks ", "| ", "_",
                   "CODE")


def markdown_problems(data):
    found = text_problems(data)
    if found:
        return found
    lines = data.decode("utf-8").split("\n")
    fence, header_cells = None, None
    for no, line in enumerate(lines, 1):
        if fence:
            if line == fence:
                fence = None
            continue
        if re.fullmatch("`{3,}", line):
            fence = line
            continue
        if line in OUR_HTML or line == "":
            header_cells = None if line == "" else header_cells
            continue
        plain = strip_code(line)
        if plain is None:
            found.append("line %d: an unclosed code span: %r" % (no, line))
            continue
        if not plain.startswith(OUR_LINE_STARTS):
            found.append("line %d: a line frtrace does not write: %r" % (no, line))
        for pattern, what in (("<", "HTML"), ("](", "a link"), ("[", "a link"), ("!", "an image"),
                              ("http", "a URL"), ("www.", "a URL"), ("@", "a mention")):
            if pattern in plain.replace("**", ""):
                found.append("line %d: %s outside code: %r" % (no, what, line))
        if re.search(r"#\d", plain):
            found.append("line %d: an issue autolink outside code: %r" % (no, line))
        if plain.startswith("| "):
            cells = len(re.findall(r"(?<!\\)\|", plain))
            if header_cells is None:
                header_cells = cells
            elif cells != header_cells:
                found.append("line %d: %d cells, the header has %d: %r" % (no, cells, header_cells, line))
    if fence:
        found.append("a fence left open")
    return found


JIRA_EMOTICON = re.compile(r"\((?:[yni/x!+?-]|on|off|\*[rgby]?|flag|flagoff)\)|[:;][()PD]")
JIRA_SPECIAL = set("\\*_?-+^~{}[]|!#()")
JIRA_LINE_STARTS = ("h1. CODE", "h1. frtrace stats: ", "h2. ", "h3. CODE", "# CODE", "* ranks ", "||", "|", "_", "CODE",
                    "*stack traces*")


def strip_monospace(line):
    """The line with its {{...}} spans replaced by CODE, each span checked: every special
    character escaped (so that "}}" cannot end it early). (text, problems)."""
    out, found, i = [], [], 0
    while i < len(line):
        if not line.startswith("{{", i):
            out.append(line[i])
            i += 1
            continue
        j = i + 2
        while j < len(line) and not line.startswith("}}", j):
            c = line[j]
            if c == "\\":
                j += 2
                continue
            if c in JIRA_SPECIAL:
                found.append("an unescaped %r in monospace: %r" % (c, line))
                break
            j += 1
        if j >= len(line):
            found.append("an unclosed {{: %r" % line)
            break
        out.append("CODE")
        i = j + 2
    return "".join(out), found


def jira_problems(data):
    found = text_problems(data)
    if found:
        return found
    block = False
    for no, line in enumerate(data.decode("utf-8").split("\n"), 1):
        if line == "{noformat}":
            block = not block
            continue
        if block:
            if "{noformat" in line.lower():
                found.append("line %d: {noformat inside a block: %r" % (no, line))
            continue
        if line == "":
            continue
        plain, bad = strip_monospace(line)
        found += ["line %d: %s" % (no, b) for b in bad]
        if not plain.startswith(JIRA_LINE_STARTS):
            found.append("line %d: a line frtrace does not write: %r" % (no, line))
        words = plain.replace("CODE", "")
        if plain.startswith("|"):
            words = words.replace("|", "")
        words = words.lstrip("#*h123. _").rstrip("_*")
        for pattern, what in (("{", "a macro"), ("[", "a link"), ("!", "an image"), ("http", "a URL"),
                              ("@", "a mention"), ("\\", "an escape")):
            if pattern in words:
                found.append("line %d: %s outside monospace: %r" % (no, what, line))
        if JIRA_EMOTICON.search(words):
            found.append("line %d: an emoticon outside monospace: %r" % (no, line))
    if block:
        found.append("a {noformat} block left open")
    return found


def json_problems(data, want=None):
    try:
        doc = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as e:
        return ["not JSON in strict UTF-8: %s" % e]
    if want is None:
        return []
    strings = []

    def walk(v):
        if isinstance(v, str):
            strings.append(v)
        elif isinstance(v, dict):
            for k, x in v.items():
                strings.append(k)
                walk(x)
        elif isinstance(v, list):
            for x in v:
                walk(x)

    walk(doc)
    if want not in strings:
        near = [s for s in strings if want[:3] in s or s[:3] in want][:3]
        return ["no string equals %r (similar: %r)" % (want, near)]
    return []


def svg_problems(data):
    try:
        ET.fromstring(data.decode("utf-8"))
    except (UnicodeDecodeError, ET.ParseError) as e:
        return ["not well-formed XML in strict UTF-8: %s" % e]
    return []


def problems(kind, data, want=None):
    if kind == "text":
        return text_problems(data)
    if kind == "markdown":
        return markdown_problems(data)
    if kind == "jira":
        return jira_problems(data)
    if kind == "json":
        return json_problems(data, want)
    if kind == "svg":
        return svg_problems(data)
    raise ValueError(kind)


def report(kind, path, want=None):
    with open(path, "rb") as f:
        found = problems(kind, f.read(), want)
    for p in found[:5]:
        print("%s: %s" % (path, p))
    return not found


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    if sys.argv[1] == "each":
        ok = [report(*pair.split(":", 1)) for pair in sys.argv[2:]]
        sys.exit(0 if all(ok) else 1)
    want = None
    if len(sys.argv) > 3:
        want = ast.literal_eval('"' + sys.argv[3].replace('"', '\\"') + '"')
    sys.exit(0 if report(sys.argv[1], sys.argv[2], want) else 1)


if __name__ == "__main__":
    main()
