#!/usr/bin/env bash
# robust_bitflip.sh - `fz7 t` on archives with one byte changed, at many
# offsets (a 7z with LZMA2 folders, one with an encrypted header, a
# multi-block xz; and every byte of a plain 7z header with its CRCs made
# right again, so the header parser itself sees the change): every run
# ends within 10 s with exit 0, 1 or 2, never a signal; when fz7 says Ok,
# 7zz must say Ok too, and the reverse.
set -u
. "$(dirname "$0")/lib.sh"
t_init 7zz xz python3

mkdir in
seq 1 300 >in/a.txt
for i in $(seq 1 12); do seq $i 37 9000 | md5sum; done >in/r.bin
head -c 2000 /dev/zero >in/z.bin
(cd in && 7zz a -m0=LZMA2:d=64k ../plain.7z . >/dev/null) || { echo "FAIL: 7zz a"; exit 1; }
(cd in && 7zz a -m0=LZMA2:d=64k -psecret -mhe=on ../enc.7z . >/dev/null) || { echo "FAIL: 7zz a -mhe"; exit 1; }
(cd in && 7zz a -m0=LZMA2:d=64k -mhc=off -ms=off ../hdr.7z . >/dev/null) || { echo "FAIL: 7zz a -mhc=off"; exit 1; }
xz -c --block-size=700 in/a.txt >multi.xz

# changed ARCHIVE COUNT|header DIR: writes DIR/OFFSET.EXT copies, each with
# the byte at OFFSET XORed with a value depending on OFFSET only (so a
# failure names a reproducible file): every one of the first 32 bytes and
# COUNT offsets spread over the rest; or, for "header", every byte of a
# plain 7z end header, then the end header's and start header's CRCs
# recomputed.
changed() {
    python3 - "$@" <<'PY'
import os, struct, sys, zlib
arc, how, out = sys.argv[1:4]
b = open(arc, "rb").read()
ext = arc.rsplit(".", 1)[1]
os.makedirs(out, exist_ok=True)
if how == "header":
    off, size = struct.unpack_from("<QQ", b, 12)
    offsets = range(32 + off, 32 + off + size)
else:
    k = int(how)
    offsets = sorted(set(list(range(32)) + [32 + (len(b) - 33) * i // k for i in range(1, k + 1)]))
for o in offsets:
    c = bytearray(b)
    c[o] ^= (o * 37 + 11) % 255 + 1
    if how == "header":
        struct.pack_into("<I", c, 28, zlib.crc32(bytes(c[32 + off:32 + off + size])))
        struct.pack_into("<I", c, 8, zlib.crc32(bytes(c[12:32])))
    open(os.path.join(out, "%d.%s" % (o, ext)), "wb").write(c)
PY
}

agree_ok=0
# flip ARCHIVE COUNT|header ARGS...: test every changed copy with both tools.
flip() {
    local arc=$1 how=$2; shift 2
    local dir=flip_${arc%.*}_$how f rc rc7 runs=0 before=$fail
    "$FZ7" t "$@" "$arc" >/dev/null 2>&1 || { bad "$arc: intact archive does not test Ok"; return; }
    changed "$arc" "$how" "$dir" || { bad "$arc: cannot write changed copies"; return; }
    for f in $(ls "$dir" | sort -n); do
        f=$dir/$f
        timeout 10 "$FZ7" t "$@" "$f" >out.txt 2>err.txt </dev/null
        rc=$?
        runs=$((runs + 1))
        case $rc in
        0|1|2) ;;
        124) bad "$f: still running after 10 s" ;;
        *) bad "$f: exit $rc"; sed 's/^/    /' err.txt | head -3 ;;
        esac
        if [ "$rc" -le 2 ]; then
            7zz t "$@" "$f" >/dev/null 2>&1 </dev/null
            rc7=$?
            if [ "$rc" = 0 ] && [ "$rc7" != 0 ]; then
                bad "$f: fz7 t says Ok, 7zz t exits $rc7"
            elif [ "$rc" != 0 ] && [ "$rc7" = 0 ]; then
                bad "$f: fz7 t exits $rc, 7zz t says Ok"; sed 's/^/    /' err.txt | head -3
            elif [ "$rc" = 0 ]; then
                agree_ok=$((agree_ok + 1))
            fi
        fi
        [ $((fail - before)) -ge 10 ] && { echo "  ... stopping $arc after 10 failures"; break; }
    done
    [ "$fail" = "$before" ] && pass=$((pass + 1))
    echo "$arc ($how): $runs changed copies"
}

flip plain.7z 140
flip multi.xz 100
flip hdr.7z header
flip enc.7z 40 -psecret

echo "robust_bitflip.sh: $pass runs passed, $fail failures ($agree_ok changes both tools accept)"
t_passed
