#!/usr/bin/env bash
# extract_safety.sh - what extraction must never do, found by trying fz7 as
# a new user: write a compressed file's contents over the archive itself
# (an .xz/.lzma whose name has no known suffix), create files with more
# permissions than the umask allows, or plant setuid/setgid bits. Also the
# mtime given to entries that store none (the archive's, as 7zz).
set -u
. "$(dirname "$0")/lib.sh"
t_init xz 7zz sha256sum
umask 022

printf 'payload\n' > data && xz -k -c data > data.xz
# name (of a copy of data.xz) -> the file x must write (7-Zip's rule)
for pair in "foo.bin:foo" "q:q~" "x.xz:x" "y.txz:y.tar" "z.tar.xz:z.tar" ".hidden:.hidden~"; do
  name=${pair%%:*} want=${pair#*:}
  rm -rf t && mkdir t && cp data.xz "t/$name"
  (cd t && "$FZ7" x -y "$name" >/dev/null 2>&1); rc=$?
  if [ $rc -ne 0 ]; then bad "x $name: exit $rc"; continue; fi
  cmp -s "t/$name" data.xz || { bad "x $name: the archive itself was changed"; continue; }
  cmp -s "t/$want" data && ok || bad "x $name: expected the data in '$want'"
done
# The same for e, and for .lzma.
xz --format=lzma -c data > t/raw
(cd t && "$FZ7" e -y raw >/dev/null 2>&1) && cmp -s t/raw~ data && xz --format=lzma -t t/raw && ok ||
  bad "e raw (.lzma without suffix) did not write raw~ or changed the archive"

# a -txz without an extension makes NAME.xz, as 7zz does.
rm -f qq qq.xz && "$FZ7" a -txz qq data >/dev/null 2>&1 && [ -f qq.xz ] && [ ! -e qq ] && ok ||
  bad "a -txz qq did not create qq.xz"

# Permissions: stored 0755/0644 under umask 077 come out 0700/0600; setuid,
# setgid and sticky bits are dropped.
rm -rf src && mkdir -p src/d && printf 'x\n' > src/d/plain && printf 'y\n' > src/d/suid &&
  chmod 644 src/d/plain && chmod 4755 src/d/suid && chmod 3755 src/d &&
  (cd src && 7zz a -bso0 -bsp0 ../perm.7z d) || { echo "FAIL: could not make perm.7z"; exit 1; }
rm -rf out && mkdir out
(umask 077 && "$FZ7" x -y -oout perm.7z >/dev/null 2>&1) || bad "x perm.7z failed"
[ "$(stat -c %a out/d/plain)" = 600 ] && ok || bad "umask 077: plain is $(stat -c %a out/d/plain), want 600"
[ "$(stat -c %a out/d/suid)" = 700 ] && ok || bad "umask 077 + setuid: suid is $(stat -c %a out/d/suid), want 700"
[ "$(stat -c %a out/d)" = 700 ] && ok || bad "umask 077: dir is $(stat -c %a out/d), want 700"
rm -rf out && mkdir out
"$FZ7" x -y -oout perm.7z >/dev/null 2>&1 || bad "x perm.7z failed"
[ "$(stat -c %a out/d/suid)" = 755 ] && ok || bad "setuid kept: suid is $(stat -c %a out/d/suid), want 755"
[ "$(stat -c %a out/d)" = 755 ] && ok || bad "setgid/sticky kept: dir is $(stat -c %a out/d), want 755"

# An entry without a stored mtime (.xz, .lzma, a 7z written without times)
# gets the archive file's mtime, nanoseconds included, as 7zz gives it; from
# stdin it keeps the time of extraction.
rm -rf mt && mkdir mt && printf 'data\n' >mt/d && xz -k -c mt/d >mt/d.xz && xz --format=lzma -c mt/d >mt/d.lzma &&
  python3 "${FZ7_TESTS_DIR:-$(dirname "$0")/..}/scripts/mk7z.py" mt/nt.7z f:x:hello d:dd &&
  touch -d '2013-01-02 03:04:05.25' mt/d.xz mt/d.lzma mt/nt.7z || { echo "FAIL: could not make mt/"; exit 1; }
for a in d.xz d.lzma nt.7z; do
  rm -rf mt/out mt/out7 && "$FZ7" x -y -omt/out "mt/$a" >/dev/null 2>&1 && 7zz x -y -omt/out7 "mt/$a" >/dev/null 2>&1 ||
    bad "x $a failed"
  got=$(cd mt/out && stat -c '%n %y' * | tr '\n' ' ')
  [ "$got" = "$(cd mt/out7 && stat -c '%n %y' * | tr '\n' ' ')" ] && ok || bad "$a: mtimes $got differ from 7zz's"
  case $got in *"2013-01-02 03:04:05.250000000 +0000"*) ok ;; *) bad "$a: mtimes $got, want the archive's" ;; esac
