#!/usr/bin/env python3
"""mk7z.py - writes a tiny .7z (Copy method, one folder per file) with any
entry names, for tests that need archives other tools refuse to make
(hostile "../" paths, symlinks followed by files through them).

Usage: mk7z.py [--archive-props HEX] OUT.7z SPEC...
SPEC is f:PATH:DATA, l:PATH:TARGET or d:PATH; --archive-props puts HEX (the
bytes between kArchiveProperties and its kEnd) into the header.
(7zFormat.txt: signature header, PackInfo, UnPackInfo, SubStreamsInfo, FilesInfo).
"""
import struct
import sys
import zlib


def number(n):
    """7z NUMBER: first byte's leading 1-bits count the extra bytes."""
    for extra in range(9):
        if extra == 8 or n < (1 << (7 * (extra + 1))):
            break
    if extra == 8:
        return b"\xff" + struct.pack("<Q", n)
    high = n >> (8 * extra)
    first = (0xFF << (8 - extra)) & 0xFF | high
    return bytes([first]) + (n & ((1 << (8 * extra)) - 1)).to_bytes(extra, "little")


def bits(flags):
    out = bytearray((len(flags) + 7) // 8)
    for i, f in enumerate(flags):
        if f:
            out[i // 8] |= 0x80 >> (i % 8)
    return bytes(out)


def main():
    args = sys.argv[1:]
    archive_props = None
    if args[0] == "--archive-props":
        archive_props = bytes.fromhex(args[1])
        args = args[2:]
    out_path, specs = args[0], args[1:]
    entries = []
    for s in specs:
        kind, rest = s.split(":", 1)
        if kind == "d":
            entries.append(("d", rest, b""))
        else:
            path, data = rest.split(":", 1)
            entries.append((kind, path, data.encode()))
    streams = [e for e in entries if e[0] != "d" and e[2]]
    packed = b"".join(e[2] for e in streams)

    h = bytearray(b"\x01")                      # kHeader
    if archive_props is not None:
        h += b"\x02" + archive_props + b"\x00"     # kArchiveProperties
    if streams:
        h += b"\x04"                            # kMainStreamsInfo
        h += b"\x06" + number(0) + number(len(streams)) + b"\x09"
        for e in streams:
            h += number(len(e[2]))
        h += b"\x00"
        h += b"\x07\x0b" + number(len(streams)) + b"\x00"
        for _ in streams:
            h += b"\x01\x01\x00"                # one coder, id size 1, Copy
        h += b"\x0c"
        for e in streams:
            h += number(len(e[2]))
        h += b"\x00"
        h += b"\x08\x0a\x01"                    # SubStreamsInfo: CRCs, all defined
        for e in streams:
            h += struct.pack("<I", zlib.crc32(e[2]))
        h += b"\x00\x00"
    h += b"\x05" + number(len(entries))         # kFilesInfo
    empty = [e[0] == "d" or not e[2] for e in entries]
    if any(empty):
        v = bits(empty)
        h += b"\x0e" + number(len(v)) + v
        empty_file = [e[0] != "d" for e, em in zip(entries, empty) if em]
        if any(empty_file):
            v = bits(empty_file)
            h += b"\x0f" + number(len(v)) + v
    names = b"\x00" + b"".join(e[1].encode("utf-16-le", "surrogatepass") + b"\x00\x00" for e in entries)
    h += b"\x11" + number(len(names)) + names
    attrs = bytearray(b"\x01\x00")
    for kind, _, _ in entries:
        mode = {"f": 0o100644, "l": 0o120777, "d": 0o040755}[kind]
        win = 0x10 if kind == "d" else 0x20
        attrs += struct.pack("<I", win | 0x8000 | (mode << 16))
    h += b"\x15" + number(len(attrs)) + attrs
    h += b"\x00\x00"

    start = struct.pack("<QQI", len(packed), len(h), zlib.crc32(h))
    sig = b"7z\xbc\xaf\x27\x1c\x00\x04" + struct.pack("<I", zlib.crc32(start)) + start
    with open(out_path, "wb") as f:
        f.write(sig + packed + h)


if __name__ == "__main__":
    main()
