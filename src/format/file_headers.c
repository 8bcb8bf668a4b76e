/* file_headers.c - the headers 7-Zip lists of a file that libarchive
 * reads without telling them: one compressed file's (gzip, RFC 1952 2.3;
 * zstd, RFC 8878 3.1.1.1) and an ISO 9660 image's primary volume
 * descriptor (ECMA-119 8.4), its entries' order and their lines. */
#include "format/archive_impl.h"
#include "check/check.h"
#include "cpu/bytes.h"
#include "format/fd_ostream.h"
#include "format/file_io.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A time of an ISO 9660 volume descriptor (ECMA-119 8.4.26.1: 16 digits
 * to hundredths, then the offset from UTC in 15-minute steps). */
static bool iso_time(const uint8_t *t, int64_t *sec, uint32_t *cs)
{
    unsigned v[7];
    static const unsigned width[7] = {4, 2, 2, 2, 2, 2, 2};
    const uint8_t *q = t;
    for (int k = 0; k < 7; k++) {
        v[k] = 0;
        for (unsigned j = 0; j < width[k]; j++, q++) {
            if (*q < '0' || *q > '9')
                return false;
            v[k] = v[k] * 10 + (unsigned)(*q - '0');
        }
    }
    if (v[0] == 0 || v[1] < 1 || v[1] > 12 || v[2] < 1 || v[2] > 31)
        return false;
    /* days since 1970 (a proleptic Gregorian count) */
    int64_t y = (int64_t)v[0] - (v[1] <= 2), m = v[1], era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400, doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + v[2] - 1;
    int64_t days = era * 146097 + yoe * 365 + yoe / 4 - yoe / 100 + doy - 719468;
    *sec = days * 86400 + v[3] * 3600 + v[4] * 60 + v[5] - (int64_t)(int8_t)t[16] * 15 * 60;
    *cs = v[6];
    return true;
}

/* Whether the volume descriptors after the primary one (size bytes in v)
 * hold a Joliet one: a supplementary descriptor with a UCS-2 escape
 * sequence ("%/@", "%/C", "%/E"). */
static bool iso_joliet(const fz7_volumes *v, uint64_t size)
{
    uint8_t d[2048];
    for (uint64_t s = 17; s < 17 + 32 && (s + 1) * 2048 <= size; s++) {
        if (fz7_volumes_pread(v, d, sizeof d, s * 2048) != FZ7_OK || memcmp(d + 1, "CD001", 5) != 0 || d[0] == 255)
            return false;
        if (d[0] == 2 && d[88] == '%' && d[89] == '/' && (d[90] == '@' || d[90] == 'C' || d[90] == 'E'))
            return true;
    }
    return false;
}

bool fz7_iso_volume(const fz7_volumes *v, uint64_t size, char *comment, size_t cap, fz7_prop times[2],
                    bool *joliet, uint64_t *space)
{
    uint8_t d[2048];
    if (size < 17 * 2048 || fz7_volumes_pread(v, d, sizeof d, 16 * 2048) != FZ7_OK || d[0] != 1 ||
        memcmp(d + 1, "CD001", 5) != 0)
        return false;
    *space = (uint64_t)fz7_get32le(d + 80) * fz7_get16le(d + 128);
    size_t used = (size_t)snprintf(comment, cap, "{\n");
    *joliet = iso_joliet(v, size);
    if (!*joliet) {
        /* the identifiers, when the primary descriptor is the one read
         * (7-Zip shows none of a Joliet image's) */
        static const struct { const char *name; unsigned at, len; } ids[] = {
            {"System", 8, 32},         {"Volume", 40, 32},    {"Publisher", 318, 128},
            {"Application", 574, 128}, {"Copyright", 702, 37}, {"Abstract", 739, 37},
            {"Bib", 776, 37}};
        for (size_t k = 0; k < sizeof ids / sizeof ids[0] && used < cap; k++) {
            unsigned n = ids[k].len;
            while (n && (d[ids[k].at + n - 1] == ' ' || d[ids[k].at + n - 1] == 0))
                n--;
            if (!n)
                continue;
            char text[129];
            for (unsigned j = 0; j < n; j++) {
                uint8_t c = d[ids[k].at + j];
                text[j] = c >= 0x20 && c < 0x7f ? (char)c : '?';   /* a-characters, ECMA-119 7.4.1 */
            }
            text[n] = 0;
            used += (size_t)snprintf(comment + used, cap - used, "%s: %s\n", ids[k].name, text);
        }
    }
    if (used < cap)
        snprintf(comment + used, cap - used, "VolumeSpaceSize: %llu\nVolumeSetSize: %u\nVolumeSequenceNumber: %u\n}",
                 (unsigned long long)*space, (unsigned)fz7_get16le(d + 120), (unsigned)fz7_get16le(d + 124));
    static const char *const names[2] = {"Created", "Modified"};
    for (int k = 0, n = 0; k < 2; k++) {
        int64_t sec;
        uint32_t cs;
        if (iso_time(d + 813 + 17 * k, &sec, &cs))
            times[n++] = (fz7_prop){.name = names[k], .sec = sec, .nsec = cs * 10000000u, .digits = 2};
    }
    return true;
}