done
rm -rf mt/si && mkdir mt/si && (cd mt/si && "$FZ7" x -si -txz <../d.xz >/dev/null 2>&1) &&
  [ "$(stat -c %Y mt/si/'~')" -gt 1400000000 ] && ok || bad "x -si: not the time of extraction"

# A zip's Unix mode without a file type (Python's zipfile writes 0600 so)
# is not applied: the umask's permissions, as 7zz; one with a type is,
# 000 too (as 7zz and tar: a folder keeps 0700 so that it can be filled).
rm -rf pz && mkdir pz && (cd pz && python3 - <<'PY'
import zipfile
z = zipfile.ZipFile("p.zip", "w")
for name, mode in (("f.txt", 0o600), ("x.sh", 0o755), ("d/", 0o700), ("typed.txt", 0o100600),
                   ("none.txt", 0o100000), ("d0/", 0o40000)):
    i = zipfile.ZipInfo(name)
    i.create_system, i.external_attr = 3, mode << 16 | (0x10 if name.endswith("/") else 0)
    z.writestr(i, "" if name.endswith("/") else "x")
z.close()
PY
) && (cd pz && umask 022 && "$FZ7" x -oo p.zip >/dev/null 2>&1) ||
  bad "x p.zip (Python modes) failed"
same "zip modes without a file type" "$(cd pz/o && stat -c '%n %a' f.txt x.sh d typed.txt none.txt d0 | tr '\n' ' ')" \
  "f.txt 644 x.sh 644 d 755 typed.txt 600 none.txt 0 d0 700 "
# A zip entry whose mode says device, FIFO or socket, or has every bit set,
# holds data all the same: written as a file with its bytes and the
# umask's permissions, as 7zz (fz7 wrote 0-byte files, exit 0)
rm -rf oz && mkdir oz && (cd oz && python3 - <<'PY'
import zipfile
z = zipfile.ZipFile("odd.zip", "w")
for name, mode, how in (("chr.txt", 0o020644, zipfile.ZIP_STORED), ("blk.txt", 0o060644, zipfile.ZIP_DEFLATED),
                        ("fifo.txt", 0o010600, zipfile.ZIP_STORED), ("sock.txt", 0o140755, zipfile.ZIP_DEFLATED),
                        ("all.txt", None, zipfile.ZIP_STORED)):
    i = zipfile.ZipInfo(name)
    i.create_system, i.compress_type = 3, how
    i.external_attr = 0xFFFFFFFF if mode is None else mode << 16
    z.writestr(i, b"important data\n")
z.close()
PY
) && (cd oz && umask 022 && "$FZ7" x -oo odd.zip >out 2>&1) || bad "x odd.zip failed: $(cat oz/out)"
same "zip entries of odd modes: sizes and permissions" "$(cd oz/o && stat -c '%n %s %a' chr.txt blk.txt fifo.txt sock.txt all.txt | tr '\n' ' ')" \
  "chr.txt 15 644 blk.txt 15 644 fifo.txt 15 644 sock.txt 15 644 all.txt 15 644 "
# a tar's FIFO (mode 0700) comes out as an empty file with the umask's
# permissions, as from 7zz
rm -rf ot && mkdir -p ot/s && mkfifo -m 0700 ot/s/ff && (cd ot && tar cf f.tar s && rm -rf s &&
  umask 022 && "$FZ7" x -oo f.tar >/dev/null 2>&1) || bad "x of a tar with a FIFO failed"
same "tar FIFO: an empty file, umask's permissions" "$(stat -c '%F %a' ot/o/s/ff)" "regular empty file 644"

# A 7z of a chmod 000 file: 000 again (fz7 gave it the umask's 444);
# only root can read such a file to store it
if [ "$(id -u)" = 0 ]; then
  rm -rf p0 && mkdir -p p0/in && printf 'x' >p0/in/f && chmod 000 p0/in/f &&
    (cd p0 && "$FZ7" a z.7z in/f >/dev/null 2>&1 && umask 022 && "$FZ7" x -oo z.7z >/dev/null 2>&1) ||
    bad "a/x of a chmod 000 file failed"
  same "chmod 000 file" "$(stat -c %a p0/o/in/f)" 0
else
  echo "extract_safety.sh: not root: the chmod 000 round trip is skipped"
fi

t_summary extract_safety.sh
