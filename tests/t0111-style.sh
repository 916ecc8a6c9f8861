#!/bin/sh
# A newcomer changes a file without fear of style debates: every C file is in the house style
# that .clang-format describes (K&R braces, 4-space indents, 100 columns), and no line of C,
# shell or Python the project writes passes 100 columns. There is one way to fail: only
# formats/error.c writes an fr_error's message (fr_fail and its kin), so a message is made in
# one place, whatever stage reports it. No function runs over 100 lines, so that a reader holds
# one whole (tests/tools/long_functions.py; its one exception, the pickle reader's opcode loop,
# is named and explained there). Every mutant of tests/mutation/mutants.txt still applies to the
# code it names (mutate.py check), so that an edit that moves a mutant's code shows here, in
# seconds, not as a stillborn mutant in the hours-long `make mutation` (whose own first step,
# `check --compile`, also compiles each mutant: that one is tried here on a small tree only).
. "$(dirname "$0")/lib.sh"

c_files() { (cd "$TOP" && git ls-files '*.c' '*.h' 2>/dev/null || find formats analyzer recorder tests -name '*.[ch]'); }

if ! command -v clang-format >/dev/null; then
    test_skip 'no clang-format (Debian package clang-format)' 'every C file in the house style'
else
    test_expect_success 'every C file is as clang-format leaves it' '
        c_files >files &&
        test "$(wc -l <files)" -gt 50 &&
        here=$PWD &&
        (cd "$TOP" && xargs clang-format --dry-run --Werror <"$here/files" 2>"$here/report") &&
        ! test -s report
    '
fi

