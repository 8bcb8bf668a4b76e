#!/usr/bin/env bash
# backup.sh - a backup-like benchmark: builds a seeded, reproducible input
# set (a disk image of zeros, text and random runs; a folder of
# incompressible media-like files; many small text files; a source tree
# from /usr/include; executables from /usr/bin) and writes it with fz7
# beside 7zz, xz -T0 (of a tar) and fast-lzma2 (fl2cli, of the same tar)
# at the default and the fast levels. Prints per command the median over
# the rounds (run interleaved) of wall and CPU seconds (user + sys) and
# peak RSS (from /usr/bin/time -f), the output bytes and the ratio to the
# input, and CPU and bytes over 7zz's at the same level.
#
# Usage: bench/backup.sh [-s quick|full] [-r ROUNDS] [-k] FZ7_BINARY [WORKDIR]
#   -s  quick (default): about 150 MB and 10,000 small files;
#       full: about 3 GB and 100,000 small files
#   -r  rounds (default 3)
#   -k  keep WORKDIR (default: a temporary folder, removed at the end)
# The generated files depend only on the seed, except the /usr/include and
# /usr/bin parts, which are copies of this machine's files (sorted, cut at a
# size).
set -euo pipefail
size=quick rounds=3 keep=0
while getopts "s:r:k" o; do
  case $o in
    s) size=$OPTARG ;;
    r) rounds=$OPTARG ;;
    k) keep=1 ;;
    *) sed -n '2,18p' "$0"; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
fz7=$(realpath "${1:?usage: backup.sh [-s quick|full] [-r ROUNDS] [-k] FZ7_BINARY [WORKDIR]}")
top=$(cd "$(dirname "$0")/.." && pwd)
fl2=${FL2CLI:-$top/../shared/bench/peers/fast-lzma2/fl2cli}
work=${2:-$(mktemp -d "${TMPDIR:-/tmp}/fz7-backup.XXXXXX")}
mkdir -p "$work"
[ $keep = 1 ] || [ -n "${2:-}" ] || trap 'rm -rf "$work"' EXIT
threads=$(nproc)

case $size in
  quick) disk_mb=64 media_mb=32 small=10000 src_mb=16 bin_mb=16 ;;
  full) disk_mb=1536 media_mb=768 small=100000 src_mb=128 bin_mb=400 ;;
  *) echo "backup.sh: -s quick or -s full" >&2; exit 2 ;;
esac

# ---- The input set ----------------------------------------------------------
set_dir=$work/set
if [ ! -f "$work/set.done.$size" ]; then
  rm -rf "$set_dir" "$work"/set.done.*
  mkdir -p "$set_dir"
  python3 - "$set_dir" "$disk_mb" "$media_mb" "$small" "$src_mb" "$bin_mb" <<'EOF'
import os, random, sys
out, disk_mb, media_mb, small, src_mb, bin_mb = sys.argv[1], *map(int, sys.argv[2:])
rng = random.Random(20)
words = ("backup archive the of and to in is that for it with as was on be by this are from at or "
         "file folder disk image block sector partition table index record database log entry error "
         "warning system user kernel memory process thread network packet request response server "
         "client session time date value number string name path size offset length header").split()
def text(n):
    parts, have = [], 0
    while have < n:
        line = " ".join(rng.choice(words) for _ in range(rng.randint(4, 14)))
        line = f"{rng.randint(0, 99999):05d} {line}\n"
        parts.append(line)
        have += len(line)
    return "".join(parts).encode()[:n]
MiB = 1 << 20
# A disk image: 1 MiB blocks of zeros (half), text (a quarter), random bytes
# (an eighth) or a mix of 4 KiB sectors of the three.
with open(os.path.join(out, "disk.img"), "wb") as f:
    for _ in range(disk_mb):
        k = rng.random()
        if k < 0.5:
            f.write(bytes(MiB))
        elif k < 0.75:
            f.write(text(MiB))
        elif k < 0.875:
            f.write(rng.randbytes(MiB))
        else:
            f.write(b"".join(rng.choice((bytes(4096), text(4096), rng.randbytes(4096))) for _ in range(256)))
