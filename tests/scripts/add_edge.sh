#!/bin/bash
# add_edge.sh - `fz7 a` on edge inputs: an empty file, a 1-byte file, no
# files, incompressible data, long and non-ASCII names, -ms=off against
# solid, -mhc=off, updating an existing archive, an unreadable input (exit
# 1, archive still complete), and failing writes (ulimit -f, SIGTERM): the
# old archive stays as it was and no temporary file is left. -sfx: the
# module's bytes, then the archive fz7 writes without it; with -v the
# module alone and the volumes of the plain archive.
set -u
. "$(dirname "$0")/lib_add.sh"
need_tools 7zz xz
S="${FZ7_SCRATCH:-$(mktemp -d)}"
rm -rf "$S"; mkdir -p "$S"
cd "$S" || exit 1

# 7zz t must accept $1; then 7zz x gives back the tree in $2 (relative names).
check_7z() {
    7zz t "$1" > log 2>&1 || { cat log; fail "7zz t rejects $1"; }
}
extract_same() {   # archive, source dir holding the names
    rm -rf out; mkdir out
    7zz x -snl -oout "$1" > log 2>&1 || { cat log; fail "7zz x $1"; }
    same_tree "$2" out
}

# Empty file, 1-byte file.
mkdir -p e1 && : > e1/empty
"$FZ7" a -bd e1.7z ./e1/empty > log 2>&1 || { cat log; fail "empty file"; }
check_7z e1.7z
[ "$(7zz l -slt e1.7z | grep -c '^Size = 0$')" = 1 ] || fail "empty file not listed with size 0"
extract_same e1.7z e1
mkdir -p e2 && printf 'Z' > e2/one
(cd e2 && "$FZ7" a -bd ../e2.7z one) > log 2>&1 || { cat log; fail "1-byte file"; }
check_7z e2.7z
[ "$(7zz x -so e2.7z one)" = "Z" ] || fail "1-byte file content"
# A lone entry's header stays plain (kHeader right after the data), as 7zz
# writes it: 82 bytes for the empty file (50 of header), 119 for the 1-byte
# file; two entries get an LZMA-encoded header (kEncodedHeader, 0x17).
hdr_kind() { od -An -tx1 -j$((32 + $(od -An -tu8 -j12 -N8 "$1"))) -N1 "$1" | tr -d ' '; }
[ "$(stat -c %s e1.7z) $(hdr_kind e1.7z)" = "82 01" ] || fail "e1.7z: $(stat -c %s e1.7z) bytes, header $(hdr_kind e1.7z) (7zz: 82, 01)"
[ "$(stat -c %s e2.7z) $(hdr_kind e2.7z)" = "119 01" ] || fail "e2.7z: $(stat -c %s e2.7z) bytes, header $(hdr_kind e2.7z) (7zz: 119, 01)"
(cd e2 && : > two && "$FZ7" a -bd ../e3.7z one two) > log 2>&1 || { cat log; fail "two files"; }
[ "$(hdr_kind e3.7z)" = 17 ] || fail "e3.7z: two entries, header $(hdr_kind e3.7z) (7zz: 17)"
"$FZ7" a -bd e2.xz e2/one > log 2>&1 && xz -dc e2.xz | cmp - e2/one || fail "1-byte .xz"
"$FZ7" a -bd e1.xz e1/empty > log 2>&1 && xz -t e1.xz && [ "$(xz -dc e1.xz | wc -c)" = 0 ] || fail "empty .xz"
# 7zz's xz of an empty file: one empty block (4 KiB dictionary) and a CRC32
# check, 52 bytes, byte for byte (xz(1) writes no block: 32 bytes).
[ "$(stat -c %s e1.xz)" = 52 ] || fail "empty .xz is $(stat -c %s e1.xz) bytes, 7zz writes 52"
[ "$(sha256sum < e1.xz | cut -c1-64)" = cea1f2742c83296e2b8c9248219324b361b5df50bde1a00ffccbd774971aab88 ] ||
    fail "empty .xz differs from 7zz's"

# No files: an empty folder as the current folder and no names.
mkdir -p nothing && (cd nothing && "$FZ7" a -bd ../none.7z) > log 2>&1 || { cat log; fail "no files"; }
[ "$(stat -c %s none.7z)" = 32 ] || fail "an archive of nothing is $(stat -c %s none.7z) bytes, 7-Zip writes 32"
check_7z none.7z

# Incompressible data: stored size stays close to the input.
mkdir -p rp/rnd && prng_bytes 1000000 7 > rp/rnd/r.bin
(cd rp && "$FZ7" a -bd ../rnd.7z rnd) > log 2>&1 || { cat log; fail "random data"; }
check_7z rnd.7z
size=$(stat -c %s rnd.7z)
[ "$size" -lt 1010000 ] || fail "1 MB of random data grew to $size bytes"
extract_same rnd.7z rp
"$FZ7" a -bd rnd.xz rp/rnd/r.bin > log 2>&1 && xz -dc rnd.xz | cmp - rp/rnd/r.bin || fail "random .xz"

# Long and non-ASCII names.
mkdir -p names && cd names
long=$(printf 'n%.0s' $(seq 1 200))
mkdir -p "$long/$long/ünïcødé/日本語の名前"
printf 'deep\n' > "$long/$long/ünïcødé/日本語の名前/$long.txt"
printf 'emoji\n' > "ü 😀 ✓.txt"
cd ..
"$FZ7" a -bd names.7z names > log 2>&1 || { cat log; fail "long names"; }
check_7z names.7z
rm -rf out; mkdir out; 7zz x -oout names.7z > log 2>&1 || { cat log; fail "7zz x long names"; }
same_tree names out/names

