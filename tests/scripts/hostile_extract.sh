#!/usr/bin/env bash
# hostile_extract.sh - archives built to write outside the output folder:
# "..", ".", absolute paths, symbolic links (absolute, relative, chained,
# to ".") followed by entries through them, a folder replaced by a link, a
# link replaced by a file (in the archive, and left by an earlier
# extraction), tar hard links to files outside, duplicate names, control
# characters, paths longer than PATH_MAX. Nothing may be written outside
# -o; names, link refusals (with and without -snld), messages, trees and
# exit codes are checked against fixed values and against 7zz 26.02.
# Links that stay below -o are made, as tar makes them (7zz 26.02 refuses
# every ".." without -snld): the comparisons with 7zz run it with -snld and
# name the few links it still refuses (those naming -o itself, and links to
# a link) in IGN.
set -u
. "$(dirname "$0")/lib.sh"
HERE=$(cd "$(dirname "$0")" && pwd)
t_init 7zz python3
MK7Z="python3 $HERE/mk7z.py"

# run NAME WANT_RCS CMD...: WANT_RCS is a list like "1 2".
run() {
    local name=$1 want=$2; shift 2
    timeout 20 "$@" >out.txt 2>err.txt </dev/null
    local rc=$?
    case " $want " in *" $rc "*) ok ;; *) bad "$name: exit $rc, want $want"; sed 's/^/    /' err.txt | head -5 ;; esac
}
named() { # named NAME ENTRY: a message on stderr names ENTRY
    grep -qF -- "$2" err.txt && ok || bad "$1: no message names '$2'"
}
# Everything written during the test must be below jail/ (or our logs).
mkdir -p outside jail
echo victim >outside/victim
touch -d '2001-01-01' stamp outside outside/victim
outside_changed() {
    find "$S" -mindepth 1 -newer stamp -not -path "$S/jail/*" -not -path "$S/jail" -not -name '*.7z' \
        -not -name '*.tar' -not -name out.txt -not -name err.txt -not -name err7.txt -not -name 'bb*.txt' \
        -not -path "$S/tree" -not -path "$S/tree/*" | LC_ALL=C sort
}
check_outside() { # check_outside NAME
    same "$1: nothing written outside jail/" "$(outside_changed)" ""
    same "$1: outside/ untouched" "$(ls -A outside)/$(cat outside/victim)" "victim/victim"
}

# Type, size and link target of everything below $1, the folder's own path
# in link targets written as ROOT (so 7zz's and fz7's trees compare).
tree_of() {
    (cd "$1" && find . -mindepth 1 \( -type l -printf '%p l %l\n' -o -printf '%p %y %s\n' \) |
        sed "s|$S/$1|ROOT|" | LC_ALL=C sort)
}
# vs7zz NAME CMD ARCHIVE SWITCHES...: 7zz and fz7 into jail/7zz-NAME and
# jail/NAME; the same exit code, the same tree, the same ERROR lines. 7zz
# gets $SW7 too; lines matching the extended regex $IGN (the links 7zz
# refuses and fz7 makes) are left out of both trees and error lists, and
# RC is the exit code fz7 must give when it is not 7zz's.
SW7= IGN='^$' RC=
vs7zz() {
    local name=$1 cmd=$2 arc=$3; shift 3
    rm -rf "jail/7zz-$name" "jail/$name"
    7zz "$cmd" -y $SW7 "$@" -o"jail/7zz-$name" "$arc" >/dev/null 2>err7.txt </dev/null
    local rc7=$?
    run "$name" "${RC:-$rc7}" "$FZ7" "$cmd" -y "$@" -o"jail/$name" "$arc"
    same "$name: tree as 7zz's" "$(tree_of "jail/$name" | grep -Ev "$IGN")" \
        "$(tree_of "jail/7zz-$name" | grep -Ev "$IGN")"
    same "$name: errors as 7zz's" "$(grep ERROR err.txt | sed "s|jail/$name/|OUT/|" | grep -Ev "$IGN" | LC_ALL=C sort)" \
        "$(grep ERROR err7.txt | sed "s|jail/7zz-$name/|OUT/|" | grep -Ev "$IGN" | LC_ALL=C sort)"
    check_outside "$name"
}

