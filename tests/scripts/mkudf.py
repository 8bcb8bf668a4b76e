#!/usr/bin/env python3
"""mkudf.py SPEC.json OUT - writes a small UDF image (ECMA-167 3rd edition,
OSTA UDF) as the JSON spec says, for udf.sh: mkudffs makes only empty
images, and udf cannot be mounted here. Written from the specs.

Spec keys: ss (block size, 512 or 2048), rev (UDF revision, 0x0102,
0x0201...), efe (extended file entries), long_ad (long allocation
descriptors), vol (volume identifier), tree (list of nodes). A node:
name, optional wide (16-bit name), dir (a list of nodes) or data (text),
embed (data in the entry), sparse (a leading unrecorded extent of that
many bytes), split (data extents of that many blocks, the rest through an
allocation extent descriptor), pieces (data in that many extents of the
entry itself, apart, the last first on the disc), time [y, mo, d, h, mi,
s, cs, hus, us, tz minutes], links, deleted (a deleted FID before it),
self (a folder: a FID named "loop" naming the folder's own entry), link
(the name of an earlier sibling whose entry this name names too)."""
import json
import struct
import sys


def crc_itu(b):
    c = 0
    for x in b:
        c ^= x << 8
        for _ in range(8):
            c = ((c << 1) ^ 0x1021) if c & 0x8000 else c << 1
            c &= 0xFFFF
    return c


def tag(ident, body, loc, ver):
    """The 16-byte tag, checksum and CRC over body, then body."""
    t = bytearray(struct.pack("<HHBBHHHI", ident, ver, 0, 0, 1, crc_itu(body), len(body), loc))
    t[4] = sum(t[i] for i in range(16) if i != 4) & 0xFF
    return bytes(t) + body


def ts(t):
    y, mo, d, h, mi, s, cs, hus, us, tz = t
    return struct.pack("<HhBBBBBBBB", (1 << 12) | (tz & 0xFFF), y, mo, d, h, mi, s, cs, hus, us)


def regid(ident, suffix=b""):
    return bytes([0]) + ident.encode().ljust(23, b"\0") + suffix.ljust(8, b"\0")


def cs0(name, wide):
    if wide:
        return b"\x10" + name.encode("utf-16-be", "surrogatepass")   # (lone surrogates too)
    return b"\x08" + name.encode("latin-1")


def dstring(s, n):
    b = cs0(s, False) if s else b""
    return b.ljust(n - 1, b"\0") + bytes([len(b)])


