/* xz_stream.c - .xz read in one forward pass, for input that cannot seek
 * (a pipe: `fz7 x -si -txz`) and for a file whose end is too damaged for
 * xz_read.c, which finds streams from the end (fz7_xz_stream_attach). Here
 * the stream header, blocks, index and footer come in file order
 * (xz-file-format.txt 2, 3, 4), and since nothing can be looked up first
 * the index is checked against the blocks already decoded. */
#include "format/archive_impl.h"
#include "format/xz/xz_parse.h"
#include "lzma/lzma_dec.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define IN_BUF_BYTES ((size_t)64 << 10)
#define OUT_CHUNK ((size_t)256 << 10)      /* bytes per data() call */

static const uint8_t header_magic[6] = {0xFD, '7', 'z', 'X', 'Z', 0x00};
static const uint8_t footer_magic[2] = {'Y', 'Z'};

/* What a block contributed, for the index check (section 4.3). */
typedef struct seen_block {
    uint64_t unpadded, uncompressed;
} seen_block;

typedef struct xzs {
    int fd;                 /* the input, when vol and src are NULL */
    const fz7_volumes *vol; /* or an archive's bytes (a salvaged file) */
    fz7_istream *src;       /* or a stream (a zip entry's data) */
    uint64_t vol_pos, vol_size;
    uint8_t *in;            /* IN_BUF_BYTES of read-ahead */
    size_t in_pos, in_len;
    bool eof, used;         /* used: extraction has run (input consumed) */
    uint64_t consumed;      /* bytes taken from the input so far */
    uint64_t mem_limit;
    seen_block *blocks;     /* blocks of the stream being read */
    size_t nblocks, cap_blocks;
    uint64_t total_blocks, total_streams;
    char detail[192];
    char method[192];       /* fz7_xz_stream_attach's method string */
} xzs;

/* ---- input ------------------------------------------------------------ */

static fz7_status fill(xzs *x)
{
    if (x->in_pos < x->in_len || x->eof)
        return FZ7_OK;
    size_t n = 0;
    if (x->vol) {
        uint64_t left = x->vol_size - x->vol_pos;
        n = left < IN_BUF_BYTES ? (size_t)left : IN_BUF_BYTES;
        if (n && fz7_volumes_pread(x->vol, x->in, n, x->vol_pos) != FZ7_OK)
            return FZ7_E_IO;
        x->vol_pos += n;
    } else if (x->src) {
        fz7_status st = x->src->read(x->src, x->in, IN_BUF_BYTES, &n);
        if (st != FZ7_OK)
            return st;
    } else {
        ssize_t r;
        while ((r = read(x->fd, x->in, IN_BUF_BYTES)) < 0 && errno == EINTR)
            ;
        if (r < 0)
            return FZ7_E_IO;
        n = (size_t)r;
    }
    x->in_pos = 0;
    x->in_len = n;
    x->eof = n == 0;
    return FZ7_OK;
}

/* Up to n bytes (fewer only at end of input). */
static fz7_status in_read(xzs *x, uint8_t *dst, size_t n, size_t *got)
{
    *got = 0;
    while (*got < n) {
        fz7_status st = fill(x);
        if (st != FZ7_OK)
            return st;
        if (x->eof)
            break;
        size_t k = x->in_len - x->in_pos;
        if (k > n - *got)
            k = n - *got;
        memcpy(dst + *got, x->in + x->in_pos, k);
        x->in_pos += k;
        *got += k;
        x->consumed += k;
    }
    return FZ7_OK;
}

static fz7_status in_read_exact(xzs *x, uint8_t *dst, size_t n)
{
    size_t got;
    fz7_status st = in_read(x, dst, n, &got);
    return st != FZ7_OK ? st : got == n ? FZ7_OK : FZ7_E_TRUNCATED;
}

/* The compressed data of one block as an istream: at most `limit` bytes
 * (the header's Compressed Size, or unlimited), counting what the LZMA2
 * decoder takes (it stops right after its end byte). */
typedef struct packed_istream {
    fz7_istream base;
    xzs *x;
    uint64_t limit, used;
} packed_istream;

static fz7_status packed_read(fz7_istream *s, uint8_t *buf, size_t cap, size_t *got)
{
    packed_istream *p = (packed_istream *)s;
    if (cap > p->limit - p->used)
        cap = (size_t)(p->limit - p->used);
    fz7_status st = in_read(p->x, buf, cap, got);
    p->used += *got;
    return st;
}

