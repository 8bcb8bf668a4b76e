#!/usr/bin/env bash
# list_formats.sh - `l` and `l -slt` of tar and zip archives list what 7zz
# lists: a tar entry's packed size (its data in 512-byte blocks), Mode,
# owner, link names, per-entry Characteristics (typeflag, GNU/POSIX/v7
# magic, LongName/LongLink/PREFIX, pax records), device numbers, the pax
# global header as the archive's Comment; a zip entry's packed size, CRC,
# Method (with Deflate level, LZMA end marker, ZipCrypto/AES), extra fields,
# flags, host, version, offset, comments, and a non-Unix host's DOS
# attributes; a cpio entry's inode, links, devices, stream and offset; an
# ISO's volume sizes and times in the archive block; a .gz's one entry under its stored name with its header's
# and trailer's fields, a .bz2's with none. Fixed values from archives made here by Python, then (when
# 7zz is installed) the whole listings beside 7zz's on archives made by
# GNU tar, bsdtar, Info-ZIP zip, Python and 7zz.
set -u
. "$(dirname "$0")/lib.sh"
t_init python3
export LC_ALL=C.UTF-8 TZ=UTC

python3 - <<'PY'
import io, tarfile, zipfile
def tar(name, fmt, members):
    with tarfile.open(name, "w", format=fmt) as t:
        for m in members:
            ti = tarfile.TarInfo(m["name"])
            ti.mtime = 1700000000
            ti.uid, ti.gid, ti.uname, ti.gname = 1000, 100, "alice", "users"
            ti.type = m.get("type", tarfile.REGTYPE)
            ti.linkname = m.get("link", "")
            ti.devmajor, ti.devminor = m.get("dev", (0, 0))
            ti.pax_headers = m.get("pax", {})
            data = m.get("data", b"")
            ti.size = len(data)
            t.addfile(ti, io.BytesIO(data))
tar("gnu.tar", tarfile.GNU_FORMAT, [
    {"name": "d", "type": tarfile.DIRTYPE},
    {"name": "d/f.txt", "data": b"hello\n"},
    {"name": "d/" + "n" * 110, "data": b"x" * 600},
    {"name": "d/link", "type": tarfile.SYMTYPE, "link": "t" * 120},
    {"name": "d/hard", "type": tarfile.LNKTYPE, "link": "d/f.txt"},
    {"name": "d/dev", "type": tarfile.CHRTYPE, "dev": (1, 3)},
])
tar("badname.tar", tarfile.GNU_FORMAT, [   # a name that is no UTF-8 (byte 0xFF)
    {"name": "b/bad\udcff.txt", "data": b"a"},
    {"name": "b/\u00e9.txt", "data": b"b"},
])
tar("ustar.tar", tarfile.USTAR_FORMAT, [
    {"name": "dir/" * 30 + "x", "data": b"abc"},
    {"name": "fifo", "type": tarfile.FIFOTYPE},
])
tar("pax.tar", tarfile.PAX_FORMAT, [
    {"name": "a", "data": b"abc", "pax": {"mtime": "1700000000.500", "atime": "1.25"}},
    {"name": "b", "data": b"abc", "pax": {"comment": "hi", "uname": "bob"}},
    {"name": "c", "data": b"", "pax": {"ctime": "1700000000.123456789"}},
])
with zipfile.ZipFile("py.zip", "w", zipfile.ZIP_DEFLATED) as z:
    z.comment = b"arc comment"
    zi = zipfile.ZipInfo("fat.txt", (2020, 1, 2, 3, 4, 6))
    zi.create_system, zi.external_attr = 0, 0x21
    z.writestr(zi, "hello " * 100, compress_type=zipfile.ZIP_DEFLATED)
    zi = zipfile.ZipInfo("unix.txt", (2020, 1, 2, 3, 4, 6))
    zi.create_system, zi.external_attr = 3, 0o100640 << 16
    zi.comment = b"entry comment"
    z.writestr(zi, "x", compress_type=zipfile.ZIP_STORED)
    zi = zipfile.ZipInfo("notype.txt", (2020, 1, 2, 3, 4, 6))
    zi.create_system, zi.external_attr = 3, 0o600 << 16
    z.writestr(zi, "y" * 100, compress_type=zipfile.ZIP_BZIP2)
    zi = zipfile.ZipInfo("lzma.txt", (2020, 1, 2, 3, 4, 6))
    zi.create_system, zi.external_attr = 3, 0o100644 << 16
    z.writestr(zi, "z" * 100, compress_type=zipfile.ZIP_LZMA)
