/* squashfs_read.c - SquashFS 4.0 images (little-endian), read as 7-Zip
 * reads them. Layout: a 96-byte superblock, the files' data blocks and
 * fragment blocks, then the inode table and the directory table (each a
 * run of metadata blocks: a 16-bit header, bit 15 set = stored, then at
 * most 8 KiB of data), the fragment table, export table and id table
 * (each an array of 64-bit pointers to metadata blocks). Entries are
 * listed as 7-Zip lists them: a folder's entries together, then each
 * one's own, in turn. Compressors: zlib, lzma, xz and zstd through
 * fz7's decoders, lzo through liblzo2 when fz7 was built with it; lz4 is
 * refused at open, as 7-Zip refuses it (E_NOTIMPL). Extended attributes are not read (7-Zip lists
 * none). */
#include "format/archive_impl.h"

#include "codec/codec.h"
#include "lzma/lzma_dec.h"

#ifdef FZ7_HAVE_LZO
#include <lzo/lzo1x.h>
#endif

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define SQ_MAGIC 0x73717368u          /* "hsqs" */
#define SQ_SUPER 96
#define SQ_PROBE 0x77                 /* 7-Zip reads this much of a header first */
#define SQ_META 8192u                 /* a metadata block's data at most */
#define SQ_META_STORED 0x8000u
#define SQ_DATA_STORED (1u << 24)
#define SQ_NO_FRAG 0xFFFFFFFFu
#define SQ_MAX_LEVELS 1024            /* folders within folders */
#define SQ_MAX_NAME 65536u

enum { SQ_ZLIB = 1, SQ_LZMA, SQ_LZO, SQ_XZ, SQ_LZ4, SQ_ZSTD };

/* A zlib block that unpacks to more than a block: 7-Zip's output buffer
 * refuses it with E_FAIL, which ends the extraction (not a Data Error). */
#define SQ_OVERFLOW FZ7_E_ARG
#define SQ_E_FAIL_TEXT "E_FAIL : Unspecified error"

/* One metadata table read whole: its data, and where each block starts
 * packed (from the table's start) and unpacked. */
typedef struct sq_table {
    uint8_t *data;
    size_t len;
    uint32_t *pack, *unpack;   /* n blocks; unpack has n + 1 (the total) */
    size_t n;
} sq_table;

typedef struct sq_node {
    uint32_t pos;              /* where it starts in the inode table's data */
    uint32_t frag, offset;     /* fragment (SQ_NO_FRAG: none), offset in it;
                                  folders: offset in the directory block */
    uint32_t mtime;
    uint64_t size, start;      /* folders: listing bytes, directory block */
    uint16_t type, mode, uid, gid;
    uint8_t list_at;           /* blocks' sizes after this many bytes */
} sq_node;

typedef struct sq_frag {
    uint64_t start;
    uint32_t size;
} sq_frag;

typedef struct sq_priv {
    uint32_t block_size, block_log;
    unsigned method;
    sq_table inodes, dirs;
    sq_node *nodes;
    size_t n_nodes;
    sq_frag *frags;
    size_t n_frags;
    uint32_t *ids;
    size_t n_ids;
    uint32_t *node_of;         /* per entry: its inode */
    uint8_t *dir_seen;         /* per inode: a folder already listed */
    uint64_t path_bytes;       /* paths made so far (bounded) */
    fz7_prop lines[8];
    char cluster[16], characts[256], method_name[16], fs[32];
} sq_priv;

static const char *const method_names[] = {"0", "ZLIB", "LZMA", "LZO", "XZ", "LZ4", "ZSTD"};
static const char *const flag_names[] = {
    "UNCOMPRESSED_INODES", "UNCOMPRESSED_DATA", "CHECK", "UNCOMPRESSED_FRAGMENTS", "NO_FRAGMENTS",
    "ALWAYS_FRAGMENTS", "DUPLICATES_REMOVED", "EXPORTABLE", "UNCOMPRESSED_XATTRS", "NO_XATTRS",
    "COMPRESSOR_OPTIONS", "UNCOMPRESSED_IDS"};

/* Gathers an xz decoder's output into a bounded buffer. */
typedef struct sq_sink {
    uint8_t *out;
    size_t cap, got;
} sq_sink;

static fz7_status sink_data(void *ctx, const uint8_t *p, size_t n)
{
    sq_sink *s = ctx;
    if (n > s->cap - s->got)
        return FZ7_E_DATA;   /* more than a block holds */
    memcpy(s->out + s->got, p, n);
    s->got += n;
    return FZ7_OK;
}

static uint32_t adler32(const uint8_t *p, size_t n)
{
    uint32_t a = 1, b = 0;
    while (n) {
        size_t k = n < 5552 ? n : 5552;   /* sums stay below 2^32 */
        n -= k;
        while (k--) {
            a += *p++;
            b += a;
        }
        a %= 65521;
        b %= 65521;
    }
    return b << 16 | a;
}

/* A zlib stream (RFC 1950) that must fill exactly n bytes: header,
 * Deflate, Adler-32. */
