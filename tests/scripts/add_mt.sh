#!/usr/bin/env bash
# add_mt.sh - multi-threaded compression: `fz7 a -mmt4 -mx5` (two bt4
# encoders, each with its match finder on a thread of its own) cuts an
# input of 8 MiB into LZMA2 blocks compressed side by side (-md=1m: blocks
# are at least 3 dictionaries; one xz block of 4 MiB per encoder). The 7z
# and xz archives must pass `7zz t` and `xz -t`, extract to the input, be
# the same bytes on every run, cost at most 1 % over -mmt1 (2 % on generated text), and the xz file
# must hold 2 blocks with both sizes in their headers. The 7z folder's
# LZMA2 stream (second block continues the first one's dictionary) must
# also decode in xz's raw LZMA2 decoder. At -mx5 (not cut: one stream
# whose match finder has a thread) -mmt2 must give -mmt1's bytes, as
# must -mmt2 with -md=1m (one bt4 encoder: two threads).
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
    pct=101
else
    text_lines 90000 5 | head -c 4194304 > in/a.txt
    text_lines 90000 6 | head -c 4194304 > in/b.tar
    src="generated text"
    # Each cut resets the coder's probabilities, and the literal model of
    # this 20-word text takes longer to learn again than real text's: its
    # 4 cuts cost 1.3 % where the corpus's cost under 1 %.
    pct=102
fi
cat in/a.txt in/b.tar > all.bin
[ "$(stat -c %s all.bin)" = 8388608 ] || fail "input is not 8 MiB"

# ratio_ok BIG SMALL: BIG <= pct/100 * SMALL, in integers.
ratio_ok() { [ $(( $1 * 100 )) -le $(( $2 * pct )) ]; }

# 7z: -mmt1, -mmt4 twice, and -mmt2 (one encoder: -mmt1's bytes).
(cd in && "$FZ7" a -bsp0 -mx5 -md=1m -mmt1 ../one.7z a.txt b.tar >/dev/null) || fail "a -mmt1 one.7z"
(cd in && "$FZ7" a -bsp0 -mx5 -md=1m -mmt4 ../two.7z a.txt b.tar >/dev/null) || fail "a -mmt4 two.7z"
(cd in && "$FZ7" a -bsp0 -mx5 -md=1m -mmt4 ../two_again.7z a.txt b.tar >/dev/null) || fail "a -mmt4 two_again.7z"
(cd in && "$FZ7" a -bsp0 -mx5 -md=1m -mmt2 ../bt2.7z a.txt b.tar >/dev/null) || fail "a -mmt2 bt2.7z"
cmp -s two.7z two_again.7z || fail "-mmt4 7z differs between two runs"
cmp -s one.7z two.7z && fail "-mmt4 7z is the -mmt1 archive: no second block"
cmp -s one.7z bt2.7z || fail "-mx5 -md=1m -mmt2 (one bt4 encoder) is not the -mmt1 archive"
for f in one.7z two.7z; do
    7zz t "$f" >/dev/null || fail "7zz t $f"
    "$FZ7" t "$f" >/dev/null || fail "fz7 t $f"
    rm -rf "out_$f" && mkdir "out_$f"
    7zz x -o"out_$f" "$f" >/dev/null || fail "7zz x $f"
    cmp -s "out_$f/a.txt" in/a.txt && cmp -s "out_$f/b.tar" in/b.tar || fail "$f extracts other bytes"
done
s1=$(stat -c %s one.7z); s2=$(stat -c %s two.7z)
ratio_ok "$s2" "$s1" || fail "7z -mmt4 is $s2 bytes, over $pct % of $s1 (-mmt1)"

# -mx1 (256 KiB dictionary): 2 MiB blocks, and the folder ends in blocks
# of 512 KiB (lzma2_mt.c, plan_len; test_mf_thread checks the offsets). The same bytes on two runs, decoded by 7zz, within 1 %.
(cd in && "$FZ7" a -bsp0 -mx1 -mmt1 ../f1.7z a.txt b.tar >/dev/null) || fail "a -mx1 -mmt1 f1.7z"
(cd in && "$FZ7" a -bsp0 -mx1 -mmt2 ../f2.7z a.txt b.tar >/dev/null) || fail "a -mx1 -mmt2 f2.7z"
(cd in && "$FZ7" a -bsp0 -mx1 -mmt2 ../f2_again.7z a.txt b.tar >/dev/null) || fail "a -mx1 -mmt2 f2_again.7z"
cmp -s f2.7z f2_again.7z || fail "-mx1 -mmt2 7z differs between two runs"
cmp -s f1.7z f2.7z && fail "-mx1 -mmt2 7z is the -mmt1 archive: not cut"
rm -rf out_f2 && 7zz x -oout_f2 f2.7z >/dev/null || fail "7zz x f2.7z"
cmp -s out_f2/a.txt in/a.txt && cmp -s out_f2/b.tar in/b.tar || fail "f2.7z extracts other bytes"
ratio_ok "$(stat -c %s f2.7z)" "$(stat -c %s f1.7z)" || fail "-mx1 -mmt2 is $(stat -c %s f2.7z) bytes, over $pct % of $(stat -c %s f1.7z)"

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