import bz2, gzip
with open("data.bin", "wb") as f:
    f.write(b"gzip me " * 1000)
with open("data.bin", "rb") as f, gzip.GzipFile("stored-name.txt", "wb", mtime=1600000000,
                                              fileobj=open("renamed.gz", "wb")) as g:
    g.write(f.read())
open("plain.bz2", "wb").write(bz2.compress(b"bzip2 me " * 1000))
PY

# The value of line NAME of entry PATH in `l -slt` output file F.
slt_field() { # F PATH NAME
    awk -v p="Path = $2" -v n="$3 = " '$0 == p { on = 1; next } on && /^Path = / { exit }
        on && index($0, n) == 1 { print substr($0, length(n) + 1); exit }' "$1"
}
slt() { "$FZ7" l -slt "$1" >"$1.slt" 2>&1; }

# --- tar ---
slt gnu.tar
same "gnu archive Characteristics" "$(grep -m1 '^Characteristics' gnu.tar.slt)" \
    "Characteristics = GNU LongName LongLink ASCII"
same "gnu Headers Size" "$(grep -m1 '^Headers Size' gnu.tar.slt)" "Headers Size = 8704"
# a name that is not UTF-8: 7zz's words, in the archive and the entry
slt badname.tar
same "non-UTF-8 name: archive Characteristics" "$(grep -a -m1 '^Characteristics' badname.tar.slt)" \
    "Characteristics = GNU UTF8-ERROR non-UTF8 MaxUnicode=233"
same "non-UTF-8 name: its entry's Characteristics" "$(grep -a -A16 '^Path = b/bad' badname.tar.slt | grep -a '^Characteristics')" \
    "Characteristics = 0 GNU UTF8-ERROR non-UTF8"
same "gnu file Packed Size" "$(slt_field gnu.tar.slt d/f.txt 'Packed Size')" 512
same "gnu long file Packed Size" "$(slt_field gnu.tar.slt "d/$(printf 'n%.0s' $(seq 110))" 'Packed Size')" 1024
same "gnu long file Characteristics" "$(slt_field gnu.tar.slt "d/$(printf 'n%.0s' $(seq 110))" Characteristics)" \
    "0 GNU ASCII LongName"
same "gnu file Mode" "$(slt_field gnu.tar.slt d/f.txt Mode)" "-rw-r--r--"
same "gnu file User" "$(slt_field gnu.tar.slt d/f.txt User)" alice
same "gnu file Group ID" "$(slt_field gnu.tar.slt d/f.txt 'Group ID')" 100
same "gnu file Device Major (none stored)" "$(slt_field gnu.tar.slt d/f.txt 'Device Major')" ""
same "gnu Modified" "$(slt_field gnu.tar.slt d/f.txt Modified)" "2023-11-14 22:13:20"
same "gnu dir Folder" "$(slt_field gnu.tar.slt d Folder)" "+"
same "gnu symlink" "$(slt_field gnu.tar.slt d/link 'Symbolic Link')" "$(printf 't%.0s' $(seq 120))"
same "gnu symlink Characteristics" "$(slt_field gnu.tar.slt d/link Characteristics)" "2 GNU ASCII LongLink"
same "gnu hard link" "$(slt_field gnu.tar.slt d/hard 'Hard Link')" d/f.txt
same "gnu device" "$(slt_field gnu.tar.slt d/dev Mode) $(slt_field gnu.tar.slt d/dev 'Device Major'):$(slt_field gnu.tar.slt d/dev 'Device Minor')" \
    "crw-r--r-- 1:3"
