#!/usr/bin/env bash
# add_rss.sh - incompressible data costs about the memory of zeros: `fz7 a
# -mmt2` of 64 MiB of random bytes at -mx1 and -mx3, 7z and xz (blocks
# coded side by side) peaks at most 10 % plus a margin of block inputs
# over the same command on 64 MiB of zeros, because a block's stored
# chunks are written from its input instead of being copied into its
# output (fz7_lzma2_coded; before, random bytes cost a copy of every block
# in flight, two for xz). The 7z margin: whether zeros' third block slot
# is ever filled depends on how fast the threads free the first two. Peak RSS comes from getrusage of
# the child (load does not change it). The random archives are stored
# chunks only: their exact size is checked, and both 7z files must test
# good.
set -u
. "$(dirname "$0")/lib_add.sh"
skip_sanitized "a sanitizer build's peak RSS is its shadow memory's"
need_tools python3
mkdir -p "$FZ7_SCRATCH" && cd "$FZ7_SCRATCH" || exit 1
rm -rf ./*

python3 -c 'import random, sys; sys.stdout.buffer.write(random.Random(7).randbytes(64 << 20))' > random.bin
head -c $((64 << 20)) /dev/zero > zeros.bin
[ "$(stat -c %s random.bin)" = 67108864 ] || fail "random.bin is not 64 MiB"

# peak_kb ARCHIVE INPUT SWITCHES...: `fz7 a`'s peak RSS in KiB (exit must be 0).
peak_kb() {
    local arc=$1 in=$2; shift 2
    rm -f "$arc"
    python3 - "$FZ7" a -bso0 -bsp0 "$@" "$arc" "$in" <<'PY'
import resource, subprocess, sys
r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss if r.returncode == 0 else "exit%d" % r.returncode)
PY
    [ $? = 0 ] || echo "exit?"
}

# format:level:KiB of margin. 7z: one block slot's input (block and
# prefix, lzma_presets.c): -mx1 4 MiB + 512 KiB, -mx3 16 MiB + 2 MiB. xz
# (independent blocks of 16 MiB, xz_write.c's jobs): a job keeps its input
# until its block is written only when the block has stored chunks, so
# random bytes hold two more inputs than zeros (the block being collected
# and the other job's). Exact sizes: 1024 stored chunks of 64 KiB (3-byte
# headers), and each container's headers.
for c in 7z:1:4608:67112067 7z:3:18432:67112067 xz:1:32768:67112112 xz:3:32768:67112112; do
    IFS=: read -r t l margin want <<< "$c"
    r=$(peak_kb r$l.$t random.bin -t$t -mx$l -mmt2)
    z=$(peak_kb z$l.$t zeros.bin -t$t -mx$l -mmt2)
    case "$r$z" in *exit*) fail "-t$t -mx$l: fz7 a failed (random: $r, zeros: $z)" ;; esac
    size=$(stat -c %s r$l.$t)
    [ "$size" = "$want" ] || fail "-t$t -mx$l: random.bin's archive is $size bytes, not $want"
    "$FZ7" t r$l.$t >/dev/null || fail "fz7 t r$l.$t"
    "$FZ7" t z$l.$t >/dev/null || fail "fz7 t z$l.$t"
    [ $((r * 10)) -le $((z * 11 + margin * 10)) ] ||
        fail "-t$t -mx$l -mmt2: random bytes peak at $r KiB, over 110 % of zeros' $z KiB + $margin KiB"
    echo "add_rss.sh: -t$t -mx$l -mmt2, 64 MiB: random $r KiB, zeros $z KiB"
done
echo "add_rss.sh: passed"
