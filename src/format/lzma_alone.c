/* lzma_alone.c - the .lzma (LZMA_Alone) reader: a 13-byte header and one
 * raw LZMA stream (lzma-file-format.txt). There is no magic, so the header
 * is recognised conservatively, after the 7z and xz readers had their turn. */
#include "format/archive_impl.h"
#include "format/file_io.h"
#include "lzma/lzma_dec.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define LZMA_ALONE_HEADER_BYTES 13
#define LZMA_ALONE_OUT_CHUNK ((size_t)256 << 10)
#define LZMA_ALONE_SIZE_MAX ((uint64_t)1 << 48)  /* larger known sizes: not .lzma */

typedef struct {
    uint8_t props[5];        /* lc/lp/pb byte and dictionary size */
    uint64_t unpack_size;    /* UINT64_MAX when unknown (end marker) */
    char method[48];
} lzma_alone_priv;

/* 2^n or 2^n + 2^(n-1), as every known encoder writes it, or UINT32_MAX. */
static bool dict_plausible(uint32_t d)
{
    if (d == UINT32_MAX)
        return true;
    if (d == 0)
        return false;
    uint32_t low = d & (0u - d);   /* lowest set bit */
    uint32_t rest = d - low;
    return rest == 0 || rest == low * 2;
}


static fz7_status lzma_alone_extract(fz7_archive *a, const bool *select, const fz7_extract_cb *cb,
                                     char *err, size_t errlen)
{
    if (select && !select[0])
        return FZ7_OK;
    lzma_alone_priv *p = a->priv;
    fz7_status st = cb->begin(cb->ctx, 0, &a->entries[0]);
    if (st != FZ7_OK)
        return st;
    uint8_t *buf = malloc(LZMA_ALONE_OUT_CHUNK);
    fz7_istream *in = fz7_fd_istream_new(a->fd, LZMA_ALONE_HEADER_BYTES,
                                         a->file_size - LZMA_ALONE_HEADER_BYTES);
    fz7_istream *dec = NULL;
    if (!buf || !in) {
        free(buf);
        fz7_istream_free(in);
        return FZ7_E_MEM;
    }
    st = fz7_lzma_istream_new(in, p->props, p->unpack_size, a->opts.mem_limit, &dec);
    uint64_t produced = 0;
    bool cb_failed = false;
    if (st == FZ7_OK)
        st = fz7_pump_decoded(dec, cb, buf, LZMA_ALONE_OUT_CHUNK, &produced, NULL, &cb_failed);
    fz7_istream_free(dec);
    fz7_istream_free(in);
    free(buf);
    if (cb_failed)
        return st;
    char detail[128];
    detail[0] = 0;
    if (st == FZ7_OK && p->unpack_size != UINT64_MAX && produced != p->unpack_size) {
        snprintf(detail, sizeof detail, "LZMA stream ended after %" PRIu64 " of %" PRIu64 " bytes",
                 produced, p->unpack_size);
        st = FZ7_E_DATA;
    } else if (st == FZ7_E_MEMLIMIT) {
        snprintf(detail, sizeof detail, "LZMA dictionary of %" PRIu32
                 " bytes exceeds the memory limit", fz7_get32le(p->props + 1));
    } else if (st != FZ7_OK) {
        snprintf(detail, sizeof detail, "%s after %" PRIu64 " bytes of output",
                 fz7_status_str(st), produced);
    }
    return fz7_end_one(cb, st, detail, err, errlen);
}

static void lzma_alone_close(fz7_archive *a)
{
    free(a->priv);
    a->priv = NULL;
}

static const fz7_archive_ops lzma_alone_ops = {lzma_alone_extract, lzma_alone_close, NULL};

fz7_status fz7_lzma_alone_open(fz7_archive *a, char *err, size_t errlen)
{
    /* Header plus at least the range coder's 5 initial bytes. */
    uint8_t h[LZMA_ALONE_HEADER_BYTES + 1];
    if (a->file_size < LZMA_ALONE_HEADER_BYTES + 5)
        return FZ7_E_FORMAT;
    fz7_status st = fz7_pread_full(a->fd, h, sizeof h, 0);
    if (st != FZ7_OK) {
        snprintf(err, errlen, "Read error");
        return st;
    }
    uint32_t dict = fz7_get32le(h + 1);
    uint64_t size = fz7_get64le(h + 5);
    /* props < 9*5*5; a sane dictionary; a size that is unknown or modest;
     * the range coder's first byte is always 0. */
    if (h[0] >= 225 || !dict_plausible(dict) ||
        (size != UINT64_MAX && size >= LZMA_ALONE_SIZE_MAX) || h[13] != 0)
        return FZ7_E_FORMAT;

    lzma_alone_priv *p = calloc(1, sizeof *p);
    fz7_entry *e = fz7_single_entry_new(a);
    if (!p || !e) {
        free(p);
        if (e)
            free(e->path);
        free(e);
        return FZ7_E_MEM;
    }
    memcpy(p->props, h, 5);
    p->unpack_size = size;
    unsigned lc = h[0] % 9, lp = h[0] / 9 % 5, pb = h[0] / 45;
    char dname[16];
    fz7_dict_name(dict, dname, sizeof dname);
    int len = snprintf(p->method, sizeof p->method, "LZMA:%s", dname);
    if (lc != 3)
        len += snprintf(p->method + len, sizeof p->method - (size_t)len, ":lc%u", lc);
    if (lp != 0)
        len += snprintf(p->method + len, sizeof p->method - (size_t)len, ":lp%u", lp);
    if (pb != 2)
        snprintf(p->method + len, sizeof p->method - (size_t)len, ":pb%u", pb);

    e->has_size = size != UINT64_MAX;
    e->size = e->has_size ? size : 0;
    e->packed_size = a->file_size;
    e->mode = S_IFREG | 0644;
    e->has_stream = true;
    e->folder = 0;
    e->method = p->method;
    a->entries = e;
    a->count = 1;
    a->ops = &lzma_alone_ops;
    a->priv = p;
    a->info.format = FZ7_FORMAT_LZMA;
    a->info.method = p->method;
    a->info.sizes_unknown = true; /* as 7-Zip: no Physical Size, no packed size */
    return FZ7_OK;
}
