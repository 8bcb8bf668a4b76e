#!/usr/bin/env bash
# ar_deb.sh - ar archives and .deb packages, made here by ar, python3 and
# dpkg-deb, read as 7zz reads them: `l`, `l -slt`, `t`, `x` and `e` give
# 7zz's lines (after the banner) and exit code, and `x` the same files
# (bytes, modes, times). Covers GNU and BSD long names, symbol tables
# listed as 7zz's "1.txt" (and one that does not read), neighbours of one
# name numbered, blank and odd header fields, a header number that does
# not read (not an archive), a file cut in a header and in a member's data;
# a .deb is listed as its data.tar.xz (.gz, .zst) inside the ar block, a
# plain data.tar as the ar members.
set -u
. "$(dirname "$0")/lib.sh"
t_init 7zz ar python3

export LC_ALL=C.UTF-8 TZ=UTC

# Every file under a folder with mode, size, mtime and SHA-256, sorted.
tree_sig() {
    (cd "$1" && find . -mindepth 1 -printf '%y %m %s %T@ %p %l\n' | sort &&
        find . -type f -exec sha256sum {} + | sort -k2)
}

# x and e of one archive into folders of their own, from both programs.
same_files() {
    local arc=$1 cmd
    for cmd in x e; do
        rm -rf w7 wf
        7zz "$cmd" "$arc" -ow7 >/dev/null 2>&1
        "$FZ7" "$cmd" "$arc" -owf >/dev/null 2>&1
        same "$cmd $arc: files" "$(tree_sig wf)" "$(tree_sig w7)"
    done
}

printf 'hello\n' >a.txt
printf 'world data\n' >b.txt
printf 'int f(void){return 1;}\n' >f.c
printf 'int alpha(void){return 1;} int beta(void){return 2;} int c;\n' >a_very_long_object_name.c
touch -d '2024-01-02 03:04:05' a.txt b.txt
ar rcD plain.ar a.txt b.txt            # deterministic: no times, ids, types
ar rcU dated.ar a.txt b.txt
if command -v gcc >/dev/null; then
    gcc -c f.c -o f.o && gcc -c a_very_long_object_name.c -o a_very_long_object_name.o &&
        ar rcs lib.a f.o a_very_long_object_name.o a.txt   # "/" symbols, "//" long names
else
    echo "note: no gcc, the library case skipped"
fi

# Archives ar does not write: fields, names and tables set by hand.
python3 - <<'PY'
import struct
def member(name, data, mtime=1700000000, uid=1000, gid=1001, mode='100755', size=None):
    f = [(name, 16), (mtime, 12), (uid, 6), (gid, 6), (mode, 8), (len(data) if size is None else size, 10)]
    h = b''.join(str(v).ljust(n).encode('latin1') for v, n in f) + b'`\n'
    b = h + data
    return b + b'\n' if len(b) % 2 else b
A = b'!<arch>\n'
def write(name, body): open(name, 'wb').write(A + body)
write('fields.ar', member('x/', b'ab') + member('zero/', b'q', 0, 0, 0, '644') +
      member('blank/', b'q', '', '', '', '') + member('dir/', b'dd', 1600000000, 1, 1, '40755') +
      member('lnk/', b'x', 1600000000, 1, 1, '120777') + member('minus/', b'q', -1, -1, -1, -1) +
      member('odd/', b'q', 4294967295, 5, 5, '17777777') + member('ro/', b'r', 1, 1, 1, '100400'))
write('dups.ar', member('a.o/', b'1') + member('a.o/', b'22') + member('b/', b'3') + member('a.o/', b'4') +
      member('/', b'5') + member('/', b'6') + member('', b'7') + member('', b'8'))
names = b'first_very_long_member_name.txt/\nsecond_very_long_member_name.txt/\n'
write('gnulong.ar', member('//', names, '', '', '', '') + member('/0', b'one') + member('/33', b'two') +
      member('/999', b'bad'))
write('bsdlong.ar', member('#1/24', b'a_long_bsd_member_name.cdata', size=28) + member('short.txt', b'1234567'))
def lib(table_name, table):
    t0 = table([0, 0])
    o1 = 8 + 60 + len(t0) + len(t0) % 2
    return member(table_name, table([o1, o1 + 62]), 0, 0, 0, '0') + member('m1.o/', b'aa') + member('m2.o/', b'bb')
gnu = lambda o: struct.pack('>III', 2, o[0], o[1]) + b'x\0y\0'
bsd = lambda o: struct.pack('<IIIIII', 16, 0, o[0], 2, o[1], 4) + b'x\0y\0'
write('gnusym.ar', lib('/', gnu))
write('badsym.ar', lib('/', lambda o: struct.pack('>III', 2, o[0] + 1, o[1]) + b'x\0y\0'))
write('bsdsym.ar', lib('__.SYMDEF', bsd))
write('badnum.ar', member('a/', b'z') + member('b/', b'q', 'x1', 1, 1, '644'))
write('cuthdr.ar', member('a/', b'z') + member('b/', b'q')[:40])
write('cutdata.ar', member('a/', b'z') + member('b/', b'qqqqqq')[:63])
write('tail.ar', member('a/', b'z') + b'garbage')
write('empty.ar', b'')
PY
printf '!<arch>\nshort' >nomember.ar

