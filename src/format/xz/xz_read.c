/* xz_read.c - the .xz reader: finds every stream from the end of the file
 * (footer, index, header; xz-file-format.txt 2, 4), lists the file as one
 * entry, and decodes the blocks (3) through LZMA2 and the Delta/BCJ
 * filters (5.3), checking sizes against the index and every check. */
#include "format/archive_impl.h"
#include "format/decode_pool.h"
#include "format/file_io.h"
#include "format/xz/xz_parse.h"
#include "format/xz/xz_vli.h"
#include "lzma/lzma_dec.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define XZ_UNPADDED_MIN 5                    /* section 4.3.1 */
#define XZ_UNPADDED_MAX (FZ7_XZ_VLI_MAX & ~(uint64_t)3)
#define XZ_OUT_CHUNK ((size_t)256 << 10)      /* bytes per data() call */

static const uint8_t xz_header_magic[6] = {0xFD, '7', 'z', 'X', 'Z', 0x00};
static const uint8_t xz_footer_magic[2] = {'Y', 'Z'};

/* One index record (section 4.3). */
typedef struct {
    uint64_t unpadded;
    uint64_t uncompressed;
} xz_record;

typedef struct {
    uint64_t offset;   /* file offset of the stream header */
    unsigned check;    /* check ID from the stream flags, 0..15 */
    size_t first;      /* its records: records[first .. first + count) */
    size_t count;
} xz_stream;

typedef struct {
    xz_stream *streams;
    size_t nstreams, cap_streams;
    xz_record *records;
    size_t nrecords, cap_records;
    char method[192];
    char check[16];     /* info.check: "CRC64", or "Check-N" for others */
    bool header_pack_size, header_unpack_size; /* a first block header has one */
    char characteristics[40];
    bool impossible;    /* the index was read whole and lists sizes no xz
                           file can have: no salvage (7-Zip fails too) */
} xz_priv;

static uint64_t round_up4(uint64_t x) { return (x + 3) & ~(uint64_t)3; }

/* Makes room for `need` items of `size` bytes in *arr (capacity *cap),
 * doubling, and never beyond `limit` bytes: FZ7_E_MEMLIMIT then. */
static fz7_status grow(void **arr, size_t *cap, uint64_t need, size_t size, uint64_t limit)
{
    if (need <= *cap)
        return FZ7_OK;
    if (need > limit / size || need > SIZE_MAX / size)
        return FZ7_E_MEMLIMIT;
    uint64_t n = *cap ? *cap : 16;
    while (n < need)
        n *= 2;
    if (n > limit / size || n > SIZE_MAX / size)
        n = need;
    void *p = realloc(*arr, (size_t)(n * size));
    if (!p)
        return FZ7_E_MEM;
    *arr = p;
    *cap = (size_t)n;
    return FZ7_OK;
}

/* ---- Opening: streams from the end of the file -------------------------- */

/* Parses the index of size `size` at file offset off (section 4), appends its
 * records and returns the total of their padded block sizes. */
static fz7_status parse_index(fz7_archive *a, xz_priv *x, uint64_t off, uint64_t size,
                              uint64_t *blocks_size, uint64_t *total_uncompressed, char *err,
                              size_t errlen)
{
    fz7_istream *in = fz7_volumes_istream_new(a->vol, off, size);
    if (!in)
        return FZ7_E_MEM;
    fz7_xz_index_reader r = {in, 0, 0};
    fz7_status st;
    uint8_t b;
    uint64_t count;
    *blocks_size = 0;

    if ((st = fz7_xz_index_byte(&r, &b)) != FZ7_OK || b != 0x00) {
        fz7_xz_msg(err, errlen, "xz: no index where the stream footer points (offset %" PRIu64 ")", off);
        st = st == FZ7_E_IO ? st : FZ7_E_FORMAT;
        goto out;
    }
    if ((st = fz7_xz_index_vli(&r, &count)) != FZ7_OK || count > (size - 6) / 2) {
        fz7_xz_msg(err, errlen, "xz: bad number of records in the index at offset %" PRIu64, off);
        st = st == FZ7_E_IO ? st : FZ7_E_FORMAT;
        goto out;
    }
    /* The records array is bounded by the index size (>= 2 bytes a record)
     * and by the memory limit. */
    st = grow((void **)&x->records, &x->cap_records, x->nrecords + count, sizeof(xz_record),
              a->opts.mem_limit);
    if (st != FZ7_OK) {
        if (st == FZ7_E_MEMLIMIT)
            fz7_xz_msg(err, errlen, "xz: the index of %" PRIu64
                       " blocks needs more memory than the limit", count);
        goto out;
    }
    for (uint64_t i = 0; i < count; i++) {
        xz_record rec;
        if ((st = fz7_xz_index_vli(&r, &rec.unpadded)) != FZ7_OK ||
            (st = fz7_xz_index_vli(&r, &rec.uncompressed)) != FZ7_OK)
            break;
        if (rec.unpadded < XZ_UNPADDED_MIN || rec.unpadded > XZ_UNPADDED_MAX) {
            st = FZ7_E_FORMAT;
            break;
        }
        uint64_t padded = round_up4(rec.unpadded);
        if (padded > FZ7_XZ_VLI_MAX - *blocks_size ||
            rec.uncompressed > FZ7_XZ_VLI_MAX - *total_uncompressed) {
            x->impossible = true;
            st = FZ7_E_FORMAT;
            break;
        }
        *blocks_size += padded;
        *total_uncompressed += rec.uncompressed;
        x->records[x->nrecords++] = rec;
    }
    if (st != FZ7_OK) {
        fz7_xz_msg(err, errlen, x->impossible ? "xz: the index's sizes add up to more than 2^63-1 (offset %" PRIu64 ")"
                                              : "xz: bad record in the index at offset %" PRIu64, off);
        st = st == FZ7_E_IO ? st : FZ7_E_FORMAT;
        goto out;
    }
    if ((st = fz7_xz_index_padding(&r)) != FZ7_OK) {
        fz7_xz_msg(err, errlen, "xz: index padding is not zero (offset %" PRIu64 ")", off);
        st = st == FZ7_E_IO ? st : FZ7_E_FORMAT;
        goto out;
    }
    if (r.size + 4 != size) {
        fz7_xz_msg(err, errlen, "xz: index size differs from the backward size (offset %" PRIu64 ")",
                   off);
        st = FZ7_E_FORMAT;
        goto out;
    }
    if ((st = fz7_xz_index_crc(&r)) == FZ7_E_CRC)
        fz7_xz_msg(err, errlen, "xz: index CRC32 mismatch (offset %" PRIu64 ")", off);
out:
    fz7_istream_free(in);
    return st;
}

