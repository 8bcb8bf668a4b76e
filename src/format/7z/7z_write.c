/* 7z_write.c - the .7z writer: pack streams first, right after a 32-byte
 * signature header left blank until the end, then the header describing
 * them (7zFormat.txt: PackInfo, UnPackInfo, SubStreamsInfo, FilesInfo),
 * optionally LZMA-encoded behind a kEncodedHeader, then the signature
 * header with the start header CRC. */
#include "format/7z/7z_write.h"

#include "format/7z/7z_internal.h"
#include "format/fd_ostream.h"

#include "check/check.h"
#include "codec/codec.h"
#include "filter/bcj2.h"
#include "filter/filter.h"
#include "lzma/lzma_presets.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

/* Property IDs (7zFormat.txt). */
enum {
    K_END = 0x00, K_HEADER = 0x01, K_MAIN_STREAMS_INFO = 0x04, K_FILES_INFO = 0x05,
    K_PACK_INFO = 0x06, K_UNPACK_INFO = 0x07, K_SUBSTREAMS_INFO = 0x08, K_SIZE = 0x09,
    K_CRC = 0x0A, K_FOLDER = 0x0B, K_CODERS_UNPACK_SIZE = 0x0C, K_NUM_UNPACK_STREAM = 0x0D,
    K_EMPTY_STREAM = 0x0E, K_EMPTY_FILE = 0x0F, K_ANTI = 0x10, K_NAME = 0x11, K_CTIME = 0x12,
    K_ATIME = 0x13, K_MTIME = 0x14,
    K_WIN_ATTRIBUTES = 0x15, K_ENCODED_HEADER = 0x17, K_DUMMY = 0x19
};

#define SIGNATURE_HEADER_SIZE 32
#define COPY_BUF_SIZE ((size_t)1 << 16)
#define BCJ_BUF_SIZE ((size_t)1 << 16)

uint32_t fz7_7z_attrib_from_mode(uint32_t st_mode)
{
    uint32_t a = FZ7_ATTR_UNIX_EXTENSION | ((st_mode & 0xFFFFu) << 16);
    if (S_ISDIR(st_mode))
        a |= FZ7_ATTR_DIRECTORY;
    else
        a |= FZ7_ATTR_ARCHIVE;
    if (!(st_mode & 0222))
        a |= FZ7_ATTR_READONLY;
    return a;
}

/* ---- a growable byte buffer for the header ----------------------------- */

typedef struct bytebuf {
    fz7_membuf m;  /* m.p, m.n: the bytes */
    bool failed;   /* an allocation failed; later appends are dropped */
} bytebuf;

static void bb_bytes(bytebuf *b, const void *p, size_t n)
{
    if (!b->failed && fz7_membuf_write(&b->m.base, p, n) != FZ7_OK)
        b->failed = true;
}

static void bb_byte(bytebuf *b, uint8_t v) { bb_bytes(b, &v, 1); }

static void bb_u32(bytebuf *b, uint32_t v)
{
    uint8_t t[4];
    fz7_put32le(t, v);
    bb_bytes(b, t, 4);
}

static void bb_u64(bytebuf *b, uint64_t v)
{
    uint8_t t[8];
    fz7_put64le(t, v);
    bb_bytes(b, t, 8);
}

/* 7z NUMBER: the count of leading 1 bits in the first byte tells how many
 * little-endian bytes follow; the first byte's remaining bits are the
 * value's high bits. */
static void bb_number(bytebuf *b, uint64_t v)
{
    uint8_t t[9];
    int extra = 0;
    while (extra < 8 && v >= ((uint64_t)1 << (7 * (extra + 1))))
        extra++;
    uint8_t first = (uint8_t)(0xFF00u >> extra);
    if (extra < 8)
        first |= (uint8_t)(v >> (8 * extra));
    t[0] = first;
    for (int i = 0; i < extra; i++)
        t[1 + i] = (uint8_t)(v >> (8 * i));
    bb_bytes(b, t, (size_t)extra + 1);
}

/* A bit vector, most significant bit first. */
static void bb_bits(bytebuf *b, const bool *bits, size_t n)
{
    uint8_t cur = 0;
    for (size_t i = 0; i < n; i++) {
        if (bits[i])
            cur |= (uint8_t)(0x80u >> (i & 7));
        if ((i & 7) == 7) {
            bb_byte(b, cur);
            cur = 0;
        }
    }
    if (n & 7)
        bb_byte(b, cur);
}

/* ---- output ---------------------------------------------------------- */

/* An ostream into a bytebuf (for the encoded header). */
typedef struct mem_sink {
    fz7_ostream os;
    bytebuf *b;
} mem_sink;

static fz7_status mem_write(fz7_ostream *os, const uint8_t *p, size_t n)
{
    mem_sink *m = (mem_sink *)os;
    bb_bytes(m->b, p, n);
    return m->b->failed ? FZ7_E_MEM : FZ7_OK;
}

/* ---- what the header needs to remember --------------------------------- */

/* FILETIME: 100 ns units since 1601-01-01. */
static uint64_t filetime_of(int64_t sec, uint32_t nsec)
{
    int64_t t = sec + INT64_C(11644473600);
    if (t < 0)
        return 0;
    return (uint64_t)t * 10000000u + nsec / 100u;
}

typedef struct entry_rec {
    char *name;
    uint32_t attrib;
    bool has_attrib;
    bool is_dir, has_stream, is_anti;
    bool has_time[3];             /* kCTime, kATime, kMTime */
    uint64_t time[3];             /* FILETIME, when has_time */
    uint64_t size;
    uint32_t crc;
} entry_rec;

typedef struct folder_rec {
    fz7_7z_method method;
    bool bcj;
    uint8_t delta;                /* Delta distance - 1, when has_delta */
    bool has_delta;
    uint32_t branch_id;           /* a RISC branch filter's method ID, 0 none */
    bool filter_first;            /* the filter's coder before Copy's */
    bool aes;
    uint8_t props[5];
    size_t props_len;
    uint8_t aes_props[FZ7_7ZAES_PROPS_MAX];
    size_t aes_props_len;
    uint64_t method_out;          /* bytes the method produced (7zAES's unpack size) */
    uint64_t pack_size;
    uint64_t unpack_size;
    size_t num_substreams;
    /* A folder copied from another archive (fz7_7z_writer_copy_folder):
     * its Folder record and its unpack sizes, already encoded. */
    uint8_t *raw_folder, *raw_sizes;
    size_t raw_folder_len, raw_sizes_len;
    /* A copied folder with several pack streams (BCJ2): the bytes of each,
     * in the folder's order (pack_size is their sum); NULL with one. */
    uint64_t *raw_pack_sizes;
    size_t raw_n_packs;
    /* BCJ2: its streams main, call, jump, rc (bytes, FZ7_BCJ2_* order);
     * per side stream (call, jump, rc) the LZMA properties (call, jump),
     * LZMA's output, its pack size and its 7zAES properties. */
    bool bcj2;
    uint64_t bcj2_sizes[FZ7_BCJ2_STREAMS];
    uint8_t side_props[2][5];
    uint64_t side_method_out[2];
    uint64_t side_pack[3];
    uint8_t side_aes_props[3][FZ7_7ZAES_PROPS_MAX];
    size_t side_aes_props_len[3];
} folder_rec;

/* A BCJ2 side stream (call, jump, or the range-coded bits), compressed
 * (call, jump) and encrypted (with a password) into memory: 7-Zip's pack
 * stream order puts the main stream first, and it is written as it comes. */
typedef struct side_stream {
    fz7_ostream os;               /* what the BCJ2 encoder writes to */
    fz7_lzma_enc *enc;            /* NULL for the rc stream */
    fz7_7zaes_writer *aes;        /* NULL without a password */
    fz7_ostream *enc_dst;         /* the sink or aes */
    mem_sink sink;
    bytebuf packed;
} side_stream;

/* Where a folder's coders write its pack stream: the archive file, or, while
 * the folder before is still being coded (the writer's pending folder), a
 * buffer that goes to the file after that folder's last bytes. */
typedef struct pack_sink {
    fz7_ostream os;
    struct fz7_7z_writer *w;
    bool holding;
    bytebuf held;
} pack_sink;

/* The BCJ2 encoder's main stream goes to the folder's method. */
typedef struct main_sink {
    fz7_ostream os;
    struct fz7_7z_writer *w;
} main_sink;

