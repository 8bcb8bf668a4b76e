#!/usr/bin/env bash
# squashfs.sh - SquashFS 4.0 images, made here by mksquashfs, read as 7zz
# reads them: `l`, `l -slt`, `l -ba`, `t`, `x` and `e` give 7zz's lines
# (after the banner) and exit code, and `x`/`e` the same files (bytes,
# modes, mtimes, links). Covers gzip, lzma, xz, zstd and lzo images
# (lzo when liblzo2 is installed: the build then links it), small blocks,
# no fragments / fragments always, uncompressed tables, forced ids, a
# hole, a hard link, a fifo, a UTF-8 name, a tail, no padding, images cut
# short, damaged data blocks (7zz's Data Error), lz4 (refused by both:
# E_NOTIMPL), lzo without liblzo2 (7zz reads it, fz7 refuses it as lz4) and a name
# "../evil" that must not leave the output folder.
set -u
. "$(dirname "$0")/lib.sh"
t_init 7zz mksquashfs python3

export LC_ALL=C.UTF-8 TZ=UTC

# Every file under a folder with type, mode, size, mtime and SHA-256 (a
# folder's size, which depends on how its names were made, left out).
tree_sig() {
    (cd "$1" && { find . -mindepth 1 -type d -printf '%y %m %T@ %p\n'
                  find . -mindepth 1 ! -type d -printf '%y %m %s %T@ %p %l\n'; } | sort &&
        find . -type f -exec sha256sum {} + | sort -k2)
}

# The tree: modes, an old mtime, blocks that do and do not compress, a
# file of whole blocks, an empty file and folder, links, a hole, a fifo.
mkdir -p src/d/e src/emptydir src/d2/sub
python3 - <<'PY'
import random
r = random.Random(7)
open('src/d/rand.bin', 'wb').write(bytes(r.getrandbits(8) for _ in range(300000)))
open('src/d/e/seq.txt', 'w').write(''.join('%d\n' % i for i in range(50000)))
open('src/d2/whole.bin', 'wb').write(b'ab' * 65536)
with open('src/d2/sub/hole.bin', 'wb') as f:   # a block of zeros only: stored as a hole
    f.seek(262144)
    f.write(b'end of the hole\n')
open('src/\u00fc.txt', 'w').write('umlaut\n')
PY
printf 'hello\n' >src/a.txt
chmod 600 src/a.txt
touch src/empty
ln -s a.txt src/link
ln -s hole.bin src/d2/sub/near
ln src/a.txt src/d2/hard
mkfifo src/fifo 2>/dev/null || echo "note: no mkfifo, the fifo case skipped"
touch -d '2020-01-02 03:04:05' src/a.txt
touch -d '2021-05-06 07:08:09' src/d/e src/d2/sub
touch -h -d '2022-01-01 00:00:00' src/link

mk() { local out=$1; shift; mksquashfs src "$out" -noappend -quiet "$@" >/dev/null 2>&1; }
mk gz.squashfs
mk xz.squashfs -comp xz
mk zst.squashfs -comp zstd
mk small.squashfs -b 4096
mk nofrag.squashfs -no-fragments
mk allfrag.squashfs -always-use-fragments
mk plain.squashfs -noI -noD -noF -noX
mk ids.squashfs -force-uid 1000 -force-gid 1001 -nopad
mk lz4.squashfs -comp lz4
mk lzo.squashfs -comp lzo
mk lzo999.squashfs -comp lzo -Xalgorithm lzo1x_999 -Xcompression-level 5   # (a compressor options block)
mk lzma.squashfs -comp lzma
mk lzma_small.squashfs -comp lzma -b 4096 -always-use-fragments
pkg-config --exists lzo2 2>/dev/null && have_lzo=1 || have_lzo=0

good=(gz.squashfs xz.squashfs zst.squashfs small.squashfs nofrag.squashfs allfrag.squashfs plain.squashfs ids.squashfs
      lzma.squashfs lzma_small.squashfs)
[ "$have_lzo" = 1 ] && good+=(lzo.squashfs lzo999.squashfs)
for f in "${good[@]}"; do
    [ -s "$f" ] || { bad "mksquashfs did not make $f"; continue; }
    vs_7zz l "$f"
    vs_7zz l -slt "$f"
    vs_7zz l -ba "$f"
    vs_7zz t "$f"
    same_files "$f"
done
vs_7zz l -tSquashFS gz.squashfs
vs_7zz t -tSquashFS ids.squashfs

