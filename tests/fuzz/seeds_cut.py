#!/usr/bin/env python3
"""seeds_cut.py - cuts coder streams out of small 7zz archives with plain
(unpacked) headers and writes them in the layout of the codec harnesses
(fuzz_7zaes.c, fuzz_bcj2.c, fuzz_ppmd.c, fuzz_deflate.c).

Usage: seeds_cut.py WORK_DIR OUT_DIR  (reads WORK_DIR/{aes,bcj2,ppmd,...}.7z)
Parses only what 7zFormat.txt's Header -> MainStreamsInfo needs: pack
sizes, folders (coders, properties) and unpack sizes.
"""
import os
import struct
import sys


class Reader:
    def __init__(self, b, pos):
        self.b, self.pos = b, pos

    def byte(self):
        self.pos += 1
        return self.b[self.pos - 1]

    def number(self):
        first, mask, value = self.byte(), 0x80, 0
        for i in range(8):
            if not first & mask:
                return value | ((first & (mask - 1)) << (8 * i))
            value |= self.byte() << (8 * i)
            mask >>= 1
        return value

    def take(self, n):
        self.pos += n
        return self.b[self.pos - n:self.pos]


def parse(path):
    """Returns (pack streams as bytes, coders [(id, props, n_in)], unpack sizes) of folder 0."""
    b = open(path, "rb").read()
    next_off, next_size = struct.unpack_from("<QQ", b, 12)
    r = Reader(b, 32 + next_off)
    assert r.byte() == 0x01 and r.byte() == 0x04, "plain header expected"
    assert r.byte() == 0x06
    pack_pos, n_pack = r.number(), r.number()
    assert r.byte() == 0x09
    sizes = [r.number() for _ in range(n_pack)]
    while r.byte() != 0x00:
        pass  # skip CRCs of pack streams (7zz writes none here)
    assert r.byte() == 0x07 and r.byte() == 0x0B
    n_folders = r.number()
    assert r.byte() == 0
    coders, n_out_total = [], 0
    for f in range(n_folders):
        for _ in range(r.number()):
            flag = r.byte()
            cid = r.take(flag & 0x0F)
            n_in, n_out = (r.number(), r.number()) if flag & 0x10 else (1, 1)
            props = r.take(r.number()) if flag & 0x20 else b""
            if f == 0:
                coders.append((cid, props, n_in))
            n_out_total += n_out
        break  # folder 0 is all the seeds need
    streams, off = [], 32 + pack_pos
    for s in sizes:
        streams.append(b[off:off + s])
        off += s
    return streams, coders


def write(out, name, data):
    with open(os.path.join(out, name), "wb") as f:
        f.write(data)


def main():
    work, out = sys.argv[1], sys.argv[2]
    le16 = lambda n: struct.pack("<H", min(n, 0xFFFF))
    streams, coders = parse(os.path.join(work, "aes.7z"))
    props = coders[0][1]
    for power, tag in ((3, "p3"), (0x3F, "p63")):
        p = bytes([(props[0] & 0xC0) | power]) + props[1:]
        write(out + "/7zaes", "aes_" + tag, bytes([len(p)]) + p + streams[0][:4096])
    write(out + "/7zaes", "aes_noprops", b"\x00" + streams[0][:256])

    streams, coders = parse(os.path.join(work, "bcj2.7z"))
    # 7zz -mf=BCJ2 -m0=Copy: pack streams are the range coder stream and the
    # main, call, jump streams in the folder's order; sort them by the BCJ2
    # coder's inputs: the largest is main, then call, jump, range coder.
    main_s = max(streams, key=len)
    rest = [s for s in streams if s is not main_s]
    for i, order in enumerate(((0, 1, 2), (1, 0, 2), (2, 1, 0))):
        call, jump, rc = (rest[k] if k < len(rest) else b"" for k in order)
        data = le16(len(main_s)) + le16(len(main_s)) + le16(len(call)) + le16(len(jump))
        write(out + "/bcj2", "bcj2_%d" % i, data + main_s + call + jump + rc)

    for name in ("ppmd", "ppmd2"):
        streams, coders = parse(os.path.join(work, name + ".7z"))
        props = coders[0][1]
        size = {"ppmd": 6000, "ppmd2": 2400}[name]
        write(out + "/ppmd", name, props + le16(size) + streams[0][:16384])

    for name, d64 in (("deflate", 0), ("deflate64", 1)):
        streams, _ = parse(os.path.join(work, name + ".7z"))
        write(out + "/deflate", name, bytes([d64]) + streams[0])


if __name__ == "__main__":
    main()
