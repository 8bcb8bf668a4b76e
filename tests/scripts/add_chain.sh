#!/usr/bin/env bash
# add_chain.sh - 7z folders of a chain of coders (-m0=... -m1=... -m2=...,
# gaps, -mf= in front of a chain, BCJ2 inside one): fz7 writes each with
# exit 0, every entry's Method from `l -slt` is the one 7zz gives the same
# switches (over text and an x86 executable, so the automatic filter is
# checked too), and fz7 x and 7zz x restore the files byte for byte.
# Then chains joined by -mb's bind pairs: each folder's coders, bind pairs
# and pack streams as 7zz writes them, and the bind pairs 7zz refuses
# refused with its exit code and text, as it reads the switch or once the
# folder starts. Without 7zz only fz7's own side is checked (said as SKIP
# lines).
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

# ---- -mb: coders joined by bind pairs (-mbA[sN]:B, out stream N of coder
# A into coder B) -------------------------------------------------------

# A folder's coders, bind pairs and pack streams as its Folder record has
# them (7zFormat.txt; the header left plain by -mhc=off): one line a folder,
# "coders ID/in ... binds in>out ... packs ...".
cat >shape.py <<'PY'
import struct, sys
d = open(sys.argv[1], 'rb').read()
off, size = struct.unpack('<QQ', d[12:28])
h, p = d[32 + off:32 + off + size], [0]
def byte():
    p[0] += 1
    return h[p[0] - 1]
def num():
    first, mask, v = byte(), 0x80, 0
    for i in range(8):
        if not first & mask:
            return v | ((first & (mask - 1)) << (8 * i))
        v |= byte() << (8 * i)
        mask >>= 1
    return v
assert byte() == 1 and byte() == 4, 'not a plain header'
t = byte()
if t == 6:
    num(); npack = num(); t = byte()
    while t:
        if t == 9:
            [num() for _ in range(npack)]
        t = byte()
    t = byte()
assert t == 7 and byte() == 0x0B
nfolders = num()
assert byte() == 0
for _ in range(nfolders):
    ins = outs = 0; coders = []
    for _ in range(num()):
        flags = byte(); cid = h[p[0]:p[0] + (flags & 15)]; p[0] += flags & 15
        i = o = 1
        if flags & 0x10:
            i, o = num(), num()
        if flags & 0x20:
            n = num()
            p[0] += n
        coders.append('%s/%d' % (cid.hex(), i)); ins += i; outs += o
    binds = ['%d>%d' % (num(), num()) for _ in range(outs - 1)]
    packs = [str(num()) for _ in range(ins - outs + 1)] if ins - outs + 1 > 1 else []
    print('coders', *coders, 'binds', *binds, 'packs', *packs)
PY
shape() { python3 shape.py "$1" 2>&1; }
have_py=
command -v python3 >/dev/null && have_py=1
[ -n "$have_py" ] || echo "SKIP: python3 not installed: -mb folder shapes left out"

# bonds NAME 'SHAPE' SWITCHES...: fz7 writes in/src (big/src with "big")
# with -mhc=off and SWITCHES; its folder is SHAPE (7zz's for the same
# switches), 7zz tests it and fz7 x restores the files; with 7zz the
# Methods are 7zz's too.
bonds() {
    local name=$1 want=$2 tree=in; shift 2
    [ "$1" = big ] && tree=big && shift
    rm -f "$name.7z"
    (cd $tree && "$FZ7" a -bso0 -bsp0 -mhc=off "$@" "../$name.7z" src </dev/null) >err.txt 2>&1
    local rc=$?
    if [ "$rc" != 0 ]; then bad "$name ($*): fz7 a exit $rc"; head -5 err.txt; return; fi
    [ -z "$have_py" ] || same "$name ($*): folder" "$(shape "$name.7z")" "$want"
    rm -rf outf && mkdir outf
    if "$FZ7" x -bso0 -ppw -ooutf "$name.7z" </dev/null >/dev/null 2>&1 && diff -r $tree/src outf/src >/dev/null; then
        ok
    else
        bad "$name ($*): fz7 x does not restore the files"
    fi
    [ -n "$have7zz" ] || return
    if 7zz t -ppw "$name.7z" </dev/null >/dev/null 2>&1; then ok; else bad "$name ($*): 7zz t fails"; fi
    rm -f "$name-7.7z"
    (cd $tree && 7zz a -bso0 -bsp0 -mhc=off "$@" "../$name-7.7z" src </dev/null) >/dev/null 2>&1
    same "$name ($*): Method" "$(methods "$name.7z")" "$(methods "$name-7.7z")"
}
# -mf=off: the same folder on any CPU (no automatic filter for prog)
bonds b1 'coders 030101/1 030101/1 030101/1 0303011b/4 binds 5>0 4>1 3>2 packs 2 6 1 0' \
    -mf=off -m0=BCJ2 -m1=LZMA:d25 -m2=LZMA:d19 -m3=LZMA:d19 -mb0:1 -mb0s1:2 -mb0s2:3
