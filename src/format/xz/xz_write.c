/* xz_write.c - the .xz writer: stream header, blocks (header, LZMA2 data
 * behind optional BCJ/Delta, padding, check), index, stream footer
 * (xz-file-format.txt 2-4). On a seekable fd each block header is reserved
 * at its largest size and rewritten with the real sizes when the block
 * ends; Header Padding (3.1.6) absorbs the difference. */
#include "format/xz/xz_write.h"

#include "format/fd_ostream.h"

#include "check/check.h"
#include "filter/filter.h"
#include "lzma/lzma_presets.h"
#include "lzma/lzma2_mt.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Size byte + flags + two 9-byte VLIs + up to three filter flags (at most
 * 3 bytes each here) + CRC32, rounded up to a multiple of 4. */
#define RESERVED_BLOCK_HEADER 36

enum { FILTER_DELTA = 0x03, FILTER_X86 = 0x04, FILTER_LZMA2 = 0x21 };

static const uint8_t header_magic[6] = {0xFD, '7', 'z', 'X', 'Z', 0x00};
static const uint8_t footer_magic[2] = {'Y', 'Z'};

/* The xz filter ID of a branch filter (xz-file-format.txt 5.3.2), 0 for
 * none. */
static uint8_t xz_branch_id(fz7_bcj_arch a)
{
    switch (a) {
    case FZ7_BCJ_PPC: return 0x05;
    case FZ7_BCJ_IA64: return 0x06;
    case FZ7_BCJ_ARM: return 0x07;
    case FZ7_BCJ_ARMT: return 0x08;
    case FZ7_BCJ_SPARC: return 0x09;
    case FZ7_BCJ_ARM64: return 0x0A;
    case FZ7_BCJ_RISCV: return 0x0B;
    default: return 0;
    }
}

static size_t check_size(fz7_xz_check c)
{
    switch (c) {
    case FZ7_XZ_CHECK_CRC32: return 4;
    case FZ7_XZ_CHECK_CRC64: return 8;
    case FZ7_XZ_CHECK_SHA256: return 32;
    default: return 0;
    }
}

