#!/usr/bin/env bash
# gpt.sh - disk images with a GUID partition table read as 7zz reads them
# (Type = GPT): `l`, `l -slt`, `l -ba`, `t`, `x` and `e` give 7zz's lines
# (after the banner) and exit codes, and `x`/`e` the same files. Disks
# made by sgdisk (names, attribute bits, the partition types 7zz names, a
# FAT image in a basic data partition: ".fat", opened in the disk's place
# when alone) and tables written here by Python: a bad header or entry
# array CRC (7zz reads the protective MBR instead), no 0x55AA, a disk cut
# short or with bytes after it, the bounds 7zz keeps to (entry sizes,
# entry counts, LBAs past 2^54), a partition ending before it starts,
# names with '/' and a lone surrogate, a header not in LBA 1, bytes after
# the disk that are zeros (the disk's) or not (a tail), a type known by
# its first field, 4 KiB sectors (read by neither), an ISO with a GPT. And the GPT row of `fz7 i`.
set -u
. "$(dirname "$0")/lib.sh"
t_init 7zz sgdisk mkfs.fat mcopy python3

export LC_ALL=C.UTF-8 TZ=UTC MTOOLS_SKIP_CHECK=1

# A FAT image of one file, the content of the basic data partitions.
printf 'hello gpt\n' >a.txt
touch -d '2021-02-03 04:05:06' a.txt
mkfs.fat -C -i 12345678 part.fat 2048 >/dev/null || bad "mkfs.fat failed"
mcopy -m -i part.fat a.txt ::a.txt || bad "mcopy failed"
# put IMG PARTNUM FILE: FILE's bytes at the start of partition PARTNUM
put() {
    local first
    first=$(sgdisk -i "$2" "$1" | awk '/First sector/{print $3}')
    dd if="$3" of="$1" bs=512 seek="$first" conv=notrunc status=none
}
sg() { sgdisk -U 11111111-2222-3333-4444-555555555555 "$@" >/dev/null || bad "sgdisk $*"; }

# Three partitions: a named one, an unnamed one, one to the disk's end.
truncate -s 4M three.img
sg -n1:2048:+1M -t1:0700 -c1:"My Data" -u1:AAAAAAAA-0000-0000-0000-000000000001 \
   -n2:0:+512K -t2:8300 -c2:"café/日本" -u2:AAAAAAAA-0000-0000-0000-000000000002 \
   -n3:0:0 -t3:ef00 -u3:AAAAAAAA-0000-0000-0000-000000000003 three.img
put three.img 1 part.fat
# The types 7zz names and their extensions (.apfs, .hfsx, .ufs) with
# attribute bits it names and others; an unknown type by its GUID.
truncate -s 1M types.img
args=(-a 1) i=1
for t in ef00 0700 8300 af0a af00 8200 ef02 a503 a502 a504 a505 a501 4200 0c01 2700 8303 8304 8305 8307 \
         516E7CB4-6ECF-11D6-8FF8-00022D09712B 024DEE41-33E7-11D3-9D69-0008C781F39F 4201 8302 \
         993D8D3D-F80E-4225-855A-9DAF8ED7EA97 01234567-89AB-CDEF-0123-456789ABCDEF; do
    args+=(-n$i:$((40 + i * 2)):+1 -t$i:$t -u$i:BBBBBBBB-0000-0000-0000-0000000000$((10 + i)))
    i=$((i + 1))
done
sg "${args[@]}" -A1:set:0 -A2:set:1 -A2:set:2 -A3:set:60 -A4:set:62 -A5:set:63 -A6:set:3 -A6:set:5 \
   -A6:set:7 -A7:set:0 -A7:set:48 -A7:set:61 -A7:set:62 types.img
# Basic data partitions: FAT, NTFS and nothing by their boot sectors; a
# FAT image in an EFI system partition stays ".img".
python3 -c "
import sys; b = bytearray(512); b[0:11] = b'\xeb\x52\x90NTFS    '; b[510:512] = b'\x55\xaa'
open('ntfs.bin', 'wb').write(b)"
truncate -s 8M bdp.img
sg -n1:0:+1M -t1:0700 -n2:0:+1M -t2:0700 -c2:named -n3:0:+1M -t3:0700 -n4:0:+1M -t4:ef00 \
   -n5:0:+1M -t5:0700 bdp.img
put bdp.img 1 part.fat
put bdp.img 2 ntfs.bin
put bdp.img 4 part.fat
head -c 512 part.fat >boot.bin && printf '\0' | dd of=boot.bin conv=notrunc status=none   # no jump: not FAT
put bdp.img 5 boot.bin
# One basic data partition holding FAT: 7zz lists the FAT image.
truncate -s 4M one.img
sg -n1:0:+2M -t1:0700 -u1:CCCCCCCC-0000-0000-0000-000000000001 one.img
put one.img 1 part.fat

