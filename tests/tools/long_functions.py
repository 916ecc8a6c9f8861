#!/usr/bin/env python3
"""long_functions.py — which C functions are longer than a reader can hold? (t0111)

A function's length is the number of lines between its opening and its closing brace. The
sources are clang-formatted, so the check reads them as a C reader would, without a compiler:
comments, string and character literals and preprocessor lines are blanked, then braces are
counted; a block that opens at file level after a parameter list "(...)" and no "=" is a
function body (a struct, enum or initializer is not). Prints "FILE:LINE: NAME is N lines"
for each function over the limit that the exception list does not name, and exits 1; prints
"N functions in M files, none over LIMIT lines" else. Unbalanced braces are reported too.
Usage: long_functions.py [--limit N] FILE...

The one exception: the pickle reader's opcode loop (run in formats/pickle_read.c), which
dispatches the hot opcodes inline on local copies of the cursor and the stack pointer, so that
the compiler keeps them in registers (see its comment); split into functions, it would lose
exactly that. The other opcodes go through step(), an ordinary switch under the limit.
"""
import re
import sys

EXCEPTIONS = {("formats/pickle_read.c", "run")}
LITERAL = re.compile(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)


def blank(match):
    """The literal or comment with every character but the newlines made a space."""
    return re.sub(r"[^\n]", " ", match.group(0))


def code_only(text):
    """The text with comments, literals and preprocessor lines blanked, lines kept in place."""
    text = LITERAL.sub(blank, text)
    lines = text.split("\n")
    in_directive = False
    for i, line in enumerate(lines):
        if in_directive or line.lstrip().startswith("#"):
            in_directive = line.rstrip().endswith("\\")
            lines[i] = ""
    return lines


def functions(lines):
    """(name, first line, length) of each function body; raises ValueError on bad braces."""
    depth, head, start, name = 0, "", 0, None
    for number, line in enumerate(lines, 1):
        for ch in line:
            if ch == "{":
                if depth == 0:
                    start = number
                    name = function_name(head)
                depth += 1
            elif ch == "}":
                depth -= 1
                if depth < 0:
                    raise ValueError("line %d: a '}' closes nothing" % number)
                if depth == 0:
                    if name:
                        yield name, start, number - start - 1
                    head = ""
            elif depth == 0:
                head = "" if ch == ";" else head + ch
        if depth == 0:
            head += " "
    if depth != 0:
        raise ValueError("a '{' is never closed")


def function_name(head):
    """The function's name when the text before a file-level '{' is a definition's head."""
    head = head.strip()
    if "=" in head or not head.endswith(")"):
        return None
    found = re.search(r"([A-Za-z_][A-Za-z_0-9]*)\s*\(", head)
    return found.group(1) if found else None


def main():
    args = sys.argv[1:]
    limit = 100
    if args[:1] == ["--limit"]:
        limit, args = int(args[1]), args[2:]
    count, too_long, bad = 0, [], []
    for path in args:
        with open(path, encoding="utf-8") as f:
            lines = code_only(f.read())
        try:
            for name, start, length in functions(lines):
                count += 1
                if length > limit and (path, name) not in EXCEPTIONS:
                    too_long.append("%s:%d: %s is %d lines" % (path, start, name, length))
        except ValueError as e:
            bad.append("%s: %s" % (path, e))
    for line in bad + too_long:
        print(line)
    if bad or too_long:
        return 1
    print("%d functions in %d files, none over %d lines" % (count, len(args), limit))
    return 0


if __name__ == "__main__":
    sys.exit(main())
