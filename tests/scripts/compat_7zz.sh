#!/usr/bin/env bash
# compat_7zz.sh - fz7 and 7zz 26.02 side by side on the cases where they
# used to differ: damaged .xz listings, a reserved xz check ID, bytes after
# a 7z archive, -snh / -mmt0 / -ba, -scs/-scc/-ssw/-sse/-scrc, -stl, the
# packed size column of a solid block's folders, an output folder that can
# not be written, -m values that cannot be used (E_INVALIDARG, exit 2),
# stored creation/access times (read, and written by a/u/d/rn byte for byte
# as 7zz writes them), a password on stdin, and the message lines
# of l/t/x/e. Each case runs both programs on the same files and
# compares exit codes, stdout (without the banner) and stderr line for line.
set -u
. "$(dirname "$0")/lib.sh"
command -v 7zz >/dev/null || { echo "SKIP: 7zz not installed (this test compares with it)"; exit 77; }
t_init
mkdir work || exit 1
XZ=${FZ7_SHARED:-}/corpus/xz


# side [-ba] [-rc] [-out] ARGS...: runs `7zz ARGS` in a copy of work/ (A)
# and `fz7 ARGS` in another (B) with stdin from /dev/null, then compares
# exit codes, stdout after the banner (all of it with -ba: there is none),
# stderr and the two trees. -rc: exit codes only; -out: not stderr (fz7's
# error lines name the archive and the reason on one line).
side() {
    local bare=0 rc_only=0 no_err=0
    while :; do
        case $1 in -ba) bare=1; shift ;; -rc) rc_only=1; shift ;; -out) no_err=1; shift ;; *) break ;; esac
    done
    rm -rf A B && cp -a work A && cp -a work B
    (cd A && 7zz "$@" >../a.out 2>../a.err </dev/null; echo $? >../a.rc)
    (cd B && "$FZ7" "$@" >../b.out 2>../b.err </dev/null; echo $? >../b.rc)
    local name="[$*]" why=""
    [ "$(cat a.rc)" = "$(cat b.rc)" ] || why="exit $(cat b.rc), 7zz $(cat a.rc); "
    if [ $rc_only = 0 ]; then
        if [ $bare = 1 ]; then cp a.out a.cmp; cp b.out b.cmp; else
            tail -n +4 a.out >a.cmp; tail -n +4 b.out >b.cmp; fi
        cmp -s a.cmp b.cmp || why="${why}stdout: $(diff a.cmp b.cmp | grep '^[<>]' | head -4 | tr '\n' '|'); "
        [ $no_err = 1 ] || cmp -s a.err b.err || why="${why}stderr: $(diff a.err b.err | grep '^[<>]' | head -4 | tr '\n' '|'); "
        [ "$(cd A && find . | LC_ALL=C sort)" = "$(cd B && find . | LC_ALL=C sort)" ] ||
            why="${why}trees differ; "
    fi
    if [ -z "$why" ]; then ok; else bad "$name: $why"; fi
}

# --- the files ---
mkdir -p work/src/d1/d2
printf 'hello\n' >work/src/a.txt
printf 'two\n' >work/src/d1/b.txt
printf 'three\n' >work/src/d1/d2/c.log
: >work/src/empty
touch -d '2020-01-02 03:04:05' work/src/a.txt work/src/d1/b.txt work/src/d1/d2/c.log \
    work/src/empty work/src/d1/d2 work/src/d1 work/src
(cd work && 7zz a -bd arc.7z src >/dev/null && 7zz a -bd -psecret enc.7z src >/dev/null &&
    7zz a -bd -psecret -mhe=on henc.7z src >/dev/null) || { echo "FAIL: 7zz a"; exit 1; }
cp work/arc.7z work/tail.7z && printf 'garbage after the end' >>work/tail.7z
printf 'not an archive\n' >work/plain.txt

# --- 3: bytes after the end of a 7z archive: a warning, exit 0 ---
side l tail.7z
side l -slt tail.7z
side t tail.7z
side x -y -oout tail.7z
grep -q "^Tail Size = 21$" b.out && ok || bad "x tail.7z: no 'Tail Size = 21'"

# --- 4: -snh (a 7z archive is the same with it), -mmt0 (one thread) ---
mkdir -p work/hl && printf 'linked\n' >work/hl/f1 && ln -f work/hl/f1 work/hl/f2
side -rc a -snh h.7z hl
fields() { 7zz l -slt "$1" | sed -n '/^----------$/,$p' | grep -E '^(Path|Size|CRC|Attributes) = ' | tr '\n' ' '; }
[ -n "$(fields A/h.7z)" ] && [ "$(fields A/h.7z)" = "$(fields B/h.7z)" ] && ok ||
    bad "a -snh: entries differ from 7zz's: $(fields B/h.7z)"
