#!/usr/bin/env python3
"""mkcfb.py - writes small Compound File Binary files ([MS-CFB]) for
compound.sh: storages, streams in the mini stream and in regular sectors,
512- or 4096-byte sectors, DIFAT sectors when asked, and hooks to damage
them. fz7's own writer, only for tests.

Usage: mkcfb.py OUT SPEC   (SPEC names one of the layouts below)"""
import struct, sys, random

FREE, END, FATSECT, DIFSECT, NOSTREAM = 0xFFFFFFFF, 0xFFFFFFFE, 0xFFFFFFFD, 0xFFFFFFFC, 0xFFFFFFFF


def msi_encode(name):
    """An MSI table/stream name in its packed form (two characters of the
    64-letter set per code point, from U+3800; U+4840 as the table mark)."""
    cs = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz._"
    out, i = [], 0
    if name.startswith('!'):
        out.append(0x4840)
        i = 1
    while i < len(name):
        c = name[i]
        if c in cs and i + 1 < len(name) and name[i + 1] in cs:
            out.append(0x3800 + cs.index(c) + (cs.index(name[i + 1]) << 6))
            i += 2
        elif c in cs:
            out.append(0x4800 + cs.index(c))
            i += 1
        else:
            out.append(ord(c))
            i += 1
    return out


class Node:
    def __init__(self, name, data=None, children=None, ctime=0, mtime=0):
        # name: str, or a list of UTF-16 code units as stored
        self.units = name if isinstance(name, list) else list(name.encode('utf-16-le'))
        if not isinstance(name, list):
            self.units = [struct.unpack('<H', name.encode('utf-16-le')[k:k + 2])[0]
                          for k in range(0, len(name.encode('utf-16-le')), 2)]
        self.data, self.children = data, children
        self.ctime, self.mtime = ctime, mtime