# --- 1. escapes by name and by links (absolute, relative, chained, ".") ---
# 7zz 26.02 drops "..", "." and "/" from names (a last "." or ".." becomes
# "_"), moves an absolute link below -o, refuses links with ".." or naming
# "." (an empty file takes the name), and entries below a link or such a
# file fail with "Not a directory": exit 2. fz7 makes "self -> ." (it
# stays in -o) and writes nothing through it either.
$MK7Z escape.7z f:../evil.txt:e1 f:a/../../evil2.txt:e2 f:..:e3 f:.:e4 \
    "l:up:../../outside" f:up/x.txt:x "l:absl:$S/outside" f:absl/y.txt:y \
    "l:c1:c2" "l:c2:../.." f:c1/z.txt:z "l:self:." f:self/../esc.txt:s f:dir/ok.txt:ok \
    "l:in:dir" f:in/w.txt:w
run "escape x" "2" "$FZ7" x -y escape.7z -ojail/1
check_outside "escape x"
same "escape x: tree" "$(tree_of jail/1 | tr '\n' ',')" \
"./_ f 2,./a d 4096,./a/evil2.txt f 2,./absl l ROOT$S/outside,./c1 l c2,./c2 f 0,./dir d 4096,\
./dir/ok.txt f 2,./evil.txt f 2,./in l dir,./self l .,./up f 0,"
same "escape x: _ is the last of .. and ." "$(cat jail/1/_)" "e4"
same "escape x: errors" "$(grep ERROR err.txt | LC_ALL=C sort)" \
"ERROR: Cannot open output file : errno=20 : Not a directory : jail/1/absl/y.txt
ERROR: Cannot open output file : errno=20 : Not a directory : jail/1/c1/z.txt
ERROR: Cannot open output file : errno=20 : Not a directory : jail/1/in/w.txt
ERROR: Cannot open output file : errno=20 : Not a directory : jail/1/self/esc.txt
ERROR: Cannot open output file : errno=20 : Not a directory : jail/1/up/x.txt
ERROR: Dangerous link path was ignored : c2 : ../..
ERROR: Dangerous link path was ignored : up : ../../outside"
grep -q "Sub items Errors: 7" out.txt && ok || bad "escape x: 7 sub item errors"
SW7=-snld IGN='^\./self |: self : \.$'
vs7zz escape-x x escape.7z
vs7zz escape-e e escape.7z
SW7= IGN='^$'

# --- 1b. which link targets fz7 refuses (and 7zz, with and without -snld) ---
# 7zz without -snld refuses any "..", or no name at all ("." "./."); with
# -snld it makes leading ".." that stay below -o and leave a name below it.
# fz7, with or without -snld: leading ".." that stay below -o, naming -o
# itself too ("dot", "sub/dotdot"), and a link to a link ("tolk"). Refused
# by all: ".." above -o or after a name, and a target through a link
# already on disk ("via another link"). Each refused link leaves an empty
# file, never a link.
$MK7Z links.7z f:f.txt:hi d:sub d:sub/s2 f:sub/g:g "l:ok1:./f.txt" "l:ok2:sub//g" "l:ok3:sub/" \
    "l:abs:/etc/passwd" "l:abs2:/./x" "l:absup:/../x" "l:absmid:/etc/../x" \
    "l:dot:." "l:dotdot:.." "l:mid:sub/../f.txt" "l:sub/up:../f.txt" "l:sub/dotdot:.." \
    "l:sub/dotup:./../f.txt" "l:sub/dots:./." "l:sub/s2/up2:../../f.txt" "l:sub/esc:../../x" \
    "l:lk:sub" "l:vialk:lk/g" "l:tolk:lk" "l:tolater:later" "l:later:sub" "l:slash:/"
