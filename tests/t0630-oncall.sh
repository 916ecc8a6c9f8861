#!/bin/sh
# On call at 3 a.m. (issue 22): the engineer types what comes to mind, pastes the report into a
# ticket, opens the picture, and every step reads right: options before the command, help where
# it is asked for, names never cut in two, no stray autolinks, messages that say what to do.
. "$(dirname "$0")/lib.sh"

DEMO="$TOP/testdata/demo-hang"
GLOO="$TOP/testdata/torch-2.15.0-gloo"
REC="$TOP/testdata/recorder-fake-nccl"

test_expect_success 'options before the command: frtrace -v stats DIR is frtrace stats -v DIR' '
    test_expect_code 0 "$FRTRACE" -v stats "$DEMO" >before &&
    test_expect_code 0 "$FRTRACE" stats -v "$DEMO" >after &&
    cmp before after &&
    test_expect_code 0 "$FRTRACE" "$DEMO" stats >dir_first &&
    cmp before dir_first &&
    test_expect_code 0 "$FRTRACE" -J 2 timeline -f svg -o t.svg "$DEMO" 2>err &&
    grep -q "^<svg" t.svg &&
    test_expect_code 0 "$FRTRACE" --pretty show "$DEMO/nccl_trace_rank_0" >shown &&
    grep -q "^  \"version\"" shown
'

test_expect_success 'frtrace help, help COMMAND and COMMAND --help answer what was asked' '
    test_expect_code 0 "$FRTRACE" help >general &&
    test_expect_code 0 "$FRTRACE" --help >general2 &&
    cmp general general2 &&
    grep -q "^usage: frtrace \[OPTIONS\] \[DIR\]" general &&
    test_expect_code 0 "$FRTRACE" stats --help >stats1 &&
    test_expect_code 0 "$FRTRACE" help stats >stats2 &&
    test_expect_code 0 "$FRTRACE" --help stats >stats3 &&
    cmp stats1 stats2 && cmp stats1 stats3 &&
    grep -q "^usage: frtrace stats" stats1 && ! grep -q "just-print-entries" stats1 &&
    test_expect_code 0 "$FRTRACE" timeline -h >tl &&
    grep -q "^usage: frtrace timeline" tl && grep -q -- "--max-ranks" tl &&
    test_expect_code 0 "$FRTRACE" help show >show &&
    grep -q "^usage: frtrace show" show
'

test_expect_success 'a wrong word after help, a second command, --pretty without show: usage errors' '
    test_expect_code 2 "$FRTRACE" help nonsense 2>err1 &&
    grep -q "no help for .nonsense.: the commands are stats, timeline, show and stacks" err1 &&
    test_expect_code 2 "$FRTRACE" stats timeline 2>err2 &&
    grep -q "timeline. is a second command" err2 &&
    test_expect_code 2 "$FRTRACE" --pretty "$DEMO" 2>err3 &&
    grep -q "pretty is an option of show" err3 &&
    test_expect_code 2 "$FRTRACE" -v show "$DEMO/nccl_trace_rank_0" 2>err4 &&
    grep -q "show reads only --pretty and files" err4
'

test_expect_success '--pg-filters stops at the command word: frtrace --pg-filters G stats DIR' '
    test_expect_code 0 "$FRTRACE" --pg-filters default_pg stats "$DEMO" >out 2>err &&
    grep -q "^default_pg (0) *all_reduce" out && ! grep -q warning err
'

test_expect_success '--color always|never|auto: asked for, it wins over NO_COLOR; auto colours a terminal only' '
    test_expect_code 1 "$FRTRACE" --color always "$DEMO" >always &&
    head -n 1 always | grep -q "$(printf "\033")\[1;31mhang: rank 2" &&
    NO_COLOR=1 test_expect_code 1 "$FRTRACE" --color=always "$DEMO" >always2 &&
    cmp always always2 &&
    test_expect_code 1 "$FRTRACE" --color auto "$DEMO" >auto &&
    ! grep -q "$(printf "\033")" auto &&
    test_expect_code 1 script -qec "\"$FRTRACE\" --color never \"$DEMO\"" /dev/null >never </dev/null &&
    ! grep -q "$(printf "\033")" never &&
    test_expect_code 1 script -qec "\"$FRTRACE\" \"$DEMO\"" /dev/null >tty </dev/null &&
    grep -q "$(printf "\033")" tty &&
    test_expect_code 2 "$FRTRACE" --color sometimes "$DEMO" 2>err &&
    grep -q "option --color needs auto, always or never" err
