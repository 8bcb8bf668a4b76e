#!/usr/bin/env bash
# extract_kinds.sh - x -y where the archive has a folder and the disk a
# file of that name, and the reverse. As 7zz 26.02: a file in a folder's
# place is kept and the folder fails with errno 17, its entries with
# errno 20 (exit 2); an empty folder in a file's place is replaced (exit
# 0), a non-empty one kept (errno 39, exit 2). Where 7zz writes through a
# symlink to a folder outside the output folder, fz7 -y replaces the link
# (which holds no data) with the folder.
set -u
. "$(dirname "$0")/lib.sh"
t_init 7zz
umask 022
tree() { find o tgt -printf '%y %p\n' 2>/dev/null | sort | tr '\n' ' '; }

mkdir -p s1/x s2 && echo inner > s1/x/f && echo file > s2/x &&
  (cd s1 && 7zz a -bso0 ../dir.7z x) && (cd s2 && 7zz a -bso0 ../file.7z x) ||
  { echo "FAIL: could not make the archives"; exit 1; }

# setup NAME: the disk before x (in o/, and tgt/ outside it)
setup() {
  rm -rf o tgt && mkdir o tgt
  case $1 in
    file) echo ondisk > o/x ;;
    link) ln -s ../tgt o/x ;;
    empty) mkdir o/x ;;
    full) mkdir o/x && echo keep > o/x/k ;;
  esac
}
# check CASE ARCHIVE RC TREE ERRORS: fz7 x -y gives exit RC, the tree and
# exactly the stderr lines ERRORS
check() {
  setup "$1"
  "$FZ7" x -y -oo "$2" >out.txt 2>err.txt; local rc=$?
  [ $rc = "$3" ] && ok || bad "$1/$2: exit $rc, want $3"
  [ "$(tree)" = "$4" ] && ok || bad "$1/$2: tree $(tree), want $4"
  [ "$(cat err.txt)" = "$5" ] && ok || bad "$1/$2: stderr $(cat err.txt)"
}
E17="ERROR: Cannot create folder : errno=17 : File exists : o/x"
E20="ERROR: Cannot open output file : errno=20 : Not a directory : o/x/f"
check file dir.7z 2 "d o d tgt f o/x " "$E17
$E20"
[ "$(cat o/x)" = ondisk ] && ok || bad "file/dir.7z: the file on disk was changed"
check link dir.7z 0 "d o d o/x d tgt f o/x/f " ""
# Without -y (here -aos) the link stays and the folder fails as for a file.
setup link && "$FZ7" x -aos -oo dir.7z >/dev/null 2>err.txt; rc=$?
[ $rc = 2 ] && [ "$(tree)" = "d o d tgt l o/x " ] && [ "$(head -1 err.txt)" = "$E17" ] && ok ||
  bad "link/dir.7z -aos: exit $rc, tree $(tree), $(cat err.txt)"
check empty file.7z 0 "d o d tgt f o/x " ""
[ "$(cat o/x)" = file ] && ok || bad "empty/file.7z: o/x is not the archive's file"
check full file.7z 2 "d o d o/x d tgt f o/x/k " \
  "ERROR: Cannot delete output folder : errno=39 : Directory not empty : o/x"

# The same exit codes, lines and trees as 7zz, where 7zz keeps to the
# output folder.
for c in file:dir.7z empty:file.7z full:file.7z; do
  setup "${c%%:*}" && "$FZ7" x -y -oo "${c#*:}" >/dev/null 2>e1; r1=$?; t1=$(tree)
  setup "${c%%:*}" && 7zz x -y -oo "${c#*:}" >/dev/null 2>e2; r2=$?; t2=$(tree)
  [ $r1 = $r2 ] && [ "$t1" = "$t2" ] && cmp -s e1 e2 && ok || bad "$c: fz7 exit $r1 $t1, 7zz exit $r2 $t2"
done
# 7zz follows the link and writes tgt/f outside the output folder.
setup link && 7zz x -y -oo dir.7z >/dev/null 2>&1
[ -e tgt/f ] && echo "note: 7zz wrote through o/x into tgt/ (fz7 replaces the link)"

# A tar's "./" entry is the output folder: its mode goes there (7zz and
# GNU tar), with x and e, to a new and to an existing folder; its time
# only with -spe (7zz).
rm -rf o tgt dot && mkdir -p dot/sub && echo hi >dot/sub/f && chmod 710 dot &&
  touch -d '2020-01-02 03:04:05' dot && tar cf dot.tar -C dot . || bad "dot.tar"
for c in "x -onew" "e -onew" "x -oold"; do
  rm -rf new old && mkdir old && chmod 755 old
  "$FZ7" $c dot.tar >/dev/null 2>&1; rc=$?; d=${c#*-o}
  [ $rc = 0 ] && [ "$(stat -c %a "$d")" = 710 ] && [ "$(stat -c %Y "$d")" != 1577934245 ] && ok ||
    bad "$c dot.tar: exit $rc, mode $(stat -c %a "$d")"
  rm -rf new old && mkdir old && chmod 755 old
  7zz $c dot.tar >/dev/null 2>&1; [ "$(stat -c %a "$d")" = 710 ] && ok || bad "7zz $c: mode $(stat -c %a "$d")"
done

t_summary extract_kinds
