#!/usr/bin/env bash
# bench_cmd.sh - `fz7 b`: each method runs, exits 0 and prints its table
# with the kernel path of every CPU level (no timing is asserted: the
# numbers vary, the lines and names do not); FZ7_CPU=portable leaves only
# the portable path; bad -mm/-md values are command line errors (exit 7).
set -u
. "$(dirname "$0")/lib.sh"
t_init

has() { # has NAME REGEX: a line of out.txt matches
    if grep -Eq -- "$2" out.txt; then ok; else bad "$1: no line matching /$2/"; sed 's/^/    /' out.txt | head -30; fi
}
hasnt() {
    if grep -Eq -- "$2" out.txt; then bad "$1: unexpected line matching /$2/"; else ok; fi
}

# The paths the dispatch table chose, as --version prints them.
"$FZ7" --version >ver.txt || bad "--version"
path_of() { sed -n "s/^$1: //p" ver.txt; }
level=$(sed -n 's/^Dispatch level: \([a-z0-9]*\).*/\1/p' ver.txt)
[ -n "$level" ] && ok || bad "no dispatch level in --version"

num='[0-9]+'
for m in CRC32 CRC64 SHA256; do
    lower=$(echo "$m" | tr 'A-Z' 'a-z')
    expect_rc 0 "b -mm=$m" "$FZ7" b -mm=$m
    has "b -mm=$m header" "^CPU: "
    has "b -mm=$m level" "^Dispatch level: $level "
    has "b -mm=$m table" "^$m +Path +4 KiB +64 KiB +1024 KiB +Gain$"
    has "b -mm=$m own row" "^  $level +$(path_of "$lower") +$num +$num +$num +$num\.[0-9]x$"
    has "b -mm=$m portable row" "^  portable +portable +$num +$num +$num +1\.0x$"
    hasnt "b -mm=$m no LZMA" "^LZMA"
    expect_rc 0 "FZ7_CPU=portable b -mm=$m" env FZ7_CPU=portable "$FZ7" b -mm=$m
    has "portable $m level" "^Dispatch level: portable "
    has "portable $m row" "^  portable +portable +$num +$num +$num +1\.0x$"
    hasnt "portable $m: no faster level" "^  avx"
done

expect_rc 0 "b -mm=AES256CBC" "$FZ7" b -mm=AES256CBC
has "AES dec table" "^AES256CBC:dec +Path"
has "AES enc table" "^AES256CBC:enc +Path"
has "AES dec own path" "^  $level +$(path_of aes_cbc_dec) "
has "AES enc own path" "^  $level +$(path_of aes_cbc_enc) "
has "AES portable" "^  portable +portable "

# LZMA: one small dictionary on one thread keeps this short; the round trip
# inside the benchmark is checked (a mismatch is exit 2).
expect_rc 0 "b -mm=LZMA -md22 -mmt1" "$FZ7" b -mm=LZMA -md22 -mmt1
has "LZMA title" "^LZMA \(level 5: normal parser, bt4, nice_len 32\), 1 thread, match_len: $(path_of match_len)$"
has "LZMA columns" "^Dict +Speed +Usage +Ratio +Rating +\| +Speed +Usage +Rating$"
has "LZMA row 22" "^22: +$num\.[0-9]+ +$num +$num\.[0-9] +$num +\| +$num\.[0-9]+ +$num +$num$"
hasnt "LZMA only 22" "^23:"
has "LZMA average" "^Avr: "
has "LZMA total" "^Tot: "
if [ "$level" != portable ]; then
    has "LZMA at each level" "^portable +portable +compress +$num\.[0-9]+ MB/s +decompress"
fi
hasnt "LZMA no kernels" "^CRC32 "
expect_rc 0 "b -mm=LZMA -md=4m -mmt2" "$FZ7" b -mm=LZMA -md=4m -mmt2
has "-md=4m is 2^22" "^22: "
has "2 threads" ", 2 threads, "

expect_rc 7 "b -mm=NOPE" "$FZ7" b -mm=NOPE
grep -q "Unsupported benchmark method" err.txt && ok || bad "b -mm=NOPE message"
expect_rc 7 "b -mdx" "$FZ7" b -mdx
expect_rc 7 "b passes not a number" "$FZ7" b xyz

t_summary bench_cmd
