# lib_add.sh - helpers for the add_*.sh tests: a sample input tree with
# folders, empty files and folders, symlinks, modes, non-ASCII names and a
# few MB of mixed data, and a comparison of two trees (contents, modes,
# mtimes to the second, symlink targets). Sourced, not run.

need_tools() {
    for t in "$@"; do
        if ! command -v "$t" >/dev/null 2>&1; then
            echo "SKIP: $t is not installed"
            exit 77
        fi
    done
    if [ -z "$FZ7" ] || [ ! -x "$FZ7" ]; then
        echo "SKIP: FZ7 does not point to the fz7 binary"
        exit 77
    fi
}

# skip_sanitized WHY: exit 77 (SKIP) in a sanitizer build (FZ7_SANITIZED,
# set by tests/CMakeLists.txt), where WHY makes the test meaningless.
skip_sanitized() {
    if [ -n "${FZ7_SANITIZED:-}" ]; then
        echo "SKIP: $1; the release pass runs this"
        exit 77
    fi
}

fail() {
    echo "FAIL: $*" >&2
    exit 1
}

# Deterministic pseudo-random bytes: $1 = bytes, $2 = seed.
prng_bytes() {
    awk -v n="$1" -v seed="$2" 'BEGIN {
        srand(seed); for (i = 0; i < n; i++) printf "%c", int(rand() * 256) }' LC_ALL=C
}

# Text that compresses like prose: $1 = lines, $2 = seed.
text_lines() {
    awk -v n="$1" -v seed="$2" 'BEGIN {
        split("the of and to in archive folder stream block coder dictionary match literal range \
packed header solid entry check index filter", w, " ");
        srand(seed);
        for (i = 0; i < n; i++) {
            line = i ":";
            k = 4 + int(rand() * 10);
            for (j = 0; j < k; j++) line = line " " w[1 + int(rand() * 20)];
            print line
        } }'
}

# make_tree DIR: the sample tree under DIR/tree.
make_tree() {
    local top="$1/tree"
    rm -rf "$top"
    mkdir -p "$top/docs/deep/er/still" "$top/empty_dir" "$top/bin" "$top/Ünïcödé ☃" "$top/private"
    text_lines 10000 1 > "$top/docs/words.txt"                    # ~480 KB of text
    prng_bytes 300000 2 > "$top/bin/random.bin"                    # incompressible
    head -c 1200000 /dev/zero > "$top/docs/zeros.dat"
    text_lines 50 3 > "$top/docs/deep/er/still/note.md"
    : > "$top/empty.txt"
    : > "$top/docs/also_empty"
    printf 'x' > "$top/one_byte"
    printf 'grüße, 世界\n' > "$top/Ünïcödé ☃/naïve файл.txt"
    cp /bin/ls "$top/bin/ls_copy" 2>/dev/null || prng_bytes 100000 4 > "$top/bin/ls_copy"
    chmod 755 "$top/bin/ls_copy"
    printf 'secret\n' > "$top/private/key"
    chmod 600 "$top/private/key"
    printf 'read only\n' > "$top/readonly.txt"
    chmod 444 "$top/readonly.txt"
    chmod 700 "$top/private"
    ln -s docs/words.txt "$top/link_to_words"
    ln -s deep/er "$top/docs/link_to_dir"
    ln -s "no such target" "$top/dangling_link"
    touch -d '2001-02-03 04:05:06' "$top/docs/words.txt" "$top/empty_dir" "$top/docs/deep"
    touch -d '1999-12-31 23:59:59' "$top/one_byte"
}

# tree_listing DIR: one line per entry: path, type, mode, link target,
# mtime in seconds (not for symlinks: extractors do not restore those).
tree_listing() {
    (cd "$1" && find . -mindepth 1 -printf '%p|%y|%m|%l|' -a \( -type l -printf '-\n' -o -printf '%Ts\n' \) | LC_ALL=C sort)
}

# same_tree A B: fails unless both trees list the same and hold the same bytes.
same_tree() {
    local la lb
    la=$(tree_listing "$1") || fail "cannot list $1"
    lb=$(tree_listing "$2") || fail "cannot list $2"
    if [ "$la" != "$lb" ]; then
        diff <(echo "$la") <(echo "$lb") >&2
        fail "trees differ: $1 vs $2"
    fi
    diff -r --no-dereference "$1" "$2" >&2 || fail "contents differ: $1 vs $2"
}
