/* brotli.c - the 7-Zip-zstd fork's method 04F71102 (Brotli) over
 * libbrotlidec: zstdmt's "brotli-mt" frames (a 16-byte header giving each
 * stream's size), or one plain RFC 7932 stream when that header is absent.
 * Needs libbrotlidec (FZ7_HAVE_BROTLI); else the method stays unsupported. */
#include "codec/codec.h"

#include <stdlib.h>

#ifdef FZ7_HAVE_BROTLI
#include "codec/fork_reader.h"

#include <brotli/decode.h>

#include <string.h>

/* brotli-mt frame header: LE32 skippable magic, LE32 8 (the bytes that
 * follow in the skippable frame), LE32 size of the brotli stream after the
 * header, LE16 "BR", LE16 uncompressed size in 64 KiB units (a hint). */
#define BROTLI_MT_MAGIC 0x184D2A50u
#define BROTLI_MT_HEADER 16
#define BROTLI_MT_BR 0x5242u

typedef struct {
    fz7_fork_reader fr;        /* input, output bound, end check */
    BrotliDecoderState *dec;   /* the current brotli stream's decoder */
    uint64_t mem_limit, mem_used;
    bool over_limit;           /* an allocation was refused by mem_limit */
    bool started;              /* the framing has been looked at */
    bool framed;               /* brotli-mt frames; else one plain stream */
    bool in_stream;            /* dec is inside a brotli stream */
    uint64_t frame_left;       /* framed: bytes of the stream not yet given */
} br_reader;

/* libbrotlidec's allocations, counted against mem_limit (a size header in
 * front of each block). */
static void *br_alloc(void *opaque, size_t size)
{
    br_reader *z = opaque;
    if (size > SIZE_MAX - 16 || z->mem_used + size + 16 > z->mem_limit) {
        z->over_limit = true;
        return NULL;
    }
    uint8_t *p = malloc(size + 16);
    if (!p)
        return NULL;
    memcpy(p, &size, sizeof size);
    z->mem_used += size + 16;
    return p + 16;
}

static void br_free(void *opaque, void *ptr)
{
    br_reader *z = opaque;
    if (!ptr)
        return;
    uint8_t *p = (uint8_t *)ptr - 16;
    size_t size;
    memcpy(&size, p, sizeof size);
    z->mem_used -= size + 16;
    free(p);
}

/* Makes n bytes (n <= IN_SIZE) readable at buf + in_pos, moving what is
 * left to the front first; fewer only at the end of src. */
static fz7_status need(fz7_fork_reader *r, size_t n)
{
    if (r->in_len - r->in_pos >= n)
        return FZ7_OK;
    memmove(r->buf, r->buf + r->in_pos, r->in_len - r->in_pos);
    r->in_len -= r->in_pos;
    r->in_pos = 0;
    while (r->in_len < n && !r->src_end) {
        size_t got = 0;
        fz7_status st = r->src->read(r->src, r->buf + r->in_len, FZ7_FORK_IN_SIZE - r->in_len, &got);
        if (st != FZ7_OK)
            return st;
        r->in_len += got;
        r->src_end = got == 0;
    }
    return FZ7_OK;
}

/* Starts the next brotli stream: reads and checks a frame header when
 * framed. *at_end: the input ended cleanly where a stream could begin. */
static fz7_status begin_stream(br_reader *z, bool *at_end)
{
    *at_end = false;
    fz7_fork_reader *r = &z->fr;
    fz7_status st = need(r, BROTLI_MT_HEADER);
    if (st != FZ7_OK)
        return st;
    const uint8_t *h = r->buf + r->in_pos;
    size_t avail = r->in_len - r->in_pos;
    if (!z->started) {
        z->started = true;
        z->framed = avail >= 4 && fz7_get32le(h) == BROTLI_MT_MAGIC;
        if (avail == 0)
            return FZ7_E_TRUNCATED;
    } else if (avail == 0) {
        *at_end = true;
        return FZ7_OK;
    } else if (!z->framed) {
        return FZ7_E_DATA;   /* bytes after the one plain stream */
    }
    if (z->framed) {
        if (avail < BROTLI_MT_HEADER)
            return FZ7_E_TRUNCATED;
        if (fz7_get32le(h) != BROTLI_MT_MAGIC || fz7_get32le(h + 4) != 8 ||
            fz7_get16le(h + 12) != BROTLI_MT_BR || fz7_get32le(h + 8) == 0)
            return FZ7_E_DATA;
        z->frame_left = fz7_get32le(h + 8);
        r->in_pos += BROTLI_MT_HEADER;
    }
    if (z->dec)
        BrotliDecoderDestroyInstance(z->dec);
    z->dec = BrotliDecoderCreateInstance(br_alloc, br_free, z);
    if (!z->dec)
        return z->over_limit ? FZ7_E_MEMLIMIT : FZ7_E_MEM;
    z->in_stream = true;
    return FZ7_OK;
}

