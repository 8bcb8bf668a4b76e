#!/usr/bin/env bash
# hardlinks.sh - names of one hard-linked file: `a -snh -ttar` stores the
# later names as tar hard links (as 7zz does; a 7z archive has no such
# entry, so -snh leaves it unchanged, as in 7zz), and `x` makes such
# entries hard links again, only to a file it wrote itself in this run
# below the output folder; anything else is a copy or an error. Checked
# against 7zz both ways.
set -u
. "$(dirname "$0")/lib.sh"
t_init 7zz python3 stat
umask 022
ino() { stat -c %i "$1" 2>/dev/null; }
links() { stat -c %h "$1" 2>/dev/null; }
# same_file DIR: d/a, d/b and d/s/c are one inode with 3 links holding
# "hello", d/solo has its own inode with 1 link
same_file() {
  local o=$1
  [ -n "$(ino "$o/d/a")" ] && [ "$(ino "$o/d/a")" = "$(ino "$o/d/b")" ] &&
    [ "$(ino "$o/d/a")" = "$(ino "$o/d/s/c")" ] && [ "$(links "$o/d/a")" = 3 ] &&
    [ "$(cat "$o/d/s/c")" = hello ] && [ "$(links "$o/d/solo")" = 1 ] &&
    [ "$(cat "$o/d/solo")" = solo ]
}

mkdir -p d/s && echo hello > d/a && ln d/a d/b && ln d/a d/s/c && echo solo > d/solo ||
  { echo "FAIL: could not make the tree"; exit 1; }

# a -snh -ttar: the first name holds the data, the others are links to it.
"$FZ7" a -snh -ttar -bso0 f.tar d; rc=$?
[ $rc = 0 ] && ok || bad "a -snh -ttar: exit $rc"
got=$(7zz l -slt f.tar | awk -F' = ' '/^Path = d/{p=$2} /^Size = /{s=$2} /^Hard Link = /{print p ":" s ":" $2}' | sort | tr '\n' ' ')
[ "$got" = "d/a:6: d/b:0:d/a d/s/c:0:d/a d/s:0: d/solo:5: d:0: " ] && ok || bad "7zz l -slt f.tar: $got"
# Without -snh every name is a full file, as with 7zz.
"$FZ7" a -ttar -bso0 n.tar d && [ "$(7zz l -slt n.tar | grep -c '^Hard Link = d')" = 0 ] &&
  [ "$(7zz l -slt n.tar | grep -c '^Size = 6')" = 3 ] && ok || bad "a -ttar without -snh stored links"
# 7z: -snh changes nothing (7zz's 7z archives are the same with and without it).
"$FZ7" a -snh -bso0 h.7z d && "$FZ7" a -bso0 p.7z d && cmp -s h.7z p.7z && ok || bad "a -snh of a 7z differs from a"

# The lines of a/u -bb1 -snh as 7zz prints them: each link's name listed
# ("+ d/b") and counted in "Files read from disk", a tar's folder with
# its '/', a zip's folder not listed (u). Each run writes out.FMT afresh
# (u: into an archive holding one other file).
echo other > other
for fmt in tar zip; do
  for cmd in a u; do
    for sw in -snh "-snh -snl" ""; do
      # shellcheck disable=SC2086
      want=$(rm -f out.$fmt; [ $cmd = a ] || 7zz a -bso0 out.$fmt other; 7zz $cmd $sw -bb1 out.$fmt d 2>&1 | tail -n +4; echo "rc=${PIPESTATUS[0]}")
      # shellcheck disable=SC2086
      got=$(rm -f out.$fmt; [ $cmd = a ] || 7zz a -bso0 out.$fmt other; "$FZ7" $cmd $sw -bb1 out.$fmt d 2>&1 | tail -n +4; echo "rc=${PIPESTATUS[0]}")
      same "$cmd $sw -bb1 out.$fmt d" "$got" "$want"
    done
  done
done

# fz7 x of fz7's tar, 7zz x of fz7's tar, fz7 x of 7zz's tar.
"$FZ7" x -bso0 -oo1 f.tar; rc=$?
[ $rc = 0 ] && same_file o1 && ok || bad "fz7 x f.tar: exit $rc, not one inode: $(stat -c '%i %h %n' o1/d/a o1/d/b o1/d/s/c 2>&1 | tr '\n' ' ')"
7zz x -bso0 -oo2 f.tar; rc=$?
[ $rc = 0 ] && same_file o2 && ok || bad "7zz x f.tar (written by fz7): exit $rc, not one inode"
7zz a -snh -ttar -bso0 z.tar d && [ "$(7zz l -slt z.tar | grep -c '^Hard Link = d/a')" = 2 ] ||
  { echo "FAIL: could not make z.tar with 7zz"; exit 1; }
"$FZ7" x -bso0 -oo3 z.tar; rc=$?
[ $rc = 0 ] && same_file o3 && ok || bad "fz7 x z.tar (written by 7zz): exit $rc, not one inode"

# Only the link asked for: its data come as a copy.
"$FZ7" x -bso0 -oo4 z.tar d/b; rc=$?
[ $rc = 0 ] && [ "$(cat o4/d/b)" = hello ] && [ "$(links o4/d/b)" = 1 ] && [ ! -e o4/d/a ] && ok ||
  bad "x z.tar d/b: exit $rc, $(stat -c '%h %s' o4/d/b 2>&1)"