static fz7_status zlib_block(const uint8_t *in, size_t n, uint8_t *out, size_t cap, size_t *got)
{
    if (n < 6 || (in[0] & 0x0F) != 8 || (in[0] >> 4) > 7 || ((unsigned)in[0] << 8 | in[1]) % 31 || (in[1] & 0x20))
        return FZ7_E_DATA;
    fz7_istream *src = fz7_istream_from_memory(in + 2, n - 2), *d = NULL;
    if (!src)
        return FZ7_E_MEM;
    fz7_status st = fz7_deflate_istream_new(src, false, &d);
    if (st == FZ7_OK) {
        size_t k;
        st = fz7_istream_read_upto(d, out, cap, &k);
        *got = k;
        uint8_t extra, tail[8];
        size_t more = 0;
        if (st == FZ7_OK && k == cap)   /* anything past cap is too much */
            st = fz7_istream_read_upto(d, &extra, 1, &more);
        if (st == FZ7_OK && more)
            st = SQ_OVERFLOW;
        if (st == FZ7_OK &&
            (fz7_deflate_istream_tail(d, tail, sizeof tail) != 4 || fz7_get32be(tail) != adler32(out, k)))
            st = FZ7_E_DATA;
    }
    if (st == FZ7_E_TRUNCATED)
        st = FZ7_E_DATA;
    fz7_istream_free(d);
    fz7_istream_free(src);
    return st;
}

/* A block of mksquashfs's lzma: a whole .lzma file (the 13-byte header of
 * lzma-file-format.txt: properties, dictionary size, unpacked size, which
 * mksquashfs fills in; all ones: unknown, the data then ends with the end
 * marker). */
static fz7_status lzma_block(const uint8_t *in, size_t n, uint8_t *out, size_t cap, size_t *got, uint64_t mem_limit)
{
    if (n < 13)
        return FZ7_E_DATA;
    uint64_t size = fz7_get64le(in + 5);
    if (size != UINT64_MAX && size > cap)
        return SQ_OVERFLOW;
    fz7_istream *src = fz7_istream_from_memory(in + 13, n - 13), *d = NULL;
    if (!src)
        return FZ7_E_MEM;
    /* no distance can pass the block's own bytes: a larger dictionary
     * than cap would take memory for nothing */
    uint8_t props[5];
    memcpy(props, in, 5);
    if (fz7_get32le(props + 1) > cap)
        fz7_put32le(props + 1, (uint32_t)cap);
    fz7_status st = fz7_lzma_istream_new(src, props, size, mem_limit, &d);
    if (st == FZ7_OK) {
        size_t k = 0, more = 0;
        uint8_t extra;
        st = fz7_istream_read_upto(d, out, cap, &k);
        *got = k;
        if (st == FZ7_OK && k == cap && size == UINT64_MAX)   /* anything past cap is too much */
            st = fz7_istream_read_upto(d, &extra, 1, &more);
        if (st == FZ7_OK && (more || (size != UINT64_MAX && k != size)))
            st = more ? SQ_OVERFLOW : FZ7_E_DATA;
    }
    fz7_istream_free(d);
    fz7_istream_free(src);
    return st == FZ7_OK || st == FZ7_E_MEM || st == SQ_OVERFLOW ? st : FZ7_E_DATA;
}

#ifdef FZ7_HAVE_LZO
/* A block of LZO1X data (mksquashfs's lzo, of any of its levels: they
 * all decode as LZO1X), checked not to read or write out of bounds. */
static fz7_status lzo_block(const uint8_t *in, size_t n, uint8_t *out, size_t cap, size_t *got)
{
    lzo_uint len = cap;
    int r = lzo1x_decompress_safe(in, n, out, &len, NULL);
    *got = len;
    return r == LZO_E_OK ? FZ7_OK : r == LZO_E_OUTPUT_OVERRUN ? SQ_OVERFLOW : FZ7_E_DATA;
}
#endif

/* Whether fz7 has a decoder for SquashFS compressor id method. */
static bool have_decoder(unsigned method)
{
    switch (method) {
    case SQ_ZLIB: case SQ_LZMA: case SQ_XZ:
        return true;
    case SQ_ZSTD:
        return fz7_zstd_supported();
#ifdef FZ7_HAVE_LZO
    case SQ_LZO:
        return lzo_init() == LZO_E_OK;
#endif
    default:
        return false;
    }
}

/* Unpacks one block (n bytes at in) by the image's method into out, at
 * most cap bytes; *got the bytes it gave. */
static fz7_status sq_unpack(const fz7_archive *a, const uint8_t *in, size_t n, uint8_t *out, size_t cap, size_t *got)
{
    const sq_priv *p = a->priv;
    *got = 0;
    if (p->method == SQ_ZLIB)
        return zlib_block(in, n, out, cap, got);
    if (p->method == SQ_ZSTD)
        return fz7_zstd_decode_block(in, n, out, cap, got);
    uint64_t lim = a->opts.mem_limit < ((uint64_t)64 << 20) ? a->opts.mem_limit : (uint64_t)64 << 20;
    if (p->method == SQ_LZMA)
        return lzma_block(in, n, out, cap, got, lim);
#ifdef FZ7_HAVE_LZO
    if (p->method == SQ_LZO)
        return lzo_block(in, n, out, cap, got);
#endif
    /* xz: the whole input is one or more streams */
    fz7_istream *src = fz7_istream_from_memory(in, n);
    if (!src)
        return FZ7_E_MEM;
    sq_sink s = {out, cap, 0};
    fz7_extract_cb cb = {.ctx = &s, .data = sink_data};
    bool cb_failed = false;
    char detail[128];
    fz7_status st = fz7_xz_decode_istream(src, lim, &cb, &cb_failed, detail, sizeof detail);
    fz7_istream_free(src);
    *got = s.got;
    return st == FZ7_OK || st == FZ7_E_MEM ? st : FZ7_E_DATA;
}

