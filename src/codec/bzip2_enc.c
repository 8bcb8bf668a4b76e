/* bzip2_enc.c - the 7z BZip2 method (040202) on the encoding side: one
 * bzip2 stream through libbz2, pushed to an ostream. */
#include "codec/codec.h"

#include <bzlib.h>
#include <stdlib.h>
#include <string.h>

#define OUT_SIZE ((size_t)1 << 16)

struct fz7_bzip2_enc {
    bz_stream bz;
    fz7_ostream *dst;
    uint64_t out_bytes;
    uint8_t out[OUT_SIZE];
};

fz7_status fz7_bzip2_enc_new(int block_100k, fz7_ostream *dst, fz7_bzip2_enc **out)
{
    *out = NULL;
    if (block_100k < 1 || block_100k > 9)
        return FZ7_E_ARG;
    fz7_bzip2_enc *e = calloc(1, sizeof *e);
    if (!e)
        return FZ7_E_MEM;
    /* workFactor 0: libbz2's default fallback for repetitive input. */
    int r = BZ2_bzCompressInit(&e->bz, block_100k, 0, 0);
    if (r != BZ_OK) {
        free(e);
        return r == BZ_MEM_ERROR ? FZ7_E_MEM : FZ7_E_ARG;
    }
    e->dst = dst;
    *out = e;
    return FZ7_OK;
}

/* Runs libbz2 with action until it has taken all input (BZ_RUN) or ended
 * the stream (BZ_FINISH), passing its output on. */
static fz7_status pump(fz7_bzip2_enc *e, int action)
{
    for (;;) {
        e->bz.next_out = (char *)e->out;
        e->bz.avail_out = (unsigned)OUT_SIZE;
        int r = BZ2_bzCompress(&e->bz, action);
        size_t n = OUT_SIZE - e->bz.avail_out;
        if (n) {
            fz7_status st = e->dst->write(e->dst, e->out, n);
            if (st != FZ7_OK)
                return st;
            e->out_bytes += n;
        }
        if (action == BZ_FINISH) {
            if (r == BZ_STREAM_END)
                return FZ7_OK;
            if (r != BZ_FINISH_OK)
                return FZ7_E_ARG;
        } else {
            if (r != BZ_RUN_OK)
                return FZ7_E_ARG;
            if (e->bz.avail_in == 0)
                return FZ7_OK;
        }
    }
}

fz7_status fz7_bzip2_enc_write(fz7_bzip2_enc *e, const uint8_t *p, size_t n)
{
    while (n) {
        /* avail_in is an unsigned int: feed at most 1 GiB at a time. */
        size_t take = n < ((size_t)1 << 30) ? n : (size_t)1 << 30;
        e->bz.next_in = (char *)(uintptr_t)p;
        e->bz.avail_in = (unsigned)take;
        fz7_status st = pump(e, BZ_RUN);
        if (st != FZ7_OK)
            return st;
        p += take;
        n -= take;
    }
    return FZ7_OK;
}

fz7_status fz7_bzip2_enc_finish(fz7_bzip2_enc *e)
{
    e->bz.next_in = NULL;
    e->bz.avail_in = 0;
    return pump(e, BZ_FINISH);
}

uint64_t fz7_bzip2_enc_bytes_out(const fz7_bzip2_enc *e)
{
    return e->out_bytes;
}

void fz7_bzip2_enc_free(fz7_bzip2_enc *e)
{
    if (!e)
        return;
    BZ2_bzCompressEnd(&e->bz);
    free(e);
}