same "tar l packed column" "$("$FZ7" l gnu.tar | grep ' d/f.txt$' | awk '{print $4, $5}')" "6 512"

slt ustar.tar
same "ustar PREFIX" "$(slt_field ustar.tar.slt "$(printf 'dir/%.0s' $(seq 30))x" Characteristics)" \
    "0 POSIX PREFIX ASCII"
same "ustar fifo" "$(slt_field ustar.tar.slt fifo Mode) $(slt_field ustar.tar.slt fifo Characteristics)" \
    "prw-r--r-- 6 POSIX ASCII"

slt pax.tar
same "pax archive Characteristics" "$(grep -m1 '^Characteristics' pax.tar.slt)" \
    "Characteristics = POSIX PAX mtime atime ctime ASCII"
same "pax mtime digits" "$(slt_field pax.tar.slt a Modified)" "2023-11-14 22:13:20.500"
same "pax atime" "$(slt_field pax.tar.slt a Accessed)" "1970-01-01 00:00:01.25"
same "pax ctime as Created" "$(slt_field pax.tar.slt c Created)" "2023-11-14 22:13:20.123456789"
same "pax keys" "$(slt_field pax.tar.slt a Characteristics)" "0 POSIX ASCII PAX mtime atime"
same "pax unsupported record" "$(slt_field pax.tar.slt b Characteristics)" "0 POSIX ASCII PAX PAX_unsupported_line"
same "pax Comment" "$(slt_field pax.tar.slt b Comment)" "././@PaxHeader_comment=hi_"
same "pax uname" "$(slt_field pax.tar.slt b User)" bob

# --- zip ---
slt py.zip
same "zip archive Comment" "$(grep -m1 '^Comment' py.zip.slt)" "Comment = arc comment"
same "zip FAT host attributes" "$(slt_field py.zip.slt fat.txt Attributes)" "RA"
same "zip FAT host" "$(slt_field py.zip.slt fat.txt 'Host OS')" FAT
same "zip Deflate" "$(slt_field py.zip.slt fat.txt Method)" Deflate
same "zip packed" "$(slt_field py.zip.slt fat.txt 'Packed Size')" \
    "$(python3 -c 'import zipfile; print(zipfile.ZipFile("py.zip").getinfo("fat.txt").compress_size)')"
same "zip CRC" "$(slt_field py.zip.slt unix.txt CRC)" 8CDC1683
same "zip entry comment" "$(slt_field py.zip.slt unix.txt Comment)" "entry comment"
same "zip Unix mode" "$(slt_field py.zip.slt unix.txt Attributes)" " -rw-r-----"
same "zip mode without type" "$(slt_field py.zip.slt notype.txt Attributes)" "V 01800000 0rw-------"
same "zip BZip2" "$(slt_field py.zip.slt notype.txt Method) $(slt_field py.zip.slt notype.txt Version)" "BZip2 46"
same "zip LZMA end marker" "$(slt_field py.zip.slt lzma.txt Method)" "LZMA:eos"
same "zip Offset" "$(slt_field py.zip.slt unix.txt Offset)" \
    "$(python3 -c 'import zipfile; print(zipfile.ZipFile("py.zip").getinfo("unix.txt").header_offset)')"
same "zip l Attr column (FAT)" "$("$FZ7" l py.zip | grep ' fat.txt$' | awk '{print $3}')" ".R..A"