bonds b2 'coders 030101/1 030101/1 030101/1 0303011b/4 binds 3>2 5>0 4>1 packs 2 6 1 0' \
    -mf=off -m0=BCJ2 -m1=LZMA:d25 -m2=LZMA:d19 -m3=LZMA:d19 -mb0s1:2 -mb0s2:3 -mb0:1
bonds b3 'coders 030101/1 030101/1 0303011b/4 binds 2>1 5>0 packs 1 3 4 0' \
    -mf=off -m0=BCJ2 -m1=LZMA -m2=LZMA -mb0s3:2 -mb0:1
bonds b4 'coders 030101/1 03030103/1 030101/1 0303011b/4 binds 4>2 1>0 3>1 packs 0 5 6 2' \
    -mf=off -m0=BCJ2 -m1=LZMA -m2=BCJ -m3=LZMA -mb0:2 -mb2:3 -mb0s1:1
bonds b5 'coders 030101/1 03030103/1 binds 0>1 packs' -mf=off -m0=BCJ -m1=LZMA -mb1:0
bonds b6 'coders 0303011b/4 030101/1 binds 0>1 packs 4 1 2 3' -mf=off -m0=LZMA -m1=BCJ2 -mb1:0
bonds b7 'coders 030101/1 03030103/1 binds 1>0 packs' -mf=off -m1=BCJ -m2=LZMA -mb1:2
bonds b8 'coders 0303011b/4 0303011b/4 binds 4>0 packs 0 5 6 7 1 2 3' -mf=off -m0=BCJ2 -m1=BCJ2 -mb0:1
# -mf's filter in front of the coder no bond feeds, its bonds after -mb's
# (LZMA2 there: fz7 gives an LZMA after BCJ2's main stream lc=4, 7zz lc=3)
bonds b9 'coders 030101/1 030101/1 21/1 03030103/1 0303011b/4 binds 6>0 5>1 4>2 2>3 packs 3 7 1 0' \
    -mf=BCJ2 -m0=BCJ -m1=LZMA2 -mb1:0
bonds b10 'coders 030101/1 030101/1 03030103/1 binds 2>0 0>1 packs' -mf=BCJ -m0=LZMA -m1=LZMA -mb1:0
# a 7zAES after each pack stream; LZMA2 blocks on two threads (b13: a
# folder a file)
bonds b11 'coders 06f10701/1 06f10701/1 06f10701/1 06f10701/1 030101/1 0303011b/4 binds 8>0 7>1 6>2 4>3 5>4 packs 3 2 1 0' \
    -ppw -mf=off -m0=BCJ2 -m1=LZMA -mb0:1
bonds b12 'coders 06f10701/1 21/1 03030103/1 binds 1>0 2>1 packs' big -mmt2 -ppw -mf=off -m0=BCJ -m1=LZMA2:d=256k:mf=hc4 -mb0:1
bonds b13 "$(for f in 1 2 3 4; do echo 'coders 06f10701/1 03030103/1 21/1 binds 2>0 1>2 packs'; done)" big -mmt2 -ppw -ms=off -mf=off -m0=LZMA2:d=256k:mf=hc4 -m1=BCJ -mb1:0