# Tables written here, CRCs and all (UEFI 2.x, chapter 5).
python3 - <<'PY'
import struct, zlib, uuid
def guid(s): return uuid.UUID(s).bytes_le
LIN = '0FC63DAF-8483-4772-8E79-3D69D8477DE4'
def gpt(name, parts, sectors=2048, n_entries=128, esize=128, backup=None, hsize=92, mbr55=True, size=None,
        edit=None):
    d = bytearray((size if size is not None else sectors) * 512)
    if mbr55: d[510:512] = b'\x55\xaa'
    struct.pack_into('<B3sB3sII', d, 446, 0, b'\0\2\0', 0xEE, b'\xff\xff\xff', 1, sectors - 1)
    arr = bytearray(n_entries * esize)
    for i, p in enumerate(parts):
        t, first, last = p[:3]; nm = p[3] if len(p) > 3 else ''
        o = i * esize
        if o + 56 > len(arr): continue
        arr[o:o + 16] = guid(t); arr[o + 16:o + 32] = guid('12345678-1234-5678-9abc-%012x' % i)
        struct.pack_into('<QQQ', arr, o + 32, first, last, 1 << 60)
        nb = nm.encode('utf-16-le') if isinstance(nm, str) else nm
        arr[o + 56:o + 56 + len(nb)] = nb
        if last < 1 << 40: d[first * 512:first * 512 + 5] = b'data%d' % i
    h = bytearray(512)
    struct.pack_into('<8sIII4xQQQQ16sQIII', h, 0, b'EFI PART', 0x10000, hsize, 0, 1,
                     sectors - 1 if backup is None else backup, 34, sectors - 34,
                     guid('A1B2C3D4-0000-1111-2222-333344445555'), 2, n_entries, esize, zlib.crc32(arr))
    struct.pack_into('<I', h, 16, zlib.crc32(bytes(h[:hsize])))
    if edit: edit(h, arr)
    d[512:1024] = h
    n = min(len(arr), max(0, len(d) - 1024)); d[1024:1024 + n] = arr[:n]
    open(name, 'wb').write(d)
two = [(LIN, 100, 200, 'a'), (LIN, 300, 400, 'b')]
gpt('ok.img', two)
gpt('empty.img', [])
gpt('hdr_crc.img', two, edit=lambda h, a: h.__setitem__(60, h[60] ^ 1))
gpt('arr_crc.img', two, edit=lambda h, a: a.__setitem__(60, a[60] ^ 1))
gpt('no55aa.img', two, mbr55=False)
gpt('cut.img', [(LIN, 100, 200), (LIN, 1500, 2000)], size=1700)
gpt('tail.img', two, sectors=2048, size=3000)
gpt('past.img', [(LIN, 100, 200), (LIN, 1500, 4000)])
gpt('backwards.img', [(LIN, 100, 200), (LIN, 300, 299)])
gpt('order.img', [(LIN, 1000, 1100, 'late'), (LIN, 100, 200, 'early'), (LIN, 150, 250, 'overlap')])
gpt('names.img', [(LIN, 100, 200, b'a\x00\x00\xd8b\x00'), (LIN, 300, 400, 'x' * 36), (LIN, 500, 600, '../up')])
for es in (127, 129, 4096, 8192):
    gpt('esize%d.img' % es, two, esize=es, n_entries=4)