side -rc a -mmt0 m.7z src
side -rc a -mmt0 m.xz src/a.txt
side -rc t -mmt0 arc.7z
head -c 3000000 /dev/urandom >work/big.bin && printf 'x%.0s' $(seq 1 200000) >>work/big.bin
(cd work && "$FZ7" a -bd -mx1 -mmt0 ../m0.xz big.bin >/dev/null && "$FZ7" a -bd -mx1 -mmt1 ../m1.xz big.bin >/dev/null)
cmp -s m0.xz m1.xz && ok || bad "-mmt0 does not make what -mmt1 makes"
rm -f work/big.bin

# --- 6: -ba, -bb, selections, missing names and archives ---
side -ba l -ba arc.7z
side -ba l -ba -slt arc.7z
side -ba t -ba arc.7z
side -ba x -ba -y -oout arc.7z
side t -bb arc.7z
side t -bb3 arc.7z
side x -y -oout -bb1 arc.7z
side l -r arc.7z '*.txt'
# Entries decoded only because they share the solid block count in
# "Files:" and "Size:", as 7zz counts them.
side x -y -oout -r arc.7z '*.log'
side t arc.7z src/d1/b.txt
side x -y -oout -bb2 arc.7z src/d1/d2/c.log
side l arc.7z '-x!src/d1'
# Totals when no listed entry shows a packed size: the archive's size.
side l arc.7z src/d1/b.txt src/d1/d2/c.log
side l arc.7z src/empty src/d1/b.txt
side e -y -oout arc.7z '-x!*.txt'
side x -y -oout arc.7z nosuch
side t arc.7z '-x!src'
side l plain.txt
side l nosuch.7z
side t nosuch.7z
side l -psecret henc.7z
side -out t -pwrong henc.7z
# Damaged 7z headers: the start header's CRC, then the next header's.
cp work/arc.7z work/bad1.7z && printf '\377' | dd of=work/bad1.7z bs=1 seek=13 conv=notrunc 2>/dev/null
cp work/arc.7z work/bad2.7z &&
    printf '\000' | dd of=work/bad2.7z bs=1 seek=$(($(stat -c %s work/arc.7z) - 5)) conv=notrunc 2>/dev/null
side -out t bad1.7z
side -out t bad2.7z
side -out l bad1.7z
# ... and their stderr: "Is not archive" for a bad start header, 7zz's
# block for u/d on a 7z that does not open (fz7's reason on a line after)
head -c 100 work/arc.7z >work/cut1.7z
for c in "t bad1.7z" "u bad1.7z src/a.txt" "d cut1.7z src/a.txt" "rn cut1.7z src/a.txt x"; do
    # shellcheck disable=SC2086
    (cd work && 7zz $c >/dev/null 2>../a.err; echo $? >../a.rc; "$FZ7" $c >/dev/null 2>../b.err; echo $? >../b.rc)
    [ "$(cat a.rc)" = "$(cat b.rc)" ] && diff a.err <(grep -v '^start header CRC mismatch$' b.err) >/dev/null && ok ||
        bad "$c: stderr or exit differs from 7zz's: $(diff a.err b.err | grep '^[<>]' | head -4 | tr '\n' '|')"
done
# A stored entry with a wrong password: only its CRC can tell, and 7zz says
# "CRC Failed in encrypted file" (fz7 said Data Error). 7zz keeps the
# garbage; fz7 does not (by design: nothing to salvage, and it would stand
# in the way of the retry), so only the empty file is left.
(cd work && 7zz a -bd -m0=copy -psecret cenc.7z src >/dev/null)
for c in "t -pwrong cenc.7z" "x -pwrong -oo cenc.7z"; do
    # shellcheck disable=SC2086
    (cd work && rm -rf o && 7zz $c >/dev/null 2>../a.err; echo "$?" >../a.rc
     rm -rf o && "$FZ7" $c >/dev/null 2>../b.err; echo "$? $(find o -type f 2>/dev/null | sort | tr '\n' ' ')" >../b.rc; rm -rf o)
    want="$(cat a.rc) "; [ "${c#x}" != "$c" ] && want="$(cat a.rc) o/src/empty "
    [ "$(cat b.rc)" = "$want" ] && [ "$(head -n 1 a.err)" = "$(head -n 1 b.err)" ] && ok ||
        bad "$c: $(cat b.rc) $(head -n 1 b.err), want $want $(head -n 1 a.err)"