# Solid against -ms=off against -ms=2f.
mkdir -p mp/many && for i in 1 2 3 4 5; do text_lines 200 "$i" > "mp/many/f$i.txt"; done
ln -s mp/many many
"$FZ7" a -bd solid.7z many > log 2>&1 || fail "solid"
"$FZ7" a -bd -ms=off nonsolid.7z many > log 2>&1 || fail "-ms=off"
"$FZ7" a -bd -ms=2f two.7z many > log 2>&1 || fail "-ms=2f"
"$FZ7" a -bd -ms=e ext.7z many > log 2>&1 || fail "-ms=e"
[ "$(7zz l -slt solid.7z | grep '^Blocks = ')" = "Blocks = 1" ] || fail "solid archive is not one block"
[ "$(7zz l -slt nonsolid.7z | grep '^Blocks = ')" = "Blocks = 5" ] || fail "-ms=off is not one block per file"
[ "$(7zz l -slt two.7z | grep '^Blocks = ')" = "Blocks = 3" ] || fail "-ms=2f is not 3 blocks for 5 files"
[ "$(7zz l -slt ext.7z | grep '^Blocks = ')" = "Blocks = 1" ] || fail "-ms=e with one extension is not 1 block"
for a in solid nonsolid two ext; do check_7z $a.7z; done
extract_same nonsolid.7z mp

# -mqs -ms=e: sorted by extension, one block per extension: the same
# groups of files as 7zz makes (7-Zip orders the groups by its own table of
# file types, fz7 alphabetically, so only the grouping is compared).
mkdir -p qs/sub && for f in a.c b.txt c.c d.txt e.h sub/f.c sub/g.txt noext; do text_lines 20 7 > "qs/$f"; done
groups_of() {
    7zz l -slt "$1" | awk '/^Path = /{p=substr($0,8)} /^Block = /{if ($3 != "") g[$3] = g[$3] " " p}
        END {for (k in g) print g[k]}' | LC_ALL=C sort
}
7zz a -bd -mqs -ms=e qs_z.7z qs > /dev/null 2>&1 || fail "7zz -mqs"
"$FZ7" a -bd -mqs -ms=e qs_f.7z qs > log 2>&1 || { cat log; fail "fz7 -mqs"; }
[ "$(groups_of qs_z.7z)" = "$(groups_of qs_f.7z)" ] || { diff <(groups_of qs_z.7z) <(groups_of qs_f.7z); fail "-mqs -ms=e: blocks differ from 7zz"; }
[ "$(groups_of qs_f.7z | wc -l)" = 4 ] || fail "-mqs -ms=e: expected 4 blocks (none, c, h, txt)"

# -mhc=off: the header is plain (kHeader 0x01), by default encoded (0x17).
"$FZ7" a -bd -mhc=off plain.7z many > log 2>&1 || fail "-mhc=off"
check_7z plain.7z
first_header_byte() {
    local off
    off=$(od -An -t u8 -j 12 -N 8 "$1" | tr -d ' ')
    od -An -t x1 -j $((32 + off)) -N 1 "$1" | tr -d ' '
}
[ "$(first_header_byte plain.7z)" = 01 ] || fail "-mhc=off header starts with $(first_header_byte plain.7z)"
[ "$(first_header_byte solid.7z)" = 17 ] || fail "default header starts with $(first_header_byte solid.7z)"

# Updating: a new file is added, a changed one replaced, others kept.
mkdir -p up/upd && cd up && printf 'one\n' > upd/a && printf 'two\n' > upd/b
touch -d '2020-01-01 00:00:00' upd   # kept from the old archive: same time both runs
"$FZ7" a -bd ../upd.7z upd > ../log 2>&1 || fail "update: first add"
printf 'one, changed\n' > upd/a && printf 'three\n' > upd/c
touch -d '2020-01-01 00:00:00' upd
"$FZ7" a -bd ../upd.7z upd/a upd/c > ../log 2>&1 || { cat ../log; fail "update: second add"; }
cd ..
grep -q '^Updating archive' log || fail "update: no 'Updating archive' line"
check_7z upd.7z
extract_same upd.7z up
[ "$(7zz l -slt upd.7z | grep -c '^Path = upd\(/.*\)\?$')" = 4 ] || fail "update: expected upd, upd/a, upd/b, upd/c"

# Updating an archive 7zz made (solid, BCJ folder, encrypted): entries
# come back unchanged next to the new one.
mkdir -p z7/zin && text_lines 500 31 > z7/zin/t.txt && cp /bin/ls z7/zin/ls 2>/dev/null || prng_bytes 5000 32 > z7/zin/ls
(cd z7 && 7zz a -bd -psecret ../z7.7z zin > /dev/null 2>&1) || fail "7zz a for the update test"
cp z7.7z z7.orig
packed=$(7zz l -slt -psecret z7.7z | awk '/^Packed Size = [0-9]/{t += $4} END {print t}')
mkdir -p z7/zin2 && printf 'added\n' > z7/zin2/new.txt
(cd z7 && "$FZ7" a -bd -psecret ../z7.7z zin2) > log 2>&1 || { cat log; fail "fz7 a onto a 7zz archive"; }
# Folders whose files are all kept are copied, not compressed again.
[ "$packed" -gt 1000 ] || fail "expected the 7zz archive to hold packed data ($packed)"
cmp -n "$packed" -i 32:32 z7.orig z7.7z || fail "kept folders were not copied byte for byte"
7zz t -psecret z7.7z > log 2>&1 || { cat log; fail "7zz t after fz7 updated its archive"; }
rm -rf out; mkdir out
7zz x -psecret -oout z7.7z > log 2>&1 || { cat log; fail "7zz x after update"; }
same_tree z7 out