struct fz7_7z_writer {
    fz7_fd_ostream out;           /* the archive file */
    entry_rec *entries;
    size_t n_entries, cap_entries;
    bool order_7zip;              /* FilesInfo in 7-Zip's order (fz7_7z_writer_order_7zip) */
    folder_rec *folders;
    size_t n_folders, cap_folders;
    /* The open folder, if any. */
    bool in_folder, in_file;
    uint64_t folder_start;        /* file offset of its pack stream */
    fz7_lzma_enc *enc;            /* NULL for Copy and BZip2 */
    fz7_bzip2_enc *bz;            /* BZip2 folders' encoder */
    fz7_7zaes_writer *aes;        /* NULL without a password */
    fz7_ostream *method_dst;      /* where the method writes: the sink or aes */
    bool bcj;
    fz7_bcj_x86_state bcj_state;
    bool risc;                    /* a branch filter other than x86 (bcj_buf too) */
    fz7_bcj_risc_state risc_state;
    bool delta;
    fz7_delta_state delta_state;
    uint8_t *bcj_buf;             /* the filter's staging buffer (BCJ or Delta) */
    size_t bcj_fill;
    fz7_bcj2_enc *bcj2;           /* BCJ2 folder: the encoder, */
    main_sink bcj2_main;          /* its main stream's way to the method, */
    side_stream side[3];          /* call, jump, rc */
    uint64_t folder_bytes;        /* the folder's input size if known, */
    uint64_t folder_in;           /* and the bytes it has received */
    /* Multi-threaded LZMA2 folders share one pool of workers. A folder whose
     * input has ended but whose last blocks are still being coded is the
     * pending folder: its record is counted (pack_size comes when it is
     * settled), its coders write to the file, and the open folder's pack
     * stream waits in its sink's buffer meanwhile. sinks[cur_sink] is the
     * open folder's, the other one the pending folder's. */
    fz7_lzma2_pool *pool;
    pack_sink sinks[2];
    int cur_sink;
    fz7_lzma_enc *pend_enc;       /* NULL: no pending folder */
    fz7_7zaes_writer *pend_aes;
    size_t pend_folder;           /* its index in folders */
    uint64_t pend_start;          /* file offset of its pack stream */
    uint64_t pend_mem;            /* bytes its coder may hold */
    uint64_t folder_mem;          /* the same for the open folder's coder */
    fz7_status failed;            /* sticky error */
};

void fz7_7z_writer_order_7zip(fz7_7z_writer *w)
{
    w->order_7zip = true;
}

static fz7_status pack_sink_write(fz7_ostream *os, const uint8_t *p, size_t n)
{
    pack_sink *k = (pack_sink *)os;
    if (!k->holding)
        return fz7_fd_ostream_write(&k->w->out.os, p, n);
    bb_bytes(&k->held, p, n);
    return k->held.failed ? FZ7_E_MEM : FZ7_OK;
}

/* Ends the pending folder (waiting for its last blocks if need be): writes
 * the rest of its pack stream, records its sizes, then sends what the open
 * folder's coders have written meanwhile after it. */
static fz7_status settle(fz7_7z_writer *w)
{
    if (!w->pend_enc)
        return FZ7_OK;
    folder_rec *f = &w->folders[w->pend_folder];
    fz7_status st = fz7_lzma_enc_finish(w->pend_enc);
    f->method_out = fz7_lzma_enc_bytes_out(w->pend_enc);
    if (st == FZ7_OK && w->pend_aes)
        st = fz7_7zaes_writer_finish(w->pend_aes, NULL);
    f->pack_size = w->out.pos - w->pend_start;
    fz7_lzma_enc_free(w->pend_enc);
    w->pend_enc = NULL;
    fz7_7zaes_writer_free(w->pend_aes);
    w->pend_aes = NULL;
    pack_sink *k = &w->sinks[w->cur_sink];
    if (k->holding) {
        k->holding = false;
        w->folder_start = w->out.pos;
        if (st == FZ7_OK && k->held.failed)
            st = FZ7_E_MEM;
        if (st == FZ7_OK && k->held.m.n)
            st = fz7_fd_ostream_write(&w->out.os, k->held.m.p, k->held.m.n);
    }
    free(k->held.m.p);
    k->held = (bytebuf){0};
    if (st != FZ7_OK)
        w->failed = st;
    return st;
}

fz7_status fz7_7z_writer_new(int fd, fz7_7z_writer **out)
{
    *out = NULL;
    fz7_7z_writer *w = calloc(1, sizeof *w);
    if (!w)
        return FZ7_E_MEM;
    if (fz7_fd_ostream_init(&w->out, fd) != FZ7_OK) {
        free(w);
        return FZ7_E_MEM;
    }
    /* Room for the signature header, filled in by finish(). */
    uint8_t zero[SIGNATURE_HEADER_SIZE] = {0};
    fz7_status st = fz7_fd_ostream_write(&w->out.os, zero, sizeof zero);
    if (st != FZ7_OK) {
        fz7_7z_writer_free(w);
        return st;
    }
    *out = w;
    return FZ7_OK;
}

uint64_t fz7_7z_writer_size(const fz7_7z_writer *w)
{
    return w->out.pos;
}

static fz7_status push_entry(fz7_7z_writer *w, const fz7_7z_entry_meta *m, bool has_stream)
{
    if (w->n_entries == w->cap_entries) {
        size_t nc = w->cap_entries ? w->cap_entries * 2 : 64;
        entry_rec *e = realloc(w->entries, nc * sizeof *e);
        if (!e)
            return FZ7_E_MEM;
        w->entries = e;
        w->cap_entries = nc;
    }
    entry_rec *e = &w->entries[w->n_entries];
    memset(e, 0, sizeof *e);
    e->name = strdup(m->name);
    if (!e->name)
        return FZ7_E_MEM;
    e->attrib = m->attrib;
    e->has_attrib = !m->no_attrib;
    e->is_dir = m->is_dir;
    e->has_time[0] = m->has_ctime;
    e->time[0] = filetime_of(m->ctime, m->ctime_nsec);
    e->has_time[1] = m->has_atime;
    e->time[1] = filetime_of(m->atime, m->atime_nsec);
    e->has_time[2] = m->has_mtime;
    e->time[2] = filetime_of(m->mtime, m->mtime_nsec);
    e->has_stream = has_stream;
    e->is_anti = m->is_anti && !has_stream;
    if (e->is_anti) /* nothing but the name and the folder flag */
        e->has_attrib = e->has_time[0] = e->has_time[1] = e->has_time[2] = false;
    w->n_entries++;
    return FZ7_OK;
}

fz7_status fz7_7z_writer_add_empty(fz7_7z_writer *w, const fz7_7z_entry_meta *m)
{
    if (w->failed)
        return w->failed;
    if (w->in_file)
        return FZ7_E_ARG;
    return push_entry(w, m, false);
}

/* ---- BCJ2 folders ------------------------------------------------------- */

static fz7_status to_method(fz7_7z_writer *w, const uint8_t *p, size_t n);

static fz7_status main_sink_write(fz7_ostream *os, const uint8_t *p, size_t n)
{
    main_sink *m = (main_sink *)os;
    return to_method(m->w, p, n);
}

static fz7_status side_write(fz7_ostream *os, const uint8_t *p, size_t n)
{
    side_stream *s = (side_stream *)os;
    if (s->enc)
        return fz7_lzma_enc_write(s->enc, p, n);
    return s->enc_dst->write(s->enc_dst, p, n);
}

static void bcj2_free(fz7_7z_writer *w)
{
    fz7_bcj2_enc_free(w->bcj2);
    w->bcj2 = NULL;
    for (int k = 0; k < 3; k++) {
        side_stream *s = &w->side[k];
        fz7_lzma_enc_free(s->enc);
        fz7_7zaes_writer_free(s->aes);
        free(s->packed.m.p);
        memset(s, 0, sizeof *s);
    }
}

/* The BCJ2 encoder and its side streams' coders (their options:
 * fz7_lzma_bcj2_side_preset). */
static fz7_status bcj2_begin(fz7_7z_writer *w, const fz7_7z_folder_opts *o, folder_rec *f)
{
    fz7_lzma_enc_opts so;
    fz7_lzma_bcj2_side_preset(&so, o->size_hint);
    fz7_status st = FZ7_OK;
    fz7_ostream *dst[FZ7_BCJ2_STREAMS];
    w->bcj2_main = (main_sink){{main_sink_write}, w};
    dst[FZ7_BCJ2_MAIN] = &w->bcj2_main.os;
    for (int k = 0; st == FZ7_OK && k < 3; k++) {
        side_stream *s = &w->side[k];
        memset(s, 0, sizeof *s);
        s->os.write = side_write;
        s->sink = (mem_sink){{mem_write}, &s->packed};
        s->enc_dst = &s->sink.os;
        if (o->key && (st = fz7_7zaes_writer_new(o->key, &s->sink.os, &s->aes)) == FZ7_OK) {
            f->side_aes_props_len[k] = fz7_7zaes_writer_props(s->aes, f->side_aes_props[k]);
            s->enc_dst = fz7_7zaes_writer_stream(s->aes);
        }
        if (st == FZ7_OK && k < 2 && o->method != FZ7_7Z_NONE &&
            (st = fz7_lzma_enc_new(&so, s->enc_dst, &s->enc)) == FZ7_OK)
            fz7_lzma_enc_props(s->enc, f->side_props[k]);
        dst[FZ7_BCJ2_CALL + k] = &s->os;
    }
    if (st == FZ7_OK)
        st = fz7_bcj2_enc_new(dst, &w->bcj2);
    if (st != FZ7_OK)
        bcj2_free(w);
    return st;
}