/* The status of a failed stream: libbrotlidec's allocation failures (error
 * codes -30..-21) are memory, everything else is corrupt data. */
static fz7_status br_error(br_reader *z)
{
    if (z->over_limit)
        return FZ7_E_MEMLIMIT;
    BrotliDecoderErrorCode e = BrotliDecoderGetErrorCode(z->dec);
    return e >= BROTLI_DECODER_ERROR_ALLOC_BLOCK_TYPE_TREES &&
                   e <= BROTLI_DECODER_ERROR_ALLOC_CONTEXT_MODES
               ? FZ7_E_MEM
               : FZ7_E_DATA;
}

/* The fork_reader step: decodes into dst[0..cap) until some bytes come
 * out (*got > 0) or the input is used up between streams (*at_end set). */
static fz7_status br_step(fz7_fork_reader *r, uint8_t *dst, size_t cap, size_t *got, bool *at_end)
{
    br_reader *z = (br_reader *)r;
    *got = 0;
    *at_end = false;
    for (;;) {
        fz7_status st;
        if (!z->in_stream) {
            if ((st = begin_stream(z, at_end)) != FZ7_OK || *at_end)
                return st;
        }
        if ((st = fz7_fork_fill(r)) != FZ7_OK)
            return st;
        size_t avail = r->in_len - r->in_pos;
        if (z->framed && avail > z->frame_left)
            avail = (size_t)z->frame_left;
        size_t avail_in = avail, avail_out = cap;
        const uint8_t *next_in = r->buf + r->in_pos;
        uint8_t *next_out = dst;
        BrotliDecoderResult res =
            BrotliDecoderDecompressStream(z->dec, &avail_in, &next_in, &avail_out, &next_out, NULL);
        size_t used = avail - avail_in;
        r->in_pos += used;
        if (z->framed)
            z->frame_left -= used;
        *got = cap - avail_out;
        switch (res) {
        case BROTLI_DECODER_RESULT_ERROR:
            *got = 0;
            return br_error(z);
        case BROTLI_DECODER_RESULT_SUCCESS:
            /* A frame's stream fills its frame exactly. */
            if (z->framed && z->frame_left != 0)
                return FZ7_E_DATA;
            z->in_stream = false;
            break;
        case BROTLI_DECODER_RESULT_NEEDS_MORE_INPUT:
            if (z->framed && z->frame_left == 0)
                return FZ7_E_DATA;   /* the stream runs past its frame */
            if (r->in_pos == r->in_len && r->src_end)
                return FZ7_E_TRUNCATED;
            break;
        case BROTLI_DECODER_RESULT_NEEDS_MORE_OUTPUT:
            break;
        }
        if (*got > 0)
            return FZ7_OK;
    }
}

static void br_destroy(fz7_istream *s)
{
    br_reader *z = (br_reader *)s;
    if (z->dec)
        BrotliDecoderDestroyInstance(z->dec);
    free(z);
}

bool fz7_brotli_supported(void) { return true; }

fz7_status fz7_brotli_istream_new(fz7_istream *src, const uint8_t *props, size_t props_len,
                                  uint64_t out_size, uint64_t mem_limit, fz7_istream **out)
{
    *out = NULL;
    (void)props;   /* version and level: informational only */
    if (props_len != 3 && props_len != 5)
        return FZ7_E_UNSUPPORTED;
    br_reader *z = calloc(1, sizeof *z);
    if (!z)
        return FZ7_E_MEM;
    fz7_fork_reader_init(&z->fr, src, out_size, br_step, br_destroy);
    z->mem_limit = mem_limit ? mem_limit : FZ7_DEFAULT_MEM_LIMIT;
    *out = &z->fr.base;
    return FZ7_OK;
}

#else /* !FZ7_HAVE_BROTLI */

bool fz7_brotli_supported(void) { return false; }

fz7_status fz7_brotli_istream_new(fz7_istream *src, const uint8_t *props, size_t props_len,
                                  uint64_t out_size, uint64_t mem_limit, fz7_istream **out)
{
    (void)src, (void)props, (void)props_len, (void)out_size, (void)mem_limit;
    *out = NULL;
    return FZ7_E_UNSUPPORTED;
}

#endif
