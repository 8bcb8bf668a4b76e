/* udf_read.c - UDF file-system images (DVDs, Blu-ray discs, Windows install
 * ISOs), read as 7-Zip reads them. Facts from ECMA-167 3rd edition (parts
 * 2-4) and OSTA UDF 1.02-2.60. Layout: the volume recognition sequence
 * from 32 KiB (BEA01, NSR02/NSR03, TEA01, each 2 KiB), the anchor volume
 * descriptor pointer at sector 256, which points to the volume descriptor
 * sequence (primary, partition, logical volume descriptors...); the
 * logical volume's contents use points to the file set descriptor in a
 * partition, whose root ICB is the root folder's file entry. A folder's
 * data is a run of file identifier descriptors, each naming one file
 * entry. Every descriptor starts with a 16-byte tag whose checksum and
 * CRC are checked. Only type 1 partition maps are read (no virtual,
 * sparable or metadata partitions). */
#include "format/archive_impl.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#define UDF_MAX_DEPTH 1023      /* names in a path: 7-Zip opens no image with a deeper one */
#define UDF_MAX_PARTS 8         /* partition descriptors kept */
#define UDF_MAX_VDS 1024        /* sectors of a volume descriptor sequence read */

/* Descriptor tag identifiers (ECMA-167 3/7.2.1, 4/7.2.1). */
enum {
    TAG_PVD = 1, TAG_AVDP = 2, TAG_PD = 5, TAG_LVD = 6, TAG_TD = 8,
    TAG_FSD = 256, TAG_FID = 257, TAG_AED = 258, TAG_FE = 261, TAG_EFE = 266
};

/* A file's data as the allocation descriptors give it: len bytes at
 * lbn of partition ref (type 0: recorded; 1, 2: reads as zeros). */
typedef struct udf_extent {
    uint32_t lbn, len;
    uint16_t ref;
    uint8_t type;
} udf_extent;

typedef struct udf_time {
    int64_t sec;
    uint32_t nsec;
    bool set;
} udf_time;

/* What a file entry says, per listed entry. */
typedef struct udf_item {
    udf_time mtime, atime, ctime, attr_time;
    uint64_t size, packed;
    uint64_t embed_off;   /* embedded data: where in the image */
    size_t ext_first, ext_count;   /* in priv->ext */
    uint16_t links;
    bool embedded;
    /* 7-Zip lists and reads none of a file with an extent allocated but
     * not recorded, or past an allocation extent descriptor, or outside
     * its partition, or extents that do not sum to its size: Unsupported
     * Method when extracted */
    bool unread;
} udf_item;

typedef struct udf_part {
    uint16_t number;
    uint32_t start, length, access;
    uint8_t contents[32], impl[32];
} udf_part;

typedef struct udf_priv {
    uint32_t ss;                  /* the sector (and logical block) size */
    udf_part parts[UDF_MAX_PARTS];
    size_t n_parts;
    uint16_t map_part[UDF_MAX_PARTS];   /* partition reference -> parts[] */
    uint16_t map_vsn[UDF_MAX_PARTS];    /* each map's volume sequence number */
    size_t n_maps;
    udf_item *items;
    udf_extent *ext;
    size_t n_ext, ext_cap;
    uint64_t *dirs;               /* the entries of the folders being read: a hash set of offset + 1 */
    size_t n_dirs, n_tombs, dirs_cap;
    uint64_t path_bytes, dir_budget;
    uint64_t ext_budget;          /* extents still to keep, all files */
    uint64_t vol_end;             /* past the last sector the descriptors name */
    uint64_t used_end;            /* past the last sector a file entry or recorded extent uses */
    uint8_t *blk;                 /* one block */
    char *comment;
    fz7_prop lines[8];
    char version[16], cluster[16];
} udf_priv;

/* CRC-ITU-T (x^16 + x^12 + x^5 + 1, initial 0, not reflected) over n
 * bytes: a descriptor's CRC (ECMA-167 1/7.2.6). */
static uint16_t crc_itu(const uint8_t *p, size_t n)
{
    uint16_t c = 0;
    for (size_t i = 0; i < n; i++) {
        c ^= (uint16_t)(p[i] << 8);
        for (int k = 0; k < 8; k++)
            c = (uint16_t)(c & 0x8000 ? (c << 1) ^ 0x1021 : c << 1);
    }
    return c;
}

/* Whether the len bytes at d start with a sound tag of identifier id
 * (0: any) recorded at location loc: its version, checksum, and its CRC
 * over the bytes that follow (ECMA-167 3/7.2). */
static bool tag_ok(const uint8_t *d, size_t len, unsigned id, uint32_t loc)
{
    if (len < 16)
        return false;
    uint8_t sum = 0;
    for (int i = 0; i < 16; i++)
        if (i != 4)
            sum = (uint8_t)(sum + d[i]);
    /* descriptor version 2 (NSR02) or 3 (NSR03): 7-Zip reads no other */
    unsigned ver = fz7_get16le(d + 2);
    if (sum != d[4] || (ver != 2 && ver != 3) || (id && fz7_get16le(d) != id) || fz7_get32le(d + 12) != loc)
        return false;
    size_t crc_len = fz7_get16le(d + 10);
    return crc_len <= len - 16 && crc_itu(d + 16, crc_len) == fz7_get16le(d + 8);
}

/* Reads n bytes at off; FZ7_E_FORMAT past the image's end. */
static fz7_status rd(fz7_archive *a, void *buf, size_t n, uint64_t off)
{
    if (off > a->file_size || a->file_size - off < n)
        return FZ7_E_FORMAT;
    fz7_status st = fz7_volumes_pread(a->vol, buf, n, off);
    return st == FZ7_E_TRUNCATED ? FZ7_E_FORMAT : st;
}

/* The image offset of block lbn of partition reference ref; false when
 * the map or block is none of the image's partitions. */
