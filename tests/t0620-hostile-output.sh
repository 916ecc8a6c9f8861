#!/bin/sh
# Hostile bytes in, nothing hostile out (issue 20): a real 16-rank hang (lock_gil_1st, culprits
# 9 and 14) with one hostile string in it — an escape sequence, a newline, a bidi override, HTML,
# a lone surrogate, a NUL — in a group's desc, a profiling name, a frame, a thread name, the
# directory's or a file's name. The on-call engineer runs every output of frtrace on it and
# pastes the markdown into a ticket: nothing steers the terminal (no raw control, C1 or bidi
# character), the verdict stays one line, the markdown forms no HTML, link, heading, list, fence
# or autolink, the JSON is strict UTF-8 that Python reads back as the dump meant it, the SVG is
# well-formed XML. Then the files: -o never writes through a planted link and takes a 255-byte
# name; and the CLI: values that start with '-', a full or closed stdout, 20 000 junk files.
# tests/tools/hostile_strings.py makes each job, tests/tools/check_output.py judges each output.
. "$(dirname "$0")/lib.sh"

SRC="$REAL_DUMPS/lock_gil_1st"
MAKE_JOB="$TOP/tests/tools/hostile_strings.py"
CHECK="$TOP/tests/tools/check_output.py"

if ! have_shared || ! [ -d "$SRC" ] || ! command -v python3 >/dev/null 2>&1; then
    test_skip 'no ../shared or no python3' 'hostile strings in a real job'
    test_done
    exit
fi

# job FIELD VALUE [--json]: the real job with VALUE (a Python string literal's body) in FIELD.
job() {
    rm -rf job && python3 "$MAKE_JOB" "$SRC" job "$@"
}

# run_all [DIR]: every output of frtrace on DIR (default: job), each with its stderr; exit
# statuses 0 or 1 only (a verdict), never 2 or a crash.
run_all() {
    d=${1:-job}
    for run in "text -v --print-stack-trace --width 0" "md -f markdown -v --print-stack-trace" \
        "jira -f jira -v --print-stack-trace" \
        "j -j -v --print-stack-trace" "stats stats" "statsmd stats -f markdown" \
        "statsjson stats -f json" "db -f json --all-calls"; do
        name=${run%% *} args=${run#* }
        status=0
        # shellcheck disable=SC2086
        "$FRTRACE" $args -- "$d" >"o.$name" 2>"e.$name" || status=$?
        case $status in 0|1) ;; *) echo "$args: exit $status" && cat "e.$name" && return 1 ;; esac
    done
    "$FRTRACE" timeline -o o.trace -- "$d" 2>e.trace && "$FRTRACE" timeline -f svg -o o.svg -- "$d" 2>e.svg
}

# shown_safely: every output of run_all obeys nothing it read (check_output.py).
shown_safely() {
    python3 "$CHECK" each text:o.text text:o.j text:o.stats text:e.text text:e.md text:e.j \
        text:e.stats text:e.db text:e.trace text:e.svg markdown:o.md markdown:o.statsmd \
        jira:o.jira text:e.jira \
        json:o.db json:o.statsjson json:o.trace svg:o.svg
}

# verdict_intact: the verdict line is the real one, alone on its line, and no line anywhere
# claims a healthy job.
verdict_intact() {
    head -n 1 o.text | grep -q "^hang: ranks 9,14 never joined " &&
    ! grep -q "^ok" o.text && ! grep -q "^ok" o.md && ! grep -q "^# ok" o.md &&
    python3 -c "import json,sys; v=json.load(open('o.db'))['verdict']; sys.exit(v['culprit_ranks'] != [9, 14])"
}

# hostile FIELD VALUE [--json]: the job, every output, all of them safe, the verdict intact.
hostile() {
    job "$@" && run_all && shown_safely && verdict_intact
}

# --- terminal: escape sequences and controls are shown, never obeyed -------------------------

test_expect_success 'ESC CSI in a group desc (clear screen, red): shown as \x1b in every output' '
    hostile desc "\x1b[2J\x1b[31mDP" && grep -q "never joined \\\\x1b\[2J\\\\x1b\[31mDP" o.text
