#!/usr/bin/env bash
# interop_xz.sh - files made by xz (presets -0..-9 and -e, multi-threaded
# multi-block, every check type, concatenated streams, --format=lzma)
# extract with `fz7 x` to exactly the input, and `fz7 t` exits 0.
set -u
. "$(dirname "$0")/lib.sh"
t_init xz python3

# 3 MB of mixed data (random, text, zeros), fixed seed.
python3 - input <<'PY'
import random, sys
r = random.Random(11)
out = bytearray()
while len(out) < 3 << 20:
    k, n = r.randrange(3), r.randint(1 << 10, 1 << 16)
    out += r.randbytes(n) if k == 0 else bytes(n) if k == 1 else (b"%d lorem ipsum dolor\n" % r.randrange(1000)) * (n // 20)
open(sys.argv[1], "wb").write(out[:3 << 20])
PY
head -c 300000 input >small

check() { # check FILE.xz EXPECTED_CONTENT_FILE
    local f=$1 want=$2 name why=""
    name=${f%.xz}; name=${name%.lzma}
    rm -rf out
    "$FZ7" x -y -oout "$f" >log 2>&1
    local rc=$?
    if [ $rc != 0 ]; then why="x exit $rc: $(grep -m1 ERROR log)"
    elif [ "$(ls -A out)" != "$name" ]; then why="x made [$(ls -A out | tr '\n' ' ')], want [$name]"
    elif ! cmp -s out/"$name" "$want"; then why="content differs"
    else "$FZ7" t "$f" >log 2>&1 || why="t exit $?"
    fi
    if [ -z "$why" ]; then ok; else bad "$f: $why"; fi
}

for p in 0 1 2 3 4 5 6 7 8 9; do
    xz -$p -c small >p$p.xz && check p$p.xz small
done
xz -0e -c small >p0e.xz && check p0e.xz small
xz -6e -c input >p6e.xz && check p6e.xz input
xz -9e -c small >p9e.xz && check p9e.xz small
xz -T2 --block-size=1MiB -3 -c input >mt.xz && check mt.xz input
for c in none crc32 crc64 sha256; do
    xz --check=$c -3 -c small >check_$c.xz && check check_$c.xz small
done
xz -1 -c small >a.part && xz -1 -c input >b.part && cat a.part b.part >cat.xz
cat small input >cat.want && check cat.xz cat.want
xz --format=lzma -6 -c small >alone.lzma && check alone.lzma small
xz --format=lzma -1 -c input >alone2.lzma && check alone2.lzma input
: >empty && xz -c empty >empty.xz && check empty.xz empty
xz --x86 --lzma2=preset=3 -c small >bcj.xz && check bcj.xz small
xz --delta=dist=4 --lzma2=preset=3 -c small >delta.xz && check delta.xz small

t_summary interop_xz.sh
