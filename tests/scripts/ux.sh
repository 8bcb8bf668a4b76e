#!/usr/bin/env bash
# ux.sh - everyday use: xz archives through pipes (-si, forward reading
# with no seek), the password from a file (--password-file) on archives 7zz encrypted,
# the progress line (never on a non-terminal unless forced, on a terminal
# by default, off with -bsp0), and the bash completion script.
set -u
. "$(dirname "$0")/lib.sh"
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
t_init 7zz xz python3


# Compressible test data, deterministic: 1.5 MB of numbered lines with words.
python3 - <<'EOF'
import random
r = random.Random(7)
words = ["".join(r.choice("etaoinshrdlu") for _ in range(r.randint(2, 9))) for _ in range(500)]
with open("data.txt", "w") as f:
    i = 0
    while f.tell() < 1_500_000:
        f.write("%d %s\n" % (i, " ".join(r.choice(words) for _ in range(r.randint(3, 12)))))
        i += 1
EOF
printf 'tiny\n' >tiny.txt

# --- pipes -------------------------------------------------------------------
xz -c data.txt | "$FZ7" x -si -txz -so 2>err.txt | cmp - data.txt
st=("${PIPESTATUS[@]}")
same "xz | x -si -txz -so | cmp" "${st[2]}" 0
same "x -si -so exit" "${st[1]}" 0
same "x -si -so: nothing on stderr, as 7zz" "$(wc -c <err.txt)" 0

xz -c --check=sha256 --block-size=200000 data.txt >blocks.xz
cat blocks.xz | "$FZ7" t -si -txz >out.txt 2>err.txt
same "t -si, 8 blocks, sha256" "$?" 0
same "t -si size" "$(sed -n 's/^Size: *//p' out.txt)" "$(stat -c %s data.txt)"
same "t -si compressed" "$(sed -n 's/^Compressed: //p' out.txt)" "$(stat -c %s blocks.xz)"

# Two streams with stream padding between them, read without -txz.
{ xz -c tiny.txt; printf '\0\0\0\0'; xz -c -0 data.txt; } >two.xz
cat tiny.txt data.txt >two.txt
cat two.xz | "$FZ7" x -si -so 2>/dev/null | cmp - two.txt && ok || bad "two streams through a pipe"

# Extraction to disk names the entry "~" as 7-Zip does; -si{name} names it.
mkdir o1 o2
(cd o1 && xz -c ../tiny.txt | "$FZ7" x -si -txz >/dev/null) && cmp o1/~ tiny.txt && ok || bad "x -si to disk: ~"
(cd o2 && xz -c ../tiny.txt | "$FZ7" x -sitiny.txt -txz >/dev/null) && cmp o2/tiny.txt tiny.txt && ok \
    || bad "x -si{name} to disk"