static bool block_off(const udf_priv *p, uint16_t ref, uint32_t lbn, uint64_t *off)
{
    if (ref >= p->n_maps)
        return false;
    const udf_part *pt = &p->parts[p->map_part[ref]];
    if (lbn >= pt->length)
        return false;
    *off = ((uint64_t)pt->start + lbn) * p->ss;
    return true;
}

/* A timestamp (ECMA-167 1/7.3) as UTC: its type 1 time zone (minutes
 * east of UTC; -2047: none given, taken as UTC) taken out. */
static udf_time ts(const uint8_t *t)
{
    udf_time r = {0};
    uint16_t tz = fz7_get16le(t);
    int year = (int16_t)fz7_get16le(t + 2);
    unsigned mon = t[4], day = t[5], h = t[6], mi = t[7], s = t[8];
    if (year == 0 && mon == 0 && day == 0)
        return r;
    /* (7-Zip shows no time outside the years 1601-9999) */
    if (year < 1601 || year > 9999 || mon < 1 || mon > 12 || day < 1 || day > 31 || h > 23 || mi > 59 || s > 60)
        return r;
    /* days from 1970 to the date, by the civil calendar */
    int y = year - (mon <= 2);
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (mon + (mon > 2 ? -3 : 9)) + 2) / 5 + day - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    int64_t days = era * 146097 + doe - 719468;
    r.sec = days * 86400 + h * 3600 + mi * 60 + s;
    int off = tz & 0xFFF;
    if (off & 0x800)
        off -= 0x1000;
    if ((tz >> 12) == 1 && off != -2047)
        r.sec -= (int64_t)off * 60;
    r.nsec = (uint32_t)t[9] * 10000000u + (uint32_t)t[10] * 100000u + (uint32_t)t[11] * 1000u;
    if (r.nsec >= 1000000000u)
        r.nsec = 999999999u;
    r.set = true;
    return r;
}

/* OSTA compressed Unicode (UDF 2.1.1): n bytes, the first the
 * compression ID (8: one byte a character, 16: big-endian UTF-16), as
 * UTF-8 into out (3 * n + 1 bytes); a 0 character ends it. Returns the
 * length; an unknown compression ID gives "". */
static size_t cs0_to_utf8(const uint8_t *d, size_t n, char *out)
{
    size_t o = 0;
    if (n && (d[0] == 8 || d[0] == 16)) {
        bool wide = d[0] == 16;
        for (size_t i = 1; i + (wide ? 1 : 0) < n; i += wide ? 2 : 1) {
            uint32_t c = wide ? (uint32_t)d[i] << 8 | d[i + 1] : d[i];
            if (!c)
                break;
            if (wide && c >= 0xD800 && c < 0xDC00 && i + 3 < n) {
                uint32_t lo = (uint32_t)d[i + 2] << 8 | d[i + 3];
                if (lo >= 0xDC00 && lo < 0xE000) {
                    c = 0x10000 + ((c - 0xD800) << 10) + (lo - 0xDC00);
                    i += 2;
                }
            }
            o += fz7_utf8_put((uint8_t *)out + o, c);
        }
    }
    out[o] = 0;
    return o;
}

/* A dstring field of n bytes (its last byte the length used). */
static void dstring(const uint8_t *d, size_t n, char *out)
{
    size_t used = d[n - 1];
    cs0_to_utf8(d, used < n ? used : n - 1, out);
}

/* An entity identifier (ECMA-167 1/7.4, UDF 2.1.5) as 7-Zip shows it:
 * the identifier, then for a domain identifier (domain: the field is
 * one) its UDF revision, for an implementation identifier the OS class
 * and OS it names. */
static void regid(const uint8_t *r, bool domain, char *out, size_t cap)
{
    char id[24];
    size_t n = 0;
    while (n < 23 && r[1 + n]) {
        id[n] = (char)(r[1 + n] >= 0x20 && r[1 + n] < 0x7F ? r[1 + n] : '?');
        n++;
    }
    id[n] = 0;
    const uint8_t *sfx = r + 24;
    if (domain) {
        unsigned rev = fz7_get16le(sfx);
        snprintf(out, cap, "%s::%x.%02x", id, rev >> 8, rev & 0xFF);
        return;
    }
    static const char *const cls[] = {"", "DOS", "OS/2", "Macintosh OS", "UNIX", "Windows 9x", "Windows NT",
                                      "OS/400", "BeOS", "Windows CE"};
    static const char *const unix_os[] = {"Generic", "AIX", "Solaris", "HP/UX", "Irix", "Linux", "MKLinux",
                                          "FreeBSD", "NetBSD"};
    if (id[0] == '*' && sfx[0] == 4 && sfx[1] < 9)
        snprintf(out, cap, "%s::%s::%s", id, cls[4], unix_os[sfx[1]]);
    else if (id[0] == '*' && sfx[0] > 0 && sfx[0] < 10)
        snprintf(out, cap, "%s::%s", id, cls[sfx[0]]);
    else
        snprintf(out, cap, "%s", id);
}

/* Widens p->used_end to sector end (exclusive). */
static void note_used(udf_priv *p, uint64_t end)
{
    if (end > p->used_end)
        p->used_end = end;
}

/* Adds n extents to p->ext (bounded by the memory limit). */
static fz7_status add_extent(fz7_archive *a, udf_extent x)
{
    udf_priv *p = a->priv;
    fz7_status st = fz7_grow((void **)&p->ext, p->n_ext, &p->ext_cap, sizeof *p->ext, 16, a->opts.mem_limit);
    if (st == FZ7_OK)
        p->ext[p->n_ext++] = x;
    return st;
}

/* Reads the file entry (or extended file entry) of the ICB whose long_ad
 * is at icb into it, its data's extents appended to p->ext, *is_dir its
 * file type's. A bad tag or layout, or an ICB extent other than one
 * block, is FZ7_E_FORMAT (as 7-Zip fails the image).
 * ECMA-167 4/14.9, 4/14.17, 4/14.14, 4/14.6. */
