#!/usr/bin/env bash
# lzh.sh - LHA archives (.lzh), read as 7zz reads them: `l`, `l -slt`,
# `l -ba`, `t`, `x` and `e` give 7zz's lines (after the banner) and exit
# code, and `x`/`e` the same files with the same mtimes. jlha makes
# -lh5-, -lh6-, -lh7- and stored archives at header levels 0, 1 and 2
# (folders, an empty file, nested names); python3 writes stored ones by
# hand for what jlha does not vary (host OS, level 3, a Unix time
# extension, stored name bytes, Unix modes and a symlink, which 7zz
# leaves: umask modes, a folder named "link|target"); the damage cases cut, extend and edit them: no end mark,
# tails of zeros and of other bytes, a cut in data and in a header, bad
# header checksums, a header that does not read after entries, a bad
# data CRC, an unknown method.
set -u
. "$(dirname "$0")/lib.sh"
t_init 7zz python3

export LC_ALL=C.UTF-8 TZ=UTC

# vs_7zz, with fz7's "  (in ARCHIVE: detail)" lines after an entry's
# error left out (7zz's lines are all there, in order)
vs_7zz_in() {
    local want got
    want=$(7zz "$@" 2>&1 | tail -n +4; echo "rc=${PIPESTATUS[0]}")
    got=$("$FZ7" "$@" 2>&1 | tail -n +4 | grep -av '^  (in '; echo "rc=${PIPESTATUS[0]}")
    if [ "$want" = "$got" ]; then ok; else bad "$*: differs from 7zz"; diff <(echo "$want") <(echo "$got") | head -8; fi
}

# same_files compares these: the files' mtimes too (folders made on the
# way have the time of the run), and their messages without fz7's detail;
# with a second argument the messages alone (a file cut in its -lh5-
# data: 7zz keeps what it decoded, libarchive hands over none of it)
tree_sig() {
    (cd "$1" && find . -mindepth 1 -printf '%y %m %s %p %l\n' | sort &&
        find . -type f -printf '%T@ %p\n' | sort -k2 &&
        find . -type f -exec sha256sum {} + | sort -k2)
}
same_files_in() {
    local arc=$1 cmd want got
    for cmd in x e; do
        rm -rf w7 wf
        want=$(7zz "$cmd" "$arc" -ow7 2>&1 </dev/null | tail -n +4 | sed 's/w7/OUT/g'; echo "rc=${PIPESTATUS[0]}")
        got=$("$FZ7" "$cmd" "$arc" -owf 2>&1 </dev/null | tail -n +4 | grep -av '^  (in ' | sed 's/wf/OUT/g'; echo "rc=${PIPESTATUS[0]}")
        same "$cmd $arc: output" "$got" "$want"
        [ -n "${2:-}" ] || same "$cmd $arc: files" "$(tree_sig wf)" "$(tree_sig w7)"
    done
}

# --- made by jlha ---
if command -v jlha >/dev/null && command -v java >/dev/null; then
    mkdir -p d/sub d/deep/er
    printf 'hello\n' >d/a.txt
    seq 1 3000 >d/sub/b.txt
    : >d/empty.txt
    printf 'x\n' >d/deep/er/x.bin
    head -c 5000 /dev/urandom >d/rand.bin    # jlha stores what does not shrink: -lh0-
    touch -d '2024-01-02 03:04:06' d/a.txt d/sub/b.txt d/empty.txt d/deep/er/x.bin d/rand.bin
    touch -d '2023-05-06 07:08:10' d/sub
    # c: level 2 (jlha's default) -lh5-; c1o6: level 1 -lh6-; c0o7: level 0 -lh7-; cz: stored
    for m in c c1o6 c0o7 cz; do
        (cd d && jlha $m ../$m.lzh a.txt empty.txt deep/er/x.bin rand.bin sub >/dev/null 2>&1)
        [ -s $m.lzh ] || bad "jlha $m made no archive"
    done
    for arc in c.lzh c1o6.lzh c0o7.lzh cz.lzh; do
        for args in "l" "l -slt" "l -ba" "t"; do vs_7zz $args "$arc"; done
        same_files_in "$arc"
    done
    # the methods as 7zz names them, asserted here too (not only compared)
    same "c1o6 methods" "$("$FZ7" l -slt c1o6.lzh | grep '^Method' | sort -u | tr '\n' ' ')" \
        "Method = -lh0- Method = -lh6- Method = -lhd- "
    same "c0o7 methods" "$("$FZ7" l -slt c0o7.lzh | grep '^Method' | sort -u | tr '\n' ' ')" \
        "Method = -lh0- Method = -lh7- Method = -lhd- "

    # damage: the last byte (the end mark) gone, then a byte where it was;
    # tails after it; a cut in the data and in the first header; a bad
    # data CRC (a byte of a.txt's stored data)
    s=$(stat -c %s c.lzh)
    head -c $((s - 1)) c.lzh >noend.lzh
    { head -c $((s - 1)) c.lzh; printf j; } >badhdr.lzh
    { cat c.lzh; head -c 100 /dev/zero; } >zeros.lzh
    { cat c.lzh; printf 'j%.0s' $(seq 30); } >junk.lzh
    { cat c.lzh; printf 'jjjj'; } >short.lzh
    head -c $((s - 300)) c.lzh >cutdata.lzh
    head -c 20 c.lzh >cuthdr.lzh
    python3 -c "
