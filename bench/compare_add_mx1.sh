#!/usr/bin/env bash
# compare_add_mx1.sh - issue 8's fast level: `fz7 a -mx1 -mmt1` (with and
# without -mf=off) beside `7zz a` with the same switches, and optionally an
# older fz7 build, runs interleaved (A B C D A B C D ...) on the shared
# machine; prints the median user+sys CPU seconds, wall seconds, minor page
# faults and archive size of each row.
#
# usage: bench/compare_add_mx1.sh BUILD_DIR [OLD_BUILD_DIR]
#   env: RUNS=5, CORPUS=../shared/bench/corpus, LEVEL=1, MT=1,
#        EXTRA="" (more 7-Zip switches for every row).
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
build=$(cd "${1:-$here/../build}" && pwd)
old=${2:+$(cd "$2" && pwd)}
corpus=$(cd "${CORPUS:-$here/../../shared/bench/corpus}" && pwd)
runs=${RUNS:-5}
level=${LEVEL:-1}
mt=${MT:-1}
extra=${EXTRA:-}
command -v 7zz >/dev/null || { echo "7zz not found" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

names=()
cmds=()
add_row() { names+=("$1"); cmds+=("$2"); }
sw="-mx$level -mmt$mt $extra"
add_row "fz7 a $sw -mf=off" "$build/fz7 a $sw -mf=off"
add_row "fz7 a $sw" "$build/fz7 a $sw"
if [ -n "$old" ]; then
    add_row "old fz7 a $sw -mf=off" "$old/fz7 a $sw -mf=off"
    add_row "old fz7 a $sw" "$old/fz7 a $sw"
fi
add_row "7zz a $sw -mf=off" "7zz a $sw -mf=off"
add_row "7zz a $sw" "7zz a $sw"

for ((r = 0; r < runs; r++)); do
    for i in "${!cmds[@]}"; do
        rm -f "$work/$i.7z"
        (cd "$corpus" && /usr/bin/time -f "%U %S %e %R" -o "$work/time" ${cmds[$i]} "$work/$i.7z" . \
            >/dev/null 2>"$work/err") || { echo "${names[$i]} failed" >&2; cat "$work/err" >&2; exit 1; }
        awk '{print $1 + $2, $3, $4}' "$work/time" >> "$work/$i.t"
        stat -c %s "$work/$i.7z" > "$work/$i.size"
    done
done

printf '%-34s %8s %8s %8s %10s\n' "row ($runs runs, medians)" "cpu_s" "wall_s" "minflt" "bytes"
for i in "${!cmds[@]}"; do
    printf '%-34s %8s %8s %8s %10s\n' "${names[$i]}" \
        "$(cut -d' ' -f1 "$work/$i.t" | median)" "$(cut -d' ' -f2 "$work/$i.t" | median)" \
        "$(cut -d' ' -f3 "$work/$i.t" | median)" "$(cat "$work/$i.size")"
done