# An unreadable input: reported, skipped, exit 1, archive complete.
mkdir -p unr && printf 'fine\n' > unr/ok.txt && ln -s nowhere unr/dangling
"$FZ7" a -bd unr.7z unr > log 2>&1
rc=$?
[ $rc = 1 ] || { cat log; fail "unreadable input: exit $rc, expected 1"; }
grep -q 'No such file or directory' log || fail "unreadable input not reported"
check_7z unr.7z
[ "$(7zz x -so unr.7z unr/ok.txt)" = fine ] || fail "unreadable input: other file missing"
if [ "$(id -u)" != 0 ]; then
    printf 'x\n' > unr/noread && chmod 000 unr/noread
    "$FZ7" a -bd unr2.7z unr/ok.txt unr/noread > log 2>&1
    [ $? = 1 ] || fail "permission denied: exit code"
    grep -q 'Permission denied' log || fail "permission denied not reported"
    check_7z unr2.7z
fi

# A failing write (file size limit): the old archive stays, no temp file.
mkdir -p big && prng_bytes 400000 9 > big/r1 && prng_bytes 400000 10 > big/r2
"$FZ7" a -bd keep.7z many > log 2>&1 || fail "keep.7z"
cp keep.7z keep.orig
(ulimit -f 200; "$FZ7" a -bd keep.7z big > log 2>&1)
rc=$?
[ $rc != 0 ] || fail "a write over the file size limit succeeded"
cmp keep.7z keep.orig || fail "a failed write changed the old archive"
ls -a | grep -q 'fz7tmp' && fail "a failed write left a temporary file"
(ulimit -f 200; "$FZ7" a -bd fresh.7z big > log 2>&1) && fail "fresh: over the limit succeeded"
[ -e fresh.7z ] && fail "a failed write left a partial new archive"
ls -a | grep -q 'fz7tmp' && fail "a failed write left a temporary file (new archive)"

# -w naming a folder that cannot take the temporary file (absent, or a
# regular file or a path under one; as root only such paths fail): exit 2,
# 7zz's "cannot open file" block on stdout and its System ERROR on stderr,
# no archive made, an old one byte for byte as it was.
printf 'x\n' > wreg
wcheck() {   # errno text, -w path, command...
    local want=$1 wdir=$2; shift 2
    "$FZ7" "$@" > wout 2> werr; rc=$?
    [ $rc = 2 ] || { cat wout werr; fail "$* : exit $rc, 7zz exits 2"; }
    [ "$(sed -n '/^Error:$/,$p' wout | sed -E 's/\.fz7tmp[A-Za-z0-9]{6}$/.TMP/' | tr '\n' '|')" = \
      "Error:|cannot open file|$wdir|$want|" ] || { cat wout; fail "$* : stdout block"; }
    [ "$(cat werr)" = "$(printf '\n\nSystem ERROR:\n%s' "$want")" ] || { cat werr; fail "$* : stderr"; }
    ls -a | grep -q 'fz7tmp' && fail "$* left a temporary file"
    return 0
}
wcheck "errno=2 : No such file or directory" no_such_dir/wnew.7z.TMP a -bd -wno_such_dir wnew.7z e2/one
[ -e wnew.7z ] && fail "a -w{absent} made wnew.7z"
wcheck "errno=20 : Not a directory" wreg/wnew.7z.TMP a -bd -wwreg wnew.7z e2/one
wcheck "errno=20 : Not a directory" wreg/sub/wnew.7z.TMP a -bd -wwreg/sub wnew.7z e2/one
wcheck "errno=2 : No such file or directory" no_such_dir/wnew.xz.TMP a -bd -txz -wno_such_dir wnew.xz e2/one
[ -e wnew.7z ] || [ -e wnew.xz ] && fail "a -w{unwritable} made an archive"
wcheck "errno=2 : No such file or directory" no_such_dir/keep.7z.TMP a -bd -wno_such_dir keep.7z e2/one
cmp keep.7z keep.orig || fail "a -w{absent} changed the old archive"
wcheck "errno=20 : Not a directory" wreg/keep.7z.TMP u -bd -wwreg keep.7z e2/one
cmp keep.7z keep.orig || fail "u -w{file} changed the old archive"
wcheck "errno=20 : Not a directory" wreg/keep.7z.TMP d -bd -wwreg keep.7z many/f1.txt
cmp keep.7z keep.orig || fail "d -w{file} changed the old archive"

# SIGTERM while writing: either the new archive is complete or the old
# one is untouched; never a temporary file.
mkdir -p huge && for i in 1 2 3 4; do text_lines 60000 $((20 + i)) > "huge/t$i"; done
"$FZ7" a -bd -mx9 sig.7z huge > /dev/null & pid=$!
sleep 0.3
kill -TERM $pid 2>/dev/null
wait $pid
ls -a | grep -q 'fz7tmp' && fail "SIGTERM left a temporary file"
if [ -e sig.7z ]; then check_7z sig.7z; fi
cp keep.orig sig2.7z
"$FZ7" a -bd -mx9 sig2.7z huge > /dev/null & pid=$!
sleep 0.3
kill -INT $pid 2>/dev/null
wait $pid
ls -a | grep -q 'fz7tmp' && fail "SIGINT left a temporary file"
if ! cmp -s sig2.7z keep.orig; then check_7z sig2.7z; fi
# .xz takes one file; .lzma cannot be created (both exit 2 as in 7-Zip).
"$FZ7" a -bd two.xz rp/rnd/r.bin e2/one > log 2>&1
[ $? = 2 ] || fail ".xz with two files: exit code"
[ -e two.xz ] && fail ".xz with two files left an archive"
"$FZ7" a -bd -tlzma x.lzma e2/one > log 2>&1
[ $? = 2 ] || fail "-tlzma: exit code"