static void packed_destroy(fz7_istream *s) { (void)s; }

/* ---- headers ----------------------------------------------------------- */

/* Stream flags of a header or footer (section 2.1.1.2): only the check ID
 * may be set. */
static bool flags_ok(const uint8_t f[2]) { return f[0] == 0 && (f[1] & 0xF0) == 0; }

/* ---- blocks ------------------------------------------------------------ */

typedef struct run {
    xzs *x;
    const fz7_extract_cb *cb;
    uint8_t *buf;            /* OUT_CHUNK bytes */
    bool cb_failed;          /* the status came from a callback */
    uint64_t produced;       /* bytes of the whole file so far */
} run;

/* Decodes the block whose header starts with byte first (already read),
 * sends its data on and records its sizes. */
static fz7_status decode_block(run *r, uint8_t first, unsigned check_id)
{
    xzs *x = r->x;
    char *detail = x->detail;
    size_t dlen = sizeof x->detail;
    uint8_t h[FZ7_XZ_BLOCK_HEADER_MAX];
    h[0] = first;
    size_t hsize = ((size_t)first + 1) * 4;
    fz7_status st = in_read_exact(x, h + 1, hsize - 1);
    if (st != FZ7_OK)
        return st;
    fz7_xz_block_header bh;
    if ((st = fz7_xz_block_header_parse(h, hsize, &bh, detail, dlen)) != FZ7_OK)
        return st;
    /* An unknown check ID: decoded, its check (of known size) skipped. */
    unsigned csize = fz7_xz_check_size(check_id);
    packed_istream packed = {{packed_read, packed_destroy}, x,
                             bh.compressed == UINT64_MAX ? FZ7_XZ_VLI_MAX : bh.compressed, 0};
    fz7_istream *stages[4] = {NULL, NULL, NULL, NULL};
    fz7_istream *top = NULL;
    /* A dictionary no larger than the block the header declares. */
    st = fz7_xz_open_chain(&bh, &packed.base, bh.uncompressed, x->mem_limit, stages, &top);
    if (st == FZ7_E_MEMLIMIT)
        fz7_xz_msg(detail, dlen, "LZMA2 dictionary of %" PRIu64 " bytes exceeds the memory limit",
                   fz7_lzma2_dict_size(bh.lzma2_prop));
    fz7_xz_check chk;
    fz7_xz_check_init(&chk, check_id);
    uint64_t produced = 0;
    while (st == FZ7_OK) {
        size_t fill = 0, got = 0;
        while (fill < OUT_CHUNK && (st = top->read(top, r->buf + fill, OUT_CHUNK - fill, &got)) ==
                                       FZ7_OK && got)
            fill += got;
        if (fill == 0)
            break;
        if (bh.uncompressed != UINT64_MAX && fill > bh.uncompressed - produced) {
            fz7_xz_msg(detail, dlen, "Block decodes to more than the %" PRIu64
                       " bytes its header lists", bh.uncompressed);
            st = FZ7_E_DATA;
            break;
        }
        produced += fill;
        r->produced += fill;
        fz7_xz_check_update(&chk, r->buf, fill);
        fz7_status cst = r->cb->data(r->cb->ctx, r->buf, fill);
        if (cst != FZ7_OK) {
            r->cb_failed = true;
            st = cst;
        }
    }
    for (int i = 3; i >= 0; i--)
        fz7_istream_free(stages[i]);
    if (st == FZ7_E_TRUNCATED && packed.used < packed.limit && x->eof)
        return FZ7_E_TRUNCATED; /* the input ended */
    if (st == FZ7_E_TRUNCATED) {
        fz7_xz_msg(detail, dlen, "LZMA2 data runs past the end of its block");
        return FZ7_E_DATA;
    }
    if (st != FZ7_OK) {
        if (!detail[0] && (st == FZ7_E_DATA || st == FZ7_E_CRC))
            fz7_xz_msg(detail, dlen, "Corrupt LZMA2 data in block %" PRIu64, x->total_blocks + 1);
        return st;
    }
    if (bh.compressed != UINT64_MAX && packed.used != bh.compressed) {
        fz7_xz_msg(detail, dlen, "LZMA2 data ends %" PRIu64 " bytes before its block does",
                   bh.compressed - packed.used);
        return FZ7_E_DATA;
    }
    if (bh.uncompressed != UINT64_MAX && produced != bh.uncompressed) {
        fz7_xz_msg(detail, dlen, "Block decodes to %" PRIu64 " bytes, its header lists %" PRIu64,
                   produced, bh.uncompressed);
        return FZ7_E_DATA;
    }
    /* Block padding to 4 bytes (section 3.3), then the check. */
    uint64_t unpadded = hsize + packed.used + csize;
    uint8_t tail[3 + 64];   /* padding, and checks up to 64 bytes (IDs 13-15) */
    size_t pad = (size_t)((4 - (hsize + packed.used) % 4) % 4);
    if ((st = in_read_exact(x, tail, pad + csize)) != FZ7_OK)
        return st;
    for (size_t i = 0; i < pad; i++) {
        if (tail[i] != 0) {
            fz7_xz_msg(detail, dlen, "Block padding is not zero");
            return FZ7_E_CRC; /* 7-Zip: "CRC Failed" */
        }
    }
    if ((st = fz7_xz_check_verify(&chk, tail + pad, detail, dlen)) != FZ7_OK)
        return st;
    if (x->nblocks == x->cap_blocks) {
        size_t cap = x->cap_blocks ? x->cap_blocks * 2 : 64;
        if ((uint64_t)cap * sizeof(seen_block) > x->mem_limit) {
            fz7_xz_msg(detail, dlen, "The stream has more blocks than the memory limit allows");
            return FZ7_E_MEMLIMIT;
        }
        seen_block *b = realloc(x->blocks, cap * sizeof *b);
        if (!b)
            return FZ7_E_MEM;
        x->blocks = b;
        x->cap_blocks = cap;
    }
    x->blocks[x->nblocks++] = (seen_block){unpadded, produced};
    x->total_blocks++;
    return FZ7_OK;
}

