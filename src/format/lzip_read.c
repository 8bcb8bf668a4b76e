/* lzip_read.c - the .lz (lzip) reader: one or more members, each a 6-byte
 * header ("LZIP", version 1, coded dictionary size), an LZMA stream with
 * lc=3 lp=0 pb=2 ended by the end marker, and a 20-byte trailer (CRC32 of
 * the data, data size, member size; little endian) (lzip manual, "File
 * format"). The members are found from the end of the file backwards
 * through the member sizes, so sizes are known before decoding. */
#include "check/check.h"
#include "format/archive_impl.h"
#include "format/file_io.h"
#include "lzma/lzma_dec.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define LZIP_HEADER 6
#define LZIP_TRAILER 20
#define LZIP_MIN_MEMBER (LZIP_HEADER + 5 + LZIP_TRAILER)  /* 5: the range coder's start */
#define LZIP_OUT_CHUNK ((size_t)256 << 10)

typedef struct lzip_member {
    uint64_t start, size;     /* bytes in the file, header to trailer */
    uint64_t data_size;
    uint32_t crc, dict;
} lzip_member;

typedef struct lzip_priv {
    lzip_member *m;           /* in file order */
    size_t n;
    char method[32];
} lzip_priv;

/* The dictionary size a DS byte codes: 2^(bits 4-0) less (bits 7-5)
 * sixteenths of it; 0 when outside 4 KiB .. 512 MiB. */
static uint32_t lzip_dict(uint8_t ds)
{
    unsigned lg = ds & 31u;
    if (lg < 12 || lg > 29)
        return 0;
    uint32_t base = (uint32_t)1 << lg;
    uint32_t d = base - (base / 16) * (ds >> 5);
    return d < 4096 ? 0 : d;
}

/* Decodes member m into cb->data; checks its CRC32 and data size.
 * *cb_failed: the error is the callback's own (no detail then). */
static fz7_status decode_member(fz7_archive *a, const lzip_member *m, const fz7_extract_cb *cb,
                                uint8_t *buf, char *detail, size_t dlen, bool *cb_failed)
{
    uint8_t props[5] = {3 + 9 * (0 + 5 * 2)};   /* lc=3 lp=0 pb=2 */
    fz7_put32le(props + 1, m->dict);
    fz7_istream *in = fz7_fd_istream_new(a->fd, m->start + LZIP_HEADER,
                                         m->size - LZIP_HEADER - LZIP_TRAILER);
    fz7_istream *dec = NULL;
    if (!in)
        return FZ7_E_MEM;
    fz7_status st = fz7_lzma_istream_new(in, props, UINT64_MAX, a->opts.mem_limit, &dec);
    uint64_t produced = 0;
    uint32_t crc = 0;
    if (st == FZ7_OK)
        st = fz7_pump_decoded(dec, cb, buf, LZIP_OUT_CHUNK, &produced, &crc, cb_failed);
    fz7_istream_free(dec);
    fz7_istream_free(in);
    if (*cb_failed)
        return st;
    if (st == FZ7_E_MEMLIMIT)
        snprintf(detail, dlen, "LZMA dictionary of %" PRIu32 " bytes exceeds the memory limit",
                 m->dict);
    else if (st != FZ7_OK)
        snprintf(detail, dlen, "%s in the member at offset %" PRIu64 " after %" PRIu64
                 " bytes of output", fz7_status_str(st), m->start, produced);
    else if (st == FZ7_OK && produced != m->data_size) {
        snprintf(detail, dlen, "the member at offset %" PRIu64 " holds %" PRIu64
                 " bytes, its trailer says %" PRIu64, m->start, produced, m->data_size);
        st = FZ7_E_DATA;
    } else if (st == FZ7_OK && crc != m->crc) {
        snprintf(detail, dlen, "CRC32 of the member at offset %" PRIu64 " is %08" PRIX32
                 ", its trailer says %08" PRIX32, m->start, crc, m->crc);
        st = FZ7_E_CRC;
    }
    return st;
}

static fz7_status lzip_extract(fz7_archive *a, const bool *select, const fz7_extract_cb *cb,
                               char *err, size_t errlen)
{
    if (select && !select[0])
        return FZ7_OK;
    lzip_priv *p = a->priv;
    fz7_status st = cb->begin(cb->ctx, 0, &a->entries[0]);
    if (st != FZ7_OK)
        return st;
    uint8_t *buf = malloc(LZIP_OUT_CHUNK);
    if (!buf)
        return FZ7_E_MEM;
    char detail[200] = "";
    bool cb_failed = false;
    for (size_t i = 0; i < p->n && st == FZ7_OK; i++)
        st = decode_member(a, &p->m[i], cb, buf, detail, sizeof detail, &cb_failed);
    free(buf);
    return cb_failed ? st : fz7_end_one(cb, st, detail, err, errlen);
}