# A filter as the only method: stored alone, as 7zz stores it (no LZMA2
# behind it); 7zz and fz7 give the bytes back. -mx0 -mf=BCJ keeps BCJ in
# front of Copy. xz has no block without LZMA2: 7zz's E_INVALIDARG, exit 2,
# after "Creating archive:", and no file.
for m in ARM64 BCJ Delta:4 ARMT; do
    rm -f lone.7z
    "$FZ7" a -bd "-m0=$m" lone.7z many > log 2>&1 || { cat log; fail "-m0=$m alone"; }
    # The archive's line, then one per entry (the folder many/ has none).
    [ "$(7zz l -slt lone.7z | grep '^Method = ' | tr '\n' '|')" = \
      "Method = ${m%%:*}|Method = |Method = $m|Method = $m|Method = $m|Method = $m|Method = $m|" ] ||
        { 7zz l -slt lone.7z | grep Method; fail "-m0=$m alone: methods"; }
    check_7z lone.7z
    extract_same lone.7z mp
    rm -rf out && "$FZ7" x -oout lone.7z > log 2>&1 && same_tree mp out || fail "-m0=$m alone: fz7 x"
done
[ "$(7zz l -slt lone.7z | sed -n 's/^Physical Size = //p')" -gt 55903 ] || fail "-m0=ARMT alone: smaller than its input (compressed?)"
rm -f cb.7z && "$FZ7" a -bd -mx0 -mf=BCJ cb.7z many > log 2>&1 || fail "-mx0 -mf=BCJ"
[ "$(7zz l -slt cb.7z | grep -c '^Method = BCJ Copy$')" = 5 ] || fail "-mx0 -mf=BCJ: not BCJ in front of Copy"
rm -f cc.7z && "$FZ7" a -bd -m0=Copy -m1=BCJ cc.7z many > log 2>&1 || fail "-m0=Copy -m1=BCJ"
[ "$(7zz l -slt cc.7z | sed '1,/^----------$/d' | grep -c '^Method = Copy BCJ$')" = 5 ] && 7zz t cc.7z > log 2>&1 ||
    fail "-m0=Copy -m1=BCJ: not Copy then BCJ as 7zz lists it, or 7zz t fails"
# BCJ2 alone: one coder, its four streams stored raw (as 7zz: Method = BCJ2).
rm -f b2.7z && "$FZ7" a -bd -m0=BCJ2 b2.7z many > log 2>&1 || fail "-m0=BCJ2"
[ "$(7zz l -slt b2.7z | sed '1,/^----------$/d' | grep -c '^Method = BCJ2$')" = 5 ] && 7zz t b2.7z > log 2>&1 ||
    fail "-m0=BCJ2: not BCJ2 alone, or 7zz t fails"
[ "$(7zz l -slt b2.7z | sed -n 's/^Physical Size = //p')" -gt 55903 ] || fail "-m0=BCJ2: smaller than its input (compressed?)"
# With a password each of BCJ2's four raw streams gets a 7zAES of its own,
# as 7zz lays the folder out; both programs read it back.
rm -f b2p.7z && "$FZ7" a -bd -psecret -m0=BCJ2 b2p.7z many > log 2>&1 || fail "-psecret -m0=BCJ2"
[ "$(7zz l -slt -psecret b2p.7z | sed '1,/^----------$/d' | grep -c '^Method = BCJ2 7zAES:19 7zAES:19 7zAES:19 7zAES:19$')" = 5 ] ||
    { 7zz l -slt -psecret b2p.7z | grep Method; fail "-psecret -m0=BCJ2: not four 7zAES behind BCJ2"; }
7zz t -psecret b2p.7z > log 2>&1 || { cat log; fail "-psecret -m0=BCJ2: 7zz t"; }
rm -rf out && "$FZ7" x -psecret -oout b2p.7z > log 2>&1 && same_tree mp out || fail "-psecret -m0=BCJ2: fz7 x"
[ "$(7zz l -slt -psecret b2p.7z | sed -n 's/^Physical Size = //p')" -gt 55903 ] || fail "-psecret -m0=BCJ2: compressed?"
# xz's branch filters (-mf=ARM64 ...): xz(1) decodes them and names them.
for f in ARM64:arm64 ARM:arm ARMT:armthumb PPC:powerpc SPARC:sparc IA64:ia64; do
    rm -f br.xz && "$FZ7" a -bd -txz -mf=${f%%:*} br.xz many/$(ls many | head -1) > log 2>&1 || fail "-txz -mf=${f%%:*}"
    xz -dc br.xz | cmp -s - many/$(ls many | head -1) || fail "-txz -mf=${f%%:*}: xz -dc differs"
    [ "$(xz --robot -lvv br.xz | awk -F'\t' '$1 == "block" {print $16}')" = "--${f#*:} --lzma2=dict=$(xz --robot -lvv br.xz | awk -F'\t' '$1 == "block" {print $16}' | sed 's/.*dict=//')" ] ||
        fail "-txz -mf=${f%%:*}: block filters $(xz --robot -lvv br.xz | awk -F'\t' '$1 == "block" {print $16}')"