done
# d with a wrong password, where a kept entry must be decoded again: 7zz's
# lines (the words, the item, E_FAIL), the archive as it was. The item
# named is the one being kept (7zz names the block's first).
(cd work && 7zz a -bd -pright sol.7z src >/dev/null && cp sol.7z sol0.7z)
(cd work && "$FZ7" d -pwrong sol.7z src/a.txt >/dev/null 2>../b.err; echo $? >../b.rc)
[ "$(cat b.rc)" = 2 ] && cmp -s work/sol.7z work/sol0.7z && [ "$(sed '2d' b.err | tr '\n' '|')" = \
    "ERROR: Data Error in encrypted file. Wrong password? : ||||System ERROR:|E_FAIL : Unspecified error|" ] && ok ||
    bad "d -pwrong of a solid encrypted 7z: exit $(cat b.rc), $(tr '\n' '|' <b.err)"
side t -psecret enc.7z
# No password and nothing on stdin: "Break signaled" (255), as 7zz.
(cd work && "$FZ7" t enc.7z >../p.out 2>../p.err </dev/null; echo $? >../p.rc)
[ "$(cat p.rc)" = 255 ] && grep -qx "Break signaled" p.err && ok || bad "t enc.7z without a password: exit $(cat p.rc)"
# A password piped in is read from stdin's first line, as by 7zz.
(cd work && echo secret | "$FZ7" t enc.7z >../p.out 2>&1) && grep -q "^Everything is Ok$" p.out && ok ||
    bad "echo secret | fz7 t enc.7z: $(tail -3 p.out | tr '\n' '|')"

# --- 5: an output folder that can not be written ---
if [ "$(id -u)" = 0 ]; then
    as_other() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
    command -v setpriv >/dev/null && as_other "$FZ7" --version >/dev/null 2>&1 && can=1 || can=0
else
    as_other() { "$@"; }
    can=1
fi
if [ $can = 1 ]; then
    for d in A B; do rm -rf $d && cp -a work $d && mkdir $d/ro && chmod 555 $d/ro && chmod -R a+rX $d; done
    chmod a+rwx . A B
    unwritable() { # unwritable ARGS...: both as another user, exit code and stderr
        (cd A && as_other 7zz "$@" >../a.out 2>../a.err </dev/null; echo $? >../a.rc)
        (cd B && as_other "$FZ7" "$@" >../b.out 2>../b.err </dev/null; echo $? >../b.rc)
        if [ "$(cat a.rc)" = "$(cat b.rc)" ] && cmp -s a.err b.err; then ok; else
            bad "[$*] as another user: exit $(cat b.rc) (7zz $(cat a.rc)): $(diff a.err b.err | grep '^[<>]' | head -4 | tr '\n' '|')"
        fi
    }
    unwritable e -y -oro arc.7z
    unwritable x -y -oro arc.7z
    # 7zz names errno 17 here whatever the cause; fz7 the real one.
    (cd B && as_other "$FZ7" x -y -oro/out arc.7z >../b.out 2>../b.err </dev/null; echo $? >../b.rc)
    printf '\nERROR:\nCannot create output directory : errno=13 : Permission denied : ro/out/\n\n\nSystem ERROR:\nerrno=13 : Permission denied\n' >want.err
    [ "$(cat b.rc)" = 2 ] && cmp -s want.err b.err && ok ||
        bad "x -oro/out: exit $(cat b.rc): $(tr '\n' '|' <b.err)"
else
    echo "note: unwritable -o cases skipped (root without setpriv, or fz7 not reachable as nobody)"
fi

# --- 7: switches 7-Zip scripts pass (charsets, -ssw, -sse, -scrc), -stl,
#     and the packed size of a folder entry inside a solid block ---
side -rc a -scsUTF-8 -sccUTF-8 -ssw -sse -scrcSHA256 sw.7z src
[ -s B/sw.7z ] && [ "$(fields B/sw.7z)" = "$(fields A/sw.7z)" ] && ok ||
    bad "a with -scs/-scc/-ssw/-sse/-scrc: entries differ from 7zz's"
