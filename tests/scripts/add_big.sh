#!/usr/bin/env bash
# add_big.sh - large and boundary inputs for `fz7 a`: 100 MB of zeros, a
# sparse file of more than 4 GiB (sizes past 32 bits in every header field),
# and a match at exactly the dictionary size (the largest distance LZMA
# allows). Each archive must pass `7zz t` and give the input back.
# Labelled slow: the release run of the suite runs it, the ASan run skips it.
set -u
. "$(dirname "$0")/lib_add.sh"
need_tools 7zz xz sha256sum
mkdir -p "$FZ7_SCRATCH" && cd "$FZ7_SCRATCH" || exit 1
rm -rf ./*

# 100 MB of zeros: long runs of 273-byte matches; tiny archive; exact size back.
head -c 100000000 /dev/zero > zeros.bin
"$FZ7" a -bsp0 -mx5 zeros.7z zeros.bin >/dev/null || fail "a zeros.bin"
size=$(stat -c %s zeros.7z)
[ "$size" -lt 100000 ] || fail "100 MB of zeros packed to $size bytes"
7zz t zeros.7z >/dev/null || fail "7zz t zeros.7z"
[ "$(7zz x -so zeros.7z | sha256sum)" = "$(sha256sum < zeros.bin)" ] || fail "zeros.7z content"
"$FZ7" a -bsp0 -mx5 zeros.xz zeros.bin >/dev/null || fail "a zeros.xz"
[ "$(xz -dc zeros.xz | sha256sum)" = "$(sha256sum < zeros.bin)" ] || fail "zeros.xz content"
rm -f zeros.bin

# A dictionary over 1.5 GiB (7zz takes d= up to 4 GiB): 1.7 GB of zeros
# through -si keep d=2g (no size to fit it to), so the decoder's window is
# the whole 1.7 GB stream; fz7 and 7zz read it back.
head -c 1700000000 /dev/zero | "$FZ7" a -bsp0 -bso0 -mx1 -md=2g -si d2g.7z || fail "a -md=2g -si"
[ "$("$FZ7" l -slt d2g.7z | sed -n 's/^Method = //p' | head -1)" = LZMA2:31 ] || fail "d2g.7z: not LZMA2:31"
"$FZ7" t -bso0 d2g.7z || fail "fz7 t d2g.7z"
7zz t d2g.7z >/dev/null || fail "7zz t d2g.7z"
rm -f d2g.7z

# Largest distance: 100 KiB of random data R, then 1 MiB - 100 KiB of other
# random data, then R again: the second R is a match at distance 1 MiB, the
# dictionary size. It must be found (the archive stays near 1 MiB, not
# 1.1 MiB) and decode right in 7zz and xz.
prng_bytes 102400 11 > r.bin
prng_bytes $((1048576 - 102400)) 12 > x.bin
cat r.bin x.bin r.bin > far.bin
for fmt in 7z xz; do
  "$FZ7" a -bsp0 -mx5 -md=1m -mf=off "far.$fmt" far.bin >/dev/null || fail "a far.$fmt"
  size=$(stat -c %s "far.$fmt")
  [ "$size" -lt 1075000 ] || fail "far.$fmt is $size bytes: the match at the dictionary size was not used"
done
7zz t far.7z >/dev/null || fail "7zz t far.7z"
[ "$(7zz x -so far.7z | sha256sum)" = "$(sha256sum < far.bin)" ] || fail "far.7z content"
[ "$(xz -dc far.xz | sha256sum)" = "$(sha256sum < far.bin)" ] || fail "far.xz content"

# A sparse file of more than 4 GiB ending in a marker: 64-bit sizes in pack
# info, substreams and file info; fz7 and 7zz agree on the size and CRC.
truncate -s 4400000000 sparse.bin
printf 'end-of-sparse-file' >> sparse.bin
"$FZ7" a -bsp0 -mx1 sparse.7z sparse.bin >/dev/null || fail "a sparse.7z"
listed=$(7zz l -slt sparse.7z | awk -F' = ' '$1 == "Size" {print $2; exit}')
[ "$listed" = "4400000018" ] || fail "7zz lists sparse.bin with size $listed"
7zz t sparse.7z >/dev/null || fail "7zz t sparse.7z"
"$FZ7" t sparse.7z >/dev/null || fail "fz7 t sparse.7z"
[ "$("$FZ7" x -so sparse.7z | tail -c 18)" = "end-of-sparse-file" ] || fail "sparse.7z tail"
rm -f sparse.bin sparse.7z
echo "add_big.sh: 3 inputs passed, 0 failed"
