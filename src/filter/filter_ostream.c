/* filter_ostream.c - the archive writers' encoding filters (BCJ, other
 * branch converters, Delta) as one push stream.
 *
 * The branch converters may hold back the last few bytes of a buffer (an
 * instruction that continues in the next write); the stream keeps them at
 * the front of its buffer until more bytes come or the stream ends, when
 * they pass unconverted (xz-file-format.txt 5.3.2). */
#include "filter/filter.h"

#include <stdlib.h>
#include <string.h>

#define FILTER_OSTREAM_BUF ((size_t)1 << 16)

fz7_status fz7_filter_enc_init(fz7_filter_enc *f, fz7_filter_enc_kind kind, fz7_bcj_arch arch,
                               uint32_t param)
{
    f->kind = kind;
    switch (kind) {
    case FZ7_FILTER_ENC_X86:
        fz7_bcj_x86_init(&f->s.x86, 0);
        return FZ7_OK;
    case FZ7_FILTER_ENC_BRANCH:
        if (param % fz7_bcj_risc_alignment(arch) != 0)
            return FZ7_E_ARG;
        f->s.risc = (fz7_bcj_risc_state){arch, param};
        return FZ7_OK;
    case FZ7_FILTER_ENC_DELTA:
        return fz7_delta_init(&f->s.delta, param);
    }
    return FZ7_E_ARG;
}

size_t fz7_filter_enc_code(fz7_filter_enc *f, uint8_t *buf, size_t n)
{
    switch (f->kind) {
    case FZ7_FILTER_ENC_X86:
        return fz7_bcj_x86_encode(&f->s.x86, buf, n);
    case FZ7_FILTER_ENC_BRANCH:
        return fz7_bcj_risc_code(&f->s.risc, buf, n, true);
    case FZ7_FILTER_ENC_DELTA:
        fz7_delta_encode(&f->s.delta, buf, n);
        return n;
    }
    return n;
}

static fz7_status filter_write(fz7_ostream *os, const uint8_t *p, size_t n)
{
    fz7_filter_ostream *s = (fz7_filter_ostream *)os;
    while (n) {
        size_t take = FILTER_OSTREAM_BUF - s->fill;
        if (take > n)
            take = n;
        memcpy(s->buf + s->fill, p, take);
        s->fill += take;
        p += take;
        n -= take;
        if (s->fill < FILTER_OSTREAM_BUF)
            break;
        size_t done = fz7_filter_enc_code(&s->enc, s->buf, s->fill);
        fz7_status st = s->dst->write(s->dst, s->buf, done);
        if (st != FZ7_OK)
            return st;
        memmove(s->buf, s->buf + done, s->fill - done);
        s->fill -= done;
    }
    return FZ7_OK;
}

fz7_status fz7_filter_ostream_init(fz7_filter_ostream *s, const fz7_filter_enc *enc, fz7_ostream *dst)
{
    s->base.write = filter_write;
    s->enc = *enc;
    s->dst = dst;
    s->fill = 0;
    s->buf = malloc(FILTER_OSTREAM_BUF);
    return s->buf ? FZ7_OK : FZ7_E_MEM;
}

void fz7_filter_ostream_restart(fz7_filter_ostream *s, const fz7_filter_enc *enc)
{
    s->enc = *enc;
    s->fill = 0;
}

fz7_status fz7_filter_ostream_finish(fz7_filter_ostream *s)
{
    if (!s->fill)
        return FZ7_OK;
    (void)fz7_filter_enc_code(&s->enc, s->buf, s->fill);
    size_t n = s->fill;
    s->fill = 0;
    return s->dst->write(s->dst, s->buf, n);
}

void fz7_filter_ostream_free(fz7_filter_ostream *s)
{
    free(s->buf);
    s->buf = NULL;
}
