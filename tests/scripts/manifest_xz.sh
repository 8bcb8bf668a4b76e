#!/usr/bin/env bash
# manifest_xz.sh - every row of corpus/xz/MANIFEST.tsv: `ok` files extract
# (x -o) to one file of exactly the listed size and SHA-256 and `t` exits 0;
# `error` files make `t` exit 2 with 7zz's error line and a detail line naming the file (or,
# for a file that does not open, 7zz's ERROR / Open ERROR block).
set -u
. "$(dirname "$0")/lib.sh"
DIR=${FZ7_SHARED:-}/corpus/xz
[ -f "$DIR/MANIFEST.tsv" ] || { echo "SKIP: $DIR/MANIFEST.tsv not found"; exit 77; }
t_init

while IFS=$'\t' read -r file expect size sha; do
    case $file in ''|'#'*) continue ;; esac
    f=$DIR/$file
    why=""
    # A reserved check ID: 7-Zip 26 decodes the data without verifying the
    # check (xz warns), and so does fz7 (compat_7zz.sh compares with 7zz).
    if [ "$file" = unsupported-check.xz ]; then
        expect=ok size=13 sha=8e5935e7e13368cd9688fe8f48a0955293676a021562582c7e848dafe13fb046
    fi
    if [ "$expect" = ok ]; then
        out=$S/out && rm -rf "$out"
        "$FZ7" x -y -o"$out" "$f" >"$S/log" 2>&1
        rc=$?
        name=$(basename "$file"); name=${name%.xz}; name=${name%.lzma}
        if [ $rc != 0 ]; then
            why="x exit $rc: $(grep -m1 ERROR "$S/log")"
        elif [ "$(ls -A "$out")" != "$name" ]; then
            why="x made [$(ls -A "$out" | tr '\n' ' ')], want [$name]"
        elif [ "$(stat -c %s "$out/$name")" != "$size" ]; then
            why="size $(stat -c %s "$out/$name"), want $size"
        elif [ "$(sha256sum <"$out/$name" | cut -d' ' -f1)" != "$sha" ]; then
            why="SHA-256 differs"
        else
            "$FZ7" t "$f" >"$S/log" 2>&1
            rc=$?
            [ $rc = 0 ] || why="t exit $rc"
        fi
    else
        "$FZ7" t "$f" >/dev/null 2>"$S/err"
        rc=$?
        lines=$(grep -c . "$S/err")
        first=$(head -1 "$S/err")
        if [ $rc != 2 ]; then
            why="t exit $rc, want 2"
        elif [ "$first" = "ERROR: $f" ]; then
            # An archive that does not open: 7zz's block, the file named first.
            [ "$(sed -n 3p "$S/err")" = "Open ERROR: Cannot open the file as [xz] archive" ] ||
                why="want 7zz's Open ERROR line, got: $(tr '\n' '|' <"$S/err")"
        elif [ "$lines" != 2 ] || [ "${first#ERROR: }" = "$first" ] ||
            ! sed -n 2p "$S/err" | grep -q "^  (in .*$file"; then
            # 7zz's ERROR line, then fz7's detail naming the file on its own.
            why="want 7zz's ERROR line and a detail line naming the file, got: $(tr '\n' '|' <"$S/err")"
        fi
    fi
    if [ -z "$why" ]; then ok; else bad "$file ($expect): $why"; fi
done <"$DIR/MANIFEST.tsv"
t_summary manifest_xz.sh
