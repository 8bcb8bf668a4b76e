/* vmdisk_read.c - virtual machine disk images read as 7-Zip reads them:
 * the virtual disk's bytes as one entry (blocks the image leaves
 * unallocated read as zeros), named after the image file with an
 * extension by what the disk starts with ("d.mbr", "d.gpt", "d.img").
 * The disk's partition table (and through it the one partition's file
 * system) opens in the image's place, as 7-Zip does.
 *
 * Formats: VHD (Microsoft's "Virtual Hard Disk Image Format
 * Specification" 1.0: fixed and dynamic disks; a differencing disk is
 * refused) and VDI (VirtualBox's image: a text line, the signature and
 * version 1.1's header, a block map of 32-bit block numbers, the blocks;
 * a disk linked to a parent image is listed, not read, as in 7-Zip) and
 * QCOW (QEMU's qcow2 specification, docs/interop/qcow2.txt, versions 2
 * and 3, and the older version 1: a big-endian header, an L1 table of L2
 * tables of cluster offsets; deflate-compressed version 2/3 clusters) and
 * VMDK (VMware's "Virtual Disk Format 5.0": a monolithic sparse extent,
 * hosted sparse extent header versions 1 and 2, its embedded descriptor,
 * a grain directory of grain tables of grain sectors).
 * Every table is bounded by the file's size and opts.mem_limit. */
#include "codec/codec.h"
#include "format/archive_impl.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define VD_SECTOR 512
#define VD_CHUNK (1u << 16)   /* bytes read at a time */
/* VHD times count seconds from 2000-01-01 00:00:00 UTC (spec: Time Stamp) */
#define VHD_EPOCH 946684800
#define VD_NAME_MAX 4096

static uint64_t get64be(const uint8_t *p) { return (uint64_t)fz7_get32be(p) << 32 | fz7_get32be(p + 4); }

typedef struct vd_priv {
    uint64_t *map;     /* block i of the disk at map[i] in the file, or
                          FZ7_BLOCK_ZEROS; NULL: the disk is the file's
                          bytes from base on (a fixed VHD) */
    uint64_t n_blocks, base;
    unsigned bits;     /* blocks are 2^bits bytes */
    bool parent;       /* some of the disk is in a parent image fz7 does
                          not read (or in a way it cannot read: a QCOW
                          cipher): the entry does not extract */
    uint32_t *clen;    /* QCOW: with map[i] & VD_DEFLATE, the bytes of
                          block i's raw deflate stream; else NULL */
    uint8_t *cache;    /* the last compressed block, inflated */
    uint64_t cached;   /* its number + 1; 0: none */
    char *desc;        /* VMDK: the Comment line's text (the descriptor) */
    fz7_prop lines[12];
    fz7_prop item[4];  /* the entry's -slt lines after Size and Packed Size */
    size_t n_item;
    char text[1024];   /* the lines' values */
    size_t used;
} vd_priv;

/* A map value's flag: the block is a raw deflate stream (QCOW) at the
 * offset in the bits below, clen[i] bytes of it. */
#define VD_DEFLATE FZ7_BLOCK_CODED

/* Block i, a compressed one, into p->cache (kept: a sector at a time
 * reads the same block again). FZ7_E_DATA when the stream is damaged or
 * inflates to other than a block, FZ7_E_TRUNCATED, FZ7_E_MEM. */
static fz7_status block_inflate(const fz7_archive *a, vd_priv *p, uint64_t i)
{
    if (p->cached == i + 1)
        return FZ7_OK;
    size_t bs = (size_t)1 << p->bits;
    uint64_t at = p->map[i] & ~VD_DEFLATE;
    size_t n = p->clen[i];
    /* (the stream's last sector may pass the file's end: it is counted
     * in whole sectors, the file is not padded) */
    if (at >= a->file_size)
        return FZ7_E_TRUNCATED;
    if (n > a->file_size - at)
        n = (size_t)(a->file_size - at);
    if (!p->cache && !(p->cache = malloc(bs)))
        return FZ7_E_MEM;
    uint8_t *in = malloc(n ? n : 1);
    fz7_istream *m = NULL, *z = NULL;
    fz7_status st = !in ? FZ7_E_MEM : fz7_volumes_pread(a->vol, in, n, at);
    if (st == FZ7_OK && !(m = fz7_istream_from_memory(in, n)))
        st = FZ7_E_MEM;
    if (st == FZ7_OK)
        st = fz7_deflate_istream_new(m, false, &z);
    p->cached = 0;
    size_t got = 0;
    if (st == FZ7_OK)
        st = fz7_istream_read_upto(z, p->cache, bs, &got);
    if (st == FZ7_OK && got != bs)
        st = FZ7_E_DATA;
    fz7_istream_free(z);
    fz7_istream_free(m);
    free(in);
    if (st == FZ7_E_TRUNCATED)   /* (the stream ends early: bad data, not a cut file) */
        st = FZ7_E_DATA;
    if (st == FZ7_OK)
        p->cached = i + 1;
    return st;
}

/* The disk's compressed blocks for the archive opened inside it
 * (fz7_block_reader; ctx: the image's archive). */
static fz7_status coded_read(void *ctx, uint64_t i, uint64_t in, uint8_t *buf, size_t n)
{
    const fz7_archive *a = ctx;
    vd_priv *p = a->priv;
    fz7_status st = block_inflate(a, p, i);
    if (st == FZ7_OK)
        memcpy(buf, p->cache + in, n);
    return st;
}

/* Bytes [off, off + n) of the virtual disk into buf; n stays in one
 * block. FZ7_E_TRUNCATED when a block lies past the end of the file. */
