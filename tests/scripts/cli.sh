#!/usr/bin/env bash
# cli.sh - the command line as a user and a script see it: exit codes,
# overwrite modes, e vs x, wildcard selection, -o creation, l -slt fields
# against 7zz, damaged data, and hostile archives (nothing outside -o).
# Archives use the Copy method with plain headers, so this runs before any
# codec exists.
set -u
. "$(dirname "$0")/lib.sh"
HERE=$(cd "$(dirname "$0")" && pwd)
t_init 7zz python3

tree() { (cd "$1" && find . -mindepth 1 | LC_ALL=C sort | tr '\n' ' '); }

# --- a source tree and a Copy archive of it made by 7-Zip ---
mkdir -p src/d1/d2 src/emptydir
printf 'hello\n' >src/a.txt
head -c 3000 /dev/zero | tr '\0' x >src/d1/b.bin
printf 'two\n' >src/d1/d2/c.txt
: >src/d1/d2/empty
ln -s a.txt src/link
chmod 600 src/a.txt
chmod 755 src/d1/b.bin
(cd src && 7zz a -snl -m0=Copy -mhc=off ../cp.7z . >/dev/null) || { echo "FAIL: 7zz a"; exit 1; }

# --- exit codes ---
expect_rc 7 "unknown switch" "$FZ7" x -zz cp.7z
grep -q "Unknown switch:" err.txt && ok || bad "unknown switch message"
expect_rc 7 "unsupported command" "$FZ7" q cp.7z
expect_rc 7 "no archive name" "$FZ7" x
# with -so stdout is the data's: a command-line error prints nothing there
# (7zz: not even its banner), only the error on stderr
for c in "a -so" "a -txz -si -so" "e -so"; do
    # shellcheck disable=SC2086
    expect_rc 7 "$c without an archive name" "$FZ7" $c
    same "$c: stdout" "$(wc -c < out.txt)" 0
    same "$c: stderr" "$(cat err.txt)" "$(printf '\n\nCommand Line Error:\nCannot find archive name')"
done
expect_rc 7 "bad -ao" "$FZ7" x -aox cp.7z
expect_rc 7 "empty -o" "$FZ7" x -o cp.7z
expect_rc 7 "b with an unknown method" "$FZ7" b -mm=NOPE  # b itself: bench_cmd.sh
expect_rc 2 "missing archive" "$FZ7" t "$S/no-such.7z"
grep -q "no-such.7z" err.txt && ok || bad "missing archive message names it"
printf 'not an archive at all\n' >plain.txt
expect_rc 2 "non-archive" "$FZ7" t plain.txt
same "non-archive message (7zz's lines)" "$(cat err.txt)" "$(printf 'ERROR: plain.txt\nCannot open the file as archive')"
expect_rc 0 "--version" "$FZ7" --version
grep -q "^crc32: " out.txt && ok || bad "--version names the crc32 path"
# --version is the version block alone: nine lines, the usage not after it.
V() { sed -E -e 's/^fz7 [0-9]+\.[0-9]+\.[0-9]+ /fz7 V /' -e 's/\((x64|generic)\)/(ARCH)/' "$@"; }
same "--version first line" "$(head -1 out.txt | V)" "fz7 V : 7z/xz archiver (7-Zip compatible command line)"
same "--version line 3" "$(sed -n 3p out.txt | sed -E 's/[a-z0-9_-]+ \(highest supported: [a-z0-9_-]+\)$/L/')" "Dispatch level: L"
same "--version keys" "$(V out.txt | cut -d: -f1 | tr '\n' ' ')" "fz7 V  CPU Dispatch level crc32 crc64 sha256 aes_cbc_dec aes_cbc_enc match_len hash_mask "
same "--version stderr" "$(cat err.txt)" ""
# -h and --help: 7zz's shape, the two-line banner, a blank line, the usage.
for h in -h --help; do
    expect_rc 0 "$h" "$FZ7" $h
    same "$h line 1-4" "$(sed -n 1,4p out.txt | V | sed -E 's/Threads:[0-9]+ kernels:[a-z0-9_-]+$/T/')" \
        "$(printf '\nfz7 V (ARCH) : 7z/xz archiver\n 64-bit T\n')"
    same "$h usage line" "$(sed -n 5p out.txt)" "Usage: fz7 <command> [<switches>...] <archive_name> [<file_names>...] [@listfile]"
    same "$h last line" "$(tail -1 out.txt)" "  -h, --help : this help"
    same "$h no version block" "$(grep -c '^crc32: ' out.txt)" 0
