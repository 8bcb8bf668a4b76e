/* lz4.c - the 7-Zip-zstd fork's method 04F71104 (LZ4) as a pull stream
 * over liblz4's frame decoder: LZ4 frames back to back, with the skippable
 * frames (0x184D2A50) of the fork's multi-threaded encoder between them.
 * Needs liblz4 (FZ7_HAVE_LZ4); without it the method stays unsupported. */
#include "codec/codec.h"

#include <stdlib.h>

#ifdef FZ7_HAVE_LZ4
#include <lz4frame.h>

#define IN_SIZE ((size_t)1 << 16)
/* liblz4 keeps a block buffer and a block plus 128 KiB of history: with
 * the largest block size (4 MiB) about 8.3 MiB. */
#define LZ4_MEM_NEEDED ((uint64_t)9 << 20)

typedef struct {
    fz7_istream base;
    fz7_istream *src;
    LZ4F_dctx *dctx;
    size_t in_pos, in_len;
    uint64_t left;        /* output bytes still owed */
    bool src_end;
    bool frame_open;      /* inside a frame: its end has not been seen */
    bool done;
    fz7_status err;
    uint8_t buf[IN_SIZE];
} lz4_reader;

/* Decodes into dst[0..cap) until some bytes come out (*got > 0) or the
 * input is used up (*got == 0, *at_end set). The input ends well only
 * between frames. */
static fz7_status lz4_step(lz4_reader *z, uint8_t *dst, size_t cap, size_t *got, bool *at_end)
{
    *got = 0;
    *at_end = false;
    for (;;) {
        if (z->in_pos == z->in_len && !z->src_end) {
            size_t n = 0;
            fz7_status st = z->src->read(z->src, z->buf, IN_SIZE, &n);
            if (st != FZ7_OK)
                return st;
            z->in_pos = 0;
            z->in_len = n;
            z->src_end = n == 0;
        }
        size_t in_n = z->in_len - z->in_pos, out_n = cap;
        size_t ret = LZ4F_decompress(z->dctx, dst, &out_n, z->buf + z->in_pos, &in_n, NULL);
        if (LZ4F_isError(ret))
            return FZ7_E_DATA;
        z->in_pos += in_n;
        /* ret is 0 where a frame has just ended; a call that moved nothing
         * leaves the state as it was. */
        if (in_n > 0 || out_n > 0)
            z->frame_open = ret != 0;
        if (out_n > 0) {
            *got = out_n;
            return FZ7_OK;
        }
        if (z->in_pos == z->in_len && z->src_end) {
            if (z->frame_open)
                return FZ7_E_TRUNCATED;
            *at_end = true;
            return FZ7_OK;
        }
        if (in_n == 0 && z->in_pos < z->in_len)
            return FZ7_E_DATA;   /* input left and nothing moved: never loop */
    }
}

static fz7_status lz4_read_some(lz4_reader *z, uint8_t *buf, size_t cap, size_t *got)
{
    bool at_end;
    if (z->left == 0) {
        /* Every byte is out: the rest may end the last frame (end mark,
         * content checksum) or be skippable frames, nothing more. */
        uint8_t probe[64];
        size_t extra;
        fz7_status st = lz4_step(z, probe, sizeof probe, &extra, &at_end);
        if (st != FZ7_OK)
            return st;
        if (extra > 0)
            return FZ7_E_DATA;
        z->done = true;
        return FZ7_OK;
    }
    size_t want = cap < z->left ? cap : (size_t)z->left;
    fz7_status st = lz4_step(z, buf, want, got, &at_end);
    if (st != FZ7_OK)
        return st;
    if (at_end)
        return FZ7_E_DATA;   /* the frames hold fewer bytes than the unpack size */
    z->left -= *got;
    return FZ7_OK;
}

static fz7_status lz4_read(fz7_istream *s, uint8_t *buf, size_t cap, size_t *got)
{
    lz4_reader *z = (lz4_reader *)s;
    *got = 0;
    if (z->err != FZ7_OK)
        return z->err;
    if (z->done || (cap == 0 && z->left != 0))
        return FZ7_OK;
    fz7_status st = lz4_read_some(z, buf, cap, got);
    if (st != FZ7_OK) {
        z->err = st;
        *got = 0;
    }
    return st;
}

static void lz4_destroy(fz7_istream *s)
{
    lz4_reader *z = (lz4_reader *)s;
    LZ4F_freeDecompressionContext(z->dctx);
    free(z);
}

bool fz7_lz4_supported(void) { return true; }

fz7_status fz7_lz4_istream_new(fz7_istream *src, const uint8_t *props, size_t props_len,
                               uint64_t out_size, uint64_t mem_limit, fz7_istream **out)
{
    *out = NULL;
    (void)props;   /* version and level: informational only */
    if (props_len != 3 && props_len != 5)
        return FZ7_E_UNSUPPORTED;
    if (mem_limit != 0 && mem_limit < LZ4_MEM_NEEDED)
        return FZ7_E_MEMLIMIT;
    lz4_reader *z = calloc(1, sizeof *z);
    if (!z)
        return FZ7_E_MEM;
    if (LZ4F_isError(LZ4F_createDecompressionContext(&z->dctx, LZ4F_VERSION))) {
        free(z);
        return FZ7_E_MEM;
    }
    z->base.read = lz4_read;
    z->base.destroy = lz4_destroy;
    z->src = src;
    z->left = out_size;
    *out = &z->base;
    return FZ7_OK;
}

#else /* !FZ7_HAVE_LZ4 */

bool fz7_lz4_supported(void) { return false; }

fz7_status fz7_lz4_istream_new(fz7_istream *src, const uint8_t *props, size_t props_len,
                               uint64_t out_size, uint64_t mem_limit, fz7_istream **out)
{
    (void)src, (void)props, (void)props_len, (void)out_size, (void)mem_limit;
    *out = NULL;
    return FZ7_E_UNSUPPORTED;
}

#endif