'

test_expect_success 'a parent folder of jobs: one line saying how many, and how to pick one' '
    test_expect_code 2 "$FRTRACE" "$GLOO" >out 2>err &&
    test "$(wc -l <err)" = 1 && test ! -s out &&
    grep -q "^frtrace: $GLOO holds the dumps of [0-9][0-9] jobs (rank [01].s dump is in [0-9]* folders: .* and [0-9]* more): analyze one at a time, e.g. frtrace $GLOO/a2a_size" err &&
    mkdir -p runs/job_a runs/job_b &&
    cp "$DEMO"/* runs/job_a/ && cp "$DEMO"/* runs/job_b/ &&
    mkdir runs/job_c && mkfifo runs/job_c/nccl_trace_rank_0 && # named like a dump, no job
    test_expect_code 2 "$FRTRACE" stats runs 2>err2 &&
    grep -q "runs holds the dumps of 2 jobs (rank 0.s dump is in 2 folders: job_a, job_b)" err2 &&
    mkdir -p nodes/node0 nodes/node1 &&
    cp "$DEMO"/nccl_trace_rank_[01] nodes/node0/ && cp "$DEMO"/nccl_trace_rank_[23] nodes/node1/ &&
    test_expect_code 1 "$FRTRACE" nodes >one_job &&
    head -n 1 one_job | grep -q "^hang: rank 2 never joined"
'

test_expect_success 'a dump file given as DIR: say frtrace show FILE, or the folder' '
    test_expect_code 2 "$FRTRACE" "$DEMO/nccl_trace_rank_1" 2>err &&
    grep -q "nccl_trace_rank_1 is a file, not a directory: frtrace show .*/nccl_trace_rank_1 decodes that one dump; frtrace $DEMO analyzes the job it belongs to" err &&
    (cd "$DEMO" && test_expect_code 2 "$FRTRACE" nccl_trace_rank_1 2>"$OLDPWD/err2") &&
    grep -q "frtrace \. analyzes the job" err2
'

test_expect_success '-o into a folder that does not exist fails at once, before reading anything' '
    test_expect_code 2 "$FRTRACE" -o no/such/db.json "$DEMO" >out 2>err &&
    test ! -s out &&
    grep -q "^frtrace: -o no/such/db.json: no/such does not exist (nothing was read)" err &&
    test_expect_code 2 "$FRTRACE" timeline -f svg -o no/t.svg "$DEMO" 2>err2 &&
    grep -q "no does not exist" err2 &&
    mkdir out.d &&
    test_expect_code 2 "$FRTRACE" stats -o out.d "$DEMO" 2>err3 &&
    grep -q "out.d: is a directory; name a file in it" err3 &&
    : >plain && test_expect_code 2 "$FRTRACE" -o plain/db.json "$DEMO" 2>err4 &&
    grep -q "plain is not a folder" err4
'

test_expect_success 'a JSON dump cut short says truncated, and its whole entries are still used' '
    mkdir cut && cp "$GLOO"/healthy-json/rank_*.json cut/ &&
    head -c 9000 "$GLOO/healthy-json/rank_3.json" >cut/rank_3.json &&
    test_expect_code 0 "$FRTRACE" -o db.json cut >out 2>err &&
    grep -q "^frtrace: cut/rank_3.json: truncated at byte 9000: kept 19 whole entries, dropped the partial one; its version and pg_config were after the cut" err &&
    ! grep -q "parse error" err && ! grep -q version_mismatch out &&
    python3 -c "
