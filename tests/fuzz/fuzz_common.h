/* fuzz_common.h - what every libFuzzer harness of fz7 shares: draining a
 * pull stream, opening + extracting a whole archive held in memory, and
 * for the write-side (differential) harnesses: encoder options taken from
 * the input's first bytes, a memory sink, and liblzma as the independent
 * decoder (liblzma is linked into fuzz and test binaries only).
 *
 * Decoder harnesses only check that nothing crashes, leaks or hangs; the
 * status a codec returns for garbage is its own business. Encoder
 * harnesses abort (a libFuzzer crash) when a stream fz7 wrote does not
 * decode to the input, with fz7's decoder or with liblzma. */
#ifndef FZ7_FUZZ_COMMON_H
#define FZ7_FUZZ_COMMON_H

#include "format/archive.h"
#include "lzma/lzma_dec.h"
#include "lzma/lzma_enc.h"
#include "lzma/lzma2_mt.h"
#include "lzma/lzma_presets.h"

#include <lzma.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* Memory limit every harness gives the decoders (bytes): big enough for the
 * seed corpora, small enough that a hostile header is refused, not
 * allocated (libFuzzer's -rss_limit_mb catches the rest). */
#define FUZZ_MEM_LIMIT ((uint64_t)64 << 20)

/* Bytes fuzz_archive lets one input decode before it stops extracting
 * (checked after each 64 KiB the extractor hands out), the memory limit
 * it gives the decoders, and its decoder threads (2: the non-solid
 * decode pool is reached). A mutated size field makes PPMd decode garbage
 * for as long as the header says, and 16 MiB PPMd models (7zz's default)
 * took most of the 7z harness's time: PPMd itself is fuzzed by fuzz_ppmd,
 * and the seeds made here use 64 KiB dictionaries and 1 MiB models. */
#ifndef FUZZ_OUT_CAP
#define FUZZ_OUT_CAP ((uint64_t)128 << 10)
#endif
#ifndef FUZZ_ARCHIVE_MEM_LIMIT
#define FUZZ_ARCHIVE_MEM_LIMIT ((uint64_t)16 << 20)
#endif
#ifndef FUZZ_ARCHIVE_THREADS
#define FUZZ_ARCHIVE_THREADS 2
#endif

/* Aborts with a message: the harness found a mismatch (libFuzzer keeps the
 * input as a crash). */
#define FUZZ_CHECK(cond, ...)                                              \
    do {                                                                   \
        if (!(cond)) {                                                     \
            fprintf(stderr, "fuzz: %s:%d: %s: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                  \
            fputc('\n', stderr);                                           \
            abort();                                                       \
        }                                                                  \
    } while (0)

/* Reads s to its end or first error; returns the status (never asserts). */
static inline fz7_status fuzz_drain(fz7_istream *s)
{
    static uint8_t buf[65536];
    size_t got;
    fz7_status st;
    while ((st = s->read(s, buf, sizeof buf, &got)) == FZ7_OK && got)
        ;
    return st;
}

/* Consumes a little-endian 16-bit number from the front of the input (0
 * when there are not enough bytes). */
static inline unsigned fuzz_take16(const uint8_t **p, size_t *n)
{
    if (*n < 2)
        return 0;
    unsigned v = fz7_get16le(*p);
    *p += 2, *n -= 2;
    return v;
}

/* ---- a growable memory buffer that is also an fz7_ostream ---- */
typedef struct fuzz_buf {
    fz7_ostream os;
    uint8_t *p;
    size_t n, cap;
} fuzz_buf;

/* Makes room for n more bytes after f->n; false if out of memory. */
static inline bool fuzz_buf_reserve(fuzz_buf *f, size_t n)
{
    if (f->n + n > f->cap) {
        size_t cap = f->cap ? f->cap : 4096;
        while (cap < f->n + n)
            cap *= 2;
        uint8_t *q = realloc(f->p, cap);
        if (!q)
            return false;
        f->p = q, f->cap = cap;
    }
    return true;
}
static inline fz7_status fuzz_buf_put(fz7_ostream *s, const uint8_t *b, size_t n)
{
    fuzz_buf *f = (fuzz_buf *)s;
    if (!fuzz_buf_reserve(f, n))
        return FZ7_E_MEM;
    if (n)
        memcpy(f->p + f->n, b, n);
    f->n += n;
    return FZ7_OK;
}
static inline void fuzz_buf_init(fuzz_buf *f) { *f = (fuzz_buf){.os = {fuzz_buf_put}}; }
static inline void fuzz_buf_free(fuzz_buf *f) { free(f->p), fuzz_buf_init(f); }

/* Reads s to its end into out; returns the first error or FZ7_OK. */
static inline fz7_status fuzz_read_all(fz7_istream *s, fuzz_buf *out)
{
    uint8_t buf[16384];
    size_t got;
    fz7_status st;
    while ((st = s->read(s, buf, sizeof buf, &got)) == FZ7_OK && got)
        if ((st = fuzz_buf_put(&out->os, buf, got)) != FZ7_OK)
            break;
    return st;
}

/* ---- whole archives through the archive API ---- */
typedef struct fuzz_extract {
    uint64_t sum;       /* touches names and bytes (ASan sees them) */
    uint64_t out;       /* bytes decoded so far */
    uint64_t cap;       /* stop once out passes this */
    fuzz_buf *collect;  /* every entry's bytes appended here, or NULL */
    fz7_status worst;   /* first entry error */
} fuzz_extract;

static inline fz7_status fuzz_cb_begin(void *ctx, size_t i, const fz7_entry *e)
{
    (void)i, (void)e;
    ((fuzz_extract *)ctx)->sum++;
    return FZ7_OK;
}
static inline fz7_status fuzz_cb_data(void *ctx, const uint8_t *p, size_t n)
{
    fuzz_extract *x = ctx;
    x->sum += n ? p[n - 1] : 0;
    x->out += n;
    if (x->collect && fuzz_buf_put(&x->collect->os, p, n) != FZ7_OK)
        return FZ7_E_MEM;
    return x->out > x->cap ? FZ7_E_ARG : FZ7_OK;
}
static inline fz7_status fuzz_cb_end(void *ctx, size_t i, fz7_status r, const char *detail)
{
    fuzz_extract *x = ctx;
    (void)i, (void)detail;
    if (x->worst == FZ7_OK)
        x->worst = r;
    return FZ7_OK;
}

/* Opens the archive in the memfd fd (the archive API opens a path; a memfd
 * keeps it in memory) with the decoders' memory limit mem_limit, lists
 * every entry and extracts all of them into x. Returns the open status. */
static inline fz7_status fuzz_archive_fd(int fd, const char *password, unsigned threads, uint64_t mem_limit,
                                         fuzz_extract *x)
{
    char path[64], err[512];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    fz7_open_opts o = {.password = password, .mem_limit = mem_limit, .threads = threads};
    fz7_archive *a;
    fz7_status st = fz7_archive_open(path, &o, &a, err, sizeof err);
    if (st == FZ7_OK) {
        for (size_t i = 0; i < fz7_archive_count(a); i++)
            x->sum += strlen(fz7_archive_entry(a, i)->path) + fz7_archive_entry(a, i)->size;
        fz7_extract_cb cb = {x, fuzz_cb_begin, fuzz_cb_data, fuzz_cb_end, NULL};
        fz7_status es = fz7_archive_extract(a, NULL, &cb, err, sizeof err);
        if (x->worst == FZ7_OK)
            x->worst = es;
        fz7_archive_close(a);
    }
    return st;
}

/* A memfd holding size bytes of data, or -1. */
static inline int fuzz_memfd(const uint8_t *data, size_t size)
{
    int fd = memfd_create("fz7-fuzz", MFD_CLOEXEC);
    if (fd >= 0 && size && write(fd, data, size) != (ssize_t)size) {
        close(fd);
        return -1;
    }
    return fd;
}

/* Opens data as an archive with password, lists every entry and extracts
 * all of them (at most FUZZ_OUT_CAP bytes) through counting callbacks, on
 * one thread (libFuzzer's coverage must not depend on scheduling). */
static inline void fuzz_archive(const uint8_t *data, size_t size, const char *password)
{
    int fd = fuzz_memfd(data, size);
    if (fd < 0)
        return;
    fuzz_extract x = {.cap = FUZZ_OUT_CAP};
    fuzz_archive_fd(fd, password, FUZZ_ARCHIVE_THREADS, FUZZ_ARCHIVE_MEM_LIMIT, &x);
    close(fd);
    /* The 7zAES key cache has a fixed number of slots: keeping it makes
     * mutations of one encrypted seed skip the 2^19-round KDF. */
}

/* ---- encoder options from the input's first bytes ----
 * FUZZ_CFG_BYTES bytes are taken from the front: level, parser and match
 * finder, lc/lp/pb, nice_len, depth, dictionary, end marker, threads,
 * filter, and the seed of the write-piece sizes. */
#define FUZZ_CFG_BYTES 10

typedef struct fuzz_cfg {
    fz7_lzma_enc_opts lzma;
    unsigned level;      /* 0..9 */
    unsigned threads;    /* 1..4 */
    uint64_t block_size; /* multi-threaded LZMA2 block bytes (0 = default) */
    unsigned filter;     /* 0 none, 1 x86 BCJ, 2 Delta, 3 BCJ2 (7z only) */
    unsigned delta;      /* Delta distance 1..256 */
    unsigned check;      /* 0..3: xz check none/crc32/crc64/sha256 */
    unsigned flags;      /* spare bits for the harness (8 bits) */
    uint32_t piece_seed; /* write-piece sizes (fuzz_pieces) */
} fuzz_cfg;

/* Takes the configuration; false when the input is shorter than
 * FUZZ_CFG_BYTES. lzma2: keep lc + lp <= 4. Dictionaries stay at or below
 * 1.5 MiB (the fuzz inputs are small; 4 KiB..64 KiB dictionaries make
 * the window wrap). */
static inline bool fuzz_take_cfg(const uint8_t **p, size_t *n, bool lzma2, fuzz_cfg *c)
{
    if (*n < FUZZ_CFG_BYTES)
        return false;
    const uint8_t *b = *p;
    *p += FUZZ_CFG_BYTES, *n -= FUZZ_CFG_BYTES;
    memset(c, 0, sizeof *c);
    c->level = b[0] % 10;
    fz7_lzma_enc_preset(&c->lzma, c->level);
    if (b[0] >= 160) {          /* own parser / match finder / nice / depth */
        c->lzma.mode = b[1] & 1 ? FZ7_LZMA_MODE_NORMAL : FZ7_LZMA_MODE_FAST;
        c->lzma.mf = (fz7_lz_kind)((b[1] >> 1) % 6);
        c->lzma.nice_len = FZ7_LZMA_NICE_MIN + b[3] % (FZ7_LZMA_NICE_MAX - FZ7_LZMA_NICE_MIN + 1);
        c->lzma.depth = b[4] < 128 ? 0 : b[4] - 127;
    }
    if (b[2] < 225) {
        c->lzma.lc = b[2] % 9, c->lzma.lp = b[2] / 9 % 5, c->lzma.pb = b[2] / 45;
        if (lzma2 && c->lzma.lc + c->lzma.lp > FZ7_LZMA2_LCLP_MAX)
            c->lzma.lp = FZ7_LZMA2_LCLP_MAX - (c->lzma.lc > 4 ? 4 : c->lzma.lc),
            c->lzma.lc = c->lzma.lc > 4 ? 4 : c->lzma.lc;
    }
    uint32_t d = FZ7_LZMA_DICT_MIN << (b[5] & 7);          /* 4 KiB .. 512 KiB */
    if (b[5] & 8)
        d += d / 2;                                         /* 3 * 2^n */
    if (b[5] & 16)
        d += (uint32_t)b[5] * 4099;                         /* not 2^n at all */
    c->lzma.dict_size = d;
    c->lzma.end_marker = b[6] & 1;
    c->threads = 1 + (b[6] >> 1 & 3);
    c->lzma.mf_thread = b[6] >> 3 & 1;
    c->block_size = b[6] & 0x10 ? 0 : FZ7_LZMA2_MT_BLOCK_MIN + ((b[6] & 0x20) ? 16 * b[4] : b[4] | 1);
    c->filter = b[7] & 3;
    c->delta = 1 + b[8];
    c->check = b[7] >> 2 & 3;
    c->flags = b[9];
    c->piece_seed = (uint32_t)b[7] << 8 | b[8] | (uint32_t)b[9] << 16;
    return true;
}

/* The next write-piece size for a stream of remaining bytes: all of it
 * (seed 0), or pseudo-random sizes of 1 byte to 64 KiB. */
static inline size_t fuzz_piece(uint32_t *seed, size_t remaining)
{
    if (*seed == 0)
        return remaining;
    *seed = *seed * 1103515245u + 12345u;
    size_t cap = (size_t)1 << ((*seed >> 16) % 17);
    size_t k = 1 + (size_t)(*seed >> 8) % cap;
    return k < remaining ? k : remaining;
}

/* Encodes data through enc in pieces, then finishes it. */
static inline fz7_status fuzz_encode(fz7_lzma_enc *enc, const uint8_t *data, size_t n, uint32_t seed)
{
    fz7_status st = FZ7_OK;
    for (size_t off = 0; off < n && st == FZ7_OK;) {
        size_t k = fuzz_piece(&seed, n - off);
        st = fz7_lzma_enc_write(enc, data + off, k);
        off += k;
    }
    return st == FZ7_OK ? fz7_lzma_enc_finish(enc) : st;
}

/* Aborts unless got holds exactly want's n bytes. */
static inline void fuzz_same(const char *who, const uint8_t *want, size_t n, const uint8_t *got, size_t got_n)
{
    FUZZ_CHECK(got_n == n, "%s: %zu bytes back, %zu in", who, got_n, n);
    size_t i = 0;
    while (i < n && want[i] == got[i])
        i++;
    FUZZ_CHECK(i == n, "%s: first difference at byte %zu of %zu", who, i, n);
}

/* Input made bigger than one multi-threaded block: data repeated to about
 * `target` bytes, every copy XORed with its own byte so that the copies
 * are matches only in part. Caller frees. */
static inline uint8_t *fuzz_tile(const uint8_t *data, size_t n, size_t target, size_t *out_n)
{
    uint8_t *p = n ? malloc(target) : NULL;
    if (!p)
        return NULL;
    for (size_t off = 0, copy = 0; off < target; off += n, copy++)
        for (size_t i = 0; i < n && off + i < target; i++)
            p[off + i] = data[i] ^ (uint8_t)((copy * 29) & (i % 7 == 0 ? 0xFF : 0));
    *out_n = target;
    return p;
}

/* ---- liblzma, the independent decoder and encoder ---- */

/* liblzma's options for an fz7 configuration's lc/lp/pb and dictionary. */
static inline lzma_options_lzma fuzz_xz_lzma_opts(const fz7_lzma_enc_opts *o)
{
    lzma_options_lzma l;
    lzma_lzma_preset(&l, 0);
    l.dict_size = o->dict_size, l.lc = o->lc, l.lp = o->lp, l.pb = o->pb;
    return l;
}

/* Decodes with liblzma: a raw stream through the filter chain f, or (f
 * NULL) an .xz file. out is emptied and gets at most want + 1 bytes.
 * Returns liblzma's status (LZMA_STREAM_END when the stream ended
 * cleanly). */
static inline lzma_ret fuzz_xz_decode(const lzma_filter *f, const uint8_t *in, size_t in_n, size_t want,
                                      fuzz_buf *out)
{
    lzma_stream s = LZMA_STREAM_INIT;
    lzma_ret r = f ? lzma_raw_decoder(&s, f) : lzma_stream_decoder(&s, FUZZ_MEM_LIMIT, 0);
    out->n = 0;
    if (r != LZMA_OK || !fuzz_buf_reserve(out, want + 1))
        return r != LZMA_OK ? r : LZMA_MEM_ERROR;
    s.next_in = in, s.avail_in = in_n, s.next_out = out->p, s.avail_out = want + 1;
    r = lzma_code(&s, LZMA_FINISH);
    out->n = s.total_out;
    lzma_end(&s);
    return r;
}

/* Aborts unless the raw LZMA2 stream enc (dictionary byte dict_prop)
 * decodes to data with fz7's decoder and with liblzma's. */
static inline void fuzz_check_lzma2(const uint8_t *data, size_t n, const fuzz_buf *enc, uint8_t dict_prop)
{
    fuzz_buf out;
    fuzz_buf_init(&out);
    fz7_istream *src = fz7_istream_from_memory(enc->p, enc->n), *dec;
    FUZZ_CHECK(src && fz7_lzma2_istream_new(src, dict_prop, FUZZ_MEM_LIMIT, &dec) == FZ7_OK, "decoder");
    fz7_status st = fuzz_read_all(dec, &out);
    FUZZ_CHECK(st == FZ7_OK, "fz7 decode: %s", fz7_status_str(st));
    fuzz_same("fz7", data, n, out.p, out.n);
    fz7_istream_free(dec), fz7_istream_free(src);

    lzma_options_lzma l;
    lzma_lzma_preset(&l, 0);
    l.dict_size = (uint32_t)fz7_lzma2_dict_size(dict_prop);
    lzma_filter f[2] = {{LZMA_FILTER_LZMA2, &l}, {LZMA_VLI_UNKNOWN, NULL}};
    lzma_ret r = fuzz_xz_decode(f, enc->p, enc->n, n, &out);
    FUZZ_CHECK(r == LZMA_STREAM_END, "liblzma: %d", (int)r);
    fuzz_same("liblzma", data, n, out.p, out.n);
    fuzz_buf_free(&out);
}

#endif
