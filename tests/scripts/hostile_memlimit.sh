#!/usr/bin/env bash
# hostile_memlimit.sh - archives declaring huge decoder memory on a few
# KiB of data (xz LZMA2 dictionaries of 1.5 GiB and 4 GiB, a 7z LZMA2
# dictionary of 1.5 GiB, a 7z LZMA dictionary of 4 GiB, a 7z PPMd model of
# 4 GiB), and a 7z that really needs 2 MB: under a small -mmemuse= fz7
# refuses with exit 2 and a message giving the bytes needed; a large
# enough -mmemuse= lets them through; without the switch the default limit
# refuses what is over it before allocating anything (checked under
# `ulimit -v`: exit 2 with the memory message, never 8 or a signal), and
# 7z coders, whose output size is known, get no window larger than that.
set -u
. "$(dirname "$0")/lib.sh"
t_init 7zz xz python3

run() { # run NAME WANT CMD...
    local name=$1 want=$2; shift 2
    timeout 20 "$@" >out.txt 2>err.txt </dev/null
    local rc=$?
    if [ "$rc" = "$want" ]; then ok; else bad "$name: exit $rc, want $want"; sed 's/^/    /' err.txt | head -3; fi
}
says() { grep -qF -- "$2" err.txt && ok || { bad "$1: no '$2' in the message"; sed 's/^/    /' err.txt | head -3; }; }

# craft KIND SRC DST VALUE: sets the dictionary / model size of the first
# coder and makes the CRCs right again. xz: LZMA2 dictionary byte in the
# block header (xz-file-format.txt 3.1, 5.3.1); 7z (plain header): the
# LZMA2 dictionary byte, the LZMA dictionary size or the PPMd memory size
# in the coder properties (7zFormat.txt, Methods.txt).
craft() {
    python3 - "$@" <<'PY'
import struct, sys, zlib
kind, src, dst, val = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4], 0)
b = bytearray(open(src, "rb").read())
if kind == "xz":
    hs = (b[12] + 1) * 4
    i = b.index(b"\x21\x01", 12, 12 + hs)          # filter ID 0x21, 1 property byte
    b[i + 2] = val
    struct.pack_into("<I", b, 12 + hs - 4, zlib.crc32(bytes(b[12:12 + hs - 4])))
else:
    off, size = struct.unpack_from("<QQ", b, 12)
    h0 = 32 + off
    if kind == "lzma2":
        i = b.index(b"\x21\x21\x01", h0)            # coder flags, ID 21, 1 property byte
        b[i + 3] = val
    elif kind == "lzma":
        i = b.index(b"\x23\x03\x01\x01\x05", h0)    # ID 030101, 5 property bytes
        struct.pack_into("<I", b, i + 6, val)
    else:
        i = b.index(b"\x23\x03\x04\x01\x05", h0)    # ID 030401 (PPMd): order, memory
        struct.pack_into("<I", b, i + 6, val)
    struct.pack_into("<I", b, 28, zlib.crc32(bytes(b[h0:h0 + size])))
    struct.pack_into("<I", b, 8, zlib.crc32(bytes(b[12:32])))
open(dst, "wb").write(b)
PY
}

seq 1 800 >data.txt
xz -c --lzma2=dict=64KiB data.txt >small.xz
7zz a -mhc=off -m0=LZMA2:d=64k small2.7z data.txt >/dev/null
7zz a -mhc=off -m0=LZMA:d=64k small1.7z data.txt >/dev/null
7zz a -mhc=off -m0=PPMd:mem=1m:o=6 smallp.7z data.txt >/dev/null
craft xz small.xz dict1536m.xz 37 && craft xz small.xz dict4g.xz 40
craft lzma2 small2.7z dict1536m.7z 37
craft lzma small1.7z lzma4g.7z 0xFFFFFFFF
craft ppmd smallp.7z ppmd4g.7z 0xFFFFFFDB
for f in dict1536m.xz dict4g.xz dict1536m.7z lzma4g.7z ppmd4g.7z; do
    [ -s "$f" ] || { echo "FAIL: could not craft $f"; exit 1; }
done

# --- a small -mmemuse: refused, with the bytes needed ---
seq 1 300000 >big.txt
7zz a -mhc=off -m0=LZMA2:d=4m -mx1 needs2m.7z big.txt >/dev/null
for f in dict1536m.xz:1610612736:dict1536m needs2m.7z:1988895:big.txt; do
    IFS=: read -r f need name <<<"$f"
    run "$f -mmemuse=1m t" 2 "$FZ7" t -mmemuse=1m "$f"
    says "$f -mmemuse=1m t" "Memory usage limit reached : $name"
    says "$f -mmemuse=1m t" "$need"
    rm -rf out
    run "$f -mmemuse=1m x" 2 "$FZ7" x -mmemuse=1m -oout "$f"
    [ "$(ls -A out 2>/dev/null)" = "" ] && ok || bad "$f -mmemuse=1m x: left $(ls -A out)"
    # a limit that covers it: the data comes out right
    run "$f -mmemuse=2g t" 0 "$FZ7" t -mmemuse=2g "$f"
done
run "dict1536m.xz -mmemuse=2g x" 0 "$FZ7" x -mmemuse=2g -so dict1536m.xz
cmp -s out.txt data.txt && ok || bad "dict1536m.xz -mmemuse=2g: wrong data"

# --- no switch, 1 GiB of address space: over the default limit refused
# before any allocation; 7z coders sized by their output ---
ulimited() { (ulimit -v 1048576 && exec timeout 20 "$FZ7" "$@") >out.txt 2>err.txt </dev/null; }
if ! { ulimited --version; } 2>/dev/null; then   # AddressSanitizer reserves terabytes of shadow
    echo "note: $FZ7 does not run under ulimit -v (sanitizer build?): default-limit checks skipped"
else
for f in dict4g.xz:2:4294967295 ppmd4g.7z:2:4294967259 dict1536m.7z:0: lzma4g.7z:0:; do
    IFS=: read -r f want need <<<"$f"
    ulimited t "$f"
    rc=$?
    if [ "$rc" = "$want" ]; then ok; else bad "$f t (default limit, ulimit -v 1 GiB): exit $rc, want $want"; sed 's/^/    /' err.txt | head -3; fi
    if [ "$want" = 2 ]; then
        says "$f t (default limit)" "Memory usage limit reached"
        says "$f t (default limit)" "$need bytes"
    fi
done
fi
# a 1.5 GiB LZMA2 window over 3 KiB of output: 7zz needs no more either
run "dict1536m.7z -mmemuse=1m t" 0 "$FZ7" t -mmemuse=1m dict1536m.7z

t_summary hostile_memlimit.sh