# The file on disk was not written by this run (-aos keeps it): the links
# are copies of the archive's data, never links to the file found there.
mkdir -p o5/d && echo old > o5/d/a
"$FZ7" x -bso0 -aos -oo5 z.tar; rc=$?
[ $rc = 0 ] && [ "$(cat o5/d/a)" = old ] && [ "$(cat o5/d/b)" = hello ] && [ "$(cat o5/d/s/c)" = hello ] &&
  [ "$(links o5/d/a)" = 1 ] && [ "$(ino o5/d/b)" != "$(ino o5/d/a)" ] && ok ||
  bad "x -aos z.tar: exit $rc, a=$(cat o5/d/a) b=$(cat o5/d/b 2>&1) links(a)=$(links o5/d/a)"

# Hostile links: to an absolute path and out of the folder. Neither is made
# (exit 2, each named); the in-tree link is made; the outside file keeps
# one link.
echo secret > outside.txt
python3 - "$PWD/outside.txt" <<'PY' || { echo "FAIL: could not make evil.tar"; exit 1; }
import io, sys, tarfile
t = tarfile.open('evil.tar', 'w', format=tarfile.GNU_FORMAT)
def hl(name, target):
    ti = tarfile.TarInfo(name); ti.type = tarfile.LNKTYPE; ti.linkname = target; t.addfile(ti)
hl('abs', sys.argv[1])
hl('up', '../outside.txt')
data = b'real data\n'
ti = tarfile.TarInfo('real'); ti.size = len(data); t.addfile(ti, io.BytesIO(data))
hl('ok', 'real')
t.close()
PY
mkdir ev && (cd ev && "$FZ7" x -bso0 ../evil.tar 2>../ev.err); rc=$?
[ $rc = 2 ] && ok || bad "x evil.tar: exit $rc, want 2"
[ ! -e ev/abs ] && [ ! -e ev/up ] && [ "$(links outside.txt)" = 1 ] && [ "$(cat outside.txt)" = secret ] && ok ||
  bad "x evil.tar: made abs or up, or touched outside.txt ($(ls ev | tr '\n' ' '))"
[ "$(ino ev/ok)" = "$(ino ev/real)" ] && [ "$(links ev/real)" = 2 ] && [ "$(cat ev/ok)" = "real data" ] && ok ||
  bad "x evil.tar: ok is not a link of real"
# 7zz 26.02's lines: the absolute target joined to the output folder, the
# climbing one refused.
grep -qxF "ERROR: Cannot create hard link : errno=2 : No such file or directory : ./abs : $PWD/ev${PWD}/outside.txt" ev.err &&
  grep -qxF "ERROR: Dangerous link path was ignored : up : ../outside.txt" ev.err && ok ||
  bad "x evil.tar: errors: $(cat ev.err)"

# A link to a name the archive does not hold: x and e fail it with 7zz's
# line and exit 2 and write nothing for it; t and -so pass it (no data),
# exit 0, as 7zz.
python3 - <<'PY' || { echo "FAIL: could not make miss.tar"; exit 1; }
import io, tarfile
t = tarfile.open('miss.tar', 'w', format=tarfile.GNU_FORMAT)
ti = tarfile.TarInfo('b'); ti.type = tarfile.LNKTYPE; ti.linkname = 'a'; t.addfile(ti)
data = b'data\n'
ti = tarfile.TarInfo('c'); ti.size = len(data); t.addfile(ti, io.BytesIO(data))
t.close()
PY
for cmd in x e; do
  rm -rf mo && "$FZ7" $cmd -bso0 -omo miss.tar 2>miss.err; rc=$?
  [ $rc = 2 ] && [ "$(ls mo)" = c ] && [ "$(cat mo/c)" = data ] &&
    grep -qxF "ERROR: Cannot create hard link : errno=2 : No such file or directory : mo/b : $PWD/mo/a" miss.err && ok ||
    bad "$cmd miss.tar: exit $rc, files: $(ls mo | tr '\n' ' '), errors: $(cat miss.err)"
done
"$FZ7" t -bso0 miss.tar 2>miss.err; rc=$?
[ $rc = 0 ] && [ ! -s miss.err ] && ok || bad "t miss.tar: exit $rc, $(cat miss.err)"
[ "$("$FZ7" x -so miss.tar 2>miss.err)" = data ] && [ ! -s miss.err ] && ok || bad "x -so miss.tar: $(cat miss.err)"

# The first name of a linked file cannot be opened (strace fails its
# openat with EACCES, as for a name removed or made unreadable after the
# scan): the next name is stored with the data, the third links to it,
# exit 1 with the warning for the first. Before, both later names were
# links to a name the archive does not hold.
if command -v strace >/dev/null && strace -qq -o /dev/null true 2>/dev/null; then
  rm -rf nf && mkdir nf && cp -a d nf/ && rm -f nf.tar
  (cd nf && strace -f -qq -o /dev/null -P d/a -e trace=openat -e inject=openat:error=EACCES \
     "$FZ7" a -bso0 -snh -ttar ../nf.tar d 2>../nf.err); rc=$?
  list=$(tar tvf nf.tar 2>&1 | awk '{print substr($1,1,1), $6, $7, $8, $9}' | sed 's/ *$//' | sort)
  want=$(printf '%s\n' "- d/b" "- d/solo" "d d/" "d d/s/" "h d/s/c link to d/b" | sort)
  [ $rc = 1 ] && [ "$list" = "$want" ] && grep -q 'WARNING: errno=13 : Permission denied' nf.err && grep -qx 'd/a' nf.err && ok ||
    bad "a -snh, d/a unreadable: exit $rc, entries: $list"
  rm -rf nfo && mkdir nfo && (cd nfo && tar xf ../nf.tar) && [ "$(cat nfo/d/s/c)" = hello ] &&
    [ "$(ino nfo/d/b)" = "$(ino nfo/d/s/c)" ] && ok || bad "a -snh, d/a unreadable: tar x gives no d/s/c"
else
  echo "SKIP (2 checks): strace cannot inject faults here"
fi

t_summary hardlinks