/* Multibyte integer (1.2): 7 bits per byte, low first, high bit = more. */
static size_t put_vli(uint8_t *p, uint64_t v)
{
    size_t n = 0;
    while (v >= 0x80) {
        p[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    p[n++] = (uint8_t)v;
    return n;
}

typedef struct index_rec {
    uint64_t unpadded_size;
    uint64_t uncompressed_size;
} index_rec;

/* The filters' output: the open block's LZMA2 encoder. */
typedef struct lzma_sink {
    fz7_ostream base;
    fz7_lzma_enc **enc;
} lzma_sink;

static fz7_status lzma_sink_write(fz7_ostream *os, const uint8_t *p, size_t n)
{
    return fz7_lzma_enc_write(*((lzma_sink *)os)->enc, p, n);
}

/* The options' filters before LZMA2 into f[], in the order they encode,
 * each at the stream's start; returns how many. */
static unsigned make_filters(const fz7_xz_opts *o, fz7_filter_enc f[2])
{
    unsigned n = 0;
    if (o->bcj_x86)
        fz7_filter_enc_init(&f[n++], FZ7_FILTER_ENC_X86, o->branch_arch, 0);
    else if (o->branch)
        fz7_filter_enc_init(&f[n++], FZ7_FILTER_ENC_BRANCH, o->branch_arch, 0);
    if (o->delta_distance)
        fz7_filter_enc_init(&f[n++], FZ7_FILTER_ENC_DELTA, o->branch_arch, o->delta_distance);
    return n;
}

/* One block compressed on a thread of its own (see parallel_write). */
typedef struct xz_job {
    const fz7_xz_opts *opts;
    const fz7_filter_enc *filters;   /* the writer's, at the stream's start */
    unsigned n_filters;
    uint8_t *in;             /* the block's input, filtered in place; its
                              * stored chunks are written from it */
    size_t in_len;
    uint8_t head[RESERVED_BLOCK_HEADER + 8];   /* the block header */
    size_t head_len;
    fz7_lzma2_coded coded;   /* the block's LZMA2 stream */
    uint8_t tail[3 + 32];    /* padding and check */
    size_t tail_len;
    uint64_t unpadded;       /* Unpadded Size for the index */
    fz7_status st;
    pthread_t thread;
    bool has_thread;         /* false: it ran on the writer's thread */
    /* Kept from block to block in this slot of the ring. */
    fz7_lzma_enc *enc;
} xz_job;

struct fz7_xz_writer {
    fz7_fd_ostream out;          /* the .xz file */
    fz7_xz_opts opts;
    bool seekable;
    bool header_reserved;        /* the open block's header is a reservation,
                                    rewritten with its sizes at its end */
    /* The open block, if any. */
    bool in_block;
    uint64_t block_start;        /* file offset of its header */
    size_t header_size;          /* bytes the header occupies */
    uint64_t block_in;           /* uncompressed bytes so far */
    uint64_t data_start;         /* file offset of its compressed data */
    fz7_lzma_enc *enc;
    uint8_t dict_prop;           /* the open block's LZMA2 dictionary byte */
    /* The filters before LZMA2, in the order they encode, each writing
     * to the next and the last to lzma_in; started over in each block. */
    fz7_filter_enc filters[2];
    unsigned n_filters;
    fz7_filter_ostream fos[2];
    lzma_sink lzma_in;
    uint32_t crc32;
    uint64_t crc64;
    fz7_sha256 sha;
    index_rec *index;
    size_t n_index, cap_index;
    fz7_status failed;
    /* Parallel blocks (threads > 1 with a block size). */
    bool parallel;
    xz_job *jobs;                /* opts.threads slots, a ring */
    size_t job_head, jobs_running;
    uint8_t *pin;                /* the block being collected */
    size_t pfill;
    uint8_t *spare_in;           /* a written block's input, for the next pin */
};

static uint8_t stream_flags_byte(const fz7_xz_writer *w)
{
    return (uint8_t)w->opts.check;
}

static fz7_status writer_new(int fd, fz7_ostream *dst, const fz7_xz_opts *o, fz7_xz_writer **out)
{
    *out = NULL;
    if (check_size(o->check) == 0 && o->check != FZ7_XZ_CHECK_NONE)
        return FZ7_E_ARG;
    if (o->delta_distance > 256 || (o->branch && (o->bcj_x86 || o->delta_distance)) ||
        (o->branch && xz_branch_id(o->branch_arch) == 0))
        return FZ7_E_ARG;
    fz7_xz_writer *w = calloc(1, sizeof *w);
    if (!w)
        return FZ7_E_MEM;
    w->opts = *o;
    if (w->opts.size_hint)
        fz7_lzma_enc_reduce_dict(&w->opts.lzma, w->opts.size_hint);
    fz7_status st = fz7_fd_ostream_init(&w->out, fd);
    w->out.next = dst;
    w->n_filters = make_filters(o, w->filters);
    w->lzma_in = (lzma_sink){{lzma_sink_write}, &w->enc};
    for (unsigned i = w->n_filters; i-- > 0;) {
        fz7_ostream *next = i + 1 < w->n_filters ? &w->fos[i + 1].base : &w->lzma_in.base;
        if (fz7_filter_ostream_init(&w->fos[i], &w->filters[i], next) != FZ7_OK)
            st = FZ7_E_MEM;
    }
    w->parallel = o->threads > 1 && o->block_size >= FZ7_LZMA2_MT_BLOCK_MIN &&
                  o->block_size <= ((uint64_t)1 << 30);
    if (w->parallel)
        w->jobs = calloc(o->threads, sizeof *w->jobs);
    else if (o->block_size && o->block_size < w->opts.lzma.dict_size)
        fz7_lzma_enc_reduce_dict(&w->opts.lzma, o->block_size);   /* no block looks further back */
    if (st != FZ7_OK || (w->parallel && !w->jobs)) {
        fz7_xz_writer_free(w);
        return FZ7_E_MEM;
    }
    off_t here = dst ? -1 : lseek(fd, 0, SEEK_CUR);
    w->seekable = here >= 0;
    w->out.pos = here > 0 ? (uint64_t)here : 0;
    /* Stream header (2.1.1): magic, flags, CRC32 of the flags. */
    uint8_t h[12];
    memcpy(h, header_magic, 6);
    h[6] = 0;
    h[7] = stream_flags_byte(w);
    fz7_put32le(h + 8, fz7_crc32(0, h + 6, 2));
    st = fz7_fd_ostream_write(&w->out.os, h, sizeof h);
    if (st != FZ7_OK) {
        fz7_xz_writer_free(w);
        return st;
    }
    *out = w;
    return FZ7_OK;
}

fz7_status fz7_xz_writer_new(int fd, const fz7_xz_opts *o, fz7_xz_writer **out)
{
    return writer_new(fd, NULL, o, out);
}

fz7_status fz7_xz_writer_new_os(fz7_ostream *dst, const fz7_xz_opts *o, fz7_xz_writer **out)
{
    return writer_new(-1, dst, o, out);
}

uint64_t fz7_xz_writer_size(const fz7_xz_writer *w)
{
    return w->out.pos;
}

/* Block header (3.1) into h; returns its size. With sizes == false the
 * size fields are left out. */
static size_t build_block_header(const fz7_xz_opts *o, uint8_t dict_prop, uint8_t *h, bool sizes,
                                 uint64_t compressed, uint64_t uncompressed, size_t want_size)
{
    size_t n = 2;
    unsigned nfilters = 1 + (o->bcj_x86 || o->branch ? 1 : 0) + (o->delta_distance ? 1 : 0);
    uint8_t flags = (uint8_t)(nfilters - 1);
    if (sizes) {
        flags |= 0x40 | 0x80;
        n += put_vli(h + n, compressed);
        n += put_vli(h + n, uncompressed);
    }
    h[1] = flags;
    if (o->bcj_x86 || o->branch) {
        h[n++] = o->branch ? xz_branch_id(o->branch_arch) : FILTER_X86;
        h[n++] = 0;   /* no properties: start offset 0 */
    }
    if (o->delta_distance) {
        h[n++] = FILTER_DELTA;
        h[n++] = 1;
        h[n++] = (uint8_t)(o->delta_distance - 1);
    }
    h[n++] = FILTER_LZMA2;
    h[n++] = 1;
    h[n++] = dict_prop;
    size_t total = (n + 4 + 3) & ~(size_t)3;
    if (want_size > total)
        total = want_size;
    memset(h + n, 0, total - 4 - n);   /* Header Padding */
    h[0] = (uint8_t)(total / 4 - 1);
    fz7_put32le(h + total - 4, fz7_crc32(0, h, total - 4));
    return total;
}

/* empty: the block will get no input, so its header can be final now. */
static fz7_status begin_block(fz7_xz_writer *w, bool empty)
{
    /* The encoder first: the header names its (possibly reduced) dictionary. */
    fz7_status st = w->opts.threads > 1
                        ? fz7_lzma2_enc_new_mt(&w->opts.lzma, w->opts.threads,
                                               w->opts.mt_block_size, &w->out.os, &w->enc)
                        : fz7_lzma2_enc_new(&w->opts.lzma, &w->out.os, &w->enc);
    if (st != FZ7_OK)
        return st;
    w->dict_prop = fz7_lzma2_enc_dict_prop(w->enc);
    uint8_t h[RESERVED_BLOCK_HEADER + 8];
    w->block_start = w->out.pos;
    w->header_reserved = w->seekable && !empty;
    if (w->header_reserved) {
        /* Reserve the largest header; rewritten with the sizes later. */
        w->header_size = RESERVED_BLOCK_HEADER;
        memset(h, 0, w->header_size);
    } else {
        w->header_size = build_block_header(&w->opts, w->dict_prop, h, false, 0, 0, 0);
    }
    st = fz7_fd_ostream_write(&w->out.os, h, w->header_size);
    if (st != FZ7_OK)
        return st;
    w->data_start = w->out.pos;
    for (unsigned i = 0; i < w->n_filters; i++)
        fz7_filter_ostream_restart(&w->fos[i], &w->filters[i]);
    w->block_in = 0;
    w->crc32 = 0;
    w->crc64 = 0;
    fz7_sha256_init(&w->sha);
    w->in_block = true;
    return FZ7_OK;
}

static fz7_status feed_block(fz7_xz_writer *w, const uint8_t *p, size_t n)
{
    switch (w->opts.check) {
    case FZ7_XZ_CHECK_CRC32: w->crc32 = fz7_crc32(w->crc32, p, n); break;
    case FZ7_XZ_CHECK_CRC64: w->crc64 = fz7_crc64(w->crc64, p, n); break;
    case FZ7_XZ_CHECK_SHA256: fz7_sha256_update(&w->sha, p, n); break;
    default: break;
    }
    w->block_in += n;
    if (!w->n_filters)
        return fz7_lzma_enc_write(w->enc, p, n);
    return w->fos[0].base.write(&w->fos[0].base, p, n);
}

static fz7_status add_index(fz7_xz_writer *w, uint64_t unpadded, uint64_t uncompressed)
{
    if (w->n_index == w->cap_index) {
        size_t nc = w->cap_index ? w->cap_index * 2 : 16;
        index_rec *r = realloc(w->index, nc * sizeof *r);
        if (!r)
            return FZ7_E_MEM;
        w->index = r;
        w->cap_index = nc;
    }
    w->index[w->n_index].unpadded_size = unpadded;
    w->index[w->n_index].uncompressed_size = uncompressed;
    w->n_index++;
    return FZ7_OK;
}

/* ---- blocks compressed in parallel -------------------------------------
 * With threads > 1 and a block size, each block is a job: a thread of its
 * own computes the check, runs the filters in place and a one-thread LZMA2
 * encoder (kept by the job's slot of the ring) over the block in memory,
 * and makes its header with both sizes; this thread writes finished
 * blocks in input order (header, the LZMA2 stream with its stored chunks
 * taken from the block's input, padding, check), at most `threads` in
 * flight. Blocks are independent (filters and
 * dictionary start afresh in each), as xz -T makes them, so readers can
 * decode them in parallel too. */

static void *job_run(void *arg)
{
    xz_job *j = arg;
    const fz7_xz_opts *o = j->opts;
    uint8_t check[32];
    size_t cs = check_size(o->check);
    switch (o->check) {
    case FZ7_XZ_CHECK_CRC32: fz7_put32le(check, fz7_crc32(0, j->in, j->in_len)); break;
    case FZ7_XZ_CHECK_CRC64: fz7_put64le(check, fz7_crc64(0, j->in, j->in_len)); break;
    case FZ7_XZ_CHECK_SHA256: {
        fz7_sha256 sh;
        fz7_sha256_init(&sh);
        fz7_sha256_update(&sh, j->in, j->in_len);
        fz7_sha256_final(&sh, check);
        break;
    }
    default: break;
    }
    /* The whole block at once: a tail a filter cannot convert stays as is. */
    for (unsigned i = 0; i < j->n_filters; i++) {
        fz7_filter_enc f = j->filters[i];
        (void)fz7_filter_enc_code(&f, j->in, j->in_len);
    }
    fz7_lzma_enc_opts lo = fz7_lzma2_block_opts(&o->lzma, j->in_len);
    fz7_status st = fz7_lzma2_code_block(&lo, j->in, j->in_len, &j->enc, &j->coded);
    if (st == FZ7_OK) {
        uint64_t packed = fz7_lzma2_coded_size(&j->coded);
        j->head_len = build_block_header(o, fz7_lzma2_enc_dict_prop(j->enc), j->head, true, packed, j->in_len, 0);
        size_t pad = (size_t)((4 - (packed & 3)) & 3);
        memset(j->tail, 0, pad);
        memcpy(j->tail + pad, check, cs);
        j->tail_len = pad + cs;
        j->unpadded = j->head_len + packed + cs;
    }
    /* Only stored chunks need the input until the block is written. */
    if (st != FZ7_OK || j->coded.stored == 0) {
        free(j->in);
        j->in = NULL;
    }
    j->st = st;
    return NULL;
}

/* Waits for the oldest job and writes its block. */
static fz7_status emit_oldest(fz7_xz_writer *w)
{
    xz_job *j = &w->jobs[w->job_head];
    if (j->has_thread)
        pthread_join(j->thread, NULL);
    w->job_head = (w->job_head + 1) % w->opts.threads;
    w->jobs_running--;
    fz7_status st = j->st;
    if (st == FZ7_OK)
        st = fz7_fd_ostream_write(&w->out.os, j->head, j->head_len);
    if (st == FZ7_OK)
        st = fz7_lzma2_coded_write(&j->coded, j->in, &w->out.os);
    if (st == FZ7_OK)
        st = fz7_fd_ostream_write(&w->out.os, j->tail, j->tail_len);
    if (st == FZ7_OK)
        st = add_index(w, j->unpadded, j->in_len);
    if (!w->spare_in)
        w->spare_in = j->in;   /* NULL when the job freed it */
    else
        free(j->in);
    j->in = NULL;
    return st;
}

/* Hands the collected block to a new job (after making room). */
static fz7_status submit_block(fz7_xz_writer *w)
{
    fz7_status st = FZ7_OK;
    if (w->jobs_running == w->opts.threads && (st = emit_oldest(w)) != FZ7_OK)
        return st;
    size_t slot = (w->job_head + w->jobs_running) % w->opts.threads;
    xz_job *j = &w->jobs[slot];
    j->opts = &w->opts;
    j->filters = w->filters;
    j->n_filters = w->n_filters;
    j->st = FZ7_OK;
    j->in = w->pin;
    j->in_len = w->pfill;
    w->pin = NULL;
    w->pfill = 0;
    j->has_thread = pthread_create(&j->thread, NULL, job_run, j) == 0;
    if (!j->has_thread)
        job_run(j);   /* no thread to spare: do it here */
    w->jobs_running++;
    return FZ7_OK;
}

static fz7_status parallel_write(fz7_xz_writer *w, const uint8_t *p, size_t n)
{
    while (n) {
        if (!w->pin) {
            w->pin = w->spare_in ? w->spare_in : malloc((size_t)w->opts.block_size);
            w->spare_in = NULL;
            if (!w->pin)
                return FZ7_E_MEM;
        }
        size_t take = (size_t)w->opts.block_size - w->pfill;
        if (take > n)
            take = n;
        memcpy(w->pin + w->pfill, p, take);
        w->pfill += take;
        p += take;
        n -= take;
        if (w->pfill == w->opts.block_size) {
            fz7_status st = submit_block(w);
            if (st != FZ7_OK)
                return st;
        }
    }
    return FZ7_OK;
}

static fz7_status parallel_finish(fz7_xz_writer *w)
{
    fz7_status st = FZ7_OK;
    if (w->pfill)
        st = submit_block(w);
    while (w->jobs_running) {
        fz7_status s2 = emit_oldest(w);
        if (st == FZ7_OK)
            st = s2;
    }
    return st;
}

static fz7_status end_block(fz7_xz_writer *w)
{
    fz7_status st = FZ7_OK;
    for (unsigned i = 0; i < w->n_filters && st == FZ7_OK; i++)
        st = fz7_filter_ostream_finish(&w->fos[i]);
    if (st == FZ7_OK)
        st = fz7_lzma_enc_finish(w->enc);
    fz7_lzma_enc_free(w->enc);
    w->enc = NULL;
    w->in_block = false;
    if (st != FZ7_OK)
        return st;
    uint64_t compressed = w->out.pos - w->data_start;
    /* Block Padding (3.2) then the check (3.4). */
    uint8_t tail[3 + 32] = {0};
    size_t pad = (size_t)((4 - (compressed & 3)) & 3);
    size_t cs = check_size(w->opts.check);
    switch (w->opts.check) {
    case FZ7_XZ_CHECK_CRC32: fz7_put32le(tail + pad, w->crc32); break;
    case FZ7_XZ_CHECK_CRC64: fz7_put64le(tail + pad, w->crc64); break;
    case FZ7_XZ_CHECK_SHA256: fz7_sha256_final(&w->sha, tail + pad); break;
    default: break;
    }
    st = fz7_fd_ostream_write(&w->out.os, tail, pad + cs);
    if (st != FZ7_OK)
        return st;
    if (w->header_reserved) {
        uint8_t h[RESERVED_BLOCK_HEADER + 8];
        size_t hs = build_block_header(&w->opts, w->dict_prop, h, true, compressed, w->block_in,
                                       w->header_size);
        if (hs != w->header_size)
            return FZ7_E_ARG;   /* cannot happen: the reservation is the largest */
        st = fz7_fd_ostream_flush(&w->out);
        if (st != FZ7_OK)
            return st;
        if (pwrite(w->out.fd, h, hs, (off_t)w->block_start) != (ssize_t)hs)
            return FZ7_E_IO;
    }
    return add_index(w, w->header_size + compressed + cs, w->block_in);
}

fz7_status fz7_xz_writer_write(fz7_xz_writer *w, const uint8_t *p, size_t n)
{
    if (w->parallel) {
        fz7_status ps = w->failed ? w->failed : parallel_write(w, p, n);
        if (ps != FZ7_OK)
            w->failed = ps;
        return ps;
    }
    fz7_status st = w->failed;
    while (st == FZ7_OK && n) {
        if (!w->in_block && (st = begin_block(w, false)) != FZ7_OK)
            break;
        size_t take = n;
        if (w->opts.block_size && w->opts.block_size - w->block_in < take)
            take = (size_t)(w->opts.block_size - w->block_in);
        st = feed_block(w, p, take);
        p += take;
        n -= take;
        if (st == FZ7_OK && w->opts.block_size && w->block_in == w->opts.block_size)
            st = end_block(w);
    }
    if (st != FZ7_OK)
        w->failed = st;
    return st;
}

fz7_status fz7_xz_writer_finish(fz7_xz_writer *w)
{
    fz7_status st = w->failed;
    if (st == FZ7_OK && w->parallel)
        st = parallel_finish(w);
    if (st == FZ7_OK && w->in_block)
        st = end_block(w);
    if (st == FZ7_OK && w->n_index == 0 && w->opts.empty_block &&
        (st = begin_block(w, true)) == FZ7_OK)
        st = end_block(w);
    uint64_t index_size = 0;
    if (st == FZ7_OK) {
        /* Index (4): indicator, record count, records, padding, CRC32. */
        uint8_t rec[20];
        uint32_t crc = 0;
        rec[0] = 0;
        size_t k = 1 + put_vli(rec + 1, w->n_index);
        crc = fz7_crc32(crc, rec, k);
        st = fz7_fd_ostream_write(&w->out.os, rec, k);
        index_size = k;
        for (size_t i = 0; st == FZ7_OK && i < w->n_index; i++) {
            k = put_vli(rec, w->index[i].unpadded_size);
            k += put_vli(rec + k, w->index[i].uncompressed_size);
            crc = fz7_crc32(crc, rec, k);
            st = fz7_fd_ostream_write(&w->out.os, rec, k);
            index_size += k;
        }
        size_t pad = (size_t)((4 - (index_size & 3)) & 3);
        memset(rec, 0, 4);
        crc = fz7_crc32(crc, rec, pad);
        fz7_put32le(rec + pad, crc);
        if (st == FZ7_OK)
            st = fz7_fd_ostream_write(&w->out.os, rec, pad + 4);
        index_size += pad + 4;
    }
    if (st == FZ7_OK) {
        /* Stream footer (2.1.2): CRC32, backward size, flags, magic. */
        uint8_t f[12];
        fz7_put32le(f + 4, (uint32_t)(index_size / 4 - 1));
        f[8] = 0;
        f[9] = stream_flags_byte(w);
        fz7_put32le(f, fz7_crc32(0, f + 4, 6));
        memcpy(f + 10, footer_magic, 2);
        st = fz7_fd_ostream_write(&w->out.os, f, sizeof f);
    }
    if (st == FZ7_OK)
        st = fz7_fd_ostream_flush(&w->out);
    if (st != FZ7_OK)
        w->failed = st;
    return st;
}

void fz7_xz_writer_free(fz7_xz_writer *w)
{
    if (!w)
        return;
    /* Jobs still running use their buffers: wait for them. */
    while (w->jobs && w->jobs_running) {
        xz_job *j = &w->jobs[w->job_head];
        if (j->has_thread)
            pthread_join(j->thread, NULL);
        free(j->in);
        j->in = NULL;
        w->job_head = (w->job_head + 1) % w->opts.threads;
        w->jobs_running--;
    }
    for (uint32_t i = 0; w->jobs && i < w->opts.threads; i++) {
        fz7_lzma2_coded_free(&w->jobs[i].coded);
        fz7_lzma_enc_free(w->jobs[i].enc);
    }
    free(w->jobs);
    free(w->pin);
    free(w->spare_in);
    fz7_lzma_enc_free(w->enc);
    free(w->index);
    for (unsigned i = 0; i < w->n_filters; i++)
        fz7_filter_ostream_free(&w->fos[i]);
    fz7_fd_ostream_free(&w->out);
    free(w);
}
