#!/bin/bash
# update.sh - `fz7 u`, `fz7 d` and `fz7 rn` against 7zz doing the same on
# the same archive: the results pass `7zz t`, list the same names, sizes and
# CRCs, extract to the expected tree; untouched folders keep their pack
# bytes (copied, not re-compressed, even encrypted ones without the
# password); a failed update leaves the old archive byte-identical; -w{dir}
# makes the temporary archive in that folder.
set -u
for t in 7zz sha256sum awk; do
    command -v "$t" >/dev/null 2>&1 || { echo "SKIP: $t is not installed"; exit 77; }
done
[ -n "${FZ7:-}" ] && [ -x "$FZ7" ] || { echo "SKIP: FZ7 does not point to the fz7 binary"; exit 77; }
S="${FZ7_SCRATCH:-$(mktemp -d)}"
rm -rf "$S"; mkdir -p "$S"
cd "$S" || exit 1

fail() { echo "FAIL: $*" >&2; exit 1; }

# listing ARC [-pPW]: "path|size|crc" per entry (folders: path|D), sorted.
listing() {
    7zz l -slt "$@" 2>/dev/null | awk '
        /^Path = / { p = substr($0, 8) }
        /^Size = / { s = substr($0, 8) }
        /^CRC = / { c = substr($0, 7) }
        /^Folder = \+/ { d = 1 }
        /^$/ { if (p != "" && s != "") print p "|" (d ? "D" : s "|" c); p = s = c = ""; d = 0 }
        END { if (p != "" && s != "") print p "|" (d ? "D" : s "|" c) }' | LC_ALL=C sort
}

# pack_hashes ARC [-pPW]: "path sha256" of each folder's pack bytes, named by
# the folder's first entry. Pack streams follow the 32-byte signature header
# in folder order, one per folder (as 7zz and fz7 write them), so the
# offsets are the running sum of the listed packed sizes.
pack_hashes() {
    local arc="$1"; shift
    local off=32
    7zz l -slt "$arc" "$@" 2>/dev/null | awk '
        /^Path = / { p = substr($0, 8) }
        /^Packed Size = / { ps = substr($0, 15) }
        /^$/ { if (p != "" && ps != "" && ps > 0) print ps "\t" p; p = ps = "" }' > ph.tmp
    [ -s ph.tmp ] || fail "no packed sizes listed for $arc"
    while IFS=$'\t' read -r size path; do
        printf '%s %s\n' "$path" "$(tail -c +$((off + 1)) "$arc" | head -c "$size" | sha256sum | cut -c1-64)"
        off=$((off + size))
    done < ph.tmp
}

# same_as_7zz CMD ARGS...: runs `7zz CMD` and `fz7 CMD` on copies of base.7z
# and fails unless both succeed and list alike; fz7's copy is left in f.7z.
same_as_7zz() {
    local cmd="$1"; shift
    cp base.7z z.7z; cp base.7z f.7z
    7zz "$cmd" -bd z.7z "$@" > log 2>&1 || { cat log; fail "7zz $cmd $*"; }
    "$FZ7" "$cmd" -bd f.7z "$@" > log 2>&1 || { cat log; fail "fz7 $cmd $*"; }
    7zz t f.7z > log 2>&1 || { cat log; fail "7zz t after fz7 $cmd $*"; }
    [ "$(listing f.7z)" = "$(listing z.7z)" ] || {
        diff <(listing z.7z) <(listing f.7z); fail "fz7 $cmd $* lists unlike 7zz"; }
}

# The input tree: text, incompressible bytes, an empty file and folder.
mkdir -p t/docs/deep t/bin t/empty_dir
for i in 1 2 3 4 5; do seq 1 $((i * 3000)) | sed "s/^/line $i /" > "t/docs/part$i.txt"; done
seq 1 500 > t/docs/deep/note.md
head -c 200000 /dev/urandom > t/bin/random.bin
: > t/empty.txt
printf 'x' > t/one_byte
touch -d '2001-02-03 04:05:06' t/docs/part1.txt
touch -d '2020-01-01 00:00:00' t/docs/part2.txt

