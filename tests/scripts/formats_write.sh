#!/usr/bin/env bash
# formats_write.sh - what `a` writes for an archive name's extension or -t,
# beside 7zz 26.02: tar and zip of a tree read back byte for byte by 7zz,
# bsdtar, tar and unzip; gzip/bzip2 of one file by gzip/bzip2/7zz, and 7zz's
# own tar/zip/gz/bz2 read by fz7; a .tar.gz/.tgz of a folder, wim/cab/lzma
# and an unknown -t are refused with 7zz's exit code; -t checks the type on
# l/t/x as 7zz does; an existing tar is updated. `h` prints 7zz's table and
# sums (after the banner) for a tree, -scrc*, single files and folders;
# .lz files made by lzip (one and several members, from a pipe, damaged)
# are read by x/t/l; the RISC-V filter written as 7zz writes it, and
# ARM64/RISCV with 7zz's start offset.
set -u
. "$(dirname "$0")/lib.sh"
t_init 7zz bsdtar python3
export LC_ALL=C.UTF-8
check() { if eval "$2"; then ok; else bad "$1"; fi; }

mkdir -p dir/sub/deep dir/empty "dir/ünï"
python3 - <<'PY'
import random
r = random.Random(22)
open("dir/random.bin", "wb").write(r.randbytes(200_000))
open("dir/sub/numbers.txt", "w").write("".join(f"{i}\n" for i in range(50000)))
open("dir/sub/deep/a.txt", "w").write("hello\n")
open("dir/ünï/名前.txt", "w").write("grüße\n")
open("dir/zero", "w").close()
PY
tree_sig() { (cd "$1" && find . -mindepth 1 \( -type f -printf '%p f %m %s\n' -o -type d -printf '%p d\n' \) | LC_ALL=C sort; \
              find . -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum); }
tree_sig dir >src.sig

# --- tar and zip of a tree, read back by other tools ---
"$FZ7" a -bd t1.tar dir >/dev/null 2>&1; rc=$?
check "a t1.tar rc=$rc" "[ $rc -eq 0 ] && [ \"\$(head -c 262 t1.tar | tail -c 5)\" = ustar ]"
mkdir -p r_tar && tar -xf t1.tar -C r_tar 2>/dev/null
check "tar reads fz7's tar" "tree_sig r_tar/dir | cmp -s - src.sig"
mkdir -p r_7t && 7zz x -y -or_7t t1.tar >/dev/null 2>&1
check "7zz reads fz7's tar" "tree_sig r_7t/dir | cmp -s - src.sig"
"$FZ7" a -bd -mx9 t2.zip dir >/dev/null 2>&1; rc=$?
check "a t2.zip rc=$rc" "[ $rc -eq 0 ] && [ \"\$(head -c 2 t2.zip)\" = PK ]"
mkdir -p r_7z && 7zz x -y -or_7z t2.zip >/dev/null 2>&1
check "7zz reads fz7's zip" "tree_sig r_7z/dir | cmp -s - src.sig"
mkdir -p r_bz && bsdtar -xf t2.zip -C r_bz 2>/dev/null
check "bsdtar reads fz7's zip" "tree_sig r_bz/dir | cmp -s - src.sig"
"$FZ7" a -bd -mx0 t3.zip dir/sub/numbers.txt >/dev/null 2>&1
check "-mx0 zip is stored" "[ \$(stat -c %s t3.zip) -gt 288890 ]"
"$FZ7" a -bd -ttar t4 dir >/dev/null 2>&1
check "-ttar adds .tar" "[ -f t4.tar ] && 7zz t t4.tar >/dev/null 2>&1"
"$FZ7" a -bd -tzip t5.bin dir >/dev/null 2>&1
check "-tzip wins over the name" "[ \"\$(head -c 2 t5.bin)\" = PK ]"