side -rc a -stl stl.7z src
ta=$(stat -c %Y A/stl.7z 2>/dev/null) tb=$(stat -c %Y B/stl.7z 2>/dev/null)
[ -n "$tb" ] && [ "$ta" = "$tb" ] && [ "$tb" = "$(stat -c %Y work/src/a.txt)" ] && ok ||
    bad "a -stl: archive mtime $tb, 7zz $ta, want the newest item's $(stat -c %Y work/src/a.txt)"
if [ -f "${FZ7_SHARED:-}/corpus/7z/test_6.7z" ]; then
    cp "$FZ7_SHARED/corpus/7z/test_6.7z" work/
    side l test_6.7z     # folders listed between files of one block: packed size blank
else
    echo "note: test_6.7z listing skipped (no ../shared corpus)"
fi

# --- 9: creation and access times stored by 7zz -mtc=on -mta=on: l -slt
#     prints Created/Accessed lines, x sets the access time ---
touch -a -d '2021-05-06 07:08:09.123456700' work/src/a.txt
(cd work && 7zz a -bd -mtc=on -mta=on times.7z src/a.txt >/dev/null && 7zz a -bd -mtc=on ctime.7z src/a.txt >/dev/null)
side l -slt times.7z
side l -slt ctime.7z
grep -q '^Accessed = 2021-05-06 07:08:09.1234567$' b.out 2>/dev/null && bad "ctime.7z lists an access time" || ok
side x -y -oout times.7z
ta=$(stat -c %X A/out/src/a.txt 2>/dev/null) tb=$(stat -c %X B/out/src/a.txt 2>/dev/null)
[ -n "$tb" ] && [ "$ta" = "$tb" ] && [ "$tb" = "$(date -d '2021-05-06 07:08:09' +%s)" ] && ok ||
    bad "x times.7z: access time $tb, 7zz $ta"

# --- 10: -mtc/-mta/-mtm on a, u, d and rn: with a plain header (-mhc=off;
#     fz7's LZMA-compressed header is not 7zz's byte for byte) fz7 writes the
#     very archive 7zz writes from the same files: the same times (creation =
#     st_ctime, access = st_atime before reading), the same FilesInfo layout
#     (kCTime, kATime, kMTime; kDummy alignment) and the same entry order
#     (entries without data first: folders, then files, each by path). Access times lie in the future, so reading the files does
#     not change them between the two runs (relatime). ---
T=$S/times
mkdir -p "$T/src/d1/sub" "$T/src/d2" "$T/src/zz"   # zz: folders come before empty files
: >"$T/src/aa"
printf 'alpha\n' >"$T/src/a.txt"
printf 'beta beta\n' >"$T/src/d1/b.txt"
printf 'gamma\n' >"$T/src/d1/sub/c.txt"
: >"$T/src/empty"
stamp() { touch -d '2020-03-04 05:06:07.1234567' "$@" && touch -a -d '2031-02-03 04:05:06.7654321' "$@"; }
# shellcheck disable=SC2046
stamp $(find "$T/src")
# twin LABEL BASE ARGS...: in $T, fz7 ARGS with each "@" replaced by f.7z
# and 7zz ARGS with z.7z, both starting from a copy of BASE ("-": none);
# the exit codes and the archives' bytes must be the same.
twin() {
    local label=$1 base=$2; shift 2
    local fa=() za=() x
    for x in "$@"; do
        if [ "$x" = @ ]; then fa+=(f.7z); za+=(z.7z); else fa+=("$x"); za+=("$x"); fi
    done
    (cd "$T" && rm -f f.7z z.7z && if [ "$base" != - ]; then cp "$base" f.7z && cp "$base" z.7z; fi
     "$FZ7" "${fa[@]}" >/dev/null 2>&1; echo $? >f.rc
     7zz "${za[@]}" >/dev/null 2>&1; echo $? >z.rc)
    if [ "$(cat "$T/f.rc")" != "$(cat "$T/z.rc")" ]; then
        bad "$label: exit $(cat "$T/f.rc"), 7zz $(cat "$T/z.rc")"
    elif [ ! -e "$T/f.7z" ] && [ ! -e "$T/z.7z" ]; then
        ok
    elif ! cmp -s "$T/f.7z" "$T/z.7z"; then
        bad "$label: archives differ ($(stat -c %s "$T/f.7z" "$T/z.7z" 2>/dev/null | tr '\n' ' ')bytes)"
    else
        ok
    fi
}
for sw in "" "-mtc=on" "-mta=on" "-mtc=on -mta=on" "-mtc -mta=+" "-mtm=off" "-mtm=off -mtc=on" \
          "-mtc=off -mta=off -mtm=on"; do
    # shellcheck disable=SC2086
    twin "a $sw" - a -bd -mhc=off $sw @ src