/* Returns the offset where stream padding before pos begins (pos and the
 * result are multiples of 4). */
static fz7_status skip_padding(const fz7_volumes *v, uint64_t pos, uint64_t *out)
{
    uint8_t buf[4096];
    while (pos > 0) {
        size_t n = pos < sizeof buf ? (size_t)pos : sizeof buf;
        fz7_status st = fz7_volumes_pread(v, buf, n, pos - n);
        if (st != FZ7_OK)
            return st;
        for (size_t i = n; i >= 4; i -= 4) {
            if (fz7_get32le(buf + i - 4) != 0) {
                *out = pos - n + i;
                return FZ7_OK;
            }
        }
        pos -= n;
    }
    *out = 0;
    return FZ7_OK;
}

static fz7_status add_stream(xz_priv *x, const xz_stream *s, uint64_t mem_limit)
{
    fz7_status st = grow((void **)&x->streams, &x->cap_streams, x->nstreams + 1, sizeof *s,
                         mem_limit);
    if (st == FZ7_OK)
        x->streams[x->nstreams++] = *s;
    return st;
}

/* Walks the file backwards: stream padding, footer, index, header, and so
 * on to offset 0 (sections 2.1, 2.2). */
static fz7_status scan_streams(fz7_archive *a, xz_priv *x, uint64_t *total, char *err,
                               size_t errlen)
{
    uint64_t pos = a->file_size;
    *total = 0;
    if (pos % 4 != 0) {
        fz7_xz_msg(err, errlen, "xz: file size is not a multiple of 4 (truncated or bad stream padding)");
        return FZ7_E_FORMAT;
    }
    while (pos > 0) {
        fz7_status st = skip_padding(a->vol, pos, &pos);
        if (st != FZ7_OK)
            return st;
        if (pos < FZ7_XZ_STREAM_HEADER_BYTES + FZ7_XZ_STREAM_FOOTER_BYTES) {
            fz7_xz_msg(err, errlen, "xz: truncated stream (no room for header and footer)");
            return FZ7_E_FORMAT;
        }
        uint8_t f[FZ7_XZ_STREAM_FOOTER_BYTES];
        uint64_t footer_off = pos - FZ7_XZ_STREAM_FOOTER_BYTES;
        if ((st = fz7_volumes_pread(a->vol, f, sizeof f, footer_off)) != FZ7_OK)
            return st;
        if (memcmp(f + 10, xz_footer_magic, 2) != 0) {
            fz7_xz_msg(err, errlen, "xz: no stream footer magic at offset %" PRIu64, footer_off);
            return FZ7_E_FORMAT;
        }
        if (fz7_crc32(0, f + 4, 6) != fz7_get32le(f)) {
            fz7_xz_msg(err, errlen, "xz: stream footer CRC32 mismatch at offset %" PRIu64, footer_off);
            return FZ7_E_CRC;
        }
        if (f[8] != 0 || (f[9] & 0xF0) != 0) {
            fz7_xz_msg(err, errlen, "xz: unsupported stream flags %02X %02X", f[8], f[9]);
            return FZ7_E_UNSUPPORTED;
        }
        uint64_t backward = ((uint64_t)fz7_get32le(f + 4) + 1) * 4;
        if (backward < 8 || backward > footer_off - FZ7_XZ_STREAM_HEADER_BYTES) {
            fz7_xz_msg(err, errlen, "xz: bad backward size %" PRIu64 " in the stream footer",
                       backward);
            return FZ7_E_FORMAT;
        }
        uint64_t index_off = footer_off - backward;
        uint64_t blocks = 0;
        size_t first = x->nrecords;
        st = parse_index(a, x, index_off, backward, &blocks, total, err, errlen);
        if (st != FZ7_OK)
            return st;
        if (blocks > index_off - FZ7_XZ_STREAM_HEADER_BYTES) {
            fz7_xz_msg(err, errlen, "xz: the index lists more block bytes than the stream holds");
            return FZ7_E_FORMAT;
        }
        uint64_t stream_off = index_off - blocks - FZ7_XZ_STREAM_HEADER_BYTES;
        uint8_t h[FZ7_XZ_STREAM_HEADER_BYTES];
        if ((st = fz7_volumes_pread(a->vol, h, sizeof h, stream_off)) != FZ7_OK)
            return st;
        if (memcmp(h, xz_header_magic, 6) != 0) {
            fz7_xz_msg(err, errlen, "xz: no stream header at offset %" PRIu64
                       " (where the index puts it)", stream_off);
            return FZ7_E_FORMAT;
        }
        if (fz7_crc32(0, h + 6, 2) != fz7_get32le(h + 8)) {
            fz7_xz_msg(err, errlen, "xz: stream header CRC32 mismatch at offset %" PRIu64, stream_off);
            return FZ7_E_CRC;
        }
        if (h[6] != f[8] || h[7] != f[9]) {
            fz7_xz_msg(err, errlen, "xz: stream header and footer flags differ (offset %" PRIu64 ")",
                       stream_off);
            return FZ7_E_FORMAT;
        }
        xz_stream s = {stream_off, h[7] & 0x0F, first, x->nrecords - first};
        if ((st = add_stream(x, &s, a->opts.mem_limit)) != FZ7_OK) {
            if (st == FZ7_E_MEMLIMIT)
                fz7_xz_msg(err, errlen, "xz: %zu streams need more memory than the limit",
                           x->nstreams + 1);
            return st;
        }
        pos = stream_off;
    }
    /* Found last to first; keep them in file order. */
    for (size_t i = 0, j = x->nstreams; i + 1 < j; i++, j--) {
        xz_stream t = x->streams[i];
        x->streams[i] = x->streams[j - 1];
        x->streams[j - 1] = t;
    }
    return FZ7_OK;
}

