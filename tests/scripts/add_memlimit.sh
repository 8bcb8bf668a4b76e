#!/usr/bin/env bash
# add_memlimit.sh - `fz7 a` fits the memory it can get: under a 1 GB
# address-space limit (`ulimit -v`, as on shared hosts and containers) the
# default plan lowers its threads and blocks instead of failing with exit 8,
# and -mmemuse lowers them with a message. The input is over 96 MiB (3
# dictionaries at -mx5, where a folder is cut into blocks) but mostly
# zeros, so it codes in seconds. Each archive must give the input back.
set -u
. "$(dirname "$0")/lib_add.sh"
skip_sanitized "a sanitizer build cannot start under ulimit -v (its shadow memory)"
need_tools sha256sum
mkdir -p "$FZ7_SCRATCH" && cd "$FZ7_SCRATCH" || exit 1
rm -rf ./*

prng_bytes 300000 21 > big.bin
head -c 104857600 /dev/zero >> big.bin
text_lines 20000 22 >> big.bin
want=$(sha256sum < big.bin)

# run NAME SWITCHES...: a, then x, both under the limit; exit codes exact.
run() {
    local name=$1; shift
    rm -rf out "$name.7z"
    (ulimit -v 1000000 && "$FZ7" a -bso0 -bsp0 "$@" "$name.7z" big.bin) 2> "$name.err"
    local rc=$?
    [ $rc -eq 0 ] || fail "$name: a exited $rc under ulimit -v 1000000: $(cat "$name.err")"
    (ulimit -v 1000000 && "$FZ7" x -bso0 -bsp0 -oout "$name.7z") || fail "$name: x exited $?"
    [ "$(sha256sum < out/big.bin)" = "$want" ] || fail "$name: content differs"
}

run default
run mx1 -mx1 -mmt4
# -mmemuse below what two encoders need: one stream, and it says so.
run memuse -mmt4 -mmemuse=400m
grep -q "^fz7: fewer threads than -mmt4 (1 coder with match finder threads): the memory limit is 419 MB" memuse.err \
    || fail "memuse: no message about the lowered threads: $(cat memuse.err)"
rm -f big.bin ./*.7z
echo "add_memlimit: OK"