# ---- d on a non-solid archive: the other folders are copied ------------------
(cd t && 7zz a -bd -ms=off ../base.7z . > /dev/null) || fail "7zz a -ms=off"
pack_hashes base.7z > before.txt
same_as_7zz d docs/part3.txt
grep -q 'docs/part3.txt' <(listing f.7z) && fail "d left docs/part3.txt"
pack_hashes f.7z > after.txt
[ "$(grep -v '^docs/part3.txt ' before.txt)" = "$(cat after.txt)" ] || {
    diff before.txt after.txt; fail "d re-compressed folders it did not touch"; }
rm -rf out; mkdir out
"$FZ7" x -bd -oout f.7z > log 2>&1 || { cat log; fail "fz7 x after d"; }
cp -a t expect; rm expect/docs/part3.txt
diff -r expect out > /dev/null || { diff -r expect out; fail "tree after d"; }
rm -rf expect
[ -z "$(ls | grep fz7tmp)" ] || fail "a temporary file was left"

# A folder name deletes what is under it; wildcards; -r; nothing matched.
same_as_7zz d docs
same_as_7zz d '*.txt'
same_as_7zz d '*.txt' -r
same_as_7zz d no_such_name
same_as_7zz d -x!docs/part1.txt docs

# ---- solid archive: a folder losing entries is compressed again -------------------
rm base.7z
(cd t && 7zz a -bd -ms=on ../base.7z . > /dev/null) || fail "7zz a solid"
same_as_7zz d docs/part2.txt bin/random.bin
rm -rf out; mkdir out
"$FZ7" x -bd -oout f.7z > log 2>&1 || { cat log; fail "fz7 x after solid d"; }
cp -a t expect; rm expect/docs/part2.txt expect/bin/random.bin
diff -r expect out > /dev/null || { diff -r expect out; fail "tree after solid d"; }
rm -rf expect

# ---- rn: files and a folder (its children follow); data copied as it is ---------------
pack_hashes base.7z > before.txt
same_as_7zz rn docs papers one_byte single.bin
pack_hashes f.7z | cut -d' ' -f2 > after.txt
[ "$(cut -d' ' -f2 before.txt)" = "$(cat after.txt)" ] || fail "rn re-compressed data"
listing f.7z | grep -q '^papers/deep/note.md|' || fail "rn did not rename a folder's children"
rm -rf out; mkdir out
"$FZ7" x -bd -oout f.7z > log 2>&1 || { cat log; fail "fz7 x after rn"; }
cmp out/single.bin t/one_byte || fail "renamed file content"
cmp out/papers/deep/note.md t/docs/deep/note.md || fail "renamed folder content"
cp base.7z f.7z
"$FZ7" rn f.7z docs > log 2>&1; rc=$?
[ "$rc" = 7 ] || fail "rn without the new name exited $rc, expected 7"
grep -q 'There is no second file name for rename pair' log || fail "rn pair message"
cmp f.7z base.7z || fail "a refused rn changed the archive"

# ---- u: new and newer files replace, older ones and the rest stay ------------------
cp -a t t_orig
mkdir -p t/added && printf 'new file\n' > t/added/new.txt
seq 1 99 > t/docs/part1.txt                       # newer: replaced
printf 'other size\n' > t/docs/part2.txt
touch -d '2000-01-01 00:00:00' t/docs/part2.txt    # older than the entry: kept
(cd t && cp ../base.7z ../z.7z && 7zz u -bd ../z.7z . > ../log 2>&1) || { cat log; fail "7zz u"; }
(cd t && cp ../base.7z ../f.7z && "$FZ7" u -bd ../f.7z . > ../log 2>&1) || { cat log; fail "fz7 u"; }
7zz t f.7z > log 2>&1 || { cat log; fail "7zz t after fz7 u"; }
[ "$(listing f.7z)" = "$(listing z.7z)" ] || { diff <(listing z.7z) <(listing f.7z); fail "u lists unlike 7zz"; }
[ "$(7zz x -so f.7z docs/part1.txt | sha256sum)" = "$(sha256sum < t/docs/part1.txt)" ] ||
    fail "u did not replace the newer file"
[ "$(7zz x -so f.7z docs/part2.txt | sha256sum)" = "$(sha256sum < t_orig/docs/part2.txt)" ] ||
    fail "u replaced a file older than its entry"
