#!/usr/bin/env bash
# compat_switches.sh - every command and switch of `7zz --help` and the -m
# parameters 7zz documents for 7z and xz, each run through 7zz and fz7 in
# two copies of the same folder, comparing the exit code, the files
# written (archives by their entries: path, size, CRC, attributes, times)
# and the output lines once the banner, the archive sizes and timings are
# normalised, the temporary file's suffix (7zz "NAME.tmp", fz7
# "NAME.fz7tmpXXXXXX") made one, and fz7's own detail lines ("  (in
# ARCHIVE: ...)", after a line of 7-Zip's) left out. A row is "same" or says why not; a "same" row that differs
# fails the script. With --table FILE the rows are also written to FILE as
# a Markdown table (docs/compat.md is made so).
set -u
. "$(dirname "$0")/lib.sh"
TABLE=
[ "${1:-}" = --table ] && TABLE=$2 && case $TABLE in /*) ;; *) TABLE=$PWD/$TABLE ;; esac
t_init 7zz
mkdir fixture && cd fixture || exit 1

# The fixture both programs start from (made once, copied for each row).
mkdir -p src/sub src/empty_dir
printf 'hello\n' >src/a.txt
head -c 3000 /dev/zero | tr '\0' 'b' >src/b.bin
printf 'nested\n' >src/sub/c.txt
: >src/sub/empty.txt
printf 'one\n' >one.txt
touch -d '2024-01-02 03:04:05' src/a.txt src/b.bin src/sub/c.txt src/sub/empty.txt src/sub src/empty_dir src one.txt
printf 'pw\n' >pw.txt
printf 'y\nn\nwhat\na\n' >ans_yna.txt   # overwrite prompts' answers (one 7zz does not know)
printf 'n\nq\n' >ans_nq.txt
printf 'MZ stub' >mod.sfx   # a self-extractor module for -sfx
printf 'src/a.txt\n' >list.txt
mkdir lnk && printf 'linked\n' >lnk/f && ln -s f lnk/l   # a folder with a link (-snl rows)
mkdir brk && printf '1\n' >'brk/r[1].txt' && printf 'x\n' >brk/r1.txt   # '[' is no class in 7-Zip
mkdir -p uni/dé && printf 'u\n' >uni/é.txt   # non-ASCII names (zip's UTF-8 flag, -mcl)
# a file cut by split(1): no format in the joined bytes (7-Zip's Split type)
head -c 5000 /dev/urandom >cut.bin && split -b 2000 -d -a 3 --numeric-suffixes=1 cut.bin cut.bin. && rm cut.bin
7zz a -bd arc.7z src >/dev/null
7zz a -bd arc.tar src >/dev/null
7zz a -bd arc.zip src >/dev/null
7zz a -bd -ppw enczc.zip src >/dev/null
7zz a -bd -ppw -mem=AES256 -mm=Deflate64 encaes.zip src >/dev/null
gzip -c arc.tar >arc.tar.gz
bzip2 -c arc.tar >arc.tar.bz2
7zz a -bd -ppw enc.7z src >/dev/null
7zz a -bd -ppw -mhe=on henc.7z src >/dev/null
# henc1.7z: a header a wrong key decodes whole, its CRC failing (7zz then
# adds "Headers Error"; henc.7z's decoder fails first, and it does not)
7zz a -bd -ppw -mhe=on henc1.7z one.txt >/dev/null
7zz a -bd -txz one.xz one.txt >/dev/null
cp one.xz xz.7z && cp arc.7z 7z.zip   # named for another type: opened with a warning
gzip -nc one.txt >noname.gz   # no stored name: the entry is named after the file
# a gzip header with a comment and a header CRC (FCOMMENT, FHCRC)
python3 -c '
import struct, zlib
c = zlib.compressobj(9, zlib.DEFLATED, -15); body = c.compress(b"one\n") + c.flush()
h = b"\x1f\x8b\x08\x1a" + struct.pack("<I", 1577934245) + b"\x02\x03one.txt\0a comment\0"
h += struct.pack("<H", zlib.crc32(h) & 0xffff)
open("comment.gz", "wb").write(h + body + struct.pack("<II", zlib.crc32(b"one\n"), 4))'
cp one.xz one2.xz && cp arc.tar.bz2 one.bz2
cp arc.tar.gz ru.gz && cp arc.tar.bz2 ru.bz2   # -u rows: their new data is compared by entry
cp arc.7z arc2.7z
7zz a -bd -mx0 -v1k vol.7z src >/dev/null     # four volumes
for i in $(seq 1 100); do echo $i | sha256sum; done >hex.txt
7zz a -bd -txz -v1k vol.xz hex.txt >/dev/null    # four volumes
# old.7z also holds src/gone.txt, which is not on disk (-u's state q).
printf 'gone\n' >src/gone.txt
7zz a -bd old.7z src >/dev/null
rm src/gone.txt
printf 'junk\n' >junk.7z
# anti.7z: old.7z updated with -uq3, so src/gone.txt is an anti-item; prev
# and prevflat hold the names it deletes.
cp old.7z anti.7z && 7zz u -bd -uq3 anti.7z src >/dev/null
mkdir -p prev/src prevflat && printf 'x\n' >prev/src/gone.txt && printf 'k\n' >prev/keep.txt &&
    printf 'x\n' >prevflat/gone.txt
# A folder holding one of the archives' files already (-aos rows).
mkdir -p have/src && printf 'old\n' >have/src/a.txt && printf 'old\n' >have/one.txt
# Two archives, the second with a damaged stored entry (a CRC error).
mkdir two && cp arc.7z two/arc.7z && 7zz a -bd -mx0 two/bad.7z one.txt >/dev/null &&
    printf '\377' | dd of=two/bad.7z bs=1 seek=32 conv=notrunc 2>/dev/null
# Two archives, the second with bytes after its end (a warning, exit 0).
mkdir tail && cp arc.7z tail/a.7z && cp arc.7z tail/b.7z && printf 'tail' >>tail/b.7z
find . -exec touch -h -d '2024-01-02 03:04:05' {} +

rows=0
table_rows=()

# Output lines both programs print, made comparable.
norm() {
    sed -E -e '/^7-Zip \(z\) [0-9]/d' -e '/^fz7 [0-9]+\.[0-9]+/d' -e '/^ 64-bit /d' \
        -e 's/^(Archive size: |Physical Size = |Headers Size = |Compressed: |Packed Size = |Offset = )[0-9].*/\1N/' \
        -e 's/= +[0-9.]+ = +[0-9]+%/= T/' \
        -e 's/\.(tmp|fz7tmp[A-Za-z0-9]{6})$/.TMP/' \
        -e '/^  \(in .*\)$/d' -e "s#$1#ROOT#g" "$2"
}

# What a folder holds after the command: files by content, archives the
# command made by their entries.
state() {
    (cd "$1" && find . -mindepth 1 ! -name '.out' ! -name '.err' | LC_ALL=C sort | while IFS= read -r f; do
        if [ -d "$f" ] && [ ! -L "$f" ]; then
            echo "D $f"
        elif [ -L "$f" ]; then
            echo "L $f $(readlink "$f")"
        elif cmp -s "$f" "$S/fixture/$f" 2>/dev/null; then
            echo "F $f (fixture)"
        else
            case $f in
            *.7z|*.xz|*.7z.0*|*.xz.0*|./new|*.exe|*.exe.0*|./new.zip|./new.tar|./new.gz|./new.bz2|./ru.gz|./ru.bz2)
                case $with_bytes in
                bytes) echo "A $f $(md5sum <"$f" | cut -c1-32)" ;;
                size) echo "A $f $(stat -c %s "$f") bytes" ;;
                *) echo "A $f" ;;
                esac
                # an xz entry's Method names its filters, LZMA2 and the check
                local m=$with_methods
                case $f in *.xz) m=1 ;; esac
                # (a zip's NTFS time and its UT time of the same second are one time)
                7zz l -slt -ppw "$f" 2>/dev/null </dev/null | sed -n '/^----------$/,$p' |
                    grep -E "^(Path|Size|CRC|Attributes|Modified|Folder|Encrypted${m:+|Method}) = " |
                    sed -E 's/^(Modified = .*:[0-9][0-9])\.0000000$/\1/' ;;
            *) echo "F $f $(md5sum <"$f" | cut -c1-32)" ;;
            esac
        fi
    done)
}

