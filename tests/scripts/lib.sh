# lib.sh - the preamble and counters of the script tests. Sourced, not run:
#   . "$(dirname "$0")/lib.sh"
# t_init TOOL...      FZ7 required (made absolute); exit 77 with "SKIP: TOOL
#                     not installed" for a missing TOOL; the scratch folder
#                     S (FZ7_SCRATCH, else a new temporary one) made fresh
#                     and entered; the counters set to 0.
# ok, bad MSG         count a check passed / failed (bad prints FAIL: MSG).
# same NAME GOT WANT  ok when GOT is WANT, else bad.
# expect_rc WANT NAME CMD...  runs CMD (stdout out.txt, stderr err.txt,
#                     stdin /dev/null), ok when it exits WANT.
# vs_7zz ARGS...      runs 7zz and fz7 with ARGS: ok when their output after
#                     the banner and their exit codes are the same, else bad
#                     and the first lines of the diff.
# t_passed            true when nothing failed and something passed: a
#                     test that passes no check cannot fail, so it fails.
# t_summary NAME [NOTE]  prints "NAME: P passed, F failed [NOTE]", then
#                     t_passed; the last command of a script.

# shellcheck disable=SC2120  # no TOOL: only fz7 is needed
t_init() {
    : "${FZ7:?FZ7 must name the fz7 binary}"
    case $FZ7 in /*) ;; */*) FZ7=$PWD/$FZ7 ;; esac
    local tool
    for tool in "$@"; do
        command -v "$tool" >/dev/null || { echo "SKIP: $tool not installed"; exit 77; }
    done
    S=${FZ7_SCRATCH:-$(mktemp -d)}
    # absolute: scripts name files as $S/... after the cd
    case $S in /*) ;; *) S=$PWD/$S ;; esac
    rm -rf "$S" && mkdir -p "$S" && cd "$S" || exit 1
    pass=0 fail=0
}

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
same() { if [ "$2" = "$3" ]; then ok; else bad "$1: got [$2] want [$3]"; fi; }

expect_rc() {
    local want=$1 name=$2; shift 2
    "$@" >out.txt 2>err.txt </dev/null
    local rc=$?
    if [ "$rc" = "$want" ]; then ok; else bad "$name: exit $rc, want $want"; sed 's/^/    /' err.txt | head -5; fi
}

vs_7zz() {
    local want got
    want=$(7zz "$@" 2>&1 | tail -n +4; echo "rc=${PIPESTATUS[0]}")
    got=$("$FZ7" "$@" 2>&1 | tail -n +4; echo "rc=${PIPESTATUS[0]}")
    if [ "$want" = "$got" ]; then ok; else bad "$*: differs from 7zz"; diff <(echo "$want") <(echo "$got") | head -8; fi
}

# vs_7zz without fz7's own detail lines ("  (in ARCHIVE: why)", which
# 7zz has no counterpart of); -ow7/-owf output folders named OUT.
vs_7zz_d() {
    local want got
    rm -rf w7 wf
    want=$(7zz "$@" 2>&1 | tail -n +4 | sed 's/w7/OUT/g'; echo "rc=${PIPESTATUS[0]}")
    rm -rf w7 wf
    got=$("$FZ7" "$@" 2>&1 | tail -n +4 | sed -e '/^  (in .*)$/d' -e 's/wf/OUT/g'; echo "rc=${PIPESTATUS[0]}")
    if [ "$want" = "$got" ]; then ok; else bad "$*: differs from 7zz"; diff <(echo "$want") <(echo "$got") | head -8; fi
}

# Every file under a folder with type, mode, size and SHA-256, sorted.
tree_sig() {
    [ -d "$1" ] || return 0   # (an archive of no files makes no folder)
    (cd "$1" && find . -mindepth 1 -printf '%y %m %s %p %l\n' | sort &&
        find . -type f -exec sha256sum {} + | sort -k2)
}

# x and e of one archive into folders of their own, from 7zz and fz7 (its
# tree_sig, which a script may redefine):
# the same messages (folder names and fz7's detail lines aside) and the
# same files.
same_files() {
    local arc=$1 cmd want got
    for cmd in x e; do
        rm -rf w7 wf
        want=$(7zz "$cmd" "$arc" -ow7 2>&1 | tail -n +4 | sed 's/w7/OUT/g'; echo "rc=${PIPESTATUS[0]}")
        got=$("$FZ7" "$cmd" "$arc" -owf 2>&1 | tail -n +4 | sed -e '/^  (in .*)$/d' -e 's/wf/OUT/g'
              echo "rc=${PIPESTATUS[0]}")
        same "$cmd $arc: output" "$got" "$want"
        same "$cmd $arc: files" "$(tree_sig wf)" "$(tree_sig w7)"
    done
}

# l, l -slt, l -ba and t of a disk or file-system image against 7zz, then
# same_files. t goes through vs_7zz_d (its damage lines may differ in
# wording) unless the second argument names vs_7zz (every line equal).
image_vs_7zz() {
    local f=$1 t_cmp=${2:-vs_7zz_d}
    [ -s "$f" ] || { bad "$f was not made"; return; }
    vs_7zz l "$f"
    vs_7zz l -slt "$f"
    vs_7zz l -ba "$f"
    "$t_cmp" t "$f"
    same_files "$f"
}

t_passed() { [ "$fail" = 0 ] && [ "$pass" -gt 0 ]; }

t_summary() {
    echo "$1: $pass passed, $fail failed${2:+ $2}"
    t_passed
}