# Many files: inode and folder tables of several metadata blocks, a
# folder listing past 8 KiB (an extended folder inode with an index), 8 KiB
# data blocks; and a name that is no UTF-8 (7zz: Code Page = OEM).
mkdir -p many/big many/n1
python3 - <<'PY'
import os
for i in range(2500):
    open('many/big/file_%05d_with_a_longer_name.txt' % i, 'w').write('x' * (i % 300))
for i in range(50):
    os.makedirs('many/n1/d%02d/sub' % i, exist_ok=True)
    open('many/n1/d%02d/sub/f' % i, 'w').write(str(i))
os.makedirs('nonutf8')
open(b'nonutf8/bad\xffname', 'w').write('a\n')
PY
mksquashfs many many.squashfs -noappend -quiet >/dev/null 2>&1
mksquashfs many many_xz.squashfs -noappend -quiet -comp xz -b 8192 >/dev/null 2>&1
mksquashfs nonutf8 nonutf8.squashfs -noappend -quiet >/dev/null 2>&1
for f in many.squashfs many_xz.squashfs nonutf8.squashfs; do
    vs_7zz l -slt "$f"
    vs_7zz t "$f"
    same_files "$f"
done
# Devices and a socket (mknod needs root: skipped without it).
mkdir -p devs
if mknod devs/c c 1 3 2>/dev/null && mknod devs/b b 7 0 2>/dev/null; then
    python3 -c "import socket; socket.socket(socket.AF_UNIX).bind('devs/sock')"
    mksquashfs devs devs.squashfs -noappend -quiet >/dev/null 2>&1
    vs_7zz l -slt devs.squashfs
    same_files devs.squashfs
else
    echo "note: no mknod (not root), the device case skipped"
fi
same "nonutf8 code page" "$("$FZ7" l -slt nonutf8.squashfs | grep '^Code Page')" "Code Page = OEM"

# An exact check of a few values beside the comparison.
"$FZ7" l -slt gz.squashfs >out.txt 2>&1
same "gz Method" "$(grep -m1 '^Method = ' out.txt)" "Method = ZLIB"
same "gz a.txt mode" "$(grep -A6 '^Path = a.txt$' out.txt | grep '^Mode')" "Mode = -rw-------"
same "ids user" "$("$FZ7" l -slt ids.squashfs | grep -m1 '^User ID')" "User ID = 1000"
rm -rf wf && "$FZ7" x gz.squashfs -owf >/dev/null 2>&1
same "x link" "$(readlink wf/link)" "a.txt"
same "x seq" "$(sha256sum <wf/d/e/seq.txt)" "$(sha256sum <src/d/e/seq.txt)"
same "x hole" "$(cmp wf/d2/sub/hole.bin src/d2/sub/hole.bin && echo same)" "same"
same "x mtime" "$(stat -c %Y wf/a.txt)" "$(stat -c %Y src/a.txt)"

# A tail, and images cut in their padding, their tables and their data.
cp gz.squashfs tail.squashfs && printf 'garbage' >>tail.squashfs
size=$(stat -c %s ids.squashfs)
head -c $((size - 1)) ids.squashfs >cut_tables.squashfs
head -c 100000 gz.squashfs >cut_data.squashfs
head -c $(($(stat -c %s gz.squashfs) - 100)) gz.squashfs >cut_pad.squashfs
head -c 100 gz.squashfs >cut_super.squashfs
for f in tail.squashfs cut_tables.squashfs cut_data.squashfs cut_pad.squashfs cut_super.squashfs; do
    vs_7zz l "$f"
    vs_7zz t "$f"
done
vs_7zz l -slt tail.squashfs
same_files tail.squashfs

# Damaged data blocks: a byte flipped in seq.txt (written first, right
# after the superblock) in its first block, and for gzip and xz 70% in
# (its last block: the blocks before it are kept, as 7zz keeps them).
# Two differences are left out: a file of which nothing decodes 7zz
# leaves empty, fz7 leaves none (as for every format), so the first case
# compares messages only; and libzstd takes some flipped bytes that 7zz's
# own zstd decoder refuses (SquashFS's zstd frames carry no checksum).
damaged=(gz xz zst lzma)
[ "$have_lzo" = 1 ] && damaged+=(lzo)
for f in "${damaged[@]}"; do
    packed=$(7zz l -slt "$f.squashfs" | awk '/^Path = d\/e\/seq.txt$/ {f = 1} f && /^Packed Size/ {print $4; exit}')
    python3 -c "