# --- one compressed file: 7zz's gzip fields from its header and trailer,
# bzip2 with no Path and no sizes; x writes the name gzip stored ---
slt renamed.gz
same "gzip Type" "$(grep -m1 '^Type' renamed.gz.slt)" "Type = gzip"
same "gzip Headers Size" "$(grep -m1 '^Headers Size' renamed.gz.slt)" "Headers Size = 26"
same "gzip no Physical Size" "$(grep -c '^Physical Size' renamed.gz.slt)" 0
same "gzip entry" "$(sed -n '/^----------$/,$p' renamed.gz.slt | tr '\n' '|')" \
    "----------|Path = stored-name.txt|Size = 8000|Packed Size = $(stat -c %s renamed.gz)|Modified = 2020-09-13 12:26:40|Host OS = 255|CRC = $(python3 -c 'import zlib; print("%08X" % zlib.crc32(open("data.bin","rb").read()))')||"
rm -rf gz_out
"$FZ7" x -bd -ogz_out renamed.gz >/dev/null 2>&1
same "gzip x name" "$(cmp -s gz_out/stored-name.txt data.bin && echo same)" same
slt plain.bz2
same "bzip2 entry" "$(sed -n '/^----------$/,$p' plain.bz2.slt | tr '\n' '|')" "----------|Size = |Packed Size = ||"

# --- cpio (bsdtar's newc and odc): packed sizes with newc's padding, a
# newc hard link's first name listed with its data's size and stream ---
if command -v bsdtar >/dev/null; then
    mkdir -p ct/a ct/b && printf 'x\n' >ct/a/f && printf 'y\n' >ct/b/g && ln ct/b/g ct/b/h &&
        ln -s f ct/a/l && touch -d '2022-02-02 02:02:02' ct/a/f
    (cd ct && bsdtar --format=newc -cf ../n.cpio a b && bsdtar --format=odc -cf ../o.cpio a b)
    slt n.cpio
    same "newc SubType" "$(grep -m1 '^SubType' n.cpio.slt)" "SubType = New ASCII"
    same "newc packed (padded)" "$(slt_field n.cpio.slt a/f 'Packed Size')" 4
    same "newc Offset" "$(slt_field n.cpio.slt a/f Offset)" \
        "$(python3 -c 'print((((110 + 2) + 3) // 4 * 4 + 110 + 4 + 3) // 4 * 4)')"
    same "newc Modified" "$(slt_field n.cpio.slt a/f Modified)" "2022-02-02 02:02:02"
    same "newc symlink" "$(slt_field n.cpio.slt a/l 'Symbolic Link') $(slt_field n.cpio.slt a/l Mode)" \
        "f lrwxrwxrwx"
    # b/g and b/h: newc writes the data with the last name; the first
    # lists its size, no packed bytes, and the last one's stream
    h_first=$(grep -m1 -oE '^Path = b/[gh]$' n.cpio.slt | cut -c8-)
    h_last=$([ "$h_first" = b/h ] && echo b/g || echo b/h)
    same "newc link first name" "$(slt_field n.cpio.slt $h_first Size) $(slt_field n.cpio.slt $h_first 'Packed Size') $(slt_field n.cpio.slt $h_first Links)" \
        "2 0 2"
    same "newc link stream" "$(slt_field n.cpio.slt $h_first 'Stream ID')" "$(slt_field n.cpio.slt $h_last 'Stream ID')"
    same "newc dir stream" "$(slt_field n.cpio.slt a 'Stream ID') $(slt_field n.cpio.slt a Folder)" " +"
    slt o.cpio
    same "odc SubType" "$(grep -m1 '^SubType' o.cpio.slt)" "SubType = Portable ASCII"
    same "odc packed" "$(slt_field o.cpio.slt a/f 'Packed Size')" 2
    same "cpio l packed column" "$("$FZ7" l n.cpio | grep ' a/f$' | awk '{print $4, $5}')" "2 4"
fi

