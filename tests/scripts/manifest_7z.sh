#!/usr/bin/env bash
# manifest_7z.sh - every row of corpus/7z/MANIFEST.tsv. Rows whose methods
# are all in SUPPORTED: `ok` extracts (x) to exactly expected/<archive>.tsv
# (every path, type, size, SHA-256 or link target, nothing else) and `t`
# exits 0; `data_error` / `bad_archive` exit 2. Rows that need a method
# outside SUPPORTED, and `unsupported_method` rows, exit 2 and print
# "Unsupported Method". Rows of the 7-Zip-zstd fork's methods (FORK; 7-Zip
# lists them in hex and cannot open them) may instead test OK (exit 0, every
# CRC checked): fz7 decodes them when built with libzstd/liblz4/libbrotlidec.
set -u
SUPPORTED="Copy LZMA LZMA2 BCJ Delta ARM ARMT PPC SPARC IA64 7zAES BCJ2 Deflate Deflate64 BZip2 PPMD"
FORK="04F71101 04F71102 04F71104"
. "$(dirname "$0")/lib.sh"
DIR=${FZ7_SHARED:-}/corpus/7z
[ -f "$DIR/MANIFEST.tsv" ] || { echo "SKIP: $DIR/MANIFEST.tsv not found"; exit 77; }
t_init

# in_scope "LZMA2:12 7zAES;LZMA2:12 BCJ" -> 0 when every method is supported
in_scope() {
    local m
    for m in $(echo "$1" | tr ';' ' '); do
        m=${m%%:*}
        [ "$m" = "-" ] && continue
        case " $SUPPORTED " in *" $m "*) ;; *) return 1 ;; esac
    done
    return 0
}

# fork_ok "04F71101 7zAES" -> 0 when a fork method is used and every method
# is supported or a fork one
fork_ok() {
    case $1 in *04F7110[124]*) SUPPORTED="$SUPPORTED $FORK" in_scope "$1" ;; *) return 1 ;; esac
}

# The tree below $1 as expected/*.tsv lists it, sorted.
describe() {
    (cd "$1" && find . -mindepth 1 | sed 's|^\./||' | LC_ALL=C sort | while IFS= read -r p; do
        if [ -L "$p" ]; then
            t=$(readlink "$p"); printf 'l\t%s\t%s\t%s\n' "$p" "${#t}" "$t"
        elif [ -d "$p" ]; then
            printf 'd\t%s\t0\t-\n' "$p"
        else
            printf 'f\t%s\t%s\t%s\n' "$p" "$(stat -c %s "$p")" "$(sha256sum <"$p" | cut -d' ' -f1)"
        fi
    done)
}

while IFS=$'\t' read -r arc pw expect methods; do
    case $arc in ''|'#'*) continue ;; esac
    f=$DIR/$arc
    popt=()
    [ "$pw" != "-" ] && popt=("-p$pw")
    why=""
    if ! in_scope "$methods" || [ "$expect" = unsupported_method ]; then
        "$FZ7" t "${popt[@]}" "$f" >"$S/log" 2>&1 </dev/null
        rc=$?
        if [ $rc = 0 ] && fork_ok "$methods"; then :
        elif [ $rc != 2 ]; then why="t exit $rc, want 2 (methods: $methods)"
        elif ! grep -q "Unsupported Method" "$S/log"; then why="no 'Unsupported Method' message"
        fi
    elif [ "$expect" = ok ]; then
        out=$S/out && rm -rf "$out"
        "$FZ7" x -y "${popt[@]}" -o"$out" "$f" >"$S/log" 2>&1 </dev/null
        rc=$?
        mkdir -p "$out"
        if [ $rc != 0 ]; then
            why="x exit $rc: $(grep -m1 ERROR "$S/log")"
        else
            describe "$out" >"$S/got.tsv"
            grep -v '^#' "$DIR/expected/$arc.tsv" | LC_ALL=C sort -t$'\t' -k2,2 >"$S/want.tsv"
            LC_ALL=C sort -t$'\t' -k2,2 "$S/got.tsv" -o "$S/got.tsv"
            if ! cmp -s "$S/got.tsv" "$S/want.tsv"; then
                why="tree differs from expected/$arc.tsv: $(diff "$S/want.tsv" "$S/got.tsv" | grep '^[<>]' | head -3 | tr '\n' '|')"
            else
                "$FZ7" t "${popt[@]}" "$f" >"$S/log" 2>&1 </dev/null
                rc=$?
                [ $rc = 0 ] || why="t exit $rc: $(grep -m1 ERROR "$S/log")"
            fi
        fi
    else # data_error, bad_archive
        "$FZ7" t "${popt[@]}" "$f" >"$S/log" 2>&1 </dev/null
        rc=$?
        [ $rc = 2 ] || why="t exit $rc, want 2"
        if [ -z "$why" ]; then
            "$FZ7" x -y "${popt[@]}" -o"$S/bad" "$f" >"$S/log" 2>&1 </dev/null
            rc=$?
            [ $rc = 2 ] || why="x exit $rc, want 2"
        fi
    fi
    if [ -z "$why" ]; then ok; else bad "$arc ($expect): $why"; fi
done <"$DIR/MANIFEST.tsv"
t_summary manifest_7z.sh "(supported: $SUPPORTED)"