/* Reads the metadata blocks from start to end into t, each block's data
 * unpacked; FZ7_E_FORMAT when one does not read (7-Zip: no archive). */
static fz7_status read_table(fz7_archive *a, uint64_t start, uint64_t end, sq_table *t)
{
    if (end < start || end - start >= ((uint64_t)1 << 32) || end > a->file_size)
        return FZ7_E_FORMAT;
    size_t size = (size_t)(end - start);
    if (size > a->opts.mem_limit / 4)
        return FZ7_E_MEMLIMIT;
    /* each block takes at least 3 bytes and gives at most 8 KiB; the
     * positions are 32-bit, as 7-Zip keeps them */
    uint64_t most = (uint64_t)(size / 3 + 1) * SQ_META;
    if (most > a->opts.mem_limit / 2)
        most = a->opts.mem_limit / 2;
    if (most > UINT32_MAX)
        most = UINT32_MAX;
    uint8_t *raw = malloc(size ? size : 1);
    t->pack = malloc((size / 3 + 1) * sizeof *t->pack);
    t->unpack = malloc((size / 3 + 2) * sizeof *t->unpack);
    if (!raw || !t->pack || !t->unpack) {
        free(raw);
        return FZ7_E_MEM;
    }
    fz7_status st = fz7_volumes_pread(a->vol, raw, size, start);
    size_t cap = 0;
    for (size_t pos = 0; st == FZ7_OK && pos < size;) {
        if (size - pos < 2) {
            st = FZ7_E_FORMAT;
            break;
        }
        unsigned h = fz7_get16le(raw + pos), n = h == SQ_META_STORED ? h : h & 0x7FFF;
        if (n > SQ_META || n > size - pos - 2) {
            st = FZ7_E_FORMAT;
            break;
        }
        if (t->len + SQ_META > most) {
            st = FZ7_E_MEMLIMIT;
            break;
        }
        if (t->len + SQ_META > cap) {
            size_t nc = cap ? 2 * cap : 4 * SQ_META;
            uint8_t *d = realloc(t->data, nc);
            if (!d) {
                st = FZ7_E_MEM;
                break;
            }
            t->data = d;
            cap = nc;
        }
        t->pack[t->n] = (uint32_t)pos;
        t->unpack[t->n++] = (uint32_t)t->len;
        size_t got = n;
        if (h & SQ_META_STORED)
            memcpy(t->data + t->len, raw + pos + 2, n);
        else if ((st = sq_unpack(a, raw + pos + 2, n, t->data + t->len, SQ_META, &got)) != FZ7_OK)
            st = st == FZ7_E_MEM ? st : FZ7_E_FORMAT;
        t->len += got;
        pos += 2 + n;
    }
    t->unpack[t->n] = (uint32_t)t->len;
    free(raw);
    return st;
}

/* One metadata block at offset (a fragment or id table's), unpacked into
 * out (SQ_META bytes); *got its bytes. */
static fz7_status read_meta_block(fz7_archive *a, uint64_t offset, uint8_t *out, size_t *got)
{
    uint8_t buf[SQ_META + 2];
    if (offset > a->file_size || a->file_size - offset < 2)
        return FZ7_E_FORMAT;
    size_t have = a->file_size - offset < sizeof buf ? (size_t)(a->file_size - offset) : sizeof buf;
    fz7_status st = fz7_volumes_pread(a->vol, buf, have, offset);
    if (st != FZ7_OK)
        return st;
    unsigned h = fz7_get16le(buf), n = h == SQ_META_STORED ? h : h & 0x7FFF;
    if (n > SQ_META || n > have - 2)
        return FZ7_E_FORMAT;
    if (h & SQ_META_STORED) {
        memcpy(out, buf + 2, n);
        *got = n;
        return FZ7_OK;
    }
    st = sq_unpack(a, buf + 2, n, out, SQ_META, got);
    return st == FZ7_E_MEM ? st : st != FZ7_OK ? FZ7_E_FORMAT : FZ7_OK;
}

/* A table of count items of item_size bytes behind the pointers at
 * offset (the fragment and id tables): each block full but the last. */
static fz7_status read_indexed(fz7_archive *a, uint64_t offset, uint64_t count, size_t item_size, uint8_t **out)
{
    uint64_t bytes = count * item_size, blocks = (bytes + SQ_META - 1) / SQ_META;
    *out = NULL;
    if (count == 0)
        return FZ7_OK;
    if (offset > a->file_size || blocks > (a->file_size - offset) / 8)
        return FZ7_E_FORMAT;
    uint8_t *ptrs = malloc((size_t)blocks * 8), *data = malloc((size_t)blocks * SQ_META);
    if (!ptrs || !data) {
        free(ptrs);
        free(data);
        return FZ7_E_MEM;
    }
    fz7_status st = fz7_volumes_pread(a->vol, ptrs, (size_t)blocks * 8, offset);
    for (uint64_t i = 0; st == FZ7_OK && i < blocks; i++) {
        size_t got;
        st = read_meta_block(a, fz7_get64le(ptrs + 8 * i), data + i * SQ_META, &got);
        size_t want = i + 1 < blocks || bytes % SQ_META == 0 ? SQ_META : (size_t)(bytes % SQ_META);
        if (st == FZ7_OK && got != want)
            st = FZ7_E_FORMAT;
    }
    free(ptrs);
    if (st != FZ7_OK) {
        free(data);
        return st;
    }
    *out = data;
    return FZ7_OK;
}

