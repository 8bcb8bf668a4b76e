#!/usr/bin/env bash
# recover.sh - damaged archives: what fz7 saves from them, with the texts
# and exit codes of 7zz 26.02 (which these cases were checked against):
#  - a property ID written as a 9-byte NUMBER (Commons Compress
#    COMPRESS-681.7z): read as the UINT64 it is, the archive opens;
#  - a start header zeroed after the version (Commons Compress
#    bla.noendheaderoffset.7z): the next header is found at the end of the
#    file, "Headers Error" is a warning and everything is extracted, exit 0;
#  - xz files whose index or block header sizes are impossible: `l` fails
#    as `t` does;
#  - a file whose CRC fails keeps its decoded bytes, never over a good file;
#  - a Data Error mid-stream keeps every byte decoded before it, as 7zz,
#    and a file of which nothing was decoded is not made;
#  - a tar or zip cut short (a download or a backup that stopped): the
#    entries before the cut are listed and extracted, the cut one keeps
#    its bytes, with 7zz's lines and exit 2 (fz7 opened nothing before).
#  - an .xz cut inside an LZMA2 chunk gives what the chunk's bytes decode to.
set -u
. "$(dirname "$0")/lib.sh"
HERE=${FZ7_TESTS_DIR:-$(cd "$(dirname "$0")/.." && pwd)}/scripts
MK7Z="python3 $HERE/mk7z.py"
t_init 7zz python3 sha256sum xz
umask 022
# stdout without the banner line (the second), as fz7 and 7zz differ there
body() { grep -v '^ 64-bit \|^fz7 .*archiver\|^7-Zip (z)' "$1"; }

# ---- a property ID as a 9-byte NUMBER ----
# kArchiveProperties holding one property of ID 0x80 written in nine bytes
# (0xFF and eight little-endian bytes), two data bytes.
$MK7Z --archive-props "ff8000000000000000020a0b" p9.7z f:a.txt:hello
7zz t p9.7z >/dev/null 2>&1 && ok || bad "7zz refuses p9.7z (the generator is wrong)"
rm -rf o && mkdir o && (cd o && "$FZ7" x ../p9.7z >../out 2>../err); rc=$?
[ $rc = 0 ] && [ "$(cat o/a.txt 2>/dev/null)" = hello ] && [ ! -s err ] && ok ||
  bad "x p9.7z: exit $rc, a.txt '$(cat o/a.txt 2>/dev/null)', stderr '$(cat err)'"
# The same ID inside PackInfo (a property fz7 does not know, skipped).
if [ -f "${FZ7_SHARED:-/nonexistent}/corpus/7z/COMPRESS-681.7z" ]; then
  "$FZ7" t "$FZ7_SHARED/corpus/7z/COMPRESS-681.7z" >/dev/null 2>&1 && ok || bad "t COMPRESS-681.7z"
fi

# ---- a zeroed start header ----
printf 'hello world\n' > a.txt && printf 'second\n' > b.txt && touch -d @1700000000 a.txt b.txt
for v in enc plain; do
  sw=; [ $v = plain ] && sw=-mhc=off
  rm -f n.7z && 7zz a -bso0 $sw n.7z a.txt b.txt && cp n.7z z.7z &&
    dd if=/dev/zero of=z.7z bs=1 seek=8 count=24 conv=notrunc 2>/dev/null
  for c in t l; do
    7zz $c z.7z >7.out 2>7.err; r7=$?
    "$FZ7" $c z.7z >f.out 2>f.err; rf=$?
    [ $r7 = 0 ] && [ $rf = 0 ] && ok || bad "$c z.7z ($v): exit $rf, 7zz $r7"
    if diff <(body 7.out) <(body f.out) >d.txt && diff 7.err f.err >/dev/null; then ok
    else bad "$c z.7z ($v): output differs from 7zz"; sed 's/^/    /' d.txt | head -10; fi
  done
  grep -qx 'Headers Error' f.out && ok || bad "l z.7z ($v): no Headers Error line"
  rm -rf o && mkdir o && (cd o && "$FZ7" x ../z.7z >/dev/null 2>&1); rc=$?
  [ $rc = 0 ] && cmp -s o/a.txt a.txt && cmp -s o/b.txt b.txt && ok || bad "x z.7z ($v): exit $rc or bytes differ"
done
# Zeroed and cut short: nothing to find, an error (7zz: exit 2 as well).
head -c 40 z.7z > cut.7z
"$FZ7" t cut.7z >/dev/null 2>f.err; rc=$?
7zz t cut.7z >/dev/null 2>&1; r7=$?
[ $rc = 2 ] && [ $r7 = 2 ] && grep -q 'no header was found' f.err && ok ||
  bad "t cut.7z: exit $rc (7zz $r7), stderr '$(cat f.err)'"

