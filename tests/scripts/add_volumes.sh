#!/bin/bash
# add_volumes.sh - `fz7 a -v{Size}` writes volumes name.001, name.002, ...
# of exactly the sizes asked (the last -v repeats, the last volume holds
# the rest); joined they are byte for byte the single archive fz7 writes
# with the same switches, and fz7 (and 7zz, when installed) read them
# through .001. Refused as 7zz refuses: an existing archive or volume set,
# -so, a bad size (exit 7); a volume that exists or a write that fails
# leaves no volume of this run behind.
set -u
[ -n "${FZ7:-}" ] && [ -x "$FZ7" ] || { echo "SKIP: FZ7 does not point to the fz7 binary"; exit 77; }
S="${FZ7_SCRATCH:-$(mktemp -d)}"
rm -rf "$S"; mkdir -p "$S"
cd "$S" || exit 1

fail() { echo "FAIL: $*" >&2; exit 1; }
checks=0

# A tree of compressible text, random bytes and an empty file (about 70 KB).
mkdir -p src/sub
seq 1 6000 >src/sub/numbers.txt
head -c 30000 /dev/urandom >src/random.bin
: >src/empty
printf 'hello\n' >src/a.txt

# sizes_of PREFIX: the sizes of PREFIX.001, PREFIX.002, ... in order.
sizes_of() {
    local k=1 f out=""
    while f=$(printf '%s.%03d' "$1" "$k") && [ -f "$f" ]; do
        out="$out $(stat -c %s "$f")"; k=$((k + 1))
    done
    echo "${out# }"
}

# cut_sizes TOTAL SIZES... : the volume sizes a cut of TOTAL bytes gives.
cut_sizes() {
    local total=$1; shift
    local at=0 i=0 n=$# out="" v
    local -a s=("$@")
    while :; do
        v=${s[$((i < n ? i : n - 1))]}
        if [ $((total - at)) -le "$v" ]; then out="$out $((total - at))"; break; fi
        out="$out $v"; at=$((at + v)); i=$((i + 1))
    done
    echo "${out# }"
}

# volcase NAME "VOLUME SWITCHES" "BYTES..." OTHER SWITCHES...
volcase() {
    local name=$1 vsw=$2 bytes=$3; shift 3
    rm -rf "$name" && mkdir "$name" || exit 1
    "$FZ7" a -bd "$@" "$name/one.7z" src >"$name/log1" 2>&1 || { cat "$name/log1"; fail "$name: single"; }
    # shellcheck disable=SC2086
    "$FZ7" a -bd $vsw "$@" "$name/v.7z" src >"$name/log2" 2>&1 || { cat "$name/log2"; fail "$name: volumes"; }
    cat "$name"/v.7z.[0-9][0-9][0-9] | cmp -s - "$name/one.7z" || fail "$name: joined volumes differ from the single archive"
    local total; total=$(stat -c %s "$name/one.7z")
    # shellcheck disable=SC2086
    [ "$(sizes_of "$name/v.7z")" = "$(cut_sizes "$total" $bytes)" ] ||
        fail "$name: volume sizes $(sizes_of "$name/v.7z"), not $(cut_sizes "$total" $bytes)"
    local n; n=$(cut_sizes "$total" $bytes | wc -w)
    grep -qx "Volumes: $n" "$name/log2" || fail "$name: no 'Volumes: $n' line"
    [ -e "$name/v.7z" ] && fail "$name: a v.7z beside the volumes"
    "$FZ7" t "$name/v.7z.001" >/dev/null 2>&1 || fail "$name: fz7 t v.7z.001"
    "$FZ7" x -bd -o"$name/out" "$name/v.7z.001" >/dev/null 2>&1 || fail "$name: fz7 x v.7z.001"
    diff -r src "$name/out/src" >/dev/null || fail "$name: extracted tree differs"
    if command -v 7zz >/dev/null 2>&1; then
        7zz x -o"$name/out7" "$name/v.7z.001" >/dev/null 2>&1 || fail "$name: 7zz x v.7z.001"
        diff -r src "$name/out7/src" >/dev/null || fail "$name: 7zz extracts another tree"
    fi
    checks=$((checks + 1))
}

