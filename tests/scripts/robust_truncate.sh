#!/usr/bin/env bash
# robust_truncate.sh - `fz7 t` on archives cut short at many offsets (a 7z
# with LZMA2 folders, a 7z with an encrypted header, a multi-block xz, a
# .lzma): every run ends within 10 s, by exit 1 or 2, never by a signal and
# never with 0 (a truncated archive is never Ok).
set -u
. "$(dirname "$0")/lib.sh"
t_init 7zz xz

# Inputs: text, incompressible and repetitive data (fixed, not random, so
# a failure is reproducible).
mkdir in
seq 1 300 >in/a.txt
seq 1 2000 | sha256sum | head -c 64 >in/r.bin
for i in $(seq 1 12); do seq $i 37 9000 | md5sum; done >>in/r.bin
head -c 2000 /dev/zero >in/z.bin
(cd in && 7zz a -m0=LZMA2:d=64k ../plain.7z . >/dev/null) || { echo "FAIL: 7zz a"; exit 1; }
(cd in && 7zz a -m0=LZMA2:d=64k -psecret -mhe=on ../enc.7z . >/dev/null) || { echo "FAIL: 7zz a -mhe"; exit 1; }
xz -c --block-size=700 in/a.txt >multi.xz
xz -c --format=lzma in/a.txt >alone.lzma

# offsets SIZE COUNT: every offset of the first and last 32 bytes (the
# signature header, the xz stream header and footer, the 7z end header),
# and COUNT more spread evenly over the rest.
offsets() {
    local n=$1 k=$2 i
    { seq 0 $((n < 32 ? n - 1 : 31)); seq $((n > 32 ? n - 32 : 0)) $((n - 1));
      [ "$n" -gt 64 ] && for i in $(seq 1 "$k"); do echo $((32 + (n - 64) * i / (k + 1))); done; } | sort -nu
}
# cut ARCHIVE COUNT ARGS...: truncate at each offset and test.
cut() {
    local arc=$1 k=$2; shift 2
    local n ext=${arc##*.} off rc runs=0 before=$fail
    n=$(stat -c %s "$arc")
    "$FZ7" t "$@" "$arc" >/dev/null 2>&1 || { bad "$arc: intact archive does not test Ok"; return; }
    for off in $(offsets "$n" "$k"); do
        head -c "$off" "$arc" >"cut.$ext"
        timeout 10 "$FZ7" t "$@" "cut.$ext" >out.txt 2>err.txt </dev/null
        rc=$?
        runs=$((runs + 1))
        case $rc in
        1|2) ;;
        0) bad "$arc cut at $off: exit 0 (a truncated archive tested Ok)" ;;
        124) bad "$arc cut at $off: still running after 10 s" ;;
        *) bad "$arc cut at $off: exit $rc"; sed 's/^/    /' err.txt | head -3 ;;
        esac
        if [ "$rc" -ge 1 ] && [ "$rc" -le 2 ] && ! grep -q . err.txt; then
            bad "$arc cut at $off: exit $rc without a message on stderr"
        fi
        [ $((fail - before)) -ge 10 ] && { echo "  ... stopping $arc after 10 failures"; break; }
    done
    [ "$fail" = "$before" ] && pass=$((pass + 1))
    echo "$arc: $n bytes, $runs cuts"
}

cut plain.7z 160
cut multi.xz 100
cut alone.lzma 40
cut enc.7z 24 -psecret

echo "robust_truncate.sh: $pass archives passed, $fail failures"
t_passed
