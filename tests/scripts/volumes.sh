#!/usr/bin/env bash
# volumes.sh - split archives made by `7zz a -v1m` (LZMA2 and Copy, files
# crossing volume boundaries) list, test and extract with fz7 byte for byte
# from name.7z.001; a missing middle or last volume says "Missing volume:"
# with exit 2 and no data or password error; 7z archives behind an ELF
# stub (cat stub archive) open at their offset, and a stub that only holds
# the signature bytes is no archive. Corpus archives behind a stub list and
# test as they do alone.
set -u
. "$(dirname "$0")/lib.sh"
t_init 7zz python3

# --- sources: 4.5 MB of random, text and repeats (fixed seed) ---
mkdir -p src/sub
python3 - src <<'PY'
import random, sys
r = random.Random(13)
d = sys.argv[1]
open(d + "/random.bin", "wb").write(r.randbytes(1_700_000))
words = [bytes(r.choice(b"abcdefghijklmnopqrstuvwxyz") for _ in range(r.randint(2, 9))) for _ in range(2000)]
open(d + "/sub/text.txt", "wb").write(b"\n".join(b" ".join(r.choice(words) for _ in range(12)) for _ in range(40000)))
open(d + "/sub/small.txt", "wb").write(b"small file\n")
open(d + "/empty", "wb").close()
blk = r.randbytes(300_000)
open(d + "/repeat.bin", "wb").write(blk * 3 + r.randbytes(900_000))
PY

# Lines "path|size" of `fz7 l -slt` or `7zz l -slt`, sorted.
slt_list() {
    awk '/^Path = /{p=substr($0,8)} /^Size = /{print p "|" substr($0,8)}' | sort
}

check_set() { # name method
    local name=$1 m=$2
    (cd src && 7zz a -bd -v1m -m0="$m" -mx1 "../$name.7z" . >/dev/null) || { bad "7zz a $m"; return; }
    local nvol
    nvol=$(ls "$name".7z.* | wc -l)
    [ "$nvol" -ge 3 ] || bad "$name: only $nvol volumes"
    rm -rf "out_$name"
    "$FZ7" x -bd -o"out_$name" "$name.7z.001" >"x_$name.log" 2>&1
    local rc=$?
    if [ $rc -eq 0 ] && diff -r src "out_$name" >/dev/null; then ok; else bad "$name: x rc=$rc or tree differs"; fi
    "$FZ7" t -bd "$name.7z.001" >"t_$name.log" 2>&1
    rc=$?
    if [ $rc -eq 0 ] && grep -q "Everything is Ok" "t_$name.log"; then ok; else bad "$name: t rc=$rc"; fi
    "$FZ7" l -slt "$name.7z.001" 2>&1 | sed -n '/^----------$/,$p' | slt_list >"fz7_$name.lst"
    7zz l -slt "$name.7z.001" | sed -n '/^----------$/,$p' | slt_list >"7zz_$name.lst"
    if [ -s "fz7_$name.lst" ] && cmp -s "fz7_$name.lst" "7zz_$name.lst"; then ok; else bad "$name: l -slt differs from 7zz"; fi
    # The listing counts the bytes of every volume.
    local total
    total=$(cat "$name".7z.* | wc -c)
    if "$FZ7" l "$name.7z.001" | grep -qx "Physical Size = $total"; then ok; else bad "$name: physical size"; fi
    # -so gives one file's bytes across the boundaries.
    if "$FZ7" e -so "$name.7z.001" random.bin 2>/dev/null | cmp -s - src/random.bin; then ok; else bad "$name: e -so"; fi

    # A missing volume: the middle one, then the last one.
    local last
    last=$(printf '%s.7z.%03d' "$name" "$nvol")
    for gone in "$name.7z.002" "$last"; do
        mv "$gone" held
        for cmd in t l x; do
            rm -rf gone_out
            "$FZ7" "$cmd" -bd -ogone_out "$name.7z.001" >out.log 2>err.log
            rc=$?
            # 7zz's lines, naming the archive inside the set; fz7's reason after
            want="ERROR: $name.7z.001|$name.7z|Open ERROR: Cannot open the file as [7z] archive|||ERRORS:|Unexpected end of archive|Missing volume: $gone|"
            [ "$cmd" = l ] && want="|ERROR: $name.7z.001 : $name.7z|Open ERROR: Cannot open the file as [7z] archive|||ERRORS:|Unexpected end of archive|Missing volume: $gone||"
            if [ $rc -eq 2 ] && [ "$(tr '\n' '|' <err.log)" = "$want" ] &&
                ! grep -qiE "data error|wrong password|crc failed" out.log err.log; then
                ok
            else
                bad "$name: $cmd without $gone: rc=$rc: $(cat err.log)"
            fi
        done
        [ -z "$(ls gone_out 2>/dev/null)" ] || bad "$name: x without $gone wrote files"
        mv held "$gone"
    done
    # The last volume cut short: an archive that ends early, not a missing volume.
    cp "$last" held && truncate -s -1 "$last"
    "$FZ7" t -bd "$name.7z.001" >out.log 2>err.log
    rc=$?
    if [ $rc -eq 2 ] && ! grep -q "Missing volume" err.log; then ok; else bad "$name: cut last volume: rc=$rc $(cat err.log)"; fi
    mv held "$last"
}
check_set lz LZMA2
check_set cp Copy

