#!/bin/sh
# bench_scale.sh — how frtrace's analysis scales with the number of ranks, against the floor of
# merely reading the same bytes with `cat`.
#
# For each size in BENCH_RANKS (default "512 4096 16384") x BENCH_ENTRIES (default 2000) it
# generates a healthy synthetic job with build/bench/gen_dumps into BENCH_DIR
# (/tmp/frtrace-bench; a directory generated before with the same parameters is reused), plus
# one 512-rank job with stack frames, plus for each RANKS:K in BENCH_SPARSE (default
# "131072:64") a job of RANKS ranks of which only every K-th wrote a dump (a default group of
# 131 072 members, 2 048 files: the analysis must stay linear in the group's size when most
# members have no dump; compare its MB/s and entries/s with the 16 384-rank row). It then
# measures with build/bench/measure
#   (a) cat of every file to /dev/null, after one warm-up read so both runs hit the page cache;
#   (b) build/frtrace -d DIR -o DB  (the analysis as an on-call engineer runs it: the text report
#       on stdout, to /dev/null, and the database, by default the problems only, into a file of
#       the log directory; killed after BENCH_TIMEOUT s;
#       BENCH_FRTRACE names another binary, e.g. an older build to compare with)
# and prints one table row per job: size, and for cat and frtrace wall s, CPU s, peak MB, MB/s,
# entries/s, then frtrace/cat wall ratio, how much of the dumps the page cache held as frtrace
# started (fincore) and the database's size. Each side runs BENCH_REPS times (default 3) and its
# fastest run is shown, so that a passing disturbance (a daemon, the disk writing back) skews
# neither side; freshly generated data is synced to disk first for the same reason. A frtrace
# that fails (exit status >= 2, killed or timed out, or over BENCH_MEM_LIMIT_MB of address
# space, by default 3/4 of the available memory) is marked "failed" with its first message; the
# cat row is still printed.
#
# Clocks and waits: for the sizes in BENCH_CLOCK_RANKS (default "1024 2048") a job whose
# pipeline stages' clocks drift 35 s apart over the window, with a default-group all_reduce every
# step (gen_dumps --clock-drift-ms 35000 --period 1), and at the first size jobs whose node
# clocks are up to 3 s off, without and with a slow rank, and one whose calls wait (--cascade)
# with a slow rank: frtrace's time and peak, the slow ranks it names and those the generator
# made slow, and the ratio of the drifting jobs' times (the goal: linear, at most 2.2).
#
# Last, for each size in BENCH_HUGE (default 131072; "" for none), the largest job: every rank's
# dump (gen_dumps --period 0: no default-group collective, so that no file repeats the world's
# rank list; 39 GB at 131 072 x 2 000), generated niced, measured once, deleted at once. It
# needs that much disk (else it is skipped) and takes the memory for minutes: run it when the
# machine is otherwise idle. Its row says how much of it the page cache held.
#
# Disk: before generating, the job's size is estimated (bytes per entry measured on the first
# job, plus the default group's rank list, which every rank's file repeats and which grows with
# the world) and the size is skipped when it would not leave BENCH_MIN_FREE_MB free.
# Then, for the sizes in BENCH_PERF_RANKS (default 4096), the performance views against that
# analysis: `frtrace stats DIR`, `frtrace timeline DIR -o /dev/null` (trace JSON) and
# `frtrace timeline -f svg`, each its fastest of BENCH_REPS, as wall s, peak MB and the ratio to
# the plain analysis (the goal: within 2x).
# The generated data is deleted at the end unless BENCH_KEEP=1.
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$TOP/tests/paths.sh"
GEN="$TOP/$BUILD/bench/gen_dumps"
MEASURE="$TOP/$BUILD/bench/measure"
FRTRACE=${BENCH_FRTRACE:-$FRTRACE}
RANKS=${BENCH_RANKS-512 4096 16384} # each list may be set empty: no such rows
SPARSE=${BENCH_SPARSE-131072:64}
HUGE=${BENCH_HUGE-131072}
CLOCK_RANKS=${BENCH_CLOCK_RANKS-1024 2048}
REPS=${BENCH_REPS:-3}
ENTRIES=${BENCH_ENTRIES:-2000}
DIR=${BENCH_DIR:-/tmp/frtrace-bench}
TIMEOUT=${BENCH_TIMEOUT:-1800}
MIN_FREE_MB=${BENCH_MIN_FREE_MB:-4096}
# frtrace runs under `ulimit -v`, so that a run that outgrows the machine fails alone instead of
# waking the OOM killer on a machine shared with others
MEM_LIMIT_MB=${BENCH_MEM_LIMIT_MB:-$(awk '/^MemAvailable:/ { printf "%d", $2 / 1024 * 3 / 4 }' /proc/meminfo)}
BPE=180 # bytes per entry until the first job tells better
nice_cmd="" # "nice" for the largest jobs