done
rm -f lone.xz
"$FZ7" a -bd -txz -m0=BCJ lone.xz e2/one > log 2> err; rc=$?
[ $rc = 2 ] && [ ! -e lone.xz ] || fail "-txz -m0=BCJ: exit $rc, 7zz exits 2 and writes nothing"
[ "$(tail -n 2 log)" = "$(printf 'Creating archive: lone.xz\n')" ] || { cat log; fail "-txz -m0=BCJ: stdout does not end with Creating archive"; }
[ "$(cat err)" = "$(printf '\n\nSystem ERROR:\nE_INVALIDARG : One or more arguments are invalid\n  (in lone.xz: an xz file takes its filter from -mf=, not from -m0=, -m1=...)')" ] ||
    { cat err; fail "-txz -m0=BCJ: stderr"; }

# -sdel: the inputs go once they are in the archive.
mkdir -p del/sub && printf 'a\n' > del/a && printf 'b\n' > del/sub/b
"$FZ7" a -bd -sdel del.7z del > log 2>&1 || { cat log; fail "-sdel"; }
[ -e del ] && fail "-sdel left the inputs"
[ "$(7zz x -so del.7z del/sub/b)" = b ] || fail "-sdel archive content"
# -sdel never removes a file whose status changed since it was read (an
# editor's save, a log's new lines: they would be lost): of two names of
# one file the first goes and the second, its link count changed, stays,
# as with 7zz (fz7 removed both; a file changed while archived went too)
for t in 7zz fz7; do
    rm -rf hl && mkdir -p hl/lib && seq 1 1000 >hl/lib/nums.txt && ln hl/lib/nums.txt hl/lib/nums2.txt &&
        printf 'x\n' >hl/lib/other.txt
    bin=7zz && [ $t = fz7 ] && bin=$FZ7
    (cd hl && "$bin" a -bd -sdel ../hl.7z lib >/dev/null 2>&1; echo "$? $(find . | sort | tr '\n' ' ')") >"hl_$t.txt"
    rm -f hl.7z
done
[ "$(cat hl_fz7.txt)" = "$(cat hl_7zz.txt)" ] || { cat hl_fz7.txt hl_7zz.txt; fail "-sdel of two names of one file: not as 7zz"; }
# Links read through (no -snl) go as 7zz removes them: a link to a file
# whose target is unchanged (the target itself stays when outside), not a
# link to a folder, not a link to nothing (not read); then the folders
# they leave empty. fz7 kept every link, and the folders holding them.
rm -rf sl ext && mkdir -p sl/b2/sub ext && printf 'a\n' >sl/b2/a.txt && printf 'o\n' >ext/o.txt &&
    ln -s a.txt sl/b2/link_a && ln -s ../a.txt sl/b2/sub/link_up && ln -s /nonexistent sl/b2/dangling &&
    ln -s sub sl/b2/link_dir && ln -s ../../ext/o.txt sl/b2/out
(cd sl && "$FZ7" a -bd -sdel ../sl.7z b2 >/dev/null 2>&1; echo "$? $(find . | sort | tr '\n' ' ')") >sl.txt
[ "$(cat sl.txt)" = "1 . ./b2 ./b2/dangling ./b2/link_dir " ] || { cat sl.txt; fail "-sdel of links read through"; }
[ "$(cat ext/o.txt)" = o ] || fail "-sdel removed a link's target outside the inputs"
[ "$(7zz x -so sl.7z b2/out)" = o ] || fail "-sdel: a link read through is archived as its file"

# -si and -so.
text_lines 3000 5 > stdin.txt
"$FZ7" a -bd -si si.7z < stdin.txt > log 2>&1 || { cat log; fail "-si .7z"; }
7zz x -so si.7z si | cmp - stdin.txt || fail "-si .7z: entry 'si' differs"
"$FZ7" a -bd -sinamed.txt sin.xz < stdin.txt > log 2>&1 && xz -dc sin.xz | cmp - stdin.txt || fail "-si .xz"
"$FZ7" a -bd -si -so any.xz < stdin.txt 2> log | xz -dc | cmp - stdin.txt || fail "-si -so .xz"
# -si stores what fstat says of stdin, as 7zz: a redirected file's mode and
# mtime, /dev/null's (a character device) for empty input; the counts line
# gives a redirected file's size (fstat's, as 7zz), none for a pipe.
chmod 640 stdin.txt && touch -d '2020-01-02 03:04:05.123456789' stdin.txt
"$FZ7" a -si sim.7z < stdin.txt > log 2>&1 || { cat log; fail "-si from a file"; }
grep -qx "Add new data to archive: 1 file, $(stat -c %s stdin.txt) bytes (167 KiB)" log || { cat log; fail "-si counts line"; }
cat stdin.txt | "$FZ7" a -si sip.7z > log 2>&1 || { cat log; fail "-si from a pipe"; }
grep -qx 'Add new data to archive: 1 file' log || { cat log; fail "-si counts line (a pipe)"; }
[ "$(7zz l -slt sim.7z | grep -E '^(Modified|Attributes) = ' | tr '\n' '|')" = \
  "Modified = 2020-01-02 03:04:05.1234567|Attributes = A -rw-r-----|" ] || fail "-si: the file's mode and mtime"
devnull="$(stat -c %A /dev/null)|$(date -u -d "@$(stat -c %.9Y /dev/null)" '+%Y-%m-%d %H:%M:%S.%N' | cut -c1-27)"
for t in 7z xz; do
    rm -f sinull.$t
    TZ=UTC "$FZ7" a -bd -si -t$t sinull.$t < /dev/null > log 2>&1; rc=$?
    [ $rc = 0 ] || { cat log; fail "-si -t$t from /dev/null: exit $rc, 7zz exits 0"; }
    [ "$(grep -E '^(Add new|Files read|Everything)' log | tr '\n' '|')" = \
      "Add new data to archive: 1 file|Files read from disk: 1|Everything is Ok|" ] || { cat log; fail "-si -t$t from /dev/null: lines"; }
