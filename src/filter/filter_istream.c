/* filter_istream.c - one pull stream for every in-place filter (BCJ, Delta).
 *
 * The filters convert a buffer in place but may hold back the last few
 * bytes (an instruction that continues in the next read); this stream keeps
 * those bytes at the front of its buffer until more data or the end comes. */
#include "filter/filter.h"

#include <stdalign.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define FILTER_BUF_BYTES (1u << 16)

typedef struct {
    fz7_istream base;
    fz7_istream *src;
    fz7_filter_fn fn;
    size_t out_pos;   /* next converted byte to hand out */
    size_t done;      /* buf[0..done) is converted */
    size_t fill;      /* buf[0..fill) came from src */
    bool eof;         /* src has ended; buf[done..fill) passes unchanged */
    uint8_t buf[FILTER_BUF_BYTES];
    alignas(max_align_t) unsigned char state[];
} filter_istream;

static fz7_status filter_read(fz7_istream *s, uint8_t *out, size_t cap, size_t *got)
{
    filter_istream *f = (filter_istream *)s;
    *got = 0;
    while (f->out_pos == f->done) {
        if (f->eof)
            return FZ7_OK;
        /* Keep the bytes the filter held back, then append fresh input. */
        size_t tail = f->fill - f->done;
        if (tail == FILTER_BUF_BYTES)
            return FZ7_E_DATA; /* a filter that never converts: not ours */
        memmove(f->buf, f->buf + f->done, tail);
        f->fill = tail;
        f->done = f->out_pos = 0;
        size_t n = 0;
        fz7_status st = f->src->read(f->src, f->buf + f->fill, FILTER_BUF_BYTES - f->fill, &n);
        if (st != FZ7_OK)
            return st;
        f->fill += n;
        if (n == 0) {
            /* End of input: convert what can be, the rest passes as is. */
            f->eof = true;
            f->fn(f->state, f->buf, f->fill);
            f->done = f->fill;
        } else {
            f->done = f->fn(f->state, f->buf, f->fill);
        }
    }
    size_t n = f->done - f->out_pos;
    if (n > cap)
        n = cap;
    memcpy(out, f->buf + f->out_pos, n);
    f->out_pos += n;
    *got = n;
    return FZ7_OK;
}

static void filter_destroy(fz7_istream *s) { free(s); }

fz7_status fz7_filter_istream_new(fz7_istream *src, fz7_filter_fn fn, const void *state,
                                  size_t state_size, fz7_istream **out)
{
    *out = NULL;
    filter_istream *f = malloc(sizeof *f + state_size);
    if (!f)
        return FZ7_E_MEM;
    f->base.read = filter_read;
    f->base.destroy = filter_destroy;
    f->src = src;
    f->fn = fn;
    f->out_pos = f->done = f->fill = 0;
    f->eof = false;
    memcpy(f->state, state, state_size);
    *out = &f->base;
    return FZ7_OK;
}