for arc in *.ar *.a; do
    [ -f "$arc" ] || continue
    vs_7zz l "$arc"
    vs_7zz l -slt "$arc"
    [ "$arc" = cutdata.ar ] || vs_7zz t "$arc"
done
# A member cut short: 7zz's x says "Data Error" for it and its t nothing;
# fz7's t says it too. The exit code is 2 either way (the open error).
same_files cutdata.ar
expect_rc 2 "t cutdata.ar" "$FZ7" t cutdata.ar
grep -q '^ERROR: Data Error : b$' out.txt err.txt && ok || bad "t cutdata.ar: no Data Error line for b"
for arc in plain.ar dated.ar fields.ar dups.ar gnulong.ar bsdlong.ar gnusym.ar bsdsym.ar lib.a; do
    [ -f "$arc" ] && same_files "$arc"
done

# --- .deb: the ar block, the data.tar.* member, then what is in it ---
if command -v dpkg-deb >/dev/null; then
    mkdir -p pkg/DEBIAN pkg/usr/share/doc/fz7t
    printf 'Package: fz7t\nVersion: 1.0\nArchitecture: all\nMaintainer: x <x@y>\nDescription: t\n' \
        >pkg/DEBIAN/control
    printf 'hello deb\n' >pkg/usr/share/doc/fz7t/README
    for z in xz gzip zstd none; do
        SOURCE_DATE_EPOCH=1700000000 dpkg-deb -Z$z --root-owner-group -b pkg "p-$z.deb" >/dev/null 2>&1 ||
            { echo "note: dpkg-deb cannot write -Z$z, skipped"; continue; }
        vs_7zz l "p-$z.deb"
        vs_7zz l -slt "p-$z.deb"
        vs_7zz t "p-$z.deb"
        vs_7zz x -y "p-$z.deb" -ox7
        same_files "p-$z.deb"
    done
    # a version other than 2.0 makes no package: the members are listed
    mkdir -p v && printf '9.9\n' >v/debian-binary && printf 'x' >v/data.tar.xz
    (cd v && ar rc ../v99.deb debian-binary data.tar.xz)
    vs_7zz l v99.deb
    head -c 30 p-xz.deb >cut30.deb   # the magic and part of a header
    vs_7zz l cut30.deb
    vs_7zz t cut30.deb
    # fz7 only: a package's data comes out as 7zz's data.tar, the tree inside it
    rm -rf wd && "$FZ7" x p-xz.deb -owd >/dev/null 2>&1 && tar -xf wd/data.tar -C wd 2>/dev/null
    same "p-xz.deb: README inside data.tar" "$(cat wd/usr/share/doc/fz7t/README 2>/dev/null)" "hello deb"
else
    echo "note: no dpkg-deb, the .deb cases skipped"
fi

# files named as ar archives that are none (a .a linker script): 7zz's
# "Cannot open the file as [Ar] archive" block
printf '/* GNU ld script */\nGROUP ( libm-2.36.a )\n' >script.a && cp script.a s.lib && cp script.a s.udeb
for f in script.a s.lib s.udeb; do vs_7zz l "$f"; vs_7zz t "$f"; done

# A symbol table whose 200,000 entries all name a member with a 3,000-byte
# name (1.2 MB that would become 600 MB of text): not taken as text, the
# table listed as it is with the warning, in bounded memory
python3 - <<'PY'
import struct
name = b'x' * 3000
longnames = name + b'/\n'
def hdr(n, size):
    return (n.ljust(16) + b'0'.ljust(12) + b'0'.ljust(6) + b'0'.ljust(6) + b'644'.ljust(8) +
            str(size).encode().ljust(10) + b'`\n')
n = 200000
strings = b's\0' * n
size = 4 + 4 * n + len(strings)
member = 8 + 60 + size + size % 2 + 60 + len(longnames)
table = struct.pack('>I', n) + struct.pack('>I', member) * n + strings
open('bomb.a', 'wb').write(b'!<arch>\n' + hdr(b'/', size) + table + b'\n' * (size % 2) +
                           hdr(b'//', len(longnames)) + longnames + hdr(b'/0', 4) + b'abcd')
PY
"$FZ7" l bomb.a >bomb.txt 2>&1
same "bomb.a: exit, the warning, the table as it is" \
    "$? $(grep -c '^Warnings: 1$' bomb.txt) $(grep -cE '^ +\.\.\.\.\. +1200004 +1200004  bomb$' bomb.txt)" "0 1 1"

t_summary ar_deb
