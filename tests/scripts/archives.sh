#!/usr/bin/env bash
# archives.sh - x/e/t/l over several archives and the switches that pick
# archives and entries, as 7zz 26.02 runs them: archive wildcards, -ai,
# -ax, -an, the summaries, -scrc sums after x/e/t, -spe, -xm!/-xw!, -stx,
# -sa on a, and the password asked only at the first encrypted entry. Each
# case checks the exact exit code, the exact tree written (names and
# contents) and the lines scripts read. The sums are the ones 7zz 26.02
# prints for the same data and names.
set -u
. "$(dirname "$0")/lib.sh"
t_init

# A tree as "path:md5" for files and "path/" for folders, sorted.
tree() {
    (cd "$1" && find . -mindepth 1 | LC_ALL=C sort | while IFS= read -r f; do
        if [ -d "$f" ]; then echo "${f#./}/"; else echo "${f#./}:$(md5sum <"$f" | cut -c1-8)"; fi
    done | tr '\n' ' ')
}
run() { "$FZ7" "$@" >out.txt 2>err.txt </dev/null; echo $? >rc.txt; }
rc() { cat rc.txt; }

mkdir -p fx/src/sub fx/src/empty_dir && cd fx || exit 1
printf 'hello\n' >src/a.txt
head -c 3000 /dev/zero | tr '\0' 'b' >src/b.bin
printf 'nested\n' >src/sub/c.txt
: >src/sub/empty.txt
printf 'one\n' >one.txt
touch -d '2024-01-02 03:04:05' src
"$FZ7" a -bd arc.7z src >/dev/null || exit 1
"$FZ7" a -bd -ppw enc.7z src >/dev/null || exit 1
cd .. || exit 1
A=$(md5sum <fx/src/a.txt | cut -c1-8) B=$(md5sum <fx/src/b.bin | cut -c1-8) C=$(md5sum <fx/src/sub/c.txt | cut -c1-8)
SRC_TREE="src/ src/a.txt:$A src/b.bin:$B src/empty_dir/ src/sub/ src/sub/c.txt:$C src/sub/empty.txt:d41d8cd9 "