done
expect_rc 2 "-t7z on an xz file" "$FZ7" l -txz cp.7z

# --- t and l ---
expect_rc 0 "t" "$FZ7" t cp.7z
grep -q "^Everything is Ok" out.txt && ok || bad "t says Everything is Ok"
grep -q "^Files: 5$" out.txt && ok || bad "t counts 5 files"
expect_rc 0 "l" "$FZ7" l cp.7z
grep -q "  5 files, 3 folders$" out.txt && ok || bad "l totals line"
for args in "" "-slt"; do
    "$FZ7" l $args cp.7z | sed -n '/^--$/,$p' >fz7.txt
    7zz l $args cp.7z | sed -n '/^--$/,$p' >7zz.txt
    if cmp -s fz7.txt 7zz.txt; then ok; else bad "l $args differs from 7zz"; diff fz7.txt 7zz.txt | head -10; fi
done
"$FZ7" l -slt cp.7z >slt.txt
for field in "Path = d1/b.bin" "Size = 3000" "Attributes = A -rwxr-xr-x" "CRC = " "Encrypted = -" \
             "Method = Copy" "Block = " "Packed Size = " "Modified = "; do
    grep -q "^$field" slt.txt && ok || bad "l -slt has '$field'"
done

# --- x: full tree, modes, mtimes, link ---
expect_rc 0 "x" "$FZ7" x cp.7z -onew/deep/out
if diff -r --no-dereference src new/deep/out >/dev/null; then ok; else bad "x tree differs"; fi
same "x mode 600" "$(stat -c %a new/deep/out/a.txt)" 600
same "x mode 755" "$(stat -c %a new/deep/out/d1/b.bin)" 755
same "x mtime" "$(stat -c %Y new/deep/out/d1/b.bin)" "$(stat -c %Y src/d1/b.bin)"
same "x dir mtime" "$(stat -c %Y new/deep/out/d1)" "$(stat -c %Y src/d1)"
same "x symlink" "$(readlink new/deep/out/link)" "a.txt"

# --- e: no paths; folders are made from their last name (as 7zz e does) ---
expect_rc 0 "e" "$FZ7" e cp.7z -oflat
same "e tree" "$(tree flat)" "./a.txt ./b.bin ./c.txt ./d1 ./d2 ./empty ./emptydir ./link "

# --- wildcards (7-Zip rules) ---
sel() { rm -rf sel; "$FZ7" x cp.7z -osel "$@" >/dev/null 2>&1; tree sel; }
same "name selects a folder" "$(sel d1/d2)" "./d1 ./d1/d2 ./d1/d2/c.txt ./d1/d2/empty "
same "*.txt top level only" "$(sel '*.txt')" "./a.txt "
same "-r *.txt" "$(sel -r '*.txt')" "./a.txt ./d1 ./d1/d2 ./d1/d2/c.txt "
same "-x!" "$(sel -r '*' '-x!d1')" "./a.txt ./emptydir ./link "
same "-i! and ?" "$(sel '-i!?.txt')" "./a.txt "
same "case sensitive" "$(sel A.TXT)" ""
same "-ssc-" "$(sel -ssc- A.TXT)" "./a.txt "
printf 'd1/d2/c.txt\nlink\n' >list.txt
same "@listfile" "$(sel @list.txt)" "./d1 ./d1/d2 ./d1/d2/c.txt ./link "
# a folder named as the list file is 7zz's command line error, not an empty
# list (fz7 took it as none: 'a x.7z @dir' then archived everything here)
mkdir -p listdir
expect_rc 7 "a folder as @listfile" "$FZ7" a lst.7z @listdir
same "a folder as @listfile: the error" "$(tail -3 err.txt)" "Incorrect item in listfile.
Check charset encoding and -scs switch.
listdir"
same "a folder as @listfile: no archive" "$(ls lst.7z 2>&1 >/dev/null | wc -l)" "1"
expect_rc 7 "a folder as -x@listfile" "$FZ7" a lst.7z a.txt -x@listdir
# an -ai list file is read once the command's archive is known (7zz's order)
expect_rc 7 "a -ai@missing" "$FZ7" a -ai@missing lst.7z a.txt
same "a -ai@missing: the error" "$(tail -1 err.txt)" "-ai switch is not supported for this command"

