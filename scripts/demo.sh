#!/usr/bin/env bash
# The main job on real input: builds fz7, then lists, tests and extracts the
# real 7z and xz archives of ../shared/corpus (or, without it, archives that
# 7zz and xz make here from fz7's own sources).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cmake -S "$top" -B "$top/build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$top/build" -j"$(nproc)" >/dev/null
fz7="$top/build/fz7"
"$fz7" --version
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
shared="$top/../shared/corpus"
if [ -d "$shared/7z" ]; then
  archives=("$shared/7z/lzma2bcj.7z" "$shared/7z/test_folder.7z" "$shared/7z/symlink.7z"
            "$shared/xz/good-1-delta-lzma2.tiff.xz")
else
  (cd "$top" && 7zz a -bso0 -bsp0 "$work/src.7z" src >/dev/null && tar cf - src | xz -6 > "$work/src.tar.xz")
  archives=("$work/src.7z" "$work/src.tar.xz")
fi
for a in "${archives[@]}"; do
  echo "== fz7 l $a"; "$fz7" l "$a"
  echo "== fz7 t $a"; "$fz7" t "$a"
  echo "== fz7 x $a"; "$fz7" x -y -o"$work/out" "$a" >/dev/null && echo "extracted to $work/out"
done
# awk, not head: head exits after 20 lines, find then dies of SIGPIPE and
# pipefail turns that into exit 141.
find "$work/out" | awk 'NR <= 20'