d = bytearray(open('$f.squashfs', 'rb').read()); d[2000] ^= 0x55
open('bad0_$f.squashfs', 'wb').write(d)
d = bytearray(open('$f.squashfs', 'rb').read()); d[96 + $packed * 7 // 10] ^= 0x55
open('bad_$f.squashfs', 'wb').write(d)"
    vs_7zz_d t "bad0_$f.squashfs"
    vs_7zz_d e -y "bad0_$f.squashfs" -ow7
    [ "$f" = zst ] && continue
    vs_7zz_d t "bad_$f.squashfs"
    vs_7zz_d e -y "bad_$f.squashfs" -ow7
    rm -rf w7 wf
    7zz x "bad_$f.squashfs" -ow7 >/dev/null 2>&1
    "$FZ7" x "bad_$f.squashfs" -owf >/dev/null 2>&1
    same "x bad_$f: files" "$(tree_sig wf)" "$(tree_sig w7)"
done

# A zlib block that unpacks to more than a block (4 KiB file, 8 KiB
# stream; uncompressed tables so the block's size word can be set): 7zz's
# E_FAIL, which ends the archive: the same lines and exit code (7zz keeps
# the 4 KiB it wrote before the failure; fz7 keeps nothing).
mkdir -p over && head -c 4096 /dev/zero | tr '\0' a >over/f
mksquashfs over over.squashfs -noappend -quiet -b 4096 -noI -noD -noF -noX -no-fragments >/dev/null 2>&1
python3 - <<'PY'
import struct, zlib
d = bytearray(open('over.squashfs', 'rb').read())
ino = struct.unpack('<Q', d[64:72])[0] + 2      # the inode table's one stored block
new = zlib.compress(b'a' * 8192)
for pos in range(ino, len(d) - 36):             # the file's inode: type 2, one block
    if struct.unpack('<H', d[pos:pos + 2])[0] == 2 and struct.unpack('<I', d[pos + 28:pos + 32])[0] == 4096:
        start = struct.unpack('<I', d[pos + 16:pos + 20])[0]
        old = struct.unpack('<I', d[pos + 32:pos + 36])[0] & 0xFFFFFF
        assert len(new) <= old
        d[start:start + len(new)] = new
        d[pos + 32:pos + 36] = struct.pack('<I', len(new))
        break
open('over.squashfs', 'wb').write(d)
PY
vs_7zz t over.squashfs
vs_7zz_d x over.squashfs -ow7
"$FZ7" t over.squashfs >out.txt 2>err.txt
same "over.squashfs: E_FAIL" "$(grep -c '^ERROR: E_FAIL : Unspecified error$' err.txt)" "1"
cp over.squashfs over_tail.squashfs && printf 'tail' >>over_tail.squashfs
vs_7zz t over_tail.squashfs

# lz4: neither reads it (E_NOTIMPL at open, exit 2).
for c in l t x; do vs_7zz "$c" lz4.squashfs -ow7; done
# lzo without liblzo2: 7zz reads it; fz7 has no LZO decoder and says so
# as for lz4.
if [ "$have_lzo" = 0 ]; then
    expect_rc 2 "l lzo" "$FZ7" l lzo.squashfs
    same "l lzo stderr" "$(cat err.txt)" "$(printf '\nERROR: lzo.squashfs : opening : E_NOTIMPL : Not implemented\n\n\nSystem ERROR:\nE_NOTIMPL : Not implemented')"
    expect_rc 2 "t lzo" "$FZ7" t lzo.squashfs
    same "t lzo stderr" "$(cat err.txt)" "$(printf 'ERROR: lzo.squashfs\nCannot open the file as archive\n\nE_NOTIMPL : Not implemented')"
fi

# A name "../evil" (uncompressed folder table, one byte of a name
# changed): nothing may be written outside the output folder.
mkdir -p trav/in && printf 'x\n' >'trav/in/..Xevil'
mksquashfs trav/in trav.squashfs -noappend -quiet -noI -noD -noF -noX >/dev/null 2>&1
python3 - <<'PY'
d = bytearray(open('trav.squashfs', 'rb').read())
i = d.rfind(b'..Xevil')
d[i + 2] = ord('/')
open('trav.squashfs', 'wb').write(d)
PY
mkdir -p jail && cd jail || exit 1
rm -rf w7 wf ../evil
"$FZ7" x ../trav.squashfs -owf -y >/dev/null 2>&1
same "x ../evil stays inside" "$([ -e ../evil ] || [ -e evil ] && echo escaped || echo inside)" "inside"
same "x ../evil written" "$(find wf -type f | wc -l)" "1"
cd .. || exit 1
vs_7zz l trav.squashfs

# Not SquashFS: the magic and nothing else.
printf 'hsqs' >magic.squashfs && head -c 200 /dev/zero >>magic.squashfs
vs_7zz l magic.squashfs
vs_7zz l -tSquashFS src/a.txt

t_summary squashfs.sh