done
[ "$(TZ=UTC 7zz l -slt sinull.7z | sed -n '/^----------$/,$p' | grep -E '^(Path|Size|Attributes|Modified) = ' | tr '\n' '|')" = \
  "Path = sinull|Size = 0|Modified = ${devnull#*|}|Attributes = A ${devnull%%|*}|" ] || {
    TZ=UTC 7zz l -slt sinull.7z; fail "-si from /dev/null: not an empty entry with /dev/null's mode and mtime"; }
# 7zz's file, byte for byte: one empty block whose dictionary is the level's,
# unreduced (size unknown), 32 MiB at -mx5.
[ "$(xz -dc sinull.xz | wc -c)" = 0 ] && [ "$(sha256sum < sinull.xz | cut -c1-64)" = 7e67712f32824a9b6c6bc265158aabcd2b5999ca6679e1909a47b402d4532140 ] ||
    fail "-si -txz from /dev/null: not 7zz's empty 52-byte .xz with a 32 MiB dictionary"
[ -e any.xz ] && fail "-so wrote a file"
"$FZ7" a -bd -so nope.7z stdin.txt > /dev/null 2>&1
[ $? = 2 ] || fail "-so with .7z must fail with exit 2 as 7-Zip"

# Progress line: never on a file or pipe by default; -bsp2 forces it onto
# stderr (a pause in the input makes it draw: the first draw waits 0.3 s),
# -bsp0 keeps it off even on a terminal; the data stored is the same.
text_lines 20000 5 > slow.txt
slow() { head -c 100000 slow.txt; sleep 0.7; tail -c +100001 slow.txt; }
slow | "$FZ7" a -bd -sislow.txt p0.7z > log 2> err || { cat log err; fail "-si from a slow pipe"; }
[ -s err ] && { cat err; fail "a printed on stderr that is not a terminal"; }
slow | "$FZ7" a -bd -bsp2 -sislow.txt p2.7z > log 2> err || { cat log err; fail "-bsp2"; }
grep -Eq '(KiB|MiB)/s' err || { od -c err | head; fail "-bsp2: no progress line"; }
tr '\r' '\n' < err | grep -Eq '^[0-9.]+ (KiB|MiB)  [0-9.]+ (KiB|MiB)/s  - slow.txt' ||
    { od -c err | head; fail "-bsp2 line shape"; }
7zz x -so p2.7z slow.txt | cmp - slow.txt || fail "archive written with -bsp2"
if command -v script > /dev/null; then
    script -qec "{ head -c 100000 slow.txt; sleep 0.7; tail -c +100001 slow.txt; } | '$FZ7' a -bd -sislow.txt t1.7z" /dev/null > tty.txt
    grep -Eq '(KiB|MiB)/s' tty.txt || fail "no progress line from a on a terminal"
    grep -q 'Everything is Ok' tty.txt || fail "a on a terminal did not finish"
    script -qec "{ head -c 100000 slow.txt; sleep 0.7; tail -c +100001 slow.txt; } | '$FZ7' a -bd -bsp0 -sislow.txt t0.7z" /dev/null > tty0.txt
    grep -Eq '(KiB|MiB)/s' tty0.txt && fail "progress line from a despite -bsp0"
    grep -q 'Everything is Ok' tty0.txt || fail "a -bsp0 on a terminal did not finish"
fi

# An existing .xz, or another file with that name, is never replaced (7zz
# and xz(1) refuse too): exit 2, the bytes stay, the file is named.
printf 'hello\n' > one.txt && xz -c one.txt > old.xz && cp old.xz old.orig
"$FZ7" a -bd old.xz one.txt > log 2>&1; rc=$?
[ $rc = 2 ] || { cat log; fail "a onto an existing .xz: exit $rc, expected 2"; }
cmp old.xz old.orig || fail "a replaced an existing .xz"
grep -q 'old.xz' log || fail "the refusal does not name old.xz"
printf 'not an archive\n' > notes.xz && cp notes.xz notes.orig
"$FZ7" a -bd notes.xz one.txt > log 2>&1; rc=$?
[ $rc = 2 ] || { cat log; fail "a onto a non-xz file named .xz: exit $rc, expected 2"; }
cmp notes.xz notes.orig || fail "a overwrote a file that was not an xz archive"
printf 'precious\n' > prec.txt && cp prec.txt prec.orig
"$FZ7" a -bd -txz prec.txt one.txt > log 2>&1; rc=$?
[ $rc = 2 ] || { cat log; fail "a -txz onto an existing prec.txt: exit $rc, expected 2"; }
cmp prec.txt prec.orig || fail "a -txz overwrote prec.txt"