static void lzip_close(fz7_archive *a)
{
    lzip_priv *p = a->priv;
    if (p)
        free(p->m);
    free(p);
    a->priv = NULL;
}

static const fz7_archive_ops lzip_ops = {lzip_extract, lzip_close, NULL};

fz7_status fz7_lzip_open(fz7_archive *a, char *err, size_t errlen)
{
    uint8_t h[LZIP_HEADER];
    if (a->file_size < LZIP_HEADER)
        return FZ7_E_FORMAT;
    fz7_status st = fz7_pread_full(a->fd, h, sizeof h, 0);
    if (st != FZ7_OK) {
        snprintf(err, errlen, "Read error");
        return st;
    }
    if (memcmp(h, "LZIP", 4) != 0)
        return FZ7_E_FORMAT;
    if (h[4] != 1) {
        snprintf(err, errlen, "Unsupported lzip version %u", h[4]);
        return FZ7_E_UNSUPPORTED;
    }
    lzip_priv *p = calloc(1, sizeof *p);
    if (!p)
        return FZ7_E_MEM;
    size_t cap = 0;
    uint64_t pos = a->file_size, total = 0;
    uint32_t max_dict = 0;
    /* Members from the last back to the first; each one's size is in its
     * own trailer, so a walk of n steps covers the file exactly. */
    while (pos > 0) {
        uint8_t t[LZIP_TRAILER], mh[LZIP_HEADER];
        if (pos < LZIP_MIN_MEMBER) {
            snprintf(err, errlen, "Headers Error: %" PRIu64 " bytes before the first member are "
                     "no lzip member", pos);
            st = FZ7_E_FORMAT;
            break;
        }
        if ((st = fz7_pread_full(a->fd, t, sizeof t, pos - LZIP_TRAILER)) != FZ7_OK)
            break;
        uint64_t msize = fz7_get64le(t + 12);
        uint64_t start = pos - msize;
        if (msize < LZIP_MIN_MEMBER || msize > pos ||
            fz7_pread_full(a->fd, mh, sizeof mh, start) != FZ7_OK ||
            memcmp(mh, "LZIP", 4) != 0 || mh[4] != 1 || !lzip_dict(mh[5])) {
            snprintf(err, errlen, pos == a->file_size
                     ? "Headers Error: the file does not end with an lzip member trailer"
                     : "Headers Error: bad lzip member size before offset %" PRIu64, pos);
            st = FZ7_E_FORMAT;
            break;
        }
        /* A file of many tiny members: their list counts against the
         * memory limit like any other header data. */
        if ((st = fz7_grow((void **)&p->m, p->n, &cap, sizeof *p->m, 4, a->opts.mem_limit)) != FZ7_OK) {
            if (st == FZ7_E_MEMLIMIT)
                snprintf(err, errlen, "The list of lzip members exceeds the memory limit");
            break;
        }
        lzip_member *m = &p->m[p->n++];
        m->start = start;
        m->size = msize;
        m->crc = fz7_get32le(t);
        m->data_size = fz7_get64le(t + 4);
        m->dict = lzip_dict(mh[5]);
        if (m->dict > max_dict)
            max_dict = m->dict;
        if (total + m->data_size < total) {
            snprintf(err, errlen, "Headers Error: the members' data sizes overflow");
            st = FZ7_E_FORMAT;
            break;
        }
        total += m->data_size;
        pos = start;
    }
    fz7_entry *e = NULL;
    if (st == FZ7_OK && !(e = fz7_single_entry_new(a)))
        st = FZ7_E_MEM;
    if (st != FZ7_OK) {
        free(p->m);
        free(p);
        if (st == FZ7_E_IO)
            snprintf(err, errlen, "Read error");
        return st;
    }
    for (size_t i = 0; i < p->n / 2; i++) {  /* into file order */
        lzip_member tmp = p->m[i];
        p->m[i] = p->m[p->n - 1 - i];
        p->m[p->n - 1 - i] = tmp;
    }
    char dname[16];
    fz7_dict_name(max_dict, dname, sizeof dname);
    snprintf(p->method, sizeof p->method, "LZMA:%s", dname);
    e->has_size = true;
    e->size = total;
    e->packed_size = a->file_size;
    e->mode = S_IFREG | 0644;
    e->has_stream = true;
    e->folder = 0;
    e->method = p->method;
    a->entries = e;
    a->count = 1;
    a->ops = &lzip_ops;
    a->priv = p;
    a->info.format = FZ7_FORMAT_OTHER;
    a->info.type_name = "lzip";
    a->info.method = p->method;
    return FZ7_OK;
}
