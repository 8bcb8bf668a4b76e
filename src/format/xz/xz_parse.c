/* xz_parse.c - block header, filter chain, check and index parsing for
 * both .xz readers (xz_read.c seeks, xz_stream.c reads a pipe once), so
 * the two agree on what a valid block or index is and say it the same
 * way (xz-file-format.txt 3.1, 3.4, 4, 5). */
#include "format/xz/xz_parse.h"

#include "filter/bcj_riscv.h"
#include "filter/filter.h"
#include "format/xz/xz_vli.h"
#include "lzma/lzma_dec.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void fz7_xz_msg(char *buf, size_t len, const char *fmt, ...)
{
    if (!len)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, len, fmt, ap);
    va_end(ap);
}

unsigned fz7_xz_check_size(unsigned id)
{
    return id == 0 ? 0 : 4u << ((id + 2) / 3 - 1);
}

bool fz7_xz_check_supported(unsigned id)
{
    return id == FZ7_XZ_CHECK_NONE || id == FZ7_XZ_CHECK_CRC32 || id == FZ7_XZ_CHECK_CRC64 ||
           id == FZ7_XZ_CHECK_SHA256;
}

/* The fixed-width BCJ filters by xz filter ID (section 5.3.2). */
static bool risc_arch(uint64_t id, fz7_bcj_arch *arch)
{
    switch (id) {
    case FZ7_XZ_FILTER_PPC: *arch = FZ7_BCJ_PPC; return true;
    case FZ7_XZ_FILTER_IA64: *arch = FZ7_BCJ_IA64; return true;
    case FZ7_XZ_FILTER_ARM: *arch = FZ7_BCJ_ARM; return true;
    case FZ7_XZ_FILTER_ARMT: *arch = FZ7_BCJ_ARMT; return true;
    case FZ7_XZ_FILTER_SPARC: *arch = FZ7_BCJ_SPARC; return true;
    case FZ7_XZ_FILTER_ARM64: *arch = FZ7_BCJ_ARM64; return true;
    }
    return false;
}

/* ---- Block header (section 3.1) ----------------------------------------- */

/* The properties of filter i (section 5.3), props_size bytes at p. */
static fz7_status parse_filter_props(fz7_xz_block_header *bh, unsigned i, const uint8_t *p,
                                     uint64_t props_size, char *detail, size_t dlen)
{
    uint64_t id = bh->id[i];
    fz7_bcj_arch arch;
    switch (id) {
    case FZ7_XZ_FILTER_LZMA2:
        if (i + 1 != bh->nfilters) {
            fz7_xz_msg(detail, dlen, "Unsupported filter chain: LZMA2 before the last filter");
            return FZ7_E_UNSUPPORTED;
        }
        if (props_size != 1 || (p[0] & 0xC0) || p[0] > 40) {
            fz7_xz_msg(detail, dlen, "Unsupported LZMA2 properties");
            return FZ7_E_UNSUPPORTED;
        }
        bh->lzma2_prop = p[0];
        return FZ7_OK;
    case FZ7_XZ_FILTER_DELTA:
        if (props_size != 1) {
            fz7_xz_msg(detail, dlen, "Unsupported Delta properties");
            return FZ7_E_UNSUPPORTED;
        }
        bh->prop[i] = (uint32_t)p[0] + 1;
        return FZ7_OK;
    case FZ7_XZ_FILTER_X86:
    case FZ7_XZ_FILTER_PPC:
    case FZ7_XZ_FILTER_IA64:
    case FZ7_XZ_FILTER_ARM:
    case FZ7_XZ_FILTER_ARMT:
    case FZ7_XZ_FILTER_SPARC:
    case FZ7_XZ_FILTER_ARM64:
    case FZ7_XZ_FILTER_RISCV:
        if (props_size == 4) {
            bh->prop[i] = fz7_get32le(p);
            bh->has_start[i] = true;
        } else if (props_size != 0) {
            fz7_xz_msg(detail, dlen, "Unsupported BCJ properties");
            return FZ7_E_UNSUPPORTED;
        }
        /* The start offset must keep instructions aligned (RISC-V: 2). */
        if ((risc_arch(id, &arch) && bh->prop[i] % fz7_bcj_risc_alignment(arch) != 0) ||
            (id == FZ7_XZ_FILTER_RISCV && bh->prop[i] % 2 != 0)) {
            fz7_xz_msg(detail, dlen, "BCJ start offset %" PRIu32 " is not aligned", bh->prop[i]);
            return FZ7_E_UNSUPPORTED;
        }
        return FZ7_OK;
    }
    fz7_xz_msg(detail, dlen, "Unsupported filter 0x%02" PRIX64, id);
    return FZ7_E_UNSUPPORTED;
}