static fz7_status read_fe(fz7_archive *a, const uint8_t *icb, udf_item *it, bool *is_dir, uint64_t *fe_off)
{
    udf_priv *p = a->priv;
    uint8_t *b = p->blk;
    uint64_t off;
    uint32_t icb_len = fz7_get32le(icb) & 0x3FFFFFFF, lbn = fz7_get32le(icb + 4);
    uint16_t ref = fz7_get16le(icb + 8);
    if (icb_len != p->ss || !block_off(p, ref, lbn, &off))
        return FZ7_E_FORMAT;
    fz7_status st = rd(a, b, p->ss, off);
    if (st != FZ7_OK)
        return st;
    unsigned id = fz7_get16le(b);
    if ((id != TAG_FE && id != TAG_EFE) || !tag_ok(b, p->ss, id, lbn))
        return FZ7_E_FORMAT;
    *fe_off = off;
    bool ext = id == TAG_EFE;
    memset(it, 0, sizeof *it);
    uint8_t ftype = b[27];
    unsigned ad_kind = fz7_get16le(b + 34) & 3;   /* (bit 2 is not read by 7-Zip either) */
    *is_dir = ftype == 4;
    it->links = fz7_get16le(b + 48);
    it->size = fz7_get64le(b + 56);
    /* Packed Size as 7-Zip shows it: the entry's logical blocks recorded
     * (4/14.9.11), not a sum of the extents read (wraps as 7-Zip's does) */
    it->packed = fz7_get64le(b + (ext ? 72 : 64)) * p->ss;
    note_used(p, off / p->ss + 1);
    size_t base = ext ? 216 : 176;
    it->atime = ts(b + (ext ? 80 : 72));
    it->mtime = ts(b + (ext ? 92 : 84));
    if (ext)
        it->ctime = ts(b + 104);
    it->attr_time = ts(b + (ext ? 116 : 96));
    uint32_t l_ea = fz7_get32le(b + base - 8), l_ad = fz7_get32le(b + base - 4);
    if (l_ea > p->ss - base || l_ad > p->ss - base - l_ea)
        return FZ7_E_FORMAT;
    const uint8_t *ad = b + base + l_ea;
    it->ext_first = p->n_ext;
    if (ad_kind == 3) {   /* the data is in the entry itself */
        if (it->size != l_ad) {   /* (as for extents: 7-Zip wants the size exactly) */
            if (*is_dir)
                return FZ7_E_FORMAT;
            it->unread = true;
        }
        it->embedded = true;
        it->embed_off = off + base + l_ea;
        return FZ7_OK;
    }
    size_t step = ad_kind ? 16 : 8;
    if (ad_kind > 1 || l_ad % step)   /* (extended_ad is not recorded by UDF) */
        return FZ7_E_FORMAT;
    uint64_t total = 0, data_end = 0;
    for (size_t pos = 0; pos + step <= l_ad;) {
        uint32_t len = fz7_get32le(ad + pos), where = fz7_get32le(ad + pos + 4);
        uint16_t r = ad_kind ? fz7_get16le(ad + pos + 8) : ref;
        pos += step;
        uint8_t type = (uint8_t)(len >> 30);
        len &= 0x3FFFFFFF;
        if (!len)
            break;   /* the descriptors end here */
        if (type == 3) {
            /* the rest in an allocation extent descriptor (4/14.5): 7-Zip
             * does not follow one */
            it->unread = true;
            break;
        }
        uint64_t o = 0;
        if (type == 0 && (!block_off(p, r, where, &o) ||
                          (uint64_t)where + ((uint64_t)len + p->ss - 1) / p->ss > p->parts[p->map_part[r]].length)) {
            it->unread = true;
            break;
        }
        if (!p->ext_budget--) {
            st = FZ7_E_FORMAT;
            break;
        }
        if ((st = add_extent(a, (udf_extent){where, len, r, type})) != FZ7_OK)
            break;
        if (type == 0) {
            uint64_t e = o / p->ss + ((uint64_t)len + p->ss - 1) / p->ss;
            data_end = e > data_end ? e : data_end;
        } else {
            it->unread = true;
        }
        total += len;
    }
    if (st != FZ7_OK)
        return st;
    it->ext_count = p->n_ext - it->ext_first;
    if (total != it->size)   /* (7-Zip wants them to sum to the size exactly) */
        it->unread = true;
    if (it->unread && *is_dir)
        return FZ7_E_FORMAT;   /* a folder's FIDs must all be read */
    if (!it->unread)   /* (7-Zip leaves a file it cannot read out of the image's end) */
        note_used(p, data_end);
    return FZ7_OK;
}

static fz7_status open_dir(fz7_archive *a, size_t *cap, long self, const udf_item *dir, unsigned level);

#define DIR_BYTES_PER_ENTRY 256
#define EXTENTS_PER_ENTRY 2       /* (p->ext_budget) */
#define DIR_TOMB UINT64_MAX   /* a slot whose folder was left */

/* Puts key into the hash set p->dirs (capacity a power of two), whose
 * slot for it is free. */
static void dirs_put(uint64_t *set, size_t cap, uint64_t key)
{
    size_t h = (size_t)(key * 0x9E3779B97F4A7C15u >> 20) & (cap - 1);
    while (set[h] && set[h] != DIR_TOMB)
        h = (h + 1) & (cap - 1);
    set[h] = key;
}

/* Enters the folder whose entry is at off: *loop when it is one of the
 * folders being read (its own ancestor: 7-Zip opens no such image); a
 * folder named twice elsewhere is read twice, as 7-Zip lists it. The
 * folders being read are a hash set (leave_dir takes one out), so a deep
 * and wide tree stays linear. */