for p in "$GEN" "$MEASURE"; do
    [ -x "$p" ] || { echo "bench_scale: $p is missing (make bench builds it)"; exit 1; }
done
mkdir -p "$DIR" || exit 1
LOG="$DIR/logs"
mkdir -p "$LOG"

free_mb() { df -Pm "$DIR" | awk 'NR == 2 { print $4 }'; }

# field KEY FILE: the value of KEY=... in a measure line.
field() { sed -n "s/.*[ :]$1=\([^ ]*\).*/\1/p" "$2" | tail -n 1; }

# generate NAME RANKS FRAMES(0|1) [EVERY [GEN-OPTIONS]]: make sure $DIR/NAME holds that job (only
# every EVERY-th rank's dump, default 1; GEN-OPTIONS for gen_dumps, e.g. "--period 0"); 1 when
# skipped.
generate() {
    name=$1 n=$2 frames=$3 every=${4:-1} extra=${5:-}
    params="--ranks $n --entries $ENTRIES --seed 1 $( [ "$frames" = 1 ] && echo --frames)"
    [ "$every" -gt 1 ] && params="$params --every $every"
    [ -n "$extra" ] && params="$params $extra"
    world=$n # the default group's rank list, in every file (none with --period 0)
    case " $extra " in *" --period 0 "*) world=0 ;; esac
    stamp="$DIR/$name.params"
    if [ -d "$DIR/$name" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$params" ]; then
        echo "   reusing $DIR/$name ($params)"
        return 0
    fi
    est_mb=$(awk -v n="$n" -v w="$world" -v e="$ENTRIES" -v b="$BPE" -v k="$every" \
        'BEGIN { f = n / k; printf "%d", (f * e * b + f * w * 10 + f * 8192) / 1e6 + 1 }')
    have=$(free_mb)
    if [ $((have - est_mb)) -lt "$MIN_FREE_MB" ]; then
        echo "   skipping $n ranks: needs ~${est_mb} MB, ${have} MB free (keeping ${MIN_FREE_MB} MB)"
        return 1
    fi
    rm -rf "${DIR:?}/$name" "$stamp"
    # shellcheck disable=SC2086
    if ! $nice_cmd "$GEN" $params "$DIR/$name" >"$DIR/$name.printed" 2>"$LOG/$name.gen"; then
        echo "   generator failed: $(tail -n 1 "$LOG/$name.gen")"
        return 1
    fi
    echo "$params" >"$stamp"
    sync # the writing back of gigabytes would otherwise compete with the measured runs
    echo "   generated: $(sed 's/^gen_dumps: //' "$LOG/$name.gen")"
    return 0
}

# learn bytes per entry from a generated job (without the default group's rank lists)
learn_bpe() {
    bytes=$(du -sb "$DIR/$1" | cut -f1)
    BPE=$(awk -v t="$bytes" -v n="$2" -v e="$ENTRIES" \
        'BEGIN { b = (t - n * n * 7) / (n * e); if (b < 50) b = 50; printf "%d", b * 1.1 + 1 }')
}

# best PREFIX: the measure line of the fastest run among PREFIX.1, PREFIX.2, ... (a failed run,
# exit >= 2, wins, so that the row reports the failure).
best() {
    for f in "$1".[0-9]*; do
        w=$(field wall_s "$f") e=$(field exit "$f")
        [ "${e:-2}" -ge 2 ] && w=-1
        echo "$w $f"
    done | sort -g | head -n 1 | cut -d' ' -f2- | xargs cat
}