fz7_status fz7_xz_block_header_parse(const uint8_t *h, size_t header_size,
                                     fz7_xz_block_header *bh, char *detail, size_t dlen)
{
    memset(bh, 0, sizeof *bh);
    bh->header_size = (unsigned)header_size;
    bh->compressed = bh->uncompressed = UINT64_MAX;
    size_t end = header_size - 4;
    if (fz7_crc32(0, h, end) != fz7_get32le(h + end)) {
        fz7_xz_msg(detail, dlen, "Block header CRC32 mismatch");
        return FZ7_E_DATA;
    }
    uint8_t flags = h[1];
    if (flags & 0x3C) {
        bh->reserved_set = true;
        fz7_xz_msg(detail, dlen, "Unsupported block flags 0x%02X", flags);
        return FZ7_E_UNSUPPORTED;
    }
    size_t pos = 2;
    /* Header, data and check together stay below 2^63 (3.1.3). */
    if ((flags & 0x40) &&
        (!fz7_xz_vli_decode(h, end, &pos, &bh->compressed) || bh->compressed == 0 ||
         bh->compressed > (FZ7_XZ_VLI_MAX & ~(uint64_t)3) - header_size)) {
        fz7_xz_msg(detail, dlen, "Bad compressed size in block header");
        return FZ7_E_DATA;
    }
    if ((flags & 0x80) && !fz7_xz_vli_decode(h, end, &pos, &bh->uncompressed)) {
        fz7_xz_msg(detail, dlen, "Bad uncompressed size in block header");
        return FZ7_E_DATA;
    }
    bh->nfilters = (flags & 3) + 1;
    for (unsigned i = 0; i < bh->nfilters; i++) {
        uint64_t props_size;
        if (!fz7_xz_vli_decode(h, end, &pos, &bh->id[i]) ||
            !fz7_xz_vli_decode(h, end, &pos, &props_size) || props_size > end - pos) {
            fz7_xz_msg(detail, dlen, "Block header ends inside the filter flags");
            return FZ7_E_DATA;
        }
        fz7_status st = parse_filter_props(bh, i, h + pos, props_size, detail, dlen);
        if (st != FZ7_OK)
            return st;
        pos += (size_t)props_size;
        if (i + 1 == bh->nfilters && bh->id[i] != FZ7_XZ_FILTER_LZMA2) {
            fz7_xz_msg(detail, dlen, "Unsupported filter chain: filter 0x%02" PRIX64 " is last",
                       bh->id[i]);
            return FZ7_E_UNSUPPORTED;
        }
    }
    for (; pos < end; pos++) {
        if (h[pos] != 0) {
            bh->reserved_set = true;
            fz7_xz_msg(detail, dlen, "Unsupported block header field (non-zero header padding)");
            return FZ7_E_UNSUPPORTED;
        }
    }
    return FZ7_OK;
}

fz7_status fz7_xz_open_chain(const fz7_xz_block_header *bh, fz7_istream *packed,
                             uint64_t unpack_size, uint64_t mem_limit, fz7_istream *stages[4],
                             fz7_istream **top)
{
    fz7_status st = fz7_lzma2_istream_new_sized(packed, bh->lzma2_prop, unpack_size, mem_limit,
                                                &stages[0]);
    if (st != FZ7_OK)
        return st;
    unsigned n = 1;
    for (unsigned i = bh->nfilters - 1; i-- > 0; n++) {
        fz7_bcj_arch arch = FZ7_BCJ_ARM64;
        switch (bh->id[i]) {
        case FZ7_XZ_FILTER_DELTA:
            st = fz7_delta_istream_new(stages[n - 1], bh->prop[i], &stages[n]);
            break;
        case FZ7_XZ_FILTER_X86:
            st = fz7_bcj_x86_istream_new(stages[n - 1], bh->prop[i], &stages[n]);
            break;
        case FZ7_XZ_FILTER_RISCV:
            st = fz7_bcj_riscv_istream_new(stages[n - 1], bh->prop[i], &stages[n]);
            break;
        default:
            risc_arch(bh->id[i], &arch); /* the parser allowed only these */
            st = fz7_bcj_risc_istream_new(stages[n - 1], arch, bh->prop[i], &stages[n]);
            break;
        }
        if (st != FZ7_OK)
            return st;
    }
    *top = stages[n - 1];
    return FZ7_OK;
}

