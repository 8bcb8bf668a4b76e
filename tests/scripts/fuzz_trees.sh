#!/bin/bash
# fuzz_trees.sh - seeded random trees through `fz7 a` with random switches
# (7z; zip for about a quarter of them, tar for some), read back by fz7 and
# by 7zz. Each tree has a few files of random sizes
# and kinds (text, binary, zeros, x86-like code, empty), empty folders,
# symlinks (to files at or below their folder), modes and names with spaces, quotes, leading dashes, control
# and non-ASCII characters (valid UTF-8: invalid bytes are issue 21 part
# 4's). fz7 t must pass, and fz7 x and 7zz x must give the tree back
# (contents, modes, mtimes, link targets: lib_add.sh same_tree).
#
# FZ7_FUZZ_TREES trees (default 6: the CTest slice) from seed
# FZ7_FUZZ_SEED (default 21); a failure prints the seed, the tree number
# and the switches, and keeps the tree in the scratch folder.
set -u
. "$(dirname "$0")/lib_add.sh"
need_tools 7zz python3
S="${FZ7_SCRATCH:-$(mktemp -d)}"
rm -rf "$S"; mkdir -p "$S"
cd "$S" || exit 1
TREES=${FZ7_FUZZ_TREES:-6}
SEED=${FZ7_FUZZ_SEED:-21}

for i in $(seq 1 "$TREES"); do
    rm -rf "$S/tree" "$S/xf" "$S/x7" "$S/a.7z"
    # the tree, and on stdout the switches for this round
    switches=$(python3 - "$S/tree" "$SEED" "$i" <<'PY'
import os, random, sys
root, seed, i = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
r = random.Random(seed * 100003 + i)
odd = ["a b", "-dash", "'q'", '"dq"', "t\tab", "ü.txt", "日本語", "e\u0301", "x" * 120, "#hash", "$dollar",
       "semi;colon", "star*", "que?", "sp ", ".hidden", "UPPER", "new\nline", "emoji\U0001F600"]
def name():
    return r.choice(odd) + str(r.randrange(1000)) if r.random() < 0.6 else "f%d" % r.randrange(10000)
def data():
    k = r.randrange(6)
    n = r.choice([0, 1, 7, 100, 4096, 65537, r.randrange(300000)])
    if k == 0: return bytes(r.randrange(256) for _ in range(min(n, 20000)))
    if k == 1: return (" ".join(r.choice(["lzma", "match", "the", "of", "range\n"]) for _ in range(n // 5 + 1))).encode()[:n]
    if k == 2: return bytes(n)
    if k == 3: return (b"\x55\x89\xe5\xe8\x10\x00\x00\x00\xe9\xf0\xff\xff\xff\xc3" * (n // 14 + 1))[:n]
    if k == 4: return b""
    return os.urandom(0) + bytes((j * 7 + j // 251) & 255 for j in range(n))
os.makedirs(root)
dirs, files = [root], []
for _ in range(r.randrange(1, 12)):
    d = r.choice(dirs)
    kind = r.random()
    p = os.path.join(d, name())
    if os.path.lexists(p):
        continue
    if kind < 0.2:
        os.mkdir(p); dirs.append(p)
    elif kind < 0.85 or not files:
        with open(p, "wb") as f: f.write(data())
        os.chmod(p, r.choice([0o644, 0o600, 0o755, 0o444, 0o640]))
        files.append(p)
    else:
        # targets at or below the link's folder: links through ".." are
        # refused by 7zz and fz7 alike for now (issue 21 part 5)
        below = [f for f in files if not os.path.relpath(f, d).startswith("..")]
        if below:
            os.symlink(os.path.relpath(r.choice(below), d), p)
for p in files + dirs:
    os.utime(p, (1600000000 + r.randrange(10**8),) * 2, follow_symlinks=False)
sw = [r.choice(["-mx0", "-mx1", "-mx3", "-mx5", "-mx7", "-mx9"]), "-mmt%d" % r.randrange(1, 5)]
if r.random() < 0.15:   # a tar (libarchive's GNU writer)
    print(" ".join(["-ttar"] + sw))
    sys.exit(0)
if r.random() < 0.3:   # a zip (fz7's own writer)
    sw = ["-tzip"] + sw + r.choice([[], ["-mm=Deflate64"], ["-mm=Copy"], ["-mfb=258", "-mpass=3"], ["-mm=BZip2"],
                                    ["-mm=LZMA"], ["-mm=xz"]])
    sw += r.choice([[], ["-psecret"], ["-psecret", "-mem=AES128"], ["-psecret", "-mem=AES192"],
                    ["-psecret", "-mem=AES256"]])
    sw += r.choice([[], ["-mtc=on", "-mta=on"], ["-mcl=on"]])
    print(" ".join(sw))
    sys.exit(0)
sw += r.choice([[], ["-m0=LZMA"], ["-m0=LZMA2:d=64k"], ["-m0=Copy"]])
sw += r.choice([[], ["-mf=off"], ["-mf=BCJ"], ["-mf=BCJ2"], ["-mf=Delta:4"]]) if "-m0=Copy" not in sw else []
sw += r.choice([[], ["-ms=off"], ["-ms=e"], ["-ms=64k"]])
sw += r.choice([[], ["-mhc=off"], ["-psecret"], ["-psecret", "-mhe=on"]])
print(" ".join(sw))
PY
) || fail "tree $i: generator failed"
    pw=; case " $switches " in *" -psecret "*) pw=-psecret ;; esac
    arc=$S/a.7z; case " $switches " in *" -tzip "*) arc=$S/a.zip ;; *" -ttar "*) arc=$S/a.tar ;; esac
    rm -f "$S/a.zip" "$S/a.tar"
    # shellcheck disable=SC2086
    "$FZ7" a -bd -snl $switches "$arc" tree >"$S/log" 2>&1 ||
        { rc=$?; cat "$S/log"; fail "seed $SEED tree $i: fz7 a $switches exited $rc"; }
    "$FZ7" t $pw "$arc" >"$S/log" 2>&1 || { rc=$?; cat "$S/log"; fail "seed $SEED tree $i ($switches): fz7 t exited $rc"; }
    mkdir "$S/xf" "$S/x7"
    "$FZ7" x -snl $pw -o"$S/xf" "$arc" >"$S/log" 2>&1 ||
        { rc=$?; cat "$S/log"; fail "seed $SEED tree $i ($switches): fz7 x exited $rc"; }
    same_tree "$S/tree" "$S/xf/tree"
    7zz x -snl $pw -o"$S/x7" "$arc" >"$S/log" 2>&1 ||
        { rc=$?; cat "$S/log"; fail "seed $SEED tree $i ($switches): 7zz x exited $rc"; }
    same_tree "$S/tree" "$S/x7/tree"
    echo "ok tree $i: $(find "$S/tree" | wc -l) entries, $switches, $(stat -c %s "$arc") bytes"
done
echo "fuzz_trees: $TREES trees from seed $SEED read back by fz7 and 7zz"