for sw in "" -snld; do
    name=links$sw
    run "$name" "2" "$FZ7" x -y $sw links.7z -ojail/$name
    check_outside "$name"
    want="./abs2>ROOT/x ./abs>ROOT/etc/passwd ./later>sub ./lk>sub ./ok1>./f.txt ./ok2>sub/g ./ok3>sub/"
    want="$want ./sub/dots>./. ./sub/dotup>./../f.txt ./sub/s2/up2>../../f.txt ./sub/up>../f.txt"
    want="$want ./dot>. ./sub/dotdot>.. ./tolk>lk"
    same "$name: links made" "$(cd jail/$name && find . -type l -printf '%p>%l\n' | sed "s|$S/jail/$name|ROOT|g" |
        LC_ALL=C sort | tr '\n' ' ')" "$(echo "$want ./tolater>later" | tr ' ' '\n' | LC_ALL=C sort | tr '\n' ' ')"
    same "$name: no link for /" "$(ls jail/$name/slash 2>&1 >/dev/null | wc -l)" "1"
    want="ERROR: Dangerous link path was ignored : absmid : etc/../x
ERROR: Dangerous link path was ignored : absup : ../x
ERROR: Dangerous link path was ignored : dotdot : ..
ERROR: Dangerous link path was ignored : mid : sub/../f.txt
ERROR: Dangerous link path was ignored : sub/esc : ../../x
ERROR: Dangerous link via another link was ignored : vialk : lk/g"
    same "$name: errors" "$(grep ERROR err.txt | LC_ALL=C sort)" "$(echo "$want" | LC_ALL=C sort)"
    for l in dotdot mid sub/esc absup absmid vialk; do
        same "$name: $l is an empty file" "$(stat -c '%F' "jail/$name/$l" 2>&1)" "regular empty file"
    done
done
# 7zz makes no entry at all for a link to "/", fz7 neither; otherwise the
# trees match 7zz -snld's (7zz links below ROOT, the same messages) but for
# the links only fz7 makes.
SW7=-snld IGN='^\./(dot|sub/dotdot|tolk) |: (dot|sub/dotdot|tolk) : '
vs7zz links-vs x links.7z
SW7= vs7zz links-snld-vs x links.7z -snld
SW7= IGN='^$'
# Links from real trees, archived by 7zz -snl, fz7 -snl and bsdtar.
mkdir -p tree/sub && echo hi >tree/f && ln -sf ../f tree/sub/up && ln -sf /etc/hostname tree/abs &&
    ln -sf ../../x tree/sub/esc && ln -sf f tree/ok
(cd tree && 7zz a -snl ../t7zz.7z . >/dev/null && "$FZ7" a -snl ../tfz7.7z . >/dev/null &&
    bsdtar --format 7zip -cf ../tbsd.7z .) 2>/dev/null
# fz7 makes sub/up -> ../f as 7zz -snld does.
for a in t7zz tfz7 tbsd; do
    [ -s $a.7z ] || continue
    SW7=-snld vs7zz "$a" x $a.7z
    vs7zz "$a-snld" x $a.7z -snld
done

# --- 1b2. a tree's own links come back as links ---
# sub/link -> ../zero (what 7zz turns into an empty file), chains of links,
# a loop a/b -> ., and entries that would be written through a link made
# earlier in the archive (refused: "Not a directory", nothing written
# through it, exit 2).
$MK7Z intree.7z f:zero:z d:sub "l:sub/link:../zero" "l:chain1:sub/link" "l:chain2:chain1" \
    "l:sub/deep/up:../../zero" d:a "l:a/b:." f:a/b/b/x:loop "l:tosub:sub" f:tosub/new.txt:through \
    "l:a/up:.." f:a/up/a/y:through2
run "in-tree links" "2" "$FZ7" x -y intree.7z -ojail/intree
check_outside "in-tree links"
same "in-tree links: tree" "$(tree_of jail/intree | tr '\n' ',')" \
"./a d 4096,./a/b l .,./a/up l ..,./chain1 l sub/link,./chain2 l chain1,./sub d 4096,./sub/deep d 4096,\
./sub/deep/up l ../../zero,./sub/link l ../zero,./tosub l sub,./zero f 1,"
same "in-tree links: through the chain" "$(cat jail/intree/chain2)/$(cat jail/intree/sub/deep/up)" "z/z"
same "in-tree links: errors" "$(grep ERROR err.txt | LC_ALL=C sort)" \
"ERROR: Cannot open output file : errno=20 : Not a directory : jail/intree/a/b/b/x
ERROR: Cannot open output file : errno=20 : Not a directory : jail/intree/a/up/a/y
ERROR: Cannot open output file : errno=20 : Not a directory : jail/intree/tosub/new.txt"
# A link made by an earlier extraction is not written through either.
run "in-tree links again" "2" "$FZ7" x -y intree.7z -ojail/intree
check_outside "in-tree links again"
same "in-tree links again: tree" "$(tree_of jail/intree | tr '\n' ',')" \
"./a d 4096,./a/b l .,./a/up l ..,./chain1 l sub/link,./chain2 l chain1,./sub d 4096,./sub/deep d 4096,\
./sub/deep/up l ../../zero,./sub/link l ../zero,./tosub l sub,./zero f 1,"