/* ---- Block check (section 3.4) ------------------------------------------ */

void fz7_xz_check_init(fz7_xz_check *c, unsigned id)
{
    c->id = id;
    c->crc32 = 0;
    c->crc64 = 0;
    if (id == FZ7_XZ_CHECK_SHA256)
        fz7_sha256_init(&c->sha);
}

void fz7_xz_check_update(fz7_xz_check *c, const uint8_t *p, size_t n)
{
    switch (c->id) {
    case FZ7_XZ_CHECK_CRC32: c->crc32 = fz7_crc32(c->crc32, p, n); break;
    case FZ7_XZ_CHECK_CRC64: c->crc64 = fz7_crc64(c->crc64, p, n); break;
    case FZ7_XZ_CHECK_SHA256: fz7_sha256_update(&c->sha, p, n); break;
    }
}

fz7_status fz7_xz_check_verify(fz7_xz_check *c, const uint8_t *stored, char *detail,
                               size_t dlen)
{
    switch (c->id) {
    case FZ7_XZ_CHECK_CRC32:
        if (fz7_get32le(stored) != c->crc32) {
            fz7_xz_msg(detail, dlen, "CRC32 mismatch (expected %08" PRIx32 ", got %08" PRIx32 ")",
                       fz7_get32le(stored), c->crc32);
            return FZ7_E_CRC;
        }
        break;
    case FZ7_XZ_CHECK_CRC64:
        if (fz7_get64le(stored) != c->crc64) {
            fz7_xz_msg(detail, dlen, "CRC64 mismatch (expected %016" PRIx64 ", got %016" PRIx64
                       ")", fz7_get64le(stored), c->crc64);
            return FZ7_E_CRC;
        }
        break;
    case FZ7_XZ_CHECK_SHA256: {
        uint8_t d[32];
        fz7_sha256_final(&c->sha, d);
        if (memcmp(d, stored, 32) != 0) {
            fz7_xz_msg(detail, dlen, "SHA-256 mismatch");
            return FZ7_E_CRC;
        }
        break;
    }
    }
    return FZ7_OK;
}

/* ---- Index (section 4) --------------------------------------------------- */

void fz7_xz_index_took(fz7_xz_index_reader *r, const uint8_t *p, size_t n)
{
    r->crc = fz7_crc32(r->crc, p, n);
    r->size += n;
}

fz7_status fz7_xz_index_byte(fz7_xz_index_reader *r, uint8_t *b)
{
    fz7_status st = fz7_istream_read_full(r->in, b, 1);
    if (st == FZ7_OK)
        fz7_xz_index_took(r, b, 1);
    return st;
}

fz7_status fz7_xz_index_vli(fz7_xz_index_reader *r, uint64_t *out)
{
    uint8_t bytes[9];
    size_t n = 0, pos = 0;
    do {
        fz7_status st = fz7_xz_index_byte(r, &bytes[n]);
        if (st != FZ7_OK)
            return st;
    } while ((bytes[n++] & 0x80) && n < sizeof bytes);
    return fz7_xz_vli_decode(bytes, n, &pos, out) ? FZ7_OK : FZ7_E_DATA;
}

fz7_status fz7_xz_index_padding(fz7_xz_index_reader *r)
{
    while (r->size % 4) {
        uint8_t b;
        fz7_status st = fz7_xz_index_byte(r, &b);
        if (st != FZ7_OK)
            return st;
        if (b != 0)
            return FZ7_E_DATA;
    }
    return FZ7_OK;
}

fz7_status fz7_xz_index_crc(fz7_xz_index_reader *r)
{
    uint8_t stored[4];
    fz7_status st = fz7_istream_read_full(r->in, stored, sizeof stored);
    if (st != FZ7_OK)
        return st;
    return fz7_get32le(stored) == r->crc ? FZ7_OK : FZ7_E_CRC;
}
