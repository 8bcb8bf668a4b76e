#!/usr/bin/env bash
# Decompression of ../shared/bench/corpus by fz7 beside 7zz and xz: `t` and
# `x -o` of .7z archives (7zz -mx5 solid, 7zz -mx5 -mf=off -mmt1: one solid
# LZMA2 folder, issue 8's case, 7zz -mx5 -ms=off
# non-solid, fz7 -mx5) and `t` / -dc of .xz files (xz -6 one block, xz -6
# -T2 --block-size=4MiB). The commands of one group (one archive, t or x)
# run interleaved, one run of each per round, so a busy machine hits them
# alike; prints the median wall and CPU (user + sys: the fair number on a
# loaded machine) of N rounds and the ratios other/fz7 (higher: fz7 faster):
# of the medians, and in brackets the median of the per-round ratios.
# Usage: bench/compare_dec.sh [runs]   (FZ7=path of the binary; default 5 runs;
# FZ7_BEFORE=path of an older fz7 adds its t / x rows to each group)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/bench/lib.sh"
fz7=$(realpath "${FZ7:-$top/build/fz7}")   # the corpus rows run in another folder
runs=${1:-5}
before=${FZ7_BEFORE:-}
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
make_7zz 7zz-mx5-mfoff-mt1.7z -mx5 -mf=off -mmt1
make_7zz 7zz-mx5-nonsolid.7z -mx5 -ms=off
[ -f "$work/fz7-mx5.7z" ] || (cd "$corpus" && "$fz7" a -mx5 "$work/fz7-mx5.7z" . >/dev/null) ||
  rm -f "$work/fz7-mx5.7z"
[ -f "$work/corpus.tar" ] || tar -C "$corpus" -cf "$work/corpus.tar" .
[ -f "$work/xz6.xz" ] || xz -6 -T1 -c "$work/corpus.tar" > "$work/xz6.xz"
[ -f "$work/xz6-b4m.xz" ] || xz -6 -T2 --block-size=4MiB -c "$work/corpus.tar" > "$work/xz6-b4m.xz"

# CPU time (all threads, user + sys) of one command: perf's task-clock in
# ms when perf works here (1 ms resolution; /usr/bin/time's user and sys
# have 10 ms steps, about 3 % of a 0.35 s run), else /usr/bin/time.
have_perf=0
perf stat -x, -e task-clock -o "$work/perf.txt" true >/dev/null 2>&1 && have_perf=1

# group LABEL1 'CMD1' LABEL2 'CMD2' ...: runs the commands in turn, `runs`
# rounds; the first command is the fz7 reference of the ratios. The output
# folder of `x` is emptied before each run (not timed). Prints the median
# wall and CPU seconds and, per other command, the ratio of the medians
# and the median of the per-round ratios (in brackets).
group() {
  local labels=() cmds=() i r tf=$work/time.txt pf=$work/perf.txt
  while [ $# -gt 0 ]; do labels+=("$1"); cmds+=("$2"); shift 2; done
  local n=${#cmds[@]}
  declare -A walls cpus
  for ((r = 0; r < runs; r++)); do
    for ((i = 0; i < n; i++)); do
      rm -rf "$work/out"
      local ok=0
      if [ $have_perf = 1 ]; then
        /usr/bin/time -f "%e %U %S" -o "$tf" perf stat -x, -e task-clock -o "$pf" \
          sh -c "${cmds[i]}" >/dev/null 2>&1 && ok=1
      else
        /usr/bin/time -f "%e %U %S" -o "$tf" sh -c "${cmds[i]}" >/dev/null 2>&1 && ok=1
      fi
      if [ $ok = 1 ]; then
        walls[$i]+="$(awk '{print $1}' "$tf") "
        if [ $have_perf = 1 ]; then
          cpus[$i]+="$(awk -F, '/task-clock/ {printf "%.4f", $1 / 1000}' "$pf") "
        else
          cpus[$i]+="$(awk '{printf "%.3f", $2 + $3}' "$tf") "
        fi
      else
        walls[$i]+="nan "; cpus[$i]+="nan "
      fi
    done
  done
  local w0 c0
  for ((i = 0; i < n; i++)); do
    local w c rw rc
    w=$(printf '%s\n' ${walls[$i]} | median); c=$(printf '%s\n' ${cpus[$i]} | median)
    if [ "$i" = 0 ]; then
      w0=$w; c0=$c
      printf '%-40s %8.3f %8.3f\n' "${labels[i]}" "$w" "$c"
    else
      rw=$(ratio_median "${walls[$i]}" "${walls[0]}")
      rc=$(ratio_median "${cpus[$i]}" "${cpus[0]}")
      awk -v l="${labels[i]}" -v w="$w" -v c="$c" -v w0="$w0" -v c0="$c0" -v rw="$rw" -v rc="$rc" \
        'BEGIN{printf "%-40s %8.3f %8.3f   x%.2f [x%.2f] wall  x%.2f [x%.2f] cpu\n", l, w, c, w/w0, rw, c/c0, rc}'
    fi
  done
}

echo "load: $(cut -d' ' -f1-3 /proc/loadavg), cores: $(nproc), rounds: $runs (medians)"
printf '%-40s %8s %8s   %s\n' "job" "wall s" "cpu s" "other/fz7 (higher: fz7 faster)"
for a in 7zz-mx5-mfoff-mt1.7z 7zz-mx5.7z 7zz-mx5-nonsolid.7z fz7-mx5.7z; do
  [ -f "$work/$a" ] || continue
  f=$work/$a
  group "fz7 t $a" "'$fz7' t '$f'" \
        ${before:+"before t $a" "'$before' t '$f'"} \
        "fz7 t -mmt1 $a" "'$fz7' t -mmt1 '$f'" \
        "7zz t $a" "7zz t '$f'" \
        "7zz t -mmt1 $a" "7zz t -mmt1 '$f'"
  group "fz7 x $a" "'$fz7' x -y -o'$work/out' '$f'" \
        ${before:+"before x $a" "'$before' x -y -o'$work/out' '$f'"} \
        "7zz x $a" "7zz x -y -o'$work/out' '$f'" \
        "7zz x -mmt1 $a" "7zz x -mmt1 -y -o'$work/out' '$f'"
done
for a in xz6.xz xz6-b4m.xz; do
  f=$work/$a
  group "fz7 t $a" "'$fz7' t '$f'" \
        ${before:+"before t $a" "'$before' t '$f'"} \
        "fz7 t -mmt1 $a" "'$fz7' t -mmt1 '$f'" \
        "xz -t $a" "xz -t -T1 '$f'" \
        "xz -T2 -t $a" "xz -t -T2 '$f'"
  group "fz7 x -so $a" "'$fz7' x -so '$f'" \
        ${before:+"before x -so $a" "'$before' x -so '$f'"} \
        "xz -dc $a" "xz -dc -T1 '$f'" \
        "xz -T2 -dc $a" "xz -dc -T2 '$f'"
done
rm -rf "$work/out"