# mrow STATUS ARGS... : a row whose archives are also compared by each
# entry's Method (the coders and their order, from 7zz l -slt).
with_methods=
mrow() { with_methods=1; row "$@"; with_methods=; }

# brow STATUS ARGS... : a row whose archives must be byte for byte 7zz's.
with_bytes=
brow() { with_bytes=bytes; row "$@"; with_bytes=; }
# srow STATUS ARGS... : a row whose archives must be as long as 7zz's.
srow() { with_bytes=size; row "$@"; with_bytes=; }

# irow FILE STATUS ARGS... : a row whose standard input is the fixture's
# FILE (a pipe: cat FILE |), for -si; the other rows read /dev/null.
row_stdin=
irow() { row_stdin=$1; shift; row "$@"; row_stdin=; }

# row STATUS ARGS... : STATUS "same" or why not ("Windows-only", "not yet: ...").
row() {
    local status=$1; shift
    rows=$((rows + 1))
    local d7=$S/r$rows/7zz df=$S/r$rows/fz7
    mkdir -p "$d7" "$df"
    cp -a "$S/fixture/." "$d7/" && cp -a "$S/fixture/." "$df/"
    local in=$S/fixture/${row_stdin:-/dev/null}
    [ -n "$row_stdin" ] || in=/dev/null
    (cd "$d7" && 7zz "$@" >.out 2>.err <"$in"); local r7=$?
    (cd "$df" && "$FZ7" "$@" >.out 2>.err <"$in"); local rf=$?
    local why=""
    [ "$r7" = "$rf" ] || why="exit $rf, 7zz $r7"
    if [ -z "$why" ] && [ "$(state "$d7")" != "$(state "$df")" ]; then
        why="files differ"
    fi
    if [ -z "$why" ] && [ "$(norm "$d7" "$d7/.out")" != "$(norm "$df" "$df/.out")" ]; then
        why="stdout differs"
    fi
    if [ -z "$why" ] && [ "$(norm "$d7" "$d7/.err")" != "$(norm "$df" "$df/.err")" ]; then
        why="stderr differs"
    fi
    local shown="$*${row_stdin:+ < $row_stdin}"
    if [ "$status" = same ]; then
        if [ -z "$why" ]; then
            pass=$((pass + 1)); echo "same       | $shown"
        else
            fail=$((fail + 1)); echo "FAIL       | $shown | $why"
            diff <(state "$d7") <(state "$df") | head -5
            diff <(norm "$d7" "$d7/.out") <(norm "$df" "$df/.out") | head -8
            diff <(norm "$d7" "$d7/.err") <(norm "$df" "$df/.err") | head -8
        fi
    else
        [ -z "$why" ] && why="(now the same)"
        echo "not same   | $shown | $status [$why]"
    fi
    [ -n "$with_methods" ] && shown="$shown (entries' Method too)"
    [ "$with_bytes" = bytes ] && shown="$shown (archive's bytes too)"
    [ "$with_bytes" = size ] && shown="$shown (archive's size too)"
    table_rows+=("| \`fz7 ${shown//|/\\|}\` | ${status//|/\\|} |")
    rm -rf "$S/r$rows"
}

# --- commands ------------------------------------------------------------------
row same a new.7z src
row same a new.7z one.txt src/a.txt
row same a -txz new.xz one.txt
row same a arc.7z one.txt
row same l arc.7z
row same l -slt arc.7z
row same l -ba arc.7z
row same t arc.7z
row same x arc.7z -oout
row same x arc.7z -oout src/sub
row same e arc.7z -oout
row same u arc.7z one.txt
row same d arc.7z src/a.txt
# d on a one-file stream that names none of its entry: kept as it is, exit 0
row same d one.xz nomatch
row same d arc.tar.gz nomatch
row same d arc.tar.bz2 nomatch
# rn and d of the one entry of a gzip, xz or bzip2 file, and u/a of
# another file: rn writes a gzip's new stored name (the others store
# none), d leaves an xz without blocks and is refused for gzip and bzip2
row same rn arc.tar.gz arc.tar renamed.tar
row same rn arc.tar.gz nomatch other
row same rn noname.gz noname named
row "different by design: fz7 keeps the header's comment and header CRC (FCOMMENT, FHCRC); 7zz drops them" rn comment.gz one.txt two.txt
row same d arc.tar.gz arc.tar
row same rn one2.xz one2 two
row same d one2.xz one2
row same rn one.bz2 one x
row same d one.bz2 one
row same u one2.xz one.txt
row same a arc.tar.gz one.txt
row same u one.bz2 one.txt
# -u rules on a one-file stream: written when they leave exactly one file
# (the new one, or the old one kept as it is), else E_INVALIDARG
row same u -up0q0r2x2y2z1w2 ru.gz one.txt
row same u -up1q1r2x2y2z1w2 ru.gz one.txt
row same u -up0q0r0x2y2z1w2 ru.gz one.txt
row same u -up1q1r0 ru.gz one.txt
row same a -up0q0r2 one2.xz src/a.txt
row same u -up0q0r2 ru.bz2 src/a.txt
row same u -up0q0r2 ru.bz2 one.txt src/a.txt
row same rn arc.7z src/a.txt src/z.txt
row same rn arc.7z -x!src/a.txt src/a.txt src/z.txt
# the folders an update copies (-bb3: "=") or compresses again (-bb2: "R", ".")
row same d -bb2 arc.7z src/a.txt
row same d -bb3 arc.7z src/sub/c.txt
row same u -bb3 arc.7z one.txt
row same rn -bb3 arc.7z src/a.txt src/z.txt
row same rn arc.7z -x!src/a.txt src src2
# tar, updated through libarchive's writer: byte for byte 7zz's tar
row same u arc.tar one.txt
row same u -bb1 arc.tar src one.txt
row same d arc.tar src/a.txt
row same d arc.tar src/sub
row same rn arc.tar src/a.txt src/z.txt
row same a arc.tar one.txt
row same l arc.tar
row same l -slt arc.tar
row same l arc.zip
row same l -slt arc.zip
# a zip's wrong password: 7zz's "Wrong password" line for each file
row same t -pwrong enczc.zip
# no -p: a zip entry's -bb line comes before the password prompt (a 7z
# folder's after), and not again once the password is typed
row same t -bb3 enczc.zip
row "different by design: fz7 leaves no empty file for an entry it has no password for; 7zz leaves one (its lines are the same)" x -bb3 -oout enczc.zip
row same t -bb3 enc.7z
irow pw.txt same t -bb3 enczc.zip
row "different by design: fz7 leaves no empty file for an entry whose password check fails; 7zz leaves one" x -pwrong encaes.zip -oout
row same x -ppw encaes.zip -oout
row same l arc.tar.gz
row same l -slt arc.tar.gz
row same t arc.tar.gz
row same x arc.tar.gz -oout
# The -m switches of tar, zip, gzip and bzip2 as 7zz takes them for each
# (new.* are compared by their entries: fz7 writes its own bytes).
row same a -mmt2 -mmemuse=1g new.tar src
row same a -mcp=65001 -mtc=on -mta=off -mtp=1 new.tar src
row same a -mtm=off new.tar src
row same a -mfb=64 new.tar src
row same a -mcp=x new.tar src
row same a -mcp=1251 new.tar src
row same a -tgzip -mx9 -mmt=on new.gz one.txt
row same a -tgzip -mfb=64 -mpass=2 -mmc=16 -ma=1 new.gz one.txt
row same a -tgzip -mm=BZip2 -mtp=0 new.gz one.txt
row same a -tgzip -mtm=off new.gz one.txt
row same a -tgzip -mtc=on new.gz one.txt
row same a -tgzip -md=1m new.gz one.txt
row same a -tgzip -mfoo new.gz one.txt
row same a -tzip -md=1m new.zip src
row same a -tbzip2 -md=100k -mmt2 -mm=Deflate new.bz2 one.txt
row same a -tbzip2 -mpass=3 new.bz2 one.txt
row same a -tbzip2 -mtm=off new.bz2 one.txt
row same a -tzip -mmt2 -mx9 -mcu=on -mcl=on -mcp=65001 -mf=off -myx=9 new.zip src
row same a -tzip -ppw new.zip src/a.txt src/b.bin
row same a -tzip -ppw -mem=AES256 new.zip src/a.txt
row same a -tzip -ppw -mem=AES256 new.zip src/b.bin
row same a -tzip -ppw -mem=AES128 new.zip src/sub/c.txt
row same a -tzip -ppw new.zip src
row same a -tzip -mem=AES256 new.zip src
row same a -tzip -mtm=off new.zip src
row same a -tzip -mm=foo new.zip src
row same a -tzip -mhe=on new.zip src
row same a -tzip -mem=foo -ppw new.zip src
mrow same a -tzip -mm=Copy new.zip src
mrow same a -tzip -m0=Copy new.zip src
row same a -tzip -mfb=64 new.zip src
mrow same a -tzip -mm=Deflate64 new.zip src
mrow same a -tzip -ppw -mem=AES192 new.zip src
row same a -tzip -mcp=1251 new.zip src
row same a -tzip -mtc=on new.zip src
# fz7's zip writer lays entries out as 7zz does: a stored zip is 7zz's byte
# for byte, a file Deflate cannot shrink is stored, -mcl drops the UTF-8 flag
brow same a -tzip -mx0 new.zip src
mrow same a -tzip new.zip src
mrow same a -tzip -mx1 -mcl=on new.zip src
# non-ASCII names: the UTF-8 flag, or under -mcl Info-ZIP's Unicode Path field
brow same a -tzip -mx0 new.zip uni
brow same a -tzip -mx0 -mcl=on new.zip uni
mrow same a -tzip -ppw -mem=AES256 -mta=on new.zip src
mrow same a -tzip -ppw -mm=Deflate64 -mx9 new.zip src
mrow same a -tzip -mm=BZip2 -mx1 new.zip src
mrow same a -tzip -ppw -mem=AES128 -mm=LZMA -mx9 new.zip src
# PPMd var.I: 7zz's bytes (order 3 + level, the model shrunk to the
# largest file, cut off from -mx7); o= 2..16 and mem= 1m..256m are PPMd's
brow same a -tzip -mm=PPMd new.zip src
brow same a -tzip -mm=PPMd -mx9 new.zip src
for m in "-mm=PPMd -mo=4 -mmem=3m" "-mm=PPMd -mo=17" "-mm=PPMd -mo=" "-mm=PPMd -mmem=512k" "-mm=PPMd -mmem=257m" \
         "-mm=PPMd -mmem=24" "-mm=Deflate -mo=4" "-mm=LZMA -mmem=24m" "-mm=Copy -mo=x" "-mm=Copy -mmem=" "-mm=Copy -mo=" \
         -m0=PPMd:o=5:mem=2m "-ppw -mm=PPMd -mem=AES256" "-ppw -mm=PPMd"; do
    # shellcheck disable=SC2086
    mrow same a -tzip $m new.zip src