test_expect_success 'no line of C passes 100 columns (characters, not bytes)' '
    c_files >files &&
    here=$PWD &&
    (cd "$TOP" && python3 -c "
import sys
for name in sys.stdin.read().split():
    for n, line in enumerate(open(name, encoding=\"utf-8\"), 1):
        if len(line.rstrip(\"\\n\")) > 100:
            print(\"%s:%d\" % (name, n))" <"$here/files") >long &&
    ! test -s long
'

# A write is the message as a call's first argument (snprintf(err->msg, ...), memcpy(e.msg, ...))
# or an assignment to it or to one of its characters; reading it (strstr, printing) is fine.
msg_writes() {
    grep -nE '(printf|cpy|cat|move|set)[[:space:]]*\([[:space:]]*&?[A-Za-z_][A-Za-z_0-9]*((->|\.)[A-Za-z_][A-Za-z_0-9]*)*(->|\.)msg\b|(->|\.)msg[[:space:]]*(\[[^]]*\])?[[:space:]]*=[^=]' "$@"
    test $? -le 1 # 1: none found
}

test_expect_success 'the check sees a direct write to an error message' '
    printf "%s\n" "    snprintf(err->msg, sizeof err->msg, \"x\");" "    m->err->msg[0] = 0;" \
        "    memcpy(e.msg, p, n);" "    if (err->msg[0] == 0) return;" >sample.c &&
    msg_writes sample.c >found &&
    test "$(wc -l <found)" -eq 3
'

test_expect_success 'only formats/error.c writes an fr_error message (fr_fail everywhere else)' '
    (cd "$TOP" && git ls-files "analyzer/*.c" "analyzer/*.h" "formats/*.c" "formats/*.h") |
        grep -v "^formats/error\.c$" >files &&
    test "$(wc -l <files)" -gt 50 &&
    here=$PWD &&
    (cd "$TOP" && msg_writes $(cat "$here/files")) >writes &&
    cat writes &&
    ! test -s writes
'
LONG_FUNCTIONS="python3 $TOP/tests/tools/long_functions.py"

test_expect_success 'the length check counts a body, not a struct, an initializer or a comment' '
    {
        echo "static const int table[] = {" && seq 1 150 | sed "s/$/,/" && echo "};" &&
        echo "struct s {" && seq 1 150 | sed "s/.*/    int f&;/" && echo "};" &&
        echo "static int fits(int a) {" && seq 1 100 | sed "s/.*/    a++;/" && echo "}" &&
        echo "/* } { */ int too_long(void)" && echo "{" && echo "    const char *s = \"}\";" &&
        seq 1 100 | sed "s/.*/    s++;/" && echo "}"
    } >sample.c &&
    test_expect_code 1 $LONG_FUNCTIONS sample.c >out &&
    echo "sample.c:408: too_long is 101 lines" >expect &&
    diff expect out &&
    $LONG_FUNCTIONS --limit 101 sample.c >out &&
    grep -q "^2 functions in 1 files, none over 101 lines$" out
'

test_expect_success 'no function passes 100 lines (but the pickle opcode loop)' '
    (cd "$TOP" && git ls-files "analyzer/*.c" "formats/*.c" "recorder/*.c") >files &&
    test "$(wc -l <files)" -gt 50 &&
    here=$PWD &&
    (cd "$TOP" && $LONG_FUNCTIONS $(cat "$here/files")) >out || { cat out; exit 1; } &&
    grep -q "^[0-9]* functions in [0-9]* files, none over 100 lines$" out
'
test_expect_success 'every mutant of the mutation list still applies to the sources (none stillborn)' '
    python3 "$TOP/tests/mutation/mutate.py" check "$TOP/tests/mutation/mutants.txt" "$TOP" >out &&
    grep -q "^[0-9]* mutants, 0 stale$" out
'

test_expect_success 'the mutant check names a mutant whose code moved' '
    mkdir -p tree/analyzer &&
    echo "int x = 1;" >tree/analyzer/a.c &&
    printf "%s\n" "zz01 analyzer/a.c \`int x = 2;\` ~> \`int x = 3;\`" >list &&
    test_expect_code 1 python3 "$TOP/tests/mutation/mutate.py" check list tree >out &&
    grep -q "^zz01: .int x = 2;. occurs 0 times in analyzer/a.c, not once$" out &&
    grep -q "^1 mutants, 1 stale$" out
'

test_expect_success 'the compiling mutant check names a mutant that leaves a function unused' '
    mkdir -p ctree/analyzer &&
    echo "WARN := -Wall -Wextra -Werror" >ctree/Makefile &&
    printf "%s\n" "static int one(void) { return 1; }" "int two(void);" \
        "int two(void) { return one() + 1; }" >ctree/analyzer/a.c &&
    printf "%s\n" "zz02 analyzer/a.c \`return one() + 1;\` ~> \`return 2;\`" \
        "zz03 analyzer/a.c \`return one() + 1;\` ~> \`return one() + 2;\`" >clist &&
    python3 "$TOP/tests/mutation/mutate.py" check clist ctree >out &&
    grep -q "^2 mutants, 0 stale$" out &&
    test_expect_code 1 python3 "$TOP/tests/mutation/mutate.py" check --compile clist ctree >out &&
    grep -q "^zz02: does not compile: .*one.* defined but not used" out &&
    ! grep -q "^zz03" out &&
    grep -q "^2 mutants, 1 stale " out
'

test_expect_success 'the scratch tree sync copies only what differs and drops what went' '
    mkdir -p src/d dst/d dst/build &&
    echo same >src/d/same && echo same >dst/d/same && touch -d 2001-01-01 dst/d/same &&
    echo new >src/d/changed && echo old >dst/d/changed &&
    echo gone >dst/d/gone && echo kept >dst/build/obj &&
    printf "d/same\0d/changed\0" | python3 "$TOP/tests/mutation/mutate.py" sync src dst >out &&
    grep -q "^1 files copied, 1 removed$" out &&
    grep -q "^copied d/changed$" out && grep -q "^removed d/gone$" out &&
    test "$(cat dst/d/changed)" = new &&
    test "$(date -r dst/d/same +%Y)" = 2001 &&
    test ! -e dst/d/gone && test -f dst/build/obj
'

test_done
