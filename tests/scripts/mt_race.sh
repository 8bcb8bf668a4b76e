#!/usr/bin/env bash
# mt_race.sh - every multi-threaded path of fz7 on 3.5 MiB: LZMA2 blocks on
# 2 and 3 threads (-mx1), the binary tree's match finder on its own thread
# (-mx5), xz blocks, the 7z writer's pool across folders (-ms=off), 7zAES
# with encrypted headers, and the decoders' pool (t and x -mmt2).
# Each archive is written twice and must be the same bytes both times (the
# output never depends on timing; but for -p's random IV) and must extract to the input. Built
# with -DFZ7_TSAN=ON (scripts/test.sh's third pass, label tsan) it is the
# ThreadSanitizer run: a report makes fz7 exit 66 and the check fails.
set -u
. "$(dirname "$0")/lib.sh"
t_init python3 sha256sum
export TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1}

# 3 MiB of word soup (compressible, with repeats far apart) and 512 KiB of
# random bytes (the store test), from a fixed seed: two blocks at -mx1.
python3 - <<'EOF'
import random
r = random.Random(7)
words = "block stream folder coder match literal window thread pool queue range".split()
text = " ".join(r.choice(words) + str(r.randrange(1000)) for _ in range(420000)).encode()
with open("in.bin", "wb") as f:
    f.write(text[:3 << 20])
    f.write(r.randbytes(1 << 19))
EOF
mkdir tree small && split -b 300000 in.bin tree/p && cp tree/paa tree/pab small/

# check NAME ARCHIVE TREE SWITCHES...: a twice, same bytes, x -mmt2 back
# to the input.
check() {
    local name=$1 arc=$2 tree=$3; shift 3
    rm -f "$arc" "2$arc"
    expect_rc 0 "$name: a" "$FZ7" a -bd "$@" "$arc" "$tree"
    expect_rc 0 "$name: a again" "$FZ7" a -bd "$@" "2$arc" "$tree"
    local pw=()
    case " $* " in *" -ppw "*) pw=(-ppw) ;; esac
    # 7zAES takes a new random IV each time: only the others repeat
    [ ${#pw[@]} = 1 ] || { cmp -s "$arc" "2$arc" && ok || bad "$name: two runs wrote different archives"; }
    rm -rf out
    expect_rc 0 "$name: x -mmt2" "$FZ7" x -bd -mmt2 "${pw[@]}" "$arc" -oout
    same "$name: extracted" "$(cat out/"$tree"/p* 2>/dev/null | sha256sum)" "$(cat "$tree"/p* | sha256sum)"
}

check "-mx1 -mmt2" a1.7z tree -mx1 -mmt2
check "-mx1 -mmt3, 256 KiB dictionary" a2.7z tree -mx1 -mmt3 -md=256k
# the tree's searches are slow under ThreadSanitizer: 600 KB for this one
check "-mx5 -mmt2 (match finder thread)" a5.7z small -mx5 -mmt2
check "-ms=off -mmt2 (folders on one pool)" ms.7z tree -mx1 -mmt2 -ms=off
check "-ppw -mhe -mmt2" p.7z tree -mx1 -mmt2 -ppw -mhe

# xz: independent blocks, one per thread
rm -f a.xz 2a.xz
expect_rc 0 "xz: a" "$FZ7" a -bd -txz -mx1 -mmt2 a.xz in.bin
expect_rc 0 "xz: a again" "$FZ7" a -bd -txz -mx1 -mmt2 2a.xz in.bin
cmp -s a.xz 2a.xz && ok || bad "xz: two runs wrote different files"
same "xz: extracted" "$("$FZ7" x -so -mmt2 a.xz 2>/dev/null | sha256sum)" "$(sha256sum < in.bin)"

# one test of every block with both decoder threads
expect_rc 0 "t -mmt2" "$FZ7" t -bd -mmt2 a2.7z

t_summary mt_race