/* Finishes the BCJ2 encoder and the side streams' coders; the main
 * stream's coders are finished by the caller. */
static fz7_status bcj2_end(fz7_7z_writer *w, folder_rec *f)
{
    fz7_status st = fz7_bcj2_enc_finish(w->bcj2);
    for (unsigned k = 0; k < FZ7_BCJ2_STREAMS; k++)
        f->bcj2_sizes[k] = fz7_bcj2_enc_bytes_out(w->bcj2, k);
    for (int k = 0; st == FZ7_OK && k < 3; k++) {
        side_stream *s = &w->side[k];
        if (s->enc) {
            st = fz7_lzma_enc_finish(s->enc);
            f->side_method_out[k] = fz7_lzma_enc_bytes_out(s->enc);
        }
        if (st == FZ7_OK && s->aes)
            st = fz7_7zaes_writer_finish(s->aes, NULL);
        if (st == FZ7_OK && s->packed.failed)
            st = FZ7_E_MEM;
        f->side_pack[k] = s->packed.m.n;
    }
    return st;
}

/* The side stream (0 call, 1 jump, 2 rc) whose pack stream is the
 * i-th after the main one: rc, call, jump; for BCJ2 alone, as 7-Zip
 * stores it, call, jump, rc. */
static int bcj2_side_order(const folder_rec *f, int i)
{
    return f->method == FZ7_7Z_NONE ? i : (i + 2) % 3;
}

/* Appends the side streams' pack streams after the main one. */
static fz7_status bcj2_write_sides(fz7_7z_writer *w, const folder_rec *f)
{
    fz7_status st = FZ7_OK;
    for (int i = 0; st == FZ7_OK && i < 3; i++) {
        const bytebuf *b = &w->side[bcj2_side_order(f, i)].packed;
        if (b->m.n)
            st = fz7_fd_ostream_write(&w->out.os, b->m.p, b->m.n);
    }
    return st;
}

/* Room for one more folder record in w->folders; false when out of memory. */
static bool reserve_folder(fz7_7z_writer *w)
{
    if (w->n_folders < w->cap_folders)
        return true;
    size_t nc = w->cap_folders ? w->cap_folders * 2 : 16;
    folder_rec *f = realloc(w->folders, nc * sizeof *f);
    if (!f)
        return false;
    w->folders = f;
    w->cap_folders = nc;
    return true;
}

fz7_status fz7_7z_writer_begin_folder(fz7_7z_writer *w, const fz7_7z_folder_opts *o)
{
    if (w->failed)
        return w->failed;
    if (w->in_folder)
        return FZ7_E_ARG;
    if (!reserve_folder(w))
        return FZ7_E_MEM;
    folder_rec *f = &w->folders[w->n_folders];
    memset(f, 0, sizeof *f);
    fz7_bcj_arch arch = FZ7_BCJ_ARM64;
    if (o->delta_distance > 256 || (o->delta_distance && o->bcj_x86) ||
        (o->bcj_x86 && o->bcj2 && (o->method == FZ7_7Z_COPY ||
                                   (o->method == FZ7_7Z_NONE && o->key))) ||
        (o->method == FZ7_7Z_NONE && !o->bcj_x86 && !o->delta_distance && !o->branch_id) ||
        (o->branch_id && (o->bcj_x86 || o->delta_distance || !fz7_7z_branch_arch(o->branch_id, &arch))))
        return FZ7_E_ARG;
    f->branch_id = o->branch_id;
    f->method = o->method;
    f->filter_first = o->filter_after_copy && o->method == FZ7_7Z_COPY;
    f->bcj = o->bcj_x86;
    f->has_delta = o->delta_distance != 0;
    f->delta = (uint8_t)(o->delta_distance ? o->delta_distance - 1 : 0);
    f->aes = o->key != NULL;
    fz7_status st = FZ7_OK;
    /* A folder on a pool of another size cannot overlap the pending one. */
    bool pooled = o->method == FZ7_7Z_LZMA2 && o->threads > 1;
    if (pooled && w->pool && fz7_lzma2_pool_threads(w->pool) != o->threads) {
        if ((st = settle(w)) != FZ7_OK)
            return st;
        fz7_lzma2_pool_free(w->pool);
        w->pool = NULL;
    }
    if (pooled && !w->pool && (st = fz7_lzma2_pool_new(o->threads, &w->pool)) != FZ7_OK)
        return st;
    w->folder_mem = 0;
    if (pooled) {
        w->folder_mem = fz7_lzma2_mt_memusage(&o->lzma, o->threads, o->mt_block_size);
    }
    /* Both folders' coders must fit in the limit together, else the
     * pending folder ends first. */
    if (w->pend_enc && (!pooled || !w->folder_mem || o->mt_mem_limit < w->folder_mem
                        || o->mt_mem_limit - w->folder_mem < w->pend_mem)) {
        if ((st = settle(w)) != FZ7_OK)
            return st;
    }
    w->cur_sink = w->pend_enc ? !w->cur_sink : w->cur_sink;
    pack_sink *sink = &w->sinks[w->cur_sink];
    *sink = (pack_sink){.os = {pack_sink_write}, .w = w, .holding = w->pend_enc != NULL};
    w->method_dst = &sink->os;
    if (o->key) {
        st = fz7_7zaes_writer_new(o->key, &sink->os, &w->aes);
        if (st != FZ7_OK)
            return st;
        f->aes_props_len = fz7_7zaes_writer_props(w->aes, f->aes_props);
        w->method_dst = fz7_7zaes_writer_stream(w->aes);
    }
    if (o->method == FZ7_7Z_BZIP2) {
        st = fz7_bzip2_enc_new(o->bzip2_block, w->method_dst, &w->bz);
        if (st != FZ7_OK) {
            fz7_7zaes_writer_free(w->aes);
            w->aes = NULL;
            return st;
        }
    } else if (o->method != FZ7_7Z_COPY && o->method != FZ7_7Z_NONE) {
        fz7_lzma_enc_opts lo = o->lzma;
        /* BCJ2's main stream is x86 code without branch operands: lc=4
         * mostly compresses it better than LZMA's default lc=3 lp=0.
         * Other lc/lp values are the caller's and stay. */
        if (o->bcj_x86 && o->bcj2 && lo.lc == 3 && lo.lp == 0)
            lo.lc = 4;
        /* The dictionary follows the whole archive's bytes (the caller
         * fitted it), but this folder's encoder sees only folder_bytes: told so, its
         * match finder offers huge pages only for the part of its tables it
         * will fill, which lowers peak memory. */
        if (o->folder_bytes && (!lo.size_hint || o->folder_bytes < lo.size_hint))
            lo.size_hint = o->folder_bytes;
        if (o->method == FZ7_7Z_LZMA)
            st = fz7_lzma_enc_new(&lo, w->method_dst, &w->enc);
        else if (o->threads > 1)
            st = fz7_lzma2_enc_new_pooled(&lo, w->pool, o->mt_block_size, w->method_dst, &w->enc);
        else
            st = fz7_lzma2_enc_new(&lo, w->method_dst, &w->enc);
        if (st != FZ7_OK) {
            fz7_7zaes_writer_free(w->aes);
            w->aes = NULL;
            return st;
        }
        if (o->method == FZ7_7Z_LZMA) {
            fz7_lzma_enc_props(w->enc, f->props);
            f->props_len = 5;
        } else {
            f->props[0] = fz7_lzma2_enc_dict_prop(w->enc);
            f->props_len = 1;
        }
    }
    w->folder_bytes = o->folder_bytes;
    w->folder_in = 0;
    if (o->bcj_x86 && o->bcj2) {
        f->bcj2 = true;
        if ((st = bcj2_begin(w, o, f)) != FZ7_OK) {
            fz7_lzma_enc_free(w->enc);
            w->enc = NULL;
            fz7_7zaes_writer_free(w->aes);
            w->aes = NULL;
            return st;
        }
    }
    w->bcj = o->bcj_x86 && !o->bcj2;
    f->bcj = w->bcj;
    w->delta = o->delta_distance != 0;
    w->bcj_fill = 0;
    if (w->delta)
        fz7_delta_init(&w->delta_state, o->delta_distance);
    w->risc = o->branch_id != 0;
    if (w->risc)
        w->risc_state = (fz7_bcj_risc_state){arch, 0};
    if (w->bcj || w->delta || w->risc) {
        if (!w->bcj_buf && !(w->bcj_buf = malloc(BCJ_BUF_SIZE))) {
            fz7_lzma_enc_free(w->enc);
            w->enc = NULL;
            fz7_7zaes_writer_free(w->aes);
            w->aes = NULL;
            return FZ7_E_MEM;
        }
        if (w->bcj)
            fz7_bcj_x86_init(&w->bcj_state, 0);
    }
    w->folder_start = w->out.pos;
    w->in_folder = true;
    return FZ7_OK;
}