# --- -so ---
same "-so" "$("$FZ7" x -so cp.7z d1/d2/c.txt 2>/dev/null)" "two"

# --- overwrite modes ---
rm -rf ow && "$FZ7" x cp.7z -oow >/dev/null
echo changed >ow/a.txt
expect_rc 255 "no answer on stdin" "$FZ7" x cp.7z -oow
grep -q "Break signaled" err.txt && ok || bad "no answer: Break signaled"
same "no answer keeps file" "$(cat ow/a.txt)" "changed"
expect_rc 0 "-aos" "$FZ7" x cp.7z -oow -aos
same "-aos keeps file" "$(cat ow/a.txt)" "changed"
expect_rc 0 "-aou" "$FZ7" x cp.7z -oow -aou a.txt
same "-aou" "$(cat ow/a.txt)/$(cat ow/a_1.txt)" "changed/hello"
expect_rc 0 "-aot" "$FZ7" x cp.7z -oow -aot a.txt
same "-aot" "$(cat ow/a.txt)/$(cat ow/a_2.txt)" "hello/changed"
echo changed >ow/a.txt
echo n | "$FZ7" x cp.7z -oow a.txt >/dev/null 2>&1
same "answer n" "$(cat ow/a.txt)" "changed"
echo y | "$FZ7" x cp.7z -oow a.txt >/dev/null 2>&1
same "answer y" "$(cat ow/a.txt)" "hello"
echo changed >ow/a.txt
expect_rc 0 "-aoa" "$FZ7" x cp.7z -oow -aoa a.txt
same "-aoa" "$(cat ow/a.txt)" "hello"
echo changed >ow/a.txt
expect_rc 0 "-y" "$FZ7" x cp.7z -oow -y a.txt
same "-y" "$(cat ow/a.txt)" "hello"

# --- damaged data: exit 2, named, the decoded bytes kept for salvage ---
cp cp.7z bad.7z
off=$(grep -abo xxxxxxxxxx cp.7z | head -1 | cut -d: -f1)
printf 'Z' | dd of=bad.7z bs=1 seek=$((off + 100)) conv=notrunc 2>/dev/null
expect_rc 2 "CRC error t" "$FZ7" t bad.7z
grep -q "ERROR: CRC Failed : d1/b.bin" err.txt && ok || bad "CRC Failed line names the entry"
grep -q "bad.7z" err.txt && ok || bad "CRC Failed line names the archive"
rm -rf bo
expect_rc 2 "CRC error x" "$FZ7" x bad.7z -obo
[ "$(cmp -l bo/d1/b.bin src/d1/b.bin 2>/dev/null | wc -l)" = 1 ] && ok ||
  bad "the damaged file is not kept with its one changed byte"
same "no temporary files left" "$(find bo -name '.fz7-*' | wc -l)" 0
same "good files still extracted" "$(cat bo/a.txt)" "hello"