# Media-like files: a small structured header, then bytes as good as random.
os.makedirs(os.path.join(out, "media"))
left, i = media_mb * MiB, 0
while left > 0:
    n = min(left, rng.randint(MiB // 2, 8 * MiB))
    with open(os.path.join(out, "media", f"IMG_{i:04d}.jpg"), "wb") as f:
        f.write(b"\xff\xd8\xff\xe0\x00\x10JFIF\x00" + bytes(500) + rng.randbytes(n - 511))
    left -= n
    i += 1
# Small text files, 0-4 KiB, 100 to a folder.
for i in range(small):
    d = os.path.join(out, "docs", f"d{i // 100:04d}")
    if i % 100 == 0:
        os.makedirs(d)
    with open(os.path.join(d, f"note{i:06d}.txt"), "wb") as f:
        f.write(text(rng.randint(0, 4096)))
# This machine's headers and executables, sorted, up to a size.
def copy_tree(src, dst, cap):
    have = 0
    for root, dirs, files in os.walk(src):
        dirs.sort()
        for name in sorted(files):
            p = os.path.join(root, name)
            if os.path.islink(p) or not os.path.isfile(p):
                continue
            n = os.path.getsize(p)
            if have + n > cap:
                return
            q = os.path.join(dst, os.path.relpath(p, src))
            os.makedirs(os.path.dirname(q), exist_ok=True)
            with open(p, "rb") as a, open(q, "wb") as b:
                b.write(a.read())
            have += n
copy_tree("/usr/include", os.path.join(out, "src"), src_mb * MiB)
copy_tree("/usr/bin", os.path.join(out, "bin"), bin_mb * MiB)
EOF
  # One mtime for everything: the same archives whenever the set is made.
  find "$set_dir" -exec touch -h -d '2026-01-01 00:00:00' {} +
  touch "$work/set.done.$size"
fi
(cd "$set_dir" && tar cf "$work/set.tar" --sort=name --mtime='2026-01-01' --owner=0 --group=0 --numeric-owner .)
in_bytes=$(stat -c %s "$work/set.tar")
nfiles=$(find "$set_dir" -type f | wc -l)

# ---- The commands -----------------------------------------------------------
# name|output|command (run in $work)
cmds=(
  "fz7 default|o.fz7.7z|$fz7 a -bso0 -bsp0 o.fz7.7z set/"
  "7zz default|o.7zz.7z|7zz a -bso0 -bsp0 o.7zz.7z set/"
  "xz -T0 -6|o.xz6.xz|xz -T0 -6 -k -c set.tar > o.xz6.xz"
  "fl2cli 6|o.fl6|$fl2 c 6 $threads set.tar o.fl6"
  "fz7 -mx1|o.fz7-1.7z|$fz7 a -bso0 -bsp0 -mx1 o.fz7-1.7z set/"
  "7zz -mx1|o.7zz-1.7z|7zz a -bso0 -bsp0 -mx1 o.7zz-1.7z set/"
  "xz -T0 -1|o.xz1.xz|xz -T0 -1 -k -c set.tar > o.xz1.xz"
  "fl2cli 1|o.fl1|$fl2 c 1 $threads set.tar o.fl1"
)
[ -x "$fl2" ] || cmds=("${cmds[@]/*fl2cli*/}")

res=$work/results.txt
: > "$res"
cd "$work"
for ((r = 1; r <= rounds; r++)); do
  for c in "${cmds[@]}"; do
    [ -n "$c" ] || continue
    IFS='|' read -r name out cmd <<<"$c"
    rm -f "$out"
    /usr/bin/time -f "%e %U %S %M" -o time.txt sh -c "$cmd" >/dev/null 2>&1 || { echo "backup.sh: $name failed" >&2; exit 1; }
    read -r wall user sys rss < time.txt
    echo "$name|$wall|$user|$sys|$rss|$(stat -c %s "$out")" >> "$res"
    rm -f "$out"
  done
done

echo "backup.sh: $size set, $nfiles files, $in_bytes bytes as a tar; $rounds round(s), medians; $threads threads"
python3 - "$res" "$in_bytes" <<'EOF'
import sys, statistics as st
rows = {}
for line in open(sys.argv[1]):
    name, wall, user, sys_, rss, size = line.strip().split("|")
    rows.setdefault(name, []).append((float(wall), float(user) + float(sys_), float(sys_), int(rss), int(size)))
inb = int(sys.argv[2])
med = {n: tuple(st.median(x[i] for x in v) for i in range(5)) for n, v in rows.items()}
print(f"{'command':<12} {'wall s':>8} {'CPU s':>8} {'sys s':>7} {'RSS MB':>8} {'bytes':>13} {'ratio':>7} {'CPU/7zz':>8} {'bytes/7zz':>9}")
for n, (wall, cpu, sys_, rss, size) in med.items():
    ref = med.get("7zz -mx1" if ("1" in n.split()[-1] and n.split()[-1] in ("-mx1", "-1", "1")) else "7zz default")
    rc = f"{cpu / ref[1]:.3f}" if ref else "-"
    rb = f"{size / ref[4]:.4f}" if ref else "-"
    print(f"{n:<12} {wall:8.2f} {cpu:8.2f} {sys_:7.2f} {rss / 1024:8.1f} {int(size):13,d} {size / inb:7.4f} {rc:>8} {rb:>9}")
EOF