fz7_status fz7_7z_writer_begin_file(fz7_7z_writer *w, const fz7_7z_entry_meta *m)
{
    return fz7_7z_writer_begin_file_sized(w, m, 0);
}

fz7_status fz7_7z_writer_begin_file_sized(fz7_7z_writer *w, const fz7_7z_entry_meta *m,
                                          uint64_t size)
{
    if (w->failed)
        return w->failed;
    if (!w->in_folder || w->in_file)
        return FZ7_E_ARG;
    fz7_status st = push_entry(w, m, true);
    if (st != FZ7_OK)
        return st;
    if (w->bcj2) {
        /* Without its size, an entry is taken to fill the folder's rest. */
        if (!size && w->folder_bytes > w->folder_in)
            size = w->folder_bytes - w->folder_in;
        if ((st = fz7_bcj2_enc_file(w->bcj2, size)) != FZ7_OK)
            return w->failed = st;
    }
    w->in_file = true;
    return FZ7_OK;
}

/* Bytes after the filter go to the method's encoder (or straight out). */
static fz7_status to_method(fz7_7z_writer *w, const uint8_t *p, size_t n)
{
    if (w->enc)
        return fz7_lzma_enc_write(w->enc, p, n);
    if (w->bz)
        return fz7_bzip2_enc_write(w->bz, p, n);
    return w->method_dst->write(w->method_dst, p, n);
}

/* Converts a prefix of bcj_buf with the folder's branch filter (x86 or
 * another CPU's); returns its length. */
static size_t branch_encode(fz7_7z_writer *w)
{
    if (w->risc)
        return fz7_bcj_risc_code(&w->risc_state, w->bcj_buf, w->bcj_fill, true);
    return fz7_bcj_x86_encode(&w->bcj_state, w->bcj_buf, w->bcj_fill);
}

static fz7_status to_filter(fz7_7z_writer *w, const uint8_t *p, size_t n)
{
    if (w->delta) {
        /* Delta converts every byte at once: copy, convert, pass on. */
        while (n) {
            size_t take = n < BCJ_BUF_SIZE ? n : BCJ_BUF_SIZE;
            memcpy(w->bcj_buf, p, take);
            fz7_delta_encode(&w->delta_state, w->bcj_buf, take);
            fz7_status st = to_method(w, w->bcj_buf, take);
            if (st != FZ7_OK)
                return st;
            p += take;
            n -= take;
        }
        return FZ7_OK;
    }
    if (w->bcj2)
        return fz7_bcj2_enc_write(w->bcj2, p, n);
    if (!w->bcj && !w->risc)
        return to_method(w, p, n);
    while (n) {
        size_t take = BCJ_BUF_SIZE - w->bcj_fill;
        if (take > n)
            take = n;
        memcpy(w->bcj_buf + w->bcj_fill, p, take);
        w->bcj_fill += take;
        p += take;
        n -= take;
        if (w->bcj_fill < BCJ_BUF_SIZE)
            break;
        size_t done = branch_encode(w);
        fz7_status st = to_method(w, w->bcj_buf, done);
        if (st != FZ7_OK)
            return st;
        memmove(w->bcj_buf, w->bcj_buf + done, w->bcj_fill - done);
        w->bcj_fill -= done;
    }
    return FZ7_OK;
}

fz7_status fz7_7z_writer_write(fz7_7z_writer *w, const uint8_t *p, size_t n)
{
    if (w->failed)
        return w->failed;
    if (!w->in_file)
        return FZ7_E_ARG;
    entry_rec *e = &w->entries[w->n_entries - 1];
    e->crc = fz7_crc32(e->crc, p, n);
    e->size += n;
    w->folder_in += n;
    /* The pending folder's pack stream goes out as soon as it is whole. */
    if (w->pend_enc && fz7_lzma2_mt_blocks_done(w->pend_enc) && settle(w) != FZ7_OK)
        return w->failed;
    fz7_status st = to_filter(w, p, n);
    if (st != FZ7_OK)
        w->failed = st;
    return st;
}

fz7_status fz7_7z_writer_end_file(fz7_7z_writer *w)
{
    if (w->failed)
        return w->failed;
    if (!w->in_file)
        return FZ7_E_ARG;
    w->in_file = false;
    entry_rec *e = &w->entries[w->n_entries - 1];
    if (e->size == 0) {
        e->has_stream = false;   /* it was empty when read: an empty file */
        return FZ7_OK;
    }
    folder_rec *f = &w->folders[w->n_folders];
    f->unpack_size += e->size;
    f->num_substreams++;
    return FZ7_OK;
}

fz7_status fz7_7z_writer_end_folder(fz7_7z_writer *w)
{
    if (w->failed)
        return w->failed;
    if (!w->in_folder || w->in_file)
        return FZ7_E_ARG;
    folder_rec *f = &w->folders[w->n_folders];
    fz7_status st = settle(w);
    if (st != FZ7_OK)
        return st;
    if (f->unpack_size == 0) {
        /* Nothing went in: drop the coders' few bytes and the folder. */
        fz7_lzma_enc_free(w->enc);
        w->enc = NULL;
        fz7_bzip2_enc_free(w->bz);
        w->bz = NULL;
        fz7_7zaes_writer_free(w->aes);
        w->aes = NULL;
        bcj2_free(w);
        st = fz7_fd_ostream_flush(&w->out);
        if (st == FZ7_OK && (ftruncate(w->out.fd, (off_t)w->folder_start) != 0 ||
                             lseek(w->out.fd, (off_t)w->folder_start, SEEK_SET) < 0))
            st = FZ7_E_IO;
        w->out.pos = w->folder_start;
        w->in_folder = false;
        if (st != FZ7_OK)
            w->failed = st;
        return st;
    }
    if ((w->bcj || w->risc) && w->bcj_fill) {
        size_t done = branch_encode(w);
        (void)done;   /* the rest passes through unchanged at the end */
        st = to_method(w, w->bcj_buf, w->bcj_fill);
        w->bcj_fill = 0;
    }
    if (w->bcj2)
        st = bcj2_end(w, f);
    uint64_t method_in = w->bcj2 ? f->bcj2_sizes[FZ7_BCJ2_MAIN] : f->unpack_size;
    /* A multi-threaded folder (not BCJ2: its side streams follow the main
     * one) becomes the pending folder: the next folder's blocks start while
     * its last ones are coded. settle() ends it. */
    if (st == FZ7_OK && w->enc && !w->bcj2 && w->pool && w->folder_mem
        && fz7_lzma2_mt_end_input(w->enc) == FZ7_OK) {
        w->pend_enc = w->enc;
        w->pend_aes = w->aes;
        w->pend_folder = w->n_folders;
        w->pend_start = w->folder_start;
        w->pend_mem = w->folder_mem;
        w->enc = NULL;
        w->aes = NULL;
        w->in_folder = false;
        w->n_folders++;
        return FZ7_OK;
    }
    if (st == FZ7_OK && w->enc)
        st = fz7_lzma_enc_finish(w->enc);
    if (st == FZ7_OK && w->bz)
        st = fz7_bzip2_enc_finish(w->bz);
    f->method_out = w->enc ? fz7_lzma_enc_bytes_out(w->enc)
                  : w->bz ? fz7_bzip2_enc_bytes_out(w->bz) : method_in;
    fz7_bzip2_enc_free(w->bz);
    w->bz = NULL;
    if (st == FZ7_OK && w->aes)
        st = fz7_7zaes_writer_finish(w->aes, NULL);
    uint64_t main_end = w->out.pos;
    if (st == FZ7_OK && w->bcj2)
        st = bcj2_write_sides(w, f);
    bcj2_free(w);
    fz7_lzma_enc_free(w->enc);
    w->enc = NULL;
    fz7_7zaes_writer_free(w->aes);
    w->aes = NULL;
    w->in_folder = false;
    if (st != FZ7_OK) {
        w->failed = st;
        return st;
    }
    f->pack_size = main_end - w->folder_start;
    w->n_folders++;
    return FZ7_OK;
}

/* ---- the header -------------------------------------------------------- */

