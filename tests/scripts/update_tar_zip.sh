#!/usr/bin/env bash
# update_tar_zip.sh - d, rn, u and a on an existing tar and zip, beside
# 7zz 26.02 on a copy of the same archive: the same exit code, the same
# plan lines (Delete/Keep/Add, Files read, -bb1 "U"/"+") and the same
# entries in the same order (7zz l's name, size and attribute columns); a
# tar comes out byte for byte as 7zz's, -snh's hard links among the new
# files too. Then what fz7 does better: a tar
# hard link keeps its data when the file it links to is deleted, renamed
# or replaced (7zz leaves a link to nothing); and what it refuses: a
# damaged old entry (the archive stays as it was, no temporary file left),
# an archive whose format is not its name's (7zz's lines). And x of a zip
# of 7zz's restores the mtime it keeps to 100 ns.
set -u
. "$(dirname "$0")/lib.sh"
t_init 7zz tar python3
export LC_ALL=C.UTF-8 TZ=UTC
check() { if eval "$2"; then ok; else bad "$1"; fi; }

# A tree whose mtimes fall between seconds: 7zz keeps them in a zip's NTFS
# field (100 ns) and a DOS time rounded up to the next even second, fz7
# reads the NTFS one and writes it back to the second (libarchive's UT).
mkdir -p w/d/s
(cd w && printf 'hello\n' >a.txt && printf 'world\n' >b.txt && printf 'x\n' >d/s/f &&
 printf 'new\n' >c.txt && touch -d '2026-01-02 03:04:05.5' a.txt b.txt d/s/f d/s d c.txt)
cd w || exit 1

# The entries 7zz lists: time, attributes, size, name (no packed size).
entries() { 7zz l "$1" 2>/dev/null | awk '/^-------------------/{n++; next} n==1' | cut -c1-39,54-; }
# The plan and result lines both print.
plan() { grep -E '^(Delete data|Keep old data|Add new data|Files read|[U+] )' "$1"; }

for T in tar zip; do
    for cmd in "d ARC b.txt" "d ARC d" "rn ARC d/s d/t" "rn ARC a.txt A.txt" \
               "u ARC c.txt" "u -bb1 ARC a.txt c.txt NEWER" "a ARC d c.txt NEWER" "a ARC ."; do
        rm -f ../s.$T ../f.$T
        touch -d '2026-01-02 03:04:05.5' a.txt
        7zz a -bd ../s.$T a.txt b.txt d >/dev/null 2>&1 && cp ../s.$T ../f.$T
        args=${cmd% NEWER}
        [ "$args" != "$cmd" ] && touch -d '2026-03-04 05:06:07.5' a.txt
        7zz ${args/ARC/../s.$T} >../z.out 2>&1; zr=$?
        "$FZ7" ${args/ARC/../f.$T} >../f.out 2>&1; fr=$?
        check "$T $args: exit $fr, 7zz $zr" "[ $fr -eq $zr ] && [ $fr -eq 0 ]"
        check "$T $args: the plan lines are 7zz's" "diff <(plan ../z.out) <(plan ../f.out) >/dev/null"
        check "$T $args: the entries are 7zz's, in its order" \
            "[ -n \"\$(entries ../f.$T)\" ] && diff <(entries ../s.$T) <(entries ../f.$T) >/dev/null"
        [ $T = tar ] && check "$T $args: the tar is 7zz's byte for byte" "cmp -s ../s.$T ../f.$T"
    done
done
touch -d '2026-01-02 03:04:05.5' a.txt

# u on a tar that does not exist makes one.
rm -f ../n.tar
"$FZ7" u -bd ../n.tar a.txt d >/dev/null 2>&1; rc=$?
check "u new tar: exit $rc, a tar of 4 entries" "[ $rc -eq 0 ] && [ \$(tar -tf ../n.tar | wc -l) -eq 4 ]"
cd .. || exit 1

# x of a zip of 7zz's: its NTFS mtime (libarchive reads only the DOS time).
mkdir -p nt && printf 't\n' >nt/t.txt && touch -d '2026-01-02 03:04:05.1234567' nt/t.txt
(cd nt && 7zz a -bd ../nt.zip t.txt >/dev/null 2>&1)
"$FZ7" x -bd nt.zip -ontx >/dev/null 2>&1; rc=$?
same "x of 7zz's zip: exit $rc, the mtime to 100 ns" "$rc $(stat -c %y ntx/t.txt 2>/dev/null)" \
    "0 2026-01-02 03:04:05.123456700 +0000"
