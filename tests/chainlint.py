#!/usr/bin/env python3
"""chainlint.py — rejects a story body (tests/lib.sh) whose commands are not &&-chained.

Reads one test body on stdin (or the files named as arguments, for a quick look at a script)
and exits 1 with one line per break when a command's failure could be lost, after git's
t/chainlint.pl. It parses the POSIX sh a body is written in (quotes, $(...), here-documents,
{ }, ( ), if, for, while, until, case, functions) and checks every list of commands: the
top-level body, the inside of { } and ( ), each branch of if/case and each loop body:

  * two commands separated by ";" or a newline are a break ("a; b" ignores a's status),
    unless the second is "exit"/"return"/"false" and the last of its list (the list fails
    anyway), or the first ends with "&" (a background job, waited for later);
  * the body of a for/while/until loop must end in "|| return N" or "|| exit N"
    ("|| { ...; exit N; }" too): a loop's status is that of its last iteration, so without
    it a failure in any but the last iteration is lost.

Command substitutions $(...) are not checked inside: their status is the value's, not the
test's. Exit status 0 when clean, 1 with messages on breaks, 2 when it cannot parse the body
(a body it cannot read is rejected too: write it more plainly)."""
import sys

RESERVED_END = {"then", "else", "elif", "fi", "do", "done", "esac", "}"}


class ParseError(Exception):
    pass


class Lexer:
    """Splits a body into ('w', word, line), ('op', op, line), ('nl', '\\n', line)."""

    def __init__(self, s):
        self.s, self.i, self.line = s, 0, 1
        self.heredocs = []  # (delimiter, strip_tabs) waiting for the next newline
        self.toks = []

    def error(self, msg):
        raise ParseError("line %d: %s" % (self.line, msg))

    def run(self):
        s = self.s
        while self.i < len(s):
            c = s[self.i]
            if c in " \t":
                self.i += 1
            elif c == "\\" and s[self.i + 1:self.i + 2] == "\n":
                self.i += 2
                self.line += 1
            elif c == "#":
                while self.i < len(s) and s[self.i] != "\n":
                    self.i += 1
            elif c == "\n":
                self.toks.append(("nl", "\n", self.line))
                self.i += 1
                self.line += 1
                self.read_heredocs()
            elif c in "&|;<>()":
                self.operator()
            else:
                self.toks.append(("w", self.word(), self.line))
        if self.heredocs:
            self.error("here-document without its end line")
        self.toks.append(("eof", "", self.line))
        return self.toks

    def operator(self):
        s, i = self.s, self.i
        for op in ("&&", "||", ";;", "<<-", "<<", ">>", ">&", "<&", ">|", "<>"):
            if s.startswith(op, i):
                break
        else:
            op = s[i]
        self.i += len(op)
        if op in ("<<", "<<-"):
            while self.i < len(s) and s[self.i] in " \t":
                self.i += 1
            delim = self.word()
            quoted = "".join(ch for ch in delim if ch not in "'\"\\")
            if not quoted:
                self.error("here-document without a delimiter")
            self.heredocs.append((quoted, op == "<<-"))
            self.toks.append(("op", "redir", self.line))
            self.toks.append(("w", delim, self.line))
            return
        if op in ("<", ">", ">>", ">&", "<&", ">|", "<>"):
            self.toks.append(("op", "redir", self.line))
            return
        self.toks.append(("op", op, self.line))

    def read_heredocs(self):
        s = self.s
        for delim, strip in self.heredocs:
            while True:
                if self.i >= len(s):
                    self.error("here-document %s never ends" % delim)
                j = s.find("\n", self.i)
                j = len(s) if j < 0 else j
                text = s[self.i:j]
                self.i = min(j + 1, len(s))
                self.line += 1
                if (text.lstrip("\t") if strip else text) == delim:
                    break
        self.heredocs = []

    def word(self):
        s, start = self.s, self.i
        while self.i < len(s):
            c = s[self.i]
            if c in " \t\n&|;<>()":
                break
            if not self.quoted(c):
                self.i += 1
        if self.i == start:
            self.error("unexpected %r" % s[self.i:self.i + 10])
        return s[start:self.i]

    def quoted(self, c):
        """Skips the quoted or substituted part that c starts ('...', "...", \\x, `...`, $(...),
        ${...}); False, moving nothing, when c starts none."""
        if c == "'":
            self.single()
        elif c == '"':
            self.double()
        elif c == "\\":
            self.i += 2
        elif c == "`":
            self.backquote()
        elif c == "$" and self.s[self.i + 1:self.i + 2] in ("(", "{"):
            self.dollar()
        else:
            return False
        return True

    def single(self):
        j = self.s.find("'", self.i + 1)
        if j < 0:
            self.error("unterminated '")
        self.line += self.s.count("\n", self.i, j)
        self.i = j + 1

    def double(self):
        s = self.s
        self.i += 1
        while self.i < len(s):
            c = s[self.i]
            if c == '"':
                self.i += 1
                return
            if c == "\\":
                self.i += 2
                continue
            if c == "`":
                self.backquote()
            elif c == "$" and s[self.i + 1:self.i + 2] in ("(", "{"):
                self.dollar()
            else:
                if c == "\n":
                    self.line += 1
                self.i += 1
        self.error('unterminated "')

    def backquote(self):
        s = self.s
        self.i += 1
        while self.i < len(s):
            if s[self.i] == "\\":
                self.i += 2
            elif s[self.i] == "`":
                self.i += 1
                return
            else:
                self.line += s[self.i] == "\n"
                self.i += 1
        self.error("unterminated `")

    def dollar(self):
        """$(...), $((...)) or ${...}: skip to the matching close, minding quotes."""
        s = self.s
        close = ")" if s[self.i + 1] == "(" else "}"
        opener = s[self.i + 1]
        self.i += 2
        depth = 1
        while self.i < len(s):
            c = s[self.i]
            if c == "'" and close == "}":
                self.i += 1  # inside ${...} a single quote is a character
            elif self.quoted(c):
                pass
            elif c == opener:
                depth += 1
                self.i += 1
            elif c == close:
                depth -= 1
                self.i += 1
                if depth == 0:
                    return
            else:
                self.line += c == "\n"
                self.i += 1
        self.error("unterminated $%s" % opener)