def main():
    sys.setrecursionlimit(20000)   # (deeply nested test trees)
    spec = json.load(open(sys.argv[1]))
    ss = spec.get("ss", 2048)
    rev = spec.get("rev", 0x0201)
    ver = 3 if rev >= 0x0200 else 2
    efe = spec.get("efe", False)
    long_ad = spec.get("long_ad", False)
    t0 = spec.get("time", [2024, 5, 6, 7, 8, 9, 12, 34, 56, 0])
    dom = regid("*OSTA UDF Compliant", struct.pack("<H", rev))
    impl = regid("*fz7 mkudf", b"\x04\x05")
    part_start = 257
    blocks = {}            # partition block -> bytes
    nxt = [2]              # partition blocks: 0 FSD, 1 TD

    def alloc(n):
        b = nxt[0]
        nxt[0] += n
        return b

    def ad_bytes(ext):
        out = b""
        for ln, lbn, typ in ext:
            v = (typ << 30) | ln
            out += struct.pack("<IIH6x", v, lbn, 0) if long_ad else struct.pack("<II", v, lbn)
        return out

    def write_fe(lbn, ftype, size, payload, ext, node, parent_lbn):
        """A file entry at lbn: payload embedded, else extents ext."""
        t = ts(node.get("time", t0))
        links = node.get("links", 1)
        flags = 3 if payload is not None else (1 if long_ad else 0)
        icb = struct.pack("<IHHHBB", 0, 4, 0, 1, 0, ftype) + struct.pack("<IH", parent_lbn, 0) + struct.pack("<H", flags)
        if payload is not None:
            ads = payload
        else:
            ads = ad_bytes(ext)
        recorded = sum((ln + ss - 1) // ss for ln, _, typ in ext if typ == 0) if payload is None else 0
        if efe:
            body = icb + struct.pack("<IIIHBBI", 0, 0, 0o755 | 0x1000, links, 0, 0, 0)
            body += struct.pack("<QQQ", size, size, recorded) + t + t + t + t
            body += struct.pack("<II", 1, 0) + bytes(16) + bytes(16) + impl + struct.pack("<Q", lbn)
            body += struct.pack("<II", 0, len(ads)) + ads
            ident = 266
        else:
            body = icb + struct.pack("<IIIHBBI", 0, 0, 0o755 | 0x1000, links, 0, 0, 0)
            body += struct.pack("<QQ", size, recorded) + t + t + t
            body += struct.pack("<I", 1) + bytes(16) + impl + struct.pack("<Q", lbn)
            body += struct.pack("<II", 0, len(ads)) + ads
            ident = 261
        d = tag(ident, body, lbn, ver)
        assert len(d) <= ss
        blocks[lbn] = d

    def fid(chars, icb_lbn, name, wide, loc):
        fi = cs0(name, wide) if name is not None else b""
        body = struct.pack("<HBB", 1, chars, len(fi)) + struct.pack("<IIH6x", ss, icb_lbn, 0) + struct.pack("<H", 0) + fi
        body += bytes((-(16 + len(body))) % 4)
        return tag(257, body, loc, ver)

    def put_data(data, node):
        """Extents for data: sparse head, split through an AED."""
        ext = []
        sparse = node.get("sparse", 0)
        if sparse:
            ext.append((sparse, 0, 1))
            data = data[sparse:]
        if data:
            n = (len(data) + ss - 1) // ss
            pieces = node.get("pieces", 0)
            if pieces > 1 and n >= pieces:
                # each piece whole blocks (the last the rest), allocated
                # last piece first with a free block between: out of order
                per = n // pieces
                bounds = [(i * per, per if i < pieces - 1 else n - i * per) for i in range(pieces)]
                starts = {}
                for i in reversed(range(pieces)):
                    starts[i] = alloc(bounds[i][1])
                    alloc(1)
                for i, (first, cnt) in enumerate(bounds):
                    for j in range(cnt):
                        blocks[starts[i] + j] = data[(first + j) * ss:(first + j + 1) * ss]
                    ln = min(cnt * ss, len(data) - first * ss)
                    ext.append((ln, starts[i], 0))
                return ext
            b = alloc(n)
            for i in range(n):
                blocks[b + i] = data[i * ss:(i + 1) * ss]
            split = node.get("split", 0)
            if split and split < n:
                ext.append((split * ss, b, 0))
                aed_lbn = alloc(1)
                rest = ad_bytes([(len(data) - split * ss, b + split, 0)])
                blocks[aed_lbn] = tag(258, struct.pack("<II", 0, len(rest)) + rest, aed_lbn, ver)
                ext.append((ss, aed_lbn, 3))
            else:
                ext.append((len(data), b, 0))
        return ext

    def build_dir(nodes, lbn, parent_lbn, node):
        kids = []
        for k in nodes:
            if "link" in k:   # another name for a sibling's entry
                sib = [(j, jl) for j, jl in kids if j["name"] == k["link"]][0]
                kids.append((dict(k, dir=sib[0]["dir"]) if "dir" in sib[0] else k, sib[1]))
            else:
                kids.append((k, alloc(1)))
        # FIDs (parent first); their tag location: the block they start in
        fids = b""
        entries = [(0x0A, parent_lbn, None, False)]
        for k, kl in kids:
            if k.get("deleted"):
                entries.append((0x04, kl, "gone", False))
            entries.append((0x02 if "dir" in k else 0, kl, k["name"], k.get("wide", False)))
        if node.get("self"):
            entries.append((0x02, lbn, "loop", False))
        embed = node.get("embed", False)
        # the FIDs' size does not depend on their tag locations
        need = sum(len(fid(c, il, nm, w, 0)) for c, il, nm, w in entries)
        dlbn = None if embed else alloc((need + ss - 1) // ss)
        for chars, il, nm, wide in entries:
            loc = lbn if embed else dlbn + len(fids) // ss
            fids += fid(chars, il, nm, wide, loc)
        if embed:
            write_fe(lbn, 4, len(fids), fids, [], node, parent_lbn)
        else:
            n = (len(fids) + ss - 1) // ss
            for i in range(n):
                blocks[dlbn + i] = fids[i * ss:(i + 1) * ss]
            write_fe(lbn, 4, len(fids), None, [(len(fids), dlbn, 0)], node, parent_lbn)
        for k, kl in kids:
            if "link" in k:
                continue
            if "dir" in k:
                build_dir(k["dir"], kl, lbn, k)
            else:
                data = k.get("data", "").encode()
                if k.get("embed"):
                    write_fe(kl, 5, len(data), data, [], k, lbn)
                else:
                    write_fe(kl, 5, len(data), None, put_data(data, k), k, lbn)

    root = alloc(1)
    build_dir(spec.get("tree", []), root, root, {"time": t0, "embed": spec.get("root_embed", False), "links": 2})
    plen = nxt[0] + 4
    vol = spec.get("vol", "FZ7UDF")
    fsd = ts(t0) + struct.pack("<HHIIII", 3, 3, 1, 1, 0, 0) + bytes(64) + dstring(vol, 128) + bytes(64)
    fsd += dstring(vol, 32) + dstring("", 32) + dstring("", 32)
    fsd += struct.pack("<IIH6x", ss, root, 0) + dom + bytes(16) + bytes(16) + bytes(32)
    blocks[0] = tag(256, fsd, 0, ver)
    blocks[1] = tag(8, bytes(496), 1, ver)

    vds = 65536 // ss
    lvid = vds + 16
    total = part_start + plen + 1
    img = bytearray(total * ss)
    for i, ident in enumerate((b"BEA01", b"NSR03" if ver == 3 else b"NSR02", b"TEA01")):
        img[32768 + 2048 * i:32768 + 2048 * i + 7] = b"\0" + ident + b"\1"

    def put(sector, data):
        img[sector * ss:sector * ss + len(data)] = data

    pvd = struct.pack("<II", 1, 0) + dstring(vol, 32) + struct.pack("<HHHHII", 1, 1, 2, 2, 1, 1)
    pvd += dstring("0123456789ABCDEF" + vol, 128) + bytes(64) + bytes(64) + bytes(16)
    pvd += regid("*fz7 test") + ts(t0) + impl + bytes(64) + struct.pack("<IH", 0, 0) + bytes(22)
    put(vds, tag(1, pvd, vds, ver))
    pd = struct.pack("<IHH", 2, 1, 0) + regid("+NSR03" if ver == 3 else "+NSR02") + bytes(128)
    pd += struct.pack("<III", 1, part_start, plen) + impl + bytes(128) + bytes(156)
    put(vds + 1, tag(5, pd, vds + 1, ver))
    lvd = struct.pack("<I", 3) + bytes(64) + dstring(vol, 128) + struct.pack("<I", ss) + dom
    lvd += struct.pack("<IIH6x", ss, 0, 0) + struct.pack("<II", 6, 1) + impl + bytes(128)
    lvd += struct.pack("<II", 2 * ss, lvid) + struct.pack("<BBHH", 1, 6, 1, 0)
    put(vds + 2, tag(6, lvd, vds + 2, ver))
    put(vds + 3, tag(8, bytes(496), vds + 3, ver))
    lv = ts(t0) + struct.pack("<I", 1) + bytes(8) + struct.pack("<Q", 16) + bytes(24)
    lv += struct.pack("<II", 1, 46) + struct.pack("<II", 0, plen) + impl + struct.pack("<IIHHH", 1, 1, rev, rev, rev)
    put(lvid, tag(9, lv, lvid, ver))
    put(lvid + 1, tag(8, bytes(496), lvid + 1, ver))
    avdp = struct.pack("<IIII", 16 * ss, vds, 16 * ss, vds) + bytes(480)
    put(256, tag(2, avdp, 256, ver))
    put(total - 1, tag(2, avdp, total - 1, ver))
    for b, d in blocks.items():
        put(part_start + b, d)
    open(sys.argv[2], "wb").write(img)


if __name__ == "__main__":
    main()
