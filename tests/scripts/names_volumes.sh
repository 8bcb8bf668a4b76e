#!/usr/bin/env bash
# names_volumes.sh - names and volumes that come back as they went in,
# checked against 7zz 26.02:
#  - u, d and a on a volume set (x.7z.001) are refused as 7zz refuses them
#    (E_NOTIMPL, exit 2), and no volume changes;
#  - names that are not UTF-8 are stored as 7zz stores them (U+EF00 plus
#    the byte, each byte of a U+EF80..U+EFFF character too) and read back to
#    the same bytes, so $'\xff.txt', $'\xfe.txt' and U+FFFD.txt stay three;
#  - unpaired surrogates in a stored name come back as their three-byte
#    forms, as with 7zz, not as one U+FFFD;
#  - hard links with -snh are stored as 7zz 26.02 stores them in 7z: each
#    name with its own copy of the data (7zz keeps links only in tar and
#    wim), and come back as separate files from both;
#  - the temporary archive a killed run leaves (.fz7tmpXXXXXX) is removed
#    by the next run for that archive; live ones (flock()ed) and other
#    names stay.
set -u
. "$(dirname "$0")/lib.sh"
HERE=${FZ7_TESTS_DIR:-$(cd "$(dirname "$0")/.." && pwd)}/scripts
t_init 7zz sha256sum
umask 022

# ---- volume sets are not updated ----
head -c 300000 /dev/urandom > big && printf 'new\n' > new.txt
7zz a -bso0 -v100k b.7z big || { echo "FAIL: 7zz a -v"; exit 1; }
sha256sum b.7z.001 b.7z.002 b.7z.003 > sums
printf '\n\nSystem ERROR:\nE_NOTIMPL : Not implemented\n' > want.err
for c in "u b.7z.001 new.txt" "d b.7z.001 big" "a b.7z.001 new.txt"; do
  # shellcheck disable=SC2086  # the command and its arguments
  7zz $c >/dev/null 2>7.err; r7=$?
  # shellcheck disable=SC2086
  "$FZ7" $c >/dev/null 2>f.err; rc=$?
  [ $rc = 2 ] && [ $r7 = 2 ] && cmp -s f.err want.err && cmp -s 7.err want.err && ok ||
    bad "$c: exit $rc (7zz $r7), stderr '$(cat f.err)'"
  sha256sum -c --quiet sums && [ "$(ls b.7z.*)" = "$(printf 'b.7z.001\nb.7z.002\nb.7z.003')" ] && ok ||
    bad "$c changed the volume set"
done
# A lone first volume is a volume set too (7zz refuses it as well).
7zz a -bso0 one.7z new.txt && mv one.7z one.7z.001 && sha256sum one.7z.001 > one.sum
"$FZ7" u one.7z.001 big >/dev/null 2>&1; rc=$?
[ $rc = 2 ] && sha256sum -c --quiet one.sum && ok || bad "u one.7z.001: exit $rc (want 2) or it changed"

# ---- names that are bytes ----
for t in python3 xxd; do
  command -v "$t" >/dev/null || { echo "SKIP: $t is not installed"; exit 77; }
done
rm -rf nm && mkdir -p nm/src && cd nm || exit 1
n=0
for name in $'\xff.txt' $'\xfe.txt' $'\xef\xbf\xbd.txt' $'a\xc3(.txt' $'\xee\xbf\xbf.txt' $'\xee\xbd\x81x' \
            $'\xed\xa0\x80y' $'\xf4\x90\x80\x80z' $'\xc0\xafw' $'\xf0\x9f\x98\x80v'; do
  n=$((n + 1)); printf 'content %d\n' $n > "src/$name"