done
mrow same a -tzip -mm=xz new.zip src
mrow same a -tzip -ppw -mm=xz -mx1 new.zip src
mrow same a -tzip -ppw -mem=AES -mm=Store new.zip src
mrow same a -tzip -mm=LZMA -md=64k new.zip src
mrow same a -tzip -mm=BZip2 -md=100k -mx9 new.zip src
mrow same a -tzip -mm=xz -md=1m new.zip src
# -mm=NAME is -m0=NAME for 7z and xz, a ':' right after a coder's name
# alone is taken, and an xz file takes the method xz as LZMA2
for m in -mm=LZMA -mm=PPMd -mm=BCJ "-m0=PPMd -mm=LZMA" -mm=xz -m0=LZMA2: -m0=PPMd: -m0=LZMA2:x=3: "-m0=BCJ: -m1=LZMA"; do
    # shellcheck disable=SC2086
    mrow same a $m new.7z src
done
for m in -mm=xz -mm=LZMA2 -m0=xz:d=1m -m0=LZMA2: -mm=LZMA -mm=Copy; do
    row same a -txz $m new.xz one.txt
done
# a tar's kind: GNU (7zz's default) or POSIX (pax records for what ustar
# cannot hold: the fraction -mtp asks for, -mtc and -mta, long names)
for m in -mm=gnu -mm=POSIX -mm=pax "-mm=posix -mtp=0" "-mm=posix -mtp=3" "-mm=posix -mtc=on -mta=on" \
         "-mm=posix -mtm=off" "-mm=gnu -mtp=3" -mm=ustar -mm=foo; do
    # shellcheck disable=SC2086
    row same a -ttar $m new.tar src
done
# -bb3 on an update: 7zz lists a zip's copied entries ("= path", the old
# name under rn), not a tar's
for arc in arc.zip arc.tar enczc.zip; do
    row same u -bb3 $arc one.txt
    row same d -bb3 $arc src/a.txt
    row same rn -bb3 $arc src/a.txt src/z.txt
done
# a gzip of one file updated with nothing new (all excluded): kept, exit 0
row same u -x!*.txt arc.tar.gz one.txt
row same a -x!one.txt arc.tar.gz one.txt
# a password for a format without encryption: 7zz writes the file in
# clear and says nothing; fz7 refuses (exit 7) rather than leave a script
# that asked for encryption with a readable backup
for m in "a -ppw new.tar" "a -ppw new.tar.gz" "a -ppw new.xz" "a -ppw new.bz2" "u -ppw arc.tar"; do
    # shellcheck disable=SC2086
    row "different by design: fz7 refuses a password for a format that cannot be encrypted; 7zz ignores it and writes the data in clear" $m one.txt
done
# an existing file that is not of the type asked for: 7zz's "Open archive"
# and error block ([type] when -t or the name asks for one), before the
# scan; d of a missing gzip, bzip2 or xz file (only xz can be empty; a
# name without an extension gets the type's);
# types 7zz reads and does not write
for c in "u -tgzip arc.tar one.txt" "a -tgzip arc.tar one.txt" "a -txz arc.7z one.txt" "a -t7z arc.tar one.txt" \
         "a -t7z one.xz one.txt" "u one.txt one.txt" "d one.txt src/a.txt" "d -tgzip arc.tar src/a.txt" \
         "d -txz arc.7z src/a.txt" "rn -tgzip arc.tar a b" "a -tgzip junk.7z one.txt" "u -tzip junk.7z one.txt" \
         "d nx.gz one.txt" "d nx.xz one.txt" "d nx.bz2 one.txt" "d -txz nx one.txt" "a -tiso arc.7z one.txt" "u -tudf arc.tar one.txt" \
         "d -tiso arc.7z src/a.txt"; do
    # shellcheck disable=SC2086
    row same $c
done
# Split: volumes read as the one file they join to, by themselves when no
# format knows the bytes, or with -tsplit whatever they hold
for c in "l cut.bin.001" "l -slt cut.bin.001" "t cut.bin.001" "x -oout cut.bin.001" "e -oout cut.bin.001" \
         "l -tsplit vol.7z.001" "l -slt -tsplit vol.7z.001" "t -tsplit vol.7z.001" "x -tsplit -oout vol.7z.001" \
         "l -tsplit cut.bin.002" "l -tsplit one.txt" "t -tsplit cut.bin.002" "x -tsplit -oout one.txt"; do
    # shellcheck disable=SC2086
    row same $c
done
# -so with -bso: the log goes where -bso says (2: stderr, its "- name"
# lines under -bb too); a writing command refuses -bso1 beside the data;
# -bso, -bse, -bsp need their number; -t wins over -stx (which excludes
# a type from the guess only)
for c in "x -so -bso2 arc.7z" "e -so -bso2 -bb3 arc.7z" "x -so -bso0 arc.7z" "a -so -an -txz -bso1 one.txt" \
         "a -so -an -ttar -bso2 one.txt" "d -so -bso1 arc.7z src/a.txt" "l -bso arc.7z" "t -bse arc.7z" "x -bsp -oout arc.7z" \
         "l -t7z -stx7z arc.7z" "x -tzip -stxzip -oout arc.zip" "l -t* -stx7z arc.7z"; do
    # shellcheck disable=SC2086
    row same $c
done
# -mtp= in a zip: 1 puts the mtime in Info-ZIP's UT field, 2 leaves the
# DOS time alone, the others (and none) keep the NTFS field
for m in -mtp=0 -mtp=1 -mtp=2 -mtp=3 -mtp= "-mtp=1 -mta=on -mtc=on" "-mtp=1 -mtm=off" "-mtp=2 -mta=on"; do
    # shellcheck disable=SC2086
    brow same a -tzip -mx0 $m new.zip src
