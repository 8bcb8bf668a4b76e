#!/bin/bash
# update_trees.sh - seeded random updates of tar and zip archives, by fz7
# and by 7zz side by side: a random tree is archived by 7zz, then each
# round changes the tree (new, rewritten, touched and removed files) and
# runs one random command (u, a, d of a random entry or wildcard, rn of a
# random entry, each with random -bb, -r or -x!) on two copies of the
# archive, one by each program. After every round: the same exit code,
# the same entries (7zz l: time, attributes, size, name), and 7zz x of
# both copies gives the same files (contents and link targets). The order
# is not compared: 7zz's u, a and d write every entry sorted by name (its
# rn keeps the order, so after an rn an archive is no longer sorted); fz7
# keeps the old entries' order and merges the new ones in by name.
#
# FZ7_FUZZ_TREES trees (default 4: the CTest slice) of FZ7_FUZZ_ROUNDS
# rounds (default 6) from seed FZ7_FUZZ_SEED (default 26), the first being
# FZ7_FUZZ_FIRST (default 1) and the last kind FZ7_FUZZ_KINDS (default
# "tar zip"); a failure prints the seed, tree, round and command, and
# keeps the scratch folder.
set -u
. "$(dirname "$0")/lib.sh"
t_init 7zz python3
export LC_ALL=C.UTF-8 TZ=UTC
TREES=${FZ7_FUZZ_TREES:-4}
ROUNDS=${FZ7_FUZZ_ROUNDS:-6}
SEED=${FZ7_FUZZ_SEED:-26}
FIRST=${FZ7_FUZZ_FIRST:-1}
KINDS=${FZ7_FUZZ_KINDS:-tar zip}

entries() { 7zz l "$1" 2>/dev/null | awk '/^-------------------/{n++; next} n==1' | cut -c1-39,54-; }
content() {   # a folder's files: path, kind, link target or sha256; two
              # entries of one name (rn onto a name in use) come out as
              # name and name_1 (-aou), which is which by their order
    (cd "$1" && find . -mindepth 1 | while IFS= read -r f; do
        if [ -L "$f" ]; then echo "L ${f%_1} $(readlink "$f")"
        elif [ -d "$f" ]; then echo "D ${f%_1}"
        else echo "F ${f%_1} $(sha256sum <"$f" | cut -c1-16)"; fi
    done | LC_ALL=C sort)
}

for t in $(seq "$FIRST" $((FIRST + TREES - 1))); do
    for kind in $KINDS; do
        rm -rf w z.$kind f.$kind
        # round 0 makes the tree; each later round changes it and prints
        # one command line (ARC stands for the archive)
        step() {
            python3 - "$SEED" "$t" "$1" "$kind" <<'PY'
import os, random, sys
seed, t, rnd, kind = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
r = random.Random(seed * 1000003 + t * 101 + rnd * 7 + (kind == "zip"))
names = ["a.txt", "b b.txt", "ü.txt", "-dash", "x" * 110, "d/s/f", "d/g.bin", "e/h", "e/i j/k"]
def write(p):
    os.makedirs(os.path.dirname(p) or ".", exist_ok=True)
    n = r.choice([0, 1, 100, 5000, r.randrange(70000)])
    with open(p, "wb") as f:
        f.write(bytes(r.randrange(256) for _ in range(n)) if r.random() < 0.3 else (b"lzma match " * (n // 11 + 1))[:n])
    # whole seconds, some old and some new: the update rules compare them
    s = r.choice([1700000000, 1700000001, 1760000000]) + r.randrange(3) * 2
    os.utime(p, (s, s))
os.chdir("w")
if rnd == 0:
    for p in r.sample(names, r.randrange(3, len(names))):
        write(p)
    if r.random() < 0.5:
        os.makedirs("empty", exist_ok=True)
    sys.exit(0)
files = sorted(os.path.relpath(os.path.join(d, f)) for d, _, fs in os.walk(".") for f in fs)
for _ in range(r.randrange(3)):
    write(r.choice(names))
if files and r.random() < 0.3:
    os.remove(r.choice(files))
cmd = r.choice(["u", "u", "a", "d", "d", "rn"])
sw = []
if r.random() < 0.3:
    sw.append("-bb%d" % r.randrange(4))
if cmd in ("u", "a"):
    if r.random() < 0.3:
        sw.append("-x!" + r.choice(names))
    tail = r.choice([["."], ["d", "a.txt"], ["e"], ["*.txt"]])
elif cmd == "d":
    if r.random() < 0.3:
        sw.append("-r")
    tail = [r.choice(names + ["d", "e", "*.txt", "f"])]
else:
    tail = [r.choice(names + ["d", "e"]), r.choice(["new", "d/moved", "e/z"])]
print(" ".join([cmd] + sw + ["ARC"] + tail))
PY
        }
        mkdir w && step 0
        (cd w && 7zz a -bd "../z.$kind" . >/dev/null 2>&1) && cp "z.$kind" "f.$kind"
        for rnd in $(seq 1 "$ROUNDS"); do
            line=$(step "$rnd")
            [ -n "${FZ7_FUZZ_STOP:-}" ] && [ "$rnd" = "$FZ7_FUZZ_STOP" ] && { echo "$line"; cp z.$kind z0.$kind; cp f.$kind f0.$kind; }
            read -r -a zargs <<<"${line/ARC/../z.$kind}"
            read -r -a fargs <<<"${line/ARC/../f.$kind}"
            (cd w && 7zz "${zargs[@]}" >../z.out 2>&1 </dev/null); zr=$?
            (cd w && "$FZ7" "${fargs[@]}" >../f.out 2>&1 </dev/null); fr=$?
            where="seed $SEED tree $t $kind round $rnd: $line"
            if [ "$zr" != "$fr" ]; then bad "$where: exit $fr, 7zz $zr"; sed 's/^/    /' f.out | tail -5; continue; fi
            ok
            if [ "$(entries z.$kind | sort)" = "$(entries f.$kind | sort)" ]; then ok; else
                bad "$where: the entries differ"; diff <(entries z.$kind | sort) <(entries f.$kind | sort) | head -8; fi
            # two entries of one path, or a file where another entry has a
            # folder, extract by their order, which may differ: not compared
            if 7zz l -slt "z.$kind" 2>/dev/null | python3 -c '
import sys
p = [l[7:].rstrip("\n") for l in sys.stdin if l.startswith("Path = ")][1:]
d = [l.split(" = ")[1].strip() == "+" for l in open(sys.argv[1]) if l.startswith("Folder = ")]
files = {x for x, isdir in zip(p, d) if not isdir}
sys.exit(0 if len(set(p)) < len(p) or any(x.startswith(f + "/") for f in files for x in p) else 1)
' <(7zz l -slt "z.$kind" 2>/dev/null); then continue; fi
            rm -rf xz xf && mkdir xz xf
            7zz x -bd -aou -oxz "z.$kind" >/dev/null 2>&1; 7zz x -bd -aou -oxf "f.$kind" >/dev/null 2>&1
            if [ "$(content xz)" = "$(content xf)" ]; then ok; else
                bad "$where: 7zz x gives other files"; diff <(content xz) <(content xf) | head -8; fi
        done
    done
done

t_summary update_trees "($TREES trees x $ROUNDS rounds, tar and zip, seed $SEED)"