same "l of 7zz's zip: its time" "$("$FZ7" l nt.zip | grep -c '^2026-01-02 03:04:05 .*t.txt$')" 1

# --- hard links (tar) --------------------------------------------------
mkdir -p h/s && printf 'data\n' >h/s/orig && ln h/s/orig h/link && ln h/s/orig h/third
tar -cf h0.tar h   # h/link holds the data, h/s/orig and h/third link to it
links_ok() {   # $1 tar, $2.. the names that must hold "data" as one file
    rm -rf hx && mkdir hx && tar -xf "$1" -C hx 2>/dev/null || return 1
    local ino="" n
    for n in "${@:2}"; do
        [ "$(cat "hx/$n" 2>/dev/null)" = data ] || return 1
        [ -z "$ino" ] && ino=$(stat -c %i "hx/$n")
        [ "$(stat -c %i "hx/$n")" = "$ino" ] || return 1
    done
}
cp h0.tar h1.tar && "$FZ7" d -bd h1.tar h/link >/dev/null 2>&1; rc=$?
check "d of a hard link's file: exit $rc, its links keep the data" \
    "[ $rc -eq 0 ] && links_ok h1.tar h/s/orig h/third && ! tar -tf h1.tar | grep -qx h/link"
cp h0.tar h2.tar && "$FZ7" rn -bd h2.tar h/link h/L2 >/dev/null 2>&1; rc=$?
check "rn of a hard link's file: exit $rc, its links follow" "[ $rc -eq 0 ] && links_ok h2.tar h/L2 h/s/orig h/third"
cp h0.tar h3.tar && "$FZ7" rn -bd h3.tar h/s h/t >/dev/null 2>&1; rc=$?
check "rn of a link's folder: exit $rc" "[ $rc -eq 0 ] && links_ok h3.tar h/link h/t/orig h/third"
mkdir -p hu/h && printf 'fresh\n' >hu/h/link
cp h0.tar h4.tar && (cd hu && "$FZ7" u -bd ../h4.tar h/link >/dev/null 2>&1); rc=$?
check "u replacing a hard link's file: exit $rc, the links keep the old data" \
    "[ $rc -eq 0 ] && links_ok h4.tar h/s/orig h/third && [ \"\$(cat hx/h/link)\" = fresh ]"

# --- refusals -------------------------------------------------------------
cp s.zip bad.zip && python3 - <<'PY'
d = bytearray(open("bad.zip", "rb").read())
i = d.index(b"hello")
d[i] ^= 0x20
open("bad.zip", "wb").write(d)
PY
cp bad.zip bad0.zip
"$FZ7" d -bd bad.zip b.txt >out.txt 2>err.txt; rc=$?
# the entries that stay are copied as they are, as 7zz copies them: the
# damaged one too, still damaged, and nothing else changed in it
cp bad0.zip bad7.zip && 7zz d -bd bad7.zip b.txt >/dev/null 2>&1
check "d on a zip with a damaged entry: exit $rc, the entries kept byte for byte as 7zz keeps them" \
    "[ $rc -eq 0 ] && cmp -s bad.zip bad7.zip && 7zz t bad.zip 2>&1 | grep -q 'CRC Failed : a.txt' && ! ls .fz7tmp* >/dev/null 2>&1"
cp s.zip z_as.7z
"$FZ7" u -bd z_as.7z w/c.txt >out.txt 2>err.txt; rc=$?
check "u on a zip named .7z: exit $rc, 7zz's open error" \
    "[ $rc -eq 2 ] && grep -qx 'Open ERROR: Cannot open the file as \[7z\] archive' err.txt && cmp -s z_as.7z s.zip"
cp s.tar t_as.zip
"$FZ7" d -bd t_as.zip a.txt >out.txt 2>err.txt; rc=$?
check "d on a tar named .zip: exit $rc, 7zz's open error" \
    "[ $rc -eq 2 ] && grep -qx 'Open ERROR: Cannot open the file as \[zip\] archive' err.txt"
