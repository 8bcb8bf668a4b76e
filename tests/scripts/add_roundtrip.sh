#!/bin/bash
# add_roundtrip.sh - `fz7 a` at every level -mx0..-mx9 on a tree with
# folders, empty files/folders, symlinks (-snl), modes and non-ASCII names:
# 7zz t accepts it, 7zz x and fz7 x give the tree back, bsdtar lists every
# entry. Then .xz: xz -t and xz -dc give the input back for each check.
set -u
. "$(dirname "$0")/lib_add.sh"
need_tools 7zz bsdtar xz
S="${FZ7_SCRATCH:-$(mktemp -d)}"
rm -rf "$S"; mkdir -p "$S"
cd "$S" || exit 1
make_tree "$S"
expected_names=$(cd "$S" && find tree -printf '%p\n' | LC_ALL=C sort)

for level in 0 1 2 3 4 5 6 7 8 9; do
    a="$S/mx$level.7z"
    "$FZ7" a -bd -snl "-mx$level" "$a" tree > "$S/log" 2>&1 || { cat "$S/log"; fail "fz7 a -mx$level exited $?"; }
    grep -q '^Everything is Ok' "$S/log" || { cat "$S/log"; fail "-mx$level: no 'Everything is Ok'"; }
    7zz t "$a" > "$S/log" 2>&1 || { cat "$S/log"; fail "7zz t rejects -mx$level"; }
    rm -rf "$S/x7"; mkdir "$S/x7"
    7zz x -snl -o"$S/x7" "$a" > "$S/log" 2>&1 || { cat "$S/log"; fail "7zz x -mx$level"; }
    same_tree "$S/tree" "$S/x7/tree"
    names=$(bsdtar -tf "$a" | sed 's:/$::' | LC_ALL=C sort)
    [ "$names" = "$expected_names" ] || { diff <(echo "$expected_names") <(echo "$names"); fail "bsdtar -tf lists other names (-mx$level)"; }
    rm -rf "$S/xf"; mkdir "$S/xf"
    "$FZ7" x -snl -o"$S/xf" "$a" > "$S/log" 2>&1 || { cat "$S/log"; fail "fz7 x -mx$level exited $?"; }
    same_tree "$S/tree" "$S/xf/tree"
    echo "ok -mx$level: $(stat -c %s "$a") bytes"
done

# Methods and filters 7-Zip names: LZMA, LZMA2 with parameters, BCJ off.
for m in "-m0=LZMA" "-m0=LZMA2:d=1m:fb=64:mf=bt4:lc=3" "-mf=off" "-mf=Delta:4" "-m0=Delta:2 -m1=LZMA2" "-mx0 -mf=Delta:3" "-mqs -ms=e" "-md=64k -mfb=32 -mmf=hc4 -mmt=2" "-mx0 -ms=on"; do
    a="$S/m.7z"; rm -f "$a"
    # shellcheck disable=SC2086
    "$FZ7" a -bd -snl $m "$a" tree > "$S/log" 2>&1 || { cat "$S/log"; fail "fz7 a $m"; }
    rm -rf "$S/x7"; mkdir "$S/x7"
    7zz x -snl -o"$S/x7" "$a" > "$S/log" 2>&1 || { cat "$S/log"; fail "7zz x after $m"; }
    same_tree "$S/tree" "$S/x7/tree"
    echo "ok $m"
done
7zz l -slt "$S/mx5.7z" | grep -q 'Method = BCJ2 LZMA2' || fail "the ELF file did not get BCJ2 at -mx5"
"$FZ7" a -bd -snl -m0=LZMA "$S/lz.7z" tree >/dev/null && 7zz l -slt "$S/lz.7z" | grep -q '^Method = .*LZMA:' || fail "-m0=LZMA does not give an LZMA folder"

# .xz: one file, every check, BCJ and Delta filters.
in="$S/tree/docs/words.txt"
for c in "" "-mcrc=4" "-mcrc=8" "-mcrc=32" "-mcrc=0" "-mf=BCJ" "-mf=Delta:4" "-mx1" "-mx9"; do
    rm -f "$S/w.xz"
    # shellcheck disable=SC2086
    "$FZ7" a -bd $c "$S/w.xz" "$in" > "$S/log" 2>&1 || { cat "$S/log"; fail "fz7 a .xz $c"; }
    xz -t "$S/w.xz" || fail "xz -t rejects .xz $c"
    xz -dc "$S/w.xz" | cmp - "$in" || fail "xz -dc differs for .xz $c"
    echo "ok .xz $c"
