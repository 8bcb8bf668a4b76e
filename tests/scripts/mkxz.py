#!/usr/bin/env python3
"""mkxz.py - writes small .xz files (xz-file-format.txt) with one chosen
defect, for tests that need the xz-utils bad-* files this checkout may not
have. Blocks hold one uncompressed LZMA2 chunk each, check CRC32.

Usage: mkxz.py OUT.xz KIND
  good                  three blocks "abc", "def", "gh"
  index-uncomp-overflow as good, but the Index gives the blocks the
                        uncompressed sizes 2^63-1, 2^63-1 and 2, whose sum
                        is 2^64 (xz-utils bad-3-index-uncomp-overflow.xz)
  block-header-csize    one block whose Block Header gives a Compressed
                        Size of 2^63-1 (xz-utils bad-1-block_header-4.xz)
"""
import struct
import sys
import zlib


def vli(n):
    out = bytearray()
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def pad4(b):
    return b + b"\0" * (-len(b) % 4)


def crc(b):
    return struct.pack("<I", zlib.crc32(b))


def block(data, csize=None):
    """A block and its Unpadded Size; csize puts a Compressed Size in the
    Block Header."""
    comp = b"\x01" + struct.pack(">H", len(data) - 1) + data + b"\x00"
    flags = 0x00                      # one filter
    fields = b""
    if csize is not None:
        flags |= 0x40
        fields += vli(csize)
    filt = b"\x21\x01\x00"            # LZMA2, one property byte, 4 KiB dict
    body = bytes([flags]) + fields + filt
    size = (1 + len(body) + 4 + 3) // 4 * 4
    hdr = bytes([size // 4 - 1]) + body
    hdr += b"\0" * (size - 4 - len(hdr))
    hdr += crc(hdr)
    unpadded = len(hdr) + len(comp) + 4
    return pad4(hdr + comp) + crc(data), unpadded


def stream(blocks, usizes):
    flags = b"\x00\x01"
    out = b"\xfd7zXZ\x00" + flags + crc(flags)
    recs = b""
    for (raw, unpadded), usize in zip(blocks, usizes):
        out += raw
        recs += vli(unpadded) + vli(usize)
    index = pad4(b"\x00" + vli(len(blocks)) + recs)
    index += crc(index)
    out += index
    tail = struct.pack("<I", len(index) // 4 - 1) + flags
    return out + crc(tail) + tail + b"YZ"


def main():
    out_path, kind = sys.argv[1], sys.argv[2]
    datas = [b"abc", b"def", b"gh"]
    if kind == "good":
        data = stream([block(d) for d in datas], [len(d) for d in datas])
    elif kind == "index-uncomp-overflow":
        data = stream([block(d) for d in datas], [2**63 - 1, 2**63 - 1, 2])
    elif kind == "block-header-csize":
        data = stream([block(b"abc", csize=2**63 - 1)], [3])
    else:
        sys.exit("unknown kind " + kind)
    with open(out_path, "wb") as f:
        f.write(data)


if __name__ == "__main__":
    main()
