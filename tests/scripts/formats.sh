#!/usr/bin/env bash
# formats.sh - archives fz7 reads through libarchive, made here by bsdtar
# (zip, tar, cpio, iso9660): `x` gives the source
# tree byte for byte (modes, symlink targets, hard links as copies), `t` passes, `l` names the
# type, `e -so` streams one file; a .tar.gz/.tar.bz2/.tar.zst/.tar.xz is
# one compressed file whose `x` gives the .tar (7-Zip's choice), and that
# tar the tree; a zip with "../" and absolute names writes nothing outside -o;
# a lone .gz/.bz2/.zst file is one entry (gzip's under its stored name);
# fz7's own gzip reader decodes every member and checks its CRC-32 and
# size, fails a damaged, cut or trailing-garbage file with 7-Zip's line and
# exit 2 and keeps the decoded bytes; gzip, bzip2 and zstd come through a
# pipe (-si) with 7zz's output; tar, zip, cpio and 7z from a pipe go to a
# temporary file in $TMPDIR and read as from the file;
# encrypted zips need the password;
# 7zz -v split zip/tar read from .001, a zip split by zip -s (.z01 ...
# .zip) read as 7zz reads it; damaged zip data and a cut tar.gz
# fail `t` with exit 2; backslashes in 7z and tar names stay ordinary
# characters (as 7zz on Linux keeps them).
set -u
. "$(dirname "$0")/lib.sh"
t_init bsdtar python3

# Archives are made under a UTF-8 locale; fz7 extracts under C too (names
# must not depend on the caller's locale).
export LC_ALL=C.UTF-8

# --- the source tree ---
mkdir -p src/docs/deep src/empty_dir src/bin "src/ünïcödé dir"
printf 'grüße, 日本語\n' >"src/ünïcödé dir/fïlé 名前.txt"
python3 - src <<'PY'
import random, sys
r = random.Random(5)
d = sys.argv[1]
open(d + "/random.bin", "wb").write(r.randbytes(300_000))
open(d + "/docs/deep/numbers.txt", "w").write("".join(f"{i}\n" for i in range(60000)))
open(d + "/docs/readme.txt", "w").write("hello world\n")
open(d + "/docs/empty.txt", "w").close()
PY
printf '#!/bin/sh\necho hi\n' >src/bin/run.sh
chmod 0755 src/bin/run.sh
chmod 0600 src/docs/readme.txt
ln -s docs/readme.txt src/link_to_file
ln -s no/such/target src/dangling # ("../" targets are refused, as by 7zz)
touch -d '2001-02-03 04:05:06' src/docs/readme.txt
ln src/docs/deep/numbers.txt src/hard_link.txt   # tar/cpio store a link: extracted as a copy

# Every regular file, folder and link of a tree with its mode (and link
# target), sorted.
tree_sig() {
    (cd "$1" && find . -mindepth 1 -printf '%y %m %p %l\n' | sort)
}
tree_sig src >src.sig

check_format() { # label type create-args...
    local label=$1 type=$2
    shift 2
    local arc=arc.$label
    if ! bsdtar "$@" -f "$arc" -C src . 2>/dev/null; then
        echo "note: bsdtar cannot write $label, skipped"
        return
    fi
    rm -rf "out_$label"
    LC_ALL=C "$FZ7" x -bd -o"out_$label" "$arc" >"x_$label.log" 2>&1
    local rc=$?
    if [ $rc -eq 0 ] && diff -r --no-dereference src "out_$label" >/dev/null; then ok; else bad "$label: x rc=$rc or contents differ"; fi
    tree_sig "out_$label" >"out_$label.sig"
    local want=src.sig
    if [ "$label" = iso ]; then
        # bsdtar's Rock Ridge keeps types and links but stores files
        # read-only (a+r, a+x kept), as its "rockridge=useful" default does.
        sed -E 's/^f 6[04][04] /f 444 /; s/^f 755 /f 555 /' src.sig | sort >iso.sig
        want=iso.sig
    fi
    if cmp -s "$want" "out_$label.sig"; then ok; else bad "$label: modes or links differ: $(diff "$want" "out_$label.sig" | head -4)"; fi
    if [ "$(stat -c %Y "out_$label/docs/readme.txt" 2>/dev/null)" = "$(stat -c %Y src/docs/readme.txt)" ]; then ok; else bad "$label: mtime"; fi
    "$FZ7" t -bd "$arc" >"t_$label.log" 2>&1
    rc=$?
    if [ $rc -eq 0 ] && grep -q "Everything is Ok" "t_$label.log"; then ok; else bad "$label: t rc=$rc"; fi
    if "$FZ7" l "$arc" | grep -qx "Type = $type"; then ok; else bad "$label: Type = $type"; fi
    local names
    names=$("$FZ7" l -slt "$arc" | grep -c '^Path = .*numbers.txt$')
    [ "$names" = 1 ] && ok || bad "$label: l -slt lists numbers.txt $names times"
    if "$FZ7" e -so "$arc" docs/deep/numbers.txt 2>/dev/null | cmp -s - src/docs/deep/numbers.txt; then
        ok
    else
        bad "$label: e -so"
    fi
}
check_format zip zip --format=zip -c
check_format tar tar --format=pax -c
check_format ustar tar --format=ustar -c
check_format cpio Cpio --format=newc -c
check_format iso Iso --format=iso9660 -c