[ "$(7zz x -so f.7z added/new.txt)" = "new file" ] || fail "u did not add the new file"
# Nothing changed on disk: every folder copied as it was.
(cd t && "$FZ7" u -bd ../f.7z . > ../log 2>&1) || { cat log; fail "second fz7 u"; }
pack_hashes f.7z > again.txt
cp f.7z g.7z
(cd t && "$FZ7" u -bd ../g.7z . > ../log 2>&1) || { cat log; fail "third fz7 u"; }
[ "$(pack_hashes g.7z)" = "$(cat again.txt)" ] || fail "u of an unchanged tree re-compressed data"
rm -rf t; mv t_orig t

# ---- encrypted data: copied without the password, re-compressed with it -----------
rm -f enc.7z
(cd t && 7zz a -bd -ms=off -pPW ../enc.7z . > /dev/null) || fail "7zz a -p"
pack_hashes enc.7z > before.txt
cp enc.7z f.7z
"$FZ7" d -bd f.7z docs/part4.txt < /dev/null > log 2>&1 || { cat log; fail "d on encrypted folders without password"; }
7zz t -pPW f.7z > log 2>&1 || { cat log; fail "7zz t -p after d"; }
[ "$(grep -v '^docs/part4.txt ' before.txt)" = "$(pack_hashes f.7z)" ] || fail "encrypted folders not copied"
[ "$(7zz l -slt f.7z | grep -c '^Encrypted = +')" -ge 7 ] || fail "entries lost their encryption"
rm -f encs.7z
(cd t && 7zz a -bd -ms=on -pPW ../encs.7z . > /dev/null) || fail "7zz a -p solid"
cp encs.7z f.7z
"$FZ7" d -bd f.7z docs/part4.txt < /dev/null > log 2>&1; rc=$?
[ "$rc" = 2 ] || { cat log; fail "d needing a password it lacks exited $rc, expected 2"; }
cmp f.7z encs.7z || fail "a failed d changed the encrypted archive"
"$FZ7" d -bd -pWRONG f.7z docs/part4.txt > log 2>&1; rc=$?
[ "$rc" = 2 ] || { cat log; fail "d with a wrong password exited $rc"; }
grep -q 'Wrong password' log || { cat log; fail "wrong password message"; }
cmp f.7z encs.7z || fail "a wrong password changed the archive"
"$FZ7" d -bd -pPW f.7z docs/part4.txt > log 2>&1 || { cat log; fail "d -p on solid encrypted"; }
7zz t -pPW f.7z > log 2>&1 || { cat log; fail "7zz t after d -p"; }
7zz t -pWRONG f.7z > log 2>&1 && fail "re-compressed data is no longer encrypted"
[ "$(listing f.7z -pPW)" = "$(listing encs.7z -pPW | grep -v '^docs/part4.txt|')" ] || fail "listing after d -p"

# Encrypted headers stay encrypted; without the password nothing is written.
rm -f hid.7z
(cd t && 7zz a -bd -pPW -mhe=on ../hid.7z . > /dev/null) || fail "7zz a -mhe"
cp hid.7z f.7z
"$FZ7" rn -bd f.7z one_byte renamed < /dev/null > log 2>&1; rc=$?
[ "$rc" = 255 ] || { cat log; fail "rn on -mhe archive without password exited $rc (7zz: 255)"; }
cmp f.7z hid.7z || fail "rn without the header password changed the archive"
"$FZ7" rn -bd -pPW f.7z one_byte renamed > log 2>&1 || { cat log; fail "rn -p on -mhe archive"; }
7zz l -pWRONG f.7z > log 2>&1 && fail "the header is no longer encrypted after rn"
7zz t -pPW f.7z > log 2>&1 || { cat log; fail "7zz t after rn on -mhe archive"; }
listing f.7z -pPW | grep -q '^renamed|1|' || fail "rn on -mhe archive did not rename"

