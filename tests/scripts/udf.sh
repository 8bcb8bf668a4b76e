#!/usr/bin/env bash
# udf.sh - UDF images read as 7zz reads them (Type = Udf): `l`, `l -slt`,
# `l -ba`, `t`, `x` and `e` give 7zz's lines (after the banner) and exit
# code, and `x`/`e` the same files (bytes, mtimes). The images come from
# mkudf.py (a UDF cannot be mounted here, and mkudffs makes only empty
# ones): 512- and 2048-byte blocks, file entries and extended ones, short
# and long allocation descriptors, UDF 1.02, 2.01 and 2.50; names in 8-
# and 16-bit compressed Unicode (a surrogate pair among them), nested and
# empty folders, an empty file, data embedded in its entry, a file in four
# extents out of disc order, a deleted name, time zones; files 7zz does not
# read (an unrecorded extent, an allocation extent descriptor: Unsupported
# Method), a folder naming itself, a folder and a file with two names, odd
# names (empty, "..", a lone surrogate), folders 1023 and 1024 deep,
# descriptors with a bad checksum or CRC or damage behind sound tags, an
# image cut short and one with bytes after it. Also an empty mkudffs
# image, a genisoimage -udf hybrid (7zz opens its UDF side; so must fz7)
# and a plain ISO 9660 image (still Iso), and the Udf row of `fz7 i`.
# Without 7zz the fixed expectations below still run.
set -u
. "$(dirname "$0")/lib.sh"
t_init python3

export LC_ALL=C.UTF-8 TZ=UTC
MK=$FZ7_TESTS_DIR/scripts/mkudf.py
have7=$(command -v 7zz >/dev/null && echo 1)
[ -n "$have7" ] || echo "note: no 7zz, only the fixed expectations checked"

# Files and folders under a folder: type, size, mtime, SHA-256.
tree_sig() {
    [ -d "$1" ] || return 0
    (cd "$1" && { find . -mindepth 1 -type d -printf '%y %p\n'
                  find . -mindepth 1 ! -type d -printf '%y %s %T@ %p\n'; } | sort &&
        find . -type f -exec sha256sum {} + | sort -k2)
}

all_vs() {
    local f=$1
    [ -s "$f" ] || { bad "$f was not made"; return; }
    [ -n "$have7" ] || return 0
    vs_7zz l "$f"
    vs_7zz l -slt "$f"
    vs_7zz l -ba "$f"
    vs_7zz_d t "$f"
    same_files "$f"
}

mk() { python3 "$MK" "$1.json" "$1.img" || bad "mkudf.py $1 failed"; }

# The main tree (its spec reused below with other layouts).
python3 - <<'PY'
import json
lines = "".join("line %05d\n" % i for i in range(1500))
tree = [
    {"name": "a.txt", "data": "hello udf\n", "time": [2021, 2, 3, 4, 5, 6, 7, 8, 9, 0]},
    {"name": "empty.txt", "data": ""},
    {"name": "emptydir", "dir": []},
    {"name": "sub", "time": [1999, 12, 31, 23, 59, 58, 0, 0, 0, -300], "dir": [
        {"name": "caf\u00e9 \u00fc\u00df.txt", "data": "eight-bit name\n"},
        {"name": "\u65e5\u672c\u8a9e \U0001F600.txt", "wide": True, "data": "sixteen-bit name\n"},
        {"name": "deeper", "dir": [{"name": "Three", "dir": [{"name": "z.txt", "data": "deep\n",
                                                              "time": [2030, 6, 7, 8, 9, 10, 0, 0, 0, 120]}]}]},
    ]},
    {"name": "emb.txt", "data": "embedded in its entry\n", "embed": True},
    {"name": "four.bin", "data": lines, "pieces": 4},
    {"name": "kept.txt", "data": "after a deleted name\n", "deleted": True},
]
json.dump({"ss": 2048, "rev": 0x0201, "vol": "MAIN", "tree": tree}, open("main.json", "w"))
json.dump({"ss": 512, "rev": 0x0250, "efe": True, "long_ad": True, "vol": "EFE", "tree": tree},
          open("efe.json", "w"))