# --- one-file formats ---
f=dir/sub/numbers.txt
for spec in "g1.gz:gzip -dc" "g2.tgz:gzip -dc" "b1.bz2:bzip2 -dc" "b2.tbz2:bzip2 -dc" \
            "g3.gz:7zz x -so" "b3.bz2:7zz x -so"; do
    name=${spec%%:*}; reader=${spec#*:}
    "$FZ7" a -bd "$name" $f >/dev/null 2>&1; rc=$?
    check "a $name rc=$rc, read by $reader" "[ $rc -eq 0 ] && $reader $name 2>/dev/null | cmp -s - $f"
done
"$FZ7" a -bd -tgzip g4 $f >/dev/null 2>&1
check "-tgzip adds .gz" "gzip -dc g4.gz | cmp -s - $f"
# gzip's header names the file (FNAME, its base name), as 7zz and gzip -N do
same "gzip stores the file's name" "$(gzip -lN g1.gz | awk 'NR==2 {print $NF}')" numbers.txt
# a nightly `a x.gz file` replaces the file, as 7zz does; another file is refused
printf 'new data\n' >g_new.txt && mkdir -p gdir && cp g_new.txt gdir/numbers.txt
"$FZ7" a -bd g1.gz gdir/numbers.txt >out.txt 2>&1; rc=$?
check "a g1.gz with its file again: rc=$rc, replaced" "[ $rc -eq 0 ] && gzip -dc g1.gz | cmp -s - g_new.txt && grep -q '^Updating archive: g1.gz' out.txt"
cp g1.gz g1.before
"$FZ7" a -bd g1.gz g_new.txt >/dev/null 2>&1; rc=$?
check "a g1.gz with another file: rc=$rc, g1.gz kept" "[ $rc -eq 2 ] && cmp -s g1.gz g1.before"
"$FZ7" a -bd -tbzip2 -so x $f 2>/dev/null >s1.bz2
check "-tbzip2 -so" "bzip2 -dc s1.bz2 | cmp -s - $f"
# gzip is fz7's own Deflate: the header holds the file's mtime (none with
# -mtm=off) and XFL 2 from -mx7, as 7zz writes them; Deflate's parameters
# apply (the shortest path beats the fast parse on these numbered lines,
# which 7zz -mx5 packs into 98,735 B) and gzip reads every one back
touch -d '2024-01-02 03:04:05' $f
mtime_hex() { od -An -tx1 -j4 -N5 "$1" | tr -d ' \n'; }
"$FZ7" a -bd gm.gz $f >/dev/null 2>&1
same "gzip MTIME and XFL at -mx5" "$(mtime_hex gm.gz)" 257d936504
"$FZ7" a -bd -mx9 -mtm=off gm0.gz $f >/dev/null 2>&1
same "gzip -mtm=off -mx9: MTIME 0, XFL 2" "$(mtime_hex gm0.gz)" 0000000002
declare -A gsize
for m in "-mx1" "-mx5" "-mx9" "-ma=0" "-mfb=3" "-mpass=4 -mmc=64 -mfb=258" "-mx1 -ma=1" "-mmt4 -mm=BZip2"; do
    rm -f gp.gz
    "$FZ7" a -bd $m gp.gz $f >/dev/null 2>&1; rc=$?
    check "gzip $m rc=$rc, gzip -dc reads it" "[ $rc -eq 0 ] && gzip -dc gp.gz | cmp -s - $f"
    gsize[$m]=$(stat -c %s gp.gz)
done
check "gzip -mx5 (${gsize[-mx5]} B) beats -ma=0 (${gsize[-ma=0]} B) and -mx1 (${gsize[-mx1]} B)" \
    "[ ${gsize[-mx5]} -lt ${gsize[-ma=0]} ] && [ ${gsize[-mx5]} -lt ${gsize[-mx1]} ] && [ ${gsize[-mx5]} -lt 100000 ]"
check "gzip -mpass=4 (${gsize[-mpass=4 -mmc=64 -mfb=258]} B) no larger than -mx5" "[ ${gsize[-mpass=4 -mmc=64 -mfb=258]} -le ${gsize[-mx5]} ]"
check "gzip -mm= is ignored, as by 7zz" "[ ${gsize[-mmt4 -mm=BZip2]} -eq ${gsize[-mx5]} ]"
# zip with -p: ZipCrypto, or AES with -mem=, as 7zz writes it; 7zz reads it
for em in "" -mem=AES256 -mem=AES128 -mem=ZipCrypto; do
    rm -f zp.zip
    "$FZ7" a -bd -psecret $em zp.zip dir >/dev/null 2>&1; rc=$?
    want=$(case $em in *AES256) echo AES-256 ;; *AES128) echo AES-128 ;; *) echo ZipCrypto ;; esac)
    rm -rf zpx && mkdir zpx && 7zz x -psecret -ozpx zp.zip >/dev/null 2>&1
    check "zip -p $em rc=$rc: $want, 7zz extracts it" "[ $rc -eq 0 ] && tree_sig zpx/dir | cmp -s - src.sig && 7zz l -slt zp.zip | grep -q '^Method = $want Deflate' && ! 7zz t -pwrong zp.zip >/dev/null 2>&1"