static fz7_status disk_read(const fz7_archive *a, vd_priv *p, uint8_t *buf, size_t n, uint64_t off)
{
    if (!p->map)
        return fz7_volumes_pread(a->vol, buf, n, p->base + off);
    uint64_t at = p->map[off >> p->bits];
    if (at == FZ7_BLOCK_ZEROS) {
        memset(buf, 0, n);
        return FZ7_OK;
    }
    if (at & VD_DEFLATE) {
        fz7_status st = block_inflate(a, p, off >> p->bits);
        if (st == FZ7_OK)
            memcpy(buf, p->cache + (off & (((uint64_t)1 << p->bits) - 1)), n);
        return st;
    }
    return fz7_volumes_pread(a->vol, buf, n, at + (off & (((uint64_t)1 << p->bits) - 1)));
}

static fz7_status vd_extract(fz7_archive *a, const bool *select, const fz7_extract_cb *cb, char *err, size_t errlen)
{
    vd_priv *p = a->priv;
    if (!a->count || (select && !select[0]))
        return FZ7_OK;
    const fz7_entry *e = &a->entries[0];
    fz7_status st = cb->begin(cb->ctx, 0, e);
    if (st != FZ7_OK)
        return st;
    uint8_t *buf = p->parent ? NULL : malloc(VD_CHUNK);
    fz7_status r = p->parent ? FZ7_E_UNSUPPORTED : buf ? FZ7_OK : FZ7_E_MEM;
    bool cb_failed = false;
    for (uint64_t off = 0; r == FZ7_OK && off < e->size;) {
        uint64_t left = e->size - off;
        size_t n = left < VD_CHUNK ? (size_t)left : VD_CHUNK;
        if (p->map) {   /* (blocks are at least a chunk, or a chunk is whole blocks) */
            uint64_t room = ((uint64_t)1 << p->bits) - (off & (((uint64_t)1 << p->bits) - 1));
            if (room < n)
                n = (size_t)room;
        }
        if ((r = disk_read(a, p, buf, n, off)) != FZ7_OK)
            break;
        if ((r = cb->data(cb->ctx, buf, n)) != FZ7_OK)
            cb_failed = true;
        off += n;
    }
    free(buf);
    fz7_entry_done(cb, 0, r, cb_failed, r == FZ7_E_TRUNCATED ? "a block lies past the end of the file"
                                        : r == FZ7_E_DATA ? "a compressed block does not inflate" : NULL, err,
                   errlen, &st);
    return st;
}

static size_t vd_props(const fz7_archive *a, size_t i, fz7_prop *pr, char *buf, size_t cap)
{
    const vd_priv *p = a->priv;
    const fz7_entry *e = &a->entries[i];
    size_t k = 0, used = 0;
    /* 7-Zip's item has no Path line: its name is made up from the file's */
    fz7_prop_text(pr, &k, "Size", fz7_prop_put(buf, cap, &used, "%llu", (unsigned long long)e->size));
    fz7_prop_text(pr, &k, "Packed Size", fz7_prop_put(buf, cap, &used, "%llu", (unsigned long long)e->packed_size));
    for (size_t j = 0; j < p->n_item; j++)
        pr[k++] = p->item[j];
    return k;
}

/* Frees p and what it holds (NULL is allowed). */
static void vd_free(vd_priv *p)
{
    if (p) {
        free(p->map);
        free(p->clen);
        free(p->cache);
        free(p->desc);
    }
    free(p);
}

static void vd_close(fz7_archive *a)
{
    vd_free(a->priv);
    a->priv = NULL;
}

static const fz7_archive_ops vd_ops = {vd_extract, vd_close, vd_props};