json.dump({"efe": True, "root_embed": True, "tree": [{"name": "r.txt", "data": "root folder embedded\n"}]},
          open("rootemb.json", "w"))
json.dump({"ss": 2048, "rev": 0x0102, "vol": "OLD", "tree": tree[:4]}, open("old.json", "w"))
json.dump({"tree": [{"name": "a.txt", "data": "x\n"}, {"name": "sp.bin", "data": "S" * 5000, "sparse": 4096},
                    {"name": "b.txt", "data": "y\n"}]}, open("sparse.json", "w"))
json.dump({"ss": 512, "tree": [{"name": "a.txt", "data": "x\n"}, {"name": "aed.bin", "data": lines, "split": 2},
                               {"name": "b.txt", "data": "y\n"}]}, open("aed.json", "w"))
json.dump({"tree": [{"name": "d", "self": True, "dir": [{"name": "f", "data": "z"}]}]}, open("self.json", "w"))
# names for entries named already: a file (a hard link), a folder (listed
# twice, its files too), and a folder in each of 10 folders named twice
# (2^10 paths to its file)
json.dump({"tree": [{"name": "a.txt", "data": "linked\n"}, {"name": "b.txt", "link": "a.txt"},
                    {"name": "d", "dir": [{"name": "in.txt", "data": "in d\n"}]}, {"name": "e", "link": "d"}]},
          open("links.json", "w"))
# odd names: a lone surrogate, C1 controls, "..", empty ones ("[]", as 7zz
# names them)
json.dump({"tree": [{"name": "lone\ud800x.txt", "wide": True, "data": "a"}, {"name": "ctl\u0085\u00a0.txt", "data": "c"},
                    {"name": "..", "data": "d"}, {"name": "", "data": "e"},
                    {"name": "d", "dir": [{"name": "", "dir": [{"name": "z", "data": "z"}]}]}]},
          open("names.json", "w"))
fan = {"name": "f", "data": "x"}
for i in range(10):
    fan = {"name": "a", "dir": [fan, {"name": "b", "link": "f" if i == 0 else "a"}]}
json.dump({"tree": [fan]}, open("fan.json", "w"))
PY
for f in main efe rootemb old sparse aed self links fan names; do mk $f; done

# Damage, tag CRCs and checksums fixed or not (ECMA-167 3/7.2): a file
# entry with a bad checksum, one with a bad CRC, a FID with a bad CRC, the
# file set descriptor's tag identifier changed; the image cut short
# inside its files, cut in its closing zeros, with data after it.
MKDIR=$(dirname "$MK") python3 - <<'PY'
import os, struct, sys
img = open("main.img", "rb").read()
ss = 2048
def blocks(ident):
    return [o for o in range(0, len(img), ss) if struct.unpack_from("<H", img, o)[0] == ident
            and sum(img[o + i] for i in range(16) if i != 4) & 0xFF == img[o + 4]]
def save(name, d):
    open(name + ".img", "wb").write(d)
fe = blocks(261)[2]
d = bytearray(img); d[fe + 4] ^= 1; save("fe_sum", d)
d = bytearray(img); d[fe + 60] ^= 1; save("fe_crc", d)
# the root folder's FIDs: its first data block after the entries
fid = img.index(b"\x01\x01", blocks(261)[0] + ss)
d = bytearray(img)
while struct.unpack_from("<H", d, fid)[0] != 257: fid += 4
d[fid + 40] ^= 0x20; save("fid_crc", d)
fsd = blocks(256)[0]
d = bytearray(img); struct.pack_into("<H", d, fsd, 8)
d[fsd + 4] = sum(d[fsd + i] for i in range(16) if i != 4) & 0xFF; save("fsd_id", d)
# Damage behind sound tags (checksum and CRC recomputed), each as 7zz
# takes it: a descriptor version other than 2 or 3 (not read); a FID's ICB
# extent past its partition (not opened); a file's extent past its
# partition, or its size past its extents (Unsupported Method); years
# 1600 and 10000 (no time); the volume's and file set's recording times
# (Modified, Created), a partition map's volume sequence number and an
# odd domain identifier (the Comment).
sys.path.insert(0, os.environ["MKDIR"])
from mkudf import crc_itu
def retag(d, o):
    n = struct.unpack_from("<H", d, o + 10)[0]
    struct.pack_into("<H", d, o + 8, crc_itu(bytes(d[o + 16:o + 16 + n])))
    d[o + 4] = sum(d[o + i] for i in range(16) if i != 4) & 0xFF