# -sfx: module bytes first, then byte for byte the archive written without
# -sfx; 7zz and fz7 extract it; a missing module is 7zz's error, exit 2,
# and nothing is written.
mkdir -p sfx && printf 'x\n' > sfx/a.txt && touch -d '2024-01-02 03:04:05' sfx/a.txt
head -c 5000 /dev/urandom > mod.sfx
rm -f sfxplain.7z self.exe none.exe
"$FZ7" a -bd sfxplain.7z ./sfx/a.txt > log 2>&1 || { cat log; fail "plain archive for -sfx"; }
"$FZ7" a -bd -sfxmod.sfx self.exe ./sfx/a.txt > log 2>&1 || { cat log; fail "a -sfx"; }
grep -qx 'Write SFX: ./mod.sfx : 5000 bytes (5 KiB)' log || { cat log; fail "no Write SFX line"; }
[ "$(stat -c %s self.exe)" = $((5000 + $(stat -c %s sfxplain.7z))) ] || fail "-sfx archive size"
cmp <(head -c 5000 self.exe) mod.sfx || fail "-sfx: the module is not the archive's start"
cmp <(tail -c +5001 self.exe) sfxplain.7z || fail "-sfx: the archive after the module differs"
rm -rf out && 7zz x -oout self.exe > log 2>&1 || { cat log; fail "7zz x of the -sfx archive"; }
cmp out/a.txt sfx/a.txt || fail "7zz x of the -sfx archive: wrong bytes"
rm -rf out && "$FZ7" x -oout self.exe > log 2>&1 || { cat log; fail "fz7 x of the -sfx archive"; }
cmp out/a.txt sfx/a.txt || fail "fz7 x of the -sfx archive: wrong bytes"
"$FZ7" a -bd -sfxno_such.sfx none.exe ./sfx/a.txt > log 2>&1; rc=$?
[ $rc = 2 ] || { cat log; fail "a -sfx with a missing module: exit $rc, expected 2"; }
grep -qx 'cannot find specified SFX module' log || { cat log; fail "missing module: not 7zz's text"; }
[ ! -e none.exe ] || fail "a -sfx with a missing module wrote none.exe"
# -sfx with -v, as 7zz 26.02 writes it: the module alone under the
# archive's name, the volumes .001... holding the archive written without
# -sfx, byte for byte; "Write SFX" and "Volumes" lines, exit 0. A missing
# module (exit 2) and an existing name (exit 2, "The file already exists")
# leave no file of this run.
rm -f selfv.exe*
"$FZ7" a -bd -v100b -sfxmod.sfx selfv.exe ./sfx/a.txt > log 2>&1 || { cat log; fail "a -sfx -v100b"; }
nv=$(ls selfv.exe.0* | wc -l)
[ "$nv" -ge 2 ] || fail "a -sfx -v100b: $nv volumes"
[ "$(grep -E '^(Write SFX|Volumes|Everything)' log | tr '\n' '|')" = \
  "Write SFX: ./mod.sfx : 5000 bytes (5 KiB)|Volumes: $nv|Everything is Ok|" ] || { cat log; fail "a -sfx -v: lines"; }
cmp selfv.exe mod.sfx || fail "a -sfx -v: the file under the archive's name is not the module alone"
cat selfv.exe.0* | cmp - sfxplain.7z || fail "a -sfx -v: the volumes are not the archive written without -sfx"
rm -rf out && "$FZ7" x -oout selfv.exe.001 > log 2>&1 && cmp out/a.txt sfx/a.txt || { cat log; fail "x of the -sfx -v volumes"; }
rm -f nov.exe*
"$FZ7" a -bd -v100b -sfxno_such.sfx nov.exe ./sfx/a.txt > log 2>&1; rc=$?
[ $rc = 2 ] && [ -z "$(ls nov.exe* 2>/dev/null)" ] || fail "a -sfx -v with a missing module: exit $rc, $(ls nov.exe* 2>/dev/null)"
rm -f selfv.exe.0*   # (with .001 there: "Updating for multivolume archives is not implemented")
"$FZ7" a -bd -v100b -sfxmod.sfx selfv.exe ./sfx/a.txt > log 2> err; rc=$?
[ $rc = 2 ] && grep -qx 'The file already exists' log && [ "$(tail -n 1 err)" = 'errno=17 : File exists' ] ||
    { cat log err; fail "a -sfx -v over an existing name: exit $rc"; }
cmp selfv.exe mod.sfx || fail "a -sfx -v over an existing name changed it"
[ -z "$(ls selfv.exe.0* 2>/dev/null)" ] || fail "a -sfx -v over an existing name wrote volumes"
# FIFOs, sockets and devices: stored as 7zz stores them, empty entries whose
# attributes keep the file type (prw-, srwx, crw-, brw-), never opened (a
# FIFO would wait for a writer); the 7z header is 7zz's byte for byte. A
# tar keeps FIFOs and devices with their numbers (as bsdtar), a socket as
# an empty file; h hashes them as empty. fz7 once skipped them all.
rm -rf sp && mkdir sp && mkfifo sp/fifo && echo data > sp/file
python3 -c 'import socket; socket.socket(socket.AF_UNIX).bind("sp/sock")' 2>/dev/null || : > sp/sock
devs=0
if mknod sp/cdev c 1 3 2>/dev/null && mknod sp/bdev b 7 0 2>/dev/null; then devs=1; else
    rm -f sp/cdev sp/bdev; echo "add_edge.sh: not root: device entries skipped" >&2; fi
rm -f sp7.7z sp7z.7z sp.tar
timeout 60 "$FZ7" a -bd -mhc=off sp7.7z sp > log 2>&1 || { cat log; fail "a of FIFO/socket/devices"; }
[ "$(grep -E '^(Scanning|[0-9]+ folder)' log | tail -1)" = "1 folder, $((3 + 2 * devs)) files, 5 bytes (1 KiB)" ] ||
    { cat log; fail "special files: scan line"; }
