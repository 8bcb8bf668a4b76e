#!/usr/bin/env bash
# fat.sh - FAT12, FAT16 and FAT32 images, made here by mkfs.fat and mtools
# (no mount), read as 7zz reads them: `l`, `l -slt`, `l -ba`, `t`, `x` and
# `e` give 7zz's lines (after the banner) and exit code, and `x`/`e` the
# same files (bytes, mtimes, read-only bits). Covers long names (UTF-8
# beyond ASCII, 255 units), lower-case 8.3 names, a label and none, deleted
# files and folders, folders of many clusters, 4 KiB sectors, big
# clusters, attributes, a tail, images cut short, and damaged chains and
# folders (loops, free or out-of-range clusters), a long name "../x"
# that must not leave the output folder, and FAT partitions of MBR disks.
set -u
. "$(dirname "$0")/lib.sh"
t_init 7zz mkfs.fat mcopy mmd mdel mattrib python3

export LC_ALL=C.UTF-8 TZ=UTC MTOOLS_SKIP_CHECK=1

# Every file and folder under a folder with type, mode, size (files),
# mtime and SHA-256 (the output folder's own mtime, the time of the run,
# left out).
tree_sig() {
    (cd "$1" && { find . -mindepth 1 -type d -printf '%y %m %T@ %p\n'
                  find . -mindepth 1 ! -type d -printf '%y %m %s %T@ %p\n'; } | sort &&
        find . -type f -exec sha256sum {} + | sort -k2)
}

# The tree: long names beyond ASCII, a name of 255 characters, an 8.3
# name in lower case, nested folders, an empty file and folder, a file of
# exactly one cluster and one of several, old mtimes.
mkdir -p src/sub/deeper src/emptydir src/Two/Three
python3 - <<'PY'
import random
r = random.Random(11)
open('src/sub/rand.bin', 'wb').write(bytes(r.getrandbits(8) for _ in range(70000)))
open('src/one_cluster.bin', 'wb').write(b'c' * 2048)
open('src/Long File Name With Spaces.txt', 'w').write('spaces\n')
open('src/caf\u00e9 \u65e5\u672c.txt', 'w').write('unicode\n')
open('src/' + 'n' * 251 + '.txt', 'w').write('longest\n')
open('src/Two/Three/deep.txt', 'w').write('deep\n')
open('src/Two/x.TXT', 'w').write('x\n')
PY
printf 'hello\n' >src/a.txt
printf 'upper\n' >src/sub/deeper/UPPER.TXT
printf 'Mixed\n' >src/MixedCase.Txt
: >src/empty
touch -d '2020-03-04 05:06:08' src/a.txt src/sub/rand.bin
touch -d '1999-12-31 23:59:58' src/Two/x.TXT

