#!/usr/bin/env bash
# compound.sh - Compound File Binary files (.msi, .doc, .xls, .ppt: 7-Zip's
# Compound type) read as 7zz reads them: `l`, `l -slt`, `l -ba`, `t`, `x`
# and `e` give 7zz's lines (after the banner) and exit code, and `x`/`e`
# the same files (bytes, mtimes). The files come from mkcfb.py (fz7's own
# test writer: storages, mini and regular streams, 512- and 4096-byte
# sectors, DIFAT sectors, MSI-packed names, control characters, "..",
# 300 nested storages, directory cycles and orphans, damaged and cut
# files) and, when msitools and gcab are installed, from msibuild: a real
# .msi and one holding a .cab, which 7zz opens in the package's place.
set -u
. "$(dirname "$0")/lib.sh"
t_init 7zz python3

export LC_ALL=C.UTF-8 TZ=UTC
MK="$FZ7_TESTS_DIR/scripts/mkcfb.py"
[ -f "$MK" ] || MK="$(cd "$(dirname "$0")" && pwd)/mkcfb.py"

# Files, folders: type, size, mtime, path; then every file's SHA-256. A
# folder that x made without a time of its own (a parent of a
# [LONG_PATH] one) has the time of the run: "now" in both.
tree_sig() {
    [ -d "$1" ] || { echo none; return; }
    (cd "$1" && find . -mindepth 1 -printf '%y %s %T@ %p\n' | awk '$3 > 1700000000 && $1 == "d" { $3 = "now" } 1' | sort &&
        find . -type f -exec sha256sum {} + | sort -k2)
}

same_files() {
    local arc=$1 cmd want got
    for cmd in x e; do
        rm -rf w7 wf
        want=$(7zz "$cmd" "$arc" -ow7 -y 2>&1 | tail -n +4 | sed 's/w7/OUT/g'; echo "rc=${PIPESTATUS[0]}")
        got=$("$FZ7" "$cmd" "$arc" -owf -y 2>&1 | tail -n +4 | sed -e '/^  (in .*)$/d' -e 's/wf/OUT/g'
              echo "rc=${PIPESTATUS[0]}")
        same "$cmd $arc: output" "$got" "$want"
        same "$cmd $arc: files" "$(tree_sig wf)" "$(tree_sig w7)"
    done
}

all_vs() {
    local f
    for f in "$@"; do
        vs_7zz_d l "$f"
        vs_7zz_d l -slt "$f"
        vs_7zz_d l -ba "$f"
        vs_7zz_d t "$f"
        same_files "$f"
    done
}

for s in plain sect4k msi msi2cab doc xls ppt many empty names deep cycle selfson rootlink orphan twice; do
    python3 "$MK" "$s.cfb" "$s" || bad "mkcfb.py $s"
done
cp doc.cfb w.doc; cp xls.cfb w.xls; cp ppt.cfb w.ppt; cp msi2cab.cfb p.msi; cp msi.cfb nocab.msi
cp cycle.cfb cycle.msi

# Damaged: cut in the FAT's reach, cut inside the last stream, a tail, a
# header field 7-Zip refuses after the signature (Headers Error), a bad
# version (not a compound file), a FAT value that disagrees with its use.
python3 - <<'PY'
d = bytearray(open('plain.cfb', 'rb').read())
open('cut_data.cfb', 'wb').write(d[:len(d) - 700])
open('cut_last.cfb', 'wb').write(d[:len(d) - 100])
open('cut_head.msi', 'wb').write(d[:3000])
open('cut_head.cfb', 'wb').write(d[:3000])
open('tail.cfb', 'wb').write(d + b'tailtail' * 10)
b = bytearray(d); b[56] = 0x20; open('cutoff.msi', 'wb').write(b)
b = bytearray(d); b[26] = 5; open('version.msi', 'wb').write(b)
b = bytearray(d); b[512 + 4 * 40:512 + 4 * 41] = b'\xff\xff\xff\xff'; open('fatfree.doc', 'wb').write(b)
PY

all_vs plain.cfb sect4k.cfb msi2cab.cfb p.msi nocab.msi w.doc w.xls w.ppt many.cfb empty.cfb names.cfb deep.cfb \
       cycle.cfb cycle.msi selfson.cfb rootlink.cfb orphan.cfb twice.cfb \
       cut_data.cfb cut_last.cfb cut_head.msi cut_head.cfb tail.cfb cutoff.msi version.msi fatfree.doc

