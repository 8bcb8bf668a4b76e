/* zstd.c - the 7-Zip-zstd fork's method 04F71101 (Zstandard) as a pull
 * stream over libzstd: plain zstd frames back to back, with the skippable
 * frames (0x184D2A50) of the fork's multi-threaded encoder between them.
 * Needs libzstd (FZ7_HAVE_ZSTD); without it the method stays unsupported. */
#include "codec/codec.h"

#include <stdlib.h>

#ifdef FZ7_HAVE_ZSTD
#include "codec/fork_reader.h"

#include <zstd.h>
#include <zstd_errors.h>

/* Decoder memory besides the window: block buffers and tables. */
#define ZSTD_OVERHEAD ((uint64_t)1 << 20)

typedef struct {
    fz7_fork_reader fr;   /* input, output bound, end check */
    ZSTD_DCtx *dctx;
    bool frame_open;      /* inside a frame: its end has not been seen */
} zstd_reader;

static fz7_status zstd_status(size_t ret)
{
    switch (ZSTD_getErrorCode(ret)) {
    case ZSTD_error_frameParameter_windowTooLarge: return FZ7_E_MEMLIMIT;
    case ZSTD_error_memory_allocation: return FZ7_E_MEM;
    default: return FZ7_E_DATA;
    }
}

/* The fork_reader step: the input ends well only between frames. */
static fz7_status zstd_step(fz7_fork_reader *r, uint8_t *dst, size_t cap, size_t *got,
                            bool *at_end)
{
    zstd_reader *z = (zstd_reader *)r;
    *got = 0;
    *at_end = false;
    for (;;) {
        fz7_status st = fz7_fork_fill(r);
        if (st != FZ7_OK)
            return st;
        size_t in_before = r->in_pos;
        ZSTD_inBuffer in = {r->buf, r->in_len, r->in_pos};
        ZSTD_outBuffer out = {dst, cap, 0};
        size_t ret = ZSTD_decompressStream(z->dctx, &out, &in);
        r->in_pos = in.pos;
        if (ZSTD_isError(ret))
            return zstd_status(ret);
        /* ret is 0 where a frame has just ended; a call that moved nothing
         * leaves the state as it was (at a boundary it would ask for the
         * next frame's header). */
        if (r->in_pos != in_before || out.pos > 0)
            z->frame_open = ret != 0;
        if (out.pos > 0) {
            *got = out.pos;
            return FZ7_OK;
        }
        if (r->in_pos == r->in_len && r->src_end) {
            if (z->frame_open)
                return FZ7_E_TRUNCATED;
            *at_end = true;
            return FZ7_OK;
        }
        /* Input left, room for output, and nothing moved: never loop. */
        if (r->in_pos == in_before && r->in_pos < r->in_len)
            return FZ7_E_DATA;
    }
}

static void zstd_destroy(fz7_istream *s)
{
    zstd_reader *z = (zstd_reader *)s;
    ZSTD_freeDCtx(z->dctx);
    free(z);
}

bool fz7_zstd_supported(void) { return true; }

fz7_status fz7_zstd_istream_new(fz7_istream *src, const uint8_t *props, size_t props_len,
                                uint64_t out_size, uint64_t mem_limit, fz7_istream **out)
{
    *out = NULL;
    (void)props;   /* version and level: informational only */
    if (props_len != 3 && props_len != 5)
        return FZ7_E_UNSUPPORTED;
    if (mem_limit == 0)
        mem_limit = FZ7_DEFAULT_MEM_LIMIT;
    /* The largest window the limit allows; libzstd refuses a frame whose
     * header asks for more before it allocates anything for it. */
    ZSTD_bounds b = ZSTD_dParam_getBounds(ZSTD_d_windowLogMax);
    if (ZSTD_isError(b.error))
        return FZ7_E_UNSUPPORTED;
    int log_max = b.upperBound;
    while (log_max > b.lowerBound && ((uint64_t)1 << log_max) + ZSTD_OVERHEAD > mem_limit)
        log_max--;
    if (((uint64_t)1 << log_max) + ZSTD_OVERHEAD > mem_limit)
        return FZ7_E_MEMLIMIT;
    zstd_reader *z = calloc(1, sizeof *z);
    if (!z)
        return FZ7_E_MEM;
    z->dctx = ZSTD_createDCtx();
    if (!z->dctx) {
        free(z);
        return FZ7_E_MEM;
    }
    if (ZSTD_isError(ZSTD_DCtx_setParameter(z->dctx, ZSTD_d_windowLogMax, log_max))) {
        zstd_destroy(&z->fr.base);
        return FZ7_E_UNSUPPORTED;
    }
    fz7_fork_reader_init(&z->fr, src, out_size, zstd_step, zstd_destroy);
    *out = &z->fr.base;
    return FZ7_OK;
}

fz7_status fz7_zstd_decode_block(const uint8_t *in, size_t n, uint8_t *out, size_t cap, size_t *got)
{
    *got = 0;
    size_t r = ZSTD_decompress(out, cap, in, n);
    if (ZSTD_isError(r))
        return ZSTD_getErrorCode(r) == ZSTD_error_memory_allocation ? FZ7_E_MEM : FZ7_E_DATA;
    *got = r;
    return FZ7_OK;
}

#else /* !FZ7_HAVE_ZSTD */

bool fz7_zstd_supported(void) { return false; }

fz7_status fz7_zstd_istream_new(fz7_istream *src, const uint8_t *props, size_t props_len,
                                uint64_t out_size, uint64_t mem_limit, fz7_istream **out)
{
    (void)src, (void)props, (void)props_len, (void)out_size, (void)mem_limit;
    *out = NULL;
    return FZ7_E_UNSUPPORTED;
}

fz7_status fz7_zstd_decode_block(const uint8_t *in, size_t n, uint8_t *out, size_t cap, size_t *got)
{
    (void)in, (void)n, (void)out, (void)cap;
    *got = 0;
    return FZ7_E_UNSUPPORTED;
}

#endif