/* ---- index and footer (sections 4, 2.1.2) ------------------------------ */

/* Reads the index (its indicator byte 0x00 already read) and the footer,
 * checking both against the blocks seen and the stream header's flags.
 * Disagreements are integrity failures, FZ7_E_CRC, as 7-Zip reports them
 * ("CRC Failed"); an index field that does not parse is FZ7_E_DATA. */
static fz7_status read_index_and_footer(xzs *x, const uint8_t flags[2])
{
    char *detail = x->detail;
    size_t dlen = sizeof x->detail;
    static const uint8_t indicator = 0x00;
    packed_istream src = {{packed_read, packed_destroy}, x, FZ7_XZ_VLI_MAX, 0};
    fz7_xz_index_reader ir = {&src.base, 0, 0};
    fz7_xz_index_took(&ir, &indicator, 1);
    uint64_t count;
    fz7_status st = fz7_xz_index_vli(&ir, &count);
    if (st == FZ7_OK && count != x->nblocks) {
        fz7_xz_msg(detail, dlen, "The index lists %" PRIu64 " blocks, the stream has %zu", count,
                   x->nblocks);
        return FZ7_E_CRC;
    }
    for (size_t i = 0; i < x->nblocks && st == FZ7_OK; i++) {
        uint64_t unpadded, uncompressed;
        if ((st = fz7_xz_index_vli(&ir, &unpadded)) != FZ7_OK ||
            (st = fz7_xz_index_vli(&ir, &uncompressed)) != FZ7_OK)
            break;
        if (unpadded != x->blocks[i].unpadded || uncompressed != x->blocks[i].uncompressed) {
            fz7_xz_msg(detail, dlen, "Index record %zu (%" PRIu64 ", %" PRIu64 ") differs from the "
                       "block (%" PRIu64 ", %" PRIu64 ")", i + 1, unpadded, uncompressed,
                       x->blocks[i].unpadded, x->blocks[i].uncompressed);
            return FZ7_E_CRC;
        }
    }
    if (st == FZ7_OK && (st = fz7_xz_index_padding(&ir)) == FZ7_E_DATA) {
        fz7_xz_msg(detail, dlen, "Index padding is not zero");
        return FZ7_E_CRC;
    }
    if (st == FZ7_OK && (st = fz7_xz_index_crc(&ir)) == FZ7_E_CRC) {
        fz7_xz_msg(detail, dlen, "Index CRC32 mismatch");
        return FZ7_E_CRC;
    }
    if (st == FZ7_E_DATA && !detail[0])
        fz7_xz_msg(detail, dlen, "Bad record in the index");
    if (st != FZ7_OK)
        return st;
    uint8_t f[FZ7_XZ_STREAM_FOOTER_BYTES];
    if ((st = in_read_exact(x, f, sizeof f)) != FZ7_OK)
        return st;
    if (memcmp(f + 10, footer_magic, 2) != 0 || fz7_crc32(0, f + 4, 6) != fz7_get32le(f)) {
        fz7_xz_msg(detail, dlen, "Bad stream footer (magic or CRC32)");
        return FZ7_E_CRC;
    }
    if (((uint64_t)fz7_get32le(f + 4) + 1) * 4 != ir.size + 4) {
        fz7_xz_msg(detail, dlen, "The stream footer's backward size differs from the index size");
        return FZ7_E_CRC;
    }
    if (f[8] != flags[0] || f[9] != flags[1]) {
        fz7_xz_msg(detail, dlen, "Stream header and footer flags differ");
        return FZ7_E_CRC;
    }
    return FZ7_OK;
}