typedef struct {
    const char *path;
    uint32_t index;
} iso_place;

static int cmp_iso_place(const void *x, const void *y)
{
    const iso_place *a = x, *b = y;
    int c = fz7_path_cmp(a->path, b->path);
    return c ? c : (a->index > b->index) - (a->index < b->index);
}

uint32_t *fz7_iso_order(const fz7_entry *entries, size_t count)
{
    if (count < 2 || count > UINT32_MAX)
        return NULL;
    iso_place *pl = malloc(count * sizeof *pl);
    uint32_t *order = pl ? malloc(count * sizeof *order) : NULL;
    if (!order) {
        free(pl);
        return NULL;
    }
    for (size_t i = 0; i < count; i++)
        pl[i] = (iso_place){entries[i].path, (uint32_t)i};
    qsort(pl, count, sizeof *pl, cmp_iso_place);
    bool moved = false;
    for (size_t i = 0; i < count; i++) {
        order[i] = pl[i].index;
        moved |= order[i] != i;
    }
    free(pl);
    if (!moved) {
        free(order);
        return NULL;
    }
    return order;
}

size_t fz7_iso_props(const fz7_entry *e, const char *link, bool rr, fz7_prop *pr, char *buf, size_t cap)
{
    size_t n = 0, used = 0;
    fz7_prop_text(pr, &n, "Path", e->path);
    fz7_prop_text(pr, &n, "Folder", e->is_dir ? "+" : "-");
    const char *size = e->is_dir ? "" : fz7_prop_put(buf, cap, &used, "%llu", (unsigned long long)e->size);
    fz7_prop_text(pr, &n, "Size", size);
    fz7_prop_text(pr, &n, "Packed Size", size);
    fz7_prop_time(pr, &n, "Modified", e->has_mtime, e->mtime, 0, 0);
    char mode[11] = "";
    if (rr)
        fz7_mode_string(e->mode, mode);
    fz7_prop_text(pr, &n, "Mode", fz7_prop_put(buf, cap, &used, "%s", mode));
    fz7_prop_text(pr, &n, "Symbolic Link", rr && link && e->is_symlink ? link : "");
    return n;
}

/* UTF-8 of a gzip header's name (n bytes): as it is when it is UTF-8,
 * else its bytes taken as Latin-1 (RFC 1952's charset). */
static char *gzip_name(const uint8_t *s, size_t n)
{
    bool utf8 = true;
    for (size_t i = 0; i < n && utf8;) {
        unsigned c = s[i];
        size_t more = c < 0x80 ? 0 : c >= 0xc2 && c < 0xe0 ? 1 : c >= 0xe0 && c < 0xf0 ? 2
                      : c >= 0xf0 && c < 0xf5 ? 3 : n;
        if (more >= n - i)
            utf8 = false;
        for (size_t k = 1; utf8 && k <= more; k++)
            utf8 = (s[i + k] & 0xc0) == 0x80;
        i += 1 + more;
    }
    char *out = malloc(2 * n + 1), *o = out;
    if (!out)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        if (utf8 || s[i] < 0x80) {
            *o++ = (char)s[i];
        } else {
            *o++ = (char)(0xc0 | s[i] >> 6);
            *o++ = (char)(0x80 | (s[i] & 0x3f));
        }
    }
    *o = 0;
    return out;
}

