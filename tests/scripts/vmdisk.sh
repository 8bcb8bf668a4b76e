#!/usr/bin/env bash
# vmdisk.sh - virtual machine disk images read as 7zz reads them: `l`,
# `l -slt`, `l -ba`, `t`, `x` and `e` give 7zz's lines (after the banner)
# and exit codes, and `x`/`e` the same files. Images made by qemu-img
# from raw disks made here: an MBR disk and a GPT disk holding a FAT
# volume (7zz opens the image, the table and the FAT one inside another),
# a bare FAT volume, a disk of zeros, a disk of random bytes with holes
# (its bytes as one entry, "name.img", equal to qemu-img's own raw
# conversion). VHD: fixed and dynamic, footers and headers changed here
# by Python with their checksums redone (creator, host OS, saved state),
# a block past the end of the file, the file cut short (listed with
# 7zz's "Unexpected end of archive"), a fixed disk with bytes after it.
# VDI: normal and fixed, headers edited (types, a linked disk, a cut
# file). QCOW versions 1 to 3, compressed or not, and VMDK monolithic
# sparse images, damaged too (see below). And the rows of `fz7 i`. Needs 7zz and qemu-img: without them it is
# skipped (exit 77), as it proves nothing then.
set -u
. "$(dirname "$0")/lib.sh"
t_init 7zz qemu-img sfdisk sgdisk mkfs.fat mcopy python3

export LC_ALL=C.UTF-8 TZ=UTC MTOOLS_SKIP_CHECK=1

# raw_vs_qemu FORMAT IMAGE...: x of each image writes qemu-img's raw disk
raw_vs_qemu() {
    local fmt=$1 f
    shift
    for f in "$@"; do
        rm -rf wf
        "$FZ7" x "$f" -owf >/dev/null 2>&1
        qemu-img convert -f "$fmt" -O raw "$f" want.raw
        if cmp -s want.raw "wf/${f%.*}.img"; then ok; else bad "x $f: not qemu-img's raw disk"; fi
    done
}
list_vs() {
    vs_7zz l "$1"
    vs_7zz l -slt "$1"
    vs_7zz l -ba "$1"
}

# A FAT volume of a few files, and raw disks that hold it.
printf 'hello vm\n' >a.txt
head -c 300000 /dev/urandom >b.bin
touch -d '2021-02-03 04:05:06' a.txt b.bin
mkfs.fat -C -i 12345678 part.fat 4096 >/dev/null || bad "mkfs.fat failed"
mcopy -m -i part.fat a.txt b.bin ::/ && mmd -i part.fat ::/sub && mcopy -m -i part.fat a.txt ::/sub/c.txt ||
    bad "mcopy failed"
truncate -s 8M mbr.raw
printf 'label: dos\nlabel-id: 0x12345678\nstart=2048, size=8192, type=6\n' | sfdisk -q mbr.raw || bad "sfdisk failed"
dd if=part.fat of=mbr.raw bs=512 seek=2048 conv=notrunc status=none
truncate -s 6M gpt.raw
sgdisk -U 11111111-2222-3333-4444-555555555555 -n1:2048:+4M -t1:0700 \
    -u1:AAAAAAAA-0000-0000-0000-000000000001 gpt.raw >/dev/null || bad "sgdisk failed"
dd if=part.fat of=gpt.raw bs=512 seek=2048 conv=notrunc status=none
head -c 3000000 /dev/zero >zeros.raw
# random bytes with a hole of zeros over a whole 2 MiB block (dynamic VHD:
# no block allocated for it)
{ head -c 1000000 /dev/urandom; head -c 4194304 /dev/zero; head -c 1000000 /dev/urandom; } >holes.raw

for d in mbr gpt zeros holes; do
    qemu-img convert -f raw -O vpc "$d.raw" "$d-dyn.vhd" || bad "qemu-img vpc $d"
    qemu-img convert -f raw -O vpc -o subformat=fixed "$d.raw" "$d-fix.vhd" || bad "qemu-img vpc fixed $d"
done
qemu-img convert -f raw -O vpc part.fat fat.vhd || bad "qemu-img vpc fat"

for f in mbr-dyn.vhd mbr-fix.vhd gpt-dyn.vhd gpt-fix.vhd zeros-dyn.vhd zeros-fix.vhd holes-dyn.vhd holes-fix.vhd \
         fat.vhd; do
    image_vs_7zz "$f"
done

# The disk's bytes are qemu-img's: x of the random disk against its raw
# conversion (the VHD disk is rounded up to whole CHS cylinders).
raw_vs_qemu vpc holes-dyn.vhd holes-fix.vhd