/* Checks a stream header (section 2.1.1); FZ7_E_FORMAT if it is none. */
static fz7_status check_stream_header(const uint8_t h[FZ7_XZ_STREAM_HEADER_BYTES], char *detail,
                                      size_t dlen)
{
    if (memcmp(h, header_magic, sizeof header_magic) != 0) {
        fz7_xz_msg(detail, dlen, "No xz stream header where one must begin");
        return FZ7_E_FORMAT;
    }
    if (fz7_crc32(0, h + 6, 2) != fz7_get32le(h + 8)) {
        fz7_xz_msg(detail, dlen, "Stream header CRC32 mismatch");
        return FZ7_E_DATA;
    }
    if (!flags_ok(h + 6)) {
        fz7_xz_msg(detail, dlen, "Unsupported stream flags %02X %02X", h[6], h[7]);
        return FZ7_E_UNSUPPORTED;
    }
    return FZ7_OK;
}

/* Every stream in turn, with stream padding between them (section 2.2). */
static fz7_status read_streams(run *r)
{
    xzs *x = r->x;
    uint8_t h[FZ7_XZ_STREAM_HEADER_BYTES];
    fz7_status st = in_read_exact(x, h, sizeof h);
    for (;;) {
        if (st == FZ7_OK)
            st = check_stream_header(h, x->detail, sizeof x->detail);
        if (st == FZ7_E_FORMAT)   /* after a whole stream with data: 7-Zip's tail error */
            st = x->total_streams > 0 && x->total_blocks > 0 ? FZ7_E_TAIL : FZ7_E_DATA;
        if (st != FZ7_OK)
            return st;
        x->nblocks = 0;
        uint8_t first;
        while ((st = in_read_exact(x, &first, 1)) == FZ7_OK && first != 0)
            if ((st = decode_block(r, first, h[7] & 0x0F)) != FZ7_OK)
                return st;
        if (st == FZ7_OK)
            st = read_index_and_footer(x, h + 6);
        if (st != FZ7_OK)
            return st;
        x->total_streams++;
        /* Padding: groups of 4 zero bytes, then the end or another stream. */
        size_t got;
        do {
            if ((st = in_read(x, h, 4, &got)) != FZ7_OK)
                return st;
        } while (got == 4 && fz7_get32le(h) == 0);
        if (got == 0)
            return FZ7_OK;
        if (got < 4) {
            fz7_xz_msg(x->detail, sizeof x->detail, "Stream padding is not a multiple of 4 bytes");
            return FZ7_E_TRUNCATED; /* 7-Zip: "Unexpected end of data" */
        }
        st = in_read_exact(x, h + 4, sizeof h - 4);
    }
}

static fz7_status xzs_extract(fz7_archive *a, const bool *select, const fz7_extract_cb *cb,
                              char *err, size_t errlen)
{
    xzs *x = a->priv;
    if (select && !select[0])
        return FZ7_OK;
    if (x->used) {
        fz7_xz_msg(err, errlen, "The input was read once already (it can not seek)");
        return FZ7_E_ARG;
    }
    x->used = true;
    fz7_status st = cb->begin(cb->ctx, 0, &a->entries[0]);
    if (st != FZ7_OK)
        return st;
    run r = {x, cb, malloc(OUT_CHUNK), false, 0};
    if (!r.buf)
        return FZ7_E_MEM;
    x->detail[0] = 0;
    st = read_streams(&r);
    free(r.buf);
    fz7_entry *e = &a->entries[0];
    e->size = r.produced;
    e->has_size = st == FZ7_OK;
    e->packed_size = x->consumed;
    e->has_stream = x->total_blocks > 0;
    e->folder = x->total_blocks > 0 ? 0 : -1;
    a->info.phy_size = x->consumed;
    a->info.num_blocks = x->total_blocks;
    a->info.num_streams = x->total_streams;
    if (r.cb_failed)
        return st;
    if (st == FZ7_E_IO || st == FZ7_E_MEM) {
        fz7_xz_msg(err, errlen, "%s", st == FZ7_E_IO ? "Read error" : "Out of memory");
        return st;
    }
    return cb->end(cb->ctx, 0, st, st == FZ7_OK || !x->detail[0] ? NULL : x->detail);
}

