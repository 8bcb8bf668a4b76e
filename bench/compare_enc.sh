#!/usr/bin/env bash
# compare_enc.sh - LZMA/LZMA2 compression speed, size and peak memory of fz7
# beside 7zz and xz on the bench corpus, in one session (runs are interleaved
# A B C A B C... and the median is kept, as the machine is shared): one
# thread, then fz7's threads (-mmt2 against -mmt1, and the default).
#
# usage: bench/compare_enc.sh [BUILD_DIR]
#   env: RUNS=3 (runs per cell), LEVELS="1 5 9",
#        CORPUS=../shared/bench/corpus, MT=2 (also time fz7's multi-threaded
#        LZMA2 on MT threads with BS-byte blocks; MT=0 to skip), BS=8m.
# Rows: fz7 a -mmt1 -mf=off (the 7z archive), fz7bench_lzma_enc (raw LZMA2
# of the corpus as one tar), 7zz a -mmt1 -mf=off, xz -T1 -1/-6/-9 on the tar;
# then fz7 a -mmt1, -mmt2 and with no -mmt (every core), 7zz a with no -mmt,
# and fz7 a -txz -mmt1/-mmt2 of the tar (THREADS=0 skips these rows).
# cpu s = user + system seconds, wall s = elapsed, RSS MB = peak resident
# set (GNU time %M). Ratios are fz7's CPU seconds and bytes over 7zz's
# (one-thread rows: over 7zz -mmt1 -mf=off; thread rows: over 7zz a). The
# "speedup" lines are -mmt1 over -mmt2 in wall time (what the user waits)
# and the CPU-time ratio (> 1: the threads do extra work); on a loaded
# machine only the CPU figure is trustworthy.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
build=$(cd "${1:-$here/../build}" && pwd)
fz7=$build/fz7
bench=$build/fz7bench_lzma_enc
corpus=${CORPUS:-$here/../../shared/bench/corpus}
runs=${RUNS:-3}
levels=${LEVELS:-"1 5 9"}
mt=${MT:-2}
bs=${BS:-8m}
threads=${THREADS:-1}
for t in "$fz7" "$bench"; do
    [ -x "$t" ] || { echo "missing $t (build it first)" >&2; exit 1; }
done
command -v 7zz >/dev/null || { echo "7zz not found" >&2; exit 1; }
command -v xz >/dev/null || { echo "xz not found" >&2; exit 1; }
[ -d "$corpus" ] || { echo "no corpus at $corpus" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
tar cf "$work/corpus.tar" -C "$(dirname "$corpus")" "$(basename "$corpus")"
ln -s "$(cd "$corpus" && pwd)" "$work/corpus"

# run NAME OUT CMD...: runs CMD in $work, appends "cpu wall rss_kB" to
# $work/NAME.t and the size of $work/OUT to $work/NAME.size.
run() {
    local name=$1 out=$2; shift 2
    rm -f "$work/$out"
    (cd "$work" && /usr/bin/time -f "%U %S %e %M" -o "$work/time" "$@" >/dev/null 2>"$work/err") \
        || { echo "$name failed:" >&2; cat "$work/err" >&2; exit 1; }
    awk '{print $1 + $2, $3, $4}' "$work/time" >> "$work/$name.t"
    stat -c %s "$work/$out" > "$work/$name.size"
}

# row NAME WHAT REF: one table line from NAME's medians, ratios over REF's.
row() {
    local n=$1 what=$2 ref=$3
    local u w m s ru rs
    u=$(cut -d' ' -f1 "$work/$n.t" | median)
    w=$(cut -d' ' -f2 "$work/$n.t" | median)
    m=$(cut -d' ' -f3 "$work/$n.t" | median)
    s=$(cat "$work/$n.size")
    ru=$(cut -d' ' -f1 "$work/$ref.t" | median)
    rs=$(cat "$work/$ref.size")
    printf '%-34s %9.2f %9.2f %7.0f %12d %8.3f %8.4f\n' "$what" "$u" "$w" "$(echo "$m / 1024" | bc -l)" \
        "$s" "$(echo "$u / $ru" | bc -l)" "$(echo "$s / $rs" | bc -l)"
}

# speedup ONE TWO WHAT: wall and CPU ratio of ONE (-mmt1) over TWO (-mmt2).
speedup() {
    local w1 w2 c1 c2 s1 s2
    w1=$(cut -d' ' -f2 "$work/$1.t" | median); w2=$(cut -d' ' -f2 "$work/$2.t" | median)
    c1=$(cut -d' ' -f1 "$work/$1.t" | median); c2=$(cut -d' ' -f1 "$work/$2.t" | median)
    s1=$(cat "$work/$1.size"); s2=$(cat "$work/$2.size")
    printf '  speedup %s -mmt2 over -mmt1: wall %.2fx, cpu(-mmt2)/cpu(-mmt1) %.3f, size %.4fx\n' "$3" \
        "$(echo "$w1 / $w2" | bc -l)" "$(echo "$c2 / $c1" | bc -l)" "$(echo "$s2 / $s1" | bc -l)"
}

xz_level() { case $1 in 1) echo 1 ;; 5) echo 6 ;; *) echo 9 ;; esac; }