/* Blocks stored for a file of size bytes: whole ones, and the tail too
 * unless a fragment holds it. */
static uint64_t node_blocks(const sq_priv *p, const sq_node *n)
{
    return (n->size >> p->block_log) + (n->frag == SQ_NO_FRAG && (n->size & (p->block_size - 1)) != 0);
}

/* Parses the inode at q (rem bytes left in the table) into n; returns
 * its length, 0 when it does not parse. */
static uint32_t parse_inode(const sq_priv *p, const uint8_t *q, uint32_t rem, sq_node *n)
{
    if (rem < 20)
        return 0;
    n->type = fz7_get16le(q);
    n->mode = fz7_get16le(q + 2);
    n->uid = fz7_get16le(q + 4);
    n->gid = fz7_get16le(q + 6);
    n->mtime = fz7_get32le(q + 8);
    n->size = n->start = 0;
    n->frag = SQ_NO_FRAG;
    n->offset = 0;
    uint64_t len;
    switch (n->type) {
    case 2:   /* file */
    case 9:   /* file with more fields */
        if (n->type == 2) {
            if (rem < 32)
                return 0;
            n->start = fz7_get32le(q + 16);
            n->frag = fz7_get32le(q + 20);
            n->offset = fz7_get32le(q + 24);
            n->size = fz7_get32le(q + 28);
            n->list_at = 32;
        } else {
            if (rem < 56)
                return 0;
            n->start = fz7_get64le(q + 16);
            n->size = fz7_get64le(q + 24);
            n->frag = fz7_get32le(q + 44);
            n->offset = fz7_get32le(q + 48);
            n->list_at = 56;
        }
        len = n->list_at + node_blocks(p, n) * 4;
        return len <= rem ? (uint32_t)len : 0;
    case 1:   /* folder */
        if (rem < 32)
            return 0;
        n->start = fz7_get32le(q + 16);
        n->size = fz7_get16le(q + 24);
        n->offset = fz7_get16le(q + 26);
        return 32;
    case 8: { /* folder with an index */
        if (rem < 40)
            return 0;
        n->size = fz7_get32le(q + 20);
        n->start = fz7_get32le(q + 24);
        n->offset = fz7_get16le(q + 34);
        uint32_t count = fz7_get16le(q + 32), at = 40;
        for (uint32_t i = 0; i < count; i++) {
            if (rem - at < 12)
                return 0;
            uint32_t nl = fz7_get32le(q + at + 8);
            if (nl > 1024 || rem - at - 12 < nl + 1)
                return 0;
            at += 12 + nl + 1;
        }
        return at;
    }
    case 3:   /* symbolic link */
    case 10:
        if (rem < 24)
            return 0;
        n->size = fz7_get32le(q + 20);
        len = 24 + n->size + (n->type == 10 ? 4 : 0);
        return n->size <= (1u << 30) && len <= rem ? (uint32_t)len : 0;
    case 4: case 5:    /* devices */
        return rem >= 24 ? 24 : 0;
    case 11: case 12:
        return rem >= 28 ? 28 : 0;
    case 6: case 7:    /* fifo, socket */
        return 20;
    case 13: case 14:
        return rem >= 24 ? 24 : 0;
    }
    return 0;
}

static bool node_is_dir(const sq_node *n) { return n->type == 1 || n->type == 8; }
static bool node_is_link(const sq_node *n) { return n->type == 3 || n->type == 10; }

/* The index of the first of the n sorted values v equal to x, or -1. */
static long find_sorted(const uint32_t *v, size_t n, uint32_t x)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (v[mid] < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && v[lo] == x ? (long)lo : -1;
}

/* The inode that starts at offset in the block at block (from the inode
 * table's start), or -1. */
static long node_at(const sq_priv *p, uint32_t block, uint32_t offset)
{
    long b = find_sorted(p->inodes.pack, p->inodes.n, block);
    if (b < 0)
        return -1;
    uint64_t pos = (uint64_t)p->inodes.unpack[b] + offset;
    size_t lo = 0, hi = p->n_nodes;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (p->nodes[mid].pos < pos)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < p->n_nodes && p->nodes[lo].pos == pos ? (long)lo : -1;
}

/* Adds entry name (len bytes) in folder parent (-1: the root). */
static fz7_status add_entry(fz7_archive *a, size_t *cap, long parent, const uint8_t *name, size_t len)
{
    sq_priv *p = a->priv;
    char *path = NULL;
    fz7_status st = fz7_child_path(a, parent, name, len, &p->path_bytes, &path);
    size_t was = *cap;
    if (st == FZ7_OK)
        st = fz7_grow((void **)&a->entries, a->count, cap, sizeof *a->entries, 64, a->opts.mem_limit);
    if (st == FZ7_OK && *cap != was) {
        uint32_t *no = realloc(p->node_of, *cap * sizeof *no);
        if (no)
            p->node_of = no;
        else
            st = FZ7_E_MEM;
    }
    if (st != FZ7_OK) {
        free(path);
        return st;
    }
    fz7_entry *e = &a->entries[a->count];
    memset(e, 0, sizeof *e);
    e->path = path;
    e->folder = -1;
    e->method = "";
    p->node_of[a->count++] = UINT32_MAX;
    return FZ7_OK;
}

/* Lists the folder whose inode is at (block, offset) as entry self (-1:
 * the root), and each of its folders after its entries, as 7-Zip does. */
