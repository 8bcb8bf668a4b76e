#!/usr/bin/env bash
# run_all.sh - every figure the issues ask for, in one run on this machine,
# each beside 7zz/xz run in the same session (ratios, not absolute times).
# Usage: bench/run_all.sh [BUILD_DIR]  > figures.txt   (takes ~10-15 minutes)
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$top/build}" && pwd)
fz7=$build/fz7
corpus=$top/../shared/bench/corpus
work=${BENCH_WORK:-/tmp/fz7-run-all}
mkdir -p "$work"
export FZ7=$fz7

section() { printf '\n==== %s ====\n' "$*"; }
utime() {  # prints "user+sys wall maxrss_kB" of a command, output discarded
  /usr/bin/time -f "%U %S %e %M" -o "$work/t" "$@" >/dev/null 2>&1 || echo "FAILED: $*" >&2
  awk '{printf "%.2f %.2f %d\n", $1 + $2, $3, $4}' "$work/t"
}

section "fz7 --version"
"$fz7" --version | head -9

section "issue 2: fz7 t vs 7zz t (7zz -mx5 -mf=off) and vs xz -t (xz -6 of the tar)"
BENCH_WORK=$work/t "$top/bench/compare_test.sh" 3

section "issue 8: decompression side by side"
BENCH_WORK=$work/dec "$top/bench/compare_dec.sh" 3

section "issues 3 and 8: compression side by side (one thread, then -mmt2 over -mmt1 and the default)"
RUNS=1 MT=2 THREADS=1 "$top/bench/compare_enc.sh" "$build"

section "issue 8: peak memory of a -mx5 (kB), corpus, one thread and every core"
rm -f "$work/m1.7z" "$work/m2.7z" "$work/m3.7z" "$work/m4.7z"
echo "fz7 a -mx5 -mmt1: $(cd "$corpus" && utime "$fz7" a -mx5 -mmt1 "$work/m1.7z" .)  (cpu_s wall_s maxrss_kB)"
echo "7zz a -mx5 -mmt1: $(cd "$corpus" && utime 7zz a -mx5 -mmt1 "$work/m2.7z" .)"
echo "fz7 a -mx5:       $(cd "$corpus" && utime "$fz7" a -mx5 "$work/m3.7z" .)"
echo "7zz a -mx5:       $(cd "$corpus" && utime 7zz a -mx5 "$work/m4.7z" .)"
ls -l "$work/m1.7z" "$work/m2.7z" "$work/m3.7z" "$work/m4.7z" | awk '{print $5, $9}'

section "issue 5: fz7 a -mx5 -mmt1, avx512 vs portable paths (headers.tar + brown.txt), bytes identical?"
for lvl in avx512 avx2 portable; do
  rm -f "$work/p-$lvl.7z"
  echo "FZ7_CPU=$lvl: $(cd "$corpus" && FZ7_CPU=$lvl utime "$fz7" a -mx5 -mmt1 "$work/p-$lvl.7z" headers.tar brown.txt)  sha256 $(sha256sum < "$work/p-$lvl.7z" | cut -c1-16)"
done

section "issues 4 and 5: 1 GB of random data, -mx0 (and -mhe=on -psecret)"
if [ ! -f "$work/rand1g.bin" ]; then head -c 1000000000 /dev/urandom > "$work/rand1g.bin"; fi
[ -f "$work/r0.7z" ] || (cd "$work" && 7zz a -bso0 -bsp0 -mx0 r0.7z rand1g.bin)
[ -f "$work/r0he.7z" ] || (cd "$work" && 7zz a -bso0 -bsp0 -mx0 -mhe=on -psecret r0he.7z rand1g.bin)
for i in 1 2 3; do
  echo "run $i: fz7 t -mx0: $(utime "$fz7" t "$work/r0.7z")   7zz t -mx0: $(utime 7zz t "$work/r0.7z")"
  echo "run $i: fz7 t -psecret -mhe: $(utime "$fz7" t -psecret "$work/r0he.7z")   7zz t -psecret -mhe: $(utime 7zz t -psecret "$work/r0he.7z")"
done

section "issues 4 and 5: kernels (fz7bench_kernels, fz7bench_aes) and 7zz b"
[ -x "$build/fz7bench_kernels" ] && "$build/fz7bench_kernels" --7zz-seconds 30
[ -x "$build/fz7bench_aes" ] && "$build/fz7bench_aes"
7zz b -mm=AES256CBC:3 2>&1 | tail -4
