#!/usr/bin/env bash
# seeds.sh - writes the seed corpora of the fuzz harnesses into OUT/HARNESS/:
# the small archives of ../shared/corpus (when present) and small inputs made
# here with 7zz and xz, each laid out as its harness reads it (see the
# comment at the top of each fuzz_*.c).
#
# Usage: tests/fuzz/seeds.sh OUT_DIR
set -u
OUT=${1:?usage: seeds.sh OUT_DIR}
HERE=$(cd "$(dirname "$0")" && pwd)
SHARED=${FZ7_SHARED:-$HERE/../../../shared}
rm -rf "$OUT" && mkdir -p "$OUT"/{7z,xz,lzma,lzma2,7zaes,bcj2,ppmd,ppmd8,deflate,enc_lzma,enc_lzma2,enc_mt,enc_xz,enc_7z,enc_ppmd,enc_ppmd8,enc_deflate,liblzma,formats} || exit 1
T=$(mktemp -d) && trap 'rm -rf "$T"' EXIT

# Sample inputs: text, x86-like code with E8/E9 bytes, zeros, random.
mkdir -p "$T/in"
{ seq 1 400; cat "$HERE"/*.c; } | head -c 6000 >"$T/in/text.txt"
head -c 1500 /dev/urandom >"$T/in/random.bin"
head -c 3000 /dev/zero >"$T/in/zeros.bin"
for i in $(seq 1 120); do printf '\x55\x89\xe5\xe8\x10\x00\x00\x00\xe9\xf0\xff\xff\xff\x0f\x85\x01\x02\x00\x00\xc3'; done >"$T/in/code.bin"
ln -s text.txt "$T/in/link"
mkdir -p "$T/in/dir/sub"
printf 'x' >"$T/in/dir/sub/one"

# --- 7z: the shared corpus (small ones) and 7zz archives of every method ---
if [ -d "$SHARED/corpus/7z" ]; then
    find "$SHARED/corpus/7z" -name '*.7z' -size -24k -exec cp {} "$OUT/7z/" \;
fi
if command -v 7zz >/dev/null; then
    n=0
    for m in "-m0=LZMA2:d=64k" "-m0=LZMA:d=64k:lc=0:lp=2" "-m0=PPMd:mem=1m:o=4" "-m0=Copy" \
             "-m0=Deflate" "-m0=Deflate64" "-m0=BZip2" "-mf=BCJ2 -m0=LZMA2:d=64k" \
             "-mf=Delta:4 -m0=LZMA2:d=64k" "-mf=ARM64 -m0=LZMA2:d=64k" "-ms=off -m0=LZMA2:d=64k" \
             "-psecret -mhe=on -m0=LZMA2:d=64k" "-psecret -m0=Copy -mhc=off" "-mhc=off -m0=LZMA:d=64k"; do
        n=$((n + 1))
        (cd "$T/in" && 7zz a -snl $m "$OUT/7z/made_$n.7z" . >/dev/null 2>&1) || echo "seeds.sh: 7zz $m failed" >&2
    done
fi

# --- xz: the shared corpus, tests/data/xz, and xz with several filters ---
for d in "$SHARED/corpus/xz" "$HERE/../data/xz"; do
    [ -d "$d" ] && find "$d" \( -name '*.xz' -o -name '*.lzma' \) -size -64k -exec cp {} "$OUT/xz/" \;
done
if command -v xz >/dev/null; then
    n=0
    for f in "--lzma2=dict=64KiB" "--x86 --lzma2=dict=64KiB" "--delta=dist=4 --lzma2=dict=64KiB" \
             "--arm64 --lzma2=dict=64KiB" "--check=sha256 --lzma2=preset=0" "--check=none --lzma2=preset=1"; do
        n=$((n + 1))
        xz -c --format=xz $f "$T/in/code.bin" >"$OUT/xz/made_$n.xz"
    done
    xz -c --format=xz --block-size=2000 "$T/in/text.txt" >"$OUT/xz/made_blocks.xz"
    xz -c --format=lzma "$T/in/text.txt" >"$OUT/xz/made.lzma"
    cat "$OUT/xz/made_1.xz" "$OUT/xz/made_2.xz" >"$OUT/xz/made_concat.xz"

    # --- raw LZMA: 5 props + 2 bytes unpack size (FFFF: unknown) + data ---
    for f in text.txt code.bin zeros.bin random.bin; do
        for lclppb in "lc=3,lp=0,pb=2" "lc=0,lp=2,pb=0" "lc=4,lp=0,pb=4"; do
            xz -c --format=lzma --lzma1=dict=64KiB,$lclppb "$T/in/$f" >"$T/a.lzma"
            size=$(stat -c %s "$T/in/$f")
            { head -c 5 "$T/a.lzma"; printf '\xff\xff'; tail -c +14 "$T/a.lzma"; } >"$OUT/lzma/${f%.*}_${lclppb//[,=]/}_eopm"
            # xz writes an end marker; a known size with a marker is accepted too
            { head -c 5 "$T/a.lzma"; printf "\\x$(printf %02x $((size & 255)))\\x$(printf %02x $((size >> 8)))";
              tail -c +14 "$T/a.lzma"; } >"$OUT/lzma/${f%.*}_${lclppb//[,=]/}_sized"
        done
        # --- raw LZMA2: dictionary byte 16 (64 KiB) + 2 bytes size + data ---
        for lzma2 in "dict=64KiB" "dict=64KiB,lc=0,lp=4,pb=4" "preset=0"; do
            xz -c --format=raw --lzma2=$lzma2 "$T/in/$f" >"$T/a.raw"
            { printf '\x10\xff\xff'; cat "$T/a.raw"; } >"$OUT/lzma2/${f%.*}_${lzma2//[,=]/}"
        done
    done
    cat "$T/in/text.txt" "$T/in/random.bin" "$T/in/zeros.bin" | xz -c --format=raw --lzma2=dict=4KiB >"$T/a.raw"
    { printf '\x00\xff\xff'; cat "$T/a.raw"; } >"$OUT/lzma2/mixed_4k"
    { printf '\x10'; printf '\x00\x10'; cat "$T/a.raw"; } >"$OUT/lzma2/mixed_sized"
fi
for f in "$HERE"/../data/lzma/*.lzma2; do
    [ -s "$f" ] && [ "$(stat -c %s "$f")" -lt 20000 ] && { printf '\x12\xff\xff'; cat "$f"; } >"$OUT/lzma2/data_$(basename "$f")"
done

# --- 7zAES, BCJ2, PPMd, Deflate: coder streams cut out of 7zz archives ---
# (Copy-method / unpacked-header archives, so the pack streams sit at 32.)
py=$(command -v python3)
if command -v 7zz >/dev/null && [ -n "$py" ]; then
    (cd "$T/in" && 7zz a -m0=Copy -mhc=off -psecret "$T/aes.7z" text.txt code.bin >/dev/null 2>&1)
    (cd "$T/in" && 7zz a -mf=BCJ2 -m0=Copy -mhc=off "$T/bcj2.7z" code.bin text.txt >/dev/null 2>&1)
    (cd "$T/in" && 7zz a -m0=PPMd:mem=1m:o=6 -mhc=off "$T/ppmd.7z" text.txt >/dev/null 2>&1)
    (cd "$T/in" && 7zz a -m0=PPMd:mem=64k:o=2 -mhc=off "$T/ppmd2.7z" code.bin >/dev/null 2>&1)
    (cd "$T/in" && 7zz a -m0=Deflate -mhc=off "$T/deflate.7z" text.txt >/dev/null 2>&1)
    (cd "$T/in" && 7zz a -m0=Deflate64 -mhc=off "$T/deflate64.7z" code.bin >/dev/null 2>&1)
    "$py" "$HERE/seeds_cut.py" "$T" "$OUT" || echo "seeds.sh: seeds_cut.py failed" >&2
fi
# --- write-side harnesses: option bytes (fuzz_common.h fuzz_take_cfg, or
# fuzz_liblzma.c's 8) in front of the sample inputs ---
n=0
for cfg in '\x00\x00\xff\x00\x00\x04\x00\x00\x00\x00' '\x05\x00\xff\x00\x00\x07\x02\x01\x03\x41' \
           '\x09\x00\xff\x00\x00\x05\x16\x02\x10\xc2' '\xa3\x07\x00\x40\x90\x00\x0b\x0d\x7f\x0f' \
           '\xb7\x0a\x2c\xff\x00\x1a\x25\x0e\x05\x88'; do
    for f in text.txt code.bin zeros.bin random.bin; do
        n=$((n + 1))
        for h in enc_lzma enc_lzma2 enc_mt enc_xz enc_7z liblzma; do
            { printf "$cfg"; head -c 4000 "$T/in/$f"; } >"$OUT/$h/seed_$n"
        done
    done
done
# enc_ppmd: order, model memory, piece seed (fuzz_enc_ppmd.c) in front
n=0
for cfg in '\x04\x09\x00' '\x1e\x00\x07' '\x00\x03\x03'; do
    for f in text.txt code.bin zeros.bin random.bin; do
        n=$((n + 1))
        { printf "$cfg"; head -c 4000 "$T/in/$f"; } >"$OUT/enc_ppmd/seed_$n"
        { printf "${cfg%\\x*}"; head -c 4000 "$T/in/$f"; } >"$OUT/enc_deflate/seed_$n"
    done
done
# ppmd8: 7zz's zip PPMd entries (cut out: the 2 property bytes, the size
# as 2 bytes LE, the stream); enc_ppmd8: order, restore and memory, piece
# seed (fuzz_enc_ppmd8.c) in front
if command -v 7zz >/dev/null && [ -n "$py" ]; then
    n=0
    for m in "-mx1" "-mx9 -mmem=1m" "-mx5 -mo=2"; do
        for f in text.txt code.bin; do
            n=$((n + 1))
            rm -f "$T/p8.zip"
            # shellcheck disable=SC2086
            (cd "$T/in" && 7zz a -tzip -mm=PPMd $m "$T/p8.zip" "$f" >/dev/null 2>&1)
            "$py" - "$T/p8.zip" "$OUT/ppmd8/seed_$n" <<'PY' || echo "seeds.sh: no ppmd8 seed from $f" >&2
import struct, sys
d = open(sys.argv[1], 'rb').read()
if d[8:10] != b'\x62\x00':
    sys.exit(1)
csize, usize, n, e = struct.unpack('<IIHH', d[18:30])
data = d[30 + n + e:30 + n + e + csize]
open(sys.argv[2], 'wb').write(data[:2] + struct.pack('<H', usize & 0xffff) + data[2:])
PY
        done
    done
fi
n=0
for cfg in '\x06\x02\x00' '\x0e\x13\x05' '\x00\x10\x03'; do
    for f in text.txt code.bin zeros.bin random.bin; do
        n=$((n + 1))
        { printf "$cfg"; head -c 4000 "$T/in/$f"; } >"$OUT/enc_ppmd8/seed_$n"
    done
done
# formats: small tars (GNU with long names, ustar, pax, v7), cpio (newc,
# odc), zips (Info-ZIP, bsdtar, 7zz with NTFS times and ZipCrypto) and
# one compressed file each of gzip, bzip2 and zstd
F="$OUT/formats"
mkdir -p "$T/f/d/$(printf 'n%.0s' $(seq 110))"
printf 'abc\n' >"$T/f/d/f.txt" && ln -sf f.txt "$T/f/d/l" && ln -f "$T/f/d/f.txt" "$T/f/d/h"
for fmt in gnu ustar pax v7; do
    tar --format=$fmt -cf "$F/seed.$fmt.tar" -C "$T/f" d 2>/dev/null
done
if command -v bsdtar >/dev/null; then
    bsdtar --format=newc -cf "$F/seed.newc.cpio" -C "$T/f" d
    bsdtar --format=odc -cf "$F/seed.odc.cpio" -C "$T/f" d
    bsdtar --format=zip -cf "$F/seed.bsd.zip" -C "$T/f" d
fi
command -v zip >/dev/null && (cd "$T/f" && zip -qry "$F/seed.info.zip" d)
if command -v 7zz >/dev/null; then
    (cd "$T/f" && 7zz a -tzip "$F/seed.7z.zip" d >/dev/null 2>&1 &&
        7zz a -tzip -ppw "$F/seed.zc.zip" d/f.txt >/dev/null 2>&1)
fi
gzip -c "$T/in/text.txt" >"$F/seed.gz"
command -v bzip2 >/dev/null && bzip2 -c "$T/in/text.txt" >"$F/seed.bz2"
command -v zstd >/dev/null && zstd -q -c "$T/in/text.txt" >"$F/seed.zst"
for h in "$OUT"/*; do echo "seeds.sh: $(basename "$h"): $(ls "$h" | wc -l) seeds"; done