done
brow same a -tzip -mx0 -mtp=1 -mcl=on new.zip uni
for m in -mtp= -mtp=1 -mtp=2; do
    brow same a -ttar $m new.tar src
done
for m in -mtp= -mtp=1 -mtp=2 -mtp=3 -mtp=4; do
    row same a -tgzip $m new.gz src/a.txt
done
# a zip's method with its parameters after ':', each read as its -m switch
for m in -m0=Deflate:x=1 -m0=Deflate:x1 -mm=Deflate:fb=64 -m0=LZMA:d=64k:lc=4 -m0=Deflate:foo=1 -m0=Deflate:lc=4 \
         -m0=BZip2:d=100k -m0=Deflate:mt=2 -m0=Deflate:mt=off -m0=xz:x=9:mf=hc4 -m0=LZMA:x=0 -m0=Deflate: \
         -m0=Deflate:x=1: -m0=Deflate::x=1 -m0=Copy:x=9; do
    mrow same a -tzip $m new.zip src
done
# LZMA's parameters in a zip: LZMA takes them all (eos=off: no end marker
# nor its flag; a file stored instead keeps the flag under a=1 only), xz
# all but eos (lc + lp <= 4), Deflate fb, mc and a, BZip2 none of them,
# Copy ignores them. -mx0 with a method named: the method at its lowest.
for m in "-mm=LZMA -mlc=4 -mlp=1 -mpb=0" "-mm=LZMA -meos=off" "-mm=LZMA -mmf=hc5 -mfb=273 -mmc=10 -ma=0" \
         "-mm=xz -mlc=4 -mmf=bt2" "-mm=xz -mlc=4 -mlp=1" "-mm=xz -meos=on" "-mm=LZMA -mpass=2" "-mm=LZMA -mmf=foo" \
         "-mm=Deflate -mlc=4" "-mm=Deflate -mfb=100 -ma=0" "-mm=BZip2 -mfb=100" "-mm=BZip2 -mpass=2" "-mm=Copy -mlc=9 -meos=on" \
         "-mm=LZMA -mx1" "-mm=LZMA -mx1 -ma=1" "-mm=LZMA -mx0" "-mm=Deflate -mx0" "-mm=xz -mx0" "-mm=BZip2 -mx0"; do
    # shellcheck disable=SC2086
    mrow same a -tzip $m new.zip src
done
# -so -an without -t: 7zz's "type of archive is not specified"
row same a -so -an src/a.txt
# a stored link: no bytes in the scan's count, read from disk (7zz's zip)
row same a -snl new.zip lnk
row same a -snl new.7z lnk
row same h -snl lnk
# h's order: the current folder's names first, then each folder as first named
row same h -ba src/sub/c.txt one.txt src/a.txt pw.txt
row same h -scrcSHA256 src/sub/c.txt one.txt src/b.bin
# -m switches on x, t and l go to the opened format's handler: tar and zip
# take -mcp, zip -mem, 7z and xz -mcheck; gzip's and bzip2's coders refuse
# a coder's parameter after "Add new data" (its value read before)
row same l -mcp=866 arc.tar
row same t -mcp=1251 arc.zip
row same x -mcp=437 -oout arc.zip
row same t -mem=AES256 arc.zip
row same t -mfb=64 arc.tar
row same t -mfb=64 arc.tar.bz2
row same t -mcheck=1 one.xz
row same t -mmtf=on one.xz
row same a -mcheck=8 -txz new.xz one.txt
row same a -mcheck=1 new.7z one.txt
row same a -mmtf=3 new.7z one.txt
row same a -tgzip -mlc=3 new.gz one.txt
row same a -tgzip -mo=abc new.gz one.txt
row same a -tbzip2 -mfb=64 new.bz2 one.txt
row same a -tbzip2 -mcheck=4 new.bz2 one.txt
row same a -ttar -mmtf=on new.tar one.txt
row same a -tzip -md=abc new.zip one.txt
row same a -tzip "-mm=Deflate" -mfb= new.zip one.txt
# a name given again in one folder is hashed again, not one under a folder named
row same h one.txt one.txt
row same h src src/a.txt src
# -ai on a command of one archive: 7zz's command line error; -ax taken
row same a "-ai!*.txt" new.7z one.txt
row same d "-ai!*.7z" arc2.7z src/a.txt
row same d "-ax!*.7z" arc2.7z src/a.txt
# -mhcf (full header compression): on only
row same a -mhcf new.7z one.txt
row same a -mhcf=off new.7z one.txt
# rn: a wildcard in an old name is 7zz's command line error, in a new one a
# plain character
row same rn arc.7z "src/*.txt" x
row same rn arc.7z src/a.txt "x*"
# '[' and ']' stand for themselves in names, -i/-x rules and on disk
row same a new.7z brk "-xr!r[1].txt"
row same a new.7z "brk/*[1]*"
row same a new.7z brk "-ir!*[1]*"
row same x -oout arc.7z "-xr!*[a]*"
# x over the fixture's own src/: 7zz's overwrite prompt, its lines after
# an answer it takes or does not, and (Q)uit's Break
irow ans_yna.txt same x arc.7z
irow ans_nq.txt same x arc.zip
irow ans_yna.txt same x -aou arc.tar
# '*' in -o: each archive's name without its extension (v.7z.001: v,
# a.tgz: a.tar, no extension: name~)
row same x "-oout/*" arc.7z
row same x "-oout/*/x*" -an "-ai!arc*.t*" arc.7z
row same t "-oout/*" vol.7z.001
row same e "-o*" ru.gz
# An archive whose name asks for another type: opened, with 7zz's warnings
# (exit 0).
row same t xz.7z
row same l xz.7z
row same x xz.7z -oout
row same l -slt 7z.zip
row same t xz.7z 7z.zip arc.7z
# Archives from a pipe (-si): read once, forward. (irow's input is a file
# redirected, which both read as a stream.)
irow arc.tar.gz same x -si -tgzip -oout
irow arc.tar.gz same t -si -tgzip
irow arc.tar.gz same l -si -tgzip
irow arc.tar.gz same l -si -slt -tgzip
irow arc.tar.bz2 same x -si -tbzip2 -oout
irow arc.tar.bz2 same l -si -tbzip2
irow one.xz same x -si -txz -oout
irow one.xz same l -si -txz
irow arc.tar "different by design: fz7 copies a piped tar to a temporary file in \$TMPDIR and shows what l of the file shows (Physical Size, Headers Size, Characteristics); 7zz reads it as a stream and counts its links in Files" x -si -ttar -oout
irow arc.7z "fz7 extra: a 7z from a pipe is copied to a temporary file and read (7zz: Cannot open the file as archive, exit 2)" x -si -oout
irow one.xz "different by design: 7zz's Size line says 0 for an xz stream it tested from a pipe; fz7 gives the bytes decoded" t -si -txz
row same h one.txt
row "different by design: lists the formats and codecs fz7 itself has" i
row "different by design: fz7 b measures its own kernels" b -mmt1 -md18 1
row "fz7 extra: --version prints fz7's version block, exit 0 (7zz: Unknown switch, exit 7)" --version
# --- switches --------------------------------------------------------------------
row same x -- arc.7z -oout
row same x -ai!arc.7z -oout
row same x -an -ai!arc.7z -oout
row same t -an arc.7z
row same t '-air!arc*.7z' -an
row same l -an '-air!*.7z' '-ax!enc.7z' '-ax!henc.7z'
row same t -an '-air!nodir/*.7z'
row same t '-aiq!x' -an
row same x 'arc*.7z' -oout
row same x 'arc*.7z' -oout -aos -bb2
row same x 'nomatch*.7z' -oout
row same l 'arc*.7z'
row same l -ba '*.7z'
row same t src
row same l 'src/*' -axr!sub
row same t 'tail/*.7z'
row same l 'tail/*.7z'
row same l tail/b.7z
row same t 'two/*.7z'
row same x 'two/*.7z' -oout
row same x -ax!arc2.7z '*.7z' -oout
row same x arc.7z -oout -aoa
row same x anti.7z -oprev
row same x -bb1 anti.7z -oprev -y
for ao in -aoa -aos -aot -aou; do
    row same x -bb1 anti.7z -oprev $ao
