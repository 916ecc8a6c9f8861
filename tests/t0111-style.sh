#!/bin/sh
# A newcomer changes a file without fear of style debates: every C file is in the house style
# that .clang-format describes (K&R braces, 4-space indents, 100 columns), and no line of C,
# shell or Python the project writes passes 100 columns.
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
test_done