import sys
d = bytearray(open('c.lzh', 'rb').read())
i = d.index(b'hello')
d[i] ^= 1
open('badcrc.lzh', 'wb').write(d)"
    for arc in noend.lzh badhdr.lzh zeros.lzh junk.lzh short.lzh cutdata.lzh cuthdr.lzh badcrc.lzh; do
        vs_7zz l -slt "$arc"
        vs_7zz l "$arc"
        vs_7zz_in t "$arc"
    done
    for arc in noend.lzh badhdr.lzh zeros.lzh badcrc.lzh; do same_files_in "$arc"; done
    same_files_in cutdata.lzh messages
    same "zeros: Tail Size" "$("$FZ7" l zeros.lzh | grep '^Tail Size')" "Tail Size = 99"
    expect_rc 2 "t badcrc.lzh" "$FZ7" t badcrc.lzh
    grep -q '^ERROR: CRC Failed : a.txt$' err.txt && ok || bad "t badcrc.lzh: no CRC Failed line"
else
    echo "SKIP: jlha (jlha-utils) or java not installed: the -lh5-/-lh6-/-lh7- cases"
fi

# --- written by hand: host OS, header levels, a Unix time extension ---
python3 - <<'EOF'
import struct, time

def crc16(data):
    crc = 0
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ 0xA001 if crc & 1 else crc >> 1
    return crc