done
"$FZ7" a -bd -psecret -mem=AES192 zq.zip dir >zq.out 2>&1; rc=$?
check "zip -mem=AES192: rc=$rc, AES-192 entries 7zz tests" \
    "[ $rc -eq 0 ] && 7zz l -slt -psecret zq.zip | grep -q '^Method = AES-192 ' && 7zz t -psecret zq.zip >/dev/null 2>&1"
# Encrypted, Deflate64, BZip2, LZMA, xz and PPMd zips with a symbolic link,
# made by 7zz and by fz7, read back by the other: libarchive cannot read
# Deflate64 nor decrypt BZip2, LZMA or xz, hands over a ZipCrypto link's target still
# encrypted and fails an AES link's header, so fz7 decodes those entries
# itself (libarchive_read.c zip_own), and PPMd with its own var.I codec
mkdir -p zl && cp -a dir zl/ && ln -s sub/deep/a.txt zl/dir/link
for em in "" -mem=ZipCrypto -mem=AES128 -mem=AES256; do
    for mm in Deflate Deflate64 BZip2 LZMA xz PPMd; do
        for maker in 7zz fz7; do
            m=$maker; [ "$maker" = fz7 ] && m=$FZ7
            rm -rf zlx zl.zip
            pw=; [ -n "$em" ] && pw=-psecret
            (cd zl && "$m" a -bd -snl $pw $em -mm=$mm ../zl.zip dir >/dev/null 2>&1)
            if [ "$maker" = 7zz ]; then
                "$FZ7" x -bd -snl $pw -ozlx zl.zip >/dev/null 2>&1; rc=$?
            else
                7zz x -bd -snl $pw -ozlx zl.zip >/dev/null 2>&1; rc=$?
            fi
            check "zip ${em:-(none)} $mm by $maker, read by the other: rc=$rc, the tree and its link" \
                "[ $rc -eq 0 ] && [ \"\$(readlink zlx/dir/link)\" = sub/deep/a.txt ] && rm zlx/dir/link && tree_sig zlx/dir | cmp -s - src.sig"
            if [ -n "$em" ]; then
                "$FZ7" t -bd -pwrong zl.zip >/dev/null 2>&1; rc=$?
                check "zip $em $mm by $maker, fz7 t with a wrong password: rc=$rc" "[ $rc -eq 2 ]"
            fi
        done
    done
done

# PPMd (var.I) in a zip: 7zz's bytes at each level (order 3 + level, the
# model shrunk to the largest file, cut off from -mx7) and with o=, mem=
for m in -mx1 -mx3 -mx5 -mx7 -mx9 "-mx9 -mo=16 -mmem=1m" "-mx5 -mo=2" "-mx7 -mmem=24" "-mx0"; do
    rm -f zp7.zip zpf.zip
    # shellcheck disable=SC2086
    (7zz a -bd -tzip -mm=PPMd $m zp7.zip dir >/dev/null 2>&1 &&
        "$FZ7" a -bd -tzip -mm=PPMd $m zpf.zip dir >/dev/null 2>&1); rc=$?
    check "zip -mm=PPMd $m: rc=$rc, 7zz's bytes" "[ $rc -eq 0 ] && cmp -s zp7.zip zpf.zip"
done