# Damage: a flipped byte in the data, a cut file, a 7z archive in a pipe.
python3 -c "
import sys; b = bytearray(open('blocks.xz','rb').read()); b[len(b)//2] ^= 0x10
open('bad.xz','wb').write(b)"
cat bad.xz | "$FZ7" t -si -txz >out.txt 2>err.txt
same "t -si corrupt exit" "$?" 2
grep -Eq "ERROR: (Data Error|CRC Failed)" err.txt && ok || bad "t -si corrupt message: $(head -2 err.txt)"
head -c 100000 blocks.xz | "$FZ7" t -si -txz >out.txt 2>err.txt
same "t -si truncated exit" "$?" 2
grep -q "Unexpected end of data" err.txt && ok || bad "t -si truncated message: $(head -2 err.txt)"
7zz a -bso0 -bsp0 t.7z tiny.txt >/dev/null || bad "7zz a t.7z"
cat t.7z | "$FZ7" t -si >out.txt 2>err.txt   # copied to a temporary file first
same "7z in a pipe: exit and Size line" "$? $(grep '^Size:' out.txt)" "0 Size:       $(stat -c %s tiny.txt)"
"$FZ7" t -si <t.7z >out.txt 2>err.txt
same "7z redirected to stdin" "$?" 0
cat tiny.txt | "$FZ7" t -si -txz >out.txt 2>err.txt
same "not xz in a pipe" "$?" 2

# --- --password-file: password from a file -------------------------------------------
7zz a -bso0 -bsp0 -p'pass word@1' -mhe=on enc.7z data.txt >/dev/null || bad "7zz a -p"
printf 'pass word@1\n' >pw.txt
printf 'pass word@1\r\n' >pw_crlf.txt
printf 'other\n' >wrong.txt
mkdir x1 x2 x3
"$FZ7" x --password-file=pw.txt -ox1 enc.7z >out.txt 2>err.txt
same "x --password-file exit" "$?" 0
cmp x1/data.txt data.txt && ok || bad "x --password-file content"
printf 'pass word@1' | "$FZ7" x --password-file=- -ox2 enc.7z >out.txt 2>err.txt
same "x --password-file=- (stdin, no newline) exit" "$?" 0
cmp x2/data.txt data.txt && ok || bad "x --password-file=- content"
"$FZ7" t --password-file=pw_crlf.txt enc.7z >out.txt 2>err.txt
same "t --password-file CRLF line" "$?" 0
"$FZ7" t --password-file=wrong.txt enc.7z >out.txt 2>err.txt
same "t --password-file wrong password" "$?" 2
"$FZ7" t --password-file=missing.txt enc.7z >out.txt 2>err.txt
same "t --password-file missing file" "$?" 7
"$FZ7" t -p --password-file=pw.txt enc.7z >out.txt 2>err.txt </dev/null
same "-p then --password-file: the file wins" "$?" 0
xz -c tiny.txt | "$FZ7" t -si -txz --password-file=- >out.txt 2>err.txt
same "-si with --password-file=-" "$?" 7

# --- progress ----------------------------------------------------------------
# Not a terminal: nothing on stderr at all, even for a slow input.
slow() { head -c 200000 blocks.xz; sleep 0.7; tail -c +200001 blocks.xz; }
slow | "$FZ7" t -si -txz >out.txt 2>err.txt
same "slow pipe exit" "$?" 0
same "no progress when stderr is not a terminal" "$(wc -c <err.txt)" 0
"$FZ7" x -o"$S/x3" -y enc.7z --password-file=pw.txt >out.txt 2>err.txt
same "no stderr from x on a file" "$(wc -c <err.txt)" 0
# Forced with -bsp2: the line shows bytes and speed, drawn with \r.
slow | "$FZ7" t -si -txz -bsp2 >out.txt 2>err.txt
grep -Eq "(KiB|MiB)/s" err.txt && ok || bad "-bsp2: no progress line"
tr '\r' '\n' <err.txt | grep -Eq "^[0-9.]+ (KiB|MiB)  [0-9.]+ (KiB|MiB)/s  - ~" && ok || bad "-bsp2 line shape: $(od -c err.txt | head -3)"
if command -v script >/dev/null; then
    # On a terminal (script gives one): shown by default, not with -bsp0.
    script -qec "{ head -c 200000 '$S/blocks.xz'; sleep 0.7; tail -c +200001 '$S/blocks.xz'; } | '$FZ7' t -si -txz" /dev/null >tty.txt
    grep -Eq "(KiB|MiB)/s" tty.txt && ok || bad "no progress on a terminal"
    grep -q "Everything is Ok" tty.txt && ok || bad "tty run did not finish"
    script -qec "{ head -c 200000 '$S/blocks.xz'; sleep 0.7; tail -c +200001 '$S/blocks.xz'; } | '$FZ7' t -si -txz -bsp0" /dev/null >tty0.txt
    grep -Eq "(KiB|MiB)/s" tty0.txt && bad "progress on a terminal despite -bsp0" || ok
fi

# --- -bb: per-file lines ----------------------------------------------------
printf a >bb_a.txt; printf bb >bb_b.txt
7zz a -bso0 -bsp0 -ms=on solid.7z bb_a.txt bb_b.txt >/dev/null || bad "7zz a solid.7z"
"$FZ7" t -bb1 solid.7z bb_b.txt >out.txt 2>&1
same "-bb1 names the tested file" "$(grep '^[.T] ' out.txt | tr '\n' ' ')" "T bb_b.txt "
"$FZ7" t -bb2 solid.7z bb_b.txt >out.txt 2>&1
same "-bb2 adds what the solid block passes over" "$(grep '^[.T] ' out.txt | tr '\n' ' ')" ". bb_a.txt T bb_b.txt "
"$FZ7" t solid.7z >out.txt 2>&1
same "-bb0 names nothing" "$(grep -c '^[.T] ' out.txt)" 0

# --- completions -------------------------------------------------------------
bash -c "source '$ROOT/packaging/completions/fz7.bash' && complete -p fz7" >out.txt 2>err.txt
same "bash completion loads" "$(cat out.txt)" "complete -F _fz7 fz7"
same "bash completion: no errors" "$(cat err.txt)" ""
mkdir -p comp/dir && touch comp/a.7z comp/b.xz comp/c.TXZ comp/d.lzma comp/e.txt
comp() {
    (cd comp && bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
        _fz7; printf "%s\n" "${COMPREPLY[@]}" | LC_ALL=C sort | tr "\n" " "' _ \
        "$ROOT/packaging/completions/fz7.bash" "$@")
}
same "complete command" "$(comp fz7 '')" "--help --version a b d e h i l rn t u x "
same "complete archive" "$(comp fz7 x '')" "a.7z b.xz c.TXZ d.lzma dir/ "
same "complete files after archive" "$(comp fz7 a a.7z e)" "e.txt "
same "complete -ao" "$(comp fz7 x a.7z -ao)" "-aoa -aos -aot -aou "
same "complete -o folder" "$(comp fz7 x a.7z -od)" "-odir/ "
same "complete b -mm" "$(comp fz7 b -mm=S)" "-mm=SHA256 "
same "complete a -mem" "$(comp fz7 a a.zip -mem=A)" "-mem=AES128 -mem=AES256 "
same "complete --password-file" "$(comp fz7 t --password-file=d)" "--password-file=d.lzma --password-file=dir "
same "complete -spf" "$(comp fz7 a a.7z -spf)" "-spf -spf2 "
same "complete u -u" "$(comp fz7 u a.7z -u)" "-u! -u- -up0q0r2x2y2z1w2 -uq0 -uq3 "
same "complete d -u" "$(comp fz7 d a.7z -u)" "-u! -u- -up0 -up3 "

t_summary ux