static const char *vd_put(vd_priv *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static const char *vd_put(vd_priv *p, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    size_t room = sizeof p->text - p->used;
    int n = vsnprintf(p->text + p->used, room, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= room)
        return "";
    const char *r = p->text + p->used;
    p->used += (size_t)n + 1;
    return r;
}

/* Ends the open of an image whose disk is size bytes (packed of them
 * stored): the one entry, named after the file ("base.ext", the
 * extension by the disk's first sectors: a GPT header, an MBR's 0x55AA,
 * else "img"), the disk opened in the image's place (blocks past the
 * file's end allowed: a cut image). p is freed when it fails. */
static fz7_status vd_finish(fz7_archive *a, vd_priv *p, uint64_t size, uint64_t packed)
{
    const char *ext = "img";
    uint8_t s[VD_SECTOR];   /* (a sector never straddles blocks: they are whole sectors) */
    if (p->parent)
        ;   /* (not read) */
    else if (size >= 2 * VD_SECTOR && disk_read(a, p, s, VD_SECTOR, VD_SECTOR) == FZ7_OK && !memcmp(s, "EFI PART", 8))
        ext = "gpt";
    else if (size >= VD_SECTOR && disk_read(a, p, s, VD_SECTOR, 0) == FZ7_OK && s[510] == 0x55 && s[511] == 0xAA)
        ext = "mbr";
    const char *base = strrchr(a->path, '/');
    base = base ? base + 1 : a->path;
    const char *dot = strrchr(base, '.');
    size_t bl = dot && dot != base ? (size_t)(dot - base) : strlen(base);
    if (bl > VD_NAME_MAX)
        bl = VD_NAME_MAX;
    fz7_entry *e = calloc(1, sizeof *e);
    char *name = malloc(bl + 5);
    if (!e || !name) {
        free(e);
        free(name);
        vd_free(p);
        return FZ7_E_MEM;
    }
    memcpy(name, base, bl);
    snprintf(name + bl, 5, ".%s", ext);
    e->path = name;
    e->folder = -1;
    e->method = "";
    e->size = size;
    e->has_size = true;
    e->has_stream = size > 0;
    e->packed_size = packed;
    e->packed_known = true;
    e->mode = S_IFREG;
    a->entries = e;
    a->count = 1;
    a->priv = p;
    a->ops = &vd_ops;
    a->info.format = FZ7_FORMAT_OTHER;
    a->info.method = "";
    a->info.block_lines = p->lines;
    a->main_cut = true;
    if (size > 0 && !p->parent && (!p->map || p->bits < 32)) {
        a->main_subfile = 1;
        a->main_offset = p->base;
        if (p->map) {
            a->main_blocks = malloc((size_t)p->n_blocks * sizeof *p->map);
            if (a->main_blocks) {
                memcpy(a->main_blocks, p->map, (size_t)p->n_blocks * sizeof *p->map);
                a->main_bits = p->bits;
                a->main_block_read = p->clen ? coded_read : NULL;
            } else
                a->main_subfile = 0;
        }
    }
    return FZ7_OK;
}

/* Sets p up for a disk of size bytes in blocks of block bytes (a power
 * of two) and allocates its map; *chunk: a buffer for reading the
 * image's table. FZ7_E_MEM. */
static fz7_status map_alloc(vd_priv *p, uint64_t size, uint32_t block, uint8_t **chunk)
{
    p->bits = 0;
    while (((uint32_t)1 << p->bits) < block)
        p->bits++;
    p->n_blocks = (size + block - 1) / block;
    p->map = malloc((p->n_blocks ? p->n_blocks : 1) * sizeof *p->map);
    *chunk = malloc(VD_CHUNK);
    return p->map && *chunk ? FZ7_OK : FZ7_E_MEM;
}

/* Entry i of a table of 32-bit entries at table_at, n of them, read a
 * chunk at a time into chunk (entry 0 of each chunk reads it). */
static fz7_status table_entry(const fz7_archive *a, uint8_t *chunk, uint64_t table_at, uint64_t n, uint64_t i,
                              bool big_endian, uint32_t *out)
{
    const uint64_t per = VD_CHUNK / 4;
    if (i % per == 0) {
        fz7_status st = fz7_volumes_pread(a->vol, chunk, (size_t)(n - i < per ? n - i : per) * 4, table_at + i * 4);
        if (st != FZ7_OK)
            return st;
    }
    *out = big_endian ? fz7_get32be(chunk + (i % per) * 4) : fz7_get32le(chunk + (i % per) * 4);
    return FZ7_OK;
}

/* ---- VHD ---- */

/* The checksum of a VHD footer or dynamic header (spec: Checksum): the
 * one's complement of the sum of its bytes, the checksum field (at
 * skip) not counted. */
static uint32_t vhd_checksum(const uint8_t *b, size_t n, size_t skip)
{
    uint32_t sum = 0;
    for (size_t i = 0; i < n; i++)
        if (i < skip || i >= skip + 4)
            sum += b[i];
    return ~sum;
}

/* A footer: its cookie, its checksum, and (as 7-Zip wants) its
 * reserved bytes after Saved State all zero. */
static bool vhd_footer_ok(const uint8_t *f)
{
    for (size_t i = 85; i < VD_SECTOR; i++)
        if (f[i])
            return false;
    return !memcmp(f, "conectix", 8) && vhd_checksum(f, VD_SECTOR, 64) == fz7_get32be(f + 64);
}

/* The footer's facts as 7-Zip lists them. */
static void vhd_lines(vd_priv *p, const uint8_t *f, size_t *k)
{
    int64_t t = (int64_t)fz7_get32be(f + 24) + VHD_EPOCH;
    p->lines[(*k)++] = (fz7_prop){.name = "Offset", .value = "0"};
    p->lines[(*k)++] = (fz7_prop){.name = "Created", .sec = t, .digits = 7};
    p->item[p->n_item++] = (fz7_prop){.name = "Created", .sec = t, .digits = 7};
}

fz7_status fz7_vhd_open(fz7_archive *a, char *err, size_t errlen)
{
    (void)err;
    (void)errlen;
    uint8_t f[VD_SECTOR];
    /* The footer is the file's last sector (spec 3.1); a dynamic disk
     * keeps a copy in its first, which 7-Zip reads when the last is not
     * a footer (the file was cut). */
    if (a->file_size < VD_SECTOR)
        return FZ7_E_FORMAT;
    /* A dynamic disk's two footers must be the same (7-Zip refuses the
     * image otherwise). */
    bool copy = false;
    uint8_t c[VD_SECTOR];
    if (fz7_volumes_pread(a->vol, f, VD_SECTOR, a->file_size - VD_SECTOR) != FZ7_OK || !vhd_footer_ok(f)) {
        if (fz7_volumes_pread(a->vol, f, VD_SECTOR, 0) != FZ7_OK || !vhd_footer_ok(f) || fz7_get32be(f + 60) != 3)
            return FZ7_E_FORMAT;
        copy = true;
    } else if (fz7_get32be(f + 60) == 3 &&
               (fz7_volumes_pread(a->vol, c, VD_SECTOR, 0) != FZ7_OK || memcmp(c, f, VD_SECTOR)))
        return FZ7_E_FORMAT;
    uint32_t type = fz7_get32be(f + 60);
    uint64_t size = get64be(f + 48), data_offset = get64be(f + 16);
    vd_priv *p = calloc(1, sizeof *p);
    if (!p)
        return FZ7_E_MEM;
    uint64_t packed = size, end = 0;   /* end: of the last block */
    uint32_t block = 0;
    if (type == 2) {   /* fixed: the disk, then the footer */
        /* (7-Zip takes a fixed disk only when the file is the disk and
         * its footer) */
        if (size != a->file_size - VD_SECTOR)
            goto not_vhd;
    } else if (type == 3) {   /* dynamic: a header, the BAT, the blocks */
        uint8_t h[1024];
        if (data_offset > a->file_size || a->file_size - data_offset < sizeof h ||
            fz7_volumes_pread(a->vol, h, sizeof h, data_offset) != FZ7_OK || memcmp(h, "cxsparse", 8) ||
            vhd_checksum(h, sizeof h, 36) != fz7_get32be(h + 36))
            goto not_vhd;
        uint64_t bat = get64be(h + 16);
        uint32_t entries = fz7_get32be(h + 28);
        block = fz7_get32be(h + 32);
        /* blocks of a power of two sectors (2 MiB as a rule); the BAT in
         * the file and covering the disk */
        /* (the BAT is read in whole sectors: 7-Zip refuses a file that
         * ends inside its last one) */
        if (block < VD_SECTOR || (block & (block - 1)) || bat > a->file_size ||
            (a->file_size - bat) / VD_SECTOR < ((uint64_t)entries * 4 + VD_SECTOR - 1) / VD_SECTOR ||
            (uint64_t)entries * block < size ||
            (uint64_t)entries * sizeof *p->map > a->opts.mem_limit / 2)
            goto not_vhd;
        uint8_t *chunk;
        fz7_status st = map_alloc(p, size, block, &chunk);
        /* each block's data follows its sector bitmap: a bit a sector,
         * in whole sectors (spec: Block Allocation Table) */
        uint64_t bitmap = ((uint64_t)block / VD_SECTOR + 8 * VD_SECTOR - 1) / (8 * VD_SECTOR) * VD_SECTOR;
        packed = 0;
        end = bat + (uint64_t)entries * 4 > data_offset + sizeof h ? bat + (uint64_t)entries * 4 : data_offset + sizeof h;
        for (uint64_t i = 0; st == FZ7_OK && i < p->n_blocks; i++) {
            uint32_t sector;
            if ((st = table_entry(a, chunk, bat, p->n_blocks, i, true, &sector)) != FZ7_OK)
                break;
            if (sector == 0xFFFFFFFFu) {
                p->map[i] = FZ7_BLOCK_ZEROS;
                continue;
            }
            p->map[i] = (uint64_t)sector * VD_SECTOR + bitmap;
            packed += block;
            if (p->map[i] + block > end)
                end = p->map[i] + block;
        }
        free(chunk);
        if (st != FZ7_OK) {
            free(p->map);
            free(p);
            return st == FZ7_E_MEM ? st : FZ7_E_FORMAT;
        }
    } else
        goto not_vhd;
    /* The image ends with its footer, or at its last block's end when
     * that is later (a block past the end of a cut file); with the
     * footer lost, a footer after the last block. */
    a->info.phy_size = copy ? end + VD_SECTOR : end > a->file_size ? end : a->file_size;
    if (copy && a->info.phy_size <= a->file_size)   /* (not cut: 7-Zip refuses it) */
        goto not_vhd_map;
    if (a->info.phy_size > a->file_size) {
        a->info.open_error = "Unexpected end of archive";
    }
    size_t k = 0;
    vhd_lines(p, f, &k);
    if (type == 3)
        p->lines[k++] = (fz7_prop){.name = "Cluster Size", .value = vd_put(p, "%u", (unsigned)block)};
    p->lines[k++] = (fz7_prop){.name = "Method", .value = type == 2 ? "Fixed" : "Dynamic"};
    p->lines[k++] =
        (fz7_prop){.name = "Total Physical Size", .value = vd_put(p, "%llu", (unsigned long long)a->info.phy_size)};
    /* "qemu 5.3": the creator's four characters (spaces and NULs at
     * their end dropped), its version as major.minor */
    char app[5], os[5];
    memcpy(app, f + 28, 4);
    memcpy(os, f + 36, 4);
    app[4] = os[4] = 0;
    for (int j = (int)strlen(app) - 1; j >= 0 && app[j] == ' '; j--)
        app[j] = 0;
    uint32_t ver = fz7_get32be(f + 32);
    p->lines[k++] = (fz7_prop){.name = "Creator Application",
                               .value = vd_put(p, "%s %u.%u", app, (unsigned)(ver >> 16), (unsigned)(ver & 0xFFFF))};
    /* "Wi2k" is Windows; 7-Zip shows any other code as it is */
    p->lines[k++] = (fz7_prop){.name = "Host OS", .value = !strcmp(os, "Wi2k") ? "Windows" : vd_put(p, "%s", os)};
    p->lines[k++] = (fz7_prop){.name = "Saved State", .value = f[84] ? "+" : "-"};
    char id[33];
    for (int j = 0; j < 16; j++)
        snprintf(id + 2 * j, 3, "%02X", f[68 + j]);
    p->lines[k++] = (fz7_prop){.name = "ID", .value = vd_put(p, "%s", id)};
    a->info.n_block_lines = k;
    a->info.type_name = "VHD";
    return vd_finish(a, p, size, packed);
not_vhd_map:
    free(p->map);
not_vhd:
    free(p);
    return FZ7_E_FORMAT;
}

/* ---- VDI ---- */

#define VDI_SIGNATURE 0xBEDA107Fu
#define VDI_HEADER_AT 64    /* the signature; a text line before it */
#define VDI_V11_SIZE 384    /* header bytes from VDI_HEADER_AT + 8 on (to the UUIDs' end) */
#define VDI_FREE 0xFFFFFFFEu   /* block map values of no stored block */

/* A VirtualBox UUID as text: the first three fields are little-endian. */
static const char *vdi_uuid(vd_priv *p, const uint8_t *g)
{
    return vd_put(p, "{%08x-%04x-%04x-%02x%02x-%02x%02x%02x%02x%02x%02x}", (unsigned)fz7_get32le(g),
                  (unsigned)fz7_get16le(g + 4), (unsigned)fz7_get16le(g + 6), g[8], g[9], g[10], g[11], g[12], g[13],
                  g[14], g[15]);
}

fz7_status fz7_vdi_open(fz7_archive *a, char *err, size_t errlen)
{
    (void)err;
    (void)errlen;
    /* the pre-header (a text line, the signature, the version), then the
     * version 1.1 header (offsets from the file's start) */
    uint8_t h[VDI_HEADER_AT + 8 + VDI_V11_SIZE];
    if (a->file_size < sizeof h || fz7_volumes_pread(a->vol, h, sizeof h, 0) != FZ7_OK ||
        fz7_get32le(h + 64) != VDI_SIGNATURE || fz7_get32le(h + 68) >> 16 != 1 || fz7_get32le(h + 72) < VDI_V11_SIZE)
        return FZ7_E_FORMAT;
    uint32_t type = fz7_get32le(h + 76), map_at = fz7_get32le(h + 340), data_at = fz7_get32le(h + 344);
    uint64_t size = fz7_get64le(h + 368);
    uint32_t block = fz7_get32le(h + 376), n_map = fz7_get32le(h + 384);
    /* normal (dynamic), fixed, undo and differencing images; blocks of a power of two bytes
     * from a sector up, the map in the file and covering the disk */
    if (type < 1 || type > 4 || block < VD_SECTOR || (block & (block - 1)) ||
        map_at > a->file_size || (a->file_size - map_at) / 4 < n_map || (uint64_t)n_map * block < size ||
        (uint64_t)n_map * sizeof(uint64_t) > a->opts.mem_limit / 2)
        return FZ7_E_FORMAT;
    vd_priv *p = calloc(1, sizeof *p);
    if (!p)
        return FZ7_E_MEM;
    uint8_t *chunk;
    fz7_status st = map_alloc(p, size, block, &chunk);
    /* (7-Zip places blocks a block apart whatever the extra data's size
     * says; every writer leaves it 0) */
    uint64_t stride = block, end = data_at + (uint64_t)fz7_get32le(h + 388) * stride, packed = 0;
    for (uint64_t i = 0; st == FZ7_OK && i < p->n_blocks; i++) {
        uint32_t at;
        if ((st = table_entry(a, chunk, map_at, p->n_blocks, i, false, &at)) != FZ7_OK)
            break;
        if (at >= VDI_FREE) {   /* (7-Zip counts a "zero" block, FFFFFFFE, as stored) */
            p->map[i] = FZ7_BLOCK_ZEROS;
            packed += at == VDI_FREE ? block : 0;
            continue;
        }
        if (at >= n_map) {   /* more blocks stored than the disk has: 7-Zip refuses it */
            st = FZ7_E_FORMAT;
            break;
        }
        p->map[i] = data_at + at * stride;
        packed += block;
        if (data_at + (at + 1) * stride > end)
            end = data_at + (at + 1) * stride;
    }
    free(chunk);
    if (st != FZ7_OK) {
        free(p->map);
        free(p);
        return st == FZ7_E_MEM ? st : FZ7_E_FORMAT;
    }
    a->info.phy_size = end;
    if (end > a->file_size)
        a->info.open_error = "Unexpected end of archive";
    else
        a->info.tail_size = a->file_size - end;
    a->info.headers_size = data_at;
    size_t k = 0;
    static const char *const methods[4] = {"Dynamic", "Static", "Undo", "Diff"};
    p->lines[k++] = (fz7_prop){.name = "Method", .value = methods[type - 1]};
    /* the image's UUIDs that are set, as 7-Zip puts them in its Comment
     * (after an empty line, where the description is not shown) */
    static const uint8_t none[16];
    static const char *const uuid_names[4] = {"Creat  : ", "Modif  : ", "Link   : ", "PModif : "};
    char comment[512];
    size_t cl = (size_t)snprintf(comment, sizeof comment, "\n{\n\n");
    for (int j = 0; j < 4 && cl < sizeof comment; j++)
        if (memcmp(h + 392 + 16 * j, none, 16))
            cl += (size_t)snprintf(comment + cl, sizeof comment - cl, "%s%s\n", uuid_names[j],
                                   vdi_uuid(p, h + 392 + 16 * j));
    if (cl < sizeof comment)
        snprintf(comment + cl, sizeof comment - cl, "}");
    p->lines[k++] = (fz7_prop){.name = "Comment", .value = vd_put(p, "%s", comment)};
    p->lines[k++] = (fz7_prop){.name = "Name", .value = vd_put(p, "%s.vdi", vdi_uuid(p, h + 392))};
    a->info.n_block_lines = k;
    a->info.type_name = "VDI";
    /* a disk linked to a parent image (its blocks partly there): 7-Zip
     * lists it but reads none of it */
    p->parent = memcmp(h + 424, none, 16) != 0;
    if (p->parent)
        a->info.open_error = "Unsupported method";
    return vd_finish(a, p, size, packed);
}

/* ---- QCOW ---- */

#define QCOW_MAGIC 0x514649FBu   /* "QFI\xfb" */
#define QCOW2_OFFSET_MASK 0x00FFFFFFFFFFFE00ull   /* L1/L2 entry bits 9-55 */
#define QCOW_COMPRESSED2 ((uint64_t)1 << 62)      /* version 2/3 L2 entry */
#define QCOW_COMPRESSED1 ((uint64_t)1 << 63)      /* version 1 L2 entry */
/* 7-Zip's names of the version 3 incompatible feature bits, low bit first */
static const char *const qcow_incompat[5] = {"Dirty", "Corrupt", "External_Data_File", "Compression", "Extended_L2"};

/* A refusal in the words 7-Zip gives it (its "ERRORS:" block, in err). */
static fz7_status qcow_refuse(vd_priv *p, char *err, size_t errlen, const char *why)
{
    vd_free(p);
    snprintf(err, errlen, "%s", why);
    return FZ7_E_DATA;
}

fz7_status fz7_qcow_open(fz7_archive *a, char *err, size_t errlen)
{
    uint8_t h[104];
    if (a->file_size < 48 || fz7_volumes_pread(a->vol, h, a->file_size < sizeof h ? 48 : sizeof h, 0) != FZ7_OK ||
        fz7_get32be(h) != QCOW_MAGIC)
        return FZ7_E_FORMAT;
    uint32_t version = fz7_get32be(h + 4);
    if (version < 1 || version > 3 || (version > 1 && a->file_size < 72) || (version == 3 && a->file_size < 104))
        return FZ7_E_FORMAT;
    uint64_t size = get64be(h + 24), l1_at;
    unsigned cbits, l2bits;   /* clusters of 2^cbits bytes, L2 tables of 2^l2bits entries */
    uint32_t crypt;
    uint64_t l1_n;
    if (version == 1) {   /* (qcow.c's header: mtime at 20, bit counts at 32 and 33) */
        cbits = h[32];
        l2bits = h[33];
        crypt = fz7_get32be(h + 36);
        l1_at = get64be(h + 40);
        if (cbits < 9 || cbits > 24 || l2bits < 6 || l2bits > 24)
            return FZ7_E_FORMAT;
    } else {   /* (qcow2.txt: Header) */
        cbits = fz7_get32be(h + 20);
        if (cbits < 9 || cbits > 24)
            return FZ7_E_FORMAT;
        l2bits = cbits - 3;   /* an L2 table is one cluster of 8-byte entries */
        crypt = fz7_get32be(h + 32);
        l1_at = get64be(h + 40);
    }
    uint64_t span = (uint64_t)1 << (cbits + l2bits);   /* disk bytes an L2 table maps */
    l1_n = size / span + (size % span != 0);
    if (version > 1 && fz7_get32be(h + 36) < l1_n)
        return FZ7_E_FORMAT;
    if (version > 1)
        l1_n = fz7_get32be(h + 36);   /* (7-Zip reads the whole table the header gives) */
    /* A disk in a backing file: 7-Zip refuses it as of a method it lacks. */
    if (get64be(h + 8))
        return qcow_refuse(NULL, err, errlen,
                           "ERRORS:\nUnsupported method\nWARNINGS:\nThere are data after the end of archive");
    /* the L1 table whole in the file, the map within memory */
    uint64_t l2_bytes = (uint64_t)8 << l2bits, cluster = (uint64_t)1 << cbits;
    if (l1_at > a->file_size || (a->file_size - l1_at) / 8 < l1_n)
        return qcow_refuse(NULL, err, errlen, "ERRORS:\nHeaders Error\nUnexpected end of archive");
    if ((size >> cbits) > a->opts.mem_limit / 2 / sizeof(uint64_t) || l2_bytes > a->opts.mem_limit / 4)
        return FZ7_E_MEMLIMIT;
    vd_priv *p = calloc(1, sizeof *p);
    if (!p)
        return FZ7_E_MEM;
    uint8_t *chunk, *l2 = NULL;
    fz7_status st = map_alloc(p, size, (uint32_t)cluster, &chunk);
    uint64_t end = l1_at + l1_n * 8, tables = 0;   /* end: of the last table or cluster */
    bool deflate = false, qcow1_compressed = false, reserved = false;
    if (st == FZ7_OK && !(l2 = malloc((size_t)l2_bytes)))
        st = FZ7_E_MEM;
    uint64_t l2_at = 0, per = l2_bytes >> 3;
    /* every entry of the L2 tables the disk uses, the last one's past the
     * disk's end too: 7-Zip counts their clusters in the image's size */
    uint64_t n_entries = (p->n_blocks + per - 1) / per * per;
    for (uint64_t c = 0; st == FZ7_OK && c < n_entries; c++) {
        uint64_t j = c & (per - 1);
        bool in_disk = c < p->n_blocks;
        if (j == 0) {   /* the next L2 table */
            uint32_t hi, lo;
            uint64_t i = c >> l2bits;
            if ((st = table_entry(a, chunk, l1_at, 2 * l1_n, 2 * i, true, &hi)) != FZ7_OK ||
                (st = table_entry(a, chunk, l1_at, 2 * l1_n, 2 * i + 1, true, &lo)) != FZ7_OK)
                break;
            l2_at = ((uint64_t)hi << 32 | lo) & (version == 1 ? ~QCOW_COMPRESSED1 : QCOW2_OFFSET_MASK);
            if (l2_at) {
                if (l2_at > a->file_size || a->file_size - l2_at < l2_bytes) {
                    st = FZ7_E_TRUNCATED;
                    break;
                }
                if ((st = fz7_volumes_pread(a->vol, l2, (size_t)l2_bytes, l2_at)) != FZ7_OK)
                    break;
                tables++;
                if (l2_at + l2_bytes > end)
                    end = l2_at + l2_bytes;
            }
        }
        uint64_t e = l2_at ? get64be(l2 + 8 * j) : 0, at, n = cluster;
        if (version == 1 && (e & QCOW_COMPRESSED1)) {
            qcow1_compressed = true;   /* (7-Zip does not read these) */
            if (in_disk)
                p->map[c] = FZ7_BLOCK_ZEROS;
            continue;
        }
        if (version > 1 && (e & QCOW_COMPRESSED2)) {
            /* (qcow2.txt: Compressed Clusters Descriptor: the offset in
             * its low 62 - (cbits - 8) bits, then the additional
             * 512-byte sectors the stream runs into) */
            unsigned x = 62 - (cbits - 8);
            at = e & (((uint64_t)1 << x) - 1);
            n = (((e >> x) & (((uint64_t)1 << (62 - x)) - 1)) + 1) * VD_SECTOR - (at & (VD_SECTOR - 1));
            deflate = true;
            if (in_disk) {
                if (!p->clen && !(p->clen = calloc((size_t)p->n_blocks, sizeof *p->clen))) {
                    st = FZ7_E_MEM;
                    break;
                }
                p->clen[c] = (uint32_t)n;
                p->map[c] = at | VD_DEFLATE;
            }
        } else {
            /* bits 1-8 of a stored cluster's entry are reserved: 7-Zip
             * refuses the image as of a method it lacks */
            if (version > 1 && (e & 0x1FE))
                reserved = true;
            at = e & (version == 1 ? ~QCOW_COMPRESSED1 : QCOW2_OFFSET_MASK);
            /* version 3's bit 0: the cluster reads as zeros, whatever
             * is stored (its place still counts in the image's size) */
            if (in_disk)
                p->map[c] = at && !(version == 3 && (e & 1)) ? at : FZ7_BLOCK_ZEROS;
        }
        if (at && at + n > end)
            end = at + n;
    }
    free(chunk);
    free(l2);
    if (st != FZ7_OK) {
        if (st == FZ7_E_MEM) {
            vd_free(p);
            return st;
        }
        return qcow_refuse(p, err, errlen, "ERRORS:\nHeaders Error\nUnexpected end of archive");
    }
    if (reserved)
        return qcow_refuse(p, err, errlen,
                           end > a->file_size ? "ERRORS:\nUnexpected end of archive\nUnsupported method"
                                              : "ERRORS:\nUnsupported method");
    /* (7-Zip counts a file padded to whole sectors after the last table
     * or cluster, as qemu-img leaves some, as all image) */
    if (end < a->file_size && (end + VD_SECTOR - 1) / VD_SECTOR * VD_SECTOR == a->file_size)
        end = a->file_size;
    a->info.phy_size = end;
    if (end > a->file_size)
        a->info.open_error = "Unexpected end of archive";
    else
        a->info.tail_size = a->file_size - end;
    size_t k = 0;
    p->lines[k++] = (fz7_prop){.name = "Cluster Size", .value = vd_put(p, "%llu", (unsigned long long)cluster)};
    /* (7-Zip gives the cluster as the sector too) */
    p->lines[k++] = (fz7_prop){.name = "Sector Size", .value = vd_put(p, "%llu", (unsigned long long)cluster)};
    p->lines[k++] = (fz7_prop){.name = "Headers Size",
                               .value = vd_put(p, "%llu", (unsigned long long)(l1_n * 8 + tables * l2_bytes))};
    p->lines[k++] = (fz7_prop){.name = "Version", .value = vd_put(p, "%u", (unsigned)version)};
    /* the methods: Deflate when a cluster is compressed, the cipher */
    char m[64] = "";
    if (deflate || qcow1_compressed)
        snprintf(m, sizeof m, "Deflate");
    if (crypt) {
        size_t ml = strlen(m);
        snprintf(m + ml, sizeof m - ml, "%s%s", ml ? " " : "",
                 crypt == 1 ? "AESEncryption:1" : crypt == 2 ? "LUKS" : vd_put(p, "Encryption:%u", (unsigned)crypt));
    }
    if (m[0])
        p->lines[k++] = (fz7_prop){.name = "Method", .value = vd_put(p, "%s", m)};
    uint64_t incompat = version == 3 ? get64be(h + 72) : 0;
    if (incompat) {   /* "incompatible: Dirty 0x20": the bits 7-Zip names, then the rest in hex */
        char c[160];
        size_t cl = (size_t)snprintf(c, sizeof c, "incompatible: "), first = cl;
        for (unsigned b = 0; b < 5; b++)
            if (incompat & ((uint64_t)1 << b))
                cl += (size_t)snprintf(c + cl, sizeof c - cl, "%s%s", cl > first ? " " : "", qcow_incompat[b]);
        /* (7-Zip shows the unnamed bits of the low 32 alone) */
        if (incompat & 0xFFFFFFE0u)
            snprintf(c + cl, sizeof c - cl, "%s0x%llx", cl > first ? " " : "",
                     (unsigned long long)(incompat & 0xFFFFFFE0u));
        p->lines[k++] = (fz7_prop){.name = "Characteristics", .value = vd_put(p, "%s", c)};
    }
    a->info.n_block_lines = k;
    a->info.type_name = "QCOW";
    /* a cipher or version 1's compression: listed, not read */
    if (crypt || qcow1_compressed) {
        p->parent = true;
        a->info.open_error = "Unsupported method";
    }
    return vd_finish(a, p, size, end);
}

/* ---- VMDK ---- */

#define VMDK_MAGIC 0x564D444Bu   /* "KDMV" */
#define VMDK_DESC_MAX (1u << 20) /* descriptor bytes read */

/* The value of "key=value" or `key = "value"` in the descriptor text
 * (its first line with that key), up to its line's end, in p's text; NULL
 * when absent. */
static const char *vmdk_value(vd_priv *p, const char *text, const char *key)
{
    size_t kl = strlen(key);
    for (const char *l = text; *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : l + strlen(l)) {
        if (strncmp(l, key, kl))
            continue;
        const char *v = l + kl;
        while (*v == ' ')
            v++;
        if (*v != '=')
            continue;
        for (v++; *v == ' ';)
            v++;
        size_t n = strcspn(v, "\r\n");
        return vd_put(p, "%.*s", (int)n, v);
    }
    return NULL;
}

/* The quoted file name of the descriptor's first extent line ("RW 16384
 * SPARSE "name.vmdk""), or NULL. */
static const char *vmdk_extent(vd_priv *p, const char *text)
{
    for (const char *l = text; *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : l + strlen(l)) {
        if (strncmp(l, "RW ", 3) && strncmp(l, "RDONLY ", 7) && strncmp(l, "NOACCESS ", 9))
            continue;
        const char *q = strchr(l, '"'), *e = l + strcspn(l, "\r\n");
        if (!q || q > e)
            return NULL;
        const char *r = memchr(q + 1, '"', (size_t)(e - q - 1));
        return r ? vd_put(p, "%.*s", (int)(r - q - 1), q + 1) : NULL;
    }
    return NULL;
}

fz7_status fz7_vmdk_open(fz7_archive *a, char *err, size_t errlen)
{
    uint8_t h[VD_SECTOR];
    if (a->file_size < VD_SECTOR || fz7_volumes_pread(a->vol, h, VD_SECTOR, 0) != FZ7_OK ||
        fz7_get32le(h) != VMDK_MAGIC)
        return FZ7_E_FORMAT;
    /* (spec: SparseExtentHeader, sectors of 512 bytes) */
    uint32_t version = fz7_get32le(h + 4), flags = fz7_get32le(h + 8), per_gt = fz7_get32le(h + 44);
    uint64_t capacity = fz7_get64le(h + 12), grain = fz7_get64le(h + 20), desc_at = fz7_get64le(h + 28),
             desc_n = fz7_get64le(h + 36), gd_at = fz7_get64le(h + 56), overhead = fz7_get64le(h + 64);
    /* versions 1 and 2, no compressed grains or markers (7-Zip refuses a
     * stream-optimized image); grains of a power of two sectors, grain
     * tables of a power of two entries (7-Zip refuses 520) */
    if (version < 1 || version > 2 || (flags & ~3u) || grain < 1 || grain > ((uint64_t)1 << 22) ||
        (grain & (grain - 1)) || per_gt < 1 || per_gt > ((uint32_t)1 << 16) || (per_gt & (per_gt - 1)) ||
        capacity > UINT64_MAX / VD_SECTOR / 2)
        return FZ7_E_FORMAT;
    if (fz7_get16le(h + 77)) {   /* a compression algorithm */
        snprintf(err, errlen, "ERRORS:\nUnsupported method");
        return FZ7_E_DATA;
    }
    uint64_t size = capacity * VD_SECTOR, block = grain * VD_SECTOR, span = block * per_gt;
    uint64_t n_gd = capacity / (grain * per_gt) + (capacity % (grain * per_gt) != 0);
    uint64_t fs = a->file_size / VD_SECTOR;   /* whole sectors in the file */
    if (gd_at > fs || (fs - gd_at) * (VD_SECTOR / 4) < n_gd ||
        (size / block) > a->opts.mem_limit / 2 / sizeof(uint64_t))
        return FZ7_E_FORMAT;
    (void)span;
    vd_priv *p = calloc(1, sizeof *p);
    if (!p)
        return FZ7_E_MEM;
    uint8_t *chunk, *gt = malloc((size_t)per_gt * 4);
    fz7_status st = map_alloc(p, size, (uint32_t)block, &chunk);
    if (st == FZ7_OK && !gt)
        st = FZ7_E_MEM;
    uint64_t end = overhead * VD_SECTOR, gt_at = 0;
    for (uint64_t g = 0; st == FZ7_OK && g < p->n_blocks; g++) {
        uint64_t j = g % per_gt;
        if (j == 0) {   /* the next grain table, whole in the file */
            uint32_t s;
            if ((st = table_entry(a, chunk, gd_at * VD_SECTOR, n_gd, g / per_gt, false, &s)) != FZ7_OK)
                break;
            gt_at = s;
            if (gt_at && (gt_at > fs || (fs - gt_at) * (VD_SECTOR / 4) < per_gt)) {
                st = FZ7_E_FORMAT;
                break;
            }
            if (gt_at && (st = fz7_volumes_pread(a->vol, gt, (size_t)per_gt * 4, gt_at * VD_SECTOR)) != FZ7_OK)
                break;
        }
        uint64_t at = gt_at ? fz7_get32le(gt + 4 * j) : 0;
        if (at && at < overhead) {   /* a grain among the headers: 7-Zip refuses it */
            st = FZ7_E_FORMAT;
            break;
        }
        p->map[g] = at ? at * VD_SECTOR : FZ7_BLOCK_ZEROS;
        if (at && at * VD_SECTOR + block > end)
            end = at * VD_SECTOR + block;
    }
    free(chunk);
    free(gt);
    /* the embedded descriptor: text up to its first NUL */
    uint64_t dn = desc_n * VD_SECTOR;
    if (dn > VMDK_DESC_MAX)
        dn = VMDK_DESC_MAX;
    if (st == FZ7_OK && desc_at && desc_at < fs && dn) {
        if (dn > (fs - desc_at) * VD_SECTOR)
            dn = (fs - desc_at) * VD_SECTOR;
        if (!(p->desc = malloc((size_t)dn + 8)))
            st = FZ7_E_MEM;
        else if (fz7_volumes_pread(a->vol, p->desc + 3, (size_t)dn, desc_at * VD_SECTOR) == FZ7_OK) {
            p->desc[3 + dn] = 0;
            memcpy(p->desc, "\n{\n", 3);   /* 7-Zip's Comment: the text in braces */
            size_t tl = strlen(p->desc);
            memcpy(p->desc + tl, "}", 2);
        } else {
            free(p->desc);
            p->desc = NULL;
        }
    }
    if (st != FZ7_OK) {
        vd_free(p);
        return st;
    }
    a->info.phy_size = end;
    if (end > a->file_size)
        a->info.open_error = "Unexpected end of archive";
    else
        a->info.tail_size = a->file_size - end;
    const char *text = p->desc ? p->desc + 3 : "";
    size_t k = 0;
    p->lines[k++] =
        (fz7_prop){.name = "Total Physical Size", .value = vd_put(p, "%llu", (unsigned long long)end)};
    const char *v = vmdk_value(p, text, "createType");
    if (v)
        p->lines[k++] = (fz7_prop){.name = "Method", .value = v};
    p->lines[k++] = (fz7_prop){.name = "Cluster Size", .value = vd_put(p, "%llu", (unsigned long long)block)};
    p->lines[k++] = (fz7_prop){.name = "Headers Size",
                               .value = vd_put(p, "%llu", (unsigned long long)overhead * VD_SECTOR)};
    if ((v = vmdk_value(p, text, "CID")))
        p->lines[k++] = (fz7_prop){.name = "ID", .value = v};
    if ((v = vmdk_extent(p, text)))
        p->lines[k++] = (fz7_prop){.name = "Name", .value = v};
    if (p->desc)
        p->lines[k++] = (fz7_prop){.name = "Comment", .value = p->desc};
    a->info.n_block_lines = k;
    a->info.type_name = "VMDK";
    /* (7-Zip's packed size: the grains' bytes after the headers) */
    return vd_finish(a, p, size, end - overhead * VD_SECTOR);
}
