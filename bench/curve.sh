#!/usr/bin/env bash
# curve.sh - the one-thread LZMA2 speed/size curve: fz7 -mx1..9 beside
# fast-lzma2 (fl2cli levels 1..10), 7zz -mx1..9 and xz -0..-9, -0e..-9e,
# every point a median of interleaved rounds (all commands of round 1, then
# all of round 2, ...). For each peer point it names the fastest fz7 level
# that takes no more CPU time and writes no more bytes ("none" if no level
# does), and it draws bytes against CPU seconds as a PNG (gnuplot).
#
# usage: bench/curve.sh [BUILD_DIR]
#   env: ROUNDS=3, CORPUS=../shared/bench/corpus, OUT=curve-out (directory
#        for curve-<input>.tsv/.txt/.png), INPUTS="tar dir",
#        FL2=../shared/bench/peers/fast-lzma2/fl2cli, XZ_EXTREME=1 (0 skips
#        xz -0e..-9e), SLICE=0 (MiB: cut the tar to its first SLICE MiB for a
#        quick look; only the tar is run then), PEERS_FROM= (a directory
#        of an earlier run's curve-<input>.tsv: its fl2cli, 7zz and xz rows
#        are taken as they are and only fz7 is run, to re-time fz7 alone).
# Inputs: "tar" is the corpus as one tar, written by `fz7 a` and `7zz a`
# into a 7z archive of that one file; "dir" is the corpus directory, written
# by `fz7 a` and `7zz a` with their default filters (BCJ2 or BCJ for the
# executable). fl2cli and xz have no directory mode: both inputs give them
# the tar. All commands run on one thread (-mmt1, -T1, fl2cli's 1).
# cpu s = user + system seconds, RSS = peak resident set (GNU time %M),
# bytes = the output file's size (fl2cli's raw stream + 8 bytes; the 7z and
# xz containers add a few hundred bytes).
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
build=$(cd "${1:-$here/../build}" && pwd)
fz7=$build/fz7
corpus=${CORPUS:-$here/../../shared/bench/corpus}
rounds=${ROUNDS:-3}
out=${OUT:-curve-out}
inputs=${INPUTS:-"tar dir"}
fl2=${FL2:-$here/../../shared/bench/peers/fast-lzma2/fl2cli}
xz_extreme=${XZ_EXTREME:-1}
slice=${SLICE:-0}
peers_from=${PEERS_FROM:-}
[ -x "$fz7" ] || { echo "missing $fz7 (build it first)" >&2; exit 1; }
[ -d "$corpus" ] || { echo "no corpus at $corpus" >&2; exit 1; }
for t in 7zz xz gnuplot; do
    command -v "$t" >/dev/null || { echo "$t not found (scripts/deps.sh installs it)" >&2; exit 1; }
done
have_fl2=1
[ -x "$fl2" ] || { echo "note: no fl2cli at $fl2: fast-lzma2 points skipped" >&2; have_fl2=0; }
mkdir -p "$out"
out=$(cd "$out" && pwd)
if [ -n "$peers_from" ]; then
    peers_from=$(cd "$peers_from" && pwd) || exit 1
    [ "$peers_from" != "$out" ] || { echo "PEERS_FROM must not be OUT (its tables are rewritten)" >&2; exit 1; }
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
tar cf "$work/corpus.tar" -C "$(dirname "$corpus")" "$(basename "$corpus")"
if [ "$slice" -gt 0 ]; then
    inputs=tar   # the directory is never cut, and its peers take the whole tar
    head -c $((slice << 20)) "$work/corpus.tar" > "$work/slice" && mv "$work/slice" "$work/corpus.tar"
fi
ln -s "$(cd "$corpus" && pwd)" "$work/corpus"

# point TOOL LABEL OUTFILE CMD...: one run in $work; appends "cpu rss_kB
# bytes" to $work/TOOL.LABEL.t.
point() {
    local tool=$1 label=$2 o=$3; shift 3
    rm -f "$work/$o"
    (cd "$work" && /usr/bin/time -f "%U %S %M" -o "$work/time" "$@" >/dev/null 2>"$work/err") \
        || { echo "$tool $label failed:" >&2; cat "$work/err" >&2; exit 1; }
    echo "$(awk '{print $1 + $2, $3}' "$work/time") $(stat -c %s "$work/$o")" >> "$work/$tool.$label.t"
}

# one_round INPUT PEERS: every point once (PEERS=0: fz7 and 7zz only).
one_round() {
    local in=$1 peers=$2 src l
    [ "$in" = dir ] && src=corpus/ || src=corpus.tar
    for l in 1 2 3 4 5 6 7 8 9; do
        point fz7 "$l" a.7z "$fz7" a -mmt1 -mx"$l" a.7z "$src"
    done
    [ -z "$peers_from" ] || return 0
    if [ "$have_fl2" = 1 ] && [ "$peers" = 1 ]; then
        for l in 1 2 3 4 5 6 7 8 9 10; do
            point fl2cli "$l" f.lzma2 "$fl2" c "$l" 1 corpus.tar f.lzma2
        done
    fi
    for l in 1 2 3 4 5 6 7 8 9; do
        point 7zz "$l" z.7z 7zz a -mmt1 -mx"$l" z.7z "$src"
    done
    [ "$peers" = 1 ] || return 0
    for l in 0 1 2 3 4 5 6 7 8 9; do
        point xz "$l" x.xz sh -c "xz -T1 -$l -c corpus.tar > x.xz"
        [ "$xz_extreme" = 1 ] && point xz "${l}e" x.xz sh -c "xz -T1 -${l}e -c corpus.tar > x.xz"
    done
}