done
for v in 0 1 maybe; do   # 7zz refuses these values (exit 2) and writes nothing
    twin "a -mtc=$v" - a -bd -mhc=off -mtc=$v @ src
    [ ! -e "$T/f.7z" ] && ok || bad "a -mtc=$v wrote an archive"
done
# What 7zz reads back from fz7's archive: the times fz7 took from the disk.
(cd "$T" && "$FZ7" a -bd -mhc=off -mtc=on -mta=on f.7z src >/dev/null &&
    7zz l -slt f.7z src/d1/b.txt | grep -E '^(Modified|Created|Accessed) = ' >f.times)
want_c=$(date -d "@$(stat -c %Z "$T/src/d1/b.txt")" '+%Y-%m-%d %H:%M:%S')
printf 'Modified = 2020-03-04 05:06:07.1234567\nCreated = %s.%s\nAccessed = 2031-02-03 04:05:06.7654321\n' \
    "$want_c" "$(stat -c %z "$T/src/d1/b.txt" | sed 's/.*\.\([0-9]\{7\}\).*/\1/')" >"$T/want.times"
cmp -s "$T/f.times" "$T/want.times" && ok ||
    bad "7zz l -slt of fz7's -mtc -mta archive: $(tr '\n' '|' <"$T/f.times"), want $(tr '\n' '|' <"$T/want.times")"
# Updates of archives with and without the times: an update stores a time
# kind the old archive has unless its switch says otherwise; kept entries
# keep theirs. Entries without data come first (folders, then files, by
# path), then the old folders in their order, then the new data.
(cd "$T" && 7zz a -bd -mhc=off -mtc=on -mta=on -ms=2f base-t.7z src >/dev/null &&
    7zz a -bd -mhc=off -ms=2f base-n.7z src >/dev/null && 7zz a -bd -mhc=off -mtm=off base-m.7z src >/dev/null)
printf 'alpha, longer now\n' >"$T/src/a.txt"
printf 'new\n' >"$T/src/d1/n.txt"
mkdir "$T/src/d0" "$T/src/d2/e"
: >"$T/src/d2/empty0"
stamp "$T/src/d1/n.txt" "$T/src/d0" "$T/src/d2/e" "$T/src/d2/empty0"
touch -d '2021-01-01' "$T/src/a.txt" "$T/src/d1" "$T/src/d2" && touch -a -d '2031-01-01' "$T/src/a.txt" "$T/src/d1" "$T/src/d2"
for sw in "" "-mtc=off" "-mta=off -mtm=off" "-mtc=on -mta=on"; do
    for base in base-t.7z base-n.7z base-m.7z; do
        # shellcheck disable=SC2086
        twin "u $sw of $base" "$base" u -bd -mhc=off -ms=2f $sw @ src
    done
done
for base in base-t.7z base-n.7z; do   # a onto an archive follows the same rule
    twin "a onto $base" "$base" a -bd -mhc=off -ms=2f @ src/d1 src/a.txt
    twin "a -mta=on onto $base" "$base" a -bd -mhc=off -ms=2f -mta=on @ src/d1 src/a.txt
done
twin "d of base-t.7z" base-t.7z d -bd -mhc=off @ src/d1/b.txt src/empty
twin "rn of base-n.7z" base-n.7z rn -bd -mhc=off @ src/d1 src/zz src/a.txt src/d0.txt

# --- 8: a -m value that cannot be used: 7zz fails with E_INVALIDARG, exit 2
#     (not 7, a command-line error), and writes no archive ---
for sw in -mmt=abc -mx=zz -mhe=maybe -mfoo=1 -m0=Foo -m0=LZMA2:d=zz; do
    side -rc a "$sw" bad.7z src
    [ ! -e B/bad.7z ] && [ ! -e A/bad.7z ] && ok || bad "a $sw left an archive behind"
    grep -q '^E_INVALIDARG : One or more arguments are invalid$' b.err && ok ||
        bad "a $sw: no E_INVALIDARG line: $(tr '\n' '|' <b.err)"
done
side -rc u -mfoo=1 arc.7z src
cmp -s work/arc.7z B/arc.7z && ok || bad "u -mfoo=1 changed the archive"