# Values, not only sameness with 7zz.
"$FZ7" l -slt p.msi >out.txt 2>&1
same "p.msi Type" "$(grep -c '^Type = Compound$' out.txt)" 1
same "p.msi Extension" "$(grep '^Extension' out.txt)" "Extension = msi"
same "p.msi decoded name" "$(grep -c '^Path = !_Tables$' out.txt)" 1
"$FZ7" l -slt sect4k.cfb >out.txt 2>&1
same "sect4k Cluster Size" "$(grep '^Cluster Size' out.txt)" "Cluster Size = 4096"
"$FZ7" l -slt w.doc >out.txt 2>&1
same "w.doc Extension" "$(grep '^Extension' out.txt)" "Extension = doc"
same "w.doc control name" "$(grep -c '^Path = \[1\]CompObj$' out.txt)" 1
rm -rf wf && "$FZ7" x plain.cfb -owf >/dev/null 2>&1
same "plain small.txt" "$(cat wf/small.txt)" "hello world"
same "plain storage" "$(cat wf/Dir/inner)" "in a storage"
same "plain slash" "$(cat wf/a_b:c)" "slash"
same "plain 1601 mtime" "$(stat -c %Y wf/small.txt)" "$(touch -d @-11644473600 t1601 && stat -c %Y t1601)"
same "plain Dir mtime" "$(stat -c %Y wf/Dir)" 1655526400
expect_rc 0 "t plain.cfb" "$FZ7" t plain.cfb
expect_rc 2 "t cut_data.cfb" "$FZ7" t cut_data.cfb
expect_rc 2 "l cycle.msi" "$FZ7" l cycle.msi
same "cycle.msi Headers Error" "$(grep -c '^Headers Error$' err.txt)" 1

# Names that try to leave the output folder stay in it.
mkdir -p box && rm -rf box/out && "$FZ7" x names.cfb -obox/out -y >/dev/null 2>&1
same "names: nothing outside" "$(find box -mindepth 1 -maxdepth 1)" "box/out"
same "names: esc in its storage" "$(find box/out -name esc | wc -l)" 1

# Formats list: 7zz's name, extensions and signature.
same "fz7 i Compound" "$("$FZ7" i | grep -o ' Compound  *msi msp msm doc xls ppt aaf  *D0 CF 11 E0 A1 B1 1A E1$' | tr -s ' ')" \
    " Compound msi msp msm doc xls ppt aaf D0 CF 11 E0 A1 B1 1A E1"

# msibuild's own .msi files, one with a .cab that 7zz (and fz7) open in its place.
if command -v msibuild >/dev/null && command -v gcab >/dev/null; then
    mkdir -p cabsrc && echo one >cabsrc/one.txt &&
        python3 -c "import random; r=random.Random(3); open('cabsrc/two.bin','wb').write(bytes(r.getrandbits(8) for _ in range(20000)))"
    touch -d '2024-02-03 04:05:06' cabsrc/one.txt cabsrc/two.bin
    (cd cabsrc && gcab -c -z ../t.cab one.txt two.bin) && echo hello >h.txt &&
        python3 -c "import random; r=random.Random(4); open('big.bin','wb').write(bytes(r.getrandbits(8) for _ in range(100000)))"
    rm -f a.msi c.msi
    msibuild a.msi -s "Test" "fz7" "Intel;1033" "{11111111-2222-3333-4444-555555555555}" &&
        msibuild a.msi -q 'CREATE TABLE `Foo` (`Name` CHAR(72) NOT NULL PRIMARY KEY `Name`)' &&
        msibuild a.msi -q "INSERT INTO \`Foo\` (\`Name\`) VALUES ('abc')" &&
        msibuild a.msi -a Binary.data big.bin && msibuild a.msi -a hello h.txt || bad "msibuild a.msi"
    msibuild c.msi -s "Cab" "fz7" "Intel;1033" "{11111111-2222-3333-4444-555555555555}" &&
        msibuild c.msi -a disk1.cab t.cab || bad "msibuild c.msi"
    # the .cab in scattered sectors, in the mini stream, and empty
    CAB=t.cab python3 "$MK" frag.msi msicabfrag && (cd cabsrc && gcab -c ../small.cab one.txt) &&
        CAB=small.cab python3 "$MK" mini.msi msicabmini && python3 "$MK" nocab0.msi msicabempty || bad "mkcfb.py cab"
    all_vs a.msi c.msi frag.msi mini.msi nocab0.msi
    "$FZ7" l c.msi >out.txt 2>&1
    same "c.msi: the cab's files" "$(grep -c -E ' (one.txt|two.bin)$' out.txt)" 2
    "$FZ7" l frag.msi >out.txt 2>&1
    same "frag.msi: the cab's files" "$(grep -c -E ' (one.txt|two.bin)$' out.txt)" 2
    note=""
else
    echo "SKIP: msibuild or gcab not installed: the msibuild .msi checks"
    note="(msibuild checks skipped)"
fi

t_summary compound.sh "$note"
