#!/usr/bin/env bash
# reader_edges.sh - what a new user found reading odd archives, each
# checked against 7zz 26.02 on the same input:
#  - a 7z names property with one name too many (a NUL put into a name,
#    the CRCs made good again) is a headers error, exit 2, as with 7zz,
#    but nothing is written (7zz writes the files under the shifted
#    names);
#  - a 7z entry with data whose attributes say "folder" (the Windows bit
#    or a Unix directory mode) is extracted as the file it is, with 7zz's
#    mode, and listed with 7zz's Attr column;
#  - `h` sums "for data and names" over names that are not UTF-8 as 7zz
#    does (its U+EF00 escapes) and prints a newline in a name as '_';
#  - a 7z pack stream longer than its LZMA, LZMA2 or PPMd data is a Data
#    Error (7zz too), the file's bytes still written;
#  - a tar hard link that names its file through an earlier link, with a
#    leading '/', or before the file itself, is made a link; `t -scrc` gives hard links no data of
#    their own (7zz's sums), `x -so` their file's data (7zz: none).
set -u
. "$(dirname "$0")/lib.sh"
t_init 7zz python3

# patch IN OUT OLDHEX NEWHEX: the first OLDHEX in IN's (uncompressed)
# header becomes NEWHEX, and the header's and start header's CRCs are
# made good.
patch() {
  python3 - "$@" <<'PY'
import struct, sys, zlib
b = bytearray(open(sys.argv[1], 'rb').read())
old, new = bytes.fromhex(sys.argv[3]), bytes.fromhex(sys.argv[4])
off, size, _ = struct.unpack('<QQI', b[12:32])
hs = 32 + off
i = b.index(old, hs)
b[i:i + len(old)] = new
b[28:32] = struct.pack('<I', zlib.crc32(b[hs:hs + size]))
b[8:12] = struct.pack('<I', zlib.crc32(b[12:32]))
open(sys.argv[2], 'wb').write(b)
PY
}

# ---- one name too many ----
mkdir -p s && printf 'one\n' > s/ab && printf 'two\n' > s/cd
7zz a -bso0 -mhc=off names.7z ./s/ab ./s/cd || bad "7zz a failed"
patch names.7z extra.7z 610062000000 610000000000   # "ab" -> "a", ""
for c in l t x; do
  rm -rf o o7 && mkdir o o7
  (cd o7 && 7zz $c ../extra.7z >../7.out 2>&1); r7=$?
  (cd o && "$FZ7" $c ../extra.7z >../f.out 2>&1); rf=$?
  [ $rf = 2 ] && [ $r7 = 2 ] && grep -q 'Headers Error' f.out && [ -z "$(ls o)" ] && ok ||
    bad "$c extra.7z: exit $rf (7zz $r7), wrote '$(ls o)': $(cat f.out)"
done

# ---- data under folder attributes ----
printf 'hello world\n' > a.txt && chmod 644 a.txt
7zz a -bso0 -mhc=off attr.7z a.txt || bad "7zz a failed"
patch attr.7z unixdir.7z 2080a481 2080ed41   # -rw-r--r-- -> drwxr-xr-x
patch attr.7z windir.7z 2080a481 10000000    # FILE_ATTRIBUTE_DIRECTORY alone
for arc in unixdir.7z windir.7z; do
  rm -rf o7 of
  7zz x -bso0 -oo7 "$arc" >/dev/null 2>&1; r7=$?
  "$FZ7" x -bso0 -oof "$arc" >/dev/null 2>&1; rf=$?
  want=$(stat -c '%F %s %a' o7/a.txt 2>&1) got=$(stat -c '%F %s %a' of/a.txt 2>&1)
  [ $rf = 0 ] && [ $r7 = 0 ] && [ "$got" = "$want" ] && cmp -s of/a.txt a.txt && ok ||
    bad "x $arc: exit $rf (7zz $r7), '$got' (7zz '$want')"
  col() { grep -a ' a\.txt$' | cut -c21-25; }
  want=$(7zz l "$arc" | col) got=$("$FZ7" l "$arc" | col)
  [ -n "$want" ] && [ "$got" = "$want" ] && ok || bad "l $arc: Attr '$got' (7zz '$want')"
done

# ---- h over odd names ----
mkdir -p hd && printf 1 > hd/ok && printf 2 > hd/$'x\xff' && printf 3 > hd/$'n\nl'
sums() { grep -a 'for data' | tr -s ' '; }
want=$(7zz h '-scrc*' hd | sums) got=$("$FZ7" h '-scrc*' hd | sums)
[ -n "$want" ] && [ "$got" = "$want" ] && ok || bad "h sums over odd names: $got (7zz $want)"
want=$(7zz h -ba hd | LC_ALL=C sort) got=$("$FZ7" h -ba hd | LC_ALL=C sort)
[ "$got" = "$want" ] && ok || bad "h -ba rows: $got (7zz $want)"