static void put_coder(bytebuf *b, const uint8_t *id, size_t id_len, const uint8_t *props,
                      size_t props_len)
{
    uint8_t flags = (uint8_t)id_len;
    if (props_len)
        flags |= 0x20;
    bb_byte(b, flags);
    bb_bytes(b, id, id_len);
    if (props_len) {
        bb_number(b, props_len);
        bb_bytes(b, props, props_len);
    }
}

static void put_method(bytebuf *b, const folder_rec *f)
{
    static const uint8_t id_copy[] = {0x00};
    static const uint8_t id_lzma[] = {0x03, 0x01, 0x01};
    static const uint8_t id_lzma2[] = {0x21};
    static const uint8_t id_bzip2[] = {0x04, 0x02, 0x02};
    switch (f->method) {
    case FZ7_7Z_COPY: put_coder(b, id_copy, sizeof id_copy, NULL, 0); break;
    case FZ7_7Z_LZMA: put_coder(b, id_lzma, sizeof id_lzma, f->props, f->props_len); break;
    case FZ7_7Z_LZMA2: put_coder(b, id_lzma2, sizeof id_lzma2, f->props, f->props_len); break;
    case FZ7_7Z_BZIP2: put_coder(b, id_bzip2, sizeof id_bzip2, NULL, 0); break;
    case FZ7_7Z_NONE: break;
    }
}

/* A BCJ2 folder as 7zz 26 writes it. Coders: [7zAES for jump, call, rc,
 * main,] LZMA (jump), LZMA (call), the method (main), BCJ2 (4 in streams:
 * main, call, jump, rc). Bind pairs join each coder's output to the input
 * the next stage reads; pack streams main, rc, call, jump. */
static void put_folder_bcj2(bytebuf *b, const folder_rec *f)
{
    static const uint8_t id_lzma[] = {0x03, 0x01, 0x01};
    static const uint8_t id_aes[] = {0x06, 0xF1, 0x07, 0x01};
    static const uint8_t id_bcj2[] = {0x03, 0x03, 0x01, 0x1B};
    /* {InIndex, OutIndex} pairs, then the pack streams' InIndex. */
    static const uint8_t plain_binds[][2] = {{5, 0}, {4, 1}, {3, 2}};
    static const uint8_t plain_packed[] = {2, 6, 1, 0};
    static const uint8_t aes_binds[][2] = {{4, 0}, {5, 1}, {10, 2}, {6, 3}, {9, 4}, {8, 5}, {7, 6}};
    static const uint8_t aes_packed[] = {3, 2, 1, 0};
    if (f->method == FZ7_7Z_NONE) {
        /* BCJ2 alone: its four streams are the pack streams, main, call,
         * jump, rc, as 7-Zip stores them. */
        bb_number(b, 1);
        bb_byte(b, 0x10 | sizeof id_bcj2);
        bb_bytes(b, id_bcj2, sizeof id_bcj2);
        bb_number(b, 4);
        bb_number(b, 1);
        for (unsigned i = 0; i < 4; i++)
            bb_number(b, i);
        return;
    }
    bb_number(b, f->aes ? 8 : 4);
    if (f->aes) {
        put_coder(b, id_aes, sizeof id_aes, f->side_aes_props[1], f->side_aes_props_len[1]);
        put_coder(b, id_aes, sizeof id_aes, f->side_aes_props[0], f->side_aes_props_len[0]);
        put_coder(b, id_aes, sizeof id_aes, f->side_aes_props[2], f->side_aes_props_len[2]);
        put_coder(b, id_aes, sizeof id_aes, f->aes_props, f->aes_props_len);
    }
    put_coder(b, id_lzma, sizeof id_lzma, f->side_props[1], 5);
    put_coder(b, id_lzma, sizeof id_lzma, f->side_props[0], 5);
    put_method(b, f);
    bb_byte(b, 0x10 | sizeof id_bcj2);   /* complex coder, no properties */
    bb_bytes(b, id_bcj2, sizeof id_bcj2);
    bb_number(b, 4);
    bb_number(b, 1);
    const uint8_t(*binds)[2] = f->aes ? aes_binds : plain_binds;
    size_t n_binds = f->aes ? 7 : 3;
    for (size_t i = 0; i < n_binds; i++) {
        bb_number(b, binds[i][0]);
        bb_number(b, binds[i][1]);
    }
    for (size_t i = 0; i < 4; i++)
        bb_number(b, (f->aes ? aes_packed : plain_packed)[i]);
}

/* One folder's coder list (7zFormat.txt, Folder), laid out as 7-Zip does:
 * from the pack side to the output side, [7zAES,] method[, BCJ | Delta]; coder
 * k's output (out stream k) feeds coder k + 1's input (in stream k + 1),
 * so the first coder reads the pack stream and the last one's output is
 * the folder's. */
static void put_folder(bytebuf *b, const folder_rec *f)
{
    static const uint8_t id_bcj[] = {0x03, 0x03, 0x01, 0x03};
    static const uint8_t id_aes[] = {0x06, 0xF1, 0x07, 0x01};
    static const uint8_t id_delta[] = {0x03};
    if (f->raw_folder) {
        bb_bytes(b, f->raw_folder, f->raw_folder_len);
        return;
    }
    if (f->bcj2) {
        put_folder_bcj2(b, f);
        return;
    }
    unsigned n = (f->method != FZ7_7Z_NONE) + f->bcj + f->has_delta + (f->branch_id != 0) + f->aes;
    bb_number(b, n);
    if (f->aes)
        put_coder(b, id_aes, sizeof id_aes, f->aes_props, f->aes_props_len);
    /* Copy changes nothing, so a filter on its far side gives the same
     * bytes: only the coders' order shows it. */
    if (!f->filter_first)
        put_method(b, f);
    if (f->bcj)
        put_coder(b, id_bcj, sizeof id_bcj, NULL, 0);
    if (f->has_delta)
        put_coder(b, id_delta, sizeof id_delta, &f->delta, 1);
    if (f->branch_id) {
        /* The ID's bytes big endian, without leading zero bytes. */
        uint8_t id[4];
        size_t len = 0;
        for (int shift = 24; shift >= 0; shift -= 8)
            if (len || (f->branch_id >> shift) & 0xFF || shift == 0)
                id[len++] = (uint8_t)(f->branch_id >> shift);
        put_coder(b, id, len, NULL, 0);
    }
    if (f->filter_first)
        put_method(b, f);
    for (unsigned k = 0; k + 1 < n; k++) {
        bb_number(b, k + 1);   /* InIndex */
        bb_number(b, k);       /* OutIndex */
    }
}

/* The folder's unpack sizes, one per coder output in coder order. */
static void put_unpack_sizes(bytebuf *b, const folder_rec *f)
{
    if (f->raw_sizes) {
        bb_bytes(b, f->raw_sizes, f->raw_sizes_len);
        return;
    }
    if (f->bcj2 && f->method == FZ7_7Z_NONE) {
        bb_number(b, f->unpack_size);
        return;
    }
    if (f->bcj2) {
        if (f->aes) {
            bb_number(b, f->side_method_out[1]);
            bb_number(b, f->side_method_out[0]);
            bb_number(b, f->bcj2_sizes[FZ7_BCJ2_RC]);
            bb_number(b, f->method_out);
        }
        bb_number(b, f->bcj2_sizes[FZ7_BCJ2_JUMP]);
        bb_number(b, f->bcj2_sizes[FZ7_BCJ2_CALL]);
        bb_number(b, f->bcj2_sizes[FZ7_BCJ2_MAIN]);
        bb_number(b, f->unpack_size);
        return;
    }
    if (f->aes)
        bb_number(b, f->method_out);
    if (f->method != FZ7_7Z_NONE)
        bb_number(b, f->unpack_size);
    if (f->bcj || f->has_delta || f->branch_id)
        bb_number(b, f->unpack_size);   /* filters do not change the size */
}

static void put_unit(bytebuf *b, uint32_t u)
{
    uint8_t t[2] = {(uint8_t)u, (uint8_t)(u >> 8)};
    bb_bytes(b, t, 2);
}

/* Appends name as UTF-16LE with its terminating 0. Names are bytes on
 * Linux: a byte that does not start valid UTF-8 (RFC 3629: no overlong
 * forms, surrogates or code points past U+10FFFF) is written as U+EF00
 * plus the byte, the escape 7-Zip uses, and so are each of the bytes of a
 * character in U+EF80..U+EFFF, so that reading the name back (7z_read.c)
 * gives the same bytes. */