bool fz7_gzip_header_parse(const uint8_t *h, size_t n, fz7_gzip_info *out)
{
    memset(out, 0, sizeof *out);
    if (n < 10 || h[0] != 0x1f || h[1] != 0x8b)
        return false;
    unsigned flg = h[3];
    size_t at = 10;
    if (flg & 4) {   /* FEXTRA */
        if (n < 12)
            return false;
        at += 2 + (size_t)fz7_get16le(h + 10);
    }
    const uint8_t *name = NULL;
    size_t name_len = 0;
    for (unsigned f = 8; f <= 16; f <<= 1) {   /* FNAME, then FCOMMENT */
        if (!(flg & f))
            continue;
        const uint8_t *z = at < n ? memchr(h + at, 0, n - at) : NULL;
        if (!z)
            return false;   /* longer than read here: the entry keeps its name */
        if (f == 8)
            name = h + at, name_len = (size_t)(z - (h + at));
        at = (size_t)(z - h) + 1;
    }
    if (flg & 2)   /* FHCRC */
        at += 2;
    if (name_len)
        out->name = gzip_name(name, name_len);   /* NULL when out of memory: no name */
    out->mtime = fz7_get32le(h + 4);
    out->header_size = at;
    out->os = h[9];
    return true;
}

/* The gzip header in the first n bytes of h with its stored name (FNAME)
 * set to name (the flag set when it had none), the other fields as they
 * were and the header CRC (FHCRC) made again when present: malloc'd into
 * *out, *out_len bytes; *old_len gets the old header's length. */
static fz7_status gzip_header_renamed(const uint8_t *h, size_t n, const char *name, uint8_t **out,
                                      size_t *out_len, uint64_t *old_len)
{
    *out = NULL;
    fz7_gzip_info g;
    if (!fz7_gzip_header_parse(h, n, &g))
        return FZ7_E_FORMAT;
    free(g.name);
    if (g.header_size > n)   /* an extra field or header CRC past what was read */
        return FZ7_E_FORMAT;
    unsigned flg = h[3];
    size_t at = 10;
    if (flg & 4)
        at += 2 + (size_t)fz7_get16le(h + 10);
    size_t extra_end = at, name_end = at;
    if (flg & 8)
        name_end = (size_t)((const uint8_t *)memchr(h + at, 0, n - at) - h) + 1;
    size_t tail_end = g.header_size - (flg & 2 ? 2 : 0);   /* FCOMMENT, if any */
    size_t len = strlen(name);
    size_t total = extra_end + len + 1 + (tail_end - name_end) + (flg & 2 ? 2 : 0);
    uint8_t *o = malloc(total);
    if (!o)
        return FZ7_E_MEM;
    memcpy(o, h, extra_end);
    o[3] = (uint8_t)(flg | 8);
    memcpy(o + extra_end, name, len + 1);
    memcpy(o + extra_end + len + 1, h + name_end, tail_end - name_end);
    if (flg & 2) {   /* RFC 1952 2.3.1: the low 16 bits of the header's CRC32 */
        uint32_t crc = fz7_crc32(0, o, total - 2);
        o[total - 2] = (uint8_t)crc;
        o[total - 1] = (uint8_t)(crc >> 8);
    }
    *out = o;
    *out_len = total;
    *old_len = g.header_size;
    return FZ7_OK;
}