/* ---- Block headers (section 3.1) --------------------------------------- */

/* Reads the block header at off: FZ7_OK, a per-block error with detail, or
 * FZ7_E_IO. */
static fz7_status read_block_header_raw(const fz7_volumes *v, uint64_t off, uint64_t limit,
                                        fz7_xz_block_header *bh, uint8_t h[FZ7_XZ_BLOCK_HEADER_MAX],
                                        char *detail, size_t dlen)
{
    bh->header_size = 0;
    fz7_status st = fz7_volumes_pread(v, h, 1, off);
    if (st != FZ7_OK)
        return st == FZ7_E_TRUNCATED ? FZ7_E_DATA : st;
    if (h[0] == 0) {
        fz7_xz_msg(detail, dlen, "Index lists a block where the stream has its index");
        return FZ7_E_DATA;
    }
    size_t size = ((size_t)h[0] + 1) * 4;
    if (size > limit) {
        fz7_xz_msg(detail, dlen, "Block header larger than the block");
        return FZ7_E_DATA;
    }
    if ((st = fz7_volumes_pread(v, h + 1, size - 1, off + 1)) != FZ7_OK)
        return st == FZ7_E_TRUNCATED ? FZ7_E_DATA : st;
    st = fz7_xz_block_header_parse(h, size, bh, detail, dlen);
    bh->header_size = (unsigned)size;
    return st;
}

static fz7_status read_block_header(const fz7_volumes *v, uint64_t off, uint64_t limit, fz7_xz_block_header *bh,
                                    char *detail, size_t dlen)
{
    uint8_t h[FZ7_XZ_BLOCK_HEADER_MAX];
    return read_block_header_raw(v, off, limit, bh, h, detail, dlen);
}

static const char *check_name(unsigned id, char *buf, size_t cap)
{
    switch (id) {
    case FZ7_XZ_CHECK_NONE: return "NoCheck";
    case FZ7_XZ_CHECK_CRC32: return "CRC32";
    case FZ7_XZ_CHECK_CRC64: return "CRC64";
    case FZ7_XZ_CHECK_SHA256: return "SHA256";
    }
    snprintf(buf, cap, "Check-%u", id);
    return buf;
}