# xz: -mmt1, and -mmt4 twice.
"$FZ7" a -bsp0 -txz -mx5 -md=1m -mmt1 one.xz all.bin >/dev/null || fail "a -txz -mmt1"
"$FZ7" a -bsp0 -txz -mx5 -md=1m -mmt4 two.xz all.bin >/dev/null || fail "a -txz -mmt4"
"$FZ7" a -bsp0 -txz -mx5 -md=1m -mmt4 two_again.xz all.bin >/dev/null || fail "a -txz -mmt4 again"
cmp -s two.xz two_again.xz || fail "-mmt4 xz differs between two runs"
for f in one.xz two.xz; do
    xz -t "$f" || fail "xz -t $f"
    7zz t "$f" >/dev/null || fail "7zz t $f"
    xz -dc "$f" | cmp -s - all.bin || fail "xz -dc $f gives other bytes"
    "$FZ7" x -so "$f" 2>/dev/null | cmp -s - all.bin || fail "fz7 x -so $f gives other bytes"
done
s1=$(stat -c %s one.xz); s2=$(stat -c %s two.xz)
ratio_ok "$s2" "$s1" || fail "xz -mmt4 is $s2 bytes, over $pct % of $s1 (-mmt1)"
# xz --robot -lvv: "block" lines; field 13 is the header flags (c = compressed
# size, u = uncompressed size present), field 8 the uncompressed size.
blocks=$(xz --robot -lvv one.xz | awk -F'\t' '$1 == "block"' | wc -l)
[ "$blocks" = 1 ] || fail "one.xz has $blocks blocks, not 1"
xz --robot -lvv two.xz | awk -F'\t' '$1 == "block" {print $8, $13}' > two.blocks
[ "$(wc -l < two.blocks)" = 2 ] || fail "two.xz has $(wc -l < two.blocks) blocks, not 2"
# The cut (lzma_presets.c, fz7_lzma_plan_threads): one block per encoder, 8 MiB / 2.
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

# Several multi-threaded folders (-ms=e: one per extension; the x86
# executable is a BCJ folder of its own): each folder's last blocks are
# still coded while the next folder's first ones start (7z_write.c, the
# pending folder), which must change no byte. The 7z must be the same on
# two -mmt2 runs, decode byte-exact in 7zz and fz7, and hold in each folder
# the pack stream of that folder's file compressed alone. With FZ7_REF set
# to an older fz7 whose encoder gives the same bytes (a developer's check
# when changing only the writer's scheduling), both -mmt1 and -mmt2
# archives must be its bytes.
mkdir in2
cp in/a.txt in2/a.txt
cp in/b.tar in2/b.tar
text_lines 20000 7 > in2/c.log                       # ~1 MB: one stream
if [ -n "${FZ7_SHARED:-}" ] && [ -f "$corpus/cmake.elf" ]; then
    cp "$corpus/cmake.elf" in2/d.elf
else
    # Three different programs (trailing bytes keep it an ELF); copies of
    # one program would sit further back than -mx1's block prefix reaches.
    cat "$FZ7" "$(command -v bash)" "$(command -v 7zz)" > in2/d.elf
