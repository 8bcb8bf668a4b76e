#!/bin/bash
# add_bcj2.sh - 7z folders behind BCJ2 (four pack streams): an x86 ELF at
# -mx9 gets BCJ2 by default as in 7zz, -mf=BCJ2/BCJ/off choose the filter,
# and 7zz tests and restores byte for byte what fz7 writes: one file, two
# executables in one folder, tiny files, encrypted (-p, -mhe), -mmt2.
set -u
. "$(dirname "$0")/lib_add.sh"
need_tools 7zz cmp head
S="${FZ7_SCRATCH:-$(mktemp -d)}"
rm -rf "$S"; mkdir -p "$S"
cd "$S" || exit 1

# An x86-64 ELF: cmake.elf of the bench corpus, else one from /usr/bin.
elf="${FZ7_SHARED:-$(dirname "$0")/../../../shared}/bench/corpus/cmake.elf"
if [ ! -f "$elf" ]; then
    elf=""
    for f in /usr/bin/*; do
        [ -f "$f" ] && [ "$(head -c 4 "$f" | od -An -tx1 | tr -d ' ')" = 7f454c46 ] || continue
        [ "$(head -c 20 "$f" | tail -c 2 | od -An -tx1 | tr -d ' ')" = 3e00 ] || continue
        [ "$(stat -c %s "$f")" -gt 1000000 ] && { elf="$f"; break; }
    done
    [ -n "$elf" ] || { echo "SKIP: no x86-64 ELF over 1 MB found"; exit 77; }
fi
mkdir in
cp "$elf" in/prog
chmod 755 in/prog
head -c 1000000 in/prog > in/part      # not an ELF by its headers any more
printf '\xe8' > in/e8
printf '\x0f\x80\xe8\x01\x02' > in/jcc
printf '\xe8\x00\x00\x00\x00' > in/call0

method() { 7zz l -slt "$1" | grep '^Method = ' | sort -u | tr '\n' ';'; }
restores() {   # archive, then files under in/ it must restore
    local a=$1 pw=${2:-}
    shift 2
    7zz t ${pw:+-p$pw} "$a" > log 2>&1 || { cat log; fail "7zz t $a"; }
    rm -rf out; mkdir out
    7zz x ${pw:+-p$pw} -oout "$a" > log 2>&1 || { cat log; fail "7zz x $a"; }
    for f in "$@"; do cmp "out/$f" "in/$f" || fail "$a: $f differs after 7zz x"; done
    rm -rf out; mkdir out
    "$FZ7" x -bd ${pw:+-p$pw} -oout "$a" > log 2>&1 || { cat log; fail "fz7 x $a"; }
    for f in "$@"; do cmp "out/$f" "in/$f" || fail "$a: $f differs after fz7 x"; done
}

# Default filters: BCJ2 from -mx5 (7zz 26 switches at -mx8), BCJ below.
(cd in && "$FZ7" a -bd -mx9 ../mx9.7z prog) > log 2>&1 || { cat log; fail "fz7 a -mx9"; }
method mx9.7z | grep -q 'Method = BCJ2 LZMA2:[0-9a-z]* LZMA:[0-9a-z]*:lc0:lp2 LZMA:[0-9a-z]*:lc0:lp2;' ||
    fail "-mx9: the ELF is not behind BCJ2 + LZMA2 + 2 x LZMA lc0 lp2: $(method mx9.7z)"
restores mx9.7z "" prog
(cd in && "$FZ7" a -bd -mx9 -mf=BCJ ../bcj9.7z prog) > /dev/null 2>&1 || fail "fz7 a -mf=BCJ"
method bcj9.7z | grep -q 'Method = BCJ LZMA2' || fail "-mf=BCJ: $(method bcj9.7z)"
[ "$(stat -c %s mx9.7z)" -lt "$(stat -c %s bcj9.7z)" ] || fail "BCJ2 is not smaller than BCJ"
(cd in && "$FZ7" a -bd -mx5 -mf=off ../off.7z part) > /dev/null 2>&1 || fail "fz7 a -mf=off"
method off.7z | grep -q 'BCJ' && fail "-mf=off still has a filter: $(method off.7z)"
echo "ok default filters"

# -mf=BCJ2 on every file: one solid folder with the tiny ones and the
# 1 MB piece, then one folder per file.
(cd in && "$FZ7" a -bd -mx5 -mf=BCJ2 ../forced.7z part e8 jcc call0) > log 2>&1 || { cat log; fail "fz7 a -mf=BCJ2"; }
method forced.7z | grep -q 'Method = BCJ2 LZMA2' || fail "-mf=BCJ2: $(method forced.7z)"
restores forced.7z "" part e8 jcc call0
(cd in && "$FZ7" a -bd -mx1 -mf=BCJ2 -ms=off ../each.7z e8 jcc call0 part) > log 2>&1 || { cat log; fail "fz7 a -ms=off"; }
[ "$(7zz l -slt each.7z | grep -c '^Method = BCJ2')" = 4 ] || fail "-ms=off: four BCJ2 folders expected"
restores each.7z "" e8 jcc call0 part
echo "ok forced BCJ2"

# Two executables and a piece in one folder (a file's branches are
# converted only into the file itself), multi-threaded LZMA2 for main.
cp in/prog in/prog2
(cd in && "$FZ7" a -bd -mx5 -mf=BCJ2 -mmt2 ../two.7z prog prog2 part) > log 2>&1 || { cat log; fail "fz7 a two ELFs"; }
[ "$(7zz l -slt two.7z | grep -c "^Method = BCJ2")" = 3 ] && [ "$(7zz l -slt two.7z | grep -c "^Block = 0")" = 3 ] ||
    fail "two ELFs and a piece: not in one BCJ2 folder"
restores two.7z "" prog prog2 part
echo "ok two executables"

# Encrypted: each of the four pack streams behind its own 7zAES, as 7zz.
(cd in && "$FZ7" a -bd -mx5 -mf=BCJ2 -psecret ../enc.7z part jcc) > log 2>&1 || { cat log; fail "fz7 a -p"; }
7zz l -slt -psecret enc.7z | grep -q '^Method = BCJ2 LZMA2:[0-9a-z]* LZMA:[0-9a-z]*:lc0:lp2 LZMA:[0-9a-z]*:lc0:lp2 7zAES:19 7zAES:19 7zAES:19 7zAES:19' ||
    fail "-p: not four 7zAES coders: $(7zz l -slt -psecret enc.7z | grep Method)"
7zz t -pwrong enc.7z > log 2>&1 && fail "7zz t accepted a wrong password"
restores enc.7z secret part jcc
(cd in && "$FZ7" a -bd -mx5 -mf=BCJ2 -psecret -mhe=on ../hid.7z part e8) > log 2>&1 || { cat log; fail "fz7 a -mhe"; }
restores hid.7z secret part e8
echo "ok encrypted"

# xz cannot hold BCJ2.
"$FZ7" a -bd -txz -mf=BCJ2 x.xz in/part > log 2>&1 && fail "-txz -mf=BCJ2 was accepted"
echo "PASS"