class Parser:
    """Recursive descent over the tokens; fills self.problems."""

    def __init__(self, toks):
        self.toks, self.k, self.problems = toks, 0, []

    def peek(self):
        return self.toks[self.k]

    def take(self):
        t = self.toks[self.k]
        self.k += 1
        return t

    def error(self, msg):
        raise ParseError("line %d: %s" % (self.peek()[2], msg))

    def is_word(self, *words):
        t = self.peek()
        return t[0] == "w" and t[1] in words

    def is_op(self, *ops):
        t = self.peek()
        return t[0] == "op" and t[1] in ops

    def expect_word(self, w):
        if not self.is_word(w):
            self.error("expected %r, found %r" % (w, self.peek()[1]))
        self.take()

    def skip_nl(self):
        while self.peek()[0] == "nl":
            self.take()

    def at_list_end(self):
        t = self.peek()
        return (t[0] == "eof" or (t[0] == "op" and t[1] in (")", ";;"))
                or (t[0] == "w" and t[1] in RESERVED_END))

    def parse_list(self, what):
        """A list of and-or lists up to a closing word/op; returns its items and checks it.

        An item is (andor, separator) where andor is a list of pipelines with their joining
        operators and separator is ';', '&', newline or None (the last)."""
        items = []
        self.skip_nl()
        while not self.at_list_end():
            andor = self.parse_andor()
            sep = None
            if self.is_op(";", "&"):
                sep = self.take()[1]
            elif self.peek()[0] == "nl":
                sep = "\n"
            elif not self.at_list_end():
                self.error("unexpected %r" % self.peek()[1])
            items.append((andor, sep))
            self.skip_nl()
        self.check_list(items, what)
        return items

    def check_list(self, items, what):
        live = [it for it in items if it[1] != "&"]
        for n in range(len(live) - 1):
            nxt = live[n + 1][0]
            if n + 1 == len(live) - 1 and self.ends_list(nxt):
                continue
            self.problems.append("line %d: broken &&-chain in %s: %r is followed by %r"
                                 % (live[n][0]["line"], what, live[n][0]["text"], nxt["text"]))

    @staticmethod
    def ends_list(andor):
        """exit N / return N / false alone: whatever ran before, the list fails."""
        p = andor["pipes"]
        return len(p) == 1 and p[0]["simple"] and p[0]["first"] in ("exit", "return", "false")

    def parse_andor(self):
        line = self.peek()[2]
        pipes, ops = [self.parse_pipeline()], []
        while self.is_op("&&", "||"):
            ops.append(self.take()[1])
            self.skip_nl()
            pipes.append(self.parse_pipeline())
        text = pipes[0]["text"]
        for op, p in zip(ops, pipes[1:]):
            text += " %s %s" % (op, p["text"])
        return {"pipes": pipes, "ops": ops, "line": line, "text": text[:60]}

    def parse_pipeline(self):
        neg = False
        if self.is_word("!"):
            self.take()
            neg = True
        cmds = [self.parse_command()]
        while self.is_op("|"):
            self.take()
            self.skip_nl()
            cmds.append(self.parse_command())
        c = cmds[-1]
        return {"simple": len(cmds) == 1 and not neg and c["simple"], "first": c["first"],
                "exits": len(cmds) == 1 and not neg and c["exits"],
                "text": ("! " if neg else "") + " | ".join(x["text"] for x in cmds)}

    def parse_command(self):
        t = self.peek()
        if t[0] == "op" and t[1] == "(":
            self.take()
            items = self.parse_list("( ... )")
            if not self.is_op(")"):
                self.error("expected )")
            self.take()
            self.redirections()
            return self.compound("( ... )", items)
        if t[0] != "w":
            self.error("expected a command, found %r" % t[1])
        w = t[1]
        if w == "{":
            self.take()
            items = self.parse_list("{ ... }")
            self.expect_word("}")
            self.redirections()
            return self.compound("{ ... }", items)
        if w == "if":
            return self.parse_if()
        if w in ("while", "until"):
            self.take()
            self.parse_list("the condition of " + w)
            return self.parse_loop(w)
        if w == "for":
            self.take()
            var = self.take()
            if var[0] != "w":
                self.error("for without a name")
            self.skip_nl()
            if self.is_word("in"):
                self.take()
                while self.peek()[0] == "w":
                    self.take()
            if self.is_op(";"):
                self.take()
            self.skip_nl()
            return self.parse_loop("for " + var[1])
        if w == "case":
            return self.parse_case()
        # a function definition NAME ( ) COMPOUND
        if (self.toks[self.k + 1][:2] == ("op", "(") and self.toks[self.k + 2][:2] == ("op", ")")):
            self.k += 3
            self.skip_nl()
            body = self.parse_command()
            return {"simple": False, "first": w, "exits": False, "text": w + "() " + body["text"]}
        return self.parse_simple()

    def compound(self, text, items):
        last = items[-1][0] if items else None
        exits = bool(last) and self.ends_list(last)
        return {"simple": False, "first": None, "exits": exits, "text": text}

    def parse_simple(self):
        words = []
        while True:
            t = self.peek()
            if t[0] == "w" and not (words == [] and t[1] in RESERVED_END):
                words.append(self.take()[1])
            elif t[0] == "op" and t[1] == "redir":
                self.take()
                if self.peek()[0] != "w":
                    self.error("redirection without a target")
                self.take()
                if not words:
                    words.append("")
            else:
                break
        if not words:
            self.error("expected a command, found %r" % self.peek()[1])
        # skip leading assignments to find the command's name
        name = next((x for x in words if not ("=" in x and x.split("=")[0].isidentifier())), "")
        return {"simple": True, "first": name, "exits": name in ("exit", "return"),
                "text": " ".join(w for w in words if w)}

    def redirections(self):
        while self.is_op("redir"):
            self.take()
            self.take()

    def parse_if(self):
        self.take()
        self.parse_list("the condition of if")
        self.expect_word("then")
        self.parse_list("then ... of if")
        while self.is_word("elif"):
            self.take()
            self.parse_list("the condition of elif")
            self.expect_word("then")
            self.parse_list("then ... of elif")
        if self.is_word("else"):
            self.take()
            self.parse_list("else ... of if")
        self.expect_word("fi")
        self.redirections()
        return {"simple": False, "first": None, "exits": False, "text": "if ... fi"}

    def parse_loop(self, what):
        line = self.peek()[2]
        self.expect_word("do")
        items = self.parse_list("the body of " + what)
        self.expect_word("done")
        self.redirections()
        last = items[-1][0] if items else None
        ok = False
        if last and last["ops"] and last["ops"][-1] == "||":
            ok = last["pipes"][-1]["exits"]
        if not ok:
            self.problems.append("line %d: the body of %s must end in '|| return 1' or '|| exit 1'"
                                 " (else a failing iteration but the last is lost)" % (line, what))
        return {"simple": False, "first": None, "exits": False, "text": what + "; do ... done"}

    def parse_case(self):
        self.take()
        if self.peek()[0] != "w":
            self.error("case without a word")
        self.take()
        self.skip_nl()
        self.expect_word("in")
        self.skip_nl()
        while not self.is_word("esac"):
            if self.is_op("("):
                self.take()
            while True:
                if self.peek()[0] != "w":
                    self.error("case pattern expected")
                self.take()
                if not self.is_op("|"):
                    break
                self.take()
            if not self.is_op(")"):
                self.error("expected ) after a case pattern")
            self.take()
            self.parse_list("a case branch")
            if self.is_op(";;"):
                self.take()
            self.skip_nl()
            if self.peek()[0] == "eof":
                self.error("case without esac")
        self.take()
        self.redirections()
        return {"simple": False, "first": None, "exits": False, "text": "case ... esac"}


def lint(body):
    """Returns (status, messages): 0 clean, 1 breaks, 2 unparsable."""
    try:
        p = Parser(Lexer(body).run())
        p.parse_list("the test body")
        if p.peek()[0] != "eof":
            p.error("unexpected %r" % p.peek()[1])
    except ParseError as e:
        return 2, ["chainlint cannot parse the body: %s" % e]
    except IndexError:
        return 2, ["chainlint cannot parse the body: it ends too early"]
    return (1 if p.problems else 0), p.problems


def main():
    if len(sys.argv) > 1:
        worst = 0
        for f in sys.argv[1:]:
            st, msgs = lint(open(f).read())
            for m in msgs:
                print("%s: %s" % (f, m))
            worst = max(worst, st)
        return worst
    st, msgs = lint(sys.stdin.read())
    for m in msgs:
        print("chainlint: " + m)
    return st


if __name__ == "__main__":
    sys.exit(main())
