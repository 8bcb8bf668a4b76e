#!/usr/bin/env bash
# add_rss.sh - incompressible data costs about the memory of zeros: `fz7 a
# -mmt2` of 64 MiB of random bytes at -mx1 and -mx3 (blocks coded side by
# side) peaks at most 10 % plus one block slot's input over the same
# command on 64 MiB of zeros, because a block's stored chunks are written
# from its input instead of being copied into its output (lzma2_mt.c,
# mt_ref; before, random bytes cost a copy of every block in flight).
# The slot: whether zeros' third block slot is ever filled depends on how
# fast the threads free the first two. Peak RSS comes from getrusage of
# the child (load does not change it). The random archives are stored
# chunks only: their exact size is checked, and both 7z files must test
# good.
set -u
if [ -n "${FZ7_SANITIZED:-}" ]; then
  echo "SKIP: a sanitizer build's peak RSS is its shadow memory's; the release pass runs this"
  exit 77
fi
. "$(dirname "$0")/lib_add.sh"
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

# level:KiB of one slot's input (block and prefix, lzma_presets.c):
# -mx1 4 MiB + 512 KiB, -mx3 16 MiB + 2 MiB.
for ls in 1:4608 3:18432; do
    l=${ls%:*} slot=${ls#*:}
    r=$(peak_kb r$l.7z random.bin -mx$l -mmt2)
    z=$(peak_kb z$l.7z zeros.bin -mx$l -mmt2)
    case "$r$z" in *exit*) fail "-mx$l: fz7 a failed (random: $r, zeros: $z)" ;; esac
    # 64 MiB in 1024 stored chunks of 64 KiB (3-byte headers), one end
    # byte, the 32-byte start header and the encoded header.
    size=$(stat -c %s r$l.7z)
    [ "$size" = 67112067 ] || fail "-mx$l: random.bin's archive is $size bytes, not 67112067"
    "$FZ7" t r$l.7z >/dev/null || fail "fz7 t r$l.7z"
    "$FZ7" t z$l.7z >/dev/null || fail "fz7 t z$l.7z"
    [ $((r * 10)) -le $((z * 11 + slot * 10)) ] ||
        fail "-mx$l -mmt2: random bytes peak at $r KiB, over 110 % of zeros' $z KiB + $slot KiB"
    echo "add_rss.sh: -mx$l -mmt2, 64 MiB: random $r KiB, zeros $z KiB"
done
echo "add_rss.sh: passed"