import json; d = json.load(open(\"db.json\"))
assert d[\"input\"][\"ranks_loaded\"] == list(range(8)), d[\"input\"]
assert d[\"input\"][\"versions\"] == [\"2.10\"], d[\"input\"]" &&
    test_expect_code 2 "$FRTRACE" show cut/rank_3.json 2>err2 &&
    grep -q "cut/rank_3.json: truncated JSON at byte 9000" err2
'

test_expect_success 'a mismatch title names what each side did' '
    test_expect_code 1 "$FRTRACE" "$GLOO/type" >type &&
    head -n 1 type | grep -q "^mismatch: rank 1 issued all_gather where ranks 0,2-7 issued all_reduce #4 in default_pg (0)$" &&
    test_expect_code 1 "$FRTRACE" "$GLOO/dtype" >dtype &&
    head -n 1 dtype | grep -q "^mismatch: rank 6 used Double where ranks 0-4,7 used Float in default_pg (0) all_reduce #4$" &&
    grep -q "rank 6 uses dtypes Double; ranks 0-4,7 use Float" dtype && ! grep -q "rank 6 use " dtype
'

test_expect_success 'a long group description: the title names the ranks once, within 100 columns' '
    mkdir long && for f in "$DEMO"/nccl_trace_rank_*; do
        "$FRTRACE" show "$f" | sed "s/default_pg/DEFAULT_PROCESS_GROUP_WITH_A_DESCRIPTION_LONGER_THAN_ANY_TITLE_COULD_HOLD_IN_ONE_LINE/g" >long/$(basename "$f").json || return 1
    done &&
    test_expect_code 1 "$FRTRACE" long >out &&
    head -n 1 out >title &&
    grep -q "^hang: rank 2 never joined DEFAULT_PROCESS_GROUP_WIT\\.\\.\\._IN_ONE_LINE all_reduce #4$" title &&
    test "$(wc -c <title)" -le 101 &&
    grep -q "DEFAULT_PROCESS_GROUP_WITH_A_DESCRIPTION_LONGER_THAN_ANY_TITLE_COULD_HOLD_IN_ONE_LINE" out
'

test_expect_success 'a title too long for every culprit clause names rank 2 once: never "rank 2: rank 2"' '
    cat >three.py <<-EOF &&
	import sys
	sys.path.insert(0, sys.argv[1])
	import gen
	j = gen.Job(4)
	for g, d in (("1", "TENSOR_AND_DATA_PARALLEL_GROUP"), ("2", "EXPERT_MODEL_PARALLEL_GROUP"),
	             ("3", "PIPELINE_MODEL_PARALLEL_GROUP")):
	    j.groups[g] = (d, [0, 1, 2, 3])
	    for s in range(1, 4):
	        j.coll(g, "all_reduce", s)
	    j.coll(g, "all_reduce", 4, states={r: "scheduled" for r in range(4)}, ranks=[0, 1, 3])
	j.add(2, "1", "all_reduce", 4, "scheduled", dtype="BFloat16")
	j.add(2, "2", "all_reduce", 4, "scheduled", ins=((5, 4),))
	j.add(2, "3", "all_gather", 4, "scheduled", ins=((4, 4),), outs=((16, 4),))
	j.write(sys.argv[2])
	EOF
    python3 three.py "$TOP/tests/scenarios" three &&
    test_expect_code 1 "$FRTRACE" three >out &&
    head -n 1 out >title &&
    grep -qx "mismatch: rank 2 used BFloat16 where ranks 0,1,3 used Float; and 2 more" title &&
    grep -q "^3\. type_mismatch in PIPELINE_MODEL_PARALLEL_GROUP (3), all_reduce #4" out
'

test_expect_success 'a gloo ok report: the slow rank first, membership in one line, no GPU words' '
    test_expect_code 0 "$FRTRACE" --width 0 "$GLOO/slow_dp" >out &&
    sed -n "/^slow ranks/=" out >slow_at && sed -n "/^warnings/=" out >warn_at &&
    test "$(cat slow_at)" -lt "$(cat warn_at)" &&
    for f in markdown jira; do
        "$FRTRACE" -f $f "$GLOO/slow_dp" >ticket &&
        grep -n -e "^## Slow ranks$" -e "^h2. Slow ranks$" ticket | cut -d: -f1 >slow_at &&
        grep -n -e "^## Warnings$" -e "^h2. Warnings$" ticket | cut -d: -f1 >warn_at &&
        test "$(cat slow_at)" -lt "$(cat warn_at)" || return 1
    done &&
    grep -A3 "membership_inferred" out >inferred &&
    test "$(grep -c . inferred)" -le 3 &&
    grep -q "13 groups rebuilt from the dumps that record entries in them (pg_config names only a group \"\", ranks 0,1, group-local, as gloo writes it); frtrace -v lists their members" out &&
    for d in "$GLOO"/*/; do
        { "$FRTRACE" -v "$d" >report 2>/dev/null || test $? = 1; } &&
        ! grep -n "GPU" report || return 1
    done
'

test_expect_success '--transform-ft: the default_pg of a replica reads "default_pg (0, ranks 2,3)", never (0@1)' '
    sh "$TOP/tests/scenarios/run_scenario.sh" torchft ft &&
    test_expect_code 1 "$FRTRACE" --transform-ft --group-world-size 2 ft >ft.txt &&
    head -n 1 ft.txt | grep -qF "hang: rank 3 never joined default_pg (0, ranks 2,3) all_reduce #4" &&
    grep -qF "missing_ranks in default_pg (0, ranks 2,3), all_reduce #4" ft.txt &&
    ! grep -q "(0@" ft.txt &&
    test_expect_code 1 "$FRTRACE" -f markdown --transform-ft --group-world-size 2 ft >ft.md &&
    ! grep -q "(0@" ft.md
'

test_expect_success 'a group without a description is "group N" everywhere, never "undefined"' '
    for d in exit skip dtype healthy; do
        { "$FRTRACE" "$GLOO/$d" >report 2>&1 || test $? = 1; } &&
        ! grep -n "undefined" report || return 1
    done &&
    test_expect_code 1 "$FRTRACE" "$GLOO/skip" >skip &&
    head -n 1 skip | grep -q "never joined group 5 all_reduce #4"
'

test_expect_success 'a dump older only by what it shows issued: "rank 2 or 9", and what tells them apart' '
    python3 "$TOP/tests/sim/sim.py" --seed 378 --out older >/dev/null &&
    test_expect_code 1 "$FRTRACE" -o older.json older/dumps >older.txt &&
    head -n 1 older.txt | grep -q "^hang: rank 2 or 9 in group 1 (a dump whose peers completed what it shows issued is older, or its GPU ran past what it recorded and stopped)$" &&
    grep -q "culprit ranks: none" older.txt &&
    tr "\n" " " <older.txt | tr -s " " | grep -q "Xid lines in its kernel log" &&
    test_expect_code 1 "$FRTRACE" -f markdown older/dumps >older.md &&
    grep -q "Xid lines in its kernel log" older.md &&
    python3 -c "
import json; d = json.load(open(\"older.json\"))
assert d[\"verdict\"][\"culprit_ranks\"] == [], d[\"verdict\"]
old = {o[\"rank\"]: o[\"issued_only\"] for o in d[\"input\"][\"older_dumps\"]}
assert old.get(9) is True, old"
'

test_expect_success 'a large job: strided rank sets compressed, nobody waits for themselves' '
    "$TOP/$BUILD/bench/gen_dumps" --ranks 512 --entries 40 --faults 1 --seed 3 job >gen.out &&
    test_expect_code 1 "$FRTRACE" --width 0 job >out &&
    head -n 1 out | grep -q "^hang: rank 191 never joined DATA_PARALLEL_GROUP all_reduce #1265 (ranks 135-183/8,199-255/8 wait)$" &&
    grep -q "wait for 191 and for one another in" out &&
    python3 "$TOP/tests/tools/check_waits.py" out &&
    test_expect_code 0 "$FRTRACE" --selected-ranks 1-9/4 -j job >j 2>err &&
    head -n 1 j | grep -q "Rank 1 .*Rank 5 .*Rank 9" && ! head -n 1 j | grep -q "Rank 2 "
'

# wrapped_whole DIR...: each report at 80 and 100 columns keeps every name of the unwrapped one
wrapped_whole() {
    for d in "$@"; do
        { "$FRTRACE" --width 0 "$d" >w0 2>/dev/null || test $? = 1; } &&
        { "$FRTRACE" --width 80 "$d" >w80 2>/dev/null || test $? = 1; } &&
        { "$FRTRACE" --width 100 "$d" >w100 2>/dev/null || test $? = 1; } &&
        python3 "$TOP/tests/tools/names_whole.py" w0 w80 w100 || return 1
    done
}

test_expect_success 'wrapped at 80 or 100 columns, no name is cut in two; equal dtypes print once' '
    "$TOP/$BUILD/bench/gen_dumps" --ranks 512 --entries 40 --faults 1 --seed 3 job >gen.out &&
    wrapped_whole "$GLOO/mesh_sigkill" "$GLOO/pipe_two_stuck" "$GLOO/size" "$REC/skip" job &&
    test_expect_code 1 "$FRTRACE" "$DEMO" >out &&
    grep -q "^   0,1,3  scheduled     nccl:all_reduce  \[\[4, 4\]\]     \[\[4, 4\]\]      Float$" out
'

test_expect_success 'markdown: frtrace own "all_reduce #4" never becomes a link to an issue' '
    "$TOP/$BUILD/bench/gen_dumps" --ranks 512 --entries 40 --faults 1 --seed 3 job >gen.out &&
    for d in "$DEMO" "$GLOO/pipe_two_stuck" "$GLOO/type" job; do
        { "$FRTRACE" -f markdown -v "$d" >o.md || test $? = 1; } &&
        python3 "$TOP/tests/tools/check_output.py" markdown o.md || return 1
    done &&
    test_expect_code 1 "$FRTRACE" -f markdown "$DEMO" >demo.md &&
    grep -q "^# \`hang: rank 2 never joined default_pg (0) all_reduce #4 (ranks 0,1,3 wait)\`$" demo.md
'

test_expect_success '-f jira: a ticket in Jira/Confluence wiki markup, the input shown, never obeyed' '
    test_expect_code 1 "$FRTRACE" -f jira "$DEMO" >demo.jira &&
    head -n 1 demo.jira | grep -qxF "h1. {{hang: rank 2 never joined default\\_pg \\(0\\) all\\_reduce \\#4 \\(ranks 0,1,3 wait\\)}}" &&
    grep -q "^||status||culprit ranks||ranks read||directory||prefix||$" demo.jira &&
    grep -q "^h2\. Culprits$" demo.jira && grep -qF "h3. {{missing\\_ranks}} in " demo.jira &&
    mkdir evil && for f in "$DEMO"/nccl_trace_rank_*; do
        "$FRTRACE" show "$f" | sed "s/default_pg/{noformat} [~admin] (x) *bold* !x.png! |cell| h1. ABC-123 {{a}} http:\/\/x/g" >evil/$(basename "$f").json || return 1
    done &&
    test_expect_code 1 "$FRTRACE" -f jira -v --print-stack-trace evil >evil.jira &&
    python3 "$TOP/tests/tools/check_output.py" jira evil.jira &&
    for d in "$GLOO/pipe_two_stuck" "$GLOO/slow_dp" "$REC/skip"; do
        { "$FRTRACE" -f jira -v "$d" >o.jira || test $? = 1; } &&
        python3 "$TOP/tests/tools/check_output.py" jira o.jira || return 1
    done &&
    test_expect_code 2 "$FRTRACE" -f confluence "$DEMO" 2>err &&
    grep -q "unknown format .confluence. (text, markdown, jira or json)" err
'

test_expect_success 'frtrace stats fits the width, without columns no dump has a value for' '
    "$TOP/$BUILD/bench/gen_dumps" --ranks 512 --entries 40 --faults 1 --seed 3 job >gen.out &&
    for d in "$GLOO/ddp_slow" "$REC/healthy" job; do
        "$FRTRACE" stats "$d" >s.txt && "$FRTRACE" stats --width 0 "$d" >s0.txt &&
        grep -v " read from " s.txt >table.txt && # a long path runs past the width, whole
        test "$(awk "length(\$0) > 100" table.txt | wc -l)" = 0 &&
        python3 "$TOP/tests/tools/names_whole.py" s0.txt s.txt || return 1
    done &&
    "$FRTRACE" stats "$GLOO/ddp_slow" >gloo.txt &&
    ! grep -q "dur p50" gloo.txt && ! grep -q "busbw" gloo.txt &&
    grep -q "no duration or bandwidth columns" gloo.txt &&
    "$FRTRACE" stats -f markdown "$GLOO/ddp_slow" >gloo.md &&
    ! grep -q "dur p50" gloo.md && grep -q "^| group | op | sizes | dtype | ranks | count | bytes | skew p50 ms | skew p99 ms |$" gloo.md
'

test_expect_success 'frtrace stats -f jira: the same tables in Jira/Confluence wiki markup' '
    "$FRTRACE" stats -f jira "$GLOO/slow" >slow.jira &&
    head -n 1 slow.jira | grep -qxF "h1. frtrace stats: 8 ranks from {{$(echo "$GLOO" | sed "s/[-_]/\\\\&/g")/slow}}" &&
    grep -qxF "||group||op||sizes||dtype||ranks||count||bytes||skew p50 ms||skew p99 ms||" slow.jira &&
    grep -qF "|{{TENSOR\_MODEL\_PARALLEL\_GROUP \(2\)}}|{{all\_reduce}}|" slow.jira &&
    grep -qx "h2\. Slow ranks" slow.jira && grep -q "^|3|{{59\.2}}|" slow.jira &&
    grep -qF "{{TORCH\_NCCL\_ENABLE\_TIMING=1}}" slow.jira &&
    python3 "$TOP/tests/tools/check_output.py" jira slow.jira &&
    test_expect_code 2 "$FRTRACE" stats -f confluence "$GLOO/slow" 2>err &&
    grep -q "unknown format .confluence. (text, markdown, jira or json)" err
'

test_expect_success 'timeline JSON: arrows go forward in time, slices nest on every track; -o says how to open it' '
    for d in "$REC/healthy" "$REC/skip" "$GLOO/slow" "$DEMO"; do
        "$FRTRACE" timeline -o t.json "$d" 2>err &&
        python3 "$TOP/tests/tools/check_trace.py" t.json &&
        grep -q "^frtrace: wrote t.json: open it at https://ui.perfetto.dev" err || return 1
    done &&
    "$FRTRACE" timeline -o t.json "$REC/healthy" &&
    grep -q "(overlapping 2)" t.json &&
    "$FRTRACE" timeline -f svg -o t.svg "$DEMO" 2>err &&
    grep -q "^frtrace: wrote t.svg: open it in a web browser" err &&
    "$FRTRACE" timeline "$DEMO" >stdout.json 2>err2 && ! grep -q "wrote" err2
'

test_expect_success 'timeline SVG of a large job: the culprits, their groups peers, a window around the hang' '
    "$TOP/$BUILD/bench/gen_dumps" --ranks 512 --entries 200 --faults 1 --seed 3 job >gen.out &&
    "$FRTRACE" timeline -f svg -o t.svg job 2>err &&
    grep -q "512 ranks; drawing 26 of them (the culprits, the slow ranks, the ranks of the groups the culprits block)" err &&
    grep -q "timeline: drawing [0-9.]* to [0-9.]* ms, around the hang" err &&
    grep -q "around the hang (--from-ms, --to-ms for another window)" t.svg &&
    grep -q ">rank 191 culprit<" t.svg &&
    for peer in 184 185 186 187 188 189 190 63; do
        grep -q ">rank $peer<" t.svg || return 1
    done &&
    ! grep -q ">rank 0<" t.svg &&
    "$FRTRACE" timeline -f svg --from-ms 0 -o all.svg job 2>err2 && ! grep -q "around the hang" err2
'

test_expect_success 'a progress line on a terminal while reading takes long, erased before the report' '
    "$TOP/$BUILD/bench/gen_dumps" --ranks 512 --entries 40 --faults 1 --seed 3 job >gen.out &&
    FRTRACE_PROGRESS_DELAY_MS=0 test_expect_code 1 script -qec "\"$FRTRACE\" --color never job" /dev/null >tty.out </dev/null &&
    grep -q "^$(printf "\r")frtrace: \(looking for\|reading\) dumps" tty.out &&
    grep -q "$(printf "\r\033\\[K")hang: rank 191 never joined" tty.out &&
    test_expect_code 1 script -qec "\"$FRTRACE\" job" /dev/null >quick.out </dev/null &&
    ! grep -q "frtrace: \\(looking for\\|reading\\) dumps" quick.out &&
    FRTRACE_PROGRESS_DELAY_MS=0 test_expect_code 1 "$FRTRACE" job >out 2>err &&
    test ! -s err
'

# help_options COMMAND: the long options `frtrace help COMMAND` lists, one per line, sorted.
help_options() {
    "$FRTRACE" help $1 | grep -o -- "--[a-z][a-z-]*" | sort -u
}

test_expect_success 'bash completion offers each command its own options, as its help lists them' '
    C="$TOP/tests/tools/complete.sh" &&
    for cmd in stats timeline stacks show; do
        bash "$C" $cmd -- >offered && help_options $cmd >listed &&
        diff -u listed offered || return 1
    done &&
    bash "$C" -- >offered && help_options "" | grep -v -e "^--pretty$" >listed &&
    diff -u listed offered &&
    bash "$C" "" >words && grep -qx stats words && grep -qx timeline words && grep -qx help words &&
    bash "$C" -f "" >formats && test "$(tr "\n" " " <formats)" = "jira json markdown text " &&
    bash "$C" timeline --format "" >tformats && test "$(tr "\n" " " <tformats)" = "json svg " &&
    bash "$C" stats -f "" >sformats && test "$(tr "\n" " " <sformats)" = "jira json markdown text " &&
    bash "$C" --color "" >colors && test "$(tr "\n" " " <colors)" = "always auto never " &&
    bash "$C" help "" >cmds && test "$(tr "\n" " " <cmds)" = "show stacks stats timeline "
'

test_expect_success 'make install puts the bash and zsh completion where the shells look' '
    make -n -C "$TOP" --no-print-directory install BUILD="$BUILD" PREFIX=/usr DESTDIR=/stage >plan &&
    grep -q "completion/frtrace.bash /stage/usr/share/bash-completion/completions/frtrace" plan &&
    grep -q "completion/_frtrace /stage/usr/share/zsh/site-functions/_frtrace" plan &&
    for o in $(help_options "" | grep -v -e "^--pretty$" -e "^--help$"); do
        grep -qE -- "$o[[}]" "$TOP/completion/_frtrace" || return 1
    done &&
    if command -v zsh >/dev/null; then zsh -n "$TOP/completion/_frtrace"; fi
'

if have_shared; then
    test_expect_success 'real runs wrapped at 80 or 100 columns: every name whole' '
        wrapped_whole "$REAL_DUMPS"/*/ &&
        test_expect_code 1 "$FRTRACE" --width 100 "$REAL_DUMPS/gpu_error_1st" >out &&
        grep -q "nccl:_all_gather_base  \[\[4096, 1, 5120\]\]  \[\[8192, 1, 5120\]\]  BFloat16$" out &&
        grep -vF "$REAL_DUMPS" out >body && # a long path runs past the width, whole
        test "$(awk "length(\$0) > 100" body | wc -l)" = 0 &&
        test_expect_code 1 "$FRTRACE" --width 80 "$REAL_DUMPS/gpu_error_1st" >out80 &&
        grep -q "^  culprit  where  " out80 &&
        grep -vF "$REAL_DUMPS" out80 >body80 &&
        test "$(awk "length(\$0) > 80" body80 | wc -l)" = 0
    '
fi

if have_shared; then
    test_expect_success 'a group whose desc is "undefined" is "group 72" in the wait chain too' '
        mkdir undef && for f in "$REAL_DUMPS"/lock_gil_1st/_dump_*; do
            "$FRTRACE" show "$f" | sed "s/\"EXPERT_MODEL_PARALLEL_GROUP\"/\"undefined\"/g" >undef/$(basename "$f").json || return 1
        done &&
        test_expect_code 1 "$FRTRACE" --width 0 undef >out &&
        grep -q "wait for 9,14 in group 72 all_to_all" out &&
        ! grep -q "undefined" out
    '

    test_expect_success 'two culprits and a long description: never "ranks 9,14: ranks 9,14"' '
        mkdir long && for f in "$REAL_DUMPS"/lock_gil_1st/_dump_*; do
            "$FRTRACE" show "$f" | sed "s/EXPERT_MODEL_PARALLEL_GROUP/EXPERT_MODEL_PARALLEL_GROUP_WITH_A_VERY_LONG_DESCRIPTION_THAT_GOES_ON_AND_ON/g" >long/$(basename "$f").json || return 1
        done &&
        test_expect_code 1 "$FRTRACE" long >out &&
        head -n 1 out >title &&
        grep -q "^hang: ranks 9,14 never joined EXPERT_MODEL_PARALLEL_GRO\\.\\.\\.ES_ON_AND_ON all_to_all #45265$" title &&
        ! grep -q "9,14: ranks 9,14" title
    '
fi

test_done