'
test_expect_success 'OSC 52 in a desc (writes the clipboard): shown, never sent' '
    hostile desc "\x1b]52;c;ZWNobyBwd25lZA==\x07" && grep -q "\\\\x1b]52;c;ZWNobyBwd25lZA==\\\\x07" o.text
'
test_expect_success 'an OSC 8 hyperlink in a desc: shown, never a link' '
    hostile desc "\x1b]8;;http://evil.example/\x1b\\\\click\x1b]8;;\x1b\\\\"
'
test_expect_success 'a carriage return in a desc cannot overwrite the verdict line' '
    hostile desc "\rok: no hang; all 16 ranks healthy" && grep -q "\\\\rok: no hang" o.text
'
test_expect_success 'a C1 control (U+009B, CSI on some terminals) in a desc: \u009b' '
    hostile desc "\x9b31mDP" && grep -q "\\\\u009b31mDP" o.text
'
test_expect_success 'a bidi override (U+202E) and isolate (U+2066) in a desc: \u202e, \u2066' '
    hostile desc "EXPERT\u202ePUORG\u2066X" && grep -q "EXPERT\\\\u202ePUORG\\\\u2066X" o.text
'
test_expect_success 'DEL, BEL, backspace, tab and an invisible joiner in a desc' '
    hostile desc "a\x7fb\x07c\x08d\te\u200bf" && grep -q "a\\\\x7fb\\\\x07c\\\\x08d\\\\te\\\\u200bf" o.text
'
test_expect_success 'ESC sequences in a profiling name: the evidence tables and -j show them escaped' '
    hostile name "\x1b[2J\x1b]0;pwned\x07" && grep -q "nccl:all_to_all \\\\x1b\[2J" o.text &&
    grep -q "\\\\x1b\[2J" o.j
'
test_expect_success 'ESC and bidi in a stack frame: --print-stack-trace shows them escaped, one line' '
    hostile frame "\x1b[2Jrun\u202e\nforged frame" && grep -q "\\\\x1b\[2Jrun\\\\u202e\\\\nforged frame at" o.text &&
    ! grep -q "^ *forged frame" o.text o.j
'
test_expect_success 'ESC in a thread name: every output safe, the JSON keeps it' '
    hostile thread "\x1b[2Jt" --json
'
test_expect_success 'a directory named with ESC, OSC and a newline: status line, stderr and JSON safe' '
    job desc DP && mv job "$(printf "j\033]52;c;eA==\007\nok: x")" &&
    run_all "$(printf "j\033]52;c;eA==\007\nok: x")" && shown_safely &&
    grep -q "read from j\\\\x1b]52;c;eA==\\\\x07\\\\nok: x" o.text &&
    python3 "$CHECK" json o.db "j\x1b]52;c;eA==\x07\nok: x"