fi
touch -d @1700000000 in2/*
chmod 644 in2/*
files="a.txt b.tar c.log d.elf"
mf_add() { # ARCHIVE THREADS [FZ7]: -mx1 -ms=e of in2
    (cd in2 && "${3:-$FZ7}" a -bsp0 -mx1 -ms=e -mmt"$2" "../$1" $files >/dev/null)
}
mf_add mf1.7z 1 || fail "a -mmt1 mf1.7z"
mf_add mf2.7z 2 || fail "a -mmt2 mf2.7z"
mf_add mf2_again.7z 2 || fail "a -mmt2 mf2_again.7z"
cmp -s mf2.7z mf2_again.7z || fail "several folders: -mmt2 7z differs between two runs"
folders=$(7zz l -slt mf2.7z | awk -F' = ' '$1 == "Blocks" {print $2}')
[ "$folders" = 4 ] || fail "mf2.7z has ${folders:-no} folders, not 4"
7zz l -slt mf2.7z | grep -q '^Method = BCJ LZMA2' || fail "mf2.7z: no BCJ folder"
for f in mf1.7z mf2.7z; do
    7zz t "$f" >/dev/null || fail "7zz t $f"
    "$FZ7" t "$f" >/dev/null || fail "fz7 t $f"
    rm -rf "x7_$f" "xf_$f"
    7zz x -o"x7_$f" "$f" >/dev/null || fail "7zz x $f"
    "$FZ7" x -o"xf_$f" "$f" >/dev/null || fail "fz7 x $f"
    for n in $files; do
        cmp -s "x7_$f/$n" "in2/$n" || fail "7zz x $f: $n has other bytes"
        cmp -s "xf_$f/$n" "in2/$n" || fail "fz7 x $f: $n has other bytes"
    done
done
m1=$(stat -c %s mf1.7z); m2=$(stat -c %s mf2.7z)
ratio_ok "$m2" "$m1" || fail "several folders: -mmt2 is $m2 bytes, over $pct % of $m1 (-mmt1)"
# pack_streams ARCHIVE: "name offset size" of each folder's pack stream (one
# each at -mx1 with BCJ), from 7zz's Packed Size on a folder's first file.
pack_streams() {
    7zz l -slt "$1" | awk -F' = ' '
        $1 == "Path" {p = $2}
        $1 == "Packed Size" && $2 != "" {print p, off, $2; off += $2}' off=32
}
pack_streams mf2.7z > mf2.packs
[ "$(wc -l < mf2.packs)" = 4 ] || fail "mf2.7z: $(wc -l < mf2.packs) pack streams, not 4"
for n in a.txt b.tar d.elf; do
    read -r off size <<< "$(awk -v n="$n" '$1 == n {print $2, $3}' mf2.packs)"
    [ -n "$size" ] || fail "mf2.7z: no pack stream for $n"
    rm -f "alone_$n.7z"
    (cd in2 && "$FZ7" a -bsp0 -mx1 -mmt2 "../alone_$n.7z" "$n" >/dev/null) || fail "a -mmt2 alone_$n.7z"
    read -r _ aoff asize <<< "$(pack_streams "alone_$n.7z")"
    [ "$asize" = "$size" ] || fail "$n: pack stream of $size bytes in mf2.7z, $asize alone"
    cmp -s <(tail -c +$((off + 1)) mf2.7z | head -c "$size") <(tail -c +$((aoff + 1)) "alone_$n.7z" | head -c "$asize") \
        || fail "$n: pack stream in mf2.7z differs from $n compressed alone"
done
# With a password each folder's 7zAES stream ends after its last blocks.
(cd in2 && "$FZ7" a -bsp0 -mx1 -ms=e -mmt2 -pfz7 ../mfp.7z $files >/dev/null) || fail "a -mmt2 -p mfp.7z"
7zz t -pfz7 mfp.7z >/dev/null || fail "7zz t -p mfp.7z"
rm -rf xp && "$FZ7" x -pfz7 -oxp mfp.7z >/dev/null || fail "fz7 x -p mfp.7z"
for n in $files; do cmp -s "xp/$n" "in2/$n" || fail "fz7 x -p mfp.7z: $n has other bytes"; done
ref=${FZ7_REF:-}
if [ -n "$ref" ] && [ -x "$ref" ]; then
    mf_add ref1.7z 1 "$ref" || fail "$ref a -mmt1"
    mf_add ref2.7z 2 "$ref" || fail "$ref a -mmt2"
    cmp -s mf1.7z ref1.7z || fail "several folders: -mmt1 differs from $ref's"
    cmp -s mf2.7z ref2.7z || fail "several folders: -mmt2 differs from $ref's"
    refnote="same bytes as $ref"
else
    refnote="FZ7_REF not set: not compared with an older build"
fi
echo "add_mt.sh: 4 folders at -mx1: -mmt1 $m1, -mmt2 $m2 bytes ($refnote)"

echo "add_mt.sh: 7z and xz, -mmt1 vs -mmt4 on 8 MiB of $src: passed (7z $(stat -c %s one.7z) -> $(stat -c %s two.7z), xz $s1 -> $s2 bytes)"
