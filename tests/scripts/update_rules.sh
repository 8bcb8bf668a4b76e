#!/bin/bash
# update_rules.sh - the update rules -u[-][p#][q#][r#][x#][y#][z#][w#][!name]
# on a, u and d: after each rule set the archive (and each -u...!name
# archive) holds exactly the expected entries, each with the expected
# content, anti-items where action 3 asks for them (listed by 7zz, an
# independent reader); a bad spelling is 7zz's command-line error (exit 7)
# with the archive untouched; an extra archive that exists already or
# cannot be written stops the command without leaving a partial file.
set -u
command -v 7zz >/dev/null 2>&1 || { echo "SKIP: 7zz is not installed"; exit 77; }
[ -n "${FZ7:-}" ] && [ -x "$FZ7" ] || { echo "SKIP: FZ7 does not point to the fz7 binary"; exit 77; }
S="${FZ7_SCRATCH:-$(mktemp -d)}"
rm -rf "$S"; mkdir -p "$S"
cd "$S" || exit 1

fail() { echo "FAIL: $*" >&2; exit 1; }
checks=0

# The archive holds one item in each state against the folder `base`:
# p.dat (not selected by *.txt), q.txt (not on disk), x.txt (archive newer),
# y.txt (disk newer), z.txt (same time and size), w.txt (same time, other
# size); r.txt is only on disk.
mkdir base && cd base || exit 1
for f in p.dat q.txt x.txt y.txt z.txt w.txt; do echo "old $f" >"$f"; done
touch -d '2024-01-02' ./*
"$FZ7" a -bd ../arc.7z . >/dev/null || fail "making arc.7z"
rm q.txt
echo "new r" >r.txt; touch -d 2024-01-03 r.txt
echo "new x" >x.txt; touch -d 2024-01-01 x.txt
echo "new y" >y.txt; touch -d 2024-01-03 y.txt
echo "old z.txt" >z.txt; touch -d 2024-01-02 z.txt
echo "new w.txt longer" >w.txt; touch -d 2024-01-02 w.txt
echo "new p" >p.dat; touch -d 2024-01-05 p.dat
cd .. || exit 1

# entries ARC: "name=content" per entry in the archive's order, "name=ANTI"
# for an anti-item, joined by spaces.
entries() {
    7zz l -slt "$1" 2>/dev/null | sed -n '/^----------$/,$p' | awk '
        /^Path = / { p = substr($0, 8) }
        /^Anti = \+/ { a = 1 }
        /^$/ { if (p != "") print p "\t" a; p = ""; a = 0 }
        END { if (p != "") print p "\t" a }' |
    while IFS=$'\t' read -r p a; do
        if [ "$a" = 1 ]; then printf '%s=ANTI ' "$p"
        else printf '%s=%s ' "$p" "$(7zz e -so "$1" "$p" 2>/dev/null | tr '\n' ' ' | sed 's/ $//')"; fi
    done | sed 's/ $//'
}

# run EXPECTED_RC CMD ARGS... : fz7 in a fresh copy of base with arc.7z.
run() {
    local want=$1; shift
    rm -rf w; cp -a base w; cp arc.7z w/
    (cd w && "$FZ7" "$@" >../out 2>../err); local rc=$?
    [ "$rc" = "$want" ] || { cat out err; fail "fz7 $* exited $rc, not $want"; }
}

# expect ARC "LIST": the entries of w/ARC are exactly LIST.
expect() {
    local got; got=$(entries "w/$1")
    [ "$got" = "$2" ] || fail "after fz7 $LAST, $1 holds
  $got
not
  $2"
    7zz t "w/$1" >/dev/null 2>&1 || fail "after fz7 $LAST, 7zz t $1 fails"
    checks=$((checks + 1))
}

KEEP_ALL='p.dat=old p.dat q.txt=old q.txt w.txt=old w.txt x.txt=old x.txt y.txt=old y.txt z.txt=old z.txt'

# u's own rules p1q1r2x1y2z1w2: new and newer files in, the rest kept.
LAST="u arc.7z *.txt"; run 0 u arc.7z '*.txt'
expect arc.7z 'p.dat=old p.dat q.txt=old q.txt x.txt=old x.txt z.txt=old z.txt r.txt=new r w.txt=new w.txt longer y.txt=new y'
# Each state's action changed alone.
LAST="u -up0"; run 0 u arc.7z '*.txt' -up0
expect arc.7z 'q.txt=old q.txt x.txt=old x.txt z.txt=old z.txt r.txt=new r w.txt=new w.txt longer y.txt=new y'
LAST="u -uq0"; run 0 u arc.7z '*.txt' -uq0
expect arc.7z 'p.dat=old p.dat x.txt=old x.txt z.txt=old z.txt r.txt=new r w.txt=new w.txt longer y.txt=new y'
grep -qx 'Delete data from archive: 1 file, 10 bytes (1 KiB)' out || fail "u -uq0: no Delete line"
LAST="u -ur0"; run 0 u arc.7z '*.txt' -ur0
expect arc.7z 'p.dat=old p.dat q.txt=old q.txt x.txt=old x.txt z.txt=old z.txt w.txt=new w.txt longer y.txt=new y'
LAST="u -ux2"; run 0 u arc.7z '*.txt' -ux2
expect arc.7z 'p.dat=old p.dat q.txt=old q.txt z.txt=old z.txt r.txt=new r w.txt=new w.txt longer x.txt=new x y.txt=new y'
LAST="u -ux0"; run 0 u arc.7z '*.txt' -ux0
expect arc.7z 'p.dat=old p.dat q.txt=old q.txt z.txt=old z.txt r.txt=new r w.txt=new w.txt longer y.txt=new y'
LAST="u -uy0"; run 0 u arc.7z '*.txt' -uy0
expect arc.7z 'p.dat=old p.dat q.txt=old q.txt x.txt=old x.txt z.txt=old z.txt r.txt=new r w.txt=new w.txt longer'
LAST="u -uy1"; run 0 u arc.7z '*.txt' -uy1
expect arc.7z 'p.dat=old p.dat q.txt=old q.txt x.txt=old x.txt y.txt=old y.txt z.txt=old z.txt r.txt=new r w.txt=new w.txt longer'
LAST="u -uz2"; run 0 u arc.7z '*.txt' -uz2
expect arc.7z 'p.dat=old p.dat q.txt=old q.txt x.txt=old x.txt r.txt=new r w.txt=new w.txt longer y.txt=new y z.txt=old z.txt'
LAST="u -uz0"; run 0 u arc.7z '*.txt' -uz0
expect arc.7z 'p.dat=old p.dat q.txt=old q.txt x.txt=old x.txt r.txt=new r w.txt=new w.txt longer y.txt=new y'
LAST="u -uw0"; run 0 u arc.7z '*.txt' -uw0
expect arc.7z 'p.dat=old p.dat q.txt=old q.txt x.txt=old x.txt z.txt=old z.txt r.txt=new r y.txt=new y'
LAST="u -uw1"; run 0 u arc.7z '*.txt' -uw1
expect arc.7z 'p.dat=old p.dat q.txt=old q.txt w.txt=old w.txt x.txt=old x.txt z.txt=old z.txt r.txt=new r y.txt=new y'
# Anti-items (3): one for the name, no data.
LAST="u -uq3"; run 0 u arc.7z '*.txt' -uq3
expect arc.7z 'q.txt=ANTI p.dat=old p.dat x.txt=old x.txt z.txt=old z.txt r.txt=new r w.txt=new w.txt longer y.txt=new y'
grep -qx '1 anti-file' out || fail "u -uq3: no '1 anti-file' line"
# fz7 l lists the anti-item as 7zz does (table and -slt's Anti line).
for sw in "" -slt; do
    diff <(7zz l $sw w/arc.7z | sed -n '/^---/,$p') <("$FZ7" l $sw w/arc.7z | sed -n '/^---/,$p') >/dev/null ||
        { diff <(7zz l $sw w/arc.7z | sed -n '/^---/,$p') <("$FZ7" l $sw w/arc.7z | sed -n '/^---/,$p');
          fail "fz7 l $sw of anti-items differs from 7zz"; }
    checks=$((checks + 1))
done
LAST="u -ux3"; run 0 u arc.7z '*.txt' -ux3
expect arc.7z 'x.txt=ANTI p.dat=old p.dat q.txt=old q.txt z.txt=old z.txt r.txt=new r w.txt=new w.txt longer y.txt=new y'
LAST="u -ur3"; run 0 u arc.7z '*.txt' -ur3
expect arc.7z 'r.txt=ANTI p.dat=old p.dat q.txt=old q.txt x.txt=old x.txt z.txt=old z.txt w.txt=new w.txt longer y.txt=new y'
# The switch the compatibility table names, a sync: only what is on disk.
LAST="u -up0q0r2x2y2z1w2"; run 0 u -up0q0r2x2y2z1w2 arc.7z '*.txt'
expect arc.7z 'z.txt=old z.txt r.txt=new r w.txt=new w.txt longer x.txt=new x y.txt=new y'
LAST="u -up0q0r2x2y2z1w2 x.txt"; run 0 u -up0q0r2x2y2z1w2 arc.7z x.txt
expect arc.7z 'x.txt=new x'
# Each -u starts from the command's rules; the last one without a name wins.
LAST="u -uq0 -up0"; run 0 u arc.7z '*.txt' -uq0 -up0
expect arc.7z 'q.txt=old q.txt x.txt=old x.txt z.txt=old z.txt r.txt=new r w.txt=new w.txt longer y.txt=new y'
LAST="u -uq0q1"; run 0 u arc.7z '*.txt' -uq0q1
expect arc.7z 'p.dat=old p.dat q.txt=old q.txt x.txt=old x.txt z.txt=old z.txt r.txt=new r w.txt=new w.txt longer y.txt=new y'

# a's own rules p1q1r2x2y2z2w2: every selected file from disk.
LAST="a arc.7z *.txt"; run 0 a arc.7z '*.txt'
expect arc.7z 'p.dat=old p.dat q.txt=old q.txt r.txt=new r w.txt=new w.txt longer x.txt=new x y.txt=new y z.txt=old z.txt'
LAST="a -uq0"; run 0 a -uq0 arc.7z '*.txt'
expect arc.7z 'p.dat=old p.dat r.txt=new r w.txt=new w.txt longer x.txt=new x y.txt=new y z.txt=old z.txt'
LAST="a -uq0 new.7z"; run 0 a -uq0 new.7z '*.txt'
expect new.7z 'r.txt=new r w.txt=new w.txt longer x.txt=new x y.txt=new y z.txt=old z.txt'
LAST="a -ur0 new.7z"; run 0 a -ur0 new.7z '*.txt'
[ -f w/new.7z ] && [ "$(entries w/new.7z)" = "" ] || fail "a -ur0 new.7z: not an empty archive"

# d: p1q0r0x0y0z0w0; -up0 empties it, -up3 leaves anti-items of the rest.
LAST="d -up0"; run 0 d arc.7z x.txt -up0
expect arc.7z ''
LAST="d -up3"; run 0 d arc.7z x.txt -up3
expect arc.7z 'p.dat=ANTI q.txt=ANTI w.txt=ANTI y.txt=ANTI z.txt=ANTI'
# -uq1 makes d scan the disk: x.txt is there (x0: gone), q.txt is not (q1: kept).
LAST="d -uq1"; run 0 d arc.7z x.txt -uq1
expect arc.7z 'p.dat=old p.dat q.txt=old q.txt w.txt=old w.txt y.txt=old y.txt z.txt=old z.txt'
LAST="d -uq1 q.txt"; run 1 d arc.7z q.txt -uq1
expect arc.7z "$KEEP_ALL"

# -u-: the archive stays as it is; -u...!name writes another archive.
LAST="u -u-"; run 0 u arc.7z '*.txt' -u-
expect arc.7z "$KEEP_ALL"
cmp -s arc.7z w/arc.7z || fail "u -u-: arc.7z was rewritten"
grep -q Scanning out && fail "u -u-: scanned the disk with nothing to write"
LAST="u -u- -up0q0!new.7z"; run 0 u arc.7z '*.txt' -u- '-up0q0!new.7z'
cmp -s arc.7z w/arc.7z || fail "u -u- !new.7z: arc.7z was rewritten"
expect new.7z 'x.txt=old x.txt z.txt=old z.txt r.txt=new r w.txt=new w.txt longer y.txt=new y'
LAST="u !n1 !n2"; run 0 u arc.7z '*.txt' '-uq0!n1' '-up0!sub/dir/n2.7z'
expect arc.7z 'p.dat=old p.dat q.txt=old q.txt x.txt=old x.txt z.txt=old z.txt r.txt=new r w.txt=new w.txt longer y.txt=new y'
expect n1.7z 'p.dat=old p.dat x.txt=old x.txt z.txt=old z.txt r.txt=new r w.txt=new w.txt longer y.txt=new y'
expect sub/dir/n2.7z 'q.txt=old q.txt x.txt=old x.txt z.txt=old z.txt r.txt=new r w.txt=new w.txt longer y.txt=new y'
[ "$(grep -c '^Creating archive: ' out)" = 2 ] || fail "u !n1 !n2: not two 'Creating archive' lines"
LAST="a new.7z -u- !n1"; run 0 a new.7z '*.txt' '-u!n1.7z' -u-
[ -e w/new.7z ] && fail "a -u-: new.7z was written"
expect n1.7z 'r.txt=new r w.txt=new w.txt longer x.txt=new x y.txt=new y z.txt=old z.txt'
LAST="d -u!n1.7z"; run 0 d arc.7z x.txt '-u!n1.7z'
expect arc.7z 'p.dat=old p.dat q.txt=old q.txt w.txt=old w.txt y.txt=old y.txt z.txt=old z.txt'
expect n1.7z 'p.dat=old p.dat q.txt=old q.txt w.txt=old w.txt y.txt=old y.txt z.txt=old z.txt'

# -sdel only with rules that read every file (7zz: E_NOTIMPL otherwise);
# -stl: the newest entry's time, kept entries included.
LAST="u -sdel"; run 2 u arc.7z '*.txt' -sdel
grep -qx 'E_NOTIMPL : Not implemented' err || fail "u -sdel: not E_NOTIMPL"
cmp -s arc.7z w/arc.7z && [ -f w/r.txt ] || fail "u -sdel: something changed"
LAST="a -uq0 -sdel"; run 0 a arc.7z '*.txt' -uq0 -sdel
expect arc.7z 'p.dat=old p.dat r.txt=new r w.txt=new w.txt longer x.txt=new x y.txt=new y z.txt=old z.txt'
[ "$(cd w && ls)" = "$(printf 'arc.7z\np.dat')" ] || fail "a -uq0 -sdel left $(cd w && ls | tr '\n' ' ')"
LAST="u -stl x.txt"; run 0 u arc.7z x.txt -stl
[ "$(date -r w/arc.7z +%F)" = 2024-01-02 ] || fail "u -stl: archive time $(date -r w/arc.7z)"
LAST="a -stl x.txt"; run 0 a arc.7z x.txt -stl
[ "$(date -r w/arc.7z +%F)" = 2024-01-02 ] || fail "a -stl: archive time $(date -r w/arc.7z), not the kept entries' newest"
checks=$((checks + 4))

# -p alone asks once (one line of stdin here) and encrypts the new data.
rm -rf w; cp -a base w
(cd w && echo pw | "$FZ7" a -p -uq0 new.7z '*.txt' >../out 2>../err); rc=$?
[ "$rc" = 0 ] && grep -q '^Enter password' out && 7zz t -ppw w/new.7z >/dev/null 2>&1 &&
    [ "$(7zz l -slt -ppw w/new.7z | grep -c '^Encrypted = +')" = 5 ] ||
    fail "a -p -uq0: exit $rc, not 5 encrypted entries"
checks=$((checks + 1))

# -r makes a plain name a wildcard at any depth (7-Zip): every z.txt, and
# a name that matches nothing is no warning.
rm -rf w; cp -a base w; mkdir w/sub; echo "deep z" >w/sub/z.txt
(cd w && "$FZ7" a -r n.7z z.txt >../out 2>../err); rc=$?
[ "$rc" = 0 ] && [ "$(entries w/n.7z)" = 'sub/z.txt=deep z z.txt=old z.txt' ] ||
    fail "a -r n.7z z.txt: exit $rc, $(entries w/n.7z)"
(cd w && "$FZ7" a -r m.7z missing.txt >../out 2>../err); rc=$?
[ "$rc" = 0 ] && [ ! -s err ] || fail "a -r m.7z missing.txt: exit $rc"
checks=$((checks + 2))

# Bad spellings: 7zz's error, exit 7, nothing written.
for bad in z q2 p2 r1 q4 k1 '!' 'q0!' q0x x; do
    LAST="u -u$bad"; run 7 u arc.7z '*.txt' "-u$bad"
    [ "$(cat err)" = "$(printf '\n\nCommand Line Error:\nincorrect update switch command\n%s' "$bad")" ] ||
        { cat err; fail "u -u$bad: not 7zz's error text"; }
    cmp -s arc.7z w/arc.7z || fail "u -u$bad: arc.7z changed"
    checks=$((checks + 1))
done
LAST="rn -u!n.7z"; run 7 rn arc.7z x.txt x2.txt '-u!n.7z'
grep -qx 'Only one archive can be created with rename command' err || fail "rn -u!: not 7zz's error"
[ -e w/n.7z ] && fail "rn -u!: n.7z written"

# An extra archive that exists stops the command before anything is
# written; one that cannot be written leaves no partial file behind.
rm -rf w; cp -a base w; cp arc.7z w/; echo keep >w/j.7z
(cd w && "$FZ7" u arc.7z '*.txt' '-u!j.7z' >../out 2>../err); rc=$?
[ "$rc" = 2 ] || fail "u -u!existing: exit $rc, not 2"
grep -qx 'The file already exists' out || fail "u -u!existing: no 7zz message"
[ "$(cat w/j.7z)" = keep ] || fail "u -u!existing: j.7z overwritten"
cmp -s arc.7z w/arc.7z || fail "u -u!existing: arc.7z rewritten"
# The same extra name twice: the second never replaces the first (7zz's
# 'cannot open file', exit 2); what was written is complete.
rm -rf w; cp -a base w; cp arc.7z w/
(cd w && "$FZ7" u arc.7z '*.txt' '-u!n.7z' '-uq0!n.7z' >../out 2>../err); rc=$?
[ "$rc" = 2 ] && grep -qx 'cannot open file' out || fail "u -u!n.7z -uq0!n.7z: exit $rc"
LAST="u -u!n.7z -uq0!n.7z"
expect n.7z 'p.dat=old p.dat q.txt=old q.txt x.txt=old x.txt z.txt=old z.txt r.txt=new r w.txt=new w.txt longer y.txt=new y'
[ -z "$(cd w && ls -A | grep fz7tmp)" ] || fail "u -u!n.7z twice left a temporary file"
if [ "$(id -u)" != 0 ]; then
    rm -rf w; cp -a base w; cp arc.7z w/; mkdir w/ro; chmod 555 w/ro
    (cd w && "$FZ7" u arc.7z '*.txt' '-u!ro/n.7z' >../out 2>../err); rc=$?
    chmod 755 w/ro
    [ "$rc" = 2 ] || fail "u -u!ro/n.7z: exit $rc, not 2"
    [ -z "$(ls -A w/ro)" ] || fail "u -u!ro/n.7z: left $(ls -A w/ro)"
fi
# A file system that is full: the extra archive's temporary file is gone
# and nothing is left under its name (ulimit -f gives EFBIG).
rm -rf w; cp -a base w; cp arc.7z w/; head -c 200000 /dev/urandom >w/big.txt
(cd w && ulimit -f 64 && "$FZ7" u arc.7z '*.txt' -u- '-u!n.7z' >../out 2>../err); rc=$?
[ "$rc" = 2 ] || fail "u -u!n.7z over ulimit -f: exit $rc, not 2"
[ -z "$(cd w && ls -A | grep -E '^n\.7z')" ] || fail "u -u!n.7z over ulimit -f: left $(cd w && ls -A | grep n.7z)"
cmp -s arc.7z w/arc.7z || fail "u -u- -u!n.7z over ulimit -f: arc.7z changed"
checks=$((checks + 2))

echo "update_rules: $checks checks passed"