'
test_expect_success 'a junk dump in a folder named with escape sequences: stderr shows the path escaped' '
    job desc DP && mkdir "job/$(printf "\033[2J\rsub")" && printf x >"job/$(printf "\033[2J\rsub")/_dump_99" &&
    run_all && shown_safely && grep -q "^frtrace: job/\\\\x1b\[2J\\\\rsub/_dump_99: not a Flight Recorder dump" e.text
'

# --- ticket: the verdict one line, the markdown forms nothing from the input -----------------

test_expect_success 'a newline in a desc cannot put a forged "ok: no hang" line in the report' '
    hostile desc "DP\nok: no hang; all 16 ranks healthy" &&
    test "$(grep -c "never joined" o.text)" -ge 1 && head -n 1 o.text | grep -q "DP\\\\nok: no hang"
'
test_expect_success 'a newline in a profiling name keeps every table row one line' '
    hostile name "\n| 0 | completed |" && ! grep -q "^| 0 | completed" o.md
'
test_expect_success 'HTML in a desc (<img onerror>) stays text in the ticket' '
    hostile desc "<img src=x onerror=alert(1)>" && grep -q "\`[^\`]*<img src=x onerror=alert(1)>" o.md
'
test_expect_success '<script> in a profiling name stays text in the ticket' '
    hostile name "<script>alert(1)</script>"
'
test_expect_success 'a javascript: link and an image in a desc form no link' '
    hostile desc "[click](javascript:alert(1)) ![x](http://evil.example/x.png)"
'
test_expect_success 'triple backticks in a desc cannot open a block that swallows the report' '
    hostile desc "\`\`\`" && grep -q "^## Culprits" o.md && grep -q "^## Findings" o.md
'
test_expect_success 'a frame with a fence in it cannot close the stack-trace block early' '
    hostile frame "\`\`\`\`\n# forged heading" && grep -q "^\`\`\`\`\`" o.md
'
test_expect_success 'a heading, a list item and a quote after a newline in a desc stay inside code' '
    hostile desc "x\n# Forged\n- item\n> quote"
'
test_expect_success 'issue references and mentions (#123, @oncall, www.) are never autolinked' '
    hostile desc "see #123 and @oncall at www.evil.example"
'
test_expect_success 'a pipe in a desc cannot add a table column' '
    hostile desc "a | b | c"
'

# --- JSON and SVG: strict UTF-8, read back as the dump meant it ------------------------------

test_expect_success 'a lone surrogate in a pickle desc: db.json, stats and timeline are JSON, the SVG XML' '
    hostile desc "DP\ud800" && python3 "$CHECK" json o.db "DP\ud800"
'
test_expect_success 'a lone surrogate in a JSON dump (\udc80): read back as \udc80' '
    hostile desc "DP\udc80" --json && python3 "$CHECK" json o.db "DP\udc80"
'
test_expect_success 'a NUL in a pickle desc is kept, not a string cut short' '
    hostile desc "DP\x00tail" && python3 "$CHECK" json o.db "DP\x00tail" && grep -q "DP\\\\x00tail" o.text
'
test_expect_success 'a \u0000 in a JSON dump is kept, in the database and in show' '
    hostile desc "DP\x00tail" --json && python3 "$CHECK" json o.db "DP\x00tail" &&
    "$FRTRACE" show job/_dump_0 >shown && python3 "$CHECK" json shown "DP\x00tail"
'
test_expect_success 'a directory name that is not UTF-8: JSON as Python surrogateescape reads it' '
    job desc DP && mv job "$(printf "j\377\376")" && run_all "$(printf "j\377\376")" && shown_safely &&
    python3 -c "import json,os; d=json.load(open(\"o.db\"))[\"input\"][\"dir\"]; assert os.fsencode(d) == b\"j\\xff\\xfe\", d" &&
    grep -q "j\\\\xff\\\\xfe" o.text
'
test_expect_success 'plain UTF-8 (accents, CJK, emoji) passes through every output as it is' '
    hostile desc "caf\u00e9 \u65e5\u672c \U0001F600" && grep -q "$(printf "caf\303\251 \346\227\245\346\234\254 \360\237\230\200")" o.text &&
    python3 "$CHECK" json o.db "caf\u00e9 \u65e5\u672c \U0001F600"
'
test_expect_success 'SVG: <, &, quotes and controls in a profiling name and a desc stay well-formed' '
    hostile name "<&\"'"'"'\x01>" && job desc "</text><script>x</script>\x02" && run_all && shown_safely &&
    ! grep -q "<script>" o.svg
'

# --- files: -o never writes through a planted link -----------------------------------------

# planted_run NAME CMD...: CMD (frtrace) runs as the process P of a shell that first planted a
# link NAME.tmp.P -> ./victim, where the old writer put its temporary file.
planted_run() {
    planted_name_=$1
    shift
    echo precious >victim && echo precious >expected &&
    sh -c 'ln -s "$PWD/victim" "$0.tmp.$$" && exec "$@"' "$planted_name_" "$@"
}

test_expect_success '-o: a link planted at the old temporary name (FILE.tmp.PID) is never followed' '
    job desc DP &&
    test_expect_code 1 planted_run db.json "$FRTRACE" -o db.json job >/dev/null &&
    cmp victim expected && python3 "$CHECK" json db.json
'
test_expect_success '-o onto a planted link replaces the link, never the file it points at' '
    job desc DP && echo precious >victim && echo precious >expected && ln -s "$PWD/victim" db.json &&
    test_expect_code 1 "$FRTRACE" -o db.json job >/dev/null &&
    test ! -L db.json && python3 "$CHECK" json db.json && cmp victim expected
'
test_expect_success 'timeline -o and stats -o: links at the old temporary names are never followed' '
    job desc DP &&
    planted_run t.json "$FRTRACE" timeline -o t.json job && cmp victim expected &&
    python3 "$CHECK" json t.json &&
    planted_run s.txt "$FRTRACE" stats -o s.txt job && cmp victim expected &&
    grep -q "operation kinds" s.txt
'
test_expect_success 'a 255-byte -o name works for the database, stats and the timeline' '
    job desc DP && long=$(python3 -c "print(\"d\" * 255)") &&
    test_expect_code 1 "$FRTRACE" -o "$long" job >/dev/null && python3 "$CHECK" json "$long" &&
    "$FRTRACE" stats -o "$long" job && grep -q "operation kinds" "$long" &&
    "$FRTRACE" timeline -o "$long" job && python3 "$CHECK" json "$long" &&
    test "$(ls -A | grep -c tmp)" = 0
'
test_expect_success 'a write cut by the file-size limit: exit 2, said, the old file kept, nothing left' '
    job desc DP && echo "old" >db.json &&
    (ulimit -f 4 && exec "$FRTRACE" -o db.json job >/dev/null 2>err) || test $? = 2 &&
    grep -q "^frtrace: db.json: write failed (File too large); the previous file, if any, is left as it was" err &&
    test "$(cat db.json)" = old && test "$(ls -A | grep -c frtrace-)" = 0
'

# --- CLI: values that start with '-', stdout that fails, many files --------------------------

test_expect_success 'option values may start with a dash: -d "-dumps dir", --dir=-x, --dir -x, -- -x' '
    job desc DP && cp -r job "./-dumps dir" && cp -r job ./-x &&
    test_expect_code 1 "$FRTRACE" -d "-dumps dir" >out1 && head -n 1 out1 | grep -q "^hang: ranks 9,14" &&
    test_expect_code 1 "$FRTRACE" --dir=-x >out2 && test_expect_code 1 "$FRTRACE" --dir -x >out3 &&
    test_expect_code 1 "$FRTRACE" -vd -x >out4 && test_expect_code 1 "$FRTRACE" -- -x >out5 &&
    cmp out2 out3 && cmp out3 out5
'
test_expect_success '-o -db.json writes a file named -db.json; timeline --from-ms -5 is a number' '
    job desc DP && test_expect_code 1 "$FRTRACE" -o -db.json job >/dev/null &&
    python3 "$CHECK" json ./-db.json &&
    "$FRTRACE" timeline --from-ms -5 -o t.json job && python3 "$CHECK" json t.json
'
test_expect_success 'a full stdout (/dev/full): said on stderr, exit 2, for every command' '
    job desc DP &&
    for args in "" "-v" "-f markdown" "-f json" "-j" "stats" "stats -f json" "timeline" "show job/_dump_0"; do
        # shellcheck disable=SC2086
        test_expect_code 2 "$FRTRACE" $args job >/dev/full 2>err &&
        grep -q "error writing" err || return 1
    done
'
test_expect_success 'a closed pipe on stdout: said on stderr, exit 2, not a silent death by SIGPIPE' '
    job desc DP &&
    python3 - "$FRTRACE" <<-\PY
	import os, subprocess, sys
	for args in ([], ["-f", "json", "--all-calls"], ["-j"], ["stats"]):
	    r, w = os.pipe()
	    os.close(r)
	    p = subprocess.run([sys.argv[1]] + args + ["job"], stdout=w, stderr=subprocess.PIPE)
	    os.close(w)
	    assert p.returncode == 2, (args, p.returncode)
	    assert b"error writing to standard output: Broken pipe" in p.stderr, (args, p.stderr)
	PY
'
test_expect_success '20 000 junk files named like dumps: a dozen stderr lines, a short report, the real verdict' '
    job desc DP &&
    python3 -c "
for i in range(20000): open(\"job/_dump_%d\" % (100 + i), \"wb\").write(b\"x\")" &&
    test_expect_code 1 "$FRTRACE" job >out 2>err &&
    test "$(wc -l <err)" -le 12 && grep -q "and 19990 more files not read" err &&
    test "$(wc -l <out)" -le 150 && grep -q "19990 more rejected files not listed" out &&
    head -n 1 out | grep -q "^hang: ranks 9,14"
'

test_done