/* Appends token to the method string unless it is already there. */
static void add_token(xz_priv *x, const char *token)
{
    size_t len = strlen(x->method), tl = strlen(token);
    for (const char *p = x->method; (p = strstr(p, token)) != NULL; p += tl)
        if ((p == x->method || p[-1] == ' ') && (p[tl] == ' ' || p[tl] == 0))
            return;
    if (len + 1 + tl + 1 > sizeof x->method)
        return;
    if (len)
        x->method[len++] = ' ';
    memcpy(x->method + len, token, tl + 1);
}

/* The filters of a block as 7-Zip names them: "Delta:4", "BCJ",
 * "ARM64:[00100000]" (start offset bytes), "LZMA2:23". */
static void add_filter_tokens(xz_priv *x, const fz7_xz_block_header *bh)
{
    for (unsigned i = 0; i < bh->nfilters; i++) {
        char t[48], dict[16];
        static const char *const bcj_names[] = {"BCJ", "PPC", "IA64", "ARM", "ARMT", "SPARC",
                                                "ARM64", "RISCV"};
        const char *name = bh->id[i] >= FZ7_XZ_FILTER_X86 && bh->id[i] <= FZ7_XZ_FILTER_RISCV
                               ? bcj_names[bh->id[i] - FZ7_XZ_FILTER_X86] : "?";
        switch (bh->id[i]) {
        case FZ7_XZ_FILTER_DELTA:
            snprintf(t, sizeof t, "Delta:%" PRIu32, bh->prop[i]);
            break;
        case FZ7_XZ_FILTER_LZMA2:
            fz7_dict_name((uint32_t)fz7_lzma2_dict_size(bh->lzma2_prop), dict, sizeof dict);
            snprintf(t, sizeof t, "LZMA2:%s", dict);
            break;
        default:
            if (bh->has_start[i]) {
                uint8_t p[4];
                fz7_put32le(p, bh->prop[i]);
                snprintf(t, sizeof t, "%s:[%02X%02X%02X%02X]", name, p[0], p[1], p[2], p[3]);
            } else {
                snprintf(t, sizeof t, "%s", name);
            }
            break;
        }
        add_token(x, t);
    }
}

/* The filters of a block header the parser refused as unsupported (h, of
 * bh->header_size bytes, CRC checked), named as 7-Zip names them: known
 * filters as above, others by their decimal ID ("127"), every one in
 * chain order even when repeated ("LZMA2:16 LZMA2:16"). */
static void add_raw_filter_tokens(xz_priv *x, const uint8_t *h, size_t size)
{
    size_t end = size - 4, pos = 2;
    uint64_t v;
    if (((h[1] & 0x40) && !fz7_xz_vli_decode(h, end, &pos, &v)) ||
        ((h[1] & 0x80) && !fz7_xz_vli_decode(h, end, &pos, &v)))
        return;
    char chain[192] = "";
    for (unsigned i = 0; i < (h[1] & 3u) + 1; i++) {
        uint64_t id, props;
        if (!fz7_xz_vli_decode(h, end, &pos, &id) || !fz7_xz_vli_decode(h, end, &pos, &props) ||
            props > end - pos)
            break;
        const uint8_t *p = h + pos;
        pos += (size_t)props;
        fz7_xz_block_header one = {.nfilters = 1, .id = {id}};
        if (id == FZ7_XZ_FILTER_LZMA2 && props == 1 && p[0] <= 40) {
            one.lzma2_prop = p[0];
        } else if (id == FZ7_XZ_FILTER_DELTA && props == 1) {
            one.prop[0] = (uint32_t)p[0] + 1;
        } else if (id >= FZ7_XZ_FILTER_X86 && id <= FZ7_XZ_FILTER_RISCV && props == 4) {
            one.prop[0] = fz7_get32le(p);
            one.has_start[0] = true;
        } else if (!(id >= FZ7_XZ_FILTER_X86 && id <= FZ7_XZ_FILTER_RISCV && props == 0)) {
            size_t n = strlen(chain);
            snprintf(chain + n, sizeof chain - n, "%s%" PRIu64, n ? " " : "", id);
            continue;
        }
        /* A known filter: its token, built as add_filter_tokens does. */
        xz_priv tmp;
        tmp.method[0] = 0;
        add_filter_tokens(&tmp, &one);
        size_t n = strlen(chain);
        snprintf(chain + n, sizeof chain - n, "%s%s", n ? " " : "", tmp.method);
    }
    if (chain[0])
        add_token(x, chain);
}

/* The method 7-Zip shows for an xz file: the filters of the first block of
 * each stream, then every check used, in ID order ("LZMA2:23 CRC32 CRC64").
 * A first block header that is damaged (CRC, sizes) or sets reserved bits
 * makes the file fail to open, as with 7-Zip ("Is not archive"):
 * FZ7_E_FORMAT, or FZ7_E_IO. An unknown filter is named by its ID (extraction
 * reports it as unsupported). */