def fixed(name, o, at, fmt, val, tag_at=None):
    d = bytearray(img); struct.pack_into(fmt, d, o + at, val); retag(d, o if tag_at is None else tag_at); save(name, d)
a_fe = [o for o in blocks(261) if struct.unpack_from("<Q", img, o + 56)[0] == 10][0]
fixed("version", a_fe, 2, "<H", 4)
fixed("icb_len", fid + 40, 20, "<I", 0x100000)   # (a.txt's, past the parent's)
fixed("ext_past", a_fe, 180, "<I", 0x7FFFFFF)
fixed("size_past", a_fe, 56, "<Q", 1 << 40)
fixed("year1600", a_fe, 86, "<h", 1600)
fixed("year10000", a_fe, 86, "<h", 10000)
fixed("pvd_time", blocks(1)[0], 383, "<B", 33)
fixed("fsd_time", fsd, 23, "<B", 55)
lvd = blocks(6)[0]
fixed("map_vsn", lvd, 442, "<H", 513)
fixed("domain", lvd, 219, "<B", ord("W"))
# more that 7zz fails the image for: a FID's padding not zeros (emptydir's,
# past the parent, a.txt and empty.txt FIDs), a FID's ICB extent other
# than one block, a folder's extents not summing to its size, allocation
# descriptors not a whole number of them; and makes Unsupported Method of:
# a file's extents summing past its size, embedded data not its size. AD
# flags 4 (bit 2) are read as 0 (short_ad), as 7zz reads them.
fixed("fid_pad", fid + 132, 47, "<B", 0x40)
fixed("icb_one_less", fid + 40, 20, "<I", ss - 1)
fixed("icb_type", fid + 40, 20, "<I", 0x40000000 | ss)
root_fe = blocks(261)[0]
fixed("dir_ext", root_fe, 176, "<I", struct.unpack_from("<I", img, root_fe + 176)[0] + 1)
fixed("ext_over", a_fe, 176, "<I", 11)
emb = [o for o in blocks(261) if struct.unpack_from("<Q", img, o + 56)[0] == 22][0]
fixed("emb_size", emb, 56, "<Q", 21)
fixed("ad_flags4", a_fe, 34, "<H", 4)
fixed("ad_long_odd", a_fe, 34, "<H", 1)
save("cut_files", img[:len(img) * 3 // 4])
save("cut_zeros", img[:len(img) - 2 * ss - 100])
save("tail", img + b"tail data\n")
save("zeros_after", img + bytes(3000))
PY

for f in main efe rootemb old self links names fe_sum fe_crc fid_crc fsd_id cut_files cut_zeros tail zeros_after version icb_len \
         year1600 year10000 pvd_time fsd_time map_vsn domain fid_pad icb_one_less icb_type dir_ext ad_flags4 ad_long_odd; do
    all_vs "$f.img"
done

# Files 7zz does not read: the same messages and exit code, the other
# files the same (7zz leaves an empty file for the one it does not read,
# fz7 none: its extraction keeps no file an entry failed to give).
for fn in sparse:sp.bin aed:aed.bin ext_past:a.txt size_past:a.txt ext_over:a.txt emb_size:emb.txt; do
    [ -n "$have7" ] || continue
    f=${fn%%:*}
    vs_7zz l -slt "$f.img"
    vs_7zz_d t "$f.img"
    vs_7zz_d x -y "$f.img" -ow7
    rm -rf w7 wf && 7zz x "$f.img" -ow7 >/dev/null 2>&1
    "$FZ7" x "$f.img" -owf >/dev/null 2>&1
    rm -f "w7/${fn#*:}"
    same "$f: other files" "$(tree_sig wf)" "$(tree_sig w7)"
done

# Folders 1023 deep open, 1024 deep do not (7zz's bound, and the
# reader's recursion bound).
for n in 1023 1024; do
    python3 -c "
s = '{\"name\": \"d\", \"dir\": []}'
for i in range($n - 1): s = '{\"name\": \"d\", \"dir\": [' + s + ']}'
open('deep$n.json', 'w').write('{\"ss\": 512, \"tree\": [' + s + ']}')"
    mk deep$n
    [ -z "$have7" ] || { vs_7zz l "deep$n.img"; vs_7zz_d t "deep$n.img"; }
done
expect_rc 0 "deep1023: l" "$FZ7" l deep1023.img
expect_rc 2 "deep1024: l" "$FZ7" l deep1024.img

# mkudffs: an empty volume as udftools writes it.
if command -v mkudffs >/dev/null; then
    truncate -s 2M mkudffs.img
    mkudffs -b 2048 --label=EMPTYVOL mkudffs.img >/dev/null 2>&1 || bad "mkudffs failed"
    all_vs mkudffs.img
    expect_rc 0 "mkudffs: t" "$FZ7" t mkudffs.img
else
    echo "note: no mkudffs, the udftools image skipped"
fi

# ISO 9660 + UDF (genisoimage -udf; xorriso makes no UDF): 7zz lists the
# UDF side, and so must fz7. A plain ISO 9660 image stays Iso.
mkdir -p isotree/sub && printf 'in the iso\n' >isotree/a.txt && printf 'below\n' >isotree/sub/b.txt
if command -v genisoimage >/dev/null; then
    genisoimage -quiet -udf -R -J -o hybrid.iso isotree 2>/dev/null || bad "genisoimage -udf failed"
    genisoimage -quiet -R -J -o plain.iso isotree 2>/dev/null || bad "genisoimage failed"
    all_vs hybrid.iso
    # (plain: l -slt aside, whose Mode lines differ from 7zz's as before)
    [ -z "$have7" ] || { vs_7zz l plain.iso; vs_7zz_d t plain.iso; same_files plain.iso; }
    "$FZ7" l -slt hybrid.iso >out.txt 2>&1
    same "hybrid: Udf" "$(grep -m1 '^Type = ' out.txt)" "Type = Udf"
    "$FZ7" l -slt plain.iso >out.txt 2>&1
    same "plain ISO: Iso" "$(grep -m1 '^Type = ' out.txt)" "Type = Iso"
else
    echo "note: no genisoimage, the hybrid ISO skipped"
fi

# Fixed values, so a missing or changed 7zz does not pass unnoticed.
"$FZ7" l -slt main.img >out.txt 2>&1
same "main: type" "$(grep -m1 '^Type = ' out.txt)" "Type = Udf"
same "main: paths" "$(grep '^Path = ' out.txt | tail -n +2 | cut -c8- | tr '\n' '|')" \
    "a.txt|empty.txt|emptydir|sub|sub/café üß.txt|sub/日本語 😀.txt|sub/deeper|sub/deeper/Three|sub/deeper/Three/z.txt|emb.txt|four.bin|kept.txt|"
same "main: a.txt mtime" "$(grep -A4 '^Path = a.txt$' out.txt | grep '^Modified')" \
    "Modified = 2021-02-03 04:05:06.070809"
same "main: UTC-5 folder" "$(grep -A4 '^Path = sub$' out.txt | grep '^Modified')" \
    "Modified = 2000-01-01 04:59:58.000000"
same "main: four extents" "$(grep -A3 '^Path = four.bin$' out.txt | grep -E '^(Size|Packed)' | tr '\n' ' ')" \
    "Size = 16500 Packed Size = 18432 "
same "main: version" "$(grep -m1 '^Version = ' out.txt)" "Version = 2.01"
expect_rc 0 "main: t" "$FZ7" t main.img
rm -rf fx && "$FZ7" x main.img -ofx >/dev/null 2>&1
same "main: four.bin bytes" "$(sha256sum <fx/four.bin)" \
    "$(python3 -c 'import sys; sys.stdout.write("".join("line %05d\n" % i for i in range(1500)))' | sha256sum)"
same "main: wide name" "$(cat "fx/sub/日本語 😀.txt")" "sixteen-bit name"
same "main: embedded" "$(cat fx/emb.txt)" "embedded in its entry"
same "main: empty file" "$(stat -c %s fx/empty.txt)" "0"
same "main: z.txt mtime" "$(stat -c %y fx/sub/deeper/Three/z.txt)" "2030-06-07 06:09:10.000000000 +0000"
"$FZ7" l -slt efe.img >out.txt 2>&1
same "efe: Created" "$(grep -A7 '^Path = a.txt$' out.txt | grep '^Created')" "Created = 2021-02-03 04:05:06.070809"
same "efe: block size" "$(grep -m1 '^Cluster Size = ' out.txt)" "Cluster Size = 512"
expect_rc 2 "sparse: t" "$FZ7" t sparse.img
same "sparse: unsupported" "$(cat out.txt err.txt | grep -c 'Unsupported Method : sp.bin')" "1"
expect_rc 2 "aed: t" "$FZ7" t aed.img
same "aed: unsupported" "$(cat out.txt err.txt | grep -c 'Unsupported Method : aed.bin')" "1"
"$FZ7" l -slt rootemb.img >out.txt 2>&1
same "rootemb: listed" "$(grep '^Path = r.txt$' out.txt)" "Path = r.txt"
expect_rc 2 "self: l" "$FZ7" l self.img
"$FZ7" l -ba links.img >out.txt 2>&1
same "links: paths" "$(awk '{print $NF}' out.txt | tr '\n' ' ')" "a.txt b.txt d d/in.txt e e/in.txt "
"$FZ7" l -ba names.img >out.txt 2>&1
same "names: empty ones" "$(grep -c -e ' \[\]$' -e ' d/\[\]$' -e ' d/\[\]/z$' out.txt)" "3"
"$FZ7" l fan.img >out.txt 2>&1
same "fan: every path" "$(tail -1 out.txt | grep -c ' 1024 files, 1023 folders$')" "1"
# (x only: e would write 1024 files named f into one folder)
[ -z "$have7" ] || { vs_7zz l fan.img; vs_7zz l -slt fan.img; vs_7zz_d t fan.img; vs_7zz_d x -y fan.img -ow7; }
expect_rc 2 "fe_crc: l" "$FZ7" l fe_crc.img
expect_rc 0 "tail: l" "$FZ7" l tail.img
same "tail: size" "$(grep -m1 '^Tail Size = ' out.txt)" "Tail Size = 10"
expect_rc 2 "cut_files: t" "$FZ7" t cut_files.img
expect_rc 2 "version: l" "$FZ7" l version.img
expect_rc 2 "icb_len: l" "$FZ7" l icb_len.img
expect_rc 2 "fid_pad: l" "$FZ7" l fid_pad.img
expect_rc 0 "icb_type: t" "$FZ7" t icb_type.img
expect_rc 2 "dir_ext: l" "$FZ7" l dir_ext.img
expect_rc 0 "ad_flags4: t" "$FZ7" t ad_flags4.img
expect_rc 2 "ext_over: t" "$FZ7" t ext_over.img
expect_rc 2 "ext_past: t" "$FZ7" t ext_past.img
same "ext_past: unsupported" "$(cat out.txt err.txt | grep -c 'Unsupported Method : a.txt')" "1"
"$FZ7" l -slt year10000.img >out.txt 2>&1
same "year 10000: no time" "$(grep -A4 '^Path = a.txt$' out.txt | grep '^Modified')" "Modified = "
"$FZ7" l -slt pvd_time.img >out.txt 2>&1
same "PVD time: Modified" "$(grep -m1 '^Modified = ' out.txt)" "Modified = 2024-05-06 07:33:09.123456"
"$FZ7" l -slt map_vsn.img >out.txt 2>&1
same "map volume sequence number" "$(grep -c 'VolumeSequenceNumber: 513' out.txt)" "1"
# (the flags column aside, as list_formats.sh compares it)
same "fz7 i: Udf" "$("$FZ7" i | awk '$2 == "Udf" {$1 = ""; print}')" \
    " Udf udf iso img offset=32768 00 B E A 0 1 01 00 || 01 C D 0 0 1"
if [ -n "$have7" ]; then
    same "fz7 i: Udf as 7zz" "$("$FZ7" i | awk '$2 == "Udf" {$1 = ""; print}')" \
        "$(7zz i | awk '$2 == "Udf" {$1 = ""; print}')"
fi

t_summary udf.sh
