#!/usr/bin/env bash
# hostile_extract.sh - archives built to write outside the output folder:
# "..", ".", absolute paths, symbolic links (absolute, relative, chained,
# to ".") followed by entries through them, a folder replaced by a link, a
# link replaced by a file (in the archive, and left by an earlier
# extraction), tar hard links to files outside, duplicate names, control
# characters, paths longer than PATH_MAX. Nothing may be written outside
# -o, every refused entry is named in a message, exit codes are 7-Zip's
# (1 for refused entries, 2 for errors, 0 where 7zz also says Ok).
set -u
: "${FZ7:?FZ7 must name the fz7 binary}"
case $FZ7 in /*) ;; */*) FZ7=$PWD/$FZ7 ;; esac
S=${FZ7_SCRATCH:-$(mktemp -d)}
HERE=$(cd "$(dirname "$0")" && pwd)
for tool in 7zz python3; do
    command -v "$tool" >/dev/null || { echo "SKIP: $tool not installed"; exit 77; }
done
rm -rf "$S" && mkdir -p "$S" && cd "$S" || exit 1
MK7Z="python3 $HERE/mk7z.py"

pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
same() { if [ "$2" = "$3" ]; then ok; else bad "$1: got [$2] want [$3]"; fi; }
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
        -not -name '*.tar' -not -name out.txt -not -name err.txt | LC_ALL=C sort
}
check_outside() { # check_outside NAME
    same "$1: nothing written outside jail/" "$(outside_changed)" ""
    same "$1: outside/ untouched" "$(ls -A outside)/$(cat outside/victim)" "victim/victim"
}

# --- 1. escapes by name and by links (absolute, relative, chained, ".") ---
$MK7Z escape.7z f:../evil.txt:e1 f:a/../../evil2.txt:e2 f:..:e3 f:.:e4 \
    "l:up:../../outside" f:up/x.txt:x "l:absl:$S/outside" f:absl/y.txt:y \
    "l:c1:c2" "l:c2:../.." f:c1/z.txt:z "l:self:." f:self/../esc.txt:s f:dir/ok.txt:ok
run "escape x" "1 2" "$FZ7" x escape.7z -ojail/1
check_outside "escape x"
same "escape x: good entry" "$(cat jail/1/dir/ok.txt 2>/dev/null)" "ok"
for e in ../evil.txt a/../../evil2.txt up/x.txt absl/y.txt c1/z.txt self/../esc.txt; do
    named "escape x" "$e"
done
grep -q ' : \.\. ' err.txt && ok || bad "escape x: no message names '..'"
grep -q ' : \. ' err.txt && ok || bad "escape x: no message names '.'"
run "escape e" "1 2" "$FZ7" e -y escape.7z -ojail/1e
check_outside "escape e"

# --- 2. a folder replaced by a link, a link replaced by a folder ---
$MK7Z dirlink.7z d:dir f:dir/ok:ok "l:dir:$S/outside" f:dir/evil:evil
run "folder then link" "1 2" "$FZ7" x -y dirlink.7z -ojail/2
check_outside "folder then link"
same "folder then link: folder kept" "$(find jail/2 -mindepth 1 -printf '%P %y\n' | LC_ALL=C sort | tr '\n' ' ')" \
    "dir d dir/evil f dir/ok f "
named "folder then link" "dir"
# An empty folder then a file of the same name: 7zz replaces the folder
# (exit 0), fz7 keeps it with a warning (exit 1); either way nothing leaves.
$MK7Z dirfile.7z d:d f:d:file-over-dir
run "folder then file" "0 1" "$FZ7" x -y dirfile.7z -ojail/2c
check_outside "folder then file"
$MK7Z linkdir.7z "l:d2:$S/outside" d:d2 f:d2/x:x
run "link then folder" "0 1 2" "$FZ7" x -y linkdir.7z -ojail/2b
check_outside "link then folder"

# --- 3. a link replaced by a file: in one archive, and across two ---
$MK7Z linkfile.7z "l:a:$S/outside/victim" f:a:data
run "link then file" "0 1 2" "$FZ7" x -y linkfile.7z -ojail/3
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

echo "hostile_extract.sh: $pass passed, $fail failed"
[ "$fail" = 0 ]