fresh() { rm -rf w && mkdir w && cp fx/*.7z w/ && cd w; }

# --- an archive wildcard: each archive in turn, one summary -----------------
fresh; cp arc.7z arc2.7z
run x 'arc*.7z' -oout -y
same "x 'arc*.7z' exit" "$(rc)" 0
same "x 'arc*.7z' tree" "$(tree out)" "$SRC_TREE"
same "x 'arc*.7z' archives in order" "$(grep '^Extracting archive: ' out.txt | tr '\n' '|')" \
    "Extracting archive: arc.7z|Extracting archive: arc2.7z|"
same "x 'arc*.7z' summary" "$(sed -n '/^Archives: /,$p' out.txt | sed 's/^Compressed: .*/Compressed: N/' | tr '\n' '|')" \
    "Archives: 2|OK archives: 2|Folders: 6|Files: 8|Size:       6026|Compressed: N|"
same "x 'arc*.7z' scan line" "$(grep ' files, ' out.txt | sed 's/, [0-9]* bytes.*//')" "2 files"
cd ..

# --- a file that is no archive among them: exit 2, the others extracted -------
fresh; printf 'junk\n' >junk.7z
run x -ax!enc.7z '*.7z' -oout
same "x with junk exit" "$(rc)" 2
same "x with junk tree" "$(tree out)" "$SRC_TREE"
same "x with junk summary" "$(sed -n '/^Archives: /,/^Files: /p' out.txt | tr '\n' '|')" \
    "Archives: 2|OK archives: 1|Can't open as archive: 1|Folders: 3|Files: 4|"
same "x with junk error" "$(head -3 err.txt | tr '\n' '|')" \
    "ERROR: junk.7z|junk.7z|Open ERROR: Cannot open the file as [7z] archive|"
cd ..

# --- a damaged archive among them: exit 2, the summary counts it --------------
fresh; mkdir two && mv arc.7z two/ && (cd two && "$FZ7" a -bd -mx0 bad.7z ../../fx/one.txt >/dev/null) &&
    printf '\377' | dd of=two/bad.7z bs=1 seek=32 conv=notrunc 2>/dev/null
run t 'two/*.7z'
same "t damaged exit" "$(rc)" 2
same "t damaged summary" "$(sed -n '/^Archives: /,$p' out.txt | tr '\n' '|')" \
    "Archives: 2|OK archives: 1|Archives with Errors: 1||Sub items Errors: 1|"
same "t damaged error" "$(head -1 err.txt)" "ERROR: CRC Failed : one.txt"
same "t damaged detail" "$(sed -n 2p err.txt | cut -c1-17)" "  (in two/bad.7z:"
cd ..

# --- no archive matches: 7zz's command-line error, exit 7 ---------------------
fresh
run x 'nomatch*.7z' -oout
same "no match exit" "$(rc)" 7
same "no match stderr" "$(cat err.txt)" "$(printf '\n\nCommand Line Error:\nCannot find archive')"
[ ! -e out ] && ok || bad "no match made the -o folder"
run t -an arc.7z
same "-an without -ai exit" "$(rc)" 7
run x -ai!arc.7z -oout
same "-ai without -an or a name exit" "$(rc)" 7
same "-ai without a name stderr" "$(cat err.txt)" "$(printf '\n\nCommand Line Error:\nCannot find archive name')"
run t -ai!arc.7z arc.7z
same "the same archive twice exit" "$(rc)" 7
same "the same archive twice stderr" "$(head -4 err.txt | tr '\n' '|')" \
    "||Command Line Error:|Duplicate archive path:|"
cd ..

# --- -ai with recursion, -ax, -an: the archives and their order ---------------
fresh; mkdir -p d/sub && cp arc.7z d/z.7z && cp arc.7z d/sub/b.7z && cp arc.7z d/a.7z
run t -an '-air!d/*.7z' '-ax!d/z.7z'
same "-air exit" "$(rc)" 0
same "-air order" "$(grep '^Testing archive: ' out.txt | tr '\n' '|')" \
    "Testing archive: d/a.7z|Testing archive: d/sub/b.7z|"
run t -an '-ai!d/*.7z'
same "-ai without r: one folder" "$(grep -c '^Testing archive: ' out.txt)" 2
run t -an '-air!sub/*.7z'
same "-air below a folder that is not there: exit" "$(rc)" 2
same "-air below a folder that is not there: stderr" "$(head -3 err.txt | tr '\n' '|')" \
    "|ERROR: errno=2 : No such file or directory|sub|"
run t -an '-ai!d/*.7z' '-axr!b.7z' '-ax!z.7z'
same "-axr at any depth, -ax at the top only" "$(grep '^Testing archive: ' out.txt | tr '\n' '|')" \
    "Testing archive: d/a.7z|Testing archive: d/z.7z|"
run t -an '-ai!d' '-axr!b.7z'
same "a folder: its files, the sub folder counted" "$(grep ' files, ' out.txt | sed 's/ bytes.*//')" \
    "2 folders, 2 files, $(($(stat -c %s d/a.7z) * 2))"
same "a folder: the files in order" "$(grep '^Testing archive: ' out.txt | tr '\n' '|')" \
    "Testing archive: d/a.7z|Testing archive: d/z.7z|"
printf 'd/a.7z\nd/z.7z\n' >arcs.txt
run l -ba -an -ai@arcs.txt src/a.txt
same "-ai@ listfile, -an name" "$(awk '{print $NF}' out.txt | tr '\n' ' ')" "src/a.txt src/a.txt "
cd ..

# --- -scrc on x, e, t: 7zz's sums after the summary ---------------------------
fresh
run t -scrc arc.7z
same "t -scrc exit" "$(rc)" 0
same "t -scrc sums" "$(grep 'for data' out.txt | tr '\n' '|')" \
    "CRC32  for data:              68F2440E-00000001|CRC32  for data and names:    4DB35F2A-00000004|"
run x -scrc arc.7z -oout
same "x -scrc sums (files only)" "$(grep 'for data' out.txt | tr '\n' '|')" \
    "CRC32  for data:              68F2440E-00000001|CRC32  for data and names:    9F4E1216-00000002|"
same "x -scrc tree" "$(tree out)" "$SRC_TREE"
run e -scrcSHA256 arc.7z -oflat
same "e -scrcsha256 sums" "$(grep 'for data' out.txt | tr '\n' '|')" \
    "SHA256 for data:              5dd8538a13b201cff1ba3949d7eaa94963fe645153d48cca23267a3ae1fa7e23-00000001|SHA256 for data and names:    dbb97738bfad877298de55b1826670ab6132b699fc2f0951c240fc4bf1a20333-00000003|"
same "e -scrc tree" "$(tree flat)" "a.txt:$A b.bin:$B c.txt:$C empty.txt:d41d8cd9 empty_dir/ src/ sub/ "
run t -scrc arc.7z src/a.txt
same "one file: no carry, no names line" "$(grep 'for data' out.txt)" "CRC32  for data:              363A3020"
run t -scrcnope arc.7z
same "unknown -scrc exit" "$(rc)" 2
same "unknown -scrc stderr" "$(cat err.txt)" "$(printf '\n\nSystem ERROR:\nE_NOTIMPL : Not implemented')"
cd ..

# --- -spe: the root folder named as the -o folder is not made twice -----------
fresh
run x -spe arc.7z -oo/src
same "-spe exit" "$(rc)" 0
same "-spe tree" "$(tree o)" "$SRC_TREE"
same "-spe: the root folder's time on the -o folder" "$(stat -c %Y o/src)" "$(date -d '2024-01-02 03:04:05' +%s)"
run x -spe arc.7z -oo2
same "-spe, other folder name" "$(tree o2)" "$SRC_TREE"
cd ..

# --- -xm! / -xw! / -im!: folders by a trailing '/', names without wildcards ----
fresh
run x arc.7z -oa '-xm!src/sub'
same "-xm! without '/' leaves the folder" "$(tree a)" "$SRC_TREE"
run x arc.7z -ob '-xm!src/sub/'
same "-xm! with '/' drops it" "$(tree b)" "src/ src/a.txt:$A src/b.bin:$B src/empty_dir/ "
run x arc.7z -oc '-xw-!src/s*'
same "-xw- takes '*' as a name" "$(tree c)" "$SRC_TREE"
run x arc.7z -od '-xw!src/s*'
same "-xw! is a wildcard" "$(tree d)" "src/ src/a.txt:$A src/b.bin:$B src/empty_dir/ "
run l -ba arc.7z '-im!src/sub/'
same "-im! with '/'" "$(awk '{print $NF}' out.txt | tr '\n' ' ')" "src/sub src/sub/empty.txt src/sub/c.txt "
run t arc.7z '-iq!x'
same "bad wildcard marker exit" "$(rc)" 7
same "bad wildcard marker stderr" "$(cat err.txt)" "$(printf '\n\nCommand Line Error:\nIncorrect wildcard type marker\nq!x')"
cd ..

# --- -stx: an archive of an excluded type does not open -----------------------
fresh
run t -stx7z arc.7z
same "-stx7z exit" "$(rc)" 2
same "-stx7z stderr" "$(cat err.txt)" "$(printf 'ERROR: arc.7z\nCannot open the file as archive')"
run t -stxzip arc.7z
same "-stxzip exit" "$(rc)" 0
run t -stxnope arc.7z
same "-stx unknown type exit" "$(rc)" 2
cd ..

# --- -sa on a: when the extension is added ------------------------------------
fresh; cp ../fx/one.txt .
run a -saa new.xz one.txt
same "-saa exit" "$(rc)" 0
[ -f new.xz.7z ] && [ ! -e new.xz ] && ok || bad "-saa new.xz: no new.xz.7z"
same "-saa writes 7z" "$(head -c 2 new.xz.7z | od -An -tx1 | tr -d ' ')" "377a"
run a -txz -saa n2 one.txt
[ -f n2.xz ] && ok || bad "-txz -saa n2: no n2.xz"
run a -sae n3 one.txt
[ -f n3 ] && [ ! -e n3.7z ] && ok || bad "-sae n3: not written as n3"
run a n4. one.txt
[ -f n4 ] && [ ! -e n4. ] && ok || bad "a n4.: not written as n4"
run a -saq n5 one.txt
same "-saq exit" "$(rc)" 7
run a n6.7z one.txt '-xm!one.txt'
same "a refuses -xm! (its scan has no mark mode)" "$(rc)" 7
[ ! -e n6.7z ] && ok || bad "a -xm! wrote an archive"
cd ..

# --- a password is asked at the first encrypted entry, as 7zz -----------------
fresh
run x enc.7z -oout
same "no password exit" "$(rc)" 255
same "no password: what comes before the first encrypted entry" "$(tree out)" \
    "src/ src/empty_dir/ src/sub/ src/sub/empty.txt:d41d8cd9 "
same "no password stderr" "$(cat err.txt)" "$(printf '\n\nBreak signaled')"
printf 'pw\n' >pw.txt
"$FZ7" x enc.7z -oout2 <pw.txt >out.txt 2>err.txt
same "password from stdin exit" "$?" 0
same "password from stdin tree" "$(tree out2)" "$SRC_TREE"
cd ..

# --- one password typed serves the archives after it, as 7zz ------------------
fresh; cp enc.7z enc2.7z
printf 'pw\n' | "$FZ7" t 'enc*.7z' >out.txt 2>err.txt
same "one password for two archives: exit" "$?" 0
same "one password for two archives: asked once" "$(grep -c 'Enter password' out.txt)" 1
same "one password for two archives: summary" "$(grep 'OK archives' out.txt)" "OK archives: 2"
cd ..

t_summary archives