# --- a damaged folder does not stop the others (non-solid, 3 folders) ---
mkdir -p nons && for i in 1 2 3; do head -c 3000 /dev/urandom > nons/f$i.bin; done
(cd nons && 7zz a -m0=LZMA2 -ms=off ../nons.7z f1.bin f2.bin f3.bin >/dev/null) || bad "7zz a -ms=off"
# incompressible: folder 1 is about 3,004 bytes, so this byte is in folder 2
# (flipped, not overwritten: a random byte may already be the one written)
python3 -c "
d = bytearray(open('nons.7z', 'rb').read()); d[32 + 3004 + 1500] ^= 0x5A; open('nons.7z', 'wb').write(d)"
rm -rf nonso
expect_rc 2 "damaged middle folder" "$FZ7" x nons.7z -ononso
grep -q "f2.bin" err.txt && ok || bad "the damaged entry is named"
cmp -s nonso/f1.bin nons/f1.bin && cmp -s nonso/f3.bin nons/f3.bin && ok || bad "entries of the other folders extract"
[ "$(stat -c %s nonso/f2.bin 2>/dev/null)" = 3000 ] && ! cmp -s nonso/f2.bin nons/f2.bin && ok ||
  bad "the damaged entry's decoded bytes are not kept (3000 bytes, not the original)"

# --- hostile archives: nothing outside -o ---
mkdir -p jail outside
python3 "$HERE/mk7z.py" hostile.7z f:../evil.txt:evil f:/abs/abs.txt:abs \
    "l:link:$S/outside" f:link/through.txt:through f:a/../../evil2.txt:e2 \
    f:dir/ok.txt:ok "l:dotdot:../../.." f:dotdot/x.txt:x
before=$(find "$S" -newer hostile.7z | LC_ALL=C sort)
# As 7zz 26.02: "../" and "/" are dropped from names, the absolute link moves
# below -o, the "../../.." link is refused (an empty file takes its name) and
# the entries through either link fail (exit 2).
expect_rc 2 "hostile x" "$FZ7" x hostile.7z -ojail/out
same "hostile: nothing in outside/" "$(ls -A outside)" ""
same "hostile x: tree" "$(tree jail/out)" \
    "./a ./a/evil2.txt ./abs ./abs/abs.txt ./dir ./dir/ok.txt ./dotdot ./evil.txt ./link "
same "hostile x: absolute link moved below -o" "$(readlink jail/out/link)" "$S/jail/out$S/outside"
same "hostile x: refused link left an empty file" "$(stat -c '%F %s' jail/out/dotdot)" "regular empty file 0"
same "hostile: good entry extracted" "$(cat jail/out/dir/ok.txt)" "ok"
same "hostile x: messages" "$(grep ERROR err.txt)" "ERROR: Cannot open output file : errno=20 : Not a directory : jail/out/link/through.txt
ERROR: Dangerous link path was ignored : dotdot : ../../..
ERROR: Cannot open output file : errno=20 : Not a directory : jail/out/dotdot/x.txt"
after=$(find "$S" -newer hostile.7z -not -path "$S/jail/*" -not -path "$S/jail" | LC_ALL=C sort)
same "hostile: no new paths outside jail/" "$(comm -13 <(echo "$before") <(echo "$after") | grep -v -e '/out.txt$' -e '/err.txt$')" ""
expect_rc 2 "hostile e" "$FZ7" e hostile.7z -ojail/flat -y
same "hostile e: tree" "$(tree jail/flat)" "./abs.txt ./dotdot ./evil.txt ./evil2.txt ./link ./ok.txt ./through.txt ./x.txt "
[ ! -e jail/evil.txt ] && ok || bad "hostile e escaped"

# --- -mmemuse limits the decoder's memory ---
if command -v xz >/dev/null; then
    seq 1 1000 | xz -9 >big_dict.xz
    expect_rc 2 "-mmemuse=1m on a 64 MiB dictionary" "$FZ7" t -mmemuse=1m big_dict.xz
    grep -q "Memory usage limit reached : big_dict" err.txt && ok || bad "memory limit message"
    expect_rc 0 "-mmemuse=100m" "$FZ7" t -mmemuse=100m big_dict.xz
fi