static fz7_status build_method(fz7_archive *a, xz_priv *x, char *err, size_t errlen)
{
    uint32_t checks = 0;
    x->method[0] = 0;
    for (size_t i = 0; i < x->nstreams; i++) {
        const xz_stream *s = &x->streams[i];
        checks |= 1u << s->check;
        if (s->count == 0)
            continue;
        fz7_xz_block_header bh;
        uint8_t raw[FZ7_XZ_BLOCK_HEADER_MAX];
        char detail[128] = "";
        fz7_status st = read_block_header_raw(a->vol, s->offset + FZ7_XZ_STREAM_HEADER_BYTES,
                                              x->records[s->first].unpadded, &bh, raw, detail,
                                              sizeof detail);
        if (st == FZ7_OK) {
            add_filter_tokens(x, &bh);
            x->header_pack_size |= bh.compressed != UINT64_MAX;
            x->header_unpack_size |= bh.uncompressed != UINT64_MAX;
        } else if (st == FZ7_E_UNSUPPORTED && !bh.reserved_set) {
            add_raw_filter_tokens(x, raw, bh.header_size);
        } else if (st == FZ7_E_IO) {
            return st;
        } else if (st != FZ7_E_UNSUPPORTED || bh.reserved_set) {
            fz7_xz_msg(err, errlen, "%s", detail);
            return FZ7_E_FORMAT;
        }
    }
    for (unsigned id = 0; id < 16; id++) {
        char buf[16];
        if (checks & (1u << id))
            add_token(x, check_name(id, buf, sizeof buf));
    }
    return FZ7_OK;
}

/* ---- Extraction --------------------------------------------------------- */

/* One block's decoding. With cb set, data goes to cb->data in chunks of
 * XZ_OUT_CHUNK through buf; with cb NULL it is kept in out (a worker
 * thread's block buffer of the block's size + 1) and produced says how
 * much was decoded before the end or an error. */
typedef struct {
    fz7_archive *a;
    const fz7_extract_cb *cb;
    uint8_t *buf;           /* XZ_OUT_CHUNK bytes (callback mode) */
    uint8_t *out;           /* buffered mode */
    uint64_t produced;
    bool cb_failed;         /* the status came from a callback */
    char detail[192];
} extract_ctx;

/* Decodes one block at file offset off described by index record rec,
 * checks its sizes, padding and check, and sends its data on. */