# A damaged PPMd entry: its stream cut, a byte after its end marker, an
# end marker before the size (7zz: Unexpected end of data); fz7 reports
# what 7zz reports for each, exit 2
# A Deflate entry cut to nothing (libarchive decodes no byte and checks no
# CRC: fz7 once padded it with zeros, exit 0) or to half, an LZMA entry
# whose end marker is cut, followed or early: a Data Error too
7zz a -bd -tzip -mm=PPMd zpd.zip dir/sub/numbers.txt >/dev/null 2>&1
7zz a -bd -tzip -mm=Deflate zdd.zip dir/sub/numbers.txt >/dev/null 2>&1
7zz a -bd -tzip -mm=LZMA zld.zip dir/sub/numbers.txt >/dev/null 2>&1
python3 - <<'PY'
import struct
for arc, pre in (("zdd.zip", "zdd"), ("zld.zip", "zld"), ("zpd.zip", "zpd")):
    src = open(arc, "rb").read()
    ver, flg, meth, tm, dt, crc, cs, us, nl, xl = struct.unpack("<HHHHHIIIHH", src[4:30])
    name, data = src[30:30 + nl], src[30 + nl + xl:30 + nl + xl + cs]
    def build(out, d, size=us):
        lh = struct.pack("<IHHHHHIIIHH", 0x04034B50, ver, flg, meth, tm, dt, crc, len(d), size, nl, 0) + name
        cd = struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 63, ver, flg, meth, tm, dt, crc, len(d), size, nl,
                         0, 0, 0, 0, 0, 0) + name
        open(out, "wb").write(lh + d + cd + struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, 1, 1, len(cd), len(lh) + len(d), 0))
    if pre == "zdd":
        build("zdd_empty.zip", b""); build("zdd_cut.zip", data[:len(data) // 2])
        continue
    if pre == "zld":   # LZMA with its end marker (bit 1): cut, a byte after it, a size past it
        build("zld_cut1.zip", data[:-1]); build("zld_extra.zip", data + b"\0"); build("zld_long.zip", data, us + 1)
        continue
    build("zpd_cut1.zip", data[:-1]); build("zpd_cut.zip", data[:len(data) // 2]); build("zpd_props.zip", data[:2])
    build("zpd_extra.zip", data + b"\0"); build("zpd_long.zip", data, us + 1)
PY
for z in zdd_empty zdd_cut zld_cut1 zld_extra zld_long zpd_cut1 zpd_cut zpd_props zpd_extra zpd_long; do
    7zz t $z.zip >t7.txt 2>&1; r7=$?
    "$FZ7" t $z.zip >tf.txt 2>&1; rf=$?
    e7=$(grep -oE 'Data Error|Unexpected end of data|CRC Failed' t7.txt | sort -u)
    ef=$(grep -oE 'Data Error|Unexpected end of data|CRC Failed' tf.txt | sort -u)
    check "t $z.zip: fz7 exit $rf '$ef', 7zz exit $r7 '$e7'" "[ $rf = 2 ] && [ $r7 = 2 ] && [ -n \"$e7\" ] && [ \"$ef\" = \"$e7\" ]"
done

# -mmt and -mcp, which tar takes and ignores as 7zz does
"$FZ7" a -bd tr.tar dir >/dev/null 2>&1
"$FZ7" a -bd -mmt4 -mcp=65001 -mtc=on tm.tar dir >/dev/null 2>&1; rc=$?
check "tar -mmt4 -mcp=65001 -mtc=on rc=$rc: the same tar" "[ $rc -eq 0 ] && cmp -s tm.tar tr.tar"

# `i` marks E on every method fz7 writes, and a 7z of each is read by 7zz
"$FZ7" i >info.txt 2>&1
for m in Copy LZMA LZMA2 PPMD BZip2 Deflate Deflate64; do
    rm -f im.7z
    "$FZ7" a -bd -m0=$m im.7z $f >/dev/null 2>&1; rc=$?
    check "i lists $m as an encoder; a -m0=$m rc=$rc, 7zz tests it" \
        "grep -Eq '^   .ED.? +[0-9A-F]+ $m\$' info.txt && [ $rc -eq 0 ] && 7zz t im.7z >/dev/null 2>&1"
done

# --- refusals, exit codes as 7zz's ---
for spec in "x1.tar.gz dir" "x2.tgz dir" "x3.gz dir" "x4.bz2 dir" "x5.txz dir" \
            "x7.cab $f" "x8.lzma $f" "x9.zst $f" "-tfoo x11 $f" "-tgz x12 $f"; do
    "$FZ7" a -bd $spec >fz.out 2>fz.err; a=$?
    7zz a -bd $(echo "$spec" | sed 's/^x/z/; s/ x/ z/') >z.out 2>z.err; b=$?
    check "a $spec: fz7 rc=$a 7zz rc=$b" "[ $a -eq $b ] && [ $a -eq 2 ]"
    n=$(echo "$spec" | awk '{print $(NF-1)}')
    check "a $spec wrote nothing" "! ls ${n}* >/dev/null 2>&1"
    check "a $spec: 7zz's error line" "[ \"\$(grep -v '^\$' fz.err | tail -1)\" = \"\$(grep -v '^\$' z.err | tail -1)\" ] || grep -q E_INVALIDARG fz.err"
done

# wim: 7zz writes it, fz7 does not: refused as 7zz refuses cab (E_NOTIMPL).
for spec in "x6.wim dir" "-twim x10 $f"; do
    "$FZ7" a -bd $spec >/dev/null 2>fz.err; a=$?
    check "a $spec: rc=$a, E_NOTIMPL, nothing written" "[ $a -eq 2 ] && grep -qx 'E_NOTIMPL : Not implemented' fz.err && ! ls x6* x10* >/dev/null 2>&1"
done

# --- 7zz's files read by fz7, -t on reading ---
7zz a -bd z1.tar dir >/dev/null 2>&1; 7zz a -bd z2.zip dir >/dev/null 2>&1
7zz a -bd z3.gz $f >/dev/null 2>&1; 7zz a -bd z4.bz2 $f >/dev/null 2>&1
mkdir -p f1 f2
"$FZ7" x -bd -y -ttar -of1 z1.tar >/dev/null 2>&1; check "fz7 -ttar x 7zz's tar" "tree_sig f1/dir | cmp -s - src.sig"
"$FZ7" x -bd -y -tzip -of2 z2.zip >/dev/null 2>&1; check "fz7 -tzip x 7zz's zip" "tree_sig f2/dir | cmp -s - src.sig"
check "fz7 -tgzip 7zz's gz" "\"$FZ7\" x -tgzip -so z3.gz 2>/dev/null | cmp -s - $f"
check "fz7 -tbzip2 7zz's bz2" "\"$FZ7\" x -tbzip2 -so z4.bz2 2>/dev/null | cmp -s - $f"
for spec in "-tzip z1.tar" "-ttar z2.zip" "-tgzip z4.bz2" "-t7z z1.tar"; do
    "$FZ7" t -bd $spec >/dev/null 2>&1; a=$?; 7zz t -bd $spec >/dev/null 2>&1; b=$?
    check "t $spec: fz7 rc=$a 7zz rc=$b" "[ $a -eq $b ] && [ $a -eq 2 ]"
done
"$FZ7" l -tfoo z1.tar >/dev/null 2>fz.err; a=$?
check "l -tfoo rc=$a" "[ $a -eq 2 ] && grep -qx 'Unsupported archive type' fz.err"

# --- updating a tar ---
cp t1.tar up.tar
echo new >new.txt
"$FZ7" a -bd up.tar new.txt >/dev/null 2>&1; rc=$?
check "update tar rc=$rc" "[ $rc -eq 0 ] && tar -tf up.tar | grep -qx new.txt && [ \$(tar -tf up.tar | wc -l) -eq \$((\$(tar -tf t1.tar | wc -l) + 1)) ]"

# --- h: 7zz's output after the banner ---
hcmp() {
    "$FZ7" h "$@" >h1 2>&1; a=$?
    7zz h "$@" >h2 2>&1; b=$?
    local skip1=4 skip2=4
    case " $* " in *" -ba "*) skip1=1 skip2=1 ;; esac
    check "h $*: rc $a/$b, same lines" "[ $a -eq $b ] && diff <(tail -n +$skip1 h1) <(tail -n +$skip2 h2) >/dev/null"
}
hcmp dir
hcmp '-scrc*' dir
hcmp -scrcSHA256 dir/random.bin dir/sub/numbers.txt
hcmp -scrcsha1 -scrcCRC64 -scrcXXH64 -scrcMD5 dir/sub
hcmp -scrcSHA3-256 -scrcSHA512 -scrcSHA384 $f
hcmp dir/empty
hcmp -ba -scrcCRC32 dir
hcmp -scrcBLAKE2SP $f
# A name given again in one folder is hashed again; one under a folder named
# is not; absolute names are a tree of their own (7zz's rules).
hcmp -ba $f $f
hcmp dir/sub dir/empty dir/sub
hcmp $f dir/sub $f
hcmp "$PWD/$f" "$PWD/$f" $f
check "h -ba of a name given twice: two lines" "[ \"\$(\"$FZ7\" h -ba $f $f | cut -c1-8 | uniq -c | awk '{print \$1}')\" = 2 ]"
check "h CRC32 of numbers.txt" "\"$FZ7\" h -ba $f | grep -q \"^\$(python3 -c 'import zlib;print(\"%08X\"%zlib.crc32(open(\"$f\",\"rb\").read()))') \""

# --- lzip ---
if command -v lzip >/dev/null; then
    cat dir/random.bin dir/sub/numbers.txt >both.bin
    lzip -k -c dir/random.bin >l1.lz; lzip -c -0 dir/sub/numbers.txt >l2.lz
    cat l1.lz l2.lz >multi.lz
    check "x -so one member" "\"$FZ7\" x -so l1.lz 2>/dev/null | cmp -s - dir/random.bin"
    check "x -so two members" "\"$FZ7\" x -so multi.lz 2>/dev/null | cmp -s - both.bin"
    check "t two members" "\"$FZ7\" t multi.lz >/dev/null 2>&1"
    check "l: type and size" "\"$FZ7\" l -slt multi.lz 2>/dev/null | grep -qx 'Type = lzip' && \"$FZ7\" l -slt multi.lz | grep -qx \"Size = \$(stat -c %s both.bin)\""
    check "x from a pipe" "cat multi.lz | \"$FZ7\" x -si -so 2>/dev/null | cmp -s - both.bin"
    mkdir -p lx && "$FZ7" x -bd -olx multi.lz >/dev/null 2>&1
    check "x names the file after the archive" "cmp -s lx/multi both.bin"
    cp l1.lz dmg.lz
    printf '\x55\x55' | dd of=dmg.lz bs=1 seek=3000 conv=notrunc 2>/dev/null
    "$FZ7" t -bd dmg.lz >/dev/null 2>&1; rc=$?
    check "damaged .lz: t rc=$rc" "[ $rc -eq 2 ]"
    head -c 5000 l1.lz >cut.lz
    "$FZ7" t -bd cut.lz >/dev/null 2>&1; rc=$?
    check "cut .lz: t rc=$rc" "[ $rc -eq 2 ]"
    tar -cf - dir | lzip >tl.tar.lz
    check ".tar.lz gives the tar" "\"$FZ7\" x -so tl.tar.lz 2>/dev/null | tar -tf - | grep -q numbers.txt"
else
    echo "lzip not installed: lzip cases skipped"
fi

# --- branch filters for other CPUs in 7z (-m0=ARM64, -mf=PPC, ...): 7zz
# decodes them byte for byte; on an ARM64 library ARM64 makes it smaller ---
for m in ARM64 PPC IA64 ARM ARMT SPARC; do
    "$FZ7" a -bd -m0=$m br_$m.7z dir/random.bin dir/sub/numbers.txt >/dev/null 2>&1; rc=$?
    check "-m0=$m rc=$rc, 7zz reads it" "[ $rc -eq 0 ] && 7zz l -slt br_$m.7z | grep -q \"^Method = .*$m\" && 7zz x -so br_$m.7z dir/sub/numbers.txt 2>/dev/null | cmp -s - dir/sub/numbers.txt && 7zz t br_$m.7z >/dev/null 2>&1"
done
"$FZ7" a -bd -mf=SPARC -m0=Copy br_c.7z dir/random.bin >/dev/null 2>&1
check "-mf=SPARC with Copy" "7zz x -so br_c.7z 2>/dev/null | cmp -s - dir/random.bin"
arm=/usr/aarch64-linux-gnu/lib/libc.so.6
if [ -f $arm ]; then
    "$FZ7" a -bd -mx5 -mf=ARM64 br_arm.7z $arm >/dev/null 2>&1
    "$FZ7" a -bd -mx5 -mf=off br_plain.7z $arm >/dev/null 2>&1
    check "ARM64 filter shrinks an ARM64 library" "[ \$(stat -c %s br_arm.7z) -lt \$(stat -c %s br_plain.7z) ] && 7zz x -so br_arm.7z 2>/dev/null | cmp -s - $arm"
fi

# --- RISC-V (7z method 0B, xz filter 0B): with Copy and the header plain,
# fz7's archive is 7zz's byte for byte (so is the packed stream, the
# filtered bytes) for an executable, random bytes and code dense in JAL
# (opcode 6F, EF with rd ra/t0) and AUIPC (17) pairs; 7zz tests fz7's
# archives, RISCV + LZMA2 and xz too ---
python3 - <<'PY'
import random, struct
r = random.Random(11)
out = bytearray()
def w(x): out.extend(struct.pack("<I", x & 0xFFFFFFFF))
while len(out) < 120_001:
    k = r.randrange(100)
    if k < 25:   # JAL, rd mostly ra/t0
        w(0x6F | (r.choice([1, 1, 5, 0, 3]) << 7) | (r.getrandbits(20) << 12))
    elif k < 55: # AUIPC rd + an instruction using rd (or not)
        rd = r.choice([1, 5, 6, 10, 31, 0, 2])
        rs = rd if r.random() < 0.8 else r.randrange(32)
        w(0x17 | (rd << 7) | (r.getrandbits(20) << 12))
        w(r.choice([0x67, 0x13, 0x03, 0x23, 0x01]) | (rs << 15) | (r.getrandbits(12) << 20) | (r.getrandbits(3) << 12))
    elif k < 70: # AUIPC x2 shaped like the filter's special form
        w(0x17 | (2 << 7) | (r.choice([3, 3, 1]) << 12) | (r.getrandbits(13) << 14) | (r.randrange(32) << 27))
        w(r.getrandbits(32))
    else:        # 16-bit parcels
        out.extend(bytes([r.choice([0xEF, 0x17, 0x97, r.randrange(256)]), r.randrange(256)]))
open("rv_code.bin", "wb").write(out[:120_001])
PY
cp /bin/true rv_exe.bin && cp dir/random.bin rv_random.bin
for in in rv_exe.bin rv_random.bin rv_code.bin; do
    rm -f rv_7zz.7z rv_fz7.7z
    7zz a -bd -m0=RISCV -m1=Copy -mhc=off rv_7zz.7z $in >/dev/null 2>&1
    "$FZ7" a -bd -m0=RISCV -m1=Copy -mhc=off rv_fz7.7z $in >/dev/null 2>&1; rc=$?
    check "RISCV+Copy of $in rc=$rc: the archive is 7zz's byte for byte" \
        "[ $rc -eq 0 ] && cmp -s rv_7zz.7z rv_fz7.7z && ! cmp -s <(tail -c +33 rv_fz7.7z | head -c \$(stat -c %s $in)) $in"
    check "7zz t passes fz7's RISCV+Copy of $in" "7zz t rv_fz7.7z >/dev/null 2>&1 && 7zz x -so rv_fz7.7z 2>/dev/null | cmp -s - $in"
    rm -f rv.xz
    "$FZ7" a -bd -txz -mf=RISCV rv.xz $in >/dev/null 2>&1; rc=$?
    check "-txz -mf=RISCV of $in rc=$rc, 7zz x gives it back" \
        "[ $rc -eq 0 ] && 7zz l -slt rv.xz | grep -q '^Method = RISCV' && 7zz x -so rv.xz 2>/dev/null | cmp -s - $in"
done
"$FZ7" a -bd -m0=RISCV -m1=LZMA2 br_r.7z dir rv_code.bin >/dev/null 2>&1; rc=$?
check "-m0=RISCV -m1=LZMA2 rc=$rc, 7zz tests it" "[ $rc -eq 0 ] && 7zz l -slt br_r.7z | grep -q '^Method = RISCV LZMA2' && 7zz t br_r.7z >/dev/null 2>&1 && 7zz x -so br_r.7z rv_code.bin 2>/dev/null | cmp -s - rv_code.bin"
"$FZ7" a -bd -mf=RISCV br_rf.7z rv_code.bin >/dev/null 2>&1; rc=$?
check "-mf=RISCV rc=$rc, 7zz reads it" "[ $rc -eq 0 ] && 7zz x -so br_rf.7z 2>/dev/null | cmp -s - rv_code.bin"

# --- ARM64 and RISCV with a start offset (7zz's ARM64:N, RISCV:N) ---
for spec in ARM64:4096 RISCV:4098; do
    rm -f so_7zz.7z so_fz7.7z
    7zz a -bd -m0=$spec -mhc=off so_7zz.7z rv_code.bin >/dev/null 2>&1
    "$FZ7" a -bd -m0=$spec -mhc=off so_fz7.7z rv_code.bin >/dev/null 2>&1; rc=$?
    check "-m0=$spec rc=$rc: 7zz's archive byte for byte, Method = $spec" \
        "[ $rc -eq 0 ] && cmp -s so_7zz.7z so_fz7.7z && 7zz l -slt so_fz7.7z | grep -qx 'Method = $spec'"
    rm -f so_l.7z
    "$FZ7" a -bd -mf=$spec so_l.7z rv_code.bin rv_exe.bin >/dev/null 2>&1; rc=$?
    check "-mf=$spec rc=$rc: 7zz extracts it" \
        "[ $rc -eq 0 ] && 7zz l -slt so_l.7z | grep -q '^Method = $spec LZMA2' && 7zz x -so so_l.7z rv_code.bin 2>/dev/null | cmp -s - rv_code.bin"
done
for spec in ARM64:3 RISCV:1 ARM:4 ARM64:0x10; do
    rm -f so_bad.7z
    "$FZ7" a -bd -m0=$spec so_bad.7z rv_code.bin >/dev/null 2>fz.err; rc=$?
    check "-m0=$spec: refused as 7zz refuses it (exit $rc), nothing written" \
        "[ $rc -eq 2 ] && grep -q E_INVALIDARG fz.err && [ ! -f so_bad.7z ]"
done

# --- BZip2 as a 7z method (libbz2), with BCJ on an executable and 7zAES ---
cp "$FZ7" exe.bin
"$FZ7" a -bd -m0=BZip2 bz.7z dir exe.bin >/dev/null 2>&1; rc=$?
mkdir -p bzx && 7zz x -y -obzx bz.7z >/dev/null 2>&1
check "-m0=BZip2 rc=$rc, 7zz extracts it" "[ $rc -eq 0 ] && tree_sig bzx/dir | cmp -s - src.sig && cmp -s bzx/exe.bin exe.bin && 7zz l -slt bz.7z | grep -qx 'Method = BCJ BZip2'"
"$FZ7" a -bd -m0=BZip2 -mx1 -psecret -mhe bze.7z dir >/dev/null 2>&1
check "-m0=BZip2 -p -mhe: 7zz tests it" "7zz t -psecret bze.7z >/dev/null 2>&1 && \"$FZ7\" t -psecret bze.7z >/dev/null 2>&1"

# --- rn of a gzip whose header reaches past what rn reads (an extra field
# longer than the file, a header CRC flag on 10 bytes): left as it is ---
python3 -c '
import struct
open("xlen.gz", "wb").write(b"\x1f\x8b\x08\x04" + bytes(6) + struct.pack("<H", 5000) + b"x" * 20)
open("hcrc.gz", "wb").write(b"\x1f\x8b\x08\x02" + bytes(6))'
for g in xlen hcrc; do
    cp $g.gz $g.orig; "$FZ7" rn $g.gz $g other >/dev/null 2>&1; rc=$?
    check "rn $g.gz: exit $rc, file unchanged" "[ $rc -eq 2 ] && cmp -s $g.gz $g.orig"
done

# --- a tar of files from before 1970: libarchive's GNU writer stores their
# mtime as 0; fz7 writes it in base-256 as GNU tar and 7zz do (7zz's bytes) ---
mkdir -p old1970 && printf 'x\n' >old1970/a.txt && printf 'y\n' >old1970/b.txt
touch -d '1960-05-01 12:00:00' old1970/a.txt && touch -d '1901-12-14 00:00:00' old1970/b.txt
touch -d '2001-01-01 00:00:00' old1970
"$FZ7" a -bd o70f.tar old1970 >/dev/null 2>&1; rc=$?
7zz a -bd o70z.tar old1970 >/dev/null 2>&1
check "tar before 1970: rc=$rc, 7zz's bytes" "[ $rc -eq 0 ] && cmp -s o70f.tar o70z.tar"
check "tar before 1970: tar(1) reads the times" \
  "[ \"\$(tar -tvf o70f.tar --full-time 2>/dev/null | awk '{print \$4, \$5}' | sort | tr '\\n' ' ')\" = '1901-12-14 00:00:00 1960-05-01 12:00:00 2001-01-01 00:00:00 ' ]"

t_summary formats_write
