#!/usr/bin/env bash
# Decompression of ../shared/bench/corpus by fz7 beside 7zz and xz, side by
# side: `t` and `x -o` of .7z archives (7zz -mx5 solid, 7zz -mx5 -mf=off,
# 7zz -mx5 -ms=off non-solid, fz7 -mx5) and -dc of .xz files (xz -6 one
# block, xz -6 -T2 --block-size=4MiB). Median of N runs of wall time and of
# CPU time (user + sys: the fair number on a loaded machine), and ratios
# other/fz7 (higher is better for fz7).
# Usage: bench/compare_dec.sh [runs]   (FZ7=path of the binary; default 5 runs)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
fz7=${FZ7:-$top/build/fz7}
runs=${1:-5}
corpus=$top/../shared/bench/corpus
work=${BENCH_WORK:-/tmp/fz7-bench-dec}
mkdir -p "$work"
[ -x "$fz7" ] || { echo "no fz7 binary at $fz7 (set FZ7=)" >&2; exit 1; }
[ -d "$corpus" ] || { echo "no corpus at $corpus" >&2; exit 1; }

make_7zz() {   # name, 7zz switches...
  local name=$1; shift
  [ -f "$work/$name" ] || (cd "$corpus" && 7zz a -bso0 -bsp0 "$@" "$work/$name" . )
}
make_7zz 7zz-mx5.7z -mx5
make_7zz 7zz-mx5-mfoff.7z -mx5 -mf=off
make_7zz 7zz-mx5-nonsolid.7z -mx5 -ms=off
[ -f "$work/fz7-mx5.7z" ] || (cd "$corpus" && "$fz7" a -mx5 "$work/fz7-mx5.7z" . >/dev/null) ||
  rm -f "$work/fz7-mx5.7z"
[ -f "$work/corpus.tar" ] || tar -C "$corpus" -cf "$work/corpus.tar" .
[ -f "$work/xz6.xz" ] || xz -6 -T1 -c "$work/corpus.tar" > "$work/xz6.xz"
[ -f "$work/xz6-b4m.xz" ] || xz -6 -T2 --block-size=4MiB -c "$work/corpus.tar" > "$work/xz6-b4m.xz"

median() { sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

# Runs a command `runs` times; prints "wall cpu" medians in seconds. The
# output folder of `x` is emptied before each run (not timed).
timeit() {
  local i walls=() cpus=() tf=$work/time.txt
  for ((i = 0; i < runs; i++)); do
    rm -rf "$work/out"
    /usr/bin/time -f "%e %U %S" -o "$tf" "$@" >/dev/null 2>&1 || { echo "FAILED: $*" >&2; return 1; }
    walls+=("$(awk '{print $1}' "$tf")")
    cpus+=("$(awk '{printf "%.3f", $2 + $3}' "$tf")")
  done
  printf '%s %s\n' "$(printf '%s\n' "${walls[@]}" | median)" "$(printf '%s\n' "${cpus[@]}" | median)"
}

row() {   # label, reference (label of the fz7 row), command...
  local label=$1 ref=$2; shift 2
  local r; r=$(timeit "$@") || { printf '%-40s %8s\n' "$label" "failed"; return; }
  local w=${r% *} c=${r#* }
  eval "W_${label//[^A-Za-z0-9]/_}=$w; C_${label//[^A-Za-z0-9]/_}=$c"
  if [ "$ref" = - ]; then
    printf '%-40s %8.3f %8.3f\n' "$label" "$w" "$c"
  else
    local rw rc k=${ref//[^A-Za-z0-9]/_}
    eval "rw=\$W_$k; rc=\$C_$k"
    awk -v l="$label" -v w="$w" -v c="$c" -v rw="$rw" -v rc="$rc" \
      'BEGIN{printf "%-40s %8.3f %8.3f   x%.2f wall  x%.2f cpu\n", l, w, c, w/rw, c/rc}'
  fi
}

echo "load: $(cut -d' ' -f1-3 /proc/loadavg), cores: $(nproc), runs: $runs (median)"
printf '%-40s %8s %8s   %s\n' "job" "wall s" "cpu s" "other/fz7 (higher: fz7 faster)"
for a in 7zz-mx5.7z 7zz-mx5-mfoff.7z 7zz-mx5-nonsolid.7z fz7-mx5.7z; do
  [ -f "$work/$a" ] || continue
  row "fz7 t $a" - "$fz7" t "$work/$a"
  row "fz7 t -mmt1 $a" "fz7 t $a" "$fz7" t -mmt1 "$work/$a"
  row "7zz t $a" "fz7 t $a" 7zz t "$work/$a"
  row "7zz t -mmt1 $a" "fz7 t $a" 7zz t -mmt1 "$work/$a"
  row "fz7 x $a" - "$fz7" x -y -o"$work/out" "$work/$a"
  row "7zz x $a" "fz7 x $a" 7zz x -y -o"$work/out" "$work/$a"
done
for a in xz6.xz xz6-b4m.xz; do
  row "fz7 t $a" - "$fz7" t "$work/$a"
  row "fz7 t -mmt1 $a" "fz7 t $a" "$fz7" t -mmt1 "$work/$a"
  row "fz7 x -so $a" - "$fz7" x -so "$work/$a"
  row "xz -dc $a" "fz7 x -so $a" xz -dc -T1 "$work/$a"
  row "xz -T2 -dc $a" "fz7 x -so $a" xz -dc -T2 "$work/$a"
done
rm -rf "$work/out"
