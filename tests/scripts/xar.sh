#!/usr/bin/env bash
# xar.sh - xar archives (made here by bsdtar, some with their TOC edited by
# python3) read as 7zz reads them: `l`, `l -slt`, `t`, `x` and `e` give
# 7zz's lines (after the banner) and exit code, and `x`/`e` the same
# files. 7zz lists the TOC's files in its order, then the TOC itself as
# [TOC].xml; its archive block has the TOC checksum's Method and the
# creation time as stored, each file its encoding and checksum styles,
# offset and extracted checksum, a file without <data> no size.
set -u
. "$(dirname "$0")/lib.sh"
t_init 7zz python3 bsdtar

export LC_ALL=C.UTF-8 TZ=UTC

# t of a damaged archive: 7zz's lines, fz7's own "(in ...)" details aside
vs_7zz_damaged() {
    local want got
    want=$(7zz "$@" 2>&1 | tail -n +4; echo "rc=${PIPESTATUS[0]}")
    got=$("$FZ7" "$@" 2>&1 | tail -n +4 | grep -v '^  (in '; echo "rc=${PIPESTATUS[0]}")
    same "$*" "$got" "$want"
}

mkdir -p d/sub
printf 'hello\n' >d/a.txt
seq 1 3000 >d/sub/b.txt
: >d/empty
ln -s a.txt d/link
touch -d '2024-01-02 03:04:06' d/a.txt d/sub/b.txt d/empty
bsdtar -cf gzip.xar --format xar d
bsdtar -cf none.xar --format xar --options xar:compression=none d
bsdtar -cf bzip2.xar --format xar --options xar:compression=bzip2 d
bsdtar -cf md5.xar --format xar --options xar:toc-checksum=md5,xar:checksum=md5 d
bsdtar -cf nosum.xar --format xar --options xar:toc-checksum=none,xar:checksum=none d
bsdtar -cf xz.xar --format xar --options xar:compression=xz d

# The TOC edited (each 'old=>new' replaced), recompressed, its checksum redone.
cat >edit.py <<'PY'
import sys, zlib, struct, hashlib
src, dst, *subs = sys.argv[1:]
d = open(src, 'rb').read()
hs, ver, tl, tu, alg = struct.unpack('>HHQQI', d[4:28])
xml = zlib.decompress(d[hs:hs + tl]).decode()
for s in subs:
    a, b = s.split('=>')
    assert a in xml, a
    xml = xml.replace(a, b)
z = zlib.compress(xml.encode(), 9)
heap = bytearray(d[hs + tl:])
if alg == 1: heap[0:20] = hashlib.sha1(z).digest()
if alg == 2: heap[0:16] = hashlib.md5(z).digest()
open(dst, 'wb').write(d[:4] + struct.pack('>HHQQI', hs, ver, len(z), len(xml.encode()), alg) + d[28:hs] + z + bytes(heap))
PY
ct=$(python3 -c "import re,zlib,struct;d=open('gzip.xar','rb').read();h,v,l=struct.unpack('>HHQ',d[4:16]);print(re.search(r'<creation-time>([^<]*)',zlib.decompress(d[h:h+l]).decode()).group(1))")
# times 7zz does not read (a fraction, garbage), a user name with an
# entity (7zz shows it as stored), a name with one (decoded), a mode
python3 edit.py gzip.xar fields.xar "<creation-time>$ct<=><creation-time>2020-01-02T03:04:05.25Z<" \
    '<mtime>2024-01-02T03:04:06Z</mtime>
     <atime>=><mtime>2024-01-02T03:04:06.5Z</mtime>
     <atime>' '<user>root</user>=><user>al&amp;ice</user>' '<name>a.txt</name>=><name>a&amp;b.txt</name>' \
    '<mode>0755</mode>=><mode>04750</mode>'
# a wrong extracted checksum: CRC Failed
python3 edit.py gzip.xar badsum.xar '<extracted-checksum style="sha1">eabd=><extracted-checksum style="sha1">0abd'
# styles 7zz does not know, no encoding: Unsupported Method
python3 edit.py gzip.xar styles.xar '<encoding style="application/x-gzip"/>
      <archived-checksum style="sha1">=><encoding style="application/x-foo"/>
      <archived-checksum style="SHA256">'
head -c 3000 gzip.xar >cut.xar

for arc in gzip.xar none.xar bzip2.xar md5.xar nosum.xar fields.xar; do
    vs_7zz l "$arc"
    vs_7zz l -slt "$arc"
    vs_7zz t "$arc"
    same_files "$arc"
done
for arc in xz.xar badsum.xar styles.xar cut.xar; do
    vs_7zz l "$arc"
    vs_7zz l -slt "$arc"
done
vs_7zz_damaged t badsum.xar
vs_7zz_damaged t cut.xar
# 7zz cannot decode xz data in a xar ("Unsupported Method"); fz7 can
expect_rc 0 "t xz.xar" "$FZ7" t xz.xar
rm -rf wx wn
"$FZ7" x xz.xar -owx >/dev/null && "$FZ7" x none.xar -ownone >/dev/null
same "x xz.xar: files" "$(tree_sig wx | grep -v TOC)" "$(tree_sig wnone | grep -v TOC)"
t_summary xar