volcase k1 "-v1k" "1024" -mx1 -mmt1
volcase b1000 "-v1000" "1000" -mx5
volcase k2k1 "-v2k -v1k" "2048 1024" -mx1
volcase three "-v1k -v2k -v3k" "1024 2048 3072" -mx1 -mmt2
volcase bigger "-v1g" "1073741824" -mx1
volcase unit "-v10K" "10240" -mx0

# xz: the one stream cut the same way.
"$FZ7" a -bd -txz -mx1 one.xz src/sub/numbers.txt >/dev/null || fail "xz single"
"$FZ7" a -bd -txz -mx1 -v2k v.xz src/sub/numbers.txt >/dev/null || fail "xz volumes"
cat v.xz.[0-9][0-9][0-9] | cmp -s - one.xz || fail "xz: joined volumes differ"
[ "$(sizes_of v.xz)" = "$(cut_sizes "$(stat -c %s one.xz)" 2048)" ] || fail "xz: volume sizes $(sizes_of v.xz)"
checks=$((checks + 1))

# Refusals, each leaving what was there as it was.
mkdir r && cd r || exit 1
cp -a ../src .
"$FZ7" a -bd old.7z src >/dev/null || fail "making old.7z"
cp old.7z old.keep
"$FZ7" a -bd -v1k old.7z src >out 2>err; rc=$?
[ "$rc" = 2 ] && grep -qx 'The file already exists' out && cmp -s old.7z old.keep &&
    [ -z "$(ls old.7z.* 2>/dev/null)" ] || fail "a -v1k over an archive: exit $rc"