cp s.zip p.zip
"$FZ7" u -bd -psecret p.zip w/c.txt >out.txt 2>err.txt; rc=$?
# (4 bytes that Deflate makes longer: stored, as 7zz stores them)
check "u -p on a zip: exit $rc, the new entry ZipCrypto as 7zz writes it, 7zz tests it" \
    "[ $rc -eq 0 ] && 7zz l -slt p.zip | grep -qx 'Method = ZipCrypto Store' && 7zz t -psecret p.zip >/dev/null 2>&1"
# u without -p of an encrypted zip: its entries are copied as they are
# (no password needed, as with 7zz), the new one unencrypted
printf 'more\n' >w/e.txt
cp p.zip p2.zip
"$FZ7" u -bd p2.zip w/e.txt >out.txt 2>err.txt; rc=$?
check "u of an encrypted zip without -p: exit $rc, the old entries still encrypted, the new one not" \
    "[ $rc -eq 0 ] && 7zz l -slt p2.zip | grep -A8 -x 'Path = w/c.txt' | grep -qx 'Encrypted = +' &&
     7zz l -slt p2.zip | grep -A8 -x 'Path = w/e.txt' | grep -qx 'Encrypted = -' && 7zz t -psecret p2.zip >/dev/null 2>&1"

# -snh on an existing tar: the new files' later hard-link names are tar
# hard links to the first name written (by name order, as 7zz sorts them),
# with u and with a, byte for byte 7zz's tar
mkdir -p snh/p && printf 'linked\n' >snh/p/one && ln snh/p/one snh/p/two && ln snh/p/one snh/three
for c in u a; do
    7zz a -bd ../snh7.tar b.txt >/dev/null 2>&1 && cp ../snh7.tar ../snhf.tar
    7zz $c -snh ../snh7.tar snh >/dev/null 2>&1; zr=$?
    "$FZ7" $c -snh ../snhf.tar snh >/dev/null 2>&1; fr=$?
    same "$c -snh on a tar: exit, and 7zz's bytes" "$fr $(cmp -s ../snh7.tar ../snhf.tar && echo same)" "$zr same"
    same "$c -snh on a tar: two hard links" "$(tar -tvf ../snhf.tar | grep -c '^h')" 2
done

# A zip name in Unicode's decomposed form ("e" + U+0301): libarchive gives
# it composed (U+00E9); fz7 extracts, updates and renames by the stored bytes
cd "$S" || exit 1
mkdir -p nfd/d && nfd=$(printf 'e\314\201t.txt') && printf 'x' >"nfd/d/$nfd" && printf 'y' >nfd/d/plain.txt
rm -f nfd.zip && 7zz a -bd nfd.zip nfd >/dev/null 2>&1
rm -rf nfdx && "$FZ7" x -bd -onfdx nfd.zip >/dev/null 2>&1; rc=$?
check "x of a zip with a decomposed name: exit $rc, the name's bytes as stored" "[ $rc -eq 0 ] && [ -f \"nfdx/nfd/d/$nfd\" ]"
"$FZ7" rn -bd nfd.zip "nfd/d/$nfd" nfd/d/renamed.txt >/dev/null 2>&1; rc=$?
check "rn of the decomposed name: exit $rc, renamed" \
    "[ $rc -eq 0 ] && 7zz l -ba nfd.zip | grep -q ' nfd/d/renamed.txt\$' && 7zz t nfd.zip >/dev/null 2>&1"

# The same in a pax tar (GNU tar's path and linkpath records, which
# libarchive composes too), and in the tar fz7 writes from such a tree
ln -s "d/$nfd" nfd/link
rm -f nfd.tar && tar --format=pax -cf nfd.tar nfd
rm -rf nfdt && "$FZ7" x -bd -snl -onfdt nfd.tar >/dev/null 2>&1; rc=$?
check "x of a pax tar with a decomposed name and link target: exit $rc, both as stored" \
    "[ $rc -eq 0 ] && [ -f \"nfdt/nfd/d/$nfd\" ] && [ \"\$(readlink nfdt/nfd/link)\" = \"d/$nfd\" ]"
printf 'n\n' >nfdnew.txt
"$FZ7" u -bd nfd.tar nfdnew.txt >/dev/null 2>&1; rc=$?
check "u of that tar: exit $rc, its names and link target kept as stored" \
    "[ $rc -eq 0 ] && tar -tf nfd.tar | grep -qx \"nfd/d/$nfd\" && tar -tvf nfd.tar | grep -q \" -> d/$nfd\\$\""
