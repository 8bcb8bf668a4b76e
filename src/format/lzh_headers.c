/* lzh_headers.c - an LHA archive's own headers, for what 7-Zip lists of
 * it and libarchive does not give: each entry's method ("-lh5-"), packed
 * size, CRC-16, host OS and header level, and where the archive ends.
 * libarchive reads the entries and their data; this walks the headers
 * alone (levels 0, 1 and 2 as the LHA header documents describe them),
 * each bounded by its own size field and the file size, and stops where
 * 7-Zip stops. */
#include "format/archive_impl.h"
#include "cpu/bytes.h"

#include <stdlib.h>
#include <string.h>

#define LZH_BASE 22         /* levels 0 and 1: size .. name length */
#define LZH_BASE2 26        /* level 2: size .. first extension's size */
#define LZH_HEADER_MAX 257  /* levels 0 and 1: a one-byte size, plus 2 */
#define LZH_END_SPAN 24     /* bytes 7-Zip takes for its end mark when
                               the byte after it is not 0 */
#define LZH_EXT_MAX 4096    /* extension headers of one level 1 header:
                               real ones have a few, a bound keeps a chain
                               of tiny ones from costing a read each */

/* Reads n bytes at off when they are all within size bytes. */
static bool read_at(const fz7_volumes *v, uint64_t size, uint64_t off, void *buf, size_t n)
{
    return off <= size && size - off >= n && fz7_volumes_pread(v, buf, n, off) == FZ7_OK;
}

/* Where the archive ends when its end mark (a 0 header size) is at pos:
 * 7-Zip counts the byte after it when that is also 0 (the rest is a
 * tail), else up to LZH_END_SPAN bytes from the mark. */
static uint64_t end_after_mark(const fz7_volumes *v, uint64_t size, uint64_t pos)
{
    uint8_t next;
    if (size - pos == 1 || !read_at(v, size, pos + 1, &next, 1))
        return pos + 1;
    if (next == 0)
        return pos + 2;
    return size - pos < LZH_END_SPAN ? size : pos + LZH_END_SPAN;
}

/* One level 0 or 1 header at pos: its fields into h, *data where its data
 * starts. false when it does not read as one (short, bad checksum, an
 * extension chain that does not fit its skip size). */
static bool header01(const fz7_volumes *v, uint64_t size, uint64_t pos, const uint8_t *b,
                     fz7_lzh_header *h, uint64_t *data)
{
    size_t len = (size_t)b[0] + 2;
    uint8_t raw[LZH_HEADER_MAX];
    size_t name = b[21];
    size_t need = LZH_BASE + name + 2 + (b[20] == 1 ? 3 : 0);   /* level 1: OS and first extension's size */
    if (len < need || !read_at(v, size, pos, raw, len))
        return false;
    unsigned sum = 0;
    for (size_t k = 2; k < len; k++)
        sum += raw[k];
    if ((sum & 0xFF) != raw[1])
        return false;
    h->crc = fz7_get16le(raw + LZH_BASE + name);
    uint64_t skip = fz7_get32le(raw + 7);
    *data = pos + len;
    if (b[20] == 0) {
        h->os = 0;
        h->packed = skip;
        return true;
    }
    h->os = raw[LZH_BASE + name + 2];
    /* the extensions lie between the header and the data, counted in the
     * skip size: each ends with the size of the one after it */
    uint64_t ext = 0, at = *data;
    size_t next = fz7_get16le(raw + len - 2);
    for (size_t k = 0; next; k++) {
        uint8_t s[2];
        if (k == LZH_EXT_MAX || next < 3 || next > skip - ext || !read_at(v, size, at + next - 2, s, 2))
            return false;
        ext += next;
        at += next;
        next = fz7_get16le(s);
    }
    *data = at;
    h->packed = skip - ext;
    return true;
}