done
row same e anti.7z -oprevflat -y
row same x -so anti.7z src/a.txt
row same t -bb1 anti.7z
row same l anti.7z
row same x arc.7z -oout -aos
# a skipped file is left out of Files and Size, but for a 7z's
for a in arc.7z arc.zip arc.tar one.xz; do
    row same x $a -ohave -aos
done
row same t -bb0 arc.7z
row same t -bb1 arc.7z
row same a -bb1 new.7z src
row same a -bb1 -tzip new.zip src
row same a -bb1 -ttar new.tar src
row same a -bb1 -tgzip new.gz one.txt
# a folder into a one-file format: 7zz's E_INVALIDARG after the plan
for t in gzip xz bzip2; do
    row same a -t$t new.$t src
done
row same t -bd arc.7z
row same t -bso0 arc.7z
# -bso0: the scan warnings' block goes to standard error instead
row same a -bso0 new.7z one.txt missing.txt
row same h -bso0 one.txt missing.txt
row same t -bse0 junk.7z
# a switch 7zz takes once, given twice: "Multiple instances for switch"
row same t -oa -ob arc.7z
row same t -r -r0 arc.7z
row same a -y -y new.7z one.txt
row same t -aoa -aos arc.7z
row same x -spf -spf2 arc.7z -oout
row same e -spf arc.7z -oout
row same e -spf2 arc.7z -oout
# ... and those it takes many times
row same t -x!a -x!b arc.7z
row same a -mx1 -mmt1 -mx3 new.7z one.txt
row same l -bso1 -bse1 arc.7z
# l: -bso moves the banner and the scan, never the listing
row same l -bso0 arc.7z
row same l -bso2 arc.7z
row same l -bso2 junk.7z
row same l -bso2 -bse1 arc.7z
row same l -bse1 junk.7z
row same t -bso2 -bse1 junk.7z
row same t -bsp0 arc.7z
row same l -bt arc.7z
row same x arc.7z -oout -ir!c.txt
row same x arc.7z -oout -i@list.txt
row same a new.7z src -mx1
row same a new.7z src -mmt1
row same x arc.7z -oout -y
row same x arc.7z src/a.txt
row same t -ppw enc.7z
row same t -pwrong henc.7z
row same t -pwrong henc1.7z
row same l -pwrong henc1.7z
row same d -pwrong henc.7z src/a.txt
row same d -pwrong henc1.7z one.txt
# -p alone: the empty password on x, e, t and l (never a prompt)
row same t -p henc.7z
row same l -p henc1.7z
row same x -p enc.7z -oout
row same e -p enc.7z -oout
row same t henc.7z
row same l henc.7z
row same x -r arc.7z '*.txt' -oout
row same a -saa new src
row same a -saa new.xz one.txt
row same a -txz -saa new one.txt
row same a -sae new one.txt
row same a new. one.txt
row same l -scsUTF-8 @list.txt arc.7z
row same l -sccUTF-8 arc.7z
row same t -scrc arc.7z
row same x -scrc arc.7z -oout
row same e -scrc arc.7z -oout
row same t -scrcsha256 arc.7z
row same x -scrcsha256 arc.7z -oout src/sub
row same e '-scrc*' arc.7z -oout
row same t -scrcfoo arc.7z
row same a -sdel new.7z one.txt
# -sdel removes what went in even after a scan warning; -bb1 lists it
row same a -bb1 -sdel new.7z one.txt
row same a -sdel new.7z src missing.txt
row same a -sdel arc.7z src missing.txt
row "different by design: the same files go; -bb1 names them in fz7's sorted scan order, 7zz in the order the directory was read" a -bb1 -sdel new.7z src
# Windows's switches as 7zz on Linux takes them: -seml does nothing (no
# mail program; refused beside -so), -sns and -sni make a/u/d/rn fail with
# E_NOTIMPL as they start writing, x/t/l take them and go on
row same a -seml new.7z one.txt
row same a -semlsubject new.7z one.txt
row same a -so -an -txz -seml one.txt
for c in "x -oout -sns arc.7z" "t -sni arc.7z" "l -sns -sni arc.7z" "u -sns arc.7z one.txt" "d -sni arc.7z src/a.txt" \
         "a -sns new.zip one.txt" "a -sns- new.7z one.txt" "a -snsa new.7z one.txt" "a -so -an -txz -sni one.txt"; do
    # shellcheck disable=SC2086
    row same $c
done
# More of Windows's that 7zz on Linux takes and ignores (-snc, -snr, -snt,
# -snz, -spm-), the '-' forms of -snl/-snh/-spe, -snld's and -slp's
# numbers, and 7zz's words for a postfix a switch does not take
for c in "a -snc -snr -snt new.7z src" "x -oout -snc -snr arc.7z" "x -oout -snz1 arc.7z" "a -snzx new.7z one.txt" \
         "a -snt- -spm- new.7z one.txt" "a -snl- -snh- new.7z src" "x -oout -spe- arc.7z" "x -oout -snld20 arc.7z" \
         "a -slp2 new.7z one.txt" "t -snz3 arc.7z" "x -oout -snldx arc.7z" "a -snldx new.7z one.txt" \
         "t -snld4294967296 arc.7z" "t -slpx arc.7z" "t -slt1 arc.7z" "t -snr- arc.7z" "t -y1 arc.7z" \
         "t -snl1 arc.7z" "t -spex arc.7z" "t -sntx arc.7z" "t -snr -snr arc.7z"; do
    # shellcheck disable=SC2086
    row same $c
done
row same a -sfx new.exe one.txt
row same a -sfxmod.sfx new.exe one.txt
row same a -sfxmod.sfx new one.txt
row same u -sfxmod.sfx arc.7z one.txt
row same a -txz -sfxmod.sfx new.xz one.txt
row same a -sfxmod.sfx -v1k new.exe src
row same a -sfxmod.sfx -v1k -mx0 new.exe src
row same a -sfx -v1k new.exe src
row same a -sfxmod.sfx -v1k arc.7z one.txt
row same a plain.exe one.txt
row same a -sinamed.txt new.7z
row same a -si new.7z
row same a -txz -si new.xz
# -si from a redirected file: its size is known (7zz's Add line, dictionary)
irow one.txt same a -si new.7z
irow one.txt same a -txz -si new.xz
irow one.txt same a -tgzip -si new.gz
irow one.txt same a -si -tzip new.zip
irow one.txt same a -sinamed.txt -tzip new.zip
irow one.txt same a -si -tzip -mm=LZMA new.zip
irow one.txt same a -si -ttar new.tar
# u -si: u's rules for the one item (7zz keeps an entry that is newer)
irow one.txt same u -sinamed.txt arc.7z
irow one.txt same u -sisrc/a.txt arc.7z
row same a -slp new.7z one.txt
row same l -slt arc.7z
row same a -snh new.7z src
row same a -snl new.7z src
row same a -sni new.7z one.txt
row same a -sns new.7z one.txt
row same x -so arc.7z src/a.txt
row same a -spd new.7z one.txt
row same a -spd new.7z "*.txt"
row same a new.7z "*.txt"
row same x -spe arc.7z -oout
row same x -spe arc.7z -osrc
row same a -spf new.7z src/sub
row same a -spf2 new.7z src/sub
row same l -ssc- arc.7z SRC/A.TXT
row same a -sse new.7z one.txt missing.txt
row same a -ssp new.7z one.txt
row same a -ssw new.7z one.txt
row same a -stl new.7z src
row same a -stm1 new.7z one.txt
row same a -stmzz new.7z one.txt
row same t -stxzip arc.7z
row same t -stx7z arc.7z
row same l -stx7z arc.7z
row same t -stxfoo arc.7z
row same t -t7z arc.7z
row same t -txz one.xz
row same a -ttar new.tar one.txt
row same u -up0q0r2x2y2z1w2 arc.7z one.txt
row same a -uq0 old.7z src
row same u -uq0 old.7z src
row same u -uq3 old.7z src
row same u old.7z src -u- '-up0q0!new.7z'
row same d old.7z src/a.txt -u- '-u!new.7z'
row same u -uq2 arc.7z one.txt
row same a junk.7z one.txt
row same u junk.7z one.txt
row same a -v1k new.7z src
row same a -v1k -v2k new.7z src
row same a -vx new.7z src
row same u -v1k arc.7z one.txt
row same l vol.7z.001
row same l -slt vol.7z.001
row same t vol.7z.001
row same x vol.7z.001 -oout
# a wildcard over the volumes: the set once, from its first
row same t 'vol.7z.*'
row same l 'vol.7z.*'
row same x 'vol.7z.*' -oout
row same l vol.xz.001
row same t vol.xz.001
row same x vol.xz.001 -oout
row same a -txz -v1k new.xz one.txt
row same a -wtmp_missing_dir new.7z one.txt
row same a -wone.txt new.7z src
row same a -wone.txt/sub new.7z src
row same a -wtmp_missing_dir arc.7z one.txt
row same u -wtmp_missing_dir arc.7z one.txt
row same a -txz -wtmp_missing_dir new.xz one.txt
row same x arc.7z -oout -x!src/sub
row same x arc.7z -oout '-xw!src/sub'
row same x arc.7z -oout '-xm!src/sub'
row same x arc.7z -oout '-xm!src/sub/'
row same l arc.7z '-im!src/sub/'
row same l arc.7z '-xw-!src/s*'
row same l arc.7z '-xrw!*.txt'
row same x arc.7z -oout -xr!c.txt
# --- -m parameters for 7z and xz ------------------------------------------------------
for m in -mx0 -mx9 -m0=LZMA -m0=LZMA2:d=1m -m0=Copy -md=1m -mfb=64 -mmc=10 -mlc=4 -mlp=1 -mpb=1 \
         -mmf=bt3 -mmf=hc4 -ma=0 -ms=off -ms=e -ms=4f -mqs=on -mf=off -mf=BCJ -mf=BCJ2 -mf=Delta:4 \
         -mhc=off -mhe=on -mtm=off -mtc=on -mta=on -mtr=off -mmt=off -mmtf=off -myx=9 -mmemuse=p50; do
    case $m in
    -mhe=on) row same a -ppw $m new.7z src ;;
    *) row same a $m new.7z src ;;
    esac