static fz7_status decode_block(extract_ctx *x, const xz_stream *s, const xz_record *rec,
                               uint64_t off)
{
    fz7_archive *a = x->a;
    char *detail = x->detail;
    size_t dlen = sizeof x->detail;
    /* A check ID fz7 does not compute (reserved in section 2.1.1.2) still
     * has a known size: the data is decoded and the check skipped, as
     * 7-Zip does (xz warns). */
    unsigned csize = fz7_xz_check_size(s->check);
    x->produced = 0;
    /* The block needs its header and at least one byte of data. */
    uint64_t room = rec->unpadded > (uint64_t)csize + 1 ? rec->unpadded - csize - 1 : 0;
    fz7_xz_block_header bh;
    fz7_status st = read_block_header(a->vol, off, room, &bh, detail, dlen);
    if (st != FZ7_OK)
        return st;
    uint64_t packed = rec->unpadded - bh.header_size - csize;
    if (bh.compressed != UINT64_MAX && bh.compressed != packed) {
        fz7_xz_msg(detail, dlen, "Compressed size in block header (%" PRIu64
                   ") differs from the index (%" PRIu64 ")", bh.compressed, packed);
        return FZ7_E_DATA;
    }
    if (bh.uncompressed != UINT64_MAX && bh.uncompressed != rec->uncompressed) {
        fz7_xz_msg(detail, dlen, "Uncompressed size in block header (%" PRIu64
                   ") differs from the index (%" PRIu64 ")", bh.uncompressed, rec->uncompressed);
        return FZ7_E_DATA;
    }

    fz7_istream *in = fz7_volumes_istream_new(a->vol, off + bh.header_size, packed);
    if (!in)
        return FZ7_E_MEM;
    fz7_istream *stages[4] = {NULL, NULL, NULL, NULL};
    fz7_istream *top = NULL;
    fz7_xz_check chk;
    fz7_xz_check_init(&chk, s->check);
    uint64_t produced = 0;
    /* The full declared dictionary (not one cut to the block's size), so
     * the memory limit applies to what the file declares, as xz does. */
    st = fz7_xz_open_chain(&bh, in, UINT64_MAX, a->opts.mem_limit, stages, &top);
    if (st == FZ7_E_UNSUPPORTED)
        fz7_xz_msg(detail, dlen, "Unsupported method in the block at offset %" PRIu64, off);
    if (st == FZ7_E_MEMLIMIT)
        fz7_xz_msg(detail, dlen, "LZMA2 dictionary of %" PRIu32 " bytes exceeds the memory limit",
                   (uint32_t)fz7_lzma2_dict_size(bh.lzma2_prop));
    bool more = st == FZ7_OK;
    while (more) {
        /* Gather a chunk; what was decoded before an error still goes out.
         * A block buffer has one byte more than the index lists, so a
         * block that runs longer is seen. */
        uint8_t *dst = x->out ? x->out + produced : x->buf;
        size_t cap = XZ_OUT_CHUNK;
        if (x->out && rec->uncompressed - produced < cap)
            cap = (size_t)(rec->uncompressed - produced) + 1;
        size_t fill = 0;
        while (fill < cap) {
            size_t got = 0;
            st = top->read(top, dst + fill, cap - fill, &got);
            if (st != FZ7_OK || got == 0) {
                more = false;
                break;
            }
            fill += got;
        }
        if (fill > rec->uncompressed - produced) {
            fz7_xz_msg(detail, dlen, "Block decodes to more than the %" PRIu64
                       " bytes the index lists", rec->uncompressed);
            st = FZ7_E_DATA;
            break;
        }
        if (fill == 0)
            break;
        produced += fill;
        x->produced = produced;
        fz7_xz_check_update(&chk, dst, fill);
        if (!x->cb)
            continue;
        fz7_status cst = x->cb->data(x->cb->ctx, dst, fill);
        if (cst != FZ7_OK) {
            x->cb_failed = true;
            st = cst;
            break;
        }
    }
    uint64_t used = fz7_fd_istream_pos(in);
    for (int i = 3; i >= 0; i--)
        fz7_istream_free(stages[i]);
    fz7_istream_free(in);
    if (st != FZ7_OK) {
        if (st == FZ7_E_TRUNCATED) {
            fz7_xz_msg(detail, dlen, "LZMA2 data runs past the end of its block");
            st = FZ7_E_DATA;
        } else if (!detail[0] && (st == FZ7_E_DATA || st == FZ7_E_CRC)) {
            fz7_xz_msg(detail, dlen, "Corrupt LZMA2 data in the block at offset %" PRIu64, off);
        }
        return st;
    }
    if (used != packed) {
        fz7_xz_msg(detail, dlen, "LZMA2 data ends %" PRIu64 " bytes before its block does",
                   packed - used);
        return FZ7_E_CRC; /* the index disagrees: 7-Zip's "CRC Failed" */
    }
    if (produced != rec->uncompressed) {
        fz7_xz_msg(detail, dlen, "Block decodes to %" PRIu64 " bytes, the index lists %" PRIu64,
                   produced, rec->uncompressed);
        return FZ7_E_CRC;
    }
    /* Block padding (section 3.3), then the check. */
    uint8_t tail[3 + 64];
    size_t pad = (size_t)(round_up4(rec->unpadded) - rec->unpadded);
    st = fz7_volumes_pread(a->vol, tail, pad + csize, off + bh.header_size + packed);
    if (st != FZ7_OK)
        return st;
    for (size_t i = 0; i < pad; i++) {
        if (tail[i] != 0) {
            fz7_xz_msg(detail, dlen, "Block padding is not zero");
            return FZ7_E_CRC; /* 7-Zip: "CRC Failed" */
        }
    }
    return fz7_xz_check_verify(&chk, tail + pad, detail, dlen);
}

/* ---- Several blocks at once --------------------------------------------
 * Every block's sizes are known from the index, so worker threads decode
 * whole blocks into buffers (checks verified there) and this thread hands
 * them to the callbacks in file order. A block larger than the per-block
 * budget (or whose buffer cannot be had) is left to this thread, which
 * streams it as the one-thread path does. */

#define XZ_MT_BLOCK_MAX ((uint64_t)256 << 20)   /* largest block buffered */

typedef struct {
    bool skipped;          /* not decoded: the consumer streams it */
    fz7_status status;
    extract_ctx job;       /* job.out, job.produced, job.detail */
} mt_slot;

typedef struct {
    fz7_archive *a;
    xz_priv *p;
    size_t *stream_of;     /* per block in file order: its stream, */
    size_t *record_of;     /* its index record (streams were indexed last */
    uint64_t *offset_of;   /* to first) and the file offset of its header */
    uint64_t block_budget; /* bytes one buffered block may take */
    mt_slot *slots;
} mt_ctx;

static void mt_job(void *ctx, size_t j, size_t slot)
{
    mt_ctx *m = ctx;
    mt_slot *r = &m->slots[slot];
    const xz_record *rec = &m->p->records[m->record_of[j]];
    memset(r, 0, sizeof *r);
    r->job.a = m->a;
    if (rec->uncompressed > m->block_budget ||
        !(r->job.out = malloc((size_t)rec->uncompressed + 1))) {
        r->skipped = true;
        return;
    }
    r->status = decode_block(&r->job, &m->p->streams[m->stream_of[j]], rec, m->offset_of[j]);
}

/* The blocks of every stream on `threads` threads. *handled is false when
 * the pool could not be set up (nothing was sent yet). */