# Footers and headers changed here, checksums redone (VHD spec: Checksum).
python3 - <<'PY'
import struct
d = open("mbr-dyn.vhd", "rb").read()
x = open("mbr-fix.vhd", "rb").read()
def fsum(f, at):
    f = bytearray(f)
    f[at:at + 4] = b"\0" * 4
    f[at:at + 4] = struct.pack(">I", ~sum(f) & 0xFFFFFFFF)
    return bytes(f)
def footer(name, src, edit, both=True):
    f = bytearray(src[-512:])
    edit(f)
    f = fsum(f, 64)
    b = bytearray(src)
    b[-512:] = f
    if both and src is d:
        b[:512] = f
    open(name, "wb").write(b)
def put(f, at, v):
    f[at:at + len(v)] = v
footer("app.vhd", d, lambda f: put(f, 28, b"vpc "))
footer("app-nul.vhd", d, lambda f: put(f, 28, b"a\0b\0"))
footer("mac.vhd", d, lambda f: put(f, 36, b"Mac "))
footer("os.vhd", d, lambda f: put(f, 36, b"Lnx1"))
footer("saved.vhd", d, lambda f: put(f, 84, b"\1"))
footer("version.vhd", d, lambda f: put(f, 12, b"\0\2\0\0"))
footer("copy-differs.vhd", d, lambda f: put(f, 36, b"Mac "), both=False)
footer("fix-size.vhd", x, lambda f: put(f, 48, struct.pack(">Q", len(x) - 612)))
open("fix-tail.vhd", "wb").write(x[:-512] + b"t" * 1000 + x[-512:])
z = open("zeros-fix.vhd", "rb").read()
footer("reserved.vhd", z, lambda f: put(f, 454, b"\2"))   # 7zz wants the reserved bytes zero
open("bat-cut.vhd", "wb").write(open("zeros-dyn.vhd", "rb").read()[:1700])   # inside the BAT's sector
open("cut.vhd", "wb").write(d[:len(d) // 2])
open("cut-footer.vhd", "wb").write(d[:len(d) // 2] + d[-512:])
bat = struct.unpack(">Q", d[512 + 16:512 + 24])[0]
b = bytearray(d)
b[bat + 4:bat + 8] = struct.pack(">I", 0x100000)   # block 1 far past the end
open("block-past.vhd", "wb").write(b)
b = bytearray(d)
b[-512 + 70] ^= 1                                 # a bad footer checksum
open("bad-footer.vhd", "wb").write(b)
PY
for f in app.vhd app-nul.vhd mac.vhd os.vhd saved.vhd version.vhd; do
    image_vs_7zz "$f"
done
# not VHD for 7zz: the two footers differ, a fixed disk with bytes after
# it or not of the file's size (then the MBR in it is what opens)
for f in fix-size.vhd fix-tail.vhd reserved.vhd bat-cut.vhd; do
    image_vs_7zz "$f"
done
# (7zz then finds the FAT 1 MiB in by a search fz7 does not make)
for f in copy-differs.vhd bad-footer.vhd; do
    "$FZ7" l "$f" >out.txt 2>&1
    same "$f: not a VHD" "$(grep -c 'Type = VHD' out.txt)" 0
done
# cut short: listed with the blocks that are there, exit code 2
for f in cut.vhd cut-footer.vhd block-past.vhd; do
    list_vs "$f"
done
vs_7zz_d t block-past.vhd

# VDI: normal (dynamic) and fixed images of the same disks, x of the
# random one against qemu-img's raw disk; the header's image types, the
# UUIDs of a linked disk (7zz: "Unsupported method", no data), a "zero"
# block, the file cut short, a block stored past the disk's block count.
for d in mbr gpt zeros holes; do
    qemu-img convert -f raw -O vdi "$d.raw" "$d-dyn.vdi" || bad "qemu-img vdi $d"
    qemu-img convert -f raw -O vdi -o static=on "$d.raw" "$d-fix.vdi" || bad "qemu-img vdi static $d"
done
for f in mbr-dyn.vdi mbr-fix.vdi gpt-dyn.vdi gpt-fix.vdi zeros-dyn.vdi zeros-fix.vdi holes-dyn.vdi holes-fix.vdi; do
    image_vs_7zz "$f"
done
raw_vs_qemu vdi holes-dyn.vdi holes-fix.vdi
python3 - <<'PY'
import struct
d = open("mbr-dyn.vdi", "rb").read()
def mk(name, edits):
    b = bytearray(d)
    for at, v in edits:
        b[at:at + len(v)] = v
    open(name, "wb").write(b)
mk("undo.vdi", [(76, struct.pack("<I", 3))])
mk("diff.vdi", [(76, struct.pack("<I", 4))])
mk("linked.vdi", [(424, bytes(range(1, 17))), (440, bytes(range(17, 33)))])
mk("zero-block.vdi", [(512, struct.pack("<I", 0xFFFFFFFE))])
mk("tail.vdi", [])
open("tail.vdi", "ab").write(b"junk" * 100)
open("cut.vdi", "wb").write(d[:len(d) // 2])
mk("block-past.vdi", [(512 + 8, struct.pack("<I", 100))])
PY
for f in undo.vdi diff.vdi zero-block.vdi tail.vdi; do
    image_vs_7zz "$f"
done
list_vs linked.vdi
vs_7zz_d t linked.vdi
list_vs cut.vdi
"$FZ7" l block-past.vdi >out.txt 2>&1
same "block-past.vdi: refused" "$(grep -c 'Type = VDI' out.txt)" 0

# QCOW: qcow2 (version 3 and, edited, 2), its compressed form (clusters
# of raw deflate, inflated by fz7's own decoder, the disk inside opened
# through them) and version 1 of the same disks; x of the random disk
# against qemu-img's raw one. Headers edited: bytes after the image, the
# file cut (listed, "Unexpected end of archive"), a data cluster or an
# L2 table past the end, an L1 table longer than the file, a backing
# file, the ciphers, the incompatible feature bits, version 3's
# all-zeros cluster flag; the file padded to a whole sector.
for d in mbr gpt zeros holes; do
    qemu-img convert -f raw -O qcow2 "$d.raw" "$d.qcow2" || bad "qemu-img qcow2 $d"
    qemu-img convert -f raw -O qcow2 -c "$d.raw" "$d-c.qcow2" || bad "qemu-img qcow2 -c $d"
    qemu-img convert -f raw -O qcow "$d.raw" "$d.qcow" || bad "qemu-img qcow $d"
done
qemu-img create -q -f qcow2 -o cluster_size=4096 big.qcow2 3G || bad "qemu-img create qcow2"
qemu-img create -q -f qcow2 empty.qcow2 10M || bad "qemu-img create qcow2"
for f in mbr.qcow2 mbr-c.qcow2 gpt.qcow2 gpt-c.qcow2 zeros.qcow2 zeros-c.qcow2 holes.qcow2 holes-c.qcow2 \
         mbr.qcow gpt.qcow zeros.qcow holes.qcow big.qcow2; do
    image_vs_7zz "$f"
done
raw_vs_qemu qcow2 holes.qcow2 holes-c.qcow2
raw_vs_qemu qcow holes.qcow
python3 - <<'PY'
import struct
d = open("mbr.qcow2", "rb").read()
def mk(name, edits, src=d):
    b = bytearray(src)
    for at, v in edits:
        b[at:at + len(v)] = v
    open(name, "wb").write(b)
l1 = struct.unpack(">Q", d[40:48])[0]
l2 = struct.unpack(">Q", d[l1:l1 + 8])[0] & 0x00FFFFFFFFFFFE00
copied = 1 << 63
mk("v2.qcow2", [(4, struct.pack(">I", 2))])
mk("tail.qcow2", [])
open("tail.qcow2", "ab").write(b"j" * 5000)
open("cut.qcow2", "wb").write(d[:len(d) // 2])
z = open("empty.qcow2", "rb").read()   # (it ends 8 bytes into a sector)
open("pad.qcow2", "wb").write(z + b"\0" * (-len(z) % 512))   # 7zz: the pad is the image's
open("pad-more.qcow2", "wb").write(z + b"\0" * (-len(z) % 512 + 1))   # (but not this)
mk("data-past.qcow2", [(l2, struct.pack(">Q", copied | 0x10000000))])
mk("l2-past.qcow2", [(l1, struct.pack(">Q", copied | 0x10000000))])
mk("l1-long.qcow2", [(36, struct.pack(">I", 100000))])
mk("backing.qcow2", [(8, struct.pack(">Q", 0x200)), (16, struct.pack(">I", 8)), (0x200, b"base.raw")])
for c in (1, 2, 3):
    mk("crypt%d.qcow2" % c, [(32, struct.pack(">I", c))])
for bits in (1, 2, 4, 8, 16, 0x21, 1 << 36):
    mk("incompat%d.qcow2" % bits, [(72, struct.pack(">Q", bits))])
mk("zero-flag.qcow2", [(l2, struct.pack(">Q", copied | 0x50000 | 1))])
mk("magic.qcow2", [(0, b"QFI\xfa")])
mk("v4.qcow2", [(4, struct.pack(">I", 4))])
mk("cbits8.qcow2", [(20, struct.pack(">I", 8))])
PY
for f in v2.qcow2 tail.qcow2 pad.qcow2 pad-more.qcow2 crypt1.qcow2 crypt2.qcow2 crypt3.qcow2 incompat1.qcow2 incompat2.qcow2 incompat4.qcow2 \
         incompat8.qcow2 incompat16.qcow2 incompat33.qcow2 incompat68719476736.qcow2 zero-flag.qcow2; do
    list_vs "$f"
    vs_7zz_d t "$f"
done
same_files zero-flag.qcow2
for f in cut.qcow2 data-past.qcow2 l2-past.qcow2 l1-long.qcow2 backing.qcow2; do
    list_vs "$f"
    vs_7zz_d t "$f"
done
# not QCOW for 7zz (a bad magic, version or cluster size; 7zz then finds
# the FAT inside by a search fz7 does not make)
for f in magic.qcow2 v4.qcow2 cbits8.qcow2; do
    "$FZ7" l "$f" >out.txt 2>&1
    same "$f: not a QCOW" "$(grep -c 'Type = QCOW' out.txt)" 0
done

# VMDK: monolithic sparse images of the same disks (7zz's lines: the
# descriptor's createType, CID, extent name and text), x of the random
# one against qemu-img's raw disk; a stream-optimized image (7zz refuses
# it); edited: bytes after it, a version 2 header, the file cut (listed),
# a grain past the end (listed), a compression algorithm (refused as an
# unsupported method); not VMDK for 7zz: version 4, unknown flags, a grain
# table past the end, a grain among the headers.
for d in mbr gpt zeros holes; do
    qemu-img convert -f raw -O vmdk -o subformat=monolithicSparse "$d.raw" "$d.vmdk" || bad "qemu-img vmdk $d"
done
qemu-img convert -f raw -O vmdk -o subformat=streamOptimized mbr.raw mbr-s.vmdk || bad "qemu-img vmdk stream"
for f in mbr.vmdk gpt.vmdk zeros.vmdk holes.vmdk; do
    image_vs_7zz "$f"
done
raw_vs_qemu vmdk holes.vmdk
python3 - <<'PY'
import struct
d = open("mbr.vmdk", "rb").read()
def mk(name, edits):
    b = bytearray(d)
    for at, v in edits:
        b[at:at + len(v)] = v
    open(name, "wb").write(b)
gd = struct.unpack("<Q", d[56:64])[0] * 512
gt = struct.unpack("<I", d[gd:gd + 4])[0] * 512
mk("tail.vmdk", [])
open("tail.vmdk", "ab").write(b"j" * 5000)
mk("v2.vmdk", [(4, struct.pack("<I", 2))])
# (cut inside its last grain: cut inside the FAT's blocks, 7zz fails the
# FAT's open inside with an error of the whole, fz7 lists the MBR)
open("cut.vmdk", "wb").write(d[:len(d) - 24288])
mk("grain-past.vmdk", [(gt, struct.pack("<I", 0x100000))])
mk("compress.vmdk", [(77, struct.pack("<H", 1))])
mk("v4.vmdk", [(4, struct.pack("<I", 4))])
mk("flags.vmdk", [(8, struct.pack("<I", 0x30003))])
mk("gt-past.vmdk", [(gd, struct.pack("<I", 0x100000))])
mk("grain-head.vmdk", [(gt + 8, struct.pack("<I", 1))])
PY
for f in tail.vmdk v2.vmdk; do
    image_vs_7zz "$f"
done
# (a read past the end: 7zz says "Unavailable data" of the disk and "Data
# Error" of a file inside, fz7 "Unexpected end of data": l alone)
for f in cut.vmdk grain-past.vmdk compress.vmdk mbr-s.vmdk; do
    list_vs "$f"
done
vs_7zz_d t compress.vmdk
vs_7zz_d t mbr-s.vmdk
for f in v4.vmdk flags.vmdk gt-past.vmdk grain-head.vmdk; do
    "$FZ7" l "$f" >out.txt 2>&1
    same "$f: not a VMDK" "$(grep -c 'Type = VMDK' out.txt)" 0
done

# `fz7 i`: the VHD, VDI, QCOW and VMDK rows are 7zz's (flags aside)
for t in VHD VDI QCOW VMDK; do
    same "fz7 i: $t" "$("$FZ7" i | awk -v t=$t '$2 == t {$1 = ""; print}')" "$(7zz i | awk -v t=$t '$2 == t {$1 = ""; print}')"
done

t_summary vmdisk.sh
