/* ppmd_common.c - the parts of the PPMd models that variants H and I share
 * (ppmd_common.h). */
#include "codec/ppmd_common.h"

#include <stdlib.h>
#ifdef __linux__
#include <sys/mman.h>
#endif

void fz7_ppmd_units_tables(uint8_t index_units[NUM_INDEXES], uint8_t units_index[128])
{
    unsigned k = 0;
    for (unsigned i = 0; i < NUM_INDEXES; i++) {
        unsigned step = i >= 12 ? 4 : (i >> 2) + 1;
        while (step--)
            units_index[k++] = (uint8_t)i;
        index_units[i] = (uint8_t)k;
    }
}

/* The model is read at random places: on Linux a large heap goes on 2 MiB
 * pages when the kernel allows (far fewer TLB misses). */
void *fz7_ppmd_heap_alloc(size_t n)
{
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    const size_t huge = (size_t)2 << 20;
    if (n >= huge) {
        void *p = NULL;
        if (posix_memalign(&p, huge, (n + huge - 1) & ~(huge - 1)) != 0)
            return NULL;
        madvise(p, (n + huge - 1) & ~(huge - 1), MADV_HUGEPAGE);
        return p;
    }
#endif
    return malloc(n);
}

fz7_status fz7_ppmd_in_refill(fz7_ppmd_in *in, uint8_t *v)
{
    size_t got = 0;
    fz7_status st = in->overrun ? FZ7_OK : in->src->read(in->src, in->buf, FZ7_PPMD_BUF_SIZE, &got);
    if (st != FZ7_OK)
        return st;
    in->pos = 0;
    in->len = got;
    if (got == 0) {
        in->overrun = true;
        *v = 0;
        return FZ7_OK;
    }
    *v = in->buf[in->pos++];
    return FZ7_OK;
}

void fz7_ppmd_out_push(fz7_ppmd_out *out)
{
    if (out->err == FZ7_OK)
        out->err = out->dst->write(out->dst, out->buf, out->len);
    out->bytes_out += out->len;
    out->len = 0;
}

fz7_status fz7_ppmd_out_flush(fz7_ppmd_out *out)
{
    if (out->len != 0)
        fz7_ppmd_out_push(out);
    return out->err;
}
