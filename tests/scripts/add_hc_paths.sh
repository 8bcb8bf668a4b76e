#!/bin/bash
# add_hc_paths.sh - the hash-chain match finders of the fast levels (hc5 by
# default at -mx1..4, hc4 with -mmf=hc4) on an input several times the
# dictionary: the chain slots wrap many times, the window moves, skip runs
# and paired searches meet both ends of the data. Every archive must test
# and extract with 7zz to the exact input bytes, name the method asked for,
# and come out byte-identical when written twice; and a small -mx1 input
# (the tables in small pages) must extract exactly too.
set -u
. "$(dirname "$0")/lib_add.sh"
need_tools 7zz
S="${FZ7_SCRATCH:-$(mktemp -d)}"
rm -rf "$S"; mkdir -p "$S/in"
cd "$S" || exit 1

# ~2.6 MB: prose, a block repeated at several distances (long matches and
# long skip runs), random bytes (no matches), then the prose again.
text_lines 30000 7 > in/a.txt
prng_bytes 40000 3 > blk
{ cat blk blk; head -c 20000 blk; cat blk; } > in/b.bin
prng_bytes 200000 5 > in/c.rnd
{ cat in/a.txt; head -c 777 blk; cat in/a.txt; } > in/d.txt
tar cf in.tar -C in . 2>/dev/null || fail "tar"
want=$(sha256sum in.tar | cut -d' ' -f1)

n=0
while IFS='|' read -r args method; do
    n=$((n + 1))
    rm -rf "a$n.7z" "b$n.7z" "x$n"
    # shellcheck disable=SC2086
    "$FZ7" a -bd -mmt1 $args "a$n.7z" in.tar > log 2>&1 || { cat log >&2; fail "fz7 a $args"; }
    # shellcheck disable=SC2086
    "$FZ7" a -bd -mmt1 $args "b$n.7z" in.tar > log 2>&1 || { cat log >&2; fail "fz7 a $args (again)"; }
    cmp -s "a$n.7z" "b$n.7z" || fail "$args: two runs wrote different archives"
    7zz t "a$n.7z" > log 2>&1 || { cat log >&2; fail "$args: 7zz t fails"; }
    got_method=$(7zz l -slt "a$n.7z" | awk -F' = ' '/^Method = / {m = $2} END {print m}')
    [ "$got_method" = "$method" ] || fail "$args: method '$got_method', expected '$method'"
    7zz x -bd -o"x$n" "a$n.7z" > log 2>&1 || { cat log >&2; fail "$args: 7zz x fails"; }
    got=$(sha256sum "x$n/in.tar" | cut -d' ' -f1)
    [ "$got" = "$want" ] || fail "$args: extracted bytes differ"
    echo "ok: $args -> $(stat -c %s "a$n.7z") bytes, $method"
done <<'CASES'
-mx1|LZMA2:20
-mx1 -md=64k|LZMA2:16
-mx1 -md=64k -mmf=hc4|LZMA2:16
-mx3 -md=64k -mfb=273|LZMA2:16
-mx4 -md=64k -mmf=hc4 -mfb=5|LZMA2:16
-mx2 -m0=LZMA:d=64k:mf=hc5:fb=16|LZMA:16
CASES
# -mx1 keeps its window and its tables each in one 2 MiB huge page unless
# the input is known to be small: a 150 KB input takes the small-page path.
head -c 150000 in.tar > small.bin
want_small=$(sha256sum small.bin | cut -d' ' -f1)
rm -rf s.7z xs
"$FZ7" a -bd -mmt1 -mx1 s.7z small.bin > log 2>&1 || { cat log >&2; fail "fz7 a -mx1 (small input)"; }
7zz x -bd -oxs s.7z > log 2>&1 || { cat log >&2; fail "-mx1 small input: 7zz x fails"; }
[ "$(sha256sum xs/small.bin | cut -d' ' -f1)" = "$want_small" ] || fail "-mx1 small input: extracted bytes differ"
echo "ok: -mx1 small input -> $(stat -c %s s.7z) bytes"
echo "all $n hash-chain cases and the small input extract exactly"