rm -f nfdf.tar nfd7.tar && "$FZ7" a -bd -snl nfdf.tar nfd >/dev/null 2>&1 && 7zz a -bd -snl nfd7.tar nfd >/dev/null 2>&1
check "a tar of a tree with a decomposed name: 7zz's tar byte for byte" "cmp -s nfdf.tar nfd7.tar"

# A zip whose central directory is larger than the 1 MiB the update reads
# it by (12,000 entries of 100-byte names): d keeps every other entry
mkdir -p many && (cd many && python3 -c "
import os
for i in range(12000):
    open('f%05d_' % i + 'x' * 93, 'w').write(str(i))")
rm -f many.zip && "$FZ7" a -bd -mx1 many.zip many >/dev/null 2>&1
"$FZ7" d -bd many.zip "many/f00007_$(printf 'x%.0s' $(seq 93))" >/dev/null 2>&1; rc=$?
check "d on a zip of 12,000 entries (a 2 MB central directory): exit $rc, 11,999 files kept, 7zz tests it" \
    "[ $rc -eq 0 ] && [ \"\$(7zz l -ba many.zip | grep -c ' many/f')\" = 11999 ] && 7zz t many.zip >/dev/null 2>&1"

# A zip whose central directory lists the entries in the reverse of their
# data's order (libarchive lists them by data): each entry gets its own
# record (sizes, name bytes), and u copies every entry under its name
python3 - <<'PY'
import io, struct, zipfile
buf = io.BytesIO()
with zipfile.ZipFile(buf, "w") as z:
    z.writestr("first.txt", "one")
    z.writestr(zipfile.ZipInfo("e\u0301.txt"), "two two")
    z.writestr("third.txt", "three three three")
d = buf.getvalue()
end = d.rindex(b"PK\x05\x06")
at = struct.unpack("<I", d[end + 16:end + 20])[0]
cd, recs, i = d[at:end], [], 0
while i < len(cd):
    n, x, c = struct.unpack("<HHH", cd[i + 28:i + 34])
    recs.append(cd[i:i + 46 + n + x + c])
    i += 46 + n + x + c
open("rev.zip", "wb").write(d[:at] + b"".join(reversed(recs)) + d[end:])
PY
check "l of a zip listed out of its data's order: each entry's own sizes" \
    "[ \"\$(\"\$FZ7\" l -slt rev.zip | grep -E '^(Size|Packed Size) = ' | sort | uniq -c | wc -l)\" = \"\$(7zz l -slt rev.zip | grep -E '^(Size|Packed Size) = ' | sort | uniq -c | wc -l)\" ] &&
     \"\$FZ7\" l -slt rev.zip | grep -A3 -x 'Path = third.txt' | grep -qx 'Packed Size = 17'"
rm -rf revx && "$FZ7" x -bd -orevx rev.zip >/dev/null 2>&1; rc=$?
check "x of it: exit $rc, the decomposed name as stored" "[ $rc -eq 0 ] && [ \"\$(cat revx/\$(printf 'e\\314\\201.txt'))\" = 'two two' ]"
printf 'new\n' >revnew.txt
"$FZ7" u -bd rev.zip revnew.txt >/dev/null 2>&1; rc=$?
check "u of it: exit $rc, all four entries, 7zz tests it" \
    "[ $rc -eq 0 ] && [ \"\$(7zz l -ba rev.zip | wc -l)\" = 4 ] && 7zz t rev.zip >/dev/null 2>&1"

# A zip behind 1,100 bytes of something else (a self-extractor's stub):
# the entries fz7 decodes itself (an encrypted link) are found there too
mkdir -p pre && printf 'x\n' >pre/t.txt && ln -sf t.txt pre/l
rm -f pre0.zip && 7zz a -bd -snl -psecret pre0.zip pre >/dev/null 2>&1
{ head -c 1100 /dev/zero; cat pre0.zip; } >pre.zip
rm -rf prex && "$FZ7" x -bd -snl -psecret -oprex pre.zip >/dev/null 2>&1; rc=$?
check "x of a prefixed zip with an encrypted link: exit $rc, the link's target" \
    "[ $rc -eq 0 ] && [ \"\$(readlink prex/pre/l)\" = t.txt ]"

# 65,536 entries: the zip64 end record sits before the classic one, whose
# fields need not overflow; d keeps the other 65,535 (it emptied the zip)
python3 -c "
import zipfile
with zipfile.ZipFile('big.zip', 'w') as z:
    for i in range(65536):
        z.writestr('f%05d' % i, b'x')"
"$FZ7" d -bd big.zip f00001 >/dev/null 2>&1; rc=$?
check "d on a zip of 65,536 entries (a zip64 end record): exit $rc, 65,535 kept" \
    "[ $rc -eq 0 ] && [ \"\$(7zz l -ba big.zip | wc -l)\" = 65535 ] && 7zz t big.zip >/dev/null 2>&1"
# An AES zip updated without -p: no password asked (stdin untouched), the
# replaced entry unencrypted, as 7zz does it
printf 'a\n' >ea.txt && printf 'b\n' >eb.txt && rm -f eaes.zip && 7zz a -bd -psecret -mem=AES256 eaes.zip ea.txt eb.txt >/dev/null 2>&1
printf 'new a\n' >ea.txt
left=$(printf 'line1\n' | { "$FZ7" a -bd eaes.zip ea.txt >/dev/null 2>&1; echo "rc=$? $(cat)"; })
check "a replacing an entry of an AES zip without -p: $left, no prompt, stdin left alone" \
    "[ \"$left\" = 'rc=0 line1' ] && 7zz l -slt eaes.zip | grep -A8 -x 'Path = ea.txt' | grep -qx 'Encrypted = -'"
# A name that is not UTF-8 is stored as it is, without the UTF-8 flag
mkdir -p lat && printf 'x' >"lat/lat$(printf '\351').txt" && rm -f lat.zip && "$FZ7" a -bd lat.zip lat >/dev/null 2>&1
check "a zip of a name that is not UTF-8: Python's zipfile opens it (no UTF-8 flag)" \
    "python3 -c 'import zipfile; zipfile.ZipFile(\"lat.zip\").namelist()' 2>/dev/null"

# The archive's comment stays through an update, as 7zz keeps it
python3 -c "
import zipfile
with zipfile.ZipFile('cm.zip', 'w') as z:
    z.writestr('c.txt', 'c')
    z.comment = b'archive comment'"
printf 'd\n' >cm_new.txt
"$FZ7" a -bd cm.zip cm_new.txt >/dev/null 2>&1; rc=$?
check "a to a zip with a comment: exit $rc, the comment kept" \
    "[ $rc -eq 0 ] && [ \"\$(python3 -c 'import zipfile; print(zipfile.ZipFile(\"cm.zip\").comment.decode())')\" = 'archive comment' ]"
# -so to a pipe: a folder without a data descriptor, files (an empty one
# too) deflated with one, as 7zz writes them (Java's ZipInputStream takes
# a descriptor after Deflate only)
mkdir -p so/d && : >so/empty && printf 'x\n' >so/f
"$FZ7" a -bd -tzip -so sox.zip so 2>/dev/null | cat >so.zip
check "a -tzip -so to a pipe: stored folders without a descriptor, files deflated, 7zz tests it" \
    "7zz t so.zip >/dev/null 2>&1 && python3 -c '
import zipfile, sys
z = zipfile.ZipFile(\"so.zip\")
bad = [i.filename for i in z.infolist() if (i.flag_bits & 8) != (0 if i.filename.endswith(\"/\") else 8)
       or (not i.filename.endswith(\"/\") and i.compress_type != 8)]
sys.exit(1 if bad else 0)'"

# a -p (no -mem) to a zip that has AES entries: AES-256, as 7zz picks it
printf 'n\n' >eaes_new.txt
"$FZ7" a -bd -psecret eaes.zip eaes_new.txt >/dev/null 2>&1; rc=$?
check "a -p to a zip with AES entries: exit $rc, the new entry AES-256" \
    "[ $rc -eq 0 ] && 7zz l -slt eaes.zip | grep -A12 -x 'Path = eaes_new.txt' | grep -q '^Method = AES-256 '"

# -so -an: no archive name needed, the type from -t (as 7zz)
"$FZ7" a -bd -tzip -so -an so 2>/dev/null | cat >an.zip
check "a -tzip -so -an: a zip 7zz tests" "7zz t an.zip >/dev/null 2>&1"

# d on a pax tar keeps the other entries as they are, every record (a
# sparse map, sub-second times), as 7zz copies them: not re-encoded
mkdir -p px && truncate -s 2M px/sparse.bin && printf 'x\n' >px/f.txt && printf 'y\n' >px/g.txt
rm -f px.tar && tar --format=pax --sparse -cf px.tar px
"$FZ7" d -bd px.tar px/g.txt >/dev/null 2>&1; rc=$?
check "d on a pax tar with a sparse file: exit $rc, the others' records kept (sparse map, times), under 64 KiB" \
    "[ $rc -eq 0 ] && [ \"\$(stat -c %s px.tar)\" -lt 65536 ] && python3 -c '
import tarfile, sys
t = {m.name: m for m in tarfile.open(\"px.tar\")}
ok = \"px/g.txt\" not in t and \"GNU.sparse.realsize\" in t[\"px/sparse.bin\"].pax_headers and \".\" in t[\"px/f.txt\"].pax_headers.get(\"mtime\", \"\")
sys.exit(0 if ok else 1)'"

# A Unix zip's name with a backslash is a name, not a folder (as 7zz)
mkdir -p bs && printf 'x' >'bs/back\slash.txt' && rm -f bs.zip && (cd bs && 7zz a -bd ../bs.zip . >/dev/null 2>&1)
rm -rf bsx && mkdir bsx && (cd bsx && "$FZ7" x -bd ../bs.zip >/dev/null 2>&1); rc=$?
check "x of a Unix zip's name with a backslash: exit $rc, one file of that name" "[ $rc -eq 0 ] && [ -f 'bsx/back\slash.txt' ]"

# Bytes after the end of a 7z, tar or zip (its end blocks' zeros, a last
# part block, a download's junk): l/t/x warn ("There are data after the end
# of archive", Tail Size), and a, u, d, rn refuse as 7zz does (E_NOTIMPL,
# exit 2), leaving the archive and its tail as they were (fz7 wrote the
# archive without the tail before). stdout and stderr as 7zz's.
mkdir -p tl && printf 'tail test\n' >tl/f.txt && printf 'new\n' >tl/n.txt
(cd tl && rm -f t0.7z t0.tar t0.zip && 7zz a -bd t0.7z f.txt >/dev/null && tar cf t0.tar f.txt && 7zz a -bd t0.zip f.txt >/dev/null)
head -c 100 /dev/urandom >tl/junk && head -c 512 /dev/zero >tl/zeros && printf 'PK\005\006junk' >tl/eocd
for T in 7z tar zip; do
    for tail in junk zeros+junk eocd; do
        [ "$T" != zip ] && [ "$tail" = eocd ] && continue
        (cd tl && cat t0.$T ${tail/+/ } >tt.$T)
        for cmd in "l ARC" "t ARC" "x -oo ARC" "a ARC n.txt" "u ARC n.txt" "d ARC f.txt" "rn ARC f.txt g.txt"; do
            for tool in 7zz "$FZ7"; do
                rm -rf tl/o && cp tl/tt.$T tl/w.$T
                (cd tl && $tool ${cmd/ARC/w.$T} >"../$(basename "$tool").out" 2>"../$(basename "$tool").err"; echo $? >"../$(basename "$tool").rc")
                cmp -s tl/w.$T tl/tt.$T && echo kept >>"$(basename "$tool").rc"
                [ -d tl/o ] && (cd tl/o && sha256sum f.txt) >>"$(basename "$tool").rc"
            done
            F=$(basename "$FZ7")
            check "$cmd on a $T with $tail after it: exit, archive kept, output as 7zz's" \
                "cmp -s 7zz.rc $F.rc && diff -q <(sed 1,3d 7zz.out | grep -v '^20[0-9][0-9]-') <(sed 1,3d $F.out | grep -v '^20[0-9][0-9]-') >/dev/null && cmp -s 7zz.err $F.err"
        done
    done
done
(cd tl && cat t0.tar zeros junk >tt.tar && "$FZ7" l tt.tar >../l.out 2>&1)
check "l of a tar with a zero block and 100 bytes after it: the zero block is the tar's, the 100 bytes its tail" \
    "[ \"\$(grep -E '^(Physical|Tail) Size' l.out | tr '\n' ' ')\" = 'Physical Size = 10752 Tail Size = 100 ' ]"
rm -rf tl

t_summary update_tar_zip