# table INPUT: medians to $out/curve-INPUT.tsv, the dominance table to
# stdout and $out/curve-INPUT.txt, the plot to $out/curve-INPUT.png.
table() {
    local in=$1 f cpu rss bytes tool label
    local tsv=$out/curve-$in.tsv txt=$out/curve-$in.txt
    printf 'tool\tlevel\tcpu_s\tbytes\trss_mb\n' > "$tsv"
    for f in "$work"/*.t; do
        tool=$(basename "$f" .t); label=${tool#*.}; tool=${tool%%.*}
        cpu=$(cut -d' ' -f1 "$f" | median)
        rss=$(cut -d' ' -f2 "$f" | median)
        bytes=$(cut -d' ' -f3 "$f" | sort -u | head -1)
        printf '%s\t%s\t%s\t%s\t%.1f\n' "$tool" "$label" "$cpu" "$bytes" "$(echo "$rss / 1024" | bc -l)" >> "$tsv"
    done
    if [ -n "$peers_from" ]; then
        awk -F'\t' 'NR > 1 && $1 != "fz7"' "$peers_from/curve-$in.tsv" >> "$tsv" \
            || { echo "no $peers_from/curve-$in.tsv" >&2; exit 1; }
    fi
    {
        echo "input: $in ($(stat -c %s "$work/corpus.tar") bytes as tar), rounds: $rounds, $(nproc) cores," \
             "load: $(cut -d' ' -f1-3 /proc/loadavg), CPU: $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1)"
        awk -F'\t' '
            $1 == "fz7" { n++; fl[n] = $2; fc[n] = $3; fb[n] = $4; fr[n] = $5; next }
            { m++; pt[m] = $1; pl[m] = $2; pc[m] = $3; pb[m] = $4; pr[m] = $5 }
            END {
                printf "%-8s %-5s %8s %12s %8s | %-9s %8s %8s\n", "peer", "level", "cpu s", "bytes", "RSS MB", "fz7 -mx", "cpu/peer", "size/peer"
                for (i = 1; i <= m; i++) {
                    best = 0
                    for (j = 1; j <= n; j++)
                        if (fc[j] <= pc[i] && fb[j] <= pb[i] && (!best || fc[j] < fc[best]))
                            best = j
                    if (best) {
                        dom++
                        printf "%-8s %-5s %8.2f %12d %8.1f | %-9s %8.3f %8.4f\n", pt[i], pl[i], pc[i], pb[i], pr[i], fl[best], fc[best] / pc[i], fb[best] / pb[i]
                    } else {
                        # none: the fastest level at no more bytes, and its cpu over the peer
                        near = 0
                        for (j = 1; j <= n; j++)
                            if (fb[j] <= pb[i] && (!near || fc[j] < fc[near]))
                                near = j
                        if (near)
                            printf "%-8s %-5s %8.2f %12d %8.1f | none (%s: %.3f %.4f)\n", pt[i], pl[i], pc[i], pb[i], pr[i], fl[near], fc[near] / pc[i], fb[near] / pb[i]
                        else
                            printf "%-8s %-5s %8.2f %12d %8.1f | none\n", pt[i], pl[i], pc[i], pb[i], pr[i]
                    }
                }
                printf "\nfz7 levels:\n"
                for (j = 1; j <= n; j++)
                    printf "fz7      %-5s %8.2f %12d %8.1f\n", fl[j], fc[j], fb[j], fr[j]
                printf "\n%d of %d peer points dominated by an fz7 level (cpu and bytes both no more)\n", dom + 0, m
            }' <(tail -n +2 "$tsv" | sort -t$'\t' -k1,1 -k3,3g)
    } | tee "$txt"
    local plots="" t
    for t in fz7 fl2cli 7zz xz; do
        awk -F'\t' -v t=$t 'NR > 1 && $1 == t {print $3, $4 / 1e6}' "$tsv" | sort -g > "$work/plot.$t"
        [ -s "$work/plot.$t" ] && plots="$plots${plots:+, }'$work/plot.$t' using 1:2 with linespoints title '$t'"
    done
    gnuplot <<PLOT
set terminal pngcairo size 1000,700
set output '$out/curve-$in.png'
set title 'one thread, corpus $in: compressed bytes against CPU seconds (median of $rounds rounds)'
set xlabel 'CPU seconds (user + system), log scale'
set ylabel 'compressed MB'
set logscale x
set key top right
set grid
plot $plots
PLOT
}

echo "fz7 $("$fz7" --version | head -1); $(7zz | sed -n 2p | cut -c1-40); $(xz --version | head -1)"
# fl2cli and xz get the tar for either input: after the tar, the directory
# reuses their points.
peers=1
for in in $inputs; do
    rm -f "$work"/fz7.*.t "$work"/7zz.*.t
    [ "$peers" = 1 ] && rm -f "$work"/fl2cli.*.t "$work"/xz.*.t
    for r in $(seq "$rounds"); do one_round "$in" "$peers"; done
    table "$in"
    peers=0
done