for n in (0, 65536, 65537):
    gpt('n%d.img' % n, two, n_entries=n, sectors=max(2048, n // 4 + 300))
for hs in (0, 512, 513):
    gpt('hsize%d.img' % hs, two, hsize=hs)
gpt('bk_max.img', two, backup=(1 << 54) - 1)
gpt('bk_over.img', two, backup=1 << 54)
gpt('last_over.img', two + [(LIN, 700, 1 << 54)])
gpt('arr_lba0.img', two, edit=lambda h, a: (struct.pack_into('<Q', h, 72, 0),
                                            struct.pack_into('<I', h, 16, 0),
                                            struct.pack_into('<I', h, 16, zlib.crc32(bytes(h[:92])))))
gpt('arr_cut.img', two, size=20)
gpt('mylba.img', two, edit=lambda h, a: (struct.pack_into('<Q', h, 24, 2), struct.pack_into('<I', h, 16, 0),
                                         struct.pack_into('<I', h, 16, zlib.crc32(bytes(h[:92])))))
# a type known by its first field with the rest changed keeps its name
gpt('type_field1.img', [('0FC63DAF-0000-0000-0000-000000000000', 100, 200), ('EBD0A0A2-1111-2222-3333-444455556666', 300, 400)])
# 4 KiB sectors: 7zz reads no GPT there (its MBR reader lists the 0xEE
# partition), nor does fz7
d = bytearray(2 << 20); d[510:512] = b'\x55\xaa'
struct.pack_into('<B3sB3sII', d, 446, 0, b'\0\2\0', 0xEE, b'\xff\xff\xff', 1, 511)
arr = bytearray(128 * 128); arr[0:16] = guid(LIN); struct.pack_into('<QQQ', arr, 32, 10, 20, 0)
h = bytearray(512)
struct.pack_into('<8sIII4xQQQQ16sQIII', h, 0, b'EFI PART', 0x10000, 92, 0, 1, 511, 6, 506, guid(LIN), 2, 128, 128,
                 zlib.crc32(arr))
struct.pack_into('<I', h, 16, zlib.crc32(bytes(h[:92])))
d[4096:4608] = h; d[8192:8192 + len(arr)] = arr
open('sector4k.img', 'wb').write(d)
d = bytearray(open('ok.img', 'rb').read()) + bytes(4096); d[-1] = 1
open('tail_data.img', 'wb').write(d)
PY

for f in three types bdp one ok empty hdr_crc arr_crc no55aa cut tail past backwards order names esize127 \
         esize129 esize4096 esize8192 n0 n65536 n65537 hsize0 hsize512 hsize513 bk_max bk_over last_over \
         arr_lba0 arr_cut mylba type_field1 tail_data sector4k; do
    image_vs_7zz "$f.img"
done

# An ISO 9660 image with a GPT (xorriso's appended partition): 7zz opens
# the ISO, and so must fz7 (its GPT reader is tried after libarchive's).
if command -v xorriso >/dev/null; then
    mkdir -p iso && printf 'in the iso\n' >iso/a.txt
    xorriso -as mkisofs -o hybrid.iso -R -append_partition 2 0xef part.fat -appended_part_as_gpt iso \
        >/dev/null 2>&1 || bad "xorriso failed"
    "$FZ7" l -slt hybrid.iso >out.txt 2>&1
    same "hybrid ISO: type" "$(grep -m1 '^Type = ' out.txt)" "$(7zz l -slt hybrid.iso | grep -m1 '^Type = ')"
    same "hybrid ISO: Iso" "$(grep -m1 '^Type = ' out.txt)" "Type = Iso"
else
    echo "note: no xorriso, the hybrid ISO case skipped"
fi

# Fixed values, so a 7zz that changed does not pass unnoticed.
"$FZ7" l -slt types.img >out.txt 2>&1
same "types: named" "$(grep '^File System = ' out.txt | grep -vcE '= [0-9A-F]{8}-')" "22"
same "types: unknown by GUID" "$(grep -c '^File System = 01234567-89AB-CDEF-0123-456789ABCDEF$' out.txt)" "1"
same "types: attributes" "$(grep -A1 '^File System = Linux Swap' out.txt | tail -1)" \
    "Characteristics = 0xA8"
same "types: mixed attributes" "$(grep -A1 '^File System = BIOS Boot' out.txt | tail -1)" \
    "Characteristics = Sys Win-Hidden 0x2001000000000000"
"$FZ7" l -ba bdp.img >out.txt 2>&1
same "bdp names" "$(awk '{print $NF}' out.txt | tr '\n' ' ')" "0.fat 1.named.ntfs 2.img 3.img 4.img "
"$FZ7" l -slt three.img >out.txt 2>&1
same "three: type" "$(grep -m1 '^Type = ' out.txt)" "Type = GPT"
same "three: disk ID" "$(grep -m1 '^ID = ' out.txt)" "ID = 11111111-2222-3333-4444-555555555555"
same "three: paths" "$(grep '^Path = ' out.txt | tail -n +2 | tr '\n' ' ')" \
    "Path = 0.My Data.fat Path = 1.café/日本.img Path = 2.img "
"$FZ7" l -ba one.img >out.txt 2>&1
same "one: the FAT inside" "$(awk '{print $NF}' out.txt)" "a.txt"
rm -rf wf && "$FZ7" x -owf hdr_crc.img >/dev/null 2>&1
same "bad header CRC: the MBR's entry" "$(ls wf)" "0.img"
expect_rc 2 "cut: t" "$FZ7" t cut.img
expect_rc 2 "no 0x55AA: l" "$FZ7" l no55aa.img
# (the flags column aside, as list_formats.sh compares it)
same "fz7 i: GPT" "$("$FZ7" i | awk '$2 == "GPT" {$1 = ""; print}')" "$(7zz i | awk '$2 == "GPT" {$1 = ""; print}')"

t_summary gpt.sh
