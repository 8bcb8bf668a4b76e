#!/usr/bin/env bash
# extract_race.sh - a folder swapped for a symlink while x writes into it
# (another process racing the extraction, as on a shared /tmp): nothing
# may be written through the link. Each round extracts 4,000 files of d/
# while an attacker keeps replacing out/d with a link to a folder outside;
# after the round that folder must be empty and x must end with 0 or 2
# (a refused entry), never a crash. The files sit in 400 subfolders, so x
# looks up d again and again while it changes. The same attacker against a naive
# writer (the shell writing out/d/fN) shows the race is really reached: if
# that writer never lands a file outside, the rounds prove nothing and the
# test says SKIP.
set -u
. "$(dirname "$0")/lib.sh"
t_init python3
ROUNDS=4 FILES=4000

python3 - "$FILES" <<'PY' || { echo "FAIL: could not make the tree"; exit 1; }
import os, sys
for i in range(int(sys.argv[1])):
    os.makedirs(f'src/d/s{i // 10}', exist_ok=True)
    with open(f'src/d/s{i // 10}/f{i}', 'w') as f:
        f.write(f'{i}\n')
PY
(cd src && "$FZ7" a -bso0 -mx0 ../r.7z d) || { echo "FAIL: a r.7z"; exit 1; }

# attack DIR: swaps DIR/d for a link to $PWD/outside until DIR/stop exists.
attack() {
    while [ ! -e "$1/stop" ]; do
        mv "$1/d" "$1/d.$RANDOM" 2>/dev/null
        ln -sfn "$PWD/outside" "$1/d" 2>/dev/null
        sleep 0.001
        rm -f "$1/d" 2>/dev/null
        mkdir "$1/d" 2>/dev/null
    done
}

# The naive writer first: does the attacker win a race at all here?
rm -rf outside naive && mkdir outside naive naive/d
attack naive & apid=$!
for i in $(seq 0 $((FILES - 1))); do printf '%s\n' "$i" > "naive/d/f$i"; done 2>/dev/null
touch naive/stop; wait $apid
reached=$(find outside -type f | wc -l)
echo "naive writer: $reached of $FILES files landed outside"
if [ "$reached" = 0 ]; then
    echo "SKIP: the attacker never won a race against the naive writer here"
    exit 77
fi

for r in $(seq 1 $ROUNDS); do
    rm -rf outside out && mkdir outside out out/d
    attack out & apid=$!
    (cd out && "$FZ7" x -y -bso0 -bse0 ../r.7z); rc=$?
    touch out/stop; wait $apid
    n=$(find outside -mindepth 1 | wc -l)
    written=$(find out -type f -name 'f*' | wc -l)
    { [ $rc = 0 ] || [ $rc = 2 ]; } && ok || bad "round $r: exit $rc"
    [ "$n" = 0 ] && ok || bad "round $r: $n entries written through the link: $(find outside | head -3 | tr '\n' ' ')"
    echo "round $r: exit $rc, $written files written below out ($(find out -maxdepth 1 -name 'd.*' | wc -l) swapped-out folders), $n outside"
done

t_summary extract_race
