#!/bin/sh
# A newcomer with only a clone finds every document the code cites: no comment, script or test
# cites a specification kept outside the repository (they cite docs/, the man pages, the JSON
# Schema), every docs/ page cited exists, and every top-level folder (and every stage of the
# analyzer) says in a README.md what it holds, how it works and where to start reading.
. "$(dirname "$0")/lib.sh"

# The files the project writes, as git tracks them (a tarball without .git: every such file).
sources() {
    (cd "$TOP" && { git ls-files '*.c' '*.h' '*.py' '*.sh' '*.mk' '*Makefile' '*.md' \
        2>/dev/null || find . -path ./build -prune -o -type f \( -name '*.[ch]' -o \
        -name '*.py' -o -name '*.sh' -o -name '*.mk' -o -name Makefile -o -name '*.md' \) \
        -print | sed 's|^\./||'; })
}

# What cites a document a clone does not have: the specification folder beside the project, its
# files by name, and "the contract" that named them. Spelled in pieces so this file passes.
SPEC='shared''/spec|frtrace''-interface|torch-fr''-dump-format|recorder''-design'
SPEC="$SPEC|torch-analyzer""-reference|interface"" contract|the"" contract"

# cites_outside DIR LIST: writes FILE:LINE:TEXT to ./cites for each citation in the files LIST
# names (relative to DIR); true when there are none.
cites_outside() {
    (cd "$1" && xargs grep -n -i -E "$SPEC" /dev/null) <"$2" >cites
    ! test -s cites
}

# folders: the top-level folders the project tracks, and the analyzer's stages.
folders() {
    (cd "$TOP" && { git ls-files 2>/dev/null | sed -n 's|/.*||p' | grep -v "^\." ||
        ls -d */ | sed 's|/$||' | grep -v -E "^build(-san)?$"; } | sort -u &&
        ls -d analyzer/*/ | sed 's|/$||')
}

test_expect_success 'no source file cites a document outside the repository' '
    sources | grep -v "^tests/t0112-docs.sh$" >files &&
    test "$(wc -l <files)" -gt 100 &&
    { cites_outside "$TOP" files || { cat cites && false; }; }
'

test_expect_success 'the check bites: a comment citing the specification is found' '
    mkdir tree &&
    printf "/* see the%s §4 */\n" " contract" >tree/a.c &&
    printf "# as in %s-interface.md\n" frtrace >tree/b.sh &&
    printf "int x; /* docs/database.md */\n" >tree/c.c &&
    printf "a.c\nb.sh\nc.c\n" >list &&
    ! cites_outside tree "$PWD/list" &&
    test "$(wc -l <cites)" = 2 &&
    ! grep -q c.c cites
'

test_expect_success 'every docs/ page that a source file cites exists' '
    sources >files &&
    here=$PWD &&
    (cd "$TOP" && xargs grep -h -o -E "docs/[A-Za-z_-]+\.(md|svg)" <"$here/files") |
        sort -u >cited &&
    grep -q "^docs/database.md$" cited &&
    while read -r doc; do
        test -f "$TOP/$doc" || { echo "cited, missing: $doc"; return 1; }
    done <cited
'

# db_if_readable DIR OUT: frtrace's database of DIR in OUT, or no OUT when DIR is no job (exit 2).
db_if_readable() {
    "$FRTRACE" -f json "$1" >"$2" 2>/dev/null
    test $? -le 1 || rm -f "$2"
}

test_expect_success 'every key of a database made from testdata/ is described in docs/database.md' '
    n=0 &&
    for d in "$TOP"/testdata/*/ "$TOP"/testdata/*/*/; do
        n=$((n + 1)) && db_if_readable "$d" "db$n.json" || return 1
    done &&
    test "$(ls db*.json | wc -l)" -gt 40 &&
    python3 "$TOP/tests/tools/db_keys_documented.py" "$TOP/docs/database.md" db*.json
'

test_expect_success 'README.md links the architecture and the database pages' '
    grep -q "(docs/ARCHITECTURE.md)" "$TOP/README.md" &&
    grep -q "(docs/database.md)" "$TOP/README.md"
'

test_expect_success 'every top-level folder and every analyzer stage has its README.md' '
    folders >folders &&
    grep -q "^analyzer/verdict$" folders &&
    grep -q "^recorder$" folders &&
    for d in $(cat folders); do
        test -s "$TOP/$d/README.md" || { echo "no README.md in $d/"; return 1; }
    done
'

test_done
