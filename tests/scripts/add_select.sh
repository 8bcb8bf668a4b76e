#!/bin/bash
# add_select.sh - which files `fz7 a` takes and how it names them, checked
# against 7zz on the same command lines: plain names, "./" and ".."
# paths, wildcards with and without -r (in folder parts too: */d,
# t/*/z.txt), -i!/-x! (and -ir!/-xr!), @listfile
# (with a byte order mark, blanks, quotes, UTF-16),
# no names at all, and symlinks followed or kept (-snl).
set -u
. "$(dirname "$0")/lib_add.sh"
need_tools 7zz
S="${FZ7_SCRATCH:-$(mktemp -d)}"
rm -rf "$S"; mkdir -p "$S/w"
cd "$S/w" || exit 1
mkdir -p t/d/sub t/e other
printf 'b\n' > t/b.txt; printf 'a\n' > t/a.c; printf 'z\n' > t/d/z.txt; printf 'k\n' > t/d/sub/k.c
: > t/empty; printf 'o\n' > other/o.txt; printf 'top\n' > top.txt
ln -s b.txt t/lnk
printf 't/a.c\nother\n' > list.txt
# as editors save them: a byte order mark, CRLF, blanks and quotes around
# names (7zz strips all four), and UTF-16 with -scs
printf '\xef\xbb\xbf  t/b.txt\r\n\t"t/d"  \r\n"other"\n' > list2.txt
printf '\xef\xbb\xbf*.c\r\n' > ex.txt
printf 't/a.c\r\ntop.txt\r\n' | iconv -f UTF-8 -t UTF-16LE | { printf '\xff\xfe'; cat; } > list16.txt

names_of() {   # archive -> its sorted entry names with kinds
    7zz l -slt "$1" | awk '/^Path = /{p=substr($0,8)} /^Attributes = /{print p "|" substr($0,14,1)}' | LC_ALL=C sort
}

n=0
while IFS= read -r args; do
    n=$((n + 1))
    rm -f "../f$n.7z" "../z$n.7z"
    # shellcheck disable=SC2086
    (set -f; 7zz a -bd "../z$n.7z" $args > ../zlog 2>&1)
    # shellcheck disable=SC2086
    (set -f; "$FZ7" a -bd "../f$n.7z" $args > ../flog 2>&1)
    want=$(names_of "../z$n.7z")
    got=$(names_of "../f$n.7z")
    if [ "$want" != "$got" ]; then
        echo "args: $args" >&2
        diff <(echo "$want") <(echo "$got") >&2
        cat ../flog >&2
        fail "selection differs from 7zz for: $args"
    fi
    echo "ok: $args ($(echo "$want" | grep -c .) entries)"
done <<'ARGS'
t
t/
./t
t/d
t/./d
./t/b.txt
t/d/../b.txt
t/d/z.txt t/b.txt
t -x!*.txt
t -xr!*.txt
t -x!t/d
t -x!t/*.c
-ir!*.txt
-r -i!t/*.c
t/*.txt
-r t/*.txt
-r *.c
t -snl
-snl -r t/l*
@list.txt
@list2.txt
t -xr@ex.txt
-scsUTF-16LE @list16.txt
t -xr!sub
*/*.c
t/*/z.txt
-r s*/*.c
*/d
-r */z.txt
ARGS

# An absolute path with a wildcard folder: named from the wildcard on
rm -f ../za.7z ../fa.7z
7zz a -bd ../za.7z "$PWD/*/o.txt" "$PWD/t/*/z.txt" > /dev/null 2>&1
"$FZ7" a -bd ../fa.7z "$PWD/*/o.txt" "$PWD/t/*/z.txt" > /dev/null 2>&1
[ "$(names_of ../fa.7z | tr '\n' ' ')" = "d/z.txt|A other/o.txt|A " ] && [ "$(names_of ../za.7z)" = "$(names_of ../fa.7z)" ] ||
    { names_of ../za.7z; names_of ../fa.7z; fail "absolute paths with a wildcard folder"; }

# No names: everything in the current folder.
mkdir -p ../none && cp -r t other top.txt ../none/ && cd ../none
7zz a -bd ../zn.7z > /dev/null 2>&1
"$FZ7" a -bd ../fn.7z > /dev/null 2>&1
[ "$(names_of ../zn.7z)" = "$(names_of ../fn.7z)" ] || { diff <(names_of ../zn.7z) <(names_of ../fn.7z); fail "no names: differs from 7zz"; }
# a wildcard without a folder walks ".": its warnings name a dangling
# link as 7zz does, without libarchive's "./" (fz7 wrote "./dangling")
mkdir -p ../wc/sub && cd ../wc && printf 'int x;\n' >a.c && printf 'int y;\n' >sub/b.c && ln -s nothere dangling
7zz a -bd ../w.7z '*.c' -r 2>&1 | tail -n +4 | grep -v '^Creating archive' >../w7.txt
"$FZ7" a -bd ../w2.7z '*.c' -r 2>&1 | tail -n +4 | grep -v '^Creating archive' >../wf.txt
cmp -s ../w7.txt ../wf.txt || { diff ../w7.txt ../wf.txt; fail "wildcard walk's warnings: differ from 7zz"; }
echo PASS