# --- archives whose index is at the end or whose entries are listed first
# (tar, zip, cpio, 7z) from a pipe: copied to a temporary file, then read ---
"$FZ7" a -bd arc.7z ./src/* >/dev/null 2>&1
for a in arc.tar arc.zip arc.cpio arc.7z; do
    [ -f "$a" ] || { bad "$a missing"; continue; }
    rm -rf pipe_out && cat "$a" | "$FZ7" x -si -opipe_out >/dev/null 2>err.txt
    rc=$?
    tree_sig pipe_out >pipe.sig 2>/dev/null
    "$FZ7" x -opipe_file "$a" >/dev/null 2>&1 && tree_sig pipe_file >file.sig 2>/dev/null && rm -rf pipe_file
    [ $rc = 0 ] && cmp -s pipe.sig file.sig && ok || bad "x -si < $a: exit $rc or not the tree x $a gives"
    # l from a pipe lists what l of the file lists, the Path line aside
    cat "$a" | "$FZ7" l -si 2>&1 | sed '1,/^--$/d' | grep -v '^Path = ' >got.txt
    "$FZ7" l "$a" 2>&1 | sed '1,/^--$/d' | grep -v '^Path = ' >want.txt
    cmp -s want.txt got.txt && ok || bad "l -si < $a differs from l $a"
done
cat arc.tar | TMPDIR=/nonexistent "$FZ7" t -si >/dev/null 2>err.txt
same "tar from a pipe, TMPDIR unwritable" "$? $(grep -m1 'temporary' err.txt)" \
    "2 cannot create a temporary file in /nonexistent: No such file or directory"

# --- a compressed tar is one compressed file, as 7-Zip opens it: x gives
# the tar (named after the archive), l its type, and the tar the tree ---
for z in "gzip:tgz:-z" "bzip2:tbz2:-j" "zstd:tzst:--zstd"; do
    type=${z%%:*} rest=${z#*:}
    ext=${rest%%:*} flag=${rest#*:}
    command -v $type >/dev/null || { echo "note: no $type program, $ext skipped"; continue; }
    bsdtar $flag -cf "arc.$ext" -C src . 2>/dev/null || { echo "note: bsdtar cannot write $ext, skipped"; continue; }
    rm -rf "out_$ext" "tree_$ext"
    "$FZ7" x -bd -o"out_$ext" "arc.$ext" >/dev/null 2>&1
    rc=$?
    "$FZ7" x -bd -o"tree_$ext" "out_$ext/arc.tar" >/dev/null 2>&1
    if [ $rc -eq 0 ] && "$FZ7" l "arc.$ext" | grep -qx "Type = $type" &&
        $type -dc "arc.$ext" | cmp -s - "out_$ext/arc.tar" &&
        diff -r --no-dereference src "tree_$ext" >/dev/null; then
        ok
    else
        bad "$ext: x rc=$rc, not one $type file, or its tar's tree differs"
    fi
    "$FZ7" t -bd "arc.$ext" >"t_$ext.log" 2>&1
    rc=$?
    same "$ext: t" "$rc $(grep -c 'Everything is Ok' "t_$ext.log")" "0 1"
done

# --- .tar.xz opens as xz (the .tar inside), as 7-Zip does ---
if command -v xz >/dev/null; then
    bsdtar -cJf arc.tar.xz -C src .
    rm -rf out_txz
    "$FZ7" x -bd -oout_txz arc.tar.xz >/dev/null 2>&1
    if "$FZ7" l arc.tar.xz | grep -qx "Type = xz" && xz -dc arc.tar.xz | cmp -s - out_txz/arc.tar; then
        ok
    else
        bad "tar.xz: not opened as xz"
    fi
fi

# --- one compressed file (not an archive): one entry named without the suffix ---
for z in "gzip -c:gz" "bzip2 -c:bz2" "zstd -q -c:zst"; do
    prog=${z%%:*} ext=${z#*:}
    command -v "${prog%% *}" >/dev/null || continue
    $prog src/docs/deep/numbers.txt >"numbers.txt.$ext"
    rm -rf "out_$ext"
    "$FZ7" x -bd -o"out_$ext" "numbers.txt.$ext" >/dev/null 2>&1
    rc=$?
    # -slt: gzip's header names it; bzip2 and zstd have no Path line (7zz)
    n=$("$FZ7" l -slt "numbers.txt.$ext" | grep -c '^Path = numbers.txt$')
    want_n=0
    [ "$ext" = gz ] && want_n=1
    if [ $rc -eq 0 ] && [ "$n" = "$want_n" ] && "$FZ7" l "numbers.txt.$ext" | grep -q ' numbers.txt$' &&
        cmp -s "out_$ext/numbers.txt" src/docs/deep/numbers.txt; then
        ok
    else
        bad "numbers.txt.$ext: rc=$rc, listed $n times"
    fi
done

# --- encrypted zip (AES-256 and ZipCrypto): the password decides ---
for enc in aes256 zipcrypt; do
    bsdtar --format=zip --options "zip:encryption=$enc" --passphrase secret -cf "enc_$enc.zip" \
        -C src docs/deep/numbers.txt random.bin 2>/dev/null || { echo "note: no $enc zip"; continue; }
    rm -rf "out_$enc"
    "$FZ7" x -bd -psecret -o"out_$enc" "enc_$enc.zip" >/dev/null 2>&1
    rc=$?
    if [ $rc -eq 0 ] && cmp -s "out_$enc/random.bin" src/random.bin; then ok; else bad "$enc zip: x rc=$rc"; fi
    "$FZ7" t -bd -pwrong "enc_$enc.zip" >wrong.log 2>&1
    rc=$?
    # 7zz's words for a zip whose password check fails, one line a file
    7zz t -bd -pwrong "enc_$enc.zip" >wrong7.log 2>&1
    if [ $rc -eq 2 ] && grep -q "^ERROR: Wrong password : " wrong.log &&
        [ "$(grep '^ERROR' wrong.log)" = "$(grep '^ERROR' wrong7.log)" ]; then ok; else bad "$enc zip: wrong password rc=$rc"; fi
done

# --- zip and tar split by 7zz -v into .001, .002, ... ---
if command -v 7zz >/dev/null; then
    for t in zip tar; do
        7zz a -bd -snl -t$t -v64k "split.$t" ./src >/dev/null
        rm -rf "out_split_$t"
        "$FZ7" x -bd -o"out_split_$t" "split.$t.001" >/dev/null 2>&1
        rc=$?
        if [ $rc -eq 0 ] && diff -r --no-dereference src "out_split_$t/src" >/dev/null; then ok; else bad "split $t: rc=$rc"; fi
    done
    # a tar set without a middle volume: a tar cut short, as 7zz reads it
    # (what comes before the gap is there; Open Errors, exit 2), with the
    # missing volume named on fz7's own line
    mv split.tar.003 held
    "$FZ7" t -bd split.tar.001 >out.log 2>err.log
    rc=$?
    if [ $rc -eq 2 ] && [ "$(sed -n 2,5p err.log | tr '\n' '|')" = "split.tar|ERRORS:|Unexpected end of archive|Missing volume: split.tar.003|" ] &&
        grep -qx 'Open Errors: 1' out.log; then ok; else bad "split tar without .003: rc=$rc $(cat err.log)"; fi
    mv held split.tar.003
fi

# --- hostile names in a zip: nothing outside -o ---
mkdir -p jail
python3 - <<'PY'
import zipfile
with zipfile.ZipFile("evil.zip", "w") as z:
    z.writestr("../evil1.txt", "evil\n")
    z.writestr("ok/../../evil2.txt", "evil\n")
    z.writestr("/evil_abs.txt", "evil\n")
    z.writestr("good.txt", "good\n")
PY
"$FZ7" x -bd -ojail/out evil.zip >evil.log 2>&1
rc=$?
# 7zz's renaming: "../x" -> "x", "ok/../../x" -> "ok/x", "/x" -> "x" (exit 0).
if [ $rc -eq 0 ] && [ -f jail/out/good.txt ] && [ -f jail/out/evil_abs.txt ] &&
    [ "$(find . -name 'evil[12].txt' | LC_ALL=C sort | tr '\n' ' ')" = "./jail/out/evil1.txt ./jail/out/ok/evil2.txt " ]; then
    ok
else
    bad "evil.zip: rc=$rc, wrote $(find . -name 'evil*')"
fi

# --- damaged data ---
python3 - <<'PY'
import zipfile, random
r = random.Random(3)
with zipfile.ZipFile("damaged.zip", "w", zipfile.ZIP_DEFLATED) as z:
    z.writestr("text.txt", "".join(f"line {i}\n" for i in range(20000)))
b = bytearray(open("damaged.zip", "rb").read())
b[len(b) // 3] ^= 0x55
open("damaged.zip", "wb").write(b)
PY
"$FZ7" t -bd damaged.zip >dmg.log 2>&1
rc=$?
if [ $rc -eq 2 ] && grep -q "ERROR: .*text.txt" dmg.log; then ok; else bad "damaged.zip: t rc=$rc"; fi
head -c 100000 arc.tgz >cut.tar.gz 2>/dev/null && {
    "$FZ7" t -bd cut.tar.gz >cut.log 2>&1
    rc=$?
    if [ $rc -eq 2 ]; then ok; else bad "cut.tar.gz: t rc=$rc"; fi
}
printf 'just some text, not an archive\n' >plain.txt
"$FZ7" l plain.txt >/dev/null 2>plain.err
rc=$?
if [ $rc -eq 2 ] && grep -q "Cannot open the file as archive" plain.err; then ok; else bad "plain text: rc=$rc"; fi

# --- backslashes in names ---
python3 "${FZ7_TESTS_DIR:-$(dirname "$0")/..}/scripts/mk7z.py" bs.7z 'f:dir\file.txt:hello' \
    'f:..\..\up.txt:up' 'd:dir2\sub' 'f:a/b.txt:hi'
rm -rf out_bs
"$FZ7" x -bd -oout_bs bs.7z >bs.log 2>&1
rc=$?
got=$(cd out_bs && find . -mindepth 1 -printf '%y %p\n' | sort | tr '\n' ';')
want='d ./a;d ./dir2\sub;f ./..\..\up.txt;f ./a/b.txt;f ./dir\file.txt;'
if [ $rc -eq 0 ] && [ "$got" = "$want" ] && [ "$(cat 'out_bs/dir\file.txt')" = hello ]; then
    ok
else
    bad "7z backslash names: rc=$rc got $got"
fi
if "$FZ7" l bs.7z | grep -q ' dir\\file.txt$'; then ok; else bad "7z backslash names: listing"; fi
if command -v 7zz >/dev/null; then
    rm -rf out_bs7
    7zz x -bd -oout_bs7 bs.7z >/dev/null 2>&1
    got7=$(cd out_bs7 && find . -mindepth 1 -printf '%y %p\n' | sort | tr '\n' ';')
    [ "$got7" = "$got" ] && ok || bad "7z backslash names: 7zz gives $got7"
fi
mkdir -p bsrc && printf 'x\n' >'bsrc/a\b.txt'
bsdtar -cf bs.tar -C bsrc 'a\b.txt'
rm -rf out_bstar
"$FZ7" x -bd -oout_bstar bs.tar >/dev/null 2>&1
[ -f 'out_bstar/a\b.txt' ] && ok || bad "tar backslash name: $(ls out_bstar)"
# A one-entry zip from a Windows host with a backslash, and a zip whose
# Unicode Path (0x7075) renames its entry (in both headers, or only in the
# central one, where 7zz reads it): t passes (fz7 read them as having no
# central directory, exit 2), the names as 7zz gives them (the Windows
# backslash a folder, by design)
python3 - <<'PY'
import zipfile, struct, zlib
z = zipfile.ZipFile('win1.zip', 'w'); i = zipfile.ZipInfo('Folder\\Report.txt'); i.create_system = 0
z.writestr(i, 'x' * 10); z.close()
def upath(raw, uni):
    d = b'\x01' + struct.pack('<I', zlib.crc32(raw)) + uni.encode()
    return struct.pack('<HH', 0x7075, len(d)) + d
for name, local in (('up_both.zip', True), ('up_cd.zip', False)):
    data, raw = b'hello\n', b'old.txt'
    crc, lx, cx = zlib.crc32(data), upath(raw, 'nouveau-\u00e9.txt') if local else b'', upath(raw, 'nouveau-\u00e9.txt')
    loc = struct.pack('<IHHHHHIIIHH', 0x04034b50, 20, 0, 0, 0, 0x21, crc, 6, 6, len(raw), len(lx)) + raw + lx + data
    cen = struct.pack('<IHHHHHHIIIHHHHHII', 0x02014b50, 20, 20, 0, 0, 0, 0x21, crc, 6, 6, len(raw), len(cx), 0, 0, 0, 0, 0) + raw + cx
    open(name, 'wb').write(loc + cen + struct.pack('<IHHHHIIH', 0x06054b50, 0, 0, 1, 1, len(cen), len(loc), 0))
PY
# A zip split across disks (span.z01, span.z02, span.zip; its records
# count offsets per disk): read as one (it listed 0 files and said
# Everything is Ok, then was refused)
python3 - <<'PY'
import struct, zlib
S, data, recs = 600, bytearray(b'PK\x07\x08'), []
for name, d in (('one.bin', bytes(range(256)) * 4), ('two.txt', b'two\n' * 10)):
    g, nb, crc = len(data), name.encode(), zlib.crc32(d)
    data += struct.pack('<IHHHHHIIIHH', 0x04034b50, 20, 0, 0, 0, 0x21, crc, len(d), len(d), len(nb), 0) + nb + d
    recs.append((nb, crc, len(d), g))
chunks = [bytes(data[i:i + S]) for i in range(0, len(data), S)]
cd = b''.join(struct.pack('<IHHHHHHIIIHHHHHII', 0x02014b50, 20, 20, 0, 0, 0, 0x21, crc, l, l, len(nb), 0, 0, g // S, 0, 0, g % S) + nb
              for nb, crc, l, g in recs)
for i, c in enumerate(chunks):
    open('span.z%02d' % (i + 1), 'wb').write(c)
open('span.zip', 'wb').write(cd + struct.pack('<IHHHHIIH', 0x06054b50, len(chunks), len(chunks), 2, 2, len(cd), 0, 0))
PY
rm -rf out_span && "$FZ7" x -oout_span span.zip >out.txt 2>err.txt
same "a zip split across disks: x exit, the files" \
    "$? $(cd out_span && cat one.bin two.txt | cksum)" "0 $(python3 -c 'import sys; sys.stdout.buffer.write(bytes(range(256)) * 4 + b"two\n" * 10)' | cksum)"
# Info-ZIP's split (zip -s): l, -slt, t by its last part and by .z01 as
# 7zz; x the tree 7zz writes; a, u, d, rn refused with 7zz's words, the
# disks unchanged; a missing disk: the files before it, exit 2, named
if command -v zip >/dev/null && command -v 7zz >/dev/null; then
    rm -rf zsplit && mkdir zsplit && (cd src && zip -q -r -s 64k ../zsplit/sp.zip .) &&
    (cd zsplit && ls sp.z0? sp.zip | wc -l) >zn.txt
    same "zip -s made several disks" "$([ "$(cat zn.txt)" -ge 3 ] && echo yes)" "yes"
    for c in "l sp.zip" "l -slt sp.zip" "t sp.zip" "l sp.z01" "t sp.z01" "l -ba sp.zip"; do
        (cd zsplit && 7zz $c >../a7.txt 2>&1; echo "rc $?" >>../a7.txt; "$FZ7" $c >../af.txt 2>&1; echo "rc $?" >>../af.txt)
        same "split zip: fz7 $c as 7zz" "$(tail -n +4 af.txt | cksum)" "$(tail -n +4 a7.txt | cksum)"
    done
    rm -rf zs7 zsf && (cd zsplit && 7zz x -o../zs7 sp.zip >/dev/null 2>&1; "$FZ7" x -o../zsf sp.z01 >/dev/null 2>&1; echo $? >../zrc.txt)
    same "split zip: x exit, the tree 7zz writes" "$(cat zrc.txt) $(diff -r zs7 zsf >/dev/null && echo same)" "0 same"
    before=$(cat zsplit/sp.z0? zsplit/sp.zip | cksum)
    for c in "d sp.zip random.bin" "a sp.zip ../src/docs/readme.txt" "rn sp.z01 random.bin r.bin"; do
        (cd zsplit && 7zz $c >../a7.txt 2>&1; echo "rc $?" >>../a7.txt; "$FZ7" $c >../af.txt 2>&1; echo "rc $?" >>../af.txt)
        same "split zip: fz7 $c refused as 7zz" "$(tail -n +4 af.txt | cksum)" "$(tail -n +4 a7.txt | cksum)"
    done
    same "split zip: the disks unchanged" "$(cat zsplit/sp.z0? zsplit/sp.zip | cksum)" "$before"
    # a disk missing: 7zz's lines for l (every entry, from the directory),
    # and x writes whole every file 7zz writes whole, those after the
    # hole too (they were neither listed nor extracted)
    rm zsplit/sp.z04 && rm -rf zsm zsm7 && (cd zsplit && "$FZ7" x -o../zsm sp.zip >../af.txt 2>&1; echo $? >../zrc.txt;
        7zz x -o../zsm7 sp.zip >/dev/null 2>&1)
    whole() { (cd "$1" && for f in $(find . -type f | sort); do cmp -s "$f" "../zs7/$f" && echo "$f"; done); }
    same "split zip, a disk missing: exit, named, the files 7zz writes whole" \
        "$(cat zrc.txt) $(grep -c 'Missing volume : sp.z04' af.txt) $(whole zsm | tr '\n' ' ')" "2 2 $(whole zsm7 | tr '\n' ' ')"
    (cd zsplit && 7zz l sp.zip >../a7.txt 2>&1; echo "rc $?" >>../a7.txt; "$FZ7" l sp.zip >../af.txt 2>&1; echo "rc $?" >>../af.txt)
    same "split zip, a disk missing: l as 7zz" "$(tail -n +4 af.txt | cksum)" "$(tail -n +4 a7.txt | cksum)"
    printf 'no zip here\n' >junk.z01   # a first disk that is none: 7zz's block, no reason
    for c in l t; do
        7zz $c junk.z01 >a7.txt 2>&1; echo "rc $?" >>a7.txt; "$FZ7" $c junk.z01 >af.txt 2>&1; echo "rc $?" >>af.txt
        same "fz7 $c junk.z01 as 7zz" "$(tail -n +4 af.txt | cksum)" "$(tail -n +4 a7.txt | cksum)"
    done
else
    echo "SKIP: split zip against 7zz (zip or 7zz missing)"
fi
# A zip written to a pipe (data descriptors, no extra fields): l -slt as 7zz's
python3 - <<'PY'
import zipfile, io
class Pipe(io.RawIOBase):
    def __init__(self): self.b = bytearray()
    def writable(self): return True
    def write(self, d): self.b += d; return len(d)
z = zipfile.ZipFile(w := Pipe(), 'w', zipfile.ZIP_DEFLATED); z.writestr('a.txt', 'hello ' * 100); z.writestr('\u00fc.txt', 'x'); z.close()
open('desc.zip', 'wb').write(bytes(w.b))
PY
same "l -slt of a zip with data descriptors: Characteristics" "$("$FZ7" l -slt desc.zip | grep '^Characteristics' | tr '\n' '|')" \
    "Characteristics = Descriptor|Characteristics = Descriptor UTF8|"
for z in win1:Folder/Report.txt up_both:nouveau-é.txt up_cd:nouveau-é.txt; do
    "$FZ7" t "${z%%:*}.zip" >/dev/null 2>&1; rc=$?
    rm -rf out_z && "$FZ7" x -oout_z "${z%%:*}.zip" >/dev/null 2>&1
    same "zip ${z%%:*}: t exit, the file x writes" "$rc $(cd out_z && find . -type f | sed 's|^\./||')" "0 ${z#*:}"
done

# A tar's archive block (`l`): Headers Size, Code Page and Characteristics
# as 7zz 26.02 prints them, for GNU, ustar, long names and links, UTF-8
# names (pax lists its keys there, which libarchive does not show: no line).
if command -v tar >/dev/null; then
    rm -rf tb && mkdir -p tb/d "tb/ü" && (cd tb && printf '1\n' >a.txt && printf '2\n' >"ü/é.txt" &&
        long=$(printf 'x%.0s' $(seq 1 101)) && printf '3\n' >"$long" && ln -s "$long" sl &&
        tar -cf ../tb_gnu.tar a.txt d && tar --format=ustar -cf ../tb_ustar.tar a.txt d &&
        tar -cf ../tb_utf8.tar a.txt "ü" && tar -cf ../tb_long.tar "$long" sl)
    for f in tb_gnu tb_ustar tb_utf8 tb_long; do
        "$FZ7" l $f.tar >out.txt 2>&1
        got=$(sed -n '/^Headers Size/,/^Characteristics/p' out.txt | tr '\n' '|')
        case $f in
        tb_gnu) want='Headers Size = 9728|Code Page = UTF-8|Characteristics = GNU ASCII|' ;;
        tb_ustar) want='Headers Size = 9728|Code Page = UTF-8|Characteristics = POSIX ASCII|' ;;
        tb_utf8) want='Headers Size = 9216|Code Page = UTF-8|Characteristics = GNU UTF8 MaxUnicode=252|' ;;
        tb_long) want='Headers Size = 9728|Code Page = UTF-8|Characteristics = GNU LongName LongLink ASCII|' ;;
        esac
        same "l $f.tar: 7zz's Headers Size, Code Page, Characteristics" "$got" "$want"
    done
fi

# --- gzip: fz7's own reader checks every member; compressed files from a pipe ---
python3 - <<'PY'
import gzip, zlib, struct
a = b"".join(b"line %d of the first member\n" % i for i in range(20000))
b = bytes(range(256)) * 300
m1 = gzip.compress(a, 9, mtime=1700000000)
m2 = gzip.compress(b, 1, mtime=0)
open("gz_src.bin", "wb").write(a + b)
open("gz_a.bin", "wb").write(a)
open("gz_two.gz", "wb").write(m1 + m2)                      # two members: one entry
bad = bytearray(m1); bad[-6] ^= 1
open("gz_crc.gz", "wb").write(bytes(bad))                   # CRC-32 in the trailer off by one bit
open("gz_tail.gz", "wb").write(m1 + b"\0" * 100)            # bytes after the last member
open("gz_cut.gz", "wb").write(m1[:len(m1) // 2])           # cut in the Deflate data
open("gz_empty.gz", "wb").write(gzip.compress(b"", mtime=0))
# FEXTRA, FNAME, FCOMMENT and FHCRC in one header
c = zlib.compressobj(9, zlib.DEFLATED, -15)
body = c.compress(a) + c.flush()
h = bytes([0x1f, 0x8b, 8, 0x1e]) + struct.pack("<I", 1700000000) + bytes([2, 3])
h += struct.pack("<H", 4) + b"ab\x02\x00" + b"stored.txt\x00" + b"a comment\x00"
h += struct.pack("<H", zlib.crc32(h) & 0xffff)
open("gz_fields.gz", "wb").write(h + body + struct.pack("<II", zlib.crc32(a), len(a)))
PY
"$FZ7" x -so gz_two.gz 2>err.txt | cmp -s - gz_src.bin && [ ! -s err.txt ] && ok || bad "gzip of two members: not both in order"
# 7zz's Size line: t takes the last trailer's size, x what it decoded.
"$FZ7" t gz_two.gz >out.txt 2>&1; same "gzip of two members: t" "$? $(grep '^Size:' out.txt)" "0 Size:       76800"
rm -rf gz_x && "$FZ7" x -ogz_x gz_two.gz >out.txt 2>&1
same "gzip of two members: x" "$? $(grep '^Size:' out.txt)" "0 Size:       $(stat -c %s gz_src.bin)"
"$FZ7" x -so gz_fields.gz 2>/dev/null | cmp -s - gz_a.bin && ok || bad "gzip with FEXTRA/FNAME/FCOMMENT/FHCRC"
same "gzip with FNAME: the entry's name" "$("$FZ7" l -ba gz_fields.gz | awk '{print $NF}')" stored.txt
for c in "crc:CRC Failed" "tail:There are some data after the end of the payload data" "cut:Unexpected end of data"; do
    n=${c%%:*} words=${c#*:}
    rm -rf gz_out && "$FZ7" x -ogz_out "gz_$n.gz" >out.txt 2>err.txt
    same "gzip $n: x exit" "$?" 2
    same "gzip $n: 7-Zip's error line" "$(head -n 1 err.txt)" "ERROR: $words : gz_$n"
    # what was decoded is kept: all of it, or a prefix when cut
    if [ "$n" = cut ]; then
        s=$(stat -c %s gz_out/gz_cut)
        [ "$s" -gt 100000 ] && cmp -s gz_out/gz_cut <(head -c "$s" gz_a.bin) && ok || bad "gzip cut: $s bytes kept, not a prefix"
    else
        cmp -s gz_out/gz_$n gz_a.bin && ok || bad "gzip $n: the decoded data were not kept"
    fi
    "$FZ7" t "gz_$n.gz" >/dev/null 2>&1; same "gzip $n: t exit" "$?" 2
done
"$FZ7" t gz_empty.gz >out.txt 2>&1; same "empty gzip: t" "$? $(grep -c 'Everything is Ok' out.txt)" "0 1"
# bzip2 and xz with bytes after their last stream (a zero block, junk):
# 7zz's tail error, exit 2, the data kept (libarchive's bzip2 reader stops
# at them without a word: fz7 passed such a file with exit 0); two
# bzip2 streams in a row are one file, no error
printf 'bzip2 then a tail\n' >bt.txt && bzip2 -c bt.txt >bt0.bz2 && xz -c bt.txt >bt0.xz
head -c 512 /dev/zero >bt.zeros && printf 'not a stream, junk after it' >bt.junk
cat bt0.bz2 bt.zeros >bt_zeros.bz2 && cat bt0.bz2 bt.junk >bt_junk.bz2 && cat bt0.xz bt.junk >bt_junk.xz
cat bt0.bz2 bt0.bz2 >bt_two.bz2
for f in bt_zeros.bz2 bt_junk.bz2 bt_junk.xz; do
    rm -rf bt_out && "$FZ7" x -obt_out $f >out.txt 2>err.txt
    same "$f: x exit, 7-Zip's line, data kept" "$? $(head -n 1 err.txt) $(cat bt_out/${f%.*})" \
        "2 ERROR: There are some data after the end of the payload data : ${f%.*} bzip2 then a tail"
    ty=${f##*.} && ty=${ty/bz2/bzip2}
    "$FZ7" t -si -t$ty <$f >out.txt 2>&1; same "$f: t -si from the file" "$? $(grep -c 'after the end of the payload' out.txt)" "2 1"
    cat $f | "$FZ7" t -si -t$ty >out.txt 2>&1; same "$f: t -si from a pipe" "$? $(grep -c 'after the end of the payload' out.txt)" "2 1"
done
"$FZ7" t bt_two.bz2 >out.txt 2>&1; same "two bzip2 streams: t" "$? $(grep '^Size:' out.txt)" "0 Size:       36"
# From a pipe: gzip by our reader, bzip2 and zstd through libarchive, forward.
cat gz_two.gz | "$FZ7" x -si -so -tgzip 2>/dev/null | cmp -s - gz_src.bin && ok || bad "gzip from a pipe: x -si -so"
cat gz_fields.gz | "$FZ7" t -si -tgzip >out.txt 2>&1
same "gzip from a pipe: t's sizes" "$? $(grep -E '^(Size|Compressed):' out.txt | tr -s ' ' | tr '\n' '|')" \
    "0 Size: $(stat -c %s gz_a.bin)|Compressed: $(stat -c %s gz_fields.gz)|"
rm -rf gz_pipe && mkdir gz_pipe && (cd gz_pipe && "$FZ7" x -si -tgzip <../gz_fields.gz >/dev/null 2>&1)
cmp -s gz_pipe/stored.txt gz_a.bin && ok || bad "gzip from a pipe: x writes the stored name"
cat gz_crc.gz | "$FZ7" t -si -tgzip >/dev/null 2>err.txt
same "damaged gzip from a pipe: t" "$? $(head -n 1 err.txt)" "2 ERROR: CRC Failed : ~"
for z in bzip2 zstd; do
    command -v $z >/dev/null || { echo "note: no $z: its pipe case skipped"; continue; }
    $z -c gz_a.bin >"gz_a.$z"
    cat "gz_a.$z" | "$FZ7" x -si -so -t$z 2>/dev/null | cmp -s - gz_a.bin && ok || bad "$z from a pipe: x -si -so"
    rm -rf gz_pipe && mkdir gz_pipe && (cd gz_pipe && "$FZ7" x -si -t$z <"../gz_a.$z" >/dev/null 2>&1)
    cmp -s gz_pipe/~ gz_a.bin && ok || bad "$z from a pipe: x writes ~"
done
if command -v 7zz >/dev/null; then
    # The whole output beside 7zz's, past the banner (two lines in 7zz, one in fz7).
    for c in "x -si -so -tgzip:gz_two.gz" "t -si -tgzip:gz_fields.gz" "l -si -tgzip:gz_fields.gz" \
             "l -si -slt -tgzip:gz_fields.gz" "l gz_empty.gz:" "l -slt gz_fields.gz:" "t -si -tbzip2:gz_a.bzip2" \
             "l -si -tzstd:gz_a.zstd"; do
        args=${c%%:*} in=${c#*:}
        [ -z "$in" ] || [ -f "$in" ] || continue
        if [ -n "$in" ]; then
            7zz $args <"$in" 2>&1 | sed '1,/^ 64-bit/d' >want.txt
            "$FZ7" $args <"$in" 2>&1 | sed '1,/^ 64-bit/d' >got.txt
        else
            7zz $args 2>&1 | sed '1,/^ 64-bit/d' >want.txt
            "$FZ7" $args 2>&1 | sed '1,/^ 64-bit/d' >got.txt
        fi
        if cmp -s want.txt got.txt; then ok; else bad "$args ${in:+< $in} differs from 7zz's"; diff want.txt got.txt | head -6; fi
    done
fi

# Bytes before an archive, and archives named for no type (as 7zz):
# zero blocks alone are no (empty) tar, and a 7z after 512 or 1024 of them
# opens at its offset (they were an empty tar, "Everything is Ok" with
# nothing extracted); a zip behind a stub lists its Offset, its records'
# offsets in the zip, and t's Compressed counts the whole file; u, d, a
# keep the stub; d, u, a, rn on a zip or tar named x.bin write a zip or
# a tar (they were refused, "Cannot open the file as archive")
if command -v 7zz >/dev/null; then
    vs7() {
        local want got
        want=$(7zz "$@" 2>&1 | tail -n +4; echo "rc=${PIPESTATUS[0]}")
        # (fz7's own "  (in ARCHIVE: reason)" lines left out)
        got=$("$FZ7" "$@" 2>&1 | tail -n +4 | grep -v '^  (in '; echo "rc=${PIPESTATUS[0]}")
        if [ "$want" = "$got" ]; then ok; else bad "$*: differs from 7zz"; diff <(echo "$want") <(echo "$got") | head -6; fi
    }
    rm -f st.7z st.zip && 7zz a -bd st.7z src >/dev/null; 7zz a -bd -tzip st.zip src/docs >st.log 2>&1 || cat st.log
    head -c 10240 /dev/zero >zeros.bin
    (head -c 512 /dev/zero; cat st.7z) >z512.bin
    (head -c 1024 /dev/zero; cat st.7z) >z1024.bin
    (head -c 3000 /dev/zero | tr '\0' 'x'; cat st.zip) >stub_zip.bin
    for f in zeros.bin z512.bin z1024.bin; do vs7 l "$f"; vs7 t "$f"; done
    vs7 l -slt stub_zip.bin
    vs7 t stub_zip.bin
    for c in "u stub_zip.bin one.txt" "d stub_zip.bin docs/readme.txt" "a stub_zip.bin one.txt"; do
        printf 'one\n' >one.txt
        cp stub_zip.bin keep.zip
        "$FZ7" ${c/stub_zip.bin/keep.zip} >/dev/null 2>&1
        # (7zz cannot open its own output of this either: fz7 t tests it)
        same "$c: exit, the stub kept, t passes" \
            "$? $(cmp -n 3000 keep.zip stub_zip.bin >/dev/null && echo kept) $("$FZ7" t keep.zip >/dev/null 2>&1 && echo ok)" "0 kept ok"
    done
    for kind in zip tar; do
        for c in "d X one.txt" "u X two.txt" "a X two.txt" "rn X one.txt uno.txt"; do
            printf 'one\n' >one.txt && printf 'two\n' >two.txt
            rm -f base.$kind && 7zz a -bd -t$kind base.$kind one.txt src/docs/readme.txt >/dev/null && cp base.$kind A.bin && cp base.$kind B.bin
            7zz ${c/X/A.bin} >a7.txt 2>&1; r7=$?
            "$FZ7" ${c/X/B.bin} >af.txt 2>&1; rf=$?
            same "$kind named .bin, $c: exit, the type, the entries as 7zz's" \
                "$rf $(7zz l B.bin | grep '^Type') $(7zz l -ba B.bin | awk '{print $NF}' | sort | tr '\n' ' ')" \
                "$r7 $(7zz l A.bin | grep '^Type') $(7zz l -ba A.bin | awk '{print $NF}' | sort | tr '\n' ' ')"
        done
    done
    # a newc and an odc cpio cut in their trailer and in an entry's data:
    # the entries before the cut listed and extracted as 7zz does (the cut
    # trailer lost them all), the cut one listed with its whole size
    for fmt in newc odc; do
        mkdir -p cpsrc/d && printf 'run\n' >cpsrc/run.sh && seq 1 20000 >cpsrc/d/n.txt && printf 'x' >cpsrc/x
        bsdtar -cf "c_$fmt.cpio" --format "$fmt" cpsrc 2>/dev/null
        sz=$(stat -c %s "c_$fmt.cpio")
        head -c $((sz - 1)) "c_$fmt.cpio" >"c1_$fmt.cpio"
        head -c $((sz / 2)) "c_$fmt.cpio" >"ch_$fmt.cpio"
        for f in "c1_$fmt.cpio" "ch_$fmt.cpio"; do
            vs7 l "$f"
            vs7 l -slt "$f"
            rm -rf cx7 cxf && 7zz x -ocx7 "$f" >/dev/null 2>&1; "$FZ7" x -ocxf "$f" >/dev/null 2>&1
            same "x $f: the files 7zz writes" "$(cd cxf 2>/dev/null && find . -type f -exec sha256sum {} + | sort)" \
                "$(cd cx7 && find . -type f -exec sha256sum {} + | sort)"
        done
    done
    # damaged data in 7zz's words: a zstd frame whose checksum fails is
    # "CRC Failed"; a zip entry whose data end before its header's size
    # "Unexpected end of data" (both were "Data Error")
    if command -v zstd >/dev/null; then
        tar cf ck.tar -C src docs && zstd -q --check -c ck.tar >ck.tar.zst
        python3 -c 'import sys; p = sys.argv[1]; d = bytearray(open(p, "rb").read()); d[-1] ^= 0xff; open(p, "wb").write(d)' ck.tar.zst
        vs7 t ck.tar.zst
    fi
    python3 - <<'PY'
import zipfile, struct
with zipfile.ZipFile('huge.zip', 'w', zipfile.ZIP_DEFLATED) as z:
    z.writestr('small.txt', 'x' * 600)
d = bytearray(open('huge.zip', 'rb').read())
d[22:26] = struct.pack('<I', 0xFFFFFFF0)            # the local header's size
c = d.rfind(b'PK\x01\x02')
d[c + 24:c + 28] = struct.pack('<I', 0xFFFFFFF0)    # the directory's
open('huge.zip', 'wb').write(d)
PY
    vs7 t huge.zip
    # a .bz2 whose first block does not decode: listed, its one entry a
    # Data Error, as 7zz (libarchive cannot open it: "Cannot open the file
    # as [bzip2] archive")
    seq 1 50000 | bzip2 -c >bb.bz2
    python3 -c 'd = bytearray(open("bb.bz2", "rb").read()); d[200] ^= 0x55; open("bbf.bz2", "wb").write(d)'
    vs7 l bbf.bz2
    vs7 t bbf.bz2
    # an empty pipe that is no gzip: 7zz names no file in its error block
    vs7 x -si -tgzip </dev/null
    # a volume set named with its folder: the joined stream is named
    # without it, as 7zz names it (fz7 printed the folder)
    rm -f vs.7z.0* && 7zz a -bd -mx0 -v20k vs.7z src/docs >/dev/null
    vs7 l "$PWD/vs.7z.001"
    vs7 t "$PWD/vs.7z.001"
else
    echo "SKIP: stubs and typeless names against 7zz (no 7zz)"
fi

t_summary formats.sh