# Filters and Copy alone: fz7's archive is 7zz's byte for byte.
for sw in "-m0=BCJ2 -m1=Copy -m2=Delta:2 -m3=Copy -mb0:1 -mb0s1:2 -mb0s2:3" "-m0=Copy -m1=BCJ2 -mb1:0" \
          "-m0=BCJ2 -m1=BCJ2 -mb0s2:1" "-m0=Delta:4 -m1=BCJ -mb1:0"; do
    [ -n "$have7zz" ] || break
    rm -f bf.7z b7.7z
    # shellcheck disable=SC2086  # the switches are words
    (cd in && "$FZ7" a -bso0 -mhc=off -mf=off $sw ../bf.7z src && 7zz a -bso0 -mhc=off -mf=off $sw ../b7.7z src) \
        </dev/null >/dev/null 2>&1
    if cmp -s bf.7z b7.7z; then ok; else bad "$sw: not 7zz's archive byte for byte"; fi
done

# Refused as 7zz refuses them, exit 2 and E_INVALIDARG: LATE after "Add
# new data" (the folder cannot be built), EARLY as the switch is read.
refused() {
    local when=$1; shift
    rm -f r.7z
    (cd in && "$FZ7" a "$@" ../r.7z src) </dev/null >out.txt 2>err.txt
    local rc=$? late=EARLY
    grep -q '^Add new data' out.txt && late=LATE
    same "$* refused" "rc=$rc $late $(grep -v '^  (in ' err.txt | tr '\n' '|') $([ -e r.7z ] && echo archive)" \
        "rc=2 $when ||System ERROR:|E_INVALIDARG : One or more arguments are invalid| "
    [ -n "$have7zz" ] || return
    # 7zz's lines after its banner, fz7's without the "(in ...)" it adds
    rm -f r.7z
    (cd in && 7zz a "$@" ../r.7z src) </dev/null >out7.txt 2>err7.txt
    same "$* refused: 7zz's output" "$(tail -n +4 out.txt; grep -v '^  (in ' err.txt)" \
        "$(tail -n +4 out7.txt; cat err7.txt)"
}
refused LATE -m0=BCJ2 -m1=LZMA -m2=LZMA -m3=LZMA -mb0:1 -mb0s1:2    # coder 3 joined to none
refused LATE -m0=BCJ -m1=LZMA -mb0:1 -mb1:0                          # a cycle
refused LATE -m0=LZMA -mb0:0
refused LATE -m0=BCJ -m1=LZMA -m2=LZMA -mb0:2 -mb1:2                 # coder 2 fed twice
refused LATE -m0=BCJ -m1=LZMA -m2=LZMA -mb0:1 -mb0:2                 # a stream bound twice
refused LATE -m0=BCJ -m1=LZMA -mb0s1:1                               # BCJ has one out stream
refused LATE -m0=BCJ2 -m1=LZMA -m2=LZMA -mb0s4:1 -mb0:2
refused LATE -m0=BCJ -m2=LZMA -mb0:2                                 # the gap's LZMA2 joined to none
refused EARLY -m0=BCJ -m1=LZMA -mb0:2                                # no coder 2
refused EARLY -m1=BCJ -m2=LZMA -mb0:2
refused EARLY -mb0:1
refused EARLY -m0=BCJ -m1=LZMA -mb0:1s1                              # in stream 1
refused EARLY -m0=BCJ -m1=LZMA -mb0s:1
refused EARLY -m0=BCJ -m1=LZMA -mb0:1=x
refused EARLY -m0=BCJ -m1=LZMA -mb0:4294967296
refused EARLY -txz -m0=LZMA2 -m1=LZMA2 -mb0:1
t_summary add_chain "($n chains, 13 -mb folders${have7zz:+, each against 7zz})"
