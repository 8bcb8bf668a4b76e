#!/usr/bin/env bash
# add_chain.sh - 7z folders of a chain of coders (-m0=... -m1=... -m2=...,
# gaps, -mf= in front of a chain, BCJ2 inside one): fz7 writes each with
# exit 0, every entry's Method from `l -slt` is the one 7zz gives the same
# switches (over text and an x86 executable, so the automatic filter is
# checked too), and fz7 x and 7zz x restore the files byte for byte.
# Without 7zz only fz7's own round trip is checked (said as SKIP lines).
set -u
. "$(dirname "$0")/lib.sh"
t_init
have7zz=
command -v 7zz >/dev/null && have7zz=1
[ -n "$have7zz" ] || echo "SKIP: 7zz not installed: Method and 7zz x checks left out"

mkdir -p in/src/sub
for i in $(seq 1 300); do echo "line $i of a text that repeats itself"; done >in/src/a.txt
head -c 5000 /dev/zero | tr '\0' 'b' >in/src/b.bin
printf 'nested\n' >in/src/sub/c.txt
: >in/src/sub/empty.txt
# An x86 executable on x86, for the automatic filter (7zz filters only
# files with an execute bit).
cp "$FZ7" in/src/prog
chmod 755 in/src/prog

# The same tree with the executable grown past 2 MiB (two LZMA2 blocks).
cp -a in big
seq 1 400000 >>big/src/prog

# Each entry's path and Method, as 7zz lists them.
methods() { 7zz l -slt -ppw "$1" </dev/null | sed -n '/^----------$/,$p' | grep -E '^(Path|Method) = '; }

# check NAME [big] SWITCHES...: write in/src (big/src) with SWITCHES by
# fz7 (and 7zz), compare the Methods, test and extract with both.
check() {
    local name=$1 tree=in; shift
    [ "$1" = big ] && tree=big && shift
    rm -f "$name-f.7z" "$name-7.7z"
    (cd $tree && "$FZ7" a -bso0 -bsp0 "$@" "../$name-f.7z" src </dev/null) >err.txt 2>&1
    local rc=$?
    if [ "$rc" != 0 ]; then bad "$name ($*): fz7 a exit $rc"; head -5 err.txt; return; fi
    ok
    rm -rf outf && mkdir outf
    if "$FZ7" x -bso0 -ppw -ooutf "$name-f.7z" </dev/null >/dev/null 2>&1 && diff -r $tree/src outf/src >/dev/null; then
        ok
    else
        bad "$name ($*): fz7 x does not restore the files"
    fi
    [ -n "$have7zz" ] || return
    (cd $tree && 7zz a -bso0 -bsp0 "$@" "../$name-7.7z" src </dev/null) >/dev/null 2>&1
    same "$name ($*): Method" "$(methods "$name-f.7z")" "$(methods "$name-7.7z")"
    rm -rf out7 && mkdir out7
    if 7zz x -ppw -oout7 "$name-f.7z" </dev/null >/dev/null 2>&1 && diff -r $tree/src out7/src >/dev/null; then
        ok
    else
        bad "$name ($*): 7zz x does not restore the files"
    fi
}

n=0
while IFS= read -r switches; do
    case $switches in ''|'#'*) continue ;; esac
    n=$((n + 1))
    # shellcheck disable=SC2086  # the switches are words
    check "c$n" $switches
done <<'EOF'
# issue 22's rows: longer chains, two methods, two filters, -mf with a chain, gaps
-m0=LZMA2 -m1=BCJ -m2=Delta:4
-m0=Delta:4 -m1=BCJ -m2=LZMA2
-m0=LZMA2 -m1=LZMA
-m0=BCJ -m1=BCJ2
-m0=BCJ -m1=LZMA2 -mf=BCJ
-m0=LZMA2 -m1=BCJ -mf=ARM64
-m0=LZMA2 -m2=BCJ
-m0=BCJ -m2=LZMA2
# BCJ2 inside a chain (its other streams raw) and -mf=BCJ2 in front of one
-m0=BCJ2 -m1=BCJ -m2=LZMA2
-m0=Delta:4 -m1=BCJ2 -m2=LZMA2
-m0=BCJ2 -m1=BCJ2
-m0=LZMA2 -m1=BCJ2 -m2=LZMA
-m0=BCJ -m1=LZMA2 -mf=BCJ2
-m0=BCJ2 -m1=LZMA2 -mf=BCJ
-m0=BCJ2 -m1=LZMA2 -mf=BCJ2
# no filter in the chain: the executable gets the automatic one (BCJ2 at -mx9)
-m0=LZMA -m1=LZMA2
-mx9 -m0=LZMA2 -m1=LZMA2
-m0=LZMA2 -m1=LZMA -mf=off
-m1=BCJ -m3=LZMA2
-md=1m -m0=LZMA2 -m2=BCJ
-m0=PPMd -m1=LZMA2
-m0=LZMA2 -m1=Deflate
-m0=Copy -m1=BZip2
# threads, solid blocks and 7zAES with chains
-mmt2 -m0=LZMA2 -m1=LZMA2
-mmt2 -m0=BCJ -m1=LZMA2 -m2=Delta:4
-ms=off -m0=BCJ -m1=LZMA2 -m2=LZMA
-ppw -m0=LZMA2 -m1=BCJ -m2=Delta:4
-ppw -mhe=on -m0=BCJ -m1=BCJ2
-ppw -mmt2 -m0=BCJ -m1=LZMA2 -mf=BCJ2
-ppw -mmt2 -m0=Delta:4 -m1=LZMA2
# 7zz's numbered parameters: -mN<param>=<value> is <param>=<value> of coder
# N (a coder named by them alone is LZMA2); big, so the dictionaries show
# (-mx1 keeps the sanitizer pass short; -mf=off: fz7's automatic filter for
# LZMA is BCJ2 from -mx5, 7zz's from -mx8)
big -mx1 -mf=off -m0d=1m
big -mx1 -mf=off -m0d=256k -m0=LZMA2
big -mx1 -mf=off -m0=LZMA -m0d=1m -m0lc=2
big -mx1 -m0=BCJ -m1d=1m
big -mx1 -mf=off -m2d=512k
big -mx1 -mf=off -m0=LZMA2 -m0=LZMA -m0d=64k
big -mx0 -m0fb=64
big -mx1 -m0=LZMA2 -m1=BCJ -m0c=1m -m0d=512k
# -mx0: no automatic filter for any method or chain, as in 7zz
-mx0 -m0=LZMA -m1=LZMA2
-mx0 -m0=PPMd
-mx0 -m0=LZMA2 -mf=BCJ
# big: over 2 MiB of input, coded in blocks on two threads (an LZMA2
# inside the chain or the last one, one folder or one a file)
big -mmt2 -m0=LZMA2:d=256k:mf=hc4 -m1=Delta:4
big -mmt2 -ppw -m0=LZMA2:d=256k:mf=hc4 -m1=BCJ -mf=BCJ2
big -mmt2 -ppw -ms=off -m0=Delta:4 -m1=LZMA2:d=256k:mf=hc4
big -mmt2 -ppw -m0=BCJ -m1=LZMA2:d=256k:mf=hc4 -mf=BCJ2
big -mmt2 -ppw -m0=BCJ2 -m1=LZMA2:d=256k:mf=hc4
EOF
t_summary add_chain "($n chains${have7zz:+, each against 7zz})"