static fz7_status enter_dir(fz7_archive *a, uint64_t off, bool *loop)
{
    udf_priv *p = a->priv;
    uint64_t key = off + 1;   /* 0: an empty slot */
    size_t cap = p->dirs_cap;
    for (size_t h = cap ? (size_t)(key * 0x9E3779B97F4A7C15u >> 20) & (cap - 1) : 0; cap && p->dirs[h];
         h = (h + 1) & (cap - 1))
        if (p->dirs[h] == key) {
            *loop = true;
            return FZ7_OK;
        }
    *loop = false;
    if (2 * (p->n_dirs + p->n_tombs + 1) > cap) {   /* rehash, tombstones dropped */
        size_t ncap = 64;
        while (ncap < 4 * (p->n_dirs + 1))
            ncap *= 2;
        if (ncap > a->opts.mem_limit / 4 / sizeof *p->dirs)
            return FZ7_E_MEMLIMIT;
        uint64_t *nd = calloc(ncap, sizeof *nd);
        if (!nd)
            return FZ7_E_MEM;
        for (size_t i = 0; i < cap; i++)
            if (p->dirs[i] && p->dirs[i] != DIR_TOMB)
                dirs_put(nd, ncap, p->dirs[i]);
        free(p->dirs);
        p->dirs = nd;
        p->dirs_cap = ncap;
        p->n_tombs = 0;
    }
    dirs_put(p->dirs, p->dirs_cap, key);
    p->n_dirs++;
    return FZ7_OK;
}

/* Leaves the folder enter_dir entered at off. */
static void leave_dir(udf_priv *p, uint64_t off)
{
    uint64_t key = off + 1;
    for (size_t h = (size_t)(key * 0x9E3779B97F4A7C15u >> 20) & (p->dirs_cap - 1); p->dirs[h];
         h = (h + 1) & (p->dirs_cap - 1))
        if (p->dirs[h] == key) {
            p->dirs[h] = DIR_TOMB;
            p->n_dirs--;
            p->n_tombs++;
            return;
        }
}

/* The bytes of a file (a folder's FIDs), malloc'd into *out: at most
 * the image's size in all, and DIR_BYTES_PER_ENTRY more for each entry
 * listed (p->dir_budget): a folder named in many places is read in each,
 * as 7-Zip lists it there, but the reading stays in proportion to the
 * entries, which the memory limit bounds. */
static fz7_status read_all(fz7_archive *a, const udf_item *it, uint8_t **out)
{
    udf_priv *p = a->priv;
    *out = NULL;
    if (it->size > p->dir_budget)
        return FZ7_E_FORMAT;
    p->dir_budget -= it->size;
    uint8_t *d = malloc(it->size ? (size_t)it->size : 1);
    if (!d)
        return FZ7_E_MEM;
    fz7_status st = FZ7_OK;
    if (it->embedded) {
        st = rd(a, d, (size_t)it->size, it->embed_off);
    } else {
        uint64_t done = 0;
        for (size_t k = 0; k < it->ext_count && done < it->size && st == FZ7_OK; k++) {
            const udf_extent *x = &p->ext[it->ext_first + k];
            size_t n = (size_t)(x->len < it->size - done ? x->len : it->size - done);
            uint64_t o;
            if (x->type)
                memset(d + done, 0, n);
            else if (!block_off(p, x->ref, x->lbn, &o))
                st = FZ7_E_FORMAT;
            else
                st = rd(a, d + done, n, o);
            done += n;
        }
        if (st == FZ7_OK && done < it->size)   /* (never, as read_fe checked the sum: kept as a bound) */
            st = FZ7_E_FORMAT;
    }
    if (st != FZ7_OK) {
        free(d);
        return st;
    }
    *out = d;
    return FZ7_OK;
}

/* Lists the folder of entry dir as entry self (-1: the root): its FIDs
 * in their order, each folder followed by its own entries, as 7-Zip
 * lists them. ECMA-167 4/14.4. */
static fz7_status open_dir(fz7_archive *a, size_t *cap, long self, const udf_item *dir, unsigned level)
{
    udf_priv *p = a->priv;
    uint8_t *d;
    fz7_status st = read_all(a, dir, &d);
    if (st != FZ7_OK)
        return st;
    char name[255 * 3 + 1];
    size_t len = (size_t)dir->size;
    for (size_t pos = 0; pos < len && st == FZ7_OK;) {
        const uint8_t *f = d + pos;
        if (len - pos < 38 || fz7_get16le(f) != TAG_FID) {
            st = FZ7_E_FORMAT;
            break;
        }
        uint8_t chars = f[18], l_fi = f[19];
        uint16_t l_iu = fz7_get16le(f + 36);
        size_t flen = (38u + l_fi + l_iu + 3) & ~(size_t)3;
        uint32_t loc = fz7_get32le(f + 12);
        if (flen > len - pos || !tag_ok(f, flen, TAG_FID, loc)) {
            st = FZ7_E_FORMAT;
            break;
        }
        for (size_t k = 38u + l_fi + l_iu; k < flen; k++)
            if (f[k])   /* padding that is not zeros: 7-Zip fails the image */
                st = FZ7_E_FORMAT;
        if (st != FZ7_OK)
            break;
        pos += flen;
        if (chars & (4 | 8))   /* deleted, or the parent */
            continue;
        if (level >= UDF_MAX_DEPTH) {
            st = FZ7_E_FORMAT;
            break;
        }
        size_t nl = cs0_to_utf8(f + 38 + l_iu, l_fi, name);
        for (size_t i = 0; i < nl; i++)   /* a name is one level */
            if (name[i] == '/')
                name[i] = '_';
        if (!nl)   /* an empty name: "[]", as 7-Zip names it */
            nl = (size_t)snprintf(name, sizeof name, "[]");
        udf_item it;
        bool is_dir;
        uint64_t fe_off;
        size_t ext_was = p->n_ext;
        if ((st = read_fe(a, f + 20, &it, &is_dir, &fe_off)) != FZ7_OK)
            break;
        char *path = NULL;
        size_t was = *cap;
        st = fz7_child_path(a, self, name, nl, &p->path_bytes, &path);
        if (st == FZ7_OK)
            st = fz7_grow((void **)&a->entries, a->count, cap, sizeof *a->entries, 64, a->opts.mem_limit);
        if (st == FZ7_OK && *cap != was) {
            udf_item *ni = realloc(p->items, *cap * sizeof *ni);
            if (ni)
                p->items = ni;
            else
                st = FZ7_E_MEM;
        }
        if (st != FZ7_OK) {
            free(path);
            break;
        }
        size_t idx = a->count++;
        p->dir_budget += DIR_BYTES_PER_ENTRY;
        p->ext_budget += EXTENTS_PER_ENTRY;
        p->items[idx] = it;
        fz7_entry *e = &a->entries[idx];
        memset(e, 0, sizeof *e);
        e->path = path;
        e->folder = -1;
        e->method = "";
        e->is_dir = is_dir;
        if (is_dir) {
            bool loop;
            p->n_ext = ext_was;   /* a folder's extents are read now, not kept */
            p->items[idx].ext_first = ext_was;
            st = enter_dir(a, fe_off, &loop);
            if (st == FZ7_OK && loop)
                st = FZ7_E_FORMAT;
            if (st == FZ7_OK) {
                udf_item copy = it;
                st = open_dir(a, cap, (long)idx, &copy, level + 1);
                leave_dir(p, fe_off);
            }
        }
    }
    free(d);
    return st;
}