# cells MEASURE_FILE BYTES ENTRIES: "wall cpu peak MB/s entries/s" for the table.
cells() {
    awk -v w="$(field wall_s "$1")" -v c="$(field cpu_s "$1")" -v k="$(field maxrss_kb "$1")" \
        -v b="$2" -v e="$3" 'BEGIN {
            if (w <= 0) w = 0.001
            printf "%8.2f %8.2f %8.1f %9.1f %11.3g", w, c, k / 1024, b / 1e6 / w, e / w }'
}

# cached_pct DIR: how much of DIR's files the page cache holds (%), "?" without fincore.
cached_pct() {
    command -v fincore >/dev/null 2>&1 || { echo "?"; return; }
    find "$1" -type f -print0 | xargs -0 fincore -b -n -o RES,SIZE 2>/dev/null |
        awk '{ r += $1; s += $2 } END { if (s > 0) printf "%d", 100 * r / s; else print "?" }'
}

# row NAME RANKS FRAMES [REPS]: the table's row for $DIR/NAME.
row() {
    name=$1 n=$2 frames=$3 reps=${4:-$REPS}
    d="$DIR/$name"
    files=$(find "$d" -type f | wc -l)
    bytes=$(du -sb "$d" | cut -f1)
    entries=$((files * ENTRIES))
    # the floor: read everything once to warm the page cache, then measure the reads
    find "$d" -type f -print0 | xargs -0 cat >/dev/null
    rm -f "$LOG/$name.cat".[0-9]* "$LOG/$name.frtrace".[0-9]*
    rep=1
    while [ "$rep" -le "$reps" ]; do
        $nice_cmd "$MEASURE" -o "$LOG/$name.cat.$rep" -- sh -c 'find "$1" -type f -print0 | xargs -0 cat >/dev/null' \
            sh "$d"
        cached=$(cached_pct "$d")
        rm -f "$LOG/$name.db.json"
        $nice_cmd "$MEASURE" -o "$LOG/$name.frtrace.$rep" -- sh -c 'ulimit -v "$1" && exec timeout "$2" "$3" -d "$4" \
            -o "$5"' sh $((MEM_LIMIT_MB * 1024)) "$TIMEOUT" "$FRTRACE" "$d" "$LOG/$name.db.json" \
            >/dev/null 2>"$LOG/$name.frtrace.err"
        [ "$(field exit "$LOG/$name.frtrace.$rep")" -le 1 ] 2>/dev/null || break # a failure is not retried
        rep=$((rep + 1))
    done
    db_mb=$(awk -v b="$(wc -c <"$LOG/$name.db.json" 2>/dev/null || echo 0)" 'BEGIN { printf "%7.1f", b / 1e6 }')
    rm -f "$LOG/$name.db.json"
    best "$LOG/$name.cat" >"$LOG/$name.cat"
    best "$LOG/$name.frtrace" >"$LOG/$name.frtrace"
    st=$(field exit "$LOG/$name.frtrace")
    cat_cells=$(cells "$LOG/$name.cat" "$bytes" "$entries")
    if [ "${st:-2}" -le 1 ]; then
        fr_cells=$(cells "$LOG/$name.frtrace" "$bytes" "$entries")
        ratio=$(awk -v a="$(field wall_s "$LOG/$name.frtrace")" -v b="$(field wall_s "$LOG/$name.cat")" \
            'BEGIN { if (b <= 0) b = 0.001; printf "%7.1f", a / b }')
    else
        why=$(head -n 1 "$LOG/$name.frtrace.err" | sed 's/^frtrace: //; s/^[^ ]*: //' | cut -c1-40)
        [ "$st" = 124 ] && why="timed out after ${TIMEOUT}s"
        [ -z "$why" ] && why="no message; memory limit ${MEM_LIMIT_MB} MB?"
        fr_cells=$(printf '%-48s' "failed (exit $st: $why)")
        ratio="      -"
    fi
    printf '%6d %7d %6s %8.1f %6d | %s | %s | %s %6s %7s\n' "$n" "$ENTRIES" "$frames" \
        "$(awk -v b="$bytes" 'BEGIN { print b / 1e6 }')" "$files" "$cat_cells" "$fr_cells" "$ratio" \
        "$cached%" "$db_mb"
}

echo "bench_scale: data in $DIR, ${ENTRIES} entries per rank, ranks: $RANKS (512 also with frames)," \
    "sparse (ranks:1 in K with a dump): $SPARSE"