# ---- xz files whose sizes are impossible ----
# l, t and x all fail (7zz: exit 2 for l and t; xz -l exits 1 on the index
# one and reads no block header).
MKXZ="python3 $HERE/mkxz.py"
for k in index-uncomp-overflow:"xz: the index's sizes add up to more than 2^63-1 (offset 84)" \
         block-header-csize:"Bad compressed size in block header"; do
  name=${k%%:*} why=${k#*:}
  $MKXZ $name.xz $name
  7zz l $name.xz >/dev/null 2>&1; r7=$?
  [ $r7 = 2 ] && ok || bad "7zz l $name.xz: exit $r7, want 2 (the generator changed?)"
  for c in l t; do
    "$FZ7" $c $name.xz >f.out 2>f.err; rc=$?
    [ $rc = 2 ] && grep -qxF "Open ERROR: Cannot open the file as [xz] archive" f.err && grep -qxF "$why" f.err && ok ||
      bad "$c $name.xz: exit $rc, stderr '$(cat f.err)'"
  done
done
$MKXZ good.xz good && "$FZ7" l good.xz >/dev/null 2>&1 && "$FZ7" t good.xz >/dev/null 2>&1 && ok ||
  bad "l/t good.xz (mkxz.py's sound file) failed"
for f in bad-3-index-uncomp-overflow.xz bad-1-block_header-4.xz; do
  [ -f "${FZ7_SHARED:-/nonexistent}/corpus/xz/$f" ] || continue
  "$FZ7" l "$FZ7_SHARED/corpus/xz/$f" >/dev/null 2>&1; rc=$?
  [ $rc = 2 ] && ok || bad "l $f: exit $rc, want 2"
done

# ---- a file whose CRC fails: its bytes are kept, never over a good file ----
printf 'hello world, this is a test of crc\n' > c.txt
rm -f c.7z && 7zz a -bso0 -mx0 c.7z c.txt
python3 -c "
d = bytearray(open('c.7z', 'rb').read()); d[32 + 3] ^= 1; open('crc.7z', 'wb').write(d)"
printf 'helmo world, this is a test of crc\n' > damaged.want
rm -rf o o7 && mkdir o o7 && (cd o && "$FZ7" x ../crc.7z >/dev/null 2>../f.err); rc=$?
(cd o7 && 7zz x ../crc.7z >/dev/null 2>&1); r7=$?
[ $rc = 2 ] && [ $r7 = 2 ] && cmp -s o7/c.txt damaged.want && ok || bad "x crc.7z: exit $rc (7zz $r7), want 2"
[ "$(cat f.err)" = 'ERROR: CRC Failed : c.txt
  (in ../crc.7z: CRC mismatch (expected BDB97AEE, got 4C637F44))' ] &&
  ok || bad "x crc.7z: stderr '$(cat f.err)'"
cmp -s o/c.txt damaged.want && [ "$(ls o)" = c.txt ] && ok || bad "x crc.7z: the damaged bytes are not kept in place"
# A good file is there: it stays, the damaged bytes go beside it.
cp c.txt o/c.txt
(cd o && "$FZ7" x -y ../crc.7z >/dev/null 2>../f.err); rc=$?
[ $rc = 2 ] && cmp -s o/c.txt c.txt && cmp -s o/c.txt.damaged damaged.want && ok ||
  bad "x -y crc.7z over a good file: exit $rc, or the good file changed, or c.txt.damaged is missing"
[ "$(tail -2 f.err)" = "ERROR: c.txt : the damaged data were kept as c.txt.damaged beside the existing file
  (in ../crc.7z)" ] &&
  [ "$(wc -l < f.err)" = 4 ] && ok || bad "x -y crc.7z: stderr '$(cat f.err)'"
(cd o && "$FZ7" x -y ../crc.7z >/dev/null 2>&1); rc=$?
[ $rc = 2 ] && cmp -s o/c.txt c.txt && cmp -s o/c.txt_1.damaged damaged.want && [ "$(ls o | wc -l)" = 3 ] && ok ||
  bad "x -y crc.7z again: exit $rc, or not kept as c.txt_1.damaged ($(ls o | tr '\n' ' '))"
# t writes nothing.
rm -rf o && mkdir o && (cd o && "$FZ7" t ../crc.7z >/dev/null 2>&1); rc=$?
[ $rc = 2 ] && [ -z "$(ls o)" ] && ok || bad "t crc.7z: exit $rc or wrote files"

# A Data Error in the middle of an LZMA2 stream: the bytes decoded before
# it are kept, as many as 7zz keeps (fz7 dropped the last 64 KiB piece).
python3 - <<'PY'
import random
r = random.Random(7)
words = [bytes(r.choice(b"abcdefghijklmnopqrstuvwxyz") for _ in range(r.randrange(2, 9))) for _ in range(3000)]
open("words.txt", "wb").write(b" ".join(r.choice(words) for _ in range(400_000)))
PY
rm -f w.7z && 7zz a -bd -mx5 w.7z words.txt >/dev/null 2>&1 && python3 -c "
d = bytearray(open('w.7z', 'rb').read()); d[len(d) // 2] ^= 0x55; open('wd.7z', 'wb').write(d)"
rm -rf o o7 && "$FZ7" x -bd -oo wd.7z >/dev/null 2>&1; rc=$?
7zz x -bd -oo7 wd.7z >/dev/null 2>&1; r7=$?
kept=$(stat -c %s o/words.txt 2>/dev/null || echo none)
good=$(cmp o/words.txt words.txt 2>/dev/null | sed -n 's/.* byte \([0-9]*\),.*/\1/p')
[ $rc = 2 ] && [ $r7 = 2 ] && cmp -s o/words.txt o7/words.txt && [ "${good:-0}" -gt 100000 ] && ok ||
  bad "x of a Data Error mid-stream: exit $rc (7zz $r7), kept $kept bytes, good up to ${good:-?}, 7zz kept $(stat -c %s o7/words.txt 2>/dev/null)"

# ---- a tar and a zip cut short ----
# Three 20,000-byte files (and their folder) by fz7, cut at 50,000 bytes:
# f1 and f2 whole, f3's first bytes (tar 6,992: after 4 headers and two
# 20,480-byte data blocks; zip 9,846: stored, after two local headers,
# data and f3's header), as 7zz 26.02 saves them.
rm -rf cs && mkdir -p cs/src && for i in 1 2 3; do python3 -c "import random, sys; random.seed($i); sys.stdout.buffer.write(random.randbytes(20000))" >cs/src/f$i.bin; done
for k in tar zip; do
  (cd cs && "$FZ7" a -mx0 -bd whole.$k src >/dev/null 2>&1 && head -c 50000 whole.$k >cut.$k) ||
    bad "making the $k to cut"
  want=6992 word="Data Error"
  [ $k = zip ] && want=9846 word="CRC Failed"
  rm -rf o && "$FZ7" x -oo cs/cut.$k >out 2>err; rc=$?
  same "x of a $k cut short: exit, files" "$rc $(cmp cs/src/f1.bin o/src/f1.bin && cmp cs/src/f2.bin o/src/f2.bin && echo whole) $(stat -c %s o/src/f3.bin)" "2 whole $want"
  same "x of a $k cut short: f3's first bytes" "$(head -c $want cs/src/f3.bin | sha256sum)" "$(sha256sum <o/src/f3.bin)"
  same "x of a $k cut short: stderr" "$(head -5 err | tr '\n' '|')" "|ERRORS:|Unexpected end of archive||ERROR: $word : src/f3.bin|"
  same "x of a $k cut short: the end" "$(tail -7 out | tr '\n' '|')" "Sub items Errors: 1||Archives with Errors: 1||Open Errors: 1||Sub items Errors: 1|"
  rm -rf o7 && 7zz x -oo7 cs/cut.$k >out7 2>err7; r7=$?
  same "x of a $k cut short: stdout as 7zz's" "$rc $(body out | sed 1,2d)" "$r7 $(body out7 | sed 1,2d)"
  "$FZ7" l cs/cut.$k >out 2>err; rc=$?
  7zz l cs/cut.$k >out7 2>err7; r7=$?
  # (a zip read from its local headers: their packed sizes, as 7zz)
  same "l of a $k cut short: as 7zz's (exit 2, ERRORS in the block, Errors: 1)" "$rc $(body out | sed 1,2d)" "$r7 $(body out7 | sed 1,2d)"
done
# A zip whose central directory is gone, or cut inside it: every entry is
# there (7zz: the same lines, exit 2); t passed the second with exit 0, and
# fz7 could not open the first
python3 - cs/whole.zip <<'PY'
import struct, sys
d = open(sys.argv[1], "rb").read()
e = d.rfind(b"PK\x05\x06")
cd = struct.unpack("<I", d[e + 16:e + 20])[0]
open("cs/nocd.zip", "wb").write(d[:cd])
open("cs/cdcut.zip", "wb").write(d[:cd + 30])
PY
for z in nocd cdcut; do
  rm -rf o && "$FZ7" x -oo cs/$z.zip >out 2>err; rc=$?
  rm -rf o7 && 7zz x -oo7 cs/$z.zip >out7 2>err7; r7=$?
  same "x of $z.zip: exit, files whole" "$rc $(for i in 1 2 3; do cmp cs/src/f$i.bin o/src/f$i.bin && echo -n "f$i "; done)" "2 f1 f2 f3 "
  same "x of $z.zip: stdout, stderr as 7zz's" "$(body out | sed 1,2d; cat err)" "$(body out7 | sed 1,2d; cat err7)"
  "$FZ7" t cs/$z.zip >out 2>err; rc=$?
  same "t of $z.zip: exit, Open Errors" "$rc $(grep -c '^Open Errors: 1$' out)" "2 1"
done

# A solid 7z damaged near its start: the files after the damage were never
# decoded, and 7zz leaves none of them; fz7 left each as a 0-byte file
rm -rf sd && mkdir -p sd/tree && printf 'a\n' >sd/tree/a.txt && seq 100000 >sd/tree/big.txt &&
  seq 5000 >sd/tree/nums.txt && printf 'h\n' >sd/tree/h.txt
(cd sd && 7zz a -bd t.7z tree >/dev/null && cp t.7z c.7z && printf '\x5a\xa5' | dd of=c.7z bs=1 seek=40 conv=notrunc 2>/dev/null)
rm -rf o && "$FZ7" x -y -oo sd/c.7z >out 2>err; rc=$?
rm -rf o7 && 7zz x -y -oo7 sd/c.7z >out7 2>err7; r7=$?
same "x of a damaged solid 7z: files left (name:size) as 7zz" "$rc $(cd o 2>/dev/null && find . -type f -printf '%p:%s ' | sort)" \
  "$r7 $(cd o7 2>/dev/null && find . -type f -printf '%p:%s ' | sort)"

# An .xz cut inside an LZMA2 chunk: the bytes its first part decodes to
# are given (fz7 dropped the whole chunk, up to 2 MiB: nothing at all from
# a 20,000-byte cut where xz and 7zz give 25,692), a prefix of the file,
# and as many bytes as 7zz gives (its last 64 bytes of input one symbol
# at a time: fz7 stopped up to 1.7 KB short)
python3 -c "import random, base64, sys; random.seed(9); sys.stdout.buffer.write(base64.encodebytes(random.randbytes(600000)))" >xc.txt
xz -k -c xc.txt >xc.txt.xz
for n in 1000 20000 200000; do
  head -c $n xc.txt.xz >xc.xz
  "$FZ7" x -so xc.xz >xo 2>/dev/null; rc=$?
  got=$(stat -c %s xo) want=$(7zz e -so xc.xz 2>/dev/null | wc -c)
  same "x -so of an .xz cut at $n: exit, a prefix, 7zz's $want bytes" \
    "$rc $(head -c "$got" xc.txt | cmp -s - xo && echo prefix) $got" "2 prefix $want"
done

# A zip whose Deflate data has 4 KiB zeroed: the file is the header's size
# with what decodes before the damage, the same bytes as 7zz's (fz7 wrote
# what the damaged data decoded to past that size too), and libarchive's
# reason on one line
seq 1 200000 >zs.txt && rm -f zs.zip && 7zz a -bd -tzip zs.zip zs.txt >/dev/null && 
  dd if=/dev/zero of=zs.zip bs=1 seek=200000 count=4096 conv=notrunc 2>/dev/null
rm -rf o o7 && "$FZ7" x -oo zs.zip >out 2>err; rc=$?
7zz x -oo7 zs.zip >/dev/null 2>&1
same "x of a zip with damaged Deflate data: exit, size, 7zz's bytes, one detail line" \
  "$rc $(stat -c %s o/zs.txt) $(cmp -s o/zs.txt o7/zs.txt && echo same) $(grep -c '^)$' err)" "2 $(stat -c %s zs.txt) same 0"

# Only f1 asked for: no item fails, the archive still has its error
rm -rf o && "$FZ7" x -oo cs/cut.tar src/f1.bin >out 2>err; rc=$?
same "x of one whole file of a cut tar" "$rc $(tail -5 out | tr '\n' '|')" "2 |Archives with Errors: 1||Open Errors: 1||"

t_summary recover.sh
