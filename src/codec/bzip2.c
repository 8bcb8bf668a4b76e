/* bzip2.c - the 7z BZip2 method (040202) as a pull stream over libbz2.
 *
 * libbz2 decodes one stream per BZ2_bzDecompressInit; 7-Zip (and pbzip2)
 * may write several streams back to back, so after each stream end the
 * decoder starts again on the bytes that follow, until src ends. */
#include "codec/codec.h"

#include <bzlib.h>
#include <stdlib.h>
#include <string.h>

#define IN_SIZE ((size_t)1 << 16)

typedef struct {
    fz7_istream base;
    fz7_istream *src;
    bz_stream bz;
    bool active;       /* bz holds an initialised decoder */
    bool in_stream;    /* inside a stream: its end has not been seen */
    bool src_end;
    bool done;
    bool started;      /* a stream has begun (empty input is an error) */
    int small;
    fz7_status err;
    uint8_t in[IN_SIZE];
} bz_reader;

static fz7_status bz_status(int ret)
{
    switch (ret) {
    case BZ_MEM_ERROR: return FZ7_E_MEM;
    case BZ_PARAM_ERROR:
    case BZ_CONFIG_ERROR: return FZ7_E_ARG;
    default: return FZ7_E_DATA;
    }
}

static fz7_status fill(bz_reader *r)
{
    if (r->bz.avail_in > 0 || r->src_end)
        return FZ7_OK;
    size_t got = 0;
    fz7_status st = r->src->read(r->src, r->in, IN_SIZE, &got);
    if (st != FZ7_OK)
        return st;
    r->bz.next_in = (char *)r->in;
    r->bz.avail_in = (unsigned)got;
    r->src_end = got == 0;
    return FZ7_OK;
}

static fz7_status bz_read_some(bz_reader *r, uint8_t *buf, size_t cap, size_t *got)
{
    *got = 0;
    while (*got == 0) {
        fz7_status st = fill(r);
        if (st != FZ7_OK)
            return st;
        if (!r->in_stream) {
            /* Between streams: the end of src ends the data; anything else
             * must be another stream (BZ_DATA_ERROR_MAGIC otherwise). */
            if (r->bz.avail_in == 0) {
                if (!r->started)
                    return FZ7_E_TRUNCATED;
                r->done = true;
                return FZ7_OK;
            }
            if (r->active)
                BZ2_bzDecompressEnd(&r->bz);
            char *next = r->bz.next_in;
            unsigned avail = r->bz.avail_in;
            memset(&r->bz, 0, sizeof r->bz);
            int ret = BZ2_bzDecompressInit(&r->bz, 0, r->small);
            r->active = ret == BZ_OK;
            if (ret != BZ_OK)
                return bz_status(ret);
            r->bz.next_in = next;
            r->bz.avail_in = avail;
            r->in_stream = true;
            r->started = true;
        }
        if (r->bz.avail_in == 0 && r->src_end)
            return FZ7_E_TRUNCATED;
        unsigned want = cap > (1u << 30) ? (1u << 30) : (unsigned)cap;
        r->bz.next_out = (char *)buf;
        r->bz.avail_out = want;
        int ret = BZ2_bzDecompress(&r->bz);
        *got = want - r->bz.avail_out;
        if (ret == BZ_STREAM_END)
            r->in_stream = false;
        else if (ret != BZ_OK)
            return bz_status(ret);
    }
    return FZ7_OK;
}

static fz7_status bz_read(fz7_istream *s, uint8_t *buf, size_t cap, size_t *got)
{
    bz_reader *r = (bz_reader *)s;
    *got = 0;
    if (r->err != FZ7_OK)
        return r->err;
    if (r->done || cap == 0)
        return FZ7_OK;
    fz7_status st = bz_read_some(r, buf, cap, got);
    if (st != FZ7_OK) {
        r->err = st;
        if (*got == 0)
            return st;
    }
    return FZ7_OK;
}

static void bz_destroy(fz7_istream *s)
{
    bz_reader *r = (bz_reader *)s;
    if (r->active)
        BZ2_bzDecompressEnd(&r->bz);
    free(r);
}

fz7_status fz7_bzip2_istream_new(fz7_istream *src, uint64_t mem_limit, fz7_istream **out)
{
    *out = NULL;
    /* libbz2 needs about 3.6 MiB for a level-9 stream, 2.3 MiB in small
     * mode (slower). */
    if (mem_limit != 0 && mem_limit < ((uint64_t)2400 << 10))
        return FZ7_E_MEMLIMIT;
    bz_reader *r = calloc(1, sizeof *r);
    if (!r)
        return FZ7_E_MEM;
    r->base.read = bz_read;
    r->base.destroy = bz_destroy;
    r->src = src;
    r->small = mem_limit != 0 && mem_limit < ((uint64_t)4 << 20);
    *out = &r->base;
    return FZ7_OK;
}