echo "   $(nproc) cores; frtrace limits: ${TIMEOUT} s, ${MEM_LIMIT_MB} MB; $(free_mb) MB free on disk"
jobs="" clock_jobs=""
for n in $RANKS; do
    if generate "r${n}_e${ENTRIES}" "$n" 0; then
        jobs="$jobs r${n}_e${ENTRIES}:$n:no"
        [ "$n" = "$(echo "$RANKS" | awk '{ print $1 }')" ] && learn_bpe "r${n}_e${ENTRIES}" "$n"
    fi
    if [ "$n" = 512 ] && generate "r512_e${ENTRIES}_frames" 512 1; then
        jobs="$jobs r512_e${ENTRIES}_frames:512:yes"
    fi
done
for s in $SPARSE; do
    n=${s%%:*} k=${s#*:}
    generate "r${n}_e${ENTRIES}_1in$k" "$n" 0 "$k" && jobs="$jobs r${n}_e${ENTRIES}_1in$k:$n:no"
done

echo
printf '%6s %7s %6s %8s %6s | %8s %8s %8s %9s %11s | %8s %8s %8s %9s %11s | %7s %6s %7s\n' \
    ranks entries frames MB files "cat s" "cpu s" "peak MB" "MB/s" "entries/s" \
    "frtr s" "cpu s" "peak MB" "MB/s" "entries/s" "fr/cat" cached "db MB"
for j in $jobs; do
    name=${j%%:*} rest=${j#*:}
    row "$name" "${rest%%:*}" "${rest#*:}"
done
echo "(cached: the share of the dumps in the page cache as frtrace started; db MB: its database;"
echo " logs and measure lines in $LOG)"

# --- clocks and waits -----------------------------------------------------------------------
# clock_row NAME RANKS WHAT GEN-OPTIONS: frtrace on a job whose timestamps are less kind (fastest
# of REPS); its stragglers against the ranks the generator made slow.
clock_row() {
    name=$1 n=$2 what=$3 extra=$4 d="$DIR/$1"
    generate "$name" "$n" 0 1 "$extra" >"$LOG/$name.generate" || return 0
    clock_jobs="$clock_jobs $name"
    rm -f "$LOG/$name.frtrace".[0-9]*
    rep=1
    while [ "$rep" -le "$REPS" ]; do
        "$MEASURE" -o "$LOG/$name.frtrace.$rep" -- sh -c 'ulimit -v "$1" && exec timeout "$2" "$3" -d "$4" \
            -o "$5"' sh $((MEM_LIMIT_MB * 1024)) "$TIMEOUT" "$FRTRACE" "$d" "$LOG/$name.db.json" \
            >/dev/null 2>"$LOG/$name.frtrace.err"
        [ "$(field exit "$LOG/$name.frtrace.$rep")" -le 1 ] 2>/dev/null || break
        rep=$((rep + 1))
    done
    best "$LOG/$name.frtrace" >"$LOG/$name.frtrace"
    named=$(python3 -c 'import json,sys; print(",".join(str(s["rank"]) for s in sorted(json.load(open(sys.argv[1]))["stragglers"], key=lambda s: s["rank"])) or "none")' \
        "$LOG/$name.db.json" 2>/dev/null || echo "?")
    injected=$(sed -n 's/^slow_ranks: //p' "$DIR/$name.printed" | tr ' ' ,)
    printf '%6d  %-38s %8.2f %8.2f %8.1f  %-17s %s\n' "$n" "$what" "$(field wall_s "$LOG/$name.frtrace")" \
        "$(field cpu_s "$LOG/$name.frtrace")" "$(awk -v k="$(field maxrss_kb "$LOG/$name.frtrace")" 'BEGIN { print k / 1024 }')" \
        "$named" "${injected:-none}"
}

if [ -n "$CLOCK_RANKS" ]; then
    echo
    echo "clocks and waits: the slow ranks named on less kind timestamps (fastest of $REPS):"
    printf '%6s  %-38s %8s %8s %8s  %-17s %s\n' ranks timestamps "frtr s" "cpu s" "peak MB" named injected
    first=$(echo "$CLOCK_RANKS" | awk '{ print $1 }')
    for n in $CLOCK_RANKS; do
        clock_row "c${n}_drift" "$n" "stage clocks drifting 35 s apart" "--clock-drift-ms 35000 --period 1"
    done
    clock_row "c${first}_offsets" "$first" "node clocks up to 3 s off" "--node-offset-ms 3000"
    clock_row "c${first}_offsets_slow" "$first" "node clocks up to 3 s off, a slow rank" \
        "--node-offset-ms 3000 --slow-ranks 77"
    clock_row "c${first}_cascade_slow" "$first" "calls that wait, a slow rank" "--cascade --slow-ranks 77"
    set -- $CLOCK_RANKS
    if [ $# -ge 2 ]; then
        awk -v a="$(field wall_s "$LOG/c${2}_drift.frtrace" 2>/dev/null)" \
            -v b="$(field wall_s "$LOG/c${1}_drift.frtrace" 2>/dev/null)" -v n1="$1" -v n2="$2" \
            'BEGIN { if (a > 0 && b > 0) printf "time(%d ranks) / time(%d ranks) on drifting clocks: %.2f\n", n2, n1, a / b }'
    fi
fi

# perf_row NAME N: stats and timeline against the plain analysis measured by row().
perf_row() {
    name=$1 n=$2 d="$DIR/$1"
    plain=$(field wall_s "$LOG/$name.frtrace")
    for what in stats timeline svg; do
        case $what in
        stats) set -- stats "$d" ;;
        timeline) set -- timeline "$d" -o /dev/null ;;
        svg) set -- timeline -f svg "$d" -o /dev/null ;;
        esac
        rm -f "$LOG/$name.$what".[0-9]*
        rep=1
        while [ "$rep" -le "$REPS" ]; do
            "$MEASURE" -o "$LOG/$name.$what.$rep" -- sh -c 'ulimit -v "$1" && shift && exec "$@"' sh \
                $((MEM_LIMIT_MB * 1024)) "$FRTRACE" "$@" >/dev/null 2>"$LOG/$name.$what.err"
            rep=$((rep + 1))
        done
        best "$LOG/$name.$what" >"$LOG/$name.$what"
        awk -v n="$n" -v w="$what" -v s="$(field wall_s "$LOG/$name.$what")" -v k="$(field maxrss_kb "$LOG/$name.$what")" \
            -v e="$(field exit "$LOG/$name.$what")" -v p="$plain" 'BEGIN {
                if (p <= 0) p = 0.001
                if (e >= 2) { printf "%6d %-9s failed (exit %s)\n", n, w, e; exit }
                printf "%6d %-9s %8.2f %8.1f %8.2f %6.2f\n", n, w, s, k / 1024, p, s / p }'
    done
}

