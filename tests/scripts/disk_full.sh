#!/usr/bin/env bash
# disk_full.sh - a full disk while writing: every writer (7z, tar through
# libarchive, volumes, extraction, stdout) stops with the system's error
# text and exit 2, leaves no partial archive, and an update that fails
# keeps the old archive as it was. The disk is a 1 MiB tmpfs, so the
# script needs root and a mount namespace that allows it; else it skips.
set -u
. "$(dirname "$0")/lib.sh"
t_init sha256sum
mkdir full
mount -t tmpfs -o size=1m tmpfs full 2>/dev/null || { echo "SKIP: cannot mount a tmpfs (not root?)"; exit 77; }
trap 'umount "$S/full" 2>/dev/null' EXIT

# 3 MB that no level can shrink, and a small file that fits.
head -c 3000000 /dev/urandom > big
printf 'small\n' > small

# full_fails NAME CMD...: exit 2 with "No space left on device" on stderr;
# a, u: exactly 7zz's lines there (System ERROR and the errno).
full_fails() {
  local name=$1; shift
  expect_rc 2 "$name" "$@"
  grep -q "No space left on device" err.txt && ok || bad "$name: no ENOSPC message: $(head -c 300 err.txt)"
  case $name in
    a\ *|u\ *) same "$name: 7zz's lines" "$(cat err.txt)" "$(printf '\n\nSystem ERROR:\nerrno=28 : No space left on device')" ;;
  esac
}

full_fails "a 7z" "$FZ7" a -mx0 full/a.7z big
full_fails "a tar" "$FZ7" a -ttar full/a.tar big
full_fails "a gzip" "$FZ7" a -tgzip -mx1 full/a.gz big
full_fails "a 7z volumes" "$FZ7" a -mx0 -v512k full/v.7z big
same "nothing left after failed writes" "$(ls -A full)" ""

# An update that runs out of room keeps the archive it started from.
"$FZ7" a full/keep.7z small >/dev/null 2>&1 || bad "a keep.7z of a small file failed"
before=$(sha256sum < full/keep.7z)
full_fails "u 7z" "$FZ7" a -mx0 full/keep.7z big
same "keep.7z unchanged" "$(sha256sum < full/keep.7z)" "$before"
same "only keep.7z left" "$(ls -A full)" "keep.7z"
rm -f full/keep.7z

# Extraction: the error names the file.
"$FZ7" a -mx0 big.7z big >/dev/null 2>&1 || bad "a big.7z failed"
full_fails "x to a full disk" "$FZ7" x -y -ofull big.7z
grep -q "big: write error: No space left on device" err.txt && ok || bad "x: the error does not name big"

# stdout that cannot take the bytes: 7zz's line and exit 2.
expect_rc 2 "x -so to /dev/full" sh -c "exec \"$FZ7\" x -so big.7z >/dev/full"
same "x -so to /dev/full: 7zz's lines" "$(cat err.txt)" "$(printf '\n\nSystem ERROR:\nerrno=28 : No space left on device')"

t_summary disk_full.sh