# mkfs.fat SIZE_KB NAME ARGS...: an image holding src
mk() {
    local kb=$1 out=$2; shift 2
    rm -f "$out"
    mkfs.fat -C "$@" "$out" "$kb" >/dev/null 2>&1 && mcopy -i "$out" -s -m src/* ::/ 2>/dev/null
}
mk 2048 f12.img -F 12 -n MYLABEL -i 12345678
mk 20000 f16.img -F 16 -n "VOL 16" -i 0BADCAFE
mk 40000 f32.img -F 32 -i DEADBEEF
mk 40000 f16_2k.img -F 16 -S 2048 -s 1 -n BIGSECT
rm -f f32_4k.img && mkfs.fat -C -F 32 -S 4096 -s 1 -n EMPTY32 f32_4k.img 40000 >/dev/null 2>&1
mk 8192 f12_bigcl.img -F 12 -s 64
mk 2048 nolabel.img -F 12 -i 1

# Deleted files and folders (their long-name entries too), a file added
# after them into the freed entries, attributes.
cp f16.img del.img
mdel -i del.img '::/Long File Name With Spaces.txt' ::/a.txt
mdel -i del.img -s ::/Two 2>/dev/null || { mdel -i del.img ::/Two/Three/deep.txt ::/Two/x.TXT; \
    mrd -i del.img ::/Two/Three ::/Two 2>/dev/null; }
printf 'after\n' >after.txt && mcopy -i del.img after.txt ::/
mattrib -i del.img +r ::/MixedCase.Txt
mattrib -i del.img +h +s ::/empty

# Many files: a root folder of many clusters (FAT32) and a fixed root
# nearly full (FAT16), names of several long-name entries each.
mkdir -p many/d
python3 -c "
for i in range(400):
    open('many/d/file_number_%04d_with_a_long_name.txt' % i, 'w').write('x' * (i % 50))
for i in range(200):
    open('many/r%03d' % i, 'w').write(str(i))"
rm -f many32.img many16.img
mkfs.fat -C -F 32 -s 1 many32.img 40000 >/dev/null 2>&1 && mcopy -i many32.img -s many/* ::/
mkfs.fat -C -F 16 -r 224 many16.img 20000 >/dev/null 2>&1 && mcopy -i many16.img -s many/r1* ::/ 2>/dev/null

for f in f12.img f16.img f32.img f16_2k.img f32_4k.img f12_bigcl.img nolabel.img del.img many32.img many16.img; do
    image_vs_7zz "$f" vs_7zz
done
vs_7zz l -tFAT f16.img
# FAT keeps local time: listed as stored and set on the files as local
# time, as 7zz does, in a zone other than UTC.
TZ=America/New_York vs_7zz l -slt f12.img
TZ=America/New_York same_files f12.img
vs_7zz t -tFAT f32.img

# Exact values beside the comparison.
"$FZ7" l -slt f12.img >out.txt 2>&1
same "f12 File System" "$(grep -m1 '^File System = ' out.txt)" "File System = FAT12"
same "f12 Label" "$(grep -m1 '^Label = ' out.txt)" "Label = MYLABEL"
same "f12 ID" "$(grep -m1 '^ID = ' out.txt)" "ID = $((0x12345678))"
same "f12 a.txt short name" "$(grep -A8 '^Path = a.txt$' out.txt | grep '^Short Name')" "Short Name = a.txt"
same "f12 a.txt mtime" "$(grep -A4 '^Path = a.txt$' out.txt | grep '^Modified')" "Modified = 2020-03-04 05:06:08"
same "f32 File System" "$("$FZ7" l -slt f32.img | grep -m1 '^File System = ')" "File System = FAT32"
same "f16_2k Sector Size" "$("$FZ7" l -slt f16_2k.img | grep -m1 '^Sector Size = ')" "Sector Size = 2048"
same "del: a.txt gone" "$("$FZ7" l -ba del.img | grep -c ' a.txt$')" "0"
rm -rf wf && "$FZ7" x f16.img -owf >/dev/null 2>&1
same "x rand.bin" "$(sha256sum <wf/sub/rand.bin)" "$(sha256sum <src/sub/rand.bin)"
same "x unicode name" "$(cat 'wf/café 日本.txt')" "unicode"
same "x 255-unit name" "$(cat wf/nnnnnnnnnn*.txt)" "longest"
same "x mtime" "$(stat -c %Y wf/a.txt)" "$(stat -c %Y src/a.txt)"
rm -rf wf && "$FZ7" x del.img -owf >/dev/null 2>&1
same "x read-only" "$(stat -c %A wf/MixedCase.Txt | cut -c3)" "-"

# Damaged images, made from f16.img by the boot sector's numbers.
python3 - <<'PY'
import struct
src = open('f16.img', 'rb').read()
bps, spc = struct.unpack_from('<H', src, 11)[0], src[13]
res, nf, rde = struct.unpack_from('<H', src, 14)[0], src[16], struct.unpack_from('<H', src, 17)[0]
fsz = struct.unpack_from('<H', src, 22)[0] * bps
fat, root = res * bps, (res + nf * fsz // bps) * bps
data, cs = root + rde * 32, bps * spc
def entries(d, off, n):
    out = {}
    for i in range(n):
        e = d[off + 32 * i: off + 32 * i + 32]
        if e[0] == 0:
            break
        if e[11] & 0x3F == 0x0F or e[0] == 0xE5 or e[11] & 8:
            continue
        out[e[:11].decode('latin-1').rstrip()] = (off + 32 * i, struct.unpack_from('<H', e, 26)[0])
    return out
def setfat(d, c, v):
    for k in range(nf):
        struct.pack_into('<H', d, fat + k * fsz + 2 * c, v)
coff = lambda c: data + (c - 2) * cs
top = entries(src, root, rde)
f_at, f_cl = top['A       TXT']
d_at, d_cl = top['SUB']
r_at, r_cl = entries(src, coff(d_cl), cs // 32)['RAND    BIN']
def w(name, edit):
    d = bytearray(src)
    edit(d)
    open(name, 'wb').write(d)
w('chain_free.img', lambda d: setfat(d, f_cl, 0))
w('chain_loop.img', lambda d: setfat(d, r_cl, r_cl))
w('chain_short.img', lambda d: setfat(d, r_cl, 0xFFFF))
w('size_big.img', lambda d: struct.pack_into('<I', d, f_at + 28, 5000))
w('start_oor.img', lambda d: struct.pack_into('<H', d, f_at + 26, 65000))
w('start_zero.img', lambda d: struct.pack_into('<H', d, f_at + 26, 0))
w('dir_loop.img', lambda d: setfat(d, d_cl, d_cl))
w('dir_free.img', lambda d: setfat(d, d_cl, 0))
w('dir_zero.img', lambda d: struct.pack_into('<H', d, d_at + 26, 0))
w('dir_oor.img', lambda d: struct.pack_into('<H', d, d_at + 26, 65000))
deeper = entries(src, coff(d_cl), cs // 32)['DEEPER'][0]
w('dir_cycle.img', lambda d: struct.pack_into('<H', d, deeper + 26, d_cl))
w('nosig.img', lambda d: d.__setitem__(510, 0))
w('bad_lfn_sum.img', lambda d: d.__setitem__(root + 32 + 13, src[root + 32 + 13] ^ 1))
w('no_times.img', lambda d: d.__setitem__(slice(f_at + 13, f_at + 26), bytes(13)))
# times 7zz lists blank (second 60, minute 60, hour 24, all bits set) or
# rolls over (February 31st, 2107), hundredths past a second (150, 250)
def when(t=None, dt=None, tenth=None):
    def edit(d):
        if t is not None:
            struct.pack_into('<H', d, f_at + 22, t)
        if dt is not None:
            struct.pack_into('<H', d, f_at + 24, dt)
        if tenth is not None:
            d[f_at + 13] = tenth
    return edit
w('t_sec60.img', when(t=10 << 11 | 5 << 5 | 30))
w('t_min60.img', when(t=10 << 11 | 60 << 5 | 1))
w('t_hour24.img', when(t=24 << 11 | 5 << 5 | 1))
w('t_ones.img', when(t=0xFFFF))
w('t_feb31.img', when(dt=40 << 9 | 2 << 5 | 31))
w('t_2107.img', when(dt=127 << 9 | 12 << 5 | 31, t=23 << 11 | 59 << 5 | 29))
w('t_tenth150.img', when(tenth=150))
w('t_tenth250.img', when(tenth=250))
open('tail.img', 'wb').write(src + b'tail bytes')
open('cut_half.img', 'wb').write(src[:len(src) // 2])
open('cut_fat.img', 'wb').write(src[:root - 100])
open('cut_root.img', 'wb').write(src[:data + 10])
open('cut_file.img', 'wb').write(src[:coff(r_cl) + 3000])
PY
for f in t_sec60 t_min60 t_hour24 t_ones t_feb31 t_2107 t_tenth150 t_tenth250; do
    vs_7zz l -slt "$f.img"
done
for f in chain_free chain_loop chain_short size_big start_oor start_zero dir_loop dir_free dir_zero dir_oor \
         dir_cycle nosig bad_lfn_sum no_times tail cut_half cut_fat cut_root cut_file; do
    vs_7zz l "$f.img"
    vs_7zz l -slt "$f.img"
    vs_7zz_d t "$f.img"
    vs_7zz_d e -y "$f.img" -ow7
    # x: the same files, but for one difference: a file failed before
    # any byte (a chain that does not fit) 7zz leaves empty, fz7 leaves
    # none (as for every format), so those compare the other files.
    rm -rf w7 wf
    7zz x "$f.img" -ow7 >/dev/null 2>&1
    "$FZ7" x "$f.img" -owf >/dev/null 2>&1
    # (deleting those changes their folder's mtime: folders' mtimes left out)
    [ -d w7 ] && find w7 -type f -empty ! -name empty -delete
    same "x $f: files" "$(tree_sig wf 2>/dev/null | sed 's/^\(d [0-7]*\) [0-9.]*/\1/' | sort)" \
        "$(tree_sig w7 2>/dev/null | sed 's/^\(d [0-7]*\) [0-9.]*/\1/' | sort)"
done

# A long name "../evil" (its first units rewritten, checksum kept): the
# listing as 7zz's, and nothing written outside the output folder.
mkdir -p trav && printf 'x\n' >'trav/abcdefgh evil.txt'
rm -f trav.img && mkfs.fat -C -F 12 trav.img 1024 >/dev/null 2>&1 && mcopy -i trav.img trav/* ::/
python3 - <<'PY'
d = bytearray(open('trav.img', 'rb').read())
i = d.find('abcde'.encode('utf-16-le'))
d[i:i + 10] = '../..'.encode('utf-16-le')
open('trav.img', 'wb').write(d)
PY
vs_7zz l trav.img

# Units past the BMP (a surrogate pair, which mcopy does not write) and a
# lone surrogate, put into long names in place of ASCII units.
mkdir -p sur && printf 'p\n' >'sur/abcdefgh pair.txt' && printf 'l\n' >'sur/ijklmnop lone.txt'
rm -f sur.img && mkfs.fat -C -F 12 sur.img 1024 >/dev/null 2>&1 && mcopy -i sur.img sur/* ::/
python3 - <<'PY'
d = bytearray(open('sur.img', 'rb').read())
i = d.find('ab'.encode('utf-16-le'))
d[i:i + 4] = '\U0001F600'.encode('utf-16-le')
i = d.find('ij'.encode('utf-16-le'))
d[i:i + 2] = b'\x00\xd8'
open('sur.img', 'wb').write(d)
PY
vs_7zz l -slt sur.img
same_files sur.img
mkdir -p jail && cd jail || exit 1
rm -rf wf ../evil* ../../evil*
"$FZ7" x ../trav.img -owf -y >/dev/null 2>&1
same "x ../ stays inside" "$(ls .. ../.. | grep -c 'evil')" "0"
same "x ../ written" "$(find wf -type f | wc -l)" "1"
cd .. || exit 1

# Not FAT: the signature alone, and a boot sector with a bad sector size.
python3 -c "
d = bytearray(1024); d[0:3] = b'\xeb\x3c\x90'; d[510:512] = b'\x55\xaa'
open('sig_only.img', 'wb').write(d)
d = bytearray(open('f12.img', 'rb').read()); d[11:13] = (300).to_bytes(2, 'little')
open('bad_sector.img', 'wb').write(d)"
vs_7zz l sig_only.img
vs_7zz t bad_sector.img
vs_7zz l -tFAT src/a.txt

# MBR disks (7zz's Type = MBR), their tables written here: one FAT
# partition (opened in the disk's place, as 7zz opens it) of a type 7zz
# names and one it does not, with the bytes after it; partitions it lists
# (named by type: 0.fat, 1.img, 2); a primary FAT16-LBA and an extended
# chain of two logical ones; a disk signature 0; an extended partition
# holding a FAT boot sector (no chain: listed as it is); tables 7zz
# refuses (out of order, a bad status byte, a start or length of 0); a
# partition past the end of the file (Unexpected end of data).
rm -f part.img && mkfs.fat -C -F 12 -n PART1 part.img 2048 >/dev/null 2>&1 && mcopy -i part.img -s src/a.txt src/sub ::/
python3 - <<'PY'
import struct
p = open('part.img', 'rb').read()
n = len(p) // 512
def disk(name, parts, sig=b'\x12\x34\x56\x78', tail=65536, edit=None):
    mbr = bytearray(512); mbr[440:444] = sig; mbr[510:512] = b'\x55\xaa'
    end, blobs = 1 << 20, []
    for i, (t, start, blob) in enumerate(parts):
        if isinstance(blob, int):
            blob = bytes(blob * 512)
        struct.pack_into('<B3sB3sII', mbr, 446 + 16 * i, 0x80 if i == 0 else 0, b'\x20\x21\x00', t,
                         b'\xfe\xff\xff', start, len(blob) // 512)
        blobs.append((start * 512, blob))
        end = max(end, start * 512 + len(blob))
    d = bytearray(end + tail); d[0:512] = mbr
    for o, b in blobs:
        d[o:o + len(b)] = b
    if edit:
        edit(d)
    open(name, 'wb').write(d)
disk('mbr_fat.img', [(0x01, 2048, p)])
disk('mbr_linux.img', [(0x83, 2048, p)], tail=0)
disk('mbr_two.img', [(0x06, 2048, p), (0x83, 2048 + n + 100, 16), (0x07, 2048 + n + 200, 8)])
disk('mbr_zeros.img', [(0xA6, 2048, 16)])
disk('mbr_sig0.img', [(0x0B, 2048, p), (0x8E, 2048 + n, 8)], sig=bytes(4))
disk('mbr_extfat.img', [(0x05, 2048, p)])
disk('mbr_order.img', [(0x83, 4096, 8), (0x06, 2048, 8)])
disk('mbr_status.img', [(0x83, 2048, 8)], edit=lambda d: d.__setitem__(446, 0x12))
disk('mbr_lba0.img', [(0x83, 2048, 8)], edit=lambda d: struct.pack_into('<I', d, 446 + 8, 0))
disk('mbr_len0.img', [(0x83, 2048, 8)], edit=lambda d: struct.pack_into('<I', d, 446 + 12, 0))
disk('mbr_past.img', [(0x83, 2048, 8)], edit=lambda d: struct.pack_into('<I', d, 446 + 12, 100000))
# A primary FAT16-LBA, then an extended partition whose first record holds
# the FAT image and points to a second record, which holds 8 KiB.
def ent(buf, i, status, t, lba, cnt):
    struct.pack_into('<B3sB3sII', buf, 446 + 16 * i, status, b'\x01\x01\x00', t, b'\xfe\x3f\x10', lba, cnt)
ext, ext_len = 2048 + n + 2048, 2048 + n + 2048 + 16
mbr = bytearray(512); mbr[510:512] = b'\x55\xaa'; mbr[440:444] = b'\xde\xad\xbe\xef'
ent(mbr, 0, 0x80, 0x0E, 2048, n)
ent(mbr, 1, 0, 0x0F, ext, ext_len)
e1 = bytearray(512); e1[510:512] = b'\x55\xaa'
ent(e1, 0, 0, 0x01, 2048, n)
ent(e1, 1, 0, 0x05, 2048 + n, 2048 + 16)
e2 = bytearray(512); e2[510:512] = b'\x55\xaa'
ent(e2, 0, 0, 0x83, 2048, 16)
d = bytearray((ext + ext_len) * 512 + 4096); d[0:512] = mbr
d[2048 * 512:2048 * 512 + len(p)] = p
d[ext * 512:ext * 512 + 512] = e1
d[(ext + 2048) * 512:(ext + 2048) * 512 + len(p)] = p
d[(ext + 2048 + n) * 512:(ext + 2048 + n) * 512 + 512] = e2
open('mbr_logical.img', 'wb').write(d)
PY
for f in mbr_fat mbr_linux mbr_two mbr_zeros mbr_sig0 mbr_extfat mbr_logical; do
    image_vs_7zz "$f.img" vs_7zz
done
for f in mbr_order mbr_status mbr_lba0 mbr_len0 mbr_past; do
    vs_7zz l "$f.img"
    vs_7zz_d t "$f.img"
done
vs_7zz_d x -y mbr_past.img -ow7
vs_7zz l -tMBR mbr_two.img
# .fat names the type 7zz tries first, .mbr does not (7zz: no [MBR] lines)
cp src/a.txt not.fat && cp src/a.txt not.mbr && cp f12.img f12.mbr && cp mbr_two.img two.fat
for f in not.fat not.mbr f12.mbr two.fat; do vs_7zz l "$f"; vs_7zz t "$f"; done
"$FZ7" l -slt mbr_two.img >out.txt 2>&1
same "mbr_two names" "$(grep '^Path = ' out.txt | tail -n +2 | tr '\n' ' ')" \
    "Path = 0.fat Path = 1.img Path = 2.img Path = 3 "
same "mbr_two 7" "$(grep -A2 '^Path = 2.img' out.txt | grep '^File System')" "File System = 7"
same "mbr_fat opens FAT" "$("$FZ7" l -ba mbr_fat.img | grep -c ' sub/rand.bin$')" "1"

t_summary fat.sh