static void fill_entries(fz7_archive *a)
{
    udf_priv *p = a->priv;
    for (size_t i = 0; i < a->count; i++) {
        fz7_entry *e = &a->entries[i];
        const udf_item *it = &p->items[i];
        e->has_mtime = it->mtime.set;
        e->mtime = it->mtime.sec;
        e->mtime_nsec = it->mtime.nsec;
        e->mtime_prec = FZ7_MTIME_EXACT;
        e->mode = e->is_dir ? S_IFDIR : S_IFREG;
        if (e->is_dir)
            continue;
        e->has_size = true;
        e->size = it->size;
        e->has_stream = it->size > 0;
        e->packed_size = it->packed;
        e->packed_known = true;
    }
}

/* Hands a file's bytes to cb->data. */
static fz7_status file_data(fz7_archive *a, const udf_item *it, const fz7_extract_cb *cb, bool *cb_failed)
{
    udf_priv *p = a->priv;
    uint8_t *buf = p->blk;
    if (it->embedded) {
        fz7_status st = rd(a, buf, (size_t)it->size, it->embed_off);
        if (st != FZ7_OK)
            return st == FZ7_E_FORMAT ? FZ7_E_DATA : st;
        st = cb->data(cb->ctx, buf, (size_t)it->size);
        *cb_failed = st != FZ7_OK;
        return st;
    }
    uint64_t left = it->size;
    for (size_t k = 0; k < it->ext_count && left; k++) {
        const udf_extent *x = &p->ext[it->ext_first + k];
        uint64_t n = x->len < left ? x->len : left, o = 0;
        if (!x->type && !block_off(p, x->ref, x->lbn, &o))
            return FZ7_E_DATA;
        for (uint64_t done = 0; done < n;) {
            size_t c = n - done < p->ss ? (size_t)(n - done) : p->ss;
            if (x->type) {
                memset(buf, 0, c);
            } else {
                fz7_status st = rd(a, buf, c, o + done);
                if (st != FZ7_OK)
                    return st == FZ7_E_FORMAT ? FZ7_E_DATA : st;
            }
            fz7_status st = cb->data(cb->ctx, buf, c);
            if (st != FZ7_OK) {
                *cb_failed = true;
                return st;
            }
            done += c;
        }
        left -= n;
    }
    return left ? FZ7_E_DATA : FZ7_OK;
}

static fz7_status udf_extract(fz7_archive *a, const bool *select, const fz7_extract_cb *cb, char *err, size_t errlen)
{
    udf_priv *p = a->priv;
    fz7_status st = FZ7_OK;
    for (size_t i = 0; i < a->count && st == FZ7_OK; i++) {
        if (select && !select[i])
            continue;
        const fz7_entry *e = &a->entries[i];
        if ((st = cb->begin(cb->ctx, i, e)) != FZ7_OK)
            break;
        fz7_status r = FZ7_OK;
        bool cb_failed = false;
        if (!e->is_dir && p->items[i].unread)
            r = FZ7_E_UNSUPPORTED;
        else if (!e->is_dir && e->size)
            r = file_data(a, &p->items[i], cb, &cb_failed);
        if (fz7_entry_done(cb, i, r, cb_failed, r == FZ7_E_DATA ? "its extents lie past the image's end" : NULL,
                           err, errlen, &st))
            break;
    }
    return st;
}

static size_t udf_props(const fz7_archive *a, size_t i, fz7_prop *pr, char *buf, size_t cap)
{
    const udf_priv *p = a->priv;
    const fz7_entry *e = &a->entries[i];
    const udf_item *it = &p->items[i];
    size_t k = 0, used = 0;
    fz7_prop_text(pr, &k, "Path", e->path);
    fz7_prop_text(pr, &k, "Folder", e->is_dir ? "+" : "-");
    fz7_prop_text(pr, &k, "Size", e->is_dir ? "" : fz7_prop_put(buf, cap, &used, "%llu", (unsigned long long)e->size));
    fz7_prop_text(pr, &k, "Packed Size",
                  e->is_dir ? "" : fz7_prop_put(buf, cap, &used, "%llu", (unsigned long long)e->packed_size));
    fz7_prop_time(pr, &k, "Modified", it->mtime.set, it->mtime.sec, it->mtime.nsec, 6);
    fz7_prop_time(pr, &k, "Accessed", it->atime.set, it->atime.sec, it->atime.nsec, 6);
    fz7_prop_time(pr, &k, "Created", it->ctime.set, it->ctime.sec, it->ctime.nsec, 6);
    fz7_prop_time(pr, &k, "Metadata Changed", it->attr_time.set, it->attr_time.sec, it->attr_time.nsec, 6);
    fz7_prop_text(pr, &k, "Links", fz7_prop_put(buf, cap, &used, "%u", (unsigned)it->links));
    return k;
}