# ---- BCJ2 (four pack streams): copied as they are, no password needed ----------
# The folders' pack streams follow the 32-byte signature header (7zz l
# -slt gives each folder's bytes on its first entry): rn must leave them as
# they are.
packed() { 7zz l -slt "$1" | awk '/^Packed Size = [0-9]/ { s += $4 } END { print s + 0 }'; }
if [ -x /bin/ls ] && 7zz a -bd -mf=BCJ2 bcj2.7z /bin/ls t/one_byte > /dev/null 2>&1 &&
   7zz l -slt bcj2.7z | grep -q '^Method = BCJ2'; then
    cp bcj2.7z f.7z
    "$FZ7" rn -bd f.7z ls ls_renamed > log 2>&1 || { cat log; fail "rn on a BCJ2 archive"; }
    7zz t f.7z > log 2>&1 || { cat log; fail "7zz t after rn on BCJ2"; }
    7zz x -so f.7z ls_renamed | cmp - /bin/ls || fail "BCJ2 entry after rn"
    [ "$(listing f.7z | sed 's/^ls_renamed|/ls|/' | LC_ALL=C sort)" = "$(listing bcj2.7z)" ] ||
        fail "listing after rn on BCJ2"
    [ "$(packed f.7z)" -gt 1000 ] && [ "$(packed f.7z)" = "$(packed bcj2.7z)" ] && cmp -n "$(packed f.7z)" -i 32:32 f.7z bcj2.7z ||
        fail "rn did not copy the BCJ2 folder's pack streams byte for byte"
    # Encrypted data, plain header: u, d and rn need no password (as 7zz).
    7zz a -bd -mf=BCJ2 -pPW bcj2p.7z /bin/ls t/one_byte > /dev/null 2>&1 || fail "7zz a -p -mf=BCJ2"
    cp bcj2p.7z f.7z
    "$FZ7" rn -bd f.7z one_byte one < /dev/null > log 2>&1 || { cat log; fail "rn on an encrypted BCJ2 archive without -p"; }
    [ "$(packed bcj2p.7z)" -gt 1000 ] && cmp -n "$(packed bcj2p.7z)" -i 32:32 f.7z bcj2p.7z ||
        fail "rn changed the encrypted BCJ2 pack streams"
    printf 'new\n' > t/new_file
    "$FZ7" u -bd f.7z t/new_file < /dev/null > log 2>&1 || { cat log; fail "u on an encrypted BCJ2 archive without -p"; }
    7zz t -pPW f.7z > log 2>&1 || { cat log; fail "7zz t after u on an encrypted BCJ2 archive"; }
    7zz x -pPW -so f.7z ls | cmp - /bin/ls || fail "BCJ2 entry after u without -p"
    rm -f t/new_file
fi

