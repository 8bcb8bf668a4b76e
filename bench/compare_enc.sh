#!/usr/bin/env bash
# compare_enc.sh - LZMA/LZMA2 compression speed and size of fz7 beside 7zz
# and xz on the bench corpus, single-threaded, in one session (runs are
# interleaved A B C A B C... and the median is kept, as the machine is shared).
#
# usage: bench/compare_enc.sh [BUILD_DIR]
#   env: RUNS=3 (runs per cell), LEVELS="1 5 9",
#        CORPUS=../shared/bench/corpus, MT=2 (also time fz7's multi-threaded
#        LZMA2 on MT threads with BS-byte blocks; MT=0 to skip), BS=8m.
# Rows: fz7 a -mmt1 -mf=off (the 7z archive), fz7bench_lzma_enc (raw LZMA2
# of the corpus as one tar), 7zz a -mmt1 -mf=off, xz -T1 -1/-6/-9 on the tar.
# Ratios are fz7's user CPU seconds and bytes over 7zz's.
set -u
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:-$here/../build}" && pwd)
fz7=$build/fz7
bench=$build/fz7bench_lzma_enc
corpus=${CORPUS:-$here/../../shared/bench/corpus}
runs=${RUNS:-3}
levels=${LEVELS:-"1 5 9"}
mt=${MT:-2}
bs=${BS:-8m}
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

# run NAME OUT CMD...: runs CMD in $work, appends "user wall" to
# $work/NAME.t and the size of $work/OUT to $work/NAME.size.
run() {
    local name=$1 out=$2; shift 2
    rm -f "$work/$out"
    (cd "$work" && /usr/bin/time -f "%U %e" -o "$work/time" "$@" >/dev/null 2>"$work/err") \
        || { echo "$name failed:" >&2; cat "$work/err" >&2; exit 1; }
    cat "$work/time" >> "$work/$name.t"
    stat -c %s "$work/$out" > "$work/$name.size"
}

median() { sort -n | awk '{v[NR]=$1} END{print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }

xz_level() { case $1 in 1) echo 1 ;; 5) echo 6 ;; *) echo 9 ;; esac; }

echo "corpus: $corpus ($(stat -c %s "$work/corpus.tar") bytes as tar), runs: $runs, $(nproc) cores, load: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-34s %9s %9s %12s %8s %8s\n' "what" "user s" "wall s" "bytes" "user/7zz" "size/7zz"
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
    zu=$(cut -d' ' -f1 "$work/z7.t" | median)
    zs=$(cat "$work/z7.size")
    for n in $names; do
        u=$(cut -d' ' -f1 "$work/$n.t" | median)
        w=$(cut -d' ' -f2 "$work/$n.t" | median)
        s=$(cat "$work/$n.size")
        case $n in
            fz7a) what="fz7 a -mx$l -mmt1 -mf=off" ;;
            codec) what="fz7bench_lzma_enc tar $l (LZMA2)" ;;
            z7) what="7zz a -mx$l -mmt1 -mf=off" ;;
            xz) what="xz -T1 -$x (tar)" ;;
            mt) what="fz7bench tar $l mt=$mt bs=$bs" ;;
        esac
        printf '%-34s %9.2f %9.2f %12d %8.3f %8.4f\n' "$what" "$u" "$w" "$s" \
            "$(echo "$u / $zu" | bc -l)" "$(echo "$s / $zs" | bc -l)"
        rm -f "$work/$n.t"
    done
done