static void put_utf16(bytebuf *b, const char *s)
{
    const uint8_t *p = (const uint8_t *)s;
    while (*p) {
        uint32_t c = *p;
        size_t len = 1;
        if (c >= 0xF0 && c < 0xF5)
            len = 4, c &= 0x07;
        else if (c >= 0xE0)
            len = c < 0xF0 ? 3 : 0, c &= 0x0F;
        else if (c >= 0xC2)
            len = 2, c &= 0x1F;
        else if (c >= 0x80)
            len = 0;
        for (size_t i = 1; i < len; i++) {
            if ((p[i] & 0xC0) != 0x80) {
                len = 0;
                break;
            }
            c = (c << 6) | (p[i] & 0x3F);
        }
        if (len == 0 || (len == 3 && (c < 0x800 || (c >= 0xD800 && c < 0xE000))) ||
            (len == 4 && (c < 0x10000 || c > 0x10FFFF))) {
            put_unit(b, 0xEF00 + *p++);
            continue;
        }
        if (c >= 0xEF80 && c <= 0xEFFF) {   /* would read back as escapes */
            for (size_t i = 0; i < len; i++)
                put_unit(b, 0xEF00 + *p++);
            continue;
        }
        p += len;
        if (c >= 0x10000) {
            uint32_t v = c - 0x10000;
            put_unit(b, 0xD800 + (v >> 10));
            put_unit(b, 0xDC00 + (v & 0x3FF));
        } else {
            put_unit(b, c);
        }
    }
    bb_byte(b, 0);
    bb_byte(b, 0);
}

static void put_main_streams(bytebuf *b, const fz7_7z_writer *w)
{
    bb_byte(b, K_PACK_INFO);
    bb_number(b, 0);   /* PackPos: right after the signature header */
    size_t n_pack = 0;
    for (size_t i = 0; i < w->n_folders; i++)
        n_pack += w->folders[i].bcj2 ? 4 : w->folders[i].raw_pack_sizes ? w->folders[i].raw_n_packs : 1;
    bb_number(b, n_pack);
    bb_byte(b, K_SIZE);
    for (size_t i = 0; i < w->n_folders; i++) {
        const folder_rec *f = &w->folders[i];
        if (f->raw_pack_sizes) {
            for (size_t k = 0; k < f->raw_n_packs; k++)
                bb_number(b, f->raw_pack_sizes[k]);
            continue;
        }
        bb_number(b, f->pack_size);
        if (f->bcj2)
            for (int k = 0; k < 3; k++)
                bb_number(b, f->side_pack[bcj2_side_order(f, k)]);
    }
    bb_byte(b, K_END);

    bb_byte(b, K_UNPACK_INFO);
    bb_byte(b, K_FOLDER);
    bb_number(b, w->n_folders);
    bb_byte(b, 0);   /* not external */
    for (size_t i = 0; i < w->n_folders; i++)
        put_folder(b, &w->folders[i]);
    bb_byte(b, K_CODERS_UNPACK_SIZE);
    for (size_t i = 0; i < w->n_folders; i++)
        put_unpack_sizes(b, &w->folders[i]);
    bb_byte(b, K_END);

    bb_byte(b, K_SUBSTREAMS_INFO);
    bool all_one = true;
    for (size_t i = 0; i < w->n_folders; i++)
        all_one &= w->folders[i].num_substreams == 1;
    if (!all_one) {
        bb_byte(b, K_NUM_UNPACK_STREAM);
        for (size_t i = 0; i < w->n_folders; i++)
            bb_number(b, w->folders[i].num_substreams);
        /* Sizes of every substream but each folder's last. */
        bb_byte(b, K_SIZE);
        size_t e = 0;
        for (size_t i = 0; i < w->n_folders; i++) {
            for (size_t k = 0; k < w->folders[i].num_substreams; k++) {
                while (!w->entries[e].has_stream)
                    e++;
                if (k + 1 < w->folders[i].num_substreams)
                    bb_number(b, w->entries[e].size);
                e++;
            }
        }
    }
    bb_byte(b, K_CRC);
    bb_byte(b, 1);   /* all defined */
    for (size_t e = 0; e < w->n_entries; e++)
        if (w->entries[e].has_stream)
            bb_u32(b, w->entries[e].crc);
    bb_byte(b, K_END);
    bb_byte(b, K_END);
}

/* Bytes bb_number writes for v. */
static size_t number_size(uint64_t v)
{
    size_t n = 1;
    while (n < 9 && v >= ((uint64_t)1 << (7 * n)))
        n++;
    return n;
}

/* 7-Zip aligns the values of some FilesInfo properties to their width
 * from the header's first byte (names to 16 bytes), so that a reader may
 * use them in place: when the property's head (head bytes: id, size,
 * defined flags, external byte) would leave them off, a kDummy property of
 * at least two bytes goes before it. */
static void put_align(bytebuf *b, size_t head, size_t align)
{
    size_t gap = (align - (b->m.n + head) % align) % align;
    if (!gap)
        return;
    if (gap < 2)
        gap += align;
    bb_byte(b, K_DUMMY);
    bb_number(b, gap - 2);
    for (size_t i = 2; i < gap; i++)
        bb_byte(b, 0);
}

/* Starts a FilesInfo vector property of width-byte values (id, size,
 * defined bits, external byte 0), aligned as 7-Zip aligns it. defined: n
 * flags, NULL = all defined. */
static void put_vector_head(bytebuf *b, uint8_t id, size_t n, const bool *defined,
                            size_t n_defined, size_t width)
{
    size_t bits = defined ? (n + 7) / 8 : 0;
    uint64_t size = 1 + bits + 1 + (uint64_t)width * n_defined;
    put_align(b, 1 + number_size(size) + 1 + bits + 1, width);
    bb_byte(b, id);
    bb_number(b, size);
    bb_byte(b, defined == NULL);
    if (defined)
        bb_bits(b, defined, n);
    bb_byte(b, 0);   /* not external */
}

/* 7-Zip's order of the path compare: byte by byte, '/' before every other
 * byte, so a folder's entries follow it directly. */
static int cmp_path(const char *a, const char *b)
{
    for (;; a++, b++) {
        int ca = *a == '/' ? 1 : (unsigned char)*a, cb = *b == '/' ? 1 : (unsigned char)*b;
        if (ca != cb || ca == 0)
            return ca - cb;
    }
}

static int cmp_empty_entry(const void *x, const void *y)
{
    const entry_rec *a = *(const entry_rec *const *)x, *b = *(const entry_rec *const *)y;
    if (a->is_anti != b->is_anti)
        return a->is_anti ? 1 : -1;
    if (a->is_dir != b->is_dir) /* folders first; anti-folders last */
        return a->is_dir != a->is_anti ? -1 : 1;
    int c = cmp_path(a->name, b->name);
    if (a->is_anti && a->is_dir) /* deepest first: a folder is removed once empty */
        c = -c;
    return c ? c : a < b ? -1 : a > b;   /* the same name: the order added */
}

/* The entries in the order FilesInfo lists them: as added, or with
 * order_7zip as 7-Zip writes them, those without data first (folders,
 * then files, each by path), then those with data in the order of their
 * substreams. NULL: no memory. */
static const entry_rec **files_order(const fz7_7z_writer *w)
{
    size_t n = w->n_entries, k = 0;
    const entry_rec **ent = malloc((n ? n : 1) * sizeof *ent);
    if (!ent)
        return NULL;
    for (size_t i = 0; i < n; i++)
        if (!w->order_7zip || !w->entries[i].has_stream)
            ent[k++] = &w->entries[i];
    if (!w->order_7zip)
        return ent;
    qsort(ent, k, sizeof *ent, cmp_empty_entry);
    for (size_t i = 0; i < n; i++)
        if (w->entries[i].has_stream)
            ent[k++] = &w->entries[i];
    return ent;
}

