#!/usr/bin/env bash
# switches.sh - 7-Zip switches a backup script uses, each checked for its
# exact exit code, the files written and the fixed texts: -spf/-spf2 (full
# paths, not a password file), --password-file, -sse, -bb1 on a, -bt,
# the timestamp switches, -ssp, -stm, -spd, -si into zip and tar, one password line
# from a pipe, the messages scripts grep, and a coder's mt=.
set -u
. "$(dirname "$0")/lib.sh"
t_init

paths() { "$FZ7" l -slt "$1" | sed -n 's/^Path = //p' | tail -n +2 | tr '\n' ' '; }
# Names sorted: where the scratch folder lives decides its place in the
# archive's name order.
sorted_paths() { "$FZ7" l -slt "$1" | sed -n 's/^Path = //p' | tail -n +2 | LC_ALL=C sort | tr '\n' ' '; }

mkdir -p t/sub && printf 'hi\n' >t/sub/f

# --- -spf / -spf2: names as given -------------------------------------------
"$FZ7" a -spf spf.7z "$S/t/sub/f" ./t/sub >out.txt 2>err.txt
same "a -spf exit" "$?" 0
same "a -spf names (7zz order)" "$(paths spf.7z)" "./t/sub $S/t/sub/f ./t/sub/f "
"$FZ7" a -spf2 spf2.7z "$S/t/sub/f" ./t/sub >out.txt 2>err.txt
same "a -spf2 exit" "$?" 0
same "a -spf2 names" "$(sorted_paths spf2.7z)" "$(printf '%s\n' sub sub/f "${S#/}/t/sub/f" | LC_ALL=C sort | tr '\n' ' ')"
"$FZ7" a plain.7z "$S/t/sub/f" >out.txt 2>err.txt
same "a without -spf: last part" "$(paths plain.7z)" "f "
"$FZ7" a -spfx bad.7z t >out.txt 2>err.txt
same "-spfx exit" "$?" 7
same "-spfx message" "$(cat err.txt)" "$(printf '\n\nCommand Line Error:\nUnsupported -spf:\nx')"
[ ! -e bad.7z ] && ok || bad "-spfx wrote an archive"
# x: below -o without -spf; at the absolute path with it (as 7zz).
mkdir -p abs && printf 'abs\n' >abs/g
"$FZ7" a -spf abs.7z "$S/abs/g" >/dev/null 2>&1
rm -rf abs
"$FZ7" x -oout1 abs.7z >out.txt 2>err.txt
same "x of /name exit" "$?" 0
[ -f "out1/${S#/}/abs/g" ] && [ ! -e abs ] && ok || bad "x without -spf left -o"
"$FZ7" x -spf -oout2 abs.7z >out.txt 2>err.txt
same "x -spf exit" "$?" 0
same "x -spf: written at the absolute path" "$(cat abs/g 2>&1)" "abs"
echo n | "$FZ7" x -spf -oout2 abs.7z >out.txt 2>err.txt
same "x -spf: the overwrite prompt shows the absolute path" "$(grep '^  Path:' out.txt | tr '\n' '|')" "  Path:     $S/abs/g|  Path:     $S/abs/g|"
same "x -spf: nothing below -o" "$(ls -A out2 2>/dev/null | wc -l)" 0
# -spf2: below -o with the full path (fz7 wrote it at the absolute path);
# e with -spf or -spf2 keeps the paths as x does, as 7zz.
rm -rf abs
"$FZ7" x -spf2 -oout3 abs.7z >out.txt 2>err.txt
same "x -spf2 exit, below -o" "$? $(cat "out3/${S#/}/abs/g" 2>&1) $(ls -A abs 2>/dev/null | wc -l)" "0 abs 0"
"$FZ7" e -spf2 -oout4 abs.7z >out.txt 2>err.txt
same "e -spf2 exit, below -o with its path" "$? $(cat "out4/${S#/}/abs/g" 2>&1)" "0 abs"
"$FZ7" e -spf -oout5 abs.7z >out.txt 2>err.txt
same "e -spf exit, at the absolute path" "$? $(cat abs/g 2>&1) $(ls -A out5 2>/dev/null | wc -l)" "0 abs 0"
# x -spf over a file that is there: asked about, and -aos, -aou, -aot, -y
# as below -o (fz7 took the absolute name for missing and overwrote it).
printf 'mine\n' >abs/g
"$FZ7" x -spf abs.7z >out.txt 2>err.txt </dev/null
same "x -spf onto a file, no answer: exit, file kept" "$? $(cat abs/g)" "255 mine"
grep -q "Would you like to replace the existing file" out.txt && ok || bad "x -spf did not ask"
"$FZ7" x -spf -aos abs.7z >/dev/null 2>&1
same "x -spf -aos keeps the file" "$? $(cat abs/g)" "0 mine"
"$FZ7" x -spf -aou abs.7z >/dev/null 2>&1
same "x -spf -aou writes g_1" "$? $(cat abs/g) $(cat abs/g_1 2>&1)" "0 mine abs"
"$FZ7" x -spf -y abs.7z >/dev/null 2>&1
same "x -spf -y replaces" "$? $(cat abs/g)" "0 abs"

# A UTF-16 list file without -scs: 7zz's message and exit 7, no archive.
printf 'a\r\n' | iconv -f UTF-8 -t UTF-16LE > l16.txt
"$FZ7" a l16.7z @l16.txt >out.txt 2>err.txt
same "UTF-16 list without -scs: exit" "$?" 7
same "UTF-16 list without -scs: message" "$(cat err.txt)" \
    "$(printf '\n\nCommand Line Error:\nIncorrect item in listfile.\nCheck charset encoding and -scs switch.\nl16.txt')"
[ ! -e l16.7z ] && ok || bad "a wrote an archive from a UTF-16 list"

# -bb1 lines keep one name on one line: a newline in it shows as '_', as
# 7zz shows it (the files keep their names).
mkdir -p bbnl && printf 'x\n' >"bbnl/a
b"
"$FZ7" a -bb1 bbnl.7z bbnl >out.txt 2>err.txt
same "a -bb1 of a name with a newline" "$(grep '^+' out.txt)" "+ bbnl/a_b"
"$FZ7" x -bb1 -obbnlx bbnl.7z >out.txt 2>err.txt
same "x -bb1 of a name with a newline" "$(grep '^- bbnl/a' out.txt) $(cat "bbnlx/bbnl/a
b")" "- bbnl/a_b x"

# --- --password-file ----------------------------------------------------------
printf 'pw1\n' >pw.txt
"$FZ7" a --password-file=pw.txt pf.7z t >/dev/null 2>&1
same "a --password-file exit" "$?" 0
"$FZ7" t -ppw1 pf.7z >/dev/null 2>&1
same "the file's line is the password" "$?" 0
"$FZ7" t --password-file= pf.7z >out.txt 2>err.txt
same "--password-file= empty exit" "$?" 7

# --- a missing name holding a newline: printed with '_', as 7zz ------------
"$FZ7" a nlw.7z t "$(printf 'mi\nss')" >out.txt 2>err.txt
same "missing name with a newline: exit" "$?" 1
same "missing name with a newline: stderr" "$(cat err.txt)" "$(printf '\nWARNING: errno=2 : No such file or directory\nmi_ss')"
same "missing name with a newline: block" "$(grep -c '^mi_ss : errno=2 : No such file or directory$' out.txt)" 1

# --- an input that cannot be opened: 7zz's lines; -sse ends the command ----
# As root every file opens: the checks then run as nobody (setpriv).
as_user() { if [ "$(id -u)" = 0 ]; then setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; else "$@"; fi; }
if [ "$(id -u)" != 0 ] || command -v setpriv >/dev/null; then
    mkdir -p ro && chmod 777 ro && cd ro && mkdir d && printf 'a\n' >d/a && printf 's\n' >secret && chmod 000 secret
    chmod -R a+rwX d
    as_user "$FZ7" a x.7z d secret >out.txt 2>err.txt
    same "unreadable file exit" "$?" 1
    same "unreadable file: stderr" "$(cat err.txt)" "$(printf '\nWARNING: errno=13 : Permission denied\nsecret')"
    same "unreadable file: end block" "$(tail -6 out.txt)" "$(printf '\nWARNINGS for files:\n\nsecret : errno=13 : Permission denied\n----------------\nWARNING: Cannot open 1 file')"
    same "unreadable file: the rest is stored" "$("$FZ7" l -slt x.7z | sed -n 's/^Path = //p' | tail -n +2 | tr '\n' ' ')" "d d/a "
    rm -f x.7z
    as_user "$FZ7" a -sse x.7z d secret >out.txt 2>err.txt
    same "-sse exit" "$?" 2
    [ ! -e x.7z ] && ok || bad "-sse wrote an archive"
    same "-sse stderr" "$(cat err.txt)" "$(printf '\nWARNING: errno=13 : Permission denied\nsecret\n\n\n\nSystem ERROR:\nerrno=13 : Permission denied')"
    same "-sse stdout ends after the counts" "$(tail -2 out.txt | tr "\n" "|")" "Add new data to archive: 1 folder, 2 files, 4 bytes (1 KiB)||"
    # a name missing at the scan before: its Scan WARNINGS block comes
    # before the System ERROR, as 7zz prints it
    as_user "$FZ7" a -sse x.7z missing d secret >out.txt 2>err.txt
    same "-sse after a scan warning: exit" "$?" 2
    same "-sse after a scan warning: the block" "$(tail -5 out.txt)" "$(printf 'Scan WARNINGS for files and folders:\n\nmissing : errno=2 : No such file or directory\n----------------\nScan WARNINGS: 1')"
    "$FZ7" a old.7z d >/dev/null 2>&1
    cp old.7z keep.7z
    as_user "$FZ7" u -sse old.7z d secret >out.txt 2>err.txt
    same "u -sse exit" "$?" 2
    cmp -s old.7z keep.7z && ok || bad "u -sse changed the archive"
    # last night's copy of a file that cannot be read tonight stays (7zz
    # drops it: u and a replace it by nothing); the warning and exit 1 stay
    for T in 7z zip tar; do
        rm -rf nt && mkdir nt && chmod 777 nt && printf 'v1\n' >nt/f && printf 'p\n' >nt/p && chmod -R a+rwX nt
        touch -d 2020-01-01 nt/f && as_user "$FZ7" a nt.$T nt >/dev/null 2>&1
        for cmd in u a; do
            cp nt.$T nt_$cmd.$T && printf 'v2\n' >nt/f && chmod 000 nt/f
            as_user "$FZ7" $cmd nt_$cmd.$T nt >out.txt 2>err.txt; rc=$?
            chmod 644 nt/f
            same "$cmd of a $T whose file became unreadable: exit, old copy kept, warning" \
                "$rc $("$FZ7" x -so nt_$cmd.$T nt/f 2>/dev/null) $(grep -c '^nt/f : errno=13 : Permission denied$' out.txt)" "1 v1 1"
        done
    done
    "$FZ7" a miss.7z d missing >out.txt 2>err.txt
    same "missing name exit" "$?" 1
    same "missing name: Scan WARNINGS on stdout" "$(tail -6 out.txt)" "$(printf '\nScan WARNINGS for files and folders:\n\nmissing : errno=2 : No such file or directory\n----------------\nScan WARNINGS: 1')"
    same "missing name: stderr" "$(cat err.txt)" "$(printf '\nWARNING: errno=2 : No such file or directory\nmissing')"
    mkdir -p ud/locked && printf 'z\n' >ud/locked/f && chmod 000 ud/locked
    as_user "$FZ7" a ud.7z ud >out.txt 2>err.txt
    same "unreadable folder exit" "$?" 1
    same "unreadable folder: the real errno, name with /" "$(cat err.txt)" "$(printf '\nWARNING: errno=13 : Permission denied\nud/locked/')"
    same "unreadable folder: Scan WARNINGS line" "$(grep ' : errno=' out.txt)" "ud/locked/ : errno=13 : Permission denied"
    chmod 755 ud/locked
    cd "$S"
else
    echo "SKIP: unreadable-file checks (root without setpriv)"
fi

# --- -bb1 on a/u: "+ name", "U name" ---------------------------------------
mkdir -p bb/d && printf 'a\n' >bb/d/a && printf 'b\n' >bb/d/b && : >bb/d/empty
(cd bb && "$FZ7" a -bb1 bb.7z d >../out.txt 2>&1)
same "a -bb1 lines" "$(grep '^[+U] ' out.txt | tr '\n' ' ')" "+ d/a + d/b "
printf 'a2\n' >bb/d/a && touch -d '2030-01-01' bb/d/a && printf 'c\n' >bb/d/c
(cd bb && "$FZ7" u -bb1 bb.7z d >../out.txt 2>&1)
same "u -bb1 lines" "$(grep '^[+U] ' out.txt | tr '\n' ' ')" "U d/a + d/c "
(cd bb && "$FZ7" a bb2.7z d >../out.txt 2>&1)
same "a -bb0 lists nothing" "$(grep -c '^[+U] ' out.txt)" 0

# --- -bt: the times block --------------------------------------------------
"$FZ7" l -bt bb/bb.7z >out.txt 2>err.txt
same "-bt exit" "$?" 0
same "-bt block" "$(tail -4 out.txt | sed 's/= *[0-9.]* = *[0-9]*%/= T/')" "$(printf 'Kernel  Time = T\nUser    Time = T\nProcess Time = T\nGlobal  Time = T')"
same "-bt Global 100%" "$(tail -1 out.txt | sed 's/.* = *//')" "100%"

# --- -mtr and the time switches: 7zz's bytes --------------------------------
printf 'x\n' >tf && touch -d '2020-02-02 02:02:02' tf
"$FZ7" a -mhc=off -mtr=off tr.7z tf >/dev/null 2>&1
same "-mtr=off exit" "$?" 0
same "-mtr=off: no Attributes" "$("$FZ7" l -slt tr.7z | grep -c '^Attributes = .')" 0
"$FZ7" a -mhc=off -mtr- tr2.7z tf >/dev/null 2>&1
cmp -s tr.7z tr2.7z && ok || bad "-mtr- is -mtr=off"
"$FZ7" a -mhc=off tr3.7z tf >/dev/null 2>&1
same "default: Attributes" "$("$FZ7" l -slt tr3.7z | grep '^Attributes')" "Attributes = A -rw-r--r--"
"$FZ7" a -mhc=off -mtm- tm.7z tf >/dev/null 2>&1
same "-mtm- exit" "$?" 0
same "-mtm-: no Modified" "$("$FZ7" l -slt tm.7z | grep -c '^Modified = .')" 0
"$FZ7" a -mtr=x bad.7z tf >/dev/null 2>&1
same "-mtr=x exit" "$?" 2
if command -v 7zz >/dev/null; then
    for sw in -mtr=off -mtr -mtr- -mtm=off -mtm- -mtc=on -mta=on -mtc+ -mta=off; do
        rm -f z1.7z z2.7z
        7zz a -mhc=off $sw z1.7z tf >/dev/null 2>&1
        "$FZ7" a -mhc=off $sw z2.7z tf >/dev/null 2>&1
        cmp -s z1.7z z2.7z && ok || bad "$sw: not 7zz's bytes"
    done
fi

# --- passwords from a pipe: one line, as 7zz; none -> Break signaled -------
printf 'pw\n' | "$FZ7" a -p -mhe=on pp.7z bb/d >out.txt 2>err.txt
same "a -p -mhe from a pipe exit" "$?" 0
same "a -p -mhe: one prompt, on stdout" "$(grep -c 'Enter password (will not be echoed):' out.txt)" 1
same "a -p -mhe: nothing on stderr" "$(cat err.txt)" ""
"$FZ7" t -ppw pp.7z >/dev/null 2>&1
same "the piped line is the password" "$?" 0
"$FZ7" a -p pq.7z bb/d </dev/null >out.txt 2>err.txt
same "a -p, empty pipe exit" "$?" 255
same "a -p, empty pipe stderr" "$(cat err.txt)" "$(printf '\n\nBreak signaled')"
[ ! -e pq.7z ] && ok || bad "a -p with no password wrote an archive"

# --- open errors: 7zz's lines ---------------------------------------------
printf 'junk\n' >junk.7z && cp junk.7z junk.bin
"$FZ7" t junk.7z >out.txt 2>err.txt
same "t junk.7z exit" "$?" 2
same "t junk.7z stderr" "$(cat err.txt)" "$(printf 'ERROR: junk.7z\njunk.7z\nOpen ERROR: Cannot open the file as [7z] archive\n\n\nERRORS:\nIs not archive')"
same "t junk.7z stdout" "$(tail -5 out.txt)" "$(printf "\nCan't open as archive: 1\nFiles: 0\nSize:       0\nCompressed: 0")"
"$FZ7" l junk.7z >out.txt 2>err.txt
same "l junk.7z stderr" "$(cat err.txt)" "$(printf '\nERROR: junk.7z : junk.7z\nOpen ERROR: Cannot open the file as [7z] archive\n\n\nERRORS:\nIs not archive')"
"$FZ7" t junk.bin >out.txt 2>err.txt
same "t junk.bin stderr" "$(cat err.txt)" "$(printf 'ERROR: junk.bin\nCannot open the file as archive')"
"$FZ7" t -pwrong pp.7z >out.txt 2>err.txt
same "wrong header password exit" "$?" 2
same "wrong header password stderr" "$(cat err.txt)" "$(printf 'ERROR: pp.7z\nCannot open encrypted archive. Wrong password?')"
"$FZ7" t pp.7z </dev/null >out.txt 2>err.txt
same "no header password exit" "$?" 255
same "no header password stderr" "$(cat err.txt)" "$(printf '\n\nBreak signaled')"
# x -pwrong of a file stored without its folders' entries: nothing is left,
# not even the folders made for it (as 7zz); a folder entry stays
mkdir -p pwd/d1/d2 && printf 'secret\n' >pwd/d1/d2/f && printf 'x\n' >pwd/g
"$FZ7" a -ppw pwdeep.7z pwd/d1/d2/f >/dev/null 2>&1
rm -rf pwout && "$FZ7" x -pwrong -opwout pwdeep.7z >out.txt 2>err.txt
same "x -pwrong: exit, what is left" "$? $(find pwout | sort | tr '\n' ' ')" "2 pwout "
"$FZ7" a -ppw pwtwo.7z pwd/g pwd/d1/d2/f >/dev/null 2>&1
rm -rf pwout && "$FZ7" x -pwrong -opwout pwtwo.7z >out.txt 2>err.txt
same "x -pwrong of two files: exit, what is left" "$? $(find pwout | sort | tr '\n' ' ')" "2 pwout "
head -c 60 pp.7z >short.7z
"$FZ7" t short.7z >out.txt 2>err.txt
same "truncated: ERRORS reason" "$(sed -n 7p err.txt)" "Unexpected end of archive"

# --- l: a line break inside a name is printed as '_', as 7zz ----------------
mkdir -p nl && printf 'x' >"nl/$(printf 'a\nb')"
(cd nl && "$FZ7" a ../nl.7z . >/dev/null 2>&1)
same "l: newline in a name" "$("$FZ7" l nl.7z | grep -c '  a_b$')" 1
same "l -slt: newline in a name" "$("$FZ7" l -slt nl.7z | grep -c '^Path = a_b$')" 1
rm -rf xnl && "$FZ7" x -oxnl nl.7z >/dev/null 2>&1
same "x keeps the name itself" "$(ls xnl | od -c | head -1 | tr -s ' ')" "0000000 a \n b \n"

# --- -ssp: inputs keep their access time; -stm: the affinity line ---------
mkdir -p at && printf 'atime\n' >at/f
touch -a -d '2020-01-02 03:04:05' at/f
cat at/f >/dev/null
if [ "$(stat -c %X at/f)" = "$(date -d '2020-01-02 03:04:05' +%s)" ]; then
    echo "SKIP: -ssp: reading does not update access times here (noatime)"
else
    touch -a -d '2020-01-02 03:04:05' at/f
    "$FZ7" a -ssp ssp.7z at/f >out.txt 2>err.txt
    same "-ssp exit" "$?" 0
    same "-ssp keeps the access time" "$(stat -c %X at/f)" "$(date -d '2020-01-02 03:04:05' +%s)"
    "$FZ7" a nossp.7z at/f >out.txt 2>err.txt
    [ "$(stat -c %X at/f)" != "$(date -d '2020-01-02 03:04:05' +%s)" ] && ok || bad "without -ssp the read did not show"
fi
"$FZ7" a -stm1 stm.7z at/f >out.txt 2>err.txt
same "-stm1 exit" "$?" 0
same "-stm1 line" "$(grep -c '^Set process affinity mask: 1$' out.txt)" 1
"$FZ7" a -stmq stm2.7z at/f >out.txt 2>err.txt
same "-stmq exit" "$?" 7
same "-stmq message" "$(cat err.txt)" "$(printf '\n\nCommand Line Error:\nUnsupported switch postfix -stm\nq')"
# -spd: a '*' is a character of the name: nothing matches, nothing to warn
"$FZ7" a -spd spd.7z 'at/*' >out.txt 2>err.txt
same "-spd exit" "$?" 0
same "-spd: no entries" "$("$FZ7" l -slt spd.7z | grep -c '^Path = ')" 1
"$FZ7" a nospd.7z 'at/*' >out.txt 2>err.txt
same "without -spd: the wildcard matches" "$("$FZ7" l -slt nospd.7z | grep -c '^Path = ')" 2

# --- mt= of the coder: its threads, over -mmt (as 7zz) -----------------------
# 6 MB of numbered lines: two LZMA2 blocks at -mx1 -mmt2, one stream at -mmt1
seq 1 800000 >mt.txt
for a in "-mmt1" "-mmt2" "-m0=LZMA2:mt=1" "-mmt2 -m0=LZMA2:mt=1" "-mmt1 -m0=LZMA2:mt=2" "-m0=LZMA2:mt=0"; do
    # shellcheck disable=SC2086
    "$FZ7" a -bd -mx1 $a "mt_${a// /_}.7z" mt.txt >out.txt 2>err.txt
    same "a -mx1 $a exit" "$?" 0
done
cmp -s mt_-mmt1.7z mt_-mmt2.7z && bad "-mmt1 and -mmt2 wrote the same archive: mt= checks prove nothing" || ok
same "mt=1 is -mmt1" "$(cmp -s mt_-mmt1.7z mt_-m0=LZMA2:mt=1.7z && echo same)" same
same "mt=1 over -mmt2" "$(cmp -s mt_-mmt1.7z mt_-mmt2_-m0=LZMA2:mt=1.7z && echo same)" same
same "mt=2 over -mmt1" "$(cmp -s mt_-mmt2.7z mt_-mmt1_-m0=LZMA2:mt=2.7z && echo same)" same
same "mt=0 is one thread" "$(cmp -s mt_-mmt1.7z mt_-m0=LZMA2:mt=0.7z && echo same)" same

# --- -si into a zip or tar (mysqldump | 7zz a -si -tzip) --------------------
# From a pipe the size is not known before the data: a zip's local header
# gets 64-bit sizes (zip64, version 45; the central record needs 20), and
# the entry keeps the pipe's mode as 7zz keeps it; a tar needs the size
# first: 7zz's E_INVALIDARG, exit 2, nothing written. Once refused for both.
seq 1 20000 >si.txt
cat si.txt | "$FZ7" a -si -tzip sipipe.zip >out.txt 2>err.txt
same "a -si -tzip from a pipe: exit" "$?" 0
same "a -si -tzip from a pipe: data" "$("$FZ7" x -so sipipe.zip 2>/dev/null | md5sum)" "$(md5sum <si.txt)"
same "a -si -tzip: local header version, zip64 extra id" "$(od -An -tu2 -j4 -N2 sipipe.zip | tr -d ' ') $(od -An -tx1 -j36 -N2 sipipe.zip | tr -d ' ')" "45 0100"
same "a -si -tzip: entry" "$("$FZ7" l -slt sipipe.zip | grep -E '^(Path|Size|Attributes|Version) = ' | sed -n "2,\$p" | tr '\n' '|')" \
    "Path = sipipe|Size = 108894|Attributes =  prw-------|Version = 20|"
# 7zz's -si zip stores no name: l -slt shows the archive's base name, as 7zz
python3 - <<'PY'
import struct, zlib
d = b"data"; c = zlib.crc32(d)
loc = struct.pack("<IHHHHHIIIHH", 0x04034b50, 10, 0, 0, 0, 0x21, c, 4, 4, 0, 0) + d
cen = struct.pack("<IHHHHHHIIIHHHHHII", 0x02014b50, 10, 10, 0, 0, 0, 0x21, c, 4, 4, 0, 0, 0, 0, 0, 0, 0)
end = struct.pack("<IHHHHIIH", 0x06054b50, 0, 0, 1, 1, len(cen), len(loc), 0)
open("noname.zip", "wb").write(loc + cen + end)
PY
same "l -slt of a zip entry stored without a name" "$("$FZ7" l -slt noname.zip | grep '^Path = ' | tr '\n' '|')" "Path = noname.zip|Path = noname|"
cat si.txt | "$FZ7" a -si -tzip -mm=LZMA -mx9 silzma.zip >out.txt 2>err.txt
same "a -si -tzip -mm=LZMA from a pipe (dictionary not shrunk to nothing)" "$?/$("$FZ7" x -so silzma.zip 2>/dev/null | md5sum)" "0/$(md5sum <si.txt)"
"$FZ7" a -si -tzip sifile.zip <si.txt >out.txt 2>err.txt
same "a -si -tzip from a file: its size is known" "$? $(grep '^Add new' out.txt) $(od -An -tu2 -j4 -N2 sifile.zip | tr -d ' ')" \
    "0 Add new data to archive: 1 file, 108894 bytes (107 KiB) 20"
cat si.txt | "$FZ7" a -si -ttar sipipe.tar >out.txt 2>err.txt
same "a -si -ttar from a pipe: exit" "$?" 2
same "a -si -ttar from a pipe: message" "$(sed -n 3,4p err.txt)" "$(printf 'System ERROR:\nE_INVALIDARG : One or more arguments are invalid')"
[ ! -e sipipe.tar ] && ok || bad "a -si -ttar from a pipe wrote a tar"
"$FZ7" a -si -ttar sifile.tar <si.txt >out.txt 2>err.txt
same "a -si -ttar from a file" "$? $(tar tvf sifile.tar | awk '{print $3, $NF}')" "0 108894 sifile"

# --- u -si: u's rules for the one item (7zz: an entry newer than the data
# stays, "Add new data to archive: 0 files"); refused with E_NOTIMPL before
for ext in 7z zip; do
  rm -f usi.$ext && printf 'NEW\n' >usi_new.txt && "$FZ7" a usi.$ext usi_new.txt >/dev/null 2>&1
  printf 'OLD\n' >usi_old.txt && touch -d '2000-01-01' usi_old.txt
  "$FZ7" u -siusi_new.txt usi.$ext <usi_old.txt >out.txt 2>err.txt
  same "u -si ($ext) of older data: exit, kept, Add line" "$? $("$FZ7" x -so usi.$ext usi_new.txt 2>/dev/null) $(grep '^Add new' out.txt)" \
    "0 NEW Add new data to archive: 0 files, 0 bytes"
  printf 'PIPE\n' | "$FZ7" u -siusi_two.txt usi.$ext >out.txt 2>err.txt
  same "u -si ($ext) of a new name from a pipe" "$? $("$FZ7" x -so usi.$ext usi_two.txt 2>/dev/null) $("$FZ7" x -so usi.$ext usi_new.txt 2>/dev/null)" "0 PIPE NEW"
done

# --- an empty file, a 7z shorter than its signature header, a zip cut
# before its first entry: 7zz's words (no [type] block for the empty one;
# "Is not archive", not "Unexpected end of archive")
: >empty.7z && head -c 20 spf.7z >c20.7z && printf 'PK\003\004\024\000' >c6.zip
"$FZ7" t empty.7z >out.txt 2>err.txt
same "t of an empty .7z" "$? $(tr '\n' '|' <err.txt)" "2 ERROR: empty.7z|Cannot open the file as archive||"
"$FZ7" t c20.7z >out.txt 2>err.txt
same "t of a 20-byte .7z" "$? $(sed -n 6,7p err.txt | tr '\n' '|')" "2 ERRORS:|Is not archive|"
"$FZ7" t c6.zip >out.txt 2>err.txt
same "t of a zip cut in its first header" "$? $(sed -n 6,7p err.txt | tr '\n' '|')" "2 ERRORS:|Is not archive|"

# --- t -o: 7zz makes the folder (and its parents) though it writes nothing
# in it, and makes none when nothing is selected
rm -rf tout tout2
"$FZ7" t spf.7z -otout/deep >/dev/null 2>&1
same "t -o makes the folder" "$? $([ -d tout/deep ] && echo made) $(find tout -type f | wc -l)" "0 made 0"
"$FZ7" t spf.7z -otout2 nomatch >/dev/null 2>&1
[ ! -e tout2 ] && ok || bad "t -o of nothing selected made the folder"
rm -rf tout3 && "$FZ7" x -so spf.7z -otout3 >/dev/null 2>&1
same "x -so -o makes the folder too" "$? $([ -d tout3 ] && echo made) $(find tout3 -type f | wc -l)" "0 made 0"
# a file where the -o folder goes (or on the way to it): 7zz's EEXIST block
rm -rf ofile && echo f >ofile
for od in ofile ofile/sub; do
    "$FZ7" x spf.7z -o$od >out.txt 2>err.txt
    same "x -o$od over a file" "$? $(tr '\n' '|' <err.txt)" \
        "2 |ERROR:|Cannot create output directory : errno=17 : File exists : $od/|||System ERROR:|errno=17 : File exists|"
done

t_summary switches