# --- 1c. names with ".", ".." and "/": renamed as 7zz does, exit 0 ---
$MK7Z names.7z f:..:1 f:../x:2 f:a/../../y:3 f:/abs/z:4 f:./w:5 f:a/./b:7 f:a/..:8 f:../../q/r:9 \
    f:b/../c:10 f:...:11 f:..a:12 "f:a/.. /x:13" f:k/./:14 d:.. d:../dd d:e/.. f:/:15
run "names" "0" "$FZ7" x -y names.7z -ojail/names
check_outside "names"
same "names: tree" "$(cd jail/names && find . -mindepth 1 -printf '%p=%y,' | tr ',' '\n' | LC_ALL=C sort | tr '\n' ',')" \
    "./...=f,./..a=f,./_=f,./a/.. /x=f,./a/.. =d,./a/_=f,./a/b=f,./a/y=f,./a=d,./abs/z=f,./abs=d,./b/c=f,./b=d,./dd=d,./e=d,./k/_=f,./k=d,./q/r=f,./q=d,./w=f,./x=f,"
same "names: / and .. both became _, the last wins" "$(cat jail/names/_)" "15"
vs7zz names-vs x names.7z
vs7zz names-e e names.7z
# -bb1 lists entries by their names in the archive (folders with '/'), as 7zz.
rm -rf jail/bb jail/bb7
"$FZ7" x -bb1 -y names.7z -ojail/bb 2>/dev/null | grep '^- ' >bb.txt
7zz x -bb1 -y names.7z -ojail/bb7 2>/dev/null </dev/null | grep '^- ' >bb7.txt
same "names -bb1: as 7zz" "$(cat bb.txt)" "$(cat bb7.txt)"
same "names -bb1: raw names" "$(head -3 bb.txt | tr '\n' ',')" "- ..,- ../x,- a/../../y,"

# --- 2. a folder replaced by a link, a link replaced by a folder ---
$MK7Z dirlink.7z d:dir f:dir/ok:ok "l:dir:$S/outside" f:dir/evil:evil
# A folder in the way of a file or link is treated as 7zz treats it: asked
# about, skipped, renamed, or removed when empty; a full one gives "Cannot
# delete output folder" (exit 2) and stays.
run "folder then link" "2" "$FZ7" x -y dirlink.7z -ojail/2
check_outside "folder then link"
same "folder then link: folder kept" "$(find jail/2 -mindepth 1 -printf '%P %y\n' | LC_ALL=C sort | tr '\n' ' ')" \
    "dir d dir/evil f dir/ok f "
same "folder then link: error" "$(grep ERROR err.txt)" \
    "ERROR: Cannot delete output folder : errno=39 : Directory not empty : jail/2/dir"
$MK7Z dirfile.7z d:d f:d:file-over-dir
run "folder then file" "0" "$FZ7" x -y dirfile.7z -ojail/2c
check_outside "folder then file"
same "folder then file: replaced" "$(cat jail/2c/d)" "file-over-dir"
for sw in -aos -aou -aot; do
    vs7zz "dirfile$sw" x dirfile.7z $sw
    vs7zz "dirlink$sw" x dirlink.7z $sw
done
# The absolute link moves below -o; the folder then replaces it (7zz: exit 2,
# "Cannot create folder"; fz7: exit 0, d2/x written inside the folder).
$MK7Z linkdir.7z "l:d2:$S/outside" d:d2 f:d2/x:x
run "link then folder" "0" "$FZ7" x -y linkdir.7z -ojail/2b
check_outside "link then folder"