perf_header=0
for j in $jobs; do
    name=${j%%:*} rest=${j#*:} n=${rest%%:*}
    case " ${BENCH_PERF_RANKS-4096} " in *" $n "*) ;; *) continue ;; esac
    [ "${rest#*:}" = no ] || continue
    if [ "$perf_header" = 0 ]; then
        echo
        echo "stats and timeline (default cap: 64 ranks drawn) against the plain analysis above:"
        printf '%6s %-9s %8s %8s %8s %6s\n' ranks view "wall s" "peak MB" "plain s" ratio
        perf_header=1
    fi
    perf_row "$name" "$n"
done

# The largest jobs, last: every rank's dump, without the default group's collectives, whose rank
# list would otherwise fill each file (1 MB each at 131 072 ranks: 155 GB instead of 39). Each is
# generated, measured once (niced: it takes the memory for minutes) and deleted at once.
nice_cmd=nice
for n in $HUGE; do
    name="r${n}_e${ENTRIES}_p0"
    generate "$name" "$n" 0 1 "--period 0" || continue
    echo
    echo "the largest job, every rank's dump, once (the columns as above):"
    row "$name" "$n" no 1
    [ "${BENCH_KEEP:-0}" = 1 ] || rm -rf "${DIR:?}/$name" "$DIR/$name.params" "$DIR/$name.printed"
done

if [ "${BENCH_KEEP:-0}" != 1 ]; then
    for j in $jobs $clock_jobs; do
        rm -rf "${DIR:?}/${j%%:*}" "$DIR/${j%%:*}.params" "$DIR/${j%%:*}.printed"
    done
    echo "(generated data deleted; BENCH_KEEP=1 keeps it)"
fi
