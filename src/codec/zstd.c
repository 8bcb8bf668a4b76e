/* zstd.c - the 7-Zip-zstd fork's method 04F71101 (Zstandard) as a pull
 * stream over libzstd: plain zstd frames back to back, with the skippable
 * frames (0x184D2A50) of the fork's multi-threaded encoder between them.
 * Needs libzstd (FZ7_HAVE_ZSTD); without it the method stays unsupported. */
#include "codec/codec.h"

#include <stdlib.h>

#ifdef FZ7_HAVE_ZSTD
#include <zstd.h>
#include <zstd_errors.h>

#define IN_SIZE ((size_t)1 << 16)
/* Decoder memory besides the window: block buffers and tables. */
#define ZSTD_OVERHEAD ((uint64_t)1 << 20)

typedef struct {
    fz7_istream base;
    fz7_istream *src;
    ZSTD_DCtx *dctx;
    ZSTD_inBuffer in;
    uint64_t left;        /* output bytes still owed */
    bool src_end;
    bool frame_open;      /* inside a frame: its end has not been seen */
    bool done;
    fz7_status err;
    uint8_t buf[IN_SIZE];
} zstd_reader;

static fz7_status zstd_status(size_t ret)
{
    switch (ZSTD_getErrorCode(ret)) {
    case ZSTD_error_frameParameter_windowTooLarge: return FZ7_E_MEMLIMIT;
    case ZSTD_error_memory_allocation: return FZ7_E_MEM;
    default: return FZ7_E_DATA;
    }
}

/* Decodes into dst[0..cap) until some bytes come out (*got > 0) or the
 * input is used up (*got == 0, *at_end set). The input ends well only
 * between frames. */
static fz7_status zstd_step(zstd_reader *z, uint8_t *dst, size_t cap, size_t *got, bool *at_end)
{
    *got = 0;
    *at_end = false;
    for (;;) {
        if (z->in.pos == z->in.size && !z->src_end) {
            size_t n = 0;
            fz7_status st = z->src->read(z->src, z->buf, IN_SIZE, &n);
            if (st != FZ7_OK)
                return st;
            z->in.src = z->buf;
            z->in.size = n;
            z->in.pos = 0;
            z->src_end = n == 0;
        }
        size_t in_before = z->in.pos;
        ZSTD_outBuffer out = {dst, cap, 0};
        size_t ret = ZSTD_decompressStream(z->dctx, &out, &z->in);
        if (ZSTD_isError(ret))
            return zstd_status(ret);
        /* ret is 0 where a frame has just ended; a call that moved nothing
         * leaves the state as it was (at a boundary it would ask for the
         * next frame's header). */
        if (z->in.pos != in_before || out.pos > 0)
            z->frame_open = ret != 0;
        if (out.pos > 0) {
            *got = out.pos;
            return FZ7_OK;
        }
        if (z->in.pos == z->in.size && z->src_end) {
            if (z->frame_open)
                return FZ7_E_TRUNCATED;
            *at_end = true;
            return FZ7_OK;
        }
        /* Input left, room for output, and nothing moved: never loop. */
        if (z->in.pos == in_before && z->in.pos < z->in.size)
            return FZ7_E_DATA;
    }
}

static fz7_status zstd_read_some(zstd_reader *z, uint8_t *buf, size_t cap, size_t *got)
{
    bool at_end;
    if (z->left == 0) {
        /* Every byte is out: the rest of the input may finish the last
         * frame (its checksum) or hold skippable frames, nothing more. */
        uint8_t probe[64];
        size_t extra;
        fz7_status st = zstd_step(z, probe, sizeof probe, &extra, &at_end);
        if (st != FZ7_OK)
            return st;
        if (extra > 0)
            return FZ7_E_DATA;
        z->done = true;
        return FZ7_OK;
    }
    size_t want = cap < z->left ? cap : (size_t)z->left;
    fz7_status st = zstd_step(z, buf, want, got, &at_end);
    if (st != FZ7_OK)
        return st;
    if (at_end)
        return FZ7_E_DATA;   /* the frames hold fewer bytes than the unpack size */
    z->left -= *got;
    return FZ7_OK;
}

static fz7_status zstd_read(fz7_istream *s, uint8_t *buf, size_t cap, size_t *got)
{
    zstd_reader *z = (zstd_reader *)s;
    *got = 0;
    if (z->err != FZ7_OK)
        return z->err;
    /* The end check runs on a read after the last byte, whatever cap. */
    if (z->done || (cap == 0 && z->left != 0))
        return FZ7_OK;
    fz7_status st = zstd_read_some(z, buf, cap, got);
    if (st != FZ7_OK) {
        z->err = st;
        *got = 0;
    }
    return st;
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
        zstd_destroy(&z->base);
        return FZ7_E_UNSUPPORTED;
    }
    z->base.read = zstd_read;
    z->base.destroy = zstd_destroy;
    z->src = src;
    z->in.src = z->buf;
    z->left = out_size;
    *out = &z->base;
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

#endif
