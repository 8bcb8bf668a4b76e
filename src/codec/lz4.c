/* lz4.c - the 7-Zip-zstd fork's method 04F71104 (LZ4) as a pull stream
 * over liblz4's frame decoder: LZ4 frames back to back, with the skippable
 * frames (0x184D2A50) of the fork's multi-threaded encoder between them.
 * Needs liblz4 (FZ7_HAVE_LZ4); without it the method stays unsupported. */
#include "codec/codec.h"

#include <stdlib.h>

#ifdef FZ7_HAVE_LZ4
#include "codec/fork_reader.h"

#include <lz4frame.h>

/* liblz4 keeps a block buffer and a block plus 128 KiB of history: with
 * the largest block size (4 MiB) about 8.3 MiB. */
#define LZ4_MEM_NEEDED ((uint64_t)9 << 20)

typedef struct {
    fz7_fork_reader fr;   /* input, output bound, end check */
    LZ4F_dctx *dctx;
    bool frame_open;      /* inside a frame: its end has not been seen */
} lz4_reader;

/* The fork_reader step: the input ends well only between frames. */
static fz7_status lz4_step(fz7_fork_reader *r, uint8_t *dst, size_t cap, size_t *got,
                           bool *at_end)
{
    lz4_reader *z = (lz4_reader *)r;
    *got = 0;
    *at_end = false;
    for (;;) {
        fz7_status st = fz7_fork_fill(r);
        if (st != FZ7_OK)
            return st;
        size_t in_n = r->in_len - r->in_pos, out_n = cap;
        size_t ret = LZ4F_decompress(z->dctx, dst, &out_n, r->buf + r->in_pos, &in_n, NULL);
        if (LZ4F_isError(ret))
            return FZ7_E_DATA;
        r->in_pos += in_n;
        /* ret is 0 where a frame has just ended; a call that moved nothing
         * leaves the state as it was. */
        if (in_n > 0 || out_n > 0)
            z->frame_open = ret != 0;
        if (out_n > 0) {
            *got = out_n;
            return FZ7_OK;
        }
        if (r->in_pos == r->in_len && r->src_end) {
            if (z->frame_open)
                return FZ7_E_TRUNCATED;
            *at_end = true;
            return FZ7_OK;
        }
        if (in_n == 0 && r->in_pos < r->in_len)
            return FZ7_E_DATA;   /* input left and nothing moved: never loop */
    }
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
    fz7_fork_reader_init(&z->fr, src, out_size, lz4_step, lz4_destroy);
    *out = &z->fr.base;
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
