#!/bin/bash
# add_crypt.sh - `fz7 a -p` and `-mhe=on`: 7zz reads the archive with the
# password and refuses it without (or with a wrong one); the header is
# hidden with -mhe; an encrypted archive can be updated with its password.
set -u
. "$(dirname "$0")/lib_add.sh"
need_tools 7zz
S="${FZ7_SCRATCH:-$(mktemp -d)}"
rm -rf "$S"; mkdir -p "$S"
cd "$S" || exit 1
make_tree "$S"

"$FZ7" a -bd -snl -p'pä55 wörd' enc.7z tree > log 2>&1 || { cat log; fail "fz7 a -p"; }
7zz t -p'pä55 wörd' enc.7z > log 2>&1 || { cat log; fail "7zz t with the password"; }
7zz t -pwrong enc.7z > log 2>&1 && fail "7zz t accepted a wrong password"
[ "$(7zz l -slt enc.7z | grep -c '^Encrypted = +')" -gt 5 ] || fail "entries not marked encrypted"
7zz l -slt enc.7z | grep -q '^Method = .*7zAES' || fail "no 7zAES coder"
7zz l enc.7z | grep -q 'tree/docs/words.txt' || fail "without -mhe the names must be readable"
rm -rf out; mkdir out
7zz x -snl -p'pä55 wörd' -oout enc.7z > log 2>&1 || { cat log; fail "7zz x with the password"; }
same_tree tree out/tree

"$FZ7" a -bd -snl -psecret -mhe=on hid.7z tree > log 2>&1 || { cat log; fail "fz7 a -mhe=on"; }
7zz l -p- hid.7z > log 2>&1 && fail "7zz listed a -mhe archive without the password"
grep -q 'words.txt' hid.7z && fail "a name is readable in a -mhe archive"
7zz t -psecret hid.7z > log 2>&1 || { cat log; fail "7zz t -mhe archive"; }
rm -rf out; mkdir out
7zz x -snl -psecret -oout hid.7z > log 2>&1 || { cat log; fail "7zz x -mhe archive"; }
same_tree tree out/tree

# Update of an encrypted archive.
mkdir -p up && printf 'new file\n' > up/new.txt
"$FZ7" a -bd -psecret -mhe=on hid.7z up/new.txt > log 2>&1 || { cat log; fail "update of an encrypted archive"; }
7zz t -psecret hid.7z > log 2>&1 || { cat log; fail "7zz t after update"; }
[ "$(7zz x -so -psecret hid.7z up/new.txt)" = "new file" ] || fail "updated entry"
7zz x -so -psecret hid.7z tree/docs/words.txt | cmp - tree/docs/words.txt || fail "kept entry after update"
# Without -mhe, `a` and `u` with -p keep a -mhe archive's names hidden, as
# 7zz does; -mhe=off shows them.
for cmd in a u; do
  printf '%s\n' "$cmd" > up/$cmd.txt
  "$FZ7" $cmd -bd -psecret hid.7z up/$cmd.txt > log 2>&1 || { cat log; fail "$cmd -p of a -mhe archive"; }
  7zz l -p- hid.7z > log 2>&1 && fail "$cmd -p without -mhe showed a -mhe archive's names"
  [ "$(7zz x -so -psecret hid.7z up/$cmd.txt)" = "$cmd" ] || fail "$cmd -p of a -mhe archive: new entry"
done
cp hid.7z shown.7z
"$FZ7" a -bd -psecret -mhe=off shown.7z up/new.txt > log 2>&1 || { cat log; fail "a -mhe=off"; }
7zz l -p- shown.7z | grep -q 'up/new.txt' || fail "a -mhe=off of a -mhe archive: names still hidden"

# xz has no encryption: refused.
"$FZ7" a -bd -psecret x.xz tree/one_byte > log 2>&1 && fail "fz7 a -p on .xz succeeded"
[ -e x.xz ] && fail "refused .xz left a file"
echo PASS