# --- passwords: none on an empty pipe -> 7zz's "Break signaled", 255; never printed ---
(cd src && 7zz a -m0=Copy -mhc=off -psecret -mhe=on ../enc.7z a.txt >/dev/null)
expect_rc 255 "encrypted headers, no password, no terminal" "$FZ7" l enc.7z
same "no password: stderr" "$(cat err.txt)" "$(printf '\n\nBreak signaled')"
same "no password: the prompt on stdout" "$(tail -1 out.txt)" "Enter password (will not be echoed):"
"$FZ7" t -psecret enc.7z >out.txt 2>&1
grep -q secret out.txt && bad "password printed" || ok
(cd src && 7zz a -m0=Copy -mhc=off -psecret ../enc_data.7z a.txt d1/b.bin >/dev/null)
expect_rc 255 "encrypted data, no password, no terminal" "$FZ7" x -oencx enc_data.7z
same "no password for data: stderr" "$(cat err.txt)" "$(printf '\n\nBreak signaled')"
[ ! -e encx/a.txt ] && ok || bad "file written without a password"
expect_rc 2 "wrong password" "$FZ7" x -pwrong -oencx enc_data.7z
grep -q "Wrong password? : a.txt" err.txt && ok || bad "wrong password message names a.txt"
[ ! -e encx/a.txt ] && ok || bad "file kept after a wrong password"
expect_rc 0 "right password" "$FZ7" x -psecret -oencx enc_data.7z
cmp -s encx/d1/b.bin src/d1/b.bin && ok || bad "decrypted content"
grep -q secret out.txt err.txt && bad "password printed" || ok

# -bso / -bse as 7-Zip reads them: 0 silences, 2 sends messages to stderr.
expect_rc 0 "t -bso0 -bsp0" "$FZ7" t -bso0 -bsp0 cp.7z
same "-bso0: nothing on stdout" "$(wc -c < out.txt)" 0
expect_rc 2 "t -bso0 on a missing archive" "$FZ7" t -bso0 "$S/no-such.7z"
grep -q "no-such.7z" err.txt && ok || bad "-bso0 keeps error messages"
expect_rc 2 "t -bse0 on a missing archive" "$FZ7" t -bse0 "$S/no-such.7z"
same "-bse0: nothing on stderr" "$(wc -c < err.txt)" 0
expect_rc 0 "t -bso2" "$FZ7" t -bso2 cp.7z
same "-bso2: nothing on stdout" "$(wc -c < out.txt)" 0
grep -q "Everything is Ok" err.txt && ok || bad "-bso2: messages on stderr"

# a -si to gzip: no name in the header unless -si names one, as 7zz
printf 'hi\n' | "$FZ7" a -si -tgzip si_none.gz >/dev/null 2>&1
printf 'hi\n' | "$FZ7" a -sifoo.txt -tgzip si_named.gz >/dev/null 2>&1
same "a -si -tgzip: FLG (no FNAME), -sifoo.txt: FNAME foo.txt" \
    "$(od -An -tx1 -j3 -N1 si_none.gz | tr -d ' ') $(head -c 18 si_named.gz | tail -c 8)" "00 foo.txt"

# -so to a full disk: exit 2 and 7zz's "System ERROR" lines, for a file
# small enough to sit in the output buffer too (that one said exit 0)
if [ -w /dev/full ] && command -v 7zz >/dev/null; then
    printf 'small\n' >small.txt && "$FZ7" a -bd small.7z small.txt >/dev/null
    head -c 100000 /dev/urandom >big.bin && "$FZ7" a -bd big.7z big.bin >/dev/null
    for a in small.7z big.7z; do
        "$FZ7" e -so $a >/dev/full 2>so_err.txt; rc=$?
        7zz e -so $a >/dev/full 2>so_err7.txt
        same "e -so $a to a full disk: exit, the lines" "$rc $(cat so_err.txt)" "2 $(cat so_err7.txt)"
    done
else
    echo "SKIP: -so to a full disk (no /dev/full or no 7zz)"
fi

t_summary cli.sh