def build(root_children, bits=9, root_times=(0, 0), hook=None, extra_fat_sectors=0, interleave=False):
    ss = 1 << bits
    ids_per = ss // 4
    # flatten the directory: entry 0 root, then in order
    entries = []

    def add(node):
        entries.append(node)
        return len(entries) - 1

    root = Node('Root Entry', None, root_children, *root_times)
    add(root)
    dids = {}

    def place(nodes):
        # a BST per sibling set, by CFB's order (length, then upper case)
        idx = [add(n) for n in nodes]
        for n, i in zip(nodes, idx):
            dids[id(n)] = i
        for n in nodes:
            if n.children is not None:
                place(n.children)

    place(root_children)

    def key(n):
        s = ''.join(chr(u) for u in n.units)
        return (len(n.units), s.upper())

    left, right, child = {}, {}, {}

    def tree(nodes):
        if not nodes:
            return NOSTREAM
        nodes = sorted(nodes, key=key)
        m = len(nodes) // 2
        me = dids[id(nodes[m])]
        left[me] = tree(nodes[:m])
        right[me] = tree(nodes[m + 1:])
        return me

    child[0] = tree(root_children)
    for n in entries[1:]:
        if n.children is not None:
            child[dids[id(n)]] = tree(n.children)

    # mini stream: streams < 4096
    mini = bytearray()
    minifat = []
    start = {}
    for i, n in enumerate(entries):
        if n.children is None and i and n.data is not None and 0 < len(n.data) < 4096:
            k = (len(n.data) + 63) // 64
            first = len(minifat)
            start[i] = first
            for j in range(k):
                minifat.append(first + j + 1 if j + 1 < k else END)
            mini += n.data + b'\0' * (k * 64 - len(n.data))
    big = [i for i, n in enumerate(entries) if n.children is None and i and n.data is not None and len(n.data) >= 4096]

    def nsec(nbytes):
        return (nbytes + ss - 1) // ss

    ndir = nsec(len(entries) * 128)
    nminifat = nsec(len(minifat) * 4)
    nmini = nsec(len(mini))
    nbig = sum(nsec(len(entries[i].data)) for i in big)
    nfat, ndif = 1, 0
    while True:
        total = nfat + ndif + ndir + nminifat + nmini + nbig + extra_fat_sectors
        need = nsec(total * 4)
        dif_need = 0 if max(need, nfat) <= 109 else (max(need, nfat) - 109 + ids_per - 2) // (ids_per - 1)
        if need <= nfat and dif_need == ndif:
            break
        nfat, ndif = max(need, nfat), dif_need
    fat = [FREE] * (nfat * ids_per)
    pos = 0
    fat_secs = list(range(pos, pos + nfat)); pos += nfat
    for s in fat_secs:
        fat[s] = FATSECT
    dif_secs = list(range(pos, pos + ndif)); pos += ndif
    for s in dif_secs:
        fat[s] = DIFSECT

    def chain(n):
        nonlocal pos
        first = pos
        for j in range(n):
            fat[pos + j] = pos + j + 1 if j + 1 < n else END
        pos += n
        return first if n else END

    dir_start = chain(ndir)
    minifat_start = chain(nminifat)
    mini_start = chain(nmini)
    if interleave:   # the big streams' sectors taken in turn: scattered chains
        todo = {i: nsec(len(entries[i].data)) for i in big}
        secs = {i: [] for i in big}
        while any(todo.values()):
            for i in big:
                if todo[i]:
                    secs[i].append(pos)
                    pos += 1
                    todo[i] -= 1
        for i in big:
            for a, b in zip(secs[i], secs[i][1:] + [END]):
                fat[a] = b
        big_start = {i: secs[i][0] for i in big}
    else:
        big_start = {i: chain(nsec(len(entries[i].data))) for i in big}
    nsectors = pos
    body = bytearray(nsectors * ss)
    # directory
    d = bytearray(ndir * ss)
    for i, n in enumerate(entries):
        e = bytearray(128)
        u = n.units[:31]
        nm = b''.join(struct.pack('<H', x) for x in u) + b'\0\0'
        e[0:len(nm)] = nm
        struct.pack_into('<H', e, 64, len(nm))
        e[66] = 5 if i == 0 else (1 if n.children is not None else 2)
        e[67] = 1
        struct.pack_into('<III', e, 68, left.get(i, NOSTREAM), right.get(i, NOSTREAM), child.get(i, NOSTREAM))
        struct.pack_into('<QQ', e, 100, n.ctime, n.mtime)
        if i == 0:
            struct.pack_into('<IQ', e, 116, mini_start if nmini else END, len(mini))
        elif n.children is None:
            size = len(n.data)
            sid = END if size == 0 else (start[i] if size < 4096 else big_start[i])
            struct.pack_into('<IQ', e, 116, sid, size)
        d[i * 128:(i + 1) * 128] = e
    for i in range(len(entries), ndir * ss // 128):   # unused entries
        struct.pack_into('<III', d, i * 128 + 68, NOSTREAM, NOSTREAM, NOSTREAM)
    body[dir_start * ss:dir_start * ss + len(d)] = d
    mf = b''.join(struct.pack('<I', x) for x in minifat)
    mf += b'\xff' * (nminifat * ss - len(mf))
    if nminifat:
        body[minifat_start * ss:(minifat_start + nminifat) * ss] = mf
    if nmini:
        body[mini_start * ss:mini_start * ss + len(mini)] = mini
    for i in big:
        data = entries[i].data
        for k, sec in enumerate(secs[i] if interleave else range(big_start[i], big_start[i] + nsec(len(data)))):
            part = data[k * ss:(k + 1) * ss]
            body[sec * ss:sec * ss + len(part)] = part
    # FAT and DIFAT
    fb = b''.join(struct.pack('<I', x) for x in fat)
    for k, s in enumerate(fat_secs):
        body[s * ss:(s + 1) * ss] = fb[k * ss:(k + 1) * ss]
    difat = fat_secs[:109] + [FREE] * (109 - min(109, len(fat_secs)))
    rest = fat_secs[109:]
    for k, s in enumerate(dif_secs):
        part = rest[k * (ids_per - 1):(k + 1) * (ids_per - 1)]
        part += [FREE] * (ids_per - 1 - len(part))
        nxt = dif_secs[k + 1] if k + 1 < len(dif_secs) else END
        body[s * ss:(s + 1) * ss] = b''.join(struct.pack('<I', x) for x in part + [nxt])
    h = bytearray(ss)
    h[0:8] = bytes.fromhex('D0CF11E0A1B11AE1')
    struct.pack_into('<HHHHH', h, 24, 0x3E, 3 if bits == 9 else 4, 0xFFFE, bits, 6)
    struct.pack_into('<I', h, 40, ndir if bits == 12 else 0)
    struct.pack_into('<III', h, 44, nfat, dir_start, 0)
    struct.pack_into('<IIIII', h, 56, 4096, minifat_start if nminifat else END, nminifat,
                     dif_secs[0] if dif_secs else END, ndif)
    for k in range(109):
        struct.pack_into('<I', h, 76 + 4 * k, difat[k])
    out = bytes(h) + bytes(body)
    return hook(out) if hook else out


FT = 133000000000000000   # a FILETIME (2022), 100 ns units since 1601


def spec(name):
    r = random.Random(name)
    rb = lambda n: bytes(r.getrandbits(8) for _ in range(n))
    if name == 'plain':
        return build([Node('small.txt', b'hello world\n'),
                      Node('big.bin', rb(10000)),
                      Node('empty', b''),
                      Node('Dir', None, [Node('inner', b'in a storage\n', mtime=FT),
                                         Node('Sub', None, [Node('deep.bin', rb(5000))], ctime=FT, mtime=FT + 12345678)],
                           ctime=FT, mtime=FT + 1),
                      Node([5] + [ord(c) for c in 'SummaryInformation'], rb(300)),
                      Node('a/b:c', b'slash\n'),
                      Node('\u00fcml\u00e4ut', b'utf\n')])
    if name == 'sect4k':
        return build([Node('x.bin', rb(20000)), Node('y', b'mini\n'), Node('D', None, [Node('z', rb(4096))])], bits=12)
    if name == 'msi':
        return build([Node(msi_encode('!_Tables'), b'\x01\x00'),
                      Node(msi_encode('!_StringPool'), b'\0' * 8),
                      Node(msi_encode('Binary.Icon_1'), rb(5000)),
                      Node(msi_encode('disk1.cab'), rb(6000)),
                      Node([5] + [ord(c) for c in 'SummaryInformation'], rb(200))])
    if name == 'msi2cab':
        return build([Node(msi_encode('!_Tables'), b'\x01\x00'),
                      Node(msi_encode('a.cab'), rb(100)), Node(msi_encode('b.cab'), rb(100))])
    if name in ('msicabfrag', 'msicabmini', 'msicabempty'):
        import os
        cab = open(os.environ['CAB'], 'rb').read() if name != 'msicabempty' else b''
        return build([Node(msi_encode('!_Tables'), b'\x01\x00'), Node(msi_encode('Other.bin'), rb(9000)),
                      Node(msi_encode('disk1.cab'), cab)], interleave=True)
    if name == 'doc':
        return build([Node('WordDocument', rb(4500)), Node([1] + [ord(c) for c in 'CompObj'], rb(100)),
                      Node('1Table', rb(700))])
    if name == 'xls':
        return build([Node('Workbook', rb(3000))])
    if name == 'ppt':
        return build([Node('PowerPoint Document', rb(3000))])
    if name == 'many':   # a FAT past the header's 109 entries: DIFAT sectors
        return build([Node('f%03d' % i, rb(4096 * 3)) for i in range(60)] + [Node('s', b's')],
                     extra_fat_sectors=14000)
    if name == 'names':   # names 7-Zip rewrites, and ones that try to leave the folder
        return build([Node('..', b'dotdot\n'), Node('.', b'dot\n'), Node([], b'no name\n'),
                      Node('a\\b', b'backslash\n'), Node([7, 0x41, 0x1F], b'controls\n'),
                      Node('x' * 31, b'longest name\n'),
                      Node('..', None, [Node('esc', b'inside a storage named ..\n')]),
                      Node([0xD83D, 0xDE00], b'emoji\n'), Node([0xD800, 0x41], b'lone surrogate\n')])
    if name == 'deep':   # storages 300 deep: 7-Zip's [LONG_PATH] names
        n = Node('leaf', b'at the bottom\n')
        for i in range(300):
            n = Node('d%d' % (299 - i), None, [n])
        return build([n, Node('top', b'top\n')])
    if name in ('cycle', 'selfson', 'rootlink', 'orphan', 'twice'):
        def hook(out):
            b = bytearray(out)
            ss = 512
            dir_off = (struct.unpack_from('<I', b, 48)[0] + 1) * ss
            def ent(i):
                return dir_off + 128 * i
            if name == 'cycle':      # entry 1's left leads back to entry 1's parent tree root
                root_son = struct.unpack_from('<I', b, ent(0) + 76)[0]
                struct.pack_into('<I', b, ent(3) + 68, root_son)
            elif name == 'selfson':  # a storage that holds itself
                struct.pack_into('<I', b, ent(4) + 76, 4)
            elif name == 'rootlink':  # a link to the root entry
                struct.pack_into('<I', b, ent(2) + 72, 0)
            elif name == 'orphan':   # an entry in use that no tree reaches
                root_son = struct.unpack_from('<I', b, ent(0) + 76)[0]
                for k in (68, 72):
                    struct.pack_into('<I', b, ent(root_son) + k, 0xFFFFFFFF)
            elif name == 'twice':    # one entry in two trees
                struct.pack_into('<I', b, ent(5) + 76, 1)
            return bytes(b)
        return build([Node('a', b'1'), Node('b', b'2'), Node('c', b'3'),
                      Node('S', None, [Node('in', b'4')]), Node('T', None, [])], hook=hook)
    if name == 'empty':
        return build([])
    raise SystemExit('unknown spec ' + name)


if __name__ == '__main__':
    data = spec(sys.argv[2])
    with open(sys.argv[1], 'wb') as f:
        f.write(data)