"$FZ7" u -bd -v1k old.7z src >out 2>err; rc=$?
[ "$rc" = 2 ] && grep -qx 'The file already exists' out && cmp -s old.7z old.keep || fail "u -v1k: exit $rc"
"$FZ7" rn -bd -v1k old.7z src/a.txt src/b.txt >out 2>err; rc=$?
[ "$rc" = 2 ] && [ "$(cat err)" = "$(printf '\n\nERROR:\ncan'"'"'t find archive')" ] && cmp -s old.7z old.keep ||
    fail "rn -v1k: exit $rc, not 7zz's end"
echo x >set.7z.001
"$FZ7" a -bd -v1k set.7z src >out 2>err; rc=$?
[ "$rc" = 2 ] && grep -qx 'Updating for multivolume archives is not implemented' out &&
    [ "$(cat set.7z.001)" = x ] || fail "a -v1k over a volume set: exit $rc"
echo x >mid.7z.003
"$FZ7" a -bd -mx0 -v1k mid.7z src >out 2>err; rc=$?
[ "$rc" = 2 ] && grep -qx 'errno=17 : File exists' err && [ "$(cat mid.7z.003)" = x ] &&
    [ "$(ls mid.7z.* | tr '\n' ' ')" = "mid.7z.003 " ] || fail "a -v1k with .003 there: exit $rc, $(ls mid.7z.*)"
"$FZ7" a -bd -v1k -so -txz x.xz src/a.txt >out 2>err; rc=$?
[ "$rc" = 2 ] && grep -qx 'E_FAIL : Unspecified error' err || fail "a -v1k -so: exit $rc"
for bad in x 1kb 1.5k -1; do
    "$FZ7" a -bd "-v$bad" bad.7z src >out 2>err; rc=$?
    [ "$rc" = 7 ] && [ "$(cat err)" = "$(printf '\n\nCommand Line Error:\nIncorrect volume size:\n%s' "$bad")" ] ||
        { cat err; fail "a -v$bad: exit $rc or not 7zz's text"; }
done
"$FZ7" a -bd -v1k -v0 bad.7z src >out 2>err; rc=$?
[ "$rc" = 7 ] && grep -qx 'zero size last volume is not allowed' err || fail "a -v1k -v0: exit $rc"
[ -z "$(ls bad.7z* 2>/dev/null)" ] || fail "a bad -v wrote $(ls bad.7z*)"
# A write that fails before the cut (ulimit -f below the archive's size:
# EFBIG) leaves neither volumes nor the temporary archive; a cut that
# fails midway is the mid.7z.003 case above (.001 and .002 made, removed).
(ulimit -f 40 && "$FZ7" a -bd -mx0 -v16k full.7z src >out 2>err); rc=$?
[ "$rc" = 2 ] || fail "a -v16k over ulimit -f: exit $rc, not 2"
[ -z "$(ls -A | grep -E '^full\.7z')" ] || fail "a -v16k over ulimit -f left $(ls -A | grep full)"
cd .. || exit 1
checks=$((checks + 9))

# l, l -slt and t on a volume set show 7zz's Split block (the first
# volume's size, the volume count, the joined size) before the 7z block,
# which names the set without .001; l adds 7zz's Archives/Volumes/Total
# archives size lines after more than one volume, not after a set of one.
mkdir -p lv && cd lv || exit 1
printf 'hello\n' >a.txt && head -c 5000 /dev/urandom >r.bin
"$FZ7" a -bd -mx0 -v2k set.7z a.txt r.bin >/dev/null 2>&1 || fail "a -v2k for l"
v1=$(stat -c %s set.7z.001); tot=$(cat set.7z.0* | wc -c); nv=$(ls set.7z.0* | wc -l)
[ "$v1" = 2048 ] && [ "$nv" = 3 ] || fail "a -mx0 -v2k: $nv volumes, the first $v1 bytes"
split_block="--|Path = set.7z.001|Type = Split|Physical Size = 2048|Volumes = 3|Total Physical Size = $tot|----|Path = set.7z|Size = $tot|--|Path = set.7z|Type = 7z|Physical Size = $tot|"
for c in l "l -slt" t; do
    "$FZ7" $c set.7z.001 >out 2>err; rc=$?
    [ "$rc" = 0 ] && [ ! -s err ] || fail "$c set.7z.001: exit $rc"
    [ "$(awk '/^--$/ { on = 1 } on { print } /^Physical Size/ && on && ++n == 2 { exit }' out | tr '\n' '|')" = "$split_block" ] ||
        { cat out; fail "$c set.7z.001: not 7zz's Split block"; }
done
"$FZ7" l set.7z.001 >out 2>&1
[ "$(tail -n 4 out | tr '\n' '|')" = "|Archives: 1|Volumes: 3|Total archives size: $tot|" ] ||
    { cat out; fail "l set.7z.001: no Archives/Volumes/Total lines"; }
[ "$(grep -c '  2 files$' out)" = 2 ] || fail "l set.7z.001: the totals line is not printed twice, as 7zz"
"$FZ7" l -slt set.7z.001 >out 2>&1
grep -q '^Archives: ' out && fail "l -slt set.7z.001 printed the Archives lines (7zz does not)"
"$FZ7" a -bd -v100k one.7z a.txt >/dev/null 2>&1 && [ -f one.7z.001 ] && [ ! -e one.7z.002 ] || fail "a -v100k: one volume"
one=$(stat -c %s one.7z.001)
"$FZ7" l one.7z.001 >out 2>&1
[ "$(sed -n '/^--$/,/^Size = /p; /^Size = /q' out | tr '\n' '|')" = "--|Path = one.7z.001|Type = Split|Physical Size = $one|Volumes = 1|Total Physical Size = $one|----|Path = one.7z|Size = $one|" ] ||
    { cat out; fail "l one.7z.001: Split block of a set of one"; }
grep -q '^Archives: ' out && fail "l one.7z.001 printed the Archives lines (7zz does not for one volume)"
if command -v 7zz >/dev/null; then
    for c in l "l -slt" t; do
        cmp -s <(7zz $c set.7z.001 | tail -n +4) <("$FZ7" $c set.7z.001 | tail -n +4) ||
            fail "$c set.7z.001: output differs from 7zz's"
    done
fi
cd .. || exit 1
checks=$((checks + 12))

echo "add_volumes: $checks checks passed"
