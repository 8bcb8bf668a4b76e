/* 7z_write_impl.h - the .7z writer's state, shared by its parts: the
 * writer and its coder chain (7z_write.c), the header writer
 * (7z_header_write.c) and the folder copier (7z_copy.c). Not for use
 * outside src/format/7z/7z_*. */
#ifndef FZ7_7Z_WRITE_IMPL_H
#define FZ7_7Z_WRITE_IMPL_H

#include "format/7z/7z_write.h"

#include "format/7z/7z_internal.h"
#include "format/fd_ostream.h"

#include "codec/codec.h"
#include "filter/bcj2.h"
#include "filter/filter.h"
#include "lzma/lzma2_mt.h"

#include <stdbool.h>
#include <stdint.h>

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

/* ---- a growable byte buffer for the header ----------------------------- */

typedef struct bytebuf {
    fz7_membuf m;  /* m.p, m.n: the bytes */
    bool failed;   /* an allocation failed; later appends are dropped */
} bytebuf;

static inline void bb_bytes(bytebuf *b, const void *p, size_t n)
{
    if (!b->failed && fz7_membuf_write(&b->m.base, p, n) != FZ7_OK)
        b->failed = true;
}

static inline void bb_byte(bytebuf *b, uint8_t v) { bb_bytes(b, &v, 1); }

static inline void bb_u32(bytebuf *b, uint32_t v)
{
    uint8_t t[4];
    fz7_put32le(t, v);
    bb_bytes(b, t, 4);
}

static inline void bb_u64(bytebuf *b, uint64_t v)
{
    uint8_t t[8];
    fz7_put64le(t, v);
    bb_bytes(b, t, 8);
}

/* 7z NUMBER: the count of leading 1 bits in the first byte tells how many
 * little-endian bytes follow; the first byte's remaining bits are the
 * value's high bits. */
static inline void bb_number(bytebuf *b, uint64_t v)
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
static inline void bb_bits(bytebuf *b, const bool *bits, size_t n)
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

static inline fz7_status mem_write(fz7_ostream *os, const uint8_t *p, size_t n)
{
    mem_sink *m = (mem_sink *)os;
    bb_bytes(m->b, p, n);
    return m->b->failed ? FZ7_E_MEM : FZ7_OK;
}


/* ---- what the header needs to remember --------------------------------- */

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
    bool filter_first;            /* the filter's coder before the method's: it
                                     runs over the method's output */
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
    bool bcj2_raw_sides;          /* call, jump and rc stored raw, the method on main */
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

/* The BCJ2 encoder's main stream goes to the folder's method; with
 * filter_after, the method's output goes to the filter the same way. */
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
    fz7_lzma_enc *enc;            /* NULL for Copy, BZip2, PPMd and Deflate */
    fz7_bzip2_enc *bz;            /* BZip2 folders' encoder */
    fz7_ppmd7_enc *ppmd;          /* PPMd folders' encoder */
    fz7_deflate_enc *defl;        /* Deflate and Deflate64 folders' encoder */
    fz7_7zaes_writer *aes;        /* NULL without a password */
    fz7_ostream *method_dst;      /* where the method writes: the sink or aes */
    bool bcj;
    fz7_bcj_x86_state bcj_state;
    bool risc;                    /* a branch filter other than x86 (bcj_buf too) */
    fz7_bcj_risc_state risc_state;
    bool delta;
    fz7_delta_state delta_state;
    bool filter_after;            /* the filter runs over the method's output: */
    main_sink filter_in;          /* the method writes here, */
    fz7_ostream *filter_dst;      /* the filter to the 7zAES or pack stream */
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

/* The side stream (0 call, 1 jump, 2 rc) whose pack stream is the
 * i-th after the main one: rc, call, jump; for BCJ2's side streams stored
 * raw (BCJ2 alone, over the method's output, or with bcj2_raw_sides), as
 * 7-Zip stores them, call, jump, rc. */
static inline int bcj2_side_order(const folder_rec *f, int i)
{
    return f->method == FZ7_7Z_NONE || f->filter_first || f->bcj2_raw_sides ? i : (i + 2) % 3;
}


/* Ends the pending folder (waiting for its last blocks if need be): writes
 * the rest of its pack stream, records its sizes, then sends what the open
 * folder's coders have written meanwhile after it. The error also sticks
 * in w->failed. */
fz7_status fz7_7z_writer_settle(fz7_7z_writer *w);

/* Appends an entry record for m; has_stream says whether it has bytes in a
 * folder. FZ7_E_MEM when the record or its name cannot be stored. */
fz7_status fz7_7z_writer_push_entry(fz7_7z_writer *w, const fz7_7z_entry_meta *m, bool has_stream);

/* Room for one more folder record; false when out of memory. */
bool fz7_7z_writer_reserve_folder(fz7_7z_writer *w);

/* Frees the BCJ2 encoder and its side streams. */
void fz7_7z_writer_bcj2_free(fz7_7z_writer *w);

/* The Header (7zFormat.txt: MainStreamsInfo, FilesInfo) of what w holds,
 * into b. FZ7_E_MEM when b could not grow. */
fz7_status fz7_7z_header_build(const fz7_7z_writer *w, bytebuf *b);

/* LZMA-encodes *header (and encrypts it when key is set) into the archive
 * at the current position and replaces *header with the kEncodedHeader
 * block that describes it. Errors: the encoder's, or FZ7_E_IO / FZ7_E_MEM. */
fz7_status fz7_7z_header_encode(fz7_7z_writer *w, bytebuf *header, const fz7_7zaes_key *key);

#endif