done
# LZMA's values as 7zz keeps them: fb within 5..273 (2^31 and up, negative
# to 7zz: by the level), mc any 32-bit number (0: by the level), a any
# (0 fast, else normal), d below 4 KiB as 4 KiB and up to 4 GiB (fitted to
# the input; 4097m refused)
for m in -mfb=1000 -m0=LZMA2:fb=1000 -m0=LZMA:fb=1 -m0=LZMA:fb=4294967295 -mmc=4294967295 \
         -m0=LZMA2:mc=4294967295 -m0=LZMA:a=2 -md=1k "-m0=LZMA -md=0" -md=1537m -md=3840m -md=4g \
         -md=4294967296b -m0=LZMA:d=4g -md=4097m; do
    mrow same a $m new.7z src
done
row same a -mmc=4294967296 new.7z src
# LZMA2's block size (c=, -mc=; tests/scripts/lzma2_blocks.sh cuts real
# blocks): taken by LZMA2 alone, a bad size refused before "Add new data"
for m in -m0=LZMA2:c=1m -mc=1m "-mx0 -mc=1m" -mc=abc -m0=LZMA2:c=x "-m0=LZMA -mc=1m" -m0=LZMA:c=1m \
         "-m0=PPMd -mc=1m" "-m0=Copy -mc=1m" "-m0=BZip2 -mc=1m" "-m0=Deflate -mc=1m"; do
    mrow same a $m new.7z src
done
mrow same a -txz -mc=1m new.xz one.txt
# b=: every coder but Copy takes it and writes the same bytes (PPMd's stream
# is 7zz's byte for byte with it); -mb is no switch
for m in -m0=LZMA2:b=1m -m0=LZMA:b=0 -m0=Deflate:b=64k -m0=Copy:b=1m -mb=1m -m0=LZMA2:b=x -m0=LZMA2:b; do
    mrow same a $m new.7z src
done
brow same a -mhc=off -m0=PPMd:b=1m new.7z src
# 7zz's numbered parameters (-m0d=1m: d=1m of coder 0; add_chain.sh has them
# on a larger input): taken as 7zz takes them, refused as it refuses them
for m in -m0d=1m -m2d=1m "-m0=BCJ -m1d=1m" "-m0=LZMA2 -m0=LZMA -m0d=1m" "-mx0 -m0fb=64" -m0zz=1 -m0d=abc \
         "-m0=Copy -m0d=1m" -m0x=1 "-m0=LZMA2 -m12d=1m"; do
    mrow same a $m new.7z src
done
brow same a -mhc=off -m0=PPMd -m0o=4 new.7z src
# a coder's switch without a number goes to coder 0: a filter there refuses
# it, another method's coder too, and an unnamed coder 0 before named ones
# is LZMA2 (-m1=BCJ -md=1m: LZMA2 then BCJ)
for m in "-md=1m -m0=BCJ -m1=LZMA2" "-mfb=64 -m0=BCJ -m1=LZMA2" "-mlc=1 -m0=Delta:4 -m1=LZMA" \
         "-mo=4 -m0=BCJ -m1=PPMd" "-mx9 -m0=BCJ -m1=LZMA2" "-m1=BCJ -md=1m" "-md=1m -m1=BCJ -m2=LZMA2" \
         "-mx0 -m1=BCJ -mfb=64" "-m1=PPMd -mo=4" "-m0=PPMd -m1=LZMA2 -md=1m" "-m0=LZMA2 -m1=PPMd -mo=4" \
         "-m0=BCJ -m1=LZMA2:d=1m -mfb=64" "-mmt=2 -m0=BCJ -m1=LZMA2"; do
    mrow same a $m new.7z src
done
# PPMd: 7zz's stream byte for byte; with the header uncompressed (fz7's LZMA
# packs 7zz's header differently) the whole archive.
for m in -m0=PPMd "-m0=PPMd:o=2:mem=16" "-m0=PPMd:x=9" "-mx1 -m0=PPMd" "-m0=PPMd -mo=32 -mmem=1m"; do
    mrow same a $m new.7z src
    brow same a -mhc=off $m new.7z src
done
brow same a -m0=PPMd -mhc=off -ms=off new.7z src
mrow same a -m0=PPMd -ppw -mhe=on new.7z src
# Refused by the coder (after "Add new data"), or by the parser (before).
for m in -mo=5 -mmem=20 "-m0=PPMd -md=1m" "-m0=PPMd:o=1" "-m0=PPMd:o=33" "-m0=PPMd:mem=15" "-m0=PPMd:fb=64" \
         -mlc=9 -md=5g -m0=Foo -mxyz=3; do
    row same a $m new.7z src
done
# A bare size is always 2^N (7-Zip's documentation): -md=40 is 1 TiB,
# refused by the coder; a value past 64 bits is refused as it is read.
# LZMA2's lc + lp above 4 and a filter fz7 has no coder for: the coder's
# refusal, for 7z and xz alike (but xz's chain is read before the start).
for m in -md=33 -md=40 -md=1048576 -md=5000g -md=17179869184g -mlp=4 "-mlc=4 -mlp=1" -mf=FOO \
         -mf=Delta:300 -m0=Delta:0; do
    row same a $m new.7z src
    row same a -txz $m new.xz one.txt
done
row same a -txz -m0=FOO new.xz one.txt
# A name's letters, then its value with or without '=' (-md24, -mqs+), as
# 7zz reads them; a bare number in a method's parameters is LZMA's
# dictionary (other coders refuse it); -mtp 0 and 3 (7z keeps 100 ns),
# -mmt=pN (a share of the processors), a zero -mmemuse (none given);
# -ms with + and t, a bad -ms refused before "Add new data".
for m in -md24 -mfb64 -myx9 -mcrc32 -mqs+ -mlc4 -mmc10 -meos+ -mtp=0 -mtp=3 -mtp=1 -mmt=p50 \
         -mmemuse=0 -mmemuse=p0 -m0=LZMA:24 -m0=LZMA2:20:fb=64 -m0=BZip2:9 -m0=PPMd:6 -ms+ -ms=1t -ms=e1t \
         -ms=bad -ms=0 -ms=e2; do
    mrow same a $m new.7z src