fz7_status fz7_lzh_headers_read(const fz7_volumes *v, uint64_t size, uint64_t mem_limit, fz7_lzh_headers *out)
{
    memset(out, 0, sizeof *out);
    uint64_t pos = 0;
    size_t cap = 0;
    for (;;) {
        if (pos == size) {   /* no end mark: 7-Zip ends there quietly */
            out->end = pos;
            return FZ7_OK;
        }
        uint8_t b[LZH_BASE2];
        size_t got = size - pos < sizeof b ? (size_t)(size - pos) : sizeof b;
        if (fz7_volumes_pread(v, b, got, pos) != FZ7_OK) {
            fz7_lzh_headers_free(out);
            return FZ7_E_IO;
        }
        if (b[0] == 0) {   /* the end mark (no entry before it: no archive) */
            if (!out->count)
                return FZ7_E_FORMAT;
            out->end = end_after_mark(v, size, pos);
            out->end_mark = true;
            return FZ7_OK;
        }
        fz7_lzh_header h = {0};
        uint64_t data = 0;
        bool ok = got >= 7 && b[2] == '-' && b[3] == 'l' && b[6] == '-';
        if (!ok && !out->count)
            return FZ7_E_FORMAT;   /* no LHA header: not this format */
        ok = ok && got >= LZH_BASE;
        if (ok) {
            memcpy(h.method, b + 2, 5);
            h.level = b[20];
            h.size = fz7_get32le(b + 11);
            if (h.level <= 1) {
                ok = header01(v, size, pos, b, &h, &data);
            } else if (h.level == 2) {
                uint32_t len = fz7_get16le(b);
                ok = got >= LZH_BASE2 && len >= LZH_BASE2;
                h.packed = fz7_get32le(b + 7);
                h.crc = fz7_get16le(b + 21);
                h.os = b[23];
                data = pos + len;
            } else {
                ok = false;   /* level 3 and above: 7-Zip reads none */
            }
        }
        if (!ok) {
            /* a header that does not read: 7-Zip's Headers Error, the
             * entries before it listed, what follows a tail */
            out->end = pos;
            out->headers_error = true;
            return out->count ? FZ7_OK : FZ7_E_FORMAT;
        }
        if (out->count == cap) {
            size_t more = cap ? cap * 2 : 16;
            if ((uint64_t)more * sizeof *out->h > mem_limit) {
                fz7_lzh_headers_free(out);
                return FZ7_E_MEMLIMIT;
            }
            fz7_lzh_header *n = realloc(out->h, more * sizeof *n);
            if (!n) {
                fz7_lzh_headers_free(out);
                return FZ7_E_MEM;
            }
            out->h = n;
            cap = more;
        }
        h.offset = pos;
        out->h[out->count++] = h;
        if (data > size || size - data < h.packed) {   /* cut in its data or headers */
            out->end = size;
            out->cut = true;
            return FZ7_OK;
        }
        pos = data + h.packed;
    }
}

void fz7_lzh_headers_free(fz7_lzh_headers *l)
{
    free(l->h);
    memset(l, 0, sizeof *l);
}

/* 7-Zip's names of the host OS byte (the LHA documents' letters); NULL
 * for one it shows as a number. */
static const char *os_name(uint8_t os)
{
    switch (os) {
    case 0: case 'M': return "MS-DOS";
    case '2': return "OS/2";
    case '9': return "OS9";
    case 'K': return "OS/68K";
    case '3': return "OS/386";
    case 'H': return "HUMAN";
    case 'U': return "UNIX";
    case 'C': return "CP/M";
    case 'F': return "FLEX";
    case 'm': return "Mac";
    case 'R': return "Runser";
    case 'T': return "TownsOS";
    case 'X': return "XOSK";
    case 'w': return "Windows 95";
    case 'W': return "Windows NT";
    case 'J': return "Java VM";
    default: return NULL;
    }
}

size_t fz7_lzh_props(const fz7_entry *e, const fz7_lzh_header *h, fz7_prop *pr, char *buf, size_t cap)
{
    size_t n = 0, used = 0;
    fz7_prop_text(pr, &n, "Path", e->path);
    fz7_prop_text(pr, &n, "Folder", e->is_dir ? "+" : "-");
    fz7_prop_text(pr, &n, "Size", fz7_prop_put(buf, cap, &used, "%llu", (unsigned long long)e->size));
    fz7_prop_text(pr, &n, "Packed Size", fz7_prop_put(buf, cap, &used, "%llu", (unsigned long long)h->packed));
    fz7_prop_time(pr, &n, "Modified", e->has_mtime, e->mtime, 0, 0);
    fz7_prop_text(pr, &n, "CRC", fz7_prop_put(buf, cap, &used, "%08X", (unsigned)h->crc));
    /* (the method's five bytes as stored, whatever they are) */
    char m[6];
    for (size_t k = 0; k < 5; k++)
        m[k] = h->method[k] >= 0x20 && h->method[k] < 0x7F ? h->method[k] : '?';
    m[5] = 0;
    fz7_prop_text(pr, &n, "Method", fz7_prop_put(buf, cap, &used, "%s", m));
    const char *os = os_name(h->os);
    fz7_prop_text(pr, &n, "Host OS",
                  os ? os : fz7_prop_put(buf, cap, &used, "%u", (unsigned)h->os));
    return n;
}