# --- cpio "crc" form (070702): each header's byte sum of the data is
# listed as Checksum and verified by t and x, as 7zz does: a damaged file
# fails with "CRC Failed", exit 2, its bytes kept. A hard-link set's data
# comes with its last name (the first one has size 0 and sum 0). ---
python3 - <<'PY'
def ent(name, mode, data, ino, nlink=1):
    nb = name.encode() + b"\0"
    f = [ino, mode, 0, 0, nlink, 1577934245, len(data), 0, 0, 0, 0, len(nb), sum(data) & 0xffffffff]
    o = b"070702" + b"".join(b"%08X" % x for x in f) + nb
    o += b"\0" * (-len(o) % 4) + data
    return o + b"\0" * (-len(o) % 4)
big = bytes(range(256)) * 40
o = (ent("a.txt", 0o100644, b"hello world\n", 1) + ent("d", 0o40755, b"", 2) +
     ent("d/b.bin", 0o100600, big, 3) + ent("d/h1", 0o100644, b"", 4, 2) +
     ent("d/h2", 0o100644, b"linked\n", 4, 2) + ent("TRAILER!!!", 0, b"", 0))
o += b"\0" * (-len(o) % 512)
open("crc.cpio", "wb").write(o)
i = o.index(b"hello")
open("crcbad.cpio", "wb").write(o[:i] + b"j" + o[i + 1:])
PY
slt crc.cpio
same "crc SubType" "$(grep -m1 '^SubType' crc.cpio.slt)" "SubType = New CRC"
same "crc Checksum" "$(slt_field crc.cpio.slt a.txt Checksum) $(slt_field crc.cpio.slt d/b.bin Checksum) $(slt_field crc.cpio.slt d Checksum) $(slt_field crc.cpio.slt d/h2 Checksum)" \
    "1126 1305600 0 641"
"$FZ7" t crc.cpio >crc.t 2>&1; same "crc t" "$? $(grep -c '^Everything is Ok' crc.t)" "0 1"
rm -rf crcx && "$FZ7" x -ocrcx crc.cpio >/dev/null 2>&1
same "crc x" "$? $(cat crcx/d/h1 crcx/d/h2 | tr '\n' ' ')" "0 linked linked "
"$FZ7" t crcbad.cpio >crcbad.t 2>&1; same "crc t damaged" "$? $(grep '^ERROR' crcbad.t)" "2 ERROR: CRC Failed : a.txt"
rm -rf crcx && "$FZ7" x -ocrcx crcbad.cpio >/dev/null 2>&1
same "crc x damaged (kept)" "$? $(cat crcx/a.txt) $(cmp -s crcx/d/b.bin <(python3 -c 'import sys; sys.stdout.buffer.write(bytes(range(256))*40)') && echo same)" \
    "2 jello world same"

# --- ISO 9660 (bsdtar): the primary volume descriptor as 7zz's archive
# block shows it: its sizes in a Comment, its times to hundredths ---
# (a file and a folder: 7zz reads no Rock Ridge links, fz7 keeps them)
if command -v bsdtar >/dev/null && bsdtar --format=iso9660 -cf v.iso -C ct a/f b/g 2>/dev/null; then
    "$FZ7" t v.iso >v.iso.t 2>&1
    same "iso Comment" "$(sed -n '/^Comment = $/,/^}$/p' v.iso.t | tr '\n' '|')" \
        "Comment = |{|VolumeSpaceSize: $(stat -c %s v.iso)|VolumeSetSize: 1|VolumeSequenceNumber: 1|}|"
    same "iso Created" "$(grep -cE '^(Created|Modified) = [0-9]{4}-[0-9]{2}-[0-9]{2} [0-9:]{8}\.[0-9]{2}$' v.iso.t)" 2
fi

# --- damaged records: pax records and zip central directories are not
# checksummed, so their parsers meet every change: each run ends with exit
# 0 or 2, never a signal (under ASan: never a bad access) ---
mkdir -p flips
python3 - <<'PY'
import struct
def flips(src, lo, hi, step, tag):
    data = open(src, "rb").read()
    for off in range(lo, min(hi, len(data)), step):
        b = bytearray(data)
        b[off] ^= 0x5A if off % 2 else 0xFF
        open(f"flips/{tag}-{off}.{src.split('.')[-1]}", "wb").write(bytes(b))