static void udf_close(fz7_archive *a)
{
    udf_priv *p = a->priv;
    if (p) {
        free(p->items);
        free(p->ext);
        free(p->dirs);
        free(p->blk);
        free(p->comment);
    }
    free(p);
    a->priv = NULL;
}

static const fz7_archive_ops udf_ops = {udf_extract, udf_close, udf_props};

/* Whether the volume recognition sequence from 32 KiB (ECMA-167 2/8.3)
 * holds an NSR02 or NSR03 descriptor: the image is UDF. */
static bool has_nsr(fz7_archive *a)
{
    for (unsigned i = 0; i < 64; i++) {
        uint8_t h[7];
        if (rd(a, h, sizeof h, 32768 + 2048 * (uint64_t)i) != FZ7_OK)
            return false;
        if (!memcmp(h + 1, "NSR02", 5) || !memcmp(h + 1, "NSR03", 5))
            return true;
        if (memcmp(h + 1, "BEA01", 5) && memcmp(h + 1, "CD001", 5) && memcmp(h + 1, "BOOT2", 5) &&
            memcmp(h + 1, "CDW02", 5) && memcmp(h + 1, "TEA01", 5))
            return false;
    }
    return false;
}

/* Appends printf text to the growing comment *s (*len bytes). */
static void cat(char **s, size_t *len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void cat(char **s, size_t *len, const char *fmt, ...)
{
    if (!*s)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *ns = n < 0 ? NULL : realloc(*s, *len + (size_t)n + 1);
    if (!ns) {
        free(*s);
        *s = NULL;
        return;
    }
    *s = ns;
    va_start(ap, fmt);
    vsnprintf(ns + *len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    *len += (size_t)n;
}

/* The archive's Comment: the volume's descriptors as 7-Zip shows them. */
static char *volume_comment(const udf_priv *p, const uint8_t *pvd, const uint8_t *lvd, const uint8_t *fsd)
{
    static const char *const access[] = {"Pseudo-Overwritable", "Read-Only", "Write-Once", "Rewritable",
                                         "Overwritable"};
    char *s = malloc(1), t[3 * 128 + 1], r[64];
    size_t n = 0;
    if (s)
        s[0] = 0;
    cat(&s, &n, "\n{\nPrimary Volumes:\n");
    cat(&s, &n, "  PrimaryVolumeDescriptorNumber: %u\n", (unsigned)fz7_get32le(pvd + 20));
    cat(&s, &n, "  VolumeSequenceNumber: %u\n", (unsigned)fz7_get16le(pvd + 56));
    dstring(pvd + 24, 32, t);
    cat(&s, &n, "  VolumeId: %s\n", t);
    dstring(pvd + 72, 128, t);
    cat(&s, &n, "  VolumeSetId: %s\n", t);
    regid(pvd + 344, false, r, sizeof r);
    cat(&s, &n, "  ApplicationId: %s\n", r);
    regid(pvd + 388, false, r, sizeof r);
    cat(&s, &n, "  ImplementationId: %s\n", r);
    cat(&s, &n, "Partitions:\n");
    for (size_t i = 0; i < p->n_parts; i++) {
        const udf_part *pt = &p->parts[i];
        cat(&s, &n, "  PartitionIndex: %u\n  PartitionNumber: %u\n", (unsigned)i, (unsigned)pt->number);
        regid(pt->contents, false, r, sizeof r);
        cat(&s, &n, "  ContentsId: %s\n", r);
        regid(pt->impl, false, r, sizeof r);
        cat(&s, &n, "  ImplementationId: %s\n", r);
        if (pt->access < 5)
            cat(&s, &n, "  AccessType: %s\n", access[pt->access]);
        else
            cat(&s, &n, "  AccessType: %u\n", (unsigned)pt->access);
        cat(&s, &n, "  Size: %llu\n  Pos: %llu\n", (unsigned long long)pt->length * p->ss,
            (unsigned long long)pt->start * p->ss);
    }
    cat(&s, &n, "Logical Volumes:\n");
    dstring(lvd + 84, 128, t);
    cat(&s, &n, "  Id: %s\n  BlockSize: %u\n", t, (unsigned)p->ss);
    regid(lvd + 216, true, r, sizeof r);
    cat(&s, &n, "  DomainId: %s\n", r);
    regid(lvd + 272, false, r, sizeof r);
    cat(&s, &n, "  ImplementationId: %s\n  Partition Maps:\n", r);
    for (size_t i = 0; i < p->n_maps; i++)
        cat(&s, &n, "    PartitionMap: %u\n    Type: 1\n    VolumeSequenceNumber: %u\n    PartitionNumber: %u\n",
            (unsigned)i, (unsigned)p->map_vsn[i], (unsigned)p->parts[p->map_part[i]].number);
    cat(&s, &n, "  File Sets:\n");
    cat(&s, &n, "    FileSetNumber: %u\n    FileSetDescNumber: %u\n", (unsigned)fz7_get32le(fsd + 40),
        (unsigned)fz7_get32le(fsd + 44));
    dstring(fsd + 112, 128, t);
    cat(&s, &n, "    LogicalVolumeId: %s\n", t);
    dstring(fsd + 304, 32, t);
    cat(&s, &n, "    Id: %s\n", t);
    dstring(fsd + 336, 32, t);
    cat(&s, &n, "    CopyrightId: %s\n", t);
    dstring(fsd + 368, 32, t);
    cat(&s, &n, "    AbstractId: %s\n", t);
    regid(fsd + 416, true, r, sizeof r);
    cat(&s, &n, "    DomainId: %s\n}", r);
    return s;
}

/* Reads the volume descriptor sequence of extent len bytes at sector loc:
 * the primary volume, partition and logical volume descriptors. */
static fz7_status read_vds(fz7_archive *a, uint32_t loc, uint32_t len, uint8_t *pvd, uint8_t *lvd)
{
    udf_priv *p = a->priv;
    bool have_pvd = false, have_lvd = false;
    uint32_t n = len / p->ss;
    if (n > UDF_MAX_VDS)
        n = UDF_MAX_VDS;
    for (uint32_t i = 0; i < n; i++) {
        uint8_t *b = p->blk;
        fz7_status st = rd(a, b, p->ss, ((uint64_t)loc + i) * p->ss);
        if (st != FZ7_OK)
            return st;
        unsigned id = fz7_get16le(b);
        if (!tag_ok(b, p->ss, 0, loc + i))
            return FZ7_E_FORMAT;
        if (id == TAG_TD)
            break;
        if (id == TAG_PVD && !have_pvd) {
            memcpy(pvd, b, 512);
            have_pvd = true;
        } else if (id == TAG_LVD && !have_lvd) {
            memcpy(lvd, b, p->ss);
            have_lvd = true;
        } else if (id == TAG_PD && p->n_parts < UDF_MAX_PARTS) {
            bool dup = false;
            for (size_t k = 0; k < p->n_parts; k++)
                dup |= p->parts[k].number == fz7_get16le(b + 22);
            if (dup)
                continue;
            udf_part *pt = &p->parts[p->n_parts++];
            pt->number = fz7_get16le(b + 22);
            memcpy(pt->contents, b + 24, 32);
            pt->access = fz7_get32le(b + 184);
            pt->start = fz7_get32le(b + 188);
            pt->length = fz7_get32le(b + 192);
            memcpy(pt->impl, b + 196, 32);
        }
    }
    return have_pvd && have_lvd && p->n_parts ? FZ7_OK : FZ7_E_FORMAT;
}

/* Reads the logical volume's partition maps (type 1 only) into
 * p->map_part. ECMA-167 3/10.7. */
static fz7_status read_maps(udf_priv *p, const uint8_t *lvd)
{
    uint32_t mt_len = fz7_get32le(lvd + 264), n_maps = fz7_get32le(lvd + 268);
    if (mt_len > p->ss - 440 || n_maps == 0 || n_maps > UDF_MAX_PARTS)
        return FZ7_E_FORMAT;
    const uint8_t *m = lvd + 440;
    for (uint32_t i = 0, pos = 0; i < n_maps; i++) {
        if (pos + 2 > mt_len || m[pos + 1] < 2 || m[pos + 1] > mt_len - pos)
            return FZ7_E_FORMAT;
        if (m[pos] != 1 || m[pos + 1] != 6)
            return FZ7_E_UNSUPPORTED;
        uint16_t num = fz7_get16le(m + pos + 4);
        size_t k = 0;
        while (k < p->n_parts && p->parts[k].number != num)
            k++;
        if (k == p->n_parts)
            return FZ7_E_FORMAT;
        p->map_vsn[p->n_maps] = fz7_get16le(m + pos + 2);
        p->map_part[p->n_maps++] = (uint16_t)k;
        pos += m[pos + 1];
    }
    return FZ7_OK;
}

/* Widens p->vol_end to an extent of len bytes at sector loc. */
static void note_extent(udf_priv *p, uint32_t loc, uint32_t len)
{
    uint64_t end = (uint64_t)loc + (len + (uint64_t)p->ss - 1) / p->ss;
    if (len && end > p->vol_end)
        p->vol_end = end;
}

/* Where the image ends, as 7-Zip takes it: past the volume's extent,
 * zero sectors and anchors (the end-of-volume anchors a writer pads
 * with) still belong to it; the first other sector starts a tail. Bytes
 * to the file's end that are all zero belong to it too. *anchor: an
 * anchor was found there (without one, 7-Zip reports Headers Error). */
static fz7_status image_end(fz7_archive *a, uint64_t *end, bool *anchor)
{
    udf_priv *p = a->priv;
    uint64_t s = p->vol_end, last = p->vol_end * p->ss;
    bool stopped = false;
    *anchor = false;
    for (; (s + 1) * p->ss <= a->file_size; s++) {
        fz7_status st = rd(a, p->blk, p->ss, s * p->ss);
        if (st != FZ7_OK)
            return st;
        if (tag_ok(p->blk, p->ss, TAG_AVDP, (uint32_t)s) && s <= UINT32_MAX) {
            last = (s + 1) * p->ss;
            *anchor = true;
            continue;
        }
        size_t z = 0;
        while (z < p->ss && !p->blk[z])
            z++;
        if (z < p->ss) {
            stopped = true;
            break;
        }
    }
    if (!stopped && s * p->ss < a->file_size) {   /* a part sector at the end */
        size_t n = (size_t)(a->file_size - s * p->ss);
        fz7_status st = rd(a, p->blk, n, s * p->ss);
        if (st != FZ7_OK)
            return st;
        for (size_t z = 0; z < n && !stopped; z++)
            stopped = p->blk[z] != 0;
    }
    if (!stopped) {   /* zeros from the last anchor on: all the image's */
        for (uint64_t t = last / p->ss; t * p->ss < a->file_size && !stopped; t++) {
            size_t n = a->file_size - t * p->ss < p->ss ? (size_t)(a->file_size - t * p->ss) : p->ss;
            fz7_status st = rd(a, p->blk, n, t * p->ss);
            if (st != FZ7_OK)
                return st;
            for (size_t z = 0; z < n && !stopped; z++)
                stopped = p->blk[z] != 0;
        }
        if (!stopped)
            last = a->file_size > last ? a->file_size : last;
    }
    *end = last;
    return FZ7_OK;
}

/* Opens the image with sectors of p->ss bytes whose anchor is good. */
static fz7_status open_volume(fz7_archive *a, size_t *cap)
{
    udf_priv *p = a->priv;
    /* the logical volume descriptor whole: its partition maps run to the
     * block's end (3/10.6); the others are 512 bytes */
    uint8_t avdp[512], pvd[512], lvd[4096], fsd[512];
    fz7_status st = rd(a, p->blk, p->ss, 256 * (uint64_t)p->ss);
    if (st != FZ7_OK)
        return st;
    if (!tag_ok(p->blk, p->ss, TAG_AVDP, 256))
        return FZ7_E_FORMAT;
    memcpy(avdp, p->blk, sizeof avdp);
    /* the volume's extent: the anchor, both descriptor sequences, the
     * integrity sequence and the partitions (checked after them) */
    p->vol_end = 257;
    for (int k = 0; k < 2; k++)
        note_extent(p, fz7_get32le(avdp + 20 + 8 * k), fz7_get32le(avdp + 16 + 8 * k));
    if ((st = read_vds(a, fz7_get32le(avdp + 20), fz7_get32le(avdp + 16), pvd, lvd)) != FZ7_OK)
        return st;
    if (fz7_get32le(lvd + 212) != p->ss)
        return FZ7_E_UNSUPPORTED;
    if ((st = read_maps(p, lvd)) != FZ7_OK)
        return st;
    note_extent(p, fz7_get32le(lvd + 436), fz7_get32le(lvd + 432));
    /* the file set descriptor at the contents use's long_ad */
    uint32_t fsd_lbn = fz7_get32le(lvd + 248 + 4);
    uint16_t fsd_ref = fz7_get16le(lvd + 248 + 8);
    uint64_t off;
    if (!block_off(p, fsd_ref, fsd_lbn, &off) || (st = rd(a, p->blk, p->ss, off)) != FZ7_OK)
        return FZ7_E_FORMAT;
    if (!tag_ok(p->blk, p->ss, TAG_FSD, fsd_lbn))
        return FZ7_E_FORMAT;
    memcpy(fsd, p->blk, sizeof fsd);
    udf_item root;
    bool is_dir;
    uint64_t fe_off;
    st = read_fe(a, fsd + 400, &root, &is_dir, &fe_off);
    if (st != FZ7_OK)
        return st;
    if (!is_dir)
        return FZ7_E_FORMAT;
    bool loop;
    if ((st = enter_dir(a, fe_off, &loop)) != FZ7_OK)
        return st;
    p->n_ext = root.ext_first + root.ext_count;
    if ((st = open_dir(a, cap, -1, &root, 0)) != FZ7_OK)
        return st;
    /* 7-Zip's image ends past the blocks its files use, not at the
     * partition's end: the end scan (image_end) starts there */
    note_used(p, off / p->ss + 1);
    if (p->used_end > p->vol_end)
        p->vol_end = p->used_end;
    p->comment = volume_comment(p, pvd, lvd, fsd);
    if (!p->comment)
        return FZ7_E_MEM;
    unsigned rev = fz7_get16le(lvd + 216 + 24);
    snprintf(p->version, sizeof p->version, "%x.%02x", rev >> 8, rev & 0xFF);
    snprintf(p->cluster, sizeof p->cluster, "%u", (unsigned)p->ss);
    /* 7-Zip shows the file set's recording time as Created, the primary
     * volume's as Modified */
    udf_time created = ts(fsd + 16), modified = ts(pvd + 376);
    size_t k = 0;
    p->lines[k++] = (fz7_prop){.name = "Version", .value = p->version};
    p->lines[k++] = (fz7_prop){.name = "Cluster Size", .value = p->cluster};
    p->lines[k++] = (fz7_prop){.name = "Sector Size", .value = p->cluster};
    if (created.set)
        p->lines[k++] = (fz7_prop){.name = "Created", .sec = created.sec, .nsec = created.nsec, .digits = 6};
    if (modified.set)
        p->lines[k++] = (fz7_prop){.name = "Modified", .sec = modified.sec, .nsec = modified.nsec, .digits = 6};
    p->lines[k++] = (fz7_prop){.name = "Comment", .value = p->comment};
    a->info.block_lines = p->lines;
    a->info.n_block_lines = k;
    return FZ7_OK;
}

fz7_status fz7_udf_open(fz7_archive *a, char *err, size_t errlen)
{
    (void)err;
    (void)errlen;
    if (a->file_size < 32768 + 2048 || !has_nsr(a))
        return FZ7_E_FORMAT;
    static const uint32_t sizes[] = {2048, 512, 4096, 1024};
    fz7_status st = FZ7_E_FORMAT;
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0] && st == FZ7_E_FORMAT; s++) {
        udf_priv *p = calloc(1, sizeof *p);
        if (!p)
            return FZ7_E_MEM;
        a->priv = p;
        a->ops = &udf_ops;
        p->ss = sizes[s];
        p->dir_budget = a->file_size;
        /* a sound image records each extent once: many names for one
         * entry of many extents stop at the image's size (and a few
         * extents for each entry listed) */
        p->ext_budget = a->file_size / 8 + 1024;
        size_t cap = 0;
        if (!(p->blk = malloc(p->ss)))
            st = FZ7_E_MEM;
        else
            st = open_volume(a, &cap);
        if (st == FZ7_OK)
            break;
        fz7_archive_free_entries(a);
        udf_close(a);
        a->ops = NULL;
    }
    if (st != FZ7_OK)
        return st == FZ7_E_MEM ? st : FZ7_E_FORMAT;
    fill_entries(a);
    uint64_t end;
    bool anchor;
    if ((st = image_end(a, &end, &anchor)) != FZ7_OK) {
        fz7_archive_free_entries(a);
        udf_close(a);
        a->ops = NULL;
        return st;
    }
    a->info.phy_size = end;
    a->info.tail_size = a->file_size > end ? a->file_size - end : 0;
    if (a->file_size < end)
        a->info.open_error = "Headers Error\nUnexpected end of archive";
    else if (!anchor)
        a->info.open_error = "Headers Error";
    a->info.format = FZ7_FORMAT_OTHER;
    a->info.type_name = "Udf";
    a->info.method = "";
    return FZ7_OK;
}