static fz7_status open_dir(fz7_archive *a, size_t *cap, long self, uint32_t block, uint32_t offset, unsigned level)
{
    sq_priv *p = a->priv;
    if (level > SQ_MAX_LEVELS)
        return FZ7_E_FORMAT;
    long ni = node_at(p, block, offset);
    if (ni < 0)
        return FZ7_E_FORMAT;
    if (self >= 0)
        p->node_of[self] = (uint32_t)ni;
    const sq_node *n = &p->nodes[ni];
    if (!node_is_dir(n))
        return FZ7_OK;
    if (p->dir_seen[ni])   /* a folder inside itself: the image is damaged */
        return FZ7_E_FORMAT;
    p->dir_seen[ni] = 1;
    if (n->start > UINT32_MAX)
        return FZ7_E_FORMAT;
    long b = find_sorted(p->dirs.pack, p->dirs.n, (uint32_t)n->start);
    if (b < 0)
        return FZ7_E_FORMAT;
    uint64_t pos = (uint64_t)p->dirs.unpack[b] + n->offset;
    if (pos > p->dirs.len || n->size < 3 || n->size - 3 > p->dirs.len - pos)
        return FZ7_E_FORMAT;   /* (a listing's size counts 3 bytes more) */
    const uint8_t *q = p->dirs.data + pos;
    uint64_t rem = n->size - 3;
    size_t first = a->count;
    /* the entries' inodes, until each is opened in turn below */
    uint32_t *blk = NULL, *off = NULL;
    size_t kcap = 0, k = 0;
    fz7_status st = FZ7_OK;
    while (rem && st == FZ7_OK) {
        if (rem < 12) {
            st = FZ7_E_FORMAT;
            break;
        }
        uint64_t count = (uint64_t)fz7_get32le(q) + 1;
        uint32_t start = fz7_get32le(q + 4);
        q += 12;
        rem -= 12;
        for (uint64_t i = 0; i < count && st == FZ7_OK; i++) {
            if (rem < 8) {
                st = FZ7_E_FORMAT;
                break;
            }
            uint32_t o = fz7_get16le(q), size = (uint32_t)fz7_get16le(q + 6) + 1;
            q += 8;
            rem -= 8;
            if (rem < size) {
                st = FZ7_E_FORMAT;
                break;
            }
            size_t len = 0;
            while (len < size && q[len])
                len++;
            if ((st = add_entry(a, cap, self, q, len)) != FZ7_OK)
                break;
            q += size;
            rem -= size;
            size_t before = kcap;
            if ((st = fz7_grow((void **)&blk, k, &kcap, sizeof *blk, 16, a->opts.mem_limit)) != FZ7_OK)
                break;
            if (kcap != before) {
                uint32_t *no = realloc(off, kcap * sizeof *off);
                if (!no) {
                    st = FZ7_E_MEM;
                    break;
                }
                off = no;
            }
            blk[k] = start;
            off[k++] = o;
        }
    }
    for (size_t i = 0; i < k && st == FZ7_OK; i++)
        st = open_dir(a, cap, (long)(first + i), blk[i], off[i], level + 1);
    free(blk);
    free(off);
    return st;
}

/* The packed bytes 7-Zip lists for a file: its blocks, and its fragment
 * block when it is the fragment's first file; false when a block is
 * larger than a block may be (7-Zip: no packed size, "Unsupported
 * Method" on extraction). */
static bool pack_size(const fz7_archive *a, const sq_node *n, uint64_t *out)
{
    const sq_priv *p = a->priv;
    *out = 0;
    if (node_is_link(n) || n->size == 0) {
        *out = n->size;
        return true;
    }
    if (n->type != 2 && n->type != 9)
        return false;
    uint64_t nb = node_blocks(p, n);
    const uint8_t *list = p->inodes.data + n->pos + n->list_at;
    for (uint64_t i = 0; i < nb; i++) {
        uint32_t s = fz7_get32le(list + 4 * i) & ~SQ_DATA_STORED;
        if (s > p->block_size)
            return false;
        *out += s;
    }
    if (n->frag != SQ_NO_FRAG) {
        if (n->frag >= p->n_frags)
            return false;
        uint32_t s = p->frags[n->frag].size & ~SQ_DATA_STORED;
        if (s > p->block_size)
            return false;
        if (n->offset == 0)
            *out += s;
    }
    return true;
}

/* Fills the entries' fields from their inodes. */
static void fill_entries(fz7_archive *a)
{
    sq_priv *p = a->priv;
    for (size_t i = 0; i < a->count; i++) {
        fz7_entry *e = &a->entries[i];
        const sq_node *n = &p->nodes[p->node_of[i]];
        static const uint32_t type_mode[] = {0, S_IFDIR, S_IFREG, S_IFLNK, S_IFBLK, S_IFCHR, S_IFIFO, S_IFSOCK};
        uint32_t mode = type_mode[n->type > 7 ? n->type - 7 : n->type] | (n->mode & 0xFFF);
        e->is_dir = node_is_dir(n);
        e->is_symlink = node_is_link(n);
        e->has_mtime = true;
        e->mtime = n->mtime;
        e->mtime_prec = FZ7_MTIME_SECONDS;
        e->has_attrib = true;
        e->attrib = 0x8000u | mode << 16 | (e->is_dir ? 0x10u : 0);
        e->mode = (e->is_dir ? S_IFDIR : e->is_symlink ? S_IFLNK : S_IFREG) | (n->mode & 07777);
        if (e->is_dir)
            continue;
        e->has_size = true;
        e->size = n->size;
        e->has_stream = n->size > 0;
        uint64_t ps;
        if (pack_size(a, n, &ps)) {
            e->packed_size = ps;
            e->packed_known = true;
        }
    }
}