done
xz -lvv --robot "$S/w.xz" > /dev/null || fail "xz -l"
"$FZ7" a -bd -mcrc=32 "$S/s.xz" "$in" >/dev/null && xz -l --robot "$S/s.xz" | grep -q 'SHA-256' || fail "-mcrc=32 did not give SHA-256"
# -txz with a name without extension writes NAME.xz, as 7zz does.
"$FZ7" a -bd -txz "$S/t_noext" "$in" >/dev/null && [ ! -e "$S/t_noext" ] && xz -dc "$S/t_noext.xz" | cmp - "$in" || fail "-txz"
# Multi-threaded LZMA2 (blocks of 3 dictionaries): 7z folder and xz block.
mkdir -p "$S/mt/big"
text_lines 40000 11 > "$S/mt/big/t.txt"
prng_bytes 200000 12 >> "$S/mt/big/t.txt"
text_lines 20000 13 >> "$S/mt/big/t.txt"
(cd "$S/mt" && "$FZ7" a -bd -mx1 -md=256k -mmt=2 ../mt.7z big) > "$S/log" 2>&1 || { cat "$S/log"; fail "fz7 a -mmt=2"; }
7zz t "$S/mt.7z" > "$S/log" 2>&1 || { cat "$S/log"; fail "7zz t -mmt=2 archive"; }
7zz x -so "$S/mt.7z" big/t.txt | cmp - "$S/mt/big/t.txt" || fail "-mmt=2 .7z content"
"$FZ7" a -bd -mx1 -md=256k -mmt=2 "$S/mt.xz" "$S/mt/big/t.txt" > "$S/log" 2>&1 || { cat "$S/log"; fail "fz7 a -mmt=2 .xz"; }
xz -dc "$S/mt.xz" | cmp - "$S/mt/big/t.txt" || fail "-mmt=2 .xz content"
"$FZ7" a -bd -mx1 -md=256k -mmt=1 "$S/mt1.xz" "$S/mt/big/t.txt" > /dev/null 2>&1 || fail "-mmt=1 .xz"
cmp -s "$S/mt.xz" "$S/mt1.xz" && fail "-mmt=2 gave the single-stream bytes: no blocks were made"
blocks=$(xz --robot -l "$S/mt.xz" | awk -F'\t' '$1 == "file" {print $3}')
[ "$blocks" -ge 2 ] || fail "-mmt=2 .xz has $blocks block(s), expected independent blocks"
xz -t "$S/mt.xz" || fail "xz -t rejects the -mmt=2 .xz"
"$FZ7" t "$S/mt.xz" > "$S/log" 2>&1 || { cat "$S/log"; fail "fz7 t -mmt=2 .xz"; }
echo "ok -mmt=2"
# Deflate64's shortest-path parse over the bench corpus as one stream (38
# MB): its binary tree once saw each block only up to the block's end and
# then gave matches whose bytes differ; this input hit one 24 MB in.
corpus="${FZ7_SHARED:-$(dirname "$0")/../../../shared}/bench/corpus"
if [ -f "$corpus/brown.txt" ] && [ -f "$corpus/zoneinfo.tar" ]; then
    for f in brown.txt cmake.elf dpkg-status.txt headers.tar pystdlib.tar random.deb zoneinfo.tar; do
        cat "$corpus/$f"
    done > "$S/corpus.bin" || fail "reading the bench corpus"
    "$FZ7" a -bd -m0=Deflate64 -mx5 "$S/d64.7z" "$S/corpus.bin" > "$S/log" 2>&1 || { cat "$S/log"; fail "fz7 a Deflate64 corpus"; }
    7zz t "$S/d64.7z" > "$S/log" 2>&1 || { cat "$S/log"; fail "7zz t rejects the Deflate64 corpus archive"; }
    rm -f "$S/corpus.bin" "$S/d64.7z"
    echo "ok Deflate64 -mx5 of the bench corpus"
else
    echo "SKIP Deflate64 of the bench corpus: no ../shared/bench/corpus"
fi
echo "PASS"