# --- 1, 2: the xz corpus ---
if [ -f "$XZ/MANIFEST.tsv" ]; then
    for f in "$XZ"/bad-* "$XZ"/unsupported-* "$XZ"/good-*.lzma; do
        cp "$f" work/
        n=$(basename "$f")
        side -rc l "$n"
        [ "$(cat a.rc)" = 0 ] && side l "$n" && side l -slt "$n"
        side -rc t "$n"
        # The 7-Zip words of the entry's error ("CRC Failed", "Data Error",
        # "Unexpected end of data", "Unsupported Method"), where fz7 has them.
        w7=$(grep -m1 '^ERROR: .* : ' a.err | sed 's/^ERROR: //' | awk -F' : ' '{print $1}')
        wf=$(grep -m1 '^ERROR: .* : ' b.err | sed 's/^ERROR: //' | awk -F' : ' '{print $1}')
        case $w7 in
        "CRC Failed"|"Data Error"|"Unexpected end of data"|"Unsupported Method")
            [ "$w7" = "$wf" ] && ok || bad "t $n: '$wf', 7zz '$w7'" ;;
        esac
        rm -f "work/$n"
    done
    # Named cases, so a change in 7zz cannot hide them: a damaged footer
    # lists (exit 0, no sizes), a reserved check ID decodes.
    cp "$XZ/bad-0-backward_size.xz" "$XZ/unsupported-check.xz" work/
    side l bad-0-backward_size.xz
    [ "$(cat b.rc)" = 0 ] && grep -q '^ *\.\.\.\.\. *bad-0-backward_size$' b.out && ok ||
        bad "l bad-0-backward_size.xz: exit $(cat b.rc)"
    side -rc t bad-0-backward_size.xz
    side l unsupported-check.xz
    grep -q "^Method = LZMA2:16 Check-2$" b.out && ok || bad "unsupported-check: Method line"
    side t unsupported-check.xz
    side x -y -oout unsupported-check.xz
    [ "$(cat b.rc)" = 0 ] &&
        [ "$(sha256sum <B/out/unsupported-check | cut -d' ' -f1)" = 8e5935e7e13368cd9688fe8f48a0955293676a021562582c7e848dafe13fb046 ] &&
        ok || bad "x unsupported-check.xz: exit $(cat b.rc) or wrong data"
    # A listing from a pipe: sizes and the total packed size left blank.
    7zz l -si -txz <"$XZ/good-1-lzma2-1.xz" 2>&1 | tail -n +4 >a.cmp
    "$FZ7" l -si -txz <"$XZ/good-1-lzma2-1.xz" 2>&1 | tail -n +4 >b.cmp
    cmp -s a.cmp b.cmp && ok || bad "l -si -txz: $(diff a.cmp b.cmp | grep '^[<>]' | head -4 | tr '\n' '|')"
    # Reserved check IDs of every size (7: 16 bytes, 13 and 15: 64), made
    # from good-1-check-none.xz: both readers skip the check, as 7zz does.
    if command -v python3 >/dev/null; then
        python3 - "$XZ/good-1-check-none.xz" work <<'PY'
import struct, sys, zlib
d = open(sys.argv[1], 'rb').read()
backward = (struct.unpack('<I', d[-8:-4])[0] + 1) * 4
unpadded, size = d[-12 - backward + 2], d[-12 - backward + 3]   # one-byte VLIs
block = d[12:12 + unpadded]
for cid, csize in ((7, 16), (13, 64), (15, 64)):
    flags = bytes([0, cid])
    body = b'\0\x01' + bytes([unpadded + csize, size])
    body += b'\0' * (-len(body) % 4)
    index = body + struct.pack('<I', zlib.crc32(body))
    footer = struct.pack('<I', len(index) // 4 - 1) + flags
    with open('%s/check%d.xz' % (sys.argv[2], cid), 'wb') as f:
        f.write(b'\xfd7zXZ\0' + flags + struct.pack('<I', zlib.crc32(flags)) + block +
                b'\0' * (-unpadded % 4) + b'\x55' * csize + index +
                struct.pack('<I', zlib.crc32(footer)) + footer + b'YZ')
PY
        for id in 7 13 15; do
            side l check$id.xz
            side t check$id.xz
            out=$(cd work && "$FZ7" x -si -so <check$id.xz 2>/dev/null | sha256sum | cut -d' ' -f1)
            [ "$out" = 8e5935e7e13368cd9688fe8f48a0955293676a021562582c7e848dafe13fb046 ] && ok ||
                bad "check ID $id through a pipe: wrong data"
        done
    fi
else
    echo "note: xz corpus cases skipped ($XZ/MANIFEST.tsv not found)"
fi

t_summary compat_7zz.sh