static void put_files_info(bytebuf *b, const fz7_7z_writer *w)
{
    size_t n = w->n_entries;
    const entry_rec **ent = files_order(w);
    if (!ent) {
        b->failed = true;
        return;
    }
    bb_byte(b, K_FILES_INFO);
    bb_number(b, n);

    size_t n_empty = 0;
    bool any_empty_file = false, any_anti = false;
    for (size_t i = 0; i < n; i++) {
        if (!ent[i]->has_stream) {
            n_empty++;
            any_empty_file |= !ent[i]->is_dir;
            any_anti |= ent[i]->is_anti;
        }
    }
    bool *bits = malloc((n ? n : 1) * sizeof *bits);
    if (!bits) {
        free(ent);
        b->failed = true;
        return;
    }
    if (n_empty) {
        for (size_t i = 0; i < n; i++)
            bits[i] = !ent[i]->has_stream;
        bb_byte(b, K_EMPTY_STREAM);
        bb_number(b, (n + 7) / 8);
        bb_bits(b, bits, n);
        if (any_empty_file) {
            size_t k = 0;
            for (size_t i = 0; i < n; i++)
                if (!ent[i]->has_stream)
                    bits[k++] = !ent[i]->is_dir;
            bb_byte(b, K_EMPTY_FILE);
            bb_number(b, (n_empty + 7) / 8);
            bb_bits(b, bits, n_empty);
        }
        if (any_anti) {
            size_t k = 0;
            for (size_t i = 0; i < n; i++)
                if (!ent[i]->has_stream)
                    bits[k++] = ent[i]->is_anti;
            bb_byte(b, K_ANTI);
            bb_number(b, (n_empty + 7) / 8);
            bb_bits(b, bits, n_empty);
        }
    }

    bytebuf names = {0};
    bb_byte(&names, 0);   /* not external */
    for (size_t i = 0; i < n; i++)
        put_utf16(&names, ent[i]->name);
    if (names.failed)
        b->failed = true;
    put_align(b, 2 + number_size(names.m.n), 16);   /* id, size, external byte */
    bb_byte(b, K_NAME);
    bb_number(b, names.m.n);
    bb_bytes(b, names.m.p, names.m.n);
    free(names.m.p);

    /* 7-Zip's order: kCTime, kATime, kMTime. */
    static const uint8_t time_id[3] = {K_CTIME, K_ATIME, K_MTIME};
    for (int k = 0; k < 3; k++) {
        size_t n_time = 0;
        for (size_t i = 0; i < n; i++)
            n_time += ent[i]->has_time[k];
        if (!n_time)
            continue;
        for (size_t i = 0; i < n; i++)
            bits[i] = ent[i]->has_time[k];
        put_vector_head(b, time_id[k], n, n_time == n ? NULL : bits, n_time, 8);
        for (size_t i = 0; i < n; i++)
            if (ent[i]->has_time[k])
                bb_u64(b, ent[i]->time[k]);
    }

    size_t n_attrib = 0;
    for (size_t i = 0; i < n; i++)
        n_attrib += bits[i] = ent[i]->has_attrib;
    if (n_attrib)
        put_vector_head(b, K_WIN_ATTRIBUTES, n, n_attrib == n ? NULL : bits, n_attrib, 4);
    for (size_t i = 0; i < n; i++)
        if (ent[i]->has_attrib)
            bb_u32(b, ent[i]->attrib);

    bb_byte(b, K_END);
    free(bits);
    free(ent);
}

static fz7_status build_header(const fz7_7z_writer *w, bytebuf *b)
{
    bb_byte(b, K_HEADER);
    if (w->n_folders)
        bb_byte(b, K_MAIN_STREAMS_INFO), put_main_streams(b, w);
    if (w->n_entries)
        put_files_info(b, w);
    bb_byte(b, K_END);
    return b->failed ? FZ7_E_MEM : FZ7_OK;
}

/* LZMA-encodes header (and encrypts it when key is set) into the archive
 * at the current position and replaces *header with the kEncodedHeader
 * block that describes it. */
static fz7_status encode_header(fz7_7z_writer *w, bytebuf *header, const fz7_7zaes_key *key)
{
    fz7_lzma_enc_opts lo;
    fz7_lzma_header_preset(&lo, header->m.n);
    fz7_status st = FZ7_OK;
    bytebuf packed = {0};
    mem_sink ms = {{mem_write}, &packed};
    folder_rec f = {0};
    f.method = FZ7_7Z_LZMA;
    f.props_len = 5;
    f.unpack_size = header->m.n;
    fz7_7zaes_writer *aes = NULL;
    fz7_ostream *dst = &ms.os;
    if (key) {
        st = fz7_7zaes_writer_new(key, &ms.os, &aes);
        if (st != FZ7_OK)
            return st;
        f.aes = true;
        f.aes_props_len = fz7_7zaes_writer_props(aes, f.aes_props);
        dst = fz7_7zaes_writer_stream(aes);
    }
    fz7_lzma_enc *enc = NULL;
    st = fz7_lzma_enc_new(&lo, dst, &enc);
    if (st == FZ7_OK)
        st = fz7_lzma_enc_write(enc, header->m.p, header->m.n);
    if (st == FZ7_OK)
        st = fz7_lzma_enc_finish(enc);
    if (enc) {
        fz7_lzma_enc_props(enc, f.props);
        f.method_out = fz7_lzma_enc_bytes_out(enc);
    }
    if (st == FZ7_OK && aes)
        st = fz7_7zaes_writer_finish(aes, NULL);
    fz7_lzma_enc_free(enc);
    fz7_7zaes_writer_free(aes);
    if (st != FZ7_OK) {
        free(packed.m.p);
        return st;
    }
    uint64_t pack_pos = w->out.pos - SIGNATURE_HEADER_SIZE;
    st = fz7_fd_ostream_write(&w->out.os, packed.m.p, packed.m.n);
    free(packed.m.p);
    if (st != FZ7_OK)
        return st;

    bytebuf b = {0};
    bb_byte(&b, K_ENCODED_HEADER);
    bb_byte(&b, K_PACK_INFO);
    bb_number(&b, pack_pos);
    bb_number(&b, 1);
    bb_byte(&b, K_SIZE);
    bb_number(&b, packed.m.n);
    bb_byte(&b, K_END);
    bb_byte(&b, K_UNPACK_INFO);
    bb_byte(&b, K_FOLDER);
    bb_number(&b, 1);
    bb_byte(&b, 0);
    put_folder(&b, &f);
    bb_byte(&b, K_CODERS_UNPACK_SIZE);
    put_unpack_sizes(&b, &f);
    bb_byte(&b, K_CRC);
    bb_byte(&b, 1);
    bb_u32(&b, fz7_crc32(0, header->m.p, header->m.n));
    bb_byte(&b, K_END);
    bb_byte(&b, K_END);
    if (b.failed) {
        free(b.m.p);
        return FZ7_E_MEM;
    }
    free(header->m.p);
    *header = b;
    return FZ7_OK;
}

fz7_status fz7_7z_writer_finish(fz7_7z_writer *w, const fz7_7z_header_opts *h)
{
    if (w->failed)
        return w->failed;
    if (w->in_folder)
        return FZ7_E_ARG;
    fz7_status st = settle(w);
    if (st != FZ7_OK)
        return st;
    bytebuf header = {0};
    if (w->n_entries) {
        st = build_header(w, &header);
        /* 7-Zip leaves the header of a lone entry plain, whatever LZMA
         * would make of it (the encoded header's own block costs 30 bytes
         * or more); an encrypted header is always encoded. */
        bool encode = h && (h->key || (h->compress && w->n_entries > 1));
        if (st == FZ7_OK && encode)
            st = encode_header(w, &header, h->key);
    }
    uint64_t header_offset = w->out.pos - SIGNATURE_HEADER_SIZE;
    if (st == FZ7_OK && header.m.n)
        st = fz7_fd_ostream_write(&w->out.os, header.m.p, header.m.n);
    if (st == FZ7_OK)
        st = fz7_fd_ostream_flush(&w->out);
    if (st == FZ7_OK) {
        /* SignatureHeader: signature, version 0.4, StartHeaderCRC, then the
         * StartHeader it covers. */
        uint8_t sig[SIGNATURE_HEADER_SIZE] = {'7', 'z', 0xBC, 0xAF, 0x27, 0x1C, 0, 4};
        if (header.m.n) {
            fz7_put64le(sig + 12, header_offset);
            fz7_put64le(sig + 20, header.m.n);
            fz7_put32le(sig + 28, fz7_crc32(0, header.m.p, header.m.n));
        }
        fz7_put32le(sig + 8, fz7_crc32(0, sig + 12, 20));
        ssize_t r = pwrite(w->out.fd, sig, sizeof sig, 0);
        if (r != (ssize_t)sizeof sig)
            st = FZ7_E_IO;
    }
    free(header.m.p);
    if (st != FZ7_OK)
        w->failed = st;
    return st;
}

void fz7_7z_writer_free(fz7_7z_writer *w)
{
    if (!w)
        return;
    fz7_lzma_enc_free(w->enc);
    fz7_bzip2_enc_free(w->bz);
    fz7_7zaes_writer_free(w->aes);
    fz7_lzma_enc_free(w->pend_enc);
    fz7_7zaes_writer_free(w->pend_aes);
    fz7_lzma2_pool_free(w->pool);
    for (int k = 0; k < 2; k++)
        free(w->sinks[k].held.m.p);
    bcj2_free(w);
    for (size_t i = 0; i < w->n_entries; i++)
        free(w->entries[i].name);
    free(w->entries);
    for (size_t i = 0; i < w->n_folders; i++) {
        free(w->folders[i].raw_folder);
        free(w->folders[i].raw_sizes);
        free(w->folders[i].raw_pack_sizes);
    }
    free(w->folders);
    free(w->bcj_buf);
    fz7_fd_ostream_free(&w->out);
    free(w);
}

/* ---- solid blocks ------------------------------------------------------ */

