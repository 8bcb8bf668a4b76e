#!/usr/bin/env bash
# lzma2_blocks.sh - LZMA2's block size as 7zz takes it (-m0=LZMA2:c=N and
# -mc=N): a 7z folder or an xz file is cut into blocks of N bytes on every
# thread count, the dictionary is fitted to the block, and the archive is
# the same for -mmt2 and -mmt3 (and -mmt1 where no match finder thread
# runs: a binary tree's thread tests other pieces for storing). The other coders refuse it (exit 2),
# as 7zz's do; a bad size is a command-line error there too. Exact sizes of
# fz7's archives are asserted, so a change to the cut shows here.
set -u
. "$(dirname "$0")/lib_add.sh"
need_tools sha256sum cmp
mkdir -p "$FZ7_SCRATCH" && cd "$FZ7_SCRATCH" || exit 1
rm -rf ./*

# 3.9 MB: text, random bytes, text again (longer than three 1 MiB blocks)
{ text_lines 40000 31; prng_bytes 200000 32; text_lines 30000 33; } > in.bin
want=$(sha256sum < in.bin)
size=$(stat -c %s in.bin)
[ "$size" -gt 3145728 ] || fail "input is only $size bytes"

method() { "$FZ7" l -slt "$1" | sed -n 's/^Method = //p' | head -1; }

# check NAME FROM SWITCHES...: -mmtFROM..3 give the same archive; fz7
# (and 7zz when installed) test it and give the input back.
check() {
    local name=$1 from=$2; shift 2
    local ext=7z t=
    case " $* " in *" -txz "*) ext=xz ;; esac
    for n in $(seq "$from" 3); do
        rm -f "$name.$n.$ext"
        "$FZ7" a -bso0 -bsp0 -mmt$n "$@" "$name.$n.$ext" in.bin || fail "$name -mmt$n: exit $?"
    done
    [ "$from" = 2 ] || cmp -s "$name.1.$ext" "$name.2.$ext" || fail "$name: -mmt1 and -mmt2 differ"
    ln -sf "$name.$from.$ext" "$name.$ext"
    cmp -s "$name.2.$ext" "$name.3.$ext" || fail "$name: -mmt2 and -mmt3 differ"
    rm -rf out
    "$FZ7" x -bso0 -bsp0 -oout "$name.$ext" || fail "$name: x exit $?"
    local got=out/in.bin
    [ $ext = 7z ] || got=out/$name   # an xz file's one member: its own name without .xz
    [ "$(sha256sum < "$got")" = "$want" ] || fail "$name: content differs"
    if command -v 7zz >/dev/null 2>&1; then
        7zz t "$name.$ext" >/dev/null 2>&1 || fail "$name: 7zz t fails"
    fi
}

# expect NAME METHOD BYTES [SWITCHES...]: the archive's method and exact
# size; with SWITCHES, 7zz (when installed) writes the same method.
expect() {
    local name=$1 want_m=$2 want_b=$3 f=$1.7z ext=7z
    shift 3
    [ -e "$f" ] || { f=$name.xz; ext=xz; }
    local m b
    m=$(method "$f")
    b=$(stat -L -c %s "$f")
    [ "$m" = "$want_m" ] || fail "$name: method $m, expected $want_m"
    [ "$b" = "$want_b" ] || fail "$name: $b bytes, expected $want_b"
    if [ $# -gt 0 ] && command -v 7zz >/dev/null 2>&1; then
        rm -f "7zz.$ext"
        7zz a "$@" "7zz.$ext" in.bin >/dev/null 2>&1 || fail "$name: 7zz a $* failed"
        m=$(7zz l -slt "7zz.$ext" | sed -n 's/^Method = //p' | head -1)
        [ "$m" = "$want_m" ] || fail "$name: 7zz writes $m, fz7 $want_m"
    fi
}

check c1m 1 -mx5 -m0=LZMA2:c=1m
expect c1m LZMA2:20 891700 -mx5 -m0=LZMA2:c=1m
check mc2m 1 -mx1 -mc=2m
expect mc2m LZMA2:20 1120557   # -mx1: a 1 MiB dictionary, within the block (7zz: 256 KiB)
check mc3m 1 -mx3 -mc=3m
expect mc3m LZMA2:3m 1052132 -mx3 -mc=3m
# below fz7's smallest block (1 MiB): 1 MiB blocks
check c0 2 -m0=LZMA2:c=0
cmp -s c0.7z c1m.7z || fail "c=0: not the archive of c=1m"
# a block longer than the input: the archive without c=
check c1g 2 -mc=1g
"$FZ7" a -bso0 -bsp0 -mmt2 plain.7z in.bin || fail "plain: exit $?"
cmp -s c1g.7z plain.7z || fail "c=1g: not the archive without c="
# xz: one block per MiB, each with a 1 MiB dictionary
check xz1m 2 -txz -mc=1m
expect xz1m "LZMA2:20 CRC32" 899232 -txz -mc=1m
if command -v xz >/dev/null 2>&1; then
    blocks=$(xz -lv xz1m.xz | awk '/^ *Blocks:/ {print $2}')
    [ "$blocks" = 5 ] || fail "xz1m: $blocks xz blocks, expected 5"
    xz -t xz1m.xz || fail "xz1m: xz -t fails"
fi

# refused: a bad size before anything is written, another coder after
for m in -mc=abc -m0=LZMA2:c=x; do
    "$FZ7" a -bso0 -bsp0 bad.7z in.bin "$m" >/dev/null 2>&1
    rc=$?
    [ $rc = 2 ] || fail "$m: exit $rc, expected 2"
    [ ! -e bad.7z ] || fail "$m: wrote bad.7z"
done
for m in "-m0=LZMA -mc=1m" -m0=LZMA:c=1m "-m0=PPMd -mc=1m" "-m0=Copy -mc=1m" "-m0=BZip2 -mc=1m" \
         "-m0=Deflate -mc=1m"; do
    # shellcheck disable=SC2086
    "$FZ7" a -bso0 -bsp0 bad.7z in.bin $m >/dev/null 2>&1
    rc=$?
    [ $rc = 2 ] || fail "$m: exit $rc, expected 2"
    [ ! -e bad.7z ] || fail "$m: wrote bad.7z"
done
rm -rf out ./*.7z ./*.xz in.bin
echo "lzma2_blocks: ok"