/* The lines of the archive's block after Headers Size. */
static void block_lines(fz7_archive *a, uint32_t mkfs_time, unsigned flags)
{
    sq_priv *p = a->priv;
    size_t k = 0, used = 0;
    snprintf(p->fs, sizeof p->fs, "SquashFS 4.0");
    if (p->method < sizeof method_names / sizeof method_names[0])
        snprintf(p->method_name, sizeof p->method_name, "%s", method_names[p->method]);
    else
        snprintf(p->method_name, sizeof p->method_name, "%u", p->method);
    snprintf(p->cluster, sizeof p->cluster, "%u", (unsigned)p->block_size);
    for (unsigned b = 0; b < 16; b++) {
        if (!(flags & (1u << b)))
            continue;
        const char *w = b < sizeof flag_names / sizeof flag_names[0] ? flag_names[b] : NULL;
        char hex[16];
        if (!w) {   /* bits without a name, together in hex */
            snprintf(hex, sizeof hex, "0x%X", flags & ~((1u << b) - 1));
            w = hex;
            b = 16;
        }
        used += (size_t)snprintf(p->characts + used, sizeof p->characts - used, "%s%s", used ? " " : "", w);
    }
    p->lines[k++] = (fz7_prop){.name = "File System", .value = p->fs};
    p->lines[k++] = (fz7_prop){.name = "Method", .value = p->method_name};
    p->lines[k++] = (fz7_prop){.name = "Cluster Size", .value = p->cluster};
    p->lines[k++] = (fz7_prop){.name = "Big-endian", .value = "-"};
    if (mkfs_time)
        p->lines[k++] = (fz7_prop){.name = "Created", .sec = mkfs_time, .digits = 0};
    p->lines[k++] = (fz7_prop){.name = "Characteristics", .value = p->characts};
    /* a name that is no UTF-8 makes 7-Zip read every name in the OEM code page */
    bool utf8 = true;
    for (size_t i = 0; i < a->count && utf8; i++)
        utf8 = fz7_utf8_valid(a->entries[i].path);
    p->lines[k++] = (fz7_prop){.name = "Code Page", .value = utf8 ? "UTF-8" : "OEM"};
    a->info.block_lines = p->lines;
    a->info.n_block_lines = k;
}

/* One data block or fragment block of size word w at offset, unpacked
 * into out (block_size bytes); *got its bytes. */
static fz7_status read_data_block(fz7_archive *a, uint64_t offset, uint32_t w, uint8_t *pack, uint8_t *out,
                                  size_t *got)
{
    sq_priv *p = a->priv;
    uint32_t n = w & ~SQ_DATA_STORED;
    *got = 0;
    if (n == 0) {   /* a hole: zeros */
        memset(out, 0, p->block_size);
        *got = p->block_size;
        return FZ7_OK;
    }
    if (n > p->block_size || offset > a->file_size || a->file_size - offset < n)
        return FZ7_E_DATA;
    fz7_status st = fz7_volumes_pread(a->vol, w & SQ_DATA_STORED ? out : pack, n, offset);
    if (st != FZ7_OK)
        return st == FZ7_E_TRUNCATED ? FZ7_E_DATA : st;
    if (w & SQ_DATA_STORED) {
        *got = n;
        return FZ7_OK;
    }
    st = sq_unpack(a, pack, n, out, p->block_size, got);
    return st == FZ7_OK || st == FZ7_E_MEM || st == SQ_OVERFLOW ? st : FZ7_E_DATA;
}

/* Hands a file's data to cb->data: its blocks, then its fragment's part.
 * FZ7_E_DATA / FZ7_E_UNSUPPORTED for the entry; else the callback's. */
/* The fragment block last unpacked (files share them): where, its size
 * word, its bytes. */
typedef struct sq_frag_cache {
    uint8_t *buf;
    size_t len;
    uint64_t start;
    uint32_t size;
    bool valid;
} sq_frag_cache;

static fz7_status file_data(fz7_archive *a, const sq_node *n, uint8_t *pack, uint8_t *blk, sq_frag_cache *fc,
                            const fz7_extract_cb *cb, bool *cb_failed)
{
    sq_priv *p = a->priv;
    uint64_t dummy;
    if (!pack_size(a, n, &dummy))
        return FZ7_E_UNSUPPORTED;
    uint64_t nb = node_blocks(p, n), left = n->size, at = n->start;
    const uint8_t *list = p->inodes.data + n->pos + n->list_at;
    for (uint64_t i = 0; i < nb && left; i++) {
        uint32_t w = fz7_get32le(list + 4 * i);
        size_t got;
        fz7_status st = read_data_block(a, at, w, pack, blk, &got);
        if (st != FZ7_OK)
            return st;
        size_t need = left < p->block_size ? (size_t)left : p->block_size;
        if (got < need)
            return FZ7_E_DATA;
        if ((st = cb->data(cb->ctx, blk, need)) != FZ7_OK) {
            *cb_failed = true;
            return st;
        }
        left -= need;
        at += w & ~SQ_DATA_STORED;
    }
    if (!left)
        return FZ7_OK;
    if (n->frag == SQ_NO_FRAG)
        return FZ7_E_DATA;
    const sq_frag *f = &p->frags[n->frag];
    if (!fc->valid || fc->start != f->start || fc->size != f->size) {
        fc->valid = false;
        fz7_status st = read_data_block(a, f->start, f->size, pack, fc->buf, &fc->len);
        if (st != FZ7_OK)
            return st;
        *fc = (sq_frag_cache){fc->buf, fc->len, f->start, f->size, true};
    }
    if (n->offset > fc->len || left > fc->len - n->offset)
        return FZ7_E_DATA;
    fz7_status st = cb->data(cb->ctx, fc->buf + n->offset, (size_t)left);
    *cb_failed = st != FZ7_OK;
    return st;
}