static fz7_status extract_mt(extract_ctx *x, xz_priv *p, unsigned threads, bool *handled)
{
    fz7_archive *a = x->a;
    size_t n = p->nrecords;
    mt_ctx m = {a, p, malloc(n * sizeof(size_t)), malloc(n * sizeof(size_t)),
                malloc(n * sizeof(uint64_t)), 0, NULL};
    size_t window = (size_t)threads * 2;
    m.slots = calloc(window, sizeof *m.slots);
    *handled = false;
    fz7_status st = FZ7_OK;
    if (!m.stream_of || !m.record_of || !m.offset_of || !m.slots)
        goto out;
    for (size_t i = 0, k = 0; i < p->nstreams; i++) {
        uint64_t off = p->streams[i].offset + FZ7_XZ_STREAM_HEADER_BYTES;
        for (size_t j = 0; j < p->streams[i].count; j++, k++) {
            m.stream_of[k] = i;
            m.record_of[k] = p->streams[i].first + j;
            m.offset_of[k] = off;
            off += round_up4(p->records[m.record_of[k]].unpadded);
        }
    }
    /* Buffers of the blocks in flight take at most half the memory limit. */
    m.block_budget = a->opts.mem_limit / 2 / window;
    if (m.block_budget > XZ_MT_BLOCK_MAX)
        m.block_budget = XZ_MT_BLOCK_MAX;
    fz7_decode_pool *pool = fz7_decode_pool_start(n, threads, window, mt_job, &m);
    if (!pool)
        goto out;
    *handled = true;
    for (size_t j = 0; j < n && st == FZ7_OK; j++) {
        mt_slot *r = &m.slots[fz7_decode_pool_wait(pool, j)];
        if (r->skipped) {
            st = decode_block(x, &p->streams[m.stream_of[j]], &p->records[m.record_of[j]],
                              m.offset_of[j]);
        } else {
            /* What the block decoded before an error still goes out. */
            for (uint64_t sent = 0; sent < r->job.produced && st == FZ7_OK;) {
                uint64_t left = r->job.produced - sent;
                size_t len = left < XZ_OUT_CHUNK ? (size_t)left : XZ_OUT_CHUNK;
                st = x->cb->data(x->cb->ctx, r->job.out + sent, len);
                sent += len;
                if (st != FZ7_OK)
                    x->cb_failed = true;
            }
            if (st == FZ7_OK && r->status != FZ7_OK) {
                st = r->status;
                memcpy(x->detail, r->job.detail, sizeof x->detail);
            }
        }
        free(r->job.out);
        r->job.out = NULL;
        fz7_decode_pool_release(pool, j);
    }
    fz7_decode_pool_stop(pool);
out:
    for (size_t i = 0; m.slots && i < window; i++)
        free(m.slots[i].job.out);
    free(m.slots);
    free(m.stream_of);
    free(m.record_of);
    free(m.offset_of);
    return st;
}

static fz7_status xz_extract(fz7_archive *a, const bool *select, const fz7_extract_cb *cb,
                             char *err, size_t errlen)
{
    if (a->count == 0 || (select && !select[0]))
        return FZ7_OK;
    xz_priv *p = a->priv;
    fz7_status st = cb->begin(cb->ctx, 0, &a->entries[0]);
    if (st != FZ7_OK)
        return st;
    extract_ctx x = {a, cb, malloc(XZ_OUT_CHUNK), NULL, 0, false, ""};
    if (!x.buf)
        return FZ7_E_MEM;
    unsigned threads = fz7_decode_threads(a->opts.threads, p->nrecords);
    bool handled = false;
    if (threads > 1)
        st = extract_mt(&x, p, threads, &handled);
    for (size_t i = 0; !handled && i < p->nstreams && st == FZ7_OK; i++) {
        const xz_stream *s = &p->streams[i];
        uint64_t off = s->offset + FZ7_XZ_STREAM_HEADER_BYTES;
        for (size_t j = 0; j < s->count && st == FZ7_OK; j++) {
            const xz_record *rec = &p->records[s->first + j];
            st = decode_block(&x, s, rec, off);
            off += round_up4(rec->unpadded);
        }
    }
    free(x.buf);
    if (x.cb_failed)
        return st;
    if (st == FZ7_E_IO || st == FZ7_E_MEM) {
        fz7_xz_msg(err, errlen, "%s", st == FZ7_E_IO ? "Read error" : "Out of memory");
        return st;
    }
    return cb->end(cb->ctx, 0, st, st == FZ7_OK ? NULL : x.detail);
}

static void xz_close(fz7_archive *a)
{
    xz_priv *p = a->priv;
    if (!p)
        return;
    free(p->streams);
    free(p->records);
    free(p);
    a->priv = NULL;
}

static const fz7_archive_ops xz_ops = {xz_extract, xz_close, NULL};

/* When the end of the file (footer, index, stream padding) can not be
 * read, 7-Zip still opens an .xz whose first stream header (section 2.1.1)
 * and first block header (3.1) are sound, and finds the damage on
 * decoding. Builds the method from that block header (its filters, no
 * check) in p->method. FZ7_OK or FZ7_E_FORMAT (7-Zip's "Is not archive"). */
