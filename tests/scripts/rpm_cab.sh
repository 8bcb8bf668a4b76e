#!/usr/bin/env bash
# rpm_cab.sh - .rpm packages (made here by rpmbuild, then edited by
# python3) and .cab cabinets (made by gcab), read as 7zz reads them: `l`,
# `l -slt`, `t`, `x` and `e` give 7zz's lines (after the banner) and exit
# code, and `x`/`e` the same files. An rpm is listed as its Rpm block, the
# payload (name-version-release.arch.cpio.gz, .xz, .zst), then the
# payload's own block; the cases edit the lead and header tags 7zz reads
# (name, arch, os, build time, compressor, the signature's size) and cut
# or damage the file. A cabinet (MSZip and stored, an empty file, nested
# names, one cut in its data) lists 7zz's Method, Blocks, Volumes, Volume
# Index and ID, and per file its Attributes, Method and Block.
set -u
. "$(dirname "$0")/lib.sh"
t_init 7zz python3

export LC_ALL=C.UTF-8 TZ=UTC

ran=0
# --- rpm ---
if command -v rpmbuild >/dev/null; then
    ran=1
    cat >t.spec <<'EOF'
Name: tiny
Version: 1.0
Release: 1
Summary: tiny test package
License: MIT
BuildArch: noarch
%description
tiny
%install
mkdir -p %{buildroot}/usr/share/tiny
echo hello > %{buildroot}/usr/share/tiny/a.txt
seq 1 1000 > %{buildroot}/usr/share/tiny/b.txt
ln -s a.txt %{buildroot}/usr/share/tiny/link
%files
/usr/share/tiny
EOF
    sed '/BuildArch/d' t.spec >arch.spec
    made=()
    for c in gz:w9.gzdio xz:w6.xzdio zst:w19.zstdio; do
        z=${c%%:*}
        if rpmbuild -bb --define "_topdir $S/top-$z" --define "_binary_payload ${c#*:}" t.spec >/dev/null 2>&1; then
            cp top-$z/RPMS/noarch/*.rpm "p-$z.rpm" && made+=("p-$z.rpm")
        else
            echo "note: rpmbuild cannot write ${c#*:} payloads, skipped"
        fi
    done
    # a binary package of the machine's arch, and a source package
    if rpmbuild -ba --define "_topdir $S/top-a" arch.spec >/dev/null 2>&1; then
        cp top-a/RPMS/*/*.rpm arch.rpm && cp top-a/SRPMS/*.rpm src.rpm && made+=(arch.rpm src.rpm)
    fi
    for arc in "${made[@]}"; do
        vs_7zz l "$arc"
        vs_7zz l -slt "$arc"
        vs_7zz t "$arc"
        same_files "$arc"
    done

    # Packages rpmbuild does not write: the lead and tags edited in place.
    if [ -f p-gz.rpm ]; then
        python3 - <<'PY'
import struct
d = bytes(open('p-gz.rpm', 'rb').read())
def header(at):
    n, size = struct.unpack('>II', d[at + 8:at + 16])
    return at, n, at + 16 + 16 * n, at + 16 + 16 * n + size
sig = header(96)
main = header((sig[3] + 7) // 8 * 8)
payload = main[3]
def entry(h, tag):   # where tag's index entry is, and its data
    for i in range(h[1]):
        o = h[0] + 16 + 16 * i
        if struct.unpack('>I', d[o:o + 4])[0] == tag:
            return o, h[2] + struct.unpack('>I', d[o + 8:o + 12])[0]
    raise KeyError(tag)
def edit(name, *changes, tail=b'', cut=None):
    b = bytearray(d)
    for at, data in changes:
        b[at:at + len(data)] = data
    b += tail
    open(name, 'wb').write(bytes(b[:cut]))
drop = lambda h, tag: (entry(h, tag)[0], struct.pack('>I', 99999))      # the tag renamed away
text = lambda tag, s: (entry(main, tag)[1], s)                         # its string overwritten
edit('tail.rpm', tail=b'garbage!' * 3)
edit('notime.rpm', drop(main, 1006))
edit('lead-arch-os.rpm', drop(main, 1022), drop(main, 1021), (8, b'\0\x13'), (76, b'\0\x15'))
edit('lead-numbers.rpm', drop(main, 1022), drop(main, 1021), (8, b'\0\x63'), (76, b'\0\x00'))
edit('noname.rpm', drop(main, 1000), (10, b'LEADNAME\0'))
edit('nover.rpm', drop(main, 1001))
edit('norel.rpm', drop(main, 1002))
edit('emptyver.rpm', text(1001, b'\0'))
edit('lead-src.rpm', (6, b'\0\x01'))
edit('comp-unknown.rpm', text(1125, b'zzzz'))
edit('comp-none.rpm', drop(main, 1125))
edit('format.rpm', text(1124, b'abcd'))
edit('nosize.rpm', drop(sig, 1000))
edit('headeronly.rpm', (entry(sig, 1000)[1], struct.pack('>I', payload - main[0])))
edit('major4.rpm', (4, b'\x04'))
edit('badpayload.rpm', (payload, b'xx'))
edit('cutpayload.rpm', cut=payload + 700)
edit('cuthdr.rpm', cut=main[0] + 400)
edit('cutsig.rpm', cut=200)
edit('lead.rpm', cut=96)
PY
        for arc in tail.rpm notime.rpm lead-arch-os.rpm lead-numbers.rpm noname.rpm nover.rpm norel.rpm \
                   emptyver.rpm lead-src.rpm comp-unknown.rpm comp-none.rpm format.rpm nosize.rpm \
                   headeronly.rpm major4.rpm badpayload.rpm cutpayload.rpm cuthdr.rpm cutsig.rpm lead.rpm; do
            vs_7zz l "$arc"
            vs_7zz l -slt "$arc"
            [ "$arc" = cutpayload.rpm ] || vs_7zz t "$arc"
        done
        same_files tail.rpm
        same_files headeronly.rpm
        # cut in its payload: 7zz also counts the package's open error in
        # t's summary; the error lines and the exit code are the same
        expect_rc 2 "t cutpayload.rpm" "$FZ7" t cutpayload.rpm
        grep -q '^Open ERROR: Cannot open the file as \[gzip\] archive$' err.txt && ok ||
            bad "t cutpayload.rpm: no open error for the payload"
    fi
else
    echo "SKIP: rpmbuild not installed: the rpm cases"
fi

# --- cab ---
if command -v gcab >/dev/null; then
    ran=1
    mkdir -p c/sub c/deep/er
    printf 'hello\n' >c/a.txt
    seq 1 3000 >c/sub/b.txt
    : >c/empty.txt
    printf 'x\n' >c/deep/er/x.bin
    touch -d '2024-01-02 03:04:06' c/a.txt c/sub/b.txt c/empty.txt c/deep/er/x.bin
    (cd c && gcab -c -z ../mszip.cab a.txt sub/b.txt empty.txt deep/er/x.bin &&
        gcab -c ../stored.cab a.txt sub/b.txt)
    head -c 3000 mszip.cab >cut.cab   # cut in its data: 7zz's open error
    for arc in mszip.cab stored.cab cut.cab; do
        vs_7zz l -slt "$arc"
        [ "$arc" = cut.cab ] || { vs_7zz l "$arc"; vs_7zz t "$arc"; same_files "$arc"; }
    done
else
    echo "SKIP: gcab not installed: the cab cases"
fi

[ "$ran" = 1 ] || { echo "SKIP: neither rpmbuild nor gcab installed"; exit 77; }
t_summary rpm_cab