static fz7_status sq_extract(fz7_archive *a, const bool *select, const fz7_extract_cb *cb, char *err, size_t errlen)
{
    sq_priv *p = a->priv;
    uint8_t *pack = malloc(p->block_size), *blk = malloc(p->block_size);
    sq_frag_cache fc = {.buf = malloc(p->block_size)};
    fz7_status st = pack && blk && fc.buf ? FZ7_OK : FZ7_E_MEM;
    for (size_t i = 0; i < a->count && st == FZ7_OK; i++) {
        if (select && !select[i])
            continue;
        const fz7_entry *e = &a->entries[i];
        const sq_node *n = &p->nodes[p->node_of[i]];
        if ((st = cb->begin(cb->ctx, i, e)) != FZ7_OK)
            break;
        fz7_status r = FZ7_OK;
        bool cb_failed = false;
        if (e->is_symlink) {
            r = cb->data(cb->ctx, p->inodes.data + n->pos + 24, (size_t)n->size);
            cb_failed = r != FZ7_OK;
        } else if (!e->is_dir && e->size) {
            r = file_data(a, n, pack, blk, &fc, cb, &cb_failed);
        }
        if (r == SQ_OVERFLOW) {
            snprintf(err, errlen, "%s", SQ_E_FAIL_TEXT);
            st = FZ7_E_DATA;
            break;
        }
        if (fz7_entry_done(cb, i, r, cb_failed, r == FZ7_E_DATA ? "a block does not unpack to the file's bytes" : NULL,
                           err, errlen, &st))
            break;
    }
    free(pack);
    free(blk);
    free(fc.buf);
    return st;
}

static size_t sq_props(const fz7_archive *a, size_t i, fz7_prop *pr, char *buf, size_t cap)
{
    const sq_priv *p = a->priv;
    const fz7_entry *e = &a->entries[i];
    const sq_node *n = &p->nodes[p->node_of[i]];
    size_t k = 0, used = 0;
    char m[11];
    fz7_mode_string(e->attrib >> 16, m);
    fz7_prop_text(pr, &k, "Path", e->path);
    fz7_prop_text(pr, &k, "Folder", e->is_dir ? "+" : "-");
    fz7_prop_text(pr, &k, "Size", e->is_dir ? "" : fz7_prop_put(buf, cap, &used, "%llu", (unsigned long long)e->size));
    fz7_prop_text(pr, &k, "Packed Size",
                  e->packed_known ? fz7_prop_put(buf, cap, &used, "%llu", (unsigned long long)e->packed_size) : "");
    fz7_prop_time(pr, &k, "Modified", true, e->mtime, 0, 0);
    fz7_prop_text(pr, &k, "Mode", fz7_prop_put(buf, cap, &used, "%s", m));
    fz7_prop_text(pr, &k, "User ID",
                  n->uid < p->n_ids ? fz7_prop_put(buf, cap, &used, "%u", (unsigned)p->ids[n->uid]) : "");
    fz7_prop_text(pr, &k, "Group ID",
                  n->gid < p->n_ids ? fz7_prop_put(buf, cap, &used, "%u", (unsigned)p->ids[n->gid]) : "");
    return k;
}

static void sq_close(fz7_archive *a)
{
    sq_priv *p = a->priv;
    if (p) {
        free(p->inodes.data);
        free(p->inodes.pack);
        free(p->inodes.unpack);
        free(p->dirs.data);
        free(p->dirs.pack);
        free(p->dirs.unpack);
        free(p->nodes);
        free(p->frags);
        free(p->ids);
        free(p->node_of);
        free(p->dir_seen);
    }
    free(p);
    a->priv = NULL;
}

static const fz7_archive_ops sq_ops = {sq_extract, sq_close, sq_props};