echo "corpus: $corpus ($(stat -c %s "$work/corpus.tar") bytes as tar), runs: $runs, $(nproc) cores, load: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-34s %9s %9s %7s %12s %8s %8s\n' "what" "cpu s" "wall s" "RSS MB" "bytes" "cpu/7zz" "size/7zz"
for l in $levels; do
    x=$(xz_level "$l")
    names="fz7a codec z7 xz"
    [ "$mt" -gt 0 ] && names="$names mt"
    for i in $(seq "$runs"); do
        run fz7a a.7z "$fz7" a -mx"$l" -mmt1 -mf=off a.7z corpus/
        run codec out "$bench" corpus.tar "$l" lzma2 out
        run z7 z.7z 7zz a -mx"$l" -mmt1 -mf=off z.7z corpus/
        run xz out sh -c "xz -T1 -$x -c corpus.tar > out"
        if [ "$mt" -gt 0 ]; then
            run mt out "$bench" corpus.tar "$l" lzma2 out mt="$mt" bs="$bs"
        fi
    done
    for n in $names; do
        case $n in
            fz7a) what="fz7 a -mx$l -mmt1 -mf=off" ;;
            codec) what="fz7bench_lzma_enc tar $l (LZMA2)" ;;
            z7) what="7zz a -mx$l -mmt1 -mf=off" ;;
            xz) what="xz -T1 -$x (tar)" ;;
            mt) what="fz7bench tar $l mt=$mt bs=$bs" ;;
        esac
        row "$n" "$what" z7
    done
    rm -f "$work"/*.t
    [ "$threads" -gt 0 ] || continue
    # Threads: fz7's default (-mmt = every core), -mmt2 and -mmt1 with the
    # default filters; 7zz a's default beside them; the xz writer on the tar.
    for i in $(seq "$runs"); do
        run t1 t1.7z "$fz7" a -mx"$l" -mmt1 t1.7z corpus/
        run t2 t2.7z "$fz7" a -mx"$l" -mmt2 t2.7z corpus/
        run td td.7z "$fz7" a -mx"$l" td.7z corpus/
        run zd zd.7z 7zz a -mx"$l" zd.7z corpus/
        run x1 x1.xz "$fz7" a -txz -mx"$l" -mmt1 x1.xz corpus.tar
        run x2 x2.xz "$fz7" a -txz -mx"$l" -mmt2 x2.xz corpus.tar
    done
    row t1 "fz7 a -mx$l -mmt1" zd
    row t2 "fz7 a -mx$l -mmt2" zd
    row td "fz7 a -mx$l (all $(nproc) cores)" zd
    row zd "7zz a -mx$l (all $(nproc) cores)" zd
    row x1 "fz7 a -txz -mx$l -mmt1 (tar)" zd
    row x2 "fz7 a -txz -mx$l -mmt2 (tar)" zd
    speedup t1 t2 "7z"
    speedup x1 x2 "xz"
    rm -f "$work"/*.t
done