fz7_status fz7_xz_decode_istream(fz7_istream *src, uint64_t mem_limit, const fz7_extract_cb *cb, bool *cb_failed,
                                 char *detail, size_t dlen)
{
    *cb_failed = false;
    xzs x = {.fd = -1, .src = src, .mem_limit = mem_limit};
    run r = {&x, cb, malloc(OUT_CHUNK), false, 0};
    x.in = malloc(IN_BUF_BYTES);
    fz7_status st = r.buf && x.in ? read_streams(&r) : FZ7_E_MEM;
    *cb_failed = r.cb_failed;
    if (st != FZ7_OK && dlen)
        snprintf(detail, dlen, "%s", x.detail);
    free(r.buf);
    free(x.in);
    free(x.blocks);
    return st;
}

static void xzs_close(fz7_archive *a)
{
    xzs *x = a->priv;
    if (!x)
        return;
    free(x->in);
    free(x->blocks);
    free(x);
    a->priv = NULL;
}

static const fz7_archive_ops xzs_ops = {xzs_extract, xzs_close, NULL};

fz7_status fz7_xz_open_pipe(int fd, const uint8_t *head, size_t head_len, const char *name,
                            const fz7_open_opts *opts, fz7_archive **out, char *err, size_t errlen)
{
    *out = NULL;
    if (head_len < sizeof header_magic || memcmp(head, header_magic, sizeof header_magic) != 0) {
        fz7_xz_msg(err, errlen, "Cannot open the file as archive");
        return FZ7_E_FORMAT;
    }
    fz7_archive *a = calloc(1, sizeof *a);
    xzs *x = calloc(1, sizeof *x);
    uint8_t *in = head_len <= IN_BUF_BYTES ? malloc(IN_BUF_BYTES) : NULL;
    fz7_entry *e = calloc(1, sizeof *e);
    char *path = strdup(name && name[0] ? name : "~");
    if (!a || !x || !in || !e || !path) {
        free(a);
        free(x);
        free(in);
        free(e);
        free(path);
        return FZ7_E_MEM;
    }
    a->fd = -1; /* fd stays the caller's */
    a->ops = &xzs_ops;
    a->priv = x;
    a->entries = e;
    a->count = 1;
    e->path = path;
    e->mode = S_IFREG | 0644;
    e->method = "";
    e->has_stream = true;
    x->fd = fd;
    x->in = in;
    memcpy(in, head, head_len);   /* the first bytes stay buffered for extraction */
    x->in_len = head_len;
    if (opts)
        a->opts = *opts;
    if (a->opts.mem_limit == 0)
        a->opts.mem_limit = FZ7_DEFAULT_MEM_LIMIT;
    x->mem_limit = a->opts.mem_limit;
    a->info.format = FZ7_FORMAT_XZ;
    a->info.method = "";
    a->info.piped = true;
    a->info.sizes_unknown = true;   /* until read: 7-Zip shows Path and Type only */
    *out = a;
    return FZ7_OK;
}

fz7_status fz7_xz_stream_attach(fz7_archive *a, const char *method)
{
    xzs *x = calloc(1, sizeof *x);
    uint8_t *in = malloc(IN_BUF_BYTES);
    fz7_entry *e = calloc(1, sizeof *e);
    char *path = fz7_strip_compressed_suffix(a->path);
    if (!x || !in || !e || !path) {
        free(x);
        free(in);
        free(e);
        free(path);
        return FZ7_E_MEM;
    }
    snprintf(x->method, sizeof x->method, "%s", method);
    x->fd = -1;
    x->vol = a->vol;
    x->vol_size = fz7_volumes_size(a->vol);
    x->in = in;
    x->mem_limit = a->opts.mem_limit;
    e->path = path;
    e->mode = S_IFREG | 0644;
    e->method = x->method;
    e->has_stream = true;
    a->ops = &xzs_ops;
    a->priv = x;
    a->entries = e;
    a->count = 1;
    a->info.format = FZ7_FORMAT_XZ;
    a->info.method = x->method;
    a->info.sizes_unknown = true;
    return FZ7_OK;
}
