#!/usr/bin/env bash
# interop_7zz.sh - archives made here by `7zz a` (-mx1, -mx5, -mx9, -ms=off,
# -mhc=off) extract with fz7 byte for byte: contents (diff -r), modes,
# mtimes to the second and link targets match the source tree; `fz7 t`
# exits 0 and `fz7 l -slt` agrees with 7zz on every path and size. The
# other way, archives fz7 writes with each method besides LZMA2 (PPMd,
# Deflate, Deflate64, BZip2, at several levels) and with filters named
# after the method or BCJ2 under a password pass `7zz t` and extract with
# 7zz to the same contents, each entry's Method as 7zz would write it.
set -u
. "$(dirname "$0")/lib.sh"
t_init 7zz python3

# --- the source tree ---
mkdir -p small/docs/deep/deeper small/empty_dir small/bin "small/ünïcödé dir"
printf 'hello world\n' >small/docs/readme.txt
: >small/docs/empty.txt
: >small/docs/deep/deeper/also_empty
seq 1 20000 >small/docs/deep/numbers.txt
printf '#!/bin/sh\necho hi\n' >small/bin/run.sh
chmod 0755 small/bin/run.sh
printf 'secret\n' >small/docs/private.txt
chmod 0600 small/docs/private.txt
printf 'grüße, 日本語\n' >"small/ünïcödé dir/fïlé 名前.txt"
ln -s docs/readme.txt small/link_to_file
ln -s docs small/link_to_dir
ln -s no/such/target small/dangling # ("../" targets are refused on x, as by 7zz)
touch -d '2001-02-03 04:05:06' small/docs/readme.txt small/docs/deep
# 20 MB of mixed data: random, text, zeros and repeats, fixed seed.
python3 - big.bin <<'PY'
import random, sys
r = random.Random(7)
words = [bytes(r.choice(b"abcdefghijklmnopqrstuvwxyz") for _ in range(r.randint(2, 9))) for _ in range(3000)]
out = bytearray()
while len(out) < 20 * 1024 * 1024:
    kind = r.randrange(4)
    n = r.randint(1 << 12, 1 << 18)
    if kind == 0:
        out += r.randbytes(n)
    elif kind == 1:
        out += b" ".join(r.choice(words) for _ in range(n // 6)) + b"\n"
    elif kind == 2:
        out += bytes(n)
    else:
        start = r.randrange(max(1, len(out) - n)) if out else 0
        out += out[start:start + n] or b"x" * n
open(sys.argv[1], "wb").write(out[:20 * 1024 * 1024])
PY
cp -a small full && mv big.bin full/big.bin

# modes, mtimes (to the second) and link targets of a tree
meta() { (cd "$1" && find . -mindepth 1 -printf '%p %y %m %l ' -exec sh -c \
    'if [ -L "$1" ]; then echo; else stat -c %Y "$1"; fi' _ {} \; | LC_ALL=C sort); }

check() { # check NAME SOURCE_DIR 7ZZ_OPTIONS...
    local name=$1 src=$2; shift 2
    local arc=$S/$name.7z why=""
    rm -f "$arc"
    (cd "$src" && 7zz a -snl "$@" "$arc" . >/dev/null) || { bad "$name: 7zz a failed"; return; }
    rm -rf out && mkdir out
    "$FZ7" x -y -oout "$arc" >log 2>&1
    local rc=$?
    if [ $rc != 0 ]; then why="x exit $rc: $(grep -m1 ERROR log)"
    elif ! diff -r --no-dereference "$src" out >diff.txt 2>&1; then why="contents differ: $(head -2 diff.txt | tr '\n' '|')"
    elif [ "$(meta "$src")" != "$(meta out)" ]; then why="modes/mtimes/links differ: $(diff <(meta "$src") <(meta out) | head -3 | tr '\n' '|')"
    else
        "$FZ7" t "$arc" >log 2>&1 || why="t exit $?"
        if [ -z "$why" ]; then
            "$FZ7" l -slt "$arc" | grep -E '^(Path|Size) = ' >fz7.txt
            7zz l -slt "$arc" | grep -E '^(Path|Size) = ' >7zz.txt
            cmp -s fz7.txt 7zz.txt || why="l -slt paths/sizes differ: $(diff 7zz.txt fz7.txt | head -3 | tr '\n' '|')"
        fi
    fi
    if [ -z "$why" ]; then ok; else bad "$name ($*): $why"; fi
}

check mx1 full -mx1
check mx5 full -mx5
check ms_off full -mx3 -ms=off
check mhc_off small -mhc=off
check mx9 small -mx9
check copy small -m0=Copy
check bcj_delta small -m0=BCJ -m1=LZMA2 -mx3
check lzma small -m0=LZMA:d=1m

check_by_7zz() { # check_by_7zz NAME SOURCE_DIR FZ7_OPTIONS...
    local name=$1 src=$2; shift 2
    local arc=$S/fz7_$name.7z why=""
    rm -f "$arc"
    (cd "$src" && "$FZ7" a -bd -snl "$@" "$arc" . >/dev/null) || { bad "$name: fz7 a failed"; return; }
    rm -rf out && mkdir out
    if ! 7zz t -ppw "$arc" >log 2>&1; then why="7zz t: $(grep -m1 -iE 'error|fail' log)"
    elif ! (cd out && 7zz x -y -ppw "$arc" >/dev/null 2>&1); then why="7zz x failed"
    elif ! diff -r --no-dereference "$src" out >diff.txt 2>&1; then why="contents differ: $(head -2 diff.txt | tr '\n' '|')"
    fi
    if [ -z "$why" ]; then ok; else bad "$name ($*): $why"; fi
}

check_by_7zz ppmd small -m0=PPMd
check_by_7zz ppmd_mx1 small -m0=PPMd -mx1
check_by_7zz ppmd_mx9 small -m0=PPMd -mx9
check_by_7zz ppmd_small_model small -m0=PPMd:o=32:mem=16
check_by_7zz deflate full -m0=Deflate
check_by_7zz deflate_mx1 full -m0=Deflate -mx1
check_by_7zz deflate_mx9 small -m0=Deflate -mx9
check_by_7zz deflate64 small -m0=Deflate64
check_by_7zz deflate64_mx9_enc small -m0=Deflate64 -mx9 -ppw -mhe=on
check_by_7zz bzip2_d300k small -m0=BZip2:d=300k
check_by_7zz deflate_params full -m0=Deflate:fb=128:mc=200:pass=3
check_by_7zz deflate64_pass small -m0=Deflate64 -mpass=4 -mfb=3
# pass=3 re-parses each block and keeps the smaller parse: never larger
[ "$(stat -c %s "$S/fz7_deflate_params.7z")" -le "$(stat -c %s "$S/fz7_deflate.7z")" ] && ok ||
    bad "-m0=Deflate:fb=128:mc=200:pass=3 larger than -m0=Deflate"

# The entries' Method column (7zz l -slt, without the coders' parameters):
# a filter named after the method runs over the method's output, as in 7zz.
method_is() { # method_is NAME WANT: every entry with data of fz7_NAME.7z has Method WANT
    local got
    got=$(7zz l -slt -ppw "$S/fz7_$1.7z" | sed '1,/^----------$/d' | sed -n 's/^Method = \(..*\)/\1/p' |
          sed 's/:[0-9a-z]*//g' | sort -u)
    same "$1: Method" "$got" "$2"
}
check_by_7zz lzma2_then_bcj small -m0=LZMA2 -m1=BCJ -mx3
method_is lzma2_then_bcj "LZMA2 BCJ"
check_by_7zz bcj_then_lzma2 small -m1=LZMA2 -m0=BCJ -mx3
method_is bcj_then_lzma2 "BCJ LZMA2"
check_by_7zz lzma_then_arm64_enc small -m0=LZMA -m1=ARM64 -ppw
method_is lzma_then_arm64_enc "LZMA ARM64 7zAES"
check_by_7zz deflate_then_delta small -m0=Deflate -m1=Delta:4
method_is deflate_then_delta "Deflate Delta"
check_by_7zz lzma2_then_bcj_mt full -m0=LZMA2 -m1=BCJ -mx1 -mmt2 -ms=off
method_is lzma2_then_bcj_mt "LZMA2 BCJ"
check_by_7zz lzma2_then_bcj2_enc small -m0=LZMA2 -m1=BCJ2 -ppw -mhe=on
method_is lzma2_then_bcj2_enc "LZMA2 BCJ2 7zAES 7zAES 7zAES 7zAES"
check_by_7zz bcj2_enc small -m0=BCJ2 -ppw
method_is bcj2_enc "BCJ2 7zAES 7zAES 7zAES 7zAES"

# Executables (fz7's own binary, an x86 ELF file) beside a text file: the
# automatic filters of Copy and BZip2, -mf=BCJ2 with them and BCJ2 named in
# the chain give the Method column 7zz gives the same tree; 7zz t passes.
mkdir -p exes && cp "$FZ7" exes/prog && cp small/docs/readme.txt exes/
methods() { 7zz l -slt "$1" | sed '1,/^----------$/d' | sed -n 's/^Method = \(..*\)/\1/p' | sed 's/:[0-9a-z]*//g' | sort; }
for m in -m0=Copy "-mx8 -m0=Copy" "-mx0 -mf=BCJ2" "-mx5 -m0=BZip2" "-mx8 -m0=BZip2" "-m0=BZip2 -mf=BCJ2" \
         "-m0=BCJ2 -m1=LZMA2" "-m0=BCJ2 -m1=Copy -ppw"; do
    rm -f "$S/exes7.7z" "$S/exesf.7z"
    # shellcheck disable=SC2086  # $m: several switches
    if (cd exes && 7zz a $m "$S/exes7.7z" . >/dev/null && "$FZ7" a $m "$S/exesf.7z" . >/dev/null); then
        same "exes $m: Method" "$(methods "$S/exesf.7z")" "$(methods "$S/exes7.7z")"
        7zz t -ppw "$S/exesf.7z" >/dev/null 2>&1 && ok || bad "exes $m: 7zz t failed"
    else
        bad "exes $m: a failed"
    fi
done

t_summary interop_7zz.sh