/* Parses -ms: "on"/"" (defaults), "off", "e", and runs of {N}f / {N}[bkmg]. */
static fz7_status parse_solid(const char *spec, bool *solid, bool *by_ext, uint64_t *max_files,
                              uint64_t *max_bytes)
{
    if (!spec || !*spec || strcasecmp(spec, "on") == 0)
        return FZ7_OK;
    if (strcasecmp(spec, "off") == 0 || strcmp(spec, "-") == 0) {
        *solid = false;
        return FZ7_OK;
    }
    const char *p = spec;
    while (*p) {
        if (*p == 'e' || *p == 'E') {
            *by_ext = true;
            p++;
            continue;
        }
        if (*p < '0' || *p > '9')
            return FZ7_E_ARG;
        uint64_t v = 0;
        while (*p >= '0' && *p <= '9') {
            if (v > (UINT64_MAX - 9) / 10)
                return FZ7_E_ARG;
            v = v * 10 + (uint64_t)(*p++ - '0');
        }
        unsigned shift = 0;
        switch (*p) {
        case 'f': case 'F': *max_files = v; p++; continue;
        case 'b': case 'B': shift = 0; break;
        case 'k': case 'K': shift = 10; break;
        case 'm': case 'M': shift = 20; break;
        case 'g': case 'G': shift = 30; break;
        default: return FZ7_E_ARG;
        }
        p++;
        if (v > (UINT64_MAX >> shift))
            return FZ7_E_ARG;
        *max_bytes = v << shift;
    }
    return FZ7_OK;
}

fz7_status fz7_7z_plan_solid(const char *spec, uint64_t level_block_bytes, const uint64_t *sizes,
                             const char *const *exts, size_t n, size_t *block_of,
                             size_t *n_blocks)
{
    bool solid = true, by_ext = false;
    uint64_t max_files = UINT64_MAX, max_bytes = level_block_bytes ? level_block_bytes : UINT64_MAX;
    fz7_status st = parse_solid(spec, &solid, &by_ext, &max_files, &max_bytes);
    if (st != FZ7_OK)
        return st;
    if (max_files == 0 || max_bytes == 0)
        solid = false;
    size_t block = 0;
    uint64_t files_in = 0, bytes_in = 0;
    for (size_t i = 0; i < n; i++) {
        bool new_block = false;
        if (i > 0) {
            if (!solid)
                new_block = true;
            else if (files_in >= max_files || bytes_in + sizes[i] > max_bytes)
                new_block = true;
            else if (by_ext && exts && strcmp(exts[i] ? exts[i] : "", exts[i - 1] ? exts[i - 1] : "") != 0)
                new_block = true;
        }
        if (new_block && files_in) {
            block++;
            files_in = 0;
            bytes_in = 0;
        }
        block_of[i] = block;
        files_in++;
        bytes_in += sizes[i];
    }
    *n_blocks = n ? block + 1 : 0;
    return FZ7_OK;
}

/* ---- copying a folder of another archive ------------------------------- */

/* The folder's coders, bind pairs and pack stream indices as 7zFormat.txt
 * lays out a Folder; ids big-endian in as few bytes as they need. */
static void put_folder_record(bytebuf *b, const fz7_7z_folder *f)
{
    bb_number(b, f->num_coders);
    for (uint32_t i = 0; i < f->num_coders; i++) {
        const fz7_7z_coder *c = &f->coders[i];
        uint8_t id[8];
        size_t id_len = 1;
        while (id_len < 8 && (c->id >> (8 * id_len)) != 0)
            id_len++;
        for (size_t k = 0; k < id_len; k++)
            id[k] = (uint8_t)(c->id >> (8 * (id_len - 1 - k)));
        bool complex = c->num_in != 1 || c->num_out != 1;
        uint8_t flags = (uint8_t)id_len;
        if (complex)
            flags |= 0x10;
        if (c->props_len)
            flags |= 0x20;
        bb_byte(b, flags);
        bb_bytes(b, id, id_len);
        if (complex) {
            bb_number(b, c->num_in);
            bb_number(b, c->num_out);
        }
        if (c->props_len) {
            bb_number(b, c->props_len);
            bb_bytes(b, c->props, c->props_len);
        }
    }
    for (uint32_t i = 0; i < f->num_bind_pairs; i++) {
        bb_number(b, f->bind_pairs[i].in_index);
        bb_number(b, f->bind_pairs[i].out_index);
    }
    if (f->num_packed > 1)
        for (uint32_t i = 0; i < f->num_packed; i++)
            bb_number(b, f->packed[i]);
}

/* Pack streams one copied folder may have (BCJ2 has 4). */
#define COPY_PACKS_MAX 32

fz7_status fz7_7z_writer_copy_folder(fz7_7z_writer *w, struct fz7_archive *src, uint64_t folder,
                                     const fz7_7z_entry_meta *metas, size_t n)
{
    if (w->failed)
        return w->failed;
    if (w->in_folder || !src || src->info.format != FZ7_FORMAT_7Z || !src->priv)
        return FZ7_E_ARG;
    fz7_status settled = settle(w);
    if (settled != FZ7_OK)
        return settled;
    const fz7_7z_streams *s = &((const fz7_7z_db *)src->priv)->main;
    if (folder >= s->num_folders)
        return FZ7_E_ARG;
    const fz7_7z_folder *sf = &s->folders[folder];
    if (n != sf->num_substreams || n == 0)
        return FZ7_E_ARG;
    /* Its pack streams follow each other in PackInfo (BCJ2 has four): they
     * are copied in that order, so the folder record's stream indices stay
     * right. */
    if (sf->num_packed < 1 || sf->num_packed > COPY_PACKS_MAX || sf->first_pack >= s->num_pack ||
        s->num_pack - sf->first_pack < sf->num_packed)
        return FZ7_E_UNSUPPORTED;
    for (uint64_t k = 0; k < n; k++)
        if (!s->sub_has_crc[sf->first_substream + k])
            return FZ7_E_UNSUPPORTED;

    if (!reserve_folder(w))
        return FZ7_E_MEM;
    bytebuf rec = {0}, sizes = {0};
    put_folder_record(&rec, sf);
    for (uint32_t i = 0; i < sf->num_coders; i++)
        bb_number(&sizes, sf->unpack_sizes[i]);
    if (rec.failed || sizes.failed) {
        free(rec.m.p);
        free(sizes.m.p);
        return FZ7_E_MEM;
    }

    /* The entries, then the pack stream's bytes as they are. */
    fz7_status st = FZ7_OK;
    uint64_t unpack = 0;
    for (size_t k = 0; st == FZ7_OK && k < n; k++) {
        st = push_entry(w, &metas[k], true);
        if (st == FZ7_OK) {
            entry_rec *e = &w->entries[w->n_entries - 1];
            e->size = s->sub_sizes[sf->first_substream + k];
            e->crc = s->sub_crcs[sf->first_substream + k];
            unpack += e->size;
        }
    }
    uint64_t start = w->out.pos;
    uint64_t *packs = NULL;
    if (st == FZ7_OK && sf->num_packed > 1 && !(packs = malloc((size_t)sf->num_packed * sizeof *packs)))
        st = FZ7_E_MEM;
    uint8_t *buf = st == FZ7_OK ? malloc(COPY_BUF_SIZE) : NULL;
    if (st == FZ7_OK && !buf)
        st = FZ7_E_MEM;
    for (uint64_t j = 0; st == FZ7_OK && j < sf->num_packed; j++) {
        uint64_t off = s->pack_offsets[sf->first_pack + j], left = s->pack_sizes[sf->first_pack + j];
        if (packs)
            packs[j] = left;
        while (st == FZ7_OK && left) {
            size_t take = left < COPY_BUF_SIZE ? (size_t)left : COPY_BUF_SIZE;
            st = fz7_volumes_pread(src->vol, buf, take, off);
            if (st == FZ7_OK)
                st = fz7_fd_ostream_write(&w->out.os, buf, take);
            off += take;
            left -= take;
        }
    }
    free(buf);
    if (st != FZ7_OK) {
        /* Entries already pushed describe a folder that is not there: the
         * writer stays failed. */
        free(rec.m.p);
        free(sizes.m.p);
        free(packs);
        w->failed = st;
        return st;
    }
    folder_rec *f = &w->folders[w->n_folders];
    memset(f, 0, sizeof *f);
    f->pack_size = w->out.pos - start;
    f->unpack_size = unpack;
    f->num_substreams = n;
    f->raw_folder = rec.m.p;
    f->raw_folder_len = rec.m.n;
    f->raw_sizes = sizes.m.p;
    f->raw_sizes_len = sizes.m.n;
    f->raw_pack_sizes = packs;
    f->raw_n_packs = packs ? (size_t)sf->num_packed : 0;
    w->n_folders++;
    return FZ7_OK;
}