want='D drwxr-xr-x|A prw-r--r--|A -rw-r--r--|'
[ $devs = 1 ] && want='D drwxr-xr-x|A brw-r--r--|A crw-r--r--|A prw-r--r--|A srwxr-xr-x|A -rw-r--r--|'
[ -S sp/sock ] && [ $devs = 0 ] && want='D drwxr-xr-x|A prw-r--r--|A srwxr-xr-x|A -rw-r--r--|'
got=$(7zz l -slt sp7.7z | sed -n 's/^Attributes = //p' | tr '\n' '|')
[ "$got" = "$want" ] || fail "special files: 7zz l attributes [$got], want [$want]"
7zz a -mhc=off sp7z.7z sp > log 2>&1 || { cat log; fail "7zz a of FIFO/socket/devices"; }
cmp sp7.7z sp7z.7z || fail "special files: the archive differs from 7zz's (-mhc=off)"
timeout 60 "$FZ7" a -bd sp.tar sp > log 2>&1 || { cat log; fail "a tar of FIFO/socket/devices"; }
got=$(tar tvf sp.tar | awk '{print substr($1,1,1) $3 " " $NF}' | tr '\n' '|')
want='d0 sp/|p0 sp/fifo|-5 sp/file|'
[ $devs = 1 ] && want='d0 sp/|b7,0 sp/bdev|c1,3 sp/cdev|p0 sp/fifo|-5 sp/file|-0 sp/sock|'
[ -S sp/sock ] && [ $devs = 0 ] && want='d0 sp/|p0 sp/fifo|-5 sp/file|-0 sp/sock|'
[ "$got" = "$want" ] || fail "special files: tar tv [$got], want [$want]"
timeout 60 "$FZ7" h sp > log 2>&1 || { cat log; fail "h of FIFO/socket/devices"; }
grep -q '^00000000             0  sp/fifo$' log || { cat log; fail "h: the FIFO is not hashed as empty"; }
# Two different files under one archive name (absolute paths keep only the
# last part): 7zz's "Duplicate filename on disk", exit 2, nothing written
# (fz7 kept the first and lost the second, exit 0). The same file or
# folder given twice, and two folders whose contents merge, stay allowed.
rm -rf dup && mkdir -p dup/d1 dup/d2 dup/p/d dup/q/d && echo one >dup/d1/f && echo two >dup/d2/f
echo 1 >dup/p/d/a && echo 2 >dup/q/d/b
for T in 7z zip tar; do
    rm -f dup.$T
    "$FZ7" a dup.$T "$PWD/dup/d1/f" "$PWD/dup/d2/f" >log 2>err; rc=$?
    [ $rc = 2 ] && [ ! -e dup.$T ] && [ "$(tr '\n' '|' <err)" = "||ERROR:|Duplicate filename on disk:|f|f|" ] ||
        { cat log err; fail "two files named f into a $T: exit $rc"; }
done
rm -f dup.7z && echo z >z1 && "$FZ7" a dup.7z z1 >/dev/null 2>&1 && cp dup.7z dup0.7z
"$FZ7" u dup.7z "$PWD/dup/d1/f" "$PWD/dup/d2/f" >log 2>&1; rc=$?
[ $rc = 2 ] && cmp -s dup.7z dup0.7z || { cat log; fail "u with two files named f: exit $rc, archive changed"; }
rm -f dup2.7z && "$FZ7" a dup2.7z dup/d1 dup/d1 "$PWD/dup/p/d" "$PWD/dup/q/d" >log 2>&1 || { cat log; fail "a folder twice, two folders d"; }
[ "$("$FZ7" l -ba dup2.7z | awk '{print $NF}' | sort | tr '\n' ' ')" = "d d/a d/b dup/d1 dup/d1/f " ] ||
    { "$FZ7" l dup2.7z; fail "a folder twice, two folders d: entries"; }

# An archive without a write bit (chmod a-w to keep it): a, u, d and rn
# leave it, with 7zz's "The file is read-only", exit 2, as root too (fz7
# replaced it); -u- with !other writes only the other archive.
rm -f ro.7z ro0.7z ro_new.7z && echo r >r1 && "$FZ7" a ro.7z r1 >/dev/null 2>&1 && chmod 444 ro.7z && cp -p ro.7z ro0.7z
for cmd in "a ro.7z z1" "u ro.7z z1" "d ro.7z r1" "rn ro.7z r1 r2"; do
    # shellcheck disable=SC2086
    "$FZ7" $cmd >log 2>err; rc=$?
    [ $rc = 2 ] && cmp -s ro.7z ro0.7z && [ "$(sed -n '4,9p' log | tr '\n' '|')" = "||Error:|The file is read-only|ro.7z|errno=13 : Permission denied|" ] ||
        { cat log err; fail "$cmd on a read-only archive: exit $rc"; }
done
"$FZ7" a -u- '-up0q0!ro_new.7z' ro.7z z1 >log 2>&1 && cmp -s ro.7z ro0.7z && [ -f ro_new.7z ] ||
    { cat log; fail "-u- !other on a read-only archive"; }
chmod 644 ro.7z
# a folder where the archive goes: 7zz's "There is a folder with the name
# of archive", exit 2
rm -rf dirarc.7z && mkdir dirarc.7z
"$FZ7" a dirarc.7z z1 >log 2>err; rc=$?
[ $rc = 2 ] && grep -qx 'There is a folder with the name of archive' log && grep -qx 'errno=21 : Is a directory' err ||
    { cat log err; fail "a into a folder's name: exit $rc"; }
# a symbolic link to nothing where a new archive goes: 7zz's "The file
# already exists", exit 2, and the link left as it was (a and u)
for cmd in a u; do
  rm -f dang.7z && ln -s nowhere.7z dang.7z
  "$FZ7" $cmd dang.7z z1 >log 2>err; rc=$?
  [ $rc = 2 ] && grep -qx 'The file already exists' log && grep -qx 'errno=17 : File exists' err &&
    [ -L dang.7z ] && [ "$(readlink dang.7z)" = nowhere.7z ] && [ ! -e nowhere.7z ] ||
    { cat log err; fail "$cmd to a dangling link: exit $rc"; }
done
rm -f dang.7z

echo PASS