flips("pax.tar", 512, 1024, 2, "pax")           # the first entry's pax records
z = open("py.zip", "rb").read()
cd = struct.unpack("<I", z[-22 - len(b"arc comment") + 16:][:4])[0]
flips("py.zip", cd, len(z), 2, "zip")          # the central directory and end record
PY
n_flips=0
for f in flips/*; do
    "$FZ7" l -slt "$f" >flip.out 2>&1 </dev/null
    rc=$?
    n_flips=$((n_flips + 1))
    case $rc in
    0 | 2) ok ;;
    *) bad "l -slt $f: exit $rc" ;;
    esac
done
[ "$n_flips" -gt 300 ] && ok || bad "only $n_flips damaged archives"

# A zip whose central directory names its entries in another order than
# their data (c, a, b against a, b, c): listed in the directory's order, as
# 7zz lists it; extracted whole.
python3 - <<'PY'
import struct, zipfile
with zipfile.ZipFile("cdorder.zip", "w") as z:
    for n in "abc":
        z.writestr(n, n * 3)
d = open("cdorder.zip", "rb").read()
end = d.rfind(b"PK\x05\x06")
size, off = struct.unpack("<II", d[end + 12:end + 20])
recs, p = [], off
while p < off + size:
    n, x, c = struct.unpack("<HHH", d[p + 28:p + 34])
    recs.append(d[p:p + 46 + n + x + c])
    p += 46 + n + x + c
open("cdorder.zip", "wb").write(d[:off] + recs[2] + recs[0] + recs[1] + d[off + size:])
PY
"$FZ7" l cdorder.zip >cdorder.out 2>&1
same "zip listed in directory order" "$(sed -n '/^-----/,/^-----/p' cdorder.out | awk 'NF == 6 {printf "%s", $6}')" "cab"
same "zip -slt in directory order" "$("$FZ7" l -slt cdorder.zip 2>&1 | sed -n 's/^Path = \(.\)$/\1/p' | tr -d '\n')" "cab"
rm -rf cdx && "$FZ7" x -ocdx cdorder.zip >/dev/null 2>&1 && same "cdorder.zip extracted" "$(cat cdx/a cdx/b cdx/c)" "aaabbbccc" ||
    bad "x cdorder.zip failed"

# --- beside 7zz: whole listings of archives other tools made ---
if command -v 7zz >/dev/null; then
    mkdir -p t/d && echo abc >t/d/f.txt && ln -s f.txt t/d/l && ln t/d/f.txt t/d/hard &&
        mkfifo t/d/fifo && echo é >t/d/é.txt && mkdir -p "t/d/$(printf 'n%.0s' $(seq 120))" &&
        touch -d '2021-01-02 03:04:05.123456789' t/d/f.txt
    arcs="gnu.tar ustar.tar pax.tar py.zip cdorder.zip renamed.gz plain.bz2"
    for fmt in gnu pax ustar v7; do
        tar --format=$fmt -cf "made-$fmt.tar" -C t d 2>/dev/null && arcs="$arcs made-$fmt.tar"
    done
    bsdtar -cf made-bsd.tar -C t d 2>/dev/null && arcs="$arcs made-bsd.tar"
    # a backup's usual form: the folder's own "./" first (7zz lists it as ".")
    (cd t/d && tar --exclude=./fifo -cf ../../made-dot.tar .) && arcs="$arcs made-dot.tar"
    # x and t of tar links beside 7zz: x leaves symlinks and hard links out
    # of its Files and Size lines, t counts them; a FIFO is an empty file
    for c in "x -y -oxo" t; do
        for a in made-gnu.tar made-dot.tar; do
            [ -f "$a" ] || continue
            rm -rf xo && 7zz $c "$a" 2>&1 | sed '1,/^Scanning/d' >want.txt
            rm -rf xo && "$FZ7" $c "$a" 2>&1 | sed '1,/^Scanning/d' >got.txt
            if cmp -s want.txt got.txt; then ok; else bad "$c $a differs from 7zz's"; diff want.txt got.txt | head -6; fi
        done
    done
    if [ -f made-gnu.tar ]; then
        rm -rf xo && "$FZ7" x -oxo made-gnu.tar >/dev/null 2>&1
        same "x made-gnu.tar: exit, and the FIFO as an empty file" "$? $(stat -c '%F %s' xo/d/fifo)" "0 regular empty file 0"
    fi
    [ -f n.cpio ] && arcs="$arcs n.cpio"
    arcs="$arcs crc.cpio"
    for c in crc crcbad; do   # t and x of a "crc" cpio: exit code and lines as 7zz's
        for cmd in t x; do
            rm -rf xo; 7zz $cmd -oxo $c.cpio >want.txt 2>want.err; r1=$?
            rm -rf xo; "$FZ7" $cmd -oxo $c.cpio >got.txt 2>got.err; r2=$?
            if [ $r1 = $r2 ] && cmp -s <(sed '1,/^Scanning/d' want.txt) <(sed '1,/^Scanning/d' got.txt) &&
                [ "$(head -1 want.err)" = "$(head -1 got.err)" ]; then ok; else bad "$cmd $c.cpio: exit $r2 (7zz $r1) or lines differ"; fi
        done
    done
    if [ -f v.iso ]; then   # t: the archive block
        7zz t v.iso 2>&1 | sed '1,/^Scanning/d' >want.txt
        "$FZ7" t v.iso 2>&1 | sed '1,/^Scanning/d' >got.txt
        if cmp -s want.txt got.txt; then ok; else bad "t v.iso differs from 7zz's"; diff want.txt got.txt | head -6; fi
    fi
    # ISO images with and without Joliet names (Rock Ridge in both): l in
    # 7-Zip's order (a folder's contents after it), -slt's fields, a
    # folder's blank sizes, a link of size 0, the identifiers of a
    # non-Joliet image; t and x lines. With Joliet 7zz reads no Rock Ridge,
    # fz7 does: its Mode and Symbolic Link lines are left out there.
    mkdir -p isrc/d isrc/c && printf 'hi\n' >isrc/a.txt && printf 'there\n' >isrc/d/b.txt &&
        printf 'z\n' >isrc/c/z.txt && ln -sf a.txt isrc/ln && touch -d '2024-01-02 03:04:05' isrc/* isrc/*/*
    for v in joliet '!joliet,publisher=PUBX,volume-id=VOLX,application-id=APPX'; do
        rm -f iv.iso && bsdtar -cf iv.iso --format iso9660 --options "$v" -C isrc . 2>/dev/null || continue
        for c in l "l -slt" t "x -y -oxo"; do
            rm -rf xo; 7zz $c iv.iso 2>&1 | sed '1,/^Scanning/d' | grep -vE '^(Mode|Symbolic Link) = ' >want.txt
            rm -rf xo; "$FZ7" $c iv.iso 2>&1 | sed '1,/^Scanning/d' | grep -vE '^(Mode|Symbolic Link) = ' >got.txt
            if cmp -s want.txt got.txt; then ok; else bad "$c iv.iso ($v) differs from 7zz's"; diff want.txt got.txt | head -6; fi
        done
        "$FZ7" l -slt iv.iso >got.txt 2>&1
        same "l -slt iv.iso ($v): Rock Ridge's mode and link" \
            "$(grep -A7 '^Path = ln$' got.txt | grep -E '^(Mode|Symbolic Link) = ' | tr '\n' '|')" "Mode = lr-xr-xr-x|Symbolic Link = a.txt|"
    done
    # an image cut short (its last 100 bytes, its second half): 7zz's
    # "Unexpected end of archive" and Physical Size (it was "Everything is
    # Ok", exit 0), the entries before the cut extracted
    if [ -f iv.iso ]; then
        seq 1 100000 >isrc/d/big.txt
        bsdtar -cf ivb.iso --format iso9660 -C isrc . 2>/dev/null
        sz=$(stat -c %s ivb.iso)
        head -c $((sz - 100)) ivb.iso >cut1.iso && head -c $((sz / 2)) ivb.iso >cut2.iso
        for f in cut1.iso cut2.iso; do
            for c in l t; do
                7zz $c $f >want.txt 2>&1; echo "rc $?" >>want.txt
                "$FZ7" $c $f >got.txt 2>&1; echo "rc $?" >>got.txt
                # (sorted: 7zz tests in its listing's order, fz7 in the data's)
                if cmp -s <(sed '1,/^Scanning/d' want.txt | grep -vE '^(Mode|Symbolic Link) = ' | sort) \
                    <(sed '1,/^Scanning/d' got.txt | grep -vE '^(Mode|Symbolic Link) = |^  \(in ' | sort); then ok; else
                    bad "$c $f differs from 7zz's"; diff want.txt got.txt | head -6; fi
            done
            rm -rf cx7 cxf && 7zz x -ocx7 $f >/dev/null 2>&1; "$FZ7" x -ocxf $f >/dev/null 2>&1
            same "x $f: the files 7zz writes whole (7zz leaves c/z.txt empty, fz7 none)" \
                "$(cd cxf && for g in a.txt d/b.txt; do [ -f $g ] && sha256sum $g; done)" \
                "$(cd cx7 && for g in a.txt d/b.txt; do [ -f $g ] && sha256sum $g; done)"
        done
    fi
    for z in gzip bzip2 zstd; do
        command -v $z >/dev/null && $z -c made-gnu.tar >"made.tar.$z" && arcs="$arcs made.tar.$z"
    done
    bsdtar --format zip -cf made-bsd.zip -C t d 2>/dev/null && arcs="$arcs made-bsd.zip"
    if command -v zip >/dev/null; then
        (cd t && zip -qry9 ../made-info.zip d -x d/fifo) && arcs="$arcs made-info.zip"
    fi
    (cd t && 7zz a -tzip -snh ../made-7z.zip d -x!d/fifo >/dev/null &&
        7zz a -tzip -mm=Deflate -ppw ../made-zc.zip d -x!d/fifo >/dev/null &&
        7zz a -tzip -mem=AES256 -ppw ../made-aes.zip d/f.txt >/dev/null) &&
        arcs="$arcs made-7z.zip made-zc.zip made-aes.zip"
    for a in $arcs; do
        for sw in "" -slt; do
            # past the banner (two lines in 7zz, one in fz7) and the blank after it
            7zz l $sw -ppw "$a" 2>&1 | sed '1,/^Scanning/d' >want.txt
            "$FZ7" l $sw -ppw "$a" 2>&1 | sed '1,/^Scanning/d' >got.txt
            if cmp -s want.txt got.txt; then ok; else bad "l $sw $a differs from 7zz's"; diff want.txt got.txt | head -6; fi
        done
    done
else
    echo "note: 7zz not installed: the listings beside 7zz's are skipped"
fi

# `i`: each format fz7 reads and does not write is listed with 7zz's name,
# extensions and signature (the flag column is fz7's own).
if command -v 7zz >/dev/null; then
    for f in Ar Cab Cpio FAT Iso Lzh MBR Rpm Xar; do
        want=$(7zz i | awk -v f="$f" '/^Formats:/{on=1; next} /^$/{on=0} on && $2 == f {$1=""; print}')
        got=$("$FZ7" i | awk -v f="$f" '/^Formats:/{on=1; next} /^$/{on=0} on && $2 == f {$1=""; print}')
        same "i: the $f line" "$got" "$want"
    done
fi

t_summary list_formats
