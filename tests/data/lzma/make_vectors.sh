#!/bin/bash
# make_vectors.sh - regenerates the LZMA/LZMA2 decoder test vectors and
# MANIFEST.tsv with xz and 7zz (run from anywhere; needs /work/shared).
# Columns: file, kind (alone = .lzma with 13-byte header, lzma1 = raw
# LZMA, lzma2 = raw LZMA2), props (lzma1: 10 hex digits; lzma2: the
# dictionary byte), unpacked size for lzma1 (- = unknown), output size,
# SHA-256 of the output.
set -euo pipefail
out=$(cd "$(dirname "$0")" && pwd)
corpus=${FZ7_SHARED:-/work/shared}/bench/corpus
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"

head -c 120000 "$corpus/brown.txt" > text
dd if="$corpus/cmake.elf" bs=1000 skip=1000 count=150 status=none of=bin
head -c $((3 << 20)) /dev/zero > zeros
# Incompressible but reproducible: SHA-256 counter stream.
python3 -c '
import hashlib,sys
sys.stdout.buffer.write(b"".join(hashlib.sha256(i.to_bytes(4,"little")).digest() for i in range(4400))[:140000])' > random140
head -c 70000 random140 > random
# Text, then enough incompressible bytes for LZMA2 stored chunks between
# LZMA chunks (state resets after them), then text again.
head -c 20000 text > t20
cat t20 random140 t20 > mixed
head -c 100000 text > t100
for i in $(seq 25); do cat t100; done > reptext
: > empty
# Short periods (distances 2..7 with long matches).
python3 -c '
import sys
sys.stdout.buffer.write(b"ab" * 30000 + b"abc" * 30000 + b"0123456" * 20000 + b"xyzw" * 25000)' > pattern

manifest="$out/MANIFEST.tsv"
printf '# file\tkind\tprops\tunpack_size\tout_size\tsha256\n' > "$manifest"
row() { # file kind props unpack input
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "$(stat -c %s "$5")" \
        "$(sha256sum < "$5" | cut -d' ' -f1)" >> "$manifest"
}
hex32le() { printf '%02x%02x%02x%02x' $(($1 & 255)) $((($1 >> 8) & 255)) $((($1 >> 16) & 255)) $((($1 >> 24) & 255)); }
props() { printf '%02x%s' $(((($3 * 5 + $2) * 9) + $1)) "$(hex32le "$4")"; } # lc lp pb dict

# .lzma made by xz: unknown size + end marker.
for f in text zeros random empty; do
    xz --format=lzma --lzma1=preset=6,dict=64KiB -c $f > "$out/$f.lzma"
    row $f.lzma alone - - $f
done
# The same stream with its real size in the header: known size + end marker.
cp "$out/text.lzma" "$out/text-known-eopm.lzma"
python3 - "$out/text-known-eopm.lzma" <<'PY'
import sys, struct
p = sys.argv[1]; b = bytearray(open(p, 'rb').read())
b[5:13] = struct.pack('<Q', 120000); open(p, 'wb').write(b)
PY
row text-known-eopm.lzma alone - - text

# Raw LZMA1 from xz (end marker), several lc/lp/pb.
xz --format=raw --lzma1=preset=6,dict=64KiB,lc=0,lp=4,pb=4 -c text > "$out/text-lc0lp4pb4.lzma1"
row text-lc0lp4pb4.lzma1 lzma1 "$(props 0 4 4 65536)" - text
xz --format=raw --lzma1=preset=6,dict=1MiB,lc=4,lp=0,pb=0 -c bin > "$out/bin-lc4lp0pb0.lzma1"
row bin-lc4lp0pb0.lzma1 lzma1 "$(props 4 0 0 1048576)" - bin
xz --format=raw --lzma1=preset=6,dict=64KiB,lc=1,lp=2,pb=3 -c bin > "$out/bin-lc1lp2pb3.lzma1"
row bin-lc1lp2pb3.lzma1 lzma1 "$(props 1 2 3 65536)" - bin

# Raw LZMA1 from a 7z archive (known size, no end marker), lc + lp > 4.
extract7z() { # input lc lp pb dict name
    rm -f a.7z
    7zz a -t7z -m0=LZMA:d=${5}b:lc=$2:lp=$3:pb=$4 -mhc=off -mmt1 a.7z "$1" > /dev/null
    local packed
    packed=$(7zz l -slt a.7z | sed -n 's/^Packed Size = //p' | head -1)
    tail -c +33 a.7z | head -c "$packed" > "$out/$6"
    row "$6" lzma1 "$(props "$2" "$3" "$4" "$5")" "$(stat -c %s "$1")" "$1"
}
extract7z text 8 4 4 65536 text-7z-lc8lp4pb4.lzma1
extract7z bin 5 3 1 1048576 bin-7z-lc5lp3pb1.lzma1
extract7z reptext 3 0 2 1048576 reptext-7z.lzma1

# Raw LZMA2 from xz.
xz --format=raw --lzma2=preset=6,dict=64KiB -c text > "$out/text.lzma2"
row text.lzma2 lzma2 8 - text
xz --format=raw --lzma2=preset=6,dict=64KiB,lc=0,lp=2,pb=1 -c bin > "$out/bin-lc0lp2pb1.lzma2"
row bin-lc0lp2pb1.lzma2 lzma2 8 - bin
xz --format=raw --lzma2=preset=6,dict=1MiB -c zeros > "$out/zeros.lzma2"
row zeros.lzma2 lzma2 16 - zeros
xz --format=raw --lzma2=preset=6,dict=1MiB -c random > "$out/random.lzma2"
row random.lzma2 lzma2 16 - random
xz --format=raw --lzma2=preset=6,dict=1MiB -c mixed > "$out/mixed.lzma2"
row mixed.lzma2 lzma2 16 - mixed
xz --format=raw --lzma2=preset=6,dict=1MiB,lc=3,lp=1,pb=2 -c reptext > "$out/reptext.lzma2"
row reptext.lzma2 lzma2 16 - reptext
xz --format=raw --lzma2=preset=6,dict=64KiB -c pattern > "$out/pattern.lzma2"
row pattern.lzma2 lzma2 8 - pattern
xz --format=raw --lzma2=preset=6,dict=64KiB -c empty > "$out/empty.lzma2"
row empty.lzma2 lzma2 8 - empty