fz7_status fz7_gzip_copy_renamed(int in_fd, uint64_t size, int out_fd, const char *name)
{
    uint8_t h[1024];
    size_t n = size < sizeof h ? (size_t)size : sizeof h;
    fz7_status st = fz7_pread_full(in_fd, h, n, 0);
    uint8_t *head;
    size_t head_len;
    uint64_t at = 0;
    if (st != FZ7_OK || (st = gzip_header_renamed(h, n, name, &head, &head_len, &at)) != FZ7_OK)
        return st;
    fz7_fd_ostream os;
    st = fz7_fd_ostream_init(&os, out_fd);
    if (st == FZ7_OK)
        st = fz7_fd_ostream_write(&os.os, head, head_len);
    free(head);
    uint8_t buf[1 << 16];
    while (st == FZ7_OK && at < size) {
        size_t k = size - at < sizeof buf ? (size_t)(size - at) : sizeof buf;
        if ((st = fz7_pread_full(in_fd, buf, k, at)) == FZ7_OK)
            st = fz7_fd_ostream_write(&os.os, buf, k);
        at += k;
    }
    if (st == FZ7_OK)
        st = fz7_fd_ostream_flush(&os);
    fz7_fd_ostream_free(&os);
    return st;
}

bool fz7_gzip_header(const fz7_volumes *v, uint64_t size, fz7_gzip_info *out)
{
    memset(out, 0, sizeof *out);
    uint8_t h[1024], t[8];
    size_t n = size < sizeof h ? (size_t)size : sizeof h;
    if (n < 18 || fz7_volumes_pread(v, h, n, 0) != FZ7_OK || !fz7_gzip_header_parse(h, n, out))
        return false;
    if (out->header_size + 8 > size || fz7_volumes_pread(v, t, 8, size - 8) != FZ7_OK) {
        free(out->name);
        out->name = NULL;
        return false;
    }
    out->crc = fz7_get32le(t);
    out->isize = fz7_get32le(t + 4);
    out->has_trailer = true;
    return true;
}

/* A zstd frame header (RFC 8878 3.1.1.1) as 7-Zip's Method line says it. */
void fz7_zstd_method(const uint8_t *h, size_t n, char *out, size_t cap)
{
    out[0] = 0;
    if (n < 6 || fz7_get32le(h) != 0xFD2FB528u)
        return;
    unsigned fhd = h[4], fcs_flag = fhd >> 6, single = fhd >> 5 & 1, check = fhd >> 2 & 1;
    static const unsigned did_len[4] = {0, 1, 2, 4}, fcs_len[4] = {0, 2, 4, 8};
    size_t at = 5;
    uint64_t window = 0;
    unsigned wlog = 0;
    if (!single) {
        unsigned wd = h[at++];
        wlog = 10 + (wd >> 3);
        window = ((uint64_t)1 << wlog) + (((uint64_t)1 << wlog) >> 3) * (wd & 7);
    }
    at += did_len[fhd & 3];
    size_t fl = fcs_flag == 0 && single ? 1 : fcs_len[fcs_flag];
    if (at + fl > n)
        return;
    uint64_t fcs = 0;
    for (size_t k = 0; k < fl; k++)
        fcs |= (uint64_t)h[at + k] << (8 * k);
    if (fl == 2)
        fcs += 256;
    if (single)
        window = fcs;
    char w[32];
    if (window && window % ((uint64_t)1 << 20) == 0)
        snprintf(w, sizeof w, "%lluMiB", (unsigned long long)(window >> 20));
    else if (window && window % 1024 == 0)
        snprintf(w, sizeof w, "%lluKiB", (unsigned long long)(window >> 10));
    else
        snprintf(w, sizeof w, "%llu", (unsigned long long)window);
    char wl[32] = "", sz[80];
    if (!single)
        snprintf(wl, sizeof wl, " wnd-desc-log-MAX:%u", wlog);
    if (fl)
        snprintf(sz, sizeof sz, "content-size-frame-max:%llu content-size-total:%llu",
                 (unsigned long long)fcs, (unsigned long long)fcs);
    else
        snprintf(sz, sizeof sz, "unknown-content-size");
    snprintf(out, cap, "header-open-only: %s%s%s wnd-MAX:%s %s", check ? "XXH64" : "NO-XXH64",
             single ? " single-segments" : "", wl, w, sz);
}
