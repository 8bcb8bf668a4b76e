#!/usr/bin/env bash
# same_bytes.sh - proves that a change which should not change output does not:
# writes the bench corpus at every level, filter and thread count, 7z and xz,
# and prints one "case sha256" line per archive. Run it before and after and
# diff the two lists (or give the earlier list as REF and it diffs for you).
#
# Usage: bench/same_bytes.sh [-q] FZ7_BINARY [REF_LIST]
#   -q        quick: a 13 MB slice of the corpus and fewer -mmt cases
#   REF_LIST  an earlier run's output: exit 0 if every line matches, 1 if not
#
# Encrypted archives get a fresh salt and IV each run, so their line holds the
# packed sizes and CRCs from `l -slt` instead of the archive's hash.
set -euo pipefail
quick=0
if [ "${1:-}" = "-q" ]; then quick=1; shift; fi
fz7=$(realpath "${1:?usage: same_bytes.sh [-q] FZ7_BINARY [REF_LIST]}")
ref=${2:-}
top=$(cd "$(dirname "$0")/.." && pwd)
corpus=${FZ7_BENCH_CORPUS:-$top/../shared/bench/corpus}
work=$(mktemp -d "${TMPDIR:-/tmp}/fz7-same.XXXXXX")
trap 'rm -rf "$work"' EXIT

# The input tree: the whole corpus, or the quick slice (an executable for
# BCJ/BCJ2, text, a tar and the incompressible file).
mkdir -p "$work/in"
if [ $quick = 1 ]; then
  files=(cmake.elf dpkg-status.txt zoneinfo.tar random.deb)
  head -c 2000000 "$corpus/brown.txt" > "$work/in/brown.txt"
  touch -r "$corpus/brown.txt" "$work/in/brown.txt"
else
  files=(brown.txt cmake.elf dpkg-status.txt headers.tar pystdlib.tar random.deb zoneinfo.tar)
fi
for f in "${files[@]}"; do cp -p "$corpus/$f" "$work/in/"; done
# One fixed time for every entry: a fresh copy of the corpus (new mtimes)
# must not change the 7z archives' bytes.
touch -d @1700000000 "$work/in" "$work/in"/*
(cd "$work/in" && tar cf "$work/in.tar" --sort=name --mtime=@0 --owner=0 --group=0 .)

out=$work/list
: > "$out"
run7z() {  # run7z NAME SWITCHES...: a 7z of the tree
  local name=$1; shift
  (cd "$work/in" && "$fz7" a -bso0 -bsp0 "$@" "$work/$name.7z" . >/dev/null)
  echo "$name $(sha256sum < "$work/$name.7z" | cut -c1-64)" >> "$out"
  rm -f "$work/$name.7z"
}
runxz() {  # runxz NAME SWITCHES...: an xz of the tar
  local name=$1; shift
  "$fz7" a -bso0 -bsp0 -txz "$@" "$work/$name.xz" "$work/in.tar" >/dev/null
  echo "$name $(sha256sum < "$work/$name.xz" | cut -c1-64)" >> "$out"
  rm -f "$work/$name.xz"
}
runcrypt() {  # runcrypt NAME SWITCHES...: sizes and CRCs of an encrypted 7z
  local name=$1; shift
  (cd "$work/in" && "$fz7" a -bso0 -bsp0 -psecret "$@" "$work/$name.7z" . >/dev/null)
  local sum
  # the random salt and IV make the compressed header a byte or two longer or
  # shorter: the entries' lines (without the archive's own path) are what must match
  sum=$("$fz7" l -slt -psecret "$work/$name.7z" | sed '1,/^----------/d' \
        | grep -E '^(Path|Size|Packed Size|CRC|Method|Block) =' | sha256sum | cut -c1-64)
  echo "$name $sum" >> "$out"
  rm -f "$work/$name.7z"
}

for l in 0 1 2 3 4 5 6 7 8 9; do run7z "7z-mx$l-mmt1" -mx$l -mmt1; done
if [ $quick = 1 ]; then mts="2 4"; lv="1 5 9"; else mts="2 3 4"; lv="1 3 5 9"; fi
for t in $mts; do for l in $lv; do run7z "7z-mx$l-mmt$t" -mx$l -mmt$t; done; done
run7z 7z-mx5-bcj -mx5 -mmt1 -mf=BCJ
run7z 7z-mx5-bcj2-mmt2 -mx5 -mmt2 -mf=BCJ2
run7z 7z-mx1-off -mx1 -mmt1 -mf=off
run7z 7z-mx1-delta4 -mx1 -mmt1 -mf=Delta:4
run7z 7z-mx5-lzma1 -mx5 -mmt1 -m0=LZMA
run7z 7z-mx3-nonsolid -mx3 -mmt2 -ms=off
run7z 7z-mx5-md1m-fb64 -mx5 -mmt2 -md=1m -mfb=64
run7z 7z-mx1-mmt-default -mx1
run7z 7z-mx1-arm64 -mx1 -mmt1 -mf=ARM64
run7z 7z-mx1-bcj-delta2 -mx1 -mmt2 -m0=BCJ -m1=Delta:2 -m2=LZMA2
for t in 1 2 4; do for l in 1 5 9; do runxz "xz-mx$l-mmt$t" -mx$l -mmt$t; done; done
runxz xz-mx0-mmt1 -mx0 -mmt1
runxz xz-mx5-x86-mmt1 -mx5 -mmt1 -mf=BCJ
runxz xz-mx1-delta4-mmt1 -mx1 -mmt1 -mf=Delta:4
runxz xz-mx1-x86-mmt2-c1m -mx1 -mmt2 -mc=1m -mf=BCJ
runxz xz-mx1-arm64-mmt2-c1m -mx1 -mmt2 -mc=1m -mf=ARM64
# stdin (size unknown) through the multi-threaded xz and 7z encoders
"$fz7" a -bso0 -bsp0 -txz -mx1 -mmt2 -si "$work/si.xz" < "$work/in.tar" >/dev/null
echo "xz-si-mx1-mmt2 $(sha256sum < "$work/si.xz" | cut -c1-64)" >> "$out"
"$fz7" a -bso0 -bsp0 -mx5 -mmt2 -siin.tar "$work/si.7z" < "$work/in.tar" >/dev/null
# the 7z holds the time of the stdin entry: compare its packed stream only
"$fz7" l -slt "$work/si.7z" | sed '1,/^----------/d' | grep -E '^(Size|Packed Size|CRC|Method) =' > "$work/si.slt"
echo "7z-si-mx5-mmt2 $(sha256sum < "$work/si.slt" | cut -c1-64)" >> "$out"
runcrypt 7z-mx1-p-mhe -mx1 -mmt2 -mhe=on
runcrypt 7z-mx5-p -mx5 -mmt1

cat "$out"
if [ -n "$ref" ]; then
  if diff <(sort "$ref") <(sort "$out") > "$work/diff"; then
    echo "same_bytes: all $(wc -l < "$out") archives identical to $ref"
  else
    echo "same_bytes: DIFFERENT from $ref:"; cat "$work/diff"; exit 1
  fi
fi