/* Everything after the superblock h: tables, inodes, the folder tree. */
static fz7_status read_image(fz7_archive *a, const uint8_t *h)
{
    sq_priv *p = a->priv;
    uint64_t n_inodes = fz7_get32le(h + 4), n_frags = fz7_get32le(h + 16);
    uint64_t root = fz7_get64le(h + 32), bytes_used = fz7_get64le(h + 40), id_table = fz7_get64le(h + 48);
    uint64_t inode_table = fz7_get64le(h + 64), dir_table = fz7_get64le(h + 72), frag_table = fz7_get64le(h + 80);
    fz7_status st;
    /* fragments: 16 bytes each (start, size, unused); each has a block of
     * its own in the file, so there are never more than its bytes */
    if (n_frags) {
        uint8_t *t;
        if (n_frags > a->file_size || n_frags > (1u << 28))
            return FZ7_E_FORMAT;
        if ((st = read_indexed(a, frag_table, n_frags, 16, &t)) != FZ7_OK)
            return st;
        p->frags = malloc((size_t)n_frags * sizeof *p->frags);
        if (!p->frags) {
            free(t);
            return FZ7_E_MEM;
        }
        for (size_t i = 0; i < n_frags; i++)
            p->frags[i] = (sq_frag){fz7_get64le(t + 16 * i), fz7_get32le(t + 16 * i + 8)};
        p->n_frags = (size_t)n_frags;
        free(t);
    }
    if ((st = read_table(a, inode_table, dir_table, &p->inodes)) != FZ7_OK ||
        (st = read_table(a, dir_table, frag_table, &p->dirs)) != FZ7_OK)
        return st;
    if ((root >> 16) >= ((uint64_t)1 << 32) || n_inodes > p->inodes.len / 20)
        return FZ7_E_FORMAT;
    p->nodes = malloc((n_inodes ? (size_t)n_inodes : 1) * sizeof *p->nodes);
    p->dir_seen = calloc(n_inodes ? (size_t)n_inodes : 1, 1);
    if (!p->nodes || !p->dir_seen)
        return FZ7_E_MEM;
    uint32_t pos = 0;
    for (size_t i = 0; i < n_inodes; i++) {
        uint32_t len = parse_inode(p, p->inodes.data + pos, (uint32_t)(p->inodes.len - pos), &p->nodes[i]);
        if (!len)
            return FZ7_E_FORMAT;
        p->nodes[i].pos = pos;
        pos += len;
    }
    p->n_nodes = (size_t)n_inodes;
    if (pos != p->inodes.len)
        return FZ7_E_FORMAT;
    size_t cap = 0;
    if ((st = open_dir(a, &cap, -1, (uint32_t)(root >> 16), (uint32_t)(root & 0xFFFF), 0)) != FZ7_OK)
        return st;
    /* ids: 4 bytes each */
    p->n_ids = fz7_get16le(h + 26);
    uint8_t *t = NULL;
    if ((st = read_indexed(a, id_table, p->n_ids, 4, &t)) != FZ7_OK)
        return st;
    p->ids = malloc((p->n_ids ? p->n_ids : 1) * sizeof *p->ids);
    if (!p->ids) {
        free(t);
        return FZ7_E_MEM;
    }
    for (size_t i = 0; i < p->n_ids; i++)
        p->ids[i] = fz7_get32le(t + 4 * i);
    free(t);
    /* the image is padded to 4 KiB with zeros: those count when present */
    uint64_t phy = bytes_used, pad = (0 - bytes_used) & 4095;
    uint8_t zeros[4096];
    if (pad && a->file_size - bytes_used >= pad &&
        fz7_volumes_pread(a->vol, zeros, (size_t)pad, bytes_used) == FZ7_OK) {
        size_t i = 0;
        while (i < pad && !zeros[i])
            i++;
        if (i == pad)
            phy += pad;
    }
    a->info.phy_size = phy;
    a->info.tail_size = a->file_size - phy;
    a->info.headers_size = phy - inode_table;
    return FZ7_OK;
}

fz7_status fz7_squashfs_open(fz7_archive *a, char *err, size_t errlen)
{
    uint8_t h[SQ_PROBE];
    if (a->file_size < SQ_PROBE || fz7_volumes_pread(a->vol, h, sizeof h, 0) != FZ7_OK || fz7_get32le(h) != SQ_MAGIC)
        return FZ7_E_FORMAT;
    unsigned major = fz7_get16le(h + 28), log = fz7_get16le(h + 22), method = fz7_get16le(h + 20);
    uint32_t bs = fz7_get32le(h + 12);
    uint64_t bytes_used = fz7_get64le(h + 40), id_table = fz7_get64le(h + 48);
    uint64_t inode_table = fz7_get64le(h + 64), dir_table = fz7_get64le(h + 72), frag_table = fz7_get64le(h + 80);
    if (major < 4)   /* SquashFS 1 to 3 (7-Zip reads them; fz7 does not) */
        return FZ7_E_FORMAT;
    if (!(inode_table < dir_table && dir_table <= frag_table && frag_table <= bytes_used && id_table <= bytes_used &&
          log >= 12 && log < 31 && bs == (1u << log)))
        return FZ7_E_FORMAT;
    if (major > 4 || log > 23 || !have_decoder(method)) {
        /* a compressor fz7 has no decoder for: 7-Zip's word for lz4 */
        snprintf(err, errlen, "%s", FZ7_E_NOTIMPL_TEXT);
        return FZ7_E_UNSUPPORTED;
    }
    if (bytes_used > a->file_size)
        return FZ7_E_FORMAT;   /* its tables are at its end: cut short, nothing reads */
    sq_priv *p = calloc(1, sizeof *p);
    if (!p)
        return FZ7_E_MEM;
    a->priv = p;
    a->ops = &sq_ops;
    p->block_size = bs;
    p->block_log = log;
    p->method = method;
    fz7_status st = read_image(a, h);
    if (st == FZ7_OK) {
        fill_entries(a);
        block_lines(a, fz7_get32le(h + 8), fz7_get16le(h + 24));
        a->info.format = FZ7_FORMAT_OTHER;
        a->info.type_name = "SquashFS";
        a->info.method = "";
        return FZ7_OK;
    }
    fz7_archive_free_entries(a);
    sq_close(a);
    a->ops = NULL;
    a->info.phy_size = a->info.tail_size = a->info.headers_size = 0;
    return st == FZ7_E_MEM ? st : FZ7_E_FORMAT;   /* 7-Zip: not an archive it can open */
}