done
# Values 7zz refuses that fz7 took and ignored: -mqs/-myx/-mx/-mmemuse out
# of their kind, a Delta distance past 32 bits (it wrapped), parameters of
# a filter, empty parameters, PPMd memory not whole words, charsets.
for m in -mqs=x -myx=x -mx=4294967296 -mmemuse -mmemuse1g -m0=Delta:4294967297 -m0=BCJ:s=0 \
         -m0=ARM64:s0 -m0=BCJ:d=1m -m0=Delta:4:x -m0=LZMA:: -m0=LZMA:d=1m: -m0=PPMd:mem=1000001b \
         -scsX -sccX -scsWIN -scs1251 -scsUTF-16LE -sccUTF-16LE; do
    mrow same a $m new.7z src
done
# Where the refusal comes: after "Creating archive:" for a new archive (u
# too), as the archive is opened for one that exists.
for m in -mx=-1 -mmt=abc -mhe=x -mxyz=3 -ms=bad; do
    row same a $m arc.7z one.txt
    row same u $m new.7z one.txt
done
row same a -mlp=4 arc.7z src/a.txt
# -r with a folder in the name: the folders match from the top, the last
# part at any depth below them (src/*.txt takes src/sub/c.txt, sub/*.txt
# takes nothing); -r0 recurses only names with a wildcard.
row same l -r arc.7z 'src/*.txt'
row same l -r arc.7z 'sub/*.txt'
row same l -r0 arc.7z c.txt
row same l -r0 arc.7z '*.txt'
row same l arc.7z '-ir0!c.txt'
row same x -r arc.7z -oout 'src/*.txt'
row same d -r arc.7z 'sub/*.txt'
row same d -r arc.7z 'src/*.txt'
row same a -r0 new.7z c.txt
row same a -r new.7z 'src/*.txt'
row same h -r0 c.txt
# x, e, t, l, d, rn: 7zz's handler reads the -m switches as it opens the
# archive and refuses those it refuses before writing (not the coders' own).
for m in -mfoo -mmt=abc -ms=bad -mtm=x -m0=FOO -mlc=9; do
    row same t $m arc.7z
    row same l $m arc.7z
done
row same x -mfoo arc.7z -oout
row same t -mhe one.xz
row same d -mx=z arc.7z src/a.txt
# rn makes no archive; -bb takes any number (above 3 as 3); h reads a
# list file as its first name too.
row same rn nothere.7z a b
row same x -bb4 arc.7z -oout
row same h @list.txt
# -t*: any type (by the name to write, by the signature to read)
row same l '-t*' arc.7z
row same a '-t*' new.7z one.txt
# xz keeps no names, times or attributes and has no headers or solid
# blocks of files: 7zz refuses the 7z archive's switches for them.
for m in -mhc=off -mhe -mtm -mtc=off -mta -mtr=on -mqs -mtp=0 -ms=e -ms=4f -ms=1g -ms=off; do
    row same a -txz $m new.xz one.txt
done
row same a -m0=BZip2 new.7z src
for m in -mlc=9 -mxyz=3 -m0=Foo -mo=3; do
    row same u $m arc.7z one.txt
done
mrow same u -m0=PPMd arc.7z one.txt
for m in -m0=BZip2:d=5 -m0=BZip2:d=300k -m0=BZip2:d=20; do
    row same a $m new.7z src
done
for m in -m0=Deflate -m0=Deflate64 "-mx1 -m0=Deflate" "-mx9 -m0=Deflate64" "-m0=Deflate -ppw -mhe=on"; do
    mrow same a $m new.7z src
done
row same a -m0=Deflate:d=20 new.7z src
# Deflate's fb= (fast bytes), mc= (match cycles) and pass= (passes): any 32-bit
# number taken (fb kept within 3..258); -mfb, -mmc, -mpass too; a value that
# is no number refused before "Add new data", an empty one after it; pass=
# refused for the other methods
for m in -m0=Deflate:fb=64 -m0=Deflate:fb=2 -m0=Deflate:fb=1000 -m0=Deflate64:fb=257 -m0=Deflate:mc=1 \
         -m0=Deflate:pass=2 -m0=Deflate64:pass=10 -m0=Deflate:fb=128:mc=500:pass=3 "-m0=Deflate -mfb=64" \
         "-mmc=8 -m0=Deflate" "-m0=Deflate64 -mpass=2" "-mx9 -m0=Deflate:pass=1" "-m0=Deflate -mmc=4294967295"; do
    mrow same a $m new.7z src
done
for m in -m0=Deflate:fb=4294967296 -m0=Deflate:mc=x -m0=Deflate:pass=2k -m0=Deflate:fb= "-m0=Deflate -mpass=" \
         "-m0=Deflate -mfb=abc" -mpass=2 -m0=LZMA2:pass=2 "-m0=PPMd -mpass=2"; do
    row same a $m new.7z src
done
# A coder's parameter in 7zz's two steps: an unknown name or a value of the
# wrong kind refused before "Add new data" (an empty number after it), a name
# the coder does not take after it. Copy takes none; BZip2 d, x, mt and pass
# (accepted, fz7's libbz2 has no passes: see the man page); Deflate x (the
# level) and a (0 fast, else normal); d24 is d=24, eos a switch.
for m in "-m0=Copy -mfb=64" "-m0=BZip2 -mmc=5" "-m0=Copy -md=1m" "-m0=BZip2 -mlc=3" "-m0=BZip2 -ma=1" -m0=Copy:fb=64 \
         -m0=BZip2:lc=3 -m0=Copy:mt=2 -m0=BZip2:pass=x -m0=LZMA2:foo=1 -m0=LZMA2:fb=abc -m0=LZMA2:fb=4294967296 \
         -m0=BZip2:d= -m0=LZMA2:mtf -m0=LZMA2:mt -m0=LZMA2:eos=on -mlc=x "-m0=LZMA2 -meos"; do
    row same a $m new.7z src
done
for m in -m0=BZip2:pass=2 "-m0=BZip2 -mpass=2" -m0=BZip2:pass=10:d=1m -m0=BZip2:x=1 "-m0=BZip2 -md=1k" \
         -m0=Deflate:x=9 -m0=Deflate:a=1 -m0=Deflate:x=1:a=1 -m0=Deflate64:a=0 "-m0=Deflate -ma=0" -m0=Deflate:x=10 \
         -m0=LZMA2:x=3 -m0=LZMA2:d24 -m0=LZMA:eos "-m0=LZMA -meos=off" -m0=PPMd:x=10; do
    mrow same a $m new.7z src
done
# -mx0 with an LZMA parameter and no method named: LZMA2 at level 0, not Copy
for m in "-mx0 -mfb=64" "-mx0 -md=1m" "-mx0 -mlc=3" "-mx0 -ma=1" "-mfb=64 -mx0 -mmf=bt4" "-mx0 -mfb=64 -m0=Deflate"; do
    mrow same a $m new.7z src
done
for m in "-mx0 -mpass=2" "-mx0 -mfb=64 -m0=Copy" "-mx0 -mo=4"; do
    row same a $m new.7z src
done
for m in -m0=ARM64 -m0=BCJ -m0=Delta:4 "-m0=ARM64 -m1=LZMA2" "-mx0 -mf=BCJ" "-mx0 -mf=ARM64" "-m0=Copy -mf=BCJ"; do
    mrow same a $m new.7z src
done
mrow same a -m0=BCJ -mx9 new.7z src
mrow same a -ppw -mhe=on -m0=Delta:4 new.7z src
row same a -txz -m0=BCJ new.xz one.txt
for m in "-m0=ARM64 -m1=LZMA2" "-m0=BCJ -m1=LZMA2" "-m0=Delta:4 -m1=LZMA2" "-m0=LZMA2 -m1=BCJ" -m0=LZMA2; do
    row same a -txz $m new.xz one.txt
done
# an xz block's branch filter (the entry's Method names it)
for f in ARM64 ARM ARMT PPC SPARC IA64 BCJ Delta:4; do
    row same a -txz -mf=$f new.xz src/b.bin
done
# RISC-V (7z method 0B, xz filter 0B), written as 7zz writes it
row same a -m0=RISCV -m1=LZMA2 new.7z src
row same a -mf=RISCV new.7z src
row same a -txz -mf=RISCV new.xz one.txt
mrow same a -m0=RISCV -m1=LZMA2 new.7z src
brow same a -mhc=off -m0=RISCV -m1=Copy new.7z src
mrow same a -m0=BCJ2 new.7z src
srow same a -m0=BCJ2 new.7z src
brow same a -mhc=off -m0=BCJ2 new.7z src
mrow same a -ppw -m0=BCJ2 new.7z src
mrow same a -ppw -mhe=on -m0=BCJ2 new.7z src
# a filter named after Copy is listed after it (Copy BCJ), as 7zz lists it
for m in "-m0=Copy -m1=BCJ" "-m0=Copy -m1=Delta:4" "-m0=Copy -m1=ARM64" "-m0=BCJ -m1=Copy"; do
    mrow same a $m new.7z src
