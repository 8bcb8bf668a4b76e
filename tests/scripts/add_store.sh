#!/usr/bin/env bash
# add_store.sh - incompressible input, zeros and periodic data through `fz7 a`.
# 4 MiB of seeded random bytes at -mx5 -mmt1 go into LZMA2 uncompressed
# chunks of 64 KiB (parsed from the .xz: every chunk stored, their bytes
# the input's), the .7z is at most the input + 0.1 %, 7zz and fz7 give the
# bytes back, and a second run writes the same archive. Random bytes
# repeated after other data are found again (the archive holds them once).
# Zeros and a 1000-byte pattern stay tiny at -mx1/-mx5/-mx9 and -mmt1/2
# and decode right in 7zz.
set -u
. "$(dirname "$0")/lib_add.sh"
need_tools 7zz xz python3 sha256sum
mkdir -p "$FZ7_SCRATCH" && cd "$FZ7_SCRATCH" || exit 1
rm -rf ./*

python3 -c 'import random, sys; sys.stdout.buffer.write(random.Random(7).randbytes(4 << 20))' > r.bin
n=$((4 << 20))
want=$(sha256sum < r.bin)

# .xz: the LZMA2 chunks of its one block, from the stream.
"$FZ7" a -bsp0 -mx5 -mmt1 r.xz r.bin >/dev/null || fail "a r.xz"
[ "$(xz -dc r.xz | sha256sum)" = "$want" ] || fail "r.xz content"
chunks=$(python3 - r.xz <<'EOF'
import sys
d = open(sys.argv[1], "rb").read()
p = 12 + (d[12] + 1) * 4          # stream header, block header
stored = lzma = 0
while True:
    c = d[p]
    if c == 0:
        break
    if c in (1, 2):
        u = (d[p + 1] << 8 | d[p + 2]) + 1
        if u != 65536:
            print("short", u); sys.exit(0)
        stored += 1
        p += 3 + u
    elif c >= 0x80:
        lzma += 1
        p += (6 if c >= 0xC0 else 5) + (d[p + 3] << 8 | d[p + 4]) + 1
    else:
        print("bad", c); sys.exit(0)
print(stored, lzma)
EOF
)
[ "$chunks" = "64 0" ] || fail "4 MiB of random bytes: chunks (stored, LZMA) $chunks, want 64 0"

for mt in 1 2; do
  "$FZ7" a -bsp0 -mx5 -mmt$mt r$mt.7z r.bin >/dev/null || fail "a r$mt.7z"
  size=$(stat -c %s r$mt.7z)
  [ "$size" -le $((n + n / 1000)) ] || fail "-mmt$mt: 4 MiB of random bytes packed to $size bytes"
  7zz t r$mt.7z >/dev/null || fail "7zz t r$mt.7z"
  [ "$(7zz x -so r$mt.7z | sha256sum)" = "$want" ] || fail "r$mt.7z content (7zz)"
  [ "$("$FZ7" x -so r$mt.7z | sha256sum)" = "$want" ] || fail "r$mt.7z content (fz7)"
done
"$FZ7" a -bsp0 -mx5 -mmt1 again.7z r.bin >/dev/null || fail "a again.7z"
cmp -s r1.7z again.7z || fail "two -mmt1 runs wrote different archives"

# Random bytes, 256 KiB of text, the same random bytes: the copy is matched.
text_lines 4000 5 | head -c 262144 > t.bin
head -c 1048576 r.bin > r1m.bin
cat r1m.bin t.bin r1m.bin > twice.bin
"$FZ7" a -bsp0 -mx5 -mmt1 twice.7z twice.bin >/dev/null || fail "a twice.7z"
size=$(stat -c %s twice.7z)
[ "$size" -lt 1200000 ] || fail "random bytes seen twice packed to $size bytes (copy not matched)"
[ "$(7zz x -so twice.7z | sha256sum)" = "$(sha256sum < twice.bin)" ] || fail "twice.7z content"
# LZMA chunks that continue the state after stored ones: xz reads them too.
"$FZ7" a -bsp0 -mx5 -mmt1 twice.xz twice.bin >/dev/null || fail "a twice.xz"
[ "$(xz -dc twice.xz | sha256sum)" = "$(sha256sum < twice.bin)" ] || fail "twice.xz content"

# Zeros and a period of 1000 bytes.
head -c $((32 << 20)) /dev/zero > z.bin
head -c 1000 r.bin > p1.bin
for i in $(seq 1 16); do cat p1.bin p1.bin p1.bin p1.bin p1.bin p1.bin p1.bin p1.bin; done > p128.bin
for i in $(seq 1 64); do cat p128.bin; done > p.bin
for f in z p; do
  for lv in 1 5 9; do
    for mt in 1 2; do
      "$FZ7" a -bsp0 -mx$lv -mmt$mt $f$lv$mt.7z $f.bin >/dev/null || fail "a $f$lv$mt.7z"
      size=$(stat -c %s $f$lv$mt.7z)
      [ "$size" -lt 40000 ] || fail "$f.bin -mx$lv -mmt$mt packed to $size bytes"
      [ "$(7zz x -so $f$lv$mt.7z | sha256sum)" = "$(sha256sum < $f.bin)" ] || fail "$f$lv$mt.7z content"
      rm -f $f$lv$mt.7z
    done
  done
done
rm -f ./*.bin ./*.7z ./*.xz
echo "add_store: ok"