T = 1704164646                     # 2024-01-02 03:04:06 UTC
g = time.gmtime(T)
DOS = ((g.tm_year - 1980) << 25) | (g.tm_mon << 21) | (g.tm_mday << 16) | \
      (g.tm_hour << 11) | (g.tm_min << 5) | (g.tm_sec // 2)

def exts(items, w):
    # each extension: type, data, then the size of the next one (0: none);
    # the first one's size goes in the base header
    fmt = '<H' if w == 2 else '<I'
    sizes = [1 + len(d) + w for _, d in items] + [0]
    body = b''.join(bytes([t]) + d + struct.pack(fmt, sizes[i + 1]) for i, (t, d) in enumerate(items))
    return struct.pack(fmt, sizes[0]), body, sum(sizes)

def entry(level, os_id, name, data, unix_time):
    is_dir = name.endswith('/')
    method = b'-lhd-' if is_dir else b'-lh0-'
    name = name.rstrip('/')
    d, f = (name, '') if is_dir else (name.rsplit('/', 1) if '/' in name else ('', name))
    dirf = (d.replace('/', '\xff') + '\xff').encode('latin-1') if d else b''
    crc = crc16(data)
    if level == 0:
        nm = name.replace('/', '\\').encode()
        base = method + struct.pack('<IIIBBB', len(data), len(data), DOS, 0x20, 0, len(nm)) + nm + struct.pack('<H', crc)
        return bytes([len(base), sum(base) & 0xFF]) + base + data
    if level == 1:
        items = ([(2, dirf)] if d else []) + ([(0x54, struct.pack('<I', unix_time))] if unix_time else [])
        first, body, total = exts(items, 2)
        nm = f.encode()
        base = method + struct.pack('<IIIBBB', len(data) + total, len(data), DOS, 0x20, 1, len(nm)) + nm + \
            struct.pack('<H', crc) + os_id + first
        return bytes([len(base), sum(base) & 0xFF]) + base + body + data
    w = 2 if level == 2 else 4
    items = [(0, b'\0\0')] + ([(1, f.encode())] if f else []) + ([(2, dirf)] if d else [])
    first, body, _ = exts(items, w)
    fixed = method + struct.pack('<IIIBB', len(data), len(data), unix_time or T, 0x20, level) + struct.pack('<H', crc) + os_id
    if level == 2:
        h = bytearray(struct.pack('<H', 2 + len(fixed) + len(first) + len(body)) + fixed + first + body)
    else:
        h = bytearray(struct.pack('<H', 4) + fixed + struct.pack('<I', 2 + len(fixed) + 4 + len(first) + len(body)) + first + body)
    at = len(h) - len(body) + 1       # the header CRC extension comes first
    h[at:at + 2] = struct.pack('<H', crc16(h))
    return bytes(h) + data

def archive(path, level, os_id, unix_time=0):
    files = [('a.txt', b'hello\n'), ('dir/', b''), ('dir/b.txt', b'bee'), ('dir/e.txt', b'')]
    open(path, 'wb').write(b''.join(entry(level, os_id, n, d, unix_time) for n, d in files) + b'\0')

archive('h0.lzh', 0, b'M')
archive('h1u.lzh', 1, b'U', T + 1000)      # its Unix time differs from its DOS time
archive('h1w.lzh', 1, b'W')
archive('h2u.lzh', 2, b'U')
archive('h2j.lzh', 2, b'J')
archive('h2n.lzh', 2, b'A')                # a letter 7zz names by number
archive('h3.lzh', 3, b'U')                 # 7zz reads no level 3
# names as stored bytes, listed and written so: Shift-JIS (a Japanese
# MS-DOS archive's), Latin-1, UTF-8, a folder of Shift-JIS under one
def raw0(name, data):
    base = b'-lh0-' + struct.pack('<IIIBBB', len(data), len(data), DOS, 0x20, 0, len(name)) + name + \
        struct.pack('<H', crc16(data))
    return bytes([len(base), sum(base) & 0xFF]) + base + data
names = ['日本.txt'.encode('cp932'), 'café.txt'.encode('latin-1'), 'ü.txt'.encode(),
         'sub\\'.encode() + 'ソ.txt'.encode('cp932')]
open('names.lzh', 'wb').write(b''.join(raw0(n, b'x\n') for n in names) + b'\0')
# Unix modes (extension 0x50), which 7zz does not apply: files 0755 and
# 0400, a folder 0700, and a symlink, stored as the folder "ln|a.txt"
def unix2(method, name, dirname, data, mode):
    items = [(0, b'\0\0')] + ([(1, name)] if name else []) + ([(2, dirname + b'\xff')] if dirname else []) + \
        [(0x50, struct.pack('<H', mode))]
    first, body, _ = exts(items, 2)
    fixed = method + struct.pack('<IIIBB', len(data), len(data), T, 0x20, 2) + struct.pack('<H', crc16(data)) + b'U'
    h = bytearray(struct.pack('<H', 2 + len(fixed) + len(first) + len(body)) + fixed + first + body)
    h[len(h) - len(body) + 1:len(h) - len(body) + 3] = struct.pack('<H', crc16(h))
    return bytes(h) + data
open('unix.lzh', 'wb').write(unix2(b'-lh0-', b'run.sh', b'', b'#!/bin/sh\n', 0o100755) +
                             unix2(b'-lh0-', b'ro.txt', b'', b'r\n', 0o100400) +
                             unix2(b'-lhd-', b'', b'priv', b'', 0o40700) +
                             unix2(b'-lhd-', b'ln|run.sh', b'', b'', 0o120777) + b'\0')
d = bytearray(open('h0.lzh', 'rb').read())
d[1] ^= 0x55
open('sum0.lzh', 'wb').write(d)            # a first header's checksum wrong
d = bytearray(open('h1w.lzh', 'rb').read())
d[1] ^= 0x55
open('sum1.lzh', 'wb').write(d)
EOF
for arc in h0.lzh h1u.lzh h1w.lzh h2u.lzh h2j.lzh h2n.lzh names.lzh unix.lzh; do
    for args in "l" "l -slt" "l -ba" "t"; do vs_7zz $args "$arc"; done
    same_files_in "$arc"
done
for arc in h3.lzh sum0.lzh sum1.lzh; do
    vs_7zz l "$arc"
    vs_7zz t "$arc"
done
same "h2n Host OS" "$("$FZ7" l -slt h2n.lzh | grep -m1 '^Host OS')" "Host OS = 65"
same "h1u a.txt time" "$("$FZ7" l -slt h1u.lzh | grep -m1 '^Modified')" "Modified = 2024-01-02 03:20:46"
"$FZ7" l -ba names.lzh | cut -c54- >n.txt
same "names.lzh: Shift-JIS name as stored" "$(head -1 n.txt | od -An -tx1 | tr -d ' ')" "93fa967b2e7478740a"
same "unix.lzh: the symlink's folder" "$("$FZ7" l -ba unix.lzh | grep -c ' D\.\.\.\. .*ln|run\.sh$')" 1
same "h0 CRC" "$("$FZ7" l -slt h0.lzh | grep -m1 '^CRC')" "CRC = 00005A34"
expect_rc 2 "t h3.lzh" "$FZ7" t h3.lzh

t_summary lzh
