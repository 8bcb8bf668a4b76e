#!/usr/bin/env bash
# add_mt.sh - multi-threaded compression (issue 8): `fz7 a -mmt2` cuts an
# input of 8 MiB into LZMA2 blocks compressed side by side (-md=1m: blocks
# are at least 3 dictionaries; one xz block of 4 MiB per thread). The 7z
# and xz archives must pass `7zz t` and `xz -t`, extract to the input, be
# the same bytes on every run, cost at most 1 % over -mmt1, and the xz file
# must hold 2 blocks with both sizes in their headers. The 7z folder's
# LZMA2 stream (second block continues the first one's dictionary) must
# also decode in xz's raw LZMA2 decoder. At -mx5 (not cut: one stream
# whose match finder has a thread) -mmt2 must give -mmt1's bytes.
set -u
. "$(dirname "$0")/lib_add.sh"
need_tools 7zz xz sha256sum cmp
mkdir -p "$FZ7_SCRATCH" && cd "$FZ7_SCRATCH" || exit 1
rm -rf ./*

# Real text: 4 MiB of English and 4 MiB of C headers from the bench corpus
# (cut between them: 3 + 5 MiB puts the cut 1 MiB into the headers and
# costs xz's independent blocks 1.0 %), or, without the shared folder,
# 8 MiB of generated text.
corpus=${FZ7_SHARED:-}/bench/corpus
mkdir in
if [ -n "${FZ7_SHARED:-}" ] && [ -f "$corpus/headers.tar" ] && [ -f "$corpus/brown.txt" ]; then
    head -c 4194304 "$corpus/brown.txt" > in/a.txt
    head -c 4194304 "$corpus/headers.tar" > in/b.tar
    src="bench corpus"
else
    text_lines 90000 5 | head -c 4194304 > in/a.txt
    text_lines 90000 6 | head -c 4194304 > in/b.tar
    src="generated text"
fi
cat in/a.txt in/b.tar > all.bin
[ "$(stat -c %s all.bin)" = 8388608 ] || fail "input is not 8 MiB"

# ratio_ok BIG SMALL: BIG <= 1.01 * SMALL, in integers.
ratio_ok() { [ $(( $1 * 100 )) -le $(( $2 * 101 )) ]; }

# 7z: -mmt1, and -mmt2 twice.
(cd in && "$FZ7" a -bsp0 -mx5 -md=1m -mmt1 ../one.7z a.txt b.tar >/dev/null) || fail "a -mmt1 one.7z"
(cd in && "$FZ7" a -bsp0 -mx5 -md=1m -mmt2 ../two.7z a.txt b.tar >/dev/null) || fail "a -mmt2 two.7z"
(cd in && "$FZ7" a -bsp0 -mx5 -md=1m -mmt2 ../two_again.7z a.txt b.tar >/dev/null) || fail "a -mmt2 two_again.7z"
cmp -s two.7z two_again.7z || fail "-mmt2 7z differs between two runs"
cmp -s one.7z two.7z && fail "-mmt2 7z is the -mmt1 archive: no second block"
for f in one.7z two.7z; do
    7zz t "$f" >/dev/null || fail "7zz t $f"
    "$FZ7" t "$f" >/dev/null || fail "fz7 t $f"
    rm -rf "out_$f" && mkdir "out_$f"
    7zz x -o"out_$f" "$f" >/dev/null || fail "7zz x $f"
    cmp -s "out_$f/a.txt" in/a.txt && cmp -s "out_$f/b.tar" in/b.tar || fail "$f extracts other bytes"
done
s1=$(stat -c %s one.7z); s2=$(stat -c %s two.7z)
ratio_ok "$s2" "$s1" || fail "7z -mmt2 is $s2 bytes, over 1.01 x $s1 (-mmt1)"

# The 7z folder's LZMA2 stream alone (pack stream at offset 32, one folder,
# no filter) through xz's raw decoder: the second block's first chunk keeps
# the dictionary (control 0xC0), which liblzma must accept too.
packed=$(7zz l -slt two.7z | awk -F' = ' '$1 == "Packed Size" && $2 != "" {print $2; exit}')
dict=$(7zz l -slt two.7z | awk -F' = ' '$1 == "Method" {sub(/^LZMA2:/, "", $2); print $2; exit}')
[ -n "$packed" ] && [ -n "$dict" ] || fail "7zz l -slt two.7z: no packed size or method"
# 7-Zip names the dictionary 2^N as "N", others as "Nm" or "Nk".
case $dict in *m) dict=${dict%m}MiB ;; *k) dict=${dict%k}KiB ;; *) dict=$((1 << dict)) ;; esac
tail -c +33 two.7z | head -c "$packed" > two.lzma2
xz --format=raw --lzma2=dict="$dict" -dc two.lzma2 > two.raw || fail "xz raw LZMA2 decode of two.7z's stream"
cmp -s two.raw all.bin || fail "xz raw LZMA2 decode of two.7z's stream gives other bytes"

# xz: -mmt1, and -mmt2 twice.
"$FZ7" a -bsp0 -txz -mx5 -md=1m -mmt1 one.xz all.bin >/dev/null || fail "a -txz -mmt1"
"$FZ7" a -bsp0 -txz -mx5 -md=1m -mmt2 two.xz all.bin >/dev/null || fail "a -txz -mmt2"
"$FZ7" a -bsp0 -txz -mx5 -md=1m -mmt2 two_again.xz all.bin >/dev/null || fail "a -txz -mmt2 again"
cmp -s two.xz two_again.xz || fail "-mmt2 xz differs between two runs"
for f in one.xz two.xz; do
    xz -t "$f" || fail "xz -t $f"
    7zz t "$f" >/dev/null || fail "7zz t $f"
    xz -dc "$f" | cmp -s - all.bin || fail "xz -dc $f gives other bytes"
    "$FZ7" x -so "$f" 2>/dev/null | cmp -s - all.bin || fail "fz7 x -so $f gives other bytes"
done
s1=$(stat -c %s one.xz); s2=$(stat -c %s two.xz)
ratio_ok "$s2" "$s1" || fail "xz -mmt2 is $s2 bytes, over 1.01 x $s1 (-mmt1)"
# xz --robot -lvv: "block" lines; field 13 is the header flags (c = compressed
# size, u = uncompressed size present), field 8 the uncompressed size.
blocks=$(xz --robot -lvv one.xz | awk -F'\t' '$1 == "block"' | wc -l)
[ "$blocks" = 1 ] || fail "one.xz has $blocks blocks, not 1"
xz --robot -lvv two.xz | awk -F'\t' '$1 == "block" {print $8, $13}' > two.blocks
[ "$(wc -l < two.blocks)" = 2 ] || fail "two.xz has $(wc -l < two.blocks) blocks, not 2"
# The cut (settings.c, fz7_settings_pick_mt): one block per thread, 8 MiB / 2.
[ "$(cat two.blocks)" = "4194304 cu
4194304 cu" ] || fail "two.xz blocks (uncompressed size, flags): $(tr '\n' ';' < two.blocks)"

# One stream: at -mx5's dictionary 8 MiB is under 3 dictionaries, so it is
# not cut; with -mmt2 its match finder searches on a second thread
# (lz/lz_mf_mt.h) and the archive must be -mmt1's, byte for byte.
(cd in && "$FZ7" a -bsp0 -mx5 -mmt1 ../s1.7z a.txt b.tar >/dev/null) || fail "a -mx5 -mmt1 s1.7z"
(cd in && "$FZ7" a -bsp0 -mx5 -mmt2 ../s2.7z a.txt b.tar >/dev/null) || fail "a -mx5 -mmt2 s2.7z"
cmp -s s1.7z s2.7z || fail "one-stream 7z: -mmt2 ($(stat -c %s s2.7z) bytes) differs from -mmt1 ($(stat -c %s s1.7z))"
7zz t s2.7z >/dev/null || fail "7zz t s2.7z"
"$FZ7" a -bsp0 -txz -mx5 -mmt1 s1.xz all.bin >/dev/null || fail "a -txz -mx5 -mmt1 s1.xz"
"$FZ7" a -bsp0 -txz -mx5 -mmt2 s2.xz all.bin >/dev/null || fail "a -txz -mx5 -mmt2 s2.xz"
cmp -s s1.xz s2.xz || fail "one-stream xz: -mmt2 ($(stat -c %s s2.xz) bytes) differs from -mmt1 ($(stat -c %s s1.xz))"
xz -dc s2.xz | cmp -s - all.bin || fail "xz -dc s2.xz gives other bytes"

echo "add_mt.sh: 7z and xz, -mmt1 vs -mmt2 on 8 MiB of $src: passed (7z $(stat -c %s one.7z) -> $(stat -c %s two.7z), xz $s1 -> $s2 bytes)"
