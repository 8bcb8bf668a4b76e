#!/usr/bin/env bash
# robust_regress.sh - the inputs of robustness findings kept in
# tests/data/regress/ (MANIFEST.tsv: file, extra arguments, the exit code
# `fz7 t` must give, what went wrong once): each run ends within 10 s with
# that exit code and never by a signal.
set -u
. "$(dirname "$0")/lib.sh"
DATA=$(cd "${FZ7_TESTS_DIR:-$(dirname "$0")/..}/data/regress" 2>/dev/null && pwd)
[ -n "$DATA" ] && [ -f "$DATA/MANIFEST.tsv" ] || { echo "FAIL: no tests/data/regress/MANIFEST.tsv"; exit 1; }
t_init

while IFS=$'\t' read -r file args want finding; do
    case $file in '#'*|'') continue ;; esac
    [ "$args" = - ] && args=
    # shellcheck disable=SC2086  # args are switches separated by spaces
    timeout 10 "$FZ7" t $args "$DATA/$file" >out.txt 2>err.txt </dev/null
    rc=$?
    if [ "$rc" = "$want" ]; then
        ok
    else
        bad "$file: exit $rc, want $want ($finding)"
        sed 's/^/    /' err.txt | head -3
    fi
done <"$DATA/MANIFEST.tsv"
t_summary robust_regress.sh