static fz7_status salvage_method(fz7_archive *a, xz_priv *p)
{
    uint8_t h[FZ7_XZ_STREAM_HEADER_BYTES + 1];
    p->method[0] = 0;
    if (a->file_size < sizeof h || fz7_volumes_pread(a->vol, h, sizeof h, 0) != FZ7_OK)
        return FZ7_E_FORMAT;
    if (fz7_crc32(0, h + 6, 2) != fz7_get32le(h + 8) || h[6] != 0 || (h[7] & 0xF0) != 0)
        return FZ7_E_FORMAT;
    if (h[FZ7_XZ_STREAM_HEADER_BYTES] == 0x00) /* the index indicator: no blocks */
        return FZ7_OK;
    fz7_xz_block_header bh;
    uint8_t raw[FZ7_XZ_BLOCK_HEADER_MAX];
    char detail[128];
    fz7_status st = read_block_header_raw(a->vol, FZ7_XZ_STREAM_HEADER_BYTES,
                                          a->file_size - FZ7_XZ_STREAM_HEADER_BYTES, &bh, raw,
                                          detail, sizeof detail);
    if (st == FZ7_OK)
        add_filter_tokens(p, &bh);
    else if (st == FZ7_E_UNSUPPORTED && !bh.reserved_set)
        add_raw_filter_tokens(p, raw, bh.header_size);
    else
        return FZ7_E_FORMAT;
    return FZ7_OK;
}

fz7_status fz7_xz_open(fz7_archive *a, char *err, size_t errlen)
{
    uint8_t magic[6];
    if (a->file_size < sizeof magic)
        return FZ7_E_FORMAT;
    fz7_status st = fz7_volumes_pread(a->vol, magic, sizeof magic, 0);
    if (st != FZ7_OK) {
        fz7_xz_msg(err, errlen, "Read error");
        return st;
    }
    if (memcmp(magic, xz_header_magic, sizeof magic) != 0)
        return FZ7_E_FORMAT;

    xz_priv *p = calloc(1, sizeof *p);
    if (!p)
        return FZ7_E_MEM;
    uint64_t total = 0;
    st = scan_streams(a, p, &total, err, errlen);
    if (st != FZ7_OK && st != FZ7_E_IO && st != FZ7_E_MEM && st != FZ7_E_MEMLIMIT &&
        a->opts.xz_salvage && !p->impossible && salvage_method(a, p) == FZ7_OK) {
        st = fz7_xz_stream_attach(a, p->method);
        free(p->streams);
        free(p->records);
        free(p);
        if (st == FZ7_OK && errlen)
            err[0] = 0;
        return st;
    }
    if (st == FZ7_OK)
        st = build_method(a, p, err, errlen);
    fz7_entry *e = NULL;
    if (st == FZ7_OK && !(e = fz7_single_entry_new(a)))
        st = FZ7_E_MEM;
    if (st != FZ7_OK) {
        if (st == FZ7_E_IO && errlen && !err[0])
            fz7_xz_msg(err, errlen, "Read error");
        if (st == FZ7_E_TRUNCATED) {
            fz7_xz_msg(err, errlen, "xz: unexpected end of file");
            st = FZ7_E_FORMAT;
        }
        if (errlen && !err[0])
            fz7_xz_msg(err, errlen, "xz: %s", fz7_status_str(st));
        free(e);
        free(p->streams);
        free(p->records);
        free(p);
        return st;
    }

    unsigned check = p->streams[0].check;
    for (size_t i = 0; i < p->nstreams; i++) {
        if (p->streams[i].count) {
            check = p->streams[i].check;
            break;
        }
    }
    e->size = total;
    e->has_size = true;
    e->packed_size = a->file_size;
    e->mode = S_IFREG | 0644;
    e->has_stream = p->nrecords > 0;
    e->folder = p->nrecords > 0 ? 0 : -1;
    e->method = p->method;
    a->entries = e;
    a->count = 1;
    a->ops = &xz_ops;
    a->priv = p;
    a->info.format = FZ7_FORMAT_XZ;
    a->info.num_blocks = p->nrecords;
    a->info.num_streams = p->nstreams;
    a->info.method = p->method;
    a->info.check = check_name(check, p->check, sizeof p->check);
    /* What 7-Zip adds: the largest block when there are several, and which
     * sizes the first block headers carry (section 3.1.2). */
    for (size_t i = 0; p->nrecords > 1 && i < p->nrecords; i++)
        if (p->records[i].uncompressed > a->info.cluster_size)
            a->info.cluster_size = p->records[i].uncompressed;
    if (p->header_pack_size || p->header_unpack_size) {
        snprintf(p->characteristics, sizeof p->characteristics, "%s%s%s",
                 p->header_pack_size ? "BlockPackSize" : "",
                 p->header_pack_size && p->header_unpack_size ? " " : "",
                 p->header_unpack_size ? "BlockUnpackSize" : "");
        a->info.characteristics = p->characteristics;
    }
    return FZ7_OK;
}