# --- 3. a link replaced by a file: in one archive, and across two ---
$MK7Z linkfile.7z "l:a:$S/outside/victim" f:a:data
run "link then file" "0" "$FZ7" x -y linkfile.7z -ojail/3
check_outside "link then file"
same "link then file: a regular file" "$(stat -c %F jail/3/a 2>&1)/$(cat jail/3/a 2>/dev/null)" "regular file/data"
mkdir -p jail/3b && ln -s "$S/outside/victim" jail/3b/a && ln -s "$S/outside" jail/3b/d
$MK7Z file.7z f:a:data
for mode in -y -aoa; do
    run "file over an old link $mode" "0" "$FZ7" x "$mode" file.7z -ojail/3b
    check_outside "file over an old link $mode"
    same "file over an old link $mode: replaced" "$(stat -c %F jail/3b/a)/$(cat jail/3b/a)" "regular file/data"
    rm -f jail/3b/a && ln -s "$S/outside/victim" jail/3b/a
done
run "file over an old link -aou" "0" "$FZ7" x -aou file.7z -ojail/3b
check_outside "file over an old link -aou"

# --- 4. tar hard links to files outside (read through libarchive) ---
python3 - <<'PY'
import io, tarfile
with tarfile.open("hard.tar", "w") as t:
    def add(name, data=None, kind=tarfile.REGTYPE, link=""):
        i = tarfile.TarInfo(name)
        i.type, i.linkname = kind, link
        i.size = len(data) if data is not None else 0
        t.addfile(i, io.BytesIO(data) if data is not None else None)
    import os
    add("h", kind=tarfile.LNKTYPE, link=os.path.abspath("outside/victim"))
    add("h", b"overwritten\n")
    add("h2", kind=tarfile.LNKTYPE, link="../outside/victim")
    add("h2", b"overwritten\n")
    add("ok.txt", b"ok\n")
PY
if "$FZ7" l hard.tar >/dev/null 2>&1; then
    run "tar hard links" "2" "$FZ7" x -y hard.tar -ojail/4
    check_outside "tar hard links"
    named "tar hard links" "h "
    named "tar hard links" "h2"
    same "tar hard links: good entry" "$(cat jail/4/ok.txt 2>/dev/null)" "ok"
else
    echo "note: fz7 does not read tar; hard-link case skipped"
fi

# --- 5. duplicate names, control characters, absolute paths: as 7zz ---
$MK7Z dup.7z f:a.txt:one f:a.txt:two f:b:three d:c f:c/b:four
$MK7Z ctrl.7z $'f:a\nb.txt:nl' $'f:esc\x1b[31mred.txt:esc' $'f:tab\tx:tab' $'f:bell\x07:b'
$MK7Z abs.7z "f:$S/outside/abs.txt:abs" f://double/x:d
for a in dup ctrl abs; do
    rm -rf "jail/7zz-$a"
    7zz x -y -o"jail/7zz-$a" $a.7z >/dev/null 2>&1 </dev/null
    rc7=$?
    run "$a.7z" "$rc7" "$FZ7" x -y $a.7z -o"jail/5-$a"
    check_outside "$a.7z"
    same "$a.7z: same tree as 7zz" "$(cd "jail/5-$a" && find . -printf '%p %y %s\n' | LC_ALL=C sort | od -c | md5sum)" \
        "$(cd "jail/7zz-$a" && find . -printf '%p %y %s\n' | LC_ALL=C sort | od -c | md5sum)"
done
same "dup: the last one wins" "$(cat jail/5-dup/a.txt)" "two"

# --- 6. paths longer than PATH_MAX: long names, many components ---
long=$(printf 'd%.0s' $(seq 1 200)) p= q=
for i in $(seq 1 30); do p=$p$long/; done
for i in $(seq 1 2100); do q=${q}a/; done
$MK7Z long.7z "f:${p}x.txt:deep" "f:${q}y.txt:deeper" f:ok.txt:ok
rm -rf jail/7zz-long && 7zz x -y -ojail/7zz-long long.7z >/dev/null 2>&1 </dev/null
rc7=$?
run "long paths" "$rc7" "$FZ7" x -y long.7z -ojail/6
check_outside "long paths"
same "long paths: good entry" "$(cat jail/6/ok.txt 2>/dev/null)" "ok"
named "long paths" "x.txt"

t_summary hostile_extract.sh