# --- a split .xz (read by fz7's xz reader across the volumes, as 7zz
# reads it): one entry, named without the volume number and the suffix,
# its sizes listed; with a volume missing, t decodes up to the gap and
# says "Unexpected end of data" (7zz 26.02's line), exit 2 ---
if command -v xz >/dev/null; then
    xz -c -1 src/random.bin >random.bin.xz
    split -b 500000 -d -a 3 --numeric-suffixes=1 random.bin.xz random.bin.xz.
    rm -rf out_xz
    "$FZ7" x -bd -oout_xz random.bin.xz.001 >/dev/null 2>&1
    rc=$?
    if [ $rc -eq 0 ] && [ "$(ls out_xz)" = random.bin ] && cmp -s out_xz/random.bin src/random.bin; then
        ok
    else
        bad "split xz: rc=$rc, $(ls out_xz)"
    fi
    size=$("$FZ7" l -slt random.bin.xz.001 | sed -n 's/^Size = //p' | tail -n 1)
    [ "$size" = "$(stat -c %s src/random.bin)" ] && ok || bad "split xz: l -slt Size = $size"
    mkdir -p gap && cp random.bin.xz.001 random.bin.xz.002 gap/ 2>/dev/null
    if [ -e random.bin.xz.003 ]; then
        (cd gap && "$FZ7" t random.bin.xz.001 >../gap.out 2>&1); rc=$?
        [ $rc = 2 ] && grep -qx "ERROR: Unexpected end of data : random.bin" gap.out && ok ||
            bad "split xz, last volumes missing: rc=$rc, $(grep ERROR gap.out)"
    else
        bad "split xz: fewer than 3 volumes"
    fi
fi

# --- self-extractor: a stub (an ELF here) followed by an archive ---
stub=$(type -P true)
case $(head -c 4 "$stub" | od -An -c | tr -d ' ') in
    177ELF) ;;
    *) stub=$FZ7 ;;
esac
(cd src && 7zz a -bd -mx1 ../plain.7z . >/dev/null)
cat "$stub" plain.7z >sfx
chmod +x sfx
rm -rf out_sfx
"$FZ7" x -bd -oout_sfx sfx >x_sfx.log 2>&1
rc=$?
if [ $rc -eq 0 ] && diff -r src out_sfx >/dev/null; then ok; else bad "sfx: x rc=$rc or tree differs"; fi
stub_size=$(wc -c <"$stub")
if "$FZ7" l sfx | grep -qx "Offset = $stub_size" && "$FZ7" l sfx | grep -qx "Physical Size = $(wc -c <plain.7z)"; then
    ok
else
    bad "sfx: Offset/Physical Size lines"
fi
"$FZ7" l -slt sfx | sed -n '/^----------$/,$p' | slt_list >fz7_sfx.lst
7zz l -slt sfx | sed -n '/^----------$/,$p' | slt_list >7zz_sfx.lst
if [ -s fz7_sfx.lst ] && cmp -s fz7_sfx.lst 7zz_sfx.lst; then ok; else bad "sfx: l -slt differs from 7zz"; fi

# A stub that holds the signature bytes (and a start header with a bad
# CRC, and one whose next header lies past the end) but no archive.
python3 - "$stub" fake <<'PY'
import struct, sys, zlib
stub = open(sys.argv[1], "rb").read()
sig = b"7z\xbc\xaf\x27\x1c"
def start_header(off, size, good):
    body = struct.pack("<QQI", off, size, 0)
    crc = zlib.crc32(body) ^ (0 if good else 1)
    return sig + b"\x00\x04" + struct.pack("<I", crc) + body
blob = stub[:2000] + sig + stub[2000:4000] + start_header(10, 10, False) + stub[4000:] + \
       start_header(1 << 40, 64, True) + b"tail bytes\n"
open(sys.argv[2], "wb").write(blob)
PY
for f in fake "$FZ7"; do
    "$FZ7" l "$f" >out.log 2>err.log
    rc=$?
    if [ $rc -eq 2 ] && grep -q "Cannot open the file as archive" err.log; then ok; else bad "$f: rc=$rc $(cat err.log)"; fi
done

# Corpus archives behind the stub: the same listing and test result.
C=${FZ7_SHARED:-/nonexistent}/corpus/7z
if [ -f "$C/MANIFEST.tsv" ]; then
    n=0
    while IFS=$'\t' read -r arc pw expect methods; do
        case $arc in '#'*|'') continue ;; esac
        [ "$pw" = "-" ] && [ "$expect" = ok ] || continue
        # Same base name: a nameless entry is named after the archive.
        mkdir -p corpus_sfx && cat "$stub" "$C/$arc" >"corpus_sfx/$arc"
        "$FZ7" l -slt "$C/$arc" 2>/dev/null | sed -n '/^----------$/,$p' >a.lst
        "$FZ7" l -slt "corpus_sfx/$arc" 2>/dev/null | sed -n '/^----------$/,$p' >b.lst
        "$FZ7" t -bd "$C/$arc" >/dev/null 2>&1
        rc_a=$?
        "$FZ7" t -bd "corpus_sfx/$arc" >/dev/null 2>&1
        rc_b=$?
        if cmp -s a.lst b.lst && [ $rc_a -eq $rc_b ]; then ok; else bad "corpus $arc behind a stub: rc $rc_a vs $rc_b"; fi
        n=$((n + 1))
    done <"$C/MANIFEST.tsv"
    [ $n -gt 20 ] || bad "only $n corpus rows"
else
    echo "note: shared corpus missing, corpus SFX rows skipped"
fi

t_summary volumes.sh