# ---- tar hard links ----
python3 - <<'PY'
import io, tarfile
with tarfile.open('links.tar', 'w', format=tarfile.GNU_FORMAT) as t:
    def f(n, d):
        i = tarfile.TarInfo(n); i.size = len(d); t.addfile(i, io.BytesIO(d))
    def h(n, target):
        i = tarfile.TarInfo(n); i.type = tarfile.LNKTYPE; i.linkname = target; t.addfile(i)
    h('d/fwd', 'd/real')     # before its file
    f('d/real', b'data\n')
    h('d/h1', 'd/real')
    h('d/chain', 'd/h1')     # through an earlier link
    h('d/absT', '/d/real')   # a leading '/'
PY
rm -rf lo && "$FZ7" x -bso0 -olo links.tar >/dev/null 2>&1; rf=$?
inodes=$(stat -c %i lo/d/real lo/d/h1 lo/d/chain lo/d/absT lo/d/fwd 2>/dev/null | sort -u | wc -l)
[ $rf = 0 ] && [ "$inodes" = 1 ] && [ "$(stat -c %h lo/d/real)" = 5 ] && ok ||
  bad "x links.tar: exit $rf, $inodes inodes for 5 names"
# -so: every link gives its file's bytes (7zz gives links none: `e -so`
# of a file stored as a link would be empty).
[ "$("$FZ7" x -so links.tar 2>/dev/null)" = "$(printf 'data\ndata\ndata\ndata\ndata')" ] && ok ||
  bad "x -so links.tar: not the file's bytes five times"
want=$(7zz t -scrc links.tar | sums) got=$("$FZ7" t -scrc links.tar | sums)
[ -n "$want" ] && [ "$got" = "$want" ] && ok || bad "t -scrc links.tar: $got (7zz $want)"

# ---- a pack stream longer than its coder's data ----
# LZMA, LZMA2 and PPMd end exactly where their packed bytes do: a pack
# size grown by three bytes (junk after the stream, CRCs good) is a Data
# Error for t and x (exit 2, as 7zz), and x still writes the file's bytes.
grow() {
  python3 - "$@" <<'PY'
import struct, sys, zlib
b = bytearray(open(sys.argv[1], 'rb').read())
off, size, _ = struct.unpack('<QQI', b[12:32])
hdr = b[32 + off:32 + off + size]
assert hdr[:3] == b'\x01\x04\x06' and hdr[3] == 0 and hdr[4] == 1 and hdr[5] == 9
assert hdr[6] < 0x80 or (hdr[6] & 0xC0) == 0x80      # a size of one or two bytes
n = 1 if hdr[6] < 0x80 else 2
v = hdr[6] if n == 1 else ((hdr[6] & 0x3F) << 8) | hdr[7]
v += 3
enc = bytes([v]) if v < 0x80 else bytes([0x80 | (v >> 8), v & 0xFF])
hdr = hdr[:6] + enc + hdr[6 + n:]
packed = b[32:32 + off] + b'\x01\x02\x03'
sh = struct.pack('<QQI', len(packed), len(hdr), zlib.crc32(hdr))
open(sys.argv[2], 'wb').write(b[:8] + struct.pack('<I', zlib.crc32(sh)) + sh + packed + hdr)
PY
}
seq 1 3000 > w.txt
for m in LZMA LZMA2 PPMd; do
  rm -f p.7z && 7zz a -bso0 -mhc=off -m0=$m p.7z w.txt || bad "7zz a -m0=$m failed"
  grow p.7z g.7z
  7zz t g.7z >/dev/null 2>&1; r7=$?
  "$FZ7" t p.7z >/dev/null 2>&1; good=$?
  "$FZ7" t g.7z >f.out 2>&1; rf=$?
  rm -rf gx && "$FZ7" x -bso0 -ogx g.7z >/dev/null 2>&1; rx=$?
  [ $good = 0 ] && [ $r7 = 2 ] && [ $rf = 2 ] && [ $rx = 2 ] && grep -q '^ERROR: Data Error : w.txt' f.out &&
    cmp -s gx/w.txt w.txt && ok || bad "$m, pack stream 3 bytes long: t exit $rf (7zz $r7), x exit $rx: $(cat f.out)"
done

t_summary reader_edges.sh
