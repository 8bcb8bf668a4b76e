#!/bin/bash
# extract_anti.sh - x and e with anti-items (7zz u -uq3 writes them for
# files and folders gone from the disk): the file or empty folder of the
# anti-item's name goes, as 7zz x deletes it; a folder that is not empty
# stays; a symlink at the name goes itself, its target stays; nothing is
# deleted through a symlinked parent or outside the output folder.
set -u
. "$(dirname "$0")/lib_add.sh"
need_tools 7zz
S="${FZ7_SCRATCH:-$(mktemp -d)}"
rm -rf "$S"; mkdir -p "$S"
cd "$S" || exit 1

mkdir -p src/sub src/gonedir && echo a > src/a.txt && echo g > src/gone.txt && echo c > src/sub/c.txt
7zz a -bd anti.7z src > /dev/null || fail "7zz a"
rm -r src/gone.txt src/gonedir
7zz u -bd -uq3 anti.7z src > /dev/null || fail "7zz u -uq3"
[ "$(7zz l -slt anti.7z | awk '/^Path = /{p=substr($0, 8)} /^Anti = \+/{printf "%s ", p}')" = "src/gone.txt src/gonedir " ] ||
    fail "7zz did not write the two anti-items"

tree() { (cd "$1" && find . -mindepth 1 | LC_ALL=C sort | tr '\n' ' '); }

# The file and the empty folder go; another file stays; x says nothing of it.
mkdir -p o1/src/gonedir && echo x > o1/src/gone.txt && echo k > o1/src/other
"$FZ7" x -bd anti.7z -oo1 -y > log 2>&1; rc=$?
[ $rc = 0 ] || { cat log; fail "x: exit $rc"; }
[ "$(tree o1)" = "./src ./src/a.txt ./src/other ./src/sub ./src/sub/c.txt " ] || fail "x: o1 holds $(tree o1)"
grep -q '^Folders: 3$' log && grep -q '^Files: 3$' log || { cat log; fail "x: counts (7zz: Folders: 3, Files: 3)"; }

# A folder that is not empty stays; an empty folder under a file's name goes (as 7zz).
mkdir -p o2/src/gonedir o2/src/gone.txt && echo x > o2/src/gonedir/inner
"$FZ7" x -bd anti.7z -oo2 -y > log 2>&1 || { cat log; fail "x o2"; }
[ "$(tree o2)" = "./src ./src/a.txt ./src/gonedir ./src/gonedir/inner ./src/sub ./src/sub/c.txt " ] ||
    fail "x: o2 holds $(tree o2)"

# A symlink at the name: the link goes, its target stays.
mkdir -p elsewhere o3/src && echo t > elsewhere/gone.txt && ln -s ../../elsewhere/gone.txt o3/src/gone.txt
"$FZ7" x -bd anti.7z -oo3 -y > log 2>&1 || { cat log; fail "x o3"; }
[ ! -e o3/src/gone.txt ] && [ ! -L o3/src/gone.txt ] || fail "x: the symlink at the anti-item's name stayed"
[ "$(cat elsewhere/gone.txt)" = t ] || fail "x: the symlink's target was touched"

# A symlinked parent is not followed (no folder entry replaces it here).
mkdir -p w/src && echo a > w/src/a.txt && echo g > w/src/gone.txt
(cd w && 7zz a -bd ../nodir.7z src/a.txt src/gone.txt > /dev/null && rm src/gone.txt &&
    7zz u -bd -uq3 ../nodir.7z 'src/*' > /dev/null) || fail "7zz nodir.7z"
[ "$(7zz l -slt nodir.7z | grep -c '^Anti = +')" = 1 ] || fail "nodir.7z: no anti-item"
mkdir -p o4 && ln -s ../elsewhere o4/src
"$FZ7" x -bd nodir.7z -oo4 -y > log 2>&1
[ "$(cat elsewhere/gone.txt)" = t ] || fail "x: deleted elsewhere/gone.txt through the symlink o4/src"

# e: the flat names.
mkdir -p o5/gonedir && echo x > o5/gone.txt && echo k > o5/keep
"$FZ7" e -bd anti.7z -oo5 -y > log 2>&1 || { cat log; fail "e"; }
[ ! -e o5/gone.txt ] && [ ! -e o5/gonedir ] && [ -e o5/keep ] && [ "$(cat o5/a.txt)" = a ] ||
    fail "e: o5 holds $(tree o5)"

# t and l leave the disk alone.
"$FZ7" t anti.7z > log 2>&1 || { cat log; fail "t"; }
echo "extract_anti: ok"