done
mrow same a -ppw -m0=Copy -m1=BCJ new.7z src
# a filter named after the method runs over the method's output (LZMA2 BCJ),
# one named before it over its input (BCJ LZMA2), whatever the switches' order
for m in "-m0=LZMA2 -m1=BCJ" "-m1=BCJ -m0=LZMA2" "-m0=BCJ -m1=LZMA2" "-m0=LZMA -m1=ARM64" "-m0=LZMA2 -m1=Delta:4" \
         "-m0=PPMd -m1=BCJ" "-ppw -m0=LZMA2 -m1=BCJ" "-m0=LZMA2 -m1=BCJ2" "-ppw -m0=LZMA2 -m1=BCJ2"; do
    mrow same a $m new.7z src
done
# BCJ2 named in front of a method: the method takes BCJ2's main stream, its
# call, jump and rc streams are stored raw (BCJ2 LZMA2, not BCJ2 LZMA2 LZMA
# LZMA), Copy and BZip2 too; -mf=BCJ2 keeps LZMA on call and jump
for m in "-m0=BCJ2 -m1=LZMA2" "-m1=LZMA2 -m0=BCJ2" "-ppw -m0=BCJ2 -m1=LZMA2" "-ppw -mhe=on -m0=BCJ2 -m1=LZMA" \
         "-m0=BCJ2 -m1=Copy" "-m0=BCJ2 -m1=BZip2" "-m0=BCJ2 -m1=Deflate" "-m0=BCJ2 -m1=PPMd" "-m0=LZMA2 -mf=BCJ2"; do
    mrow same a $m new.7z src
done
srow same a -m0=BCJ2 -m1=LZMA2 new.7z src
# Copy alone is one folder per file, Copy with a filter one solid folder, as
# 7zz stores them (the archives byte for byte with the header plain)
for m in "-m0=BCJ -m1=Copy" "-m0=Copy -m1=BCJ" "-m0=BCJ2 -m1=Copy" "-m0=Copy -m1=Delta:4" "-mx0 -mf=BCJ" \
         "-m0=Copy -mf=ARM64" "-m0=Copy -mf=off"; do
    brow same a -mhc=off $m new.7z src
done
# -mf=BCJ2 with Copy or BZip2: BCJ2 (call and jump through LZMA), not BCJ
for m in "-m0=Copy -mf=BCJ2" "-mx0 -mf=BCJ2" "-m0=BZip2 -mf=BCJ2" "-ppw -m0=Copy -mf=BCJ2"; do
    mrow same a $m new.7z src
done
# -mf=off turns off the automatic filter, not one the chain names
for m in "-m0=BCJ -m1=LZMA2 -mf=off" "-m0=LZMA2 -m1=BCJ -mf=off" "-m0=BCJ2 -m1=LZMA2 -mf=off" "-m0=LZMA2 -mf=off"; do
    mrow same a $m new.7z src
done
# Longer chains, as 7zz builds them: -m0 first in the entry's Method, each
# coder's output the next one's input; two methods or filters; a gap
# filled with LZMA2 at the level's settings (none before the first -mN);
# -mf's filter in front of the chain (-mf=BCJ2 with its LZMA coders for
# call and jump); a BCJ2 inside the chain with its other streams raw; the
# switches without a number for -m0 alone.
for m in "-m0=LZMA2 -m1=BCJ -m2=Delta:4" "-m0=Delta:4 -m1=BCJ -m2=LZMA2" "-m0=LZMA2 -m1=LZMA" "-m0=BCJ -m1=BCJ2" \
         "-m0=BCJ -m1=LZMA2 -mf=BCJ" "-m0=LZMA2 -m1=BCJ -mf=ARM64" "-m0=LZMA2 -m2=BCJ" "-m0=BCJ -m2=LZMA2" \
         "-m1=BCJ -m3=LZMA" "-m0=BCJ2 -m1=BCJ -m2=LZMA2" "-m0=Delta:4 -m1=BCJ2 -m2=LZMA2" "-m0=BCJ2 -m1=BCJ2" \
         "-m0=LZMA2 -m1=BCJ2 -m2=LZMA" "-m0=BCJ -m1=LZMA2 -mf=BCJ2" "-m0=BCJ2 -m1=LZMA2 -mf=BCJ" \
         "-m0=BCJ2 -m1=LZMA2 -mf=BCJ2" "-md=1m -m0=LZMA2 -m2=BCJ" "-m0=PPMd -m1=LZMA2" "-m0=LZMA2 -m1=Deflate" \
         "-m0=Copy -m1=LZMA2" "-mx0 -m0=LZMA2 -m2=BCJ" "-mmt2 -m0=LZMA2 -m1=LZMA2" "-ms=off -m0=BCJ -m1=LZMA2 -m2=LZMA" \
         "-ppw -m0=LZMA2 -m1=BCJ -m2=Delta:4" "-ppw -mhe=on -m0=BCJ -m1=BCJ2" "-ppw -m0=BCJ -m1=LZMA2 -mf=BCJ2"; do
    mrow same a $m new.7z src
done
# 7zz's limit: 16 streams out of a folder's coders (BCJ2 four, 7zAES one)
for m in "-m0=BCJ2 -m1=BCJ2 -m2=BCJ2 -m3=BCJ2" "-m0=BCJ2 -m1=BCJ2 -m2=BCJ2 -m3=BCJ2 -m4=BCJ2" \
         "-ppw -m0=BCJ2 -m1=BCJ2 -m2=BCJ2" "-mf=BCJ -m0=BCJ2 -m1=BCJ2 -m2=BCJ2 -m3=BCJ2"; do
    row same a $m new.7z src
done
for m in -mx1 -mx9 -mmt2 -md=1m -mfb=32; do
    row same a -txz $m new.xz one.txt
done
# -mcrc: the check's size in bytes (xz: 0 none, 4 CRC32 = the default, 8
# CRC64, 32 SHA-256; another number refused once the stream starts); a 7z
# archive ignores the number.
for m in -mcrc -mcrc= -mcrc=0 -mcrc=4 -mcrc=08 -mcrc=32 -mcrc=64 -mcrc=crc64 -mcrc=+4; do
    row same a -txz $m new.xz one.txt
done
# 7z archives byte for byte: a lone entry's header stays plain, two or more
# get an LZMA-encoded header (-mhc=off: always plain).
for a in src/sub/empty.txt one.txt src/empty_dir "one.txt src/sub/empty.txt"; do
    brow same a new.7z $a
done
# (fz7's LZMA encoder codes this header otherwise, in as many bytes)
srow same a new.7z src/empty_dir src/sub/empty.txt
brow same a -mx0 new.7z one.txt
brow same a -mhc=off new.7z src
brow same d arc.7z src
brow same a -txz new.xz src/sub/empty.txt
brow same a -txz -mcrc=0 new.xz src/sub/empty.txt
row same a -mcrc=8 new.7z one.txt
row same a -mcrc=crc64 new.7z one.txt
row same a -mcheck=crc64 new.7z one.txt
row same a -txz -mcheck=sha256 new.xz one.txt
row same a -txz -mf=x86 new.xz one.txt
row same a -mf=x86 new.7z one.txt
row same a -m0=x86 -m1=LZMA2 new.7z one.txt

echo "compat_switches: $rows rows, $pass same, $fail failed"
if [ -n "$TABLE" ]; then
    {
        echo "# fz7 and 7zz 26.02, switch by switch"
        echo
        echo "Made by \`tests/scripts/compat_switches.sh --table docs/compat.md\`: each case runs"
        echo "through 7zz and fz7 in two copies of one folder and compares the exit code, the"
        echo "files written (archives by their entries) and the output lines (banner, archive"
        echo "sizes and timings normalised). \"same\" rows are checked by CTest."
        echo
        echo "| case | result |"
        echo "|---|---|"
        printf '%s\n' "${table_rows[@]}"
    } >"$TABLE"
fi
t_passed
