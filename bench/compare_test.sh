#!/usr/bin/env bash
# Decompression speed of `fz7 t` beside `7zz t` and `xz -t`, in one run, on
# ../shared/bench/corpus: a `7zz a -mx5 -mf=off` archive, and an `xz -6`
# file of the corpus as a tar. Prints median seconds of N runs and ratios.
# Usage: bench/compare_test.sh [runs]   (FZ7=path of the binary)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/bench/lib.sh"
fz7=$(realpath "${FZ7:-$top/build/fz7}")
runs=${1:-5}
corpus=$top/../shared/bench/corpus
work=${BENCH_WORK:-/tmp/fz7-bench}
mkdir -p "$work"
[ -f "$work/corpus-mx5.7z" ] || (cd "$corpus" && 7zz a -bso0 -bsp0 -mx5 -mmt1 -mf=off "$work/corpus-mx5.7z" . )
[ -f "$work/corpus.tar" ] || tar -C "$corpus" -cf "$work/corpus.tar" .
[ -f "$work/corpus.tar.xz" ] || xz -6 -T1 -k -c "$work/corpus.tar" > "$work/corpus.tar.xz"

timeit() {
  local i
  for ((i = 0; i < runs; i++)); do
    local s e
    s=$(date +%s.%N); "$@" >/dev/null 2>&1 || { echo "FAILED: $*" >&2; return 1; }; e=$(date +%s.%N)
    awk -v a="$s" -v b="$e" 'BEGIN{printf "%.4f\n", b-a}'
  done | median
}
printf '%-44s %10s\n' "job" "median s"
a=$(timeit "$fz7" t "$work/corpus-mx5.7z"); printf '%-44s %10.3f\n' "fz7 t corpus-mx5.7z" "$a"
b=$(timeit 7zz t -mmt1 "$work/corpus-mx5.7z"); printf '%-44s %10.3f\n' "7zz t -mmt1 corpus-mx5.7z" "$b"
c=$(timeit "$fz7" t "$work/corpus.tar.xz"); printf '%-44s %10.3f\n' "fz7 t corpus.tar.xz" "$c"
d=$(timeit xz -t -T1 "$work/corpus.tar.xz"); printf '%-44s %10.3f\n' "xz -t corpus.tar.xz" "$d"
awk -v x="$b" -v y="$a" 'BEGIN{printf "ratio 7zz/fz7 (7z, higher is better): %.2f\n", x/y}'
awk -v x="$d" -v y="$c" 'BEGIN{printf "ratio xz/fz7 (xz, higher is better):  %.2f\n", x/y}'