# ---- u and d compress with the settings `a` uses --------------------------------
# d -m0=LZMA -mx1: the kept entries of the solid folder are compressed again
# with LZMA and -mx1's 1 MiB dictionary cut to the kept bytes (under 768 KiB:
# LZMA:768k), nothing with LZMA2.
cp base.7z f.7z
"$FZ7" d -bd -m0=LZMA -mx1 f.7z docs/part2.txt > log 2>&1 || { cat log; fail "d -m0=LZMA -mx1"; }
7zz t f.7z > log 2>&1 || { cat log; fail "7zz t after d -m0=LZMA -mx1"; }
[ "$(listing f.7z)" = "$(listing base.7z | grep -v '^docs/part2.txt|')" ] || fail "listing after d -m0=LZMA"
methods=$(7zz l -slt f.7z | awk '/^Path = / { p = substr($0, 8) } /^Size = / { s = substr($0, 8) }
    /^Method = / && p != "f.7z" && s > 0 { print p " " substr($0, 10) }')
[ "$(echo "$methods" | wc -l)" = 7 ] || fail "d -m0=LZMA: expected 7 entries with data: $methods"
[ -z "$(echo "$methods" | grep -v ' LZMA:768k$')" ] || fail "d -m0=LZMA -mx1 compressed with: $methods"
# A method no one writes: 7-Zip's E_INVALIDARG, exit 2, archive untouched.
cp f.7z f_before.7z
"$FZ7" d -bd -m0=Foo f.7z one_byte > log 2>&1; rc=$?
[ "$rc" = 2 ] || { cat log; fail "d -m0=Foo exited $rc, expected 2"; }
grep -q '^E_INVALIDARG : One or more arguments are invalid$' log || { cat log; fail "d -m0=Foo: no E_INVALIDARG line"; }
cmp -s f.7z f_before.7z || fail "d -m0=Foo changed the archive"
# u on an x86 ELF file puts it behind BCJ2 when `a` does (x86 machines).
rm -rf ue && mkdir ue && cp /bin/ls ue/prog && printf 'plain text\n' > ue/note.txt
rm -f ea.7z && (cd ue && "$FZ7" a -bd ../ea.7z prog > /dev/null) || fail "fz7 a of an ELF file"
if 7zz l -slt ea.7z | grep -q '^Method = BCJ2 LZMA2'; then
    cp base.7z f.7z
    (cd ue && "$FZ7" u -bd ../f.7z prog > ../log 2>&1) || { cat log; fail "fz7 u of an ELF file"; }
    7zz l -slt f.7z | awk '/^Path = / { p = substr($0, 8) } /^Method = / && p == "prog" { print substr($0, 10) }' |
        grep -q '^BCJ2 LZMA2:' || fail "u did not put the ELF file behind BCJ2"
    7zz x -so f.7z prog | cmp - /bin/ls || fail "ELF file after u"
fi
# u creating an archive writes the bytes `a` writes, whatever the switches.
for sw in "" "-mx1 -mqs" "-m0=LZMA -md=1m" "-mf=off -ms=off" "-mx0" "-mtm=off -mhc=off" "-ms=e -mf=Delta:4"; do
    rm -f ua.7z aa.7z
    (cd ue && "$FZ7" u -bd $sw ../ua.7z . > ../log 2>&1) || { cat log; fail "fz7 u $sw"; }
    (cd ue && "$FZ7" a -bd $sw ../aa.7z . > ../log 2>&1) || { cat log; fail "fz7 a $sw"; }
    cmp ua.7z aa.7z > /dev/null || fail "u $sw wrote other bytes than a $sw"
done

# ---- failures leave the archive as it was --------------------------------------
# Damaged data in a folder that must be re-compressed.
cp base.7z bad.7z
printf '\xff\xff\xff\xff' | dd of=bad.7z bs=1 seek=100 conv=notrunc 2>/dev/null
cp bad.7z bad_orig.7z
"$FZ7" d -bd bad.7z docs/part1.txt > log 2>&1; rc=$?
[ "$rc" = 2 ] || { cat log; fail "d over damaged data exited $rc, expected 2"; }
cmp bad.7z bad_orig.7z || fail "a failed d changed the archive"
[ -z "$(ls | grep fz7tmp)" ] || fail "a failed d left its temporary file"
# The disk fills up (a file size limit: the writes fail with EFBIG).
cp base.7z full.7z
head -c 300000 /dev/urandom > big.bin
(ulimit -f 64; "$FZ7" u -bd full.7z big.bin > log 2>&1); rc=$?
[ "$rc" = 2 ] || { cat log; fail "u past the file size limit exited $rc, expected 2"; }
cmp full.7z base.7z || fail "a u that ran out of space changed the archive"
[ -z "$(ls | grep fz7tmp)" ] || fail "a u that ran out of space left its temporary file"
# Not an archive.
printf 'not an archive at all' > junk.7z
"$FZ7" d -bd junk.7z x > log 2>&1; rc=$?
[ "$rc" = 2 ] || fail "d on a non-archive exited $rc, expected 2"
[ "$(cat junk.7z)" = "not an archive at all" ] || fail "d changed a non-archive"
# A folder the temporary file cannot be written to (not as root: root writes anyway).
if [ "$(id -u)" != 0 ]; then
    mkdir ro && cp base.7z ro/a.7z && chmod 555 ro
    "$FZ7" d -bd ro/a.7z docs > log 2>&1; rc=$?
    chmod 755 ro
    [ "$rc" = 2 ] || fail "d in a read-only folder exited $rc, expected 2"
    cmp ro/a.7z base.7z || fail "a failed d changed the archive in a read-only folder"
fi
# ---- -w{dir}: the temporary archive is made there ------------------------------
# 7-Zip makes it in -w's folder and moves it over the archive; across file
# systems fz7 copies it beside the archive first, so the archive is only
# ever replaced by rename. Nothing is left in either folder.
mkdir -p wd
cp base.7z w1.7z
"$FZ7" u -bd -wwd w1.7z big.bin > log 2>&1 || { cat log; fail "u -wwd failed"; }
7zz t w1.7z > /dev/null 2>&1 || fail "u -wwd wrote an archive 7zz t rejects"
listing w1.7z | grep -q '^big.bin|300000|' || fail "u -wwd: big.bin is not in the archive"
[ -z "$(ls wd)" ] && [ -z "$(ls | grep fz7tmp)" ] || fail "u -wwd left a temporary file"
# A folder that does not exist: 7zz fails with exit 2 and so does fz7.
cp base.7z w2.7z
"$FZ7" u -bd -wno_such_dir w2.7z big.bin > log 2>&1; rc=$?
[ "$rc" = 2 ] || { cat log; fail "u -wno_such_dir exited $rc, expected 2"; }
cmp w2.7z base.7z || fail "u -wno_such_dir changed the archive"
# Another file system (/dev/shm when it is one): copied, then renamed.
other=""
for d in /dev/shm /run/user/$(id -u) /tmp; do
    [ -d "$d" ] && [ -w "$d" ] && [ "$(stat -c %d "$d")" != "$(stat -c %d .)" ] && { other=$d; break; }
done
if [ -n "$other" ]; then
    wdir=$(mktemp -d "$other/fz7w.XXXXXX")
    cp base.7z w3.7z
    "$FZ7" u -bd "-w$wdir" w3.7z big.bin > log 2>&1 || { cat log; fail "u -w$wdir failed"; }
    cmp w3.7z w1.7z || fail "u -w on another file system wrote other bytes than u -wwd"
    [ -z "$(ls "$wdir")" ] && [ -z "$(ls | grep fz7tmp)" ] || fail "u -w$wdir left a temporary file"
    # Running out of space while writing there leaves the archive as it was.
    cp base.7z w4.7z
    (ulimit -f 64; "$FZ7" u -bd "-w$wdir" w4.7z big.bin > log 2>&1); rc=$?
    [ "$rc" = 2 ] || { cat log; fail "u -w past the file size limit exited $rc, expected 2"; }
    cmp w4.7z base.7z || fail "a failed u -w changed the archive"
    [ -z "$(ls "$wdir")" ] && [ -z "$(ls | grep fz7tmp)" ] || fail "a failed u -w left a temporary file"
    # a to a new archive takes -w too: the same bytes as without it.
    (cd t && "$FZ7" a -bd "-w$wdir" ../w5.7z docs > ../log 2>&1) || { cat log; fail "a -w$wdir failed"; }
    (cd t && "$FZ7" a -bd ../w5b.7z docs > ../log 2>&1) || { cat log; fail "a without -w failed"; }
    cmp w5.7z w5b.7z || fail "a -w$wdir wrote other bytes than a without -w"
    [ -z "$(ls "$wdir")" ] || fail "a -w$wdir left a temporary file"
    rmdir "$wdir"
else
    echo "note: no writable folder on another file system; -w across file systems not tested"
fi
# -w alone: the temporary folder, $TMPDIR (one that does not exist fails
# the update, which shows where the file goes).
mkdir -p tmpd
cp base.7z w6.7z
TMPDIR=$PWD/no_such_tmpd "$FZ7" u -bd -w w6.7z big.bin > log 2>&1; rc=$?
[ "$rc" = 2 ] || { cat log; fail "u -w with a missing \$TMPDIR exited $rc, expected 2"; }
cmp w6.7z base.7z || fail "a failed u -w changed the archive"
TMPDIR=$PWD/tmpd "$FZ7" u -bd -w w6.7z big.bin > log 2>&1 || { cat log; fail "u -w failed"; }
cmp w6.7z w1.7z || fail "u -w wrote other bytes than u -wwd"
[ -z "$(ls tmpd)" ] && [ -z "$(ls | grep fz7tmp)" ] || fail "u -w left a temporary file"

# Bytes before a 7z archive (a self-extractor's stub, or anything else)
# stay before it through a, u, d and rn, as 7zz keeps them (fz7 dropped them).
head -c 12345 /dev/urandom > stub && printf 'keep\n' > k1 && printf 'new\n' > k2
"$FZ7" a -bso0 plain.7z k1 >/dev/null 2>&1 || fail "a plain.7z"
for c in "a k2" "u k2" "d k1" "rn k1 k3"; do
    cat stub plain.7z > lead.7z
    # shellcheck disable=SC2086
    "$FZ7" ${c%% *} -bso0 lead.7z ${c#* } >/dev/null 2>&1 || fail "$c on an archive behind 12345 bytes"
    cmp -n 12345 lead.7z stub || fail "$c dropped the bytes before the archive"
    [ "$("$FZ7" l lead.7z 2>&1 | grep -c '^Offset = 12345$')" = 1 ] || fail "$c: the archive is not at 12345 any more"
    "$FZ7" t lead.7z >/dev/null 2>&1 || fail "$c: the archive behind the bytes does not test"
done

echo "update.sh: ok"
exit 0