done
listing() { (cd "$1" && for f in *; do printf '%s ' "$f" | xxd -p | tr -d '\n'; sha256sum < "$f"; done | sort); }
listing src > want.txt
[ "$(wc -l < want.txt)" = 10 ] && ok || bad "the file system did not take the 10 names"
(cd src && "$FZ7" a -bso0 -mhc=off ../f.7z ./* >/dev/null) && (cd src && 7zz a -bso0 -mhc=off ../7.7z ./* >/dev/null) ||
  bad "a with byte names failed"
# The names in the header: fz7 writes 7zz's units (the file order may differ).
names16() { 7zz l -slt "$1" | grep -a '^Path = ' | sed 1d | LC_ALL=C sort; }
[ "$(names16 f.7z)" = "$(names16 7.7z)" ] && ok || bad "fz7 and 7zz store the byte names differently"
xxd -p f.7z | tr -d '\n' | grep -q 'ffef2e00740078007400' && ok || bad "\\xff.txt is not stored as U+EFFF .txt"
for pair in "fz7:f.7z" "fz7:7.7z" "7zz:f.7z"; do
  tool=${pair%%:*} arc=${pair#*:}
  rm -rf o && mkdir o
  if [ "$tool" = fz7 ]; then (cd o && "$FZ7" x -bso0 "../$arc" >/dev/null 2>&1); rc=$?
  else (cd o && 7zz x -bso0 "../$arc" >/dev/null 2>&1); rc=$?; fi
  [ $rc = 0 ] && diff want.txt <(listing o) >/dev/null && ok || bad "$tool x $arc: exit $rc or the names/bytes differ"
done
# Unpaired surrogates (a name no Linux tool makes): two names stay two.
python3 "$HERE/mk7z.py" sur.7z f:$'\xed\xa0\x80q':one f:$'\xed\xa0\x81q':two
rm -rf o o7 && mkdir o o7 && (cd o && "$FZ7" x -bso0 ../sur.7z >/dev/null 2>&1); rc=$?
(cd o7 && 7zz x -bso0 ../sur.7z >/dev/null 2>&1)
[ $rc = 0 ] && [ "$(ls o | wc -l)" = 2 ] && diff <(listing o) <(listing o7) >/dev/null && ok ||
  bad "x sur.7z: exit $rc, $(ls o | wc -l) files, or not as 7zz names them"
# Names longer in UTF-8 than in UTF-16 (CJK: fz7 writes them in a block of
# their own) and shorter (ASCII: over the start of the header's buffer),
# the two mixed, and an empty name (the archive's own name, as 7zz shows).
cjk=$(printf '名%.0s' $(seq 60))
python3 "$HERE/mk7z.py" cjk.7z f:"$cjk":one
python3 "$HERE/mk7z.py" mix.7z f:abc:one f:"$cjk/x":two f:"$(printf 'd%.0s' $(seq 200))":three f:é.txt:four
python3 "$HERE/mk7z.py" asc.7z f:abc:one f::two f:"sub/$cjk":three
for arc in cjk.7z mix.7z asc.7z; do
  paths() { grep -a '^Path = ' | sed 1d; }
  want=$(7zz l -slt "$arc" | paths) got=$("$FZ7" l -slt "$arc" | paths)
  [ -n "$want" ] && [ "$got" = "$want" ] && ok || bad "l -slt $arc: names not as 7zz lists them: $got"
done
cd ..

# ---- hard links (-snh) ----
rm -rf hl && mkdir -p hl/s && cd hl || exit 1
printf 'same data\n' > s/a && ln s/a s/b
7zz a -bso0 -snh -mhc=off h7.7z ./s/a ./s/b && "$FZ7" a -snh -mhc=off hf.7z ./s/a ./s/b >/dev/null 2>&1; rc=$?
slt() { 7zz l -slt "$1" | sed -n '/^----------/,$p' | grep -v '^Modified'; }
[ $rc = 0 ] && [ "$(slt hf.7z)" = "$(slt h7.7z)" ] && [ "$(slt hf.7z | grep -c '^CRC = 00C3228B')" = 2 ] && ok ||
  bad "a -snh: exit $rc or the entries differ from 7zz's"
for a in h7 hf; do
  rm -rf o && mkdir o && (cd o && "$FZ7" x ../$a.7z >/dev/null 2>&1); rc=$?
  [ $rc = 0 ] && [ "$(cd o && stat -c '%n %h %s' a b | tr '\n' ' ')" = "a 1 10 b 1 10 " ] && cmp -s o/a s/a && cmp -s o/b s/a &&
    ok || bad "x $a.7z: exit $rc or not two files of the data"
done
cd ..

# ---- stale temporary files ----
if command -v flock >/dev/null; then
  rm -rf tmpt && mkdir tmpt && cd tmpt || exit 1
  head -c 20000000 /dev/urandom > big.bin && printf 'x\n' > small.txt
  # A run killed with SIGKILL once its temporary file exists: it reads
  # stdin from a FIFO whose writer never writes, so it is still running
  # however fast it codes (20 MB of random bytes at -mx9 could finish
  # before the kill on a loaded machine: the test failed once that way).
  mkfifo in.fifo
  "$FZ7" a -si k.7z < in.fifo >/dev/null 2>&1 &
  pid=$!
  exec 3> in.fifo
  for _ in $(seq 100); do ls k.7z.fz7tmp* >/dev/null 2>&1 && break; sleep 0.1; done
  kill -9 $pid 2>/dev/null; wait $pid 2>/dev/null
  exec 3>&-
  rm -f in.fifo
  left=$(ls k.7z.fz7tmp* 2>/dev/null | wc -l)
  [ "$left" = 1 ] && ok || bad "the killed run left $left temporary files, want 1"
  # Beside it: one held by a live process, one of another archive, names
  # outside the pattern, a symlink of the pattern.
  : > k.7z.fz7tmpLIVE01 && : > j.7z.fz7tmpABC123 && : > k.7z.fz7tmpABC12 && : > k.7z.fz7tmpABC1234
  ln -s small.txt k.7z.fz7tmpSYMLNK
  flock k.7z.fz7tmpLIVE01 sleep 30 &
  holder=$!
  for _ in $(seq 50); do flock -n k.7z.fz7tmpLIVE01 true 2>/dev/null || break; sleep 0.1; done
  "$FZ7" a k.7z small.txt >/dev/null 2>&1; rc=$?
  kill $holder 2>/dev/null; wait $holder 2>/dev/null
  [ $rc = 0 ] && ok || bad "a k.7z after the crash: exit $rc"
  [ "$(ls -A | LC_ALL=C sort | tr '\n' ' ')" = "big.bin j.7z.fz7tmpABC123 k.7z k.7z.fz7tmpABC12 k.7z.fz7tmpABC1234 k.7z.fz7tmpLIVE01 k.7z.fz7tmpSYMLNK small.txt " ] &&
    ok || bad "after the next run: $(ls -A | tr '\n' ' ')"
  "$FZ7" t k.7z >/dev/null 2>&1 && ok || bad "t k.7z"
  cd ..
else
  echo "note: flock(1) not installed; stale temporary file case skipped"
fi

# A set of more volumes than the process may hold open (ulimit -n 40): only
# the first few stay open, the others are opened for each read, from their
# folder even after fz7 changed its own. 7zz reads such sets too.
mkdir many && cd many
head -c 40000 /dev/urandom >r.bin && printf 'text %s\n' $(seq 1 2000) >t.txt
7zz a -bd -mx0 -v1k m.7z r.bin t.txt >/dev/null
(ulimit -n 40; "$FZ7" x -bd -oout m.7z.001 >/dev/null 2>&1); rc=$?
[ $rc = 0 ] && cmp -s out/r.bin r.bin && cmp -s out/t.txt t.txt && ok ||
  bad "x of $(ls m.7z.* | wc -l) volumes under ulimit -n 40: exit $rc"
split -b 200 -d -a 3 --numeric-suffixes=1 t.txt cut.txt.
(ulimit -n 40; "$FZ7" x -bd -oout2 cut.txt.001 >/dev/null 2>&1); rc=$?
[ $rc = 0 ] && cmp -s out2/cut.txt t.txt && ok || bad "x of a split(1) file of $(ls cut.txt.* | wc -l) parts: exit $rc"
cd ..

t_summary names_volumes.sh
